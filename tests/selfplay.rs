//! Games of the engine against itself through the protocol, every move
//! refereed by the rules module.

mod common;

use common::process::EngineProcess;
use morris::{Game, Move, Position};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GAMES: usize = 20;

/// Random opening turns, so that the games differ.
fn opening(rng: &mut StdRng) -> Game {
    let mut game = Game::new(Position::startpos());
    for _ in 0..rng.random_range(2..8) {
        let moves = game.position().legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        game.try_play(mv).expect("a generated move is legal");
    }
    game
}

fn position_command(game: &Game) -> String {
    let moves: Vec<String> = game.moves().iter().map(Move::to_string).collect();
    format!("position startpos moves {}", moves.join(" "))
}

#[test]
fn twenty_self_play_games_end_properly() {
    let mut engines = [EngineProcess::start(), EngineProcess::start()];
    let mut rng = StdRng::seed_from_u64(2026);
    let mut results = Vec::new();
    for number in 0..GAMES {
        let mut game = opening(&mut rng);
        for engine in &mut engines {
            engine.send("ucinewgame");
        }
        while game.outcome().is_none() {
            let side = game.position().side_to_move().index();
            let engine = &mut engines[(side + number) % 2];
            engine.send(&position_command(&game));
            engine.send(if side == 0 {
                "go nodes 3000"
            } else {
                "go nodes 1500"
            });
            let lines = engine.read_until(|l| l.starts_with("bestmove"));
            let reply = lines.last().expect("a bestmove line");
            let token = reply.split(' ').nth(1).expect("a move after bestmove");
            let mv: Move = token
                .parse()
                .unwrap_or_else(|e| panic!("game {number}: {reply}: {e}"));
            game.try_play(mv).unwrap_or_else(|e| {
                panic!(
                    "game {number}: {} after {:?}: {e}",
                    game.position(),
                    game.moves()
                )
            });
            assert!(game.moves().len() < 2000, "game {number} does not end");
        }
        let outcome = game.outcome().expect("the game is over");
        // The engine agrees that the game is over, and how.
        let engine = &mut engines[0];
        engine.send(&position_command(&game));
        engine.send("go depth 2");
        let lines = engine.read_until(|l| l.starts_with("bestmove"));
        assert_eq!(
            lines,
            [
                format!("info string game over: {outcome}"),
                "bestmove (none)".to_owned()
            ]
        );
        results.push(outcome);
    }
    assert_eq!(results.len(), GAMES);
    for engine in engines {
        assert_eq!(engine.finish(true), Some(0));
    }
}
