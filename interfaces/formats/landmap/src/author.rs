//! Authoring new maps: areas from polygons, links between neighbouring areas and a cell
//! grid from the areas' bounding boxes. Every authored value that the sources do not pin
//! down is a project choice, documented here and kept out of the "confirmed" layer.

use crate::LandMapError;
use crate::model::*;
use std::collections::BTreeMap;

/// Our choice (not confirmed by the sources): an authored walkable area gets
/// `logic_flag = 1`, a blocked one `logic_flag = 0`.
pub const AUTHORED_WALKABLE_FLAG: u32 = 1;

/// Most cells [`build_grid`] will allocate (our guard; corpus grids are 128 x 128).
pub const MAX_BUILD_CELLS: usize = 1 << 24;

/// The world rectangle the grid covers, in the horizontal X/Y plane (Z is height).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lowest `x, y`.
    pub min: [f32; 2],
    /// Highest `x, y`.
    pub max: [f32; 2],
}

/// One area to author: a closed polygon (edge `i` runs from vertex `i` to `i + 1`,
/// wrapping), its walkable flag and class id.
#[derive(Clone, Debug, PartialEq)]
pub struct AreaSpec {
    /// Boundary, at least 3 finite vertices.
    pub polygon: Vec<[f32; 3]>,
    /// Written as `logic_flag` ([`AUTHORED_WALKABLE_FLAG`] or 0).
    pub walkable: bool,
    /// Written as `class_id` (inferred field, raw value).
    pub class_id: u32,
}

fn build_err(area: Option<usize>, reason: &'static str) -> LandMapError {
    LandMapError::Build { area, reason }
}

/// An areal for `spec` with every link `(-1,-1)`. Prefix: anchor = vertex average,
/// `area_metric` = polygon area (Newell), normal = unit Newell normal, reserved fields
/// zero, `poly_count` 0 (our authoring choices for the inferred fields).
pub fn areal_from_polygon(spec: &AreaSpec) -> Result<Areal, LandMapError> {
    let p = &spec.polygon;
    if p.len() < 3 || p.iter().flatten().any(|c| !c.is_finite()) {
        return Err(build_err(None, "polygon needs at least 3 finite vertices"));
    }
    let count = u32::try_from(p.len()).map_err(|_| build_err(None, "too many vertices"))?;
    let (mut n, mut sum) = ([0f64; 3], [0f64; 3]);
    for (i, a) in p.iter().enumerate() {
        let b = p[(i + 1) % p.len()];
        let (a, b) = (a.map(f64::from), b.map(f64::from));
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
        for k in 0..3 {
            sum[k] += a[k];
        }
    }
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if !(len.is_finite() && len > 0.0) {
        return Err(build_err(None, "degenerate polygon (zero area)"));
    }
    let mut prefix = ArealPrefix {
        raw: [0; PREFIX_SIZE],
    };
    for k in 0..3 {
        prefix.set_f32(4 * k, (sum[k] / p.len() as f64) as f32);
        prefix.set_f32(0x14 + 4 * k, (n[k] / len) as f32);
    }
    prefix.set_f32(0x10, (len / 2.0) as f32);
    prefix.set_u32(
        0x20,
        if spec.walkable {
            AUTHORED_WALKABLE_FLAG
        } else {
            0
        },
    );
    prefix.set_u32(0x28, spec.class_id);
    prefix.set_u32(0x30, count);
    Ok(Areal {
        prefix,
        vertices: p.iter().map(|&v| Vertex::from_f32(v)).collect(),
        links: vec![EdgeLink::NONE; p.len()],
        polys: Vec::new(),
    })
}

fn cell_range(lo: f32, hi: f32, min: f32, width: f32, cells: u32) -> Option<(u32, u32)> {
    let last = f64::from(cells) - 1.0;
    let a = ((f64::from(lo) - f64::from(min)) / f64::from(width)).floor();
    let b = ((f64::from(hi) - f64::from(min)) / f64::from(width)).floor();
    if b < 0.0 || a > last {
        return None;
    }
    Some((a.clamp(0.0, last) as u32, b.clamp(0.0, last) as u32))
}

/// The cell grid for `areas`: cell `(x, y)` (index `y * cells_x + x`) covers
/// `[min + x*w, min + (x+1)*w)` and lists, in area order, every area whose X/Y bounding
/// box touches it (boxes are clamped to the grid; areas outside are left out). Fails
/// when the grid is empty, the bounds are not a finite non-empty rectangle, an area id
/// does not fit `u16`, or a cell exceeds what the runtime packing holds.
pub fn build_grid(
    areas: &[Areal],
    cells_x: u32,
    cells_y: u32,
    bounds: Bounds,
) -> Result<CellGrid, LandMapError> {
    let n = usize::try_from(u64::from(cells_x) * u64::from(cells_y)).unwrap_or(0);
    if n == 0 {
        return Err(LandMapError::GridSize {
            offset: 0,
            cells_x,
            cells_y,
            cells: 0,
        });
    }
    if n > MAX_BUILD_CELLS {
        return Err(LandMapError::Overflow {
            field: "cells_x * cells_y",
            value: n as u64,
            max: MAX_BUILD_CELLS as u64,
        });
    }
    let [x0, y0] = bounds.min;
    let [x1, y1] = bounds.max;
    if ![x0, y0, x1, y1].iter().all(|v| v.is_finite()) || x1 <= x0 || y1 <= y0 {
        return Err(build_err(None, "bounds must be finite with max > min"));
    }
    if areas.len() > usize::from(u16::MAX) + 1 {
        return Err(LandMapError::Overflow {
            field: "area id (u16)",
            value: areas.len() as u64,
            max: u64::from(u16::MAX) + 1,
        });
    }
    let (w, h) = ((x1 - x0) / cells_x as f32, (y1 - y0) / cells_y as f32);
    let mut cells = vec![Vec::new(); n];
    for (i, a) in areas.iter().enumerate() {
        let id = u16::try_from(i).map_err(|_| build_err(Some(i), "area id exceeds u16"))?;
        let mut pts = a
            .vertices
            .iter()
            .map(|v| v.to_f32())
            .filter(|v| v[0].is_finite() && v[1].is_finite());
        let Some(first) = pts.next() else { continue };
        let (mut lo, mut hi) = ([first[0], first[1]], [first[0], first[1]]);
        for p in pts {
            lo = [lo[0].min(p[0]), lo[1].min(p[1])];
            hi = [hi[0].max(p[0]), hi[1].max(p[1])];
        }
        let (Some((cx0, cx1)), Some((cy0, cy1))) = (
            cell_range(lo[0], hi[0], x0, w, cells_x),
            cell_range(lo[1], hi[1], y0, h, cells_y),
        ) else {
            continue;
        };
        for y in cy0..=cy1 {
            for x in cx0..=cx1 {
                let idx = y as usize * cells_x as usize + x as usize;
                if let Some(c) = cells.get_mut(idx) {
                    c.push(id);
                }
            }
        }
    }
    let grid = CellGrid::from_cells(cells_x, cells_y, &cells)?;
    grid.packed()?;
    Ok(grid)
}

/// Builds a new map: add areas, link neighbouring edges, then [`MapBuilder::build`].
#[derive(Clone, Debug, Default)]
pub struct MapBuilder {
    areas: Vec<Areal>,
}

impl MapBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an area (see [`areal_from_polygon`]) and returns its index.
    pub fn add_area(&mut self, spec: &AreaSpec) -> Result<usize, LandMapError> {
        let a = areal_from_polygon(spec).map_err(|e| match e {
            LandMapError::Build { reason, .. } => build_err(Some(self.areas.len()), reason),
            e => e,
        })?;
        self.areas.push(a);
        Ok(self.areas.len() - 1)
    }

    /// The areas added so far.
    pub fn areas(&self) -> &[Areal] {
        &self.areas
    }

    /// Links edge `edge_a` of area `a` with edge `edge_b` of area `b`, both ways.
    pub fn link(
        &mut self,
        a: usize,
        edge_a: usize,
        b: usize,
        edge_b: usize,
    ) -> Result<(), LandMapError> {
        let to_i32 =
            |v: usize| i32::try_from(v).map_err(|_| build_err(Some(a), "link index exceeds i32"));
        let (ai, eai, bi, ebi) = (to_i32(a)?, to_i32(edge_a)?, to_i32(b)?, to_i32(edge_b)?);
        let ok =
            |area: usize, edge: usize| self.areas.get(area).is_some_and(|x| edge < x.links.len());
        if !ok(a, edge_a) || !ok(b, edge_b) {
            return Err(build_err(Some(a), "link to a missing area or edge"));
        }
        self.areas[a].links[edge_a] = EdgeLink {
            area_ref: bi,
            edge_ref: ebi,
        };
        self.areas[b].links[edge_b] = EdgeLink {
            area_ref: ai,
            edge_ref: eai,
        };
        Ok(())
    }

    /// Links every pair of edges of different areas that share their end points in
    /// opposite directions (exact `f32` bits), leaving already linked edges alone.
    /// Returns the number of pairs linked.
    pub fn link_shared_edges(&mut self) -> usize {
        type Key = ([u32; 3], [u32; 3]);
        let mut open: BTreeMap<Key, (usize, usize)> = BTreeMap::new();
        let mut pairs = Vec::new();
        for (ai, a) in self.areas.iter().enumerate() {
            let n = a.vertices.len();
            for e in 0..n {
                let (p, q) = (a.vertices[e].bits, a.vertices[(e + 1) % n].bits);
                match open.get(&(q, p)) {
                    Some(&(bi, be)) if bi != ai => {
                        open.remove(&(q, p));
                        pairs.push((ai, e, bi, be));
                    }
                    _ => {
                        open.insert((p, q), (ai, e));
                    }
                }
            }
        }
        let mut linked = 0;
        for (a, ea, b, eb) in pairs {
            let free = |s: &Self, x: usize, e: usize| s.areas[x].links[e] == EdgeLink::NONE;
            if free(self, a, ea) && free(self, b, eb) && self.link(a, ea, b, eb).is_ok() {
                linked += 1;
            }
        }
        linked
    }

    /// The finished, validated map with a grid from [`build_grid`].
    pub fn build(
        &self,
        cells_x: u32,
        cells_y: u32,
        bounds: Bounds,
    ) -> Result<LandMap, LandMapError> {
        let grid = build_grid(&self.areas, cells_x, cells_y, bounds)?;
        let map = LandMap {
            areas: self.areas.clone(),
            grid,
        };
        map.validate()?;
        Ok(map)
    }
}
