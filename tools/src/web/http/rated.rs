//! The HTTP side of rated play: players made and found by their token,
//! the table of ratings, a player's history, and the lobby where rated
//! games are offered (to anyone or to a player named), taken, declined
//! and withdrawn, or begun at once against one of the engine's levels,
//! and a game over played again, colours swapped.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use morris::Color;

use super::game::view;
use super::reply::{Reply, refused};
use super::views::{
    ChallengeView, DeclinedView, GameRefView, LobbyView, MeView, PastGameView, PlayerView,
    PlayingListView, PlayingView, PresentView, ProfileView,
};
use crate::web::core::players::RatedPlayer;
use crate::web::core::requests::{
    self, ChallengeAnswer, ChallengeRequest, PasswordRequest, PlayerRequest, RecoverRequest,
    RematchRequest,
};
use crate::web::core::settings::{EngineSide, Settings, Strength};
use crate::web::game::Games;
use crate::web::game::session::Session;
use crate::web::rated::lobby::{Challenge, Playing, Rematch, level_player_name};
use crate::web::rated::store::{
    Maker, NewPlayer, PASSWORD_LENGTHS, PlayerId, Recovery, Standing, Store, check_name,
};
use crate::web::rated::{MAX_NEW_PLAYERS, NEW_PLAYERS_COUNTED, RECOVERY_TRIES, RatedPlay};

/// Why a request of rated play is not answered as asked: a refusal to
/// send, or the store failing.
enum Unanswered {
    Refused(Reply),
    Store(anyhow::Error),
}

impl From<Reply> for Unanswered {
    fn from(refusal: Reply) -> Unanswered {
        Unanswered::Refused(refusal)
    }
}

impl From<anyhow::Error> for Unanswered {
    fn from(failure: anyhow::Error) -> Unanswered {
        Unanswered::Store(failure)
    }
}

/// The answer of `answer` with rated play: a server that keeps no
/// players refuses, and a store that fails says so.
fn with_rated(
    rated: Option<&RatedPlay>,
    answer: impl FnOnce(&RatedPlay) -> Result<Reply, Unanswered>,
) -> Reply {
    match rated {
        None => no_store(),
        Some(rated) => answered(answer(rated)).unwrap_or_else(|refusal| refusal),
    }
}

/// What was asked, or the refusal to send (a store that fails says so).
fn answered<T>(answer: Result<T, Unanswered>) -> Result<T, Reply> {
    answer.map_err(|unanswered| match unanswered {
        Unanswered::Refused(reply) => reply,
        Unanswered::Store(e) => Reply::error(500, &format!("the store: {e:#}")),
    })
}

/// The answer of a server that keeps no players.
pub(crate) fn no_store() -> Reply {
    Reply::error(503, "this server keeps no players (it has no store)")
}

/// A refusal of `status`, in `words`.
fn refusal(status: u16, words: &str) -> Unanswered {
    Unanswered::Refused(Reply::error(status, words))
}

/// The player whose secret is `token`.
fn signed_in(store: &Store, token: Option<&str>) -> Result<Standing, Unanswered> {
    let Some((id, _)) = store.player_by_token(token.unwrap_or(""))? else {
        return Err(refusal(401, "no player has this token"));
    };
    Ok(store.standing(id)?)
}

/// A request's body.
fn parsed<T: serde::de::DeserializeOwned + Default>(body: &str) -> Result<T, Unanswered> {
    requests::parse(body).map_err(|message| refusal(400, &message))
}

/// A new player: the body's `name`, checked and free, made from `from`
/// (an address makes only so many); its secret token is in this answer
/// alone.
pub(crate) fn new_player(rated: Option<&RatedPlay>, body: &str, from: Option<IpAddr>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let request: PlayerRequest = parsed(body)?;
        let name = request.name.unwrap_or_default();
        let name = name.trim();
        if let Err(message) = check_name(name) {
            return Err(refusal(400, &message));
        }
        // A name taken (or a store failing) makes no player, and counts
        // for nothing.
        let maker = Maker {
            address: from,
            most: MAX_NEW_PLAYERS,
            within: NEW_PLAYERS_COUNTED,
        };
        let (id, token) = match store.add_player_from(name, &maker)? {
            NewPlayer::Made(id, token) => (id, token),
            NewPlayer::NameTaken => {
                return Err(refusal(400, &format!("the name '{name}' is taken")));
            }
            NewPlayer::TooMany => {
                return Err(refusal(
                    429,
                    "too many players made from here: wait an hour",
                ));
            }
        };
        Ok(Reply::json(&PlayerView::new(
            store.standing(id)?,
            Some(token),
        )))
    })
}

/// The player whose secret is `token`.
pub(crate) fn me(rated: Option<&RatedPlay>, token: Option<&str>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let me = signed_in(store, token)?;
        let has_password = store.has_password(me.id)?;
        Ok(Reply::json(&MeView {
            player: PlayerView::new(me, None),
            has_password,
        }))
    })
}

/// The body's player sets its `password`, to take its account back with
/// if its token is lost.
pub(crate) fn set_password(rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let request: PasswordRequest = parsed(body)?;
        let me = signed_in(&rated.store, request.token.as_deref())?;
        let password = request.password.unwrap_or_default();
        if !PASSWORD_LENGTHS.contains(&password.chars().count()) {
            let words = format!(
                "a password has {} to {} characters",
                PASSWORD_LENGTHS.start(),
                PASSWORD_LENGTHS.end()
            );
            return Err(refusal(400, &words));
        }
        rated.store.set_password(me.id, &password)?;
        Ok(Reply::done())
    })
}

/// The player of the body's `name` and `password`, asked `from` an
/// address, taken back: a new token, in this answer alone (its old token
/// is nobody's any more).
pub(crate) fn recover(rated: Option<&RatedPlay>, body: &str, from: Option<IpAddr>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let request: RecoverRequest = parsed(body)?;
        let name = request.name.unwrap_or_default();
        let password = request.password.unwrap_or_default();
        // Fields left empty are a slip, not a guess: not counted as a try.
        if name.trim().is_empty() || password.is_empty() {
            return Err(refusal(400, "give the name and the password"));
        }
        match store.recover((name.trim(), &password), from, &RECOVERY_TRIES)? {
            Recovery::Recovered(id, token) => Ok(Reply::json(&PlayerView::new(
                store.standing(id)?,
                Some(token),
            ))),
            Recovery::Wrong => Err(refusal(401, "the name or the password is wrong")),
            Recovery::TooMany => Err(refusal(
                429,
                "too many tries failed lately: wait a quarter of an hour",
            )),
        }
    })
}

/// The players of the highest ratings, the highest first.
pub(crate) fn table(rated: Option<&RatedPlay>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let views: Vec<PlayerView> = store
            .table()?
            .into_iter()
            .map(|standing| PlayerView::new(standing, None))
            .collect();
        Ok(Reply::json(&views))
    })
}

/// The player named `name`.
fn named(store: &Store, name: Option<&str>) -> Result<PlayerId, Unanswered> {
    let name = name.unwrap_or("");
    store
        .player(name)?
        .ok_or_else(|| refusal(404, &format!("no player is named '{name}'")))
}

/// The latest games of the player named `name`, with their records.
pub(crate) fn history(rated: Option<&RatedPlay>, name: Option<&str>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let id = named(store, name)?;
        let views: Vec<PastGameView> = store.history(id)?.into_iter().map(Into::into).collect();
        Ok(Reply::json(&views))
    })
}

/// A rated game being played, watched by the number `watch` (as the lobby
/// lists it): its own number and the game.
pub(crate) fn watched_game(
    games: &Games,
    rated: Option<&RatedPlay>,
    watch: Option<&str>,
) -> Result<(u64, u64, Arc<Session>), Reply> {
    let Some(rated) = rated else {
        return Err(no_store());
    };
    let found = || {
        let watch = watch?.parse::<u64>().ok()?;
        let id = rated.lobby.watched(watch)?;
        Some((watch, id, games.get(id)?))
    };
    found().ok_or_else(|| Reply::error(404, "no rated game being played has this number"))
}

/// The page of the player named `name`.
pub(crate) fn profile(rated: Option<&RatedPlay>, name: Option<&str>) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let id = named(store, name)?;
        let level = rated.levels.iter().any(|&(_, level)| level == id);
        let view = ProfileView::new(
            store.standing(id)?,
            level,
            store.profile(id)?,
            store.history(id)?,
        );
        Ok(Reply::json(&view))
    })
}

/// The player whose secret is `token` comes into the lobby at `asked`:
/// its number, to wait for the lobby's news (or the refusal).
pub(crate) fn enter_lobby(
    rated: &RatedPlay,
    token: Option<&str>,
    asked: Instant,
) -> Result<PlayerId, Reply> {
    let entered = || {
        let me = signed_in(&rated.store, token)?;
        let seen = (me.id, me.name.as_str(), me.rating.rating);
        rated.lobby.arrive(seen, asked);
        Ok(me.id)
    };
    answered(entered())
}

/// The lobby as player `me` sees it now.
pub(crate) fn lobby(games: &Games, rated: Option<&RatedPlay>, me: PlayerId) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let lobby = rated.lobby.snapshot(me);
        // Read after the wait: a game may have ended meanwhile.
        let me = store.standing(me)?;
        let levels = rated
            .levels
            .iter()
            .map(|&(_, id)| Ok(PlayerView::new(store.standing(id)?, None)))
            .collect::<anyhow::Result<_>>()?;
        let view = LobbyView {
            version: lobby.version,
            challenges: lobby
                .challenges
                .iter()
                .map(|challenge| ChallengeView::new(challenge, (me.id, me.rating.rating)))
                .collect(),
            declined: lobby
                .declined
                .into_iter()
                .map(|declined| DeclinedView {
                    id: declined.id,
                    name: declined.name,
                })
                .collect(),
            present: lobby
                .present
                .into_iter()
                .map(|(present, playing)| PresentView {
                    name: present.name,
                    rating: present.rating,
                    playing,
                })
                .collect(),
            playing: playing_views(games, &lobby.playing),
            game: rated.game_of(games, me.id).map(|(id, seat)| GameRefView {
                id: id.to_string(),
                seat,
            }),
            correspondence: rated
                .correspondence_of(games, me.id)
                .into_iter()
                .map(Into::into)
                .collect(),
            me: PlayerView::new(me, None),
            levels,
        };
        Ok(Reply::json(&view))
    })
}

/// The views of the rated games `playing`, each with its spectators.
fn playing_views(games: &Games, playing: &[Playing]) -> Vec<PlayingView> {
    playing
        .iter()
        .map(|game| {
            let spectators = games
                .get(game.game)
                .map_or(0, |session| session.spectators());
            PlayingView::new(game, spectators)
        })
        .collect()
}

/// The rated games being played, for anyone to watch.
pub(crate) fn playing(games: &Games, rated: Option<&RatedPlay>) -> Reply {
    with_rated(rated, |rated| {
        let (version, playing) = rated.lobby.playing();
        Ok(Reply::json(&PlayingListView {
            version,
            playing: playing_views(games, &playing),
        }))
    })
}

/// A rated game offered by the body's player: a challenge opened in the
/// lobby; with `opponent`, a player's name, a challenge to that player
/// alone, or a level's, a game begun at once against that level.
pub(crate) fn challenge(games: &Games, rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let request: ChallengeRequest = parsed(body)?;
        let me = signed_in(store, request.token.as_deref())?;
        let settings = request
            .settings()
            .map_err(|message| refusal(400, &message))?;
        let side = request.side().map_err(|message| refusal(400, &message))?;
        let range = request.range().map_err(|message| refusal(400, &message))?;
        let to = match request.opponent.as_deref() {
            None => None,
            Some(opponent) => {
                if let Some(&level) = rated.levels.iter().find(|(level, _)| {
                    level.name() == opponent || level_player_name(*level) == opponent
                }) {
                    if settings.is_correspondence() {
                        let sitting =
                            "the engine's levels play at a sitting, not by correspondence";
                        return Err(refusal(400, sitting));
                    }
                    let side = side.unwrap_or_else(requests::random_side);
                    return play_level(games, rated, me, level, (side, settings));
                }
                let Some(id) = store.player(opponent)? else {
                    let unknown = format!("no player or level is named '{opponent}'");
                    return Err(refusal(404, &unknown));
                };
                if range.is_some() {
                    let ranged = "a challenge to a player named has no rating range";
                    return Err(refusal(400, ranged));
                }
                Some((id, store.standing(id)?.name))
            }
        };
        let posted = rated.lobby.post(Challenge {
            id: 0,
            by: me.id,
            name: me.name.clone(),
            rating: me.rating.rating,
            settings,
            side,
            range,
            to,
            rematch_of: None,
        });
        posted.map_err(|message| refusal(409, &message))?;
        Ok(Reply::done())
    })
}

/// A rated game of `me`, playing `side`, against the engine's `level`
/// under `settings`, begun at once: its state.
fn play_level(
    games: &Games,
    rated: &RatedPlay,
    me: Standing,
    (level, level_id): (Strength, PlayerId),
    (side, settings): (Color, Settings),
) -> Result<Reply, Unanswered> {
    let engine_side = match side {
        Color::White => EngineSide::Black,
        Color::Black => EngineSide::White,
    };
    let settings = Settings {
        engine_side,
        strength: level,
        ..settings
    };
    rated
        .lobby
        .reserve(me.id)
        .map_err(|message| refusal(409, &message))?;
    let player = me.id;
    let started = rated.store.standing(level_id).map(|level| {
        let mut players = [RatedPlayer::from(me), RatedPlayer::from(level)];
        if side == Color::Black {
            players.swap(0, 1);
        }
        rated.start(games, players, settings)
    });
    if !matches!(started, Ok(Ok(_))) {
        rated.lobby.release(&[player], None);
    }
    let (id, session) = started?.map_err(|not_begun| refused(&not_begun))?;
    Ok(Reply::json(&view(games, id, &session, |_| None)))
}

/// The body's player withdraws its `challenge`.
pub(crate) fn withdraw(rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let store = &rated.store;
        let answer: ChallengeAnswer = parsed(body)?;
        let me = signed_in(store, answer.token.as_deref())?;
        let withdrawn = rated.lobby.withdraw(answer.challenge, me.id);
        if !withdrawn {
            return Err(refusal(404, "you have no such challenge open"));
        }
        Ok(Reply::done())
    })
}

/// The body's player declines a `challenge` made to it: its challenger
/// is told.
pub(crate) fn decline(rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let answer: ChallengeAnswer = parsed(body)?;
        let me = signed_in(&rated.store, answer.token.as_deref())?;
        if !rated.lobby.decline(answer.challenge, (me.id, &me.name)) {
            return Err(refusal(404, "no such challenge to you is open"));
        }
        Ok(Reply::done())
    })
}

/// The body's player takes a `challenge`: their rated game begins in a
/// room, the player sat down in it (the challenger finds it in the lobby).
pub(crate) fn accept(games: &Games, rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let answer: ChallengeAnswer = parsed(body)?;
        let me = signed_in(&rated.store, answer.token.as_deref())?;
        take(games, rated, me, answer.challenge)
    })
}

/// `me` takes the challenge `id`: the state of the game begun, with the
/// token of `me`'s seat.
fn take(games: &Games, rated: &RatedPlay, me: Standing, id: u64) -> Result<Reply, Unanswered> {
    let taker = (me.id, me.rating.rating);
    let challenge = rated
        .lobby
        .take(id, taker)
        .map_err(|message| refusal(409, &message))?;
    let challenger_side = challenge.side.unwrap_or_else(requests::random_side);
    let my_side = challenger_side.opponent();
    let both = [challenge.by, me.id];
    let started = rated.store.standing(challenge.by).map(|challenger| {
        let mut players = [RatedPlayer::from(challenger), RatedPlayer::from(me)];
        if challenger_side == Color::Black {
            players.swap(0, 1);
        }
        rated.start(games, players, challenge.settings)
    });
    // A game that does not begin leaves the challenge open again.
    if !matches!(started, Ok(Ok(_))) {
        rated.lobby.release(&both, Some(challenge));
    }
    let (id, session) = started?.map_err(|not_begun| refused(&not_begun))?;
    let seat = session
        .lock()
        .room
        .as_ref()
        .and_then(|room| room.token_of(my_side))
        .map(str::to_owned)
        .unwrap_or_default();
    let view = view(games, id, &session, |_| Some(my_side));
    Ok(Reply::json(&view.with_seat(seat)))
}

/// The body's player asks to play its rated `game`, over and kept, again
/// with the colours swapped: against a level, begun at once; against a
/// person, the person's own offer of it taken if there is one, or else
/// offered to the person.
pub(crate) fn rematch(games: &Games, rated: Option<&RatedPlay>, body: &str) -> Reply {
    with_rated(rated, |rated| {
        let request: RematchRequest = parsed(body)?;
        let me = signed_in(&rated.store, request.token.as_deref())?;
        let found = request.game.parse::<u64>().ok();
        let Some((game, session)) = found.and_then(|id| Some((id, games.get(id)?))) else {
            return Err(refusal(404, "the game is no longer open"));
        };
        let (players, settings, kept) = {
            let state = session.lock();
            let Some(players) = state.rated.clone() else {
                return Err(refusal(400, "only a rated game has a rematch"));
            };
            (
                players,
                state.settings,
                state.ended().is_some() && !state.is_rated_unkept(),
            )
        };
        let Some(my_old_side) = players.side_of(me.id) else {
            return Err(refusal(403, "you did not play this game"));
        };
        if !kept {
            let unkept = "the game is not over, or its result is still being kept";
            return Err(refusal(409, unkept));
        }
        let side = my_old_side.opponent();
        let opponent = players.player(side).id;
        let settings = Settings {
            engine_side: EngineSide::Neither,
            ..settings
        };
        if let Some(&level) = rated.levels.iter().find(|(_, id)| *id == opponent) {
            return play_level(games, rated, me, level, (side, settings));
        }
        let asked = rated.lobby.rematch(Challenge {
            id: 0,
            by: me.id,
            name: me.name.clone(),
            rating: me.rating.rating,
            settings,
            side: Some(side),
            range: None,
            to: Some((opponent, players.player(side).name.clone())),
            rematch_of: Some(game),
        });
        match asked.map_err(|message| refusal(409, &message))? {
            Rematch::Theirs(offered) => take(games, rated, me, offered),
            Rematch::Offered(_) => Ok(Reply::done()),
        }
    })
}
