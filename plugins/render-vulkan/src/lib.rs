//! `render-vulkan`: the Vulkan render backend (vulkano 0.35, shaders compiled from WGSL
//! with naga at start-up). It draws the prepared [`RenderFrame`] with the same rules as
//! the software reference (`iron3d-render-soft`, whose crate docs are the contract) and
//! reproduces its pixels within a stated tolerance.
//!
//! The pure API is [`VulkanRenderer`] (`new`, `draw`, `draw_with_overlay`, `image`); the
//! plugin factory `render-vulkan` (slot Render) wraps it. It draws the interface 2.4
//! screen overlay ([`iron3d_abi::overlay`]) in its own pass after the 3D pass (see "The
//! overlay pass" below). Creating the factory fails with
//! "no Vulkan device: …" when no Vulkan loader or device is available (the launcher then
//! falls back to the software renderer); no panic crosses the plugin boundary.
//!
//! # How a frame is drawn
//!
//! * **Targets**: every frame is rendered into an offscreen `R8G8B8A8_UNORM` colour
//!   image plus `D32_SFLOAT` depth at the target size (recreated when it changes),
//!   cleared to `target.clear` and depth 1; `capture()` copies the last frame to a host
//!   buffer on demand and returns it (rows top to bottom). With `target.window` set, the colour
//!   image is also blitted into the window's FIFO swapchain image and presented
//!   (surface from the Xlib / Xcb / Wayland raw handles, created once per window;
//!   swapchain recreated on resize or when out of date). `examples/window_check.rs`
//!   checks this under Xvfb (`xvfb-run -a cargo run -p iron3d-render-vulkan --example
//!   window_check`): it presents frames to a winit X11 window, resizes it, and compares
//!   the window's pixels read back from the X server with `capture()`.
//! * **Caches**: meshes (interleaved position/normal/UV vertex buffer + `u16` index
//!   buffer), textures (level 0, RGBA8) and texture descriptor sets are uploaded once per
//!   (`resources.id`, index); pipelines are created lazily per (blend, depth test, depth
//!   write, cull). Per frame only the uniform block (lighting) and the command buffer are
//!   written. Items are drawn strictly in list order with
//!   `draw_indexed(index_count, 1, index_start, base_vertex, 0)`.
//! * **Vertex stage**: `clip = ((P·V)·W) · position` (the matrix product on the CPU, as the
//!   reference), then `y` is negated (Direct3D clip space is +y up, Vulkan's +y down) so
//!   that row 0 is the top and `sy = (0.5 − y/w·0.5)·H`; depth `z/w ∈ [0, 1]` is the same
//!   in both APIs. Gouraud lighting per vertex exactly as the reference (`mat3(W)·n`,
//!   normalised when its length is positive and finite, `clamp(ambient + sun·max(0, n·s))`).
//! * **Culling**: front faces are counter-clockwise in Direct3D NDC. The y flip mirrors
//!   the triangle, and Vulkan's orientation rule is stated in its y-down framebuffer
//!   space, so `FrontFace::CounterClockwise` + `CullMode::Back` removes exactly the
//!   reference's back faces (checked by a unit test).
//! * **Fragment stage**: stage 0 `Disable`/`SelectTexture`/`Modulate`, stage 1 likewise
//!   (lightmap modulate); texel fetch with `textureLoad` of level 0 at
//!   `min(floor(fract(uv·uv_scale)·size), size − 1)` (the reference's nearest/wrap rule,
//!   bit for bit, no sampler); alpha test `round(a·255) ≥ alpha_ref` by `discard`.
//! * **Fixed function**: depth test `LESS_OR_EQUAL` with the item's write flag (test
//!   off and write on = `ALWAYS`); blend Opaque / AlphaBlend (`src·a + dst·(1−a)`, alpha
//!   `a + dst_a·(1−a)`) / Additive (`src·a + dst`, alpha kept).
//!
//! # The overlay pass (2.4)
//!
//! `draw_with_overlay` records, after the 3D render pass and before the read-back and the
//! present, a second render pass over the same colour image (colour only, `load_op`
//! Load, no depth attachment) with one pipeline for screen-space quads ([`OVERLAY_WGSL`]):
//!
//! * **Vertices**: each drawable quad becomes two triangles (six vertices: clip-space
//!   position, uv, RGBA8 colour) in one vertex buffer reused between frames. The
//!   rectangle is clipped to the target on the CPU, the uv at the clipped edges taken
//!   from the reference formula `u0 + (x − left)/(right − left)·(u1 − u0)`, then positions
//!   go from target pixels to clip space (`x/W·2 − 1`, `y/H·2 − 1`; Vulkan's y is down
//!   like the overlay's). The GPU's top-left fill rule covers exactly the pixels whose
//!   centres lie in `[left, right) × [top, bottom)`.
//! * **Textures**: one descriptor set per overlay texture (level 0, RGBA8, a NEAREST,
//!   CLAMP_TO_EDGE sampler), uploaded once per `textures_id` and index (a new id drops the
//!   cache); a solid quad ([`iron3d_abi::NO_TEXTURE`]) uses a 1×1 white texture. A quad
//!   whose texture is missing or malformed (empty, or not exactly `width·height·4` bytes)
//!   is skipped, as [`iron3d_abi::overlay::composite`] skips it; so is a texture larger
//!   than the device's image limit (the one case the reference would still draw). A
//!   non-finite rectangle covers nothing; non-finite texture coordinates sample texel 0.
//! * **Shading and blending**: fragment = `colour × texel` rounded to a byte per channel
//!   (the reference's rounding), blended `src_alpha / one_minus_src_alpha` on colour with
//!   the alpha write masked off (the target's alpha is kept); no depth test, no culling,
//!   quads drawn in list order (consecutive quads of one texture in one draw call).
//!
//! On llvmpipe the overlay pass reproduces `composite` applied to this renderer's own
//! frame image within ±1 per channel (checked by the unit tests); against the software
//! reference's composited image the crate's tolerance below applies.
//!
//! # Effects (2.11)
//!
//! [`VulkanRenderer::set_effect_frame`] (the plugin's [`Renderer::effects`]) keeps a
//! frame's effect primitives and texture names ([`VulkanRenderer::set_effects`]: the
//! primitives alone); the next `draw` / `draw_with_overlay` consumes them, so they are
//! drawn once (a later call before the draw replaces them). They are drawn by the
//! software reference's rules (its crate docs, "Effects"), with the same CPU
//! arithmetic for the quads:
//!
//! * **Quads on the CPU**: each primitive becomes a camera-facing quad built in view
//!   space and projected with `camera.projection` (particle `size`², billboard
//!   `size`×`height` rotated by `rotation`, streak and beam a band `size` wide from
//!   `position` to `end`, point light an additive glow of half-side `size ·`
//!   [`GLOW_RADIUS`] with opacity `colour[3] ·` [`GLOW_OPACITY`]); its six clip-space
//!   vertices (with colour, opacity and sprite coordinates) go into one vertex buffer
//!   per frame, reused between frames and grown when too small. A quad entirely
//!   outside one plane of the view volume is left out; the GPU clips the rest (near
//!   plane included) properly.
//! * **Drawn** at the end of the 3D render pass, after the world's items and before the
//!   overlay pass, strictly in list order: one draw call per run of consecutive quads
//!   sharing a sprite texture (Vulkan blends a draw's primitives, and the draws, in
//!   order; the soft quads share one) with one premultiplied-alpha pipeline
//!   ([`EFFECTS_WGSL`], blend `One`, `OneMinusSrcAlpha` on colour and alpha) whose
//!   shader writes `(src·a, a)` for `ALPHA` and `(src·a, 0)` for `ADDITIVE`, so that
//!   `ADDITIVE` = `min(1, dst + src·a)` (alpha kept) and `ALPHA` = `src·a + dst·(1 − a)`
//!   (alpha `a + dst_a·(1 − a)`), the reference's formulas; depth test `LESS_OR_EQUAL`
//!   against the world's depth, depth write off, no culling. (Runs by texture, not by
//!   blend: 10,000 interleaved particles of both blends stay one draw call.)
//! * **Sprite**: `a = opacity · max(0, 1 − (u² + v²))` in the fragment shader (sprite
//!   coordinates −1..1 across the quad, a streak's `u` = 0), discarded when `a ≤ 0`.
//! * **Textured sprite** (PD-RENDER-EFFECT-TEXTURES): a particle or billboard whose
//!   texture name is among the frame's resources (ASCII-case-insensitive; uploaded once
//!   per resource set, like the world's textures) reads the texel of
//!   [`iron3d_abi::effects::sprite_texel`] with `textureLoad` (nearest, base level):
//!   colour × texel, `a = opacity · texel alpha`.
//! * **Skipped** (never an error): an unknown kind or blend, a non-finite number, a size
//!   or height that is not positive, a streak of zero length or seen end-on.
//!
//! # Tolerance against the software reference
//!
//! The two rasterizers share the rules (top-left fill, pixel centres, perspective-correct
//! attributes, depth linear in screen space) but not the arithmetic: the GPU may fuse
//! multiply-adds, snap vertices with its own sub-pixel precision, interpolate with
//! different rounding and round to UNORM slightly differently. The guaranteed agreement,
//! checked by the unit tests and by the end-to-end goldens of `iron3d play`, is:
//!
//! * a pixel *matches* when every channel differs by at most [`CHANNEL_TOLERANCE`] (8);
//! * at least [`MATCH_FRACTION`] (99 %) of the pixels match; and
//! * every pixel that does not match lies on an edge: in its 3×3 neighbourhood the
//!   reference image has a pixel within tolerance of the Vulkan pixel (coverage moved by
//!   a pixel), or a pixel that differs from the reference's centre pixel by more than the
//!   tolerance (a triangle or texel edge, where a rounding difference in the interpolated
//!   UV picks the neighbouring texel). Flat regions must match.
//!
//! Known deliberate difference: an item with a vertex index past the vertex arrays is
//! left out whole (the reference drops only the affected triangles).

mod effects;
mod overlay;
mod present;
mod renderer;
mod shaders;
#[cfg(test)]
mod tests;
pub mod tolerance;

pub use effects::{GLOW_OPACITY, GLOW_RADIUS};
pub use renderer::{COLOR_FORMAT, DEPTH_FORMAT, MAX_TARGET_DIM, VulkanRenderer};
pub use shaders::{EFFECTS_WGSL, OVERLAY_WGSL, WGSL, effects_spirv, overlay_spirv, spirv};
pub use tolerance::{ImageDiff, compare_images};

use iron3d_abi::{
    EffectFrame, FactoryDescription, ImageRgba8, MissionInfo, Overlay, Plugin, PluginDescription,
    PluginError, RenderFrame, RenderStats, Renderer, SlotKind, StateBlob,
};

/// Factory name of the Vulkan renderer.
pub const FACTORY: &str = "render-vulkan";

/// Format name of the (empty) state blob.
pub const STATE_FORMAT: &str = "render-vulkan";

/// Version of the state blob.
pub const STATE_VERSION: u32 = 1;

/// Largest per-channel difference of a matching pixel (see the crate docs).
pub const CHANNEL_TOLERANCE: u8 = 8;

/// Smallest fraction of matching pixels (see the crate docs).
pub const MATCH_FRACTION: f64 = 0.99;

/// Errors of the Vulkan backend.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No Vulkan loader, instance or usable device.
    #[error("no Vulkan device: {0}")]
    NoDevice(String),
    /// A Vulkan call or vulkano validation failed.
    #[error("vulkan: {0}")]
    Vulkan(String),
    /// The WGSL → SPIR-V compilation failed.
    #[error("shader: {0}")]
    Shader(String),
    /// The render target cannot be created (too large).
    #[error("target: {0}")]
    Target(String),
    /// The window cannot be presented to.
    #[error("window: {0}")]
    Window(String),
}

impl From<RenderError> for PluginError {
    fn from(e: RenderError) -> Self {
        PluginError::failed(format!("render-vulkan: {e}"))
    }
}

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-render-vulkan",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Render)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory("iron3d-render-vulkan", factory));
    }
    // Device creation happens here, when the host prepares the instance (start-up or
    // swap preparation), never at the simulation boundary.
    let renderer = VulkanRenderer::new()?;
    Ok(Box::new(VulkanRender { renderer }))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The `render-vulkan` plugin instance: a [`VulkanRenderer`] behind the render slot.
pub struct VulkanRender {
    renderer: VulkanRenderer,
}

impl VulkanRender {
    /// The wrapped renderer.
    pub fn renderer(&self) -> &VulkanRenderer {
        &self.renderer
    }
}

impl Plugin for VulkanRender {
    fn mission_start(
        &mut self,
        _host: &mut iron3d_abi::Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        tracing::debug!(
            mission = mission.mission.as_str(),
            device = self.renderer.device_name(),
            "render-vulkan ready"
        );
        Ok(())
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(StateBlob::empty(STATE_FORMAT, STATE_VERSION))
    }

    fn restore_state(&mut self, _blob: &StateBlob) -> Result<(), PluginError> {
        // A renderer has no simulation state: any blob is accepted.
        Ok(())
    }

    fn renderer(&mut self) -> Option<&mut dyn Renderer> {
        Some(self)
    }
}

impl Renderer for VulkanRender {
    fn capture(&mut self) -> Result<ImageRgba8, PluginError> {
        match self.renderer.image() {
            Ok(Some(image)) => Ok(image),
            Ok(None) => Err(PluginError::failed(
                "render-vulkan has not drawn a frame yet",
            )),
            Err(e) => Err(e.into()),
        }
    }

    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        self.renderer.draw(frame).map_err(PluginError::from)
    }

    /// (2.4) The frame, then its screen overlay in the overlay pass.
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> Result<RenderStats, PluginError> {
        self.renderer
            .draw_with_overlay(frame, overlay)
            .map_err(PluginError::from)
    }

    /// (2.11) Keeps the frame's effect primitives and texture names for the next draw.
    fn effects(&mut self, effects: &EffectFrame) -> Result<(), PluginError> {
        self.renderer.set_effect_frame(effects);
        Ok(())
    }
}
