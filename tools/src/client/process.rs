//! An engine as a child process speaking the protocol, with deadlines on
//! every answer so that a hung or crashed engine cannot hang a match or
//! the page.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use morris::Rules;

use super::protocol::{Handshake, Info, Protocol, best_move, rules_options, twelve_option};

/// How one engine is started and set up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineConfig {
    /// The name in results and records.
    pub name: String,
    /// The program.
    pub cmd: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in, if not the arena's.
    pub dir: Option<std::path::PathBuf>,
    /// The protocol it speaks.
    pub protocol: Protocol,
    /// `setoption` pairs sent after `uci`.
    pub options: Vec<(String, String)>,
    /// How long the engine has for each move.
    pub limit: Option<MoveLimit>,
    /// Whether the engine reads a mill-closing turn as two tokens
    /// (`g1 xb4`) rather than one (`g1xb4`).
    pub split_notation: bool,
    /// How far past its time it may answer before it loses, where it is
    /// not the match's margin.
    pub time_margin: Option<std::time::Duration>,
}

impl EngineConfig {
    /// The `setoption` pairs of a game under `rules`: the rules', then the
    /// engine's. A GBGP engine is told nine or twelve by GBGP's own
    /// option too, first, so that a `Variant` it also lists has the last word.
    pub fn game_options(&self, rules: Rules) -> Vec<(String, String)> {
        let mut options = Vec::new();
        if self.protocol == Protocol::Gbgp {
            options.push(twelve_option(rules));
        }
        options.extend(rules_options(rules));
        options.extend(self.options.iter().cloned());
        options
    }
}

/// What limits an engine's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLimit {
    /// A clock: base time and increment per move, the base given again
    /// every `moves` moves if set (a classical `40/90` control).
    Clock {
        /// Time at the start (and of each control).
        base: Duration,
        /// Time added after each move.
        increment: Duration,
        /// Moves per control; `None` for the whole game.
        moves: Option<u32>,
    },
    /// A fixed time per move.
    MoveTime(Duration),
    /// A fixed depth per move.
    Depth(u32),
    /// A fixed node count per move.
    Nodes(u64),
}

/// Why an engine gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// No answer before the deadline.
    Timeout,
    /// The process closed its output or could not be written to.
    Crashed,
    /// The wait was called off: the match interrupted, or the line on the page replaced.
    Interrupted,
}

impl fmt::Display for EngineFailure {
    /// What the engine did, as a sentence about it goes on: `crashed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EngineFailure::Timeout => "did not answer in time",
            EngineFailure::Crashed => "crashed",
            EngineFailure::Interrupted => "was interrupted",
        })
    }
}

/// A running engine process; dropping it kills the process.
pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    protocol: Protocol,
}

/// How long `uci` and `isready` may take to be answered.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(20);
/// How often a wait looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(20);

impl EngineProcess {
    /// Starts the program of `config`.
    ///
    /// # Errors
    ///
    /// The reason the process could not be started.
    pub fn start(config: &EngineConfig) -> std::io::Result<EngineProcess> {
        let mut command = Command::new(&config.cmd);
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        let mut child = command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(std::io::Error::other("no pipes to the engine"));
        };
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines,
            protocol: config.protocol,
        })
    }

    /// Sends one line.
    ///
    /// # Errors
    ///
    /// [`EngineFailure::Crashed`] if the engine no longer reads.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|_| EngineFailure::Crashed)
    }

    /// Reads lines until one that `last` accepts, which it returns; gives
    /// up at `deadline` or when `interrupt` is set.
    ///
    /// # Errors
    ///
    /// Timeout, a closed output, or the interrupt.
    fn wait_for(
        &mut self,
        last: impl FnMut(&str) -> bool,
        deadline: Instant,
        interrupt: &AtomicBool,
    ) -> Result<String, EngineFailure> {
        let mut lines = self.lines_until(last, deadline, interrupt)?;
        Ok(lines.pop().unwrap_or_default())
    }

    /// Every line up to and including the first that `last` accepts; gives
    /// up at `deadline` or when `interrupt` is set.
    ///
    /// # Errors
    ///
    /// Timeout, a closed output, or the interrupt.
    fn lines_until(
        &mut self,
        mut last: impl FnMut(&str) -> bool,
        deadline: Instant,
        interrupt: &AtomicBool,
    ) -> Result<Vec<String>, EngineFailure> {
        let mut lines = Vec::new();
        loop {
            if interrupt.load(Ordering::Relaxed) {
                return Err(EngineFailure::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineFailure::Timeout);
            }
            match self.lines.recv_timeout((deadline - now).min(POLL)) {
                Ok(line) => {
                    let done = last(&line);
                    lines.push(line);
                    if done {
                        return Ok(lines);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(EngineFailure::Crashed),
            }
        }
    }

    /// Sends a `setoption` line for each pair.
    ///
    /// # Errors
    ///
    /// [`EngineFailure::Crashed`] if the engine no longer reads.
    pub fn set_options(&mut self, options: &[(String, String)]) -> Result<(), EngineFailure> {
        options.iter().try_for_each(|(name, value)| {
            self.send(&format!("setoption name {name} value {value}"))
        })
    }

    /// Readies the engine for a game: `uci` (or `gbgp`), the options (but
    /// a rule at its default that the engine does not list), `isready`.
    ///
    /// Returns what the engine said on the way.
    ///
    /// # Errors
    ///
    /// The engine failed to answer in time.
    pub fn handshake(
        &mut self,
        options: &[(String, String)],
        interrupt: &AtomicBool,
    ) -> Result<Handshake, EngineFailure> {
        self.send(self.protocol.hello())?;
        let ok = self.protocol.hello_ok();
        let listing = self.lines_until(
            |l| l.trim() == ok,
            Instant::now() + HANDSHAKE_TIMEOUT,
            interrupt,
        )?;
        let mut handshake = Handshake {
            listing,
            answer: Vec::new(),
        };
        let wanted: Vec<(String, String)> = options
            .iter()
            .filter(|(name, value)| handshake.takes(name, value))
            .cloned()
            .collect();
        self.set_options(&wanted)?;
        handshake.answer = self.ready_lines(interrupt)?;
        Ok(handshake)
    }

    /// Begins a new game (`ucinewgame`, or GBGP's `newgame`) and waits
    /// until the engine is ready for it.
    ///
    /// # Errors
    ///
    /// The engine failed to answer in time.
    pub fn new_game(&mut self, interrupt: &AtomicBool) -> Result<(), EngineFailure> {
        self.send(self.protocol.new_game())?;
        self.ready(interrupt)
    }

    /// `isready` answered by `readyok`.
    ///
    /// # Errors
    ///
    /// The engine failed to answer in time.
    pub fn ready(&mut self, interrupt: &AtomicBool) -> Result<(), EngineFailure> {
        self.ready_lines(interrupt).map(drop)
    }

    /// `isready`, and every line up to its `readyok`.
    fn ready_lines(&mut self, interrupt: &AtomicBool) -> Result<Vec<String>, EngineFailure> {
        self.send("isready")?;
        self.lines_until(
            |l| l.trim() == "readyok",
            Instant::now() + HANDSHAKE_TIMEOUT,
            interrupt,
        )
    }

    /// Asks for a search of `position` under `go`; returns its best move.
    ///
    /// `report` hears each `info` line of the search as it comes.
    ///
    /// # Errors
    ///
    /// Timeout at `deadline`, a closed output, or the interrupt.
    pub fn think(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
        interrupt: &AtomicBool,
        mut report: impl FnMut(&Info),
    ) -> Result<String, EngineFailure> {
        self.send(position)?;
        self.send(go)?;
        let last = self.wait_for(
            |line| {
                if let Some(info) = Info::parse(line) {
                    report(&info);
                }
                best_move(line).is_some()
            },
            deadline,
            interrupt,
        )?;
        Ok(best_move(&last).unwrap_or_default().to_owned())
    }

    /// Stops the search under way; the best move that ends it is dropped.
    ///
    /// # Errors
    ///
    /// No best move by `deadline`, or a closed output.
    pub fn stop(&mut self, deadline: Instant) -> Result<(), EngineFailure> {
        self.send("stop")?;
        let never = AtomicBool::new(false);
        self.wait_for(|line| best_move(line).is_some(), deadline, &never)
            .map(drop)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // Give a well-behaved engine a moment to quit, then make sure.
        let patience = Instant::now() + Duration::from_millis(200);
        while Instant::now() < patience {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
