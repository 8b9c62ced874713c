//! GBGP, the Generic Board Game Protocol of the Nine Morris 3D GUI and the
//! Muhle Intelligence engine: UCI with `gbgp`/`gbgpok`, `newgame`, the
//! position strings of [`GbgpPosition`] (`position pos b:wb4,c4:bd2:2`),
//! `score eval <x>` and `score win <n>`, and `none` for no move.
//!
//! Moves are written as in morris's compound notation (`d6`, `e4xg7`,
//! `c4-c3`, `d6-f6xa1`). Scores are written as those programs write and
//! read them: from White's view, whoever is to move (Nine Morris 3D draws
//! its bar from them), `eval` in tenths of a stone (the scale the bar is
//! drawn for) and `win` in turns of the winner, positive when White wins.

mod position;

pub use position::{GbgpPosition, GbgpPositionError, GbgpWriteError, ParseGbgpPositionError};

use crate::board::{Color, Move};
use crate::engine::BestMove;
use crate::search::{Bound, DB_WIN, Score, SearchInfo};
use crate::solution::DbOutcome;
use crate::uci::parse::{Command, ProtocolError, Start, parse, position_with};

/// The check option through which GBGP's programs choose Twelve Men's
/// Morris (`true`) or Nine Men's Morris (`false`).
pub const TWELVE_OPTION: &str = "TwelveMensMorris";

/// Reads one line of GBGP; `Ok(None)` for an empty line.
///
/// GBGP's own commands are `newgame` (for `ucinewgame`) and `position`
/// with `pos` (for `fen`); `ucinewgame` and `register` are not GBGP. The
/// rest reads as in the UCI dialect, `uci` included (which goes back to it).
///
/// # Errors
///
/// A [`ProtocolError`] naming the token at fault.
pub fn parse_gbgp(line: &str) -> Result<Option<Command>, ProtocolError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    match tokens.as_slice() {
        ["newgame"] => Ok(Some(Command::NewGame)),
        ["newgame", extra, ..] => Err(ProtocolError::Unexpected {
            command: "newgame",
            token: (*extra).to_owned(),
        }),
        ["position", rest @ ..] => parse_position(rest).map(Some),
        [command @ ("ucinewgame" | "register"), ..] => {
            Err(ProtocolError::UnknownCommand((*command).to_owned()))
        }
        _ => parse(line),
    }
}

fn parse_position(rest: &[&str]) -> Result<Command, ProtocolError> {
    position_with(rest, |start| match start {
        ["startpos"] => Ok(Start::StartPos),
        ["pos", text] => text
            .parse()
            .map(Start::Gbgp)
            .map_err(ProtocolError::BadGbgpPosition),
        ["pos"] => Err(ProtocolError::Missing {
            command: "position",
            what: "the position string after pos",
        }),
        [] => Err(ProtocolError::Missing {
            command: "position",
            what: "startpos or pos <position string>",
        }),
        ["startpos", extra, ..] | ["pos", _, extra, ..] | [extra, ..] => {
            Err(ProtocolError::Unexpected {
                command: "position",
                token: (*extra).to_owned(),
            })
        }
    })
}

/// The `info` line of a search report, or `None` for a line beyond the
/// first (GBGP has no `multipv`). `side` is the side to move at the root.
pub fn format_gbgp_info(info: &SearchInfo, side: Color) -> Option<String> {
    if info.multipv != 1 {
        return None;
    }
    let white = match side {
        Color::White => 1,
        Color::Black => -1,
    };
    let eval = |value: i32| format!("eval {}", white * value / 10);
    let mut score = match info.score {
        // A draw the databases know is a draw, whatever the evaluation
        // that chose among drawing moves makes of it.
        _ if info.exact == Some(DbOutcome::Draw) => eval(0),
        Score::Cp(cp) => eval(cp),
        // The databases give the distance to the next removal, not to the
        // end: a win without its length, above every evaluation.
        Score::Db { win, plies } => eval(if win { 1 } else { -1 } * (DB_WIN - plies)),
        Score::Mate(n) => format!("win {}", white * n),
    };
    if score.starts_with("eval") {
        score.push_str(match info.bound {
            Bound::Exact => "",
            Bound::Lower if side == Color::White => " lowerbound",
            Bound::Upper if side == Color::Black => " lowerbound",
            Bound::Lower | Bound::Upper => " upperbound",
        });
    }
    let millis = info.time.as_millis();
    let nps = u128::from(info.nodes) * 1000 / millis.max(1);
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    Some(format!(
        "info depth {} seldepth {} time {millis} nodes {} score {score} hashfull {} nps {nps} pv {}",
        info.depth,
        info.seldepth,
        info.nodes,
        info.hashfull,
        pv.join(" ")
    ))
}

/// The `bestmove` line of a finished search: the compound notation, and
/// `none` when there is no move.
pub fn format_gbgp_bestmove(answer: &BestMove) -> String {
    let Some(best) = answer.best else {
        return "bestmove none".to_owned();
    };
    let ponder = answer
        .ponder
        .map(|p| format!(" ponder {p}"))
        .unwrap_or_default();
    match (answer.completes, best.removal) {
        // Only after split input (an action without its removal): the
        // removal is the news.
        (Some(_), Some(removal)) => format!("bestmove x{removal}{ponder}"),
        _ => format!("bestmove {best}{ponder}"),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::board::MoveToken;

    #[test]
    fn gbgp_commands_parse() {
        assert_eq!(parse_gbgp("newgame"), Ok(Some(Command::NewGame)));
        assert_eq!(parse_gbgp("gbgp"), Ok(Some(Command::Gbgp)));
        assert_eq!(parse_gbgp("  "), Ok(None));
        assert_eq!(
            parse_gbgp("position pos w:wb4,c4:bd2:2 moves e4 d2-d1 a1"),
            Ok(Some(Command::Position {
                start: Start::Gbgp("w:wb4,c4:bd2:2".parse().unwrap()),
                moves: ["e4", "d2-d1", "a1"]
                    .map(|t| t.parse::<MoveToken>().unwrap())
                    .to_vec(),
            }))
        );
        assert_eq!(
            parse_gbgp("position startpos"),
            Ok(Some(Command::Position {
                start: Start::StartPos,
                moves: Vec::new(),
            }))
        );
        assert!(matches!(
            parse_gbgp("go wtime 1000 btime 900 movetime 50"),
            Ok(Some(Command::Go(_)))
        ));
    }

    #[test]
    fn malformed_gbgp_lines_name_the_token() {
        let unexpected = |token: &str| ProtocolError::Unexpected {
            command: "position",
            token: token.into(),
        };
        let cases = [
            (
                "ucinewgame",
                ProtocolError::UnknownCommand("ucinewgame".into()),
            ),
            (
                "register later",
                ProtocolError::UnknownCommand("register".into()),
            ),
            (
                "newgame now",
                ProtocolError::Unexpected {
                    command: "newgame",
                    token: "now".into(),
                },
            ),
            ("position fen w:w:b:1", unexpected("fen")),
            ("position startpos w:w:b:1", unexpected("w:w:b:1")),
            ("position pos w:w:b:1 w:w:b:2", unexpected("w:w:b:2")),
            ("position startpos a b", unexpected("a")),
            (
                "position pos",
                ProtocolError::Missing {
                    command: "position",
                    what: "the position string after pos",
                },
            ),
            (
                "position pos w:w:b:0",
                ProtocolError::BadGbgpPosition(ParseGbgpPositionError::MoveNumber {
                    token: "0".into(),
                }),
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(parse_gbgp(line), Err(expected), "{line}");
        }
        assert!(matches!(
            parse_gbgp("position startpos moves d6 d9"),
            Err(ProtocolError::BadMove { index: 2, .. })
        ));
    }

    fn info(score: Score, bound: Bound, multipv: u32) -> SearchInfo {
        SearchInfo {
            depth: 5,
            seldepth: 7,
            multipv,
            score,
            bound,
            nodes: 1000,
            time: Duration::from_millis(10),
            hashfull: 3,
            dbhits: 0,
            exact: None,
            pv: vec!["d6".parse().unwrap(), "d2".parse().unwrap()],
        }
    }

    #[test]
    fn scores_are_from_whites_view() {
        let line = |score, bound, side| format_gbgp_info(&info(score, bound, 1), side).unwrap();
        assert_eq!(
            line(Score::Cp(125), Bound::Exact, Color::White),
            "info depth 5 seldepth 7 time 10 nodes 1000 score eval 12 hashfull 3 nps 100000 pv d6 d2"
        );
        let score = |score, bound, side| {
            let text = line(score, bound, side);
            let at = text.find("score ").unwrap() + 6;
            text[at..text.find(" hashfull").unwrap()].to_owned()
        };
        assert_eq!(
            score(Score::Cp(125), Bound::Exact, Color::Black),
            "eval -12"
        );
        assert_eq!(
            score(Score::Cp(-40), Bound::Lower, Color::White),
            "eval -4 lowerbound"
        );
        assert_eq!(
            score(Score::Cp(-40), Bound::Lower, Color::Black),
            "eval 4 upperbound"
        );
        assert_eq!(score(Score::Mate(3), Bound::Exact, Color::White), "win 3");
        assert_eq!(score(Score::Mate(3), Bound::Lower, Color::Black), "win -3");
        assert_eq!(score(Score::Mate(-2), Bound::Exact, Color::Black), "win 2");
        assert_eq!(
            score(
                Score::Db {
                    win: true,
                    plies: 5
                },
                Bound::Exact,
                Color::Black
            ),
            "eval -1999"
        );
        assert_eq!(
            format_gbgp_info(&info(Score::Cp(0), Bound::Exact, 2), Color::White),
            None
        );
    }

    #[test]
    fn best_moves_are_compound_and_none_is_none() {
        let d6: Move = "d6".parse().unwrap();
        let mill: Move = "g1xb2".parse().unwrap();
        let answer = |best, ponder| BestMove {
            best,
            ponder,
            completes: None,
        };
        assert_eq!(format_gbgp_bestmove(&answer(None, None)), "bestmove none");
        assert_eq!(
            format_gbgp_bestmove(&answer(Some(mill), Some(d6))),
            "bestmove g1xb2 ponder d6"
        );
        assert_eq!(format_gbgp_bestmove(&answer(Some(d6), None)), "bestmove d6");
    }
}
