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
//! string; the rules are otherwise the databases' (with flying). A variant
//! other than nine is named before the position string, with its
//! full-board rule where it is not the default: `twelve`,
//! `twelve:whiteloses`.

use super::probe::{Database, MoveValue};
use super::value::DbOutcome;
use crate::board::{FullBoard, Game, Move, Position, Rules, Variant};

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
        let position = &if position.in_placing_phase() {
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
        let rules = self.position.rules();
        // Nine's rules go without saying.
        let variant = match (rules.variant, rules.full_board) {
            (Variant::Nine, FullBoard::Draw) => String::new(),
            (variant, FullBoard::Draw) => format!("{variant} "),
            (variant, full_board) => format!("{variant}:{full_board} "),
        };
        format!(
            "{depth} {} {} {} {variant}{}",
            self.goal,
            self.solution,
            rules.n_move_rule,
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
        let mut rest = field("position")?;
        // A variant other than nine is named before the position string,
        // whose board begins with a point, never a letter of a name.
        let mut rules = Rules::new(Variant::Nine);
        if rest.starts_with(|c: char| c.is_ascii_lowercase()) {
            let (named, position) = rest.split_once(' ').ok_or("no position")?;
            let (variant, full_board) = named.split_once(':').unwrap_or((named, "draw"));
            rules = Rules {
                full_board: full_board.parse().map_err(|e| format!("{e}"))?,
                ..Rules::new(variant.parse().map_err(|e| format!("{e}"))?)
            };
            rest = position;
        }
        let rules = Rules {
            n_move_rule,
            ..rules
        };
        let position = Position::from_fen(rest, rules).map_err(|e| format!("{e}"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A puzzle of `fen` under `rules`, solved by `solution`.
    fn puzzle(fen: &str, rules: Rules, solution: &str) -> Puzzle {
        Puzzle {
            position: Position::from_fen(fen, rules).unwrap(),
            goal: DbOutcome::Win,
            solution: solution.parse().unwrap(),
        }
    }

    #[test]
    fn a_line_keeps_the_variant_and_its_full_board_rule() {
        let fen = "W../.B./.../....../.../.../... w 10 10 2 3";
        let twelve = Rules::new(Variant::Twelve);
        let white_loses = Rules {
            full_board: FullBoard::WhiteLoses,
            n_move_rule: 0,
            ..twelve
        };
        let nine_fen = "W../.B./.../....../.../.../... w 7 7 2 3";
        let nine = puzzle(nine_fen, Rules::new(Variant::Nine), "d2");
        assert_eq!(nine.line(2), format!("2 win d2 30 {nine_fen}"));
        assert_eq!(Puzzle::from_line(&nine.line(2)), Ok((nine, 2)));
        for (rules, named) in [(twelve, "twelve"), (white_loses, "twelve:whiteloses")] {
            let puzzle = puzzle(fen, rules, "d2");
            let line = puzzle.line(5);
            assert!(line.contains(&format!(" {named} {fen}")), "{line}");
            assert_eq!(Puzzle::from_line(&line), Ok((puzzle, 5)));
        }
        // Ten stones in hand are too many for nine.
        assert!(Puzzle::from_line(&format!("2 win d2 30 {fen}")).is_err());
        for bad in ["sixteen {fen}", "twelve:blackloses {fen}", "twelve"] {
            let line = format!("2 win d2 30 {}", bad.replace("{fen}", fen));
            assert!(Puzzle::from_line(&line).is_err(), "{line}");
        }
    }
}
