//! The loaded databases, probed by the search; and the generation of a
//! whole set of sectors.

use std::path::Path;

use super::build::{BuildStep, SmallerSectors, build_pair};
use super::file::{Header, SectorFile, sector_file_name, write_sector};
use super::index::SectorIndex;
use super::{DbOutcome, DbValue};
use crate::board::{Bitboard, Color, Move, Position, Rules, Variant};
use crate::endgame::{DbError, DbProblem};

/// Sides have at most this many stones in a sector.
const MAX_STONES: usize = 12;

/// Every sector file of a folder that passed its checks.
pub struct EndgameDb {
    /// By (mover, other) stones, `MAX_STONES + 1` to a row.
    sectors: Vec<Option<SectorFile>>,
}

impl Default for EndgameDb {
    fn default() -> EndgameDb {
        EndgameDb {
            sectors: (0..(MAX_STONES + 1) * (MAX_STONES + 1))
                .map(|_| None)
                .collect(),
        }
    }
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
            problem: DbProblem::from(e),
        })?;
        let mut db = EndgameDb::default();
        let mut rejected = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("mdb") {
                continue;
            }
            match SectorFile::open(&path) {
                Ok(file) => db.insert(file),
                Err(err) => rejected.push(err),
            }
        }
        Ok((db, rejected))
    }

    fn insert(&mut self, file: SectorFile) {
        let slot = file.sector.mover * (MAX_STONES + 1) + file.sector.other;
        self.sectors[slot] = Some(file);
    }

    fn file(&self, mover: usize, other: usize) -> Option<&SectorFile> {
        if mover > MAX_STONES || other > MAX_STONES {
            return None;
        }
        self.sectors[mover * (MAX_STONES + 1) + other].as_ref()
    }

    /// The loaded sector files, smallest first.
    pub fn files(&self) -> Vec<&SectorFile> {
        let mut files: Vec<&SectorFile> = self.sectors.iter().flatten().collect();
        files.sort_by_key(|f| (f.sector.mover + f.sector.other, f.sector.mover));
        files
    }

    /// The number of sectors loaded.
    pub fn len(&self) -> usize {
        self.sectors.iter().flatten().count()
    }

    /// Whether no sector is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The headers of the loaded sectors, smallest first.
    pub fn headers(&self) -> Vec<Header> {
        self.files().iter().map(|f| f.header).collect()
    }

    /// The files in which a damaged block was met (whose values there are
    /// not used).
    pub fn damaged(&self) -> Vec<&Path> {
        self.files()
            .into_iter()
            .filter(|f| f.is_damaged())
            .map(|f| f.path.as_path())
            .collect()
    }

    /// The value of the position with `mover` to move against `other`, if
    /// its sector is loaded.
    pub fn value(&self, mover: Bitboard, other: Bitboard) -> Option<DbValue> {
        let file = self.file(mover.len() as usize, other.len() as usize)?;
        let canonical = file.sector.canonical(mover, other);
        file.value(canonical.index)
    }

    /// Whether the databases are of these rules: Nine Men's Morris with
    /// flying.
    pub fn holds_rules(rules: Rules) -> bool {
        rules.variant == Variant::Nine && rules.flying
    }

    /// Whether the databases hold every position the placing of `pos` can
    /// end in: their rules, and the sectors of all stones placed, whoever
    /// moves (those with fewer stones, after removals, come before them).
    pub fn holds_end_of_placing(&self, pos: &Position) -> bool {
        let [white, black] = Color::ALL.map(|c| pos.stone_count(c) as usize);
        EndgameDb::holds_rules(pos.rules())
            && self.file(white, black).is_some()
            && self.file(black, white).is_some()
    }

    /// The value of a position, if it is one the databases hold: their
    /// rules, nothing in hand, its sector loaded.
    pub fn probe(&self, pos: &Position) -> Option<DbValue> {
        if !EndgameDb::holds_rules(pos.rules()) || pos.stones_to_place() > 0 {
            return None;
        }
        let us = pos.side_to_move();
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
                        match -theirs.outcome {
                            DbOutcome::Draw => DbValue::draw(),
                            outcome => DbValue { outcome, distance },
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
        let sectors: Vec<String> = self
            .files()
            .iter()
            .map(|f| format!("{}-{}", f.sector.mover, f.sector.other))
            .collect();
        f.debug_struct("EndgameDb")
            .field("sectors", &sectors)
            .finish()
    }
}

impl SmallerSectors for EndgameDb {
    fn values(&self, positions: &[(Bitboard, Bitboard)], values: &mut Vec<Option<DbValue>>) {
        let stored: Vec<Option<(&SectorFile, u64)>> = positions
            .iter()
            .map(|&(mover, other)| {
                let file = self.file(mover.len() as usize, other.len() as usize)?;
                Some((file, file.sector.canonical(mover, other).index))
            })
            .collect();
        // Read every entry once before using any: the reads do not wait
        // for one another, so their cache misses overlap.
        let touched = stored
            .iter()
            .flatten()
            .fold(0u8, |acc, &(file, index)| acc | file.raw_byte(index));
        std::hint::black_box(touched);
        values.extend(
            stored
                .into_iter()
                .map(|at| at.and_then(|(file, index)| file.value(index))),
        );
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

impl SectorRange {
    /// The pairs of `pairs` grouped in waves by their stones in all: a
    /// pair's removals lead only to pairs of earlier waves, so the pairs of
    /// one wave can be built at once, on as many machines.
    pub fn waves(self) -> Vec<Vec<(usize, usize)>> {
        let mut waves: Vec<Vec<(usize, usize)>> = Vec::new();
        for (a, b) in self.pairs() {
            match waves.last_mut() {
                Some(wave) if wave[0].0 + wave[0].1 == a + b => wave.push((a, b)),
                _ => waves.push(vec![(a, b)]),
            }
        }
        waves
    }
}

/// The sectors of the pair (a, b): (a, b) and (b, a), one when a = b.
pub fn pair_sectors(a: usize, b: usize) -> Vec<SectorIndex> {
    if a == b {
        vec![SectorIndex::new(a, b)]
    } else {
        vec![SectorIndex::new(a, b), SectorIndex::new(b, a)]
    }
}

/// The pairs the removals of pair (a, b) lead to: one stone fewer on
/// either side, while both keep three.
pub fn pair_dependencies(a: usize, b: usize) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = [(a - 1, b), (a, b - 1)]
        .into_iter()
        .filter(|&(x, y)| x >= 3 && y >= 3)
        .map(|(x, y)| (x.min(y), x.max(y)))
        .collect();
    pairs.dedup();
    pairs
}

/// Opens and checks in full the files of `sectors` in `dir`: the files,
/// or the names of those missing or not valid.
fn open_verified(dir: &Path, sectors: &[SectorIndex]) -> Result<Vec<SectorFile>, Vec<String>> {
    let mut files = Vec::new();
    let mut missing = Vec::new();
    for &sector in sectors {
        let path = dir.join(sector_file_name(sector));
        match SectorFile::open_in_memory(&path).and_then(|file| file.verify().map(|()| file)) {
            Ok(file) => files.push(file),
            Err(_) => missing.push(format!("{}-{}", sector.mover, sector.other)),
        }
    }
    if missing.is_empty() {
        Ok(files)
    } else {
        Err(missing)
    }
}

/// Builds the pair (a, b) in `dir` from the smaller sectors there, unless
/// both its files are present and valid (then they are kept).
/// `progress` hears of each step of the build; `done` of each
/// sector finished.
///
/// # Errors
///
/// [`DbProblem::Missing`] naming the smaller sectors not there or not
/// valid; a file that cannot be written.
pub fn generate_pair(
    dir: &Path,
    (a, b): (usize, usize),
    progress: &(dyn Fn(BuildStep) + Sync),
    mut done: impl FnMut(&GenerationReport),
) -> Result<(), DbError> {
    let io = |e: std::io::Error| DbError {
        path: dir.to_owned(),
        problem: DbProblem::from(e),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    if let Ok(files) = open_verified(dir, &pair_sectors(a, b)) {
        for file in files {
            done(&GenerationReport {
                header: file.header,
                reused: true,
            });
        }
        return Ok(());
    }
    let needed: Vec<SectorIndex> = pair_dependencies(a, b)
        .into_iter()
        .flat_map(|(x, y)| pair_sectors(x, y))
        .collect();
    let mut smaller = EndgameDb::default();
    for file in open_verified(dir, &needed).map_err(|missing| DbError {
        path: dir.to_owned(),
        problem: DbProblem::Missing(missing),
    })? {
        smaller.insert(file);
    }
    for built in build_pair(a, b, &smaller, progress) {
        let header = write_sector(dir, &built)?;
        done(&GenerationReport {
            header,
            reused: false,
        });
    }
    Ok(())
}

/// Builds, in `dir`, every sector of `range`, smallest first, a pair
/// (a, b) and (b, a) at a time; sectors whose files are present and valid
/// are kept. `progress` hears of each step of the build; `done`
/// of each sector finished.
///
/// # Errors
///
/// A file that cannot be written.
pub fn generate(
    dir: &Path,
    range: SectorRange,
    progress: &(dyn Fn(BuildStep) + Sync),
    mut done: impl FnMut(&GenerationReport),
) -> Result<(), DbError> {
    for pair in range.pairs() {
        generate_pair(dir, pair, progress, &mut done)?;
    }
    Ok(())
}
