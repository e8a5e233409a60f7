//! The 2.11 effects on llvmpipe: read back a billboard's centre, compare scenes of every
//! kind, blend and edge case with the software reference, and check that effects are
//! drawn once. These tests need a Vulkan loader and device (llvmpipe is enough), like
//! the crate's other tests.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use super::*;
use crate::{VulkanRender, VulkanRenderer, compare_images};
use iron3d_abi::{
    EffectBlend, EffectFrame, ImageRgba8, PrimitiveKind, RenderFrame, Renderer, Vec3f,
};
use iron3d_render_soft::fixtures::*;

const ADD: EffectBlend = EffectBlend::ADDITIVE;
const ALPHA: EffectBlend = EffectBlend::ALPHA;
const WHITE: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

fn renderer() -> VulkanRenderer {
    VulkanRenderer::new().unwrap_or_else(|e| {
        panic!("these tests need Vulkan (libvulkan1 + mesa-vulkan-drivers give llvmpipe): {e}")
    })
}

fn pixel(img: &ImageRgba8, x: u32, y: u32) -> [u8; 4] {
    let o = ((y * img.width + x) * 4) as usize;
    img.pixels[o..o + 4].try_into().unwrap()
}

fn draw(
    r: &mut VulkanRenderer,
    frame: &RenderFrame,
    effects: Option<&[EffectPrimitive]>,
) -> ImageRgba8 {
    if let Some(e) = effects {
        r.set_effects(e);
    }
    r.draw(frame).unwrap();
    r.image().unwrap().unwrap()
}

fn billboard(blend: EffectBlend, at: Vec3f, size: f32, colour: [f32; 4]) -> EffectPrimitive {
    effect(PrimitiveKind::BILLBOARD, blend, at, size, colour)
}

#[test]
fn the_effects_shader_compiles_to_spirv() {
    let words = crate::effects_spirv().unwrap();
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
}

#[test]
fn an_additive_billboard_brightens_the_pixel_at_its_centre() {
    let f = effects_frame(vec![]);
    let b = billboard(ADD, v3(0.0, 0.0, 10.0), 2.0, [1.0, 0.4, 0.0, 1.0]);
    let mut r = renderer();
    let img = draw(&mut r, &f, Some(&[b]));
    assert_eq!(r.effect_quads(), 1);
    // The reference gives [255, 112, 10, 255] there (dst + src·a, a = 1 at the centre).
    let c = pixel(&img, 32, 24);
    assert_eq!((c[0], c[2], c[3]), (255, 10, 255), "{c:?}");
    assert!(c[1].abs_diff(112) <= 1, "{c:?}");
    for (x, y) in [(0, 0), (40, 24), (32, 16), (64, 48)] {
        assert_eq!(pixel(&img, x, y), EFFECTS_CLEAR, "{x},{y}");
    }
    let d = compare_images(
        &img.pixels,
        draw_with_effects(&f, &[b]).pixels(),
        img.width,
        img.height,
    );
    assert!(d.within_tolerance(), "{d:?}");
}

#[test]
fn every_kind_blend_and_edge_case_matches_the_reference() {
    // The grey wall at z = 5 (±1) hides what is behind it.
    let f = effects_frame(vec![quad(-1.0, -1.0, 1.0, 1.0, 5.0)]);
    let mut rotated = billboard(ADD, v3(-2.5, 1.5, 9.0), 3.0, [0.2, 0.9, 0.3, 0.8]);
    rotated.height = 0.8;
    rotated.rotation = 0.7;
    let primitives = [
        // Behind the wall, wider than it.
        billboard(ADD, v3(0.0, 0.0, 10.0), 8.0, [0.9, 0.5, 0.1, 1.0]),
        // Two overlapping alpha quads: the later one on top, though farther.
        billboard(ALPHA, v3(2.0, -1.0, 8.0), 2.0, [1.0, 0.0, 0.0, 1.0]),
        billboard(ALPHA, v3(2.2, -1.0, 12.0), 3.0, [0.0, 0.0, 1.0, 0.7]),
        effect(PrimitiveKind::PARTICLE, ADD, v3(0.3, 0.2, 3.0), 0.4, WHITE),
        rotated,
        streak(
            ADD,
            v3(-3.0, -2.0, 10.0),
            v3(3.0, 2.5, 14.0),
            0.4,
            [1.0, 1.0, 0.5, 1.0],
        ),
        // A streak reaching behind the camera: clipped at the near plane.
        streak(ADD, v3(0.5, -1.0, -5.0), v3(0.5, -1.0, 20.0), 0.15, WHITE),
        effect(
            PrimitiveKind::BEAM,
            ALPHA,
            v3(-2.0, 2.0, 7.0),
            0.3,
            [0.4, 0.4, 1.0, 0.9],
        ),
        effect(
            PrimitiveKind::POINT_LIGHT,
            ALPHA,
            v3(3.0, 2.0, 9.0),
            8.0,
            WHITE,
        ),
        // Skipped or invisible: unknown kind and blend, NaN, behind the camera.
        effect(PrimitiveKind(99), ADD, v3(0.0, 0.0, 4.0), 2.0, WHITE),
        billboard(EffectBlend(5), v3(0.0, 0.0, 4.0), 2.0, WHITE),
        billboard(ADD, v3(f32::NAN, 0.0, 4.0), 2.0, WHITE),
        billboard(ADD, v3(0.0, 0.0, 4.0), f32::INFINITY, WHITE),
        billboard(ADD, v3(0.0, 0.0, -10.0), 4.0, WHITE),
    ];
    // The beam's end.
    let mut primitives = primitives.to_vec();
    primitives[7].end = v3(1.0, 1.5, 9.0);
    let mut r = renderer();
    let img = draw(&mut r, &f, Some(&primitives));
    assert_eq!(
        r.effect_quads(),
        9,
        "9 drawable, 4 skipped, 1 behind the camera"
    );
    let want = draw_with_effects(&f, &primitives);
    assert_eq!(want.effect_counters().quads, 10);
    assert_eq!(want.effect_counters().rejected, 1);
    let d = compare_images(&img.pixels, want.pixels(), img.width, img.height);
    assert!(d.within_tolerance(), "{d:?}");
    assert_ne!(
        img.pixels.as_slice(),
        iron3d_render_soft::fixtures::draw(&f).pixels(),
        "the effects changed the image"
    );
    // The wall hides the big billboard: its centre is the wall's grey.
    assert_eq!(pixel(&img, 32, 24), [51, 51, 51, 255]);
}

#[test]
fn effects_are_drawn_once_and_without_them_nothing_changes() {
    let f = effects_frame(vec![quad(-1.0, -1.0, 1.0, 1.0, 5.0)]);
    let b = [billboard(ADD, v3(0.0, 0.0, 3.0), 0.5, [0.0, 0.0, 1.0, 1.0])];
    let mut p = VulkanRender {
        renderer: renderer(),
    };
    p.draw(&f).unwrap();
    let plain = p.capture().unwrap();
    let frame = EffectFrame {
        frame: 1,
        tick: 1,
        instances: 1,
        primitives: b.to_vec().into(),
        textures: Default::default(),
    };
    assert!(
        Renderer::effects(&mut p, &frame).is_ok(),
        "effects are accepted"
    );
    p.draw(&f).unwrap();
    let with = p.capture().unwrap();
    assert_eq!(pixel(&with, 32, 24), [51, 51, 255, 255]);
    assert_eq!(pixel(&plain, 32, 24), [51, 51, 51, 255]);
    // Consumed: the next frame is the plain one again, byte for byte.
    p.draw(&f).unwrap();
    assert_eq!(p.capture().unwrap(), plain);
    assert_eq!(p.renderer().effect_quads(), 0);
    // With an overlay: effects, then the overlay over them.
    let o = overlay(2);
    Renderer::effects(&mut p, &frame).unwrap();
    p.draw_with_overlay(&f, &o).unwrap();
    let img = p.capture().unwrap();
    let mut want = draw_with_effects(&f, &b).pixels().to_vec();
    let (w, h) = EFFECTS_TARGET;
    iron3d_abi::overlay::composite(&o, w, h, &mut want);
    let d = compare_images(&img.pixels, &want, w, h);
    assert!(d.within_tolerance(), "{d:?}");
}

#[test]
#[ignore = "timing report: cargo test --release -p iron3d-render-vulkan -- --ignored --nocapture"]
#[allow(clippy::disallowed_methods)] // wall time measures the renderer, not a simulation
fn timing_ten_thousand_particles_640x480() {
    let f = bench_frame(640, 480);
    let field: Vec<EffectPrimitive> = (0..10_000)
        .map(|i| {
            let t = i as f32;
            let z = 4.0 + (i % 97) as f32 * 0.37;
            let x = ((t * 0.618_034).fract() - 0.5) * z * 1.2;
            let y = ((t * 0.414_213_5).fract() - 0.5) * z * 0.9;
            let blend = if i % 3 == 0 { ALPHA } else { ADD };
            effect(
                PrimitiveKind::PARTICLE,
                blend,
                v3(x, y, z),
                0.3,
                [1.0, 0.6, 0.2, 0.5],
            )
        })
        .collect();
    let mut r = renderer();
    r.draw(&f).unwrap();
    let n = 10;
    let t = std::time::Instant::now();
    for _ in 0..n {
        r.draw(&f).unwrap();
    }
    let world = t.elapsed() / n;
    let t = std::time::Instant::now();
    for _ in 0..n {
        r.set_effects(&field);
        r.draw(&f).unwrap();
    }
    let both = t.elapsed() / n;
    eprintln!(
        "{}: world {world:?}, world + 10k particles {both:?} ({} quads)",
        r.device_name(),
        r.effect_quads()
    );
}

/// [`effects_frame`] whose resources also hold an 8×8 sprite texture named
/// `sprites.lib/CODED.TEX`: texel (x, y) is (x·32, y·32, 255 − x·16, 255 except the
/// bottom-right quarter, which has alpha 0).
fn sprite_frame() -> RenderFrame {
    let mut rgba = Vec::new();
    for y in 0..8u8 {
        for x in 0..8u8 {
            let a = if x >= 4 && y >= 4 { 0 } else { 255 };
            rgba.extend_from_slice(&[x * 32, y * 32, 255 - x * 16, a]);
        }
    }
    effects_frame_with_sprite("sprites.lib/CODED.TEX", texture(8, 8, rgba))
}

#[test]
fn textured_sprites_match_the_reference_and_unknown_names_draw_soft() {
    // PD-RENDER-EFFECT-TEXTURES: particles and billboards with a texture name found in
    // the resources (any case) draw its texels; a streak with the same index, and a
    // billboard whose name is not there, draw soft — exactly as the reference does.
    let f = sprite_frame();
    let mut board = billboard(ALPHA, v3(-1.0, 0.5, 10.0), 4.0, [1.0, 0.9, 0.8, 0.9]);
    board.texture = 0;
    let mut turned = billboard(ADD, v3(1.5, -1.0, 12.0), 3.0, WHITE);
    turned.texture = 0;
    turned.rotation = 0.7;
    turned.height = 2.0;
    let mut particle = effect(
        PrimitiveKind::PARTICLE,
        ALPHA,
        v3(2.0, 1.5, 9.0),
        1.5,
        WHITE,
    );
    particle.texture = 0;
    let mut lost = billboard(ADD, v3(-2.0, -1.5, 11.0), 2.0, [0.3, 0.6, 1.0, 1.0]);
    lost.texture = 1;
    let mut band = streak(ADD, v3(-3.0, 2.0, 10.0), v3(3.0, 2.5, 10.0), 0.4, WHITE);
    band.texture = 0;
    let prims = [board, turned, particle, lost, band];
    let frame = EffectFrame {
        primitives: prims.to_vec().into(),
        textures: vec![
            abi_stable::std_types::RString::from("SPRITES.LIB/coded.tex"),
            abi_stable::std_types::RString::from("sprites.lib/MISSING.TEX"),
        ]
        .into(),
        ..EffectFrame::default()
    };
    let mut p = VulkanRender {
        renderer: renderer(),
    };
    p.effects(&frame).unwrap();
    p.draw(&f).unwrap();
    let img = p.capture().unwrap();
    let mut want = iron3d_render_soft::fixtures::draw(&f);
    want.draw_textured_effects(&f.camera, &prims, &frame.textures, &f.resources);
    let soft = draw_with_effects(&f, &prims);
    assert_ne!(
        want.pixels(),
        soft.pixels(),
        "the texture shows in the reference"
    );
    let d = compare_images(&img.pixels, want.pixels(), img.width, img.height);
    assert!(d.within_tolerance(), "{d:?}");
    // Drawn once: the next frame has no effects.
    p.draw(&f).unwrap();
    let plain = p.capture().unwrap();
    assert_eq!(
        plain.pixels.as_slice(),
        iron3d_render_soft::fixtures::draw(&f).pixels()
    );
}
