//! The effects contract as pure functions over plain values: the project's FXID emitter
//! block ([`emitter`], PD-FX-BODY: what our runtime reads from a command body and our
//! content writes) and the environment's numeric rules (FORMATS §13.8 weather and
//! precipitation, §13.9 lightning): what the effects plugin computes each frame before
//! anything is drawn or sounded. Randomness comes in as the caller's
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
pub mod lightning;
pub mod weather;

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
