//! Helpers shared by the integration tests: the independent reference
//! implementation of the rules, the perft data file, the engine in memory
//! (`session`) and as a process (`process`), and the small databases of
//! the solved game (`solution`).

// Each test crate uses a different part of these helpers.
#![allow(dead_code)]

pub mod data;
pub mod process;
pub mod reference;
pub mod session;
pub mod solution;

pub use data::PerftCase;

/// Every case of `tests/data/positions.perft`.
pub fn perft_cases() -> Vec<PerftCase> {
    data::parse(include_str!("../data/positions.perft")).expect("tests/data/positions.perft")
}
