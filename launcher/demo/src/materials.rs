//! `Material.lib` (MAT0, attr2 = 6, several phases, animation blocks, `DEFAULT`, surface
//! modes per PD-MAT-4), `Textures.lib` (Texm in several pixel formats with mip chains,
//! one atlas with a `Page` chunk, a translucent glass, a holed grate and map-wide terrain
//! textures) and `LightMap.lib` (Texm lightmaps of the models and of each mission's
//! terrain). The pictures are procedural (`paint.rs`): model textures are 2×2 atlases
//! of material looks, model lightmaps soft ambient occlusion over the same layout.

use crate::paint::{Look, Noises, ambient_occlusion, paint, palette};
use crate::{DemoError, Out, fmt_err};
use iron3d_material::{AnimBlock, AnimKey, Mat0, Mat0Metadata, Phase, Surface, SurfaceMode};
use iron3d_nres::{NewEntry, NresWriter, TypeTag};
use iron3d_texm::{PageRect, PixelFormat, RgbaImage, TexmWriter};
use rand_chacha::ChaCha8Rng;

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
pub(crate) const MATERIALS: [(&str, &[&str], bool, Surface); 14] = [
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
    // Generator 18: each clan's camouflage (PD-RENDER-CLAN-MATERIAL: the renderer draws
    // `CAMO` of a clan-0 unit with `CAMO_C0`, of a clan-1 unit with `CAMO_C1`).
    ("CAMO_C0", &["CAMOC0"], false, Surface::OPAQUE),
    ("CAMO_C1", &["CAMOC1"], false, Surface::OPAQUE),
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

/// `(texture, Texm format, size, picture)` of every phase texture. The formats are
/// generator 16's census (every pixel format the strict reader knows); generator 17 gave
/// the drawn phase 0 of `STEEL` and `CONCRETE` the richer formats of their second
/// phases, and `WATER1` the `Argb4444` of `STEEL0`, so that colour pictures are not
/// stored in greyscale.
const TEXTURES: [(&str, PixelFormat, u32, Look); 21] = [
    ("DEFTEX", PixelFormat::Rgb565, 16, Look::Primer),
    ("STEEL0", PixelFormat::Argb8888, 64, Look::Steel(false)),
    ("STEEL1", PixelFormat::La88, 32, Look::Steel(true)),
    ("CAMO0", PixelFormat::Indexed8, 64, Look::Camo),
    ("GLASS0", PixelFormat::Argb8888, 32, Look::Glass),
    ("CONC0", PixelFormat::Rgb556, 64, Look::Concrete(false)),
    ("CONC1", PixelFormat::La88, 32, Look::Concrete(true)),
    ("LAVA0", PixelFormat::Rgb565, 64, Look::Lava(0, 4)),
    ("LAVA1", PixelFormat::Argb4444, 64, Look::Lava(1, 4)),
    ("LAVA2", PixelFormat::Argb8888, 64, Look::Lava(2, 4)),
    ("LAVA3", PixelFormat::Indexed8, 64, Look::Lava(3, 4)),
    ("WATER0", PixelFormat::Rgb888x, 64, Look::Water(0, 3)),
    ("WATER1", PixelFormat::Argb4444, 64, Look::Water(1, 3)),
    ("WATER2", PixelFormat::Rgb556, 64, Look::Water(2, 3)),
    ("ATLAS", PixelFormat::Argb4444, 64, Look::Hud),
    ("GRATE0", PixelFormat::Argb4444, 32, Look::Grate),
    ("GRASS0", PixelFormat::Rgb565, 64, Look::Grass),
    ("ROCK0", PixelFormat::Rgb565, 64, Look::Rock),
    ("ROAD0", PixelFormat::Rgb565, 64, Look::Road),
    ("CAMOC0", PixelFormat::Rgb565, 64, Look::ClanCamo(0)),
    ("CAMOC1", PixelFormat::Rgb565, 64, Look::ClanCamo(1)),
];

/// Words of the seeded stream generator 16 drew for `Material.lib`, `Textures.lib`,
/// the model lightmaps and `Palettes.lib`. The pictures are painted from a copy of the
/// stream; the stream itself then moves on by exactly this many words, so everything
/// drawn after the textures (RsLi archives, missions: the simulation's data) keeps its
/// generator-16 bytes.
const MATERIAL_STREAM_WORDS: u128 = 30_589;

/// Side of a model lightmap in texels.
const MODEL_LIGHTMAP_SIZE: u32 = 32;

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

/// Writes `Material.lib`, `Textures.lib` (pictures painted from a copy of the stream,
/// which then moves on by [`MATERIAL_STREAM_WORDS`]) and `Palettes.lib`; returns the
/// model lightmaps (soft ambient occlusion), which [`write_lightmaps`] writes to
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

    // One set of noises per material: the phases of an animated material stay coherent.
    let start = rng.get_word_pos();
    let mut paint_rng = rng.clone();
    let mut tex = Vec::new();
    for (_, names, _, _) in MATERIALS {
        let noises = Noises::new(&mut paint_rng);
        for &n in names {
            let &(_, format, size, look) =
                TEXTURES
                    .iter()
                    .find(|t| t.0 == n)
                    .ok_or_else(|| DemoError::Format {
                        what: n.to_owned(),
                        cause: "no texture spec".to_owned(),
                    })?;
            let image = paint(look, size, &noises).map_err(fmt_err(n))?;
            // The HUD atlas has a `Page` chunk with three rectangles.
            let page = (look == Look::Hud).then(|| {
                vec![
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
                ]
            });
            tex.push((n.to_owned(), TEXM_TYPE, 0, texm_of(n, format, image, page)?));
        }
    }
    o.put("Textures.lib", &typed("Textures.lib", &tex)?)?;

    let mut lms = Vec::new();
    for (n, strength) in crate::models::lightmaps() {
        let image = ambient_occlusion(MODEL_LIGHTMAP_SIZE, strength).map_err(fmt_err(n))?;
        lms.push((n.to_owned(), texm_of(n, PixelFormat::Rgb565, image, None)?));
    }

    // Palettes.lib: one 256 × 4-byte palette (R, G, B, A per entry) per suffix slot
    // used here. The entry layout inside Palettes.lib is an open question of the
    // spec (FORMATS.md open question 22); these entries carry exactly the
    // 1024-byte palette that format-0 Texm embeds, named by their slot suffix:
    // colour ramps (camouflage, molten ore, steel).
    let mut pals = Vec::new();
    for slot in PALETTE_SLOTS {
        // §1.7 gives palettes no tag: `type_id` 0 (PD-TAG-UNTYPED).
        pals.push((slot.to_owned(), TypeTag::UNTYPED.value(), 0, palette(slot)));
    }
    o.put("Palettes.lib", &typed("Palettes.lib", &pals)?)?;
    rng.set_word_pos(start + MATERIAL_STREAM_WORDS);
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
