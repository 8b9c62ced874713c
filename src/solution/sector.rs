//! The sectors of the whole game: the stones on the board of the side to
//! move and of the other side, and those each has in hand, none in the
//! moving phase; and where a placement leads.
//!
//! A sector's positions are indexed by the board alone (see `index`). Each
//! placement leaves one stone fewer in hand, so no position of the placing
//! phase can come back: its sectors are built from the last placement
//! (whose successors are in the moving phase) back to the first.

use super::index::{MIN_STONES, SectorIndex};
use crate::board::{Bitboard, Color, FullBoard, Position, Rules, Variant};

/// The position of `variant`'s moving phase with `mover` to move (as
/// White) against `other`, under the rules the databases are built for.
pub fn sector_position(variant: Variant, mover: Bitboard, other: Bitboard) -> Position {
    let board = SectorIndex::new(mover.len() as usize, other.len() as usize);
    Sector::moving(variant, board).position(mover, other)
}

/// A sector: the game, and the stones on the board and in hand of each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sector {
    /// The game whose positions these are.
    pub variant: Variant,
    /// The full-board rule its values are of: [`FullBoard::Draw`] but for
    /// a placing sector that can still fill the board (see
    /// [`Sector::under`]), whose values the rule changes.
    pub full_board: FullBoard,
    /// Stones on the board: of the side to move, and of the other side.
    pub board: SectorIndex,
    /// Stones in hand of the side to move.
    pub mover_hand: usize,
    /// Stones in hand of the other side.
    pub other_hand: usize,
}

impl std::fmt::Display for Sector {
    /// `mover-other` in the moving phase, `mover-other-mover_hand-other_hand`
    /// in the placing phase, as file names and `gen-db --sector` write them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let board = self.board;
        if self.is_placing() {
            write!(
                f,
                "{}-{}-{}-{}",
                board.mover, board.other, self.mover_hand, self.other_hand
            )
        } else {
            write!(f, "{}-{}", board.mover, board.other)
        }
    }
}

impl Sector {
    /// The sector of `mover` and `other` stones on the board and
    /// `mover_hand` and `other_hand` in hand, if such positions exist in a
    /// game of `variant`: a moving sector of at least three and at most the
    /// variant's stones a side (see [`SectorIndex::exists`]) or a placing
    /// one (see [`Sector::placing`]).
    pub fn new(
        variant: Variant,
        mover: usize,
        other: usize,
        mover_hand: usize,
        other_hand: usize,
    ) -> Option<Sector> {
        if variant.may_slide_while_placing() {
            Sector::interleaved(variant, mover, other, mover_hand, other_hand)
        } else if mover_hand == 0 && other_hand == 0 {
            let stones = usize::from(variant.stones());
            (SectorIndex::exists(mover, other) && mover.max(other) <= stones)
                .then(|| Sector::moving(variant, SectorIndex::new(mover, other)))
        } else {
            Sector::placing(variant, mover, other, mover_hand, other_hand)
        }
    }

    /// The moving phase's sector of these stones on the board.
    pub fn moving(variant: Variant, board: SectorIndex) -> Sector {
        Sector {
            variant,
            full_board: FullBoard::Draw,
            board,
            mover_hand: 0,
            other_hand: 0,
        }
    }

    /// The placing phase's sector of `mover` and `other` stones on the
    /// board and `mover_hand` and `other_hand` in hand, if such positions
    /// exist in a game of `variant`: the side to move places (White, with
    /// as many in hand as Black, or Black, with one more), neither side
    /// has placed more than its stones, and each has at least three in all.
    pub fn placing(
        variant: Variant,
        mover: usize,
        other: usize,
        mover_hand: usize,
        other_hand: usize,
    ) -> Option<Sector> {
        let stones = [mover, other, mover_hand, other_hand];
        let turn = mover_hand == other_hand || mover_hand == other_hand + 1;
        let exists = turn && mover_hand >= 1 && Sector::stones_fit(variant, stones);
        exists.then(|| Sector::of_stones(variant, stones))
    }

    /// The sector of `variant` of these stones (on the board of the side
    /// to move and of the other side, then in hand), with a full board
    /// drawn, whether such positions exist or not.
    pub(super) fn of_stones(
        variant: Variant,
        [mover, other, mover_hand, other_hand]: [usize; 4],
    ) -> Sector {
        Sector {
            variant,
            full_board: FullBoard::Draw,
            board: SectorIndex::new(mover, other),
            mover_hand,
            other_hand,
        }
    }

    /// Whether neither side has placed more than its stones of `variant`,
    /// and each has at least three in all.
    fn stones_fit(variant: Variant, [mover, other, mover_hand, other_hand]: [usize; 4]) -> bool {
        let stones = MIN_STONES..=usize::from(variant.stones());
        stones.contains(&(mover + mover_hand)) && stones.contains(&(other + other_hand))
    }

    /// The sector of `mover` and `other` stones on the board and
    /// `mover_hand` and `other_hand` in hand of a variant where a side with
    /// stones in hand may slide (so that the hands need not be even), if
    /// such positions exist: neither side has placed more than its stones,
    /// each has at least three in all, and with none in hand a moving
    /// sector (see [`SectorIndex::exists`]).
    fn interleaved(
        variant: Variant,
        mover: usize,
        other: usize,
        mover_hand: usize,
        other_hand: usize,
    ) -> Option<Sector> {
        let stones = [mover, other, mover_hand, other_hand];
        let exists = Sector::stones_fit(variant, stones)
            && (mover_hand + other_hand > 0 || SectorIndex::exists(mover, other));
        exists.then(|| Sector::of_stones(variant, stones))
    }

    /// The same stones with the other side to move: where the moves that
    /// neither place nor remove a stone lead, in a variant where a side
    /// with stones in hand may slide (and in the moving phase).
    pub fn twin(self) -> Sector {
        Sector {
            board: SectorIndex::new(self.board.other, self.board.mover),
            mover_hand: self.other_hand,
            other_hand: self.mover_hand,
            ..self
        }
    }

    /// Where a placement that removes nothing leads, in a variant where a
    /// side with stones in hand may slide: the stone on the board, the
    /// other side to move.
    pub fn placed_into(self) -> Option<Sector> {
        let (m, o) = (self.board.mover, self.board.other);
        (self.mover_hand > 0).then(|| {
            Sector::of_stones(
                self.variant,
                [o, m + 1, self.other_hand, self.mover_hand - 1],
            )
        })
    }

    /// The sector whose placements that remove nothing lead to this one
    /// (see [`Sector::placed_into`]), if there is one: the one build that
    /// reads this sector's distances.
    pub fn placed_from(self) -> Option<Sector> {
        if !self.variant.may_slide_while_placing() || self.board.other == 0 {
            return None;
        }
        let (m, o) = (self.board.mover, self.board.other);
        Sector::interleaved(self.variant, o - 1, m, self.other_hand + 1, self.mover_hand)
            .filter(|from| from.placed_into() == Some(self))
    }

    /// The sector and its twin, built together: one sector where it is its
    /// own twin.
    pub fn with_twin(self) -> Vec<Sector> {
        let twin = self.twin();
        if twin == self {
            vec![self]
        } else {
            vec![self, twin]
        }
    }

    /// Every sector of `variant`, a variant where a side with stones in
    /// hand may slide, with at most `per_side` stones a side on the board
    /// and in hand together: of a sector and its twin, which are built
    /// together, the one whose side to move has more stones (on the board,
    /// then in hand) alone; each before every sector that one of its moves
    /// placing or removing a stone leads to (fewer stones in hand, or as
    /// many and fewer in all).
    pub fn interleaved_within(variant: Variant, per_side: usize) -> Vec<Sector> {
        let stones = per_side.min(usize::from(variant.stones()));
        let counts = || {
            (0..=stones).flat_map(move |board| (0..=stones - board).map(move |hand| (board, hand)))
        };
        let mut sectors: Vec<Sector> = counts()
            .flat_map(|(mover, mover_hand)| {
                counts().filter_map(move |(other, other_hand)| {
                    let first = (mover, mover_hand) >= (other, other_hand);
                    first
                        .then(|| Sector::interleaved(variant, mover, other, mover_hand, other_hand))
                        .flatten()
                })
            })
            .collect();
        sectors.sort_by_key(|s| {
            let on_board = s.board.mover + s.board.other;
            (
                s.to_place(),
                on_board + s.to_place(),
                on_board,
                s.board.mover,
                s.mover_hand,
            )
        });
        sectors
    }

    /// The sector of the same stones under the full-board rule `rule`:
    /// itself unless its positions can still fill the board (a placing
    /// sector of a variant that can fill it, no stone removed yet), whose
    /// values then depend on the rule.
    pub fn under(self, rule: FullBoard) -> Sector {
        let stones = usize::from(self.variant.stones());
        let can_fill = self.variant.can_fill_the_board()
            && self.is_placing()
            && self.board.mover + self.mover_hand == stones
            && self.board.other + self.other_hand == stones;
        Sector {
            full_board: if can_fill { rule } else { FullBoard::Draw },
            ..self
        }
    }

    /// Whether this is where a placement that fills the board leads: no
    /// sector, since the game is then over (see [`SectorIndex::exists`]).
    pub fn is_full_board(self) -> bool {
        !SectorIndex::exists(self.board.mover, self.board.other) && !self.is_placing()
    }

    /// Whether stones are in hand: a sector of the placing phase.
    pub fn is_placing(self) -> bool {
        self.to_place() > 0
    }

    /// Whether its values have the plies to the next removal, as the
    /// moving phase's: all but the placing sectors of a variant that
    /// places every stone before it moves, whose positions cannot come
    /// back and which keep the outcome alone.
    pub fn keeps_distances(self) -> bool {
        !self.is_placing() || self.variant.may_slide_while_placing()
    }

    /// Whether the sector's values are kept in a file: every sector that
    /// keeps distances (see [`Sector::keeps_distances`]), and the placing
    /// sectors with Black to move and at least three stones
    /// left to place. A placing position of another sector is worth the
    /// best of its placements, and the positions they lead to are kept (or
    /// in the moving phase), but for those with two stones left to place,
    /// which are two placements from the moving phase: one ply over the
    /// files gives its value exactly, or two. The sectors left out are the
    /// larger part, the two last placements the largest of all.
    pub fn is_stored(self) -> bool {
        self.keeps_distances() || (self.to_place() % 2 == 1 && self.to_place() >= 3)
    }

    /// The sectors kept in files among `among` that are built from this
    /// one's values, directly or through sectors whose values are derived.
    pub fn stored_readers(self, among: &[Sector]) -> Vec<Sector> {
        let mut found = Vec::new();
        for reader in self.readers(among) {
            if reader.is_stored() {
                found.push(reader);
            } else {
                found.extend(reader.stored_readers(among));
            }
        }
        found.sort_by_key(|sector| sector.order());
        found.dedup();
        found
    }

    /// The placing sectors of `among` whose placements lead to this one.
    fn readers(self, among: &[Sector]) -> Vec<Sector> {
        among
            .iter()
            .copied()
            .filter(|reader| {
                reader.is_placing() && {
                    let (placed, removed) = reader.successors();
                    placed == self || removed == Some(self)
                }
            })
            .collect()
    }

    /// Every placing sector of `variant` with at most `per_side` stones a
    /// side, on the board and in hand together, the last placements first:
    /// each sector's successors come before it, and its last placements
    /// lead to moving sectors of at most `per_side` stones a side.
    pub fn placing_within(variant: Variant, per_side: usize) -> Vec<Sector> {
        let mut sectors = Sector::placing_all(variant);
        sectors.retain(|s| {
            s.board.mover + s.mover_hand <= per_side && s.board.other + s.other_hand <= per_side
        });
        sectors
    }

    /// Every placing sector of `variant`, the last placements first: each
    /// sector's successors come before it.
    pub fn placing_all(variant: Variant) -> Vec<Sector> {
        let stones = usize::from(variant.stones());
        let mut sectors: Vec<Sector> = (0..=stones)
            .flat_map(|mover_hand| {
                (0..=stones).flat_map(move |other_hand| {
                    (0..=stones).flat_map(move |mover| {
                        (0..=stones).filter_map(move |other| {
                            Sector::placing(variant, mover, other, mover_hand, other_hand)
                        })
                    })
                })
            })
            .collect();
        sectors.sort_by_key(|s| s.order());
        sectors
    }

    /// The key of the order sectors are built in: the last placements first.
    pub(super) fn order(self) -> (usize, usize, usize, usize, usize) {
        let board = self.board;
        (
            self.to_place(),
            board.mover + board.other,
            board.mover,
            self.mover_hand,
            self.other_hand,
        )
    }

    /// The rules the sector's values are built for: its variant's and its
    /// full-board rule, with flying and the N-move rule's default (which no
    /// stored value weighs).
    pub fn rules(self) -> Rules {
        Rules {
            full_board: self.full_board,
            ..Rules::new(self.variant)
        }
    }

    /// The position of this sector with `mover` and `other` on the board:
    /// White to move when the hands are equal, else Black (with one more).
    pub fn position(self, mover: Bitboard, other: Bitboard) -> Position {
        let hands = [self.mover_hand as u8, self.other_hand as u8];
        if self.mover_hand == self.other_hand {
            Position::from_parts([mover, other], hands, Color::White, self.rules(), 0, 1)
        } else {
            let [mover_hand, other_hand] = hands;
            let (stones, hands) = ([other, mover], [other_hand, mover_hand]);
            Position::from_parts(stones, hands, Color::Black, self.rules(), 0, 1)
        }
    }

    /// Stones left to place, both sides together.
    pub fn to_place(self) -> usize {
        self.mover_hand + self.other_hand
    }

    /// The number of indices.
    pub fn len(self) -> u64 {
        self.board.len()
    }

    /// Whether the sector has no index (never: every sector has a position).
    pub fn is_empty(self) -> bool {
        self.board.is_empty()
    }

    /// The sectors a placing sector's values are built from: where its
    /// placements lead (see [`Sector::successors`]), but a full board,
    /// where the game ends.
    pub fn needs(self) -> Vec<Sector> {
        let (placed, removed) = self.successors();
        let placed = Some(placed).filter(|placed| !placed.is_full_board());
        placed.into_iter().chain(removed).collect()
    }

    /// Where a placement of this placing sector leads, and a placement that
    /// removes a stone (`None` when the other side would be left with fewer
    /// than three stones: the placement wins); once the last stone is
    /// placed, a moving sector, or a full board (see
    /// [`Sector::is_full_board`]), where the game ends.
    pub fn successors(self) -> (Sector, Option<Sector>) {
        debug_assert!(self.is_placing(), "a moving sector has no placement");
        let next = |other: usize| {
            let (mover, mover_hand, other_hand) =
                (self.board.mover + 1, self.mover_hand - 1, self.other_hand);
            // The other side moves next: it is the successor's mover.
            Sector {
                variant: self.variant,
                full_board: FullBoard::Draw,
                board: SectorIndex::new(other, mover),
                mover_hand: other_hand,
                other_hand: mover_hand,
            }
            .under(self.full_board)
        };
        let removing = self.board.other + self.other_hand > MIN_STONES && self.board.other > 0;
        (
            next(self.board.other),
            removing.then(|| next(self.board.other - 1)),
        )
    }
}
