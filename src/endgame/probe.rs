//! The loaded databases, probed by the search; and the generation of a
//! whole set of sectors.

use std::collections::HashMap;
use std::path::Path;

use super::build::{SmallerSectors, build_pair};
use super::file::{Header, SectorFile, sector_file_name, write_sector};
use super::index::SectorIndex;
use super::{DbOutcome, DbValue};
use crate::bitboard::Bitboard;
use crate::error::{DbError, DbProblem};
use crate::moves::Move;
use crate::position::Position;
use crate::rules::Variant;

/// Every sector file of a folder that passed its checks.
#[derive(Default)]
pub struct EndgameDb {
    sectors: HashMap<(usize, usize), SectorFile>,
}

impl EndgameDb {
    /// Loads every sector file in `dir`; the files that fail their checks
    /// are left out and returned as errors.
    ///
    /// # Errors
    ///
    /// [`DbError`] if the folder cannot be read.
    pub fn open(dir: &Path) -> Result<(EndgameDb, Vec<DbError>), DbError> {
        let entries = std::fs::read_dir(dir).map_err(|e| DbError {
            path: dir.to_owned(),
            problem: DbProblem::Io(e.to_string()),
        })?;
        let mut db = EndgameDb::default();
        let mut rejected = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("mdb") {
                continue;
            }
            match SectorFile::open(&path) {
                Ok(file) => {
                    db.sectors
                        .insert((file.sector.mover, file.sector.other), file);
                }
                Err(err) => rejected.push(err),
            }
        }
        Ok((db, rejected))
    }

    /// The number of sectors loaded.
    pub fn len(&self) -> usize {
        self.sectors.len()
    }

    /// Whether no sector is loaded.
    pub fn is_empty(&self) -> bool {
        self.sectors.is_empty()
    }

    /// The headers of the loaded sectors, smallest first.
    pub fn headers(&self) -> Vec<Header> {
        let mut headers: Vec<Header> = self.sectors.values().map(|f| f.header).collect();
        headers.sort_by_key(|h| (h.mover + h.other, h.mover));
        headers
    }

    /// The value of the position with `mover` to move against `other`, if
    /// its sector is loaded.
    pub fn value(&self, mover: Bitboard, other: Bitboard) -> Option<DbValue> {
        let file = self
            .sectors
            .get(&(mover.len() as usize, other.len() as usize))?;
        let canonical = file.sector.canonical(mover, other);
        DbValue::decode(file.entry(canonical.index)?)
    }

    /// The value of a position, if it is one the databases hold: Nine Men's
    /// Morris with flying, nothing in hand, its sector loaded.
    pub fn probe(&self, pos: &Position) -> Option<DbValue> {
        let rules = pos.rules();
        let us = pos.side_to_move();
        if rules.variant != Variant::Nine
            || !rules.flying
            || pos.in_hand(us) > 0
            || pos.in_hand(us.opponent()) > 0
        {
            return None;
        }
        self.value(pos.stones(us), pos.stones(us.opponent()))
    }

    /// Every legal move of `pos` with its value for the side making it
    /// (`None` where the databases do not know it), best first: wins by
    /// the fewest plies to the next removal, draws, unknown moves, then
    /// losses by the most plies. A move that wins the game at once is a
    /// win in 1, as a removal into a lost position is.
    pub fn rank_moves(&self, pos: &Position) -> Vec<(Move, Option<DbValue>)> {
        let mut ranked: Vec<(Move, Option<DbValue>)> = pos
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                let value = match child.terminal_outcome() {
                    Some(outcome) if outcome.winner().is_some() => Some(DbValue::win(1)),
                    Some(_) => Some(DbValue::draw()),
                    None => self.probe(&child).map(|theirs| {
                        // The next removal is this move's, or one ply
                        // further than theirs.
                        let distance = if mv.removal.is_some() {
                            1
                        } else {
                            theirs.distance + 1
                        };
                        match theirs.outcome {
                            DbOutcome::Win => DbValue::loss(distance),
                            DbOutcome::Loss => DbValue::win(distance),
                            DbOutcome::Draw => DbValue::draw(),
                        }
                    }),
                };
                (mv, value)
            })
            .collect();
        ranked.sort_by_key(|&(_, value)| match value {
            Some(DbValue {
                outcome: DbOutcome::Win,
                distance,
            }) => (0, i32::from(distance)),
            Some(DbValue {
                outcome: DbOutcome::Draw,
                ..
            }) => (1, 0),
            None => (2, 0),
            Some(DbValue {
                outcome: DbOutcome::Loss,
                distance,
            }) => (3, -i32::from(distance)),
        });
        ranked
    }
}

impl std::fmt::Debug for EndgameDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut sectors: Vec<&(usize, usize)> = self.sectors.keys().collect();
        sectors.sort();
        f.debug_struct("EndgameDb")
            .field("sectors", &sectors)
            .finish()
    }
}

impl SmallerSectors for EndgameDb {
    fn value(&self, mover: Bitboard, other: Bitboard) -> Option<DbValue> {
        EndgameDb::value(self, mover, other)
    }
}

/// What the generation of one sector reports.
#[derive(Clone, Debug)]
pub struct GenerationReport {
    /// The sector's header.
    pub header: Header,
    /// Whether it was already there and valid (not rebuilt).
    pub reused: bool,
}

/// Which sectors to build: each side 3 to `per_side` stones, and at most
/// `total` stones in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorRange {
    /// The most stones of one side.
    pub per_side: usize,
    /// The most stones of both sides together.
    pub total: usize,
}

impl SectorRange {
    /// Every sector with at most `per_side` stones a side.
    pub fn per_side(per_side: usize) -> SectorRange {
        SectorRange {
            per_side,
            total: 2 * per_side,
        }
    }

    /// The sector pairs (a <= b) in the range, in the order they are built.
    pub fn pairs(self) -> Vec<(usize, usize)> {
        let max = self.per_side.clamp(3, 12);
        let mut pairs: Vec<(usize, usize)> = (3..=max)
            .flat_map(|a| (a..=max).map(move |b| (a, b)))
            .filter(|&(a, b)| a + b <= self.total)
            .collect();
        pairs.sort_by_key(|&(a, b)| (a + b, a));
        pairs
    }
}

/// Builds, in `dir`, every sector of `range`, smallest first, a pair
/// (a, b) and (b, a) at a time; sectors whose files are present and valid
/// are kept. `progress` hears of each batch of decided positions; `done`
/// of each sector finished.
///
/// # Errors
///
/// A file that cannot be written.
pub fn generate(
    dir: &Path,
    range: SectorRange,
    progress: &(dyn Fn(u64) + Sync),
    mut done: impl FnMut(&GenerationReport),
) -> Result<(), DbError> {
    std::fs::create_dir_all(dir).map_err(|e| DbError {
        path: dir.to_owned(),
        problem: DbProblem::Io(e.to_string()),
    })?;
    let mut db = EndgameDb::default();
    for (a, b) in range.pairs() {
        let sectors = if a == b {
            vec![(a, b)]
        } else {
            vec![(a, b), (b, a)]
        };
        let existing: Vec<Option<SectorFile>> = sectors
            .iter()
            .map(|&(m, o)| {
                SectorFile::open(&dir.join(sector_file_name(SectorIndex::new(m, o)))).ok()
            })
            .collect();
        if existing.iter().all(Option::is_some) {
            for file in existing.into_iter().flatten() {
                done(&GenerationReport {
                    header: file.header,
                    reused: true,
                });
                db.sectors
                    .insert((file.sector.mover, file.sector.other), file);
            }
            continue;
        }
        for built in build_pair(a, b, &db, progress) {
            let header = write_sector(dir, &built)?;
            done(&GenerationReport {
                header,
                reused: false,
            });
            let path = dir.join(sector_file_name(built.sector));
            let file = SectorFile::open(&path)?;
            db.sectors
                .insert((built.sector.mover, built.sector.other), file);
        }
    }
    Ok(())
}
