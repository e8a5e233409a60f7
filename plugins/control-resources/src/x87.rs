//! Numeric helpers: x87 precision-control emulation (control word `0x007F`: 24-bit
//! mantissa, round to nearest even, unlimited exponent) and checked `f32` results.
//!
//! A product of two values with 24-bit mantissas needs at most 48 bits, so it is exact
//! in `f64`; rounding that exact product to 24 bits reproduces one x87 `FMUL` under
//! precision control 24. The `f64` exponent range (down to 2^-1022) covers every
//! product of up to three `f32` values (at least 2^-447), so no intermediate ever
//! under- or overflows here, exactly like the 15-bit x87 exponent.

use crate::error::{ControlError, Result};

/// Rounds `x` to a 24-bit mantissa (round to nearest, ties to even) without limiting
/// the exponent. Zero, NaN and infinities are returned unchanged. Exact for every
/// normal `f64`.
pub fn round_mantissa_24(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() || x.is_subnormal() {
        return x;
    }
    const DROP: u32 = 52 - 23;
    let bits = x.to_bits();
    let mask: u64 = (1 << DROP) - 1;
    let half: u64 = 1 << (DROP - 1);
    let rem = bits & mask;
    let mut kept = bits & !mask;
    if rem > half || (rem == half && (kept >> DROP) & 1 == 1) {
        // A carry out of the mantissa correctly bumps the exponent.
        kept += 1 << DROP;
    }
    f64::from_bits(kept)
}

/// One x87 multiply under precision control 24: the exact product of `a` and `b`
/// (both with at most 24-bit mantissas) rounded to 24 bits, exponent unlimited.
pub fn x87_mul(a: f64, b: f64) -> f64 {
    round_mantissa_24(a * b)
}

/// Converts a 24-bit-rounded value to `f32`, failing when it is not finite or outside
/// the normal `f32` range (overflow, or non-zero below `f32::MIN_POSITIVE`). Exact on
/// success; zero keeps its sign.
pub fn to_f32_checked(x: f64, operation: &'static str) -> Result<f32> {
    if !x.is_finite() {
        return Err(ControlError::NotFinite { operation });
    }
    let a = x.abs();
    if a != 0.0 && (a > f64::from(f32::MAX) || a < f64::from(f32::MIN_POSITIVE)) {
        return Err(ControlError::OutOfF32Range {
            operation,
            value: x,
        });
    }
    // In range and already 24-bit: the conversion is exact.
    Ok(x as f32)
}

/// Fails with [`ControlError::NotFinite`] when `x` is NaN or infinite; otherwise `x`.
pub fn finite(x: f32, operation: &'static str) -> Result<f32> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(ControlError::NotFinite { operation })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_f32_in_range() {
        // In the normal f32 range 24-bit rounding is f32 rounding.
        let samples = [1.1f32, 3.7, 1.0e-30, 6.5e30, 0.333_333_34, 123_456.79];
        for &a in &samples {
            for &b in &samples {
                let exact = f64::from(a) * f64::from(b);
                let want = a * b;
                if want.is_finite() && want.is_normal() {
                    assert_eq!(round_mantissa_24(exact), f64::from(want), "{a} * {b}");
                }
            }
        }
    }

    #[test]
    fn ties_go_to_even() {
        let one = 1.0f64;
        let ulp = 2f64.powi(-23);
        // 1 + ulp/2 is a tie between 1 (even) and 1 + ulp (odd): goes to 1.
        assert_eq!(round_mantissa_24(one + ulp / 2.0), one);
        // 1 + 3ulp/2 is a tie between 1+ulp (odd) and 1+2ulp (even).
        assert_eq!(round_mantissa_24(one + 1.5 * ulp), one + 2.0 * ulp);
        // A carry bumps the exponent: (2 - ulp/2) rounds up to 2.
        assert_eq!(round_mantissa_24(2.0 - ulp / 4.0), 2.0);
        assert_eq!(round_mantissa_24(-(one + ulp / 2.0)), -one);
    }

    #[test]
    fn exponent_is_not_limited() {
        let big = 2f64.powi(200) * (1.0 + 2f64.powi(-30));
        assert_eq!(round_mantissa_24(big), 2f64.powi(200));
        assert!(to_f32_checked(big, "t").is_err());
        assert!(to_f32_checked(2f64.powi(-140), "t").is_err());
        assert_eq!(
            to_f32_checked(-0.0, "t").unwrap().to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(to_f32_checked(0.5, "t").unwrap(), 0.5);
        assert!(matches!(
            to_f32_checked(f64::NAN, "t"),
            Err(ControlError::NotFinite { .. })
        ));
    }
}
