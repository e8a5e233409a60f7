//! The canonical writer (FORMATS §2.8): header, payloads in entry order each padded with
//! zeros to 8 bytes, then the directory with a rebuilt `sort_index` table; and `repack`,
//! which turns any parsed archive into that form.

use crate::error::NresError;
use crate::lookup::build_sort_table;
use crate::name::NameField;
use crate::raw::{DirEntry, ENTRY_SIZE, HEADER_SIZE, Header};
use crate::read::Nres;
use crate::validate::ALIGNMENT;
use crate::view::EntryView;
use std::borrow::Cow;

/// One entry for [`NresWriter`]: name field, type, the three opaque attributes, payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewEntry<'d> {
    name: NameField,
    /// Resource kind (`+0x00`).
    pub type_id: u32,
    /// Opaque attribute 1 (`+0x04`), written as given.
    pub attr1: u32,
    /// Opaque attribute 2 (`+0x08`), written as given.
    pub attr2: u32,
    /// Opaque attribute 3 (`+0x10`), written as given.
    pub attr3: u32,
    /// Payload bytes.
    pub data: Cow<'d, [u8]>,
}

impl<'d> NewEntry<'d> {
    /// A new entry with an authored name (1..=35 bytes, no NUL; stored as
    /// `name + NUL + zero fill`) and zero attributes.
    pub fn new(
        name: &[u8],
        type_id: u32,
        data: impl Into<Cow<'d, [u8]>>,
    ) -> Result<Self, NresError> {
        Ok(Self::with_field(NameField::new(name)?, type_id, data))
    }

    /// A new entry whose `type_id` is its family's tag ([`Family::infer_tag`]: by the
    /// name's extension, then by payload magic; `0` when no family fits, rule
    /// PD-TAG-UNTYPED), with zero attributes. What every authoring path should use unless
    /// it knows the family better (MAT0 and FXID entries have neither extension nor
    /// magic: give them [`TypeTag::MAT0`] / [`TypeTag::FXID`] through [`NewEntry::new`]).
    ///
    /// [`Family::infer_tag`]: crate::Family::infer_tag
    /// [`TypeTag::MAT0`]: crate::TypeTag::MAT0
    /// [`TypeTag::FXID`]: crate::TypeTag::FXID
    pub fn tagged(name: &[u8], data: impl Into<Cow<'d, [u8]>>) -> Result<Self, NresError> {
        let data = data.into();
        let tag = crate::Family::infer_tag(name, &data);
        Self::new(name, tag.value(), data)
    }

    /// A new entry with an existing name field (tail kept) and zero attributes.
    pub fn with_field(name: NameField, type_id: u32, data: impl Into<Cow<'d, [u8]>>) -> Self {
        Self {
            name,
            type_id,
            attr1: 0,
            attr2: 0,
            attr3: 0,
            data: data.into(),
        }
    }

    /// The same entry with the three attributes set.
    #[must_use]
    pub fn with_attrs(mut self, attr1: u32, attr2: u32, attr3: u32) -> Self {
        (self.attr1, self.attr2, self.attr3) = (attr1, attr2, attr3);
        self
    }

    /// Copies type, attributes and the raw 36-byte name field (tail included) of a parsed
    /// entry, borrowing its payload.
    pub fn from_view(view: &EntryView<'d>) -> Self {
        let rec = view.record();
        Self {
            // The reader already checked this field: it holds a NUL and a non-empty value.
            name: NameField::from_validated(*view.name_field()),
            type_id: rec.type_id(),
            attr1: rec.attr1(),
            attr2: rec.attr2(),
            attr3: rec.attr3(),
            data: Cow::Borrowed(view.data()),
        }
    }

    /// The name field that will be written.
    pub const fn name_field(&self) -> &NameField {
        &self.name
    }

    /// The name value.
    pub fn name(&self) -> &[u8] {
        self.name.value()
    }

    /// Replaces the name with an authored one (`name + NUL + zero fill`).
    pub fn set_name(&mut self, name: &[u8]) -> Result<(), NresError> {
        self.name = NameField::new(name)?;
        Ok(())
    }

    /// The directory record for this entry at `data_offset` with `sort_index`.
    pub(crate) fn record(&self, data_offset: u32, sort_index: u32) -> Result<DirEntry, NresError> {
        let mut r = DirEntry::from_bytes([0; ENTRY_SIZE]);
        r.set_type_id(self.type_id);
        r.set_attr1(self.attr1);
        r.set_attr2(self.attr2);
        r.set_size(to_u32(self.data.len() as u64)?);
        r.set_attr3(self.attr3);
        r.set_name_field(self.name.as_bytes());
        r.set_data_offset(data_offset);
        r.set_sort_index(sort_index);
        Ok(r)
    }
}

/// Converts a size to `u32` or reports [`NresError::ArchiveTooLarge`].
pub(crate) fn to_u32(size: u64) -> Result<u32, NresError> {
    u32::try_from(size).map_err(|_| NresError::ArchiveTooLarge { size })
}

/// Rounds up to the next multiple of 8 (checked).
pub(crate) fn align_up(pos: u64) -> Result<u64, NresError> {
    pos.checked_next_multiple_of(u64::from(ALIGNMENT))
        .ok_or(NresError::ArchiveTooLarge { size: pos })
}

/// Builds a canonical archive. The output always passes the strict reader.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NresWriter<'d> {
    entries: Vec<NewEntry<'d>>,
}

impl<'d> NresWriter<'d> {
    /// An empty archive.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends an entry (directory order = push order; duplicate names are allowed and
    /// keep their relative order in the sort table).
    pub fn push(&mut self, entry: NewEntry<'d>) -> &mut Self {
        self.entries.push(entry);
        self
    }

    /// The entries so far.
    pub fn entries(&self) -> &[NewEntry<'d>] {
        &self.entries
    }

    /// Mutable access to the entries so far.
    pub fn entries_mut(&mut self) -> &mut Vec<NewEntry<'d>> {
        &mut self.entries
    }

    /// Writes the archive. Phase one computes every offset with checked arithmetic (the
    /// result must fit `u32`), phase two emits in the same order.
    pub fn finish(&self) -> Result<Vec<u8>, NresError> {
        let mut offsets = Vec::with_capacity(self.entries.len());
        let mut pos = HEADER_SIZE as u64;
        for e in &self.entries {
            offsets.push(to_u32(pos)?);
            pos = align_up(pos + e.data.len() as u64)?;
        }
        let directory_offset = pos;
        let total = (self.entries.len() as u64)
            .checked_mul(ENTRY_SIZE as u64)
            .and_then(|d| d.checked_add(directory_offset))
            .ok_or(NresError::ArchiveTooLarge { size: u64::MAX })?;
        let total = to_u32(total)?;
        let count = to_u32(self.entries.len() as u64)?;
        let table = build_sort_table(self.entries.iter().map(NewEntry::name));

        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(Header::new(count, total).as_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.data);
            out.resize(out.len().next_multiple_of(ALIGNMENT as usize), 0);
        }
        for ((e, off), sort) in self.entries.iter().zip(offsets).zip(table) {
            out.extend_from_slice(e.record(off, sort)?.as_bytes());
        }
        debug_assert_eq!(out.len(), total as usize);
        Ok(out)
    }
}

impl<'a> Nres<'a> {
    /// Canonical form of this archive: same entries in the same order (types, attributes,
    /// raw name fields kept), payloads packed with zero padding to 8, unindexed regions
    /// dropped, `sort_index` rebuilt. An explicit operation, never a side effect.
    pub fn repack(&self) -> Result<Vec<u8>, NresError> {
        let mut w = NresWriter::new();
        for e in self.entries() {
            w.push(NewEntry::from_view(&e));
        }
        w.finish()
    }
}
