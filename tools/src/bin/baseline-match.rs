//! baseline-match: morris against a plain fixed-depth alpha-beta player,
//! in-process, refereed by the library. It answers two questions: is the
//! search worth its complexity, and what depth does a given time per move
//! reach.
//!
//! The baseline searches every move to a fixed depth with negamax and
//! alpha-beta, scoring positions by material and mobility alone; it knows
//! the rules (wins, losses, repetition and N-move draws through the
//! library) but nothing of move ordering, tables or mills.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Parser;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use morris::{Color, Game, Move, Position};

use morris::search::{Limit, MATE, SearchLimits, SearchRequest, TranspositionTable};

#[derive(Parser)]
#[command(about = "Play morris against a plain fixed-depth alpha-beta player")]
struct Args {
    /// Number of games (each opening is played twice, colours swapped).
    #[arg(long, default_value_t = 40)]
    games: usize,
    /// Milliseconds per move for morris.
    #[arg(long, default_value_t = 100)]
    movetime: u64,
    /// Fixed depth for morris instead of a move time.
    #[arg(long)]
    depth: Option<u32>,
    /// Search depth of the baseline.
    #[arg(long, default_value_t = 4)]
    baseline_depth: u32,
    /// Random plies at the start of each game.
    #[arg(long, default_value_t = 4)]
    opening_plies: usize,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print every game's moves.
    #[arg(long)]
    verbose: bool,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut rng = StdRng::seed_from_u64(args.seed);
    let openings: Vec<Game> = (0..args.games.div_ceil(2))
        .map(|_| opening(&mut rng, args.opening_plies))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.concurrency)
        .build()?;
    let results: Vec<GameResult> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|i| {
                let morris_color = if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let result = play(&args, openings[i / 2].clone(), morris_color);
                eprintln!(
                    "game {:>3}: morris {:<5} {}",
                    i + 1,
                    morris_color.name(),
                    result.outcome
                );
                if args.verbose {
                    eprintln!("  {}", result.moves);
                }
                result
            })
            .collect()
    });
    let wins = results.iter().filter(|r| r.score == 2).count();
    let draws = results.iter().filter(|r| r.score == 1).count();
    let losses = results.len() - wins - draws;
    let moves: usize = results.iter().map(|r| r.depths.len()).sum();
    let depth_sum: u32 = results.iter().flat_map(|r| r.depths.iter()).sum();
    let time: Duration = results.iter().map(|r| r.morris_time).sum();
    println!(
        "morris +{wins} ={draws} -{losses} in {} games",
        results.len()
    );
    println!(
        "morris: {moves} moves, mean depth {:.1}, mean time per move {:.1} ms",
        f64::from(depth_sum) / moves.max(1) as f64,
        time.as_secs_f64() * 1000.0 / moves.max(1) as f64
    );
    Ok(())
}

struct GameResult {
    /// 2 for a morris win, 1 for a draw, 0 for a loss.
    score: u8,
    outcome: String,
    /// The moves, from the start position.
    moves: String,
    depths: Vec<u32>,
    morris_time: Duration,
}

fn opening(rng: &mut StdRng, plies: usize) -> Game {
    loop {
        let mut game = Game::new(Position::startpos());
        for _ in 0..plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() {
                break;
            }
            let _ = game.try_play(moves[rng.random_range(0..moves.len())]);
        }
        if game.outcome().is_none() {
            return game;
        }
    }
}

fn play(args: &Args, mut game: Game, morris_color: Color) -> GameResult {
    let tt = Arc::new(TranspositionTable::new(16).expect("a 16 MiB table"));
    let mut depths = Vec::new();
    let mut morris_time = Duration::ZERO;
    while game.outcome().is_none() {
        let pos = *game.position();
        let mv = if pos.side_to_move() == morris_color {
            let start = Instant::now();
            let (mv, depth) = morris_move(args, &game, Arc::clone(&tt));
            morris_time += start.elapsed();
            depths.push(depth);
            mv
        } else {
            baseline_move(&game, args.baseline_depth)
        };
        if game.try_play(mv).is_err() {
            break;
        }
    }
    let outcome = game.outcome();
    let score = match outcome.and_then(|o| o.winner()) {
        Some(winner) if winner == morris_color => 2,
        Some(_) => 0,
        None => 1,
    };
    let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
    GameResult {
        score,
        outcome: outcome.map_or("unfinished".to_owned(), |o| o.to_string()),
        moves: moves.join(" "),
        depths,
        morris_time,
    }
}

fn morris_move(args: &Args, game: &Game, tt: Arc<TranspositionTable>) -> (Move, u32) {
    let limit = match args.depth {
        Some(depth) => Limit::Depth(depth),
        None => Limit::MoveTime(Duration::from_millis(args.movetime)),
    };
    let limits = SearchLimits {
        limits: vec![limit],
        ..SearchLimits::default()
    };
    let result = SearchRequest::new(*game.position(), game.keys(), limits).run(tt);
    let best = result.best;
    let depth = result.last_info.map_or(0, |info| info.depth);
    (
        best.unwrap_or_else(|| game.position().legal_moves()[0]),
        depth,
    )
}

/// Material and mobility from the side to move's view.
fn baseline_eval(pos: &Position) -> i32 {
    let tables = pos.rules().variant.tables();
    let score = |color: Color| {
        let mobility: u32 = pos
            .stones(color)
            .iter()
            .map(|sq| (tables.neighbors(sq) & pos.empty()).len())
            .sum();
        100 * pos.stone_count(color) as i32 + 5 * mobility as i32
    };
    let us = pos.side_to_move();
    score(us) - score(us.opponent())
}

fn baseline_search(game: &mut Game, depth: u32, ply: i32, mut alpha: i32, beta: i32) -> i32 {
    if let Some(outcome) = game.outcome() {
        return match outcome.winner() {
            None => 0,
            Some(winner) if winner == game.position().side_to_move() => MATE - ply,
            Some(_) => -MATE + ply,
        };
    }
    if depth == 0 {
        return baseline_eval(game.position());
    }
    let mut best = -MATE - 1;
    for mv in game.position().legal_moves() {
        let mut child = game.clone();
        if child.try_play(mv).is_err() {
            continue;
        }
        let score = -baseline_search(&mut child, depth - 1, ply + 1, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

fn baseline_move(game: &Game, depth: u32) -> Move {
    let mut best = None;
    let mut alpha = -MATE - 1;
    for mv in game.position().legal_moves() {
        let mut child = game.clone();
        if child.try_play(mv).is_err() {
            continue;
        }
        let score = -baseline_search(&mut child, depth.saturating_sub(1), 1, -MATE - 1, -alpha);
        if best.is_none() || score > alpha {
            alpha = score;
            best = Some(mv);
        }
    }
    best.unwrap_or_else(|| game.position().legal_moves()[0])
}
