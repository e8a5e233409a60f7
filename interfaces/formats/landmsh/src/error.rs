//! The single error type of the crate: every variant names the stream type, the record
//! (entry or element) index, the field, the absolute byte offset in the input where one
//! exists, and what was expected versus what was found.

use iron3d_nres::NresError;

/// Everything that can go wrong reading, validating or writing a `Land.msh`.
///
/// Offsets (`offset`) are absolute byte offsets in the input file (for a model that was
/// authored in memory: in the file it would be written as).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LandMshError {
    /// The NRes container itself is invalid (its own error carries check, entry and offset).
    #[error("[nres] {0}")]
    Nres(#[from] NresError),
    /// A required stream type has no entry.
    #[error("[missing_stream] stream type {type_id}: expected exactly one entry, found none")]
    MissingStream {
        /// The stream type.
        type_id: u32,
    },
    /// A stream type occurs in two entries.
    #[error(
        "[duplicate_stream] stream type {type_id}: expected exactly one entry, found entries {first} and {second}"
    )]
    DuplicateStream {
        /// The stream type.
        type_id: u32,
        /// Index of the first entry with this type.
        first: usize,
        /// Index of the second entry with this type.
        second: usize,
    },
    /// An entry has a type that `Land.msh` does not contain.
    #[error(
        "[unexpected_stream] entry {index} (directory offset {offset:#x}): type {type_id} is not a Land.msh stream (expected one of 1,2,3,4,5,18,14,11,21)"
    )]
    UnexpectedStream {
        /// Entry index.
        index: usize,
        /// Offset of the directory record's `type_id`.
        offset: u64,
        /// The type found.
        type_id: u32,
    },
    /// Strict mode: the physical stream order is not `1,2,3,4,5,18,14,11,21`.
    #[error(
        "[stream_order] entry {index} (directory offset {offset:#x}): expected stream type {expected}, found {found}"
    )]
    StreamOrder {
        /// Entry index.
        index: usize,
        /// Offset of the directory record's `type_id`.
        offset: u64,
        /// Type required at this position.
        expected: u32,
        /// Type found.
        found: u32,
    },
    /// `attr3` (element stride) differs from the stride of the stream type.
    #[error(
        "[stride] stream type {type_id} (entry {index}, directory offset {offset:#x}): attr3 expected {expected}, found {found}"
    )]
    Stride {
        /// The stream type.
        type_id: u32,
        /// Entry index.
        index: usize,
        /// Offset of the directory record's `attr3`.
        offset: u64,
        /// The stride of the type.
        expected: u32,
        /// `attr3`.
        found: u32,
    },
    /// `attr1 × stride` (plus the type-2 header) does not fit in `u64`/`usize`.
    #[error(
        "[count_overflow] stream type {type_id} (entry {index}): attr1 {count} x stride {stride} overflows"
    )]
    CountOverflow {
        /// The stream type.
        type_id: u32,
        /// Entry index.
        index: usize,
        /// `attr1`.
        count: u32,
        /// Element stride.
        stride: u32,
    },
    /// The payload size is not `attr1 × stride` (type 2: `0x8C + attr1 × 68`).
    #[error(
        "[size] stream type {type_id} (entry {index}, payload offset {offset:#x}): attr1 {count} x stride {stride} needs {expected} bytes, found {found}"
    )]
    SizeMismatch {
        /// The stream type.
        type_id: u32,
        /// Entry index.
        index: usize,
        /// Payload offset.
        offset: u64,
        /// `attr1`.
        count: u32,
        /// Element stride.
        stride: u32,
        /// Size implied by the count.
        expected: u64,
        /// Actual payload size.
        found: u64,
    },
    /// Type 2 is shorter than its 0x8C-byte header.
    #[error(
        "[truncated] stream type {type_id} (entry {index}, payload offset {offset:#x}): expected at least {expected} bytes, found {found}"
    )]
    Truncated {
        /// The stream type.
        type_id: u32,
        /// Entry index.
        index: usize,
        /// Payload offset.
        offset: u64,
        /// Minimum size.
        expected: u64,
        /// Actual payload size.
        found: u64,
    },
    /// Type 2: the bytes after the header are not a whole number of 68-byte slots.
    #[error(
        "[slot_remainder] stream type 2 (entry {index}, payload offset {offset:#x}): {found} bytes after the header, expected a multiple of 68"
    )]
    SlotRemainder {
        /// Entry index.
        index: usize,
        /// Payload offset.
        offset: u64,
        /// Bytes after the header.
        found: u64,
    },
    /// A face's vertex index is not below the position (type 3) count.
    #[error(
        "[vertex_index] stream type 21 face {face} vertex[{corner}] (offset {offset:#x}): expected < {limit}, found {found}"
    )]
    VertexIndex {
        /// Face index.
        face: usize,
        /// Corner 0..3 (field `+0x08 + 2·corner`).
        corner: usize,
        /// Absolute offset of the field.
        offset: u64,
        /// Position count.
        limit: u64,
        /// The index found.
        found: u16,
    },
    /// A face's neighbour is neither `0xFFFF` nor below the face (type 21) count.
    #[error(
        "[neighbour_index] stream type 21 face {face} neighbour[{edge}] (offset {offset:#x}): expected 0xFFFF or < {limit}, found {found}"
    )]
    NeighbourIndex {
        /// Face index.
        face: usize,
        /// Edge 0..3 (field `+0x0E + 2·edge`).
        edge: usize,
        /// Absolute offset of the field.
        offset: u64,
        /// Face count.
        limit: u64,
        /// The index found.
        found: u16,
    },
    /// Strict mode: a face names itself as a neighbour (tome IV: a neighbour is
    /// "another" type-21 element).
    #[error(
        "[self_neighbour] stream type 21 face {face} neighbour[{edge}] (offset {offset:#x}): expected another face or 0xFFFF, found the face itself"
    )]
    SelfNeighbour {
        /// Face index.
        face: usize,
        /// Edge 0..3.
        edge: usize,
        /// Absolute offset of the field.
        offset: u64,
    },
    /// Authoring: a stream has more elements than its `u32` count (or, for faces and
    /// positions, its `u16` index space) can address.
    #[error("[too_many] stream type {type_id}: expected at most {max} elements, found {found}")]
    TooMany {
        /// The stream type.
        type_id: u32,
        /// Largest allowed count.
        max: u64,
        /// Count found.
        found: u64,
    },
    /// Authoring: a grid dimension is zero or a height is not finite.
    #[error("[grid] {field}: {problem}")]
    Grid {
        /// The offending parameter.
        field: &'static str,
        /// What is wrong with it.
        problem: &'static str,
    },
}

impl LandMshError {
    /// The stable `snake_case` check name that `Display` starts with (in brackets).
    pub fn check(&self) -> &'static str {
        match self {
            Self::Nres(_) => "nres",
            Self::MissingStream { .. } => "missing_stream",
            Self::DuplicateStream { .. } => "duplicate_stream",
            Self::UnexpectedStream { .. } => "unexpected_stream",
            Self::StreamOrder { .. } => "stream_order",
            Self::Stride { .. } => "stride",
            Self::CountOverflow { .. } => "count_overflow",
            Self::SizeMismatch { .. } => "size",
            Self::Truncated { .. } => "truncated",
            Self::SlotRemainder { .. } => "slot_remainder",
            Self::VertexIndex { .. } => "vertex_index",
            Self::NeighbourIndex { .. } => "neighbour_index",
            Self::SelfNeighbour { .. } => "self_neighbour",
            Self::TooMany { .. } => "too_many",
            Self::Grid { .. } => "grid",
        }
    }
}
