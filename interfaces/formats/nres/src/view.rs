//! `EntryView`: a zero-copy view of one validated directory entry and its payload.

use crate::name::field_value;
use crate::raw::{DirEntry, ENTRY_SIZE, NAME_FIELD_SIZE};
use std::ops::Range;

/// One directory entry of a validated archive, borrowing the input.
///
/// Only [`crate::Nres`] hands these out, after every strict check (or a named quirk) has
/// passed; so [`EntryView::data`] is always the exact, in-bounds payload slice and the name
/// field always holds a NUL.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EntryView<'a> {
    index: usize,
    record: &'a [u8; ENTRY_SIZE],
    data: &'a [u8],
}

impl<'a> EntryView<'a> {
    pub(crate) fn new(index: usize, record: &'a [u8; ENTRY_SIZE], data: &'a [u8]) -> Self {
        Self {
            index,
            record,
            data,
        }
    }

    /// Index in original directory order.
    pub const fn index(&self) -> usize {
        self.index
    }

    /// The 64-byte directory record exactly as stored.
    pub const fn raw_record(&self) -> &'a [u8; ENTRY_SIZE] {
        self.record
    }

    /// A copy of the record with typed accessors and setters.
    pub fn record(&self) -> DirEntry {
        DirEntry::from_bytes(*self.record)
    }

    /// `+0x00`: resource kind (often a four-character tag, FORMATS §1.7).
    pub fn type_id(&self) -> u32 {
        self.record().type_id()
    }

    /// `+0x04`: opaque attribute 1 (meaning depends on `type_id`).
    pub fn attr1(&self) -> u32 {
        self.record().attr1()
    }

    /// `+0x08`: opaque attribute 2.
    pub fn attr2(&self) -> u32 {
        self.record().attr2()
    }

    /// `+0x10`: opaque attribute 3.
    pub fn attr3(&self) -> u32 {
        self.record().attr3()
    }

    /// `+0x0C`: payload length; equals `data().len()`.
    pub fn size(&self) -> u32 {
        self.record().size()
    }

    /// `+0x38`: absolute payload offset in the archive.
    pub fn data_offset(&self) -> u32 {
        self.record().data_offset()
    }

    /// `+0x3C`: the sort table value stored in this slot (the original index of the entry
    /// whose name has rank [`EntryView::index`]); not this entry's own rank.
    pub fn sort_index(&self) -> u32 {
        self.record().sort_index()
    }

    /// `+0x14`: the whole 36-byte name field, tail after the NUL included.
    pub fn name_field(&self) -> &'a [u8; NAME_FIELD_SIZE] {
        const NONE: [u8; NAME_FIELD_SIZE] = [0; NAME_FIELD_SIZE];
        self.record[crate::raw::entry_off::NAME..]
            .first_chunk::<NAME_FIELD_SIZE>()
            .unwrap_or(&NONE)
    }

    /// The name value: the field's bytes before the NUL (1..=35 bytes, raw, not folded).
    pub fn name(&self) -> &'a [u8] {
        field_value(self.name_field())
    }

    /// The field's bytes after the NUL (preserved data; usually zeros).
    pub fn name_tail(&self) -> &'a [u8] {
        let len = self.name().len();
        self.name_field().get(len + 1..).unwrap_or(&[])
    }

    /// The payload, borrowed from the input.
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The payload's byte range in the archive.
    pub fn data_range(&self) -> Range<usize> {
        let start = self.data_offset() as usize;
        start..start + self.data.len()
    }
}

impl std::fmt::Debug for EntryView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryView")
            .field("index", &self.index)
            .field("record", &self.record())
            .finish_non_exhaustive()
    }
}
