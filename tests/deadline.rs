//! The clock holds when database reads stall, and no move is blind: with
//! the database files on a disk throttled by a cgroup (cgroup v1 `blkio`)
//! and the page cache dropped, every `go movetime` on an end-of-placing
//! position is answered by its deadline, and with a move that keeps the
//! databases' value (judged afterwards, the cache warm), on positions
//! where the first move generated does not. Needs root and builds the
//! databases up to 6 stones a side (about a minute), so it is ignored by
//! default: `cargo test --release --test deadline -- --ignored --nocapture`.
//! `MORRIS_DEADLINE_DB` names a folder of databases to use instead.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use morris::{Database, DbOutcome, Move, Position, Rules};
use rand::rngs::StdRng;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};

/// The throttle: reads a second and bytes a second, a slow, busy disk.
const READS_A_SECOND: u32 = 100;
const BYTES_A_SECOND: u32 = 4 << 20;
const MOVETIME_MS: u64 = 300;
const MOVES: usize = 40;

/// Whether the first move generated in `pos` gives away the databases'
/// value, and that value (the draw rules left out, as stored).
fn first_move_errs(db: &Database, pos: &Position) -> Option<DbOutcome> {
    let value = db.outcome(pos)?;
    let first = *pos.legal_moves().first()?;
    (db.move_value(pos, first).outcome? < value).then_some(value)
}

/// A cgroup whose reads from one device are throttled; removed on drop.
struct Throttle {
    dir: PathBuf,
}

impl Throttle {
    fn new(device: &str) -> Throttle {
        let dir = PathBuf::from(format!(
            "/sys/fs/cgroup/blkio/morris-deadline-{}",
            std::process::id()
        ));
        std::fs::create_dir(&dir).expect("a blkio cgroup (cgroup v1, as root)");
        let limit = |file: &str, value: u32| {
            std::fs::write(dir.join(file), format!("{device} {value}")).expect(file);
        };
        limit("blkio.throttle.read_iops_device", READS_A_SECOND);
        limit("blkio.throttle.read_bps_device", BYTES_A_SECOND);
        Throttle { dir }
    }

    fn enter(&self, pid: u32) {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string()).expect("cgroup.procs");
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The `major:minor` of the block device that holds `path`.
fn device_of(path: &Path) -> String {
    let dev = std::fs::metadata(path).expect("the folder").dev();
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    format!("{major}:{minor}")
}

/// The engine at the other end of a pipe.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            input,
            output,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").expect("the engine reads");
    }

    /// Reads up to the first line that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            assert_ne!(self.output.read_line(&mut line).unwrap(), 0, "engine ended");
            if line.starts_with(prefix) {
                return line;
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A position string with `board` stones of each side placed at random
/// and `hand` left in hand each, White to move.
fn end_of_placing(rng: &mut StdRng, board: usize, hand: u32) -> String {
    let mut cells = ['.'; 24];
    for (i, point) in sample(rng, 24, 2 * board).into_iter().enumerate() {
        cells[point] = if i < board { 'W' } else { 'B' };
    }
    let mut rows = Vec::new();
    let mut at = 0;
    for len in [3, 3, 3, 6, 3, 3, 3] {
        rows.push(cells[at..at + len].iter().collect::<String>());
        at += len;
    }
    format!("{} w {hand} {hand} 0 20", rows.join("/"))
}

#[test]
#[ignore = "needs root and cgroup v1 blkio; drops the page cache; builds databases"]
fn every_move_is_on_time_when_database_reads_stall() {
    let dir = match std::env::var_os("MORRIS_DEADLINE_DB") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("deadline-db");
            let built = Command::new(env!("CARGO_BIN_EXE_morris"))
                .args(["gen-db", "--max-stones", "6", "--out"])
                .arg(&dir)
                .output()
                .expect("gen-db runs");
            assert!(built.status.success(), "{built:?}");
            dir
        }
    };
    let stones = std::fs::read_dir(&dir)
        .expect("the folder")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let (_, sector) = name.strip_suffix(".mdb")?.rsplit_once('-')?;
            sector.parse::<usize>().ok()
        })
        .max()
        .expect("database files");
    // Placing ends in the largest sectors built; the positions are chosen
    // now, before the cache is dropped.
    let (db, refused) = Database::open(&dir).expect("the databases");
    assert!(refused.is_empty(), "{refused:?}");
    let mut rng = StdRng::seed_from_u64(21);
    let mut positions = Vec::new();
    for tries in 0.. {
        assert!(
            tries < 1_000_000,
            "no position found whose first move errs: has {} the placing phase?",
            dir.display()
        );
        if positions.len() == MOVES {
            break;
        }
        let hand = rng.random_range(1..=2);
        let fen = end_of_placing(&mut rng, stones - hand as usize, hand);
        let pos = Position::from_fen(&fen, Rules::default()).expect("a position");
        if pos.terminal_outcome().is_none() && first_move_errs(&db, &pos).is_some() {
            positions.push(fen);
        }
    }
    let throttle = Throttle::new(&device_of(&dir));
    let mut engine = Engine::start();
    throttle.enter(engine.child.id());
    engine.send("uci");
    engine.until("uciok");
    engine.send(&format!("setoption name EndgameDB value {}", dir.display()));
    engine.send("isready");
    engine.until("readyok");
    // Every read from now on goes to the throttled disk.
    Command::new("sync").status().expect("sync");
    std::fs::write("/proc/sys/vm/drop_caches", "3").expect("the page cache dropped");
    let mut answers = Vec::new();
    for fen in &positions {
        engine.send("ucinewgame");
        engine.send(&format!("position fen {fen}"));
        engine.send("isready");
        engine.until("readyok");
        let start = Instant::now();
        engine.send(&format!("go movetime {MOVETIME_MS}"));
        let answer = engine.until("bestmove");
        let time = start.elapsed();
        let best: Move = answer
            .split_whitespace()
            .nth(1)
            .and_then(|mv| mv.parse().ok())
            .unwrap_or_else(|| panic!("a move in {answer:?}"));
        answers.push((time, fen.clone(), best));
    }
    engine.send("quit");
    // Judged with the cache warm again.
    let blind: Vec<_> = answers
        .iter()
        .filter(|(_, fen, best)| {
            let pos = Position::from_fen(fen, Rules::default()).unwrap();
            db.move_value(&pos, *best).outcome < db.outcome(&pos)
        })
        .collect();
    let mut times: Vec<_> = answers.iter().map(|(time, fen, _)| (*time, fen)).collect();
    times.sort();
    let median = times[times.len() / 2].0;
    let (slowest, fen) = times.last().unwrap();
    println!(
        "{MOVES} moves at go movetime {MOVETIME_MS}, reads throttled to \
         {READS_A_SECOND}/s and {BYTES_A_SECOND} B/s: median {median:?}, slowest {slowest:?} \
         ({fen}); {} gave the value away",
        blind.len()
    );
    let late: Vec<_> = times
        .iter()
        .filter(|(time, _)| *time > Duration::from_millis(MOVETIME_MS))
        .collect();
    assert!(late.is_empty(), "late answers: {late:?}");
    assert!(
        blind.is_empty(),
        "moves that gave the value away: {blind:?}"
    );
}
