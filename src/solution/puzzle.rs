//! Puzzles drawn from games by the databases: positions where the side to
//! move has a win or a draw with best play, and exactly one of its moves
//! keeps it; and the line of text a puzzle is kept as, with how deep a
//! search must look to find its move.
//!
//! ```text
//! 3 win a7-b6 30 WB./.W./.B./...W../B../.../... w 0 0 0 10
//! ```
//!
//! The depth, the value the move keeps, the move, the N-move rule (0, none,
//! in the placing phase, whose values leave it out) and the position
//! string; the rules are otherwise the databases' (nine, with flying).

use super::probe::{Database, MoveValue};
use super::value::DbOutcome;
use crate::board::{Game, Move, Position, Rules, Variant};

/// A position where one move alone keeps the value its side to move has
/// with best play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The position, its N-move counter as it stood in the game.
    pub position: Position,
    /// Its value for the side to move under the N-move rule: a win or a
    /// draw.
    pub goal: DbOutcome,
    /// The one move that keeps it.
    pub solution: Move,
}

impl Puzzle {
    /// The puzzle `position` is, if it is one: the databases know the
    /// value under the N-move rule of each of its moves (at least two),
    /// the best is a win or a draw, and exactly one move has it. A
    /// placing position is set without the rule, which the placing
    /// phase's values leave out.
    pub fn at(db: &Database, position: &Position) -> Option<Puzzle> {
        let position = &if position.stones_to_place() > 0 {
            position.with_n_move_rule(0)
        } else {
            *position
        };
        let moves = db.moves(position);
        if moves.len() < 2 {
            return None;
        }
        let goal = MoveValue::best_with_rule(&moves)?;
        if goal == DbOutcome::Loss {
            return None;
        }
        let mut keeping = moves.iter().filter(|known| known.with_rule == Some(goal));
        let solution = keeping.next()?.mv;
        keeping.next().is_none().then_some(Puzzle {
            position: *position,
            goal,
            solution,
        })
    }

    /// The line of text that keeps the puzzle, found by a search `depth`
    /// plies deep.
    pub fn line(&self, depth: u32) -> String {
        format!(
            "{depth} {} {} {} {}",
            self.goal,
            self.solution,
            self.position.rules().n_move_rule,
            self.position.fen()
        )
    }

    /// The puzzle a line of [`Puzzle::line`] keeps, and its depth.
    ///
    /// # Errors
    ///
    /// A field is missing or bad, or the move is not legal in the
    /// position.
    pub fn from_line(line: &str) -> Result<(Puzzle, u32), String> {
        let mut fields = line.trim().splitn(5, ' ');
        let mut field = |name: &str| fields.next().ok_or(format!("no {name}"));
        let depth = field("depth")?;
        let depth = depth
            .parse()
            .map_err(|_| format!("'{depth}' is no depth"))?;
        let goal = match field("value")? {
            "win" => DbOutcome::Win,
            "draw" => DbOutcome::Draw,
            other => return Err(format!("'{other}' is no value to keep: win or draw")),
        };
        let solution = field("move")?;
        let solution: Move = solution
            .parse()
            .map_err(|_| format!("'{solution}' is no move"))?;
        let n_move_rule = field("N-move rule")?;
        let n_move_rule = n_move_rule
            .parse()
            .ok()
            .filter(|&n| n <= Rules::MAX_N_MOVE_RULE)
            .ok_or(format!("'{n_move_rule}' is no N-move rule"))?;
        let rules = Rules {
            n_move_rule,
            ..Rules::new(Variant::Nine)
        };
        let position = Position::from_fen(field("position")?, rules).map_err(|e| format!("{e}"))?;
        if !position.legal_moves().contains(&solution) {
            return Err(format!("{solution} is not legal in the position"));
        }
        let puzzle = Puzzle {
            position,
            goal,
            solution,
        };
        Ok((puzzle, depth))
    }
}

/// The puzzles of `game`: each position before a move of it that is one
/// (see [`Puzzle::at`]).
pub fn find_puzzles(db: &Database, game: &Game) -> Vec<Puzzle> {
    let mut position = *game.start();
    let mut puzzles = Vec::new();
    for &mv in game.moves() {
        puzzles.extend(Puzzle::at(db, &position));
        position.play_unchecked(mv);
    }
    puzzles
}
