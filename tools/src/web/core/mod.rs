//! The game as data, and how a person's actions change it: the state of
//! a game, its clock, its room's seats, its settings, its records and the
//! requests that carry them. No I/O and no threads: what the rest of the
//! server shares under a game's lock.

pub mod actions;
pub mod clock;
pub mod players;
pub mod record;
pub mod requests;
pub mod room;
pub mod settings;
pub mod state;
pub mod version;
