//! Developer tools for morris: the match runner, the evaluation tuner and
//! the board in the browser.

pub mod arena;
pub mod client;
pub mod db;
pub mod files;
pub mod tune;
pub mod web;
