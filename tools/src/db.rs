//! The endgame databases as the programs find and open them.

use std::path::Path;

use morris::DbError;
use morris::endgame::EndgameDb;

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
