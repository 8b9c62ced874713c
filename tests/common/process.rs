//! The built `morris` binary as a subprocess, driven line by line.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Long enough for any answer on a slow machine; reaching it means the
/// engine hangs, which is a failure, not a timing result.
const PATIENCE: Duration = Duration::from_secs(120);

pub struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineProcess {
    pub fn start() -> EngineProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start morris");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        EngineProcess {
            child,
            stdin,
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to morris");
        self.stdin.flush().expect("flush to morris");
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write to morris");
        self.stdin.flush().expect("flush to morris");
    }

    /// The next line, or `None` if the engine closed its output.
    pub fn next_line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("morris gave no answer in {PATIENCE:?}"),
        }
    }

    /// Every line up to and including the first that `last` accepts.
    pub fn read_until(&mut self, last: impl Fn(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_line().expect("morris closed its output");
            let done = last(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes the input, reads every line the engine still writes, and
    /// returns them with the exit status code.
    pub fn close_input(self) -> (Vec<String>, Option<i32>) {
        let EngineProcess {
            mut child,
            stdin,
            lines: output,
        } = self;
        drop(stdin);
        let mut lines = Vec::new();
        loop {
            match output.recv_timeout(PATIENCE) {
                Ok(line) => lines.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("morris did not end in {PATIENCE:?}"),
            }
        }
        (lines, child.wait().expect("wait for morris").code())
    }

    /// Sends `quit` (or closes input) and returns the exit status code.
    pub fn finish(mut self, quit: bool) -> Option<i32> {
        if quit {
            self.send("quit");
        }
        drop(self.stdin);
        self.child.wait().expect("wait for morris").code()
    }
}
