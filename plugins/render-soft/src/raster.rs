//! The rasterizer: [`SoftRasterizer`] turns a [`RenderFrame`] into RGBA8 pixels following
//! the pixel rules of the crate documentation (clip, cull, top-left fill, Gouraud light,
//! perspective-correct UV, two fixed-function texture stages, alpha test, depth, blend).

use abi_stable::std_types::{RArc, RVec};
use iron3d_abi::{
    BlendMode, CullMode, DrawItem, ImageRgba8, Lighting, NO_TEXTURE, Overlay, RenderFrame,
    RenderResources, RenderStats, TextureLevel, TextureOp,
};

/// Largest accepted target width or height; a larger target draws nothing (the size
/// becomes 0×0 and every item counts as skipped).
pub const MAX_TARGET_DIM: u32 = 16384;

/// Sub-pixel precision of the snapped screen positions: `1 / 2^SUBPIXEL_BITS` pixel.
pub const SUBPIXEL_BITS: u32 = 8;

/// Guard band in NDC units: polygons reaching beyond `|x| > GUARD_BAND·w` or
/// `|y| > GUARD_BAND·w` are additionally clipped to these planes (it keeps the fixed-point
/// edge functions inside `i64`; pixels inside the target are unaffected).
pub const GUARD_BAND: f32 = 32.0;

const SUB: i64 = 1 << SUBPIXEL_BITS;
const HALF: i64 = SUB / 2;
/// Largest magnitude of a snapped coordinate (sub-pixel units) the edge math accepts.
const MAX_FIXED: f32 = (1u64 << 28) as f32;
/// Vertex capacity of the clipper (3 + one per plane, with slack).
const CLIP_CAP: usize = 16;

/// `i / 255` for every byte, the exact f32 division.
pub(crate) const UNORM8: [f32; 256] = {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 / 255.0;
        i += 1;
    }
    t
};

/// Counters of the last [`SoftRasterizer::draw`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawCounters {
    /// Items that were drawn (possibly with some triangles skipped).
    pub items_drawn: u32,
    /// Items skipped whole: mesh index out of range, or a used texture out of range or
    /// malformed (no level 0, zero size, short pixel data), or the target too large.
    pub skipped_items: u32,
    /// Triangles skipped: indices past the end of the index buffer, or a vertex past the
    /// end of the position, normal or UV array.
    pub skipped_triangles: u32,
    /// Triangles read from valid indices and transformed.
    pub triangles: u32,
    /// Triangles rejected by the view volume: trivially outside, clipped away, a vertex
    /// with `w <= 0` or a non-finite coordinate after clipping.
    pub rejected: u32,
    /// Screen triangles removed by back-face culling.
    pub culled: u32,
    /// Screen triangles with zero area after snapping (never drawn).
    pub degenerate: u32,
    /// Screen triangles handed to the scan loop (a clipped polygon gives several).
    pub rasterized: u32,
    /// Fragments written to the colour buffer.
    pub fragments: u64,
}

impl DrawCounters {
    /// Skipped items plus skipped triangles (the "bad data" count).
    pub fn skipped(&self) -> u32 {
        self.skipped_items.saturating_add(self.skipped_triangles)
    }
}

/// A clip-space vertex with its attributes: `x y z w | u v | r g b`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Vert {
    pub(crate) c: [f32; 9],
}

impl Vert {
    fn lerp(a: &Vert, b: &Vert, t: f32) -> Vert {
        let mut c = [0.0; 9];
        for (k, out) in c.iter_mut().enumerate() {
            *out = a.c[k] + (b.c[k] - a.c[k]) * t;
        }
        Vert { c }
    }
}

/// A projected vertex: snapped position, depth, `1/w`, attributes divided by `w`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ScreenVert {
    x: i64,
    y: i64,
    z: f32,
    iw: f32,
    a: [f32; 5],
}

/// Nearest-texel access to level 0 of one texture with its stage's UV scale.
#[derive(Clone, Copy)]
pub(crate) struct Sampler<'a> {
    rgba: &'a [u8],
    width: u32,
    height: u32,
    scale: [f32; 2],
}

/// `floor(x)` bit for bit for every `f32` (NaN and infinities included, `−0` gives
/// `+0`, which [`wrap`] cannot tell apart), without a call to `floorf`: below 2²³ in
/// magnitude through a truncating `i32` cast, above it `x` itself (every such float is
/// whole).
fn floor_fast(x: f32) -> f32 {
    if x.abs() < 8_388_608.0 {
        let i = x as i32 as f32;
        if i > x { i - 1.0 } else { i }
    } else {
        x
    }
}

/// Rule 10's texel index of `coord` over `size` texels: `min(floor((c − floor(c)) ·
/// size), size − 1)` ([`wrap_reference`] is the formula; a test compares the two).
fn wrap(coord: f32, size: u32) -> usize {
    let f = coord - floor_fast(coord);
    // `f` is in [0, 1] or NaN: the truncating cast is the floor, NaN saturates to 0;
    // fract rounding up to 1.0 is clamped.
    ((f * size as f32) as usize).min(size as usize - 1)
}

/// Rule 10's texel index as written, for the test of [`wrap`].
#[cfg(test)]
pub(crate) fn wrap_reference(coord: f32, size: u32) -> usize {
    let f = coord - coord.floor();
    ((f * size as f32).floor() as usize).min(size as usize - 1)
}

/// [`wrap`] for the tests.
#[cfg(test)]
pub(crate) fn wrap_for_test(coord: f32, size: u32) -> usize {
    wrap(coord, size)
}

impl<'a> Sampler<'a> {
    /// Level 0 of `tex` at UV scale 1; `None` when it has no level or its texels do
    /// not fill it.
    pub(crate) fn level0(tex: &'a iron3d_abi::TextureResource) -> Option<Sampler<'a>> {
        let level = tex.levels.first()?;
        let need = (level.width as usize)
            .checked_mul(level.height as usize)?
            .checked_mul(4)?;
        if level.width == 0 || level.height == 0 || level.rgba.len() < need {
            return None;
        }
        Some(Sampler {
            rgba: &level.rgba,
            width: level.width,
            height: level.height,
            scale: [1.0, 1.0],
        })
    }

    /// (2.11) The texel of an effect sprite at sprite coordinates `sprite`
    /// ([`iron3d_abi::effects::sprite_texel`]), as `[0, 1]` RGBA.
    pub(crate) fn sprite(&self, sprite: [f32; 2]) -> [f32; 4] {
        let (x, y) = iron3d_abi::effects::sprite_texel(sprite, self.width, self.height);
        self.texel(x as usize, y as usize)
    }

    fn fetch(&self, uv: [f32; 2]) -> [f32; 4] {
        let tx = wrap(uv[0] * self.scale[0], self.width);
        let ty = wrap(uv[1] * self.scale[1], self.height);
        self.texel(tx, ty)
    }

    fn texel(&self, tx: usize, ty: usize) -> [f32; 4] {
        let o = (ty * self.width as usize + tx) * 4;
        let p = &self.rgba[o..o + 4];
        [
            UNORM8[usize::from(p[0])],
            UNORM8[usize::from(p[1])],
            UNORM8[usize::from(p[2])],
            UNORM8[usize::from(p[3])],
        ]
    }
}

/// A resolved texture stage.
#[derive(Clone, Copy)]
pub(crate) enum Stage<'a> {
    Off,
    Select(Sampler<'a>),
    Modulate(Sampler<'a>),
    /// (2.11) An effect's soft sprite (stage 0 only): colour = the interpolated light
    /// attributes (the primitive's colour), alpha = opacity · `max(0, 1 − (u² + v²))`.
    Sprite(f32),
    /// (2.11) An effect's textured sprite (stage 0 only): colour = the primitive's
    /// colour × the texel ([`Sampler::sprite`]), alpha = opacity × the texel's alpha.
    SpriteTexture(f32, Sampler<'a>),
}

/// Resolves a stage; `Err` when it needs a texture that is missing or malformed.
fn resolve_stage<'a>(
    resources: &'a RenderResources,
    stage: &iron3d_abi::TextureStage,
) -> Result<Stage<'a>, ()> {
    if stage.op == TextureOp::Disable || stage.texture == NO_TEXTURE {
        return Ok(Stage::Off);
    }
    let tex = resources.textures.get(stage.texture as usize).ok_or(())?;
    let level = tex.levels.first().ok_or(())?;
    let need = (level.width as usize)
        .checked_mul(level.height as usize)
        .and_then(|n| n.checked_mul(4))
        .ok_or(())?;
    if level.width == 0 || level.height == 0 || level.rgba.len() < need {
        return Err(());
    }
    let sampler = Sampler {
        rgba: &level.rgba,
        width: level.width,
        height: level.height,
        scale: stage.uv_scale,
    };
    Ok(match stage.op {
        TextureOp::SelectTexture => Stage::Select(sampler),
        _ => Stage::Modulate(sampler),
    })
}

/// Per-item fixed-function state, resolved once.
#[derive(Clone, Copy)]
pub(crate) struct ItemState<'a> {
    pub(crate) s0: Stage<'a>,
    pub(crate) s1: Stage<'a>,
    pub(crate) blend: BlendMode,
    pub(crate) cull: CullMode,
    pub(crate) depth_test: bool,
    pub(crate) depth_write: bool,
    pub(crate) alpha_ref: Option<u8>,
}

/// `clamp(round(c · 255), 0, 255)`, rounding half away from zero, NaN → 0 (rule 13),
/// without a call to `roundf`: for `0 < x < 255` it is `trunc(x)` plus one when the
/// fraction `x − trunc(x)` (exact in `f32`) is at least one half, which is the same
/// number ([`to_u8_reference`] is the formula; a test compares the two).
pub(crate) fn to_u8(c: f32) -> u8 {
    let x = c * 255.0;
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= 255.0 {
        return 255;
    }
    let i = x as u32;
    (i + u32::from(x - i as f32 >= 0.5)) as u8
}

/// Rule 13's rounding as written, for the test of [`to_u8`].
#[cfg(test)]
pub(crate) fn to_u8_reference(c: f32) -> u8 {
    // NaN clamps to NaN and casts to 0.
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Edge function of the directed edge `p → q` at point `(x, y)` (sub-pixel units).
fn edge(p: &ScreenVert, q: &ScreenVert, x: i64, y: i64) -> i64 {
    (q.x - p.x) * (y - p.y) - (q.y - p.y) * (x - p.x)
}

/// Sutherland–Hodgman against `dist(v) >= 0`; new vertices go through `on_plane`.
fn clip_polygon(
    input: &[Vert],
    out: &mut [Vert; CLIP_CAP],
    dist: impl Fn(&Vert) -> f32,
    on_plane: impl Fn(&mut Vert),
) -> usize {
    let mut n = 0;
    let mut push = |v: Vert| {
        if n < CLIP_CAP {
            out[n] = v;
            n += 1;
        }
    };
    for i in 0..input.len() {
        let a = &input[i];
        let b = &input[(i + 1) % input.len()];
        let (da, db) = (dist(a), dist(b));
        let (ina, inb) = (da >= 0.0, db >= 0.0);
        if ina {
            push(*a);
        }
        if ina != inb {
            // Always interpolate from the inside vertex, so a shared edge clips identically.
            let mut p = if ina {
                Vert::lerp(a, b, da / (da - db))
            } else {
                Vert::lerp(b, a, db / (db - da))
            };
            on_plane(&mut p);
            push(p);
        }
    }
    n
}

/// The CPU reference rasterizer. Keeps its colour and depth buffers between frames and
/// only reallocates when the target grows.
#[derive(Debug, Default)]
pub struct SoftRasterizer {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) color: Vec<u8>,
    pub(crate) depth: Vec<f32>,
    pub(crate) counters: DrawCounters,
    /// (2.11) Counters of the last [`SoftRasterizer::draw_effects`].
    pub(crate) effect_counters: crate::EffectCounters,
    drawn: bool,
    /// Threads the scan loop uses (0: the machine's, [`SoftRasterizer::threads`]).
    threads: usize,
}

/// Screen triangles queued before the scan loop fills them (**PD-SOFT-BANDS**): the draw
/// path sets up this many, then fills them band by band on several threads.
const QUEUE: usize = 8192;

/// The most threads the scan loop uses.
pub const MAX_THREADS: usize = 8;

/// Below this many covered pixels (the queued triangles' bounding boxes together) the
/// scan loop runs on the calling thread: a thread costs more than it saves.
const PARALLEL_PIXELS: u64 = 32_768;

/// A screen triangle set up for the scan loop: the vertices (wound clockwise on the
/// y-down screen), the pixel bounds, the fixed-point edge functions at the first pixel
/// centre with their steps and top-left biases, and the item's state.
#[derive(Clone, Copy)]
pub(crate) struct Tri<'a> {
    v: [ScreenVert; 3],
    x0: i64,
    x1: i64,
    y0: i64,
    y1: i64,
    row: [i64; 3],
    step_x: [i64; 3],
    step_y: [i64; 3],
    bias: [i64; 3],
    inv_area: f32,
    st: ItemState<'a>,
}

impl SoftRasterizer {
    /// An empty rasterizer (0×0, nothing drawn).
    pub fn new() -> Self {
        Self::default()
    }

    /// The rasterizer with the scan loop on `threads` threads (0: the machine's, at
    /// most [`MAX_THREADS`]). The pixels and the counters never depend on it.
    pub fn with_threads(threads: usize) -> Self {
        Self {
            threads,
            ..Self::default()
        }
    }

    /// The threads the scan loop uses (**PD-SOFT-BANDS**): the number asked for, else
    /// the machine's available parallelism, at most [`MAX_THREADS`].
    pub fn threads(&self) -> usize {
        let n = if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        } else {
            self.threads
        };
        n.clamp(1, MAX_THREADS)
    }

    /// Width of the last drawn target.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height of the last drawn target.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether [`SoftRasterizer::draw`] ran at least once.
    pub fn has_frame(&self) -> bool {
        self.drawn
    }

    /// The colour buffer: `width * height * 4` bytes RGBA8, rows top to bottom.
    pub fn pixels(&self) -> &[u8] {
        &self.color
    }

    /// The depth buffer: `width * height` values in `[0, 1]`, rows top to bottom.
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// Counters of the last draw.
    pub fn counters(&self) -> DrawCounters {
        self.counters
    }

    /// (2.11) Counters of the effects drawn over the last frame
    /// ([`SoftRasterizer::draw_effects`]; all zero when none were).
    pub fn effect_counters(&self) -> crate::EffectCounters {
        self.effect_counters
    }

    /// Items and triangles skipped in the last draw for out-of-range data
    /// ([`DrawCounters::skipped`]).
    pub fn skipped(&self) -> u32 {
        self.counters.skipped()
    }

    /// A copy of the colour buffer as an image.
    pub fn image(&self) -> ImageRgba8 {
        ImageRgba8 {
            width: self.width,
            height: self.height,
            pixels: RVec::from(self.color.clone()),
        }
    }

    /// (2.4) Draws `overlay` over the colour buffer of the last frame with
    /// [`iron3d_abi::overlay::composite`] (the colour buffer is already RGBA8, rows top
    /// to bottom, which is the layout it expects). Returns the number of quads skipped
    /// for a missing or malformed texture. Before the first frame (0×0) nothing is drawn.
    pub fn composite_overlay(&mut self, overlay: &Overlay) -> u32 {
        use iron3d_abi::overlay::composite;
        // `composite` checks a texture's size as `width · height · 4` in `usize`: a size
        // whose byte count overflows is malformed anyway, so it goes in as an empty level
        // (skipped alike) and the check cannot overflow.
        let oversized = |t: &TextureLevel| {
            (t.width as usize)
                .checked_mul(t.height as usize)
                .and_then(|n| n.checked_mul(4))
                .is_none()
        };
        if !overlay.textures.iter().any(oversized) {
            return composite(overlay, self.width, self.height, &mut self.color);
        }
        let textures: RVec<TextureLevel> = overlay
            .textures
            .iter()
            .map(|t| {
                if oversized(t) {
                    TextureLevel {
                        width: 0,
                        height: 0,
                        rgba: RVec::new(),
                    }
                } else {
                    t.clone()
                }
            })
            .collect();
        let safe = Overlay {
            textures: RArc::new(textures),
            ..overlay.clone()
        };
        composite(&safe, self.width, self.height, &mut self.color)
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
        self.counters = DrawCounters::default();
        self.effect_counters = crate::EffectCounters::default();
        self.drawn = true;
        let objects = frame.visible.len() as u32;
        let (w, h) = (frame.target.width, frame.target.height);
        if w > MAX_TARGET_DIM || h > MAX_TARGET_DIM {
            self.resize(0, 0);
            self.counters.skipped_items = frame.items.len() as u32;
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
        let mut queue = Vec::with_capacity(QUEUE.min(4 * frame.items.len() + 16));
        for item in frame.items.iter() {
            self.draw_item(resources, &pv, &frame.lighting, item, &mut queue);
            if queue.len() >= QUEUE {
                self.fill(&queue);
                queue.clear();
            }
        }
        self.fill(&queue);
        RenderStats {
            draw_items: self.counters.items_drawn,
            objects,
        }
    }

    fn draw_item<'a>(
        &mut self,
        resources: &'a RenderResources,
        pv: &glam::Mat4,
        lighting: &Lighting,
        item: &DrawItem,
        queue: &mut Vec<Tri<'a>>,
    ) {
        let Some(mesh) = resources.meshes.get(item.mesh as usize) else {
            self.counters.skipped_items += 1;
            return;
        };
        let (Ok(s0), Ok(s1)) = (
            resolve_stage(resources, &item.state.stages[0]),
            resolve_stage(resources, &item.state.stages[1]),
        ) else {
            self.counters.skipped_items += 1;
            return;
        };
        let st = ItemState {
            s0,
            s1,
            blend: item.state.blend,
            cull: item.state.cull,
            depth_test: item.state.depth.test,
            depth_write: item.state.depth.write,
            alpha_ref: item.state.alpha_test.then_some(item.state.alpha_ref),
        };
        self.counters.items_drawn += 1;
        let world = glam::Mat4::from(item.world);
        let m = (*pv * world).to_cols_array();
        let wm = world.to_cols_array();
        let nm = [
            wm[0], wm[1], wm[2], wm[4], wm[5], wm[6], wm[8], wm[9], wm[10],
        ];
        let sun = [
            lighting.sun_direction.x,
            lighting.sun_direction.y,
            lighting.sun_direction.z,
        ];
        let tri_count = item.index_count / 3;
        for k in 0..tri_count {
            let start = item.index_start as usize + 3 * k as usize;
            let Some(idx) = mesh.indices.get(start..start + 3) else {
                // Every later triangle is past the end too.
                self.counters.skipped_triangles += tri_count - k;
                break;
            };
            let mut v = [Vert::default(); 3];
            let mut ok = true;
            for (j, out) in v.iter_mut().enumerate() {
                let vi = item.base_vertex as usize + usize::from(idx[j]);
                match (
                    mesh.positions.get(vi),
                    mesh.normals.get(vi),
                    mesh.uvs.get(vi),
                ) {
                    (Some(p), Some(n), Some(uv)) => {
                        *out = vertex(&m, &nm, lighting, sun, p, n, uv);
                    }
                    _ => {
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
            self.triangle(&v, &st, queue);
        }
    }

    /// Clips triangle `v` and sets up the screen triangles of what is left into `queue`
    /// (filled later, in order, by [`SoftRasterizer::fill`]).
    pub(crate) fn triangle<'a>(
        &mut self,
        v: &[Vert; 3],
        st: &ItemState<'a>,
        queue: &mut Vec<Tri<'a>>,
    ) {
        // Trivial reject: all three outside one plane of the view volume.
        let all = |f: &dyn Fn(&Vert) -> bool| v.iter().all(f);
        if all(&|p| p.c[0] > p.c[3])
            || all(&|p| p.c[0] < -p.c[3])
            || all(&|p| p.c[1] > p.c[3])
            || all(&|p| p.c[1] < -p.c[3])
            || all(&|p| p.c[2] < 0.0)
            || all(&|p| p.c[2] > p.c[3])
        {
            self.counters.rejected += 1;
            return;
        }
        let mut a = [Vert::default(); CLIP_CAP];
        let mut b = [Vert::default(); CLIP_CAP];
        a[..3].copy_from_slice(v);
        let mut n = 3;
        if v.iter().any(|p| p.c[2].is_nan() || p.c[2] < 0.0) {
            n = clip_polygon(&a[..n], &mut b, |p| p.c[2], |p| p.c[2] = 0.0);
            a = b;
        }
        let g = GUARD_BAND;
        let in_guard = |p: &Vert| p.c[0].abs() <= g * p.c[3] && p.c[1].abs() <= g * p.c[3];
        if !a[..n].iter().all(in_guard) {
            n = clip_polygon(
                &a[..n],
                &mut b,
                |p| g * p.c[3] - p.c[0],
                |p| p.c[0] = g * p.c[3],
            );
            n = clip_polygon(
                &b[..n],
                &mut a,
                |p| g * p.c[3] + p.c[0],
                |p| p.c[0] = -g * p.c[3],
            );
            n = clip_polygon(
                &a[..n],
                &mut b,
                |p| g * p.c[3] - p.c[1],
                |p| p.c[1] = g * p.c[3],
            );
            n = clip_polygon(
                &b[..n],
                &mut a,
                |p| g * p.c[3] + p.c[1],
                |p| p.c[1] = -g * p.c[3],
            );
        }
        if n < 3 {
            self.counters.rejected += 1;
            return;
        }
        let (wf, hf) = (self.width as f32, self.height as f32);
        let mut s = [ScreenVert::default(); CLIP_CAP];
        for (p, out) in a[..n].iter().zip(s.iter_mut()) {
            match project(p, wf, hf) {
                Some(sv) => *out = sv,
                None => {
                    self.counters.rejected += 1;
                    return;
                }
            }
        }
        for i in 1..n - 1 {
            if let Some(t) = self.raster(s[0], s[i], s[i + 1], st) {
                queue.push(t);
            }
        }
    }

    /// Sets up screen triangle `a b c` for the scan loop: `None` (counted) when it has
    /// no area, is a back face culled, or covers no pixel centre of the target.
    pub(crate) fn raster<'a>(
        &mut self,
        a: ScreenVert,
        mut b: ScreenVert,
        mut c: ScreenVert,
        st: &ItemState<'a>,
    ) -> Option<Tri<'a>> {
        let mut area = edge(&a, &b, c.x, c.y);
        // y-down screen: area < 0 is counter-clockwise in NDC (+y up) = front face.
        if area == 0 {
            self.counters.degenerate += 1;
            return None;
        }
        if st.cull == CullMode::Back && area > 0 {
            self.counters.culled += 1;
            return None;
        }
        if area < 0 {
            std::mem::swap(&mut b, &mut c);
            area = -area;
        }
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let min_x = a.x.min(b.x).min(c.x);
        let max_x = a.x.max(b.x).max(c.x);
        let min_y = a.y.min(b.y).min(c.y);
        let max_y = a.y.max(b.y).max(c.y);
        // Pixels whose centre `p·SUB + HALF` lies inside [min, max].
        let x0 = ((min_x - HALF) + SUB - 1).div_euclid(SUB).max(0);
        let x1 = (max_x - HALF).div_euclid(SUB).min(w - 1);
        let y0 = ((min_y - HALF) + SUB - 1).div_euclid(SUB).max(0);
        let y1 = (max_y - HALF).div_euclid(SUB).min(h - 1);
        if x0 > x1 || y0 > y1 {
            return None;
        }
        self.counters.rasterized += 1;
        // Edge i is opposite vertex i; its value is vertex i's barycentric weight × area.
        let edges = [(&b, &c), (&c, &a), (&a, &b)];
        let cx = x0 * SUB + HALF;
        let cy = y0 * SUB + HALF;
        let mut row = [0i64; 3];
        let mut step_x = [0i64; 3];
        let mut step_y = [0i64; 3];
        let mut bias = [0i64; 3];
        for (i, (p, q)) in edges.iter().enumerate() {
            let (dx, dy) = (q.x - p.x, q.y - p.y);
            // Top-left rule (clockwise on the y-down screen): a top edge runs right, a
            // left edge runs up.
            let top_left = dy < 0 || (dy == 0 && dx > 0);
            bias[i] = if top_left { 0 } else { -1 };
            row[i] = edge(p, q, cx, cy) + bias[i];
            step_x[i] = -dy * SUB;
            step_y[i] = dx * SUB;
        }
        Some(Tri {
            v: [a, b, c],
            x0,
            x1,
            y0,
            y1,
            row,
            step_x,
            step_y,
            bias,
            inv_area: 1.0 / area as f32,
            st: *st,
        })
    }

    /// Fills `tris` in order (**PD-SOFT-BANDS**): the target is cut into one band of
    /// rows per thread and every band scans every triangle's rows inside it, so each
    /// pixel sees the triangles in the same order as one thread would — the pixels and
    /// the counters do not depend on the number of threads.
    pub(crate) fn fill(&mut self, tris: &[Tri<'_>]) {
        if tris.is_empty() || self.width == 0 || self.height == 0 {
            return;
        }
        let (width, rows) = (self.width as usize, self.height as usize);
        let covered: u64 = tris
            .iter()
            .map(|t| ((t.x1 - t.x0 + 1) * (t.y1 - t.y0 + 1)) as u64)
            .sum();
        let threads = if covered < PARALLEL_PIXELS {
            1
        } else {
            self.threads().min(rows)
        };
        if threads <= 1 {
            self.counters.fragments += fill_band(&mut self.color, &mut self.depth, width, 0, tris);
            return;
        }
        let band = rows.div_ceil(threads);
        let fragments = std::thread::scope(|scope| {
            let mut bands = self
                .color
                .chunks_mut(band * width * 4)
                .zip(self.depth.chunks_mut(band * width))
                .enumerate();
            let first = bands.next();
            let workers: Vec<_> = bands
                .map(|(k, (color, depth))| {
                    scope.spawn(move || fill_band(color, depth, width, k * band, tris))
                })
                .collect();
            let mut n = first.map_or(0, |(_, (color, depth))| {
                fill_band(color, depth, width, 0, tris)
            });
            for w in workers {
                // A band's scan has no panicking path; were one to panic, its
                // fragments are not counted and the others still are.
                n += w.join().unwrap_or(0);
            }
            n
        });
        self.counters.fragments += fragments;
    }
}

/// Scans `tris` over the band of rows `y_start ..` held by `color` / `depth` (whole rows
/// of `width` pixels): for each triangle, in order, the pixels of each of its rows in
/// the band whose centre all three edge functions take (their span is found from the
/// edge values exactly, so no pixel of the bounding box is tested one by one). Answers
/// the fragments written.
fn fill_band(
    color: &mut [u8],
    depth: &mut [f32],
    width: usize,
    y_start: usize,
    tris: &[Tri<'_>],
) -> u64 {
    let rows = depth.len() / width.max(1);
    if rows == 0 {
        return 0;
    }
    let (band_y0, band_y1) = (y_start as i64, (y_start + rows - 1) as i64);
    let mut fragments = 0;
    for t in tris {
        let ya = t.y0.max(band_y0);
        let yb = t.y1.min(band_y1);
        if ya > yb {
            continue;
        }
        let skip = ya - t.y0;
        let mut row = [
            t.row[0] + t.step_y[0] * skip,
            t.row[1] + t.step_y[1] * skip,
            t.row[2] + t.step_y[2] * skip,
        ];
        let last = t.x1 - t.x0;
        for py in ya..=yb {
            if let Some((lo, hi)) = span(&row, &t.step_x, last) {
                let line = (py - band_y0) as usize * width;
                let mut e = [
                    row[0] + t.step_x[0] * lo,
                    row[1] + t.step_x[1] * lo,
                    row[2] + t.step_x[2] * lo,
                ];
                for k in lo..=hi {
                    let l0 = (e[0] - t.bias[0]) as f32 * t.inv_area;
                    let l1 = (e[1] - t.bias[1]) as f32 * t.inv_area;
                    let l2 = (e[2] - t.bias[2]) as f32 * t.inv_area;
                    let idx = line + (t.x0 + k) as usize;
                    if fragment(color, depth, idx, [l0, l1, l2], &t.v, &t.st) {
                        fragments += 1;
                    }
                    e[0] += t.step_x[0];
                    e[1] += t.step_x[1];
                    e[2] += t.step_x[2];
                }
            }
            row[0] += t.step_y[0];
            row[1] += t.step_y[1];
            row[2] += t.step_y[2];
        }
    }
    fragments
}

/// The pixels `x0 + lo ..= x0 + hi` of a row (`lo`, `hi` within `0 ..= last`) where
/// every edge function `e[i] + step[i]·k` is at least 0; `None` when there is none.
/// Exact integer arithmetic: the same pixels as testing each one.
fn span(e: &[i64; 3], step: &[i64; 3], last: i64) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (0i64, last);
    for i in 0..3 {
        let (v, s) = (e[i], step[i]);
        if s == 0 {
            if v < 0 {
                return None;
            }
        } else if s > 0 {
            if v < 0 {
                lo = lo.max((-v + s - 1) / s);
            }
        } else {
            if v < 0 {
                return None;
            }
            hi = hi.min(v / -s);
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// Shades one pixel `idx` of `color` / `depth` at barycentric weights `l` of `v`:
/// depth test, the two stages, alpha test, depth write, blend. Answers whether the
/// pixel was written.
fn fragment(
    color: &mut [u8],
    depth: &mut [f32],
    idx: usize,
    l: [f32; 3],
    v: &[ScreenVert; 3],
    st: &ItemState<'_>,
) -> bool {
    let z = l[0] * v[0].z + l[1] * v[1].z + l[2] * v[2].z;
    if !(0.0..=1.0).contains(&z) {
        return false;
    }
    if st.depth_test && z > depth[idx] {
        return false;
    }
    let iw = l[0] * v[0].iw + l[1] * v[1].iw + l[2] * v[2].iw;
    let attr = |k: usize| (l[0] * v[0].a[k] + l[1] * v[1].a[k] + l[2] * v[2].a[k]) / iw;
    let uv = [attr(0), attr(1)];
    let light = [attr(2), attr(3), attr(4)];
    let mut col = match st.s0 {
        Stage::Off => [light[0], light[1], light[2], 1.0],
        Stage::Select(s) => s.fetch(uv),
        Stage::Modulate(s) => {
            let t = s.fetch(uv);
            [t[0] * light[0], t[1] * light[1], t[2] * light[2], t[3]]
        }
        Stage::Sprite(opacity) => {
            let a = opacity * (1.0 - (uv[0] * uv[0] + uv[1] * uv[1])).max(0.0);
            // Nothing to add or mix (NaN included): leave the pixel alone.
            if a.is_nan() || a <= 0.0 {
                return false;
            }
            [light[0], light[1], light[2], a]
        }
        Stage::SpriteTexture(opacity, s) => {
            let t = s.sprite(uv);
            let a = opacity * t[3];
            if a.is_nan() || a <= 0.0 {
                return false;
            }
            [light[0] * t[0], light[1] * t[1], light[2] * t[2], a]
        }
    };
    // An alpha-blended fragment of opacity 0 that writes no depth leaves the pixel as
    // it is (rule 13: `src·0 + dst·1`, alpha `0 + dst_a`; stage 1 never changes alpha):
    // the rest is skipped. NaN goes on (it stores 0).
    if st.blend == BlendMode::AlphaBlend && !st.depth_write && col[3] <= 0.0 {
        return false;
    }
    match st.s1 {
        Stage::Off | Stage::Sprite(_) | Stage::SpriteTexture(..) => {}
        Stage::Select(s) => {
            let t = s.fetch(uv);
            col[..3].copy_from_slice(&t[..3]);
        }
        Stage::Modulate(s) => {
            let t = s.fetch(uv);
            col[0] *= t[0];
            col[1] *= t[1];
            col[2] *= t[2];
        }
    }
    if st
        .alpha_ref
        .is_some_and(|reference| to_u8(col[3]) < reference)
    {
        return false;
    }
    if st.depth_write {
        depth[idx] = z;
    }
    let px = &mut color[idx * 4..idx * 4 + 4];
    let out = match st.blend {
        BlendMode::Opaque => [to_u8(col[0]), to_u8(col[1]), to_u8(col[2]), to_u8(col[3])],
        BlendMode::AlphaBlend => {
            let a = col[3];
            let d = |k: usize| UNORM8[usize::from(px[k])];
            [
                to_u8(col[0] * a + d(0) * (1.0 - a)),
                to_u8(col[1] * a + d(1) * (1.0 - a)),
                to_u8(col[2] * a + d(2) * (1.0 - a)),
                to_u8(a + d(3) * (1.0 - a)),
            ]
        }
        BlendMode::Additive => {
            let a = col[3];
            let d = |k: usize| UNORM8[usize::from(px[k])];
            [
                to_u8((d(0) + col[0] * a).min(1.0)),
                to_u8((d(1) + col[1] * a).min(1.0)),
                to_u8((d(2) + col[2] * a).min(1.0)),
                px[3],
            ]
        }
    };
    px.copy_from_slice(&out);
    true
}

/// Clip position and Gouraud light of one vertex.
fn vertex(
    m: &[f32; 16],
    nm: &[f32; 9],
    lighting: &Lighting,
    sun: [f32; 3],
    p: &[f32; 3],
    n: &[f32; 3],
    uv: &[f32; 2],
) -> Vert {
    let t = |r: usize| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    let wn = [
        nm[0] * n[0] + nm[3] * n[1] + nm[6] * n[2],
        nm[1] * n[0] + nm[4] * n[1] + nm[7] * n[2],
        nm[2] * n[0] + nm[5] * n[1] + nm[8] * n[2],
    ];
    let len = (wn[0] * wn[0] + wn[1] * wn[1] + wn[2] * wn[2]).sqrt();
    let diffuse = if len > 0.0 && len.is_finite() {
        let d = (wn[0] / len) * sun[0] + (wn[1] / len) * sun[1] + (wn[2] / len) * sun[2];
        d.max(0.0)
    } else {
        0.0
    };
    let light = |k: usize| (lighting.ambient[k] + lighting.sun_colour[k] * diffuse).clamp(0.0, 1.0);
    Vert {
        c: [
            t(0),
            t(1),
            t(2),
            t(3),
            uv[0],
            uv[1],
            light(0),
            light(1),
            light(2),
        ],
    }
}

/// Viewport transform and snapping; `None` for `w <= 0`, non-finite or out-of-range values.
pub(crate) fn project(p: &Vert, width: f32, height: f32) -> Option<ScreenVert> {
    let w = p.c[3];
    if w.is_nan() || w <= 0.0 {
        return None;
    }
    let (x, y, z) = (p.c[0] / w, p.c[1] / w, p.c[2] / w);
    let sx = ((x * 0.5 + 0.5) * width * SUB as f32).round();
    let sy = ((0.5 - y * 0.5) * height * SUB as f32).round();
    if !(sx.abs() <= MAX_FIXED && sy.abs() <= MAX_FIXED && z.is_finite()) {
        return None;
    }
    let iw = 1.0 / w;
    let mut a = [0.0; 5];
    for (k, out) in a.iter_mut().enumerate() {
        *out = p.c[4 + k] * iw;
        if !out.is_finite() {
            return None;
        }
    }
    Some(ScreenVert {
        x: sx as i64,
        y: sy as i64,
        z,
        iw,
        a,
    })
}
