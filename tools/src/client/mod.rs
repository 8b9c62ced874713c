//! The tools' client of engines that speak the protocol (or GBGP, that of
//! Nine Morris 3D and Muhle Intelligence): an engine's process, with
//! deadlines on every answer, and the lines sent to it and read from it.
//! The arena and the web drive their engines through it.

mod process;
mod protocol;

pub use process::{EngineConfig, EngineFailure, EngineProcess, MoveLimit};
pub use protocol::{
    EngineScore, Handshake, Info, Protocol, position_command, rules_options, start_command,
};
