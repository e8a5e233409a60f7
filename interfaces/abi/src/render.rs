//! The render frame (tome V "Полный кадр"): an immutable, FFI-safe description of one
//! presented frame that the kernel side builds after the frame's last tick and hands to
//! the render backend of the `render` slot.
//!
//! * [`RenderResources`] — mission-lifetime geometry and textures (decoded once; a backend
//!   caches its uploads by [`RenderResources::id`] and the resource index).
//! * [`RenderFrame`] — camera, target, visible objects with their chosen LOD/group/slots,
//!   the reasons objects were skipped, node world matrices, and the **draw-item list**
//!   already sorted in render-phase order with the legacy fixed-function state per item.
//!
//! * [`RenderWorld`] (2.8) — every object of the world, in view or not, with its
//!   transform, clan and prototype, for renderers that draw more than the camera sees
//!   (maps, minimaps, radar): a renderer that implements [`crate::Renderer::world`]
//!   gets it right before each frame's `draw`.
//!
//! Backends draw the items in list order and never re-sort them: the order is part of the
//! contract (opaque = phase, pipeline key, material, insertion id; transparent = phase,
//! distance back to front, insertion id).
//!
//! **Presentation.** A backend that presents by itself draws into
//! [`RenderTarget::window`] (the Vulkan renderer does). Any other backend draws offscreen
//! and the launcher presents what [`crate::Renderer::capture`] returns after each frame,
//! so a pixel renderer must implement `capture` (its default answers "unsupported", and
//! then nothing shows and `--screenshot` fails). `capture_commands` is for renderers
//! that produce a command list instead of pixels (the capture renderer).
//!
//! **Callbacks.** The render slot's plugin is called in the render phase of every
//! presented frame (`draw` / `draw_with_overlay`, after `world` when declared). It gets
//! the simulation callbacks it declares (`update`, …) like any slot, with read access to
//! the world; every world change, message, service call or outcome from the render slot
//! is refused with `FORBIDDEN` (presentation never changes the simulation), and its state
//! never enters the state hash.

use crate::math::{Mat4f, Quatf, Vec3f};
use abi_stable::StableAbi;
use abi_stable::std_types::{RArc, ROption, RString, RVec};

/// "No texture" in a [`TextureStage`].
pub const NO_TEXTURE: u32 = u32::MAX;

/// Render phases in the order of tome V (frame decomposition, items 2–8).
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RenderPhase {
    /// 2: opaque terrain.
    OpaqueTerrain,
    /// 3: opaque object batches.
    OpaqueModels,
    /// 4: lightmap and extra material passes (lightmaps are stage 1 of the items above;
    /// this phase holds separate extra passes). The built-in frame builder puts here the
    /// terrain's blend passes (PD-RENDER-TERRAIN-BLEND): alpha-blended, depth-tested
    /// without depth write over the terrain faces already drawn, stage 0 a generated
    /// mask (colour = the terrain lightmap's, alpha = the blend weight), stage 1 the
    /// material's diffuse — drawn by the same stage rules as every item.
    MaterialPasses,
    /// 5: projected primitives and shadows.
    Shadows,
    /// 6: alpha-tested geometry.
    AlphaTested,
    /// 7: transparent objects and FX, back to front.
    Transparent,
    /// 8: atmosphere, sun, flares, weather, overlays.
    Atmosphere,
}

impl RenderPhase {
    /// Every phase in draw order.
    pub const ALL: [RenderPhase; 7] = [
        RenderPhase::OpaqueTerrain,
        RenderPhase::OpaqueModels,
        RenderPhase::MaterialPasses,
        RenderPhase::Shadows,
        RenderPhase::AlphaTested,
        RenderPhase::Transparent,
        RenderPhase::Atmosphere,
    ];

    /// A stable lower-case name (capture JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            RenderPhase::OpaqueTerrain => "opaque_terrain",
            RenderPhase::OpaqueModels => "opaque_models",
            RenderPhase::MaterialPasses => "material_passes",
            RenderPhase::Shadows => "shadows",
            RenderPhase::AlphaTested => "alpha_tested",
            RenderPhase::Transparent => "transparent",
            RenderPhase::Atmosphere => "atmosphere",
        }
    }
}

/// How a texture stage combines with the previous result (fixed-function texture op).
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureOp {
    /// Stage off: the previous result passes through.
    Disable,
    /// Take the texture (stage 0 without lighting).
    SelectTexture,
    /// Multiply with the previous result (diffuse × lighting, result × lightmap).
    Modulate,
}

/// One of the two texture stages of the legacy state. Both stages sample UV0 (the MSH
/// and Land.msh carry one UV set), each through its own scale (the fixed-function texture
/// transform): `uv = uv0 * uv_scale`, wrapping, nearest texel of the base level.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct TextureStage {
    /// Index into [`RenderResources::textures`], or [`NO_TEXTURE`].
    pub texture: u32,
    /// Combine operation.
    pub op: TextureOp,
    /// Texture transform scale applied to UV0.
    pub uv_scale: [f32; 2],
}

impl TextureStage {
    /// A disabled stage.
    pub const OFF: TextureStage = TextureStage {
        texture: NO_TEXTURE,
        op: TextureOp::Disable,
        uv_scale: [1.0, 1.0],
    };
}

/// Blend mode (source, destination factors of the legacy API).
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlendMode {
    /// No blending: the fragment replaces the pixel.
    Opaque,
    /// `src·α + dst·(1−α)`.
    AlphaBlend,
    /// `src·α + dst` (glows, FX).
    Additive,
}

/// Depth test / write.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthMode {
    /// Test `fragment depth <= stored depth`.
    pub test: bool,
    /// Write the fragment depth when it passes.
    pub write: bool,
}

/// Face culling. Front faces are counter-clockwise in view space with Z up in the world
/// (our models' winding); `Back` removes clockwise faces on screen.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CullMode {
    /// Draw both sides.
    None,
    /// Remove back faces.
    Back,
}

/// Vertex layout of the mesh an item draws from.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// Position, normal, UV0 (MSH types 3/4/5; terrain types 3/4/5).
    PositionNormalUv,
}

/// The fixed-function state of one draw (tome V `LegacyRenderState`). `world` is in the
/// draw item; `view` and `projection` are the frame camera's (the same for every item).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct LegacyRenderState {
    /// Stage 0 (diffuse) and stage 1 (lightmap, never baked into the diffuse); a terrain
    /// blend pass ([`RenderPhase::MaterialPasses`]) has its mask in stage 0 and the
    /// diffuse in stage 1, combined by the same rules.
    pub stages: [TextureStage; 2],
    /// Blending.
    pub blend: BlendMode,
    /// Depth test / write.
    pub depth: DepthMode,
    /// Culling.
    pub cull: CullMode,
    /// Alpha test on (`alpha >= alpha_ref` passes).
    pub alpha_test: bool,
    /// Alpha reference for the test.
    pub alpha_ref: u8,
    /// Vertex layout.
    pub vertex_format: VertexFormat,
}

impl LegacyRenderState {
    /// A stable 64-bit key of the pipeline-relevant state (blend, depth, cull, alpha test,
    /// stage ops, vertex format), for state grouping in the opaque phases.
    pub fn pipeline_key(&self) -> u64 {
        let blend = self.blend as u64;
        let depth = u64::from(self.depth.test) | (u64::from(self.depth.write) << 1);
        let cull = self.cull as u64;
        let at = u64::from(self.alpha_test) | (u64::from(self.alpha_ref) << 1);
        let ops = (self.stages[0].op as u64) | ((self.stages[1].op as u64) << 2);
        blend
            | (depth << 2)
            | (cull << 4)
            | (at << 5)
            | (ops << 14)
            | ((self.vertex_format as u64) << 18)
    }
}

/// Camera and projection of the frame. Matrices are column-major (glam), column vectors:
/// `clip = projection · view · world · position`. Clip space is Direct3D's: `x, y ∈
/// [−w, w]` with +y up, depth `z ∈ [0, w]`.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position in the world (Z up).
    pub position: Vec3f,
    /// Horizontal angle (radians, wraps), 0 looking along +X, counter-clockwise.
    pub yaw: f32,
    /// Vertical angle (radians, clamped), positive looking up.
    pub pitch: f32,
    /// Horizontal field of view (radians).
    pub fov: f32,
    /// Near plane distance.
    pub near: f32,
    /// Far plane distance.
    pub far: f32,
    /// World → view (view space: x right, y up, z forward).
    pub view: Mat4f,
    /// View → clip (the Ngi32 Direct3D7 projection of FORMATS §13.6, transposed to column
    /// vectors).
    pub projection: Mat4f,
}

/// Fixed-function lighting of the frame: one directional light plus ambient, evaluated
/// per vertex (Gouraud): `light = ambient + sun_colour · max(0, n_world · sun_direction)`,
/// each channel clamped to `[0, 1]`; `n_world` = normalised upper 3×3 of the item's world
/// matrix times the vertex normal.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Unit vector towards the sun (world space).
    pub sun_direction: Vec3f,
    /// Sun colour, linear `[0, 1]`.
    pub sun_colour: [f32; 3],
    /// Ambient colour, linear `[0, 1]`.
    pub ambient: [f32; 3],
}

/// A native window a backend may present to (X11 or Wayland raw handles).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativeWindow {
    /// 0 = Xlib (`display` = `Display*`, `window` = XID), 1 = Xcb (`display` =
    /// `xcb_connection_t*`, `window` = id), 2 = Wayland (`display` = `wl_display*`,
    /// `window` = `wl_surface*`).
    pub kind: u32,
    /// The display/connection pointer as an integer.
    pub display: u64,
    /// The window id or surface pointer.
    pub window: u64,
    /// X11 screen number (Xlib/Xcb).
    pub screen: i32,
}

/// Where the frame goes.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderTarget {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The window the frame is shown in, when there is one. A backend that presents by
    /// itself draws into it; a backend that does not ignores it and the launcher
    /// presents what `capture` returns. `RNone`: offscreen (read back with `capture`).
    pub window: ROption<NativeWindow>,
    /// Clear colour, RGBA8.
    pub clear: [u8; 4],
}

/// A mesh: one vertex buffer (position, normal, UV0) and one 16-bit index buffer.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct MeshResource {
    /// Diagnostic name for logs and captures, never a key to parse: `archive:entry` of
    /// the model, or `terrain (<path of the mission's Land.msh>)` for the terrain.
    pub name: RString,
    /// Positions (MSH type 3).
    pub positions: RVec<[f32; 3]>,
    /// Normals (type 4, decoded `i8 / 127` clamped).
    pub normals: RVec<[f32; 3]>,
    /// UV0 (type 5, decoded `i16 / 1024`).
    pub uvs: RVec<[f32; 2]>,
    /// Indices (type 6), relative to a draw's `base_vertex`.
    pub indices: RVec<u16>,
}

/// Which texture manager a texture belongs to.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureKind {
    /// `Textures.lib` (ordinary cache).
    Diffuse,
    /// `LightMap.lib` (mission lifetime).
    Lightmap,
}

/// One mip level as RGBA8, rows top to bottom.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct TextureLevel {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: RVec<u8>,
}

/// A decoded texture after the loader's mip-skip: `levels[0]` is the runtime base level.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct TextureResource {
    /// Entry name in its archive.
    pub name: RString,
    /// Ordinary texture or lightmap.
    pub kind: TextureKind,
    /// Top levels the loader skipped (0 = full chain).
    pub skipped_levels: u32,
    /// The runtime mip chain, base first.
    pub levels: RVec<TextureLevel>,
}

/// Mission-lifetime render resources.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct RenderResources {
    /// Changes whenever the set changes (another mission, another game directory);
    /// backends key their upload caches on it.
    pub id: u64,
    /// Meshes.
    pub meshes: RVec<MeshResource>,
    /// Textures and lightmaps; after the mission's own, the effect sprite textures,
    /// named `archive/entry` as [`crate::EffectFrame::textures`] names them.
    pub textures: RVec<TextureResource>,
}

/// A visible object and what was chosen for it.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct VisibleObject {
    /// Original object id.
    pub id: u32,
    /// Index of the model's mesh in [`RenderResources::meshes`].
    pub mesh: u32,
    /// LOD (0..3) and group (0..5).
    pub lod: u8,
    /// Group (0..5).
    pub group: u8,
    /// First of its node matrices in [`RenderFrame::nodes`].
    pub first_node: u32,
    /// Node count.
    pub node_count: u32,
    /// Distance from the eye.
    pub distance: f32,
}

/// Why an object produced no draw items.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// Inactive or hidden (not visible).
    Invisible,
    /// No render model (no prototype geometry).
    NoModel,
    /// Outside the view frustum (bounding sphere).
    Culled,
    /// Every node's `slot_index[lod*5+group]` is `0xFFFF` (no slot).
    NoSlot,
}

impl SkipReason {
    /// A stable lower-case name (capture JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Invisible => "invisible",
            SkipReason::NoModel => "no_model",
            SkipReason::Culled => "culled",
            SkipReason::NoSlot => "no_slot",
        }
    }
}

/// An object without draw items and the reason.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SkippedObject {
    /// Original object id.
    pub id: u32,
    /// Why.
    pub reason: SkipReason,
}

/// One prepared draw (tome V "подготовленный draw item").
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct DrawItem {
    /// Original id of the object (0 for terrain).
    pub object: u32,
    /// Node index within the model (0 for terrain).
    pub node: u32,
    /// Slot index chosen for the node.
    pub slot: u32,
    /// Mesh in [`RenderResources::meshes`].
    pub mesh: u32,
    /// `Batch20.batch_flags` (raw).
    pub batch_flags: u16,
    /// First index in the mesh's index buffer.
    pub index_start: u32,
    /// Index count (a multiple of 3).
    pub index_count: u32,
    /// Added to every index.
    pub base_vertex: u32,
    /// Node world matrix.
    pub world: Mat4f,
    /// WEAR material handle `(table << 16) | row` (`u32::MAX`: none resolved): which
    /// material row the item was drawn with, an identity for caches and captures. A
    /// backend needs nothing from it to draw: `state` already holds the resolved texture
    /// stages, blending, depth and alpha test.
    pub material: u32,
    /// The material's animation at the frame's time (MAT0 phases): the item is drawn with
    /// phase `phase_a` (its texture is `state.stages[0]`), on its way to `phase_b`, which
    /// it reaches when `phase_t` goes from 0 to 1. The built-in renderers draw `phase_a`
    /// and do not blend; a renderer may cross-fade with these three fields.
    pub phase_a: u16,
    /// See `phase_a`.
    pub phase_b: u16,
    /// Blend factor `[0, 1)` from `phase_a` towards `phase_b`.
    pub phase_t: f32,
    /// Render phase.
    pub phase: RenderPhase,
    /// Secondary sort key within the phase (pipeline/material for opaque, inverted
    /// quantised distance for transparent).
    pub sort_key: u64,
    /// Stable insertion id (order of submission during traversal).
    pub insertion: u32,
    /// Fixed-function state.
    pub state: LegacyRenderState,
}

/// One presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct RenderFrame {
    /// Presented frame number.
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// Game time in milliseconds used for animation and material phases.
    pub time_ms: u64,
    /// Camera and projection.
    pub camera: Camera,
    /// Directional light and ambient.
    pub lighting: Lighting,
    /// Size, window, clear colour.
    pub target: RenderTarget,
    /// Geometry and textures (shared across frames).
    pub resources: RArc<RenderResources>,
    /// Visible objects in queue order. An object drawn from several models (a mounted
    /// part: a turret on a hull) is listed once per visible model, each entry with its own
    /// nodes; the same `id` then appears more than once.
    pub visible: RVec<VisibleObject>,
    /// Objects with nothing visible this frame, in queue order, with the reason (no model,
    /// culled, no slot): ids only — [`RenderWorld`] has every object's transform.
    pub skipped: RVec<SkippedObject>,
    /// Node world matrices of the visible objects.
    pub nodes: RVec<Mat4f>,
    /// Draw items in draw order (sorted by phase, then sort key, then insertion id).
    pub items: RVec<DrawItem>,
}

/// (2.8) One object of the world as a renderer may show it, in view or not.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct WorldObject {
    /// Original object id (as in [`VisibleObject::id`] and the trace).
    pub id: u32,
    /// World position (Z up).
    pub position: Vec3f,
    /// World orientation.
    pub orientation: Quatf,
    /// Scale.
    pub scale: Vec3f,
    /// The object's `ClanID` property (its second value, as the mission file wrote it),
    /// `RNone` without one.
    pub clan_id: ROption<u32>,
    /// Index of its prototype name in [`RenderWorld::prototypes`].
    pub prototype: u32,
    /// Whether the frame drew any part of it (it is in [`RenderFrame::visible`]).
    pub in_view: bool,
}

/// (2.8) Every registered, active object of the world at the frame's tick, in queue
/// order, for renderers that show more than the camera sees. Built only for a renderer
/// that implements [`crate::Renderer::world`] (and still takes it).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct RenderWorld {
    /// Presented frame number (the frame `draw` gets next).
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// The objects, in queue order; each once.
    pub objects: RVec<WorldObject>,
    /// Prototype names (the unit DAT path or resource name an object was made from,
    /// CP1251 decoded), each once, in order of first use; `""` for objects without one.
    pub prototypes: RVec<RString>,
}

impl RenderWorld {
    /// The prototype name of `object` (`""` when its index is out of range).
    pub fn prototype_of(&self, object: &WorldObject) -> &str {
        self.prototypes
            .get(object.prototype as usize)
            .map_or("", |s| s.as_str())
    }
}
