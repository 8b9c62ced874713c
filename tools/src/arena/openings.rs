//! Opening positions: from a file (a position string and/or moves, one a
//! line) or drawn at random.

use std::ops::RangeInclusive;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use morris::{Game, Move, Position, Rules, Variant};

/// A start for a game: a position string (or the start position) and moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The position string, or `None` for the variant's start position.
    pub fen: Option<String>,
    /// Moves played from there.
    pub moves: Vec<Move>,
}

/// The balanced openings shipped with the tool for `variant`, as text.
pub const fn default_openings(variant: Variant) -> &'static str {
    match variant {
        Variant::Nine => include_str!("../../openings/nine.txt"),
        Variant::Twelve => include_str!("../../openings/twelve.txt"),
        Variant::Lasker => include_str!("../../openings/lasker.txt"),
    }
}

impl Opening {
    /// The game this opening sets up under `rules`.
    ///
    /// # Errors
    ///
    /// A bad position string or an illegal move, as text.
    pub fn game(&self, rules: Rules) -> Result<Game, String> {
        let start = match &self.fen {
            Some(fen) => Position::from_fen(fen, rules).map_err(|e| e.to_string())?,
            None => Position::new(rules),
        };
        let mut game = Game::new(start);
        for &mv in &self.moves {
            game.try_play(mv).map_err(|e| e.to_string())?;
        }
        Ok(game)
    }
}

/// Reads openings, one a line: six fields of a position string, then
/// (optionally after `moves`) move tokens; or move tokens alone from the
/// start position. Blank lines and lines starting with `#` are skipped.
/// Each opening is checked under `rules`.
///
/// # Errors
///
/// The first bad line, with its number.
pub fn parse_openings(text: &str, rules: Rules) -> Result<Vec<Opening>, String> {
    let mut openings = Vec::new();
    for (number, line) in (1..).zip(text.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let (fen, rest) = if tokens[0].contains('/') && tokens.len() >= 6 {
            (Some(tokens[..6].join(" ")), &tokens[6..])
        } else {
            (None, &tokens[..])
        };
        let rest = rest.strip_prefix(&["moves"]).unwrap_or(rest);
        let moves = rest
            .iter()
            .map(|t| t.parse::<Move>().map_err(|e| format!("line {number}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let opening = Opening { fen, moves };
        let game = opening
            .game(rules)
            .map_err(|e| format!("line {number}: {e}"))?;
        if let Some(outcome) = game.outcome() {
            return Err(format!(
                "line {number}: the game is already over ({outcome})"
            ));
        }
        openings.push(opening);
    }
    if openings.is_empty() {
        return Err("no openings".to_owned());
    }
    Ok(openings)
}

/// Reads an opening file.
///
/// # Errors
///
/// The file cannot be read, or a line is bad.
pub fn read_openings(path: &Path, rules: Rules) -> Result<Vec<Opening>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_openings(&text, rules).map_err(|e| format!("{}: {e}", path.display()))
}

/// `count` openings of random moves from the start position, each of a
/// length drawn from `plies`, drawn with `seed`; none ends the game.
pub fn random_openings(
    count: usize,
    plies: RangeInclusive<usize>,
    seed: u64,
    rules: Rules,
) -> Vec<Opening> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut openings = Vec::with_capacity(count);
    while openings.len() < count {
        let mut game = Game::new(Position::new(rules));
        let length = rng.random_range(plies.clone());
        for _ in 0..length {
            let moves = game.position().legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            let _ = game.try_play(moves[rng.random_range(0..moves.len())]);
        }
        if game.outcome().is_none() {
            openings.push(Opening {
                fen: None,
                moves: game.moves().to_vec(),
            });
        }
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_take_move_lists_and_position_strings() {
        let text = "# comment\nd6 d2\n\n.../.W./.../....../.../.../... b 8 9 1 1 moves d2\nWWW/.../.../....../.../.../BBB w 0 0 0 9\n";
        let openings = parse_openings(text, Rules::default()).unwrap();
        assert_eq!(openings.len(), 3);
        assert_eq!(openings[0].fen, None);
        assert_eq!(openings[1].moves.len(), 1);
        assert!(
            parse_openings("d6 d6\n", Rules::default())
                .unwrap_err()
                .starts_with("line 1: ")
        );
        assert!(parse_openings("", Rules::default()).is_err());
    }

    #[test]
    fn the_default_openings_are_valid_in_their_variant() {
        for variant in Variant::ALL {
            let rules = Rules::new(variant);
            let openings = parse_openings(default_openings(variant), rules).unwrap();
            assert!(openings.len() >= 20, "{variant:?}");
            for opening in &openings {
                opening.game(rules).unwrap();
            }
        }
    }

    #[test]
    fn random_openings_repeat_with_the_seed() {
        let a = random_openings(5, 6..=6, 7, Rules::default());
        assert_eq!(a, random_openings(5, 6..=6, 7, Rules::default()));
        assert_ne!(a, random_openings(5, 6..=6, 8, Rules::default()));
        assert!(a.iter().all(|o| o.moves.len() == 6));
        let lengths: Vec<usize> = random_openings(40, 4..=6, 7, Rules::default())
            .iter()
            .map(|o| o.moves.len())
            .collect();
        assert!(lengths.iter().all(|n| (4..=6).contains(n)));
        assert!((4..=6).all(|n| lengths.contains(&n)));
    }
}
