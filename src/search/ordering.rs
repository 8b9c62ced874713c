//! Move ordering: which move the search tries first. The table's move,
//! removals, blocks of the opponent's mills, killers, then the history of
//! quiet moves; what cut off before is rewarded.

use arrayvec::ArrayVec;

use crate::board::{Color, MAX_MOVES, Move, MoveList, Position};
use crate::search::score::MAX_PLY;

/// What a search thread has learnt of good quiet moves.
pub(crate) struct MoveOrdering {
    /// Two quiet moves per ply that cut off there.
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// Quiet-move success by colour, origin (24 for placements) and
    /// destination: a move good for one side says nothing of the other's.
    history: Box<[[[i32; 24]; 25]; 2]>,
}

impl MoveOrdering {
    /// Nothing learnt yet.
    pub(crate) fn new() -> MoveOrdering {
        MoveOrdering {
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[[0; 24]; 25]; 2]),
        }
    }

    /// Ordering scores: the table's move, then removals (the most harmful
    /// first), then moves onto a point where the opponent would close a
    /// mill, then killers, then by history.
    pub(crate) fn score_moves(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: Option<Move>,
        ply: usize,
    ) -> ArrayVec<i32, MAX_MOVES> {
        let tables = pos.rules().variant.tables();
        let us = pos.side_to_move().index();
        let them = pos.side_to_move().opponent();
        let theirs = pos.stones(them);
        let empty = pos.empty();
        let their_threats = tables.closing_points(theirs, empty);
        let killers = self.killers[ply];
        moves
            .iter()
            .map(|&mv| {
                if Some(mv) == tt_move {
                    return 1 << 30;
                }
                if let Some(removed) = mv.removal {
                    // A stone that was about to close a mill, or that is
                    // free to move, is worth more to take.
                    let in_threat = tables
                        .mills_through(removed)
                        .iter()
                        .filter(|&&mill| (mill & theirs).len() == 2 && !(mill & empty).is_empty())
                        .count() as i32;
                    let mobility = (tables.neighbors(removed) & empty).len() as i32;
                    return (1 << 24) + 64 * in_threat + mobility;
                }
                let mut score = self.history[us][history_from(mv)][mv.to.index()];
                if their_threats.contains(mv.to) {
                    score += 1 << 22;
                } else if killers[0] == Some(mv) {
                    score += 1 << 21;
                } else if killers[1] == Some(mv) {
                    score += (1 << 21) - 1;
                }
                score
            })
            .collect()
    }

    /// Learns from a quiet move that cut off at `ply`: it becomes a
    /// killer there, and gains history while the quiet moves tried before
    /// it lose some.
    pub(crate) fn reward_quiet(
        &mut self,
        side: Color,
        mv: Move,
        tried: &[Move],
        depth: i32,
        ply: usize,
    ) {
        if self.killers[ply][0] != Some(mv) {
            self.killers[ply] = [Some(mv), self.killers[ply][0]];
        }
        let bonus = (depth * depth).min(400);
        let history = &mut self.history[side.index()];
        let mut adjust = |mv: Move, delta: i32| {
            let entry = &mut history[history_from(mv)][mv.to.index()];
            // Gravity keeps the values inside ±16384.
            *entry += delta - *entry * delta.abs() / 16_384;
        };
        adjust(mv, bonus);
        for &other in tried {
            adjust(other, -bonus);
        }
    }
}

#[inline]
fn history_from(mv: Move) -> usize {
    mv.from.map_or(24, |sq| sq.index())
}

/// Moves the best-scored move not yet tried to `index` and returns it.
#[inline]
pub(crate) fn pick_next(
    moves: &mut MoveList,
    scores: &mut ArrayVec<i32, MAX_MOVES>,
    index: usize,
) -> Move {
    let mut best = index;
    for i in index + 1..moves.len() {
        if scores[i] > scores[best] {
            best = i;
        }
    }
    scores.swap(index, best);
    moves.swap(index, best);
    moves[index]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Rules;

    #[test]
    fn history_is_kept_per_colour() {
        let white =
            Position::from_fen("W../.../.../....../.../.../..B w 8 8 0 2", Rules::default())
                .unwrap();
        let black =
            Position::from_fen("W../.../.../....../.../.../..B b 7 8 0 2", Rules::default())
                .unwrap();
        let mut ordering = MoveOrdering::new();
        let good: Move = "d6".parse().unwrap();
        let before = ordering.score_moves(&black, &[good], None, 5)[0];
        ordering.reward_quiet(Color::White, good, &[], 8, 5);
        assert!(ordering.score_moves(&white, &[good], None, 6)[0] > before);
        assert_eq!(ordering.score_moves(&black, &[good], None, 6)[0], before);
    }
}
