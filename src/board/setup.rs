//! Position strings: text to an unchecked [`Setup`], then a checked
//! [`Position`].

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::{Bitboard, Color, Position, Rules, Square};

/// The points in the order a position string lists them: rank 7 down to
/// rank 1, each rank from left to right.
#[rustfmt::skip]
pub(crate) const READING_ORDER: [Square; Square::NUM] = {
    use Square::*;
    [
        A7, D7, G7,
        B6, D6, F6,
        C5, D5, E5,
        A4, B4, C4, E4, F4, G4,
        C3, D3, E3,
        B2, D2, F2,
        A1, D1, G1,
    ]
};

/// The number of points on ranks 7 down to 1.
const RANK_LENGTHS: [usize; 7] = [3, 3, 3, 6, 3, 3, 3];

/// The content of a position string, read but not yet checked against the
/// rules of a variant.
///
/// ```
/// # use morris::{Setup, Color};
/// let setup: Setup = ".../.W./.../.W..../.../.B./... b 7 8 3 2".parse()?;
/// assert_eq!(setup.side_to_move, Color::Black);
/// assert_eq!(setup.in_hand, [7, 8]);
/// assert_eq!(setup.to_string(), ".../.W./.../.W..../.../.B./... b 7 8 3 2");
/// # Ok::<(), morris::ParseFenError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The stones on the board, White's then Black's.
    pub stones: [Bitboard; 2],
    /// The side to move.
    pub side_to_move: Color,
    /// Stones in hand, White's then Black's.
    pub in_hand: [u32; 2],
    /// Plies since the last removal.
    pub plies_since_removal: u32,
    /// The move number.
    pub fullmove_number: u32,
}

impl FromStr for Setup {
    type Err = ParseFenError;

    /// Reads the six fields of a position string, separated by whitespace.
    fn from_str(text: &str) -> Result<Setup, ParseFenError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let &[board, side, white_hand, black_hand, plies, number] = fields.as_slice() else {
            return Err(ParseFenError::FieldCount {
                found: fields.len(),
            });
        };
        let side_to_move = match side {
            "w" => Color::White,
            "b" => Color::Black,
            _ => {
                return Err(ParseFenError::SideToMove {
                    token: side.to_owned(),
                });
            }
        };
        Ok(Setup {
            stones: parse_board(board)?,
            side_to_move,
            in_hand: [
                parse_count(white_hand, FenField::WhiteInHand)?,
                parse_count(black_hand, FenField::BlackInHand)?,
            ],
            plies_since_removal: parse_count(plies, FenField::PliesSinceRemoval)?,
            fullmove_number: parse_count(number, FenField::MoveNumber)?,
        })
    }
}

fn parse_board(board: &str) -> Result<[Bitboard; 2], ParseFenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != RANK_LENGTHS.len() {
        return Err(ParseFenError::RankCount { found: ranks.len() });
    }
    let mut stones = [Bitboard::EMPTY; 2];
    let mut points = READING_ORDER.iter();
    for ((rank, expected), rank_number) in ranks.iter().zip(RANK_LENGTHS).zip((1..=7).rev()) {
        let found = rank.chars().count();
        if found != expected {
            return Err(ParseFenError::RankLength {
                rank: rank_number,
                found,
                expected,
            });
        }
        for (c, &sq) in rank.chars().zip(points.by_ref()) {
            match c {
                'W' => stones[Color::White.index()] |= sq.into(),
                'B' => stones[Color::Black.index()] |= sq.into(),
                '.' => {}
                found => return Err(ParseFenError::BoardChar { found }),
            }
        }
    }
    Ok(stones)
}

/// Reads a whole number of plain digits (no sign) that fits in a `u32`.
fn parse_count(token: &str, field: FenField) -> Result<u32, ParseFenError> {
    token
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| token.parse().ok())
        .flatten()
        .ok_or_else(|| ParseFenError::Number {
            field,
            token: token.to_owned(),
        })
}

impl fmt::Display for Setup {
    /// Writes the position string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut points = READING_ORDER.iter();
        for (i, length) in RANK_LENGTHS.into_iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            for &sq in points.by_ref().take(length) {
                let c = if self.stones[Color::White.index()].contains(sq) {
                    'W'
                } else if self.stones[Color::Black.index()].contains(sq) {
                    'B'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
            }
        }
        write!(
            f,
            " {} {} {} {} {}",
            self.side_to_move.fen_char(),
            self.in_hand[0],
            self.in_hand[1],
            self.plies_since_removal,
            self.fullmove_number
        )
    }
}

impl From<&Position> for Setup {
    fn from(pos: &Position) -> Setup {
        Setup {
            stones: Color::ALL.map(|c| pos.stones(c)),
            side_to_move: pos.side_to_move(),
            in_hand: Color::ALL.map(|c| u32::from(pos.in_hand(c))),
            plies_since_removal: pos.plies_since_removal(),
            fullmove_number: pos.fullmove_number(),
        }
    }
}

impl Position {
    /// Checks a setup against `rules` and makes it a position.
    ///
    /// Accepted are exactly the setups in which each side has at most the
    /// variant's stones on the board and in hand together, and at least 3;
    /// and, in every variant but Lasker Morris (where a turn may slide
    /// instead of placing), hands that placing in turn produces: equal with
    /// White to move, White's one less with Black to move, or both empty.
    /// The move number is 1 or more. A [`Setup`] made by hand must also
    /// keep its stones on the 24 points, one colour a point.
    ///
    /// # Errors
    ///
    /// A [`SetupError`] that names the field at fault.
    pub fn from_setup(setup: &Setup, rules: Rules) -> Result<Position, SetupError> {
        let max = rules.variant.stones();
        let [white_stones, black_stones] = setup.stones;
        for (color, field) in [
            (Color::White, FenField::WhiteInHand),
            (Color::Black, FenField::BlackInHand),
        ] {
            let count = setup.in_hand[color.index()];
            if count > u32::from(max) {
                return Err(SetupError::HandTooLarge { field, count, max });
            }
        }
        if !Bitboard::FULL.is_superset(white_stones | black_stones) {
            return Err(SetupError::OffBoard);
        }
        if let Some(sq) = (white_stones & black_stones).first() {
            return Err(SetupError::SharedPoint(sq));
        }
        for color in Color::ALL {
            let count = setup.stones[color.index()].len() + setup.in_hand[color.index()];
            if count > u32::from(max) {
                return Err(SetupError::TooManyStones { color, count, max });
            }
            if count < 3 {
                return Err(SetupError::TooFewStones { color, count });
            }
        }
        let [white, black] = setup.in_hand;
        if !rules.variant.may_slide_while_placing() && (white, black) != (0, 0) {
            let (in_turn, expectation) = match setup.side_to_move {
                Color::White => (white == black, "equal hands"),
                Color::Black => (white + 1 == black, "white one less than black"),
            };
            if !in_turn {
                return Err(SetupError::UnevenHands {
                    field: FenField::WhiteInHand,
                    side: setup.side_to_move,
                    white: white as u8,
                    black: black as u8,
                    expectation,
                });
            }
        }
        if setup.fullmove_number == 0 {
            return Err(SetupError::MoveNumberZero);
        }
        // The hands are at most the variant's stones, so they fit a u8.
        Ok(Position::from_parts(
            setup.stones,
            [white as u8, black as u8],
            setup.side_to_move,
            rules,
            setup.plies_since_removal,
            setup.fullmove_number,
        ))
    }
}

/// A field of the position string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenField {
    /// The stones on the board.
    Board,
    /// `w` or `b`.
    SideToMove,
    /// White's stones in hand.
    WhiteInHand,
    /// Black's stones in hand.
    BlackInHand,
    /// Plies since the last removal.
    PliesSinceRemoval,
    /// The move number.
    MoveNumber,
}

impl std::fmt::Display for FenField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FenField::Board => "board",
            FenField::SideToMove => "side to move",
            FenField::WhiteInHand => "white in hand",
            FenField::BlackInHand => "black in hand",
            FenField::PliesSinceRemoval => "plies since removal",
            FenField::MoveNumber => "move number",
        })
    }
}

/// A position string whose text does not follow the format.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseFenError {
    /// Not six fields.
    #[error(
        "expected 6 fields (board, side, white in hand, black in hand, plies since removal, move number), found {found}"
    )]
    FieldCount {
        /// The number of fields read.
        found: usize,
    },
    /// The board is not seven groups.
    #[error("board: expected 7 groups separated by '/', found {found}")]
    RankCount {
        /// The number of groups read.
        found: usize,
    },
    /// A group has the wrong number of points.
    #[error("board: rank {rank} has {found} points, expected {expected}")]
    RankLength {
        /// The rank (7 down to 1).
        rank: u8,
        /// The number of characters read.
        found: usize,
        /// The number of points on that rank.
        expected: usize,
    },
    /// A character other than `W`, `B` and `.` on the board.
    #[error("board: '{found}' is not W, B or .")]
    BoardChar {
        /// The character read.
        found: char,
    },
    /// The side to move is not `w` or `b`.
    #[error("side to move: '{token}' is not w or b")]
    SideToMove {
        /// The text read.
        token: String,
    },
    /// A counter is not a number in range.
    #[error("{field}: '{token}' is not a whole number in range")]
    Number {
        /// The field.
        field: FenField,
        /// The text read.
        token: String,
    },
}

/// A position string that reads well but describes no reachable position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// More stones in hand than the variant has.
    #[error("{field}: {count} is more than the variant's {max} stones")]
    HandTooLarge {
        /// Which hand.
        field: FenField,
        /// The count read.
        count: u32,
        /// The variant's stones per side.
        max: u8,
    },
    /// More stones on the board and in hand than the variant has.
    #[error(
        "board: {color} has {count} stones on the board and in hand, more than the variant's {max}"
    )]
    TooManyStones {
        /// Whose stones.
        color: Color,
        /// Stones on the board plus in hand.
        count: u32,
        /// The variant's stones per side.
        max: u8,
    },
    /// A side with fewer than three stones: the game would already be over.
    #[error("board: {color} has only {count} stones on the board and in hand (3 is the least)")]
    TooFewStones {
        /// Whose stones.
        color: Color,
        /// Stones on the board plus in hand.
        count: u32,
    },
    /// Hands that placing in turn cannot produce.
    #[error(
        "{field}: with {side} to move, white has {white} and black {black} in hand; placing in turn gives {expectation}"
    )]
    UnevenHands {
        /// The field blamed.
        field: FenField,
        /// The side to move.
        side: Color,
        /// White's stones in hand.
        white: u8,
        /// Black's stones in hand.
        black: u8,
        /// What was expected instead.
        expectation: &'static str,
    },
    /// A bit beyond the 24 points (possible only in a hand-made [`crate::Setup`]).
    #[error("board: a stone lies off the 24 points")]
    OffBoard,
    /// A point given to both colours (possible only in a hand-made [`crate::Setup`]).
    #[error("board: {0} holds a stone of each colour")]
    SharedPoint(Square),
    /// Move number 0.
    #[error("move number: must be 1 or more")]
    MoveNumberZero,
}

/// A position string that could not be read or does not describe a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// The text does not follow the format.
    #[error(transparent)]
    Parse(#[from] ParseFenError),
    /// The position it describes cannot occur.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::rules::Variant;
    use crate::board::setup::FenError;

    const START: &str = ".../.../.../....../.../.../... w 9 9 0 1";

    #[test]
    fn start_position_string() {
        assert_eq!(Position::startpos().fen(), START);
        assert_eq!(
            Position::from_fen(START, Rules::default()),
            Ok(Position::startpos())
        );
    }

    #[test]
    fn whitespace_between_fields_may_be_any_run() {
        let pos = Position::from_fen(
            "  .../.../.../....../.../.../...\tw 9  9 0 1 ",
            Rules::default(),
        );
        assert_eq!(pos, Ok(Position::startpos()));
    }

    #[test]
    fn round_trips() {
        for fen in [
            ".../.W./.../.W..../.../.B./... b 7 8 3 2",
            "WWW/.../BBB/W....B/.../.../... w 0 0 17 40",
            "W.W/BB./.../....../.../.../WB. b 0 0 0 12",
        ] {
            assert_eq!(
                Position::from_fen(fen, Rules::default()).unwrap().fen(),
                fen
            );
        }
    }

    fn parse_error(fen: &str) -> ParseFenError {
        match Position::from_fen(fen, Rules::default()) {
            Err(FenError::Parse(err)) => err,
            other => panic!("{fen}: {other:?}"),
        }
    }

    fn setup_error(fen: &str, rules: Rules) -> SetupError {
        match Position::from_fen(fen, rules) {
            Err(FenError::Setup(err)) => err,
            other => panic!("{fen}: {other:?}"),
        }
    }

    #[test]
    fn malformed_strings_name_the_field() {
        use ParseFenError::*;
        let number = |field, token: &str| Number {
            field,
            token: token.into(),
        };
        let cases = [
            ("", FieldCount { found: 0 }),
            (
                ".../.../.../....../.../.../... w 9 9 0",
                FieldCount { found: 5 },
            ),
            (
                ".../.../.../....../.../.../... w 9 9 0 1 1",
                FieldCount { found: 7 },
            ),
            (
                ".../.../.../....../.../... w 9 9 0 1",
                RankCount { found: 6 },
            ),
            (
                ".../.../.../....../.../.../.../... w 9 9 0 1",
                RankCount { found: 8 },
            ),
            (
                "..../.../.../....../.../.../... w 9 9 0 1",
                RankLength {
                    rank: 7,
                    found: 4,
                    expected: 3,
                },
            ),
            (
                ".../.../.../...../.../.../... w 9 9 0 1",
                RankLength {
                    rank: 4,
                    found: 5,
                    expected: 6,
                },
            ),
            (
                ".../.../.../....../.../.../.. w 9 9 0 1",
                RankLength {
                    rank: 1,
                    found: 2,
                    expected: 3,
                },
            ),
            (
                ".../.../.../....../.../.../..x w 9 9 0 1",
                BoardChar { found: 'x' },
            ),
            (
                ".../.../.../....../.../.../..w w 9 9 0 1",
                BoardChar { found: 'w' },
            ),
            (
                ".../.../.../....../.../.../..é w 9 9 0 1",
                BoardChar { found: 'é' },
            ),
            (
                ".../.../.../....../.../.../... x 9 9 0 1",
                SideToMove { token: "x".into() },
            ),
            (
                ".../.../.../....../.../.../... white 9 9 0 1",
                SideToMove {
                    token: "white".into(),
                },
            ),
            (
                ".../.../.../....../.../.../... w nine 9 0 1",
                number(FenField::WhiteInHand, "nine"),
            ),
            (
                ".../.../.../....../.../.../... w 9 -1 0 1",
                number(FenField::BlackInHand, "-1"),
            ),
            (
                ".../.../.../....../.../.../... w 9 9 +3 1",
                number(FenField::PliesSinceRemoval, "+3"),
            ),
            (
                ".../.../.../....../.../.../... w 9 9 0 99999999999",
                number(FenField::MoveNumber, "99999999999"),
            ),
            (
                ".../.../.../....../.../.../... w 9 9 0 1.5",
                number(FenField::MoveNumber, "1.5"),
            ),
        ];
        for (fen, expected) in cases {
            assert_eq!(parse_error(fen), expected, "{fen}");
        }
    }

    #[test]
    fn impossible_positions_are_refused() {
        let nine = Rules::default();
        let cases = [
            (
                ".../.../.../....../.../.../... w 10 10 0 1",
                SetupError::HandTooLarge {
                    field: FenField::WhiteInHand,
                    count: 10,
                    max: 9,
                },
            ),
            (
                "WWW/WWW/WWW/W...../.../.../BBB w 0 0 0 1",
                SetupError::TooManyStones {
                    color: Color::White,
                    count: 10,
                    max: 9,
                },
            ),
            (
                "WWW/.../.../....../.../.../BBB w 7 7 0 5",
                SetupError::TooManyStones {
                    color: Color::White,
                    count: 10,
                    max: 9,
                },
            ),
            (
                "WW./.../.../....../.../.../BBB w 0 0 0 30",
                SetupError::TooFewStones {
                    color: Color::White,
                    count: 2,
                },
            ),
            (
                "WWW/.../.../....../.../.../B.. b 0 0 0 30",
                SetupError::TooFewStones {
                    color: Color::Black,
                    count: 1,
                },
            ),
            (
                "W../.../.../....../.../.../B.. w 8 7 2 2",
                SetupError::UnevenHands {
                    field: FenField::WhiteInHand,
                    side: Color::White,
                    white: 8,
                    black: 7,
                    expectation: "equal hands",
                },
            ),
            (
                "W../.../.../....../.../.../... b 8 8 1 1",
                SetupError::UnevenHands {
                    field: FenField::WhiteInHand,
                    side: Color::Black,
                    white: 8,
                    black: 8,
                    expectation: "white one less than black",
                },
            ),
            (
                "WWW/.../.../....../.../.../BBB w 0 0 0 0",
                SetupError::MoveNumberZero,
            ),
        ];
        for (fen, expected) in cases {
            assert_eq!(setup_error(fen, nine), expected, "{fen}");
        }
    }

    #[test]
    fn limits_follow_the_variant() {
        let twelve = Rules::new(Variant::Twelve);
        let lasker = Rules::new(Variant::Lasker);
        let fen = ".../.../.../....../.../.../... w 12 12 0 1";
        assert_eq!(Position::from_fen(fen, twelve).unwrap().fen(), fen);
        assert!(Position::from_fen(fen, Rules::default()).is_err());
        assert!(Position::from_fen(fen, lasker).is_err());
        // In Lasker Morris a turn may slide instead of placing, so the
        // hands need not be level.
        let uneven = "WW./.../.../....../.../.../B.. w 3 9 4 6";
        assert!(Position::from_fen(uneven, lasker).is_ok());
        assert!(Position::from_fen(uneven, Rules::default()).is_err());
        // Both hands empty is fine whoever is to move.
        assert!(Position::from_fen("WWW/.../.../....../.../.../BBB b 0 0 0 9", twelve).is_ok());
    }

    #[test]
    fn hand_made_setups_keep_stones_on_the_board() {
        let mut setup: Setup = "WWW/.../.../....../.../.../BBB w 0 0 0 9".parse().unwrap();
        setup.stones[0] |= Bitboard(1 << 30);
        assert_eq!(
            Position::from_setup(&setup, Rules::default()),
            Err(SetupError::OffBoard)
        );
        setup.stones[0] = Bitboard::from(Square::G1) | Square::D7.into() | Square::A1.into();
        assert_eq!(
            Position::from_setup(&setup, Rules::default()),
            Err(SetupError::SharedPoint(Square::G1))
        );
    }
}
