//! The protocol loop run in memory, driven as a GUI drives it: a line at a
//! time, waiting for the answer of every search that ends by itself.

use std::io::{self, BufReader, Read, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

/// Long enough for any answer on a slow machine; reaching it means the
/// loop hangs, which is a failure, not a timing result.
const PATIENCE: Duration = Duration::from_secs(120);

/// Input fed from the test, chunk by chunk; the end of input comes when
/// the test drops its sender.
struct ChannelReader {
    chunks: Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    read: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.read == self.chunk.len() {
            match self.chunks.recv() {
                Ok(chunk) => (self.chunk, self.read) = (chunk, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.read);
        buf[..n].copy_from_slice(&self.chunk[self.read..self.read + n]);
        self.read += n;
        Ok(n)
    }
}

/// Output passed to the test as it is written.
struct ChannelWriter(Sender<Vec<u8>>);

impl Write for ChannelWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = self.0.send(buf.to_vec());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether a GUI would wait for this line's `bestmove` before sending more:
/// a search that ends by itself.
fn ends_by_itself(line: &str) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.first() == Some(&"go")
        && !tokens
            .iter()
            .any(|t| ["perft", "infinite", "ponder"].contains(t))
}

/// Runs the protocol over `script`, a line at a time, waiting after every
/// search that ends by itself for its `bestmove` (or the error refusing
/// it), then ends the input; returns every line written.
pub fn session(script: &[u8]) -> Vec<String> {
    let (input, chunks) = channel();
    let (written, output) = channel();
    let engine = std::thread::spawn(move || {
        let reader = ChannelReader {
            chunks,
            chunk: Vec::new(),
            read: 0,
        };
        morris::uci::run(BufReader::new(reader), &mut ChannelWriter(written))
    });
    let mut text = Vec::new();
    let mut lines_seen = 0;
    for line in script.split_inclusive(|&b| b == b'\n') {
        input.send(line.to_vec()).expect("the loop reads its input");
        if !ends_by_itself(&String::from_utf8_lossy(line)) {
            continue;
        }
        'answer: loop {
            let chunk = output
                .recv_timeout(PATIENCE)
                .expect("the search answers in time");
            text.extend_from_slice(&chunk);
            let complete = String::from_utf8_lossy(&text).into_owned();
            let lines: Vec<&str> = complete.lines().collect();
            let finished = complete.ends_with('\n');
            let whole = if finished {
                lines.len()
            } else {
                lines.len() - 1
            };
            for line in &lines[lines_seen..whole] {
                lines_seen += 1;
                if line.starts_with("bestmove") || line.starts_with("info string error: go") {
                    break 'answer;
                }
            }
        }
    }
    drop(input);
    engine
        .join()
        .expect("the loop does not panic")
        .expect("in-memory output");
    text.extend(output.try_iter().flatten());
    String::from_utf8(text)
        .expect("output is UTF-8")
        .lines()
        .map(String::from)
        .collect()
}

/// What follows `bestmove ` on the last `bestmove` line of `lines`.
pub fn bestmove(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove in {lines:#?}"))
}

/// The move of the `bestmove` line (without its ponder move).
pub fn best_move(lines: &[String]) -> morris::Move {
    let token = bestmove(lines).split(' ').next().unwrap();
    token.parse().unwrap_or_else(|e| panic!("{token}: {e}"))
}
