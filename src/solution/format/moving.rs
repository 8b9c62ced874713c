//! The moving phase's database file: the outcome of every position, and
//! the plies to the next removal of those its sector keeps (see [`Kept`]).
//!
//! ```text
//! header            136 bytes (made for bytemuck), with its own checksum
//! outcome table     where each outcome block begins, and where the last
//!                   ends (see `compressed`)
//! distance table    the same for the distance blocks, in a file that
//!                   keeps distances
//! exceptions        (index, distance) pairs of u64, sorted, for the
//!                   distances a byte cannot hold
//! outcome blocks    for each 16 Ki indices, their outcomes, two bits an
//!                   index (see `placing::code`), then one bit an index,
//!                   set where the distance is beyond `far`; compressed
//! distance blocks   one byte an index (see `distance_code`), compressed
//! ```
//!
//! The search reads outcomes, a block of them at a time; distances are
//! read at the root, and where the N-move rule may draw a game, which
//! only a distance beyond `far` can where few plies have passed since the
//! last removal. A distance not kept is one ply away (see [`Kept`]): each
//! move a removal (1) or one ply more than the position it leads to, whose
//! distance is kept. A win in 1, a loss in 2 and a draw share the byte 0
//! that the outcome tells apart: the commonest distances cost least.
//!
//! Opening a file checks the header, the length, the exceptions and the
//! tables of blocks, which takes no time whatever the size; the blocks
//! are checked when first read (see `checked`), and
//! [`MovingFile::verify`] checks every block.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::checked::{Checked, Loading, file_header, open_header, variant_code, write_whole};
use super::checksum::checksum;
use super::compressed::{Compressed, block_count};
use super::file_name;
use super::placing::{code, outcome_of};
use super::reader::{NotInMemory, Reads};
use crate::solution::error::{DbError, DbProblem};
use crate::solution::sector::Sector;
use crate::solution::value::{DbOutcome, DbValue, MAX_DISTANCE};

const MAGIC: [u8; 8] = *b"MORRISDB";
/// The format version this build writes and reads.
pub(crate) const VERSION: u32 = 3;
/// The format version before, which `convert` converts.
pub(super) const CONVERTIBLE: u32 = 2;

/// Indices an outcome block holds.
const OUTCOME_INDICES: usize = 1 << 14;
/// Where an outcome block's far bits begin, after its two-bit outcomes.
const FAR_BITS_AT: usize = OUTCOME_INDICES / 4;
/// Bytes of an outcome block, decoded.
const OUTCOME_BLOCK: usize = FAR_BITS_AT + OUTCOME_INDICES / 8;
/// Indices (bytes) of a distance block: distances are read seldom, and
/// compress better in longer blocks than the outcomes; four times as long
/// again would save a few percent of a file and decode four times slower.
const DISTANCE_BLOCK: usize = 1 << 14;
/// The zstd levels of the blocks: higher levels make smaller files only
/// by a few percent, and write several times slower.
const OUTCOME_LEVEL: i32 = 12;
const DISTANCE_LEVEL: i32 = 15;
/// The zstd level of distances a file keeps only until the build that
/// reads them is done (see [`Kept::in_folder`]): written again then, so
/// written fast now.
const PASSING_DISTANCE_LEVEL: i32 = 3;
/// Distances beyond this are flagged far in the outcome blocks.
const FAR: u32 = 40;

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
    /// Indices of the sector.
    pub entries: u64,
    /// Wins, draws and losses over symmetry classes.
    pub class_counts: [u64; 3],
    /// Wins, draws and losses over every placement of the stones.
    pub placement_counts: [u64; 3],
    /// The longest distance of a win.
    pub longest_win: u32,
    /// The longest distance of a loss.
    pub longest_loss: u32,
    /// Distances too far for a byte, kept in the exceptions table.
    pub exceptions: u64,
    /// The distance beyond which a position is flagged far.
    pub far: u32,
    /// The distances the file keeps: 0 none, 1 all, 2 the losses' (see
    /// [`Kept`]).
    pub distances: u8,
    /// Stones in hand of the side to move (where a side with stones in
    /// hand may slide: no other variant's moving sector has any).
    pub mover_hand: u8,
    /// Stones in hand of the other side.
    pub other_hand: u8,
    padding: u8,
    /// Positions flagged far.
    pub far_count: u64,
    outcome_table_checksum: u64,
    distance_table_checksum: u64,
    exceptions_checksum: u64,
    header_checksum: u64,
}

const HEADER_BYTES: usize = std::mem::size_of::<MovingHeader>();

file_header!(
    MovingHeader,
    MAGIC,
    VERSION,
    placing: false,
    convertible: Some(CONVERTIBLE),
    stones: [mover, other, mover_hand, other_hand]
);

/// The distances a moving file keeps; the others are derived by one ply
/// from the positions the moves lead to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// None: a win or loss is one ply from the other sector's losses or
    /// wins, kept there.
    Nothing,
    /// Those of every win and loss.
    All,
    /// Those of the losses alone: a win is one ply from a loss of the same
    /// sector, where both sides have as many stones.
    Losses,
}

impl Kept {
    /// The distances the file of `sector` keeps: all where its side to
    /// move has more stones in all (on the board and in hand) than the
    /// other, the losses' where they have as many, none where fewer. A
    /// distance not kept is kept, for the other outcome, in the sectors
    /// its moves that remove nothing lead to: the twin (see
    /// [`Sector::twin`]) and, placing, the sector with one stone more on
    /// the board, where the side to move there has as many stones in all.
    /// Where that is the sector itself, the losses' are kept because they
    /// take fewer bytes than the wins' (a side wins in more ways than it
    /// loses). A build may read more (see [`Kept::in_folder`]).
    pub fn of(sector: Sector) -> Kept {
        let mine = sector.board.mover + sector.mover_hand;
        let theirs = sector.board.other + sector.other_hand;
        match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => Kept::All,
            std::cmp::Ordering::Equal => Kept::Losses,
            std::cmp::Ordering::Less => Kept::Nothing,
        }
    }

    /// The distances the file of `sector` in the folder `dir` keeps: every
    /// one while the build that reads them (see [`Sector::placed_from`])
    /// is still to be made there, else those [`Kept::of`] says.
    pub fn in_folder(dir: &Path, sector: Sector) -> Kept {
        let read_later = sector.placed_from().is_some_and(|from| {
            !from
                .with_twin()
                .into_iter()
                .all(|built| dir.join(file_name(built)).is_file())
        });
        if read_later {
            Kept::All
        } else {
            Kept::of(sector)
        }
    }

    /// Its code in the header: 0 none, 1 all, 2 the losses'. A file may
    /// keep all where [`Kept::of`] says fewer, as the files written before
    /// the losses' alone were kept do.
    fn code(self) -> u8 {
        match self {
            Kept::Nothing => 0,
            Kept::All => 1,
            Kept::Losses => 2,
        }
    }

    /// What the header's `code` says, if a file of `sector` may keep it.
    fn of_file(code: u8, sector: Sector) -> Option<Kept> {
        [Kept::Nothing, Kept::All, Kept::Losses]
            .into_iter()
            .find(|kept| kept.code() == code)
            .filter(|&kept| kept == Kept::of(sector) || kept == Kept::All)
    }

    /// Whether the distances of `outcome`, a win or a loss, are kept.
    pub fn covers(self, outcome: DbOutcome) -> bool {
        match self {
            Kept::Nothing => false,
            Kept::All => true,
            Kept::Losses => outcome == DbOutcome::Loss,
        }
    }
}

/// The distance byte that sends to the exceptions table.
const EXCEPTION: u8 = 255;
/// The distance byte of a loss at 0: the side to move is blocked.
const BLOCKED: u8 = 254;

/// The byte of a value in the distances that keep `kept`: a draw 0, a
/// win in d d - 1, a loss in d d - 2 (a loss at 0 `BLOCKED`), `EXCEPTION`
/// for the rest; 0 for an outcome whose distances are not kept.
fn distance_code(value: DbValue, kept: Kept) -> u8 {
    let distance = u32::from(value.distance);
    let code = match value.outcome {
        DbOutcome::Draw => 0,
        outcome if !kept.covers(outcome) => 0,
        DbOutcome::Win if (1..=255).contains(&distance) => distance - 1,
        DbOutcome::Loss if distance == 0 => u32::from(BLOCKED),
        DbOutcome::Loss if (2..=255).contains(&distance) => distance - 2,
        DbOutcome::Win | DbOutcome::Loss => u32::from(EXCEPTION),
    };
    code as u8
}

/// The distance of a win or a loss from its byte, other than `EXCEPTION`.
fn distance_of(outcome: DbOutcome, code: u8) -> u16 {
    match outcome {
        DbOutcome::Loss if code == BLOCKED => 0,
        DbOutcome::Loss => u16::from(code) + 2,
        _ => u16::from(code) + 1,
    }
}

/// Where the outcome of `index` is in the outcome payload, and its shift.
fn outcome_at(index: usize) -> (usize, u32) {
    let (block, at) = (index / OUTCOME_INDICES, index % OUTCOME_INDICES);
    (block * OUTCOME_BLOCK + at / 4, 2 * (at % 4) as u32)
}

/// Where the far bit of `index` is in the outcome payload, and its bit.
fn far_at(index: usize) -> (usize, u32) {
    let (block, at) = (index / OUTCOME_INDICES, index % OUTCOME_INDICES);
    (
        block * OUTCOME_BLOCK + FAR_BITS_AT + at / 8,
        (at % 8) as u32,
    )
}

/// The bytes of the outcome payload of `entries` indices.
fn outcome_payload_len(entries: usize) -> usize {
    entries.div_ceil(OUTCOME_INDICES) * OUTCOME_BLOCK
}

/// Where the parts of a file begin.
struct Layout {
    distance_table_at: usize,
    exceptions_at: usize,
    outcome_blocks_at: usize,
}

impl Layout {
    fn new(entries: usize, kept: Kept, exceptions: usize) -> Layout {
        let outcome_blocks = block_count(outcome_payload_len(entries), OUTCOME_BLOCK);
        let distance_table_at = HEADER_BYTES + 8 * (outcome_blocks + 1);
        let distance_table = if kept == Kept::Nothing {
            0
        } else {
            8 * (block_count(entries, DISTANCE_BLOCK) + 1)
        };
        let exceptions_at = distance_table_at + distance_table;
        Layout {
            distance_table_at,
            exceptions_at,
            outcome_blocks_at: exceptions_at + 16 * exceptions,
        }
    }
}

/// The values of one sector, one `u16` per index (see [`DbValue::encode`]).
pub struct BuiltSector {
    /// The sector.
    pub sector: Sector,
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
}

/// Writes a built sector into `dir` (through a temporary file renamed when
/// complete), keeping the distances the folder needs (see
/// [`Kept::in_folder`]), and returns its header.
///
/// # Errors
///
/// [`DbError`] naming the file if it cannot be written.
pub fn write_sector(dir: &Path, built: &BuiltSector) -> Result<MovingHeader, DbError> {
    write_keeping(dir, built, Kept::in_folder(dir, built.sector))
}

/// [`write_sector`], keeping the distances `kept` says.
pub(super) fn write_keeping(
    dir: &Path,
    built: &BuiltSector,
    kept: Kept,
) -> Result<MovingHeader, DbError> {
    let path = dir.join(file_name(built.sector));
    let sector = built.sector.board;
    let mut header = MovingHeader::zeroed();
    header.magic = MAGIC;
    header.version = VERSION;
    header.variant = variant_code(built.sector);
    header.flying = 1;
    header.mover = sector.mover as u8;
    header.other = sector.other as u8;
    header.mover_hand = built.sector.mover_hand as u8;
    header.other_hand = built.sector.other_hand as u8;
    header.entries = built.values.len() as u64;
    header.far = FAR;
    header.distances = kept.code();
    // Classes are contiguous runs of indices: each is counted on its own,
    // in parallel.
    let tallies: Vec<Tally> = (0..sector.class_count())
        .into_par_iter()
        .map(|class| {
            let mut tally = Tally::default();
            for (index, mover, other) in sector.canonical_positions(class) {
                let Some(value) = DbValue::decode(built.values[index as usize]) else {
                    continue;
                };
                let slot = value.outcome.slot();
                let stabilizer = sector.canonical(mover, other).stabilizer;
                tally.classes[slot] += 1;
                tally.placements[slot] += 16 / u64::from(stabilizer);
                let distance = u32::from(value.distance);
                match value.outcome {
                    DbOutcome::Win => tally.longest_win = tally.longest_win.max(distance),
                    DbOutcome::Loss => tally.longest_loss = tally.longest_loss.max(distance),
                    DbOutcome::Draw => {}
                }
            }
            tally
        })
        .collect();
    for tally in tallies {
        for slot in 0..3 {
            header.class_counts[slot] += tally.classes[slot];
            header.placement_counts[slot] += tally.placements[slot];
        }
        header.longest_win = header.longest_win.max(tally.longest_win);
        header.longest_loss = header.longest_loss.max(tally.longest_loss);
    }
    let mut outcomes = vec![0u8; outcome_payload_len(built.values.len())];
    header.far_count = outcomes
        .par_chunks_mut(OUTCOME_BLOCK)
        .zip(built.values.par_chunks(OUTCOME_INDICES))
        .map(|(block, values)| fill_outcome_block(block, values))
        .sum();
    let outcomes = Compressed::new(&outcomes, OUTCOME_BLOCK, OUTCOME_LEVEL);
    let level = if kept == Kept::of(built.sector) {
        DISTANCE_LEVEL
    } else {
        PASSING_DISTANCE_LEVEL
    };
    write_with_outcomes(
        &path,
        header,
        (outcomes.table_bytes(), &outcomes.blocks),
        (&built.values, kept, level),
    )
}

/// Writes `file` anew as the file `path`, keeping only the distances
/// `kept` says of those it keeps, whose `values` (see [`BuiltSector`])
/// are read from it: its outcome blocks are copied as they are stored,
/// and only the distances compressed again.
pub(super) fn write_keeping_fewer(
    path: &Path,
    file: &MovingFile,
    values: &[u16],
    kept: Kept,
) -> Result<MovingHeader, DbError> {
    let header = MovingHeader {
        distances: kept.code(),
        ..file.header
    };
    let distances = (values, kept, DISTANCE_LEVEL);
    write_with_outcomes(path, header, file.outcomes.as_stored(), distances)
}

/// Writes the file at `path`: `header`, which the outcomes' table and
/// blocks `outcomes` fit, completed with the distances `kept` says of
/// `values`, compressed at zstd's `level`, and the checksums.
fn write_with_outcomes(
    path: &Path,
    mut header: MovingHeader,
    (outcome_table, outcome_blocks): (&[u8], &[u8]),
    (values, kept, level): (&[u16], Kept, i32),
) -> Result<MovingHeader, DbError> {
    // The bytes of the distances are let go of once compressed.
    let (distance_blocks, exceptions) = if kept == Kept::Nothing {
        (None, Vec::new())
    } else {
        let (codes, exceptions) = distance_codes(values, kept);
        let blocks = Compressed::new(&codes, DISTANCE_BLOCK, level);
        (Some(blocks), exceptions)
    };
    header.exceptions = exceptions.len() as u64;
    header.outcome_table_checksum = checksum(outcome_table);
    let (distance_table, distance_bytes): (&[u8], &[u8]) = match &distance_blocks {
        Some(blocks) => (blocks.table_bytes(), &blocks.blocks),
        None => (&[], &[]),
    };
    header.distance_table_checksum = checksum(distance_table);
    header.exceptions_checksum = checksum(bytemuck::cast_slice(&exceptions));
    header.header_checksum = 0;
    header.header_checksum = checksum(bytemuck::bytes_of(&header));
    write_whole(
        path,
        &[
            bytemuck::bytes_of(&header),
            outcome_table,
            distance_table,
            bytemuck::cast_slice(&exceptions),
            outcome_blocks,
            distance_bytes,
        ],
    )?;
    Ok(header)
}

/// Fills an outcome block from the values of its indices, and returns how
/// many of them are flagged far.
fn fill_outcome_block(block: &mut [u8], values: &[u16]) -> u64 {
    let mut far = 0;
    for (at, &entry) in values.iter().enumerate() {
        let Some(value) = DbValue::decode(entry) else {
            continue;
        };
        block[at / 4] |= code(value.outcome) << (2 * (at % 4));
        if value.outcome != DbOutcome::Draw && u32::from(value.distance) > FAR {
            block[FAR_BITS_AT + at / 8] |= 1 << (at % 8);
            far += 1;
        }
    }
    far
}

/// The distance byte of every index (see [`distance_code`]) keeping
/// `kept`, and the exceptions, in index order.
fn distance_codes(values: &[u16], kept: Kept) -> (Vec<u8>, Vec<[u64; 2]>) {
    let mut codes = vec![0u8; values.len()];
    let exceptions: Vec<Vec<[u64; 2]>> = codes
        .par_chunks_mut(DISTANCE_BLOCK)
        .zip(values.par_chunks(DISTANCE_BLOCK))
        .enumerate()
        .map(|(block, (codes, values))| {
            let first = (block * DISTANCE_BLOCK) as u64;
            let mut exceptions = Vec::new();
            for (at, (code, &entry)) in codes.iter_mut().zip(values).enumerate() {
                let Some(value) = DbValue::decode(entry) else {
                    continue;
                };
                *code = distance_code(value, kept);
                if *code == EXCEPTION {
                    exceptions.push([first + at as u64, u64::from(value.distance)]);
                }
            }
            exceptions
        })
        .collect();
    (codes, exceptions.concat())
}

/// A sector file, mapped into memory (or read whole), its blocks checked
/// as they are first read.
pub struct MovingFile {
    /// The header.
    pub header: MovingHeader,
    /// The sector.
    pub sector: Sector,
    /// Where it came from.
    pub path: PathBuf,
    /// The sorted (index, distance) pairs of the distances that do not
    /// fit a byte, copied at open: a probe never waits for the disk to
    /// read them.
    exceptions: Box<[[u64; 2]]>,
    outcomes: Arc<Checked>,
    /// The distances kept.
    kept: Kept,
    /// The distances, if the file keeps any.
    distances: Option<Arc<Checked>>,
}

impl MovingFile {
    /// Opens a sector file and checks all but its blocks: magic, version,
    /// rules, sector, length, the header, the exceptions and the tables of
    /// blocks.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open(path: &Path) -> Result<MovingFile, DbError> {
        Self::open_with(path, Loading::Mapped)
    }

    /// Opens a sector file as [`MovingFile::open`] does, read whole into
    /// memory and its outcomes decoded and checked in full, as generation
    /// reads the sectors it builds from.
    ///
    /// # Errors
    ///
    /// [`DbError`] naming the file and the problem.
    pub fn open_in_memory(path: &Path) -> Result<MovingFile, DbError> {
        Self::open_with(path, Loading::Whole)
    }

    fn open_with(path: &Path, loading: Loading) -> Result<MovingFile, DbError> {
        let (storage, header, sector) = open_header::<MovingHeader>(path, loading, VERSION)?;
        let error = |problem| DbError {
            path: path.to_owned(),
            problem,
        };
        let entries = sector.len() as usize;
        let exceptions = usize::try_from(header.exceptions).unwrap_or(usize::MAX);
        let kept = Kept::of_file(header.distances, sector);
        let Some(kept) = kept.filter(|_| exceptions <= entries) else {
            return Err(error(DbProblem::Sector {
                mover: header.mover,
                other: header.other,
                mover_hand: header.mover_hand,
                other_hand: header.other_hand,
            }));
        };
        let layout = Layout::new(entries, kept, exceptions);
        let found = storage.bytes().len() as u64;
        let exceptions_bytes = storage
            .bytes()
            .get(layout.exceptions_at..layout.outcome_blocks_at)
            .ok_or(error(DbProblem::Length {
                expected: layout.outcome_blocks_at as u64,
                found,
            }))?;
        if checksum(exceptions_bytes) != header.exceptions_checksum {
            return Err(error(DbProblem::Checksum));
        }
        let exceptions: Box<[[u64; 2]]> =
            bytemuck::pod_collect_to_vec(exceptions_bytes).into_boxed_slice();
        // Exceptions that match their checksum but are out of order or out
        // of range were crafted: refused, as a damaged file.
        let in_order = exceptions.windows(2).all(|pair| pair[0][0] < pair[1][0])
            && exceptions.iter().all(|&[index, distance]| {
                index < entries as u64 && distance <= u64::from(MAX_DISTANCE)
            });
        if !in_order || header.far == 0 {
            return Err(error(DbProblem::Checksum));
        }
        let storage = Arc::new(storage);
        let outcomes = Checked::compressed(
            Arc::clone(&storage),
            HEADER_BYTES,
            layout.outcome_blocks_at,
            (outcome_payload_len(entries), OUTCOME_BLOCK),
            header.outcome_table_checksum,
            loading,
        )
        .map_err(error)?;
        let distances = (kept != Kept::Nothing)
            .then(|| {
                // Read seldom: decoded a block at a time, even in memory.
                Checked::compressed(
                    storage,
                    layout.distance_table_at,
                    outcomes.end() as usize,
                    (entries, DISTANCE_BLOCK),
                    header.distance_table_checksum,
                    Loading::Mapped,
                )
            })
            .transpose()
            .map_err(error)?;
        let end = distances.as_ref().unwrap_or(&outcomes).end();
        if end != found {
            return Err(error(DbProblem::Length {
                expected: end,
                found,
            }));
        }
        Ok(MovingFile {
            header,
            sector,
            path: path.to_owned(),
            exceptions,
            outcomes: Arc::new(outcomes),
            kept,
            distances: distances.map(Arc::new),
        })
    }

    /// Checks every block, and fails at the first damaged one.
    ///
    /// # Errors
    ///
    /// [`DbError`] with [`DbProblem::Checksum`] for a damaged file.
    pub fn verify(&self) -> Result<(), DbError> {
        self.outcomes.verify(&self.path)?;
        match &self.distances {
            Some(distances) => distances.verify(&self.path),
            None => Ok(()),
        }
    }

    /// Whether a damaged block was met (its values are not used).
    pub fn is_damaged(&self) -> bool {
        self.outcomes.is_damaged() || self.distances.as_ref().is_some_and(|d| d.is_damaged())
    }

    /// The distances the file keeps.
    pub fn kept(&self) -> Kept {
        self.kept
    }

    /// The outcome at `index`: `None` outside the sector, for an index
    /// that is not a position, or in a damaged block.
    #[inline]
    pub fn outcome(&self, index: u64) -> Option<DbOutcome> {
        self.outcome_with(index, Reads::Wait).unwrap_or(None)
    }

    /// [`MovingFile::outcome`], read as `reads` allows.
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
        let (at, shift) = outcome_at(index as usize);
        if !self.outcomes.is_good_with(at, reads)? {
            return Ok(None);
        }
        Ok(self
            .outcomes
            .byte(at)
            .and_then(|byte| outcome_of(byte >> shift & 3)))
    }

    /// Whether the position at `index`, whose outcome was read (so that its
    /// block is checked), is won or lost at a distance beyond
    /// [`MovingFile::far`].
    #[inline]
    pub(crate) fn is_far(&self, index: u64) -> bool {
        if index >= self.sector.len() {
            return false;
        }
        let (at, bit) = far_at(index as usize);
        self.outcomes
            .byte(at)
            .is_some_and(|byte| byte >> bit & 1 == 1)
    }

    /// The distance beyond which a position is flagged far.
    pub fn far(&self) -> u32 {
        self.header.far
    }

    /// The longest distance of the sector's wins, or of its losses.
    pub fn longest(&self, outcome: DbOutcome) -> u32 {
        match outcome {
            DbOutcome::Win => self.header.longest_win,
            DbOutcome::Loss => self.header.longest_loss,
            DbOutcome::Draw => 0,
        }
    }

    /// The distance of the win or loss `outcome` at `index`, if the file
    /// keeps the distances of `outcome`: `None` otherwise, or in a damaged
    /// block.
    ///
    /// # Errors
    ///
    /// [`NotInMemory`] when reading from memory only and the distance's
    /// block is not there: it is then read in the background.
    pub fn distance_with(
        &self,
        index: u64,
        outcome: DbOutcome,
        reads: Reads,
    ) -> Result<Option<u16>, NotInMemory> {
        let Some(distances) = self
            .distances
            .as_ref()
            .filter(|_| self.kept.covers(outcome))
        else {
            return Ok(None);
        };
        let at = index as usize;
        if index >= self.sector.len() || !distances.is_good_with(at, reads)? {
            return Ok(None);
        }
        Ok(match distances.byte(at) {
            Some(EXCEPTION) => {
                let table = &self.exceptions;
                let found = table.binary_search_by_key(&index, |pair| pair[0]);
                found.ok().and_then(|at| u16::try_from(table[at][1]).ok())
            }
            Some(code) => Some(distance_of(outcome, code)),
            None => None,
        })
    }

    /// Whether the file gives `values` (see [`BuiltSector`]) at every
    /// index: the outcome, and the distance where it keeps it.
    pub(super) fn holds(&self, values: &[u16]) -> bool {
        values.len() as u64 == self.sector.len()
            && values.par_iter().enumerate().all(|(index, &entry)| {
                let index = index as u64;
                let value = DbValue::decode(entry);
                let distance_holds = match value {
                    Some(value)
                        if value.outcome != DbOutcome::Draw && self.kept.covers(value.outcome) =>
                    {
                        self.distance_with(index, value.outcome, Reads::Wait)
                            == Ok(Some(value.distance))
                    }
                    _ => true,
                };
                self.outcome(index) == value.map(|value| value.outcome) && distance_holds
            })
    }

    /// The value of every index (see [`BuiltSector`]), if the file keeps
    /// every distance: `None` otherwise, or where a distance is missing.
    /// A damaged block reads as no position: [`MovingFile::verify`] first.
    pub(super) fn values(&self) -> Option<Vec<u16>> {
        if self.kept != Kept::All {
            return None;
        }
        (0..self.sector.len())
            .into_par_iter()
            .map(|index| match self.outcome(index) {
                None => Some(0),
                Some(DbOutcome::Draw) => Some(DbValue::draw().encode()),
                Some(outcome) => {
                    let distance = self.distance_with(index, outcome, Reads::Wait).ok()??;
                    Some(DbValue { outcome, distance }.encode())
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::board::Variant;
    use crate::solution::index::SectorIndex;

    #[test]
    fn every_distance_survives_its_byte_or_the_exceptions() {
        for outcome in [DbOutcome::Win, DbOutcome::Loss] {
            for distance in 0..400 {
                let value = DbValue { outcome, distance };
                let code = distance_code(value, Kept::All);
                if code != EXCEPTION {
                    assert_eq!(distance_of(outcome, code), distance, "{value:?}");
                }
                // The wins' distances cost nothing where not kept.
                let losses = distance_code(value, Kept::Losses);
                assert_eq!(losses == code, outcome == DbOutcome::Loss || code == 0);
                assert_eq!(distance_code(value, Kept::Nothing), 0);
            }
        }
        // The commonest distances share the byte the outcome tells apart.
        for value in [DbValue::draw(), DbValue::win(1), DbValue::loss(2)] {
            assert_eq!(distance_code(value, Kept::All), 0);
        }
        assert_eq!(distance_code(DbValue::loss(0), Kept::All), BLOCKED);
        assert_eq!(distance_code(DbValue::win(255), Kept::All), 254);
        assert_eq!(distance_code(DbValue::loss(255), Kept::All), 253);
        for far in [DbValue::win(256), DbValue::loss(1), DbValue::loss(256)] {
            assert_eq!(distance_code(far, Kept::All), EXCEPTION);
        }
    }

    #[test]
    fn each_sector_keeps_what_the_other_of_its_pair_or_itself_derives_from() {
        for mover in 3..=12 {
            for other in 3..=12 {
                let sector = Sector::moving(Variant::Nine, SectorIndex::new(mover, other));
                let pair = Kept::of(sector.twin());
                for outcome in [DbOutcome::Win, DbOutcome::Loss] {
                    // A win's distance is one ply from the loss the move
                    // leads to: of the other sector of the pair, or of
                    // this one where they are the same.
                    if !Kept::of(sector).covers(outcome) {
                        assert!(pair.covers(-outcome), "{mover}-{other} {outcome:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_sector_reads_back_its_outcomes_far_flags_and_kept_distances() {
        let dir = std::env::temp_dir().join(format!("morris-file-test-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("folder");
        // One sector keeps its distances, the other of the pair does not;
        // one with as many stones a side keeps those of its losses (or,
        // written so, all).
        let sectors = [(4, 3), (3, 4), (4, 4)].map(|(mover, other)| SectorIndex::new(mover, other));
        let cases = sectors
            .into_iter()
            .map(|sector| (sector, Kept::of(Sector::moving(Variant::Nine, sector))))
            .chain([(SectorIndex::new(4, 4), Kept::All)]);
        for (sector, kept) in cases {
            // Every canonical index gets a value, some far beyond a byte.
            let mut values = vec![0u16; sector.len() as usize];
            for class in 0..sector.class_count() {
                for (index, _, _) in sector.canonical_positions(class) {
                    let distance = (index % 700) as u16;
                    values[index as usize] = match index % 3 {
                        0 => DbValue::win(distance.max(1)),
                        1 => DbValue::loss(distance),
                        _ => DbValue::draw(),
                    }
                    .encode();
                }
            }
            let built = BuiltSector {
                sector: Sector::moving(Variant::Nine, sector),
                values,
            };
            let header = write_keeping(&dir, &built, kept).expect("written");
            assert_eq!(header.exceptions > 0, kept != Kept::Nothing);
            assert!(header.far_count > 0);
            let path = dir.join(file_name(Sector::moving(Variant::Nine, sector)));
            let file = MovingFile::open(&path).expect("opened");
            file.verify().expect("intact");
            assert_eq!(file.kept(), kept);
            assert!(file.holds(&built.values));
            let values = file.values();
            assert_eq!(values.is_some(), kept == Kept::All);
            assert!(values.is_none_or(|values| values == built.values));
            for (index, &entry) in built.values.iter().enumerate() {
                let index = index as u64;
                let value = DbValue::decode(entry);
                assert_eq!(file.outcome(index), value.map(|v| v.outcome));
                let Some(value) = value.filter(|v| v.outcome != DbOutcome::Draw) else {
                    continue;
                };
                assert_eq!(file.is_far(index), u32::from(value.distance) > FAR);
                let distance = file.distance_with(index, value.outcome, Reads::Wait);
                let kept = kept.covers(value.outcome);
                assert_eq!(distance, Ok(kept.then_some(value.distance)));
            }
            assert_eq!(file.outcome(sector.len()), None);
            // Another value anywhere is seen.
            let mut changed = built.values.clone();
            let draw = DbValue::draw().encode();
            let at = changed.iter().position(|&v| v != 0 && v != draw);
            changed[at.expect("a win or loss")] = draw;
            assert!(!file.holds(&changed));
            // A file of the other sector's name is refused.
            let twin = SectorIndex::new(sector.other, sector.mover);
            if twin != sector {
                let other = dir.join(file_name(Sector::moving(Variant::Nine, twin)));
                fs::copy(&path, &other).expect("copied");
                assert!(matches!(
                    MovingFile::open(&other).err().map(|e| e.problem),
                    Some(DbProblem::Sector { .. })
                ));
            }
        }
        // A file that keeps fewer distances than its sector needs is
        // refused.
        for (sector, kept) in [
            (SectorIndex::new(4, 3), Kept::Losses),
            (SectorIndex::new(4, 4), Kept::Nothing),
        ] {
            let values = vec![DbValue::draw().encode(); sector.len() as usize];
            let sector = Sector::moving(Variant::Nine, sector);
            write_keeping(&dir, &BuiltSector { sector, values }, kept).expect("written");
            let path = dir.join(file_name(sector));
            assert!(matches!(
                MovingFile::open(&path).err().map(|e| e.problem),
                Some(DbProblem::Sector { .. })
            ));
        }
        fs::remove_dir_all(&dir).expect("cleaned");
    }
}
