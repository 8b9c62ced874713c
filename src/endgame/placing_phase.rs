//! The placing phase solved: the win/draw/loss value of every position
//! with stones in hand.
//!
//! A placing sector is the stones on the board of the side to move and of
//! the other side, and the stones each has in hand; its positions are
//! indexed as the moving phase's (see `index`), by the board alone. Each
//! placement leaves one stone fewer in hand, so no position can come back:
//! a position's value is the best of its successors', each computed once,
//! sector by sector from the last placement (whose successors are in the
//! moving phase) back to the first. Values ignore the draw rules, as the
//! moving phase's do; no repetition can happen while stones are placed.
//!
//! A sector is built from its successors, the sector a placement leads to
//! and the one a placement with a removal leads to. Its positions are
//! taken grouped by the other side's stones, which become the mover's
//! stones of every successor: all the successors of a group then lie in a
//! few short runs of their sectors' indices, which stay in the cache.

use std::sync::atomic::{AtomicU8, Ordering};

use arrayvec::ArrayVec;
use rayon::prelude::*;

use super::DbOutcome;
use super::file::SectorFile;
use super::index::{SectorIndex, WithMover, classes_of, subsets};
use super::placing_file::PlacingFile;
use super::probe::EndgameDb;
use crate::board::{Bitboard, Color, Position, Rules, Symmetry, Tables};

/// Stones of each side in Nine Men's Morris.
const STONES: usize = 9;

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
            && mover + mover_hand >= 3
            && other + other_hand >= 3;
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
        let removing = self.board.other + self.other_hand > 3 && self.board.other > 0;
        (
            next(self.board.other),
            removing.then(|| next(self.board.other - 1)),
        )
    }
}

/// A value as two bits: 0 for an index that is not canonical.
const LOSS: u8 = 1;
const DRAW: u8 = 2;
const WIN: u8 = 3;

/// The two-bit code of an outcome.
fn code(outcome: DbOutcome) -> u8 {
    match outcome {
        DbOutcome::Loss => LOSS,
        DbOutcome::Draw => DRAW,
        DbOutcome::Win => WIN,
    }
}

/// The outcome of a two-bit code (`None` for 0).
pub(super) fn outcome_of(code: u8) -> Option<DbOutcome> {
    match code {
        LOSS => Some(DbOutcome::Loss),
        DRAW => Some(DbOutcome::Draw),
        WIN => Some(DbOutcome::Win),
        _ => None,
    }
}

/// Wins, draws and losses of a sector, each counted two ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlacingCounts {
    /// Over symmetry classes (canonical indices).
    pub classes: [u64; 3],
    /// Over every placement of the stones on the board.
    pub placements: [u64; 3],
}

impl PlacingCounts {
    /// The slot of an outcome: wins, draws, losses.
    fn slot(outcome: DbOutcome) -> usize {
        match outcome {
            DbOutcome::Win => 0,
            DbOutcome::Draw => 1,
            DbOutcome::Loss => 2,
        }
    }
}

/// The values of a built placing sector, four to a byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingValues {
    /// The sector.
    pub sector: PlacingSector,
    /// Its wins, draws and losses.
    pub counts: PlacingCounts,
    codes: Vec<u8>,
}

impl PlacingValues {
    /// The bytes the values of `sector` take.
    pub fn packed_len(sector: PlacingSector) -> usize {
        sector.len().div_ceil(4) as usize
    }

    /// The packed codes, as a file stores them.
    pub fn packed(&self) -> &[u8] {
        &self.codes
    }
}

/// A successor sector's values were not available to the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a position of the successor sector {0} has no value")]
pub struct MissingSuccessor(pub NextSector);

/// A successor sector and its file.
#[derive(Clone, Copy)]
struct Successor<'a> {
    next: NextSector,
    file: SuccessorFile<'a>,
}

#[derive(Clone, Copy)]
enum SuccessorFile<'a> {
    Placing(&'a PlacingFile),
    Moving(&'a SectorFile),
}

impl<'a> Successor<'a> {
    /// The sector `next` as `db` holds it.
    fn of(db: &'a EndgameDb, next: NextSector) -> Result<Successor<'a>, MissingSuccessor> {
        let file = match next {
            NextSector::Placing(sector) => db.placing_file(sector).map(SuccessorFile::Placing),
            NextSector::Moving(board) => {
                db.file(board.mover, board.other).map(SuccessorFile::Moving)
            }
        };
        Ok(Successor {
            next,
            file: file.ok_or(MissingSuccessor(next))?,
        })
    }

    /// The index space of its positions.
    fn board(self) -> SectorIndex {
        match self.next {
            NextSector::Placing(sector) => sector.board,
            NextSector::Moving(board) => board,
        }
    }

    /// The outcome for the side that moved into its position `index`.
    #[inline]
    fn outcome_for_mover(self, index: u64) -> Result<DbOutcome, MissingSuccessor> {
        let outcome = match self.file {
            SuccessorFile::Placing(file) => file.outcome(index),
            SuccessorFile::Moving(file) => file.value(index).map(|value| value.outcome),
        };
        outcome.map(|o| -o).ok_or(MissingSuccessor(self.next))
    }
}

/// Builds `sector` from the values of its successors in `db`; `progress`
/// hears of the positions done as they are.
///
/// # Errors
///
/// [`MissingSuccessor`] when `db` lacks a successor's value.
pub fn build_placing_sector(
    sector: PlacingSector,
    db: &EndgameDb,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PlacingValues, MissingSuccessor> {
    // Zeroed by the allocator, not entry by entry.
    let entries: Vec<AtomicU8> = bytemuck::zeroed_vec(sector.len() as usize);
    let (placed, removed) = sector.successors();
    let placed = Successor::of(db, placed)?;
    let removed = removed.map(|next| Successor::of(db, next)).transpose()?;
    let tables = Rules::default().variant.tables();
    let groups = classes_of(sector.board.other);
    let placements = groups
        .par_iter()
        .map(|&other| {
            // Each position of the group stands for this many placements of
            // the stones: the other side's stones' images.
            let images = 16
                / Symmetry::ALL
                    .iter()
                    .filter(|sym| sym.apply_bitboard(other) == other)
                    .count() as u64;
            // The other side moves next, so its stones are the successors'
            // mover's: what their indices share is found once a group.
            let group = Group {
                tables,
                other,
                placed: (placed, placed.board().with_mover(other)),
                removals: match removed {
                    Some(removed) if !other.is_empty() => tables
                        .removable(other)
                        .into_iter()
                        .map(|taken| removed.board().with_mover(other.without(taken)))
                        .collect(),
                    _ => ArrayVec::new(),
                },
                removed,
            };
            let free = !other & Bitboard::FULL;
            let mut placements = [0; 3];
            let mut done = 0;
            for mover in subsets(sector.board.mover, free) {
                let outcome = group.outcome(mover)?;
                let index = sector.board.canonical(mover, other).index;
                // Every position of a group is this group's alone, and its
                // symmetric images (with the same value) are too: no other
                // thread writes this entry.
                entries[index as usize].store(code(outcome), Ordering::Relaxed);
                placements[PlacingCounts::slot(outcome)] += images;
                done += 1;
            }
            progress(done);
            Ok(placements)
        })
        .try_reduce(
            || [0; 3],
            |a, b| Ok([a[0] + b[0], a[1] + b[1], a[2] + b[2]]),
        )?;
    let mut counts = PlacingCounts {
        placements,
        ..PlacingCounts::default()
    };
    let codes = entries
        .chunks(4)
        .map(|four| {
            four.iter().enumerate().fold(0, |byte, (i, entry)| {
                let code = entry.load(Ordering::Relaxed);
                if let Some(outcome) = outcome_of(code) {
                    counts.classes[PlacingCounts::slot(outcome)] += 1;
                }
                byte | code << (2 * i)
            })
        })
        .collect();
    Ok(PlacingValues {
        sector,
        counts,
        codes,
    })
}

/// The positions of a sector with one set of the other side's stones, and
/// what their successors' indices share.
struct Group<'a> {
    tables: &'static Tables,
    other: Bitboard,
    /// Where a placement leads, with the other side's stones as mover.
    placed: (Successor<'a>, WithMover),
    /// Where a placement that removes a stone leads (`None`: it wins the
    /// game), and for each stone it may take, with the other side's stones
    /// left as mover.
    removed: Option<Successor<'a>>,
    removals: ArrayVec<WithMover, 12>,
}

impl Group<'_> {
    /// The outcome for the side to move of the position with `mover`
    /// stones against the group's.
    #[inline]
    fn outcome(&self, mover: Bitboard) -> Result<DbOutcome, MissingSuccessor> {
        let empty = !(mover | self.other) & Bitboard::FULL;
        let closing = self.tables.closing_points(mover, empty);
        let (placed, after_placing) = self.placed;
        let mut best = DbOutcome::Loss;
        // A mill is the likeliest win: those placements first.
        for to in closing {
            let after = mover.with(to);
            match self.removed {
                // Nothing on the board to take.
                _ if self.other.is_empty() => {
                    best = best.max(placed.outcome_for_mover(after_placing.index(after))?);
                }
                // The other side is left short of stones.
                None => return Ok(DbOutcome::Win),
                Some(removed) => {
                    for after_removal in &self.removals {
                        best = best.max(removed.outcome_for_mover(after_removal.index(after))?);
                        if best == DbOutcome::Win {
                            return Ok(best);
                        }
                    }
                }
            }
            if best == DbOutcome::Win {
                return Ok(best);
            }
        }
        for to in empty - closing {
            best = best.max(placed.outcome_for_mover(after_placing.index(mover.with(to)))?);
            if best == DbOutcome::Win {
                return Ok(best);
            }
        }
        Ok(best)
    }
}
