//! The sky (**PD-RENDER-SKY**; the original's `sky.ske` / `sky.wea` are undocumented,
//! FORMATS §16): a sphere of [`SKY_RADIUS`] around the camera with a vertical gradient
//! texture — deep blue at the zenith, pale at the horizon, a grey haze below it — drawn
//! unlit in the atmosphere phase, depth-tested without writing depth, so it shows only
//! where nothing else was drawn (it lies inside the far plane, behind everything nearer).
//!
//! The mesh and the texture are generated here, the same bytes every time, and added to
//! a mission's render resources by [`crate::SceneAssets::load`]; [`sky_item`] is the
//! frame's last draw item.
//!
//! **PD-RENDER-SKY-WEATHER**: a mission with a sky object (PD-SKY-BLOCK in
//! `iron3d_effects_rules::sky`) has its frames follow the sky's schedule at the frame's
//! game time, quantised as the atmosphere's owner quantises what it broadcasts
//! (PD-SKY-STEP), so a frame shows the weather the effects and audio plugins heard:
//! * the sky's base RGB, each channel clamped to `0..=1`, multiplies the frame's sun
//!   colour and ambient ([`weather_lighting`]): a dark storm sky darkens the scene;
//! * the dome is one of [`SkyLook::COUNT`] gradient textures generated at the load
//!   ([`sky_texture_of`]): its brightness is the largest clamped channel in
//!   [`BRIGHTNESS_STEPS`] steps, its overcast (the gradient blended towards a flat grey)
//!   the larger of the rain and snow intensities in [`OVERCAST_STEPS`] steps.
//!
//! The schedule is data and the look a pure function of it and the game time: a replay,
//! a loaded save or a hot swap draws the same sky at the same time. A mission without a
//! sky draws the clear look with the lighting unchanged.

use glam::{Mat4, Vec3};
use iron3d_abi::abi_stable::std_types::{RString, RVec};
use iron3d_abi::{
    BlendMode, CullMode, DepthMode, DrawItem, LegacyRenderState, Lighting, MeshResource,
    RenderPhase, TextureKind, TextureLevel, TextureOp, TextureResource, TextureStage, VertexFormat,
};
use iron3d_effects_rules::sky::Weather;

/// The sky sphere's radius in world units (inside the default far plane of 700).
pub const SKY_RADIUS: f32 = 600.0;

/// Rings of the sphere from the nadir to the zenith.
const STACKS: u16 = 18;
/// Segments of each ring.
const SLICES: u16 = 24;
/// Rows of the gradient texture (zenith first).
const ROWS: u32 = 256;

/// The gradient's colour at elevation `e` (radians, −π/2 … π/2).
fn gradient(e: f32) -> [u8; 3] {
    const ZENITH: [f32; 3] = [58.0, 96.0, 160.0];
    const HIGH: [f32; 3] = [118.0, 158.0, 205.0];
    const HORIZON: [f32; 3] = [196.0, 214.0, 226.0];
    const HAZE: [f32; 3] = [150.0, 158.0, 160.0];
    let deg = e.to_degrees();
    let mix = |a: [f32; 3], b: [f32; 3], t: f32| {
        let t = t.clamp(0.0, 1.0);
        [
            (a[0] + (b[0] - a[0]) * t).round() as u8,
            (a[1] + (b[1] - a[1]) * t).round() as u8,
            (a[2] + (b[2] - a[2]) * t).round() as u8,
        ]
    };
    if deg >= 20.0 {
        mix(HIGH, ZENITH, (deg - 20.0) / 70.0)
    } else if deg >= 0.0 {
        mix(HORIZON, HIGH, deg / 20.0)
    } else {
        mix(HORIZON, HAZE, -deg / 10.0)
    }
}

/// PD-RENDER-SKY-WEATHER: brightness steps of the dome (a look's brightness is
/// `brightness / BRIGHTNESS_STEPS`, at least one step).
pub const BRIGHTNESS_STEPS: u8 = 8;
/// PD-RENDER-SKY-WEATHER: overcast steps of the dome (a look's overcast is
/// `overcast / OVERCAST_STEPS`, 0: clear).
pub const OVERCAST_STEPS: u8 = 3;

/// The overcast grey at elevation `e` (radians): a flat grey, a little lighter at the
/// horizon.
fn overcast_grey(e: f32) -> [f32; 3] {
    let high = e.clamp(0.0, std::f32::consts::FRAC_PI_2) / std::f32::consts::FRAC_PI_2;
    [
        150.0 - 28.0 * high,
        155.0 - 26.0 * high,
        160.0 - 22.0 * high,
    ]
}

/// How the dome looks (PD-RENDER-SKY-WEATHER): a brightness step (1 ..=
/// [`BRIGHTNESS_STEPS`]) and an overcast step (0 ..= [`OVERCAST_STEPS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SkyLook {
    /// Brightness step, `1..=BRIGHTNESS_STEPS`.
    pub brightness: u8,
    /// Overcast step, `0..=OVERCAST_STEPS`.
    pub overcast: u8,
}

impl SkyLook {
    /// The clear sky at full brightness (a mission without a sky object).
    pub const CLEAR: SkyLook = SkyLook {
        brightness: BRIGHTNESS_STEPS,
        overcast: 0,
    };
    /// How many looks there are (the textures a mission with a sky loads).
    pub const COUNT: u32 = BRIGHTNESS_STEPS as u32 * (OVERCAST_STEPS as u32 + 1);

    /// The look of `weather`: the largest of its base RGB's channels clamped to `0..=1`
    /// in brightness steps (rounded, at least one), the larger of rain and snow clamped
    /// to `0..=1` in overcast steps (rounded). Not-a-number counts as 0.
    pub fn of(weather: &Weather) -> Self {
        let unit = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
        let bright = unit(weather.rgb.x)
            .max(unit(weather.rgb.y))
            .max(unit(weather.rgb.z));
        let wet = unit(weather.rain).max(unit(weather.snow));
        let steps = |v: f32, n: u8| (v * f32::from(n)).round() as u8;
        Self {
            brightness: steps(bright, BRIGHTNESS_STEPS).clamp(1, BRIGHTNESS_STEPS),
            overcast: steps(wet, OVERCAST_STEPS).min(OVERCAST_STEPS),
        }
    }

    /// Its place among the [`SkyLook::COUNT`] looks (brightness-major; [`SkyLook::all`]
    /// order).
    pub fn index(self) -> u32 {
        u32::from(self.brightness.clamp(1, BRIGHTNESS_STEPS) - 1) * (u32::from(OVERCAST_STEPS) + 1)
            + u32::from(self.overcast.min(OVERCAST_STEPS))
    }

    /// Every look, in [`SkyLook::index`] order.
    pub fn all() -> impl Iterator<Item = SkyLook> {
        (1..=BRIGHTNESS_STEPS).flat_map(|brightness| {
            (0..=OVERCAST_STEPS).map(move |overcast| SkyLook {
                brightness,
                overcast,
            })
        })
    }
}

/// PD-RENDER-SKY-WEATHER: `base` with its sun colour and ambient multiplied by
/// `weather`'s base RGB, each channel clamped to `0..=1` (not-a-number counts as 0).
pub fn weather_lighting(base: Lighting, weather: &Weather) -> Lighting {
    let unit = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    let tint = [
        unit(weather.rgb.x),
        unit(weather.rgb.y),
        unit(weather.rgb.z),
    ];
    let scale = |c: [f32; 3]| [c[0] * tint[0], c[1] * tint[1], c[2] * tint[2]];
    Lighting {
        sun_direction: base.sun_direction,
        sun_colour: scale(base.sun_colour),
        ambient: scale(base.ambient),
    }
}

/// The clear gradient texture ([`sky_texture_of`] of [`SkyLook::CLEAR`]).
pub fn sky_texture() -> TextureResource {
    sky_texture_of(SkyLook::CLEAR)
}

/// The gradient texture of `look`: 4 × 256 texels (`ROWS`), row `r` the colour at
/// elevation `π/2 − π·(r + ½)/ROWS` (the sphere's `v` runs from 0 at the zenith to 1 at the nadir):
/// the clear gradient blended towards the overcast grey by the overcast, then scaled by
/// the brightness. [`SkyLook::CLEAR`] is the clear gradient exactly.
pub fn sky_texture_of(look: SkyLook) -> TextureResource {
    let overcast = f32::from(look.overcast.min(OVERCAST_STEPS)) / f32::from(OVERCAST_STEPS);
    let bright =
        f32::from(look.brightness.clamp(1, BRIGHTNESS_STEPS)) / f32::from(BRIGHTNESS_STEPS);
    let mut rgba = Vec::with_capacity((4 * ROWS * 4) as usize);
    for r in 0..ROWS {
        let e = std::f32::consts::FRAC_PI_2 - std::f32::consts::PI * (r as f32 + 0.5) / ROWS as f32;
        let clear = gradient(e);
        let grey = overcast_grey(e);
        let mut c = [0u8; 3];
        for k in 0..3 {
            let base = f32::from(clear[k]);
            c[k] = ((base + (grey[k] - base) * overcast) * bright)
                .round()
                .clamp(0.0, 255.0) as u8;
        }
        for _ in 0..4 {
            rgba.extend_from_slice(&[c[0], c[1], c[2], 255]);
        }
    }
    let name = if look == SkyLook::CLEAR {
        "sky (generated)".to_owned()
    } else {
        format!(
            "sky (generated, brightness {}/{BRIGHTNESS_STEPS}, overcast {}/{OVERCAST_STEPS})",
            look.brightness, look.overcast
        )
    };
    TextureResource {
        name: RString::from(name),
        kind: TextureKind::Diffuse,
        skipped_levels: 0,
        levels: RVec::from(vec![TextureLevel {
            width: 4,
            height: ROWS,
            rgba: RVec::from(rgba),
        }]),
    }
}

/// The unit sphere: 18 + 1 rings (`STACKS`) of 24 + 1 vertices (`SLICES`; the seam
/// repeated),
/// normals inward, `u` the azimuth / 2π, `v` 0 at the zenith to 1 at the nadir.
pub fn sky_mesh() -> MeshResource {
    let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..=STACKS {
        let v = f32::from(i) / f32::from(STACKS);
        let e = std::f32::consts::FRAC_PI_2 - std::f32::consts::PI * v;
        let (sin_e, cos_e) = e.sin_cos();
        for j in 0..=SLICES {
            let u = f32::from(j) / f32::from(SLICES);
            let (sin_a, cos_a) = (std::f32::consts::TAU * u).sin_cos();
            let p = [cos_e * cos_a, cos_e * sin_a, sin_e];
            positions.push(p);
            normals.push([-p[0], -p[1], -p[2]]);
            uvs.push([u, v]);
        }
    }
    let mut indices = Vec::new();
    let row = SLICES + 1;
    for i in 0..STACKS {
        for j in 0..SLICES {
            let a = i * row + j;
            let b = a + row;
            indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    MeshResource {
        name: RString::from("sky (generated)"),
        positions: RVec::from(positions),
        normals: RVec::from(normals),
        uvs: RVec::from(uvs),
        indices: RVec::from(indices),
    }
}

/// The frame's sky item: `mesh` and `texture` (the resources' indices of [`sky_mesh`] and
/// [`sky_texture`]) centred on the eye at `eye`, unlit, opaque, both faces, depth-tested
/// without depth write, in [`RenderPhase::Atmosphere`].
pub fn sky_item(mesh: u32, texture: u32, eye: Vec3, index_count: u32) -> DrawItem {
    let state = LegacyRenderState {
        stages: [
            TextureStage {
                texture,
                op: TextureOp::SelectTexture,
                uv_scale: [1.0, 1.0],
            },
            TextureStage::OFF,
        ],
        blend: BlendMode::Opaque,
        depth: DepthMode {
            test: true,
            write: false,
        },
        cull: CullMode::None,
        alpha_test: false,
        alpha_ref: 0,
        vertex_format: VertexFormat::PositionNormalUv,
    };
    DrawItem {
        object: 0,
        node: 0,
        slot: 0,
        mesh,
        batch_flags: 0,
        index_start: 0,
        index_count,
        base_vertex: 0,
        world: (Mat4::from_translation(eye) * Mat4::from_scale(Vec3::splat(SKY_RADIUS))).into(),
        material: u32::MAX,
        phase_a: 0,
        phase_b: 0,
        phase_t: 0.0,
        phase: RenderPhase::Atmosphere,
        sort_key: u64::MAX,
        insertion: 0,
        state,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sky_is_blue_above_pale_at_the_horizon_and_haze_below() {
        let t = sky_texture();
        let level = &t.levels[0];
        let at = |row: u32| {
            let o = (row * level.width * 4) as usize;
            [level.rgba[o], level.rgba[o + 1], level.rgba[o + 2]]
        };
        let (zenith, horizon, nadir) = (at(0), at(ROWS / 2), at(ROWS - 1));
        assert!(zenith[2] > zenith[0] + 80, "deep blue: {zenith:?}");
        assert!(horizon[0] > zenith[0] + 100, "pale: {horizon:?}");
        assert_eq!(nadir, [150, 158, 160], "haze");
        assert_eq!(sky_texture(), t, "the same bytes every time");
    }

    fn weather(rain: f32, snow: f32, rgb: [f32; 3]) -> Weather {
        Weather {
            rain,
            snow,
            lightning: 0.0,
            rgb: Vec3::from(rgb),
        }
    }

    /// PD-RENDER-SKY-WEATHER: the clear look is the clear gradient byte for byte; the
    /// demo battle's storm sky (base RGB 0.45 0.45 0.55, rain 0.8) is half as bright
    /// and two thirds overcast: darker everywhere (its channels' sum under 70 % of the
    /// clear one's) and greyer (its blue over its red
    /// shrinks).
    #[test]
    fn the_clear_look_is_the_gradient_and_a_storm_is_darker_and_greyer() {
        assert_eq!(sky_texture_of(SkyLook::CLEAR), sky_texture());
        assert_eq!(sky_texture().name.as_str(), "sky (generated)");
        let storm = SkyLook::of(&weather(0.8, 0.0, [0.45, 0.45, 0.55]));
        assert_eq!(
            storm,
            SkyLook {
                brightness: 4,
                overcast: 2
            }
        );
        let (clear, dark) = (sky_texture(), sky_texture_of(storm));
        let texel = |t: &TextureResource, row: u32| {
            let o = (row * 4 * 4) as usize;
            let l = &t.levels[0].rgba;
            [l[o], l[o + 1], l[o + 2]]
        };
        for row in [0, ROWS / 4, ROWS / 2, ROWS - 1] {
            let (c, d) = (texel(&clear, row), texel(&dark, row));
            let sum = |c: [u8; 3]| c.iter().map(|&v| u32::from(v)).sum::<u32>();
            assert!(
                sum(d) * 10 < sum(c) * 7,
                "row {row}: storm {d:?} not darker than clear {c:?}"
            );
        }
        let blue_over_red = |c: [u8; 3]| f32::from(c[2]) / f32::from(c[0]).max(1.0);
        assert!(blue_over_red(texel(&dark, 0)) < blue_over_red(texel(&clear, 0)) * 0.7);
        // Full overcast at full brightness: the flat grey.
        let grey = sky_texture_of(SkyLook {
            brightness: BRIGHTNESS_STEPS,
            overcast: OVERCAST_STEPS,
        });
        assert_eq!(texel(&grey, ROWS / 2 - 1), [150, 155, 160]);
    }

    /// The looks' indices are their places in [`SkyLook::all`], each once; out-of-range
    /// weather clamps (bright above 1, rain above 1, negatives and NaN count as 0, the
    /// darkest look keeps one step).
    #[test]
    fn looks_are_indexed_in_order_and_weather_clamps() {
        let all: Vec<SkyLook> = SkyLook::all().collect();
        assert_eq!(all.len() as u32, SkyLook::COUNT);
        for (i, l) in all.iter().enumerate() {
            assert_eq!(l.index(), i as u32, "{l:?}");
        }
        assert_eq!(
            SkyLook::CLEAR.index(),
            SkyLook::COUNT - u32::from(OVERCAST_STEPS) - 1
        );
        assert_eq!(
            SkyLook::of(&weather(2.0, 0.0, [3.0, 0.0, 0.0])),
            SkyLook {
                brightness: BRIGHTNESS_STEPS,
                overcast: OVERCAST_STEPS
            }
        );
        assert_eq!(
            SkyLook::of(&weather(f32::NAN, -1.0, [f32::NAN, -2.0, 0.01])),
            SkyLook {
                brightness: 1,
                overcast: 0
            }
        );
        // Snow counts as rain does; the larger wins.
        assert_eq!(SkyLook::of(&weather(0.1, 0.5, [1.0; 3])).overcast, 2);
        // Every look's texture has its own bytes.
        let textures: Vec<_> = all
            .iter()
            .map(|&l| sky_texture_of(l).levels[0].rgba.clone())
            .collect();
        for i in 0..textures.len() {
            for j in i + 1..textures.len() {
                assert_ne!(textures[i], textures[j], "{:?} {:?}", all[i], all[j]);
            }
        }
    }

    /// PD-RENDER-SKY-WEATHER: the base RGB, clamped to `0..=1` per channel, multiplies
    /// the sun colour and the ambient; the sun's direction stays.
    #[test]
    fn the_weather_tints_the_sun_and_the_ambient() {
        let base = crate::DEFAULT_LIGHTING;
        let lit = weather_lighting(base, &weather(0.8, 0.0, [0.5, 2.0, f32::NAN]));
        assert_eq!(lit.sun_direction, base.sun_direction);
        assert_eq!(
            lit.sun_colour,
            [base.sun_colour[0] * 0.5, base.sun_colour[1], 0.0]
        );
        assert_eq!(lit.ambient, [base.ambient[0] * 0.5, base.ambient[1], 0.0]);
        let unchanged = weather_lighting(base, &weather(0.0, 0.0, [1.0; 3]));
        assert_eq!(unchanged.sun_colour, base.sun_colour);
        assert_eq!(unchanged.ambient, base.ambient);
    }

    #[test]
    fn the_sphere_is_closed_and_its_v_follows_the_elevation() {
        let m = sky_mesh();
        assert_eq!(
            m.indices.len(),
            6 * usize::from(STACKS) * usize::from(SLICES)
        );
        assert!(
            m.indices
                .iter()
                .all(|&i| usize::from(i) < m.positions.len())
        );
        for (p, uv) in m.positions.iter().zip(m.uvs.iter()) {
            let len = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-5);
            let e = p[2].asin();
            let v = 0.5 - e / std::f32::consts::PI;
            assert!((uv[1] - v).abs() < 1e-4, "{uv:?} at {p:?}");
        }
    }

    #[test]
    fn the_item_follows_the_eye_and_never_writes_depth() {
        let item = sky_item(3, 5, Vec3::new(10.0, 20.0, 30.0), 36);
        assert_eq!(item.phase, RenderPhase::Atmosphere);
        assert!(item.state.depth.test && !item.state.depth.write);
        let w = Mat4::from(item.world);
        let p = w.transform_point3(Vec3::Z);
        assert!((p - Vec3::new(10.0, 20.0, 630.0)).length() < 1e-3);
    }
}
