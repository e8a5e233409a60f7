//! `wireframe`: an example **renderer plugin mod** — an alternate renderer that draws the
//! world as edges. It is written as a third party would write one: a `cdylib` that
//! depends on `iron3d-abi` only (plus `abi_stable`, `glam` and `tracing`), exported with
//! [`iron3d_abi::export_plugin!`], and shipped as the mod `mods/wireframe/` whose
//! `mod.toml` names the cargo library (`build = "iron3d_mod_wireframe"`, rule
//! PD-MOD-SOURCE-PLUGIN of the mod manifest).
//!
//! The pure API is [`WireRasterizer`] (`new`, `draw`, `composite_overlay`, `image`,
//! `pixels`, `depth`, `counters`); the plugin factory [`FACTORY`] (`wireframe`, slot
//! Render) wraps it as [`WireframeRender`]. Like the software reference renderer
//! (`render-soft`) it renders offscreen even when the frame names a window: the launcher
//! presents and screenshots the pixels it reads back with `capture`.
//!
//! It draws the interface 2.4 screen overlay ([`iron3d_abi::overlay`]):
//! `draw_with_overlay` draws the frame by the rules below, then the overlay's quads over
//! the finished colour buffer with [`iron3d_abi::overlay::composite`] (the reference
//! implementation of the overlay rules, as `render-soft` does), so the HUD shows and
//! `capture` returns the composited image.
//!
//! # Pixel rules
//!
//! All arithmetic is plain `f32`, evaluated in the order written here, so the output is
//! bit-reproducible for a given build target.
//!
//! 1. **Clear**: colour = `target.clear` (RGBA8), depth = 1.0. Targets wider or taller
//!    than [`MAX_TARGET_DIM`] (the same limit as `render-soft`) draw nothing (0×0 image,
//!    every item counted as skipped); the plugin refuses them with an error.
//! 2. **Order**: items strictly in `frame.items` order. Triangle `k` of an item is
//!    `indices[index_start + 3k .. +3]` for `k < index_count / 3`; vertex =
//!    `base_vertex + index`. Only positions are read (no normals, UVs or textures). An
//!    out-of-range mesh skips the item; an index past the index buffer or a vertex past
//!    the position array skips the triangle. Both are counted
//!    ([`WireCounters::skipped_items`], [`WireCounters::skipped_triangles`]), never a
//!    panic.
//! 3. **Transform**: `M = (P · V) · W`, then
//!    `clip.r = ((M[0][r]·x + M[1][r]·y) + M[2][r]·z) + M[3][r]` — the same vertices as
//!    `render-soft`. Clip space is Direct3D's: `−w ≤ x, y ≤ w`, `0 ≤ z ≤ w`, +y up.
//! 4. **Edges**: every triangle gives its three edges `(v0, v1)`, `(v1, v2)`, `(v2, v0)`,
//!    whatever its facing (the cull mode is ignored: a wireframe shows back faces too)
//!    and even when it has zero area. An edge shared by two triangles is drawn twice, to
//!    the same pixels.
//! 5. **Clipping**: each edge is clipped in clip space against the six planes of the
//!    view volume, one after the other (`x ≤ w`, `x ≥ −w`, `y ≤ w`, `y ≥ −w`, `z ≥ 0`,
//!    `z ≤ w`); an end outside a plane is replaced by the intersection interpolated
//!    from the inside end, `in + (out − in) · t`, `t = d_in / (d_in − d_out)`. An edge
//!    with a non-finite coordinate, entirely outside, or with `w ≤ 0` or a non-finite
//!    value after clipping is dropped ([`WireCounters::rejected`]).
//! 6. **Viewport**: `sx = (x/w · 0.5 + 0.5) · W`, `sy = (0.5 − y/w · 0.5) · H`,
//!    `depth = clamp(z/w, 0, 1)` — no sub-pixel snapping.
//! 7. **Line**: from `a` to `b` (screen), `n = ceil(max(|bx − ax|, |by − ay|))` steps
//!    (at most `W + H`: after clipping an edge lies inside the target, so the work per
//!    edge is bounded by the target, whatever the coordinates); sample `i ∈ 0..=n` is
//!    `a + (d · i) / n` for each of `x`, `y` and `depth` (`d = b − a`; one sample at `a`
//!    when `n = 0`). A sample lights the pixel that contains it,
//!    `(floor(x), floor(y))` clamped to the target (a point on the right or bottom border
//!    lights the last column or row). Consecutive samples are at most one pixel apart,
//!    so lines are 8-connected, 1 pixel wide.
//! 8. **Depth** (the choice of this renderer): a sample is written when its depth is
//!    `≤` the stored depth, and then stores its depth. Only edges write depth — there are
//!    no surfaces — so lines far behind a model are still drawn (hidden lines stay
//!    visible), but where lines cross the nearer one wins, in either draw order; at equal
//!    depth the later one wins. The item's own depth state and blend mode are ignored.
//! 9. **Colour**: flat, lighting-free, opaque: [`item_colour`] — [`TERRAIN_COLOUR`] for
//!    terrain items, else an entry of [`PALETTE`] picked by a hash of the item's WEAR
//!    material handle (or, without one, of its mesh index), so every material keeps its
//!    colour from frame to frame; a colour whose RGB equals the clear colour's is
//!    replaced by the next palette entry, so edges never vanish into the background.

#[cfg(test)]
mod tests;
mod wire;

pub use wire::{
    MAX_TARGET_DIM, PALETTE, TERRAIN_COLOUR, WireCounters, WireRasterizer, item_colour,
};

use iron3d_abi::{
    FactoryDescription, ImageRgba8, Overlay, Plugin, PluginDescription, PluginError, RenderFrame,
    RenderStats, Renderer, RendererPlugin, SlotKind,
};

/// Factory name of the wireframe renderer (what `mod.toml` and `--renderer` name).
pub const FACTORY: &str = "wireframe";

/// Plugin name in its description.
pub const PLUGIN_NAME: &str = "iron3d-mod-wireframe";

/// Format name of the (empty) state blob: a renderer hands nothing over on a switch.
pub const STATE_FORMAT: &str = "wireframe";

/// Version of the state blob (see [`RendererPlugin`]).
pub const STATE_VERSION: u32 = 1;

fn describe() -> PluginDescription {
    PluginDescription::current(
        PLUGIN_NAME,
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Render)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory(PLUGIN_NAME, factory));
    }
    Ok(Box::new(RendererPlugin::new(
        WireframeRender::new(),
        STATE_FORMAT,
    )))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The `wireframe` plugin instance: a [`WireRasterizer`] behind the render slot; it
/// draws the 2.4 screen overlay over the frame (`draw_with_overlay`) and reads the last
/// image back with `capture`.
#[derive(Debug, Default)]
pub struct WireframeRender {
    raster: WireRasterizer,
}

impl WireframeRender {
    /// An instance that has drawn nothing yet (`capture` fails until the first draw).
    pub fn new() -> Self {
        Self::default()
    }

    /// The wrapped rasterizer.
    pub fn rasterizer(&self) -> &WireRasterizer {
        &self.raster
    }

    /// Draws `frame` into the rasterizer, refusing targets past [`MAX_TARGET_DIM`] (the
    /// last image stays for `capture`).
    fn draw_frame(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        let (w, h) = (frame.target.width, frame.target.height);
        if w > MAX_TARGET_DIM || h > MAX_TARGET_DIM {
            return Err(PluginError::failed(format!(
                "wireframe: target {w}x{h} exceeds {MAX_TARGET_DIM}x{MAX_TARGET_DIM}"
            )));
        }
        let stats = self.raster.draw(frame);
        let c = self.raster.counters();
        if c.skipped() > 0 {
            tracing::debug!(
                frame = frame.frame,
                skipped_items = c.skipped_items,
                skipped_triangles = c.skipped_triangles,
                "wireframe skipped out-of-range data"
            );
        }
        Ok(stats)
    }
}

impl Renderer for WireframeRender {
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
                "wireframe skipped overlay quads with a missing or malformed texture"
            );
        }
        Ok(stats)
    }

    fn capture(&mut self) -> Result<ImageRgba8, PluginError> {
        if self.raster.has_frame() {
            Ok(self.raster.image())
        } else {
            Err(PluginError::failed("wireframe has not drawn a frame yet"))
        }
    }
}
