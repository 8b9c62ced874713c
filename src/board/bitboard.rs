//! A set of points as a 24-bit mask.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::board::Square;

/// A set of points: bit `i` stands for the point with index `i`.
///
/// ```
/// # use morris::{Bitboard, Square};
/// let bb = Bitboard::from(Square::D6) | Square::B4.into();
/// assert_eq!(bb.len(), 2);
/// assert!(bb.contains(Square::B4));
/// assert_eq!(bb.iter().collect::<Vec<_>>(), vec![Square::D6, Square::B4]);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bitboard(pub u32);

impl Bitboard {
    /// No point.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 24 points.
    pub const FULL: Bitboard = Bitboard((1 << Square::NUM) - 1);

    /// The set holding only `sq`.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq as u32)
    }

    /// The set of the given points.
    pub const fn from_squares(squares: &[Square]) -> Bitboard {
        let mut bits = 0;
        let mut i = 0;
        while i < squares.len() {
            bits |= 1 << squares[i] as u32;
            i += 1;
        }
        Bitboard(bits)
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq as u32) != 0
    }

    /// The number of points in the set.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set has no point.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every point of `other` is in this set.
    #[inline]
    pub const fn is_superset(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The lowest-indexed point, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        Square::try_index(self.0.trailing_zeros() as usize)
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq as u32)
    }

    /// The set with `sq` taken out.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq as u32))
    }

    /// The points of the set, lowest index first.
    #[inline]
    pub fn iter(self) -> Squares {
        Squares(self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    #[inline]
    fn into_iter(self) -> Squares {
        self.iter()
    }
}

/// Iterator over the points of a [`Bitboard`], lowest index first.
#[derive(Clone, Debug)]
pub struct Squares(u32);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Square::try_index(index)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

macro_rules! impl_set_operator {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_method(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

impl_set_operator!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
impl_set_operator!(BitOr, bitor, BitOrAssign, bitor_assign, |);
impl_set_operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;

    /// The points of `self` that are not in `rhs`.
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;

    /// The complement within the 24 points.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|sq| sq.to_string()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complement_stays_on_the_board() {
        assert_eq!(!Bitboard::EMPTY, Bitboard::FULL);
        assert_eq!(!Bitboard::FULL, Bitboard::EMPTY);
        assert_eq!((!Bitboard::from(Square::D6)).len(), 23);
    }

    #[test]
    fn iteration_visits_each_point_once() {
        let all: Vec<Square> = Bitboard::FULL.iter().collect();
        assert_eq!(all, Square::ALL.to_vec());
        assert_eq!(Bitboard::FULL.iter().len(), 24);
        assert_eq!(
            Square::ALL.iter().copied().collect::<Bitboard>(),
            Bitboard::FULL
        );
    }

    #[test]
    fn set_operations() {
        let a = Bitboard::from_squares(&[Square::A7, Square::D7]);
        let b = Bitboard::from_squares(&[Square::D7, Square::G7]);
        assert_eq!(a & b, Bitboard::from(Square::D7));
        assert_eq!((a | b).len(), 3);
        assert_eq!(a ^ b, Bitboard::from_squares(&[Square::A7, Square::G7]));
        assert_eq!(a - b, Bitboard::from(Square::A7));
        assert!((a | b).is_superset(a));
        assert!(!a.is_superset(b));
        assert_eq!(a.first(), Some(Square::A7));
        assert_eq!(Bitboard::EMPTY.first(), None);
        assert_eq!(a.without(Square::A7).with(Square::G7), b);
    }
}
