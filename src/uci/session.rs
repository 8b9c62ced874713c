//! The session loop: lines read on a thread of their own, commands run on
//! the [`Engine`], search events written as they come.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;

use crossbeam_channel::{Receiver, Sender, select, unbounded};

use crate::board::{Color, MoveToken, Variant, divide, divide_total};
use crate::engine::{Engine, EngineOption, GoStart};
use crate::search::eval::breakdown;
use crate::search::{Limit, SearchEvent, SearchLimits, run_bench};
use crate::uci::format::{
    describe, format_bench, format_bestmove, format_divide, format_eval, format_info, format_note,
    format_option, printable,
};
use crate::uci::gbgp::{
    GbgpPosition, TWELVE_OPTION, format_gbgp_bestmove, format_gbgp_info, parse_gbgp,
};
use crate::uci::parse::{Command, Start, parse};

/// The protocol a session speaks: UCI-style until a GUI opens with `gbgp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Uci,
    Gbgp,
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
/// best move written before the engine ends. A `gbgp` line turns the
/// session to GBGP ([`crate::uci::gbgp`]), a `uci` line back.
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
                .map(|note| format!("{} (from {})", format_note(&note), dir.display()))
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
        dialect: Dialect::Uci,
        root_side: Color::White,
    };
    loop {
        select! {
            recv(lines) -> line => {
                let Ok(line) = line else { break };
                let parsed = match session.dialect {
                    Dialect::Uci => parse(&line),
                    Dialect::Gbgp => parse_gbgp(&line),
                };
                match parsed {
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
    dialect: Dialect,
    /// The side to move where the last search began, whose view GBGP's
    /// scores turn to White's.
    root_side: Color,
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
            SearchEvent::Info(info) => match self.dialect {
                Dialect::Uci => {
                    let line = format_info(&info, self.engine.options().show_wdl);
                    self.say(&line)
                }
                Dialect::Gbgp => match format_gbgp_info(&info, self.root_side) {
                    Some(line) => self.say(&line),
                    None => Ok(()),
                },
            },
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
            SearchEvent::ValuesMissing { read, of } => self.say(&format!(
                "info string database values missing: {read} of {of} read in time; the move is chosen without the rest"
            )),
            SearchEvent::DrawPlayedToWin {
                moves,
                losing,
                replies,
            } => self.say(&format!(
                "info string draw played to win: {moves} drawing moves searched with a bonus for the opponent's losing replies (at most {losing} of {replies})"
            )),
            SearchEvent::Choice { .. } => Ok(()),
            SearchEvent::Overdue => {
                self.say("info string search overdue: the best move known is played for it")
            }
            SearchEvent::Failed { reason } => self.error(&format!("search failed: {reason}")),
            SearchEvent::BestMove { best, ponder } => {
                let answer = self.engine.finish_search(best, ponder);
                let line = match self.dialect {
                    Dialect::Uci => format_bestmove(&answer, self.engine.options().notation),
                    Dialect::Gbgp => format_gbgp_bestmove(&answer),
                };
                self.say(&line)
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
            Command::Uci => self.hello(Dialect::Uci),
            Command::Gbgp => self.hello(Dialect::Gbgp),
            Command::IsReady => self.say("readyok"),
            Command::SetOption { name, value } => self.set_option(&name, &value),
            Command::NewGame => match self.engine.new_game() {
                Ok(()) => Ok(()),
                Err(err) => match self.dialect {
                    Dialect::Uci => self.error(&format!("ucinewgame: {err}")),
                    Dialect::Gbgp => self.error(&format!("newgame: {err}")),
                },
            },
            Command::Position { start, moves } => self.set_position(start, &moves),
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
                // The moves' lines, then an empty one.
                self.say(&format_divide(&counts))?;
                self.say(&format!("Nodes searched: {}", divide_total(&counts, depth)))
            }
            Command::Display => {
                let mut text = describe(&self.engine);
                if self.dialect == Dialect::Gbgp {
                    let pos = GbgpPosition::from_position(self.engine.game().position());
                    match pos {
                        Ok(pos) => text.push_str(&format!("\nPos: {pos}")),
                        Err(err) => text.push_str(&format!("\nPos: none ({err})")),
                    }
                }
                self.say(&text)
            }
            Command::Eval => {
                let text = format_eval(&breakdown(self.engine.game().position()));
                self.say(&text)
            }
            Command::Bench(depth) => {
                if self.engine.is_searching() {
                    return self.error("bench: a search is running (send stop first)");
                }
                let report = run_bench(depth, |_, _| {});
                self.say(&format_bench(&report))
            }
        }
    }

    /// The answer to `uci` or `gbgp`, which also sets the dialect: the
    /// name, the options (GBGP's programs choose the variant with a check
    /// option of their own, listed too) and `uciok` or `gbgpok`.
    fn hello(&mut self, dialect: Dialect) -> io::Result<()> {
        self.dialect = dialect;
        self.say(concat!("id name morris ", env!("CARGO_PKG_VERSION")))?;
        self.say("id author the morris developers")?;
        for option in EngineOption::ALL {
            self.say(&format_option(option))?;
        }
        match dialect {
            Dialect::Uci => self.say("uciok")?,
            Dialect::Gbgp => {
                let twelve = self.engine.options().rules.variant == Variant::Twelve;
                self.say(&format!(
                    "option name {TWELVE_OPTION} type check default {twelve}"
                ))?;
                self.say("gbgpok")?;
            }
        }
        for note in std::mem::take(&mut self.startup_notes) {
            self.say(&format!("info string {note}"))?;
        }
        Ok(())
    }

    fn set_option(&mut self, name: &str, value: &str) -> io::Result<()> {
        let (name, value) = match self.dialect {
            // GBGP's variant switch: on is Twelve Men's Morris, off is Nine
            // Men's Morris where it was Twelve, and leaves Lasker Morris be.
            Dialect::Gbgp if name.eq_ignore_ascii_case(TWELVE_OPTION) => {
                let current = self.engine.options().rules.variant;
                let variant = match value.to_ascii_lowercase().as_str() {
                    "true" => Variant::Twelve,
                    "false" if current == Variant::Twelve => Variant::Nine,
                    "false" => current,
                    _ => {
                        return self.error(&format!(
                            "setoption: {TWELVE_OPTION}: '{value}' is neither true nor false"
                        ));
                    }
                };
                ("Variant", variant.name())
            }
            _ => (name, value),
        };
        match self.engine.set_option(name, value) {
            Ok(notes) => notes
                .iter()
                .try_for_each(|note| self.say(&format!("info string {}", format_note(note)))),
            Err(err) => self.error(&format!("setoption: {err}")),
        }
    }

    fn set_position(&mut self, start: Start, moves: &[MoveToken]) -> io::Result<()> {
        let set = match start {
            Start::StartPos => self.engine.set_position(None, moves),
            Start::Fen(fen) => self.engine.set_position(Some(&fen), moves),
            Start::Gbgp(pos) => match pos.position(self.engine.options().rules) {
                Ok(start) => self.engine.set_game(start, moves),
                Err(err) => return self.error(&format!("position: pos: {err}")),
            },
        };
        match set {
            Ok(()) => Ok(()),
            Err(err) => self.error(&format!("position: {err}")),
        }
    }

    fn go(&mut self, limits: SearchLimits) -> io::Result<()> {
        self.catch_up()?;
        let side = self.engine.game().position().side_to_move();
        let own_clock_missing = limits.limits.iter().any(
            |limit| matches!(limit, Limit::Clock(clock) if clock.time[side.index()].is_none()),
        );
        if own_clock_missing && !self.engine.is_searching() {
            let side = side.name();
            self.say(&format!(
                "info string warning: go: no time given for {side}, the side to move; moving at once"
            ))?;
        }
        if !self.engine.is_searching() {
            self.root_side = side;
        }
        match self.engine.go(limits, self.events_in.clone()) {
            Ok(GoStart::Searching) => Ok(()),
            Ok(GoStart::GameOver(outcome)) => {
                self.say(&format!("info string game over: {outcome}"))?;
                match self.dialect {
                    Dialect::Uci => self.say("bestmove (none)"),
                    Dialect::Gbgp => self.say("bestmove none"),
                }
            }
            Err(err) => self.error(&format!("go: {err}")),
        }
    }
}
