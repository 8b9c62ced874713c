//! Converting the files of the formats before into this build's, so that
//! nobody has to build the game again. A file of the format before (a
//! placing sector's of version 1, its values as they are; a moving
//! sector's of version 2, a byte an index; each with a checksum for every
//! 64 KiB after them) is read and checked in full, written in this build's
//! format under the same name in a folder of its own, read back, and only
//! then renamed into place. So is a moving file of this build's format
//! that keeps more distances than its folder needs (see
//! [`Kept::in_folder`]). The file of a sector whose values are derived
//! from the files beside it is left out.

use std::path::{Path, PathBuf};

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::checked::{Loading, Storage, file_header, open_header};
use super::checksum::checksum;
use super::moving::{self, BuiltSector, Kept, MovingFile, write_keeping_fewer, write_sector};
use super::placing::{self, PlacingFile, PlacingHeader, PlacingValues};
use super::{file_name, is_placing_file};
use crate::board::Variant;
use crate::solution::error::{DbError, DbProblem};
use crate::solution::sector::Sector;
use crate::solution::value::DbValue;

/// Bytes per checksummed block of a payload stored as it is, in the
/// formats before.
const RAW_BLOCK: usize = 1 << 16;

/// The checksum of each block of a payload stored as it is.
fn raw_block_sums(payload: &[u8]) -> Vec<u64> {
    payload.par_chunks(RAW_BLOCK).map(checksum).collect()
}

/// What converting one file did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Converted {
    /// Written in this build's format: the sector, and the file's bytes
    /// before and after.
    Written {
        /// The file's sector.
        sector: Sector,
        /// Bytes of the old file.
        before: u64,
        /// Bytes of the new one.
        after: u64,
    },
    /// Already in this build's format, intact, and keeping no more than
    /// its sector needs: left as it is, or copied into the other folder.
    Current(Sector),
    /// Not converted: a sector whose values are derived (see
    /// [`Sector::is_stored`]) from the files beside it.
    LeftOut(Sector),
}

/// The folder, inside the one converted into, where a file is written and
/// read back before it is renamed into place.
const WORK: &str = ".converting";

/// Converts the database file at `path` into `to` (its folder, or another),
/// under the same name. A file in this build's format already is checked
/// in full, and copied if `to` is another folder and does not hold it
/// intact already; a moving file that keeps more distances than its
/// folder needs is converted. The file of a sector whose values are
/// derived from the files beside it is left out (see [`left_out`]).
///
/// # Errors
///
/// [`DbError`] naming the file: not a database file of either format,
/// damaged, or not written.
pub fn convert_file(path: &Path, to: &Path) -> Result<Converted, DbError> {
    if let Some(sector) = left_out(path) {
        return Ok(Converted::LeftOut(sector));
    }
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let target = to.join(name);
    if !is_same_file(path, &target)
        && let Ok(sector) = intact(&target)
        && !keeps_more_than_needed(&target)
    {
        return Ok(Converted::Current(sector));
    }
    if !is_placing_file(name) {
        return convert_moving(path, to);
    }
    // Mapped: a file of this build's format is read only once, by `keep`.
    let (storage, header, sector) =
        match open_header::<PlacingHeader>(path, Loading::Mapped, placing::CONVERTIBLE) {
            Err(err) if is_current(&err, placing::VERSION) => {
                return keep(path, to).map(Converted::Current);
            }
            opened => opened?,
        };
    let error = |problem| DbError {
        path: path.to_owned(),
        problem,
    };
    let bytes = storage.bytes();
    let head = std::mem::size_of::<PlacingHeader>();
    let values = PlacingValues::packed_len(sector);
    let sums_at = (head + values).next_multiple_of(8);
    let expected = sums_at + 8 * values.div_ceil(RAW_BLOCK);
    if bytes.len() != expected {
        return Err(error(DbProblem::Length {
            expected: expected as u64,
            found: bytes.len() as u64,
        }));
    }
    let (payload, sums) = (&bytes[head..head + values], &bytes[sums_at..]);
    let good = checksum(sums) == header.block_table_checksum
        && bytemuck::cast_slice::<u64, u8>(&raw_block_sums(payload)) == sums;
    if !good {
        return Err(error(DbProblem::Checksum));
    }
    let work = work_folder(to)?;
    placing::write_file(&work, sector, header, payload)?;
    let written = work.join(name);
    let read_back = PlacingFile::open_in_memory(&written)?;
    if read_back.decoded() != Some(payload) {
        return Err(DbError {
            path: written,
            problem: DbProblem::Checksum,
        });
    }
    drop(read_back);
    put_in_place(sector, bytes.len(), &written, &target)
}

/// Renames the file `written` and read back to `target`, and says so.
fn put_in_place(
    sector: Sector,
    before: usize,
    written: &Path,
    target: &Path,
) -> Result<Converted, DbError> {
    let after = std::fs::metadata(written).map_err(io_error(written))?.len();
    std::fs::rename(written, target).map_err(io_error(target))?;
    Ok(Converted::Written {
        sector,
        before: before as u64,
        after,
    })
}

/// The moving phase's header of the format before.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
struct OldMovingHeader {
    magic: [u8; 8],
    version: u32,
    variant: u8,
    flying: u8,
    mover: u8,
    other: u8,
    entries: u64,
    class_counts: [u64; 3],
    placement_counts: [u64; 3],
    longest_win: u32,
    longest_loss: u32,
    exceptions: u64,
    exceptions_checksum: u64,
    block_sums_checksum: u64,
    header_checksum: u64,
}

file_header!(
    OldMovingHeader,
    *b"MORRISDB",
    moving::CONVERTIBLE,
    placing: false,
    convertible: None,
    stones: [mover, other]
);

/// Converts a moving sector's file (see [`convert_file`]), of the format
/// before or this build's.
fn convert_moving(path: &Path, to: &Path) -> Result<Converted, DbError> {
    let (storage, header, sector) =
        match open_header::<OldMovingHeader>(path, Loading::Mapped, moving::CONVERTIBLE) {
            Err(err) if is_current(&err, moving::VERSION) => return convert_current(path, to),
            opened => opened?,
        };
    let values = old_moving_values(&storage, &header, sector).map_err(|problem| DbError {
        path: path.to_owned(),
        problem,
    })?;
    let before = storage.bytes().len();
    drop(storage);
    write_moving(sector, values, before, to)
}

/// Converts a moving file of this build's format: kept as it is, unless it
/// keeps more distances than its folder needs (see [`Kept::in_folder`]).
fn convert_current(path: &Path, to: &Path) -> Result<Converted, DbError> {
    let file = MovingFile::open(path)?;
    let (sector, kept) = (file.sector, Kept::in_folder(folder_of(path), file.sector));
    if file.kept() == kept {
        drop(file);
        return keep(path, to).map(Converted::Current);
    }
    drop(file);
    let name = file_name(sector);
    let written = work_folder(to)?.join(&name);
    let before = write_fewer(path, &written, kept)?;
    put_in_place(sector, before, &written, &to.join(&name))
}

/// Writes the moving file at `path`, checked in full, anew as `written`,
/// keeping the distances `kept` says, and reads it back; the size of the
/// file at `path`.
fn write_fewer(path: &Path, written: &Path, kept: Kept) -> Result<usize, DbError> {
    let file = MovingFile::open_in_memory(path)?;
    let damaged = |path: &Path| DbError {
        path: path.to_owned(),
        problem: DbProblem::Checksum,
    };
    let values = file.values().ok_or_else(|| damaged(path))?;
    write_keeping_fewer(written, &file, &values, kept)?;
    if !MovingFile::open(written)?.holds(&values) {
        return Err(damaged(written));
    }
    let before = std::fs::metadata(path).map_err(io_error(path))?.len();
    Ok(before as usize)
}

/// Lets go of the distances of `sector`'s file in `dir` that no build
/// reads any more (see [`Kept::in_folder`]): the file is written anew in a
/// folder beside it, read back, and renamed into its place. `None` if it keeps no
/// more than that already, or is not there.
///
/// # Errors
///
/// [`DbError`] naming the file: damaged, or not written.
pub fn let_go_of_distances(dir: &Path, sector: Sector) -> Result<Option<Converted>, DbError> {
    let name = file_name(sector);
    let path = dir.join(&name);
    let kept = Kept::in_folder(dir, sector);
    if !path.is_file() || MovingFile::open(&path)?.kept() == kept {
        return Ok(None);
    }
    // A folder of its own, so that builds of other sectors at once (on
    // other machines) never meet it; the file's name is its sector's.
    let work = dir.join(format!(".{name}.fewer"));
    std::fs::create_dir_all(&work).map_err(io_error(&work))?;
    let written = work.join(&name);
    let before = write_fewer(&path, &written, kept)?;
    let converted = put_in_place(sector, before, &written, &path)?;
    std::fs::remove_dir(&work).map_err(io_error(&work))?;
    Ok(Some(converted))
}

/// The folder of the file at `path`.
fn folder_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// Writes the moving `sector`'s `values` (see [`BuiltSector`]) into the
/// work folder of `to`, reads them back, and renames the file into place;
/// `before` is the size of the file converted.
fn write_moving(
    sector: Sector,
    values: Vec<u16>,
    before: usize,
    to: &Path,
) -> Result<Converted, DbError> {
    let built = BuiltSector { sector, values };
    let work = work_folder(to)?;
    write_sector(&work, &built)?;
    let name = file_name(sector);
    let written = work.join(&name);
    if !MovingFile::open(&written)?.holds(&built.values) {
        return Err(DbError {
            path: written,
            problem: DbProblem::Checksum,
        });
    }
    put_in_place(sector, before, &written, &to.join(&name))
}

/// The values of a moving file of the format before (see [`BuiltSector`]),
/// checked in full: its length, exceptions and every block.
fn old_moving_values(
    storage: &Storage,
    header: &OldMovingHeader,
    sector: Sector,
) -> Result<Vec<u16>, DbProblem> {
    let bytes = storage.bytes();
    let entries = sector.len() as usize;
    let exceptions = usize::try_from(header.exceptions).unwrap_or(usize::MAX);
    if exceptions > entries {
        return Err(DbProblem::Checksum);
    }
    let exceptions_at = (std::mem::size_of::<OldMovingHeader>() + entries).next_multiple_of(8);
    let sums_at = exceptions_at + 16 * exceptions;
    let expected = sums_at + 8 * entries.div_ceil(RAW_BLOCK);
    if bytes.len() != expected {
        return Err(DbProblem::Length {
            expected: expected as u64,
            found: bytes.len() as u64,
        });
    }
    let payload = &bytes[std::mem::size_of::<OldMovingHeader>()..][..entries];
    let (exceptions, sums) = (&bytes[exceptions_at..sums_at], &bytes[sums_at..]);
    let good = checksum(exceptions) == header.exceptions_checksum
        && checksum(sums) == header.block_sums_checksum
        && bytemuck::cast_slice::<u64, u8>(&raw_block_sums(payload)) == sums;
    if !good {
        return Err(DbProblem::Checksum);
    }
    let exceptions: Vec<[u64; 2]> = bytemuck::pod_collect_to_vec(exceptions);
    payload
        .par_iter()
        .enumerate()
        .map(|(index, &byte)| old_entry(byte, index as u64, &exceptions))
        .collect::<Option<Vec<u16>>>()
        .ok_or(DbProblem::Checksum)
}

/// The encoded value (see [`DbValue::encode`]) of a byte of the moving
/// format before at `index`: 0 no position, 1 draw, 2 + d a win at
/// distance d, 129 + d a loss at d, 255 the value in `exceptions`; `None`
/// for an exception not there.
fn old_entry(byte: u8, index: u64, exceptions: &[[u64; 2]]) -> Option<u16> {
    Some(match byte {
        0 => 0,
        1 => DbValue::draw().encode(),
        255 => {
            let at = exceptions
                .binary_search_by_key(&index, |pair| pair[0])
                .ok()?;
            u16::try_from(exceptions[at][1]).ok()?
        }
        b if b < 129 => DbValue::win(u16::from(b - 2)).encode(),
        b => DbValue::loss(u16::from(b - 129)).encode(),
    })
}

/// The sector of the file at `path`, by its name, if its values are
/// derived (see [`Sector::is_stored`]) from files beside it: such a file
/// is not needed.
pub fn left_out(path: &Path) -> Option<Sector> {
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?;
    let sector = Variant::ALL
        .into_iter()
        .flat_map(Sector::placing_all)
        .find(|&sector| !sector.is_stored() && file_name(sector) == name)?;
    derivable(dir, sector).then_some(sector)
}

/// Whether the values of `sector` are in a file in `dir`, if they are kept
/// in files, or else derived from files there.
fn derivable(dir: &Path, sector: Sector) -> bool {
    if sector.is_stored() {
        return dir.join(file_name(sector)).is_file();
    }
    sector.needs().into_iter().all(|next| derivable(dir, next))
}

/// The sector of the database file at `path` of this build's format,
/// checked in full (every block, decoded).
fn intact(path: &Path) -> Result<Sector, DbError> {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    if is_placing_file(name) {
        let file = PlacingFile::open(path)?;
        file.verify()?;
        Ok(file.sector)
    } else {
        let file = MovingFile::open(path)?;
        file.verify()?;
        Ok(file.sector)
    }
}

/// Whether the file at `path` is a moving file that keeps more distances
/// than its folder needs (see [`Kept::in_folder`]).
fn keeps_more_than_needed(path: &Path) -> bool {
    MovingFile::open(path)
        .is_ok_and(|file| file.kept() != Kept::in_folder(folder_of(path), file.sector))
}

/// Whether opening a file as an old one failed because it is of this
/// build's format, `version`.
fn is_current(err: &DbError, version: u32) -> bool {
    matches!(err.problem, DbProblem::Version { found, .. } if found == version)
}

/// Whether `a` and `b` are the same file.
fn is_same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The folder inside `to` where files are written and read back before
/// they are renamed into place.
fn work_folder(to: &Path) -> Result<PathBuf, DbError> {
    let work = to.join(WORK);
    std::fs::create_dir_all(&work).map_err(io_error(&work))?;
    Ok(work)
}

/// The error of a file operation on `path`.
fn io_error(path: &Path) -> impl Fn(std::io::Error) -> DbError + '_ {
    move |e| DbError {
        path: path.to_owned(),
        problem: DbProblem::from(e),
    }
}

/// Keeps the file at `path`, of this build's format, checked in full: in
/// place, or copied into `to` (into the work folder, checked there, then
/// renamed into place); its sector.
fn keep(path: &Path, to: &Path) -> Result<Sector, DbError> {
    let name = path.file_name().unwrap_or_default();
    let target = to.join(name);
    if is_same_file(path, &target) {
        return intact(path);
    }
    let copy = work_folder(to)?.join(name);
    std::fs::copy(path, &copy)
        .and_then(|_| std::fs::File::open(&copy)?.sync_all())
        .map_err(io_error(&copy))?;
    let sector = intact(&copy)?;
    std::fs::rename(&copy, &target).map_err(io_error(&target))?;
    Ok(sector)
}

/// Removes the work folder of a conversion into `to`, once every file is
/// in place.
///
/// # Errors
///
/// [`DbError`] if it is there and cannot be removed.
pub fn finish(to: &Path) -> Result<(), DbError> {
    let work = to.join(WORK);
    match std::fs::remove_dir_all(&work) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&work)(e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::atomic::AtomicU8;

    use super::*;
    use crate::solution::format::checked::FileHeader;
    use crate::solution::format::file_name;
    use crate::solution::format::moving::write_keeping;
    use crate::solution::format::placing::{code, write_placing};
    use crate::solution::index::SectorIndex;
    use crate::solution::value::{DbOutcome, DbValue};

    /// A placing file of version 1: `header` (of this build, its table's
    /// checksum set to the old block checksums'), then `values`, padded,
    /// and a checksum for every 64 KiB of them.
    fn old_placing_file(mut header: PlacingHeader, values: &[u8]) -> Vec<u8> {
        let sums = raw_block_sums(values);
        header.block_table_checksum = checksum(bytemuck::cast_slice(&sums));
        let mut file = bytemuck::bytes_of(&header.unsummed()).to_vec();
        file[8..12].copy_from_slice(&placing::CONVERTIBLE.to_ne_bytes());
        let sum = checksum(&file);
        let len = file.len();
        file[len - 8..].copy_from_slice(&sum.to_ne_bytes());
        file.extend_from_slice(values);
        file.resize(file.len().next_multiple_of(8), 0);
        file.extend_from_slice(bytemuck::cast_slice(&sums));
        file
    }

    /// A moving file of version 2 of `sector`'s `values` (see
    /// [`BuiltSector`]): a byte an index, the exceptions, and a checksum
    /// for every 64 KiB of bytes.
    fn old_moving_file(sector: Sector, values: &[u16]) -> Vec<u8> {
        let mut exceptions: Vec<[u64; 2]> = Vec::new();
        let bytes: Vec<u8> = (0..)
            .zip(values)
            .map(|(index, &entry)| match DbValue::decode(entry) {
                None => 0,
                Some(value) => match value.outcome {
                    DbOutcome::Draw => 1,
                    DbOutcome::Win if value.distance < 127 => 2 + value.distance as u8,
                    DbOutcome::Loss if value.distance < 126 => 129 + value.distance as u8,
                    _ => {
                        exceptions.push([index, u64::from(entry)]);
                        255
                    }
                },
            })
            .collect();
        let sums = raw_block_sums(&bytes);
        let mut header = OldMovingHeader::zeroed();
        header.magic = *b"MORRISDB";
        header.version = moving::CONVERTIBLE;
        header.flying = 1;
        header.mover = sector.board.mover as u8;
        header.other = sector.board.other as u8;
        header.entries = sector.len();
        header.exceptions = exceptions.len() as u64;
        header.exceptions_checksum = checksum(bytemuck::cast_slice(&exceptions));
        header.block_sums_checksum = checksum(bytemuck::cast_slice(&sums));
        header.header_checksum = checksum(bytemuck::bytes_of(&header));
        let mut file = bytemuck::bytes_of(&header).to_vec();
        file.extend_from_slice(&bytes);
        file.resize(file.len().next_multiple_of(8), 0);
        file.extend_from_slice(bytemuck::cast_slice(&exceptions));
        file.extend_from_slice(bytemuck::cast_slice(&sums));
        file
    }

    #[test]
    fn an_old_moving_file_converts_value_for_value_and_a_damaged_one_is_refused() {
        let sector = Sector::moving(Variant::Nine, SectorIndex::new(4, 3));
        let (old, new) = (scratch("old-moving"), scratch("new-moving"));
        // Distances beyond a byte of either format among them.
        let values: Vec<u16> = (0..sector.len())
            .map(|index| {
                let distance = (index * 7 % 300) as u16;
                match index % 5 {
                    0 | 1 => DbValue::win(distance.max(1)).encode(),
                    2 => DbValue::loss(distance).encode(),
                    3 => DbValue::draw().encode(),
                    _ => 0,
                }
            })
            .collect();
        let name = file_name(sector);
        let bytes = old_moving_file(sector, &values);
        fs::write(old.join(&name), &bytes).expect("old file");
        // This build refuses the old file by name, saying what to do.
        let refused = MovingFile::open(&old.join(&name)).err().expect("refused");
        assert_eq!(refused.path, old.join(&name));
        assert!(matches!(
            refused.problem,
            DbProblem::Convertible {
                found: 2,
                expected: 3
            }
        ));
        let converted = convert_file(&old.join(&name), &new).expect("converted");
        assert!(matches!(converted, Converted::Written { before, after, .. }
            if before == bytes.len() as u64 && after < before / 2));
        let file = MovingFile::open(&new.join(&name)).expect("opened");
        assert_eq!(file.kept(), Kept::All);
        assert!(file.holds(&values));
        // Converted already: checked and left as it is.
        assert_eq!(
            convert_file(&new.join(&name), &new).expect("checked"),
            Converted::Current(sector)
        );
        // A damaged old file is refused by name, and nothing is written.
        let header = std::mem::size_of::<OldMovingHeader>();
        refuses_damaged_and_cleans(bytes, header, &name, old, new);
    }

    /// Damages the old file `bytes` named `name` past its `header`, and
    /// checks that converting it from `old` into `new` is refused by name
    /// and writes nothing; then removes both folders.
    fn refuses_damaged_and_cleans(
        mut bytes: Vec<u8>,
        header: usize,
        name: &str,
        old: PathBuf,
        new: PathBuf,
    ) {
        bytes[header + 100] ^= 0x21;
        fs::write(old.join(name), &bytes).expect("old file");
        let _ = fs::remove_file(new.join(name));
        let err = convert_file(&old.join(name), &new).expect_err("damaged");
        assert_eq!(err.path, old.join(name));
        assert!(matches!(err.problem, DbProblem::Checksum));
        assert!(!new.join(name).exists());
        for dir in [old, new] {
            fs::remove_dir_all(dir).expect("cleaned");
        }
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("morris-convert-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("folder");
        dir
    }

    #[test]
    fn an_old_placing_file_converts_value_for_value_and_a_damaged_one_is_refused() {
        let sector = Sector::placing(Variant::Nine, 2, 3, 1, 0).expect("a placing sector");
        let (old, new) = (scratch("old"), scratch("new"));
        let outcomes = [DbOutcome::Loss, DbOutcome::Draw, DbOutcome::Win];
        let outcome = |index: u64| outcomes[(index / 50 % 3) as usize];
        let codes: Vec<AtomicU8> = (0..sector.len())
            .map(|index| AtomicU8::new(code(outcome(index))))
            .collect();
        let values = PlacingValues::pack(sector, [1, 2, 3], &codes);
        write_placing(&new, &values).expect("written");
        let name = file_name(sector);
        let header = PlacingFile::open(&new.join(&name)).expect("opened").header;
        let bytes = old_placing_file(header, values.packed());
        fs::write(old.join(&name), &bytes).expect("old file");
        // This build refuses the old file by name, saying what to do.
        let refused = PlacingFile::open(&old.join(&name)).err().expect("refused");
        assert_eq!(refused.path, old.join(&name));
        assert!(matches!(
            refused.problem,
            DbProblem::Convertible {
                found: 1,
                expected: 2
            }
        ));
        assert!(refused.to_string().contains("db-convert"), "{refused}");
        fs::remove_file(new.join(&name)).expect("removed");
        let converted = convert_file(&old.join(&name), &new).expect("converted");
        assert!(matches!(converted, Converted::Written { before, after, .. }
            if before == bytes.len() as u64 && after < before / 4));
        let file = PlacingFile::open(&new.join(&name)).expect("opened");
        assert_eq!(file.header.placement_counts, [1, 2, 3]);
        for index in 0..sector.len() {
            assert_eq!(file.outcome(index), Some(outcome(index)), "{index}");
        }
        // Converted already: checked and left as it is.
        assert_eq!(
            convert_file(&new.join(&name), &new).expect("checked"),
            Converted::Current(sector)
        );
        // In place, the old file is replaced.
        convert_file(&old.join(&name), &old).expect("converted in place");
        assert_eq!(
            fs::read(old.join(&name)).ok(),
            fs::read(new.join(&name)).ok()
        );
        // A damaged old file is refused by name, and nothing is written.
        let header = std::mem::size_of::<PlacingHeader>();
        refuses_damaged_and_cleans(bytes, header, &name, old, new);
    }

    #[test]
    fn a_file_derived_from_the_files_beside_it_is_left_out() {
        // Black places its last stone: the positions lead to 3-3 alone.
        let sector = Sector::placing(Variant::Nine, 2, 3, 1, 0).expect("a placing sector");
        assert_eq!(
            sector.successors(),
            (Sector::moving(Variant::Nine, SectorIndex::new(3, 3)), None)
        );
        let (from, to) = (scratch("derived"), scratch("derived-to"));
        let codes: Vec<AtomicU8> = (0..sector.len()).map(|_| AtomicU8::new(0)).collect();
        write_placing(&from, &PlacingValues::pack(sector, [0; 3], &codes)).expect("written");
        let path = from.join(file_name(sector));
        assert_eq!(left_out(&path), None);
        let converted = convert_file(&path, &to).expect("kept");
        assert_eq!(converted, Converted::Current(sector));
        let moving = Sector::moving(Variant::Nine, SectorIndex::new(3, 3));
        let values = vec![DbValue::draw().encode(); moving.len() as usize];
        write_sector(
            &from,
            &BuiltSector {
                sector: moving,
                values,
            },
        )
        .expect("written");
        assert_eq!(left_out(&path), Some(sector));
        assert_eq!(
            convert_file(&path, &to).ok(),
            Some(Converted::LeftOut(sector))
        );
        // Two placements from the moving phase, derived too; a sector kept
        // in files is never left out.
        let before = Sector::placing(Variant::Nine, 2, 2, 1, 1).expect("a placing sector");
        assert_eq!(before.successors().0, sector);
        let earlier = from.join(file_name(before));
        fs::write(&earlier, b"").expect("written");
        assert_eq!(left_out(&earlier), Some(before));
        let stored = from.join(file_name(
            Sector::placing(Variant::Nine, 2, 3, 2, 1).expect("a sector"),
        ));
        fs::write(&stored, b"").expect("written");
        assert_eq!(left_out(&stored), None);
        for dir in [from, to] {
            fs::remove_dir_all(dir).expect("cleaned");
        }
    }

    /// Values of `sector` in turn won, lost and drawn, at many distances,
    /// some beyond a byte.
    fn mixed_values(sector: Sector) -> BuiltSector {
        let values = (0..sector.len())
            .map(|index| match index % 3 {
                0 => DbValue::win((index % 90 + 1) as u16).encode(),
                1 => DbValue::loss((index % 300) as u16).encode(),
                _ => DbValue::draw().encode(),
            })
            .collect();
        BuiltSector { sector, values }
    }

    #[test]
    fn a_moving_file_that_keeps_more_distances_than_it_needs_is_converted() {
        let sector = Sector::moving(Variant::Nine, SectorIndex::new(4, 4));
        let (from, to) = (scratch("surplus"), scratch("surplus-to"));
        let built = mixed_values(sector);
        write_keeping(&from, &built, Kept::All).expect("written");
        let name = file_name(sector);
        let before = fs::metadata(from.join(&name)).expect("written").len();
        // Into a folder that holds it already, or in place.
        fs::copy(from.join(&name), to.join(&name)).expect("copied");
        for into in [&to, &from] {
            let converted = convert_file(&from.join(&name), into).expect("converted");
            assert!(matches!(converted, Converted::Written { after, .. } if after < before));
            let file = MovingFile::open(&into.join(&name)).expect("opened");
            assert_eq!(file.kept(), Kept::Losses);
            assert!(file.holds(&built.values));
        }
        assert_eq!(
            convert_file(&from.join(&name), &from).expect("kept"),
            Converted::Current(sector)
        );
        for dir in [from, to] {
            fs::remove_dir_all(dir).expect("cleaned");
        }
    }

    #[test]
    fn a_lasker_file_keeps_every_distance_until_the_build_that_reads_them_is_written() {
        let dir = scratch("lasker");
        let sector = |stones: [usize; 4]| {
            let [m, o, mh, oh] = stones;
            Sector::new(Variant::Lasker, m, o, mh, oh).expect("a sector")
        };
        // Three stones against six in all: it keeps no distance in the end.
        let read = sector([3, 4, 0, 2]);
        let reader = sector([3, 3, 3, 0]);
        assert_eq!(reader.placed_into(), Some(read));
        assert_eq!(Kept::of(read), Kept::Nothing);
        let built = mixed_values(read);
        write_sector(&dir, &built).expect("written");
        let path = dir.join(file_name(read));
        let before = fs::metadata(&path).expect("written").len();
        assert_eq!(MovingFile::open(&path).expect("opened").kept(), Kept::All);
        assert_eq!(let_go_of_distances(&dir, read).expect("read"), None);
        assert_eq!(
            convert_file(&path, &dir).expect("kept"),
            Converted::Current(read)
        );
        // The reader and its twin, built: the distances are let go of.
        for sector in reader.with_twin() {
            let values = vec![DbValue::draw().encode(); sector.len() as usize];
            write_sector(&dir, &BuiltSector { sector, values }).expect("written");
        }
        let converted = let_go_of_distances(&dir, read).expect("converted");
        assert!(matches!(converted, Some(Converted::Written { after, .. }) if after < before));
        let file = MovingFile::open(&path).expect("opened");
        assert_eq!(file.kept(), Kept::Nothing);
        assert!(file.holds(&built.values));
        assert_eq!(let_go_of_distances(&dir, read).expect("read"), None);
        let left: Vec<_> = fs::read_dir(&dir).expect("listed").flatten().collect();
        assert_eq!(left.len(), 3, "the three files alone: {left:?}");
        fs::remove_dir_all(dir).expect("cleaned");
    }

    #[test]
    fn a_moving_file_is_checked_and_copied_as_it_is() {
        let sector = Sector::moving(Variant::Nine, SectorIndex::new(3, 3));
        let (from, to) = (scratch("from"), scratch("to"));
        let values = (0..sector.len())
            .map(|index| DbValue::win((index % 90) as u16).encode())
            .collect();
        write_sector(&from, &BuiltSector { sector, values }).expect("written");
        let name = file_name(sector);
        for into in [&to, &from] {
            assert_eq!(
                convert_file(&from.join(&name), into).expect("kept"),
                Converted::Current(sector)
            );
        }
        assert_eq!(
            fs::read(from.join(&name)).ok(),
            fs::read(to.join(&name)).ok()
        );
        for dir in [from, to] {
            fs::remove_dir_all(dir).expect("cleaned");
        }
    }
}
