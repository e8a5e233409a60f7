//! The sky (**PD-RENDER-SKY**; the original's `sky.ske` / `sky.wea` are undocumented,
//! FORMATS §16): a sphere of [`SKY_RADIUS`] around the camera with a vertical gradient
//! texture — deep blue at the zenith, pale at the horizon, a grey haze below it — drawn
//! unlit in the atmosphere phase, depth-tested without writing depth, so it shows only
//! where nothing else was drawn (it lies inside the far plane, behind everything nearer).
//!
//! The mesh and the texture are generated here, the same bytes every time, and added to
//! a mission's render resources by [`crate::SceneAssets::load`]; [`sky_item`] is the
//! frame's last draw item.

use glam::{Mat4, Vec3};
use iron3d_abi::abi_stable::std_types::{RString, RVec};
use iron3d_abi::{
    BlendMode, CullMode, DepthMode, DrawItem, LegacyRenderState, MeshResource, RenderPhase,
    TextureKind, TextureLevel, TextureOp, TextureResource, TextureStage, VertexFormat,
};

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

/// The gradient texture: 4 × [`ROWS`] texels, row `r` the colour at elevation
/// `π/2 − π·(r + ½)/ROWS` (the sphere's `v` runs from 0 at the zenith to 1 at the nadir).
pub fn sky_texture() -> TextureResource {
    let mut rgba = Vec::with_capacity((4 * ROWS * 4) as usize);
    for r in 0..ROWS {
        let e = std::f32::consts::FRAC_PI_2 - std::f32::consts::PI * (r as f32 + 0.5) / ROWS as f32;
        let [cr, cg, cb] = gradient(e);
        for _ in 0..4 {
            rgba.extend_from_slice(&[cr, cg, cb, 255]);
        }
    }
    TextureResource {
        name: RString::from("sky (generated)"),
        kind: TextureKind::Diffuse,
        skipped_levels: 0,
        levels: RVec::from(vec![TextureLevel {
            width: 4,
            height: ROWS,
            rgba: RVec::from(rgba),
        }]),
    }
}

/// The unit sphere: [`STACKS`] + 1 rings of [`SLICES`] + 1 vertices (the seam repeated),
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
