//! Pixel tests of the reference rasterizer on hand-built frames, plus the plugin wrapper.

use super::*;
use crate::fixtures::*;
use abi_stable::std_types::RArc;
use glam::{Mat4, Vec3};
use iron3d_abi::{BlendMode, CullMode, LegacyRenderState, NO_TEXTURE, TextureOp, TextureStage};
use iron3d_abi::{Plugin, Renderer};

// ---------------------------------------------------------------- pixel helpers
// (the frame builders are in `crate::fixtures`, shared with other backends' tests)

fn px(r: &SoftRasterizer, x: u32, y: u32) -> [u8; 4] {
    let o = ((y * r.width() + x) * 4) as usize;
    r.pixels()[o..o + 4].try_into().expect("4 bytes")
}

fn unorm(b: u8) -> f32 {
    f32::from(b) / 255.0
}

fn byte(c: f32) -> u8 {
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

// ---------------------------------------------------------------- coverage

#[test]
fn known_triangle_covers_exactly_the_expected_pixels() {
    // Right triangle with legs of 8 px: centres strictly inside x + y < 8; the
    // hypotenuse is a right edge, so centres on it (px + py + 1 == 8) are excluded.
    let r = draw(&triangle_frame());
    let mut count = 0;
    for y in 0..16 {
        for x in 0..16 {
            let lit = px(&r, x, y)[0] != 0;
            assert_eq!(lit, x + y <= 6, "pixel {x},{y}");
            count += u32::from(lit);
        }
    }
    assert_eq!(count, 28);
    assert_eq!(r.counters().fragments, 28);
    // Gouraud light with sun colour 0 = ambient.
    assert_eq!(px(&r, 1, 1), [51, 51, 51, 255]);
}

#[test]
fn shared_edges_cover_every_pixel_exactly_once() {
    // A square split along its diagonal (pixel centres lie on the shared edge).
    let r = draw(&shared_edge_frame());
    for y in 0..8 {
        for x in 0..8 {
            let inside = (1..7).contains(&x) && (1..7).contains(&y);
            assert_eq!(px(&r, x, y)[0], if inside { 51 } else { 0 }, "{x},{y}");
        }
    }
    assert_eq!(r.counters().fragments, 36);

    // A fan of 12 triangles around an off-grid centre, with fractional vertices: no pixel
    // twice, and every pixel whose centre is well inside the polygon exactly once.
    let (cx, cy, rad) = (16.3f32, 15.7f32, 12.0f32);
    let ring: Vec<[f32; 3]> = (0..12)
        .map(|i| {
            let a = i as f32 * std::f32::consts::TAU / 12.0 + 0.1;
            [cx + rad * a.cos(), cy + rad * a.sin(), 0.5]
        })
        .collect();
    let mut pos = Vec::new();
    for i in 0..12 {
        pos.extend([[cx, cy, 0.5], ring[i], ring[(i + 1) % 12]]);
    }
    let f = pixel_frame(
        32,
        32,
        vec![tris(&pos)],
        vec![],
        vec![item(0, 36, additive())],
    );
    let r = draw(&f);
    let mut once = 0u64;
    for y in 0..32 {
        for x in 0..32 {
            let v = px(&r, x, y)[0];
            assert!(v == 0 || v == 51, "pixel {x},{y} written twice ({v})");
            let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
            if d < rad * (std::f32::consts::PI / 12.0).cos() - 0.5 {
                assert_eq!(v, 51, "gap at {x},{y}");
            }
            once += u64::from(v == 51);
        }
    }
    assert_eq!(once, r.counters().fragments);
}

// ---------------------------------------------------------------- depth, alpha, blend

#[test]
fn depth_test_keeps_the_nearer_surface_in_both_orders() {
    // Red near (0.3) then green far (0.6): red stays.
    let r = draw(&two_quads(0.3, 0.6, select(0)));
    assert_eq!(px(&r, 2, 2), RED);
    assert_eq!(r.depth()[10], 0.3);
    // Red far then green near: green wins.
    let r = draw(&two_quads(0.6, 0.3, select(0)));
    assert_eq!(px(&r, 2, 2), GREEN);
    // Equal depth passes (`<=`): the later one wins.
    let r = draw(&two_quads(0.5, 0.5, select(0)));
    assert_eq!(px(&r, 2, 2), GREEN);
}

#[test]
fn depth_write_off_leaves_the_buffer_for_later_draws() {
    let mut near = select(0);
    near.depth.write = false;
    let r = draw(&two_quads(0.3, 0.6, near));
    assert_eq!(px(&r, 2, 2), GREEN);
    assert_eq!(r.depth()[5], 0.6);
    // Test off: drawn regardless of the stored depth.
    let mut f = two_quads(0.3, 0.6, select(0));
    f.items[1].state.depth.test = false;
    let r = draw(&f);
    assert_eq!(px(&r, 2, 2), GREEN);
}

#[test]
fn depth_outside_unit_range_is_discarded() {
    let f = pixel_frame(
        4,
        4,
        vec![quad(0.0, 0.0, 4.0, 4.0, 1.5)],
        vec![solid(RED)],
        vec![item(0, 6, select(0))],
    );
    let r = draw(&f);
    assert_eq!(px(&r, 1, 1), [0, 0, 0, 0]);
}

#[test]
fn alpha_test_discards_below_the_reference() {
    let run = |reference: u8| {
        let mut s = select(0);
        s.alpha_test = true;
        s.alpha_ref = reference;
        let f = pixel_frame(
            4,
            4,
            vec![quad(0.0, 0.0, 4.0, 4.0, 0.5)],
            vec![solid([10, 20, 30, 100])],
            vec![item(0, 6, s)],
        );
        draw(&f)
    };
    let r = run(101);
    assert_eq!(px(&r, 1, 1), [0, 0, 0, 0]);
    assert_eq!(r.depth()[5], 1.0, "a discarded fragment writes no depth");
    let r = run(100);
    assert_eq!(px(&r, 1, 1), [10, 20, 30, 100]);
    assert_eq!(r.depth()[5], 0.5);
}

fn blended(blend: BlendMode, clear: [u8; 4], src: [u8; 4]) -> [u8; 4] {
    let mut s = select(0);
    s.blend = blend;
    let mut f = pixel_frame(
        2,
        2,
        vec![quad(0.0, 0.0, 2.0, 2.0, 0.5)],
        vec![solid(src)],
        vec![item(0, 6, s)],
    );
    f.target.clear = clear;
    px(&draw(&f), 0, 0)
}

#[test]
fn alpha_blend_matches_the_formula_on_one_pixel() {
    let (dst, src) = ([0, 40, 255, 200], [255, 100, 0, 128]);
    let a = unorm(src[3]);
    let expect: [u8; 4] = [
        byte(unorm(src[0]) * a + unorm(dst[0]) * (1.0 - a)),
        byte(unorm(src[1]) * a + unorm(dst[1]) * (1.0 - a)),
        byte(unorm(src[2]) * a + unorm(dst[2]) * (1.0 - a)),
        byte(a + unorm(dst[3]) * (1.0 - a)),
    ];
    assert_eq!(expect, [128, 70, 127, 228]);
    assert_eq!(blended(BlendMode::AlphaBlend, dst, src), expect);
    assert_eq!(blended(BlendMode::Opaque, dst, src), src);
}

#[test]
fn additive_blend_saturates_and_keeps_destination_alpha() {
    let (dst, src) = ([100, 250, 0, 50], [200, 100, 60, 128]);
    let a = unorm(src[3]);
    let expect: [u8; 4] = [
        byte((unorm(dst[0]) + unorm(src[0]) * a).min(1.0)),
        byte((unorm(dst[1]) + unorm(src[1]) * a).min(1.0)),
        byte((unorm(dst[2]) + unorm(src[2]) * a).min(1.0)),
        50,
    ];
    assert_eq!(expect, [200, 255, 30, 50]);
    assert_eq!(blended(BlendMode::Additive, dst, src), expect);
}

// ---------------------------------------------------------------- culling

#[test]
fn back_face_culling_removes_clockwise_triangles_in_ndc() {
    // Pixel space has y down: (0,0) → (4,0) → (0,4) is clockwise in NDC (+y up).
    let cw = [[0.0, 0.0, 0.5], [4.0, 0.0, 0.5], [0.0, 4.0, 0.5]];
    let ccw = [[0.0, 0.0, 0.5], [0.0, 4.0, 0.5], [4.0, 0.0, 0.5]];
    let run = |p: [[f32; 3]; 3], cull: CullMode| {
        let mut s = state();
        s.cull = cull;
        draw(&pixel_frame(
            4,
            4,
            vec![tris(&p)],
            vec![],
            vec![item(0, 3, s)],
        ))
    };
    let r = run(cw, CullMode::Back);
    assert_eq!(r.counters().fragments, 0);
    assert_eq!(r.counters().culled, 1);
    assert_eq!(run(ccw, CullMode::Back).counters().fragments, 6);
    assert_eq!(run(cw, CullMode::None).counters().fragments, 6);
    assert_eq!(run(ccw, CullMode::None).counters().fragments, 6);
}

// ---------------------------------------------------------------- perspective

#[test]
fn texturing_is_perspective_correct() {
    let (w, h) = (64u32, 64u32);
    let r = draw(&floor_frame(w, h));
    let tan = (FOV_Y / 2.0).tan();
    let proj = perspective(w, h);
    let screen_y = |z: f32| {
        let c = proj * glam::Vec4::new(0.0, -1.0, z, 1.0);
        (0.5 - c.y / c.w * 0.5) * h as f32
    };
    let (near_y, far_y) = (screen_y(2.0), screen_y(10.0));
    let (mut checked, mut differs_from_affine) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let ndc_x = (x as f32 + 0.5) / w as f32 * 2.0 - 1.0;
            let ndc_y = 1.0 - (y as f32 + 0.5) / h as f32 * 2.0;
            let dir = Vec3::new(ndc_x * tan, ndc_y * tan, 1.0);
            if dir.y >= 0.0 {
                continue;
            }
            let z = -1.0 / dir.y;
            let hit_x = dir.x * z;
            if !(2.05..9.95).contains(&z) || hit_x.abs() > 0.95 {
                continue;
            }
            let v = (z - 2.0) / 8.0 * 8.0;
            let u = (hit_x + 1.0) / 2.0 * 8.0;
            // Skip centres within a hair of a texel boundary.
            if (v - v.round()).abs() < 0.02 || (u - u.round()).abs() < 0.02 {
                continue;
            }
            let got = px(&r, x, y);
            assert_eq!(
                [got[0] / 32, got[1] / 32],
                [u.floor() as u8, v.floor() as u8],
                "pixel {x},{y}"
            );
            checked += 1;
            let affine_v = (y as f32 + 0.5 - near_y) / (far_y - near_y) * 8.0;
            if affine_v.floor() != v.floor() {
                differs_from_affine += 1;
            }
        }
    }
    assert!(checked > 300, "only {checked} pixels checked");
    assert!(
        differs_from_affine > 50,
        "affine would agree almost everywhere ({differs_from_affine})"
    );
}

#[test]
fn lightmap_stage_modulates_without_touching_stage_zero() {
    let diffuse = [200, 100, 50, 180];
    let lightmap = [128, 255, 64, 255];
    // A 2×2 quad drawn with `s`; texture 0 is the diffuse, texture 1 the lightmap.
    let drawn = |s: LegacyRenderState| {
        draw(&pixel_frame(
            2,
            2,
            vec![quad(0.0, 0.0, 2.0, 2.0, 0.5)],
            vec![solid(diffuse), solid(lightmap)],
            vec![item(0, 6, s)],
        ))
    };
    // Stage 0 `op` on texture 0, stage 1 modulating by texture 1 at `uv_scale`.
    let lightmapped = |op: TextureOp, uv_scale: f32| {
        let mut s = select(0);
        s.stages[0].op = op;
        s.stages[1] = TextureStage {
            texture: 1,
            op: TextureOp::Modulate,
            uv_scale: [uv_scale, uv_scale],
        };
        s
    };
    let expect = [
        byte(unorm(200) * unorm(128)),
        byte(unorm(100) * unorm(255)),
        byte(unorm(50) * unorm(64)),
        180,
    ];
    assert_eq!(
        px(&drawn(lightmapped(TextureOp::SelectTexture, 4.0)), 0, 0),
        expect
    );
    // Stage 1 off: exactly the diffuse texel.
    assert_eq!(px(&drawn(select(0)), 0, 0), diffuse);
    // Stage 0 Modulate with light (ambient 0.2) then lightmap.
    let expect = [
        byte(unorm(200) * 0.2 * unorm(128)),
        byte(unorm(100) * 0.2 * unorm(255)),
        byte(unorm(50) * 0.2 * unorm(64)),
        180,
    ];
    assert_eq!(
        px(&drawn(lightmapped(TextureOp::Modulate, 1.0)), 1, 1),
        expect
    );
}

#[test]
fn no_texture_stage_is_disabled() {
    let mut s = select(NO_TEXTURE);
    s.stages[1] = TextureStage {
        texture: NO_TEXTURE,
        op: TextureOp::Modulate,
        uv_scale: [1.0, 1.0],
    };
    let f = pixel_frame(
        2,
        2,
        vec![quad(0.0, 0.0, 2.0, 2.0, 0.5)],
        vec![],
        vec![item(0, 6, s)],
    );
    assert_eq!(px(&draw(&f), 0, 0), [51, 51, 51, 255]);
}

#[test]
fn texel_wrap_uses_fract_and_uv_scale() {
    // 2×1 texture: u·scale = 1.25 → fract 0.25 → texel 0; 1.75 → texel 1; negative wraps.
    let tex = texture(2, 1, vec![255, 0, 0, 255, 0, 255, 0, 255]);
    let run = |u: f32, scale: f32| {
        let mut s = select(0);
        s.stages[0].uv_scale = [scale, 1.0];
        let m = mesh(
            &[
                [0.0, 0.0, 0.5],
                [2.0, 0.0, 0.5],
                [2.0, 2.0, 0.5],
                [0.0, 2.0, 0.5],
            ],
            &[[u, 0.0]; 4],
            &[0, 1, 2, 0, 2, 3],
        );
        px(
            &draw(&pixel_frame(
                2,
                2,
                vec![m],
                vec![tex.clone()],
                vec![item(0, 6, s)],
            )),
            0,
            0,
        )
    };
    assert_eq!(run(1.25, 1.0), RED);
    assert_eq!(run(1.75, 1.0), GREEN);
    assert_eq!(run(0.375, 2.0), GREEN);
    assert_eq!(run(-0.25, 1.0), GREEN);
    assert_eq!(
        run(-1e-9, 1.0),
        GREEN,
        "fract rounding to 1.0 clamps to the last texel"
    );
}

#[test]
fn lighting_follows_the_sun_per_vertex() {
    let mut f = pixel_frame(
        2,
        2,
        vec![quad(0.0, 0.0, 2.0, 2.0, 0.5)],
        vec![],
        vec![item(0, 6, state())],
    );
    f.lighting.sun_colour = [0.5, 1.0, 0.25];
    f.lighting.ambient = [0.1, 0.2, 0.3];
    // Normals (0,0,1), sun (0,0,1): full diffuse.
    assert_eq!(px(&draw(&f), 0, 0), [byte(0.6), byte(1.0), byte(0.55), 255]);
    // A world matrix scaling the normal: it is normalised again, same result.
    let mut g = pixel_frame(
        2,
        2,
        vec![quad(0.0, 0.0, 2.0, 2.0, 0.1)],
        vec![],
        vec![item(0, 6, state())],
    );
    g.lighting = f.lighting;
    g.items[0].world = Mat4::from_scale(Vec3::new(1.0, 1.0, 3.0)).into();
    assert_eq!(px(&draw(&g), 0, 0), [byte(0.6), byte(1.0), byte(0.55), 255]);
    // Zero normals: ambient only.
    let mut g = f.clone();
    let mut res = (*g.resources).clone();
    res.meshes[0].normals = vec![[0.0; 3]; 4].into();
    g.resources = RArc::new(res);
    assert_eq!(px(&draw(&g), 0, 0), [byte(0.1), byte(0.2), byte(0.3), 255]);
}

// ---------------------------------------------------------------- clipping, bad data

#[test]
fn near_plane_clipping_draws_the_visible_part() {
    let (w, h) = (32u32, 32u32);
    // One untextured triangle given in view space, under the perspective projection.
    let drawn = |p: [[f32; 3]; 3]| {
        draw(&frame_with(
            w,
            h,
            perspective(w, h),
            vec![tris(&p)],
            vec![],
            vec![item(0, 3, state())],
        ))
    };
    // One vertex behind the eye (view z = -2), two in front.
    let r = drawn([[0.0, -1.0, -2.0], [-1.0, -1.0, 4.0], [1.0, -1.0, 4.0]]);
    let c = r.counters();
    assert_eq!(c.rejected, 0);
    assert!(c.rasterized >= 1, "{c:?}");
    assert!(c.fragments > 20, "{c:?}");
    // The visible part reaches the bottom edge of the screen (the near plane cut).
    assert_eq!(px(&r, w / 2, h - 1)[0], 51);
    assert!(r.depth().iter().all(|d| (0.0..=1.0).contains(d)));

    // Entirely behind the eye: trivially rejected.
    let r = drawn([[0.0, -0.5, -2.0], [-1.0, -0.5, -4.0], [1.0, -0.5, -4.0]]);
    assert_eq!(r.counters().rejected, 1);
    assert_eq!(r.counters().fragments, 0);

    // Huge triangle far outside x/y: guard band clipping, still covers the screen.
    let r = drawn([[-1e6, -1e6, 5.0], [1e6, -1e6, 5.0], [0.0, 1e6, 5.0]]);
    assert_eq!(r.counters().fragments, u64::from(w * h));
}

#[test]
fn out_of_range_data_is_counted_not_fatal() {
    let good = tris(&[[0.0, 0.0, 0.5], [4.0, 0.0, 0.5], [0.0, 4.0, 0.5]]);
    let mut bad_index = good.clone();
    bad_index.indices = vec![0u16, 1, 7, 0, 1, 2].into();
    let mut past_end = item(0, 6, state());
    past_end.index_start = 0; // second triangle would need indices 3..6 of 3
    let mut bad_texture = item(0, 3, select(9));
    bad_texture.insertion = 5;
    let mut broken_texture = texture(4, 4, vec![0; 3]);
    broken_texture.name = "short".into();
    let f = pixel_frame(
        4,
        4,
        vec![good, bad_index],
        vec![broken_texture],
        vec![
            item(7, 3, state()),   // no such mesh
            item(1, 6, state()),   // first triangle has index 7 > 2 vertices
            past_end,              // one triangle, then past the index buffer
            bad_texture,           // texture 9 does not exist
            item(0, 3, select(0)), // texture data too short
            item(0, 3, state()),   // fine
        ],
    );
    let mut r = SoftRasterizer::new();
    let stats = r.draw(&f);
    let c = r.counters();
    assert_eq!(c.skipped_items, 3, "{c:?}");
    assert_eq!(c.skipped_triangles, 2, "{c:?}");
    assert_eq!(r.skipped(), 5);
    assert_eq!(stats.draw_items, 3);
    assert_eq!(px(&r, 0, 0), [51, 51, 51, 255]);

    // Huge base vertex / index start: no overflow panic.
    let mut it = item(0, 3, state());
    it.base_vertex = u32::MAX;
    let mut it2 = item(0, u32::MAX, state());
    it2.index_start = u32::MAX;
    let f = pixel_frame(
        4,
        4,
        vec![tris(&[[0.0, 0.0, 0.5], [4.0, 0.0, 0.5], [0.0, 4.0, 0.5]])],
        vec![],
        vec![it, it2],
    );
    let mut r = SoftRasterizer::new();
    r.draw(&f);
    assert_eq!(r.counters().skipped_triangles, 1 + u32::MAX / 3);

    // Non-finite positions are rejected, never a panic.
    let f = pixel_frame(
        4,
        4,
        vec![tris(&[
            [f32::NAN, 0.0, 0.5],
            [f32::INFINITY, 0.0, 0.5],
            [0.0, 4.0, 0.5],
        ])],
        vec![],
        vec![item(0, 3, state())],
    );
    assert_eq!(draw(&f).counters().fragments, 0);
}

// ---------------------------------------------------------------- determinism, resize

#[test]
fn same_frame_twice_gives_identical_bytes() {
    let f = floor_frame(96, 64);
    let mut r = SoftRasterizer::new();
    r.draw(&f);
    let first = r.pixels().to_vec();
    let depth: Vec<u32> = r.depth().iter().map(|d| d.to_bits()).collect();
    r.draw(&f);
    assert_eq!(r.pixels(), &first[..]);
    assert_eq!(
        r.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
        depth
    );
    assert_eq!(draw(&f).pixels(), &first[..]);
}

/// PD-SOFT-BANDS: the scan loop on one thread or several gives the same bytes, depth
/// and counters (a frame big enough to be cut into bands, and one too small to be).
#[test]
fn the_pixels_do_not_depend_on_the_threads() {
    for f in [
        bench_frame(640, 480),
        floor_frame(320, 200),
        bench_frame(96, 7),
    ] {
        let mut one = SoftRasterizer::with_threads(1);
        one.draw(&f);
        for threads in [2, 3, 8] {
            let mut many = SoftRasterizer::with_threads(threads);
            assert_eq!(many.threads(), threads);
            many.draw(&f);
            assert_eq!(many.pixels(), one.pixels(), "{threads} threads");
            assert_eq!(
                many.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
                one.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>()
            );
            assert_eq!(many.counters(), one.counters());
        }
    }
    assert!(SoftRasterizer::new().threads() >= 1);
    assert_eq!(SoftRasterizer::with_threads(100).threads(), MAX_THREADS);
}

#[test]
fn resize_between_frames() {
    let mut r = SoftRasterizer::new();
    r.draw(&floor_frame(16, 16));
    assert_eq!(r.image().pixels.len(), 16 * 16 * 4);
    r.draw(&floor_frame(40, 8));
    let img = r.image();
    assert_eq!(
        (img.width, img.height, img.pixels.len()),
        (40, 8, 40 * 8 * 4)
    );
    assert_eq!(img.pixels.as_slice(), draw(&floor_frame(40, 8)).pixels());
    r.draw(&floor_frame(0, 5));
    assert_eq!(r.image().pixels.len(), 0);
    let mut big = floor_frame(1, 1);
    big.target.width = MAX_TARGET_DIM + 1;
    r.draw(&big);
    assert_eq!((r.width(), r.height()), (0, 0));
    assert_eq!(r.counters().skipped_items, 1);
}

// ---------------------------------------------------------------- plugin wrapper

fn plugin() -> iron3d_abi::RendererPlugin<SoftRender> {
    iron3d_abi::RendererPlugin::new(SoftRender::new(), STATE_FORMAT)
}

#[test]
fn plugin_describes_one_render_factory() {
    let d = describe();
    assert_eq!(d.factories.len(), 1);
    assert_eq!(d.factories[0].name.as_str(), FACTORY);
    assert_eq!(d.factories[0].slot, SlotKind::Render);
    assert_eq!(d.abi_major, iron3d_abi::ABI_MAJOR);
}

#[test]
fn plugin_draws_captures_and_has_no_state() {
    let mut p = plugin();
    assert!(p.capture().is_err(), "nothing drawn yet");
    let f = floor_frame(32, 16);
    let stats = p.draw(&f).unwrap();
    assert_eq!(stats.draw_items, 1);
    let img = p.capture().unwrap();
    assert_eq!((img.width, img.height), (32, 16));
    assert_eq!(img.pixels.as_slice(), draw(&f).pixels());
    assert_eq!(p.rasterizer().width(), 32);
    let mut big = f.clone();
    big.target.height = MAX_TARGET_DIM + 1;
    assert!(p.draw(&big).is_err());
    let blob = p.save_state().unwrap();
    assert_eq!(
        (blob.format.as_str(), blob.version, blob.bytes.len()),
        (STATE_FORMAT, STATE_VERSION, 0)
    );
    assert!(p.restore_state(&blob).is_ok());
    assert!(p.renderer().is_some());
}

// ---------------------------------------------------------------- overlay (2.4)

#[test]
fn draw_with_overlay_gives_exactly_the_composite_of_the_frame_image() {
    let (w, h) = OVERLAY_TARGET;
    let f = floor_frame(w, h);
    let o = crate::fixtures::overlay(1);
    // The reference: the frame alone, then `composite` on its pixels.
    let mut want = draw(&f).pixels().to_vec();
    let skipped = iron3d_abi::overlay::composite(&o, w, h, &mut want);
    assert_eq!(skipped, 2, "the missing and the malformed texture");
    assert_ne!(
        want.as_slice(),
        draw(&f).pixels(),
        "the overlay changes pixels"
    );

    let mut p = plugin();
    let stats = p.draw_with_overlay(&f, &o).unwrap();
    assert_eq!(stats, p.draw(&f).unwrap(), "the overlay adds no draw items");
    p.draw_with_overlay(&f, &o).unwrap();
    let img = p.capture().unwrap();
    assert_eq!((img.width, img.height), (w, h));
    assert_eq!(img.pixels.as_slice(), want.as_slice());
    assert_eq!(draw_with_overlay(&f, &o).pixels(), want.as_slice());

    // Spot checks of the layout (rows top first, RGBA, alpha left as the frame's):
    // the opaque solid panel, and a texel of the textured quad over the clear colour.
    let r = draw_with_overlay(&f, &o);
    assert_eq!(
        px(&r, 5, 5),
        [20, 40, 200, 0],
        "solid panel over the clear colour"
    );
    // Quad 2 spans (64, 56)–(96, 88): pixel (64 + 4·3 + 1, 56 + 4·5 + 1) shows texel
    // (3, 5) = (96, 160, 128, 195) over the frame there.
    let under = px(&draw(&f), 77, 77);
    let a = 195u32;
    let blend = |s: u32, d: u8| ((s * a + u32::from(d) * (255 - a) + 127) / 255) as u8;
    assert_eq!(
        px(&r, 77, 77),
        [
            blend(96, under[0]),
            blend(160, under[1]),
            blend(128, under[2]),
            under[3]
        ]
    );
}

#[test]
fn an_empty_overlay_or_a_refused_target_changes_nothing() {
    let f = floor_frame(32, 16);
    let mut p = plugin();
    p.draw_with_overlay(&f, &iron3d_abi::Overlay::default())
        .unwrap();
    assert_eq!(p.capture().unwrap().pixels.as_slice(), draw(&f).pixels());
    let mut big = f.clone();
    big.target.width = MAX_TARGET_DIM + 1;
    assert!(
        p.draw_with_overlay(&big, &crate::fixtures::overlay(1))
            .is_err()
    );
    // A texture whose byte count overflows is skipped like any malformed one.
    let mut huge = crate::fixtures::overlay(1);
    let mut textures = huge.textures.as_ref().clone();
    textures[1] = iron3d_abi::TextureLevel {
        width: u32::MAX,
        height: u32::MAX,
        rgba: vec![0u8; 4].into(),
    };
    huge.textures = RArc::new(textures);
    let mut want = draw(&f).pixels().to_vec();
    let mut no_glyph = huge.clone();
    no_glyph.quads = huge
        .quads
        .iter()
        .filter(|q| q.texture != 1)
        .copied()
        .collect();
    assert_eq!(
        iron3d_abi::overlay::composite(&no_glyph, 32, 16, &mut want),
        2
    );
    let mut r = draw(&f);
    assert_eq!(r.composite_overlay(&huge), 3);
    assert_eq!(r.pixels(), want.as_slice());
    // Compositing before any frame (a 0×0 buffer) draws nothing and does not panic.
    let mut r = SoftRasterizer::new();
    assert_eq!(r.composite_overlay(&crate::fixtures::overlay(1)), 2);
    assert!(r.pixels().is_empty());
}

#[test]
#[ignore = "timing report: cargo test --release -p iron3d-render-soft -- --ignored --nocapture"]
#[allow(clippy::disallowed_methods)] // wall time measures the rasterizer, not a simulation
fn timing_two_thousand_triangles_640x480() {
    let f = bench_frame(640, 480);
    for threads in [1, 0] {
        let mut r = SoftRasterizer::with_threads(threads);
        r.draw(&f);
        let n = 50;
        let t = std::time::Instant::now();
        for _ in 0..n {
            r.draw(&f);
        }
        let per = t.elapsed() / n;
        eprintln!(
            "{} threads: {per:?} per frame, {:?}",
            r.threads(),
            r.counters()
        );
    }
}

#[test]
fn bench_frame_draws_most_of_its_triangles() {
    let mut r = SoftRasterizer::new();
    r.draw(&bench_frame(160, 120));
    let c = r.counters();
    assert_eq!(c.triangles, 2048);
    assert!(c.fragments > 160 * 40, "{c:?}");
    assert!(c.culled < 100, "winding of the grid is front-facing: {c:?}");
}

/// A renderer written before interface 2.4: it knows `draw` only.
struct Older {
    draws: u32,
}

impl Renderer for Older {
    fn draw(&mut self, _frame: &RenderFrame) -> Result<RenderStats, PluginError> {
        self.draws += 1;
        Ok(RenderStats::default())
    }
}

#[test]
fn a_renderer_written_before_2_4_draws_the_frame_of_a_frame_with_an_overlay() {
    let mut older = Older { draws: 0 };
    let overlay = iron3d_abi::Overlay {
        textures_id: 1,
        textures: RArc::new(Vec::new().into()),
        quads: vec![iron3d_abi::OverlayQuad::solid(
            [0.0, 0.0, 8.0, 8.0],
            [255; 4],
        )]
        .into(),
    };
    older
        .draw_with_overlay(&triangle_frame(), &overlay)
        .unwrap();
    assert_eq!(
        older.draws, 1,
        "the default draws the frame, without the overlay"
    );
}
