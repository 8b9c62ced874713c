//! No text makes the parsers panic, and what they accept they write back.

use morris::{Move, Position, Rules, Setup, Square, Variant};
use proptest::prelude::*;

const VALID: [&str; 4] = [
    ".../.../.../....../.../.../... w 9 9 0 1",
    ".../.W./.../.W..../.../.B./... b 7 8 3 2",
    "WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20",
    "W.W/.../BB./....../..B/.W./... b 0 0 0 40",
];

/// A valid position string with a few characters replaced, inserted or
/// deleted: most such strings are almost right, which is where parsers
/// tend to slip.
fn mutated_fen() -> impl Strategy<Value = String> {
    let edit = (
        any::<prop::sample::Index>(),
        0..3u8,
        prop::char::range(' ', '~'),
    );
    (
        prop::sample::select(VALID.to_vec()),
        prop::collection::vec(edit, 1..4),
    )
        .prop_map(|(fen, edits)| {
            let mut chars: Vec<char> = fen.chars().collect();
            for (index, kind, c) in edits {
                let at = index.index(chars.len() + 1);
                match kind {
                    0 if at < chars.len() => chars[at] = c,
                    1 => chars.insert(at, c),
                    _ if at < chars.len() => {
                        chars.remove(at);
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn position_strings_never_panic_and_round_trip(fen in mutated_fen(), variant in 0..3usize) {
        let rules = Rules::new(Variant::ALL[variant]);
        if let Ok(pos) = Position::from_fen(&fen, rules) {
            let written = pos.fen();
            prop_assert_eq!(Position::from_fen(&written, rules), Ok(pos));
            prop_assert_eq!(written.parse::<Setup>(), fen.parse::<Setup>());
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,60}") {
        let _ = text.parse::<Setup>();
        let _ = Position::from_fen(&text, Rules::default());
        let _ = text.parse::<Move>();
        let _ = text.parse::<Square>();
    }

    #[test]
    fn moves_round_trip(text in "[a-gA-G1-7xX-]{1,9}") {
        if let Ok(mv) = text.parse::<Move>() {
            prop_assert_eq!(mv.to_string(), text.to_lowercase());
        }
    }
}
