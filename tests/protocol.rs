//! The protocol of docs/PROTOCOL.md, in memory and through the built binary.

mod common;

use common::process::EngineProcess;
use common::session::{best_move, bestmove, session};
use morris::{Game, Move, Position, Rules};

/// The last `info depth` line.
fn last_info(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info line in {lines:#?}"))
}

/// The line without its timing fields, which vary from run to run.
fn without_timing(line: &str) -> String {
    let mut tokens = line.split(' ').peekable();
    let mut kept = Vec::new();
    while let Some(token) = tokens.next() {
        if token == "nps" || token == "time" {
            tokens.next();
        } else {
            kept.push(token);
        }
    }
    kept.join(" ")
}

const BAD_LINES: [&str; 34] = [
    "hello",
    "uci please",
    "isready now",
    "go depth",
    "go depth -3",
    "go depth 2 depth",
    "go movetime abc",
    "go wtime",
    "go fast",
    "go searchmoves d9",
    "go searchmoves d6-d5",
    "go perft x",
    "position",
    "position fen",
    "position fen garbage",
    "position fen .../.../.../....../.../.../... w 10 9 0 1",
    "position fen .../.../.../....../.../.../... w 9 9 0 1 moves d6 d6",
    "position startpos moves h9",
    "position startpos moves xd6",
    "position startpos moves d6-d5",
    "position startpos moves a7 a1 d7 d1 g7 b6",
    "position startpos moves a7 a1 d7 d1 g7xb6",
    "position startwith moves d6",
    "setoption",
    "setoption name",
    "setoption name Hash value 0",
    "setoption name Hash value lots",
    "setoption name Nope value 1",
    "setoption name Variant value six",
    "setoption name Flying value maybe",
    "setoption name Skill Level value 99",
    "bench 0",
    "\u{1}\u{2}",
    "d now",
];

#[test]
fn every_malformed_line_gets_one_error_and_the_state_is_kept() {
    let mut script = String::from("position startpos moves d6\n");
    for line in BAD_LINES {
        script.push_str(line);
        script.push_str("\nisready\n");
    }
    script.push_str("d\n");
    let mut bytes = script.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe bad bytes\nisready\n\n   \t \r\nisready\r\n");
    let lines = session(&bytes);
    let mut replies = lines.iter();
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
    let rest: Vec<&String> = replies.collect();
    let fen_line = rest
        .iter()
        .find(|l| l.starts_with("Fen: "))
        .expect("d shows the position");
    assert_eq!(
        fen_line.as_str(),
        "Fen: .../.W./.../....../.../.../... b 8 9 1 1"
    );
    let tail: Vec<&str> = rest.iter().rev().take(3).map(|s| s.as_str()).collect();
    assert_eq!(tail[0], "readyok");
    assert_eq!(tail[1], "readyok");
    assert!(tail[2].starts_with("info string error: "));
}

#[test]
fn uci_lists_every_option() {
    let lines = session(b"uci\nisready\n");
    assert!(lines[0].starts_with("id name morris "));
    assert!(lines[1].starts_with("id author "));
    for name in [
        "Hash",
        "Clear Hash",
        "Threads",
        "MultiPV",
        "Ponder",
        "Move Overhead",
        "Skill Level",
        "UCI_LimitStrength",
        "UCI_Elo",
        "UCI_ShowWDL",
        "Variant",
        "Flying",
        "NMoveRule",
        "FullBoard",
        "EndgameDB",
        "ReadAhead",
        "DrawsToWin",
        "MoveNotation",
    ] {
        let prefix = format!("option name {name} type ");
        assert!(lines.iter().any(|l| l.starts_with(&prefix)), "{name}");
    }
    assert_eq!(&lines[lines.len() - 2..], ["uciok", "readyok"]);
}

#[test]
fn fixed_depth_searches_repeat_exactly() {
    let script = b"ucinewgame\nposition startpos moves d6 d2 b4 f4\ngo depth 7\n";
    let first: Vec<String> = session(script).iter().map(|l| without_timing(l)).collect();
    let second: Vec<String> = session(script).iter().map(|l| without_timing(l)).collect();
    assert_eq!(first, second);
    assert_eq!(
        first.iter().filter(|l| l.starts_with("info depth")).count(),
        7
    );
    let nodes = session(b"position startpos\ngo nodes 5000\n");
    let again = session(b"position startpos\ngo nodes 5000\n");
    assert_eq!(bestmove(&nodes), bestmove(&again));
}

#[test]
fn info_lines_have_every_field() {
    let lines = session(b"position startpos\ngo depth 3\n");
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 3 "))
        .expect("depth 3 info");
    let fields: Vec<&str> = info.split(' ').collect();
    for field in [
        "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "dbhits", "time", "pv",
    ] {
        assert!(fields.contains(&field), "{field} missing in {info}");
    }
}

#[test]
fn stop_ends_an_infinite_search_with_a_legal_move() {
    let lines = session(b"position startpos moves d6 d2\ngo infinite\nstop\n");
    let mut pos = Position::startpos();
    pos.play("d6".parse().unwrap());
    pos.play("d2".parse().unwrap());
    let best = best_move(&lines);
    assert!(pos.is_legal(best));
    // The end of input stops an infinite search too.
    let lines = session(b"position startpos\ngo infinite\n");
    let best = best_move(&lines);
    assert!(Position::startpos().is_legal(best));
}

#[test]
fn stop_and_ponderhit_without_a_search_are_ignored() {
    let lines = session(b"stop\nponderhit\nisready\n");
    assert_eq!(lines, ["readyok"]);
}

#[test]
fn a_go_during_a_search_is_refused_and_the_search_goes_on() {
    let lines = session(b"position startpos\ngo infinite\ngo depth 2\nisready\nstop\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: go: "))
    );
    assert!(lines.iter().any(|l| l == "readyok"));
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("bestmove")).count(),
        1
    );
}

const MILL_WINS: &str = "WW./.../.../.W...W/B.B/.../.B. w 0 0 0 30";

#[test]
fn split_notation_on_input() {
    // White's g7 closes a7-d7-g7; the removal follows as its own token.
    let lines = session(b"position startpos moves a7 a1 d7 d1 g7 xa1 b6\nd\n");
    assert!(
        lines
            .iter()
            .any(|l| l == "Fen: WWW/B../.../....../.../.../.B. w 6 6 1 4"),
        "{lines:#?}"
    );
    // A list that ends right after the action asks for the removal alone.
    let lines = session(b"position startpos moves a7 a1 d7 d1 g7\ngo depth 3\n");
    let reply = bestmove(&lines).split(' ').next().unwrap();
    assert!(reply == "xa1" || reply == "xd1", "{reply}");
}

/// The position after `tokens` from the start, split tokens allowed.
fn after(tokens: &[&str]) -> Position {
    let mut pos = Position::startpos();
    let mut pending: Option<Move> = None;
    for token in tokens {
        if let Some(point) = token.strip_prefix('x') {
            let action = pending.take().expect("a removal follows an action");
            pos.play(action.removing(point.parse().unwrap()));
        } else {
            let mv: Move = token.parse().unwrap();
            if pos.is_legal(mv) {
                pos.play(mv);
            } else {
                pending = Some(mv);
            }
        }
    }
    assert!(pending.is_none(), "{tokens:?} ends in an action");
    pos
}

#[test]
fn ponder_moves_are_what_the_gui_can_send_next() {
    // White closes a7-d7-g7 with g7 (the search held to it). In split
    // notation the GUI's next message is that action, so no ponder move
    // goes with it.
    let opening = ["a7", "a1", "d7", "d1"];
    let script = format!(
        "setoption name MoveNotation value split\nposition startpos moves {}\ngo depth 5 searchmoves g7xa1 g7xd1\n",
        opening.join(" ")
    );
    assert_eq!(bestmove(&session(script.as_bytes())), "g7");
    // The removal is answered alone; its ponder move is Black's reply.
    let script = format!(
        "setoption name MoveNotation value split\nposition startpos moves {} g7\ngo depth 5\n",
        opening.join(" ")
    );
    let lines = session(script.as_bytes());
    let reply: Vec<&str> = bestmove(&lines).split(' ').collect();
    let [removal, "ponder", ponder] = reply[..] else {
        panic!("a removal with a ponder move: {reply:?}");
    };
    let mut tokens = opening.to_vec();
    tokens.extend(["g7", removal]);
    assert!(
        after(&tokens).is_legal(ponder.parse().unwrap()),
        "{reply:?}"
    );
    // In compound notation the whole turn goes out, the reply with it.
    let script = format!(
        "position startpos moves {}\ngo depth 5\n",
        opening.join(" ")
    );
    let lines = session(script.as_bytes());
    let reply: Vec<&str> = bestmove(&lines).split(' ').collect();
    let [best, "ponder", ponder] = reply[..] else {
        panic!("a move with a ponder move: {reply:?}");
    };
    let mut pos = after(&opening);
    pos.play(best.parse().unwrap());
    assert!(pos.is_legal(ponder.parse().unwrap()), "{reply:?}");
}

#[test]
fn split_notation_on_output() {
    let script =
        format!("setoption name MoveNotation value split\nposition fen {MILL_WINS}\ngo depth 3\n");
    let lines = session(script.as_bytes());
    assert_eq!(bestmove(&lines), "g4-g7");
    let script = format!(
        "setoption name MoveNotation value split\nposition fen {MILL_WINS} moves g4-g7\ngo depth 3\n"
    );
    let reply = session(script.as_bytes());
    let removal = bestmove(&reply);
    assert!(["xc3", "xe3", "xd1"].contains(&removal), "{removal}");
}

/// Whether the side to move can force a win within `plies` plies, by plain
/// minimax over the library's moves, with nothing of the engine's search.
fn forced_win(pos: &Position, plies: u32) -> bool {
    pos.legal_moves().iter().any(|&mv| {
        let mut child = *pos;
        child.play_unchecked(mv);
        let won = child
            .terminal_outcome()
            .is_some_and(|o| o.winner() == Some(pos.side_to_move()));
        won || (plies >= 3
            && child.legal_moves().iter().all(|&reply| {
                let mut next = child;
                next.play_unchecked(reply);
                forced_win(&next, plies - 2)
            }))
    })
}

fn check_win(fen: &str, depth: u32, own_turns: u32) {
    let script = format!("position fen {fen}\ngo depth {depth}\n");
    let lines = session(script.as_bytes());
    let last_info = last_info(&lines);
    assert!(
        last_info.contains(&format!(" score mate {own_turns} ")),
        "{fen}: {last_info}"
    );
    let pos = Position::from_fen(fen, Rules::default()).unwrap();
    assert!(
        forced_win(&pos, 2 * own_turns - 1),
        "{fen} is not a win in {own_turns}"
    );
    assert!(
        own_turns == 1 || !forced_win(&pos, 2 * own_turns - 3),
        "{fen} wins sooner"
    );
    let best = best_move(&lines);
    let mut after = pos;
    after.play(best);
    let still_winning = after
        .terminal_outcome()
        .is_some_and(|o| o.winner() == Some(pos.side_to_move()))
        || after.legal_moves().iter().all(|&reply| {
            let mut next = after;
            next.play_unchecked(reply);
            forced_win(&next, 2 * own_turns - 3)
        });
    assert!(still_winning, "{fen}: {best} lets the win go");
}

#[test]
fn a_mill_that_wins_the_game_is_found() {
    check_win(MILL_WINS, 4, 1);
}

#[test]
fn a_blocking_win_is_found() {
    check_win("BWB/.W./.../W...W./.../.W./BWB w 0 0 2 22", 4, 1);
}

#[test]
fn wins_in_three_turns_are_found() {
    check_win("W.W/W.W/.W./B..B../B../.B./WW. w 0 0 9 23", 8, 3);
    check_win("WBB/.WB/.W./W....W/.BW/.WW/WB. w 0 0 1 21", 8, 3);
    check_win("..W/BBB/B.B/W.B.W./.../.BW/... b 0 0 11 23", 8, 3);
}

#[test]
fn a_finished_game_gets_game_over_and_no_move() {
    let blocked = session(b"position fen BWB/.W./.../W....W/.../.W./BWB b 0 0 2 22\ngo depth 3\n");
    assert_eq!(
        blocked,
        [
            "info string game over: white wins (black is blocked)",
            "bestmove (none)"
        ]
    );
    let script = format!("position fen {MILL_WINS} moves g4-g7xc3\ngo depth 3\n");
    let short = session(script.as_bytes());
    assert_eq!(
        short[0],
        "info string game over: white wins (black has fewer than three stones)"
    );
    let shuffle = "b2-d2 d3-c3 d2-b2 c3-d3 b2-d2 d3-c3 d2-b2 c3-d3";
    let script = format!(
        "position fen WWB/BW./WB./B.WBW./.B./W.B/... w 0 0 10 20 moves {shuffle}\ngo depth 3\n"
    );
    let repeated = session(script.as_bytes());
    assert_eq!(
        repeated,
        [
            "info string game over: draw (threefold repetition)",
            "bestmove (none)"
        ]
    );
    let script = "setoption name NMoveRule value 1\nposition startpos moves d6 d2\ngo depth 3\n";
    let fifty = session(script.as_bytes());
    assert_eq!(
        fifty,
        [
            "info string game over: draw (n-move rule)",
            "bestmove (none)"
        ]
    );
}

#[test]
fn perft_eval_and_display() {
    let lines = session(b"position startpos\ngo perft 3\n");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 12144")
    );
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 25);
    let lines = session(b"position startpos moves d6\neval\n");
    assert!(lines.iter().any(|l| l.starts_with("material")));
    assert!(lines.last().unwrap().starts_with("total: "));
    let lines = session(b"position startpos moves d6\nd\n");
    assert!(lines.iter().any(|l| l == "Side to move: black"));
    assert!(lines.iter().any(|l| l.starts_with("Legal moves (23): ")));
    assert!(lines.iter().any(|l| l == "Game over: no"));
}

#[test]
fn multipv_reports_several_lines() {
    let lines = session(b"setoption name MultiPV value 3\nposition startpos\ngo depth 4\n");
    for k in 1..=3 {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 4 ") && l.contains(&format!(" multipv {k} ")))
        );
    }
}

#[test]
fn searchmoves_restricts_the_root() {
    let lines = session(b"position startpos\ngo depth 4 searchmoves a1 g1\n");
    let best = bestmove(&lines).split(' ').next().unwrap().to_owned();
    assert!(best == "a1" || best == "g1", "{best}");
}

#[test]
fn the_binary_survives_bad_input_and_quits_cleanly() {
    let mut engine = EngineProcess::start();
    for line in BAD_LINES {
        engine.send(line);
        engine.send("isready");
        let lines = engine.read_until(|l| l == "readyok");
        assert_eq!(lines.len(), 2, "{line:?}: {lines:?}");
        assert!(lines[0].starts_with("info string error: "));
    }
    engine.send_bytes(b"\xc3\x28\n");
    engine.send("isready");
    assert_eq!(engine.read_until(|l| l == "readyok").len(), 2);
    assert_eq!(engine.finish(true), Some(0));
}

#[test]
fn the_binary_answers_during_a_search_and_stops() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves d6 d2 b4");
    engine.send("go infinite");
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")));
    engine.send("stop");
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    let best = best_move(&lines);
    let mut game = Game::new(Position::startpos());
    for token in ["d6", "d2", "b4"] {
        game.try_play(token.parse().unwrap()).unwrap();
    }
    assert!(game.position().is_legal(best));
    // A fixed-depth search gives the same lines each time after ucinewgame.
    let mut runs = Vec::new();
    for _ in 0..2 {
        engine.send("ucinewgame");
        engine.send("position startpos moves d6 d2");
        engine.send("go depth 6");
        let lines = engine.read_until(|l| l.starts_with("bestmove"));
        runs.push(lines.iter().map(|l| without_timing(l)).collect::<Vec<_>>());
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(engine.finish(false), Some(0));
}

#[test]
fn clocks_and_move_times_give_legal_moves() {
    for go in [
        "go wtime 2000 btime 2000 winc 20 binc 20",
        "go movetime 30",
        "go btime 500 wtime 5 movestogo 3",
    ] {
        let script = format!("position startpos moves d6 d2\n{go}\n");
        let lines = session(script.as_bytes());
        let mut pos = Position::startpos();
        pos.play("d6".parse().unwrap());
        pos.play("d2".parse().unwrap());
        let best = best_move(&lines);
        assert!(pos.is_legal(best), "{go}: {best}");
    }
}

#[test]
fn a_forced_move_is_answered_with_that_move() {
    // Black's only moves are the two slides into g4.
    let lines =
        session(b"position fen BWB/.W./.../W...W./.../.W./BWB b 0 0 2 22\ngo movetime 100000\n");
    let best = bestmove(&lines).split(' ').next().unwrap().to_owned();
    assert!(best == "g7-g4" || best == "g1-g4", "{best}");
}

#[test]
fn pondering_waits_for_ponderhit() {
    let mut engine = EngineProcess::start();
    engine.send("setoption name Ponder value true");
    engine.send("position startpos moves d6 d2");
    engine.send("go ponder movetime 10");
    // Well past the move time: a pondering engine still must not answer.
    std::thread::sleep(std::time::Duration::from_millis(300));
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert!(
        !lines.iter().any(|l| l.starts_with("bestmove")),
        "{lines:?}"
    );
    engine.send("ponderhit");
    let lines = engine.read_until(|l| l.starts_with("bestmove"));
    assert!(lines.last().unwrap().starts_with("bestmove "));
    assert_eq!(engine.finish(true), Some(0));
}

#[test]
fn weakened_play_is_legal_and_shallow() {
    let lines = session(
        b"setoption name Skill Level value 0\nposition startpos moves d6 d2\ngo depth 10\n",
    );
    let depths: Vec<u32> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info depth "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(depths.iter().max(), Some(&1));
    assert!(lines.iter().all(|l| !l.contains(" multipv 2 ")));
    let mut pos = Position::startpos();
    pos.play("d6".parse().unwrap());
    pos.play("d2".parse().unwrap());
    let best = best_move(&lines);
    assert!(pos.is_legal(best));
}

#[test]
fn two_threads_search_and_agree_on_mates() {
    let script = format!("setoption name Threads value 2\nposition fen {MILL_WINS}\ngo depth 6\n");
    let lines = session(script.as_bytes());
    assert!(bestmove(&lines).starts_with("g4-g7x"));
    let last_info = last_info(&lines);
    assert!(last_info.contains(" score mate 1 "), "{last_info}");
}

#[test]
fn commands_after_stop_are_for_the_next_search() {
    let mut engine = EngineProcess::start();
    for _ in 0..10 {
        engine.send("position startpos");
        engine.send("go infinite");
        engine.send("isready");
        engine.read_until(|l| l == "readyok");
        // All at once, as a GUI that does not wait for the bestmove sends them.
        engine.send_bytes(b"stop\nposition startpos moves d6\ngo depth 1\n");
        let stopped = engine.read_until(|l| l.starts_with("bestmove"));
        let next = engine.read_until(|l| l.starts_with("bestmove") || l.contains("error"));
        assert!(
            !stopped.iter().chain(&next).any(|l| l.contains("error")),
            "{stopped:?} {next:?}"
        );
        let best = best_move(&next);
        assert!(after(&["d6"]).is_legal(best), "{best}");
    }
    assert_eq!(engine.finish(true), Some(0));
}

#[test]
fn the_end_of_input_ends_every_search_with_its_best_move() {
    for go in [
        "go depth 40",
        "go nodes 1000000000000",
        "go mate 5",
        "go movetime 100000000",
        "go infinite",
        "go ponder",
    ] {
        let mut engine = EngineProcess::start();
        engine.send("position startpos moves d6 d2");
        engine.send(go);
        let (lines, status) = engine.close_input();
        assert_eq!(status, Some(0), "{go}");
        let best = best_move(&lines);
        assert!(after(&["d6", "d2"]).is_legal(best), "{go}: {best}");
    }
}

#[test]
fn a_clock_for_the_other_side_only_moves_at_once() {
    let lines = session(b"position startpos moves d6\ngo wtime 1000 winc 100\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string warning: go: no time given for black")),
        "{lines:?}"
    );
    let best = best_move(&lines);
    assert!(after(&["d6"]).is_legal(best));
}

#[test]
fn searchmoves_end_at_the_next_keyword_and_negative_times_are_none() {
    let lines = session(b"position startpos\ngo searchmoves a7 g1 depth 5\n");
    let best = bestmove(&lines).split(' ').next().unwrap().to_owned();
    assert!(best == "a7" || best == "g1", "{best}");
    assert!(lines.iter().any(|l| l.starts_with("info depth 5 ")));
    let lines = session(b"position startpos moves d6\ngo wtime -50 btime -50 winc -10 binc 0\n");
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    let best = best_move(&lines);
    assert!(after(&["d6"]).is_legal(best));
}

#[test]
fn an_info_line_comes_right_before_every_best_move() {
    for go in [
        "go nodes 1",
        "go depth 4",
        "go movetime 50",
        "go nodes 3000",
    ] {
        let script = format!("position startpos moves d6 d2\n{go}\n");
        let lines = session(script.as_bytes());
        let at = lines
            .iter()
            .position(|l| l.starts_with("bestmove"))
            .expect("a best move");
        let info = &lines[at.checked_sub(1).expect("a line before the best move")];
        assert!(info.starts_with("info depth "), "{go}: {lines:?}");
        let best = bestmove(&lines).split(' ').next().unwrap();
        let pv = info.split(" pv ").nth(1).expect("a pv");
        assert_eq!(pv.split(' ').next(), Some(best), "{go}: {info}");
    }
}

#[test]
fn long_searches_say_which_root_move_they_are_on() {
    let mut engine = EngineProcess::start();
    engine.send("position startpos moves d6 d2");
    engine.send("go infinite");
    // Wait for the report rather than a fixed time: the first root move of
    // a depth may outlast any sleep on a loaded machine.
    let mut lines = engine.read_until(|l| l.contains(" currmove "));
    engine.send("stop");
    lines.extend(engine.read_until(|l| l.starts_with("bestmove")));
    for line in lines.iter().filter(|l| l.contains(" currmove ")) {
        let tokens: Vec<&str> = line.split(' ').collect();
        let ["info", "depth", _, "currmove", mv, "currmovenumber", number] = tokens[..] else {
            panic!("{line}");
        };
        assert!(after(&["d6", "d2"]).is_legal(mv.parse().unwrap()), "{line}");
        assert!(number.parse::<u32>().unwrap() >= 1);
    }
    assert_eq!(engine.finish(true), Some(0));
}

#[test]
fn error_lines_escape_control_characters_and_cut_long_tokens() {
    let long = "a".repeat(1 << 20);
    let script = format!(
        "go \u{1}\u{2}\u{1b}[31m\nposition startpos moves {long}\nsetoption name {long} value 1\nisready\n"
    );
    let lines = session(script.as_bytes());
    assert_eq!(lines.len(), 4, "{}", lines.join("\n").len());
    for line in &lines[..3] {
        assert!(line.starts_with("info string error: "), "{line}");
        assert!(line.len() < 300, "{} bytes", line.len());
        assert!(!line.chars().any(char::is_control), "{line:?}");
    }
    assert_eq!(lines[3], "readyok");
}

/// The engine's resident memory in KiB, from /proc.
#[cfg(target_os = "linux")]
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn a_table_is_in_memory_before_isready_answers() {
    let mut engine = EngineProcess::start();
    let mib = 512;
    engine.send(&format!("setoption name Hash value {mib}"));
    engine.send("ucinewgame");
    engine.send("isready");
    let lines = engine.read_until(|l| l == "readyok");
    assert_eq!(lines, ["readyok"]);
    // Every page is the engine's already, so no search pays to fault it in.
    assert!(
        resident_kib(engine.pid()) > mib * 1024 * 3 / 4,
        "{} KiB resident for a {mib} MiB table",
        resident_kib(engine.pid())
    );
    // The table works: a search fills some of it.
    engine.send("position startpos");
    engine.send("go depth 6");
    engine.read_until(|l| l.starts_with("bestmove"));
    assert_eq!(engine.finish(true), Some(0));
}

#[test]
fn clear_hash_forgets_earlier_searches() {
    let search = "position startpos moves d6 d2\ngo depth 7\n";
    let fresh = session(format!("ucinewgame\n{search}").as_bytes());
    // Searching twice, the second search finds the first one's results.
    let warm = session(format!("{search}{search}").as_bytes());
    let cleared = session(format!("{search}setoption name Clear Hash\n{search}").as_bytes());
    let second = |lines: &[String]| -> Vec<String> {
        let first_end = lines
            .iter()
            .position(|l| l.starts_with("bestmove"))
            .unwrap();
        lines[first_end + 1..]
            .iter()
            .map(|l| without_timing(l))
            .collect()
    };
    let fresh: Vec<String> = fresh.iter().map(|l| without_timing(l)).collect();
    assert_ne!(second(&warm), fresh);
    assert_eq!(second(&cleared), fresh);
}

#[test]
fn debug_and_register_are_accepted() {
    let lines =
        session(b"debug on\ndebug off\ndebug\nregister later\nregister name x code y\nisready\n");
    assert_eq!(lines, ["readyok"]);
    let lines = session(b"debug sideways\nisready\n");
    assert!(
        lines[0].starts_with("info string error: debug: "),
        "{lines:?}"
    );
}

#[test]
fn wdl_is_shown_when_asked_and_exact_for_a_win() {
    let plain = session(b"position startpos\ngo depth 3\n");
    assert!(!plain.iter().any(|l| l.contains(" wdl ")));
    let lines = session(b"setoption name UCI_ShowWDL value true\nposition startpos\ngo depth 3\n");
    for line in lines.iter().filter(|l| l.starts_with("info depth")) {
        let tokens: Vec<&str> = line.split(' ').collect();
        let at = tokens.iter().position(|&t| t == "wdl").expect("wdl");
        let chances: Vec<u32> = tokens[at + 1..at + 4]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(chances.iter().sum::<u32>(), 1000, "{line}");
    }
    let script =
        format!("setoption name UCI_ShowWDL value true\nposition fen {MILL_WINS}\ngo depth 3\n");
    let won = session(script.as_bytes());
    let last = last_info(&won);
    assert!(last.contains(" score mate 1 wdl 1000 0 0 "), "{last}");
}

#[test]
fn limit_strength_plays_at_the_level_uci_elo_names() {
    // The weakest strength searches as Skill Level 0 does: depth 1.
    let lines = session(
        b"setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value 0\nposition startpos moves d6 d2\ngo depth 10\n",
    );
    let deepest = lines
        .iter()
        .filter_map(|l| l.strip_prefix("info depth "))
        .map(|rest| rest.split(' ').next().unwrap().parse::<u32>().unwrap())
        .max();
    assert_eq!(deepest, Some(1));
    // Without UCI_LimitStrength, UCI_Elo changes nothing.
    let lines =
        session(b"setoption name UCI_Elo value 0\nposition startpos moves d6 d2\ngo depth 5\n");
    assert!(lines.iter().any(|l| l.starts_with("info depth 5 ")));
}

#[test]
fn the_full_board_rule_decides_twelve_s_last_placement() {
    // Black's last stone fills the board, closing no mill.
    let fen = "WBW/BWB/WBW/BWBWBW/BWB/WBW/.WB b 0 1 0 12";
    for (rule, score) in [("draw", "score cp 0 "), ("whiteloses", "score mate 1 ")] {
        let script = format!(
            "setoption name Variant value twelve\nsetoption name FullBoard value {rule}\nposition fen {fen}\ngo depth 2\n"
        );
        let lines = session(script.as_bytes());
        assert!(last_info(&lines).contains(score), "{rule}: {lines:?}");
        assert_eq!(bestmove(&lines), "a1", "{rule}");
    }
    let lines = session(b"setoption name FullBoard value blackloses\nisready\n");
    assert!(
        lines[0].starts_with("info string error: setoption: ") && lines[0].contains("whiteloses"),
        "{lines:?}"
    );
}
