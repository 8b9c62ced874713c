//! The `morris` command line.

use std::time::Instant;

use std::io::Write;
use std::process::ExitCode;

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
    /// Build the endgame databases by retrograde analysis.
    GenDb {
        /// Folder for the database files.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Build every sector in which each side has at most this many stones.
        #[arg(long, default_value_t = 5)]
        max_stones: usize,
        /// Build only the sectors with at most this many stones in all.
        #[arg(long)]
        max_total: Option<usize>,
        /// Worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the counts of every database sector in a folder.
    DbStats {
        /// Folder of database files.
        dir: std::path::PathBuf,
    },
    /// Print the database value of a position and of each of its moves.
    Probe {
        /// The position string.
        fen: String,
        /// Folder of database files.
        #[arg(long, default_value = "db")]
        db: std::path::PathBuf,
    },
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

/// Writes a line to standard output, returning the error (a closed pipe,
/// say) instead of panicking as `println!` does.
macro_rules! out {
    ($($arg:tt)*) => {
        writeln!(std::io::stdout().lock(), $($arg)*)?
    };
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that went away (`morris perft 6 --divide | head`) is not an error.
        Err(err)
            if err
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
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
    /// Moves per side without a removal that draw (0: off).
    #[arg(long, default_value_t = Rules::DEFAULT_N_MOVE_RULE)]
    nmoverule: u16,
    /// Folder of endgame databases (from gen-db) for perfect endgames.
    #[arg(long)]
    db: Option<std::path::PathBuf>,
}

fn run() -> Result<()> {
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
            let endgame = match &args.db {
                Some(dir) => {
                    let (db, rejected) = morris::endgame::EndgameDb::open(dir)
                        .with_context(|| format!("--db {}", dir.display()))?;
                    for err in rejected {
                        eprintln!("endgame database left out: {err}");
                    }
                    eprintln!("endgame databases: {} sectors loaded", db.len());
                    Some(std::sync::Arc::new(db))
                }
                None => None,
            };
            let settings = morris::play::PlaySettings {
                human,
                skill,
                move_time: std::time::Duration::from_millis(args.movetime),
                start: Position::new(Rules {
                    flying: !args.no_flying,
                    n_move_rule: args.nmoverule,
                    ..Rules::new(args.variant)
                }),
                endgame,
            };
            morris::play::run(
                std::io::stdin().lock(),
                &mut std::io::stdout().lock(),
                settings,
            )?;
            Ok(())
        }
        Some(Command::GenDb {
            out,
            max_stones,
            max_total,
            threads,
        }) => {
            let range = morris::endgame::SectorRange {
                per_side: max_stones,
                total: max_total.unwrap_or(2 * max_stones),
            };
            gen_db(&out, range, threads)
        }
        Some(Command::DbStats { dir }) => db_stats(&dir),
        Some(Command::Probe { fen, db }) => probe(&fen, &db),
        Some(Command::Bench { depth }) => {
            let report = morris::run_bench(depth, |index, nodes| {
                eprintln!(
                    "position {}/{}: {nodes} nodes",
                    index + 1,
                    BENCH_POSITIONS.len()
                );
            });
            let millis = report.time.as_millis();
            out!("Total time (ms) : {millis}");
            out!("Nodes searched  : {}", report.nodes);
            out!(
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
            out!("{mv}: {count}");
        }
        out!();
    }
    let nps = total as f64 / elapsed.as_secs_f64().max(1e-9);
    out!("Time: {} ms", elapsed.as_millis());
    out!("Nodes per second: {nps:.0}");
    out!("Nodes searched: {total}");
    Ok(())
}

fn gen_db(
    out: &std::path::Path,
    range: morris::endgame::SectorRange,
    threads: Option<usize>,
) -> Result<()> {
    use morris::endgame::{SectorIndex, generate};
    let sectors: Vec<SectorIndex> = range
        .pairs()
        .into_iter()
        .flat_map(|(a, b)| {
            if a == b {
                vec![(a, b)]
            } else {
                vec![(a, b), (b, a)]
            }
        })
        .map(|(a, b)| SectorIndex::new(a, b))
        .collect();
    let bar = indicatif::ProgressBar::new(sectors.iter().map(|s| s.len()).sum());
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} positions, {per_sec}, about {eta} left  {msg}",
        )?
        .progress_chars("=> "),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    let start = Instant::now();
    let mut finished = 0;
    let (mut built, mut kept, mut positions_built) = (0, 0, 0);
    pool.install(|| {
        // Decided positions move the bar within a sector; a finished
        // sector sets it to the positions of every sector done so far.
        generate(out, range, &|decided| bar.inc(decided), |report| {
            let h = report.header;
            finished += h.entries;
            bar.set_position(finished);
            if report.reused {
                kept += 1;
            } else {
                built += 1;
                positions_built += h.entries;
            }
            let what = if report.reused { "kept" } else { "built" };
            bar.println(format!("{}-{} {what}", h.mover, h.other));
        })
    })?;
    bar.finish_and_clear();
    let scope = format!(
        "up to {} stones a side, {} in all, in {}",
        range.per_side,
        range.total,
        out.display()
    );
    if built == 0 {
        out!("Nothing to build: all {kept} sectors ({scope}) were present and valid");
    } else {
        out!(
            "Built {built} sectors ({positions_built} indices) in {:.1} s and kept {kept} already present ({scope})",
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn db_stats(dir: &std::path::Path) -> Result<()> {
    let (db, rejected) = morris::endgame::EndgameDb::open(dir)?;
    for err in rejected {
        eprintln!("skipped: {err}");
    }
    if db.is_empty() {
        anyhow::bail!("no endgame databases in {}", dir.display());
    }
    let headers = db.headers();
    let table = |counts: fn(&morris::endgame::Header) -> [u64; 3]| -> Result<()> {
        for h in &headers {
            let [wins, draws, losses] = counts(h);
            out!(
                "{}-{} positions {} wins {wins} draws {draws} losses {losses} longest-win {}",
                h.mover,
                h.other,
                wins + draws + losses,
                h.longest_win
            );
        }
        Ok(())
    };
    table(|h| h.placement_counts)?;
    out!("over symmetry classes:");
    table(|h| h.class_counts)?;
    Ok(())
}

fn probe(fen: &str, dir: &std::path::Path) -> Result<()> {
    use morris::endgame::DbOutcome;
    let pos = Position::from_fen(fen, Rules::default()).context("the position")?;
    let (db, rejected) = morris::endgame::EndgameDb::open(dir)?;
    for err in rejected {
        eprintln!("skipped: {err}");
    }
    let describe = |value: Option<morris::endgame::DbValue>| match value {
        Some(v) if v.outcome == DbOutcome::Draw => "draw".to_owned(),
        Some(v) => format!(
            "{}, next removal in {} plies",
            if v.outcome == DbOutcome::Win {
                "win"
            } else {
                "loss"
            },
            v.distance
        ),
        None => "not in the databases".to_owned(),
    };
    out!("position: {}", describe(db.probe(&pos)));
    out!("moves, best first (the value for the side moving):");
    for (rank, (mv, value)) in (1..).zip(db.rank_moves(&pos)) {
        out!("{rank:>3}. {mv}: {}", describe(value));
    }
    Ok(())
}
