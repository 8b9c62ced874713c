//! The keeper of rated games: it hears of every change of a rated game
//! (under the game's lock, where it only notes the position for fair play
//! and queues what the store is to be told) and, on a thread of its own,
//! keeps each game in the store move by move while it goes on (so that a
//! restart resumes it), then writes its result and both new ratings the
//! moment it is over, however it ended: by the rules, a resignation, a
//! draw agreed, a side's time run out, or a player gone. A write that
//! fails is told on the server's error output and tried again.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use morris::{Color, GameResult};

use crate::web::core::record;
use crate::web::core::state::State;
use crate::web::game::fair_play::{FairPlay, Stand};
use crate::web::game::shared::{GameHandle, Observer, Receipt};
use crate::web::rated::lobby::Lobby;
use crate::web::rated::store::{FinishedGame, PlayerId, Store, TimesLeft};

/// How long a write that failed waits before it is tried again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Each side's time left on `state`'s clock now.
pub fn time_left(state: &State) -> Option<TimesLeft> {
    let now = Instant::now();
    let clock = state.clock?;
    let ms = |time: Duration| u64::try_from(time.as_millis()).unwrap_or(u64::MAX);
    let since_1970 = SystemTime::now().duration_since(UNIX_EPOCH);
    Some(TimesLeft {
        ms: Color::ALL.map(|color| ms(clock.left(color, now))),
        at: since_1970.ok().map(ms),
    })
}

/// The moves of `state`'s game as the store keeps them.
fn moves_text(state: &State) -> String {
    let moves: Vec<String> = state.game.moves().iter().map(ToString::to_string).collect();
    moves.join(" ")
}

/// What the store is to be told of a rated game.
enum Keep {
    /// Its moves so far and the clock's times after them.
    Moves {
        moves: String,
        left: Option<TimesLeft>,
        /// Whether it is a correspondence game, whose players' lists of
        /// games in the lobby say whose turn it is.
        correspondence: bool,
    },
    /// Its end.
    Finished {
        players: [PlayerId; 2],
        result: GameResult,
        termination: String,
        record: String,
        plies: usize,
        /// The game, told its players' new ratings once kept.
        game: GameHandle,
    },
}

/// A write for game `id`, and who waits for it.
struct Write {
    id: u64,
    keep: Keep,
    /// Told once the write was tried.
    done: Option<Sender<()>>,
}

/// How far the keeper was told of each rated game open.
#[derive(Clone, Copy, Default)]
struct Told {
    plies: Option<usize>,
    finished: bool,
}

/// Keeps the rated games in the store, and their positions known to fair
/// play: the [`Observer`] of every game.
pub struct Keeper {
    fair_play: Arc<FairPlay>,
    told: Mutex<HashMap<u64, Told>>,
    writes: Mutex<Option<Sender<Write>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Keeper {
    /// A keeper writing to `store`, freeing the players of each game over
    /// in `lobby`, and telling `fair_play` where the games in play stand.
    pub fn start(store: Arc<Store>, lobby: Arc<Lobby>, fair_play: Arc<FairPlay>) -> Keeper {
        let (writes, queue) = channel();
        let thread = std::thread::spawn(move || write_all(&store, &lobby, &queue));
        Keeper {
            fair_play,
            told: Mutex::new(HashMap::new()),
            writes: Mutex::new(Some(writes)),
            thread: Mutex::new(Some(thread)),
        }
    }

    /// Writes what is queued and stops.
    pub fn stop(&self) {
        self.writes.lock().expect("not poisoned").take();
        if let Some(thread) = self.thread.lock().expect("not poisoned").take() {
            let _ = thread.join();
        }
    }

    fn send(&self, write: Write) {
        if let Some(writes) = self.writes.lock().expect("not poisoned").as_ref() {
            let _ = writes.send(write);
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Observer for Keeper {
    fn changed(&self, id: u64, state: &State, game: &GameHandle) -> Option<Receipt> {
        let rated = state.rated.as_ref()?;
        let ended = state.ended();
        let plies = state.game.moves().len();
        let mut told = self.told.lock().expect("not poisoned");
        let told = told.entry(id).or_default();
        // A rated game's position changes only with a move (most changes
        // are the engine's news), and stands nowhere once the game is over.
        if ended.is_some() {
            self.fair_play.stand(id, None);
        } else if told.plies != Some(plies) {
            self.fair_play.stand(id, Stand::of(state.game.position()));
        }
        if rated.after.is_some() {
            return None;
        }
        let keep = match ended {
            Some(_) if told.finished => return None,
            Some(ended) => {
                told.finished = true;
                Keep::Finished {
                    players: Color::ALL.map(|color| rated.player(color).id),
                    result: GameResult::from_winner(ended.winner()),
                    termination: ended.to_string(),
                    record: record::record_text(state),
                    plies,
                    game: game.clone(),
                }
            }
            None if told.plies == Some(plies) => return None,
            None => {
                told.plies = Some(plies);
                Keep::Moves {
                    moves: moves_text(state),
                    left: time_left(state),
                    correspondence: state.settings.is_correspondence(),
                }
            }
        };
        let (done, receipt) = channel();
        self.send(Write {
            id,
            keep,
            done: Some(done),
        });
        Some(receipt)
    }

    fn closed(&self, id: u64) {
        self.fair_play.stand(id, None);
        self.told.lock().expect("not poisoned").remove(&id);
    }
}

/// The keeper's thread: writes each game's news in turn until the keeper
/// stops, and tries those that failed again (only a game's latest: its
/// moves are written whole, and its end ends it) until they are written.
fn write_all(store: &Store, lobby: &Lobby, queue: &Receiver<Write>) {
    let mut failed: Vec<Write> = Vec::new();
    loop {
        let next = if failed.is_empty() {
            queue.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            queue.recv_timeout(RETRY_AFTER)
        };
        let writes = match next {
            Ok(write) => vec![write],
            Err(RecvTimeoutError::Timeout) => std::mem::take(&mut failed),
            Err(RecvTimeoutError::Disconnected) if failed.is_empty() => return,
            // Stopping: each game's latest once more.
            Err(RecvTimeoutError::Disconnected) => {
                for write in std::mem::take(&mut failed) {
                    let _ = try_write(store, lobby, write);
                }
                return;
            }
        };
        for write in writes {
            // A game's news supersedes what failed of it before.
            failed.retain(|older| older.id != write.id);
            if let Err(write) = try_write(store, lobby, write) {
                failed.push(write);
            }
        }
    }
}

/// Writes `write`; a game over has its players freed in `lobby` and is
/// told their ratings. The write back, if it failed.
fn try_write(store: &Store, lobby: &Lobby, mut write: Write) -> Result<(), Write> {
    let written = match &write.keep {
        Keep::Moves {
            moves,
            left,
            correspondence,
        } => {
            let written = store.update_live(write.id, moves, *left);
            if *correspondence {
                lobby.news();
            }
            written
        }
        Keep::Finished {
            players,
            result,
            termination,
            record,
            plies,
            game,
        } => {
            let finished = FinishedGame {
                white: players[0],
                black: players[1],
                result: *result,
                termination,
                record,
                plies: *plies,
                live: Some(write.id),
            };
            store.finish(&finished).map(|rated| {
                game.edit(|state| {
                    if let Some(players) = &mut state.rated {
                        players.after = Some(rated);
                    }
                });
                lobby.ended(write.id, players);
            })
        }
    };
    // Whoever waits hears once: the first try tells.
    if let Some(done) = write.done.take() {
        let _ = done.send(());
    }
    match written {
        Ok(()) => Ok(()),
        Err(e) => {
            eprintln!("morris-web: the store: {e:#}");
            Err(write)
        }
    }
}
