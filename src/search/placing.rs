//! The end of placing solved exactly: a win/draw/loss search over the last
//! placements whose leaves, the positions with nothing left in hand, are
//! answered by the databases; and with it a placing position's moves with
//! and without the N-move rule ([`placing_moves`]), as `morris probe`
//! prints them.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::Instant;

use arrayvec::ArrayVec;

use crate::board::{MAX_MOVES, Move, MoveList, Position};
use crate::solution::{Database, DbOutcome, MoveValue, NotInMemory, Reads};

/// Nodes between looks at the clock; it is looked at after every batch of
/// leaves too, since a batch read from a cold disk can take longer than
/// thousands of nodes from memory.
const CLOCK_EVERY: u64 = 4096;

/// What the table knows of a position: its outcome bounds for the side to
/// move, as -1 (loss), 0 (draw) and 1 (win), and the move that decided it.
#[derive(Clone, Copy)]
struct Bounds {
    lower: i8,
    upper: i8,
    best: Option<Move>,
}

/// Hashes a Zobrist key as it is: its bits are random already, and the
/// default hasher cost more than the rest of a table look-up.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// Leaves asked of the databases at once below a last placement: enough
/// for their reads to overlap, few enough that a cutoff saves the rest.
const LEAF_BATCH: usize = 6;

/// Stones left to place, both sides together, at most (Twelve Men's Morris).
const MAX_TO_PLACE: usize = 24;

/// Why the end of placing could not be solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// A leaf's sector is not loaded, or the rules are not those of the
    /// databases.
    Unknown,
    /// The deadline or the node budget was reached first.
    OutOfTime,
    /// A leaf was not in memory, and the solver reads from memory only
    /// (it is read in the background meanwhile).
    NotInMemory,
}

/// What the solver settled of a position's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingChoice {
    /// The best outcome a move was proven to reach, for the side moving.
    pub outcome: DbOutcome,
    /// The moves proven to reach it and, unless it is a win, the moves
    /// not decided, which may reach more.
    pub kept: Vec<Move>,
    /// Whether every move was decided: then `outcome` is the position's
    /// and `kept` holds exactly the moves that reach it.
    pub complete: bool,
}

/// What solving has proven of placing positions, kept from one solve to
/// the next: the values are exact for the databases and the rules they
/// were found under, so a game's next move finds its subtrees solved.
#[derive(Default)]
pub struct PlacingTable {
    entries: HashMap<u64, Bounds, BuildHasherDefault<KeyHasher>>,
}

impl PlacingTable {
    /// Positions the table holds at most; past this it starts afresh
    /// (about 20 bytes a position).
    const CAPACITY: usize = 1 << 22;

    /// The positions it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets everything, as when the databases or the rules change.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// A [`PlacingTable`] shared by the searches of one engine: a clone is
/// the same table, and each search takes it for its solve.
#[derive(Clone, Debug, Default)]
pub struct SharedPlacingTable(Arc<Mutex<PlacingTable>>);

impl SharedPlacingTable {
    /// Forgets everything, as when the databases or the rules change.
    pub fn clear(&self) {
        self.lock().clear();
    }

    /// The table, for one solve at a time (a solve that panicked left
    /// only proven values behind, so its table is still good).
    pub(crate) fn lock(&self) -> MutexGuard<'_, PlacingTable> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The table if no other solve holds it (one given up on by the clock
    /// may still be waiting for a read).
    pub(crate) fn try_lock(&self) -> Option<MutexGuard<'_, PlacingTable>> {
        match self.0.try_lock() {
            Ok(table) => Some(table),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

impl std::fmt::Debug for PlacingTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlacingTable")
            .field("len", &self.len())
            .finish()
    }
}

/// Solves positions of the placing phase exactly, to the databases'
/// leaves.
pub struct PlacingSolver<'a> {
    db: &'a Database,
    table: PlacingTable,
    /// Per count of stones left to place, the last two moves that cut off.
    killers: [[Option<Move>; 2]; MAX_TO_PLACE + 1],
    nodes: u64,
    /// The node count at which the clock is looked at next.
    next_clock_look: u64,
    deadline: Option<Instant>,
    node_budget: Option<u64>,
    /// Set by others to make the solver give up.
    stop: Option<Arc<AtomicBool>>,
    /// Whether a leaf may wait for the disk.
    reads: Reads,
}

impl<'a> PlacingSolver<'a> {
    /// A solver over `db` that gives up at `deadline` or after
    /// `node_budget` nodes, if given.
    pub fn new(
        db: &'a Database,
        deadline: Option<Instant>,
        node_budget: Option<u64>,
    ) -> PlacingSolver<'a> {
        PlacingSolver::with_table(db, PlacingTable::default(), deadline, node_budget)
    }

    /// A solver as [`PlacingSolver::new`] that starts from what `table`
    /// holds: it must come from solves over the same databases and rules.
    pub fn with_table(
        db: &'a Database,
        mut table: PlacingTable,
        deadline: Option<Instant>,
        node_budget: Option<u64>,
    ) -> PlacingSolver<'a> {
        if table.len() > PlacingTable::CAPACITY {
            table.clear();
        }
        PlacingSolver {
            db,
            table,
            killers: [[None; 2]; MAX_TO_PLACE + 1],
            nodes: 0,
            next_clock_look: CLOCK_EVERY,
            deadline,
            node_budget,
            stop: None,
            reads: Reads::Wait,
        }
    }

    /// The solver, made to give up as soon as `stop` is set.
    pub fn stopped_by(self, stop: Arc<AtomicBool>) -> PlacingSolver<'a> {
        PlacingSolver {
            stop: Some(stop),
            ..self
        }
    }

    /// The solver, reading its leaves as `reads` allows: from memory only,
    /// it gives up at the first leaf that is not there, as at its deadline.
    pub fn reading(self, reads: Reads) -> PlacingSolver<'a> {
        PlacingSolver { reads, ..self }
    }

    /// The nodes searched so far, the leaves counted.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// What the solver proved, for the next solver to start from.
    pub fn into_table(self) -> PlacingTable {
        self.table
    }

    /// The exact outcome of `pos` for the side to move, with the N-move
    /// rule (repetitions cannot happen while stones are placed).
    ///
    /// # Errors
    ///
    /// [`Unsolved`] if a leaf is not in the databases or time ran out.
    pub fn solve(&mut self, pos: &Position) -> Result<DbOutcome, Unsolved> {
        held_by_databases(self.db, pos)?;
        Ok(DbOutcome::from_signum(self.search(pos, -1, 1)?))
    }

    /// Each of `moves` (legal in `pos`) with its exact outcome for the
    /// side making it.
    ///
    /// # Errors
    ///
    /// [`Unsolved`] as for [`PlacingSolver::solve`].
    pub fn solve_moves(
        &mut self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<Vec<(Move, DbOutcome)>, Unsolved> {
        held_by_databases(self.db, pos)?;
        moves
            .iter()
            .map(|&mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                Ok((mv, DbOutcome::from_signum(-self.search(&child, -1, 1)?)))
            })
            .collect()
    }

    /// The best outcome of `moves` (legal in `pos`) for the side making
    /// them, and the moves that reach it. Once a move reaches an outcome,
    /// the others are only asked whether they reach it too. When the limits
    /// stop the solver midway, the choice says what was proven: the best
    /// outcome a move reached, and the moves that may still be best.
    ///
    /// # Errors
    ///
    /// [`Unsolved`] if a leaf is not in the databases, or if the limits
    /// came before any move was decided.
    pub fn best_moves(
        &mut self,
        pos: &Position,
        moves: &[Move],
    ) -> Result<PlacingChoice, Unsolved> {
        held_by_databases(self.db, pos)?;
        let mut ordered: MoveList = moves.iter().copied().collect();
        let known_best = self
            .table
            .entries
            .get(&table_key(pos))
            .and_then(|bounds| bounds.best);
        self.order(pos, &mut ordered, known_best);
        let mut best = -1;
        let mut kept = Vec::new();
        for (index, &mv) in ordered.iter().enumerate() {
            let mut child = *pos;
            child.play_unchecked(mv);
            let value = match self.move_value(&child, (!kept.is_empty()).then_some(best)) {
                Ok(Some(value)) => value,
                Ok(None) => continue,
                Err(Unsolved::OutOfTime | Unsolved::NotInMemory) if !kept.is_empty() => {
                    // A move not decided may beat every one decided,
                    // unless a win is proven already.
                    if best < 1 {
                        kept.extend_from_slice(&ordered[index..]);
                    }
                    return Ok(PlacingChoice {
                        outcome: DbOutcome::from_signum(best),
                        kept,
                        complete: false,
                    });
                }
                Err(unsolved) => return Err(unsolved),
            };
            if value > best || kept.is_empty() {
                best = value;
                kept.clear();
            }
            if value == best {
                kept.push(mv);
            }
        }
        Ok(PlacingChoice {
            outcome: DbOutcome::from_signum(best),
            kept,
            complete: true,
        })
    }

    /// The value for the side that moved to `child`, or `None` when it is
    /// below `best`, the best value of the moves decided so far (exact
    /// when no move was, or when all decided lose).
    fn move_value(&mut self, child: &Position, best: Option<i8>) -> Result<Option<i8>, Unsolved> {
        Ok(match best {
            None | Some(-1) => Some(-self.search(child, -1, 1)?),
            Some(best) if self.search(child, -best, 1 - best)? > -best => None,
            Some(1) => Some(1),
            Some(best) if self.search(child, -1, 0)? >= 0 => Some(best),
            Some(_) => Some(1),
        })
    }

    /// Negamax over -1, 0, 1 with alpha-beta and a table of bounds.
    fn search(&mut self, pos: &Position, alpha: i8, beta: i8) -> Result<i8, Unsolved> {
        self.nodes += 1;
        if self.nodes >= self.next_clock_look {
            self.next_clock_look = self.nodes + CLOCK_EVERY;
            self.look_at_clock()?;
        }
        self.look_at_limits()?;
        if pos.side_to_move_is_short() {
            return Ok(-1);
        }
        let to_place = pos.stones_to_place() as usize;
        if let Some(end) = full_board_end(pos) {
            return Ok(end);
        }
        if to_place == 0 {
            // The value under the rule: a block, lost at distance 0, is
            // lost even on the ply that reaches the rule's count, which
            // draws any other position (docs/RULES.md's order).
            let value = self
                .db
                .reading(self.reads)
                .value_under_rule(pos)
                .map_err(|_| Unsolved::NotInMemory)?
                .ok_or(Unsolved::Unknown)?;
            return Ok(value.outcome.signum());
        }
        // A side with stones in hand can always place: never blocked.
        if pos.n_move_rule_reached() {
            return Ok(0);
        }
        let key = table_key(pos);
        let original_alpha = alpha;
        let mut table_move = None;
        if let Some(bounds) = self.table.entries.get(&key) {
            if bounds.lower >= beta || bounds.lower == bounds.upper {
                return Ok(bounds.lower);
            }
            if bounds.upper <= alpha {
                return Ok(bounds.upper);
            }
            table_move = bounds.best;
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(-1);
        }
        if to_place > 1 {
            self.order(pos, &mut moves, table_move);
        } else {
            // Every leaf is looked up anyway; a removal wins most often.
            moves.sort_by_key(|mv| mv.removal.is_none());
        }
        let (best, best_move) = if to_place == 1 {
            (self.last_placement(pos, &moves, beta)?, None)
        } else {
            self.search_moves(pos, &moves, alpha, beta, to_place)?
        };
        let (lower, upper) = if best <= original_alpha {
            (-1, best)
        } else if best >= beta {
            (best, 1)
        } else {
            (best, best)
        };
        self.table.entries.insert(
            key,
            Bounds {
                lower,
                upper,
                best: best_move,
            },
        );
        Ok(best)
    }

    /// The best of `moves` (legal in `pos`, in order) and its value, up
    /// to the first that reaches `beta`.
    fn search_moves(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        mut alpha: i8,
        beta: i8,
        to_place: usize,
    ) -> Result<(i8, Option<Move>), Unsolved> {
        let mut best = -1;
        let mut best_move = None;
        for &mv in moves {
            let mut child = *pos;
            child.play_unchecked(mv);
            let score = -self.search(&child, -beta, -alpha)?;
            if score > best || best_move.is_none() {
                best = score;
                best_move = Some(mv);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                let killers = &mut self.killers[to_place.min(MAX_TO_PLACE)];
                if mv.removal.is_none() && killers[0] != Some(mv) {
                    *killers = [Some(mv), killers[0]];
                }
                break;
            }
        }
        Ok((best, best_move))
    }

    /// The value of a position whose side to move places the last stone,
    /// up to the first move that reaches `beta`: every move leads to a
    /// leaf, and the databases are asked for a few leaves at once, so
    /// that their reads overlap.
    fn last_placement(
        &mut self,
        pos: &Position,
        moves: &MoveList,
        beta: i8,
    ) -> Result<i8, Unsolved> {
        let mut best = -1;
        for chunk in moves.chunks(LEAF_BATCH) {
            let mut children: ArrayVec<Position, LEAF_BATCH> = ArrayVec::new();
            for &mv in chunk {
                let mut child = *pos;
                child.play_unchecked(mv);
                self.nodes += 1;
                if child.side_to_move_is_short() {
                    return Ok(1);
                }
                if let Some(end) = full_board_end(&child) {
                    best = best.max(-end);
                    continue;
                }
                // The rule is weighed with the child's value (see `search`).
                children.push(child);
            }
            // Every leaf is read, so that those not in memory are asked for
            // together.
            let probe = self.db.reading(self.reads);
            let (mut missing, mut unknown) = (false, false);
            for child in &children {
                match probe.value_under_rule(child) {
                    Ok(Some(value)) => best = best.max(-value.outcome.signum()),
                    Ok(None) => unknown = true,
                    Err(NotInMemory) => missing = true,
                }
            }
            if missing {
                return Err(Unsolved::NotInMemory);
            }
            self.look_at_clock()?;
            self.look_at_limits()?;
            if unknown {
                return Err(Unsolved::Unknown);
            }
            if best >= beta {
                break;
            }
        }
        Ok(best)
    }

    /// Gives up when the node budget is spent or the solver was stopped.
    fn look_at_limits(&self) -> Result<(), Unsolved> {
        let spent = self.node_budget.is_some_and(|budget| self.nodes > budget);
        let stopped = self
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed));
        if spent || stopped {
            return Err(Unsolved::OutOfTime);
        }
        Ok(())
    }

    /// Gives up when the deadline has passed.
    fn look_at_clock(&self) -> Result<(), Unsolved> {
        if self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            return Err(Unsolved::OutOfTime);
        }
        Ok(())
    }

    /// Puts `moves` in the order to try them: the table's move, removals
    /// (they decide most lines), placements that block a mill of the
    /// opponent's, the moves that last cut off with as many stones left,
    /// then placements by the threats they make. (On positions of real
    /// games the blocks save most; the room around a point as a last key
    /// made it slower.)
    fn order(&self, pos: &Position, moves: &mut MoveList, table_move: Option<Move>) {
        let us = pos.side_to_move();
        let tables = pos.rules().variant.tables();
        let own = pos.stones(us);
        let empty = pos.empty();
        let their_points = tables.closing_points(pos.stones(us.opponent()), empty);
        let killers = self.killers[(pos.stones_to_place() as usize).min(MAX_TO_PLACE)];
        let rank = |mv: Move| -> i32 {
            if Some(mv) == table_move {
                return 1 << 30;
            }
            if mv.removal.is_some() {
                return 1 << 24;
            }
            let mut rank = 0;
            if their_points.contains(mv.to) {
                rank += 1 << 22;
            }
            if killers[0] == Some(mv) {
                rank += 1 << 21;
            } else if killers[1] == Some(mv) {
                rank += 1 << 20;
            }
            let threats = tables
                .mills_through(mv.to)
                .iter()
                .filter(|&&mill| (mill & own).len() == 1 && (mill & empty).len() == 2)
                .count() as i32;
            rank + threats
        };
        let mut ranked: ArrayVec<(i32, Move), MAX_MOVES> =
            moves.iter().map(|&mv| (rank(mv), mv)).collect();
        ranked.sort_by_key(|&(rank, _)| Reverse(rank));
        moves.clear();
        moves.extend(ranked.into_iter().map(|(_, mv)| mv));
    }
}

/// The most stones left to place, both sides together, at which
/// [`placing_moves`] solves a position the placing phase's databases hold
/// again with the N-move rule (they leave it out): a matter of seconds at
/// most.
pub const SOLVED_WITH_RULE: u32 = 10;

/// A placing position and its legal moves as the databases know them,
/// with and without the N-move rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacingMoves {
    /// The position's outcome for the side to move, the draw rules left
    /// out.
    pub outcome: Option<DbOutcome>,
    /// Its outcome under the position's N-move rule, where it is known:
    /// solved with the rule, or as [`Database::outcome_with_rule`] gives
    /// it.
    pub with_rule: Option<DbOutcome>,
    /// Every legal move, in the order of the legal moves: its `with_rule`
    /// solved with the rule where the position was, else as
    /// [`Database::moves`] gives it.
    pub moves: Vec<MoveValue>,
    /// The nodes of the end of placing solved to the moving phase's
    /// databases; `None` where the placing phase's held the position.
    pub solved_nodes: Option<u64>,
    /// Whether the position was solved with the N-move rule.
    pub solved_with_rule: bool,
}

/// What the databases say of the placing position `pos` and its moves: the
/// placing phase's values where they hold it, solved again with the N-move
/// rule from [`SOLVED_WITH_RULE`] stones left to place on; else the end of
/// placing solved to the moving phase's databases, with and without the
/// rule.
///
/// # Errors
///
/// [`Unsolved::Unknown`] if `pos` is not a placing position, or a
/// position it can reach is not in the databases.
pub fn placing_moves(db: &Database, pos: &Position) -> Result<PlacingMoves, Unsolved> {
    if !pos.in_placing_phase() {
        return Err(Unsolved::Unknown);
    }
    let solve = |pos: &Position| {
        let mut solver = PlacingSolver::new(db, None, None);
        let solved = solver.solve_moves(pos, &pos.legal_moves())?;
        Ok::<_, Unsolved>((solved, solver.nodes()))
    };
    let best = |solved: &[(Move, DbOutcome)]| solved.iter().map(|&(_, outcome)| outcome).max();
    let with_rule = pos.rules().draw_plies().is_some();
    if let Some(outcome) = db.outcome(pos) {
        let ruled = (with_rule && pos.stones_to_place() <= SOLVED_WITH_RULE)
            .then(|| solve(pos))
            .transpose()?;
        let ruled = ruled.map(|(solved, _)| solved);
        let moves = db
            .moves(pos)
            .into_iter()
            .map(|known| MoveValue {
                with_rule: match &ruled {
                    Some(solved) => outcome_of(solved, known.mv),
                    None => known.with_rule,
                },
                ..known
            })
            .collect();
        return Ok(PlacingMoves {
            outcome: Some(outcome),
            with_rule: match &ruled {
                Some(solved) => best(solved),
                None => db.outcome_with_rule(pos),
            },
            moves,
            solved_nodes: None,
            solved_with_rule: ruled.is_some(),
        });
    }
    let (solved, nodes) = solve(pos)?;
    let free = if with_rule {
        Some(solve(&pos.with_n_move_rule(0))?.0)
    } else {
        None
    };
    // Without the rule, the solved outcomes are those without it.
    let (free, ruled) = match free {
        Some(free) => (free, Some(solved)),
        None => (solved, None),
    };
    let moves = free
        .iter()
        .map(|&(mv, outcome)| MoveValue {
            mv,
            outcome: Some(outcome),
            value: None,
            with_rule: match &ruled {
                Some(solved) => outcome_of(solved, mv),
                None => Some(outcome),
            },
        })
        .collect();
    Ok(PlacingMoves {
        outcome: best(&free),
        with_rule: best(ruled.as_deref().unwrap_or(&free)),
        moves,
        solved_nodes: Some(nodes),
        solved_with_rule: ruled.is_some(),
    })
}

/// The outcome solved for `mv`.
fn outcome_of(solved: &[(Move, DbOutcome)], mv: Move) -> Option<DbOutcome> {
    solved
        .iter()
        .find(|&&(m, _)| m == mv)
        .map(|&(_, outcome)| outcome)
}

/// The key of `pos` in the table. The counter decides leaves near the
/// N-move rule, so it is part of the key.
fn table_key(pos: &Position) -> u64 {
    pos.key() ^ u64::from(pos.plies_since_removal()).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The outcome for the side to move (-1, 0, 1) of a board filled by the
/// last placement, which ends the game by the rules and which no database
/// holds; `None` if the board has an empty point.
fn full_board_end(pos: &Position) -> Option<i8> {
    if !pos.empty().is_empty() {
        return None;
    }
    pos.terminal_outcome()
        .map(|end| DbOutcome::of_end(end, pos.side_to_move()).signum())
}

/// Whether the databases `db` can answer the leaves of `pos`: they hold
/// files of its rules.
fn held_by_databases(db: &Database, pos: &Position) -> Result<(), Unsolved> {
    if db.holds(pos.rules()) {
        Ok(())
    } else {
        Err(Unsolved::Unknown)
    }
}
