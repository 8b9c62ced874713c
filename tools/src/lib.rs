//! Developer tools for morris: the match runner, the evaluation tuner and
//! the board in the browser, with what they share: the engine client, the
//! databases as they open them, and the players' ratings (Glicko-2).

pub mod arena;
pub mod client;
pub mod db;
pub mod rating;
pub mod tune;
pub mod web;
