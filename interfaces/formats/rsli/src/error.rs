//! The crate's single error type: every strict check, codec failure and writer refusal,
//! each with the context needed to find the offending byte.

use crate::method::Method;
use crate::options::Quirk;
use thiserror::Error;

/// Everything that can go wrong while reading, decoding or writing an RsLi archive.
///
/// Entry-level failures are wrapped in [`RsliError::InEntry`], which names the entry
/// index, its name and the file offset of its table record; codec failures name the
/// codec and the byte offset inside the packed stream.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RsliError {
    /// The file is shorter than the 32-byte header (§3.9 check 1).
    #[error("header truncated: need {need} bytes, the file has {have}")]
    HeaderTruncated {
        /// Bytes required.
        need: usize,
        /// Bytes present.
        have: usize,
    },
    /// The first two bytes are not `"NL"` (§3.9 check 1).
    #[error("bad magic at offset 0: expected \"NL\" (4E 4C), found {found:02X?}")]
    BadMagic {
        /// The two bytes found.
        found: [u8; 2],
    },
    /// The reserved byte at +0x02 is not zero (§3.9 check 1).
    #[error("reserved byte at offset 2 must be 0, found {found:#04x}")]
    BadReserved {
        /// The byte found.
        found: u8,
    },
    /// The version byte at +0x03 is not 1 (§3.9 check 1).
    #[error("unsupported version at offset 3: expected 1, found {found}")]
    BadVersion {
        /// The version found.
        found: u8,
    },
    /// The signed entry count at +0x04 is negative (§3.9 check 2).
    #[error("negative entry count {count} at offset 4")]
    NegativeEntryCount {
        /// The count as stored.
        count: i16,
    },
    /// The entry table `32 + 32 * N` does not fit in the file (§3.9 check 2).
    #[error(
        "entry table of {count} entries ends at byte {table_end}, past the end of the {file_len}-byte file"
    )]
    TableTruncated {
        /// Declared entry count.
        count: usize,
        /// Where the table would end.
        table_end: usize,
        /// File length.
        file_len: usize,
    },
    /// The `AO` trailer's overlay exceeds the file length (§3.6).
    #[error("AO trailer at offset {offset}: overlay {overlay} exceeds the file length {file_len}")]
    OverlayOutOfRange {
        /// Offset of the trailer.
        offset: usize,
        /// Overlay value found.
        overlay: u32,
        /// File length.
        file_len: usize,
    },
    /// `flags & 0x1E0` is not one of the seven storage methods (§3.9 check 4).
    #[error(
        "unknown storage method {method:#05x} (flags {flags:#06x}); known: 0x000 0x020 0x040 0x060 0x080 0x0A0 0x100"
    )]
    UnknownMethod {
        /// The whole flags field.
        flags: u16,
        /// `flags & 0x1E0`.
        method: u16,
    },
    /// The effective payload range leaves the file (§3.9 check 5).
    #[error("payload range {start}..{end} lies outside the {file_len}-byte file")]
    PayloadOutOfRange {
        /// Effective start offset.
        start: u64,
        /// Effective end offset (exclusive).
        end: u64,
        /// File length.
        file_len: usize,
    },
    /// Methods 0x000/0x020 need `packed_size == unpacked_size` (§3.5, §3.9 check 6).
    #[error(
        "method {method} stores bytes 1:1 but packed_size {packed} != unpacked_size {unpacked}"
    )]
    StoredSizeMismatch {
        /// The entry's method.
        method: Method,
        /// Stored packed size.
        packed: u32,
        /// Stored unpacked size.
        unpacked: u32,
    },
    /// The entry matches a known quirk of the original that strict mode does not accept.
    #[error("entry needs the named quirk `{quirk}`; enable it in ReadOptions to read it")]
    QuirkRequired {
        /// The quirk that would accept the entry.
        quirk: Quirk,
    },
    /// A presorted `sort_to_original` value is negative or not below the entry count (§3.9 check 3).
    #[error(
        "sort table slot {slot} (offset {offset}): value {value} is not an entry index 0..{count}"
    )]
    SortIndexOutOfRange {
        /// Sorted position.
        slot: usize,
        /// File offset of the field.
        offset: usize,
        /// Stored value.
        value: i16,
        /// Entry count.
        count: usize,
    },
    /// A presorted `sort_to_original` value repeats (§3.9 check 3).
    #[error("sort table slot {slot} (offset {offset}): index {value} already used by slot {first}")]
    SortIndexDuplicate {
        /// Sorted position of the repeat.
        slot: usize,
        /// File offset of the field.
        offset: usize,
        /// Repeated value.
        value: u16,
        /// Slot that used it first.
        first: usize,
    },
    /// The presorted mapping does not yield non-decreasing names (§3.7, §3.9 check 3).
    #[error("sort table not ordered: slot {slot} names entry {index} {name:?}, which sorts before {prev_name:?} of slot {}", slot - 1)]
    SortNotOrdered {
        /// Sorted position that breaks the order.
        slot: usize,
        /// Entry it names.
        index: usize,
        /// Its name.
        name: String,
        /// The name at the previous slot.
        prev_name: String,
    },
    /// A codec needed more packed bytes than the entry has.
    #[error(
        "{codec}: packed input ends at byte {offset} after {produced} of {expected} output bytes"
    )]
    InputTruncated {
        /// Codec name.
        codec: &'static str,
        /// Input offset where more was needed.
        offset: usize,
        /// Output produced so far.
        produced: usize,
        /// Declared output size.
        expected: usize,
    },
    /// The declared unpacked size is impossible for the packed size under the codec's
    /// maximal ratio; rejected before any allocation.
    #[error(
        "{codec}: declared size {unpacked} is impossible for {packed} packed bytes (limit {limit})"
    )]
    ImplausibleSize {
        /// Codec name.
        codec: &'static str,
        /// Declared output size.
        unpacked: u64,
        /// Packed size.
        packed: usize,
        /// The most this codec can produce from `packed` bytes.
        limit: u64,
    },
    /// The Deflate stream is corrupt.
    #[error("deflate: corrupt stream near input byte {offset}: {message}")]
    DeflateCorrupt {
        /// Input consumed when the error was seen.
        offset: u64,
        /// The inflater's message.
        message: String,
    },
    /// The Deflate stream would produce more than the declared size (§3.5.3).
    #[error("deflate: stream produces more than the declared {expected} bytes")]
    DeflateOverrun {
        /// Declared output size.
        expected: usize,
    },
    /// A codec finished with a different output size than declared (§3.9 check 6).
    #[error("{codec}: produced {produced} bytes, declared {expected}")]
    SizeMismatch {
        /// Codec name.
        codec: &'static str,
        /// Bytes produced.
        produced: usize,
        /// Declared size.
        expected: usize,
    },
    /// The Deflate encoder failed (it writes to memory, so this is not expected).
    #[error("deflate encoder: {message}")]
    DeflateEncode {
        /// The encoder's message.
        message: String,
    },
    /// Writer: a new entry name is unusable.
    #[error("invalid entry name {name:?}: {reason}")]
    InvalidName {
        /// The name as given (escaped).
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// Writer: two new entries have the same (upper-cased) name.
    #[error("duplicate entry name {name:?} (entries {first} and {second})")]
    DuplicateName {
        /// The name.
        name: String,
        /// First index.
        first: usize,
        /// Second index.
        second: usize,
    },
    /// Writer: more entries than the signed 16-bit count holds.
    #[error("too many entries: {count} (an RsLi header holds at most 32767)")]
    TooManyEntries {
        /// Entries requested.
        count: usize,
    },
    /// Writer: a size or offset does not fit its 32-bit field.
    #[error("{what} {value} does not fit a 32-bit field")]
    TooLarge {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// Writer: the requested overlay is larger than a payload offset.
    #[error("overlay {overlay} is larger than the payload offset {offset}")]
    OverlayTooLarge {
        /// Requested overlay.
        overlay: u32,
        /// Effective payload offset it would have to be subtracted from.
        offset: usize,
    },
    /// An error about one entry, with its position.
    #[error("entry {index} {name:?} (record at offset {record_offset}): {source}")]
    InEntry {
        /// Original entry index.
        index: usize,
        /// Entry name (escaped).
        name: String,
        /// File offset of the entry's 32-byte table record.
        record_offset: usize,
        /// The underlying error.
        #[source]
        source: Box<RsliError>,
    },
}

impl RsliError {
    /// Wraps `self` with the entry's index, name and record offset.
    pub fn in_entry(self, index: usize, name: &[u8]) -> Self {
        RsliError::InEntry {
            index,
            name: escape_name(name),
            record_offset: crate::header::HEADER_SIZE + index * crate::table::ENTRY_SIZE,
            source: Box::new(self),
        }
    }

    /// The innermost error, looking through [`RsliError::InEntry`] wrappers.
    pub fn root(&self) -> &RsliError {
        match self {
            RsliError::InEntry { source, .. } => source.root(),
            other => other,
        }
    }
}

/// Renders name bytes for messages: printable ASCII as is, anything else as `\xNN`.
pub fn escape_name(name: &[u8]) -> String {
    let mut s = String::with_capacity(name.len());
    for &b in name {
        if (0x20..0x7F).contains(&b) && b != b'\\' {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("\\x{b:02X}"));
        }
    }
    s
}
