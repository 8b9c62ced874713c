//! What a game's handle, its engine thread and the rest of the server
//! share: the state under its lock, the jobs sent to the engine thread,
//! and the observer every change is told to.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::watch;

use crate::web::core::state::{State, Task};
use crate::web::game::fair_play::FairPlay;

/// A job for the engine thread.
pub(crate) enum Job {
    /// Search, under these options (all the engine needs, sent when they
    /// differ from the last).
    Search(Search, Vec<(String, String)>),
    Restart,
    Quit,
}

/// What the engine searches for.
pub(crate) enum Search {
    /// A move for the position of `ply` moves of `line`.
    Move {
        line: u64,
        ply: usize,
        task: Task,
        position: String,
        movetime: Duration,
        /// The least time from the question to the move shown.
        pace: Duration,
        /// Whether the engine plays below full strength.
        weakened: bool,
    },
    /// The value of each position (its index in the game, and its
    /// `position` command) for the review of `line`.
    Review {
        line: u64,
        positions: Vec<(usize, String)>,
    },
}

/// What a game's handle and its engine thread share.
pub(crate) struct Shared {
    /// The game's number.
    pub(crate) id: u64,
    pub(crate) state: Mutex<State>,
    /// The state's version, for the pages waiting for news.
    pub(crate) version: watch::Sender<u64>,
    /// Set to make the engine thread give up its current search.
    pub(crate) cancel: AtomicBool,
    pub(crate) jobs: Mutex<Sender<Job>>,
    /// The positions on rated boards in play.
    pub(crate) fair_play: Arc<FairPlay>,
    /// Told of every change.
    pub(crate) observer: Option<Arc<dyn Observer>>,
    /// This, for the observer to come back to.
    pub(crate) me: Weak<Shared>,
}

impl Shared {
    /// Whether fair play keeps values, hints, reviews and the engine's play
    /// from `state`'s game: a rated game in play elsewhere stands on a
    /// position it went through.
    pub(crate) fn values_off(&self, state: &State) -> bool {
        state.rated.is_none() && self.fair_play.stands_in(&state.game)
    }

    /// Tells the pages waiting, and the observer, of a change made to
    /// `state` (this game's, locked): the version goes up. The observer's
    /// receipt, if the change is to be kept before it is answered.
    pub(crate) fn publish(&self, state: &mut State) -> Option<Receipt> {
        state.version += 1;
        let game = GameHandle(self.me.clone());
        let receipt = self
            .observer
            .as_ref()
            .and_then(|observer| observer.changed(self.id, state, &game));
        self.version.send_replace(state.version);
        receipt
    }
}

/// Told when what the observer was to do of a change is done.
pub type Receipt = Receiver<()>;

/// Hears of every change of every game, under the game's lock: it must
/// neither wait nor take the game's lock itself (it comes back to the
/// game through its [`GameHandle`], later, from elsewhere).
pub trait Observer: Send + Sync {
    /// Game `id` changed to `state`; a receipt if the change is to be
    /// kept before the person who made it is answered.
    fn changed(&self, id: u64, state: &State, game: &GameHandle) -> Option<Receipt>;

    /// Game `id` is closed.
    fn closed(&self, id: u64);
}

/// A way back to a game, which does not keep it open.
#[derive(Clone)]
pub struct GameHandle(Weak<Shared>);

impl GameHandle {
    /// Applies `edit` to the game's state, if the game is still open; its
    /// pages are told.
    pub fn edit(&self, edit: impl FnOnce(&mut State)) {
        if let Some(shared) = self.0.upgrade() {
            let mut state = shared.state.lock().expect("not poisoned");
            edit(&mut state);
            shared.publish(&mut state);
        }
    }
}
