//! `Land.msh` terrain meshes of Iron3D (Parkan: Iron Strategy): a strict and a compatible
//! reader, a lossless writer, an authoring builder and the surface-mask conversions.
//! A pure library over `&[u8]`.
//!
//! # Layout (FORMATS §6.1–6.4, tome IV "Land.msh")
//!
//! An NRes archive with exactly one entry of each stream type, physically in the order
//! `1, 2, 3, 4, 5, 18, 14, 11, 21`; `attr1` = element count, `attr3` = stride, and the
//! payload size is exactly `attr1 × stride` (checked arithmetic, before allocating).
//!
//! ```text
//! type  stride  content                                   typed as
//!  1     38     node/slot mapping                         raw [u8; 38]
//!  2     0x8C header + 68 × attr1 slots                   raw header + TerrainSlot
//!  3     12     f32[3] positions                          [f32; 3] (bits kept)
//!  4      4     packed normals i8[4]                      [i8; 4] (4th byte kept)
//!  5      4     packed UV i16[2], value / 1024             [i16; 2]
//! 18      4     microtexture mapping                      u32 words
//! 14      4     auxiliary                                 u32 words
//! 11      4     material pairs / cell accelerator data    u32 words (+ pair_key/flags)
//! 21     28     TerrainFace28                             TerrainFace
//!
//! TerrainFace28: +0x00 u32 full_mask | +0x04 u16 material_tag | +0x06 u16 aux_tag
//!                +0x08 u16 vertex[3] (< count(3)) | +0x0E u16 neighbour[3] (0xFFFF or
//!                < count(21)) | +0x14 u8 tail[8] (raw)
//! ```
//!
//! # Use
//!
//! ```
//! use iron3d_landmsh::{LandMsh, from_grid};
//!
//! let streams = from_grid(4, 3, 8.0, |x, y| (x * 0.1).sin() + y * 0.05)?;
//! let bytes = LandMsh::from_streams(streams)?.to_bytes()?;
//! let mut land = LandMsh::parse(&bytes)?;
//! assert_eq!(land.to_bytes()?, bytes); // lossless
//! land.streams.faces[0].material_tag = 0xFF01;
//! let edited = land.to_bytes()?;
//! assert_eq!(LandMsh::parse(&edited)?.streams.faces[0].material_tag, 0xFF01);
//! # Ok::<(), iron3d_landmsh::LandMshError>(())
//! ```
//!
//! # Decisions and differences between the sources
//!
//! * **Self-neighbours**: tome IV says a neighbour is `0xFFFF` or "another" type-21
//!   element; FORMATS only requires `< count`. We follow the tome: a face naming itself
//!   fails strictly ([`LandMshError::SelfNeighbour`]); [`Quirk::SelfNeighbour`] accepts it.
//! * **Type 11**: FORMATS (newer docs) reads it as `u16 shade_lookup_key, u16 flags`
//!   pairs; tome IV calls it "cell accelerator data". We keep raw words and offer
//!   [`pair_key`] / [`pair_flags`] as the newer-docs reading.
//! * **Type 2 `attr1 == slot count`** is from fparkan source (FORMATS) and not in the tome;
//!   it is checked strictly (the tome only requires exact division). Its `attr3` is not
//!   checked; our writer sets 68. Slot fields `+0x00/+0x02` are typed per FORMATS.
//! * **Stream order**: any other order of the nine streams fails strictly
//!   ([`LandMshError::StreamOrder`]); [`Quirk::StreamOrder`] accepts it.
//! * **Face edge convention** (not in the sources): `neighbours[k]` shares the edge
//!   `vertices[k] → vertices[(k + 1) % 3]`; used by [`from_grid`] and [`link_neighbours`],
//!   never checked on read.
//! * **Entry names** of authored files are `Land.<type>` (originals are undocumented).

mod build;
mod error;
pub mod fuzz_check;
pub mod mask;
mod model;
mod read;

pub use build::{from_grid, link_neighbours};
pub use error::LandMshError;
pub use iron3d_nres::Nres;
pub use mask::{CompactMask, compact_to_full, full_to_compact};
pub use model::*;
pub use read::{Diagnostic, LandMsh, Quirk, ReadOptions, stream_name};
