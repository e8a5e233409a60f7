//! The crate's one error type: every variant names the check that failed ([`Check`]) and,
//! where it applies, the record index, the field, the byte offset in the input, what was
//! expected and what was found; resolution errors carry the prototype key chain.

use std::fmt;

/// A boxed error from a caller's [`PrototypeSource`](crate::PrototypeSource) or
/// [`ResourceProbe`](crate::ResourceProbe) backend.
pub type SourceError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The named rules. The first five are the unit DAT read checks, then the `objects.rlb`
/// payload check, authoring, and the prototype-resolution outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// The unit DAT holds at least its 8-byte header.
    HeaderSize,
    /// The unit DAT starts with `F1 F0` (FORMATS §4.4, confirmed).
    Signature,
    /// `file_size = 8 + record_count * 112`, no trailing bytes.
    SizeFormula,
    /// Record `kind == 1` (strict; a diagnostic in compatible mode).
    RecordKind,
    /// Record `archive_name == "objects.rlb"`, ASCII case ignored (strict; a diagnostic
    /// in compatible mode).
    RecordArchive,
    /// An `objects.rlb` payload length is a multiple of 64 (checked before any record).
    PayloadSize,
    /// An authored name fits its field and holds no NUL.
    NewName,
    /// A prototype key names an `objects.rlb` entry.
    PrototypePresent,
    /// The parent chain does not come back to a key already on it.
    InheritanceCycle,
    /// The parent chain is at most [`MAX_PROTOTYPE_DEPTH`](crate::MAX_PROTOTYPE_DEPTH)
    /// links deep.
    InheritanceDepth,
    /// An expansion reads at most [`MAX_EXPANDED_RECORDS`](crate::MAX_EXPANDED_RECORDS).
    ExpansionSize,
    /// The caller's source or probe answered.
    SourceAccess,
    /// When explicit `.msh` references exist, one of them resolves.
    ModelPresent,
    /// A unit assembled from a DAT has at least one record
    /// ([`assemble`](crate::assemble)).
    UnitRecords,
    /// The root record of an assembled unit is not skipped (`kind != 0`, PD-UNIT-KIND0).
    UnitRoot,
    /// The global MSH node numbering of a unit fits `u32`.
    NodeNumbering,
}

impl Check {
    /// The unit DAT read checks, in the order the reader runs them.
    pub const DAT_READ_CHECKS: [Check; 5] = [
        Check::HeaderSize,
        Check::Signature,
        Check::SizeFormula,
        Check::RecordKind,
        Check::RecordArchive,
    ];

    /// The checks compatible mode turns into diagnostics.
    pub const DAT_COMPATIBLE_TOLERATES: [Check; 2] = [Check::RecordKind, Check::RecordArchive];

    /// A stable `snake_case` name, used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Check::HeaderSize => "header_size",
            Check::Signature => "signature",
            Check::SizeFormula => "size_formula",
            Check::RecordKind => "record_kind",
            Check::RecordArchive => "record_archive",
            Check::PayloadSize => "payload_size",
            Check::NewName => "new_name",
            Check::PrototypePresent => "prototype_present",
            Check::InheritanceCycle => "inheritance_cycle",
            Check::InheritanceDepth => "inheritance_depth",
            Check::ExpansionSize => "expansion_size",
            Check::SourceAccess => "source_access",
            Check::ModelPresent => "model_present",
            Check::UnitRecords => "unit_records",
            Check::UnitRoot => "unit_root",
            Check::NodeNumbering => "node_numbering",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field of a unit DAT record or an `ObjectRef64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// `archive_name` (+0x00 in both records).
    ArchiveName,
    /// `resource_name` (+0x20 in both records).
    ResourceName,
    /// Unit DAT `kind` (+0x40).
    Kind,
    /// Unit DAT `parent_or_link` (+0x44).
    ParentOrLink,
    /// Unit DAT `description` (+0x48).
    Description,
    /// Unit DAT `tail0` (+0x68).
    Tail0,
    /// Unit DAT `tail1` (+0x6C).
    Tail1,
}

impl Field {
    /// Offset of the field inside its record.
    pub const fn offset(self) -> usize {
        match self {
            Field::ArchiveName => 0x00,
            Field::ResourceName => 0x20,
            Field::Kind => 0x40,
            Field::ParentOrLink => 0x44,
            Field::Description => 0x48,
            Field::Tail0 => 0x68,
            Field::Tail1 => 0x6C,
        }
    }

    /// The field's name as the spec spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Field::ArchiveName => "archive_name",
            Field::ResourceName => "resource_name",
            Field::Kind => "kind",
            Field::ParentOrLink => "parent_or_link",
            Field::Description => "description",
            Field::Tail0 => "tail0",
            Field::Tail1 => "tail1",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an authored name was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NameProblem {
    /// The name has an embedded NUL at this position.
    ContainsNul {
        /// Byte position of the first NUL.
        position: usize,
    },
    /// The name is longer than the field allows.
    TooLong {
        /// Its length.
        len: usize,
        /// The most the field takes (31 with a terminator, 32 without).
        max: usize,
    },
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameProblem::ContainsNul { position } => {
                write!(f, "expected no NUL, found one at byte {position}")
            }
            NameProblem::TooLong { len, max } => {
                write!(f, "expected at most {max} bytes, found {len}")
            }
        }
    }
}

/// Whether a resource was found by a [`ResourceProbe`](crate::ResourceProbe); the two
/// failure kinds stay apart (FORMATS §1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Presence {
    /// The archive exists and holds the entry.
    Present,
    /// The archive itself is missing.
    ArchiveMissing,
    /// The archive exists but has no such entry.
    EntryMissing,
}

impl fmt::Display for Presence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Presence::Present => "present",
            Presence::ArchiveMissing => "archive missing",
            Presence::EntryMissing => "entry missing in an existing archive",
        })
    }
}

/// The prototype keys from the requested one to the one where something happened, each
/// spelled as written in the request or in the parent reference.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyChain(pub Vec<Vec<u8>>);

impl KeyChain {
    /// The keys, first = the requested key.
    pub fn keys(&self) -> &[Vec<u8>] {
        &self.0
    }

    /// The last key (where the failure is), if any.
    pub fn last(&self) -> Option<&[u8]> {
        self.0.last().map(Vec::as_slice)
    }
}

impl fmt::Display for KeyChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" -> ")?;
            }
            write!(f, "\"{}\"", key.escape_ascii())?;
        }
        Ok(())
    }
}

/// Optional-field prefix for [`UnitDatError::InvalidName`] messages.
struct FieldPrefix(Option<Field>);

impl fmt::Display for FieldPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(field) => write!(f, "field {field} "),
            None => Ok(()),
        }
    }
}

/// Everything that can go wrong reading, authoring or resolving. `Display` starts with
/// `[check_name]`, then the location (record, field, offset, or key chain), then expected
/// versus found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UnitDatError {
    /// [`Check::HeaderSize`]: shorter than the 8-byte unit DAT header.
    #[error("[header_size] offset 0x0: expected at least {need} bytes, found {have}")]
    Truncated {
        /// Bytes needed.
        need: u64,
        /// Bytes present.
        have: u64,
    },
    /// [`Check::Signature`].
    #[error("[signature] offset 0x0: expected F1 F0, found {:02X} {:02X}", found[0], found[1])]
    BadSignature {
        /// The two bytes found.
        found: [u8; 2],
    },
    /// [`Check::SizeFormula`]: the bytes after the header are not whole 112-byte records.
    #[error(
        "[size_formula] record #{record} at offset {offset:#x}: expected a file size of \
         8 + 112 * N, found {len} bytes ({remainder} bytes of an incomplete record)"
    )]
    SizeFormula {
        /// Input length.
        len: u64,
        /// Index of the incomplete record (= number of complete records).
        record: usize,
        /// Where the incomplete record starts.
        offset: u64,
        /// Its length (1..=111).
        remainder: u64,
    },
    /// [`Check::RecordKind`].
    #[error(
        "[record_kind] record #{record} field kind at offset {offset:#x}: expected 1, found {found}"
    )]
    UnexpectedKind {
        /// Record index.
        record: usize,
        /// Offset of the `kind` field in the input.
        offset: u64,
        /// The value found.
        found: u32,
    },
    /// [`Check::RecordArchive`].
    #[error(
        "[record_archive] record #{record} field archive_name at offset {offset:#x}: \
         expected \"objects.rlb\", found \"{}\"", found.escape_ascii()
    )]
    UnexpectedArchive {
        /// Record index.
        record: usize,
        /// Offset of the `archive_name` field in the input.
        offset: u64,
        /// The value found (bytes before the NUL).
        found: Vec<u8>,
    },
    /// [`Check::PayloadSize`]: an `objects.rlb` payload is not whole 64-byte records.
    #[error(
        "[payload_size] record #{record} at offset {offset:#x}: expected a length that is \
         a multiple of 64, found {len} ({remainder} bytes of an incomplete record)"
    )]
    PayloadSize {
        /// Payload length.
        len: u64,
        /// Index of the incomplete record (= number of complete records).
        record: usize,
        /// Where the incomplete record starts.
        offset: u64,
        /// Its length (1..=63).
        remainder: u64,
    },
    /// [`Check::NewName`].
    #[error("[new_name] {}name \"{}\": {problem}", FieldPrefix(*field), name.escape_ascii())]
    InvalidName {
        /// The field being authored, when known.
        field: Option<Field>,
        /// The refused value.
        name: Vec<u8>,
        /// Why.
        problem: NameProblem,
    },
    /// [`Check::PrototypePresent`]: a broken reference (the last key of the chain has no
    /// `objects.rlb` entry).
    #[error(
        "[prototype_present] {chain}: expected an objects.rlb entry for the last key, found none"
    )]
    PrototypeMissing {
        /// Requested key … missing key.
        chain: KeyChain,
    },
    /// [`Check::InheritanceCycle`]: the last key repeats an earlier one (ASCII case
    /// ignored).
    #[error("[inheritance_cycle] {chain}: expected a chain without repeats, found a cycle")]
    Cycle {
        /// Requested key … the key that closes the cycle.
        chain: KeyChain,
    },
    /// [`Check::InheritanceDepth`].
    #[error("[inheritance_depth] {chain}: expected at most {limit} parent links, found more")]
    DepthLimit {
        /// Requested key … the first key past the limit.
        chain: KeyChain,
        /// [`MAX_PROTOTYPE_DEPTH`](crate::MAX_PROTOTYPE_DEPTH).
        limit: usize,
    },
    /// [`Check::ExpansionSize`].
    #[error(
        "[expansion_size] {chain}: expected at most {limit} records in one expansion, found more"
    )]
    ExpansionTooLarge {
        /// Chain to the prototype being read when the limit was passed.
        chain: KeyChain,
        /// [`MAX_EXPANDED_RECORDS`](crate::MAX_EXPANDED_RECORDS).
        limit: usize,
    },
    /// The payload of the last prototype of the chain failed [`Check::PayloadSize`].
    #[error("[{}] {chain}: {source}", source.check())]
    InPrototype {
        /// Requested key … the prototype whose payload is bad.
        chain: KeyChain,
        /// The payload error (offsets are inside that payload).
        source: Box<UnitDatError>,
    },
    /// [`Check::SourceAccess`]: the caller's backend failed.
    #[error("[source_access] {chain}: the prototype source or probe failed: {source}")]
    Source {
        /// Chain to the prototype being read or probed.
        chain: KeyChain,
        /// The backend's error.
        source: SourceError,
    },
    /// [`Check::ModelPresent`]: a broken model reference. The effective prototype has
    /// explicit `.msh` references and none resolves; the first one is reported.
    #[error(
        "[model_present] {chain}: expected \"{}\" in \"{}\" (first of {explicit} explicit \
         .msh references, none found), found: {presence}",
        resource.escape_ascii(), archive.escape_ascii()
    )]
    ModelMissing {
        /// Requested key … the prototype holding the first `.msh` reference.
        chain: KeyChain,
        /// Its archive value.
        archive: Vec<u8>,
        /// Its resource value.
        resource: Vec<u8>,
        /// What the probe answered for it.
        presence: Presence,
        /// How many explicit `.msh` references the effective prototype has.
        explicit: usize,
    },
    /// [`Check::UnitRecords`]: the unit DAT has no records, so there is nothing to
    /// assemble (the file itself is valid).
    #[error("[unit_records] unit {}: expected at least one record to assemble, found none", unit.escape_ascii())]
    EmptyUnit {
        /// The unit (DAT path as the caller named it).
        unit: Vec<u8>,
    },
    /// [`Check::UnitRoot`]: record 0 has `kind == 0`, which skips the whole unit.
    #[error(
        "[unit_root] unit {} record #0 \"{}\" field kind at offset 0x48: expected a \
         non-zero kind for the root component, found 0 (the whole unit would be skipped)",
        unit.escape_ascii(), key.escape_ascii()
    )]
    UnitRootSkipped {
        /// The unit.
        unit: Vec<u8>,
        /// The root's component key.
        key: Vec<u8>,
    },
    /// [`Check::NodeNumbering`]: the global MSH node total passed `u32::MAX`.
    #[error(
        "[node_numbering] unit {} record #{record} \"{}\": the global MSH node count \
         overflows u32", unit.escape_ascii(), key.escape_ascii()
    )]
    NodeNumberingOverflow {
        /// The unit.
        unit: Vec<u8>,
        /// The record whose nodes overflowed.
        record: usize,
        /// Its component key.
        key: Vec<u8>,
    },
}

impl UnitDatError {
    /// The check that failed (for [`UnitDatError::InPrototype`], the inner one).
    pub fn check(&self) -> Check {
        match self {
            UnitDatError::Truncated { .. } => Check::HeaderSize,
            UnitDatError::BadSignature { .. } => Check::Signature,
            UnitDatError::SizeFormula { .. } => Check::SizeFormula,
            UnitDatError::UnexpectedKind { .. } => Check::RecordKind,
            UnitDatError::UnexpectedArchive { .. } => Check::RecordArchive,
            UnitDatError::PayloadSize { .. } => Check::PayloadSize,
            UnitDatError::InvalidName { .. } => Check::NewName,
            UnitDatError::PrototypeMissing { .. } => Check::PrototypePresent,
            UnitDatError::Cycle { .. } => Check::InheritanceCycle,
            UnitDatError::DepthLimit { .. } => Check::InheritanceDepth,
            UnitDatError::ExpansionTooLarge { .. } => Check::ExpansionSize,
            UnitDatError::InPrototype { source, .. } => source.check(),
            UnitDatError::Source { .. } => Check::SourceAccess,
            UnitDatError::ModelMissing { .. } => Check::ModelPresent,
            UnitDatError::EmptyUnit { .. } => Check::UnitRecords,
            UnitDatError::UnitRootSkipped { .. } => Check::UnitRoot,
            UnitDatError::NodeNumberingOverflow { .. } => Check::NodeNumbering,
        }
    }

    /// Byte offset of the offending field in the input that was parsed (for
    /// [`UnitDatError::InPrototype`], inside that prototype's payload).
    pub fn offset(&self) -> Option<u64> {
        match self {
            UnitDatError::Truncated { .. } | UnitDatError::BadSignature { .. } => Some(0),
            UnitDatError::SizeFormula { offset, .. }
            | UnitDatError::UnexpectedKind { offset, .. }
            | UnitDatError::UnexpectedArchive { offset, .. }
            | UnitDatError::PayloadSize { offset, .. } => Some(*offset),
            UnitDatError::InPrototype { source, .. } => source.offset(),
            UnitDatError::UnitRootSkipped { .. } => {
                Some((crate::dat::DAT_HEADER_SIZE + Field::Kind.offset()) as u64)
            }
            _ => None,
        }
    }

    /// The record index the error is about, if any.
    pub fn record(&self) -> Option<usize> {
        match self {
            UnitDatError::SizeFormula { record, .. }
            | UnitDatError::UnexpectedKind { record, .. }
            | UnitDatError::UnexpectedArchive { record, .. }
            | UnitDatError::PayloadSize { record, .. }
            | UnitDatError::NodeNumberingOverflow { record, .. } => Some(*record),
            UnitDatError::UnitRootSkipped { .. } => Some(0),
            UnitDatError::InPrototype { source, .. } => source.record(),
            _ => None,
        }
    }

    /// The field the error is about, if any.
    pub fn field(&self) -> Option<Field> {
        match self {
            UnitDatError::UnexpectedKind { .. } | UnitDatError::UnitRootSkipped { .. } => {
                Some(Field::Kind)
            }
            UnitDatError::UnexpectedArchive { .. } => Some(Field::ArchiveName),
            UnitDatError::InvalidName { field, .. } => *field,
            _ => None,
        }
    }

    /// The prototype key chain of a resolution error.
    pub fn chain(&self) -> Option<&KeyChain> {
        match self {
            UnitDatError::PrototypeMissing { chain }
            | UnitDatError::Cycle { chain }
            | UnitDatError::DepthLimit { chain, .. }
            | UnitDatError::ExpansionTooLarge { chain, .. }
            | UnitDatError::InPrototype { chain, .. }
            | UnitDatError::Source { chain, .. }
            | UnitDatError::ModelMissing { chain, .. } => Some(chain),
            _ => None,
        }
    }

    /// Whether this is a *broken reference* (a prototype or an explicit model that does
    /// not exist), as opposed to malformed data, a limit, or a backend failure. A
    /// non-geometric prototype is not an error at all (see
    /// [`Geometry::NonGeometric`](crate::Geometry::NonGeometric)).
    pub fn is_broken_reference(&self) -> bool {
        matches!(
            self,
            UnitDatError::PrototypeMissing { .. } | UnitDatError::ModelMissing { .. }
        )
    }

    /// Sets the field of an [`UnitDatError::InvalidName`]; other errors are unchanged.
    pub(crate) fn with_field(mut self, new: Field) -> Self {
        if let UnitDatError::InvalidName { field, .. } = &mut self {
            *field = Some(new);
        }
        self
    }
}
