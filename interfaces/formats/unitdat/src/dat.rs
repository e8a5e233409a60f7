//! Unit DAT files (`*.dat`, FORMATS §4.4, tome III "Unit DAT"): the strict and compatible
//! readers, the lossless writer and authoring of new files.
//!
//! ```text
//! 0x00 ┌──────────────────────────────┐
//!      │ F1 F0 | opaque[6]            │ header (8); opaque[2..6] = class word (inferred)
//! 0x08 ├──────────────────────────────┤
//!      │ record 0 (112)               │
//!      │ …                            │ file_size = 8 + record_count * 112, exactly
//!      └──────────────────────────────┘
//!
//! Record (112):
//!  +0x00 char archive_name[32]   confirmed, "objects.rlb" in the whole corpus
//!  +0x20 char resource_name[32]  confirmed, component prototype key
//!  +0x40 u32  kind               confirmed, 1 in the whole corpus
//!  +0x44 i32  parent_or_link     inferred
//!  +0x48 char description[32]    confirmed, may fill all 32 bytes without NUL
//!  +0x68 u8   tail0[4]           layout (opaque)
//!  +0x6C u8   tail1[4]           layout (opaque)
//! ```

use crate::error::{Check, Field, UnitDatError};
use crate::name::{Name32, array_at};

/// The two signature bytes at `+0x00`.
pub const SIGNATURE: [u8; 2] = [0xF1, 0xF0];
/// Size of the header.
pub const DAT_HEADER_SIZE: usize = 8;
/// Size of one record.
pub const DAT_RECORD_SIZE: usize = 112;
/// The archive every record names in the corpus (and the registry archive).
pub const OBJECTS_RLB: &[u8] = b"objects.rlb";
/// The `kind` every record has in the corpus.
pub const EXPECTED_KIND: u32 = 1;

/// How much a reader tolerates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadMode {
    /// Every check of [`Check::DAT_READ_CHECKS`] is fatal.
    #[default]
    Strict,
    /// [`Check::RecordKind`] and [`Check::RecordArchive`] become diagnostics (FORMATS §4.4:
    /// "reported if unexpected, do not reject in compatible mode"); the framing checks
    /// stay fatal.
    Compatible,
}

/// The 8-byte header: the signature (checked, not stored) and six opaque bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnitHeader {
    /// Bytes `+0x02..+0x08`, kept raw (tome III: `header_opaque[6]`).
    pub opaque: [u8; 6],
}

impl UnitHeader {
    /// The DWORD at `+0x04` (`opaque[2..6]`, little-endian) read as the object class word.
    ///
    /// **Inferred** (newer tome VI / FORMATS §4.4; tome III keeps these bytes opaque): its
    /// high bit makes Behavior create a registration key. Examples: `0x80000010`
    /// (`wor_l_n1.dat`), `0x80000002` (`gener01.dat`), `0x80000004` (`min_l_n1.dat`).
    pub fn class_word(&self) -> u32 {
        let [_, _, a, b, c, d] = self.opaque;
        u32::from_le_bytes([a, b, c, d])
    }

    /// Whether the class word's high bit is set (inferred: "creates a Behavior
    /// registration key").
    pub fn class_word_high_bit(&self) -> bool {
        self.class_word() & 0x8000_0000 != 0
    }

    /// Stores `word` at `+0x04`, keeping the opaque bytes `+0x02..+0x04`.
    pub fn set_class_word(&mut self, word: u32) {
        self.opaque[2..6].copy_from_slice(&word.to_le_bytes());
    }
}

/// One 112-byte record, every byte kept: confirmed fields are typed, `parent_or_link` is
/// a flagged inferred view, the two tails are raw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnitRecord {
    /// `+0x00` archive of the component (confirmed; `objects.rlb` in the corpus).
    pub archive_name: Name32,
    /// `+0x20` component prototype key (confirmed).
    pub resource_name: Name32,
    /// `+0x40` (confirmed; 1 in the corpus). The ArealMap/AniMesh tree builder skips a
    /// node of kind 0 together with its children.
    pub kind: u32,
    /// `+0x44` **inferred**: local device index (INTO) or mount node (EXTO); observed
    /// `-1`, `0`, `1` and small indices. Not a record index.
    pub parent_or_link: i32,
    /// `+0x48` human-readable description (confirmed); may have no NUL.
    pub description: Name32,
    /// `+0x68` opaque (layout): preserved, never interpreted.
    pub tail0: [u8; 4],
    /// `+0x6C` opaque (layout): preserved, never interpreted.
    pub tail1: [u8; 4],
}

impl UnitRecord {
    /// Authors a record: archive `objects.rlb`, the given component key, kind 1, the given
    /// `parent_or_link`, the description (0..=32 bytes; 32 bytes are stored without NUL),
    /// zero tails. Names are written as `bytes + NUL + zero fill`.
    pub fn new(
        component_key: &[u8],
        parent_or_link: i32,
        description: &[u8],
    ) -> Result<Self, UnitDatError> {
        Ok(Self {
            archive_name: Name32::new_for(Field::ArchiveName, OBJECTS_RLB)?,
            resource_name: Name32::new_for(Field::ResourceName, component_key)?,
            kind: EXPECTED_KIND,
            parent_or_link,
            description: Name32::new_bounded(description)
                .map_err(|e| e.with_field(Field::Description))?,
            tail0: [0; 4],
            tail1: [0; 4],
        })
    }

    /// Decodes 112 bytes (never fails: every byte pattern is a record; the strict checks
    /// run in [`UnitDat::parse_with`]).
    pub fn from_bytes(bytes: &[u8; DAT_RECORD_SIZE]) -> Self {
        let name = |at| Name32::from_raw(array_at(bytes, at).unwrap_or([0; 32]));
        let word = |at| array_at::<4>(bytes, at).unwrap_or([0; 4]);
        Self {
            archive_name: name(Field::ArchiveName.offset()),
            resource_name: name(Field::ResourceName.offset()),
            kind: u32::from_le_bytes(word(Field::Kind.offset())),
            parent_or_link: i32::from_le_bytes(word(Field::ParentOrLink.offset())),
            description: name(Field::Description.offset()),
            tail0: word(Field::Tail0.offset()),
            tail1: word(Field::Tail1.offset()),
        }
    }

    /// Encodes the 112 bytes, every stored byte unchanged.
    pub fn to_bytes(&self) -> [u8; DAT_RECORD_SIZE] {
        let mut out = [0u8; DAT_RECORD_SIZE];
        let mut put = |field: Field, bytes: &[u8]| {
            let at = field.offset();
            out[at..at + bytes.len()].copy_from_slice(bytes);
        };
        put(Field::ArchiveName, self.archive_name.raw());
        put(Field::ResourceName, self.resource_name.raw());
        put(Field::Kind, &self.kind.to_le_bytes());
        put(Field::ParentOrLink, &self.parent_or_link.to_le_bytes());
        put(Field::Description, self.description.raw());
        put(Field::Tail0, &self.tail0);
        put(Field::Tail1, &self.tail1);
        out
    }

    /// The component prototype key (the `resource_name` value).
    pub fn component_key(&self) -> &[u8] {
        self.resource_name.value()
    }

    /// The strict record checks, in order; `base` is the record's offset in the file.
    fn violations(&self, index: usize, base: u64) -> [Option<UnitDatError>; 2] {
        let kind = (self.kind != EXPECTED_KIND).then(|| UnitDatError::UnexpectedKind {
            record: index,
            offset: base + Field::Kind.offset() as u64,
            found: self.kind,
        });
        let archive = (!self.archive_name.value_eq_ignore_case(OBJECTS_RLB)).then(|| {
            UnitDatError::UnexpectedArchive {
                record: index,
                offset: base + Field::ArchiveName.offset() as u64,
                found: self.archive_name.value().to_vec(),
            }
        });
        [kind, archive]
    }
}

/// A whole unit DAT: header plus records in file order. `to_bytes()` of a parsed file is
/// the input, byte for byte.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnitDat {
    /// The header's opaque bytes.
    pub header: UnitHeader,
    /// The records in file order (order is significant).
    pub records: Vec<UnitRecord>,
}

/// What [`UnitDat::parse_with`] returns: the file and the strict violations that
/// [`ReadMode::Compatible`] tolerated (always empty in strict mode).
#[derive(Debug)]
pub struct ParsedUnitDat {
    /// The file.
    pub dat: UnitDat,
    /// Tolerated [`Check::RecordKind`] / [`Check::RecordArchive`] errors, record order.
    pub diagnostics: Vec<UnitDatError>,
}

impl UnitDat {
    /// An empty file with a zero header (authoring; opaque bytes are zero for new content,
    /// FORMATS project decision 6).
    pub fn new() -> Self {
        Self::default()
    }

    /// Strict read: every check of [`Check::DAT_READ_CHECKS`].
    pub fn parse(bytes: &[u8]) -> Result<Self, UnitDatError> {
        Self::parse_with(bytes, ReadMode::Strict).map(|p| p.dat)
    }

    /// Reads under `mode`. The header size, signature and size formula are checked before
    /// any record is decoded or any memory is reserved.
    pub fn parse_with(bytes: &[u8], mode: ReadMode) -> Result<ParsedUnitDat, UnitDatError> {
        let len = bytes.len() as u64;
        let Some(header) = array_at::<DAT_HEADER_SIZE>(bytes, 0) else {
            return Err(UnitDatError::Truncated {
                need: DAT_HEADER_SIZE as u64,
                have: len,
            });
        };
        let [s0, s1, opaque @ ..] = header;
        if [s0, s1] != SIGNATURE {
            return Err(UnitDatError::BadSignature { found: [s0, s1] });
        }
        let body = &bytes[DAT_HEADER_SIZE..];
        let count = body.len() / DAT_RECORD_SIZE;
        let remainder = body.len() % DAT_RECORD_SIZE;
        if remainder != 0 {
            return Err(UnitDatError::SizeFormula {
                len,
                record: count,
                offset: (DAT_HEADER_SIZE + count * DAT_RECORD_SIZE) as u64,
                remainder: remainder as u64,
            });
        }
        let mut records = Vec::with_capacity(count);
        let mut diagnostics = Vec::new();
        for (index, chunk) in body.chunks_exact(DAT_RECORD_SIZE).enumerate() {
            let Some(raw) = chunk.first_chunk::<DAT_RECORD_SIZE>() else {
                break; // unreachable: chunks_exact yields whole records
            };
            let record = UnitRecord::from_bytes(raw);
            let base = (DAT_HEADER_SIZE + index * DAT_RECORD_SIZE) as u64;
            for violation in record.violations(index, base).into_iter().flatten() {
                match mode {
                    ReadMode::Strict => return Err(violation),
                    ReadMode::Compatible => diagnostics.push(violation),
                }
            }
            records.push(record);
        }
        debug_assert!(
            diagnostics
                .iter()
                .all(|d| Check::DAT_COMPATIBLE_TOLERATES.contains(&d.check()))
        );
        Ok(ParsedUnitDat {
            dat: UnitDat {
                header: UnitHeader { opaque },
                records,
            },
            diagnostics,
        })
    }

    /// Size of the encoded file: `8 + 112 * records`.
    pub fn encoded_len(&self) -> usize {
        DAT_HEADER_SIZE + DAT_RECORD_SIZE * self.records.len()
    }

    /// Encodes the file: signature, the six header bytes, every record as stored.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.extend_from_slice(&SIGNATURE);
        out.extend_from_slice(&self.header.opaque);
        for record in &self.records {
            out.extend_from_slice(&record.to_bytes());
        }
        out
    }

    /// The component prototype keys in record order (every record, whatever its kind:
    /// the tree shape that decides which kind-0 subtrees are skipped is not on disk as
    /// far as the sources know, FORMATS §16.9).
    pub fn component_keys(&self) -> impl Iterator<Item = &[u8]> {
        self.records.iter().map(UnitRecord::component_key)
    }
}
