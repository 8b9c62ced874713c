//! How many requests are answered at once: in all (tower's concurrency
//! limit, shedding the rest with a 503), and from each address, which
//! tower does not count: a page holds a stream or two all the time, so
//! one address could otherwise take the server's every place.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::reply::Reply;

/// The most requests answered at once.
pub(crate) const MAX_REQUESTS: usize = 512;

/// The requests being answered from each address, and how many each may
/// have at once.
pub(crate) struct AtOnce {
    most: usize,
    each: Mutex<HashMap<IpAddr, usize>>,
}

/// One request being answered, counted until it is done (or dropped: its
/// browser went away); a stream of events, until it ends.
struct Answering {
    at_once: Arc<AtOnce>,
    from: IpAddr,
}

impl AtOnce {
    /// At most `most` requests from each address at once.
    pub(crate) fn new(most: usize) -> AtOnce {
        AtOnce {
            most,
            each: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request from `from`, unless that address has as many
    /// answered as it may.
    fn admit(self: &Arc<Self>, from: IpAddr) -> Option<Answering> {
        let mut each = self.each.lock().expect("not poisoned");
        let count = each.entry(from).or_insert(0);
        if *count >= self.most {
            return None;
        }
        *count += 1;
        Some(Answering {
            at_once: Arc::clone(self),
            from,
        })
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        let mut each = self.at_once.each.lock().expect("not poisoned");
        if let Some(count) = each.get_mut(&self.from) {
            *count -= 1;
            if *count == 0 {
                each.remove(&self.from);
            }
        }
    }
}

/// Answers `request` if its address has a place left, else refuses it
/// with a 429.
pub(crate) async fn one_address(
    State(at_once): State<Arc<AtOnce>>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let Some(answering) = at_once.admit(from.ip()) else {
        return Reply::error(429, "too many requests at once from here; try again").into_response();
    };
    let response = next.run(request).await;
    let streamed = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        return response;
    }
    // A stream of events is counted while it lasts.
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |chunk| {
        let _counted = &answering;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(body))
}
