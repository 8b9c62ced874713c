//! Every error the library reports; each names what was wrong.

use thiserror::Error;

use crate::moves::Move;
use crate::types::{Color, Square};

/// A point name that is not one of the 24 points.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a point (a7, d7, g7, b6, ... g1)")]
pub struct ParseSquareError {
    /// The text that was read.
    pub token: String,
}

/// A variant name that is not known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a variant (nine, twelve, lasker)")]
pub struct ParseVariantError {
    /// The text that was read.
    pub token: String,
}

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

/// A well-formed move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMoveError {
    /// The move that was refused.
    pub mv: Move,
    /// Why it was refused.
    pub reason: IllegalReason,
}

/// Why a move is not legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum IllegalReason {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// A placement by a side with no stones in hand.
    #[error("no stones in hand to place")]
    NothingInHand,
    /// A slide by a side that must place.
    #[error("stones in hand must be placed first")]
    MustPlace,
    /// The origin is not a stone of the side to move.
    #[error("no own stone on {0}")]
    NotOwnStone(Square),
    /// The destination is occupied.
    #[error("{0} is occupied")]
    Occupied(Square),
    /// A slide to a point that is not a neighbour, by a side that cannot fly.
    #[error("{to} is not next to {from}")]
    NotNeighbor {
        /// The stone's point.
        from: Square,
        /// The point it was sent to.
        to: Square,
    },
    /// A removal named by a turn that closes no mill.
    #[error("no mill is closed, so nothing may be removed")]
    NoMill,
    /// A mill was closed but no stone named for removal.
    #[error("the turn closes a mill: name the stone to remove (x<point>)")]
    MissingRemoval,
    /// The removed point does not hold an opposing stone.
    #[error("no opposing stone on {0}")]
    NotOpponentStone(Square),
    /// The removed stone stands in a mill while others do not.
    #[error("{0} stands in a mill and other stones do not")]
    ProtectedStone(Square),
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

/// A `setoption` that cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum OptionError {
    /// No option has that name.
    #[error("no option named '{name}'")]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The value does not fit the option's type.
    #[error("option '{name}': '{value}' is not {expected}")]
    BadValue {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What the option takes.
        expected: String,
    },
    /// A number outside the option's range.
    #[error("option '{name}': {value} is outside {min}..={max}")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// The value given.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// Options cannot change while a search runs.
    #[error("options cannot change while a search runs (send stop first)")]
    Busy,
    /// The transposition table could not be allocated.
    #[error("option 'Hash': {0}; the table keeps its size")]
    Hash(#[from] HashAllocError),
}

/// The memory for a transposition table could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("cannot allocate {mib} MiB for the transposition table")]
pub struct HashAllocError {
    /// The size asked for, in MiB.
    pub mib: usize,
}

/// A `position` command that cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The position string is bad.
    #[error("fen: {0}")]
    Fen(#[from] FenError),
    /// A move is not legal where it is played.
    #[error("move {index} ('{token}'): {error}")]
    Illegal {
        /// The move's place in the list, from 1.
        index: usize,
        /// The token.
        token: String,
        /// Why it is illegal.
        error: IllegalMoveError,
    },
    /// A lone `x<point>` that follows no mill-closing action.
    #[error("move {index} ('{token}'): a removal must follow a move that closes a mill")]
    StrayRemoval {
        /// The token's place in the list, from 1.
        index: usize,
        /// The token.
        token: String,
    },
    /// A mill-closing action followed by something other than its removal.
    #[error(
        "move {index} ('{token}'): closes a mill, so the next token must be its removal (x<point>)"
    )]
    RemovalExpected {
        /// The action's place in the list, from 1.
        index: usize,
        /// The action's token.
        token: String,
    },
}

/// A `go` that cannot start.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GoError {
    /// A search is already running.
    #[error("a search is already running (send stop first)")]
    AlreadySearching,
    /// A `searchmoves` entry is not a legal move.
    #[error("searchmoves: '{0}' is not a legal move here")]
    IllegalSearchMove(String),
}

/// A protocol line that is not a well-formed command.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProtocolError {
    /// The first token names no command.
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    /// A command is missing a part.
    #[error("{command}: missing {what}")]
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// A token where none of that kind belongs.
    #[error("{command}: unexpected '{token}'")]
    Unexpected {
        /// The command.
        command: &'static str,
        /// The token.
        token: String,
    },
    /// A number that is not one, or is out of range.
    #[error("{command}: '{token}' after {keyword} is not a whole number in range")]
    BadNumber {
        /// The command.
        command: &'static str,
        /// The keyword it follows.
        keyword: String,
        /// The token.
        token: String,
    },
    /// A move token in `searchmoves` that is not notation.
    #[error("go: searchmoves: {0}")]
    BadSearchMove(ParseMoveError),
    /// A move token of `position` that is not notation.
    #[error("position: move {index}: {error}")]
    BadMove {
        /// The move's place in the list, from 1.
        index: usize,
        /// What is wrong with it.
        error: ParseMoveError,
    },
}

/// An endgame database file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}: {problem}", path.display())]
pub struct DbError {
    /// The file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub problem: DbProblem,
}

/// What is wrong with an endgame database file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DbProblem {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(String),
    /// Shorter than its header.
    #[error("too short for a header")]
    TooShort,
    /// Not a morris database.
    #[error("not a morris endgame database (bad magic number)")]
    BadMagic,
    /// Written by another format version.
    #[error("format version {found}, expected {expected}")]
    Version {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// For other rules than Nine Men's Morris with flying.
    #[error("built for other rules")]
    Rules,
    /// A sector with fewer than three stones a side, or not the one its name says.
    #[error("sector {mover}-{other} is not valid here")]
    Sector {
        /// Stones of the side to move.
        mover: u8,
        /// Stones of the other side.
        other: u8,
    },
    /// The payload has the wrong length.
    #[error("{found} bytes, expected {expected}")]
    Length {
        /// Bytes expected.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The payload does not match its checksum.
    #[error("checksum mismatch: the file is damaged")]
    Checksum,
    /// Sectors a build needs first are not there (or not valid).
    #[error("sectors {} must be built first", .0.join(", "))]
    Missing(Vec<String>),
}
