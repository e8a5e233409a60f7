//! The strict reader: [`Rsli::parse`] checks everything of FORMATS.md §3.9 before any
//! entry is handed out, then serves borrowed [`Entry`] views, lookup and decoding, and
//! rewrites the archive losslessly with [`Rsli::to_bytes`].
//!
//! ```text
//! [Header 32][entry table N*32, transformed][body: payloads, gaps][optional "AO" u32]
//!  raw bytes  decoded records, re-encoded     kept as read          kept as read
//!             with the header seed on write
//! ```

use crate::codec;
use crate::error::{RsliError, escape_name};
use crate::header::{HEADER_SIZE, Header, TRAILER_MAGIC, Trailer, find_trailer};
use crate::method::Method;
use crate::options::{Quirk, ReadOptions};
use crate::sort::{self, SortSource};
use crate::table::{self, ENTRY_SIZE, EntryRecord, NAME_SIZE};

/// The only name the `deflate_eof_plus_one` quirk applies to.
const EOF_PLUS_ONE_NAME: &[u8] = b"INTERF8.TEX";

/// A parsed, fully validated RsLi archive borrowing the file bytes.
#[derive(Debug, Clone)]
pub struct Rsli<'d> {
    data: &'d [u8],
    header: Header,
    records: Vec<EntryRecord>,
    entries: Vec<Entry<'d>>,
    order: Vec<u16>,
    sort_source: SortSource,
    trailer: Option<Trailer>,
    table_end: usize,
    options: ReadOptions,
}

/// One entry of a parsed archive: its decoded table record plus the validated payload
/// range. Cheap to clone; the payload is borrowed from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'d> {
    index: usize,
    record: EntryRecord,
    method: Method,
    offset: usize,
    packed: &'d [u8],
    key: u16,
    quirk: Option<Quirk>,
}

impl<'d> Rsli<'d> {
    /// Parses `data` strictly (no quirk accepted). See [`Rsli::parse_with`].
    pub fn parse(data: &'d [u8]) -> Result<Self, RsliError> {
        Self::parse_with(data, ReadOptions::strict())
    }

    /// Parses `data`, accepting only the quirks named in `options`. On success every
    /// check of §3.9 except the decoded size (checked by [`Entry::decode`]) has passed:
    /// header fields, table bounds, `AO` trailer range, presorted permutation and order,
    /// known methods, payload ranges inside the file, stored sizes. Allocation is
    /// bounded by the entry count, itself bounded by the file length.
    pub fn parse_with(data: &'d [u8], options: ReadOptions) -> Result<Self, RsliError> {
        let header = Header::parse(data)?;
        let count = header.entry_count();
        // count <= 32767: no overflow.
        let table_end = HEADER_SIZE + count * ENTRY_SIZE;
        if table_end > data.len() {
            return Err(RsliError::TableTruncated {
                count,
                table_end,
                file_len: data.len(),
            });
        }
        let records = table::decode_table(data, count, header.table_key());
        let trailer = find_trailer(data, table_end)?;
        let overlay = trailer.map_or(0, |t| t.overlay);

        let (order, sort_source) = if header.is_presorted() {
            match sort::validate_presorted(&records) {
                Ok(order) => (order, SortSource::Presorted),
                Err(_) if options.allows(Quirk::SortTableLinearLookup) => {
                    (Vec::new(), SortSource::Linear)
                }
                Err(e) => return Err(e),
            }
        } else {
            (
                sort::build_order(records.iter().map(EntryRecord::name)),
                SortSource::Rebuilt,
            )
        };

        let mut entries = Vec::with_capacity(count);
        for (index, record) in records.iter().enumerate() {
            let key = match sort_source {
                SortSource::Rebuilt => order[index],
                // The stored field's 16-bit pattern.
                SortSource::Presorted | SortSource::Linear => record.sort_field() as u16,
            };
            let entry = check_entry(data, index, record, overlay, key, options)
                .map_err(|e| e.in_entry(index, record.name()))?;
            entries.push(entry);
        }
        Ok(Rsli {
            data,
            header,
            records,
            entries,
            order,
            sort_source,
            trailer,
            table_end,
            options,
        })
    }

    /// The header as read.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every entry, in original table order (`entries()[i].index() == i`).
    pub fn entries(&self) -> &[Entry<'d>] {
        &self.entries
    }

    /// The entry at original index `index`.
    pub fn entry(&self, index: usize) -> Option<&Entry<'d>> {
        self.entries.get(index)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks `name` up as the original does (§3.7): upper-case ASCII, a 12-byte key,
    /// an unsigned byte compare against the stored names (which are not folded).
    /// Among equal names the lowest original index wins. `None` for a query longer than
    /// 12 bytes or containing NUL.
    pub fn find(&self, name: &str) -> Option<&Entry<'d>> {
        self.find_bytes(name.as_bytes())
    }

    /// [`Rsli::find`] for a byte-string query (CP1251 bytes compare as they are).
    pub fn find_bytes(&self, name: &[u8]) -> Option<&Entry<'d>> {
        let (key, len) = sort::query_key(name)?;
        let key = &key[..len];
        let index = match self.sort_source {
            SortSource::Presorted | SortSource::Rebuilt => {
                sort::binary_search(&self.records, &self.order, key)
            }
            SortSource::Linear => sort::linear_search(&self.records, key),
        }?;
        self.entries.get(index)
    }

    /// Decodes `entry` (see [`Entry::decode`]).
    pub fn decode(&self, entry: &Entry<'_>) -> Result<Vec<u8>, RsliError> {
        entry.decode()
    }

    /// Sorted position -> original index, as used by lookup; empty when lookups are
    /// linear ([`SortSource::Linear`]).
    pub fn sort_order(&self) -> &[u16] {
        &self.order
    }

    /// Where the lookup order came from.
    pub fn sort_source(&self) -> SortSource {
        self.sort_source
    }

    /// The `AO` trailer, when the file has one.
    pub fn trailer(&self) -> Option<Trailer> {
        self.trailer
    }

    /// The overlay added to every `data_offset_raw` (0 without a trailer).
    pub fn overlay(&self) -> u32 {
        self.trailer.map_or(0, |t| t.overlay)
    }

    /// File offset where the entry table ends and the body begins.
    pub fn table_end(&self) -> usize {
        self.table_end
    }

    /// The options the archive was read with.
    pub fn options(&self) -> ReadOptions {
        self.options
    }

    /// The whole file as given to `parse`.
    pub fn data(&self) -> &'d [u8] {
        self.data
    }

    /// Rewrites the archive from its parts: the header as read, the decoded table
    /// re-encoded with the header seed, the body (payloads, gaps, unindexed bytes) and
    /// the trailer as read. Equal to the parsed input byte for byte.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.data.len());
        out.extend_from_slice(self.header.raw());
        out.extend_from_slice(&table::encode_table(&self.records, self.header.table_key()));
        let body_end = self.trailer.map_or(self.data.len(), |t| t.offset);
        out.extend_from_slice(self.data.get(self.table_end..body_end).unwrap_or_default());
        if let Some(t) = self.trailer {
            out.extend_from_slice(&TRAILER_MAGIC);
            out.extend_from_slice(&t.overlay.to_le_bytes());
        }
        out
    }
}

/// Per-entry checks (§3.9 checks 4, 5 and the stored-size half of 6).
fn check_entry<'d>(
    data: &'d [u8],
    index: usize,
    record: &EntryRecord,
    overlay: u32,
    key: u16,
    options: ReadOptions,
) -> Result<Entry<'d>, RsliError> {
    let flags = record.flags();
    let method = Method::from_flags(flags).ok_or(RsliError::UnknownMethod {
        flags,
        method: flags & crate::method::METHOD_MASK,
    })?;
    let start = u64::from(record.data_offset_raw()) + u64::from(overlay);
    let end = start + u64::from(record.packed_size());
    let file_len = data.len() as u64;
    let mut quirk = None;
    let mut packed_end = end;
    if end > file_len {
        let eof_plus_one = method == Method::Deflate
            && end == file_len + 1
            && record.packed_size() >= 1
            && record.name().to_ascii_uppercase() == EOF_PLUS_ONE_NAME;
        if !eof_plus_one {
            return Err(RsliError::PayloadOutOfRange {
                start,
                end,
                file_len: data.len(),
            });
        }
        if !options.allows(Quirk::DeflateEofPlusOne) {
            return Err(RsliError::QuirkRequired {
                quirk: Quirk::DeflateEofPlusOne,
            });
        }
        quirk = Some(Quirk::DeflateEofPlusOne);
        packed_end = file_len;
    }
    if method.is_stored() && record.packed_size() != record.unpacked_size() {
        return Err(RsliError::StoredSizeMismatch {
            method,
            packed: record.packed_size(),
            unpacked: record.unpacked_size(),
        });
    }
    // start <= packed_end <= file_len, both fit usize.
    let (offset, packed_end) = (start as usize, packed_end as usize);
    let packed = data
        .get(offset..packed_end)
        .ok_or(RsliError::PayloadOutOfRange {
            start,
            end,
            file_len: data.len(),
        })?;
    Ok(Entry {
        index,
        record: *record,
        method,
        offset,
        packed,
        key,
        quirk,
    })
}

impl<'d> Entry<'d> {
    /// Original table index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name: the 12-byte field up to its first NUL (all 12 bytes without one).
    pub fn name(&self) -> &[u8] {
        self.record.name()
    }

    /// The name for display: printable ASCII as is, other bytes as `\xNN`.
    pub fn display_name(&self) -> String {
        escape_name(self.name())
    }

    /// The whole name field, bytes after the NUL included.
    pub fn name_field(&self) -> &[u8; NAME_SIZE] {
        self.record.name_field()
    }

    /// The opaque `service` bytes at +0x0C.
    pub fn service(&self) -> [u8; 4] {
        self.record.service()
    }

    /// The whole flags field (method bits and the preserved rest).
    pub fn flags(&self) -> u16 {
        self.record.flags()
    }

    /// The storage method (`flags & 0x1E0`), known to be valid.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The stored `sort_to_original` field.
    pub fn sort_field(&self) -> i16 {
        self.record.sort_field()
    }

    /// The declared decoded size.
    pub fn unpacked_size(&self) -> u32 {
        self.record.unpacked_size()
    }

    /// The declared packed size as stored (for an entry read under a quirk, the bytes
    /// actually available are [`Entry::packed_data`]).
    pub fn packed_size(&self) -> u32 {
        self.record.packed_size()
    }

    /// The stored offset, before the overlay.
    pub fn data_offset_raw(&self) -> u32 {
        self.record.data_offset_raw()
    }

    /// The effective file offset of the payload (`data_offset_raw + overlay`).
    pub fn data_offset(&self) -> usize {
        self.offset
    }

    /// The packed bytes handed to the decoder, inside the file.
    pub fn packed_data(&self) -> &'d [u8] {
        self.packed
    }

    /// The payload without a copy, for a raw (`0x000`) entry; `None` otherwise.
    pub fn raw_data(&self) -> Option<&'d [u8]> {
        (self.method == Method::Raw).then_some(self.packed)
    }

    /// The key of the payload transform (methods 0x020/0x060/0x0A0): the stored sort
    /// field of a presorted archive, or the rebuilt mapping value at this slot.
    pub fn transform_key(&self) -> u16 {
        self.key
    }

    /// The quirk this entry was accepted under, if any.
    pub fn quirk(&self) -> Option<Quirk> {
        self.quirk
    }

    /// The decoded 32-byte table record.
    pub fn record(&self) -> &EntryRecord {
        &self.record
    }

    /// Decodes the payload: exactly `unpacked_size` bytes, or an error naming this entry
    /// (§3.9 check 6). Never panics; see [`crate::codec`] for the size limits.
    pub fn decode(&self) -> Result<Vec<u8>, RsliError> {
        let size = usize::try_from(self.unpacked_size()).unwrap_or(usize::MAX);
        codec::decode(self.method, self.packed, size, self.key)
            .map_err(|e| e.in_entry(self.index, self.name()))
    }
}
