//! One game (a browser's, or a room's between two): the position, the
//! settings, and the engine process that plays or analyses it, driven from a thread of its own so that a
//! slow, hung or crashed engine never holds up the page.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::fmt;

use morris::engine::ELO_OF_SKILL;
use morris::search::MAX_SKILL;
use morris::solution::{DbOutcome, Judgement};
use morris::{Color, Game, Move, Outcome, Position, Rules, Variant};

use super::clock::{Clock, TimeControl};
use super::room::Room;

use crate::client::{
    EngineConfig, EngineFailure, EngineProcess, EngineScore, Info, position_command, rules_options,
};

/// Who the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSide {
    /// Nobody: two people at one board, or analysis only.
    Neither,
    /// White.
    White,
    /// Black.
    Black,
    /// Both sides: the engine plays itself.
    Both,
}

impl EngineSide {
    /// Every side.
    pub const ALL: [EngineSide; 4] = [
        EngineSide::Neither,
        EngineSide::White,
        EngineSide::Black,
        EngineSide::Both,
    ];

    /// Whether the engine moves for `color`.
    pub fn plays(self, color: Color) -> bool {
        match self {
            EngineSide::Neither => false,
            EngineSide::White => color == Color::White,
            EngineSide::Black => color == Color::Black,
            EngineSide::Both => true,
        }
    }

    /// The side's name on the page: `none`, `white`, `black`, `both`.
    pub fn name(self) -> &'static str {
        match self {
            EngineSide::Neither => "none",
            EngineSide::White => "white",
            EngineSide::Black => "black",
            EngineSide::Both => "both",
        }
    }

    /// The side of a page's name.
    pub fn from_name(name: &str) -> Option<EngineSide> {
        EngineSide::ALL.into_iter().find(|side| side.name() == name)
    }
}

/// How strongly the engine plays: a named level on the engine's
/// `UCI_Elo` scale, or a `Skill Level` for those who want the numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// The weakest measured level's strength.
    Easy,
    /// Halfway between Easy and Hard.
    Medium,
    /// The middle levels' strength.
    Hard,
    /// The engine at full strength.
    Full,
    /// A `Skill Level`, 0 to [`MAX_SKILL`].
    Skill(u8),
}

impl Strength {
    /// The named levels, weakest first.
    pub const NAMED: [Strength; 4] = [
        Strength::Easy,
        Strength::Medium,
        Strength::Hard,
        Strength::Full,
    ];

    /// The level's name on the page: `easy`, `medium`, `hard`, `full`, or
    /// a Skill Level's number.
    pub fn name(self) -> String {
        match self {
            Strength::Easy => "easy".to_owned(),
            Strength::Medium => "medium".to_owned(),
            Strength::Hard => "hard".to_owned(),
            Strength::Full => "full".to_owned(),
            Strength::Skill(level) => level.to_string(),
        }
    }

    /// The level of a page's name (a Skill Level number above the
    /// greatest, up to 255, is the greatest).
    pub fn from_name(name: &str) -> Option<Strength> {
        if let Ok(level) = name.parse::<u8>() {
            return Some(Strength::Skill(level.min(MAX_SKILL)));
        }
        Strength::NAMED.into_iter().find(|s| s.name() == name)
    }

    /// The named level's strength on the `UCI_Elo` scale (Full has none:
    /// it is the engine unweakened).
    pub fn elo(self) -> Option<i32> {
        let skill_elo = |skill: u8| {
            ELO_OF_SKILL
                .iter()
                .find(|&&(level, _)| level == skill)
                .map(|&(_, elo)| elo)
                .expect("a measured level")
        };
        let (easy, hard) = (skill_elo(0), skill_elo(10));
        match self {
            Strength::Easy => Some(easy),
            Strength::Medium => Some((easy + hard) / 2),
            Strength::Hard => Some(hard),
            Strength::Full | Strength::Skill(_) => None,
        }
    }

    /// Whether it plays below the engine's full strength (its scores are
    /// then a shallow search's, no judgement of the position).
    pub fn weakened(self) -> bool {
        !matches!(self, Strength::Full | Strength::Skill(MAX_SKILL))
    }

    /// The options that set it, every one each time (the engine keeps
    /// them between games).
    fn options(self) -> [(String, String); 3] {
        let skill = match self {
            Strength::Skill(level) => level,
            _ => MAX_SKILL,
        };
        let elo = self.elo();
        [
            ("UCI_LimitStrength".to_owned(), elo.is_some().to_string()),
            ("UCI_Elo".to_owned(), elo.unwrap_or(0).to_string()),
            ("Skill Level".to_owned(), skill.to_string()),
        ]
    }
}

/// How a game is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The variant of new games.
    pub variant: Variant,
    /// Who the engine plays.
    pub engine_side: EngineSide,
    /// How strongly it plays.
    pub strength: Strength,
    /// The engine's time for a move (less when its clock runs low).
    pub movetime: Duration,
    /// The clock of new games, if they have one.
    pub clock: Option<TimeControl>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            variant: Variant::Nine,
            engine_side: EngineSide::Black,
            strength: Strength::Full,
            movetime: Duration::from_secs(1),
            clock: None,
        }
    }
}

/// How a game ended other than by the rules of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A side gave up.
    Resigned(Color),
    /// Both sides agreed to a draw.
    DrawAgreed,
    /// A side's time ran out.
    OnTime(Color),
    /// A side left the room during the game.
    Left(Color),
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
                "{} wins ({} left the room)",
                loser.opponent().name(),
                loser.name()
            ),
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

/// The engine's time to judge one position of a review.
const REVIEW_TIME: Duration = Duration::from_millis(150);

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
    /// The review of the game, once asked for.
    pub review: Option<Review>,
    /// Whether the game was set up (a position or moves pasted, a record
    /// opened) rather than played from the start.
    pub set_up: bool,
    /// When a browser last asked about this game.
    pub last_seen: Instant,
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

    /// Whether a room's game waits for its second player (it has not
    /// begun, or a player left).
    pub fn waits_for_player(&self) -> bool {
        self.room.as_ref().is_some_and(|room| !room.is_full())
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

/// A job for the engine thread.
enum Job {
    /// Search, under these options (all the engine needs, sent when they
    /// differ from the last).
    Search(Search, Vec<(String, String)>),
    Restart,
    Quit,
}

/// What the engine searches for.
enum Search {
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

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// Set to make the engine thread give up its current search.
    cancel: AtomicBool,
    jobs: Mutex<Sender<Job>>,
}

/// One game and its engine.
pub struct Session {
    shared: Arc<Shared>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

/// The least time between two moves of an engine playing itself, so that
/// a person can follow the game.
const WATCHING_PACE: Duration = Duration::from_millis(700);

/// How long an engine may overrun its move time before it is taken for
/// hung.
const OVERRUN: Duration = Duration::from_secs(10);

impl Session {
    /// A new game under `settings`, its engine started from `engine` (a
    /// game between two browsers has none), in `room` if it is a room's.
    pub fn new(engine: Option<EngineConfig>, settings: Settings, room: Option<Room>) -> Session {
        let (jobs, receive) = channel();
        let now = Instant::now();
        let mut state = State {
            version: 1,
            line: 1,
            game: Game::new(Position::new(Rules::new(settings.variant))),
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
            review: None,
            set_up: false,
            last_seen: now,
        };
        // A room's clock waits for the second player.
        state.stop_clock_unless_played(now);
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            changed: Condvar::new(),
            cancel: AtomicBool::new(false),
            jobs: Mutex::new(jobs),
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
        };
        session.change(|_| Ok(())).expect("nothing to refuse");
        session
    }

    /// The state, locked.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().expect("not poisoned")
    }

    /// Waits up to `timeout` for a version newer than `after`; returns the
    /// state then (or as it is at the timeout).
    pub fn wait_newer(&self, after: u64, timeout: Duration) -> MutexGuard<'_, State> {
        let state = self.lock();
        let (mut state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, timeout, |s| s.version <= after)
            .expect("not poisoned");
        state.last_seen = Instant::now();
        state
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
        let result = edit(&mut state);
        let replaced = state.line != line;
        if replaced {
            state.hint = None;
            state.review = None;
        }
        // A search for a line replaced, or a game ended, is not wanted; nor
        // a hint for a position moved on from, or the rest of a review of
        // the game before the move: a person who plays on wants the
        // engine's reply, not to wait for them.
        let moved = state.game.moves().len() != ply;
        let stale = moved && state.engine.task.is_some();
        if replaced || stale {
            state.engine.thinking = Info::default();
        }
        if stale || (state.engine.task.is_some() && (replaced || state.ended().is_some())) {
            self.shared.cancel.store(true, Ordering::Relaxed);
        }
        state.version += 1;
        kick(&self.shared, &mut state);
        self.shared.changed.notify_all();
        result
    }

    /// Asks the engine for a move for the side to move.
    ///
    /// # Errors
    ///
    /// The engine is busy, has failed, or the game is over.
    pub fn hint(&self) -> Result<(), String> {
        self.change(|state| {
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

    /// Reviews the game: `begin` judges what the databases reach and
    /// returns the places of the positions left for the engine, which is
    /// then asked, all in one change of the state.
    ///
    /// # Errors
    ///
    /// What `begin` refused, or the engine is needed and busy or failed
    /// (the state is then unchanged).
    pub fn review(
        &self,
        begin: impl FnOnce(&mut State) -> Result<Vec<usize>, String>,
    ) -> Result<(), String> {
        self.change(|state| {
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
    /// told.
    pub fn check_clock(&self) {
        let mut state = self.lock();
        if state.check_clock(Instant::now()) {
            if state.engine.task.is_some() {
                self.shared.cancel.store(true, Ordering::Relaxed);
            }
            state.version += 1;
            self.shared.changed.notify_all();
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
        self.shared.cancel.store(true, Ordering::Relaxed);
        let _ = self.send(Job::Quit);
        if let Some(worker) = self.worker.lock().expect("not poisoned").take() {
            let _ = worker.join();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close();
    }
}

/// Asks the engine to move if it plays the side to move and is free.
fn kick(shared: &Shared, state: &mut State) {
    let side = state.game.position().side_to_move();
    if state.engine.task.is_none()
        && state.engine.failure.is_none()
        && state.ended().is_none()
        && state.settings.engine_side.plays(side)
    {
        schedule(shared, state, Task::Move);
    }
}

fn schedule(shared: &Shared, state: &mut State, task: Task) {
    let game = &state.game;
    let start = format!("position fen {} moves", game.start().fen());
    // A hint is the best move there is, not the weakened engine's.
    let strength = match task {
        Task::Move => state.settings.strength,
        Task::Hint | Task::Review => Strength::Full,
    };
    let options = common_options(state, strength);
    // On the clock the engine keeps a tenth of its time left a move.
    let side = game.position().side_to_move();
    let movetime = match state.clock {
        Some(clock) if task == Task::Move => state
            .settings
            .movetime
            .min(clock.left(side, Instant::now()) / 10)
            .max(Duration::from_millis(10)),
        _ => state.settings.movetime,
    };
    let search = Search::Move {
        line: state.line,
        ply: game.moves().len(),
        task,
        position: position_command(&start, game.moves(), false),
        movetime,
        pace: if task == Task::Move && state.settings.engine_side == EngineSide::Both {
            WATCHING_PACE
        } else {
            Duration::ZERO
        },
        weakened: strength.weakened(),
    };
    let job = Job::Search(search, options);
    let sent = shared.jobs.lock().expect("not poisoned").send(job);
    if sent.is_ok() {
        state.engine.task = Some(task);
        state.engine.thinking = Info::default();
    }
}

/// The options of every job: the game's rules, the strength, and the
/// chances with each score (for the page's bar), all sent each time.
fn common_options(state: &State, strength: Strength) -> Vec<(String, String)> {
    let mut options = rules_options(state.game.position().rules());
    options.extend(strength.options());
    options.push(("UCI_ShowWDL".to_owned(), "true".to_owned()));
    options
}

/// The engine thread: starts the engine when first needed, runs each job,
/// and reports to the shared state.
fn work(config: &EngineConfig, shared: &Shared, jobs: &Receiver<Job>) {
    let mut engine: Option<EngineProcess>;
    let mut options_sent: Option<Vec<(String, String)>> = None;
    let never = AtomicBool::new(false);
    let report = |edit: &dyn Fn(&mut State)| {
        let mut state = shared.state.lock().expect("not poisoned");
        edit(&mut state);
        state.version += 1;
        shared.changed.notify_all();
    };
    // Started at once, so that the page names the engine (or its failure)
    // before the first move.
    let launch = || match start(config, &never) {
        Ok((process, name)) => {
            report(&|state| state.engine.name = name.clone());
            Ok(process)
        }
        Err(failure) => {
            report(&|state| state.engine.failure = Some(failure.clone()));
            Err(failure)
        }
    };
    engine = launch().ok();
    while let Ok(job) = jobs.recv() {
        let (search, options) = match job {
            Job::Quit => break,
            Job::Restart => {
                options_sent = None;
                {
                    let mut state = shared.state.lock().expect("not poisoned");
                    state.engine.failure = None;
                    state.engine.task = None;
                }
                engine = launch().ok();
                finish(shared, |_| {});
                continue;
            }
            Job::Search(search, options) => (search, options),
        };
        shared.cancel.store(false, Ordering::Relaxed);
        let Some(running) = engine.as_mut() else {
            // It failed and was not restarted: the failure is shown.
            finish(shared, |_| {});
            continue;
        };
        if options_sent.as_ref() != Some(&options) {
            let set = running.set_options(&options);
            if set.and_then(|()| running.ready(&never)).is_err() {
                engine = None;
                finish(shared, |state| {
                    state.engine.failure = Some("the engine crashed".to_owned());
                });
                continue;
            }
            options_sent = Some(options);
        }
        let searched = match search {
            Search::Move {
                line,
                ply,
                task,
                position,
                movetime,
                pace,
                weakened,
            } => search_move(
                running,
                shared,
                (line, ply),
                (task, weakened),
                &position,
                movetime,
                pace,
            ),
            Search::Review { line, positions } => review(running, shared, line, &positions),
        };
        match searched {
            Ok(()) => {}
            Err(EngineFailure::Interrupted) => {
                // Stopped for a newer line: its answer is not wanted.
                if running.stop(Instant::now() + OVERRUN).is_err() {
                    engine = None;
                }
                finish(shared, |_| {});
            }
            Err(failure) => {
                engine = None;
                let why = format!("the engine {failure}");
                finish(shared, |state| state.engine.failure = Some(why));
            }
        }
    }
}

/// Has the engine search `position`, the game's after `ply` moves of
/// `line`, for `task` (`weakened`, or at full strength); its reports and
/// its answer go to the state if the game is still there, no sooner than
/// `pace` after the question.
fn search_move(
    engine: &mut EngineProcess,
    shared: &Shared,
    (line, ply): (u64, usize),
    (task, weakened): (Task, bool),
    position: &str,
    movetime: Duration,
    pace: Duration,
) -> Result<(), EngineFailure> {
    let current = |state: &State| state.line == line && state.game.moves().len() == ply;
    if !current(&shared.state.lock().expect("not poisoned")) {
        finish(shared, |_| {});
        return Ok(());
    }
    let asked = Instant::now();
    let go = format!("go movetime {}", movetime.as_millis());
    let token = engine.think(
        position,
        &go,
        asked + movetime + OVERRUN,
        &shared.cancel,
        |info| {
            let mut state = shared.state.lock().expect("not poisoned");
            if current(&state) {
                let side = state.game.position().side_to_move();
                merge_info(&mut state.engine, info, side, weakened);
                state.version += 1;
                shared.changed.notify_all();
            }
        },
    )?;
    // Watching the engine play itself: each move stays in view a while
    // (an answer for a line replaced meanwhile is dropped below).
    while asked.elapsed() < pace && !shared.cancel.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
    finish(shared, |state| {
        if current(state) {
            take_answer(state, task, &token);
        }
    });
    Ok(())
}

/// Judges each of `positions` (its place in the game, and its `position`
/// command) for the review of `line`, storing each judgement as it comes;
/// then the engine is free.
fn review(
    engine: &mut EngineProcess,
    shared: &Shared,
    line: u64,
    positions: &[(usize, String)],
) -> Result<(), EngineFailure> {
    let go = format!("go movetime {}", REVIEW_TIME.as_millis());
    // The game as reviewed: once it changes (a move made, a line
    // replaced), the rest is not wanted.
    let reviewed = |state: &State| {
        state
            .review
            .as_ref()
            .is_some_and(|r| r.line == line && r.exact.len() == state.game.moves().len())
    };
    for (index, position) in positions {
        if !reviewed(&shared.state.lock().expect("not poisoned")) {
            break;
        }
        let mut last = Info::default();
        let token = engine.think(
            position,
            &go,
            Instant::now() + REVIEW_TIME + OVERRUN,
            &shared.cancel,
            |info| {
                if info.score.is_some() {
                    last = info.clone();
                }
            },
        )?;
        let mut state = shared.state.lock().expect("not poisoned");
        if !reviewed(&state) {
            break;
        }
        let review = state.review.as_mut().expect("the review, still current");
        review.engine[*index] = last.score.map(|score| EngineJudgement {
            score,
            wdl: last.wdl,
            best: token.parse().ok(),
        });
        state.version += 1;
        shared.changed.notify_all();
    }
    finish(shared, |_| {});
    Ok(())
}

/// Starts the engine: `uci` to `uciok` and `isready`; returns it with the
/// name it gave.
fn start(
    config: &EngineConfig,
    never: &AtomicBool,
) -> Result<(EngineProcess, Option<String>), String> {
    let mut engine = EngineProcess::start(config)
        .map_err(|e| format!("the engine '{}' failed to start: {e}", config.cmd))?;
    let handshake = engine
        .handshake(&[], never)
        .map_err(|_| format!("the engine '{}' did not answer 'uci'", config.cmd))?;
    Ok((engine, handshake.name()))
}

/// Ends a job: the engine is free again (and moves if it is its turn).
fn finish(shared: &Shared, edit: impl FnOnce(&mut State)) {
    let mut state = shared.state.lock().expect("not poisoned");
    state.engine.task = None;
    edit(&mut state);
    state.version += 1;
    kick(shared, &mut state);
    shared.changed.notify_all();
}

/// The engine's answer to `task` for the position on the board.
fn take_answer(state: &mut State, task: Task, token: &str) {
    let mv = token.parse::<Move>();
    match (task, mv) {
        (Task::Hint, Ok(mv)) if state.game.position().check_move(mv).is_ok() => {
            state.hint = Some(mv);
        }
        (Task::Move, Ok(mv)) => {
            // A weakened engine may play another move than its best line.
            if state.engine.thinking.pv.first().map(String::as_str) != Some(token) {
                state.engine.thinking.pv.clear();
            }
            if let Err(reason) = state.game.position().check_move(mv) {
                state.engine.failure = Some(format!(
                    "the engine played an illegal move, {mv} ({reason})"
                ));
            } else if state.play(mv).is_ok() {
                state.redo.clear();
            }
        }
        _ => {
            state.engine.failure = Some(format!("the engine answered '{token}', not a legal move"));
        }
    }
}

/// Takes in a report on the position with `side` to move, from a
/// `weakened` search or not: one with a depth and a score replaces the
/// last, its line too when it gives one.
fn merge_info(engine: &mut EngineView, info: &Info, side: Color, weakened: bool) {
    if info.depth.is_some() && info.score.is_some() {
        let thinking = &mut engine.thinking;
        thinking.depth = info.depth;
        thinking.score = info.score;
        thinking.wdl = info.wdl;
        if !info.pv.is_empty() {
            thinking.pv.clone_from(&info.pv);
        }
        engine.scored_side = Some(side);
        engine.weakened = weakened;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_sides_round_trip_their_names() {
        for side in EngineSide::ALL {
            assert_eq!(EngineSide::from_name(side.name()), Some(side));
        }
        assert!(EngineSide::Both.plays(Color::White) && EngineSide::Both.plays(Color::Black));
        assert!(!EngineSide::Neither.plays(Color::White));
    }
}
