//! The command families of the `morris` binary, and what they share.

pub mod db;
pub mod measure;
pub mod play;
pub mod puzzles;
pub mod review;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use morris::solution::Database;
use morris::{GameRecord, parse_records};

/// The database folder named, or the default one.
pub fn db_dir(named: Option<PathBuf>) -> Result<PathBuf> {
    named
        .or_else(morris::solution::default_dir)
        .context("no folder named, and this system has no default data folder")
}

/// A pool of `threads` workers, one per core by default.
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("starting the worker threads")
}

/// The game records of the file `path`.
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_records(&text).with_context(|| format!("the records in {}", path.display()))
}

/// The databases of `dir`, each file refused told on standard error, with
/// the number refused.
pub fn open_databases(dir: &Path) -> Result<(Database, usize)> {
    let (db, refused) =
        Database::open(dir).with_context(|| format!("the databases in {}", dir.display()))?;
    for err in &refused {
        eprintln!("skipped: {err}");
    }
    Ok((db, refused.len()))
}
