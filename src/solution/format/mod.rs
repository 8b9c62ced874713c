//! The database files: their names (here), the background reader of
//! blocks (`reader`), the payload compressed in blocks (`compressed`),
//! what both kinds share (`checked`: a header with its checksum, opened
//! with its sector checked, a payload checked a block at a time when first
//! read, writing through a temporary file), then the moving phase's format
//! (`moving`) and the placing phase's (`placing`), and the conversion of
//! the files of the format before (`convert`).

pub(super) mod checked;
mod checksum;
mod compressed;
pub mod convert;
pub(super) mod moving;
pub(super) mod placing;
pub(super) mod reader;

pub use moving::{BuiltSector, Kept, MovingFile, MovingHeader, write_sector};
pub use placing::{PlacingCounts, PlacingFile, PlacingHeader, PlacingValues, write_placing};

use std::path::{Path, PathBuf};

use crate::board::FullBoard;
use crate::solution::sector::Sector;

/// The name of the file of `sector`: `V-flying-M-O.mdb` in the moving
/// phase, `V-placing-M-O-H-I.mdb` in the placing phase, where `V` is the
/// variant (`nine-flying-3-3.mdb`, `twelve-placing-0-0-12-12.mdb`), a
/// file with distances of stones in hand `V-flying-M-O-H-I.mdb`
/// (`lasker-flying-2-3-5-4.mdb`), and
/// the full-board rule after it where it is not the default
/// (`twelve-whiteloses-placing-0-0-12-12.mdb`).
pub(crate) fn file_name(sector: Sector) -> String {
    let phase = if sector.keeps_distances() {
        MOVING
    } else {
        PLACING
    };
    let rule = match sector.full_board {
        FullBoard::Draw => String::new(),
        rule => format!("-{rule}"),
    };
    format!("{}{rule}-{phase}-{sector}.mdb", sector.variant)
}

/// The folder under a build's folder that keeps the files of the sectors
/// whose values are derived rather than stored (see [`Sector::is_stored`])
/// while the sectors before them are built from them.
pub const INTERMEDIATE: &str = "intermediate";

/// The folder in which a build in `dir` keeps the file of `sector`: `dir`,
/// or its [`INTERMEDIATE`] folder if the sector's values are derived.
pub(crate) fn build_folder(dir: &Path, sector: Sector) -> PathBuf {
    if sector.is_stored() {
        dir.to_owned()
    } else {
        dir.join(INTERMEDIATE)
    }
}

/// Where a build in `dir` finds the file of `sector`: in its
/// [`build_folder`], or for a derived sector whose file is not there, in
/// `dir` itself, where a build from before they were set aside left it.
pub(crate) fn build_path(dir: &Path, sector: Sector) -> PathBuf {
    let path = build_folder(dir, sector).join(file_name(sector));
    let beside = dir.join(file_name(sector));
    if !path.exists() && beside.exists() {
        beside
    } else {
        path
    }
}

/// The word of a moving sector's file name, after the variant.
const MOVING: &str = "flying";
/// The word of a placing sector's file name, after the variant.
const PLACING: &str = "placing";

/// Whether the file named `name` is of the placing phase.
pub(crate) fn is_placing_file(name: &str) -> bool {
    name.split('-').any(|word| word == PLACING)
}
