//! The engine's options: one table serves the `uci` listing and
//! `setoption`, and a typed struct holds the values.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::OnceLock;

use thiserror::Error;

use crate::board::{FullBoard, Rules};
use crate::search::MAX_SKILL;
use crate::search::{HashAllocError, TranspositionTable};
use crate::solution::DbError;

/// What a person should know of an option just set.
#[derive(Clone, Debug)]
pub enum OptionNote {
    /// A database file that was refused, and left out.
    DatabaseRefused(DbError),
    /// The databases now in use.
    DatabasesLoaded {
        /// The sectors loaded.
        sectors: usize,
    },
}

/// How the engine writes a mill-closing move in `bestmove`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MoveNotation {
    /// One token per turn: `d6-d5xb4`.
    #[default]
    Compound,
    /// The action first (`d6-d5`), then, once the GUI sends the position
    /// with that action, the removal alone (`xb4`).
    Split,
}

impl MoveNotation {
    /// Both notations, in the order `uci` lists them.
    pub const ALL: [MoveNotation; 2] = [MoveNotation::Compound, MoveNotation::Split];

    /// The option's word for it.
    pub const fn name(self) -> &'static str {
        match self {
            MoveNotation::Compound => "compound",
            MoveNotation::Split => "split",
        }
    }
}

impl fmt::Display for MoveNotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MoveNotation {
    type Err = ParseNotationError;

    /// Reads `compound` or `split`, in any case.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        MoveNotation::ALL
            .into_iter()
            .find(|notation| notation.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| ParseNotationError {
                token: text.to_owned(),
            })
    }
}

/// A notation name that is neither `compound` nor `split`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a move notation (compound, split)")]
pub struct ParseNotationError {
    /// The text that was read.
    pub token: String,
}

/// The values of every option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// Search threads.
    pub threads: usize,
    /// Best lines reported.
    pub multipv: usize,
    /// Whether the GUI may send `go ponder`.
    pub ponder: bool,
    /// Milliseconds kept in reserve per move.
    pub move_overhead_ms: u64,
    /// 0 (weakest) to 20 (full strength).
    pub skill: u8,
    /// Whether `UCI_Elo` sets the strength instead of `Skill Level`.
    pub limit_strength: bool,
    /// The strength asked for with `UCI_LimitStrength`, on the scale of
    /// [`ELO_OF_SKILL`].
    pub elo: i32,
    /// Whether `info` lines carry win/draw/loss chances.
    pub show_wdl: bool,
    /// The rules: variant, flying and the N-move rule.
    pub rules: Rules,
    /// Folder of endgame database files, if any.
    pub endgame_db: Option<PathBuf>,
    /// Whether database blocks the next moves may need are read into
    /// memory while the engine waits.
    pub read_ahead: bool,
    /// Whether the moves that keep a draw are searched with a bonus for
    /// the share of the opponent's replies that lose.
    pub draws_to_win: bool,
    /// How mill-closing moves are written.
    pub notation: MoveNotation,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            hash_mib: 64,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: 30,
            skill: 20,
            limit_strength: false,
            elo: ELO_OF_SKILL[ELO_OF_SKILL.len() / 2].1,
            show_wdl: false,
            rules: Rules::default(),
            endgame_db: None,
            read_ahead: true,
            draws_to_win: false,
            notation: MoveNotation::Compound,
        }
    }
}

/// The strength of some `Skill Level`s on the `UCI_Elo` scale: joint
/// ratings of a round robin between them (docs/STRENGTH.md has the match
/// and its command). 0 on the scale is Skill Level 0. Levels that
/// measured alike share their pooled rating, so the scale is flat there.
pub const ELO_OF_SKILL: [(u8, i32); 7] = [
    (0, 0),
    (3, 373),
    (6, 470),
    (10, 625),
    (14, 625),
    (17, 625),
    (20, 1038),
];

impl EngineOptions {
    /// The `Skill Level` the search plays at: `Skill Level` itself, or
    /// with `UCI_LimitStrength` the least level measured at `UCI_Elo`
    /// (between two measured strengths, in proportion).
    pub fn effective_skill(&self) -> u8 {
        if !self.limit_strength {
            return self.skill;
        }
        let below = ELO_OF_SKILL
            .iter()
            .rev()
            .find(|&&(_, elo)| elo <= self.elo)
            .unwrap_or(&ELO_OF_SKILL[0]);
        let above = ELO_OF_SKILL
            .iter()
            .find(|&&(_, elo)| elo >= self.elo)
            .unwrap_or(&ELO_OF_SKILL[ELO_OF_SKILL.len() - 1]);
        if above.1 == below.1 {
            return above.0;
        }
        let share = f64::from(self.elo - below.1) / f64::from(above.1 - below.1);
        (f64::from(below.0) + share * f64::from(above.0 - below.0)).round() as u8
    }
}

/// The type, default and range of an option, as `uci` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number in a range.
    Spin {
        /// The default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// The default.
        default: bool,
    },
    /// One of a list of words.
    Combo {
        /// The default.
        default: &'static str,
        /// The words accepted.
        vars: &'static [&'static str],
    },
    /// Free text, empty by default.
    Text,
    /// An action, with no value.
    Button,
}

/// Every option the engine has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineOption {
    /// `Hash`: the transposition table's size in MiB.
    Hash,
    /// `Clear Hash`: forget what earlier searches learnt.
    ClearHash,
    /// `Threads`: search threads.
    Threads,
    /// `MultiPV`: best lines reported.
    MultiPv,
    /// `Ponder`: whether the GUI may send `go ponder`.
    Ponder,
    /// `Move Overhead`: milliseconds kept in reserve per move.
    MoveOverhead,
    /// `Skill Level`: 0 (weakest) to 20 (full strength).
    SkillLevel,
    /// `UCI_LimitStrength`: play at the strength `UCI_Elo` names.
    LimitStrength,
    /// `UCI_Elo`: the strength to play at with `UCI_LimitStrength`.
    Elo,
    /// `UCI_ShowWDL`: add win/draw/loss chances to `info` lines.
    ShowWdl,
    /// `Variant`: the game played.
    Variant,
    /// `Flying`: whether a side down to three stones may fly.
    Flying,
    /// `NMoveRule`: moves per side without a removal that draw.
    NMoveRule,
    /// `FullBoard`: what a board filled by the last placement is.
    FullBoard,
    /// `EndgameDB`: the folder of the databases.
    EndgameDb,
    /// `ReadAhead`: read database blocks the next moves may need while
    /// the engine waits.
    ReadAhead,
    /// `DrawsToWin`: search the moves that keep a draw with a bonus for
    /// the share of the opponent's replies that lose.
    DrawsToWin,
    /// `MoveNotation`: how mill-closing moves are written.
    MoveNotation,
}

/// The words of `FullBoard`, as `uci` lists them.
const FULL_BOARD_RULES: [&str; 2] = [FullBoard::ALL[0].name(), FullBoard::ALL[1].name()];

/// The words of `MoveNotation`, as `uci` lists them.
const NOTATIONS: [&str; 2] = [MoveNotation::Compound.name(), MoveNotation::Split.name()];

impl EngineOption {
    /// Every option, in the order `uci` lists them.
    pub const ALL: [EngineOption; 18] = [
        EngineOption::Hash,
        EngineOption::ClearHash,
        EngineOption::Threads,
        EngineOption::MultiPv,
        EngineOption::Ponder,
        EngineOption::MoveOverhead,
        EngineOption::SkillLevel,
        EngineOption::LimitStrength,
        EngineOption::Elo,
        EngineOption::ShowWdl,
        EngineOption::Variant,
        EngineOption::Flying,
        EngineOption::NMoveRule,
        EngineOption::FullBoard,
        EngineOption::EndgameDb,
        EngineOption::ReadAhead,
        EngineOption::DrawsToWin,
        EngineOption::MoveNotation,
    ];

    /// The option's name, as listed (matched without regard to case).
    pub fn name(self) -> &'static str {
        match self {
            EngineOption::Hash => "Hash",
            EngineOption::ClearHash => "Clear Hash",
            EngineOption::Threads => "Threads",
            EngineOption::MultiPv => "MultiPV",
            EngineOption::Ponder => "Ponder",
            EngineOption::MoveOverhead => "Move Overhead",
            EngineOption::SkillLevel => "Skill Level",
            EngineOption::LimitStrength => "UCI_LimitStrength",
            EngineOption::Elo => "UCI_Elo",
            EngineOption::ShowWdl => "UCI_ShowWDL",
            EngineOption::Variant => "Variant",
            EngineOption::Flying => "Flying",
            EngineOption::NMoveRule => "NMoveRule",
            EngineOption::FullBoard => "FullBoard",
            EngineOption::EndgameDb => "EndgameDB",
            EngineOption::ReadAhead => "ReadAhead",
            EngineOption::DrawsToWin => "DrawsToWin",
            EngineOption::MoveNotation => "MoveNotation",
        }
    }

    /// The option of that name, in any case.
    pub fn named(name: &str) -> Option<EngineOption> {
        EngineOption::ALL
            .into_iter()
            .find(|option| option.name().eq_ignore_ascii_case(name))
    }

    /// The option's type, range and default (the defaults are those of
    /// [`EngineOptions::default`]).
    pub fn kind(self) -> OptionKind {
        let defaults = EngineOptions::default();
        let spin = |default: i64, min: i64, max: i64| OptionKind::Spin { default, min, max };
        match self {
            EngineOption::Hash => spin(defaults.hash_mib as i64, 1, max_hash_mib()),
            EngineOption::ClearHash => OptionKind::Button,
            EngineOption::Threads => spin(defaults.threads as i64, 1, 256),
            EngineOption::MultiPv => spin(defaults.multipv as i64, 1, 256),
            EngineOption::Ponder => OptionKind::Check {
                default: defaults.ponder,
            },
            EngineOption::MoveOverhead => spin(defaults.move_overhead_ms as i64, 0, 10_000),
            EngineOption::SkillLevel => spin(i64::from(defaults.skill), 0, i64::from(MAX_SKILL)),
            EngineOption::LimitStrength => OptionKind::Check {
                default: defaults.limit_strength,
            },
            EngineOption::Elo => spin(
                i64::from(defaults.elo),
                i64::from(ELO_OF_SKILL[0].1),
                i64::from(ELO_OF_SKILL[ELO_OF_SKILL.len() - 1].1),
            ),
            EngineOption::ShowWdl => OptionKind::Check {
                default: defaults.show_wdl,
            },
            EngineOption::Variant => OptionKind::Combo {
                default: defaults.rules.variant.name(),
                vars: &["nine", "twelve", "lasker"],
            },
            EngineOption::Flying => OptionKind::Check {
                default: defaults.rules.flying,
            },
            EngineOption::NMoveRule => spin(
                i64::from(defaults.rules.n_move_rule),
                0,
                i64::from(Rules::MAX_N_MOVE_RULE),
            ),
            EngineOption::FullBoard => OptionKind::Combo {
                default: defaults.rules.full_board.name(),
                vars: &FULL_BOARD_RULES,
            },
            EngineOption::EndgameDb => OptionKind::Text,
            EngineOption::ReadAhead => OptionKind::Check {
                default: defaults.read_ahead,
            },
            EngineOption::DrawsToWin => OptionKind::Check {
                default: defaults.draws_to_win,
            },
            EngineOption::MoveNotation => OptionKind::Combo {
                default: defaults.notation.name(),
                vars: &NOTATIONS,
            },
        }
    }

    /// `value` as this spin option's number.
    fn number(self, value: &str) -> Result<i64, OptionError> {
        let OptionKind::Spin { min, max, .. } = self.kind() else {
            return Err(self.bad(value, "no value"));
        };
        let number: i64 = value
            .parse()
            .map_err(|_| self.bad(value, "a whole number"))?;
        if !(min..=max).contains(&number) {
            return Err(OptionError::OutOfRange {
                name: self.name(),
                value: number,
                min,
                max,
            });
        }
        Ok(number)
    }

    /// `value` as this check option's flag.
    fn flag(self, value: &str) -> Result<bool, OptionError> {
        match value.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.bad(value, "true or false")),
        }
    }

    fn bad(self, value: &str, expected: &str) -> OptionError {
        OptionError::BadValue {
            name: self.name(),
            value: value.to_owned(),
            expected: expected.to_owned(),
        }
    }
}

/// The most memory the transposition table may take: half the machine's,
/// so that a large `Hash` cannot push the system into swapping or the
/// out-of-memory killer.
fn max_hash_mib() -> i64 {
    static MAX: OnceLock<i64> = OnceLock::new();
    *MAX.get_or_init(|| {
        let total_kib = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| {
                let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
                line.split_whitespace().nth(1)?.parse::<i64>().ok()
            });
        total_kib
            .map_or(4096, |kib| kib / 1024 / 2)
            .clamp(1, TranspositionTable::MAX_MIB as i64)
    })
}

impl EngineOptions {
    /// Sets the option `name` (any case) to `value`, returning which option
    /// it was; nothing changes on error. A button takes no value and
    /// changes no value: the engine acts on it.
    ///
    /// # Errors
    ///
    /// [`OptionError`] for an unknown name or a value of the wrong type or
    /// out of range.
    pub fn set(&mut self, name: &str, value: &str) -> Result<EngineOption, OptionError> {
        let option = EngineOption::named(name).ok_or_else(|| OptionError::Unknown {
            name: name.to_owned(),
        })?;
        match option {
            EngineOption::Hash => self.hash_mib = option.number(value)? as usize,
            EngineOption::ClearHash => {}
            EngineOption::Threads => self.threads = option.number(value)? as usize,
            EngineOption::MultiPv => self.multipv = option.number(value)? as usize,
            EngineOption::Ponder => self.ponder = option.flag(value)?,
            EngineOption::MoveOverhead => self.move_overhead_ms = option.number(value)? as u64,
            EngineOption::SkillLevel => self.skill = option.number(value)? as u8,
            EngineOption::LimitStrength => self.limit_strength = option.flag(value)?,
            EngineOption::Elo => self.elo = option.number(value)? as i32,
            EngineOption::ShowWdl => self.show_wdl = option.flag(value)?,
            EngineOption::Variant => {
                self.rules.variant = value
                    .parse()
                    .map_err(|_| option.bad(value, "one of nine, twelve, lasker"))?;
            }
            EngineOption::Flying => self.rules.flying = option.flag(value)?,
            EngineOption::NMoveRule => self.rules.n_move_rule = option.number(value)? as u16,
            EngineOption::FullBoard => {
                self.rules.full_board = value
                    .parse()
                    .map_err(|_| option.bad(value, "one of draw, whiteloses"))?;
            }
            EngineOption::EndgameDb => {
                self.endgame_db = match value {
                    "" | "<empty>" => None,
                    folder => Some(PathBuf::from(folder)),
                };
            }
            EngineOption::ReadAhead => self.read_ahead = option.flag(value)?,
            EngineOption::DrawsToWin => self.draws_to_win = option.flag(value)?,
            EngineOption::MoveNotation => {
                self.notation = value
                    .parse()
                    .map_err(|_| option.bad(value, "one of compound, split"))?;
            }
        }
        Ok(option)
    }
}

/// A `setoption` that cannot be applied.
#[derive(Clone, Debug, Error)]
pub enum OptionError {
    /// No option has that name.
    #[error("no option named '{name}'")]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The value does not fit the option's type.
    #[error("option '{name}': '{value}' is not {expected}")]
    BadValue {
        /// The option.
        name: &'static str,
        /// The value given.
        value: String,
        /// What the option takes.
        expected: String,
    },
    /// A number outside the option's range.
    #[error("option '{name}': {value} is outside {min}..={max}")]
    OutOfRange {
        /// The option.
        name: &'static str,
        /// The value given.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// Options cannot change while a search runs.
    #[error("options cannot change while a search runs (send stop first)")]
    Busy,
    /// The folder of `EndgameDB` cannot be read.
    #[error("option 'EndgameDB': {0}")]
    Database(#[from] DbError),
    /// The transposition table could not be allocated.
    #[error("option 'Hash': {0}; the table keeps its size")]
    Hash(#[from] HashAllocError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::rules::Variant;

    #[test]
    fn notations_read_what_they_write() {
        for notation in MoveNotation::ALL {
            assert_eq!(notation.to_string().parse(), Ok(notation));
        }
        assert_eq!("Split".parse(), Ok(MoveNotation::Split));
        assert!("compact".parse::<MoveNotation>().is_err());
    }

    #[test]
    fn every_listed_option_can_be_set_to_its_default() {
        let mut options = EngineOptions::default();
        for option in EngineOption::ALL {
            let value = match option.kind() {
                OptionKind::Spin { default, .. } => default.to_string(),
                OptionKind::Check { default } => default.to_string(),
                OptionKind::Combo { default, .. } => default.to_string(),
                OptionKind::Text => "<empty>".to_string(),
                OptionKind::Button => String::new(),
            };
            assert_eq!(options.set(option.name(), &value).ok(), Some(option));
        }
        assert_eq!(options, EngineOptions::default());
    }

    #[test]
    fn names_match_in_any_case_and_values_are_checked() {
        let mut options = EngineOptions::default();
        assert_eq!(
            options.set("skill level", "5").ok(),
            Some(EngineOption::SkillLevel)
        );
        assert_eq!(options.skill, 5);
        assert_eq!(
            options.set("VARIANT", "Morabaraba").ok(),
            Some(EngineOption::Variant)
        );
        assert_eq!(options.rules.variant, Variant::Twelve);
        let before = options.clone();
        assert!(matches!(
            options.set("Skill Level", "21"),
            Err(OptionError::OutOfRange { .. })
        ));
        assert!(matches!(
            options.set("Threads", "two"),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            options.set("Flying", "yes"),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            options.set("Variant", "six"),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            options.set("Colour", "red"),
            Err(OptionError::Unknown { .. })
        ));
        assert_eq!(options, before);
    }
}

#[cfg(test)]
mod strength_tests {
    use super::*;

    #[test]
    fn uci_elo_picks_the_skill_level_of_that_strength() {
        let mut options = EngineOptions::default();
        options.set("Skill Level", "7").unwrap();
        assert_eq!(options.effective_skill(), 7);
        options.set("UCI_LimitStrength", "true").unwrap();
        for (skill, elo) in ELO_OF_SKILL {
            options.set("UCI_Elo", &elo.to_string()).unwrap();
            // The least level of that strength.
            let least = ELO_OF_SKILL.iter().find(|e| e.1 == elo).unwrap().0;
            assert_eq!(options.effective_skill(), least);
            assert!(least <= skill);
        }
        // Past the flat stretch, stronger asks for more than level 17.
        options.set("UCI_Elo", "800").unwrap();
        assert!((18..20).contains(&options.effective_skill()));
        // Between two measured levels, in proportion.
        let (low, high) = (ELO_OF_SKILL[1], ELO_OF_SKILL[2]);
        options
            .set("UCI_Elo", &((low.1 + high.1) / 2).to_string())
            .unwrap();
        let between = options.effective_skill();
        assert!(low.0 <= between && between <= high.0);
        let too_strong = ELO_OF_SKILL[ELO_OF_SKILL.len() - 1].1 + 1;
        assert!(options.set("UCI_Elo", &too_strong.to_string()).is_err());
    }
}
