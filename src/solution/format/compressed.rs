//! A payload compressed in small blocks, each decoded on its own: a probe
//! decodes one block, not the file, and a thread keeps the blocks it
//! decoded lately.
//!
//! ```text
//! block table   one u64 per block and one more: where each block begins
//!               in the blocks, then where they end
//! blocks        each a u64 checksum of its frame, then the frame: a
//!               block of payload bytes (fewer in the last) compressed by
//!               zstd
//! ```
//!
//! Blocks are small because a probe pays for decoding a whole block, and
//! large enough for the compression to see the runs of equal values that
//! nearby indices have. Each kind of payload has its block length: the
//! values the search reads most, in short blocks (at most
//! [`SHORT_BLOCK`]), those read seldom in longer ones, which compress
//! better (at most [`LONG_BLOCK`]).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::checksum::checksum;

/// The longest block of a payload read often: a thread keeps many of them
/// decoded.
pub(super) const SHORT_BLOCK: usize = 6 << 10;

/// The longest block of a payload read seldom: a thread keeps fewer.
pub(super) const LONG_BLOCK: usize = 1 << 14;

/// Bytes of a block's checksum, before its frame.
pub(super) const SUM_BYTES: usize = 8;

/// A payload compressed block by block, as a file stores it.
pub(super) struct Compressed {
    /// The block table (see the module's documentation).
    pub(super) table: Vec<u64>,
    /// The blocks, each its checksum and its frame.
    pub(super) blocks: Vec<u8>,
}

impl Compressed {
    /// `payload` compressed in blocks of `block` bytes at zstd `level`,
    /// the blocks in parallel.
    pub(super) fn new(payload: &[u8], block: usize, level: i32) -> Compressed {
        debug_assert!(block <= LONG_BLOCK);
        let frames: Vec<Vec<u8>> = payload
            .par_chunks(block)
            .map_init(
                || zstd::bulk::Compressor::new(level).expect("a zstd compression context"),
                |compressor, block| {
                    let frame = compressor
                        .compress(block)
                        .expect("zstd compresses any input into a growable buffer");
                    let mut stored = Vec::with_capacity(SUM_BYTES + frame.len());
                    stored.extend_from_slice(&checksum(&frame).to_ne_bytes());
                    stored.extend_from_slice(&frame);
                    stored
                },
            )
            .collect();
        let mut table = Vec::with_capacity(frames.len() + 1);
        let mut at = 0u64;
        table.push(at);
        for frame in &frames {
            at += frame.len() as u64;
            table.push(at);
        }
        Compressed {
            table,
            blocks: frames.concat(),
        }
    }

    /// The block table's bytes, as written.
    pub(super) fn table_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.table)
    }
}

/// The number of blocks of `block` bytes of a payload of `len` bytes.
pub(super) fn block_count(len: usize, block: usize) -> usize {
    len.div_ceil(block)
}

/// Whether `stored` (a block's checksum and frame) matches its checksum.
pub(super) fn is_intact(stored: &[u8]) -> bool {
    match stored.split_at_checked(SUM_BYTES) {
        Some((sum, frame)) => {
            u64::from_ne_bytes(sum.try_into().expect("eight bytes")) == checksum(frame)
        }
        None => false,
    }
}

/// Decodes `stored` (a block's checksum and frame, checked) into `out`,
/// which it must fill exactly: false if the frame does not.
pub(super) fn decode_into(
    decompressor: &mut zstd::bulk::Decompressor<'static>,
    stored: &[u8],
    out: &mut [u8],
) -> bool {
    let frame = &stored[SUM_BYTES..];
    let len = out.len();
    // A frame that would write more than `out` holds is refused by zstd.
    matches!(decompressor.decompress_to_buffer(frame, out), Ok(n) if n == len)
}

/// A new decompressor.
pub(super) fn decompressor() -> zstd::bulk::Decompressor<'static> {
    zstd::bulk::Decompressor::new().expect("a zstd decompression context")
}

/// A number no other open file has, naming its blocks in the cache.
pub(super) fn new_file_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Slots for short decoded blocks a thread keeps, for as long as it lives
/// (a search's threads, one search), each block in the one slot its key
/// hashes to: a power of two. The end-of-placing solver reads blocks of
/// many sectors at random, and slows down much with fewer.
const SHORT_SLOTS: usize = 1 << 14;

/// Slots for long decoded blocks a thread keeps, as [`SHORT_SLOTS`].
const LONG_SLOTS: usize = 1 << 10;

/// The blocks of one length class a thread decoded lately, by file and
/// block.
struct Decoded {
    /// The file and block in each slot; 0 for none (file ids begin at 1).
    keys: Vec<u64>,
    /// A block's bytes for each slot.
    bytes: Vec<u8>,
    /// Bytes a slot holds.
    slot_len: usize,
    decompressor: zstd::bulk::Decompressor<'static>,
}

impl Decoded {
    fn new(slots: usize, slot_len: usize) -> Decoded {
        Decoded {
            keys: vec![0; slots],
            bytes: vec![0; slots * slot_len],
            slot_len,
            decompressor: decompressor(),
        }
    }
}

thread_local! {
    static SHORT: RefCell<Option<Decoded>> = const { RefCell::new(None) };
    static LONG: RefCell<Option<Decoded>> = const { RefCell::new(None) };
}

/// Byte `at` of block `block` of the file `file`, `len` bytes long when
/// decoded, from this thread's decoded blocks, decoding `stored` (its
/// checksum and frame, checked) if it is not there: `None` if the frame
/// does not decode to `len` bytes.
pub(super) fn byte(file: u64, block: usize, stored: &[u8], len: usize, at: usize) -> Option<u8> {
    let (cache, slots, slot_len) = if len <= SHORT_BLOCK {
        (&SHORT, SHORT_SLOTS, SHORT_BLOCK)
    } else {
        (&LONG, LONG_SLOTS, LONG_BLOCK)
    };
    // The block goes in the slot its key hashes to, in place of another.
    let key = file << 32 | block as u64;
    let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - slots.trailing_zeros())) as usize;
    cache.with_borrow_mut(|decoded| {
        let decoded = decoded.get_or_insert_with(|| Decoded::new(slots, slot_len));
        let start = slot * decoded.slot_len;
        let bytes = &mut decoded.bytes[start..start + len];
        if decoded.keys[slot] != key {
            decoded.keys[slot] = 0;
            if !decode_into(&mut decoded.decompressor, stored, bytes) {
                return None;
            }
            decoded.keys[slot] = key;
        }
        Some(bytes[at])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_decodes_to_its_bytes_and_a_changed_frame_is_found() {
        // Runs, as the values of nearby indices have, and a short last block.
        const BLOCK: usize = 4096;
        let payload: Vec<u8> = (0..3 * BLOCK + 100)
            .map(|i| (i / 37 % 5) as u8 * 3)
            .collect();
        let compressed = Compressed::new(&payload, BLOCK, 12);
        assert_eq!(
            compressed.table.len(),
            block_count(payload.len(), BLOCK) + 1
        );
        assert!(compressed.blocks.len() < payload.len() / 4, "runs compress");
        let id = new_file_id();
        for (block, chunk) in payload.chunks(BLOCK).enumerate() {
            let span = compressed.table[block] as usize..compressed.table[block + 1] as usize;
            let stored = &compressed.blocks[span];
            assert!(is_intact(stored));
            for at in [0, chunk.len() / 2, chunk.len() - 1] {
                assert_eq!(byte(id, block, stored, chunk.len(), at), Some(chunk[at]));
            }
            let mut changed = stored.to_vec();
            changed[SUM_BYTES + 1] ^= 0x10;
            assert!(!is_intact(&changed));
        }
        // A frame of the wrong length decodes to nothing.
        let first = &compressed.blocks[..compressed.table[1] as usize];
        assert_eq!(byte(new_file_id(), 0, first, BLOCK - 1, 0), None);
        assert!(!is_intact(&first[..SUM_BYTES - 1]));
    }
}
