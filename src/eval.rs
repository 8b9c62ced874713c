//! Static evaluation: what a position is worth to the side to move, in
//! centi-stones (100 is about one stone).

use std::fmt;

use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::tables::Tables;
use crate::types::{Color, Square};

/// One ingredient of the evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Stones on the board and in hand.
    Material,
    /// Slides available to a moving side; room to move later for a placing one.
    Mobility,
    /// Stones with no empty neighbour.
    BlockedStones,
    /// Lines with two own stones and an empty third point that the side
    /// can fill on its next turn: a mill threatened.
    OpenMills,
    /// Closed mills with a stone that can step out and back.
    ClosedMills,
    /// A stone that closes one mill or another each time it moves between
    /// two points (a running mill).
    RunningMills,
    /// The four crossings (d6, b4, f4, d2), which have four neighbours.
    Crossings,
}

impl Term {
    /// Every term, in the order `eval` prints them.
    pub const ALL: [Term; 7] = [
        Term::Material,
        Term::Mobility,
        Term::BlockedStones,
        Term::OpenMills,
        Term::ClosedMills,
        Term::RunningMills,
        Term::Crossings,
    ];

    /// The term's name as `eval` prints it.
    pub const fn name(self) -> &'static str {
        match self {
            Term::Material => "material",
            Term::Mobility => "mobility",
            Term::BlockedStones => "blocked stones",
            Term::OpenMills => "open mills",
            Term::ClosedMills => "closed mills",
            Term::RunningMills => "running mills",
            Term::Crossings => "crossings",
        }
    }
}

/// A stone, in centi-stones.
pub const STONE: i32 = 100;

const CROSSINGS: Bitboard =
    Bitboard::from_squares(&[Square::D6, Square::B4, Square::F4, Square::D2]);

/// A bonus for having the move: the side to move acts on its threats first.
const TEMPO: i32 = 10;

/// The evaluation split into its terms, per colour, each already weighted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakdown {
    /// `terms[t][c]`: term `Term::ALL[t]` for colour `c`.
    pub terms: [[i32; 2]; Term::ALL.len()],
    /// The side to move, which gets the tempo bonus.
    pub side_to_move: Color,
}

impl Breakdown {
    /// The evaluation from the side to move's view.
    pub fn total(&self) -> i32 {
        let us = self.side_to_move.index();
        let them = 1 - us;
        self.terms.iter().map(|t| t[us] - t[them]).sum::<i32>() + TEMPO
    }
}

impl fmt::Display for Breakdown {
    /// A table of the terms, White, Black and the difference, then the total.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<16} {:>7} {:>7} {:>7}",
            "term", "white", "black", "total"
        )?;
        for (term, [white, black]) in Term::ALL.iter().zip(self.terms) {
            writeln!(
                f,
                "{:<16} {white:>7} {black:>7} {:>7}",
                term.name(),
                white - black
            )?;
        }
        writeln!(f, "{:<16} {:>23}", "tempo", TEMPO)?;
        write!(
            f,
            "total: {} cp for {} (side to move)",
            self.total(),
            self.side_to_move.to_string().to_lowercase()
        )
    }
}

/// The side to move's evaluation, in centi-stones.
///
/// ```
/// # use morris::{evaluate, Position};
/// assert!(evaluate(&Position::startpos()).abs() < 50);
/// ```
pub fn evaluate(pos: &Position) -> i32 {
    breakdown(pos).total()
}

/// Every term of the evaluation, for both colours.
pub fn breakdown(pos: &Position) -> Breakdown {
    let placing = placing_share(pos);
    let mut terms = [[0; 2]; Term::ALL.len()];
    for color in Color::ALL {
        for (t, value) in color_terms(pos, color, placing).into_iter().enumerate() {
            terms[t][color.index()] = value;
        }
    }
    Breakdown {
        terms,
        side_to_move: pos.side_to_move(),
    }
}

/// How far the position is from the moving phase: the stones in hand of
/// both sides over all the stones of the variant, in `PHASE_SCALE`ths
/// (all of it at the start, none once everything is placed). One value for
/// both colours, so that a side is not judged by other weights than its
/// opponent the ply one of them places its last stone.
fn placing_share(pos: &Position) -> i32 {
    let total = 2 * i32::from(pos.rules().variant.stones());
    let in_hand: i32 = Color::ALL.iter().map(|&c| i32::from(pos.in_hand(c))).sum();
    PHASE_SCALE * in_hand / total.max(1)
}

/// The scale of [`placing_share`].
const PHASE_SCALE: i32 = 256;

/// The weighted terms of one colour, in `Term::ALL` order: the placing and
/// the moving weights blended by `placing` (see [`placing_share`]); a
/// flying side has its own.
fn color_terms(pos: &Position, color: Color, placing: i32) -> [i32; Term::ALL.len()] {
    let tables = pos.rules().variant.tables();
    let own = pos.stones(color);
    let empty = pos.empty();
    let material = STONE * pos.stone_count(color) as i32;
    let free_neighbours: i32 = own
        .iter()
        .map(|sq| (tables.neighbors(sq) & empty).len() as i32)
        .sum();
    let blocked = own
        .iter()
        .filter(|&sq| (tables.neighbors(sq) & empty).is_empty())
        .count() as i32;
    let crossings = (own & CROSSINGS).len() as i32;
    let [mobility, open_mills, closed_mills, running_mills] = if pos.can_fly(color) {
        let threats = tables.closing_points(own, empty).len() as i32;
        [0, 50 * threats, 0, 0]
    } else {
        let threats = tables.closing_points(own, empty).len() as i32;
        let placing_terms = [2 * free_neighbours, 30 * threats, 0, 0];
        let (closable, opening, running) = moving_mill_shapes(tables, own, empty);
        // A side that cannot slide at all is lost when its turn comes.
        let stuck = if free_neighbours == 0 { -3 * STONE } else { 0 };
        let moving_terms = [
            8 * free_neighbours + stuck,
            40 * closable,
            20 * opening,
            120 * running,
        ];
        std::array::from_fn(|i| {
            (placing_terms[i] * placing + moving_terms[i] * (PHASE_SCALE - placing)) / PHASE_SCALE
        })
    };
    [
        material,
        mobility,
        -6 * blocked,
        open_mills,
        closed_mills,
        running_mills,
        8 * crossings,
    ]
}

/// For a sliding side: the open mills it can close with one slide, its
/// closed mills with a stone free to step out, and its running mills.
fn moving_mill_shapes(tables: &Tables, own: Bitboard, empty: Bitboard) -> (i32, i32, i32) {
    let mut closable = 0;
    let mut opening = 0;
    let mut running = 0;
    for &mill in tables.mills() {
        let gap = mill - own;
        if gap.is_empty() {
            let movable = mill
                .iter()
                .filter(|&sq| !(tables.neighbors(sq) & empty).is_empty());
            let mut any_movable = false;
            for stone in movable {
                any_movable = true;
                let rest = own.without(stone);
                let closes_elsewhere = (tables.neighbors(stone) & empty)
                    .iter()
                    .any(|to| tables.closes_mill(rest, to));
                running += i32::from(closes_elsewhere);
            }
            opening += i32::from(any_movable);
        } else if gap.len() == 1 && empty.is_superset(gap) {
            let Some(point) = gap.first() else { continue };
            let feeders = tables.neighbors(point) & (own - mill);
            closable += i32::from(!feeders.is_empty());
        }
    }
    (closable, opening, running)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn nine(fen: &str) -> Position {
        Position::from_fen(fen, Rules::default()).unwrap()
    }

    #[test]
    fn symmetric_start_is_level() {
        assert_eq!(evaluate(&Position::startpos()), TEMPO);
    }

    #[test]
    fn colours_are_mirrored() {
        let white = nine("WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20");
        let black = nine("BBW/WB./BW./W.BWB./.W./B.W/... b 0 0 10 20");
        assert_eq!(evaluate(&white), evaluate(&black));
    }

    #[test]
    fn a_stone_ahead_is_better() {
        let even = nine("WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20");
        let ahead = nine("WWB/BW./WB./..WBW./.B./W.B/... w 0 0 0 20");
        assert!(evaluate(&ahead) > evaluate(&even) + STONE / 2);
    }

    #[test]
    fn a_running_mill_is_recognised() {
        // b6-d6-f6 is closed, and d6 stepping to d5 closes c5-d5-e5.
        let pos = nine("B.B/WWW/W.W/....../B../.B./... w 0 0 0 30");
        let terms = breakdown(&pos);
        let running = Term::ALL
            .iter()
            .position(|&t| t == Term::RunningMills)
            .unwrap();
        assert!(terms.terms[running][Color::White.index()] > 0);
        assert_eq!(terms.terms[running][Color::Black.index()], 0);
    }

    #[test]
    fn both_colours_are_weighed_in_one_phase() {
        // Ply 17: White has placed its last stone, Black has one in hand.
        // Each has four stones with two free neighbours each, so each has
        // the same mobility, whichever of them is still placing.
        let pos = nine("W.W/W../W../....../..B/..B/B.B b 0 1 0 9");
        let terms = breakdown(&pos);
        let mobility = Term::ALL.iter().position(|&t| t == Term::Mobility).unwrap();
        assert_eq!(
            terms.terms[mobility][Color::White.index()],
            terms.terms[mobility][Color::Black.index()]
        );
        // One placement later the weights have moved by one eighteenth.
        let placed = nine("W.W/W../W../..B.../..B/..B/B.B w 0 0 0 10");
        let step = (evaluate(&placed) + evaluate(&pos)).abs();
        assert!(step < STONE / 4, "{step}");
    }
}
