//! The database files: what both kinds share (a header with its checksum,
//! a payload checked a block at a time when first read, writing through a
//! temporary file) in `checked`, the background reader of blocks in
//! `reader`, then the moving phase's format (`moving`) and the placing
//! phase's (`placing`).

pub(super) mod checked;
pub(super) mod moving;
pub(super) mod placing;
pub(super) mod reader;
