//! Reference scenes and builders for renderer tests: hand-built [`RenderFrame`]s (meshes,
//! textures, draw items, cameras), a 2.4 screen [`Overlay`] and 2.11 effect primitives
//! that the software reference's own tests and other backends' comparison tests draw
//! alike.
//!
//! Compiled for this crate's tests, and for other crates with the cargo feature
//! `fixtures` (a dev-dependency enables it; the plugin's normal build leaves it out).
//! Every frame uses pixel-exact, deterministic data: no randomness, no files.

use abi_stable::std_types::{RArc, RNone, RVec};
use glam::Mat4;
use iron3d_abi::{
    BlendMode, Camera, CullMode, DepthMode, DrawItem, EffectBlend, EffectPrimitive,
    LegacyRenderState, Lighting, Mat4f, MeshResource, NO_EFFECT_TEXTURE, NO_TEXTURE, Overlay,
    OverlayQuad, PrimitiveKind, RenderFrame, RenderPhase, RenderResources, RenderTarget,
    TextureKind, TextureLevel, TextureOp, TextureResource, TextureStage, Vec3f, VertexFormat,
};

use crate::SoftRasterizer;

/// Opaque red.
pub const RED: [u8; 4] = [255, 0, 0, 255];

/// Opaque green.
pub const GREEN: [u8; 4] = [0, 255, 0, 255];

/// Vertical field of view of [`perspective`], radians.
pub const FOV_Y: f32 = 1.2;

/// Untextured, opaque, depth test and write on, no culling.
pub fn state() -> LegacyRenderState {
    LegacyRenderState {
        stages: [TextureStage::OFF, TextureStage::OFF],
        blend: BlendMode::Opaque,
        depth: DepthMode {
            test: true,
            write: true,
        },
        cull: CullMode::None,
        alpha_test: false,
        alpha_ref: 0,
        vertex_format: VertexFormat::PositionNormalUv,
    }
}

/// [`state`] with stage 0 selecting `texture` (uv scale 1).
pub fn select(texture: u32) -> LegacyRenderState {
    let mut s = state();
    s.stages[0] = TextureStage {
        texture,
        op: TextureOp::SelectTexture,
        uv_scale: [1.0, 1.0],
    };
    s
}

/// [`state`] with additive blending and the depth buffer off (test and write).
pub fn additive() -> LegacyRenderState {
    let mut s = state();
    s.blend = BlendMode::Additive;
    s.depth = DepthMode {
        test: false,
        write: false,
    };
    s
}

/// A mesh named `test` with normals `(0, 0, 1)`.
pub fn mesh(positions: &[[f32; 3]], uvs: &[[f32; 2]], indices: &[u16]) -> MeshResource {
    MeshResource {
        name: "test".into(),
        positions: positions.to_vec().into(),
        normals: vec![[0.0, 0.0, 1.0]; positions.len()].into(),
        uvs: uvs.to_vec().into(),
        indices: indices.to_vec().into(),
    }
}

/// A mesh of triangles given as vertex triples (uv 0).
pub fn tris(positions: &[[f32; 3]]) -> MeshResource {
    let idx: Vec<u16> = (0..positions.len() as u16).collect();
    mesh(positions, &vec![[0.0, 0.0]; positions.len()], &idx)
}

/// An axis-aligned quad in pixel space at depth `z`, two triangles (uv 0..1).
pub fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32) -> MeshResource {
    mesh(
        &[[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]],
        &[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        &[0, 1, 2, 0, 2, 3],
    )
}

/// A 1×1 texture of one colour.
pub fn solid(rgba: [u8; 4]) -> TextureResource {
    texture(1, 1, rgba.to_vec())
}

/// A one-level diffuse texture named `tex` (RGBA8 rows, top first).
pub fn texture(width: u32, height: u32, rgba: Vec<u8>) -> TextureResource {
    TextureResource {
        name: "tex".into(),
        kind: TextureKind::Diffuse,
        skipped_levels: 0,
        levels: vec![TextureLevel {
            width,
            height,
            rgba: rgba.into(),
        }]
        .into(),
    }
}

/// An 8×8 texture whose texel (tx, ty) is (tx·32, ty·32, 0, 255).
pub fn coded_texture() -> TextureResource {
    let mut rgba = Vec::new();
    for ty in 0..8u8 {
        for tx in 0..8u8 {
            rgba.extend([tx * 32, ty * 32, 0, 255]);
        }
    }
    texture(8, 8, rgba)
}

/// An opaque-phase item drawing the first `index_count` indices of `mesh` (identity
/// world matrix, no material, insertion 0).
pub fn item(mesh: u32, index_count: u32, state: LegacyRenderState) -> DrawItem {
    DrawItem {
        object: 0,
        node: 0,
        slot: 0,
        mesh,
        batch_flags: 0,
        index_start: 0,
        index_count,
        base_vertex: 0,
        world: Mat4f::default(),
        material: u32::MAX,
        phase_a: 0,
        phase_b: 0,
        phase_t: 0.0,
        phase: RenderPhase::OpaqueModels,
        sort_key: 0,
        insertion: 0,
        state,
    }
}

/// Maps pixel coordinates (x right, y down, z = depth) straight to clip space.
pub fn pixel_projection(w: u32, h: u32) -> Mat4 {
    Mat4::from_cols_array(&[
        2.0 / w as f32,
        0.0,
        0.0,
        0.0,
        0.0,
        -2.0 / h as f32,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
        0.0,
        -1.0,
        1.0,
        0.0,
        1.0,
    ])
}

/// A left-handed perspective projection ([`FOV_Y`], near 1, far 100) for a `w`×`h` target.
pub fn perspective(w: u32, h: u32) -> Mat4 {
    Mat4::perspective_lh(FOV_Y, w as f32 / h as f32, 1.0, 100.0)
}

/// A frame of a `w`×`h` offscreen target (clear transparent black) with an identity view,
/// `projection`, a black sun along +z and ambient 0.2, and one resource set (id 1).
pub fn frame_with(
    w: u32,
    h: u32,
    projection: Mat4,
    meshes: Vec<MeshResource>,
    textures: Vec<TextureResource>,
    items: Vec<DrawItem>,
) -> RenderFrame {
    RenderFrame {
        frame: 1,
        tick: 1,
        time_ms: 0,
        camera: Camera {
            position: Vec3f::default(),
            yaw: 0.0,
            pitch: 0.0,
            fov: 1.0,
            near: 1.0,
            far: 100.0,
            view: Mat4f::default(),
            projection: projection.into(),
        },
        lighting: Lighting {
            sun_direction: Vec3f {
                x: 0.0,
                y: 0.0,
                z: 1.0,
            },
            sun_colour: [0.0; 3],
            ambient: [0.2, 0.2, 0.2],
        },
        target: RenderTarget {
            width: w,
            height: h,
            window: RNone,
            clear: [0, 0, 0, 0],
        },
        resources: RArc::new(RenderResources {
            id: 1,
            meshes: meshes.into(),
            textures: textures.into(),
        }),
        visible: Default::default(),
        skipped: Default::default(),
        nodes: Default::default(),
        items: items.into(),
    }
}

/// [`frame_with`] the [`pixel_projection`]: vertex positions are pixel coordinates.
pub fn pixel_frame(
    w: u32,
    h: u32,
    meshes: Vec<MeshResource>,
    textures: Vec<TextureResource>,
    items: Vec<DrawItem>,
) -> RenderFrame {
    frame_with(w, h, pixel_projection(w, h), meshes, textures, items)
}

/// A 16×16 frame with one untextured right triangle, legs of 8 px along the top and
/// left edges from the corner (0, 0), depth 0.5.
pub fn triangle_frame() -> RenderFrame {
    pixel_frame(
        16,
        16,
        vec![tris(&[[0.0, 0.0, 0.5], [8.0, 0.0, 0.5], [0.0, 8.0, 0.5]])],
        vec![],
        vec![item(0, 3, state())],
    )
}

/// An 8×8 frame with the [`additive`] square `(1, 1)–(7, 7)` split along its diagonal:
/// pixel centres lie on the shared edge.
pub fn shared_edge_frame() -> RenderFrame {
    pixel_frame(
        8,
        8,
        vec![quad(1.0, 1.0, 7.0, 7.0, 0.5)],
        vec![],
        vec![item(0, 6, additive())],
    )
}

/// Two full-target 4×4 quads at depths `first_z` (item 0, drawn with `first_state`) and
/// `second_z` (item 1, selecting texture 1); textures 0 and 1 are [`RED`] and [`GREEN`].
pub fn two_quads(first_z: f32, second_z: f32, first_state: LegacyRenderState) -> RenderFrame {
    let mut second = item(1, 6, select(1));
    second.insertion = 1;
    pixel_frame(
        4,
        4,
        vec![
            quad(0.0, 0.0, 4.0, 4.0, first_z),
            quad(0.0, 0.0, 4.0, 4.0, second_z),
        ],
        vec![solid(RED), solid(GREEN)],
        vec![item(0, 6, first_state), second],
    )
}

/// A floor quad `y = -1`, `x ∈ [-1, 1]`, `z ∈ [2, 10]` in view space, v = 0 near, 1 far,
/// textured with [`coded_texture`] under the [`perspective`] projection.
pub fn floor_frame(w: u32, h: u32) -> RenderFrame {
    let m = mesh(
        &[
            [-1.0, -1.0, 2.0],
            [1.0, -1.0, 2.0],
            [1.0, -1.0, 10.0],
            [-1.0, -1.0, 10.0],
        ],
        &[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]],
        &[0, 1, 2, 0, 2, 3],
    );
    frame_with(
        w,
        h,
        perspective(w, h),
        vec![m],
        vec![coded_texture()],
        vec![item(0, 6, select(0))],
    )
}

/// A 32×32-quad terrain grid (2,048 triangles) receding from the camera, textured with a
/// modulated diffuse and a lightmap, lit by a slanted sun, back faces culled.
pub fn bench_frame(w: u32, h: u32) -> RenderFrame {
    let n = 32usize;
    let mut pos = Vec::new();
    let mut uvs = Vec::new();
    let mut normals = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (x, z) = (
                i as f32 / n as f32 * 40.0 - 20.0,
                j as f32 / n as f32 * 60.0 + 1.5,
            );
            let y = -2.0 + ((i * 7 + j * 3) % 5) as f32 * 0.02;
            pos.push([x, y, z]);
            uvs.push([i as f32 / 4.0, j as f32 / 4.0]);
            normals.push([0.1, 1.0, -0.2]);
        }
    }
    let mut idx = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let a = (j * (n + 1) + i) as u16;
            let b = a + 1;
            let c = a + (n + 1) as u16;
            let d = c + 1;
            idx.extend([a, b, c, b, d, c]);
        }
    }
    let mut m = mesh(&pos, &uvs, &idx);
    m.normals = normals.into();
    let mut s = select(0);
    s.stages[0].op = TextureOp::Modulate;
    s.stages[1] = TextureStage {
        texture: 1,
        op: TextureOp::Modulate,
        uv_scale: [0.25, 0.25],
    };
    s.cull = CullMode::Back;
    let mut f = frame_with(
        w,
        h,
        perspective(w, h),
        vec![m],
        vec![coded_texture(), coded_texture()],
        vec![item(0, idx.len() as u32, s)],
    );
    f.lighting.sun_direction = Vec3f {
        x: 0.3,
        y: 0.9,
        z: 0.3,
    };
    f.lighting.sun_colour = [0.8, 0.8, 0.7];
    f
}

/// `frame` drawn by a fresh [`SoftRasterizer`]: the reference image.
pub fn draw(frame: &RenderFrame) -> SoftRasterizer {
    let mut r = SoftRasterizer::new();
    r.draw(frame);
    r
}

/// Target size the [`overlay`] fixture is laid out for (it draws on any size, clipped).
pub const OVERLAY_TARGET: (u32, u32) = (160, 120);

/// One RGBA8 overlay texture level of `w`×`h` texels, texel (x, y) = `px(x, y)`.
pub fn overlay_level(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> TextureLevel {
    let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        for x in 0..w {
            rgba.extend_from_slice(&px(x, y));
        }
    }
    TextureLevel {
        width: w,
        height: h,
        rgba: rgba.into(),
    }
}

/// A textured overlay quad (`texture` indexes [`Overlay::textures`]).
pub fn overlay_quad(rect: [f32; 4], uv: [f32; 4], texture: u32, color: [u8; 4]) -> OverlayQuad {
    OverlayQuad {
        rect,
        uv,
        texture,
        color,
    }
}

/// Indices of the [`overlay`] fixture's quads that are solid ([`NO_TEXTURE`]) and drawn.
pub const OVERLAY_SOLID_QUADS: [usize; 4] = [0, 1, 5, 8];

/// A HUD-like overlay for an [`OVERLAY_TARGET`] frame, with id `textures_id`: textures
/// 0 (8×8, texel (x, y) = (x·32, y·32, 128, 255 − x·20)), 1 (a 4×4 "glyph" of alpha
/// 0 / 255) and 2 (malformed: 3 bytes for 2×2). Quads, in order:
///
/// 0. an opaque solid panel `(4, 4)–(60, 20)`;
/// 1. a translucent solid over part of it `(40, 10)–(100, 50)`;
/// 2. texture 0 whole, 4 pixels per texel, at `(64, 56)–(96, 88)`;
/// 3. part of texture 0, colour-modulated and translucent, at `(100, 60)–(132, 76)`;
/// 4. texture 1, tinted, at `(8, 90)–(24, 106)`;
/// 5. a translucent solid with fractional edges `(10.5, 70.25)–(30.75, 80.5)`;
/// 6. a missing texture (index 7): skipped;
/// 7. the malformed texture 2: skipped;
/// 8. a solid reaching past the bottom-left corner of the target;
/// 9. a solid with a NaN edge: covers nothing;
/// 10. an inverted (empty) solid.
pub fn overlay(textures_id: u64) -> Overlay {
    let (_, h) = OVERLAY_TARGET;
    let h = h as f32;
    let coded = overlay_level(8, 8, |x, y| {
        [(x * 32) as u8, (y * 32) as u8, 128, 255 - (x * 20) as u8]
    });
    let glyph = overlay_level(4, 4, |x, y| {
        if (x + y) % 2 == 0 || x == 1 {
            [255; 4]
        } else {
            [255, 255, 255, 0]
        }
    });
    let broken = TextureLevel {
        width: 2,
        height: 2,
        rgba: vec![255u8; 3].into(),
    };
    let full = [0.0, 0.0, 1.0, 1.0];
    let quads = vec![
        OverlayQuad::solid([4.0, 4.0, 60.0, 20.0], [20, 40, 200, 255]),
        OverlayQuad::solid([40.0, 10.0, 100.0, 50.0], [255, 255, 0, 96]),
        overlay_quad([64.0, 56.0, 96.0, 88.0], full, 0, [255; 4]),
        overlay_quad(
            [100.0, 60.0, 132.0, 76.0],
            [0.25, 0.5, 0.75, 0.75],
            0,
            [200, 100, 255, 200],
        ),
        overlay_quad([8.0, 90.0, 24.0, 106.0], full, 1, [250, 200, 30, 255]),
        OverlayQuad::solid([10.5, 70.25, 30.75, 80.5], [0, 200, 100, 150]),
        overlay_quad([0.0, 0.0, 50.0, 50.0], full, 7, [255; 4]),
        overlay_quad([0.0, 0.0, 50.0, 50.0], full, 2, [255; 4]),
        OverlayQuad::solid([-20.0, h - 8.0, 30.0, h + 10.0], [90, 10, 10, 255]),
        OverlayQuad::solid([f32::NAN, 0.0, 10.0, 10.0], [255; 4]),
        OverlayQuad::solid([30.0, 30.0, 20.0, 20.0], [255; 4]),
    ];
    debug_assert!(
        OVERLAY_SOLID_QUADS
            .iter()
            .all(|&i| quads[i].texture == NO_TEXTURE)
    );
    Overlay {
        textures_id,
        textures: RArc::new(RVec::from(vec![coded, glyph, broken])),
        quads: quads.into(),
    }
}

/// `frame` drawn by a fresh [`SoftRasterizer`], then `overlay` composited over it: the
/// reference image of a frame with its overlay.
pub fn draw_with_overlay(frame: &RenderFrame, overlay: &Overlay) -> SoftRasterizer {
    let mut r = draw(frame);
    r.composite_overlay(overlay);
    r
}

// ---------------------------------------------------------------- effects (2.11)

/// Size of the [`effects_frame`] target: odd, so the view axis hits a pixel centre.
pub const EFFECTS_TARGET: (u32, u32) = (65, 49);

/// Clear colour of the [`effects_frame`].
pub const EFFECTS_CLEAR: [u8; 4] = [10, 10, 10, 255];

/// An [`EFFECTS_TARGET`] frame under the [`perspective`] projection (identity view: the
/// camera at the origin looking along +z, y up), cleared to [`EFFECTS_CLEAR`], with the
/// given world `meshes` drawn as opaque untextured items (ambient 0.2: grey 51).
pub fn effects_frame(meshes: Vec<MeshResource>) -> RenderFrame {
    let (w, h) = EFFECTS_TARGET;
    let items = (0..meshes.len() as u32)
        .map(|m| {
            let mut it = item(m, 6, state());
            it.insertion = m;
            it
        })
        .collect();
    let mut f = frame_with(w, h, perspective(w, h), meshes, vec![], items);
    f.target.clear = EFFECTS_CLEAR;
    f
}

/// An [`effects_frame`] without world meshes whose resources also hold `texture` under
/// `name` (an effect sprite texture, PD-RENDER-EFFECT-TEXTURES).
pub fn effects_frame_with_sprite(name: &str, mut texture: TextureResource) -> RenderFrame {
    let mut f = effects_frame(vec![]);
    texture.name = name.into();
    let mut resources = (*f.resources).clone();
    resources.textures.push(texture);
    f.resources = RArc::new(resources);
    f
}

/// A point `(x, y, z)`.
pub fn v3(x: f32, y: f32, z: f32) -> Vec3f {
    Vec3f { x, y, z }
}

/// A primitive of `kind` at `position`, `size` wide and tall, unrotated, with the soft
/// sprite (instance 1, command 0; `end` = `position`).
pub fn effect(
    kind: PrimitiveKind,
    blend: EffectBlend,
    position: Vec3f,
    size: f32,
    colour: [f32; 4],
) -> EffectPrimitive {
    EffectPrimitive {
        instance: 1,
        command: 0,
        kind,
        blend,
        position,
        end: position,
        size,
        height: size,
        rotation: 0.0,
        colour,
        texture: NO_EFFECT_TEXTURE,
    }
}

/// A streak from `from` to `to`, `size` wide (instance 1, command 0).
pub fn streak(
    blend: EffectBlend,
    from: Vec3f,
    to: Vec3f,
    size: f32,
    colour: [f32; 4],
) -> EffectPrimitive {
    EffectPrimitive {
        end: to,
        ..effect(PrimitiveKind::STREAK, blend, from, size, colour)
    }
}

/// `frame` drawn by a fresh [`SoftRasterizer`], then `primitives` over it: the reference
/// image of a frame with its effects.
pub fn draw_with_effects(frame: &RenderFrame, primitives: &[EffectPrimitive]) -> SoftRasterizer {
    let mut r = draw(frame);
    r.draw_effects(&frame.camera, primitives);
    r
}
