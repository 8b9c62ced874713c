//! Developer tools for morris: the match runner and the evaluation tuner.

pub mod arena;
pub mod tune;
