//! `Material.lib` (MAT0, attr2 = 6, several phases, animation blocks, `DEFAULT`),
//! `Textures.lib` (Texm in several pixel formats with mip chains, one atlas with a
//! `Page` chunk) and `LightMap.lib` (Texm lightmaps).

use crate::{DemoError, Out, fmt_err};
use iron3d_material::{AnimBlock, AnimKey, Mat0, Mat0Metadata, Phase};
use iron3d_nres::{NewEntry, NresWriter};
use iron3d_texm::{PageRect, PixelFormat, RgbaImage, TexmWriter};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

/// NRes type id of MAT0 entries (`MAT0`).
const MAT0_TYPE: u32 = 0x3054_414D;
/// NRes type id of Texm entries (`Texm`).
const TEXM_TYPE: u32 = 0x6D78_6554;
/// MAT0 version (NRes attr2).
const MAT0_VERSION: u32 = 6;

/// `(material, phase textures, animated)`.
const MATERIALS: [(&str, &[&str], bool); 8] = [
    ("DEFAULT", &["DEFTEX"], false),
    ("STEEL", &["STEEL0", "STEEL1"], false),
    ("CAMO", &["CAMO0"], false),
    ("GLASS", &["GLASS0"], false),
    ("CONCRETE", &["CONC0", "CONC1"], false),
    ("LAVA", &["LAVA0", "LAVA1", "LAVA2", "LAVA3"], true),
    ("WATER", &["WATER0", "WATER1", "WATER2"], true),
    ("HUD", &["ATLAS"], false),
];

fn mat0(name: &str, textures: &[&str], animated: bool) -> Result<Vec<u8>, DemoError> {
    let phases = textures
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut params = [0u8; 18];
            params[0] = 0x80 + i as u8;
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

fn texm(
    rng: &mut ChaCha8Rng,
    name: &str,
    format: PixelFormat,
    size: u32,
    page: Option<Vec<PageRect>>,
) -> Result<Vec<u8>, DemoError> {
    let mips = size.ilog2() + 1;
    let mut w = TexmWriter::new(format);
    if let Some(rects) = page {
        w = w.with_page(rects);
    }
    w.write(&pattern(rng, size)?.mip_chain(mips))
        .map_err(fmt_err(name))
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

/// Writes `Material.lib`, `Textures.lib`, `LightMap.lib` and `Palettes.lib`.
pub(crate) fn write(o: &mut Out, rng: &mut ChaCha8Rng) -> Result<(), DemoError> {
    let mut mats = Vec::new();
    for (name, tex, animated) in MATERIALS {
        mats.push((
            name.to_owned(),
            MAT0_TYPE,
            MAT0_VERSION,
            mat0(name, tex, animated)?,
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
    for (_, names, _) in MATERIALS {
        for &n in names {
            let data = if n == "ATLAS" {
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
        lms.push((
            n.to_owned(),
            TEXM_TYPE,
            0,
            texm(rng, n, PixelFormat::Rgb565, 16, None)?,
        ));
    }
    o.put("LightMap.lib", &typed("LightMap.lib", &lms)?)?;

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
        pals.push((slot.to_owned(), 0, 0, pal));
    }
    o.put("Palettes.lib", &typed("Palettes.lib", &pals)?)?;
    Ok(())
}

/// Palette suffix slots written to `Palettes.lib` (letter, optionally one digit).
const PALETTE_SLOTS: [&str; 3] = ["A", "B", "C0"];
