//! Pixel codecs: every format to and from RGBA8, with the channel expansion of project
//! decision 2 (bit replication) and its inverse quantiser.
//!
//! # Expansion (decode)
//!
//! ```text
//! 4-bit v -> v * 17                 (0..15  -> 0, 17, .., 255)
//! 5-bit v -> v << 3 | v >> 2        (31 -> 255, 3 -> 24, 16 -> 132)
//! 6-bit v -> v << 2 | v >> 4        (1 -> 4, 63 -> 255, 32 -> 130)
//! ```
//!
//! # Quantisation (encode)
//!
//! A channel `c` becomes the code whose *expansion* is nearest to `c`; on a tie the
//! smaller code wins. The tables are built at compile time from the expansions above, so
//! `quantise(expand(v)) == v` for every code (decode → encode is exact) and the error
//! `|expand(quantise(c)) - c|` is at most 8 (4-bit), 4 (5-bit) and 2 (6-bit).
//!
//! Per format, from RGBA8 `(r, g, b, a)`:
//!
//! ```text
//!    0  nearest palette entry by squared RGBA distance, ties -> lowest index
//!  565  q5(r) << 11 | q6(g) << 5 | q5(b)             alpha dropped
//!  556  q5(r) << 11 | q5(g) << 6 | q6(b)             alpha dropped
//! 4444  q4(a) << 12 | q4(r) << 8 | q4(g) << 4 | q4(b)
//!   88  L = (299 r + 587 g + 114 b + 500) / 1000 (Rec. 601 luma, rounded half up;
//!       exact for grey), A = a; bytes [A, L]
//!  888  bytes [r, g, b, 0]                            alpha dropped, new pad is zero
//! 8888  bytes [a, r, g, b]
//! ```
//!
//! Decoded alpha is 255 for 565, 556 and 888; the palette's 4th byte for format 0.

use crate::error::TexmError;
use crate::header::PixelFormat;
use crate::palette::Palette;

/// Widens a 4-bit channel: `v * 17`. Only the low 4 bits of `v` are used.
pub const fn expand4(v: u8) -> u8 {
    (v & 0x0F) * 17
}

/// Widens a 5-bit channel: `v << 3 | v >> 2`. Only the low 5 bits of `v` are used.
pub const fn expand5(v: u8) -> u8 {
    let v = v & 0x1F;
    (v << 3) | (v >> 2)
}

/// Widens a 6-bit channel: `v << 2 | v >> 4`. Only the low 6 bits of `v` are used.
pub const fn expand6(v: u8) -> u8 {
    let v = v & 0x3F;
    (v << 2) | (v >> 4)
}

/// For each 8-bit value, the `bits`-wide code whose expansion is nearest (ties → lower).
const fn quant_table(bits: u32) -> [u8; 256] {
    let mut table = [0u8; 256];
    let codes = 1u32 << bits;
    let mut c = 0;
    while c < 256 {
        let mut best = 0u32;
        let mut best_err = u32::MAX;
        let mut v = 0;
        while v < codes {
            let e = match bits {
                4 => expand4(v as u8),
                5 => expand5(v as u8),
                _ => expand6(v as u8),
            } as u32;
            let err = e.abs_diff(c);
            if err < best_err {
                best_err = err;
                best = v;
            }
            v += 1;
        }
        table[c as usize] = best as u8;
        c += 1;
    }
    table
}

const Q4: [u8; 256] = quant_table(4);
const Q5: [u8; 256] = quant_table(5);
const Q6: [u8; 256] = quant_table(6);

/// Quantises an 8-bit channel to 4 bits (nearest `v * 17`, ties → lower).
pub const fn quantise4(c: u8) -> u8 {
    Q4[c as usize]
}

/// Quantises an 8-bit channel to 5 bits (nearest expansion, ties → lower).
pub const fn quantise5(c: u8) -> u8 {
    Q5[c as usize]
}

/// Quantises an 8-bit channel to 6 bits (nearest expansion, ties → lower).
pub const fn quantise6(c: u8) -> u8 {
    Q6[c as usize]
}

/// Rec. 601 luma of an RGB triple, rounded half up; `luma(v, v, v) == v`.
pub const fn luma(r: u8, g: u8, b: u8) -> u8 {
    let sum = 299 * r as u32 + 587 * g as u32 + 114 * b as u32 + 500;
    (sum / 1000) as u8
}

/// What decoding does with the 4th byte of a palette entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PaletteAlpha {
    /// The entry's 4th byte is the alpha (FORMATS §9.3: entries are R, G, B, A).
    #[default]
    Stored,
    /// Every palette colour decodes opaque (alpha 255); for palettes whose 4th byte is
    /// not an alpha. Our named option, not proven original behaviour.
    Opaque,
}

fn word(px: &[u8]) -> u16 {
    u16::from_le_bytes([px[0], px[1]])
}

/// Decodes one element of a non-indexed format (`px.len() == bytes_per_pixel`).
fn decode_direct(format: PixelFormat, px: &[u8]) -> [u8; 4] {
    match format {
        PixelFormat::Rgb565 => {
            let w = word(px);
            let (r, g, b) = ((w >> 11) as u8, (w >> 5) as u8, w as u8);
            [expand5(r), expand6(g), expand5(b), 255]
        }
        PixelFormat::Rgb556 => {
            let w = word(px);
            let (r, g, b) = ((w >> 11) as u8, (w >> 6) as u8, w as u8);
            [expand5(r), expand5(g), expand6(b), 255]
        }
        PixelFormat::Argb4444 => {
            let w = word(px);
            let (a, r, g, b) = ((w >> 12) as u8, (w >> 8) as u8, (w >> 4) as u8, w as u8);
            [expand4(r), expand4(g), expand4(b), expand4(a)]
        }
        PixelFormat::La88 => [px[1], px[1], px[1], px[0]],
        PixelFormat::Rgb888x => [px[0], px[1], px[2], 255],
        PixelFormat::Argb8888 => [px[1], px[2], px[3], px[0]],
        PixelFormat::Indexed8 => [0, 0, 0, 0],
    }
}

/// Encodes one RGBA8 pixel of a non-indexed format into `out` (`bytes_per_pixel` long).
fn encode_direct(format: PixelFormat, [r, g, b, a]: [u8; 4], out: &mut [u8]) {
    let put16 = |out: &mut [u8], w: u16| out.copy_from_slice(&w.to_le_bytes());
    match format {
        PixelFormat::Rgb565 => put16(
            out,
            (u16::from(quantise5(r)) << 11)
                | (u16::from(quantise6(g)) << 5)
                | u16::from(quantise5(b)),
        ),
        PixelFormat::Rgb556 => put16(
            out,
            (u16::from(quantise5(r)) << 11)
                | (u16::from(quantise5(g)) << 6)
                | u16::from(quantise6(b)),
        ),
        PixelFormat::Argb4444 => put16(
            out,
            (u16::from(quantise4(a)) << 12)
                | (u16::from(quantise4(r)) << 8)
                | (u16::from(quantise4(g)) << 4)
                | u16::from(quantise4(b)),
        ),
        PixelFormat::La88 => out.copy_from_slice(&[a, luma(r, g, b)]),
        PixelFormat::Rgb888x => out.copy_from_slice(&[r, g, b, 0]),
        PixelFormat::Argb8888 => out.copy_from_slice(&[a, r, g, b]),
        PixelFormat::Indexed8 => {}
    }
}

/// Expected raw length of `pixels` pixels, checked against `found`.
fn raw_len(format: PixelFormat, pixels: usize, found: usize, level: u32) -> Result<(), TexmError> {
    let expected = (pixels as u64).checked_mul(u64::from(format.bytes_per_pixel()));
    if expected == Some(found as u64) {
        Ok(())
    } else {
        Err(TexmError::PixelData {
            level,
            format: format.raw(),
            expected: expected.unwrap_or(u64::MAX),
            found,
        })
    }
}

/// Decodes `raw` (whole elements of `format`) to RGBA8, appending to `out`.
///
/// Indexed data needs `palette`; without one it fails with [`TexmError::PaletteMismatch`].
/// A `raw` length that is not a whole number of elements fails with
/// [`TexmError::PixelData`].
pub fn decode_pixels(
    format: PixelFormat,
    raw: &[u8],
    palette: Option<&Palette>,
    palette_alpha: PaletteAlpha,
    out: &mut Vec<u8>,
) -> Result<(), TexmError> {
    let bpp = format.bytes_per_pixel() as usize;
    raw_len(format, raw.len() / bpp, raw.len(), 0)?;
    out.reserve(raw.len() / bpp * 4);
    if format == PixelFormat::Indexed8 {
        let palette = palette.ok_or(TexmError::PaletteMismatch {
            format: 0,
            present: false,
        })?;
        for &index in raw {
            let mut rgba = palette.entry(index);
            if palette_alpha == PaletteAlpha::Opaque {
                rgba[3] = 255;
            }
            out.extend_from_slice(&rgba);
        }
    } else {
        for px in raw.chunks_exact(bpp) {
            out.extend_from_slice(&decode_direct(format, px));
        }
    }
    Ok(())
}

/// Encodes RGBA8 pixels (`rgba.len()` a multiple of 4) to raw elements of `format`,
/// appending to `out`, with the quantisation rules of the module docs.
///
/// Indexed data needs `palette` (nearest entry); without one it fails with
/// [`TexmError::PaletteMismatch`]. A length that is not a multiple of 4 fails with
/// [`TexmError::PixelData`].
pub fn encode_pixels(
    format: PixelFormat,
    rgba: &[u8],
    palette: Option<&Palette>,
    out: &mut Vec<u8>,
) -> Result<(), TexmError> {
    if rgba.len() % 4 != 0 {
        return Err(TexmError::PixelData {
            level: 0,
            format: format.raw(),
            expected: (rgba.len() - rgba.len() % 4) as u64,
            found: rgba.len(),
        });
    }
    let bpp = format.bytes_per_pixel() as usize;
    if format == PixelFormat::Indexed8 {
        let palette = palette.ok_or(TexmError::PaletteMismatch {
            format: 0,
            present: false,
        })?;
        let mut finder = palette.nearest_finder();
        out.extend(
            rgba.chunks_exact(4)
                .map(|px| finder.nearest([px[0], px[1], px[2], px[3]])),
        );
    } else {
        let start = out.len();
        out.resize(start + rgba.len() / 4 * bpp, 0);
        for (px, dst) in rgba.chunks_exact(4).zip(out[start..].chunks_exact_mut(bpp)) {
            encode_direct(format, [px[0], px[1], px[2], px[3]], dst);
        }
    }
    Ok(())
}

pub(crate) fn check_raw_level(
    format: PixelFormat,
    pixels: usize,
    raw: &[u8],
    level: u32,
) -> Result<(), TexmError> {
    raw_len(format, pixels, raw.len(), level)
}
