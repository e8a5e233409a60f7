//! `Land.map` areal graphs of Iron3D (Parkan: Iron Strategy): a strict, lossless reader
//! and writer, runtime cell packing and an authoring builder. A pure library over `&[u8]`.
//!
//! # Layout (FORMATS §6.5, tome IV "Land.map и ArealMap"; little-endian)
//!
//! ```text
//! NRes archive with exactly one entry: type_id 12, attr1 = areal count
//! payload:
//!   Areal[attr1]:
//!     ArealPrefix56                         (+0x30 u32 vertex_count, +0x34 u32 poly_count)
//!     f32 vertices[vertex_count][3]
//!     EdgeLink8 links[vertex_count + 3*poly_count]   (i32 area_ref, i32 edge_ref; (-1,-1) = none)
//!     PolyBlock[poly_count]                 (u32 n, 4*(3n+1) opaque bytes; code-only)
//!   u32 cellsX, u32 cellsY                  (both non-zero)
//!   Cell[cellsX*cellsY]: u16 hit_count, u16 area_id[hit_count]   (cell index y*cellsX + x)
//!   <end of payload>
//! ```
//!
//! # Reading and writing
//!
//! [`LandMapFile::parse`] checks the NRes container strictly, then the entry count and
//! type, then every count against the bytes left (before allocating), every link
//! (`(-1,-1)` or both halves `>= 0`, `area_ref <` areal count, `edge_ref <` the target's
//! link count), every cell id (`<` areal count), a non-empty grid and the exact end.
//! [`LandMapFile::to_bytes`] returns the input byte for byte (the NRes document is
//! lossless and the payload model keeps every byte); [`LandMap::encode_payload`]
//! re-creates the payload identically. [`LandMap::to_file_bytes`] writes a new canonical
//! file.
//!
//! Typed views follow the field statuses: normal, vertex and poly counts are confirmed;
//! anchor, area metric, logic flag and class id are *inferred* (raw values, no meaning
//! asserted: in particular no walkability bit is confirmed); reserved fields are raw.
//!
//! # Decisions
//!
//! * The areal count comes from NRes `attr1` (FORMATS, from fparkan source; the tome does
//!   not say where the count is stored). `cellsX/cellsY` are read as `u32` (same source).
//! * A link with mixed signs, or any negative pair other than `(-1,-1)`, is rejected,
//!   and `edge_ref` is bounded by the target's link count (FORMATS, from fparkan source).
//! * Unit-length normals are *not* a rejection criterion (neither source lists it).
//! * Authoring: `logic_flag` = [`AUTHORED_WALKABLE_FLAG`] for walkable areas, grid in
//!   the X/Y plane, cells in row-major order `y * cellsX + x` (our choices).

mod author;
mod error;
pub mod fuzz_check;
mod model;
mod read;
mod write;

pub use author::{
    AUTHORED_WALKABLE_FLAG, AreaSpec, Bounds, MAX_BUILD_CELLS, MapBuilder, areal_from_polygon,
    build_grid,
};
pub use error::LandMapError;
pub use model::{
    Areal, ArealPrefix, CellGrid, EdgeLink, LINK_SIZE, LandMap, PREFIX_SIZE, PolyBlock,
    VERTEX_SIZE, Vertex,
};
pub use read::{LAND_MAP_TYPE, LandMapFile, parse_payload};
pub use write::{MAX_PACKED_HITS, MAX_PACKED_OFFSET, pack_cell, unpack_cell};
