//! One game between two engine processes, refereed by the library.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use morris::{Color, Game, GameRecord, GameResult, IllegalReason, Move, Position, Rules};

use super::openings::Opening;
use crate::client::{
    EngineConfig, EngineFailure, EngineProcess, Info, MoveLimit, Protocol, position_command,
    start_command,
};

/// What a game needs besides its engines.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// The rules; the engines are told the variant and flying options.
    pub rules: Rules,
    /// How far past its time an engine may answer before it loses, unless
    /// the engine has its own margin.
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
    /// How long each colour thought.
    pub thinking: Thinking,
}

/// The time each colour spent on its moves, answers of split notation
/// (action and removal) counted as one move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Thinking {
    /// Total time per colour, White first.
    pub time: [Duration; 2],
    /// Moves per colour.
    pub moves: [u32; 2],
}

/// What is noted while a game runs: the record's comments and the time
/// each side thought.
#[derive(Default)]
struct Notes {
    comments: BTreeMap<usize, String>,
    thinking: Thinking,
}

fn limit_text(limit: Option<MoveLimit>) -> String {
    match limit {
        Some(MoveLimit::Clock {
            base,
            increment,
            moves,
        }) => {
            let moves = moves.map(|m| format!("{m}/")).unwrap_or_default();
            let increment = if increment.is_zero() {
                String::new()
            } else {
                format!("+{}", increment.as_secs_f64())
            };
            format!("{moves}{}{increment}", base.as_secs_f64())
        }
        Some(MoveLimit::MoveTime(t)) => format!("{}/move", t.as_secs_f64()),
        Some(MoveLimit::Depth(d)) => format!("depth {d}"),
        Some(MoveLimit::Nodes(n)) => format!("nodes {n}"),
        None => "-".to_owned(),
    }
}

/// The two clocks of a game, for the engines that play to one.
struct Clocks {
    limits: [Option<MoveLimit>; 2],
    margins: [Duration; 2],
    left: [Option<Duration>; 2],
    moves_made: [u32; 2],
}

impl Clocks {
    fn new(configs: [&EngineConfig; 2], settings: &GameSettings) -> Clocks {
        let limits = configs.map(|c| c.limit);
        Clocks {
            limits,
            margins: configs.map(|c| c.time_margin.unwrap_or(settings.time_margin)),
            left: limits.map(|limit| match limit {
                Some(MoveLimit::Clock { base, .. }) => Some(base),
                _ => None,
            }),
            moves_made: [0; 2],
        }
    }

    fn increment(&self, side: Color) -> Duration {
        match self.limits[side.index()] {
            Some(MoveLimit::Clock { increment, .. }) => increment,
            _ => Duration::ZERO,
        }
    }

    /// The `go` command for `side` and how long to wait for its answer.
    fn go(&self, side: Color, settings: &GameSettings) -> (String, Duration) {
        match self.limits[side.index()] {
            Some(MoveLimit::Clock { moves, .. }) => {
                let ms = |c: Color| self.left[c.index()].unwrap_or_default().as_millis();
                let mut go = format!(
                    "go wtime {} btime {} winc {} binc {}",
                    ms(Color::White),
                    ms(Color::Black),
                    self.increment(Color::White).as_millis(),
                    self.increment(Color::Black).as_millis()
                );
                if let Some(moves) = moves {
                    let to_go = moves - self.moves_made[side.index()] % moves;
                    go.push_str(&format!(" movestogo {to_go}"));
                }
                let left = self.left[side.index()].unwrap_or_default();
                (go, left + self.margins[side.index()])
            }
            Some(MoveLimit::MoveTime(t)) => (
                format!("go movetime {}", t.as_millis()),
                t + self.margins[side.index()],
            ),
            Some(MoveLimit::Depth(d)) => (format!("go depth {d}"), settings.hang_timeout),
            Some(MoveLimit::Nodes(n)) => (format!("go nodes {n}"), settings.hang_timeout),
            // The command line refuses engines without a limit.
            None => ("go depth 1".to_owned(), settings.hang_timeout),
        }
    }

    /// Charges `side` for a move that took `elapsed`; false if its flag
    /// fell (past its margin).
    fn spend(&mut self, side: Color, elapsed: Duration) -> bool {
        let Some(left) = self.left[side.index()] else {
            return true;
        };
        if elapsed > left + self.margins[side.index()] {
            return false;
        }
        self.moves_made[side.index()] += 1;
        let made = self.moves_made[side.index()];
        let mut left = left.saturating_sub(elapsed) + self.increment(side);
        if let Some(MoveLimit::Clock {
            base,
            moves: Some(moves),
            ..
        }) = self.limits[side.index()]
        {
            if made % moves == 0 {
                left += base;
            }
        }
        self.left[side.index()] = Some(left);
        true
    }
}

/// Starts both engines and sets them up for the game; the colour of the
/// first that fails, with why.
fn start_engines(
    configs: [&EngineConfig; 2],
    settings: &GameSettings,
    interrupt: &AtomicBool,
) -> Result<Vec<EngineProcess>, (Color, String)> {
    let mut engines = Vec::with_capacity(2);
    for (color, config) in Color::ALL.into_iter().zip(configs) {
        let mut engine =
            EngineProcess::start(config).map_err(|e| (color, format!("could not start: {e}")))?;
        engine
            .handshake(&config.game_options(settings.rules), interrupt)
            .map_err(|failure| (color, format!("{failure} at start")))?;
        // A new game may clear a large table: wait for it before any clock runs.
        engine
            .new_game(interrupt)
            .map_err(|failure| (color, format!("{failure} at start")))?;
        engines.push(engine);
    }
    Ok(engines)
}

/// An engine's answer: its move token and the comment for the record
/// (`+0.25/9 0.30s` as cutechess writes them, from its last `info`).
struct Answer {
    token: String,
    comment: String,
}

/// Asks `engine` for its move after `position_command` with `go`. An
/// engine using split notation answers a mill-closing turn in two parts:
/// the action, then (given the action) the removal; they are joined.
fn ask_move(
    engine: &mut EngineProcess,
    position: &Position,
    position_command: &str,
    go: &str,
    deadline: Instant,
    interrupt: &AtomicBool,
) -> Result<Answer, EngineFailure> {
    let start = Instant::now();
    let side = position.side_to_move();
    let mut ask = |command: &str| -> Result<(String, Option<String>), EngineFailure> {
        let mut last = None;
        let token = engine.think(command, go, deadline, interrupt, |info| {
            last = evaluation_text(info, side).or(last.take());
        })?;
        Ok((token, last))
    };
    let (mut token, mut evaluation) = ask(position_command)?;
    if let Ok(action) = token.parse::<Move>() {
        if position.check_move(action) == Err(IllegalReason::MissingRemoval) {
            let (removal, removal_evaluation) = ask(&format!("{position_command} {action}"))?;
            token.push_str(&removal);
            evaluation = removal_evaluation.or(evaluation);
        }
    }
    let time = format!("{:.2}s", start.elapsed().as_secs_f64());
    Ok(Answer {
        token,
        comment: match evaluation {
            Some(evaluation) => format!("{evaluation} {time}"),
            None => time,
        },
    })
}

/// `score/depth` of a report with both, as cutechess writes it in a
/// record: `+0.25/9` (stones), `+M3/12` (a win in 3), `-M2/8`, for
/// `side`, the side to move.
fn evaluation_text(info: &Info, side: Color) -> Option<String> {
    Some(format!("{}/{}", info.score_for(side)?, info.depth?))
}

/// Plays `opening` between `white` and `black` (each process started for
/// this game and killed after it). An engine that fails to start, crashes,
/// hangs, overruns its clock, sends an unparsable or illegal move, or
/// `bestmove (none)` in a live position loses, with the reason recorded.
/// The opening's moves are marked `book` in the record, the others with
/// the mover's score, depth and time.
pub fn play_game(
    white: &EngineConfig,
    black: &EngineConfig,
    opening: &Opening,
    settings: &GameSettings,
    round: usize,
    interrupt: &AtomicBool,
) -> PlayedGame {
    let configs = [white, black];
    let mut notes = Notes::default();
    let end = |game: Game, result: GameResult, termination: String, notes| {
        finish(configs, game, notes, result, termination, settings, round)
    };
    let mut game = match opening.game(settings.rules) {
        Ok(game) => game,
        Err(err) => {
            let start = Game::new(Position::new(settings.rules));
            let reason = format!("bad opening: {err}");
            return end(start, GameResult::Unfinished, reason, notes);
        }
    };
    for index in 0..game.moves().len() {
        notes.comments.insert(index, "book".to_owned());
    }
    let mut engines = match start_engines(configs, settings, interrupt) {
        Ok(engines) => engines,
        Err((color, reason)) => {
            let result = GameResult::from_winner(Some(color.opponent()));
            let reason = format!("{} {reason}", configs[color.index()].name);
            return end(game, result, reason, notes);
        }
    };
    let mut clocks = Clocks::new(configs, settings);
    let mut starts = Vec::with_capacity(2);
    for config in configs {
        match start_command(opening.fen.as_deref(), settings.rules, config.protocol) {
            Ok(start) => starts.push(start),
            Err(err) => {
                let reason = format!("opening not for {}: {err}", config.name);
                return end(game, GameResult::Unfinished, reason, notes);
            }
        }
    }
    loop {
        if let Some(outcome) = game.outcome() {
            let text = outcome.to_string();
            let reason = text
                .split_once('(')
                .map_or(text.as_str(), |(_, r)| r.trim_end_matches(')'))
                .to_owned();
            return end(
                game,
                GameResult::from_winner(outcome.winner()),
                reason,
                notes,
            );
        }
        let side = game.position().side_to_move();
        let name = &configs[side.index()].name;
        let loss = GameResult::from_winner(Some(side.opponent()));
        let (go, deadline_after) = clocks.go(side, settings);
        let config = configs[side.index()];
        // GBGP has no split notation: a turn is one token.
        let split = config.split_notation && config.protocol == Protocol::Uci;
        let command = position_command(&starts[side.index()], game.moves(), split);
        let asked = Instant::now();
        let answer = ask_move(
            &mut engines[side.index()],
            game.position(),
            &command,
            &go,
            asked + deadline_after,
            interrupt,
        );
        let elapsed = asked.elapsed();
        notes.thinking.time[side.index()] += elapsed;
        notes.thinking.moves[side.index()] += 1;
        let answer = match answer {
            Ok(answer) => answer,
            Err(EngineFailure::Interrupted) => {
                let reason = "interrupted".to_owned();
                return end(game, GameResult::Unfinished, reason, notes);
            }
            Err(failure) => {
                let reason = format!("{name} {failure}");
                return end(game, loss, reason, notes);
            }
        };
        if !clocks.spend(side, elapsed) {
            return end(game, loss, format!("{name} lost on time"), notes);
        }
        let token = answer.token.as_str();
        if token == "(none)" || token == "none" {
            let reason = format!("{name} sent bestmove {token} in a live position");
            return end(game, loss, reason, notes);
        }
        let Ok(mv) = token.parse::<Move>() else {
            let reason = format!("{name} sent an unparsable move '{token}'");
            return end(game, loss, reason, notes);
        };
        if let Err(err) = game.try_play(mv) {
            let reason = format!("{name} made an illegal move {mv} ({})", err.reason);
            return end(game, loss, reason, notes);
        }
        notes
            .comments
            .insert(game.moves().len() - 1, answer.comment);
    }
}

/// Today's date as PGN writes it, `YYYY.MM.DD` (UTC).
pub(crate) fn pgn_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The machine the games are played on, for the `Site` tag.
fn site() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "?".to_owned())
}

fn finish(
    configs: [&EngineConfig; 2],
    game: Game,
    notes: Notes,
    result: GameResult,
    termination: String,
    settings: &GameSettings,
    round: usize,
) -> PlayedGame {
    let mut tags = vec![
        ("Event".to_owned(), "morris-arena".to_owned()),
        ("Site".to_owned(), site()),
        ("Date".to_owned(), pgn_date()),
        ("Round".to_owned(), round.to_string()),
        ("White".to_owned(), configs[0].name.clone()),
        ("Black".to_owned(), configs[1].name.clone()),
        ("Result".to_owned(), result.token().to_owned()),
    ];
    tags.extend(GameRecord::rules_tags(settings.rules));
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
            comments: notes.comments,
            result,
        },
        thinking: notes.thinking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_are_written_as_cutechess_writes_them() {
        let line = |score: &str| {
            let line = format!("info depth 9 seldepth 12 multipv 1 score {score} nodes 5 pv d6");
            Info::parse(&line).and_then(|info| evaluation_text(&info, Color::White))
        };
        assert_eq!(line("cp 25"), Some("+0.25/9".to_owned()));
        assert_eq!(line("cp -130"), Some("-1.30/9".to_owned()));
        assert_eq!(line("mate 3"), Some("+M3/9".to_owned()));
        assert_eq!(line("mate -2"), Some("-M2/9".to_owned()));
        let searching = Info::parse("info depth 9 currmove d6 currmovenumber 1");
        assert_eq!(
            searching.and_then(|info| evaluation_text(&info, Color::White)),
            None
        );
        // GBGP: White's view, tenths of a stone.
        let gbgp = Info::parse("info depth 6 time 5 nodes 9 score eval 12 pv d6").unwrap();
        assert_eq!(
            evaluation_text(&gbgp, Color::Black),
            Some("-1.20/6".to_owned())
        );
    }

    #[test]
    fn a_classical_control_gives_the_base_again_after_its_moves() {
        let config = EngineConfig {
            limit: Some(MoveLimit::Clock {
                base: Duration::from_secs(10),
                increment: Duration::ZERO,
                moves: Some(2),
            }),
            ..EngineConfig::default()
        };
        let settings = GameSettings {
            rules: Rules::default(),
            time_margin: Duration::ZERO,
            hang_timeout: Duration::ZERO,
        };
        let mut clocks = Clocks::new([&config, &config], &settings);
        assert!(
            clocks
                .go(Color::White, &settings)
                .0
                .ends_with(" movestogo 2")
        );
        assert!(clocks.spend(Color::White, Duration::from_secs(3)));
        assert!(
            clocks
                .go(Color::White, &settings)
                .0
                .ends_with(" movestogo 1")
        );
        assert!(clocks.spend(Color::White, Duration::from_secs(3)));
        // Two moves made: 4 s left, and the next 10 s added.
        assert_eq!(clocks.left[0], Some(Duration::from_secs(14)));
        assert!(
            clocks
                .go(Color::White, &settings)
                .0
                .ends_with(" movestogo 2")
        );
        assert!(!clocks.spend(Color::White, Duration::from_secs(15)));
    }

    #[test]
    fn an_engine_with_its_own_margin_loses_past_it() {
        let limit = Some(MoveLimit::Clock {
            base: Duration::from_secs(1),
            increment: Duration::ZERO,
            moves: None,
        });
        let strict = EngineConfig {
            limit,
            time_margin: Some(Duration::ZERO),
            ..EngineConfig::default()
        };
        let lenient = EngineConfig {
            limit,
            ..EngineConfig::default()
        };
        let settings = GameSettings {
            rules: Rules::default(),
            time_margin: Duration::from_millis(100),
            hang_timeout: Duration::ZERO,
        };
        let mut clocks = Clocks::new([&strict, &lenient], &settings);
        let late = Duration::from_millis(1050);
        assert!(!clocks.spend(Color::White, late));
        assert!(clocks.spend(Color::Black, late));
        assert_eq!(clocks.go(Color::White, &settings).1, Duration::from_secs(1));
    }

    #[test]
    fn dates_are_in_pgn_form() {
        let date = pgn_date();
        assert_eq!(date.len(), 10);
        assert_eq!(&date[4..5], ".");
        assert!(date[..4].parse::<u32>().unwrap() >= 2024);
    }
}
