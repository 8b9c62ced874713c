//! The checksum of the files' headers, tables and blocks.

/// A checksum of 64-bit words (FNV-1a over words, then mixed): cheap, and
/// enough to catch a damaged file.
pub(super) fn checksum(bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut hash = 0xcbf2_9ce4_8422_2325u64 ^ bytes.len() as u64;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        hash = (hash ^ word).wrapping_mul(0x0000_0100_0000_01b3);
    }
    for &byte in chunks.remainder() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash ^ hash >> 29
}
