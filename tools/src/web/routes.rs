//! The HTTP side: each request read, dispatched by method and path to the
//! page's files, a game action or a view of the game, and answered.

use std::io::Read;
use std::time::{Duration, Instant};

use morris::Color;
use serde::Serialize;

use super::assets::{self, Asset};
use super::puzzles::puzzles_json;
use super::requests::{self, JoinRequest, RoomRequest};
use super::session::Session;
use super::settings::Settings;
use super::state::State;
use super::views::ErrorView;
use super::{Games, Refusal, actions, duels};

/// How long a long poll waits for a change before answering anyway.
pub(super) const POLL_WAIT: Duration = Duration::from_secs(20);

/// The largest request body read (a game record or a position string).
const MAX_BODY: u64 = 1 << 20;

/// The most characters of a refusal shown: one may quote the request.
const MAX_ERROR_CHARS: usize = 200;

/// An answer: status and body.
pub(super) struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
}

impl Reply {
    pub(super) fn json(view: &impl Serialize) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_string(view).expect("a view is JSON"),
        }
    }

    /// A refusal: `message`, which may quote the request, fit to show
    /// (its tokens cut as the protocol cuts them, and the whole too).
    pub(super) fn error(status: u16, message: &str) -> Reply {
        let mut shown = morris::uci::printable(message);
        if let Some((cut, _)) = shown.char_indices().nth(MAX_ERROR_CHARS) {
            shown.truncate(cut);
            shown.push_str("...");
        }
        Reply {
            status,
            ..Reply::json(&ErrorView { error: &shown })
        }
    }
}

/// Answers `request` that the server is too busy for it.
pub(super) fn refuse_busy(request: tiny_http::Request) {
    send(request, Reply::error(503, "the server is busy; try again"));
}

/// Answers `request` that its address asks too much at once.
pub(super) fn refuse_too_many(request: tiny_http::Request) {
    send(
        request,
        Reply::error(429, "too many requests at once from here; try again"),
    );
}

/// Reads `request`, answers it, and sends the answer.
pub(super) fn answer(games: &Games, mut request: tiny_http::Request) {
    // The page and its files: the same for everyone, with no body to read.
    let path = request.url().split('?').next().unwrap_or("");
    if *request.method() == tiny_http::Method::Get
        && let Some(asset) = assets::asset(path)
    {
        send_asset(request, &asset);
        return;
    }
    let mut body = String::new();
    let read = request
        .as_reader()
        .take(MAX_BODY + 1)
        .read_to_string(&mut body);
    let reply = match read {
        Ok(_) if body.len() as u64 > MAX_BODY => Reply::error(413, "the request is too large"),
        Ok(_) => {
            let from = request.remote_addr().map(std::net::SocketAddr::ip);
            // A player's token in a header, where no log of addresses keeps it.
            let bearer = request
                .headers()
                .iter()
                .find(|header| header.field.equiv("Authorization"))
                .and_then(|header| header.value.as_str().strip_prefix("Bearer "))
                .map(str::to_owned);
            let asked = Asked {
                method: request.method(),
                url: request.url(),
                body: &body,
                from,
                bearer: bearer.as_deref(),
            };
            route(games, &asked)
        }
        Err(_) => Reply::error(400, "the request body is not text"),
    };
    send(request, reply);
}

fn send(request: tiny_http::Request, reply: Reply) {
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

/// Sends one of the page's files: kept by the browser, which asks each
/// time whether it changed (`no-cache`), and is sent no body if not.
fn send_asset(request: tiny_http::Request, asset: &Asset) {
    let current = request
        .headers()
        .iter()
        .any(|header| header.field.equiv("If-None-Match") && asset.matches(header.value.as_str()));
    let (status, body) = if current {
        (304, "")
    } else {
        (200, asset.body)
    };
    let mut response = tiny_http::Response::from_string(body).with_status_code(status);
    let headers = [
        ("Content-Type", asset.content_type),
        ("Cache-Control", "no-cache"),
        ("ETag", asset.etag),
    ];
    for (field, value) in headers {
        let header = tiny_http::Header::from_bytes(field.as_bytes(), value.as_bytes())
            .expect("a valid header");
        response = response.with_header(header);
    }
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

/// A request, as it is answered.
struct Asked<'a> {
    method: &'a tiny_http::Method,
    url: &'a str,
    body: &'a str,
    /// The address it came from.
    from: Option<std::net::IpAddr>,
    /// The player's token of an `Authorization: Bearer` header.
    bearer: Option<&'a str>,
}

/// The reply to the request `asked`.
fn route(games: &Games, asked: &Asked) -> Reply {
    use tiny_http::Method::{Get, Post};
    let Asked {
        method,
        url,
        body,
        from,
        ..
    } = *asked;
    // A player's token: in the header, or the query's `token`.
    let token = asked.bearer.or_else(|| query(url, "token"));
    let path = url.split('?').next().unwrap_or("");
    if (method, path) == (&Get, "/api/puzzles") {
        return Reply {
            status: 200,
            content_type: "application/json",
            body: puzzles_json().to_owned(),
        };
    }
    let after = || {
        query(url, "after")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    match (method, path) {
        (Post, "/api/players") => return duels::new_player(games, body, from),
        (Get, "/api/me") => return duels::me(games, token),
        (Get, "/api/table") => return duels::table(games),
        (Get, "/api/history") => return duels::history(games, query(url, "name")),
        (Get, "/api/lobby") => return duels::lobby(games, token, after()),
        (Post, "/api/challenge") => return duels::challenge(games, body),
        (Post, "/api/withdraw") => return duels::withdraw(games, body),
        (Post, "/api/accept") => return duels::accept(games, body),
        _ => {}
    }
    let db = games.config.db.as_ref();
    if (method, path) == (&Post, "/api/game") {
        let settings = match actions::settings_from(body, Settings::default()) {
            Ok(settings) => settings,
            Err(message) => return Reply::error(400, &message),
        };
        return match games.create(settings) {
            Ok((id, session)) => Reply::json(&session.view(id, &session.lock(), db, None)),
            Err(refusal) => refused(&refusal),
        };
    }
    if (method, path) == (&Post, "/api/room") {
        return open_room(games, body);
    }
    if (method, path) == (&Post, "/api/join") {
        return join_room(games, body, from);
    }
    let Some(id) = query(url, "id").and_then(|id| id.parse::<u64>().ok()) else {
        return Reply::error(404, "no such page");
    };
    let Some(session) = games.get(id) else {
        return Reply::error(404, "no such game: the server may have restarted");
    };
    // A room's game answers only its seats.
    let token = query(url, "seat");
    let seat = match seat_of(&session, token) {
        Ok(seat) => seat,
        Err(reply) => return reply,
    };
    let in_room = seat.is_some();
    if in_room && !ROOM_ACTIONS.contains(&(method, path)) {
        return Reply::error(
            403,
            "a game between two browsers allows moves, resign, draw, the next game, leaving and the record only",
        );
    }
    let rated = session.lock().rated.is_some();
    if rated && !RATED_ACTIONS.contains(&(method, path)) {
        return Reply::error(
            403,
            "a rated game allows moves, resign, draw, leaving and the record only",
        );
    }
    // The seat's side after the change (the next game of a room swaps).
    let done = |result: Result<(), String>| match result {
        Ok(()) => {
            let seat = seat_of(&session, token).ok().flatten();
            Reply::json(&session.view(id, &session.lock(), db, seat))
        }
        Err(message) => Reply::error(400, &message),
    };
    match (method, path) {
        (Get, "/api/state") => {
            let asked = Instant::now();
            let mut state = session.wait_newer(after(), POLL_WAIT);
            // The seat's side as it is now: the next game may have swapped.
            let seat = state.room.as_mut().and_then(|room| {
                let color = room.seat_of(token?)?;
                room.seen(color, asked);
                Some(color)
            });
            Reply::json(&session.view(id, &state, db, seat))
        }
        (Post, "/api/new") if in_room => done(session.change(actions::rematch)),
        (Post, "/api/new") => done(session.change(|state| actions::new_game(state, body))),
        (Post, "/api/settings") => done(session.change(|state| actions::settings(state, body))),
        (Post, "/api/move") => {
            done(session.change(|state| actions::play(state, body.trim(), seated(state, token))))
        }
        (Post, "/api/review") => done(session.review(|state| actions::review(state, db))),
        (Post, "/api/undo") => done(session.change(actions::undo)),
        (Post, "/api/redo") => done(session.change(actions::redo)),
        (Post, "/api/resign") => {
            done(session.change(|state| actions::resign(state, seated(state, token))))
        }
        (Post, "/api/draw") => done(session.draw(|state, values_off| {
            let seat = seated(state, token);
            actions::draw(state, body.trim(), seat, (db, values_off))
        })),
        (Post, "/api/leave") if in_room => {
            let mut empty = false;
            let _ = session.change(|state| {
                if let Some(color) = seated(state, token) {
                    empty = actions::leave(state, color);
                }
                Ok(())
            });
            if empty {
                games.close(id);
            }
            Reply::json(&ErrorView { error: "" })
        }
        (Post, "/api/away") if in_room => {
            let _ = session.change(|state| {
                if let Some(color) = seated(state, token) {
                    let room = state.room.as_mut().expect("a room's game");
                    room.gone(color, Instant::now());
                }
                Ok(())
            });
            Reply::json(&ErrorView { error: "" })
        }
        (Post, "/api/close") if !in_room => {
            // A rated game left in play is lost.
            let _ = session.change(|state| {
                actions::leave_rated(state);
                Ok(())
            });
            games.close(id);
            Reply::json(&ErrorView { error: "" })
        }
        (Post, "/api/hint") => done(session.hint()),
        (Post, "/api/restart") => {
            session.restart();
            done(Ok(()))
        }
        (Post, "/api/setup") => done(session.change(|state| actions::setup(state, body.trim()))),
        (Post, "/api/record") => done(session.change(|state| actions::open_record(state, body))),
        (Get, "/api/record") => Reply {
            status: 200,
            content_type: "application/x-chess-pgn; charset=utf-8",
            body: actions::record_text(&session.lock()),
        },
        _ => Reply::error(404, "no such page"),
    }
}

/// What a room's seat may ask for.
const ROOM_ACTIONS: [(&tiny_http::Method, &str); 8] = [
    (&tiny_http::Method::Get, "/api/state"),
    (&tiny_http::Method::Post, "/api/move"),
    (&tiny_http::Method::Post, "/api/resign"),
    (&tiny_http::Method::Post, "/api/draw"),
    (&tiny_http::Method::Post, "/api/new"),
    (&tiny_http::Method::Post, "/api/leave"),
    (&tiny_http::Method::Post, "/api/away"),
    (&tiny_http::Method::Get, "/api/record"),
];

/// What the player of a rated game may ask for: no help, no take-back,
/// no other game (a rated game against the engine has no room, and is
/// closed to be left).
const RATED_ACTIONS: [(&tiny_http::Method, &str); 8] = [
    (&tiny_http::Method::Get, "/api/state"),
    (&tiny_http::Method::Post, "/api/move"),
    (&tiny_http::Method::Post, "/api/resign"),
    (&tiny_http::Method::Post, "/api/draw"),
    (&tiny_http::Method::Post, "/api/leave"),
    (&tiny_http::Method::Post, "/api/away"),
    (&tiny_http::Method::Post, "/api/close"),
    (&tiny_http::Method::Get, "/api/record"),
];

/// The side of the seat whose token is `token` as the state has it now
/// (the next game of a room swaps the sides), inside the change that acts
/// for it; `None` for a game of one browser.
fn seated(state: &State, token: Option<&str>) -> Option<Color> {
    state.room.as_ref()?.seat_of(token?)
}

/// The side of the seat whose token is `token`, in a room's game; `None`
/// for a game of one browser.
fn seat_of(session: &Session, token: Option<&str>) -> Result<Option<Color>, Reply> {
    let state = session.lock();
    if state.room.is_none() {
        return Ok(None);
    }
    seated(&state, token)
        .map(Some)
        .ok_or_else(|| Reply::error(403, "this game is a room's: join it with its code"))
}

pub(super) fn refused(refusal: &Refusal) -> Reply {
    match refusal {
        Refusal::Full => Reply::error(
            503,
            "the server has as many games open as it takes; try again later",
        ),
        Refusal::NoRoom(code) => Reply::error(404, &format!("no room has the code {code}")),
        Refusal::RoomFull => Reply::error(409, "the room is full: both players are seated"),
        Refusal::Store(message) => Reply::error(500, &format!("the store: {message}")),
    }
}

/// A new room: the body's settings (variant, clock) and `color`, the
/// creator's side (`white`, `black` or `random`).
fn open_room(games: &Games, body: &str) -> Reply {
    let asked = requests::parse::<RoomRequest>(body).and_then(|request| {
        let settings = request.settings.apply(Settings::default())?;
        Ok((settings, request.color()?))
    });
    let (settings, color) = match asked {
        Ok(asked) => asked,
        Err(message) => return Reply::error(400, &message),
    };
    match games.create_room(settings, color) {
        Ok((id, session, token)) => Reply::json(
            &session
                .view(id, &session.lock(), games.config.db.as_ref(), Some(color))
                .with_seat(token),
        ),
        Err(refusal) => refused(&refusal),
    }
}

/// A browser sits down in a room: `{"code": CODE}`, and `"seat": TOKEN` to
/// come back to its seat; an address that tried too many codes in vain
/// waits a while.
fn join_room(games: &Games, body: &str, from: Option<std::net::IpAddr>) -> Reply {
    if from.is_some_and(|address| games.missed.used_up(address)) {
        return Reply::error(429, "too many room codes tried: wait a minute");
    }
    let request: JoinRequest = match requests::parse(body) {
        Ok(request) => request,
        Err(message) => return Reply::error(400, &message),
    };
    // A code of no letter or digit names no room: say what is missing.
    let typed = request.code.as_deref();
    let Some(code) = typed.filter(|code| !super::room::normalize_code(code).is_empty()) else {
        return Reply::error(400, "a room's code is needed");
    };
    match games.join(code, request.seat.as_deref()) {
        Ok((id, session, token)) => {
            let state = session.lock();
            let color = state.room.as_ref().and_then(|room| room.seat_of(&token));
            Reply::json(
                &session
                    .view(id, &state, games.config.db.as_ref(), color)
                    .with_seat(token),
            )
        }
        Err(refusal) => {
            if let Some(address) = from {
                games.missed.count(address);
            }
            refused(&refusal)
        }
    }
}
