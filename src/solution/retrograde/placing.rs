//! The placing phase solved: the win/draw/loss value of every position
//! with stones in hand.
//!
//! A position's value is the best of its successors', each computed once,
//! sector by sector from the last placement back to the first (see
//! `sector`). Values ignore the draw rules, as the moving phase's do; no
//! repetition can happen while stones are placed.
//!
//! A sector is built from its successors, the sector a placement leads to
//! and the one a placement with a removal leads to. Its positions are
//! taken grouped by the other side's stones, which become the mover's
//! stones of every successor: all the successors of a group then lie in a
//! few short runs of their sectors' indices, which stay in the cache.

use std::sync::atomic::{AtomicU8, Ordering};

use arrayvec::ArrayVec;
use rayon::prelude::*;

use crate::board::{Bitboard, FullBoard, Symmetry, Tables};
use crate::solution::format::moving::MovingFile;
use crate::solution::format::placing::{PlacingFile, PlacingValues, code};
use crate::solution::index::{SectorIndex, WithMover, classes_of, subsets};
use crate::solution::memory::HugeAtomics;
use crate::solution::probe::Database;
use crate::solution::sector::Sector;
use crate::solution::value::DbOutcome;

/// A successor sector's values were not available to the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a position of the successor sector {0} has no value")]
pub struct MissingSuccessor(pub Sector);

/// A successor sector and its file.
#[derive(Clone, Copy)]
struct Successor<'a> {
    next: Sector,
    file: SuccessorFile<'a>,
}

#[derive(Clone, Copy)]
enum SuccessorFile<'a> {
    Placing(&'a PlacingFile),
    Moving(&'a MovingFile),
}

impl<'a> Successor<'a> {
    /// The sector `next` as `db` holds it.
    fn of(db: &'a Database, next: Sector) -> Result<Successor<'a>, MissingSuccessor> {
        let file = if next.is_placing() {
            db.placing_file(next).map(SuccessorFile::Placing)
        } else {
            let board = next.board;
            db.moving_file(next.variant, board.mover, board.other)
                .map(SuccessorFile::Moving)
        };
        Ok(Successor {
            next,
            file: file.ok_or(MissingSuccessor(next))?,
        })
    }

    /// The index space of its positions.
    fn board(self) -> SectorIndex {
        self.next.board
    }

    /// The outcome for the side that moved into its position `index`.
    #[inline]
    fn outcome_for_mover(self, index: u64) -> Result<DbOutcome, MissingSuccessor> {
        let outcome = match self.file {
            SuccessorFile::Placing(file) => file.outcome(index),
            SuccessorFile::Moving(file) => file.outcome(index),
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
    sector: Sector,
    db: &Database,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PlacingValues, MissingSuccessor> {
    // Written at random: in huge pages, zeroed by the system.
    let entries = HugeAtomics::<AtomicU8>::zeroed(sector.len() as usize);
    let codes = entries.as_slice();
    let (placed, removed) = sector.successors();
    // A placement that fills the board ends the game, by the rule.
    let placed = (!placed.is_full_board())
        .then(|| Successor::of(db, placed))
        .transpose()?;
    let removed = removed.map(|next| Successor::of(db, next)).transpose()?;
    // Black places last, so a board it fills is lost for White, or drawn.
    let full_board = match sector.full_board {
        FullBoard::Draw => DbOutcome::Draw,
        FullBoard::WhiteLoses => DbOutcome::Win,
    };
    let tables = sector.variant.tables();
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
                placed: placed.map(|placed| (placed, placed.board().with_mover(other))),
                full_board,
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
                codes[index as usize].store(code(outcome), Ordering::Relaxed);
                placements[outcome.slot()] += images;
                done += 1;
            }
            progress(done);
            Ok(placements)
        })
        .try_reduce(
            || [0; 3],
            |a, b| Ok([a[0] + b[0], a[1] + b[1], a[2] + b[2]]),
        )?;
    Ok(PlacingValues::pack(sector, placements, codes))
}

/// The positions of a sector with one set of the other side's stones, and
/// what their successors' indices share.
struct Group<'a> {
    tables: &'static Tables,
    other: Bitboard,
    /// Where a placement leads, with the other side's stones as mover;
    /// `None` where it fills the board.
    placed: Option<(Successor<'a>, WithMover)>,
    /// The outcome for the side to move of a placement that fills the
    /// board.
    full_board: DbOutcome,
    /// Where a placement that removes a stone leads (`None`: it wins the
    /// game), and for each stone it may take, with the other side's stones
    /// left as mover.
    removed: Option<Successor<'a>>,
    removals: ArrayVec<WithMover, 12>,
}

impl Group<'_> {
    /// The outcome for the side to move of a placement that removes
    /// nothing, after which it has `after` on the board.
    #[inline]
    fn placed(&self, after: Bitboard) -> Result<DbOutcome, MissingSuccessor> {
        match self.placed {
            Some((placed, after_placing)) => placed.outcome_for_mover(after_placing.index(after)),
            None => Ok(self.full_board),
        }
    }

    /// The outcome for the side to move of the position with `mover`
    /// stones against the group's.
    #[inline]
    fn outcome(&self, mover: Bitboard) -> Result<DbOutcome, MissingSuccessor> {
        let empty = !(mover | self.other) & Bitboard::FULL;
        let closing = self.tables.closing_points(mover, empty);
        let mut best = DbOutcome::Loss;
        // A mill is the likeliest win: those placements first.
        for to in closing {
            let after = mover.with(to);
            match self.removed {
                // Nothing on the board to take.
                _ if self.other.is_empty() => best = best.max(self.placed(after)?),
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
            best = best.max(self.placed(mover.with(to))?);
            if best == DbOutcome::Win {
                return Ok(best);
            }
        }
        Ok(best)
    }
}
