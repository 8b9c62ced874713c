//! morris-web: a board in the browser. The server holds each browser's
//! game (refereed by the library) and drives an engine process through
//! the protocol as any GUI does; the page asks for changes with `POST`s
//! and hears of them by long polling (`GET /api/state?after=VERSION`
//! answers when the state is newer), so it needs nothing but HTTP.

pub mod session;

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use morris::endgame::{DbOutcome, DbValue, EndgameDb};
use morris::{
    Color, Game, GameRecord, GameResult, Move, Position, Rules, Square, Variant, parse_records,
};
use serde_json::{Value, json};

use crate::client::EngineConfig;
use session::{EngineSide, Session, Settings, State, Task};

/// The page: HTML, CSS and JavaScript in one file, served as it is.
const PAGE: &str = include_str!("page.html");

/// How long a long poll waits for a change before answering anyway.
const POLL_WAIT: Duration = Duration::from_secs(20);

/// A game nobody asked about for this long is closed (its engine with it):
/// the browser that had it is gone.
const ABANDONED: Duration = Duration::from_secs(600);

/// The largest request body read (a game record or a position string).
const MAX_BODY: u64 = 1 << 20;

/// What the server needs besides its address.
pub struct WebConfig {
    /// The engine every game starts (`morris` of the workspace by default).
    pub engine: EngineConfig,
    /// Endgame databases for the exact values shown on the board.
    pub db: Option<EndgameDb>,
}

/// The running server.
pub struct WebServer {
    http: Arc<tiny_http::Server>,
    games: Arc<Games>,
    addr: SocketAddr,
}

struct Games {
    sessions: Mutex<HashMap<u64, Arc<Session>>>,
    next_id: AtomicU64,
    config: WebConfig,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct Stopper(Arc<tiny_http::Server>);

impl Stopper {
    /// Makes [`WebServer::run`] return.
    pub fn stop(&self) {
        self.0.unblock();
    }
}

impl WebServer {
    /// Listens on 127.0.0.1 at `port` (0: a free one).
    ///
    /// # Errors
    ///
    /// The port cannot be had.
    pub fn bind(port: u16, config: WebConfig) -> std::io::Result<WebServer> {
        let http = tiny_http::Server::http(("127.0.0.1", port)).map_err(std::io::Error::other)?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| std::io::Error::other("not an IP address"))?;
        Ok(WebServer {
            http: Arc::new(http),
            games: Arc::new(Games {
                sessions: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(rand::random::<u32>().into()),
                config,
            }),
            addr,
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops the server.
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.http))
    }

    /// Answers requests, each on its own thread, until stopped; then
    /// closes every game and the engine processes it started.
    pub fn run(self) {
        let games = Arc::clone(&self.games);
        let reaper_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reaper = {
            let (games, stop) = (Arc::clone(&games), Arc::clone(&reaper_stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    games.close_abandoned();
                }
            })
        };
        for request in self.http.incoming_requests() {
            let games = Arc::clone(&games);
            std::thread::spawn(move || answer(&games, request));
        }
        reaper_stop.store(true, Ordering::Relaxed);
        let _ = reaper.join();
        let sessions: Vec<Arc<Session>> = games
            .sessions
            .lock()
            .expect("not poisoned")
            .drain()
            .map(|(_, s)| s)
            .collect();
        for session in sessions {
            session.close();
        }
    }
}

impl Games {
    fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.sessions
            .lock()
            .expect("not poisoned")
            .get(&id)
            .cloned()
    }

    fn create(&self, settings: Settings) -> (u64, Arc<Session>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let session = Arc::new(Session::new(self.config.engine.clone(), settings));
        self.sessions
            .lock()
            .expect("not poisoned")
            .insert(id, Arc::clone(&session));
        (id, session)
    }

    fn close_abandoned(&self) {
        let abandoned: Vec<Arc<Session>> = {
            let mut sessions = self.sessions.lock().expect("not poisoned");
            let old: Vec<u64> = sessions
                .iter()
                .filter(|(_, s)| s.lock().last_seen.elapsed() > ABANDONED)
                .map(|(&id, _)| id)
                .collect();
            old.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for session in abandoned {
            session.close();
        }
    }
}

/// An answer: status and body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
}

impl Reply {
    fn json(value: &Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: value.to_string(),
        }
    }

    fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: json!({ "error": message }).to_string(),
        }
    }
}

fn answer(games: &Games, mut request: tiny_http::Request) {
    let mut body = String::new();
    let read = request.as_reader().take(MAX_BODY).read_to_string(&mut body);
    let reply = match read {
        Ok(_) => route(games, request.method(), request.url(), &body),
        Err(_) => Reply::error(400, "the request body is not text"),
    };
    let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], reply.content_type.as_bytes())
        .expect("a valid header");
    let no_cache = tiny_http::Header::from_bytes(&b"Cache-Control"[..], &b"no-store"[..])
        .expect("a valid header");
    let response = tiny_http::Response::from_string(reply.body)
        .with_status_code(reply.status)
        .with_header(header)
        .with_header(no_cache);
    // A browser that went away while waiting is no error of ours.
    let _ = request.respond(response);
}

/// The query's value of `key`.
fn query<'a>(url: &'a str, key: &str) -> Option<&'a str> {
    url.split_once('?')?
        .1
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

fn route(games: &Games, method: &tiny_http::Method, url: &str, body: &str) -> Reply {
    use tiny_http::Method::{Get, Post};
    let path = url.split('?').next().unwrap_or("");
    if (method, path) == (&Get, "/") {
        return Reply {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: PAGE.to_owned(),
        };
    }
    if (method, path) == (&Post, "/api/game") {
        let settings = match settings_from(body, Settings::default()) {
            Ok(settings) => settings,
            Err(message) => return Reply::error(400, &message),
        };
        let (id, session) = games.create(settings);
        return Reply::json(&state_json(id, &session.lock(), games.config.db.as_ref()));
    }
    let Some(id) = query(url, "id").and_then(|id| id.parse::<u64>().ok()) else {
        return Reply::error(404, "no such page");
    };
    let Some(session) = games.get(id) else {
        return Reply::error(404, "no such game: the server may have restarted");
    };
    let db = games.config.db.as_ref();
    let done = |result: Result<(), String>| match result {
        Ok(()) => Reply::json(&state_json(id, &session.lock(), db)),
        Err(message) => Reply::error(400, &message),
    };
    match (method, path) {
        (Get, "/api/state") => {
            let after = query(url, "after")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            Reply::json(&state_json(id, &session.wait_newer(after, POLL_WAIT), db))
        }
        (Post, "/api/new") => done(session.change(|state| {
            state.settings = settings_from(body, state.settings)?;
            let rules = Rules::new(state.settings.variant);
            replace_game(state, Game::new(Position::new(rules)));
            Ok(())
        })),
        (Post, "/api/settings") => done(session.change(|state| {
            let settings = settings_from(body, state.settings)?;
            if settings.variant != state.game.position().rules().variant {
                return Err("a new variant needs a new game".to_owned());
            }
            state.settings = settings;
            Ok(())
        })),
        (Post, "/api/move") => done(session.change(|state| play(state, body.trim()))),
        (Post, "/api/undo") => done(session.change(undo)),
        (Post, "/api/hint") => done(session.hint()),
        (Post, "/api/restart") => {
            session.restart();
            done(Ok(()))
        }
        (Post, "/api/setup") => done(session.change(|state| {
            let game = setup(body.trim(), state.settings.variant)?;
            replace_game(state, game);
            Ok(())
        })),
        (Post, "/api/record") => done(session.change(|state| {
            let game = load_record(body)?;
            state.settings.variant = game.position().rules().variant;
            replace_game(state, game);
            Ok(())
        })),
        (Get, "/api/record") => Reply {
            status: 200,
            content_type: "application/x-chess-pgn; charset=utf-8",
            body: record_text(&session.lock()),
        },
        _ => Reply::error(404, "no such page"),
    }
}

/// `base` with the fields a JSON body gives: `variant`, `engine` (`none`,
/// `white`, `black`, `both`), `skill` (0 to 20), `movetime` (ms).
fn settings_from(body: &str, base: Settings) -> Result<Settings, String> {
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
        settings.skill = u8::try_from(skill.min(20)).expect("at most 20");
    }
    if let Some(ms) = value.get("movetime").and_then(Value::as_u64) {
        settings.movetime = Duration::from_millis(ms.clamp(10, 600_000));
    }
    Ok(settings)
}

/// A new line of play: the old one's engine answers no longer count.
fn replace_game(state: &mut State, game: Game) {
    state.game = game;
    state.line += 1;
}

fn play(state: &mut State, text: &str) -> Result<(), String> {
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
fn undo(state: &mut State) -> Result<(), String> {
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
fn setup(text: &str, variant: Variant) -> Result<Game, String> {
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

/// The game as a record (the README's PGN conventions).
fn record_text(state: &State) -> String {
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
fn state_json(id: u64, state: &State, db: Option<&EndgameDb>) -> Value {
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
