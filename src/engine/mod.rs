//! The engine front end: the game being played, the options, the table and
//! the running search, behind the calls the protocol makes.

pub(crate) mod options;

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use thiserror::Error;

use crate::board::{
    FenError, Game, IllegalMoveError, IllegalReason, Move, MoveToken, Outcome, Position,
};
use crate::search::SharedPlacingTable;
use crate::search::root::{SearchControl, first_choice, run_search};
use crate::search::{
    Bound, HashAllocError, SearchEvent, SearchLimits, SearchRequest, TranspositionTable,
};
use crate::solution::Database;

pub use options::{
    ELO_OF_SKILL, EngineOption, EngineOptions, MoveNotation, OptionError, OptionKind, OptionNote,
    ParseNotationError,
};

/// Bytes of the placing phase's first sectors read into memory in the
/// background at the start of a game (with `ReadAhead`), so that the first
/// moves find their values there.
const OPENING_READ_AHEAD: usize = 64 << 20;

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
    /// Threads of searches answered by the clock's watchdog while they
    /// waited for a read: they end at their next look at `stop`.
    stragglers: Vec<JoinHandle<()>>,
    /// The databases of the `EndgameDB` folder.
    db: Option<Arc<Database>>,
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
            stragglers: Vec::new(),
            db: None,
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
        self.join_stragglers();
        let mut options = self.options.clone();
        let option = options.set(name, value)?;
        let mut notes = Vec::new();
        if option == EngineOption::ClearHash {
            self.clear_hash();
        }
        if option == EngineOption::EndgameDb {
            match &options.endgame_db {
                None => self.db = None,
                Some(dir) => {
                    let (db, refused) = Database::open(dir)?;
                    notes.extend(refused.into_iter().map(OptionNote::DatabaseRefused));
                    notes.push(OptionNote::DatabasesLoaded { sectors: db.len() });
                    self.db = (!db.is_empty()).then(|| Arc::new(db));
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
        self.join_stragglers();
        self.clear_hash();
        self.game = Game::new(Position::new(self.options.rules));
        self.pending = None;
        if let Some(db) = self.db.as_deref().filter(|_| self.options.read_ahead) {
            db.read_ahead_opening(OPENING_READ_AHEAD);
        }
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
        self.set_game(start, moves)
    }

    /// Sets the game: from `start` through the moves, as
    /// [`Engine::set_position`] does; for a start read from another
    /// notation than the position string (GBGP's).
    ///
    /// # Errors
    ///
    /// A start under other rules than the engine's options
    /// ([`PositionError::OtherRules`]), or a [`PositionError`] naming the
    /// move (its index and token).
    pub fn set_game(&mut self, start: Position, moves: &[MoveToken]) -> Result<(), PositionError> {
        if start.rules() != self.options.rules {
            return Err(PositionError::OtherRules);
        }
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
            db: self.db.clone(),
            placing_table: self.placing_table.clone(),
            read_ahead: self.options.read_ahead,
            draws_to_win: self.options.draws_to_win,
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
        self.stragglers.retain(|thread| !thread.is_finished());
        let tt = Arc::clone(&self.tt);
        let answer = Arc::new(Answer::new(events, first_choice(&request, &tt)));
        let (running, done) = crossbeam_channel::bounded::<()>(0);
        if let Some(maximum) = request.time_manager(start).maximum() {
            let watch = ClockWatch {
                deadline: start + maximum,
                grace: request.move_overhead / 2,
                control: control.clone(),
                answer: Arc::clone(&answer),
            };
            std::thread::spawn(move || watch.run(&done));
        }
        let thread_control = control.clone();
        let thread = spawn_guarded(answer, move |send| {
            // The watchdog learns that the search ended when this is dropped.
            let _running = running;
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
        // The thread has sent its last event and is returning (after it
        // asks for what to read ahead), unless the watchdog answered for
        // it: then it is not waited for.
        self.stragglers.push(search.thread);
        self.stragglers.retain(|thread| !thread.is_finished());
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
        self.join_stragglers();
    }

    /// Waits for the threads of searches already answered, so that the
    /// table and the databases are this engine's alone again.
    fn join_stragglers(&mut self) {
        for thread in self.stragglers.drain(..) {
            let _ = thread.join();
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

/// The one answer of a search: its events pass through here on their way
/// to the protocol, so that the clock's watchdog can answer in its place
/// when it is stuck, after which what the search sends is dropped.
struct Answer {
    events: Sender<SearchEvent>,
    state: Mutex<AnswerState>,
}

struct AnswerState {
    /// The first move of the last exact main line, or the fallback.
    best_so_far: Option<Move>,
    answered: bool,
}

impl Answer {
    /// An answer not yet given, `fallback` the move to play if the search
    /// gives no better one.
    fn new(events: Sender<SearchEvent>, fallback: Option<Move>) -> Answer {
        Answer {
            events,
            state: Mutex::new(AnswerState {
                best_so_far: fallback,
                answered: false,
            }),
        }
    }

    /// Passes on an event of the search, unless the answer was given.
    fn send(&self, event: SearchEvent) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.answered {
            return;
        }
        match &event {
            SearchEvent::Info(info) if info.multipv == 1 && info.bound == Bound::Exact => {
                state.best_so_far = info.pv.first().copied().or(state.best_so_far);
            }
            SearchEvent::Choice { best } => state.best_so_far = Some(*best),
            SearchEvent::BestMove { .. } => state.answered = true,
            _ => {}
        }
        // The receiver outlives every search; a send fails only while
        // the engine shuts down, when the event is moot.
        let _ = self.events.send(event);
    }

    /// Answers with the best move so far, unless the answer was given;
    /// `overdue` when the search is late, so that the log says so.
    fn give_best_so_far(&self, overdue: bool) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.answered {
            state.answered = true;
            if overdue {
                let _ = self.events.send(SearchEvent::Overdue);
            }
            let _ = self.events.send(SearchEvent::BestMove {
                best: state.best_so_far,
                ponder: None,
            });
        }
    }
}

/// The watchdog of a timed search's clock. A search looks at the clock
/// between nodes, but a node can wait for a database read for as long as
/// the disk takes (a cold cache, a busy disk): at the deadline the
/// watchdog stops the search, and should it not answer within `grace`,
/// answers for it, so that no move is ever late.
struct ClockWatch {
    deadline: Instant,
    grace: Duration,
    control: SearchControl,
    answer: Arc<Answer>,
}

impl ClockWatch {
    /// How often a pondering search is looked at: its clock starts with
    /// `ponderhit`.
    const PONDER_LOOK: Duration = Duration::from_millis(1);

    /// Watches until the search ends (`done` disconnects) or is answered for.
    fn run(self, done: &Receiver<()>) {
        let ended = |waited: Result<(), RecvTimeoutError>| waited != Err(RecvTimeoutError::Timeout);
        while self.control.pondering.load(Ordering::Relaxed) {
            if ended(done.recv_timeout(Self::PONDER_LOOK)) {
                return;
            }
        }
        if ended(done.recv_deadline(self.deadline)) {
            return;
        }
        self.control.stop.store(true, Ordering::Relaxed);
        if !ended(done.recv_deadline(self.deadline + self.grace)) {
            self.answer.give_best_so_far(true);
        }
    }
}

/// Runs `search` on a thread of its own, passing its events on through
/// `answer`. Should it panic, the protocol still gets its answer: a
/// [`SearchEvent::Failed`], then the best move reported so far, so that
/// the engine is never left waiting for a search that is gone.
fn spawn_guarded(
    answer: Arc<Answer>,
    search: impl FnOnce(&mut dyn FnMut(SearchEvent)) + Send + 'static,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut send = |event: SearchEvent| answer.send(event);
        let result = panic::catch_unwind(AssertUnwindSafe(|| search(&mut send)));
        if let Err(payload) = result {
            let reason = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a search thread panicked".to_owned());
            answer.send(SearchEvent::Failed { reason });
            answer.give_best_so_far(false);
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
    /// A start position under other rules than the engine's.
    #[error("the start position is not under the engine's rules")]
    OtherRules,
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
        let request = SearchRequest::new(Position::startpos(), &[], SearchLimits::depth(3));
        events_of_request(request, search).0
    }

    /// The events of `search` over `request` up to its best move, and the
    /// channel the rest would come through.
    fn events_of_request(
        request: SearchRequest,
        search: SearchFn,
    ) -> ((Engine, Vec<SearchEvent>), Receiver<SearchEvent>) {
        let mut engine = Engine::new().unwrap();
        let (events, received) = unbounded();
        engine.launch(request, Instant::now(), events, search);
        let mut seen = Vec::new();
        while let Ok(event) = received.recv() {
            let done = matches!(event, SearchEvent::BestMove { .. });
            seen.push(event);
            if done {
                break;
            }
        }
        ((engine, seen), received)
    }

    /// A search to `movetime`, keeping `overhead` in reserve.
    fn timed(movetime: Duration, overhead: Duration) -> SearchRequest {
        let limits = SearchLimits {
            limits: vec![crate::search::Limit::MoveTime(movetime)],
            ..SearchLimits::default()
        };
        SearchRequest {
            move_overhead: overhead,
            ..SearchRequest::new(Position::startpos(), &[], limits)
        }
    }

    /// Held by a test to keep [`stuck_search`] waiting, as a read from a
    /// stalled disk would.
    static DISK: Mutex<()> = Mutex::new(());

    fn stuck_search(
        _: &SearchRequest,
        _: Arc<TranspositionTable>,
        _: &SearchControl,
        _: Instant,
        send: &mut dyn FnMut(SearchEvent),
    ) {
        drop(DISK.lock());
        send(SearchEvent::BestMove {
            best: Some("d6".parse().unwrap()),
            ponder: None,
        });
    }

    #[test]
    fn a_search_stuck_past_its_deadline_is_answered_for_and_its_late_answer_dropped() {
        let disk = DISK.lock().unwrap();
        let request = timed(Duration::from_millis(40), Duration::from_millis(20));
        let fallback = first_choice(&request, &TranspositionTable::new(1).unwrap());
        let ((mut engine, events), received) = events_of_request(request, stuck_search);
        // Answered while the search still waits, and said to be late.
        let [SearchEvent::Overdue, SearchEvent::BestMove { best, ponder }] = events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(best, fallback);
        engine.finish_search(best, ponder);
        assert!(!engine.is_searching());
        drop(disk);
        // The search's own answer, once its read returns, is not passed on:
        // the channel ends with nothing more.
        assert_eq!(received.recv().ok(), None);
        engine.shut_down();
    }

    /// Sends the databases' choice, then waits as [`stuck_search`] does.
    fn stuck_after_a_choice(
        _: &SearchRequest,
        _: Arc<TranspositionTable>,
        _: &SearchControl,
        _: Instant,
        send: &mut dyn FnMut(SearchEvent),
    ) {
        send(SearchEvent::Choice {
            best: "a7".parse().unwrap(),
        });
        drop(DISK.lock());
    }

    #[test]
    fn a_search_stuck_after_the_databases_chose_is_answered_with_their_choice() {
        let disk = DISK.lock().unwrap();
        let request = timed(Duration::from_millis(40), Duration::from_millis(20));
        let ((mut engine, events), _) = events_of_request(request, stuck_after_a_choice);
        let [
            SearchEvent::Choice { .. },
            SearchEvent::Overdue,
            SearchEvent::BestMove { best, ponder },
        ] = events[..]
        else {
            panic!("{events:?}");
        };
        assert_eq!(best, Some("a7".parse().unwrap()));
        engine.finish_search(best, ponder);
        drop(disk);
        engine.shut_down();
    }

    #[test]
    fn the_watchdog_stops_a_search_at_its_deadline_and_lets_it_answer() {
        let request = timed(Duration::from_millis(600), Duration::from_millis(500));
        // A search that never looks at the clock, only at `stop`.
        let ((_, events), _) = events_of_request(request, |_, _, control, _, send| {
            while !control.stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            send(SearchEvent::BestMove {
                best: Some("b4".parse().unwrap()),
                ponder: None,
            });
        });
        let [SearchEvent::BestMove { best, .. }] = events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(best, Some("b4".parse().unwrap()));
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
                exact: None,
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
