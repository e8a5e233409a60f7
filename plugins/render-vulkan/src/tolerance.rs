//! The agreement rule between this renderer and the software reference (crate docs,
//! "Tolerance against the software reference"), as code: used by the unit tests and by
//! the end-to-end golden tests, so both check exactly the same rule.

use crate::{CHANNEL_TOLERANCE, MATCH_FRACTION};

/// How an image differs from its reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImageDiff {
    /// Largest per-channel difference over all pixels.
    pub worst: u8,
    /// Pixels with a channel differing by more than [`CHANNEL_TOLERANCE`].
    pub mismatched: usize,
    /// Mismatched pixels away from any edge (no reference pixel of their 3×3
    /// neighbourhood is within tolerance of them, and the reference is flat around them).
    pub off_edge: usize,
    /// Pixels compared.
    pub pixels: usize,
}

impl ImageDiff {
    /// True when the rule holds: at least [`MATCH_FRACTION`] of the pixels match and no
    /// mismatch lies off an edge.
    pub fn within_tolerance(&self) -> bool {
        let matched = (self.pixels - self.mismatched) as f64 / self.pixels.max(1) as f64;
        matched >= MATCH_FRACTION && self.off_edge == 0
    }
}

fn close(a: &[u8; 4], b: &[u8; 4]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x.abs_diff(*y) <= CHANNEL_TOLERANCE)
}

/// Compares `got` with the reference `want`, both RGBA8 `w × h`, rows top to bottom.
/// Images of different lengths count every pixel of the larger one as mismatched.
pub fn compare_images(got: &[u8], want: &[u8], w: u32, h: u32) -> ImageDiff {
    let pixels = (w as usize) * (h as usize);
    if got.len() != want.len() || got.len() != pixels * 4 {
        return ImageDiff {
            worst: u8::MAX,
            mismatched: pixels.max(got.len().max(want.len()) / 4),
            off_edge: pixels.max(got.len().max(want.len()) / 4),
            pixels: pixels.max(got.len().max(want.len()) / 4),
        };
    }
    let (w, h) = (i64::from(w), i64::from(h));
    let at = |img: &[u8], x: i64, y: i64| -> [u8; 4] {
        let o = ((y * w + x) * 4) as usize;
        [img[o], img[o + 1], img[o + 2], img[o + 3]]
    };
    let mut d = ImageDiff {
        pixels,
        ..ImageDiff::default()
    };
    for y in 0..h {
        for x in 0..w {
            let (g, r) = (at(got, x, y), at(want, x, y));
            let m = g
                .iter()
                .zip(&r)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap_or(0);
            d.worst = d.worst.max(m);
            if m <= CHANNEL_TOLERANCE {
                continue;
            }
            d.mismatched += 1;
            let mut edge = false;
            for ny in (y - 1).max(0)..=(y + 1).min(h - 1) {
                for nx in (x - 1).max(0)..=(x + 1).min(w - 1) {
                    let n = at(want, nx, ny);
                    // Coverage moved by a pixel, or the reference changes colour here
                    // (a triangle or texel edge).
                    edge |= close(&g, &n) || !close(&r, &n);
                }
            }
            d.off_edge += usize::from(!edge);
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_images_match_and_a_flat_region_error_does_not() {
        let flat = vec![100u8; 4 * 4 * 4];
        let d = compare_images(&flat, &flat, 4, 4);
        assert!(d.within_tolerance() && d.mismatched == 0);
        let mut off = flat.clone();
        off[4 * 5] = 200; // pixel (1, 1), red channel, inside a flat reference
        let d = compare_images(&off, &flat, 4, 4);
        assert_eq!((d.mismatched, d.off_edge, d.worst), (1, 1, 100));
        assert!(!d.within_tolerance());
    }

    #[test]
    fn a_mismatch_on_a_reference_edge_is_tolerated_when_rare() {
        // Reference: left half black, right half white; one pixel flips on the edge.
        let (w, h) = (20u32, 10u32);
        let mut want = vec![0u8; (w * h * 4) as usize];
        for y in 0..h {
            for x in w / 2..w {
                let o = ((y * w + x) * 4) as usize;
                want[o..o + 4].copy_from_slice(&[255; 4]);
            }
        }
        let mut got = want.clone();
        let o = ((3 * w + w / 2) * 4) as usize;
        got[o..o + 4].copy_from_slice(&[0; 4]);
        let d = compare_images(&got, &want, w, h);
        assert_eq!((d.mismatched, d.off_edge), (1, 0));
        assert!(d.within_tolerance());
    }

    #[test]
    fn different_sizes_never_match() {
        assert!(!compare_images(&[0; 16], &[0; 12], 2, 2).within_tolerance());
    }
}
