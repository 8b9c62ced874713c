//! The commands that count and time: `perft` and `bench`.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};

use morris::{Position, Rules, Variant};

use morris::search::BENCH_POSITIONS;

use crate::cli::thread_pool;

/// What `perft` counts.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Number of turns.
    depth: u32,
    /// Start from this position string instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Print the count below each legal move.
    #[arg(long)]
    divide: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// The game: nine, twelve (morabaraba) or lasker.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off: a side down to three stones keeps sliding.
    #[arg(long)]
    no_flying: bool,
}

/// Counts the move sequences `args` asks for, with the time they took.
pub fn perft(args: &PerftArgs) -> Result<()> {
    let rules = Rules {
        flying: !args.no_flying,
        ..Rules::new(args.variant)
    };
    let pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, rules).context("--fen")?,
        None => Position::new(rules),
    };
    let pool = thread_pool(args.threads)?;
    let start = Instant::now();
    let counts = pool.install(|| morris::divide(&pos, args.depth));
    let elapsed = start.elapsed();
    let total = morris::divide_total(&counts, args.depth);
    if args.divide {
        // The moves' lines, then an empty one.
        out!("{}", morris::uci::format_divide(&counts));
    }
    let nps = total as f64 / elapsed.as_secs_f64().max(1e-9);
    out!("Time: {} ms", elapsed.as_millis());
    out!("Nodes per second: {nps:.0}");
    out!("Nodes searched: {total}");
    Ok(())
}

/// Searches the bench positions to `depth`, each position's nodes on
/// standard error and the report on standard output.
pub fn bench(depth: u32) -> Result<()> {
    let report = morris::search::run_bench(depth, |index, nodes| {
        eprintln!(
            "position {}/{}: {nodes} nodes",
            index + 1,
            BENCH_POSITIONS.len()
        );
    });
    out!("{}", morris::uci::format_bench(&report));
    Ok(())
}
