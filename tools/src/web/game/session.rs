//! One game (a browser's, or a room's between two) and its engine: the
//! handle the server holds, which locks the state, changes it, waits for
//! it to change, and sends the engine thread its jobs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use morris::{Color, Game, Position};
use tokio::sync::watch;

use crate::client::{EngineConfig, Info, position_command};
use crate::web::core::clock::Clock;
use crate::web::core::room::Room;
use crate::web::core::settings::{Settings, Strength};
use crate::web::core::state::{EngineView, State, Task};
use crate::web::core::version::first_version;
use crate::web::game::engine_thread::{common_options, kick, schedule, work};
use crate::web::game::fair_play::FairPlay;
use crate::web::game::shared::{Job, Observer, Search, Shared};

/// Why values, hints and reviews are off for a position: the words the
/// person is told.
pub const VALUES_OFF: &str =
    "a rated game in progress on this server stands on a position of this game";

/// How long a change waits for the observer to keep it before it is
/// answered all the same (the store is then told again, later).
const KEPT_WITHIN: Duration = Duration::from_secs(10);

/// One game and its engine.
pub struct Session {
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
    /// Whether the page was last told that fair play keeps values off
    /// the position, so that it hears at once when that changes.
    told_values_off: AtomicBool,
    spectators: Spectators,
}

/// The game's spectators: how many follow it, and the one view of it
/// they share, so that however many they are, the game's lock is taken
/// for them about once a change and not once a spectator.
#[derive(Default)]
struct Spectators {
    count: AtomicUsize,
    view: Mutex<Option<SharedView>>,
}

/// A view of the game made for its spectators.
struct SharedView {
    version: u64,
    made: Instant,
    body: Arc<str>,
}

impl Session {
    /// Game `id`, new, under `settings`, its engine started from `engine`
    /// (a game between two browsers has none), in `room` if it is a
    /// room's; its values kept off the positions of rated boards
    /// `fair_play` knows, and each change told to `observer`.
    pub fn new(
        id: u64,
        engine: Option<EngineConfig>,
        settings: Settings,
        room: Option<Room>,
        (fair_play, observer): (Arc<FairPlay>, Option<Arc<dyn Observer>>),
    ) -> Session {
        let (jobs, receive) = channel();
        let now = Instant::now();
        let mut state = State {
            version: first_version(),
            line: 1,
            game: Game::new(Position::new(settings.rules)),
            settings,
            engine: EngineView::default(),
            hint: None,
            ending: None,
            draw_offer: None,
            draw_declined: None,
            redo: Vec::new(),
            clock: settings
                .clock
                .map(|control| Clock::new(control, Color::White, None, now)),
            room,
            rated: None,
            review: None,
            set_up: false,
            last_seen: now,
            watchers: 0,
        };
        // A room's clock waits for the second player.
        state.stop_clock_unless_played(now);
        let shared = Arc::new_cyclic(|me| Shared {
            id,
            version: watch::channel(state.version).0,
            state: Mutex::new(state),
            cancel: AtomicBool::new(false),
            jobs: Mutex::new(jobs),
            fair_play,
            observer,
            me: me.clone(),
        });
        // Without an engine the jobs' receiver is dropped, so that none is
        // ever sent.
        let worker = engine.map(|engine| {
            let worker_shared = Arc::clone(&shared);
            std::thread::spawn(move || work(&engine, &worker_shared, &receive))
        });
        let session = Session {
            shared,
            worker: Mutex::new(worker),
            told_values_off: AtomicBool::new(false),
            spectators: Spectators::default(),
        };
        session.change(|_| Ok(())).expect("nothing to refuse");
        session
    }

    /// The state, locked.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().expect("not poisoned")
    }

    /// Whether fair play keeps values, hints and the engine's play from
    /// this game's `state` (locked): a rated game elsewhere stands on a
    /// position it went through.
    pub fn values_off(&self, state: &State) -> bool {
        self.shared.values_off(state)
    }

    /// The state's version, as it changes.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.shared.version.subscribe()
    }

    /// A page waits for news of the game until the guard goes: the game
    /// is shown meanwhile, and seen when it ends. The guard does not keep
    /// the game open.
    pub fn watched(self: &Arc<Self>) -> Watched {
        self.lock().watchers += 1;
        Watched(Arc::downgrade(self))
    }

    /// A spectator follows the game until the guard goes; the guard does
    /// not keep the game open.
    pub fn spectated(self: &Arc<Self>) -> Spectating {
        self.spectators.count.fetch_add(1, Ordering::Relaxed);
        Spectating(Arc::downgrade(self))
    }

    /// How many spectators follow the game.
    pub fn spectators(&self) -> usize {
        self.spectators.count.load(Ordering::Relaxed)
    }

    /// The view the spectators are sent: the one made last if the game
    /// has not changed since and it is at most `fresh_for` old (it gives
    /// the clocks as they were when it was made), else a new one made by
    /// `make` and kept for the others.
    pub fn spectators_view(&self, fresh_for: Duration, make: impl FnOnce() -> String) -> Arc<str> {
        // Held while the view is made: the spectators who ask meanwhile
        // take it, rather than each make its own.
        let mut kept = self.spectators.view.lock().expect("not poisoned");
        let version = *self.shared.version.borrow();
        let now = Instant::now();
        if let Some(view) = kept.as_ref()
            && view.version == version
            && now.saturating_duration_since(view.made) <= fresh_for
        {
            return Arc::clone(&view.body);
        }
        // The version read before the view is made: a change meanwhile
        // leaves it older than the game, to be made again.
        let body: Arc<str> = make().into();
        *kept = Some(SharedView {
            version,
            made: now,
            body: Arc::clone(&body),
        });
        body
    }

    /// Applies `edit` to the state; on success the page is told and the
    /// engine is asked to move if it is its turn. An engine thinking
    /// about a line that `edit` replaced, a game it ended, or a position
    /// it moved on from is stopped.
    ///
    /// # Errors
    ///
    /// What `edit` refused, as the page shows it (the state is then
    /// unchanged).
    pub fn change(
        &self,
        edit: impl FnOnce(&mut State) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut state = self.lock();
        state.last_seen = Instant::now();
        let (line, ply) = (state.line, state.game.moves().len());
        // Only a search under way before the edit can be unwanted: one the
        // edit itself asked for (a review) is not, and the engine thread
        // may already have taken it.
        let searching = state.engine.task.is_some();
        let was_over = state.ended().is_some();
        let result = edit(&mut state);
        let replaced = state.line != line;
        if replaced {
            state.hint = None;
            state.review = None;
        }
        // A search for a line replaced, or a game the edit ended, is not
        // wanted (a review of a game over before goes on); nor a hint for
        // a position moved on from, or the rest of a review of the game
        // before the move: a person who plays on wants the engine's reply,
        // not to wait for them.
        let moved = state.game.moves().len() != ply;
        if replaced || (moved && searching) {
            state.engine.thinking = Info::default();
        }
        let ended = !was_over && state.ended().is_some();
        if searching && (moved || replaced || ended) {
            self.shared.cancel.store(true, Ordering::Relaxed);
        }
        let values_off = self.shared.values_off(&state);
        self.told_values_off.store(values_off, Ordering::Relaxed);
        let receipt = self.shared.publish(&mut state);
        kick(&self.shared, &mut state);
        drop(state);
        // A rated game's move is answered once it is kept: a server killed
        // then has it.
        if let Some(receipt) = receipt {
            let _ = receipt.recv_timeout(KEPT_WITHIN);
        }
        result
    }

    /// Asks the engine for a move for the side to move.
    ///
    /// # Errors
    ///
    /// The engine is busy, has failed, or the game is over; or a rated
    /// game stands on the position.
    pub fn hint(&self) -> Result<(), String> {
        self.change(|state| {
            if self.shared.values_off(state) {
                return Err(format!("no hint: {VALUES_OFF}"));
            }
            if state.engine.task.is_some() {
                return Err("the engine is thinking".to_owned());
            }
            if let Some(failure) = &state.engine.failure {
                return Err(format!("the engine is stopped: {failure}"));
            }
            if state.ended().is_some() {
                return Err("the game is over".to_owned());
            }
            schedule(&self.shared, state, Task::Hint);
            Ok(())
        })
    }

    /// A draw offered or answered by `act`, told whether fair play keeps
    /// the position's value off, which says whether the engine is to
    /// weigh an offer made to it (it is then asked).
    ///
    /// # Errors
    ///
    /// What `act` refused (the state is then unchanged).
    pub fn draw(
        &self,
        act: impl FnOnce(&mut State, bool) -> Result<bool, String>,
    ) -> Result<(), String> {
        self.change(|state| {
            let values_off = self.shared.values_off(state);
            if act(state, values_off)? {
                schedule(&self.shared, state, Task::DrawOffer);
            }
            Ok(())
        })
    }

    /// Reviews the game: `begin` judges what the databases reach and
    /// returns the places of the positions left for the engine, which is
    /// then asked, all in one change of the state.
    ///
    /// # Errors
    ///
    /// What `begin` refused, or the engine is needed and busy or failed,
    /// or a rated game stands on a position of the game (the state is
    /// then unchanged).
    pub fn review(
        &self,
        begin: impl FnOnce(&mut State) -> Result<Vec<usize>, String>,
    ) -> Result<(), String> {
        self.change(|state| {
            if self.shared.values_off(state) {
                return Err(format!("no review: {VALUES_OFF}"));
            }
            let previous = state.review.clone();
            let positions = begin(state)?;
            if positions.is_empty() {
                return Ok(());
            }
            let refusal = if state.engine.task.is_some() {
                Some("the engine is thinking: review when it is done".to_owned())
            } else {
                state
                    .engine
                    .failure
                    .as_ref()
                    .map(|failure| format!("the engine is stopped: {failure}"))
            };
            if let Some(refusal) = refusal {
                state.review = previous;
                return Err(refusal);
            }
            let game = &state.game;
            let start = format!("position fen {} moves", game.start().fen());
            let search = Search::Review {
                line: state.line,
                positions: positions
                    .into_iter()
                    .map(|ply| (ply, position_command(&start, &game.moves()[..ply], false)))
                    .collect(),
            };
            let job = Job::Search(search, common_options(state, Strength::Full));
            let sent = self.shared.jobs.lock().expect("not poisoned").send(job);
            if sent.is_err() {
                state.review = previous;
                return Err("no engine here".to_owned());
            }
            state.engine.task = Some(Task::Review);
            Ok(())
        })
    }

    /// Ends the game if the side to move's time ran out; the page is
    /// told, as it is when fair play takes the position's values off or
    /// gives them back (the engine then plays if it is its turn).
    pub fn check_clock(&self) {
        let mut state = self.lock();
        let values_off = self.shared.values_off(&state);
        let told = self.told_values_off.swap(values_off, Ordering::Relaxed) != values_off;
        let flagged = state.check_clock(Instant::now());
        if flagged && state.engine.task.is_some() {
            self.shared.cancel.store(true, Ordering::Relaxed);
        }
        if flagged || told {
            self.shared.publish(&mut state);
            kick(&self.shared, &mut state);
        }
    }

    /// Starts the engine afresh after a failure.
    pub fn restart(&self) {
        let _ = self.send(Job::Restart);
    }

    fn send(&self, job: Job) -> Result<(), ()> {
        let jobs = self.shared.jobs.lock().expect("not poisoned");
        jobs.send(job).map_err(drop)
    }

    /// Stops the engine process and its thread.
    pub fn close(&self) {
        if let Some(observer) = &self.shared.observer {
            observer.closed(self.shared.id);
        }
        self.shared.cancel.store(true, Ordering::Relaxed);
        let _ = self.send(Job::Quit);
        if let Some(worker) = self.worker.lock().expect("not poisoned").take() {
            let _ = worker.join();
        }
    }
}

/// A spectator following a game: see [`Session::spectated`].
pub struct Spectating(Weak<Session>);

impl Drop for Spectating {
    fn drop(&mut self) {
        if let Some(session) = self.0.upgrade() {
            session.spectators.count.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// A page waiting for news of a game: see [`Session::watched`].
pub struct Watched(Weak<Session>);

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(session) = self.0.upgrade() {
            let mut state = session.lock();
            state.watchers -= 1;
            state.last_seen = Instant::now();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}
