//! Perft: counting the move paths of a given length, to check the rules.

use rayon::prelude::*;

use crate::board::{Move, Position};

/// The number of move sequences of exactly `depth` turns from `pos`.
///
/// A mill-closing turn counts once per stone it may remove; a position in
/// which the side to move has lost has no moves; draw rules are ignored.
///
/// ```
/// # use morris::{perft, Position};
/// assert_eq!(perft(&Position::startpos(), 2), 552);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Bulk counting: the last ply is counted, not played.
        1 => pos.count_legal_moves(),
        _ => pos
            .legal_moves()
            .iter()
            .map(|&mv| perft(&child(pos, mv), depth - 1))
            .sum(),
    }
}

/// The perft count below each legal move, in generation order, the moves
/// shared out among rayon's threads; empty for depth 0, which has no move.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .par_iter()
        .map(|&mv| (mv, perft(&child(pos, mv), depth - 1)))
        .collect()
}

/// The perft count of a [`divide`] of `depth` turns: the sum of its
/// counts, or 1 at depth 0, which has no moves to count below.
pub fn divide_total(counts: &[(Move, u64)], depth: u32) -> u64 {
    if depth == 0 {
        1
    } else {
        counts.iter().map(|&(_, n)| n).sum()
    }
}

#[inline]
fn child(pos: &Position, mv: Move) -> Position {
    let mut next = *pos;
    next.play_unchecked(mv);
    debug_assert_eq!(next.key(), next.compute_key(), "{pos} {mv}");
    next
}
