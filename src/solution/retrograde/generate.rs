//! Generation of a whole set of sectors: which pairs, in what order (waves
//! of pairs that can be built at once), each built from the smaller
//! sectors it needs and written to its file.

use std::collections::HashMap;
use std::path::Path;

use super::interleaved::{build_unit, unit_needs};
use super::moving::{BuildStep, build_pair};
use super::placing::{MissingSuccessor, build_placing_sector};
use crate::board::Variant;
use crate::solution::error::{BuildError, DbError, DbProblem};
use crate::solution::format::convert::let_go_of_distances;
use crate::solution::format::moving::{BuiltSector, MovingFile, write_sector};
use crate::solution::format::placing::{PlacingFile, write_placing};
use crate::solution::format::{build_folder, build_path};
use crate::solution::index::{MIN_STONES, SectorIndex};
use crate::solution::probe::Database;
use crate::solution::sector::Sector;

/// What the generation of one sector reports.
#[derive(Clone, Copy, Debug)]
pub struct GenerationReport {
    /// The sector.
    pub sector: Sector,
    /// What became of it.
    pub how: Generated,
}

/// What became of one sector in a build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generated {
    /// Built and written.
    Built,
    /// Already there and valid: kept as it was.
    Kept,
    /// Not built: its values are derived (see [`Sector::is_stored`]) and
    /// every sector kept in a file that is built from it is there and
    /// valid.
    NotNeeded,
}

/// Which sectors to build: those of `variant` with each side 3 to
/// `per_side` stones (at most the variant's), and at most `total` stones
/// in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectorRange {
    /// The game.
    pub variant: Variant,
    /// The most stones of one side.
    pub per_side: usize,
    /// The most stones of both sides together.
    pub total: usize,
}

impl SectorRange {
    /// Every sector of `variant` with at most `per_side` stones a side.
    pub fn per_side(variant: Variant, per_side: usize) -> SectorRange {
        SectorRange {
            variant,
            per_side,
            total: 2 * per_side,
        }
    }

    /// The sector pairs (a <= b) in the range, in the order they are built.
    pub fn pairs(self) -> Vec<(usize, usize)> {
        let max = self
            .per_side
            .clamp(MIN_STONES, usize::from(self.variant.stones()));
        let mut pairs: Vec<(usize, usize)> = (MIN_STONES..=max)
            .flat_map(|a| (a..=max).map(move |b| (a, b)))
            .filter(|&(a, b)| a + b <= self.total && SectorIndex::exists(a, b))
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

/// Opens and checks in full the files of `sectors` in `dir`, and loads
/// them into `db`: the names of those missing or not valid, if any.
fn load_verified(dir: &Path, sectors: &[Sector], db: &mut Database) -> Result<(), Vec<String>> {
    let mut missing = Vec::new();
    for &sector in sectors {
        let path = build_path(dir, sector);
        let opened = if sector.keeps_distances() {
            MovingFile::open_in_memory(&path)
                .and_then(|file| file.verify().map(|()| db.insert_moving(file)))
        } else {
            PlacingFile::open_in_memory(&path)
                .and_then(|file| file.verify().map(|()| db.insert_placing(file)))
        };
        if opened.is_err() {
            missing.push(sector.to_string());
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// Refuses a moving sector's file among `sectors` in `dir` that is of the
/// format before, rather than build it again: `morris db-convert` converts
/// it in far less time than a build takes.
fn refuse_convertible(dir: &Path, sectors: &[Sector]) -> Result<(), BuildError> {
    for &sector in sectors {
        let refused = MovingFile::open(&build_path(dir, sector)).err();
        if let Some(err) = refused.filter(|e| matches!(e.problem, DbProblem::Convertible { .. })) {
            return Err(err.into());
        }
    }
    Ok(())
}

/// Whether the files of `sectors` in a build's folder `dir` are present
/// and valid, checked in full.
fn all_valid(dir: &Path, sectors: &[Sector]) -> bool {
    load_verified(dir, sectors, &mut Database::default()).is_ok()
}

/// The error of a build that needs `sectors` first, in `dir`.
fn missing(dir: &Path, sectors: Vec<String>) -> BuildError {
    BuildError::Missing {
        dir: dir.to_owned(),
        sectors,
    }
}

/// Builds the pair (a, b) in `dir` from the smaller sectors there, unless
/// both its files are present and valid (then they are kept).
/// `progress` hears of each step of the build; `done` of each
/// sector finished.
///
/// # Errors
///
/// [`BuildError::Missing`] naming the smaller sectors not there or not
/// valid; a file that cannot be written; a file of the pair or of the
/// smaller sectors of the format before (to convert).
pub fn generate_pair(
    dir: &Path,
    variant: Variant,
    (a, b): (usize, usize),
    progress: &(dyn Fn(BuildStep) + Sync),
    done: impl FnMut(&GenerationReport),
) -> Result<(), BuildError> {
    let moving = |board| Sector::moving(variant, board);
    let pair: Vec<Sector> = pair_sectors(a, b).into_iter().map(moving).collect();
    let needed: Vec<Sector> = removal_sectors(a, b).into_iter().map(moving).collect();
    generate_twins(
        dir,
        &pair,
        &needed,
        |smaller| Ok(build_pair(variant, a, b, smaller, progress)),
        done,
    )
}

/// Builds, in `dir`, the sectors `twins` (a sector and its twin, or one
/// sector its own twin) by `build`, from the files of `needed` there read
/// into a [`Database`], unless their files are present and valid (then
/// they are kept); `done` hears of each sector finished.
fn generate_twins(
    dir: &Path,
    twins: &[Sector],
    needed: &[Sector],
    build: impl FnOnce(Database) -> Result<Vec<BuiltSector>, BuildError>,
    mut done: impl FnMut(&GenerationReport),
) -> Result<(), BuildError> {
    std::fs::create_dir_all(dir).map_err(|e| DbError {
        path: dir.to_owned(),
        problem: DbProblem::from(e),
    })?;
    refuse_convertible(dir, twins)?;
    refuse_convertible(dir, needed)?;
    if all_valid(dir, twins) {
        for &sector in twins {
            done(&GenerationReport {
                sector,
                how: Generated::Kept,
            });
        }
        return Ok(());
    }
    let mut solved = Database::default();
    load_verified(dir, needed, &mut solved).map_err(|names| missing(dir, names))?;
    for built in build(solved)? {
        write_sector(dir, &built)?;
        done(&GenerationReport {
            sector: built.sector,
            how: Generated::Built,
        });
    }
    Ok(())
}

/// Builds, in `dir`, the sector `sector` of a variant where a side with
/// stones in hand may slide, and its twin (see [`Sector::twin`]), from
/// the sectors there that their moves out lead to, unless both files are
/// present and valid (then they are kept): as [`generate_pair`] builds a
/// pair of the moving phase, which is what it builds where nothing is in
/// hand. `progress` hears of each step of the build; `done` of each
/// sector finished.
///
/// # Errors
///
/// [`BuildError::Missing`] naming the sectors not there or not valid that
/// it needs; a file that cannot be written; a file of the format before
/// (to convert).
pub fn generate_unit(
    dir: &Path,
    sector: Sector,
    progress: &(dyn Fn(BuildStep) + Sync),
    done: impl FnMut(&GenerationReport),
) -> Result<(), BuildError> {
    if !sector.is_placing() {
        let (a, b) = (sector.board.mover, sector.board.other);
        return generate_pair(dir, sector.variant, (a.min(b), a.max(b)), progress, done);
    }
    let twins = sector.with_twin();
    // Every sector needed was opened and checked: a value can be missing
    // only if a file's blocks changed since, and then it is refused, or if
    // the sector a placement leads to has let go of its distances (see
    // `Kept::in_folder`), which a build that deleted this unit's files
    // meets.
    let build = |solved| {
        build_unit(sector, solved, progress)
            .map_err(|MissingSuccessor(next)| missing(dir, vec![next.to_string()]))
    };
    generate_twins(dir, &twins, &unit_needs(sector), build, done)?;
    // The distances the unit's placements read are read no more.
    for built in twins {
        if let Some(read) = built.placed_into() {
            let_go_of_distances(dir, read)?;
        }
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
) -> Result<(), BuildError> {
    for pair in range.pairs() {
        generate_pair(dir, range.variant, pair, progress, &mut done)?;
    }
    Ok(())
}

/// A build of placing sectors into one folder, each from the sectors its
/// placements lead to there. It remembers which files it checked, since
/// each sector whose values are derived asks whether the files built from
/// it are there.
pub struct PlacingBuild<'a> {
    dir: &'a Path,
    /// The sectors being built, which say which sectors are built from a
    /// derived one.
    among: &'a [Sector],
    /// The sectors whose files were checked in full, and whether they
    /// passed.
    valid: HashMap<Sector, bool>,
}

impl<'a> PlacingBuild<'a> {
    /// A build into `dir` of `among` (or of some of them: a derived sector
    /// is built only if a sector of `among` kept in a file needs it).
    pub fn new(dir: &'a Path, among: &'a [Sector]) -> PlacingBuild<'a> {
        PlacingBuild {
            dir,
            among,
            valid: HashMap::new(),
        }
    }

    /// Whether the file of the placing `sector` is there and valid,
    /// checked in full once.
    ///
    /// # Errors
    ///
    /// A file of the format before, refused rather than built over:
    /// `morris db-convert` converts it in far less time than a build takes.
    fn is_valid(&mut self, sector: Sector) -> Result<bool, BuildError> {
        if let Some(&valid) = self.valid.get(&sector) {
            return Ok(valid);
        }
        let checked =
            PlacingFile::open_in_memory(&build_path(self.dir, sector)).and_then(|f| f.verify());
        let valid = match checked {
            Ok(()) => true,
            Err(err) if matches!(err.problem, DbProblem::Convertible { .. }) => {
                return Err(err.into());
            }
            Err(_) => false,
        };
        self.valid.insert(sector, valid);
        Ok(valid)
    }

    /// Builds the placing sector `sector` from the sectors its placements
    /// lead to, unless its file is present and valid (then it is kept), or
    /// unless its values are derived and every sector kept in a file that
    /// is built from it is there and valid (or there is none). The file of
    /// a sector whose values are derived goes to the folder
    /// [`INTERMEDIATE`](crate::solution::format::INTERMEDIATE), for the
    /// sectors before it to be built from. `progress` hears of the
    /// positions done; `done` of the sector finished.
    ///
    /// # Errors
    ///
    /// [`BuildError::Missing`] naming the sectors it needs that are not
    /// there or not valid; a file that cannot be written; its file, or that
    /// of a sector built from it, of the format before (to convert).
    pub fn sector(
        &mut self,
        sector: Sector,
        progress: &(dyn Fn(u64) + Sync),
        done: impl FnOnce(&GenerationReport),
    ) -> Result<(), BuildError> {
        let how = if self.is_valid(sector)? {
            Some(Generated::Kept)
        } else if sector.is_stored() {
            None
        } else {
            // Every reader is checked, so that one to convert is refused
            // before anything is built for it.
            let mut readers_valid = true;
            for reader in sector.stored_readers(self.among) {
                readers_valid &= self.is_valid(reader)?;
            }
            readers_valid.then_some(Generated::NotNeeded)
        };
        if let Some(how) = how {
            done(&GenerationReport { sector, how });
            return Ok(());
        }
        let dir = self.dir;
        let needed = sector.needs();
        let mut successors = Database::default();
        load_verified(dir, &needed, &mut successors).map_err(|names| missing(dir, names))?;
        // Every successor was opened and checked: a value can be missing
        // only if a file's blocks changed since, and then it is refused.
        let values = build_placing_sector(sector, &successors, progress)
            .map_err(|MissingSuccessor(next)| missing(dir, vec![next.to_string()]))?;
        let folder = build_folder(dir, sector);
        std::fs::create_dir_all(&folder).map_err(|e| DbError {
            path: folder.clone(),
            problem: DbProblem::from(e),
        })?;
        write_placing(&folder, &values)?;
        self.valid.insert(sector, true);
        done(&GenerationReport {
            sector,
            how: Generated::Built,
        });
        Ok(())
    }
}
