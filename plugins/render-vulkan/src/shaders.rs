//! The WGSL shaders of the backend and their compilation to SPIR-V with naga (no
//! shaderc): the 3D module with the vertex entry `vs_main` and the fragment entry
//! `fs_main`, the (2.4) screen-overlay module with `vs_overlay` and `fs_overlay`, and the
//! (2.11) effects module with `vs_effect` and `fs_effect`.

use crate::RenderError;

/// Shader source. Push constants (128 bytes, both stages): `mvp` = `(P·V)·W`; `n0..n2` =
/// the columns of `mat3(W)` with the stage-0 op, stage-1 op and alpha reference in their
/// `w` (ops: 0 off, 1 select, 2 modulate; reference < 0: no alpha test); `uv_scale` =
/// stage 0 in `xy`, stage 1 in `zw`.
pub const WGSL: &str = r#"
struct Frame {
    sun_dir: vec4<f32>,
    sun_colour: vec4<f32>,
    ambient: vec4<f32>,
};

struct Push {
    mvp: mat4x4<f32>,
    n0: vec4<f32>,
    n1: vec4<f32>,
    n2: vec4<f32>,
    uv_scale: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var tex0: texture_2d<f32>;
@group(1) @binding(1) var tex1: texture_2d<f32>;
var<immediate> pc: Push;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) light: vec3<f32>,
};

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
) -> VsOut {
    var out: VsOut;
    let clip = pc.mvp * vec4<f32>(position, 1.0);
    // Direct3D clip space has +y up, Vulkan's +y down: flip so row 0 is the top.
    out.pos = vec4<f32>(clip.x, -clip.y, clip.z, clip.w);
    let nw = pc.n0.xyz * normal.x + pc.n1.xyz * normal.y + pc.n2.xyz * normal.z;
    let len = sqrt(nw.x * nw.x + nw.y * nw.y + nw.z * nw.z);
    var d = 0.0;
    if (len > 0.0 && len < 3.0e38) {
        let n = nw / len;
        d = max(0.0, n.x * frame.sun_dir.x + n.y * frame.sun_dir.y + n.z * frame.sun_dir.z);
    }
    out.light = clamp(frame.ambient.xyz + frame.sun_colour.xyz * d, vec3<f32>(0.0), vec3<f32>(1.0));
    out.uv = uv;
    return out;
}

fn fetch0(uv: vec2<f32>) -> vec4<f32> {
    let size = textureDimensions(tex0, 0);
    let f = uv - floor(uv);
    let c = min(vec2<u32>(floor(f * vec2<f32>(size))), size - vec2<u32>(1u));
    return textureLoad(tex0, vec2<i32>(c), 0);
}

fn fetch1(uv: vec2<f32>) -> vec4<f32> {
    let size = textureDimensions(tex1, 0);
    let f = uv - floor(uv);
    let c = min(vec2<u32>(floor(f * vec2<f32>(size))), size - vec2<u32>(1u));
    return textureLoad(tex1, vec2<i32>(c), 0);
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    var c = vec4<f32>(in.light, 1.0);
    let op0 = pc.n0.w;
    let op1 = pc.n1.w;
    if (op0 == 1.0) {
        c = fetch0(in.uv * pc.uv_scale.xy);
    } else if (op0 == 2.0) {
        let t = fetch0(in.uv * pc.uv_scale.xy);
        c = vec4<f32>(t.xyz * in.light, t.w);
    }
    if (op1 == 1.0) {
        let t = fetch1(in.uv * pc.uv_scale.zw);
        c = vec4<f32>(t.xyz, c.w);
    } else if (op1 == 2.0) {
        let t = fetch1(in.uv * pc.uv_scale.zw);
        c = vec4<f32>(c.xyz * t.xyz, c.w);
    }
    if (pc.n2.w >= 0.0 && floor(c.w * 255.0 + 0.5) < pc.n2.w) {
        discard;
    }
    return c;
}
"#;

/// (2.4) Screen-overlay shader source. Vertex input: the position already in Vulkan
/// clip space (`x, y ∈ [−1, 1]`, y down, converted from target pixels on the CPU), the
/// texture coordinate, and the quad's RGBA8 colour (`R8G8B8A8_UNORM`, flat). Set 0 holds
/// the quad's texture (binding 0; a 1×1 white one for a solid quad) and a NEAREST,
/// CLAMP_TO_EDGE sampler (binding 1). The fragment is `colour × texel` rounded to a byte
/// per channel, as the reference ([`iron3d_abi::overlay::composite`]) computes it; the
/// fixed-function blend does the rest.
pub const OVERLAY_WGSL: &str = r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) @interpolate(flat) colour: vec4<f32>,
};

@vertex
fn vs_overlay(
    @location(0) position: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) colour: vec4<f32>,
) -> VsOut {
    var out: VsOut;
    out.pos = vec4<f32>(position, 0.0, 1.0);
    out.uv = uv;
    out.colour = colour;
    return out;
}

@fragment
fn fs_overlay(in: VsOut) -> @location(0) vec4<f32> {
    let t = textureSampleLevel(tex, samp, in.uv, 0.0);
    // colour × texel / 255 per channel, rounded to the nearest byte.
    return floor(in.colour * t * 255.0 + vec4<f32>(0.5)) / 255.0;
}
"#;

/// (2.11) Effects shader source. Vertex input: the clip-space position (Direct3D clip
/// space, computed on the CPU; the shader flips y as the 3D shader does), the colour with
/// the primitive's opacity in `w` (the same on every vertex, flat), the sprite
/// coordinates (−1..1 across the quad), 1 for an additive primitive (flat) and 1 for a
/// textured one (flat; its texture is set 0, binding 0). Untextured, `a = opacity ·
/// max(0, 1 − (u² + v²))` and the colour is the primitive's; textured
/// (PD-RENDER-EFFECT-TEXTURES), the texel of `iron3d_abi::effects::sprite_texel` (column
/// `⌊(u + 1)/2 · width⌋`, row `⌊(1 − v)/2 · height⌋`, clamped) gives colour × texel and
/// `a = opacity · texel alpha`. A fragment with `a ≤ 0` is discarded; the rest is
/// premultiplied: `(rgb · a, a)`, or `(rgb · a, 0)` for an additive primitive; the
/// pipeline's blend (`One`, `OneMinusSrcAlpha`) does the rest.
pub const EFFECTS_WGSL: &str = r#"
@group(0) @binding(0) var sprite_tex: texture_2d<f32>;

struct VsOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) @interpolate(flat) colour: vec4<f32>,
    @location(1) sprite: vec2<f32>,
    @location(2) @interpolate(flat) additive: f32,
    @location(3) @interpolate(flat) textured: f32,
};

@vertex
fn vs_effect(
    @location(0) clip: vec4<f32>,
    @location(1) colour: vec4<f32>,
    @location(2) sprite: vec2<f32>,
    @location(3) additive: f32,
    @location(4) textured: f32,
) -> VsOut {
    var out: VsOut;
    out.pos = vec4<f32>(clip.x, -clip.y, clip.z, clip.w);
    out.colour = colour;
    out.sprite = sprite;
    out.additive = additive;
    out.textured = textured;
    return out;
}

@fragment
fn fs_effect(in: VsOut) -> @location(0) vec4<f32> {
    let s = in.sprite;
    var rgb = in.colour.xyz;
    var a = in.colour.w * max(0.0, 1.0 - (s.x * s.x + s.y * s.y));
    if (in.textured > 0.5) {
        let size = vec2<f32>(textureDimensions(sprite_tex));
        let st = vec2<f32>((s.x + 1.0) * 0.5, (1.0 - s.y) * 0.5) * size;
        let texel = clamp(floor(max(st, vec2<f32>(0.0))), vec2<f32>(0.0), size - vec2<f32>(1.0));
        let t = textureLoad(sprite_tex, vec2<i32>(texel), 0);
        rgb = rgb * t.xyz;
        a = in.colour.w * t.w;
    }
    if (!(a > 0.0)) {
        discard;
    }
    var out_a = a;
    if (in.additive > 0.5) {
        out_a = 0.0;
    }
    return vec4<f32>(rgb * a, out_a);
}
"#;

/// Compiles WGSL `source` to SPIR-V words (coordinate space left as written, debug names
/// kept).
fn compile(source: &str) -> Result<Vec<u32>, RenderError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| RenderError::Shader(e.emit_to_string(source)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::IMMEDIATES,
    )
    .validate(&module)
    .map_err(|e| RenderError::Shader(format!("{:?}", e.into_inner())))?;
    let mut options = naga::back::spv::Options::default();
    options
        .flags
        .remove(naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE);
    options.flags.insert(naga::back::spv::WriterFlags::DEBUG);
    naga::back::spv::write_vec(&module, &info, &options, None)
        .map_err(|e| RenderError::Shader(e.to_string()))
}

/// Compiles [`WGSL`] to SPIR-V words (coordinate space left as written, debug names kept).
pub fn spirv() -> Result<Vec<u32>, RenderError> {
    compile(WGSL)
}

/// (2.4) Compiles [`OVERLAY_WGSL`] to SPIR-V words (as [`spirv`]).
pub fn overlay_spirv() -> Result<Vec<u32>, RenderError> {
    compile(OVERLAY_WGSL)
}

/// (2.11) Compiles [`EFFECTS_WGSL`] to SPIR-V words (as [`spirv`]).
pub fn effects_spirv() -> Result<Vec<u32>, RenderError> {
    compile(EFFECTS_WGSL)
}
