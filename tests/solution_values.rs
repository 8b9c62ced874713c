//! The values of the solved game, built here for the sectors up to four
//! stones a side: checked against the rules, their own values one ply
//! ahead, the symmetries, and plain searches that know nothing of them.

mod common;

use common::solution::{
    database, lasker_database, placing_database, placing_position, placing_positions,
    plain_move_values, position, twelve_database,
};
use morris::Variant;
use morris::solution::format::INTERMEDIATE;
use morris::solution::retrograde::{SectorRange, generate};
use morris::solution::{
    Database, DbOutcome, DbValue, Puzzle, Sector, SectorIndex, compare_sector, sector_position,
};
use morris::{Bitboard, Color, Position, Rules, Symmetry};

/// The value a position must have, computed from its children's stored
/// values (a removal reaching the next sector counts as distance one).
fn expected_from_children(db: &Database, pos: &Position) -> Option<DbValue> {
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
            db.value(&child)?
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

/// Checks every `step`th index of `sectors` of `variant` in `db` against
/// the values of its children.
fn check_against_children(
    db: &Database,
    variant: Variant,
    sectors: &[(usize, usize)],
    step: usize,
) {
    for &(mover, other) in sectors {
        let sector = SectorIndex::new(mover, other);
        let mut checked = 0;
        for index in (0..sector.len()).step_by(step) {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let pos = sector_position(variant, m, o);
            let stored = db.value(&pos).expect("stored");
            let expected = expected_from_children(db, &pos).expect("children stored");
            assert_eq!(stored, expected, "{mover}-{other}: {}", pos.fen());
            checked += 1;
        }
        assert!(checked > 0);
    }
}

/// The moving phase of each variant built here, with its databases.
fn each_variant() -> [(Variant, &'static Database); 2] {
    [
        (Variant::Nine, &database().1),
        (Variant::Twelve, &twelve_database().1),
    ]
}

#[test]
fn every_value_agrees_with_its_children() {
    // Twelve's by the rules with the diagonals.
    for (variant, db) in each_variant() {
        check_against_children(db, variant, &[(3, 3), (3, 4), (4, 3)], 1);
        check_against_children(db, variant, &[(4, 4)], 13);
    }
}

#[test]
#[ignore = "every 4-4 position: about a minute"]
fn every_four_four_value_agrees_with_its_children() {
    let (_, db) = database();
    check_against_children(db, Variant::Nine, &[(4, 4)], 1);
}

#[test]
fn the_best_ranked_move_keeps_the_position_value() {
    let (_, db) = database();
    for (mover, other) in [(3, 3), (3, 4), (4, 3)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by(97) {
            let (m, o) = sector.decode(index);
            let pos = position(m, o);
            let ranked = db
                .moves(&pos)
                .into_iter()
                .map(|known| (known.mv, known.value))
                .collect::<Vec<_>>();
            let Some(&(best, value)) = ranked.first() else {
                continue;
            };
            assert_eq!(value, db.value(&pos), "{}: {best}", pos.fen());
            assert_eq!(ranked.len(), pos.legal_moves().len());
        }
    }
}

#[test]
fn symmetric_positions_have_equal_values() {
    let sector = SectorIndex::new(4, 3);
    for (variant, db) in each_variant() {
        for index in (0..sector.len()).step_by(1009) {
            let (m, o) = sector.decode(index);
            let value = db.value(&sector_position(variant, m, o));
            assert!(value.is_some());
            for sym in Symmetry::ALL {
                let image = (sym.apply_bitboard(m), sym.apply_bitboard(o));
                assert_eq!(db.value(&sector_position(variant, image.0, image.1)), value);
            }
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

/// Checks the stored `value` of `pos`, where every removal ends the game,
/// against a plain search over the rules: a win within 3 plies is forced
/// in as many plies and no fewer, a loss within `losses_within` plies is
/// forced (every move lets the other side force a win in a ply fewer), a
/// draw wins nothing within `draws_within` plies. Returns the outcome
/// checked, if one was.
fn confirmed_by_a_plain_search(
    pos: &Position,
    value: DbValue,
    (losses_within, draws_within): (u16, u16),
) -> Option<DbOutcome> {
    match value.outcome {
        DbOutcome::Win if value.distance <= 3 => {
            assert!(plain_forced_win(pos, value.distance), "{}", pos.fen());
            assert!(
                value.distance < 3 || !plain_forced_win(pos, value.distance - 2),
                "{}",
                pos.fen()
            );
        }
        DbOutcome::Loss if value.distance <= losses_within => {
            let all_lose = pos.legal_moves().iter().all(|&mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                // A loss at 0 has no moves; at 1 or 2, the opponent wins
                // at once.
                plain_forced_win(&child, value.distance.saturating_sub(1).max(1))
            });
            assert!(all_lose, "{}", pos.fen());
        }
        DbOutcome::Draw => assert!(!plain_forced_win(pos, draws_within), "{}", pos.fen()),
        _ => return None,
    }
    Some(value.outcome)
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
        let Some(value) = db.value(&pos) else {
            continue;
        };
        match confirmed_by_a_plain_search(&pos, value, (2, 3)) {
            Some(DbOutcome::Win) => wins += 1,
            Some(DbOutcome::Loss) => losses += 1,
            _ => {}
        }
    }
    assert!(
        wins > 10 && losses > 0,
        "{wins} wins, {losses} losses checked"
    );
}

/// Says the first win of a sector's built `values` is a draw, and returns
/// its index.
fn plant_a_draw(values: &mut [u16]) -> usize {
    let win = |&v: &u16| DbValue::decode(v).is_some_and(|v| v.outcome == DbOutcome::Win);
    let at = values.iter().position(win).expect("a win");
    values[at] = DbValue::draw().encode();
    at
}

/// No smaller sector: 3-3's removals end the game.
struct Nothing;

impl morris::solution::retrograde::SmallerSectors for Nothing {
    fn outcomes(
        &self,
        _: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    ) {
        outcomes.extend(positions.iter().map(|_| None));
    }
}

#[test]
fn a_win_its_moves_do_not_bear_out_is_wrong_where_its_distance_is_derived() {
    use morris::solution::check_sector;
    use morris::solution::format::Kept;
    use morris::solution::format::write_sector;
    use morris::solution::retrograde::build_pair;
    // 3-3 keeps the distances of its losses alone: a draw said to be a win
    // has no loss among its moves to derive its distance from.
    let sector = SectorIndex::new(3, 3);
    assert_eq!(
        Kept::of(Sector::moving(Variant::Nine, sector)),
        Kept::Losses
    );
    let mut built = build_pair(Variant::Nine, 3, 3, &Nothing, &|_| {}).remove(0);
    let draw = DbValue::draw().encode();
    let planted = built
        .values
        .iter()
        .position(|&v| v == draw)
        .expect("a draw");
    built.values[planted] = DbValue::win(1).encode();
    let scratch = std::env::temp_dir().join(format!("morris-endgame-win-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    write_sector(&scratch, &built).unwrap();
    let (planted_db, _) = Database::open(&scratch).unwrap();
    let check = check_sector(
        &planted_db,
        Sector::moving(Variant::Nine, sector),
        None,
        &|_| {},
    );
    assert!(check.wrong.contains(&(planted as u64)), "{check:?}");
    let (_, db) = database();
    let compared = compare_sector(
        db,
        &planted_db,
        Sector::moving(Variant::Nine, sector),
        None,
        &|_| {},
    );
    assert_eq!(compared.wrong, vec![planted as u64], "{compared:?}");
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn checking_against_successors_and_comparing_folders_find_a_planted_error() {
    use morris::solution::format::write_sector;
    use morris::solution::retrograde::build_pair;
    use morris::solution::{check_sector, compare_sector};
    let (dir, db) = database();
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let check = check_sector(
            db,
            Sector::moving(Variant::Nine, SectorIndex::new(mover, other)),
            None,
            &|_| {},
        );
        assert!(check.checked > 0);
        assert_eq!(
            (check.wrong_count, check.unknown),
            (0, 0),
            "{mover}-{other}: {check:?}"
        );
    }
    // 3-3 rebuilt with one value changed: a win said to be a draw.
    let mut built = build_pair(Variant::Nine, 3, 3, &Nothing, &|_| {}).remove(0);
    let planted = plant_a_draw(&mut built.values);
    let scratch = std::env::temp_dir().join(format!("morris-endgame-plant-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    write_sector(&scratch, &built).unwrap();
    let (planted_db, _) = Database::open(&scratch).unwrap();
    let sector = SectorIndex::new(3, 3);
    let check = check_sector(
        &planted_db,
        Sector::moving(Variant::Nine, sector),
        None,
        &|_| {},
    );
    assert!(check.wrong.contains(&(planted as u64)), "{check:?}");
    // A sample checks fewer.
    let sampled = check_sector(
        db,
        Sector::moving(Variant::Nine, sector),
        Some(1000),
        &|_| {},
    );
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
    // Compared with the good values, the planted one is the one difference.
    let compared = compare_sector(
        db,
        &planted_db,
        Sector::moving(Variant::Nine, sector),
        None,
        &|_| {},
    );
    assert_eq!(compared.wrong, vec![planted as u64], "{compared:?}");
    assert_eq!((compared.wrong_count, compared.unknown), (1, 0));
    assert_eq!(compared.checked, check.checked);
    // Through the command line: a folder agrees with itself; against the
    // planted folder, 3-3 differs and the sectors it lacks are named.
    let compare = |ours: &std::path::Path, theirs: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
            .args(["db-compare", &ours.display().to_string()])
            .arg(theirs)
            .output()
            .unwrap()
    };
    let same = compare(dir, dir);
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(same.status.success(), "{text}");
    assert!(text.contains("All 4 sectors agree"), "{text}");
    let differ = compare(dir, &scratch);
    let text = String::from_utf8_lossy(&differ.stdout);
    assert!(!differ.status.success());
    assert!(text.contains("3-3: ") && text.contains("1 WRONG"), "{text}");
    assert!(text.contains("4-4: only in "), "{text}");
    // 3-4, whose distances are derived from 4-3's, with a win said to be
    // a draw: its outcome is checked, and the planted one found.
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::copy(
        dir.join("nine-flying-3-3.mdb"),
        scratch.join("nine-flying-3-3.mdb"),
    )
    .unwrap();
    let derived = SectorIndex::new(3, 4);
    let mut planted = None;
    for mut built in build_pair(Variant::Nine, 3, 4, db, &|_| {}) {
        if built.sector.board == derived {
            planted = Some(plant_a_draw(&mut built.values) as u64);
        }
        write_sector(&scratch, &built).unwrap();
    }
    let (planted_db, _) = Database::open(&scratch).unwrap();
    let check = check_sector(
        &planted_db,
        Sector::moving(Variant::Nine, derived),
        None,
        &|_| {},
    );
    assert_eq!(check.wrong, vec![planted.unwrap()], "{check:?}");
    assert_eq!((check.wrong_count, check.unknown), (1, 0), "{check:?}");
    let compared = compare_sector(
        db,
        &planted_db,
        Sector::moving(Variant::Nine, derived),
        None,
        &|_| {},
    );
    assert_eq!(compared.wrong, vec![planted.unwrap()], "{compared:?}");
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
#[ignore = "builds up to 8 stones and checks 5-3 and 3-5 whole: a few minutes"]
fn five_three_values_agree_with_their_children() {
    let dir = std::env::temp_dir().join(format!("morris-endgame-53-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let range = SectorRange {
        variant: Variant::Nine,
        per_side: 5,
        total: 8,
    };
    generate(&dir, range, &|_| {}, |_| {}).expect("generation");
    let (db, _) = Database::open(&dir).expect("open");
    for (mover, other) in [(5, 3), (3, 5)] {
        let sector = SectorIndex::new(mover, other);
        for index in 0..sector.len() {
            let (m, o) = sector.decode(index);
            if sector.canonical(m, o).index != index {
                continue;
            }
            let pos = position(m, o);
            let stored = db.value(&pos).expect("stored");
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

/// The outcome of a placing position for the side to move by plain
/// minimax over the rules to the moving phase's stored values, the draw
/// rules left out (as the placing phase's values leave them), remembering
/// the positions seen in `seen` (by their least symmetric image).
fn plain_placing_outcome(
    db: &Database,
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
        db.value(pos).expect("leaf stored").outcome
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

#[test]
fn placing_values_equal_a_plain_minimax_up_to_four_stones_a_side() {
    let (_, db) = placing_database();
    placing_values_equal_a_plain_minimax(db, Variant::Nine);
}

/// Checks every placing position of `variant` up to four stones a side
/// in `db` against a plain minimax over the rules.
fn placing_values_equal_a_plain_minimax(db: &Database, variant: Variant) {
    let small = Sector::placing_within(variant, 4);
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
            assert_eq!(db.outcome(&pos), Some(expected), "{}", pos.fen());
            outcomes[expected as usize] += 1;
        }
    }
    // Sectors from the first placement to the last, and each outcome
    // many times.
    assert!(small.contains(&Sector::placing(variant, 0, 0, 4, 4).unwrap()));
    assert!(small.contains(&Sector::placing(variant, 3, 4, 1, 0).unwrap()));
    assert!(outcomes.iter().all(|&n| n > 1000), "{outcomes:?}");
}

/// Most placing sectors have no file in the folder: one ply over those
/// kept (two, with two stones left to place) gives, index by index, the
/// values of the files the build made of them aside, for the sectors before
/// them.
#[test]
fn derived_placing_values_are_those_the_build_set_aside() {
    let (dir, db) = placing_database();
    let (aside, rejected) = Database::open(&dir.join(INTERMEDIATE)).expect("open");
    assert!(rejected.is_empty(), "{rejected:?}");
    let all = Sector::placing_within(Variant::Nine, 4);
    let (stored, derived): (Vec<Sector>, Vec<Sector>) =
        all.iter().partition(|sector| sector.is_stored());
    assert!(stored.iter().all(|sector| db.sectors().contains(sector)));
    // A sector no file is built from (the first placement of the game of
    // four stones) is not built at all.
    let (read, unread): (Vec<Sector>, Vec<Sector>) = derived
        .into_iter()
        .partition(|sector| !sector.stored_readers(&all).is_empty());
    assert!(unread.contains(&Sector::placing(Variant::Nine, 0, 0, 4, 4).unwrap()));
    assert!(!read.is_empty());
    assert_eq!(aside.sectors(), read);
    for sector in read {
        assert!(!db.sectors().contains(&sector), "{sector} in the folder");
        let check = compare_sector(db, &aside, sector, None, &|_| {});
        assert!(check.checked > 0, "{sector}");
        assert_eq!((check.wrong_count, check.unknown), (0, 0), "{sector}");
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
        let outcomes = db
            .moves(&pos)
            .into_iter()
            .map(|known| (known.mv, known.outcome))
            .collect::<Vec<_>>();
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
fn a_puzzle_is_a_position_where_one_move_alone_keeps_the_value() {
    let (_, db) = placing_database();
    // The puzzle by plain minimax to the moving phase's values.
    let expected = |pos: &Position| {
        let moves = pos.legal_moves();
        let values = plain_move_values(db, pos, &moves);
        let best = values.iter().copied().max().expect("a move");
        let keeping: Vec<_> = (moves.iter().zip(&values))
            .filter(|&(_, &value)| value == best)
            .map(|(&mv, _)| mv)
            .collect();
        (moves.len() >= 2 && best >= 0 && keeping.len() == 1).then(|| Puzzle {
            position: *pos,
            goal: DbOutcome::from_signum(best),
            solution: keeping[0],
        })
    };
    let (mut puzzles, mut others) = (0, 0);
    for pos in placing_positions(300, 0x9e37_79b9_7f4a_7c15) {
        // A placing position is set without the N-move rule, which the
        // placing phase's values leave out, whatever the game's.
        let free = Rules {
            n_move_rule: 0,
            ..pos.rules()
        };
        let free = Position::from_fen(&pos.fen(), free).unwrap();
        let puzzle = expected(&free);
        assert_eq!(Puzzle::at(db, &pos), puzzle, "{}", pos.fen());
        assert_eq!(Puzzle::at(db, &free), puzzle, "{}", free.fen());
        match puzzle {
            Some(puzzle) => {
                puzzles += 1;
                assert_eq!(Puzzle::from_line(&puzzle.line(4)), Ok((puzzle, 4)));
            }
            None => others += 1,
        }
    }
    assert!(
        puzzles > 0 && others > 0,
        "{puzzles} puzzles, {others} others"
    );
}

#[test]
fn the_puzzles_command_grades_each_by_the_search_that_finds_it() {
    let (dir, db) = placing_database();
    // A game of four stones a side from a puzzle, each move one that
    // keeps the value (another each ply).
    let start = placing_positions(300, 7)
        .into_iter()
        .find(|pos| Puzzle::at(db, pos).is_some())
        .expect("a puzzle");
    let mut game = morris::Game::new(start);
    while game.outcome().is_none() && game.moves().len() < 40 {
        let pos = *game.position();
        let value = db
            .outcome_with_rule(&pos)
            .expect("the four-stone game is known");
        let keeping: Vec<_> = db
            .moves(&pos)
            .into_iter()
            .filter(|m| m.with_rule == Some(value))
            .collect();
        let ply = game.moves().len();
        game.try_play(keeping[ply % keeping.len()].mv).unwrap();
    }
    let found = morris::solution::find_puzzles(db, &game);
    let record = morris::GameRecord {
        tags: vec![("FEN".to_owned(), start.fen())],
        moves: game.moves().to_vec(),
        ..Default::default()
    };
    let file = dir.join("puzzles.pgn");
    let out = dir.join("puzzles.txt");
    std::fs::write(&file, record.to_string()).unwrap();
    let max_depth = 4;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_morris"))
        .arg("puzzles")
        .args([&file, &out])
        .args(["--max-depth", &max_depth.to_string(), "--db"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(&out).unwrap();
    let written: Vec<(Puzzle, u32)> = text
        .lines()
        .map(|l| Puzzle::from_line(l).unwrap())
        .collect();
    assert!(!written.is_empty(), "{output:?}");
    assert_eq!(written.len(), found.len());
    // Each is found by the search at its depth and by none shallower (one
    // beyond the deepest, by none).
    let plays = |puzzle: &Puzzle, depth| {
        let tt = std::sync::Arc::new(morris::search::TranspositionTable::new(16).unwrap());
        let root = puzzle.position;
        let limits = morris::search::SearchLimits::depth(depth);
        morris::search::SearchRequest::new(root, &[root.key()], limits)
            .run(tt)
            .best
    };
    for (puzzle, depth) in &written {
        assert!(found.contains(puzzle), "{}", puzzle.line(*depth));
        for shallower in 1..(*depth).min(max_depth + 1) {
            assert_ne!(
                plays(puzzle, shallower),
                Some(puzzle.solution),
                "{}",
                puzzle.line(*depth)
            );
        }
        if *depth <= max_depth {
            assert_eq!(
                plays(puzzle, *depth),
                Some(puzzle.solution),
                "{}",
                puzzle.line(*depth)
            );
        }
    }
    assert!(written.is_sorted_by_key(|&(_, depth)| depth));
}

/// The outcome and distance of a pinned value: `win`, `loss` or `draw`,
/// and the plies to the next removal (`-` in the placing phase, whose
/// values have none).
fn pinned_value(outcome: &str, distance: &str) -> (DbOutcome, Option<u16>) {
    let outcome = match outcome {
        "win" => DbOutcome::Win,
        "loss" => DbOutcome::Loss,
        "draw" => DbOutcome::Draw,
        other => panic!("'{other}' is not win, loss or draw"),
    };
    let distance = (distance != "-").then(|| distance.parse().expect("a distance"));
    (outcome, distance)
}

#[test]
fn the_values_built_here_are_the_pinned_ones() {
    let (_, db) = placing_database();
    let pinned = include_str!("data/solution-values.csv");
    let mut checked = 0;
    for line in pinned
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split(',').collect();
        let [fen, outcome, distance] = fields[..] else {
            panic!("'{line}' is not fen,outcome,distance");
        };
        let pos = Position::from_fen(fen, morris::Rules::default()).expect(fen);
        let (outcome, distance) = pinned_value(outcome, distance);
        assert_eq!(db.outcome(&pos), Some(outcome), "{fen}");
        if let Some(distance) = distance {
            assert_eq!(db.value(&pos).map(|v| v.distance), Some(distance), "{fen}");
        }
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} pinned values");
}

#[test]
fn twelve_has_sectors_of_its_own() {
    // Every side 3 to 12 stones, a full board none: the game is over.
    let range = SectorRange::per_side(Variant::Twelve, 12);
    assert_eq!((range.pairs().len(), range.waves().len()), (54, 18));
    assert_eq!(range.pairs().last(), Some(&(11, 12)));
    // Nine's range stops at nine's stones, whatever is asked.
    assert_eq!(SectorRange::per_side(Variant::Nine, 12).pairs().len(), 28);
    assert!(Sector::new(Variant::Nine, 10, 3, 0, 0).is_none());
    assert!(Sector::new(Variant::Twelve, 10, 3, 0, 0).is_some());
    assert!(Sector::placing(Variant::Nine, 0, 0, 12, 12).is_none());
    let all = Sector::placing_all(Variant::Twelve);
    let stored = all.iter().filter(|sector| sector.is_stored()).count();
    assert_eq!((all.len(), stored), (1215, 530));
    // Each sector after those its placements lead to.
    let place = |sector: Sector| all.iter().position(|&s| s == sector);
    for (at, &sector) in all.iter().enumerate() {
        assert_eq!(sector.variant, Variant::Twelve);
        let (placed, removed) = sector.successors();
        for next in std::iter::once(placed).chain(removed) {
            assert!(
                !next.is_placing() || place(next) < Some(at),
                "{sector} {next}"
            );
        }
    }
    assert_eq!(
        all.last(),
        Sector::placing(Variant::Twelve, 0, 0, 12, 12).as_ref()
    );
}

#[test]
fn twelve_placing_values_equal_a_plain_minimax_up_to_four_stones_a_side() {
    let (_, db) = twelve_database();
    placing_values_equal_a_plain_minimax(db, Variant::Twelve);
}

#[test]
fn a_diagonal_mill_wins_in_twelve_where_nine_has_no_mill() {
    let (_, nine) = database();
    let (_, twelve) = twelve_database();
    let stones = |points: &[&str]| {
        Bitboard::from_squares(
            &points
                .iter()
                .map(|p| p.parse().unwrap())
                .collect::<Vec<_>>(),
        )
    };
    // White flies to c5, closing a7-b6-c5; in nine no two of its stones
    // share a line.
    let (white, black) = (stones(&["a7", "b6", "d1"]), stones(&["g7", "g1", "e4"]));
    let value = |db: &Database, variant| {
        db.value(&sector_position(variant, white, black))
            .expect("stored")
    };
    assert_eq!(value(twelve, Variant::Twelve), DbValue::win(1));
    assert_ne!(value(nine, Variant::Nine), DbValue::win(1));
    // Each reads its own files: a nine folder holds no twelve position.
    assert_eq!(
        nine.value(&sector_position(Variant::Twelve, white, black)),
        None
    );
    // The moving phase never fills the board: its files are both
    // full-board rules'.
    let white_loses = morris::Rules {
        full_board: morris::FullBoard::WhiteLoses,
        ..morris::Rules::new(Variant::Twelve)
    };
    let pos = sector_position(Variant::Twelve, white, black);
    let other_rule = Position::from_fen(&pos.fen(), white_loses).unwrap();
    assert!(twelve.holds(pos.rules()) && twelve.holds(white_loses));
    assert_eq!(twelve.value(&other_rule), twelve.value(&pos));
}

/// Every removal leads to a draw: for sectors built without those their
/// removals lead to.
struct AllDrawn;

impl morris::solution::retrograde::SmallerSectors for AllDrawn {
    fn outcomes(
        &self,
        _: Variant,
        positions: &[(Bitboard, Bitboard)],
        outcomes: &mut Vec<Option<DbOutcome>>,
    ) {
        outcomes.extend(positions.iter().map(|_| Some(DbOutcome::Draw)));
    }
}

#[test]
fn in_twelve_a_placement_that_fills_the_board_ends_the_game_by_the_rule() {
    use morris::solution::format::{PlacingFile, write_placing, write_sector};
    use morris::solution::retrograde::{build_pair, build_placing_sector};
    use morris::{DbProblem, FullBoard, Rules};
    let dir = std::env::temp_dir().join(format!("morris-full-board-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Where Black's last stone goes: a full board, which no sector holds,
    // or a mill and a removal into 11-12 (built here as if every removal
    // from there drew).
    assert!(!SectorIndex::exists(12, 12));
    for built in build_pair(Variant::Twelve, 11, 12, AllDrawn, &|_| {}) {
        write_sector(&dir, &built).unwrap();
    }
    let (db, rejected) = Database::open(&dir).unwrap();
    assert!(rejected.is_empty(), "{rejected:?}");
    for rule in FullBoard::ALL {
        let last = Sector::placing(Variant::Twelve, 11, 12, 1, 0)
            .unwrap()
            .under(rule);
        assert_eq!(last.full_board, rule);
        assert_eq!(last.rules().full_board, rule);
        // Its values are derived, so a build makes them only where a file
        // is built from them: made here to be read.
        let values = build_placing_sector(last, &db, &|_| {}).unwrap();
        std::fs::create_dir_all(dir.join(INTERMEDIATE)).unwrap();
        write_placing(&dir.join(INTERMEDIATE), &values).unwrap();
        let name = format!(
            "twelve{}-placing-11-12-1-0.mdb",
            if rule == FullBoard::Draw {
                ""
            } else {
                "-whiteloses"
            }
        );
        let path = dir.join(INTERMEDIATE).join(&name);
        let file = PlacingFile::open(&path).unwrap();
        assert_eq!(file.sector, last);
        // One ply over the rules: the full board by `Position`, a removal
        // by the file of 11-12.
        let mut outcomes = [0; 3];
        let mut filled = 0;
        for index in 0..last.len() {
            let (mover, other) = last.board.decode(index);
            if last.board.canonical(mover, other).index != index {
                continue;
            }
            let pos = placing_position(last, mover, other);
            assert_eq!(pos.rules().full_board, rule);
            let expected = pos
                .legal_moves()
                .into_iter()
                .map(|mv| {
                    let mut child = pos;
                    child.play_unchecked(mv);
                    match child.terminal_outcome() {
                        Some(end) if end.winner().is_some() => {
                            filled += usize::from(mv.removal.is_none());
                            DbOutcome::Win
                        }
                        Some(_) => {
                            filled += 1;
                            DbOutcome::Draw
                        }
                        None => -db.outcome(&child).expect("stored"),
                    }
                })
                .max()
                .expect("a placement");
            assert_eq!(file.outcome(index), Some(expected), "{rule} {}", pos.fen());
            // Derived from the files, one ply, alike; and the end of
            // placing solved to them.
            assert_eq!(db.outcome(&pos), Some(expected), "{rule} {}", pos.fen());
            if index % 7 == 0 {
                let mut solver = morris::search::PlacingSolver::new(&db, None, None);
                assert_eq!(solver.solve(&pos), Ok(expected), "{rule} {}", pos.fen());
            }
            outcomes[expected as usize] += 1;
        }
        // The full board decided where nothing else did; a removal decided
        // the rest, both ways.
        assert!(filled > 1000, "{filled}");
        assert!(outcomes.iter().all(|&n| n > 0), "{rule} {outcomes:?}");
        // A file is refused under the other rule's name.
        let other = dir.join(match rule {
            FullBoard::Draw => name.replace("twelve-", "twelve-whiteloses-"),
            FullBoard::WhiteLoses => name.replace("twelve-whiteloses-", "twelve-"),
        });
        std::fs::copy(&path, &other).unwrap();
        let refused = PlacingFile::open(&other).err().map(|e| e.problem);
        assert!(
            matches!(refused, Some(DbProblem::Sector { .. })),
            "{other:?}"
        );
        std::fs::remove_file(&other).unwrap();
    }
    // Both rules' files in one folder: each position reads its rule's.
    let (both, rejected) = Database::open(&dir.join(INTERMEDIATE)).unwrap();
    assert!(rejected.is_empty() && both.len() == 2, "{rejected:?}");
    for rule in FullBoard::ALL {
        let last = Sector::placing(Variant::Twelve, 11, 12, 1, 0)
            .unwrap()
            .under(rule);
        let mut differ = 0;
        for index in (0..last.len()).step_by(97) {
            let (mover, other) = last.board.decode(index);
            let pos = placing_position(last, mover, other);
            assert_eq!(both.outcome(&pos), db.outcome(&pos), "{rule} {}", pos.fen());
            let drawn = Position::from_fen(&pos.fen(), Rules::new(Variant::Twelve)).unwrap();
            differ += usize::from(both.outcome(&pos) != both.outcome(&drawn));
        }
        assert_eq!(differ > 0, rule != FullBoard::Draw, "{rule}");
    }
    // Under either rule a game reads the shared moving files.
    let white_loses = Rules {
        full_board: FullBoard::WhiteLoses,
        ..Rules::new(Variant::Twelve)
    };
    assert!(db.holds(white_loses) && db.holds(Rules::new(Variant::Twelve)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn twelve_has_puzzles_kept_in_lines_of_its_own() {
    let (_, db) = twelve_database();
    let sector = SectorIndex::new(3, 4);
    let puzzles: Vec<Puzzle> = (0..500)
        .filter_map(|i| {
            let (mover, other) = sector.decode(i * (sector.len() / 500));
            let pos = sector_position(Variant::Twelve, mover, other);
            (sector.canonical(mover, other).index == i * (sector.len() / 500))
                .then(|| Puzzle::at(db, &pos))
                .flatten()
        })
        .collect();
    assert!(!puzzles.is_empty(), "no puzzle among 500 positions");
    for puzzle in puzzles {
        assert_eq!(puzzle.position.rules().variant, Variant::Twelve);
        // The one move that keeps the value, by the databases' values of
        // the positions the moves lead to.
        let keeping: Vec<_> = puzzle
            .position
            .legal_moves()
            .into_iter()
            .filter(|&mv| {
                let mut after = puzzle.position;
                after.play_unchecked(mv);
                let theirs = match after.terminal_outcome() {
                    Some(end) if end.winner().is_some() => DbOutcome::Loss,
                    Some(_) => DbOutcome::Draw,
                    None => db.outcome_with_rule(&after).expect("known"),
                };
                -theirs == puzzle.goal
            })
            .collect();
        assert_eq!(keeping, vec![puzzle.solution], "{}", puzzle.line(1));
        assert_eq!(Puzzle::from_line(&puzzle.line(3)), Ok((puzzle, 3)));
    }
}

/// Every sector of Lasker Morris up to four stones a side, the twins too.
fn lasker_sectors() -> Vec<Sector> {
    Sector::interleaved_within(Variant::Lasker, 4)
        .into_iter()
        .flat_map(|sector| [sector, sector.twin()])
        .collect()
}

#[test]
fn every_lasker_value_agrees_with_its_children() {
    // Read through the probe, as the engine reads them: stones in hand
    // are placed or kept while a stone slides.
    let (_, db) = lasker_database();
    let mut checked = 0;
    for sector in lasker_sectors() {
        for index in (0..sector.len()).step_by(7) {
            let (m, o) = sector.board.decode(index);
            if sector.board.canonical(m, o).index != index {
                continue;
            }
            let pos = sector.position(m, o);
            let stored = db.value(&pos).expect("stored");
            let expected = expected_from_children(db, &pos).expect("children stored");
            assert_eq!(stored, expected, "{sector}: {}", pos.fen());
            checked += 1;
        }
    }
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn symmetric_lasker_positions_have_equal_values() {
    let (_, db) = lasker_database();
    for sector in lasker_sectors().into_iter().filter(|s| s.len() > 1000) {
        for index in (0..sector.len()).step_by(4001) {
            let (m, o) = sector.board.decode(index);
            let value = db.value(&sector.position(m, o));
            assert!(value.is_some(), "{sector}");
            for sym in Symmetry::ALL {
                let image = sector.position(sym.apply_bitboard(m), sym.apply_bitboard(o));
                assert_eq!(db.value(&image), value, "{sector}: {}", image.fen());
            }
        }
    }
}

#[test]
fn short_lasker_wins_and_losses_are_confirmed_by_a_plain_search() {
    // With three stones a side in all, every removal ends the game.
    let (_, db) = lasker_database();
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for sector in lasker_sectors() {
        let three_each = sector.board.mover + sector.mover_hand == 3
            && sector.board.other + sector.other_hand == 3;
        if !three_each {
            continue;
        }
        for index in (0..sector.len()).step_by(97) {
            let (m, o) = sector.board.decode(index);
            if sector.board.canonical(m, o).index != index {
                continue;
            }
            let pos = sector.position(m, o);
            let value = db.value(&pos).expect("stored");
            match confirmed_by_a_plain_search(&pos, value, (4, 5)) {
                Some(DbOutcome::Win) => wins += 1,
                Some(DbOutcome::Loss) => losses += 1,
                Some(DbOutcome::Draw) => draws += 1,
                None => {}
            }
        }
    }
    assert!(
        wins > 100 && losses > 10 && draws > 5,
        "{wins} wins, {losses} losses, {draws} draws checked"
    );
}
