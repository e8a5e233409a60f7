//! MAT0 material payloads (FORMATS §8.2, tome V "MAT0"): strict versioned reader,
//! lossless writer and authoring constructors.
//!
//! ```text
//! MAT0 payload (version = NRes attr2; all integers little-endian, packed) :=
//!   u16 phase_count                          +0x00
//!   u16 animation_block_count                +0x02   (< 20)
//!   [version >= 2] u8  metadata_a            +0x04   default 255
//!   [version >= 2] u8  metadata_b            +0x05   default 255
//!   [version >= 3] u32 metadata_c_raw        +0x06   default 0x3F800000 (1.0f)
//!   [version >= 4] u32 metadata_d_raw        +0x0A   default 0
//!   Phase34  phases[phase_count]             at 4 + prefix_len(version)
//!   AnimBlock blocks[animation_block_count]  densely packed, no alignment
//!   <end of payload>                         (exactly)
//!
//! prefix_len = 0 (v < 2), 2 (v = 2), 6 (v = 3), 10 (v >= 4)
//! Phase34   := u8 parameters[18] (layout, raw), char texture_name[16] (confirmed)
//! AnimBlock := u32 header_raw (bits 0..2 mode, bits 3..31 interpolation mask),
//!              u16 key_count, { u16 k0, u16 k1, u16 k2 }[key_count]
//! ```
//!
//! Strict checks, in reading order: the 4-byte header fits; `animation_block_count < 20`;
//! each prefix field of the version fits; the phase section (`phase_count * 34`) fits;
//! every block header and its keys fit; the payload ends exactly after the last block.
//! Fields of newer versions are never read: a v2 payload's bytes after `metadata_b` are
//! phases. Versions above 6 use the v4+ prefix (the grammar's `version >= 4`).

use crate::error::MaterialError;
use crate::text::decode_cp1251;

/// The NRes `type_id` of MAT0 entries (`"MAT0"` little-endian, confirmed).
pub const MAT0_TYPE: u32 = 0x3054_414D;
/// Bytes per `Phase34` record.
pub const PHASE_SIZE: usize = 34;
/// Bytes of a phase's raw parameter block.
pub const PHASE_PARAMETERS: usize = 18;
/// Bytes of a phase's texture-name field.
pub const TEXTURE_NAME_SIZE: usize = 16;
/// Bytes per animation key (`k0, k1, k2`).
pub const KEY_SIZE: usize = 6;
/// The largest accepted `animation_block_count` (the rule is `< 20`).
pub const MAX_ANIMATION_BLOCKS: usize = 19;

/// Length of the versioned prefix between the 4-byte header and the phases.
pub const fn prefix_len(version: u32) -> usize {
    match version {
        0 | 1 => 0,
        2 => 2,
        3 => 6,
        _ => 10,
    }
}

/// The versioned metadata words (meaning not proven: layout, kept raw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mat0Metadata {
    /// `metadata_a` (v >= 2; default 255).
    pub a: u8,
    /// `metadata_b` (v >= 2; default 255).
    pub b: u8,
    /// `metadata_c_raw` (v >= 3; default `0x3F800000`, the bits of 1.0f).
    pub c_raw: u32,
    /// `metadata_d_raw` (v >= 4; default 0).
    pub d_raw: u32,
}

impl Mat0Metadata {
    /// What a reader assumes for every field absent from the payload's version.
    pub const DEFAULT: Mat0Metadata = Mat0Metadata {
        a: 255,
        b: 255,
        c_raw: 0x3F80_0000,
        d_raw: 0,
    };

    /// `metadata_c_raw` as `f32` bits (a view only; the raw word is what is kept).
    pub fn c_f32(&self) -> f32 {
        f32::from_bits(self.c_raw)
    }
}

impl Default for Mat0Metadata {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// One `Phase34` record: 18 raw parameter bytes and a 16-byte texture-name field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Phase {
    parameters: [u8; PHASE_PARAMETERS],
    texture_field: [u8; TEXTURE_NAME_SIZE],
}

impl Phase {
    /// A phase from its 34 bytes as stored (every byte kept, tail included).
    pub fn from_raw(raw: [u8; PHASE_SIZE]) -> Self {
        let mut parameters = [0; PHASE_PARAMETERS];
        let mut texture_field = [0; TEXTURE_NAME_SIZE];
        let (p, t) = raw.split_at(PHASE_PARAMETERS);
        parameters.copy_from_slice(p);
        texture_field.copy_from_slice(t);
        Self {
            parameters,
            texture_field,
        }
    }

    /// A new phase: `name + NUL + zero fill` (a 16-byte name is stored without NUL, which
    /// readers accept). An empty name authors an untextured phase.
    pub fn new(
        parameters: [u8; PHASE_PARAMETERS],
        texture_name: &[u8],
    ) -> Result<Self, MaterialError> {
        if texture_name.len() > TEXTURE_NAME_SIZE || texture_name.contains(&0) {
            return Err(MaterialError::Mat0TextureName {
                found: decode_cp1251(texture_name),
            });
        }
        let mut texture_field = [0; TEXTURE_NAME_SIZE];
        texture_field
            .get_mut(..texture_name.len())
            .unwrap_or_default()
            .copy_from_slice(texture_name);
        Ok(Self {
            parameters,
            texture_field,
        })
    }

    /// The 34 bytes as stored.
    pub fn to_raw(&self) -> [u8; PHASE_SIZE] {
        let mut raw = [0; PHASE_SIZE];
        let (p, t) = raw.split_at_mut(PHASE_PARAMETERS);
        p.copy_from_slice(&self.parameters);
        t.copy_from_slice(&self.texture_field);
        raw
    }

    /// The 18 parameter bytes (colour/lighting/transparency coefficients; raw, layout).
    pub fn parameters(&self) -> &[u8; PHASE_PARAMETERS] {
        &self.parameters
    }

    /// The whole 16-byte texture-name field, tail included.
    pub fn texture_field(&self) -> &[u8; TEXTURE_NAME_SIZE] {
        &self.texture_field
    }

    /// The texture name: the field up to its first NUL, or all 16 bytes without one.
    /// Empty means the surface is intentionally untextured.
    pub fn texture_name(&self) -> &[u8] {
        let end = self
            .texture_field
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(TEXTURE_NAME_SIZE);
        self.texture_field.get(..end).unwrap_or_default()
    }

    /// The texture name with ASCII white space trimmed: FParkan's lookup key (from fparkan
    /// source; not a format rule — the raw field is what is stored).
    pub fn texture_lookup_key(&self) -> &[u8] {
        self.texture_name().trim_ascii()
    }

    /// Bytes after the terminating NUL (data, kept; empty without a NUL).
    pub fn texture_tail(&self) -> &[u8] {
        let name = self.texture_name().len();
        self.texture_field.get(name + 1..).unwrap_or_default()
    }

    /// Whether the phase names no texture (empty name).
    pub fn is_untextured(&self) -> bool {
        self.texture_name().is_empty()
    }
}

/// One animation key; the three words are kept raw (meaning: see [`crate::phase`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AnimKey {
    /// First word (phase index by project decision).
    pub k0: u16,
    /// Second word (duration in ms by project decision).
    pub k1: u16,
    /// Third word (not interpreted; always preserved).
    pub k2: u16,
}

impl AnimKey {
    /// A key from its three words.
    pub const fn new(k0: u16, k1: u16, k2: u16) -> Self {
        Self { k0, k1, k2 }
    }
}

/// One animation block: the raw header word and its keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnimBlock {
    header_raw: u32,
    keys: Vec<AnimKey>,
}

impl AnimBlock {
    /// A block from its raw header and keys (at most 65 535 keys).
    pub fn new(header_raw: u32, keys: Vec<AnimKey>) -> Result<Self, MaterialError> {
        if keys.len() > usize::from(u16::MAX) {
            return Err(MaterialError::Mat0TooMany {
                what: "keys",
                count: keys.len(),
                max: usize::from(u16::MAX),
            });
        }
        Ok(Self { header_raw, keys })
    }

    /// The header word from a mode (`0..=7`, low 3 bits) and an interpolation mask (29 bits).
    pub const fn header_from(mode: u8, interpolation_mask: u32) -> u32 {
        ((interpolation_mask & 0x1FFF_FFFF) << 3) | (mode as u32 & 7)
    }

    /// The header word as stored.
    pub fn header_raw(&self) -> u32 {
        self.header_raw
    }

    /// The mode number: bits 0..2 of the header (family mapping: [`crate::ModeMapping`]).
    pub fn mode(&self) -> u8 {
        (self.header_raw & 7) as u8
    }

    /// The interpolation mask: bits 3..31 of the header, shifted down.
    pub fn interpolation_mask(&self) -> u32 {
        self.header_raw >> 3
    }

    /// The keys in file order.
    pub fn keys(&self) -> &[AnimKey] {
        &self.keys
    }

    /// Bytes this block takes in a payload.
    pub fn encoded_len(&self) -> usize {
        6 + self.keys.len() * KEY_SIZE
    }
}

/// A parsed (or authored) MAT0 payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mat0 {
    version: u32,
    metadata: Mat0Metadata,
    phases: Vec<Phase>,
    blocks: Vec<AnimBlock>,
}

/// A bounded little-endian cursor over one payload.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.data.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(out)
    }

    fn field<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], MaterialError> {
        let (offset, have) = (self.pos, self.remaining());
        self.take(N)
            .and_then(|b| b.try_into().ok())
            .ok_or(MaterialError::Mat0Truncated {
                offset,
                field,
                need: N,
                have,
            })
    }
}

impl Mat0 {
    /// Strictly parses a MAT0 payload of the given version (NRes `attr2`).
    pub fn parse(payload: &[u8], version: u32) -> Result<Mat0, MaterialError> {
        let mut c = Cursor {
            data: payload,
            pos: 0,
        };
        let phase_count = u16::from_le_bytes(c.field("phase_count")?);
        let block_count = u16::from_le_bytes(c.field("animation_block_count")?);
        if usize::from(block_count) > MAX_ANIMATION_BLOCKS {
            return Err(MaterialError::Mat0BlockCount { found: block_count });
        }
        let mut metadata = Mat0Metadata::DEFAULT;
        if version >= 2 {
            metadata.a = u8::from_le_bytes(c.field("metadata_a")?);
            metadata.b = u8::from_le_bytes(c.field("metadata_b")?);
        }
        if version >= 3 {
            metadata.c_raw = u32::from_le_bytes(c.field("metadata_c_raw")?);
        }
        if version >= 4 {
            metadata.d_raw = u32::from_le_bytes(c.field("metadata_d_raw")?);
        }

        let count = usize::from(phase_count);
        let need = count * PHASE_SIZE; // at most 65 535 * 34: no overflow
        let (offset, have) = (c.pos, c.remaining());
        let section = c.take(need).ok_or(MaterialError::Mat0PhaseSection {
            offset,
            phase_count,
            phase: have / PHASE_SIZE,
            need,
            have,
        })?;
        let phases = section
            .chunks_exact(PHASE_SIZE)
            .map(|chunk| {
                let mut raw = [0; PHASE_SIZE];
                raw.copy_from_slice(chunk);
                Phase::from_raw(raw)
            })
            .collect();

        let mut blocks = Vec::with_capacity(usize::from(block_count));
        for block in 0..usize::from(block_count) {
            let (offset, have) = (c.pos, c.remaining());
            let header = c.take(6).ok_or(MaterialError::Mat0BlockHeader {
                offset,
                block,
                have,
            })?;
            let (h, k) = header.split_at(4);
            let header_raw = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
            let key_count = u16::from_le_bytes([k[0], k[1]]);
            let need = usize::from(key_count) * KEY_SIZE;
            let (offset, have) = (c.pos, c.remaining());
            let bytes = c.take(need).ok_or(MaterialError::Mat0Keys {
                offset,
                block,
                key_count,
                key: have / KEY_SIZE,
                need,
                have,
            })?;
            let keys = bytes
                .chunks_exact(KEY_SIZE)
                .map(|w| {
                    AnimKey::new(
                        u16::from_le_bytes([w[0], w[1]]),
                        u16::from_le_bytes([w[2], w[3]]),
                        u16::from_le_bytes([w[4], w[5]]),
                    )
                })
                .collect();
            blocks.push(AnimBlock { header_raw, keys });
        }
        if c.remaining() != 0 {
            return Err(MaterialError::Mat0TrailingBytes {
                offset: c.pos,
                extra: c.remaining(),
            });
        }
        Ok(Mat0 {
            version,
            metadata,
            phases,
            blocks,
        })
    }

    /// A new material (authoring): at most 65 535 phases and 19 blocks. `version` is the
    /// one [`Mat0::version`] reports; [`Mat0::to_bytes`] may write any version whose
    /// prefix can hold `metadata`.
    pub fn new(
        version: u32,
        metadata: Mat0Metadata,
        phases: Vec<Phase>,
        blocks: Vec<AnimBlock>,
    ) -> Result<Mat0, MaterialError> {
        if phases.len() > usize::from(u16::MAX) {
            return Err(MaterialError::Mat0TooMany {
                what: "phases",
                count: phases.len(),
                max: usize::from(u16::MAX),
            });
        }
        if blocks.len() > MAX_ANIMATION_BLOCKS {
            return Err(MaterialError::Mat0TooMany {
                what: "animation blocks",
                count: blocks.len(),
                max: MAX_ANIMATION_BLOCKS,
            });
        }
        Ok(Mat0 {
            version,
            metadata,
            phases,
            blocks,
        })
    }

    /// The version it was parsed (or authored) with.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The metadata words, defaults filled in for fields absent from the version.
    pub fn metadata(&self) -> &Mat0Metadata {
        &self.metadata
    }

    /// The phases in file order.
    pub fn phases(&self) -> &[Phase] {
        &self.phases
    }

    /// The animation blocks in file order.
    pub fn blocks(&self) -> &[AnimBlock] {
        &self.blocks
    }

    /// Texture names of every textured phase, in phase order (duplicates kept).
    pub fn texture_names(&self) -> impl Iterator<Item = &[u8]> {
        self.phases
            .iter()
            .map(Phase::texture_name)
            .filter(|n| !n.is_empty())
    }

    /// Bytes [`Mat0::to_bytes`] produces for `version`.
    pub fn encoded_len(&self, version: u32) -> usize {
        4 + prefix_len(version)
            + self.phases.len() * PHASE_SIZE
            + self
                .blocks
                .iter()
                .map(AnimBlock::encoded_len)
                .sum::<usize>()
    }

    /// Writes the payload for `version`. For a parsed material and its own version the
    /// output equals the input byte for byte. Fails when `version` lacks a prefix field
    /// whose value differs from that version's default.
    pub fn to_bytes(&self, version: u32) -> Result<Vec<u8>, MaterialError> {
        let d = Mat0Metadata::DEFAULT;
        let m = &self.metadata;
        let dropped = [
            (2, "metadata_a", u32::from(m.a), u32::from(d.a)),
            (2, "metadata_b", u32::from(m.b), u32::from(d.b)),
            (3, "metadata_c_raw", m.c_raw, d.c_raw),
            (4, "metadata_d_raw", m.d_raw, d.d_raw),
        ];
        for (since, field, value, default) in dropped {
            if version < since && value != default {
                return Err(MaterialError::Mat0VersionDropsField {
                    version,
                    field,
                    value,
                    default,
                });
            }
        }
        let mut out = Vec::with_capacity(self.encoded_len(version));
        // Counts were bounded by `new`/`parse`; saturate rather than panic regardless.
        let phase_count = u16::try_from(self.phases.len()).unwrap_or(u16::MAX);
        let block_count = u16::try_from(self.blocks.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&phase_count.to_le_bytes());
        out.extend_from_slice(&block_count.to_le_bytes());
        if version >= 2 {
            out.push(m.a);
            out.push(m.b);
        }
        if version >= 3 {
            out.extend_from_slice(&m.c_raw.to_le_bytes());
        }
        if version >= 4 {
            out.extend_from_slice(&m.d_raw.to_le_bytes());
        }
        for phase in &self.phases {
            out.extend_from_slice(&phase.to_raw());
        }
        for block in &self.blocks {
            out.extend_from_slice(&block.header_raw.to_le_bytes());
            let key_count = u16::try_from(block.keys.len()).unwrap_or(u16::MAX);
            out.extend_from_slice(&key_count.to_le_bytes());
            for key in &block.keys {
                out.extend_from_slice(&key.k0.to_le_bytes());
                out.extend_from_slice(&key.k1.to_le_bytes());
                out.extend_from_slice(&key.k2.to_le_bytes());
            }
        }
        Ok(out)
    }
}
