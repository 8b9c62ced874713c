//! The sectors: in the moving phase the stones on the board of each side
//! (`SectorIndex`, with the index of its positions), in the placing phase
//! those and the stones in hand; and where a placement leads.
//!
//! A placing sector is the stones on the board of the side to move and of
//! the other side, and the stones each has in hand; its positions are
//! indexed as the moving phase's (see `index`), by the board alone. Each
//! placement leaves one stone fewer in hand, so no position can come back:
//! the sectors are built from the last placement (whose successors are in
//! the moving phase) back to the first.

use super::index::{MIN_STONES, SectorIndex};
use crate::board::{Bitboard, Color, Position, Rules, Variant};

/// The position of a sector with `mover` to move (as White) against
/// `other`, nothing in hand, under the rules the databases are built for.
pub fn sector_position(mover: Bitboard, other: Bitboard) -> Position {
    Position::from_parts([mover, other], [0, 0], Color::White, Rules::default(), 0, 1)
}

/// Stones of each side in Nine Men's Morris.
const STONES: usize = Variant::Nine.stones() as usize;

/// A sector of the placing phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlacingSector {
    /// Stones on the board: of the side to move, and of the other side.
    pub board: SectorIndex,
    /// Stones in hand of the side to move.
    pub mover_hand: usize,
    /// Stones in hand of the other side.
    pub other_hand: usize,
}

impl std::fmt::Display for PlacingSector {
    /// `mover-other-mover_hand-other_hand`, as file names and `gen-db
    /// --sector` write it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let board = self.board;
        write!(
            f,
            "{}-{}-{}-{}",
            board.mover, board.other, self.mover_hand, self.other_hand
        )
    }
}

/// Where a placement leads: a placing sector, or the moving phase once
/// the last stone is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextSector {
    /// Stones are still in hand.
    Placing(PlacingSector),
    /// Nothing is in hand.
    Moving(SectorIndex),
}

impl std::fmt::Display for NextSector {
    /// A placing sector as [`PlacingSector`] writes it, a moving one as
    /// `mover-other`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NextSector::Placing(sector) => sector.fmt(f),
            NextSector::Moving(board) => write!(f, "{}-{}", board.mover, board.other),
        }
    }
}

impl PlacingSector {
    /// The sector of `mover` and `other` stones on the board and
    /// `mover_hand` and `other_hand` in hand, if such positions exist in a
    /// game of Nine Men's Morris: the side to move places (White, with as
    /// many in hand as Black, or Black, with one more), neither side has
    /// placed more than its stones, and each has at least three in all.
    pub fn new(
        mover: usize,
        other: usize,
        mover_hand: usize,
        other_hand: usize,
    ) -> Option<PlacingSector> {
        let turn = mover_hand == other_hand || mover_hand == other_hand + 1;
        let exists = turn
            && mover_hand >= 1
            && mover + mover_hand <= STONES
            && other + other_hand <= STONES
            && mover + mover_hand >= MIN_STONES
            && other + other_hand >= MIN_STONES;
        exists.then_some(PlacingSector {
            board: SectorIndex::new(mover, other),
            mover_hand,
            other_hand,
        })
    }

    /// Every placing sector with at most `per_side` stones a side, on the
    /// board and in hand together, the last placements first: each
    /// sector's successors come before it, and its last placements lead to
    /// moving sectors of at most `per_side` stones a side.
    pub fn within(per_side: usize) -> Vec<PlacingSector> {
        let mut sectors = PlacingSector::all();
        sectors.retain(|s| {
            s.board.mover + s.mover_hand <= per_side && s.board.other + s.other_hand <= per_side
        });
        sectors
    }

    /// Every placing sector, the last placements first: each sector's
    /// successors come before it.
    pub fn all() -> Vec<PlacingSector> {
        let mut sectors: Vec<PlacingSector> = (0..=STONES)
            .flat_map(|mover_hand| {
                (0..=STONES).flat_map(move |other_hand| {
                    (0..=STONES).flat_map(move |mover| {
                        (0..=STONES).filter_map(move |other| {
                            PlacingSector::new(mover, other, mover_hand, other_hand)
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

    /// The position of this sector with `mover` and `other` on the board:
    /// White to move when the hands are equal, else Black (with one more).
    pub fn position(self, mover: Bitboard, other: Bitboard) -> Position {
        let hands = [self.mover_hand as u8, self.other_hand as u8];
        if self.mover_hand == self.other_hand {
            Position::from_parts([mover, other], hands, Color::White, Rules::default(), 0, 1)
        } else {
            let [mover_hand, other_hand] = hands;
            let (stones, hands) = ([other, mover], [other_hand, mover_hand]);
            Position::from_parts(stones, hands, Color::Black, Rules::default(), 0, 1)
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

    /// Where a placement leads, and a placement that removes a stone
    /// (`None` when the other side would be left with fewer than three
    /// stones: the placement wins).
    pub fn successors(self) -> (NextSector, Option<NextSector>) {
        let next = |other: usize| {
            let (mover, mover_hand, other_hand) =
                (self.board.mover + 1, self.mover_hand - 1, self.other_hand);
            // The other side moves next: it is the successor's mover.
            if mover_hand == 0 && other_hand == 0 {
                NextSector::Moving(SectorIndex::new(other, mover))
            } else {
                NextSector::Placing(PlacingSector {
                    board: SectorIndex::new(other, mover),
                    mover_hand: other_hand,
                    other_hand: mover_hand,
                })
            }
        };
        let removing = self.board.other + self.other_hand > MIN_STONES && self.board.other > 0;
        (
            next(self.board.other),
            removing.then(|| next(self.board.other - 1)),
        )
    }
}
