//! How a game is played, as the page chooses it: who the engine plays
//! ([`EngineSide`]), how strongly ([`Strength`]), and the [`Settings`]
//! that gather them with the rules, the engine's time and the clock.

use std::time::Duration;

use morris::engine::ELO_OF_SKILL;
use morris::search::MAX_SKILL;
use morris::{Color, Rules};

use crate::rating::Rating;
use crate::web::core::clock::TimeControl;

/// How far a level's measured strength may be off: the measurement's
/// error, which its rating keeps.
const LEVEL_DEVIATION: f64 = 50.0;

/// The measured strength of `Skill Level` `skill` on the `UCI_Elo` scale.
fn skill_elo(skill: u8) -> i32 {
    ELO_OF_SKILL
        .iter()
        .find(|&&(level, _)| level == skill)
        .map(|&(_, elo)| elo)
        .expect("a measured level")
}

/// Who the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSide {
    /// Nobody: two people at one board, or analysis only.
    Neither,
    /// White.
    White,
    /// Black.
    Black,
    /// Both sides: the engine plays itself.
    Both,
}

impl EngineSide {
    /// Every side.
    pub const ALL: [EngineSide; 4] = [
        EngineSide::Neither,
        EngineSide::White,
        EngineSide::Black,
        EngineSide::Both,
    ];

    /// Whether the engine moves for `color`.
    pub fn plays(self, color: Color) -> bool {
        match self {
            EngineSide::Neither => false,
            EngineSide::White => color == Color::White,
            EngineSide::Black => color == Color::Black,
            EngineSide::Both => true,
        }
    }

    /// The side's name on the page: `none`, `white`, `black`, `both`.
    pub fn name(self) -> &'static str {
        match self {
            EngineSide::Neither => "none",
            EngineSide::White => "white",
            EngineSide::Black => "black",
            EngineSide::Both => "both",
        }
    }

    /// The side of a page's name.
    pub fn from_name(name: &str) -> Option<EngineSide> {
        EngineSide::ALL.into_iter().find(|side| side.name() == name)
    }
}

/// How strongly the engine plays: a named level on the engine's
/// `UCI_Elo` scale, or a `Skill Level` for those who want the numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    /// The weakest measured level's strength.
    Easy,
    /// Halfway between Easy and Hard.
    Medium,
    /// The middle levels' strength.
    Hard,
    /// The engine at full strength.
    Full,
    /// A `Skill Level`, 0 to [`MAX_SKILL`].
    Skill(u8),
}

impl Strength {
    /// The named levels, weakest first.
    pub const NAMED: [Strength; 4] = [
        Strength::Easy,
        Strength::Medium,
        Strength::Hard,
        Strength::Full,
    ];

    /// The level's name on the page: `easy`, `medium`, `hard`, `full`, or
    /// a Skill Level's number.
    pub fn name(self) -> String {
        match self {
            Strength::Easy => "easy".to_owned(),
            Strength::Medium => "medium".to_owned(),
            Strength::Hard => "hard".to_owned(),
            Strength::Full => "full".to_owned(),
            Strength::Skill(level) => level.to_string(),
        }
    }

    /// The level of a page's name (a Skill Level number above the
    /// greatest, up to 255, is the greatest).
    pub fn from_name(name: &str) -> Option<Strength> {
        if let Ok(level) = name.parse::<u8>() {
            return Some(Strength::Skill(level.min(MAX_SKILL)));
        }
        Strength::NAMED.into_iter().find(|s| s.name() == name)
    }

    /// The named level's strength on the `UCI_Elo` scale (Full has none:
    /// it is the engine unweakened).
    pub fn elo(self) -> Option<i32> {
        let (easy, hard) = (skill_elo(0), skill_elo(10));
        match self {
            Strength::Easy => Some(easy),
            Strength::Medium => Some((easy + hard) / 2),
            Strength::Hard => Some(hard),
            Strength::Full | Strength::Skill(_) => None,
        }
    }

    /// A named level's rating in rated play, fixed: its measured strength
    /// (Full's that of the unweakened engine, level 20, at the time it
    /// was measured) counted from Easy's, which is a newcomer's.
    pub(crate) fn rating(self) -> Rating {
        let elo = self.elo().unwrap_or_else(|| skill_elo(MAX_SKILL));
        Rating {
            rating: Rating::default().rating + f64::from(elo - skill_elo(0)),
            deviation: LEVEL_DEVIATION,
            ..Rating::default()
        }
    }

    /// Whether it plays below the engine's full strength (its scores are
    /// then a shallow search's, no judgement of the position).
    pub fn weakened(self) -> bool {
        !matches!(self, Strength::Full | Strength::Skill(MAX_SKILL))
    }

    /// The options that set it, every one each time (the engine keeps
    /// them between games).
    pub(crate) fn options(self) -> [(String, String); 3] {
        let skill = match self {
            Strength::Skill(level) => level,
            _ => MAX_SKILL,
        };
        let elo = self.elo();
        [
            ("UCI_LimitStrength".to_owned(), elo.is_some().to_string()),
            ("UCI_Elo".to_owned(), elo.unwrap_or(0).to_string()),
            ("Skill Level".to_owned(), skill.to_string()),
        ]
    }
}

/// How a game is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The rules of new games: the variant, flying, the N-move rule, the
    /// full board.
    pub rules: Rules,
    /// Who the engine plays.
    pub engine_side: EngineSide,
    /// How strongly it plays.
    pub strength: Strength,
    /// The engine's time for a move (less when its clock runs low).
    pub movetime: Duration,
    /// The clock of new games, if they have one.
    pub clock: Option<TimeControl>,
    /// Whether the person trains: each move judged on the page, and taken
    /// back even once the game is over.
    pub training: bool,
}

impl Settings {
    /// Whether its games are played by correspondence: see
    /// [`TimeControl::is_correspondence`].
    pub fn is_correspondence(&self) -> bool {
        self.clock.is_some_and(|clock| clock.is_correspondence())
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            rules: Rules::default(),
            engine_side: EngineSide::Black,
            strength: Strength::Full,
            movetime: Duration::from_secs(1),
            clock: None,
            training: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_sides_round_trip_their_names() {
        for side in EngineSide::ALL {
            assert_eq!(EngineSide::from_name(side.name()), Some(side));
        }
        assert!(EngineSide::Both.plays(Color::White) && EngineSide::Both.plays(Color::Black));
        assert!(!EngineSide::Neither.plays(Color::White));
    }
}
