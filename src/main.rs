//! The `morris` command line.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use morris::{BENCH_DEPTH, BENCH_POSITIONS, Color, Position, Rules, Variant};

/// A Nine Men's Morris engine. With no command it speaks the text protocol
/// (UCI style) on standard input and output.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak the text protocol on standard input and output (the default).
    Uci,
    /// Count the move sequences of a given length (a test of the rules).
    Perft(PerftArgs),
    /// Play a game against the engine in the terminal.
    Play(PlayArgs),
    /// Search a fixed set of positions; the node count is a signature of the search.
    Bench {
        /// Depth of each search.
        #[arg(default_value_t = BENCH_DEPTH)]
        depth: u32,
    },
}

#[derive(clap::Args)]
struct PerftArgs {
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

#[derive(clap::Args)]
struct PlayArgs {
    /// Your colour: white, black or random.
    #[arg(long, default_value = "random")]
    color: String,
    /// The engine's level: easy, medium, hard, or a Skill Level from 0 to 20.
    #[arg(long, default_value = "medium")]
    level: String,
    /// The engine's time per move, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// The game: nine, twelve (morabaraba) or lasker.
    #[arg(long, default_value = "nine")]
    variant: Variant,
    /// Turn flying off.
    #[arg(long)]
    no_flying: bool,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        None | Some(Command::Uci) => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            morris::uci::run(stdin, &mut std::io::stdout().lock())?;
            Ok(())
        }
        Some(Command::Perft(args)) => run_perft(&args),
        Some(Command::Play(args)) => {
            let human = match args.color.to_ascii_lowercase().as_str() {
                "white" => Color::White,
                "black" => Color::Black,
                "random" if rand::random::<bool>() => Color::White,
                "random" => Color::Black,
                other => anyhow::bail!("--color: '{other}' is not white, black or random"),
            };
            let skill = morris::play::parse_level(&args.level).with_context(|| {
                format!(
                    "--level: '{}' is not easy, medium, hard or 0 to 20",
                    args.level
                )
            })?;
            let settings = morris::play::PlaySettings {
                human,
                skill,
                move_time: std::time::Duration::from_millis(args.movetime),
                start: Position::new(Rules {
                    flying: !args.no_flying,
                    ..Rules::new(args.variant)
                }),
            };
            morris::play::run(
                std::io::stdin().lock(),
                &mut std::io::stdout().lock(),
                settings,
            )?;
            Ok(())
        }
        Some(Command::Bench { depth }) => {
            let report = morris::run_bench(depth, |index, nodes| {
                eprintln!(
                    "position {}/{}: {nodes} nodes",
                    index + 1,
                    BENCH_POSITIONS.len()
                );
            });
            let millis = report.time.as_millis();
            println!("Total time (ms) : {millis}");
            println!("Nodes searched  : {}", report.nodes);
            println!(
                "Nodes/second    : {}",
                u128::from(report.nodes) * 1000 / millis.max(1)
            );
            Ok(())
        }
    }
}

fn run_perft(args: &PerftArgs) -> Result<()> {
    let rules = Rules {
        flying: !args.no_flying,
        ..Rules::new(args.variant)
    };
    let pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, rules).context("--fen")?,
        None => Position::new(rules),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    let start = Instant::now();
    let counts = pool.install(|| morris::divide(&pos, args.depth));
    let elapsed = start.elapsed();
    let total: u64 = if args.depth == 0 {
        1
    } else {
        counts.iter().map(|&(_, n)| n).sum()
    };
    if args.divide {
        for (mv, count) in &counts {
            println!("{mv}: {count}");
        }
        println!();
    }
    let nps = total as f64 / elapsed.as_secs_f64().max(1e-9);
    println!("Time: {} ms", elapsed.as_millis());
    println!("Nodes per second: {nps:.0}");
    println!("Nodes searched: {total}");
    Ok(())
}
