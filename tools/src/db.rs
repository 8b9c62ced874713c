//! The endgame databases as the programs find and open them.

use std::path::{Path, PathBuf};

use morris::DbError;
use morris::endgame::EndgameDb;

/// The databases' default folder (where `morris gen-db` builds), if it exists.
pub fn default_dir() -> Option<PathBuf> {
    morris::endgame::default_dir().filter(|dir| dir.is_dir())
}

/// Opens the databases in `dir`, telling standard error what it refused.
///
/// Each file refused is a line of its own, after `label`.
///
/// # Errors
///
/// The folder cannot be read.
pub fn open(dir: &Path, label: &str) -> Result<EndgameDb, DbError> {
    let (db, refused) = EndgameDb::open(dir)?;
    for problem in refused {
        eprintln!("{label}: {problem}");
    }
    Ok(db)
}
