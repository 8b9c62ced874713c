//! Any text as a position string, under every variant: it is refused with
//! an error or gives a position whose string reads back to the same
//! position, whose moves are generated and played without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use morris::{Position, Rules, Variant};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for variant in [Variant::Nine, Variant::Twelve, Variant::Lasker] {
        for flying in [true, false] {
            let rules = Rules {
                variant,
                flying,
                ..Rules::default()
            };
            let Ok(pos) = Position::from_fen(text, rules) else {
                continue;
            };
            let again = Position::from_fen(&pos.fen(), rules).expect("a written string reads back");
            assert_eq!(again, pos);
            let moves = pos.legal_moves();
            assert_eq!(moves.len() as u64, pos.count_legal_moves());
            for &mv in &moves {
                assert!(pos.is_legal(mv));
                let mut child = pos;
                child.play(mv);
                let _ = child.terminal_outcome();
            }
        }
    }
});
