//! Live updates as server-sent events: a game's state (`event: state`)
//! the moment it changes, for a seat or a spectator of a rated game, and
//! the lobby (`event: lobby`) for a player in it; each also every
//! [`REFRESH`] (so that the seat or the player is seen to be there), and a
//! game closed says `event: gone`. A stream
//! holds no thread while it waits, and no game open: only its version's
//! channel.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use futures_util::stream::unfold;
use tokio::sync::{OwnedSemaphorePermit, watch};

use super::game::{self, Asked};
use super::reply::Reply;
use super::{App, blocking, blocking_or, enter_lobby, find_game, rated, token};
use crate::web::core::players::PlayerId;
use crate::web::game::Games;
use crate::web::game::session::{Session, Spectating, Watched};
use crate::web::rated::RatedPlay;

/// How often a quiet stream sends its news again all the same.
const REFRESH: Duration = Duration::from_secs(15);

/// What a stream waits for next.
enum Next {
    /// Its version moved, or a while passed: news to send.
    News,
    /// What it follows is gone (a game closed).
    Gone,
    /// The server stops.
    Stop,
}

/// A version followed: news at once, then whenever it moves or
/// [`REFRESH`] passes, until what it follows is gone or the server stops.
struct Following {
    version: watch::Receiver<u64>,
    stopping: watch::Receiver<bool>,
    first: bool,
}

impl Following {
    fn new(version: watch::Receiver<u64>, stopping: watch::Receiver<bool>) -> Following {
        Following {
            version,
            stopping,
            first: true,
        }
    }

    /// What comes next.
    async fn next(&mut self) -> Next {
        let next = if std::mem::take(&mut self.first) {
            Next::News
        } else {
            tokio::select! {
                changed = tokio::time::timeout(REFRESH, self.version.changed()) => match changed {
                    Ok(Err(_)) => Next::Gone,
                    Ok(Ok(())) | Err(_) => Next::News,
                },
                _ = self.stopping.wait_for(|&stop| stop) => Next::Stop,
            }
        };
        self.version.borrow_and_update();
        next
    }
}

/// A refusal, or the server having no place for another stream.
fn place(app: &App) -> Result<OwnedSemaphorePermit, Reply> {
    Arc::clone(&app.streams)
        .try_acquire_owned()
        .map_err(|_| Reply::error(503, "the server is busy; try again"))
}

/// A game followed: what is needed to show it, and nothing that keeps it
/// open.
struct GameStream {
    games: Arc<Games>,
    id: u64,
    token: Option<String>,
    session: Weak<Session>,
    following: Following,
    _watched: Watched,
    _place: OwnedSemaphorePermit,
}

/// `GET /api/events?id=ID&seat=TOKEN`: the game's state at once and at
/// every change.
pub(crate) async fn game_events(
    State(app): State<App>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let place = match place(&app) {
        Ok(place) => place,
        Err(refusal) => return refusal.into_response(),
    };
    let asked = match find_game(&app, query).await {
        Ok(asked) => asked,
        Err(refusal) => return refusal.into_response(),
    };
    let followed = GameStream {
        games: Arc::clone(&app.games),
        id: asked.id,
        following: Following::new(asked.session.subscribe(), app.stopping.clone()),
        _watched: asked.session.watched(),
        session: Arc::downgrade(&asked.session),
        token: asked.token,
        _place: place,
    };
    Sse::new(game_stream(followed)).into_response()
}

/// The game a stream shows next, once there is news of it; or the
/// stream's last event (none when the server stops).
async fn game_news(
    following: &mut Following,
    session: &Weak<Session>,
) -> Result<Arc<Session>, Option<Event>> {
    match following.next().await {
        Next::News => {}
        Next::Gone => return Err(Some(gone())),
        Next::Stop => return Err(None),
    }
    session.upgrade().ok_or_else(|| Some(gone()))
}

fn game_stream(followed: GameStream) -> impl Stream<Item = Result<Event, Infallible>> {
    unfold(Some(followed), |followed| async move {
        let mut followed = followed?;
        let session = match game_news(&mut followed.following, &followed.session).await {
            Ok(session) => session,
            Err(last) => return last.map(|event| (Ok(event), None)),
        };
        let asked = Asked {
            id: followed.id,
            session,
            token: followed.token.clone(),
        };
        let games = Arc::clone(&followed.games);
        let reply = blocking(move || game::seen(&games, &asked, Instant::now())).await;
        Some((
            Ok(Event::default().event("state").data(reply.body)),
            Some(followed),
        ))
    })
}

/// A rated game followed by a spectator.
struct SpectatorStream {
    games: Arc<Games>,
    /// The number it is watched by, and its own.
    numbers: (u64, u64),
    session: Weak<Session>,
    following: Following,
    _spectating: Spectating,
    _place: OwnedSemaphorePermit,
}

/// `GET /api/watch/events?watch=NUMBER`: a rated game being played, as
/// its spectators see it, at once and at every change.
pub(crate) async fn watch_events(
    State(app): State<App>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let place = match place(&app) {
        Ok(place) => place,
        Err(refusal) => return refusal.into_response(),
    };
    let (games, rated) = (Arc::clone(&app.games), app.rated.clone());
    let found = blocking_or(move || {
        rated::watched_game(
            &games,
            rated.as_deref(),
            query.get("watch").map(String::as_str),
        )
    })
    .await;
    let (watch, id, session) = match found {
        Ok(found) => found,
        Err(refusal) => return refusal.into_response(),
    };
    let followed = SpectatorStream {
        games: Arc::clone(&app.games),
        numbers: (watch, id),
        following: Following::new(session.subscribe(), app.stopping.clone()),
        _spectating: session.spectated(),
        session: Arc::downgrade(&session),
        _place: place,
    };
    Sse::new(spectator_stream(followed)).into_response()
}

fn spectator_stream(followed: SpectatorStream) -> impl Stream<Item = Result<Event, Infallible>> {
    unfold(Some(followed), |followed| async move {
        let mut followed = followed?;
        let session = match game_news(&mut followed.following, &followed.session).await {
            Ok(session) => session,
            Err(last) => return last.map(|event| (Ok(event), None)),
        };
        let (games, numbers) = (Arc::clone(&followed.games), followed.numbers);
        let reply = blocking(move || game::spectators_view(&games, numbers, &session)).await;
        Some((
            Ok(Event::default().event("state").data(reply.body)),
            Some(followed),
        ))
    })
}

/// The event of a game closed: the page does what it does when the server
/// no longer knows its game.
fn gone() -> Event {
    Event::default()
        .event("gone")
        .data(r#"{"error":"no such game: the server may have restarted"}"#)
}

/// A player in the lobby, following it.
struct LobbyStream {
    games: Arc<Games>,
    rated: Arc<RatedPlay>,
    token: Option<String>,
    me: PlayerId,
    following: Following,
    _place: OwnedSemaphorePermit,
}

/// `GET /api/lobby/events` (the player's token as a Bearer): the lobby at
/// once and at every change; the player is in it while it follows.
pub(crate) async fn lobby_events(
    State(app): State<App>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let place = match place(&app) {
        Ok(place) => place,
        Err(refusal) => return refusal.into_response(),
    };
    let token = token(&headers, &query);
    let (rated, me, version) = match enter_lobby(&app, token.clone()).await {
        Ok(entered) => entered,
        Err(refusal) => return refusal.into_response(),
    };
    let followed = LobbyStream {
        games: Arc::clone(&app.games),
        rated,
        token,
        me,
        following: Following::new(version, app.stopping.clone()),
        _place: place,
    };
    Sse::new(lobby_stream(followed)).into_response()
}

fn lobby_stream(followed: LobbyStream) -> impl Stream<Item = Result<Event, Infallible>> {
    unfold(Some(followed), |followed| async move {
        let mut followed = followed?;
        match followed.following.next().await {
            Next::News => {}
            Next::Gone | Next::Stop => return None,
        }
        let (games, play) = (Arc::clone(&followed.games), Arc::clone(&followed.rated));
        let (token, me) = (followed.token.clone(), followed.me);
        let reply = blocking(move || {
            // Still there, whatever changed (a quiet lobby too).
            let entered = rated::enter_lobby(&play, token.as_deref(), Instant::now());
            if let Err(refusal) = entered {
                return refusal;
            }
            rated::lobby(&games, Some(&play), me)
        })
        .await;
        if reply.status != 200 {
            // The player is no longer known (or the store fails): the end.
            return Some((Ok(Event::default().event("refused").data(reply.body)), None));
        }
        Some((
            Ok(Event::default().event("lobby").data(reply.body)),
            Some(followed),
        ))
    })
}
