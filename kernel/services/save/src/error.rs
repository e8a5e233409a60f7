//! The crate's error enum: every refusal names what is wrong and where.

use std::path::PathBuf;

/// Why a save file was refused or could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file ends before a structure it declares.
    #[error(
        "save file truncated: {what} needs {need} bytes at offset {offset}, the file has {len}"
    )]
    Truncated {
        /// The structure that does not fit.
        what: &'static str,
        /// Its start.
        offset: u64,
        /// Bytes it needs.
        need: u64,
        /// The file's length.
        len: u64,
    },
    /// The file does not start with [`crate::MAGIC`].
    #[error("not a save file: magic {found:02x?}, expected \"IRON3DSV\"")]
    BadMagic {
        /// The first eight bytes.
        found: [u8; 8],
    },
    /// Written by a newer engine for readers of at least `needs`.
    #[error(
        "save format {format_version} needs a reader of version {needs} or newer; this engine reads version {reader}"
    )]
    TooNew {
        /// The file's format version.
        format_version: u16,
        /// The file's `min_read_version`.
        needs: u16,
        /// This build's reader version.
        reader: u16,
    },
    /// Older than the oldest format this build reads.
    #[error("save format {format_version} is older than the oldest this engine reads ({oldest})")]
    TooOld {
        /// The file's format version.
        format_version: u16,
        /// [`crate::OLDEST_READ_VERSION`].
        oldest: u16,
    },
    /// More sections than [`crate::MAX_SECTIONS`].
    #[error("save file declares {count} sections, at most {max} are read")]
    TooManySections {
        /// Declared count.
        count: u32,
        /// The limit.
        max: usize,
    },
    /// A section's tag or name is not printable ASCII (NUL padded).
    #[error("section {index}: {field} is not printable ASCII: {raw:02x?}")]
    BadLabel {
        /// Table index.
        index: usize,
        /// `"tag"` or `"name"`.
        field: &'static str,
        /// The raw bytes.
        raw: Vec<u8>,
    },
    /// A section's payload runs past the payload area.
    #[error(
        "section {index} ({tag} {name:?}): payload of {length} bytes at offset {offset} runs past the end of the payloads at {end}"
    )]
    SectionOutOfBounds {
        /// Table index.
        index: usize,
        /// Tag.
        tag: String,
        /// Name.
        name: String,
        /// Where its payload starts.
        offset: u64,
        /// Its declared length.
        length: u64,
        /// Where the payloads end (the file checksum's offset).
        end: u64,
    },
    /// A section's payload does not match its checksum.
    #[error("section {index} ({tag} {name:?}) at offset {offset}: checksum mismatch (damaged)")]
    SectionChecksum {
        /// Table index.
        index: usize,
        /// Tag.
        tag: String,
        /// Name.
        name: String,
        /// Where its payload starts.
        offset: u64,
    },
    /// The bytes after the payloads are not exactly the file checksum.
    #[error(
        "save file: {extra} bytes between the last section and the file checksum at offset {offset}"
    )]
    TrailingBytes {
        /// Offset of the first unexpected byte.
        offset: u64,
        /// How many.
        extra: u64,
    },
    /// The file checksum does not match (the table or the header area was damaged).
    #[error("save file: file checksum mismatch (the section table or the fixed header is damaged)")]
    FileChecksum,
    /// Two sections with the same tag and name.
    #[error("section {index}: a second {tag} {name:?} section")]
    DuplicateSection {
        /// Table index of the second one.
        index: usize,
        /// Tag.
        tag: String,
        /// Name.
        name: String,
    },
    /// The first section is not the header.
    #[error("save file: the first section must be HEAD, found {found}")]
    MissingHeader {
        /// The first section's tag (`"none"` without sections).
        found: String,
    },
    /// The header section is not a well-formed header.
    #[error("save header (section 0): {source}")]
    BadHeader {
        /// The JSON error (line and column within the header).
        #[source]
        source: serde_json::Error,
    },
    /// A label given to the writer does not fit the table.
    #[error("cannot write section {tag:?} {name:?}: {why}")]
    BadSection {
        /// Tag.
        tag: String,
        /// Name.
        name: String,
        /// Why.
        why: &'static str,
    },
    /// A file operation failed.
    #[error("{op} {path}: {source}")]
    Io {
        /// What was being done.
        op: &'static str,
        /// On which file.
        path: PathBuf,
        /// The system error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than [`crate::MAX_FILE_LEN`].
    #[error("{path}: {len} bytes, larger than the {max} bytes a save may have")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// The slot list does not parse.
    #[error("save slot list {path}: {source}")]
    Slots {
        /// The list.
        path: String,
        /// The INI reader's error.
        #[source]
        source: iron3d_config::ConfigError,
    },
    /// A campaign or progress file (`dispatcher.ini`) that is not INI.
    #[error("campaign file {path}: cannot be read")]
    Dispatcher {
        /// The file.
        path: String,
        /// The INI reader's error.
        #[source]
        source: iron3d_config::ConfigError,
    },
    /// A campaign or progress file whose campaign breaks PD-CAMPAIGN-ORDER.
    #[error("campaign file {path}, line {line}: {why}")]
    Campaign {
        /// The file.
        path: String,
        /// Its line (1-based; 0: the file as a whole).
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// The slot list has more slots than [`crate::MAX_SLOTS`].
    #[error("save slot list {path}: {count} slots, at most {max} are read")]
    TooManySlots {
        /// The list.
        path: String,
        /// Its slots.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The save does not fit the running engine (PD-SAVE-COMPAT).
    #[error("the save does not fit this game: {}", list(.0))]
    Incompatible(Vec<Mismatch>),
}

fn list(m: &[Mismatch]) -> String {
    m.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// One difference between a save's header and the running engine (PD-SAVE-COMPAT).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// Other game data.
    #[error("game data differ (save {saved}, running {running})")]
    GameData {
        /// The save's data fingerprint.
        saved: String,
        /// The running engine's.
        running: String,
    },
    /// Another mod set.
    #[error("mod set differs (save {saved}, running {running})")]
    Mods {
        /// The save's mod-set fingerprint.
        saved: String,
        /// The running engine's.
        running: String,
    },
    /// Another tick rate.
    #[error("tick rate differs (save {saved} Hz, running {running} Hz)")]
    TickRate {
        /// The save's.
        saved: u32,
        /// The running engine's.
        running: u32,
    },
    /// Another mission.
    #[error("mission differs (save {saved:?}, running {running:?})")]
    Mission {
        /// The save's mission.
        saved: String,
        /// The running one.
        running: String,
    },
    /// A slot's plugin is missing from the running engine.
    #[error("slot {slot}: the save's plugin {saved} is not loaded")]
    PluginMissing {
        /// Slot.
        slot: String,
        /// `library/factory version (blob vN)` of the save.
        saved: String,
    },
    /// A slot's plugin differs (library, factory, version or blob format).
    #[error("slot {slot}: the save has {saved}, the engine runs {running}")]
    PluginDiffers {
        /// Slot.
        slot: String,
        /// The save's plugin.
        saved: String,
        /// The running plugin.
        running: String,
    },
    /// The running engine has a plugin the save lacks.
    #[error("slot {slot}: the engine runs {running}, the save has no plugin there")]
    PluginExtra {
        /// Slot.
        slot: String,
        /// The running plugin.
        running: String,
    },
}
