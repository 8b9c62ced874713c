//! Scores: the search's one integer scale (evaluations, endgame database
//! results, proven mates), how the table stores them, and the [`Score`]
//! the protocol reports.

use crate::board::Position;
use crate::solution::DbOutcome;

/// The score of a win on the spot; a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// The deepest ply the search reaches.
pub(crate) const MAX_PLY: usize = 128;
/// Scores at least this far from zero are proven mates.
pub(crate) const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Above any score.
pub(crate) const INFINITY: i32 = MATE + 1;
/// The score of a database win whose next removal is on the spot; a win
/// with its removal `n` plies from the root scores `DB_WIN - n`. Above any
/// evaluation, below every proven mate.
pub const DB_WIN: i32 = 20_000;
/// Scores at least this far from zero (and below the proven mates) are
/// database wins and losses: their distances stay far below 4096 plies,
/// and evaluations far below this.
pub const DB_WIN_BOUND: i32 = DB_WIN - 4096;

/// The score of a database `outcome` for the side to move at the root,
/// its next removal `plies` from the root.
pub(crate) fn db_score(outcome: DbOutcome, plies: i32) -> i32 {
    match outcome {
        DbOutcome::Win => DB_WIN - plies,
        DbOutcome::Loss => -(DB_WIN - plies),
        DbOutcome::Draw => 0,
    }
}

/// A score as the protocol reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-stones from the side to move's view.
    Cp(i32),
    /// An endgame database result: the side to move wins (or loses) with
    /// the next removal this many plies away.
    Db {
        /// Whether the side to move wins (else it loses).
        win: bool,
        /// Plies to the next removal.
        plies: i32,
    },
    /// The side to move wins in this many of its own turns (negative: loses).
    Mate(i32),
}

/// A win/draw/loss model of scores: a side wins with chance `1 / (1 +
/// exp((midpoint - score) / scale))` and loses with the same curve of the
/// negated score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    /// The score at which a side wins half its games, in centi-stones.
    pub midpoint: f64,
    /// How fast the chance grows with the score, in centi-stones.
    pub scale: f64,
}

impl WdlModel {
    /// The model of [`Score::wdl`], fitted by maximum likelihood to the
    /// scored moves of this evaluation in self-play (`morris-tune wdl`; the
    /// fit is in docs/STRENGTH.md).
    pub const ENGINE: WdlModel = WdlModel {
        midpoint: 334.0,
        scale: 117.0,
    };

    /// The chances of a win, a draw and a loss at `score`.
    pub fn chances(self, score: f64) -> [f64; 3] {
        let chance = |x: f64| 1.0 / (1.0 + ((self.midpoint - x) / self.scale).exp());
        let (win, loss) = (chance(score), chance(-score));
        [win, (1.0 - win - loss).max(0.0), loss]
    }
}

impl Score {
    /// Win, draw and loss chances in thousandths for the side to move.
    /// Exact for mates and endgame database results; for evaluations a
    /// logistic model: the chance to win grows with the score as a side
    /// wins half its games at the midpoint of [`WdlModel::ENGINE`], and likewise to lose.
    pub fn wdl(self) -> [u32; 3] {
        match self {
            Score::Mate(n) if n > 0 => [1000, 0, 0],
            Score::Db { win: true, .. } => [1000, 0, 0],
            Score::Mate(_) | Score::Db { win: false, .. } => [0, 0, 1000],
            Score::Cp(cp) => {
                let [win, _, loss] = WdlModel::ENGINE.chances(f64::from(cp));
                let [win, loss] = [win, loss].map(|p| (1000.0 * p).round() as u32);
                [win, 1000 - win - loss, loss]
            }
        }
    }

    /// The reported form of a search score.
    pub fn from_search(score: i32) -> Score {
        if score >= MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score <= -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else if score.abs() >= DB_WIN_BOUND {
            Score::Db {
                win: score > 0,
                plies: DB_WIN - score.abs(),
            }
        } else {
            Score::Cp(score)
        }
    }
}

/// A score as the table keeps it: a win or loss counted from the stored
/// position rather than the root, so that it can be used at any ply.
pub(crate) fn score_to_tt(score: i32, ply: usize) -> i16 {
    let score = if score >= DB_WIN_BOUND {
        score + ply as i32
    } else if score <= -DB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    };
    score.clamp(-INFINITY, INFINITY) as i16
}

/// A stored score counted from the root again, the position being `ply`
/// plies from it.
pub(crate) fn score_from_tt(score: i16, ply: usize) -> i32 {
    let score = i32::from(score);
    if score >= DB_WIN_BOUND {
        score - ply as i32
    } else if score <= -DB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Whether a stored score holds at `pos` under the N-move rule. The table
/// is keyed without the counter, so a database win or loss stored where
/// its removal came in time may be found where the rule would draw first.
pub(crate) fn stored_score_in_time(score: i16, pos: &Position) -> bool {
    let score = i32::from(score).abs();
    if !(DB_WIN_BOUND..MATE_BOUND).contains(&score) {
        return true;
    }
    // Stored from the position: DB_WIN less the plies to the removal.
    let distance = (DB_WIN - score) as u32;
    pos.rules()
        .draw_plies()
        .is_none_or(|limit| pos.plies_since_removal() + distance <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_scores_come_back_from_the_table_at_their_distance() {
        // A win whose removal is 5 plies below a position 3 plies from the
        // root, found again 7 plies from the root: still 5 plies below it.
        let stored = score_to_tt(DB_WIN - 3 - 5, 3);
        assert_eq!(score_from_tt(stored, 7), DB_WIN - 7 - 5);
        let stored = score_to_tt(-(DB_WIN - 3 - 5), 3);
        assert_eq!(score_from_tt(stored, 7), -(DB_WIN - 7 - 5));
        let stored = score_to_tt(MATE - 9, 4);
        assert_eq!(score_from_tt(stored, 2), MATE - 7);
        // Evaluations are kept as they are.
        assert_eq!(score_from_tt(score_to_tt(1500, 3), 9), 1500);
    }

    #[test]
    fn win_draw_loss_chances_add_up_and_follow_the_score() {
        let mut last_win = 0;
        for cp in (-3000..=3000).step_by(50) {
            let [win, draw, loss] = Score::Cp(cp).wdl();
            assert_eq!(win + draw + loss, 1000, "{cp}");
            assert!(win >= last_win, "{cp}");
            last_win = win;
            assert_eq!(Score::Cp(-cp).wdl(), [loss, draw, win]);
        }
        assert_eq!(Score::Cp(0).wdl()[0], Score::Cp(0).wdl()[2]);
        assert_eq!(Score::Mate(3).wdl(), [1000, 0, 0]);
        assert_eq!(Score::Mate(-1).wdl(), [0, 0, 1000]);
        assert_eq!(Score::from_search(DB_WIN - 7).wdl(), [1000, 0, 0]);
        assert_eq!(Score::from_search(-(DB_WIN - 7)).wdl(), [0, 0, 1000]);
    }

    #[test]
    fn search_scores_are_reported_as_evaluations_database_results_or_mates() {
        assert_eq!(Score::from_search(-1500), Score::Cp(-1500));
        assert_eq!(
            Score::from_search(DB_WIN - 7),
            Score::Db {
                win: true,
                plies: 7
            }
        );
        assert_eq!(
            Score::from_search(-(DB_WIN - 12)),
            Score::Db {
                win: false,
                plies: 12
            }
        );
        assert_eq!(Score::from_search(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_search(-(MATE - 4)), Score::Mate(-2));
    }
}
