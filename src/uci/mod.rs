//! The text protocol of docs/PROTOCOL.md: lines become [`Command`]s (a pure
//! parse), commands drive the [`Engine`](crate::Engine), search events become lines.
//! The same session speaks GBGP ([`gbgp`]) once a GUI opens with `gbgp`.

mod format;
pub mod gbgp;
mod parse;
mod session;

pub use format::{format_bench, format_bestmove, format_divide, format_info, printable};
pub use gbgp::{GbgpPosition, GbgpPositionError, GbgpWriteError, ParseGbgpPositionError};
pub use parse::{Command, ProtocolError, Start, parse};
pub use session::{run, run_with};
