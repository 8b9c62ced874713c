//! GBGP, the protocol of Nine Morris 3D and Muhle Intelligence
//! (docs/PROTOCOL.md#gbgp), in memory and through the built binary.

mod common;

use common::process::EngineProcess;
use common::session::{best_move, bestmove, session};
use morris::uci::GbgpPosition;
use morris::{Color, Position, Rules, Setup, Variant};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

/// The `d` reply's line that begins with `prefix`, without it.
fn shown<'a>(lines: &'a [String], prefix: &str) -> &'a str {
    lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix} line in {lines:#?}"))
}

#[test]
fn the_handshake_lists_the_options_and_the_variant_switch() {
    let lines = session(b"gbgp\nisready\n");
    assert!(lines[0].starts_with("id name morris "), "{lines:?}");
    assert_eq!(lines[1], "id author the morris developers");
    let ok = lines.iter().position(|l| l == "gbgpok").expect("gbgpok");
    assert_eq!(
        lines[ok - 1],
        "option name TwelveMensMorris type check default false"
    );
    assert!(lines[2..ok].iter().all(|l| l.starts_with("option name ")));
    assert!(lines[2].starts_with("option name Hash type spin default 64 "));
    assert_eq!(&lines[ok + 1..], ["readyok"]);
    assert!(!lines.iter().any(|l| l == "uciok"));
    // uci goes back to the UCI dialect.
    let lines =
        session(b"gbgp\nuci\nposition fen .../.../.../....../.../.../... w 9 9 0 1\nisready\n");
    assert_eq!(lines.last().map(String::as_str), Some("readyok"));
    assert!(lines.iter().any(|l| l == "uciok"));
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
}

/// Random games of `variant` from the start, every position of them.
fn positions_of_games(variant: Variant, games: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut positions = Vec::new();
    for _ in 0..games {
        let mut pos = Position::new(Rules::new(variant));
        for _ in 0..rng.random_range(10..120) {
            positions.push(pos);
            let moves = pos.legal_moves();
            let Some(&mv) = moves.as_slice().choose(&mut rng) else {
                break;
            };
            pos.play(mv);
            if pos.terminal_outcome().is_some() {
                break;
            }
        }
    }
    positions
}

/// The position as GBGP gives it: the N-move counter at 0.
fn without_counter(pos: &Position) -> Setup {
    Setup {
        plies_since_removal: 0,
        ..Setup::from(pos)
    }
}

#[test]
fn position_strings_round_trip_on_games_of_every_variant() {
    for variant in Variant::ALL {
        let rules = Rules::new(variant);
        let positions = positions_of_games(variant, 40, 47);
        let mut in_hand = 0;
        let mut after_removal = 0;
        let mut unwritable = 0;
        for pos in &positions {
            let written = match GbgpPosition::from_position(pos) {
                Ok(written) => written,
                Err(err) => {
                    // Only a Lasker side that slid with stones in hand.
                    assert_eq!(variant, Variant::Lasker, "{}: {err}", pos.fen());
                    unwritable += 1;
                    continue;
                }
            };
            let text = written.to_string();
            let read: GbgpPosition = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(read, written);
            assert_eq!(read.to_string(), text);
            let back = read
                .position(rules)
                .unwrap_or_else(|e| panic!("{text}: {e}"));
            // Where every turn of placing places, the move number is the
            // position's own; in Lasker Morris, the one the hands give.
            if variant != Variant::Lasker {
                assert_eq!(written.move_number, pos.fullmove_number(), "{text}");
            }
            let expected = Setup {
                fullmove_number: written.move_number,
                ..without_counter(pos)
            };
            assert_eq!(Setup::from(&back), expected, "{text}");
            in_hand += usize::from(pos.in_hand(Color::Black) > 0);
            let stones = u32::from(variant.stones());
            after_removal += usize::from(Color::ALL.iter().any(|&c| pos.stone_count(c) < stones));
        }
        assert!(
            in_hand > 100,
            "{variant}: {in_hand} positions with stones in hand"
        );
        assert!(
            after_removal > 100,
            "{variant}: {after_removal} after a removal"
        );
        if variant == Variant::Lasker {
            assert!(unwritable > 0, "lasker: no slide in placing was tried");
        }
    }
}

#[test]
fn the_engine_reads_and_shows_gbgp_positions_of_every_variant() {
    for (variant, setting) in [
        (Variant::Nine, "setoption name TwelveMensMorris value false"),
        (
            Variant::Twelve,
            "setoption name TwelveMensMorris value true",
        ),
        (Variant::Lasker, "setoption name Variant value lasker"),
    ] {
        for pos in positions_of_games(variant, 3, 11).iter().step_by(7) {
            let Ok(written) = GbgpPosition::from_position(pos) else {
                continue;
            };
            let script = format!("gbgp\n{setting}\nnewgame\nposition pos {written}\nd\n");
            let lines = session(script.as_bytes());
            assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
            assert_eq!(shown(&lines, "Variant: "), variant.name());
            assert_eq!(shown(&lines, "Pos: "), written.to_string());
            let expected = Setup {
                fullmove_number: written.move_number,
                ..without_counter(pos)
            };
            assert_eq!(shown(&lines, "Fen: "), expected.to_string());
        }
    }
}

#[test]
fn a_search_answers_a_legal_move_with_scores_from_whites_view() {
    let script = "gbgp\nnewgame\nposition pos b:wb4,c4:bd2:2 moves e4 d1\ngo depth 4\n";
    let lines = session(script.as_bytes());
    let start: GbgpPosition = "b:wb4,c4:bd2:2".parse().unwrap();
    let mut pos = start.position(Rules::default()).unwrap();
    for mv in ["e4", "d1"] {
        pos.play(mv.parse().unwrap());
    }
    assert!(pos.is_legal(best_move(&lines)), "{lines:?}");
    let infos: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!infos.is_empty());
    for info in infos {
        assert!(
            info.contains(" score eval ") || info.contains(" score win "),
            "{info}"
        );
        for absent in [" cp ", " mate ", " multipv ", " dbhits ", " wdl "] {
            assert!(!info.contains(absent), "{info}");
        }
    }
    // Twelve: a diagonal mill, and the move the GUI then sends back.
    let script = "gbgp\nsetoption name TwelveMensMorris value true\nnewgame\n\
                  position startpos moves a7 d7 b6 d6\ngo depth 1\n";
    let lines = session(script.as_bytes());
    let mut twelve = Position::new(Rules::new(Variant::Twelve));
    for mv in ["a7", "d7", "b6", "d6"] {
        twelve.play(mv.parse().unwrap());
    }
    let best = best_move(&lines);
    assert!(twelve.is_legal(best), "{best}");
    // One ply deep, the mill on the diagonal a7-b6-c5 (twelve's alone) is taken.
    assert!(
        ["c5xd7", "c5xd6"].contains(&best.to_string().as_str()),
        "{best}"
    );
}

#[test]
fn a_win_is_counted_in_turns_of_the_winner_signed_for_white() {
    // White closes a mill at g7 and leaves Black two stones.
    let white_wins = "gbgp\nposition pos w:wa7,d7,b4,g4:bc3,e3,d1:30\ngo depth 3\n";
    let lines = session(white_wins.as_bytes());
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last.contains(" score win 1 "), "{last}");
    assert!(bestmove(&lines).starts_with("g4-g7x"), "{lines:?}");
    // The same with the colours swapped: Black wins.
    let black_wins = "gbgp\nposition pos b:wc3,e3,d1:ba7,d7,b4,g4:30\ngo depth 3\n";
    let lines = session(black_wins.as_bytes());
    let last = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap();
    assert!(last.contains(" score win -1 "), "{last}");
}

#[test]
fn a_finished_game_gets_none() {
    let script = b"gbgp\nposition pos w:wa7,d7,b4,g4:bc3,e3,d1:30 moves g4-g7xc3\ngo depth 3\n";
    let lines = session(script);
    assert_eq!(
        &lines[lines.len() - 2..],
        [
            "info string game over: white wins (black has fewer than three stones)",
            "bestmove none"
        ]
    );
}

const BAD_LINES: [&str; 22] = [
    "hello",
    "ucinewgame",
    "register later",
    "newgame now",
    "position",
    "position pos",
    "position fen .../.../.../....../.../.../... w 9 9 0 1",
    "position pos w:w:b",
    "position pos w:wa1:wb1:3",
    "position pos w:wa1,a1:b:3",
    "position pos w:wh9:b:3",
    "position pos w:w:b:0",
    "position pos w:wa7,d7,g7,b6,d6,f6,c5,d5,e5,a4:b:1",
    "position pos w:wa7,d7:ba1,d1,g1:12",
    "position startpos moves d6 d6",
    "position startpos moves h9",
    "position pos w:w:b:1 moves a7 a1 d7 d1 g7 b6",
    "setoption name Variant value six",
    "setoption name Variant value chess",
    "setoption name TwelveMensMorris value maybe",
    "go depth x",
    "go searchmoves d6-d5",
];

#[test]
fn every_malformed_line_gets_one_error_and_the_state_is_kept() {
    let mut script = String::from("gbgp\nnewgame\nposition pos b:wd6:b:1\nisready\n");
    for line in BAD_LINES {
        script.push_str(line);
        script.push_str("\nisready\n");
    }
    script.push_str("d\n");
    let lines = session(script.as_bytes());
    let ready = lines.iter().position(|l| l == "readyok").unwrap();
    let mut replies = lines[ready + 1..].iter();
    for bad in BAD_LINES {
        let error = replies.next().expect("a reply");
        assert!(
            error.starts_with("info string error: "),
            "{bad:?} gave {error:?}"
        );
        assert_eq!(
            replies.next().map(String::as_str),
            Some("readyok"),
            "{bad:?}"
        );
    }
    let rest: Vec<String> = replies.cloned().collect();
    assert_eq!(shown(&rest, "Pos: "), "b:wd6:b:1");
    assert_eq!(shown(&rest, "Variant: "), "nine");
    assert_eq!(
        shown(&rest, "Fen: "),
        ".../.W./.../....../.../.../... b 8 9 0 1"
    );
}

#[test]
fn the_errors_say_what_is_wrong() {
    let error = |line: &str| {
        let lines = session(format!("gbgp\n{line}\n").as_bytes());
        lines.last().cloned().unwrap()
    };
    assert_eq!(
        error("position pos w:wh9:b:3"),
        "info string error: position: pos: stones: 'h9' is not a point of the board"
    );
    assert_eq!(
        error("position pos w:wa7,d7,g7,b6,d6,f6,c5,d5,e5,a4:b:1"),
        "info string error: position: pos: White has 10 stones on the board and 9 still to place at move 1, more than the variant's 9"
    );
    assert_eq!(
        error("setoption name Variant value chess"),
        "info string error: setoption: option 'Variant': 'chess' is not one of nine, twelve, lasker"
    );
    assert_eq!(
        error("ucinewgame"),
        "info string error: unknown command 'ucinewgame'"
    );
}

#[test]
fn the_binary_speaks_gbgp_as_a_gui_drives_it() {
    let mut engine = EngineProcess::start();
    engine.send("gbgp");
    let listing = engine.read_until(|l| l == "gbgpok");
    assert!(
        listing
            .iter()
            .any(|l| l.starts_with("option name TwelveMensMorris"))
    );
    // What Nine Morris 3D sends, in its order.
    engine.send("debug on");
    engine.send("newgame");
    engine.send("isready");
    engine.read_until(|l| l == "readyok");
    engine.send("setoption name TwelveMensMorris value false");
    engine.send("position pos w:w:b:1 moves d6 d2");
    engine.send("go wtime 60000 btime 60000");
    let lines = engine.read_until(|l| l.starts_with("bestmove "));
    let mut pos = Position::startpos();
    for mv in ["d6", "d2"] {
        pos.play(mv.parse().unwrap());
    }
    assert!(pos.is_legal(best_move(&lines)), "{lines:?}");
    assert_eq!(engine.finish(true), Some(0));
}

proptest::proptest! {
    /// No text makes the reader panic; what it reads it writes back as
    /// read (up to the order of the points), and every variant checks it.
    #[test]
    fn no_text_makes_the_position_reader_panic(text in "[wb]:[wb]([a-g][1-7](,[a-g][1-7]){0,11})?:[wb]([a-g][1-7](,[a-g][1-7]){0,11})?:[0-9]{1,2}|[wb:,a-g1-7xW0-9]{0,40}") {
        if let Ok(read) = text.parse::<GbgpPosition>() {
            let again: GbgpPosition = read.to_string().parse().unwrap();
            proptest::prop_assert_eq!(again, read);
            for variant in Variant::ALL {
                if let Ok(pos) = read.position(Rules::new(variant)) {
                    proptest::prop_assert_eq!(GbgpPosition::from_position(&pos).map(|p| p.stones), Ok(read.stones));
                }
            }
        }
    }
}
