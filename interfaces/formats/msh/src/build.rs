//! `MshBuilder`: authoring of new models (multi-node, LODs, groups, animation, names,
//! opaque streams) through the NRes canonical writer; the result is parsed back with
//! the strict reader before it is returned, so a builder never emits an invalid model.

use crate::error::MshError;
use crate::model::{Msh, NODE38_STRIDE, NodeLayout, stream_type as st};
use crate::records::{
    AnimKey24, Batch20, Node38, PackedNormal, PackedUv, Position, Record, SLOT_HEADER_SIZE, Slot68,
    TriDesc16, encode_all,
};
use iron3d_nres::{NameField, NewEntry, NresWriter};

/// The type order of 414 demo models.
pub const BASE_ORDER: [u32; 14] = [1, 2, 3, 4, 5, 15, 13, 6, 7, 8, 19, 9, 10, 17];
/// The type order of 21 demo models (adds types 18 and 20).
pub const EXTENDED_ORDER: [u32; 16] = [1, 2, 3, 4, 5, 18, 15, 13, 6, 7, 8, 19, 9, 10, 17, 20];

/// An opaque or unknown stream, written as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawStream {
    /// Stream type (any type without a typed field in [`MshBuilder`]).
    pub type_id: u32,
    /// `attr1`, `attr2`, `attr3`.
    pub attrs: [u32; 3],
    /// Entry name; `None` = the builder's `msh_t<type>` name.
    pub name: Option<Vec<u8>>,
    /// Payload.
    pub data: Vec<u8>,
}

impl RawStream {
    /// A raw stream with zero attributes and the default name.
    pub fn new(type_id: u32, data: Vec<u8>) -> Self {
        Self {
            type_id,
            attrs: [0; 3],
            name: None,
            data,
        }
    }
}

/// The type-19 frame map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameMap {
    /// Timeline frame count (written to `attr2`).
    pub frame_count: u32,
    /// Map words; node `n` owns `words[start .. start + frame_count]`.
    pub words: Vec<u16>,
}

/// A new model. Typed streams get `attr1` = element count, `attr3` = stride (type 1:
/// 38, type 2: 68), `attr2` = 0 except type 19 (frame count): the Land.msh convention,
/// our choice for MSH. Entries are named `msh_t<type>` unless a raw stream names itself.
#[derive(Clone, Debug, PartialEq)]
pub struct MshBuilder {
    /// Type 1.
    pub nodes: Vec<Node38>,
    /// Type 10 (one per node when present; `None` entry = `len 0`).
    pub names: Option<Vec<Option<Vec<u8>>>>,
    /// The 0x8C opaque header of type 2 (zero for new content).
    pub slot_header: [u8; SLOT_HEADER_SIZE],
    /// Type 2 slots.
    pub slots: Vec<Slot68>,
    /// Type 3.
    pub positions: Vec<[f32; 3]>,
    /// Type 4.
    pub normals: Option<Vec<PackedNormal>>,
    /// Type 5.
    pub uvs: Option<Vec<PackedUv>>,
    /// Type 6.
    pub indices: Vec<u16>,
    /// Type 7.
    pub tris: Option<Vec<TriDesc16>>,
    /// Type 13.
    pub batches: Vec<Batch20>,
    /// Type 8.
    pub keys: Option<Vec<AnimKey24>>,
    /// Type 19.
    pub frame_map: Option<FrameMap>,
    /// Opaque and unknown streams (9, 15, 17, 18, 20, …), in insertion order per type.
    pub raw: Vec<RawStream>,
    /// Physical type order; present types missing here follow at the end.
    pub order: Vec<u32>,
}

impl Default for MshBuilder {
    fn default() -> Self {
        Self {
            nodes: Vec::new(),
            names: None,
            slot_header: [0; SLOT_HEADER_SIZE],
            slots: Vec::new(),
            positions: Vec::new(),
            normals: None,
            uvs: None,
            indices: Vec::new(),
            tris: None,
            batches: Vec::new(),
            keys: None,
            frame_map: None,
            raw: Vec::new(),
            order: BASE_ORDER.to_vec(),
        }
    }
}

fn typed_entry(ty: u32, count: usize, stride: u32, attr2: u32, data: Vec<u8>) -> Pending {
    Pending {
        ty,
        name: None,
        attrs: [u32::try_from(count).unwrap_or(u32::MAX), attr2, stride],
        data,
    }
}

struct Pending {
    ty: u32,
    name: Option<Vec<u8>>,
    attrs: [u32; 3],
    data: Vec<u8>,
}

impl MshBuilder {
    /// An empty builder with [`BASE_ORDER`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder holding everything of a parsed model (typed streams decoded, raw
    /// streams with their attributes and names). Fails for the MTCHECK variant.
    pub fn from_msh(msh: &Msh<'_>) -> Result<Self, MshError> {
        if msh.node_layout() == NodeLayout::Opaque24 {
            return Err(MshError::OpaqueNodes);
        }
        let has = |t: u32| msh.stream(t).is_some();
        let mut header = [0; SLOT_HEADER_SIZE];
        header.copy_from_slice(msh.slot_header());
        let typed = |t: u32| matches!(t, 1..=8 | 10 | 13 | 19);
        Ok(Self {
            nodes: msh.nodes().collect(),
            names: has(st::NAMES)
                .then(|| msh.node_names().map(|n| n.map(<[u8]>::to_vec)).collect()),
            slot_header: header,
            slots: msh.slots().collect(),
            positions: msh.positions().map(|p| p.0).collect(),
            normals: has(st::NORMALS).then(|| msh.normals().collect()),
            uvs: has(st::UVS).then(|| msh.uvs().collect()),
            indices: msh.indices().collect(),
            tris: has(st::TRIS).then(|| msh.tris().collect()),
            batches: msh.batches().collect(),
            keys: has(st::KEYS).then(|| msh.keys().collect()),
            frame_map: has(st::FRAME_MAP).then(|| FrameMap {
                frame_count: msh.frame_count(),
                words: (0..msh.frame_map_len())
                    .filter_map(|i| msh.frame_map_word(i))
                    .collect(),
            }),
            raw: msh
                .streams()
                .iter()
                .filter(|s| !typed(s.type_id))
                .map(|s| RawStream {
                    type_id: s.type_id,
                    attrs: [s.attr1, s.attr2, s.attr3],
                    name: Some(s.name.to_vec()),
                    data: s.data.to_vec(),
                })
                .collect(),
            order: {
                let mut o: Vec<u32> = Vec::new();
                for s in msh.streams() {
                    if !o.contains(&s.type_id) {
                        o.push(s.type_id);
                    }
                }
                o
            },
        })
    }

    fn typed(&self) -> Vec<Pending> {
        let mut v = vec![
            typed_entry(
                st::NODES,
                self.nodes.len(),
                NODE38_STRIDE,
                0,
                encode_all(&self.nodes),
            ),
            {
                let mut data = self.slot_header.to_vec();
                data.extend(encode_all(&self.slots));
                typed_entry(st::SLOTS, self.slots.len(), Slot68::SIZE as u32, 0, data)
            },
            typed_entry(
                st::POSITIONS,
                self.positions.len(),
                12,
                0,
                encode_all(
                    &self
                        .positions
                        .iter()
                        .map(|&p| Position(p))
                        .collect::<Vec<_>>(),
                ),
            ),
            typed_entry(
                st::INDICES,
                self.indices.len(),
                2,
                0,
                self.indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
            ),
            typed_entry(
                st::BATCHES,
                self.batches.len(),
                20,
                0,
                encode_all(&self.batches),
            ),
        ];
        if let Some(n) = &self.normals {
            v.push(typed_entry(st::NORMALS, n.len(), 4, 0, encode_all(n)));
        }
        if let Some(u) = &self.uvs {
            v.push(typed_entry(st::UVS, u.len(), 4, 0, encode_all(u)));
        }
        if let Some(t) = &self.tris {
            v.push(typed_entry(st::TRIS, t.len(), 16, 0, encode_all(t)));
        }
        if let Some(k) = &self.keys {
            v.push(typed_entry(st::KEYS, k.len(), 24, 0, encode_all(k)));
        }
        if let Some(m) = &self.frame_map {
            let data = m.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            v.push(typed_entry(
                st::FRAME_MAP,
                m.words.len(),
                2,
                m.frame_count,
                data,
            ));
        }
        if let Some(names) = &self.names {
            let mut data = Vec::new();
            for n in names {
                match n.as_deref() {
                    None | Some([]) => data.extend_from_slice(&0u32.to_le_bytes()),
                    Some(s) => {
                        let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
                        data.extend_from_slice(&len.to_le_bytes());
                        data.extend_from_slice(s);
                        data.push(0);
                    }
                }
            }
            v.push(typed_entry(st::NAMES, names.len(), 0, 0, data));
        }
        v
    }

    /// Writes the model and checks it with the strict reader.
    pub fn build(&self) -> Result<Vec<u8>, MshError> {
        let bytes = self.build_unchecked()?;
        Msh::parse(&bytes)?;
        Ok(bytes)
    }

    /// Writes the model without the strict check (for tests, fuzz seeds and tools that
    /// need deliberately invalid files); only the NRes writer's own limits apply.
    pub fn build_unchecked(&self) -> Result<Vec<u8>, MshError> {
        let mut pending: Vec<Option<Pending>> = self.typed().into_iter().map(Some).collect();
        pending.extend(self.raw.iter().map(|r| {
            Some(Pending {
                ty: r.type_id,
                name: r.name.clone(),
                attrs: r.attrs,
                data: r.data.clone(),
            })
        }));
        let mut sequence: Vec<Pending> = Vec::with_capacity(pending.len());
        for &t in &self.order {
            for slot in pending.iter_mut() {
                if slot.as_ref().is_some_and(|p| p.ty == t)
                    && let Some(p) = slot.take()
                {
                    sequence.push(p);
                }
            }
        }
        sequence.extend(pending.into_iter().flatten());
        let mut writer = NresWriter::new();
        let mut seen: Vec<(u32, usize)> = Vec::new();
        for p in sequence {
            let name = match p.name {
                Some(n) => n,
                None => {
                    let k = match seen.iter_mut().find(|(t, _)| *t == p.ty) {
                        Some((_, c)) => {
                            *c += 1;
                            *c
                        }
                        None => {
                            seen.push((p.ty, 0));
                            0
                        }
                    };
                    if k == 0 {
                        format!("msh_t{}", p.ty).into_bytes()
                    } else {
                        format!("msh_t{}_{k}", p.ty).into_bytes()
                    }
                }
            };
            let [a1, a2, a3] = p.attrs;
            let field = NameField::new(&name)?;
            writer.push(NewEntry::with_field(field, p.ty, p.data).with_attrs(a1, a2, a3));
        }
        Ok(writer.finish()?)
    }
}
