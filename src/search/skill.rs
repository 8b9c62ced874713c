//! Playing below full strength: a shallower search over more lines, and a
//! weaker move picked among them.

use rand::Rng;

use crate::search::eval::STONE;
use crate::search::worker::RootMove;

/// The full strength `Skill Level`.
pub const MAX_SKILL: u8 = 20;

/// The lines a weakened search weighs at least, to have moves to err with.
pub(crate) const WEAKENED_LINES: usize = 4;

/// The deepest a search at `skill` (below [`MAX_SKILL`]) goes.
pub(crate) fn depth_limit(skill: u8) -> u32 {
    1 + u32::from(skill) * 2 / 3
}

/// Chooses among the best lines the way a weaker player would: the lower
/// the skill, the more often a worse move, and the worse it may be.
pub(crate) fn pick_weaker(lines: &[RootMove], skill: u8) -> RootMove {
    let mut rng = rand::rng();
    let top = lines[0].score;
    let spread = (top - lines[lines.len() - 1].score).min(STONE);
    let weakness = 120 - 2 * i32::from(skill);
    lines
        .iter()
        .max_by_key(|rm| {
            let push = (weakness * (top - rm.score) + spread * rng.random_range(0..weakness)) / 128;
            rm.score + push
        })
        .unwrap_or(&lines[0])
        .clone()
}
