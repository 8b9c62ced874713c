//! The rules core: points, bitboards, moves, positions and their strings,
//! legal move generation, refereeing, game records and perft. It knows
//! nothing of search, databases or the protocol.

pub(crate) mod bitboard;
pub(crate) mod game;
pub(crate) mod movegen;
pub(crate) mod moves;
pub(crate) mod perft;
pub(crate) mod position;
pub(crate) mod record;
pub(crate) mod rules;
pub(crate) mod setup;
pub(crate) mod symmetry;
pub(crate) mod tables;
pub(crate) mod types;
pub(crate) mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use game::{DrawReason, Game, Outcome, WinReason};
pub use movegen::{IllegalMoveError, IllegalReason};
pub use moves::{MAX_MOVES, Move, MoveList, MoveSyntaxProblem, MoveToken, ParseMoveError};
pub use perft::{divide, divide_total, perft};
pub use position::Position;
pub use record::{GameRecord, GameResult, RecordError, parse_records};
pub use rules::{FullBoard, ParseFullBoardError, ParseVariantError, Rules, Variant};
pub use setup::{FenError, FenField, ParseFenError, Setup, SetupError};
pub use symmetry::Symmetry;
pub use tables::Tables;
pub use types::{Color, ParseColorError, ParseSquareError, Phase, Square};
