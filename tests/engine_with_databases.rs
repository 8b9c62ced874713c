//! The engine with the databases: the moves it plays and the values it
//! reports, in the moving phase, at the end of placing and with the
//! placing phase's values.

mod common;

use common::session::session;
use common::solution::{
    database, lasker_database, placing_database, placing_position, placing_positions,
    plain_move_values, position, twelve_database,
};
use morris::Variant;
use morris::solution::{Database, DbOutcome, DbValue, Sector, SectorIndex};
use morris::{Color, Position};

/// The engine's move with the databases, at a small depth.
fn engine_move(game: &morris::Game, db: &std::sync::Arc<Database>) -> morris::Move {
    let request = morris::search::SearchRequest {
        db: Some(std::sync::Arc::clone(db)),
        ..morris::search::SearchRequest::new(
            *game.position(),
            game.keys(),
            morris::search::SearchLimits::depth(2),
        )
    };
    let tt = std::sync::Arc::new(morris::search::TranspositionTable::new(1).unwrap());
    request.run(tt).best.expect("a move in a live position")
}

/// How the game from `start` ends with the engine and the databases
/// playing both sides.
fn played_out(start: Position, db: &std::sync::Arc<Database>) -> morris::Outcome {
    let mut game = morris::Game::new(start);
    while game.outcome().is_none() {
        let mv = engine_move(&game, db);
        game.try_play(mv).expect("the engine plays legal moves");
    }
    game.outcome().expect("the game is over")
}

#[test]
fn won_positions_are_won_against_the_best_defence() {
    let (dir, _) = database();
    let (db, _) = Database::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    for (mover, other) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
        let sector = SectorIndex::new(mover, other);
        // The longest wins of the sector are the hardest to convert.
        let longest = db
            .moving_headers()
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
            let Some(value) = db.value(&start) else {
                continue;
            };
            if value.outcome != DbOutcome::Win || value.distance < wanted {
                continue;
            }
            let outcome = played_out(start, &db);
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
    let (db, _) = Database::open(dir).unwrap();
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
            if db.value(&start).map(|v| v.outcome) != Some(DbOutcome::Win) {
                continue;
            }
            let ranked = db
                .moves(&start)
                .into_iter()
                .map(|known| (known.mv, known.value))
                .collect::<Vec<_>>();
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
            let value = db.value(&position(m, o))?;
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

/// The engine's search of `pos` to `depth`, with the databases or without,
/// among `moves` (all when empty), its draws played to win or not.
fn search_result(
    pos: &Position,
    depth: u32,
    db: Option<&std::sync::Arc<Database>>,
    moves: &[morris::Move],
    draws_to_win: bool,
) -> morris::search::SearchResult {
    let mut limits = morris::search::SearchLimits::depth(depth);
    limits.search_moves = moves.to_vec();
    let request = morris::search::SearchRequest {
        db: db.cloned(),
        draws_to_win,
        ..morris::search::SearchRequest::new(*pos, &[pos.key()], limits)
    };
    request.run(std::sync::Arc::new(
        morris::search::TranspositionTable::new(1).unwrap(),
    ))
}

/// The share of the opponent's replies that lose after `mv` of `pos`, in
/// centi-stones of the bonus a draw played to win gives it (a stone were
/// every reply to lose).
fn losing_replies_bonus(db: &Database, pos: &Position, mv: morris::Move) -> i32 {
    let mut child = *pos;
    child.play_unchecked(mv);
    let replies = db.moves(&child);
    let losing = replies
        .iter()
        .filter(|reply| reply.with_rule == Some(DbOutcome::Loss))
        .count();
    (morris::eval::STONE as usize * losing / replies.len().max(1)) as i32
}

#[test]
fn among_drawing_moves_the_engine_searches_on_and_plays_to_win_by_the_losing_replies() {
    let (dir, _) = database();
    let (db, _) = Database::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    let (mut drawn, mut compared, mut pressed) = (0, 0, 0);
    for (mover, other) in [(4, 4), (3, 4), (4, 3)] {
        let sector = SectorIndex::new(mover, other);
        for index in (0..sector.len()).step_by((sector.len() / 300) as usize) {
            let (m, o) = sector.decode(index);
            let start = position(m, o);
            if start.terminal_outcome().is_some()
                || db.value(&start).map(|v| v.outcome) != Some(DbOutcome::Draw)
            {
                continue;
            }
            let drawing: Vec<morris::Move> = db
                .moves(&start)
                .into_iter()
                .filter(|known| known.with_rule == Some(DbOutcome::Draw))
                .map(|known| known.mv)
                .collect();
            if drawing.len() < 2 {
                continue;
            }
            drawn += 1;
            let searched = search_result(&start, 3, Some(&db), &[], false);
            let best = searched.best.unwrap();
            assert!(drawing.contains(&best), "{} played {best}", start.fen());
            // Where the search met no win or loss of the databases, it saw
            // what a search without them, given the drawing moves, sees.
            let info = searched.last_info.unwrap();
            if info.dbhits == 0 {
                let without = search_result(&start, 3, None, &drawing, false);
                assert_eq!(without.best, Some(best), "{}", start.fen());
                assert_eq!(
                    without.last_info.unwrap().score,
                    info.score,
                    "{}",
                    start.fen()
                );
                compared += 1;
            }
            // Played to win, a draw the search liked less is played only
            // for a larger share of losing replies.
            let to_win = search_result(&start, 3, Some(&db), &[], true).best.unwrap();
            assert!(drawing.contains(&to_win), "{} played {to_win}", start.fen());
            if to_win != best {
                pressed += 1;
                assert!(
                    losing_replies_bonus(&db, &start, to_win)
                        > losing_replies_bonus(&db, &start, best),
                    "{} played {to_win} over {best}",
                    start.fen()
                );
            }
        }
    }
    assert!(
        drawn >= 400 && compared >= 100 && pressed >= 20,
        "{drawn} drawn, {compared} compared, {pressed} played to win"
    );
}

/// About `per_sector` positions of each placing sector of `variant` up to
/// four stones a side in `db` where a move throws the value away, and that
/// value, under rules without the N-move rule: the end-of-placing solver
/// is then left out, and the placing phase's databases alone choose.
fn placing_positions_that_can_err(
    db: &Database,
    variant: Variant,
    per_sector: u64,
) -> Vec<(Position, DbOutcome)> {
    let rules = morris::Rules {
        n_move_rule: 0,
        ..morris::Rules::new(variant)
    };
    let mut found = Vec::new();
    for sector in Sector::placing_within(variant, 4) {
        let step = (sector.len() / per_sector).max(1);
        for index in (0..sector.len()).step_by(step as usize) {
            let (mover, other) = sector.board.decode(index);
            let fen = placing_position(sector, mover, other).fen();
            let pos = Position::from_fen(&fen, rules).unwrap();
            if pos.terminal_outcome().is_some() {
                continue;
            }
            let value = db.outcome(&pos).unwrap();
            if db
                .moves(&pos)
                .iter()
                .any(|known| known.outcome != Some(value))
            {
                found.push((pos, value));
            }
        }
    }
    found
}

#[test]
fn with_the_placing_phase_the_engine_plays_only_moves_that_keep_the_value() {
    for (variant, dir) in [
        (Variant::Nine, &placing_database().0),
        (Variant::Twelve, &twelve_database().0),
    ] {
        let db = std::sync::Arc::new(Database::open(dir).unwrap().0);
        let positions = placing_positions_that_can_err(&db, variant, 50);
        for (pos, value) in &positions {
            let mv = engine_move(&morris::Game::new(*pos), &db);
            assert_eq!(
                db.move_value(pos, mv).outcome,
                Some(*value),
                "{variant} {} {mv}",
                pos.fen()
            );
        }
        assert!(positions.len() >= 20, "{variant} {}", positions.len());
    }
}

/// The position string of a placing position of `variant` won in `db`,
/// three stones or more from the moving phase.
fn won_placing_position(db: &Database, variant: Variant) -> String {
    Sector::placing_within(variant, 4)
        .into_iter()
        .filter(|s| s.to_place() >= 3)
        .find_map(|sector| {
            (0..sector.len()).find_map(|index| {
                let (mover, other) = sector.board.decode(index);
                let pos = placing_position(sector, mover, other);
                (pos.terminal_outcome().is_none() && db.outcome(&pos) == Some(DbOutcome::Win))
                    .then(|| pos.fen())
            })
        })
        .expect("a won placing position")
}

#[test]
fn in_twelve_the_engine_reports_the_value_of_twelve_s_databases() {
    let (twelve, db) = twelve_database();
    let (nine, _) = placing_database();
    let won = won_placing_position(db, Variant::Twelve);
    // Nine's files say nothing of twelve.
    assert_reports_the_value_of(Variant::Twelve, &won, &[(twelve, true), (nine, false)]);
}

/// Asserts that the engine, playing `variant` from the won position `won`
/// with each folder of `folders`, reports the win from the databases
/// (read) or not.
fn assert_reports_the_value_of(
    variant: Variant,
    won: &str,
    folders: &[(&std::path::PathBuf, bool)],
) {
    for &(dir, read) in folders {
        let script = format!(
            "setoption name Variant value {variant}\nsetoption name EndgameDB value {}\nsetoption name UCI_ShowWDL value true\nposition fen {won}\ngo depth 4\n",
            dir.display()
        );
        let out = session(script.as_bytes());
        let info = out
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .expect("an info line");
        assert_eq!(info.contains("wdl 1000 0 0"), read, "{won}: {info}");
        assert_eq!(!info.contains(" dbhits 0 "), read, "{won}: {info}");
    }
}

#[test]
fn on_the_clock_the_placing_phase_chooses_the_move_too() {
    // A search on the clock reads the databases from memory only; the
    // root's values are read (or waited for) before it decides.
    let (dir, _) = placing_database();
    let db = std::sync::Arc::new(Database::open(dir).unwrap().0);
    let mut checked = 0;
    for (pos, value) in placing_positions_that_can_err(&db, Variant::Nine, 8) {
        // Only where the first move generated throws the value away.
        if db.move_value(&pos, pos.legal_moves()[0]).outcome == Some(value) {
            continue;
        }
        let limits = morris::search::SearchLimits {
            limits: vec![morris::search::Limit::MoveTime(
                std::time::Duration::from_millis(40),
            )],
            ..morris::search::SearchLimits::default()
        };
        let request = morris::search::SearchRequest {
            db: Some(std::sync::Arc::clone(&db)),
            ..morris::search::SearchRequest::new(pos, &[pos.key()], limits)
        };
        let tt = std::sync::Arc::new(morris::search::TranspositionTable::new(1).unwrap());
        let mv = request.run(tt).best.unwrap();
        assert_eq!(
            db.move_value(&pos, mv).outcome,
            Some(value),
            "{} {mv}",
            pos.fen()
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}

#[test]
fn with_the_placing_phase_info_reports_the_exact_value() {
    let (dir, db) = placing_database();
    // A drawn start, and a won position found in the databases.
    let drawn = ".../.../.../....../.../.../... w 4 4 0 1".to_owned();
    let won = won_placing_position(db, Variant::Nine);
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
fn a_removal_wins_only_if_the_win_after_it_comes_in_time_too() {
    let (dir, _) = database();
    let (db, _) = Database::open(dir).unwrap();
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
            let ranked = db
                .moves(&pos)
                .into_iter()
                .map(|known| (known.mv, known.value))
                .collect::<Vec<_>>();
            let won = |value: Option<DbValue>| value.filter(|v| v.outcome == DbOutcome::Win);
            // The far side of each winning removal, and the quickest quiet win.
            let removals: Vec<u16> = ranked
                .iter()
                .filter(|(mv, value)| mv.removal.is_some() && won(*value).is_some())
                .map(|&(mv, _)| {
                    let mut child = pos;
                    child.play_unchecked(mv);
                    db.value(&child).map_or(0, |v| v.distance)
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
                db.move_value(&pos, mv).with_rule,
                Some(DbOutcome::Win),
                "{fen} with the rule at {plies} plies: {mv}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked}");
}

/// A Lasker position of `db` with stones in hand to place, the game not
/// over, whose side to move has `outcome`, at least `distance` plies from
/// the next removal.
fn lasker_position(db: &Database, outcome: DbOutcome, distance: u16) -> Position {
    Sector::interleaved_within(Variant::Lasker, 4)
        .into_iter()
        .filter(|s| s.mover_hand > 0 && s.other_hand > 0)
        .find_map(|sector| {
            (0..sector.len()).find_map(|index| {
                let (mover, other) = sector.board.decode(index);
                let pos = sector.position(mover, other);
                let value = db.value(&pos)?;
                (pos.terminal_outcome().is_none()
                    && value.outcome == outcome
                    && value.distance >= distance)
                    .then_some(pos)
            })
        })
        .expect("such a position")
}

#[test]
fn in_lasker_the_engine_reports_the_value_of_lasker_s_databases() {
    let (lasker, db) = lasker_database();
    let (nine, _) = database();
    let won = lasker_position(db, DbOutcome::Win, 5).fen();
    // Nine's files say nothing of Lasker.
    assert_reports_the_value_of(Variant::Lasker, &won, &[(lasker, true), (nine, false)]);
}

#[test]
fn a_won_lasker_position_with_stones_in_hand_is_won_against_the_best_defence() {
    let (dir, _) = lasker_database();
    let (db, _) = Database::open(dir).unwrap();
    let db = std::sync::Arc::new(db);
    let start = lasker_position(&db, DbOutcome::Win, 7);
    let winner = start.side_to_move();
    let outcome = played_out(start, &db);
    assert_eq!(
        outcome.winner(),
        Some(winner),
        "from {}: {outcome}",
        start.fen()
    );
}
