//! (2.11) Effect primitives drawn over the world: each primitive becomes one
//! camera-facing quad (two triangles) rasterised by the reference rules with the soft
//! sprite stage, depth-tested against the world and never writing depth (see the crate
//! docs, "Effects").

use crate::raster::{
    GUARD_BAND, ItemState, Sampler, SoftRasterizer, Stage, UNORM8, Vert, project, to_u8,
};
use abi_stable::std_types::RString;
use glam::{Mat4, Vec4};
use iron3d_abi::{BlendMode, Camera, CullMode, EffectPrimitive, RenderResources};

/// A point light's glow radius and opacity (the interface's, shared by the renderers).
pub use iron3d_abi::effects::{GLOW_OPACITY, GLOW_RADIUS};

/// Counters of the last [`SoftRasterizer::draw_effects`] (reset by every
/// [`SoftRasterizer::draw`]). Primitives of an unknown kind or blend and primitives with a
/// non-finite or non-positive number are skipped and counted nowhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EffectCounters {
    /// Quads handed to the rasterizer (a known kind and blend, finite numbers).
    pub quads: u32,
    /// Quads entirely outside one plane of the view volume (behind the camera included).
    pub rejected: u32,
    /// Fragments the quads blended into the colour buffer.
    pub fragments: u64,
}

/// One primitive as a quad: clip-space corners in order around it, the sprite
/// coordinates of each corner, colour, opacity, blend and sprite texture.
#[derive(Clone, Copy)]
pub(crate) struct EffectQuad<'a> {
    pub(crate) clip: [Vec4; 4],
    pub(crate) uv: [[f32; 2]; 4],
    pub(crate) colour: [f32; 3],
    pub(crate) opacity: f32,
    pub(crate) blend: BlendMode,
    /// The sprite's texture (`None`: the soft round sprite).
    pub(crate) texture: Option<Sampler<'a>>,
}

/// The textures of effect frame texture names `names` (index for index) among
/// `resources`' textures, matched ASCII-case-insensitively
/// (PD-RENDER-EFFECT-TEXTURES); `None` for a name not there or a texture that is not
/// usable (its primitives draw the soft sprite).
pub(crate) fn effect_textures<'a>(
    names: &[RString],
    resources: &'a RenderResources,
) -> Vec<Option<Sampler<'a>>> {
    names
        .iter()
        .map(|n| {
            resources
                .textures
                .iter()
                .find(|t| t.name.as_str().eq_ignore_ascii_case(n.as_str()))
                .and_then(Sampler::level0)
        })
        .collect()
}

/// The quad of `p` seen through `view` and `projection`: the interface's
/// [`iron3d_abi::effects::effect_quad`] (the one geometry every built-in renderer draws),
/// with its blend as this rasterizer's mode.
///
/// A particle or billboard whose [`EffectPrimitive::texture`] has an entry in
/// `textures` draws with it; everything else draws soft.
pub(crate) fn effect_quad<'a>(
    view: &Mat4,
    projection: &Mat4,
    p: &EffectPrimitive,
    textures: &[Option<Sampler<'a>>],
) -> Option<EffectQuad<'a>> {
    let q = iron3d_abi::effects::effect_quad(view, projection, p)?;
    let texture = if iron3d_abi::effects::textured_kind(p.kind) {
        textures.get(p.texture as usize).copied().flatten()
    } else {
        None
    };
    Some(EffectQuad {
        clip: q.clip,
        uv: q.sprite,
        colour: q.colour,
        opacity: q.opacity,
        blend: if q.additive {
            BlendMode::Additive
        } else {
            BlendMode::AlphaBlend
        },
        texture,
    })
}

impl SoftRasterizer {
    /// (2.11) Draws effect `primitives` over the last drawn frame, in list order (never
    /// re-sorted), seen through `camera` (the frame's `view` and `projection`), depth
    /// tested (`≤`) against the frame's depth buffer without writing it; see the crate
    /// docs ("Effects") for the quads, the sprite and the blends. Call it after
    /// [`SoftRasterizer::draw`] of the same frame and before any overlay. The world's
    /// [`crate::DrawCounters`] are left as the frame's draw set them; this answers (and
    /// keeps, [`SoftRasterizer::effect_counters`]) its own counters.
    pub fn draw_effects(
        &mut self,
        camera: &Camera,
        primitives: &[EffectPrimitive],
    ) -> EffectCounters {
        self.draw_effects_with(camera, primitives, &[])
    }

    /// (2.11) [`SoftRasterizer::draw_effects`] with the effect frame's texture names
    /// `textures` ([`iron3d_abi::EffectFrame::textures`]) found among `resources`'
    /// textures (PD-RENDER-EFFECT-TEXTURES): a particle or billboard whose texture is
    /// there draws textured ([`iron3d_abi::effects::sprite_texel`]: colour × texel,
    /// opacity × texel alpha), every other primitive as `draw_effects` draws it.
    pub fn draw_textured_effects(
        &mut self,
        camera: &Camera,
        primitives: &[EffectPrimitive],
        textures: &[RString],
        resources: &RenderResources,
    ) -> EffectCounters {
        let samplers = effect_textures(textures, resources);
        self.draw_effects_with(camera, primitives, &samplers)
    }

    fn draw_effects_with(
        &mut self,
        camera: &Camera,
        primitives: &[EffectPrimitive],
        textures: &[Option<Sampler<'_>>],
    ) -> EffectCounters {
        let mut out = EffectCounters::default();
        if self.width == 0 || self.height == 0 {
            self.effect_counters = out;
            return out;
        }
        let saved = self.counters;
        let view = Mat4::from(camera.view);
        let projection = Mat4::from(camera.projection);
        for p in primitives {
            let Some(q) = effect_quad(&view, &projection, p, textures) else {
                continue;
            };
            out.quads += 1;
            match self.effect_quad(&q) {
                Some(n) => out.fragments += n,
                None => out.rejected += 1,
            }
        }
        out.fragments += self.counters.fragments - saved.fragments;
        self.counters = saved;
        self.effect_counters = out;
        out
    }

    /// Rasterises one effect quad: `None` when it is trivially outside the view volume
    /// (or has a corner that is not finite, which only a huge size gives), else the
    /// fragments of the direct scan (those of the triangle path are counted in the
    /// world's counters meanwhile).
    fn effect_quad(&mut self, q: &EffectQuad) -> Option<u64> {
        let c = &q.clip;
        let all = |f: &dyn Fn(&Vec4) -> bool| c.iter().all(f);
        if !c.iter().all(|p| p.is_finite())
            || all(&|p| p.x > p.w)
            || all(&|p| p.x < -p.w)
            || all(&|p| p.y > p.w)
            || all(&|p| p.y < -p.w)
            || all(&|p| p.z < 0.0)
            || all(&|p| p.z > p.w)
        {
            return None;
        }
        if let Some(n) = self.scan_flat_quad(q) {
            return Some(n);
        }
        let st = ItemState {
            s0: match q.texture {
                Some(t) => Stage::SpriteTexture(q.opacity, t),
                None => Stage::Sprite(q.opacity),
            },
            s1: Stage::Off,
            blend: q.blend,
            cull: CullMode::None,
            depth_test: true,
            depth_write: false,
            alpha_ref: None,
        };
        let [r, g, b] = q.colour;
        let v: [Vert; 4] = std::array::from_fn(|i| Vert {
            c: [
                c[i].x, c[i].y, c[i].z, c[i].w, q.uv[i][0], q.uv[i][1], r, g, b,
            ],
        });
        // In front of the near plane and inside the guard band: straight to the scan
        // loop; otherwise each triangle goes through the clipper.
        let gb = GUARD_BAND;
        let simple =
            all(&|p| p.w > 0.0 && p.z >= 0.0 && p.x.abs() <= gb * p.w && p.y.abs() <= gb * p.w);
        let mut queue = Vec::with_capacity(2);
        if simple {
            let (wf, hf) = (self.width as f32, self.height as f32);
            if let (Some(s0), Some(s1), Some(s2), Some(s3)) = (
                project(&v[0], wf, hf),
                project(&v[1], wf, hf),
                project(&v[2], wf, hf),
                project(&v[3], wf, hf),
            ) {
                queue.extend(self.raster(s0, s1, s2, &st));
                queue.extend(self.raster(s0, s2, s3, &st));
            }
        } else {
            self.triangle(&[v[0], v[1], v[2]], &st, &mut queue);
            self.triangle(&[v[0], v[2], v[3]], &st, &mut queue);
        }
        self.fill(&queue);
        Some(0)
    }

    /// The direct scan of a quad whose four corners share one clip `w > 0` and one clip
    /// `z` (a camera-facing quad under a perspective projection: every particle,
    /// billboard and glow, and a streak across the line of sight) and lie inside the
    /// guard band; `None` for any other quad. On the screen such a quad is a
    /// parallelogram: a pixel centre `P` has the coordinates `(s, t)` along the edges
    /// from corner 0 to corners 1 and 3; it is drawn when `0 ≤ s < 1` and `0 ≤ t < 1`,
    /// with the sprite coordinates `uv0 + s·(uv1 − uv0) + t·(uv3 − uv0)` and the depth
    /// `z/w` (the same everywhere). Answers the fragments written.
    fn scan_flat_quad(&mut self, q: &EffectQuad) -> Option<u64> {
        let c = &q.clip;
        let (w, z) = (c[0].w, c[0].z);
        let gb = GUARD_BAND;
        #[allow(clippy::float_cmp, reason = "the same number, not a nearby one")]
        let flat = c.iter().all(|p| p.w == w && p.z == z);
        if !(w > 0.0 && flat && c.iter().all(|p| p.x.abs() <= gb * w && p.y.abs() <= gb * w)) {
            return None;
        }
        let depth = z / w;
        if !(0.0..=1.0).contains(&depth) {
            return Some(0);
        }
        let (wf, hf) = (self.width as f32, self.height as f32);
        let screen = |p: &Vec4| ((p.x / w * 0.5 + 0.5) * wf, (0.5 - p.y / w * 0.5) * hf);
        let s: [(f32, f32); 4] = [screen(&c[0]), screen(&c[1]), screen(&c[2]), screen(&c[3])];
        let (x0, y0) = s[0];
        let (ex, ey) = (s[1].0 - x0, s[1].1 - y0);
        let (fx, fy) = (s[3].0 - x0, s[3].1 - y0);
        let det = ex * fy - ey * fx;
        if det == 0.0 || !det.is_finite() {
            return Some(0);
        }
        let inv = 1.0 / det;
        let (s_dx, s_dy, t_dx, t_dy) = (fy * inv, -fx * inv, -ey * inv, ex * inv);
        let min_x = s.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
        let max_x = s.iter().map(|p| p.0).fold(f32::NEG_INFINITY, f32::max);
        let min_y = s.iter().map(|p| p.1).fold(f32::INFINITY, f32::min);
        let max_y = s.iter().map(|p| p.1).fold(f32::NEG_INFINITY, f32::max);
        // Pixels whose centre `p + 0.5` lies inside the bounding box, on the target.
        let px0 = (min_x - 0.5).ceil().max(0.0) as usize;
        let px1 = (max_x - 0.5).floor().min(wf - 1.0);
        let py0 = (min_y - 0.5).ceil().max(0.0) as usize;
        let py1 = (max_y - 0.5).floor().min(hf - 1.0);
        if px1 < 0.0 || py1 < 0.0 {
            return Some(0);
        }
        let (px1, py1) = (px1 as usize, py1 as usize);
        let [u0, v0] = q.uv[0];
        let (du_s, dv_s) = (q.uv[1][0] - u0, q.uv[1][1] - v0);
        let (du_t, dv_t) = (q.uv[3][0] - u0, q.uv[3][1] - v0);
        let width = self.width as usize;
        let mut n = 0u64;
        for py in py0..=py1 {
            let cy = py as f32 + 0.5 - y0;
            for px in px0..=px1 {
                let cx = px as f32 + 0.5 - x0;
                let (ps, pt) = (cx * s_dx + cy * s_dy, cx * t_dx + cy * t_dy);
                if !((0.0..1.0).contains(&ps) && (0.0..1.0).contains(&pt)) {
                    continue;
                }
                let (u, v) = (u0 + ps * du_s + pt * du_t, v0 + ps * dv_s + pt * dv_t);
                let (colour, a) = match &q.texture {
                    None => (q.colour, q.opacity * (1.0 - (u * u + v * v)).max(0.0)),
                    Some(t) => {
                        let x = t.sprite([u, v]);
                        let [r, g, b] = q.colour;
                        ([r * x[0], g * x[1], b * x[2]], q.opacity * x[3])
                    }
                };
                let idx = py * width + px;
                if a.is_nan() || a <= 0.0 || depth > self.depth[idx] {
                    continue;
                }
                blend(&mut self.color[idx * 4..idx * 4 + 4], colour, a, q.blend);
                n += 1;
            }
        }
        Some(n)
    }
}

/// Blends `colour` with opacity `a` into the RGBA8 pixel `px` by rule 13 (the triangle
/// path's arithmetic): `Additive` → `min(1, dst + src·a)`, alpha kept; otherwise
/// (`AlphaBlend`) `src·a + dst·(1 − a)`, alpha `a + dst_a·(1 − a)`.
#[inline(always)]
fn blend(px: &mut [u8], colour: [f32; 3], a: f32, mode: BlendMode) {
    let d = |k: usize| UNORM8[usize::from(px[k])];
    let out = if mode == BlendMode::Additive {
        [
            to_u8((d(0) + colour[0] * a).min(1.0)),
            to_u8((d(1) + colour[1] * a).min(1.0)),
            to_u8((d(2) + colour[2] * a).min(1.0)),
            px[3],
        ]
    } else {
        [
            to_u8(colour[0] * a + d(0) * (1.0 - a)),
            to_u8(colour[1] * a + d(1) * (1.0 - a)),
            to_u8(colour[2] * a + d(2) * (1.0 - a)),
            to_u8(a + d(3) * (1.0 - a)),
        ]
    };
    px.copy_from_slice(&out);
}

#[cfg(test)]
mod tests;
