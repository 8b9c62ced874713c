//! morris-web's server over HTTP on 127.0.0.1: whole games against an
//! engine process, refusals, failing engines, two browsers at once.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use morris_tools::client::EngineConfig;
use serde_json::{Value, json};

use common::{
    Events, WIN_IN_FIVE, WebProcess, morris, script, serve, serve_with, small_databases,
    small_databases_with_placing, try_exchange, try_request,
};
use morris_tools::web::WebConfig;

/// One HTTP request; the status and the body.
fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    try_request(addr, method, path, body)
        .unwrap_or_else(|e| panic!("{method} {path} to {addr}: {e}"))
}

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
    wait_at(addr, state, "", done)
}

/// Waits (long polls) as [`wait_until`] does, asking with `seat` after
/// the game's id (`&seat=TOKEN` for a room's seat, or nothing).
fn wait_at(addr: SocketAddr, state: &Value, seat: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut state = state.clone();
    while !done(&state) {
        assert!(Instant::now() < deadline, "waited in vain: {state}");
        let path = format!(
            "/api/state?id={}{seat}&after={}",
            id(&state),
            state["version"]
        );
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
    // Its icon is in the page: the browser asks for no /favicon.ico.
    assert!(page.contains(r#"<link rel="icon" href="data:image/svg+xml,"#));
    // Every file the page loads, and every module its script imports, in
    // turn: each served with its type, to be kept and asked about again.
    let mut files = linked(&page, "/");
    let mut served = Vec::new();
    while let Some(path) = files.pop() {
        if served.contains(&path) {
            continue;
        }
        let (status, head, body) = try_exchange(server.addr, "GET", &path, "", "")
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        assert_eq!(status, 200, "{path}");
        let kind = if path.ends_with(".css") {
            "text/css"
        } else {
            "text/javascript"
        };
        assert!(
            head.contains(&format!("content-type: {kind}")),
            "{path}: {head}"
        );
        assert!(head.contains("cache-control: no-cache"), "{path}: {head}");
        let etag = head
            .lines()
            .find_map(|line| line.strip_prefix("etag: "))
            .unwrap_or_else(|| panic!("{path} has an ETag: {head}"));
        // Asked again with its ETag, it is not sent again.
        let if_none_match = format!("If-None-Match: {etag}\r\n");
        let (status, _, again) = try_exchange(server.addr, "GET", &path, &if_none_match, "")
            .unwrap_or_else(|e| panic!("GET {path} again: {e}"));
        assert_eq!((status, again.as_str()), (304, ""), "{path}");
        files.extend(linked(&body, &path));
        served.push(path);
    }
    for file in [
        "/assets/morris.css",
        "/assets/js/main.js",
        "/assets/js/state.js",
    ] {
        assert!(served.iter().any(|path| path == file), "{file}: {served:?}");
    }
    for path in ["/nothing", "/assets/nothing.js", "/assets/js/nothing.js"] {
        let (status, _) = request(server.addr, "GET", path, "");
        assert_eq!(status, 404, "{path}");
    }
    // An action asked for by GET, a page by POST: there, but not so.
    for (method, path) in [("GET", "/api/challenge"), ("POST", "/api/lobby")] {
        let (status, answer) = json(server.addr, method, path, "");
        assert_eq!(status, 405, "{method} {path}");
        assert_eq!(answer["error"], format!("{method} is not answered here"));
    }
}

/// The files `text`, at `path`, loads: the page's stylesheet and script
/// (`"/assets/..."`), a module's imports (`"./x.js"` beside it).
fn linked(text: &str, path: &str) -> Vec<String> {
    let folder = &path[..path.rfind('/').expect("a path") + 1];
    let mut files = Vec::new();
    for (at, _) in text.match_indices("\"/assets/") {
        let name = text[at + 1..].split('"').next().expect("a name");
        files.push(name.to_owned());
    }
    let imports = text.lines().filter(|line| line.starts_with("import "));
    for line in imports {
        if let Some((_, name)) = line.split_once("\"./") {
            let name = name.split('"').next().expect("a name");
            files.push(format!("{folder}{name}"));
        }
    }
    files
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
fn a_refusal_quotes_a_long_request_cut_short() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let game = id(&state);
    // Just under the largest body read: one token, and many.
    let token = "z".repeat(1_000_000);
    let words = "zz ".repeat(300_000);
    for (action, body) in [
        ("move", &token),
        ("setup", &token),
        ("setup", &words),
        ("draw", &token),
        ("record", &token),
    ] {
        let (status, text) = request(addr, "POST", &format!("/api/{action}?id={game}"), body);
        assert_eq!(status, 400, "{action}: {}", &text[..text.len().min(200)]);
        assert!(text.len() < 300, "{action}: {} bytes", text.len());
    }
    for code in ["", " - ", "\"\""] {
        let (status, answer) = json(
            addr,
            "POST",
            "/api/join",
            &format!(r#"{{"code":{code:?}}}"#),
        );
        assert_eq!(status, 400, "{code:?}: {answer}");
        assert_eq!(answer["error"], "a room's code is needed", "{code:?}");
    }
    let (status, answer) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{token}"}}"#),
    );
    assert_eq!(status, 404, "{}", answer.to_string().len());
    assert!(answer.to_string().len() < 300);
    // Nothing changed.
    let (_, now) = json(addr, "GET", &format!("/api/state?id={game}"), "");
    assert_eq!(now["fen"], state["fen"]);
}

#[test]
fn the_state_says_whether_the_server_has_databases() {
    let server = serve(morris(), None);
    let state = new_game(server.addr, r#"{"engine":"none"}"#);
    assert_eq!(state["databases"], false, "{state}");
    let (db, _dir) = small_databases("web-has-databases");
    let server = serve(morris(), Some(db));
    let state = new_game(server.addr, r#"{"engine":"none"}"#);
    assert_eq!(state["databases"], true, "{state}");
    // The start is out of their reach: no value, though they are there.
    assert!(state["exact"].is_null(), "{state}");
}

#[test]
fn without_databases_the_server_says_so_and_how_to_build_them() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    // A home of its own: no default folder of databases in it.
    let home = std::env::temp_dir().join(format!("morris-web-no-db-{}", std::process::id()));
    std::fs::create_dir_all(&home).expect("a home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris-web"))
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("morris-web starts");
    // Its address comes once it serves, after what it said of the
    // databases.
    let mut address = String::new();
    BufReader::new(child.stdout.take().expect("its output"))
        .read_line(&mut address)
        .expect("its address");
    let _ = child.kill();
    let _ = child.wait();
    let mut said = String::new();
    child
        .stderr
        .take()
        .expect("its errors")
        .read_to_string(&mut said)
        .expect("what it said");
    let _ = std::fs::remove_dir_all(&home);
    assert!(address.starts_with("http://127.0.0.1:"), "{address}");
    assert!(
        said.contains("no endgame databases") && said.contains("morris gen-db"),
        "{said}"
    );
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
    let win = |distance| json!({ "outcome": "win", "distance": distance, "withoutRule": null });
    assert_eq!(exact["value"], win(5));
    let moves = &exact["moves"];
    assert_eq!(moves["a7-b6"], win(21));
    assert_eq!(
        moves["a7-g4"],
        json!({ "outcome": "draw", "distance": null, "withoutRule": null })
    );
    assert_eq!(
        moves["a7-g7"],
        json!({ "outcome": "loss", "distance": 4, "withoutRule": null })
    );
    // Outside the databases (stones still to place) there is no value.
    let (_, start) = json(server.addr, "POST", &path, "1. d6");
    assert!(start["exact"].is_null(), "{start}");
}

/// Lasker Morris up to three stones a side, on the board and in hand
/// together, a sector and its twin at a time.
fn small_lasker_databases(name: &str) -> (morris::solution::Database, common::TempDir) {
    let dir = common::TempDir::new(name);
    for unit in morris::solution::Sector::interleaved_within(morris::Variant::Lasker, 3) {
        morris::solution::retrograde::generate_unit(dir.path(), unit, &|_| {}, |_| {})
            .expect("a Lasker unit");
    }
    let (db, _) = morris::solution::Database::open(dir.path()).expect("the databases open");
    (db, dir)
}

#[test]
fn a_lasker_position_with_stones_in_hand_has_lasker_s_values() {
    let (db, dir) = small_lasker_databases("web-lasker");
    let (served, _) = morris::solution::Database::open(dir.path()).unwrap();
    // Two stones each on the board and one in hand: a placement or a
    // slide each turn.
    let fen = "W../.B./.../W...../.../.B./... w 1 1 0 5";
    let pos = morris::Position::from_fen(fen, morris::Rules::new(morris::Variant::Lasker)).unwrap();
    let server = serve(morris(), Some(served));
    let state = new_game(server.addr, r#"{"variant":"lasker","engine":"none"}"#);
    let path = format!("/api/setup?id={}", id(&state));
    let (status, set) = json(server.addr, "POST", &path, fen);
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["databasesHoldRules"], true, "{set}");
    let exact = &set["exact"];
    let outcome = db.value(&pos).unwrap().outcome_at(&pos);
    assert_eq!(exact["value"]["outcome"], outcome.to_string(), "{exact}");
    let moves = pos.legal_moves();
    assert!(moves.iter().any(|mv| mv.from.is_none()) && moves.iter().any(|mv| mv.from.is_some()));
    for mv in moves {
        let known = db.move_value(&pos, mv).with_rule.unwrap();
        let shown = &exact["moves"][mv.to_string()];
        assert_eq!(shown["outcome"], known.to_string(), "{mv}: {exact}");
    }
}

#[test]
fn database_values_follow_the_rules_chosen() {
    let (db, _dir) = small_databases("web-rules");
    let server = serve(morris(), Some(db));
    let set_up = |settings: &str| {
        let state = new_game(server.addr, settings);
        let path = format!("/api/setup?id={}", id(&state));
        let (status, set) = json(server.addr, "POST", &path, WIN_IN_FIVE);
        assert_eq!(status, 200, "{set}");
        set
    };
    // Ten moves each without a removal draw: the win whose next removal
    // comes 21 plies on is a draw, the win in five still a win.
    let ten = set_up(r#"{"engine":"none","nMoveRule":10}"#);
    assert_eq!(ten["settings"]["nMoveRule"], 10, "{ten}");
    assert_eq!(ten["databasesHoldRules"], true);
    let exact = &ten["exact"];
    assert_eq!(exact["value"]["outcome"], "win", "{exact}");
    assert_eq!(
        exact["moves"]["a7-b6"],
        json!({ "outcome": "draw", "distance": 21, "withoutRule": "win" })
    );
    // Without the rule no win is drawn.
    let none = set_up(r#"{"engine":"none","nMoveRule":0}"#);
    assert_eq!(none["exact"]["moves"]["a7-b6"]["outcome"], "win", "{none}");
    // The databases are of a game with flying: without it they know
    // nothing, and say so.
    let grounded = set_up(r#"{"engine":"none","nMoveRule":30,"flying":false}"#);
    assert_eq!(grounded["settings"]["flying"], false, "{grounded}");
    assert!(grounded["exact"].is_null(), "{grounded}");
    assert_eq!(grounded["databases"], true);
    assert_eq!(grounded["databasesHoldRules"], false);
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

#[test]
fn a_review_of_the_placing_judges_by_the_values_the_board_shows() {
    // Under the N-move rule (30 moves, the default), as the board and
    // training do: the placing phase's values leave the rule out, the
    // databases keeping no plies there.
    let (db, _dir) = small_databases_with_placing("review-placing");
    let server = serve(morris(), Some(db));
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none","movetime":10}"#);
    let (status, set) = act(
        addr,
        &state,
        "setup",
        "W../.../.../....../.../.../..B w 2 2 0 2",
    );
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["settings"]["nMoveRule"], 30, "{set}");
    let rank = |outcome: &Value| ["loss", "draw", "win"].iter().position(|o| outcome == o);
    let value = rank(&set["exact"]["value"]["outcome"]).expect("a value");
    let (worse, _) = set["exact"]["moves"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, v)| rank(&v["outcome"]) < Some(value))
        .expect("a placement that gives value away");
    act(addr, &state, "move", worse);
    let (status, reviewed) = act(addr, &state, "review", "");
    assert_eq!(status, 200, "{reviewed}");
    let review = &reviewed["review"];
    assert_eq!(review["toCome"], 0, "the databases judge it all: {review}");
    let mark = &review["marks"][0];
    assert_eq!(mark["move"], worse.as_str(), "{review}");
    assert_eq!(mark["exact"], true, "{review}");
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
fn the_engine_plays_from_the_servers_databases() {
    let (logger, log) = option_logger("server-databases");
    let (_, databases) = small_databases("web-engine-databases");
    let folder = common::TempDir::new("web-engine-databases-store");
    let dir = databases.path().display().to_string();
    let mut more = vec!["--db", &dir, "--engine", &logger.cmd];
    for arg in &logger.args {
        more.extend(["--engine-arg", arg]);
    }
    let server = WebProcess::start(&folder.path().join("players.sqlite"), &more);
    let state = new_game(server.addr, r#"{"engine":"black","movetime":10}"#);
    let (status, moved) = act(server.addr, &state, "move", "d6");
    assert_eq!(status, 200, "{moved}");
    wait_until(server.addr, &moved, |s| plies(s) == 2 && engine_idle(s));
    assert!(
        log.read()
            .lines()
            .any(|line| line == format!("setoption name EndgameDB value {dir}")),
        "{}",
        log.read()
    );
}

#[test]
fn the_full_board_rule_is_offered_where_the_last_placement_can_fill_the_board() {
    let server = serve(morris(), None);
    for (variant, fills) in [("nine", false), ("twelve", true), ("lasker", false)] {
        let settings = format!(r#"{{"variant":"{variant}","engine":"none"}}"#);
        let state = new_game(server.addr, &settings);
        assert_eq!(state["variant"], variant, "{state}");
        assert_eq!(state["canFillTheBoard"], fills, "{state}");
    }
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
    let state = new_game(addr, r#"{"engine":"none","level":0}"#);
    let (status, asked) = json(addr, "POST", &format!("/api/hint?id={}", id(&state)), "");
    assert_eq!(status, 200, "{asked}");
    let answered = wait_until(addr, &asked, |s| engine_idle(s) && !s["hint"].is_null());
    assert_eq!(answered["settings"]["level"], "0");
    let sent = log.read();
    let levels: Vec<&str> = sent
        .lines()
        .filter_map(|l| l.strip_prefix("setoption name Skill Level value "))
        .collect();
    assert_eq!(levels, ["20"], "{sent}");
}

/// An engine that thinks about the start position until stopped (it
/// then answers d6), and answers any other at once: b2, then b4. The
/// start's `position` line alone ends in `moves`, with no move after it.
fn stubborn_at_the_start() -> EngineConfig {
    script(
        "n=0; while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
         position*moves) start=1;; position*) start=0;; \
         go*) if [ $start = 1 ]; then echo 'info depth 1 score cp 0 pv d6'; \
              else n=$((n+1)); [ $n = 1 ] && echo 'bestmove b2' || echo 'bestmove b4'; fi;; \
         stop) echo 'bestmove d6';; esac; done",
    )
}

#[test]
fn a_move_made_while_a_hint_is_sought_stops_the_hint() {
    // The hint is sought for the start position, the reply is b2.
    let server = serve(stubborn_at_the_start(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"black","movetime":10000}"#);
    let (status, asked) = json(addr, "POST", &format!("/api/hint?id={}", id(&state)), "");
    assert_eq!(status, 200, "{asked}");
    let seeking = wait_until(addr, &asked, |s| s["engine"]["depth"] == 1);
    let (status, moved) = act(addr, &seeking, "move", "a1");
    assert_eq!(status, 200, "{moved}");
    // The reply comes without waiting for the hint's search to end, which
    // this engine would not do on its own.
    let replied = wait_until(addr, &moved, |s| plies(s) == 2 && engine_idle(s));
    assert_eq!(replied["history"][1]["move"]["text"], "b2", "{replied}");
    assert!(replied["engine"]["failure"].is_null(), "{replied}");
}

#[test]
fn a_move_made_during_a_review_stops_the_review() {
    // The review's first position is the start; the replies b2 and b4.
    let server = serve(stubborn_at_the_start(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"black","movetime":10000}"#);
    let (_, moved) = act(addr, &state, "move", "a1");
    let replied = wait_until(addr, &moved, |s| plies(s) == 2 && engine_idle(s));
    let (status, asked) = act(addr, &replied, "review", "");
    assert_eq!(status, 200, "{asked}");
    assert_eq!(asked["engine"]["thinking"], "review", "{asked}");
    let (status, moved) = act(addr, &asked, "move", "a4");
    assert_eq!(status, 200, "{moved}");
    // The engine replies without waiting for the review to end, which
    // this engine would not do on its own; the review keeps what it has
    // and waits for nothing more.
    let replied = wait_until(addr, &moved, |s| plies(s) == 4 && engine_idle(s));
    assert_eq!(replied["history"][3]["move"]["text"], "b4", "{replied}");
    assert!(replied["engine"]["failure"].is_null(), "{replied}");
    assert_eq!(replied["review"]["toCome"], 0, "{replied}");
}

#[test]
fn a_finished_game_is_reviewed_whole() {
    // The change that starts a review raised the cancel flag of the job it
    // had just sent, so an engine thread that took the job at once (free
    // the moment before, as after a search stopped by a resignation)
    // stopped it at once: each game below gives that race a chance.
    let thinks_a_while = "while read line; do case $line in uci) echo uciok;; \
                          isready) echo readyok;; \
                          go*) sleep 0.05; echo 'info depth 1 score cp 0 pv a1'; \
                          echo 'bestmove a1';; esac; done";
    let server = serve(script(thinks_a_while), None);
    let addr = server.addr;
    for _ in 0..20 {
        let state = new_game(addr, r#"{"engine":"black","movetime":1000}"#);
        let (status, moved) = act(addr, &state, "move", "d6");
        assert_eq!(status, 200, "{moved}");
        let (status, resigned) = act(addr, &state, "resign", "");
        assert_eq!(status, 200, "{resigned}");
        assert!(!resigned["outcome"].is_null(), "{resigned}");
        // Asked again as soon as the stopped search lets the engine go.
        let deadline = Instant::now() + Duration::from_secs(30);
        let asked = loop {
            let (status, asked) = act(addr, &resigned, "review", "");
            if status == 200 {
                break asked;
            }
            assert!(Instant::now() < deadline, "review refused: {asked}");
            std::thread::sleep(Duration::from_millis(1));
        };
        let reviewed = wait_until(addr, &asked, |s| {
            s["review"]["toCome"] == 0 && engine_idle(s)
        });
        let points = reviewed["review"]["points"].as_array().expect("points");
        assert_eq!(points.len(), 2, "{reviewed}");
        for point in points {
            assert!(point["white"].is_f64(), "every position judged: {reviewed}");
        }
    }
}

#[test]
fn the_panel_tells_the_score_in_words_and_no_line_the_engine_did_not_play() {
    // Reports a best line starting d6 for White, then plays a1, as a
    // weakened engine may (and g7 after its first move).
    let weakened = "n=0; while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
                    go*) n=$((n+1)); echo 'info depth 3 score cp 50 wdl 300 600 100 pv d6 f4'; \
                    if [ $n = 1 ]; then echo 'bestmove a1'; else echo 'bestmove g7'; fi;; esac; done";
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
    // Below full strength the score is a shallow search's: the panel
    // and the bar show none.
    let state = new_game(addr, r#"{"engine":"white","movetime":10,"level":"easy"}"#);
    let played = wait_until(addr, &state, |s| plies(s) == 1 && engine_idle(s));
    assert_eq!(played["engine"]["depth"], 3, "{played}");
    assert!(played["engine"]["score"].is_null(), "{played}");
    assert!(played["engine"]["whiteWdl"].is_null(), "{played}");
    assert_eq!(played["settings"]["weakened"], true);
    // Nor a hint's, though it is sought at full strength: the bar would
    // come with a hint and go with the next move.
    let (status, asked) = act(addr, &played, "hint", "");
    assert_eq!(status, 200, "{asked}");
    let hinted = wait_until(addr, &asked, |s| engine_idle(s) && !s["hint"].is_null());
    assert!(hinted["engine"]["score"].is_null(), "{hinted}");
    assert!(hinted["engine"]["whiteWdl"].is_null(), "{hinted}");
}

#[test]
fn a_record_saved_has_its_date_and_ending_and_opens_as_it_ended() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    act(addr, &state, "move", "a1");
    act(addr, &state, "resign", "");
    let (_, record) = request(addr, "GET", &format!("/api/record?id={}", id(&state)), "");
    let date = record
        .lines()
        .find_map(|l| l.strip_prefix("[Date \""))
        .unwrap_or_else(|| panic!("no Date: {record}"));
    assert!(
        date.len() == "2026.12.04\"]".len() && date.as_bytes()[4] == b'.',
        "{date}"
    );
    assert!(
        record.contains("[Termination \"white wins (black resigned)\"]"),
        "{record}"
    );
    // Opened again, the game is over as it was.
    let (status, opened) = act(addr, &state, "record", &record);
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["outcome"], "white wins (black resigned)");
    assert_eq!(opened["legal"].as_array().map(Vec::len), Some(0));
    // A record of another program's, its result without the board's
    // reason: as recorded.
    let other = "[Result \"0-1\"]\n\n1. a1 b2 0-1\n";
    let (status, opened) = act(addr, &state, "record", other);
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["outcome"], "black wins (as recorded)");
    assert_eq!(opened["winner"], "black");
    // A draw by the N-move rule is told by its number of moves, as the
    // help says it.
    let near = "WB./.W./.B./...W../B../.../... w 0 0 59 10";
    let (_, set) = act(addr, &state, "setup", near);
    let (status, drawn) = act(addr, &set, "move", "a7-g4");
    assert_eq!(status, 200, "{drawn}");
    assert_eq!(
        drawn["outcome"], "draw (30 moves each without a removal)",
        "{drawn}"
    );
}

#[test]
fn an_engine_playing_itself_is_given_a_pace_to_watch() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let started = Instant::now();
    let state = new_game(addr, r#"{"engine":"both","movetime":10,"level":"easy"}"#);
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

/// Posts `body` to `action` of the game of `state`; the answer.
fn act(addr: SocketAddr, state: &Value, action: &str, body: &str) -> (u16, Value) {
    json(
        addr,
        "POST",
        &format!("/api/{action}?id={}", id(state)),
        body,
    )
}

fn plies(state: &Value) -> usize {
    state["history"].as_array().map_or(0, Vec::len)
}

#[test]
fn named_levels_are_the_measured_strengths_on_the_uci_elo_scale() {
    let (logger, log) = option_logger("levels");
    let server = serve(logger, None);
    let addr = server.addr;
    let elo_of = |skill: u8| {
        morris::engine::ELO_OF_SKILL
            .iter()
            .find(|(level, _)| *level == skill)
            .map(|(_, elo)| elo.to_string())
            .unwrap()
    };
    let moved_at = |level: &str| {
        let settings = format!(r#"{{"engine":"white","movetime":10,"level":"{level}"}}"#);
        let state = new_game(addr, &settings);
        assert_eq!(state["settings"]["level"], level);
        wait_until(addr, &state, |s| plies(s) == 1 && engine_idle(s));
        let sent = log.read();
        let _ = std::fs::remove_file(&log.0);
        let value = |name: &str| {
            let prefix = format!("setoption name {name} value ");
            sent.lines()
                .filter_map(|l| l.strip_prefix(&prefix))
                .next_back()
                .map(str::to_owned)
        };
        (
            value("UCI_LimitStrength"),
            value("UCI_Elo"),
            value("Skill Level"),
        )
    };
    let (limit, elo, _) = moved_at("easy");
    assert_eq!((limit.as_deref(), elo), (Some("true"), Some(elo_of(0))));
    let (limit, elo, _) = moved_at("hard");
    assert_eq!((limit.as_deref(), elo), (Some("true"), Some(elo_of(10))));
    let (limit, _, skill) = moved_at("7");
    assert_eq!(
        (limit.as_deref(), skill.as_deref()),
        (Some("false"), Some("7"))
    );
    let (limit, _, skill) = moved_at("full");
    assert_eq!(
        (limit.as_deref(), skill.as_deref()),
        (Some("false"), Some("20"))
    );
    let (status, refused) = json(addr, "POST", "/api/game", r#"{"level":"grandmaster"}"#);
    assert_eq!(status, 400, "{refused}");
}

#[test]
fn moves_taken_back_are_played_again_until_another_is_made() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"black","movetime":10}"#);
    let (status, _) = act(addr, &state, "move", "a1");
    assert_eq!(status, 200);
    let replied = wait_until(addr, &state, |s| plies(s) == 2 && engine_idle(s));
    let reply = replied["history"][1]["move"]["text"].clone();
    // Undo takes back the engine's reply and the move before it.
    let (status, undone) = act(addr, &state, "undo", "");
    assert_eq!(
        (status, plies(&undone), undone["canRedo"].clone()),
        (200, 0, Value::Bool(true))
    );
    // Redo plays both again, the same moves, and the engine waits.
    let (status, redone) = act(addr, &state, "redo", "");
    assert_eq!((status, plies(&redone)), (200, 2), "{redone}");
    assert_eq!(redone["history"][1]["move"]["text"], reply);
    assert_eq!(redone["canRedo"], false);
    let (status, _) = act(addr, &state, "redo", "");
    assert_eq!(status, 400, "nothing left to play again");
    // Another move after an undo ends what could be played again.
    act(addr, &state, "undo", "");
    let (status, other) = act(addr, &state, "move", "d6");
    assert_eq!(
        (status, other["canRedo"].clone()),
        (200, Value::Bool(false)),
        "{other}"
    );
}

#[test]
fn a_resignation_or_an_agreed_draw_ends_the_game() {
    let server = serve(morris(), None);
    let addr = server.addr;
    // Two people at one board: the side to move resigns.
    let state = new_game(addr, r#"{"engine":"none"}"#);
    act(addr, &state, "move", "a1");
    let (status, resigned) = act(addr, &state, "resign", "");
    assert_eq!(status, 200, "{resigned}");
    assert_eq!(resigned["outcome"], "white wins (black resigned)");
    assert_eq!(resigned["winner"], "white");
    assert_eq!(resigned["legal"].as_array().map(Vec::len), Some(0));
    let (_, record) = request(addr, "GET", &format!("/api/record?id={}", id(&state)), "");
    assert!(record.contains("[Result \"1-0\"]"), "{record}");
    let (status, _) = act(addr, &state, "move", "b2");
    assert_eq!(status, 400, "no move after the game");
    // A draw offered stands until answered or a move is made.
    act(addr, &state, "new", "");
    let (_, offered) = act(addr, &state, "draw", "offer");
    assert_eq!(offered["drawOffer"], "white");
    let (_, moved) = act(addr, &state, "move", "a1");
    assert!(moved["drawOffer"].is_null(), "{moved}");
    act(addr, &state, "draw", "offer");
    let (_, declined) = act(addr, &state, "draw", "decline");
    assert!(declined["drawOffer"].is_null() && declined["outcome"].is_null());
    act(addr, &state, "draw", "offer");
    let (_, agreed) = act(addr, &state, "draw", "accept");
    assert_eq!(agreed["outcome"], "draw (agreed)");
    assert!(agreed["winner"].is_null());
    // Past the opening, the engine weighs a draw offered on the person's
    // move by a search of it: it takes one only where it stands worse.
    // Its scores are White's, the person's: a win for White, White ahead
    // by a stone and a half, an even game, a loss for White.
    for (score, taken) in [
        ("cp 300", true),
        ("mate 2", true),
        ("cp 150", true),
        ("cp 0", false),
        ("cp -300", false),
        ("mate -2", false),
    ] {
        let judge = format!(
            "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
             go*) echo 'info depth 4 score {score} pv d6'; echo 'bestmove d6';; esac; done"
        );
        let server = serve(script(&judge), None);
        let state = new_game(server.addr, r#"{"engine":"black","movetime":10}"#);
        // Ten stones placed, White (the person) to move.
        let (status, state) = act(
            server.addr,
            &state,
            "setup",
            "W../.../.../BBB.../.B./.../... w 4 4 0 6",
        );
        assert_eq!(status, 200, "{state}");
        // Weighed by a search (this engine answers at once, maybe before
        // the reply to the offer is written).
        let (status, weighing) = act(server.addr, &state, "draw", "offer");
        assert_eq!(status, 200, "{weighing}");
        let answer = wait_until(server.addr, &weighing, |s| {
            engine_idle(s) && (!s["outcome"].is_null() || !s["drawDeclined"].is_null())
        });
        assert_eq!(answer["engine"]["depth"], 4, "searched: {answer}");
        if taken {
            assert_eq!(answer["outcome"], "draw (agreed)", "{score}: {answer}");
        } else {
            // Declined: the game goes on, and the page says so until the
            // next move.
            assert!(answer["outcome"].is_null(), "{score}: {answer}");
            assert_eq!(answer["drawDeclined"], "white", "{score}: {answer}");
            let mv = answer["legal"][0]["text"].as_str().expect("a move");
            let (status, moved) = act(server.addr, &state, "move", mv);
            assert_eq!(status, 200, "{moved}");
            assert!(moved["drawDeclined"].is_null(), "{moved}");
        }
    }
}

#[test]
fn the_engine_declines_every_draw_offered_in_the_opening() {
    // After 1. d6 and any reply, weak or sound, at any level: nothing is
    // decided yet. (It took these draws, rating its chances of winning
    // after the weak replies at 1-2%.)
    let server = serve(morris(), None);
    let addr = server.addr;
    for level in ["easy", "full"] {
        for reply in ["g4", "d7", "a1", "c4"] {
            let state = new_game(addr, r#"{"engine":"none","movetime":300}"#);
            act(addr, &state, "move", "d6");
            act(addr, &state, "move", reply);
            let settings = format!(r#"{{"engine":"black","level":"{level}","movetime":300}}"#);
            let (status, playing) = act(addr, &state, "settings", &settings);
            assert_eq!(status, 200, "{playing}");
            let (status, offered) = act(addr, &playing, "draw", "offer");
            assert_eq!(status, 200, "{offered}");
            let answer = wait_until(addr, &offered, |s| {
                engine_idle(s) && (!s["outcome"].is_null() || !s["drawDeclined"].is_null())
            });
            assert!(answer["outcome"].is_null(), "{level} {reply}: {answer}");
            assert_eq!(answer["drawDeclined"], "white", "{level} {reply}: {answer}");
            // The page says why.
            assert_eq!(answer["inTheOpening"], true, "{answer}");
        }
    }
}

#[test]
fn the_engine_takes_a_draw_only_where_its_search_says_it_stands_worse() {
    // A real search at the level's strength, past the opening: Black, the
    // engine, a clear win ahead declines; a clear loss ahead, it takes the
    // draw.
    // (Near an even game the answer turns on the depth the search
    // reaches, so the positions are far from it.)
    let server = serve(morris(), None);
    let addr = server.addr;
    for (position, taken) in [
        ("W../.../.../BBB.../.B./.../... w 4 4 0 6", false),
        ("B../.../.../WWW.../.W./.../... w 4 4 0 6", true),
    ] {
        let state = new_game(addr, r#"{"engine":"black","level":"easy","movetime":300}"#);
        let (status, set) = act(addr, &state, "setup", position);
        assert_eq!(status, 200, "{set}");
        let (status, weighing) = act(addr, &set, "draw", "offer");
        assert_eq!(status, 200, "{weighing}");
        let answer = wait_until(addr, &weighing, engine_idle);
        if taken {
            assert_eq!(answer["outcome"], "draw (agreed)", "{answer}");
        } else {
            assert!(answer["outcome"].is_null(), "{answer}");
            assert_eq!(answer["drawDeclined"], "white", "{answer}");
            assert_eq!(answer["inTheOpening"], false, "{answer}");
        }
    }
    // While the engine thinks (here over the start, until stopped), an
    // offer waits for the person's move.
    let stubborn = serve(stubborn_at_the_start(), None);
    let thinking = new_game(stubborn.addr, r#"{"engine":"white","movetime":10000}"#);
    assert_eq!(thinking["engine"]["thinking"], "move", "{thinking}");
    let (status, refused) = act(stubborn.addr, &thinking, "draw", "offer");
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("on your move")),
        "{refused}"
    );
    // With the databases the value decides at once: White (the person)
    // wins here, lost for the engine, which takes the draw.
    let (db, _dir) = small_databases("web-draw-offer");
    let server = serve(morris(), Some(db));
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let game = id(&state);
    let (_, set) = json(addr, "POST", &format!("/api/setup?id={game}"), WIN_IN_FIVE);
    let (_, playing) = act(addr, &set, "settings", r#"{"engine":"black"}"#);
    let (status, taken) = act(addr, &playing, "draw", "offer");
    assert_eq!(status, 200, "{taken}");
    assert_eq!(taken["outcome"], "draw (agreed)", "{taken}");
    // After a7-b6 White still wins, Black (now the person) is lost: the
    // engine, White, declines; after a7-g4 the game is drawn: it takes it.
    for (mv, taken) in [("a7-b6", false), ("a7-g4", true)] {
        // The engine set to play nobody first, so that it starts no
        // search of the position set up.
        act(addr, &state, "settings", r#"{"engine":"none"}"#);
        let (_, set) = act(addr, &state, "setup", WIN_IN_FIVE);
        let (_, moved) = act(addr, &set, "move", mv);
        let (_, playing) = act(addr, &moved, "settings", r#"{"engine":"white"}"#);
        let (status, answer) = act(addr, &playing, "draw", "offer");
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["engine"]["thinking"], Value::Null, "{mv}: {answer}");
        if taken {
            assert_eq!(answer["outcome"], "draw (agreed)", "{mv}: {answer}");
        } else {
            assert_eq!(answer["drawDeclined"], "black", "{mv}: {answer}");
        }
    }
}

#[test]
fn a_side_whose_clock_runs_out_loses() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(
        addr,
        r#"{"engine":"none","clock":{"kind":"game","seconds":0.5}}"#,
    );
    assert_eq!(state["clock"]["running"], "white");
    let flagged = wait_until(addr, &state, |s| !s["outcome"].is_null());
    assert_eq!(flagged["outcome"], "black wins (white ran out of time)");
    assert!(flagged["clock"]["running"].is_null());
    assert_eq!(flagged["clock"]["left"]["white"], 0);
    let (status, _) = act(addr, &state, "move", "a1");
    assert_eq!(status, 400, "no move after the flag");
    // A minute a turn: each turn begins with the whole minute.
    let (_, timed) = act(
        addr,
        &state,
        "new",
        r#"{"clock":{"kind":"turn","seconds":60}}"#,
    );
    assert!(timed["outcome"].is_null(), "{timed}");
    let (_, moved) = act(addr, &state, "move", "a1");
    assert_eq!(moved["clock"]["running"], "black");
    assert!(
        moved["clock"]["left"]["black"].as_u64().unwrap() > 59_000,
        "{moved}"
    );
    // The clock is the game's: changing it needs a new game.
    let (status, _) = act(addr, &state, "settings", r#"{"clock":null}"#);
    assert_eq!(status, 400);
}

#[test]
fn a_game_is_resumed_from_its_moves_and_its_clock() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let resume = r#"{"engine":"none","moves":["a1","b2","a4"],
        "clock":{"kind":"game","seconds":300},"clockLeft":{"white":250000,"black":800}}"#;
    let (status, resumed) = act(addr, &state, "new", resume);
    assert_eq!(status, 200, "{resumed}");
    assert_eq!(plies(&resumed), 3);
    assert_eq!(resumed["clock"]["left"]["white"], 250_000);
    // Black, to move, had less than a second left.
    let flagged = wait_until(addr, &resumed, |s| !s["outcome"].is_null());
    assert_eq!(flagged["outcome"], "white wins (black ran out of time)");
    // A record that does not replay is refused, and the game is kept.
    let (status, refused) = act(addr, &state, "new", r#"{"moves":["a1","a1"]}"#);
    assert_eq!(status, 400, "{refused}");
    let (_, kept) = json(
        addr,
        "GET",
        &format!("/api/state?id={}&after=0", id(&state)),
        "",
    );
    assert_eq!(plies(&kept), 3);
    // A minute a move: the turn resumed goes on from its time left.
    let resume = r#"{"engine":"none","moves":["a1"],
        "clock":{"kind":"turn","seconds":60},"clockLeft":{"white":60000,"black":4000}}"#;
    let (_, resumed) = act(addr, &state, "new", resume);
    assert_eq!(resumed["clock"]["running"], "black");
    let left = resumed["clock"]["left"]["black"].as_u64().unwrap();
    assert!(left <= 4000, "{left}");
}

#[test]
fn a_finished_game_or_the_engines_move_alone_is_not_taken_back() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"white","movetime":10}"#);
    let opened = wait_until(addr, &state, |s| plies(s) == 1 && engine_idle(s));
    assert_eq!(opened["canUndo"], false, "{opened}");
    let (status, refused) = act(addr, &state, "undo", "");
    assert_eq!(status, 400, "{refused}");
    let opening = opened["history"][0]["move"]["text"].as_str().unwrap();
    let reply = if opening == "a1" { "g7" } else { "a1" };
    act(addr, &state, "move", reply);
    let replied = wait_until(addr, &state, |s| plies(s) == 3 && engine_idle(s));
    assert_eq!(replied["canUndo"], true, "{replied}");
    // Resigned: the game is over, and stays so.
    let (_, resigned) = act(addr, &state, "resign", "");
    assert_eq!(resigned["canUndo"], false, "{resigned}");
    let (status, refused) = act(addr, &state, "undo", "");
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().contains("over"),
        "{refused}"
    );
}

/// A seat in a room: its game and its token.
struct Seat {
    game: String,
    token: String,
}

impl Seat {
    fn of(answer: &Value) -> Seat {
        Seat {
            game: id(answer),
            token: answer["room"]["seat"].as_str().expect("a seat").to_owned(),
        }
    }

    fn act(&self, addr: SocketAddr, action: &str, body: &str) -> (u16, Value) {
        let path = format!("/api/{action}?id={}&seat={}", self.game, self.token);
        json(addr, "POST", &path, body)
    }

    fn state_status(&self, addr: SocketAddr) -> u16 {
        let path = format!("/api/state?id={}&seat={}&after=0", self.game, self.token);
        json(addr, "GET", &path, "").0
    }

    fn state(&self, addr: SocketAddr) -> Value {
        let path = format!("/api/state?id={}&seat={}&after=0", self.game, self.token);
        let (status, state) = json(addr, "GET", &path, "");
        assert_eq!(status, 200, "{state}");
        state
    }
}

#[test]
fn a_friend_whose_page_goes_is_away_at_once_until_it_asks_again() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let (_, created) = json(addr, "POST", "/api/room", r#"{"color":"white"}"#);
    let code = created["room"]["code"].as_str().unwrap().to_owned();
    let white = Seat::of(&created);
    let (_, joined) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}"}}"#),
    );
    let black = Seat::of(&joined);
    assert_eq!(white.state(addr)["room"]["opponent"], "here");
    // Black's page waits for news when it goes, and says so as it goes.
    let waiting = {
        let version = black.state(addr)["version"].clone();
        let path = format!(
            "/api/state?id={}&seat={}&after={version}",
            black.game, black.token
        );
        std::thread::spawn(move || request(addr, "GET", &path, ""))
    };
    std::thread::sleep(Duration::from_millis(200));
    let (status, _) = black.act(addr, "away", "");
    assert_eq!(status, 200);
    // The wait asked before the page went is no sign of it.
    let (status, _) = waiting.join().expect("the wait");
    assert_eq!(status, 200);
    assert_eq!(white.state(addr)["room"]["opponent"], "away");
    // Back: it asks again.
    black.state(addr);
    assert_eq!(white.state(addr)["room"]["opponent"], "here");
}

#[test]
fn an_address_that_tries_many_room_codes_in_vain_waits() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let (_, created) = json(addr, "POST", "/api/room", "");
    let code = created["room"]["code"].as_str().unwrap().to_owned();
    for _ in 0..10 {
        let (status, _) = json(addr, "POST", "/api/join", r#"{"code":"QQQQQQ"}"#);
        assert_eq!(status, 404);
    }
    let (status, refused) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}"}}"#),
    );
    assert_eq!(status, 429, "{refused}");
    assert_eq!(refused["error"], "too many room codes tried: wait a minute");
    // Its games go on meanwhile.
    new_game(addr, r#"{"engine":"none"}"#);
}

#[test]
fn two_browsers_play_one_game_in_a_room() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let (status, created) = json(
        addr,
        "POST",
        "/api/room",
        r#"{"color":"white","variant":"nine"}"#,
    );
    assert_eq!(status, 200, "{created}");
    let code = created["room"]["code"].as_str().unwrap().to_owned();
    assert_eq!(
        (
            created["room"]["you"].clone(),
            created["room"]["opponent"].clone()
        ),
        ("white".into(), "waiting".into())
    );
    let white = Seat::of(&created);
    // The code, as a person may type it, lets the second browser in.
    let typed = format!("{}-{}", &code[..3], &code[3..].to_lowercase());
    let (status, joined) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{typed}"}}"#),
    );
    assert_eq!(status, 200, "{joined}");
    assert_eq!(joined["room"]["you"], "black");
    assert_eq!(joined["settings"]["engine"], "none");
    let black = Seat::of(&joined);
    assert_eq!(black.game, white.game);
    assert_eq!(white.state(addr)["room"]["opponent"], "here");
    // A third browser, a wrong code, and no seat at all are refused.
    let (status, _) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}"}}"#),
    );
    assert_eq!(status, 409, "the room is full");
    let (status, _) = json(addr, "POST", "/api/join", r#"{"code":"ZZZZZZ"}"#);
    assert_eq!(status, 404);
    let (status, _) = json(addr, "GET", &format!("/api/state?id={}", white.game), "");
    assert_eq!(status, 403, "the game's id alone is no way in");
    // Each moves its own side only, and sees the other's move.
    let (status, _) = black.act(addr, "move", "a1");
    assert_eq!(status, 400, "white's turn");
    let (status, _) = white.act(addr, "move", "a1");
    assert_eq!(status, 200);
    let seen = black.state(addr);
    assert_eq!(seen["history"][0]["move"]["text"], "a1");
    let (status, _) = white.act(addr, "move", "b2");
    assert_eq!(status, 400, "black's turn");
    let (status, _) = black.act(addr, "move", "b2");
    assert_eq!(status, 200);
    // No taking back, hints or set-ups in a game between two people.
    for action in ["undo", "hint", "setup", "settings"] {
        let (status, _) = white.act(addr, action, "");
        assert_eq!(status, 403, "{action}");
    }
    // Back after a reload, with the seat's token: the same side.
    let (status, back) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}","seat":"{}"}}"#, white.token),
    );
    assert_eq!(status, 200, "{back}");
    assert_eq!(
        (
            back["room"]["you"].clone(),
            back["history"].as_array().map(Vec::len)
        ),
        ("white".into(), Some(2))
    );
    // A draw offered is answered by the other side only.
    white.act(addr, "draw", "offer");
    let (status, _) = white.act(addr, "draw", "accept");
    assert_eq!(status, 400, "one's own offer");
    let (status, _) = black.act(addr, "draw", "decline");
    assert_eq!(status, 200);
    assert_eq!(white.state(addr)["drawDeclined"], "white");
    // Black resigns; the next game has the sides changed.
    let (status, _) = white.act(addr, "new", "");
    assert_eq!(status, 400, "the game goes on");
    let (_, resigned) = black.act(addr, "resign", "");
    assert_eq!(resigned["outcome"], "white wins (black resigned)");
    // Black waits for news while White starts the next game: the answer
    // has Black's new side.
    let waiting = {
        let path = format!(
            "/api/state?id={}&seat={}&after={}",
            black.game, black.token, resigned["version"]
        );
        std::thread::spawn(move || json(addr, "GET", &path, "").1)
    };
    std::thread::sleep(Duration::from_millis(200));
    let (status, next) = white.act(addr, "new", "");
    assert_eq!(status, 200, "{next}");
    assert_eq!(
        (
            next["room"]["you"].clone(),
            next["history"].as_array().map(Vec::len)
        ),
        ("black".into(), Some(0))
    );
    let heard = waiting.join().expect("the long poll answers");
    assert_eq!(heard["room"]["you"], "white", "{heard}");
    assert_eq!(black.state(addr)["room"]["you"], "white");
}

#[test]
fn a_room_waits_for_its_second_player_and_a_seat_left_is_free_again() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let (_, created) = json(
        addr,
        "POST",
        "/api/room",
        r#"{"color":"white","clock":{"kind":"turn","seconds":60}}"#,
    );
    let code = created["room"]["code"].as_str().unwrap().to_owned();
    let white = Seat::of(&created);
    // Alone: no clock running, no move.
    assert!(created["clock"]["running"].is_null(), "{created}");
    let (status, refused) = white.act(addr, "move", "a1");
    assert_eq!(status, 400, "{refused}");
    let join = |body: String| json(addr, "POST", "/api/join", &body);
    let (_, joined) = join(format!(r#"{{"code":"{code}"}}"#));
    let black = Seat::of(&joined);
    assert_eq!(joined["clock"]["running"], "white", "{joined}");
    white.act(addr, "move", "a1");
    black.act(addr, "move", "b2");
    // Black leaves in the middle of the game: it is lost, and White waits
    // for whoever comes with the code.
    let (status, _) = black.act(addr, "leave", "");
    assert_eq!(status, 200);
    let seen = white.state(addr);
    assert_eq!(seen["outcome"], "white wins (black left the game)");
    assert_eq!(seen["room"]["opponent"], "waiting");
    assert_eq!(black.state_status(addr), 403, "the seat left is no way in");
    // Whoever takes the free seat, the old token being no seat now, is
    // given the next game, not the one lost before it sat down.
    let (status, again) = join(format!(r#"{{"code":"{code}","seat":"{}"}}"#, black.token));
    assert_eq!(
        (status, again["room"]["you"].clone()),
        (200, "black".into())
    );
    assert_eq!(
        (
            again["outcome"].clone(),
            again["history"].as_array().map(Vec::len),
            again["clock"]["running"].clone()
        ),
        (Value::Null, Some(0), "white".into()),
        "{again}"
    );
    // Leaving before the first move loses nothing, and leaves nothing
    // behind for whoever sits down next: a draw offered is gone with it.
    let (status, offered) = white.act(addr, "draw", "offer");
    assert_eq!(
        (status, offered["drawOffer"].clone()),
        (200, "white".into())
    );
    Seat::of(&again).act(addr, "leave", "");
    let seen = white.state(addr);
    assert_eq!(
        (seen["outcome"].clone(), seen["room"]["opponent"].clone()),
        (Value::Null, "waiting".into()),
        "{seen}"
    );
    let (_, again) = join(format!(r#"{{"code":"{code}"}}"#));
    assert!(again["drawOffer"].is_null(), "{again}");
    let black = Seat::of(&again);
    // Both gone: the room is closed and its code leads nowhere.
    black.act(addr, "leave", "");
    white.act(addr, "leave", "");
    let (status, _) = join(format!(r#"{{"code":"{code}"}}"#));
    assert_eq!(status, 404);
    assert_eq!(server.handle.open_games(), 0);
}

#[test]
fn games_rooms_and_requests_are_bounded_and_nothing_is_left_behind() {
    let mut config = WebConfig::new(morris(), None);
    config.max_games = 3;
    config.abandoned_after = Duration::from_millis(500);
    let server = serve_with(config);
    let addr = server.addr;
    let first = new_game(addr, r#"{"engine":"none"}"#);
    let (_, room) = json(addr, "POST", "/api/room", "");
    let code = room["room"]["code"].as_str().unwrap().to_owned();
    json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}"}}"#),
    );
    new_game(addr, r#"{"engine":"black"}"#);
    assert_eq!(server.handle.open_games(), 3);
    let (status, full) = json(addr, "POST", "/api/room", "");
    assert_eq!(status, 503, "{full}");
    // A page gone says so: its game closes at once, and makes room.
    let gone = id(&first);
    let (status, _) = act(addr, &first, "close", "");
    assert_eq!(status, 200);
    assert_eq!(server.handle.open_games(), 2, "{gone}");
    let (status, _) = json(addr, "GET", &format!("/api/state?id={gone}"), "");
    assert_eq!(status, 404);
    new_game(addr, r#"{"engine":"none"}"#);
    let (status, _) = json(addr, "POST", "/api/game", "");
    assert_eq!(status, 503);
    // A body past the limit is refused whole, not cut.
    let huge = "a".repeat((1 << 20) + 1);
    let (status, _) = request(addr, "POST", "/api/join", &huge);
    assert_eq!(status, 413);
    // Browsers gone: every game is closed, its engine and its room code
    // with it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.handle.open_games() > 0 {
        assert!(
            Instant::now() < deadline,
            "{} games still open",
            server.handle.open_games()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, _) = json(
        addr,
        "POST",
        "/api/join",
        &format!(r#"{{"code":"{code}"}}"#),
    );
    assert_eq!(status, 404);
    new_game(addr, "");
}

#[test]
fn a_full_server_gives_the_place_of_a_game_no_page_shows_to_a_new_one() {
    let mut config = WebConfig::new(morris(), None);
    config.max_games = 2;
    config.idle_after = Duration::from_secs(2);
    let server = serve_with(config);
    let addr = server.addr;
    let watched = new_game(addr, r#"{"engine":"none"}"#);
    let left = new_game(addr, r#"{"engine":"none"}"#);
    // A page waits for news of the first all along; the second's is gone.
    let watcher = {
        let path = format!(
            "/api/state?id={}&after={}",
            id(&watched),
            watched["version"]
        );
        std::thread::spawn(move || request(addr, "GET", &path, ""))
    };
    std::thread::sleep(Duration::from_millis(2500));
    let (status, third) = json(addr, "POST", "/api/game", r#"{"engine":"none"}"#);
    assert_eq!(status, 200, "{third}");
    assert_eq!(server.handle.open_games(), 2);
    let (status, _) = json(addr, "GET", &format!("/api/state?id={}", id(&left)), "");
    assert_eq!(status, 404, "the game no page showed is closed");
    let (status, _) = act(addr, &watched, "move", "a1");
    assert_eq!(status, 200, "the game shown is kept");
    let (status, _) = watcher.join().expect("the page's wait");
    assert_eq!(status, 200);
    // Every game seen just now: a newcomer is refused, and told why.
    let (status, refused) = json(addr, "POST", "/api/game", "");
    assert_eq!(status, 503, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("as many games")),
        "{refused}"
    );
}

#[test]
fn a_review_marks_the_move_that_threw_a_win_away_with_the_best_move() {
    let (db, _dir) = small_databases_with_placing("review");
    let server = serve(morris(), Some(db));
    let addr = server.addr;
    let state = new_game(addr, r#"{"engine":"none"}"#);
    let (_, set) = act(addr, &state, "setup", WIN_IN_FIVE);
    // The winning moves now, and one that draws: a7-g4.
    let winning: Vec<String> = set["exact"]["moves"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| v["outcome"] == "win" && v["distance"] == 5)
        .map(|(m, _)| m.clone())
        .collect();
    assert_eq!(set["exact"]["moves"]["a7-g4"]["outcome"], "draw", "{set}");
    act(addr, &state, "move", "a7-g4");
    let (status, reviewed) = act(addr, &state, "review", "");
    assert_eq!(status, 200, "{reviewed}");
    let review = &reviewed["review"];
    assert_eq!(review["toCome"], 0, "the databases judge it all: {review}");
    assert_eq!(review["points"][0], json!({ "white": 1.0, "exact": true }));
    assert_eq!(review["points"][1], json!({ "white": 0.5, "exact": true }));
    let mark = &review["marks"][0];
    assert_eq!(
        review["marks"].as_array().map(Vec::len),
        Some(1),
        "{review}"
    );
    assert_eq!(
        (
            mark["ply"].clone(),
            mark["move"].clone(),
            mark["exact"].clone()
        ),
        (1.into(), "a7-g4".into(), true.into())
    );
    assert_eq!(mark["words"], "a win thrown away: a draw now");
    let best = mark["best"].as_str().unwrap().to_owned();
    assert!(winning.contains(&best), "{best} among {winning:?}");
    // Where the databases do not reach, the engine judges, and says so.
    let fresh = new_game(addr, r#"{"engine":"none","movetime":10}"#);
    act(addr, &fresh, "move", "d6");
    act(addr, &fresh, "move", "f4");
    let (status, asked) = act(addr, &fresh, "review", "");
    assert_eq!(status, 200, "{asked}");
    let judged = wait_until(addr, &asked, |s| {
        s["review"]["toCome"] == 0 && engine_idle(s)
    });
    let points = judged["review"]["points"].as_array().unwrap().clone();
    assert_eq!(judged["review"]["databases"], false);
    assert_eq!(reviewed["review"]["databases"], true);
    assert_eq!(points.len(), 3);
    for point in &points {
        assert_eq!(point["exact"], false, "{point}");
        let white = point["white"].as_f64().expect("judged");
        assert!((0.0..=1.0).contains(&white), "{point}");
    }
    // A move taken back ends the review of the line it was in.
    let (_, moved) = act(addr, &fresh, "undo", "");
    assert!(moved["review"].is_null(), "{moved}");
}

#[test]
fn the_rules_chosen_are_the_games_its_engines_and_its_records() {
    let (logger, log) = option_logger("chosen-rules");
    let server = serve(logger, None);
    let addr = server.addr;
    let state = new_game(
        addr,
        r#"{"engine":"none","nMoveRule":10,"flying":false,"clock":{"kind":"game","seconds":60,"increment":2}}"#,
    );
    let settings = &state["settings"];
    assert_eq!(settings["nMoveRule"], 10, "{state}");
    assert_eq!(settings["flying"], false, "{state}");
    assert_eq!(settings["clock"]["increment"], 2000, "{state}");
    // A side of three stones slides: no move leaves the lines.
    let (status, three) = act(addr, &state, "setup", WIN_IN_FIVE);
    assert_eq!(status, 200, "{three}");
    let lines: Vec<(String, String)> = three["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l[0].to_string(), l[1].to_string()))
        .collect();
    let legal = three["legal"].as_array().unwrap();
    assert!(!legal.is_empty());
    for mv in legal {
        let (from, to) = (mv["from"].to_string(), mv["to"].to_string());
        let along = lines.contains(&(from.clone(), to.clone())) || lines.contains(&(to, from));
        assert!(along, "{mv} flies");
    }
    // Nineteen plies without a removal: the twentieth draws.
    let nineteen = WIN_IN_FIVE.replace(" 0 0 0 10", " 0 0 19 10");
    let (status, late) = act(addr, &state, "setup", &nineteen);
    assert_eq!(status, 200, "{late}");
    let quiet = late["legal"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["remove"].is_null())
        .expect("a move without a removal");
    let (status, drawn) = act(addr, &state, "move", quiet["text"].as_str().unwrap());
    assert_eq!(status, 200, "{drawn}");
    assert_eq!(
        drawn["outcome"], "draw (10 moves each without a removal)",
        "{drawn}"
    );
    // A game clock gives its increment back after the move.
    let left = drawn["clock"]["left"]["white"].as_u64().unwrap();
    assert!(left > 60_000, "{drawn}");
    // The rules are the game's: another needs a new game.
    let (status, refused) = act(addr, &state, "settings", r#"{"nMoveRule":20}"#);
    assert_eq!(
        (status, &refused["error"]),
        (400, &json!("new rules need a new game"))
    );
    // The record carries the rules, and opens under them.
    let (_, record) = request(addr, "GET", &format!("/api/record?id={}", id(&state)), "");
    assert!(record.contains("[Flying \"false\"]"), "{record}");
    assert!(record.contains("[NMoveRule \"10\"]"), "{record}");
    let other = new_game(addr, r#"{"engine":"none"}"#);
    assert_eq!(other["settings"]["nMoveRule"], 30, "{other}");
    let (status, opened) = act(addr, &other, "record", &record);
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["settings"]["nMoveRule"], 10, "{opened}");
    assert_eq!(opened["settings"]["flying"], false, "{opened}");
    assert_eq!(opened["outcome"], drawn["outcome"], "{opened}");
    // The engine is told the game's rules.
    let (status, fresh) = act(addr, &state, "new", "");
    assert_eq!(status, 200, "{fresh}");
    let (status, asked) = act(addr, &fresh, "hint", "");
    assert_eq!(status, 200, "{asked}");
    wait_until(addr, &asked, |s| engine_idle(s) && !s["hint"].is_null());
    let sent = log.read();
    assert!(sent.contains("setoption name Flying value false"), "{sent}");
    assert!(sent.contains("setoption name NMoveRule value 10"), "{sent}");
}

#[test]
fn in_training_a_game_over_is_taken_back() {
    let server = serve(morris(), None);
    let addr = server.addr;
    // White flies a4-g7, closes a7-d7-g7, and Black is down to two.
    let mill = "WW./.../.../W...../.../.../BBB w 0 0 0 10";
    let end_by_the_mill = |settings: &str| {
        let state = new_game(addr, settings);
        let (status, set) = act(addr, &state, "setup", mill);
        assert_eq!(status, 200, "{set}");
        let win = set["legal"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["to"] == "g7" && !m["remove"].is_null())
            .expect("the mill");
        let (status, over) = act(addr, &state, "move", win["text"].as_str().unwrap());
        assert_eq!(status, 200, "{over}");
        assert_eq!(over["winner"], "white", "{over}");
        over
    };
    let counted = end_by_the_mill(r#"{"engine":"none"}"#);
    assert_eq!(counted["canUndo"], false, "{counted}");
    let (status, refused) = act(addr, &counted, "undo", "");
    assert_eq!(status, 400, "{refused}");
    let trained = end_by_the_mill(r#"{"engine":"none","training":true}"#);
    assert_eq!(trained["settings"]["training"], true, "{trained}");
    assert_eq!(trained["canUndo"], true, "{trained}");
    let (status, back) = act(addr, &trained, "undo", "");
    assert_eq!(status, 200, "{back}");
    assert_eq!(plies(&back), 0, "{back}");
    assert!(back["outcome"].is_null(), "{back}");
}

#[test]
fn the_puzzles_are_served_with_their_answers() {
    let server = serve(morris(), None);
    let (status, puzzles) = json(server.addr, "GET", "/api/puzzles", "");
    assert_eq!(status, 200, "{puzzles}");
    let puzzles = puzzles.as_array().expect("a list");
    assert!(!puzzles.is_empty());
    for puzzle in puzzles {
        let goal = puzzle["goal"].as_str();
        assert!(goal == Some("win") || goal == Some("draw"), "{puzzle}");
        assert!(puzzle["depth"].as_u64().is_some_and(|d| d >= 1), "{puzzle}");
    }
    // The page sets one up as any position, under its N-move rule.
    let puzzle = &puzzles[0];
    let settings = format!(r#"{{"engine":"none","nMoveRule":{}}}"#, puzzle["nMoveRule"]);
    let state = new_game(server.addr, &settings);
    let (status, set) = act(
        server.addr,
        &state,
        "setup",
        puzzle["fen"].as_str().unwrap(),
    );
    assert_eq!(status, 200, "{set}");
    let legal = set["legal"].as_array().unwrap();
    assert!(legal.len() >= 2, "{puzzle}");
    assert!(
        legal.iter().any(|m| m["text"] == puzzle["solution"]),
        "{puzzle}"
    );
}

/// A server whose players are kept in the file `file`.
fn serve_keeping(file: &std::path::Path) -> common::Running {
    let store = morris_tools::web::store::Store::open(file).expect("a store");
    serve_with(WebConfig {
        store: Some(store),
        ..WebConfig::new(morris(), None)
    })
}

#[test]
fn a_player_is_made_with_a_secret_that_finds_it_again_after_a_restart() {
    let folder = common::TempDir::new("web-players");
    let file = folder.path().join("players.sqlite");
    let server = serve_keeping(&file);
    let addr = server.addr;
    let (status, ann) = json(addr, "POST", "/api/players", r#"{"name":" ann "}"#);
    assert_eq!(status, 200, "{ann}");
    assert_eq!(
        (&ann["name"], &ann["rating"], &ann["games"]),
        (&json!("ann"), &json!(1500.0), &json!(0))
    );
    let token = ann["token"].as_str().expect("the token, once").to_owned();
    assert_eq!(token.len(), 32);
    for (body, refusal) in [
        (r#"{"name":"ANN"}"#, "the name 'ANN' is taken"),
        (
            r#"{"name":"Morris-Hard"}"#,
            "'Morris-Hard' is the engine's name",
        ),
        (r#"{"name":"easy"}"#, "'easy' is the engine's name"),
        (r#"{"name":"a"}"#, "a name has 3 to 20 characters"),
        (r#"{}"#, "a name has 3 to 20 characters"),
    ] {
        let (status, refused) = json(addr, "POST", "/api/players", body);
        assert_eq!(
            (status, &refused["error"]),
            (400, &json!(refusal)),
            "{body}"
        );
    }
    let (status, me) = json(addr, "GET", &format!("/api/me?token={token}"), "");
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["name"], "ann");
    assert!(me.get("token").is_none(), "{me}");
    // The page sends it in a header, where no log of addresses keeps it.
    let answer = {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("a connection");
        let asked = format!(
            "GET /api/me HTTP/1.1\r\nHost: morris\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(asked.as_bytes()).expect("sent");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("an answer");
        answer
    };
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.contains(r#""name":"ann""#),
        "{answer}"
    );
    let (status, _) = json(
        addr,
        "GET",
        &format!("/api/me?token={}", "0".repeat(32)),
        "",
    );
    assert_eq!(status, 401);
    let (status, _) = json(addr, "POST", "/api/players", r#"{"name":"bob"}"#);
    assert_eq!(status, 200);
    let (_, table) = json(addr, "GET", "/api/table", "");
    let names: Vec<&str> = table
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    // The engine's levels stand in the table, the strongest first; a
    // player who has played no rated game does not yet.
    assert_eq!(
        names,
        ["morris-full", "morris-hard", "morris-medium", "morris-easy"]
    );
    assert!(
        table
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["provisional"] == false)
    );
    // Another run of the server knows the player by the same secret.
    drop(server);
    let again = serve_keeping(&file);
    let (status, me) = json(again.addr, "GET", &format!("/api/me?token={token}"), "");
    assert_eq!((status, &me["name"]), (200, &json!("ann")), "{me}");
}

#[test]
fn a_lost_token_is_replaced_by_the_players_password_kept_as_a_hash_alone() {
    let folder = common::TempDir::new("web-recover");
    // A process of its own, to read what it prints.
    let mut server = WebProcess::start(&folder.path().join("players.sqlite"), &[]);
    let addr = server.addr;
    let ann = player(addr, "ann");
    let me = |token: &str| json(addr, "GET", &format!("/api/me?token={token}"), "");
    assert_eq!(me(&ann).1["hasPassword"], false);
    let password = "correct horse battery";
    let set = |token: &str, password: &str| {
        json(
            addr,
            "POST",
            "/api/password",
            &by(token, json!({ "password": password })),
        )
    };
    let (status, short) = set(&ann, "horse");
    assert_eq!(
        (status, &short["error"]),
        (400, &json!("a password has 8 to 200 characters"))
    );
    assert_eq!(set(&"0".repeat(32), password).0, 401);
    assert_eq!(set(&ann, password).0, 200);
    assert_eq!(me(&ann).1["hasPassword"], true);
    let recover = |name: &str, password: &str| {
        let body = json!({ "name": name, "password": password }).to_string();
        json(addr, "POST", "/api/recover", &body)
    };
    // Fields left empty are refused as such, and are no guess: Ann's
    // account is not locked by them.
    for (name, password) in [("ann", ""), ("", password), (" ", "")].repeat(2) {
        let (status, empty) = recover(name, password);
        assert_eq!(
            (status, &empty["error"]),
            (400, &json!("give the name and the password"))
        );
    }
    let (status, wrong) = recover("ann", "correct horse");
    assert_eq!(
        (status, &wrong["error"]),
        (401, &json!("the name or the password is wrong"))
    );
    assert_eq!(
        recover("nobody", password).0,
        401,
        "the same words for a name nobody has"
    );
    // The token thrown away: the password makes a new one, and the old
    // one is nobody's.
    let (status, back) = recover("ann", password);
    assert_eq!(status, 200, "{back}");
    let token = back["token"].as_str().unwrap();
    assert_ne!(token, ann);
    assert_eq!(me(token).1["name"], "ann");
    assert_eq!(me(&ann).0, 401);
    // Guesses are counted: after five, the right password waits too.
    for _ in 0..5 {
        assert_eq!(recover("ann", "a guess at it").0, 401);
    }
    let (status, refused) = recover("ann", password);
    assert_eq!(status, 429, "{refused}");
    // Neither the store nor what the server printed holds the password.
    server.kill();
    let printed = server.printed();
    assert!(!printed.contains(password), "{printed}");
    for file in std::fs::read_dir(folder.path()).unwrap() {
        let bytes = std::fs::read(file.unwrap().path()).unwrap();
        assert!(
            !bytes
                .windows(password.len())
                .any(|w| w == password.as_bytes())
        );
    }
}

#[test]
fn an_address_makes_only_so_many_players_and_a_server_without_a_store_says_so() {
    let folder = common::TempDir::new("web-players-bound");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    for n in 0..5 {
        let (status, made) = json(
            server.addr,
            "POST",
            "/api/players",
            &format!(r#"{{"name":"player{n}"}}"#),
        );
        assert_eq!(status, 200, "{made}");
    }
    let (status, refused) = json(server.addr, "POST", "/api/players", r#"{"name":"player5"}"#);
    assert_eq!(status, 429, "{refused}");
    // A refused name is nobody's.
    let (status, _) = json(server.addr, "GET", "/api/history?name=player5", "");
    assert_eq!(status, 404);
    let without = serve(morris(), None);
    for (method, path) in [
        ("POST", "/api/players"),
        ("GET", "/api/table"),
        ("GET", "/api/me?token=x"),
    ] {
        let (status, refused) = json(without.addr, method, path, r#"{"name":"ann"}"#);
        assert_eq!(status, 503, "{path}: {refused}");
    }
}

#[test]
fn the_players_an_address_made_are_counted_across_a_restart() {
    let folder = common::TempDir::new("web-players-restart");
    let file = folder.path().join("players.sqlite");
    let mut first = WebProcess::start(&file, &[]);
    for n in 0..5 {
        player(first.addr, &format!("player{n}"));
    }
    first.kill();
    let second = WebProcess::start(&file, &[]);
    let (status, refused) = json(second.addr, "POST", "/api/players", r#"{"name":"player5"}"#);
    assert_eq!(status, 429, "{refused}");
}

/// A player made on the server at `addr`: its secret token.
fn player(addr: SocketAddr, name: &str) -> String {
    let (status, made) = json(
        addr,
        "POST",
        "/api/players",
        &json!({ "name": name }).to_string(),
    );
    assert_eq!(status, 200, "{made}");
    made["token"].as_str().expect("a token").to_owned()
}

/// The lobby as the player of `token` sees it, once newer than `after`.
fn lobby(addr: SocketAddr, token: &str, after: u64) -> Value {
    let (status, lobby) = json(
        addr,
        "GET",
        &format!("/api/lobby?token={token}&after={after}"),
        "",
    );
    assert_eq!(status, 200, "{lobby}");
    lobby
}

/// The body of a request by the player of `token`, with `fields`.
fn by(token: &str, fields: Value) -> String {
    let mut body = fields;
    body["token"] = json!(token);
    body.to_string()
}

/// A turn clock of `seconds`, as a challenge asks for it.
fn turn_clock(seconds: f64) -> Value {
    json!({ "kind": "turn", "seconds": seconds })
}

/// A rated game between two players, `white` challenging under `clock`
/// and `black` taking the challenge: White's seat and Black's.
fn rated_room(addr: SocketAddr, white: &str, black: &str, clock: Value) -> (Seat, Seat) {
    let asked = by(white, json!({ "color": "white", "clock": clock }));
    let (status, posted) = json(addr, "POST", "/api/challenge", &asked);
    assert_eq!(status, 200, "{posted}");
    let (_, challenger) = json(addr, "GET", &format!("/api/me?token={white}"), "");
    let seen = lobby(addr, black, 0);
    let open = seen["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["mine"] == false && c["name"] == challenger["name"])
        .expect("the challenge, seen by the other")
        .clone();
    assert_eq!(open["side"], "white");
    let taken = by(black, json!({ "challenge": open["id"] }));
    let (status, state) = json(addr, "POST", "/api/accept", &taken);
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["room"]["you"], "black");
    let black_seat = Seat::of(&state);
    let game = lobby(addr, white, 0)["game"].clone();
    let white_seat = Seat {
        game: game["id"].as_str().expect("white's game").to_owned(),
        token: game["seat"].as_str().expect("white's seat").to_owned(),
    };
    assert_eq!(white_seat.game, black_seat.game);
    (white_seat, black_seat)
}

/// Plays the first legal move `plies` times, each by the seat to move.
fn play_plies(addr: SocketAddr, (white, black): (&Seat, &Seat), plies: usize) {
    for _ in 0..plies {
        let state = white.state(addr);
        assert!(state["outcome"].is_null(), "over too soon: {state}");
        let mv = state["legal"][0]["text"]
            .as_str()
            .expect("a move")
            .to_owned();
        let seat = if state["turn"] == "white" {
            white
        } else {
            black
        };
        let (status, after) = seat.act(addr, "move", &mv);
        assert_eq!(status, 200, "{after}");
    }
}

/// The player named `name`'s row of the table.
fn standing(addr: SocketAddr, name: &str) -> Value {
    let (_, table) = json(addr, "GET", "/api/table", "");
    table
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {table}"))
        .clone()
}

/// The games of the player named `name`, the latest first.
fn history(addr: SocketAddr, name: &str) -> Vec<Value> {
    let (status, games) = json(addr, "GET", &format!("/api/history?name={name}"), "");
    assert_eq!(status, 200, "{games}");
    games.as_array().unwrap().clone()
}

#[test]
fn a_rated_game_to_its_end_moves_both_ratings_by_glicko_2() {
    use morris_tools::rating::{Game, Rating};
    let folder = common::TempDir::new("web-rated");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    let state = white.state(addr);
    assert_eq!(state["rated"]["white"]["name"], "ann");
    assert_eq!(state["rated"]["black"]["rating"], 1500.0);
    assert!(
        !state["clock"]["running"].is_null(),
        "both sit down at once"
    );
    // The challenge is no longer open; nor may either player open another.
    assert_eq!(lobby(addr, &bob, 0)["challenges"], json!([]));
    let again = by(&ann, json!({ "clock": turn_clock(60.0) }));
    assert_eq!(json(addr, "POST", "/api/challenge", &again).0, 409);
    // A challenge taken or withdrawn is named.
    for action in ["/api/accept", "/api/withdraw"] {
        let (status, answer) = json(addr, "POST", action, &by(&bob, json!({})));
        assert_eq!(status, 400, "{action}");
        assert!(
            answer["error"]
                .as_str()
                .is_some_and(|e| e.contains("challenge")),
            "{answer}"
        );
    }
    // No help, no taking back, no other game.
    for action in ["hint", "undo", "new", "setup", "review"] {
        assert_eq!(white.act(addr, action, "").0, 403, "{action}");
    }
    play_plies(addr, (&white, &black), 20);
    let (status, over) = black.act(addr, "resign", "");
    assert_eq!(status, 200, "{over}");
    assert_eq!(over["outcome"], "white wins (black resigned)");
    let newcomer = Rating::default();
    let after = |score| {
        newcomer.after(&[Game {
            opponent: newcomer,
            score,
        }])
    };
    // The game's players see their new ratings on its board.
    assert_eq!(over["rated"]["moved"], true);
    assert_eq!(over["rated"]["white"]["after"], json!(after(1.0).rating));
    assert_eq!(over["rated"]["black"]["rating"], 1500.0);
    let (ann_now, bob_now) = (standing(addr, "ann"), standing(addr, "bob"));
    assert_eq!(ann_now["rating"], json!(after(1.0).rating));
    assert_eq!(ann_now["deviation"], json!(after(1.0).deviation));
    assert_eq!(bob_now["rating"], json!(after(0.0).rating));
    assert_eq!(
        (&ann_now["games"], &bob_now["games"]),
        (&json!(1), &json!(1))
    );
    let games = history(addr, "bob");
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(
        (&game["white"], &game["result"], &game["rated"]),
        (&json!("ann"), &json!("1-0"), &json!(true))
    );
    assert_eq!(game["termination"], "white wins (black resigned)");
    assert_eq!(game["blackRating"], json!([1500.0, after(0.0).rating]));
    let record = game["record"].as_str().unwrap();
    assert!(
        record.contains("[White \"ann\"]") && record.contains("[Black \"bob\"]"),
        "{record}"
    );
    // Over: neither player has a game in progress, and both may play again.
    assert!(lobby(addr, &ann, 0)["game"].is_null());
    assert_eq!(
        lobby(addr, &ann, 0)["me"]["rating"],
        json!(after(1.0).rating)
    );
    assert_eq!(json(addr, "POST", "/api/challenge", &again).0, 200);
    // A challenge for players rated near the challenger: Bob is too far
    // below Ann now.
    let near = by(&ann, json!({ "clock": turn_clock(60.0), "range": 200 }));
    assert_eq!(json(addr, "POST", "/api/challenge", &near).0, 200);
    let seen = lobby(addr, &bob, 0);
    let near = &seen["challenges"][1];
    assert_eq!(
        (&near["range"], &near["openToMe"]),
        (&json!(200.0), &json!(false))
    );
    assert_eq!(seen["challenges"][0]["openToMe"], true);
    let taken = by(&bob, json!({ "challenge": near["id"] }));
    let (status, refused) = json(addr, "POST", "/api/accept", &taken);
    assert_eq!(status, 409);
    let words = format!(
        "ann asks for a rating within 200 of {:.0}",
        after(1.0).rating
    );
    assert_eq!(refused["error"], json!(words));
}

/// The challenge in `lobby` made by the player named `name`.
fn challenge_by(lobby: &Value, name: &str) -> Option<Value> {
    let challenges = lobby["challenges"].as_array().unwrap();
    challenges.iter().find(|c| c["name"] == name).cloned()
}

/// Waits until the game of the player of `token` is over and kept: the
/// lobby no longer has it.
fn wait_until_kept(addr: SocketAddr, token: &str) {
    let mut seen = lobby(addr, token, 0);
    while !seen["game"].is_null() {
        seen = lobby(addr, token, seen["version"].as_u64().unwrap());
    }
}

/// A correspondence game between `white`, who challenges with the clock
/// `clock` (days a move), and `black`, who takes it: White's seat and
/// Black's, White's found in its list of correspondence games.
fn correspondence_game(addr: SocketAddr, white: &str, black: &str, clock: Value) -> (Seat, Seat) {
    let asked = by(white, json!({ "color": "white", "clock": clock }));
    let (status, posted) = json(addr, "POST", "/api/challenge", &asked);
    assert_eq!(status, 200, "{posted}");
    let (_, challenger) = json(addr, "GET", &format!("/api/me?token={white}"), "");
    let open = challenge_by(&lobby(addr, black, 0), challenger["name"].as_str().unwrap())
        .expect("the challenge, seen by the other");
    let (status, state) = json(
        addr,
        "POST",
        "/api/accept",
        &by(black, json!({ "challenge": open["id"] })),
    );
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["clock"]["correspondence"], true);
    let black_seat = Seat::of(&state);
    let white_seat = correspondence_seat(addr, white, &black_seat.game);
    (white_seat, black_seat)
}

/// The seat of the player of `token` in its correspondence game `game`,
/// from its list in the lobby.
fn correspondence_seat(addr: SocketAddr, token: &str, game: &str) -> Seat {
    let listed = lobby(addr, token, 0)["correspondence"].clone();
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == game)
        .unwrap_or_else(|| panic!("game {game} in {listed}"))
        .clone();
    Seat {
        game: game.to_owned(),
        token: entry["seat"].as_str().expect("a seat").to_owned(),
    }
}

/// Sets the calendar of the store `file` back by `hours`, as if they had
/// gone by since its games in progress last moved: a fake time for a
/// server started again.
fn days_gone_by(file: &Path, hours: u64) {
    let db = rusqlite::Connection::open(file).unwrap();
    let ms = hours * 3_600_000;
    let moved = db
        .execute("UPDATE live SET left_at = left_at - ?1", [ms as i64])
        .unwrap();
    assert!(moved > 0, "games in progress with their times kept");
}

/// A correspondence game (days a move) engages nobody: both its players
/// play a game at a sitting beside it, and each has it in the lobby's list
/// with whose move it is. Left with the server down a day (the store's
/// calendar set back), it is taken up with a day less on the clock of the
/// side to move; one whose day ran out meanwhile is lost on time at once.
#[test]
fn a_correspondence_game_is_resumed_the_next_day_with_its_clock_run_by_the_calendar() {
    const DAY: f64 = 86_400.0;
    let folder = common::TempDir::new("web-correspondence");
    let file = folder.path().join("players.sqlite");
    let mut first = WebProcess::start(&file, &[]);
    let addr = first.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = correspondence_game(addr, &ann, &bob, turn_clock(3.0 * DAY));
    play_plies(addr, (&white, &black), 3);
    let listed = lobby(addr, &bob, 0)["correspondence"].clone();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed[0]["you"], "black");
    assert_eq!(listed[0]["turn"], "black");
    assert_eq!(listed[0]["opponent"], "ann");
    // Neither is engaged by it: a game at a sitting goes on beside it.
    assert!(lobby(addr, &ann, 0)["game"].is_null());
    let (sitting, _) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    assert_eq!(sitting.act(addr, "resign", "").0, 200);
    wait_until_kept(addr, &ann);
    // The engine's levels play at a sitting only.
    let level = by(
        &ann,
        json!({ "clock": turn_clock(DAY), "opponent": "easy" }),
    );
    assert_eq!(json(addr, "POST", "/api/challenge", &level).0, 400);
    // A second game, of a day a move: Ann, Black, to move.
    let (white_2, black_2) = correspondence_game(addr, &bob, &ann, turn_clock(DAY));
    play_plies(addr, (&white_2, &black_2), 1);
    let before = black.state(addr);
    first.kill();
    days_gone_by(&file, 25);
    let mut second = WebProcess::start(&file, &[]);
    let addr = second.addr;
    // The first game is back, a day and an hour less for Bob, to move.
    let black = correspondence_seat(addr, &bob, &black.game);
    let resumed = black.state(addr);
    assert_eq!(resumed["history"], before["history"]);
    let left = resumed["clock"]["left"]["black"].as_f64().unwrap() / 1000.0;
    let expected = 2.0 * DAY - 3600.0;
    assert!(
        left <= expected && left > expected - 60.0,
        "{left} s left, {expected} s expected"
    );
    assert_eq!(resumed["clock"]["running"], "black");
    // The second is lost by Ann, whose day ran out while the server was
    // down.
    let mut kept = history(addr, "ann");
    for _ in 0..50 {
        if kept.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        kept = history(addr, "ann");
    }
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0]["termination"], "white wins (black ran out of time)");
    let listed = lobby(addr, &ann, 0)["correspondence"].clone();
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    // Played on from where it stood.
    let white = correspondence_seat(addr, &ann, &white.game);
    play_plies(addr, (&white, &black), 1);
    assert_eq!(black.state(addr)["turn"], "white");
    second.kill();
}

/// A request that may find the server gone: `None` then.
fn try_json(addr: SocketAddr, method: &str, path: &str, body: &str) -> Option<(u16, Value)> {
    let (status, text) = try_request(addr, method, path, body).ok()?;
    Some((status, serde_json::from_str(&text).ok()?))
}

/// The first legal move played by the seat to move, its answer an
/// acknowledged ply; `None` if the server is gone or the move refused.
fn try_ply(addr: SocketAddr, (white, black): (&Seat, &Seat)) -> Option<()> {
    let at = |seat: &Seat, what: &str| format!("/api/{what}?id={}&seat={}", seat.game, seat.token);
    let (_, state) = try_json(addr, "GET", &(at(white, "state") + "&after=0"), "")?;
    let mv = state["legal"][0]["text"].as_str()?.to_owned();
    let seat = if state["turn"] == "white" {
        white
    } else {
        black
    };
    let (status, _) = try_json(addr, "POST", &at(seat, "move"), &mv)?;
    (status == 200).then_some(())
}

/// Rated games at a sitting between the players of `white` (who
/// challenges, named `white_name`) and `black`, each of 22 plies and
/// resigned, one after another, `kept` counting those the store has,
/// until the server is gone.
fn try_games(
    addr: SocketAddr,
    (white, white_name): (&str, &str),
    black: &str,
    kept: &AtomicUsize,
) -> Option<()> {
    let lobby_of = |token: &str| format!("/api/lobby?token={token}&after=0");
    loop {
        let asked = by(
            white,
            json!({ "color": "white", "clock": turn_clock(60.0) }),
        );
        let (200, _) = try_json(addr, "POST", "/api/challenge", &asked)? else {
            return None;
        };
        let (_, seen) = try_json(addr, "GET", &lobby_of(black), "")?;
        let open = challenge_by(&seen, white_name)?;
        let taken = by(black, json!({ "challenge": open["id"] }));
        let (200, state) = try_json(addr, "POST", "/api/accept", &taken)? else {
            return None;
        };
        let black_seat = Seat::of(&state);
        let (_, seen) = try_json(addr, "GET", &lobby_of(white), "")?;
        let white_seat = Seat {
            game: seen["game"]["id"].as_str()?.to_owned(),
            token: seen["game"]["seat"].as_str()?.to_owned(),
        };
        for _ in 0..22 {
            try_ply(addr, (&white_seat, &black_seat))?;
        }
        let resign = format!(
            "/api/resign?id={}&seat={}",
            black_seat.game, black_seat.token
        );
        let (200, _) = try_json(addr, "POST", &resign, "")? else {
            return None;
        };
        // Kept once the lobby no longer has it.
        while !try_json(addr, "GET", &lobby_of(white), "")?.1["game"].is_null() {
            std::thread::sleep(Duration::from_millis(5));
        }
        kept.fetch_add(1, Ordering::SeqCst);
    }
}

/// The server killed while its players write to the store at once
/// (passwords set, recovery tries counted, a correspondence game's moves
/// and times, rated games and their ratings kept): the file is whole, and
/// every write answered before the kill is in it when the server is
/// started again (one answered by none, under way at the kill, may be
/// there or not).
#[test]
fn the_store_keeps_every_write_answered_when_the_server_is_killed_in_the_middle_of_them() {
    let folder = common::TempDir::new("web-killed-writing");
    let file = folder.path().join("players.sqlite");
    let mut first = WebProcess::start(&file, &[]);
    let addr = first.addr;
    let names = ["ann", "bob", "carl", "dan"];
    let tokens: Vec<String> = names.iter().map(|name| player(addr, name)).collect();
    let dora = player(addr, "dora");
    assert_eq!(set_password(addr, &dora, "dora's own password"), Some(200));
    let (white, black) = correspondence_game(addr, &tokens[0], &tokens[1], turn_clock(86_400.0));
    let password = |write: usize| format!("the password of write {write}");
    let (passwords, plies, games, guesses) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    // The last password answered of each player, by its write's number.
    let answered = std::thread::scope(|scope| {
        let set = scope.spawn(|| {
            let mut last = [None; 4];
            for write in 0.. {
                let who = write % names.len();
                if set_password(addr, &tokens[who], &password(write)) != Some(200) {
                    break;
                }
                last[who] = Some(write);
                passwords.fetch_add(1, Ordering::SeqCst);
            }
            last
        });
        scope.spawn(|| {
            while plies.load(Ordering::SeqCst) < 40 && try_ply(addr, (&white, &black)).is_some() {
                plies.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(25));
            }
        });
        scope.spawn(|| try_games(addr, (&tokens[2], "carl"), &tokens[3], &games));
        scope.spawn(|| {
            let guess = json!({ "name": "dora", "password": "a guess at it" }).to_string();
            while let Some((401, _)) = try_json(addr, "POST", "/api/recover", &guess) {
                guesses.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let began = Instant::now();
        while passwords.load(Ordering::SeqCst) < 3
            || plies.load(Ordering::SeqCst) < 5
            || games.load(Ordering::SeqCst) < 1
            || guesses.load(Ordering::SeqCst) < 5
        {
            let counts = [&passwords, &plies, &games, &guesses].map(|n| n.load(Ordering::SeqCst));
            assert!(
                began.elapsed() < Duration::from_secs(60),
                "writes answered: {counts:?}"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        first.kill();
        set.join().unwrap()
    });
    let db = rusqlite::Connection::open(&file).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(db);
    let mut second = WebProcess::start(&file, &[]);
    let addr = second.addr;
    // The correspondence game, with every move answered.
    let (plies, games) = (plies.into_inner(), games.into_inner());
    let moved = correspondence_seat(addr, &tokens[1], &black.game).state(addr)["history"]
        .as_array()
        .unwrap()
        .len();
    assert!(
        moved == plies || moved == plies + 1,
        "{moved} plies kept, {plies} answered"
    );
    // The rated games, each with its ratings.
    let kept = history(addr, "carl").len();
    assert!(
        kept == games || kept == games + 1,
        "{kept} games kept, {games} answered"
    );
    let (_, profile) = json(addr, "GET", "/api/profile?name=dan", "");
    let ratings = profile["ratings"].as_array().unwrap();
    assert_eq!((ratings.len(), &profile["games"]), (kept, &json!(kept)));
    assert_eq!(ratings[kept - 1]["rating"], standing(addr, "dan")["rating"]);
    // Each player's last password answered, or the one under way after it.
    for (who, last) in answered.into_iter().enumerate() {
        let Some(write) = last else { continue };
        let recovered = [write, write + names.len()].into_iter().any(|write| {
            let body = json!({ "name": names[who], "password": password(write) });
            json(addr, "POST", "/api/recover", &body.to_string()).0 == 200
        });
        assert!(recovered, "{}'s password of write {write}", names[who]);
    }
    // Dora's five guesses, made among the other writes, lock her account
    // still.
    let right = json!({ "name": "dora", "password": "dora's own password" }).to_string();
    assert_eq!(json(addr, "POST", "/api/recover", &right).0, 429);
    second.kill();
}

/// Sets the password of the player of `token`: the answer's status, or
/// `None` if the server is gone.
fn set_password(addr: SocketAddr, token: &str, password: &str) -> Option<u16> {
    let body = by(token, json!({ "password": password }));
    Some(try_json(addr, "POST", "/api/password", &body)?.0)
}

/// Correspondence games wait days for their players and hold no engine:
/// however many there are, they take none of the server's places for
/// games open at once.
#[test]
fn correspondence_games_take_no_place_of_the_games_open_at_once() {
    let folder = common::TempDir::new("web-correspondence-places");
    let store = morris_tools::web::store::Store::open(&folder.path().join("players.sqlite"))
        .expect("a store");
    let server = serve_with(WebConfig {
        store: Some(store),
        max_games: 2,
        ..WebConfig::new(morris(), None)
    });
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    for _ in 0..3 {
        correspondence_game(addr, &ann, &bob, turn_clock(86_400.0));
    }
    assert_eq!(server.handle.open_games(), 3);
    new_game(addr, r#"{"engine":"none"}"#);
    new_game(addr, r#"{"engine":"none"}"#);
    assert_eq!(server.handle.open_games(), 5);
}

#[test]
fn a_challenge_to_a_player_named_is_seen_taken_and_declined_by_that_player_alone() {
    let folder = common::TempDir::new("web-named-challenge");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob, cat) = (
        player(addr, "ann"),
        player(addr, "bob"),
        player(addr, "cat"),
    );
    let to = |name: &str| {
        by(
            &ann,
            json!({ "clock": turn_clock(60.0), "opponent": name, "color": "white" }),
        )
    };
    // A name nobody has, and a player not in the lobby, are refused by
    // name.
    let (status, unknown) = json(addr, "POST", "/api/challenge", &to("nobody"));
    assert_eq!(status, 404);
    assert_eq!(unknown["error"], "no player or level is named 'nobody'");
    let (status, away) = json(addr, "POST", "/api/challenge", &to("bob"));
    assert_eq!(status, 409);
    assert_eq!(away["error"], "bob is not in the lobby");
    for token in [&bob, &cat] {
        lobby(addr, token, 0);
    }
    let (status, own) = json(addr, "POST", "/api/challenge", &to("ann"));
    assert_eq!(
        (status, &own["error"]),
        (409, &json!("a challenge is for another player"))
    );
    let ranged = by(
        &ann,
        json!({ "clock": turn_clock(60.0), "opponent": "bob", "range": 100 }),
    );
    assert_eq!(json(addr, "POST", "/api/challenge", &ranged).0, 400);
    // Bob, waiting for news of the lobby, hears of it: his to take, named
    // as his; Cat sees nothing of it.
    let waiting = lobby(addr, &bob, 0)["version"].as_u64().unwrap();
    let hearing = std::thread::spawn(move || {
        let bob = bob;
        (lobby(addr, &bob, waiting), bob)
    });
    assert_eq!(json(addr, "POST", "/api/challenge", &to("BOB")).0, 200);
    let (heard, bob) = hearing.join().unwrap();
    assert!(heard["version"].as_u64().unwrap() > waiting);
    let offered = challenge_by(&heard, "ann").expect("ann's challenge, seen by bob");
    assert_eq!(
        (&offered["to"], &offered["openToMe"], &offered["side"]),
        (&json!("bob"), &json!(true), &json!("white"))
    );
    assert_eq!(lobby(addr, &cat, 0)["challenges"], json!([]));
    assert_eq!(
        challenge_by(&lobby(addr, &ann, 0), "ann").unwrap()["mine"],
        true
    );
    let (status, again) = json(addr, "POST", "/api/challenge", &to("bob"));
    assert_eq!(
        (status, &again["error"]),
        (
            409,
            &json!("you have challenged bob already: withdraw that first")
        )
    );
    // Not Cat's to take or decline.
    let answer = |token: &str| by(token, json!({ "challenge": offered["id"] }));
    let (status, not_hers) = json(addr, "POST", "/api/accept", &answer(&cat));
    assert_eq!(
        (status, &not_hers["error"]),
        (409, &json!("the challenge is for bob"))
    );
    assert_eq!(json(addr, "POST", "/api/decline", &answer(&cat)).0, 404);
    // Bob declines: it is gone, and Ann told who declined it.
    assert_eq!(json(addr, "POST", "/api/decline", &answer(&bob)).0, 200);
    assert_eq!(json(addr, "POST", "/api/decline", &answer(&bob)).0, 404);
    let told = lobby(addr, &ann, 0);
    assert_eq!(told["challenges"], json!([]));
    assert_eq!(
        told["declined"],
        json!([{ "id": offered["id"], "name": "bob" }])
    );
    // Asked again, he takes it: the game begins, Ann White as she asked.
    assert_eq!(json(addr, "POST", "/api/challenge", &to("bob")).0, 200);
    let offered = challenge_by(&lobby(addr, &bob, 0), "ann").unwrap();
    let (status, state) = json(
        addr,
        "POST",
        "/api/accept",
        &by(&bob, json!({ "challenge": offered["id"] })),
    );
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        (&state["rated"]["white"]["name"], &state["room"]["you"]),
        (&json!("ann"), &json!("black"))
    );
    // Both are seen playing, and a player playing is not challenged.
    let present = lobby(addr, &cat, 0)["present"].clone();
    let playing: Vec<(&Value, &Value)> = present
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (&p["name"], &p["playing"]))
        .collect();
    assert_eq!(
        playing,
        [
            (&json!("ann"), &json!(true)),
            (&json!("bob"), &json!(true)),
            (&json!("cat"), &json!(false))
        ]
    );
    let busy = by(
        &cat,
        json!({ "clock": turn_clock(60.0), "opponent": "ann" }),
    );
    let (status, refused) = json(addr, "POST", "/api/challenge", &busy);
    assert_eq!(
        (status, &refused["error"]),
        (409, &json!("ann is playing a rated game"))
    );
}

#[test]
fn a_rematch_is_offered_from_a_game_over_and_taken_with_the_colours_swapped() {
    let folder = common::TempDir::new("web-rematch");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob, cat) = (
        player(addr, "ann"),
        player(addr, "bob"),
        player(addr, "cat"),
    );
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    let rematch = |token: &str| by(token, json!({ "game": white.game }));
    let (status, early) = json(addr, "POST", "/api/rematch", &rematch(&ann));
    assert_eq!(status, 409, "not over yet: {early}");
    play_plies(addr, (&white, &black), 2);
    assert_eq!(black.act(addr, "resign", "").0, 200);
    wait_until_kept(addr, &ann);
    wait_until_kept(addr, &bob);
    assert_eq!(
        json(addr, "POST", "/api/rematch", &rematch(&cat)).0,
        403,
        "not cat's game"
    );
    // Ann offers it: Bob sees it as the rematch of their game, Ann to play
    // Black; his asking for it too takes hers.
    let (status, offered) = json(addr, "POST", "/api/rematch", &rematch(&ann));
    assert_eq!(status, 200, "{offered}");
    let seen = challenge_by(&lobby(addr, &bob, 0), "ann").expect("the rematch, seen by bob");
    assert_eq!(
        (&seen["rematchOf"], &seen["side"], &seen["to"]),
        (&json!(white.game), &json!("black"), &json!("bob"))
    );
    let (status, state) = json(addr, "POST", "/api/rematch", &rematch(&bob));
    assert_eq!(status, 200, "{state}");
    assert_ne!(id(&state), white.game);
    assert_eq!(
        (
            &state["rated"]["white"]["name"],
            &state["rated"]["black"]["name"],
            &state["room"]["you"]
        ),
        (&json!("bob"), &json!("ann"), &json!("white"))
    );
    assert_eq!(lobby(addr, &ann, 0)["game"]["id"], json!(id(&state)));
    // Against a level, the rematch begins at once.
    let level = by(
        &cat,
        json!({ "clock": turn_clock(60.0), "opponent": "easy", "color": "white" }),
    );
    let (status, first) = json(addr, "POST", "/api/challenge", &level);
    assert_eq!(status, 200, "{first}");
    let (status, _) = json(addr, "POST", &format!("/api/resign?id={}", id(&first)), "");
    assert_eq!(status, 200);
    wait_until_kept(addr, &cat);
    let (status, second) = json(
        addr,
        "POST",
        "/api/rematch",
        &by(&cat, json!({ "game": id(&first) })),
    );
    assert_eq!(status, 200, "{second}");
    assert_eq!(
        (
            &second["rated"]["white"]["name"],
            &second["rated"]["black"]["name"]
        ),
        (&json!("morris-easy"), &json!("cat"))
    );
}

#[test]
fn a_players_profile_has_its_ratings_results_and_latest_games() {
    let folder = common::TempDir::new("web-profile");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    play_plies(addr, (&white, &black), 20);
    assert_eq!(black.act(addr, "resign", "").0, 200);
    wait_until_kept(addr, &ann);
    let (status, profile) = json(addr, "GET", "/api/profile?name=ANN", "");
    assert_eq!(status, 200, "{profile}");
    let rating = standing(addr, "ann")["rating"].clone();
    assert_eq!(
        (
            &profile["name"],
            &profile["level"],
            &profile["provisional"],
            &profile["games"]
        ),
        (&json!("ann"), &json!(false), &json!(true), &json!(1))
    );
    assert_eq!(profile["ratings"].as_array().unwrap().len(), 1);
    assert_eq!(profile["ratings"][0]["rating"], rating);
    assert_eq!(
        profile["byColor"]["white"],
        json!({ "wins": 1, "draws": 0, "losses": 0 })
    );
    assert_eq!(
        profile["byColor"]["black"],
        json!({ "wins": 0, "draws": 0, "losses": 0 })
    );
    assert_eq!(
        profile["byOpponent"],
        json!([{ "name": "bob", "wins": 1, "draws": 0, "losses": 0 }])
    );
    assert_eq!(
        profile["latest"][0]["termination"],
        "white wins (black resigned)"
    );
    assert!(
        profile["since"].as_i64().unwrap() > 1_700_000_000_000,
        "milliseconds"
    );
    let (_, level) = json(addr, "GET", "/api/profile?name=morris-easy", "");
    assert_eq!(
        (&level["level"], &level["games"]),
        (&json!(true), &json!(0))
    );
    let (status, unknown) = json(addr, "GET", "/api/profile?name=nobody", "");
    assert_eq!(
        (status, &unknown["error"]),
        (404, &json!("no player is named 'nobody'"))
    );
}

#[test]
fn a_position_on_a_rated_board_has_no_value_hint_review_or_engine_elsewhere() {
    use morris::{Position, Rules, Symmetry};
    let folder = common::TempDir::new("web-fair-play");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    // Every game begins at the empty board, whose value is no secret: a
    // rated game there stops no engine.
    let new_one = new_game(addr, r#"{"engine":"white","movetime":10}"#);
    let moved = wait_until(addr, &new_one, |state| {
        state["history"].as_array().is_some_and(|h| h.len() == 1)
    });
    assert_eq!(moved["valuesOff"], false, "{moved}");
    play_plies(addr, (&white, &black), 6);
    let rated = white.state(addr);
    assert_eq!(rated["valuesOff"], false, "the players' own game: {rated}");
    let fen = rated["fen"].as_str().expect("the position").to_owned();
    let mirrored = Symmetry::ALL[1]
        .apply_position(&Position::from_fen(&fen, Rules::default()).expect("a position"))
        .fen();
    assert_ne!(mirrored, fen);
    // A game of ann's own against the engine, set up at bob's board, White
    // (the engine) to move: no move, no value, no hint.
    let side = new_game(addr, r#"{"engine":"white","movetime":10}"#);
    let path = |action: &str, game: &Value| format!("/api/{action}?id={}", id(game));
    let (status, side) = json(addr, "POST", &path("setup", &side), &fen);
    assert_eq!(status, 200, "{side}");
    assert_eq!(side["valuesOff"], true, "{side}");
    assert!(side["exact"].is_null() && side["hint"].is_null(), "{side}");
    let (status, refused) = json(addr, "POST", &path("hint", &side), "");
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["error"],
        "no hint: a rated game in progress on this server stands on a position of this game"
    );
    std::thread::sleep(Duration::from_millis(500));
    let (_, waiting) = json(
        addr,
        "GET",
        &format!("{}&after=0", path("state", &side)),
        "",
    );
    assert_eq!(waiting["history"], json!([]), "the engine waits: {waiting}");
    assert!(engine_idle(&waiting), "{waiting}");
    // The board mirrored is the same position; a game that passed through
    // it has no values either (each move tried from it, taken back, would
    // tell its value), and is not reviewed.
    let other = new_game(addr, r#"{"engine":"none"}"#);
    let (_, other) = json(addr, "POST", &path("setup", &other), &mirrored);
    assert_eq!(other["valuesOff"], true, "{other}");
    let mv = other["legal"][0]["text"]
        .as_str()
        .expect("a move")
        .to_owned();
    let (status, other) = json(addr, "POST", &path("move", &other), &mv);
    assert_eq!(status, 200, "{other}");
    assert_eq!(other["valuesOff"], true, "moved on: {other}");
    assert!(other["exact"].is_null(), "{other}");
    let (status, refused) = json(addr, "POST", &path("review", &other), "");
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"].as_str().unwrap().starts_with("no review"),
        "{refused}"
    );
    // Once the rated game is over, the waiting engine plays at once and
    // the game is reviewed.
    let (status, over) = black.act(addr, "resign", "");
    assert_eq!(status, 200, "{over}");
    let played = wait_until(addr, &waiting, |state| {
        state["valuesOff"] == false && state["history"].as_array().is_some_and(|h| h.len() == 1)
    });
    assert!(played["outcome"].is_null(), "{played}");
    let (status, reviewed) = json(addr, "POST", &path("review", &other), "");
    assert_eq!(status, 200, "{reviewed}");
}

#[test]
fn a_game_streams_its_state_to_each_seat_at_once_and_says_when_it_is_gone() {
    let server = serve(morris(), None);
    let addr = server.addr;
    let (status, created) = json(addr, "POST", "/api/room", r#"{"color":"white"}"#);
    assert_eq!(status, 200, "{created}");
    let white = Seat::of(&created);
    let code = created["room"]["code"].as_str().unwrap();
    let (status, joined) = json(
        addr,
        "POST",
        "/api/join",
        &json!({ "code": code }).to_string(),
    );
    assert_eq!(status, 200, "{joined}");
    let black = Seat::of(&joined);
    let path = format!("/api/events?id={}&seat={}", black.game, black.token);
    let mut events = Events::open(addr, &path, None).expect("a stream");
    let (name, first) = events.next().expect("the state at once");
    assert_eq!(name, "state");
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["room"]["you"], "black", "{first}");
    assert_eq!(first["room"]["opponent"], "here", "{first}");
    let asked = Instant::now();
    let (status, moved) = white.act(addr, "move", "d6");
    assert_eq!(status, 200, "{moved}");
    let heard = loop {
        let (name, data) = events.next().expect("news of the move");
        assert_eq!(name, "state");
        let state: Value = serde_json::from_str(&data).unwrap();
        if plies(&state) == 1 {
            break state;
        }
    };
    assert!(asked.elapsed() < Duration::from_secs(5), "heard late");
    assert_eq!(heard["turn"], "black", "{heard}");
    // A seat that is not the room's has no stream; a game that is not,
    // neither.
    let wrong = format!("/api/events?id={}&seat=nobody", black.game);
    assert_eq!(
        Events::open(addr, &wrong, None).err().map(|e| e.0),
        Some(403)
    );
    let unknown = Events::open(addr, "/api/events?id=1", None).err();
    assert_eq!(unknown.map(|e| e.0), Some(404));
    // Both leave: the room is closed, and its stream says so.
    assert_eq!(white.act(addr, "leave", "").0, 200);
    assert_eq!(black.act(addr, "leave", "").0, 200);
    let gone = loop {
        let (name, data) = events.next().expect("the end");
        if name != "state" {
            break (name, data);
        }
    };
    assert_eq!(gone.0, "gone", "{}", gone.1);
    assert_eq!(events.next(), None, "the stream ends");
}

#[test]
fn anyone_watches_a_rated_game_live_by_a_number_that_plays_nothing() {
    let folder = common::TempDir::new("web-watch");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    // Listed for anyone, by a number of its own.
    let (status, live) = json(addr, "GET", "/api/live", "");
    assert_eq!(status, 200, "{live}");
    let listed = &live["playing"][0];
    assert_eq!(
        (
            &listed["white"]["name"],
            &listed["black"]["name"],
            &listed["spectators"]
        ),
        (&json!("ann"), &json!("bob"), &json!(0))
    );
    assert_eq!(lobby(addr, &ann, 0)["playing"], live["playing"]);
    let watch = listed["watch"].as_str().unwrap().to_owned();
    assert_ne!(watch, white.game);
    // The number plays nothing: it is no game's.
    for (method, path) in [
        ("GET", format!("/api/state?id={watch}")),
        ("POST", format!("/api/resign?id={watch}")),
    ] {
        assert_eq!(json(addr, method, &path, "").0, 404, "{path}");
    }
    let path = format!("/api/watch/events?watch={watch}");
    let mut events = Events::open(addr, &path, None).expect("a stream");
    let (name, first) = events.next().expect("the state at once");
    assert_eq!(name, "state");
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        (&first["watching"], &first["id"]),
        (&json!(true), &json!(watch))
    );
    assert!(first["room"].is_null(), "no seat: {first}");
    assert_eq!(first["rated"]["white"]["name"], "ann");
    assert_eq!(
        json(addr, "GET", "/api/live", "").1["playing"][0]["spectators"],
        1
    );
    // Each move is heard, with the clocks, and no value or engine line.
    play_plies(addr, (&white, &black), 3);
    let heard = loop {
        let (_, data) = events.next().expect("news of the moves");
        let state: Value = serde_json::from_str(&data).unwrap();
        if plies(&state) == 3 {
            break state;
        }
    };
    assert_eq!(heard["clock"]["running"], "black", "{heard}");
    assert!(
        heard["exact"].is_null() && heard["hint"].is_null(),
        "{heard}"
    );
    assert_eq!(heard["engine"]["pv"], "");
    // One view for all: a second spectator is sent the same.
    let (status, again) = json(addr, "GET", &format!("/api/watch?watch={watch}"), "");
    assert_eq!(status, 200);
    assert_eq!((plies(&again), &again["watching"]), (3, &json!(true)));
    // The end is heard; then the game is no longer listed.
    assert_eq!(black.act(addr, "resign", "").0, 200);
    let over = loop {
        let (_, data) = events.next().expect("news of the end");
        let state: Value = serde_json::from_str(&data).unwrap();
        if !state["outcome"].is_null() {
            break state;
        }
    };
    assert_eq!(over["outcome"], "white wins (black resigned)");
    wait_until_kept(addr, &ann);
    assert_eq!(json(addr, "GET", "/api/live", "").1["playing"], json!([]));
    let (status, gone) = json(addr, "GET", &format!("/api/watch?watch={watch}"), "");
    assert_eq!(status, 404, "{gone}");
    // A game of one's own, or a room's between friends, is not watched.
    let own = new_game(addr, "{}");
    let (status, _) = json(addr, "GET", &format!("/api/watch?watch={}", id(&own)), "");
    assert_eq!(status, 404);
}

#[test]
fn the_lobby_streams_to_its_players_and_streams_count_among_an_addresss_requests() {
    let folder = common::TempDir::new("web-lobby-events");
    let store = morris_tools::web::store::Store::open(&folder.path().join("p.sqlite")).unwrap();
    let server = serve_with(WebConfig {
        store: Some(store),
        max_requests_each: 3,
        ..WebConfig::new(morris(), None)
    });
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let mut anns = Events::open(addr, "/api/lobby/events", Some(&ann)).expect("a stream");
    let (name, first) = anns.next().expect("the lobby at once");
    assert_eq!(name, "lobby");
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["me"]["name"], "ann", "{first}");
    let mut bobs = Events::open(addr, "/api/lobby/events", Some(&bob)).expect("a stream");
    bobs.next().expect("bob's lobby");
    // Bob's challenge reaches ann at once.
    let asked = by(&bob, json!({ "clock": turn_clock(60.0) }));
    assert_eq!(json(addr, "POST", "/api/challenge", &asked).0, 200);
    let heard = loop {
        let (_, data) = anns.next().expect("news of the lobby");
        let lobby: Value = serde_json::from_str(&data).unwrap();
        if lobby["challenges"].as_array().is_some_and(|c| c.len() == 1) {
            break lobby;
        }
    };
    assert_eq!(heard["challenges"][0]["name"], "bob", "{heard}");
    // Three streams open from this address: a fourth request waits its
    // turn.
    let mut again = Events::open(addr, "/api/lobby/events", Some(&ann)).expect("a stream");
    again.next().expect("ann's lobby in a second page");
    let (status, refused) = json(addr, "GET", "/api/table", "");
    assert_eq!(status, 429, "{refused}");
    drop(bobs);
    let deadline = Instant::now() + Duration::from_secs(10);
    while json(addr, "GET", "/api/table", "").0 == 429 {
        assert!(Instant::now() < deadline, "a stream closed still counts");
        std::thread::sleep(Duration::from_millis(50));
    }
    // No token, no lobby.
    let refused = Events::open(addr, "/api/lobby/events", Some("nobody")).err();
    assert_eq!(refused.map(|e| e.0), Some(401));
}

#[test]
fn a_game_left_early_moves_no_rating_and_one_lost_on_time_does() {
    let folder = common::TempDir::new("web-rated-short");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    // Left before the tenth turn of each side: lost, kept, unrated.
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    play_plies(addr, (&white, &black), 2);
    assert_eq!(white.act(addr, "leave", "").0, 200);
    let left = black.state(addr);
    assert_eq!(left["rated"]["moved"], false);
    assert_eq!(left["rated"]["black"]["after"], 1500.0);
    let games = history(addr, "ann");
    assert_eq!(games[0]["termination"], "black wins (white left the game)");
    assert_eq!(games[0]["rated"], false);
    let (_, me) = json(addr, "GET", &format!("/api/me?token={ann}"), "");
    assert_eq!(me["rating"], 1500.0, "{me}");
    let (_, table) = json(addr, "GET", "/api/table", "");
    assert!(
        !table.as_array().unwrap().iter().any(|p| p["name"] == "ann"),
        "no rated game yet: {table}"
    );
    // A seat of a rated game is its player's: the code lets nobody in.
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(3.0));
    let code = white.state(addr)["room"]["code"].clone();
    let join = json!({ "code": code }).to_string();
    assert_eq!(json(addr, "POST", "/api/join", &join).0, 409);
    // Lost on time after the tenth turn: rated.
    play_plies(addr, (&white, &black), 20);
    let flagged = wait_until_over(addr, &white);
    assert_eq!(flagged["outcome"], "black wins (white ran out of time)");
    let games = history(addr, "ann");
    assert_eq!((games.len(), &games[0]["rated"]), (2, &json!(true)));
    let ann = standing(addr, "ann");
    assert!(ann["rating"].as_f64().unwrap() < 1500.0);
    // One game says little: the rating is provisional.
    assert_eq!(ann["provisional"], true, "{ann}");
}

/// Waits (long polls) until the game of `seat` is over, for at most a
/// minute.
fn wait_until_over(addr: SocketAddr, seat: &Seat) -> Value {
    let token = format!("&seat={}", seat.token);
    wait_at(addr, &seat.state(addr), &token, |state| {
        !state["outcome"].is_null()
    })
}

#[test]
fn a_wrong_token_or_seat_is_refused_and_challenges_are_bounded() {
    let folder = common::TempDir::new("web-rated-refusals");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let ann = player(addr, "ann");
    let wrong = "0".repeat(32);
    let clock = json!({ "clock": turn_clock(60.0) });
    for (method, path, body) in [
        ("GET", format!("/api/lobby?token={wrong}"), String::new()),
        ("GET", "/api/lobby".to_owned(), String::new()),
        ("GET", format!("/api/me?token={wrong}"), String::new()),
        (
            "POST",
            "/api/challenge".to_owned(),
            by(&wrong, clock.clone()),
        ),
        (
            "POST",
            "/api/accept".to_owned(),
            by(&wrong, json!({ "challenge": 1 })),
        ),
        (
            "POST",
            "/api/withdraw".to_owned(),
            by(&wrong, json!({ "challenge": 1 })),
        ),
    ] {
        let (status, refused) = json(addr, method, &path, &body);
        assert_eq!(status, 401, "{method} {path}: {refused}");
    }
    // A rated game has a clock; an opponent unknown is none to play.
    let (status, refused) = json(addr, "POST", "/api/challenge", &by(&ann, json!({})));
    assert_eq!(
        (status, &refused["error"]),
        (400, &json!("a rated game has a clock"))
    );
    let level = by(
        &ann,
        json!({ "clock": turn_clock(60.0), "opponent": "morris-god" }),
    );
    let (status, refused) = json(addr, "POST", "/api/challenge", &level);
    assert_eq!(
        (status, &refused["error"]),
        (404, &json!("no player or level is named 'morris-god'"))
    );
    // A range of ratings is a sensible number of points, or none.
    for range in [json!(-5), json!(0), json!(0.5), json!(1e9)] {
        let body = by(&ann, json!({ "clock": turn_clock(60.0), "range": range }));
        let (status, refused) = json(addr, "POST", "/api/challenge", &body);
        assert_eq!(
            (status, &refused["error"]),
            (400, &json!("a rating range is 1 to 1000 points, or none")),
            "{range}"
        );
    }
    assert!(
        lobby(addr, &ann, 0)["challenges"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Three challenges open at most; one withdrawn makes room.
    for _ in 0..3 {
        assert_eq!(
            json(addr, "POST", "/api/challenge", &by(&ann, clock.clone())).0,
            200
        );
    }
    let (status, refused) = json(addr, "POST", "/api/challenge", &by(&ann, clock.clone()));
    assert_eq!(status, 409, "{refused}");
    let seen = lobby(addr, &ann, 0);
    let first = seen["challenges"][0]["id"].clone();
    assert_eq!(seen["challenges"][0]["mine"], true);
    let bob = player(addr, "bob");
    let withdraw = |token: &str| {
        let body = by(token, json!({ "challenge": first }));
        json(addr, "POST", "/api/withdraw", &body).0
    };
    assert_eq!(withdraw(&bob), 404, "not bob's to withdraw");
    assert_eq!(withdraw(&ann), 200);
    assert_eq!(withdraw(&ann), 404, "withdrawn already");
    assert_eq!(
        json(addr, "POST", "/api/challenge", &by(&ann, clock.clone())).0,
        200
    );
    assert_eq!(
        lobby(addr, &bob, 0)["challenges"].as_array().unwrap().len(),
        3
    );
    // A player takes no challenge of its own.
    let own = by(&ann, json!({ "challenge": seen["challenges"][1]["id"] }));
    assert_eq!(json(addr, "POST", "/api/accept", &own).0, 409);
}

#[test]
fn connections_that_come_together_are_all_answered() {
    use std::io::{Read, Write};
    let folder = common::TempDir::new("web-connections");
    let server = WebProcess::start(&folder.path().join("players.sqlite"), &[]);
    // Browsers keep their connections open; many come at once after a
    // restart. The HTTP library may queue some for a thread that is not
    // there: without the server's own wake-up, a request on one of them
    // waits (now and then: it is a race) until another connection ends.
    let mut connections: Vec<std::net::TcpStream> = (0..12)
        .map(|_| std::net::TcpStream::connect(server.addr).expect("a connection"))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    for connection in &mut connections {
        connection
            .write_all(b"GET /api/table HTTP/1.1\r\nHost: morris\r\n\r\n")
            .expect("sent");
    }
    for connection in &mut connections {
        connection
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a timeout");
        let mut head = [0u8; 12];
        connection.read_exact(&mut head).expect("an answer");
        assert_eq!(&head, b"HTTP/1.1 200");
    }
}

#[test]
fn a_player_asking_for_many_rated_games_at_once_gets_one() {
    let folder = common::TempDir::new("web-rated-race");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    // Bob's challenge and the levels, all asked for by Ann at once.
    let open = by(&bob, json!({ "clock": turn_clock(60.0) }));
    assert_eq!(json(addr, "POST", "/api/challenge", &open).0, 200);
    let challenge = lobby(addr, &ann, 0)["challenges"][0]["id"].clone();
    let asks: Vec<(&str, String)> = ["easy", "medium", "hard", "full"]
        .iter()
        .map(|level| {
            let body = json!({ "opponent": level, "clock": turn_clock(60.0) });
            ("/api/challenge", by(&ann, body))
        })
        .chain([("/api/accept", by(&ann, json!({ "challenge": challenge })))])
        .collect();
    let answers: Vec<u16> = std::thread::scope(|scope| {
        let asking: Vec<_> = asks
            .iter()
            .map(|(path, body)| scope.spawn(move || json(addr, "POST", path, body).0))
            .collect();
        asking.into_iter().map(|a| a.join().unwrap()).collect()
    });
    assert_eq!(
        answers.iter().filter(|&&status| status == 200).count(),
        1,
        "{answers:?}"
    );
    assert!(
        answers.iter().all(|&status| status == 200 || status == 409),
        "{answers:?}"
    );
    assert!(!lobby(addr, &ann, 0)["game"].is_null());
}

#[test]
fn an_address_has_only_so_many_requests_answered_at_once() {
    let folder = common::TempDir::new("web-per-address");
    let store = morris_tools::web::store::Store::open(&folder.path().join("p.sqlite")).unwrap();
    let server = serve_with(WebConfig {
        store: Some(store),
        max_requests_each: 2,
        ..WebConfig::new(morris(), None)
    });
    let addr = server.addr;
    let ann = player(addr, "ann");
    let version = lobby(addr, &ann, 0)["version"].as_u64().unwrap();
    // Long polls wait for news of the lobby, one more at a time: those let
    // in wait, and the first refused comes back at once, when two wait.
    let (answers, answered) = std::sync::mpsc::channel();
    let mut sent = 0;
    let refused = loop {
        assert!(sent < 20, "never refused");
        let path = format!("/api/lobby?token={ann}&after={version}");
        let answers = answers.clone();
        std::thread::spawn(move || answers.send(try_request(addr, "GET", &path, "")));
        sent += 1;
        if let Ok(answer) = answered.recv_timeout(Duration::from_millis(300)) {
            break answer.expect("an answer");
        }
    };
    assert_eq!(refused.0, 429, "{}", refused.1);
    assert!(sent >= 3, "two let in before the refusal, not {sent}");
}

#[test]
fn a_request_whose_body_never_arrives_is_let_go_and_frees_its_place() {
    use std::io::{Read, Write};
    let server = serve_with(WebConfig {
        max_requests_each: 1,
        answered_within: Duration::from_millis(500),
        ..WebConfig::new(morris(), None)
    });
    let addr = server.addr;
    // A body announced and never sent.
    let mut stalled = std::net::TcpStream::connect(addr).unwrap();
    let head =
        format!("POST /api/game HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 5000\r\n\r\n{{\"eng");
    stalled.write_all(head.as_bytes()).unwrap();
    stalled
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut answer = String::new();
    let _ = stalled.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("the request took too long to arrive"),
        "{answer}"
    );
    // Its place is free again.
    let (status, table) = json(addr, "GET", "/api/puzzles", "");
    assert_eq!(status, 200, "{table}");
}

#[test]
fn the_levels_are_rated_at_their_measured_strength() {
    let folder = common::TempDir::new("web-level-ratings");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let ann = player(server.addr, "ann");
    let elo = |skill: u8| {
        let (_, elo) = morris::engine::ELO_OF_SKILL
            .iter()
            .find(|(level, _)| *level == skill)
            .expect("measured");
        f64::from(*elo)
    };
    // Easy is where a newcomer starts; each level above it by as much as
    // it was measured stronger, Full at the unweakened engine's level 20.
    let expected = [
        ("morris-easy", 1500.0),
        ("morris-medium", 1500.0 + (elo(0) + elo(10)) / 2.0 - elo(0)),
        ("morris-hard", 1500.0 + elo(10) - elo(0)),
        ("morris-full", 1500.0 + elo(20) - elo(0)),
    ];
    let levels = lobby(server.addr, &ann, 0)["levels"].clone();
    for (name, rating) in expected {
        let level = levels
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {levels}"));
        assert!(
            (level["rating"].as_f64().unwrap() - rating).abs() < 1.0,
            "{name}: {level}"
        );
        assert_eq!(level["deviation"], 50.0, "{name}: {level}");
    }
}

#[test]
fn a_rated_game_against_a_level_is_the_engines_to_answer_and_lost_if_left() {
    let folder = common::TempDir::new("web-rated-level");
    let server = serve_keeping(&folder.path().join("players.sqlite"));
    let addr = server.addr;
    let ann = player(addr, "ann");
    let asked = by(
        &ann,
        json!({ "opponent": "easy", "color": "white", "clock": turn_clock(60.0) }),
    );
    let (status, state) = json(addr, "POST", "/api/challenge", &asked);
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["rated"]["black"]["name"], "morris-easy");
    assert_eq!(state["settings"]["engine"], "black");
    assert_eq!(state["settings"]["level"], "easy");
    assert_eq!(lobby(addr, &ann, 0)["game"]["id"], state["id"]);
    let (status, _) = act(addr, &state, "move", "d6");
    assert_eq!(status, 200);
    let answered = wait_until(addr, &state, |s| plies(s) == 2);
    assert!(
        answered["engine"]["pv"] == "",
        "the engine's plans are its own"
    );
    for action in ["hint", "undo", "settings", "restart"] {
        assert_eq!(act(addr, &answered, action, "{}").0, 403, "{action}");
    }
    let (status, _) = act(addr, &answered, "close", "");
    assert_eq!(status, 200);
    let games = history(addr, "morris-easy");
    assert_eq!(games.len(), 1);
    assert_eq!(games[0]["termination"], "black wins (white left the game)");
    assert!(lobby(addr, &ann, 0)["game"].is_null());
}

#[test]
fn a_server_killed_mid_game_loses_nothing_finished_and_resumes_the_game() {
    let folder = common::TempDir::new("web-killed");
    let file = folder.path().join("players.sqlite");
    let mut first = WebProcess::start(&file, &[]);
    let addr = first.addr;
    let (ann, bob) = (player(addr, "ann"), player(addr, "bob"));
    let (white, black) = rated_room(addr, &ann, &bob, turn_clock(60.0));
    play_plies(addr, (&white, &black), 20);
    assert_eq!(white.act(addr, "resign", "").0, 200);
    let rated = standing(addr, "bob");
    let (white, black) = rated_room(addr, &ann, &bob, json!({ "kind": "game", "seconds": 300 }));
    play_plies(addr, (&white, &black), 5);
    let before = black.state(addr);
    // Killed at once, nothing asked to end.
    first.kill();
    let mut second = WebProcess::start(&file, &[]);
    let addr = second.addr;
    assert_eq!(
        standing(addr, "bob"),
        rated,
        "the finished game and its ratings"
    );
    assert_eq!(history(addr, "ann").len(), 1);
    // The game in progress is back, each player's seat found by its token.
    let game = lobby(addr, &bob, 0)["game"].clone();
    assert_eq!(game["id"], json!(black.game));
    let black = Seat {
        game: black.game,
        token: game["seat"].as_str().expect("bob's seat").to_owned(),
    };
    let game = lobby(addr, &ann, 0)["game"].clone();
    let white = Seat {
        game: white.game,
        token: game["seat"].as_str().expect("ann's seat").to_owned(),
    };
    let resumed = black.state(addr);
    assert_eq!(resumed["history"], before["history"]);
    // Newer than anything the pages saw before: they take it up.
    assert!(resumed["version"].as_u64() > before["version"].as_u64());
    assert_eq!(resumed["rated"], before["rated"]);
    let left = |state: &Value| state["clock"]["left"]["white"].as_u64().unwrap();
    assert!(
        left(&resumed) <= left(&before) && left(&resumed) > 250_000,
        "{resumed}"
    );
    play_plies(addr, (&white, &black), 1);
    assert_eq!(black.act(addr, "resign", "").0, 200);
    assert_eq!(history(addr, "bob").len(), 2);
    second.kill();
}

/// The CPU time the process `pid` has used so far, its own and the
/// kernel's for it (`/proc/PID/stat`, in Linux's ticks of 1/100 s).
fn process_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("Linux");
    // The fields after the name, which is in brackets: the 14th and 15th
    // of the line are the 12th and 13th of these.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .expect("a name")
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(10 * ticks)
}

/// A line of `/proc/PID/status` of the process `pid` (`VmHWM`, its peak
/// memory, say), as written there.
fn process_status(pid: u32, key: &str) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("Linux");
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .map(|value| value.trim_start_matches(':').trim().to_owned())
        .unwrap_or_default()
}

/// A load on 127.0.0.1: 200 players in the lobby, each hearing it by its
/// stream of events, while 100 of them pair off by challenges and play 50 rated
/// games at once, 40 plies each, then one resigns. Nothing is lost: every
/// game is kept, and every rating moved. The requests answered a second,
/// the moves' answer times, the server's memory and its threads are told
/// on the error output (`cargo test --release -p morris-tools --test web -- --nocapture
/// load`).
#[test]
fn load_of_200_players_in_the_lobby_and_50_games_loses_nothing() {
    load(0);
}

/// The same load watched by 200 spectators, four a game, each following
/// its game by its stream to the end: nothing is lost, and each sees the
/// game's every move and its end (the players' answer times are told, to
/// set beside those of the load without spectators).
#[test]
fn load_of_200_players_50_games_and_200_spectators_loses_nothing() {
    load(4);
}

/// The load above, with `watching` spectators a game.
fn load(watching: usize) {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::{Arc, Barrier};
    const PLAYERS: usize = 200;
    const GAMES: usize = 50;
    const PLIES: usize = 40;
    let folder = common::TempDir::new(&format!("web-load-{watching}"));
    let file = folder.path().join("players.sqlite");
    // Made in the store beforehand: an address makes only five an hour.
    let tokens: Arc<Vec<String>> = {
        let store = morris_tools::web::store::Store::open(&file).unwrap();
        let made = (0..PLAYERS).map(|n| {
            let (_, token) = store.add_player(&format!("player{n}")).unwrap().unwrap();
            token.as_str().to_owned()
        });
        Arc::new(made.collect())
    };
    let mut server = WebProcess::start(&file, &["--requests-per-address", "1000"]);
    let addr = server.addr;
    let requests = Arc::new(AtomicU64::new(0));
    let heard = Arc::new(AtomicU64::new(0));
    let listeners: Vec<_> = (0..PLAYERS)
        .map(|n| {
            let (tokens, heard) = (tokens.clone(), heard.clone());
            std::thread::spawn(move || {
                let mut events = Events::open(addr, "/api/lobby/events", Some(&tokens[n]))
                    .expect("the lobby's stream");
                loop {
                    let (name, data) = events.next().expect("the lobby's news");
                    assert_eq!(name, "lobby", "{data}");
                    heard.fetch_add(1, Ordering::Relaxed);
                    // The last news: the challenge of the last player.
                    let lobby: Value = serde_json::from_str(&data).unwrap();
                    let last = format!("player{}", PLAYERS - 1);
                    let challenges = lobby["challenges"].as_array().unwrap();
                    if challenges.iter().any(|c| c["name"] == last.as_str()) {
                        return;
                    }
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while lobby(addr, &tokens[0], 0)["present"]
        .as_array()
        .unwrap()
        .len()
        < PLAYERS
    {
        assert!(Instant::now() < deadline, "the players never all came");
        std::thread::sleep(Duration::from_millis(100));
    }
    let started = Instant::now();
    let cpu_before = process_cpu(server.id());
    let heard_before = heard.load(Ordering::Relaxed);
    // The server's threads, sampled while the games are played.
    let sampling = Arc::new(AtomicBool::new(true));
    let threads = {
        let (sampling, pid) = (sampling.clone(), server.id());
        std::thread::spawn(move || {
            let mut most = 0;
            while sampling.load(Ordering::Relaxed) {
                let now = process_status(pid, "Threads").parse::<u32>().unwrap_or(0);
                most = most.max(now);
                std::thread::sleep(Duration::from_millis(50));
            }
            most
        })
    };
    // Every game begun, and its spectators following it, before any is
    // played.
    let begun = Arc::new(Barrier::new(GAMES + 1));
    let watched = Arc::new(Barrier::new(GAMES + 1));
    let games: Vec<_> = (0..GAMES)
        .map(|g| {
            let (tokens, requests) = (tokens.clone(), requests.clone());
            let (begun, watched) = (begun.clone(), watched.clone());
            std::thread::spawn(move || {
                let (white, black) = (&tokens[2 * g], &tokens[2 * g + 1]);
                let clock = json!({ "kind": "game", "seconds": 600 });
                let (white, black) = rated_room(addr, white, black, clock);
                begun.wait();
                watched.wait();
                let mut answers = Vec::new();
                for _ in 0..PLIES {
                    let state = white.state(addr);
                    let mv = state["legal"][0]["text"]
                        .as_str()
                        .expect("a move")
                        .to_owned();
                    let seat = if state["turn"] == "white" {
                        &white
                    } else {
                        &black
                    };
                    let asked = Instant::now();
                    let (status, after) = seat.act(addr, "move", &mv);
                    answers.push(asked.elapsed());
                    assert_eq!(status, 200, "{after}");
                }
                assert_eq!(black.act(addr, "resign", "").0, 200);
                // The challenge, the challenger found, two lobbies, the
                // acceptance, each ply's two requests and the resignation.
                requests.fetch_add(5 + 2 * PLIES as u64 + 1, Ordering::Relaxed);
                answers
            })
        })
        .collect();
    begun.wait();
    let (_, live) = json(addr, "GET", "/api/live", "");
    let playing = live["playing"].as_array().unwrap().clone();
    assert_eq!(playing.len(), GAMES);
    let following = Arc::new(Barrier::new(GAMES * watching + 1));
    let spectators: Vec<_> = playing
        .iter()
        .flat_map(|game| std::iter::repeat_n(game["watch"].as_str().unwrap().to_owned(), watching))
        .map(|watch| {
            let following = following.clone();
            std::thread::spawn(move || {
                let path = format!("/api/watch/events?watch={watch}");
                let mut events = Events::open(addr, &path, None).expect("a spectator's stream");
                following.wait();
                loop {
                    let (name, data) = events.next().expect("the game's news to its end");
                    assert_eq!(name, "state", "{data}");
                    // A spectator's browser reads every state, on a machine
                    // of its own; here the spectators share the server's
                    // cores, so each reads only the last, that the figures
                    // be the server's.
                    if data.contains(r#""outcome":null"#) {
                        continue;
                    }
                    let state: Value = serde_json::from_str(&data).unwrap();
                    return (plies(&state), state["outcome"].as_str().unwrap().to_owned());
                }
            })
        })
        .collect();
    following.wait();
    watched.wait();
    let mut answers: Vec<Duration> = games
        .into_iter()
        .flat_map(|game| game.join().expect("a game played to its end"))
        .collect();
    let elapsed = started.elapsed();
    let cpu = process_cpu(server.id()) - cpu_before;
    let answered = requests.load(Ordering::Relaxed);
    let told = heard.load(Ordering::Relaxed) - heard_before;
    let peak = process_status(server.id(), "VmHWM");
    let now = process_status(server.id(), "VmRSS");
    sampling.store(false, Ordering::Relaxed);
    let threads = threads.join().expect("the sampler");
    // Every page hears the lobby to its last news: a challenge.
    let wake = by(&tokens[PLAYERS - 1], json!({ "clock": turn_clock(60.0) }));
    assert_eq!(json(addr, "POST", "/api/challenge", &wake).0, 200);
    for listener in listeners {
        listener
            .join()
            .expect("each page heard the lobby throughout");
    }
    // Each spectator saw its game to the end.
    let seen = spectators.len();
    for spectator in spectators {
        let (plies, outcome) = spectator.join().expect("a spectator to the end");
        assert_eq!(
            (plies, outcome.as_str()),
            (PLIES, "white wins (black resigned)")
        );
    }
    answers.sort();
    let at = |q: f64| answers[((answers.len() - 1) as f64 * q) as usize];
    eprintln!(
        "{PLAYERS} players in the lobby, {GAMES} games of {PLIES} plies at once, {seen} spectators: \
         {answered} requests in {:.1} s ({:.0} a second), {told} lobbies streamed to the players; \
         a move answered in {:?} (median), \
         {:?} (99th percentile), {:?} (slowest); the server's memory {now}, at most {peak}; \
         at most {threads} threads; the server's CPU time {:.2} s",
        elapsed.as_secs_f64(),
        answered as f64 / elapsed.as_secs_f64(),
        at(0.5),
        at(0.99),
        answers.last().unwrap(),
        cpu.as_secs_f64(),
    );
    // Nothing lost: every game kept with its moves and both ratings moved.
    for g in 0..GAMES {
        let white = history(addr, &format!("player{}", 2 * g));
        let games = history(addr, &format!("player{}", 2 * g + 1));
        assert_eq!((white.len(), games.len()), (1, 1));
        assert_eq!(white[0]["record"], games[0]["record"]);
        assert_eq!(games[0]["termination"], "white wins (black resigned)");
        assert_eq!(games[0]["rated"], true);
        let record = games[0]["record"].as_str().unwrap();
        assert!(
            record.contains(&format!("[White \"player{}\"]", 2 * g)),
            "{record}"
        );
    }
    // The table shows the best only.
    let (_, table) = json(addr, "GET", "/api/table", "");
    assert_eq!(table.as_array().unwrap().len(), 100);
    assert!(table[0]["rating"].as_f64().unwrap() > 1500.0);
    server.kill();
    let store = morris_tools::web::store::Store::open(&file).unwrap();
    assert_eq!(store.live_games().unwrap(), [], "no game left in progress");
}
