//! (2.4) The screen overlay: the HUD, menus and mission screens drawn over a frame as a
//! list of screen-space quads, so every renderer (software, Vulkan, capture) draws the
//! same thing from the same data.
//!
//! # The contract
//! * Coordinates are target pixels, origin at the top-left corner, Y down.
//! * Quads are drawn **in list order** over the finished 3D frame (painter's order, no
//!   depth test, no culling).
//! * A quad covers the pixels whose centre `(x + ½, y + ½)` lies in
//!   `[left, right) × [top, bottom)`, clipped to the target.
//! * Its colour at a pixel is `color × texel / 255` per channel (straight alpha), where
//!   the texel is the **nearest** texel of the base level of
//!   [`Overlay::textures`]`[texture]` at the pixel centre's texture coordinate
//!   (`u = u0 + (x + ½ − left) / (right − left) · (u1 − u0)`, likewise `v`; texel
//!   `⌊u · width⌋`, clamped to the texture), or white for [`NO_TEXTURE`] (a solid quad).
//! * Blending: `dst = src · a + dst · (1 − a)` per colour channel, `a = src.alpha / 255`;
//!   the target's alpha is left as it is.
//!
//! [`composite`] is the reference implementation of exactly these rules on an RGBA8
//! image; the software and capture renderers use it, and the Vulkan renderer is tested
//! against it.

use crate::render::{NO_TEXTURE, RenderFrame, TextureLevel};
use abi_stable::StableAbi;
use abi_stable::std_types::{RArc, RVec};

/// One screen-space quad of an [`Overlay`].
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct OverlayQuad {
    /// Target pixels: left, top, right, bottom (top-left origin, Y down).
    pub rect: [f32; 4],
    /// Texture coordinates at the left-top and right-bottom corners: `u0, v0, u1, v1`.
    pub uv: [f32; 4],
    /// Index into [`Overlay::textures`], or [`NO_TEXTURE`] for a solid quad.
    pub texture: u32,
    /// RGBA8 colour, multiplied with the texel (straight alpha).
    pub color: [u8; 4],
}

impl OverlayQuad {
    /// A solid rectangle.
    pub fn solid(rect: [f32; 4], color: [u8; 4]) -> Self {
        Self {
            rect,
            uv: [0.0; 4],
            texture: NO_TEXTURE,
            color,
        }
    }
}

/// The overlay of one frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Overlay {
    /// Identity of [`Overlay::textures`]: the same id always names the same textures
    /// (backends cache their uploads by it).
    pub textures_id: u64,
    /// The overlay's own textures (font atlases, sprites): one RGBA8 level each.
    pub textures: RArc<RVec<TextureLevel>>,
    /// Quads in draw order.
    pub quads: RVec<OverlayQuad>,
}

impl Default for Overlay {
    fn default() -> Self {
        Self {
            textures_id: 0,
            textures: RArc::new(RVec::new()),
            quads: RVec::new(),
        }
    }
}

/// A prepared frame with its overlay: what a frame preparer publishes when it has a
/// HUD (host side only; it never crosses the plugin boundary as one value — the host
/// passes the two parts to [`crate::ffi::RenderBackend::draw_with_overlay`]).
#[derive(Clone, Debug)]
pub struct FrameWithOverlay {
    /// The 3D frame.
    pub frame: std::sync::Arc<RenderFrame>,
    /// Its overlay.
    pub overlay: Overlay,
}

/// The pixel span `[first, last)` whose centres lie in `[lo, hi)`, clipped to `0..size`.
fn span(lo: f32, hi: f32, size: u32) -> (u32, u32) {
    // Centre c = p + ½ is covered when lo ≤ c < hi, i.e. p ≥ lo − ½ and p < hi − ½.
    let first = (lo - 0.5).ceil().max(0.0);
    let last = (hi - 0.5).ceil().min(size as f32);
    // NaN compares false: an empty span.
    if first.partial_cmp(&last) != Some(std::cmp::Ordering::Less) {
        return (0, 0);
    }
    (first as u32, last as u32)
}

/// The nearest texel index of coordinate `t` on an axis of `size` texels.
fn texel(t: f32, size: u32) -> u32 {
    let i = (t * size as f32).floor();
    if i.is_nan() || i < 0.0 {
        0
    } else {
        (i as u32).min(size.saturating_sub(1))
    }
}

/// Draws `overlay` over `rgba` (`width × height` RGBA8, row-major, top row first) by
/// the rules of the module docs. Quads naming a missing or malformed texture (a level
/// whose byte count is not `width·height·4`, or an empty one) are skipped and counted;
/// the count is returned. Non-finite rectangles cover nothing.
pub fn composite(overlay: &Overlay, width: u32, height: u32, rgba: &mut [u8]) -> u32 {
    let mut skipped = 0;
    if (width as usize)
        .checked_mul(height as usize)
        .and_then(|n| n.checked_mul(4))
        != Some(rgba.len())
    {
        return overlay.quads.len() as u32;
    }
    for q in overlay.quads.iter() {
        let tex = if q.texture == NO_TEXTURE {
            None
        } else {
            match overlay.textures.get(q.texture as usize) {
                Some(t)
                    if t.width > 0
                        && t.height > 0
                        && (t.width as usize)
                            .checked_mul(t.height as usize)
                            .and_then(|n| n.checked_mul(4))
                            == Some(t.rgba.len()) =>
                {
                    Some(t)
                }
                _ => {
                    skipped += 1;
                    continue;
                }
            }
        };
        let [left, top, right, bottom] = q.rect;
        if !(left.is_finite() && top.is_finite() && right.is_finite() && bottom.is_finite()) {
            continue;
        }
        let (x0, x1) = span(left, right, width);
        let (y0, y1) = span(top, bottom, height);
        let [u0, v0, u1, v1] = q.uv;
        let (w, h) = (right - left, bottom - top);
        for y in y0..y1 {
            let ty = tex.map(|t| {
                let v = v0 + (y as f32 + 0.5 - top) / h * (v1 - v0);
                texel(v, t.height)
            });
            for x in x0..x1 {
                let src = match tex {
                    None => q.color,
                    Some(t) => {
                        let u = u0 + (x as f32 + 0.5 - left) / w * (u1 - u0);
                        let tx = texel(u, t.width);
                        let k = (ty.unwrap_or(0) as usize * t.width as usize + tx as usize) * 4;
                        let s = &t.rgba[k..k + 4];
                        [0, 1, 2, 3].map(|c| mul(q.color[c], s[c]))
                    }
                };
                let a = u32::from(src[3]);
                if a == 0 {
                    continue;
                }
                let k = (y as usize * width as usize + x as usize) * 4;
                for c in 0..3 {
                    let d = u32::from(rgba[k + c]);
                    rgba[k + c] = ((u32::from(src[c]) * a + d * (255 - a) + 127) / 255) as u8;
                }
            }
        }
    }
    skipped
}

/// `a · b / 255`, rounded to nearest.
fn mul(a: u8, b: u8) -> u8 {
    ((u32::from(a) * u32::from(b) + 127) / 255) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) -> TextureLevel {
        let mut rgba = Vec::new();
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

    fn overlay(textures: Vec<TextureLevel>, quads: Vec<OverlayQuad>) -> Overlay {
        Overlay {
            textures_id: 1,
            textures: RArc::new(textures.into()),
            quads: quads.into(),
        }
    }

    fn pixel(img: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
        let k = ((y * w + x) * 4) as usize;
        [img[k], img[k + 1], img[k + 2], img[k + 3]]
    }

    #[test]
    fn a_solid_quad_covers_the_pixels_whose_centres_it_holds() {
        let mut img = vec![0u8; 8 * 8 * 4];
        let o = overlay(
            vec![],
            vec![OverlayQuad::solid([2.0, 1.0, 5.0, 3.0], [255, 0, 0, 255])],
        );
        assert_eq!(composite(&o, 8, 8, &mut img), 0);
        for y in 0..8 {
            for x in 0..8 {
                let inside = (2..5).contains(&x) && (1..3).contains(&y);
                let want = if inside { [255, 0, 0, 0] } else { [0, 0, 0, 0] };
                assert_eq!(pixel(&img, 8, x, y), want, "({x}, {y})");
            }
        }
        // Half-pixel edges: centres at 2.5 are in [2.4, 2.6), not in [2.6, 3.4).
        let mut img = vec![0u8; 8 * 8 * 4];
        let o = overlay(
            vec![],
            vec![
                OverlayQuad::solid([2.4, 0.0, 2.6, 1.0], [9, 9, 9, 255]),
                OverlayQuad::solid([2.6, 1.0, 3.4, 2.0], [7, 7, 7, 255]),
            ],
        );
        composite(&o, 8, 8, &mut img);
        assert_eq!(pixel(&img, 8, 2, 0)[0], 9);
        assert_eq!(pixel(&img, 8, 2, 1)[0], 0);
        assert_eq!(pixel(&img, 8, 3, 1)[0], 0);
    }

    #[test]
    fn texels_are_nearest_and_modulated_and_blended_over() {
        // A 2×1 texture: opaque white, then half-transparent white.
        let t = level(2, 1, |x, _| {
            if x == 0 {
                [255; 4]
            } else {
                [255, 255, 255, 128]
            }
        });
        let mut img = vec![100u8; 4 * 4];
        let o = overlay(
            vec![t],
            vec![OverlayQuad {
                rect: [0.0, 0.0, 4.0, 1.0],
                uv: [0.0, 0.0, 1.0, 1.0],
                texture: 0,
                color: [0, 255, 0, 255],
            }],
        );
        composite(&o, 4, 1, &mut img);
        assert_eq!(pixel(&img, 4, 0, 0), [0, 255, 0, 100]);
        assert_eq!(pixel(&img, 4, 1, 0), [0, 255, 0, 100]);
        // 128/255 of green over 100.
        let g = ((255 * 128 + 100 * 127 + 127) / 255) as u8;
        let r = ((100 * 127 + 127) / 255) as u8;
        assert_eq!(pixel(&img, 4, 2, 0), [r, g, r, 100]);
        assert_eq!(pixel(&img, 4, 3, 0), [r, g, r, 100]);
    }

    #[test]
    fn bad_quads_are_skipped_or_clipped_never_a_panic() {
        let mut img = vec![0u8; 4 * 4 * 4];
        let broken = TextureLevel {
            width: 4,
            height: 4,
            rgba: vec![0u8; 3].into(),
        };
        let absurd = TextureLevel {
            width: u32::MAX,
            height: u32::MAX,
            rgba: vec![0u8; 4].into(),
        };
        let o = overlay(
            vec![broken, absurd],
            vec![
                OverlayQuad {
                    rect: [0.0, 0.0, 4.0, 4.0],
                    uv: [0.0, 0.0, 1.0, 1.0],
                    texture: 0,
                    color: [255; 4],
                },
                OverlayQuad {
                    rect: [0.0, 0.0, 4.0, 4.0],
                    uv: [0.0, 0.0, 1.0, 1.0],
                    texture: 1,
                    color: [255; 4],
                },
                OverlayQuad {
                    rect: [0.0, 0.0, 4.0, 4.0],
                    uv: [0.0; 4],
                    texture: 7,
                    color: [255; 4],
                },
                OverlayQuad::solid([f32::NAN, 0.0, 4.0, 4.0], [255; 4]),
                OverlayQuad::solid([-1e30, -1e30, 1e30, 1e30], [1, 2, 3, 255]),
                OverlayQuad::solid([3.0, 3.0, 1.0, 1.0], [255; 4]),
            ],
        );
        assert_eq!(composite(&o, 4, 4, &mut img), 3);
        assert!(img.chunks(4).all(|p| p == [1, 2, 3, 0]));
        // A wrong-sized target draws nothing, whatever the size claims.
        let mut small = vec![0u8; 5];
        assert_eq!(composite(&o, 4, 4, &mut small), 6);
        assert_eq!(composite(&o, u32::MAX, u32::MAX, &mut small), 6);
    }
}
