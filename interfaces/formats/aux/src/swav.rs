//! SWAV (spec §11.9): RIFF/WAVE sound entries, PCM and MS-ADPCM decoding, and the four
//! loader outcomes (`entry_missing`, `entry_empty`, `wave_invalid`, `decoded_sample`).
//!
//! ```text
//! "RIFF" u32 riff_size "WAVE"        riff_size == file length - 8 (exact end)
//! chunk*: [u8;4] id, u32 size, u8 data[size], u8 pad if size is odd
//!         (the pad byte is kept as read; only the final chunk may omit it)
//! exactly one "fmt " chunk, before exactly one "data" chunk; other chunks kept in order
//! ```

use crate::adpcm;
use crate::cursor::Cursor;
use crate::error::{AuxError, Format, Record};

/// WAVE format tag of integer PCM.
pub const WAVE_FORMAT_PCM: u16 = 1;
/// WAVE format tag of Microsoft ADPCM.
pub const WAVE_FORMAT_MS_ADPCM: u16 = 2;

/// One RIFF sub-chunk, kept raw (layout-confirmed framing; payload opaque unless typed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Four-character chunk id (layout-confirmed).
    pub id: [u8; 4],
    /// Chunk payload, `size` bytes (layout-confirmed).
    pub data: Vec<u8>,
    /// Pad byte after an odd-sized payload as read (opaque; `None` for even sizes or a
    /// final odd chunk without pad).
    pub pad: Option<u8>,
}

impl Chunk {
    /// Authors a chunk; an odd payload gets a zero pad byte.
    pub fn new(id: [u8; 4], data: Vec<u8>) -> Self {
        let pad = (data.len() % 2 == 1).then_some(0);
        Chunk { id, data, pad }
    }
}

/// Typed view of the `fmt ` chunk (layout-confirmed: standard WAVEFORMATEX).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveFormat {
    /// `wFormatTag`: 1 = PCM, 2 = MS-ADPCM (layout-confirmed).
    pub format_tag: u16,
    /// Channel count (layout-confirmed).
    pub channels: u16,
    /// Sample rate in Hz; 22 050 in the corpus (layout-confirmed).
    pub sample_rate: u32,
    /// Average bytes per second (layout-confirmed, not used for decoding).
    pub byte_rate: u32,
    /// Block alignment in bytes (layout-confirmed).
    pub block_align: u16,
    /// Bits per sample (layout-confirmed).
    pub bits_per_sample: u16,
    /// MS-ADPCM extension (present for format tag 2).
    pub adpcm: Option<AdpcmFormat>,
}

/// MS-ADPCM `fmt ` extension (layout-confirmed: ADPCMWAVEFORMAT).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdpcmFormat {
    /// Samples per channel in one full block.
    pub samples_per_block: u16,
    /// Predictor coefficient pairs `(coef1, coef2)`, 8.8 fixed point.
    pub coefficients: Vec<(i16, i16)>,
}

/// Decoded audio: interleaved signed 16-bit samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSample {
    /// Sample rate in Hz.
    pub sample_rate: u32,
    /// Channel count.
    pub channels: u16,
    /// Interleaved samples (`frames * channels`).
    pub samples: Vec<i16>,
}

/// A parsed RIFF/WAVE file: every chunk in file order, byte-exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wave {
    chunks: Vec<Chunk>,
    format: WaveFormat,
}

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

fn parse_fmt(data: &[u8], base: usize) -> Result<WaveFormat, AuxError> {
    let mut c = Cursor::new(data, Format::Swav);
    let format_tag = c.u16("fmt.format_tag")?;
    let channels = c.u16("fmt.channels")?;
    let sample_rate = c.u32("fmt.sample_rate")?;
    let byte_rate = c.u32("fmt.byte_rate")?;
    let block_align = c.u16("fmt.block_align")?;
    let bits_per_sample = c.u16("fmt.bits_per_sample")?;
    let mut adpcm = None;
    if format_tag == WAVE_FORMAT_MS_ADPCM {
        let cb_size = c.u16("fmt.cb_size")?;
        let ext_at = base + c.pos();
        let ext = c.take(cb_size as usize, "fmt.extension")?;
        let mut e = Cursor::new(ext, Format::Swav);
        let samples_per_block = e.u16("fmt.samples_per_block")?;
        let num_coef = e.u16("fmt.num_coef")?;
        e.check_array(u64::from(num_coef), 4, "fmt.coefficients")?;
        let mut coefficients = Vec::with_capacity(num_coef as usize);
        for _ in 0..num_coef {
            coefficients.push((e.i16("fmt.coef1")?, e.i16("fmt.coef2")?));
        }
        if num_coef == 0 {
            return Err(invalid(
                "fmt.num_coef",
                ext_at + 2,
                "at least one coefficient pair",
                "0".into(),
            ));
        }
        // Bytes after the coefficient table inside cbSize stay in the raw chunk.
        adpcm = Some(AdpcmFormat {
            samples_per_block,
            coefficients,
        });
    }
    // Any remaining bytes (cbSize of PCM, etc.) stay in the raw chunk data.
    Ok(WaveFormat {
        format_tag,
        channels,
        sample_rate,
        byte_rate,
        block_align,
        bits_per_sample,
        adpcm,
    })
}

impl Wave {
    /// Strictly parses a RIFF/WAVE file: exact RIFF size, chunk framing, one `fmt `
    /// (readable WAVEFORMATEX) before one `data`.
    pub fn parse(bytes: &[u8]) -> Result<Wave, AuxError> {
        let mut c = Cursor::new(bytes, Format::Swav);
        let riff: [u8; 4] = c.array("riff.id")?;
        if &riff != b"RIFF" {
            return Err(invalid("riff.id", 0, "\"RIFF\"", format!("{riff:02X?}")));
        }
        let size = c.u32("riff.size")?;
        if u64::from(size) + 8 != bytes.len() as u64 {
            return Err(invalid("riff.size", 4, "file length - 8", size.to_string()));
        }
        let wave: [u8; 4] = c.array("riff.form")?;
        if &wave != b"WAVE" {
            return Err(invalid("riff.form", 8, "\"WAVE\"", format!("{wave:02X?}")));
        }
        let mut chunks = Vec::new();
        let mut format = None;
        let mut have_data = false;
        while c.remaining() > 0 {
            let at = c.pos();
            c.set_record(Some(chunks.len()));
            let id: [u8; 4] = c.array("chunk.id")?;
            let len = c.u32("chunk.size")?;
            let data = c.take(len as usize, "chunk.data")?;
            let pad = if len % 2 == 1 {
                if c.remaining() == 0 {
                    None
                } else {
                    Some(c.u8("chunk.pad")?)
                }
            } else {
                None
            };
            match &id {
                b"fmt " => {
                    if format.is_some() {
                        return Err(invalid(
                            "fmt",
                            at,
                            "exactly one fmt chunk",
                            "a second one".into(),
                        ));
                    }
                    format = Some(parse_fmt(data, at + 8)?);
                }
                b"data" => {
                    if format.is_none() {
                        return Err(invalid(
                            "data",
                            at,
                            "fmt chunk before data",
                            "data first".into(),
                        ));
                    }
                    if have_data {
                        return Err(invalid(
                            "data",
                            at,
                            "exactly one data chunk",
                            "a second one".into(),
                        ));
                    }
                    have_data = true;
                }
                _ => {}
            }
            chunks.push(Chunk {
                id,
                data: data.to_vec(),
                pad,
            });
        }
        let Some(format) = format else {
            return Err(invalid("fmt", bytes.len(), "a fmt chunk", "none".into()));
        };
        if !have_data {
            return Err(invalid("data", bytes.len(), "a data chunk", "none".into()));
        }
        Ok(Wave { chunks, format })
    }

    /// Builds a wave from chunks (authoring); validated by a write/parse round.
    pub fn from_chunks(chunks: Vec<Chunk>) -> Result<Wave, AuxError> {
        let bytes = write_chunks(&chunks)?;
        Wave::parse(&bytes)
    }

    /// Authors a 16-bit PCM wave (interleaved samples).
    pub fn pcm16(samples: &[i16], channels: u16, sample_rate: u32) -> Result<Wave, AuxError> {
        let data: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
        Self::pcm(data, 16, channels, sample_rate)
    }

    /// Authors an 8-bit (unsigned) PCM wave.
    pub fn pcm8(samples: &[u8], channels: u16, sample_rate: u32) -> Result<Wave, AuxError> {
        Self::pcm(samples.to_vec(), 8, channels, sample_rate)
    }

    fn pcm(data: Vec<u8>, bits: u16, channels: u16, sample_rate: u32) -> Result<Wave, AuxError> {
        if channels == 0 {
            return Err(AuxError::Authoring {
                format: Format::Swav,
                field: "channels",
                reason: "must be non-zero",
            });
        }
        let align = channels.checked_mul(bits / 8).ok_or(AuxError::Authoring {
            format: Format::Swav,
            field: "channels",
            reason: "block align overflows u16",
        })?;
        let fmt = fmt_bytes(
            WAVE_FORMAT_PCM,
            channels,
            sample_rate,
            u32::from(align).saturating_mul(sample_rate),
            align,
            bits,
            None,
        );
        Wave::from_chunks(vec![Chunk::new(*b"fmt ", fmt), Chunk::new(*b"data", data)])
    }

    /// All chunks in file order.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The typed `fmt ` view.
    pub fn format(&self) -> &WaveFormat {
        &self.format
    }

    /// Payload of the `data` chunk.
    pub fn data(&self) -> &[u8] {
        self.chunks
            .iter()
            .find(|c| &c.id == b"data")
            .map_or(&[], |c| &c.data)
    }

    /// Sample frame count from a `fact` chunk, if present (layout-confirmed, standard).
    pub fn fact_frames(&self) -> Option<u32> {
        let c = self.chunks.iter().find(|c| &c.id == b"fact")?;
        let b: [u8; 4] = c.data.get(..4)?.try_into().ok()?;
        Some(u32::from_le_bytes(b))
    }

    /// Serialises byte-identically to the parsed input.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Chunks of a parsed wave always fit: sizes came from u32 fields.
        write_chunks(&self.chunks).unwrap_or_default()
    }

    /// Decodes PCM (8/16-bit) or MS-ADPCM into interleaved i16 samples.
    pub fn decode(&self) -> Result<DecodedSample, AuxError> {
        let f = &self.format;
        if f.channels == 0 {
            return Err(invalid(
                "fmt.channels",
                22,
                "non-zero channel count",
                "0".into(),
            ));
        }
        let data = self.data();
        let samples = match f.format_tag {
            WAVE_FORMAT_PCM => decode_pcm(f, data)?,
            WAVE_FORMAT_MS_ADPCM => {
                let mut s = adpcm::decode(f, data)?;
                if let Some(frames) = self.fact_frames() {
                    let n = (frames as usize).saturating_mul(f.channels as usize);
                    s.truncate(n);
                }
                s
            }
            other => {
                return Err(invalid(
                    "fmt.format_tag",
                    20,
                    "1 (PCM) or 2 (MS-ADPCM)",
                    other.to_string(),
                ));
            }
        };
        Ok(DecodedSample {
            sample_rate: f.sample_rate,
            channels: f.channels,
            samples,
        })
    }
}

fn decode_pcm(f: &WaveFormat, data: &[u8]) -> Result<Vec<i16>, AuxError> {
    let width = match f.bits_per_sample {
        8 => 1usize,
        16 => 2,
        b => {
            return Err(invalid(
                "fmt.bits_per_sample",
                34,
                "8 or 16 for PCM",
                b.to_string(),
            ));
        }
    };
    let expect = width * f.channels as usize;
    if f.block_align as usize != expect {
        return Err(invalid(
            "fmt.block_align",
            32,
            "channels * bits / 8",
            f.block_align.to_string(),
        ));
    }
    if data.len() % expect != 0 {
        return Err(invalid(
            "data",
            0,
            "whole sample frames",
            format!("{} bytes", data.len()),
        ));
    }
    Ok(if width == 1 {
        data.iter().map(|&b| (i16::from(b) - 128) << 8).collect()
    } else {
        data.chunks_exact(2)
            .map(|p| i16::from_le_bytes([p[0], p[1]]))
            .collect()
    })
}

/// Builds `fmt ` chunk bytes (WAVEFORMATEX, plus the ADPCM extension when given).
pub(crate) fn fmt_bytes(
    tag: u16,
    channels: u16,
    rate: u32,
    byte_rate: u32,
    align: u16,
    bits: u16,
    adpcm: Option<&AdpcmFormat>,
) -> Vec<u8> {
    let mut v = Vec::with_capacity(50);
    v.extend_from_slice(&tag.to_le_bytes());
    v.extend_from_slice(&channels.to_le_bytes());
    v.extend_from_slice(&rate.to_le_bytes());
    v.extend_from_slice(&byte_rate.to_le_bytes());
    v.extend_from_slice(&align.to_le_bytes());
    v.extend_from_slice(&bits.to_le_bytes());
    if let Some(a) = adpcm {
        let cb = 4 + 4 * a.coefficients.len();
        v.extend_from_slice(&(cb as u16).to_le_bytes());
        v.extend_from_slice(&a.samples_per_block.to_le_bytes());
        v.extend_from_slice(&(a.coefficients.len() as u16).to_le_bytes());
        for (c1, c2) in &a.coefficients {
            v.extend_from_slice(&c1.to_le_bytes());
            v.extend_from_slice(&c2.to_le_bytes());
        }
    }
    v
}

fn write_chunks(chunks: &[Chunk]) -> Result<Vec<u8>, AuxError> {
    let too_big = AuxError::Authoring {
        format: Format::Swav,
        field: "chunks",
        reason: "size exceeds u32",
    };
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(b"WAVE");
    for c in chunks {
        let len = u32::try_from(c.data.len()).map_err(|_| too_big.clone())?;
        out.extend_from_slice(&c.id);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&c.data);
        if let Some(p) = c.pad {
            out.push(p);
        }
    }
    let riff = u32::try_from(out.len() - 8).map_err(|_| too_big)?;
    out[4..8].copy_from_slice(&riff.to_le_bytes());
    Ok(out)
}

/// Outcome of loading one sound resource (spec §11.9): the caller hands in the archive
/// lookup result; a zero-size payload never reaches the RIFF parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SoundLoad {
    /// `entry_missing`: no such entry in the library.
    EntryMissing,
    /// `entry_empty`: the entry exists with size 0 (e.g. Part 2 `ALIEN_ME.WAV`).
    EntryEmpty,
    /// `wave_invalid`: RIFF/WAVE framing or decoding failed.
    WaveInvalid(AuxError),
    /// `decoded_sample`: a playable sample.
    DecodedSample(DecodedSample),
}

impl SoundLoad {
    /// Classifies an archive lookup result and decodes the bytes when present.
    pub fn from_entry(entry: Option<&[u8]>) -> SoundLoad {
        match entry {
            None => SoundLoad::EntryMissing,
            Some([]) => SoundLoad::EntryEmpty,
            Some(bytes) => match Wave::parse(bytes).and_then(|w| w.decode()) {
                Ok(d) => SoundLoad::DecodedSample(d),
                Err(e) => SoundLoad::WaveInvalid(e),
            },
        }
    }

    /// The spec's name of this outcome.
    pub fn kind(&self) -> &'static str {
        match self {
            SoundLoad::EntryMissing => "entry_missing",
            SoundLoad::EntryEmpty => "entry_empty",
            SoundLoad::WaveInvalid(_) => "wave_invalid",
            SoundLoad::DecodedSample(_) => "decoded_sample",
        }
    }
}
