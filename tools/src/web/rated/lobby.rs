//! The lobby: the open challenges, each a player's offer of a rated game
//! (its settings, and the side the player takes, or a side drawn) to
//! anyone or to one player named (a rematch among them), the players there
//! now, the players engaged in a rated game played at a sitting (from the
//! moment it is agreed until its result is kept: one at a time), and the
//! rated games being played, for anyone to watch. A correspondence game
//! engages nobody: its players come and go over days, play other games
//! meanwhile, and may have several at once. Every page in the lobby hears of a
//! change at once, by its stream of events (or a long poll), as a game's
//! page does.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use morris::Color;

use tokio::sync::watch;

use crate::web::core::players::RatedPlayer;
use crate::web::core::settings::{Settings, Strength};
use crate::web::core::version::first_version;
use crate::web::rated::store::PlayerId;

/// The most challenges a player may have open at once.
pub const MAX_CHALLENGES_EACH: usize = 3;

/// The most challenges open at once.
pub const MAX_CHALLENGES: usize = 1000;

/// The most correspondence games a player may play at once.
pub const MAX_CORRESPONDENCE_EACH: usize = 20;

/// How long since it last asked a player still counts as in the lobby:
/// longer than a long poll waits, or a stream between two refreshes.
const PRESENT: Duration = Duration::from_secs(30);

/// How long a challenger is told that its challenge was declined.
const DECLINE_TOLD: Duration = Duration::from_secs(120);

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
    /// The one player it is for, and its name; `None`: for anyone.
    pub to: Option<(PlayerId, String)>,
    /// The rated game it offers to play again, colours swapped.
    pub rematch_of: Option<u64>,
}

impl Challenge {
    /// Whether `player`, rated `rating`, may take it.
    pub fn open_to(&self, (player, rating): (PlayerId, f64)) -> bool {
        match &self.to {
            Some((to, _)) => *to == player,
            None => {
                self.by != player
                    && self
                        .range
                        .is_none_or(|range| (rating - self.rating).abs() <= range)
            }
        }
    }

    /// Whether `player` sees it: an open challenge anyone does, one to a
    /// player named its two players alone.
    pub fn seen_by(&self, player: PlayerId) -> bool {
        self.to
            .as_ref()
            .is_none_or(|(to, _)| *to == player || self.by == player)
    }
}

/// What came of a rematch asked for: see [`Lobby::rematch`].
#[derive(Debug, PartialEq, Eq)]
pub enum Rematch {
    /// The other player offered it first: its challenge, to take.
    Theirs(u64),
    /// Offered to the other player: the challenge's number.
    Offered(u64),
}

/// A challenge to a player named, declined by it.
#[derive(Clone, Debug)]
pub struct Declined {
    /// The challenge's number.
    pub id: u64,
    /// Who declined it.
    pub name: String,
    challenger: PlayerId,
    when: Instant,
}

/// A rated game being played, as the lobby lists it for anyone to watch.
#[derive(Clone, Debug)]
pub struct Playing {
    /// The server's number for the game: its players' alone (a game
    /// against a level has no seats, and its number is its secret).
    pub game: u64,
    /// The number it is watched by (the lobby's to give).
    pub watch: u64,
    /// White's player, then Black's, with their ratings as it began.
    pub players: [RatedPlayer; 2],
    /// Its variant, rules and clock.
    pub settings: Settings,
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
    /// The open challenges the player sees, the oldest first.
    pub challenges: Vec<Challenge>,
    /// The player's challenges declined lately.
    pub declined: Vec<Declined>,
    /// The players there, by name, each with whether it is playing a
    /// rated game.
    pub present: Vec<(Present, bool)>,
    /// The rated games being played, the oldest first.
    pub playing: Vec<Playing>,
}

struct Inner {
    version: u64,
    challenges: Vec<Challenge>,
    declined: Vec<Declined>,
    present: HashMap<PlayerId, Present>,
    /// The players engaged in a rated game, and the game once it began.
    engaged: HashMap<PlayerId, Option<u64>>,
    playing: Vec<Playing>,
}

impl Default for Inner {
    fn default() -> Inner {
        Inner {
            version: first_version(),
            challenges: Vec::new(),
            declined: Vec::new(),
            present: HashMap::new(),
            engaged: HashMap::new(),
            playing: Vec::new(),
        }
    }
}

/// The player refused, in the words of a refusal.
const YOU_ARE: &str = "you are";

impl Inner {
    fn changed(&mut self, lobby: &Lobby) {
        self.version += 1;
        lobby.version.send_replace(self.version);
    }

    /// `players` go to a rated game played at a sitting: their challenges
    /// to one, and those to them, are no longer open.
    fn engage(&mut self, players: &[PlayerId], game: Option<u64>) {
        self.engaged
            .extend(players.iter().map(|&player| (player, game)));
        self.challenges.retain(|c| {
            c.settings.is_correspondence()
                || (!players.contains(&c.by)
                    && c.to.as_ref().is_none_or(|(to, _)| !players.contains(to)))
        });
    }

    /// The correspondence games `player` plays, the oldest first.
    fn correspondence_games(&self, player: PlayerId) -> impl Iterator<Item = &Playing> {
        self.playing.iter().filter(move |listed| {
            listed.settings.is_correspondence() && listed.players.iter().any(|p| p.id == player)
        })
    }

    /// Why `player` may not take up a rated game, by `correspondence` or
    /// not, if it may not: one at a sitting while it plays one, or a
    /// correspondence game more than it may play at once. `who_is` begins
    /// the words: "you are", or a name and "is".
    fn refuse_busy(&self, player: PlayerId, correspondence: bool, who_is: &str) -> Option<String> {
        if correspondence {
            (self.correspondence_games(player).count() >= MAX_CORRESPONDENCE_EACH).then(|| {
                format!("{who_is} playing {MAX_CORRESPONDENCE_EACH} correspondence games, the most at once")
            })
        } else {
            self.engaged
                .contains_key(&player)
                .then(|| format!("{who_is} playing a rated game"))
        }
    }

    /// Why `challenge` to a player named may not be posted, if it may not.
    fn refuse_named(&self, challenge: &Challenge) -> Option<String> {
        let (to, name) = challenge.to.as_ref()?;
        if *to == challenge.by {
            return Some("a challenge is for another player".to_owned());
        }
        if !self.present.contains_key(to) {
            return Some(format!("{name} is not in the lobby"));
        }
        if let Some(busy) = self.refuse_busy(
            *to,
            challenge.settings.is_correspondence(),
            &format!("{name} is"),
        ) {
            return Some(busy);
        }
        let again = self
            .challenges
            .iter()
            .any(|c| c.by == challenge.by && c.to.as_ref().is_some_and(|(other, _)| other == to));
        again.then(|| format!("you have challenged {name} already: withdraw that first"))
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
    pub fn post(&self, challenge: Challenge) -> Result<u64, String> {
        let mut inner = self.lock();
        self.post_in(&mut inner, challenge)
    }

    /// Opens `challenge` in the lobby `inner`, locked.
    fn post_in(&self, inner: &mut Inner, mut challenge: Challenge) -> Result<u64, String> {
        let by = challenge.by;
        if let Some(busy) = inner.refuse_busy(by, challenge.settings.is_correspondence(), YOU_ARE) {
            return Err(busy);
        }
        if inner.challenges.iter().filter(|c| c.by == by).count() >= MAX_CHALLENGES_EACH {
            return Err(format!(
                "you have {MAX_CHALLENGES_EACH} challenges open: withdraw one first"
            ));
        }
        if inner.challenges.len() >= MAX_CHALLENGES {
            return Err("the lobby is full of challenges: try again later".to_owned());
        }
        if let Some(refusal) = inner.refuse_named(&challenge) {
            return Err(refusal);
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

    /// `player`, to whom challenge `id` is, declines it: it is gone, and
    /// its challenger told; whether it was open to decline.
    pub fn decline(&self, id: u64, (player, name): (PlayerId, &str)) -> bool {
        let mut inner = self.lock();
        let Some(at) = inner
            .challenges
            .iter()
            .position(|c| c.id == id && c.to.as_ref().is_some_and(|(to, _)| *to == player))
        else {
            return false;
        };
        let declined = inner.challenges.remove(at);
        let now = Instant::now();
        inner
            .declined
            .retain(|told| now.saturating_duration_since(told.when) <= DECLINE_TOLD);
        inner.declined.push(Declined {
            id,
            name: name.to_owned(),
            challenger: declined.by,
            when: now,
        });
        inner.changed(self);
        true
    }

    /// The challenge `by` offers `to` to play game `game` again, if it is
    /// open.
    /// `rematch`, a challenge to play a game again, made: the other
    /// player's own offer of it if there is one (for the asking player to
    /// take), else `rematch` opened; in one step, so that two asking at
    /// once make one game.
    ///
    /// # Errors
    ///
    /// It may not be posted, as [`Lobby::post`] says.
    pub fn rematch(&self, rematch: Challenge) -> Result<Rematch, String> {
        let mut inner = self.lock();
        let theirs = inner.challenges.iter().find(|c| {
            c.rematch_of.is_some()
                && c.rematch_of == rematch.rematch_of
                && rematch.to.as_ref().is_some_and(|(to, _)| *to == c.by)
                && c.to.as_ref().is_some_and(|(to, _)| *to == rematch.by)
        });
        if let Some(theirs) = theirs {
            return Ok(Rematch::Theirs(theirs.id));
        }
        self.post_in(&mut inner, rematch).map(Rematch::Offered)
    }

    /// `taker`, rated `rating`, takes challenge `id`: both players are
    /// engaged in their game (one played at a sitting), and none of their
    /// challenges to such a game is open.
    ///
    /// # Errors
    ///
    /// The taker is playing a rated game (as many correspondence games as
    /// it may, for one of those), no such challenge is open, it is the
    /// taker's own, for another player, or for players of other ratings.
    pub fn take(&self, id: u64, (taker, rating): (PlayerId, f64)) -> Result<Challenge, String> {
        let mut inner = self.lock();
        let challenge = inner
            .challenges
            .iter()
            .find(|c| c.id == id)
            .cloned()
            .ok_or("the challenge is no longer open")?;
        if let Some(busy) =
            inner.refuse_busy(taker, challenge.settings.is_correspondence(), YOU_ARE)
        {
            return Err(busy);
        }
        if challenge.by == taker {
            return Err("a challenge is for another player to take".to_owned());
        }
        if let Some((to, name)) = &challenge.to
            && *to != taker
        {
            return Err(format!("the challenge is for {name}"));
        }
        if !challenge.open_to((taker, rating)) {
            return Err(format!(
                "{} asks for a rating within {:.0} of {:.0}",
                challenge.name,
                challenge.range.unwrap_or_default(),
                challenge.rating
            ));
        }
        let players = [challenge.by, taker];
        if challenge.settings.is_correspondence() {
            // The challenger may have taken up others since it posted it.
            let challenger = format!("{} is", challenge.name);
            if let Some(busy) = inner.refuse_busy(challenge.by, true, &challenger) {
                return Err(busy);
            }
            inner.challenges.retain(|c| c.id != id);
        } else {
            inner.engage(&players, None);
        }
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
        if let Some(busy) = inner.refuse_busy(player, false, YOU_ARE) {
            return Err(busy);
        }
        inner.engage(&[player], None);
        inner.changed(self);
        Ok(())
    }

    /// The rated game `playing`, just begun (or resumed after a restart):
    /// its players are engaged in it (unless it is by correspondence), and
    /// it is listed.
    pub fn begun(&self, mut playing: Playing) {
        let mut inner = self.lock();
        let players = playing.players.each_ref().map(|player| player.id);
        if !playing.settings.is_correspondence() {
            inner.engage(&players, Some(playing.game));
        }
        inner.playing.retain(|listed| listed.game != playing.game);
        playing.watch = std::iter::repeat_with(|| rand::random_range(1..1u64 << 52))
            .find(|watch| inner.playing.iter().all(|listed| listed.watch != *watch))
            .expect("a free number");
        inner.playing.push(playing);
        inner.changed(self);
    }

    /// The rated game being played that is watched by the number `watch`.
    pub fn watched(&self, watch: u64) -> Option<u64> {
        let inner = self.lock();
        let listed = inner.playing.iter().find(|listed| listed.watch == watch);
        listed.map(|listed| listed.game)
    }

    /// The rated games being played, the oldest first, and the lobby's
    /// version.
    pub fn playing(&self) -> (u64, Vec<Playing>) {
        let inner = self.lock();
        (inner.version, inner.playing.clone())
    }

    /// The rated game played at a sitting that `player` plays, once it
    /// began.
    pub fn game_of(&self, player: PlayerId) -> Option<u64> {
        self.lock().engaged.get(&player).copied().flatten()
    }

    /// The correspondence games `player` plays, the oldest first.
    pub fn correspondence_of(&self, player: PlayerId) -> Vec<u64> {
        let inner = self.lock();
        let games = inner.correspondence_games(player);
        games.map(|listed| listed.game).collect()
    }

    /// The rated game of `players` did not begin (then `taken`, the
    /// challenge it was to be, is open again): they are free.
    pub fn release(&self, players: &[PlayerId], taken: Option<Challenge>) {
        let mut inner = self.lock();
        // A correspondence game engaged nobody.
        if taken
            .as_ref()
            .is_none_or(|challenge| !challenge.settings.is_correspondence())
        {
            inner.engaged.retain(|player, _| !players.contains(player));
        }
        inner.challenges.extend(taken);
        inner.changed(self);
    }

    /// The rated game `game` of `players` is over and kept: they are
    /// free of it, and it is no longer listed (a level's other games
    /// are, and a player's game at a sitting beside a correspondence
    /// game goes on).
    pub fn ended(&self, game: u64, players: &[PlayerId]) {
        let mut inner = self.lock();
        inner
            .engaged
            .retain(|player, engaged| !players.contains(player) || *engaged != Some(game));
        inner.playing.retain(|listed| listed.game != game);
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
        let Inner {
            present,
            challenges,
            ..
        } = &mut *inner;
        present.retain(|_, present| asked.saturating_duration_since(present.last_seen) <= PRESENT);
        // A challenge to a player named lapses when it leaves.
        let open = challenges.len();
        challenges.retain(|c| c.to.as_ref().is_none_or(|(to, _)| present.contains_key(to)));
        if news || challenges.len() != open {
            inner.changed(self);
        }
    }

    /// What the lobby shows changed outside it (a correspondence game
    /// moved): its pages ask for it again.
    pub fn news(&self) {
        self.lock().changed(self);
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
        let mut present: Vec<(Present, bool)> = inner
            .present
            .iter()
            .map(|(id, present)| (present.clone(), inner.engaged.contains_key(id)))
            .collect();
        present.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name));
        let now = Instant::now();
        LobbySnapshot {
            version: inner.version,
            challenges: inner
                .challenges
                .iter()
                .filter(|c| c.seen_by(player))
                .cloned()
                .collect(),
            declined: inner
                .declined
                .iter()
                .filter(|told| {
                    told.challenger == player
                        && now.saturating_duration_since(told.when) <= DECLINE_TOLD
                })
                .cloned()
                .collect(),
            present,
            playing: inner.playing.clone(),
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
            to: None,
            rematch_of: None,
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
    fn a_challenge_to_a_player_named_lapses_when_that_player_leaves() {
        let lobby = Lobby::default();
        let (ann, bob) = (PlayerId(1), PlayerId(2));
        let start = Instant::now();
        lobby.arrive((bob, "bob", 1500.0), start);
        lobby
            .post(Challenge {
                to: Some((bob, "bob".to_owned())),
                ..challenge(1)
            })
            .unwrap();
        assert_eq!(lobby.snapshot(bob).challenges.len(), 1);
        let later = start + PRESENT + Duration::from_secs(1);
        lobby.arrive((ann, "ann", 1500.0), later);
        assert!(lobby.snapshot(ann).challenges.is_empty());
        assert!(
            lobby
                .snapshot(ann)
                .present
                .iter()
                .all(|(p, _)| p.name != "bob")
        );
    }

    #[test]
    fn a_correspondence_game_engages_nobody_and_a_player_has_twenty_at_most() {
        use crate::web::core::clock::{ClockKind, DAY, TimeControl};
        let lobby = Lobby::default();
        let (ann, bob) = (PlayerId(1), PlayerId(2));
        let by_post = |by: i64| Challenge {
            settings: Settings {
                clock: Some(TimeControl {
                    kind: ClockKind::Turn,
                    time: 3 * DAY,
                    increment: Duration::ZERO,
                }),
                ..Settings::default()
            },
            ..challenge(by)
        };
        let rated = |id: PlayerId, name: &str| RatedPlayer {
            id,
            name: name.to_owned(),
            rating: 1500.0,
        };
        // Ann plays at a sitting: a correspondence challenge is hers to
        // post and to take all the same, and stays open through it.
        let sitting = lobby.post(challenge(1)).unwrap();
        lobby.take(sitting, (bob, 1500.0)).unwrap();
        let hers = lobby.post(by_post(1)).unwrap();
        let bobs = lobby.post(by_post(2)).unwrap();
        lobby.take(bobs, (ann, 1500.0)).unwrap();
        assert!(lobby.post(challenge(1)).is_err(), "one at a sitting");
        for game in 1..=MAX_CORRESPONDENCE_EACH as u64 {
            lobby.begun(Playing {
                game,
                watch: 0,
                players: [rated(ann, "ann"), rated(PlayerId(10 + game as i64), "x")],
                settings: by_post(1).settings,
            });
        }
        assert_eq!(lobby.game_of(ann), None, "engaged, but in no game yet");
        assert_eq!(lobby.correspondence_of(ann).len(), MAX_CORRESPONDENCE_EACH);
        let refused = lobby.take(hers, (PlayerId(3), 1500.0)).unwrap_err();
        assert!(
            refused.contains("p1 is playing 20 correspondence games"),
            "{refused}"
        );
        assert!(lobby.post(by_post(1)).is_err());
        // A correspondence game over frees nobody of its game at a sitting.
        lobby.begun(Playing {
            game: 100,
            watch: 0,
            players: [rated(ann, "ann"), rated(bob, "bob")],
            settings: Settings::default(),
        });
        lobby.ended(1, &[ann, PlayerId(11)]);
        assert_eq!(lobby.game_of(ann), Some(100));
        assert_eq!(
            lobby.correspondence_of(ann).len(),
            MAX_CORRESPONDENCE_EACH - 1
        );
        assert!(lobby.take(hers, (PlayerId(3), 1500.0)).is_ok());
    }

    #[test]
    fn a_game_against_a_level_over_leaves_the_levels_other_games_listed() {
        let lobby = Lobby::default();
        let level = RatedPlayer {
            id: PlayerId(9),
            name: "morris-easy".to_owned(),
            rating: 1500.0,
        };
        for (game, person) in [(1, 1), (2, 2)] {
            let player = RatedPlayer {
                id: PlayerId(person),
                name: format!("p{person}"),
                rating: 1500.0,
            };
            lobby.reserve(player.id).unwrap();
            lobby.begun(Playing {
                game,
                watch: 0,
                players: [player, level.clone()],
                settings: Settings::default(),
            });
        }
        // The keeper frees both players of the first game, the level too.
        lobby.ended(1, &[PlayerId(1), level.id]);
        let (_, playing) = lobby.playing();
        let games: Vec<u64> = playing.iter().map(|listed| listed.game).collect();
        assert_eq!(games, [2]);
        assert_eq!(lobby.watched(playing[0].watch), Some(2));
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
