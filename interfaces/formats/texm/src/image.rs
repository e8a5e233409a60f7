//! `RgbaImage`: the decoded form of one mip level (tightly packed RGBA8 rows, top row
//! first), plus a 2×2 box filter for authoring mip chains.

use crate::chain::level_dimensions;
use crate::error::TexmError;

/// An RGBA8 image: `width * height` pixels of `[r, g, b, a]`, row-major.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RgbaImage {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

/// `width * height * 4`, `None` on overflow.
pub(crate) fn rgba_len(width: u32, height: u32) -> Option<usize> {
    let n = u64::from(width)
        .checked_mul(u64::from(height))?
        .checked_mul(4)?;
    usize::try_from(n).ok()
}

impl RgbaImage {
    /// Wraps `pixels`; fails with [`TexmError::ImageSize`] unless it holds exactly
    /// `width * height * 4` bytes.
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<RgbaImage, TexmError> {
        match rgba_len(width, height) {
            Some(n) if n == pixels.len() => Ok(RgbaImage {
                width,
                height,
                pixels,
            }),
            n => Err(TexmError::ImageSize {
                width,
                height,
                expected: n.map_or(u64::MAX, |n| n as u64),
                found: pixels.len(),
            }),
        }
    }

    /// An image filled with one colour; fails with [`TexmError::ImageSize`] when the size
    /// overflows `usize`.
    pub fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Result<RgbaImage, TexmError> {
        let len = rgba_len(width, height).ok_or(TexmError::ImageSize {
            width,
            height,
            expected: u64::MAX,
            found: 0,
        })?;
        Ok(RgbaImage {
            width,
            height,
            pixels: rgba.iter().copied().cycle().take(len).collect(),
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The packed pixels.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// Takes the packed pixels.
    pub fn into_pixels(self) -> Vec<u8> {
        self.pixels
    }

    /// Pixel `(x, y)`, `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = (y as usize * self.width as usize + x as usize) * 4;
        let p = self.pixels.get(at..at + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// The next mip level: `max(1, w / 2)` × `max(1, h / 2)`, each output pixel the mean
    /// of the source pixels `{2x, 2x+1} × {2y, 2y+1}` that exist (1, 2 or 4 of them),
    /// per channel, rounded half up. An odd last column or row is dropped, as the chain
    /// sizes (`width >> 1`) imply.
    pub fn downsample(&self) -> RgbaImage {
        let (w, h) = level_dimensions(self.width, self.height, 1);
        let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
        for oy in 0..h {
            for ox in 0..w {
                let mut sum = [0u32; 4];
                let mut n = 0u32;
                for sy in [2 * oy, 2 * oy + 1] {
                    for sx in [2 * ox, 2 * ox + 1] {
                        if let Some(p) = self.pixel(sx, sy) {
                            n += 1;
                            for (s, c) in sum.iter_mut().zip(p) {
                                *s += u32::from(c);
                            }
                        }
                    }
                }
                let n = n.max(1);
                pixels.extend(sum.map(|s| u8::try_from((s + n / 2) / n).unwrap_or(u8::MAX)));
            }
        }
        RgbaImage {
            width: w,
            height: h,
            pixels,
        }
    }

    /// `count` levels (at least one) starting with this image, each the
    /// [`downsample`](Self::downsample) of the one before.
    pub fn mip_chain(self, count: u32) -> Vec<RgbaImage> {
        let mut levels: Vec<RgbaImage> = Vec::new();
        let mut current = self;
        for _ in 1..count {
            let next = current.downsample();
            levels.push(current);
            current = next;
        }
        levels.push(current);
        levels
    }
}
