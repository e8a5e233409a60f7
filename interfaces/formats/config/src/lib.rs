//! Text configuration files of Iron3D (FORMATS.md §12): one lossless layer that keeps
//! order, comments, unknown keys and sections, raw vs effective values and whether a
//! key was present (provenance).
//!
//! * [`IniDocument`] — `Iron_3D.ini`, `Behavior.ini` (incl. the absent `PathFind_*` keys:
//!   [`IniDocument::effective`] says `Provenance::Default`, never an invented value),
//!   `ArealMap.ini`, `MISSIONS/dispatcher.ini`, and `SAVE/saveslots.cfg` (grammar
//!   undocumented: read as `key=value` lines, anything else kept verbatim and reported).
//! * [`BlockFile`] — `mission.cfg`, `briefing.cfg`, `messages.cfg` (`object` … `end`).
//! * [`BuildDat`] — `BuildDat.lst` (12 category masks).
//! * [`bindings`] — `config/bindings.ini` (project format: actions → keys, mouse and
//!   gamepad inputs, with a user's overrides).
//! * `Comp.ini` is the registry grammar, in the `iron3d-registry` crate.
//! * [`keys`] — the keys the engine knows, who reads each and its default (the
//!   modder's guide's table and `iron3d mods check` use it).
//!
//! * [`file`](mod@file) — how a player's file (settings, bindings) is read: a regular file of at
//!   most [`file::MAX_FILE_BYTES`] (PD-CONFIG-FILE).
//!
//! Every `to_bytes()` reproduces the parsed input byte for byte; structural errors name
//! the file, line and column.

pub mod bindings;
pub mod blocks;
pub mod builddat;
pub mod error;
pub mod file;
pub mod ini;
pub mod keys;
pub mod lines;
pub mod objectives;
pub mod orders;
pub mod settings;

pub use bindings::Bindings;
pub use blocks::{Block, BlockFile, Param};
pub use builddat::{BuildDat, CATEGORIES, Category, UnitMask, mask_of};
pub use error::ConfigError;
pub use ini::{Diagnostic, Effective, IniDocument, IniLine, LineKind, Pair, Provenance};
