//! `Material.lib` (MAT0, attr2 = 6, several phases, animation blocks, `DEFAULT`, surface
//! modes per PD-MAT-4), `Textures.lib` (Texm in several pixel formats with mip chains,
//! one atlas with a `Page` chunk, a translucent glass, a holed grate and map-wide terrain
//! textures) and `LightMap.lib` (Texm lightmaps of the models and of each mission's
//! terrain).

use crate::{DemoError, Out, fmt_err};
use iron3d_material::{AnimBlock, AnimKey, Mat0, Mat0Metadata, Phase, Surface, SurfaceMode};
use iron3d_nres::{NewEntry, NresWriter, TypeTag};
use iron3d_texm::{PageRect, PixelFormat, RgbaImage, TexmWriter};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

/// NRes type id of MAT0 entries (`MAT0`, FORMATS §1.7).
const MAT0_TYPE: u32 = TypeTag::MAT0.value();
/// NRes type id of Texm entries (`Texm`, FORMATS §1.7).
const TEXM_TYPE: u32 = TypeTag::TEXM.value();
/// MAT0 version (NRes attr2).
const MAT0_VERSION: u32 = 6;

/// Alpha-blended, two-sided (glass).
const BLENDED: Surface = Surface {
    mode: SurfaceMode::AlphaBlended,
    alpha_ref: 0,
    two_sided: true,
};
/// Alpha-tested at 128, two-sided (grates: holes where alpha is 0).
const TESTED: Surface = Surface {
    mode: SurfaceMode::AlphaTested,
    alpha_ref: 128,
    two_sided: true,
};

/// `(material, phase textures, animated, surface of every phase)`. Entry 0 is `DEFAULT`
/// (the last step of the fallback order). `WATER`, `GRASS`, `ROCK` (the `Land2.wea`
/// rows) and `ROAD` (the `Land1.wea` row) are the terrain materials.
pub(crate) const MATERIALS: [(&str, &[&str], bool, Surface); 12] = [
    ("DEFAULT", &["DEFTEX"], false, Surface::OPAQUE),
    ("STEEL", &["STEEL0", "STEEL1"], false, Surface::OPAQUE),
    ("CAMO", &["CAMO0"], false, Surface::OPAQUE),
    ("GLASS", &["GLASS0"], false, BLENDED),
    ("CONCRETE", &["CONC0", "CONC1"], false, Surface::OPAQUE),
    (
        "LAVA",
        &["LAVA0", "LAVA1", "LAVA2", "LAVA3"],
        true,
        Surface::OPAQUE,
    ),
    (
        "WATER",
        &["WATER0", "WATER1", "WATER2"],
        true,
        Surface::OPAQUE,
    ),
    ("HUD", &["ATLAS"], false, Surface::OPAQUE),
    ("GRATE", &["GRATE0"], false, TESTED),
    ("GRASS", &["GRASS0"], false, Surface::OPAQUE),
    ("ROCK", &["ROCK0"], false, Surface::OPAQUE),
    ("ROAD", &["ROAD0"], false, Surface::OPAQUE),
];

fn mat0(
    name: &str,
    textures: &[&str],
    animated: bool,
    surface: Surface,
) -> Result<Vec<u8>, DemoError> {
    let phases = textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut params = [0u8; 18];
            params[0] = 0x80 + i as u8;
            surface.apply(&mut params);
            Phase::new(params, t.as_bytes())
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(fmt_err(name))?;
    let blocks = if animated {
        let keys = (0..textures.len() as u16)
            .map(|k| AnimKey::new(k, 150, 0))
            .collect();
        vec![AnimBlock::new(AnimBlock::header_from(1, 0), keys).map_err(fmt_err(name))?]
    } else {
        Vec::new()
    };
    Mat0::new(MAT0_VERSION, Mat0Metadata::DEFAULT, phases, blocks)
        .map_err(fmt_err(name))?
        .to_bytes(MAT0_VERSION)
        .map_err(fmt_err(name))
}

/// How the pixels of a [`SPECIAL`] texture are painted (the others use [`pattern`]).
#[derive(Clone, Copy)]
enum Paint {
    /// Bluish glass, alpha 90..=160 in a diagonal gradient with noise.
    Glass,
    /// Steel bars (alpha 255) around square holes (alpha 0).
    Grate,
    /// Blotchy green.
    Grass,
    /// Grey-brown blotches with dark cracks.
    Rock,
    /// Dark asphalt with light gravel specks.
    Road,
}

/// Textures that do not take the cycling format/size: `(name, format, size, paint)`.
const SPECIAL: [(&str, PixelFormat, u32, Paint); 5] = [
    ("GLASS0", PixelFormat::Argb8888, 32, Paint::Glass),
    ("GRATE0", PixelFormat::Argb4444, 32, Paint::Grate),
    ("GRASS0", PixelFormat::Rgb565, 64, Paint::Grass),
    ("ROCK0", PixelFormat::Rgb565, 64, Paint::Rock),
    ("ROAD0", PixelFormat::Rgb565, 64, Paint::Road),
];

/// Bar width and period (pixels) of the grate at the top level.
const GRATE_BAR: u32 = 2;
/// See [`GRATE_BAR`].
const GRATE_PERIOD: u32 = 8;

/// A `size`×`size` noisy two-colour pattern.
fn pattern(rng: &mut ChaCha8Rng, size: u32) -> Result<RgbaImage, DemoError> {
    let a = rng.next_u32().to_le_bytes();
    let b = rng.next_u32().to_le_bytes();
    let mut px = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let c = if ((x / 4) + (y / 4)) % 2 == 0 { a } else { b };
            let n = (rng.next_u32() & 15) as u8;
            px.extend_from_slice(&[c[0] ^ n, c[1] ^ n, c[2], 255 - (c[3] & 0x3F)]);
        }
    }
    RgbaImage::new(size, size, px).map_err(fmt_err("texture pattern"))
}

/// `v + d`, clamped to a byte.
fn shade(v: u8, d: i32) -> u8 {
    (i32::from(v) + d).clamp(0, 255) as u8
}

/// One random offset per `block`×`block` cell of a `size`×`size` image, in `-amp..=amp`.
fn blotches(rng: &mut ChaCha8Rng, size: u32, block: u32, amp: i32) -> Vec<i32> {
    let n = (size / block).max(1);
    (0..n * n)
        .map(|_| (rng.next_u32() % (2 * amp as u32 + 1)) as i32 - amp)
        .collect()
}

/// A `size`×`size` image of `paint`, from the seeded stream.
fn painted(rng: &mut ChaCha8Rng, paint: Paint, size: u32) -> Result<RgbaImage, DemoError> {
    let mut px = Vec::with_capacity((size * size * 4) as usize);
    match paint {
        Paint::Glass => {
            let tint = (rng.next_u32() % 24) as i32;
            for y in 0..size {
                for x in 0..size {
                    let n = (rng.next_u32() % 16) as i32;
                    // Diagonal gradient 95..=150 plus noise 0..=15: alpha in 95..=165,
                    // clamped to 90..=160.
                    let g = 95 + (55 * (x + y) / (2 * size - 2)) as i32;
                    let a = (g + n - 5).clamp(90, 160) as u8;
                    px.extend_from_slice(&[shade(110, tint + n), shade(165, n), shade(205, n), a]);
                }
            }
        }
        Paint::Grate => {
            let base = (rng.next_u32() % 32) as i32;
            for y in 0..size {
                for x in 0..size {
                    let bar = x % GRATE_PERIOD < GRATE_BAR || y % GRATE_PERIOD < GRATE_BAR;
                    let n = (rng.next_u32() % 24) as i32;
                    // Holes keep the bar colour so filtering does not bleed black.
                    let a = if bar { 255 } else { 0 };
                    px.extend_from_slice(&[
                        shade(90, base + n),
                        shade(95, base + n),
                        shade(105, base + n),
                        a,
                    ]);
                }
            }
        }
        Paint::Grass | Paint::Rock | Paint::Road => {
            let (rgb, block, amp): ([u8; 3], u32, i32) = match paint {
                Paint::Grass => ([70, 120, 45], 8, 22),
                Paint::Rock => ([125, 115, 100], 16, 24),
                _ => ([62, 62, 66], 4, 6),
            };
            let coarse = blotches(rng, size, block, amp);
            let fine = blotches(rng, size, 4, 8);
            let cells = (size / block).max(1);
            let crack_row = rng.next_u32() % size;
            for y in 0..size {
                for x in 0..size {
                    let c = coarse[((y / block) * cells + x / block) as usize];
                    let f = fine[((y / 4) * (size / 4) + x / 4) as usize];
                    let n = (rng.next_u32() % 17) as i32 - 8;
                    let mut d = c + n;
                    match paint {
                        Paint::Grass => d += f / 2,
                        // Cracks: a zigzag across the texture and diagonals, all
                        // 8-connected lines.
                        Paint::Rock => {
                            d += f;
                            let t = x % 12;
                            let zigzag = (crack_row + t.min(12 - t)) % size;
                            if y == zigzag || (x + y) % 23 == 0 {
                                d -= 50;
                            }
                        }
                        // Gravel: one light speck in about 16 pixels.
                        _ if n >= 7 => d += 45,
                        _ => {}
                    }
                    let g = if matches!(paint, Paint::Grass) {
                        d + n
                    } else {
                        d
                    };
                    px.extend_from_slice(&[
                        shade(rgb[0], d),
                        shade(rgb[1], g),
                        shade(rgb[2], d),
                        255,
                    ]);
                }
            }
        }
    }
    RgbaImage::new(size, size, px).map_err(fmt_err("texture paint"))
}

/// `image` with its full mip chain (down to 1×1) as Texm bytes.
pub(crate) fn texm_of(
    name: &str,
    format: PixelFormat,
    image: RgbaImage,
    page: Option<Vec<PageRect>>,
) -> Result<Vec<u8>, DemoError> {
    let mips = image.width().max(image.height()).ilog2() + 1;
    let mut w = TexmWriter::new(format);
    if let Some(rects) = page {
        w = w.with_page(rects);
    }
    w.write(&image.mip_chain(mips)).map_err(fmt_err(name))
}

fn texm(
    rng: &mut ChaCha8Rng,
    name: &str,
    format: PixelFormat,
    size: u32,
    page: Option<Vec<PageRect>>,
) -> Result<Vec<u8>, DemoError> {
    texm_of(name, format, pattern(rng, size)?, page)
}

/// The HUD font (**PD-HUD-FONT**): `UI/HudFont.lib` holding the Texm atlas `HUDFONT`.
pub(crate) fn write_hud_font(o: &mut Out) -> Result<(), DemoError> {
    let what = iron3d_hud::font::FONT_ARCHIVE;
    let texm = iron3d_hud::font::font_texm().map_err(fmt_err(what))?;
    let entry = (iron3d_hud::font::FONT_ENTRY.to_owned(), TEXM_TYPE, 0, texm);
    o.put(what, &typed(what, &[entry])?)
}

fn typed(what: &str, entries: &[(String, u32, u32, Vec<u8>)]) -> Result<Vec<u8>, DemoError> {
    let mut w = NresWriter::new();
    for (name, ty, attr2, data) in entries {
        w.push(
            NewEntry::new(name.as_bytes(), *ty, data.clone())
                .map_err(fmt_err(what))?
                .with_attrs(0, *attr2, 0),
        );
    }
    w.finish().map_err(fmt_err(what))
}

/// A `LightMap.lib` entry: `(name, Texm bytes)`.
pub(crate) type LightMap = (String, Vec<u8>);

/// Writes `Material.lib`, `Textures.lib` and `Palettes.lib`; returns the model
/// lightmaps (drawn from the stream here), which [`write_lightmaps`] writes to
/// `LightMap.lib` once the missions have added their terrain lightmaps.
pub(crate) fn write(o: &mut Out, rng: &mut ChaCha8Rng) -> Result<Vec<LightMap>, DemoError> {
    let mut mats = Vec::new();
    for (name, tex, animated, surface) in MATERIALS {
        mats.push((
            name.to_owned(),
            MAT0_TYPE,
            MAT0_VERSION,
            mat0(name, tex, animated, surface)?,
        ));
    }
    o.put("Material.lib", &typed("Material.lib", &mats)?)?;

    let formats = [
        PixelFormat::Rgb565,
        PixelFormat::Argb4444,
        PixelFormat::Argb8888,
        PixelFormat::Indexed8,
        PixelFormat::Rgb888x,
        PixelFormat::La88,
        PixelFormat::Rgb556,
    ];
    let mut tex = Vec::new();
    let mut i = 0;
    for (_, names, _, _) in MATERIALS {
        for &n in names {
            let special = SPECIAL.iter().find(|s| s.0 == n);
            let data = if let Some(&(_, format, size, paint)) = special {
                texm_of(n, format, painted(rng, paint, size)?, None)?
            } else if n == "ATLAS" {
                let rects = vec![
                    PageRect {
                        x: 0,
                        width: 32,
                        y: 0,
                        height: 32,
                    },
                    PageRect {
                        x: 32,
                        width: 32,
                        y: 0,
                        height: 16,
                    },
                    PageRect {
                        x: 32,
                        width: 16,
                        y: 16,
                        height: 16,
                    },
                ];
                texm(rng, n, PixelFormat::Argb4444, 64, Some(rects))?
            } else {
                let size = 16 << (i % 2);
                texm(rng, n, formats[i % formats.len()], size, None)?
            };
            i += 1;
            tex.push((n.to_owned(), TEXM_TYPE, 0, data));
        }
    }
    o.put("Textures.lib", &typed("Textures.lib", &tex)?)?;

    let mut lms = Vec::new();
    for n in crate::models::lightmaps() {
        lms.push((n.to_owned(), texm(rng, n, PixelFormat::Rgb565, 16, None)?));
    }

    // Palettes.lib: one 256 × 4-byte palette (R, G, B, A per entry) per suffix slot
    // used here. The entry layout inside Palettes.lib is an open question of the
    // spec (FORMATS.md open question 22); these entries carry exactly the
    // 1024-byte palette that format-0 Texm embeds, named by their slot suffix.
    let mut pals = Vec::new();
    for slot in PALETTE_SLOTS {
        let mut pal = vec![0u8; 1024];
        rng.fill_bytes(&mut pal);
        for a in pal.iter_mut().skip(3).step_by(4) {
            *a = 0xFF;
        }
        // §1.7 gives palettes no tag: `type_id` 0 (PD-TAG-UNTYPED).
        pals.push((slot.to_owned(), TypeTag::UNTYPED.value(), 0, pal));
    }
    o.put("Palettes.lib", &typed("Palettes.lib", &pals)?)?;
    Ok(lms)
}

/// Writes `LightMap.lib`: the model lightmaps, then the terrain lightmaps in mission
/// order.
pub(crate) fn write_lightmaps(o: &mut Out, lightmaps: Vec<LightMap>) -> Result<(), DemoError> {
    let lms: Vec<_> = lightmaps
        .into_iter()
        .map(|(n, data)| (n, TEXM_TYPE, 0, data))
        .collect();
    o.put("LightMap.lib", &typed("LightMap.lib", &lms)?)
}

/// Palette suffix slots written to `Palettes.lib` (letter, optionally one digit).
const PALETTE_SLOTS: [&str; 3] = ["A", "B", "C0"];
