//! The crate's one error type: WEAR errors name the 1-based line and byte column, MAT0
//! errors the byte offset in the payload and the phase/block/key index, and every variant
//! says what was expected and what was found.

use std::fmt;
use thiserror::Error;

/// Which part of a WEAR table a row or count belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WearSection {
    /// The material rows after `<wearCount>`.
    Materials,
    /// The rows after `LIGHTMAPS` / `<lightmapCount>`.
    Lightmaps,
}

impl fmt::Display for WearSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WearSection::Materials => "material",
            WearSection::Lightmaps => "lightmap",
        })
    }
}

/// A WEAR line the grammar requires next (for "expected …, found end of text").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WearItem {
    /// `<wearCount>` (first line).
    WearCount,
    /// `<lightmapCount>` (after `LIGHTMAPS`).
    LightmapCount,
    /// A `<legacyId> <name>` row of the given section.
    Row(WearSection),
}

impl fmt::Display for WearItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WearItem::WearCount => f.write_str("<wearCount>"),
            WearItem::LightmapCount => f.write_str("<lightmapCount>"),
            WearItem::Row(section) => write!(f, "{section} row"),
        }
    }
}

/// Every way reading, writing, authoring or evaluating a material can fail.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MaterialError {
    // ----- WEAR reading -------------------------------------------------------------
    /// The text ends where the grammar needs another line.
    #[error("WEAR {line}:{column}: expected {expected}, found end of text")]
    WearMissingLine {
        /// 1-based line number where the line was expected.
        line: usize,
        /// 1-based byte column (always 1).
        column: usize,
        /// What the grammar needed.
        expected: WearItem,
    },
    /// A count line is not a plain decimal number (spaces/tabs around it allowed).
    #[error("WEAR {line}:{column}: expected {expected} as a decimal number, found {found:?}")]
    WearBadCount {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the first offending byte.
        column: usize,
        /// Which count.
        expected: WearItem,
        /// The line as text (CP1251 view).
        found: String,
    },
    /// `<wearCount>` is 0 (the grammar requires > 0; FParkan rejects 0).
    #[error("WEAR {line}:{column}: expected <wearCount> > 0, found 0")]
    WearZeroCount {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the number.
        column: usize,
    },
    /// A row does not start with two white-space-separated tokens.
    #[error(
        "WEAR {line}:{column}: expected {section} row {index} as `<legacyId> <name>`, found {found:?}"
    )]
    WearBadRow {
        /// 1-based line.
        line: usize,
        /// 1-based byte column where the missing token was expected.
        column: usize,
        /// Material or lightmap row.
        section: WearSection,
        /// 0-based row index inside its section.
        index: usize,
        /// The line as text (CP1251 view).
        found: String,
    },
    /// Non-blank text follows the material rows without the mandatory empty line.
    #[error(
        "WEAR {line}:{column}: expected an empty line before LIGHTMAPS (or only blank lines), found {found:?}"
    )]
    WearMissingSeparator {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the first non-blank byte.
        column: usize,
        /// The line as text.
        found: String,
    },
    /// The line after the separator is not `LIGHTMAPS`.
    #[error("WEAR {line}:{column}: expected `LIGHTMAPS`, found {found:?}")]
    WearMissingMarker {
        /// 1-based line.
        line: usize,
        /// 1-based byte column.
        column: usize,
        /// The line as text.
        found: String,
    },
    /// Non-blank text after the last lightmap row.
    #[error(
        "WEAR {line}:{column}: expected only blank lines after the {after} rows, found {found:?}"
    )]
    WearTrailingText {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the first non-blank byte.
        column: usize,
        /// The section that ended.
        after: WearSection,
        /// The line as text.
        found: String,
    },
    /// A carriage return that is not part of a CRLF line ending.
    #[error("WEAR {line}:{column}: expected LF after CR, found a lone carriage return")]
    WearStrayCr {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the CR.
        column: usize,
    },
    /// A NUL byte inside the text.
    #[error("WEAR {line}:{column}: expected text, found a NUL byte")]
    WearNul {
        /// 1-based line.
        line: usize,
        /// 1-based byte column of the NUL.
        column: usize,
    },

    // ----- WEAR authoring -----------------------------------------------------------
    /// An authored table has no material row (`<wearCount>` must be > 0).
    #[error("WEAR authoring: expected at least one material row, found none")]
    WearAuthorEmpty,
    /// An authored token is empty or contains space, tab, CR, LF or NUL.
    #[error(
        "WEAR authoring: {section} row {index} {field}: expected one non-empty token without space, tab, CR, LF or NUL, found {found:?}"
    )]
    WearAuthorToken {
        /// Material or lightmap row.
        section: WearSection,
        /// 0-based row index.
        index: usize,
        /// `legacy_id` or `name`.
        field: &'static str,
        /// The token as text (CP1251 view).
        found: String,
    },
    /// Text for authoring has a character windows-1251 cannot encode.
    #[error("CP1251: character {character:?} at byte {at} of the text has no windows-1251 code")]
    NotCp1251 {
        /// The character.
        character: char,
        /// Its byte position in the UTF-8 text.
        at: usize,
    },

    // ----- MAT0 reading -------------------------------------------------------------
    /// A fixed field of the header or the versioned prefix does not fit.
    #[error("MAT0 +{offset:#x}: expected {need} bytes for {field}, found {have}")]
    Mat0Truncated {
        /// Byte offset of the field.
        offset: usize,
        /// Field name from the grammar.
        field: &'static str,
        /// Bytes the field needs.
        need: usize,
        /// Bytes that remain.
        have: usize,
    },
    /// `animation_block_count >= 20`.
    #[error("MAT0 +0x2: expected animation_block_count < 20, found {found}")]
    Mat0BlockCount {
        /// The declared count.
        found: u16,
    },
    /// The phase section (`phase_count * 34` bytes) does not fit.
    #[error(
        "MAT0 +{offset:#x}: expected {need} bytes for {phase_count} phases, found {have} (phase {phase} is cut)"
    )]
    Mat0PhaseSection {
        /// Offset of the phase section.
        offset: usize,
        /// Declared phase count.
        phase_count: u16,
        /// First phase that does not fit.
        phase: usize,
        /// `phase_count * 34`.
        need: usize,
        /// Bytes that remain.
        have: usize,
    },
    /// An animation block header (`u32 header_raw, u16 key_count`) does not fit.
    #[error("MAT0 +{offset:#x}: expected 6 bytes for the header of block {block}, found {have}")]
    Mat0BlockHeader {
        /// Offset of the block.
        offset: usize,
        /// 0-based block index.
        block: usize,
        /// Bytes that remain.
        have: usize,
    },
    /// The keys of a block do not fit.
    #[error(
        "MAT0 +{offset:#x}: expected {need} bytes for the {key_count} keys of block {block}, found {have} (key {key} is cut)"
    )]
    Mat0Keys {
        /// Offset of the first key.
        offset: usize,
        /// 0-based block index.
        block: usize,
        /// Declared key count.
        key_count: u16,
        /// First key that does not fit.
        key: usize,
        /// `key_count * 6`.
        need: usize,
        /// Bytes that remain.
        have: usize,
    },
    /// Bytes remain after the last animation block.
    #[error("MAT0 +{offset:#x}: expected the end of the payload, found {extra} more bytes")]
    Mat0TrailingBytes {
        /// Where the payload should end.
        offset: usize,
        /// Bytes left over.
        extra: usize,
    },

    // ----- MAT0 writing / authoring -------------------------------------------------
    /// Writing as `version` would drop a prefix field whose value is not that version's
    /// default (the output would read back differently).
    #[error(
        "MAT0 write v{version}: {field} is absent from this version; expected its default {default:#x}, found {value:#x}"
    )]
    Mat0VersionDropsField {
        /// Target version.
        version: u32,
        /// The dropped field.
        field: &'static str,
        /// Its value.
        value: u32,
        /// The value a reader of `version` would see.
        default: u32,
    },
    /// A count exceeds what its field (or the < 20 rule) can hold.
    #[error("MAT0 authoring: expected at most {max} {what}, found {count}")]
    Mat0TooMany {
        /// `phases`, `animation blocks` or `keys`.
        what: &'static str,
        /// The count.
        count: usize,
        /// The maximum.
        max: usize,
    },
    /// An authored texture name is longer than 16 bytes or contains NUL.
    #[error(
        "MAT0 authoring: expected a texture name of at most 16 bytes without NUL, found {found:?}"
    )]
    Mat0TextureName {
        /// The name as text (CP1251 view).
        found: String,
    },

    // ----- runtime ------------------------------------------------------------------
    /// The WEAR table has no such row.
    #[error("WEAR: expected a row index < {rows}, found {row}")]
    NoSuchRow {
        /// Requested row.
        row: u16,
        /// Rows in the table.
        rows: usize,
    },
    /// The material has no such animation block.
    #[error("phase selection: expected a block index < {blocks}, found {block}")]
    NoSuchBlock {
        /// Requested block.
        block: usize,
        /// Blocks in the material.
        blocks: usize,
    },
    /// The material has no phase to select.
    #[error("phase selection: expected at least one phase, found none")]
    NoPhases,
    /// The block's mode number has no family in the [`crate::ModeMapping`] in use.
    #[error("phase selection: block {block} mode {mode} has no family in the mode mapping")]
    UnmappedMode {
        /// 0-based block index.
        block: usize,
        /// `header_raw & 7`.
        mode: u8,
    },
    /// A key's `k0` (phase index by project decision) is out of range.
    #[error(
        "phase selection: block {block} key {key}: expected phase index < {phase_count}, found {phase}"
    )]
    KeyPhaseOutOfRange {
        /// 0-based block index.
        block: usize,
        /// 0-based key index.
        key: usize,
        /// `k0`.
        phase: u16,
        /// Phases in the material.
        phase_count: usize,
    },
}
