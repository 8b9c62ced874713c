//! The engine front end: the game being played, the options, the table and
//! the running search, behind the calls the protocol makes.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::endgame::EndgameDb;
use crate::error::{GoError, IllegalReason, OptionError, PositionError};
use crate::game::{Game, Outcome};
use crate::limits::SearchLimits;
use crate::moves::Move;
use crate::options::{EngineOptions, MoveNotation};
use crate::position::Position;
use crate::search::SearchEvent;
use crate::threads::{SearchControl, SearchRequest, run_search};
use crate::tt::TranspositionTable;
use crate::types::Square;

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
    infinite: bool,
    /// The action of a split turn whose removal is being searched.
    pending: Option<Move>,
    notation: MoveNotation,
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
}

impl Engine {
    /// An engine with the default options at the start position.
    ///
    /// # Errors
    ///
    /// If the default table cannot be allocated.
    pub fn new() -> Result<Engine, OptionError> {
        let options = EngineOptions::default();
        Ok(Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mib)?),
            game: Game::new(Position::new(options.rules)),
            pending: None,
            search: None,
            endgame: None,
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

    /// Whether the running search waits for `stop` (infinite or ponder).
    pub fn search_waits_for_stop(&self) -> bool {
        self.search
            .as_ref()
            .is_some_and(|s| s.infinite || s.control.pondering.load(Ordering::Relaxed))
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
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<Vec<String>, OptionError> {
        if self.is_searching() {
            return Err(OptionError::Busy);
        }
        let mut options = self.options.clone();
        let name = options.set(name, value)?;
        let mut notes = Vec::new();
        if name == "EndgameDB" {
            if options.endgame_db.is_empty() {
                self.endgame = None;
            } else {
                let (db, rejected) =
                    EndgameDb::open(Path::new(&options.endgame_db)).map_err(|err| {
                        OptionError::BadValue {
                            name: "EndgameDB",
                            value: options.endgame_db.clone(),
                            expected: format!("a readable folder ({err})"),
                        }
                    })?;
                notes.extend(
                    rejected
                        .iter()
                        .map(|err| format!("endgame database left out: {err}")),
                );
                notes.push(format!("endgame databases: {} sectors loaded", db.len()));
                self.endgame = (!db.is_empty()).then(|| Arc::new(db));
            }
        }
        if name == "Hash" && options.hash_mib != self.options.hash_mib {
            // Free the old table first, so that both never take memory at once.
            self.tt = Arc::new(TranspositionTable::new(1)?);
            match TranspositionTable::new(options.hash_mib) {
                Ok(tt) => self.tt = Arc::new(tt),
                Err(err) => {
                    self.tt = Arc::new(TranspositionTable::new(self.options.hash_mib)?);
                    return Err(err);
                }
            }
        }
        if options.rules != self.options.rules {
            self.game = Game::new(Position::new(options.rules));
            self.pending = None;
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
        // No search holds the table now, so it can be cleared in place.
        if let Some(tt) = Arc::get_mut(&mut self.tt) {
            tt.clear();
        }
        self.game = Game::new(Position::new(self.options.rules));
        self.pending = None;
        Ok(())
    }

    /// Sets the game: from `fen` (the start position if `None`) through the
    /// move tokens, in compound or split notation. The whole command is
    /// checked on a copy; on error nothing changes.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] naming the field or the move (its index and token).
    pub fn set_position(
        &mut self,
        fen: Option<&str>,
        tokens: &[String],
    ) -> Result<(), PositionError> {
        let start = match fen {
            Some(fen) => Position::from_fen(fen, self.options.rules)?,
            None => Position::new(self.options.rules),
        };
        let mut game = Game::new(start);
        let mut pending: Option<(usize, Move)> = None;
        for (index, token) in (1..).zip(tokens) {
            let syntax = |error| PositionError::Syntax {
                index,
                token: token.clone(),
                error,
            };
            let illegal = |error| PositionError::Illegal {
                index,
                token: token.clone(),
                error,
            };
            if let Some(point) = token.strip_prefix(['x', 'X']) {
                let Some((_, action)) = pending.take() else {
                    return Err(PositionError::StrayRemoval {
                        index,
                        token: token.clone(),
                    });
                };
                let removal: Square = point.parse().map_err(|_| {
                    syntax(crate::error::ParseMoveError {
                        token: token.clone(),
                        problem: crate::error::MoveSyntaxProblem::BadPoint(point.to_owned()),
                    })
                })?;
                game.try_play(action.removing(removal)).map_err(illegal)?;
                continue;
            }
            if let Some((action_index, action)) = pending {
                return Err(PositionError::RemovalExpected {
                    index: action_index,
                    token: action.to_string(),
                });
            }
            let mv: Move = token.parse().map_err(syntax)?;
            match game.try_play(mv) {
                Ok(()) => {}
                Err(err) if err.reason == IllegalReason::MissingRemoval => {
                    pending = Some((index, mv))
                }
                Err(err) => return Err(illegal(err)),
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
        let control = SearchControl::default();
        control.pondering.store(limits.ponder, Ordering::Relaxed);
        let infinite = limits.infinite;
        let request = SearchRequest {
            root,
            game_keys: self.game.keys().to_vec(),
            limits,
            threads: self.options.threads,
            multipv: self.options.multipv,
            skill: self.options.skill,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            endgame: self.endgame.clone(),
        };
        let tt = Arc::clone(&self.tt);
        let thread_control = control.clone();
        let thread = std::thread::spawn(move || {
            run_search(&request, tt, &thread_control, start, |event| {
                // The receiver outlives every search; a send fails only
                // while the engine shuts down, when the event is moot.
                let _ = events.send(event);
            });
        });
        self.search = Some(RunningSearch {
            control,
            thread,
            infinite,
            pending: self.pending,
            notation: self.options.notation,
        });
        Ok(GoStart::Searching)
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

    /// Ends the bookkeeping of a search that sent its best move, and writes
    /// the `bestmove` reply in the notation in force when it started.
    pub fn finish_search(&mut self, best: Option<Move>, ponder: Option<Move>) -> String {
        let Some(search) = self.search.take() else {
            return "bestmove (none)".to_owned();
        };
        // The thread has sent its last event and is returning.
        let _ = search.thread.join();
        let Some(best) = best else {
            return "bestmove (none)".to_owned();
        };
        let text = |mv: Move| match (search.notation, mv.removal) {
            (MoveNotation::Split, Some(_)) => Move {
                removal: None,
                ..mv
            }
            .to_string(),
            _ => mv.to_string(),
        };
        let best_text = match (search.pending, best.removal) {
            (Some(_), Some(removal)) => format!("x{removal}"),
            _ => text(best),
        };
        // A ponder move in split notation would be half a turn; leave it out.
        match ponder.filter(|p| search.notation == MoveNotation::Compound || p.removal.is_none()) {
            Some(ponder) if search.pending.is_none() => {
                format!("bestmove {best_text} ponder {}", text(ponder))
            }
            _ => format!("bestmove {best_text}"),
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
