//! morris-arena: engine-against-engine matches through the protocol.

pub mod args;
pub mod game;
pub mod openings;
pub mod stats;
pub mod tournament;
