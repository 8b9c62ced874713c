//! The HTTP layer: the routes as a type, each handler resolving its
//! request and handing the work to the game or rated play off the async
//! workers (a game's lock, the engine's jobs and the store are blocking),
//! the long polls waiting on the versions' channels without a thread, and
//! the limits on requests in all and from each address.

mod assets;
mod events;
mod game;
mod limits;
mod puzzles;
mod rated;
mod reply;
pub(crate) mod views;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequest, Path, Query, Request, State};
use axum::http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tokio::sync::{Semaphore, watch};
use tower::ServiceBuilder;

use self::game::Asked;
use self::limits::AtOnce;
use self::puzzles::puzzles_json;
use self::reply::POLL_WAIT;
use self::reply::Reply;
use crate::web::core::players::PlayerId;
use crate::web::game::Games;
use crate::web::rated::RatedPlay;

pub(crate) use limits::MAX_REQUESTS;

/// The largest request body read (a game record or a position string).
const MAX_BODY: usize = 1 << 20;

/// The most streams of events followed at once.
const MAX_STREAMS: usize = 4096;

/// What every handler has: the games, and the server's end.
#[derive(Clone)]
struct App {
    games: Arc<Games>,
    /// Rated play, where the server keeps players.
    rated: Option<Arc<RatedPlay>>,
    /// Becomes true when the server stops: long polls answer at once, and
    /// streams end.
    stopping: watch::Receiver<bool>,
    /// The places for streams of events.
    streams: Arc<Semaphore>,
}

/// How much a request may take.
pub(crate) struct Limits {
    /// The most requests answered at once from one address.
    pub(crate) most_each: usize,
    /// The longest a request may take to be answered: a body that never
    /// arrives holds its address's place no longer. A long poll answers
    /// within [`POLL_WAIT`]; a stream's answer is its beginning, and the
    /// events follow in its body.
    pub(crate) answered_within: Duration,
}

/// The routes of the page and its API over `games` and `rated` play,
/// with their `limits`; `stopping` ends the long polls and the streams.
pub(crate) fn router(
    games: Arc<Games>,
    rated: Option<Arc<RatedPlay>>,
    limits: &Limits,
    stopping: watch::Receiver<bool>,
) -> Router {
    let per_address = Arc::new(AtOnce::new(limits.most_each));
    let app = App {
        games,
        rated,
        stopping,
        streams: Arc::new(Semaphore::new(MAX_STREAMS)),
    };
    Router::new()
        .route("/", get(page_file))
        .route("/assets/{*path}", get(page_file))
        .route("/api/puzzles", get(puzzles))
        .route("/api/players", post(new_player))
        .route("/api/me", get(me))
        .route("/api/password", post(set_password))
        .route("/api/recover", post(recover))
        .route("/api/table", get(table))
        .route("/api/history", get(history))
        .route("/api/profile", get(profile))
        .route("/api/lobby", get(lobby))
        .route("/api/lobby/events", get(events::lobby_events))
        .route("/api/events", get(events::game_events))
        .route("/api/live", get(live))
        .route("/api/watch", get(watch))
        .route("/api/watch/events", get(events::watch_events))
        .route("/api/challenge", post(challenge))
        .route("/api/withdraw", post(withdraw))
        .route("/api/accept", post(accept))
        .route("/api/decline", post(decline))
        .route("/api/rematch", post(rematch))
        .route("/api/game", post(create_game))
        .route("/api/room", post(open_room))
        .route("/api/join", post(join_room))
        .route("/api/state", get(state))
        .route("/api/record", get(record).post(open_record))
        .route("/api/{action}", post(act))
        .fallback(no_such_page)
        .method_not_allowed_fallback(wrong_method)
        .with_state(app)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            per_address,
            limits::one_address,
        ))
        .layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(|error: tower::BoxError| async move {
                    if error.is::<tower::timeout::error::Elapsed>() {
                        Reply::error(408, "the request took too long to arrive")
                    } else {
                        Reply::error(503, "the server is busy; try again")
                    }
                }))
                .load_shed()
                .concurrency_limit(MAX_REQUESTS)
                .timeout(limits.answered_within),
        )
}

/// Runs `work` on a thread for blocking work: it takes a game's lock,
/// sends the engine its jobs or asks the store.
async fn blocking(work: impl FnOnce() -> Reply + Send + 'static) -> Reply {
    blocking_or(move || Ok(work()))
        .await
        .unwrap_or_else(|refusal| refusal)
}

/// Runs `work` as [`blocking`] does, for what it finds or its refusal.
async fn blocking_or<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Reply> + Send + 'static,
) -> Result<T, Reply> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(Reply::error(500, &format!("the server failed: {e}"))))
}

/// The game `query` asks for, and its seat checked.
async fn find_game(app: &App, query: HashMap<String, String>) -> Result<Asked, Reply> {
    let games = Arc::clone(&app.games);
    blocking_or(move || Asked::find(&games, &query)).await
}

/// The answer `answer` gives of the game `query` asks for, or the
/// refusal.
async fn with_game(
    app: App,
    query: HashMap<String, String>,
    answer: impl FnOnce(&Games, &Asked) -> Reply + Send + 'static,
) -> Reply {
    blocking(move || match Asked::find(&app.games, &query) {
        Ok(asked) => answer(&app.games, &asked),
        Err(refusal) => refusal,
    })
    .await
}

/// The player of `token` comes into the lobby: rated play, the player,
/// and the lobby's version to follow (taken before the player comes in,
/// so that no news is missed).
async fn enter_lobby(
    app: &App,
    token: Option<String>,
) -> Result<(Arc<RatedPlay>, PlayerId, watch::Receiver<u64>), Reply> {
    let play = app.rated.clone().ok_or_else(rated::no_store)?;
    let version = play.lobby.subscribe();
    let entering = Arc::clone(&play);
    let me = blocking_or(move || rated::enter_lobby(&entering, token.as_deref(), Instant::now()))
        .await?;
    Ok((play, me, version))
}

/// A request's body, as text: too large or not text is refused as such.
struct Text(String);

impl<S: Send + Sync> FromRequest<S> for Text {
    type Rejection = Reply;

    async fn from_request(request: Request, state: &S) -> Result<Text, Reply> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    Reply::error(413, "the request is too large")
                } else {
                    Reply::error(400, "the request body could not be read")
                }
            })?;
        String::from_utf8(bytes.into())
            .map(Text)
            .map_err(|_| Reply::error(400, "the request body is not text"))
    }
}

/// A player's token: in an `Authorization: Bearer` header, where no log
/// of addresses keeps it, or the query's `token`.
fn token(headers: &HeaderMap, query: &HashMap<String, String>) -> Option<String> {
    headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned)
        .or_else(|| query.get("token").cloned())
}

/// The version a long poll waits to be passed.
fn after(query: &HashMap<String, String>) -> u64 {
    query
        .get("after")
        .and_then(|after| after.parse().ok())
        .unwrap_or(0)
}

/// Waits until `version` passes `after`, the long poll's time is up, or
/// the server stops.
async fn wait_newer(
    mut version: watch::Receiver<u64>,
    after: u64,
    mut stopping: watch::Receiver<bool>,
) {
    tokio::select! {
        _ = tokio::time::timeout(POLL_WAIT, version.wait_for(|&now| now > after)) => {}
        _ = stopping.wait_for(|&stopping| stopping) => {}
    }
}

/// One of the page's files: kept by the browser, which asks each time
/// whether it changed (`no-cache`), and is sent no body if not.
async fn page_file(uri: Uri, headers: HeaderMap) -> Response {
    let Some(asset) = assets::asset(uri.path()) else {
        return no_such_page().await.into_response();
    };
    let current = headers
        .get(IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| asset.matches(tags));
    let headers = [
        (CONTENT_TYPE, asset.content_type),
        (CACHE_CONTROL, "no-cache"),
        (ETAG, asset.etag),
    ];
    if current {
        (StatusCode::NOT_MODIFIED, headers).into_response()
    } else {
        (headers, asset.body).into_response()
    }
}

async fn puzzles() -> Reply {
    Reply {
        status: 200,
        content_type: "application/json",
        body: puzzles_json().to_owned(),
    }
}

async fn no_such_page() -> Reply {
    Reply::error(404, "no such page")
}

/// A page asked for by the wrong method: a `GET` of an action, say.
async fn wrong_method(method: axum::http::Method) -> Reply {
    Reply::error(405, &format!("{method} is not answered here"))
}

async fn new_player(
    State(app): State<App>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    Text(body): Text,
) -> Reply {
    blocking(move || rated::new_player(app.rated.as_deref(), &body, Some(from.ip()))).await
}

async fn me(
    State(app): State<App>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Reply {
    let token = token(&headers, &query);
    blocking(move || rated::me(app.rated.as_deref(), token.as_deref())).await
}

async fn set_password(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::set_password(app.rated.as_deref(), &body)).await
}

async fn recover(
    State(app): State<App>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    Text(body): Text,
) -> Reply {
    blocking(move || rated::recover(app.rated.as_deref(), &body, Some(from.ip()))).await
}

async fn table(State(app): State<App>) -> Reply {
    blocking(move || rated::table(app.rated.as_deref())).await
}

async fn history(State(app): State<App>, Query(query): Query<HashMap<String, String>>) -> Reply {
    blocking(move || rated::history(app.rated.as_deref(), query.get("name").map(String::as_str)))
        .await
}

async fn profile(State(app): State<App>, Query(query): Query<HashMap<String, String>>) -> Reply {
    blocking(move || rated::profile(app.rated.as_deref(), query.get("name").map(String::as_str)))
        .await
}

/// The lobby for the player of the token, once it is newer than `after`
/// (or a long poll's wait has passed).
async fn lobby(
    State(app): State<App>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Reply {
    let (play, me, version) = match enter_lobby(&app, token(&headers, &query)).await {
        Ok(entered) => entered,
        Err(refusal) => return refusal,
    };
    wait_newer(version, after(&query), app.stopping.clone()).await;
    blocking(move || rated::lobby(&app.games, Some(&play), me)).await
}

/// The rated games being played, for anyone to watch.
async fn live(State(app): State<App>) -> Reply {
    blocking(move || rated::playing(&app.games, app.rated.as_deref())).await
}

/// A rated game being played, as its spectators see it now.
async fn watch(State(app): State<App>, Query(query): Query<HashMap<String, String>>) -> Reply {
    blocking(move || {
        let watch = query.get("watch").map(String::as_str);
        match rated::watched_game(&app.games, app.rated.as_deref(), watch) {
            Ok((watch, id, session)) => game::spectators_view(&app.games, (watch, id), &session),
            Err(refusal) => refusal,
        }
    })
    .await
}

async fn challenge(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::challenge(&app.games, app.rated.as_deref(), &body)).await
}

async fn withdraw(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::withdraw(app.rated.as_deref(), &body)).await
}

async fn accept(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::accept(&app.games, app.rated.as_deref(), &body)).await
}

async fn decline(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::decline(app.rated.as_deref(), &body)).await
}

async fn rematch(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || rated::rematch(&app.games, app.rated.as_deref(), &body)).await
}

async fn create_game(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || game::create(&app.games, &body)).await
}

async fn open_room(State(app): State<App>, Text(body): Text) -> Reply {
    blocking(move || game::open_room(&app.games, &body)).await
}

async fn join_room(
    State(app): State<App>,
    ConnectInfo(from): ConnectInfo<SocketAddr>,
    Text(body): Text,
) -> Reply {
    blocking(move || game::join_room(&app.games, &body, Some(from.ip()))).await
}

/// The game's state, once newer than `after` (or a long poll's wait has
/// passed); the game is seen meanwhile.
async fn state(State(app): State<App>, Query(query): Query<HashMap<String, String>>) -> Reply {
    let asked_at = Instant::now();
    let after = after(&query);
    let asked = match find_game(&app, query).await {
        Ok(asked) => asked,
        Err(refusal) => return refusal,
    };
    {
        let _watched = asked.session.watched();
        let version = asked.session.subscribe();
        wait_newer(version, after, app.stopping.clone()).await;
    }
    blocking(move || game::seen(&app.games, &asked, asked_at)).await
}

async fn record(State(app): State<App>, Query(query): Query<HashMap<String, String>>) -> Reply {
    with_game(app, query, |_, asked| game::record_of(asked)).await
}

async fn open_record(
    State(app): State<App>,
    Query(query): Query<HashMap<String, String>>,
    Text(body): Text,
) -> Reply {
    with_game(app, query, move |games, asked| {
        game::act(games, asked, game::Action::Record, &body)
    })
    .await
}

async fn act(
    State(app): State<App>,
    Path(action): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    Text(body): Text,
) -> Reply {
    let Some(action) = game::Action::named(&action) else {
        return Reply::error(404, "no such page");
    };
    with_game(app, query, move |games, asked| {
        game::act(games, asked, action, &body)
    })
    .await
}
