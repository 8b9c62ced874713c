//! Rated play: the players and their ratings in the store, the lobby
//! where rated games are offered and taken, the engine's levels as
//! standing players, and the keeper that writes every rated game; rated
//! games are begun, and resumed after a restart, here.

pub mod keeper;
pub mod lobby;
pub mod store;

use std::sync::Arc;

use morris::Color;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use self::keeper::Keeper;
use self::lobby::{Lobby, Playing, level_player_name};
use self::store::{LiveGame, Store, TimesLeft};
use crate::web::core::actions;
use crate::web::core::players::{PlayerId, RatedPlayer, RatedPlayers};
use crate::web::core::record;
use crate::web::core::requests;
use crate::web::core::room::Room;
use crate::web::core::settings::{EngineSide, Settings, Strength};
use crate::web::core::state::State;
use crate::web::game::fair_play::FairPlay;
use crate::web::game::session::Session;
use crate::web::game::{Games, Refusal};

/// The most players an address may make within [`NEW_PLAYERS_COUNTED`].
pub(crate) const MAX_NEW_PLAYERS: u32 = 5;

/// How long the players an address made are counted.
pub(crate) const NEW_PLAYERS_COUNTED: Duration = Duration::from_secs(3600);

/// How many tries to take an account back by its password may fail, for
/// one player and from one address, within a quarter of an hour.
pub(crate) const RECOVERY_TRIES: store::Tries = store::Tries {
    each_player: 5,
    each_address: 20,
    within: Duration::from_secs(900),
};

/// The server's rated play.
pub struct RatedPlay {
    /// The players and their games.
    pub(crate) store: Arc<Store>,
    /// The open challenges and the players there (told by the keeper
    /// when a game ends).
    pub(crate) lobby: Arc<Lobby>,
    /// The engine's levels, standing players in the store.
    pub(crate) levels: Vec<(Strength, PlayerId)>,
    /// Writes every rated game, and tells fair play where each stands.
    pub(crate) keeper: Arc<Keeper>,
}

impl RatedPlay {
    /// Rated play kept in `store`, its games' positions told to
    /// `fair_play`; the levels are set in the store at their ratings.
    ///
    /// # Errors
    ///
    /// The store failed.
    pub fn open(store: Store, fair_play: Arc<FairPlay>) -> anyhow::Result<RatedPlay> {
        let store = Arc::new(store);
        let levels = Strength::NAMED
            .into_iter()
            .map(|level| {
                let name = level_player_name(level);
                Ok((level, store.standing_player(&name, level.rating())?))
            })
            .collect::<anyhow::Result<_>>()?;
        let lobby: Arc<Lobby> = Arc::default();
        let keeper = Arc::new(Keeper::start(
            Arc::clone(&store),
            Arc::clone(&lobby),
            fair_play,
        ));
        Ok(RatedPlay {
            store,
            lobby,
            levels,
            keeper,
        })
    }

    /// A rated game between `players` (White's first, both engaged in it
    /// in the lobby) under `settings`: a room for two people, or, where the
    /// settings give the engine a side, a game against it.
    pub(crate) fn start(
        &self,
        games: &Games,
        players: [RatedPlayer; 2],
        settings: Settings,
    ) -> Result<(u64, Arc<Session>), Refusal> {
        let store = &self.store;
        let against_engine = settings.engine_side != EngineSide::Neither;
        let engine = against_engine.then(|| games.engine());
        let mut code = None;
        let (id, session) = games.open_game(engine, settings, |open| {
            if against_engine {
                return None;
            }
            let free = open.free_code();
            code = Some(free.clone());
            Some(Room::for_two(free, Instant::now()).0)
        })?;
        let begun = LiveGame {
            id,
            white: players[0].id,
            black: players[1].id,
            room: code,
            settings: requests::settings_request(&settings),
            moves: String::new(),
            left: keeper::time_left(&session.lock()),
        };
        if let Err(e) = store.begin_live(&begun) {
            games.close(id);
            return Err(Refusal::Store(format!("{e:#}")));
        }
        let playing = Playing {
            game: id,
            watch: 0,
            players: players.clone(),
            settings,
        };
        let _ = session.change(|state| {
            state.rated = Some(RatedPlayers::new(players));
            Ok(())
        });
        self.lobby.begun(playing);
        Ok((id, session))
    }

    /// Resumes the rated games in progress that the store holds (after a
    /// restart): each under its id, its moves played, its clock at the
    /// times it had after the last of them. A room's seats have new
    /// tokens, which its players have from the lobby.
    pub(crate) fn resume_all(&self, games: &Games) -> anyhow::Result<()> {
        let now = SystemTime::now();
        for live in self.store.live_games()? {
            // A game this build cannot take up again is left in the store,
            // said, for a build that can: the server serves the others.
            if let Err(e) = self.resume(games, &live, now) {
                eprintln!("morris-web: rated game {} not resumed: {e:#}", live.id);
            }
        }
        Ok(())
    }

    /// Resumes the rated game in progress `live` at `now`, its players
    /// engaged in it.
    fn resume(&self, games: &Games, live: &LiveGame, now: SystemTime) -> anyhow::Result<()> {
        let store = &self.store;
        let settings = requests::parse::<requests::SettingsRequest>(&live.settings)
            .and_then(|request| request.apply(Settings::default()))
            .map_err(anyhow::Error::msg)?;
        let game = record::game_from(&live.moves, settings.rules).map_err(anyhow::Error::msg)?;
        let players = [
            RatedPlayer::from(store.standing(live.white)?),
            RatedPlayer::from(store.standing(live.black)?),
        ];
        let engine = (settings.engine_side != EngineSide::Neither).then(|| games.engine());
        let room = live
            .room
            .clone()
            .map(|code| Room::for_two(code, Instant::now()).0);
        let (id, session) = games
            .open_game_as(Some(live.id), engine, settings, |_| room)
            .map_err(|refusal| anyhow::anyhow!("{refusal:?}"))?;
        let to_move = game.position().side_to_move();
        let correspondence = settings.is_correspondence();
        let left = live
            .left
            .map(|left| left_on_resume(left, to_move, correspondence, now));
        self.lobby.begun(Playing {
            game: id,
            watch: 0,
            players: players.clone(),
            settings,
        });
        let _ = session.change(|state| {
            actions::resume(state, game, left);
            state.rated = Some(RatedPlayers::new(players));
            Ok(())
        });
        Ok(())
    }

    /// The rated game played at a sitting that `player` is playing, if
    /// any: its id, and the token of the player's seat if it is a room's.
    pub(crate) fn game_of(&self, games: &Games, player: PlayerId) -> Option<(u64, Option<String>)> {
        let id = self.lobby.game_of(player)?;
        in_play(games, id, player, |_, _, seat| (id, seat))
    }

    /// The correspondence games `player` is playing, the oldest first.
    pub(crate) fn correspondence_of(&self, games: &Games, player: PlayerId) -> Vec<Correspondence> {
        let now = Instant::now();
        let games_of = self.lobby.correspondence_of(player).into_iter();
        games_of
            .filter_map(|id| {
                in_play(games, id, player, |state, side, seat| {
                    let rated = state.rated.as_ref().expect("a rated game");
                    let turn = state.game.position().side_to_move();
                    Correspondence {
                        id,
                        seat,
                        side,
                        opponent: rated.player(side.opponent()).name.clone(),
                        to_move: turn,
                        left: state.clock.map(|clock| clock.left(turn, now)),
                    }
                })
            })
            .collect()
    }
}

/// Each side's time left when a game kept with the times `left`, `to_move`
/// to move, is resumed at `now`. A correspondence game's clock ran on by
/// the calendar while the server was down (days a move are not lost to a
/// restart's minutes); a game at a sitting takes up where it stood, the
/// time the server was away not its players'.
fn left_on_resume(
    left: TimesLeft,
    to_move: Color,
    correspondence: bool,
    now: SystemTime,
) -> [Duration; 2] {
    let mut times = left.ms.map(Duration::from_millis);
    if correspondence && let Some(at) = left.at {
        let since = now
            .duration_since(UNIX_EPOCH + Duration::from_millis(at))
            .unwrap_or_default();
        let running = &mut times[to_move.index()];
        *running = running.saturating_sub(since);
    }
    times
}

/// A correspondence game of a player's, as its list shows it.
pub(crate) struct Correspondence {
    /// The game's id.
    pub(crate) id: u64,
    /// The token of the player's seat.
    pub(crate) seat: Option<String>,
    /// The side the player plays.
    pub(crate) side: Color,
    /// The other player's name.
    pub(crate) opponent: String,
    /// The side to move.
    pub(crate) to_move: Color,
    /// Its time left now.
    pub(crate) left: Option<Duration>,
}

/// What `read` makes of the rated game `id`, in play, with `player`'s
/// side in it and the token of its seat if it is a room's.
fn in_play<T>(
    games: &Games,
    id: u64,
    player: PlayerId,
    read: impl FnOnce(&State, Color, Option<String>) -> T,
) -> Option<T> {
    let session = games.get(id)?;
    let state = session.lock();
    if !state.is_rated_in_play() {
        return None;
    }
    let side = state.rated.as_ref()?.side_of(player)?;
    let seat = state
        .room
        .as_ref()
        .and_then(|room| room.token_of(side))
        .map(str::to_owned);
    Some(read(&state, side, seat))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn a_correspondence_clock_runs_on_by_the_calendar_while_the_server_is_down() {
        let kept_at = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let three_days = 72 * HOUR;
        let left = TimesLeft {
            ms: [three_days, three_days].map(|time| time.as_millis() as u64),
            at: Some(1_800_000_000_000),
        };
        // Resumed the next day: Black, to move, has a day less.
        let next_day = kept_at + 24 * HOUR;
        assert_eq!(
            left_on_resume(left, Color::Black, true, next_day),
            [three_days, 48 * HOUR]
        );
        // Resumed after its time: none is left, and the clock ends it.
        let too_late = kept_at + 80 * HOUR;
        assert_eq!(
            left_on_resume(left, Color::White, true, too_late),
            [Duration::ZERO, three_days]
        );
        // A game at a sitting takes up where it stood.
        let sitting = TimesLeft {
            ms: [180_000, 95_500],
            at: Some(1_800_000_000_000),
        };
        assert_eq!(
            left_on_resume(sitting, Color::White, false, next_day),
            [Duration::from_secs(180), Duration::from_millis(95_500)]
        );
        // A time kept by an older build, or read before the time it was
        // kept (the machine's clock set back), takes nothing.
        let unknown = TimesLeft { at: None, ..left };
        assert_eq!(
            left_on_resume(unknown, Color::White, true, next_day),
            [three_days; 2]
        );
        assert_eq!(
            left_on_resume(left, Color::White, true, kept_at - HOUR),
            [three_days; 2]
        );
    }
}
