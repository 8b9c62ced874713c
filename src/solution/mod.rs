//! The solved game: the exact value of every position of Nine Men's Morris
//! (with flying), from the first placement to the last stones, built by
//! retrograde analysis, stored in files and memory-mapped for probing.
//!
//! A [`Sector`] is a set of positions with the same stones: on the board
//! of the side to move and of the other side, and those each has in hand,
//! none in the moving phase: one type for the whole game, as in Malom.
//! In the moving phase a value is win, loss
//! or draw for the side to move, with a distance: the plies to the next
//! removal on the best path (shortest for a win, longest for a loss), like
//! DTZ in chess tablebases; in the placing phase it is the outcome alone.
//! Draw rules are not part of a value; the search weighs the distance
//! against the N-move counter.
//!
//! The files import one way, from the bottom up:
//!
//! - `value` and `error`: what a position is worth, what can be wrong
//!   with a file, and why a build cannot be done;
//! - `index` and `sector`: the sectors and the index of their positions;
//!   `memory`: the large allocations of reading whole files and of
//!   building;
//! - `format`: the files, their names, the background reader of blocks
//!   (`reader`) and what both kinds share (`checked`), then the moving
//!   phase's (`moving`) and the placing phase's (`placing`);
//! - `probe`: the databases of a folder, [`Database`], and the one way to
//!   ask them: a position's [`outcome`](Database::outcome), its
//!   [`value`](Database::value) with the distance, its outcome under the
//!   N-move rule, and each legal move's [`MoveValue`]
//!   ([`moves`](Database::moves));
//! - `retrograde`: the building of the files, by retrograde analysis of a
//!   moving pair (`moving`) and of a placing sector (`placing`), and the
//!   order of a whole build (`generate`);
//! - `verify`, `review` and `puzzle`: stored values checked against their
//!   successors', the moves of a game judged, and the positions of a game
//!   where one move alone keeps the value.
//!
//! What probes the databases is re-exported here; the files' formats
//! ([`format`](mod@format)) and the building ([`retrograde`]) are modules
//! of their own, for the commands that read files whole and build them.
//! The end of placing solved to these databases, in a search, is the
//! search's (`crate::search::placing`), with the placing positions asked
//! again with the N-move rule (`crate::search::placing_moves`).

mod error;
pub mod format;
mod index;
mod memory;
mod probe;
mod puzzle;
pub mod retrograde;
mod review;
mod sector;
mod value;
mod verify;

pub use error::{BuildError, DbError, DbProblem};
pub use format::reader::{
    NotInMemory, Reads, Urgency, begin_search_round, blocks_read, search_round,
    wait_for_reads_after,
};
pub use index::{Canonical, SectorIndex};
pub use probe::{Database, MoveValue, Probe};
pub use puzzle::{Puzzle, find_puzzles};
pub use review::{JudgedMove, Judgement, judge_game};
pub use sector::{Sector, sector_position};
pub use value::{DbOutcome, DbValue};
pub use verify::{SectorCheck, check_sector, compare_sector};

/// The folder where the databases are looked for and built when none is
/// named: `morris/db` in the user's data folder (`$XDG_DATA_HOME`, or
/// `~/.local/share`, on Linux); `None` where the system has no such folder.
pub fn default_dir() -> Option<std::path::PathBuf> {
    dirs::data_dir().map(|data| data.join("morris").join("db"))
}

/// The default folder, if it exists: where the databases are looked for
/// when none is named.
pub fn existing_default_dir() -> Option<std::path::PathBuf> {
    default_dir().filter(|dir| dir.is_dir())
}
