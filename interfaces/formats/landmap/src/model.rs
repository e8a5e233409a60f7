//! The owned model of a `Land.map` payload: areals (raw prefix, vertices as raw bits,
//! edge links, polygon blocks) and the cell grid.

use crate::LandMapError;

/// Size of [`ArealPrefix`] in bytes.
pub const PREFIX_SIZE: usize = 56;
/// Size of one vertex (`f32[3]`).
pub const VERTEX_SIZE: usize = 12;
/// Size of one [`EdgeLink`].
pub const LINK_SIZE: usize = 8;

fn u32_at(raw: &[u8; PREFIX_SIZE], off: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&raw[off..off + 4]);
    u32::from_le_bytes(b)
}

/// The 56-byte areal prefix, kept raw; typed getters follow FORMATS §6.5 statuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArealPrefix {
    /// The raw bytes, re-emitted unchanged except `vertex_count`/`poly_count`, which
    /// the encoder derives from the model.
    pub raw: [u8; PREFIX_SIZE],
}

impl ArealPrefix {
    fn f32_at(&self, off: usize) -> f32 {
        f32::from_bits(u32_at(&self.raw, off))
    }
    /// `+0x00` anchor (**inferred**).
    pub fn anchor(&self) -> [f32; 3] {
        [self.f32_at(0), self.f32_at(4), self.f32_at(8)]
    }
    /// `+0x0C` raw bits of `reserved_12` (**layout**).
    pub fn reserved_12(&self) -> u32 {
        u32_at(&self.raw, 0x0C)
    }
    /// `+0x10` area metric (**inferred**).
    pub fn area_metric(&self) -> f32 {
        self.f32_at(0x10)
    }
    /// `+0x14` unit normal (**confirmed**).
    pub fn normal(&self) -> [f32; 3] {
        [self.f32_at(0x14), self.f32_at(0x18), self.f32_at(0x1C)]
    }
    /// `+0x20` logic flag (**inferred**; no walkability meaning is confirmed).
    pub fn logic_flag(&self) -> u32 {
        u32_at(&self.raw, 0x20)
    }
    /// `+0x24` `reserved_36` (**layout**).
    pub fn reserved_36(&self) -> u32 {
        u32_at(&self.raw, 0x24)
    }
    /// `+0x28` class id (**inferred**).
    pub fn class_id(&self) -> u32 {
        u32_at(&self.raw, 0x28)
    }
    /// `+0x2C` `reserved_44` (**layout**).
    pub fn reserved_44(&self) -> u32 {
        u32_at(&self.raw, 0x2C)
    }
    /// `+0x30` vertex count as stored (**confirmed**).
    pub fn vertex_count(&self) -> u32 {
        u32_at(&self.raw, 0x30)
    }
    /// `+0x34` polygon block count as stored (**confirmed**).
    pub fn poly_count(&self) -> u32 {
        u32_at(&self.raw, 0x34)
    }
    /// Writes `value` at byte offset `off` (little-endian); `off + 4 <= 56` is the
    /// caller's choice of one of the documented field offsets.
    pub fn set_u32(&mut self, off: usize, value: u32) {
        if let Some(dst) = self.raw.get_mut(off..off + 4) {
            dst.copy_from_slice(&value.to_le_bytes());
        }
    }
    /// Writes an `f32` field at `off` by its bits.
    pub fn set_f32(&mut self, off: usize, value: f32) {
        self.set_u32(off, value.to_bits());
    }
}

/// One areal vertex; the raw bits are the canonical value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Vertex {
    /// `x, y, z` as raw `f32` bits.
    pub bits: [u32; 3],
}

impl Vertex {
    /// A vertex from float coordinates.
    pub fn from_f32(v: [f32; 3]) -> Self {
        Self {
            bits: v.map(f32::to_bits),
        }
    }
    /// The coordinates as `f32` (bits unchanged).
    pub fn to_f32(self) -> [f32; 3] {
        self.bits.map(f32::from_bits)
    }
}

/// `EdgeLink8`: `(-1, -1)` is "no neighbour", otherwise `(area_ref, edge_ref)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EdgeLink {
    /// Target area index or `-1`.
    pub area_ref: i32,
    /// Index into the target area's link array, or `-1`.
    pub edge_ref: i32,
}

impl EdgeLink {
    /// The "no neighbour" link `(-1, -1)`.
    pub const NONE: Self = Self {
        area_ref: -1,
        edge_ref: -1,
    };
    /// `Some((area, edge))` for a link with both halves non-negative, `None` otherwise.
    pub fn target(self) -> Option<(usize, usize)> {
        match (
            usize::try_from(self.area_ref),
            usize::try_from(self.edge_ref),
        ) {
            (Ok(a), Ok(e)) => Some((a, e)),
            _ => None,
        }
    }
}

/// A polygon block (**code-only**): `u32 n` and its `4 * (3n + 1)` opaque bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PolyBlock {
    /// The stored `n`.
    pub n: u32,
    /// The `4 * (3n + 1)` raw bytes after `n`.
    pub raw: Vec<u8>,
}

impl PolyBlock {
    /// Byte length the framing requires for `n`: `4 * (3n + 1)`.
    pub fn expected_len(n: u32) -> u64 {
        4 * (3 * u64::from(n) + 1)
    }
}

/// One areal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Areal {
    /// The raw prefix.
    pub prefix: ArealPrefix,
    /// Boundary vertices.
    pub vertices: Vec<Vertex>,
    /// `vertices.len() + 3 * polys.len()` edge links; link `i < vertex_count` belongs to
    /// the edge from vertex `i` to vertex `i + 1` (wrapping) in maps we author.
    pub links: Vec<EdgeLink>,
    /// Polygon blocks (empty in every corpus map).
    pub polys: Vec<PolyBlock>,
}

impl Areal {
    /// Number of links the framing requires: `vertex_count + 3 * poly_count`.
    pub fn expected_links(&self) -> u64 {
        self.vertices.len() as u64 + 3 * self.polys.len() as u64
    }
}

/// The cell grid: `cells_x * cells_y` cells (index `y * cells_x + x`), each a list of
/// candidate area ids, stored as one shared pool like the runtime does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CellGrid {
    cells_x: u32,
    cells_y: u32,
    counts: Vec<u16>,
    starts: Vec<usize>,
    pool: Vec<u16>,
}

impl CellGrid {
    /// A grid from per-cell id lists; `cells.len()` must be `cells_x * cells_y`, both
    /// non-zero, and each list at most `u16::MAX` long.
    pub fn from_cells(
        cells_x: u32,
        cells_y: u32,
        cells: &[Vec<u16>],
    ) -> Result<Self, LandMapError> {
        let n = u64::from(cells_x) * u64::from(cells_y);
        if n == 0 || n != cells.len() as u64 {
            return Err(LandMapError::GridSize {
                offset: 0,
                cells_x,
                cells_y,
                cells: cells.len() as u64,
            });
        }
        let mut g = Self::with_capacity(cells_x, cells_y, cells.len(), 0);
        for c in cells {
            g.push_cell(c)?;
        }
        Ok(g)
    }

    pub(crate) fn with_capacity(cells_x: u32, cells_y: u32, cells: usize, ids: usize) -> Self {
        Self {
            cells_x,
            cells_y,
            counts: Vec::with_capacity(cells),
            starts: Vec::with_capacity(cells),
            pool: Vec::with_capacity(ids),
        }
    }

    pub(crate) fn push_cell(&mut self, ids: &[u16]) -> Result<(), LandMapError> {
        let count = u16::try_from(ids.len()).map_err(|_| LandMapError::Overflow {
            field: "hit_count",
            value: ids.len() as u64,
            max: u64::from(u16::MAX),
        })?;
        self.counts.push(count);
        self.starts.push(self.pool.len());
        self.pool.extend_from_slice(ids);
        Ok(())
    }

    /// `cellsX`.
    pub fn cells_x(&self) -> u32 {
        self.cells_x
    }
    /// `cellsY`.
    pub fn cells_y(&self) -> u32 {
        self.cells_y
    }
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.counts.len()
    }
    /// Whether the grid has no cells (never true for a valid grid).
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
    /// Candidate ids of cell `index` (`y * cells_x + x`).
    pub fn cell_at(&self, index: usize) -> Option<&[u16]> {
        let start = *self.starts.get(index)?;
        let count = usize::from(*self.counts.get(index)?);
        self.pool.get(start..start + count)
    }
    /// Candidate ids of cell `(x, y)`.
    pub fn cell(&self, x: u32, y: u32) -> Option<&[u16]> {
        if x >= self.cells_x || y >= self.cells_y {
            return None;
        }
        let i = u64::from(y) * u64::from(self.cells_x) + u64::from(x);
        self.cell_at(usize::try_from(i).ok()?)
    }
    /// The shared id pool (all cells' ids in cell order).
    pub fn pool(&self) -> &[u16] {
        &self.pool
    }
    /// The runtime form: one packed `u32` per cell (see [`crate::pack_cell`]).
    pub fn packed(&self) -> Result<Vec<u32>, LandMapError> {
        self.counts
            .iter()
            .zip(&self.starts)
            .map(|(&c, &s)| crate::pack_cell(u32::from(c), u32::try_from(s).unwrap_or(u32::MAX)))
            .collect()
    }
    /// Largest number of candidates in one cell.
    pub fn max_hits(&self) -> u16 {
        self.counts.iter().copied().max().unwrap_or(0)
    }
}

/// A whole `Land.map` payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LandMap {
    /// The areals, in file order.
    pub areas: Vec<Areal>,
    /// The cell grid.
    pub grid: CellGrid,
}
