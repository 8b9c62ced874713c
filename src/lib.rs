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

mod bench;
mod bitboard;
pub mod endgame;
mod engine;
mod error;
mod eval;
mod game;
mod limits;
mod movegen;
mod moves;
mod options;
mod perft;
pub mod play;
mod position;
mod record;
mod rules;
mod search;
mod setup;
mod symmetry;
mod tables;
mod threads;
mod tt;
mod types;
pub mod uci;
mod zobrist;

pub use bench::{BENCH_DEPTH, BENCH_POSITIONS, BenchReport, run_bench};
pub use bitboard::{Bitboard, Squares};
pub use engine::{BestMove, Engine, GoStart};
pub use error::{
    DbError, DbProblem, FenError, FenField, GoError, HashAllocError, IllegalMoveError,
    IllegalReason, MoveSyntaxProblem, OptionError, ParseFenError, ParseMoveError, ParseSquareError,
    ParseVariantError, PositionError, ProtocolError, SetupError,
};
pub use eval::{
    Breakdown, FEATURES, Feature, PHASE_SCALE, STONE, Term, Weights, breakdown, draw_rule_share,
    evaluate, evaluate_with, features,
};
pub use game::{DrawReason, Game, Outcome, WinReason};
pub use limits::{Clock, Limit, SearchLimits};
pub use moves::{MAX_MOVES, Move, MoveList, MoveToken};
pub use options::{ELO_OF_SKILL, EngineOption, EngineOptions, MoveNotation, OptionKind};
pub use perft::{divide, perft};
pub use position::Position;
pub use record::{GameRecord, GameResult, RecordError, parse_records};
pub use rules::{Rules, Variant};
pub use search::{DB_WIN, MATE, Score, SearchEvent, SearchInfo, WdlModel};
pub use setup::Setup;
pub use symmetry::Symmetry;
pub use tables::Tables;
pub use threads::{SearchRequest, SearchResult};
pub use tt::{Bound, TranspositionTable};
pub use types::{Color, Phase, Square};
