//! morris-web in a real browser: headless Chromium, driven through
//! WebDriver (`chromedriver`), plays a short game by clicks, a mill and a
//! removal among them, checks the board and the move list, and saves
//! screenshots at desktop and phone widths; with databases, it checks the
//! values the board shows.
//!
//! Needs the Debian packages `chromium` and `chromium-driver` (`.ci/run`
//! installs them). Without them the test says so and passes, unless
//! `MORRIS_BROWSER_TEST=1` (as in CI) makes their absence a failure.

mod common;

use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use common::{
    WIN_IN_FIVE, WebProcess, morris, script, serve, serve_with, small_databases_with_placing,
    try_request,
};
use morris_tools::web::WebConfig;

/// chromedriver, killed when dropped with the browsers it started.
struct Driver {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The whole process group: a test that failed leaves its Chromium
        // running, which killing chromedriver alone would orphan.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// chromedriver, or `None` (the test then passes) when it is not
/// installed and `MORRIS_BROWSER_TEST=1` does not require it.
fn driver() -> Option<Driver> {
    let required = std::env::var("MORRIS_BROWSER_TEST").is_ok_and(|v| v == "1");
    let driver = start_driver();
    if driver.is_none() {
        assert!(!required, "chromedriver is not installed");
        eprintln!("skipped: chromedriver (Debian: chromium-driver) is not installed");
    }
    driver
}

fn start_driver() -> Option<Driver> {
    let port = free_port();
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("chromedriver-{port}.log"));
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .arg(format!("--log-path={}", log.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let driver = Driver {
        child,
        addr: SocketAddr::from(([127, 0, 0, 1], port)),
        log,
    };
    // Ready when it says so: a bare connection, opened and dropped while
    // chromedriver starts, was seen to leave it refusing the next.
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if try_call(&driver, "GET", "/status", &Value::Null).is_ok_and(|v| v["ready"] == true) {
            return Some(driver);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("chromedriver is not ready: see {}", driver.log.display());
}

/// One WebDriver call; its `value`, or why there is none.
fn try_call(driver: &Driver, method: &str, path: &str, body: &Value) -> Result<Value, String> {
    let body = if method == "GET" || method == "DELETE" {
        String::new()
    } else {
        body.to_string()
    };
    let (status, text) = try_request(driver.addr, method, path, &body).map_err(|e| {
        format!(
            "{method} {path}: {e}; chromedriver's log: {}",
            driver.log.display()
        )
    })?;
    let answer: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{method} {path}: not JSON ({e}): {text}"))?;
    if status != 200 {
        return Err(format!("{method} {path}: {answer}"));
    }
    Ok(answer["value"].clone())
}

/// One WebDriver call; its `value`.
fn call(driver: &Driver, method: &str, path: &str, body: &Value) -> Value {
    try_call(driver, method, path, body).unwrap_or_else(|e| panic!("{e}"))
}

struct Browser<'a> {
    driver: &'a Driver,
    session: String,
    url: String,
}

/// The page has opened its game (or resumed the one it kept), with no
/// move played.
const OPENED: &str =
    "return S !== null && !document.body.classList.contains('nogame') && S.history.length === 0;";

impl Browser<'_> {
    /// A headless Chromium showing the page of the server at `server`,
    /// its game started, with the engine playing nobody.
    fn open(driver: &Driver, server: SocketAddr) -> Browser<'_> {
        let browser = Browser::start(driver, server);
        browser.reload();
        browser.wait_for(OPENED);
        browser.choose("color", "both");
        browser.wait_for("return S.settings.engine === 'none';");
        browser
    }

    /// A headless Chromium for the server at `server`, its page not yet
    /// opened.
    fn start(driver: &Driver, server: SocketAddr) -> Browser<'_> {
        let url = format!("http://{server}/");
        let mut options = json!({ "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,850"] });
        if Path::new("/usr/bin/chromium").exists() {
            options["binary"] = json!("/usr/bin/chromium");
        }
        let capabilities =
            json!({ "capabilities": { "alwaysMatch": { "goog:chromeOptions": options } } });
        let session = call(driver, "POST", "/session", &capabilities);
        Browser {
            driver,
            session: session["sessionId"].as_str().expect("a session").to_owned(),
            url,
        }
    }

    /// Picks `value` in the page's select `id`, as a person does.
    fn choose(&self, id: &str, value: &str) {
        self.script(&format!(
            "const s = document.getElementById('{id}'); s.value = '{value}';
             s.dispatchEvent(new Event('change'));"
        ));
    }

    /// Sets the board up from `position`, a position string, as a person
    /// pastes it.
    fn set_up(&self, position: &str) {
        self.script(&format!(
            "document.getElementById('paste').value = '{position}';
             document.getElementById('setup').click();"
        ));
        self.wait_for(&format!("return S.fen === '{position}';"));
    }

    /// Sets the person at White against the engine at Easy, 0.1 s a move
    /// (Easy searches to a set depth, so it answers at once).
    fn play_white_against_easy(&self) {
        self.choose("movetime", "100");
        self.choose("level", "easy");
        self.choose("color", "white");
        self.wait_for("return S.settings.engine === 'black' && S.settings.level === 'easy' && S.settings.movetime === 100;");
    }

    /// Opens the page (again).
    fn reload(&self) {
        let url = json!({ "url": self.url });
        call(self.driver, "POST", &self.path("/url"), &url);
    }

    /// Opens the page at `tail` after the server's address (a link with
    /// a `#room=` code, say), loaded afresh.
    fn visit(&self, tail: &str) {
        // From another page, so that a `#` alone is a page loaded too.
        let blank = json!({ "url": "about:blank" });
        call(self.driver, "POST", &self.path("/url"), &blank);
        self.follow(tail);
    }

    /// Follows a link to `tail` after the server's address, as a person
    /// opens it in the tab: a `#` alone does not load the page again.
    fn follow(&self, tail: &str) {
        let url = json!({ "url": format!("{}{tail}", self.url) });
        call(self.driver, "POST", &self.path("/url"), &url);
    }

    /// Presses `key` with Ctrl held.
    fn ctrl(&self, key: &str) {
        self.script(&format!(
            "document.dispatchEvent(new KeyboardEvent('keydown', {{ key: '{key}', ctrlKey: true, bubbles: true }}));"
        ));
    }

    /// Ends the browser's session.
    fn close(self) {
        call(self.driver, "DELETE", &self.path(""), &Value::Null);
    }

    fn path(&self, tail: &str) -> String {
        format!("/session/{}{tail}", self.session)
    }

    fn try_script(&self, script: &str) -> Result<Value, String> {
        let body = json!({ "script": script, "args": [] });
        try_call(self.driver, "POST", &self.path("/execute/sync"), &body)
    }

    fn script(&self, script: &str) -> Value {
        self.try_script(script).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Waits until `script` returns true (at most 90 s, for a machine
    /// under load); a script refused while the page loads anew counts as
    /// not yet.
    fn wait_for(&self, script: &str) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while self.try_script(script) != Ok(Value::Bool(true)) {
            if Instant::now() > deadline {
                // What the page shows, to tell why.
                let shown = self.try_script(
                    "return [document.getElementById('status').textContent,
                             document.getElementById('conn').textContent,
                             document.getElementById('messageText').textContent,
                             S && S.settings, S && S.version, prefs];",
                );
                panic!("waited in vain for: {script}\nthe page: {shown:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sets the window's size, as a phone's or a desktop's.
    fn resize(&self, width: u32, height: u32) {
        let rect = json!({ "width": width, "height": height });
        call(self.driver, "POST", &self.path("/window/rect"), &rect);
    }

    /// Clicks a point of the board, brought to the middle of the window
    /// first (as a person scrolls to it: the page may have scrolled away,
    /// smoothly, to a review), finding it again if the page drew the board
    /// anew between finding and clicking; and, as a person does, once the
    /// other side's last move has been seen.
    fn click_point(&self, point: &str) {
        self.wait_for("return performance.now() >= replySeenAt;");
        let selector = format!("circle.hit[data-point=\"{point}\"]");
        self.script(&format!(
            "document.querySelector('{selector}').scrollIntoView({{ block: 'center', behavior: 'instant' }});"
        ));
        let body = json!({ "using": "css selector", "value": selector });
        for _ in 0..5 {
            let element = call(self.driver, "POST", &self.path("/element"), &body);
            let id = element
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
                .expect("an element")
                .to_owned();
            let path = self.path(&format!("/element/{id}/click"));
            match try_call(self.driver, "POST", &path, &json!({})) {
                Ok(_) => return,
                Err(e) => assert!(e.contains("stale element"), "clicking {point}: {e}"),
            }
        }
        panic!("{point} kept going stale");
    }

    /// Clicks `points` in turn, then waits for the game to hold `plies`
    /// moves.
    fn play(&self, points: &[&str], plies: usize) {
        for point in points {
            self.click_point(point);
        }
        self.wait_for(&format!(
            "return S !== null && S.history.length === {plies};"
        ));
    }

    /// Counts the moves the page sends (`window.movesSent`), and gives
    /// the page `tap(point)`: a finger put down on the point at once,
    /// without the waiting of [`Browser::click_point`].
    fn count_moves_sent(&self) {
        self.script(
            "window.movesSent = 0;
             const send = window.fetch;
             window.fetch = (url, init) => {
               if (String(url).startsWith('/api/move')) window.movesSent += 1;
               return send(url, init);
             };
             window.tap = (p) => {
               const r = document.querySelector(`circle.hit[data-point=\"${p}\"]`).getBoundingClientRect();
               const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true };
               document.getElementById('board').dispatchEvent(new PointerEvent('pointerdown', at));
             };",
        );
    }

    /// Plays 1. a1 b2 2. a4 b4, after which a7 closes White's mill
    /// a1-a4-a7 and b2 and b4 may be removed.
    fn play_to_the_mill(&self) {
        for (ply, point) in ["a1", "b2", "a4", "b4"].into_iter().enumerate() {
            self.play(&[point], ply + 1);
        }
    }

    fn screenshot(&self, width: u32, height: u32, name: &str) -> PathBuf {
        self.resize(width, height);
        std::thread::sleep(Duration::from_millis(300));
        let png = call(self.driver, "GET", &self.path("/screenshot"), &Value::Null);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().expect("base64"))
            .expect("a PNG");
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        std::fs::write(&path, bytes).expect("the screenshot is saved");
        path
    }
}

#[test]
fn a_game_by_clicks_in_headless_chromium() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    // Two people at the board: the engine plays nobody.
    let browser = Browser::open(&driver, server.addr);
    browser.play_to_the_mill();
    // a7 closes the mill a1-a4-a7: the page asks which stone to remove
    // and marks the removable ones.
    browser.click_point("a7");
    browser.wait_for("return document.querySelectorAll('circle.removable').length === 2;");
    browser.play(&["b2"], 5);
    let board = browser.script("return S.board;");
    assert_eq!(
        board,
        json!({ "a1": "white", "a4": "white", "a7": "white", "b4": "black" })
    );
    let stones = browser.script("return document.querySelectorAll('#board circle.stone').length;");
    assert_eq!(stones, json!(4));
    let moves = browser.script("return document.getElementById('moves').textContent;");
    assert_eq!(
        moves
            .as_str()
            .map(str::split_whitespace)
            .map(Iterator::collect::<Vec<_>>),
        Some(vec!["1.", "a1", "b2", "2.", "a4", "b4", "3.", "a7xb2"])
    );
    // Stepping back through the moves shows the earlier boards.
    for _ in 0..3 {
        browser.script("document.getElementById('back').click();");
    }
    let stones = browser.script("return document.querySelectorAll('#board circle.stone').length;");
    assert_eq!(stones, json!(2), "the board after 1. a1 b2");
    browser.script("document.getElementById('end').click();");
    browser.wait_for("return document.querySelectorAll('#board circle.stone').length === 4;");
    // An illegal click (an occupied point) changes nothing.
    browser.click_point("a1");
    browser.click_point("b4");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(browser.script("return S.history.length;"), json!(5));
    // Against the engine at full strength at 0.1 s: it answers a click.
    browser.choose("level", "full");
    browser.choose("movetime", "100");
    browser.wait_for("return S.settings.movetime === 100;");
    browser.choose("color", "black");
    browser.wait_for("return S.settings.engine === 'white';");
    // The reply may come before the page is asked for the sixth ply: wait
    // for both moves at once.
    browser.click_point("g7");
    browser.wait_for("return S.history.length === 7 && S.engine.thinking === null;");
    assert_eq!(
        browser.script("return S.history[5].move.text;"),
        json!("g7")
    );
    let desktop = browser.screenshot(1100, 850, "morris-web-desktop.png");
    let phone = browser.screenshot(390, 844, "morris-web-phone.png");
    eprintln!("screenshots: {} {}", desktop.display(), phone.display());
    browser.close();
}

#[test]
fn a_mill_closing_stone_is_shown_while_its_removal_is_picked() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play_to_the_mill();
    let stone_at = |point: &str| {
        browser.script(&format!(
            "const s = document.querySelector('#board circle.stone[data-point=\"{point}\"]');
             return s === null ? null : s.getAttribute('class');"
        ))
    };
    let white_hand = "return document.getElementById('handBottom').textContent;";
    browser.click_point("a7");
    browser.wait_for("return document.querySelectorAll('circle.removable').length === 2;");
    // The stone that closed the mill stands on a7, out of the hand.
    assert_eq!(stone_at("a7"), json!("stone white"));
    assert_eq!(
        browser.script(white_hand),
        json!("white: 6 in hand, 3 on the board")
    );
    // A click beside the marked stones keeps the move and says why.
    browser.click_point("g1");
    let message = browser.script("return document.getElementById('messageText').textContent;");
    assert!(
        message.as_str().is_some_and(|m| m.contains("remove")),
        "{message}"
    );
    assert_eq!(
        browser.script("return document.querySelectorAll('circle.removable').length;"),
        json!(2)
    );
    // Esc takes the move back: a7 empty, the stone in hand again.
    browser.script(
        "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));",
    );
    assert_eq!(stone_at("a7"), Value::Null);
    assert_eq!(
        browser.script(white_hand),
        json!("white: 7 in hand, 2 on the board")
    );
    assert_eq!(browser.script("return S.history.length;"), json!(4));
    // Closing it again and picking a marked stone plays the move.
    browser.click_point("a7");
    browser.wait_for("return document.querySelectorAll('circle.removable').length === 2;");
    browser.play(&["b4"], 5);
    assert_eq!(
        browser.script("return S.history[4].move.text;"),
        json!("a7xb4")
    );
    browser.close();
}

#[test]
fn stepping_back_shows_the_whole_earlier_position() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play(&["a1"], 1);
    browser.play(&["b2"], 2);
    browser.play(&["a4"], 3);
    browser.script("document.getElementById('back').click();");
    let text = |id: &str| {
        browser.script(&format!(
            "return document.getElementById('{id}').textContent;"
        ))
    };
    // After 1. a1 b2: hands, header and position string of that position.
    assert_eq!(
        text("handBottom"),
        json!("white: 8 in hand, 1 on the board")
    );
    assert_eq!(text("handTop"), json!("black: 8 in hand, 1 on the board"));
    let status = text("status");
    assert!(
        status
            .as_str()
            .is_some_and(|s| s.contains("After b2") && s.contains("white to move")),
        "{status}"
    );
    let fen = browser.script("return document.getElementById('fen').value;");
    assert_eq!(fen, browser.script("return S.history[1].fen;"));
    assert_ne!(fen, browser.script("return S.fen;"));
    browser.script("document.getElementById('end').click();");
    assert_eq!(
        text("handBottom"),
        json!("white: 7 in hand, 2 on the board")
    );
    // A long game: the move shown is scrolled into the list's view.
    browser.choose("movetime", "100");
    browser.wait_for("return S.settings.movetime === 100;");
    browser.choose("color", "watch");
    browser.wait_for("return S.history.length >= 16 || S.outcome !== null;");
    browser.choose("color", "both");
    browser.wait_for("return S.settings.engine === 'none' && S.engine.thinking === null;");
    // A list taller than its box, however the game went.
    browser.script("document.getElementById('moves').style.maxHeight = '3em';");
    let plies = browser.script("return S.history.length;");
    let overflows =
        "const m = document.getElementById('moves'); return m.scrollHeight > m.clientHeight;";
    assert_eq!(
        browser.script(overflows),
        json!(true),
        "{plies} moves need scrolling"
    );
    let in_view = "const m = document.getElementById('moves'), on = m.querySelector('span.on');
        const box = m.getBoundingClientRect(), r = on.getBoundingClientRect();
        return r.top >= box.top && r.bottom <= box.bottom;";
    browser.script(
        "document.getElementById('first').click(); document.getElementById('forward').click();",
    );
    assert_eq!(browser.script(in_view), json!(true), "the first move");
    browser
        .script("document.getElementById('end').click(); document.getElementById('back').click();");
    assert_eq!(
        browser.script(in_view),
        json!(true),
        "the move before the last"
    );
    browser.close();
}

#[test]
fn a_mill_closing_hint_shows_the_stone_to_remove() {
    let Some(driver) = driver() else { return };
    // An engine whose every answer closes the mill a1-a4-a7, taking b2.
    let adviser = "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
                   go*) echo 'bestmove a7xb2';; esac; done";
    let server = serve(script(adviser), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play_to_the_mill();
    browser.script("document.getElementById('hint').click();");
    browser.wait_for("return S.hint !== null && S.engine.thinking === null;");
    let marked = "const at = (c) => [...document.querySelectorAll('#board circle.' + c)]
          .map((e) => S.points.find((p) => xy(p)[0] == e.getAttribute('cx') && xy(p)[1] == e.getAttribute('cy')));
        return [at('hintmark'), at('hintremove')];";
    assert_eq!(browser.script(marked), json!([["a7"], ["b2"]]));
    browser.close();
}

#[test]
fn the_databases_values_show_on_the_board() {
    let Some(driver) = driver() else { return };
    let (db, _dir) = small_databases_with_placing("browser");
    let server = serve(morris(), Some(db));
    let browser = Browser::open(&driver, server.addr);
    browser.set_up(WIN_IN_FIVE);
    // The values are shown on request.
    let labels_shown = "return document.querySelectorAll('#board text.dbv').length;";
    assert_eq!(browser.script(labels_shown), json!(0));
    browser.script("document.getElementById('valuesOn').click();");
    assert_ne!(browser.script(labels_shown), json!(0));
    let exact = browser.script("return document.getElementById('exact').textContent;");
    assert_eq!(
        exact,
        json!("Databases: white to move, win, the next removal in 5 plies")
    );
    // Each label by the point it stands over: its kind and its text.
    let labels = "const at = {};
        for (const t of document.querySelectorAll('#board text.dbv')) {
          at[t.dataset.point] = t.getAttribute('class').replace(' left', '') + ' ' + t.textContent;
        }
        return at;";
    // On each stone, the best value of its moves.
    assert_eq!(
        browser.script(labels),
        json!({ "a7": "dbv win W5", "d6": "dbv loss L2", "e4": "dbv win W7" })
    );
    // The stone picked up: each target's value.
    browser.click_point("a7");
    let targets = browser.script(labels);
    assert_eq!(targets["g4"], json!("dbv draw D"), "{targets}");
    assert_eq!(targets["b6"], json!("dbv win W21"), "{targets}");
    assert_eq!(targets["g7"], json!("dbv loss L4"), "{targets}");
    // No label hides another (f4's and g4's among them).
    let overlaps = "const boxes = [...document.querySelectorAll('#board text.dbv')].map((t) => t.getBBox());
        return boxes.some((a, i) => boxes.some((b, j) => i < j && a.x < b.x + b.width && b.x < a.x + a.width
          && a.y < b.y + b.height && b.y < a.y + a.height));";
    assert!(
        targets.get("f4").is_some() && targets.get("g4").is_some(),
        "{targets}"
    );
    assert_eq!(browser.script(overlaps), json!(false));
    // Beside the board, every move best first.
    let list = browser.script("return document.getElementById('valueList').textContent;");
    assert!(
        list.as_str()
            .is_some_and(|l| l.starts_with("Best first: a7-") && l.contains("a7-b6\u{a0}W21")),
        "{list}"
    );
    // A mill closed: each stone that may be removed, by the value of its
    // removal.
    browser.set_up("WW./.../.../....../.../.../B.B w 1 1 0 3");
    browser.click_point("g7");
    browser.wait_for("return pending !== null;");
    let removals = browser.script(labels);
    let removals = removals.as_object().unwrap();
    let points: Vec<&str> = removals.keys().map(String::as_str).collect();
    assert_eq!(points, ["a1", "g1"], "{removals:?}");
    browser.script("cancelPending();");
    // From the first placements on: every empty point's outcome, no distance.
    let placing = "W../.../.../....../.../.../..B w 2 2 0 2";
    browser.set_up(placing);
    let exact = browser.script("return document.getElementById('exact').textContent;");
    let outcome = exact
        .as_str()
        .unwrap()
        .rsplit(", ")
        .next()
        .unwrap()
        .to_owned();
    assert!(
        ["win", "draw", "loss"].contains(&outcome.as_str()),
        "{exact}"
    );
    let labels = browser.script(labels);
    let labels = labels.as_object().unwrap();
    assert_eq!(labels.len(), 22, "{labels:?}");
    for label in labels.values() {
        let label = label.as_str().unwrap();
        assert!(
            ["dbv win W", "dbv draw D", "dbv loss L"].contains(&label),
            "{label}"
        );
    }
    browser.close();
}

#[test]
fn the_smaller_defects_of_the_board_are_mended() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    let text = |id: &str| {
        browser.script(&format!(
            "return document.getElementById('{id}').textContent;"
        ))
    };
    // The engine is named before its first move.
    browser
        .wait_for("return document.getElementById('engineinfo').textContent.startsWith('morris');");
    // Two lines of moves: no scrollbar, and each number on its moves' row.
    browser.play_to_the_mill();
    let fits =
        "const m = document.getElementById('moves'); return m.scrollHeight <= m.clientHeight;";
    assert_eq!(browser.script(fits), json!(true));
    let rows = "const m = document.getElementById('moves');
        const tops = [...m.children].map((c) => c.getBoundingClientRect().top);
        return [...new Set(tops)].length;";
    assert_eq!(browser.script(rows), json!(2), "two rows of three");
    // An error goes with the next click.
    browser.script(
        "document.getElementById('paste').value = 'nonsense'; document.getElementById('setup').click();",
    );
    browser.wait_for(
        "return document.getElementById('messageText').textContent.includes('nonsense');",
    );
    browser.click_point("g7");
    browser.wait_for("return S.history.length === 5;");
    assert_eq!(text("messageText"), json!(""));
    // A set-up with Black to move: the list numbers on from the position.
    browser.script(
        "document.getElementById('paste').value = S.fen; document.getElementById('setup').click();",
    );
    browser.wait_for("return S.history.length === 0 && S.start.fullmove === 3;");
    browser.play(&["g4"], 1);
    let listed = text("moves");
    assert_eq!(
        listed
            .as_str()
            .map(|t| t.split_whitespace().collect::<Vec<_>>()),
        Some(vec!["3.", "…", "g4"])
    );
    // Copying says so.
    browser.script("document.getElementById('copyFen').click();");
    browser.wait_for("return document.getElementById('copyFen').textContent === 'Copied ✓';");
    // Another variant in the middle of a game asks first.
    browser.choose("variant", "lasker");
    browser.wait_for("return !document.getElementById('ask').hidden;");
    browser.script("document.getElementById('askNo').click();");
    assert_eq!(
        browser.script(
            "return [S.variant, S.history.length, document.getElementById('variant').value];"
        ),
        json!(["nine", 1, "nine"])
    );
    browser.choose("variant", "lasker");
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.variant === 'lasker' && S.history.length === 0;");
    // Lasker: a stone picked up, then an empty point out of its reach.
    browser.play(&["d7"], 1);
    browser.play(&["g7"], 2);
    browser.play(&["a1"], 3);
    browser.play(&["g7", "g4"], 4);
    browser.click_point("d7");
    // The last move left g7, which d7 may move to: its target dot is on
    // top of the last move's mark.
    let top_at_g7 = "const svg = document.getElementById('board'), point = svg.createSVGPoint();
        [point.x, point.y] = xy('g7');
        const at = point.matrixTransform(svg.getScreenCTM());
        const under = document.elementsFromPoint(at.x, at.y)
          .filter((e) => e.tagName === 'circle' && !e.classList.contains('hit'));
        return under.map((e) => e.getAttribute('class'));";
    let stack = browser.script(top_at_g7);
    assert_eq!(stack[0], json!("target"), "{stack}");
    assert!(
        stack.as_array().unwrap().contains(&json!("lastfrom")),
        "{stack}"
    );
    // d7 cannot reach c3: the stone is put back, and says so; the next
    // click on c3 places a stone there.
    browser.click_point("c3");
    let told = browser.script("return document.getElementById('messageText').textContent;");
    assert!(
        told.as_str().is_some_and(|t| t.contains("cannot reach c3")),
        "{told}"
    );
    assert_eq!(
        browser.script("return [S.history.length, sel];"),
        json!([4, null])
    );
    browser.play(&["c3"], 5);
    assert_eq!(
        browser.script("return S.history[4].move.text;"),
        json!("c3")
    );
    browser.close();
}

#[test]
fn a_game_against_easy_is_played_to_its_end_and_counted() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play_white_against_easy();
    browser.script("document.getElementById('new').click();");
    browser.wait_for("return S.history.length === 0 && S.engine.thinking === null;");
    // White plays the first legal move each turn, by clicks.
    let mut turns = 0;
    loop {
        browser.wait_for(
            "return S.outcome !== null || (S.turn === 'white' && S.engine.thinking === null);",
        );
        if browser.script("return S.outcome !== null;") == json!(true) {
            break;
        }
        assert_eq!(
            browser.script("return document.getElementById('status').textContent;"),
            json!("Your move")
        );
        let mv = browser.script("return S.legal[0];");
        let plies = browser.script("return S.history.length;").as_u64().unwrap() as usize;
        let points: Vec<&str> = ["from", "to", "remove"]
            .into_iter()
            .filter_map(|k| mv[k].as_str())
            .collect();
        for point in &points {
            browser.click_point(point);
        }
        browser.wait_for(&format!("return S.history.length > {plies};"));
        turns += 1;
        assert!(turns < 400, "the game should have ended");
    }
    // The result on the board, counted against Easy.
    browser.wait_for("return !document.getElementById('result').hidden;");
    let head = browser.script("return document.getElementById('resultHead').textContent;");
    let winner = browser.script("return S.winner;");
    let expected = match winner.as_str() {
        None => "A draw",
        Some("white") => "You won",
        Some(_) => "You lost",
    };
    assert_eq!(head, json!(expected));
    let record = browser.script("return document.getElementById('record').textContent;");
    let counted = match expected {
        "A draw" => "Against Easy: 0 wins, 1 draw, 0 losses",
        "You won" => "Against Easy: 1 win, 0 draws, 0 losses",
        _ => "Against Easy: 0 wins, 0 draws, 1 loss",
    };
    assert_eq!(record, json!(counted), "after {turns} turns");
    // Play again: a new game, the record kept, and reset on request.
    browser.script("document.getElementById('again').click();");
    browser.wait_for("return S.history.length === 0 && S.outcome === null;");
    assert_eq!(
        browser.script("return document.getElementById('result').hidden;"),
        json!(true)
    );
    browser.reload();
    browser.wait_for("return S !== null && S.settings.level === 'easy';");
    assert_eq!(
        browser.script("return document.getElementById('record').textContent;"),
        json!(counted)
    );
    browser.script("document.getElementById('resetRecord').click();");
    assert_eq!(
        browser.script("return document.getElementById('record').textContent;"),
        json!("Against Easy: 0 wins, 0 draws, 0 losses")
    );
    // Two games that go alike count twice; one from a position set up
    // counts not at all.
    let resign = || {
        browser.wait_for("return S.outcome === null && S.engine.thinking === null;");
        browser.script("document.getElementById('resign').click();");
        browser.wait_for("return !document.getElementById('ask').hidden;");
        browser.script("document.getElementById('askYes').click();");
        browser.wait_for("return S.outcome !== null;");
    };
    let two_losses = json!("Against Easy: 0 wins, 0 draws, 2 losses");
    resign();
    browser.script("document.getElementById('again').click();");
    resign();
    let record = "return document.getElementById('record').textContent;";
    assert_eq!(browser.script(record), two_losses);
    browser.set_up(WIN_IN_FIVE);
    resign();
    assert_eq!(browser.script(record), two_losses);
    // Nor a game from moves pasted, though it starts at the start.
    browser.script(
        "document.getElementById('paste').value = 'a1 b2'; document.getElementById('setup').click();",
    );
    browser.wait_for("return S.history.length === 2 && S.setUp;");
    resign();
    assert_eq!(browser.script(record), two_losses);
    // Nor a training game, though training is switched off once it is over.
    browser.script("document.getElementById('trainingOn').click();");
    browser.wait_for("return S.settings.training === true;");
    browser.script("document.getElementById('new').click();");
    browser.wait_for("return S.history.length === 0 && !S.setUp && S.outcome === null;");
    resign();
    browser.script("document.getElementById('trainingOn').click();");
    browser.wait_for("return S.settings.training === false;");
    assert_eq!(browser.script(record), two_losses);
    browser.close();
}

#[test]
fn a_refusal_is_seen_however_far_a_phone_has_scrolled() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.resize(390, 844);
    // The paste box is a few screens below the board on a phone.
    browser.script(
        "const box = document.getElementById('paste'); box.scrollIntoView(); box.value = 'xyz'; \
         document.getElementById('setup').click();",
    );
    browser.wait_for("return document.getElementById('messageText').textContent.includes('xyz');");
    let seen = "const r = document.getElementById('message').getBoundingClientRect(); \
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;";
    assert_eq!(browser.script(seen), json!(true));
    // A good one shows the board it set up.
    browser.set_up(WIN_IN_FIVE);
    browser.wait_for("return S.history.length === 0 && S.start.fen.startsWith('W');");
    browser.wait_for(
        "const r = document.getElementById('board').getBoundingClientRect(); \
         return r.bottom > 0 && r.top < window.innerHeight;",
    );
    browser.close();
}

#[test]
fn undo_redo_and_a_reload_keep_the_game() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play(&["a1"], 1);
    browser.play(&["b2"], 2);
    browser.play(&["a4"], 3);
    // Ctrl+Z takes a move back, Ctrl+Y plays it again.
    browser.ctrl("z");
    browser.wait_for("return S.history.length === 2 && S.canRedo;");
    browser.ctrl("z");
    browser.wait_for("return S.history.length === 1;");
    browser.ctrl("y");
    browser.wait_for("return S.history.length === 2;");
    browser.script("document.getElementById('redo').click();");
    browser.wait_for("return S.history.length === 3 && !S.canRedo;");
    assert_eq!(
        browser.script("return S.history[2].move.text;"),
        json!("a4")
    );
    // Playing Black: the board is turned, Black's stones at the bottom.
    browser.choose("color", "black");
    browser.wait_for("return S.settings.engine === 'white' && S.history.length === 3;");
    assert_eq!(
        browser.script("return xy('a1')[1] < xy('a7')[1];"),
        json!(true)
    );
    let bottom = browser.script("return document.getElementById('handBottom').textContent;");
    assert!(bottom.as_str().unwrap().starts_with("black"), "{bottom}");
    // The page closed and opened again: the same game, the same side.
    let moves = browser.script("return S.history.map((h) => h.move.text);");
    let old = browser.script("return S.id;");
    browser.reload();
    browser.wait_for("return S !== null && S.history.length === 3;");
    assert_ne!(
        browser.script("return S.id;"),
        old,
        "a new game on the server"
    );
    assert_eq!(
        browser.script("return S.history.map((h) => h.move.text);"),
        moves
    );
    assert_eq!(
        browser.script("return [S.settings.engine, document.getElementById('color').value];"),
        json!(["white", "black"])
    );
    browser.close();
}

#[test]
fn a_clock_running_out_and_a_draw_agreed_end_the_game_on_the_board() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    // A draw offered at one board: the other player accepts.
    browser.play(&["a1"], 1);
    browser.script("document.getElementById('offerDraw').click();");
    browser.wait_for("return !document.getElementById('ask').hidden;");
    let asked = browser.script("return document.getElementById('askText').textContent;");
    assert_eq!(asked, json!("Black offers a draw."));
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.outcome === 'draw (agreed)';");
    browser.wait_for("return !document.getElementById('result').hidden;");
    assert_eq!(
        browser.script("return document.getElementById('resultHead').textContent;"),
        json!("A draw")
    );
    // The game over is not taken back; the result steps aside for the
    // board.
    assert_eq!(
        browser.script("return document.getElementById('undo').disabled;"),
        json!(true)
    );
    browser.script("document.getElementById('resultClose').click();");
    assert_eq!(
        browser.script("return document.getElementById('result').hidden;"),
        json!(true)
    );
    // A clock of a second for the game: White's runs out.
    browser.script(
        "const o = document.createElement('option'); o.value = 'game:1'; o.textContent = 'a second';
         document.getElementById('clock').appendChild(o);",
    );
    browser.choose("clock", "game:1");
    browser.wait_for("return S.clock !== null && S.outcome === null;");
    assert!(
        browser
            .script("return document.getElementById('clockBottom').className;")
            .as_str()
            .unwrap()
            .contains("running")
    );
    browser.wait_for("return S.outcome !== null;");
    assert_eq!(
        browser.script("return S.outcome;"),
        json!("black wins (white ran out of time)")
    );
    browser.wait_for("return document.getElementById('resultHead').textContent === 'Black wins';");
    assert_eq!(
        browser.script("return document.getElementById('clockBottom').textContent;"),
        json!("0.0")
    );
    browser.close();
}

#[test]
fn two_browsers_play_each_other_in_a_room() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let host = Browser::open(&driver, server.addr);
    host.choose("color", "white");
    host.wait_for("return S.settings.engine === 'black';");
    // Twelve stones a side and a game clock: the widest hands.
    host.choose("variant", "twelve");
    host.wait_for("return S.variant === 'twelve';");
    host.choose("clock", "game:300");
    host.wait_for("return S.clock !== null;");
    host.script("document.getElementById('createRoom').click();");
    host.wait_for("return S !== null && S.room !== null && S.room !== undefined;");
    let code = host.script("return document.getElementById('roomCode').textContent;");
    let code = code.as_str().expect("a code").to_owned();
    assert_eq!(code.len(), 6);
    // Alone in the room: the game waits, and a click plays nothing.
    assert_eq!(
        host.script("return document.getElementById('status').textContent;"),
        json!("Waiting for your friend to join")
    );
    host.click_point("a1");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(host.script("return S.history.length;"), json!(0));
    assert!(
        host.script("return document.getElementById('hint').offsetParent === null;") == json!(true),
        "no engine's help in a room"
    );
    // The friend, in a browser of their own, types the code.
    let guest = Browser::open(&driver, server.addr);
    guest.script(&format!(
        "document.getElementById('code').value = '{}'; document.getElementById('join').click();",
        code.to_lowercase()
    ));
    guest.wait_for("return S.room && S.room.you === 'black';");
    host.wait_for("return S.room.opponent === 'here';");
    assert_eq!(
        guest.script(
            "return [document.getElementById('status').textContent, xy('a1')[1] < xy('a7')[1]];"
        ),
        json!(["Your friend is thinking", true]),
        "Black's board is turned"
    );
    // On a phone the status is read whole, not cut to fit the header.
    let whole = "const s = document.getElementById('status'); \
        return s.scrollWidth <= s.clientWidth && s.scrollHeight <= s.clientHeight;";
    guest.screenshot(390, 844, "morris-web-room-phone.png");
    assert_eq!(guest.script(whole), json!(true));
    // Its hands, twelve stones and a clock, are one line each, nothing
    // cut: the board does not move as stones leave them.
    assert_eq!(
        guest.script(
            "return ['handTop', 'handBottom'].map((id) => { const h = document.getElementById(id); \
             return h.parentElement.getBoundingClientRect().height < 36 && h.scrollWidth <= h.clientWidth; });"
        ),
        json!([true, true])
    );
    // Each sees the other's move at once.
    host.play(&["a1"], 1);
    guest.wait_for("return S.history.length === 1;");
    assert_eq!(
        guest.script("return document.getElementById('status').textContent;"),
        json!("Your move")
    );
    guest.play(&["b2"], 2);
    host.wait_for("return S.history.length === 2;");
    // Clicks out of turn do nothing.
    guest.click_point("g7");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(guest.script("return S.history.length;"), json!(2));
    // The page opened again sits down at the same seat.
    host.reload();
    host.wait_for("return S !== null && S.room && S.history.length === 2;");
    assert_eq!(host.script("return S.room.you;"), json!("white"));
    // A third browser is refused, by the code typed or by the link, and
    // a link to no room says so: each goes on with a game of its own.
    let third = Browser::open(&driver, server.addr);
    third.script(&format!(
        "document.getElementById('code').value = '{code}'; document.getElementById('join').click();"
    ));
    third.wait_for("return document.getElementById('messageText').textContent.includes('full');");
    assert_eq!(third.script("return S.room;"), Value::Null);
    for (link, words) in [
        (code.as_str(), "full"),
        ("QQQQQQ", "no room has the code QQQQQQ"),
    ] {
        third.visit(&format!("#room={link}"));
        third.wait_for(&format!(
            "return S !== null && document.getElementById('messageText').textContent.includes('{words}');"
        ));
        assert_eq!(
            third.script("return [S.room, location.hash, document.querySelectorAll('#board circle.hit').length];"),
            json!([null, "", 24])
        );
    }
    third.close();
    // Resigning ends it on both boards; the next game changes sides.
    host.script("document.getElementById('resign').click();");
    host.wait_for("return !document.getElementById('ask').hidden;");
    host.script("document.getElementById('askYes').click();");
    guest.wait_for("return document.getElementById('resultHead').textContent === 'You won';");
    assert_eq!(guest.script(whole), json!(true), "the result's status cut");
    guest.script("document.getElementById('again').click();");
    host.wait_for("return S.history.length === 0 && S.room.you === 'black';");
    // The guest leaves: the seat is free, and the host waits for it.
    guest.script("document.getElementById('leave').click();");
    host.wait_for("return S.room.opponent === 'waiting';");
    guest.wait_for("return S !== null && !S.room;");
    // The room's link, opened in the tab where the page already is.
    guest.follow(&format!("#room={code}"));
    guest.wait_for("return S !== null && S.room && S.room.you === 'white';");
    guest.close();
    host.close();
}

#[test]
fn the_board_shows_mills_coordinates_moves_and_the_chances() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    let coordinates = "return [...document.querySelectorAll('#board text.coord')]
        .map((t) => t.textContent + '@' + t.getAttribute('x') + ',' + t.getAttribute('y'));";
    let upright = browser.script(coordinates);
    assert_eq!(upright.as_array().map(Vec::len), Some(14), "{upright}");
    assert!(
        upright.as_array().unwrap().contains(&json!("a@50,724")),
        "{upright}"
    );
    // Sounds are made in the page: a stand-in for the browser's audio
    // counts the tones of each move.
    browser.script(
        "window.tones = [];
         const param = { value: 0, setValueAtTime() {}, exponentialRampToValueAtTime() {} };
         audio = { currentTime: 0, destination: {},
           createGain: () => ({ gain: param, connect: (d) => d }),
           createOscillator: () => ({ frequency: param, connect: (g) => g,
             start() { tones.push(this.frequency.value); }, stop() {} }) };",
    );
    // A mill just closed is drawn along its line.
    browser.play_to_the_mill();
    assert_eq!(
        browser.script("return tones.length;"),
        json!(4),
        "a tone a placement"
    );
    browser.click_point("a7");
    browser.wait_for("return document.querySelectorAll('#board line.millline').length === 1;");
    browser.play(&["b2"], 5);
    assert_eq!(
        browser.script("return document.querySelectorAll('#board line.millline').length;"),
        json!(1),
        "still shown after the removal"
    );
    assert_eq!(
        browser.script("return tones.length;"),
        json!(6),
        "and one for the removal"
    );
    browser.script("document.getElementById('soundOn').click();");
    browser.play(&["g7"], 6);
    assert_eq!(
        browser.script("return document.querySelectorAll('#board line.millline').length;"),
        json!(0),
        "gone with the next move"
    );
    assert_eq!(
        browser.script("return tones.length;"),
        json!(6),
        "the sound switched off"
    );
    // Against the engine, playing Black: its move arrives animated, the
    // letters turn with the board, and the bar gives the chances (at full
    // strength: a weakened engine's score is no judgement).
    browser.choose("level", "full");
    browser.wait_for("return S.settings.level === 'full';");
    browser.choose("movetime", "100");
    browser.wait_for("return S.settings.movetime === 100;");
    // The glide is over (and the board redrawn) within a quarter of a
    // second: the stones that arrived are noted as they are drawn.
    browser.script(
        "window.arrivals = [];
         new MutationObserver((changes) => { for (const change of changes) {
           const stone = change.target;
           if (stone.classList && stone.classList.contains('arriving')) arrivals.push(stone.dataset.point);
         } }).observe(document.getElementById('board'),
           { subtree: true, attributes: true, attributeFilter: ['class'] });",
    );
    browser.choose("color", "black");
    browser.wait_for("return S.history.length === 7 && S.engine.thinking === null;");
    let turned = browser.script(coordinates);
    assert!(
        turned.as_array().unwrap().contains(&json!("g@50,724")),
        "{turned}"
    );
    let arrived = browser.script("return S.history[6].move.to;");
    browser.wait_for(&format!("return arrivals.includes({arrived});"));
    browser.wait_for("return !document.getElementById('evalbox').hidden;");
    let words = browser.script("return document.getElementById('evalwords').textContent;");
    assert!(
        words
            .as_str()
            .unwrap()
            .starts_with("The engine's judgement: you win "),
        "{words}"
    );
    // Help: the rules of the three variants, closed with Esc.
    browser.script("document.getElementById('helpBtn').click();");
    let help = browser.script("return document.getElementById('help').innerText;");
    for variant in ["Nine Men's Morris", "Twelve Men's Morris", "Lasker Morris"] {
        assert!(help.as_str().unwrap().contains(variant), "{variant}");
    }
    browser.script(
        "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));",
    );
    assert_eq!(
        browser.script("return document.getElementById('help').hidden;"),
        json!(true)
    );
    // Preferences are kept: coordinates off stays off after a reload.
    browser.script("document.getElementById('coordsOn').click();");
    assert_eq!(
        browser.script("return document.querySelectorAll('#board text.coord').length;"),
        json!(0)
    );
    browser.reload();
    browser.wait_for("return S !== null;");
    assert_eq!(
        browser.script("return [document.getElementById('coordsOn').checked, document.querySelectorAll('#board text.coord').length];"),
        json!([false, 0])
    );
    browser.close();
}

#[test]
fn a_review_marks_a_planted_move_that_threw_the_win_away() {
    let Some(driver) = driver() else { return };
    let (db, _dir) = small_databases_with_placing("browser-review");
    let server = serve(morris(), Some(db));
    let browser = Browser::open(&driver, server.addr);
    browser.set_up(WIN_IN_FIVE);
    // The exact bar: White, to move, wins.
    assert_eq!(
        browser.script("return document.getElementById('evalwords').textContent;"),
        json!("Exact (the databases): white wins with best play")
    );
    // a7-g4 throws the win away: a draw.
    browser.click_point("a7");
    browser.play(&["g4"], 1);
    browser.script("document.getElementById('reviewBtn').click();");
    browser
        .wait_for("return S.review !== null && S.review !== undefined && S.review.toCome === 0;");
    let number = browser.script("return S.start.fullmove;");
    let marks = browser
        .script("return [...document.querySelectorAll('#marks li')].map((l) => l.textContent);");
    let marks = marks.as_array().unwrap();
    assert_eq!(marks.len(), 1, "{marks:?}");
    // Each mark carries its move's number, and the list adds none.
    assert_eq!(
        browser.script("return getComputedStyle(document.getElementById('marks')).listStyleType;"),
        json!("none")
    );
    let mark = marks[0].as_str().unwrap();
    assert!(
        mark.starts_with(&format!(
            "{number}. a7-g4 (white): a win thrown away: a draw now; best "
        )) && mark.ends_with(" · exact"),
        "{mark}"
    );
    // A win let go to a draw is marked "?", as training marks it ("??" is
    // a move to a loss).
    assert_eq!(
        browser.script("return document.querySelector('#moves span.blunder').textContent;"),
        json!("a7-g4?")
    );
    assert_eq!(
        browser.script("return document.querySelectorAll('#graph circle.exactdot').length;"),
        json!(2)
    );
    assert_eq!(
        browser.script("return document.getElementById('reviewWords').textContent;"),
        json!("Exact throughout: the databases.")
    );
    // A mark steps to the position after its move (here the game's).
    browser.script("document.querySelector('#marks li').click();");
    assert_eq!(
        browser.script("return viewPly;"),
        json!(Value::Null),
        "the last move is the game"
    );
    browser.script("document.getElementById('first').click();");
    assert_eq!(browser.script("return viewPly;"), json!(0));
    browser.close();
}

#[test]
fn a_quick_second_tap_waits_for_the_move_on_its_way() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play_white_against_easy();
    browser.count_moves_sent();
    // d6, then a1 at once, before the server has answered the first.
    browser.script("tap('d6'); tap('a1');");
    browser.wait_for("return S.history.length === 2 && S.engine.thinking === null;");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        browser.script("return [window.movesSent, S.history.length, S.history[0].move.text];"),
        json!([1, 2, "d6"])
    );
    // Once the reply is seen, the board takes the next move.
    // (the engine at Easy replies at once: two plies more).
    let next = browser.script("return S.legal[0].to;");
    browser.click_point(next.as_str().expect("a point"));
    browser.wait_for("return S.history.length === 4 && S.engine.thinking === null;");
    assert_eq!(browser.script("return window.movesSent;"), json!(2));
    browser.close();
}

#[test]
fn a_tap_before_the_reply_is_seen_is_not_played_and_the_board_says_why() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    // At full strength the engine thinks its whole time (Easy may answer
    // before the page sees it think).
    browser.choose("movetime", "300");
    browser.choose("level", "full");
    browser.choose("color", "white");
    browser.wait_for("return S.settings.engine === 'black' && S.settings.level === 'full' && S.settings.movetime === 300;");
    browser.count_moves_sent();
    // A tap while the engine thinks, and one 30 ms after its reply
    // appears (aimed at the board before it), each with the words the
    // board then shows.
    browser.script(
        "window.tapped = null;
         const watch = setInterval(() => {
           if (S.history.length === 1 && S.engine.thinking && window.thinking === undefined) {
             tap('a1');
             window.thinking = note;
           }
           if (S.history.length === 2) {
             clearInterval(watch);
             setTimeout(() => {
               window.tapped = S.legal[0].to;
               tap(window.tapped);
               window.arriving = note;
             }, 30);
           }
         }, 1);",
    );
    browser.click_point("d6");
    browser.wait_for("return window.tapped !== null;");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        browser.script(
            "return [window.movesSent, S.history.length, window.thinking, window.arriving];"
        ),
        json!([
            1,
            2,
            "the engine is thinking: your move comes after its reply",
            "the reply is still arriving: play once it is on the board"
        ])
    );
    // Once the reply is seen, the same tap plays, and the words are gone.
    assert_eq!(browser.script("return note;"), Value::Null);
    let tapped = browser.script("return window.tapped;");
    browser.click_point(tapped.as_str().expect("a point"));
    browser.wait_for("return S.history.length === 4 && S.engine.thinking === null;");
    assert_eq!(browser.script("return window.movesSent;"), json!(2));
    browser.close();
}

#[test]
fn the_rated_games_choices_are_kept_across_a_reload() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    let chosen = [
        ("ratedClock", "game:300"),
        ("ratedColor", "black"),
        ("ratedRange", "200"),
    ];
    for (id, value) in chosen {
        browser.choose(id, value);
    }
    browser.reload();
    browser.wait_for("return S !== null;");
    for (id, value) in chosen {
        assert_eq!(
            browser.script(&format!("return document.getElementById('{id}').value;")),
            json!(value),
            "{id}"
        );
    }
    browser.close();
}

#[test]
fn a_board_whose_server_is_gone_says_so_and_takes_no_move() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-server-gone");
    let mut server = WebProcess::start(&folder.path().join("players.sqlite"), &[]);
    let browser = Browser::open(&driver, server.addr);
    browser.wait_for(
        "return document.getElementById('status').textContent === 'White to move'
             && document.querySelectorAll('circle.target').length === 24;",
    );
    // Killed, as a crash would: its connections close.
    server.kill();
    browser.wait_for(
        "return document.getElementById('status').textContent === 'Connection lost: reconnecting…'
             && document.querySelectorAll('circle.target').length === 0;",
    );
    browser.close();
}

#[test]
fn at_desktop_size_the_notices_leave_the_side_in_reach() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.resize(1280, 800);
    // A long word at the foot of the screen, and Sign in brought to the
    // foot of the window beside it.
    browser.script(&format!("showMessage('{}');", "a word ".repeat(40)));
    browser.wait_for("return !document.getElementById('message').hidden;");
    let reached = browser.script(
        "const button = document.getElementById('signIn');
         button.scrollIntoView({ block: 'end', behavior: 'instant' });
         const r = button.getBoundingClientRect();
         return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === button;",
    );
    assert_eq!(reached, json!(true), "Sign in is not under the notices");
    browser.close();
}

#[test]
fn a_refusal_can_be_closed_and_leaves_the_button_that_raised_it_in_view() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    let long = "x".repeat(11_500);
    for (width, height) in [(1100, 850), (390, 844)] {
        browser.resize(width, height);
        // The Set up button at the foot of the screen, clicked there.
        browser.script(&format!(
            "document.getElementById('paste').value = '{long}';
             const button = document.getElementById('setup');
             button.scrollIntoView({{ block: 'end' }});
             button.click();"
        ));
        browser.wait_for("return document.getElementById('messageText').textContent.length > 0;");
        let quoted =
            browser.script("return document.getElementById('messageText').textContent.length;");
        assert!(
            quoted.as_u64().is_some_and(|n| n < 300),
            "{quoted} characters at {width}"
        );
        let button_seen = "const b = document.getElementById('setup').getBoundingClientRect();
            return document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2) === document.getElementById('setup');";
        assert_eq!(browser.script(button_seen), json!(true), "at {width}");
        browser.script("document.getElementById('messageClose').click();");
        assert_eq!(
            browser.script("return document.getElementById('message').hidden;"),
            json!(true),
            "at {width}"
        );
        // The same refusal again is shown again.
        browser.script("document.getElementById('setup').click();");
        browser.wait_for("return !document.getElementById('message').hidden;");
        browser.script("document.getElementById('messageClose').click();");
    }
    browser.close();
}

#[test]
fn leaving_a_game_or_changing_the_level_does_not_dodge_the_record() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.play_white_against_easy();
    let record = "return document.getElementById('record').textContent;";
    // d6 and the engine's reply (at Easy it comes at once).
    let replied = "return S.history.length === 2 && S.engine.thinking === null;";
    let asked = "return !document.getElementById('ask').hidden;";
    // Before the person's first move a new game costs nothing.
    browser.script("document.getElementById('new').click();");
    browser.wait_for("return S.history.length === 0 && S.engine.thinking === null;");
    assert_eq!(browser.script(asked), json!(false));
    // Another level in mid-game plays the next game; this one goes on
    // at Easy.
    browser.click_point("d6");
    browser.wait_for(replied);
    browser.choose("level", "hard");
    browser.wait_for(
        "return document.getElementById('messageText').textContent.includes('next game');",
    );
    assert_eq!(browser.script("return S.settings.level;"), json!("easy"));
    // A new game asks first, and counts the game left as a loss.
    browser.script("document.getElementById('new').click();");
    browser.wait_for(asked);
    let question = browser.script("return document.getElementById('askText').textContent;");
    assert!(
        question
            .as_str()
            .is_some_and(|q| q.contains("counts as a loss")),
        "{question}"
    );
    browser.script("document.getElementById('askNo').click();");
    assert_eq!(browser.script("return S.history.length;"), json!(2));
    assert_eq!(
        browser.script(record),
        json!("Against Easy: 0 wins, 0 draws, 0 losses")
    );
    browser.script("document.getElementById('new').click();");
    browser.wait_for(asked);
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.history.length === 0 && S.settings.level === 'hard';");
    assert_eq!(
        browser.script(record),
        json!("Against Hard: 0 wins, 0 draws, 0 losses")
    );
    browser.choose("level", "easy");
    browser.wait_for("return S.settings.level === 'easy';");
    assert_eq!(
        browser.script(record),
        json!("Against Easy: 0 wins, 0 draws, 1 loss")
    );
    // Another variant, or the other side, in mid-game: a loss as well.
    browser.click_point("d6");
    browser.wait_for(replied);
    browser.choose("variant", "lasker");
    browser.wait_for(asked);
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.variant === 'lasker' && S.history.length === 0;");
    browser.click_point("d6");
    browser.wait_for(replied);
    browser.choose("color", "black");
    browser.wait_for(asked);
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.settings.engine === 'white';");
    assert_eq!(
        browser.script(record),
        json!("Against Easy: 0 wins, 0 draws, 3 losses")
    );
    browser.close();
}

#[test]
fn a_review_cut_short_says_what_it_judged_and_why_nothing_is_exact() {
    let Some(driver) = driver() else { return };
    // No databases: the review is the engine's alone; and this engine
    // judges no position until stopped, so the move below cuts the review
    // short whatever the machine's load.
    let stubborn = "while read line; do case $line in uci) echo uciok;; isready) echo readyok;; \
                    stop) echo 'bestmove a1';; esac; done";
    let server = serve(script(stubborn), None);
    let browser = Browser::open(&driver, server.addr);
    let points = ["a1", "b2", "a4", "b4", "g7", "f6", "g1", "f2", "d7", "e4"];
    for (ply, point) in points.into_iter().enumerate() {
        browser.play(&[point], ply + 1);
    }
    browser.script("document.getElementById('reviewBtn').click();");
    browser.wait_for("return S.engine.thinking === 'review';");
    let panel = browser.script("return document.getElementById('engineinfo').textContent;");
    assert!(
        panel
            .as_str()
            .is_some_and(|p| p.contains("reviewing") && !p.contains("depth")),
        "{panel}"
    );
    // A move stops it: most of the positions are never judged.
    browser.play(&["c3"], 11);
    browser.wait_for("return S.engine.thinking === null && S.review !== null;");
    let words = browser.script("return document.getElementById('reviewWords').textContent;");
    let words = words.as_str().expect("words");
    assert!(
        words.contains("Cut short: 0 of 11 positions judged."),
        "{words}"
    );
    assert!(!words.contains("No move changed"), "{words}");
    assert!(words.contains("no endgame databases"), "{words}");
    let exact = browser.script("return document.getElementById('exact').textContent;");
    assert!(
        exact
            .as_str()
            .is_some_and(|e| e.starts_with("No endgame databases")),
        "{exact}"
    );
    browser.close();
}

#[test]
fn a_full_server_keeps_the_players_preferences_and_says_why() {
    let Some(driver) = driver() else { return };
    let mut config = WebConfig::new(morris(), None);
    config.max_games = 1;
    let server = serve_with(config);
    let first = Browser::open(&driver, server.addr);
    let second = Browser::start(&driver, server.addr);
    second.reload();
    second.script(
        "localStorage.setItem('morris.prefs', JSON.stringify({ level: 'hard', color: 'black' }));",
    );
    second.reload();
    second
        .wait_for("return document.getElementById('conn').textContent.includes('as many games');");
    assert_eq!(
        second.script("return JSON.parse(localStorage.getItem('morris.prefs')).level;"),
        json!("hard")
    );
    let controls = "return getComputedStyle(document.querySelector('main')).pointerEvents;";
    assert_eq!(second.script(controls), json!("none"));
    // The first page goes: the second has its game, as it asked for it.
    first.script("location.href = 'about:blank';");
    second.wait_for(
        "return S !== null && S.settings.level === 'hard' && S.settings.engine === 'white';",
    );
    assert_eq!(second.script(controls), json!("auto"));
    assert_eq!(
        second.script("return document.getElementById('conn').textContent;"),
        json!("")
    );
    first.close();
    second.close();
}

#[test]
fn the_stones_that_can_move_are_marked() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.set_up(WIN_IN_FIVE);
    let marked = "return [...document.querySelectorAll('#board circle.movable')]
        .map((c) => S.points.find((p) => xy(p)[0] == c.getAttribute('cx') && xy(p)[1] == c.getAttribute('cy')))
        .sort();";
    let movable = browser
        .script("return [...new Set(S.legal.filter((m) => m.from).map((m) => m.from))].sort();");
    assert!(
        movable.as_array().is_some_and(|m| !m.is_empty()),
        "{movable}"
    );
    assert_eq!(browser.script(marked), movable);
    // A stone picked up: its targets are marked, not the others.
    browser.click_point("a7");
    assert_eq!(browser.script(marked), json!([]));
    browser.close();
}

#[test]
fn on_a_phone_the_board_stays_put_whatever_the_header_says() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    browser.resize(390, 844);
    let top =
        "return document.getElementById('board').getBoundingClientRect().top + window.scrollY;";
    let before = browser.script(top);
    for words in [
        "Your move",
        "Game over: draw (30 moves each without a removal)",
        "After a7-g4 (12 of 40 moves): black to move",
    ] {
        browser.script(&format!(
            "document.getElementById('status').textContent = '{words}';"
        ));
        assert_eq!(browser.script(top), before, "{words}");
    }
    browser.script(
        "setConn('the server has as many games open as it takes; try again later (trying again)');",
    );
    assert_eq!(browser.script(top), before);
    browser.close();
}

#[test]
fn the_rules_chosen_on_the_page_change_the_game() {
    let Some(driver) = driver() else { return };
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    let help = "return document.getElementById('help').textContent;";
    let flies = "return S.legal.some((m) => m.from && !S.lines.some(([a, b]) =>
        (a === m.from && b === m.to) || (a === m.to && b === m.from)));";
    // With flying, a side of three stones leaves the lines.
    browser.set_up(WIN_IN_FIVE);
    assert_eq!(browser.script(flies), json!(true));
    // Ten moves each without a removal: a game set up nineteen plies on
    // is drawn by the next quiet move.
    browser.choose("nmoverule", "10");
    browser.wait_for("return S.settings.nMoveRule === 10 && S.history.length === 0;");
    let said = browser.script(help);
    assert!(
        said.as_str()
            .is_some_and(|h| h.contains("after 10 moves each without a removal")),
        "{said}"
    );
    let nineteen = WIN_IN_FIVE.replace(" 0 0 0 10", " 0 0 19 10");
    browser.set_up(&nineteen);
    let quiet = browser.script("const m = S.legal.find((m) => !m.remove); return [m.from, m.to];");
    browser.click_point(quiet[0].as_str().unwrap());
    browser.click_point(quiet[1].as_str().unwrap());
    browser.wait_for("return S.outcome !== null;");
    assert_eq!(
        browser.script("return document.getElementById('resultWhy').textContent;"),
        json!("draw (10 moves each without a removal)")
    );
    // No flying: the game over, a new one begins at once, and three
    // stones slide.
    browser.script("document.getElementById('flying').click();");
    browser.wait_for("return S.settings.flying === false && S.outcome === null;");
    browser.set_up(WIN_IN_FIVE);
    assert_eq!(browser.script(flies), json!(false));
    let said = browser.script(help);
    assert!(
        said.as_str().is_some_and(|h| h.contains("No flying")),
        "{said}"
    );
    // The choices are kept for the next visit.
    browser.reload();
    browser.wait_for("return S !== null && S.settings.flying === false;");
    assert_eq!(
        browser.script(
            "return [prefs.nmoverule, prefs.flying, document.getElementById('nmoverule').value];"
        ),
        json!(["10", false, "10"])
    );
    browser.close();
}

/// The text of the verdict on the person's last move, once it shows.
fn verdict(browser: &Browser, containing: &str) -> String {
    browser.wait_for(&format!(
        "return !document.getElementById('verdict').hidden &&
            document.getElementById('verdictText').textContent.includes('{containing}');"
    ));
    let text = browser.script("return document.getElementById('verdictText').textContent;");
    text.as_str().expect("text").to_owned()
}

#[test]
fn a_training_game_marks_a_move_that_lost_the_win_and_takes_it_back() {
    let Some(driver) = driver() else { return };
    let (db, _dir) = small_databases_with_placing("browser-training");
    let server = serve(morris(), Some(db));
    let browser = Browser::open(&driver, server.addr);
    // Nothing at the foot of the screen until there is something to say.
    let shown = "return ['message', 'verdict', 'ask'].map((id) => getComputedStyle(document.getElementById(id)).display);";
    assert_eq!(browser.script(shown), json!(["none", "none", "none"]));
    browser.script("document.getElementById('trainingOn').click();");
    browser.wait_for("return S.settings.training === true;");
    browser.set_up(WIN_IN_FIVE);
    let values = browser.script("return S.exact.moves;");
    // a7-g7 loses the win: marked ??, with the moves that kept it.
    browser.click_point("a7");
    browser.play(&["g7"], 1);
    let said = verdict(&browser, "a7-g7??");
    assert!(said.contains("a win turned into a loss"), "{said}");
    let kept = said
        .split("The moves that kept the win: ")
        .nth(1)
        .expect("the moves that kept the win");
    assert!(kept.contains("a7-b6") && !kept.contains("a7-g4"), "{said}");
    // Best first: the quickest wins.
    let distances: Vec<u64> = kept
        .trim_end_matches('.')
        .split(", ")
        .map(|mv| values[mv]["distance"].as_u64().expect("a win's plies"))
        .collect();
    assert!(distances.is_sorted(), "{said}: {distances:?}");
    assert_eq!(
        browser.script("return document.querySelector('#moves span.trained').textContent;"),
        json!("a7-g7??")
    );
    // A question asked with the verdict shown: the page makes room for
    // both beneath it.
    browser.choose("nmoverule", "20");
    browser.wait_for("return !document.getElementById('ask').hidden;");
    assert_eq!(
        browser.script("return parseFloat(document.body.style.paddingBottom) >= document.getElementById('notices').offsetHeight;"),
        json!(true)
    );
    browser.script("document.getElementById('askNo').click();");
    // Taken back, and a move that keeps the win instead.
    browser.script("document.getElementById('takeBack').click();");
    browser.wait_for("return S.history.length === 0 && document.getElementById('verdict').hidden;");
    browser.click_point("a7");
    browser.play(&["b6"], 1);
    assert_eq!(verdict(&browser, "a7-b6"), "a7-b6: keeps the win.");
    // A move that kept the value offers no take back (Ctrl+Z still
    // does); a win let go to a draw is marked ?.
    assert_eq!(
        browser.script("return document.getElementById('takeBack').hidden;"),
        json!(true)
    );
    browser.ctrl("z");
    browser.wait_for("return S.history.length === 0;");
    browser.click_point("a7");
    browser.play(&["g4"], 1);
    let said = verdict(&browser, "a7-g4?:");
    assert!(said.contains("a win thrown away: a draw now"), "{said}");
    browser.close();
}

#[test]
fn a_puzzle_solved_is_remembered_and_one_failed_shows_its_answer() {
    let Some(driver) = driver() else { return };
    // No databases: the puzzles carry their answers; training says it
    // judges nothing.
    let server = serve(morris(), None);
    let browser = Browser::open(&driver, server.addr);
    // The clicks that play the puzzle's move, or another.
    let click = |mv: &Value| {
        for key in ["from", "to", "remove"] {
            if let Some(point) = mv[key].as_str() {
                browser.click_point(point);
            }
        }
    };
    browser.choose("puzzleGrade", "2");
    browser.script("document.getElementById('puzzleBtn').click();");
    browser.wait_for("return puzzleOn() && S.history.length === 0;");
    let status = browser.script("return document.getElementById('status').textContent;");
    assert!(
        status
            .as_str()
            .is_some_and(|s| s.contains("one move alone keeps the")),
        "{status}"
    );
    let depth = browser.script("return puzzle.depth;").as_u64().unwrap();
    assert!((2..=4).contains(&depth), "depth {depth}");
    // Nothing gives the answer away: no values, no hint; and the board is
    // seen from the side to move.
    browser.script("document.getElementById('valuesOn').click();");
    assert_eq!(
        browser.script("return [document.querySelectorAll('#board text.dbv').length, document.getElementById('valueList').hidden, document.getElementById('hint').disabled];"),
        json!([0, true, true])
    );
    assert_eq!(
        browser.script("return turned() === (S.turn === 'black');"),
        json!(true)
    );
    let solution = browser.script("return S.legal.find((m) => m.text === puzzle.solution);");
    click(&solution);
    let said = verdict(&browser, "Solved");
    assert!(said.contains("plies deep"), "{said}");
    let fen = browser.script("return puzzle.fen;");
    assert_eq!(
        browser.script(&format!("return puzzleRecord()[{fen}];")),
        json!("solved")
    );
    let score = browser.script("return document.getElementById('puzzleScore').textContent;");
    assert!(
        score.as_str().is_some_and(|s| s.starts_with("1 of ")),
        "{score}"
    );
    // The next: a wrong move, then the answer.
    browser.script("document.getElementById('nextPuzzle').click();");
    browser.wait_for(&format!(
        "return puzzleOn() && puzzle.fen !== {fen} && S.history.length === 0;"
    ));
    let wrong = browser.script("return S.legal.find((m) => m.text !== puzzle.solution);");
    click(&wrong);
    verdict(&browser, "Not this one");
    browser.script("document.getElementById('showAnswer').click();");
    let solution = browser.script("return puzzle.solution;");
    let said = verdict(&browser, "The answer");
    assert!(
        said.ends_with(&format!("The answer: {}.", solution.as_str().unwrap())),
        "{said}"
    );
    assert_eq!(
        browser.script("return puzzleRecord()[puzzle.fen];"),
        json!("failed")
    );
    // Tried again with the answer: solved, but not counted so.
    browser.script("document.getElementById('takeBack').click();");
    browser.wait_for("return S.history.length === 0 && puzzleOn();");
    let solution = browser.script("return S.legal.find((m) => m.text === puzzle.solution);");
    click(&solution);
    let said = verdict(&browser, "Right, but not counted");
    assert!(said.contains("at the first try"), "{said}");
    assert_eq!(
        browser.script("return puzzleRecord()[puzzle.fen];"),
        json!("failed")
    );
    // A solved puzzle is remembered over a reload.
    browser.reload();
    browser.wait_for("return S !== null;");
    assert_eq!(
        browser.script(&format!("return puzzleRecord()[{fen}];")),
        json!("solved")
    );
    // Training without databases says it judges nothing.
    browser.script("document.getElementById('trainingOn').click();");
    browser.wait_for("return S.settings.training === true;");
    browser.script("document.getElementById('new').click();");
    browser.wait_for("return S.history.length === 0 && !S.setUp;");
    browser.play(&["d6"], 1);
    let said = verdict(&browser, "d6: not judged");
    assert!(
        said.contains("this server has no endgame databases"),
        "{said}"
    );
    // A puzzle is of the variant chosen: lasker has none yet, twelve its own.
    let asked = "return !document.getElementById('ask').hidden;";
    browser.choose("variant", "lasker");
    browser.wait_for(asked);
    browser.script("document.getElementById('askYes').click();");
    browser.wait_for("return S.variant === 'lasker' && S.history.length === 0;");
    browser.script("document.getElementById('puzzleBtn').click();");
    browser.wait_for(
        "return document.getElementById('messageText').textContent === 'No puzzles of lasker yet: choose another variant';",
    );
    browser.choose("variant", "twelve");
    browser.wait_for("return S.variant === 'twelve';");
    browser.script("document.getElementById('puzzleBtn').click();");
    browser.wait_for("return puzzleOn() && puzzle.variant === 'twelve' && S.variant === 'twelve';");
    browser.close();
}

/// Takes the name `name` on the page: the player is made, its token shown
/// once, and the lobby heard.
fn take_name(browser: &Browser, name: &str) {
    browser.script(&format!(
        "document.getElementById('playerName').value = '{name}';
         document.getElementById('makePlayer').click();"
    ));
    browser.wait_for(&format!(
        "return lobby !== null && lobby.me.name === '{name}' && !document.getElementById('tokenBox').hidden
             && document.getElementById('tokenText').textContent.length === 32;"
    ));
}

/// morris-web keeping its players in a file of `folder`.
fn serve_keeping_players(folder: &common::TempDir) -> common::Running {
    let store = morris_tools::web::store::Store::open(&folder.path().join("players.sqlite"))
        .expect("a store");
    serve_with(WebConfig {
        store: Some(store),
        ..WebConfig::new(morris(), None)
    })
}

/// Plays the first legal move in the browser whose turn it is, by clicks
/// (the stone, where it goes, the stone removed), and waits until both
/// see it.
fn play_first_legal(players: [&Browser; 2]) {
    let plies = players[0].script("return S.history.length;");
    let mover = players
        .into_iter()
        .find(|b| b.script("return S.turn === S.room.you;") == json!(true))
        .expect("one to move");
    let mv = mover.script("return S.legal[0];");
    for point in [&mv["from"], &mv["to"], &mv["remove"]] {
        if let Some(point) = point.as_str() {
            mover.click_point(point);
        }
    }
    let next = plies.as_u64().expect("a count") + 1;
    for browser in players {
        browser.wait_for(&format!("return S.history.length === {next};"));
    }
}

#[test]
fn two_players_sign_in_and_play_a_rated_game_from_the_lobby_to_its_end() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-rated");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    ann.script("document.getElementById('tokenKept').click();");
    let bob = Browser::open(&driver, server.addr);
    take_name(&bob, "bob");
    let shot = bob.screenshot(1100, 1400, "rated-signed-in.png");
    eprintln!("screenshot: {}", shot.display());
    // Ann offers a game as White; Bob sees it at once and takes it.
    ann.choose("ratedColor", "white");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for("return lobby.challenges.length === 1 && lobby.challenges[0].name === 'ann';");
    let shot = bob.screenshot(1100, 1400, "rated-lobby.png");
    eprintln!("screenshot: {}", shot.display());
    bob.script("document.querySelector('#challenges button').click();");
    bob.wait_for("return S.rated && S.room && S.room.you === 'black';");
    // Ann's page goes to the game by itself.
    ann.wait_for(
        "return S.rated && S.room && S.room.you === 'white' && S.rated.black.name === 'bob';",
    );
    // No help in a rated game, no room to show (its room lets nobody
    // in), and the players named, with whether the other is there.
    ann.wait_for(
        "return document.getElementById('hint').offsetParent === null
             && document.getElementById('friend').offsetParent === null
             && document.getElementById('ratedLine').textContent
                 === 'Rated game: White ann (1500), Black bob (1500) · your opponent is here';",
    );
    play_first_legal([&ann, &bob]);
    // Bob's token, in another browser, takes him to his seat.
    let token = bob.script("return player.token;");
    let elsewhere = Browser::open(&driver, server.addr);
    elsewhere.script(&format!(
        "document.getElementById('playerToken').value = {token};
         document.getElementById('signIn').click();"
    ));
    elsewhere.wait_for(
        "return S.rated && S.room && S.room.you === 'black' && S.history.length === 1
             && document.getElementById('tokenBox').hidden;",
    );
    elsewhere.close();
    for _ in 1..20 {
        play_first_legal([&ann, &bob]);
    }
    let shot = ann.screenshot(1100, 850, "rated-game.png");
    eprintln!("screenshot: {}", shot.display());
    // The players are told that values are off; a third browser that sets
    // their position up on its own board is told why it gets none.
    ann.wait_for(
        "return document.getElementById('exact').textContent
             === 'Values, hints and reviews are off while a rated game is played.';",
    );
    let fen = ann.script("return S.fen;");
    let spy = Browser::open(&driver, server.addr);
    spy.script(&format!(
        "document.getElementById('paste').value = {fen};
         document.getElementById('setup').click();"
    ));
    spy.wait_for(
        "return S.valuesOff && document.getElementById('hint').disabled
             && document.getElementById('exact').textContent.includes('a rated game in progress on this server stands on a position of this game');",
    );
    spy.close();
    // A draw offered is told by the player's name; Bob declines it.
    ann.script("document.getElementById('offerDraw').click();");
    bob.wait_for(
        "return !document.getElementById('ask').hidden
             && document.getElementById('askText').textContent === 'ann offers a draw.';",
    );
    bob.script("document.getElementById('askNo').click();");
    ann.wait_for("return !S.drawOffer && !S.outcome;");
    bob.script("document.getElementById('resign').click();");
    bob.wait_for("return !document.getElementById('ask').hidden;");
    bob.script("document.getElementById('askYes').click();");
    // Each sees both ratings (an apostrophe escaped for the script's quotes).
    for (browser, head, rating) in [
        (&ann, "You won", "1500 → 1662; bob\\'s: 1500 → 1338"),
        (&bob, "You lost", "1500 → 1338; ann\\'s: 1500 → 1662"),
    ] {
        // The ratings come once the store has the game, a moment after
        // its end.
        browser.wait_for(&format!(
            "return document.getElementById('resultHead').textContent === '{head}'
                 && document.getElementById('resultWhy').textContent
                     === 'white wins (black resigned). Your rating: {rating}.';"
        ));
        // The game's line gives the ratings it left; the only way off the
        // board is back to one's own.
        browser.wait_for(
            "return document.getElementById('ratedLine').textContent
                 === 'Rated game: White ann (1500 → 1662), Black bob (1500 → 1338)'
                 && document.getElementById('friend').offsetParent === null
                 && document.getElementById('new').textContent === 'Back to your own board';",
        );
        // The new ratings in the table and the lobby, and the game in the
        // history.
        browser.wait_for("return lobby.me.games === 1;");
        browser.wait_for(
            "return lobby.present.some((p) => p.name === 'ann' && p.rating > 1600)
                 && lobby.present.some((p) => p.name === 'bob' && p.rating < 1400);",
        );
        browser.wait_for(
            "const rows = [...document.querySelectorAll('#table li')].map((li) => li.textContent);
             return rows.length === 6 && rows.some((r) => r.startsWith('ann 16')) && rows.some((r) => r.startsWith('bob 13'));",
        );
        browser.wait_for(
            "const games = [...document.querySelectorAll('#history li')].map((li) => li.textContent);
             return games.length === 1 && games[0].startsWith('ann – bob, 1-0: white wins (black resigned)');",
        );
    }
    let shot = bob.screenshot(1100, 1400, "rated-after.png");
    eprintln!("screenshot: {}", shot.display());
    // Any name shown opens that player's page: Ann's, from the table.
    bob.script("document.querySelector('#table .name[data-name=\"ann\"]').click();");
    bob.wait_for(
        "return !document.getElementById('profile').hidden
             && document.getElementById('profileName').textContent === 'ann'
             && document.getElementById('profileRating').textContent.startsWith('Rating 1662? (provisional): between ')
             && document.getElementById('profileResults').textContent === 'As White: 1 won, 0 drawn, 0 lost. As Black: 0 won, 0 drawn, 0 lost.'
             && document.querySelector('#profileChart polyline').getAttribute('points').split(' ').length === 2
             && document.querySelector('#profileOpponents li').textContent === 'bob: 1 won, 0 drawn, 0 lost';",
    );
    let shot = bob.screenshot(1100, 850, "rated-profile.png");
    eprintln!("screenshot: {}", shot.display());
    bob.script(
        "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));",
    );
    bob.wait_for("return document.getElementById('profile').hidden;");
    // The game opens on a board of Bob's own, from his history.
    bob.script("document.querySelector('#history button').click();");
    bob.wait_for("return !S.rated && !S.room && S.history.length === 20 && S.outcome === 'white wins (black resigned)';");
    ann.close();
    bob.close();
}

#[test]
fn a_player_challenged_by_name_declines_then_takes_it_and_both_play_a_rematch() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-named");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    let bob = Browser::open(&driver, server.addr);
    take_name(&bob, "bob");
    // Ann challenges Bob by the button beside his name; he alone sees it,
    // marked as his, and declines it; she is told.
    let challenge_bob = "const bob = [...document.querySelectorAll('#present li')]
             .find((li) => li.textContent.startsWith('bob (1500)'));
         if (!bob) return false;
         bob.querySelector('button').click();
         return true;";
    ann.wait_for(challenge_bob);
    let to_bob = "const li = document.querySelector('#challenges li.tome');
         return !!li && li.textContent.startsWith('ann (1500) challenges you');";
    bob.wait_for(to_bob);
    bob.script("[...document.querySelectorAll('#challenges li.tome button')].find((b) => b.textContent === 'Decline').click();");
    ann.wait_for(
        "return document.getElementById('messageText').textContent === 'bob declined your challenge'
             && lobby.challenges.length === 0;",
    );
    // Asked again, he takes it, and resigns at once.
    ann.wait_for(challenge_bob);
    bob.wait_for(to_bob);
    bob.script("[...document.querySelectorAll('#challenges li.tome button')].find((b) => b.textContent === 'Accept').click();");
    for browser in [&ann, &bob] {
        browser.wait_for("return S.rated && S.room && S.room.opponent === 'here';");
    }
    let first = ann.script("return S.id;");
    let white = ann.script("return S.room.you;");
    bob.script("document.getElementById('resign').click();");
    bob.wait_for("return !document.getElementById('ask').hidden;");
    bob.script("document.getElementById('askYes').click();");
    // Ann offers the rematch from the result box; Bob reads it there and
    // takes it: a new game, the colours swapped.
    ann.wait_for("const b = document.getElementById('rematch'); return !b.hidden && !b.disabled;");
    ann.script("document.getElementById('rematch').click();");
    ann.wait_for(
        "return document.getElementById('rematch').textContent === 'Rematch offered: waiting for the answer';",
    );
    bob.wait_for(
        "return document.getElementById('rematch').textContent === \"Accept ann's rematch\"
             && !document.getElementById('rematchDecline').hidden;",
    );
    let shot = bob.screenshot(1100, 850, "rated-rematch.png");
    eprintln!("screenshot: {}", shot.display());
    bob.script("document.getElementById('rematch').click();");
    for browser in [&ann, &bob] {
        browser.wait_for(&format!(
            "return S.rated && S.room && S.id !== {first} && S.room.opponent === 'here'
                 && S.history.length === 0;"
        ));
    }
    assert_ne!(ann.script("return S.room.you;"), white);
    ann.close();
    bob.close();
}

#[test]
fn a_correspondence_game_is_left_for_other_boards_and_opened_again_from_the_lobby() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-correspondence");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    let bob = Browser::open(&driver, server.addr);
    take_name(&bob, "bob");
    // Ann offers a game of three days a move as White; Bob takes it and
    // his board goes to it. Ann's stays where it is: the game waits in
    // her list, her move, to be opened.
    ann.choose("ratedClock", "turn:259200");
    ann.choose("ratedColor", "white");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for(
        "return lobby.challenges.length === 1
             && lobby.challenges[0].clock.correspondence
             && document.querySelector('#challenges li').textContent.includes('3 days a move (correspondence)');",
    );
    bob.script("document.querySelector('#challenges button').click();");
    bob.wait_for("return S.rated && S.room && S.room.you === 'black' && S.clock.correspondence;");
    let your_move = "const li = document.querySelector('#correspondence li.tome');
         return !!li && li.textContent.startsWith('You play white against bob · your move · 3 d 0 h left')
             || !!li && li.textContent.startsWith('You play white against bob · your move · 2 d 23 h left');";
    ann.wait_for(your_move);
    // The move's deadline is told as a date, three days from the start.
    assert_eq!(
        ann.script(
            "const time = document.querySelector('#correspondence li.tome time');
             return !!time && time.textContent !== ''
                 && Math.abs(Date.parse(time.dateTime) - Date.now() - 3 * 86400e3) < 120e3;"
        ),
        json!(true)
    );
    assert_eq!(ann.script("return !!S && !S.rated;"), json!(true));
    let shot = ann.screenshot(1100, 1400, "correspondence-lobby.png");
    eprintln!("screenshot: {}", shot.display());
    ann.resize(390, 844);
    ann.script("document.getElementById('correspondence').scrollIntoView({ block: 'center' });");
    let shot = ann.screenshot(390, 844, "correspondence-lobby-phone.png");
    eprintln!("screenshot: {}", shot.display());
    ann.script("document.querySelector('#correspondence li.tome button').click();");
    ann.wait_for(
        "return S.rated && S.room && S.room.you === 'white'
             && ['3 d 0 h', '2 d 23 h'].includes(document.getElementById('clockBottom').textContent);",
    );
    play_first_legal([&ann, &bob]);
    // Bob goes back to a board of his own by the button the board shows
    // him: nothing is lost, and his list says it is his move; opened
    // again, the game goes on.
    bob.wait_for(
        "const back = document.getElementById('new');
         return !back.hidden && back.offsetParent !== null && back.textContent === 'Back to your own board';",
    );
    bob.script("document.getElementById('new').click();");
    bob.wait_for("return !!S && !S.rated && !S.room;");
    bob.wait_for(
        "const li = document.querySelector('#correspondence li.tome');
         return !!li && li.textContent.startsWith('You play black against ann · your move');",
    );
    bob.script("document.querySelector('#correspondence li.tome button').click();");
    bob.wait_for("return S.rated && S.room && S.room.you === 'black' && S.history.length === 1;");
    play_first_legal([&ann, &bob]);
    assert_eq!(ann.script("return S.outcome;"), Value::Null);
    ann.wait_for(
        "const li = document.querySelector('#correspondence li');
         return !!li && li.className === 'tome' && li.textContent.includes('your move');",
    );
    ann.close();
    bob.close();
}

#[test]
fn a_correspondence_challenge_is_posted_and_taken_while_a_game_at_a_sitting_goes_on() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-correspondence-busy");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    let bob = Browser::open(&driver, server.addr);
    take_name(&bob, "bob");
    ann.choose("ratedClock", "game:300");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for("return lobby.challenges.length === 1;");
    bob.script("document.querySelector('#challenges button').click();");
    for browser in [&ann, &bob] {
        browser.wait_for(
            "return S.rated && S.room && !S.clock.correspondence && lobby.game !== null;",
        );
    }
    // Playing at a sitting, Ann may still offer a game by correspondence,
    // and Bob take it: it waits in their lists, the boards where they are.
    assert_eq!(
        ann.script("return document.getElementById('postChallenge').disabled;"),
        json!(true)
    );
    ann.choose("ratedClock", "turn:86400");
    ann.wait_for("return !document.getElementById('postChallenge').disabled;");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for(
        "const b = document.querySelector('#challenges li button');
         return lobby.challenges.length === 1 && lobby.challenges[0].clock.correspondence
             && !!b && b.textContent === 'Accept' && !b.disabled;",
    );
    let game = bob.script("return S.id;");
    bob.script("document.querySelector('#challenges li button').click();");
    bob.wait_for(
        "return document.getElementById('messageText').textContent
             === 'Taken: the game waits in your correspondence games';",
    );
    for browser in [&ann, &bob] {
        browser.wait_for("return lobby.correspondence.length === 1 && lobby.game !== null;");
    }
    assert_eq!(bob.script("return S.id;"), game);
    assert_eq!(bob.script("return S.outcome;"), Value::Null);
    ann.close();
    bob.close();
}

#[test]
fn an_account_whose_token_is_thrown_away_is_taken_back_with_its_password() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-recover");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    ann.script("document.getElementById('tokenKept').click();");
    ann.wait_for("return document.getElementById('setPassword').textContent === 'Set a password';");
    ann.script(
        "document.getElementById('newPassword').value = 'correct horse battery';
         document.getElementById('setPassword').click();",
    );
    ann.wait_for(
        "return document.getElementById('setPassword').textContent === 'Change your password';",
    );
    let lost = ann.script("return player.token;");
    // The token thrown away: signed out, and forgotten by the browser.
    ann.script("document.getElementById('signOut').click();");
    ann.wait_for("return !document.getElementById('ask').hidden;");
    ann.script("document.getElementById('askYes').click();");
    ann.wait_for("return player === null && !document.getElementById('signedOut').hidden;");
    ann.script(
        "document.getElementById('recoverName').value = 'ann';
         document.getElementById('recoverPassword').value = 'a wrong one';
         document.getElementById('recover').click();",
    );
    ann.wait_for("return document.getElementById('messageText').textContent === 'the name or the password is wrong';");
    ann.script(
        "document.getElementById('recoverPassword').value = 'correct horse battery';
         document.getElementById('recover').click();",
    );
    ann.wait_for(
        "return player !== null && player.name === 'ann' && lobby !== null && lobby.me.name === 'ann'
             && !document.getElementById('tokenBox').hidden
             && document.getElementById('tokenText').textContent === player.token;",
    );
    assert_ne!(ann.script("return player.token;"), lost);
    ann.close();
}

#[test]
fn a_third_browser_watches_a_rated_game_live_with_no_values_and_goes_back_to_its_own_board() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-watch");
    let server = serve_keeping_players(&folder);
    let ann = Browser::open(&driver, server.addr);
    take_name(&ann, "ann");
    let bob = Browser::open(&driver, server.addr);
    take_name(&bob, "bob");
    ann.choose("ratedColor", "white");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for("return lobby.challenges.length === 1;");
    bob.script("document.querySelector('#challenges button').click();");
    for browser in [&ann, &bob] {
        browser.wait_for("return S.rated && S.room && S.room.opponent === 'here';");
        // Its players see their game listed, with nothing to watch.
        browser.wait_for(
            "const li = document.querySelector('#playing li');
             return !!li && li.textContent.startsWith('ann (1500) – bob (1500)') && !li.querySelector('button');",
        );
    }
    // Anyone, signed in or not, watches it from the list.
    let spectator = Browser::open(&driver, server.addr);
    spectator.wait_for(
        "const b = document.querySelector('#playing li button');
         if (!b || b.textContent !== 'Watch') return false;
         b.click();
         return true;",
    );
    spectator.wait_for(
        "return S.watching && S.rated.white.name === 'ann'
             && document.getElementById('ratedLine').textContent === 'Watching a rated game: White ann (1500), Black bob (1500)'
             && document.getElementById('resign').offsetParent === null
             && document.getElementById('new').textContent === 'Back to your own board';",
    );
    // The list says which game is watched as the board shows it.
    assert_eq!(
        spectator.script(
            "const b = document.querySelector('#playing li button');
             return [b.textContent, b.disabled];"
        ),
        json!(["Watching", true])
    );
    play_first_legal([&ann, &bob]);
    play_first_legal([&ann, &bob]);
    spectator.wait_for(
        "return S.history.length === 2 && S.exact === null
             && document.getElementById('exact').textContent === 'No values while the game is played: its players play on their own.'
             && document.getElementById('engineinfo').textContent === 'no engine in a game between two people';",
    );
    // A click on the board plays nothing.
    spectator.click_point("a1");
    assert_eq!(spectator.script("return S.history.length;"), json!(2));
    spectator.wait_for(
        "return document.querySelector('#playing li').textContent.includes(' · 1 watching');",
    );
    let shot = spectator.screenshot(1100, 850, "rated-watched.png");
    eprintln!("screenshot: {}", shot.display());
    // The end is seen, and the way back to a board of one's own.
    bob.script("document.getElementById('resign').click();");
    bob.wait_for("return !document.getElementById('ask').hidden;");
    bob.script("document.getElementById('askYes').click();");
    spectator.wait_for("return S.outcome === 'white wins (black resigned)' && !document.getElementById('result').hidden;");
    spectator.script("document.getElementById('again').click();");
    spectator.wait_for("return !S.watching && !S.rated && !S.room && S.history.length === 0;");
    for browser in [ann, bob, spectator] {
        browser.close();
    }
}

#[test]
fn a_rated_game_goes_on_in_both_browsers_after_the_server_is_killed_and_started_again() {
    let Some(driver) = driver() else { return };
    let folder = common::TempDir::new("browser-rated-restart");
    let file = folder.path().join("players.sqlite");
    let port = free_port().to_string();
    let mut first = WebProcess::start(&file, &["--port", &port]);
    let addr = first.addr;
    let ann = Browser::open(&driver, addr);
    take_name(&ann, "ann");
    let bob = Browser::open(&driver, addr);
    take_name(&bob, "bob");
    ann.script("document.getElementById('postChallenge').click();");
    bob.wait_for("return lobby.challenges.length === 1;");
    bob.script("document.querySelector('#challenges button').click();");
    for browser in [&ann, &bob] {
        browser.wait_for("return S.rated && S.room && S.room.opponent === 'here';");
    }
    play_first_legal([&ann, &bob]);
    play_first_legal([&ann, &bob]);
    first.kill();
    let mut second = WebProcess::start(&file, &["--port", &port]);
    let restarted = Instant::now();
    // Both pages find the game again by themselves, at their seats.
    for browser in [&ann, &bob] {
        browser.wait_for(
            "return S.rated && S.room && S.history.length === 2 && S.room.opponent === 'here'
                 && document.getElementById('conn').textContent === '';",
        );
    }
    eprintln!(
        "both pages back in the game {:?} after the restart",
        restarted.elapsed()
    );
    play_first_legal([&ann, &bob]);
    ann.close();
    bob.close();
    second.kill();
}
