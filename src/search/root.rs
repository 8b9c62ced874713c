//! Running a whole search: the root moves the databases keep (the moving
//! phase probed, the end of placing solved), the threads (lazy SMP over a
//! shared table), waiting out `infinite` and `ponder`, and choosing the
//! move to play.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::board::{Move, Position};
use crate::endgame::{DbOutcome, EndgameDb, PlacingSolver, SharedPlacingTable};
use crate::search::limits::TimeManager;
use crate::search::skill::{self, MAX_SKILL};
use crate::search::worker::{RootMove, SearchContext, Worker};
use crate::search::{Bound, Limit, SearchEvent, SearchInfo, SearchLimits, TranspositionTable};

/// What to search and how.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The position to move in.
    pub root: Position,
    /// Keys of the game's positions up to and including the root.
    pub game_keys: Vec<u64>,
    /// What ends the search.
    pub limits: SearchLimits,
    /// Search threads.
    pub threads: usize,
    /// Best lines to report.
    pub multipv: usize,
    /// 0 (weakest) to 20 (full strength).
    pub skill: u8,
    /// Time kept in reserve per move.
    pub move_overhead: Duration,
    /// Endgame databases to probe, if any.
    pub endgame: Option<Arc<EndgameDb>>,
    /// What solving the end of placing proved in earlier searches over
    /// these databases and rules.
    pub placing_table: SharedPlacingTable,
}

/// What a search run to its end found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play, `None` when there is none.
    pub best: Option<Move>,
    /// The reply expected.
    pub ponder: Option<Move>,
    /// The report of the last completed depth.
    pub last_info: Option<SearchInfo>,
}

impl SearchRequest {
    /// A one-thread, full-strength search of `root` (reached through
    /// `game_keys`, the root's key last) under `limits`.
    pub fn new(root: Position, game_keys: &[u64], limits: SearchLimits) -> SearchRequest {
        SearchRequest {
            root,
            game_keys: game_keys.to_vec(),
            limits,
            threads: 1,
            multipv: 1,
            skill: MAX_SKILL,
            move_overhead: Duration::ZERO,
            endgame: None,
            placing_table: SharedPlacingTable::default(),
        }
    }

    /// Whether the engine is weakened (`skill` below full strength).
    fn is_weakened(&self) -> bool {
        self.skill < MAX_SKILL
    }

    /// The databases whose choices the search follows at the root: none
    /// for a weakened engine, which is meant to err, so it plays without
    /// them there and keeps its clock as if they were not there.
    fn exact_databases(&self) -> Option<&EndgameDb> {
        self.endgame.as_deref().filter(|_| !self.is_weakened())
    }

    /// The clock of a search of this request started at `start`.
    pub(crate) fn time_manager(&self, start: Instant) -> TimeManager {
        TimeManager::new(
            start,
            &self.limits,
            &self.root,
            self.move_overhead,
            self.exact_databases()
                .is_some_and(|db| db.holds_end_of_placing(&self.root)),
        )
    }

    /// Runs the search on the calling thread to its end; the limits must
    /// end it (neither `infinite` nor `ponder`).
    pub fn run(&self, tt: Arc<TranspositionTable>) -> SearchResult {
        let mut result = SearchResult::default();
        run_search(
            self,
            tt,
            &SearchControl::default(),
            Instant::now(),
            |event| match event {
                SearchEvent::Info(info) => result.last_info = Some(info),
                SearchEvent::BestMove { best, ponder } => {
                    result.best = best;
                    result.ponder = ponder;
                }
                SearchEvent::CurrMove { .. }
                | SearchEvent::PlacingSolved { .. }
                | SearchEvent::Failed { .. } => {}
            },
        );
        result
    }
}

/// The flags through which a running search is steered.
#[derive(Clone, Debug, Default)]
pub(crate) struct SearchControl {
    /// Set to end the search.
    pub stop: Arc<AtomicBool>,
    /// Set while pondering, cleared by `ponderhit`.
    pub pondering: Arc<AtomicBool>,
}

/// The most stones left to place (both sides together) at which the end
/// of placing is solved before the search, given the solver's time (`None`:
/// no clock, a node budget). Two stones more to place make a solve many
/// times longer (docs/ENDGAME.md has the times); with 12 left a move's
/// time does not decide a single move.
fn placing_solve_limit(solver_time: Option<Duration>) -> u32 {
    match solver_time {
        None => 10,
        Some(time) if time >= Duration::from_millis(250) => 10,
        Some(time) if time >= Duration::from_millis(25) => 8,
        Some(_) => 6,
    }
}

/// Nodes the end-of-placing solver may take when the search has no clock.
const PLACING_SOLVE_NODES: u64 = 5_000_000;

/// The root moves of `request` that keep the best outcome of the end of placing, solved
/// to the databases' leaves when few stones are left to place, within half
/// the move's time (or until `stop`), and that outcome; when time runs out
/// first, the moves not proven worse than another, and no outcome; all of
/// `moves` when none was decided.
fn keep_best_placing_moves(
    request: &SearchRequest,
    moves: Vec<Move>,
    db: &EndgameDb,
    time: &TimeManager,
    start: Instant,
    stop: &Arc<AtomicBool>,
    send: &mut impl FnMut(SearchEvent),
) -> (Vec<Move>, Option<DbOutcome>) {
    let root = &request.root;
    let to_place = root.stones_to_place();
    let solver_time = time.optimum().or(time.maximum()).map(|budget| budget / 2);
    if to_place == 0 || to_place > placing_solve_limit(solver_time) {
        return (moves, None);
    }
    // A solve the clock gave up on while it waited for a read may still
    // hold the table: this one starts afresh rather than wait.
    let mut table = request.placing_table.try_lock();
    let known = table.as_deref_mut().map(std::mem::take);
    let mut solver = PlacingSolver::with_table(
        db,
        known.unwrap_or_default(),
        solver_time.map(|time| start + time),
        solver_time.is_none().then_some(PLACING_SOLVE_NODES),
    )
    .stopped_by(Arc::clone(stop));
    let solved = solver.best_moves(root, &moves);
    let nodes = solver.nodes();
    if let Some(table) = table.as_deref_mut() {
        *table = solver.into_table();
    }
    let Ok(choice) = solved else {
        return (moves, None);
    };
    send(SearchEvent::PlacingSolved {
        outcome: choice.outcome,
        complete: choice.complete,
        kept: choice.kept.len(),
        of: moves.len(),
        nodes,
    });
    (choice.kept, choice.complete.then_some(choice.outcome))
}

/// The root moves the databases rank best when they hold the root: the
/// wins with the fewest plies to the next removal (so that every move
/// makes progress: a search free to pick any win could trade a removal now
/// for a shorter count later and go round in circles into a repetition),
/// every drawing move (the search picks among them), or the losses that
/// hold out longest, each outcome as the N-move rule leaves the position
/// the move leads to, and that outcome. All of `moves`, and no outcome, when the databases do not know
/// them all.
fn keep_best_db_moves(
    root: &Position,
    moves: Vec<Move>,
    db: &EndgameDb,
) -> (Vec<Move>, Option<DbOutcome>) {
    if db.probe(root).is_none() {
        return (moves, None);
    }
    let Some(values) = values_of(&moves, db.rank_moves(root)) else {
        return (moves, None);
    };
    // Each move's outcome is what the N-move rule leaves of the position it
    // leads to: after a removal the rule counts afresh, so the next removal
    // must come in time too.
    let Some(mut valued) = values
        .into_iter()
        .map(|(mv, value)| {
            db.outcome_after_with_rule(root, mv)
                .map(|outcome| (mv, outcome, value.distance))
        })
        .collect::<Option<Vec<(Move, DbOutcome, u16)>>>()
    else {
        return (moves, None);
    };
    // Wins by the fewest plies, draws, losses by the most.
    let preference = |&(_, outcome, distance): &(Move, DbOutcome, u16)| {
        let distance = match outcome {
            DbOutcome::Win => -i32::from(distance),
            DbOutcome::Draw => 0,
            DbOutcome::Loss => i32::from(distance),
        };
        (outcome, distance)
    };
    let Some(best) = valued.iter().map(preference).max() else {
        return (moves, None);
    };
    valued.retain(|v| preference(v) == best);
    let outcome = valued.first().map(|&(_, outcome, _)| outcome);
    (valued.into_iter().map(|(mv, ..)| mv).collect(), outcome)
}

/// The root moves that keep the value of a placing position held by the
/// placing phase's databases, and that value (the draw rules left out: a
/// move that keeps it is never worse under them than one that does not,
/// and the end-of-placing solver applies them where it can). All of
/// `moves`, and no outcome, when the databases do not know them all.
fn keep_best_placing_db_moves(
    root: &Position,
    moves: Vec<Move>,
    db: &EndgameDb,
) -> (Vec<Move>, Option<DbOutcome>) {
    if db.placing_outcome(root).is_none() {
        return (moves, None);
    }
    let Some(valued) = values_of(&moves, db.move_outcomes(root)) else {
        return (moves, None);
    };
    let Some(best) = valued.iter().map(|&(_, outcome)| outcome).max() else {
        return (moves, None);
    };
    let kept = valued
        .into_iter()
        .filter(|&(_, outcome)| outcome == best)
        .map(|(mv, _)| mv)
        .collect();
    (kept, Some(best))
}

/// The value of each of `moves` in `valued` (every root move with its
/// value, if known), or `None` if one of them is not known.
fn values_of<T>(moves: &[Move], valued: Vec<(Move, Option<T>)>) -> Option<Vec<(Move, T)>> {
    valued
        .into_iter()
        .filter(|(mv, _)| moves.contains(mv))
        .map(|(mv, value)| value.map(|value| (mv, value)))
        .collect()
}

/// Searches `request` on the calling thread and its helpers until a limit,
/// `stop`, or (for `infinite` and `ponder`) until told; sends every
/// completed depth and finally the move to play through `send`.
pub(crate) fn run_search(
    request: &SearchRequest,
    tt: Arc<TranspositionTable>,
    control: &SearchControl,
    start: Instant,
    mut send: impl FnMut(SearchEvent),
) {
    let root_moves: Vec<Move> = request
        .root
        .legal_moves()
        .into_iter()
        .filter(|mv| {
            request.limits.search_moves.is_empty() || request.limits.search_moves.contains(mv)
        })
        .collect();
    if root_moves.is_empty() {
        send(SearchEvent::BestMove {
            best: None,
            ponder: None,
        });
        return;
    }
    let weakened = request.is_weakened();
    let exact = request.exact_databases();
    let time = request.time_manager(start);
    let (root_moves, root_outcome) = match exact {
        Some(db) => {
            let (root_moves, db_outcome) = keep_best_db_moves(&request.root, root_moves, db);
            let (root_moves, placing_db_outcome) =
                keep_best_placing_db_moves(&request.root, root_moves, db);
            // Without the N-move rule the placing phase's databases know
            // all the solver could tell.
            let solved =
                placing_db_outcome.is_some() && request.root.rules().draw_plies().is_none();
            let (root_moves, placing_outcome) = if solved {
                (root_moves, None)
            } else {
                keep_best_placing_moves(
                    request,
                    root_moves,
                    db,
                    &time,
                    start,
                    &control.stop,
                    &mut send,
                )
            };
            // The solver applies the N-move rule; the placing phase's
            // databases leave it out.
            let outcome = db_outcome.or(placing_outcome).or(placing_db_outcome);
            (root_moves, outcome)
        }
        None => (root_moves, None),
    };
    let mut limits = request.limits.clone();
    if weakened {
        limits
            .limits
            .push(Limit::Depth(skill::depth_limit(request.skill)));
    }
    tt.new_search();
    let ctx = SearchContext {
        time,
        limits,
        tt,
        stop: Arc::clone(&control.stop),
        pondering: Arc::clone(&control.pondering),
        nodes: AtomicU64::new(0),
        endgame: request.endgame.clone(),
        dbhits: AtomicU64::new(0),
        root_outcome,
        multipv: if weakened {
            request.multipv.max(skill::WEAKENED_LINES)
        } else {
            request.multipv
        },
    };
    let chosen = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..request.threads.max(1))
            .map(|id| {
                let (ctx, request, moves) = (&ctx, request, &root_moves);
                scope.spawn(move || {
                    let mut helper = Worker::new(ctx, id, request.root, &request.game_keys, moves);
                    helper.iterate(|_| {});
                    helper.flush_nodes();
                    (helper.completed_depth(), helper.root_moves()[0].clone())
                })
            })
            .collect();
        let mut main = Worker::new(&ctx, 0, request.root, &request.game_keys, &root_moves);
        main.iterate(|event| match event {
            // A weakened search looks at more lines than it was asked to
            // report.
            SearchEvent::Info(info) if weakened && info.multipv as usize > request.multipv => {}
            event => send(event),
        });
        main.flush_nodes();
        // `infinite` and `ponder` searches answer only when told to.
        while !ctx.stop.load(Ordering::Relaxed)
            && (ctx.limits.infinite || ctx.pondering.load(Ordering::Relaxed))
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        ctx.stop.store(true, Ordering::Relaxed);
        let mut finished = vec![(main.completed_depth(), main.root_moves()[0].clone())];
        // A helper that panicked has nothing to offer; the main line stands.
        finished.extend(helpers.into_iter().filter_map(|h| h.join().ok()));
        let lines = ctx.multipv.min(main.root_moves().len());
        if weakened {
            skill::pick_weaker(&main.root_moves()[..lines], request.skill)
        } else if ctx.multipv > 1 {
            main.root_moves()[0].clone()
        } else {
            let (depth, chosen) = finished.swap_remove(best_thread(&finished));
            // The last report names the line played.
            if chosen.mv != main.root_moves()[0].mv {
                send(SearchEvent::Info(main.line_info(
                    &chosen,
                    depth,
                    0,
                    Bound::Exact,
                )));
            }
            chosen
        }
    });
    send(SearchEvent::BestMove {
        best: Some(chosen.mv),
        ponder: chosen.pv.get(1).copied(),
    });
}

/// Which thread's best move to play, given each thread's completed depth
/// and best root move (the main thread first): the deepest, and among
/// equally deep ones the best scored; the main thread on a tie. A helper
/// that skipped ahead and finished a deeper iteration knows more.
fn best_thread(finished: &[(u32, RootMove)]) -> usize {
    let mut best = 0;
    for (i, (depth, rm)) in finished.iter().enumerate().skip(1) {
        let (best_depth, best_rm) = &finished[best];
        if (*depth, rm.score) > (*best_depth, best_rm.score) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::worker::Line;

    fn line(mv: &str, score: i32) -> RootMove {
        RootMove {
            mv: mv.parse().unwrap(),
            score,
            previous_score: score,
            pv: Line::new(),
        }
    }

    #[test]
    fn the_deepest_thread_is_played_and_the_main_one_on_a_tie() {
        let main = (9, line("d6", 20));
        assert_eq!(best_thread(std::slice::from_ref(&main)), 0);
        assert_eq!(best_thread(&[main.clone(), (10, line("d2", 5))]), 1);
        assert_eq!(best_thread(&[main.clone(), (8, line("d2", 90))]), 0);
        assert_eq!(best_thread(&[main.clone(), (9, line("d2", 20))]), 0);
        assert_eq!(
            best_thread(&[main, (9, line("d2", 30)), (9, line("b4", 25))]),
            1
        );
    }
}
