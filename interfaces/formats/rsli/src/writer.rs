//! Authoring new archives: [`RsliBuilder`] takes `(name, Method, data)` entries and
//! writes a complete file, choosing what Project decision 6 leaves to the writer.
//!
//! ```text
//! [Header 32: "NL" 0 1, count, presorted 0xABBA, xor_seed, other bytes 0]
//! [table N*32: names upper-cased + NUL fill, service, flags, sort map, sizes, offsets,
//!  one transform stream keyed by the seed]
//! [payloads in entry order, no padding]
//! ["AO" u32 overlay, only when asked for]
//! ```
//!
//! Writer choices: the seed is [`DEFAULT_SEED`] unless set; the table is presorted
//! (`0xABBA`) with the same stable name order the reader rebuilds; opaque header and
//! `service` bytes are zero unless given; payloads follow the table without gaps. If
//! the last payload happens to end in bytes that would read as an `AO` trailer, one
//! zero byte is appended so that no reader mistakes it for one.

use crate::codec;
use crate::error::{RsliError, escape_name};
use crate::header::{
    HEADER_SIZE, Header, MAGIC, PRESORTED_FLAG, TRAILER_MAGIC, TRAILER_SIZE, VERSION,
};
use crate::method::{METHOD_MASK, Method};
use crate::sort::build_order;
use crate::table::{ENTRY_SIZE, EntryRecord, NAME_SIZE, encode_table};

/// The table seed new archives get unless [`RsliBuilder::seed`] sets another.
pub const DEFAULT_SEED: u32 = 0x5EED;
/// Most entries an archive can hold (the count is a signed 16-bit field).
pub const MAX_ENTRIES: usize = i16::MAX as usize;

/// One entry to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySpec {
    /// 1 to 12 bytes, no NUL; lower-case ASCII is upper-cased on write (lookup
    /// upper-cases queries and compares exactly, so a lower-case name could not be found).
    pub name: Vec<u8>,
    /// How the payload is stored.
    pub method: Method,
    /// The decoded payload.
    pub data: Vec<u8>,
    /// The opaque bytes at +0x0C (zero for new content).
    pub service: [u8; 4],
    /// Flag bits outside `0x1E0` (zero for new content); method bits here are ignored.
    pub extra_flags: u16,
}

impl EntrySpec {
    /// An entry with zero `service` bytes and no extra flags.
    pub fn new(name: impl AsRef<[u8]>, method: Method, data: impl Into<Vec<u8>>) -> Self {
        EntrySpec {
            name: name.as_ref().to_vec(),
            method,
            data: data.into(),
            service: [0; 4],
            extra_flags: 0,
        }
    }
}

/// Builds a new RsLi file. The output parses strictly and every entry decodes back to
/// its `data`; building the same entries twice gives the same bytes.
#[derive(Debug, Clone)]
pub struct RsliBuilder {
    seed: u32,
    presorted: bool,
    overlay: Option<u32>,
    entries: Vec<EntrySpec>,
}

impl Default for RsliBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl RsliBuilder {
    /// An empty builder: seed [`DEFAULT_SEED`], presorted, no `AO` trailer.
    pub fn new() -> Self {
        RsliBuilder {
            seed: DEFAULT_SEED,
            presorted: true,
            overlay: None,
            entries: Vec::new(),
        }
    }

    /// Sets the `xor_seed` written at +0x14 (its low 16 bits key the table).
    pub fn seed(&mut self, seed: u32) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Whether to mark the table presorted (`0xABBA`, the default) and store the sort
    /// map; when `false` the flag and the sort fields are zero and readers rebuild the
    /// same map.
    pub fn presorted(&mut self, presorted: bool) -> &mut Self {
        self.presorted = presorted;
        self
    }

    /// Appends an `AO` trailer with this overlay (stored offsets become
    /// `offset - overlay`); `None` (the default) writes no trailer. The overlay must not
    /// exceed the end of the entry table.
    pub fn overlay(&mut self, overlay: Option<u32>) -> &mut Self {
        self.overlay = overlay;
        self
    }

    /// Appends an entry.
    pub fn add(
        &mut self,
        name: impl AsRef<[u8]>,
        method: Method,
        data: impl Into<Vec<u8>>,
    ) -> &mut Self {
        self.push(EntrySpec::new(name, method, data))
    }

    /// Appends a fully specified entry.
    pub fn push(&mut self, spec: EntrySpec) -> &mut Self {
        self.entries.push(spec);
        self
    }

    /// The entries added so far, in table order.
    pub fn entries(&self) -> &[EntrySpec] {
        &self.entries
    }

    /// Writes the archive. Errors: invalid or duplicate names, more than
    /// [`MAX_ENTRIES`] entries, sizes or offsets beyond 32 bits, an overlay past the
    /// table end.
    pub fn build(&self) -> Result<Vec<u8>, RsliError> {
        let count = self.entries.len();
        if count > MAX_ENTRIES {
            return Err(RsliError::TooManyEntries { count });
        }
        let names = self
            .entries
            .iter()
            .map(|e| normalise_name(&e.name))
            .collect::<Result<Vec<_>, _>>()?;
        let order = build_order(names.iter().map(|(n, len)| &n[..*len]));
        for w in order.windows(2) {
            let (a, b) = (usize::from(w[0]), usize::from(w[1]));
            if names[a] == names[b] {
                return Err(RsliError::DuplicateName {
                    name: escape_name(&names[a].0[..names[a].1]),
                    first: a.min(b),
                    second: a.max(b),
                });
            }
        }

        // Phase 1: encode payloads (their transform key is the slot's sort value) and
        // reserve every offset.
        let table_end = HEADER_SIZE + count * ENTRY_SIZE;
        let overlay = self.overlay.unwrap_or(0);
        if overlay as usize > table_end {
            return Err(RsliError::OverlayTooLarge {
                overlay,
                offset: table_end,
            });
        }
        let mut payloads = Vec::with_capacity(count);
        let mut records = Vec::with_capacity(count);
        let mut cursor = table_end;
        for (i, spec) in self.entries.iter().enumerate() {
            let key = order[i];
            let packed = codec::encode(spec.method, &spec.data, key)
                .map_err(|e| e.in_entry(i, &spec.name))?;
            let unpacked = fit_u32("unpacked size", spec.data.len())?;
            let packed_len = fit_u32("packed size", packed.len())?;
            // overlay <= table_end <= cursor.
            let raw_offset = fit_u32("payload offset", cursor - overlay as usize)?;
            let flags = (spec.extra_flags & !METHOD_MASK) | spec.method.bits();
            // key <= 32766 fits i16.
            let sort_field = if self.presorted { key as i16 } else { 0 };
            records.push(EntryRecord::from_fields(
                names[i].0,
                spec.service,
                flags,
                sort_field,
                unpacked,
                raw_offset,
                packed_len,
            ));
            cursor = cursor
                .checked_add(packed.len())
                .ok_or(RsliError::TooLarge {
                    what: "archive size",
                    value: u64::MAX,
                })?;
            payloads.push(packed);
        }
        fit_u32("archive size", cursor)?;

        // Phase 2: emit in the reserved order.
        let mut header = [0u8; HEADER_SIZE];
        header[0..2].copy_from_slice(&MAGIC);
        header[3] = VERSION;
        header[4..6].copy_from_slice(&(count as i16).to_le_bytes());
        if self.presorted {
            header[0x0E..0x10].copy_from_slice(&PRESORTED_FLAG.to_le_bytes());
        }
        header[0x14..0x18].copy_from_slice(&self.seed.to_le_bytes());
        let header = Header::from_raw(header);

        let mut out = Vec::with_capacity(cursor + TRAILER_SIZE + 1);
        out.extend_from_slice(header.raw());
        out.extend_from_slice(&encode_table(&records, header.table_key()));
        for p in &payloads {
            out.extend_from_slice(p);
        }
        match self.overlay {
            Some(overlay) => {
                out.extend_from_slice(&TRAILER_MAGIC);
                out.extend_from_slice(&overlay.to_le_bytes());
            }
            None => {
                let tail = out
                    .len()
                    .checked_sub(TRAILER_SIZE)
                    .filter(|&t| t >= table_end);
                if tail.is_some_and(|t| out[t..t + 2] == TRAILER_MAGIC) {
                    out.push(0);
                }
            }
        }
        Ok(out)
    }
}

/// Upper-cases and checks a new name; returns the zero-filled field and the length.
fn normalise_name(name: &[u8]) -> Result<([u8; NAME_SIZE], usize), RsliError> {
    let refuse = |reason| RsliError::InvalidName {
        name: escape_name(name),
        reason,
    };
    if name.is_empty() {
        return Err(refuse("empty"));
    }
    if name.len() > NAME_SIZE {
        return Err(refuse("longer than 12 bytes"));
    }
    if name.contains(&0) {
        return Err(refuse("contains NUL"));
    }
    let mut field = [0u8; NAME_SIZE];
    for (f, &b) in field.iter_mut().zip(name) {
        *f = b.to_ascii_uppercase();
    }
    Ok((field, name.len()))
}

fn fit_u32(what: &'static str, value: usize) -> Result<u32, RsliError> {
    u32::try_from(value).map_err(|_| RsliError::TooLarge {
        what,
        value: value as u64,
    })
}
