//! The data tools behind the `iron3d` commands that read and write the game's files
//! without running a mission: `archive` (NRes / RsLi list, extract, check, roundtrip,
//! pack), `asset` (inspect and export materials, textures, WEAR, FXID, models),
//! `corpus` (every reader on every file of a game directory), `terrain` (debug views
//! of Land.msh / Land.map) and `mission` (a mission's contents and dependency graph).
//! The launcher parses the command line and calls these; each writes its report to the
//! writer it is given, so tests call them in-process.

pub mod archive;
pub mod asset;
pub mod corpus;
pub mod mission;
pub mod terrain;
