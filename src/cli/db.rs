//! The database commands: `gen-db` (with `--plan`), `db-stats`, `db-verify`,
//! `db-compare`, `db-convert` and `probe`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use anyhow::{Context, Result};

use morris::search::{SOLVED_WITH_RULE, Unsolved, placing_moves};
use morris::solution::format::convert::{Converted, convert_file, finish};
use morris::solution::format::{INTERMEDIATE, MovingHeader, PlacingHeader};
use morris::solution::retrograde::{
    BuildStep, Generated, PlacingBuild, SectorRange, generate_unit, pair_dependencies,
    pair_sectors, removal_sectors, unit_needs,
};
use morris::solution::{
    Database, DbOutcome, DbValue, Sector, SectorCheck, SectorIndex, check_sector, compare_sector,
};
use morris::{FullBoard, Position, Rules, Variant};

use crate::cli::{db_dir, open_databases, thread_pool};

/// What `gen-db` builds, and where.
#[derive(clap::Args)]
pub struct GenDbArgs {
    /// Folder for the database files (default: the default folder).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The game: nine, or twelve (morabaraba).
    #[arg(long, default_value_t = Variant::Nine)]
    variant: Variant,
    /// What a board twelve's last placement fills is: draw, or whiteloses
    /// (the placing sectors that can fill it have files of each rule; the
    /// rest are shared).
    #[arg(long, default_value_t = FullBoard::Draw)]
    full_board: FullBoard,
    /// Build every sector in which each side has at most this many stones
    /// (default: the variant's stones).
    #[arg(long)]
    max_stones: Option<usize>,
    /// Build only the sectors with at most this many stones in all.
    #[arg(long)]
    max_total: Option<usize>,
    /// Build only the pair A-B and B-A of the moving phase, or the placing
    /// sector M-O-H-I (stones on the board of the side to move and of the
    /// other side, then in hand), from the sectors it needs in the folder.
    #[arg(long, value_name = "A-B|M-O-H-I", conflicts_with = "plan")]
    sector: Option<SectorChoice>,
    /// Which phases to build: the placing phase needs the moving phase's
    /// sectors of as many stones.
    #[arg(long, value_enum, default_value_t = Phases::Both)]
    phase: Phases,
    /// Print the pairs to build in waves that can each run at once, with their needs.
    #[arg(long)]
    plan: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// Stop, with what is built kept, once a pair or placing sector is
    /// built after this long (as `90s`, `45m` or `8h`); the same command
    /// goes on from there.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    stop_after: Option<std::time::Duration>,
}

/// A duration written as a number of seconds, minutes or hours: `90s`,
/// `45m`, `8h` (seconds without a unit).
fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let seconds = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("'{text}': the unit is s, m or h")),
    };
    number
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .and_then(|n| std::time::Duration::try_from_secs_f64(n * seconds).ok())
        .ok_or_else(|| format!("'{text}' is not a duration such as 90s, 45m or 8h"))
}

/// What `db-verify` checks.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Folder of database files (default: the default folder).
    dir: Option<PathBuf>,
    /// Check about this many positions of each sector, spread evenly (default: all).
    #[arg(long)]
    sample: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// What `db-compare` compares.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// The first folder of database files.
    ours: PathBuf,
    /// The second folder of database files.
    theirs: PathBuf,
    /// Compare about this many positions of each sector, spread evenly (default: all).
    #[arg(long)]
    sample: Option<u64>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

/// What `db-convert` converts, and where.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Folder of database files of the format before this build's.
    from: PathBuf,
    /// Folder for the converted files (default: FROM, each file replaced
    /// as it is converted).
    to: Option<PathBuf>,
}

/// What `probe` looks up.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// The position string.
    fen: String,
    /// Folder of database files (default: the default folder).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Moves per side without a removal that draw (0: off); the databases'
    /// values ignore the rule, and the values shown apply it.
    #[arg(long, default_value_t = Rules::DEFAULT_N_MOVE_RULE)]
    nmoverule: u16,
    /// The game: nine, twelve (morabaraba) or lasker.
    #[arg(long, default_value_t = Variant::Nine)]
    variant: Variant,
    /// What a board twelve's last placement fills is: draw, or whiteloses.
    #[arg(long, default_value_t = FullBoard::Draw)]
    full_board: FullBoard,
}

/// The phases `gen-db` builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Phases {
    /// The moving phase, then the placing phase.
    Both,
    /// The moving phase (nothing in hand).
    Moving,
    /// The placing phase, from the moving phase in the folder.
    Placing,
}

/// One thing `gen-db --sector` builds, as written: a pair of moving
/// sectors `A-B` (stones of each side), or a placing sector `M-O-H-I`; a
/// sector of the variant built once the variant is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectorChoice {
    /// The moving sectors A-B and B-A.
    Pair(usize, usize),
    /// One placing sector: stones on the board of the side to move and of
    /// the other side, then in hand.
    Placing([usize; 4]),
}

impl FromStr for SectorChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let numbers: Option<Vec<usize>> = text.split('-').map(|n| n.trim().parse().ok()).collect();
        match numbers.as_deref() {
            Some(&[a, b]) => Ok(SectorChoice::Pair(a.min(b), a.max(b))),
            Some(&[mover, other, mover_hand, other_hand]) => Ok(SectorChoice::Placing([
                mover, other, mover_hand, other_hand,
            ])),
            _ => Err(format!(
                "'{text}' is neither a moving pair A-B nor a placing sector M-O-H-I"
            )),
        }
    }
}

impl SectorChoice {
    /// What is built of `variant`: the pair, or the placing sector (of the
    /// full-board rule `full_board` if it can fill the board), if `variant`
    /// has it.
    fn of(self, variant: Variant, full_board: FullBoard) -> Result<BuildChoice> {
        let stones = variant.stones();
        match self {
            SectorChoice::Pair(a, b) => Sector::new(variant, a, b, 0, 0)
                .map(|_| BuildChoice::Pair(a, b))
                .with_context(|| {
                    format!("{a}-{b} is no moving pair of {variant}: 3 to {stones} stones a side")
                }),
            SectorChoice::Placing([mover, other, mover_hand, other_hand]) => {
                Sector::placing(variant, mover, other, mover_hand, other_hand)
                    .map(|sector| BuildChoice::Placing(sector.under(full_board)))
                    .with_context(|| {
                        format!(
                            "{mover}-{other}-{mover_hand}-{other_hand} is no placing sector of \
                             {variant}: the side to move has as many in hand as the other or one \
                             more, each side 3 to {stones} stones in all"
                        )
                    })
            }
        }
    }
}

/// One thing `gen-db --sector` builds, of the variant asked for.
enum BuildChoice {
    /// The moving sectors A-B and B-A.
    Pair(usize, usize),
    /// One placing sector.
    Placing(Sector),
}

/// Builds the sectors `args` asks for, or prints their plan.
pub fn gen_db(args: GenDbArgs) -> Result<()> {
    let variant = args.variant;
    if variant.may_slide_while_placing() {
        return gen_db_interleaved(args);
    }
    let stones = usize::from(variant.stones());
    let per_side = args.max_stones.unwrap_or(stones);
    anyhow::ensure!(
        (3..=stones).contains(&per_side),
        "--max-stones {per_side}: {variant} has 3 to {stones} stones a side"
    );
    let range = SectorRange {
        variant,
        per_side,
        total: args.max_total.unwrap_or(2 * per_side),
    };
    // The placing phase reaches every moving sector of as many stones.
    let placing = args.phase != Phases::Moving && args.max_total.is_none();
    let moving = args.phase != Phases::Placing;
    if args.plan {
        return print_plan(range, moving, placing);
    }
    let choice = args
        .sector
        .map(|choice| choice.of(variant, args.full_board))
        .transpose()?;
    let dir = db_dir(args.out)?;
    let placing_sectors: Vec<Sector> = Sector::placing_within(variant, per_side)
        .into_iter()
        .map(|sector| sector.under(args.full_board))
        .collect();
    let until = Until {
        start: Instant::now(),
        stop_after: args.stop_after,
    };
    let pair = |(a, b): (usize, usize)| Sector::moving(variant, SectorIndex::new(a, b));
    match choice {
        Some(BuildChoice::Pair(a, b)) => {
            let scope = format!("the pair {a}-{b} of {variant}");
            build(&dir, &[pair((a, b))], &scope, args.threads, until).map(drop)
        }
        Some(BuildChoice::Placing(sector)) => {
            build_placing(&dir, &[sector], &placing_sectors, args.threads, until).map(drop)
        }
        None => {
            let pairs: Vec<Sector> = range.pairs().into_iter().map(pair).collect();
            let scope = format!(
                "{variant} up to {} stones a side, {} in all",
                range.per_side, range.total
            );
            if moving && !build(&dir, &pairs, &scope, args.threads, until)? {
                return Ok(());
            }
            if placing
                && build_placing(
                    &dir,
                    &placing_sectors,
                    &placing_sectors,
                    args.threads,
                    until,
                )?
            {
                // Every sector built from the intermediate files is there.
                remove_intermediate(&dir, variant)?;
            }
            Ok(())
        }
    }
}

/// Builds the sectors `args` asks for of a variant where a side with
/// stones in hand may slide, whose placing and moving interleave: every
/// sector of stones on the board and in hand, a sector and its twin at a
/// time (see [`generate_unit`]).
fn gen_db_interleaved(args: GenDbArgs) -> Result<()> {
    let variant = args.variant;
    let stones = usize::from(variant.stones());
    let per_side = args.max_stones.unwrap_or(stones);
    anyhow::ensure!(
        (3..=stones).contains(&per_side),
        "--max-stones {per_side}: {variant} has 3 to {stones} stones a side"
    );
    anyhow::ensure!(
        args.max_total.is_none() && args.phase == Phases::Both,
        "{variant}'s placing and moving interleave: it is built whole, up to --max-stones a side"
    );
    if args.plan {
        return print_interleaved_plan(variant, per_side);
    }
    let units = match args.sector {
        None => Sector::interleaved_within(variant, per_side),
        Some(choice) => {
            let [mover, other, mover_hand, other_hand] = match choice {
                SectorChoice::Pair(a, b) => [a, b, 0, 0],
                SectorChoice::Placing(stones) => stones,
            };
            let sector =
                Sector::new(variant, mover, other, mover_hand, other_hand).with_context(|| {
                    format!(
                        "{mover}-{other}-{mover_hand}-{other_hand} is no sector of {variant}: \
                         each side 3 to {stones} stones on the board and in hand"
                    )
                })?;
            vec![sector]
        }
    };
    let scope = match args.sector {
        Some(_) => format!("{} of {variant} and its twin", units[0]),
        None => format!("{variant} up to {per_side} stones a side"),
    };
    let until = Until {
        start: Instant::now(),
        stop_after: args.stop_after,
    };
    build(&db_dir(args.out)?, &units, &scope, args.threads, until).map(drop)
}

/// Bytes of memory a unit with stones in hand takes to build, per index:
/// as a pair (see [`BUILD_BYTES_PER_INDEX`]), and beside each entry the
/// best of its moves out.
const UNIT_BYTES_PER_INDEX: u64 = BUILD_BYTES_PER_INDEX + 1;

/// Bits a file with stones in hand takes per index, at most: every
/// distance is kept.
const UNIT_FILE_BITS_PER_INDEX: u64 = 4;

/// Prints the plan of a build of `variant` (placing and moving
/// interleaved) up to `per_side` stones a side: each unit (named by its
/// first sector; with nothing in hand, a pair `A-B`) with its wave, the
/// first after the waves of every unit it needs, so that a wave's units
/// can be built at once; its indices, memory and disk, and what it needs.
fn print_interleaved_plan(variant: Variant, per_side: usize) -> Result<()> {
    let units = Sector::interleaved_within(variant, per_side);
    let name = |unit: Sector| {
        let board = unit.board;
        if unit.is_placing() {
            unit.to_string()
        } else {
            let (a, b) = (board.mover.min(board.other), board.mover.max(board.other));
            format!("{a}-{b}")
        }
    };
    // Each sector's unit, by either of its two sectors.
    let mut unit_of = std::collections::HashMap::new();
    let mut waves = std::collections::HashMap::new();
    out!("# wave sector indices memory-MiB disk-MiB needs");
    for unit in units {
        let needs = unit_needs(unit);
        let wave = 1 + needs
            .iter()
            .filter_map(|need| waves.get(unit_of.get(need)?))
            .max()
            .copied()
            .unwrap_or(0);
        let twins = unit.with_twin();
        let indices: u64 = twins.iter().map(|s| s.len()).sum();
        let needed_bytes: u64 = needs.iter().map(|s| decoded_outcome_bytes(s.len())).sum();
        let (memory, disk) = if unit.is_placing() {
            (UNIT_BYTES_PER_INDEX, UNIT_FILE_BITS_PER_INDEX)
        } else {
            (BUILD_BYTES_PER_INDEX, FILE_BITS_PER_INDEX)
        };
        let mut names: Vec<String> = needs.iter().map(|&need| name(unit_of[&need])).collect();
        names.dedup();
        out!(
            "{wave} {} {indices} {} {} {}",
            name(unit),
            (indices * memory)
                .max(indices * 5 + needed_bytes)
                .div_ceil(1 << 20),
            (indices * disk).div_ceil(8 << 20),
            if names.is_empty() {
                "-".to_owned()
            } else {
                names.join(",")
            }
        );
        for sector in twins {
            unit_of.insert(sector, unit);
        }
        waves.insert(unit, wave);
    }
    Ok(())
}

/// When a build stops before its end: once a unit is built after
/// `stop_after` from `start`.
#[derive(Clone, Copy)]
struct Until {
    start: Instant,
    stop_after: Option<std::time::Duration>,
}

impl Until {
    /// Whether the time is up with `left` units (`what`) still to look
    /// at; if so, says so.
    fn stops(self, left: usize, what: &str) -> Result<bool> {
        let Some(limit) = self
            .stop_after
            .filter(|&limit| self.start.elapsed() >= limit)
        else {
            return Ok(false);
        };
        out!(
            "Stopped after {:.0} s (--stop-after {} s): {left} {what} left; the same command goes on from there",
            self.start.elapsed().as_secs_f64(),
            limit.as_secs_f64()
        );
        Ok(true)
    }
}

/// Removes the intermediate files of `variant` from the build folder
/// `dir`, and the intermediate folder once it is empty: another variant's
/// build may still need its own.
fn remove_intermediate(dir: &Path, variant: Variant) -> Result<()> {
    let intermediate = dir.join(INTERMEDIATE);
    let entries = match std::fs::read_dir(&intermediate) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        entries => entries.with_context(|| format!("cannot read {}", intermediate.display()))?,
    };
    let prefix = format!("{variant}-");
    for entry in entries {
        let path = entry?.path();
        let ours = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(&prefix));
        if ours {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    // Left where another variant's files (or anything else) are in it.
    let _ = std::fs::remove_dir(&intermediate);
    Ok(())
}

/// Bytes of memory a pair takes to build, per index: its value and count
/// of moves (4), beside them the positions decided at one distance,
/// listed for the next (up to about a byte an index), and at the end each
/// sector's finished values (2 an index, as the working entries are let
/// go of, and the file's streams as they are written, under 2 more). The
/// sectors its removals lead to are read into memory for the first step
/// alone (their outcomes, under half a byte an index).
const BUILD_BYTES_PER_INDEX: u64 = 6;

/// Bytes of memory a placing sector takes to build, per index: its value
/// (1) and, read into memory, its successors' values (a quarter byte an
/// index each); the moving sectors the last placements lead to take under
/// half a byte an index.
const PLACING_BYTES_PER_INDEX: u64 = 1;

/// Bits a moving sector's file takes per index, at most: the two streams
/// compressed, with room to spare.
const FILE_BITS_PER_INDEX: u64 = 3;

/// Bytes the outcomes of a moving sector of `indices` take, decoded in
/// memory: two bits an index, and one for the far flags.
fn decoded_outcome_bytes(indices: u64) -> u64 {
    (indices * 3).div_ceil(8)
}

fn print_plan(range: SectorRange, moving: bool, placing: bool) -> Result<()> {
    out!("# wave sector indices memory-MiB disk-MiB needs");
    let mut waves = 0;
    if moving {
        for (wave, pairs) in (1..).zip(range.waves()) {
            waves = wave;
            for (a, b) in pairs {
                let indices: u64 = pair_sectors(a, b).iter().map(|s| s.len()).sum();
                let dependencies = pair_dependencies(a, b);
                let needed_bytes: u64 = removal_sectors(a, b)
                    .iter()
                    .map(|s| decoded_outcome_bytes(s.len()))
                    .sum();
                let needs: Vec<String> = dependencies
                    .iter()
                    .map(|(x, y)| format!("{x}-{y}"))
                    .collect();
                out!(
                    "{wave} {a}-{b} {indices} {} {} {}",
                    (indices * BUILD_BYTES_PER_INDEX)
                        .max(indices * 4 + needed_bytes)
                        .div_ceil(1 << 20),
                    FILE_BITS_PER_INDEX
                        .saturating_mul(indices)
                        .div_ceil(8 << 20),
                    if needs.is_empty() {
                        "-".to_owned()
                    } else {
                        needs.join(",")
                    }
                );
            }
        }
    }
    if placing {
        // A level of placing sectors (as many stones left to place) needs
        // only the level after it, the last one the moving phase.
        for sector in Sector::placing_within(range.variant, range.per_side) {
            let wave = waves + sector.to_place();
            let needs = sector.needs();
            let needed_bytes: u64 = needs
                .iter()
                .map(|&next| {
                    if next.is_placing() {
                        next.len().div_ceil(4)
                    } else {
                        decoded_outcome_bytes(next.len())
                    }
                })
                .sum();
            // A moving sector is built, and named, with its pair.
            let names: Vec<String> = needs
                .iter()
                .map(|&next| {
                    let (a, b) = (next.board.mover, next.board.other);
                    if next.is_placing() {
                        next.to_string()
                    } else {
                        format!("{}-{}", a.min(b), a.max(b))
                    }
                })
                .collect();
            let indices = sector.len();
            out!(
                "{wave} {sector} {indices} {} {} {}",
                (indices * PLACING_BYTES_PER_INDEX + needed_bytes).div_ceil(1 << 20),
                indices.div_ceil(4).div_ceil(1 << 20),
                names.join(",")
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

/// The bar of a build of `total` positions, counted as `what`.
fn build_bar(total: u64, what: &str) -> Result<indicatif::ProgressBar> {
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{human_pos}}/{{human_len}} {what}, {{per_sec}}, about {{eta}} left  {{msg}}"
        ))?
        .progress_chars("=> "),
    );
    Ok(bar)
}

/// Writes a line of a build's report above `bar`, or straight out when the
/// bar is hidden (output not a terminal: a log file, a batch job), since a
/// hidden bar prints nothing.
fn tell(bar: &indicatif::ProgressBar, line: String) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// `, peak memory X GiB` since the last reset, where the system tells it.
fn peak_memory_note() -> String {
    peak_memory()
        .map(|bytes| format!(", peak memory {:.1} GiB", bytes as f64 / GIB))
        .unwrap_or_default()
}

/// Builds `units` in `out`, in order, each a sector and its twin (a pair
/// of the moving phase, or where a side with stones in hand may slide, a
/// sector with stones in hand and its twin), keeping those present and
/// valid; `scope` says what they are. Whether it came to the end (or
/// stopped `until` says).
fn build(
    out: &Path,
    units: &[Sector],
    scope: &str,
    threads: Option<usize>,
    until: Until,
) -> Result<bool> {
    let total: u64 = units
        .iter()
        .flat_map(|&unit| unit.with_twin())
        .map(|s| s.len())
        .sum();
    let bar = build_bar(total, "positions")?;
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let mut finished = 0;
    let (mut built, mut kept, mut positions_built) = (0, 0, 0);
    // The steps of the build are told a minute apart when the bar is
    // hidden, to show it is moving.
    let tell = |line: String| tell(&bar, line);
    let mut stopped = false;
    for (done, &unit) in units.iter().enumerate() {
        if built > 0 && until.stops(units.len() - done, "units")? {
            stopped = true;
            break;
        }
        let unit_start = Instant::now();
        reset_peak_memory();
        let last_told = std::sync::Mutex::new(Instant::now());
        bar.set_message(unit.to_string());
        let step = |step: BuildStep| {
            bar.inc(step.decided());
            if !bar.is_hidden() {
                return;
            }
            let mut last = last_told.lock().expect("not poisoned");
            let line = match step {
                BuildStep::Looked { sector, decided } => {
                    format!("{sector}: first look decided {decided}")
                }
                BuildStep::TookBack { distance, decided } if last.elapsed().as_secs() >= 60 => {
                    format!("{unit}: distance {distance} took back, {decided} decided")
                }
                BuildStep::TookBack { .. } => return,
            };
            *last = Instant::now();
            tell(format!(
                "{line} ({:.1} s)",
                unit_start.elapsed().as_secs_f64()
            ));
        };
        pool.install(|| {
            // Decided positions move the bar within a sector; a finished
            // sector sets it to the positions of every sector done so far.
            generate_unit(out, unit, &step, |report| {
                let (sector, entries) = (report.sector, report.sector.len());
                finished += entries;
                bar.set_position(finished);
                if report.how == Generated::Kept {
                    kept += 1;
                    tell(format!("{sector} kept"));
                } else {
                    built += 1;
                    positions_built += entries;
                    let peak = peak_memory_note();
                    tell(format!(
                        "{sector} built ({entries} indices, unit {:.1} s so far{peak})",
                        unit_start.elapsed().as_secs_f64()
                    ));
                }
            })
        })?;
    }
    bar.finish_and_clear();
    let scope = format!("{scope}, in {}", out.display());
    if built == 0 {
        out!("Nothing to build: all {kept} sectors ({scope}) were present and valid");
    } else {
        out!(
            "Built {built} sectors ({positions_built} indices) in {:.1} s and kept {kept} already present ({scope})",
            start.elapsed().as_secs_f64()
        );
    }
    Ok(!stopped)
}

/// Builds the placing sectors `sectors` (in order: each from those before
/// it and the moving phase) in `out`, keeping those present and valid, and
/// leaving out those derived that no sector kept in a file of `among` (the
/// game's sectors) needs; whether it came to the end (or stopped `until`
/// says).
fn build_placing(
    out: &Path,
    sectors: &[Sector],
    among: &[Sector],
    threads: Option<usize>,
    until: Until,
) -> Result<bool> {
    let mut placing = PlacingBuild::new(out, among);
    let total: u64 = sectors.iter().map(|s| s.len()).sum();
    let bar = build_bar(total, "placing positions")?;
    let tell = |line: String| tell(&bar, line);
    let pool = thread_pool(threads)?;
    let start = Instant::now();
    let (mut built, mut kept, mut not_needed, mut positions_built) = (0, 0, 0, 0);
    let mut finished = 0;
    let mut stopped = false;
    for (done, &sector) in sectors.iter().enumerate() {
        if built > 0 && until.stops(sectors.len() - done, "placing sectors")? {
            stopped = true;
            break;
        }
        let sector_start = Instant::now();
        reset_peak_memory();
        bar.set_message(format!("placing {sector}"));
        let progress = |positions: u64| bar.inc(positions);
        pool.install(|| {
            placing.sector(sector, &progress, |report| {
                finished += sector.len();
                bar.set_position(finished);
                match report.how {
                    Generated::Kept => {
                        kept += 1;
                        tell(format!("placing {sector} kept"));
                    }
                    Generated::NotNeeded => {
                        not_needed += 1;
                        tell(format!(
                            "placing {sector} not needed: derived, and what is built from it is there"
                        ));
                    }
                    Generated::Built => {
                        built += 1;
                        positions_built += sector.len();
                        let peak = peak_memory_note();
                        tell(format!(
                            "placing {sector} built ({} indices, {:.1} s{peak})",
                            sector.len(),
                            sector_start.elapsed().as_secs_f64()
                        ));
                    }
                }
            })
        })?;
    }
    bar.finish_and_clear();
    let scope = format!("{} placing sectors in {}", sectors.len(), out.display());
    let left_out = if not_needed > 0 {
        format!(", {not_needed} not needed")
    } else {
        String::new()
    };
    if built == 0 {
        out!("Nothing to build: {kept} of the {scope} present and valid{left_out}");
    } else {
        out!(
            "Built {built} placing sectors ({positions_built} indices) in {:.1} s and kept {kept} already present{left_out} ({scope})",
            start.elapsed().as_secs_f64()
        );
    }
    Ok(!stopped)
}

/// Checks the files of a folder and their values against their successors'.
pub fn db_verify(args: VerifyArgs) -> Result<()> {
    let dir = db_dir(args.dir)?;
    let (db, mut failures) = open_databases(&dir)?;
    if db.is_empty() && failures == 0 {
        anyhow::bail!("no endgame databases in {}", dir.display());
    }
    let pool = thread_pool(args.threads)?;
    for sector in db.sectors() {
        let name = sector_name(sector);
        // The time said is the blocks' check and the values' together.
        let start = Instant::now();
        if let Some(Err(err)) = db.verify_file(sector) {
            out!("{name}: {}", err.problem);
            failures += 1;
            continue;
        }
        let done = "checked against their successors";
        let unknown = "not checked (a successor's sector is missing)";
        let (report, passed) = run_check(&pool, start, sector, done, unknown, |progress| {
            check_sector(&db, sector, args.sample, progress)
        });
        failures += usize::from(!passed);
        out!("{name}: checksums good; {report}");
    }
    if failures > 0 {
        anyhow::bail!("{failures} sectors failed");
    }
    out!("All {} sectors verified", db.len());
    Ok(())
}

/// Compares two folders sector by sector, index by index: every sector of
/// either must be in both, with the same values, its file in both unless
/// its values are derived (see [`Sector::is_stored`]).
pub fn db_compare(args: CompareArgs) -> Result<()> {
    let (ours, mut failures) = open_databases(&args.ours)?;
    let (theirs, refused) = open_databases(&args.theirs)?;
    failures += refused;
    let (our_sectors, their_sectors) = (ours.sectors(), theirs.sectors());
    let mut sectors = our_sectors.clone();
    sectors.extend(their_sectors.iter().filter(|s| !our_sectors.contains(s)));
    let pool = thread_pool(args.threads)?;
    for &sector in &sectors {
        let only = if !their_sectors.contains(&sector) {
            Some(&args.ours)
        } else if !our_sectors.contains(&sector) {
            Some(&args.theirs)
        } else {
            None
        };
        if let Some(dir) = only.filter(|_| sector.is_stored()) {
            out!("{sector}: only in {}", dir.display());
            failures += 1;
            continue;
        }
        let (report, passed) = run_check(
            &pool,
            Instant::now(),
            sector,
            "compared",
            "missing on one side",
            |progress| compare_sector(&ours, &theirs, sector, args.sample, progress),
        );
        failures += usize::from(!passed);
        out!("{sector}: {report}");
    }
    if failures > 0 {
        anyhow::bail!("{failures} sectors differ, are refused or are missing on one side");
    }
    out!("All {} sectors agree", sectors.len());
    Ok(())
}

/// Converts every database file of a folder into this build's format, the
/// smallest first; a file converted already is checked and left as it is,
/// so that a conversion cut short goes on where it stopped.
pub fn db_convert(args: ConvertArgs) -> Result<()> {
    let to = args.to.unwrap_or_else(|| args.from.clone());
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&args.from)
        .with_context(|| format!("cannot read {}", args.from.display()))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().and_then(|e| e.to_str()) == Some("mdb"))
        .map(|path| (std::fs::metadata(&path).map_or(0, |m| m.len()), path))
        .collect();
    files.sort();
    if files.is_empty() {
        anyhow::bail!("no database files in {}", args.from.display());
    }
    std::fs::create_dir_all(&to).with_context(|| format!("cannot create {}", to.display()))?;
    let bar = indicatif::ProgressBar::new(files.iter().map(|(len, _)| len).sum());
    let (mut before, mut after, mut failures) = (0u64, 0u64, 0usize);
    let (mut written, mut current, mut left_out) = (0, 0, Vec::new());
    for (len, path) in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        bar.set_message(name.to_string());
        let start = Instant::now();
        let line = match convert_file(path, &to) {
            Ok(Converted::Written {
                before: old,
                after: new,
                ..
            }) => {
                written += 1;
                before += old;
                after += new;
                format!(
                    "{name}: {old} bytes -> {new} ({:.1}%, {:.1} s)",
                    100.0 * new as f64 / old.max(1) as f64,
                    start.elapsed().as_secs_f64()
                )
            }
            Ok(Converted::Current(_)) => {
                current += 1;
                format!("{name}: converted already")
            }
            Ok(Converted::LeftOut(_)) => {
                left_out.push(path);
                format!("{name}: left out, its values derived from the files beside it")
            }
            Err(err) => {
                failures += 1;
                format!("{err}")
            }
        };
        bar.suspend(|| writeln!(std::io::stdout().lock(), "{line}"))?;
        bar.inc(*len);
    }
    bar.finish_and_clear();
    if failures > 0 {
        anyhow::bail!("{failures} files not converted");
    }
    finish(&to)?;
    // Converted in place, the folder keeps only what the engine reads.
    let in_place = args.from.canonicalize().ok() == to.canonicalize().ok();
    if in_place {
        for path in &left_out {
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    out!(
        "Converted {written} files ({before} bytes -> {after}) and kept {current} in {}; {} left out{}",
        to.display(),
        left_out.len(),
        if in_place && !left_out.is_empty() {
            " and removed"
        } else {
            ""
        }
    );
    Ok(())
}

/// A sector as `db-verify` names it: `placing` before a sector of the
/// placing phase (see [`Position::in_placing_phase`]).
fn sector_name(sector: Sector) -> String {
    if !sector.keeps_distances() {
        format!("placing {sector}")
    } else {
        sector.to_string()
    }
}

/// Runs `check` of `sector` on `pool` behind a progress bar, and says what
/// it found in words (the positions `done`, the agreement or the wrong
/// indices, the positions left `unknown`, the time since `start`), and
/// whether it passed.
fn run_check(
    pool: &rayon::ThreadPool,
    start: Instant,
    sector: Sector,
    done: &str,
    unknown: &str,
    check: impl FnOnce(&(dyn Fn(u64) + Sync)) -> SectorCheck + Send,
) -> (String, bool) {
    let bar = indicatif::ProgressBar::new(sector.board.class_count() as u64);
    bar.set_message(sector_name(sector));
    let check = pool.install(|| check(&|n| bar.inc(n)));
    bar.finish_and_clear();
    let verdict = if check.wrong_count > 0 {
        format!(
            "{} WRONG (first at indices {:?})",
            check.wrong_count, check.wrong
        )
    } else {
        "all agree".to_owned()
    };
    let unknown = if check.unknown > 0 {
        format!(", {} {unknown}", check.unknown)
    } else {
        String::new()
    };
    let report = format!(
        "{} positions {done}: {verdict}{unknown} ({:.1} s)",
        check.checked,
        start.elapsed().as_secs_f64()
    );
    (report, check.wrong_count == 0 && check.unknown == 0)
}

/// Prints the counts of every sector of a folder.
pub fn db_stats(dir: &Path) -> Result<()> {
    let (db, _) = open_databases(dir)?;
    if db.is_empty() {
        anyhow::bail!("no endgame databases in {}", dir.display());
    }
    let moving = db.moving_files();
    let table = |counts: fn(&MovingHeader) -> [u64; 3]| -> Result<()> {
        for file in &moving {
            let h = &file.header;
            let [wins, draws, losses] = counts(h);
            out!(
                "{} positions {} wins {wins} draws {draws} losses {losses} longest-win {}",
                file.sector,
                wins + draws + losses,
                h.longest_win
            );
        }
        Ok(())
    };
    let placing = db.placing_files();
    let placing_table = |counts: fn(&PlacingHeader) -> [u64; 3]| -> Result<()> {
        for file in &placing {
            let [wins, draws, losses] = counts(&file.header);
            out!(
                "placing {} positions {} wins {wins} draws {draws} losses {losses}",
                file.sector,
                wins + draws + losses,
            );
        }
        Ok(())
    };
    table(|h| h.placement_counts)?;
    placing_table(|h| h.placement_counts)?;
    out!("over symmetry classes:");
    table(|h| h.class_counts)?;
    placing_table(|h| h.class_counts)?;
    disk_table(&db)
}

/// Prints what each sector's file takes on disk, and the sums for each
/// phase and each number of stones left to place: bytes, and bits an
/// index.
fn disk_table(db: &Database) -> Result<()> {
    let size = |path: &Path| -> Result<u64> {
        Ok(std::fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len())
    };
    let mut files = Vec::new();
    for file in db.moving_files() {
        files.push((file.sector, size(&file.path)?));
    }
    for file in db.placing_files() {
        files.push((file.sector, size(&file.path)?));
    }
    let line = |name: &str, files: &[&(Sector, u64)]| -> Result<()> {
        let indices: u64 = files.iter().map(|(sector, _)| sector.len()).sum();
        let bytes: u64 = files.iter().map(|(_, bytes)| bytes).sum();
        out!(
            "{name} files {} indices {indices} bytes {bytes} bits-an-index {:.3}",
            files.len(),
            8.0 * bytes as f64 / indices.max(1) as f64
        );
        Ok(())
    };
    out!("on disk:");
    for file in &files {
        line(&sector_name(file.0), &[file])?;
    }
    let moving: Vec<_> = files.iter().filter(|(s, _)| !s.is_placing()).collect();
    line("moving phase", &moving)?;
    let placing: Vec<_> = files.iter().filter(|(s, _)| s.is_placing()).collect();
    let most = placing.iter().map(|(s, _)| s.to_place()).max().unwrap_or(0);
    for to_place in 1..=most {
        let level: Vec<_> = placing
            .iter()
            .copied()
            .filter(|(s, _)| s.to_place() == to_place)
            .collect();
        // The levels whose values are derived have no file.
        if !level.is_empty() {
            line(&format!("placing phase, {to_place} to place,"), &level)?;
        }
    }
    line("placing phase", &placing)?;
    line("all", &files.iter().collect::<Vec<_>>())
}

/// A placing position's outcome and each move's, with the N-move rule
/// where it was solved with it.
fn probe_placing(pos: &Position, db: &Database) -> Result<()> {
    let start = Instant::now();
    let placing = placing_moves(db, pos).map_err(|_: Unsolved| {
        anyhow::anyhow!("the end of placing reaches sectors that are not in the databases")
    })?;
    let took = start.elapsed();
    let rule = pos.rules().draw_plies().is_some();
    let describe = |free: Option<DbOutcome>, with_rule: Option<DbOutcome>| match (free, with_rule) {
        (None, _) => "not in the databases".to_owned(),
        (Some(free), Some(ruled)) if ruled != free => {
            format!("{ruled} by the N-move rule (without it: {free})")
        }
        (Some(free), None) if rule => {
            format!("{free} without the N-move rule (with it: not known)")
        }
        (Some(free), _) => free.to_string(),
    };
    let position = describe(placing.outcome, placing.with_rule);
    match placing.solved_nodes {
        None if placing.solved_with_rule => out!(
            "position: {position} (read from the databases, the N-move rule solved: {} ms)",
            took.as_millis()
        ),
        None => out!(
            "position: {position} (read from the databases, {} µs)",
            took.as_micros()
        ),
        Some(nodes) => out!(
            "position: {position} (end of placing solved: {nodes} nodes, {} ms)",
            took.as_millis()
        ),
    }
    if rule && !placing.solved_with_rule {
        out!(
            "(the N-move rule is solved from {SOLVED_WITH_RULE} stones left to place on; before, a value is known with it only where it cannot change it)"
        );
    }
    out!("moves (the outcome for the side moving):");
    for known in placing.moves {
        out!(
            "  {}: {}",
            known.mv,
            describe(known.outcome, known.with_rule)
        );
    }
    Ok(())
}

/// Prints the value of a position and of each of its moves under the
/// N-move rule asked for.
pub fn probe(args: ProbeArgs) -> Result<()> {
    let rules = Rules {
        n_move_rule: args.nmoverule,
        full_board: args.full_board,
        ..Rules::new(args.variant)
    };
    let pos = Position::from_fen(&args.fen, rules).context("the position")?;
    let (db, _) = open_databases(&db_dir(args.db)?)?;
    if pos.in_placing_phase() {
        return probe_placing(&pos, &db);
    }
    // A move's outcome under the rule is that of the position it leads
    // to: after a removal the rule counts afresh, and the next removal
    // must come in time too.
    let describe = |value: Option<DbValue>, with_rule: Option<DbOutcome>| match value {
        None => "not in the databases".to_owned(),
        Some(v) if v.outcome == DbOutcome::Draw => "draw".to_owned(),
        Some(v) if with_rule == Some(DbOutcome::Draw) => format!(
            "draw by the N-move rule (without it: {}, next removal in {} plies)",
            v.outcome, v.distance
        ),
        Some(v) => format!("{}, next removal in {} plies", v.outcome, v.distance),
    };
    out!(
        "position: {}",
        describe(db.value(&pos), db.outcome_with_rule(&pos))
    );
    out!("moves, best first (the value for the side moving):");
    for (rank, known) in (1..).zip(db.moves(&pos)) {
        out!(
            "{rank:>3}. {}: {}",
            known.mv,
            describe(known.value, known.with_rule)
        );
    }
    Ok(())
}
