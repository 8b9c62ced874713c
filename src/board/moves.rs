//! Moves (whole turns) and their notation.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;

use thiserror::Error;

use crate::board::Square;

/// One turn: a placement or a slide (or flight), and the opposing stone it
/// removes if it closes a mill.
///
/// ```
/// # use morris::{Move, Square};
/// let mv: Move = "d6-d5xB4".parse()?;
/// assert_eq!(mv, Move { from: Some(Square::D6), to: Square::D5, removal: Some(Square::B4) });
/// assert_eq!(mv.to_string(), "d6-d5xb4");
/// # Ok::<(), morris::ParseMoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The stone's origin; `None` for a placement from hand.
    pub from: Option<Square>,
    /// The point the stone goes to.
    pub to: Square,
    /// The opposing stone removed because the turn closed a mill.
    pub removal: Option<Square>,
}

impl Move {
    /// A placement on `to` that removes nothing.
    pub const fn place(to: Square) -> Move {
        Move {
            from: None,
            to,
            removal: None,
        }
    }

    /// A slide or flight from `from` to `to` that removes nothing.
    pub const fn slide(from: Square, to: Square) -> Move {
        Move {
            from: Some(from),
            to,
            removal: None,
        }
    }

    /// The same action, removing the stone on `removal`.
    pub const fn removing(self, removal: Square) -> Move {
        Move {
            removal: Some(removal),
            ..self
        }
    }

    /// The move in 15 bits: origin, destination and removal, five bits each,
    /// 31 for "none". `u16::MAX` is never a move's code.
    ///
    /// ```
    /// # use morris::Move;
    /// let mv: Move = "d6-d5xb4".parse()?;
    /// assert_eq!(Move::from_code(mv.code()), Some(mv));
    /// # Ok::<(), morris::ParseMoveError>(())
    /// ```
    #[inline]
    pub fn code(self) -> u16 {
        let part = |sq: Option<Square>| sq.map_or(NO_SQUARE, |sq| sq as u16);
        part(self.from) | (self.to as u16) << 5 | part(self.removal) << 10
    }

    /// The move with this [`Move::code`], if it is one.
    #[inline]
    pub fn from_code(code: u16) -> Option<Move> {
        let part = |shift: u16| match (code >> shift) & NO_SQUARE {
            NO_SQUARE => Ok(None),
            index => Square::try_index(usize::from(index)).map(Some).ok_or(()),
        };
        if code >> 15 != 0 {
            return None;
        }
        Some(Move {
            from: part(0).ok()?,
            to: part(5).ok()??,
            removal: part(10).ok()?,
        })
    }

    /// Whether the stone comes from the hand.
    #[inline]
    pub const fn is_placement(self) -> bool {
        self.from.is_none()
    }
}

/// The five-bit field of [`Move::code`] that stands for "no point".
const NO_SQUARE: u16 = 31;

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to)?;
        if let Some(removal) = self.removal {
            write!(f, "x{removal}")?;
        }
        Ok(())
    }
}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Parses `d6`, `d6xb4`, `d6-d5` or `d6-d5xb4`, in either case.
    fn from_str(token: &str) -> Result<Move, ParseMoveError> {
        let error = |problem| ParseMoveError {
            token: token.to_owned(),
            problem,
        };
        if token.is_empty() {
            return Err(error(MoveSyntaxProblem::Empty));
        }
        let lower = token.to_ascii_lowercase();
        let (action, removal) = match lower.split_once('x') {
            Some((action, removal)) => (action, Some(removal)),
            None => (lower.as_str(), None),
        };
        let (from, to) = match action.split_once('-') {
            Some((from, to)) => (Some(from), to),
            None => (None, action),
        };
        if to.is_empty() || from.is_some_and(str::is_empty) || removal.is_some_and(str::is_empty) {
            return Err(error(MoveSyntaxProblem::Shape));
        }
        let point = |text: &str| {
            text.parse::<Square>()
                .map_err(|_| error(MoveSyntaxProblem::BadPoint(text.to_owned())))
        };
        Ok(Move {
            from: from.map(point).transpose()?,
            to: point(to)?,
            removal: removal.map(point).transpose()?,
        })
    }
}

/// One token of a move list: a turn (whole, or an action whose removal
/// follows), or `x<point>`, the removal that finishes a turn written in
/// split form (`d6-d5 xb4`).
///
/// ```
/// # use morris::{Move, MoveToken, Square};
/// assert_eq!("xB4".parse(), Ok(MoveToken::Removal(Square::B4)));
/// assert_eq!("d6-d5".parse(), Ok(MoveToken::Turn(Move::slide(Square::D6, Square::D5))));
/// # Ok::<(), morris::ParseMoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveToken {
    /// A turn, or the action of one.
    Turn(Move),
    /// The removal of the turn whose action came before.
    Removal(Square),
}

impl fmt::Display for MoveToken {
    /// Writes the turn, or `x<point>` for a removal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveToken::Turn(mv) => write!(f, "{mv}"),
            MoveToken::Removal(point) => write!(f, "x{point}"),
        }
    }
}

impl FromStr for MoveToken {
    type Err = ParseMoveError;

    /// Parses a move (see [`Move`]'s `FromStr`) or `x<point>`.
    fn from_str(token: &str) -> Result<MoveToken, ParseMoveError> {
        match token.strip_prefix(['x', 'X']) {
            Some(point) => point
                .parse()
                .map(MoveToken::Removal)
                .map_err(|_| ParseMoveError {
                    token: token.to_owned(),
                    problem: MoveSyntaxProblem::BadPoint(point.to_owned()),
                }),
            None => token.parse().map(MoveToken::Turn),
        }
    }
}

/// The most moves a position can have, in any variant.
///
/// A turn is one action and, when it closes a mill, one move per stone it
/// may remove. Each drawn segment gives at most one slide (from the own
/// stone to the empty end). Twelve Men's Morris: 40 segments times 12
/// removals is 480 (placements: 24 times 12). Lasker Morris: 24 placements
/// plus 32 slides, times 10 removals, is 560. Flying: 63 flights, of which
/// at most 3 close a mill, since the two other stones share one line at
/// most. Nine Men's Morris stays below all of these.
pub const MAX_MOVES: usize = 576;

/// The legal moves of a position, on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// A move token that does not follow the notation.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("invalid move '{token}': {problem}")]
pub struct ParseMoveError {
    /// The whole token that was read.
    pub token: String,
    /// What is wrong with it.
    pub problem: MoveSyntaxProblem,
}

/// What is wrong with a move token.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveSyntaxProblem {
    /// The token is empty.
    #[error("empty token")]
    Empty,
    /// A part that should name a point does not.
    #[error("'{0}' is not a point")]
    BadPoint(String),
    /// The token is not of the form `to`, `from-to`, either with `x<point>`.
    #[error("expected <point>, <point>-<point>, optionally followed by x<point>")]
    Shape,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_round_trips() {
        for token in ["d6", "d6xb4", "d6-d5", "d6-d5xb4", "a7-g1", "g1xa7"] {
            let mv: Move = token.parse().unwrap();
            assert_eq!(mv.to_string(), token);
            assert_eq!(token.to_uppercase().parse::<Move>(), Ok(mv));
        }
    }

    #[test]
    fn codes_round_trip_and_reject_garbage() {
        for token in ["d6", "d6xb4", "d6-d5", "a7-g1xc3"] {
            let mv: Move = token.parse().unwrap();
            assert_eq!(Move::from_code(mv.code()), Some(mv));
        }
        assert_eq!(Move::from_code(u16::MAX), None);
        assert_eq!(Move::from_code(31 << 5), None);
        assert_eq!(Move::from_code(24 | 3 << 5), None);
    }

    #[test]
    fn malformed_tokens_name_the_problem() {
        let cases = [
            ("", MoveSyntaxProblem::Empty),
            ("x", MoveSyntaxProblem::Shape),
            ("xb4", MoveSyntaxProblem::Shape),
            ("d6x", MoveSyntaxProblem::Shape),
            ("-d5", MoveSyntaxProblem::Shape),
            ("d6-", MoveSyntaxProblem::Shape),
            ("d4", MoveSyntaxProblem::BadPoint("d4".into())),
            ("d6-h5", MoveSyntaxProblem::BadPoint("h5".into())),
            ("d6-d5xq1", MoveSyntaxProblem::BadPoint("q1".into())),
            ("d6-d5-d4", MoveSyntaxProblem::BadPoint("d5-d4".into())),
            ("d6xb4xb2", MoveSyntaxProblem::BadPoint("b4xb2".into())),
            ("é6", MoveSyntaxProblem::BadPoint("é6".into())),
        ];
        for (token, problem) in cases {
            let err = token.parse::<Move>().unwrap_err();
            assert_eq!(err.problem, problem, "{token}");
            assert_eq!(err.token, token);
        }
    }
}
