//! Raw on-disk records of the MSH streams (FORMATS §7.3–§7.9, tome V "MSH как граф
//! модели"): fixed offsets, little-endian, decoded field by field; every record encodes
//! back to the same bytes (f32 kept as bits, opaque words kept raw).

/// "No geometry / no map / root / no link" marker of 16-bit indices.
pub const NONE_U16: u16 = 0xFFFF;
/// Levels of detail in the `Node38` slot matrix.
pub const LOD_COUNT: usize = 3;
/// Groups per LOD in the `Node38` slot matrix.
pub const GROUP_COUNT: usize = 5;
/// Size of the opaque header in front of the `Slot68` table (type 2).
pub const SLOT_HEADER_SIZE: usize = 0x8C;

/// Reads a little-endian `u16` at `off`; 0 when out of bounds (never happens for the
/// exact-size chunks this module is given).
fn u16_at(b: &[u8], off: usize) -> u16 {
    b.get(off..off + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn f32_at(b: &[u8], off: usize) -> f32 {
    f32::from_bits(u32_at(b, off))
}

fn f32x3_at(b: &[u8], off: usize) -> [f32; 3] {
    [f32_at(b, off), f32_at(b, off + 4), f32_at(b, off + 8)]
}

fn put_f32x3(out: &mut Vec<u8>, v: [f32; 3]) {
    for c in v {
        out.extend_from_slice(&c.to_bits().to_le_bytes());
    }
}

/// A fixed-size record of one stream.
pub trait Record: Sized + Copy {
    /// Bytes per record (the stream stride).
    const SIZE: usize;
    /// Decodes one record from exactly [`Record::SIZE`] bytes.
    fn decode(bytes: &[u8]) -> Self;
    /// Appends the [`Record::SIZE`] bytes of this record.
    fn encode(&self, out: &mut Vec<u8>);
}

/// Type 1 node (38 bytes).
///
/// ```text
/// +0x00 u16 hdr0 (opaque)      +0x02 u16 parent_or_link (0xFFFF = root)
/// +0x04 u16 anim_map_start     +0x06 u16 fallback_key
/// +0x08 u16 slot_index[15]     slot_index[lod * 5 + group], 0xFFFF = no geometry
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node38 {
    /// Opaque header word (layout), kept raw.
    pub hdr0: u16,
    /// Parent node index, or [`NONE_U16`] for a root.
    pub parent: u16,
    /// Start of this node's block in the type-19 frame map, or [`NONE_U16`].
    pub anim_map_start: u16,
    /// Type-8 key used as the static pose and the end of the track.
    pub fallback_key: u16,
    /// Slot matrix `[lod * 5 + group]`; [`NONE_U16`] = no geometry.
    pub slot_index: [u16; LOD_COUNT * GROUP_COUNT],
}

impl Node38 {
    /// A root node without animation map and without geometry.
    pub const fn new(fallback_key: u16) -> Self {
        Self {
            hdr0: 0,
            parent: NONE_U16,
            anim_map_start: NONE_U16,
            fallback_key,
            slot_index: [NONE_U16; LOD_COUNT * GROUP_COUNT],
        }
    }

    /// The parent index, `None` for a root.
    pub fn parent(&self) -> Option<usize> {
        (self.parent != NONE_U16).then_some(usize::from(self.parent))
    }

    /// The slot of `(lod, group)`; `None` for "no geometry" or indices outside 3 × 5.
    pub fn slot(&self, lod: usize, group: usize) -> Option<u16> {
        if lod >= LOD_COUNT || group >= GROUP_COUNT {
            return None;
        }
        let sid = self.slot_index[lod * GROUP_COUNT + group];
        (sid != NONE_U16).then_some(sid)
    }
}

impl Record for Node38 {
    const SIZE: usize = 38;
    fn decode(b: &[u8]) -> Self {
        let mut slot_index = [0; LOD_COUNT * GROUP_COUNT];
        for (i, s) in slot_index.iter_mut().enumerate() {
            *s = u16_at(b, 8 + 2 * i);
        }
        Self {
            hdr0: u16_at(b, 0),
            parent: u16_at(b, 2),
            anim_map_start: u16_at(b, 4),
            fallback_key: u16_at(b, 6),
            slot_index,
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        for w in [
            self.hdr0,
            self.parent,
            self.anim_map_start,
            self.fallback_key,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for s in self.slot_index {
            out.extend_from_slice(&s.to_le_bytes());
        }
    }
}

/// Type 2 slot (68 bytes, after the 0x8C opaque header).
///
/// ```text
/// +0x00 u16 tri_start   +0x02 u16 tri_count   +0x04 u16 batch_start  +0x06 u16 batch_count
/// +0x08 f32[3] aabb_min +0x14 f32[3] aabb_max +0x20 f32[3] sphere_center
/// +0x2C f32 sphere_radius                      +0x30 u32[5] opaque
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slot68 {
    /// First triangle descriptor (type 7).
    pub tri_start: u16,
    /// Number of triangle descriptors.
    pub tri_count: u16,
    /// First batch (type 13).
    pub batch_start: u16,
    /// Number of batches.
    pub batch_count: u16,
    /// AABB minimum corner.
    pub aabb_min: [f32; 3],
    /// AABB maximum corner.
    pub aabb_max: [f32; 3],
    /// Bounding sphere centre.
    pub sphere_center: [f32; 3],
    /// Bounding sphere radius.
    pub sphere_radius: f32,
    /// Five opaque words (layout), kept raw.
    pub opaque: [u32; 5],
}

impl Record for Slot68 {
    const SIZE: usize = 68;
    fn decode(b: &[u8]) -> Self {
        let mut opaque = [0; 5];
        for (i, w) in opaque.iter_mut().enumerate() {
            *w = u32_at(b, 0x30 + 4 * i);
        }
        Self {
            tri_start: u16_at(b, 0),
            tri_count: u16_at(b, 2),
            batch_start: u16_at(b, 4),
            batch_count: u16_at(b, 6),
            aabb_min: f32x3_at(b, 0x08),
            aabb_max: f32x3_at(b, 0x14),
            sphere_center: f32x3_at(b, 0x20),
            sphere_radius: f32_at(b, 0x2C),
            opaque,
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        for w in [
            self.tri_start,
            self.tri_count,
            self.batch_start,
            self.batch_count,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        put_f32x3(out, self.aabb_min);
        put_f32x3(out, self.aabb_max);
        put_f32x3(out, self.sphere_center);
        out.extend_from_slice(&self.sphere_radius.to_bits().to_le_bytes());
        for w in self.opaque {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
}

/// Type 3 position `f32 x, y, z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub [f32; 3]);

impl Record for Position {
    const SIZE: usize = 12;
    fn decode(b: &[u8]) -> Self {
        Self(f32x3_at(b, 0))
    }
    fn encode(&self, out: &mut Vec<u8>) {
        put_f32x3(out, self.0);
    }
}

/// Type 4 packed normal `i8 x, y, z, w`; `w` is kept raw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedNormal(pub [i8; 4]);

impl PackedNormal {
    /// XYZ as `clamp(v / 127, -1, 1)` (so -128 decodes to -1).
    pub fn decode_xyz(&self) -> [f32; 3] {
        let f = |v: i8| (f32::from(v) / 127.0).clamp(-1.0, 1.0);
        [f(self.0[0]), f(self.0[1]), f(self.0[2])]
    }
}

impl Record for PackedNormal {
    const SIZE: usize = 4;
    fn decode(b: &[u8]) -> Self {
        let g = |i: usize| b.get(i).map_or(0, |&v| v as i8);
        Self([g(0), g(1), g(2), g(3)])
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend(self.0.map(|v| v as u8));
    }
}

/// Type 5 packed UV0 `i16 u, v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedUv(pub [i16; 2]);

impl PackedUv {
    /// `(u / 1024, v / 1024)`.
    pub fn decode(&self) -> [f32; 2] {
        [f32::from(self.0[0]) / 1024.0, f32::from(self.0[1]) / 1024.0]
    }
}

impl Record for PackedUv {
    const SIZE: usize = 4;
    fn decode(b: &[u8]) -> Self {
        Self([u16_at(b, 0) as i16, u16_at(b, 2) as i16])
    }
    fn encode(&self, out: &mut Vec<u8>) {
        for v in self.0 {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Type 7 triangle descriptor (16 bytes).
///
/// ```text
/// +0x00 u16 tri_flags (opaque) +0x02 u16 link0 +0x04 u16 link1 +0x06 u16 link2
/// +0x08 i16 nx +0x0A i16 ny +0x0C i16 nz       +0x0E u16 sel_packed
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TriDesc16 {
    /// Opaque flags (layout).
    pub tri_flags: u16,
    /// Adjacency links (inferred).
    pub links: [u16; 3],
    /// Packed normal (inferred).
    pub normal: [i16; 3],
    /// Three 2-bit selectors plus untouched upper bits.
    pub sel_packed: u16,
}

impl TriDesc16 {
    /// Selector `i` (0..3): bits `2i..2i+2` of `sel_packed` (our choice: the bit positions
    /// are not documented); the value 3 decodes to [`NONE_U16`]. `None` for `i >= 3`.
    pub fn selector(&self, i: usize) -> Option<u16> {
        if i >= 3 {
            return None;
        }
        let v = (self.sel_packed >> (2 * i)) & 3;
        Some(if v == 3 { NONE_U16 } else { v })
    }
}

impl Record for TriDesc16 {
    const SIZE: usize = 16;
    fn decode(b: &[u8]) -> Self {
        Self {
            tri_flags: u16_at(b, 0),
            links: [u16_at(b, 2), u16_at(b, 4), u16_at(b, 6)],
            normal: [
                u16_at(b, 8) as i16,
                u16_at(b, 10) as i16,
                u16_at(b, 12) as i16,
            ],
            sel_packed: u16_at(b, 14),
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.tri_flags.to_le_bytes());
        for l in self.links {
            out.extend_from_slice(&l.to_le_bytes());
        }
        for n in self.normal {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.sel_packed.to_le_bytes());
    }
}

/// Type 13 draw batch (20 bytes, packed: `u32` fields at unaligned `+0x0A`, `+0x10`).
///
/// ```text
/// +0x00 u16 batch_flags +0x02 u16 material_index +0x04 u16 opaque4 +0x06 u16 opaque6
/// +0x08 u16 index_count +0x0A u32 index_start    +0x0E u16 opaque14 +0x10 u32 base_vertex
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Batch20 {
    /// Opaque flags (layout).
    pub batch_flags: u16,
    /// Row of the model's WEAR table.
    pub material_index: u16,
    /// Opaque word at `+0x04`.
    pub opaque4: u16,
    /// Opaque word at `+0x06`.
    pub opaque6: u16,
    /// Number of indices.
    pub index_count: u16,
    /// First index (element index into type 6).
    pub index_start: u32,
    /// Opaque word at `+0x0E`.
    pub opaque14: u16,
    /// Added to every index of the batch.
    pub base_vertex: u32,
}

impl Record for Batch20 {
    const SIZE: usize = 20;
    fn decode(b: &[u8]) -> Self {
        Self {
            batch_flags: u16_at(b, 0),
            material_index: u16_at(b, 2),
            opaque4: u16_at(b, 4),
            opaque6: u16_at(b, 6),
            index_count: u16_at(b, 8),
            index_start: u32_at(b, 0x0A),
            opaque14: u16_at(b, 0x0E),
            base_vertex: u32_at(b, 0x10),
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        for w in [
            self.batch_flags,
            self.material_index,
            self.opaque4,
            self.opaque6,
            self.index_count,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.index_start.to_le_bytes());
        out.extend_from_slice(&self.opaque14.to_le_bytes());
        out.extend_from_slice(&self.base_vertex.to_le_bytes());
    }
}

/// Type 8 animation key (24 bytes).
///
/// ```text
/// +0x00 f32[3] position  +0x0C f32 time  +0x10 i16 qx, qy, qz, qw  (disk order x, y, z, w)
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimKey24 {
    /// Local translation.
    pub position: [f32; 3],
    /// Key time (in frame units, see the crate docs).
    pub time: f32,
    /// Raw quaternion in disk order `[x, y, z, w]`.
    pub rotation: [i16; 4],
}

impl AnimKey24 {
    /// The quaternion as `raw / 32767` per component, **not** normalised
    /// (project decision 3); glam stores it as `(x, y, z, w)`.
    pub fn quat(&self) -> glam::Quat {
        let f = |v: i16| f32::from(v) / 32767.0;
        let [x, y, z, w] = self.rotation;
        glam::Quat::from_xyzw(f(x), f(y), f(z), f(w))
    }
}

impl Record for AnimKey24 {
    const SIZE: usize = 24;
    fn decode(b: &[u8]) -> Self {
        Self {
            position: f32x3_at(b, 0),
            time: f32_at(b, 0x0C),
            rotation: [0, 1, 2, 3].map(|i| u16_at(b, 0x10 + 2 * i) as i16),
        }
    }
    fn encode(&self, out: &mut Vec<u8>) {
        put_f32x3(out, self.position);
        out.extend_from_slice(&self.time.to_bits().to_le_bytes());
        for q in self.rotation {
            out.extend_from_slice(&q.to_le_bytes());
        }
    }
}

/// Decodes record `index` of a stream; `None` past the end.
pub(crate) fn record_at<T: Record>(data: &[u8], index: usize) -> Option<T> {
    let start = index.checked_mul(T::SIZE)?;
    data.get(start..start.checked_add(T::SIZE)?).map(T::decode)
}

/// Iterator over the records of a stream (whole records only).
#[derive(Clone, Debug)]
pub struct Records<'a, T> {
    chunks: std::slice::ChunksExact<'a, u8>,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T: Record> Records<'a, T> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Self {
            chunks: data.chunks_exact(T::SIZE),
            _t: std::marker::PhantomData,
        }
    }
}

impl<T: Record> Iterator for Records<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.chunks.next().map(T::decode)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: Record> ExactSizeIterator for Records<'_, T> {}

/// Encodes a slice of records into a fresh stream payload.
pub fn encode_all<T: Record>(records: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len().saturating_mul(T::SIZE));
    for r in records {
        r.encode(&mut out);
    }
    out
}
