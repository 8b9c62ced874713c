//! The endgame databases as the programs find and open them.

use std::path::Path;

use morris::DbError;
use morris::solution::EndgameDb;

/// Opens the databases in `dir`, telling standard error of each file
/// refused, as `morris` does (`skipped: ...`).
///
/// # Errors
///
/// The folder cannot be read.
pub fn open(dir: &Path) -> Result<EndgameDb, DbError> {
    let (db, refused) = EndgameDb::open(dir)?;
    for problem in refused {
        eprintln!("skipped: {problem}");
    }
    Ok(db)
}
