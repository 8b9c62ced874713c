//! Helpers shared by the integration tests: the independent reference
//! implementation of the rules and the perft data file.

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
