//! Zobrist keys: random 64-bit numbers whose xor identifies a position.

use crate::board::{Color, Square};

/// The most stones a side can have in hand in any variant.
pub(crate) const MAX_IN_HAND: usize = 12;

/// One step of the SplitMix64 generator; a `const fn`, so the keys are
/// fixed at compile time and identical in every build.
const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

struct Keys {
    stones: [[u64; Square::NUM]; 2],
    in_hand: [[u64; MAX_IN_HAND + 1]; 2],
    black_to_move: u64,
}

const KEYS: Keys = {
    let mut keys = Keys {
        stones: [[0; Square::NUM]; 2],
        in_hand: [[0; MAX_IN_HAND + 1]; 2],
        black_to_move: 0,
    };
    let mut state = 0x6d6f_7272_6973; // "morris"
    let mut color = 0;
    while color < 2 {
        let mut sq = 0;
        while sq < Square::NUM {
            let (next, key) = splitmix64(state);
            state = next;
            keys.stones[color][sq] = key;
            sq += 1;
        }
        let mut count = 0;
        while count <= MAX_IN_HAND {
            let (next, key) = splitmix64(state);
            state = next;
            keys.in_hand[color][count] = key;
            count += 1;
        }
        color += 1;
    }
    keys.black_to_move = splitmix64(state).1;
    keys
};

/// The key of a stone of `color` on `sq`.
#[inline]
pub(crate) fn stone(color: Color, sq: Square) -> u64 {
    KEYS.stones[color.index()][sq.index()]
}

/// The key of `color` holding `count` stones in hand.
#[inline]
pub(crate) fn in_hand(color: Color, count: u8) -> u64 {
    KEYS.in_hand[color.index()][count as usize]
}

/// The key xored in while Black is to move.
#[inline]
pub(crate) fn black_to_move() -> u64 {
    KEYS.black_to_move
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: Vec<u64> = KEYS.stones.iter().flatten().copied().collect();
        all.extend(KEYS.in_hand.iter().flatten());
        all.push(KEYS.black_to_move);
        assert!(all.iter().all(|&k| k != 0));
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
