//! The engine's options: one table serves the `uci` listing and
//! `setoption`, and a typed struct holds the values.

use std::fmt;
use std::sync::OnceLock;

use crate::error::OptionError;
use crate::rules::{Rules, Variant};
use crate::tt::TranspositionTable;

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
    /// The rules: variant, flying and the N-move rule.
    pub rules: Rules,
    /// Folder of endgame database files; empty for none.
    pub endgame_db: String,
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
            rules: Rules::default(),
            endgame_db: String::new(),
            notation: MoveNotation::Compound,
        }
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
}

/// An option's name and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name, as listed (matched without regard to case).
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
}

impl fmt::Display for OptionSpec {
    /// The `option name ...` line of the `uci` reply.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type ", self.name)?;
        match self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::Combo { default, vars } => {
                write!(f, "combo default {default}")?;
                vars.iter().try_for_each(|v| write!(f, " var {v}"))
            }
            OptionKind::Text => write!(f, "string default <empty>"),
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

/// Every option, in the order `uci` lists them.
pub fn option_specs() -> [OptionSpec; 11] {
    let defaults = EngineOptions::default();
    let spin = |default: i64, min: i64, max: i64| OptionKind::Spin { default, min, max };
    [
        OptionSpec {
            name: "Hash",
            kind: spin(defaults.hash_mib as i64, 1, max_hash_mib()),
        },
        OptionSpec {
            name: "Threads",
            kind: spin(1, 1, 256),
        },
        OptionSpec {
            name: "MultiPV",
            kind: spin(1, 1, 256),
        },
        OptionSpec {
            name: "Ponder",
            kind: OptionKind::Check { default: false },
        },
        OptionSpec {
            name: "Move Overhead",
            kind: spin(30, 0, 10_000),
        },
        OptionSpec {
            name: "Skill Level",
            kind: spin(20, 0, 20),
        },
        OptionSpec {
            name: "Variant",
            kind: OptionKind::Combo {
                default: "nine",
                vars: &["nine", "twelve", "lasker"],
            },
        },
        OptionSpec {
            name: "Flying",
            kind: OptionKind::Check { default: true },
        },
        OptionSpec {
            name: "NMoveRule",
            kind: spin(30, 0, 1000),
        },
        OptionSpec {
            name: "EndgameDB",
            kind: OptionKind::Text,
        },
        OptionSpec {
            name: "MoveNotation",
            kind: OptionKind::Combo {
                default: "compound",
                vars: &["compound", "split"],
            },
        },
    ]
}

/// A checked option value.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Number(i64),
    Flag(bool),
    Word(String),
}

impl EngineOptions {
    /// Sets the option `name` (any case) to `value`, returning its listed
    /// name; nothing changes on error.
    ///
    /// # Errors
    ///
    /// [`OptionError`] for an unknown name or a value of the wrong type or
    /// out of range.
    pub fn set(&mut self, name: &str, value: &str) -> Result<&'static str, OptionError> {
        let spec = option_specs()
            .into_iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::Unknown {
                name: name.to_owned(),
            })?;
        let bad = |expected: String| OptionError::BadValue {
            name: spec.name,
            value: value.to_owned(),
            expected,
        };
        let parsed = match spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let number: i64 = value.parse().map_err(|_| bad("a whole number".into()))?;
                if !(min..=max).contains(&number) {
                    return Err(OptionError::OutOfRange {
                        name: spec.name,
                        value: number,
                        min,
                        max,
                    });
                }
                Value::Number(number)
            }
            OptionKind::Check { .. } => match value.to_ascii_lowercase().as_str() {
                "true" => Value::Flag(true),
                "false" => Value::Flag(false),
                _ => return Err(bad("true or false".into())),
            },
            OptionKind::Combo { vars, .. } => {
                let word = value.to_ascii_lowercase();
                let known = vars.contains(&word.as_str())
                    || (spec.name == "Variant" && word.parse::<Variant>().is_ok());
                if !known {
                    return Err(bad(format!("one of {}", vars.join(", "))));
                }
                Value::Word(word)
            }
            OptionKind::Text => Value::Word(if value == "<empty>" {
                String::new()
            } else {
                value.to_owned()
            }),
        };
        match (spec.name, parsed) {
            ("Hash", Value::Number(n)) => self.hash_mib = n as usize,
            ("Threads", Value::Number(n)) => self.threads = n as usize,
            ("MultiPV", Value::Number(n)) => self.multipv = n as usize,
            ("Ponder", Value::Flag(b)) => self.ponder = b,
            ("Move Overhead", Value::Number(n)) => self.move_overhead_ms = n as u64,
            ("Skill Level", Value::Number(n)) => self.skill = n as u8,
            ("Variant", Value::Word(w)) => {
                self.rules.variant = w.parse().map_err(|_| bad("a variant".into()))?;
            }
            ("Flying", Value::Flag(b)) => self.rules.flying = b,
            ("NMoveRule", Value::Number(n)) => self.rules.n_move_rule = n as u16,
            ("EndgameDB", Value::Word(w)) => self.endgame_db = w,
            ("MoveNotation", Value::Word(w)) => {
                self.notation = if w == "split" {
                    MoveNotation::Split
                } else {
                    MoveNotation::Compound
                };
            }
            (name, value) => unreachable!("option table and setter disagree on {name}: {value:?}"),
        }
        Ok(spec.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_follows_the_uci_syntax() {
        let lines: Vec<String> = option_specs().iter().map(ToString::to_string).collect();
        assert!(lines[0].starts_with("option name Hash type spin default 64 min 1 max "));
        assert!(lines.contains(&"option name Ponder type check default false".to_string()));
        assert!(
            lines.contains(
                &"option name Variant type combo default nine var nine var twelve var lasker"
                    .to_string()
            )
        );
        assert!(lines.contains(&"option name EndgameDB type string default <empty>".to_string()));
        assert!(lines.contains(
            &"option name Move Overhead type spin default 30 min 0 max 10000".to_string()
        ));
    }

    #[test]
    fn every_listed_option_can_be_set_to_its_default() {
        let mut options = EngineOptions::default();
        for spec in option_specs() {
            let value = match spec.kind {
                OptionKind::Spin { default, .. } => default.to_string(),
                OptionKind::Check { default } => default.to_string(),
                OptionKind::Combo { default, .. } => default.to_string(),
                OptionKind::Text => "<empty>".to_string(),
            };
            assert_eq!(options.set(spec.name, &value), Ok(spec.name));
        }
        assert_eq!(options, EngineOptions::default());
    }

    #[test]
    fn names_match_in_any_case_and_values_are_checked() {
        let mut options = EngineOptions::default();
        assert_eq!(options.set("skill level", "5"), Ok("Skill Level"));
        assert_eq!(options.skill, 5);
        assert_eq!(options.set("VARIANT", "Morabaraba"), Ok("Variant"));
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
