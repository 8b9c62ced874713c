//! The text protocol of docs/PROTOCOL.md: lines become [`Command`]s (a pure
//! parse), commands drive the [`Engine`], search events become lines.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, select, unbounded};

use crate::bench::{BENCH_DEPTH, run_bench};
use crate::endgame::DbOutcome;
use crate::engine::{BestMove, Engine, GoStart};
use crate::error::ProtocolError;
use crate::eval::breakdown;
use crate::limits::{Clock, Limit, SearchLimits};
use crate::moves::{Move, MoveToken};
use crate::options::{EngineOption, MoveNotation};
use crate::perft::divide;
use crate::search::{Score, SearchEvent, SearchInfo};
use crate::tt::Bound;
use crate::types::Color;

/// The deepest `go perft`: perft cannot be stopped, and depth 10 from the
/// start already takes hours.
const MAX_PERFT_DEPTH: u64 = 10;
/// The deepest `bench`, which cannot be stopped either.
const MAX_BENCH_DEPTH: u64 = 24;

/// A command from the GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and list the options.
    Uci,
    /// `isready`: answer `readyok`.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option's name (may contain spaces).
        name: String,
        /// The value, empty if none was given.
        value: String,
    },
    /// `ucinewgame`.
    NewGame,
    /// `position startpos|fen <fen> [moves ...]`.
    Position {
        /// The position string, or `None` for the start position.
        fen: Option<String>,
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
    let moves_at = rest
        .iter()
        .position(|&t| t == "moves")
        .unwrap_or(rest.len());
    let (start, moves) = rest.split_at(moves_at);
    let fen = match start {
        ["startpos"] => None,
        ["fen", fields @ ..] if !fields.is_empty() => Some(fields.join(" ")),
        ["fen"] => {
            return Err(ProtocolError::Missing {
                command: "position",
                what: "the position string after fen",
            });
        }
        ["startpos", extra, ..] => {
            return Err(ProtocolError::Unexpected {
                command: "position",
                token: (*extra).to_owned(),
            });
        }
        [] => {
            return Err(ProtocolError::Missing {
                command: "position",
                what: "startpos or fen <position string>",
            });
        }
        [other, ..] => {
            return Err(ProtocolError::Unexpected {
                command: "position",
                token: (*other).to_owned(),
            });
        }
    };
    let moves = (1..)
        .zip(moves.iter().skip(1))
        .map(|(index, token)| {
            token
                .parse()
                .map_err(|error| ProtocolError::BadMove { index, error })
        })
        .collect::<Result<_, _>>()?;
    Ok(Command::Position { fen, moves })
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

/// The `info` line of a search report, with win/draw/loss chances if
/// `show_wdl`.
pub fn format_info(info: &SearchInfo, show_wdl: bool) -> String {
    let mut score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    score.push_str(match info.bound {
        Bound::Exact => "",
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
    });
    if show_wdl {
        let [win, draw, loss] = info.score.wdl();
        score.push_str(&format!(" wdl {win} {draw} {loss}"));
    }
    let millis = info.time.as_millis();
    let nps = u128::from(info.nodes) * 1000 / millis.max(1);
    let pv: Vec<String> = info.pv.iter().map(Move::to_string).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {nps} hashfull {} dbhits {} time {millis} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.hashfull,
        info.dbhits,
        pv.join(" ")
    )
}

/// The `bestmove` line of a finished search, in `notation`.
pub fn format_bestmove(answer: &BestMove, notation: MoveNotation) -> String {
    let Some(best) = answer.best else {
        return "bestmove (none)".to_owned();
    };
    // In split notation a mill-closing turn is written as its action, and
    // the GUI's next message is that action, not the reply: no ponder move
    // may follow it, and a reply that closes a mill has no one-token form.
    let split = notation == MoveNotation::Split;
    let ponder = answer
        .ponder
        .filter(|p| !split || p.removal.is_none())
        .map(|p| format!(" ponder {p}"))
        .unwrap_or_default();
    match (answer.completes, best.removal) {
        (Some(_), Some(removal)) => format!("bestmove x{removal}{ponder}"),
        (None, Some(_)) if split => format!(
            "bestmove {}",
            Move {
                removal: None,
                ..best
            }
        ),
        _ => format!("bestmove {best}{ponder}"),
    }
}

/// The longest run of text without spaces an error line repeats: input
/// tokens are echoed in errors, and a megabyte token must not come back
/// whole.
const MAX_ECHOED_TOKEN: usize = 40;

/// An error text fit for one line of output: control characters escaped,
/// over-long tokens cut.
fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(512));
    for word in text.split(' ') {
        if !out.is_empty() {
            out.push(' ');
        }
        let mut chars = word.chars();
        for c in chars.by_ref().take(MAX_ECHOED_TOKEN) {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        if let Some(last) = chars.next_back() {
            out.push_str("...");
            // Keep the closing quote or punctuation of a cut token.
            if last.is_ascii_punctuation() {
                out.push(last);
            }
        }
    }
    out
}

/// Writes a line and flushes it at once.
fn say(out: &mut impl Write, line: &str) -> io::Result<()> {
    writeln!(out, "{line}")?;
    out.flush()
}

/// Reads `input` line by line on a thread of its own, so that commands are
/// read while the engine searches.
fn spawn_reader(mut input: impl BufRead + Send + 'static) -> Receiver<String> {
    let (lines, receiver) = unbounded();
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match input.read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    // Bytes that are not UTF-8 become U+FFFD and so an error
                    // reply, not the end of the engine.
                    let line = String::from_utf8_lossy(&buffer).into_owned();
                    if lines.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    receiver
}

/// Speaks the protocol on `input` and `output` until `quit` or the end of
/// input, which is taken as `quit`: a running search is stopped and its
/// best move written before the engine ends.
///
/// # Errors
///
/// Only a failure to write to `output`.
pub fn run(input: impl BufRead + Send + 'static, output: &mut impl Write) -> io::Result<()> {
    run_with(input, output, None)
}

/// [`run`], with the endgame databases of `default_db` in use until the
/// `EndgameDB` option says otherwise (what they were is told after
/// `uciok`).
///
/// # Errors
///
/// Only a failure to write to `output`.
pub fn run_with(
    input: impl BufRead + Send + 'static,
    output: &mut impl Write,
    default_db: Option<PathBuf>,
) -> io::Result<()> {
    let lines = spawn_reader(input);
    let mut engine = match Engine::new() {
        Ok(engine) => engine,
        Err(err) => return say(output, &format!("info string error: {err}")),
    };
    let startup_notes = match default_db {
        Some(dir) => match engine.set_option("EndgameDB", &dir.to_string_lossy()) {
            Ok(notes) => notes
                .into_iter()
                .map(|note| format!("{note} (from {})", dir.display()))
                .collect(),
            Err(err) => vec![format!("error: {err}")],
        },
        None => Vec::new(),
    };
    let (events_in, events) = unbounded();
    let mut session = Session {
        engine,
        events_in,
        events,
        out: output,
        startup_notes,
    };
    loop {
        select! {
            recv(lines) -> line => {
                let Ok(line) = line else { break };
                match parse(&line) {
                    Ok(Some(Command::Quit)) => break,
                    Ok(Some(command)) => session.execute(command)?,
                    Ok(None) => {}
                    Err(err) => session.error(&err.to_string())?,
                }
            },
            recv(session.events) -> event => {
                if let Ok(event) = event {
                    session.report(event)?;
                }
            }
        }
    }
    session.engine.stop();
    session.wait_for_search()?;
    session.engine.shut_down();
    Ok(())
}

/// The engine, the channel its searches report on, and the output.
struct Session<'a, W: Write> {
    engine: Engine,
    events_in: Sender<SearchEvent>,
    events: Receiver<SearchEvent>,
    out: &'a mut W,
    /// What loading the default databases said, told after the first `uciok`.
    startup_notes: Vec<String>,
}

impl<W: Write> Session<'_, W> {
    fn say(&mut self, line: &str) -> io::Result<()> {
        say(self.out, line)
    }

    fn error(&mut self, text: &str) -> io::Result<()> {
        say(self.out, &format!("info string error: {}", printable(text)))
    }

    fn report(&mut self, event: SearchEvent) -> io::Result<()> {
        match event {
            SearchEvent::Info(info) => {
                let line = format_info(&info, self.engine.options().show_wdl);
                self.say(&line)
            }
            SearchEvent::CurrMove { depth, mv, number } => self.say(&format!(
                "info depth {depth} currmove {mv} currmovenumber {number}"
            )),
            SearchEvent::PlacingSolved {
                outcome,
                complete,
                kept,
                of,
                nodes,
            } => {
                let outcome = match outcome {
                    DbOutcome::Win => "win",
                    DbOutcome::Draw => "draw",
                    DbOutcome::Loss => "loss",
                };
                self.say(&if complete {
                    format!(
                        "info string end of placing solved: {outcome}; {kept} of {of} moves keep it ({nodes} nodes)"
                    )
                } else {
                    format!(
                        "info string end of placing partly solved: {outcome} proven; {kept} of {of} moves may keep it ({nodes} nodes)"
                    )
                })
            }
            SearchEvent::Failed { reason } => self.error(&format!("search failed: {reason}")),
            SearchEvent::BestMove { best, ponder } => {
                let answer = self.engine.finish_search(best, ponder);
                let notation = self.engine.options().notation;
                self.say(&format_bestmove(&answer, notation))
            }
        }
    }

    /// Reports the running search's events until its best move: after
    /// `stop`, the commands that follow are for the next search.
    fn wait_for_search(&mut self) -> io::Result<()> {
        while self.engine.is_searching() {
            // The session holds a sender, so the channel never closes; a
            // search always ends with its best move, even when it fails.
            let Ok(event) = self.events.recv() else { break };
            self.report(event)?;
        }
        Ok(())
    }

    /// Reports the events already sent, so that a search that has ended
    /// is no longer counted as running.
    fn catch_up(&mut self) -> io::Result<()> {
        while let Ok(event) = self.events.try_recv() {
            self.report(event)?;
        }
        Ok(())
    }

    fn execute(&mut self, command: Command) -> io::Result<()> {
        match command {
            Command::Uci => {
                self.say(concat!("id name morris ", env!("CARGO_PKG_VERSION")))?;
                self.say("id author the morris developers")?;
                for option in EngineOption::ALL {
                    self.say(&option.to_string())?;
                }
                self.say("uciok")?;
                for note in std::mem::take(&mut self.startup_notes) {
                    self.say(&format!("info string {note}"))?;
                }
                Ok(())
            }
            Command::IsReady => self.say("readyok"),
            Command::SetOption { name, value } => match self.engine.set_option(&name, &value) {
                Ok(notes) => notes
                    .iter()
                    .try_for_each(|note| self.say(&format!("info string {note}"))),
                Err(err) => self.error(&format!("setoption: {err}")),
            },
            Command::NewGame => match self.engine.new_game() {
                Ok(()) => Ok(()),
                Err(err) => self.error(&format!("ucinewgame: {err}")),
            },
            Command::Position { fen, moves } => {
                match self.engine.set_position(fen.as_deref(), &moves) {
                    Ok(()) => Ok(()),
                    Err(err) => self.error(&format!("position: {err}")),
                }
            }
            Command::Go(limits) => self.go(limits),
            Command::Stop => {
                self.engine.stop();
                self.wait_for_search()
            }
            Command::PonderHit => {
                self.engine.ponderhit();
                Ok(())
            }
            Command::Quit | Command::Debug | Command::Register => Ok(()),
            Command::Perft(depth) => {
                let pos = *self.engine.game().position();
                let counts = divide(&pos, depth);
                for (mv, nodes) in &counts {
                    self.say(&format!("{mv}: {nodes}"))?;
                }
                let total: u64 = if depth == 0 {
                    1
                } else {
                    counts.iter().map(|&(_, n)| n).sum()
                };
                self.say("")?;
                self.say(&format!("Nodes searched: {total}"))
            }
            Command::Display => {
                let text = describe(&self.engine);
                self.say(&text)
            }
            Command::Eval => {
                let text = breakdown(self.engine.game().position()).to_string();
                self.say(&text)
            }
            Command::Bench(depth) => {
                if self.engine.is_searching() {
                    return self.error("bench: a search is running (send stop first)");
                }
                let report = run_bench(depth, |_, _| {});
                let millis = report.time.as_millis();
                self.say(&format!("Total time (ms) : {millis}"))?;
                self.say(&format!("Nodes searched  : {}", report.nodes))?;
                let nps = u128::from(report.nodes) * 1000 / millis.max(1);
                self.say(&format!("Nodes/second    : {nps}"))
            }
        }
    }

    fn go(&mut self, limits: SearchLimits) -> io::Result<()> {
        self.catch_up()?;
        let side = self.engine.game().position().side_to_move();
        let own_clock_missing = limits.limits.iter().any(
            |limit| matches!(limit, Limit::Clock(clock) if clock.time[side.index()].is_none()),
        );
        if own_clock_missing && !self.engine.is_searching() {
            let side = side.to_string().to_lowercase();
            self.say(&format!(
                "info string warning: go: no time given for {side}, the side to move; moving at once"
            ))?;
        }
        match self.engine.go(limits, self.events_in.clone()) {
            Ok(GoStart::Searching) => Ok(()),
            Ok(GoStart::GameOver(outcome)) => {
                self.say(&format!("info string game over: {outcome}"))?;
                self.say("bestmove (none)")
            }
            Err(err) => self.error(&format!("go: {err}")),
        }
    }
}

/// The `d` reply: board, position string, side, phases, hands, legal moves
/// and whether the game is over.
fn describe(engine: &Engine) -> String {
    let game = engine.game();
    let pos = game.position();
    let side = pos.side_to_move();
    let moves = match engine.pending() {
        Some(action) => pos.completions(action),
        None => pos.legal_moves(),
    };
    let moves: Vec<String> = moves.iter().map(Move::to_string).collect();
    let mut text = pos.diagram();
    text.push_str(&format!("\nFen: {}\n", pos.fen()));
    text.push_str(&format!("Variant: {}\n", pos.rules().variant));
    text.push_str(&format!(
        "Side to move: {}\n",
        side.to_string().to_lowercase()
    ));
    for color in Color::ALL {
        text.push_str(&format!(
            "{}: {}, {} in hand, {} on the board\n",
            color,
            pos.phase(color),
            pos.in_hand(color),
            pos.stones(color).len()
        ));
    }
    if let Some(action) = engine.pending() {
        text.push_str(&format!("Waiting for the removal of: {action}\n"));
    }
    text.push_str(&format!(
        "Legal moves ({}): {}\n",
        moves.len(),
        moves.join(" ")
    ));
    match game.outcome() {
        Some(outcome) if engine.pending().is_none() => {
            text.push_str(&format!("Game over: {outcome}"))
        }
        _ => text.push_str("Game over: no"),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

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
                fen: None,
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
                fen: Some(".../.../.../....../.../.../... w 9 9 0 1".into()),
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
