//! What every database file shares: it is mapped into memory (or read
//! and decoded whole), its header and sector are checked at open
//! (`open_header`), its payloads are compressed in blocks (see
//! `compressed`), each block checked when first read, so that opening
//! takes no time whatever the size yet no damaged value is ever used, and
//! it is written under a temporary name and renamed when complete.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use bytemuck::Pod;
use rayon::prelude::*;

use super::checksum::checksum;
use super::compressed::{self, SUM_BYTES, block_count, decode_into, is_intact};
use super::file_name;
use super::reader::{self, BlockFile, NotInMemory, Reads, Urgency};
use crate::board::{FullBoard, Variant};
use crate::solution::error::{DbError, DbProblem};
use crate::solution::memory::HugeBytes;
use crate::solution::sector::Sector;

/// The code of a variant in a file's header, for good: nine's files,
/// written before there were others, have 0.
const fn variant_file_code(variant: Variant) -> u8 {
    match variant {
        Variant::Nine => 0,
        Variant::Twelve => 1,
        Variant::Lasker => 2,
    }
}

/// The code of a full-board rule in a file's header, for good.
const fn full_board_file_code(rule: FullBoard) -> u8 {
    match rule {
        FullBoard::Draw => 0,
        FullBoard::WhiteLoses => 1,
    }
}

/// The code of the rules of `sector` in a header's variant byte: its
/// variant's code plus 16 times its full-board rule's.
pub(super) fn variant_code(sector: Sector) -> u8 {
    variant_file_code(sector.variant) | full_board_file_code(sector.full_board) << 4
}

/// The rules a header's variant byte `code` gives (see [`variant_code`]),
/// if it names a variant and a full-board rule.
fn rules_of_code(code: u8) -> Option<(Variant, FullBoard)> {
    let variant = Variant::ALL
        .into_iter()
        .find(|&v| variant_file_code(v) == code & 15)?;
    let rule = FullBoard::ALL
        .into_iter()
        .find(|&r| full_board_file_code(r) == code >> 4)?;
    Some((variant, rule))
}

/// A file header: what identifies the file, and its own checksum.
pub(super) trait FileHeader: Pod {
    /// The magic number of the kind of file.
    const MAGIC: [u8; 8];
    /// The format version this build writes and reads.
    const VERSION: u32;
    /// Magic, version, variant code and flying (1 or 0), as stored.
    fn identity(&self) -> ([u8; 8], u32, u8, u8);
    /// The stored checksum of the header.
    fn checksum(&self) -> u64;
    /// The header with its checksum zeroed, as it is summed.
    fn unsummed(&self) -> Self;
    /// Its sector's stones, as stored: on the board of the side to move
    /// and of the other side, then in hand of each (none in the moving
    /// phase).
    fn stones(&self) -> [u8; 4];
    /// The number of indices it gives.
    fn entries(&self) -> u64;
    /// Whether its kind of file holds a placing sector.
    const PLACING: bool;
    /// The format version before, which `convert` converts, if any.
    const CONVERTIBLE: Option<u32>;
}

/// Implements [`FileHeader`] for a header whose fields are named as every
/// header's are (`magic`, `version`, `variant`, `flying`, `entries`,
/// `header_checksum`), from what tells the kinds of file apart: the magic
/// number, the version, whether it holds a placing sector, the version it
/// converts, and its stones (`mover`, `other`, and the hands if it has
/// them).
macro_rules! file_header {
    ($header:ident, $magic:expr, $version:expr, placing: $placing:expr,
     convertible: $convertible:expr, stones: [$($stone:ident),+]) => {
        impl super::checked::FileHeader for $header {
            const MAGIC: [u8; 8] = $magic;
            const VERSION: u32 = $version;
            const PLACING: bool = $placing;
            const CONVERTIBLE: Option<u32> = $convertible;

            fn identity(&self) -> ([u8; 8], u32, u8, u8) {
                (self.magic, self.version, self.variant, self.flying)
            }

            fn checksum(&self) -> u64 {
                self.header_checksum
            }

            fn unsummed(&self) -> $header {
                $header {
                    header_checksum: 0,
                    ..*self
                }
            }

            fn stones(&self) -> [u8; 4] {
                let given = [$(self.$stone),+];
                let mut stones = [0; 4];
                stones[..given.len()].copy_from_slice(&given);
                stones
            }

            fn entries(&self) -> u64 {
                self.entries
            }
        }
    };
}
pub(super) use file_header;

/// Loads the file at `path` and reads its header, checked (see
/// [`read_header`]) for format `version`: the storage, the header, and
/// its sector, which must be of the game and of the file's phase, the one
/// the file's name says, with as many indices as the header gives.
pub(super) fn open_header<H: FileHeader>(
    path: &Path,
    loading: Loading,
    version: u32,
) -> Result<(Storage, H, Sector), DbError> {
    let error = |problem| DbError {
        path: path.to_owned(),
        problem,
    };
    let storage = load(path, loading)?;
    let (header, (variant, rule)): (H, _) = read_header(storage.bytes(), version).map_err(error)?;
    let [mover, other, mover_hand, other_hand] = header.stones();
    let bad_sector = || {
        error(DbProblem::Sector {
            mover,
            other,
            mover_hand,
            other_hand,
        })
    };
    let [m, o, mh, oh] = header.stones().map(usize::from);
    let sector = Sector::new(variant, m, o, mh, oh)
        .map(|sector| sector.under(rule))
        .filter(|sector| sector.full_board == rule)
        .ok_or_else(bad_sector)?;
    let named = path.file_name().and_then(|name| name.to_str()) == Some(&file_name(sector));
    if !named || sector.keeps_distances() == H::PLACING || header.entries() != sector.len() {
        return Err(bad_sector());
    }
    Ok((storage, header, sector))
}

/// The header at the start of `bytes`, checked, and the variant and
/// full-board rule it is of: magic, its checksum, the rules (a variant
/// with flying), and the
/// format `version`: this build's, or an older one to convert.
fn read_header<H: FileHeader>(
    bytes: &[u8],
    version: u32,
) -> Result<(H, (Variant, FullBoard)), DbProblem> {
    let header_bytes = bytes
        .get(..std::mem::size_of::<H>())
        .ok_or(DbProblem::TooShort)?;
    let header: H = bytemuck::pod_read_unaligned(header_bytes);
    let (magic, found, variant, flying) = header.identity();
    if magic != H::MAGIC {
        return Err(DbProblem::BadMagic);
    }
    if found != version {
        let expected = H::VERSION;
        return Err(if H::CONVERTIBLE == Some(found) {
            DbProblem::Convertible { found, expected }
        } else {
            DbProblem::Version { found, expected }
        });
    }
    if checksum(bytemuck::bytes_of(&header.unsummed())) != header.checksum() {
        return Err(DbProblem::Checksum);
    }
    match rules_of_code(variant) {
        Some(rules) if flying == 1 => Ok((header, rules)),
        _ => Err(DbProblem::Rules),
    }
}

/// The bytes of an open file.
pub(super) enum Storage {
    #[cfg(feature = "mmap")]
    Mapped(memmap2::Mmap),
    #[cfg(feature = "mmap")]
    Copied(memmap2::MmapMut),
    #[cfg(not(feature = "mmap"))]
    Owned(Vec<u64>),
}

impl Storage {
    /// The whole file.
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(feature = "mmap")]
            Storage::Mapped(map) => &map[..],
            #[cfg(feature = "mmap")]
            Storage::Copied(map) => &map[..],
            #[cfg(not(feature = "mmap"))]
            Storage::Owned(words) => bytemuck::cast_slice(words),
        }
    }
}

/// How a file is brought into memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loading {
    /// Mapped: pages are read as they are touched, and a block is decoded
    /// when a probe needs it.
    Mapped,
    /// Read whole into memory (a compressed payload decoded and checked in
    /// full), in huge pages where the system has them: generation reads its
    /// sources at random, and that is faster than reading a mapped file or
    /// decoding a block for each value (see `memory`).
    Whole,
}

/// Opens the file at `path` as `loading` says.
pub(super) fn load(path: &Path, loading: Loading) -> Result<Storage, DbError> {
    let error = |e: std::io::Error| DbError {
        path: path.to_owned(),
        problem: DbProblem::from(e),
    };
    let file = fs::File::open(path).map_err(error)?;
    load_file(&file, loading).map_err(error)
}

#[cfg(feature = "mmap")]
fn load_file(mut file: &fs::File, loading: Loading) -> std::io::Result<Storage> {
    match loading {
        Loading::Mapped => {
            // SAFETY: the map is only read, and database files are written
            // under a temporary name and renamed when complete, never
            // changed in place; a file truncated by someone else while
            // mapped would be a fault of the machine's administration, as
            // for any mapped file.
            let map = unsafe { memmap2::Mmap::map(file)? };
            // Probes read at random: without this, the system reads
            // megabytes around each page a probe touches. Each block is
            // read whole when it is checked (see `advise_will_need`).
            #[cfg(unix)]
            let _ = map.advise(memmap2::Advice::Random);
            Ok(Storage::Mapped(map))
        }
        Loading::Whole => {
            use std::io::Read;
            let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
            let mut map = crate::solution::memory::huge_anonymous_map(len);
            file.read_exact(&mut map[..len])?;
            Ok(Storage::Copied(map))
        }
    }
}

#[cfg(not(feature = "mmap"))]
fn load_file(mut file: &fs::File, _: Loading) -> std::io::Result<Storage> {
    use std::io::Read;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    Ok(Storage::Owned(words))
}

/// A block's state: not read yet, checked, damaged, or asked of the
/// background reader (read ahead, for a search's tree, for its root).
const UNCHECKED: u8 = 0;
const GOOD: u8 = 1;
const DAMAGED: u8 = 2;
const ASKED_LATER: u8 = 3;
const ASKED_SEARCH: u8 = 4;
const ASKED_ROOT: u8 = 5;

/// The state of a block asked for as `urgency` says.
fn asked(urgency: Urgency) -> u8 {
    match urgency {
        Urgency::Game | Urgency::NextMove => ASKED_LATER,
        Urgency::Search => ASKED_SEARCH,
        Urgency::Root => ASKED_ROOT,
    }
}

/// A payload of a file, compressed in blocks, each block checked the first
/// time it is read.
pub(super) struct Checked {
    /// The file, which other payloads of it may share.
    storage: Arc<Storage>,
    /// Where the blocks begin in the file.
    blocks_at: usize,
    /// Where each block begins among the blocks, and where the last ends,
    /// copied at open: finding a block never waits for the disk.
    table: Box<[u64]>,
    /// Names the payload's blocks among the blocks a thread keeps decoded.
    id: u64,
    /// Payload bytes per block (fewer in the last).
    block_len: usize,
    payload_len: usize,
    /// A compressed payload decoded, for a file read whole.
    whole: Option<HugeBytes>,
    blocks: Vec<AtomicU8>,
    damaged: AtomicBool,
}

impl Checked {
    /// The payload of `payload_len` bytes compressed in blocks of
    /// `block_len` bytes whose table is at `table_at` in `storage`, the
    /// blocks at `blocks_at`, checked as far as opening goes: the table
    /// against `table_sum`, and that the blocks lie in the file; loaded
    /// `Whole`, every block is checked and decoded now. The caller checks
    /// the file's length against [`Checked::end`].
    pub(super) fn compressed(
        storage: Arc<Storage>,
        table_at: usize,
        blocks_at: usize,
        (payload_len, block_len): (usize, usize),
        table_sum: u64,
        loading: Loading,
    ) -> Result<Checked, DbProblem> {
        let bytes = storage.bytes();
        let count = block_count(payload_len, block_len);
        let too_short = || DbProblem::Length {
            expected: (table_at + 8 * (count + 1)) as u64,
            found: bytes.len() as u64,
        };
        let table_bytes = bytes
            .get(table_at..table_at + 8 * (count + 1))
            .ok_or_else(too_short)?;
        if checksum(table_bytes) != table_sum {
            return Err(DbProblem::Checksum);
        }
        let table: Box<[u64]> = bytemuck::pod_collect_to_vec(table_bytes).into_boxed_slice();
        // A table that matches its checksum but is out of order was
        // crafted: refused, so that no block's span falls outside the file.
        let ordered = table[0] == 0
            && table.windows(2).all(|pair| {
                pair[1]
                    .checked_sub(pair[0])
                    .is_some_and(|len| len >= SUM_BYTES as u64)
            });
        if !ordered {
            return Err(DbProblem::Checksum);
        }
        let end = table[count].saturating_add(blocks_at as u64);
        if (bytes.len() as u64) < end {
            return Err(DbProblem::Length {
                expected: end,
                found: bytes.len() as u64,
            });
        }
        let mut checked = Checked {
            storage,
            blocks_at,
            table,
            id: compressed::new_file_id(),
            block_len,
            payload_len,
            whole: None,
            blocks: (0..count).map(|_| AtomicU8::new(UNCHECKED)).collect(),
            damaged: AtomicBool::new(false),
        };
        if loading == Loading::Whole {
            checked.whole = Some(checked.decode_whole().ok_or(DbProblem::Checksum)?);
            checked
                .blocks
                .iter()
                .for_each(|b| b.store(GOOD, Ordering::Relaxed));
        }
        Ok(checked)
    }

    /// Where the blocks end in the file.
    pub(super) fn end(&self) -> u64 {
        self.blocks_at as u64 + self.stored_len() as u64
    }

    /// The block that holds payload byte `at`.
    #[inline]
    fn block_of(&self, at: usize) -> usize {
        at / self.block_len
    }

    /// The payload bytes of `block`.
    fn payload_of(&self, block: usize) -> std::ops::Range<usize> {
        let start = block * self.block_len;
        start..self.payload_len.min(start + self.block_len)
    }

    /// Every block checked and decoded, in parallel; `None` if one is
    /// damaged.
    fn decode_whole(&self) -> Option<HugeBytes> {
        let mut whole = HugeBytes::zeroed(self.payload_len);
        let decoded = whole
            .par_chunks_mut(self.block_len)
            .enumerate()
            .try_for_each_init(compressed::decompressor, |decompressor, (block, out)| {
                let stored = self.stored(block);
                (is_intact(stored) && decode_into(decompressor, stored, out)).then_some(())
            });
        decoded.map(|()| whole)
    }

    /// Payload byte `at`, whose block is good (see [`Checked::is_good`]):
    /// `None` if a compressed block does not decode.
    #[inline]
    pub(super) fn byte(&self, at: usize) -> Option<u8> {
        if let Some(whole) = &self.whole {
            return Some(whole[at]);
        }
        let block = self.block_of(at);
        let len = self.payload_of(block).len();
        let byte = compressed::byte(self.id, block, self.stored(block), len, at % self.block_len);
        if byte.is_none() {
            self.blocks[block].store(DAMAGED, Ordering::Relaxed);
            self.damaged.store(true, Ordering::Relaxed);
        }
        byte
    }

    /// A block as stored: its checksum and its frame.
    fn stored(&self, block: usize) -> &[u8] {
        &self.storage.bytes()[self.stored_span(block)]
    }

    /// Where a block is stored in the file.
    fn stored_span(&self, block: usize) -> std::ops::Range<usize> {
        let (table, at) = (&self.table, self.blocks_at);
        at + table[block] as usize..at + table[block + 1] as usize
    }

    /// Whether the block holding payload byte `at` matches its checksum,
    /// checking it the first time.
    #[inline]
    pub(super) fn is_good(&self, at: usize) -> bool {
        let block = self.block_of(at);
        match self.blocks[block].load(Ordering::Relaxed) {
            GOOD => true,
            DAMAGED => false,
            _ => self.check_block(block),
        }
    }

    /// [`Checked::is_good`] as `reads` allows: reading from memory only,
    /// a block that is not there is asked of the background reader and
    /// [`NotInMemory`] returned.
    #[inline]
    pub(super) fn is_good_with(
        self: &Arc<Self>,
        at: usize,
        reads: Reads,
    ) -> Result<bool, NotInMemory> {
        let block = self.block_of(at);
        match self.blocks[block].load(Ordering::Relaxed) {
            GOOD => Ok(true),
            DAMAGED => Ok(false),
            _ => match reads {
                Reads::Wait => Ok(self.check_block(block)),
                Reads::InMemory(urgency) if self.ready_or_ask(at, urgency) => Ok(self.is_good(at)),
                Reads::InMemory(_) => Err(NotInMemory),
            },
        }
    }

    /// Whether the block holding payload byte `at` can be read at once:
    /// checked already, or in memory (then checked now, for a search). If
    /// not, it is asked of the background reader, or asked again sooner.
    #[cold]
    pub(super) fn ready_or_ask(self: &Arc<Self>, at: usize, urgency: Urgency) -> bool {
        let block = self.block_of(at);
        let state = &self.blocks[block];
        let wanted = asked(urgency);
        let mut seen = state.load(Ordering::Relaxed);
        loop {
            let ask = match seen {
                GOOD | DAMAGED => return true,
                UNCHECKED if urgency >= Urgency::Search && self.is_resident(block) => {
                    self.check_block(block);
                    return true;
                }
                UNCHECKED => true,
                // A block asked for sooner is not asked again; one read
                // ahead is asked again by each round of reading ahead, as
                // the last round's request is dropped.
                asked_before => {
                    asked_before < wanted
                        || (asked_before == wanted && urgency == Urgency::NextMove)
                }
            };
            if !ask {
                return false;
            }
            match state.compare_exchange(seen, wanted, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => {
                    if !reader::ask(Arc::clone(self) as Arc<dyn BlockFile>, block, urgency) {
                        // The queue is full: left as it was, to be asked
                        // for again.
                        let _ = state.compare_exchange(
                            wanted,
                            seen,
                            Ordering::Relaxed,
                            Ordering::Relaxed,
                        );
                    }
                    return false;
                }
                // Changed meanwhile (read, or asked for): decide again.
                Err(now) => seen = now,
            }
        }
    }

    /// Asks the background reader for every block not read yet, as
    /// `urgency` says.
    pub(super) fn read_ahead(self: &Arc<Self>, urgency: Urgency) {
        for block in 0..self.blocks.len() {
            self.ready_or_ask(block * self.block_len, urgency);
        }
    }

    /// A compressed payload decoded, for a file read whole.
    pub(super) fn decoded(&self) -> Option<&[u8]> {
        self.whole.as_deref()
    }

    /// The bytes of the payload, as stored.
    pub(super) fn stored_len(&self) -> usize {
        self.table.last().map_or(0, |&end| end as usize)
    }

    /// The table of blocks and the blocks, as they are stored: what
    /// another file with the same payload copies.
    pub(super) fn as_stored(&self) -> (&[u8], &[u8]) {
        let blocks = &self.storage.bytes()[self.blocks_at..self.blocks_at + self.stored_len()];
        (bytemuck::cast_slice(&self.table), blocks)
    }

    /// Whether every page of a block is in memory, so that reading it
    /// does not wait for the disk.
    fn is_resident(&self, block: usize) -> bool {
        match &*self.storage {
            #[cfg(feature = "mmap")]
            Storage::Mapped(_) => pages_resident(self.stored(block)),
            #[cfg(feature = "mmap")]
            Storage::Copied(_) => true,
            #[cfg(not(feature = "mmap"))]
            Storage::Owned(_) => true,
        }
    }

    /// Checks every block not checked yet (a compressed one decoded too),
    /// and fails at the first damaged one, naming the file as `path`.
    pub(super) fn verify(&self, path: &Path) -> Result<(), DbError> {
        let sums_good = (0..self.blocks.len()).all(|block| self.is_good(block * self.block_len));
        if sums_good && self.all_decode() {
            Ok(())
        } else {
            Err(DbError {
                path: path.to_owned(),
                problem: DbProblem::Checksum,
            })
        }
    }

    /// Whether every block of a compressed payload decodes to its length,
    /// in parallel (a payload read whole was decoded already).
    fn all_decode(&self) -> bool {
        if self.whole.is_some() {
            return true;
        }
        let decodes = (0..self.blocks.len()).into_par_iter().try_for_each_init(
            || (compressed::decompressor(), vec![0; self.block_len]),
            |(decompressor, out), block| {
                let len = self.payload_of(block).len();
                decode_into(decompressor, self.stored(block), &mut out[..len]).then_some(())
            },
        );
        if decodes.is_none() {
            self.damaged.store(true, Ordering::Relaxed);
        }
        decodes.is_some()
    }

    /// Whether a damaged block was met.
    pub(super) fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }
}

impl BlockFile for Checked {
    fn advise_will_need(&self, block: usize) {
        #[cfg(all(feature = "mmap", unix))]
        if let Storage::Mapped(map) = &*self.storage {
            let span = self.stored_span(block);
            // Advice only: a refusal changes nothing but the speed.
            let _ = map.advise_range(memmap2::Advice::WillNeed, span.start, span.len());
        }
        #[cfg(not(all(feature = "mmap", unix)))]
        let _ = block;
    }

    fn check_block(&self, block: usize) -> bool {
        match self.blocks[block].load(Ordering::Relaxed) {
            GOOD => return true,
            DAMAGED => return false,
            _ => {}
        }
        self.advise_will_need(block);
        let stored = self.stored(block);
        let good = is_intact(stored);
        self.blocks[block].store(if good { GOOD } else { DAMAGED }, Ordering::Relaxed);
        if !good {
            self.damaged.store(true, Ordering::Relaxed);
        }
        good
    }

    fn forget_asked(&self, block: usize, urgency: Urgency) {
        let _ = self.blocks[block].compare_exchange(
            asked(urgency),
            UNCHECKED,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
}

/// Writes `parts` one after the other as the file `path`, whole or not
/// at all (see [`crate::files::write_whole`]).
pub(super) fn write_whole(path: &Path, parts: &[&[u8]]) -> Result<(), DbError> {
    crate::files::write_whole(path, parts).map_err(|e| DbError {
        path: path.to_owned(),
        problem: DbProblem::from(e),
    })
}

/// Whether every page of `bytes`, a part of a mapped file, is in memory.
#[cfg(all(feature = "mmap", unix))]
fn pages_resident(bytes: &[u8]) -> bool {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let start = bytes.as_ptr() as usize;
    let aligned = start - start % page;
    let len = start + bytes.len() - aligned;
    let mut resident = [0u8; 256];
    let Some(pages) = resident.get_mut(..len.div_ceil(page)) else {
        return false;
    };
    // SAFETY: the range lies in a live mapping (page-aligned down, which
    // stays in the mapping as it begins on a page), and `pages` has one
    // byte for each of its pages.
    let done = unsafe { libc::mincore(aligned as *mut _, len, pages.as_mut_ptr().cast()) };
    done == 0 && pages.iter().all(|page| page & 1 != 0)
}

/// Without a way to ask the system, a mapped block is taken to be on disk.
#[cfg(all(feature = "mmap", not(unix)))]
fn pages_resident(_: &[u8]) -> bool {
    false
}
