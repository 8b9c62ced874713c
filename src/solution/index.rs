//! Positions of a sector <-> dense indices, reduced by the board's 16
//! symmetries.
//!
//! A sector holds the positions with `mover` stones of the side to move and
//! `other` stones of the other side on the board, nothing in hand. The
//! index of a position is
//!
//! ```text
//! class(mover stones) * C(24 - mover, other) + rank(other stones among the free points)
//! ```
//!
//! where `class` numbers the symmetry classes of the mover's stones (each
//! class by its canonical member: the image of least rank) and `rank` is the
//! combinatorial (colex) rank of a set among the points left free. A
//! position is first brought to its canonical form: the symmetry that makes
//! the mover's stones canonical, and among those (when the mover's stones
//! are themselves symmetric) the one that gives the other stones the least
//! rank. Indices of non-canonical forms exist but are never used.
//!
//! Generation ranks every position it takes a move back into, so ranking
//! is table-driven: a set is ranked a byte of the board (a ring) at a time,
//! and the symmetries that make the mover's stones canonical are looked up
//! by their rank rather than tried all sixteen.

use std::sync::{LazyLock, OnceLock};

use crate::board::{Bitboard, Square, Symmetry, Variant};

/// `BINOMIAL[n][k]` = C(n, k) for n, k up to 24.
static BINOMIAL: [[u64; 25]; 25] = {
    let mut table = [[0u64; 25]; 25];
    let mut n = 0;
    while n <= 24 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + if k < n { table[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    table
};

/// C(n, k).
#[inline]
pub(super) fn binomial(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// Byte-wide tables for packing, unpacking and ranking sets of points.
struct ByteTables {
    /// `pack[w][x]`: the bits of `x` at the set bits of `w`, moved down
    /// next to each other (a byte of `pext`).
    pack: Vec<[u8; 256]>,
    /// `unpack[w][x]`: the low bits of `x` spread over the set bits of `w`
    /// (a byte of `pdep`).
    unpack: Vec<[u8; 256]>,
    /// `colex[b][below][x]`: what the bits of byte `b` (value `x`) add to
    /// the colex rank of a set with `below` points in the bytes before.
    colex: Vec<[[u32; 256]; 25]>,
}

static BYTES: LazyLock<ByteTables> = LazyLock::new(|| {
    let mut pack = vec![[0u8; 256]; 256];
    let mut unpack = vec![[0u8; 256]; 256];
    for w in 0..256usize {
        for x in 0..256usize {
            let (mut packed, mut spread, mut next) = (0u8, 0u8, 0);
            for bit in (0..8).filter(|bit| w >> bit & 1 == 1) {
                packed |= ((x >> bit & 1) as u8) << next;
                spread |= ((x >> next & 1) as u8) << bit;
                next += 1;
            }
            pack[w][x] = packed;
            unpack[w][x] = spread;
        }
    }
    let mut colex = vec![[[0u32; 256]; 25]; 3];
    for (byte, table) in colex.iter_mut().enumerate() {
        for (below, row) in table.iter_mut().enumerate() {
            for (x, rank) in row.iter_mut().enumerate() {
                let points = (0..8).filter(|bit| x >> bit & 1 == 1);
                *rank = points
                    .enumerate()
                    .map(|(i, bit)| binomial(8 * byte + bit, below + i + 1) as u32)
                    .sum();
            }
        }
    }
    ByteTables {
        pack,
        unpack,
        colex,
    }
});

/// The number of set bits of each byte: a table, since the portable
/// `count_ones` is a dozen instructions without the `popcnt` extension.
static POINTS_IN_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = (byte as u8).count_ones() as u8;
        byte += 1;
    }
    table
};

/// The bytes (rings) of a 24-bit mask.
#[inline]
fn ring_bytes(bits: u32) -> [usize; 3] {
    [0, 8, 16].map(|shift| (bits >> shift & 0xFF) as usize)
}

/// The colex rank of `set` among the sets of its size.
#[inline]
fn colex_rank(set: u32) -> u64 {
    let colex = &BYTES.colex;
    let [b0, b1, b2] = ring_bytes(set);
    let below1 = usize::from(POINTS_IN_BYTE[b0]);
    let below2 = below1 + usize::from(POINTS_IN_BYTE[b1]);
    u64::from(colex[0][0][b0] + colex[1][below1][b1] + colex[2][below2][b2])
}

/// The set of `size` points with colex rank `rank`, as a mask.
fn colex_unrank(mut rank: u64, size: usize) -> u32 {
    let mut set = 0;
    let mut p = 24;
    for i in (1..=size).rev() {
        // The largest p with C(p, i) <= rank; it falls as i does.
        p -= 1;
        while binomial(p, i) > rank {
            p -= 1;
        }
        rank -= binomial(p, i);
        set |= 1 << p;
    }
    set
}

/// The points of `set` that lie in `within`, numbered as `within`'s points
/// in order (the set brought down onto 0, 1, 2, ...).
#[inline]
fn pack(set: u32, within: u32) -> u32 {
    let bytes = &*BYTES;
    let (s, w) = (ring_bytes(set), ring_bytes(within));
    let mut packed = 0;
    let mut shift = 0;
    for ring in 0..3 {
        packed |= u32::from(bytes.pack[w[ring]][s[ring]]) << shift;
        shift += u32::from(POINTS_IN_BYTE[w[ring]]);
    }
    packed
}

/// The inverse of [`pack`]: points 0, 1, 2, ... of `packed` placed on the
/// points of `within` in order.
#[inline]
fn unpack(mut packed: u32, within: u32) -> u32 {
    let bytes = &*BYTES;
    let w = ring_bytes(within);
    let mut set = 0;
    for (ring, &byte) in w.iter().enumerate() {
        set |= u32::from(bytes.unpack[byte][(packed & 0xFF) as usize]) << (8 * ring);
        packed >>= POINTS_IN_BYTE[byte];
    }
    set
}

/// The colex rank of `set` among the sets of its size, counting only the
/// points of `within` (a set inside `within`, numbered as `within`'s points
/// in order).
#[inline]
pub(super) fn rank_within(set: Bitboard, within: Bitboard) -> u64 {
    colex_rank(pack(set.0, within.0))
}

/// The set of `size` points of `within` with colex rank `rank`.
pub(super) fn unrank_within(rank: u64, size: usize, within: Bitboard) -> Bitboard {
    Bitboard(unpack(colex_unrank(rank, size), within.0))
}

/// Every set of `size` points of `within`, in colex order.
pub(super) fn subsets(size: usize, within: Bitboard) -> impl Iterator<Item = Bitboard> {
    let top = 1u32 << within.len();
    // Sets of packed points in increasing order as masks, which is colex
    // order (the next is Gosper's).
    let mut packed = (1u32 << size) - 1;
    std::iter::from_fn(move || {
        if packed >= top {
            return None;
        }
        let here = Bitboard(unpack(packed, within.0));
        let low = packed & packed.wrapping_neg();
        let ripple = packed + low;
        packed = match low {
            // The empty set is the only one of size 0.
            0 => top,
            _ => (((ripple ^ packed) >> 2) / low) | ripple,
        };
        Some(here)
    })
}

/// The symmetry classes of the sets of one size.
struct Classes {
    /// The class of the set of each rank, and the symmetries that map it
    /// onto its class's canonical set (together: one memory access).
    of_rank: Vec<RankClass>,
    /// The canonical set of each class.
    canonical: Vec<Bitboard>,
}

/// The class of a set and the symmetries (bit i for `Symmetry::ALL[i]`)
/// that map it onto the class's canonical set.
#[derive(Clone, Copy, Default)]
struct RankClass {
    class: u32,
    to_canonical: u16,
}

fn classes(size: usize) -> &'static Classes {
    static TABLES: [OnceLock<Classes>; 25] = [const { OnceLock::new() }; 25];
    TABLES[size].get_or_init(|| {
        let count = binomial(24, size) as usize;
        let mut of_rank = vec![RankClass::default(); count];
        let mut canonical = Vec::new();
        // The inverse of each symmetry, found by its action on the points.
        let inverse: [usize; Symmetry::NUM] = std::array::from_fn(|i| {
            (0..Symmetry::NUM)
                .find(|&j| {
                    Bitboard::FULL
                        .iter()
                        .all(|sq| Symmetry::ALL[j].apply(Symmetry::ALL[i].apply(sq)) == sq)
                })
                .expect("a group")
        });
        // Sets in rank order: the first of an orbit not seen yet is its
        // least member, the canonical set of a new class. Its images are
        // marked at once, each with the symmetries that map it back (one
        // pass per class rather than sixteen images per set: this runs when
        // the databases are opened).
        for rank in 0..count {
            if of_rank[rank].to_canonical != 0 {
                continue;
            }
            let class = canonical.len() as u32;
            let set = unrank_within(rank as u64, size, Bitboard::FULL);
            canonical.push(set);
            for (i, sym) in Symmetry::ALL.iter().enumerate() {
                let image = colex_rank(sym.apply_bitboard(set).0) as usize;
                of_rank[image].class = class;
                of_rank[image].to_canonical |= 1 << inverse[i];
            }
        }
        Classes { of_rank, canonical }
    })
}

/// The canonical set of each symmetry class of the sets of `size` points,
/// in class order.
pub(super) fn classes_of(size: usize) -> &'static [Bitboard] {
    &classes(size).canonical
}

/// The index space of one sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SectorIndex {
    /// Stones of the side to move.
    pub mover: usize,
    /// Stones of the other side.
    pub other: usize,
}

/// The positions of a sector with one set of the mover's stones: the first
/// index of its class, the points its canonical set leaves free, and the
/// symmetries that make it canonical.
#[derive(Clone, Copy, Debug)]
pub(super) struct WithMover {
    first: u64,
    free: Bitboard,
    symmetries: u16,
}

impl WithMover {
    /// The canonical index of the position with `other` stones of the
    /// other side.
    #[inline]
    pub(super) fn index(self, other: Bitboard) -> u64 {
        let mut symmetries = self.symmetries;
        let mut best = u64::MAX;
        while symmetries != 0 {
            let sym = Symmetry::ALL[symmetries.trailing_zeros() as usize];
            symmetries &= symmetries - 1;
            best = best.min(self.first + rank_within(sym.apply_bitboard(other), self.free));
        }
        best
    }
}

/// A position of a sector brought to canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// Its index.
    pub index: u64,
    /// The number of symmetries that leave it unchanged (1 to 16).
    pub stabilizer: u32,
}

/// The fewest stones a side has in a sector: with two, it has lost.
pub(super) const MIN_STONES: usize = 3;

/// The most stones a side has in a sector the index spans: the most a
/// side starts with, of any variant.
pub(super) const MAX_STONES: usize = Variant::MOST_STONES as usize;

impl SectorIndex {
    /// Whether `mover` and `other` stones make a sector: `MIN_STONES` to
    /// `MAX_STONES` a side, and an empty point (a full board ends the game
    /// by the rules, so no database holds it).
    pub fn exists(mover: usize, other: usize) -> bool {
        let stones = MIN_STONES..=MAX_STONES;
        stones.contains(&mover) && stones.contains(&other) && mover + other < Square::ALL.len()
    }

    /// The sector of `mover` and `other` stones.
    pub fn new(mover: usize, other: usize) -> SectorIndex {
        SectorIndex { mover, other }
    }

    fn classes(self) -> &'static Classes {
        classes(self.mover)
    }

    /// The number of indices of one class of the mover's stones.
    fn per_class(self) -> u64 {
        binomial(24 - self.mover, self.other)
    }

    /// The number of symmetry classes of the mover's stones; the indices
    /// run class by class.
    pub fn class_count(self) -> usize {
        self.classes().canonical.len()
    }

    /// The number of indices (canonical or not).
    pub fn len(self) -> u64 {
        self.class_count() as u64 * self.per_class()
    }

    /// Whether the sector is empty (it never is).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The canonical index of the position with these stones.
    #[inline]
    pub fn canonical(self, mover: Bitboard, other: Bitboard) -> Canonical {
        let with_mover = self.with_mover(mover);
        let mut symmetries = with_mover.symmetries;
        let mut best = u64::MAX;
        let mut stabilizer = 0;
        while symmetries != 0 {
            let sym = Symmetry::ALL[symmetries.trailing_zeros() as usize];
            symmetries &= symmetries - 1;
            let index = with_mover.first + rank_within(sym.apply_bitboard(other), with_mover.free);
            if index < best {
                best = index;
                stabilizer = 1;
            } else if index == best {
                stabilizer += 1;
            }
        }
        Canonical {
            index: best,
            stabilizer,
        }
    }

    /// What the canonical indices of the positions with the mover's stones
    /// `mover` share, for the many positions that have them.
    #[inline]
    pub(super) fn with_mover(self, mover: Bitboard) -> WithMover {
        let classes = self.classes();
        let RankClass {
            class,
            to_canonical,
        } = classes.of_rank[colex_rank(mover.0) as usize];
        WithMover {
            first: u64::from(class) * self.per_class(),
            free: !classes.canonical[class as usize],
            symmetries: to_canonical,
        }
    }

    /// The stones at an index: (mover, other).
    #[inline]
    pub fn decode(self, index: u64) -> (Bitboard, Bitboard) {
        let per_class = self.per_class();
        let mover = self.classes().canonical[(index / per_class) as usize];
        let other = unrank_within(index % per_class, self.other, !mover);
        (mover, other)
    }

    /// The canonical positions of one class, in index order: (index,
    /// mover, other). Every position of a class is canonical unless the
    /// class's stones are themselves symmetric, so only those are checked.
    pub fn canonical_positions(
        self,
        class: usize,
    ) -> impl Iterator<Item = (u64, Bitboard, Bitboard)> {
        let classes = self.classes();
        let mover = classes.canonical[class];
        let symmetric = classes.of_rank[colex_rank(mover.0) as usize]
            .to_canonical
            .count_ones()
            > 1;
        let first = class as u64 * self.per_class();
        (first..)
            .zip(subsets(self.other, !mover & Bitboard::FULL))
            .map(move |(index, other)| (index, mover, other))
            .filter(move |&(index, mover, other)| {
                !symmetric || self.canonical(mover, other).index == index
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::types::Square;

    #[test]
    fn ranks_are_a_bijection() {
        for size in [0, 1, 3, 5] {
            let count = binomial(24, size);
            for rank in (0..count).step_by(97) {
                let set = unrank_within(rank, size, Bitboard::FULL);
                assert_eq!(set.len() as usize, size);
                assert_eq!(rank_within(set, Bitboard::FULL), rank);
            }
        }
        let within = !Bitboard(0b1011_0000_0000_0000_0000_0101);
        for rank in 0..binomial(19, 4) {
            let set = unrank_within(rank, 4, within);
            assert!(within.is_superset(set));
            assert_eq!(rank_within(set, within), rank);
        }
    }

    #[test]
    fn table_ranks_match_the_definition() {
        // The colex rank counts, for the i-th point p of the set (from 0),
        // the C(p', i + 1) sets of the same size below it; p' numbers p
        // among the points of `within`.
        let slow = |set: Bitboard, within: Bitboard| -> u64 {
            set.iter()
                .enumerate()
                .map(|(i, sq)| {
                    let below = (within.0 & ((1u32 << sq as u32) - 1)).count_ones();
                    binomial(below as usize, i + 1)
                })
                .sum()
        };
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let within = Bitboard(state as u32) & Bitboard::FULL;
            let set = Bitboard((state >> 32) as u32) & within;
            assert_eq!(rank_within(set, within), slow(set, within));
            let rank = slow(set, within);
            assert_eq!(unrank_within(rank, set.len() as usize, within), set);
        }
    }

    #[test]
    fn canonical_positions_are_the_canonical_indices_in_order() {
        for sector in [SectorIndex::new(3, 3), SectorIndex::new(4, 3)] {
            let listed: Vec<u64> = (0..sector.class_count())
                .flat_map(|class| sector.canonical_positions(class))
                .map(|(index, mover, other)| {
                    assert_eq!(sector.decode(index), (mover, other));
                    index
                })
                .collect();
            let canonical: Vec<u64> = (0..sector.len())
                .filter(|&index| {
                    let (mover, other) = sector.decode(index);
                    sector.canonical(mover, other).index == index
                })
                .collect();
            assert_eq!(listed, canonical);
        }
    }

    #[test]
    fn class_counts_follow_burnside() {
        // Sets of 3 points up to the 16 symmetries, and every set is in
        // exactly one class: the orbit sizes add up to C(24, 3).
        let classes = classes(3);
        let total: u64 = classes
            .canonical
            .iter()
            .map(|&set| {
                let fixed = Symmetry::ALL
                    .iter()
                    .filter(|s| s.apply_bitboard(set) == set)
                    .count();
                16 / fixed as u64
            })
            .sum();
        assert_eq!(total, binomial(24, 3));
    }

    #[test]
    fn symmetric_positions_share_an_index_and_decode_to_a_member() {
        let sector = SectorIndex::new(3, 4);
        let mover = Bitboard::from_squares(&[Square::A7, Square::D6, Square::C3]);
        let other = Bitboard::from_squares(&[Square::G1, Square::B4, Square::E5, Square::D2]);
        let canonical = sector.canonical(mover, other);
        for sym in Symmetry::ALL {
            let image = sector.canonical(sym.apply_bitboard(mover), sym.apply_bitboard(other));
            assert_eq!(image, canonical);
        }
        let (m, o) = sector.decode(canonical.index);
        assert!(
            Symmetry::ALL
                .iter()
                .any(|s| s.apply_bitboard(mover) == m && s.apply_bitboard(other) == o)
        );
        assert_eq!(sector.canonical(m, o).index, canonical.index);
    }
}
