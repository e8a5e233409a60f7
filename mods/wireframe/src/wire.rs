//! The line rasterizer: [`WireRasterizer`] turns a [`RenderFrame`] into RGBA8 pixels by
//! the pixel rules of the crate documentation (transform, clip every triangle edge to
//! the view volume, 1-pixel lines depth-tested against the nearest edge, flat colours).

use abi_stable::std_types::RVec;
use iron3d_abi::{
    DrawItem, ImageRgba8, Overlay, RenderFrame, RenderPhase, RenderResources, RenderStats,
};

/// Largest accepted target width or height (the same limit as `render-soft`); a larger
/// target draws nothing (the size becomes 0×0 and every item counts as skipped).
pub const MAX_TARGET_DIM: u32 = 16384;

/// Edge colour of terrain items ([`RenderPhase::OpaqueTerrain`]).
pub const TERRAIN_COLOUR: [u8; 4] = [70, 170, 90, 255];

/// Edge colours of every other item, picked by [`item_colour`]. All distinct, none equal
/// to [`TERRAIN_COLOUR`].
pub const PALETTE: [[u8; 4]; 8] = [
    [80, 220, 255, 255],  // cyan
    [255, 210, 60, 255],  // amber
    [255, 90, 200, 255],  // magenta
    [150, 255, 110, 255], // lime
    [255, 140, 60, 255],  // orange
    [150, 150, 255, 255], // periwinkle
    [240, 240, 240, 255], // white
    [255, 100, 100, 255], // coral
];

/// "No material resolved" in [`DrawItem::material`].
const NO_MATERIAL: u32 = u32::MAX;

/// The flat colour of `item`'s edges on a target cleared to `clear` (rule 9 of the crate
/// docs): [`TERRAIN_COLOUR`] for terrain, else the [`PALETTE`] entry chosen by a
/// multiplicative hash of the WEAR material handle (the mesh index when the item has no
/// material); when that colour's RGB equals `clear`'s, the next palette entry (the first
/// one for terrain) instead.
pub fn item_colour(item: &DrawItem, clear: [u8; 4]) -> [u8; 4] {
    let index = if item.phase == RenderPhase::OpaqueTerrain {
        None
    } else {
        let key = if item.material == NO_MATERIAL {
            // Keep mesh keys apart from small material handles.
            item.mesh ^ 0xA5A5_0000
        } else {
            item.material
        };
        Some((key.wrapping_mul(0x9E37_79B9) >> 16) as usize % PALETTE.len())
    };
    let colour = index.map_or(TERRAIN_COLOUR, |i| PALETTE[i]);
    if colour[..3] != clear[..3] {
        return colour;
    }
    // The palette's entries differ from each other and from the terrain colour, so the
    // replacement differs from the clear colour.
    PALETTE[index.map_or(0, |i| (i + 1) % PALETTE.len())]
}

/// Counters of the last [`WireRasterizer::draw`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WireCounters {
    /// Items that were drawn (possibly with some triangles skipped).
    pub items_drawn: u32,
    /// Items skipped whole: mesh index out of range, or the target too large.
    pub skipped_items: u32,
    /// Triangles skipped: indices past the end of the index buffer, or a vertex past the
    /// end of the position array.
    pub skipped_triangles: u32,
    /// Triangles read from valid indices and transformed.
    pub triangles: u32,
    /// Edges (three per triangle) that reached the line loop after clipping.
    pub edges: u32,
    /// Edges dropped by clipping: outside the view volume, a non-finite coordinate, or
    /// `w <= 0` after clipping.
    pub rejected: u32,
    /// Line samples that passed the depth test and were written.
    pub pixels: u64,
}

impl WireCounters {
    /// Skipped items plus skipped triangles (the "bad data" count).
    pub fn skipped(&self) -> u32 {
        self.skipped_items.saturating_add(self.skipped_triangles)
    }
}

/// The wireframe rasterizer. Keeps its colour and depth buffers between frames and only
/// reallocates when the target grows.
#[derive(Debug, Default)]
pub struct WireRasterizer {
    width: u32,
    height: u32,
    color: Vec<u8>,
    depth: Vec<f32>,
    counters: WireCounters,
    drawn: bool,
}

impl WireRasterizer {
    /// An empty rasterizer (0×0, nothing drawn).
    pub fn new() -> Self {
        Self::default()
    }

    /// Width of the last drawn target.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of the last drawn target.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether [`WireRasterizer::draw`] ran at least once.
    pub fn has_frame(&self) -> bool {
        self.drawn
    }

    /// The colour buffer: `width * height * 4` bytes RGBA8, rows top to bottom.
    pub fn pixels(&self) -> &[u8] {
        &self.color
    }

    /// The depth buffer: `width * height` values in `[0, 1]` (1 where no edge was
    /// drawn), rows top to bottom.
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// Counters of the last draw.
    pub fn counters(&self) -> WireCounters {
        self.counters
    }

    /// A copy of the colour buffer as an image (what `capture` returns).
    pub fn image(&self) -> ImageRgba8 {
        ImageRgba8 {
            width: self.width,
            height: self.height,
            pixels: RVec::from(self.color.clone()),
        }
    }

    /// (2.4) Draws `overlay` over the colour buffer of the last frame with
    /// [`iron3d_abi::overlay::composite`] (the colour buffer is RGBA8, rows top to
    /// bottom, the layout it expects). Returns the number of quads skipped for a missing
    /// or malformed texture. Before the first frame (0×0) nothing is drawn.
    pub fn composite_overlay(&mut self, overlay: &Overlay) -> u32 {
        iron3d_abi::overlay::composite(overlay, self.width, self.height, &mut self.color)
    }

    fn resize(&mut self, width: u32, height: u32) {
        let n = width as usize * height as usize;
        self.width = width;
        self.height = height;
        self.color.resize(n * 4, 0);
        self.depth.resize(n, 1.0);
    }

    /// Draws `frame` into the internal buffers (resized to the frame's target) and
    /// returns `draw_items` = items drawn, `objects` = visible objects.
    pub fn draw(&mut self, frame: &RenderFrame) -> RenderStats {
        self.counters = WireCounters::default();
        self.drawn = true;
        let objects = u32::try_from(frame.visible.len()).unwrap_or(u32::MAX);
        let (w, h) = (frame.target.width, frame.target.height);
        if w > MAX_TARGET_DIM || h > MAX_TARGET_DIM {
            self.resize(0, 0);
            self.counters.skipped_items = u32::try_from(frame.items.len()).unwrap_or(u32::MAX);
            return RenderStats {
                draw_items: 0,
                objects,
            };
        }
        self.resize(w, h);
        let clear = frame.target.clear;
        for px in self.color.chunks_exact_mut(4) {
            px.copy_from_slice(&clear);
        }
        self.depth.fill(1.0);
        if w == 0 || h == 0 {
            return RenderStats {
                draw_items: 0,
                objects,
            };
        }
        let pv = glam::Mat4::from(frame.camera.projection) * glam::Mat4::from(frame.camera.view);
        let resources: &RenderResources = &frame.resources;
        for item in frame.items.iter() {
            self.draw_item(resources, &pv, clear, item);
        }
        RenderStats {
            draw_items: self.counters.items_drawn,
            objects,
        }
    }

    fn draw_item(
        &mut self,
        resources: &RenderResources,
        pv: &glam::Mat4,
        clear: [u8; 4],
        item: &DrawItem,
    ) {
        let Some(mesh) = resources.meshes.get(item.mesh as usize) else {
            self.counters.skipped_items += 1;
            return;
        };
        self.counters.items_drawn += 1;
        let colour = item_colour(item, clear);
        let m = (*pv * glam::Mat4::from(item.world)).to_cols_array();
        let tri_count = item.index_count / 3;
        for k in 0..tri_count {
            let idx = (item.index_start as usize)
                .checked_add(3 * k as usize)
                .and_then(|start| mesh.indices.get(start..start.checked_add(3)?));
            let Some(idx) = idx else {
                // Every later triangle is past the end too.
                self.counters.skipped_triangles += tri_count - k;
                break;
            };
            let mut v = [[0.0f32; 4]; 3];
            let mut ok = true;
            for (out, &i) in v.iter_mut().zip(idx) {
                let p = (item.base_vertex as usize)
                    .checked_add(usize::from(i))
                    .and_then(|vi| mesh.positions.get(vi));
                match p {
                    Some(p) => *out = transform(&m, p),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                self.counters.skipped_triangles += 1;
                continue;
            }
            self.counters.triangles += 1;
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                self.edge(v[a], v[b], colour);
            }
        }
    }

    /// Clips, projects and draws one edge (rules 5–8).
    fn edge(&mut self, a: [f32; 4], b: [f32; 4], colour: [u8; 4]) {
        let (wf, hf) = (self.width as f32, self.height as f32);
        let ends =
            clip_segment(a, b).and_then(|(a, b)| Some((project(a, wf, hf)?, project(b, wf, hf)?)));
        let Some((a, b)) = ends else {
            self.counters.rejected += 1;
            return;
        };
        self.counters.edges += 1;
        let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let span = d[0].abs().max(d[1].abs()).ceil();
        // Finite and inside the target after clipping; the cap only bounds a rounding slip.
        let n = (span as u32).min(self.width + self.height);
        if n == 0 {
            self.plot(a, colour);
            return;
        }
        let nf = n as f32;
        for i in 0..=n {
            let fi = i as f32;
            let p = [
                a[0] + (d[0] * fi) / nf,
                a[1] + (d[1] * fi) / nf,
                a[2] + (d[2] * fi) / nf,
            ];
            self.plot(p, colour);
        }
    }

    /// Writes one line sample (screen `x, y, depth`) through the depth test.
    fn plot(&mut self, p: [f32; 3], colour: [u8; 4]) {
        // Saturating casts: negative values become 0, the clamp keeps the target.
        let x = (p[0].floor() as u32).min(self.width - 1) as usize;
        let y = (p[1].floor() as u32).min(self.height - 1) as usize;
        let idx = y * self.width as usize + x;
        if p[2] <= self.depth[idx] {
            self.depth[idx] = p[2];
            self.color[idx * 4..idx * 4 + 4].copy_from_slice(&colour);
            self.counters.pixels += 1;
        }
    }
}

/// Clip position of `p` under the column-major matrix `m` (rule 3).
fn transform(m: &[f32; 16], p: &[f32; 3]) -> [f32; 4] {
    let t = |r: usize| ((m[r] * p[0] + m[4 + r] * p[1]) + m[8 + r] * p[2]) + m[12 + r];
    [t(0), t(1), t(2), t(3)]
}

/// Clips the clip-space segment `a → b` to the view volume plane by plane
/// (`x ≤ w`, `x ≥ −w`, `y ≤ w`, `y ≥ −w`, `z ≥ 0`, `z ≤ w`); an end outside a plane is
/// replaced by the intersection interpolated from the inside end,
/// `in + (out − in) · (d_in / (d_in − d_out))`, which stays accurate when the outside end
/// is very far away. `None` when nothing of it is inside or a coordinate is not finite.
fn clip_segment(a: [f32; 4], b: [f32; 4]) -> Option<([f32; 4], [f32; 4])> {
    if !a.iter().chain(&b).all(|c| c.is_finite()) {
        return None;
    }
    let dist = |plane: usize, p: &[f32; 4]| match plane {
        0 => p[3] - p[0],
        1 => p[3] + p[0],
        2 => p[3] - p[1],
        3 => p[3] + p[1],
        4 => p[2],
        _ => p[3] - p[2],
    };
    let towards = |inside: &[f32; 4], outside: &[f32; 4], t: f32| {
        let mut out = [0.0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            *o = inside[k] + (outside[k] - inside[k]) * t;
        }
        out
    };
    let (mut a, mut b) = (a, b);
    for plane in 0..6 {
        let (da, db) = (dist(plane, &a), dist(plane, &b));
        // A NaN distance (an overflow in an earlier step) counts as outside.
        match (da >= 0.0, db >= 0.0) {
            (true, true) => {}
            (false, false) => return None,
            (true, false) => b = towards(&a, &b, da / (da - db)),
            (false, true) => a = towards(&b, &a, db / (db - da)),
        }
    }
    Some((a, b))
}

/// Viewport transform (rule 6); `None` for `w <= 0` or a non-finite result.
fn project(p: [f32; 4], width: f32, height: f32) -> Option<[f32; 3]> {
    let w = p[3];
    if w.is_nan() || w <= 0.0 {
        return None;
    }
    let (x, y, z) = (p[0] / w, p[1] / w, p[2] / w);
    let sx = (x * 0.5 + 0.5) * width;
    let sy = (0.5 - y * 0.5) * height;
    if !(sx.is_finite() && sy.is_finite() && z.is_finite()) {
        return None;
    }
    Some([sx, sy, z.clamp(0.0, 1.0)])
}
