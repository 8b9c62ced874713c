//! Checking stored values against the values of their successors: a value
//! is right when it is what one ply of minimax over the children's values
//! gives (stored, or in the placing phase derived from those stored).

use rayon::prelude::*;

use super::format::Kept;
use super::index::SectorIndex;
use super::probe::{Database, best_known};
use super::sector::Sector;
use super::value::{DbOutcome, DbValue};
use crate::board::{Bitboard, Position};

/// What checking one sector found: against its successors, or against
/// another folder's values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectorCheck {
    /// Positions whose value was checked.
    pub checked: u64,
    /// Indices whose stored value differs from their children's verdict,
    /// or from the other folder's value (the first few).
    pub wrong: Vec<u64>,
    /// How many were wrong in all.
    pub wrong_count: u64,
    /// Positions left unchecked because a child's sector is not loaded, or
    /// a value is missing on either side of a comparison.
    pub unknown: u64,
}

/// The most wrong indices a [`SectorCheck`] lists.
const LISTED: usize = 10;

/// The value one ply of minimax over the stored values of its children
/// gives the moving position `pos` (a removal counts as distance one,
/// whatever follows); `None` if a child is not stored.
fn value_from_children(db: &Database, pos: &Position) -> Option<DbValue> {
    let best = best_known(pos.legal_moves(), |mv| db.move_value(pos, mv).value)?;
    Some(best.unwrap_or(match without_a_move(pos) {
        DbOutcome::Draw => DbValue::draw(),
        _ => DbValue::loss(0),
    }))
}

/// The outcome one ply of minimax over the outcomes of its children gives
/// `pos`; `None` if a child is not known.
fn outcome_from_children(db: &Database, pos: &Position) -> Option<DbOutcome> {
    let best = best_known(pos.legal_moves(), |mv| db.move_outcome(pos, mv))?;
    Some(best.unwrap_or_else(|| without_a_move(pos)))
}

/// The outcome of `pos`, which has no move, by the rules: a full board's
/// by its rule, else a block, lost at once.
fn without_a_move(pos: &Position) -> DbOutcome {
    pos.terminal_outcome().map_or(DbOutcome::Loss, |end| {
        DbOutcome::of_end(end, pos.side_to_move())
    })
}

/// Checks the stored values of `sector` against one ply of minimax over
/// its children's values: every canonical position, or about `sample` of
/// them spread evenly over the sector. In the moving phase, a sector that
/// keeps distances (see [`Kept`]) is checked with them (its children's
/// derived from theirs, two plies deep), another by its outcomes (its
/// distances are derived by the very ply a check would make), and so is
/// a position whose distance cannot be derived, its moves not bearing out
/// its outcome; in the placing phase, by outcomes, the children's placing,
/// stored or derived, or moving. `progress` hears of each class of the
/// mover's stones done.
pub fn check_sector(
    db: &Database,
    sector: Sector,
    sample: Option<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> SectorCheck {
    let keeps_distances = sector.keeps_distances() && Kept::of(sector) != Kept::Nothing;
    check_positions(
        sector.board,
        sample,
        progress,
        |check, index, mover, other| {
            let pos = sector.position(mover, other);
            let value = keeps_distances.then(|| db.value(&pos));
            if let Some(value @ Some(_)) = value {
                check.record(index, value, || value_from_children(db, &pos));
            } else {
                check.record(index, db.outcome(&pos), || outcome_from_children(db, &pos));
            }
        },
    )
}

/// Compares the values of `sector` in `ours` with those in `theirs`, index
/// by index: the outcome, and in the moving phase the distance where the
/// sector keeps distances (see [`Kept`]) and both sides can derive those
/// it does not keep; every canonical position, or about `sample` of them
/// spread evenly. A position either lacks is counted unknown. `progress`
/// hears of each class of the mover's stones done.
pub fn compare_sector(
    ours: &Database,
    theirs: &Database,
    sector: Sector,
    sample: Option<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> SectorCheck {
    let keeps_distances = sector.keeps_distances() && Kept::of(sector) != Kept::Nothing;
    check_positions(
        sector.board,
        sample,
        progress,
        |check, index, mover, other| {
            let pos = sector.position(mover, other);
            let values = keeps_distances.then(|| (ours.value(&pos), theirs.value(&pos)));
            if let Some((Some(ours), Some(theirs))) = values {
                check.record(index, Some(ours), || Some(theirs));
            } else {
                check.record(index, ours.outcome(&pos), || theirs.outcome(&pos));
            }
        },
    )
}

/// Runs `check` on every canonical position of `board` (its index, the
/// mover's and the other side's stones), or on about `sample` of them
/// spread evenly, the classes of the mover's stones in parallel, each
/// told to `progress` when done.
fn check_positions(
    board: SectorIndex,
    sample: Option<u64>,
    progress: &(dyn Fn(u64) + Sync),
    check: impl Fn(&mut SectorCheck, u64, Bitboard, Bitboard) + Sync,
) -> SectorCheck {
    // Every `stride`-th index of each class is looked at.
    let stride = sample.map_or(1, |n| (board.len() / n.max(1)).max(1));
    let checks = (0..board.class_count()).into_par_iter().map(|class| {
        let mut found = SectorCheck::default();
        for (index, mover, other) in board.canonical_positions(class) {
            if index % stride == 0 {
                check(&mut found, index, mover, other);
            }
        }
        progress(1);
        found
    });
    checks.reduce(SectorCheck::default, SectorCheck::merge)
}

impl SectorCheck {
    /// Counts one position, `stored` against what its children give.
    fn record<T: PartialEq>(
        &mut self,
        index: u64,
        stored: Option<T>,
        expected: impl FnOnce() -> Option<T>,
    ) {
        match (stored, expected()) {
            (Some(stored), Some(expected)) => {
                self.checked += 1;
                if stored != expected {
                    self.wrong_count += 1;
                    if self.wrong.len() < LISTED {
                        self.wrong.push(index);
                    }
                }
            }
            _ => self.unknown += 1,
        }
    }

    /// Both checks' counts together.
    fn merge(mut self, other: SectorCheck) -> SectorCheck {
        self.checked += other.checked;
        self.wrong_count += other.wrong_count;
        self.unknown += other.unknown;
        self.wrong.extend(other.wrong);
        self.wrong.sort_unstable();
        self.wrong.truncate(LISTED);
        self
    }
}
