//! The engine thread of a game: the jobs it is sent, the engine process it
//! starts and drives through them, and what it reports to the shared
//! state, so that a slow, hung or crashed engine never holds up the page.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use morris::{Color, Move};

use crate::client::{
    EngineConfig, EngineFailure, EngineProcess, Info, position_command, rules_options,
};
use crate::web::core::actions;
use crate::web::core::settings::{EngineSide, Strength};
use crate::web::core::state::{EngineJudgement, EngineView, State, Task};
use crate::web::game::shared::{Job, Search, Shared};

/// The least time between two moves of an engine playing itself, so that
/// a person can follow the game.
const WATCHING_PACE: Duration = Duration::from_millis(700);

/// How long an engine may overrun its move time before it is taken for
/// hung.
const OVERRUN: Duration = Duration::from_secs(10);

/// The engine's time to judge one position of a review.
const REVIEW_TIME: Duration = Duration::from_millis(150);

/// Asks the engine to move if it plays the side to move and is free,
/// and fair play lets it: its move would tell what to play on a rated
/// board.
pub(crate) fn kick(shared: &Shared, state: &mut State) {
    let side = state.game.position().side_to_move();
    if state.engine.task.is_none()
        && state.engine.failure.is_none()
        && state.ended().is_none()
        && state.settings.engine_side.plays(side)
        && !shared.values_off(state)
    {
        schedule(shared, state, Task::Move);
    }
}

pub(crate) fn schedule(shared: &Shared, state: &mut State, task: Task) {
    let game = &state.game;
    let start = format!("position fen {} moves", game.start().fen());
    // A hint is the best move there is, not the weakened engine's; a draw
    // offered is weighed as the level plays.
    let strength = match task {
        Task::Move | Task::DrawOffer => state.settings.strength,
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
pub(crate) fn common_options(state: &State, strength: Strength) -> Vec<(String, String)> {
    let mut options = rules_options(state.game.position().rules());
    options.extend(strength.options());
    options.push(("UCI_ShowWDL".to_owned(), "true".to_owned()));
    options
}

/// The engine thread: starts the engine when first needed, runs each job,
/// and reports to the shared state.
pub(crate) fn work(config: &EngineConfig, shared: &Shared, jobs: &Receiver<Job>) {
    let mut engine: Option<EngineProcess>;
    let mut options_sent: Option<Vec<(String, String)>> = None;
    let never = AtomicBool::new(false);
    let report = |edit: &dyn Fn(&mut State)| {
        let mut state = shared.state.lock().expect("not poisoned");
        edit(&mut state);
        shared.publish(&mut state);
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
    // A game over meanwhile (resigned, or on time) wants no answer, even
    // where its cancel came before the job was taken.
    let current = |state: &State| {
        state.line == line && state.game.moves().len() == ply && state.ended().is_none()
    };
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
                shared.publish(&mut state);
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
        shared.publish(&mut state);
    }
    finish(shared, |_| {});
    Ok(())
}

/// Starts the engine: `uci` to `uciok`, its configured options and
/// `isready`; returns it with the name it gave.
fn start(
    config: &EngineConfig,
    never: &AtomicBool,
) -> Result<(EngineProcess, Option<String>), String> {
    let mut engine = EngineProcess::start(config)
        .map_err(|e| format!("the engine '{}' failed to start: {e}", config.cmd))?;
    let handshake = engine
        .handshake(&config.options, never)
        .map_err(|_| format!("the engine '{}' did not answer 'uci'", config.cmd))?;
    Ok((engine, handshake.name()))
}

/// Ends a job: the engine is free again (and moves if it is its turn).
fn finish(shared: &Shared, edit: impl FnOnce(&mut State)) {
    let mut state = shared.state.lock().expect("not poisoned");
    state.engine.task = None;
    edit(&mut state);
    shared.publish(&mut state);
    kick(shared, &mut state);
}

/// The engine's answer to `task` for the position on the board.
fn take_answer(state: &mut State, task: Task, token: &str) {
    let mv = token.parse::<Move>();
    match (task, mv) {
        (Task::Hint, Ok(mv)) if state.game.position().check_move(mv).is_ok() => {
            state.hint = Some(mv);
        }
        // Its judgement is what counts, not the move it found.
        (Task::DrawOffer, Ok(_)) => actions::answer_offer_by_search(state),
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
