//! Pixel comparisons with the software reference on hand-built frames (the same frame
//! through [`VulkanRenderer`] and `iron3d_render_soft::SoftRasterizer`), plus the
//! plugin wrapper. These tests need a Vulkan loader and device (llvmpipe is enough).

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use super::*;
use abi_stable::std_types::RArc;
use glam::{Mat4, Vec3};
use iron3d_abi::{BlendMode, CullMode, TextureOp, TextureStage, Vec3f};
use iron3d_abi::{Plugin, Renderer};
// The frame builders and the reference `draw`, shared with the software renderer's tests.
use iron3d_render_soft::fixtures::*;

// ---------------------------------------------------------------- comparison

fn renderer() -> VulkanRenderer {
    VulkanRenderer::new().unwrap_or_else(|e| {
        panic!("these tests need Vulkan (libvulkan1 + mesa-vulkan-drivers give llvmpipe): {e}")
    })
}

fn vulkan(r: &mut VulkanRenderer, frame: &RenderFrame) -> ImageRgba8 {
    r.draw(frame).unwrap();
    r.image().unwrap().unwrap()
}

/// Draws `frame` with both renderers and asserts the crate's tolerance; returns the diff.
fn compare(name: &str, frame: &RenderFrame) -> ImageDiff {
    let mut r = renderer();
    let got = vulkan(&mut r, frame);
    let want = draw(frame);
    assert_eq!(
        (got.width, got.height),
        (want.width(), want.height()),
        "{name}"
    );
    let d = compare_images(&got.pixels, want.pixels(), got.width, got.height);
    assert!(
        d.within_tolerance(),
        "{name}: {d:?}\nvulkan {:?}\nsoft   {:?}",
        &got.pixels[..got.pixels.len().min(64)],
        &want.pixels()[..want.pixels().len().min(64)],
    );
    d
}

/// Asserts the two renderers agree exactly (flat colours, no edges at stake).
fn exact(name: &str, frame: &RenderFrame) {
    let d = compare(name, frame);
    assert_eq!(d.worst, 0, "{name}: {d:?}");
}

// ---------------------------------------------------------------- tests

#[test]
fn the_shader_compiles_to_spirv() {
    let words = spirv().unwrap();
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
}

#[test]
fn one_triangle_matches_the_reference() {
    exact("triangle", &triangle_frame());
    let f = pixel_frame(
        64,
        48,
        vec![tris(&[
            [3.3, 2.7, 0.5],
            [60.1, 9.9, 0.5],
            [17.5, 45.2, 0.5],
        ])],
        vec![],
        vec![item(0, 3, state())],
    );
    compare("slanted triangle", &f);
}

#[test]
fn shared_edges_and_a_textured_quad_match() {
    exact("shared edge, additive", &shared_edge_frame());
    let f = pixel_frame(
        32,
        32,
        vec![quad(2.0, 3.0, 29.0, 30.0, 0.5)],
        vec![coded_texture()],
        vec![item(0, 6, select(0))],
    );
    compare("textured quad", &f);
}

#[test]
fn perspective_texturing_matches() {
    compare("floor", &floor_frame(160, 120));
}

#[test]
fn depth_order_matches_in_both_orders() {
    exact("red near first", &two_quads(0.3, 0.6, select(0)));
    exact("green near second", &two_quads(0.6, 0.3, select(0)));
    let mut no_write = select(0);
    no_write.depth.write = false;
    exact("no depth write", &two_quads(0.3, 0.6, no_write));
    let mut no_test = select(0);
    no_test.depth.test = false;
    exact("no depth test", &two_quads(0.6, 0.3, no_test));
}

#[test]
fn depth_outside_the_unit_range_is_discarded() {
    for z in [-0.5, 1.5] {
        exact("out of depth range", &two_quads(z, 0.5, select(0)));
    }
}

#[test]
fn alpha_test_matches_around_the_reference() {
    for reference in [0, 99, 100, 101, 255] {
        let mut s = select(0);
        s.alpha_test = true;
        s.alpha_ref = reference;
        let f = pixel_frame(
            4,
            4,
            vec![quad(0.0, 0.0, 4.0, 4.0, 0.5), quad(0.0, 0.0, 4.0, 4.0, 0.7)],
            vec![solid([10, 20, 30, 100]), solid(GREEN)],
            vec![item(0, 6, s), item(1, 6, select(1))],
        );
        exact("alpha test", &f);
    }
}

#[test]
fn blend_modes_match() {
    for blend in [
        BlendMode::Opaque,
        BlendMode::AlphaBlend,
        BlendMode::Additive,
    ] {
        for src in [[200, 100, 50, 128], [255, 255, 255, 255], [10, 240, 90, 3]] {
            let mut s = select(1);
            s.blend = blend;
            let mut f = pixel_frame(
                4,
                4,
                vec![quad(0.0, 0.0, 4.0, 4.0, 0.5), quad(0.0, 0.0, 4.0, 4.0, 0.4)],
                vec![solid([40, 80, 160, 200]), solid(src)],
                vec![item(0, 6, select(0)), item(1, 6, s)],
            );
            f.target.clear = [1, 2, 3, 4];
            let d = compare("blend", &f);
            assert!(d.worst <= 1, "{blend:?} {src:?}: {d:?}");
        }
    }
}

#[test]
fn back_face_culling_matches() {
    // Pixel space has y down: (0,0) → (4,0) → (0,4) is clockwise in NDC (+y up).
    let cw = [[0.0, 0.0, 0.5], [16.0, 0.0, 0.5], [0.0, 16.0, 0.5]];
    let ccw = [[0.0, 0.0, 0.5], [0.0, 16.0, 0.5], [16.0, 0.0, 0.5]];
    let mut r = renderer();
    for (p, cull, drawn) in [
        (cw, CullMode::Back, false),
        (ccw, CullMode::Back, true),
        (cw, CullMode::None, true),
        (ccw, CullMode::None, true),
    ] {
        let mut s = state();
        s.cull = cull;
        let mut f = pixel_frame(16, 16, vec![tris(&p)], vec![], vec![item(0, 3, s)]);
        // A fresh resource set per frame: the renderer caches meshes by id.
        RArc::get_mut(&mut f.resources).unwrap().id = p[1][0] as u64 + 2;
        let img = vulkan(&mut r, &f);
        let lit = img.pixels.chunks(4).filter(|c| c[0] != 0).count();
        assert_eq!(lit > 0, drawn, "{cull:?} {p:?}");
        exact("cull", &f);
    }
}

#[test]
fn lightmap_stage_and_lighting_match() {
    let diffuse = [200, 100, 50, 180];
    let lightmap = [128, 255, 64, 255];
    for (op0, op1) in [
        (TextureOp::SelectTexture, TextureOp::Modulate),
        (TextureOp::Modulate, TextureOp::Modulate),
        (TextureOp::Modulate, TextureOp::SelectTexture),
        (TextureOp::Disable, TextureOp::Modulate),
        (TextureOp::Modulate, TextureOp::Disable),
    ] {
        let mut s = select(0);
        s.stages[0].op = op0;
        s.stages[1] = TextureStage {
            texture: 1,
            op: op1,
            uv_scale: [4.0, 4.0],
        };
        let mut f = pixel_frame(
            8,
            8,
            vec![quad(0.0, 0.0, 8.0, 8.0, 0.5)],
            vec![solid(diffuse), solid(lightmap)],
            vec![item(0, 6, s)],
        );
        f.lighting.sun_colour = [0.5, 0.6, 0.7];
        f.lighting.sun_direction = Vec3f {
            x: 0.0,
            y: 0.6,
            z: 0.8,
        };
        let d = compare("stages", &f);
        assert!(d.worst <= 1, "{op0:?} {op1:?}: {d:?}");
    }
}

#[test]
fn a_lit_textured_terrain_grid_matches() {
    let d = compare("grid", &bench_frame(160, 120));
    assert!(d.worst > 0 || d.mismatched == 0);
    let d = compare("grid 640", &bench_frame(640, 480));
    eprintln!("grid 640x480: {d:?}");
}

#[test]
fn texel_wrap_and_uv_scale_match() {
    let mut s = select(0);
    s.stages[0].uv_scale = [2.5, -1.75];
    let m = mesh(
        &[
            [0.0, 0.0, 0.5],
            [64.0, 0.0, 0.5],
            [64.0, 64.0, 0.5],
            [0.0, 64.0, 0.5],
        ],
        &[[-1.3, -0.6], [2.2, -0.6], [2.2, 3.1], [-1.3, 3.1]],
        &[0, 1, 2, 0, 2, 3],
    );
    let f = pixel_frame(64, 64, vec![m], vec![coded_texture()], vec![item(0, 6, s)]);
    compare("wrap", &f);
}

#[test]
fn rotated_world_matrix_and_clipping_match() {
    let mut f = bench_frame(160, 120);
    let world = Mat4::from_rotation_y(0.4) * Mat4::from_translation(Vec3::new(1.0, 0.5, -1.0));
    f.items[0].world = world.into();
    compare("rotated grid", &f);
}

#[test]
fn out_of_range_data_is_skipped_not_fatal() {
    let mut bad_mesh = item(7, 6, state());
    bad_mesh.insertion = 1;
    let mut bad_tex = item(0, 6, select(9));
    bad_tex.insertion = 2;
    let mut past_end = item(0, 600, state());
    past_end.index_start = 3;
    let mut bad_vertex = item(0, 6, state());
    bad_vertex.base_vertex = 100;
    let f = pixel_frame(
        8,
        8,
        vec![quad(0.0, 0.0, 8.0, 8.0, 0.5)],
        vec![solid(RED)],
        vec![bad_mesh, bad_tex, past_end, bad_vertex],
    );
    let mut r = renderer();
    let stats = r.draw(&f).unwrap();
    assert_eq!(
        stats.draw_items, 1,
        "only the past-the-end item draws (its valid part)"
    );
    exact("bad data", &f);
}

#[test]
fn same_frame_twice_and_resizes_give_fresh_images() {
    let mut r = renderer();
    let a = vulkan(&mut r, &bench_frame(160, 120));
    let b = vulkan(&mut r, &bench_frame(160, 120));
    assert_eq!(a, b);
    let c = vulkan(&mut r, &bench_frame(64, 32));
    assert_eq!((c.width, c.height), (64, 32));
    let mut z = bench_frame(0, 0);
    z.target.clear = [9; 4];
    let e = vulkan(&mut r, &z);
    assert_eq!((e.width, e.height, e.pixels.len()), (0, 0, 0));
    let big = bench_frame(MAX_TARGET_DIM + 1, 4);
    assert!(r.draw(&big).is_err());
    let d = vulkan(&mut r, &bench_frame(160, 120));
    assert_eq!(a, d);
    // Capture reads back on demand: always the latest frame, twice the same.
    let mut floor = floor_frame(160, 120);
    RArc::get_mut(&mut floor.resources).unwrap().id = 99;
    let e = vulkan(&mut r, &floor);
    assert_ne!(a, e);
    assert_eq!(Some(e), r.image().unwrap());
}

// ---------------------------------------------------------------- overlay (2.4)

/// Whether the pixel centre of (x, y) lies in `q`'s rectangle (the overlay coverage rule).
fn covers(q: &iron3d_abi::OverlayQuad, x: u32, y: u32) -> bool {
    let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
    let [l, t, r, b] = q.rect;
    l <= cx && cx < r && t <= cy && cy < b
}

/// Largest channel difference at (x, y) of two `w`-wide RGBA8 images.
fn diff_at(a: &[u8], b: &[u8], w: u32, x: u32, y: u32) -> u8 {
    let o = ((y * w + x) * 4) as usize;
    (0..4)
        .map(|c| a[o + c].abs_diff(b[o + c]))
        .max()
        .unwrap_or(0)
}

#[test]
fn the_overlay_shader_compiles_to_spirv() {
    let words = overlay_spirv().unwrap();
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
}

#[test]
fn a_frame_with_an_overlay_matches_the_composited_reference() {
    let (w, h) = OVERLAY_TARGET;
    let f = floor_frame(w, h);
    let o = overlay(1);
    let mut r = renderer();
    // The frame alone on Vulkan, composited on the CPU: the overlay's rules applied to
    // exactly the pixels the 3D pass produced.
    let frame_only = vulkan(&mut r, &f);
    let mut vulkan_composited = frame_only.pixels.to_vec();
    iron3d_abi::overlay::composite(&o, w, h, &mut vulkan_composited);

    r.draw_with_overlay(&f, &o).unwrap();
    let got = r.image().unwrap().unwrap();
    assert_eq!((got.width, got.height), (w, h));
    let want = draw_with_overlay(&f, &o);
    let d = compare_images(&got.pixels, want.pixels(), w, h);
    let frame_d = compare_images(&frame_only.pixels, draw(&f).pixels(), w, h);
    eprintln!("overlay vs soft: {d:?} (the frame alone: {frame_d:?})");
    assert!(d.within_tolerance(), "against the soft reference: {d:?}");
    let own = compare_images(&got.pixels, &vulkan_composited, w, h);
    eprintln!("overlay vs composite of the Vulkan frame: {own:?}");
    assert!(own.within_tolerance(), "against composite: {own:?}");
    assert_ne!(got.pixels, frame_only.pixels, "the overlay was drawn");

    // Pixels covered only by solid quads (no textured quad over them): ±1 against both.
    let quads = o.quads.as_slice();
    let mut solid_only = 0;
    for y in 0..h {
        for x in 0..w {
            let by_solid = OVERLAY_SOLID_QUADS.iter().any(|&i| covers(&quads[i], x, y));
            let by_textured = quads
                .iter()
                .enumerate()
                .any(|(i, q)| !OVERLAY_SOLID_QUADS.contains(&i) && covers(q, x, y));
            if by_solid && !by_textured {
                solid_only += 1;
                let soft = diff_at(&got.pixels, want.pixels(), w, x, y);
                let own = diff_at(&got.pixels, &vulkan_composited, w, x, y);
                assert!(soft <= 1 && own <= 1, "({x}, {y}): {soft} {own}");
            }
        }
    }
    assert!(solid_only > 56 * 16, "{solid_only}");
    // The target's alpha is left as the 3D pass wrote it.
    let alpha = |p: &[u8]| p.chunks(4).map(|c| c[3]).collect::<Vec<_>>();
    assert_eq!(alpha(&got.pixels), alpha(&frame_only.pixels));
}

#[test]
fn an_overlay_on_the_clear_colour_matches_exactly() {
    // No 3D items: every difference would be the overlay pass's own.
    for (w, h) in [OVERLAY_TARGET, (64, 48), (200, 130)] {
        let mut f = pixel_frame(w, h, vec![], vec![], vec![]);
        f.target.clear = [10, 20, 30, 40];
        let o = overlay(2);
        let mut r = renderer();
        r.draw_with_overlay(&f, &o).unwrap();
        let got = r.image().unwrap().unwrap();
        let want = draw_with_overlay(&f, &o);
        let d = compare_images(&got.pixels, want.pixels(), w, h);
        assert!(d.worst <= 1, "{w}x{h}: {d:?}");
        assert!(got.pixels.chunks(4).all(|p| p[3] == 40), "alpha kept");
    }
}

#[test]
fn overlay_textures_are_uploaded_once_per_textures_id() {
    let mut f = pixel_frame(96, 112, vec![], vec![], vec![]);
    f.target.clear = [0, 0, 0, 255];
    let mut r = renderer();
    let first = overlay(5);
    r.draw_with_overlay(&f, &first).unwrap();
    let a = r.image().unwrap().unwrap();
    assert_eq!(
        r.overlay.uploads, 2,
        "textures 0 and 1; the malformed 2 is never uploaded"
    );
    r.draw_with_overlay(&f, &first).unwrap();
    assert_eq!(r.overlay.uploads, 2, "same id: nothing uploaded again");
    assert_eq!(Some(a.clone()), r.image().unwrap());
    // The same id names the same textures: different pixels under it are not looked at.
    let mut changed = overlay(5);
    let mut textures = changed.textures.as_ref().clone();
    textures[0] = overlay_level(8, 8, |_, _| [255; 4]);
    changed.textures = RArc::new(textures);
    r.draw_with_overlay(&f, &changed).unwrap();
    assert_eq!(Some(a.clone()), r.image().unwrap());
    assert_eq!(r.overlay.uploads, 2);
    // A new id uploads again and shows the new texture.
    changed.textures_id = 6;
    r.draw_with_overlay(&f, &changed).unwrap();
    assert_eq!(r.overlay.uploads, 4);
    let b = r.image().unwrap().unwrap();
    assert_ne!(a, b);
    let d = compare_images(&b.pixels, draw_with_overlay(&f, &changed).pixels(), 96, 112);
    assert!(d.worst <= 1, "{d:?}");
    // A frame without an overlay afterwards draws none.
    assert_eq!(vulkan(&mut r, &f).pixels, draw(&f).pixels());
}

#[test]
fn bad_or_empty_overlays_draw_nothing_and_never_fail() {
    let f = floor_frame(64, 48);
    let mut r = renderer();
    let plain = vulkan(&mut r, &f);
    let broken = iron3d_abi::Overlay {
        textures_id: 9,
        textures: RArc::new(vec![overlay_level(0, 0, |_, _| [0; 4])].into()),
        quads: vec![
            overlay_quad([0.0, 0.0, 64.0, 48.0], [0.0, 0.0, 1.0, 1.0], 0, [255; 4]),
            overlay_quad([0.0, 0.0, 64.0, 48.0], [0.0; 4], 3, [255; 4]),
            iron3d_abi::OverlayQuad::solid([f32::NAN, 0.0, 64.0, 48.0], [255; 4]),
            iron3d_abi::OverlayQuad::solid([70.0, 0.0, 90.0, 48.0], [255; 4]),
            iron3d_abi::OverlayQuad::solid([0.0, 0.0, 64.0, 48.0], [255, 0, 0, 0]),
        ]
        .into(),
    };
    for o in [iron3d_abi::Overlay::default(), broken] {
        r.draw_with_overlay(&f, &o).unwrap();
        assert_eq!(Some(plain.clone()), r.image().unwrap());
    }
    // A zero-sized target with an overlay is an empty image, not an error.
    let z = bench_frame(0, 0);
    r.draw_with_overlay(&z, &overlay(1)).unwrap();
    assert_eq!(r.image().unwrap().map(|i| i.pixels.len()), Some(0));
}

// ---------------------------------------------------------------- plugin wrapper

fn plugin() -> VulkanRender {
    VulkanRender {
        renderer: renderer(),
    }
}

#[test]
fn plugin_describes_one_render_factory() {
    let d = describe();
    assert_eq!(d.factories.len(), 1);
    assert_eq!(d.factories[0].name.as_str(), FACTORY);
    assert_eq!(d.factories[0].slot, SlotKind::Render);
}

#[test]
fn plugin_draws_captures_and_has_no_state() {
    let mut p = plugin();
    assert!(p.capture().is_err(), "nothing drawn yet");
    let f = floor_frame(32, 24);
    let stats = p.draw(&f).unwrap();
    assert_eq!(stats.draw_items, 1);
    let img = p.capture().unwrap();
    assert_eq!((img.width, img.height), (32, 24));
    assert_eq!(img.pixels.len(), 32 * 24 * 4);
    let blob = p.save_state().unwrap();
    assert!(blob.bytes.is_empty());
    assert!(p.restore_state(&blob).is_ok());
}

#[test]
fn plugin_draws_the_overlay() {
    let mut p = plugin();
    let (w, h) = OVERLAY_TARGET;
    let f = floor_frame(w, h);
    let o = overlay(3);
    let stats = p.draw_with_overlay(&f, &o).unwrap();
    assert_eq!(stats.draw_items, 1, "the overlay adds no draw items");
    let img = p.capture().unwrap();
    let d = compare_images(&img.pixels, draw_with_overlay(&f, &o).pixels(), w, h);
    assert!(d.within_tolerance(), "{d:?}");
}

#[test]
#[ignore = "timing report: cargo test --release -p iron3d-render-vulkan -- --ignored --nocapture"]
#[allow(clippy::disallowed_methods)] // wall time measures the renderer, not a simulation
fn timing_grid_640x480() {
    let mut r = renderer();
    let f = bench_frame(640, 480);
    r.draw(&f).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..10 {
        r.draw(&f).unwrap();
    }
    eprintln!("grid 640x480: {:?} per frame", t.elapsed() / 10);
}

#[test]
#[ignore = "run by no_vulkan_driver_is_a_clear_no_device_error with VK_ICD_FILENAMES unset"]
fn child_without_a_driver() {
    let err = VulkanRenderer::new().err().expect("no driver, no renderer");
    assert!(matches!(err, RenderError::NoDevice(_)), "{err}");
    let msg = PluginError::from(err).message.to_string();
    assert!(msg.contains("no Vulkan device: "), "{msg}");
    println!("child message: {msg}");
}

#[test]
fn no_vulkan_driver_is_a_clear_no_device_error() {
    // A child process of this test binary with no Vulkan driver to load.
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "tests::child_without_a_driver",
            "--nocapture",
        ])
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("child message: render-vulkan: no Vulkan device: "),
        "{stdout}"
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
}
