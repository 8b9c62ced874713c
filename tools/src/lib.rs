//! Developer tools for morris: the match runner.

pub mod arena;
