//! The endgame databases as the programs find and open them.

use std::path::Path;

use morris::DbError;
use morris::solution::Database;

/// Opens the databases in `dir`, telling standard error of each file
/// refused, as `morris` does (`skipped: ...`).
///
/// # Errors
///
/// The folder cannot be read.
pub fn open(dir: &Path) -> Result<Database, DbError> {
    let (db, refused) = Database::open(dir)?;
    for problem in refused {
        eprintln!("skipped: {problem}");
    }
    Ok(db)
}
