//! The state of one game, shared between the server and the engine
//! thread: the game and its settings, the clock, the room, how it ended,
//! the engine as the page sees it, and the review; with the moves and the
//! clock's ticks that change it.

use std::fmt;
use std::time::{Duration, Instant};

use morris::solution::{DbOutcome, Judgement};
use morris::{Color, Game, Move, Outcome};

use crate::client::{EngineScore, Info};
use crate::web::core::clock::Clock;
use crate::web::core::players::RatedPlayers;
use crate::web::core::room::Room;
use crate::web::core::settings::Settings;

/// How a game ended other than by the rules of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A side gave up.
    Resigned(Color),
    /// Both sides agreed to a draw.
    DrawAgreed,
    /// A side's time ran out.
    OnTime(Color),
    /// A side left the game (its room, or a rated game) while it went on.
    Left(Color),
    /// A record opened says the game ended so (its winner, or a draw),
    /// for a reason the board does not show.
    Recorded(Option<Color>),
}

/// How a game ended: by the rules, or otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// By the rules of the board.
    Rules(Outcome),
    /// By the players or the clock.
    Otherwise(Ending),
}

impl Ended {
    /// The winner, if it was not a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            Ended::Rules(outcome) => outcome.winner(),
            Ended::Otherwise(
                Ending::Resigned(loser) | Ending::OnTime(loser) | Ending::Left(loser),
            ) => Some(loser.opponent()),
            Ended::Otherwise(Ending::DrawAgreed) => None,
            Ended::Otherwise(Ending::Recorded(winner)) => winner,
        }
    }
}

impl fmt::Display for Ended {
    /// Writes `white wins (black is blocked)`, `black wins (white
    /// resigned)`, `draw (agreed)` and the like.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Ended::Rules(outcome) => outcome.fmt(f),
            Ended::Otherwise(Ending::DrawAgreed) => f.write_str("draw (agreed)"),
            Ended::Otherwise(Ending::Resigned(loser)) => {
                write!(
                    f,
                    "{} wins ({} resigned)",
                    loser.opponent().name(),
                    loser.name()
                )
            }
            Ended::Otherwise(Ending::OnTime(loser)) => write!(
                f,
                "{} wins ({} ran out of time)",
                loser.opponent().name(),
                loser.name()
            ),
            Ended::Otherwise(Ending::Left(loser)) => write!(
                f,
                "{} wins ({} left the game)",
                loser.opponent().name(),
                loser.name()
            ),
            Ended::Otherwise(Ending::Recorded(Some(winner))) => {
                write!(f, "{} wins (as recorded)", winner.name())
            }
            Ended::Otherwise(Ending::Recorded(None)) => f.write_str("draw (as recorded)"),
        }
    }
}

/// What the engine is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Play its move.
    Move,
    /// Suggest a move for the side to move.
    Hint,
    /// Judge the positions of a review.
    Review,
    /// Weigh a draw the person offered it: a search of the position at
    /// full strength.
    DrawOffer,
}

/// The side that makes the move at `ply` (from 0) of `game`: a move is a
/// whole turn, so the sides alternate ply by ply.
pub fn mover_at(game: &Game, ply: usize) -> Color {
    let first = game.start().side_to_move();
    if ply % 2 == 0 {
        first
    } else {
        first.opponent()
    }
}

/// The engine's judgement of a position, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineJudgement {
    /// Its score.
    pub score: EngineScore,
    /// Its chances (thousandths: win, draw, loss), if it tells them.
    pub wdl: Option<[u32; 3]>,
    /// The move it would play.
    pub best: Option<Move>,
}

impl EngineJudgement {
    /// The side to move's expected score, 0 (a loss) to 1 (a win): from
    /// its chances, or else a plain stand-in from its score.
    pub fn expected(&self) -> f64 {
        if let Some([win, draw, _]) = self.wdl {
            return (f64::from(win) + f64::from(draw) / 2.0) / 1000.0;
        }
        match self.score {
            EngineScore::Mate(moves) => f64::from(u8::from(moves > 0)),
            // Eight stones ahead count as a sure win.
            EngineScore::Centistones(value) => (0.5 + value as f64 / 1600.0).clamp(0.0, 1.0),
        }
    }
}

/// The databases' judgement of a move: its side's outcome before and
/// after it (with the N-move rule), and a best move where it gave value
/// away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactMove {
    /// Before and after.
    pub judgement: Judgement,
    /// A move that keeps the value, when the move played did not.
    pub best: Option<Move>,
}

/// A game reviewed: each move judged by the databases where they reach,
/// and each position by the engine where they do not.
#[derive(Clone, Debug)]
pub struct Review {
    /// The line reviewed: a review of a line replaced is dropped.
    pub line: u64,
    /// The databases' judgement of each move played, where they know it.
    pub exact: Vec<Option<ExactMove>>,
    /// The outcome of the last position by the rules, for its side to
    /// move, if the game ended there.
    pub last: Option<DbOutcome>,
    /// The engine's judgement of each position, from the start, where it
    /// was asked (where the databases do not reach).
    pub engine: Vec<Option<EngineJudgement>>,
    /// How many positions the engine is to judge.
    pub to_judge: usize,
}

impl Review {
    /// The exact outcome of the position at `index` (from the start) for
    /// its side to move: the databases' before the move made there or
    /// after the one before, or the rules' at the end.
    pub fn exact_at(&self, index: usize) -> Option<DbOutcome> {
        let before = self
            .exact
            .get(index)
            .and_then(|m| m.as_ref()?.judgement.before);
        let after = index
            .checked_sub(1)
            .and_then(|i| self.exact[i].as_ref()?.judgement.after)
            .map(|outcome| -outcome);
        let last = (index == self.exact.len()).then_some(self.last).flatten();
        before.or(after).or(last)
    }
}

/// The engine as the page sees it.
#[derive(Clone, Debug, Default)]
pub struct EngineView {
    /// Its name (from `id name`), once it started.
    pub name: Option<String>,
    /// What it was asked and has not answered yet.
    pub task: Option<Task>,
    /// Its last report with a depth and a score for the position on the
    /// board.
    pub thinking: Info,
    /// The side that report's score is for (the side to move then).
    pub scored_side: Option<Color>,
    /// Whether that report is a weakened engine's search, whose score the
    /// page does not show as a judgement.
    pub weakened: bool,
    /// Why it stopped playing (failed to start, crashed, illegal move);
    /// it plays again only when restarted.
    pub failure: Option<String>,
}

/// The state of a game, shared between the server and the engine thread.
pub struct State {
    /// Bumped on every change the page should see.
    pub version: u64,
    /// Bumped whenever the line of moves is replaced or taken back, so
    /// that an answer for an older line is thrown away.
    pub line: u64,
    /// The game.
    pub game: Game,
    /// How it is played.
    pub settings: Settings,
    /// The engine.
    pub engine: EngineView,
    /// The engine's suggestion for the side to move.
    pub hint: Option<Move>,
    /// How the game ended, if not by the rules.
    pub ending: Option<Ending>,
    /// The side offering a draw, until the other answers or moves.
    pub draw_offer: Option<Color>,
    /// The side whose draw offer was declined, until the next move.
    pub draw_declined: Option<Color>,
    /// The moves taken back, to be played again, the next first.
    pub redo: Vec<Move>,
    /// The game's clock, if it has one.
    pub clock: Option<Clock>,
    /// The seats, when two browsers play the game.
    pub room: Option<Room>,
    /// The players, when the game is played for their ratings.
    pub rated: Option<RatedPlayers>,
    /// The review of the game, once asked for.
    pub review: Option<Review>,
    /// Whether the game was set up (a position or moves pasted, a record
    /// opened) rather than played from the start.
    pub set_up: bool,
    /// When a browser last asked about this game.
    pub last_seen: Instant,
    /// How many browsers wait for news of it now (streams, long polls).
    pub watchers: usize,
}

impl State {
    /// How the game ended, if it did.
    pub fn ended(&self) -> Option<Ended> {
        self.ending
            .map(Ended::Otherwise)
            .or_else(|| self.game.outcome().map(Ended::Rules))
    }

    /// Plays `mv` for the side to move, its time taken from the clock.
    ///
    /// # Errors
    ///
    /// The move is illegal, or the side's time ran out (the game is then
    /// lost on time).
    pub fn play(&mut self, mv: Move) -> Result<(), String> {
        let now = Instant::now();
        self.check_clock(now);
        if let Some(ended) = self.ended() {
            return Err(format!("the game is over: {ended}"));
        }
        self.game
            .try_play(mv)
            .map_err(|e| format!("{mv} is illegal: {}", e.reason))?;
        self.hint = None;
        self.draw_offer = None;
        self.draw_declined = None;
        if let Some(clock) = &mut self.clock {
            clock.press(now);
        }
        self.stop_clock_unless_played(now);
        Ok(())
    }

    /// Ends the game on time if the side to move's time ran out by `now`;
    /// whether it did.
    pub fn check_clock(&mut self, now: Instant) -> bool {
        let flagged = self
            .clock
            .filter(|_| self.ended().is_none())
            .and_then(|clock| clock.flagged(now));
        if let Some(loser) = flagged {
            self.end(Ending::OnTime(loser), now);
        }
        flagged.is_some()
    }

    /// Ends the game otherwise than by the rules.
    pub fn end(&mut self, ending: Ending, now: Instant) {
        self.ending = Some(ending);
        self.draw_offer = None;
        self.draw_declined = None;
        self.stop_clock_unless_played(now);
    }

    /// How long nobody has shown this game by `now`: zero while a page
    /// waits for its news.
    pub fn unseen_for(&self, now: Instant) -> Duration {
        if self.watchers > 0 {
            Duration::ZERO
        } else {
            now.saturating_duration_since(self.last_seen)
        }
    }

    /// Whether a room's game waits for its second player (it has not
    /// begun, or a player left).
    pub fn waits_for_player(&self) -> bool {
        self.room.as_ref().is_some_and(|room| !room.is_full())
    }

    /// Whether the game is rated and not over.
    pub fn is_rated_in_play(&self) -> bool {
        self.rated.is_some() && self.ended().is_none()
    }

    /// Whether the game is rated and its result not yet kept: it is in
    /// play, or the store failed to take it (and is asked again).
    pub fn is_rated_unkept(&self) -> bool {
        self.rated
            .as_ref()
            .is_some_and(|rated| rated.after.is_none())
    }

    /// Whether the game is being played: not over, and not waiting for a
    /// room's second player.
    pub fn is_played(&self) -> bool {
        self.ended().is_none() && !self.waits_for_player()
    }

    /// Starts a stopped clock at `now` once the game is played again: a
    /// room's second player sat down.
    pub fn start_clock_if_played(&mut self, now: Instant) {
        let turn = self.game.position().side_to_move();
        let played = self.is_played();
        if let Some(clock) = self
            .clock
            .as_mut()
            .filter(|c| played && c.running().is_none())
        {
            clock.restart(turn, now);
        }
    }

    /// Stops the clock at `now` unless the game is being played: it is
    /// over, or a room waits for its second player.
    pub fn stop_clock_unless_played(&mut self, now: Instant) {
        if !self.is_played()
            && let Some(clock) = &mut self.clock
        {
            clock.stop(now);
        }
    }
}
