//! Runtime phase selection by material time. **Project decisions, not the confirmed
//! layer**: the sources name four mode families (loop, ping-pong, one-shot/clamp, random
//! offset) but prove neither the mode-number mapping, the key meaning, the time base nor
//! the boundary cases (FORMATS §8.2, §16 item 20; tome V "MAT0").
//!
//! # Decision PD-MAT-1: mode number → family ([`ModeMapping::PROJECT_DEFAULT`])
//!
//! `0` loop, `1` ping-pong, `2` clamp (one-shot), `3` random offset; modes `4..=7` (never
//! observed) have no family and fail with [`MaterialError::UnmappedMode`]. Another
//! mapping can be passed once evidence appears.
//!
//! # Decision PD-MAT-2: key meaning
//!
//! A block's keys form a timeline in file order. Key `i` starts when key `i−1` ends
//! (key 0 at time 0):
//!
//! * `k0` — index of the phase shown when the key starts (must be `< phase_count`,
//!   checked at selection: [`MaterialError::KeyPhaseOutOfRange`]);
//! * `k1` — the key's duration in milliseconds; during it the selection blends from
//!   phase `k0[i]` towards the next key's phase with `t = elapsed / k1`; a key with
//!   `k1 = 0` lasts no time and is never selected while time passes through it;
//! * `k2` — not interpreted (kept raw by the reader and writer).
//!
//! The period `L` is the sum of all `k1` (at most 65 535², exact in `u64`).
//!
//! # Decision PD-MAT-3: families and boundaries (time in integer milliseconds)
//!
//! * **Loop** — local time `time mod L`; the last key blends back to key 0.
//! * **Clamp** (one-shot) — local time `time`; the last key blends to itself; from
//!   `time ≥ L` on the last key's phase is held (`t = 0`).
//! * **Ping-pong** — `p = time mod 2L`, local time `p` for `p ≤ L`, else `2L − p`,
//!   evaluated like clamp (so at `p = L` the last key is held, and the sweep runs
//!   backwards through the same blends).
//! * **Random offset** — loop at `(time mod L + offset mod L) mod L`; the offset comes
//!   from the caller (a per-instance value drawn from the caller's seeded RNG), never
//!   from global randomness.
//! * `L = 0` (every `k1` zero): loop, ping-pong and random offset hold key 0; clamp holds
//!   the last key (time is always `≥ L`). A block without keys shows phase 0.
//!
//! Which parameter bytes blend is the interpolation mask's business (bits 3..31 of the
//! header, unproven mapping): the selection only reports it; the caller interpolates
//! masked fields with [`PhaseSelection::t`] and copies the rest from `phase_a`.

use crate::error::MaterialError;
use crate::mat0::{AnimKey, Mat0};

/// The four mode families the sources name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnimFamily {
    /// Repeat the key timeline.
    Loop,
    /// Run the timeline forwards, then backwards, repeatedly.
    PingPong,
    /// Run once, then hold the last key (one-shot).
    Clamp,
    /// Loop, shifted by a per-instance offset.
    RandomOffset,
}

/// Which family each mode number (`header_raw & 7`) selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModeMapping {
    families: [Option<AnimFamily>; 8],
}

impl ModeMapping {
    /// PD-MAT-1: `0` loop, `1` ping-pong, `2` clamp, `3` random offset, `4..=7` none.
    pub const PROJECT_DEFAULT: ModeMapping = ModeMapping::new([
        Some(AnimFamily::Loop),
        Some(AnimFamily::PingPong),
        Some(AnimFamily::Clamp),
        Some(AnimFamily::RandomOffset),
        None,
        None,
        None,
        None,
    ]);

    /// A mapping from mode number (index) to family.
    pub const fn new(families: [Option<AnimFamily>; 8]) -> Self {
        Self { families }
    }

    /// The family of `mode` (only its low 3 bits count).
    pub const fn family(&self, mode: u8) -> Option<AnimFamily> {
        self.families[(mode & 7) as usize]
    }
}

impl Default for ModeMapping {
    fn default() -> Self {
        Self::PROJECT_DEFAULT
    }
}

/// The time inputs of one material instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MaterialClock {
    /// Material time in milliseconds.
    pub time_ms: u64,
    /// Per-instance offset in milliseconds (used by the random-offset family only).
    pub random_offset_ms: u64,
}

impl MaterialClock {
    /// A clock at `time_ms` without offset.
    pub const fn at(time_ms: u64) -> Self {
        Self {
            time_ms,
            random_offset_ms: 0,
        }
    }
}

/// The phases to show at one instant: blend `phase_a → phase_b` by [`Self::t`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhaseSelection {
    /// The active phase (copied fields come from here).
    pub phase_a: u16,
    /// The phase being blended towards (equal to `phase_a` when holding).
    pub phase_b: u16,
    /// Milliseconds into the active key.
    pub elapsed_ms: u32,
    /// The active key's duration (0 when holding).
    pub span_ms: u32,
    /// The active key's index (0 for a block without keys).
    pub key: usize,
    /// The family that was applied (`None` only for [`PhaseSelection::still`]).
    pub family: Option<AnimFamily>,
    /// The block's interpolation mask (header bits 3..31).
    pub interpolation_mask: u32,
}

impl PhaseSelection {
    /// A fixed phase (no animation): what a material without blocks shows (phase 0).
    pub const fn still(phase: u16) -> Self {
        Self {
            phase_a: phase,
            phase_b: phase,
            elapsed_ms: 0,
            span_ms: 0,
            key: 0,
            family: None,
            interpolation_mask: 0,
        }
    }

    /// The blend factor `elapsed / span` in `[0, 1)` (0 when holding).
    pub fn t(&self) -> f32 {
        if self.span_ms == 0 {
            0.0
        } else {
            // Both fit in u16 in practice; f64 keeps the quotient exact before rounding.
            (f64::from(self.elapsed_ms) / f64::from(self.span_ms)) as f32
        }
    }
}

/// Selects the phase(s) of animation block `block` of `mat` at `clock` (PD-MAT-1..3).
pub fn select_phase(
    mat: &Mat0,
    block: usize,
    clock: MaterialClock,
    mapping: &ModeMapping,
) -> Result<PhaseSelection, MaterialError> {
    let blocks = mat.blocks();
    let b = blocks.get(block).ok_or(MaterialError::NoSuchBlock {
        block,
        blocks: blocks.len(),
    })?;
    let phase_count = mat.phases().len();
    if phase_count == 0 {
        return Err(MaterialError::NoPhases);
    }
    let family = mapping
        .family(b.mode())
        .ok_or(MaterialError::UnmappedMode {
            block,
            mode: b.mode(),
        })?;
    let keys = b.keys();
    if let Some((key, k)) = keys
        .iter()
        .enumerate()
        .find(|(_, k)| usize::from(k.k0) >= phase_count)
    {
        return Err(MaterialError::KeyPhaseOutOfRange {
            block,
            key,
            phase: k.k0,
            phase_count,
        });
    }
    let mut sel = PhaseSelection {
        family: Some(family),
        interpolation_mask: b.interpolation_mask(),
        ..PhaseSelection::still(0)
    };
    let last = keys.len().saturating_sub(1);
    if keys.is_empty() {
        return Ok(sel);
    }
    let total: u64 = keys.iter().map(|k| u64::from(k.k1)).sum();
    let time = clock.time_ms;
    let (target, wrap) = match family {
        AnimFamily::Loop | AnimFamily::RandomOffset | AnimFamily::PingPong if total == 0 => {
            (Hold(0), false)
        }
        AnimFamily::Loop => (Seek(time % total), true),
        AnimFamily::RandomOffset => (
            Seek((time % total + clock.random_offset_ms % total) % total),
            true,
        ),
        AnimFamily::Clamp if time >= total => (Hold(last), false),
        AnimFamily::Clamp => (Seek(time), false),
        AnimFamily::PingPong => {
            let p = time % (2 * total);
            let local = if p <= total { p } else { 2 * total - p };
            if local >= total {
                (Hold(last), false)
            } else {
                (Seek(local), false)
            }
        }
    };
    match target {
        Hold(i) => {
            let phase = keys.get(i).map_or(0, |k| k.k0);
            sel.phase_a = phase;
            sel.phase_b = phase;
            sel.key = i;
        }
        Seek(local) => {
            let (i, elapsed, span) = seek(keys, local);
            let next = if i < last {
                i + 1
            } else if wrap {
                0
            } else {
                i
            };
            sel.phase_a = keys.get(i).map_or(0, |k| k.k0);
            sel.phase_b = keys.get(next).map_or(sel.phase_a, |k| k.k0);
            sel.key = i;
            sel.elapsed_ms = elapsed;
            sel.span_ms = span;
        }
    }
    Ok(sel)
}

/// Where on the timeline to look.
enum Target {
    /// Hold key `i` (t = 0, no blend).
    Hold(usize),
    /// Find the key active at this local time (`< L`).
    Seek(u64),
}
use Target::{Hold, Seek};

/// The key active at `local` (< total): its index, the ms into it, and its duration.
fn seek(keys: &[AnimKey], local: u64) -> (usize, u32, u32) {
    let mut start = 0u64;
    for (i, k) in keys.iter().enumerate() {
        let end = start + u64::from(k.k1);
        if local < end {
            // local - start < k1 <= u16::MAX
            return (
                i,
                u32::try_from(local - start).unwrap_or(0),
                u32::from(k.k1),
            );
        }
        start = end;
    }
    (keys.len().saturating_sub(1), 0, 0)
}
