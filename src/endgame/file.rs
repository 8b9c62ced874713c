//! The database file: a fixed header made for bytemuck, then one `u16`
//! entry per index of the sector. Files are written to a temporary name
//! and renamed when complete, and checked whole before use.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use bytemuck::{Pod, Zeroable};

use super::build::BuiltSector;
use super::index::SectorIndex;
use super::{DbOutcome, DbValue};
use crate::error::{DbError, DbProblem};

const MAGIC: [u8; 8] = *b"MORRISDB";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Variant code of Nine Men's Morris in the header.
const NINE: u8 = 0;

/// The file header, in the byte order of the machine that wrote it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct Header {
    magic: [u8; 8],
    version: u32,
    variant: u8,
    flying: u8,
    /// Stones of the side to move.
    pub mover: u8,
    /// Stones of the other side.
    pub other: u8,
    /// Entries in the payload (indices of the sector).
    pub entries: u64,
    /// Wins, draws and losses over symmetry classes.
    pub class_counts: [u64; 3],
    /// Wins, draws and losses over every placement of the stones.
    pub placement_counts: [u64; 3],
    /// The longest distance of a win.
    pub longest_win: u32,
    reserved: u32,
    checksum: u64,
}

const HEADER_BYTES: usize = std::mem::size_of::<Header>();

/// FNV-1a over the payload: cheap, and enough to catch a damaged file.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The file name of a sector.
pub fn sector_file_name(sector: SectorIndex) -> String {
    format!("nine-flying-{}-{}.mdb", sector.mover, sector.other)
}

/// Writes a built sector into `dir` (through a temporary file renamed when
/// complete) and returns its header.
///
/// # Errors
///
/// [`DbError`] naming the file if it cannot be written.
pub fn write_sector(dir: &Path, built: &BuiltSector) -> Result<Header, DbError> {
    let path = dir.join(sector_file_name(built.sector));
    let io = |e: std::io::Error| DbError {
        path: path.clone(),
        problem: DbProblem::Io(e.to_string()),
    };
    let mut header = Header::zeroed();
    header.magic = MAGIC;
    header.version = VERSION;
    header.variant = NINE;
    header.flying = 1;
    header.mover = built.sector.mover as u8;
    header.other = built.sector.other as u8;
    header.entries = built.values.len() as u64;
    for (index, &entry) in built.values.iter().enumerate() {
        let Some(value) = DbValue::decode(entry) else {
            continue;
        };
        let slot = match value.outcome {
            DbOutcome::Win => 0,
            DbOutcome::Draw => 1,
            DbOutcome::Loss => 2,
        };
        let (mover, other) = built.sector.decode(index as u64);
        let orbit = 16 / u64::from(built.sector.canonical(mover, other).stabilizer);
        header.class_counts[slot] += 1;
        header.placement_counts[slot] += orbit;
        if value.outcome == DbOutcome::Win {
            header.longest_win = header.longest_win.max(u32::from(value.distance));
        }
    }
    let payload: &[u8] = bytemuck::cast_slice(&built.values);
    header.checksum = checksum(payload);
    let partial = path.with_extension("partial");
    let mut file = fs::File::create(&partial).map_err(io)?;
    file.write_all(bytemuck::bytes_of(&header)).map_err(io)?;
    file.write_all(payload).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    fs::rename(&partial, &path).map_err(io)?;
    Ok(header)
}

enum Storage {
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap),
    #[cfg(not(feature = "mmap"))]
    Owned(Vec<u16>),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(feature = "mmap")]
            Storage::Mapped(map) => &map[..],
            #[cfg(not(feature = "mmap"))]
            Storage::Owned(words) => bytemuck::cast_slice(words),
        }
    }
}

/// A checked sector file, mapped into memory (or read, without the `mmap`
/// feature).
pub struct SectorFile {
    /// The header.
    pub header: Header,
    /// The sector.
    pub sector: SectorIndex,
    /// Where it came from.
    pub path: PathBuf,
    storage: Storage,
}

impl SectorFile {
    /// Opens and checks a sector file: magic, version, rules, sector,
    /// length and checksum.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open(path: &Path) -> Result<SectorFile, DbError> {
        let error = |problem| DbError {
            path: path.to_owned(),
            problem,
        };
        let file = fs::File::open(path).map_err(|e| error(DbProblem::Io(e.to_string())))?;
        let storage = Self::load(&file).map_err(|e| error(DbProblem::Io(e.to_string())))?;
        let bytes = storage.bytes();
        let header_bytes = bytes
            .get(..HEADER_BYTES)
            .ok_or_else(|| error(DbProblem::TooShort))?;
        let header: Header = bytemuck::pod_read_unaligned(header_bytes);
        if header.magic != MAGIC {
            return Err(error(DbProblem::BadMagic));
        }
        if header.version != VERSION {
            return Err(error(DbProblem::Version {
                found: header.version,
                expected: VERSION,
            }));
        }
        if header.variant != NINE || header.flying != 1 {
            return Err(error(DbProblem::Rules));
        }
        let bad_sector = || {
            error(DbProblem::Sector {
                mover: header.mover,
                other: header.other,
            })
        };
        let (mover, other) = (usize::from(header.mover), usize::from(header.other));
        if !(3..=12).contains(&mover) || !(3..=12).contains(&other) || mover + other > 24 {
            return Err(bad_sector());
        }
        let sector = SectorIndex::new(mover, other);
        if path.file_name().and_then(|n| n.to_str()) != Some(sector_file_name(sector).as_str()) {
            return Err(bad_sector());
        }
        let expected = 2 * sector.len();
        let payload = &bytes[HEADER_BYTES..];
        if header.entries != sector.len() || payload.len() as u64 != expected {
            return Err(error(DbProblem::Length {
                expected,
                found: payload.len() as u64,
            }));
        }
        if checksum(payload) != header.checksum {
            return Err(error(DbProblem::Checksum));
        }
        Ok(SectorFile {
            header,
            sector,
            path: path.to_owned(),
            storage,
        })
    }

    #[cfg(feature = "mmap")]
    fn load(file: &fs::File) -> std::io::Result<Storage> {
        // SAFETY: the map is only read, and database files are written
        // under a temporary name and renamed when complete, never changed
        // in place; a file truncated by someone else while mapped would be
        // a fault of the machine's administration, as for any mapped file.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Storage::Mapped(map))
    }

    #[cfg(not(feature = "mmap"))]
    fn load(mut file: &fs::File) -> std::io::Result<Storage> {
        use std::io::Read;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let mut words = vec![0u16; bytes.len().div_ceil(2)];
        bytemuck::cast_slice_mut::<u16, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
        Ok(Storage::Owned(words))
    }

    /// The entry at `index`, if the index is inside the sector.
    #[inline]
    pub fn entry(&self, index: u64) -> Option<u16> {
        let offset = HEADER_BYTES + 2 * usize::try_from(index).ok()?;
        let pair = self.storage.bytes().get(offset..offset + 2)?;
        Some(u16::from_ne_bytes([pair[0], pair[1]]))
    }
}
