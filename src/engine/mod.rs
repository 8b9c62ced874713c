//! The engine front end: the game being played, the options, the table and
//! the running search, behind the calls the protocol makes.

pub(crate) mod options;

use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use thiserror::Error;

use crate::board::{
    FenError, Game, IllegalMoveError, IllegalReason, Move, MoveToken, Outcome, Position,
};
use crate::endgame::{EndgameDb, SharedPlacingTable};
use crate::search::root::{SearchControl, run_search};
use crate::search::{
    Bound, HashAllocError, SearchEvent, SearchLimits, SearchRequest, TranspositionTable,
};

pub use options::{
    ELO_OF_SKILL, EngineOption, EngineOptions, MoveNotation, OptionError, OptionKind, OptionNote,
    ParseNotationError,
};

/// How a `go` began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoStart {
    /// A search runs and will send its events.
    Searching,
    /// The game is over: there is nothing to search.
    GameOver(Outcome),
}

struct RunningSearch {
    control: SearchControl,
    thread: JoinHandle<()>,
    /// The action of a split turn whose removal is being searched.
    pending: Option<Move>,
}

/// The answer of a finished search, for the protocol to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BestMove {
    /// The move to play, `None` when there is none.
    pub best: Option<Move>,
    /// The reply expected, to ponder on.
    pub ponder: Option<Move>,
    /// The mill-closing action, given without its removal, that `best`
    /// completes: only the removal is news to the GUI.
    pub completes: Option<Move>,
}

/// The engine: a game, options, a transposition table and at most one
/// running search.
pub struct Engine {
    options: EngineOptions,
    tt: Arc<TranspositionTable>,
    game: Game,
    /// A mill-closing action given without its removal (split notation).
    pending: Option<Move>,
    search: Option<RunningSearch>,
    /// The endgame databases of the `EndgameDB` folder.
    endgame: Option<Arc<EndgameDb>>,
    /// What solving the end of placing proved over these databases and
    /// rules, kept from move to move.
    placing_table: SharedPlacingTable,
}

impl Engine {
    /// An engine with the default options at the start position.
    ///
    /// # Errors
    ///
    /// If the default table cannot be allocated.
    pub fn new() -> Result<Engine, HashAllocError> {
        let options = EngineOptions::default();
        Ok(Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mib)?),
            game: Game::new(Position::new(options.rules)),
            pending: None,
            search: None,
            endgame: None,
            placing_table: SharedPlacingTable::default(),
            options,
        })
    }

    /// The current option values.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// The game: its start, its moves and the current position.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The action waiting for its removal, if the last `position` ended
    /// with a mill-closing action in split notation.
    pub fn pending(&self) -> Option<Move> {
        self.pending
    }

    /// Whether a search is running.
    pub fn is_searching(&self) -> bool {
        self.search.is_some()
    }

    /// Sets an option. Changing the rules (`Variant`, `Flying`,
    /// `NMoveRule`) starts a new game from the start position.
    ///
    /// # Errors
    ///
    /// An unknown option, a bad value, a table that cannot be allocated, or
    /// a search still running; the engine is then unchanged.
    /// Returns what a person should know of the change: database files
    /// left out, and how many were loaded.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<Vec<OptionNote>, OptionError> {
        if self.is_searching() {
            return Err(OptionError::Busy);
        }
        let mut options = self.options.clone();
        let option = options.set(name, value)?;
        let mut notes = Vec::new();
        if option == EngineOption::ClearHash {
            self.clear_hash();
        }
        if option == EngineOption::EndgameDb {
            match &options.endgame_db {
                None => self.endgame = None,
                Some(dir) => {
                    let (db, refused) = EndgameDb::open(dir)?;
                    notes.extend(refused.into_iter().map(OptionNote::DatabaseRefused));
                    notes.push(OptionNote::DatabasesLoaded { sectors: db.len() });
                    self.endgame = (!db.is_empty()).then(|| Arc::new(db));
                }
            }
        }
        if option == EngineOption::Hash && options.hash_mib != self.options.hash_mib {
            // Free the old table first, so that both never take memory at once.
            self.tt = Arc::new(TranspositionTable::new(1)?);
            match TranspositionTable::new(options.hash_mib) {
                Ok(tt) => self.tt = Arc::new(tt),
                Err(err) => {
                    self.tt = Arc::new(TranspositionTable::new(self.options.hash_mib)?);
                    return Err(err.into());
                }
            }
        }
        if options.rules != self.options.rules {
            self.game = Game::new(Position::new(options.rules));
            self.pending = None;
        }
        if options.rules != self.options.rules || option == EngineOption::EndgameDb {
            self.placing_table.clear();
        }
        self.options = options;
        Ok(notes)
    }

    /// Forgets what earlier searches learnt and goes back to the start
    /// position.
    ///
    /// # Errors
    ///
    /// [`GoError::AlreadySearching`] while a search runs.
    pub fn new_game(&mut self) -> Result<(), GoError> {
        if self.is_searching() {
            return Err(GoError::AlreadySearching);
        }
        self.clear_hash();
        self.game = Game::new(Position::new(self.options.rules));
        self.pending = None;
        Ok(())
    }

    /// Empties the transposition table and what the end-of-placing
    /// solver proved; no search may be running.
    fn clear_hash(&mut self) {
        // No search holds the table now, so it can be cleared in place.
        if let Some(tt) = Arc::get_mut(&mut self.tt) {
            tt.clear();
        }
        self.placing_table.clear();
    }

    /// Sets the game: from `fen` (the start position if `None`) through
    /// the moves, whole turns or split ones (an action, then its removal).
    /// The whole command is checked on a copy; on error nothing changes.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] naming the field or the move (its index and token).
    pub fn set_position(
        &mut self,
        fen: Option<&str>,
        moves: &[MoveToken],
    ) -> Result<(), PositionError> {
        let start = match fen {
            Some(fen) => Position::from_fen(fen, self.options.rules)?,
            None => Position::new(self.options.rules),
        };
        let mut game = Game::new(start);
        let mut pending: Option<(usize, Move)> = None;
        for (index, &token) in (1..).zip(moves) {
            let illegal = |error| PositionError::Illegal {
                index,
                token: token.to_string(),
                error,
            };
            match (token, pending.take()) {
                (MoveToken::Removal(removal), Some((_, action))) => {
                    game.try_play(action.removing(removal)).map_err(illegal)?;
                }
                (MoveToken::Removal(_), None) => {
                    return Err(PositionError::StrayRemoval {
                        index,
                        token: token.to_string(),
                    });
                }
                (MoveToken::Turn(_), Some((action_index, action))) => {
                    return Err(PositionError::RemovalExpected {
                        index: action_index,
                        token: action.to_string(),
                    });
                }
                (MoveToken::Turn(mv), None) => match game.try_play(mv) {
                    Ok(()) => {}
                    Err(err) if err.reason == IllegalReason::MissingRemoval => {
                        pending = Some((index, mv));
                    }
                    Err(err) => return Err(illegal(err)),
                },
            }
        }
        self.game = game;
        self.pending = pending.map(|(_, action)| action);
        Ok(())
    }

    /// Starts a search of the current position on its own thread; its
    /// events go to `events`, the last being the best move.
    ///
    /// # Errors
    ///
    /// A search already running, or a `searchmoves` move that is illegal.
    pub fn go(
        &mut self,
        mut limits: SearchLimits,
        events: Sender<SearchEvent>,
    ) -> Result<GoStart, GoError> {
        let start = Instant::now();
        if self.is_searching() {
            return Err(GoError::AlreadySearching);
        }
        let root = *self.game.position();
        if let Some(mv) = limits.search_moves.iter().find(|&&mv| !root.is_legal(mv)) {
            return Err(GoError::IllegalSearchMove(mv.to_string()));
        }
        if let Some(action) = self.pending {
            // Search only the turns that begin with the action given.
            let completions = root
                .completions(action)
                .into_iter()
                .filter(|mv| limits.search_moves.is_empty() || limits.search_moves.contains(mv));
            limits.search_moves = completions.collect();
        } else if let Some(outcome) = self.game.outcome() {
            return Ok(GoStart::GameOver(outcome));
        }
        let request = SearchRequest {
            root,
            game_keys: self.game.keys().to_vec(),
            limits,
            threads: self.options.threads,
            multipv: self.options.multipv,
            skill: self.options.effective_skill(),
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            endgame: self.endgame.clone(),
            placing_table: self.placing_table.clone(),
        };
        self.launch(
            request,
            start,
            events,
            |request, tt, control, start, send| run_search(request, tt, control, start, send),
        );
        Ok(GoStart::Searching)
    }

    /// Runs `search` over `request` on a thread of its own (see
    /// [`spawn_guarded`]) and counts it as the running search.
    fn launch(
        &mut self,
        request: SearchRequest,
        start: Instant,
        events: Sender<SearchEvent>,
        search: SearchFn,
    ) {
        let control = SearchControl::default();
        control
            .pondering
            .store(request.limits.ponder, Ordering::Relaxed);
        let tt = Arc::clone(&self.tt);
        let thread_control = control.clone();
        let thread = spawn_guarded(events, fallback_move(&request), move |send| {
            search(&request, tt, &thread_control, start, send);
        });
        self.search = Some(RunningSearch {
            control,
            thread,
            pending: self.pending,
        });
    }

    /// Asks the running search, if any, to end; its best move follows.
    pub fn stop(&self) {
        if let Some(search) = &self.search {
            search.control.stop.store(true, Ordering::Relaxed);
        }
    }

    /// The pondered move was played: the running search goes on under the clock.
    pub fn ponderhit(&self) {
        if let Some(search) = &self.search {
            search.control.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Ends the bookkeeping of a search that sent its best move.
    pub fn finish_search(&mut self, best: Option<Move>, ponder: Option<Move>) -> BestMove {
        let Some(search) = self.search.take() else {
            return BestMove::default();
        };
        // The thread has sent its last event and is returning.
        let _ = search.thread.join();
        BestMove {
            best,
            ponder: best.and(ponder),
            completes: best.and(search.pending),
        }
    }

    /// Stops the running search, if any, and waits for its thread.
    pub fn shut_down(&mut self) {
        self.stop();
        if let Some(search) = self.search.take() {
            let _ = search.thread.join();
        }
    }
}

/// A whole search: [`run_search`], or a stand-in in tests.
type SearchFn = fn(
    &SearchRequest,
    Arc<TranspositionTable>,
    &SearchControl,
    Instant,
    &mut dyn FnMut(SearchEvent),
);

/// The move to play if the search fails before it finds one: the first it
/// would have searched.
fn fallback_move(request: &SearchRequest) -> Option<Move> {
    match request.limits.search_moves.first() {
        Some(&mv) => Some(mv),
        None => request.root.legal_moves().first().copied(),
    }
}

/// Runs `search` on a thread of its own, passing its events on. Should it
/// panic, the protocol still gets its answer: a [`SearchEvent::Failed`],
/// then the best move reported so far (or `fallback`), so that the engine
/// is never left waiting for a search that is gone.
fn spawn_guarded(
    events: Sender<SearchEvent>,
    fallback: Option<Move>,
    search: impl FnOnce(&mut dyn FnMut(SearchEvent)) + Send + 'static,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut best_so_far = fallback;
        let mut answered = false;
        let mut send = |event: SearchEvent| {
            match &event {
                SearchEvent::Info(info) if info.multipv == 1 && info.bound == Bound::Exact => {
                    best_so_far = info.pv.first().copied().or(best_so_far);
                }
                SearchEvent::BestMove { .. } => answered = true,
                _ => {}
            }
            // The receiver outlives every search; a send fails only while
            // the engine shuts down, when the event is moot.
            let _ = events.send(event);
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| search(&mut send)));
        if let Err(payload) = result {
            let reason = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a search thread panicked".to_owned());
            let _ = events.send(SearchEvent::Failed { reason });
            if !answered {
                let _ = events.send(SearchEvent::BestMove {
                    best: best_so_far,
                    ponder: None,
                });
            }
        }
    })
}

/// A `position` command that cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// The position string is bad.
    #[error("fen: {0}")]
    Fen(#[from] FenError),
    /// A move is not legal where it is played.
    #[error("move {index} ('{token}'): {error}")]
    Illegal {
        /// The move's place in the list, from 1.
        index: usize,
        /// The token.
        token: String,
        /// Why it is illegal.
        error: IllegalMoveError,
    },
    /// A lone `x<point>` that follows no mill-closing action.
    #[error("move {index} ('{token}'): a removal must follow a move that closes a mill")]
    StrayRemoval {
        /// The token's place in the list, from 1.
        index: usize,
        /// The token.
        token: String,
    },
    /// A mill-closing action followed by something other than its removal.
    #[error(
        "move {index} ('{token}'): closes a mill, so the next token must be its removal (x<point>)"
    )]
    RemovalExpected {
        /// The action's place in the list, from 1.
        index: usize,
        /// The action's token.
        token: String,
    },
}

/// A `go` that cannot start.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GoError {
    /// A search is already running.
    #[error("a search is already running (send stop first)")]
    AlreadySearching,
    /// A `searchmoves` entry is not a legal move.
    #[error("searchmoves: '{0}' is not a legal move here")]
    IllegalSearchMove(String),
}

#[cfg(test)]
mod tests {
    use crossbeam_channel::unbounded;

    use super::*;
    use crate::search::worker::SearchInfo;

    fn events_of(search: SearchFn) -> (Engine, Vec<SearchEvent>) {
        let mut engine = Engine::new().unwrap();
        let (events, received) = unbounded();
        let request = SearchRequest::new(Position::startpos(), &[], SearchLimits::depth(3));
        engine.launch(request, Instant::now(), events, search);
        let mut seen = Vec::new();
        while let Ok(event) = received.recv() {
            let done = matches!(event, SearchEvent::BestMove { .. });
            seen.push(event);
            if done {
                break;
            }
        }
        (engine, seen)
    }

    #[test]
    fn a_search_that_panics_still_answers_and_the_engine_goes_on() {
        let (mut engine, events) = events_of(|_, _, _, _, send| {
            let pv = vec!["f4".parse().unwrap(), "d6".parse().unwrap()];
            send(SearchEvent::Info(SearchInfo {
                depth: 1,
                seldepth: 1,
                multipv: 1,
                score: crate::search::Score::Cp(0),
                bound: Bound::Exact,
                nodes: 1,
                time: Duration::ZERO,
                hashfull: 0,
                dbhits: 0,
                pv,
            }));
            panic!("planted failure");
        });
        let [SearchEvent::Info(_), SearchEvent::Failed { reason }, last] = &events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(reason, "planted failure");
        // The best move reported before the failure is played.
        let SearchEvent::BestMove { best, ponder } = *last else {
            panic!("{last:?}");
        };
        assert_eq!(best, Some("f4".parse().unwrap()));
        let answer = engine.finish_search(best, ponder);
        assert_eq!(answer.best, best);
        assert!(!engine.is_searching());
        let (events, received) = unbounded();
        assert_eq!(
            engine.go(SearchLimits::depth(2), events),
            Ok(GoStart::Searching)
        );
        while let Ok(event) = received.recv() {
            if let SearchEvent::BestMove { best, ponder } = event {
                assert!(best.is_some_and(|mv| Position::startpos().is_legal(mv)));
                engine.finish_search(best, ponder);
                break;
            }
        }
    }

    #[test]
    fn a_search_that_panics_at_once_plays_a_legal_move() {
        let (_, events) = events_of(|_, _, _, _, _| panic!("{}", String::from("at once")));
        let [
            SearchEvent::Failed { reason },
            SearchEvent::BestMove { best, .. },
        ] = &events[..]
        else {
            panic!("{events:?}");
        };
        assert_eq!(reason, "at once");
        assert!(best.is_some_and(|mv| Position::startpos().is_legal(mv)));
    }
}
