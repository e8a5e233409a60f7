//! The terrain surface: triangle faces from `Land.msh` with a uniform X/Y cell
//! accelerator; height, normal and segment queries (Z is up). Pure, FFI-free.

use glam::{Vec2, Vec3};

/// Target number of faces per accelerator cell (our choice).
const FACES_PER_CELL: f32 = 2.0;
/// Largest accelerator side, in cells (bounds memory for huge or odd inputs).
const MAX_CELLS_SIDE: u32 = 1024;
/// A face spanning more accelerator cells than this is not entered in them but kept
/// in one list every lookup also checks: the index then holds at most this many
/// entries per face, whatever the faces' sizes (bounded memory for any input).
const WIDE_FACE_CELLS: u64 = 256;
/// Most face entries the cells hold (64 Mi, 256 MiB); faces past it are kept in the
/// wide list (slower lookups, same answers).
const MAX_CELL_ENTRIES: u64 = 1 << 26;
/// Barycentric tolerance: points this far outside a face (relative) still count as on it,
/// so points exactly on shared edges are never lost to rounding.
const BARY_EPS: f32 = 1e-6;

/// A triangulated height field with a uniform X/Y grid of candidate faces.
#[derive(Clone, Debug)]
pub struct Surface {
    positions: Vec<Vec3>,
    faces: Vec<[u32; 3]>,
    min: Vec2,
    cell: Vec2,
    nx: u32,
    ny: u32,
    /// Per cell (row-major), where its face list starts in `cell_faces` (plus the
    /// end): one flat array, no pointer to chase per lookup.
    cell_starts: Vec<u32>,
    /// Face indices grouped by cell, ascending within a cell.
    cell_faces: Vec<u32>,
    /// Faces wider than [`WIDE_FACE_CELLS`] cells, ascending: in no cell, checked by
    /// every lookup.
    wide: Vec<u32>,
    /// Per face, what a point lookup reads, packed (one cache line instead of three
    /// vertex loads): the corners' X/Y and heights, the barycentric determinant and the
    /// unit normal. Computed with the same arithmetic the lookup used to do per query,
    /// so answers are bit-identical.
    packed: Vec<PackedFace>,
}

/// A face's lookup data (see [`Surface`]).
#[derive(Clone, Copy, Debug)]
struct PackedFace {
    a: Vec2,
    b: Vec2,
    c: Vec2,
    z: [f32; 3],
    /// `0` (or non-finite): a vertical or degenerate face, never a hit.
    det: f32,
    /// A box around the X/Y projection, grown so that a point outside it can never
    /// pass the barycentric test (see [`PackedFace::may_contain`]); empty for a face
    /// that is never a hit.
    reach_lo: Vec2,
    reach_hi: Vec2,
    /// The +Z-facing unit normal; `None` when the face has no normal.
    normal: Option<Vec3>,
}

impl PackedFace {
    fn new(ps: [Vec3; 3]) -> Self {
        let [a, b, c] = ps.map(Vec3::truncate);
        let det = (b.y - c.y) * (a.x - c.x) + (c.x - b.x) * (a.y - c.y);
        let n = (ps[1] - ps[0]).cross(ps[2] - ps[0]).try_normalize();
        let (reach_lo, reach_hi) = Self::reach(a, b, c, det);
        Self {
            a,
            b,
            c,
            z: [ps[0].z, ps[1].z, ps[2].z],
            det,
            reach_lo,
            reach_hi,
            normal: n.map(|n| if n.z < 0.0 { -n } else { n }),
        }
    }

    /// The prefilter box of a face. A point whose barycentric weights all reach
    /// `−BARY_EPS` lies within `2·BARY_EPS·extent` of the face's box in exact
    /// arithmetic; the box is grown far beyond that (5 % of the extent plus 10⁻³) so
    /// that the lookup's rounding can never put an accepted point outside it. Thin
    /// faces (|det| < 10⁻³·extent²), whose rounding the bound does not cover, get an
    /// unbounded box (always tested in full); faces that are never a hit an empty one.
    fn reach(a: Vec2, b: Vec2, c: Vec2, det: f32) -> (Vec2, Vec2) {
        if det == 0.0 || !det.is_finite() {
            return (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY));
        }
        let (lo, hi) = (a.min(b).min(c), a.max(b).max(c));
        let ext = (hi - lo).max_element();
        if det.abs() < 1e-3 * ext * ext {
            return (Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY));
        }
        let grow = 0.05 * ext + 1e-3;
        (lo - grow, hi + grow)
    }

    /// Whether `p` may pass the barycentric test (a cheap, conservative prefilter:
    /// `false` only when the full test would fail too).
    fn may_contain(&self, p: Vec2) -> bool {
        (p.x >= self.reach_lo.x)
            & (p.x <= self.reach_hi.x)
            & (p.y >= self.reach_lo.y)
            & (p.y <= self.reach_hi.y)
    }

    /// The barycentric test: the weights of `p` when all reach `−BARY_EPS` (`p` on the
    /// face's X/Y projection, edges included); `None` off the face and for vertical or
    /// degenerate faces.
    fn weights(&self, p: Vec2) -> Option<[f32; 3]> {
        let PackedFace { a, b, c, det, .. } = *self;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let l0 = ((b.y - c.y) * (p.x - c.x) + (c.x - b.x) * (p.y - c.y)) / det;
        let l1 = ((c.y - a.y) * (p.x - c.x) + (a.x - c.x) * (p.y - c.y)) / det;
        let l2 = 1.0 - l0 - l1;
        (l0 >= -BARY_EPS && l1 >= -BARY_EPS && l2 >= -BARY_EPS).then_some([l0, l1, l2])
    }

    /// The height at `(x, y)` with barycentric weights `w`: exactly a corner's height
    /// on that corner, the planar interpolation elsewhere.
    fn height(&self, x: f32, y: f32, w: [f32; 3]) -> f32 {
        match [self.a, self.b, self.c]
            .iter()
            .position(|v| v.x == x && v.y == y)
        {
            Some(k) => self.z[k],
            None => self.z[0] * w[0] + self.z[1] * w[1] + self.z[2] * w[2],
        }
    }
}

impl Surface {
    /// Builds the surface from vertex positions and faces (vertex index triples). Faces
    /// naming a missing vertex or a non-finite position are left out (never indexed).
    /// An empty input gives a surface on which every query misses.
    pub fn new(positions: &[[f32; 3]], faces: &[[u16; 3]]) -> Self {
        let positions: Vec<Vec3> = positions.iter().map(|&p| Vec3::from_array(p)).collect();
        let faces: Vec<[u32; 3]> = faces
            .iter()
            .map(|f| f.map(u32::from))
            .filter(|f| {
                f.iter()
                    .all(|&v| positions.get(v as usize).is_some_and(|p| p.is_finite()))
            })
            .collect();
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        for f in &faces {
            for &v in f {
                let p = positions[v as usize].truncate();
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        if faces.is_empty() {
            lo = Vec2::ZERO;
            hi = Vec2::ONE;
        }
        let ext = (hi - lo).max(Vec2::splat(1e-3));
        let side =
            ((faces.len() as f32 / FACES_PER_CELL).sqrt().ceil() as u32).clamp(1, MAX_CELLS_SIDE);
        let (nx, ny) = (side, side);
        let cell = Vec2::new(ext.x / nx as f32, ext.y / ny as f32);
        let mut s = Self {
            positions,
            faces,
            min: lo,
            cell,
            nx,
            ny,
            cell_starts: Vec::new(),
            cell_faces: Vec::new(),
            wide: Vec::new(),
            packed: Vec::new(),
        };
        s.packed = (0..s.faces.len() as u32)
            .map(|f| PackedFace::new(s.corners(f)))
            .collect();
        // Counting sort of (cell, face) entries: faces ascend within each cell.
        let spans: Vec<(u32, u32, u32, u32)> = s
            .faces
            .iter()
            .map(|f| {
                let ps = f.map(|v| s.positions[v as usize].truncate());
                let (x0, y0) = s.cell_coords(ps[0].min(ps[1]).min(ps[2]));
                let (x1, y1) = s.cell_coords(ps[0].max(ps[1]).max(ps[2]));
                (x0, y0, x1, y1)
            })
            .collect();
        // Wide faces, and every face once the index holds MAX_CELL_ENTRIES, stay out of
        // the cells (the entry count then fits its u32 offsets whatever the input).
        let mut entries: u64 = 0;
        let wide: Vec<bool> = spans
            .iter()
            .map(|&(x0, y0, x1, y1)| {
                let cells = u64::from(x1 - x0 + 1) * u64::from(y1 - y0 + 1);
                let wide = cells > WIDE_FACE_CELLS || entries + cells > MAX_CELL_ENTRIES;
                entries += if wide { 0 } else { cells };
                wide
            })
            .collect();
        s.wide = (0..spans.len() as u32)
            .filter(|&i| wide[i as usize])
            .collect();
        let narrow = || {
            (0..spans.len())
                .filter(|&i| !wide[i])
                .map(|i| (i, spans[i]))
        };
        let mut starts = vec![0u32; (nx * ny) as usize + 1];
        for (_, (x0, y0, x1, y1)) in narrow() {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    starts[(y * nx + x) as usize + 1] += 1;
                }
            }
        }
        for c in 0..(nx * ny) as usize {
            starts[c + 1] += starts[c];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; starts[(nx * ny) as usize] as usize];
        for (i, (x0, y0, x1, y1)) in narrow() {
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let c = (y * nx + x) as usize;
                    items[fill[c] as usize] = i as u32;
                    fill[c] += 1;
                }
            }
        }
        s.cell_starts = starts;
        s.cell_faces = items;
        s
    }

    /// Builds the surface from parsed `Land.msh` streams (positions, face vertices).
    pub fn from_streams(streams: &iron3d_landmsh::Streams) -> Self {
        let faces: Vec<[u16; 3]> = streams.faces.iter().map(|f| f.vertices).collect();
        Self::new(&streams.positions, &faces)
    }

    /// The box of the indexed faces' corners (`None`: no face).
    pub fn extent(&self) -> Option<(Vec3, Vec3)> {
        let corners = self
            .faces
            .iter()
            .flatten()
            .map(|&v| self.positions[v as usize]);
        corners.fold(None, |acc, p| match acc {
            None => Some((p, p)),
            Some((lo, hi)) => Some((lo.min(p), hi.max(p))),
        })
    }

    /// Number of indexed faces.
    pub fn face_count(&self) -> usize {
        self.faces.len()
    }

    /// Accelerator cell of `p`, clamped to the grid (the same rule indexes the faces
    /// and looks points up, so a point always lands between its face's corner cells).
    ///
    /// Scalar `f64` arithmetic on purpose: the `Vec2` form compiled to a four-lane
    /// division whose two unused lanes held stale values, which cost a microcode
    /// assist per call on some CPUs (about 40 ns, a third of a terrain probe).
    fn cell_coords(&self, p: Vec2) -> (u32, u32) {
        // floor() without a libm call (exact: the clamp keeps the value in i32 range and
        // NaN lands in cell 0).
        let axis = |v: f32, min: f32, cell: f32, n: u32| -> u32 {
            let c = (f64::from(v) - f64::from(min)) / f64::from(cell);
            let c = c.clamp(-1.0, f64::from(n));
            let t = c as i32;
            (t - i32::from(f64::from(t) > c)).clamp(0, n as i32 - 1) as u32
        };
        (
            axis(p.x, self.min.x, self.cell.x, self.nx),
            axis(p.y, self.min.y, self.cell.y, self.ny),
        )
    }

    /// The faces indexed in cell `(cx, cy)` (inside the grid), ascending.
    fn cell(&self, cx: u32, cy: u32) -> &[u32] {
        let c = (cy * self.nx + cx) as usize;
        &self.cell_faces[self.cell_starts[c] as usize..self.cell_starts[c + 1] as usize]
    }

    fn corners(&self, face: u32) -> [Vec3; 3] {
        self.faces[face as usize].map(|v| self.positions[v as usize])
    }

    /// The lowest-index face whose X/Y projection contains `(x, y)` (edges included),
    /// with its barycentric weights.
    fn face_at(&self, x: f32, y: f32) -> Option<(u32, [f32; 3])> {
        if !(x.is_finite() && y.is_finite()) {
            return None;
        }
        let p = Vec2::new(x, y);
        let hi = self.min + self.cell * Vec2::new(self.nx as f32, self.ny as f32);
        let slack = self.cell * 1e-4;
        if p.x < self.min.x - slack.x
            || p.y < self.min.y - slack.y
            || p.x > hi.x + slack.x
            || p.y > hi.y + slack.y
        {
            return None;
        }
        let (cx, cy) = self.cell_coords(p);
        let hit = |f: u32| {
            let face = &self.packed[f as usize];
            // Also skips vertical and degenerate faces (no height): their box is empty.
            if !face.may_contain(p) {
                return None;
            }
            face.weights(p).map(|w| (f, w))
        };
        let in_cell = self.cell(cx, cy).iter().find_map(|&f| hit(f));
        // A wide face of lower index wins (faces ascend in both lists).
        let below = in_cell.map_or(u32::MAX, |(f, _)| f);
        self.wide
            .iter()
            .take_while(|&&f| f < below)
            .find_map(|&f| hit(f))
            .or(in_cell)
    }

    /// Surface height at `(x, y)`: the planar interpolation over the containing face
    /// (exactly the vertex height on a vertex), `None` off the surface.
    pub fn height_at(&self, x: f32, y: f32) -> Option<f32> {
        let (f, w) = self.face_at(x, y)?;
        Some(self.packed[f as usize].height(x, y, w))
    }

    /// Unit normal (pointing to +Z) of the face containing `(x, y)`, `None` off the surface.
    pub fn normal_at(&self, x: f32, y: f32) -> Option<Vec3> {
        let (f, _) = self.face_at(x, y)?;
        self.packed[f as usize].normal
    }

    /// Height and normal at `(x, y)` from one face lookup (what [`Surface::height_at`]
    /// and [`Surface::normal_at`] answer), `None` off the surface.
    pub fn sample(&self, x: f32, y: f32) -> Option<(f32, Vec3)> {
        let (f, w) = self.face_at(x, y)?;
        let face = &self.packed[f as usize];
        Some((face.height(x, y, w), face.normal?))
    }

    /// The hit of the segment `a → b` with the surface nearest to `a` (Möller–Trumbore,
    /// both face sides), searching the faces of the cells under the segment's X/Y box.
    pub fn intersect_segment(&self, a: Vec3, b: Vec3) -> Option<Vec3> {
        if !(a.is_finite() && b.is_finite()) || self.faces.is_empty() {
            return None;
        }
        let (lo, hi) = (
            a.truncate().min(b.truncate()),
            a.truncate().max(b.truncate()),
        );
        let top = self.min + self.cell * Vec2::new(self.nx as f32, self.ny as f32);
        if hi.x < self.min.x || hi.y < self.min.y || lo.x > top.x || lo.y > top.y {
            return None;
        }
        let (x0, y0) = self.cell_coords(lo);
        let (x1, y1) = self.cell_coords(hi);
        let mut cand: Vec<u32> = Vec::new();
        for y in y0..=y1 {
            for x in x0..=x1 {
                cand.extend_from_slice(self.cell(x, y));
            }
        }
        cand.extend_from_slice(&self.wide);
        cand.sort_unstable();
        cand.dedup();
        let dir = b - a;
        let mut best: Option<f32> = None;
        for f in cand {
            let [p0, p1, p2] = self.corners(f);
            if let Some(t) = moller_trumbore(a, dir, p0, p1, p2)
                && (0.0..=1.0).contains(&t)
                && best.is_none_or(|bt| t < bt)
            {
                best = Some(t);
            }
        }
        best.map(|t| a + dir * t)
    }
}

/// Ray parameter `t` of the hit of `origin + t·dir` with triangle `(p0, p1, p2)`.
fn moller_trumbore(origin: Vec3, dir: Vec3, p0: Vec3, p1: Vec3, p2: Vec3) -> Option<f32> {
    let (e1, e2) = (p1 - p0, p2 - p0);
    let h = dir.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - p0;
    let u = s.dot(h) * inv;
    if !(-BARY_EPS..=1.0 + BARY_EPS).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < -BARY_EPS || u + v > 1.0 + BARY_EPS {
        return None;
    }
    Some(e2.dot(q) * inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_landmsh::from_grid;

    fn plane(a: f32, b: f32, c: f32, w: u16, h: u16, cell: f32) -> Surface {
        let s = from_grid(w, h, cell, |x, y| a * x + b * y + c).unwrap();
        Surface::from_streams(&s)
    }

    /// Deterministic pseudo-random floats in `[0, 1)` (SplitMix64).
    fn rng(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// The barycentric test of `face_at` on one face, without the prefilter.
    fn passes(f: &PackedFace, p: Vec2) -> bool {
        f.weights(p).is_some()
    }

    #[test]
    fn the_prefilter_never_rejects_a_point_the_full_test_accepts() {
        let mut r = rng(5);
        let mut accepted = 0;
        for k in 0..20_000 {
            // Triangles of every shape (thin ones included) at coordinates up to 4096,
            // points on and near their edges and corners, and scattered around them.
            let scale = [0.01, 1.0, 8.0, 300.0][k % 4];
            let base = Vec2::new(r() * 4096.0, r() * 4096.0);
            let a = base;
            let b = base + Vec2::new(r() - 0.5, r() - 0.5) * scale;
            let c = if k % 7 == 0 {
                a + (b - a) * (r() * 2.0) + Vec2::new(r(), r()) * scale * 1e-4
            } else {
                base + Vec2::new(r() - 0.5, r() - 0.5) * scale
            };
            let f = PackedFace::new([a.extend(0.0), b.extend(1.0), c.extend(2.0)]);
            for _ in 0..8 {
                let (u, v) = (r() * 1.4 - 0.2, r() * 1.4 - 0.2);
                let on_edge = [a + (b - a) * u, b + (c - b) * u, c + (a - c) * u];
                let p = match (r() * 4.0) as u32 {
                    0..=1 => on_edge[(r() * 3.0) as usize % 3],
                    2 => a + (b - a) * u + (c - a) * v,
                    _ => {
                        [a, b, c][(r() * 3.0) as usize % 3] + Vec2::new(r() - 0.5, r() - 0.5) * 1e-3
                    }
                };
                if passes(&f, p) {
                    accepted += 1;
                    assert!(
                        f.may_contain(p),
                        "face {a} {b} {c}: {p} accepted but filtered"
                    );
                }
            }
        }
        assert!(
            accepted > 40_000,
            "the check must see many accepted points: {accepted}"
        );
    }

    #[test]
    fn face_lookup_is_the_lowest_index_face_that_passes() {
        // A bumpy grid: every lookup must give what a scan of every face in index
        // order gives (the prefilter and the cell lists only make it faster).
        let streams = from_grid(9, 7, 2.5, |x, y| (x * 0.7).sin() * 3.0 + y * 0.1).unwrap();
        let s = Surface::from_streams(&streams);
        let mut r = rng(9);
        let grid = |v: f32| (v / 2.5).round() * 2.5;
        for k in 0..20_000 {
            let (x, y) = (r() * 24.0 - 2.0, r() * 19.0 - 2.0);
            // Every third point on a grid line or vertex (shared edges and corners).
            let p = match k % 3 {
                0 => Vec2::new(grid(x), y),
                1 => Vec2::new(grid(x), grid(y)),
                _ => Vec2::new(x, y),
            };
            let brute = (0..s.packed.len() as u32).find(|&f| passes(&s.packed[f as usize], p));
            assert_eq!(s.face_at(p.x, p.y).map(|(f, _)| f), brute, "{p}");
        }
    }

    #[test]
    fn wide_faces_stay_out_of_the_cells_and_keep_the_lowest_index_rule() {
        // A fine grid with two huge faces over all of it, one before and one after the
        // grid's faces: lookups and segment hits still follow the index order.
        let streams = from_grid(40, 40, 1.0, |x, y| (x * 0.3).sin() + y * 0.05).unwrap();
        let mut positions = streams.positions.clone();
        let mut faces: Vec<[u16; 3]> = Vec::new();
        let n = positions.len() as u16;
        positions.extend([[-5.0, -5.0, 9.0], [80.0, -5.0, 9.0], [-5.0, 80.0, 9.0]]);
        positions.extend([[-5.0, -5.0, -9.0], [80.0, -5.0, -9.0], [-5.0, 80.0, -9.0]]);
        faces.push([n + 3, n + 4, n + 5]);
        faces.extend(streams.faces.iter().map(|f| f.vertices));
        faces.push([n, n + 1, n + 2]);
        let s = Surface::new(&positions, &faces);
        assert_eq!(s.wide, vec![0, faces.len() as u32 - 1]);
        assert!(
            s.cell_faces.len() < faces.len() * 8,
            "{}",
            s.cell_faces.len()
        );
        let mut r = rng(3);
        for _ in 0..5_000 {
            let p = Vec2::new(r() * 90.0 - 6.0, r() * 90.0 - 6.0);
            let brute = (0..s.packed.len() as u32).find(|&f| passes(&s.packed[f as usize], p));
            assert_eq!(s.face_at(p.x, p.y).map(|(f, _)| f), brute, "{p}");
        }
        // Straight down through both huge planes: the upper one (z = 9) is hit first.
        let hit = s.intersect_segment(Vec3::new(60.0, 2.0, 20.0), Vec3::new(60.0, 2.0, -20.0));
        assert_eq!(hit.map(|h| h.z), Some(9.0));
    }

    #[test]
    fn heights_exact_on_vertices_and_planar_inside() {
        for &(a, b, c) in &[(0.0, 0.0, 5.0), (0.25, -0.5, 3.0), (-1.5, 0.75, -2.0)] {
            let s = plane(a, b, c, 12, 9, 4.0);
            let streams = from_grid(12, 9, 4.0, |x, y| a * x + b * y + c).unwrap();
            for p in &streams.positions {
                assert_eq!(s.height_at(p[0], p[1]), Some(p[2]), "vertex {p:?}");
            }
            let mut r = rng(7);
            for _ in 0..2000 {
                let (x, y) = (r() * 48.0, r() * 36.0);
                let z = s.height_at(x, y).unwrap();
                assert!((z - (a * x + b * y + c)).abs() < 1e-4, "({x},{y}) {z}");
            }
        }
    }

    #[test]
    fn curved_surface_is_planar_per_face() {
        // z = x·y is bilinear: on a face the interpolant differs from it, but equals
        // the plane through the face's three vertices.
        let streams = from_grid(6, 6, 2.0, |x, y| 0.1 * x * y).unwrap();
        let s = Surface::from_streams(&streams);
        let (x, y) = (3.0 + 0.5, 5.0 + 0.25); // in cell (1, 2), lower face (x-frac > y-frac)
        let (x0, y0) = (2.0f32, 4.0f32);
        let z00 = 0.1 * x0 * y0;
        let z10 = 0.1 * (x0 + 2.0) * y0;
        let z11 = 0.1 * (x0 + 2.0) * (y0 + 2.0);
        let (u, v) = ((x - x0) / 2.0, (y - y0) / 2.0);
        let expect = z00 + u * (z10 - z00) + v * (z11 - z10);
        assert!((s.height_at(x, y).unwrap() - expect).abs() < 1e-4);
    }

    #[test]
    fn normals_are_unit_and_analytic() {
        let (a, b) = (0.3f32, -0.7f32);
        let s = plane(a, b, 1.0, 8, 8, 3.0);
        let expect = Vec3::new(-a, -b, 1.0).normalize();
        let mut r = rng(11);
        for _ in 0..1000 {
            let n = s.normal_at(r() * 24.0, r() * 24.0).unwrap();
            assert!((n.length() - 1.0).abs() < 1e-5);
            assert!((n - expect).length() < 1e-4, "{n}");
        }
    }

    #[test]
    fn off_surface_is_none() {
        let s = plane(0.1, 0.2, 0.0, 4, 4, 1.0);
        assert_eq!(s.height_at(-1.0, 2.0), None);
        assert_eq!(s.height_at(2.0, 4.5), None);
        assert_eq!(s.normal_at(f32::NAN, 0.0), None);
        let empty = Surface::new(&[], &[]);
        assert_eq!(empty.height_at(0.5, 0.5), None);
        assert_eq!(empty.intersect_segment(Vec3::ZERO, Vec3::ONE), None);
    }

    #[test]
    fn segments_hit_the_plane_at_the_analytic_point() {
        let (a, b, c) = (0.2f32, -0.1f32, 4.0f32);
        let s = plane(a, b, c, 10, 10, 5.0);
        let mut r = rng(3);
        for _ in 0..1000 {
            let p = Vec3::new(r() * 50.0, r() * 50.0, 0.0);
            let q = Vec3::new(r() * 50.0, r() * 50.0, 0.0);
            let (pa, qa) = (a * p.x + b * p.y + c, a * q.x + b * q.y + c);
            let from = p.with_z(pa + 1.0 + r() * 5.0);
            let to = q.with_z(qa - 1.0 - r() * 5.0);
            let hit = s.intersect_segment(from, to).unwrap();
            // Analytic: f(t) = z(t) - plane(t) is linear in t.
            let (f0, f1) = (from.z - pa, to.z - qa);
            let t = f0 / (f0 - f1);
            let expect = from + (to - from) * t;
            assert!((hit - expect).length() < 1e-3, "{hit} vs {expect}");
        }
        // A segment entirely above the plane misses.
        assert_eq!(
            s.intersect_segment(Vec3::new(1.0, 1.0, 50.0), Vec3::new(40.0, 30.0, 60.0)),
            None
        );
    }

    #[test]
    fn segment_returns_nearest_of_two_hits() {
        // A ridge z = 10 - |x - 10|·1: a horizontal segment at z = 5 crosses twice.
        let s = from_grid(20, 2, 1.0, |x, _| 10.0 - (x - 10.0).abs()).unwrap();
        let s = Surface::from_streams(&s);
        let hit = s
            .intersect_segment(Vec3::new(0.0, 1.0, 5.0), Vec3::new(20.0, 1.0, 5.0))
            .unwrap();
        assert!((hit.x - 5.0).abs() < 1e-4, "{hit}");
        let back = s
            .intersect_segment(Vec3::new(20.0, 1.0, 5.0), Vec3::new(0.0, 1.0, 5.0))
            .unwrap();
        assert!((back.x - 15.0).abs() < 1e-4, "{back}");
    }
}
