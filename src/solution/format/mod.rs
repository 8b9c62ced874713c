//! The database files: the background reader of blocks (`reader`), what
//! both kinds share (`checked`: a header with its checksum, a payload
//! checked a block at a time when first read, writing through a temporary
//! file), then the moving phase's format (`moving`) and the placing
//! phase's (`placing`).

pub(super) mod checked;
pub(super) mod moving;
pub(super) mod placing;
pub(super) mod reader;

pub use moving::{BuiltSector, Header, SectorFile, write_sector};
pub use placing::{PlacingCounts, PlacingFile, PlacingHeader, PlacingValues, write_placing};
