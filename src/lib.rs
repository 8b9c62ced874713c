//! morris: a Nine Men's Morris (Mill) engine.
//!
//! The crate is built in layers, each using only the ones above it:
//!
//! - [`board`], the rules core of docs/RULES.md for the `nine`, `twelve`
//!   and `lasker` variants: a [`Position`] holds a game state as two 24-bit
//!   [`Bitboard`]s and generates its legal [`Move`]s (whole turns, removal
//!   included); [`Setup`] reads and writes position strings; a [`Game`]
//!   referees a whole game, repetitions included; perft counts move paths.
//! - [`solution`], the solved game: the exact value of every position,
//!   placing and moving, built by retrograde analysis
//!   ([`solution::retrograde`]), stored in checked files
//!   ([`solution::format`]) and probed through a [`Database`].
//! - [`search`], the alpha-beta search over a shared transposition table,
//!   with its [`eval`]uation, time limits, skill levels, the root moves
//!   the databases keep, and the exact end of placing solved to them.
//! - [`engine`], the front end a protocol drives: an [`Engine`] holds the
//!   game, the [`EngineOptions`] and the running search.
//! - [`uci`], the text protocol of docs/PROTOCOL.md: lines parsed into
//!   commands, the engine's answers written as lines.
//!
//! Beside the layers, [`files`] writes a file whole or not at all, for
//! every program that writes one.
//!
//! The rules, the engine front end and the databases are re-exported here.
//!
//! ```
//! use morris::{perft, Game, Position};
//!
//! let pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 24);
//! assert_eq!(perft(&pos, 3), 12_144);
//!
//! let mut game = Game::new(pos);
//! game.try_play("d6".parse()?)?;
//! assert_eq!(game.position().fen(), ".../.W./.../....../.../.../... b 8 9 1 1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(unreachable_pub)]

pub mod board;
pub mod engine;
pub mod files;
pub mod search;
pub mod solution;
pub mod uci;

pub use board::{
    Bitboard, Color, DrawReason, FenError, FenField, FullBoard, Game, GameRecord, GameResult,
    IllegalMoveError, IllegalReason, MAX_MOVES, Move, MoveList, MoveSyntaxProblem, MoveToken,
    Outcome, ParseColorError, ParseFenError, ParseFullBoardError, ParseMoveError, ParseSquareError,
    ParseVariantError, Phase, Position, RecordError, Rules, Setup, SetupError, Square, Squares,
    Symmetry, Tables, Variant, WinReason, divide, divide_total, parse_records, perft,
};
pub use engine::{
    BestMove, ELO_OF_SKILL, Engine, EngineOption, EngineOptions, GoError, GoStart, MoveNotation,
    OptionError, OptionKind, OptionNote, ParseNotationError, PositionError,
};
pub use search::eval;
pub use solution::{Database, DbError, DbOutcome, DbProblem, DbValue};
