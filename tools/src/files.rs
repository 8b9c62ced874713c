//! Files the programs write.

use std::fs;
use std::io;
use std::path::Path;

/// Writes `text` to `path` whole or not at all.
///
/// The text goes to a file beside it first and is renamed into place, so
/// that an interrupted run never leaves half a file.
///
/// # Errors
///
/// The file cannot be written or renamed.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let partial = path.with_extension("partial");
    fs::write(&partial, text)?;
    fs::rename(&partial, path)
}
