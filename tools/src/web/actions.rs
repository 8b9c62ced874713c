//! What a person does to a game: a new game, other settings, a move, an
//! undo, a position or a record set up, the record saved. Each change
//! either applies or says why not, as the page shows it.

use std::time::Duration;

use morris::search::MAX_SKILL;
use morris::{Color, Game, GameRecord, GameResult, Move, Position, Rules, Variant, parse_records};
use serde_json::Value;

use super::session::{EngineSide, Settings, State};

/// `base` with the fields a JSON body gives: `variant`, `engine` (`none`,
/// `white`, `black`, `both`), `skill` (0 to 20), `movetime` (ms).
pub(super) fn settings_from(body: &str, base: Settings) -> Result<Settings, String> {
    if body.trim().is_empty() {
        return Ok(base);
    }
    let value: Value = serde_json::from_str(body).map_err(|e| format!("bad settings: {e}"))?;
    let mut settings = base;
    if let Some(variant) = value.get("variant").and_then(Value::as_str) {
        settings.variant = variant
            .parse::<Variant>()
            .map_err(|_| format!("unknown variant '{variant}'"))?;
    }
    if let Some(side) = value.get("engine").and_then(Value::as_str) {
        settings.engine_side =
            EngineSide::from_name(side).ok_or_else(|| format!("unknown engine side '{side}'"))?;
    }
    if let Some(skill) = value.get("skill").and_then(Value::as_u64) {
        settings.skill = u8::try_from(skill.min(MAX_SKILL.into())).expect("at most MAX_SKILL");
    }
    if let Some(ms) = value.get("movetime").and_then(Value::as_u64) {
        settings.movetime = Duration::from_millis(ms.clamp(10, 600_000));
    }
    Ok(settings)
}

/// A new game under the settings the body gives.
pub(super) fn new_game(state: &mut State, body: &str) -> Result<(), String> {
    state.settings = settings_from(body, state.settings)?;
    let rules = Rules::new(state.settings.variant);
    replace_game(state, Game::new(Position::new(rules)));
    Ok(())
}

/// The settings the body gives, for the game on the board.
pub(super) fn settings(state: &mut State, body: &str) -> Result<(), String> {
    let settings = settings_from(body, state.settings)?;
    if settings.variant != state.game.position().rules().variant {
        return Err("a new variant needs a new game".to_owned());
    }
    state.settings = settings;
    Ok(())
}

/// The game of a position string or a list of moves.
pub(super) fn setup(state: &mut State, text: &str) -> Result<(), String> {
    let game = game_from(text, state.settings.variant)?;
    replace_game(state, game);
    Ok(())
}

/// The game of a record, in its variant, to look at: the engine plays
/// nobody until told to, so that it adds no move to the record.
pub(super) fn open_record(state: &mut State, text: &str) -> Result<(), String> {
    let game = load_record(text)?;
    state.settings.variant = game.position().rules().variant;
    state.settings.engine_side = EngineSide::Neither;
    replace_game(state, game);
    Ok(())
}

/// A new line of play: the old one's engine answers no longer count.
fn replace_game(state: &mut State, game: Game) {
    state.game = game;
    state.line += 1;
}

/// Plays a person's move.
pub(super) fn play(state: &mut State, text: &str) -> Result<(), String> {
    if state.game.outcome().is_some() {
        return Err("the game is over".to_owned());
    }
    let side = state.game.position().side_to_move();
    if state.settings.engine_side.plays(side) && state.engine.failure.is_none() {
        return Err("it is the engine's turn".to_owned());
    }
    let mv: Move = text
        .parse()
        .map_err(|e| format!("'{text}' is not a move: {e}"))?;
    state
        .game
        .try_play(mv)
        .map_err(|e| format!("{mv} is illegal: {}", e.reason))?;
    state.hint = None;
    Ok(())
}

/// Takes back the last move, and the engine's reply before it, so that it
/// is a person's turn again.
pub(super) fn undo(state: &mut State) -> Result<(), String> {
    let moves = state.game.moves().to_vec();
    if moves.is_empty() {
        return Err("nothing to take back".to_owned());
    }
    let mut keep = moves.len() - 1;
    // A move is a whole turn, so the sides alternate ply by ply.
    let first = state.game.start().side_to_move();
    let side_at = |ply: usize| {
        if ply % 2 == 0 {
            first
        } else {
            first.opponent()
        }
    };
    let engine = state.settings.engine_side;
    while keep > 0 && engine.plays(side_at(keep)) && engine != EngineSide::Both {
        keep -= 1;
    }
    let mut game = Game::new(*state.game.start());
    for &mv in &moves[..keep] {
        game.try_play(mv).expect("a move played before");
    }
    replace_game(state, game);
    Ok(())
}

/// A game from a position string, or from moves from the start.
fn game_from(text: &str, variant: Variant) -> Result<Game, String> {
    let rules = Rules::new(variant);
    if text.contains('/') {
        let position =
            Position::from_fen(text, rules).map_err(|e| format!("bad position string: {e}"))?;
        return Ok(Game::new(position));
    }
    let mut game = Game::new(Position::new(rules));
    let tokens = text
        .split_whitespace()
        .filter(|t| !t.ends_with('.') && !t.chars().all(|c| c.is_ascii_digit() || c == '.'));
    for token in tokens {
        let mv: Move = token.parse().map_err(|_| {
            format!("'{text}' is neither a position string nor a list of moves ('{token}')")
        })?;
        game.try_play(mv)
            .map_err(|e| format!("{mv} is illegal here: {}", e.reason))?;
    }
    Ok(game)
}

fn load_record(text: &str) -> Result<Game, String> {
    let records = parse_records(text).map_err(|e| format!("bad game record: {e}"))?;
    let record = records.first().ok_or("no game in the record")?;
    record.replay().map_err(|e| format!("bad game record: {e}"))
}

/// The game as a record (the PGN conventions of docs/TOOLS.md).
pub(super) fn record_text(state: &State) -> String {
    let game = &state.game;
    let rules = game.position().rules();
    let engine = state
        .engine
        .name
        .clone()
        .unwrap_or_else(|| "engine".to_owned());
    let name = |color| {
        if state.settings.engine_side.plays(color) {
            engine.clone()
        } else {
            "player".to_owned()
        }
    };
    let result = game.outcome().map_or(GameResult::Unfinished, |o| {
        GameResult::from_winner(o.winner())
    });
    let mut tags = vec![
        ("Event".to_owned(), "morris-web".to_owned()),
        ("White".to_owned(), name(Color::White)),
        ("Black".to_owned(), name(Color::Black)),
        ("Result".to_owned(), result.token().to_owned()),
        ("Variant".to_owned(), rules.variant.to_string()),
    ];
    if *game.start() != Position::new(rules) {
        tags.push(("SetUp".to_owned(), "1".to_owned()));
        tags.push(("FEN".to_owned(), game.start().fen()));
    }
    GameRecord {
        tags,
        moves: game.moves().to_vec(),
        comments: Default::default(),
        result,
    }
    .to_string()
}
