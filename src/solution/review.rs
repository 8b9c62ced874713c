//! A game judged by the databases: the value of each position for the side
//! to move, before and after its move, and the moves that gave value away;
//! as the databases hold the values (the draw rules left out), and with
//! the N-move rule applied where they know the plies to the next removal.

use super::probe::Database;
use super::value::DbOutcome;
use crate::board::{Color, Game, Move};

/// The outcome for a move's side before and after it (`None` where the
/// databases do not know the position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// Before the move.
    pub before: Option<DbOutcome>,
    /// After the move.
    pub after: Option<DbOutcome>,
}

impl Judgement {
    /// Whether the move changed the game's value: a win let go, or a draw
    /// turned into a loss.
    pub fn changes_value(&self) -> bool {
        matches!((self.before, self.after), (Some(before), Some(after)) if after < before)
    }
}

/// One move of a game as the databases see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JudgedMove {
    /// The move's place in the game, from 1.
    pub ply: usize,
    /// The side that made it.
    pub mover: Color,
    /// The move.
    pub mv: Move,
    /// By the values as stored, the draw rules left out: comparable with a
    /// published solution.
    pub stored: Judgement,
    /// With the game's N-move rule applied to the values of the moving
    /// phase's moves: a win whose next removal comes after the rule has
    /// drawn is a draw, and a position is worth the best of its moves so
    /// judged; a placement only where the rule cannot change its value
    /// (see [`MoveValue::with_rule`](super::MoveValue::with_rule)).
    pub with_rule: Judgement,
}

/// Every move of `game`, judged, in the order played.
pub fn judge_game(db: &Database, game: &Game) -> Vec<JudgedMove> {
    let mut pos = *game.start();
    (1..)
        .zip(game.moves())
        .map(|(ply, &mv)| {
            let before = db.outcome(&pos);
            let played = db.move_value(&pos, mv);
            let before_with_rule = db.outcome_with_rule(&pos);
            let stored = Judgement {
                before,
                after: played.outcome,
            };
            let with_rule = Judgement {
                before: before_with_rule,
                after: played.with_rule,
            };
            let judged = JudgedMove {
                ply,
                mover: pos.side_to_move(),
                mv,
                stored,
                with_rule,
            };
            pos.play_unchecked(mv);
            judged
        })
        .collect()
}
