//! Rated play: the players and their ratings in the store, the lobby
//! where rated games are offered and taken, the engine's levels as
//! standing players, and the keeper that writes every rated game; rated
//! games are begun, and resumed after a restart, here.

pub mod keeper;
pub mod lobby;
pub mod store;

use std::sync::Arc;
use std::time::{Duration, Instant};

use self::keeper::Keeper;
use self::lobby::{Lobby, Playing, level_player_name};
use self::store::{LiveGame, Store};
use crate::web::core::actions;
use crate::web::core::players::{PlayerId, RatedPlayer, RatedPlayers};
use crate::web::core::record;
use crate::web::core::requests;
use crate::web::core::room::Room;
use crate::web::core::settings::{EngineSide, Settings, Strength};
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
        for live in self.store.live_games()? {
            // A game this build cannot take up again is left in the store,
            // said, for a build that can: the server serves the others.
            if let Err(e) = self.resume(games, &live) {
                eprintln!("morris-web: rated game {} not resumed: {e:#}", live.id);
            }
        }
        Ok(())
    }

    /// Resumes the rated game in progress `live`, its players engaged in
    /// it.
    fn resume(&self, games: &Games, live: &LiveGame) -> anyhow::Result<()> {
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
        let left = live.left.map(|left| left.map(Duration::from_millis));
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

    /// The rated game `player` is playing, if any: its id, and the token of
    /// the player's seat if it is a room's.
    pub(crate) fn game_of(&self, games: &Games, player: PlayerId) -> Option<(u64, Option<String>)> {
        let id = self.lobby.game_of(player)?;
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
        Some((id, seat))
    }
}
