//! `Nres`: a validated, zero-copy archive over `&[u8]`, with entry iteration, name lookup
//! and an account of the bytes no entry addresses.

use crate::error::NresError;
use crate::lookup::{LookupMode, find_linear, find_sorted};
use crate::options::{Diagnostic, ReadOptions};
use crate::raw::{DirEntry, HEADER_SIZE, Header};
use crate::validate::{ALIGNMENT, record, validate};
use crate::view::EntryView;
use std::ops::Range;

/// A parsed NRes archive borrowing its input.
///
/// Construction runs the whole strict list (or the strict list with the named quirks of
/// [`ReadOptions`]); afterwards every accessor is infallible and no payload is copied.
#[derive(Clone, Debug)]
pub struct Nres<'a> {
    data: &'a [u8],
    header: Header,
    count: usize,
    directory_offset: usize,
    lookup: LookupMode,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Nres<'a> {
    /// Strict parse: `Ok` only if every check of the strict list passes.
    pub fn parse(data: &'a [u8]) -> Result<Self, NresError> {
        Self::parse_with(data, ReadOptions::strict())
    }

    /// Parse with the given quirks; every quirk applied is reported in
    /// [`Nres::diagnostics`], never silently.
    pub fn parse_with(data: &'a [u8], options: ReadOptions) -> Result<Self, NresError> {
        let v = validate(data, options)?;
        Ok(Self {
            data,
            header: v.header,
            count: v.count,
            directory_offset: v.directory_offset,
            lookup: v.lookup,
            diagnostics: v.diagnostics,
        })
    }

    /// The whole input.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// The 16-byte header as stored.
    pub const fn header(&self) -> Header {
        self.header
    }

    /// Number of directory entries.
    pub const fn len(&self) -> usize {
        self.count
    }

    /// Whether the archive has no entries.
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Absolute offset of the directory (`total_size - 64 * len`).
    pub const fn directory_offset(&self) -> usize {
        self.directory_offset
    }

    /// The data region `[16, directory_offset)`: payloads, padding and unindexed bytes.
    pub fn data_region(&self) -> &'a [u8] {
        self.data
            .get(HEADER_SIZE..self.directory_offset)
            .unwrap_or(&[])
    }

    /// The directory bytes (`64 * len`, original order).
    pub fn directory(&self) -> &'a [u8] {
        self.data.get(self.directory_offset..).unwrap_or(&[])
    }

    /// Entry `index` in original order, or `None` past the end.
    pub fn entry(&self, index: usize) -> Option<EntryView<'a>> {
        entry_at(self.data, self.directory(), index)
    }

    /// All entries in original directory order.
    pub fn entries(&self) -> Entries<'a> {
        Entries {
            data: self.data,
            dir: self.directory(),
            next: 0..self.count,
        }
    }

    /// Finds `name` ASCII-case-insensitively and returns the original entry: by binary
    /// search through `sort_index`, or by linear scan when [`Nres::lookup_mode`] is
    /// [`LookupMode::Linear`]. With duplicate names the lowest original index wins.
    pub fn find(&self, name: &[u8]) -> Option<EntryView<'a>> {
        let dir = self.directory();
        let name_of = |i: usize| record(dir, i).map_or(&[][..], |r| rec_name(r));
        let index = match self.lookup {
            LookupMode::SortTable => {
                let original = |k: usize| {
                    record(dir, k).map_or(usize::MAX, |r| {
                        DirEntry::from_bytes(*r).sort_index() as usize
                    })
                };
                find_sorted(self.count, original, name_of, name)
            }
            LookupMode::Linear => find_linear(self.count, name_of, name),
        }?;
        self.entry(index)
    }

    /// How [`Nres::find`] searches this archive.
    pub const fn lookup_mode(&self) -> LookupMode {
        self.lookup
    }

    /// Quirks applied during a compatible parse, one per tolerated failure; empty after a
    /// strict parse.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Every byte range of the data region that no non-empty payload covers, in file order,
    /// classified as [`GapKind::Padding`] or [`GapKind::Unindexed`].
    pub fn gaps(&self) -> Vec<Gap> {
        let mut active: Vec<Range<usize>> = self
            .entries()
            .map(|e| e.data_range())
            .filter(|r| !r.is_empty())
            .collect();
        active.sort_unstable_by_key(|r| r.start);
        let mut gaps = Vec::new();
        let mut pos = HEADER_SIZE;
        let mut after_payload = false;
        let end = self.directory_offset;
        for r in active.into_iter().chain(std::iter::once(end..end)) {
            if r.start > pos {
                let pad = if after_payload {
                    padding_len(self.data, pos, r.start)
                } else {
                    0
                };
                if pad > 0 {
                    gaps.push(Gap {
                        range: pos..pos + pad,
                        kind: GapKind::Padding,
                    });
                }
                if pos + pad < r.start {
                    gaps.push(Gap {
                        range: pos + pad..r.start,
                        kind: GapKind::Unindexed,
                    });
                }
            }
            pos = r.end;
            after_payload = true;
        }
        gaps
    }
}

/// The zero bytes right after a payload ending at `end`, up to the next 8-byte boundary
/// but not past `limit`: the canonical padding that an edit may regenerate.
pub(crate) fn padding_len(bytes: &[u8], end: usize, limit: usize) -> usize {
    let boundary = end.next_multiple_of(ALIGNMENT as usize).min(limit);
    bytes
        .get(end..boundary)
        .map_or(0, |b| b.iter().take_while(|&&x| x == 0).count())
}

fn rec_name(r: &[u8; crate::raw::ENTRY_SIZE]) -> &[u8] {
    r.get(crate::raw::entry_off::NAME..)
        .and_then(|s| s.first_chunk::<{ crate::raw::NAME_FIELD_SIZE }>())
        .map_or(&[][..], crate::name::field_value)
}

fn entry_at<'a>(data: &'a [u8], dir: &'a [u8], index: usize) -> Option<EntryView<'a>> {
    let rec = record(dir, index)?;
    let r = DirEntry::from_bytes(*rec);
    let start = r.data_offset() as usize;
    let payload = data.get(start..start.checked_add(r.size() as usize)?)?;
    Some(EntryView::new(index, rec, payload))
}

/// Iterator over the entries of an [`Nres`] in original order.
#[derive(Clone, Debug)]
pub struct Entries<'a> {
    data: &'a [u8],
    dir: &'a [u8],
    next: Range<usize>,
}

impl<'a> Iterator for Entries<'a> {
    type Item = EntryView<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next.next()?;
        entry_at(self.data, self.dir, i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.next.size_hint()
    }
}

impl DoubleEndedIterator for Entries<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.next.next_back()?;
        entry_at(self.data, self.dir, i)
    }
}

impl ExactSizeIterator for Entries<'_> {}

/// A byte range of the data region that belongs to no payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Gap {
    /// Absolute byte range in the archive.
    pub range: Range<usize>,
    /// What the bytes are.
    pub kind: GapKind,
}

/// Classification of a [`Gap`] (tome III, "Неплотная data region").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GapKind {
    /// Zero bytes directly after a payload, up to the next 8-byte boundary.
    Padding,
    /// Any other unaddressed bytes (may be non-zero); kept byte for byte by the editor.
    Unindexed,
}
