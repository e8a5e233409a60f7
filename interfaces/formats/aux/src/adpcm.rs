//! Microsoft ADPCM (WAVE format tag 2): the standard block decoder and a straightforward
//! encoder (per-block search over the seven standard predictors and a few initial deltas).
//!
//! ```text
//! block (C channels): u8 predictor[C], i16 delta[C], i16 sample1[C], i16 sample2[C],
//!                     then 4-bit codes, high nibble first, channels interleaved
//! output order:       sample2, sample1, then one sample per nibble
//! ```
//!
//! Our choice (not from the sources): the adaptive step is capped at `i32::MAX / 768`
//! so a hostile stream cannot overflow; real streams never come near it.

use crate::error::{AuxError, Format, Record};
use crate::swav::{AdpcmFormat, Chunk, WAVE_FORMAT_MS_ADPCM, Wave, WaveFormat, fmt_bytes};

/// The standard step adaptation table.
pub const ADAPTATION_TABLE: [i32; 16] = [
    230, 230, 230, 230, 307, 409, 512, 614, 768, 614, 512, 409, 307, 230, 230, 230,
];

/// The seven standard predictor coefficient pairs (8.8 fixed point).
pub const STANDARD_COEFFICIENTS: [(i16, i16); 7] = [
    (256, 0),
    (512, -256),
    (0, 0),
    (192, 64),
    (240, 0),
    (460, -208),
    (392, -232),
];

const DELTA_MAX: i32 = i32::MAX / 768;

fn invalid(field: &'static str, offset: usize, expected: &'static str, found: String) -> AuxError {
    AuxError::Invalid {
        format: Format::Swav,
        record: Record(None),
        field,
        offset,
        expected,
        found,
    }
}

/// Per-channel decoder state.
#[derive(Debug, Clone, Copy)]
struct State {
    c1: i32,
    c2: i32,
    delta: i32,
    s1: i32,
    s2: i32,
}

impl State {
    fn predict(&self) -> i32 {
        ((i64::from(self.s1) * i64::from(self.c1) + i64::from(self.s2) * i64::from(self.c2)) >> 8)
            as i32
    }

    /// Applies one 4-bit code; returns the reconstructed sample.
    fn step(&mut self, nibble: u8) -> i16 {
        let signed = if nibble & 8 != 0 {
            i64::from(nibble) - 16
        } else {
            i64::from(nibble)
        };
        let v = (i64::from(self.predict()) + signed * i64::from(self.delta)).clamp(-32768, 32767)
            as i32;
        self.s2 = self.s1;
        self.s1 = v;
        let d =
            (i64::from(ADAPTATION_TABLE[usize::from(nibble & 15)]) * i64::from(self.delta)) >> 8;
        self.delta = d.clamp(16, i64::from(DELTA_MAX)) as i32;
        v as i16
    }
}

/// Checks the ADPCM parameters and returns (channels, block_align, samples_per_block).
fn params(f: &WaveFormat) -> Result<(usize, usize, usize, &AdpcmFormat), AuxError> {
    let Some(ad) = f.adpcm.as_ref() else {
        return Err(invalid(
            "fmt.extension",
            36,
            "ADPCM coefficient table",
            "none".into(),
        ));
    };
    let ch = usize::from(f.channels);
    if !(1..=2).contains(&ch) {
        return Err(invalid(
            "fmt.channels",
            22,
            "1 or 2 channels for MS-ADPCM",
            ch.to_string(),
        ));
    }
    let ba = usize::from(f.block_align);
    if ba <= 7 * ch {
        return Err(invalid(
            "fmt.block_align",
            32,
            "more than 7 header bytes per channel",
            ba.to_string(),
        ));
    }
    let max_spb = 2 + (ba - 7 * ch) * 2 / ch;
    let spb = usize::from(ad.samples_per_block);
    if spb < 2 || spb > max_spb {
        return Err(invalid(
            "fmt.samples_per_block",
            38,
            "2..=2+(block_align-7*channels)*2/channels",
            spb.to_string(),
        ));
    }
    Ok((ch, ba, spb, ad))
}

/// Decodes a whole MS-ADPCM `data` payload to interleaved samples. A final short block
/// (at least the header) decodes the samples its bytes hold.
pub(crate) fn decode(f: &WaveFormat, data: &[u8]) -> Result<Vec<i16>, AuxError> {
    let (ch, ba, spb, ad) = params(f)?;
    let mut out = Vec::with_capacity(data.len() / ba * spb * ch + spb * ch);
    for (bi, block) in data.chunks(ba).enumerate() {
        let at = bi * ba;
        if block.len() < 7 * ch {
            return Err(AuxError::Truncated {
                format: Format::Swav,
                record: Record(Some(bi)),
                field: "adpcm.block_header",
                offset: at,
                need: (7 * ch) as u64,
                have: block.len() as u64,
            });
        }
        let frames = spb.min(2 + (block.len() - 7 * ch) * 2 / ch);
        let mut st = [State {
            c1: 0,
            c2: 0,
            delta: 16,
            s1: 0,
            s2: 0,
        }; 2];
        for (c, s) in st.iter_mut().enumerate().take(ch) {
            let p = usize::from(block[c]);
            let Some(&(c1, c2)) = ad.coefficients.get(p) else {
                return Err(AuxError::Invalid {
                    format: Format::Swav,
                    record: Record(Some(bi)),
                    field: "adpcm.predictor",
                    offset: at + c,
                    expected: "index into the coefficient table",
                    found: p.to_string(),
                });
            };
            let rd = |o: usize| i32::from(i16::from_le_bytes([block[o], block[o + 1]]));
            s.c1 = i32::from(c1);
            s.c2 = i32::from(c2);
            s.delta = rd(ch + 2 * c);
            s.s1 = rd(3 * ch + 2 * c);
            s.s2 = rd(5 * ch + 2 * c);
        }
        for s in st.iter().take(ch) {
            out.push(s.s2 as i16);
        }
        for s in st.iter().take(ch) {
            out.push(s.s1 as i16);
        }
        let nibbles = (frames - 2) * ch;
        for k in 0..nibbles {
            let byte = block[7 * ch + k / 2];
            let nib = if k % 2 == 0 { byte >> 4 } else { byte & 15 };
            out.push(st[k % ch].step(nib));
        }
    }
    Ok(out)
}

/// Encodes one channel of one block; returns (nibbles, squared error).
fn encode_channel(x: &[i32], coef: (i16, i16), delta0: i32) -> (Vec<u8>, u64) {
    let mut st = State {
        c1: i32::from(coef.0),
        c2: i32::from(coef.1),
        delta: delta0,
        s1: x[1],
        s2: x[0],
    };
    let mut nibs = Vec::with_capacity(x.len().saturating_sub(2));
    let mut err = 0u64;
    for &v in &x[2..] {
        let pred = st.predict();
        let e = i64::from(v) - i64::from(pred);
        let d = i64::from(st.delta);
        let q = if e >= 0 {
            (e + d / 2) / d
        } else {
            (e - d / 2) / d
        }
        .clamp(-8, 7);
        let nib = (q & 15) as u8;
        let got = st.step(nib);
        let diff = i64::from(got) - i64::from(v);
        err = err.saturating_add((diff * diff) as u64);
        nibs.push(nib);
    }
    (nibs, err)
}

/// Encodes interleaved samples as an MS-ADPCM RIFF/WAVE (standard coefficient table,
/// a `fact` chunk with the frame count). `block_align` must exceed `7 * channels`.
pub fn encode_ms_adpcm(
    samples: &[i16],
    channels: u16,
    sample_rate: u32,
    block_align: u16,
) -> Result<Wave, AuxError> {
    let auth = |field, reason| AuxError::Authoring {
        format: Format::Swav,
        field,
        reason,
    };
    let ch = usize::from(channels);
    if !(1..=2).contains(&ch) {
        return Err(auth("channels", "MS-ADPCM supports 1 or 2 channels"));
    }
    let ba = usize::from(block_align);
    if ba <= 7 * ch {
        return Err(auth("block_align", "must exceed 7 bytes per channel"));
    }
    if samples.len() % ch != 0 {
        return Err(auth(
            "samples",
            "length must be a multiple of the channel count",
        ));
    }
    let frames = samples.len() / ch;
    let frames_u32 =
        u32::try_from(frames).map_err(|_| auth("samples", "more than u32::MAX frames"))?;
    let spb = 2 + (ba - 7 * ch) * 2 / ch;
    let spb_u16 =
        u16::try_from(spb).map_err(|_| auth("block_align", "samples per block exceeds u16"))?;
    let mut data = Vec::new();
    let mut start = 0;
    while start < frames {
        let n = spb.min(frames - start);
        let mut header = vec![0u8; 7 * ch];
        let mut chan_nibs = Vec::with_capacity(ch);
        for c in 0..ch {
            let mut x: Vec<i32> = (start..start + n)
                .map(|f| i32::from(samples[f * ch + c]))
                .collect();
            while x.len() < 2 {
                let last = x.last().copied().unwrap_or(0);
                x.push(last);
            }
            let mut best: Option<(u64, usize, i32, Vec<u8>)> = None;
            for (p, &coef) in STANDARD_COEFFICIENTS.iter().enumerate() {
                for delta0 in [16, 64, 256, 1024, 4096, 16384] {
                    let (nibs, err) = encode_channel(&x, coef, delta0);
                    if best.as_ref().is_none_or(|b| err < b.0) {
                        best = Some((err, p, delta0, nibs));
                    }
                }
            }
            let Some((_, p, delta0, nibs)) = best else {
                return Err(auth("samples", "no predictor"));
            };
            header[c] = p as u8;
            header[ch + 2 * c..ch + 2 * c + 2].copy_from_slice(&(delta0 as i16).to_le_bytes());
            header[3 * ch + 2 * c..3 * ch + 2 * c + 2]
                .copy_from_slice(&(x[1] as i16).to_le_bytes());
            header[5 * ch + 2 * c..5 * ch + 2 * c + 2]
                .copy_from_slice(&(x[0] as i16).to_le_bytes());
            chan_nibs.push(nibs);
        }
        data.extend_from_slice(&header);
        let per = chan_nibs[0].len();
        let mut all = Vec::with_capacity(per * ch + 1);
        for k in 0..per {
            for nibs in &chan_nibs {
                all.push(nibs[k]);
            }
        }
        if all.len() % 2 == 1 {
            all.push(0);
        }
        data.extend(all.chunks_exact(2).map(|p| (p[0] << 4) | p[1]));
        start += n;
    }
    let ad = AdpcmFormat {
        samples_per_block: spb_u16,
        coefficients: STANDARD_COEFFICIENTS.to_vec(),
    };
    let byte_rate = (u64::from(sample_rate) * ba as u64 / spb as u64) as u32;
    let fmt = fmt_bytes(
        WAVE_FORMAT_MS_ADPCM,
        channels,
        sample_rate,
        byte_rate,
        block_align,
        4,
        Some(&ad),
    );
    Wave::from_chunks(vec![
        Chunk::new(*b"fmt ", fmt),
        Chunk::new(*b"fact", frames_u32.to_le_bytes().to_vec()),
        Chunk::new(*b"data", data),
    ])
}
