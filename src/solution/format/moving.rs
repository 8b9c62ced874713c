//! The moving phase's database file, one byte per index.
//!
//! ```text
//! header            112 bytes (made for bytemuck), with its own checksum
//! entries           one byte per index (see `to_byte`), padded to 8 bytes
//! exceptions        (index, value) pairs of u64, sorted, for the values a
//!                   byte cannot hold
//! block checksums   one u64 per 64 KiB of entries
//! ```
//!
//! Opening a file checks the header, the length, the exceptions and the
//! table of block checksums, which takes no time whatever the size; the
//! entries are checked a block at a time when first read (see `checked`),
//! and [`MovingFile::verify`] checks every block.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::checked::{
    Checked, FileHeader, Loading, NINE, RAW_BLOCK, open_header, raw_block_sums, write_whole,
};
use super::checksum::checksum;
use super::file_name;
use super::reader::{NotInMemory, Reads, Urgency};
use crate::solution::error::{DbError, DbProblem};
use crate::solution::index::SectorIndex;
use crate::solution::sector::Sector;
use crate::solution::value::{DbOutcome, DbValue};

const MAGIC: [u8; 8] = *b"MORRISDB";
/// The format version this build writes and reads.
pub(crate) const VERSION: u32 = 2;

/// The file header, in the byte order of the machine that wrote it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct MovingHeader {
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
    /// The longest distance of a loss.
    pub longest_loss: u32,
    /// Values too far for a byte, kept in the exceptions table.
    pub exceptions: u64,
    exceptions_checksum: u64,
    block_sums_checksum: u64,
    header_checksum: u64,
}

const HEADER_BYTES: usize = std::mem::size_of::<MovingHeader>();

impl FileHeader for MovingHeader {
    const MAGIC: [u8; 8] = MAGIC;
    const VERSION: u32 = VERSION;
    const PLACING: bool = false;
    const CONVERTIBLE: Option<u32> = None;

    fn identity(&self) -> ([u8; 8], u32, u8, u8) {
        (self.magic, self.version, self.variant, self.flying)
    }

    fn checksum(&self) -> u64 {
        self.header_checksum
    }

    fn unsummed(&self) -> MovingHeader {
        MovingHeader {
            header_checksum: 0,
            ..*self
        }
    }

    fn stones(&self) -> [u8; 4] {
        [self.mover, self.other, 0, 0]
    }

    fn entries(&self) -> u64 {
        self.entries
    }
}

/// A byte: 0 no position, 1 draw, 2 + d a win at distance d, 129 + d a
/// loss at d; `EXCEPTION` sends to the exceptions table.
const DRAW_BYTE: u8 = 1;
const WIN_BYTE: u8 = 2;
const LOSS_BYTE: u8 = 129;
const EXCEPTION: u8 = 255;

/// The byte of an encoded value (see [`DbValue::encode`]).
fn to_byte(entry: u16) -> u8 {
    match DbValue::decode(entry) {
        None => 0,
        Some(value) => match value.outcome {
            DbOutcome::Draw => DRAW_BYTE,
            DbOutcome::Win if value.distance < u16::from(LOSS_BYTE - WIN_BYTE) => {
                WIN_BYTE + value.distance as u8
            }
            DbOutcome::Loss if value.distance < u16::from(EXCEPTION - LOSS_BYTE) => {
                LOSS_BYTE + value.distance as u8
            }
            DbOutcome::Win | DbOutcome::Loss => EXCEPTION,
        },
    }
}

/// The value of a byte other than `EXCEPTION`.
fn from_byte(byte: u8) -> Option<DbValue> {
    match byte {
        0 => None,
        DRAW_BYTE => Some(DbValue::draw()),
        b if b < LOSS_BYTE => Some(DbValue::win(u16::from(b - WIN_BYTE))),
        b => Some(DbValue::loss(u16::from(b - LOSS_BYTE))),
    }
}

/// Where the parts of a file of `entries` entries and `exceptions`
/// exceptions begin, and its length.
struct Layout {
    exceptions_at: usize,
    block_sums_at: usize,
    len: usize,
}

impl Layout {
    fn new(entries: usize, exceptions: usize) -> Layout {
        let exceptions_at = (HEADER_BYTES + entries).next_multiple_of(8);
        let block_sums_at = exceptions_at + 16 * exceptions;
        let blocks = entries.div_ceil(RAW_BLOCK);
        Layout {
            exceptions_at,
            block_sums_at,
            len: block_sums_at + 8 * blocks,
        }
    }
}

/// The values of one sector, one `u16` per index (see [`DbValue::encode`]).
pub struct BuiltSector {
    /// The sector.
    pub sector: SectorIndex,
    /// Encoded values; 0 for indices that are not canonical.
    pub values: Vec<u16>,
}

/// What the entries of one class add to the header.
#[derive(Default)]
struct Tally {
    classes: [u64; 3],
    placements: [u64; 3],
    longest_win: u32,
    longest_loss: u32,
    /// In index order.
    exceptions: Vec<[u64; 2]>,
}

/// Writes a built sector into `dir` (through a temporary file renamed when
/// complete) and returns its header.
///
/// # Errors
///
/// [`DbError`] naming the file if it cannot be written.
pub fn write_sector(dir: &Path, built: &BuiltSector) -> Result<MovingHeader, DbError> {
    let path = dir.join(file_name(Sector::moving(built.sector)));
    let mut header = MovingHeader::zeroed();
    header.magic = MAGIC;
    header.version = VERSION;
    header.variant = NINE;
    header.flying = 1;
    header.mover = built.sector.mover as u8;
    header.other = built.sector.other as u8;
    header.entries = built.values.len() as u64;
    let mut bytes = vec![0u8; built.values.len()];
    let per_class = (built.values.len() / built.sector.class_count().max(1)).max(1);
    // Classes are contiguous runs of indices: each is encoded and counted
    // on its own, in parallel.
    let tallies: Vec<Tally> = bytes
        .par_chunks_mut(per_class)
        .enumerate()
        .map(|(class, class_bytes)| {
            let mut tally = Tally::default();
            for (index, mover, other) in built.sector.canonical_positions(class) {
                let entry = built.values[index as usize];
                let Some(value) = DbValue::decode(entry) else {
                    continue;
                };
                let slot = value.outcome.slot();
                let stabilizer = built.sector.canonical(mover, other).stabilizer;
                tally.classes[slot] += 1;
                tally.placements[slot] += 16 / u64::from(stabilizer);
                let distance = u32::from(value.distance);
                match value.outcome {
                    DbOutcome::Win => tally.longest_win = tally.longest_win.max(distance),
                    DbOutcome::Loss => tally.longest_loss = tally.longest_loss.max(distance),
                    DbOutcome::Draw => {}
                }
                let byte = to_byte(entry);
                if byte == EXCEPTION {
                    tally.exceptions.push([index, u64::from(entry)]);
                }
                class_bytes[index as usize % per_class] = byte;
            }
            tally
        })
        .collect();
    let mut exceptions: Vec<[u64; 2]> = Vec::new();
    for tally in tallies {
        for slot in 0..3 {
            header.class_counts[slot] += tally.classes[slot];
            header.placement_counts[slot] += tally.placements[slot];
        }
        header.longest_win = header.longest_win.max(tally.longest_win);
        header.longest_loss = header.longest_loss.max(tally.longest_loss);
        exceptions.extend(tally.exceptions);
    }
    let layout = Layout::new(bytes.len(), exceptions.len());
    let block_sums = raw_block_sums(&bytes);
    header.exceptions = exceptions.len() as u64;
    header.exceptions_checksum = checksum(bytemuck::cast_slice(&exceptions));
    header.block_sums_checksum = checksum(bytemuck::cast_slice(&block_sums));
    header.header_checksum = checksum(bytemuck::bytes_of(&header));
    let padding = layout.exceptions_at - HEADER_BYTES - bytes.len();
    write_whole(
        &path,
        &[
            bytemuck::bytes_of(&header),
            &bytes,
            &[0; 8][..padding],
            bytemuck::cast_slice(&exceptions),
            bytemuck::cast_slice(&block_sums),
        ],
    )?;
    Ok(header)
}

/// A sector file, mapped into memory (or read, without the `mmap`
/// feature), its entries checked as they are first read.
pub struct MovingFile {
    /// The header.
    pub header: MovingHeader,
    /// The sector.
    pub sector: SectorIndex,
    /// Where it came from.
    pub path: PathBuf,
    /// The sorted (index, encoded value) pairs of the distances that do
    /// not fit a byte, copied at open: a probe never waits for the disk
    /// to read them.
    exceptions: Box<[[u64; 2]]>,
    data: Arc<Checked>,
}

impl MovingFile {
    /// Opens a sector file and checks all but its entries: magic, version,
    /// rules, sector, length, the header, exceptions and block checksums.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open(path: &Path) -> Result<MovingFile, DbError> {
        Self::open_with(path, Loading::Mapped)
    }

    /// Opens a sector file as [`MovingFile::open`] does, read whole into
    /// memory, as generation reads its smaller sectors.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open_in_memory(path: &Path) -> Result<MovingFile, DbError> {
        Self::open_with(path, Loading::Whole)
    }

    fn open_with(path: &Path, loading: Loading) -> Result<MovingFile, DbError> {
        let (storage, header, sector) = open_header::<MovingHeader>(path, loading, VERSION)?;
        let sector = sector.board;
        let bytes = storage.bytes();
        let error = |problem| DbError {
            path: path.to_owned(),
            problem,
        };
        let exceptions = usize::try_from(header.exceptions).unwrap_or(usize::MAX);
        if exceptions > sector.len() as usize {
            return Err(error(DbProblem::Sector {
                mover: header.mover,
                other: header.other,
                mover_hand: 0,
                other_hand: 0,
            }));
        }
        let layout = Layout::new(sector.len() as usize, exceptions);
        if bytes.len() != layout.len {
            return Err(error(DbProblem::Length {
                expected: layout.len as u64,
                found: bytes.len() as u64,
            }));
        }
        let exceptions_bytes = &bytes[layout.exceptions_at..layout.block_sums_at];
        let block_sums_bytes = &bytes[layout.block_sums_at..];
        if checksum(exceptions_bytes) != header.exceptions_checksum
            || checksum(block_sums_bytes) != header.block_sums_checksum
        {
            return Err(error(DbProblem::Checksum));
        }
        let entries = sector.len() as usize;
        let block_sums_at = layout.block_sums_at;
        Ok(MovingFile {
            header,
            sector,
            path: path.to_owned(),
            exceptions: bytemuck::pod_collect_to_vec(exceptions_bytes).into_boxed_slice(),
            data: Arc::new(Checked::raw(storage, HEADER_BYTES, entries, block_sums_at)),
        })
    }

    /// Checks every block, and fails at the first damaged one.
    ///
    /// # Errors
    ///
    /// [`DbError`] with [`DbProblem::Checksum`] for a damaged file.
    pub fn verify(&self) -> Result<(), DbError> {
        self.data.verify(&self.path)
    }

    /// Whether a damaged block was met (its values are not used).
    pub fn is_damaged(&self) -> bool {
        self.data.is_damaged()
    }

    /// The stored byte at `index` (0 outside the sector), unchecked: read
    /// ahead of [`MovingFile::value`] so that the memory fetches many at
    /// once.
    #[inline]
    pub fn raw_byte(&self, index: u64) -> u8 {
        if index >= self.sector.len() {
            return 0;
        }
        self.data.byte(index as usize).unwrap_or(0)
    }

    /// The value at `index`: `None` outside the sector, for an index that
    /// is not a position, or in a damaged block.
    #[inline]
    pub fn value(&self, index: u64) -> Option<DbValue> {
        self.value_with(index, Reads::Wait).unwrap_or(None)
    }

    /// [`MovingFile::value`], read as `reads` allows.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and the value's
    /// block is not there: it is then read in the background.
    #[inline]
    pub fn value_with(&self, index: u64, reads: Reads) -> Result<Option<DbValue>, NotInMemory> {
        let Ok(index) = usize::try_from(index) else {
            return Ok(None);
        };
        if index >= self.sector.len() as usize || !self.data.is_good_with(index, reads)? {
            return Ok(None);
        }
        let Some(byte) = self.data.byte(index) else {
            return Ok(None);
        };
        if byte != EXCEPTION {
            return Ok(from_byte(byte));
        }
        let table = &self.exceptions;
        let at = table.binary_search_by_key(&(index as u64), |pair| pair[0]);
        Ok(at.ok().and_then(|at| DbValue::decode(table[at][1] as u16)))
    }

    /// Whether the value at `index` can be read at once, without waiting
    /// for the disk; if not, its block is asked of the background reader.
    pub(crate) fn ready_or_ask(&self, index: u64, urgency: Urgency) -> bool {
        index >= self.sector.len() || self.data.ready_or_ask(index as usize, urgency)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn every_value_survives_its_byte_or_the_exceptions() {
        for outcome in [DbOutcome::Win, DbOutcome::Loss] {
            for distance in 0..400 {
                let value = DbValue { outcome, distance };
                let byte = to_byte(value.encode());
                if byte != EXCEPTION {
                    assert_eq!(from_byte(byte), Some(value));
                }
            }
        }
        assert_eq!(
            from_byte(to_byte(DbValue::draw().encode())),
            Some(DbValue::draw())
        );
        assert_eq!(to_byte(0), 0);
        assert_eq!(to_byte(DbValue::win(126).encode()), LOSS_BYTE - 1);
        assert_eq!(to_byte(DbValue::win(127).encode()), EXCEPTION);
        assert_eq!(to_byte(DbValue::loss(125).encode()), LOSS_BYTE + 125);
        assert_eq!(to_byte(DbValue::loss(126).encode()), EXCEPTION);
    }

    #[test]
    fn a_sector_with_far_values_reads_back_through_its_exceptions() {
        let sector = SectorIndex::new(3, 3);
        let dir = std::env::temp_dir().join(format!("morris-file-test-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("folder");
        // Every canonical index gets a value, some far beyond a byte.
        let mut values = vec![0u16; sector.len() as usize];
        for class in 0..sector.class_count() {
            for (index, _, _) in sector.canonical_positions(class) {
                let distance = (index % 700) as u16;
                values[index as usize] = match index % 3 {
                    0 => DbValue::win(distance),
                    1 => DbValue::loss(distance),
                    _ => DbValue::draw(),
                }
                .encode();
            }
        }
        let built = BuiltSector { sector, values };
        let header = write_sector(&dir, &built).expect("written");
        assert!(header.exceptions > 0);
        let file = MovingFile::open(&dir.join(file_name(Sector::moving(sector)))).expect("opened");
        file.verify().expect("intact");
        for (index, &entry) in built.values.iter().enumerate() {
            assert_eq!(file.value(index as u64), DbValue::decode(entry));
        }
        assert_eq!(file.value(sector.len()), None);
        fs::remove_dir_all(&dir).expect("cleaned");
    }
}
