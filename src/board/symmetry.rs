//! The 16 symmetries of the board: the 8 of the square (turns and
//! reflections) times swapping the inner and outer rings.

use crate::board::{Bitboard, Color, Position, Square};

/// A symmetry of the board, which maps lines to lines and neighbours to
/// neighbours in every variant.
///
/// ```
/// # use morris::{Square, Symmetry};
/// let quarter_turn = Symmetry::ALL[1];
/// assert_eq!(quarter_turn.apply(Square::A7), Square::G7);
/// assert!(Symmetry::ALL.iter().all(|s| s.apply(Square::D6) != Square::D7));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The number of symmetries.
    pub const NUM: usize = 16;

    /// Every symmetry, the identity first.
    pub const ALL: [Symmetry; Symmetry::NUM] = {
        let mut all = [Symmetry(0); Symmetry::NUM];
        let mut i = 0;
        while i < Symmetry::NUM {
            all[i] = Symmetry(i as u8);
            i += 1;
        }
        all
    };

    /// Clockwise quarter turns, then a left-right mirror if bit 2 is set,
    /// then the inner and outer rings swapped if bit 3 is set.
    const fn map(self, sq: Square) -> Square {
        let turns = (self.0 & 3) as usize;
        let mut place = (sq.place() + 2 * turns) % 8;
        if self.0 & 4 != 0 {
            place = (10 - place) % 8;
        }
        let ring = if self.0 & 8 != 0 {
            2 - sq.ring()
        } else {
            sq.ring()
        };
        Square::from_ring_place(ring, place)
    }

    /// The image of a point.
    #[inline]
    pub fn apply(self, sq: Square) -> Square {
        IMAGES[self.0 as usize][sq.index()]
    }

    /// The image of a set of points.
    ///
    /// Each ring is one byte of the mask, so a quarter turn rotates every
    /// byte by two bits, the mirror maps every byte through a table, and
    /// the ring swap exchanges the first and last bytes.
    #[inline]
    pub fn apply_bitboard(self, bb: Bitboard) -> Bitboard {
        let mut bits = bb.0;
        let shift = 2 * u32::from(self.0 & 3);
        if shift != 0 {
            let kept_left = (0xFFu32 << shift) & 0xFF;
            let kept_right = 0xFFu32 >> (8 - shift);
            bits = ((bits << shift) & (kept_left * 0x01_01_01))
                | ((bits >> (8 - shift)) & (kept_right * 0x01_01_01));
        }
        if self.0 & 4 != 0 {
            let [outer, middle, inner, _] = bits.to_le_bytes();
            bits = u32::from_le_bytes([
                MIRRORED_RING[outer as usize],
                MIRRORED_RING[middle as usize],
                MIRRORED_RING[inner as usize],
                0,
            ]);
        }
        if self.0 & 8 != 0 {
            let [outer, middle, inner, _] = bits.to_le_bytes();
            bits = u32::from_le_bytes([inner, middle, outer, 0]);
        }
        Bitboard(bits)
    }

    /// The image of a position: every stone moved, all else kept.
    pub fn apply_position(self, pos: &Position) -> Position {
        Position::from_parts(
            Color::ALL.map(|c| self.apply_bitboard(pos.stones(c))),
            Color::ALL.map(|c| pos.in_hand(c)),
            pos.side_to_move(),
            pos.rules(),
            pos.plies_since_removal(),
            pos.fullmove_number(),
        )
    }
}

/// A ring's byte mirrored left to right: place p goes to place (10 - p) mod 8.
static MIRRORED_RING: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut place = 0;
        while place < 8 {
            if byte & (1 << place) != 0 {
                table[byte] |= 1 << ((10 - place) % 8);
            }
            place += 1;
        }
        byte += 1;
    }
    table
};

/// The image of every point under every symmetry.
static IMAGES: [[Square; Square::NUM]; Symmetry::NUM] = {
    let mut images = [[Square::A7; Square::NUM]; Symmetry::NUM];
    let mut s = 0;
    while s < Symmetry::NUM {
        let mut i = 0;
        while i < Square::NUM {
            images[s][i] = Symmetry::ALL[s].map(Square::ALL[i]);
            i += 1;
        }
        s += 1;
    }
    images
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::rules::Variant;

    #[test]
    fn every_symmetry_is_a_distinct_permutation() {
        let mut seen = Vec::new();
        for sym in Symmetry::ALL {
            let images: Vec<Square> = Square::ALL.iter().map(|&sq| sym.apply(sq)).collect();
            assert_eq!(images.iter().copied().collect::<Bitboard>(), Bitboard::FULL);
            assert!(!seen.contains(&images));
            seen.push(images);
        }
    }

    #[test]
    fn symmetries_keep_lines_and_neighbours() {
        for variant in Variant::ALL {
            let tables = variant.tables();
            for sym in Symmetry::ALL {
                for &mill in tables.mills() {
                    assert!(
                        tables.mills().contains(&sym.apply_bitboard(mill)),
                        "{sym:?} {mill:?}"
                    );
                }
                for sq in Square::ALL {
                    assert_eq!(
                        sym.apply_bitboard(tables.neighbors(sq)),
                        tables.neighbors(sym.apply(sq))
                    );
                }
            }
        }
    }

    #[test]
    fn bitboard_images_agree_with_point_images() {
        let sets = [
            0x00_00_01u32,
            0x81_42_24,
            0xFF_00_0F,
            0x12_34_56,
            0xAB_CD_EF,
            0xFF_FF_FF,
        ];
        for bits in sets {
            let bb = Bitboard(bits);
            for sym in Symmetry::ALL {
                let by_points: Bitboard = bb.iter().map(|sq| sym.apply(sq)).collect();
                assert_eq!(sym.apply_bitboard(bb), by_points, "{sym:?} {bits:x}");
            }
        }
    }

    #[test]
    fn ring_swap_and_mirror() {
        let swap = Symmetry(8);
        assert_eq!(swap.apply(Square::A7), Square::C5);
        assert_eq!(swap.apply(Square::B4), Square::B4);
        let mirror = Symmetry(4);
        assert_eq!(mirror.apply(Square::A7), Square::G7);
        assert_eq!(mirror.apply(Square::D1), Square::D1);
        assert_eq!(mirror.apply(Square::C4), Square::E4);
    }
}
