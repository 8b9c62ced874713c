//! The search: iterative deepening over a principal-variation alpha-beta
//! with aspiration windows, a shared transposition table, repetition and
//! N-move-rule draws, and exact win and loss scores.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use arrayvec::ArrayVec;

use crate::board::{MAX_MOVES, Move, Position};
use crate::search::eval::{STONE, evaluate};
use crate::search::limits::TimeManager;
use crate::search::ordering::{MoveOrdering, pick_next};
use crate::search::score::{
    INFINITY, MATE, MATE_BOUND, MAX_PLY, Score, db_score, score_from_tt, score_to_tt,
    stored_score_in_time,
};
use crate::search::tt::Entry;
use crate::search::{Bound, SearchLimits, TranspositionTable};
use crate::solution::{Database, DbOutcome, Reads};

/// How many plies of mill-closing moves the quiescence search follows.
const QUIESCENCE_PLIES: usize = 8;

/// A principal variation.
pub(crate) type Line = ArrayVec<Move, MAX_PLY>;

/// One root move and what the search knows of it.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    /// The move.
    pub mv: Move,
    /// Its score at the depth being searched, `-INFINITY` until searched.
    pub score: i32,
    /// Its score at the last completed depth.
    pub previous_score: i32,
    /// The line it begins.
    pub pv: Line,
}

/// A progress report of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// The depth completed.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Which of the best lines this is, from 1.
    pub multipv: u32,
    /// The line's score.
    pub score: Score,
    /// Whether the score only bounds the value (`Lower`, `Upper`) or is exact.
    pub bound: Bound,
    /// Nodes searched so far, all threads together.
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Transposition table use in thousandths.
    pub hashfull: u32,
    /// Positions answered by databases.
    pub dbhits: u64,
    /// The root's value for the side to move by the databases, when they
    /// know it: every line reported keeps it.
    pub exact: Option<DbOutcome>,
    /// The line.
    pub pv: Vec<Move>,
}

/// What a search sends while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchEvent {
    /// A line of the current depth.
    Info(SearchInfo),
    /// The root move being searched, in a long search.
    CurrMove {
        /// The depth being searched.
        depth: u32,
        /// The move.
        mv: Move,
        /// Its place in the root move order, from 1.
        number: u32,
    },
    /// The end of placing was solved to the databases' leaves before the
    /// search, wholly or in part: only the moves that keep the best outcome
    /// (or may still beat it) are searched.
    PlacingSolved {
        /// The best outcome proven for the side to move.
        outcome: DbOutcome,
        /// Whether every move was decided (else the moves not decided are
        /// kept too, unless a win is proven).
        complete: bool,
        /// The moves that keep it.
        kept: usize,
        /// The moves there were.
        of: usize,
        /// Nodes of the solving search.
        nodes: u64,
    },
    /// The databases chose the root moves with some of their values
    /// missing: the disk had not read them in time.
    ValuesMissing {
        /// Values read in time, of the root and of the positions its moves
        /// lead to.
        read: usize,
        /// Values needed.
        of: usize,
    },
    /// The moves that keep a draw are searched with a bonus for the share
    /// of the opponent's replies that lose.
    DrawPlayedToWin {
        /// The moves that keep the draw.
        moves: usize,
        /// The opponent's replies that lose after the move that leaves the
        /// largest share of them.
        losing: u32,
        /// The opponent's replies there.
        replies: u32,
    },
    /// The move to play should the search be stopped before it completes
    /// a depth: the databases' choice at the root.
    Choice {
        /// The move.
        best: Move,
    },
    /// The search did not answer by its deadline (a read of the disk or
    /// the machine's load held it): the best move known is played for it.
    Overdue,
    /// The search failed (a thread panicked); a best move still follows.
    Failed {
        /// What went wrong.
        reason: String,
    },
    /// The search is over: the move to play and the reply expected.
    BestMove {
        /// The move, or `None` when the position has none.
        best: Option<Move>,
        /// The expected reply, to ponder on.
        ponder: Option<Move>,
    },
}

/// The state all threads of one search share.
pub(crate) struct SearchContext {
    /// The transposition table.
    pub tt: Arc<TranspositionTable>,
    /// Set to end the search.
    pub stop: Arc<AtomicBool>,
    /// Set while a `go ponder` has not yet had its `ponderhit`.
    pub pondering: Arc<AtomicBool>,
    /// What ends the search.
    pub limits: SearchLimits,
    /// The clock.
    pub time: TimeManager,
    /// Nodes of all threads, added in batches.
    pub nodes: AtomicU64,
    /// The number of best lines to report.
    pub multipv: usize,
    /// Endgame databases, if loaded.
    pub db: Option<Arc<Database>>,
    /// Positions answered by the databases.
    pub dbhits: AtomicU64,
    /// Whether a probe may wait for the disk.
    pub reads: Reads,
    /// The root's value by the databases, when they know it (the root
    /// moves are those that keep it). When it is a draw, positions the
    /// databases call drawn are searched on as if they were not known, so
    /// that the evaluation picks the draw that sets the opponent the most
    /// problems.
    pub root_outcome: Option<DbOutcome>,
    /// What the root moves add to their scores, those not listed nothing:
    /// with a draw played to win, each drawing move's bonus for the share
    /// of the opponent's replies that lose.
    pub draw_bonuses: Vec<(Move, i32)>,
}

impl SearchContext {
    /// What the root move `mv` adds to its score (see `draw_bonuses`).
    fn draw_bonus(&self, mv: Move) -> i32 {
        self.draw_bonuses
            .iter()
            .find(|&&(bonused, _)| bonused == mv)
            .map_or(0, |&(_, bonus)| bonus)
    }

    /// Whether the search should end now that the limits are applied.
    fn out_of_time(&self) -> bool {
        !self.pondering.load(Ordering::Relaxed)
            && self
                .time
                .maximum()
                .is_some_and(|max| self.time.elapsed() >= max)
    }
}

/// How many nodes a worker counts before it adds them to the shared count
/// and looks at the clock.
const NODE_BATCH: u64 = 1024;

/// How long a search runs before it also reports the root move it is on
/// and every aspiration fail: in a short search these would only be noise.
const DETAILS_AFTER: Duration = Duration::from_secs(1);

/// One search thread.
pub(crate) struct Worker<'a> {
    ctx: &'a SearchContext,
    id: usize,
    root: Position,
    root_moves: Vec<RootMove>,
    /// Keys of the game's positions, then of the search path; the last is
    /// the position being searched.
    keys: Vec<u64>,
    /// Index in `keys` of the root.
    root_index: usize,
    ordering: MoveOrdering,
    nodes: u64,
    unflushed: u64,
    /// The node limit, looked up once rather than at every node.
    node_limit: Option<u64>,
    seldepth: usize,
    stopped: bool,
    completed_depth: u32,
    /// When the main worker starts reporting details (see [`DETAILS_AFTER`]).
    details_after: Duration,
}

impl<'a> Worker<'a> {
    /// A worker that searches `root`, reached through the positions whose
    /// keys are `game_keys` (the root's key last), considering `moves`.
    pub(crate) fn new(
        ctx: &'a SearchContext,
        id: usize,
        root: Position,
        game_keys: &[u64],
        moves: &[Move],
    ) -> Worker<'a> {
        let mut keys = game_keys.to_vec();
        if keys.last() != Some(&root.key()) {
            keys.push(root.key());
        }
        Worker {
            ctx,
            id,
            root,
            root_moves: moves
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITY,
                    previous_score: -INFINITY,
                    pv: Line::new(),
                })
                .collect(),
            root_index: keys.len() - 1,
            keys,
            ordering: MoveOrdering::new(),
            nodes: 0,
            unflushed: 0,
            node_limit: ctx.limits.max_nodes(),
            seldepth: 0,
            stopped: false,
            completed_depth: 0,
            details_after: DETAILS_AFTER,
        }
    }

    /// The root moves, best first, after the search.
    pub(crate) fn root_moves(&self) -> &[RootMove] {
        &self.root_moves
    }

    /// The deepest iteration this worker completed.
    pub(crate) fn completed_depth(&self) -> u32 {
        self.completed_depth
    }

    /// Iterative deepening until a limit or `stop`; the main worker (id 0)
    /// reports each completed depth through `report`, details of long
    /// searches, and a last report of where the search ended. Depth 1 is
    /// always completed, so that there is a move with a score to play.
    pub(crate) fn iterate(&mut self, mut report: impl FnMut(SearchEvent)) {
        let limits = &self.ctx.limits;
        let max_depth = limits
            .max_depth()
            .map_or(MAX_PLY as u32 - 1, |d| d.clamp(1, MAX_PLY as u32 - 1));
        let multipv = self.ctx.multipv.clamp(1, self.root_moves.len().max(1));
        let mut best_move_changes = 0.0;
        let mut last_best = None;
        let mut reported_nodes = None;
        for depth in 1..=max_depth {
            // Helpers skip some depths so that the threads spread over more
            // of the tree (lazy SMP).
            if self.id > 0 && depth > 2 && (depth as usize + self.id) % 3 == 0 {
                continue;
            }
            for rm in &mut self.root_moves {
                rm.previous_score = rm.score;
                rm.score = -INFINITY;
            }
            for pv_index in 0..multipv {
                self.search_with_aspiration(depth as i32, pv_index, &mut report);
                if self.stopped {
                    break;
                }
                self.sort_root_moves(0, pv_index + 1);
            }
            if self.stopped {
                // Keep what the unfinished depth found best, by score, then
                // by the last completed depth.
                self.sort_root_moves(0, self.root_moves.len());
                break;
            }
            self.completed_depth = depth;
            if self.id == 0 {
                for pv_index in 0..multipv {
                    report(SearchEvent::Info(self.info(depth, pv_index, Bound::Exact)));
                }
                reported_nodes = Some(self.total_nodes());
            }
            let best = self.root_moves.first().map(|rm| rm.mv);
            best_move_changes = best_move_changes / 2.0 + if best != last_best { 1.0 } else { 0.0 };
            last_best = best;
            if self.id == 0 && self.done_after_iteration(best_move_changes) {
                break;
            }
        }
        // The last report may be long out of date (or, for a tiny node
        // limit, never sent): say where the search ended.
        if self.id == 0 && reported_nodes != Some(self.total_nodes()) {
            // A best move rescored by the unfinished depth speaks for it.
            let unfinished = self.root_moves[0].score != -INFINITY;
            let depth = self.completed_depth + u32::from(unfinished);
            for pv_index in 0..multipv {
                report(SearchEvent::Info(self.info(depth, pv_index, Bound::Exact)));
            }
        }
    }

    /// Whether the main worker should stop after a completed iteration.
    fn done_after_iteration(&self, best_move_changes: f64) -> bool {
        let ctx = self.ctx;
        let best_score = self.root_moves.first().map_or(0, |rm| rm.score);
        if let Some(n) = ctx.limits.mate() {
            if best_score >= MATE - (2 * n as i32 - 1) {
                return true;
            }
        }
        if ctx.pondering.load(Ordering::Relaxed) || !ctx.limits.is_timed() {
            return false;
        }
        if self.root_moves.len() == 1 {
            return true;
        }
        // A proven result will not change with more depth.
        if best_score.abs() >= MATE_BOUND && self.completed_depth as i32 >= MATE - best_score.abs()
        {
            return true;
        }
        let Some(optimum) = ctx.time.optimum() else {
            return false;
        };
        // Take longer while the best move keeps changing.
        let instability = (0.6 + 0.8 * best_move_changes).clamp(0.5, 2.5);
        ctx.time.elapsed().as_secs_f64() >= optimum.as_secs_f64() * instability * 0.6
    }

    fn search_with_aspiration(
        &mut self,
        depth: i32,
        pv_index: usize,
        report: &mut impl FnMut(SearchEvent),
    ) {
        let previous = self.root_moves[pv_index].previous_score;
        let mut delta = 30;
        let (mut alpha, mut beta) = if depth >= 4 && previous.abs() < MATE_BOUND {
            (previous - delta, previous + delta)
        } else {
            (-INFINITY, INFINITY)
        };
        loop {
            let score = self.search_root(depth, alpha, beta, pv_index, report);
            self.sort_root_moves(pv_index, self.root_moves.len());
            if self.stopped {
                return;
            }
            let bound = if score <= alpha && alpha > -INFINITY {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITY);
                Bound::Upper
            } else if score >= beta && beta < INFINITY {
                beta = (score + delta).min(INFINITY);
                Bound::Lower
            } else {
                return;
            };
            if self.reports_details() && self.ctx.multipv == 1 {
                report(SearchEvent::Info(self.info(depth as u32, pv_index, bound)));
            }
            delta += delta;
        }
    }

    /// Whether this is the main worker of a search long enough to report
    /// details.
    fn reports_details(&self) -> bool {
        self.id == 0 && self.ctx.time.elapsed() >= self.details_after
    }

    fn sort_root_moves(&mut self, from: usize, to: usize) {
        self.root_moves[from..to]
            .sort_by_key(|rm| std::cmp::Reverse((rm.score, rm.previous_score)));
    }

    fn search_root(
        &mut self,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv_index: usize,
        report: &mut impl FnMut(SearchEvent),
    ) -> i32 {
        let mut best = -INFINITY;
        for i in pv_index..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            if self.reports_details() {
                report(SearchEvent::CurrMove {
                    depth: depth as u32,
                    mv,
                    number: i as u32 + 1,
                });
            }
            let mut child = self.root;
            child.play_unchecked(mv);
            self.keys.push(child.key());
            let mut line = Line::new();
            // The child is searched in the window less the move's bonus.
            let bonus = self.ctx.draw_bonus(mv);
            let (alpha_less, beta_less) = (alpha - bonus, beta - bonus);
            let searched = if i == pv_index {
                -self.negamax(&child, depth - 1, 1, -beta_less, -alpha_less, &mut line)
            } else {
                let scout = -self.negamax(
                    &child,
                    depth - 1,
                    1,
                    -alpha_less - 1,
                    -alpha_less,
                    &mut line,
                );
                if scout > alpha_less && scout < beta_less {
                    -self.negamax(&child, depth - 1, 1, -beta_less, -alpha_less, &mut line)
                } else {
                    scout
                }
            };
            let score = searched + bonus;
            self.keys.pop();
            if self.stopped {
                break;
            }
            if i == pv_index || score > alpha {
                let rm = &mut self.root_moves[i];
                rm.score = score;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend(line);
                best = best.max(score);
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn info(&self, depth: u32, pv_index: usize, bound: Bound) -> SearchInfo {
        self.line_info(&self.root_moves[pv_index], depth, pv_index, bound)
    }

    /// The report of `rm`, a line found at `depth` by this or another
    /// thread, as this worker sees the search.
    pub(crate) fn line_info(
        &self,
        rm: &RootMove,
        depth: u32,
        pv_index: usize,
        bound: Bound,
    ) -> SearchInfo {
        let score = if rm.score == -INFINITY {
            rm.previous_score
        } else {
            rm.score
        };
        // The search's own score, without the bonus it was ranked by.
        let score = if score == -INFINITY {
            score
        } else {
            score - self.ctx.draw_bonus(rm.mv)
        };
        SearchInfo {
            depth,
            seldepth: self.seldepth as u32,
            multipv: pv_index as u32 + 1,
            score: Score::from_search(score),
            bound,
            nodes: self.total_nodes(),
            time: self.ctx.time.elapsed(),
            hashfull: self.ctx.tt.hashfull(),
            dbhits: self.ctx.dbhits.load(Ordering::Relaxed),
            exact: self.ctx.root_outcome,
            pv: rm.pv.to_vec(),
        }
    }

    /// Nodes of every thread, this one's unshared count included.
    fn total_nodes(&self) -> u64 {
        self.ctx.nodes.load(Ordering::Relaxed) + self.unflushed
    }

    /// Counts a node; every batch, shares the count and looks at the
    /// limits. The main worker heeds them only once depth 1 is complete.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unflushed += 1;
        let may_stop = self.id > 0 || self.completed_depth > 0;
        if let Some(limit) = self.node_limit {
            if may_stop && self.total_nodes() >= limit {
                self.stop_all();
            }
        }
        if self.unflushed >= NODE_BATCH {
            self.ctx.nodes.fetch_add(self.unflushed, Ordering::Relaxed);
            self.unflushed = 0;
            if !may_stop {
                return;
            }
            if self.ctx.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            } else if self.ctx.out_of_time() {
                self.stop_all();
            }
        }
    }

    fn stop_all(&mut self) {
        self.stopped = true;
        self.ctx.stop.store(true, Ordering::Relaxed);
    }

    /// Adds the last uncounted nodes to the shared count.
    pub(crate) fn flush_nodes(&mut self) {
        self.ctx.nodes.fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
    }

    /// Whether the position, just reached, repeats one that makes it a draw:
    /// any earlier position of the search path, or one the game had twice.
    fn is_repetition(&self, pos: &Position) -> bool {
        let current = self.keys.len() - 1;
        // A removal changes the stones for good, so nothing before the last
        // one can come back; placements change the hands, hence the key.
        let reach = (pos.plies_since_removal() as usize).min(current);
        let mut earlier = 0;
        for back in (2..=reach).step_by(2) {
            let index = current - back;
            if self.keys[index] == pos.key() {
                if index >= self.root_index {
                    return true;
                }
                earlier += 1;
                if earlier >= 2 {
                    return true;
                }
            }
        }
        false
    }

    /// The score of a position the rules have drawn, unless the side to
    /// move is blocked: a loss comes before any draw.
    fn draw_or_blocked(&self, pos: &Position, ply: usize) -> i32 {
        if pos.count_legal_moves() == 0 {
            -MATE + ply as i32
        } else {
            0
        }
    }

    /// The score of a position without moves: a loss, or in Twelve Men's
    /// Morris a full board, which is a draw.
    fn no_moves(pos: &Position, ply: usize) -> i32 {
        match pos.terminal_outcome() {
            Some(outcome) if outcome.winner().is_none() => 0,
            _ => -MATE + ply as i32,
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        line: &mut Line,
    ) -> i32 {
        line.clear();
        // Step 1. Count the node and look at the limits.
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let pv_node = beta - alpha > 1;

        // Step 2. The end of the game and the draw rules.
        if pos.side_to_move_is_short() {
            return -MATE + ply as i32;
        }
        if self.is_repetition(pos) || pos.n_move_rule_reached() {
            return self.draw_or_blocked(pos, ply);
        }
        if ply >= MAX_PLY - 1 {
            return evaluate(pos);
        }

        // Step 3. Mate distance pruning: no line from here beats a win
        // already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }

        // Step 3a. The databases know this position exactly.
        if let Some(score) = self.probe_db(pos, ply) {
            return score;
        }

        if depth <= 0 {
            return self.quiescence(pos, ply, alpha, beta, 0);
        }

        // Step 4. The transposition table. Its scores ignore how near the
        // N-move rule is, so they are not trusted close to it.
        let entry = self.ctx.tt.probe(pos.key());
        let near_n_move_draw = pos
            .rules()
            .draw_plies()
            .is_some_and(|limit| pos.plies_since_removal() + depth as u32 + 2 >= limit);
        if let Some(entry) = entry {
            if !pv_node
                && !near_n_move_draw
                && i32::from(entry.depth) >= depth
                && stored_score_in_time(entry.score, pos)
            {
                let score = score_from_tt(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }

        // Step 5. Reverse futility: far above beta at low depth, assume the
        // position holds.
        if !pv_node && depth <= 3 && beta.abs() < MATE_BOUND {
            let eval = evaluate(pos);
            if eval - 120 * depth >= beta {
                return eval;
            }
        }

        // Step 6. Generate and order the moves.
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return Worker::no_moves(pos, ply);
        }
        let tt_move = entry.and_then(|e| e.mv);
        let mut scores = self.ordering.score_moves(pos, &moves, tt_move, ply);

        // Step 7. Search the moves, the first with the full window, the
        // rest with a null window first (principal variation search), late
        // quiet moves reduced.
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut child_line = Line::new();
        let mut quiets_tried: ArrayVec<Move, MAX_MOVES> = ArrayVec::new();
        for index in 0..moves.len() {
            let mv = pick_next(&mut moves, &mut scores, index);
            let mut child = *pos;
            child.play_unchecked(mv);
            self.keys.push(child.key());
            let quiet = mv.removal.is_none();
            let late_quiet = quiet && !pv_node && index >= 3;
            let window = Window {
                alpha,
                beta,
                first: index == 0,
                reduction: if late_quiet && depth >= 3 && !makes_threat(pos, &child) {
                    1 + i32::from(index >= 8 && depth >= 6)
                } else {
                    0
                },
            };
            let score = self.search_child(&child, depth, ply, window, &mut child_line);
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    line.clear();
                    line.push(mv);
                    line.extend(child_line.iter().copied());
                    if alpha >= beta {
                        if quiet {
                            self.ordering.reward_quiet(
                                pos.side_to_move(),
                                mv,
                                &quiets_tried,
                                depth,
                                ply,
                            );
                        }
                        break;
                    }
                }
            }
            if quiet {
                quiets_tried.push(mv);
            }
        }

        // Step 8. Remember the result.
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.ctx.tt.store(
            pos.key(),
            Entry {
                mv: best_move,
                score: score_to_tt(best_score, ply),
                depth: depth.clamp(0, 255) as u8,
                bound,
            },
        );
        best_score
    }

    /// The score of `child`, one ply below a node at `depth`: the first
    /// move with the full window; the others with a null window first (a
    /// late quiet one reduced, searched again at full depth if it beats
    /// alpha), then with the full window if the value lies inside it
    /// (principal variation search).
    #[inline]
    fn search_child(
        &mut self,
        child: &Position,
        depth: i32,
        ply: usize,
        window: Window,
        line: &mut Line,
    ) -> i32 {
        let Window {
            alpha,
            beta,
            first,
            reduction,
        } = window;
        if first {
            return -self.negamax(child, depth - 1, ply + 1, -beta, -alpha, line);
        }
        let mut score = -self.negamax(
            child,
            depth - 1 - reduction,
            ply + 1,
            -alpha - 1,
            -alpha,
            line,
        );
        if score > alpha && reduction > 0 {
            score = -self.negamax(child, depth - 1, ply + 1, -alpha - 1, -alpha, line);
        }
        if score > alpha && score < beta {
            score = -self.negamax(child, depth - 1, ply + 1, -beta, -alpha, line);
        }
        score
    }

    /// The exact score of a position the databases hold, with the draw
    /// rule in mind: a win whose next removal comes after the N-move rule
    /// has drawn the game is a draw, and so is such a loss. None for a
    /// draw while draws are searched on. The plies to the removal are
    /// those the databases give where the rule needs them, and at most
    /// what they say elsewhere (see [`Probe::value_under_rule`](crate::solution::Probe::value_under_rule)):
    /// the root's moves are ranked by the exact ones before the search.
    fn probe_db(&self, pos: &Position, ply: usize) -> Option<i32> {
        // A value not in memory is read in the background meanwhile.
        let value = self
            .ctx
            .db
            .as_ref()?
            .reading(self.ctx.reads)
            .value_under_rule(pos)
            .ok()??;
        if value.outcome == DbOutcome::Draw && self.ctx.root_outcome == Some(DbOutcome::Draw) {
            return None;
        }
        self.ctx.dbhits.fetch_add(1, Ordering::Relaxed);
        Some(db_score(
            value.outcome,
            ply as i32 + i32::from(value.distance),
        ))
    }

    /// Follows mill-closing moves until the position is quiet, standing on
    /// the static evaluation otherwise. Against a double threat (two points
    /// where the opponent closes a mill next turn) the side to move cannot
    /// stand: it must close a mill or block, and one block leaves the other
    /// threat, which the opponent's mill moves then carry out.
    fn quiescence(
        &mut self,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qply: usize,
    ) -> i32 {
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if pos.side_to_move_is_short() {
            return -MATE + ply as i32;
        }
        if pos.count_legal_moves() == 0 {
            return Worker::no_moves(pos, ply);
        }
        let stand_pat = evaluate(pos);
        if qply >= QUIESCENCE_PLIES || ply >= MAX_PLY - 1 {
            return stand_pat;
        }
        let threats = pos.mill_threats(pos.side_to_move().opponent());
        let double_threat = threats.len() >= 2;
        if !double_threat && stand_pat >= beta {
            return stand_pat;
        }
        let mut moves = pos.legal_mill_moves();
        let mut best = if double_threat {
            moves.extend(
                pos.legal_moves()
                    .into_iter()
                    .filter(|mv| mv.removal.is_none() && threats.contains(mv.to)),
            );
            // With neither a mill nor a block the opponent closes a mill.
            stand_pat - STONE
        } else {
            stand_pat
        };
        alpha = alpha.max(best);
        if best >= beta {
            return best;
        }
        let mut scores = self.ordering.score_moves(pos, &moves, None, ply);
        for index in 0..moves.len() {
            let mv = pick_next(&mut moves, &mut scores, index);
            let mut child = *pos;
            child.play_unchecked(mv);
            let score = -self.quiescence(&child, ply + 1, -beta, -alpha, qply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Whether the move from `pos` to `child` gives the mover a point to close
/// a mill on its next turn that it did not have: such a move forces an
/// answer and is not searched less deeply than the others.
fn makes_threat(pos: &Position, child: &Position) -> bool {
    let mover = pos.side_to_move();
    !(child.mill_threats(mover) - pos.mill_threats(mover)).is_empty()
}

/// How a child is searched: the parent's window, whether it is the first
/// move, and by how many plies a null-window search of it is reduced.
#[derive(Clone, Copy)]
struct Window {
    alpha: i32,
    beta: i32,
    first: bool,
    reduction: i32,
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::board::rules::Rules;
    use crate::search::DB_WIN;

    fn context(limits: SearchLimits) -> SearchContext {
        SearchContext {
            tt: Arc::new(TranspositionTable::new(1).unwrap()),
            stop: Arc::default(),
            pondering: Arc::default(),
            time: TimeManager::new(
                Instant::now(),
                &limits,
                &Position::startpos(),
                Duration::ZERO,
                false,
            ),
            limits,
            nodes: AtomicU64::new(0),
            multipv: 1,
            db: None,
            dbhits: AtomicU64::new(0),
            reads: Reads::Wait,
            root_outcome: None,
            draw_bonuses: Vec::new(),
        }
    }

    #[test]
    fn a_stored_database_win_is_not_used_where_the_n_move_rule_draws_first() {
        // A quiet moving position, 50 plies since the last removal: the
        // default rule draws at 60.
        let fen = "WW./.B./.../W.B..W/.B./.../.W. w 0 0 50 40";
        let pos = Position::from_fen(fen, Rules::default()).unwrap();
        let ctx = context(SearchLimits::depth(1));
        let moves = pos.legal_moves();
        let mut worker = Worker::new(&ctx, 0, pos, &[pos.key()], &moves);
        let mut line = Line::new();
        for (distance, usable) in [(5, true), (15, false)] {
            ctx.tt.store(
                pos.key(),
                Entry {
                    mv: None,
                    score: score_to_tt(DB_WIN - 1 - distance, 1),
                    depth: 30,
                    bound: Bound::Exact,
                },
            );
            let score = worker.negamax(&pos, 2, 1, -1, 0, &mut line);
            assert_eq!(
                score == DB_WIN - 1 - distance,
                usable,
                "{distance}: {score}"
            );
        }
    }

    #[test]
    fn a_root_move_s_bonus_ranks_it_and_its_reported_score_stays_the_search_s() {
        let root = Position::startpos();
        let moves = root.legal_moves();
        let searched = |moves: &[Move], ctx: &SearchContext| {
            let mut worker = Worker::new(ctx, 0, root, &[root.key()], moves);
            let mut last = None;
            worker.iterate(|event| {
                if let SearchEvent::Info(info) = event {
                    last = Some(info.score);
                }
            });
            (worker.root_moves()[0].mv, last.unwrap())
        };
        let (best, best_score) = searched(&moves, &context(SearchLimits::depth(3)));
        let other = *moves.iter().find(|&&mv| mv != best).unwrap();
        let (_, other_score) = searched(&[other], &context(SearchLimits::depth(3)));
        let (Score::Cp(best_cp), Score::Cp(other_cp)) = (best_score, other_score) else {
            panic!("scores {best_score:?} and {other_score:?}");
        };
        let ctx = SearchContext {
            draw_bonuses: vec![(other, best_cp - other_cp + 1)],
            ..context(SearchLimits::depth(3))
        };
        assert_eq!(searched(&moves, &ctx), (other, other_score));
    }

    #[test]
    fn aspiration_fails_are_reported_as_bounds_in_long_searches() {
        let root = Position::startpos();
        let ctx = context(SearchLimits::depth(4));
        let moves = root.legal_moves();
        let mut worker = Worker::new(&ctx, 0, root, &[root.key()], &moves);
        worker.details_after = Duration::ZERO;
        // A last depth that promised far too much: the window around it
        // fails low before the true score is found.
        for rm in &mut worker.root_moves {
            rm.previous_score = 800;
        }
        let mut events = Vec::new();
        worker.search_with_aspiration(4, 0, &mut |event| events.push(event));
        let bounds: Vec<Bound> = events
            .iter()
            .filter_map(|e| match e {
                SearchEvent::Info(info) => Some(info.bound),
                _ => None,
            })
            .collect();
        assert_eq!(bounds.first(), Some(&Bound::Upper), "{events:?}");
        let searched = events
            .iter()
            .filter(|e| matches!(e, SearchEvent::CurrMove { number: 1, .. }))
            .count();
        assert_eq!(searched, bounds.len() + 1);
    }

    fn nine(fen: &str) -> Position {
        Position::from_fen(fen, Rules::default()).unwrap()
    }

    #[test]
    fn quiescence_does_not_stand_against_a_double_threat() {
        // White to move, placing; Black closes a mill next turn at g7, g1
        // or a4, and White has no mill of its own: one block leaves another
        // mill, which costs White a stone.
        let pos = nine("BB./W../.../....../.../..W/BB. w 5 5 0 5");
        let ctx = context(SearchLimits::depth(1));
        let moves = pos.legal_moves();
        let mut worker = Worker::new(&ctx, 0, pos, &[pos.key()], &moves);
        let score = worker.quiescence(&pos, 1, -INFINITY, INFINITY, 0);
        assert!(
            score <= evaluate(&pos) - STONE / 2,
            "{score} {}",
            evaluate(&pos)
        );
        // With one threat only, a block holds and standing is fair.
        let single = nine("BB./W../.../....../.../..W/..B w 5 5 0 5");
        let score = worker.quiescence(&single, 1, -INFINITY, INFINITY, 0);
        assert_eq!(score, evaluate(&single));
    }

    #[test]
    fn a_move_that_makes_a_threat_is_told_apart() {
        // White a7 and d7 placed; g7 is open. Placing on a4 adds a threat
        // (a1, as a7-a4-a1); b6 adds none.
        let pos = nine("WW./.../.../....../.../.../..B w 7 7 0 3");
        let after = |mv: &str| {
            let mut child = pos;
            child.play_unchecked(mv.parse().unwrap());
            child
        };
        assert!(makes_threat(&pos, &after("a4")));
        assert!(!makes_threat(&pos, &after("b6")));
    }
}
