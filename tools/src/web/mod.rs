//! morris-web: a board in the browser. The server holds each browser's
//! game (refereed by the library) and drives an engine process through
//! the protocol as any GUI does; the page asks for changes with `POST`s
//! and hears of them by long polling (`GET /api/state?after=VERSION`
//! answers when the state is newer), so it needs nothing but HTTP. Two
//! browsers play each other in a room, joined by its code.

mod actions;
mod assets;
pub mod clock;
mod engine_thread;
pub mod fair_play;
mod http;
pub mod lobby;
pub mod players;
mod puzzles;
pub mod rated;
mod record;
mod requests;
pub mod room;
pub mod session;
pub mod settings;
mod shared;
pub mod state;
pub mod store;
mod version;
mod views;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use std::time::{Duration, Instant};
use tokio::sync::watch;

use morris::Color;
use morris::solution::Database;

use crate::client::EngineConfig;
use fair_play::FairPlay;
use lobby::{Lobby, level_player_name};
use players::{RatedPlayer, RatedPlayers};
use rated::Keeper;
use room::{Room, RoomFull};
use session::Session;
use settings::{EngineSide, Settings, Strength};
use store::{LiveGame, PlayerId, Store};

/// The most threads the handlers' blocking work runs on at once: the
/// waits are async and hold none, and what is left is short and mostly
/// takes a lock that one thread holds at a time (a game's, the store's).
const BLOCKING_THREADS: usize = 32;

/// The most requests answered at once for one address, unless
/// configured: a page holds one or two (its game's long poll, the
/// lobby's).
pub const DEFAULT_REQUESTS_EACH: usize = 64;

/// The most players an address may make within [`NEW_PLAYERS_COUNTED`].
const MAX_NEW_PLAYERS: u32 = 5;

/// How long the players an address made are counted.
const NEW_PLAYERS_COUNTED: Duration = Duration::from_secs(3600);

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
        }
    }
}

/// The running server.
pub struct WebServer {
    listener: std::net::TcpListener,
    games: Arc<Games>,
    addr: SocketAddr,
    stop: Arc<watch::Sender<bool>>,
}

/// The games open, and the codes of the rooms among them.
#[derive(Default)]
struct Open {
    sessions: HashMap<u64, Arc<Session>>,
    rooms: HashMap<String, u64>,
}

impl Open {
    /// Takes game `id` out, its room's code with it.
    fn remove(&mut self, id: u64) -> Option<Arc<Session>> {
        self.rooms.retain(|_, room| *room != id);
        self.sessions.remove(&id)
    }
}

/// Closes games taken out of the open ones, each on a thread of its own,
/// off the request that took them out: a hung engine takes a while to
/// stop.
fn retire(sessions: impl IntoIterator<Item = Arc<Session>>) {
    for session in sessions {
        std::thread::spawn(move || session.close());
    }
}

struct Games {
    open: Mutex<Open>,
    config: WebConfig,
    /// The players and their rated games, if they are kept (the
    /// configuration's, shared with the rated games).
    store: Option<Arc<Store>>,
    /// The open challenges (told by the rated games when they end).
    lobby: Arc<Lobby>,
    /// The positions on rated boards in play, which no other game is
    /// told the value of.
    fair_play: Arc<FairPlay>,
    /// Keeps the rated games in the store (with one), told of every
    /// game's changes.
    keeper: Option<Arc<Keeper>>,
    /// The engine's levels, standing players in the store.
    levels: Vec<(Strength, PlayerId)>,
    /// The room codes each address tried in vain lately: a code is short
    /// enough to be found by trying many.
    missed: PerAddress,
}

/// Something each address may do only so often: counted for a while
/// from its first time.
struct PerAddress {
    /// How many times an address may do it while it is counted.
    most: u32,
    /// How long it is counted.
    counted: Duration,
    /// Each address's count, since its first time.
    counts: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl PerAddress {
    fn new(most: u32, counted: Duration) -> PerAddress {
        PerAddress {
            most,
            counted,
            counts: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `address` did it as often as it may.
    fn used_up(&self, address: IpAddr) -> bool {
        let counts = self.counts.lock().expect("not poisoned");
        counts
            .get(&address)
            .is_some_and(|&(since, count)| since.elapsed() < self.counted && count >= self.most)
    }

    /// `address` did it once more.
    fn count(&self, address: IpAddr) {
        let mut counts = self.counts.lock().expect("not poisoned");
        counts.retain(|_, &mut (since, _)| since.elapsed() < self.counted);
        counts.entry(address).or_insert((Instant::now(), 0)).1 += 1;
    }
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
        self.games.lock().sessions.len()
    }
}

impl WebServer {
    /// Serves the routes until the handle says stop.
    async fn serve(self) {
        let mut stopping = self.stop.subscribe();
        let routes = http::router(Arc::clone(&self.games), self.stop.subscribe());
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
    pub fn bind(host: IpAddr, port: u16, mut config: WebConfig) -> std::io::Result<WebServer> {
        let listener = std::net::TcpListener::bind((host, port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let store = config.store.take().map(Arc::new);
        let levels = match &store {
            Some(store) => Strength::NAMED
                .into_iter()
                .map(|level| {
                    let name = level_player_name(level);
                    Ok((level, store.standing_player(&name, level.rating())?))
                })
                .collect::<anyhow::Result<_>>()
                .map_err(|e| std::io::Error::other(format!("{e:#}")))?,
            None => Vec::new(),
        };
        let lobby: Arc<Lobby> = Arc::default();
        let fair_play: Arc<FairPlay> = Arc::default();
        let keeper = store.as_ref().map(|store| {
            let lobby = Arc::clone(&lobby);
            Arc::new(Keeper::start(
                Arc::clone(store),
                lobby,
                Arc::clone(&fair_play),
            ))
        });
        let games = Games {
            open: Mutex::new(Open::default()),
            config,
            store,
            lobby,
            fair_play,
            keeper,
            levels,
            missed: PerAddress::new(10, Duration::from_secs(60)),
        };
        games
            .resume_rated()
            .map_err(|e| std::io::Error::other(format!("{e:#}")))?;
        Ok(WebServer {
            listener,
            games: Arc::new(games),
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
        let sessions: Vec<Arc<Session>> = {
            let mut open = games.lock();
            open.rooms.clear();
            open.sessions.drain().map(|(_, s)| s).collect()
        };
        for session in sessions {
            session.close();
        }
        if let Some(keeper) = &games.keeper {
            keeper.stop();
        }
    }
}

/// Why a game cannot be opened or joined.
#[derive(Debug)]
enum Refusal {
    /// As many games are open as the server takes.
    Full,
    /// No room has the code.
    NoRoom(String),
    /// Both seats of the room are taken.
    RoomFull,
    /// The store failed.
    Store(String),
}

impl Games {
    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().expect("not poisoned")
    }

    fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.lock().sessions.get(&id).cloned()
    }

    /// A new game against the engine.
    fn create(&self, settings: Settings) -> Result<(u64, Arc<Session>), Refusal> {
        self.open_game(Some(self.config.engine.clone()), settings, |_| None)
    }

    /// A new room, its creator at `color`: its game and the creator's
    /// seat token.
    fn create_room(
        &self,
        settings: Settings,
        color: Color,
    ) -> Result<(u64, Arc<Session>, String), Refusal> {
        let settings = Settings {
            engine_side: EngineSide::Neither,
            ..settings
        };
        let mut token = String::new();
        let (id, session) = self.open_game(None, settings, |open| {
            let code = std::iter::repeat_with(room::new_code)
                .find(|code| !open.rooms.contains_key(code))
                .expect("a free code");
            let (room, seat) = Room::new(code, color, Instant::now());
            token = seat;
            Some(room)
        })?;
        Ok((id, session, token))
    }

    /// Opens a game (with the room `room` makes, if it makes one) under
    /// a fresh, unguessable id.
    fn open_game(
        &self,
        engine: Option<EngineConfig>,
        settings: Settings,
        room: impl FnOnce(&Open) -> Option<Room>,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        self.open_game_as(None, engine, settings, room)
    }

    /// Opens a game as [`Games::open_game`] does, under the id `resumed`
    /// if it is a game resumed (a rated game after a restart).
    fn open_game_as(
        &self,
        resumed: Option<u64>,
        engine: Option<EngineConfig>,
        settings: Settings,
        room: impl FnOnce(&Open) -> Option<Room>,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        let mut open = self.lock();
        if open.sessions.len() >= self.config.max_games && resumed.is_none() {
            let idle = self.idlest(&open).ok_or(Refusal::Full)?;
            retire(open.remove(idle));
        }
        let id = resumed.unwrap_or_else(|| {
            std::iter::repeat_with(rand::random::<u64>)
                .find(|id| !open.sessions.contains_key(id))
                .expect("a free id")
        });
        let room = room(&open);
        if let Some(room) = &room {
            open.rooms.insert(room.code.clone(), id);
        }
        let observer = self
            .keeper
            .clone()
            .map(|keeper| keeper as Arc<dyn shared::Observer>);
        let told = (Arc::clone(&self.fair_play), observer);
        let session = Arc::new(Session::new(id, engine, settings, room, told));
        open.sessions.insert(id, Arc::clone(&session));
        Ok((id, session))
    }

    /// Sits a browser down in the room of `code`, back at its seat with
    /// `token`: the game, the side and the seat's token.
    fn join(
        &self,
        code: &str,
        token: Option<&str>,
    ) -> Result<(u64, Arc<Session>, String), Refusal> {
        let code = room::normalize_code(code);
        let (id, session) = {
            let open = self.lock();
            let id = *open
                .rooms
                .get(&code)
                .ok_or_else(|| Refusal::NoRoom(code.clone()))?;
            (id, open.sessions.get(&id).cloned().expect("a room's game"))
        };
        let mut seated = Err(Refusal::RoomFull);
        let _ = session.change(|state| {
            let rated = state.rated.is_some();
            let room = state.room.as_mut().expect("a room's game");
            let now = Instant::now();
            let newcomer = token.and_then(|t| room.seat_of(t)).is_none();
            // A rated game's seats are its players'.
            if rated && newcomer {
                return Ok(());
            }
            seated = room
                .join(token, now)
                .map(|(_, token)| token)
                .map_err(|RoomFull| Refusal::RoomFull);
            if seated.is_ok() {
                actions::sat_down(state, newcomer, now);
            }
            Ok(())
        });
        Ok((id, session, seated?))
    }

    /// The game no page has shown for the longest, if that is longer than
    /// the configured `idle_after`: its browser is gone. A rated game is
    /// kept until its result is: its clock ends it.
    fn idlest(&self, open: &Open) -> Option<u64> {
        let now = Instant::now();
        open.sessions
            .iter()
            .filter_map(|(&id, session)| {
                let state = session.lock();
                (!state.is_rated_unkept()).then(|| (state.unseen_for(now), id))
            })
            .filter(|&(unseen, _)| unseen > self.config.idle_after)
            .max()
            .map(|(_, id)| id)
    }

    /// Ends every game whose side to move ran out of time.
    fn check_clocks(&self) {
        let sessions: Vec<Arc<Session>> = self.lock().sessions.values().cloned().collect();
        for session in sessions {
            session.check_clock();
        }
    }

    fn close_abandoned(&self) {
        let abandoned: Vec<Arc<Session>> = {
            let mut open = self.lock();
            let limit = self.config.abandoned_after;
            let old: Vec<u64> = open
                .sessions
                .iter()
                .filter(|(_, s)| {
                    let state = s.lock();
                    state.unseen_for(Instant::now()) > limit && !state.is_rated_unkept()
                })
                .map(|(&id, _)| id)
                .collect();
            old.into_iter().filter_map(|id| open.remove(id)).collect()
        };
        retire(abandoned);
    }

    /// A rated game between `players` (White's first, both engaged in it
    /// in the lobby) under `settings`: a room for two people, or, where the
    /// settings give the engine a side, a game against it.
    fn start_rated(
        &self,
        players: [RatedPlayer; 2],
        settings: Settings,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        let store = self.store.as_ref().expect("rated games are kept");
        let against_engine = settings.engine_side != EngineSide::Neither;
        let engine = against_engine.then(|| self.config.engine.clone());
        let mut code = None;
        let (id, session) = self.open_game(engine, settings, |open| {
            if against_engine {
                return None;
            }
            let free = std::iter::repeat_with(room::new_code)
                .find(|code| !open.rooms.contains_key(code))
                .expect("a free code");
            code = Some(free.clone());
            Some(Room::for_two(free, Instant::now()).0)
        })?;
        let begun = LiveGame {
            id,
            white: players[0].id,
            black: players[1].id,
            room: code,
            settings: requests::settings_request(&settings),
            moves: String::new(),
            left: rated::time_left(&session.lock()),
        };
        if let Err(e) = store.begin_live(&begun) {
            self.close(id);
            return Err(Refusal::Store(format!("{e:#}")));
        }
        let ids = players.each_ref().map(|player| player.id);
        let _ = session.change(|state| {
            state.rated = Some(RatedPlayers::new(players));
            Ok(())
        });
        self.lobby.begun(&ids, id);
        Ok((id, session))
    }

    /// Resumes the rated games in progress that the store holds (after a
    /// restart): each under its id, its moves played, its clock at the
    /// times it had after the last of them. A room's seats have new
    /// tokens, which its players have from the lobby.
    fn resume_rated(&self) -> anyhow::Result<()> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        for live in store.live_games()? {
            // A game this build cannot take up again is left in the store,
            // said, for a build that can: the server serves the others.
            if let Err(e) = self.resume(store, &live) {
                eprintln!("morris-web: rated game {} not resumed: {e:#}", live.id);
            }
        }
        Ok(())
    }

    /// Resumes the rated game in progress `live`, its players engaged in
    /// it.
    fn resume(&self, store: &Arc<Store>, live: &LiveGame) -> anyhow::Result<()> {
        let settings = requests::parse::<requests::SettingsRequest>(&live.settings)
            .and_then(|request| request.apply(Settings::default()))
            .map_err(anyhow::Error::msg)?;
        let game = record::game_from(&live.moves, settings.rules).map_err(anyhow::Error::msg)?;
        let players = [
            RatedPlayer::from(store.standing(live.white)?),
            RatedPlayer::from(store.standing(live.black)?),
        ];
        let engine =
            (settings.engine_side != EngineSide::Neither).then(|| self.config.engine.clone());
        let room = live
            .room
            .clone()
            .map(|code| Room::for_two(code, Instant::now()).0);
        let (id, session) = self
            .open_game_as(Some(live.id), engine, settings, |_| room)
            .map_err(|refusal| anyhow::anyhow!("{refusal:?}"))?;
        let left = live.left.map(|left| left.map(Duration::from_millis));
        self.lobby.begun(&[live.white, live.black], id);
        let _ = session.change(|state| {
            actions::resume(state, game, left);
            state.rated = Some(RatedPlayers::new(players));
            Ok(())
        });
        Ok(())
    }

    /// The rated game `player` is playing, if any: its id, and the token of
    /// the player's seat if it is a room's.
    fn rated_game_of(&self, player: PlayerId) -> Option<(u64, Option<String>)> {
        let id = self.lobby.game_of(player)?;
        let session = self.get(id)?;
        let state = session.lock();
        if !state.is_rated_in_play() {
            return None;
        }
        let side = state.rated.as_ref()?.side_of(player)?;
        let seat = state
            .room
            .as_ref()
            .and_then(|room| room.token_of(side))
            .map(str::to_owned);
        Some((id, seat))
    }

    /// Closes game `id`, its page gone.
    fn close(&self, id: u64) {
        let closed = self.lock().remove(id);
        retire(closed);
    }
}
