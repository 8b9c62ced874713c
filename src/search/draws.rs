//! Draws played to win: the root moves that keep a draw are searched with
//! a bonus for the ways they leave the opponent to go wrong, so that a
//! fallible opponent is given the most chances to lose what the databases
//! call a draw, where the search finds them as good.

use crate::board::{Move, Position};
use crate::search::eval::STONE;
use crate::solution::{Database, DbOutcome};

/// What a drawing root move is worth more, in centi-stones, were every
/// reply of the opponent to lose: the weight of the share that does.
const PITFALLS_WEIGHT: i32 = STONE;

/// How hard a position is to hold for the side to move: of its legal
/// moves, how many lose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pitfalls {
    /// The moves that lose.
    pub(crate) losing: u32,
    /// The legal moves.
    pub(crate) moves: u32,
}

impl Pitfalls {
    /// The pitfalls of `pos` by the values of `db`, which must hold every
    /// position its moves lead to: in the moving phase, the moves that
    /// lose under the N-move rule; in the placing phase, whose values have
    /// no distance to weigh the rule with, the moves whose stored outcome
    /// is a loss.
    pub(crate) fn of(db: &Database, pos: &Position) -> Pitfalls {
        let moves = pos.legal_moves();
        let outcome = |mv: Move| {
            if pos.in_placing_phase() {
                db.move_outcome(pos, mv)
            } else {
                db.move_value(pos, mv).with_rule
            }
        };
        let losing = moves
            .iter()
            .filter(|&&mv| outcome(mv) == Some(DbOutcome::Loss))
            .count();
        Pitfalls {
            losing: losing as u32,
            moves: moves.len() as u32,
        }
    }

    /// What a root move that leaves the opponent these pitfalls adds to
    /// its score: the share of the replies that lose, weighed.
    pub(crate) fn bonus(self) -> i32 {
        if self.moves == 0 {
            return 0;
        }
        PITFALLS_WEIGHT * self.losing as i32 / self.moves as i32
    }
}

/// Each of the drawing root moves `moves` of `root` with the pitfalls it
/// leaves the opponent, by the values of `db`, which must hold every
/// position a reply leads to.
pub(crate) fn pitfalls_after(
    db: &Database,
    root: &Position,
    moves: &[Move],
) -> Vec<(Move, Pitfalls)> {
    moves
        .iter()
        .map(|&mv| {
            let mut child = *root;
            child.play_unchecked(mv);
            let pitfalls = if child.terminal_outcome().is_some() {
                Pitfalls::default()
            } else {
                Pitfalls::of(db, &child)
            };
            (mv, pitfalls)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pitfalls(losing: u32, moves: u32) -> Pitfalls {
        Pitfalls { losing, moves }
    }

    #[test]
    fn the_bonus_grows_with_the_share_of_losing_replies_not_their_number() {
        assert!(pitfalls(1, 2).bonus() > pitfalls(9, 20).bonus());
        assert_eq!(pitfalls(2, 10).bonus(), pitfalls(1, 5).bonus());
        assert_eq!(pitfalls(0, 7).bonus(), 0);
        assert_eq!(pitfalls(4, 4).bonus(), PITFALLS_WEIGHT);
    }

    #[test]
    fn a_position_with_no_moves_adds_nothing() {
        assert_eq!(pitfalls(0, 0).bonus(), 0);
    }
}
