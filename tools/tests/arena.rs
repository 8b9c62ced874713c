//! The match runner against morris and against deliberately broken engines.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use morris::{GameResult, Rules, parse_records};
use morris_tools::arena::game::GameSettings;
use morris_tools::arena::openings::random_openings;
use morris_tools::arena::tournament::{MatchConfig, PgnOut, Tournament, check_engines, run_match};
use morris_tools::client::{EngineConfig, MoveLimit};

/// The engine binary, built next to this test by `cargo test` at the
/// workspace root.
fn morris_binary() -> String {
    let mut path = std::env::current_exe().expect("test path");
    path.pop();
    if path.ends_with("deps") {
        path.pop();
    }
    let binary = path.join("morris");
    assert!(
        binary.exists(),
        "{} missing: run `cargo test --release` at the workspace root",
        binary.display()
    );
    binary.display().to_string()
}

fn morris(name: &str, limit: MoveLimit) -> EngineConfig {
    EngineConfig {
        name: name.to_owned(),
        cmd: morris_binary(),
        limit: Some(limit),
        ..EngineConfig::default()
    }
}

/// A fake engine: a shell script that does the handshake and answers `go`
/// with `on_go`.
fn fake(name: &str, on_go: &str) -> EngineConfig {
    let dir = std::env::temp_dir().join(format!("morris-arena-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script: PathBuf = dir.join(format!("{name}.sh"));
    let text = format!(
        "#!/usr/bin/env bash\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo 'id name {name}'; echo uciok ;;\n    isready) echo readyok ;;\n    go*) {on_go} ;;\n    quit) exit 0 ;;\n  esac\ndone\n"
    );
    std::fs::write(&script, text).expect("write fake engine");
    EngineConfig {
        name: name.to_owned(),
        cmd: "bash".to_owned(),
        args: vec![script.display().to_string()],
        limit: Some(MoveLimit::MoveTime(Duration::from_millis(200))),
        ..EngineConfig::default()
    }
}

fn config(engines: Vec<EngineConfig>, games: usize, pgn_out: Option<PathBuf>) -> MatchConfig {
    MatchConfig {
        engines,
        rounds: 1,
        games,
        concurrency: 2,
        openings: random_openings(games.div_ceil(2), 4..=4, 11, Rules::default()),
        tournament: Tournament::RoundRobin,
        sprt: None,
        pgn_out: pgn_out.map(|path| PgnOut {
            path,
            minimal: false,
        }),
        rating_interval: None,
        settings: GameSettings {
            rules: Rules::default(),
            time_margin: Duration::from_millis(100),
            hang_timeout: Duration::from_secs(30),
        },
    }
}

#[test]
fn broken_engines_lose_with_the_reason_recorded() {
    let cases = [
        (
            "illegal",
            "echo 'bestmove a7-a7'",
            "made an illegal move a7-a7",
        ),
        (
            "garbage",
            "echo 'bestmove zz9'",
            "sent an unparsable move 'zz9'",
        ),
        ("crasher", "exit 3", "crashed"),
        ("sleeper", "sleep 30", "did not answer in time"),
        (
            "resigner",
            "echo 'bestmove (none)'",
            "sent bestmove (none) in a live position",
        ),
    ];
    for (name, on_go, reason) in cases {
        let engines = vec![morris("morris", MoveLimit::Depth(1)), fake(name, on_go)];
        let standings = run_match(
            &config(engines, 2, None),
            &AtomicBool::new(false),
            |_, _, _| {},
        )
        .unwrap();
        assert_eq!(standings.played, 2, "{name}");
        assert_eq!(standings.scores[0][1].wins, 2, "{name}");
        for game in &standings.records {
            assert!(
                game.termination.starts_with(&format!("{name} {reason}")),
                "{}",
                game.termination
            );
            assert_eq!(
                game.record.tag("Termination"),
                Some(game.termination.as_str())
            );
        }
    }
}

#[test]
fn an_engine_answering_in_split_notation_is_understood() {
    let mut split = morris("split", MoveLimit::Depth(2));
    split
        .options
        .push(("MoveNotation".to_owned(), "split".to_owned()));
    let pgn = std::env::temp_dir().join(format!("morris-arena-split-{}.pgn", std::process::id()));
    let engines = vec![morris("compound", MoveLimit::Depth(2)), split];
    let standings = run_match(
        &config(engines, 4, Some(pgn.clone())),
        &AtomicBool::new(false),
        |_, _, _| {},
    )
    .unwrap();
    let records = parse_records(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
    let _ = std::fs::remove_file(pgn);
    assert_eq!(standings.played, 4);
    for record in &records {
        let game = record.replay().unwrap();
        assert!(game.outcome().is_some(), "{:?}", record.tag("Termination"));
    }
    // Both sides closed mills, so the split answers were joined into moves.
    let black_removals = records
        .iter()
        .filter(|r| r.tag("Black") == Some("split"))
        .flat_map(|r| r.moves.iter().skip(1).step_by(2))
        .filter(|m| m.removal.is_some())
        .count();
    assert!(black_removals > 0);
}

#[test]
fn an_engine_that_cannot_start_stops_the_match_before_it_begins() {
    let missing = EngineConfig {
        name: "ghost".to_owned(),
        cmd: "/nonexistent/engine".to_owned(),
        limit: Some(MoveLimit::Depth(1)),
        ..EngineConfig::default()
    };
    let engines = vec![morris("morris", MoveLimit::Depth(1)), missing];
    let err = check_engines(&config(engines, 2, None), &AtomicBool::new(false)).unwrap_err();
    assert_eq!(err.name, "ghost");
    assert!(err.reason.contains("/nonexistent/engine"), "{err}");
    // The program says so and fails, with no table of results.
    let output = Command::new(env!("CARGO_BIN_EXE_morris-arena"))
        .args(["-engine", "cmd=/nonexistent/engine", "name=ghost"])
        .args([
            "-engine",
            &format!("cmd={}", morris_binary()),
            "name=morris",
        ])
        .args(["-each", "depth=1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("engine ghost: cannot start"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn options_an_engine_does_not_know_are_warned_about() {
    let mut engine = morris("morris", MoveLimit::Depth(1));
    engine
        .options
        .push(("Contempt".to_owned(), "10".to_owned()));
    engine.options.push(("Hash".to_owned(), "huge".to_owned()));
    let engines = vec![engine, morris("other", MoveLimit::Depth(1))];
    let warnings = check_engines(&config(engines, 2, None), &AtomicBool::new(false)).unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w == "engine morris: no option 'Contempt' listed"),
        "{warnings:?}"
    );
    // The engine's own error lines are shown.
    assert!(
        warnings.iter().any(
            |w| w.starts_with("engine morris: info string error: setoption: ")
                && w.contains("huge")
        ),
        "{warnings:?}"
    );
}

#[test]
fn records_are_checked_move_by_move() {
    let dir = std::env::temp_dir().join(format!("morris-arena-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.pgn");
    let bad = dir.join("bad.pgn");
    std::fs::write(&good, "[Result \"*\"]\n\n1. d6 d2 2. b4 *\n").unwrap();
    std::fs::write(
        &bad,
        "[Result \"*\"]\n\n1. d6 d2 *\n\n[Result \"*\"]\n\n1. d6 d6 *\n",
    )
    .unwrap();
    let check = |path: &PathBuf| {
        Command::new(env!("CARGO_BIN_EXE_morris-arena"))
            .args(["--check", &path.display().to_string()])
            .output()
            .unwrap()
    };
    let output = check(&good);
    assert_eq!(output.status.code(), Some(0));
    let output = check(&bad);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("game 2: move 2"), "{stdout}");
    assert!(stdout.contains("2 games checked, 1 bad"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_interrupted_match_exits_with_failure() {
    let engine = format!("cmd={}", morris_binary());
    let mut arena = Command::new(env!("CARGO_BIN_EXE_morris-arena"))
        .args(["-engine", &engine, "name=a", "-engine", &engine, "name=b"])
        .args(["-each", "st=0.2", "-rounds", "50"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args(["-INT", &arena.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(arena.wait().unwrap().code(), Some(130));
}

#[test]
fn the_deeper_search_scores_better_and_the_records_replay() {
    let pgn = std::env::temp_dir().join(format!("morris-arena-{}.pgn", std::process::id()));
    let engines = vec![
        morris("shallow", MoveLimit::Depth(1)),
        morris("deep", MoveLimit::Depth(4)),
    ];
    let mut calls = 0;
    let standings = run_match(
        &config(engines, 8, Some(pgn.clone())),
        &AtomicBool::new(false),
        |_, _, _| calls += 1,
    )
    .unwrap();
    assert_eq!(calls, 8);
    let deep = standings.scores[1][0];
    assert!(deep.mean() > 0.5, "deep scored {deep:?}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let records = parse_records(&text).unwrap();
    assert_eq!(records.len(), 8);
    for (record, played) in records.iter().zip(&standings.records) {
        assert_eq!(record, &played.record);
        assert!(record.tag("Site").is_some() && record.tag("Date").is_some());
        // The opening's moves are marked, the engines' carry score/depth time.
        let opening = 4;
        for index in 0..record.moves.len() {
            let comment = record.comments.get(&index).expect("a comment per move");
            if index < opening {
                assert_eq!(comment, "book");
            } else {
                let (evaluation, time) = comment.split_once(' ').expect("score/depth time");
                assert!(evaluation.contains('/'), "{comment}");
                assert!(time.ends_with('s'), "{comment}");
            }
        }
        let game = record.replay().unwrap();
        let outcome = game.outcome().expect("a morris game ends by the rules");
        assert_eq!(GameResult::from_winner(outcome.winner()), record.result);
        assert_eq!(record.tag("Result"), Some(record.result.token()));
    }
    let _ = std::fs::remove_file(pgn);
}

#[test]
fn an_interrupted_match_plays_no_more_games() {
    let engines = vec![
        morris("a", MoveLimit::Depth(1)),
        morris("b", MoveLimit::Depth(1)),
    ];
    let standings = run_match(
        &config(engines, 4, None),
        &AtomicBool::new(true),
        |_, _, _| {},
    )
    .unwrap();
    assert_eq!(standings.played, 0);
}

#[test]
fn morris_in_gbgp_plays_morris_in_its_own_protocol() {
    use morris::Variant;
    use morris_tools::client::Protocol;
    for variant in [Variant::Nine, Variant::Twelve] {
        let gbgp = EngineConfig {
            protocol: Protocol::Gbgp,
            ..morris("gbgp", MoveLimit::Depth(2))
        };
        let engines = vec![morris("uci", MoveLimit::Depth(2)), gbgp];
        let rules = Rules::new(variant);
        let pgn = std::env::temp_dir().join(format!(
            "morris-arena-gbgp-{variant}-{}.pgn",
            std::process::id()
        ));
        let mut match_config = config(engines, 4, Some(pgn.clone()));
        match_config.openings = random_openings(2, 4..=4, 5, rules);
        match_config.settings.rules = rules;
        let standings = run_match(&match_config, &AtomicBool::new(false), |_, _, _| {}).unwrap();
        let records = parse_records(&std::fs::read_to_string(&pgn).unwrap()).unwrap();
        let _ = std::fs::remove_file(pgn);
        assert_eq!(standings.played, 4, "{variant}");
        for record in &records {
            // Every move legal and the game played to its end by the rules.
            let game = record.replay().unwrap();
            let outcome = game
                .outcome()
                .unwrap_or_else(|| panic!("{variant}: {:?}", record.tag("Termination")));
            assert_eq!(GameResult::from_winner(outcome.winner()), record.result);
            assert_eq!(record.tag("Variant"), Some(variant.name()));
        }
        // The GBGP side's scores were read, from White's view, as scores.
        let gbgp_comments = records
            .iter()
            .flat_map(|r| {
                let gbgp_white = r.tag("White") == Some("gbgp");
                r.comments
                    .iter()
                    .filter(move |(index, _)| (**index % 2 == 0) == gbgp_white)
                    .map(|(_, comment)| comment.clone())
            })
            .filter(|comment| comment != "book")
            .collect::<Vec<_>>();
        assert!(!gbgp_comments.is_empty());
        assert!(
            gbgp_comments.iter().all(|c| c.contains('/')),
            "{gbgp_comments:?}"
        );
    }
}
