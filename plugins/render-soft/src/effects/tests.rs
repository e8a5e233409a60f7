//! Pixel tests of the 2.11 effect primitives on the [`effects_frame`] scene (camera at the
//! origin looking along +z, 65×49, so the view axis hits the centre of pixel (32, 24)).

use super::*;
use crate::SoftRender;
use crate::fixtures::*;
use abi_stable::std_types::RString;
use iron3d_abi::{EffectBlend, EffectFrame, PrimitiveKind, Renderer};

const ADD: EffectBlend = EffectBlend::ADDITIVE;
const ALPHA: EffectBlend = EffectBlend::ALPHA;
/// The pixel on the view axis.
const CX: u32 = 32;
const CY: u32 = 24;

fn px(r: &SoftRasterizer, x: u32, y: u32) -> [u8; 4] {
    let o = ((y * r.width() + x) * 4) as usize;
    r.pixels()[o..o + 4].try_into().expect("4 bytes")
}

fn byte(c: f32) -> u8 {
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

fn unorm(b: u8) -> f32 {
    f32::from(b) / 255.0
}

fn billboard(blend: EffectBlend, z: f32, size: f32, colour: [f32; 4]) -> EffectPrimitive {
    effect(
        PrimitiveKind::BILLBOARD,
        blend,
        v3(0.0, 0.0, z),
        size,
        colour,
    )
}

#[test]
fn an_additive_billboard_brightens_its_centre_and_nothing_far_away() {
    let f = effects_frame(vec![]);
    let r = draw_with_effects(&f, &[billboard(ADD, 10.0, 2.0, [1.0, 0.4, 0.0, 1.0])]);
    // dst + src·a with a = 1 at the sprite's centre: red saturates, green 10 + 102.
    assert_eq!(px(&r, CX, CY), [255, 112, 10, 255]);
    // The sprite is soft: 2 px off centre (about 0.56 of its half-width) it is dimmer.
    let off = px(&r, CX + 2, CY);
    assert!(off[1] > 10 && off[1] < 112, "{off:?}");
    // Far away: the clear colour.
    for (x, y) in [(0, 0), (CX + 8, CY), (CX, CY - 8), (64, 48)] {
        assert_eq!(px(&r, x, y), EFFECTS_CLEAR, "{x},{y}");
    }
    assert!(
        r.depth().iter().all(|&d| d == 1.0),
        "effects write no depth"
    );
    let c = r.effect_counters();
    assert_eq!((c.quads, c.rejected), (1, 0));
    assert!(c.fragments > 20 && c.fragments < 64, "{c:?}");
    assert_eq!(
        r.counters(),
        draw(&f).counters(),
        "world counters untouched"
    );
}

#[test]
fn the_world_hides_an_effect_behind_it() {
    // An opaque grey wall at z = 5, ±1 (about ±7 px around the centre).
    let f = effects_frame(vec![quad(-1.0, -1.0, 1.0, 1.0, 5.0)]);
    let world = draw(&f);
    assert_eq!(px(&world, CX, CY), [51, 51, 51, 255]);
    // Behind the wall, 8 wide (about ±14 px): hidden where the wall is, seen beside it.
    let r = draw_with_effects(&f, &[billboard(ADD, 10.0, 8.0, [1.0, 1.0, 1.0, 1.0])]);
    assert_eq!(px(&r, CX, CY), [51, 51, 51, 255]);
    assert_eq!(px(&r, CX + 4, CY + 3), px(&world, CX + 4, CY + 3));
    let beside = px(&r, CX + 10, CY);
    assert!(beside[0] > 10, "seen beside the wall: {beside:?}");
    assert_eq!(px(&world, CX + 10, CY), EFFECTS_CLEAR);
    // In front of the wall: drawn over it; the depth buffer stays the world's.
    let r = draw_with_effects(&f, &[billboard(ADD, 3.0, 0.5, [0.0, 0.0, 1.0, 1.0])]);
    assert_eq!(px(&r, CX, CY), [51, 51, 255, 255]);
    assert_eq!(r.depth(), world.depth());
}

#[test]
fn alpha_blend_mixes_by_the_formula() {
    let mut f = effects_frame(vec![]);
    f.target.clear = [200, 0, 0, 128];
    let r = draw_with_effects(&f, &[billboard(ALPHA, 10.0, 2.0, [0.0, 0.0, 1.0, 0.6])]);
    let (a, dst) = (0.6f32, f.target.clear);
    let expect = [
        byte(unorm(dst[0]) * (1.0 - a)),
        0,
        byte(a),
        byte(a + unorm(dst[3]) * (1.0 - a)),
    ];
    assert_eq!(expect, [80, 0, 153, 204]);
    assert_eq!(px(&r, CX, CY), expect);
}

#[test]
fn primitives_are_drawn_in_list_order_never_sorted() {
    let f = effects_frame(vec![]);
    let red = billboard(ALPHA, 10.0, 2.0, [1.0, 0.0, 0.0, 1.0]);
    let green = billboard(ALPHA, 10.0, 2.0, [0.0, 1.0, 0.0, 1.0]);
    assert_eq!(
        px(&draw_with_effects(&f, &[red, green]), CX, CY),
        [0, 255, 0, 255]
    );
    assert_eq!(
        px(&draw_with_effects(&f, &[green, red]), CX, CY),
        [255, 0, 0, 255]
    );
    // The later one is on top even when it is farther: no sorting, no depth write.
    let far_green = billboard(ALPHA, 12.0, 3.0, [0.0, 1.0, 0.0, 1.0]);
    let near_red = billboard(ALPHA, 8.0, 2.0, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        px(&draw_with_effects(&f, &[near_red, far_green]), CX, CY),
        [0, 255, 0, 255]
    );
}

#[test]
fn a_streak_covers_its_projected_line() {
    let f = effects_frame(vec![]);
    let white = [1.0, 1.0, 1.0, 1.0];
    // From x = −3 to 3 at z = 10: about pixels 22..=42 of row 24.
    let s = streak(ADD, v3(-3.0, 0.0, 10.0), v3(3.0, 0.0, 10.0), 0.5, white);
    let r = draw_with_effects(&f, &[s]);
    for x in 23..=41 {
        assert_eq!(px(&r, x, CY), [255, 255, 255, 255], "{x}");
    }
    for (x, y) in [(CX, CY - 4), (CX, CY + 4), (18, CY), (46, CY)] {
        assert_eq!(px(&r, x, y), EFFECTS_CLEAR, "{x},{y}");
    }
    // A streak reaching behind the camera is clipped at the near plane: its visible
    // part (from the bottom edge up to about row 26) is drawn, nothing else.
    let s = streak(ADD, v3(0.0, -1.0, -5.0), v3(0.0, -1.0, 20.0), 0.1, white);
    let r = draw_with_effects(&f, &[s]);
    for y in [30, 40, 48] {
        assert!(px(&r, CX, y)[0] > 10, "row {y}: {:?}", px(&r, CX, y));
    }
    assert_eq!(px(&r, CX, 20), EFFECTS_CLEAR);
    assert_eq!(px(&r, CX + 6, 40), EFFECTS_CLEAR);
    let c = r.effect_counters();
    assert_eq!((c.quads, c.rejected), (1, 0));
}

#[test]
fn a_point_light_is_a_faint_additive_glow() {
    let f = effects_frame(vec![]);
    // Declared ALPHA, drawn additive: 10 + 0.25 · 255 = 73.75.
    let light = effect(
        PrimitiveKind::POINT_LIGHT,
        ALPHA,
        v3(0.0, 0.0, 10.0),
        8.0,
        [1.0, 1.0, 1.0, 1.0],
    );
    let r = draw_with_effects(&f, &[light]);
    assert_eq!(px(&r, CX, CY), [74, 74, 74, 255]);
    // Radius 8 · 0.25 = 2 (about 7 px), not the light's reach of 8.
    assert_eq!(px(&r, CX + 10, CY), EFFECTS_CLEAR);
}

#[test]
fn rotation_turns_a_billboard_on_the_screen() {
    let f = effects_frame(vec![]);
    let mut b = billboard(ADD, 10.0, 4.0, [1.0, 1.0, 1.0, 1.0]);
    b.height = 0.5;
    let r = draw_with_effects(&f, &[b]);
    assert!(px(&r, CX + 3, CY)[0] > 10);
    assert_eq!(px(&r, CX, CY - 3), EFFECTS_CLEAR);
    b.rotation = std::f32::consts::FRAC_PI_2;
    let r = draw_with_effects(&f, &[b]);
    assert!(px(&r, CX, CY - 3)[0] > 10);
    assert_eq!(px(&r, CX + 3, CY), EFFECTS_CLEAR);
}

#[test]
fn behind_the_camera_or_bad_numbers_draw_nothing_and_never_panic() {
    let f = effects_frame(vec![quad(-1.0, -1.0, 1.0, 1.0, 5.0)]);
    let world = draw(&f);
    let white = [1.0, 1.0, 1.0, 1.0];
    // Behind the eye, and between the eye and the near plane (z = 1).
    let behind = [
        billboard(ADD, -10.0, 4.0, white),
        billboard(ADD, 0.5, 0.2, white),
        streak(ADD, v3(-1.0, 0.0, -3.0), v3(1.0, 0.0, -2.0), 0.5, white),
    ];
    let r = draw_with_effects(&f, &behind);
    assert_eq!(r.pixels(), world.pixels());
    let c = r.effect_counters();
    assert_eq!((c.quads, c.rejected, c.fragments), (3, 3, 0));

    let mut bad = Vec::new();
    for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        bad.push(effect(
            PrimitiveKind::PARTICLE,
            ADD,
            v3(v, 0.0, 10.0),
            1.0,
            white,
        ));
        bad.push(billboard(ADD, 10.0, v, white));
        bad.push(billboard(ADD, 10.0, 1.0, [v, 1.0, 1.0, 1.0]));
        bad.push(streak(
            ADD,
            v3(0.0, 0.0, 10.0),
            v3(0.0, v, 10.0),
            1.0,
            white,
        ));
        let mut rot = billboard(ADD, 10.0, 1.0, white);
        rot.rotation = v;
        bad.push(rot);
        let mut tall = billboard(ADD, 10.0, 1.0, white);
        tall.height = v;
        bad.push(tall);
    }
    for size in [0.0, -1.0] {
        bad.push(billboard(ADD, 10.0, size, white));
    }
    // A zero-length streak, and one seen exactly end-on.
    bad.push(streak(
        ADD,
        v3(0.0, 0.0, 10.0),
        v3(0.0, 0.0, 10.0),
        1.0,
        white,
    ));
    bad.push(streak(
        ADD,
        v3(0.0, 0.0, 5.0),
        v3(0.0, 0.0, 10.0),
        1.0,
        white,
    ));
    let r = draw_with_effects(&f, &bad);
    assert_eq!(r.pixels(), world.pixels());
    assert_eq!(r.effect_counters(), EffectCounters::default());

    // Huge but finite sizes go through the clipper without a panic.
    let huge = [
        billboard(ADD, 10.0, f32::MAX, [0.0, 0.0, 0.0, 1.0]),
        billboard(ADD, 10.0, 1.0e30, [0.0, 0.0, 0.0, 1.0]),
        billboard(ADD, 30.0, 1.0e6, [0.0, 0.0, 1.0, 1.0]),
    ];
    let r = draw_with_effects(&f, &huge);
    assert_eq!(r.effect_counters().quads, 3);
    // The last one covers the screen beside the wall (its sprite centre is on the axis).
    assert_eq!(px(&r, 0, 0)[2], 255, "{:?}", px(&r, 0, 0));
    assert_eq!(px(&r, CX, CY), [51, 51, 51, 255], "still behind the wall");
    // No target (0×0): nothing happens.
    let mut empty = SoftRasterizer::new();
    assert_eq!(
        empty.draw_effects(&f.camera, &huge),
        EffectCounters::default()
    );
}

#[test]
fn an_unknown_kind_or_blend_is_skipped() {
    let f = effects_frame(vec![]);
    let white = [1.0, 1.0, 1.0, 1.0];
    let kind = effect(PrimitiveKind(99), ADD, v3(0.0, 0.0, 10.0), 2.0, white);
    let blend = billboard(EffectBlend(7), 10.0, 2.0, white);
    let known = billboard(ADD, 10.0, 2.0, [0.0, 0.0, 1.0, 1.0]);
    let r = draw_with_effects(&f, &[kind, blend]);
    assert_eq!(r.pixels(), draw(&f).pixels());
    assert_eq!(r.effect_counters().quads, 0);
    // Between known ones they change nothing either.
    let r = draw_with_effects(&f, &[kind, known, blend]);
    assert_eq!(r.pixels(), draw_with_effects(&f, &[known]).pixels());
    assert_eq!(r.effect_counters().quads, 1);
}

fn effect_frame(primitives: Vec<EffectPrimitive>) -> EffectFrame {
    EffectFrame {
        frame: 1,
        tick: 1,
        instances: 1,
        primitives: primitives.into(),
        textures: Default::default(),
    }
}

#[test]
fn the_plugin_draws_each_effect_frame_once_and_nothing_without_one() {
    let f = effects_frame(vec![quad(-1.0, -1.0, 1.0, 1.0, 5.0)]);
    let plain = draw(&f);
    let a = vec![billboard(ADD, 3.0, 0.5, [0.0, 0.0, 1.0, 1.0])];
    let b = vec![billboard(ADD, 10.0, 8.0, [1.0, 0.0, 0.0, 1.0])];

    // Never given effects: pixel-identical to the rasterizer alone.
    let mut p = SoftRender::new();
    p.draw(&f).unwrap();
    assert_eq!(p.capture().unwrap().pixels.as_slice(), plain.pixels());

    // Given effects: drawn in the next draw only.
    assert!(p.effects(&effect_frame(a.clone())).is_ok());
    p.draw(&f).unwrap();
    let with_a = draw_with_effects(&f, &a);
    assert_ne!(with_a.pixels(), plain.pixels());
    assert_eq!(p.capture().unwrap().pixels.as_slice(), with_a.pixels());
    assert_eq!(p.rasterizer().effect_counters().quads, 1);
    p.draw(&f).unwrap();
    assert_eq!(p.capture().unwrap().pixels.as_slice(), plain.pixels());
    assert_eq!(p.rasterizer().effect_counters(), EffectCounters::default());

    // A later call replaces an undrawn one.
    p.effects(&effect_frame(a.clone())).unwrap();
    p.effects(&effect_frame(b.clone())).unwrap();
    p.draw(&f).unwrap();
    assert_eq!(
        p.capture().unwrap().pixels.as_slice(),
        draw_with_effects(&f, &b).pixels()
    );

    // With an overlay: effects first, then the overlay over them.
    let o = crate::fixtures::overlay(1);
    p.effects(&effect_frame(a.clone())).unwrap();
    p.draw_with_overlay(&f, &o).unwrap();
    let mut want = draw_with_effects(&f, &a).pixels().to_vec();
    let (w, h) = EFFECTS_TARGET;
    iron3d_abi::overlay::composite(&o, w, h, &mut want);
    assert_eq!(p.capture().unwrap().pixels.as_slice(), want.as_slice());

    // Effects handed over before a refused target are consumed with it.
    p.effects(&effect_frame(a)).unwrap();
    let mut big = f.clone();
    big.target.width = crate::MAX_TARGET_DIM + 1;
    assert!(p.draw(&big).is_err());
    p.draw(&f).unwrap();
    assert_eq!(p.capture().unwrap().pixels.as_slice(), plain.pixels());
}

/// `n` soft particles `size` wide, spread over z 4..40 in the view, a third of them
/// alpha-blended, the rest additive.
fn particle_field(n: usize, size: f32) -> Vec<EffectPrimitive> {
    (0..n)
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
                size,
                [1.0, 0.6, 0.2, 0.5],
            )
        })
        .collect()
}

#[test]
fn ten_thousand_particles_are_drawn() {
    let f = bench_frame(160, 120);
    let field = particle_field(10_000, 0.3);
    let r = draw_with_effects(&f, &field);
    let c = r.effect_counters();
    assert_eq!((c.quads, c.rejected), (10_000, 0));
    assert!(c.fragments > 1_000, "{c:?}");
    assert_ne!(r.pixels(), draw(&f).pixels());
}

#[test]
#[ignore = "timing report: cargo test --release -p iron3d-render-soft -- --ignored --nocapture"]
#[allow(clippy::disallowed_methods)] // wall time measures the rasterizer, not a simulation
fn timing_ten_thousand_particles_640x480() {
    let f = bench_frame(640, 480);
    let mut r = SoftRasterizer::new();
    r.draw(&f);
    let n = 20;
    let t = std::time::Instant::now();
    for _ in 0..n {
        r.draw(&f);
    }
    let world = t.elapsed() / n;
    eprintln!("world alone {world:?}");
    for size in [0.3, 1.0] {
        let field = particle_field(10_000, size);
        let t = std::time::Instant::now();
        for _ in 0..n {
            r.draw(&f);
            r.draw_effects(&f.camera, &field);
        }
        let both = t.elapsed() / n;
        eprintln!(
            "size {size}: world + 10k particles {both:?} (particles {:?}), {:?}",
            both.saturating_sub(world),
            r.effect_counters()
        );
    }
}

#[test]
fn the_byte_rounding_is_rule_13_exactly() {
    use crate::raster::{to_u8, to_u8_reference};
    // Every f32 from −0.01 to 1.01 with a stride of 61 bit patterns (about 17 million
    // values, halves of a byte included), and the edges.
    let (lo, hi) = ((-0.01f32).to_bits(), 1.01f32.to_bits());
    let mut checked = 0u32;
    let mut b = 0u32;
    while b < hi {
        let c = f32::from_bits(b);
        assert_eq!(to_u8(c), to_u8_reference(c), "{c:e}");
        checked += 1;
        b += 61;
    }
    let mut b = 0x8000_0000u32;
    while b < lo {
        let c = f32::from_bits(b);
        assert_eq!(to_u8(c), to_u8_reference(c), "{c:e}");
        b += 4099;
    }
    for k in 0..=255u32 {
        for x in [
            k as f32 + 0.5,
            k as f32 + 0.499_999_97,
            k as f32 + 0.500_000_1,
        ] {
            for c in [x / 255.0, f32::from_bits((x / 255.0).to_bits() + 1)] {
                assert_eq!(to_u8(c), to_u8_reference(c), "{c:e}");
            }
        }
    }
    for c in [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        f32::MAX,
        f32::MIN_POSITIVE,
        0.5 / 255.0,
        254.5 / 255.0,
    ] {
        assert_eq!(to_u8(c), to_u8_reference(c), "{c:e}");
    }
    assert!(checked > 10_000_000);
}

/// Rule 10's texel index without `floorf` is the formula's for every float: all
/// patterns with a stride of 4093 (about a million values of each sign, NaNs and
/// infinities included), the halves and edges of texels, for several sizes.
#[test]
fn the_texel_index_is_rule_10_exactly() {
    use crate::raster::{wrap_for_test, wrap_reference};
    let sizes = [1u32, 3, 64, 256, 1000];
    let mut b = 0u64;
    while b <= u64::from(u32::MAX) {
        let c = f32::from_bits(b as u32);
        for s in sizes {
            assert_eq!(wrap_for_test(c, s), wrap_reference(c, s), "{c:e} over {s}");
        }
        b += 4093;
    }
    for k in -600i32..=600 {
        let x = k as f32 / 64.0;
        for c in [
            x,
            f32::from_bits(x.to_bits().wrapping_add(1)),
            f32::from_bits(x.to_bits().wrapping_sub(1)),
            -x,
        ] {
            for s in sizes {
                assert_eq!(wrap_for_test(c, s), wrap_reference(c, s), "{c:e} over {s}");
            }
        }
    }
    for c in [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        8_388_607.5,
        8_388_608.0,
        -8_388_607.5,
        -8_388_608.0,
        2_147_483_648.0,
        -2_147_483_904.0,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        -1.0e-30,
        0.999_999_94,
        -0.999_999_94,
    ] {
        for s in sizes {
            assert_eq!(wrap_for_test(c, s), wrap_reference(c, s), "{c:e} over {s}");
        }
    }
}

/// [`effects_frame`] whose resources also hold a 2×2 sprite texture named
/// `sprites.lib/QUAD.TEX`: top row red, green; bottom row blue, then white with alpha 0.
fn sprite_frame() -> iron3d_abi::RenderFrame {
    effects_frame_with_sprite(
        "sprites.lib/QUAD.TEX",
        texture(
            2,
            2,
            vec![
                255, 0, 0, 255, 0, 255, 0, 255, //
                0, 0, 255, 255, 255, 255, 255, 0,
            ],
        ),
    )
}

#[test]
fn a_textured_billboard_shows_its_texels_and_their_alpha() {
    // PD-RENDER-EFFECT-TEXTURES: the name matches whatever its case; the sprite's
    // top-left quarter is texel (0, 0), +v up.
    let f = sprite_frame();
    let mut board = billboard(ADD, 10.0, 4.0, [1.0, 1.0, 1.0, 1.0]);
    board.texture = 0;
    let names = vec![RString::from("SPRITES.LIB/quad.tex")];
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[board], &names, &f.resources);
    assert_eq!(px(&r, CX - 3, CY - 3), [255, 10, 10, 255], "red, top left");
    assert_eq!(
        px(&r, CX + 3, CY - 3),
        [10, 255, 10, 255],
        "green, top right"
    );
    assert_eq!(
        px(&r, CX - 3, CY + 3),
        [10, 10, 255, 255],
        "blue, bottom left"
    );
    assert_eq!(
        px(&r, CX + 3, CY + 3),
        EFFECTS_CLEAR,
        "alpha 0, bottom right"
    );
    // Colour and opacity scale the texel: half-opacity yellow-tinted red.
    let mut dim = board;
    dim.colour = [1.0, 1.0, 0.0, 0.5];
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[dim], &names, &f.resources);
    assert_eq!(px(&r, CX - 3, CY - 3), [10 + 128, 10, 10, 255]);
    assert_eq!(px(&r, CX + 3, CY - 3), [10, 10 + 128, 10, 255]);
    assert_eq!(
        px(&r, CX - 3, CY + 3),
        EFFECTS_CLEAR,
        "blue × (1, 1, 0) adds nothing"
    );

    // A texture name the resources lack, a texture index past the names, and a kind
    // that is never textured (a streak) all draw exactly the soft sprite.
    let soft = draw_with_effects(&f, &[billboard(ADD, 10.0, 4.0, [1.0; 4])]);
    let mut r = draw(&f);
    r.draw_textured_effects(
        &f.camera,
        &[board],
        &[RString::from("sprites.lib/NONE.TEX")],
        &f.resources,
    );
    assert_eq!(r.pixels(), soft.pixels());
    let mut far = board;
    far.texture = 5;
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[far], &names, &f.resources);
    assert_eq!(r.pixels(), soft.pixels());
    let mut band = streak(ADD, v3(-1.0, 0.0, 10.0), v3(1.0, 0.0, 10.0), 0.5, [1.0; 4]);
    let soft_band = draw_with_effects(&f, &[band]);
    band.texture = 0;
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[band], &names, &f.resources);
    assert_eq!(r.pixels(), soft_band.pixels());

    // The plugin draws an effect frame's textures the same way.
    let mut p = SoftRender::new();
    let frame = EffectFrame {
        primitives: vec![board].into(),
        textures: names.clone().into(),
        ..EffectFrame::default()
    };
    p.effects(&frame).unwrap();
    p.draw(&f).unwrap();
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[board], &names, &f.resources);
    assert_eq!(p.capture().unwrap().pixels.as_slice(), r.pixels());
}

#[test]
fn a_textured_sprite_past_the_guard_band_samples_by_the_same_rule() {
    // A billboard far larger than the screen leaves the guard band and goes through the
    // clipper and the triangle scan (not the direct scan): the texels follow the same
    // rule — just above-left of the sprite's centre is texel (0, 0), just below-right
    // texel (1, 1) (alpha 0, nothing drawn).
    let f = sprite_frame();
    let names = vec![RString::from("sprites.lib/QUAD.TEX")];
    let mut board = billboard(ALPHA, 10.0, 10_000.0, [1.0, 1.0, 1.0, 1.0]);
    board.texture = 0;
    let mut r = draw(&f);
    r.draw_textured_effects(&f.camera, &[board], &names, &f.resources);
    assert_eq!(
        px(&r, CX - 1, CY - 1),
        [255, 0, 0, 255],
        "alpha-blended red texel"
    );
    assert_eq!(px(&r, 0, 0), [255, 0, 0, 255]);
    assert_eq!(px(&r, CX + 1, CY - 1), [0, 255, 0, 255]);
    assert_eq!(px(&r, CX - 1, CY + 1), [0, 0, 255, 255]);
    assert_eq!(px(&r, CX + 1, CY + 1), EFFECTS_CLEAR);
    assert_eq!(px(&r, 64, 48), EFFECTS_CLEAR);
}
