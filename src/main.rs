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
        /// Folder for the database files (default: the default folder).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Build every sector in which each side has at most this many stones.
        #[arg(long, default_value_t = 9)]
        max_stones: usize,
        /// Build only the sectors with at most this many stones in all.
        #[arg(long)]
        max_total: Option<usize>,
        /// Build only the pair A-B and B-A, from the smaller sectors in the folder.
        #[arg(long, value_name = "A-B", conflicts_with = "plan")]
        sector: Option<String>,
        /// Print the pairs to build in waves that can each run at once, with their needs.
        #[arg(long)]
        plan: bool,
        /// Worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the counts of every database sector in a folder.
    DbStats {
        /// Folder of database files (default: the default folder).
        dir: Option<std::path::PathBuf>,
    },
    /// Check the database files of a folder, and their values against their successors'.
    DbVerify {
        /// Folder of database files (default: the default folder).
        dir: Option<std::path::PathBuf>,
        /// Check about this many positions of each sector, spread evenly (default: all).
        #[arg(long)]
        sample: Option<u64>,
        /// Worker threads (default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print the database value of a position and of each of its moves.
    Probe {
        /// The position string.
        fen: String,
        /// Folder of database files (default: the default folder).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
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
    /// Folder of endgame databases (from gen-db; default: the default folder, if there).
    #[arg(long)]
    db: Option<std::path::PathBuf>,
}

/// The folder named, or the default one.
fn db_dir(named: Option<std::path::PathBuf>) -> Result<std::path::PathBuf> {
    named
        .or_else(morris::endgame::default_dir)
        .context("no folder named, and this system has no default data folder")
}

fn run() -> Result<()> {
    match Cli::parse().command {
        None | Some(Command::Uci) => {
            let stdin = std::io::BufReader::new(std::io::stdin());
            let default_db = morris::endgame::default_dir().filter(|dir| dir.is_dir());
            morris::uci::run_with(stdin, &mut std::io::stdout().lock(), default_db)?;
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
            let db = args
                .db
                .clone()
                .or_else(|| morris::endgame::default_dir().filter(|dir| dir.is_dir()));
            let endgame = match &db {
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
            sector,
            plan,
            threads,
        }) => {
            let range = morris::endgame::SectorRange {
                per_side: max_stones,
                total: max_total.unwrap_or(2 * max_stones),
            };
            if plan {
                return print_plan(range);
            }
            let only = sector.as_deref().map(parse_pair).transpose()?;
            gen_db(&db_dir(out)?, range, only, threads)
        }
        Some(Command::DbStats { dir }) => db_stats(&db_dir(dir)?),
        Some(Command::DbVerify {
            dir,
            sample,
            threads,
        }) => db_verify(&db_dir(dir)?, sample, threads),
        Some(Command::Probe { fen, db }) => probe(&fen, &db_dir(db)?),
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

/// A pair of sectors written `A-B`, as the smaller first.
fn parse_pair(text: &str) -> Result<(usize, usize)> {
    let parsed = text.split_once('-').and_then(|(a, b)| {
        Some((
            a.trim().parse::<usize>().ok()?,
            b.trim().parse::<usize>().ok()?,
        ))
    });
    match parsed {
        Some((a, b)) if (3..=12).contains(&a) && (3..=12).contains(&b) && a + b <= 24 => {
            Ok((a.min(b), a.max(b)))
        }
        _ => anyhow::bail!("--sector: '{text}' is not A-B with 3 to 12 stones a side"),
    }
}

/// Bytes of memory a pair takes to build, per index: its value and count
/// of moves (4), the positions decided at once by the first look (up to 8
/// each), and the byte written; the smaller sectors it needs are read into
/// memory besides (a byte an index). Measured peaks: 7-8 11.0 GiB, 7-9
/// 13.2 GiB, 8-9 12.7 GiB (about 1.07 billion indices each, and 1.7 to 1.9
/// billion bytes of smaller sectors).
const BUILD_BYTES_PER_INDEX: u64 = 12;

fn print_plan(range: morris::endgame::SectorRange) -> Result<()> {
    use morris::endgame::pair_sectors;
    out!("# wave pair indices memory-MiB disk-MiB needs");
    for (wave, pairs) in (1..).zip(range.waves()) {
        for (a, b) in pairs {
            let indices: u64 = pair_sectors(a, b).iter().map(|s| s.len()).sum();
            let dependencies = morris::endgame::pair_dependencies(a, b);
            let needed_bytes: u64 = dependencies
                .iter()
                .flat_map(|&(x, y)| pair_sectors(x, y))
                .map(|s| s.len())
                .sum();
            let needs: Vec<String> = dependencies
                .iter()
                .map(|(x, y)| format!("{x}-{y}"))
                .collect();
            out!(
                "{wave} {a}-{b} {indices} {} {} {}",
                (indices * BUILD_BYTES_PER_INDEX + needed_bytes).div_ceil(1 << 20),
                indices.div_ceil(1 << 20),
                if needs.is_empty() {
                    "-".to_owned()
                } else {
                    needs.join(",")
                }
            );
        }
    }
    Ok(())
}

const GIB: f64 = (1u64 << 30) as f64;

/// Starts counting the peak memory of the process afresh (Linux; nothing
/// elsewhere), so that each pair's peak is its own.
fn reset_peak_memory() {
    #[cfg(target_os = "linux")]
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The most memory the process has held since the last reset, in bytes
/// (Linux; `None` elsewhere).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn gen_db(
    out: &std::path::Path,
    range: morris::endgame::SectorRange,
    only: Option<(usize, usize)>,
    threads: Option<usize>,
) -> Result<()> {
    use morris::endgame::{BuildStep, generate_pair, pair_sectors};
    let pairs = match only {
        Some(pair) => vec![pair],
        None => range.pairs(),
    };
    let total: u64 = pairs
        .iter()
        .flat_map(|&(a, b)| pair_sectors(a, b))
        .map(|s| s.len())
        .sum();
    let bar = indicatif::ProgressBar::new(total);
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
    // A hidden bar (output not a terminal: a log file, a batch job)
    // prints nothing, so lines go straight out, with the steps of the
    // build a minute apart to show it is moving.
    let tell = |line: String| {
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
    };
    for pair in pairs {
        let pair_start = Instant::now();
        reset_peak_memory();
        let last_told = std::sync::Mutex::new(Instant::now());
        bar.set_message(format!("{}-{}", pair.0, pair.1));
        let step = |step: BuildStep| {
            bar.inc(step.decided());
            if !bar.is_hidden() {
                return;
            }
            let mut last = last_told.lock().expect("not poisoned");
            let line = match step {
                BuildStep::Looked { sector, decided } => {
                    format!(
                        "{}-{}: first look decided {decided}",
                        sector.mover, sector.other
                    )
                }
                BuildStep::TookBack { distance, decided } if last.elapsed().as_secs() >= 60 => {
                    format!(
                        "{}-{}: distance {distance} took back, {decided} decided",
                        pair.0, pair.1
                    )
                }
                BuildStep::TookBack { .. } => return,
            };
            *last = Instant::now();
            tell(format!(
                "{line} ({:.1} s)",
                pair_start.elapsed().as_secs_f64()
            ));
        };
        pool.install(|| {
            // Decided positions move the bar within a sector; a finished
            // sector sets it to the positions of every sector done so far.
            generate_pair(out, pair, &step, |report| {
                let h = report.header;
                finished += h.entries;
                bar.set_position(finished);
                if report.reused {
                    kept += 1;
                    tell(format!("{}-{} kept", h.mover, h.other));
                } else {
                    built += 1;
                    positions_built += h.entries;
                    let peak = peak_memory()
                        .map(|bytes| format!(", peak memory {:.1} GiB", bytes as f64 / GIB))
                        .unwrap_or_default();
                    tell(format!(
                        "{}-{} built ({} indices, pair {:.1} s so far{peak})",
                        h.mover,
                        h.other,
                        h.entries,
                        pair_start.elapsed().as_secs_f64()
                    ));
                }
            })
        })?;
    }
    bar.finish_and_clear();
    let scope = match only {
        Some((a, b)) => format!("the pair {a}-{b}, in {}", out.display()),
        None => format!(
            "up to {} stones a side, {} in all, in {}",
            range.per_side,
            range.total,
            out.display()
        ),
    };
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

fn db_verify(dir: &std::path::Path, sample: Option<u64>, threads: Option<usize>) -> Result<()> {
    let (db, rejected) = morris::endgame::EndgameDb::open(dir)?;
    let mut failures = rejected.len();
    for err in rejected {
        out!("{err}");
    }
    if db.is_empty() && failures == 0 {
        anyhow::bail!("no endgame databases in {}", dir.display());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .context("starting the worker threads")?;
    for file in db.files() {
        let (mover, other) = (file.sector.mover, file.sector.other);
        let start = Instant::now();
        if let Err(err) = file.verify() {
            out!("{mover}-{other}: {}", err.problem);
            failures += 1;
            continue;
        }
        let bar = indicatif::ProgressBar::new(file.sector.class_count() as u64);
        bar.set_message(format!("{mover}-{other}"));
        let check = pool
            .install(|| morris::endgame::check_sector(&db, file.sector, sample, &|n| bar.inc(n)));
        bar.finish_and_clear();
        let verdict = if check.wrong_count > 0 {
            failures += 1;
            format!(
                "{} WRONG (first at indices {:?})",
                check.wrong_count, check.wrong
            )
        } else {
            "all agree".to_owned()
        };
        let unknown = if check.unknown > 0 {
            failures += 1;
            format!(
                ", {} not checked (a successor's sector is missing)",
                check.unknown
            )
        } else {
            String::new()
        };
        out!(
            "{mover}-{other}: checksums good; {} positions checked against their successors: {verdict}{unknown} ({:.1} s)",
            check.checked,
            start.elapsed().as_secs_f64()
        );
    }
    if failures > 0 {
        anyhow::bail!("{failures} sectors failed");
    }
    out!("All {} sectors verified", db.len());
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

/// The end of placing solved to the databases' leaves: the outcome of the
/// position and of each move, and what it took.
fn probe_placing(pos: &Position, db: &morris::endgame::EndgameDb) -> Result<()> {
    use morris::endgame::{DbOutcome, PlacingSolver, Unsolved};
    let word = |outcome| match outcome {
        DbOutcome::Win => "win",
        DbOutcome::Draw => "draw",
        DbOutcome::Loss => "loss",
    };
    let start = Instant::now();
    let mut solver = PlacingSolver::new(db, None, None);
    let moves = pos.legal_moves();
    // Without limits the solver fails only on a sector it lacks.
    let unknown = |_: Unsolved| {
        anyhow::anyhow!("the end of placing reaches sectors that are not in the databases")
    };
    let solved = solver.solve_moves(pos, &moves).map_err(unknown)?;
    // The position's outcome is its best move's (a placing side always has one).
    let outcome = solved
        .iter()
        .map(|&(_, outcome)| outcome)
        .max_by_key(|o| o.rank())
        .unwrap_or(DbOutcome::Loss);
    out!(
        "position: {} (end of placing solved: {} nodes, {} ms)",
        word(outcome),
        solver.nodes(),
        start.elapsed().as_millis()
    );
    out!("moves (the outcome for the side moving):");
    for (mv, outcome) in solved {
        out!("  {mv}: {}", word(outcome));
    }
    Ok(())
}

fn probe(fen: &str, dir: &std::path::Path) -> Result<()> {
    use morris::endgame::DbOutcome;
    let pos = Position::from_fen(fen, Rules::default()).context("the position")?;
    let (db, rejected) = morris::endgame::EndgameDb::open(dir)?;
    for err in rejected {
        eprintln!("skipped: {err}");
    }
    if Color::ALL.iter().any(|&c| pos.in_hand(c) > 0) {
        return probe_placing(&pos, &db);
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
