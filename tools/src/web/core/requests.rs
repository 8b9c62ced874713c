//! The JSON bodies of the page's requests, as structs: a new game's or
//! other settings, a game resumed, a room opened, a room joined. Each
//! field is optional (an empty body is every field's absence); a body
//! that is no JSON object, or a field of the wrong type, is refused as a
//! bad request.

use std::fmt;
use std::time::Duration;

use morris::{Color, FullBoard, Rules, Variant};
use serde::de::{self, DeserializeOwned, IgnoredAny, Visitor};
use serde::{Deserialize, Deserializer};

use crate::web::core::clock::{ClockKind, DAY, MAX_CORRESPONDENCE_DAYS, TimeControl};
use crate::web::core::settings::{EngineSide, Settings, Strength};

/// The longest clock a game may have: a correspondence game's.
const MAX_CLOCK: Duration = DAY.saturating_mul(MAX_CORRESPONDENCE_DAYS);

/// The longest clock a rated game played at one sitting may have.
const MAX_RATED_CLOCK: Duration = Duration::from_secs(3600);

/// The most time a rated game's clock may give back a move.
const MAX_RATED_INCREMENT: Duration = Duration::from_secs(60);

/// The widest range of ratings a challenge may ask its taker to be in.
const MAX_RANGE: f64 = 1000.0;

/// The request of a body: an empty body is the request with no field.
///
/// # Errors
///
/// `bad request: ...`: the body is not JSON, not a JSON object, or a
/// field has the wrong type.
pub(crate) fn parse<T: DeserializeOwned + Default>(body: &str) -> Result<T, String> {
    if body.trim().is_empty() {
        return Ok(T::default());
    }
    let bad = |e: serde_json::Error| format!("bad request: {e}");
    // A struct would take a JSON array too, its fields in order.
    if !body.trim_start().starts_with('{') {
        serde_json::from_str::<IgnoredAny>(body).map_err(bad)?;
        return Err("bad request: not a JSON object".to_owned());
    }
    serde_json::from_str(body).map_err(bad)
}

/// A field that may be `null` as well as absent: `Some(None)` for
/// `null`, `None` (by `#[serde(default)]`) for absent.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The settings of a body: `variant`, `nMoveRule` (moves each without a
/// removal that draw, 0 for none), `flying` (`true` or `false`),
/// `fullBoard` (`draw` or `whiteloses`: a board twelve's placing fills),
/// `engine`
/// (`none`, `white`, `black`, `both`), `level` (`easy`, `medium`,
/// `hard`, `full` or a Skill Level, 0 to 20, as a string or a number),
/// `movetime` (ms), `clock` (`null`, or `{"kind": "turn" or "game",
/// "seconds": N, "increment": N}`, the increment a game clock's only),
/// `training` (`true` or `false`).
/// A field absent (or `null`, but for the clock and the level) keeps the
/// setting.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SettingsRequest {
    variant: Option<String>,
    n_move_rule: Option<u64>,
    flying: Option<bool>,
    full_board: Option<String>,
    engine: Option<String>,
    /// Absent keeps the level; `null` is no level, and refused.
    #[serde(default, deserialize_with = "present")]
    level: Option<Level>,
    movetime: Option<u64>,
    /// Absent, `null` (no clock) or a clock.
    #[serde(default, deserialize_with = "present")]
    clock: Option<Option<ClockRequest>>,
    training: Option<bool>,
}

/// A level as the page names it: a name or a Skill Level, as a string or
/// a number.
#[derive(Debug, PartialEq, Eq)]
enum Level {
    Name(String),
    Number(u64),
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Level::Name(name) => f.write_str(name),
            Level::Number(number) => number.fmt(f),
        }
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        struct LevelVisitor;
        impl Visitor<'_> for LevelVisitor {
            type Value = Level;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a level: easy, medium, hard, full or a Skill Level number")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Level, E> {
                Ok(Level::Name(name.to_owned()))
            }
            fn visit_u64<E: de::Error>(self, number: u64) -> Result<Level, E> {
                Ok(Level::Number(number))
            }
        }
        d.deserialize_any(LevelVisitor)
    }
}

/// A clock: `{"kind": "turn" or "game", "seconds": N, "increment": N}`.
#[derive(Debug, Deserialize)]
struct ClockRequest {
    kind: Option<String>,
    seconds: Option<f64>,
    increment: Option<f64>,
}

impl SettingsRequest {
    /// `base` with the settings the request gives.
    ///
    /// # Errors
    ///
    /// A name is unknown, the N-move rule out of its range, a clock has
    /// no seconds, or a turn clock an increment.
    pub(crate) fn apply(&self, base: Settings) -> Result<Settings, String> {
        let mut settings = base;
        if let Some(variant) = &self.variant {
            settings.rules.variant = variant
                .parse::<Variant>()
                .map_err(|_| format!("unknown variant '{variant}'"))?;
        }
        if let Some(moves) = self.n_move_rule {
            settings.rules.n_move_rule = u16::try_from(moves)
                .ok()
                .filter(|&n| n <= Rules::MAX_N_MOVE_RULE)
                .ok_or_else(|| {
                    format!(
                        "the N-move rule is 0 (none) to {} moves each, not {moves}",
                        Rules::MAX_N_MOVE_RULE
                    )
                })?;
        }
        if let Some(flying) = self.flying {
            settings.rules.flying = flying;
        }
        if let Some(rule) = &self.full_board {
            settings.rules.full_board = rule
                .parse::<FullBoard>()
                .map_err(|_| format!("unknown full-board rule '{rule}' (draw, whiteloses)"))?;
        }
        if let Some(training) = self.training {
            settings.training = training;
        }
        if let Some(side) = &self.engine {
            settings.engine_side = EngineSide::from_name(side)
                .ok_or_else(|| format!("unknown engine side '{side}'"))?;
        }
        if let Some(level) = &self.level {
            settings.strength = Strength::from_name(&level.to_string())
                .ok_or_else(|| format!("unknown level '{level}'"))?;
        }
        if let Some(ms) = self.movetime {
            settings.movetime = Duration::from_millis(ms.clamp(10, 600_000));
        }
        match &self.clock {
            None => {}
            Some(None) => settings.clock = None,
            Some(Some(clock)) => {
                let kind = clock.kind.as_deref().unwrap_or("");
                let kind = ClockKind::from_name(kind)
                    .ok_or_else(|| format!("unknown clock '{kind}': turn or game"))?;
                let seconds = clock
                    .seconds
                    .filter(|s| *s > 0.0)
                    .ok_or("a clock needs its seconds")?;
                let increment = clock.increment.unwrap_or(0.0);
                if increment < 0.0 {
                    return Err("a clock's increment is a number of seconds".to_owned());
                }
                if increment > 0.0 && kind == ClockKind::Turn {
                    return Err(
                        "an increment is for a game clock: a turn clock gives each turn its whole time"
                            .to_owned(),
                    );
                }
                let capped = |s: f64| Duration::from_secs_f64(s.min(MAX_CLOCK.as_secs_f64()));
                settings.clock = Some(TimeControl {
                    kind,
                    time: capped(seconds),
                    increment: capped(increment),
                });
            }
        }
        Ok(settings)
    }
}

/// A new game: its settings, and with `start` (a position string),
/// `moves` (a list of moves), `clockLeft` (`{"white": MS, "black": MS}`)
/// and `setUp` (whether it was set up) too, a game resumed where it was
/// left.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewGameRequest {
    #[serde(flatten)]
    pub(crate) settings: SettingsRequest,
    pub(crate) start: Option<String>,
    pub(crate) moves: Option<Vec<String>>,
    clock_left: Option<ClockLeft>,
    set_up: Option<bool>,
}

/// The time each side had left, in milliseconds (none given: none left).
#[derive(Debug, Default, Deserialize)]
struct ClockLeft {
    #[serde(default)]
    white: u64,
    #[serde(default)]
    black: u64,
}

impl NewGameRequest {
    /// The time each side has left (White's, Black's), if given.
    pub(crate) fn clock_left(&self) -> Option<[Duration; 2]> {
        let left = self.clock_left.as_ref()?;
        let ms = |ms: u64| Duration::from_millis(ms).min(MAX_CLOCK);
        Some([ms(left.white), ms(left.black)])
    }

    /// Whether the game was set up rather than played from the start.
    pub(crate) fn set_up(&self) -> bool {
        self.set_up == Some(true)
    }
}

/// A new room: its settings and `color`, its creator's side (`white`,
/// `black` or `random`, the default).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RoomRequest {
    #[serde(flatten)]
    pub(crate) settings: SettingsRequest,
    color: Option<String>,
}

impl RoomRequest {
    /// The creator's side, drawn if random.
    ///
    /// # Errors
    ///
    /// The colour is unknown.
    pub(crate) fn color(&self) -> Result<Color, String> {
        Ok(side_chosen(self.color.as_deref())?.unwrap_or_else(random_side))
    }
}

/// A side drawn at random.
pub(crate) fn random_side() -> Color {
    if rand::random::<bool>() {
        Color::White
    } else {
        Color::Black
    }
}

/// The side a player chose by `name` (`white`, `black`, or `random`, the
/// default); `None` for random.
fn side_chosen(name: Option<&str>) -> Result<Option<Color>, String> {
    match name.unwrap_or("random") {
        "white" => Ok(Some(Color::White)),
        "black" => Ok(Some(Color::Black)),
        "random" => Ok(None),
        other => Err(format!("unknown colour '{other}': white, black or random")),
    }
}

/// A rated game offered: the player's `token`, its settings (the
/// variant, the rules and the clock: a rated game has one), `color`, the
/// side it takes (`white`, `black` or `random`, the default), and
/// `opponent`, one of the engine's levels to play at once, a player to
/// challenge alone, or none to open a challenge in the lobby, which
/// `range`, if it is given, opens only to players rated within so much of
/// the challenger.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChallengeRequest {
    #[serde(flatten)]
    settings: SettingsRequest,
    pub(crate) token: Option<String>,
    color: Option<String>,
    pub(crate) opponent: Option<String>,
    range: Option<f64>,
}

impl ChallengeRequest {
    /// The game's settings: the variant, rules and clock asked, between
    /// two people at full strength, with no training.
    ///
    /// # Errors
    ///
    /// A setting is refused, or there is no clock: a rated game ends on
    /// time when a player is gone.
    pub(crate) fn settings(&self) -> Result<Settings, String> {
        let asked = self.settings.apply(Settings::default())?;
        let Some(clock) = asked.clock else {
            return Err("a rated game has a clock".to_owned());
        };
        // A rated game in play holds its place on the server until its
        // clock ends it: within the hour at a sitting, or within days a
        // move by correspondence.
        let sitting = clock.time <= MAX_RATED_CLOCK && clock.increment <= MAX_RATED_INCREMENT;
        if !sitting && !clock.is_correspondence() {
            return Err(format!(
                "a rated game's clock is at most {} minutes, and {} seconds more a move, or 1 to {MAX_CORRESPONDENCE_DAYS} whole days a move",
                MAX_RATED_CLOCK.as_secs() / 60,
                MAX_RATED_INCREMENT.as_secs()
            ));
        }
        Ok(Settings {
            rules: asked.rules,
            clock: asked.clock,
            engine_side: EngineSide::Neither,
            training: false,
            ..Settings::default()
        })
    }

    /// How far from the challenger's rating a taker's may be; `None`:
    /// anyone's.
    ///
    /// # Errors
    ///
    /// The range is outside 1 to [`MAX_RANGE`] points.
    pub(crate) fn range(&self) -> Result<Option<f64>, String> {
        match self.range {
            Some(range) if !(1.0..=MAX_RANGE).contains(&range) => Err(format!(
                "a rating range is 1 to {MAX_RANGE} points, or none"
            )),
            range => Ok(range),
        }
    }

    /// The challenger's side; `None`: drawn when the challenge is taken.
    ///
    /// # Errors
    ///
    /// The colour is unknown.
    pub(crate) fn side(&self) -> Result<Option<Color>, String> {
        side_chosen(self.color.as_deref())
    }
}

/// A rated game over, asked to be played again: the player's `token`,
/// and the `game`'s number.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RematchRequest {
    pub(crate) token: Option<String>,
    pub(crate) game: String,
}

/// A challenge taken, declined or withdrawn: the player's `token`, and
/// the `challenge`'s number.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChallengeAnswer {
    pub(crate) token: Option<String>,
    pub(crate) challenge: u64,
}

/// `settings` as the request that gives them, for the store to keep.
pub(crate) fn settings_request(settings: &Settings) -> String {
    let clock = settings.clock.map(|control| {
        serde_json::json!({
            "kind": control.kind.name(),
            "seconds": control.time.as_secs_f64(),
            "increment": control.increment.as_secs_f64(),
        })
    });
    serde_json::json!({
        "variant": settings.rules.variant.to_string(),
        "nMoveRule": settings.rules.n_move_rule,
        "flying": settings.rules.flying,
        "fullBoard": settings.rules.full_board.name(),
        "engine": settings.engine_side.name(),
        "level": settings.strength.name(),
        "movetime": settings.movetime.as_millis() as u64,
        "clock": clock,
        "training": settings.training,
    })
    .to_string()
}

/// A password set by the player of `token`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PasswordRequest {
    pub(crate) token: Option<String>,
    pub(crate) password: Option<String>,
}

/// An account taken back: the player's `name` and `password`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RecoverRequest {
    pub(crate) name: Option<String>,
    pub(crate) password: Option<String>,
}

/// A player made: its `name`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PlayerRequest {
    pub(crate) name: Option<String>,
}

/// A browser sitting down in a room: its `code`, and `seat`, the token
/// of the seat it comes back to.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct JoinRequest {
    pub(crate) code: Option<String>,
    pub(crate) seat: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(body: &str) -> Result<Settings, String> {
        parse::<SettingsRequest>(body)?.apply(Settings::default())
    }

    #[test]
    fn the_pages_settings_are_read() {
        // As the page's settings_json sends them.
        let body = r#"{"variant":"twelve","nMoveRule":10,"flying":false,"fullBoard":"whiteloses","engine":"white","level":"easy","movetime":300,"clock":{"kind":"turn","seconds":60}}"#;
        let read = settings(body).expect("the page's settings");
        assert_eq!(
            read.rules,
            Rules {
                variant: Variant::Twelve,
                flying: false,
                n_move_rule: 10,
                full_board: FullBoard::WhiteLoses,
            }
        );
        assert_eq!(read.engine_side, EngineSide::White);
        assert_eq!(read.strength, Strength::Easy);
        assert_eq!(read.movetime, Duration::from_millis(300));
        assert_eq!(
            read.clock,
            Some(TimeControl {
                kind: ClockKind::Turn,
                time: Duration::from_secs(60),
                increment: Duration::ZERO,
            })
        );
        // A game clock with an increment; no N-move rule.
        let body = r#"{"nMoveRule":0,"clock":{"kind":"game","seconds":180,"increment":2}}"#;
        let read = settings(body).expect("a game clock with an increment");
        assert_eq!(read.rules.draw_plies(), None);
        assert_eq!(
            read.clock.map(|c| (c.time, c.increment)),
            Some((Duration::from_secs(180), Duration::from_secs(2)))
        );
        // A Skill Level as a string or a number; one above the greatest is
        // the greatest.
        assert_eq!(
            settings(r#"{"level":"7"}"#),
            Ok(Settings {
                strength: Strength::Skill(7),
                ..Settings::default()
            })
        );
        assert_eq!(
            settings(r#"{"level":7}"#).map(|s| s.strength),
            Ok(Strength::Skill(7))
        );
        assert_eq!(
            settings(r#"{"level":255}"#).map(|s| s.strength),
            Ok(Strength::Skill(20))
        );
        // Nothing given, or null, keeps the settings; a null clock is none.
        for body in [
            "",
            "  ",
            "{}",
            r#"{"variant":null,"engine":null,"movetime":null}"#,
        ] {
            assert_eq!(settings(body), Ok(Settings::default()), "{body}");
        }
        let timed = Settings {
            clock: read.clock,
            ..Settings::default()
        };
        let untimed = parse::<SettingsRequest>(r#"{"clock":null}"#).and_then(|r| r.apply(timed));
        assert_eq!(untimed.map(|s| s.clock), Ok(None));
    }

    #[test]
    fn wrong_bodies_and_values_are_refused() {
        for body in [
            "[1]",
            "5",
            "\"nine\"",
            "{",
            "not json",
            r#"{"variant":9}"#,
            r#"{"level":null}"#,
            r#"{"level":-1}"#,
            r#"{"level":1.5}"#,
            r#"{"movetime":"fast"}"#,
            r#"{"clock":"turn:60"}"#,
            r#"{"flying":"no"}"#,
            r#"{"nMoveRule":-1}"#,
        ] {
            let refused = settings(body).expect_err(body);
            assert!(refused.starts_with("bad request: "), "{body}: {refused}");
        }
        assert_eq!(
            settings("[1]"),
            Err("bad request: not a JSON object".to_owned())
        );
        assert_eq!(
            settings(r#"{"level":"grandmaster"}"#),
            Err("unknown level 'grandmaster'".to_owned())
        );
        assert_eq!(
            settings(r#"{"level":300}"#),
            Err("unknown level '300'".to_owned())
        );
        assert_eq!(
            settings(r#"{"clock":{"kind":"turn"}}"#),
            Err("a clock needs its seconds".to_owned())
        );
        assert_eq!(
            settings(r#"{"clock":{"seconds":5}}"#),
            Err("unknown clock '': turn or game".to_owned())
        );
        assert_eq!(
            settings(r#"{"nMoveRule":1001}"#),
            Err("the N-move rule is 0 (none) to 1000 moves each, not 1001".to_owned())
        );
        assert_eq!(
            settings(r#"{"fullBoard":"blackloses"}"#),
            Err("unknown full-board rule 'blackloses' (draw, whiteloses)".to_owned())
        );
        for body in [
            r#"{"clock":{"kind":"turn","seconds":60,"increment":2}}"#,
            r#"{"clock":{"kind":"game","seconds":60,"increment":-2}}"#,
        ] {
            assert!(settings(body).is_err(), "{body}");
        }
    }

    #[test]
    fn a_game_saved_by_the_page_is_read_back() {
        // As the page's saveGame keeps it.
        let body = r#"{"variant":"nine","engine":"black","level":"full","movetime":1000,
            "clock":{"kind":"game","seconds":300},"start":"a position string",
            "moves":["a1","d7"],"clockLeft":{"white":1500,"black":299000},"setUp":true}"#;
        let request: NewGameRequest = parse(body).expect("a saved game");
        assert_eq!(request.start.as_deref(), Some("a position string"));
        assert_eq!(request.moves, Some(vec!["a1".to_owned(), "d7".to_owned()]));
        assert_eq!(
            request.clock_left(),
            Some([Duration::from_millis(1500), Duration::from_millis(299_000)])
        );
        assert!(request.set_up());
        let settings = request.settings.apply(Settings::default());
        assert_eq!(
            settings.map(|s| s.clock.map(|c| c.kind)),
            Ok(Some(ClockKind::Game))
        );
        // A game without a clock has no clockLeft; setUp is false unless true.
        let request: NewGameRequest = parse(r#"{"moves":[],"setUp":false}"#).expect("a game");
        assert_eq!((request.clock_left(), request.set_up()), (None, false));
        assert!(parse::<NewGameRequest>(r#"{"moves":["a1",2]}"#).is_err());
        assert!(parse::<NewGameRequest>(r#"{"clockLeft":{"white":-1}}"#).is_err());
    }

    #[test]
    fn settings_kept_as_a_request_are_read_back_alike() {
        let kept = Settings {
            rules: Rules {
                variant: Variant::Twelve,
                n_move_rule: 30,
                flying: false,
                full_board: FullBoard::WhiteLoses,
            },
            engine_side: EngineSide::White,
            strength: Strength::Skill(7),
            movetime: Duration::from_millis(1500),
            clock: Some(TimeControl {
                kind: ClockKind::Game,
                time: Duration::from_secs(300),
                increment: Duration::from_secs(2),
            }),
            training: true,
        };
        let text = settings_request(&kept);
        assert_eq!(settings(&text), Ok(kept));
        let unclocked = Settings::default();
        assert_eq!(settings(&settings_request(&unclocked)), Ok(unclocked));
    }

    #[test]
    fn a_rated_challenge_has_a_clock_and_nothing_of_the_engine() {
        let asked: ChallengeRequest = parse(
            r#"{"variant": "lasker", "level": "easy", "engine": "both", "training": true,
                "clock": {"kind": "turn", "seconds": 60}, "color": "black"}"#,
        )
        .unwrap();
        let settings = asked.settings().unwrap();
        assert_eq!(settings.rules.variant, Variant::Lasker);
        assert_eq!(settings.engine_side, EngineSide::Neither);
        assert!(!settings.training && settings.clock.is_some());
        assert_eq!(asked.side(), Ok(Some(Color::Black)));
        let endless: ChallengeRequest =
            parse(r#"{"clock": {"kind": "game", "seconds": 7200}}"#).unwrap();
        assert!(endless.settings().is_err());
        // Rated clocks run from bullet to thirty minutes and thirty
        // seconds a move.
        for clock in [
            r#"{"kind": "game", "seconds": 60}"#,
            r#"{"kind": "game", "seconds": 1800, "increment": 30}"#,
            r#"{"kind": "turn", "seconds": 86400}"#,
            r#"{"kind": "turn", "seconds": 1209600}"#,
        ] {
            let asked: ChallengeRequest = parse(&format!(r#"{{"clock": {clock}}}"#)).unwrap();
            assert!(asked.settings().is_ok(), "{clock}");
        }
        // Correspondence is whole days a move, a fortnight at most.
        for clock in [
            r#"{"kind": "turn", "seconds": 5400}"#,
            r#"{"kind": "turn", "seconds": 129600}"#,
            r#"{"kind": "game", "seconds": 86400}"#,
        ] {
            let asked: ChallengeRequest = parse(&format!(r#"{{"clock": {clock}}}"#)).unwrap();
            assert!(asked.settings().is_err(), "{clock}");
        }
        let unclocked: ChallengeRequest = parse(r#"{"color": "random"}"#).unwrap();
        assert!(unclocked.settings().is_err());
        assert_eq!(unclocked.side(), Ok(None));
        let odd: ChallengeRequest = parse(r#"{"color": "green"}"#).unwrap();
        assert!(odd.side().is_err());
    }

    #[test]
    fn rooms_are_opened_and_joined_as_the_page_asks() {
        let request: RoomRequest =
            parse(r#"{"variant":"nine","color":"black","clock":null}"#).expect("a room");
        assert_eq!(request.color(), Ok(Color::Black));
        assert_eq!(
            request.settings.apply(Settings::default()),
            Ok(Settings::default())
        );
        let request: RoomRequest = parse("").expect("defaults");
        assert!(request.color().is_ok(), "random by default");
        let request: RoomRequest = parse(r#"{"color":"green"}"#).expect("a string");
        assert!(request.color().is_err());
        let request: JoinRequest = parse(r#"{"code":"ab12cd","seat":"t0ken"}"#).expect("a join");
        assert_eq!(
            (request.code.as_deref(), request.seat.as_deref()),
            (Some("ab12cd"), Some("t0ken"))
        );
        let request: JoinRequest = parse("").expect("defaults");
        assert_eq!(request.code, None);
        assert!(parse::<JoinRequest>(r#"{"code":5}"#).is_err());
    }
}
