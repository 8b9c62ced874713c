//! morris: a Nine Men's Morris (Mill) engine.
//!
//! The library knows the rules of docs/RULES.md for the `nine`, `twelve` and
//! `lasker` variants: [`Position`] holds a game state as two 24-bit
//! [`Bitboard`]s, generates its legal [`Move`]s (whole turns, removal
//! included), reads and writes position strings through [`Setup`], and a
//! [`Game`] referees a whole game, repetitions included.
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

pub mod board;
pub mod endgame;
pub mod engine;
pub mod search;
pub mod uci;

pub use board::{
    Bitboard, Color, DrawReason, FenError, FenField, Game, GameRecord, GameResult,
    IllegalMoveError, IllegalReason, MAX_MOVES, Move, MoveList, MoveSyntaxProblem, MoveToken,
    Outcome, ParseColorError, ParseFenError, ParseMoveError, ParseSquareError, ParseVariantError,
    Phase, Position, RecordError, Rules, Setup, SetupError, Square, Squares, Symmetry, Tables,
    Variant, WinReason, divide, divide_total, parse_records, perft,
};
pub use endgame::{DbError, DbProblem};
pub use engine::{
    BestMove, ELO_OF_SKILL, Engine, EngineOption, EngineOptions, GoError, GoStart, MoveNotation,
    OptionError, OptionKind, OptionNote, PositionError,
};
pub use search::eval::{
    Breakdown, FEATURES, Feature, PHASE_SCALE, STONE, Term, Weights, breakdown, draw_rule_share,
    evaluate, evaluate_with, features,
};
pub use search::{
    BENCH_DEPTH, BENCH_POSITIONS, BenchReport, Bound, Clock, DB_WIN, HashAllocError, Limit, MATE,
    MAX_SKILL, Score, SearchEvent, SearchInfo, SearchLimits, SearchRequest, SearchResult,
    TranspositionTable, WdlModel, run_bench,
};
pub use uci::ProtocolError;
