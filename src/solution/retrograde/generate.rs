//! Generation of a whole set of sectors: which pairs, in what order (waves
//! of pairs that can be built at once), each built from the smaller
//! sectors it needs and written to its file.

use std::path::Path;

use super::moving::{BuildStep, build_pair};
use super::placing::{MissingSuccessor, build_placing_sector};
use crate::solution::error::{DbError, DbProblem};
use crate::solution::format::moving::{Header, SectorFile, sector_file_name, write_sector};
use crate::solution::format::placing::{
    PlacingFile, PlacingHeader, placing_file_name, write_placing,
};
use crate::solution::index::{MAX_STONES, MIN_STONES, SectorIndex};
use crate::solution::probe::EndgameDb;
use crate::solution::sector::{NextSector, PlacingSector};

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
        let max = self.per_side.clamp(MIN_STONES, MAX_STONES);
        let mut pairs: Vec<(usize, usize)> = (MIN_STONES..=max)
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
    let mut pairs: Vec<(usize, usize)> = removal_sectors(a, b)
        .into_iter()
        .map(|s| (s.mover.min(s.other), s.mover.max(s.other)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The sectors the removals of pair (a, b) lead to, the opponent to move
/// with one stone fewer: of the smaller pairs, only these are read.
pub fn removal_sectors(a: usize, b: usize) -> Vec<SectorIndex> {
    pair_sectors(a, b)
        .into_iter()
        .filter(|s| s.other > MIN_STONES)
        .map(|s| SectorIndex::new(s.other - 1, s.mover))
        .collect()
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
    let needed = removal_sectors(a, b);
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

/// What the generation of one placing sector reports.
#[derive(Clone, Debug)]
pub struct PlacingReport {
    /// The sector's header.
    pub header: PlacingHeader,
    /// Whether it was already there and valid (not rebuilt).
    pub reused: bool,
}

/// Opens and checks in full the file of the placing sector `sector`.
fn open_placing_verified(dir: &Path, sector: PlacingSector) -> Result<PlacingFile, DbError> {
    let file = PlacingFile::open_in_memory(&dir.join(placing_file_name(sector)))?;
    file.verify()?;
    Ok(file)
}

/// Builds the placing sector `sector` in `dir` from the sectors its
/// placements lead to there, unless its file is present and valid (then it
/// is kept). `progress` hears of the positions done; `done` of the sector
/// finished.
///
/// # Errors
///
/// [`DbProblem::Missing`] naming the sectors it needs that are not there
/// or not valid; a file that cannot be written.
pub fn generate_placing_sector(
    dir: &Path,
    sector: PlacingSector,
    progress: &(dyn Fn(u64) + Sync),
    done: impl FnOnce(&PlacingReport),
) -> Result<(), DbError> {
    if let Ok(file) = open_placing_verified(dir, sector) {
        done(&PlacingReport {
            header: file.header,
            reused: true,
        });
        return Ok(());
    }
    let (placed, removed) = sector.successors();
    let mut successors = EndgameDb::default();
    let mut missing = Vec::new();
    for next in std::iter::once(placed).chain(removed) {
        match next {
            NextSector::Placing(next) => match open_placing_verified(dir, next) {
                Ok(file) => successors.insert_placing(file),
                Err(_) => missing.push(next.to_string()),
            },
            NextSector::Moving(board) => match open_verified(dir, &[board]) {
                Ok(files) => files.into_iter().for_each(|file| successors.insert(file)),
                Err(names) => missing.extend(names),
            },
        }
    }
    let missing_error = |missing| DbError {
        path: dir.to_owned(),
        problem: DbProblem::Missing(missing),
    };
    if !missing.is_empty() {
        return Err(missing_error(missing));
    }
    // Every successor was opened and checked: a value can be missing
    // only if a file's blocks changed since, and then it is refused.
    let values = build_placing_sector(sector, &successors, progress)
        .map_err(|MissingSuccessor(next)| missing_error(vec![next.to_string()]))?;
    let header = write_placing(dir, &values)?;
    done(&PlacingReport {
        header,
        reused: false,
    });
    Ok(())
}
