//! morris-web's server over HTTP on 127.0.0.1: whole games against an
//! engine process, refusals, failing engines, two browsers at once.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use morris_tools::client::EngineConfig;
use serde_json::Value;

use common::{
    WIN_IN_FIVE, morris, request, script, serve, small_databases, small_databases_with_placing,
};

fn json(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, text) = request(addr, method, path, body);
    (status, serde_json::from_str(&text).expect("JSON"))
}

fn new_game(addr: SocketAddr, settings: &str) -> Value {
    let (status, state) = json(addr, "POST", "/api/game", settings);
    assert_eq!(status, 200, "{state}");
    state
}

fn id(state: &Value) -> String {
    state["id"].as_str().expect("an id").to_owned()
}

/// Waits (long polls) until `done` holds, for at most a minute.
fn wait_until(addr: SocketAddr, state: &Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut state = state.clone();
    while !done(&state) {
        assert!(Instant::now() < deadline, "waited in vain: {state}");
        let path = format!("/api/state?id={}&after={}", id(&state), state["version"]);
        let (status, next) = json(addr, "GET", &path, "");
        assert_eq!(status, 200, "{next}");
        state = next;
    }
    state
}

fn engine_idle(state: &Value) -> bool {
    state["engine"]["thinking"].is_null()
}

#[test]
fn the_page_is_served() {
    let server = serve(morris(), None);
    let (status, page) = request(server.addr, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("<svg id=\"board\""));
    let (status, _) = request(server.addr, "GET", "/nothing", "");
    assert_eq!(status, 404);
}

#[test]
fn a_whole_game_against_the_engine() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let mut state = new_game(addr, r#"{"engine":"black","movetime":10}"#);
    let game = id(&state);
    let mut plies = 0;
    while state["outcome"].is_null() {
        state = wait_until(addr, &state, |s| {
            !s["outcome"].is_null() || (engine_idle(s) && s["turn"] == "white")
        });
        if !state["outcome"].is_null() {
            break;
        }
        assert!(state["engine"]["failure"].is_null(), "{state}");
        // The person plays the first legal move (a removal when it has one).
        let legal = state["legal"].as_array().expect("moves");
        let mv = legal[0]["text"].as_str().expect("a move");
        let (status, next) = json(addr, "POST", &format!("/api/move?id={game}"), mv);
        assert_eq!(status, 200, "{next}");
        state = next;
        plies += 1;
        assert!(plies < 400, "the game ends");
    }
    let history = state["history"].as_array().expect("moves");
    assert!(history.len() >= 18, "the stones are placed at least");
    assert!(state["legal"].as_array().expect("moves").is_empty());
    let (status, record) = request(addr, "GET", &format!("/api/record?id={game}"), "");
    assert_eq!(status, 200);
    assert!(record.contains("[Black \"morris"), "{record}");
    // The record replays to the same game in a new one.
    let other = new_game(addr, r#"{"engine":"none"}"#);
    let (status, loaded) = json(
        addr,
        "POST",
        &format!("/api/record?id={}", id(&other)),
        &record,
    );
    assert_eq!(status, 200, "{loaded}");
    assert_eq!(loaded["fen"], state["fen"]);
}

#[test]
fn illegal_moves_and_bad_positions_are_refused_and_nothing_changes() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let game = id(&state);
    let (status, after) = json(addr, "POST", &format!("/api/move?id={game}"), "d6");
    assert_eq!(status, 200);
    for bad in ["d6", "d6-d5", "zz", ""] {
        let (status, answer) = json(addr, "POST", &format!("/api/move?id={game}"), bad);
        assert_eq!(status, 400, "{bad}: {answer}");
        assert!(answer["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    let (status, answer) = json(
        addr,
        "POST",
        &format!("/api/setup?id={game}"),
        "not a position",
    );
    assert_eq!(status, 400, "{answer}");
    let (_, now) = json(addr, "GET", &format!("/api/state?id={game}"), "");
    assert_eq!(now["fen"], after["fen"]);
    // A position string and a move list set the board up.
    let fen = ".../.W./.../....../.../.../... b 8 9 1 1";
    let (status, set) = json(addr, "POST", &format!("/api/setup?id={game}"), fen);
    assert_eq!((status, &set["fen"]), (200, &Value::from(fen)));
    let (status, set) = json(
        addr,
        "POST",
        &format!("/api/setup?id={game}"),
        "1. d6 f4 2. b4",
    );
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["history"].as_array().map(Vec::len), Some(3));
    // Undo with nobody's engine takes back one move.
    let (_, undone) = json(addr, "POST", &format!("/api/undo?id={game}"), "");
    assert_eq!(undone["history"].as_array().map(Vec::len), Some(2));
    let (status, _) = json(addr, "POST", "/api/move?id=12345", "d6");
    assert_eq!(status, 404);
}

#[test]
fn an_engine_that_fails_is_reported_and_can_be_restarted() {
    // Starts, then dies on its first search.
    let crashing = "while read line; do case $line in uci) echo 'id name crasher'; echo uciok;; \
                    isready) echo readyok;; go*) exit 3;; esac; done";
    let server = serve(script(crashing), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"white","movetime":10}"#);
    let failed = wait_until(addr, &state, |s| !s["engine"]["failure"].is_null());
    assert!(
        failed["engine"]["failure"]
            .as_str()
            .is_some_and(|f| f.contains("crashed")),
        "{failed}"
    );
    // The person may play on for both sides meanwhile.
    let game = id(&failed);
    let (status, _) = json(addr, "POST", &format!("/api/move?id={game}"), "d6");
    assert_eq!(status, 200);
    // Restarting clears the failure; the engine (white) waits for its turn.
    let (status, restarted) = json(addr, "POST", &format!("/api/restart?id={game}"), "");
    assert_eq!(status, 200, "{restarted}");
    let cleared = wait_until(addr, &restarted, |s| s["engine"]["failure"].is_null());
    assert_eq!(cleared["turn"], "black");
}

#[test]
fn an_engine_that_does_not_start_or_moves_illegally_is_caught() {
    let missing = EngineConfig {
        name: "missing".to_owned(),
        cmd: "/nonexistent/engine".to_owned(),
        ..EngineConfig::default()
    };
    let server = serve(missing, None);
    let state = new_game(server.addr, r#"{"engine":"white"}"#);
    let failed = wait_until(server.addr, &state, |s| !s["engine"]["failure"].is_null());
    assert!(
        failed["engine"]["failure"]
            .as_str()
            .is_some_and(|f| f.contains("failed to start")),
        "{failed}"
    );
    drop(server);
    // Always answers a1: legal once, then an occupied point.
    let stubborn = "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
                    go*) echo 'bestmove a1';; esac; done";
    let server = serve(script(stubborn), None);
    let state = new_game(server.addr, r#"{"engine":"both","movetime":10}"#);
    let failed = wait_until(server.addr, &state, |s| !s["engine"]["failure"].is_null());
    assert!(
        failed["engine"]["failure"]
            .as_str()
            .is_some_and(|f| f.contains("illegal")),
        "{failed}"
    );
    assert_eq!(failed["history"].as_array().map(Vec::len), Some(1));
}

#[test]
fn two_browsers_play_two_games_at_once() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let first = new_game(addr, r#"{"engine":"black","movetime":20}"#);
    let second = new_game(addr, r#"{"engine":"white","movetime":20}"#);
    assert_ne!(id(&first), id(&second));
    let (status, _) = json(addr, "POST", &format!("/api/move?id={}", id(&first)), "a1");
    assert_eq!(status, 200);
    // The second browser's engine opens its game; the first's answers a1.
    let second = wait_until(addr, &second, |s| {
        s["history"].as_array().map(Vec::len) == Some(1)
    });
    let first = wait_until(addr, &first, |s| {
        s["history"].as_array().map(Vec::len) == Some(2)
    });
    assert_eq!(first["history"][0]["move"]["text"], "a1");
    assert_eq!(second["turn"], "black");
    // Each game is its own: a move in one does not show in the other.
    let (status, _) = json(addr, "POST", &format!("/api/move?id={}", id(&second)), "g7");
    assert_eq!(status, 200);
    let (_, first_now) = json(addr, "GET", &format!("/api/state?id={}", id(&first)), "");
    assert_eq!(first_now["history"].as_array().map(Vec::len), Some(2));
}

#[test]
fn database_values_are_an_outcome_and_a_distance() {
    let (db, _dir) = small_databases("web");
    let server = serve(morris(), Some(db));
    let state = new_game(server.addr, r#"{"engine":"none"}"#);
    let path = format!("/api/setup?id={}", id(&state));
    let (status, set) = json(server.addr, "POST", &path, WIN_IN_FIVE);
    assert_eq!(status, 200, "{set}");
    let exact = &set["exact"];
    assert_eq!(
        exact["value"],
        serde_json::json!({ "outcome": "win", "distance": 5 })
    );
    let moves = &exact["moves"];
    assert_eq!(
        moves["a7-b6"],
        serde_json::json!({ "outcome": "win", "distance": 21 })
    );
    assert_eq!(
        moves["a7-g4"],
        serde_json::json!({ "outcome": "draw", "distance": null })
    );
    assert_eq!(
        moves["a7-g7"],
        serde_json::json!({ "outcome": "loss", "distance": 4 })
    );
    // Outside the databases (stones still to place) there is no value.
    let (_, start) = json(server.addr, "POST", &path, "1. d6");
    assert!(start["exact"].is_null(), "{start}");
}

#[test]
fn with_the_placing_phase_every_placement_has_its_value() {
    let (db, _dir) = small_databases_with_placing("web-placing");
    let server = serve(morris(), Some(db));
    let state = new_game(server.addr, r#"{"engine":"none"}"#);
    let path = format!("/api/setup?id={}", id(&state));
    // Three stones each, one of them placed.
    let (status, set) = json(
        server.addr,
        "POST",
        &path,
        "W../.../.../....../.../.../..B w 2 2 0 2",
    );
    assert_eq!(status, 200, "{set}");
    let exact = &set["exact"];
    assert_eq!(exact["value"]["distance"], Value::Null, "{exact}");
    assert!(
        ["win", "draw", "loss"].contains(&exact["value"]["outcome"].as_str().unwrap()),
        "{exact}"
    );
    let moves = exact["moves"].as_object().unwrap();
    // Every empty point, each with an outcome.
    assert_eq!(moves.len(), 22, "{exact}");
    assert!(moves.values().all(|v| v["outcome"].is_string()), "{exact}");
}

/// The options an [`option_logger`] was given, one `setoption` line each;
/// the file goes when dropped.
struct OptionLog(std::path::PathBuf);

impl OptionLog {
    fn read(&self) -> String {
        std::fs::read_to_string(&self.0).expect("the engine's log")
    }
}

impl Drop for OptionLog {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// An engine that writes down the options it is given and always
/// suggests a1, for the test `name`.
fn option_logger(name: &str) -> (EngineConfig, OptionLog) {
    let log =
        OptionLog(std::env::temp_dir().join(format!("morris-web-{name}-{}", std::process::id())));
    let _ = std::fs::remove_file(&log.0);
    let logger = format!(
        "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
         setoption*) echo \"$line\" >> '{}';; go*) echo 'bestmove a1';; esac; done",
        log.0.display()
    );
    (script(&logger), log)
}

#[test]
fn an_engine_kept_from_another_variant_is_told_every_rule_again() {
    let (logger, log) = option_logger("rules");
    let server = serve(logger, None);
    let addr = server.addr;
    let hint_in = |variant: &str, state: &Value| {
        let game = id(state);
        let settings = format!(r#"{{"variant":"{variant}","engine":"none"}}"#);
        let (status, fresh) = json(addr, "POST", &format!("/api/new?id={game}"), &settings);
        assert_eq!(status, 200, "{fresh}");
        let (status, asked) = json(addr, "POST", &format!("/api/hint?id={game}"), "");
        assert_eq!(status, 200, "{asked}");
        let answered = wait_until(addr, &asked, |s| engine_idle(s) && !s["hint"].is_null());
        assert!(answered["engine"]["failure"].is_null(), "{answered}");
        answered
    };
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let state = hint_in("lasker", &state);
    hint_in("nine", &state);
    let sent = log.read();
    let variants: Vec<&str> = sent
        .lines()
        .filter_map(|l| l.strip_prefix("setoption name Variant value "))
        .collect();
    assert_eq!(variants, ["lasker", "nine"], "{sent}");
    assert!(sent.contains("setoption name Flying value true"), "{sent}");
    assert!(sent.contains("setoption name NMoveRule value 30"), "{sent}");
}

#[test]
fn a_record_opened_is_not_played_on_by_the_engine() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"black","movetime":10}"#);
    // Black, the engine's side, is to move after the record's last move.
    let record = "[Event \"test\"]\n[Result \"*\"]\n\n1. a1 *\n";
    let (status, loaded) = json(
        addr,
        "POST",
        &format!("/api/record?id={}", id(&state)),
        record,
    );
    assert_eq!(status, 200, "{loaded}");
    assert_eq!(loaded["settings"]["engine"], "none", "{loaded}");
    std::thread::sleep(Duration::from_millis(300));
    let (_, now) = json(
        addr,
        "GET",
        &format!("/api/state?id={}&after=0", id(&state)),
        "",
    );
    assert_eq!(now["history"].as_array().map(Vec::len), Some(1), "{now}");
    assert!(engine_idle(&now), "{now}");
}

#[test]
fn a_hint_is_the_full_engines_at_any_level() {
    let (logger, log) = option_logger("hint");
    let server = serve(logger, None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none","skill":0}"#);
    let (status, asked) = json(addr, "POST", &format!("/api/hint?id={}", id(&state)), "");
    assert_eq!(status, 200, "{asked}");
    let answered = wait_until(addr, &asked, |s| engine_idle(s) && !s["hint"].is_null());
    assert_eq!(answered["settings"]["skill"], 0);
    let sent = log.read();
    let levels: Vec<&str> = sent
        .lines()
        .filter_map(|l| l.strip_prefix("setoption name Skill Level value "))
        .collect();
    assert_eq!(levels, ["20"], "{sent}");
}

#[test]
fn the_panel_tells_the_score_in_words_and_no_line_the_engine_did_not_play() {
    // Reports a best line starting d6 for White, then plays a1, as a
    // weakened engine may.
    let weakened = "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
                    go*) echo 'info depth 3 score cp 50 pv d6 f4'; echo 'bestmove a1';; esac; done";
    let server = serve(script(weakened), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"white","movetime":10}"#);
    let played = wait_until(addr, &state, |s| {
        s["history"].as_array().is_some_and(|h| h.len() == 1) && engine_idle(s)
    });
    assert_eq!(played["engine"]["pv"], "", "{played}");
    assert_eq!(
        played["engine"]["score"], "white is ahead by 0.5 stones",
        "{played}"
    );
}

#[test]
fn an_engine_playing_itself_is_given_a_pace_to_watch() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let started = Instant::now();
    let state = new_game(addr, r#"{"engine":"both","movetime":10,"skill":0}"#);
    wait_until(addr, &state, |s| {
        s["history"].as_array().is_some_and(|h| h.len() >= 4)
    });
    // Four moves at 10 ms each, shown no faster than one in 0.7 s.
    assert!(
        started.elapsed() >= Duration::from_millis(2800),
        "{:?}",
        started.elapsed()
    );
}
