//! The geometry kit of the demo models: convex faces with flat normals and planar UVs
//! into one quarter of a 2×2 texture atlas ([`Region`], the layout every model texture
//! follows, see `paint.rs`), and the solids the models are built from: hexahedra (boxes,
//! wedges, tapered blocks, prisms), cylinders and beams. A large face is cut into cells of
//! at most [`Geo::tile`] world units, each mapping its whole region, so that plates,
//! slabs and panels repeat at a steady size. LOD 0 takes every face; LOD 1 leaves out
//! the faces added inside [`Geo::detail`].

/// A point or vector in node space.
pub(crate) type V3 = [f32; 3];

/// One quarter of a model texture (2×2 atlas): what it shows depends on the material
/// (`paint.rs` names them per material).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    /// Top left.
    A,
    /// Top right.
    B,
    /// Bottom left.
    C,
    /// Bottom right.
    D,
}

/// UV inset of a region's rectangle: one texel of a 64-texel texture, so that filtering
/// and the first mip level stay inside the region.
const INSET: f32 = 1.0 / 64.0;

impl Region {
    /// `(u0, v0, u1, v1)`: the region's rectangle in texture space (v down), inset.
    pub(crate) fn rect(self) -> [f32; 4] {
        let (i, j) = match self {
            Region::A => (0.0, 0.0),
            Region::B => (0.5, 0.0),
            Region::C => (0.0, 0.5),
            Region::D => (0.5, 0.5),
        };
        [i + INSET, j + INSET, i + 0.5 - INSET, j + 0.5 - INSET]
    }

    /// The texture point at local `(s, t)` of the region (`t = 0` at its top).
    fn at(self, s: f32, t: f32) -> [f32; 2] {
        let [u0, v0, u1, v1] = self.rect();
        [u0 + (u1 - u0) * s, v0 + (v1 - v0) * t]
    }
}

/// The axis of a cylinder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Axis {
    /// Along X.
    X,
    /// Along Y.
    Y,
    /// Along Z.
    Z,
}

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: V3, k: f32) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}

fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn len(a: V3) -> f32 {
    dot(a, a).sqrt()
}

fn norm(a: V3) -> V3 {
    let l = len(a);
    if l > 1e-9 { scale(a, 1.0 / l) } else { a }
}

fn lerp(a: V3, b: V3, t: f32) -> V3 {
    add(a, scale(sub(b, a), t))
}

/// The triangles, vertices and LOD split of one node's geometry.
pub(crate) struct Geo {
    /// Vertex positions (node space).
    pub positions: Vec<V3>,
    /// Unit vertex normals (flat per face).
    pub normals: Vec<V3>,
    /// Texture coordinates (0..1 over the whole texture).
    pub uvs: Vec<[f32; 2]>,
    /// Triangle indices of LOD 0 (every face).
    pub lod0: Vec<u16>,
    /// Triangle indices of LOD 1 (no details).
    pub lod1: Vec<u16>,
    /// The longest side of one texture cell, in world units.
    pub tile: f32,
    detail: bool,
}

impl Geo {
    /// Empty geometry whose faces repeat their region every `tile` units at most.
    pub(crate) fn new(tile: f32) -> Geo {
        Geo {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            lod0: Vec::new(),
            lod1: Vec::new(),
            tile,
            detail: false,
        }
    }

    /// Adds what `f` builds as LOD-0-only detail.
    pub(crate) fn detail(&mut self, f: impl FnOnce(&mut Geo)) {
        let was = self.detail;
        self.detail = true;
        f(self);
        self.detail = was;
    }

    fn vertex(&mut self, p: V3, n: V3, uv: [f32; 2]) -> u16 {
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
        (self.positions.len() - 1) as u16
    }

    fn triangle(&mut self, a: u16, b: u16, c: u16) {
        self.lod0.extend([a, b, c]);
        if !self.detail {
            self.lod1.extend([a, b, c]);
        }
    }

    /// A quad `q` wound counter-clockwise seen from outside, with explicit corner UVs,
    /// flat-shaded.
    fn quad_uv(&mut self, q: [V3; 4], uv: [[f32; 2]; 4]) {
        let n = norm(cross(sub(q[2], q[0]), sub(q[3], q[1])));
        let i: Vec<u16> = (0..4).map(|k| self.vertex(q[k], n, uv[k])).collect();
        self.triangle(i[0], i[1], i[2]);
        self.triangle(i[0], i[2], i[3]);
    }

    /// A (possibly non-planar or degenerate) quad wound counter-clockwise seen from
    /// outside, textured with region `r` and cut into cells of at most [`Geo::tile`].
    /// On a wall or a slope the region stands upright (its top along the quad's upper
    /// edge); on a floor or a flat top its `u` runs along the edge closest to +X.
    pub(crate) fn quad(&mut self, q: [V3; 4], r: Region) {
        let n = norm(cross(sub(q[2], q[0]), sub(q[3], q[1])));
        // Rotate so that p0 → p1 is the bottom edge (walls) or the +X edge (floors).
        let score = |k: usize| {
            let p = |i: usize| q[(k + i) % 4];
            if n[2].abs() < 0.95 {
                p(2)[2] + p(3)[2] - p(0)[2] - p(1)[2]
            } else {
                norm(sub(p(1), p(0)))[0] + 1e-3 * (p(0)[0] + p(0)[1])
            }
        };
        let k = (0..4)
            .max_by(|&a, &b| score(a).total_cmp(&score(b)))
            .unwrap_or(0);
        let p: [V3; 4] = std::array::from_fn(|i| q[(k + i) % 4]);
        let cells = |a: f32, b: f32| ((a.max(b) / self.tile).ceil().max(1.0)) as usize;
        let nu = cells(len(sub(p[1], p[0])), len(sub(p[2], p[3])));
        let nv = cells(len(sub(p[3], p[0])), len(sub(p[2], p[1])));
        // Bilinear point at (s along the bottom/top edges, t from bottom to top).
        let at = |s: f32, t: f32| lerp(lerp(p[0], p[1], s), lerp(p[3], p[2], s), t);
        for j in 0..nv {
            for i in 0..nu {
                let (s0, s1) = (i as f32 / nu as f32, (i + 1) as f32 / nu as f32);
                let (t0, t1) = (j as f32 / nv as f32, (j + 1) as f32 / nv as f32);
                let c = [at(s0, t0), at(s1, t0), at(s1, t1), at(s0, t1)];
                let uv = [
                    r.at(0.0, 1.0),
                    r.at(1.0, 1.0),
                    r.at(1.0, 0.0),
                    r.at(0.0, 0.0),
                ];
                let ids: Vec<u16> = (0..4).map(|m| self.vertex(c[m], n, uv[m])).collect();
                self.triangle(ids[0], ids[1], ids[2]);
                self.triangle(ids[0], ids[2], ids[3]);
            }
        }
    }

    /// A hexahedron from its corners (index bits: 1 = +X side, 2 = +Y side, 4 = top),
    /// convex; faces `-X, +X, -Y, +Y, bottom, top` take `regions` in that order. Faces
    /// collapsed to a line are left out; their winding is fixed outwards here.
    pub(crate) fn hexa(&mut self, c: [V3; 8], regions: [Region; 6]) {
        const FACES: [[usize; 4]; 6] = [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ];
        let centre = scale(c.iter().fold([0.0; 3], |a, &p| add(a, p)), 1.0 / 8.0);
        for (f, r) in FACES.iter().zip(regions) {
            let mut q: [V3; 4] = std::array::from_fn(|i| c[f[i]]);
            let n = cross(sub(q[2], q[0]), sub(q[3], q[1]));
            if len(n) < 1e-6 {
                continue;
            }
            let mid = scale(q.iter().fold([0.0; 3], |a, &p| add(a, p)), 0.25);
            if dot(n, sub(mid, centre)) < 0.0 {
                q.reverse();
            }
            self.quad(q, r);
        }
    }

    /// A block whose bottom rectangle `[x0, x1, y0, y1]` at height `z0` narrows or widens
    /// to `top` at `z1` (a box when equal; a wedge, a pyramid frustum or — with a
    /// zero-width top — a prism otherwise), one region on every face.
    pub(crate) fn tapered(&mut self, bottom: [f32; 4], z0: f32, top: [f32; 4], z1: f32, r: Region) {
        self.tapered_faces(bottom, z0, top, z1, [r; 6]);
    }

    /// [`Geo::tapered`] with a region per face (`-X, +X, -Y, +Y, bottom, top`).
    pub(crate) fn tapered_faces(
        &mut self,
        bottom: [f32; 4],
        z0: f32,
        top: [f32; 4],
        z1: f32,
        regions: [Region; 6],
    ) {
        let corner = |k: usize| {
            let (rect, z) = if k & 4 == 0 { (bottom, z0) } else { (top, z1) };
            [
                if k & 1 == 0 { rect[0] } else { rect[1] },
                if k & 2 == 0 { rect[2] } else { rect[3] },
                z,
            ]
        };
        self.hexa(std::array::from_fn(corner), regions);
    }

    /// The axis-aligned box `min..max`, one region on every face.
    pub(crate) fn cuboid(&mut self, min: V3, max: V3, r: Region) {
        let rect = [min[0], max[0], min[1], max[1]];
        self.tapered(rect, min[2], rect, max[2], r);
    }

    /// A square beam of side `w` from `a` to `b` (struts, legs, braces, cables).
    pub(crate) fn beam(&mut self, a: V3, b: V3, w: f32, r: Region) {
        let d = norm(sub(b, a));
        let up = if d[2].abs() < 0.9 {
            [0.0, 0.0, 1.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        let e1 = scale(norm(cross(d, up)), w / 2.0);
        let e2 = scale(norm(cross(d, e1)), w / 2.0);
        let corner = |k: usize| {
            let end = if k & 1 == 0 { a } else { b };
            let p = add(end, if k & 2 == 0 { scale(e1, -1.0) } else { e1 });
            add(p, if k & 4 == 0 { scale(e2, -1.0) } else { e2 })
        };
        self.hexa(std::array::from_fn(corner), [r; 6]);
    }

    /// A cylinder of `segments` sides around `axis` through `centre`, `radius` wide and
    /// `2 × half` long: the side wraps `side` once around, each cap shows `cap` as a disc
    /// (the region's inscribed circle: wheels, hubs, hatches, lamps).
    #[allow(
        clippy::too_many_arguments,
        reason = "one flat description of a cylinder"
    )]
    pub(crate) fn cylinder(
        &mut self,
        axis: Axis,
        centre: V3,
        radius: f32,
        half: f32,
        segments: usize,
        side: Region,
        cap: Region,
    ) {
        // (along, u, v): a right-handed frame with `along` on the axis.
        let (along, u, v): (V3, V3, V3) = match axis {
            Axis::X => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
            Axis::Y => ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
            Axis::Z => ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        };
        let ring = |k: usize, end: f32| {
            let a = std::f32::consts::TAU * k as f32 / segments as f32;
            let (s, c) = a.sin_cos();
            add(
                add(centre, scale(along, end * half)),
                add(scale(u, c * radius), scale(v, s * radius)),
            )
        };
        for k in 0..segments {
            let (s0, s1) = (k as f32 / segments as f32, (k + 1) as f32 / segments as f32);
            // Counter-clockwise seen from outside: -end → +end along k, then back at k+1.
            let q = [
                ring(k, -1.0),
                ring(k + 1, -1.0),
                ring(k + 1, 1.0),
                ring(k, 1.0),
            ];
            let uv = [
                side.at(s0, 1.0),
                side.at(s1, 1.0),
                side.at(s1, 0.0),
                side.at(s0, 0.0),
            ];
            // Normals point out of the axis: fix the winding accordingly.
            let out = sub(lerp(q[0], q[2], 0.5), add(centre, scale(along, 0.0)));
            let n = cross(sub(q[2], q[0]), sub(q[3], q[1]));
            if dot(n, sub(out, scale(along, dot(out, along)))) < 0.0 {
                self.quad_uv([q[3], q[2], q[1], q[0]], [uv[3], uv[2], uv[1], uv[0]]);
            } else {
                self.quad_uv(q, uv);
            }
        }
        for end in [-1.0f32, 1.0] {
            let n = scale(along, end);
            let mid = self.vertex(add(centre, scale(along, end * half)), n, cap.at(0.5, 0.5));
            let rim: Vec<u16> = (0..segments)
                .map(|k| {
                    let a = std::f32::consts::TAU * k as f32 / segments as f32;
                    let (s, c) = a.sin_cos();
                    let uv = cap.at(0.5 + 0.5 * c, 0.5 - 0.5 * s);
                    self.vertex(ring(k, end), n, uv)
                })
                .collect();
            for k in 0..segments {
                let (a, b) = (rim[k], rim[(k + 1) % segments]);
                // (u, v, along) is right-handed: counter-clockwise about +along.
                if end > 0.0 {
                    self.triangle(mid, a, b);
                } else {
                    self.triangle(mid, b, a);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle's winding agrees with its vertices' normals (outward faces).
    fn windings_agree(g: &Geo) {
        for t in g.lod0.chunks(3) {
            let p = |i: usize| g.positions[usize::from(t[i])];
            let n = cross(sub(p(1), p(0)), sub(p(2), p(0)));
            if len(n) < 1e-6 {
                continue;
            }
            assert!(dot(n, g.normals[usize::from(t[0])]) > 0.0, "{t:?}");
        }
    }

    #[test]
    fn solids_face_outwards_and_stay_in_their_boxes() {
        let mut g = Geo::new(1.0);
        g.cuboid([-1.0, -2.0, -0.5], [1.0, 2.0, 0.5], Region::A);
        g.tapered(
            [-2.0, 2.0, -1.0, 1.0],
            0.0,
            [0.0, 0.0, -1.0, 1.0],
            1.0,
            Region::B,
        );
        g.cylinder(Axis::Y, [0.0, 0.0, 0.0], 0.5, 0.2, 8, Region::C, Region::D);
        g.cylinder(Axis::X, [0.0, 0.0, 0.0], 0.5, 0.2, 8, Region::C, Region::D);
        g.cylinder(Axis::Z, [0.0, 0.0, 0.0], 0.5, 0.2, 8, Region::C, Region::D);
        g.beam([0.0, 0.0, 0.0], [1.0, 1.0, 2.0], 0.2, Region::A);
        windings_agree(&g);
        // Outward: every face normal points away from the centre of a box.
        let mut b = Geo::new(0.5);
        b.cuboid([-1.0; 3], [1.0; 3], Region::A);
        for (p, n) in b.positions.iter().zip(&b.normals) {
            assert!(dot(*p, *n) > 0.0);
        }
        assert_eq!(
            b.lod0.len(),
            6 * 16 * 6,
            "2×2 units in cells of 0.5: 16 per face"
        );
    }

    #[test]
    fn details_are_left_out_of_lod_1_and_uvs_stay_in_their_region() {
        let mut g = Geo::new(10.0);
        g.cuboid([0.0; 3], [1.0; 3], Region::D);
        g.detail(|g| g.cuboid([0.0; 3], [0.5; 3], Region::D));
        assert_eq!(g.lod0.len(), 2 * g.lod1.len());
        let [u0, v0, u1, v1] = Region::D.rect();
        for [u, v] in &g.uvs {
            assert!((u0..=u1).contains(u) && (v0..=v1).contains(v), "{u} {v}");
        }
    }
}
