//! The placing phase's database file, two bits an index, compressed in
//! blocks.
//!
//! ```text
//! header            96 bytes (made for bytemuck), with its own checksum
//! block table       where each block begins, and where the last ends
//! values            four to a byte, the lowest bits first (see `code`),
//!                   compressed in blocks, each with its checksum (see
//!                   `compressed`)
//! ```
//!
//! Opening a file checks the header, the length and the table of blocks;
//! the values are checked a block at a time when first read (see
//! `checked`), and [`PlacingFile::verify`] checks every block.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use bytemuck::{Pod, Zeroable};

use super::checked::{Checked, Loading, file_header, open_header, variant_code, write_whole};
use super::checksum::checksum;
use super::compressed::{Compressed, block_count};
use super::file_name;
use super::reader::{NotInMemory, Reads, Urgency};
use crate::solution::error::{DbError, DbProblem};
use crate::solution::sector::Sector;
use crate::solution::value::DbOutcome;

const MAGIC: [u8; 8] = *b"MORRISPL";
/// The format version this build writes and reads.
pub(crate) const VERSION: u32 = 2;
/// The format version before, which `convert` converts.
pub(super) const CONVERTIBLE: u32 = 1;

/// The file header, in the byte order of the machine that wrote it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PlacingHeader {
    magic: [u8; 8],
    version: u32,
    variant: u8,
    flying: u8,
    /// Stones on the board of the side to move.
    pub mover: u8,
    /// Stones on the board of the other side.
    pub other: u8,
    /// Stones in hand of the side to move.
    pub mover_hand: u8,
    /// Stones in hand of the other side.
    pub other_hand: u8,
    padding: [u8; 6],
    /// Indices of the sector.
    pub entries: u64,
    /// Wins, draws and losses over symmetry classes.
    pub class_counts: [u64; 3],
    /// Wins, draws and losses over every placement of the stones.
    pub placement_counts: [u64; 3],
    pub(super) block_table_checksum: u64,
    header_checksum: u64,
}

const HEADER_BYTES: usize = std::mem::size_of::<PlacingHeader>();

file_header!(
    PlacingHeader,
    MAGIC,
    VERSION,
    placing: true,
    convertible: Some(CONVERTIBLE),
    stones: [mover, other, mover_hand, other_hand]
);

/// Packed bytes a block holds: the values of 16 Ki indices.
const BLOCK: usize = 1 << 12;

/// The zstd level of the blocks: higher levels make smaller files only by
/// a few percent, and write several times slower.
const LEVEL: i32 = 12;

/// A value as two bits: 0 for an index that is not canonical.
const LOSS: u8 = 1;
const DRAW: u8 = 2;
const WIN: u8 = 3;

/// The two-bit code of an outcome.
pub(in crate::solution) fn code(outcome: DbOutcome) -> u8 {
    match outcome {
        DbOutcome::Loss => LOSS,
        DbOutcome::Draw => DRAW,
        DbOutcome::Win => WIN,
    }
}

/// The outcome of a two-bit code (`None` for 0).
pub(super) fn outcome_of(code: u8) -> Option<DbOutcome> {
    match code {
        LOSS => Some(DbOutcome::Loss),
        DRAW => Some(DbOutcome::Draw),
        WIN => Some(DbOutcome::Win),
        _ => None,
    }
}

/// Wins, draws and losses of a sector, each counted two ways.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlacingCounts {
    /// Over symmetry classes (canonical indices).
    pub classes: [u64; 3],
    /// Over every placement of the stones on the board.
    pub placements: [u64; 3],
}

/// The values of a built placing sector, four to a byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingValues {
    /// The sector.
    pub sector: Sector,
    /// Its wins, draws and losses.
    pub counts: PlacingCounts,
    codes: Vec<u8>,
}

impl PlacingValues {
    /// The values of `sector` from its two-bit codes, one an index, and
    /// its wins, draws and losses over every placement of the stones.
    pub(in crate::solution) fn pack(
        sector: Sector,
        placements: [u64; 3],
        entries: &[AtomicU8],
    ) -> PlacingValues {
        let mut counts = PlacingCounts {
            placements,
            ..PlacingCounts::default()
        };
        let codes = entries
            .chunks(4)
            .map(|four| {
                four.iter().enumerate().fold(0, |byte, (i, entry)| {
                    let code = entry.load(Ordering::Relaxed);
                    if let Some(outcome) = outcome_of(code) {
                        counts.classes[outcome.slot()] += 1;
                    }
                    byte | code << (2 * i)
                })
            })
            .collect();
        PlacingValues {
            sector,
            counts,
            codes,
        }
    }

    /// The bytes the values of `sector` take.
    pub fn packed_len(sector: Sector) -> usize {
        sector.len().div_ceil(4) as usize
    }

    /// The packed codes, as a file stores them.
    pub fn packed(&self) -> &[u8] {
        &self.codes
    }
}

/// Writes a built placing sector into `dir` (through a temporary file
/// renamed when complete) and returns its header.
///
/// # Errors
///
/// [`DbError`] naming the file if it cannot be written.
pub fn write_placing(dir: &Path, values: &PlacingValues) -> Result<PlacingHeader, DbError> {
    let sector = values.sector;
    let mut header = PlacingHeader::zeroed();
    header.mover = sector.board.mover as u8;
    header.other = sector.board.other as u8;
    header.mover_hand = sector.mover_hand as u8;
    header.other_hand = sector.other_hand as u8;
    header.entries = sector.len();
    header.class_counts = values.counts.classes;
    header.placement_counts = values.counts.placements;
    write_file(dir, sector, header, values.packed())
}

/// Writes the file of a placing `sector` into `dir` from its packed
/// values, with what `header` says of its stones and values, and returns
/// the header as written.
///
/// # Errors
///
/// [`DbError`] naming the file if it cannot be written.
pub(super) fn write_file(
    dir: &Path,
    sector: Sector,
    mut header: PlacingHeader,
    packed: &[u8],
) -> Result<PlacingHeader, DbError> {
    let compressed = Compressed::new(packed, BLOCK, LEVEL);
    header.magic = MAGIC;
    header.version = VERSION;
    header.variant = variant_code(sector);
    header.flying = 1;
    header.block_table_checksum = checksum(compressed.table_bytes());
    header.header_checksum = 0;
    header.header_checksum = checksum(bytemuck::bytes_of(&header));
    write_whole(
        &dir.join(file_name(sector)),
        &[
            bytemuck::bytes_of(&header),
            compressed.table_bytes(),
            &compressed.blocks,
        ],
    )?;
    Ok(header)
}

/// A placing sector's file, mapped into memory (or read whole), its values
/// checked as they are first read.
pub struct PlacingFile {
    /// The header.
    pub header: PlacingHeader,
    /// The sector.
    pub sector: Sector,
    /// Where it came from.
    pub path: PathBuf,
    data: Arc<Checked>,
}

impl PlacingFile {
    /// Opens a placing file and checks all but its values: magic, version,
    /// rules, sector, name, length, the header and the table of blocks.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open(path: &Path) -> Result<PlacingFile, DbError> {
        Self::open_with(path, Loading::Mapped)
    }

    /// Opens a placing file as [`PlacingFile::open`] does, read and decoded
    /// whole into memory and checked in full, as generation reads the
    /// sectors it builds from.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open_in_memory(path: &Path) -> Result<PlacingFile, DbError> {
        Self::open_with(path, Loading::Whole)
    }

    fn open_with(path: &Path, loading: Loading) -> Result<PlacingFile, DbError> {
        let (storage, header, sector) = open_header::<PlacingHeader>(path, loading, VERSION)?;
        let values = PlacingValues::packed_len(sector);
        let blocks_at = HEADER_BYTES + 8 * (block_count(values, BLOCK) + 1);
        let found = storage.bytes().len() as u64;
        let error = |problem| DbError {
            path: path.to_owned(),
            problem,
        };
        let data = Checked::compressed(
            Arc::new(storage),
            HEADER_BYTES,
            blocks_at,
            (values, BLOCK),
            header.block_table_checksum,
            loading,
        )
        .map_err(error)?;
        if data.end() != found {
            return Err(error(DbProblem::Length {
                expected: data.end(),
                found,
            }));
        }
        Ok(PlacingFile {
            header,
            sector,
            path: path.to_owned(),
            data: Arc::new(data),
        })
    }

    /// Checks every block, and fails at the first damaged one.
    ///
    /// # Errors
    ///
    /// [`DbError`] with [`DbProblem::Checksum`](crate::solution::DbProblem::Checksum)
    /// for a damaged file.
    pub fn verify(&self) -> Result<(), DbError> {
        self.data.verify(&self.path)
    }

    /// Whether a damaged block was met (its values are not used).
    pub fn is_damaged(&self) -> bool {
        self.data.is_damaged()
    }

    /// The packed values, for a file read whole.
    pub(super) fn decoded(&self) -> Option<&[u8]> {
        self.data.decoded()
    }

    /// The outcome for the side to move at `index`: `None` outside the
    /// sector, for an index that is not a position, or in a damaged block.
    #[inline]
    pub fn outcome(&self, index: u64) -> Option<DbOutcome> {
        self.outcome_with(index, Reads::Wait).unwrap_or(None)
    }

    /// [`PlacingFile::outcome`], read as `reads` allows.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and the outcome's
    /// block is not there: it is then read in the background.
    #[inline]
    pub fn outcome_with(&self, index: u64, reads: Reads) -> Result<Option<DbOutcome>, NotInMemory> {
        if index >= self.sector.len() {
            return Ok(None);
        }
        let at = (index / 4) as usize;
        if !self.data.is_good_with(at, reads)? {
            return Ok(None);
        }
        Ok(self
            .data
            .byte(at)
            .and_then(|byte| outcome_of(byte >> (2 * (index % 4)) & 3)))
    }

    /// Asks the background reader for the whole file, as `urgency` says,
    /// and how many bytes that is.
    pub(crate) fn read_ahead(&self, urgency: Urgency) -> usize {
        self.data.read_ahead(urgency);
        self.data.stored_len()
    }
}
