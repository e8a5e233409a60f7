//! The crate's error type: the named strict checks of FORMATS §7.12 and the location
//! (entry, type, record, byte offset) plus expected-versus-found of every failure.

use iron3d_nres::NresError;
use std::fmt;

/// One named strict check of the MSH reader (FORMATS §7.12, tome V).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Check {
    /// The nested container is a strictly valid NRes archive.
    Container,
    /// Types 1, 2, 3, 6 and 13 appear exactly once.
    RequiredStream,
    /// The typed optional streams (4, 5, 7, 8, 10, 19) appear at most once.
    DuplicateStream,
    /// Type 1 `attr3` (node stride) is 38, or 24 for the MTCHECK variant.
    NodeStride,
    /// Every fixed-stride stream size divides by its stride.
    StreamStride,
    /// `size(type 2) >= 0x8C` and `(size - 0x8C) % 68 == 0`.
    SlotTable,
    /// Every `slot_index` is `0xFFFF` or `< slot_count`.
    SlotIndex,
    /// `tri_start + tri_count <= count(type 7)`.
    TriRange,
    /// `batch_start + batch_count <= count(type 13)`.
    BatchRange,
    /// `index_start + index_count <= count(type 6)`.
    IndexRange,
    /// `base_vertex + index < count(type 3)` for every index of every batch.
    VertexRange,
    /// Finite AABB with `min <= max`, finite sphere radius `>= 0` (from fparkan source).
    SlotBounds,
    /// `fallback_key < count(type 8)` (when type 8 exists).
    FallbackKey,
    /// `[anim_map_start, anim_map_start + frame_count)` fits inside type 19.
    FrameMapBlock,
    /// Key times increase within a track: `time(k) < time(k + 1)` for every used pair.
    KeyTimes,
    /// `parent_or_link` is `0xFFFF` or a node index.
    ParentLink,
    /// Parent links form no cycle.
    ParentCycle,
    /// Type 10 holds one `u32 len [+ len bytes + NUL]` record per node, nothing more.
    NodeNames,
}

impl Check {
    /// Every check the strict reader runs, in the order it runs them.
    pub const ALL: [Check; 18] = [
        Check::Container,
        Check::RequiredStream,
        Check::DuplicateStream,
        Check::NodeStride,
        Check::StreamStride,
        Check::SlotTable,
        Check::SlotIndex,
        Check::TriRange,
        Check::BatchRange,
        Check::IndexRange,
        Check::VertexRange,
        Check::SlotBounds,
        Check::FallbackKey,
        Check::FrameMapBlock,
        Check::KeyTimes,
        Check::ParentLink,
        Check::ParentCycle,
        Check::NodeNames,
    ];

    /// Stable snake_case name used in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Check::Container => "container",
            Check::RequiredStream => "required_stream",
            Check::DuplicateStream => "duplicate_stream",
            Check::NodeStride => "node_stride",
            Check::StreamStride => "stream_stride",
            Check::SlotTable => "slot_table",
            Check::SlotIndex => "slot_index",
            Check::TriRange => "tri_range",
            Check::BatchRange => "batch_range",
            Check::IndexRange => "index_range",
            Check::VertexRange => "vertex_range",
            Check::SlotBounds => "slot_bounds",
            Check::FallbackKey => "fallback_key",
            Check::FrameMapBlock => "frame_map_block",
            Check::KeyTimes => "key_times",
            Check::ParentLink => "parent_link",
            Check::ParentCycle => "parent_cycle",
            Check::NodeNames => "node_names",
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a failure is: nested entry and type, record index, byte offset in the payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// Index of the nested NRes entry (original order).
    pub entry: Option<usize>,
    /// Its `type_id`.
    pub type_id: Option<u32>,
    /// Record index inside the stream.
    pub record: Option<usize>,
    /// Byte offset inside the entry payload.
    pub offset: Option<u64>,
}

impl Location {
    /// A location naming a stream type only.
    pub const fn stream(type_id: u32) -> Self {
        Self {
            entry: None,
            type_id: Some(type_id),
            record: None,
            offset: None,
        }
    }

    /// The same location with the entry index set.
    #[must_use]
    pub const fn entry(mut self, entry: Option<usize>) -> Self {
        self.entry = entry;
        self
    }

    /// The same location with a record index and its byte offset (`record * stride +
    /// field_offset`).
    #[must_use]
    pub fn record(mut self, record: usize, stride: usize, field: usize) -> Self {
        self.record = Some(record);
        self.offset = (record as u64)
            .checked_mul(stride as u64)
            .and_then(|o| o.checked_add(field as u64));
        self
    }

    /// The same location with a byte offset.
    #[must_use]
    pub const fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(e) = self.entry {
            write!(f, "entry #{e}")?;
            sep = " ";
        }
        if let Some(t) = self.type_id {
            write!(f, "{sep}type {t}")?;
            sep = " ";
        }
        if let Some(r) = self.record {
            write!(f, "{sep}record {r}")?;
            sep = " ";
        }
        if let Some(o) = self.offset {
            write!(f, "{sep}offset {o:#x}")?;
        }
        Ok(())
    }
}

/// What a check expected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expected {
    /// Exactly this value.
    Exactly(u64),
    /// Strictly less than this value.
    LessThan(u64),
    /// At most this value.
    AtMost(u64),
    /// At least this value.
    AtLeast(u64),
    /// A multiple of this value.
    MultipleOf(u64),
    /// One of these values.
    OneOf(&'static [u64]),
    /// A described condition.
    Condition(&'static str),
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Exactly(v) => write!(f, "{v}"),
            Expected::LessThan(v) => write!(f, "< {v}"),
            Expected::AtMost(v) => write!(f, "<= {v}"),
            Expected::AtLeast(v) => write!(f, ">= {v}"),
            Expected::MultipleOf(v) => write!(f, "a multiple of {v}"),
            Expected::OneOf(v) => write!(f, "one of {v:?}"),
            Expected::Condition(c) => f.write_str(c),
        }
    }
}

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Found {
    /// An integer (count, size, index, sum).
    Int(u64),
    /// A float value.
    Float(f32),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Int(v) => write!(f, "{v}"),
            Found::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// Everything that can go wrong reading, building or sampling an MSH model.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MshError {
    /// [`Check::Container`]: the nested NRes failed its own strict reader or writer.
    #[error("[container] {0}")]
    Container(#[from] NresError),
    /// A strict check failed.
    #[error("[{check}] {at}: {what}: expected {expected}, found {found}")]
    Invalid {
        /// The failed check.
        check: Check,
        /// Where.
        at: Location,
        /// The field or quantity checked.
        what: &'static str,
        /// What the check wanted.
        expected: Expected,
        /// What the input had.
        found: Found,
    },
    /// A node index outside the node table was asked for.
    #[error("[node_index] expected a node < {count}, found {node}")]
    NodeOutOfRange {
        /// The index asked for.
        node: usize,
        /// Number of typed nodes.
        count: usize,
    },
    /// The model has the MTCHECK type-1 variant (stride 24): no typed nodes exist.
    #[error("[node_layout] type 1 has the opaque MTCHECK stride 24: no typed nodes")]
    OpaqueNodes,
    /// A pose slice does not match the node count.
    #[error("[pose_count] expected {expected} poses, found {found}")]
    PoseCount {
        /// Node count.
        expected: usize,
        /// Poses given.
        found: usize,
    },
    /// [`Check::ParentCycle`] found while ordering a hierarchy.
    #[error("[parent_cycle] node {node}: parent links form a cycle")]
    Cycle {
        /// A node on the cycle.
        node: usize,
    },
}

impl MshError {
    /// The strict check this error reports, if it is one.
    pub fn check(&self) -> Option<Check> {
        match self {
            MshError::Container(_) => Some(Check::Container),
            MshError::Invalid { check, .. } => Some(*check),
            MshError::Cycle { .. } => Some(Check::ParentCycle),
            _ => None,
        }
    }

    pub(crate) fn invalid(
        check: Check,
        at: Location,
        what: &'static str,
        expected: Expected,
        found: u64,
    ) -> Self {
        MshError::Invalid {
            check,
            at,
            what,
            expected,
            found: Found::Int(found),
        }
    }
}
