//! The sectioned container: writer and strict reader (see the crate docs for the
//! layout).

use crate::error::SaveError;
use crate::header::SaveHeader;
use std::collections::BTreeSet;

/// The first eight bytes of every save.
pub const MAGIC: [u8; 8] = *b"IRON3DSV";
/// The format version this build writes, and the newest reader version it is.
pub const FORMAT_VERSION: u16 = 1;
/// The `min_read_version` this build writes: the oldest reader that can read its files.
pub const MIN_READ_VERSION: u16 = 1;
/// The oldest format version this build still reads.
pub const OLDEST_READ_VERSION: u16 = 1;
/// Most sections a file may declare (the kernel's world, a dozen plugin slots and the
/// replay need far fewer).
pub const MAX_SECTIONS: usize = 256;
/// Bytes of the fixed header before the section table.
pub const HEADER_LEN: usize = 16;
/// Bytes of one section table entry.
pub const TABLE_ENTRY_LEN: usize = 64;
/// Bytes of a section name field.
pub const NAME_LEN: usize = 16;
/// Bytes of the file checksum at the end.
pub const FILE_CHECKSUM_LEN: usize = 32;

/// A section tag: four printable ASCII bytes.
pub type Tag = [u8; 4];
/// The header section (JSON [`SaveHeader`]); always the first.
pub const TAG_HEADER: Tag = *b"HEAD";
/// The kernel's world.
pub const TAG_WORLD: Tag = *b"WRLD";
/// One plugin's state blob; the name is its slot.
pub const TAG_PLUGIN: Tag = *b"PLUG";
/// What a replay needs to go on from the save.
pub const TAG_REPLAY: Tag = *b"RPLY";

/// One section besides the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// What it holds.
    pub tag: Tag,
    /// Which one (at most [`NAME_LEN`] printable ASCII bytes; a plugin section's slot).
    pub name: String,
    /// The table entry's flags word (0 when written by this build; kept as read).
    pub flags: u32,
    /// The payload.
    pub payload: Vec<u8>,
}

impl Section {
    /// A section with flags 0.
    pub fn new(tag: Tag, name: impl Into<String>, payload: Vec<u8>) -> Self {
        Self {
            tag,
            name: name.into(),
            flags: 0,
            payload,
        }
    }
}

/// A whole save: the header and the other sections in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveFile {
    /// The header (section 0).
    pub header: SaveHeader,
    /// The header section's flags word (kept as read).
    pub header_flags: u32,
    /// Every other section, in file order (unknown tags included, kept as read).
    pub sections: Vec<Section>,
}

fn label(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .trim_end_matches('\0')
        .to_owned()
}

/// Printable ASCII, then only NUL padding (at least one printable byte when `nonempty`).
fn valid_label(bytes: &[u8], nonempty: bool) -> bool {
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    (!nonempty || len > 0)
        && bytes[..len].iter().all(|b| (0x20..0x7f).contains(b))
        && bytes[len..].iter().all(|&b| b == 0)
}

impl SaveFile {
    /// A save of `header` with no other section yet.
    pub fn new(header: SaveHeader) -> Self {
        Self {
            header,
            header_flags: 0,
            sections: Vec::new(),
        }
    }

    /// The first section of `tag` named `name`.
    pub fn section(&self, tag: Tag, name: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.tag == tag && s.name == name)
    }

    /// The file's bytes. Refuses a header that does not serialise (a non-finite time
    /// scale), a label that does not fit the table, a duplicate or a second header, or
    /// more than [`MAX_SECTIONS`] sections.
    pub fn to_bytes(&self) -> Result<Vec<u8>, SaveError> {
        if !self.header.time_scale.is_finite() {
            return Err(SaveError::BadSection {
                tag: "HEAD".into(),
                name: String::new(),
                why: "the time scale is not a finite number",
            });
        }
        let head =
            serde_json::to_vec(&self.header).map_err(|e| SaveError::BadHeader { source: e })?;
        let count = self.sections.len() + 1;
        if count > MAX_SECTIONS {
            return Err(SaveError::TooManySections {
                count: u32::try_from(count).unwrap_or(u32::MAX),
                max: MAX_SECTIONS,
            });
        }
        let mut seen = BTreeSet::new();
        for s in &self.sections {
            let bad = |why| SaveError::BadSection {
                tag: label(&s.tag),
                name: s.name.clone(),
                why,
            };
            if !valid_label(&s.tag, true) || s.tag.contains(&0) {
                return Err(bad("the tag is not four printable ASCII bytes"));
            }
            if s.name.len() > NAME_LEN || !valid_label(s.name.as_bytes(), false) {
                return Err(bad("the name is not at most 16 printable ASCII bytes"));
            }
            if s.tag == TAG_HEADER {
                return Err(bad("the header is written from SaveFile::header"));
            }
            if !seen.insert((s.tag, s.name.as_str())) {
                return Err(bad("a second section of this tag and name"));
            }
        }
        let entries = std::iter::once((TAG_HEADER, "", self.header_flags, head.as_slice())).chain(
            self.sections
                .iter()
                .map(|s| (s.tag, s.name.as_str(), s.flags, s.payload.as_slice())),
        );
        let payload_len: usize =
            head.len() + self.sections.iter().map(|s| s.payload.len()).sum::<usize>();
        let mut out = Vec::with_capacity(
            HEADER_LEN + count * TABLE_ENTRY_LEN + payload_len + FILE_CHECKSUM_LEN,
        );
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&MIN_READ_VERSION.to_le_bytes());
        out.extend_from_slice(&(count as u32).to_le_bytes());
        for (tag, name, flags, payload) in entries.clone() {
            out.extend_from_slice(&tag);
            let mut field = [0u8; NAME_LEN];
            field[..name.len()].copy_from_slice(name.as_bytes());
            out.extend_from_slice(&field);
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            out.extend_from_slice(blake3::hash(payload).as_bytes());
        }
        for (_, _, _, payload) in entries {
            out.extend_from_slice(payload);
        }
        let sum = blake3::hash(&out);
        out.extend_from_slice(sum.as_bytes());
        Ok(out)
    }

    /// Reads a whole file, checked as PD-SAVE-STRICT says; nothing is returned unless
    /// everything holds.
    pub fn parse(data: &[u8]) -> Result<SaveFile, SaveError> {
        let table = Table::read(data)?;
        let mut sections = Vec::with_capacity(table.entries.len().saturating_sub(1));
        let mut header = None;
        let mut header_flags = 0;
        for (index, e) in table.entries.iter().enumerate() {
            let payload = &data[e.offset..e.offset + e.length];
            if index == 0 {
                header = Some(
                    serde_json::from_slice::<SaveHeader>(payload)
                        .map_err(|source| SaveError::BadHeader { source })?,
                );
                header_flags = e.flags;
            } else {
                sections.push(Section {
                    tag: e.tag,
                    name: label(&e.name),
                    flags: e.flags,
                    payload: payload.to_vec(),
                });
            }
        }
        let header = header.ok_or_else(|| SaveError::MissingHeader {
            found: "none".into(),
        })?;
        Ok(SaveFile {
            header,
            header_flags,
            sections,
        })
    }
}

/// The header of a save, checked as [`SaveFile::parse`] checks the whole file (every
/// checksum included), without copying the other sections.
pub fn peek_header(data: &[u8]) -> Result<SaveHeader, SaveError> {
    let table = Table::read(data)?;
    let e = &table.entries[0];
    serde_json::from_slice(&data[e.offset..e.offset + e.length])
        .map_err(|source| SaveError::BadHeader { source })
}

struct Entry {
    tag: Tag,
    name: [u8; NAME_LEN],
    flags: u32,
    offset: usize,
    length: usize,
}

/// The checked section table: every entry's payload lies within the file and matches
/// its checksum, the file checksum holds, the header comes first.
struct Table {
    entries: Vec<Entry>,
}

fn u16_at(d: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([d[o], d[o + 1]])
}

fn u32_at(d: &[u8], o: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&d[o..o + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(d: &[u8], o: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[o..o + 8]);
    u64::from_le_bytes(b)
}

impl Table {
    fn read(data: &[u8]) -> Result<Table, SaveError> {
        let len = data.len() as u64;
        let need = |what, offset: usize, need: usize| {
            if data.len() < offset + need {
                Err(SaveError::Truncated {
                    what,
                    offset: offset as u64,
                    need: need as u64,
                    len,
                })
            } else {
                Ok(())
            }
        };
        need("the fixed header", 0, HEADER_LEN)?;
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&data[..8]);
        if magic != MAGIC {
            return Err(SaveError::BadMagic { found: magic });
        }
        let format_version = u16_at(data, 8);
        let needs = u16_at(data, 10);
        if needs > FORMAT_VERSION {
            return Err(SaveError::TooNew {
                format_version,
                needs,
                reader: FORMAT_VERSION,
            });
        }
        if format_version < OLDEST_READ_VERSION {
            return Err(SaveError::TooOld {
                format_version,
                oldest: OLDEST_READ_VERSION,
            });
        }
        let count = u32_at(data, 12);
        if count as usize > MAX_SECTIONS {
            return Err(SaveError::TooManySections {
                count,
                max: MAX_SECTIONS,
            });
        }
        let count = count as usize;
        need("the section table", HEADER_LEN, count * TABLE_ENTRY_LEN)?;
        let payload_start = HEADER_LEN + count * TABLE_ENTRY_LEN;
        need("the file checksum", payload_start, FILE_CHECKSUM_LEN)?;
        let end = data.len() - FILE_CHECKSUM_LEN;
        // The file checksum first: a damaged table is reported as such, not as the
        // nonsense it would decode to.
        let sum = blake3::hash(&data[..end]);
        if sum.as_bytes()[..] != data[end..] {
            // Still name a truncation or a damaged section when that is what it is.
            Self::entries(data, count, payload_start, end)?;
            return Err(SaveError::FileChecksum);
        }
        let entries = Self::entries(data, count, payload_start, end)?;
        Ok(Table { entries })
    }

    /// The entries with their bounds and checksums checked (the header first, no
    /// duplicates, payloads back to back up to `end`).
    fn entries(
        data: &[u8],
        count: usize,
        payload_start: usize,
        end: usize,
    ) -> Result<Vec<Entry>, SaveError> {
        let mut entries = Vec::with_capacity(count);
        let mut seen = BTreeSet::new();
        let mut offset = payload_start;
        for index in 0..count {
            let o = HEADER_LEN + index * TABLE_ENTRY_LEN;
            let mut tag = [0u8; 4];
            tag.copy_from_slice(&data[o..o + 4]);
            let mut name = [0u8; NAME_LEN];
            name.copy_from_slice(&data[o + 4..o + 4 + NAME_LEN]);
            if !valid_label(&tag, true) || tag.contains(&0) {
                return Err(SaveError::BadLabel {
                    index,
                    field: "tag",
                    raw: tag.to_vec(),
                });
            }
            if !valid_label(&name, false) {
                return Err(SaveError::BadLabel {
                    index,
                    field: "name",
                    raw: name.to_vec(),
                });
            }
            let flags = u32_at(data, o + 20);
            let length = u64_at(data, o + 24);
            let (tag_s, name_s) = (label(&tag), label(&name));
            if length > (end - offset) as u64 {
                return Err(SaveError::SectionOutOfBounds {
                    index,
                    tag: tag_s,
                    name: name_s,
                    offset: offset as u64,
                    length,
                    end: end as u64,
                });
            }
            let length = length as usize;
            let payload = &data[offset..offset + length];
            if blake3::hash(payload).as_bytes()[..] != data[o + 32..o + 64] {
                return Err(SaveError::SectionChecksum {
                    index,
                    tag: tag_s,
                    name: name_s,
                    offset: offset as u64,
                });
            }
            if index == 0 && (tag != TAG_HEADER || !name_s.is_empty()) {
                return Err(SaveError::MissingHeader {
                    found: format!("{tag_s} {name_s:?}"),
                });
            }
            if index > 0 && tag == TAG_HEADER {
                return Err(SaveError::DuplicateSection {
                    index,
                    tag: tag_s,
                    name: name_s,
                });
            }
            if !seen.insert((tag, name)) {
                return Err(SaveError::DuplicateSection {
                    index,
                    tag: tag_s,
                    name: name_s,
                });
            }
            entries.push(Entry {
                tag,
                name,
                flags,
                offset,
                length,
            });
            offset += length;
        }
        if count == 0 {
            return Err(SaveError::MissingHeader {
                found: "none".into(),
            });
        }
        if offset != end {
            return Err(SaveError::TrailingBytes {
                offset: offset as u64,
                extra: (end - offset) as u64,
            });
        }
        Ok(entries)
    }
}
