//! The page's puzzles: positions of real games where one move alone keeps
//! the win or the draw, found by `morris puzzles` in the games of morris
//! against Sanmill (nine's and twelve's, each with its databases) and
//! kept in `puzzles.txt`, easiest first.

use std::sync::LazyLock;

use morris::solution::Puzzle;
use serde::Serialize;

/// The puzzles, one a line (see [`Puzzle::line`]).
const PUZZLES: &str = include_str!("puzzles.txt");

/// A puzzle as the page sees it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PuzzleView {
    /// Its position string.
    fen: String,
    /// What the move keeps: `win` or `draw`.
    goal: String,
    /// The one move that keeps it.
    solution: String,
    /// How deep a search without the databases must look to find it.
    depth: u32,
    /// The N-move rule its values are under.
    n_move_rule: u16,
    /// Its variant.
    variant: &'static str,
    /// Its full-board rule.
    full_board: &'static str,
}

/// Every puzzle, as the JSON the page is sent, made once.
pub(crate) fn puzzles_json() -> &'static str {
    static JSON: LazyLock<String> = LazyLock::new(|| {
        let views: Vec<PuzzleView> = shipped()
            .map(|(puzzle, depth)| PuzzleView {
                fen: puzzle.position.fen(),
                goal: puzzle.goal.to_string(),
                solution: puzzle.solution.to_string(),
                depth,
                n_move_rule: puzzle.position.rules().n_move_rule,
                variant: puzzle.position.rules().variant.name(),
                full_board: puzzle.position.rules().full_board.name(),
            })
            .collect();
        serde_json::to_string(&views).expect("puzzles are JSON")
    });
    &JSON
}

/// The puzzles of the file, with their depths.
fn shipped() -> impl Iterator<Item = (Puzzle, u32)> {
    PUZZLES.lines().map(|line| {
        Puzzle::from_line(line).unwrap_or_else(|e| panic!("puzzles.txt: '{line}': {e}"))
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::PathBuf;

    use morris::solution::{Database, DbOutcome};

    use super::*;

    #[test]
    fn the_puzzles_shipped_are_read_whole_easiest_first_each_once() {
        let puzzles: Vec<(Puzzle, u32)> = shipped().collect();
        assert!(!puzzles.is_empty());
        assert!(puzzles.is_sorted_by_key(|&(_, depth)| depth));
        let positions: HashSet<u64> = puzzles.iter().map(|(p, _)| p.position.key()).collect();
        assert_eq!(positions.len(), puzzles.len());
        for (puzzle, _) in &puzzles {
            assert_ne!(puzzle.goal, DbOutcome::Loss);
            assert_eq!(Puzzle::from_line(&puzzle.line(3)), Ok((*puzzle, 3)));
        }
        assert!(puzzles_json().starts_with("[{\"fen\":"));
    }

    /// The databases of the whole game: `MORRIS_WHOLE_GAME_DB`, or the
    /// default folder.
    fn whole_game() -> PathBuf {
        std::env::var_os("MORRIS_WHOLE_GAME_DB")
            .map(PathBuf::from)
            .or_else(morris::solution::existing_default_dir)
            .expect("MORRIS_WHOLE_GAME_DB names the whole game's databases")
    }

    /// Checks each puzzle of a variant the databases hold (nine, twelve,
    /// or both: the folder says), which must hold its whole game.
    #[test]
    #[ignore = "needs the whole game's databases (MORRIS_WHOLE_GAME_DB)"]
    fn every_puzzle_shipped_is_one_by_the_databases() {
        let (db, refused) = Database::open(&whole_game()).expect("the databases");
        assert!(refused.is_empty(), "{refused:?}");
        let (held, other): (Vec<_>, Vec<_>) =
            shipped().partition(|(puzzle, _)| db.holds(puzzle.position.rules()));
        assert!(!held.is_empty(), "the databases hold no puzzle's game");
        for (puzzle, depth) in &held {
            assert_eq!(
                Puzzle::at(&db, &puzzle.position),
                Some(*puzzle),
                "{}",
                puzzle.line(*depth)
            );
        }
        eprintln!(
            "{} puzzles checked; {} of games the databases do not hold",
            held.len(),
            other.len()
        );
    }
}
