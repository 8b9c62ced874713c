//! morris-web: a board in the browser. The server holds each browser's
//! game (refereed by the library) and drives an engine process through
//! the protocol as any GUI does; the page asks for changes with `POST`s
//! and hears of them by long polling (`GET /api/state?after=VERSION`
//! answers when the state is newer), so it needs nothing but HTTP.

mod actions;
pub mod clock;
mod routes;
pub mod session;
mod views;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use morris::endgame::EndgameDb;

use crate::client::EngineConfig;
use session::{Session, Settings};

/// A game nobody asked about for this long is closed (its engine with it):
/// the browser that had it is gone.
const ABANDONED: Duration = Duration::from_secs(600);

/// What the server needs besides its address.
pub struct WebConfig {
    /// The engine every game starts (`morris` of the workspace by default).
    pub engine: EngineConfig,
    /// Endgame databases for the exact values shown on the board.
    pub db: Option<EndgameDb>,
}

/// The running server.
pub struct WebServer {
    http: Arc<tiny_http::Server>,
    games: Arc<Games>,
    addr: SocketAddr,
}

struct Games {
    sessions: Mutex<HashMap<u64, Arc<Session>>>,
    next_id: AtomicU64,
    config: WebConfig,
}

/// Stops a running server from another thread.
#[derive(Clone)]
pub struct Stopper(Arc<tiny_http::Server>);

impl Stopper {
    /// Makes [`WebServer::run`] return.
    pub fn stop(&self) {
        self.0.unblock();
    }
}

impl WebServer {
    /// Listens on 127.0.0.1 at `port` (0: a free one).
    ///
    /// # Errors
    ///
    /// The port cannot be had.
    pub fn bind(port: u16, config: WebConfig) -> std::io::Result<WebServer> {
        let http = tiny_http::Server::http(("127.0.0.1", port)).map_err(std::io::Error::other)?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| std::io::Error::other("not an IP address"))?;
        Ok(WebServer {
            http: Arc::new(http),
            games: Arc::new(Games {
                sessions: Mutex::new(HashMap::new()),
                next_id: AtomicU64::new(rand::random::<u32>().into()),
                config,
            }),
            addr,
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A handle that stops the server.
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.http))
    }

    /// Answers requests, each on its own thread, until stopped; then
    /// closes every game and the engine processes it started.
    pub fn run(self) {
        let games = Arc::clone(&self.games);
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
        for request in self.http.incoming_requests() {
            let games = Arc::clone(&games);
            std::thread::spawn(move || routes::answer(&games, request));
        }
        reaper_stop.store(true, Ordering::Relaxed);
        let _ = reaper.join();
        let sessions: Vec<Arc<Session>> = games
            .sessions
            .lock()
            .expect("not poisoned")
            .drain()
            .map(|(_, s)| s)
            .collect();
        for session in sessions {
            session.close();
        }
    }
}

impl Games {
    fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.sessions
            .lock()
            .expect("not poisoned")
            .get(&id)
            .cloned()
    }

    fn create(&self, settings: Settings) -> (u64, Arc<Session>) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let session = Arc::new(Session::new(self.config.engine.clone(), settings));
        self.sessions
            .lock()
            .expect("not poisoned")
            .insert(id, Arc::clone(&session));
        (id, session)
    }

    /// Ends every game whose side to move ran out of time.
    fn check_clocks(&self) {
        let sessions: Vec<Arc<Session>> = self
            .sessions
            .lock()
            .expect("not poisoned")
            .values()
            .cloned()
            .collect();
        for session in sessions {
            session.check_clock();
        }
    }

    fn close_abandoned(&self) {
        let abandoned: Vec<Arc<Session>> = {
            let mut sessions = self.sessions.lock().expect("not poisoned");
            let old: Vec<u64> = sessions
                .iter()
                .filter(|(_, s)| s.lock().last_seen.elapsed() > ABANDONED)
                .map(|(&id, _)| id)
                .collect();
            old.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for session in abandoned {
            session.close();
        }
    }
}
