//! Strict reader of the type-12 payload and the `Land.map` NRes file (FORMATS §6.5,
//! tome IV "Land.map и ArealMap").

use crate::LandMapError;
use crate::model::*;
use iron3d_nres::{NewEntry, Nres, NresDocument, NresWriter};

/// NRes `type_id` of the areal-graph entry.
pub const LAND_MAP_TYPE: u32 = 12;

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn remaining(&self) -> u64 {
        (self.data.len() - self.pos) as u64
    }

    fn fixed(
        &mut self,
        n: usize,
        area: Option<usize>,
        field: &'static str,
    ) -> Result<&'a [u8], LandMapError> {
        let s =
            self.data
                .get(self.pos..)
                .and_then(|r| r.get(..n))
                .ok_or(LandMapError::Truncated {
                    area,
                    field,
                    offset: self.pos,
                    expected: n as u64,
                    found: self.remaining(),
                })?;
        self.pos += n;
        Ok(s)
    }

    fn u32(&mut self, area: Option<usize>, field: &'static str) -> Result<u32, LandMapError> {
        let s = self.fixed(4, area, field)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    /// Checks `count * stride <= remaining` before anything is allocated for it.
    fn check_count(
        &self,
        count: u64,
        stride: u64,
        area: Option<usize>,
        field: &'static str,
    ) -> Result<usize, LandMapError> {
        match count.checked_mul(stride) {
            Some(total) if total <= self.remaining() => {
                usize::try_from(count).map_err(|_| LandMapError::Overflow {
                    field,
                    value: count,
                    max: usize::MAX as u64,
                })
            }
            _ => Err(LandMapError::CountTooLarge {
                area,
                field,
                offset: self.pos,
                count,
                stride,
                remaining: self.remaining(),
            }),
        }
    }
}

fn i32_le(s: &[u8]) -> i32 {
    i32::from_le_bytes([s[0], s[1], s[2], s[3]])
}

/// Parses a type-12 payload holding `areal_count` areals (the entry's `attr1`).
///
/// Every count is checked against the bytes left before allocation; every link and
/// cell id is range-checked; the payload must end exactly after the last cell.
pub fn parse_payload(payload: &[u8], areal_count: u32) -> Result<LandMap, LandMapError> {
    let mut c = Cursor {
        data: payload,
        pos: 0,
    };
    let n_areas = c.check_count(
        u64::from(areal_count),
        PREFIX_SIZE as u64,
        None,
        "areal_count (attr1)",
    )?;
    let mut areas = Vec::with_capacity(n_areas);
    let mut link_offsets = Vec::with_capacity(n_areas);
    for a in 0..n_areas {
        let mut raw = [0u8; PREFIX_SIZE];
        raw.copy_from_slice(c.fixed(PREFIX_SIZE, Some(a), "ArealPrefix56")?);
        let prefix = ArealPrefix { raw };
        let vc = c.check_count(
            u64::from(prefix.vertex_count()),
            VERTEX_SIZE as u64,
            Some(a),
            "vertex_count",
        )?;
        let mut vertices = Vec::with_capacity(vc);
        for _ in 0..vc {
            let s = c.fixed(VERTEX_SIZE, Some(a), "vertex")?;
            let w = |i: usize| u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]]);
            vertices.push(Vertex {
                bits: [w(0), w(4), w(8)],
            });
        }
        let pc_raw = u64::from(prefix.poly_count());
        let nl = c.check_count(
            vc as u64 + 3 * pc_raw,
            LINK_SIZE as u64,
            Some(a),
            "links (vertex_count + 3*poly_count)",
        )?;
        link_offsets.push(c.pos);
        let mut links = Vec::with_capacity(nl);
        for _ in 0..nl {
            let s = c.fixed(LINK_SIZE, Some(a), "EdgeLink8")?;
            links.push(EdgeLink {
                area_ref: i32_le(&s[0..4]),
                edge_ref: i32_le(&s[4..8]),
            });
        }
        // Each block needs at least its `u32 n` and 4 bytes.
        let pc = c.check_count(pc_raw, 8, Some(a), "poly_count")?;
        let mut polys = Vec::with_capacity(pc);
        for _ in 0..pc {
            let n = c.u32(Some(a), "poly n")?;
            let len = c.check_count(PolyBlock::expected_len(n), 1, Some(a), "poly block")?;
            polys.push(PolyBlock {
                n,
                raw: c.fixed(len, Some(a), "poly block")?.to_vec(),
            });
        }
        areas.push(Areal {
            prefix,
            vertices,
            links,
            polys,
        });
    }
    check_links(&areas, Some(&link_offsets))?;

    let grid_off = c.pos;
    let cells_x = c.u32(None, "cellsX")?;
    let cells_y = c.u32(None, "cellsY")?;
    let n_cells = u64::from(cells_x) * u64::from(cells_y);
    if n_cells == 0 {
        return Err(LandMapError::GridSize {
            offset: grid_off,
            cells_x,
            cells_y,
            cells: 0,
        });
    }
    let n_cells = c.check_count(n_cells, 2, None, "cells (cellsX*cellsY)")?;
    let ids_bound = (c.remaining() as usize - 2 * n_cells) / 2;
    let mut grid = CellGrid::with_capacity(cells_x, cells_y, n_cells, ids_bound);
    let mut ids = Vec::new();
    for cell in 0..n_cells {
        let s = c.fixed(2, None, "hit_count")?;
        let hits = u16::from_le_bytes([s[0], s[1]]);
        c.check_count(u64::from(hits), 2, None, "hit_count")?;
        ids.clear();
        for _ in 0..hits {
            let offset = c.pos;
            let s = c.fixed(2, None, "area_id")?;
            let id = u16::from_le_bytes([s[0], s[1]]);
            if usize::from(id) >= n_areas {
                return Err(LandMapError::CellId {
                    cell,
                    offset,
                    id,
                    areal_count: n_areas,
                });
            }
            ids.push(id);
        }
        grid.push_cell(&ids)?;
    }
    if c.remaining() != 0 {
        return Err(LandMapError::TrailingBytes {
            offset: c.pos,
            extra: c.remaining() as usize,
        });
    }
    Ok(LandMap { areas, grid })
}

/// Range-checks every link of `areas`: `(-1,-1)` or both halves `>= 0`, `area_ref <
/// areas.len()`, `edge_ref <` the target's link count. `offsets` gives the payload offset
/// of each area's link array (for error context).
pub(crate) fn check_links(areas: &[Areal], offsets: Option<&[usize]>) -> Result<(), LandMapError> {
    for (area, a) in areas.iter().enumerate() {
        let base = offsets.and_then(|o| o.get(area)).copied().unwrap_or(0);
        for (link, l) in a.links.iter().enumerate() {
            let offset = if offsets.is_some() {
                base + link * LINK_SIZE
            } else {
                0
            };
            if *l == EdgeLink::NONE {
                continue;
            }
            let Some((t, e)) = l.target() else {
                return Err(LandMapError::LinkSign {
                    area,
                    link,
                    offset,
                    area_ref: l.area_ref,
                    edge_ref: l.edge_ref,
                });
            };
            let Some(target) = areas.get(t) else {
                return Err(LandMapError::LinkArea {
                    area,
                    link,
                    offset,
                    area_ref: l.area_ref,
                    areal_count: areas.len(),
                });
            };
            if e >= target.links.len() {
                return Err(LandMapError::LinkEdge {
                    area,
                    link,
                    offset,
                    target: t,
                    edge_ref: l.edge_ref,
                    target_links: target.links.len(),
                });
            }
        }
    }
    Ok(())
}

/// A parsed `Land.map` file: the lossless NRes document plus the decoded model.
#[derive(Clone, Debug)]
pub struct LandMapFile<'a> {
    doc: NresDocument<'a>,
    map: LandMap,
}

impl<'a> LandMapFile<'a> {
    /// Strictly parses a whole `Land.map` (NRes with exactly one type-12 entry whose
    /// `attr1` is the areal count).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, LandMapError> {
        let nres = Nres::parse(bytes)?;
        let count = nres.entries().len();
        let entry = match (count, nres.entry(0)) {
            (1, Some(e)) => e,
            _ => return Err(LandMapError::EntryCount { found: count }),
        };
        if entry.type_id() != LAND_MAP_TYPE {
            return Err(LandMapError::EntryType {
                found: entry.type_id(),
            });
        }
        let map = parse_payload(entry.data(), entry.attr1())?;
        Ok(Self {
            doc: NresDocument::from_nres(&nres),
            map,
        })
    }

    /// The decoded model.
    pub fn map(&self) -> &LandMap {
        &self.map
    }

    /// The NRes document (entry name, attributes, padding).
    pub fn document(&self) -> &NresDocument<'a> {
        &self.doc
    }

    /// The file bytes; byte-identical to the input until [`LandMapFile::set_map`].
    pub fn to_bytes(&self) -> Vec<u8> {
        self.doc.to_bytes()
    }

    /// Replaces the payload with `map` (encoded, validated); `attr1` becomes the areal
    /// count, `attr2`/`attr3`, name and everything else of the NRes file are kept.
    pub fn set_map(&mut self, map: LandMap) -> Result<(), LandMapError> {
        let payload = map.encode_payload()?;
        let (a2, a3) = self
            .doc
            .record(0)
            .map(|r| (r.attr2(), r.attr3()))
            .unwrap_or((0, 0));
        self.doc.replace_payload(0, &payload)?;
        self.doc
            .set_attrs(0, crate::write::areal_count(&map)?, a2, a3)?;
        self.map = map;
        Ok(())
    }

    /// Gives up the document and returns the model.
    pub fn into_map(self) -> LandMap {
        self.map
    }
}

impl LandMap {
    /// A new canonical `Land.map` file: one type-12 entry named `name`,
    /// `attr1` = areal count, `attr2` = `attr3` = 0 (project decision 6).
    pub fn to_file_bytes(&self, name: &[u8]) -> Result<Vec<u8>, LandMapError> {
        let payload = self.encode_payload()?;
        let mut w = NresWriter::new();
        w.push(NewEntry::new(name, LAND_MAP_TYPE, payload)?.with_attrs(
            crate::write::areal_count(self)?,
            0,
            0,
        ));
        Ok(w.finish()?)
    }
}
