//! The tools' client of engines that speak the protocol: an engine's
//! process, with deadlines on every answer, and the lines sent to it and
//! read from it. The arena and the web drive their engines through it.

mod process;
mod protocol;

pub use process::{EngineConfig, EngineFailure, EngineProcess, MoveLimit};
pub use protocol::{EngineScore, Handshake, Info, position_command, rules_options};
