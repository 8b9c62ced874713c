//! `morris play` driven by a scripted person.

use std::io::Cursor;
use std::time::Duration;

use morris::play::{PlaySettings, parse_level, run};
use morris::{Color, Move, Position, Rules, Variant};

fn play(start: Position, human: Color, script: &str) -> String {
    let settings = PlaySettings {
        human,
        skill: 20,
        move_time: Duration::from_millis(20),
        start,
        endgame: None,
    };
    let mut out = Vec::new();
    run(Cursor::new(script.as_bytes().to_vec()), &mut out, settings).expect("in-memory output");
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn a_scripted_game_with_a_bad_token_a_hint_and_an_undo() {
    let out = play(
        Position::startpos(),
        Color::White,
        "xx9\nd6\nhint\nundo\nmoves\nquit\n",
    );
    assert!(out.contains("invalid move 'xx9'"), "{out}");
    let engine = out
        .split("Engine plays ")
        .nth(1)
        .expect("the engine replied");
    let reply: Move = engine.split('.').next().unwrap().parse().unwrap();
    let mut pos = Position::startpos();
    pos.play("d6".parse().unwrap());
    assert!(pos.is_legal(reply));
    let hint = out
        .split("Hint: ")
        .nth(1)
        .expect("a hint")
        .lines()
        .next()
        .unwrap();
    pos.play(reply);
    assert!(pos.is_legal(hint.parse().unwrap()), "{hint}");
    let after_undo = out.split("Taken back.").nth(1).expect("undo");
    assert!(
        after_undo.contains("White (WW): 9 in hand, 0 on the board"),
        "{after_undo}"
    );
    assert!(after_undo.contains("Legal moves: a7 d7 g7"));
    assert!(out.trim_end().ends_with("Goodbye."));
}

#[test]
fn a_mill_asks_which_stone_to_remove_and_the_end_is_explained() {
    let start = Position::from_fen(
        "WW./.../.../.W...W/B.B/.../.B. w 0 0 0 30",
        Rules::default(),
    )
    .unwrap();
    // A wrong answer and an empty one ask again; the mill is kept.
    let out = play(start, Color::White, "\ng4-g7\nq9\n\nxc3\n");
    assert!(
        out.contains("That closes a mill. Remove which stone (d1, e3, c3)?"),
        "{out}"
    );
    assert!(
        out.contains("'q9' cannot be removed. Remove which stone (d1, e3, c3)? "),
        "{out}"
    );
    assert!(
        !out.contains("not legal") && !out.contains("invalid"),
        "{out}"
    );
    let end = out
        .split("Game over: white wins (black has fewer than three stones). You win!")
        .next()
        .expect("the end");
    assert_ne!(end, out);
    // The final board is shown: the mill on a7-d7-g7, c3 empty again.
    let board = end.rsplit("Remove which stone").next().unwrap();
    assert!(board.contains("WW----------WW----------WW"), "{board}");
    assert!(board.contains("|   |   c3--d3--BB  |   |"), "{board}");
}

#[test]
fn the_twelve_board_shows_its_diagonals() {
    let out = play(
        Position::new(Rules::new(Variant::Twelve)),
        Color::White,
        "board\nquit\n",
    );
    assert!(out.contains("|   | \\     |     / |   |"), "{out}");
    assert!(out.contains("| /         |         \\ |"), "{out}");
    let nine = play(Position::startpos(), Color::White, "quit\n");
    assert!(!nine.contains('/'), "{nine}");
}

#[test]
fn nothing_to_take_back_at_the_start() {
    let out = play(Position::startpos(), Color::White, "undo\nd6-d5\nquit\n");
    assert!(out.contains("Nothing to take back."));
    assert!(out.contains("d6-d5 is not legal: stones in hand must be placed first."));
}

#[test]
fn levels_are_named_or_numbered() {
    assert_eq!(parse_level("easy"), Some(3));
    assert_eq!(parse_level("Medium"), Some(10));
    assert_eq!(parse_level("hard"), Some(20));
    assert_eq!(parse_level("7"), Some(7));
    assert_eq!(parse_level("21"), None);
    assert_eq!(parse_level("expert"), None);
}
