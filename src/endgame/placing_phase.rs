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

use rayon::prelude::*;

use super::DbOutcome;
use super::index::{SectorIndex, binomial, classes_of, unrank_within};
use super::probe::EndgameDb;
use crate::board::{Bitboard, Rules};

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

/// Where a placement leads: a placing sector, or the moving phase once
/// the last stone is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextSector {
    /// Stones are still in hand.
    Placing(PlacingSector),
    /// Nothing is in hand.
    Moving(SectorIndex),
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
        sectors.sort_by_key(|s| {
            let (board, hands) = (s.board, (s.mover_hand, s.other_hand));
            (s.to_place(), board.mover + board.other, board.mover, hands)
        });
        sectors
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
fn outcome_of(code: u8) -> Option<DbOutcome> {
    match code {
        LOSS => Some(DbOutcome::Loss),
        DRAW => Some(DbOutcome::Draw),
        WIN => Some(DbOutcome::Win),
        _ => None,
    }
}

/// The values of a built placing sector, four to a byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingValues {
    /// The sector.
    pub sector: PlacingSector,
    codes: Vec<u8>,
}

impl PlacingValues {
    /// The outcome for the side to move at `index` (`None` for an index
    /// that is not canonical).
    pub fn outcome(&self, index: u64) -> Option<DbOutcome> {
        let byte = *self.codes.get((index / 4) as usize)?;
        outcome_of(byte >> (2 * (index % 4)) & 3)
    }

    /// The packed codes, as a file stores them.
    pub fn packed(&self) -> &[u8] {
        &self.codes
    }
}

/// The values a build reads: the outcome for the side to move of a
/// position of a successor sector, by its canonical index.
pub trait SuccessorValues: Sync {
    /// The outcome of position `index` of `sector` (`None` when it is not
    /// known).
    fn outcome(&self, sector: NextSector, index: u64) -> Option<DbOutcome>;
}

/// A successor sector's values were not available to the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a position of a successor sector ({0:?}) has no value")]
pub struct MissingSuccessor(pub NextSector);

/// Builds `sector` from the values of its successors.
///
/// # Errors
///
/// [`MissingSuccessor`] when `successors` lacks a value.
pub fn build_placing_sector(
    sector: PlacingSector,
    successors: &dyn SuccessorValues,
) -> Result<PlacingValues, MissingSuccessor> {
    let entries: Vec<AtomicU8> = (0..sector.len()).map(|_| AtomicU8::new(0)).collect();
    let (placed, removed) = sector.successors();
    let groups = classes_of(sector.board.other).len();
    (0..groups).into_par_iter().try_for_each(|group| {
        let other = classes_of(sector.board.other)[group];
        let free = !other & Bitboard::FULL;
        let count = sector.board.mover;
        let sets = binomial(free.len() as usize, count);
        for rank in 0..sets {
            let mover = unrank_within(rank, count, free);
            let outcome = position_outcome(mover, other, placed, removed, successors)?;
            let index = sector.board.canonical(mover, other).index;
            // Every position of a group is this group's alone, and its
            // symmetric images (with the same value) are too: no other
            // thread writes this entry.
            entries[index as usize].store(code(outcome), Ordering::Relaxed);
        }
        Ok(())
    })?;
    let codes = entries
        .chunks(4)
        .map(|four| {
            four.iter().enumerate().fold(0, |byte, (i, e)| {
                byte | e.load(Ordering::Relaxed) << (2 * i)
            })
        })
        .collect();
    Ok(PlacingValues { sector, codes })
}

/// The outcome for the side to move of the position with `mover` and
/// `other` stones on the board, from its successors in `placed` and
/// `removed` (see [`PlacingSector::successors`]).
fn position_outcome(
    mover: Bitboard,
    other: Bitboard,
    placed: NextSector,
    removed: Option<NextSector>,
    successors: &dyn SuccessorValues,
) -> Result<DbOutcome, MissingSuccessor> {
    let tables = Rules::default().variant.tables();
    let empty = !(mover | other) & Bitboard::FULL;
    let closing = tables.closing_points(mover, empty);
    let removable = tables.removable(other);
    let mut best = DbOutcome::Loss;
    let value_of = |next: NextSector, child_mover: Bitboard, child_other: Bitboard| {
        let index = board_of(next).canonical(child_mover, child_other).index;
        successors
            .outcome(next, index)
            .map(|outcome| -outcome)
            .ok_or(MissingSuccessor(next))
    };
    // A mill is the likeliest win: those placements first.
    for to in closing {
        let after = mover.with(to);
        if other.is_empty() {
            best = best.max(value_of(placed, other, after)?);
        } else {
            let Some(removed) = removed else {
                return Ok(DbOutcome::Win);
            };
            for taken in removable {
                best = best.max(value_of(removed, other.without(taken), after)?);
                if best == DbOutcome::Win {
                    return Ok(best);
                }
            }
        }
        if best == DbOutcome::Win {
            return Ok(best);
        }
    }
    for to in empty - closing {
        best = best.max(value_of(placed, other, mover.with(to))?);
        if best == DbOutcome::Win {
            return Ok(best);
        }
    }
    Ok(best)
}

/// The board part of a successor sector.
fn board_of(next: NextSector) -> SectorIndex {
    match next {
        NextSector::Placing(sector) => sector.board,
        NextSector::Moving(board) => board,
    }
}

/// Successor values from the moving-phase databases and the placing
/// sectors built so far.
pub struct Successors<'a> {
    /// The moving phase.
    pub moving: &'a EndgameDb,
    /// Placing sectors, by sector.
    pub placing: &'a std::collections::HashMap<PlacingSector, PlacingValues>,
}

impl SuccessorValues for Successors<'_> {
    fn outcome(&self, sector: NextSector, index: u64) -> Option<DbOutcome> {
        match sector {
            NextSector::Placing(sector) => self.placing.get(&sector)?.outcome(index),
            NextSector::Moving(board) => {
                let value = self.moving.file(board.mover, board.other)?.value(index)?;
                Some(value.outcome)
            }
        }
    }
}
