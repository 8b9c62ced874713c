//! The basic vocabulary of the game: colours, the 24 points, phases.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// One of the two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that moves first.
    White,
    /// The side that moves second.
    Black,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other side.
    ///
    /// ```
    /// # use morris::Color;
    /// assert_eq!(Color::White.opponent(), Color::Black);
    /// ```
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The name in lower case, as in running text: `white` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// 0 for White, 1 for Black: an index into per-colour arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The letter used in position strings: `w` or `b`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

impl FromStr for Color {
    type Err = ParseColorError;

    /// Reads `white` or `black`, in any case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Color::ALL
            .into_iter()
            .find(|color| color.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| ParseColorError {
                token: text.to_owned(),
            })
    }
}

/// What a side does with its turn, which depends on its own stones only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Stones in hand: the side places (in Lasker Morris it may also slide).
    Placing,
    /// No stones in hand: the side slides a stone to a neighbouring point.
    Moving,
    /// Exactly three stones, none in hand, flying on: any empty point.
    Flying,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Placing => "placing",
            Phase::Moving => "moving",
            Phase::Flying => "flying",
        })
    }
}

/// One of the 24 points of the board, named as on a chess board.
///
/// The discriminants number the points ring by ring (outer, middle, inner),
/// clockwise from each ring's top-left corner. With that order a quarter
/// turn of the board moves every point two places along its ring, and
/// swapping the inner and outer rings swaps two bytes of a bitboard, which
/// keeps the board's symmetries cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[rustfmt::skip]
#[allow(missing_docs)]
pub enum Square {
    A7, D7, G7, G4, G1, D1, A1, A4,
    B6, D6, F6, F4, F2, D2, B2, B4,
    C5, D5, E5, E4, E3, D3, C3, C4,
}

/// File letter and rank digit of every point, in `Square` order.
const COORDS: [(u8, u8); Square::NUM] = [
    (b'a', b'7'),
    (b'd', b'7'),
    (b'g', b'7'),
    (b'g', b'4'),
    (b'g', b'1'),
    (b'd', b'1'),
    (b'a', b'1'),
    (b'a', b'4'),
    (b'b', b'6'),
    (b'd', b'6'),
    (b'f', b'6'),
    (b'f', b'4'),
    (b'f', b'2'),
    (b'd', b'2'),
    (b'b', b'2'),
    (b'b', b'4'),
    (b'c', b'5'),
    (b'd', b'5'),
    (b'e', b'5'),
    (b'e', b'4'),
    (b'e', b'3'),
    (b'd', b'3'),
    (b'c', b'3'),
    (b'c', b'4'),
];

impl Square {
    /// The number of points.
    pub const NUM: usize = 24;

    /// Every point, in index order.
    #[rustfmt::skip]
    pub const ALL: [Square; Square::NUM] = {
        use Square::*;
        [
            A7, D7, G7, G4, G1, D1, A1, A4,
            B6, D6, F6, F4, F2, D2, B2, B4,
            C5, D5, E5, E4, E3, D3, C3, C4,
        ]
    };

    /// The point with this index (0 to 23), if there is one.
    ///
    /// ```
    /// # use morris::Square;
    /// assert_eq!(Square::try_index(0), Some(Square::A7));
    /// assert_eq!(Square::try_index(24), None);
    /// ```
    #[inline]
    pub const fn try_index(index: usize) -> Option<Square> {
        if index < Square::NUM {
            Some(Square::ALL[index])
        } else {
            None
        }
    }

    /// This point's index, 0 to 23.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The ring: 0 outer, 1 middle, 2 inner.
    #[inline]
    pub const fn ring(self) -> usize {
        self as usize / 8
    }

    /// The place along the ring, clockwise from its top-left corner (0 to 7):
    /// even places are corners, odd places midpoints.
    #[inline]
    pub const fn place(self) -> usize {
        self as usize % 8
    }

    /// The point on `ring` at `place` (see [`Square::place`]).
    #[inline]
    pub const fn from_ring_place(ring: usize, place: usize) -> Square {
        Square::ALL[ring * 8 + place % 8]
    }

    /// The file letter, `a` to `g`.
    pub const fn file(self) -> char {
        COORDS[self as usize].0 as char
    }

    /// The rank digit, `1` to `7`.
    pub const fn rank(self) -> char {
        COORDS[self as usize].1 as char
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file(), self.rank())
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses a point name such as `d6`, in either case.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let bytes = s.as_bytes();
        if let [file, rank] = bytes {
            let file = file.to_ascii_lowercase();
            if let Some(index) = COORDS.iter().position(|&c| c == (file, *rank)) {
                return Ok(Square::ALL[index]);
            }
        }
        Err(ParseSquareError {
            token: s.to_owned(),
        })
    }
}

/// A colour name that is neither `white` nor `black`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a colour (white, black)")]
pub struct ParseColorError {
    /// The text that was read.
    pub token: String,
}

/// A point name that is not one of the 24 points.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a point (a7, d7, g7, b6, ... g1)")]
pub struct ParseSquareError {
    /// The text that was read.
    pub token: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_read_their_names_in_any_case() {
        for color in Color::ALL {
            assert_eq!(color.name().parse(), Ok(color));
            assert_eq!(color.to_string().parse(), Ok(color));
            assert_eq!(color.name(), color.to_string().to_lowercase());
        }
        assert_eq!("BLACK".parse(), Ok(Color::Black));
        assert!("w".parse::<Color>().is_err());
        assert!("".parse::<Color>().is_err());
    }

    #[test]
    fn names_round_trip_and_are_distinct() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.to_string().to_uppercase().parse::<Square>(), Ok(sq));
            assert_eq!(Square::from_ring_place(sq.ring(), sq.place()), sq);
        }
        let mut names: Vec<String> = Square::ALL.iter().map(|s| s.to_string()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Square::NUM);
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in ["", "d", "d4", "a2", "h1", "a0", "d66", "é1", "4d"] {
            assert!(bad.parse::<Square>().is_err(), "{bad} accepted");
        }
    }
}
