//! GBGP's position strings (`b:wb4,c4:bd2:2`): read into an unchecked
//! [`GbgpPosition`], checked into a [`Position`], and written back.
//!
//! The string has four fields separated by `:`: the side to move (`w` or
//! `b`), one colour's stones (its letter, then its points separated by
//! commas), the other colour's, and the move number (1 at the start, one
//! more after each turn of Black's). It holds no stones in hand and no
//! counter of the N-move rule: the hands follow from the move number, as
//! every turn places a stone until both sides have placed them all, and
//! the counter starts at 0.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::setup::READING_ORDER;
use crate::board::{Bitboard, Color, Position, Rules, Setup, SetupError, Square, Variant};

/// A GBGP position string, read but not yet checked against a variant.
///
/// ```
/// # use morris::uci::GbgpPosition;
/// # use morris::{Color, Rules, Square};
/// let read: GbgpPosition = "b:wb4,c4:bd2:2".parse()?;
/// assert_eq!(read.side_to_move, Color::Black);
/// assert!(read.stones[Color::Black.index()].contains(Square::D2));
/// let pos = read.position(Rules::default())?;
/// assert_eq!(pos.fen(), ".../.../.../.WW.../.../.B./... b 7 8 0 2");
/// assert_eq!(GbgpPosition::from_position(&pos)?.to_string(), "b:wb4,c4:bd2:2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GbgpPosition {
    /// The side to move.
    pub side_to_move: Color,
    /// The stones on the board, White's then Black's.
    pub stones: [Bitboard; 2],
    /// The move number, 1 or more.
    pub move_number: u32,
}

impl GbgpPosition {
    /// The start position, `w:w:b:1`.
    pub const START: GbgpPosition = GbgpPosition {
        side_to_move: Color::White,
        stones: [Bitboard::EMPTY; 2],
        move_number: 1,
    };

    /// The stones each side has still to place at this move number in
    /// `variant`, White's then Black's: every turn so far placed a stone,
    /// until each side has placed all of its own.
    pub fn in_hand(&self, variant: Variant) -> [u32; 2] {
        let stones = u64::from(variant.stones());
        // Plies played: two a move number, one more with Black to move.
        let plies = 2 * (u64::from(self.move_number.max(1)) - 1)
            + u64::from(self.side_to_move == Color::Black);
        let placed = [plies.div_ceil(2), plies / 2];
        // At most the variant's stones, so the cast keeps the value.
        placed.map(|placed| (stones - placed.min(stones)) as u32)
    }

    /// Checks the string against `rules` and makes it a position, the
    /// hands being what the move number gives ([`GbgpPosition::in_hand`]).
    ///
    /// In Lasker Morris, where a turn may slide instead of placing, this
    /// reads the hands as if every turn so far had placed: the start and
    /// every position reached by placing alone. A position where a side
    /// slid with stones in hand cannot be said in GBGP; it is given as its
    /// start and the moves played.
    ///
    /// # Errors
    ///
    /// A side with more stones on the board and still to place than the
    /// variant has, or fewer than three.
    pub fn position(&self, rules: Rules) -> Result<Position, GbgpPositionError> {
        let in_hand = self.in_hand(rules.variant);
        let max = rules.variant.stones();
        for color in Color::ALL {
            let on_board = self.stones[color.index()].len();
            let to_place = in_hand[color.index()];
            if on_board + to_place > u32::from(max) {
                return Err(GbgpPositionError::TooManyStones {
                    color,
                    on_board,
                    to_place,
                    move_number: self.move_number,
                    max,
                });
            }
        }
        let setup = Setup {
            stones: self.stones,
            side_to_move: self.side_to_move,
            in_hand,
            plies_since_removal: 0,
            fullmove_number: self.move_number,
        };
        Ok(Position::from_setup(&setup, rules)?)
    }

    /// The GBGP string of `pos`. The move number is the one its hands
    /// give (at the end of placing, the position's own, or the first after
    /// placing if that is less); the N-move counter is not written.
    ///
    /// # Errors
    ///
    /// In Lasker Morris, hands that no move number gives: a side slid
    /// while it had stones in hand.
    pub fn from_position(pos: &Position) -> Result<GbgpPosition, GbgpWriteError> {
        let variant = pos.rules().variant;
        let side = pos.side_to_move();
        let in_hand = Color::ALL.map(|color| u32::from(pos.in_hand(color)));
        let stones = u32::from(variant.stones());
        let move_number = if in_hand == [0, 0] {
            // Placing is over from move `stones + 1` on, for either side to move.
            pos.fullmove_number().max(stones + 1)
        } else {
            // The side to move has placed one stone a move number before this one.
            stones - in_hand[side.index()] + 1
        };
        let written = GbgpPosition {
            side_to_move: side,
            stones: Color::ALL.map(|color| pos.stones(color)),
            move_number,
        };
        if written.in_hand(variant) != in_hand {
            return Err(GbgpWriteError {
                side,
                in_hand,
                variant,
            });
        }
        Ok(written)
    }
}

impl FromStr for GbgpPosition {
    type Err = ParseGbgpPositionError;

    /// Reads the four fields of a GBGP position string.
    fn from_str(text: &str) -> Result<GbgpPosition, ParseGbgpPositionError> {
        let fields: Vec<&str> = text.split(':').collect();
        let &[side, first, second, number] = fields.as_slice() else {
            return Err(ParseGbgpPositionError::FieldCount {
                found: fields.len(),
            });
        };
        let side_to_move = colour_letter(side).ok_or_else(|| ParseGbgpPositionError::Side {
            token: side.to_owned(),
        })?;
        let mut stones = [Bitboard::EMPTY; 2];
        let mut seen = [false; 2];
        for group in [first, second] {
            let (color, points) = read_group(group)?;
            if std::mem::replace(&mut seen[color.index()], true) {
                return Err(ParseGbgpPositionError::ColourTwice { color });
            }
            let taken = stones[0] | stones[1];
            if let Some(sq) = points.iter().find(|&sq| taken.contains(sq)) {
                return Err(ParseGbgpPositionError::PointTwice { square: sq });
            }
            stones[color.index()] = points;
        }
        let move_number = number
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| number.parse::<u32>().ok())
            .flatten()
            .filter(|&n| n >= 1)
            .ok_or_else(|| ParseGbgpPositionError::MoveNumber {
                token: number.to_owned(),
            })?;
        Ok(GbgpPosition {
            side_to_move,
            stones,
            move_number,
        })
    }
}

/// `w` or `b`.
fn colour_letter(token: &str) -> Option<Color> {
    match token {
        "w" => Some(Color::White),
        "b" => Some(Color::Black),
        _ => None,
    }
}

/// One colour's field: its letter, then its points separated by commas.
fn read_group(group: &str) -> Result<(Color, Bitboard), ParseGbgpPositionError> {
    let bad_group = || ParseGbgpPositionError::Stones {
        token: group.to_owned(),
    };
    let letter = group.get(..1).ok_or_else(bad_group)?;
    let color = colour_letter(letter).ok_or_else(bad_group)?;
    let mut points = Bitboard::EMPTY;
    let list = &group[1..];
    if list.is_empty() {
        return Ok((color, points));
    }
    for token in list.split(',') {
        let sq: Square = token.parse().map_err(|_| ParseGbgpPositionError::Point {
            token: token.to_owned(),
        })?;
        if points.contains(sq) {
            return Err(ParseGbgpPositionError::PointTwice { square: sq });
        }
        points |= sq.into();
    }
    Ok((color, points))
}

impl fmt::Display for GbgpPosition {
    /// Writes the string, White's stones first, each colour's points in
    /// the order of the board from a7 to g1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.side_to_move.fen_char())?;
        for color in Color::ALL {
            let points: Vec<String> = READING_ORDER
                .iter()
                .filter(|&&sq| self.stones[color.index()].contains(sq))
                .map(Square::to_string)
                .collect();
            write!(f, ":{}{}", color.fen_char(), points.join(","))?;
        }
        write!(f, ":{}", self.move_number)
    }
}

/// A GBGP position string that does not follow the format.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseGbgpPositionError {
    /// Not four fields separated by `:`.
    #[error("{found} fields separated by ':', not 4 (side:stones:stones:move number)")]
    FieldCount {
        /// The fields found.
        found: usize,
    },
    /// A side to move that is neither `w` nor `b`.
    #[error("side to move: '{token}' is neither w nor b")]
    Side {
        /// The field.
        token: String,
    },
    /// A field of stones that does not begin with `w` or `b`.
    #[error("stones: '{token}' does not begin with w or b")]
    Stones {
        /// The field.
        token: String,
    },
    /// A point that is not one of the 24.
    #[error("stones: '{token}' is not a point of the board")]
    Point {
        /// The token.
        token: String,
    },
    /// A point listed twice.
    #[error("stones: {square} is listed twice")]
    PointTwice {
        /// The point.
        square: Square,
    },
    /// Both fields of stones for the same colour.
    #[error("stones: two fields for {color}")]
    ColourTwice {
        /// The colour.
        color: Color,
    },
    /// A move number that is not a whole number of 1 or more.
    #[error("move number: '{token}' is not a whole number of 1 or more")]
    MoveNumber {
        /// The field.
        token: String,
    },
}

/// A GBGP position string that reads well but is no position of the variant.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GbgpPositionError {
    /// More stones on the board and still to place than the variant has.
    #[error(
        "{color} has {on_board} stones on the board and {to_place} still to place at move {move_number}, more than the variant's {max}"
    )]
    TooManyStones {
        /// Whose stones.
        color: Color,
        /// Stones on the board.
        on_board: u32,
        /// Stones still to place at that move number.
        to_place: u32,
        /// The move number.
        move_number: u32,
        /// The variant's stones per side.
        max: u8,
    },
    /// The position is no position of the rules (a side with fewer than
    /// three stones).
    #[error(transparent)]
    Setup(#[from] SetupError),
}

/// A position GBGP cannot write: in Lasker Morris, hands that no move
/// number gives.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "{variant}: with {} to move, white has {} and black {} in hand, which no move number gives (GBGP writes no hands)",
    side.name(),
    in_hand[0],
    in_hand[1]
)]
pub struct GbgpWriteError {
    /// The side to move.
    pub side: Color,
    /// The stones in hand, White's then Black's.
    pub in_hand: [u32; 2],
    /// The variant.
    pub variant: Variant,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<GbgpPosition, ParseGbgpPositionError> {
        text.parse()
    }

    #[test]
    fn the_examples_of_the_specification_read_and_write_back() {
        let rules = Rules::default();
        for (text, fen) in [
            ("w:w:b:1", ".../.../.../....../.../.../... w 9 9 0 1"),
            ("b:wb4:b:1", ".../.../.../.W..../.../.../... b 8 9 0 1"),
            ("w:wb4:bd2:2", ".../.../.../.W..../.../.B./... w 8 8 0 2"),
            // The specification's fourth example, "after white c4", has
            // `w` to move: a typo, as White cannot have placed two stones
            // when Black has placed one and White is to move again.
            ("b:wb4,c4:bd2:2", ".../.../.../.WW.../.../.B./... b 7 8 0 2"),
        ] {
            let gbgp = read(text).unwrap();
            let pos = gbgp
                .position(rules)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(pos.fen(), fen, "{text}");
            assert_eq!(GbgpPosition::from_position(&pos).unwrap().to_string(), text);
        }
        assert_eq!(read("w:w:b:1"), Ok(GbgpPosition::START));
        assert_eq!(
            read("w:wb4,c4:bd2:2").unwrap().position(rules),
            Err(GbgpPositionError::TooManyStones {
                color: Color::White,
                on_board: 2,
                to_place: 8,
                move_number: 2,
                max: 9
            })
        );
    }

    #[test]
    fn the_colours_may_come_in_either_order_and_points_in_any() {
        let a = read("b:bd7,a7:wg1,g7:3").unwrap();
        assert_eq!(a.to_string(), "b:wg7,g1:ba7,d7:3");
        assert_eq!(
            read("b:WG7,g1:ba7,d7:3"),
            Err(ParseGbgpPositionError::Stones {
                token: "WG7,g1".into()
            })
        );
        assert_eq!(read("b:wG7,g1:ba7,d7:3").unwrap(), a);
    }

    #[test]
    fn the_hands_follow_from_the_move_number() {
        let at = |text: &str, variant| read(text).unwrap().in_hand(variant);
        assert_eq!(at("w:w:b:1", Variant::Nine), [9, 9]);
        assert_eq!(at("b:w:b:1", Variant::Twelve), [11, 12]);
        assert_eq!(at("b:w:b:9", Variant::Nine), [0, 1]);
        assert_eq!(at("w:w:b:10", Variant::Nine), [0, 0]);
        assert_eq!(at("b:w:b:10", Variant::Nine), [0, 0]);
        assert_eq!(at("w:w:b:10", Variant::Twelve), [3, 3]);
        assert_eq!(at("b:w:b:4294967295", Variant::Lasker), [0, 0]);
    }

    #[test]
    fn after_placing_the_move_number_is_at_least_the_first_after_it() {
        let pos = Position::from_fen("W../.W./B../....../.B./.../..B w 0 0 0 1", Rules::default());
        // Too few stones: a side needs three.
        assert!(pos.is_err());
        let pos = Position::from_fen("W.W/.W./B../....../.B./.../..B w 0 0 4 1", Rules::default())
            .unwrap();
        let written = GbgpPosition::from_position(&pos).unwrap();
        assert_eq!(written.to_string(), "w:wa7,g7,d6:bc5,d3,g1:10");
        let back = written.position(Rules::default()).unwrap();
        assert_eq!(back.fen(), "W.W/.W./B../....../.B./.../..B w 0 0 0 10");
    }

    #[test]
    fn malformed_strings_name_the_field() {
        use ParseGbgpPositionError::*;
        let cases = [
            ("", FieldCount { found: 1 }),
            ("w:w:b", FieldCount { found: 3 }),
            ("w:w:b:1:2", FieldCount { found: 5 }),
            ("x:w:b:1", Side { token: "x".into() }),
            ("W:w:b:1", Side { token: "W".into() }),
            ("w::b:1", Stones { token: "".into() }),
            (
                "w:xa1:b:1",
                Stones {
                    token: "xa1".into(),
                },
            ),
            (
                "w:wa1:w:1",
                ColourTwice {
                    color: Color::White,
                },
            ),
            ("w:wa1,:b:1", Point { token: "".into() }),
            ("w:wa1,h9:b:1", Point { token: "h9".into() }),
            ("w:wb5:b:1", Point { token: "b5".into() }),
            ("w:wa1,a1:b:1", PointTwice { square: Square::A1 }),
            ("w:wa1:ba1:1", PointTwice { square: Square::A1 }),
            ("w:w:b:0", MoveNumber { token: "0".into() }),
            ("w:w:b:-1", MoveNumber { token: "-1".into() }),
            ("w:w:b:+1", MoveNumber { token: "+1".into() }),
            (
                "w:w:b:99999999999",
                MoveNumber {
                    token: "99999999999".into(),
                },
            ),
            ("w:w:bé:1", Point { token: "é".into() }),
            ("é:w:b:1", Side { token: "é".into() }),
        ];
        for (text, expected) in cases {
            assert_eq!(read(text), Err(expected), "{text:?}");
        }
    }

    #[test]
    fn positions_of_no_game_are_refused_with_the_count() {
        let rules = Rules::default();
        let ten = "w:wa7,d7,g7,b6,d6,f6,c5,d5,e5,a4:b:1";
        assert_eq!(
            read(ten).unwrap().position(rules),
            Err(GbgpPositionError::TooManyStones {
                color: Color::White,
                on_board: 10,
                to_place: 9,
                move_number: 1,
                max: 9
            })
        );
        assert!(matches!(
            read("w:wa7,d7:ba1,d1,g1:12").unwrap().position(rules),
            Err(GbgpPositionError::Setup(SetupError::TooFewStones { .. }))
        ));
        // Twelve stones fit in twelve.
        let twelve =
            "w:wa7,d7,g7,b6,d6,f6,c5,d5,e5,a4,b4,c4:ba1,d1,g1,b2,d2,f2,c3,d3,e3,e4,f4,g4:13";
        assert!(
            read(twelve)
                .unwrap()
                .position(Rules::new(Variant::Twelve))
                .is_ok()
        );
        assert!(read(twelve).unwrap().position(rules).is_err());
    }

    #[test]
    fn a_lasker_position_with_a_slide_in_placing_cannot_be_written() {
        let rules = Rules::new(Variant::Lasker);
        let mut pos = Position::new(rules);
        for mv in ["a7", "a1", "a7-d7"] {
            pos.try_play(mv.parse().unwrap()).unwrap();
        }
        let err = GbgpPosition::from_position(&pos).unwrap_err();
        assert_eq!(err.in_hand, [9, 9]);
        assert_eq!(
            err.to_string(),
            "lasker: with black to move, white has 9 and black 9 in hand, which no move number gives (GBGP writes no hands)"
        );
    }
}
