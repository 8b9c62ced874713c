//! A rated game: two players' game for their ratings, kept in the store
//! move by move while it goes on (so that a restart resumes it), and
//! written there with its result and both new ratings the moment it is
//! over, however it ended: by the rules, a resignation, a draw agreed, a
//! side's time run out, or a player gone. While it is played, fair play
//! knows the position on its board.

use std::sync::Arc;
use std::time::Instant;

use morris::{Color, GameResult};

use super::actions;
use super::fair_play::{FairPlay, Stand};
use super::lobby::Lobby;
use super::state::State;
use super::store::{FinishedGame, PlayerId, Rated, Standing, Store};

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

impl From<Standing> for RatedPlayer {
    fn from(standing: Standing) -> RatedPlayer {
        RatedPlayer {
            id: standing.id,
            name: standing.name,
            rating: standing.rating.rating,
        }
    }
}

/// Who hears of every rated game's moves and end.
#[derive(Clone)]
pub struct Listeners {
    /// Keeps the game, and its players' ratings.
    pub store: Arc<Store>,
    /// Told when the game is over: its players are free for another.
    pub lobby: Arc<Lobby>,
    /// Knows the position on its board while it is played.
    pub fair_play: Arc<FairPlay>,
}

/// What makes a game rated: its players, and how far the store and fair
/// play have it.
pub struct RatedGame {
    /// Each side's player, by [`Color::index`].
    pub players: [RatedPlayer; 2],
    /// The server's number for the game, the store's too.
    id: u64,
    listeners: Listeners,
    /// How many of the game's moves the store has.
    kept_plies: usize,
    /// Both players' ratings after the game, once the store has its
    /// result.
    after: Option<Rated>,
    /// The position fair play knows it stands on, while it is played.
    stand: Option<Stand>,
}

impl RatedGame {
    /// Game `id` between `players` (White's first), told to `listeners`;
    /// the store has its first `kept_plies` moves.
    pub fn new(
        id: u64,
        players: [RatedPlayer; 2],
        listeners: Listeners,
        kept_plies: usize,
    ) -> RatedGame {
        RatedGame {
            players,
            id,
            listeners,
            kept_plies,
            after: None,
            stand: None,
        }
    }

    /// `color`'s player.
    pub fn player(&self, color: Color) -> &RatedPlayer {
        &self.players[color.index()]
    }

    /// Both players' ratings after the game, once it is over and kept.
    pub fn after(&self) -> Option<&Rated> {
        self.after.as_ref()
    }

    /// The side `player` plays, if it plays this game.
    pub fn side_of(&self, player: PlayerId) -> Option<Color> {
        Color::ALL
            .into_iter()
            .find(|&color| self.player(color).id == player)
    }
}

/// Each side's time left on `state`'s clock now, in milliseconds.
pub fn time_left(state: &State) -> Option<[u64; 2]> {
    let now = Instant::now();
    let clock = state.clock?;
    Some(
        Color::ALL
            .map(|color| u64::try_from(clock.left(color, now).as_millis()).unwrap_or(u64::MAX)),
    )
}

/// The moves of `state`'s game as the store keeps them.
pub fn moves_text(state: &State) -> String {
    let moves: Vec<String> = state.game.moves().iter().map(ToString::to_string).collect();
    moves.join(" ")
}

impl Drop for RatedGame {
    /// A game closed in play (the server stops) stands nowhere.
    fn drop(&mut self) {
        self.listeners.fair_play.moved(self.stand.take(), None);
    }
}

/// Brings fair play and the store up to date with `state`'s rated game:
/// the position it stands on while in play; its new moves while it goes
/// on, its result and both ratings once it is over (its players are then
/// free for another). A store that fails is told on the server's error
/// output and tried again at the next change, or the clock's next tick.
pub fn keep(state: &mut State) {
    let in_play = state.ended().is_none();
    let position = state.game.position();
    let Some(rated) = state.rated.as_mut() else {
        return;
    };
    let stand = in_play.then(|| Stand::of(position));
    rated.listeners.fair_play.moved(rated.stand, stand);
    rated.stand = stand;
    let Some(rated) = state.rated.as_ref().filter(|rated| rated.after.is_none()) else {
        return;
    };
    let plies = state.game.moves().len();
    let kept = match state.ended() {
        Some(ended) => {
            let record = actions::record_text(state);
            let game = FinishedGame {
                white: rated.player(Color::White).id,
                black: rated.player(Color::Black).id,
                result: GameResult::from_winner(ended.winner()),
                termination: &ended.to_string(),
                record: &record,
                plies,
                live: Some(rated.id),
            };
            rated.listeners.store.finish(&game).map(Some)
        }
        None if plies != rated.kept_plies => rated
            .listeners
            .store
            .update_live(rated.id, &moves_text(state), time_left(state))
            .map(|()| None),
        None => return,
    };
    match kept {
        Ok(after) => {
            let rated = state.rated.as_mut().expect("rated");
            rated.kept_plies = plies;
            if after.is_some() {
                rated.after = after;
                let players = Color::ALL.map(|color| rated.player(color).id);
                rated.listeners.lobby.release(&players, None);
            }
        }
        Err(e) => eprintln!("morris-web: the store: {e:#}"),
    }
}
