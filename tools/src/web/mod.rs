//! morris-web: a board in the browser. The server holds each browser's
//! game (refereed by the library) and drives an engine process through
//! the protocol as any GUI does; the page asks for changes with `POST`s
//! and hears of them by a stream of events (or a long poll), so it needs
//! nothing but HTTP. Two browsers play each other in a room, joined by
//! its code; players with a name play rated games from the lobby.
//!
//! The house by concern: `core`, the game as data and its rules of play
//! (state, actions, clock, room, settings, records: no I/O, no threads);
//! `game`, the games open with their engines' threads; `rated`, rated
//! play (the store, the lobby, the levels, the keeper of rated games);
//! `http`, the routes, the views and the page's files.

pub mod core;
pub mod game;
mod http;
pub mod rated;

pub use self::rated::store;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use morris::solution::Database;
use tokio::sync::watch;

use self::game::fair_play::FairPlay;
use self::game::shared::Observer;
use self::game::{Games, GamesConfig};
use self::rated::RatedPlay;
use self::store::Store;
use crate::client::EngineConfig;

/// The most threads the handlers' blocking work runs on at once: the
/// waits are async and hold none, and what is left is short and mostly
/// takes a lock that one thread holds at a time (a game's, the store's).
const BLOCKING_THREADS: usize = 32;

/// The most requests answered at once for one address, unless
/// configured: a page holds one or two (its game's stream, the
/// lobby's).
pub const DEFAULT_REQUESTS_EACH: usize = 64;

/// What the server needs besides its address.
pub struct WebConfig {
    /// The engine every game starts (`morris` of the workspace by default).
    pub engine: EngineConfig,
    /// The databases, for the exact values shown on the board.
    pub db: Option<Database>,
    /// A game nobody asked about for this long is closed (its engine with
    /// it): the browsers that had it are gone.
    pub abandoned_after: Duration,
    /// The most games open at once, rooms among them (each game against
    /// the engine runs an engine process).
    pub max_games: usize,
    /// When that many are open, a game no page has shown for this long
    /// gives its place to a new one (a page showing a game waits for its
    /// news all the time).
    pub idle_after: Duration,
    /// The players and their rated games, if they are kept.
    pub store: Option<Store>,
    /// The most requests answered at once for one address.
    pub max_requests_each: usize,
    /// The longest a request may take to arrive and be answered (a
    /// stream's events are not counted: its answer is its beginning).
    pub answered_within: Duration,
}

impl WebConfig {
    /// Games against `engine`, with the exact values of `db`, and the
    /// usual limits.
    pub fn new(engine: EngineConfig, db: Option<Database>) -> WebConfig {
        WebConfig {
            engine,
            db,
            abandoned_after: Duration::from_secs(600),
            max_games: 64,
            idle_after: Duration::from_secs(30),
            store: None,
            max_requests_each: DEFAULT_REQUESTS_EACH,
            answered_within: Duration::from_secs(40),
        }
    }
}

/// The running server.
pub struct WebServer {
    listener: std::net::TcpListener,
    games: Arc<Games>,
    rated: Option<Arc<RatedPlay>>,
    limits: http::Limits,
    addr: SocketAddr,
    stop: Arc<watch::Sender<bool>>,
}

/// Stops a running server from another thread, and tells what it holds.
#[derive(Clone)]
pub struct ServerHandle {
    stop: Arc<watch::Sender<bool>>,
    games: Arc<Games>,
}

impl ServerHandle {
    /// Makes [`WebServer::run`] return.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// How many games are open (rooms among them).
    pub fn open_games(&self) -> usize {
        self.games.lock().len()
    }
}

impl WebServer {
    /// Serves the routes until the handle says stop.
    async fn serve(self) {
        let mut stopping = self.stop.subscribe();
        let routes = http::router(
            Arc::clone(&self.games),
            self.rated.clone(),
            &self.limits,
            self.stop.subscribe(),
        );
        let listener = match tokio::net::TcpListener::from_std(self.listener) {
            Ok(listener) => listener,
            Err(e) => return eprintln!("morris-web: the port: {e}"),
        };
        let service = routes.into_make_service_with_connect_info::<SocketAddr>();
        let served = axum::serve(listener, service)
            .with_graceful_shutdown(async move {
                let _ = stopping.wait_for(|&stop| stop).await;
            })
            .await;
        if let Err(e) = served {
            eprintln!("morris-web: {e}");
        }
    }

    /// Listens on `host` (127.0.0.1 unless people elsewhere are to play)
    /// at `port` (0: a free one).
    ///
    /// # Errors
    ///
    /// The port cannot be had.
    /// The rated games in progress that the store holds are resumed.
    ///
    /// # Errors
    ///
    /// The port cannot be had, or the store cannot be read or written.
    pub fn bind(host: IpAddr, port: u16, config: WebConfig) -> std::io::Result<WebServer> {
        let listener = std::net::TcpListener::bind((host, port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let failed = |e: anyhow::Error| std::io::Error::other(format!("{e:#}"));
        let fair_play: Arc<FairPlay> = Arc::default();
        let rated = match config.store {
            Some(store) => Some(Arc::new(
                RatedPlay::open(store, Arc::clone(&fair_play)).map_err(failed)?,
            )),
            None => None,
        };
        let observer = rated
            .as_ref()
            .map(|rated| Arc::clone(&rated.keeper) as Arc<dyn Observer>);
        let games_config = GamesConfig {
            engine: config.engine,
            db: config.db,
            abandoned_after: config.abandoned_after,
            max_games: config.max_games,
            idle_after: config.idle_after,
        };
        let games = Arc::new(Games::new(games_config, fair_play, observer));
        if let Some(rated) = &rated {
            rated.resume_all(&games).map_err(failed)?;
        }
        Ok(WebServer {
            listener,
            games,
            rated,
            limits: http::Limits {
                most_each: config.max_requests_each,
                answered_within: config.answered_within,
            },
            addr,
            stop: Arc::new(watch::channel(false).0),
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops the server and counts its games.
    pub fn handle(&self) -> ServerHandle {
        ServerHandle {
            stop: Arc::clone(&self.stop),
            games: Arc::clone(&self.games),
        }
    }

    /// Answers requests until stopped; then closes every game and the
    /// engine processes it started.
    pub fn run(self) {
        let games = Arc::clone(&self.games);
        let rated = self.rated.clone();
        // The clocks and the games left behind are looked after on a
        // thread of their own: each takes a game's lock.
        let reaper_stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reaper = {
            let (games, stop) = (Arc::clone(&games), Arc::clone(&reaper_stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    games.close_abandoned();
                    games.check_clocks();
                }
            })
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .max_blocking_threads(BLOCKING_THREADS)
            .build();
        match runtime {
            Ok(runtime) => runtime.block_on(self.serve()),
            Err(e) => eprintln!("morris-web: no runtime: {e}"),
        }
        reaper_stop.store(true, Ordering::Relaxed);
        let _ = reaper.join();
        games.close_all();
        if let Some(rated) = &rated {
            rated.keeper.stop();
        }
    }
}
