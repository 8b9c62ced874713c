//! Building the databases: the retrograde analysis of a pair of moving
//! sectors (`moving`) and of a placing sector (`placing`), and the order of
//! a whole build, each sector from the files of those it needs
//! (`generate`).

mod generate;
mod interleaved;
mod moving;
mod placing;

pub use generate::{
    Generated, GenerationReport, PlacingBuild, SectorRange, generate, generate_pair, generate_unit,
    pair_dependencies, pair_sectors, removal_sectors,
};
pub use interleaved::{SectorValues, SolvedSectors, build_unit, unit_needs};
pub use moving::{BuildStep, SmallerSectors, build_pair};
pub use placing::{MissingSuccessor, build_placing_sector};
