//! What can be wrong with a database file, or with the files a build
//! needs.

use std::sync::Arc;

use thiserror::Error;

/// A database file that cannot be used.
#[derive(Clone, Debug, Error)]
#[error("{}: {problem}", path.display())]
pub struct DbError {
    /// The file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub problem: DbProblem,
}

/// What is wrong with a database file.
#[derive(Clone, Debug, Error)]
pub enum DbProblem {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(Arc<std::io::Error>),
    /// Shorter than its header.
    #[error("too short for a header")]
    TooShort,
    /// Not a morris database.
    #[error("not a morris endgame database (bad magic number)")]
    BadMagic,
    /// Written by another format version.
    #[error("format version {found}, expected {expected}")]
    Version {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// For other rules than Nine Men's Morris with flying.
    #[error("built for other rules")]
    Rules,
    /// A sector with fewer than three stones a side, or not the one its name says.
    #[error("sector {mover}-{other} is not valid here")]
    Sector {
        /// Stones of the side to move.
        mover: u8,
        /// Stones of the other side.
        other: u8,
    },
    /// Not a placing sector, or not the one its name says.
    #[error(
        "placing sector {mover}-{other} with {mover_hand} and {other_hand} in hand is not valid here"
    )]
    PlacingSector {
        /// Stones on the board of the side to move.
        mover: u8,
        /// Stones on the board of the other side.
        other: u8,
        /// Stones in hand of the side to move.
        mover_hand: u8,
        /// Stones in hand of the other side.
        other_hand: u8,
    },
    /// The payload has the wrong length.
    #[error("{found} bytes, expected {expected}")]
    Length {
        /// Bytes expected.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The payload does not match its checksum.
    #[error("checksum mismatch: the file is damaged")]
    Checksum,
    /// Sectors a build needs first are not there (or not valid).
    #[error("{} must be built first", sectors_named(.0))]
    Missing(Vec<String>),
}

/// "sector A" or "sectors A, B".
fn sectors_named(names: &[String]) -> String {
    match names {
        [one] => format!("sector {one}"),
        many => format!("sectors {}", many.join(", ")),
    }
}

impl From<std::io::Error> for DbProblem {
    fn from(err: std::io::Error) -> DbProblem {
        DbProblem::Io(Arc::new(err))
    }
}
