//! Reading database blocks without waiting for the disk. A search on the
//! clock does not stop for a block that is not in memory: it asks for it
//! and searches the position instead of probing it. One background thread
//! reads the blocks asked for and checks them. The root decision's blocks
//! come first, all that are queued at once (so that the disk serves them
//! together); then, one at a time, those the search's tree met, and those
//! read ahead for the next move or the game. One at a time, so that a
//! slow disk never holds a backlog of reads in front of the next root's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender};
use thiserror::Error;

/// How a probe may read the database files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Wait for the disk: every value the files hold is answered.
    Wait,
    /// Answer from memory only: a block not read yet is asked of the
    /// background reader, as soon as the urgency says, and its values are
    /// unknown until it is there.
    InMemory(Urgency),
}

/// A value that is not in memory: its block is being read in the
/// background.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("the database block is not in memory yet")]
pub struct NotInMemory;

/// How soon a block asked for is wanted, the most urgent first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Urgency {
    /// Read ahead for the game (the early placements), kept until read.
    Game,
    /// Read ahead while the engine waits for the opponent, for the next
    /// search; dropped if not read when a search begins.
    NextMove,
    /// Met in a search's tree; dropped if not read when the next search
    /// begins.
    Search,
    /// Waited for by the root decision: read before anything else.
    Root,
}

/// A file whose blocks the reader reads: each block is read and checked
/// against its checksum once.
pub(super) trait BlockFile: Send + Sync {
    /// Tells the system that a block will be read soon, so that its pages
    /// are read from the disk together with those of the other blocks
    /// asked for.
    fn advise_will_need(&self, block: usize);
    /// Checks a block against its checksum, unless that was done, and
    /// whether it is good.
    fn check_block(&self, block: usize) -> bool;
    /// Takes back a request to read a block for a search round that is
    /// over, unless the block was asked for more urgently since.
    fn forget_asked(&self, block: usize, urgency: Urgency);
}

impl Urgency {
    /// Whether a block asked for so is dropped when a new search begins.
    fn is_for_one_search(self) -> bool {
        matches!(self, Urgency::NextMove | Urgency::Search)
    }
}

/// Requests each queue holds; one that does not fit is dropped, and its
/// block asked for again by the next probe that needs it.
const QUEUE: usize = 1 << 14;

/// A block of a file, to read.
struct Request {
    file: Arc<dyn BlockFile>,
    block: usize,
    urgency: Urgency,
    /// The search round that asked for it.
    round: u64,
}

/// The background reader: its queues, and what it has read.
struct Reader {
    root: Sender<Request>,
    search: Sender<Request>,
    later: Sender<Request>,
    /// Blocks read so far, and a signal for each, for those who wait.
    read: Mutex<u64>,
    progress: Condvar,
    /// The search round: what was asked for one search in an earlier
    /// round is dropped.
    round: AtomicU64,
}

fn reader() -> &'static Reader {
    static READER: OnceLock<Reader> = OnceLock::new();
    READER.get_or_init(|| {
        let (root, root_queue) = crossbeam_channel::bounded(QUEUE);
        let (search, search_queue) = crossbeam_channel::bounded(QUEUE);
        let (later, later_queue) = crossbeam_channel::bounded(QUEUE);
        std::thread::Builder::new()
            .name("morris-db-reader".to_owned())
            .spawn(move || run(&root_queue, &search_queue, &later_queue))
            .expect("a thread for the database reader");
        Reader {
            root,
            search,
            later,
            read: Mutex::new(0),
            progress: Condvar::new(),
            round: AtomicU64::new(0),
        }
    })
}

/// Asks the background reader for `block` of `file`; false if its queue
/// is full.
pub(super) fn ask(file: Arc<dyn BlockFile>, block: usize, urgency: Urgency) -> bool {
    let reader = reader();
    let request = Request {
        file,
        block,
        urgency,
        round: reader.round.load(Ordering::Relaxed),
    };
    let queue = match urgency {
        Urgency::Root => &reader.root,
        Urgency::Search => &reader.search,
        Urgency::NextMove | Urgency::Game => &reader.later,
    };
    queue.try_send(request).is_ok()
}

/// Drops what was asked for the last search and the next move and is not
/// read yet: a new search has begun, and what it needs is asked for anew.
pub fn begin_search_round() {
    reader().round.fetch_add(1, Ordering::Relaxed);
}

/// The search round: it changes when a search begins.
pub fn search_round() -> u64 {
    reader().round.load(Ordering::Relaxed)
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

/// The reader's loop: every root block queued, together; else one block
/// met by a search; else one read ahead.
fn run(root: &Receiver<Request>, search: &Receiver<Request>, later: &Receiver<Request>) {
    loop {
        let queued = root
            .try_recv()
            .or_else(|_| search.try_recv())
            .or_else(|_| later.try_recv());
        let first = match queued {
            Ok(request) => request,
            Err(_) => {
                let waited = crossbeam_channel::select! {
                    recv(root) -> request => request,
                    recv(search) -> request => request,
                    recv(later) -> request => request,
                };
                match waited {
                    Ok(request) => request,
                    Err(_) => return,
                }
            }
        };
        let mut batch = vec![first];
        if batch[0].urgency == Urgency::Root {
            batch.extend(root.try_iter());
            for request in &batch {
                request.file.advise_will_need(request.block);
            }
        }
        for request in batch {
            serve(request);
        }
    }
}

/// Reads and checks the block of `request`, unless it was asked for a
/// search round that is over.
fn serve(request: Request) {
    let reader = reader();
    let stale =
        request.urgency.is_for_one_search() && request.round < reader.round.load(Ordering::Relaxed);
    if stale {
        request.file.forget_asked(request.block, request.urgency);
        return;
    }
    request.file.check_block(request.block);
    let mut read = reader.read.lock().unwrap_or_else(PoisonError::into_inner);
    *read += 1;
    reader.progress.notify_all();
}
