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

use std::sync::OnceLock;

use crate::bitboard::Bitboard;
use crate::symmetry::Symmetry;
use crate::types::Square;

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
pub fn binomial(n: usize, k: usize) -> u64 {
    if k > n { 0 } else { BINOMIAL[n][k] }
}

/// The colex rank of `set` among the sets of its size, counting only the
/// points of `within` (a set inside `within`, numbered as `within`'s points
/// in order).
#[inline]
pub fn rank_within(set: Bitboard, within: Bitboard) -> u64 {
    let mut rank = 0;
    for (i, sq) in set.iter().enumerate() {
        let below = Bitboard(within.0 & ((1u32 << sq as u32) - 1)).len() as usize;
        rank += binomial(below, i + 1);
    }
    rank
}

/// The set of `size` points of `within` with colex rank `rank`.
pub fn unrank_within(mut rank: u64, size: usize, within: Bitboard) -> Bitboard {
    let points: Vec<Square> = within.iter().collect();
    let mut set = Bitboard::EMPTY;
    for i in (1..=size).rev() {
        // The largest position p with C(p, i) <= rank.
        let mut p = i - 1;
        while p + 1 < points.len() && binomial(p + 1, i) <= rank {
            p += 1;
        }
        rank -= binomial(p, i);
        set = set.with(points[p]);
    }
    set
}

/// The symmetry classes of the sets of one size.
struct Classes {
    /// Class number of each canonical set, by rank; `u32::MAX` otherwise.
    class_of_rank: Vec<u32>,
    /// The canonical set of each class.
    canonical: Vec<Bitboard>,
}

fn classes(size: usize) -> &'static Classes {
    static TABLES: [OnceLock<Classes>; 25] = [const { OnceLock::new() }; 25];
    TABLES[size].get_or_init(|| {
        let count = binomial(24, size) as usize;
        let mut class_of_rank = vec![u32::MAX; count];
        let mut canonical = Vec::new();
        for rank in 0..count as u64 {
            let set = unrank_within(rank, size, Bitboard::FULL);
            let least = Symmetry::ALL
                .iter()
                .map(|s| rank_within(s.apply_bitboard(set), Bitboard::FULL))
                .min()
                .unwrap_or(rank);
            if least == rank {
                class_of_rank[rank as usize] = canonical.len() as u32;
                canonical.push(set);
            }
        }
        Classes {
            class_of_rank,
            canonical,
        }
    })
}

/// The index space of one sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SectorIndex {
    /// Stones of the side to move.
    pub mover: usize,
    /// Stones of the other side.
    pub other: usize,
}

/// A position of a sector brought to canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// Its index.
    pub index: u64,
    /// The number of symmetries that leave it unchanged (1 to 16).
    pub stabilizer: u32,
}

impl SectorIndex {
    /// The sector of `mover` and `other` stones.
    pub fn new(mover: usize, other: usize) -> SectorIndex {
        SectorIndex { mover, other }
    }

    fn classes(self) -> &'static Classes {
        classes(self.mover)
    }

    /// The number of indices (canonical or not).
    pub fn len(self) -> u64 {
        self.classes().canonical.len() as u64 * binomial(24 - self.mover, self.other)
    }

    /// Whether the sector is empty (it never is for 3 to 12 stones a side).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The canonical index of the position with these stones.
    pub fn canonical(self, mover: Bitboard, other: Bitboard) -> Canonical {
        let classes = self.classes();
        let per_class = binomial(24 - self.mover, self.other);
        let mut best = u64::MAX;
        let mut stabilizer = 0;
        for sym in Symmetry::ALL {
            let m = sym.apply_bitboard(mover);
            let class = classes.class_of_rank[rank_within(m, Bitboard::FULL) as usize];
            if class == u32::MAX {
                continue;
            }
            let index = u64::from(class) * per_class + rank_within(sym.apply_bitboard(other), !m);
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

    /// The stones at an index: (mover, other).
    pub fn decode(self, index: u64) -> (Bitboard, Bitboard) {
        let per_class = binomial(24 - self.mover, self.other);
        let mover = self.classes().canonical[(index / per_class) as usize];
        let other = unrank_within(index % per_class, self.other, !mover);
        (mover, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
