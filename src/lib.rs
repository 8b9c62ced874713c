//! morris: a Nine Men's Morris (Mill) engine.
//!
//! The library knows the rules of RULES.md for the `nine`, `twelve` and
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

mod bitboard;
mod error;
mod game;
mod movegen;
mod moves;
mod perft;
mod position;
mod rules;
mod setup;
mod symmetry;
mod tables;
mod types;
mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use error::{
    FenError, FenField, IllegalMoveError, IllegalReason, MoveSyntaxProblem, ParseFenError,
    ParseMoveError, ParseSquareError, ParseVariantError, SetupError,
};
pub use game::{DrawReason, Game, Outcome, WinReason};
pub use moves::{MAX_MOVES, Move, MoveList};
pub use perft::{divide, perft};
pub use position::Position;
pub use rules::{Rules, Variant};
pub use setup::Setup;
pub use symmetry::Symmetry;
pub use tables::Tables;
pub use types::{Color, Phase, Square};
