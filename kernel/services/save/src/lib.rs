//! Save files of our own. The original's save payload is not recovered (FORMATS §16
//! item 32; `SAVE/saveslots.cfg` of §12.6 is slot metadata, not payload), so a save of
//! this engine is this crate's format, not the original's.
//!
//! # The container (format version [`FORMAT_VERSION`], little-endian)
//!
//! ```text
//! +0   magic            8 bytes  "IRON3DSV"
//! +8   format_version   u16      the writer's format version
//! +10  min_read_version u16      the oldest reader version that can read the file
//! +12  section_count    u32      at most MAX_SECTIONS
//! +16  section table    section_count × 64 bytes:
//!        tag      [u8; 4]   what the section holds (ASCII, e.g. "HEAD", "PLUG")
//!        name     [u8; 16]  which one (ASCII, NUL padded; a plugin section's slot)
//!        flags    u32       0 (reserved; kept as read)
//!        length   u64       payload bytes
//!        checksum [u8; 32]  BLAKE3 of the payload
//!      payloads         in table order, back to back
//!      file checksum    [u8; 32] BLAKE3 of every byte before it
//! ```
//!
//! The first section is the header (tag [`TAG_HEADER`]): a JSON object
//! ([`SaveHeader`]) with the engine build, the data and mod-set fingerprints, the plugin
//! set with each blob's format version, the tick, the game time, the pause state and the
//! state hash. Other sections hold the kernel's world, each plugin's state blob and what
//! a replay needs to go on; their tags are the session's business
//! ([`TAG_WORLD`], [`TAG_PLUGIN`], [`TAG_REPLAY`]). A section of a tag this build does not
//! know is kept and written back unchanged.
//!
//! # Rules
//! * **PD-SAVE-STRICT**: a file is read whole and checked before anything is returned:
//!   the magic, the versions, the table, every section's bounds and checksum, the file
//!   checksum, no byte after it, no two sections of the same tag and name, the header
//!   first and well-formed. Any failure is a [`SaveError`] naming what and where (section
//!   index, tag, name, offset); nothing is allocated from a count or length read from
//!   the file beyond the file's own size.
//! * **PD-SAVE-VERSION**: a reader of version `R` reads a file whose
//!   `min_read_version ≤ R` and whose `format_version ≥` [`OLDEST_READ_VERSION`]; a
//!   newer writer that stays readable by older readers keeps `min_read_version` low.
//! * **PD-SAVE-ATOMIC** ([`write_atomic`]): a save is written to a temporary file in the
//!   target's folder, flushed and synced, the previous file kept as `<name>.bak`, the
//!   temporary renamed over the target and the folder synced. A process killed at any
//!   point leaves the previous save (or its backup) whole; a leftover temporary file
//!   (`.<name>.*.tmp`) is never read.
//! * **PD-SAVE-SLOTS** ([`slots`]): `saveslots.cfg` is the ordered slot metadata beside
//!   the saves (FORMATS §12.6), checked independently of the files it names.
//! * **PD-SAVE-COMPAT** ([`SaveHeader::mismatches`]): a save loads only into the same
//!   game data, the same mod set, the same tick rate, the same mission and the same
//!   plugin set (slot, library, factory, version and blob format); every difference is
//!   listed, not just the first.
//! * **PD-CAMPAIGN-\*** ([`campaign`]): the campaign of `MISSIONS/dispatcher.ini` and the
//!   player's progress through it, kept beside the saves.

pub mod campaign;
mod container;
mod error;
pub mod fuzz_check;
mod header;
pub mod slots;
mod write;

pub use campaign::{Campaign, Progress};
pub use container::{
    FILE_CHECKSUM_LEN, FORMAT_VERSION, HEADER_LEN, MAGIC, MAX_SECTIONS, MIN_READ_VERSION, NAME_LEN,
    OLDEST_READ_VERSION, SaveFile, Section, TABLE_ENTRY_LEN, TAG_HEADER, TAG_PLUGIN, TAG_REPLAY,
    TAG_WORLD, Tag, peek_header,
};
pub use error::{Mismatch, SaveError};
pub use header::{PluginRecord, SaveHeader, SavedOutcome};
pub use slots::{MAX_SLOTS, SLOTS_FILE, SlotList, SlotMeta, SlotStatus};
pub use write::{MAX_FILE_LEN, Staged, backup_path, read, stage, write_atomic};

#[cfg(test)]
mod tests;
