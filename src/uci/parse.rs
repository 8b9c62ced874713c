//! Protocol lines to [`Command`]s: a pure parse, with a [`ProtocolError`]
//! naming the token at fault.

use std::time::Duration;

use thiserror::Error;

use crate::board::{Color, Move, MoveToken, ParseMoveError};
use crate::search::{BENCH_DEPTH, Clock, Limit, SearchLimits};
use crate::uci::gbgp::{GbgpPosition, ParseGbgpPositionError};

/// The deepest `go perft`: perft cannot be stopped, and depth 10 from the
/// start already takes hours.
const MAX_PERFT_DEPTH: u64 = 10;
/// The deepest `bench`, which cannot be stopped either.
const MAX_BENCH_DEPTH: u64 = 24;

/// A command from the GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list the options; the session speaks UCI.
    Uci,
    /// `gbgp`: identify and list the options; the session speaks GBGP.
    Gbgp,
    /// `isready`: answer `readyok`.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// The value, empty if none was given.
        value: String,
    },
    /// `ucinewgame` (`newgame` in GBGP).
    NewGame,
    /// `position startpos|fen <fen> [moves ...]` (in GBGP,
    /// `position startpos|pos <position> [moves ...]`).
    Position {
        /// Where the moves start from.
        start: Start,
        /// The moves, whole turns or split.
        moves: Vec<MoveToken>,
    },
    /// `go ...` (a search).
    Go(SearchLimits),
    /// `go perft <depth>`.
    Perft(u32),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
    /// `d`: show the position.
    Display,
    /// `eval`: show the static evaluation.
    Eval,
    /// `bench [depth]`.
    Bench(u32),
    /// `debug [on|off]`: accepted; the engine has no debug output.
    Debug,
    /// `register ...`: accepted; the engine needs no registration.
    Register,
}

/// Where the moves of a `position` command start from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `startpos`: the variant's start position.
    StartPos,
    /// `fen <position string>`, not yet checked.
    Fen(String),
    /// `pos <position>` of GBGP, read but not yet checked against a variant.
    Gbgp(GbgpPosition),
}

/// Reads one line; `Ok(None)` for an empty line.
///
/// # Errors
///
/// A [`ProtocolError`] naming the token at fault.
pub fn parse(line: &str) -> Result<Option<Command>, ProtocolError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = tokens.split_first() else {
        return Ok(None);
    };
    let no_arguments = |command: &'static str, parsed: Command| match rest.first() {
        None => Ok(Some(parsed)),
        Some(token) => Err(ProtocolError::Unexpected {
            command,
            token: (*token).to_owned(),
        }),
    };
    match first {
        "uci" => no_arguments("uci", Command::Uci),
        "gbgp" => no_arguments("gbgp", Command::Gbgp),
        "isready" => no_arguments("isready", Command::IsReady),
        "ucinewgame" => no_arguments("ucinewgame", Command::NewGame),
        "stop" => no_arguments("stop", Command::Stop),
        "ponderhit" => no_arguments("ponderhit", Command::PonderHit),
        "quit" => no_arguments("quit", Command::Quit),
        "d" => no_arguments("d", Command::Display),
        "eval" => no_arguments("eval", Command::Eval),
        "setoption" => parse_setoption(rest).map(Some),
        "debug" => match rest {
            [] | ["on" | "off"] => Ok(Some(Command::Debug)),
            [token, ..] => Err(ProtocolError::Unexpected {
                command: "debug",
                token: (*token).to_owned(),
            }),
        },
        "register" => Ok(Some(Command::Register)),
        "position" => parse_position(rest).map(Some),
        "go" => parse_go(rest).map(Some),
        "bench" => match rest {
            [] => Ok(Some(Command::Bench(BENCH_DEPTH))),
            [depth] => Ok(Some(Command::Bench(
                number("bench", "bench", depth, 1, MAX_BENCH_DEPTH)? as u32,
            ))),
            [_, extra, ..] => Err(ProtocolError::Unexpected {
                command: "bench",
                token: (*extra).to_owned(),
            }),
        },
        other => Err(ProtocolError::UnknownCommand(other.to_owned())),
    }
}

fn number(
    command: &'static str,
    keyword: &str,
    token: &str,
    min: u64,
    max: u64,
) -> Result<u64, ProtocolError> {
    token
        .parse::<u64>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| ProtocolError::BadNumber {
            command,
            keyword: keyword.to_owned(),
            token: token.to_owned(),
        })
}

fn parse_setoption(rest: &[&str]) -> Result<Command, ProtocolError> {
    let missing_name = ProtocolError::Missing {
        command: "setoption",
        what: "name <option>",
    };
    let Some((&"name", rest)) = rest.split_first() else {
        return match rest.first() {
            Some(token) => Err(ProtocolError::Unexpected {
                command: "setoption",
                token: (*token).to_owned(),
            }),
            None => Err(missing_name),
        };
    };
    let split = rest
        .iter()
        .position(|&t| t == "value")
        .unwrap_or(rest.len());
    if split == 0 {
        return Err(missing_name);
    }
    Ok(Command::SetOption {
        name: rest[..split].join(" "),
        value: rest.get(split + 1..).unwrap_or_default().join(" "),
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, ProtocolError> {
    position_with(rest, |start| match start {
        ["startpos"] => Ok(Start::StartPos),
        ["fen", fields @ ..] if !fields.is_empty() => Ok(Start::Fen(fields.join(" "))),
        ["fen"] => Err(ProtocolError::Missing {
            command: "position",
            what: "the position string after fen",
        }),
        [] => Err(ProtocolError::Missing {
            command: "position",
            what: "startpos or fen <position string>",
        }),
        ["startpos", extra, ..] | [extra, ..] => Err(ProtocolError::Unexpected {
            command: "position",
            token: (*extra).to_owned(),
        }),
    })
}

/// The `position` command of `rest`, its words after `position`: the
/// start read by `start` from the words before `moves`, then the moves.
pub(super) fn position_with(
    rest: &[&str],
    start: impl FnOnce(&[&str]) -> Result<Start, ProtocolError>,
) -> Result<Command, ProtocolError> {
    let moves_at = rest
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(rest.len());
    let (before, moves) = rest.split_at(moves_at);
    Ok(Command::Position {
        start: start(before)?,
        moves: parse_moves(moves)?,
    })
}

/// The move tokens after `moves` (`moves` included in `tokens`, if any).
fn parse_moves(tokens: &[&str]) -> Result<Vec<MoveToken>, ProtocolError> {
    (1..)
        .zip(tokens.iter().skip(1))
        .map(|(index, token)| {
            token
                .parse()
                .map_err(|error| ProtocolError::BadMove { index, error })
        })
        .collect()
}

/// The keywords of `go`; a `searchmoves` list ends at the next of them.
const GO_KEYWORDS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

/// A time in milliseconds. GUIs send a negative time left after a flag
/// fall or when their overhead exceeds the increment; it means none.
fn milliseconds(keyword: &str, token: &str) -> Result<Duration, ProtocolError> {
    const MAX_MS: i64 = 1 << 40;
    token
        .parse::<i64>()
        .ok()
        .filter(|&ms| ms <= MAX_MS)
        .map(|ms| Duration::from_millis(ms.max(0) as u64))
        .ok_or_else(|| ProtocolError::BadNumber {
            command: "go",
            keyword: keyword.to_owned(),
            token: token.to_owned(),
        })
}

fn parse_go(rest: &[&str]) -> Result<Command, ProtocolError> {
    if let ["perft", depth] = rest {
        return Ok(Command::Perft(
            number("go", "perft", depth, 0, MAX_PERFT_DEPTH)? as u32,
        ));
    }
    let mut limits = SearchLimits::default();
    let mut clock = Clock::default();
    let mut has_clock = false;
    let mut tokens = rest.iter().copied().peekable();
    while let Some(keyword) = tokens.next() {
        let mut value = || {
            tokens.next().ok_or(ProtocolError::Missing {
                command: "go",
                what: "a number after a limit",
            })
        };
        match keyword {
            "wtime" | "btime" | "winc" | "binc" => {
                let side = if keyword.starts_with('w') {
                    Color::White
                } else {
                    Color::Black
                };
                let ms = milliseconds(keyword, value()?)?;
                if keyword.ends_with("time") {
                    clock.time[side.index()] = Some(ms);
                    has_clock = true;
                } else {
                    clock.increment[side.index()] = ms;
                }
            }
            "movestogo" => {
                clock.moves_to_go = Some(number("go", keyword, value()?, 0, 10_000)? as u32)
            }
            "movetime" => limits
                .limits
                .push(Limit::MoveTime(milliseconds(keyword, value()?)?)),
            "depth" => limits.limits.push(Limit::Depth(
                number("go", keyword, value()?, 0, 1_000)? as u32
            )),
            "nodes" => {
                limits
                    .limits
                    .push(Limit::Nodes(number("go", keyword, value()?, 0, u64::MAX)?))
            }
            "mate" => limits.limits.push(Limit::Mate(
                number("go", keyword, value()?, 0, 1_000)? as u32
            )),
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while let Some(token) = tokens.next_if(|t| !GO_KEYWORDS.contains(t)) {
                    let mv: Move = token.parse().map_err(ProtocolError::BadSearchMove)?;
                    limits.search_moves.push(mv);
                }
            }
            other => {
                return Err(ProtocolError::Unexpected {
                    command: "go",
                    token: other.to_owned(),
                });
            }
        }
    }
    if has_clock {
        limits.limits.push(Limit::Clock(clock));
    }
    Ok(Command::Go(limits))
}

/// A protocol line that is not a well-formed command.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProtocolError {
    /// The first token names no command.
    #[error("unknown command '{0}'")]
    UnknownCommand(String),
    /// A command is missing a part.
    #[error("{command}: missing {what}")]
    Missing {
        /// The command.
        command: &'static str,
        /// What is missing.
        what: &'static str,
    },
    /// A token where none of that kind belongs.
    #[error("{command}: unexpected '{token}'")]
    Unexpected {
        /// The command.
        command: &'static str,
        /// The token.
        token: String,
    },
    /// A number that is not one, or is out of range.
    #[error("{command}: '{token}' after {keyword} is not a whole number in range")]
    BadNumber {
        /// The command.
        command: &'static str,
        /// The keyword it follows.
        keyword: String,
        /// The token.
        token: String,
    },
    /// A move token in `searchmoves` that is not notation.
    #[error("go: searchmoves: {0}")]
    BadSearchMove(ParseMoveError),
    /// A GBGP position string that does not follow the format.
    #[error("position: pos: {0}")]
    BadGbgpPosition(ParseGbgpPositionError),
    /// A move token of `position` that is not notation.
    #[error("position: move {index}: {error}")]
    BadMove {
        /// The move's place in the list, from 1.
        index: usize,
        /// What is wrong with it.
        error: ParseMoveError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::types::Square;

    #[test]
    fn commands_parse() {
        assert_eq!(parse("  \t "), Ok(None));
        assert_eq!(parse("uci\r"), Ok(Some(Command::Uci)));
        assert_eq!(
            parse("setoption name Move Overhead value 100"),
            Ok(Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: "100".into()
            }))
        );
        assert_eq!(
            parse("position startpos moves d6 d2-d1 xa1"),
            Ok(Some(Command::Position {
                start: Start::StartPos,
                moves: vec![
                    MoveToken::Turn(Move::place(Square::D6)),
                    MoveToken::Turn(Move::slide(Square::D2, Square::D1)),
                    MoveToken::Removal(Square::A1),
                ]
            }))
        );
        assert_eq!(
            parse("position fen .../.../.../....../.../.../... w 9 9 0 1"),
            Ok(Some(Command::Position {
                start: Start::Fen(".../.../.../....../.../.../... w 9 9 0 1".into()),
                moves: vec![]
            }))
        );
        assert_eq!(parse("go perft 3"), Ok(Some(Command::Perft(3))));
        let Ok(Some(Command::Go(limits))) =
            parse("go wtime 1000 btime 2000 winc 10 binc 20 movestogo 5 depth 7")
        else {
            panic!("go did not parse");
        };
        assert_eq!(limits.max_depth(), Some(7));
        assert!(limits.is_timed());
    }

    #[test]
    fn malformed_lines_name_the_token() {
        let cases = [
            ("hello", ProtocolError::UnknownCommand("hello".into())),
            (
                "uci now",
                ProtocolError::Unexpected {
                    command: "uci",
                    token: "now".into(),
                },
            ),
            (
                "go depth x",
                ProtocolError::BadNumber {
                    command: "go",
                    keyword: "depth".into(),
                    token: "x".into(),
                },
            ),
            (
                "go depth -1",
                ProtocolError::BadNumber {
                    command: "go",
                    keyword: "depth".into(),
                    token: "-1".into(),
                },
            ),
            (
                "go fast",
                ProtocolError::Unexpected {
                    command: "go",
                    token: "fast".into(),
                },
            ),
            (
                "position",
                ProtocolError::Missing {
                    command: "position",
                    what: "startpos or fen <position string>",
                },
            ),
            (
                "position somewhere",
                ProtocolError::Unexpected {
                    command: "position",
                    token: "somewhere".into(),
                },
            ),
            (
                "setoption Hash 3",
                ProtocolError::Unexpected {
                    command: "setoption",
                    token: "Hash".into(),
                },
            ),
            (
                "setoption name value 3",
                ProtocolError::Missing {
                    command: "setoption",
                    what: "name <option>",
                },
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(parse(line), Err(expected), "{line}");
        }
        assert!(matches!(
            parse("go depth"),
            Err(ProtocolError::Missing { .. })
        ));
        assert!(matches!(
            parse("go searchmoves d9"),
            Err(ProtocolError::BadSearchMove(_))
        ));
        assert!(matches!(
            parse("position startpos moves d6 h9"),
            Err(ProtocolError::BadMove { index: 2, .. })
        ));
    }
}
