//! The HTTP side: each request read, dispatched by method and path to the
//! page, a game action or a view of the game, and answered.

use std::io::Read;
use std::time::Duration;

use serde::Serialize;

use super::session::Settings;
use super::views::{ErrorView, StateView};
use super::{Games, actions};

/// The page: HTML, CSS and JavaScript in one file, served as it is.
const PAGE: &str = include_str!("page.html");

/// How long a long poll waits for a change before answering anyway.
const POLL_WAIT: Duration = Duration::from_secs(20);

/// The largest request body read (a game record or a position string).
const MAX_BODY: u64 = 1 << 20;

/// An answer: status and body.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: String,
}

impl Reply {
    fn json(view: &impl Serialize) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_string(view).expect("a view is JSON"),
        }
    }

    fn error(status: u16, message: &str) -> Reply {
        Reply {
            status,
            ..Reply::json(&ErrorView { error: message })
        }
    }
}

/// Reads `request`, answers it, and sends the answer.
pub(super) fn answer(games: &Games, mut request: tiny_http::Request) {
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

/// The reply to a request of `method` for `url` with `body`.
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
        let settings = match actions::settings_from(body, Settings::default()) {
            Ok(settings) => settings,
            Err(message) => return Reply::error(400, &message),
        };
        let (id, session) = games.create(settings);
        return Reply::json(&StateView::new(
            id,
            &session.lock(),
            games.config.db.as_ref(),
        ));
    }
    let Some(id) = query(url, "id").and_then(|id| id.parse::<u64>().ok()) else {
        return Reply::error(404, "no such page");
    };
    let Some(session) = games.get(id) else {
        return Reply::error(404, "no such game: the server may have restarted");
    };
    let db = games.config.db.as_ref();
    let done = |result: Result<(), String>| match result {
        Ok(()) => Reply::json(&StateView::new(id, &session.lock(), db)),
        Err(message) => Reply::error(400, &message),
    };
    match (method, path) {
        (Get, "/api/state") => {
            let after = query(url, "after")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            Reply::json(&StateView::new(
                id,
                &session.wait_newer(after, POLL_WAIT),
                db,
            ))
        }
        (Post, "/api/new") => done(session.change(|state| actions::new_game(state, body))),
        (Post, "/api/settings") => done(session.change(|state| actions::settings(state, body))),
        (Post, "/api/move") => done(session.change(|state| actions::play(state, body.trim()))),
        (Post, "/api/undo") => done(session.change(actions::undo)),
        (Post, "/api/redo") => done(session.change(actions::redo)),
        (Post, "/api/resign") => done(session.change(actions::resign)),
        (Post, "/api/draw") => done(session.change(|state| actions::draw(state, body.trim()))),
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
