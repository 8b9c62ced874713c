//! Endgame databases: built here for the small sectors and checked against
//! the rules, their own values one ply ahead, the symmetries, and a plain
//! search that knows nothing of them.

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use common::session::session;
use morris::solution::{
    DbOutcome, DbValue, EndgameDb, PlacingSector, SectorIndex, SectorRange, generate,
    generate_placing_sector,
};
use morris::{Bitboard, Color, Position, Symmetry};

/// The sectors up to four stones a side, built once for all tests.
fn database() -> &'static (PathBuf, EndgameDb) {
    static DB: OnceLock<(PathBuf, EndgameDb)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("morris-endgame-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        generate(&dir, SectorRange::per_side(4), &|_| {}, |_| {}).expect("generation");
        let (db, rejected) = EndgameDb::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}

fn position(mover: Bitboard, other: Bitboard) -> Position {
    morris::solution::sector_position(mover, other)
}

/// The value a position must have, computed from its children's stored
/// values (a removal reaching the next sector counts as distance one).
fn expected_from_children(db: &EndgameDb, pos: &Position) -> Option<DbValue> {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Some(DbValue::loss(0));
    }
    let mut best_win: Option<u16> = None;
    let mut longest_loss: u16 = 0;
    let mut any_draw = false;
    for mv in moves {
        let mut child = *pos;
        child.play_unchecked(mv);
        let child_value = if child.side_to_move_is_short() {
            DbValue::loss(0)
        } else {
            db.probe(&child)?
        };
        let plies = if mv.removal.is_some() {
            1
        } else {
            child_value.distance + 1
        };
        match child_value.outcome {
            DbOutcome::Loss => best_win = Some(best_win.map_or(plies, |d| d.min(plies))),
            DbOutcome::Win => longest_loss = longest_loss.max(plies),
            DbOutcome::Draw => any_draw = true,
        }
    }
    Some(match (best_win, any_draw) {
        (Some(d), _) => DbValue::win(d),
        (None, true) => DbValue::draw(),
        (None, false) => DbValue::loss(longest_loss),
    })
}

fn check_against_children(sectors: &[(usize, usize)], step: usize) {
    let (_, db) = database();
    for &(mover, other) in sectors {
        let sector = SectorIndex::new(mover, other);
        let mut checked = 0;
        for index in (0..sector.len()).step_by(step) {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let pos = position(m, o);
            let stored = db.probe(&pos).expect("stored");
            let expected = expected_from_children(db, &pos).expect("children stored");
            assert_eq!(stored, expected, "{mover}-{other}: {}", pos.fen());
            checked += 1;
        }
        assert!(checked > 0);
    }
}

#[test]
fn every_value_agrees_with_its_children() {
    check_against_children(&[(3, 3), (3, 4), (4, 3)], 1);
    check_against_children(&[(4, 4)], 13);
}

#[test]
#[ignore = "every 4-4 position: about a minute"]
fn every_four_four_value_agrees_with_its_children() {
    check_against_children(&[(4, 4)], 1);
}

#[test]
fn the_best_ranked_move_keeps_the_position_value() {
    let (_, db) = database();
    for (mover, other) in [(3, 3), (3, 4), (4, 3)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by(97) {
            let (m, o) = sector.decode(index);
            let pos = position(m, o);
            let ranked = db.rank_moves(&pos);
            let Some(&(best, value)) = ranked.first() else {
                continue;
            };
            assert_eq!(value, db.probe(&pos), "{}: {best}", pos.fen());
            assert_eq!(ranked.len(), pos.legal_moves().len());
        }
    }
}

#[test]
fn symmetric_positions_have_equal_values() {
    let (_, db) = database();
    let sector = SectorIndex::new(4, 3);
    for index in (0..sector.len()).step_by(1009) {
        let (m, o) = sector.decode(index);
        let value = db.value(m, o);
        for sym in Symmetry::ALL {
            assert_eq!(
                db.value(sym.apply_bitboard(m), sym.apply_bitboard(o)),
                value
            );
        }
    }
}

/// Whether the side to move forces a win of the game within `plies`
/// plies, by plain minimax over the rules, knowing nothing of databases.
fn plain_forced_win(pos: &Position, plies: u16) -> bool {
    pos.legal_moves().iter().any(|&mv| {
        let mut child = *pos;
        child.play_unchecked(mv);
        child
            .terminal_outcome()
            .is_some_and(|o| o.winner() == Some(pos.side_to_move()))
            || (plies >= 3
                && child.terminal_outcome().is_none()
                && child.legal_moves().iter().all(|&reply| {
                    let mut next = child;
                    next.play_unchecked(reply);
                    plain_forced_win(&next, plies - 2)
                }))
    })
}

#[test]
fn short_wins_and_losses_are_confirmed_by_a_plain_search() {
    // In 3-3 every removal ends the game, so a win at distance d is a
    // forced win of the game in d plies, and a loss at d is a forced loss.
    let (_, db) = database();
    let sector = SectorIndex::new(3, 3);
    let (mut wins, mut losses) = (0, 0);
    for index in (0..sector.len()).step_by(211) {
        let (m, o) = sector.decode(index);
        if sector.canonical(m, o).index != index {
            continue;
        }
        let pos = position(m, o);
        let Some(value) = db.probe(&pos) else {
            continue;
        };
        match value.outcome {
            DbOutcome::Win if value.distance <= 3 => {
                assert!(plain_forced_win(&pos, value.distance), "{}", pos.fen());
                assert!(
                    value.distance < 3 || !plain_forced_win(&pos, value.distance - 2),
                    "{}",
                    pos.fen()
                );
                wins += 1;
            }
            DbOutcome::Loss if value.distance <= 2 => {
                let all_lose = pos.legal_moves().iter().all(|&mv| {
                    let mut child = pos;
                    child.play_unchecked(mv);
                    // The opponent wins at once (a loss at 0 has no moves).
                    plain_forced_win(&child, 1)
                });
                assert!(all_lose, "{}", pos.fen());
                losses += 1;
            }
            DbOutcome::Draw => assert!(!plain_forced_win(&pos, 3), "{}", pos.fen()),
            _ => {}
        }
    }
    assert!(
        wins > 10 && losses > 0,
        "{wins} wins, {losses} losses checked"
    );
}

/// The engine's move with the databases, at a small depth.
fn engine_move(game: &morris::Game, db: &std::sync::Arc<EndgameDb>) -> morris::Move {
    let request = morris::search::SearchRequest {
        endgame: Some(std::sync::Arc::clone(db)),
        ..morris::search::SearchRequest::new(
            *game.position(),
            game.keys(),
            morris::search::SearchLimits::depth(2),
        )
    };
    let tt = std::sync::Arc::new(morris::search::TranspositionTable::new(1).unwrap());
    request.run(tt).best.expect("a move in a live position")
}

#[test]
fn won_positions_are_won_against_the_best_defence() {
    let (dir, _) = database();
    let (db, _) = EndgameDb::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let sector = SectorIndex::new(mover, other);
        // The longest wins of the sector are the hardest to convert.
        let longest = db
            .headers()
            .iter()
            .find(|h| (h.mover, h.other) == (mover as u8, other as u8))
            .unwrap()
            .longest_win;
        let wanted = longest.min(3) as u16;
        let mut played = 0;
        let mut index = 0;
        while played < 3 && index < sector.len() {
            let (m, o) = sector.decode(index);
            index += 1;
            if sector.canonical(m, o).index != index - 1 {
                continue;
            }
            let start = position(m, o);
            let Some(value) = db.probe(&start) else {
                continue;
            };
            if value.outcome != DbOutcome::Win || value.distance < wanted {
                continue;
            }
            let mut game = morris::Game::new(start);
            while game.outcome().is_none() {
                let mv = engine_move(&game, &db);
                game.try_play(mv).expect("the engine plays legal moves");
            }
            let outcome = game.outcome().unwrap();
            assert_eq!(
                outcome.winner(),
                Some(Color::White),
                "{mover}-{other} from {}: {outcome}",
                start.fen()
            );
            played += 1;
        }
        assert!(played > 0, "no long win found in {mover}-{other}");
    }
}

#[test]
fn in_a_won_position_the_engine_plays_a_win_of_fewest_plies_to_the_next_removal() {
    // Distances count to the next removal only, so a search that adds them
    // up across removals prefers a longer count now to a removal whose
    // next phase is long, and can go round in circles: the engine must
    // play a move of the shortest count.
    let (dir, _) = database();
    let (db, _) = EndgameDb::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    let mut checked = 0;
    let mut removal_preferred = 0;
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by(89) {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let start = position(m, o);
            if db.probe(&start).map(|v| v.outcome) != Some(DbOutcome::Win) {
                continue;
            }
            let ranked = db.rank_moves(&start);
            let shortest = ranked[0].1.expect("known").distance;
            let mv = engine_move(&morris::Game::new(start), &db);
            let value = ranked
                .iter()
                .find(|(m, _)| *m == mv)
                .and_then(|(_, v)| *v)
                .expect("a known move");
            assert_eq!(
                (value.outcome, value.distance),
                (DbOutcome::Win, shortest),
                "{} played {mv}",
                start.fen()
            );
            checked += 1;
            let slower_wins = ranked
                .iter()
                .filter(|(_, v)| v.is_some_and(|v| v.outcome == DbOutcome::Win))
                .count();
            if shortest == 1 && mv.removal.is_some() && slower_wins > 1 {
                removal_preferred += 1;
            }
        }
    }
    assert!(
        checked > 200 && removal_preferred > 20,
        "{checked} {removal_preferred}"
    );
}

#[test]
fn damaged_and_foreign_files_are_refused_by_name() {
    use morris::DbProblem;
    use morris::solution::SectorFile;
    let (dir, _) = database();
    let good = std::fs::read(dir.join("nine-flying-3-3.mdb")).unwrap();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let try_file = |name: &str, bytes: &[u8]| {
        let path = scratch.join(name);
        std::fs::write(&path, bytes).unwrap();
        let err = SectorFile::open(&path).err().expect("refused");
        assert_eq!(err.path, path);
        std::fs::remove_file(&path).unwrap();
        err.problem
    };
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &good[..10]),
        DbProblem::TooShort
    ));
    let truncated = &good[..good.len() - 2];
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", truncated),
        DbProblem::Length { .. }
    ));
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &flipped),
        DbProblem::Checksum
    ));
    let mut foreign = good.clone();
    foreign[..8].copy_from_slice(b"NOTMORRI");
    assert!(matches!(
        try_file("nine-flying-3-3.mdb", &foreign),
        DbProblem::BadMagic
    ));
    assert!(matches!(
        try_file("nine-flying-3-4.mdb", &good),
        DbProblem::Sector { .. }
    ));
    // A folder with one good and one damaged file loads the good one.
    std::fs::write(scratch.join("nine-flying-3-3.mdb"), &good).unwrap();
    std::fs::write(scratch.join("nine-flying-4-3.mdb"), &good[..100]).unwrap();
    let (db, rejected) = EndgameDb::open(&scratch).unwrap();
    assert_eq!(db.len(), 1);
    assert_eq!(rejected.len(), 1);
    assert!(rejected[0].to_string().contains("nine-flying-4-3.mdb"));
    // Through the protocol: the engine says what it left out and plays on,
    // probing 3-3 behind a removal from 3-4 (whose file was refused).
    let script = format!(
        "setoption name EndgameDB value {}\nsetoption name EndgameDB value /nonexistent/folder\nisready\nposition fen W.W/.../BB./....../..B/.W./W.. b 0 0 0 40\ngo depth 2\n",
        scratch.display()
    );
    let out = session(script.as_bytes()).join("\n");
    assert!(
        out.contains("info string endgame database left out: "),
        "{out}"
    );
    assert!(
        out.contains("info string endgame databases: 1 sectors loaded"),
        "{out}"
    );
    assert!(
        out.contains("info string error: setoption: option 'EndgameDB'"),
        "{out}"
    );
    assert!(out.contains("readyok"));
    let info = out
        .lines()
        .rev()
        .find(|l| l.starts_with("info depth 2"))
        .unwrap();
    assert!(!info.contains(" dbhits 0 "), "{info}");
    assert!(out.contains("bestmove "));
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_damaged_block_is_found_when_read_and_its_values_are_not_used() {
    use morris::DbProblem;
    use morris::solution::SectorFile;
    let (dir, _) = database();
    let name = "nine-flying-4-4.mdb";
    let mut bytes = std::fs::read(dir.join(name)).unwrap();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-block-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    // An entry in the middle of the file: the header and the tables are
    // intact, so the file opens.
    let sector = SectorIndex::new(4, 4);
    let (m, o) = (0..sector.len())
        .map(|index| sector.decode(index))
        .find(|&(m, o)| sector.canonical(m, o).index > sector.len() / 2)
        .unwrap();
    // The entries follow the 112-byte header, a byte each.
    let at = 112 + sector.canonical(m, o).index as usize;
    bytes[at] ^= 0x3;
    std::fs::write(scratch.join(name), &bytes).unwrap();
    let file = SectorFile::open(&scratch.join(name)).expect("the header and tables are intact");
    assert!(matches!(
        file.verify().unwrap_err().problem,
        DbProblem::Checksum
    ));
    let (db, rejected) = EndgameDb::open(&scratch).unwrap();
    assert!(rejected.is_empty());
    assert!(db.damaged().is_empty());
    assert_eq!(db.value(m, o), None, "a damaged block's value is not used");
    assert_eq!(db.damaged(), vec![scratch.join(name).as_path()]);
    // Values of other blocks still serve.
    let (m0, o0) = sector.decode(0);
    assert_eq!(db.value(m0, o0), database().1.value(m0, o0));
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn checking_against_successors_passes_the_built_values_and_finds_a_planted_error() {
    use morris::solution::{SmallerSectors, build_pair, check_sector, write_sector};
    let (dir, db) = database();
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let check = check_sector(db, SectorIndex::new(mover, other), None, &|_| {});
        assert!(check.checked > 0);
        assert_eq!(
            (check.wrong_count, check.unknown),
            (0, 0),
            "{mover}-{other}: {check:?}"
        );
    }
    // 3-3 rebuilt with one value changed: a win said to be a draw.
    struct Nothing;
    impl SmallerSectors for Nothing {
        fn values(&self, positions: &[(Bitboard, Bitboard)], values: &mut Vec<Option<DbValue>>) {
            values.extend(positions.iter().map(|_| None));
        }
    }
    let mut built = build_pair(3, 3, &Nothing, &|_| {}).remove(0);
    let planted = built
        .values
        .iter()
        .position(|&v| DbValue::decode(v).is_some_and(|v| v.outcome == DbOutcome::Win))
        .unwrap();
    built.values[planted] = DbValue::draw().encode();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-plant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    write_sector(&scratch, &built).unwrap();
    let (planted_db, _) = EndgameDb::open(&scratch).unwrap();
    let sector = SectorIndex::new(3, 3);
    let check = check_sector(&planted_db, sector, None, &|_| {});
    assert!(check.wrong.contains(&(planted as u64)), "{check:?}");
    // A sample checks fewer.
    let sampled = check_sector(db, sector, Some(1000), &|_| {});
    assert!(sampled.checked > 0 && sampled.checked < check.checked);
    // Through the command line: the good folder passes, the planted fails.
    let run = |folder: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
            .args(["db-verify", &folder.display().to_string()])
            .output()
            .unwrap()
    };
    let good = run(dir);
    let text = String::from_utf8_lossy(&good.stdout);
    assert!(good.status.success(), "{text}");
    assert!(text.contains("4-4: checksums good; "), "{text}");
    assert!(text.contains("All 4 sectors verified"), "{text}");
    let bad = run(&scratch);
    let text = String::from_utf8_lossy(&bad.stdout);
    assert!(!bad.status.success());
    assert!(
        text.contains("3-3: checksums good; ") && text.contains("WRONG"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
#[ignore = "builds up to 8 stones and checks 5-3 and 3-5 whole: a few minutes"]
fn five_three_values_agree_with_their_children() {
    let dir = std::env::temp_dir().join(format!("morris-endgame-53-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let range = SectorRange {
        per_side: 5,
        total: 8,
    };
    generate(&dir, range, &|_| {}, |_| {}).expect("generation");
    let (db, _) = EndgameDb::open(&dir).expect("open");
    for (mover, other) in [(5, 3), (3, 5)] {
        let sector = SectorIndex::new(mover, other);
        for index in 0..sector.len() {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let pos = position(m, o);
            let stored = db.probe(&pos).expect("stored");
            assert_eq!(
                Some(stored),
                expected_from_children(&db, &pos),
                "{}",
                pos.fen()
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The outcome of a placing position by plain minimax to the databases'
/// leaves (no pruning, no table): 1 win, 0 draw, -1 loss for the side to
/// move; a leaf's win or loss is a draw when its next removal comes after
/// the N-move rule.
fn plain_placing_minimax(db: &EndgameDb, pos: &Position) -> i8 {
    if pos.side_to_move_is_short() {
        return -1;
    }
    if pos.plies_since_removal() >= 60 {
        return 0;
    }
    if pos.in_hand(Color::White) == 0 && pos.in_hand(Color::Black) == 0 {
        let value = db.probe(pos).expect("leaf stored");
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
            -plain_placing_minimax(db, &child)
        })
        .max()
        .unwrap_or(-1)
}

/// The value of each of `moves` for the side making it, by plain minimax.
fn plain_move_values(db: &EndgameDb, pos: &Position, moves: &[morris::Move]) -> Vec<i8> {
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
fn placing_positions(count: usize, seed: u64) -> Vec<Position> {
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
        let board = morris::solution::sector_position(white, black).fen();
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

#[test]
fn the_end_of_placing_solver_agrees_with_plain_minimax() {
    use morris::search::PlacingSolver;
    let (_, db) = database();
    let mut outcomes = [0; 3];
    // What one solve proves is kept for the next, as the engine keeps it
    // from move to move: the values stay exact.
    let mut table = morris::search::PlacingTable::default();
    for pos in placing_positions(60, 0x5EED) {
        let mut solver = PlacingSolver::with_table(db, table, None, None);
        let solved = solver.solve(&pos).unwrap();
        let plain = plain_placing_minimax(db, &pos);
        let expected = match plain {
            1 => DbOutcome::Win,
            0 => DbOutcome::Draw,
            _ => DbOutcome::Loss,
        };
        assert_eq!(solved, expected, "{}", pos.fen());
        let moves = pos.legal_moves();
        for (mv, outcome) in solver.solve_moves(&pos, &moves).unwrap() {
            let mut child = pos;
            child.play_unchecked(mv);
            let theirs = plain_placing_minimax(db, &child);
            let ours = match -theirs {
                1 => DbOutcome::Win,
                0 => DbOutcome::Draw,
                _ => DbOutcome::Loss,
            };
            assert_eq!(outcome, ours, "{} {mv}", pos.fen());
            outcomes[(1 - theirs) as usize] += 1;
        }
        table = solver.into_table();
        // Solved again from the kept table, the position takes one node.
        let mut again = PlacingSolver::with_table(db, table, None, None);
        assert_eq!(again.solve(&pos).unwrap(), expected);
        assert_eq!(again.nodes(), 1, "{}", pos.fen());
        table = again.into_table();
    }
    // The moves' outcomes hold each kind, so none is right by default.
    assert!(outcomes.iter().all(|&n| n > 0), "{outcomes:?}");
}

#[test]
fn the_best_moves_of_the_end_of_placing_are_those_of_plain_minimax() {
    use morris::search::PlacingSolver;
    let (_, db) = database();
    let (mut narrowed, mut stopped) = (0, 0);
    for pos in placing_positions(60, 0xB357) {
        let moves = pos.legal_moves();
        let values = plain_move_values(db, &pos, &moves);
        let best = *values.iter().max().unwrap();
        let mut expected: Vec<String> = moves
            .iter()
            .zip(&values)
            .filter(|&(_, &v)| v == best)
            .map(|(mv, _)| mv.to_string())
            .collect();
        let mut solver = PlacingSolver::new(db, None, None);
        let choice = solver.best_moves(&pos, &moves).unwrap();
        assert!(choice.complete);
        let mut kept: Vec<String> = choice.kept.iter().map(|mv| mv.to_string()).collect();
        kept.sort();
        expected.sort();
        let rank = |v: i8| [DbOutcome::Loss, DbOutcome::Draw, DbOutcome::Win][(v + 1) as usize];
        assert_eq!(choice.outcome, rank(best), "{}", pos.fen());
        assert_eq!(kept, expected, "{}", pos.fen());
        narrowed += usize::from(kept.len() < moves.len());

        // Stopped midway, the solver drops only moves worse than one it
        // proved, so a best move is always kept.
        for budget in [5, 20, 80, 320] {
            let mut solver = PlacingSolver::new(db, None, Some(budget));
            let Ok(choice) = solver.best_moves(&pos, &moves) else {
                continue;
            };
            let proven = score_of(choice.outcome);
            assert!(proven <= best, "{} budget {budget}", pos.fen());
            for (mv, &value) in moves.iter().zip(&values) {
                let kept = choice.kept.contains(mv);
                assert!(
                    kept || value < best,
                    "{} {mv} dropped, budget {budget}",
                    pos.fen()
                );
                // Once a win is proven, only proven wins are kept.
                assert!(
                    !kept || proven < 1 || value == 1,
                    "{} {mv} kept, budget {budget}",
                    pos.fen()
                );
            }
            stopped += usize::from(!choice.complete);
        }
    }
    // Positions where some moves throw the best outcome away.
    assert!(narrowed >= 10, "{narrowed}");
    assert!(stopped >= 10, "{stopped}");
}

/// An outcome as 1 win, 0 draw, -1 loss.
fn score_of(outcome: DbOutcome) -> i8 {
    match outcome {
        DbOutcome::Win => 1,
        DbOutcome::Draw => 0,
        DbOutcome::Loss => -1,
    }
}

#[test]
fn the_engine_keeps_the_best_outcome_of_the_end_of_placing() {
    let (dir, db) = database();
    let mut seen = 0;
    for pos in placing_positions(40, 0xFACE) {
        let moves = pos.legal_moves();
        let values = plain_move_values(db, &pos, &moves);
        let best = *values.iter().max().unwrap();
        // Only positions where some moves throw the best outcome away.
        if values.iter().all(|&v| v == best) {
            continue;
        }
        seen += 1;
        let script = format!(
            "setoption name EndgameDB value {}\nposition fen {}\ngo depth 1\n",
            dir.display(),
            pos.fen()
        );
        let out = session(script.as_bytes()).join("\n");
        let word = ["loss", "draw", "win"][(best + 1) as usize];
        assert!(
            out.contains(&format!("info string end of placing solved: {word}; ")),
            "{out}"
        );
        let played = out
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let index = moves
            .iter()
            .position(|mv| mv.to_string() == played)
            .unwrap();
        assert_eq!(values[index], best, "{} played {played}\n{out}", pos.fen());
    }
    assert!(seen >= 5, "{seen}");
}

/// The nodes the engine's end-of-placing solver took in a search of its
/// position to depth 1.
fn placing_solver_nodes(engine: &mut morris::Engine) -> Option<u64> {
    let (events, received) = crossbeam_channel::unbounded();
    engine
        .go(morris::search::SearchLimits::depth(1), events)
        .expect("a search");
    let mut nodes = None;
    for event in received {
        match event {
            morris::search::SearchEvent::PlacingSolved { nodes: n, .. } => nodes = Some(n),
            morris::search::SearchEvent::BestMove { best, ponder } => {
                engine.finish_search(best, ponder);
                break;
            }
            _ => {}
        }
    }
    nodes
}

#[test]
fn the_engine_keeps_what_it_solved_of_the_end_of_placing_until_a_new_game() {
    let (dir, _) = database();
    let pos = placing_positions(40, 0xC0DE)
        .into_iter()
        .find(|p| p.in_hand(Color::White) + p.in_hand(Color::Black) >= 3)
        .expect("a position with three stones to place");
    let mut engine = morris::Engine::new().unwrap();
    engine
        .set_option("EndgameDB", &dir.to_string_lossy())
        .unwrap();
    let solve = |engine: &mut morris::Engine| {
        engine.set_position(Some(&pos.fen()), &[]).unwrap();
        placing_solver_nodes(engine).expect("solved")
    };
    let first = solve(&mut engine);
    // The second search finds the root's moves solved; a new game forgets.
    let again = solve(&mut engine);
    assert!(again < first, "{first} then {again}");
    engine.new_game().unwrap();
    assert_eq!(solve(&mut engine), first);
}

#[test]
fn a_database_win_counts_only_if_its_removal_comes_before_the_n_move_rule() {
    let (dir, db) = database();
    // A won 3-3 position whose next removal is a few plies away.
    let sector = SectorIndex::new(3, 3);
    let (mover, other, distance) = (0..sector.len())
        .step_by(7)
        .find_map(|index| {
            let (m, o) = sector.decode(index);
            let value = db.value(m, o)?;
            (value.outcome == DbOutcome::Win && value.distance >= 3).then_some((
                m,
                o,
                value.distance,
            ))
        })
        .expect("a won position");
    let board = position(mover, other).fen();
    let board = board.split(' ').next().unwrap();
    let score_at = |plies: u32| {
        let script = format!(
            "setoption name EndgameDB value {}\nposition fen {board} w 0 0 {plies} 40\ngo depth 2\n",
            dir.display()
        );
        let out = session(script.as_bytes()).join("\n");
        let info = out
            .lines()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .unwrap()
            .to_owned();
        let cp: i32 = info
            .split(" score cp ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|cp| cp.parse().ok())
            .unwrap_or_else(|| panic!("{info}"));
        cp
    };
    // In time: the win, its removal `distance` plies away.
    assert_eq!(
        score_at(60 - u32::from(distance)),
        20_000 - i32::from(distance)
    );
    // One ply too late: the rule draws it first.
    assert!(score_at(61 - u32::from(distance)).abs() < 1000);
}

#[test]
fn the_databases_hold_the_end_of_placing_only_when_they_have_its_sectors() {
    let (_, db) = database();
    let fen = |text: &str| Position::from_fen(text, morris::Rules::default()).unwrap();
    // Four stones each, placed or in hand: the 4-4 sector ends the placing.
    assert!(db.holds_end_of_placing(&fen("W../.B./.../....../.../.../... w 3 3 0 3")));
    // Five for White, after a removal: 5-4 and 4-5 are not built.
    assert!(!db.holds_end_of_placing(&fen("WW./.B./.../....../.../.../... w 3 3 0 3")));
    assert!(!db.holds_end_of_placing(&Position::startpos()));
    // Another variant's placing is not theirs.
    let twelve = morris::Rules {
        variant: morris::Variant::Twelve,
        ..morris::Rules::default()
    };
    let small = Position::from_fen("W../.B./.../....../.../.../... w 3 3 0 3", twelve).unwrap();
    assert!(!db.holds_end_of_placing(&small));
}

/// The engine's search of `pos` to `depth`, with the databases or without,
/// among `moves` (all when empty).
fn search_result(
    pos: &Position,
    depth: u32,
    db: Option<&std::sync::Arc<EndgameDb>>,
    moves: &[morris::Move],
) -> morris::search::SearchResult {
    let mut limits = morris::search::SearchLimits::depth(depth);
    limits.search_moves = moves.to_vec();
    let request = morris::search::SearchRequest {
        endgame: db.cloned(),
        ..morris::search::SearchRequest::new(*pos, &[pos.key()], limits)
    };
    request.run(std::sync::Arc::new(
        morris::search::TranspositionTable::new(1).unwrap(),
    ))
}

#[test]
fn among_drawing_moves_the_engine_searches_as_if_the_draws_were_unknown() {
    let (dir, _) = database();
    let (db, _) = EndgameDb::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    let (mut drawn, mut compared) = (0, 0);
    for (mover, other) in [(4, 4), (3, 4), (4, 3)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by((sector.len() / 300) as usize) {
            let (m, o) = sector.decode(index);
            let start = position(m, o);
            if start.terminal_outcome().is_some()
                || db.probe(&start).map(|v| v.outcome) != Some(DbOutcome::Draw)
            {
                continue;
            }
            let drawing: Vec<morris::Move> = db
                .rank_moves(&start)
                .into_iter()
                .filter(|(_, value)| value.is_some_and(|v| v.outcome == DbOutcome::Draw))
                .map(|(mv, _)| mv)
                .collect();
            if drawing.len() < 2 {
                continue;
            }
            let with_db = search_result(&start, 3, Some(&db), &[]);
            let best = with_db.best.unwrap();
            assert!(drawing.contains(&best), "{} played {best}", start.fen());
            drawn += 1;
            // Where the search met no win or loss of the databases, it saw
            // what a search without them, given the drawing moves, sees.
            let info = with_db.last_info.unwrap();
            if info.dbhits == 0 {
                let without = search_result(&start, 3, None, &drawing);
                assert_eq!(without.best, Some(best), "{}", start.fen());
                assert_eq!(
                    without.last_info.unwrap().score,
                    info.score,
                    "{}",
                    start.fen()
                );
                compared += 1;
            }
        }
    }
    assert!(
        drawn >= 400 && compared >= 100,
        "{drawn} drawn, {compared} compared"
    );
}

/// The outcome of a placing position for the side to move by plain
/// minimax over the rules to the moving phase's stored values, the draw
/// rules left out (as the placing phase's values leave them), remembering
/// the positions seen in `seen` (by their least symmetric image).
fn plain_placing_outcome(
    db: &EndgameDb,
    pos: &Position,
    seen: &mut std::collections::HashMap<(u32, u32, u8, u8, bool), DbOutcome>,
) -> DbOutcome {
    let (white, black) = (pos.stones(Color::White), pos.stones(Color::Black));
    // Symmetric positions have one value: the least image stands for all.
    let (white, black) = Symmetry::ALL
        .iter()
        .map(|sym| (sym.apply_bitboard(white).0, sym.apply_bitboard(black).0))
        .min()
        .unwrap();
    let key = (
        white,
        black,
        pos.in_hand(Color::White),
        pos.in_hand(Color::Black),
        pos.side_to_move() == Color::White,
    );
    if let Some(&outcome) = seen.get(&key) {
        return outcome;
    }
    let outcome = if pos.side_to_move_is_short() {
        DbOutcome::Loss
    } else if pos.stones_to_place() == 0 {
        db.probe(pos).expect("leaf stored").outcome
    } else {
        pos.legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                -plain_placing_outcome(db, &child, seen)
            })
            .max()
            .expect("a placement")
    };
    seen.insert(key, outcome);
    outcome
}

/// The position of a placing sector with `mover` and `other` on the board:
/// White to move when the hands are equal, Black (one more in hand) when not.
fn placing_position(sector: PlacingSector, mover: Bitboard, other: Bitboard) -> Position {
    let (mover_hand, other_hand) = (sector.mover_hand, sector.other_hand);
    let (white, black, side, white_hand, black_hand) = if mover_hand == other_hand {
        (mover, other, "w", mover_hand, other_hand)
    } else {
        (other, mover, "b", other_hand, mover_hand)
    };
    let board = morris::solution::sector_position(white, black).fen();
    let board = board.split(' ').next().unwrap();
    let fen = format!("{board} {side} {white_hand} {black_hand} 0 1");
    Position::from_fen(&fen, morris::Rules::default()).unwrap()
}

/// The databases of `database()` with the placing phase up to four stones
/// a side (on the board and in hand), built by `gen-db`'s library calls
/// into a folder of their own.
fn placing_database() -> &'static (PathBuf, EndgameDb) {
    static DB: OnceLock<(PathBuf, EndgameDb)> = OnceLock::new();
    DB.get_or_init(|| {
        let (moving, _) = database();
        let dir = std::env::temp_dir().join(format!("morris-placing-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(moving).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        for sector in PlacingSector::within(4) {
            generate_placing_sector(&dir, sector, &|_| {}, |_| {}).expect("generation");
        }
        let (db, rejected) = EndgameDb::open(&dir).expect("open");
        assert!(rejected.is_empty(), "{rejected:?}");
        (dir, db)
    })
}

#[test]
fn placing_values_equal_a_plain_minimax_up_to_four_stones_a_side() {
    let (_, db) = placing_database();
    let small = PlacingSector::within(4);
    let mut seen = std::collections::HashMap::new();
    let mut outcomes = [0; 3];
    for &sector in &small {
        for index in 0..sector.len() {
            let (mover, other) = sector.board.decode(index);
            if sector.board.canonical(mover, other).index != index {
                continue;
            }
            let pos = placing_position(sector, mover, other);
            let expected = plain_placing_outcome(db, &pos, &mut seen);
            assert_eq!(db.placing_outcome(&pos), Some(expected), "{}", pos.fen());
            outcomes[expected as usize] += 1;
        }
    }
    // Sectors from the first placement to the last, and each outcome
    // many times.
    assert!(small.contains(&PlacingSector::new(0, 0, 4, 4).unwrap()));
    assert!(small.contains(&PlacingSector::new(3, 4, 1, 0).unwrap()));
    assert!(outcomes.iter().all(|&n| n > 1000), "{outcomes:?}");
}

#[test]
fn placing_values_equal_the_end_of_placing_solver_without_the_n_move_rule() {
    use morris::search::PlacingSolver;
    let (_, db) = placing_database();
    let mut compared = [0; 3];
    for sector in PlacingSector::within(4) {
        if !(6..=8).contains(&sector.to_place()) {
            continue;
        }
        // A spread of each sector's positions.
        let step = (sector.len() / 40).max(1);
        for index in (0..sector.len()).step_by(step as usize) {
            let (mover, other) = sector.board.decode(index);
            let pos = placing_position(sector, mover, other);
            let free = Position::from_fen(
                &pos.fen(),
                morris::Rules {
                    n_move_rule: 0,
                    ..morris::Rules::default()
                },
            )
            .unwrap();
            let solved = PlacingSolver::new(db, None, None).solve(&free).unwrap();
            assert_eq!(db.placing_outcome(&pos), Some(solved), "{}", pos.fen());
            compared[solved as usize] += 1;
        }
    }
    assert!(compared.iter().sum::<usize>() > 100, "{compared:?}");
}

/// About `per_sector` positions of each sector of `placing_database()`
/// where a move throws the value away, and that value, under rules
/// without the N-move rule: the end-of-placing solver is then left out,
/// and the placing phase's databases alone choose.
fn placing_positions_that_can_err(db: &EndgameDb, per_sector: u64) -> Vec<(Position, DbOutcome)> {
    let rules = morris::Rules {
        n_move_rule: 0,
        ..morris::Rules::default()
    };
    let mut found = Vec::new();
    for sector in PlacingSector::within(4) {
        let step = (sector.len() / per_sector).max(1);
        for index in (0..sector.len()).step_by(step as usize) {
            let (mover, other) = sector.board.decode(index);
            let fen = placing_position(sector, mover, other).fen();
            let pos = Position::from_fen(&fen, rules).unwrap();
            if pos.terminal_outcome().is_some() {
                continue;
            }
            let value = db.placing_outcome(&pos).unwrap();
            if db
                .move_outcomes(&pos)
                .iter()
                .any(|&(_, outcome)| outcome != Some(value))
            {
                found.push((pos, value));
            }
        }
    }
    found
}

#[test]
fn with_the_placing_phase_the_engine_plays_only_moves_that_keep_the_value() {
    let (dir, _) = placing_database();
    let db = std::sync::Arc::new(EndgameDb::open(dir).unwrap().0);
    let positions = placing_positions_that_can_err(&db, 50);
    for (pos, value) in &positions {
        let mv = engine_move(&morris::Game::new(*pos), &db);
        assert_eq!(
            db.outcome_after(pos, mv),
            Some(*value),
            "{} {mv}",
            pos.fen()
        );
    }
    assert!(positions.len() >= 20, "{}", positions.len());
}

#[test]
fn on_the_clock_the_placing_phase_chooses_the_move_too() {
    // A search on the clock reads the databases from memory only; the
    // root's values are read (or waited for) before it decides.
    let (dir, _) = placing_database();
    let db = std::sync::Arc::new(EndgameDb::open(dir).unwrap().0);
    let mut checked = 0;
    for (pos, value) in placing_positions_that_can_err(&db, 8) {
        // Only where the first move generated throws the value away.
        if db.outcome_after(&pos, pos.legal_moves()[0]) == Some(value) {
            continue;
        }
        let limits = morris::search::SearchLimits {
            limits: vec![morris::search::Limit::MoveTime(
                std::time::Duration::from_millis(40),
            )],
            ..morris::search::SearchLimits::default()
        };
        let request = morris::search::SearchRequest {
            endgame: Some(std::sync::Arc::clone(&db)),
            ..morris::search::SearchRequest::new(pos, &[pos.key()], limits)
        };
        let tt = std::sync::Arc::new(morris::search::TranspositionTable::new(1).unwrap());
        let mv = request.run(tt).best.unwrap();
        assert_eq!(
            db.outcome_after(&pos, mv),
            Some(value),
            "{} {mv}",
            pos.fen()
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn values_read_in_the_background_are_those_read_waiting() {
    use morris::solution::{Reads, Urgency, blocks_read, wait_for_reads_after};
    let (dir, _) = placing_database();
    // A database of its own, so that no other test has read its blocks.
    let db = EndgameDb::open(dir).unwrap().0;
    let positions: Vec<Position> = PlacingSector::within(4)
        .into_iter()
        .flat_map(|sector| {
            let step = (sector.len() / 4).max(1);
            (0..sector.len())
                .step_by(step as usize)
                .map(move |index| {
                    let (mover, other) = sector.board.decode(index);
                    placing_position(sector, mover, other)
                })
                .collect::<Vec<_>>()
        })
        .chain((0..400).map(|seed| {
            let (mover, other) = SectorIndex::new(4, 4).decode(seed * 9_000);
            position(mover, other)
        }))
        .collect();
    // Read ahead, none is read while asked for: the reader reads them.
    for pos in &positions {
        db.ready_or_ask(pos, Urgency::Game);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let seen = blocks_read();
        if positions
            .iter()
            .all(|pos| db.ready_or_ask(pos, Urgency::Root))
        {
            break;
        }
        assert!(wait_for_reads_after(seen, deadline), "blocks never read");
    }
    for pos in &positions {
        assert_eq!(db.probe_with(pos, Reads::InMemory), Ok(db.probe(pos)));
    }
    assert!(positions.iter().any(|pos| db.probe(pos).is_some()));
}

#[test]
fn with_the_placing_phase_info_reports_the_exact_value() {
    let (dir, db) = placing_database();
    // A drawn start, and a won position found in the databases.
    let drawn = ".../.../.../....../.../.../... w 4 4 0 1".to_owned();
    let won = PlacingSector::within(4)
        .into_iter()
        .filter(|s| s.to_place() >= 3)
        .find_map(|sector| {
            (0..sector.len()).find_map(|index| {
                let (mover, other) = sector.board.decode(index);
                let pos = placing_position(sector, mover, other);
                (pos.terminal_outcome().is_none()
                    && db.placing_outcome(&pos) == Some(DbOutcome::Win))
                .then(|| pos.fen())
            })
        })
        .expect("a won placing position");
    for (fen, wdl) in [(drawn, "wdl 0 1000 0"), (won, "wdl 1000 0 0")] {
        let script = format!(
            "setoption name EndgameDB value {}\nsetoption name UCI_ShowWDL value true\nposition fen {fen}\ngo depth 4\n",
            dir.display()
        );
        let out = session(script.as_bytes());
        let infos: Vec<&String> = out.iter().filter(|l| l.starts_with("info depth")).collect();
        assert!(!infos.is_empty(), "{out:?}");
        for info in infos {
            assert!(info.contains(wdl), "{fen}: {info}");
            if wdl == "wdl 0 1000 0" {
                assert!(info.contains(" score cp 0 "), "{info}");
            }
        }
    }
}

#[test]
fn a_review_names_the_one_move_that_gave_the_value_away() {
    let (dir, db) = placing_database();
    // Without the N-move rule, so that its judgement is the stored one.
    let rules = morris::Rules {
        n_move_rule: 0,
        ..morris::Rules::default()
    };
    let start = Position::from_fen(".../.../.../....../.../.../... w 4 4 0 1", rules).unwrap();
    // Moves that keep the value, but one that gives it away.
    let mut game = morris::Game::new(start);
    let mut planted = None;
    while game.outcome().is_none() && game.moves().len() < 40 {
        let pos = *game.position();
        let value = db.outcome(&pos).expect("the four-stone game is known");
        let outcomes = db.move_outcomes(&pos);
        let worse = outcomes
            .iter()
            .find(|&&(_, o)| o.is_some_and(|o| o < value));
        let (mv, _) = match (planted, worse) {
            (None, Some(&worse)) => {
                planted = Some(game.moves().len() + 1);
                worse
            }
            _ => *outcomes.iter().find(|&&(_, o)| o == Some(value)).unwrap(),
        };
        game.try_play(mv).unwrap();
    }
    let planted = planted.expect("a move that gives the value away");
    let judged = morris::solution::judge_game(db, &game);
    assert_eq!(judged.len(), game.moves().len());
    let mut pos = start;
    for j in &judged {
        assert_eq!(j.stored.before, db.outcome(&pos), "ply {}", j.ply);
        assert_eq!(j.stored.changes_value(), j.ply == planted, "ply {}", j.ply);
        assert_eq!(j.with_rule, j.stored, "ply {}", j.ply);
        pos.play_unchecked(j.mv);
    }
    // The command names it, and its player; the other gave nothing away.
    let record = morris::GameRecord {
        tags: vec![
            ("White".to_owned(), "first".to_owned()),
            ("Black".to_owned(), "second".to_owned()),
            ("FEN".to_owned(), start.fen()),
            ("NMoveRule".to_owned(), "0".to_owned()),
        ],
        moves: game.moves().to_vec(),
        ..Default::default()
    };
    let file = dir.join("review.pgn");
    std::fs::write(&file, record.to_string()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(["review", &file.display().to_string(), "--db"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let blunderer = if planted % 2 == 1 { "first" } else { "second" };
    let keeper = if planted % 2 == 1 { "second" } else { "first" };
    let mv = game.moves()[planted - 1];
    assert!(
        text.contains("opening drawn; 1 move changed the value (1 with the N-move rule)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(" {mv} by {blunderer}: draw to ")),
        "{text}"
    );
    assert!(text.contains(&format!("{blunderer}: ")), "{text}");
    let changed = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .and_then(|l| l.split(", ").nth(2).map(str::to_owned))
    };
    assert_eq!(
        changed(blunderer).as_deref(),
        Some("1 changed the value (1 with the N-move rule); 0 games lost"),
        "{text}"
    );
    assert_eq!(
        changed(keeper).as_deref(),
        Some("0 changed the value (0 with the N-move rule); 0 games lost"),
        "{text}"
    );
}

#[test]
fn a_removal_wins_only_if_the_win_after_it_comes_in_time_too() {
    let (dir, _) = database();
    let (db, _) = EndgameDb::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    // Positions whose every winning removal leads to a loss for the
    // opponent too far off for a short N-move rule, while a quiet move
    // wins in time: only the quiet win keeps the win under the rule.
    let mut checked = 0;
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by(5) {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let pos = position(m, o);
            if pos.terminal_outcome().is_some() {
                continue;
            }
            let ranked = db.rank_moves(&pos);
            let won = |value: Option<DbValue>| value.filter(|v| v.outcome == DbOutcome::Win);
            // The far side of each winning removal, and the quickest quiet win.
            let removals: Vec<u16> = ranked
                .iter()
                .filter(|(mv, value)| mv.removal.is_some() && won(*value).is_some())
                .map(|&(mv, _)| {
                    let mut child = pos;
                    child.play_unchecked(mv);
                    db.probe(&child).map_or(0, |v| v.distance)
                })
                .collect();
            let quiet = ranked
                .iter()
                .filter(|(mv, _)| mv.removal.is_none())
                .filter_map(|&(_, value)| won(value).map(|v| v.distance))
                .min();
            let (Some(&nearest_far), Some(quiet)) = (removals.iter().min(), quiet) else {
                continue;
            };
            // A rule of `plies` lets the quiet win through and no removal's.
            let plies = quiet.next_multiple_of(2);
            if nearest_far <= plies {
                continue;
            }
            let rules = morris::Rules {
                n_move_rule: plies / 2,
                ..morris::Rules::default()
            };
            let fen = pos.fen();
            let pos = Position::from_fen(&fen, rules).unwrap();
            let mv = engine_move(&morris::Game::new(pos), &db);
            assert_eq!(
                db.outcome_after_with_rule(&pos, mv),
                Some(DbOutcome::Win),
                "{fen} with the rule at {plies} plies: {mv}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}
