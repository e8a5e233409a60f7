//! `render-capture`: a render backend that draws no pixels and records each frame as a
//! stable JSON command list (golden tests of frame preparation, debugging).
//!
//! [`frame_json`] is the pure conversion; the plugin factory `render-capture` (slot
//! Render) keeps the last frame for `capture_commands` and refuses `capture`. The JSON
//! is written when it is asked for, once per frame (writing it for every frame of a
//! 10,000-object world cost ~70 ms a frame; keeping the frame costs a copy).
//!
//! It draws the interface 2.4 screen overlay ([`iron3d_abi::overlay`]) as commands:
//! `draw_with_overlay` records [`frame_overlay_json`], the frame's command list with one
//! more key, `overlay` (drawn after the frame's `items`): `textures_id`, `textures` (each
//! overlay texture's `width`, `height` and pixel `bytes`, so a malformed one shows) and
//! `quads` in draw order (`rect`, `uv`, `texture` — `null` for [`NO_TEXTURE`] — and
//! `color`). A frame drawn without an overlay has no `overlay` key: its JSON is exactly
//! what it was before 2.4. There is still no image to capture (no pixels, so nothing to
//! composite).
//!
//! It implements [`iron3d_abi::Renderer::world`] (2.8): a frame drawn after the host
//! handed it the world has one more key, `world` ([`world_json`]): `frame`, `tick` and
//! `objects` — every object in queue order with its `id`, `position`, `orientation`
//! (x, y, z, w), `scale`, `clan_id` (or `null`), `prototype` name and `in_view`.
//!
//! It implements [`iron3d_abi::Renderer::effects`] (2.11): a frame drawn after the host
//! handed it the frame's effect primitives has one more key, `effects`
//! ([`effects_json`]), and only such a frame (a frame without effects is written exactly
//! as before 2.11): `frame`, `tick`, `instances`, `primitives` (the count) and `groups`,
//! the consecutive runs of primitives with the same `instance`, `command`, `kind` and
//! `blend`, in list order (the order the renderers draw them in, never re-sorted). Each
//! group has its `instance`, `command`, `kind` (`"particle"`, `"billboard"`, `"streak"`,
//! `"point_light"`, `"beam"` or `"unknown"`), `blend` (`"additive"`, `"alpha"` or
//! `"unknown"`; two unknown numbers still make two groups), `count`, `texture` (the
//! first primitive's texture name from the frame's `textures`, or `null` for none or an
//! index past them), and the `first`
//! primitive's `position` with the component-wise `min` and `max` of the group's
//! positions (numbers as everywhere else: NaN or infinite components are ignored by
//! `min`/`max`, and written `null` when nothing finite is left). The effects are used by
//! the next frame only.
//!
//! # Stability
//!
//! The same frame gives the same string on every run and platform: objects are
//! `serde_json::Map`s with sorted keys (inserted in order, so also with serde_json's
//! `preserve_order`), lists keep the frame's order, integers are exact,
//! and every `f32` is written as its shortest round-trip decimal (Rust's `Display`, so
//! `0.1f32` is `0.1`, not `0.10000000149011612`); NaN and infinities become `null`.
//! Matrices are 16-number arrays, column-major. Texture pixels are not written, only
//! sizes and counts; [`NO_TEXTURE`] is `null`. The resources' upload-cache id (unique per
//! mission load in a process) is left out, so two loads of one mission capture alike.
//! The overlay's `textures_id` is written as given (it says which texture set the quads
//! index); overlay texture pixels are not written either, only sizes and byte counts.

#[cfg(test)]
mod tests;

use iron3d_abi::{
    BlendMode, CullMode, DrawItem, EffectBlend, EffectFrame, EffectPrimitive, ErrorKind,
    FactoryDescription, ImageRgba8, LegacyRenderState, Mat4f, NO_TEXTURE, Overlay, Plugin,
    PluginDescription, PluginError, RenderFrame, RenderPhase, RenderStats, RenderWorld, Renderer,
    RendererPlugin, SlotKind, TextureKind, TextureOp, Vec3f, VertexFormat,
};
use serde_json::{Map, Value};

/// Factory name of the capture backend.
pub const FACTORY: &str = "render-capture";

/// Format name of the (empty) state blob.
pub const STATE_FORMAT: &str = "render-capture";

/// Version of the state blob.
pub const STATE_VERSION: u32 = 1;

/// The error `capture` answers with.
pub const NO_PIXELS: &str = "render-capture draws no pixels; use capture_commands";

/// An `f32` as its shortest round-trip decimal (`null` when not finite).
fn num(x: f32) -> Value {
    if !x.is_finite() {
        return Value::Null;
    }
    // Display of f32 is the shortest string that parses back to the same f32.
    let shortest: f64 = x.to_string().parse().unwrap_or(f64::from(x));
    serde_json::Number::from_f64(shortest).map_or(Value::Null, Value::Number)
}

fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

fn mat(m: &Mat4f) -> Value {
    nums(&m.cols)
}

fn vec3(v: &Vec3f) -> Value {
    nums(&[v.x, v.y, v.z])
}

/// An object with its keys inserted in sorted order, so the output is the same whether
/// or not serde_json's `preserve_order` feature is unified into the build.
fn obj<const N: usize>(mut fields: [(&str, Value); N]) -> Value {
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let mut m = Map::new();
    for (k, v) in fields {
        m.insert(k.to_owned(), v);
    }
    Value::Object(m)
}

fn op_str(op: TextureOp) -> &'static str {
    match op {
        TextureOp::Disable => "disable",
        TextureOp::SelectTexture => "select_texture",
        TextureOp::Modulate => "modulate",
    }
}

fn blend_str(b: BlendMode) -> &'static str {
    match b {
        BlendMode::Opaque => "opaque",
        BlendMode::AlphaBlend => "alpha_blend",
        BlendMode::Additive => "additive",
    }
}

fn cull_str(c: CullMode) -> &'static str {
    match c {
        CullMode::None => "none",
        CullMode::Back => "back",
    }
}

fn vertex_format_str(f: VertexFormat) -> &'static str {
    match f {
        VertexFormat::PositionNormalUv => "position_normal_uv",
    }
}

fn kind_str(k: TextureKind) -> &'static str {
    match k {
        TextureKind::Diffuse => "diffuse",
        TextureKind::Lightmap => "lightmap",
    }
}

fn state_json(s: &LegacyRenderState) -> Value {
    let stages = s
        .stages
        .iter()
        .map(|st| {
            obj([
                (
                    "texture",
                    if st.texture == NO_TEXTURE {
                        Value::Null
                    } else {
                        Value::from(st.texture)
                    },
                ),
                ("op", Value::from(op_str(st.op))),
                ("uv_scale", nums(&st.uv_scale)),
            ])
        })
        .collect();
    obj([
        ("stages", Value::Array(stages)),
        ("blend", Value::from(blend_str(s.blend))),
        (
            "depth",
            obj([
                ("test", Value::from(s.depth.test)),
                ("write", Value::from(s.depth.write)),
            ]),
        ),
        ("cull", Value::from(cull_str(s.cull))),
        ("alpha_test", Value::from(s.alpha_test)),
        ("alpha_ref", Value::from(s.alpha_ref)),
        (
            "vertex_format",
            Value::from(vertex_format_str(s.vertex_format)),
        ),
        ("pipeline_key", Value::from(s.pipeline_key())),
    ])
}

fn item_json(it: &DrawItem) -> Value {
    obj([
        ("insertion", Value::from(it.insertion)),
        ("phase", Value::from(it.phase.as_str())),
        ("sort_key", Value::from(it.sort_key)),
        ("object", Value::from(it.object)),
        ("node", Value::from(it.node)),
        ("slot", Value::from(it.slot)),
        ("mesh", Value::from(it.mesh)),
        ("batch_flags", Value::from(it.batch_flags)),
        ("index_start", Value::from(it.index_start)),
        ("index_count", Value::from(it.index_count)),
        ("base_vertex", Value::from(it.base_vertex)),
        ("world", mat(&it.world)),
        ("material", Value::from(it.material)),
        ("phase_a", Value::from(it.phase_a)),
        ("phase_b", Value::from(it.phase_b)),
        ("phase_t", num(it.phase_t)),
        ("state", state_json(&it.state)),
    ])
}

/// The frame as a JSON command list (see the crate docs for the stability rules).
pub fn frame_json(frame: &RenderFrame) -> Value {
    let c = &frame.camera;
    let l = &frame.lighting;
    let t = &frame.target;
    let r = &frame.resources;
    let meshes = r
        .meshes
        .iter()
        .map(|m| {
            obj([
                ("name", Value::from(m.name.as_str())),
                ("vertices", Value::from(m.positions.len())),
                ("indices", Value::from(m.indices.len())),
            ])
        })
        .collect();
    let textures = r
        .textures
        .iter()
        .map(|tex| {
            let (w, h) = tex.levels.first().map_or((0, 0), |l| (l.width, l.height));
            obj([
                ("name", Value::from(tex.name.as_str())),
                ("kind", Value::from(kind_str(tex.kind))),
                ("skipped_levels", Value::from(tex.skipped_levels)),
                ("width", Value::from(w)),
                ("height", Value::from(h)),
                ("levels", Value::from(tex.levels.len())),
            ])
        })
        .collect();
    let visible = frame
        .visible
        .iter()
        .map(|v| {
            obj([
                ("id", Value::from(v.id)),
                ("mesh", Value::from(v.mesh)),
                ("lod", Value::from(v.lod)),
                ("group", Value::from(v.group)),
                ("first_node", Value::from(v.first_node)),
                ("node_count", Value::from(v.node_count)),
                ("distance", num(v.distance)),
            ])
        })
        .collect();
    let skipped = frame
        .skipped
        .iter()
        .map(|s| {
            obj([
                ("id", Value::from(s.id)),
                ("reason", Value::from(s.reason.as_str())),
            ])
        })
        .collect();
    let mut counts: Vec<(&str, usize)> = RenderPhase::ALL
        .iter()
        .map(|&p| {
            (
                p.as_str(),
                frame.items.iter().filter(|i| i.phase == p).count(),
            )
        })
        .collect();
    counts.sort();
    let mut phases = Map::new();
    for (name, n) in counts {
        phases.insert(name.to_owned(), Value::from(n));
    }
    obj([
        ("frame", Value::from(frame.frame)),
        ("tick", Value::from(frame.tick)),
        ("time_ms", Value::from(frame.time_ms)),
        (
            "target",
            obj([
                ("width", Value::from(t.width)),
                ("height", Value::from(t.height)),
                ("clear", Value::from(t.clear.to_vec())),
                ("window", Value::from(t.window.is_some())),
            ]),
        ),
        (
            "camera",
            obj([
                ("position", vec3(&c.position)),
                ("yaw", num(c.yaw)),
                ("pitch", num(c.pitch)),
                ("fov", num(c.fov)),
                ("near", num(c.near)),
                ("far", num(c.far)),
                ("view", mat(&c.view)),
                ("projection", mat(&c.projection)),
            ]),
        ),
        (
            "lighting",
            obj([
                ("sun_direction", vec3(&l.sun_direction)),
                ("sun_colour", nums(&l.sun_colour)),
                ("ambient", nums(&l.ambient)),
            ]),
        ),
        (
            "resources",
            // The resources id is an upload-cache key, unique per mission load in a
            // process: not part of the command list, so captures stay comparable.
            obj([
                ("meshes", Value::Array(meshes)),
                ("textures", Value::Array(textures)),
            ]),
        ),
        ("visible", Value::Array(visible)),
        ("skipped", Value::Array(skipped)),
        ("nodes", Value::from(frame.nodes.len())),
        ("phases", Value::Object(phases)),
        (
            "items",
            Value::Array(frame.items.iter().map(item_json).collect()),
        ),
    ])
}

/// (2.4) The overlay as JSON: `textures_id`, `textures` (`width`, `height`, `bytes` of
/// each) and `quads` in draw order (`rect`, `uv`, `texture` or `null`, `color`).
pub fn overlay_json(overlay: &Overlay) -> Value {
    let textures = overlay
        .textures
        .iter()
        .map(|t| {
            obj([
                ("width", Value::from(t.width)),
                ("height", Value::from(t.height)),
                ("bytes", Value::from(t.rgba.len())),
            ])
        })
        .collect();
    let quads = overlay
        .quads
        .iter()
        .map(|q| {
            obj([
                ("rect", nums(&q.rect)),
                ("uv", nums(&q.uv)),
                (
                    "texture",
                    if q.texture == NO_TEXTURE {
                        Value::Null
                    } else {
                        Value::from(q.texture)
                    },
                ),
                ("color", Value::from(q.color.to_vec())),
            ])
        })
        .collect();
    obj([
        ("textures_id", Value::from(overlay.textures_id)),
        ("textures", Value::Array(textures)),
        ("quads", Value::Array(quads)),
    ])
}

/// (2.4) [`frame_json`] with the key `overlay` ([`overlay_json`]) added; every other key
/// is as [`frame_json`] writes it.
pub fn frame_overlay_json(frame: &RenderFrame, overlay: &Overlay) -> Value {
    let mut j = frame_json(frame);
    if let Value::Object(m) = &mut j {
        m.insert("overlay".to_owned(), overlay_json(overlay));
        // Keep the keys sorted whether or not `preserve_order` is unified in.
        m.sort_keys();
    }
    j
}

/// A JSON value pretty-printed (two-space indent, trailing newline).
fn pretty(value: &Value) -> String {
    let mut s =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// [`frame_json`] as a pretty-printed string (two-space indent, trailing newline).
pub fn frame_json_pretty(frame: &RenderFrame) -> String {
    pretty(&frame_json(frame))
}

/// (2.8) The world the host hands a renderer before a frame, as JSON (see the crate docs).
pub fn world_json(world: &RenderWorld) -> Value {
    let objects = world
        .objects
        .iter()
        .map(|o| {
            let q = o.orientation;
            obj([
                ("id", Value::from(o.id)),
                ("position", vec3(&o.position)),
                ("orientation", nums(&[q.x, q.y, q.z, q.w])),
                ("scale", vec3(&o.scale)),
                (
                    "clan_id",
                    o.clan_id.into_option().map_or(Value::Null, Value::from),
                ),
                ("prototype", Value::from(world.prototype_of(o))),
                ("in_view", Value::from(o.in_view)),
            ])
        })
        .collect();
    obj([
        ("frame", Value::from(world.frame)),
        ("tick", Value::from(world.tick)),
        ("objects", Value::Array(objects)),
    ])
}

/// The name of an effect blend in [`effects_json`].
fn effect_blend_str(b: EffectBlend) -> &'static str {
    match b {
        EffectBlend::ADDITIVE => "additive",
        EffectBlend::ALPHA => "alpha",
        _ => "unknown",
    }
}

/// One run of primitives with the same instance, command, kind and blend.
struct Group {
    first: EffectPrimitive,
    count: usize,
    min: [f32; 3],
    max: [f32; 3],
}

impl Group {
    fn new(p: &EffectPrimitive) -> Self {
        let at = [p.position.x, p.position.y, p.position.z];
        // NaN seeds are replaced by the first finite value (`f32::min` ignores NaN).
        let seed = at.map(|v| if v.is_finite() { v } else { f32::NAN });
        Self {
            first: *p,
            count: 1,
            min: seed,
            max: seed,
        }
    }

    fn same_run(&self, p: &EffectPrimitive) -> bool {
        let f = &self.first;
        (f.instance, f.command, f.kind, f.blend) == (p.instance, p.command, p.kind, p.blend)
    }

    fn add(&mut self, p: &EffectPrimitive) {
        self.count += 1;
        let at = [p.position.x, p.position.y, p.position.z];
        for ((lo, hi), v) in self.min.iter_mut().zip(self.max.iter_mut()).zip(at) {
            if v.is_finite() {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
    }

    fn json(&self, textures: &[abi_stable::std_types::RString]) -> Value {
        let f = &self.first;
        let texture = textures
            .get(f.texture as usize)
            .map_or(Value::Null, |t| Value::from(t.as_str()));
        obj([
            ("instance", Value::from(f.instance)),
            ("command", Value::from(f.command)),
            ("kind", Value::from(f.kind.as_str())),
            ("blend", Value::from(effect_blend_str(f.blend))),
            ("count", Value::from(self.count)),
            ("texture", texture),
            ("first", vec3(&f.position)),
            ("min", nums(&self.min)),
            ("max", nums(&self.max)),
        ])
    }
}

/// (2.11) The effect primitives handed over for a frame, as JSON (see the crate docs):
/// `frame`, `tick`, `instances`, `primitives` and `groups`.
pub fn effects_json(effects: &EffectFrame) -> Value {
    let mut groups: Vec<Group> = Vec::new();
    for p in effects.primitives.iter() {
        match groups.last_mut() {
            Some(g) if g.same_run(p) => g.add(p),
            _ => groups.push(Group::new(p)),
        }
    }
    obj([
        ("frame", Value::from(effects.frame)),
        ("tick", Value::from(effects.tick)),
        ("instances", Value::from(effects.instances)),
        ("primitives", Value::from(effects.primitives.len())),
        (
            "groups",
            Value::Array(groups.iter().map(|g| g.json(&effects.textures)).collect()),
        ),
    ])
}

/// (2.4) [`frame_overlay_json`] as a pretty-printed string (as [`frame_json_pretty`]).
pub fn frame_overlay_json_pretty(frame: &RenderFrame, overlay: &Overlay) -> String {
    pretty(&frame_overlay_json(frame, overlay))
}

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-render-capture",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of(FACTORY, SlotKind::Render)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != FACTORY {
        return Err(PluginError::no_factory("iron3d-render-capture", factory));
    }
    Ok(Box::new(RendererPlugin::new(
        CaptureRender::new(),
        STATE_FORMAT,
    )))
}

iron3d_abi::export_plugin!(describe = describe, create = create);

/// The `render-capture` plugin instance: keeps the last drawn frame, with the 2.4 screen
/// overlay when it was drawn with one and the 2.8 world and 2.11 effects handed over for
/// it; its JSON is written when it is asked for (once per frame), not at every frame —
/// a frame's JSON of a 10,000-object world costs tens of milliseconds.
#[derive(Default)]
pub struct CaptureRender {
    last: Option<Recorded>,
    /// The world handed over for the next frame (2.8).
    world: Option<RenderWorld>,
    /// The effects handed over for the next frame (2.11).
    effects: Option<EffectFrame>,
}

/// A drawn frame and what was handed over for it; its JSON once asked for.
struct Recorded {
    frame: RenderFrame,
    overlay: Option<Overlay>,
    world: Option<RenderWorld>,
    effects: Option<EffectFrame>,
    json: std::sync::OnceLock<String>,
}

impl Recorded {
    /// The frame's JSON: [`frame_json`] (or [`frame_overlay_json`]) with `world` and
    /// `effects` keys when they were handed over, pretty-printed.
    fn json(&self) -> &str {
        self.json.get_or_init(|| {
            let mut frame = match &self.overlay {
                Some(o) => frame_overlay_json(&self.frame, o),
                None => frame_json(&self.frame),
            };
            if let (Some(world), Value::Object(m)) = (&self.world, &mut frame) {
                m.insert("world".to_owned(), world_json(world));
            }
            if let (Some(effects), Value::Object(m)) = (&self.effects, &mut frame) {
                m.insert("effects".to_owned(), effects_json(effects));
                // Keep the keys sorted whether or not `preserve_order` is unified in.
                m.sort_keys();
            }
            pretty(&frame)
        })
    }
}

impl CaptureRender {
    /// An instance that has drawn nothing yet.
    pub fn new() -> Self {
        Self {
            last: None,
            world: None,
            effects: None,
        }
    }

    /// Keeps `frame` with the world and the effects handed over for it, if any (once).
    fn record(&mut self, frame: &RenderFrame, overlay: Option<&Overlay>) {
        self.last = Some(Recorded {
            frame: frame.clone(),
            overlay: overlay.cloned(),
            world: self.world.take(),
            effects: self.effects.take(),
            json: std::sync::OnceLock::new(),
        });
    }

    /// The last frame's JSON, if a frame was drawn.
    pub fn last_commands(&self) -> Option<&str> {
        self.last.as_ref().map(Recorded::json)
    }
}

/// The stats of a recorded frame: every item "drawn", the visible objects seen.
fn stats(frame: &RenderFrame) -> RenderStats {
    RenderStats {
        draw_items: frame.items.len() as u32,
        objects: frame.visible.len() as u32,
    }
}

impl Renderer for CaptureRender {
    fn capture(&mut self) -> Result<ImageRgba8, PluginError> {
        Err(PluginError::new(ErrorKind::UNSUPPORTED, NO_PIXELS))
    }

    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        self.record(frame, None);
        Ok(stats(frame))
    }

    /// (2.4) Records the frame's commands with its overlay listed ([`frame_overlay_json`]).
    fn draw_with_overlay(
        &mut self,
        frame: &RenderFrame,
        overlay: &Overlay,
    ) -> Result<RenderStats, PluginError> {
        self.record(frame, Some(overlay));
        Ok(stats(frame))
    }

    /// (2.8) Keeps the world for the next frame's JSON.
    fn world(&mut self, world: &RenderWorld) -> Result<(), PluginError> {
        self.world = Some(world.clone());
        Ok(())
    }

    /// (2.11) Keeps the effects for the next frame's JSON ([`effects_json`]).
    fn effects(&mut self, effects: &EffectFrame) -> Result<(), PluginError> {
        self.effects = Some(effects.clone());
        Ok(())
    }

    fn capture_commands(&mut self) -> Result<String, PluginError> {
        self.last_commands()
            .map(str::to_owned)
            .ok_or_else(|| PluginError::failed("render-capture has not drawn a frame yet"))
    }
}
