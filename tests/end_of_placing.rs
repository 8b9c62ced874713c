//! The end of placing solved to the databases (the search's solver),
//! checked against a plain minimax to the same leaves and against the
//! placing phase's own values.

mod common;

use common::solution::{
    database, placing_database, placing_position, placing_positions, plain_move_values,
    plain_placing_minimax,
};
use morris::Position;
use morris::Variant;
use morris::solution::{DbOutcome, Sector};

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
            let proven = DbOutcome::signum(choice.outcome);
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

#[test]
fn placing_values_equal_the_end_of_placing_solver_without_the_n_move_rule() {
    use morris::search::PlacingSolver;
    let (_, db) = placing_database();
    let mut compared = [0; 3];
    for sector in Sector::placing_within(Variant::Nine, 4) {
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
            assert_eq!(db.outcome(&pos), Some(solved), "{}", pos.fen());
            compared[solved as usize] += 1;
        }
    }
    assert!(compared.iter().sum::<usize>() > 100, "{compared:?}");
}

#[test]
fn placing_moves_give_each_move_with_and_without_the_n_move_rule() {
    use morris::search::{PlacingSolver, placing_moves};
    let free_rules = morris::Rules {
        n_move_rule: 0,
        ..morris::Rules::default()
    };
    let sign = |v: i8| [DbOutcome::Loss, DbOutcome::Draw, DbOutcome::Win][(v + 1) as usize];
    // Near the N-move rule too, where it turns outcomes.
    let late = |pos: &Position| {
        let fen = pos.fen();
        let mut fields: Vec<&str> = fen.split(' ').collect();
        fields[4] = "56";
        Position::from_fen(&fields.join(" "), morris::Rules::default()).unwrap()
    };
    let mut changed_by_rule = 0;
    // Solved to the moving phase where the placing phase's databases are
    // not loaded, read from them where they are: the same answers. With
    // one or two stones left to place, the moving phase's files give the
    // value by one or two plies, as the placing phase's files give those of
    // the sectors they leave out.
    for (db, solved) in [(&database().1, true), (&placing_database().1, false)] {
        let mut positions = placing_positions(20, 0x9A11);
        let late_positions: Vec<Position> = positions.iter().map(late).collect();
        positions.extend(late_positions);
        for pos in positions {
            let answer = placing_moves(db, &pos).unwrap();
            let derived = pos.stones_to_place() <= 2;
            assert_eq!(
                answer.solved_nodes.is_some(),
                solved && !derived,
                "{}",
                pos.fen()
            );
            let free = Position::from_fen(&pos.fen(), free_rules).unwrap();
            let mut free_solver = PlacingSolver::new(db, None, None);
            let moves = pos.legal_moves();
            let free_outcomes = free_solver.solve_moves(&free, &moves).unwrap();
            let ruled = plain_move_values(db, &pos, &moves);
            assert_eq!(answer.moves.len(), moves.len());
            for ((known, &(mv, free)), &ruled) in
                answer.moves.iter().zip(&free_outcomes).zip(&ruled)
            {
                assert_eq!(known.mv, mv);
                assert_eq!(known.outcome, Some(free), "{} {mv}", pos.fen());
                assert_eq!(known.with_rule, Some(sign(ruled)), "{} {mv}", pos.fen());
                changed_by_rule += usize::from(free != sign(ruled));
            }
            let best = |of: fn(&morris::solution::MoveValue) -> Option<DbOutcome>| {
                answer.moves.iter().map(of).max().flatten()
            };
            assert_eq!(answer.outcome, best(|m| m.outcome), "{}", pos.fen());
            assert_eq!(answer.with_rule, best(|m| m.with_rule), "{}", pos.fen());
        }
    }
    // Positions where the rule turns a move's outcome, so that each field is
    // told apart.
    assert!(changed_by_rule > 0);
    let moving = morris::solution::sector_position(
        Variant::Nine,
        morris::Bitboard::EMPTY
            .with(morris::Square::ALL[0])
            .with(morris::Square::ALL[1])
            .with(morris::Square::ALL[9]),
        morris::Bitboard::EMPTY
            .with(morris::Square::ALL[5])
            .with(morris::Square::ALL[6])
            .with(morris::Square::ALL[12]),
    );
    assert_eq!(
        placing_moves(&database().1, &moving),
        Err(morris::search::Unsolved::Unknown)
    );
}

#[test]
fn the_databases_give_a_placement_under_the_n_move_rule_only_where_they_know_it() {
    let (_, db) = placing_database();
    let (mut known, mut unknown, mut turned) = (0, 0, 0);
    // Counters up to 59, so that the rule turns some outcomes.
    for pos in placing_positions(200, 0x5EED) {
        let moves = pos.legal_moves();
        let ruled = plain_move_values(db, &pos, &moves);
        let values = db.moves(&pos);
        assert_eq!(values.len(), moves.len());
        for (value, &ruled) in values.iter().zip(&ruled) {
            let ruled = DbOutcome::from_signum(ruled);
            turned += usize::from(value.outcome != Some(ruled));
            match value.with_rule {
                Some(with_rule) => {
                    assert_eq!(with_rule, ruled, "{} {}", pos.fen(), value.mv);
                    known += 1;
                }
                None => unknown += 1,
            }
        }
        let best = ruled.into_iter().max().map(DbOutcome::from_signum);
        if let Some(outcome) = db.outcome_with_rule(&pos) {
            assert_eq!(Some(outcome), best, "{}", pos.fen());
        }
    }
    assert!(
        known > 0 && unknown > 0 && turned > 0,
        "{known} known, {unknown} not, {turned} turned by the rule"
    );
}

#[test]
fn a_block_on_the_ply_that_reaches_the_n_move_rule_wins_in_every_path() {
    use morris::search::{PlacingSolver, placing_moves};
    let (_, db) = placing_database();
    // Black places d1, the last stone of a game of four, and blocks every
    // White stone on the ply that reaches the rule's 60: the block comes
    // before the N-move rule (docs/RULES.md), so the placement wins.
    let fen = "WBW/.../.../B....B/.../.../W.W b 0 1 59 40";
    let pos = Position::from_fen(fen, morris::Rules::default()).unwrap();
    let d1: morris::Move = "d1".parse().unwrap();
    let mut after = pos;
    after.play_unchecked(d1);
    assert!(after.n_move_rule_reached());
    let winner = after.terminal_outcome().and_then(|o| o.winner());
    assert_eq!(winner, Some(morris::Color::Black));
    assert_eq!(db.outcome_with_rule(&after), Some(DbOutcome::Loss));
    let mut solver = PlacingSolver::new(db, None, None);
    assert_eq!(
        solver.solve_moves(&pos, &[d1]).unwrap(),
        vec![(d1, DbOutcome::Win)]
    );
    assert_eq!(solver.solve(&pos).unwrap(), DbOutcome::Win);
    let placing = placing_moves(db, &pos).unwrap();
    assert_eq!(placing.with_rule, Some(DbOutcome::Win));
    let known = placing.moves.iter().find(|m| m.mv == d1).unwrap();
    assert_eq!(known.with_rule, Some(DbOutcome::Win));
    assert_eq!(plain_placing_minimax(db, &pos), 1);
}

#[test]
fn a_position_the_n_move_rule_has_drawn_is_a_draw_whatever_its_moves() {
    let (_, db) = database();
    // White flies to g7, closing a7-d7-g7, and would win at once; but the
    // rule drew the game as the position was reached.
    let fen = |plies: u32| format!("WW./.../.../....../W../BB./..B w 0 0 {plies} 40");
    let pos = |plies| Position::from_fen(&fen(plies), morris::Rules::default()).unwrap();
    assert_eq!(db.outcome_with_rule(&pos(59)), Some(DbOutcome::Win));
    assert!(pos(60).n_move_rule_reached());
    assert_eq!(db.outcome_with_rule(&pos(60)), Some(DbOutcome::Draw));
    // As stored, the draw rules left out, it is still a win.
    assert_eq!(db.outcome(&pos(60)), Some(DbOutcome::Win));
}

/// Twelve's whole databases (`MORRIS_TWELVE_DB`, with the files of both
/// full-board rules): the placing sectors from which the board can still
/// fill, near their end, against the end-of-placing solver, which reads
/// only the moving phase's files and applies the rule itself.
#[test]
#[ignore = "needs twelve's whole databases under both full-board rules (MORRIS_TWELVE_DB)"]
fn twelves_placing_values_equal_the_end_of_placing_solver_under_either_full_board_rule() {
    use morris::search::PlacingSolver;
    use morris::solution::Database;
    use morris::{FullBoard, Rules};
    let dir = std::env::var_os("MORRIS_TWELVE_DB").expect("MORRIS_TWELVE_DB names the folder");
    let (db, refused) = Database::open(std::path::Path::new(&dir)).expect("the databases");
    assert!(refused.is_empty(), "{refused:?}");
    let (mut compared, mut differ) = ([0; 3], 0);
    // No stone removed yet (each side's stones on the board and in hand
    // make twelve), from three each to place to the last placement.
    let sectors = [
        (9, 9, 3, 3),
        (9, 10, 3, 2),
        (10, 10, 2, 2),
        (10, 11, 2, 1),
        (11, 11, 1, 1),
        (11, 12, 1, 0),
    ];
    for (mover, other, in_hand, other_in_hand) in sectors {
        let sector = Sector::placing(Variant::Twelve, mover, other, in_hand, other_in_hand)
            .expect("a placing sector");
        let step = (sector.len() / 300).max(1);
        for index in (0..sector.len()).step_by(step as usize) {
            let (mover, other) = sector.board.decode(index);
            let mut outcomes = Vec::new();
            for rule in FullBoard::ALL {
                let pos = placing_position(sector.under(rule), mover, other);
                let free = Rules {
                    n_move_rule: 0,
                    ..pos.rules()
                };
                let free = Position::from_fen(&pos.fen(), free).unwrap();
                let solved = PlacingSolver::new(&db, None, None).solve(&free).unwrap();
                assert_eq!(db.outcome(&pos), Some(solved), "{rule} {}", pos.fen());
                compared[solved as usize] += 1;
                outcomes.push(solved);
            }
            differ += usize::from(outcomes[0] != outcomes[1]);
        }
    }
    eprintln!("losses, draws, wins: {compared:?}; {differ} positions differ by the rule");
    assert!(compared.iter().all(|&n| n > 0), "{compared:?}");
    assert!(differ > 0, "the rule changes some of these positions");
}
