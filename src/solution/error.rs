//! What can be wrong with a database file, and why a build cannot be
//! done.

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
    /// Of the format before this build's, which `morris db-convert`
    /// converts.
    #[error("format version {found}, expected {expected}: convert it with `morris db-convert`")]
    Convertible {
        /// The file's version.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// For other rules than Nine Men's Morris with flying.
    #[error("built for other rules")]
    Rules,
    /// A sector that is not of a game of Nine Men's Morris, or not the one
    /// the file's name says.
    #[error("{} is not valid here", sector_named(*.mover, *.other, *.mover_hand, *.other_hand))]
    Sector {
        /// Stones on the board of the side to move.
        mover: u8,
        /// Stones on the board of the other side.
        other: u8,
        /// Stones in hand of the side to move (none in the moving phase).
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
}

/// Why a sector cannot be built.
#[derive(Clone, Debug, Error)]
pub enum BuildError {
    /// Sectors the build needs first are not in the folder, or not valid.
    #[error("{}: {} must be built first", dir.display(), sectors_named(sectors))]
    Missing {
        /// The folder of the build.
        dir: std::path::PathBuf,
        /// The sectors missing, as their names write them.
        sectors: Vec<String>,
    },
    /// A file cannot be read or written.
    #[error(transparent)]
    File(#[from] DbError),
}

/// A sector as its header gives it, valid or not: "sector 3-4" in the
/// moving phase, "placing sector 3-4 with 1 and 0 in hand" in the placing
/// phase.
fn sector_named(mover: u8, other: u8, mover_hand: u8, other_hand: u8) -> String {
    if mover_hand == 0 && other_hand == 0 {
        format!("sector {mover}-{other}")
    } else {
        format!("placing sector {mover}-{other} with {mover_hand} and {other_hand} in hand")
    }
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
