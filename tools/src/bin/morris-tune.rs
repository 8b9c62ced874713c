//! morris-tune: fits the evaluation's weights to known results (Texel
//! tuning). Positions come from game records, labelled with the game's
//! result, and from the endgame databases, labelled with their exact
//! value; the weights are fitted so that a logistic curve of the
//! evaluation predicts the labels.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Parser, Subcommand};
use morris::eval::Weights;
use morris::files::write_whole;
use morris::search::PlacingSolver;
use morris::search::{SearchLimits, SearchRequest, TranspositionTable};
use morris::solution::{Database, sector_position};
use morris::{
    Bitboard, Color, GameRecord, GameResult, Position, Rules, Square, Variant, parse_records,
};
use morris_tools::tune::{Sample, fit, fit_wdl, quiet};
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

#[derive(Parser)]
#[command(about = "Fits the evaluation's weights to game results and database values")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Writes the quiet positions of game records with each game's result.
    Games {
        /// Record files (PGN, as morris-arena writes them).
        records: Vec<PathBuf>,
        /// The data file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Writes random quiet positions of the endgame databases with their
    /// exact values.
    Db {
        /// The database folder.
        dir: PathBuf,
        /// How many positions.
        #[arg(long, default_value_t = 100_000)]
        samples: usize,
        /// Stones per side at most.
        #[arg(long, default_value_t = 5)]
        max_stones: u32,
        /// The variant whose databases are read.
        #[arg(long, default_value_t = Variant::Nine)]
        variant: Variant,
        /// The seed of the draw.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The data file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Writes quiet positions of the end of placing with their exact
    /// values: each is reached by a few random placements, then the
    /// engine's own, and solved to the databases' leaves.
    Placing {
        /// The database folder (it must hold the sectors the placements
        /// end in).
        dir: PathBuf,
        /// How many positions.
        #[arg(long, default_value_t = 10_000)]
        samples: usize,
        /// Stones left to place in each position, both sides together.
        #[arg(long, default_value_t = 8)]
        to_place: u32,
        /// Random placements at the start of each game, at most (at least
        /// one).
        #[arg(long, default_value_t = 6)]
        random_plies: u32,
        /// The depth of the engine's placements after them.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// The position the games start from.
        #[arg(long, default_value = ".../.../.../....../.../.../... w 9 9 0 1")]
        start: String,
        /// The seed of the draw.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The data file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Fits the win/draw/loss model of reported scores to the scores a
    /// player gave its moves in game records and the games' results.
    Wdl {
        /// Record files (PGN, as morris-arena writes them: each move's
        /// comment starts with the score in stones).
        records: Vec<PathBuf>,
        /// The player whose scores count (its name in the White and Black
        /// tags).
        #[arg(long)]
        player: String,
    },
    /// Fits the weights to data files and prints them.
    Fit {
        /// Data files written by `games` and `db`.
        data: Vec<PathBuf>,
        /// The variant whose weights are fitted: every position of the
        /// data must be of it.
        #[arg(long, default_value_t = Variant::Nine)]
        variant: Variant,
        /// Passes of gradient descent.
        #[arg(long, default_value_t = 2000)]
        epochs: usize,
        /// The weights to start from: one per feature, then the tempo,
        /// separated by commas (default: the engine's own for the variant).
        #[arg(long, value_parser = parse_weights)]
        start: Option<Weights>,
    },
}

/// Weights written as `Weights::NINE` lists them: the features, then the
/// tempo.
fn parse_weights(text: &str) -> Result<Weights, String> {
    let numbers = text
        .split(',')
        .map(|n| {
            n.trim()
                .parse::<i32>()
                .map_err(|_| format!("not a weight: '{n}'"))
        })
        .collect::<Result<Vec<i32>, String>>()?;
    match numbers.split_last() {
        Some((&tempo, features)) if features.len() == morris::eval::FEATURES => Ok(Weights {
            features: features.try_into().map_err(|_| "wrong count".to_string())?,
            tempo,
        }),
        _ => Err(format!(
            "{} numbers given, {} wanted (the features, then the tempo)",
            numbers.len(),
            morris::eval::FEATURES + 1
        )),
    }
}

/// A data line: a position string, the side to move's result (1, 0.5 or
/// 0) and the variant (a position string does not say it).
fn data_line(pos: &Position, result: f64) -> String {
    format!("{}\t{result}\t{}\n", pos.fen(), pos.rules().variant)
}

/// A move of a finished game, as the walk through records sees it.
struct GameMove<'a> {
    record: &'a GameRecord,
    /// The move's index in the game.
    index: usize,
    /// The position the move is played from.
    pos: &'a Position,
    /// The game's result for the side to move: 1, 0.5 or 0.
    result: f64,
}

/// Calls `visit` with every move of the finished games of the record
/// file `path`; returns how many games there were.
fn walk_games(path: &Path, mut visit: impl FnMut(GameMove)) -> anyhow::Result<usize> {
    let mut games = 0;
    for record in parse_records(&fs::read_to_string(path)?)? {
        let white_score = match record.result {
            GameResult::WhiteWins => 1.0,
            GameResult::BlackWins => 0.0,
            GameResult::Draw => 0.5,
            GameResult::Unfinished => continue,
        };
        let game = record.replay()?;
        games += 1;
        let mut pos = *game.start();
        for (index, &mv) in game.moves().iter().enumerate() {
            let result = match pos.side_to_move() {
                Color::White => white_score,
                Color::Black => 1.0 - white_score,
            };
            visit(GameMove {
                record: &record,
                index,
                pos: &pos,
                result,
            });
            pos.play_unchecked(mv);
        }
    }
    Ok(games)
}

fn games(records: &[PathBuf], out: &Path) -> anyhow::Result<()> {
    let mut text = String::new();
    let (mut games, mut positions) = (0, 0);
    for path in records {
        games += walk_games(path, |m| {
            let book = m.record.comments.get(&m.index).is_some_and(|c| c == "book");
            if !book && quiet(m.pos) {
                text.push_str(&data_line(m.pos, m.result));
                positions += 1;
            }
        })?;
        eprintln!(
            "{}: {games} games, {positions} positions so far",
            path.display()
        );
    }
    write_whole(out, &[text.as_bytes()])?;
    println!(
        "{positions} positions of {games} games written to {}",
        out.display()
    );
    Ok(())
}

/// Writes `samples` random quiet positions of `variant` with at most
/// `max_stones` a side and their values in the databases of `dir`.
fn db(
    dir: &Path,
    samples: usize,
    (variant, max_stones): (Variant, u32),
    seed: u64,
    out: &Path,
) -> anyhow::Result<()> {
    let db = morris_tools::db::open(dir)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let squares: Vec<Square> = Bitboard::FULL.iter().collect();
    let mut text = String::new();
    let (mut written, mut tried) = (0, 0u64);
    while written < samples {
        tried += 1;
        if tried > 100 * samples as u64 + 1000 {
            anyhow::bail!("only {written} positions found: are sectors up to {max_stones} built?");
        }
        let mover = rng.random_range(3..=max_stones) as usize;
        let other = rng.random_range(3..=max_stones) as usize;
        let mut points = squares.clone();
        points.shuffle(&mut rng);
        let stones = |points: &[Square]| Bitboard::from_squares(points);
        let pos = sector_position(
            variant,
            stones(&points[..mover]),
            stones(&points[mover..mover + other]),
        );
        if !quiet(&pos) {
            continue;
        }
        let Some(value) = db.value(&pos) else {
            continue;
        };
        text.push_str(&data_line(&pos, value.outcome.points()));
        written += 1;
        if written % 10_000 == 0 {
            eprint!("\r{written}/{samples}");
        }
    }
    eprintln!();
    write_whole(out, &[text.as_bytes()])?;
    println!("{written} positions written to {}", out.display());
    Ok(())
}

/// What `placing` draws and solves.
struct PlacingDraw {
    start: Position,
    to_place: u32,
    random_plies: u32,
    depth: u32,
}

impl PlacingDraw {
    /// A position with `to_place` stones left, reached from the start by
    /// up to `random_plies` random moves and then the engine's; `None` if
    /// the game ended first.
    fn game(&self, rng: &mut StdRng) -> Option<Position> {
        let mut pos = self.start;
        let random = rng.random_range(1..=self.random_plies.max(1));
        let tt = Arc::new(TranspositionTable::new(1).ok()?);
        let mut ply = 0;
        while pos.stones_to_place() > self.to_place {
            let moves = pos.legal_moves();
            let mv = if ply < random {
                *moves.choose(rng)?
            } else {
                SearchRequest::new(pos, &[pos.key()], SearchLimits::depth(self.depth))
                    .run(Arc::clone(&tt))
                    .best?
            };
            pos.play_unchecked(mv);
            if pos.terminal_outcome().is_some() {
                return None;
            }
            ply += 1;
        }
        Some(pos)
    }

    /// The data line of sample `index`: the first quiet position of its
    /// games, with its exact outcome.
    fn sample(&self, db: &Database, seed: u64, index: usize) -> anyhow::Result<String> {
        let mut rng =
            StdRng::seed_from_u64(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for _ in 0..1000 {
            let Some(pos) = self.game(&mut rng) else {
                continue;
            };
            if !quiet(&pos) {
                continue;
            }
            let outcome = PlacingSolver::new(db, None, None)
                .solve(&pos)
                .map_err(|_| {
                    anyhow::anyhow!("{}: its leaves are not all in the databases", pos.fen())
                })?;
            return Ok(data_line(&pos, outcome.points()));
        }
        anyhow::bail!("no quiet position in 1000 games: too few stones to place?")
    }
}

fn placing(
    dir: &Path,
    draw: &PlacingDraw,
    samples: usize,
    seed: u64,
    out: &Path,
) -> anyhow::Result<()> {
    let db = morris_tools::db::open(dir)?;
    if draw.start.stones_to_place() <= draw.to_place {
        anyhow::bail!(
            "the start has {} stones to place, not more than --to-place {}",
            draw.start.stones_to_place(),
            draw.to_place
        );
    }
    let done = AtomicUsize::new(0);
    let lines = (0..samples)
        .into_par_iter()
        .map(|index| {
            let line = draw.sample(&db, seed, index);
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            if done % 100 == 0 || done == samples {
                eprint!("\r{done}/{samples}");
            }
            line
        })
        .collect::<anyhow::Result<Vec<String>>>()?;
    eprintln!();
    write_whole(out, &[lines.concat().as_bytes()])?;
    println!("{samples} positions written to {}", out.display());
    Ok(())
}

/// The score in centi-stones at the start of a move's comment such as
/// `+0.35/12 0.30s`; none for mates and book moves.
fn comment_score(comment: &str) -> Option<f64> {
    let stones: f64 = comment.split('/').next()?.parse().ok()?;
    Some((100.0 * stones).round())
}

fn wdl(records: &[PathBuf], player: &str) -> anyhow::Result<()> {
    let mut scored = Vec::new();
    for path in records {
        walk_games(path, |m| {
            let name = match m.pos.side_to_move() {
                Color::White => m.record.tag("White"),
                Color::Black => m.record.tag("Black"),
            };
            let score = m
                .record
                .comments
                .get(&m.index)
                .and_then(|c| comment_score(c));
            if let (Some(score), true) = (score, name == Some(player)) {
                scored.push((score, m.result));
            }
        })?;
    }
    if scored.is_empty() {
        anyhow::bail!("no scored moves by {player}");
    }
    let model = fit_wdl(&scored);
    println!(
        "{} scored moves by {player}: midpoint {:.0}, scale {:.0}",
        scored.len(),
        model.midpoint,
        model.scale
    );
    Ok(())
}

/// The positions of data files, all of `variant` (a line without a
/// variant is of Nine Men's Morris, as files written before it was kept).
fn read_data(files: &[PathBuf], variant: Variant) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    for path in files {
        for (number, line) in fs::read_to_string(path)?.lines().enumerate() {
            let place = || format!("{}:{}", path.display(), number + 1);
            let fail = || anyhow::anyhow!("{}: not '<position>\\t<result>[\\t<variant>]'", place());
            let mut fields = line.split('\t');
            let (Some(fen), Some(result)) = (fields.next(), fields.next()) else {
                return Err(fail());
            };
            let of = match fields.next() {
                Some(name) => name
                    .parse::<Variant>()
                    .map_err(|e| anyhow::anyhow!("{}: {e}", place()))?,
                None => Variant::Nine,
            };
            if of != variant {
                anyhow::bail!("{}: a position of {of}, not of {variant}", place());
            }
            let pos = Position::from_fen(fen, Rules::new(variant))
                .map_err(|e| anyhow::anyhow!("{}: {e}", place()))?;
            samples.push(Sample::new(&pos, result.parse().map_err(|_| fail())?));
        }
    }
    Ok(samples)
}

fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Games { records, out } => games(&records, &out),
        Command::Db {
            dir,
            samples,
            max_stones,
            variant,
            seed,
            out,
        } => db(&dir, samples, (variant, max_stones), seed, &out),
        Command::Placing {
            dir,
            samples,
            to_place,
            random_plies,
            depth,
            start,
            seed,
            out,
        } => Position::from_fen(&start, Rules::default())
            .map_err(anyhow::Error::from)
            .and_then(|start| {
                let draw = PlacingDraw {
                    start,
                    to_place,
                    random_plies,
                    depth,
                };
                placing(&dir, &draw, samples, seed, &out)
            }),
        Command::Wdl { records, player } => wdl(&records, &player),
        Command::Fit {
            data,
            variant,
            epochs,
            start,
        } => read_data(&data, variant).map(|samples| {
            let start = start.unwrap_or(*Weights::of(variant));
            let fitted = fit(&samples, start, epochs, |epoch, loss| {
                eprint!("\repoch {epoch}: loss {loss:.6}");
                let _ = std::io::stderr().flush();
            });
            eprintln!();
            println!("{fitted}");
        }),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
