//! A payload compressed in small blocks, each decoded on its own: a probe
//! decodes one block, not the file, and a thread keeps the blocks it
//! decoded lately.
//!
//! ```text
//! block table   one u64 per block and one more: where each block begins
//!               in the blocks, then where they end
//! blocks        each a u64 checksum of its frame, then the frame: BLOCK
//!               payload bytes (fewer in the last) compressed by zstd
//! ```
//!
//! Blocks are small because a probe pays for decoding a whole block, and
//! large enough for the compression to see the runs of equal values that
//! nearby indices have.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::checksum::checksum;

/// Payload bytes per block.
pub(super) const BLOCK: usize = 1 << 12;

/// The zstd level files are written at: higher levels make smaller files
/// only by a few percent, and write several times slower.
const LEVEL: i32 = 12;

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
    /// `payload` compressed, its blocks in parallel.
    pub(super) fn new(payload: &[u8]) -> Compressed {
        let frames: Vec<Vec<u8>> = payload
            .par_chunks(BLOCK)
            .map_init(
                || zstd::bulk::Compressor::new(LEVEL).expect("a zstd compression context"),
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

/// The number of blocks of a payload of `len` bytes.
pub(super) fn block_count(len: usize) -> usize {
    len.div_ceil(BLOCK)
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

/// Slots for decoded blocks a thread keeps, for as long as it lives (a
/// search's threads, one search), each block in the one slot its key
/// hashes to: a power of two, 16 MiB a thread at most.
const SLOTS: usize = 4096;

/// The blocks a thread decoded lately, by file and block.
struct Decoded {
    /// The file and block in each slot; 0 for none (file ids begin at 1).
    keys: Vec<u64>,
    /// `SLOTS` blocks of `BLOCK` bytes.
    bytes: Vec<u8>,
    decompressor: zstd::bulk::Decompressor<'static>,
}

thread_local! {
    static DECODED: RefCell<Option<Decoded>> = const { RefCell::new(None) };
}

/// Byte `at` of block `block` of the file `file`, `len` bytes long when
/// decoded, from this thread's decoded blocks, decoding `stored` (its
/// checksum and frame, checked) if it is not there: `None` if the frame
/// does not decode to `len` bytes.
pub(super) fn byte(file: u64, block: usize, stored: &[u8], len: usize, at: usize) -> Option<u8> {
    // The block goes in the slot its key hashes to, in place of another.
    let key = file << 32 | block as u64;
    let slot = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
    DECODED.with_borrow_mut(|decoded| {
        let decoded = decoded.get_or_insert_with(|| Decoded {
            keys: vec![0; SLOTS],
            bytes: vec![0; SLOTS * BLOCK],
            decompressor: decompressor(),
        });
        let bytes = &mut decoded.bytes[slot * BLOCK..slot * BLOCK + len];
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
        let payload: Vec<u8> = (0..3 * BLOCK + 100)
            .map(|i| (i / 37 % 5) as u8 * 3)
            .collect();
        let compressed = Compressed::new(&payload);
        assert_eq!(compressed.table.len(), block_count(payload.len()) + 1);
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
