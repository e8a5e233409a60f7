//! `Msh`: the parsed model. Holds the lossless NRes document (for byte-identical output),
//! the streams in original entry order, and zero-copy typed views found by `type_id`.

use crate::error::MshError;
use crate::records::{
    AnimKey24, Batch20, Node38, PackedNormal, PackedUv, Position, Record, Records,
    SLOT_HEADER_SIZE, Slot68, TriDesc16, record_at,
};
use crate::validate;
use iron3d_nres::{Nres, NresDocument};

/// Stream type ids (FORMATS §7.2).
pub mod stream_type {
    /// `Node38` nodes (or the opaque MTCHECK variant).
    pub const NODES: u32 = 1;
    /// 0x8C opaque header + `Slot68` table.
    pub const SLOTS: u32 = 2;
    /// Positions `f32[3]`.
    pub const POSITIONS: u32 = 3;
    /// Packed normals `i8[4]`.
    pub const NORMALS: u32 = 4;
    /// Packed UV0 `i16[2]`.
    pub const UVS: u32 = 5;
    /// Indices `u16`.
    pub const INDICES: u32 = 6;
    /// `TriDesc16` triangle descriptors.
    pub const TRIS: u32 = 7;
    /// `AnimKey24` pool.
    pub const KEYS: u32 = 8;
    /// Opaque service stream.
    pub const SERVICE: u32 = 9;
    /// Node names.
    pub const NAMES: u32 = 10;
    /// `Batch20` draw ranges.
    pub const BATCHES: u32 = 13;
    /// Opaque auxiliary stream, stride 8.
    pub const AUX15: u32 = 15;
    /// Opaque auxiliary data.
    pub const AUX17: u32 = 17;
    /// Opaque rare stream, stride 4.
    pub const AUX18: u32 = 18;
    /// Frame map `u16`; `attr2` = timeline frame count.
    pub const FRAME_MAP: u32 = 19;
    /// Opaque rare auxiliary table.
    pub const AUX20: u32 = 20;
    /// Required exactly once.
    pub const REQUIRED: [u32; 5] = [NODES, SLOTS, POSITIONS, INDICES, BATCHES];
    /// Optional, typed: at most once.
    pub const OPTIONAL_TYPED: [u32; 6] = [NORMALS, UVS, TRIS, KEYS, NAMES, FRAME_MAP];

    /// The stride the spec knows for a type (type 1 and 2 excluded: see their checks).
    pub const fn stride(type_id: u32) -> Option<usize> {
        match type_id {
            POSITIONS => Some(12),
            NORMALS | UVS | AUX18 => Some(4),
            INDICES | FRAME_MAP => Some(2),
            TRIS => Some(16),
            KEYS => Some(24),
            BATCHES => Some(20),
            AUX15 => Some(8),
            _ => None,
        }
    }
}

/// Node stride of the usual type-1 layout.
pub const NODE38_STRIDE: u32 = 38;
/// Node stride of the opaque `MTCHECK.MSH` variant (copied through).
pub const MTCHECK_NODE_STRIDE: u32 = 24;

/// How type 1 is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeLayout {
    /// `Node38` records (`attr3 == 38`).
    Node38,
    /// The `MTCHECK.MSH` variant (`attr3 == 24`): layout unknown, kept raw, no typed nodes.
    Opaque24,
}

/// One nested entry (a typed stream), in original order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream<'a> {
    /// Index in the nested directory.
    pub index: usize,
    /// Stream type.
    pub type_id: u32,
    /// Attribute 1 (element count in our own content; raw otherwise).
    pub attr1: u32,
    /// Attribute 2 (type 19: timeline frame count).
    pub attr2: u32,
    /// Attribute 3 (type 1: node stride).
    pub attr3: u32,
    /// Entry name value.
    pub name: &'a [u8],
    /// Payload.
    pub data: &'a [u8],
}

/// A strictly validated MSH model over borrowed bytes.
#[derive(Clone, Debug)]
pub struct Msh<'a> {
    doc: NresDocument<'a>,
    streams: Vec<Stream<'a>>,
    layout: NodeLayout,
}

impl<'a> Msh<'a> {
    /// Parses and runs every strict check ([`crate::Check::ALL`]).
    pub fn parse(data: &'a [u8]) -> Result<Self, MshError> {
        let nres = Nres::parse(data)?;
        let streams: Vec<Stream<'a>> = nres
            .entries()
            .map(|e| Stream {
                index: e.index(),
                type_id: e.type_id(),
                attr1: e.attr1(),
                attr2: e.attr2(),
                attr3: e.attr3(),
                name: e.name(),
                data: e.data(),
            })
            .collect();
        let layout = validate::streams(&streams)?;
        let msh = Self {
            doc: NresDocument::from_nres(&nres),
            streams,
            layout,
        };
        validate::model(&msh)?;
        Ok(msh)
    }

    /// The model bytes: byte-identical to the input (lossless document).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.doc.to_bytes()
    }

    /// The lossless NRes document, for edits of individual streams.
    pub fn document(&self) -> &NresDocument<'a> {
        &self.doc
    }

    /// Every stream in original entry order.
    pub fn streams(&self) -> &[Stream<'a>] {
        &self.streams
    }

    /// The first stream of a type.
    pub fn stream(&self, type_id: u32) -> Option<&Stream<'a>> {
        self.streams.iter().find(|s| s.type_id == type_id)
    }

    /// The type ids in original entry order.
    pub fn type_order(&self) -> Vec<u32> {
        self.streams.iter().map(|s| s.type_id).collect()
    }

    fn payload(&self, type_id: u32) -> &'a [u8] {
        self.stream(type_id).map_or(&[], |s| s.data)
    }

    /// Type-1 layout.
    pub fn node_layout(&self) -> NodeLayout {
        self.layout
    }

    /// Number of typed nodes (0 for the opaque MTCHECK variant).
    pub fn node_count(&self) -> usize {
        match self.layout {
            NodeLayout::Node38 => self.payload(stream_type::NODES).len() / Node38::SIZE,
            NodeLayout::Opaque24 => 0,
        }
    }

    /// Typed nodes (empty for the opaque MTCHECK variant).
    pub fn nodes(&self) -> Records<'a, Node38> {
        match self.layout {
            NodeLayout::Node38 => Records::new(self.payload(stream_type::NODES)),
            NodeLayout::Opaque24 => Records::new(&[]),
        }
    }

    /// Node `i`.
    pub fn node(&self, i: usize) -> Option<Node38> {
        match self.layout {
            NodeLayout::Node38 => record_at(self.payload(stream_type::NODES), i),
            NodeLayout::Opaque24 => None,
        }
    }

    /// The opaque 0x8C bytes in front of the slot table.
    pub fn slot_header(&self) -> &'a [u8] {
        let d = self.payload(stream_type::SLOTS);
        d.get(..SLOT_HEADER_SIZE).unwrap_or(&[])
    }

    fn slot_bytes(&self) -> &'a [u8] {
        let d = self.payload(stream_type::SLOTS);
        d.get(SLOT_HEADER_SIZE..).unwrap_or(&[])
    }

    /// Number of slots.
    pub fn slot_count(&self) -> usize {
        self.slot_bytes().len() / Slot68::SIZE
    }

    /// The slot table.
    pub fn slots(&self) -> Records<'a, Slot68> {
        Records::new(self.slot_bytes())
    }

    /// Slot `i`.
    pub fn slot(&self, i: usize) -> Option<Slot68> {
        record_at(self.slot_bytes(), i)
    }

    /// Number of vertices (type 3 records).
    pub fn vertex_count(&self) -> usize {
        self.payload(stream_type::POSITIONS).len() / Position::SIZE
    }

    /// Positions (type 3).
    pub fn positions(&self) -> Records<'a, Position> {
        Records::new(self.payload(stream_type::POSITIONS))
    }

    /// Packed normals (type 4; empty if absent).
    pub fn normals(&self) -> Records<'a, PackedNormal> {
        Records::new(self.payload(stream_type::NORMALS))
    }

    /// Packed UV0 (type 5; empty if absent).
    pub fn uvs(&self) -> Records<'a, PackedUv> {
        Records::new(self.payload(stream_type::UVS))
    }

    /// Number of indices (type 6).
    pub fn index_count(&self) -> usize {
        self.payload(stream_type::INDICES).len() / 2
    }

    /// Index `i` of type 6.
    pub fn index(&self, i: usize) -> Option<u16> {
        let d = self.payload(stream_type::INDICES);
        let s = d.get(i.checked_mul(2)?..i.checked_mul(2)?.checked_add(2)?)?;
        Some(u16::from_le_bytes([s[0], s[1]]))
    }

    /// All indices of type 6.
    pub fn indices(&self) -> impl ExactSizeIterator<Item = u16> + 'a {
        self.payload(stream_type::INDICES)
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
    }

    /// Triangle descriptors (type 7; empty if absent).
    pub fn tris(&self) -> Records<'a, TriDesc16> {
        Records::new(self.payload(stream_type::TRIS))
    }

    /// Draw batches (type 13).
    pub fn batches(&self) -> Records<'a, Batch20> {
        Records::new(self.payload(stream_type::BATCHES))
    }

    /// Batch `i`.
    pub fn batch(&self, i: usize) -> Option<Batch20> {
        record_at(self.payload(stream_type::BATCHES), i)
    }

    /// The indices of batch `i` (relative to its `base_vertex`).
    pub fn batch_indices(&self, i: usize) -> Option<impl ExactSizeIterator<Item = u16> + 'a> {
        let b = self.batch(i)?;
        let start = usize::try_from(b.index_start).ok()?.checked_mul(2)?;
        let end = start.checked_add(usize::from(b.index_count) * 2)?;
        let bytes = self.payload(stream_type::INDICES).get(start..end)?;
        Some(
            bytes
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]])),
        )
    }

    /// Number of animation keys (type 8; 0 if absent).
    pub fn key_count(&self) -> usize {
        self.payload(stream_type::KEYS).len() / AnimKey24::SIZE
    }

    /// Animation keys (type 8).
    pub fn keys(&self) -> Records<'a, AnimKey24> {
        Records::new(self.payload(stream_type::KEYS))
    }

    /// Key `i`.
    pub fn key(&self, i: usize) -> Option<AnimKey24> {
        record_at(self.payload(stream_type::KEYS), i)
    }

    /// Timeline frame count: `attr2` of type 19 (0 if absent).
    pub fn frame_count(&self) -> u32 {
        self.stream(stream_type::FRAME_MAP).map_or(0, |s| s.attr2)
    }

    /// Number of frame-map words (type 19).
    pub fn frame_map_len(&self) -> usize {
        self.payload(stream_type::FRAME_MAP).len() / 2
    }

    /// Frame-map word `i`.
    pub fn frame_map_word(&self, i: usize) -> Option<u16> {
        let d = self.payload(stream_type::FRAME_MAP);
        let s = d.get(i.checked_mul(2)?..i.checked_mul(2)?.checked_add(2)?)?;
        Some(u16::from_le_bytes([s[0], s[1]]))
    }

    /// Node names (type 10), one per typed node: `None` for `len == 0`, else the raw
    /// CP1251 bytes without the NUL. Empty when type 10 is absent.
    pub fn node_names(&self) -> NodeNames<'a> {
        let data = match self.layout {
            NodeLayout::Node38 => self.payload(stream_type::NAMES),
            NodeLayout::Opaque24 => &[],
        };
        NodeNames { data, pos: 0 }
    }
}

/// Iterator over the validated type-10 records.
#[derive(Clone, Debug)]
pub struct NodeNames<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for NodeNames<'a> {
    type Item = Option<&'a [u8]>;
    fn next(&mut self) -> Option<Self::Item> {
        let (name, next) = validate::name_record(self.data, self.pos).ok()??;
        self.pos = next;
        Some(name)
    }
}
