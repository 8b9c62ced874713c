//! The text protocol of docs/PROTOCOL.md: lines become [`Command`]s (a pure
//! parse), commands drive the [`Engine`](crate::Engine), search events become lines.

mod format;
mod parse;
mod session;

pub use format::{format_bench, format_bestmove, format_divide, format_info, printable};
pub use parse::{Command, ProtocolError, parse};
pub use session::{run, run_with};
