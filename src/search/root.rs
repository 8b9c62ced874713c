//! Running a whole search: the root moves the databases keep (the moving
//! phase probed, the end of placing solved) and a draw played to win, the
//! threads (lazy SMP over a shared table), waiting out `infinite` and
//! `ponder`, and choosing the move to play.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::board::{Move, Position};
use crate::search::draws::pitfalls_after;
use crate::search::eval::evaluate;
use crate::search::limits::TimeManager;
use crate::search::ordering::MoveOrdering;
use crate::search::placing::{PlacingSolver, SharedPlacingTable};
use crate::search::score::db_score;
use crate::search::skill::{self, MAX_SKILL};
use crate::search::worker::{RootMove, SearchContext, Worker};
use crate::search::{Bound, Limit, SearchEvent, SearchInfo, SearchLimits, TranspositionTable};
use crate::solution::{
    Database, DbOutcome, DbValue, Reads, Urgency, begin_search_round, blocks_read, search_round,
    wait_for_reads_after,
};

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
    pub db: Option<Arc<Database>>,
    /// What solving the end of placing proved in earlier searches over
    /// these databases and rules.
    pub placing_table: SharedPlacingTable,
    /// Whether, once it has answered, the search reads ahead the database
    /// blocks the next move may need.
    pub read_ahead: bool,
    /// Whether the moves the databases say keep a draw are searched with
    /// a bonus for the share of the opponent's replies that lose.
    pub draws_to_win: bool,
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
            db: None,
            placing_table: SharedPlacingTable::default(),
            read_ahead: false,
            draws_to_win: false,
        }
    }

    /// The moves to search: the legal moves of the root, those of
    /// `searchmoves` if given.
    fn root_moves(&self) -> Vec<Move> {
        let only = &self.limits.search_moves;
        self.root
            .legal_moves()
            .into_iter()
            .filter(|mv| only.is_empty() || only.contains(mv))
            .collect()
    }

    /// Whether the engine is weakened (`skill` below full strength).
    fn is_weakened(&self) -> bool {
        self.skill < MAX_SKILL
    }

    /// The databases whose choices the search follows at the root: none
    /// for a weakened engine, which is meant to err, so it plays without
    /// them there and keeps its clock as if they were not there.
    fn exact_databases(&self) -> Option<&Database> {
        self.db.as_deref().filter(|_| !self.is_weakened())
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
                | SearchEvent::ValuesMissing { .. }
                | SearchEvent::DrawPlayedToWin { .. }
                | SearchEvent::Choice { .. }
                | SearchEvent::Overdue
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

/// How a search on `time` reads the databases: one on the clock never
/// waits for the disk.
fn reads_on(time: &TimeManager) -> Reads {
    if time.maximum().is_some() {
        Reads::InMemory(Urgency::Search)
    } else {
        Reads::Wait
    }
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
    db: &Database,
    time: &TimeManager,
    start: Instant,
    stop: &Arc<AtomicBool>,
    send: &mut impl FnMut(SearchEvent),
) -> (Vec<Move>, Option<DbOutcome>) {
    let root = &request.root;
    let to_place = root.stones_to_place();
    let solver_time = time.optimum().or(time.maximum()).map(|budget| budget / 2);
    if !root.in_placing_phase() || to_place > placing_solve_limit(solver_time) {
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
    .stopped_by(Arc::clone(stop))
    .reading(reads_on(time));
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

/// Whether what the root decision at `root` reads of `pos` (the root, or
/// a position one of its moves leads to) can be read without waiting for
/// the disk: a placing root's moves are ranked by their outcomes alone, a
/// moving root's by their values, with the distance. If not, it is asked
/// of the background reader, as `urgency` says.
fn ready_or_ask(db: &Database, root: &Position, pos: &Position, urgency: Urgency) -> bool {
    let probe = db.reading(Reads::InMemory(urgency));
    if root.in_placing_phase() {
        probe.outcome(pos).is_ok()
    } else {
        probe.value(pos).is_ok()
    }
}

/// What of the databases' values at the root can be read without waiting
/// for the disk.
struct Readable {
    /// The root's own value.
    root: bool,
    /// The root moves whose values (those of the positions they lead to)
    /// can be read.
    moves: Vec<Move>,
}

impl Readable {
    /// Everything, read by a search that may wait for the disk.
    fn everything(moves: &[Move]) -> Readable {
        Readable {
            root: true,
            moves: moves.to_vec(),
        }
    }

    /// What of the root and of the positions `moves` lead to can be read
    /// at once; the rest is asked of the background reader, all at once.
    /// A move that ends the game needs no value.
    fn now(db: &Database, root: &Position, moves: &[Move]) -> Readable {
        let ready = |pos: &Position| ready_or_ask(db, root, pos, Urgency::Root);
        Readable {
            root: ready(root),
            moves: moves
                .iter()
                .copied()
                .filter(|&mv| {
                    let mut child = *root;
                    child.play_unchecked(mv);
                    child.terminal_outcome().is_some() || ready(&child)
                })
                .collect(),
        }
    }

    /// Whether every one of `moves` can be read: the decision is then
    /// exact, whether the root's own value is read or not.
    fn has_every_move(&self, moves: &[Move]) -> bool {
        moves.iter().all(|mv| self.moves.contains(mv))
    }

    /// How many of the root and of `moves` can be read.
    fn count(&self, moves: &[Move]) -> usize {
        usize::from(self.root) + moves.iter().filter(|mv| self.moves.contains(mv)).count()
    }
}

/// How long a root decision waits for the values it needs, at most: half
/// the move's time, which leaves the end-of-placing solver (whose deadline
/// is the same) only what the reads leave of it.
fn root_read_time(time: &TimeManager) -> Duration {
    time.optimum().or(time.maximum()).unwrap_or_default() / 2
}

/// What of the values the root decision needs can be read by `deadline`
/// (or when `stop` is set): they are all asked for at once, and waited
/// for as they arrive. A search that may wait for the disk reads them all.
fn read_root_values(
    db: &Database,
    root: &Position,
    moves: &[Move],
    reads: Reads,
    deadline: Instant,
    stop: &AtomicBool,
) -> Readable {
    if reads == Reads::Wait {
        return Readable::everything(moves);
    }
    look_until(
        deadline,
        stop,
        || Readable::now(db, root, moves),
        |readable| readable.has_every_move(moves),
    )
}

/// What `look` finds once `done` says it will do, `deadline` has passed
/// or `stop` is set, looking again each time the disk has read a block.
fn look_until<T>(
    deadline: Instant,
    stop: &AtomicBool,
    mut look: impl FnMut() -> T,
    done: impl Fn(&T) -> bool,
) -> T {
    // Short waits, so that `stop` is seen soon.
    const LOOK: Duration = Duration::from_millis(5);
    loop {
        let seen = blocks_read();
        let found = look();
        let now = Instant::now();
        if done(&found) || now >= deadline || stop.load(Ordering::Relaxed) {
            return found;
        }
        wait_for_reads_after(seen, deadline.min(now + LOOK));
    }
}

/// What each of the root moves `moves`, all of which keep a draw, adds
/// to its score for the pitfalls it leaves the opponent (see
/// [`crate::search::draws::Pitfalls::bonus`]), if the values of every
/// reply can be read by `deadline` (or before `stop`): they are all asked
/// for at once. Nothing otherwise.
fn draws_played_to_win(
    db: &Database,
    root: &Position,
    moves: &[Move],
    (reads, deadline, stop): (Reads, Instant, &AtomicBool),
    send: &mut impl FnMut(SearchEvent),
) -> Vec<(Move, i32)> {
    if moves.len() < 2 {
        return Vec::new();
    }
    // Each reply, with the position it is played in.
    let mut unread: Vec<(Position, Position)> = Vec::new();
    for &mv in moves {
        let mut child = *root;
        child.play_unchecked(mv);
        if child.terminal_outcome().is_some() {
            continue;
        }
        for reply in child.legal_moves() {
            let mut next = child;
            next.play_unchecked(reply);
            if next.terminal_outcome().is_none() {
                unread.push((child, next));
            }
        }
    }
    if reads != Reads::Wait {
        let read = look_until(
            deadline,
            stop,
            || {
                unread.retain(|(child, next)| !ready_or_ask(db, child, next, Urgency::Root));
                unread.is_empty()
            },
            |&read| read,
        );
        if !read {
            return Vec::new();
        }
    }
    let pitfalls = pitfalls_after(db, root, moves);
    let most = pitfalls
        .iter()
        .map(|&(_, pitfalls)| pitfalls)
        .max_by_key(|pitfalls| pitfalls.bonus())
        .unwrap_or_default();
    send(SearchEvent::DrawPlayedToWin {
        moves: moves.len(),
        losing: most.losing,
        replies: most.moves,
    });
    pitfalls
        .into_iter()
        .map(|(mv, pitfalls)| (mv, pitfalls.bonus()))
        .collect()
}

/// The root moves the databases rank best when they hold the root, a
/// moving position: the wins with the fewest plies to the next removal
/// (so that every move makes progress: a search free to pick any win
/// could trade a removal now for a shorter count later and go round in
/// circles into a repetition), every drawing move (the search picks among
/// them), or the losses that hold out longest, each outcome as the N-move
/// rule leaves the position the move leads to, and that outcome. When
/// values could not be read in time, the best of the moves read, if they
/// are proven best anyway: as good as the root's own value, or a win when
/// that is not read either. All of `moves`, and no outcome, otherwise.
fn keep_best_db_moves(
    root: &Position,
    moves: Vec<Move>,
    db: &Database,
    readable: &Readable,
) -> (Vec<Move>, Option<DbOutcome>) {
    if root.in_placing_phase() {
        return (moves, None);
    }
    let root_value = readable.root.then(|| db.value(root));
    if root_value == Some(None) {
        return (moves, None);
    }
    // Each move's outcome is what the N-move rule leaves of the position it
    // leads to: after a removal the rule counts afresh, so the next removal
    // must come in time too.
    let rank = |mv| db.move_value(root, mv).value_with_rule();
    // A move read is proven best if nothing unread can beat it: as good as
    // the root's own value (and, for a lost root, no unread removal, which
    // the N-move rule counts afresh after, so that it may hold out to a
    // draw); or, the root unread too, a win.
    let proven = |best: DbValue| match root_value.flatten() {
        Some(value) => {
            let root_rank = DbValue {
                outcome: value.outcome_at(root),
                ..value
            };
            let unread_removal = moves
                .iter()
                .any(|mv| mv.removal.is_some() && !readable.moves.contains(mv));
            best >= root_rank && !(root_rank.outcome == DbOutcome::Loss && unread_removal)
        }
        None => best.outcome == DbOutcome::Win,
    };
    match keep_best_read(&moves, readable, rank, proven) {
        Some((kept, best)) => (kept, Some(best.outcome)),
        None => (moves, None),
    }
}

/// The root moves that keep the value of a placing position held by the
/// placing phase's databases, and that value (the draw rules left out: a
/// move that keeps it is never worse under them than one that does not,
/// and the end-of-placing solver applies them where it can). When values
/// could not be read in time, the best of the moves read, if they are
/// proven best anyway: the root's own value, or a win when that is not
/// read either. All of `moves`, and no outcome, otherwise.
fn keep_best_placing_db_moves(
    root: &Position,
    moves: Vec<Move>,
    db: &Database,
    readable: &Readable,
) -> (Vec<Move>, Option<DbOutcome>) {
    if !root.in_placing_phase() {
        return (moves, None);
    }
    let root_outcome = readable.root.then(|| db.outcome(root));
    if root_outcome == Some(None) {
        return (moves, None);
    }
    let rank = |mv| db.move_outcome(root, mv);
    let proven = |best| best == root_outcome.flatten().unwrap_or(DbOutcome::Win);
    match keep_best_read(&moves, readable, rank, proven) {
        Some((kept, best)) => (kept, Some(best)),
        None => (moves, None),
    }
}

/// Of `moves`, those read, ranked by `rank` (a higher rank is better, and
/// every move read must have one), that rank best, and that rank: if every
/// move was read, or if `proven` says the best rank read cannot be beaten.
fn keep_best_read<R: Ord + Copy>(
    moves: &[Move],
    readable: &Readable,
    rank: impl Fn(Move) -> Option<R>,
    proven: impl FnOnce(R) -> bool,
) -> Option<(Vec<Move>, R)> {
    let ranked = moves
        .iter()
        .filter(|mv| readable.moves.contains(mv))
        .map(|&mv| Some((mv, rank(mv)?)))
        .collect::<Option<Vec<(Move, R)>>>()?;
    let best = ranked.iter().map(|&(_, rank)| rank).max()?;
    if !readable.has_every_move(moves) && !proven(best) {
        return None;
    }
    let kept = ranked
        .into_iter()
        .filter(|&(_, rank)| rank == best)
        .map(|(mv, _)| mv)
        .collect();
    Some((kept, best))
}

/// The root moves the databases keep, if every value they need can now
/// be read at once (a search that decided without some of them asks
/// again when it ends).
fn keep_read_late(request: &SearchRequest, moves: &[Move], db: &Database) -> Option<Vec<Move>> {
    let readable = Readable::now(db, &request.root, moves);
    if !readable.has_every_move(moves) {
        return None;
    }
    let (kept, db_outcome) = keep_best_db_moves(&request.root, moves.to_vec(), db, &readable);
    let (kept, placing_outcome) = keep_best_placing_db_moves(&request.root, kept, db, &readable);
    db_outcome.or(placing_outcome).map(|_| kept)
}

/// The move to play should a search give none (stopped before it knows
/// anything): the table's move for the root, or the move the ordering
/// tries first, the static evaluation breaking ties; never the first move
/// generated for want of a better one.
pub(crate) fn first_choice(request: &SearchRequest, tt: &TranspositionTable) -> Option<Move> {
    let root = &request.root;
    let moves = request.root_moves();
    let table_move = tt.probe(root.key()).and_then(|entry| entry.mv);
    if let Some(mv) = table_move.filter(|mv| moves.contains(mv)) {
        return Some(mv);
    }
    let scores = MoveOrdering::new().score_moves(root, &moves, None, 0);
    moves
        .iter()
        .zip(scores)
        .max_by_key(|&(&mv, score)| {
            let mut child = *root;
            child.play_unchecked(mv);
            (score, -evaluate(&child))
        })
        .map(|(&mv, _)| mv)
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
    let root_moves = request.root_moves();
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
    let reads = reads_on(&time);
    if request.db.is_some() {
        // What was asked for the last search or read ahead for this one,
        // and not read yet, is asked for anew below as this search needs it.
        begin_search_round();
    }
    let all_root_moves = root_moves.clone();
    let mut values_missing = false;
    let mut draw_bonuses = Vec::new();
    let (root_moves, root_outcome) = match exact {
        Some(db) => {
            let read_by = start + root_read_time(&time);
            let readable = read_root_values(
                db,
                &request.root,
                &root_moves,
                reads,
                read_by,
                &control.stop,
            );
            if !readable.has_every_move(&root_moves) {
                send(SearchEvent::ValuesMissing {
                    read: readable.count(&root_moves),
                    of: root_moves.len() + 1,
                });
                values_missing = true;
            }
            let (root_moves, db_outcome) =
                keep_best_db_moves(&request.root, root_moves, db, &readable);
            let (root_moves, placing_db_outcome) =
                keep_best_placing_db_moves(&request.root, root_moves, db, &readable);
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
            if outcome == Some(DbOutcome::Draw) && request.draws_to_win {
                draw_bonuses = draws_played_to_win(
                    db,
                    &request.root,
                    &root_moves,
                    (reads, read_by, &control.stop),
                    &mut send,
                );
            }
            if root_moves.len() < all_root_moves.len() {
                send(SearchEvent::Choice {
                    best: root_moves[0],
                });
            }
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
        db: request.db.clone(),
        dbhits: AtomicU64::new(0),
        reads,
        root_outcome,
        draw_bonuses,
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
            let (depth, mut chosen) = finished.swap_remove(best_thread(&finished));
            // Values read too late for the start of the search may still
            // overrule its choice.
            let kept = exact
                .filter(|_| values_missing)
                .and_then(|db| keep_read_late(request, &all_root_moves, db));
            if let Some(kept) = kept.filter(|kept| !kept.contains(&chosen.mv)) {
                if let Some(rm) = main.root_moves().iter().find(|rm| kept.contains(&rm.mv)) {
                    chosen = rm.clone();
                    // The search may not have scored it: its value is the
                    // databases'.
                    let value = exact
                        .and_then(|db| db.move_value(&request.root, chosen.mv).value_with_rule());
                    if let Some(value) = value {
                        chosen.score = db_score(value.outcome, i32::from(value.distance));
                    }
                }
            }
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
    let ponder = chosen.pv.get(1).copied();
    send(SearchEvent::BestMove {
        best: Some(chosen.mv),
        ponder,
    });
    if let Some(db) = request.db.as_deref().filter(|_| request.read_ahead) {
        read_ahead_next_move(db, &request.root, chosen.mv, ponder);
    }
}

/// Asks the background reader for what the search of the next move may
/// read while the opponent thinks: after `best` is played in `root`, for
/// each reply (`ponder` first), the value of the position it leads to,
/// then of each move there.
fn read_ahead_next_move(db: &Database, root: &Position, best: Move, ponder: Option<Move>) {
    let mut after = *root;
    after.play_unchecked(best);
    if after.terminal_outcome().is_some() {
        return;
    }
    let mut replies = after.legal_moves();
    replies.sort_by_key(|&mv| Some(mv) != ponder);
    let next_roots: Vec<Position> = replies
        .iter()
        .map(|&reply| {
            let mut next = after;
            next.play_unchecked(reply);
            next
        })
        .filter(|next| next.terminal_outcome().is_none())
        .collect();
    // A search that begins meanwhile asks for what it needs itself.
    let round = search_round();
    let read = |next: &Position, pos: &Position| {
        let current = search_round() == round;
        if current {
            ready_or_ask(db, next, pos, Urgency::NextMove);
        }
        current
    };
    // The expected reply's position whole first, then each reply's own
    // value, then the rest.
    for (i, next) in next_roots.iter().enumerate() {
        if !read(next, next) || (i == 0 && !read_moves(next, |pos| read(next, pos))) {
            return;
        }
    }
    for next in next_roots.iter().skip(1) {
        if !read_moves(next, |pos| read(next, pos)) {
            return;
        }
    }
}

/// Calls `read` on each position a move of `pos` leads to, while it
/// returns true; false if it stopped.
fn read_moves(pos: &Position, read: impl Fn(&Position) -> bool) -> bool {
    pos.legal_moves().into_iter().all(|mv| {
        let mut child = *pos;
        child.play_unchecked(mv);
        read(&child)
    })
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

    fn first_choice_in(fen: &str, tt: &TranspositionTable) -> Move {
        let root = Position::from_fen(fen, crate::board::Rules::default()).unwrap();
        first_choice(&SearchRequest::new(root, &[], SearchLimits::default()), tt).unwrap()
    }

    #[test]
    fn with_nothing_searched_the_choice_is_the_orderings_not_the_first_generated() {
        let tt = TranspositionTable::new(1).unwrap();
        // White closes a1-d1-g1 by placing on g1, the last point (the first
        // move generated is elsewhere).
        let fen = "B../.B./.../....../.../.../WW. w 7 7 4 3";
        let root = Position::from_fen(fen, crate::board::Rules::default()).unwrap();
        let chosen = first_choice_in(fen, &tt);
        assert_ne!(chosen, root.legal_moves()[0]);
        assert_eq!(chosen.to, "g1".parse().unwrap());
        assert!(chosen.removal.is_some());
        // A move the table knows for the root comes first.
        let known = root.legal_moves()[3];
        let entry = crate::search::tt::Entry {
            mv: Some(known),
            score: 0,
            depth: 1,
            bound: Bound::Exact,
        };
        tt.store(root.key(), entry);
        assert_eq!(first_choice_in(fen, &tt), known);
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
