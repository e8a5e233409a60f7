//! The HUD's bitmap font (**PD-HUD-FONT**).
//!
//! The glyph metrics of the original `gamefont.rlb` are not documented (FORMATS §16,
//! question 32), so the HUD draws with a font of its own, kept in the original texture
//! format so that a modder can replace it like any other texture:
//!
//! * **Layout**: one Texm texture holding a 16 × 16 grid of equal cells; the glyph of the
//!   CP1251 byte `b` is the cell in column `b % 16`, row `b / 16` (top row first). The
//!   cell size is the texture size / 16 (so both sides must be multiples of 16);
//!   every glyph advances by one cell (monospaced). Glyphs are white; their alpha is the
//!   coverage.
//! * **Where**: the NRes archive [`FONT_ARCHIVE`] in the game directory, entry
//!   [`FONT_ENTRY`]; the demo generator writes it ([`font_texm`]). A game directory
//!   without it (an original installation) uses the same font built in
//!   ([`Font::builtin`]).
//! * **The built-in glyphs** are the Spleen 6 × 12 font (BSD-2-Clause, through the
//!   `spleen-font` crate) mapped from Unicode to CP1251; a CP1251 character Spleen lacks
//!   (`№`, `—`, …) shows as `?`, the control codes `0x00..0x1F` as blanks.

use crate::HudError;
use iron3d_abi::TextureLevel;
use iron3d_texm::{PixelFormat, RgbaImage, Texm, TexmWriter};

/// The archive holding the HUD font in a game directory.
pub const FONT_ARCHIVE: &str = "UI/HudFont.lib";
/// The font's Texm entry in [`FONT_ARCHIVE`].
pub const FONT_ENTRY: &str = "HUDFONT";
/// Cells per row and per column of the atlas.
pub const GRID: u32 = 16;
/// Largest atlas side accepted from a file (bounds the decode).
pub const MAX_ATLAS_SIDE: u32 = 4096;

/// A monospaced CP1251 bitmap font: the atlas and its cell size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Font {
    atlas: TextureLevel,
    cell: (u32, u32),
}

impl Font {
    /// The built-in font (Spleen 6 × 12, see the module docs).
    pub fn builtin() -> Self {
        let (cw, ch) = (6u32, 12u32);
        let (w, h) = (cw * GRID, ch * GRID);
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        let spleen = match spleen_font::PSF2Font::new(spleen_font::FONT_6X12) {
            Ok(f) => f,
            // The font is compiled in; a failure here would be a broken dependency.
            Err(_) => return Self::blank(cw, ch),
        };
        let index = unicode_index(spleen_font::FONT_6X12);
        let question = index.iter().find(|e| e.0 == '?').map(|e| e.1);
        for b in 0x20u32..=0xFF {
            let byte = [b as u8];
            let (text, _, _) = encoding_rs::WINDOWS_1251.decode(&byte);
            let c = text.chars().next().unwrap_or('?');
            let idx = index
                .binary_search_by_key(&c, |e| e.0)
                .ok()
                .map(|k| index[k].1)
                .or(question);
            let Some(data) = idx.and_then(|i| spleen.glyph_by_idx(i)) else {
                continue;
            };
            let glyph = spleen_font::Glyph::new(data, cw as usize);
            let (x0, y0) = ((b % GRID) * cw, (b / GRID) * ch);
            for (row_y, row) in glyph.enumerate().take(ch as usize) {
                for (col_x, on) in row.enumerate().take(cw as usize) {
                    if on {
                        let k = (((y0 + row_y as u32) * w + x0 + col_x as u32) * 4) as usize;
                        rgba[k..k + 4].copy_from_slice(&[255; 4]);
                    }
                }
            }
        }
        Self {
            atlas: TextureLevel {
                width: w,
                height: h,
                rgba: rgba.into(),
            },
            cell: (cw, ch),
        }
    }

    fn blank(cw: u32, ch: u32) -> Self {
        let (w, h) = (cw * GRID, ch * GRID);
        Self {
            atlas: TextureLevel {
                width: w,
                height: h,
                rgba: vec![0u8; (w * h * 4) as usize].into(),
            },
            cell: (cw, ch),
        }
    }

    /// A font from Texm bytes laid out as the module docs say (the base level is used).
    /// `origin` names the file in errors.
    pub fn from_texm(bytes: &[u8], origin: &str) -> Result<Self, HudError> {
        let bad = |why: String| HudError::Font {
            origin: origin.to_owned(),
            why,
        };
        let texm = Texm::parse(bytes).map_err(|e| HudError::Texm {
            origin: origin.to_owned(),
            source: e,
        })?;
        let (w, h) = (texm.width(), texm.height());
        if w == 0 || h == 0 || w % GRID != 0 || h % GRID != 0 {
            return Err(bad(format!(
                "the atlas is {w} × {h}: both sides must be positive multiples of {GRID}"
            )));
        }
        if w > MAX_ATLAS_SIDE || h > MAX_ATLAS_SIDE {
            return Err(bad(format!(
                "the atlas is {w} × {h}: at most {MAX_ATLAS_SIDE} per side"
            )));
        }
        let image = texm.decode_level(0).map_err(|e| HudError::Texm {
            origin: origin.to_owned(),
            source: e,
        })?;
        Ok(Self {
            atlas: TextureLevel {
                width: w,
                height: h,
                rgba: image.into_pixels().into(),
            },
            cell: (w / GRID, h / GRID),
        })
    }

    /// The atlas (RGBA8, one level).
    pub fn atlas(&self) -> &TextureLevel {
        &self.atlas
    }

    /// Cell (glyph) width and height in atlas pixels.
    pub fn cell(&self) -> (u32, u32) {
        self.cell
    }

    /// Texture coordinates `u0, v0, u1, v1` of the glyph of CP1251 byte `b`.
    pub fn uv(&self, b: u8) -> [f32; 4] {
        let (c, r) = (u32::from(b) % GRID, u32::from(b) / GRID);
        let g = GRID as f32;
        [
            c as f32 / g,
            r as f32 / g,
            (c + 1) as f32 / g,
            (r + 1) as f32 / g,
        ]
    }
}

/// The single characters of a PSF2 font's Unicode table and their glyph indices,
/// sorted by character. In PSF2 each glyph's record lists the characters it draws (any
/// number, UTF-8, one after another), then `0xFE`-led multi-character sequences, then
/// `0xFF`; `spleen-font`'s own lookup matches only a record holding exactly one
/// character, so glyphs shared by several characters (Cyrillic а and Latin a) would be
/// lost through it. Malformed bytes end the record.
fn unicode_index(psf2: &[u8]) -> Vec<(char, u32)> {
    let word = |k: usize| -> usize {
        psf2.get(k..k + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let (header, flags, glyphs, per_glyph) = (word(8), word(12), word(16), word(20));
    let mut out = Vec::new();
    if flags & 1 == 0 {
        return out;
    }
    let start = glyphs
        .checked_mul(per_glyph)
        .and_then(|n| n.checked_add(header))
        .unwrap_or(usize::MAX);
    let table = psf2.get(start..).unwrap_or(&[]);
    for (idx, record) in table.split(|&b| b == 0xFF).take(glyphs).enumerate() {
        let singles = record.split(|&b| b == 0xFE).next().unwrap_or(&[]);
        let text = match std::str::from_utf8(singles) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&singles[..e.valid_up_to()]).unwrap_or(""),
        };
        out.extend(text.chars().map(|c| (c, idx as u32)));
    }
    out.sort_unstable();
    out.dedup_by_key(|e| e.0);
    out
}

/// The built-in font as Texm bytes (`Argb8888`, one level): what the demo generator
/// stores as [`FONT_ENTRY`] in [`FONT_ARCHIVE`].
pub fn font_texm() -> Result<Vec<u8>, HudError> {
    let f = Font::builtin();
    let a = f.atlas();
    let image = RgbaImage::new(a.width, a.height, a.rgba.to_vec()).map_err(|e| HudError::Texm {
        origin: "the built-in font".to_owned(),
        source: e,
    })?;
    TexmWriter::new(PixelFormat::Argb8888)
        .write(&[image])
        .map_err(|e| HudError::Texm {
            origin: "the built-in font".to_owned(),
            source: e,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(f: &Font, b: u8) -> usize {
        let (cw, ch) = f.cell();
        let a = f.atlas();
        let (x0, y0) = ((u32::from(b) % GRID) * cw, (u32::from(b) / GRID) * ch);
        let mut n = 0;
        for y in y0..y0 + ch {
            for x in x0..x0 + cw {
                n += usize::from(a.rgba[((y * a.width + x) * 4 + 3) as usize] == 255);
            }
        }
        n
    }

    #[test]
    fn the_builtin_font_has_latin_and_cyrillic_glyphs_at_their_cp1251_codes() {
        let f = Font::builtin();
        assert_eq!(f.cell(), (6, 12));
        assert_eq!((f.atlas().width, f.atlas().height), (96, 192));
        assert_eq!(lit(&f, b' '), 0);
        assert_eq!(lit(&f, 0x01), 0, "control codes are blank");
        for b in [
            b'A', b'z', b'0', b'?', 0xC0, /* А */
            0xFF, /* я */
            0xA8, /* Ё */
        ] {
            assert!(lit(&f, b) > 4, "glyph {b:#x} is drawn");
        }
        // Cyrillic А differs from Б, and Latin A is not Cyrillic Д.
        let glyph = |b: u8| {
            let (cw, ch) = f.cell();
            let a = f.atlas();
            let (x0, y0) = ((u32::from(b) % GRID) * cw, (u32::from(b) / GRID) * ch);
            (0..ch)
                .flat_map(|y| (0..cw).map(move |x| (x, y)))
                .map(|(x, y)| a.rgba[(((y0 + y) * a.width + x0 + x) * 4 + 3) as usize])
                .collect::<Vec<_>>()
        };
        assert_ne!(glyph(0xC0), glyph(0xC1));
        assert_ne!(glyph(b'A'), glyph(0xC4));
        // Every Cyrillic letter of CP1251 has its own glyph, and the ones that look
        // like Latin letters share theirs (Spleen draws them once).
        for b in (0xC0u8..=0xFF).chain([0xA8, 0xB8]) {
            assert_ne!(glyph(b), glyph(b'?'), "{b:#x} is not '?'");
        }
        assert_eq!(glyph(0xE0 /* а */), glyph(b'a'));
        assert_eq!(glyph(0xD0 /* Р */), glyph(b'P'));
        assert_ne!(glyph(0xF2 /* т */), glyph(b't'));
        // № (0xB9) is not in Spleen: it shows as '?'.
        assert_eq!(glyph(0xB9), glyph(b'?'));
    }

    #[test]
    fn the_font_round_trips_through_texm_and_bad_atlases_are_refused() {
        let bytes = font_texm().unwrap();
        let f = Font::from_texm(&bytes, "HudFont.lib:HUDFONT").unwrap();
        assert_eq!(f, Font::builtin());
        // Not a multiple of 16.
        let img = RgbaImage::filled(20, 32, [255; 4]).unwrap();
        let odd = TexmWriter::new(PixelFormat::Argb8888)
            .write(&[img])
            .unwrap();
        let e = Font::from_texm(&odd, "odd.tex").unwrap_err().to_string();
        assert!(e.contains("odd.tex") && e.contains("20 × 32"), "{e}");
        let e = Font::from_texm(&bytes[..40], "cut.tex").unwrap_err();
        assert!(e.to_string().contains("cut.tex"), "{e}");
        assert!(
            std::error::Error::source(&e).is_some(),
            "the Texm error is chained"
        );
    }

    #[test]
    fn glyph_uvs_pick_the_cell_of_the_byte() {
        let f = Font::builtin();
        assert_eq!(f.uv(0), [0.0, 0.0, 1.0 / 16.0, 1.0 / 16.0]);
        assert_eq!(f.uv(0xFF), [15.0 / 16.0, 15.0 / 16.0, 1.0, 1.0]);
        assert_eq!(f.uv(0x41), [1.0 / 16.0, 4.0 / 16.0, 2.0 / 16.0, 5.0 / 16.0]);
    }
}
