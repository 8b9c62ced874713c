//! A game judged by the databases: the value of each position for the side
//! to move, before and after its move, and the moves that gave value away.
//! Like the databases, the judgement leaves the draw rules out.

use super::{DbOutcome, EndgameDb};
use crate::board::{Color, Game, Move};

/// One move of a game as the databases see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JudgedMove {
    /// The move's place in the game, from 1.
    pub ply: usize,
    /// The side that made it.
    pub mover: Color,
    /// The move.
    pub mv: Move,
    /// The outcome for the mover before the move (`None` where the
    /// databases do not know the position).
    pub before: Option<DbOutcome>,
    /// The outcome for the mover after the move.
    pub after: Option<DbOutcome>,
}

impl JudgedMove {
    /// Whether the move changed the game's value: a win let go, or a draw
    /// turned into a loss.
    pub fn changes_value(&self) -> bool {
        matches!((self.before, self.after), (Some(before), Some(after)) if after < before)
    }
}

/// Every move of `game`, judged, in the order played.
pub fn judge_game(db: &EndgameDb, game: &Game) -> Vec<JudgedMove> {
    let mut pos = *game.start();
    (1..)
        .zip(game.moves())
        .map(|(ply, &mv)| {
            let judged = JudgedMove {
                ply,
                mover: pos.side_to_move(),
                mv,
                before: db.outcome(&pos),
                after: db.outcome_after(&pos, mv),
            };
            pos.play_unchecked(mv);
            judged
        })
        .collect()
}
