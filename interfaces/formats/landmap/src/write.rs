//! Encoding the model back to a type-12 payload, model validation and the runtime cell
//! packing.

use crate::LandMapError;
use crate::model::*;

/// Largest hit count the runtime packing holds (10 bits).
pub const MAX_PACKED_HITS: u32 = (1 << 10) - 1;
/// Largest pool offset the runtime packing holds (22 bits).
pub const MAX_PACKED_OFFSET: u32 = (1 << 22) - 1;

/// Packs one cell as the runtime does: `(hit_count << 22) | pool_offset`.
pub fn pack_cell(hit_count: u32, pool_offset: u32) -> Result<u32, LandMapError> {
    if hit_count > MAX_PACKED_HITS {
        return Err(LandMapError::Overflow {
            field: "packed hit_count",
            value: u64::from(hit_count),
            max: u64::from(MAX_PACKED_HITS),
        });
    }
    if pool_offset > MAX_PACKED_OFFSET {
        return Err(LandMapError::Overflow {
            field: "packed pool_offset",
            value: u64::from(pool_offset),
            max: u64::from(MAX_PACKED_OFFSET),
        });
    }
    Ok((hit_count << 22) | pool_offset)
}

/// Inverse of [`pack_cell`]: `(hit_count, pool_offset)`.
pub fn unpack_cell(packed: u32) -> (u32, u32) {
    (packed >> 22, packed & MAX_PACKED_OFFSET)
}

pub(crate) fn areal_count(map: &LandMap) -> Result<u32, LandMapError> {
    u32::try_from(map.areas.len()).map_err(|_| LandMapError::Overflow {
        field: "areal_count",
        value: map.areas.len() as u64,
        max: u64::from(u32::MAX),
    })
}

fn count_u32(n: usize, field: &'static str) -> Result<u32, LandMapError> {
    u32::try_from(n).map_err(|_| LandMapError::Overflow {
        field,
        value: n as u64,
        max: u64::from(u32::MAX),
    })
}

impl LandMap {
    /// Checks what the reader checks: link counts, polygon block sizes, link and cell
    /// references, non-empty grid.
    pub fn validate(&self) -> Result<(), LandMapError> {
        for (area, a) in self.areas.iter().enumerate() {
            count_u32(a.vertices.len(), "vertex_count")?;
            count_u32(a.polys.len(), "poly_count")?;
            if a.links.len() as u64 != a.expected_links() {
                return Err(LandMapError::LinkCount {
                    area,
                    expected: a.expected_links(),
                    found: a.links.len(),
                });
            }
            for (block, p) in a.polys.iter().enumerate() {
                if p.raw.len() as u64 != PolyBlock::expected_len(p.n) {
                    return Err(LandMapError::PolyBlockSize {
                        area,
                        block,
                        expected: PolyBlock::expected_len(p.n),
                        found: p.raw.len(),
                    });
                }
            }
        }
        crate::read::check_links(&self.areas, None)?;
        let g = &self.grid;
        let cells = u64::from(g.cells_x()) * u64::from(g.cells_y());
        if cells == 0 || cells != g.len() as u64 {
            return Err(LandMapError::GridSize {
                offset: 0,
                cells_x: g.cells_x(),
                cells_y: g.cells_y(),
                cells: g.len() as u64,
            });
        }
        for cell in 0..g.len() {
            for &id in g.cell_at(cell).unwrap_or(&[]) {
                if usize::from(id) >= self.areas.len() {
                    return Err(LandMapError::CellId {
                        cell,
                        offset: 0,
                        id,
                        areal_count: self.areas.len(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Encodes the payload after [`LandMap::validate`]. The prefix is written raw except
    /// `vertex_count` and `poly_count`, derived from the model (for a parsed map they are
    /// unchanged, so the payload is byte-identical).
    pub fn encode_payload(&self) -> Result<Vec<u8>, LandMapError> {
        self.validate()?;
        let mut out = Vec::new();
        for a in &self.areas {
            let mut prefix = a.prefix;
            prefix.set_u32(0x30, count_u32(a.vertices.len(), "vertex_count")?);
            prefix.set_u32(0x34, count_u32(a.polys.len(), "poly_count")?);
            out.extend_from_slice(&prefix.raw);
            for v in &a.vertices {
                for b in v.bits {
                    out.extend_from_slice(&b.to_le_bytes());
                }
            }
            for l in &a.links {
                out.extend_from_slice(&l.area_ref.to_le_bytes());
                out.extend_from_slice(&l.edge_ref.to_le_bytes());
            }
            for p in &a.polys {
                out.extend_from_slice(&p.n.to_le_bytes());
                out.extend_from_slice(&p.raw);
            }
        }
        let g = &self.grid;
        out.extend_from_slice(&g.cells_x().to_le_bytes());
        out.extend_from_slice(&g.cells_y().to_le_bytes());
        for cell in 0..g.len() {
            let ids = g.cell_at(cell).unwrap_or(&[]);
            // `CellGrid` keeps every cell at most u16::MAX long.
            out.extend_from_slice(&(ids.len() as u16).to_le_bytes());
            for id in ids {
                out.extend_from_slice(&id.to_le_bytes());
            }
        }
        Ok(out)
    }
}
