//! RsLi archives: `effects.rlb` (FXID smoke, fire, lightning, and the combat effects
//! shot, hit, explode and wreck in the project's emitter layout, PD-FX-BODY), `sounds.lib` (SWAV PCM
//! and MS-ADPCM tones, effects and music of [`crate::sounds`]), `voices.lib` (mission
//! voice lines), `gamefont.rlb` and `sprites.lib` (Texm), across several storage
//! methods.

use crate::paint::Sprite;
use crate::{DemoError, Out, fmt_err};
use iron3d_aux::{Wave, encode_ms_adpcm};
use iron3d_effects_rules::emitter::{EmitterBlock, PROJECT_LAYOUT};
use iron3d_fxid::{Command, Fxid, Opcode};
use iron3d_rsli::{Method, RsliBuilder};
use iron3d_texm::{PixelFormat, RgbaImage, TexmWriter};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

fn archive(o: &mut Out, rel: &str, entries: Vec<(&str, Method, Vec<u8>)>) -> Result<(), DemoError> {
    let mut b = RsliBuilder::new();
    for (name, method, data) in entries {
        b.add(name, method, data);
    }
    o.put(rel, &b.build().map_err(fmt_err(rel))?)
}

/// One archive entry: its name, storage method and bytes.
type Entry = (&'static str, Method, Vec<u8>);

/// One command of a demo effect: its opcode, its resource reference (archive, entry)
/// when it has one, and its emitter block (PD-FX-BODY) when it has one.
type FxCommand<'a> = (Opcode, Option<(&'a str, &'a str)>, Option<EmitterBlock>);

/// A demo effect in the project layout (header `settings_id` = PD-FX-BODY's
/// `PROJECT_LAYOUT`): `seconds` long, time mode `mode`, the commands in disk order.
fn effect(
    name: &str,
    seconds: f32,
    mode: u32,
    commands: &[FxCommand<'_>],
) -> Result<Vec<u8>, DemoError> {
    let mut b = Fxid::builder()
        .duration_seconds(seconds)
        .time_mode(mode)
        .settings_id(PROJECT_LAYOUT);
    for &(op, reference, block) in commands {
        let mut c = match reference {
            Some((a, n)) => {
                Command::with_resource(op, a.as_bytes(), n.as_bytes()).map_err(fmt_err(name))?
            }
            None => Command::new(op),
        };
        if let Some(block) = block {
            block.write(&mut c).map_err(fmt_err(name))?;
        }
        b = b.command(c);
    }
    b.build().to_bytes().map_err(fmt_err(name))
}

/// An additive emitter block of `colour`, `width` wide (the rest: defaults).
fn glow(width: f32, colour: [f32; 4]) -> EmitterBlock {
    EmitterBlock {
        width,
        colour,
        ..EmitterBlock::default()
    }
}

/// The demo's effects (PD-AI-EFFECTS names the combat ones): what each command shows
/// is PD-FX-OPCODES' reading of the project block.
fn effects() -> Result<Vec<Entry>, DemoError> {
    let sprites = Some(("sprites.lib", "SMOKE.TEX"));
    let fire = Some(("sprites.lib", "FIRE.TEX"));
    let smoke = EmitterBlock {
        width: 1.5,
        colour: [0.35, 0.35, 0.35, 0.55],
        count: 4,
        rate: 8.0,
        speed: 1.5,
        spread: 0.4,
        gravity: 0.5,
        life: 2.5,
        grow: 0.8,
        blend: 1,
        fade: 1,
        ..EmitterBlock::default()
    };
    let sparks = EmitterBlock {
        width: 0.2,
        colour: [1.0, 0.8, 0.3, 1.0],
        count: 10,
        speed: 6.0,
        spread: 1.2,
        gravity: -9.8,
        life: 0.35,
        fade: 1,
        ..EmitterBlock::default()
    };
    Ok(vec![
        (
            "SMOKE",
            Method::Lzss,
            effect("SMOKE", 3.0, 0, &[(Opcode::Op7, sprites, Some(smoke))])?,
        ),
        (
            "FIRE",
            Method::Deflate,
            effect(
                "FIRE",
                1.5,
                0,
                &[
                    (Opcode::Op3, fire, Some(glow(3.0, [1.0, 0.55, 0.15, 0.9]))),
                    (Opcode::Op2, Some(("sounds.lib", "FIRE.WAV")), None),
                    (
                        Opcode::Op7,
                        fire,
                        Some(EmitterBlock {
                            rate: 12.0,
                            count: 2,
                            ..sparks
                        }),
                    ),
                    (Opcode::Op1, None, Some(glow(12.0, [1.0, 0.6, 0.2, 1.0]))),
                ],
            )?,
        ),
        (
            "LIGHTNING",
            Method::Raw,
            effect(
                "LIGHTNING",
                0.8,
                2,
                &[
                    (Opcode::Op2, Some(("sounds.lib", "THUNDER.WAV")), None),
                    // §13.9: the bolt's descriptor [40, 40, 600].
                    (
                        Opcode::Op3,
                        Some(("effects.rlb", "BOLT")),
                        Some(EmitterBlock {
                            width: 40.0,
                            height: 40.0,
                            length: 600.0,
                            colour: [0.8, 0.85, 1.0, 1.0],
                            ..EmitterBlock::default()
                        }),
                    ),
                    (Opcode::Op1, None, Some(glow(600.0, [0.7, 0.75, 1.0, 1.0]))),
                    (Opcode::Op6, None, None),
                ],
            )?,
        ),
        (
            "SHOT",
            Method::Raw,
            effect(
                "SHOT",
                0.15,
                2,
                &[
                    (Opcode::Op3, fire, Some(glow(1.2, [1.0, 0.85, 0.4, 1.0]))),
                    (
                        Opcode::Op8,
                        fire,
                        Some(EmitterBlock {
                            length: 4.0,
                            ..glow(0.15, [1.0, 0.9, 0.5, 1.0])
                        }),
                    ),
                    (Opcode::Op1, None, Some(glow(6.0, [1.0, 0.8, 0.4, 1.0]))),
                ],
            )?,
        ),
        (
            "HIT",
            Method::Raw,
            effect(
                "HIT",
                0.4,
                2,
                &[
                    (Opcode::Op7, fire, Some(sparks)),
                    (Opcode::Op3, fire, Some(glow(0.8, [1.0, 0.7, 0.3, 1.0]))),
                ],
            )?,
        ),
        (
            "EXPLODE",
            Method::Lzss,
            effect(
                "EXPLODE",
                1.6,
                2,
                &[
                    (Opcode::Op1, None, Some(glow(25.0, [1.0, 0.6, 0.25, 1.0]))),
                    (Opcode::Op3, fire, Some(glow(6.0, [1.0, 0.7, 0.3, 1.0]))),
                    (
                        Opcode::Op7,
                        fire,
                        Some(EmitterBlock {
                            width: 2.0,
                            colour: [1.0, 0.55, 0.15, 0.9],
                            count: 12,
                            speed: 3.0,
                            spread: 1.2,
                            life: 0.9,
                            grow: 1.5,
                            fade: 1,
                            ..EmitterBlock::default()
                        }),
                    ),
                    (
                        Opcode::Op7,
                        sprites,
                        Some(EmitterBlock {
                            width: 0.3,
                            colour: [0.15, 0.12, 0.1, 1.0],
                            count: 24,
                            speed: 9.0,
                            spread: 1.0,
                            gravity: -9.8,
                            life: 1.4,
                            blend: 1,
                            ..EmitterBlock::default()
                        }),
                    ),
                ],
            )?,
        ),
        (
            "WRECK",
            Method::Deflate,
            effect(
                "WRECK",
                20.0,
                0,
                &[
                    (
                        Opcode::Op7,
                        sprites,
                        Some(EmitterBlock {
                            width: 1.6,
                            colour: [0.2, 0.2, 0.2, 0.5],
                            count: 1,
                            rate: 6.0,
                            speed: 1.2,
                            spread: 0.25,
                            gravity: 0.6,
                            life: 5.0,
                            grow: 0.6,
                            blend: 1,
                            fade: 2,
                            ..EmitterBlock::default()
                        }),
                    ),
                    // The scorch: a dark patch where the unit died.
                    (
                        Opcode::Op3,
                        sprites,
                        Some(EmitterBlock {
                            blend: 1,
                            ..glow(4.0, [0.05, 0.04, 0.03, 0.6])
                        }),
                    ),
                ],
            )?,
        ),
    ])
}

/// A tone of `freq` Hz, `ms` milliseconds at 22 050 Hz, with a little seeded noise.
fn tone(rng: &mut ChaCha8Rng, freq: f32, ms: u32) -> Vec<i16> {
    let n = 22_050 * ms / 1000;
    (0..n)
        .map(|i| {
            let t = i as f32 / 22_050.0;
            let env = 1.0 - i as f32 / n as f32;
            let noise = (rng.next_u32() % 512) as f32 - 256.0;
            (env * 12_000.0 * (std::f32::consts::TAU * freq * t).sin() + noise) as i16
        })
        .collect()
}

fn sprite(rng: &mut ChaCha8Rng, name: &str, format: PixelFormat) -> Result<Vec<u8>, DemoError> {
    let mut px = Vec::new();
    for _ in 0..16 * 16 {
        px.extend_from_slice(&rng.next_u32().to_le_bytes());
    }
    let img = RgbaImage::new(16, 16, px).map_err(fmt_err(name))?;
    TexmWriter::new(format)
        .write(&img.mip_chain(5))
        .map_err(fmt_err(name))
}

/// An effect sprite of `look`, 32×32 with its mip chain, painted from a stream of its
/// own seeded by the first two of the 256 `u32` draws [`sprite`] takes (all 256 are
/// still taken, so the generator's stream moves on exactly as it did for the random
/// texels).
fn effect_sprite(
    rng: &mut ChaCha8Rng,
    name: &str,
    look: Sprite,
    format: PixelFormat,
) -> Result<Vec<u8>, DemoError> {
    let seed = rng.next_u64();
    for _ in 2..16 * 16 {
        rng.next_u32();
    }
    let mut own = ChaCha8Rng::seed_from_u64(seed);
    let img = crate::paint::sprite(look, 32, &mut own).map_err(fmt_err(name))?;
    TexmWriter::new(format)
        .write(&img.mip_chain(6))
        .map_err(fmt_err(name))
}

/// Writes the four RsLi archives.
pub(crate) fn write(o: &mut Out, rng: &mut ChaCha8Rng) -> Result<(), DemoError> {
    archive(o, "effects.rlb", effects()?)?;
    let pcm = |rng: &mut ChaCha8Rng, f, ms| -> Result<Vec<u8>, DemoError> {
        Ok(Wave::pcm16(&tone(rng, f, ms), 1, 22_050)
            .map_err(fmt_err("PCM wave"))?
            .to_bytes())
    };
    let adpcm = |rng: &mut ChaCha8Rng, f, ms| -> Result<Vec<u8>, DemoError> {
        Ok(encode_ms_adpcm(&tone(rng, f, ms), 1, 22_050, 256)
            .map_err(fmt_err("ADPCM wave"))?
            .to_bytes())
    };
    let mut sounds = vec![
        ("FIRE.WAV", Method::Lzhuf, pcm(rng, 220.0, 300)?),
        // Generator 15: a rumble instead of the 60 Hz tone; the tone's draws are still
        // taken, so every later generated byte stays as it was.
        ("THUNDER.WAV", Method::TransformLzss, {
            adpcm(rng, 60.0, 600)?;
            crate::sounds::thunder()?
        }),
        ("CLICK.WAV", Method::Raw, pcm(rng, 1000.0, 50)?),
        ("ENGINE.WAV", Method::Deflate, adpcm(rng, 110.0, 400)?),
    ];
    sounds.extend(crate::sounds::effects_and_music()?);
    archive(o, "sounds.lib", sounds)?;
    archive(o, "voices.lib", crate::sounds::voices()?)?;
    archive(
        o,
        "gamefont.rlb",
        vec![
            (
                "FONT.TEX",
                Method::Transform,
                sprite(rng, "FONT.TEX", PixelFormat::Argb4444)?,
            ),
            (
                "FONTB.TEX",
                Method::Lzss,
                sprite(rng, "FONTB.TEX", PixelFormat::La88)?,
            ),
        ],
    )?;
    archive(
        o,
        "sprites.lib",
        vec![
            // Generator 19: painted smoke and fire sprites (the effects draw them,
            // PD-RENDER-EFFECT-TEXTURES) instead of random texels; the random texels'
            // draws are still taken, so every later generated byte stays as it was.
            (
                "SMOKE.TEX",
                Method::Deflate,
                effect_sprite(rng, "SMOKE.TEX", Sprite::Smoke, PixelFormat::Argb8888)?,
            ),
            (
                "FIRE.TEX",
                Method::Lzhuf,
                effect_sprite(rng, "FIRE.TEX", Sprite::Fire, PixelFormat::Rgb565)?,
            ),
        ],
    )?;
    Ok(())
}
