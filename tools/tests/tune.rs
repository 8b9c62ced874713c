//! morris-tune's data from the end of placing, checked against a plain
//! minimax over the databases.

use std::path::PathBuf;
use std::process::Command;

use morris::Variant;
use morris::solution::retrograde::{SectorRange, generate};
use morris::solution::{Database, DbOutcome};
use morris::{Color, Position, Rules};

/// Games in which White has four stones and Black three, so that every
/// placing position ends in the sectors up to 4-4, and many are won.
const FOUR_AGAINST_THREE: &str = "W../.../.../....../.../.../..W b 2 3 0 2";

/// The outcome of a placing position by plain minimax to the databases'
/// leaves, for the side to move: 1 win, 0 draw, -1 loss (the games are
/// too short for the N-move rule to draw a placing position itself).
fn minimax(db: &Database, pos: &Position) -> i8 {
    if pos.side_to_move_is_short() {
        return -1;
    }
    if pos.in_hand(Color::White) == 0 && pos.in_hand(Color::Black) == 0 {
        let value = db.value(pos).expect("leaf stored");
        // The N-move rule (60 plies) draws a removal that comes too late.
        if pos.plies_since_removal() + u32::from(value.distance) > 60 {
            return 0;
        }
        return match value.outcome {
            DbOutcome::Win => 1,
            DbOutcome::Draw => 0,
            DbOutcome::Loss => -1,
        };
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = *pos;
            child.play_unchecked(mv);
            -minimax(db, &child)
        })
        .max()
        .unwrap_or(-1)
}

fn run_placing(dir: &std::path::Path, out: &std::path::Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_morris-tune"))
        .arg("placing")
        .arg(dir)
        .args([
            "--start",
            FOUR_AGAINST_THREE,
            "--to-place",
            "3",
            "--samples",
            "40",
        ])
        .args([
            "--random-plies",
            "2",
            "--depth",
            "2",
            "--seed",
            "9",
            "--out",
        ])
        .arg(out)
        .status()
        .expect("morris-tune runs");
    assert!(status.success());
}

#[test]
fn placing_data_holds_exact_values_and_is_reproducible() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("morris-tune-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    generate(
        &dir.join("db"),
        SectorRange::per_side(Variant::Nine, 4),
        &|_| {},
        |_| {},
    )
    .expect("generation");
    let (db, _) = Database::open(&dir.join("db")).expect("open");
    let (first, second) = (dir.join("a.data"), dir.join("b.data"));
    run_placing(&dir.join("db"), &first);
    run_placing(&dir.join("db"), &second);
    let text = std::fs::read_to_string(&first).expect("data");
    assert_eq!(text, std::fs::read_to_string(&second).expect("data"));
    let mut labels = [0; 3];
    for line in text.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [fen, label, variant] = fields[..] else {
            panic!("not position, label and variant: {line}");
        };
        assert_eq!(variant, "nine", "{fen}");
        let pos = Position::from_fen(fen, Rules::default()).expect("a position");
        assert_eq!(
            pos.in_hand(Color::White) + pos.in_hand(Color::Black),
            3,
            "{fen}"
        );
        assert!(pos.legal_mill_moves().is_empty(), "not quiet: {fen}");
        let expected = match minimax(&db, &pos) {
            1 => "1",
            0 => "0.5",
            _ => "0",
        };
        assert_eq!(label, expected, "{fen}");
        labels[(minimax(&db, &pos) + 1) as usize] += 1;
    }
    assert_eq!(text.lines().count(), 40);
    // Not one label for all, so the check above can fail.
    assert!(labels.iter().filter(|&&n| n > 0).count() >= 2, "{labels:?}");
    let _ = std::fs::remove_dir_all(dir);
}
