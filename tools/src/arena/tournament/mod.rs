//! Matches and tournaments: what a match is asked to be; which games it
//! plays ([`schedule`]), how they are played and recorded ([`run_match`])
//! and how they stand ([`Standings`], [`results_table`]).

mod run;
mod schedule;
mod standings;

use std::path::PathBuf;

use super::game::GameSettings;
use super::openings::Opening;
use super::stats::Sprt;
use crate::client::EngineConfig;

pub use run::{EngineStartError, check_engines, run_match, write_records};
pub use schedule::{Pairing, Tournament, schedule};
pub use standings::{Standings, elo_text, pairs_text, results_table};

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines; two make a match.
    pub engines: Vec<EngineConfig>,
    /// Rounds: each pairing plays `games` games a round.
    pub rounds: usize,
    /// Games per pairing and round; pairs of games share an opening with
    /// colours swapped.
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The openings, used in order.
    pub openings: Vec<Opening>,
    /// Round robin or gauntlet.
    pub tournament: Tournament,
    /// Stop when the test decides (two engines only).
    pub sprt: Option<Sprt>,
    /// Where the game records go.
    pub pgn_out: Option<PgnOut>,
    /// Print the table every this many games.
    pub rating_interval: Option<usize>,
    /// Rules and time margins.
    pub settings: GameSettings,
}

/// The record file and its form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnOut {
    /// The file, rewritten after every game.
    pub path: PathBuf,
    /// Tags and moves only, without the per-move comments.
    pub minimal: bool,
}
