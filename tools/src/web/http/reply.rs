//! An answer as the handlers make it: a status, a type and a body, every
//! refusal a JSON `{"error": …}` fit to show.

use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::views::ErrorView;
use crate::web::game::Refusal;

/// How long a long poll waits for a change before answering anyway.
pub(crate) const POLL_WAIT: Duration = Duration::from_secs(20);

/// The most characters of a refusal shown: one may quote the request.
const MAX_ERROR_CHARS: usize = 200;

/// An answer: status and body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

impl Reply {
    /// `view`, as JSON.
    pub(crate) fn json(view: &impl Serialize) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_string(view).expect("a view is JSON"),
        }
    }

    /// A refusal: `message`, which may quote the request, fit to show
    /// (its tokens cut as the protocol cuts them, and the whole too).
    pub(crate) fn error(status: u16, message: &str) -> Reply {
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

    /// The empty answer of an action that shows nothing.
    pub(crate) fn done() -> Reply {
        Reply::json(&ErrorView { error: "" })
    }
}

impl IntoResponse for Reply {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // Every answer is of the moment: a game, the lobby, or a page that
        // changes with the server.
        let headers = [
            (header::CONTENT_TYPE, self.content_type),
            (header::CACHE_CONTROL, "no-store"),
        ];
        (status, headers, self.body).into_response()
    }
}

/// The answer to a game that cannot be opened or joined.
pub(crate) fn refused(refusal: &Refusal) -> Reply {
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
