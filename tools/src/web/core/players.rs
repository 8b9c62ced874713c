//! The players of a rated game, as its state holds them: plain data,
//! kept by rated play, shown by the page.

use morris::Color;

use crate::rating::Rating;

/// A player, by the store's number for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayerId(pub(crate) i64);

/// Both players' ratings after a game kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    /// White's.
    pub white: Rating,
    /// Black's.
    pub black: Rating,
    /// Whether the game moved them (it was long enough).
    pub moved: bool,
}

/// One side of a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedPlayer {
    /// The player.
    pub id: PlayerId,
    /// Its name.
    pub name: String,
    /// Its rating when the game began.
    pub rating: f64,
}

/// What makes a game rated: its players, and their ratings after it once
/// the store has its result.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedPlayers {
    /// Each side's player, by [`Color::index`].
    pub players: [RatedPlayer; 2],
    /// Both players' ratings after the game, once it is over and kept.
    pub after: Option<Rated>,
}

impl RatedPlayers {
    /// A game between `players`, White's first, not yet over.
    pub fn new(players: [RatedPlayer; 2]) -> RatedPlayers {
        RatedPlayers {
            players,
            after: None,
        }
    }

    /// `color`'s player.
    pub fn player(&self, color: Color) -> &RatedPlayer {
        &self.players[color.index()]
    }

    /// The side `player` plays, if it plays this game.
    pub fn side_of(&self, player: PlayerId) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&color| self.player(color).id == player)
    }
}
