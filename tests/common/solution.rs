//! The databases the tests of the solved game share, built once a test
//! program into a folder of its own, and the plain searches that check
//! them without their help.

use std::path::PathBuf;
use std::sync::OnceLock;

use morris::Variant;
use morris::solution::retrograde::{PlacingBuild, SectorRange, generate, generate_unit};
use morris::solution::{Database, DbOutcome, Sector};
use morris::{Bitboard, Color, Position};

/// The sectors up to four stones a side, built once for all tests.
pub fn database() -> &'static (PathBuf, Database) {
    static DB: OnceLock<(PathBuf, Database)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("morris-endgame-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        generate(
            &dir,
            SectorRange::per_side(Variant::Nine, 4),
            &|_| {},
            |_| {},
        )
        .expect("generation");
        let (db, rejected) = Database::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}

/// Twelve Men's Morris up to four stones a side, both phases, built once
/// for all tests by `gen-db`'s library calls into a folder of its own.
pub fn twelve_database() -> &'static (PathBuf, Database) {
    static DB: OnceLock<(PathBuf, Database)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("morris-twelve-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let range = SectorRange::per_side(Variant::Twelve, 4);
        generate(&dir, range, &|_| {}, |_| {}).expect("generation");
        let sectors = Sector::placing_within(Variant::Twelve, 4);
        let mut build = PlacingBuild::new(&dir, &sectors);
        for &sector in &sectors {
            build.sector(sector, &|_| {}, |_| {}).expect("generation");
        }
        let (db, rejected) = Database::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}

/// Lasker Morris up to four stones a side (on the board and in hand), a
/// sector and its twin at a time, built once for all tests by `gen-db`'s
/// library calls into a folder of its own.
pub fn lasker_database() -> &'static (PathBuf, Database) {
    static DB: OnceLock<(PathBuf, Database)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("morris-lasker-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for unit in Sector::interleaved_within(Variant::Lasker, 4) {
            generate_unit(&dir, unit, &|_| {}, |_| {}).expect("generation");
        }
        let (db, rejected) = Database::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}

pub fn position(mover: Bitboard, other: Bitboard) -> Position {
    morris::solution::sector_position(Variant::Nine, mover, other)
}

/// The outcome of a placing position by plain minimax to the databases'
/// leaves (no pruning, no table): 1 win, 0 draw, -1 loss for the side to
/// move; a leaf's win or loss is a draw when its next removal comes after
/// the N-move rule.
pub fn plain_placing_minimax(db: &Database, pos: &Position) -> i8 {
    if pos.side_to_move_is_short() {
        return -1;
    }
    let limit = pos.rules().draw_plies().unwrap_or(u32::MAX);
    if pos.in_hand(Color::White) == 0 && pos.in_hand(Color::Black) == 0 {
        let value = db.value(pos).expect("leaf stored");
        // A block (a loss at 0) comes before the rule.
        if pos.plies_since_removal() + u32::from(value.distance) > limit {
            return 0;
        }
        return match value.outcome {
            DbOutcome::Win => 1,
            DbOutcome::Draw => 0,
            DbOutcome::Loss => -1,
        };
    }
    if pos.plies_since_removal() >= limit {
        return 0;
    }
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = *pos;
            child.play_unchecked(mv);
            -plain_placing_minimax(db, &child)
        })
        .max()
        .unwrap_or(-1)
}

/// The value of each of `moves` for the side making it, by plain minimax.
pub fn plain_move_values(db: &Database, pos: &Position, moves: &[morris::Move]) -> Vec<i8> {
    moves
        .iter()
        .map(|&mv| {
            let mut child = *pos;
            child.play_unchecked(mv);
            -plain_placing_minimax(db, &child)
        })
        .collect()
}

/// Random placing positions that end in sectors up to 4-4: `on_board`
/// stones a side, and the rest of four in hand, White to move (Black to
/// move with one more in hand than White).
pub fn placing_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut positions = Vec::new();
    while positions.len() < count {
        let on_board = 2 + (next() % 2) as u32;
        let mut white = Bitboard::EMPTY;
        let mut black = Bitboard::EMPTY;
        while white.len() < on_board || black.len() < on_board {
            let square = morris::Square::ALL[(next() % 24) as usize];
            if (white | black).contains(square) {
                continue;
            }
            if white.len() < on_board {
                white = white.with(square);
            } else {
                black = black.with(square);
            }
        }
        let hand = 4 - on_board;
        let white_to_move = next() % 2 == 0;
        let (side, white_hand, black_hand, white) = if white_to_move {
            ("w", hand, hand, white)
        } else {
            // White has placed one more: take one of its stones back into
            // Black's count by placing it for Black to answer.
            ("b", hand - 1, hand, white)
        };
        if white_hand + black_hand == 0 {
            continue;
        }
        let board = morris::solution::sector_position(Variant::Nine, white, black).fen();
        let board = board.split(' ').next().unwrap();
        let plies = next() % 60;
        let fen = format!("{board} {side} {white_hand} {black_hand} {plies} 10");
        let pos = Position::from_fen(&fen, morris::Rules::default()).unwrap();
        if pos.terminal_outcome().is_none() {
            positions.push(pos);
        }
    }
    positions
}

/// The position of a placing sector with `mover` and `other` on the board:
/// White to move when the hands are equal, Black (one more in hand) when not.
pub fn placing_position(sector: Sector, mover: Bitboard, other: Bitboard) -> Position {
    let (mover_hand, other_hand) = (sector.mover_hand, sector.other_hand);
    let (white, black, side, white_hand, black_hand) = if mover_hand == other_hand {
        (mover, other, "w", mover_hand, other_hand)
    } else {
        (other, mover, "b", other_hand, mover_hand)
    };
    let board = morris::solution::sector_position(sector.variant, white, black).fen();
    let board = board.split(' ').next().unwrap();
    let fen = format!("{board} {side} {white_hand} {black_hand} 0 1");
    Position::from_fen(&fen, sector.rules()).unwrap()
}

/// The databases of `database()` with the placing phase up to four stones
/// a side (on the board and in hand), built by `gen-db`'s library calls
/// into a folder of their own.
pub fn placing_database() -> &'static (PathBuf, Database) {
    static DB: OnceLock<(PathBuf, Database)> = OnceLock::new();
    DB.get_or_init(|| {
        let (moving, _) = database();
        let dir = std::env::temp_dir().join(format!("morris-placing-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(moving).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        let sectors = Sector::placing_within(Variant::Nine, 4);
        let mut build = PlacingBuild::new(&dir, &sectors);
        for &sector in &sectors {
            build.sector(sector, &|_| {}, |_| {}).expect("generation");
        }
        let (db, rejected) = Database::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}
