//! The games open: each browser's, each room's and each rated game, with
//! their engines; opened, joined, looked after (clocks, games left
//! behind) and closed here. A game is a session (its state under a lock,
//! its engine's thread); its changes go to an observer (the rated games'
//! keeper), and fair play keeps values off the positions of rated boards.

pub mod engine_thread;
pub mod fair_play;
pub mod session;
pub mod shared;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use morris::Color;
use morris::solution::Database;

use self::fair_play::FairPlay;
use self::session::Session;
use self::shared::Observer;
use crate::client::EngineConfig;
use crate::web::core::actions;
use crate::web::core::room::{self, Room, RoomFull};
use crate::web::core::settings::{EngineSide, Settings};

/// What the games need to know.
pub struct GamesConfig {
    /// The engine every game against it starts.
    pub engine: EngineConfig,
    /// The databases, for the exact values shown on the board.
    pub db: Option<Database>,
    /// A game nobody asked about for this long is closed.
    pub abandoned_after: Duration,
    /// The most games open at once, rooms among them.
    pub max_games: usize,
    /// When that many are open, a game no page has shown for this long
    /// gives its place to a new one.
    pub idle_after: Duration,
}

/// The games open, and the codes of the rooms among them.
#[derive(Default)]
pub(crate) struct Open {
    sessions: HashMap<u64, Arc<Session>>,
    rooms: HashMap<String, u64>,
}

impl Open {
    /// A room code no room has.
    pub(crate) fn free_code(&self) -> String {
        std::iter::repeat_with(room::new_code)
            .find(|code| !self.rooms.contains_key(code))
            .expect("a free code")
    }

    /// How many games are open.
    pub(crate) fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Takes game `id` out, its room's code with it.
    fn remove(&mut self, id: u64) -> Option<Arc<Session>> {
        self.rooms.retain(|_, room| *room != id);
        self.sessions.remove(&id)
    }
}

/// How many of the open games count toward the most open at once: all
/// but the rated games by correspondence, which wait days for their
/// players, hold no engine, and are each a player's promise to come back.
fn counted(open: &Open) -> usize {
    let waiting = open.sessions.values().filter(|session| {
        let state = session.lock();
        state.is_rated_unkept() && state.settings.is_correspondence()
    });
    open.sessions.len() - waiting.count()
}

/// Closes games taken out of the open ones, each on a thread of its own,
/// off the request that took them out: a hung engine takes a while to
/// stop.
fn retire(sessions: impl IntoIterator<Item = Arc<Session>>) {
    for session in sessions {
        std::thread::spawn(move || session.close());
    }
}

/// The games open, and how they are opened.
pub struct Games {
    open: Mutex<Open>,
    config: GamesConfig,
    /// The positions on rated boards in play, which no other game is
    /// told the value of.
    fair_play: Arc<FairPlay>,
    /// Told of every game's changes.
    observer: Option<Arc<dyn Observer>>,
    /// The room codes each address tried in vain lately: a code is short
    /// enough to be found by trying many.
    pub(crate) missed: PerAddress,
}

/// Something each address may do only so often: counted for a while
/// from its first time.
pub(crate) struct PerAddress {
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
    pub(crate) fn used_up(&self, address: IpAddr) -> bool {
        let counts = self.counts.lock().expect("not poisoned");
        counts
            .get(&address)
            .is_some_and(|&(since, count)| since.elapsed() < self.counted && count >= self.most)
    }

    /// `address` did it once more.
    pub(crate) fn count(&self, address: IpAddr) {
        let mut counts = self.counts.lock().expect("not poisoned");
        counts.retain(|_, &mut (since, _)| since.elapsed() < self.counted);
        counts.entry(address).or_insert((Instant::now(), 0)).1 += 1;
    }
}

/// Why a game cannot be opened or joined.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// As many games are open as the server takes.
    Full,
    /// No room has the code.
    NoRoom(String),
    /// Both seats of the room are taken.
    RoomFull,
    /// The store of rated games failed.
    Store(String),
}

impl Games {
    /// No game open yet: each to be told to `observer`, its values kept
    /// off the positions `fair_play` knows.
    pub fn new(
        config: GamesConfig,
        fair_play: Arc<FairPlay>,
        observer: Option<Arc<dyn Observer>>,
    ) -> Games {
        Games {
            open: Mutex::new(Open::default()),
            config,
            fair_play,
            observer,
            missed: PerAddress::new(10, Duration::from_secs(60)),
        }
    }

    /// The engine every game against it starts.
    pub(crate) fn engine(&self) -> EngineConfig {
        self.config.engine.clone()
    }

    /// The databases, for the exact values shown.
    pub(crate) fn db(&self) -> Option<&Database> {
        self.config.db.as_ref()
    }

    /// Closes every game now, and waits for their engines to stop (the
    /// server stops).
    pub(crate) fn close_all(&self) {
        let sessions: Vec<Arc<Session>> = {
            let mut open = self.lock();
            open.rooms.clear();
            open.sessions.drain().map(|(_, s)| s).collect()
        };
        for session in sessions {
            session.close();
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().expect("not poisoned")
    }

    pub(crate) fn get(&self, id: u64) -> Option<Arc<Session>> {
        self.lock().sessions.get(&id).cloned()
    }

    /// A new game against the engine.
    pub(crate) fn create(&self, settings: Settings) -> Result<(u64, Arc<Session>), Refusal> {
        self.open_game(Some(self.engine()), settings, |_| None)
    }

    /// A new room, its creator at `color`: its game and the creator's
    /// seat token.
    pub(crate) fn create_room(
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
            let (room, seat) = Room::new(open.free_code(), color, Instant::now());
            token = seat;
            Some(room)
        })?;
        Ok((id, session, token))
    }

    /// Opens a game (with the room `room` makes, if it makes one) under
    /// a fresh, unguessable id.
    pub(crate) fn open_game(
        &self,
        engine: Option<EngineConfig>,
        settings: Settings,
        room: impl FnOnce(&Open) -> Option<Room>,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        self.open_game_as(None, engine, settings, room)
    }

    /// Opens a game as [`Games::open_game`] does, under the id `resumed`
    /// if it is a game resumed (a rated game after a restart).
    pub(crate) fn open_game_as(
        &self,
        resumed: Option<u64>,
        engine: Option<EngineConfig>,
        settings: Settings,
        room: impl FnOnce(&Open) -> Option<Room>,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        let mut open = self.lock();
        if counted(&open) >= self.config.max_games && resumed.is_none() {
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
        let told = (Arc::clone(&self.fair_play), self.observer.clone());
        let session = Arc::new(Session::new(id, engine, settings, room, told));
        open.sessions.insert(id, Arc::clone(&session));
        Ok((id, session))
    }

    /// Sits a browser down in the room of `code`, back at its seat with
    /// `token`: the game, the side and the seat's token.
    pub(crate) fn join(
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
    pub(crate) fn check_clocks(&self) {
        let sessions: Vec<Arc<Session>> = self.lock().sessions.values().cloned().collect();
        for session in sessions {
            session.check_clock();
        }
    }

    pub(crate) fn close_abandoned(&self) {
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

    /// Closes game `id`, its page gone.
    pub(crate) fn close(&self, id: u64) {
        let closed = self.lock().remove(id);
        retire(closed);
    }
}
