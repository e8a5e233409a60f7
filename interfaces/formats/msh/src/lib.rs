//! MSH models of Iron3D (Parkan: Iron Strategy): a strict, lossless reader of the nested
//! NRes typed streams, a builder for new models, animation sampling and the node
//! hierarchy. A pure library over `&[u8]`: no file I/O, no kernel.
//!
//! # Layout (FORMATS §7, tome V "MSH как граф модели"; all integers little-endian)
//!
//! ```text
//! *.msh = NRes archive; entries are streams found by type_id, physical order kept
//!  type  stride        content                                   status
//!   1    attr3 = 38    Node38 (MTCHECK variant: 24, kept raw)    required
//!   2    0x8C + 68·n   opaque header + Slot68                    required
//!   3    12            position f32[3]                           required
//!   4    4             normal i8[4] (xyz / 127 clamped, w raw)   optional
//!   5    4             UV0 i16[2] (/ 1024)                       optional
//!   6    2             index u16 (relative to base_vertex)       required
//!   7    16            TriDesc16                                 optional
//!   8    24            AnimKey24                                 optional
//!  10    var           node names: u32 len [+ len bytes + NUL]   optional
//!  13    20            Batch20                                   required
//!  19    2             frame map u16, attr2 = frame count        optional
//!  9 15 17 18 20 and unknown types: raw (15: stride 8, 18: stride 4 checked)
//! ```
//!
//! Record layouts are drawn on [`Node38`], [`Slot68`], [`TriDesc16`], [`Batch20`] and
//! [`AnimKey24`].
//!
//! # Use
//!
//! ```
//! use iron3d_msh::{Batch20, Msh, MshBuilder, Node38, SampleOptions, Slot68, sample_node};
//!
//! let mut b = MshBuilder::new();
//! let mut node = Node38::new(0);
//! node.slot_index[0] = 0;
//! b.nodes.push(node);
//! b.slots.push(Slot68 {
//!     tri_start: 0, tri_count: 0, batch_start: 0, batch_count: 1,
//!     aabb_min: [0.0; 3], aabb_max: [1.0; 3], sphere_center: [0.5; 3],
//!     sphere_radius: 1.0, opaque: [0; 5],
//! });
//! b.positions = vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
//! b.indices = vec![0, 1, 2];
//! b.batches.push(Batch20 {
//!     batch_flags: 0, material_index: 0, opaque4: 0, opaque6: 0,
//!     index_count: 3, index_start: 0, opaque14: 0, base_vertex: 0,
//! });
//! b.keys = Some(vec![iron3d_msh::AnimKey24 { position: [0.0; 3], time: 0.0, rotation: [0, 0, 0, 32767] }]);
//! let bytes = b.build()?;
//! let msh = Msh::parse(&bytes)?;
//! assert_eq!(msh.to_bytes(), bytes);
//! let pose = sample_node(&msh, 0, 0.5, SampleOptions::default())?;
//! assert_eq!(pose.rotation.w, 1.0);
//! # Ok::<(), iron3d_msh::MshError>(())
//! ```
//!
//! # Decisions where the sources leave a choice
//!
//! * **Parent links**: the strict check is the tome's "no cycle" ([`Check::ParentCycle`])
//!   plus "index in range" ([`Check::ParentLink`]); FORMATS' stronger `parent < child`
//!   is not required. [`hierarchy_order`] puts parents first for any acyclic table.
//! * **Time → frame** ([`FrameRule`], open §16.17): time is in frame units (the unit of
//!   key times); `Floor` by default, `RoundHalfEven` as the named alternative.
//! * **Exact hit**: `t == time(k0)` returns `k0`, and `t == time(k0 + 1)` returns
//!   `k0 + 1` (tome: "the corresponding key"); FORMATS' pseudocode only names `k0`.
//! * **Blend** ([`Blend`]): `Nlerp` by default (FParkan), `Slerp` as the option; `alpha`
//!   is not clamped. `t1 <= t0` falls back (FParkan guard).
//! * **No type 8**: [`Check::FallbackKey`] applies only when type 8 exists; poses are
//!   then the identity.
//! * **Key times** ([`Check::KeyTimes`]): a "track" is every pair `(k, k + 1)` that some
//!   node's map selects (`k < fallback_key`); each needs `time(k) < time(k + 1)`.
//! * **MTCHECK**: recognised by type-1 `attr3 == 24` alone (the entry name is outside
//!   this `&[u8]`); no typed nodes, node checks skipped, bytes kept.
//! * **TriDesc16 selectors**: selector `i` = bits `2i..2i+2` (positions undocumented).
//! * **Duplicates** of the typed optional streams are rejected ([`Check::DuplicateStream`]).

mod anim;
mod build;
mod error;
pub mod fuzz_check;
mod hierarchy;
mod model;
mod records;
mod validate;

#[cfg(test)]
mod tests;

pub use anim::{
    Blend, FrameRule, KeySelection, Pose, SampleOptions, blend_pose, blend_quat, frame_index,
    reference, sample_all, sample_node, select_key,
};
pub use build::{BASE_ORDER, EXTENDED_ORDER, FrameMap, MshBuilder, RawStream};
pub use error::{Check, Expected, Found, Location, MshError};
pub use hierarchy::{
    local_matrix, order as hierarchy_order, world_matrices, world_matrices_for, world_origin,
};
pub use model::{
    MTCHECK_NODE_STRIDE, Msh, NODE38_STRIDE, NodeLayout, NodeNames, Stream, stream_type,
};
pub use records::{
    AnimKey24, Batch20, GROUP_COUNT, LOD_COUNT, NONE_U16, Node38, PackedNormal, PackedUv, Position,
    Record, Records, SLOT_HEADER_SIZE, Slot68, TriDesc16, encode_all,
};
