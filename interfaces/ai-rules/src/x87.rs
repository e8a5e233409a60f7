//! The few x87 conversions the AI rules need, exactly (FORMATS §13.11, §13.12).
//!
//! * `FISTP` under the default rounding mode: round to the nearest integer, ties to
//!   even, into a 64-bit integer; a value outside the `i64` range, or NaN, stores the
//!   *integer indefinite* `0x8000_0000_0000_0000`.
//! * `__ftol` (the MSVC float → integer helper): truncation toward zero into a 64-bit
//!   integer, with the same indefinite value for out-of-range input.
//! * A division under precision control 24 (control word `0x007F`): the exact quotient
//!   rounded once to a 24-bit mantissa, ties to even.

/// The x87 integer indefinite value (`FISTP`/`FISTTP` of NaN or an out-of-range value).
pub const INTEGER_INDEFINITE: i64 = i64::MIN;

/// An integral `f64` as the x87 stores it into 64 bits: the value when it fits, else
/// (outside the `i64` range, or NaN) the integer indefinite.
fn store_i64(r: f64) -> i64 {
    // -2^63 and 2^63 are exact; every integral f64 in between fits.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&r) {
        r as i64
    } else {
        INTEGER_INDEFINITE
    }
}

/// `FISTP` with round-to-nearest-even into 64 bits.
pub fn fistp_round_even(x: f64) -> i64 {
    store_i64(x.round_ties_even())
}

/// `__ftol`: truncation toward zero into 64 bits.
pub fn ftol_truncate(x: f64) -> i64 {
    store_i64(x.trunc())
}

/// The low 32 bits of a 64-bit integer.
pub fn low32(v: i64) -> u32 {
    v as u32
}

/// `milliseconds / 1000` rounded once to `f32` (nearest, ties to even): the x87
/// division of an exactly loaded integer under precision control 24.
pub fn ms_to_seconds(milliseconds: u32) -> f32 {
    let d = f64::from(milliseconds);
    let guess = (d / 1000.0) as f32;
    // `c · 1000` and `d` are exact in f64 (24 + 10 bits, 32 bits), so the distances
    // are exact and the nearest candidate is the correctly rounded quotient.
    let dist = |c: f32| (f64::from(c) * 1000.0 - d).abs();
    let mut best = guess;
    // `guess` is finite and non-negative: its neighbours are one bit pattern away.
    let bits = guess.to_bits();
    let below = f32::from_bits(bits.saturating_sub(1));
    let above = f32::from_bits(bits + 1);
    for c in [below, above] {
        let (dc, db) = (dist(c), dist(best));
        if dc < db || (dc == db && c.to_bits() & 1 == 0 && best.to_bits() & 1 == 1) {
            best = c;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fistp_rounds_ties_to_even_and_keeps_the_low_word() {
        assert_eq!(fistp_round_even(-0.6), -1);
        assert_eq!(low32(fistp_round_even(-0.6)), 0xFFFF_FFFF);
        assert_eq!(fistp_round_even(500.2857), 500);
        assert_eq!(fistp_round_even(2.5), 2);
        assert_eq!(fistp_round_even(3.5), 4);
        assert_eq!(fistp_round_even(-2.5), -2);
        assert_eq!(fistp_round_even(f64::NAN), INTEGER_INDEFINITE);
        assert_eq!(fistp_round_even(1e300), INTEGER_INDEFINITE);
        assert_eq!(low32(INTEGER_INDEFINITE), 0);
    }

    #[test]
    fn ftol_truncates() {
        assert_eq!(ftol_truncate(4_294_967_296.0), 1 << 32);
        assert_eq!(low32(ftol_truncate(4_294_967_296.0)), 0);
        assert_eq!(ftol_truncate(-0.9), 0);
        assert_eq!(ftol_truncate(499.99), 499);
        assert_eq!(ftol_truncate(f64::INFINITY), INTEGER_INDEFINITE);
    }

    #[test]
    fn seconds_are_the_correctly_rounded_quotient() {
        assert_eq!(ms_to_seconds(0), 0.0);
        assert_eq!(ms_to_seconds(500), 0.5);
        assert_eq!(ms_to_seconds(1000), 1.0);
        assert_eq!(ms_to_seconds(1), 0.001);
        assert_eq!(ms_to_seconds(u32::MAX), 4_294_967.5);
        // Near 2^24 ms the f32 grid is coarse: every result is the nearest f32.
        for d in [16_777_215u32, 16_777_217, 33_554_433, 4_000_000_001] {
            let s = ms_to_seconds(d);
            let e = |c: f32| (f64::from(c) * 1000.0 - f64::from(d)).abs();
            let (up, down) = (
                f32::from_bits(s.to_bits() + 1),
                f32::from_bits(s.to_bits() - 1),
            );
            assert!(e(s) <= e(up) && e(s) <= e(down), "{d}");
        }
    }
}
