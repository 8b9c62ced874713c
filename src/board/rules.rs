//! The rule options of docs/RULES.md: variant, flying and the N-move rule.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::board::Tables;
use crate::board::tables;

/// A game of the Morris family played on the 24-point board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Nine Men's Morris: 9 stones, 16 lines.
    #[default]
    Nine,
    /// Twelve Men's Morris (Morabaraba): 12 stones, the four diagonals too;
    /// the placing phase can fill the board (see [`FullBoard`]).
    Twelve,
    /// Lasker Morris: 10 stones; a side with stones in hand may slide
    /// instead of placing.
    Lasker,
}

impl Variant {
    /// Every variant, in the order the protocol lists them.
    pub const ALL: [Variant; 3] = [Variant::Nine, Variant::Twelve, Variant::Lasker];

    /// The number of stones each side starts with.
    #[inline]
    pub const fn stones(self) -> u8 {
        match self {
            Variant::Nine => 9,
            Variant::Twelve => 12,
            Variant::Lasker => 10,
        }
    }

    /// The lines and neighbours of this variant's board.
    #[inline]
    pub fn tables(self) -> &'static Tables {
        if self.has_diagonals() {
            &tables::DIAGONAL
        } else {
            &tables::STANDARD
        }
    }

    /// The most stones a side starts with, of any variant.
    pub const MOST_STONES: u8 = {
        let mut most = 0;
        let mut at = 0;
        while at < Variant::ALL.len() {
            let stones = Variant::ALL[at].stones();
            if stones > most {
                most = stones;
            }
            at += 1;
        }
        most
    };

    /// Whether the board has diagonal lines (each a mill, its points
    /// neighbours along it).
    #[inline]
    pub const fn has_diagonals(self) -> bool {
        matches!(self, Variant::Twelve)
    }

    /// Whether a side with stones in hand may slide instead of placing.
    #[inline]
    pub const fn may_slide_while_placing(self) -> bool {
        matches!(self, Variant::Lasker)
    }

    /// Whether the placing phase can fill the board: the stones of both
    /// sides are as many as the points.
    #[inline]
    pub const fn can_fill_the_board(self) -> bool {
        matches!(self, Variant::Twelve)
    }

    /// The name used by the `Variant` option.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Nine => "nine",
            Variant::Twelve => "twelve",
            Variant::Lasker => "lasker",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseVariantError;

    /// Parses `nine`, `twelve` (or `morabaraba`) or `lasker`, in any case.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "nine" => Ok(Variant::Nine),
            "twelve" | "morabaraba" => Ok(Variant::Twelve),
            "lasker" => Ok(Variant::Lasker),
            _ => Err(ParseVariantError {
                token: s.to_owned(),
            }),
        }
    }
}

/// What a board filled by the last placement is, where a variant can
/// fill it: a draw (docs/RULES.md), or a loss for White, who placed first
/// (as Sanmill and the published solution of Morabaraba have it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FullBoard {
    /// A draw.
    #[default]
    Draw,
    /// White, the first player, loses.
    WhiteLoses,
}

impl FullBoard {
    /// Both rules, the default first.
    pub const ALL: [FullBoard; 2] = [FullBoard::Draw, FullBoard::WhiteLoses];

    /// The name used by the `FullBoard` option.
    pub const fn name(self) -> &'static str {
        match self {
            FullBoard::Draw => "draw",
            FullBoard::WhiteLoses => "whiteloses",
        }
    }
}

impl fmt::Display for FullBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FullBoard {
    type Err = ParseFullBoardError;

    /// Parses `draw` or `whiteloses`, in any case.
    fn from_str(s: &str) -> Result<FullBoard, ParseFullBoardError> {
        FullBoard::ALL
            .into_iter()
            .find(|rule| rule.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseFullBoardError {
                token: s.to_owned(),
            })
    }
}

/// A full-board rule that is not known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a full-board rule (draw, whiteloses)")]
pub struct ParseFullBoardError {
    /// The text that was read.
    pub token: String,
}

/// The rules a game is played under.
///
/// ```
/// # use morris::{Rules, Variant};
/// let rules = Rules::default();
/// assert_eq!(rules.variant, Variant::Nine);
/// assert!(rules.flying);
/// assert_eq!(rules.n_move_rule, 30);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The game played.
    pub variant: Variant,
    /// Whether a side down to three stones (none in hand) may fly.
    pub flying: bool,
    /// Moves per side without a removal that draw the game; 0 is off.
    pub n_move_rule: u16,
    /// What a board filled by the last placement is, where the variant
    /// can fill it.
    pub full_board: FullBoard,
}

impl Rules {
    /// The default N-move rule: 30 moves per side, 60 plies.
    pub const DEFAULT_N_MOVE_RULE: u16 = 30;

    /// The most moves per side the N-move rule may be set to.
    pub const MAX_N_MOVE_RULE: u16 = 1000;

    /// The rules of `variant` with the default options.
    pub const fn new(variant: Variant) -> Rules {
        Rules {
            variant,
            flying: true,
            n_move_rule: Rules::DEFAULT_N_MOVE_RULE,
            full_board: FullBoard::Draw,
        }
    }

    /// The number of plies without a removal that draws, if the rule is on.
    #[inline]
    pub const fn draw_plies(self) -> Option<u32> {
        match self.n_move_rule {
            0 => None,
            n => Some(2 * n as u32),
        }
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::new(Variant::Nine)
    }
}

/// A variant name that is not known.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{token}' is not a variant (nine, twelve, lasker)")]
pub struct ParseVariantError {
    /// The text that was read.
    pub token: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_parse_in_any_case() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            assert_eq!(v.name().to_uppercase().parse::<Variant>(), Ok(v));
        }
        assert_eq!("Morabaraba".parse::<Variant>(), Ok(Variant::Twelve));
        assert!("six".parse::<Variant>().is_err());
    }

    #[test]
    fn draw_plies_follow_the_option() {
        assert_eq!(Rules::default().draw_plies(), Some(60));
        let off = Rules {
            n_move_rule: 0,
            ..Rules::default()
        };
        assert_eq!(off.draw_plies(), None);
    }
}
