//! Fair play: the positions that stand on the boards of rated games in
//! play, for which the server tells no value, gives no hint and reviews
//! no game, whoever asks; so that a player cannot set the position up on
//! a board of their own and read what to play.

use std::collections::HashMap;
use std::sync::Mutex;

use morris::{Game, Position, Symmetry, Variant};

/// A position as fair play knows it: the board and whose turn, the same
/// for every symmetry of the board (a position mirrored or turned is no
/// way around it), and for every rule that leaves the board alone (the
/// N-move rule, flying, a full board: a side game under another of those
/// would tell nearly the same values): the keys of its images, worked
/// out once, so that a game's positions are looked up by the keys the
/// game keeps of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stand {
    variant: Variant,
    /// Sorted, each once.
    images: Vec<u64>,
}

impl Stand {
    /// `position`, as fair play knows it; none for the empty board and a
    /// first stone placed, whose values are published (docs/ENDGAME.md)
    /// and which every game goes through: kept off, they would stop the
    /// engine of every new game while a rated game begins.
    pub fn of(position: &Position) -> Option<Stand> {
        let stones = 2 * u32::from(position.rules().variant.stones());
        if position.stones_to_place() + 1 >= stones {
            return None;
        }
        let mut images: Vec<u64> = Symmetry::ALL
            .into_iter()
            .map(|symmetry| symmetry.apply_position(position).key())
            .collect();
        images.sort_unstable();
        images.dedup();
        Some(Stand {
            variant: position.rules().variant,
            images,
        })
    }
}

/// The positions rated games in play stand on: each game's, and how
/// many stand on each (every rated game begins at the empty board).
#[derive(Default)]
pub struct FairPlay {
    standing: Mutex<Standing>,
}

#[derive(Default)]
struct Standing {
    games: HashMap<u64, Stand>,
    /// How many rated games stand on a position with this image, by
    /// variant and key.
    counts: HashMap<(Variant, u64), usize>,
}

impl FairPlay {
    /// Whether a rated game in play stands on a position of `game`, its
    /// start, any of its moves or the position now: a game that went
    /// through it would tell the value of each move tried from it, one
    /// after another.
    pub fn stands_in(&self, game: &Game) -> bool {
        let standing = self.standing();
        let variant = game.start().rules().variant;
        !standing.counts.is_empty()
            && game
                .keys()
                .iter()
                .any(|&key| standing.counts.contains_key(&(variant, key)))
    }

    /// Rated game `id` stands on `at` now (none while it is not in play).
    pub fn stand(&self, id: u64, at: Option<Stand>) {
        let mut standing = self.standing();
        let Standing { games, counts } = &mut *standing;
        let was = match &at {
            Some(at) => games.insert(id, at.clone()),
            None => games.remove(&id),
        };
        if was == at {
            return;
        }
        if let Some(was) = &was {
            for &key in &was.images {
                let image = (was.variant, key);
                if let Some(count) = counts.get_mut(&image) {
                    *count -= 1;
                    if *count == 0 {
                        counts.remove(&image);
                    }
                }
            }
        }
        if let Some(at) = &at {
            for &key in &at.images {
                *counts.entry((at.variant, key)).or_default() += 1;
            }
        }
    }

    fn standing(&self) -> std::sync::MutexGuard<'_, Standing> {
        self.standing.lock().expect("not poisoned")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris::{Move, Rules};

    fn position(fen: &str, rules: Rules) -> Position {
        Position::from_fen(fen, rules).expect("a position")
    }

    fn mv(text: &str) -> Move {
        text.parse().expect("a move")
    }

    /// Whether a rated game stands on `position`, as the start of a game.
    fn stands(fair_play: &FairPlay, position: &Position) -> bool {
        fair_play.stands_in(&Game::new(*position))
    }

    #[test]
    fn a_position_stands_for_its_images_and_its_other_counts_not_for_another() {
        let nine = Rules::default();
        let placed = position("W../.../.../....../.../.../..B w 8 8 0 2", nine);
        let fair_play = FairPlay::default();
        fair_play.stand(1, Stand::of(&placed));
        for symmetry in Symmetry::ALL {
            assert!(stands(&fair_play, &symmetry.apply_position(&placed)));
        }
        // The move counters and the rules that leave the board alone
        // are not the position.
        let later = position("W../.../.../....../.../.../..B w 8 8 7 9", nine);
        assert!(stands(&fair_play, &later));
        let grounded = Rules {
            flying: false,
            n_move_rule: 0,
            ..nine
        };
        let fen = "W../.../.../....../.../.../..B w 8 8 0 2";
        assert!(stands(&fair_play, &position(fen, grounded)));
        // Other stones, another side to move or another board are not.
        for other in [
            position("W../.../.../....../.../.../.B. w 8 8 0 2", nine),
            position("WW./.../.../....../.../.../..B b 7 8 0 2", nine),
            position(
                "W../.../.../....../.../.../..B w 11 11 0 2",
                Rules::new(Variant::Twelve),
            ),
        ] {
            assert!(!stands(&fair_play, &other), "{}", other.fen());
        }
    }

    #[test]
    fn the_empty_board_and_a_first_stone_stand_for_nothing() {
        for variant in [Variant::Nine, Variant::Twelve, Variant::Lasker] {
            let mut position = Position::new(Rules::new(variant));
            assert_eq!(Stand::of(&position), None, "{variant}");
            position.play(mv("a1"));
            assert_eq!(Stand::of(&position), None, "{variant}");
            position.play(mv("g7"));
            assert!(Stand::of(&position).is_some(), "{variant}");
        }
    }

    #[test]
    fn a_position_stands_while_any_game_stands_on_it() {
        let fair_play = FairPlay::default();
        let mut game = Game::new(Position::new(Rules::default()));
        let at = |moves: &[&str]| {
            let mut position = *game.start();
            for text in moves {
                position.play(mv(text));
            }
            Stand::of(&position)
        };
        let (two, three) = (at(&["a1", "g7"]), at(&["a1", "g7", "d7"]));
        // Two games stand on a position; one moves on, the other ends.
        fair_play.stand(1, two.clone());
        fair_play.stand(2, two);
        fair_play.stand(1, three.clone());
        fair_play.stand(1, three);
        for text in ["a1", "g7"] {
            game.try_play(mv(text)).expect("legal");
        }
        assert!(fair_play.stands_in(&game), "one game is still there");
        fair_play.stand(2, None);
        assert!(!fair_play.stands_in(&game));
        // A game that went through a position standing is barred whole.
        for text in ["d7", "a4"] {
            game.try_play(mv(text)).expect("legal");
        }
        assert!(fair_play.stands_in(&game));
        fair_play.stand(1, None);
        assert!(!fair_play.stands_in(&game));
    }
}
