//! Clan anchors → the script variables `ClanBaseX` / `ClanBaseY` (FORMATS §13.11).
//!
//! The path of one anchor coordinate, as the spec gives it:
//!
//! 1. the TMA anchor (an `f32`) is rounded to the nearest integer, ties to even
//!    (x87 `FISTP`), and only the **low 32 bits** are kept: `-0.6` → `0xFFFF_FFFF`;
//! 2. SuperAI stores that word as a float — the word read as an unsigned number and
//!    rounded to `f32`: `0xFFFF_FFFF` → `2^32`;
//! 3. `Handler(19)`'s `__ftol` truncates that float and keeps the low 32 bits again:
//!    `2^32` → `0`. The AutoDemo anchor `500.2857` gives `500`.
//!
//! Anchors above [`ANCHOR_WARNING_LIMIT`] produce a warning only; AI creation goes on
//! (the newer tome; an older statement rejected them).

use crate::x87::{fistp_round_even, ftol_truncate, low32};

/// Anchors above this give a warning (never a refusal).
pub const ANCHOR_WARNING_LIMIT: f32 = 10_000.0;

/// One anchor coordinate through the three steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnchorPath {
    /// The TMA value.
    pub anchor: f32,
    /// Step 1: the rounded low word.
    pub word: u32,
    /// Step 2: the word as SuperAI's float.
    pub stored: f32,
    /// Step 3: the DWORD `Handler(19)` writes into the script variable.
    pub variable: u32,
}

impl AnchorPath {
    /// Runs the three steps on `anchor`.
    pub fn of(anchor: f32) -> Self {
        let word = low32(fistp_round_even(f64::from(anchor)));
        let stored = word as f32;
        let variable = low32(ftol_truncate(f64::from(stored)));
        Self {
            anchor,
            word,
            stored,
            variable,
        }
    }

    /// Whether the anchor is above [`ANCHOR_WARNING_LIMIT`] (a warning, not an error).
    pub fn warns(&self) -> bool {
        self.anchor > ANCHOR_WARNING_LIMIT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        let p = AnchorPath::of(-0.6);
        assert_eq!(p.word, 0xFFFF_FFFF);
        assert_eq!(p.stored, 4_294_967_296.0);
        assert_eq!(p.variable, 0);
        assert_eq!(AnchorPath::of(500.2857).variable, 500);
        // The live AutoDemo entries (500, 752, 0) and (728, 449, 1) survive unchanged.
        for v in [500.0, 752.0, 728.0, 449.0] {
            assert_eq!(AnchorPath::of(v).variable, v as u32);
        }
        // Ties to even, before the truncation.
        assert_eq!(AnchorPath::of(2.5).variable, 2);
        assert_eq!(AnchorPath::of(3.5).variable, 4);
        // 10 001 goes through, with a warning; 10 000 does not warn.
        let big = AnchorPath::of(10_001.0);
        assert_eq!(big.variable, 10_001);
        assert!(big.warns());
        assert!(!AnchorPath::of(10_000.0).warns());
    }

    #[test]
    fn words_above_2_to_24_lose_low_bits_in_the_float() {
        // -3 → 0xFFFF_FFFD → f32 2^32 → 0: every small negative anchor becomes 0.
        assert_eq!(AnchorPath::of(-3.0).variable, 0);
        // 16 777 217 is not an f32; the TMA float already holds 16 777 216.
        assert_eq!(AnchorPath::of(16_777_217.0).variable, 16_777_216);
        // NaN → integer indefinite → low word 0.
        assert_eq!(AnchorPath::of(f32::NAN).variable, 0);
    }
}
