//! The lobby: the open challenges, each a player's offer of a rated game
//! (its settings, and the side the player takes, or a side drawn), the
//! players there now, and the players engaged in a rated game (from the
//! moment it is agreed until its result is kept: one at a time). Every
//! page in the lobby hears of a change at once, by its stream of events
//! (or a long poll), as a game's page does.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use morris::Color;

use tokio::sync::watch;

use crate::web::core::settings::{Settings, Strength};
use crate::web::core::version::first_version;
use crate::web::rated::store::PlayerId;

/// The most challenges a player may have open at once.
pub const MAX_CHALLENGES_EACH: usize = 3;

/// The most challenges open at once.
pub const MAX_CHALLENGES: usize = 1000;

/// How long since it last asked a player still counts as in the lobby:
/// longer than a long poll waits, or a stream between two refreshes.
const PRESENT: Duration = Duration::from_secs(30);

/// The name of the standing player who is the engine at `level`.
pub fn level_player_name(level: Strength) -> String {
    format!("morris-{}", level.name())
}

/// A player's offer of a rated game, open until taken or withdrawn.
#[derive(Clone, Debug)]
pub struct Challenge {
    /// The lobby's number for it.
    pub id: u64,
    /// Who offers it.
    pub by: PlayerId,
    /// Its name.
    pub name: String,
    /// Its rating.
    pub rating: f64,
    /// The game's variant, rules and clock.
    pub settings: Settings,
    /// The side the challenger takes; `None`: drawn when it is taken.
    pub side: Option<Color>,
    /// How far from the challenger's rating the taker's may be; `None`:
    /// anyone's.
    pub range: Option<f64>,
}

impl Challenge {
    /// Whether a player rated `rating` may take it.
    pub fn open_to(&self, rating: f64) -> bool {
        self.range
            .is_none_or(|range| (rating - self.rating).abs() <= range)
    }
}

/// A player in the lobby.
#[derive(Clone, Debug)]
pub struct Present {
    /// Its name.
    pub name: String,
    /// Its rating.
    pub rating: f64,
    last_seen: Instant,
}

/// The lobby as one page sees it.
pub struct LobbySnapshot {
    /// The lobby's version, for the next long poll.
    pub version: u64,
    /// The open challenges, the oldest first.
    pub challenges: Vec<Challenge>,
    /// The players there, by name.
    pub present: Vec<Present>,
}

struct Inner {
    version: u64,
    challenges: Vec<Challenge>,
    present: HashMap<PlayerId, Present>,
    /// The players engaged in a rated game, and the game once it began.
    engaged: HashMap<PlayerId, Option<u64>>,
}

impl Default for Inner {
    fn default() -> Inner {
        Inner {
            version: first_version(),
            challenges: Vec::new(),
            present: HashMap::new(),
            engaged: HashMap::new(),
        }
    }
}

/// The refusal of a player engaged in a rated game.
const ENGAGED: &str = "you are playing a rated game";

impl Inner {
    fn changed(&mut self, lobby: &Lobby) {
        self.version += 1;
        lobby.version.send_replace(self.version);
    }

    /// `players` go to a rated game: their challenges are no longer open.
    fn engage(&mut self, players: &[PlayerId], game: Option<u64>) {
        self.engaged
            .extend(players.iter().map(|&player| (player, game)));
        self.challenges.retain(|c| !players.contains(&c.by));
    }
}

/// The open challenges and the players there.
pub struct Lobby {
    inner: Mutex<Inner>,
    /// The version, for the pages waiting for news.
    version: watch::Sender<u64>,
}

impl Default for Lobby {
    fn default() -> Lobby {
        let inner = Inner::default();
        let (version, _) = watch::channel(inner.version);
        Lobby {
            inner: Mutex::new(inner),
            version,
        }
    }
}

impl Lobby {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().expect("not poisoned")
    }

    /// Opens `challenge` (its number is the lobby's to give).
    ///
    /// # Errors
    ///
    /// Its player is playing a rated game, has as many open as it may, or
    /// the lobby has as many as it takes.
    pub fn post(&self, mut challenge: Challenge) -> Result<u64, String> {
        let mut inner = self.lock();
        let by = challenge.by;
        if inner.engaged.contains_key(&by) {
            return Err(ENGAGED.to_owned());
        }
        if inner.challenges.iter().filter(|c| c.by == by).count() >= MAX_CHALLENGES_EACH {
            return Err(format!(
                "you have {MAX_CHALLENGES_EACH} challenges open: withdraw one first"
            ));
        }
        if inner.challenges.len() >= MAX_CHALLENGES {
            return Err("the lobby is full of challenges: try again later".to_owned());
        }
        challenge.id = std::iter::repeat_with(|| rand::random_range(1..1u64 << 52))
            .find(|id| inner.challenges.iter().all(|c| c.id != *id))
            .expect("a free number");
        let id = challenge.id;
        // Its player is in the lobby as it posts it, even before its page
        // asks for the lobby.
        let present = Present {
            name: challenge.name.clone(),
            rating: challenge.rating,
            last_seen: Instant::now(),
        };
        inner.present.insert(by, present);
        inner.challenges.push(challenge);
        inner.changed(self);
        Ok(id)
    }

    /// `by` withdraws its challenge `id`; whether it had it open.
    pub fn withdraw(&self, id: u64, by: PlayerId) -> bool {
        let mut inner = self.lock();
        let before = inner.challenges.len();
        inner.challenges.retain(|c| !(c.id == id && c.by == by));
        let withdrawn = inner.challenges.len() != before;
        if withdrawn {
            inner.changed(self);
        }
        withdrawn
    }

    /// `taker`, rated `rating`, takes challenge `id`: both players are
    /// engaged in their game, and none of their challenges is open.
    ///
    /// # Errors
    ///
    /// The taker is playing a rated game, no such challenge is open, it
    /// is the taker's own, or for players of other ratings.
    pub fn take(&self, id: u64, (taker, rating): (PlayerId, f64)) -> Result<Challenge, String> {
        let mut inner = self.lock();
        if inner.engaged.contains_key(&taker) {
            return Err(ENGAGED.to_owned());
        }
        let challenge = inner
            .challenges
            .iter()
            .find(|c| c.id == id)
            .cloned()
            .ok_or("the challenge is no longer open")?;
        if challenge.by == taker {
            return Err("a challenge is for another player to take".to_owned());
        }
        if !challenge.open_to(rating) {
            return Err(format!(
                "{} asks for a rating within {:.0} of {:.0}",
                challenge.name,
                challenge.range.unwrap_or_default(),
                challenge.rating
            ));
        }
        inner.engage(&[challenge.by, taker], None);
        inner.changed(self);
        Ok(challenge)
    }

    /// `player` is to play a rated game against one of the engine's
    /// levels: it is engaged in it, and none of its challenges is open.
    ///
    /// # Errors
    ///
    /// It is playing a rated game.
    pub fn reserve(&self, player: PlayerId) -> Result<(), String> {
        let mut inner = self.lock();
        if inner.engaged.contains_key(&player) {
            return Err(ENGAGED.to_owned());
        }
        inner.engage(&[player], None);
        inner.changed(self);
        Ok(())
    }

    /// `players` play the rated game `game`, just begun (or resumed after
    /// a restart).
    pub fn begun(&self, players: &[PlayerId], game: u64) {
        let mut inner = self.lock();
        inner.engage(players, Some(game));
        inner.changed(self);
    }

    /// The rated game `player` plays, once it began.
    pub fn game_of(&self, player: PlayerId) -> Option<u64> {
        self.lock().engaged.get(&player).copied().flatten()
    }

    /// The rated game of `players` is over and kept, or did not begin
    /// (then `taken`, the challenge it was to be, is open again): they
    /// are free.
    pub fn release(&self, players: &[PlayerId], taken: Option<Challenge>) {
        let mut inner = self.lock();
        inner.engaged.retain(|player, _| !players.contains(player));
        inner.challenges.extend(taken);
        inner.changed(self);
    }

    /// `player`, named `name` and rated `rating`, asks at `asked`: it is
    /// in the lobby.
    pub fn arrive(&self, (player, name, rating): (PlayerId, &str, f64), asked: Instant) {
        let mut inner = self.lock();
        // A newcomer, or a player whose rating moved, is news to the others.
        let news = inner.present.get(&player).map(|present| present.rating) != Some(rating);
        inner.present.insert(
            player,
            Present {
                name: name.to_owned(),
                rating,
                last_seen: asked,
            },
        );
        inner
            .present
            .retain(|_, present| asked.saturating_duration_since(present.last_seen) <= PRESENT);
        if news {
            inner.changed(self);
        }
    }

    /// The lobby's version, as it changes.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// The lobby as `player`, there still, sees it now.
    pub fn snapshot(&self, player: PlayerId) -> LobbySnapshot {
        let mut inner = self.lock();
        // Still there: a long poll lasts less than PRESENT.
        if let Some(present) = inner.present.get_mut(&player) {
            present.last_seen = Instant::now();
        }
        let mut present: Vec<Present> = inner.present.values().cloned().collect();
        present.sort_by(|a, b| a.name.cmp(&b.name));
        LobbySnapshot {
            version: inner.version,
            challenges: inner.challenges.clone(),
            present,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lobby as `player`, named `name`, sees it on coming in.
    fn seen(lobby: &Lobby, player: PlayerId, name: &str) -> LobbySnapshot {
        lobby.arrive((player, name, 1500.0), Instant::now());
        lobby.snapshot(player)
    }

    fn challenge(by: i64) -> Challenge {
        Challenge {
            id: 0,
            by: PlayerId(by),
            name: format!("p{by}"),
            rating: 1500.0,
            settings: Settings::default(),
            side: None,
            range: None,
        }
    }

    #[test]
    fn a_challenge_is_withdrawn_by_its_player_alone_and_taken_by_another() {
        let lobby = Lobby::default();
        let (ann, bob) = (PlayerId(1), PlayerId(2));
        let first = lobby.post(challenge(1)).unwrap();
        let second = lobby.post(challenge(1)).unwrap();
        let bobs = lobby.post(challenge(2)).unwrap();
        assert_ne!(first, second);
        assert!(!lobby.withdraw(first, bob), "not bob's to withdraw");
        assert!(lobby.withdraw(first, ann));
        assert!(!lobby.withdraw(first, ann), "withdrawn already");
        assert!(lobby.take(second, (ann, 1500.0)).is_err(), "ann's own");
        let taken = lobby.take(second, (bob, 1500.0)).unwrap();
        assert_eq!(taken.by, ann);
        // Both go to their game: bob's challenge is gone with ann's, and
        // ann takes no other until it is over.
        assert!(lobby.take(bobs, (ann, 1500.0)).is_err());
        let snapshot = seen(&lobby, ann, "ann");
        assert!(snapshot.challenges.is_empty());
        // Each posted a challenge: both are in the lobby.
        assert_eq!(snapshot.present.len(), 2);
    }

    #[test]
    fn a_challenge_within_a_rating_range_is_for_players_in_it() {
        let lobby = Lobby::default();
        let near = lobby
            .post(Challenge {
                range: Some(100.0),
                ..challenge(1)
            })
            .unwrap();
        let bob = PlayerId(2);
        let refused = lobby.take(near, (bob, 1601.0)).unwrap_err();
        assert_eq!(refused, "p1 asks for a rating within 100 of 1500");
        assert!(lobby.take(near, (bob, 1400.0)).is_ok());
    }

    #[test]
    fn a_player_has_only_so_many_challenges_open() {
        let lobby = Lobby::default();
        let first = lobby.post(challenge(1)).unwrap();
        for _ in 1..MAX_CHALLENGES_EACH {
            lobby.post(challenge(1)).unwrap();
        }
        assert!(lobby.post(challenge(1)).is_err());
        assert!(lobby.post(challenge(2)).is_ok());
        lobby.withdraw(first, PlayerId(1));
        assert!(lobby.post(challenge(1)).is_ok());
    }

    #[test]
    fn a_player_engaged_in_a_rated_game_plays_no_other_until_it_is_kept() {
        let lobby = Lobby::default();
        let (ann, bob) = (PlayerId(1), PlayerId(2));
        let bobs = lobby.post(challenge(2)).unwrap();
        lobby.post(challenge(1)).unwrap();
        lobby.reserve(ann).unwrap();
        // Against a level: ann's challenge is gone, and she offers, takes
        // and reserves nothing more.
        let open = seen(&lobby, bob, "bob");
        assert_eq!(open.challenges.len(), 1);
        assert!(lobby.post(challenge(1)).is_err());
        assert!(lobby.take(bobs, (ann, 1500.0)).is_err());
        assert!(lobby.reserve(ann).is_err());
        lobby.release(&[ann], None);
        let taken = lobby.take(bobs, (ann, 1500.0)).unwrap();
        // The game did not begin: the challenge is open again.
        lobby.release(&[ann, bob], Some(taken));
        assert!(lobby.take(bobs, (ann, 1500.0)).is_ok());
    }

    #[test]
    fn a_page_waiting_hears_of_a_challenge_at_once() {
        let lobby = Lobby::default();
        let ann = PlayerId(1);
        let now = seen(&lobby, ann, "ann");
        let mut version = lobby.subscribe();
        version.mark_unchanged();
        lobby.post(challenge(2)).unwrap();
        assert!(version.has_changed().unwrap());
        let heard = lobby.snapshot(ann);
        assert_eq!(heard.challenges.len(), 1);
        assert!(heard.version > now.version);
        assert_eq!(*version.borrow_and_update(), heard.version);
    }
}
