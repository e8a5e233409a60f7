//! RsLi archives: `effects.rlb` (FXID smoke, fire, lightning), `sounds.lib` (SWAV PCM
//! and MS-ADPCM tones, effects and music of [`crate::sounds`]), `voices.lib` (mission
//! voice lines), `gamefont.rlb` and `sprites.lib` (Texm), across several storage
//! methods.

use crate::{DemoError, Out, fmt_err};
use iron3d_aux::{Wave, encode_ms_adpcm};
use iron3d_fxid::{Command, Fxid, Opcode};
use iron3d_rsli::{Method, RsliBuilder};
use iron3d_texm::{PixelFormat, RgbaImage, TexmWriter};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

fn archive(o: &mut Out, rel: &str, entries: Vec<(&str, Method, Vec<u8>)>) -> Result<(), DemoError> {
    let mut b = RsliBuilder::new();
    for (name, method, data) in entries {
        b.add(name, method, data);
    }
    o.put(rel, &b.build().map_err(fmt_err(rel))?)
}

fn effect(
    name: &str,
    seconds: f32,
    refs: &[(Opcode, &str, &str)],
    plain: &[(Opcode, usize, f32)],
) -> Result<Vec<u8>, DemoError> {
    let mut b = Fxid::builder().duration_seconds(seconds);
    for &(op, a, n) in refs {
        b = b
            .resource_command(op, a.as_bytes(), n.as_bytes())
            .map_err(fmt_err(name))?;
    }
    for &(op, offset, value) in plain {
        let mut c = Command::new(op);
        if op != Opcode::Op6 {
            c.set_f32_at(offset, value).map_err(fmt_err(name))?;
        }
        b = b.command(c);
    }
    b.build().to_bytes().map_err(fmt_err(name))
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

/// Writes the four RsLi archives.
pub(crate) fn write(o: &mut Out, rng: &mut ChaCha8Rng) -> Result<(), DemoError> {
    archive(
        o,
        "effects.rlb",
        vec![
            (
                "SMOKE",
                Method::Lzss,
                effect(
                    "SMOKE",
                    3.0,
                    &[(Opcode::Op3, "sprites.lib", "SMOKE.TEX")],
                    &[(Opcode::Op1, 8, 0.5)],
                )?,
            ),
            (
                "FIRE",
                Method::Deflate,
                effect(
                    "FIRE",
                    1.5,
                    &[
                        (Opcode::Op3, "sprites.lib", "FIRE.TEX"),
                        (Opcode::Op2, "sounds.lib", "FIRE.WAV"),
                    ],
                    &[(Opcode::Op1, 8, 2.0)],
                )?,
            ),
            (
                "LIGHTNING",
                Method::Raw,
                effect(
                    "LIGHTNING",
                    0.8,
                    &[
                        (Opcode::Op2, "sounds.lib", "THUNDER.WAV"),
                        (Opcode::Op3, "effects.rlb", "BOLT"),
                    ],
                    &[
                        (Opcode::Op1, 8, 40.0),
                        (Opcode::Op1, 12, 600.0),
                        (Opcode::Op6, 0, 0.0),
                    ],
                )?,
            ),
        ],
    )?;
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
        ("THUNDER.WAV", Method::TransformLzss, adpcm(rng, 60.0, 600)?),
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
            (
                "SMOKE.TEX",
                Method::Deflate,
                sprite(rng, "SMOKE.TEX", PixelFormat::Argb8888)?,
            ),
            (
                "FIRE.TEX",
                Method::Lzhuf,
                sprite(rng, "FIRE.TEX", PixelFormat::Rgb565)?,
            ),
        ],
    )?;
    Ok(())
}
