//! The values of the solved game: win, draw or loss for the side to move,
//! and in the moving phase the plies to the next removal.

use crate::board::{Color, Outcome, Position};

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
    /// The outcome for `side` of a game that has ended in `end`.
    pub fn of_end(end: Outcome, side: Color) -> DbOutcome {
        match end.winner() {
            Some(winner) if winner == side => DbOutcome::Win,
            Some(_) => DbOutcome::Loss,
            None => DbOutcome::Draw,
        }
    }

    /// 1 for a win, 0 for a draw, -1 for a loss: the outcome as a search
    /// counts it, negated with the side to move.
    pub const fn signum(self) -> i8 {
        match self {
            DbOutcome::Loss => -1,
            DbOutcome::Draw => 0,
            DbOutcome::Win => 1,
        }
    }

    /// The outcome a search's score stands for: a win above 0, a loss
    /// below.
    pub const fn from_signum(score: i8) -> DbOutcome {
        match score {
            1.. => DbOutcome::Win,
            0 => DbOutcome::Draw,
            ..0 => DbOutcome::Loss,
        }
    }

    /// The points the side to move scores: 1 for a win, 1/2 for a draw,
    /// 0 for a loss.
    pub fn points(self) -> f64 {
        f64::from(self.signum() + 1) / 2.0
    }

    /// Where the outcome is counted in counts kept as wins, draws and
    /// losses, as the files' headers keep them.
    pub const fn slot(self) -> usize {
        match self {
            DbOutcome::Win => 0,
            DbOutcome::Draw => 1,
            DbOutcome::Loss => 2,
        }
    }

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
///
/// Values compare as the side to move prefers them: wins by the fewest
/// plies to the next removal, then draws, then losses by the most (the
/// longest resistance), so that the best move is the one of the greatest
/// value.
#[derive(Clone, Copy, Debug)]
pub struct DbValue {
    /// The outcome with best play.
    pub outcome: DbOutcome,
    /// Plies to the next removal on the best path (0 for a side blocked
    /// now; a draw's is 0 as stored, and is not compared).
    pub distance: u16,
}

impl DbValue {
    /// The value as the side to move ranks it, to compare.
    fn preference(self) -> (DbOutcome, i32) {
        let distance = i32::from(self.distance);
        match self.outcome {
            DbOutcome::Win => (DbOutcome::Win, -distance),
            DbOutcome::Draw => (DbOutcome::Draw, 0),
            DbOutcome::Loss => (DbOutcome::Loss, distance),
        }
    }
}

impl Ord for DbValue {
    fn cmp(&self, other: &DbValue) -> std::cmp::Ordering {
        self.preference().cmp(&other.preference())
    }
}

impl PartialOrd for DbValue {
    fn partial_cmp(&self, other: &DbValue) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

// Equal is equally good: a draw is a draw whatever distance it was given.
impl PartialEq for DbValue {
    fn eq(&self, other: &DbValue) -> bool {
        self.preference() == other.preference()
    }
}

impl Eq for DbValue {}

impl std::hash::Hash for DbValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.preference().hash(state);
    }
}

/// The largest distance the encoding holds.
pub(crate) const MAX_DISTANCE: u16 = (1 << 14) - 1;

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

#[cfg(test)]
mod tests {
    use super::*;

    const OUTCOMES: [DbOutcome; 3] = [DbOutcome::Loss, DbOutcome::Draw, DbOutcome::Win];

    #[test]
    fn an_outcome_counts_negates_and_scores_alike_for_both_sides() {
        for outcome in OUTCOMES {
            assert_eq!(DbOutcome::from_signum(outcome.signum()), outcome);
            assert_eq!((-outcome).signum(), -outcome.signum());
            assert_eq!(outcome.points() + (-outcome).points(), 1.0);
        }
        assert_eq!(DbOutcome::from_signum(i8::MAX), DbOutcome::Win);
        assert_eq!(DbOutcome::from_signum(i8::MIN), DbOutcome::Loss);
        let mut slots = OUTCOMES.map(DbOutcome::slot);
        slots.sort_unstable();
        assert_eq!(slots, [0, 1, 2]);
    }

    #[test]
    fn values_rank_as_the_side_to_move_prefers_them() {
        let best_first = [
            DbValue::win(1),
            DbValue::win(7),
            DbValue::draw(),
            DbValue::loss(30),
            DbValue::loss(2),
            DbValue::loss(0),
        ];
        for pair in best_first.windows(2) {
            assert!(pair[0] > pair[1], "{:?} before {:?}", pair[0], pair[1]);
            assert!(pair[0].outcome >= pair[1].outcome);
        }
        let far_draw = DbValue {
            outcome: DbOutcome::Draw,
            distance: 9,
        };
        assert_eq!(far_draw, DbValue::draw());
        assert_eq!(far_draw.cmp(&DbValue::draw()), std::cmp::Ordering::Equal);
        assert_ne!(DbValue::win(3), DbValue::win(4));
    }
}
