//! The end of placing solved exactly: a win/draw/loss search over the last
//! placements whose leaves, the positions with nothing left in hand, are
//! answered by the databases.

use std::collections::HashMap;
use std::time::Instant;

use super::probe::EndgameDb;
use super::{DbOutcome, DbValue};
use crate::moves::Move;
use crate::position::Position;

/// Nodes between looks at the clock.
const CLOCK_EVERY: u64 = 4096;

/// A position's outcome bounds for the side to move, as -1 (loss), 0
/// (draw) and 1 (win).
#[derive(Clone, Copy)]
struct Bounds {
    lower: i8,
    upper: i8,
}

/// Why the end of placing could not be solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsolved {
    /// A leaf's sector is not loaded, or the rules are not those of the
    /// databases.
    Unknown,
    /// The deadline or the node budget was reached first.
    OutOfTime,
}

/// The outcome of a database value for the side to move once the N-move
/// rule is applied: a win or loss whose next removal comes after the rule
/// has drawn the game (`plies_since_removal` + distance past the limit) is
/// a draw.
pub fn outcome_under_draw_rule(pos: &Position, value: DbValue) -> DbOutcome {
    let in_time = pos
        .rules()
        .draw_plies()
        .is_none_or(|limit| pos.plies_since_removal() + u32::from(value.distance) <= limit);
    if in_time {
        value.outcome
    } else {
        DbOutcome::Draw
    }
}

/// Solves positions of the placing phase exactly, to the databases'
/// leaves.
pub struct PlacingSolver<'a> {
    db: &'a EndgameDb,
    table: HashMap<u64, Bounds>,
    nodes: u64,
    deadline: Option<Instant>,
    node_budget: Option<u64>,
}

impl<'a> PlacingSolver<'a> {
    /// A solver over `db` that gives up at `deadline` or after
    /// `node_budget` nodes, if given.
    pub fn new(
        db: &'a EndgameDb,
        deadline: Option<Instant>,
        node_budget: Option<u64>,
    ) -> PlacingSolver<'a> {
        PlacingSolver {
            db,
            table: HashMap::new(),
            nodes: 0,
            deadline,
            node_budget,
        }
    }

    /// The nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact outcome of `pos` for the side to move, with the N-move
    /// rule (repetitions cannot happen while stones are placed).
    ///
    /// # Errors
    ///
    /// [`Unsolved`] if a leaf is not in the databases or time ran out.
    pub fn solve(&mut self, pos: &Position) -> Result<DbOutcome, Unsolved> {
        Ok(match self.search(pos, -1, 1)? {
            1 => DbOutcome::Win,
            0 => DbOutcome::Draw,
            _ => DbOutcome::Loss,
        })
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
        moves
            .iter()
            .map(|&mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                let theirs = self.solve(&child)?;
                let ours = match theirs {
                    DbOutcome::Win => DbOutcome::Loss,
                    DbOutcome::Loss => DbOutcome::Win,
                    DbOutcome::Draw => DbOutcome::Draw,
                };
                Ok((mv, ours))
            })
            .collect()
    }

    /// Negamax over -1, 0, 1 with alpha-beta and a table of bounds.
    fn search(&mut self, pos: &Position, mut alpha: i8, beta: i8) -> Result<i8, Unsolved> {
        self.nodes += 1;
        if self.node_budget.is_some_and(|budget| self.nodes > budget)
            || (self.nodes % CLOCK_EVERY == 0
                && self
                    .deadline
                    .is_some_and(|deadline| Instant::now() >= deadline))
        {
            return Err(Unsolved::OutOfTime);
        }
        if pos.side_to_move_is_short() {
            return Ok(-1);
        }
        if pos.n_move_rule_reached() {
            return Ok(0);
        }
        let us = pos.side_to_move();
        if pos.in_hand(us) == 0 && pos.in_hand(us.opponent()) == 0 {
            let value = self.db.probe(pos).ok_or(Unsolved::Unknown)?;
            return Ok(match outcome_under_draw_rule(pos, value) {
                DbOutcome::Win => 1,
                DbOutcome::Draw => 0,
                DbOutcome::Loss => -1,
            });
        }
        // The counter decides leaves near the N-move rule, so it is part
        // of the key.
        let key =
            pos.key() ^ u64::from(pos.plies_since_removal()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let original_alpha = alpha;
        if let Some(bounds) = self.table.get(&key) {
            if bounds.lower >= beta || bounds.lower == bounds.upper {
                return Ok(bounds.lower);
            }
            if bounds.upper <= alpha {
                return Ok(bounds.upper);
            }
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(-1);
        }
        // Removals first: they decide most lines.
        moves.sort_by_key(|mv| mv.removal.is_none());
        let mut best = -1;
        for mv in moves {
            let mut child = *pos;
            child.play_unchecked(mv);
            let score = -self.search(&child, -beta, -alpha)?;
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bounds = if best <= original_alpha {
            Bounds {
                lower: -1,
                upper: best,
            }
        } else if best >= beta {
            Bounds {
                lower: best,
                upper: 1,
            }
        } else {
            Bounds {
                lower: best,
                upper: best,
            }
        };
        self.table.insert(key, bounds);
        Ok(best)
    }
}
