//! Static evaluation: what a position is worth to the side to move, in
//! centi-stones (100 is about one stone).

use crate::board::{Bitboard, Color, Position, Tables, Variant};

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
    /// The crossings: points with four neighbours (d6, b4, f4, d2, and in
    /// Twelve Men's Morris the corners of the middle square too).
    Crossings,
    /// A sliding side with few slides left: close to being blocked, which
    /// loses (with none, it has lost when its turn comes).
    Cramped,
    /// A side down to three stones flies: its stones are worth more than
    /// their number says.
    Flying,
    /// Stones still to place: one in hand cannot be blocked, and in Lasker
    /// Morris it may wait while the others slide.
    InHand,
}

impl Term {
    /// Every term, in the order `eval` prints them.
    pub const ALL: [Term; 10] = [
        Term::Material,
        Term::Mobility,
        Term::BlockedStones,
        Term::OpenMills,
        Term::ClosedMills,
        Term::RunningMills,
        Term::Crossings,
        Term::Cramped,
        Term::Flying,
        Term::InHand,
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
            Term::Cramped => "cramped",
            Term::Flying => "flying",
            Term::InHand => "in hand",
        }
    }
}

/// A stone, in centi-stones.
pub const STONE: i32 = 100;

/// The evaluation split into its terms, per colour, each already weighted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakdown {
    /// `terms[t][c]`: term `Term::ALL[t]` for colour `c`.
    pub terms: [[i32; 2]; Term::ALL.len()],
    /// The side to move, which gets the tempo bonus.
    pub side_to_move: Color,
    /// The tempo bonus.
    pub tempo: i32,
    /// The share of the sum that stands, in [`PHASE_SCALE`]ths: less as the
    /// N-move rule nears (see [`draw_rule_share`]).
    pub draw_rule_share: i32,
}

impl Breakdown {
    /// The evaluation from the side to move's view.
    pub fn total(&self) -> i32 {
        let us = self.side_to_move.index();
        let them = 1 - us;
        let sum = self.terms.iter().map(|t| t[us] - t[them]).sum::<i32>() + self.tempo;
        sum * self.draw_rule_share / PHASE_SCALE
    }
}

/// The side to move's evaluation, in centi-stones.
///
/// ```
/// # use morris::{eval::evaluate, Position};
/// assert!(evaluate(&Position::startpos()).abs() < 100);
/// ```
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, Weights::of(pos.rules().variant))
}

/// The side to move's evaluation under `weights`.
pub fn evaluate_with(pos: &Position, weights: &Weights) -> i32 {
    let us = pos.side_to_move();
    let material = STONE * (pos.stone_count(us) as i32 - pos.stone_count(us.opponent()) as i32);
    let [ours, theirs] = [us, us.opponent()].map(|c| features(pos, c));
    let weighted: i32 = (0..FEATURES)
        .map(|i| weights.features[i] * (ours[i] - theirs[i]))
        .sum();
    (material + weighted / PHASE_SCALE + weights.tempo) * draw_rule_share(pos) / PHASE_SCALE
}

/// The share of an evaluation that stands, in [`PHASE_SCALE`]ths: all of
/// it after a removal, falling to half where the N-move rule draws. An
/// advantage that is not turned into a removal soon is worth less, and the
/// side ahead is pushed to make progress.
pub fn draw_rule_share(pos: &Position) -> i32 {
    match pos.rules().draw_plies() {
        Some(limit) if limit > 0 => {
            let counter = pos.plies_since_removal().min(limit);
            PHASE_SCALE - (PHASE_SCALE as u32 * counter / (2 * limit)) as i32
        }
        _ => PHASE_SCALE,
    }
}

/// Every term of the evaluation, for both colours.
pub fn breakdown(pos: &Position) -> Breakdown {
    let weights = Weights::of(pos.rules().variant);
    let mut terms = [[0; 2]; Term::ALL.len()];
    for color in Color::ALL {
        let c = color.index();
        terms[0][c] = STONE * pos.stone_count(color) as i32;
        let measured = features(pos, color);
        for (i, feature) in Feature::ALL.iter().enumerate() {
            let t = Term::ALL
                .iter()
                .position(|&t| t == feature.term())
                .unwrap_or(0);
            terms[t][c] += weights.features[i] * measured[i];
        }
        for term in terms.iter_mut().skip(1) {
            term[c] /= PHASE_SCALE;
        }
    }
    Breakdown {
        terms,
        side_to_move: pos.side_to_move(),
        tempo: weights.tempo,
        draw_rule_share: draw_rule_share(pos),
    }
}

/// What the evaluation counts, per colour, besides material. Each count
/// is weighed by the phase it belongs to: a placing count by the share of
/// stones still in hand, a sliding count by the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Free points next to own stones, while placing.
    PlacingMobility,
    /// Points where a placement closes a mill.
    PlacingThreats,
    /// Slides available.
    Mobility,
    /// Open mills a slide closes.
    ClosableMills,
    /// Closed mills a stone can step out of.
    OpeningMills,
    /// Running mills.
    RunningMills,
    /// No slide at all.
    Cramped0,
    /// One slide.
    Cramped1,
    /// Two slides.
    Cramped2,
    /// Three slides.
    Cramped3,
    /// Four slides.
    Cramped4,
    /// Points where a flying side closes a mill (not phased).
    FlyingThreats,
    /// Stones with no empty neighbour (not phased).
    BlockedStones,
    /// Stones on the crossings (not phased).
    Crossings,
    /// The side flies (not phased).
    Flying,
    /// Stones in hand (not phased).
    InHand,
    /// Stones in hand, by the sliding share: in Lasker Morris a stone kept
    /// while the board fills can neither be blocked nor left without a
    /// point to go to, and can fill the last point the opponent slides to.
    InHandLate,
}

/// The number of features.
pub const FEATURES: usize = 17;

impl Feature {
    /// Every feature, in weight order.
    pub const ALL: [Feature; FEATURES] = [
        Feature::PlacingMobility,
        Feature::PlacingThreats,
        Feature::Mobility,
        Feature::ClosableMills,
        Feature::OpeningMills,
        Feature::RunningMills,
        Feature::Cramped0,
        Feature::Cramped1,
        Feature::Cramped2,
        Feature::Cramped3,
        Feature::Cramped4,
        Feature::FlyingThreats,
        Feature::BlockedStones,
        Feature::Crossings,
        Feature::Flying,
        Feature::InHand,
        Feature::InHandLate,
    ];

    /// The term of the breakdown the feature is shown under.
    pub const fn term(self) -> Term {
        match self {
            Feature::PlacingMobility | Feature::Mobility => Term::Mobility,
            Feature::PlacingThreats | Feature::ClosableMills | Feature::FlyingThreats => {
                Term::OpenMills
            }
            Feature::OpeningMills => Term::ClosedMills,
            Feature::RunningMills => Term::RunningMills,
            Feature::Cramped0
            | Feature::Cramped1
            | Feature::Cramped2
            | Feature::Cramped3
            | Feature::Cramped4 => Term::Cramped,
            Feature::BlockedStones => Term::BlockedStones,
            Feature::Crossings => Term::Crossings,
            Feature::Flying => Term::Flying,
            Feature::InHand | Feature::InHandLate => Term::InHand,
        }
    }

    /// The feature's name, as the tuner prints it.
    pub const fn name(self) -> &'static str {
        match self {
            Feature::PlacingMobility => "placing mobility",
            Feature::PlacingThreats => "placing threats",
            Feature::Mobility => "mobility",
            Feature::ClosableMills => "closable mills",
            Feature::OpeningMills => "opening mills",
            Feature::RunningMills => "running mills",
            Feature::Cramped0 => "no slide",
            Feature::Cramped1 => "one slide",
            Feature::Cramped2 => "two slides",
            Feature::Cramped3 => "three slides",
            Feature::Cramped4 => "four slides",
            Feature::FlyingThreats => "flying threats",
            Feature::BlockedStones => "blocked stones",
            Feature::Crossings => "crossings",
            Feature::Flying => "flying",
            Feature::InHand => "in hand",
            Feature::InHandLate => "in hand late",
        }
    }
}

/// The weights of the evaluation, in centi-stones per count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// One weight per [`Feature`], in `Feature::ALL` order.
    pub features: [i32; FEATURES],
    /// The bonus for having the move: the side to move acts on its
    /// threats first.
    pub tempo: i32,
}

impl Weights {
    /// The weights of Nine Men's Morris, fitted by `morris-tune` to the
    /// quiet positions of the games in `tools/tune/` and to random
    /// positions of the small databases; docs/TOOLS.md has the commands
    /// that fitted them.
    pub const NINE: Weights = Weights {
        features: [
            206, -48, 1, 221, 212, 520, -2411, -993, -345, -141, -50, 206, -39, -4, 182, 0, 0,
        ],
        tempo: 74,
    };

    /// The weights of Twelve Men's Morris, fitted by `morris-tune` to its
    /// games in `tools/tune/` (docs/TOOLS.md has the commands).
    pub const TWELVE: Weights = Weights {
        features: [
            53, 130, 17, 134, 85, 7, 224, -70, -73, -45, -35, 147, 10, 3, 349, -24, 0,
        ],
        tempo: 62,
    };

    /// The weights of Lasker Morris, fitted by `morris-tune` to its games
    /// in `tools/tune/` (docs/TOOLS.md has the commands).
    pub const LASKER: Weights = Weights {
        features: [
            20, 85, 7, 79, 54, 10, -354, -152, -64, -31, -15, -10, -12, 3, 258, -35, 133,
        ],
        tempo: 12,
    };

    /// The weights the engine plays `variant` with.
    pub const fn of(variant: Variant) -> &'static Weights {
        match variant {
            Variant::Nine => &Weights::NINE,
            Variant::Twelve => &Weights::TWELVE,
            Variant::Lasker => &Weights::LASKER,
        }
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

/// The scale of the placing share and of phased feature counts.
pub const PHASE_SCALE: i32 = 256;

/// The features of `color`, in `Feature::ALL` order, each count times
/// its phase's share of [`PHASE_SCALE`] (a placing count times the share
/// of all stones still in hand, a sliding count times the rest); a flying
/// side has only its own threats.
pub fn features(pos: &Position, color: Color) -> [i32; FEATURES] {
    let placing = placing_share(pos);
    let sliding = PHASE_SCALE - placing;
    let tables = pos.rules().variant.tables();
    let own = pos.stones(color);
    let empty = pos.empty();
    let mut counts = [0; FEATURES];
    let free_neighbours: i32 = own
        .iter()
        .map(|sq| (tables.neighbors(sq) & empty).len() as i32)
        .sum();
    let blocked = own
        .iter()
        .filter(|&sq| (tables.neighbors(sq) & empty).is_empty())
        .count() as i32;
    counts[Feature::BlockedStones as usize] = PHASE_SCALE * blocked;
    counts[Feature::Crossings as usize] = PHASE_SCALE * (own & tables.crossings()).len() as i32;
    let in_hand = i32::from(pos.in_hand(color));
    counts[Feature::InHand as usize] = PHASE_SCALE * in_hand;
    counts[Feature::InHandLate as usize] = sliding * in_hand;
    let threats = tables.closing_points(own, empty).len() as i32;
    if pos.can_fly(color) {
        counts[Feature::FlyingThreats as usize] = PHASE_SCALE * threats;
        counts[Feature::Flying as usize] = PHASE_SCALE;
        return counts;
    }
    counts[Feature::PlacingMobility as usize] = placing * free_neighbours;
    counts[Feature::PlacingThreats as usize] = placing * threats;
    if sliding == 0 {
        return counts;
    }
    let (closable, opening, running) = moving_mill_shapes(tables, own, empty);
    counts[Feature::Mobility as usize] = sliding * free_neighbours;
    counts[Feature::ClosableMills as usize] = sliding * closable;
    counts[Feature::OpeningMills as usize] = sliding * opening;
    counts[Feature::RunningMills as usize] = sliding * running;
    if let Ok(slides) = usize::try_from(free_neighbours) {
        if slides <= 4 {
            counts[Feature::Cramped0 as usize + slides] = sliding;
        }
    }
    counts
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
    use crate::board::rules::Rules;

    fn nine(fen: &str) -> Position {
        Position::from_fen(fen, Rules::default()).unwrap()
    }

    #[test]
    fn symmetric_start_is_level() {
        assert_eq!(evaluate(&Position::startpos()), Weights::NINE.tempo);
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
    }

    #[test]
    fn an_advantage_fades_as_the_n_move_rule_nears() {
        let fresh = nine("WWB/BW./WB./..WBW./.B./W.B/... w 0 0 0 20");
        let stale = nine("WWB/BW./WB./..WBW./.B./W.B/... w 0 0 50 20");
        assert!(evaluate(&fresh) > 0);
        assert!(evaluate(&stale) > 0);
        assert!(evaluate(&stale) < evaluate(&fresh));
        assert_eq!(draw_rule_share(&fresh), PHASE_SCALE);
        // Past the limit the share stays at half.
        let drawn = nine("WWB/BW./WB./..WBW./.B./W.B/... w 0 0 90 20");
        assert_eq!(draw_rule_share(&drawn), PHASE_SCALE / 2);
        let no_rule = Position::from_fen(
            "WWB/BW./WB./..WBW./.B./W.B/... w 0 0 50 20",
            Rules {
                n_move_rule: 0,
                ..Rules::default()
            },
        )
        .unwrap();
        assert_eq!(draw_rule_share(&no_rule), PHASE_SCALE);
    }

    #[test]
    fn the_middle_corners_are_crossings_on_the_diagonal_board_alone() {
        // One White stone on b6: two neighbours in Nine Men's Morris, four
        // (a7 and c5 by the diagonal) in Twelve Men's Morris.
        let crossings = |variant: Variant| {
            let (white, black) = (variant.stones() - 1, variant.stones());
            let fen = format!(".../W../.../....../.../.../... b {white} {black} 0 2");
            let pos = Position::from_fen(&fen, Rules::new(variant)).unwrap();
            features(&pos, Color::White)[Feature::Crossings as usize]
        };
        assert_eq!(crossings(Variant::Nine), 0);
        assert_eq!(crossings(Variant::Twelve), PHASE_SCALE);
    }

    #[test]
    fn stones_in_hand_are_counted_for_each_side() {
        // Lasker Morris: White slid instead of placing, so it keeps more in hand.
        let pos = Position::from_fen(
            "W../.../.../B....B/.../.../... w 9 8 0 5",
            Rules::new(Variant::Lasker),
        )
        .unwrap();
        let in_hand = |color| features(&pos, color)[Feature::InHand as usize];
        assert_eq!(in_hand(Color::White), 9 * PHASE_SCALE);
        assert_eq!(in_hand(Color::Black), 8 * PHASE_SCALE);
    }

    #[test]
    fn a_stone_kept_in_hand_weighs_more_as_the_board_fills() {
        let lasker = |fen: &str| Position::from_fen(fen, Rules::new(Variant::Lasker)).unwrap();
        let late = |pos: &Position, color| features(pos, color)[Feature::InHandLate as usize];
        // At the start nothing slides yet: a stone in hand is not late.
        let start = Position::new(Rules::new(Variant::Lasker));
        assert_eq!(late(&start, Color::White), 0);
        // White kept one stone while Black placed all of its own.
        let kept = lasker("WBW/.WB/.../WWWWB./B../.BW/BWB b 1 0 10 9");
        assert!(late(&kept, Color::White) > PHASE_SCALE * 9 / 10);
        assert_eq!(late(&kept, Color::Black), 0);
        // Placed on c5, where it neither threatens nor is blocked, the
        // stone is worth less to White than kept.
        let placed = lasker("WBW/.WB/W../WWWWB./B../.BW/BWB b 0 0 10 9");
        assert!(evaluate(&kept) < evaluate(&placed));
    }

    #[test]
    fn only_a_flying_side_counts_as_flying() {
        // White has three stones and flies; Black has four and slides.
        let pos = nine("W.B/.W./B../W....B/.../B../... w 0 0 0 30");
        assert!(pos.can_fly(Color::White));
        assert_eq!(
            features(&pos, Color::White)[Feature::Flying as usize],
            PHASE_SCALE
        );
        assert_eq!(features(&pos, Color::Black)[Feature::Flying as usize], 0);
    }
}
