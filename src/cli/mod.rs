//! The command families of the `morris` binary, and what they share.

pub mod db;
pub mod measure;
pub mod play;
pub mod review;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use morris::solution::Database;

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
