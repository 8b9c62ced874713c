//! What the page is sent: the whole state of a game as one JSON object.

use morris::endgame::{DbOutcome, DbValue, EndgameDb};
use morris::{Color, Move, Position, Square};
use serde_json::{Value, json};

use super::session::{State, Task};

fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The stones on the board: point name to `white` or `black`.
fn board_json(position: &Position) -> Value {
    let mut board = serde_json::Map::new();
    for color in Color::ALL {
        for sq in position.stones(color) {
            board.insert(sq.to_string(), json!(side_name(color)));
        }
    }
    Value::Object(board)
}

fn move_json(mv: Move) -> Value {
    json!({
        "text": mv.to_string(),
        "from": mv.from.map(|s| s.to_string()),
        "to": mv.to.to_string(),
        "remove": mv.removal.map(|s| s.to_string()),
    })
}

fn db_text(value: Option<DbValue>) -> Value {
    match value {
        None => Value::Null,
        Some(v) => json!(match v.outcome {
            DbOutcome::Win => format!("win in {}", v.distance),
            DbOutcome::Loss => format!("loss in {}", v.distance),
            DbOutcome::Draw => "draw".to_owned(),
        }),
    }
}

/// Everything the page shows, in one object.
pub(super) fn state_json(id: u64, state: &State, db: Option<&EndgameDb>) -> Value {
    let game = &state.game;
    let position = game.position();
    let rules = position.rules();
    let tables = rules.variant.tables();
    let points: Vec<String> = Square::ALL.iter().map(ToString::to_string).collect();
    let lines: Vec<[String; 2]> = Square::ALL
        .iter()
        .flat_map(|&a| {
            tables
                .neighbors(a)
                .into_iter()
                .filter(move |b| a.index() < b.index())
                .map(move |b| [a.to_string(), b.to_string()])
        })
        .collect();
    let mut replay = *game.start();
    let history: Vec<Value> = game
        .moves()
        .iter()
        .map(|&mv| {
            replay.play(mv);
            json!({ "move": move_json(mv), "board": board_json(&replay) })
        })
        .collect();
    let outcome = game.outcome();
    let legal: Vec<Value> = if outcome.is_some() {
        Vec::new()
    } else {
        position.legal_moves().into_iter().map(move_json).collect()
    };
    let exact = db.filter(|_| outcome.is_none()).and_then(|db| {
        let value = db.probe(position)?;
        let moves: serde_json::Map<String, Value> = db
            .rank_moves(position)
            .into_iter()
            .map(|(mv, v)| (mv.to_string(), db_text(v)))
            .collect();
        Some(json!({ "value": db_text(Some(value)), "moves": moves }))
    });
    let engine = &state.engine;
    json!({
        "id": id.to_string(),
        "version": state.version,
        "variant": rules.variant.to_string(),
        "points": points,
        "lines": lines,
        "start": { "board": board_json(game.start()) },
        "board": board_json(position),
        "fen": position.fen(),
        "turn": side_name(position.side_to_move()),
        "inHand": { "white": position.in_hand(Color::White), "black": position.in_hand(Color::Black) },
        "onBoard": { "white": position.stones(Color::White).len(), "black": position.stones(Color::Black).len() },
        "legal": legal,
        "history": history,
        "outcome": outcome.map(|o| o.to_string()),
        "settings": {
            "engine": state.settings.engine_side.name(),
            "skill": state.settings.skill,
            "movetime": state.settings.movetime.as_millis() as u64,
            "variant": state.settings.variant.to_string(),
        },
        "engine": {
            "name": engine.name,
            "thinking": engine.task.map(|t| match t { Task::Move => "move", Task::Hint => "hint" }),
            "depth": engine.thinking.depth,
            "score": engine.thinking.score,
            "pv": engine.thinking.pv.join(" "),
            "failure": engine.failure,
        },
        "hint": state.hint.map(move_json),
        "exact": exact,
        "message": state.message,
    })
}
