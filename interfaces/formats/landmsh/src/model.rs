//! The typed streams of a `Land.msh` ([`Streams`]), their records, the per-stream
//! encoders/decoders and the cross-reference validation shared by reader and writer.

use crate::error::LandMshError;

/// Stream type of the node/slot mapping (38-byte records, raw).
pub const TYPE_NODES: u32 = 1;
/// Stream type of the terrain slots (0x8C-byte header + 68-byte slots).
pub const TYPE_SLOTS: u32 = 2;
/// Stream type of the `f32[3]` positions.
pub const TYPE_POSITIONS: u32 = 3;
/// Stream type of the packed `i8[4]` normals.
pub const TYPE_NORMALS: u32 = 4;
/// Stream type of the packed `i16[2]` UVs.
pub const TYPE_UVS: u32 = 5;
/// Stream type of the microtexture mapping words (4 bytes each).
pub const TYPE_MICROTEXTURE: u32 = 18;
/// Stream type of the auxiliary words (4 bytes each).
pub const TYPE_AUXILIARY: u32 = 14;
/// Stream type 11 (4-byte words: "material pairs" in FORMATS, "cell accelerator data" in tome IV).
pub const TYPE_CELLS: u32 = 11;
/// Stream type of the [`TerrainFace`] records.
pub const TYPE_FACES: u32 = 21;

/// The physical stream order of every known `Land.msh`.
pub const STREAM_ORDER: [u32; 9] = [
    TYPE_NODES,
    TYPE_SLOTS,
    TYPE_POSITIONS,
    TYPE_NORMALS,
    TYPE_UVS,
    TYPE_MICROTEXTURE,
    TYPE_AUXILIARY,
    TYPE_CELLS,
    TYPE_FACES,
];

/// Element stride (`attr3`) of each stream type; type 2 uses [`SLOT_SIZE`] after a
/// [`SLOT_HEADER_SIZE`]-byte header and its `attr3` is not checked.
pub const fn stride_of(type_id: u32) -> Option<u32> {
    match type_id {
        TYPE_NODES => Some(NODE_SIZE as u32),
        TYPE_SLOTS => Some(SLOT_SIZE as u32),
        TYPE_POSITIONS => Some(12),
        TYPE_NORMALS | TYPE_UVS | TYPE_MICROTEXTURE | TYPE_AUXILIARY | TYPE_CELLS => Some(4),
        TYPE_FACES => Some(FACE_SIZE as u32),
        _ => None,
    }
}

/// Size of a type-1 record.
pub const NODE_SIZE: usize = 38;
/// Size of the opaque type-2 header.
pub const SLOT_HEADER_SIZE: usize = 0x8C;
/// Size of a type-2 slot.
pub const SLOT_SIZE: usize = 68;
/// Size of a [`TerrainFace`] record.
pub const FACE_SIZE: usize = 28;
/// Neighbour value meaning "no neighbour".
pub const NO_NEIGHBOUR: u16 = 0xFFFF;
/// Type-11 flag bit marking a batch boundary in `GetShade` (FORMATS §6.1, newer docs).
pub const PAIR_BATCH_BOUNDARY: u16 = 0x0010;

/// A type-2 terrain slot (68 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TerrainSlot {
    /// `+0x00`: first type-11 entry used by this slot (FORMATS §6.1; not in tome IV).
    pub pair_table_index: u16,
    /// `+0x02`: number of consecutive type-11 entries (FORMATS §6.1; not in tome IV).
    pub pair_count: u16,
    /// `+0x04..+0x44`: opaque, preserved byte for byte.
    pub opaque: [u8; 64],
}

impl Default for TerrainSlot {
    fn default() -> Self {
        Self {
            pair_table_index: 0,
            pair_count: 0,
            opaque: [0; 64],
        }
    }
}

/// A `TerrainFace28` record (type 21, corrected layout of FORMATS §6.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TerrainFace {
    /// `+0x00`: full 32-bit surface mask (see [`crate::mask`]).
    pub full_mask: u32,
    /// `+0x04`: low byte = `Land2.wea` row, high byte = `Land1.wea` row or `0xFF` (none).
    pub material_tag: u16,
    /// `+0x06`: opaque.
    pub aux_tag: u16,
    /// `+0x08`: vertex indices, each `<` the position count.
    pub vertices: [u16; 3],
    /// `+0x0E`: neighbour faces, [`NO_NEIGHBOUR`] or `<` the face count. Our authoring
    /// convention (the sources do not fix one): `neighbours[k]` shares the edge
    /// `vertices[k] → vertices[(k + 1) % 3]`.
    pub neighbours: [u16; 3],
    /// `+0x14..+0x1C`: "material/class/edge fields", kept raw.
    pub tail: [u8; 8],
}

/// Every stream of a `Land.msh`, typed where the spec confirms the layout and raw
/// otherwise. Element counts are the vector lengths.
#[derive(Clone, Debug, PartialEq)]
pub struct Streams {
    /// Type 1: raw 38-byte node/slot mapping records (layout only).
    pub nodes: Vec<[u8; NODE_SIZE]>,
    /// Type 2: the opaque 0x8C-byte header.
    pub slot_header: [u8; SLOT_HEADER_SIZE],
    /// Type 2: the slots.
    pub slots: Vec<TerrainSlot>,
    /// Type 3: positions (bits preserved).
    pub positions: Vec<[f32; 3]>,
    /// Type 4: packed normals; the 4th byte is preserved.
    pub normals: Vec<[i8; 4]>,
    /// Type 5: packed UVs (value / 1024, see [`uv_to_f32`]).
    pub uvs: Vec<[i16; 2]>,
    /// Type 18: microtexture mapping words (kept as raw 4-byte words).
    pub microtexture: Vec<u32>,
    /// Type 14: auxiliary words (opaque).
    pub auxiliary: Vec<u32>,
    /// Type 11: 4-byte words; see [`pair_key`] / [`pair_flags`] for the newer-docs reading.
    pub cells: Vec<u32>,
    /// Type 21: faces.
    pub faces: Vec<TerrainFace>,
}

impl Default for Streams {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            slot_header: [0; SLOT_HEADER_SIZE],
            slots: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            microtexture: Vec::new(),
            auxiliary: Vec::new(),
            cells: Vec::new(),
            faces: Vec::new(),
        }
    }
}

/// Converts a packed UV component to a float (`value / 1024`).
pub fn uv_to_f32(v: i16) -> f32 {
    f32::from(v) / 1024.0
}

/// Type-11 word as a pair: the low `u16`, `shade_lookup_key` (FORMATS §6.1, newer docs;
/// tome IV calls the stream "cell accelerator data", so this reading is not the tome's).
pub const fn pair_key(word: u32) -> u16 {
    word as u16
}

/// Type-11 word as a pair: the high `u16`, `flags` (see [`PAIR_BATCH_BOUNDARY`]).
pub const fn pair_flags(word: u32) -> u16 {
    (word >> 16) as u16
}

fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

impl TerrainFace {
    /// Decodes one 28-byte record.
    pub fn decode(b: &[u8; FACE_SIZE]) -> Self {
        let mut tail = [0; 8];
        tail.copy_from_slice(&b[0x14..0x1C]);
        Self {
            full_mask: u32_at(b, 0),
            material_tag: u16_at(b, 4),
            aux_tag: u16_at(b, 6),
            vertices: [u16_at(b, 0x08), u16_at(b, 0x0A), u16_at(b, 0x0C)],
            neighbours: [u16_at(b, 0x0E), u16_at(b, 0x10), u16_at(b, 0x12)],
            tail,
        }
    }

    /// Encodes one 28-byte record.
    pub fn encode(&self) -> [u8; FACE_SIZE] {
        let mut b = [0; FACE_SIZE];
        b[0..4].copy_from_slice(&self.full_mask.to_le_bytes());
        b[4..6].copy_from_slice(&self.material_tag.to_le_bytes());
        b[6..8].copy_from_slice(&self.aux_tag.to_le_bytes());
        for k in 0..3 {
            b[0x08 + 2 * k..0x0A + 2 * k].copy_from_slice(&self.vertices[k].to_le_bytes());
            b[0x0E + 2 * k..0x10 + 2 * k].copy_from_slice(&self.neighbours[k].to_le_bytes());
        }
        b[0x14..0x1C].copy_from_slice(&self.tail);
        b
    }
}

/// Splits `data` (whose length is a checked multiple of `N`) into records.
fn records<const N: usize, T>(data: &[u8], f: impl Fn(&[u8; N]) -> T) -> Vec<T> {
    data.chunks_exact(N)
        .map(|c| {
            let mut a = [0u8; N];
            a.copy_from_slice(c);
            f(&a)
        })
        .collect()
}

impl Streams {
    /// Decodes the payload of stream `type_id` (its size already checked against
    /// count × stride) into `self`.
    pub(crate) fn decode_stream(&mut self, type_id: u32, data: &[u8]) {
        match type_id {
            TYPE_NODES => self.nodes = records::<NODE_SIZE, _>(data, |a| *a),
            TYPE_SLOTS => {
                let (h, rest) = data.split_at(SLOT_HEADER_SIZE.min(data.len()));
                self.slot_header[..h.len()].copy_from_slice(h);
                self.slots = records::<SLOT_SIZE, _>(rest, |a| {
                    let mut opaque = [0; 64];
                    opaque.copy_from_slice(&a[4..]);
                    TerrainSlot {
                        pair_table_index: u16_at(a, 0),
                        pair_count: u16_at(a, 2),
                        opaque,
                    }
                });
            }
            TYPE_POSITIONS => {
                self.positions =
                    records::<12, _>(data, |a| [0, 4, 8].map(|o| f32::from_bits(u32_at(a, o))));
            }
            TYPE_NORMALS => self.normals = records::<4, _>(data, |a| a.map(|b| b as i8)),
            TYPE_UVS => {
                self.uvs = records::<4, _>(data, |a| [u16_at(a, 0) as i16, u16_at(a, 2) as i16])
            }
            TYPE_MICROTEXTURE => {
                self.microtexture = records::<4, _>(data, |a| u32::from_le_bytes(*a))
            }
            TYPE_AUXILIARY => self.auxiliary = records::<4, _>(data, |a| u32::from_le_bytes(*a)),
            TYPE_CELLS => self.cells = records::<4, _>(data, |a| u32::from_le_bytes(*a)),
            TYPE_FACES => self.faces = records::<FACE_SIZE, _>(data, TerrainFace::decode),
            _ => {}
        }
    }

    /// Element count of stream `type_id` (type 2: slot count).
    pub fn count(&self, type_id: u32) -> usize {
        match type_id {
            TYPE_NODES => self.nodes.len(),
            TYPE_SLOTS => self.slots.len(),
            TYPE_POSITIONS => self.positions.len(),
            TYPE_NORMALS => self.normals.len(),
            TYPE_UVS => self.uvs.len(),
            TYPE_MICROTEXTURE => self.microtexture.len(),
            TYPE_AUXILIARY => self.auxiliary.len(),
            TYPE_CELLS => self.cells.len(),
            TYPE_FACES => self.faces.len(),
            _ => 0,
        }
    }

    /// Encodes the payload of stream `type_id` (empty for a type that is not a stream).
    pub fn encode_stream(&self, type_id: u32) -> Vec<u8> {
        let stride = stride_of(type_id).unwrap_or(0) as usize;
        let header = if type_id == TYPE_SLOTS {
            SLOT_HEADER_SIZE
        } else {
            0
        };
        let mut out = Vec::with_capacity(header + self.count(type_id) * stride);
        match type_id {
            TYPE_NODES => self.nodes.iter().for_each(|n| out.extend_from_slice(n)),
            TYPE_SLOTS => {
                out.extend_from_slice(&self.slot_header);
                for s in &self.slots {
                    out.extend_from_slice(&s.pair_table_index.to_le_bytes());
                    out.extend_from_slice(&s.pair_count.to_le_bytes());
                    out.extend_from_slice(&s.opaque);
                }
            }
            TYPE_POSITIONS => self
                .positions
                .iter()
                .flatten()
                .for_each(|v| out.extend_from_slice(&v.to_bits().to_le_bytes())),
            TYPE_NORMALS => self
                .normals
                .iter()
                .flatten()
                .for_each(|&v| out.push(v as u8)),
            TYPE_UVS => self
                .uvs
                .iter()
                .flatten()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            TYPE_MICROTEXTURE => words(&mut out, &self.microtexture),
            TYPE_AUXILIARY => words(&mut out, &self.auxiliary),
            TYPE_CELLS => words(&mut out, &self.cells),
            TYPE_FACES => self
                .faces
                .iter()
                .for_each(|f| out.extend_from_slice(&f.encode())),
            _ => {}
        }
        out
    }

    /// Checks every face reference: vertex indices `<` position count, neighbours
    /// `0xFFFF` or `<` face count, and (unless `allow_self`) no face its own neighbour.
    /// `faces_offset` is the file offset of the type-21 payload, used in errors.
    pub fn validate_faces(&self, faces_offset: u64, allow_self: bool) -> Result<(), LandMshError> {
        let limit_v = self.positions.len() as u64;
        let limit_f = self.faces.len() as u64;
        for (i, f) in self.faces.iter().enumerate() {
            let base = faces_offset + (i as u64) * FACE_SIZE as u64;
            for (k, &v) in f.vertices.iter().enumerate() {
                if u64::from(v) >= limit_v {
                    return Err(LandMshError::VertexIndex {
                        face: i,
                        corner: k,
                        offset: base + 0x08 + 2 * k as u64,
                        limit: limit_v,
                        found: v,
                    });
                }
            }
            for (k, &n) in f.neighbours.iter().enumerate() {
                let offset = base + 0x0E + 2 * k as u64;
                if n != NO_NEIGHBOUR && u64::from(n) >= limit_f {
                    return Err(LandMshError::NeighbourIndex {
                        face: i,
                        edge: k,
                        offset,
                        limit: limit_f,
                        found: n,
                    });
                }
                if !allow_self && n != NO_NEIGHBOUR && usize::from(n) == i {
                    return Err(LandMshError::SelfNeighbour {
                        face: i,
                        edge: k,
                        offset,
                    });
                }
            }
        }
        Ok(())
    }

    /// Finds the first self-neighbour (face, edge), if any.
    pub(crate) fn first_self_neighbour(&self) -> Option<(usize, usize)> {
        self.faces.iter().enumerate().find_map(|(i, f)| {
            f.neighbours
                .iter()
                .position(|&n| n != NO_NEIGHBOUR && usize::from(n) == i)
                .map(|k| (i, k))
        })
    }
}

fn words(out: &mut Vec<u8>, w: &[u32]) {
    w.iter()
        .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
}
