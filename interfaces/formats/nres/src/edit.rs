//! `NresDocument`: the lossless editor. It keeps the header, the data region (payloads,
//! padding, gaps and unindexed bytes) and every 64-byte record as read, so an unedited
//! document writes back the input byte for byte; edits change only derived values.
//!
//! See [`NresDocument`] for what each edit necessarily changes.

use crate::error::NresError;
use crate::lookup::{build_sort_table, find_linear};
use crate::name::NameField;
use crate::options::{Diagnostic, ReadOptions};
use crate::raw::{DirEntry, ENTRY_SIZE, HEADER_SIZE, Header};
use crate::read::{Nres, padding_len};
use crate::validate::ALIGNMENT;
use crate::write::{NewEntry, NresWriter, align_up, to_u32};
use std::borrow::Cow;

/// A lossless, editable NRes archive. Every edit keeps the archive valid for the options
/// it was read with; [`NresDocument::to_bytes`] of an unedited document equals the input.
/// A failed edit changes nothing.
///
/// What each edit necessarily changes (FORMATS §2.7, tome III "Правило сохранения"):
///
/// | edit | changes |
/// |---|---|
/// | [`NresDocument::replace_payload`] | the payload; its `size`; the zero bytes after it up to the next 8-byte boundary (regenerated as 0–7 zeros so that everything after moves by a multiple of 8); `data_offset` of entries after it; `total_size`. An empty payload that sits strictly inside another payload gets its new bytes appended at the end of the data region instead (as [`NresDocument::add_entry`] does), so its `data_offset` changes |
/// | [`NresDocument::add_entry`] | appends zeros to the next 8-byte boundary, the payload and its zero padding at the end of the data region; one record; `entry_count`, `total_size`; the `sort_index` table is rebuilt |
/// | [`NresDocument::remove_entry`] | drops the payload and its zero padding (as a replace with nothing; an empty entry only loses its record), the record; `data_offset` of entries after it; `entry_count`, `total_size`; the `sort_index` table is rebuilt |
/// | [`NresDocument::rename`] | that name field (authored: `name + NUL + zero fill`, so the old tail is gone); the `sort_index` table is rebuilt |
/// | [`NresDocument::set_type_id`], [`NresDocument::set_attrs`] | those fields only |
///
/// Non-zero padding, gaps, unindexed regions, other records (attributes, name tails) and
/// the order of payloads in the file are always kept. A `sort_index` table that a
/// compatible parse found broken is kept as is until an edit rebuilds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NresDocument<'a> {
    header: Header,
    region: Cow<'a, [u8]>,
    records: Vec<DirEntry>,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> NresDocument<'a> {
    /// Reads `data` with the strict reader.
    pub fn from_bytes(data: &'a [u8]) -> Result<Self, NresError> {
        Ok(Self::from_nres(&Nres::parse(data)?))
    }

    /// Reads `data` with the given quirks (see [`NresDocument::diagnostics`]).
    pub fn from_bytes_with(data: &'a [u8], options: ReadOptions) -> Result<Self, NresError> {
        Ok(Self::from_nres(&Nres::parse_with(data, options)?))
    }

    /// A document over an already parsed archive; borrows its data region until edited.
    pub fn from_nres(nres: &Nres<'a>) -> Self {
        Self {
            header: nres.header(),
            region: Cow::Borrowed(nres.data_region()),
            records: nres.entries().map(|e| e.record()).collect(),
            diagnostics: nres.diagnostics().to_vec(),
        }
    }

    /// The same document owning all its bytes.
    pub fn into_owned(self) -> NresDocument<'static> {
        NresDocument {
            header: self.header,
            region: Cow::Owned(self.region.into_owned()),
            records: self.records,
            diagnostics: self.diagnostics,
        }
    }

    /// The archive bytes: the input itself if nothing was edited.
    pub fn to_bytes(&self) -> Vec<u8> {
        let total = self.total_size();
        let mut header = self.header;
        header.set_entry_count(u32::try_from(self.records.len()).unwrap_or(u32::MAX));
        header.set_total_size(u32::try_from(total).unwrap_or(u32::MAX));
        let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.region);
        for r in &self.records {
            out.extend_from_slice(r.as_bytes());
        }
        out
    }

    /// Canonical form (see [`Nres::repack`]): raw name fields, types and attributes kept,
    /// unindexed bytes dropped, padding and `sort_index` rebuilt.
    pub fn repack(&self) -> Result<Vec<u8>, NresError> {
        let mut w = NresWriter::new();
        for (i, r) in self.records.iter().enumerate() {
            let data = self.payload(i).unwrap_or(&[]);
            let field = NameField::from_validated(*r.name_field());
            w.push(NewEntry::with_field(field, r.type_id(), data).with_attrs(
                r.attr1(),
                r.attr2(),
                r.attr3(),
            ));
        }
        w.finish()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The header as read (count and total size are recomputed by [`Self::to_bytes`]).
    pub const fn header(&self) -> Header {
        self.header
    }

    /// The current data region (bytes between the header and the directory).
    pub fn data_region(&self) -> &[u8] {
        &self.region
    }

    /// The current directory records in original order.
    pub fn records(&self) -> &[DirEntry] {
        &self.records
    }

    /// Record `index`, if it exists.
    pub fn record(&self, index: usize) -> Option<&DirEntry> {
        self.records.get(index)
    }

    /// Payload of entry `index`, if it exists.
    pub fn payload(&self, index: usize) -> Option<&[u8]> {
        let r = self.records.get(index)?;
        let start = (r.data_offset() as usize).checked_sub(HEADER_SIZE)?;
        self.region
            .get(start..start.checked_add(r.size() as usize)?)
    }

    /// Index of the first entry (original order) whose name equals `name`
    /// ASCII-case-insensitively.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        let recs = &self.records;
        find_linear(
            recs.len(),
            |i| recs.get(i).map_or(&[][..], DirEntry::name),
            name,
        )
    }

    /// Quirks applied when the document was read.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    fn total_size(&self) -> u64 {
        (HEADER_SIZE + self.region.len()) as u64 + (self.records.len() * ENTRY_SIZE) as u64
    }

    fn check_index(&self, index: usize) -> Result<(), NresError> {
        if index < self.records.len() {
            Ok(())
        } else {
            Err(NresError::NoSuchEntry {
                index,
                len: self.records.len(),
            })
        }
    }

    fn rebuild_sort_table(&mut self) {
        let table = build_sort_table(self.records.iter().map(DirEntry::name));
        for (r, sort) in self.records.iter_mut().zip(table) {
            r.set_sort_index(sort);
        }
    }

    /// Replaces the payload of entry `index` (see the module table for what changes).
    pub fn replace_payload(&mut self, index: usize, data: &[u8]) -> Result<(), NresError> {
        self.check_index(index)?;
        let rec = self.records[index];
        let start = rec.data_offset() as usize;
        if rec.size() == 0 {
            if data.is_empty() {
                return Ok(());
            }
            if self.inside_other_payload(start) {
                // Bytes inserted here would split the other payload: append instead.
                let size = to_u32(data.len() as u64)?;
                let offset = self.append_payload(data, 0)?;
                let r = &mut self.records[index];
                r.set_data_offset(offset);
                r.set_size(size);
                return Ok(());
            }
        }
        let old_end = start + rec.size() as usize;
        let region_end = HEADER_SIZE + self.region.len();
        // The closest thing after the payload: another entry's start or the directory.
        let next = self
            .records
            .iter()
            .enumerate()
            .filter(|&(j, r)| j != index && r.data_offset() as usize >= old_end)
            .map(|(_, r)| r.data_offset() as usize)
            .fold(region_end, usize::min);
        // Region index and file offset differ by 16, a multiple of 8: same alignment.
        let pad_old = padding_len(&self.region, old_end - HEADER_SIZE, next - HEADER_SIZE);
        let span_end = old_end + pad_old;
        let new_end = start as u64 + data.len() as u64;
        // 0..=7 zeros so that new_span_end ≡ span_end (mod 8).
        let pad_new = (span_end as u64).wrapping_sub(new_end) % u64::from(ALIGNMENT);
        let new_span_end = new_end + pad_new;
        let new_total =
            self.total_size() - (span_end - start) as u64 + (new_span_end - start as u64);
        to_u32(new_total)?;
        let new_span_end = new_span_end as usize;
        let fill = std::iter::repeat_n(0u8, pad_new as usize);
        self.region.to_mut().splice(
            start - HEADER_SIZE..span_end - HEADER_SIZE,
            data.iter().copied().chain(fill),
        );
        for (j, r) in self.records.iter_mut().enumerate() {
            let off = r.data_offset() as usize;
            if j == index || off < start || (off == start && r.size() == 0) {
                continue;
            }
            let moved = if off >= span_end {
                off - span_end + new_span_end
            } else {
                // Only an empty entry strictly inside the old payload: it moves to its start.
                start
            };
            r.set_data_offset(u32::try_from(moved).unwrap_or(u32::MAX));
        }
        self.records[index].set_size(u32::try_from(data.len()).unwrap_or(u32::MAX));
        Ok(())
    }

    /// Appends a new entry; its payload goes to the end of the data region, 8-aligned,
    /// followed by zero padding. Returns its index.
    pub fn add_entry(&mut self, entry: NewEntry<'_>) -> Result<usize, NresError> {
        // Check the record (size) and the final archive size before touching anything.
        entry.record(0, 0)?;
        let offset = self.append_payload(&entry.data, 1)?;
        self.records.push(entry.record(offset, 0)?);
        self.rebuild_sort_table();
        Ok(self.records.len() - 1)
    }

    /// Whether `offset` lies strictly inside some non-empty payload.
    fn inside_other_payload(&self, offset: usize) -> bool {
        self.records.iter().any(|r| {
            let s = r.data_offset() as usize;
            s < offset && offset < s + r.size() as usize
        })
    }

    /// Appends zeros to the next 8-byte boundary, `data`, and zeros to the next boundary
    /// at the end of the data region; returns the payload offset. Checks first that the
    /// archive, with `extra_records` more records, still fits `u32`.
    fn append_payload(&mut self, data: &[u8], extra_records: usize) -> Result<u32, NresError> {
        let region_end = (HEADER_SIZE + self.region.len()) as u64;
        let start = align_up(region_end)?;
        let end = align_up(start + data.len() as u64)?;
        to_u32(end + ((self.records.len() + extra_records) * ENTRY_SIZE) as u64)?;
        let offset = to_u32(start)?;
        let region = self.region.to_mut();
        region.resize((start as usize) - HEADER_SIZE, 0);
        region.extend_from_slice(data);
        region.resize((end as usize) - HEADER_SIZE, 0);
        Ok(offset)
    }

    /// Removes entry `index` and its payload; later entries' indices drop by one.
    pub fn remove_entry(&mut self, index: usize) -> Result<(), NresError> {
        self.replace_payload(index, &[])?;
        self.records.remove(index);
        self.rebuild_sort_table();
        Ok(())
    }

    /// Gives entry `index` a newly authored name (1..=35 bytes, no NUL).
    pub fn rename(&mut self, index: usize, name: &[u8]) -> Result<(), NresError> {
        self.check_index(index)?;
        let field = NameField::new(name)?;
        self.records[index].set_name_field(field.as_bytes());
        self.rebuild_sort_table();
        Ok(())
    }

    /// Sets `type_id` of entry `index`; nothing else changes.
    pub fn set_type_id(&mut self, index: usize, type_id: u32) -> Result<(), NresError> {
        self.check_index(index)?;
        self.records[index].set_type_id(type_id);
        Ok(())
    }

    /// Sets the three opaque attributes of entry `index`; nothing else changes.
    pub fn set_attrs(
        &mut self,
        index: usize,
        attr1: u32,
        attr2: u32,
        attr3: u32,
    ) -> Result<(), NresError> {
        self.check_index(index)?;
        let r = &mut self.records[index];
        r.set_attr1(attr1);
        r.set_attr2(attr2);
        r.set_attr3(attr3);
        Ok(())
    }
}
