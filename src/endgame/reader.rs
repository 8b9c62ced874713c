//! Reading database blocks without waiting for the disk. A search on the
//! clock does not stop for a block that is not in memory: it asks for it
//! and searches the position instead of probing it. One background thread
//! reads the blocks asked for, all that are queued at once (so that the
//! disk serves them together), and checks them; the blocks a search wants
//! now go before those read ahead for the next move.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TrySendError};
use thiserror::Error;

use super::checked::Checked;

/// How a probe may read the database files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reads {
    /// Wait for the disk: every value the files hold is answered.
    #[default]
    Wait,
    /// Answer from memory only: a block not read yet is asked of the
    /// background reader, and its values are unknown until it is there.
    InMemory,
}

/// A value that is not in memory: its block is being read in the
/// background.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("the database block is not in memory yet")]
pub struct NotInMemory;

/// How soon a block asked for is wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Urgency {
    /// By a search on the clock: read before anything read ahead.
    Now,
    /// Read ahead while the engine waits for the opponent, for the next
    /// search; dropped if not read when a search begins.
    NextMove,
    /// Read ahead for the game: the early placements, kept until read.
    Game,
}

/// Requests each queue holds; one that does not fit is dropped, and its
/// block asked for again by the next probe that needs it.
const QUEUE: usize = 1 << 14;

/// Blocks read ahead at once: few, so that a block wanted now waits for
/// little.
const LATER_BATCH: usize = 8;

/// A block of a file, to read.
struct Request {
    file: Arc<Checked>,
    block: usize,
    /// For a block read ahead for the next move, the round that asked
    /// for it (for the game, a round never over).
    round: u64,
}

/// The background reader: its queues, and what it has read.
struct Reader {
    now: Sender<Request>,
    later: Sender<Request>,
    /// Blocks read so far, and a signal for each, for those who wait.
    read: Mutex<u64>,
    progress: Condvar,
    /// The read-ahead round: blocks asked for in an earlier one are
    /// dropped (the game has moved on).
    round: AtomicU64,
}

fn reader() -> &'static Reader {
    static READER: OnceLock<Reader> = OnceLock::new();
    READER.get_or_init(|| {
        let (now, now_queue) = crossbeam_channel::bounded(QUEUE);
        let (later, later_queue) = crossbeam_channel::bounded(QUEUE);
        std::thread::Builder::new()
            .name("morris-db-reader".to_owned())
            .spawn(move || run(&now_queue, &later_queue))
            .expect("a thread for the database reader");
        Reader {
            now,
            later,
            read: Mutex::new(0),
            progress: Condvar::new(),
            round: AtomicU64::new(0),
        }
    })
}

/// Asks the background reader for `block` of `file`; false if its queue
/// is full.
pub(super) fn ask(file: &Arc<Checked>, block: usize, urgency: Urgency) -> bool {
    let reader = reader();
    let round = match urgency {
        Urgency::Game => u64::MAX,
        Urgency::Now | Urgency::NextMove => reader.round.load(Ordering::Relaxed),
    };
    let request = Request {
        file: Arc::clone(file),
        block,
        round,
    };
    let queue = match urgency {
        Urgency::Now => &reader.now,
        Urgency::NextMove | Urgency::Game => &reader.later,
    };
    match queue.try_send(request) {
        Ok(()) => true,
        Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
    }
}

/// Drops the blocks asked to be read ahead for the next move and not read
/// yet: a new search has begun, and what it needs is asked for anew.
pub fn cancel_read_ahead() {
    reader().round.fetch_add(1, Ordering::Relaxed);
}

/// How many blocks the background reader has read so far.
pub fn blocks_read() -> u64 {
    *reader().read.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Waits until the background reader has read more than `seen` blocks
/// (a count from [`blocks_read`]), or until `deadline`; false when the
/// deadline came first.
pub fn wait_for_reads_after(seen: u64, deadline: Instant) -> bool {
    let reader = reader();
    let read = reader.read.lock().unwrap_or_else(PoisonError::into_inner);
    let timeout = deadline.saturating_duration_since(Instant::now());
    let (read, _) = reader
        .progress
        .wait_timeout_while(read, timeout, |read| *read <= seen)
        .unwrap_or_else(PoisonError::into_inner);
    *read > seen
}

/// The reader's loop: the blocks wanted now, all that are queued, then a
/// few read ahead, and again.
fn run(now: &Receiver<Request>, later: &Receiver<Request>) {
    let reader = reader();
    loop {
        let mut batch: Vec<Request> = now.try_iter().collect();
        if batch.is_empty() {
            batch.extend(later.try_iter().take(LATER_BATCH));
        }
        if batch.is_empty() {
            crossbeam_channel::select! {
                recv(now) -> request => batch.extend(request),
                recv(later) -> request => batch.extend(request),
            }
        }
        let round = reader.round.load(Ordering::Relaxed);
        for request in &batch {
            request.file.advise_will_need(request.block);
        }
        for request in batch {
            if request.file.is_asked_later(request.block) && request.round < round {
                request.file.forget_asked(request.block);
                continue;
            }
            request.file.check_block(request.block);
            let mut read = reader.read.lock().unwrap_or_else(PoisonError::into_inner);
            *read += 1;
            reader.progress.notify_all();
        }
    }
}
