//! The 60-byte FXID header (FORMATS §10.2, tome V "FXID"): every field kept as raw bits,
//! typed views for the confirmed and inferred ones.
//!
//! ```text
//! FxHeader60 (offset 0, little-endian, packed):
//!   +0x00 u32    command_count      confirmed (derived from the command list on write)
//!   +0x04 u32    time_mode          confirmed values 0,1,2,4,5,14,15,16,17
//!   +0x08 f32    duration_seconds   confirmed
//!   +0x0C f32    phase_jitter       inferred (used only when its flag is set)
//!   +0x10 u32    flags              layout/inferred (unknown bits preserved)
//!   +0x14 u32    settings_id        layout (preserved)
//!   +0x18 f32[3] random_shift       inferred
//!   +0x24 f32[3] pivot              inferred (local anchor)
//!   +0x30 f32[3] scale              inferred (base instance scale)
//!   +0x3C        command stream
//! ```
//!
//! Floats are stored as their bit patterns (`u32`) so that NaN payloads, signed zeros
//! and denormals survive a rewrite (FORMATS §1.1).

/// Size of the header; the command stream starts right after it.
pub const HEADER_LEN: usize = 0x3C;

/// `time_mode` values observed in the corpora (FORMATS §10.2). Their formulas are open.
pub const OBSERVED_TIME_MODES: [u32; 9] = [0, 1, 2, 4, 5, 14, 15, 16, 17];

/// The header without `command_count` (which the writer derives from the commands, and
/// the reader checks against them). Every field is the raw stored value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FxHeader {
    /// `+0x04` time mode (confirmed values; formulas partly open).
    pub time_mode: u32,
    /// `+0x08` bits of `duration_seconds` (confirmed).
    pub duration_bits: u32,
    /// `+0x0C` bits of `phase_jitter` (inferred).
    pub phase_jitter_bits: u32,
    /// `+0x10` flags; unknown bits preserved (layout/inferred).
    pub flags: u32,
    /// `+0x14` settings id (layout, opaque).
    pub settings_id: u32,
    /// `+0x18` bits of `random_shift[3]` (inferred).
    pub random_shift_bits: [u32; 3],
    /// `+0x24` bits of `pivot[3]` (inferred).
    pub pivot_bits: [u32; 3],
    /// `+0x30` bits of `scale[3]` (inferred).
    pub scale_bits: [u32; 3],
}

fn floats(bits: [u32; 3]) -> [f32; 3] {
    bits.map(f32::from_bits)
}

fn float_bits(v: [f32; 3]) -> [u32; 3] {
    v.map(f32::to_bits)
}

impl FxHeader {
    /// Reads the header fields from the first 60 bytes (`command_count` is returned
    /// separately).
    pub fn from_raw(raw: &[u8; HEADER_LEN]) -> (u32, Self) {
        let mut words = [0u32; HEADER_LEN / 4];
        for (w, chunk) in words.iter_mut().zip(raw.chunks_exact(4)) {
            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let [c, tm, d, pj, fl, si, r0, r1, r2, p0, p1, p2, s0, s1, s2] = words;
        let header = Self {
            time_mode: tm,
            duration_bits: d,
            phase_jitter_bits: pj,
            flags: fl,
            settings_id: si,
            random_shift_bits: [r0, r1, r2],
            pivot_bits: [p0, p1, p2],
            scale_bits: [s0, s1, s2],
        };
        (c, header)
    }

    /// The 60 header bytes with the given `command_count`.
    pub fn to_raw(&self, command_count: u32) -> [u8; HEADER_LEN] {
        let [r0, r1, r2] = self.random_shift_bits;
        let [p0, p1, p2] = self.pivot_bits;
        let [s0, s1, s2] = self.scale_bits;
        let words = [
            command_count,
            self.time_mode,
            self.duration_bits,
            self.phase_jitter_bits,
            self.flags,
            self.settings_id,
            r0,
            r1,
            r2,
            p0,
            p1,
            p2,
            s0,
            s1,
            s2,
        ];
        let mut out = [0u8; HEADER_LEN];
        for (chunk, w) in out.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// `duration_seconds` (confirmed).
    pub fn duration_seconds(&self) -> f32 {
        f32::from_bits(self.duration_bits)
    }

    /// Sets `duration_seconds`.
    pub fn set_duration_seconds(&mut self, seconds: f32) {
        self.duration_bits = seconds.to_bits();
    }

    /// `phase_jitter` (inferred view).
    pub fn phase_jitter(&self) -> f32 {
        f32::from_bits(self.phase_jitter_bits)
    }

    /// Sets `phase_jitter`.
    pub fn set_phase_jitter(&mut self, value: f32) {
        self.phase_jitter_bits = value.to_bits();
    }

    /// `random_shift` (inferred view).
    pub fn random_shift(&self) -> [f32; 3] {
        floats(self.random_shift_bits)
    }

    /// Sets `random_shift`.
    pub fn set_random_shift(&mut self, v: [f32; 3]) {
        self.random_shift_bits = float_bits(v);
    }

    /// `pivot`, the local anchor (inferred view).
    pub fn pivot(&self) -> [f32; 3] {
        floats(self.pivot_bits)
    }

    /// Sets `pivot`.
    pub fn set_pivot(&mut self, v: [f32; 3]) {
        self.pivot_bits = float_bits(v);
    }

    /// `scale`, the base instance scale (inferred view).
    pub fn scale(&self) -> [f32; 3] {
        floats(self.scale_bits)
    }

    /// Sets `scale`.
    pub fn set_scale(&mut self, v: [f32; 3]) {
        self.scale_bits = float_bits(v);
    }

    /// Whether `time_mode` is one of the values seen in the corpora.
    pub fn time_mode_observed(&self) -> bool {
        OBSERVED_TIME_MODES.contains(&self.time_mode)
    }
}
