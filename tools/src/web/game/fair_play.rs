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
/// would tell nearly the same values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stand {
    variant: Variant,
    key: u64,
}

impl Stand {
    /// `position`, as fair play knows it.
    pub fn of(position: &Position) -> Stand {
        let key = Symmetry::ALL
            .into_iter()
            .map(|symmetry| symmetry.apply_position(position).key())
            .min()
            .expect("the identity at least");
        Stand {
            variant: position.rules().variant,
            key,
        }
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
    counts: HashMap<Stand, usize>,
}

impl FairPlay {
    /// Whether a rated game in play stands on `position`.
    pub fn stands(&self, position: &Position) -> bool {
        // Most of the time no rated game is played: then nothing is worked
        // out, and nothing under the lock every game's view takes.
        if self.standing().counts.is_empty() {
            return false;
        }
        let stand = Stand::of(position);
        self.standing().counts.contains_key(&stand)
    }

    /// Whether a rated game in play stands on a position of `game`, its
    /// start, any of its moves or the position now.
    pub fn stands_in(&self, game: &Game) -> bool {
        if self.standing().counts.is_empty() {
            return false;
        }
        let mut position = *game.start();
        let mut stands = vec![Stand::of(&position)];
        for &mv in game.moves() {
            position.play(mv);
            stands.push(Stand::of(&position));
        }
        let standing = self.standing();
        stands
            .iter()
            .any(|stand| standing.counts.contains_key(stand))
    }

    /// Rated game `id` stands on `at` now (none while it is not in play).
    pub fn stand(&self, id: u64, at: Option<Stand>) {
        let mut standing = self.standing();
        let Standing { games, counts } = &mut *standing;
        let was = match at {
            Some(at) => games.insert(id, at),
            None => games.remove(&id),
        };
        if was == at {
            return;
        }
        if let Some(was) = was
            && let Some(count) = counts.get_mut(&was)
        {
            *count -= 1;
            if *count == 0 {
                counts.remove(&was);
            }
        }
        if let Some(at) = at {
            *counts.entry(at).or_default() += 1;
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

    #[test]
    fn a_position_stands_for_its_images_and_its_other_counts_not_for_another() {
        let nine = Rules::default();
        let placed = position("W../.../.../....../.../.../..B w 8 8 0 2", nine);
        let fair_play = FairPlay::default();
        fair_play.stand(1, Some(Stand::of(&placed)));
        for symmetry in Symmetry::ALL {
            assert!(fair_play.stands(&symmetry.apply_position(&placed)));
        }
        // The move counters and the rules that leave the board alone
        // are not the position.
        let later = position("W../.../.../....../.../.../..B w 8 8 7 9", nine);
        assert!(fair_play.stands(&later));
        let grounded = Rules {
            flying: false,
            n_move_rule: 0,
            ..nine
        };
        let fen = "W../.../.../....../.../.../..B w 8 8 0 2";
        assert!(fair_play.stands(&position(fen, grounded)));
        // Other stones, another side to move or another board are not.
        for other in [
            position("W../.../.../....../.../.../.B. w 8 8 0 2", nine),
            position("WW./.../.../....../.../.../..B b 7 8 0 2", nine),
            position(
                "W../.../.../....../.../.../..B w 11 11 0 2",
                Rules::new(Variant::Twelve),
            ),
        ] {
            assert!(!fair_play.stands(&other), "{}", other.fen());
        }
    }

    #[test]
    fn a_position_stands_while_any_game_stands_on_it() {
        let fair_play = FairPlay::default();
        let mut game = Game::new(Position::new(Rules::default()));
        let start = Stand::of(game.start());
        let mut after = *game.start();
        after.play(mv("a1"));
        let after = Stand::of(&after);
        // Two games begin; one moves on, the other ends.
        fair_play.stand(1, Some(start));
        fair_play.stand(2, Some(start));
        fair_play.stand(1, Some(after));
        fair_play.stand(1, Some(after));
        assert!(fair_play.stands(game.start()), "one game is still there");
        fair_play.stand(2, None);
        assert!(!fair_play.stands(game.start()));
        // A game that went through a position standing is barred whole.
        game.try_play(mv("a1")).expect("legal");
        game.try_play(mv("a4")).expect("legal");
        assert!(fair_play.stands_in(&game));
        fair_play.stand(1, None);
        assert!(!fair_play.stands_in(&game));
    }
}
