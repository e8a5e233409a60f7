//! `render-soft`: a deterministic CPU reference rasterizer — the pixel reference for
//! golden tests and the render fallback where there is no GPU.
//!
//! The pure API is [`SoftRasterizer`] (`new`, `draw`, `draw_effects`, `composite_overlay`,
//! `image`, `pixels`, `counters`); the plugin factory `render-soft` (slot Render) wraps it. A frame with a window is
//! still rendered offscreen: the launcher presents the captured pixels itself. With the
//! cargo feature `fixtures` the module `fixtures` holds the reference scenes and builders
//! for renderer tests, shared with other backends' pixel comparisons.
//!
//! It draws the interface 2.4 screen overlay ([`iron3d_abi::overlay`]): `draw_with_overlay`
//! draws the frame by the rules below, then the overlay's quads over the finished colour
//! buffer with [`iron3d_abi::overlay::composite`], the reference implementation of the
//! overlay rules, so `capture` returns the composited image (quads with a missing or
//! malformed texture are skipped and logged at debug level).
//!
//! It draws the interface 2.11 effect primitives ([`iron3d_abi::effects`]): see "Effects"
//! below.
//!
//! # Pixel rules (the contract other backends reproduce within tolerance)
//!
//! All arithmetic is plain `f32` (no fused multiply-add), evaluated in the order written
//! here, so the output is bit-reproducible for a given build target.
//!
//! 1. **Clear**: colour = `target.clear` (RGBA8), depth = 1.0. Targets wider or taller
//!    than [`MAX_TARGET_DIM`] draw nothing (0×0 image, every item counted as skipped).
//! 2. **Order**: items strictly in `frame.items` order, never re-sorted. Triangle `k` of
//!    an item is `indices[index_start + 3k .. +3]` for `k < index_count / 3`; vertex =
//!    `base_vertex + index`. An out-of-range mesh or used texture skips the item; an index
//!    past the index buffer or a vertex past the position/normal/UV arrays skips the
//!    triangle. Both are counted ([`DrawCounters::skipped_items`],
//!    [`DrawCounters::skipped_triangles`]), never a panic.
//! 3. **Transform**: `M = (P · V) · W` (glam `Mat4` products, column-major), then
//!    `clip.r = ((M[0][r]·x + M[1][r]·y) + M[2][r]·z) + M[3][r]`. Clip space is
//!    Direct3D's: visible for `−w ≤ x, y ≤ w`, `0 ≤ z ≤ w`, +y up.
//! 4. **Light** per vertex (Gouraud): `n_w = mat3(W) · n`; if `|n_w| > 0` (and finite)
//!    `d = max(0, (n_w.x/|n_w|)·s.x + (n_w.y/|n_w|)·s.y + (n_w.z/|n_w|)·s.z)` with
//!    `s = sun_direction`, else `d = 0` (a zero normal gets ambient only);
//!    `light_c = clamp(ambient_c + sun_colour_c · d, 0, 1)`.
//! 5. **Clipping**: a triangle whose three vertices are all outside one of the six
//!    view-volume planes is rejected at once. Otherwise the polygon is clipped
//!    (Sutherland–Hodgman, attributes interpolated linearly in clip space from the inside
//!    vertex, `t = d_in / (d_in − d_out)`) against `z ≥ 0` (new vertices get `z = 0`
//!    exactly). x/y are left to the guard band: only a polygon reaching beyond
//!    `|x| or |y| > GUARD_BAND · w` ([`GUARD_BAND`] = 32) is also clipped to those planes.
//!    A polygon with a vertex of `w ≤ 0` or a non-finite value after clipping is
//!    dropped. The polygon is drawn as the fan `(p0, pi, pi+1)`.
//! 6. **Viewport**: `sx = (x/w · 0.5 + 0.5) · W`, `sy = (0.5 − y/w · 0.5) · H`,
//!    `depth = z/w`, then positions are snapped to 1/256 pixel
//!    (`round(s · 256)`, half away from zero; [`SUBPIXEL_BITS`] = 8).
//! 7. **Culling**: with [`CullMode::Back`](iron3d_abi::CullMode::Back) triangles that are
//!    clockwise in NDC (+y up) are removed; counter-clockwise is the front. Zero-area
//!    triangles are never drawn.
//! 8. **Coverage**: pixel centres `(px + 0.5, py + 0.5)`; exact integer edge functions on
//!    the snapped positions with the top-left fill rule (a pixel centre exactly on an
//!    edge belongs to the triangle only if that edge is a top edge — horizontal, interior
//!    below — or a left edge), so triangles sharing an edge cover each pixel exactly once.
//!    The bounding box is clamped to the target.
//! 9. **Interpolation**: barycentrics `λi = e_i / area` (integer edge values converted
//!    to f32). Depth is linear in screen space: `z = λ0·z0 + λ1·z1 + λ2·z2`; fragments
//!    with depth outside `[0, 1]` are discarded. UV and light are perspective-correct:
//!    `attr = (Σ λi · attr_i/w_i) / (Σ λi / w_i)`.
//! 10. **Texture stages**: stage 0 `Disable` → `(light.rgb, 1)`; `SelectTexture` → texel;
//!     `Modulate` → `(texel.rgb · light, texel.a)`. Stage 1 `Modulate` → `rgb *=
//!     texel.rgb`; `SelectTexture` → `rgb = texel.rgb`; `Disable` → unchanged. A stage
//!     with [`NO_TEXTURE`](iron3d_abi::NO_TEXTURE) is `Disable`. Texel fetch: level 0,
//!     `u = uv.x · uv_scale[0]`, `tx = min(floor((u − floor(u)) · width), width − 1)`,
//!     same for `v` (row 0 at the top), nearest, RGBA8 / 255.
//! 11. **Alpha test** (if on): `round(a · 255) ≥ alpha_ref` passes, else discard (no
//!     depth or colour write).
//! 12. **Depth**: with `depth.test` the fragment passes when `depth ≤ stored` (tested
//!     before shading; the alpha test can still discard it); with `depth.write` a passing
//!     fragment stores its depth.
//! 13. **Blend** (dst read back as byte / 255): `Opaque` → `src` (alpha = src alpha);
//!     `AlphaBlend` → `rgb = src·a + dst·(1 − a)`, `alpha = a + dst_a·(1 − a)`;
//!     `Additive` → `rgb = min(1, dst + src·a)`, alpha unchanged. Stored as
//!     `clamp(round(c · 255), 0, 255)` (half away from zero; NaN → 0; computed without
//!     `roundf`, bit for bit the same number).
//!
//! # Effects (2.11)
//!
//! The plugin keeps the [`EffectFrame`] of
//! [`Renderer::effects`] (a later call replaces it) and consumes it in the next `draw` /
//! `draw_with_overlay`, so a frame's effects are drawn once and never again (the frame
//! numbers are not compared). [`SoftRasterizer::draw_effects`] draws them after the
//! world's items (opaque and transparent) and before the screen overlay:
//!
//! * **Order**: the primitives strictly in list order, never re-sorted (the order is the
//!   effects plugin's contract).
//! * **Quads** (built in view space, `camera.view`, so they face the camera; then
//!   `camera.projection`): a `PARTICLE` is a `size`×`size` square and a `BILLBOARD` a
//!   `size`-wide, `height`-tall rectangle centred at `position`, rotated by `rotation`
//!   radians counter-clockwise on the screen; a `STREAK` or `BEAM` is a band `size` wide
//!   from `position` to `end`, its width along `(end − position) × midpoint` in view space
//!   (across the line and the line of sight). A `POINT_LIGHT` is drawn (our choice: this
//!   renderer has no dynamic lighting) as a faint glow: an additive square of half-side
//!   `size ·` [`GLOW_RADIUS`] (0.25) at `position` with opacity `colour[3] ·`
//!   [`GLOW_OPACITY`] (0.25).
//! * **Sprite** (texture [`NO_EFFECT_TEXTURE`](iron3d_abi::NO_EFFECT_TEXTURE), every
//!   light, streak and beam, and a particle or billboard whose texture is not in the
//!   frame's resources): sprite coordinates `(u, v)` run from −1 to 1 across the quad (a
//!   streak's `u` is 0 along its length), interpolated perspective-correct like a UV;
//!   `alpha = colour[3] · max(0, 1 − (u² + v²))` (a soft round spot, 0 at the edge; a
//!   streak's falls off across its width). Colour = `colour[0..3]`; colours and opacity
//!   are clamped to `[0, 1]`.
//! * **Textured sprite** (PD-RENDER-EFFECT-TEXTURES; a particle or billboard whose
//!   [`EffectFrame::textures`] name is a texture of the frame's resources, matched
//!   ASCII-case-insensitively): the texel of [`iron3d_abi::effects::sprite_texel`] at
//!   `(u, v)` (nearest, base level, `+v` the top row); colour = `colour[0..3]` × texel,
//!   alpha = `colour[3]` × texel alpha. [`SoftRasterizer::draw_textured_effects`] draws
//!   them; [`SoftRasterizer::draw_effects`] draws every primitive soft.
//! * **Blend** (rule 13): `ADDITIVE` = `min(1, dst + src·a)`, alpha kept; `ALPHA` =
//!   `src·a + dst·(1 − a)`, alpha `a + dst_a·(1 − a)`. A fragment with `a ≤ 0` writes
//!   nothing.
//! * **Depth**: tested (`depth ≤ stored`, rule 12) against the world's depth buffer,
//!   never written, so effects hide behind the world but not behind each other.
//! * **Rasterisation**: a quad entirely outside one plane of the view volume (a
//!   billboard behind the camera) draws nothing, nor does one with a corner that is not
//!   finite (a finite but huge size can give one). A quad whose four corners share one
//!   clip `w > 0` and one clip `z` inside the guard band (every particle, billboard and
//!   glow under a perspective projection, and a streak across the line of sight) is a
//!   parallelogram on the screen and is scanned directly: pixel centres `P` of its
//!   bounding box with edge coordinates `0 ≤ s < 1`, `0 ≤ t < 1` (from corner 0 towards
//!   corners 1 and 3, the inverse of the affine map of the projected, unsnapped
//!   corners), sprite coordinates `uv0 + s·(uv1 − uv0) + t·(uv3 − uv0)`, depth `z/w`.
//!   Any other quad (a streak or beam along the line of sight, or reaching behind the
//!   near plane) is two triangles (corners 0-1-2, 0-2-3) drawn by rules 5–12: clipped
//!   properly against the near plane (`z ≥ 0`) and the guard band, so a streak
//!   reaching behind the camera draws its visible part.
//! * **Skipped** (counted nowhere, never an error): an unknown kind or blend; a
//!   non-finite position, end, size, height, rotation or colour component; a size (or a
//!   billboard's height) that is not positive; a streak or beam of zero length or seen
//!   exactly end-on.

mod effects;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod raster;
#[cfg(test)]
mod tests;

pub use effects::{EffectCounters, GLOW_OPACITY, GLOW_RADIUS};
pub use raster::{
    DrawCounters, GUARD_BAND, MAX_TARGET_DIM, MAX_THREADS, SUBPIXEL_BITS, SoftRasterizer,
};

use abi_stable::std_types::RString;
use iron3d_abi::{
    EffectFrame, EffectPrimitive, FactoryDescription, ImageRgba8, Overlay, Plugin,
    PluginDescription, PluginError, RenderFrame, RenderStats, Renderer, RendererPlugin, SlotKind,
};

/// Factory name of the software renderer.
pub const FACTORY: &str = "render-soft";

/// Format name of the (empty) state blob.
pub const STATE_FORMAT: &str = "render-soft";

/// Version of the state blob (see [`RendererPlugin`]).
pub const STATE_VERSION: u32 = 1;

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-render-soft",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Render)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory("iron3d-render-soft", factory));
    }
    Ok(Box::new(RendererPlugin::new(
        SoftRender::new(),
        STATE_FORMAT,
    )))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The `render-soft` plugin instance: a [`SoftRasterizer`] behind the render slot; it
/// draws the 2.11 effects and the 2.4 screen overlay over the frame.
pub struct SoftRender {
    raster: SoftRasterizer,
    /// (2.11) The primitives of the last [`Renderer::effects`] (the buffer is reused).
    effects: Vec<EffectPrimitive>,
    /// (2.11) The texture names of the last [`Renderer::effects`].
    effect_textures: Vec<RString>,
    /// Whether `effects` waits for the next draw.
    effects_pending: bool,
}

impl Default for SoftRender {
    fn default() -> Self {
        Self::new()
    }
}

impl SoftRender {
    /// An instance that has drawn nothing yet.
    pub fn new() -> Self {
        Self {
            raster: SoftRasterizer::new(),
            effects: Vec::new(),
            effect_textures: Vec::new(),
            effects_pending: false,
        }
    }

    /// The wrapped rasterizer.
    pub fn rasterizer(&self) -> &SoftRasterizer {
        &self.raster
    }
}

impl SoftRender {
    /// Draws `frame` into the rasterizer, refusing targets past [`MAX_TARGET_DIM`], then
    /// the effects handed over for it, if any (consumed: they are drawn once).
    fn draw_frame(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        let effects = std::mem::take(&mut self.effects_pending);
        let (w, h) = (frame.target.width, frame.target.height);
        if w > MAX_TARGET_DIM || h > MAX_TARGET_DIM {
            return Err(PluginError::failed(format!(
                "render-soft: target {w}x{h} exceeds {MAX_TARGET_DIM}x{MAX_TARGET_DIM}"
            )));
        }
        let stats = self.raster.draw(frame);
        if effects {
            self.raster.draw_textured_effects(
                &frame.camera,
                &self.effects,
                &self.effect_textures,
                &frame.resources,
            );
        }
        let c = self.raster.counters();
        if c.skipped() > 0 {
            tracing::debug!(
                frame = frame.frame,
                skipped_items = c.skipped_items,
                skipped_triangles = c.skipped_triangles,
                "render-soft skipped out-of-range data"
            );
        }
        Ok(stats)
    }
}

impl Renderer for SoftRender {
    fn capture(&mut self) -> Result<ImageRgba8, PluginError> {
        if self.raster.has_frame() {
            Ok(self.raster.image())
        } else {
            Err(PluginError::failed("render-soft has not drawn a frame yet"))
        }
    }

    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        self.draw_frame(frame)
    }

    /// (2.4) The frame as [`Renderer::draw`] draws it, then `overlay` composited over it.
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> Result<RenderStats, PluginError> {
        let stats = self.draw_frame(frame)?;
        let skipped = self.raster.composite_overlay(overlay);
        if skipped > 0 {
            tracing::debug!(
                frame = frame.frame,
                skipped_quads = skipped,
                "render-soft skipped overlay quads with a missing or malformed texture"
            );
        }
        Ok(stats)
    }

    /// (2.11) Keeps the frame's effect primitives for the next draw (replacing any not
    /// drawn yet).
    fn effects(&mut self, effects: &EffectFrame) -> Result<(), PluginError> {
        self.effects.clear();
        self.effects.extend_from_slice(&effects.primitives);
        self.effect_textures.clear();
        self.effect_textures
            .extend(effects.textures.iter().cloned());
        self.effects_pending = true;
        Ok(())
    }
}
