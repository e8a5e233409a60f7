//! The crate's one error type: every variant names the check that failed ([`Check`]), the
//! entry (index, and name when known), the byte offset in the input, and what was
//! expected versus found.

use std::fmt;

/// The named validation rules. The read checks follow the strict list of FORMATS §2.6
/// (plus `data_alignment` from tome III); the last three guard edits and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// The input holds at least the 16-byte header.
    HeaderSize,
    /// §2.6.1: `magic == "NRes"`.
    Magic,
    /// §2.6.1: `version == 0x100`.
    Version,
    /// §2.6.2: `entry_count >= 0`.
    EntryCount,
    /// §2.6.2: `entry_count * 64` does not overflow `u32`.
    DirectorySize,
    /// §2.6.3: `total_size` equals the input length.
    TotalSize,
    /// §2.6.4: `directory_offset = total_size - entry_count * 64 >= 16`.
    DirectoryOffset,
    /// §2.6.5: `data_offset >= 16`.
    DataOffset,
    /// §2.6.5: `data_offset + size <= directory_offset`.
    DataRange,
    /// Tome III ("alignment" among the strict checks), FORMATS §2.5: `data_offset % 8 == 0`.
    DataAlignment,
    /// §2.6.6: the 36-byte name field contains a NUL.
    NameNul,
    /// §2.6.6: the name is not empty (from fparkan source).
    NameEmpty,
    /// §2.6.7: every `sort_index < entry_count`.
    SortIndexRange,
    /// §2.6.7: the `sort_index` values are a permutation of `0..N`.
    SortIndexPermutation,
    /// §2.6.8: the sorted view is in non-decreasing folded order.
    SortOrder,
    /// §2.6.9: active payload ranges do not overlap.
    PayloadOverlap,
    /// A newly authored name is 1..=35 bytes without NUL.
    NewName,
    /// An edit names an entry that exists.
    EntryIndex,
    /// A written archive fits the `u32` `total_size` field.
    ArchiveSize,
    /// FORMATS §1.7: an entry read as a family carries that family's `type_id` tag
    /// (checked by [`ReadOptions::check_tag`](crate::ReadOptions::check_tag), not by
    /// the archive parse: the container does not know what its entries are).
    TypeId,
}

impl Check {
    /// Every check the reader runs, in the order it runs them.
    pub const READ_CHECKS: [Check; 16] = [
        Check::HeaderSize,
        Check::Magic,
        Check::Version,
        Check::EntryCount,
        Check::DirectorySize,
        Check::TotalSize,
        Check::DirectoryOffset,
        Check::DataOffset,
        Check::DataRange,
        Check::DataAlignment,
        Check::NameNul,
        Check::NameEmpty,
        Check::SortIndexRange,
        Check::SortIndexPermutation,
        Check::SortOrder,
        Check::PayloadOverlap,
    ];

    /// A stable `snake_case` name, used in messages and diagnostics.
    pub const fn name(self) -> &'static str {
        match self {
            Check::HeaderSize => "header_size",
            Check::Magic => "magic",
            Check::Version => "version",
            Check::EntryCount => "entry_count",
            Check::DirectorySize => "directory_size",
            Check::TotalSize => "total_size",
            Check::DirectoryOffset => "directory_offset",
            Check::DataOffset => "data_offset",
            Check::DataRange => "data_range",
            Check::DataAlignment => "data_alignment",
            Check::NameNul => "name_nul",
            Check::NameEmpty => "name_empty",
            Check::SortIndexRange => "sort_index_range",
            Check::SortIndexPermutation => "sort_index_permutation",
            Check::SortOrder => "sort_order",
            Check::PayloadOverlap => "payload_overlap",
            Check::NewName => "new_name",
            Check::EntryIndex => "entry_index",
            Check::ArchiveSize => "archive_size",
            Check::TypeId => "type_id",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which directory entry an error is about: its original index and, when the name field
/// could be read, its name value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryRef {
    /// Index in original directory order.
    pub index: usize,
    /// Name value (bytes before the NUL); `None` when the field has no NUL.
    pub name: Option<Vec<u8>>,
}

impl fmt::Display for EntryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entry #{}", self.index)?;
        if let Some(name) = &self.name {
            write!(f, " \"{}\"", name.escape_ascii())?;
        }
        Ok(())
    }
}

/// Why an authored name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameProblem {
    /// The name has no bytes.
    Empty,
    /// The name has an embedded NUL at this position.
    ContainsNul {
        /// Byte position of the first NUL.
        position: usize,
    },
    /// The name is longer than 35 bytes.
    TooLong {
        /// Its length.
        len: usize,
    },
    /// A raw 36-byte field has no NUL terminator.
    NoNulInField,
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameProblem::Empty => f.write_str("expected 1..=35 bytes, found an empty name"),
            NameProblem::ContainsNul { position } => {
                write!(f, "expected no NUL, found one at byte {position}")
            }
            NameProblem::TooLong { len } => write!(f, "expected at most 35 bytes, found {len}"),
            NameProblem::NoNulInField => f.write_str("expected a NUL within the 36-byte field"),
        }
    }
}

/// Everything that can go wrong reading, editing or writing an NRes archive.
///
/// `Display` always starts with `[check_name]`, then the entry (if any) and the byte
/// offset of the offending field in the input, then expected versus found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NresError {
    /// [`Check::HeaderSize`]: the input is shorter than the 16-byte header.
    #[error("[header_size] offset 0x0: expected at least {need} bytes, found {have}")]
    Truncated {
        /// Bytes needed.
        need: u64,
        /// Bytes present.
        have: u64,
    },
    /// [`Check::Magic`].
    #[error("[magic] offset 0x0: expected \"NRes\", found \"{}\"", found.escape_ascii())]
    BadMagic {
        /// The four bytes found.
        found: [u8; 4],
    },
    /// [`Check::Version`].
    #[error("[version] offset 0x4: expected 0x100, found {found:#x}")]
    BadVersion {
        /// The version found.
        found: u32,
    },
    /// [`Check::EntryCount`].
    #[error("[entry_count] offset 0x8: expected a count >= 0, found {found}")]
    NegativeEntryCount {
        /// The signed count found.
        found: i32,
    },
    /// [`Check::DirectorySize`].
    #[error("[directory_size] offset 0x8: {entry_count} entries x 64 bytes overflows u32")]
    DirectorySizeOverflow {
        /// The count found.
        entry_count: u32,
    },
    /// [`Check::TotalSize`].
    #[error("[total_size] offset 0xc: expected the input length {actual}, found {declared}")]
    TotalSizeMismatch {
        /// `total_size` from the header.
        declared: u32,
        /// Length of the input.
        actual: u64,
    },
    /// [`Check::DirectoryOffset`].
    #[error(
        "[directory_offset] offset 0x8: a {directory_size}-byte directory in a \
         {total_size}-byte file must start at or after byte 16"
    )]
    DirectoryOverlapsHeader {
        /// `entry_count * 64`.
        directory_size: u64,
        /// `total_size`.
        total_size: u64,
    },
    /// [`Check::DataOffset`].
    #[error(
        "[data_offset] {entry} at offset {offset:#x}: expected data_offset >= 0x10, \
         found {data_offset:#x}"
    )]
    DataOffsetInHeader {
        /// The entry.
        entry: EntryRef,
        /// Offset of its `data_offset` field.
        offset: u64,
        /// The value found.
        data_offset: u32,
    },
    /// [`Check::DataRange`] (computed in `u64`, so the add cannot overflow).
    #[error(
        "[data_range] {entry} at offset {offset:#x}: expected data_offset + size <= \
         directory_offset {directory_offset:#x}, found {data_offset:#x} + {size:#x}"
    )]
    DataPastDirectory {
        /// The entry.
        entry: EntryRef,
        /// Offset of its `size` field.
        offset: u64,
        /// Its `data_offset`.
        data_offset: u32,
        /// Its `size`.
        size: u32,
        /// Start of the directory.
        directory_offset: u64,
    },
    /// [`Check::DataAlignment`].
    #[error(
        "[data_alignment] {entry} at offset {offset:#x}: expected a multiple of 8, \
         found data_offset {data_offset:#x}"
    )]
    MisalignedDataOffset {
        /// The entry.
        entry: EntryRef,
        /// Offset of its `data_offset` field.
        offset: u64,
        /// The value found.
        data_offset: u32,
    },
    /// [`Check::NameNul`].
    #[error(
        "[name_nul] {entry} at offset {offset:#x}: expected a NUL within the 36-byte name field"
    )]
    NameWithoutNul {
        /// The entry (name unknown).
        entry: EntryRef,
        /// Offset of its name field.
        offset: u64,
    },
    /// [`Check::NameEmpty`].
    #[error("[name_empty] {entry} at offset {offset:#x}: expected a non-empty name")]
    EmptyName {
        /// The entry.
        entry: EntryRef,
        /// Offset of its name field.
        offset: u64,
    },
    /// [`Check::SortIndexRange`].
    #[error(
        "[sort_index_range] {entry} at offset {offset:#x}: expected sort_index < \
         {entry_count}, found {value}"
    )]
    SortIndexOutOfRange {
        /// The directory slot holding the value.
        entry: EntryRef,
        /// Offset of its `sort_index` field.
        offset: u64,
        /// The value found.
        value: u32,
        /// Number of entries.
        entry_count: u32,
    },
    /// [`Check::SortIndexPermutation`].
    #[error(
        "[sort_index_permutation] {entry} at offset {offset:#x}: expected a permutation \
         of 0..{entry_count}, found {value} again (first at entry #{first})"
    )]
    SortIndexDuplicate {
        /// The directory slot holding the repeated value.
        entry: EntryRef,
        /// Offset of its `sort_index` field.
        offset: u64,
        /// The repeated value.
        value: u32,
        /// The earlier slot holding the same value.
        first: usize,
        /// Number of entries.
        entry_count: u32,
    },
    /// [`Check::SortOrder`].
    #[error(
        "[sort_order] {entry} at offset {offset:#x}: expected rank {rank} ({current}) \
         to sort at or after rank {} ({previous})", rank - 1
    )]
    SortOrder {
        /// The directory slot `rank` whose `sort_index` is out of order.
        entry: EntryRef,
        /// Offset of its `sort_index` field.
        offset: u64,
        /// The sorted rank `k` (>= 1).
        rank: usize,
        /// The entry named by rank `k - 1`.
        previous: EntryRef,
        /// The entry named by rank `k`.
        current: EntryRef,
    },
    /// [`Check::PayloadOverlap`].
    #[error(
        "[payload_overlap] {entry} at offset {offset:#x}: expected no overlap, found \
         {start:#x}..{end:#x} inside {other} ({other_start:#x}..{other_end:#x})"
    )]
    PayloadOverlap {
        /// The entry whose payload starts later.
        entry: EntryRef,
        /// Offset of its `data_offset` field.
        offset: u64,
        /// Its payload start.
        start: u64,
        /// Its payload end.
        end: u64,
        /// The entry it overlaps.
        other: EntryRef,
        /// That entry's payload start.
        other_start: u64,
        /// That entry's payload end.
        other_end: u64,
    },
    /// [`Check::NewName`].
    #[error("[new_name] name \"{}\": {problem}", name.escape_ascii())]
    InvalidName {
        /// The refused name (or raw field).
        name: Vec<u8>,
        /// Why.
        problem: NameProblem,
    },
    /// [`Check::EntryIndex`].
    #[error("[entry_index] expected an index below {len}, found {index}")]
    NoSuchEntry {
        /// The index asked for.
        index: usize,
        /// Number of entries.
        len: usize,
    },
    /// [`Check::ArchiveSize`].
    #[error("[archive_size] expected at most 4294967295 bytes, the archive would be {size}")]
    ArchiveTooLarge {
        /// The size the archive would have.
        size: u64,
    },
    /// [`Check::TypeId`].
    #[error("[type_id] {entry}: expected {expected}, found {found}")]
    TypeTag {
        /// The entry.
        entry: EntryRef,
        /// The tag of the family it was read as.
        expected: crate::TypeTag,
        /// The tag it carries.
        found: crate::TypeTag,
    },
}

impl NresError {
    /// The check that failed.
    pub fn check(&self) -> Check {
        match self {
            NresError::Truncated { .. } => Check::HeaderSize,
            NresError::BadMagic { .. } => Check::Magic,
            NresError::BadVersion { .. } => Check::Version,
            NresError::NegativeEntryCount { .. } => Check::EntryCount,
            NresError::DirectorySizeOverflow { .. } => Check::DirectorySize,
            NresError::TotalSizeMismatch { .. } => Check::TotalSize,
            NresError::DirectoryOverlapsHeader { .. } => Check::DirectoryOffset,
            NresError::DataOffsetInHeader { .. } => Check::DataOffset,
            NresError::DataPastDirectory { .. } => Check::DataRange,
            NresError::MisalignedDataOffset { .. } => Check::DataAlignment,
            NresError::NameWithoutNul { .. } => Check::NameNul,
            NresError::EmptyName { .. } => Check::NameEmpty,
            NresError::SortIndexOutOfRange { .. } => Check::SortIndexRange,
            NresError::SortIndexDuplicate { .. } => Check::SortIndexPermutation,
            NresError::SortOrder { .. } => Check::SortOrder,
            NresError::PayloadOverlap { .. } => Check::PayloadOverlap,
            NresError::InvalidName { .. } => Check::NewName,
            NresError::NoSuchEntry { .. } => Check::EntryIndex,
            NresError::ArchiveTooLarge { .. } => Check::ArchiveSize,
            NresError::TypeTag { .. } => Check::TypeId,
        }
    }

    /// Byte offset in the input of the field that failed, for read errors.
    pub fn offset(&self) -> Option<u64> {
        match self {
            NresError::Truncated { .. } | NresError::BadMagic { .. } => Some(0),
            NresError::BadVersion { .. } => Some(4),
            NresError::NegativeEntryCount { .. }
            | NresError::DirectorySizeOverflow { .. }
            | NresError::DirectoryOverlapsHeader { .. } => Some(8),
            NresError::TotalSizeMismatch { .. } => Some(12),
            NresError::DataOffsetInHeader { offset, .. }
            | NresError::DataPastDirectory { offset, .. }
            | NresError::MisalignedDataOffset { offset, .. }
            | NresError::NameWithoutNul { offset, .. }
            | NresError::EmptyName { offset, .. }
            | NresError::SortIndexOutOfRange { offset, .. }
            | NresError::SortIndexDuplicate { offset, .. }
            | NresError::SortOrder { offset, .. }
            | NresError::PayloadOverlap { offset, .. } => Some(*offset),
            NresError::InvalidName { .. }
            | NresError::NoSuchEntry { .. }
            | NresError::ArchiveTooLarge { .. }
            | NresError::TypeTag { .. } => None,
        }
    }

    /// The directory entry the error is about, if any.
    pub fn entry(&self) -> Option<&EntryRef> {
        match self {
            NresError::DataOffsetInHeader { entry, .. }
            | NresError::DataPastDirectory { entry, .. }
            | NresError::MisalignedDataOffset { entry, .. }
            | NresError::NameWithoutNul { entry, .. }
            | NresError::EmptyName { entry, .. }
            | NresError::SortIndexOutOfRange { entry, .. }
            | NresError::SortIndexDuplicate { entry, .. }
            | NresError::SortOrder { entry, .. }
            | NresError::PayloadOverlap { entry, .. }
            | NresError::TypeTag { entry, .. } => Some(entry),
            _ => None,
        }
    }
}
