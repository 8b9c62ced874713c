//! Any text as move tokens, compound or split: each is refused with an
//! error or writes back as itself (in lower case), and a position judges
//! it legal exactly when generation lists it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use morris::{Game, Move, MoveToken, Position};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut game = Game::new(Position::startpos());
    for token in text.split_whitespace() {
        let Ok(parsed) = token.parse::<MoveToken>() else {
            continue;
        };
        let MoveToken::Turn(mv) = parsed else {
            continue;
        };
        assert_eq!(mv.to_string().parse::<Move>(), Ok(mv));
        let pos = *game.position();
        let listed = pos.legal_moves().contains(&mv);
        assert_eq!(pos.is_legal(mv), listed, "{mv} in {}", pos.fen());
        if game.try_play(mv).is_ok() && game.outcome().is_some() {
            game = Game::new(Position::startpos());
        }
    }
});
