//! Terrain texture blending between surface kinds (**PD-RENDER-TERRAIN-BLEND**; the
//! original's terrain shader is not documented, FORMATS §16): where faces of two
//! terrain materials meet, each material fades into its neighbours over
//! [`BLEND_RADIUS`] world units instead of ending at the face edge.
//!
//! * **Masks**, made once at the load: the terrain's UV0 square (the lightmap's mapping,
//!   spanning the terrain) is a grid of [`MAX_MASK_SIZE`]² texels at most — the
//!   lightmap's size times the largest whole factor that keeps it within the limit, so
//!   every mask texel lies inside one lightmap texel. Each texel centre is labelled with
//!   the material of the face whose UV triangle holds it (faces in file order, the last
//!   one wins). A material's weight at a texel is the share of its label in the square
//!   window of `2r + 1` texels around it (clipped to the grid), `r` = [`BLEND_RADIUS`]
//!   over the world units per texel along X (rounded, at least 1): ½ on a straight
//!   border, falling linearly to 0 at `r`. The mask's alpha is the weight; its colour is
//!   the lightmap's texel (white without a lightmap).
//! * **Passes**: a material with a mask draws, in [`iron3d_abi::RenderPhase::MaterialPasses`]
//!   after the opaque geometry, the faces of the *other* materials whose UV box reaches a
//!   texel of positive weight: stage 0 the mask (`Modulate`: lighting × lightmap colour,
//!   alpha = weight), stage 1 its diffuse texture at the terrain's repeat (`Modulate`),
//!   alpha-blended, depth-tested (`≤`) without depth write — the colour its own faces
//!   would have, faded by the weight, only where the terrain is what is seen.
//! * At most [`MAX_BLEND_PASSES`] materials get a pass (the first in group order).
//! * Only a material whose resolved phase is opaque and textured takes part as a source
//!   (a pass is skipped for a frame in which it is not); the untextured faces of no
//!   material are blended over but never blend.

use abi_stable::std_types::{RString, RVec};
use iron3d_abi::{TextureKind, TextureLevel, TextureResource};

/// PD-RENDER-TERRAIN-BLEND: how far (world units) a terrain material fades into its
/// neighbours on either side of their border.
pub const BLEND_RADIUS: f32 = 4.0;
/// PD-RENDER-TERRAIN-BLEND: the largest side of a blend mask (the texture-size limit of
/// PD-RENDER-MIP).
pub const MAX_MASK_SIZE: u32 = crate::assets::MAX_TEXTURE_SIZE;
/// PD-RENDER-TERRAIN-BLEND: the most materials of one terrain that get a blend pass (the
/// first ones in group order; a mask is up to 256 KiB, so a terrain naming hundreds of
/// rows costs at most 8 MiB of masks). The original maps use a handful.
pub const MAX_BLEND_PASSES: usize = 32;

/// One face as the blending sees it: its material group and its vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendFace {
    /// The group (index into the terrain's groups).
    pub group: usize,
    /// Vertex indices.
    pub vertices: [u16; 3],
}

/// One material's blend pass.
#[derive(Clone, Debug, PartialEq)]
pub struct BlendPass {
    /// The group whose material fades in.
    pub group: usize,
    /// Its mask (alpha = weight, colour = lightmap).
    pub mask: TextureResource,
    /// The faces of other groups it is drawn over (file order).
    pub faces: Vec<[u16; 3]>,
}

/// The mask grid's size for a lightmap of `lightmap` texels: the lightmap's size times
/// the largest whole factor within [`MAX_MASK_SIZE`] per axis; [`MAX_MASK_SIZE`] on both
/// axes without a lightmap (`None`) or with one over the limit (never after
/// PD-RENDER-MIP).
pub fn mask_size(lightmap: Option<(u32, u32)>) -> (u32, u32) {
    match lightmap {
        Some((w, h)) if w > 0 && h > 0 && w <= MAX_MASK_SIZE && h <= MAX_MASK_SIZE => {
            (w * (MAX_MASK_SIZE / w), h * (MAX_MASK_SIZE / h))
        }
        _ => (MAX_MASK_SIZE, MAX_MASK_SIZE),
    }
}

/// The blend passes of a terrain: `uvs` per vertex, `faces` in file order, `sources[g]`
/// whether group `g` may blend into its neighbours (textured), `extent_x` the terrain's
/// X extent in world units, `lightmap` its lightmap's base level. Passes ascend by group;
/// a group with no face to draw over has none, and there are at most
/// [`MAX_BLEND_PASSES`].
pub fn passes(
    uvs: &[[f32; 2]],
    faces: &[BlendFace],
    sources: &[bool],
    extent_x: f32,
    lightmap: Option<&TextureLevel>,
) -> Vec<BlendPass> {
    let (w, h) = mask_size(lightmap.map(|l| (l.width, l.height)));
    let (wu, hu) = (w as usize, h as usize);
    // Labels: group + 1 of the face holding each texel centre, 0 for none.
    let mut label = vec![0u32; wu * hu];
    // Each face's UVs (`None`: a vertex that does not exist) and the texels its UV box
    // covers, `[x0, x1) × [y0, y1)`, found once for every pass.
    let face_uvs: Vec<Option<[[f32; 2]; 3]>> = faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.vertices.map(|v| uvs.get(usize::from(v)).copied());
            Some([a?, b?, c?])
        })
        .collect();
    let boxes: Vec<Option<[usize; 4]>> = face_uvs
        .iter()
        .map(|uv| {
            let uv = (*uv)?;
            let span = |k: usize, n: usize| {
                let size = n as f32;
                let lo = uv.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min) * size;
                let hi = uv.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max) * size;
                let lo = lo.floor().max(0.0).min(size) as usize;
                let hi = hi.ceil().max(0.0).min(size) as usize;
                (lo, hi.max(lo))
            };
            let ((x0, x1), (y0, y1)) = (span(0, wu), span(1, hu));
            (x0 < x1 && y0 < y1).then_some([x0, y0, x1, y1])
        })
        .collect();
    for (f, uv) in faces.iter().zip(&face_uvs) {
        let Some([a, b, c]) = *uv else {
            continue;
        };
        let p = |q: [f32; 2]| (q[0] * w as f32, q[1] * h as f32);
        let (a, b, c) = (p(a), p(b), p(c));
        let area = (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0);
        if !area.is_finite() || area == 0.0 {
            continue;
        }
        let lo_x = a.0.min(b.0).min(c.0).floor().max(0.0);
        let hi_x = a.0.max(b.0).max(c.0).ceil().min(w as f32);
        let lo_y = a.1.min(b.1).min(c.1).floor().max(0.0);
        let hi_y = a.1.max(b.1).max(c.1).ceil().min(h as f32);
        if !(lo_x < hi_x && lo_y < hi_y) {
            continue;
        }
        let edge = |p: (f32, f32), q: (f32, f32), x: f32, y: f32| {
            ((q.0 - p.0) * (y - p.1) - (q.1 - p.1) * (x - p.0)) * area.signum()
        };
        for y in lo_y as usize..hi_y as usize {
            for x in lo_x as usize..hi_x as usize {
                let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
                if edge(a, b, cx, cy) >= 0.0
                    && edge(b, c, cx, cy) >= 0.0
                    && edge(c, a, cx, cy) >= 0.0
                {
                    label[y * wu + x] = f.group as u32 + 1;
                }
            }
        }
    }
    let units_per_texel = if extent_x.is_finite() && extent_x > 0.0 {
        extent_x / w as f32
    } else {
        1.0
    };
    let r = ((BLEND_RADIUS / units_per_texel).round() as usize).max(1);
    let groups = sources.len();
    let mut out = Vec::new();
    // Summed-area table over a 0/1 grid: sat[(y)(w+1) + x] = sum of [0, x) × [0, y).
    let sat_of = |on: &dyn Fn(usize) -> bool| -> Vec<u32> {
        let mut sat = vec![0u32; (wu + 1) * (hu + 1)];
        for y in 0..hu {
            let mut row = 0u32;
            for x in 0..wu {
                row += u32::from(on(y * wu + x));
                sat[(y + 1) * (wu + 1) + x + 1] = sat[y * (wu + 1) + x + 1] + row;
            }
        }
        sat
    };
    let sum = |sat: &[u32], x0: usize, y0: usize, x1: usize, y1: usize| {
        // [x0, x1) × [y0, y1)
        sat[y1 * (wu + 1) + x1] + sat[y0 * (wu + 1) + x0]
            - sat[y0 * (wu + 1) + x1]
            - sat[y1 * (wu + 1) + x0]
    };
    for (g, _) in sources.iter().enumerate().filter(|(_, s)| **s) {
        if out.len() == MAX_BLEND_PASSES {
            break;
        }
        let want = g as u32 + 1;
        if !label.contains(&want) {
            continue;
        }
        let sat = sat_of(&|i| label[i] == want);
        let mut alpha = vec![0u8; wu * hu];
        for y in 0..hu {
            let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(hu));
            for x in 0..wu {
                let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(wu));
                let n = sum(&sat, x0, y0, x1, y1);
                if n > 0 {
                    let all = ((x1 - x0) * (y1 - y0)) as f32;
                    alpha[y * wu + x] = (n as f32 / all * 255.0).round() as u8;
                }
            }
        }
        let reach = sat_of(&|i| alpha[i] > 0 && label[i] != want);
        let mut over = Vec::new();
        for (f, b) in faces.iter().zip(&boxes) {
            if f.group == g || f.group >= groups {
                continue;
            }
            if let Some([x0, y0, x1, y1]) = *b
                && sum(&reach, x0, y0, x1, y1) > 0
            {
                over.push(f.vertices);
            }
        }
        if over.is_empty() {
            continue;
        }
        let mut rgba = Vec::with_capacity(wu * hu * 4);
        for y in 0..hu {
            for x in 0..wu {
                let rgb = match lightmap {
                    Some(l) if l.width > 0 && l.height > 0 => {
                        let lx = (x as u64 * u64::from(l.width) / w as u64) as usize;
                        let ly = (y as u64 * u64::from(l.height) / h as u64) as usize;
                        let o = (ly * l.width as usize + lx) * 4;
                        l.rgba
                            .get(o..o + 3)
                            .map_or([255; 3], |c| [c[0], c[1], c[2]])
                    }
                    _ => [255; 3],
                };
                rgba.extend_from_slice(&[rgb[0], rgb[1], rgb[2], alpha[y * wu + x]]);
            }
        }
        out.push(BlendPass {
            group: g,
            mask: TextureResource {
                name: RString::from(format!("terrain blend mask (group {g})")),
                kind: TextureKind::Diffuse,
                skipped_levels: 0,
                levels: RVec::from(vec![TextureLevel {
                    width: w,
                    height: h,
                    rgba: RVec::from(rgba),
                }]),
            },
            faces: over,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `n × n` grid of quads over the UV square (two faces each, row-major), the
    /// quads left of `u = split` in group 0 and the rest in group 1.
    fn grid(n: u16, split: f32) -> (Vec<[f32; 2]>, Vec<BlendFace>) {
        let mut uvs = Vec::new();
        for y in 0..=n {
            for x in 0..=n {
                uvs.push([f32::from(x) / f32::from(n), f32::from(y) / f32::from(n)]);
            }
        }
        let mut faces = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let v = |x: u16, y: u16| y * (n + 1) + x;
                let group = usize::from((f32::from(x) + 0.5) / f32::from(n) >= split);
                faces.push(BlendFace {
                    group,
                    vertices: [v(x, y), v(x + 1, y), v(x + 1, y + 1)],
                });
                faces.push(BlendFace {
                    group,
                    vertices: [v(x, y), v(x + 1, y + 1), v(x, y + 1)],
                });
            }
        }
        (uvs, faces)
    }

    fn alpha(p: &BlendPass, x: u32, y: u32) -> u8 {
        let l = &p.mask.levels[0];
        l.rgba[((y * l.width + x) * 4 + 3) as usize]
    }

    /// Two materials meeting along `u = ½` on a 256-unit terrain (a texel per unit, so
    /// `r` = 4): each fades into the other linearly over 4 texels — the window's share,
    /// 5/9 and 4/9 on either side of the border, 1/9 at 3 texels past it, nothing at 4 —
    /// and each pass is drawn over the other's faces that its weight reaches (the one
    /// column of quads next to the border), never over its own.
    #[test]
    fn two_materials_fade_linearly_across_their_border() {
        let (uvs, faces) = grid(16, 0.5);
        let p = passes(&uvs, &faces, &[true, true], 256.0, None);
        assert_eq!(p.len(), 2);
        let (a, b) = (&p[0], &p[1]);
        assert_eq!((a.group, b.group), (0, 1));
        assert_eq!(mask_size(None), (256, 256));
        let row = 100;
        let share = |k: f32| (k / 9.0 * 255.0).round() as u8;
        assert_eq!(alpha(a, 120, row), 255);
        assert_eq!(alpha(a, 127, row), share(5.0));
        assert_eq!(alpha(a, 128, row), share(4.0));
        assert_eq!(alpha(a, 131, row), share(1.0));
        assert_eq!(alpha(a, 132, row), 0);
        assert_eq!(alpha(b, 127, row), share(4.0));
        assert_eq!(alpha(b, 124, row), share(1.0));
        assert_eq!(alpha(b, 123, row), 0);
        // Without a lightmap the mask's colour is white.
        assert_eq!(&a.mask.levels[0].rgba[..3], &[255, 255, 255]);
        // Group 0 is drawn over group 1's first column (quad x = 8): 16 quads, 32
        // faces; group 1 over group 0's last column (quad x = 7).
        assert_eq!(a.faces.len(), 32);
        assert_eq!(b.faces.len(), 32);
        let column = |f: &[u16; 3]| f.iter().map(|&v| v % 17).min().unwrap();
        assert!(a.faces.iter().all(|f| column(f) == 8), "{:?}", a.faces);
        assert!(b.faces.iter().all(|f| column(f) == 7), "{:?}", b.faces);
    }

    /// The mask's colour is the lightmap's texel under it: a 64-texel lightmap gives a
    /// 256-texel mask, four mask texels per lightmap texel on each axis.
    #[test]
    fn the_mask_carries_the_lightmap_colour() {
        let (uvs, faces) = grid(8, 0.5);
        let (w, h) = (64u32, 32u32);
        let mut rgba = Vec::new();
        for y in 0..h {
            for x in 0..w {
                rgba.extend_from_slice(&[x as u8 * 4, y as u8 * 8, 7, 255]);
            }
        }
        let lightmap = TextureLevel {
            width: w,
            height: h,
            rgba: RVec::from(rgba),
        };
        assert_eq!(mask_size(Some((w, h))), (256, 256));
        assert_eq!(mask_size(Some((100, 60))), (200, 240));
        assert_eq!(mask_size(Some((300, 10))), (256, 256));
        let p = passes(&uvs, &faces, &[true, true], 256.0, Some(&lightmap));
        let m = &p[0].mask.levels[0];
        for (x, y) in [(0u32, 0u32), (5, 9), (255, 255), (130, 77)] {
            let o = ((y * m.width + x) * 4) as usize;
            assert_eq!(
                &m.rgba[o..o + 3],
                &[(x / 4) as u8 * 4, (y / 8) as u8 * 8, 7],
                "texel {x},{y}"
            );
        }
    }

    /// An untextured group never blends (it is still blended over); a material with no
    /// neighbour, a face naming a vertex that does not exist and a degenerate face add
    /// nothing; the radius scales with the terrain (1,024 units over 256 texels: `r` = 1).
    #[test]
    fn sources_neighbours_and_bad_faces() {
        let (uvs, mut faces) = grid(16, 0.5);
        let p = passes(&uvs, &faces, &[false, true], 256.0, None);
        assert_eq!(p.iter().map(|p| p.group).collect::<Vec<_>>(), vec![1]);
        let alone: Vec<BlendFace> = faces.iter().filter(|f| f.group == 0).copied().collect();
        assert!(passes(&uvs, &alone, &[true, true], 256.0, None).is_empty());
        faces.push(BlendFace {
            group: 1,
            vertices: [0, 1, 9999],
        });
        faces.push(BlendFace {
            group: 1,
            vertices: [0, 1, 2],
        });
        let with_bad = passes(&uvs, &faces, &[true, true], 256.0, None);
        assert_eq!(
            with_bad,
            passes(&uvs, &faces[..512], &[true, true], 256.0, None)
        );
        // Many materials: a checkerboard of 16 × 16 quads, each its own group.
        let (cuvs, cfaces) = grid(16, 2.0);
        let cfaces: Vec<BlendFace> = cfaces
            .iter()
            .enumerate()
            .map(|(k, f)| BlendFace { group: k / 2, ..*f })
            .collect();
        let many = passes(&cuvs, &cfaces, &[true; 256], 256.0, None);
        assert_eq!(many.len(), MAX_BLEND_PASSES);
        assert!(many.iter().enumerate().all(|(k, p)| p.group == k));
        let wide = passes(&uvs, &faces[..512], &[true, true], 1024.0, None);
        assert_eq!(
            alpha(&wide[0], 128, 10),
            (1.0f32 / 3.0 * 255.0).round() as u8
        );
        assert_eq!(alpha(&wide[0], 129, 10), 0);
    }
}
