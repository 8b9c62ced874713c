//! One game between two engine processes, refereed by the library.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use morris::{Color, Game, GameRecord, GameResult, IllegalReason, Move, Rules};

use super::engine::{EngineConfig, EngineFailure, EngineProcess, MoveLimit};
use super::openings::Opening;

/// What a game needs besides its engines.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules; the engines are told the variant and flying options.
    pub rules: Rules,
    /// How far past its time an engine may answer before it loses.
    pub time_margin: Duration,
    /// How long an engine with a depth or node limit may think.
    pub hang_timeout: Duration,
}

/// A finished (or interrupted) game.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The result.
    pub result: GameResult,
    /// Why the game ended, as a person reads it.
    pub termination: String,
    /// The record, tags included.
    pub record: GameRecord,
}

/// The setoption lines that put an engine under `rules`.
fn rules_options(rules: Rules) -> Vec<(String, String)> {
    let mut options = Vec::new();
    if rules.variant != morris::Variant::Nine {
        options.push(("Variant".to_owned(), rules.variant.to_string()));
    }
    if !rules.flying {
        options.push(("Flying".to_owned(), "false".to_owned()));
    }
    if rules.n_move_rule != Rules::DEFAULT_N_MOVE_RULE {
        options.push(("NMoveRule".to_owned(), rules.n_move_rule.to_string()));
    }
    options
}

fn limit_text(limit: Option<MoveLimit>) -> String {
    match limit {
        Some(MoveLimit::Clock { base, increment }) => {
            format!("{}+{}", base.as_secs_f64(), increment.as_secs_f64())
        }
        Some(MoveLimit::MoveTime(t)) => format!("{}/move", t.as_secs_f64()),
        Some(MoveLimit::Depth(d)) => format!("depth {d}"),
        Some(MoveLimit::Nodes(n)) => format!("nodes {n}"),
        None => "-".to_owned(),
    }
}

/// Plays `opening` between `white` and `black` (each process started for
/// this game and killed after it). An engine that fails to start, crashes,
/// hangs, overruns its clock, sends an unparsable or illegal move, or
/// `bestmove (none)` in a live position loses, with the reason recorded.
pub fn play_game(
    white: &EngineConfig,
    black: &EngineConfig,
    opening: &Opening,
    settings: &GameSettings,
    round: usize,
    interrupt: &AtomicBool,
) -> PlayedGame {
    let configs = [white, black];
    let game = match opening.game(settings.rules) {
        Ok(game) => game,
        Err(err) => {
            return finish(
                configs,
                Game::new(morris::Position::new(settings.rules)),
                GameResult::Unfinished,
                format!("bad opening: {err}"),
                settings,
                round,
            );
        }
    };
    let mut engines = Vec::with_capacity(2);
    for (color, config) in Color::ALL.into_iter().zip(configs) {
        let mut options = rules_options(settings.rules);
        options.extend(config.options.iter().cloned());
        let started = EngineProcess::start(config)
            .map_err(|e| format!("could not start: {e}"))
            .and_then(|mut engine| match engine.handshake(&options, interrupt) {
                Ok(()) => Ok(engine),
                Err(failure) => Err(format!("{} at start", failure_text(&failure))),
            });
        match started {
            Ok(engine) => engines.push(engine),
            Err(reason) => {
                let result = GameResult::from_winner(Some(color.opponent()));
                return finish(
                    configs,
                    game,
                    result,
                    format!("{} {reason}", config.name),
                    settings,
                    round,
                );
            }
        }
    }
    let mut clocks = Color::ALL.map(|c| match configs[c.index()].limit {
        Some(MoveLimit::Clock { base, .. }) => Some(base),
        _ => None,
    });
    let mut game = game;
    let mut position_command = match &opening.fen {
        Some(fen) => format!("position fen {fen} moves"),
        None => "position startpos moves".to_owned(),
    };
    for mv in &opening.moves {
        position_command.push_str(&format!(" {mv}"));
    }
    for engine in &mut engines {
        if engine.send("ucinewgame").is_err() {
            break;
        }
    }
    loop {
        if let Some(outcome) = game.outcome() {
            let text = outcome.to_string();
            let reason = text
                .split_once('(')
                .map_or(text.as_str(), |(_, r)| r.trim_end_matches(')'))
                .to_owned();
            return finish(
                configs,
                game,
                GameResult::from_winner(outcome.winner()),
                reason,
                settings,
                round,
            );
        }
        let side = game.position().side_to_move();
        let config = configs[side.index()];
        let engine = &mut engines[side.index()];
        let lose = |reason: String| {
            (
                GameResult::from_winner(Some(side.opponent())),
                format!("{} {reason}", config.name),
            )
        };
        let (go, deadline_after) = go_command(
            config.limit,
            clocks[side.index()],
            &clocks,
            configs,
            settings,
        );
        let start = Instant::now();
        let deadline = start + deadline_after;
        let mut ask = |position: &str| {
            engine
                .send(position)
                .and_then(|()| engine.send(&go))
                .and_then(|()| engine.wait_for(|l| l.starts_with("bestmove"), deadline, interrupt))
                .map(|line| line.split_whitespace().nth(1).unwrap_or("").to_owned())
        };
        let answer = ask(&position_command).and_then(|token| match token.parse::<Move>() {
            // An engine using split notation answers a mill-closing turn in
            // two parts: the action, then (given the action) the removal.
            Ok(action)
                if game.position().check_move(action) == Err(IllegalReason::MissingRemoval) =>
            {
                let removal = ask(&format!("{position_command} {action}"))?;
                Ok(format!("{token}{removal}"))
            }
            _ => Ok(token),
        });
        let elapsed = start.elapsed();
        let reply = match answer {
            Ok(line) => line,
            Err(EngineFailure::Interrupted) => {
                return finish(
                    configs,
                    game,
                    GameResult::Unfinished,
                    "interrupted".to_owned(),
                    settings,
                    round,
                );
            }
            Err(failure) => {
                let (result, reason) = lose(failure_text(&failure).to_owned());
                return finish(configs, game, result, reason, settings, round);
            }
        };
        if let Some(left) = &mut clocks[side.index()] {
            if elapsed > *left + settings.time_margin {
                let (result, reason) = lose("lost on time".to_owned());
                return finish(configs, game, result, reason, settings, round);
            }
            let increment = match config.limit {
                Some(MoveLimit::Clock { increment, .. }) => increment,
                _ => Duration::ZERO,
            };
            *left = left.saturating_sub(elapsed) + increment;
        }
        let token = reply.as_str();
        if token == "(none)" {
            let (result, reason) = lose("sent bestmove (none) in a live position".to_owned());
            return finish(configs, game, result, reason, settings, round);
        }
        let mv: Move = match token.parse() {
            Ok(mv) => mv,
            Err(_) => {
                let (result, reason) = lose(format!("sent an unparsable move '{token}'"));
                return finish(configs, game, result, reason, settings, round);
            }
        };
        if let Err(err) = game.try_play(mv) {
            let (result, reason) = lose(format!("made an illegal move {mv} ({})", err.reason));
            return finish(configs, game, result, reason, settings, round);
        }
        position_command.push_str(&format!(" {mv}"));
    }
}

fn failure_text(failure: &EngineFailure) -> &'static str {
    match failure {
        EngineFailure::Timeout => "did not answer in time",
        EngineFailure::Crashed => "crashed",
        EngineFailure::Interrupted => "was interrupted",
    }
}

/// The `go` command for an engine and how long to wait for its answer.
fn go_command(
    limit: Option<MoveLimit>,
    own_clock: Option<Duration>,
    clocks: &[Option<Duration>; 2],
    configs: [&EngineConfig; 2],
    settings: &GameSettings,
) -> (String, Duration) {
    match limit {
        Some(MoveLimit::Clock { .. }) => {
            let ms = |c: Option<Duration>| c.unwrap_or_default().as_millis();
            let inc = |config: &EngineConfig| match config.limit {
                Some(MoveLimit::Clock { increment, .. }) => increment.as_millis(),
                _ => 0,
            };
            (
                format!(
                    "go wtime {} btime {} winc {} binc {}",
                    ms(clocks[0]),
                    ms(clocks[1]),
                    inc(configs[0]),
                    inc(configs[1])
                ),
                own_clock.unwrap_or_default() + settings.time_margin,
            )
        }
        Some(MoveLimit::MoveTime(t)) => (
            format!("go movetime {}", t.as_millis()),
            t + settings.time_margin,
        ),
        Some(MoveLimit::Depth(d)) => (format!("go depth {d}"), settings.hang_timeout),
        Some(MoveLimit::Nodes(n)) => (format!("go nodes {n}"), settings.hang_timeout),
        None => ("go depth 1".to_owned(), settings.hang_timeout),
    }
}

fn finish(
    configs: [&EngineConfig; 2],
    game: Game,
    result: GameResult,
    termination: String,
    settings: &GameSettings,
    round: usize,
) -> PlayedGame {
    let mut tags = vec![
        ("Event".to_owned(), "morris-arena".to_owned()),
        ("Round".to_owned(), round.to_string()),
        ("White".to_owned(), configs[0].name.clone()),
        ("Black".to_owned(), configs[1].name.clone()),
        ("Result".to_owned(), result.token().to_owned()),
        ("Variant".to_owned(), settings.rules.variant.to_string()),
    ];
    if !settings.rules.flying {
        tags.push(("Flying".to_owned(), "false".to_owned()));
    }
    if settings.rules.n_move_rule != Rules::DEFAULT_N_MOVE_RULE {
        tags.push((
            "NMoveRule".to_owned(),
            settings.rules.n_move_rule.to_string(),
        ));
    }
    tags.push(("SetUp".to_owned(), "1".to_owned()));
    tags.push(("FEN".to_owned(), game.start().fen()));
    tags.push(("TimeControl".to_owned(), limit_text(configs[0].limit)));
    if configs[1].limit != configs[0].limit {
        tags.push(("BlackTimeControl".to_owned(), limit_text(configs[1].limit)));
    }
    tags.push(("Termination".to_owned(), termination.clone()));
    PlayedGame {
        result,
        termination,
        record: GameRecord {
            tags,
            moves: game.moves().to_vec(),
            result,
        },
    }
}
