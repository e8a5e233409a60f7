//! The effects runtime and its rules as a library, so the `effects` plugin shell, tools
//! and benchmarks link the same code (as `iron3d-ai-rules` is the AI's): the project's
//! FXID emitter block ([`emitter`], PD-FX-BODY: what the runtime reads from a command
//! body and our content writes), the effects archives ([`library`]), the FXID runtime
//! ([`runtime`]: instances, emitters, the primitives of a game time) and its state blob
//! ([`state`]), and the environment's numeric rules (FORMATS §13.8 weather and
//! precipitation, §13.9 lightning) as pure functions over plain values. Randomness comes in as the caller's
//! draws (one seeded stream per effect), so the same draws give the same numbers.
//!
//! **Project decisions** (where the spec leaves a choice):
//! * **PD-FX-ROUND**: the spec's "round to even" (the x87 default mode) is
//!   [`round_half_even`] on an `f64` product of the `f32` inputs.
//! * **PD-FX-PRECIP-BOX**: the precipitation volume is the box in camera space
//!   `|x| ≤ half_x`, `|y| ≤ half_y`, depth [`weather::NEAR`]..[`weather::FAR`]
//!   (`half_x`, `half_y` of §13.8, taken at depth 50); the reference volume is the same
//!   box for the reference half-angles. The ratio of the two is that of the frustum
//!   slabs too, so the particle count does not depend on the reading; the box fixes the
//!   wrap ([`weather::wrap_local`]).
//! * **PD-FX-LIGHTNING-U**: `U` is the 15-bit draw divided by 32767, so it spans
//!   `[0, 1]` and the longest delay is reached.

pub mod emitter;
pub mod library;
pub mod lightning;
pub mod runtime;
pub mod sky;
pub mod state;
pub mod weather;

use std::sync::Arc;

/// Why an effect could not start.
#[derive(Clone, Debug, thiserror::Error)]
pub enum EffectsError {
    /// The archive is missing or unreadable.
    #[error("effects archive {archive}: {why}")]
    Archive {
        /// Archive name.
        archive: String,
        /// Why.
        why: String,
    },
    /// The archive has no such entry.
    #[error("effects archive {archive} has no entry {entry}")]
    NoEntry {
        /// Archive name.
        archive: String,
        /// Entry name.
        entry: String,
    },
    /// The entry could not be read out of its archive.
    #[error("effects archive {archive}, entry {entry}: {why}")]
    Entry {
        /// Archive name.
        archive: String,
        /// Entry name.
        entry: String,
        /// Why.
        why: String,
    },
    /// The entry is not a valid FXID effect.
    #[error("effects archive {archive}, entry {entry}: not a valid FXID effect")]
    Fxid {
        /// Archive name.
        archive: String,
        /// Entry name.
        entry: String,
        /// The parser's error (offset and command inside).
        #[source]
        source: Arc<iron3d_fxid::FxidError>,
    },
}

#[cfg(test)]
mod runtime_tests;

/// Rounds to the nearest integer, ties to even (PD-FX-ROUND); `NaN` gives 0.
pub fn round_half_even(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.round_ties_even() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_even_neighbour() {
        assert_eq!(round_half_even(0.5), 0.0);
        assert_eq!(round_half_even(1.5), 2.0);
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(-2.5), -2.0);
        assert_eq!(round_half_even(2.5000001), 3.0);
        assert_eq!(round_half_even(f64::NAN), 0.0);
    }
}
