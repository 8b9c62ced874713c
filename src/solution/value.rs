//! The values of the solved game: win, draw or loss for the side to move,
//! and in the moving phase the plies to the next removal.

use crate::board::Position;

/// Win, draw or loss for the side to move, ordered as that side prefers
/// them (a loss is the least) and negated for the other side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DbOutcome {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl std::ops::Neg for DbOutcome {
    type Output = DbOutcome;

    fn neg(self) -> DbOutcome {
        match self {
            DbOutcome::Loss => DbOutcome::Win,
            DbOutcome::Draw => DbOutcome::Draw,
            DbOutcome::Win => DbOutcome::Loss,
        }
    }
}

impl DbOutcome {
    /// The outcome in a word: `loss`, `draw` or `win`.
    pub const fn name(self) -> &'static str {
        match self {
            DbOutcome::Loss => "loss",
            DbOutcome::Draw => "draw",
            DbOutcome::Win => "win",
        }
    }
}

impl std::fmt::Display for DbOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A stored value: the outcome and the plies to the next removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DbValue {
    /// The outcome with best play.
    pub outcome: DbOutcome,
    /// Plies to the next removal on the best path (0 for a draw, and for a
    /// side blocked now).
    pub distance: u16,
}

/// The largest distance the encoding holds.
const MAX_DISTANCE: u16 = (1 << 14) - 1;

impl DbValue {
    /// A win at `distance`.
    pub const fn win(distance: u16) -> DbValue {
        DbValue {
            outcome: DbOutcome::Win,
            distance,
        }
    }

    /// A loss at `distance`.
    pub const fn loss(distance: u16) -> DbValue {
        DbValue {
            outcome: DbOutcome::Loss,
            distance,
        }
    }

    /// The outcome at `pos` (the position whose value this is, or the one
    /// a move is played from, the distance counted from there) once the
    /// N-move rule is applied: a win or loss whose next removal comes
    /// after the rule has drawn the game is a draw.
    pub fn outcome_at(self, pos: &Position) -> DbOutcome {
        let in_time = pos
            .rules()
            .draw_plies()
            .is_none_or(|limit| pos.plies_since_removal() + u32::from(self.distance) <= limit);
        if in_time {
            self.outcome
        } else {
            DbOutcome::Draw
        }
    }

    /// A draw.
    pub const fn draw() -> DbValue {
        DbValue {
            outcome: DbOutcome::Draw,
            distance: 0,
        }
    }

    /// Two bits of outcome (1 win, 2 loss, 3 draw; 0 is no position) over
    /// fourteen of distance.
    pub fn encode(self) -> u16 {
        let outcome = match self.outcome {
            DbOutcome::Win => 1,
            DbOutcome::Loss => 2,
            DbOutcome::Draw => 3,
        };
        outcome << 14 | self.distance.min(MAX_DISTANCE)
    }

    /// The value of an encoded entry, `None` for an unused one.
    pub fn decode(entry: u16) -> Option<DbValue> {
        let outcome = match entry >> 14 {
            1 => DbOutcome::Win,
            2 => DbOutcome::Loss,
            3 => DbOutcome::Draw,
            _ => return None,
        };
        Some(DbValue {
            outcome,
            distance: entry & MAX_DISTANCE,
        })
    }
}
