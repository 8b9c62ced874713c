//! `puzzles`: the positions of a record file's games where one move alone
//! keeps the value, each graded by how deep a search without the
//! databases must look to find that move.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

use morris::files::write_whole;
use morris::search::{SearchLimits, SearchRequest, TranspositionTable};
use morris::solution::{Puzzle, find_puzzles};

use crate::cli::{db_dir, open_databases, read_records};

/// What `puzzles` reads and writes.
#[derive(clap::Args)]
pub struct PuzzlesArgs {
    /// A file of game records (as `play` and `morris-arena -pgnout` write).
    records: PathBuf,
    /// The file of puzzles to write, one a line (see `morris::solution::Puzzle::line`).
    out: PathBuf,
    /// Folder of database files (default: the default folder).
    #[arg(long)]
    db: Option<PathBuf>,
    /// The deepest search that grades a puzzle; one it does not solve is
    /// graded a ply deeper.
    #[arg(long, default_value_t = 12)]
    max_depth: u32,
}

/// How deep a one-thread search of the puzzle's position without the
/// databases must look before the move it plays is its solution: the
/// least depth up to `max_depth`, or one more where none does.
fn depth_to_find(puzzle: &Puzzle, max_depth: u32) -> Result<u32> {
    let root = puzzle.position;
    for depth in 1..=max_depth {
        let tt = Arc::new(TranspositionTable::new(16).context("the search's table")?);
        let request = SearchRequest::new(root, &[root.key()], SearchLimits::depth(depth));
        if request.run(tt).best == Some(puzzle.solution) {
            return Ok(depth);
        }
    }
    Ok(max_depth + 1)
}

/// Finds the puzzles of every game of the file (each position once),
/// grades them, and writes them easiest first.
pub fn puzzles(args: PuzzlesArgs) -> Result<()> {
    let records = read_records(&args.records)?;
    let (db, _) = open_databases(&db_dir(args.db)?)?;
    let mut seen = HashSet::new();
    let mut graded = Vec::new();
    for (number, record) in (1..).zip(&records) {
        let game = record
            .replay()
            .with_context(|| format!("game {number} of {}", args.records.display()))?;
        for puzzle in find_puzzles(&db, &game) {
            if seen.insert(puzzle.position.key()) {
                graded.push((depth_to_find(&puzzle, args.max_depth)?, puzzle));
            }
        }
        eprint!(
            "\rgame {number} of {}: {} puzzles",
            records.len(),
            graded.len()
        );
    }
    eprintln!();
    graded.sort_by_key(|&(depth, _)| depth);
    let lines: String = graded
        .iter()
        .map(|(depth, puzzle)| puzzle.line(*depth) + "\n")
        .collect();
    write_whole(&args.out, &[lines.as_bytes()])
        .with_context(|| format!("writing {}", args.out.display()))?;
    out!("{} puzzles written to {}", graded.len(), args.out.display());
    Ok(())
}
