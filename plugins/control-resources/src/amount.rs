//! The direct amount change of one row (FORMATS §13.14, Control `+0x10F30`).
//!
//! ```text
//! amount = clamp(previous + delta, 0, maximum)
//! total  = max(total + (amount - previous), 0)
//! ratio  = amount / maximum
//! amount == 0 -> set depletion flag 0x10; refilling clears it
//! ```
//!
//! Three separate `f32` operations, each rounded. The spec's rounding example "values
//! `[2^24, 2]` and a request of −1 give an effective change of −2" is read here as: two
//! rows with amounts `2^24` and `2`, so the object's total is `2^24 + 2`; taking 1 from
//! a row makes `total + (−1) = 2^24 + 1`, which rounds (ties to even) to `2^24`, so the
//! total moves by −2 while the row moves by −1. (Tome 06: "first adds the total and the
//! change, then subtracts the previous total".) The same rounding makes the
//! distribution's effective change −2 (see [`crate::distribute`](mod@crate::distribute)). The visible stage
//! is not changed here; the processed amount is not changed either (the stage pass
//! updates it).

use crate::error::{ControlError, Result};
use crate::provider::{FLAG_DEPLETED, ProviderTable};
use crate::x87::finite;

/// The outcome of one direct amount change (already written to the table).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AmountChange {
    /// The row.
    pub row: usize,
    /// The requested delta.
    pub requested: f32,
    /// Amount before.
    pub previous: f32,
    /// Amount after.
    pub amount: f32,
    /// `amount − previous` (f32).
    pub applied: f32,
    /// New ratio `amount / maximum`; also the value to publish to the model node
    /// (AniMesh `+0x124` through selector 0x200).
    pub ratio: f32,
    /// Total before.
    pub total_before: f32,
    /// Total after.
    pub total_after: f32,
    /// Whether the depletion flag 0x10 is now set.
    pub depleted: bool,
}

/// Applies `delta` to `row` by the direct path. When `accumulate` is true the row's
/// accumulator also receives the applied change (the distribution and propagation
/// paths; the direct Control `+0x10F30` call runs with accumulation off). All checks
/// run before any write: an error (row out of range, maximum not positive and finite,
/// a non-finite input or result) leaves the table unchanged.
pub fn apply_delta(
    table: &mut ProviderTable,
    row: usize,
    delta: f32,
    accumulate: bool,
) -> Result<AmountChange> {
    let total_before = table.total();
    let r = table.row(row)?;
    let maximum = r.maximum;
    if !maximum.is_finite() || maximum <= 0.0 {
        return Err(ControlError::BadMaximum { row, maximum });
    }
    let previous = finite(r.amount, "previous amount")?;
    finite(delta, "amount delta")?;
    let sum = finite(previous + delta, "previous + delta")?;
    // A manual clamp: f32::clamp would panic on bad bounds; maximum is checked above.
    let amount = if sum <= 0.0 {
        0.0
    } else if sum > maximum {
        maximum
    } else {
        sum
    };
    let applied = finite(amount - previous, "amount - previous")?;
    let t = finite(finite(total_before, "total")? + applied, "total + change")?;
    let total_after = if t < 0.0 { 0.0 } else { t };
    let ratio = finite(amount / maximum, "amount / maximum")?;
    let accumulator = if accumulate {
        finite(r.accumulator + applied, "accumulator")?
    } else {
        r.accumulator
    };
    let depleted = amount == 0.0;
    let r = table.row_mut(row)?;
    r.amount = amount;
    r.ratio = ratio;
    r.accumulator = accumulator;
    if depleted {
        r.flags |= FLAG_DEPLETED;
    } else {
        r.flags &= !FLAG_DEPLETED;
    }
    table.set_total(total_after);
    Ok(AmountChange {
        row,
        requested: delta,
        previous,
        amount,
        applied,
        ratio,
        total_before,
        total_after,
        depleted,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use crate::provider::{NdpRow, ProviderSource};

    pub(crate) fn table(maxima: &[f32], amounts: &[f32]) -> ProviderTable {
        let mut t = ProviderTable::new();
        let rows: Vec<NdpRow> = maxima
            .iter()
            .map(|&m| NdpRow {
                max_volume: m,
                stage_count: 3,
                parent: -1,
                flags: 0,
            })
            .collect();
        t.push_component(ProviderSource::Root, 1, &rows, 1.0)
            .unwrap();
        let mut total = 0.0f32;
        for (i, &a) in amounts.iter().enumerate() {
            let r = t.row_mut(i).unwrap();
            r.amount = a;
            r.processed_amount = a;
            r.ratio = if r.maximum > 0.0 { a / r.maximum } else { 1.0 };
            total += a;
        }
        t.set_total(total);
        t
    }

    /// §13.14: max 100, amount 40, +20 → 60, ratio 0.6.
    #[test]
    fn max_100_amount_40_plus_20() {
        let mut t = table(&[100.0], &[40.0]);
        let c = apply_delta(&mut t, 0, 20.0, false).unwrap();
        assert_eq!((c.amount, c.applied, c.ratio), (60.0, 20.0, 0.6));
        assert_eq!(t.row(0).unwrap().ratio, 0.6);
        assert_eq!(t.total(), 60.0);
        // Processed amount and stage are not touched by the direct path.
        assert_eq!(t.row(0).unwrap().processed_amount, 40.0);
        assert_eq!(t.row(0).unwrap().visible_stage, 0);
        assert_eq!(t.row(0).unwrap().accumulator, 0.0);
    }

    /// §13.14: values `[2^24, 2]`, request −1 → effective change −2 (of the total).
    #[test]
    fn rounding_2_pow_24() {
        let p24 = 16_777_216.0f32;
        let mut t = table(&[2.0 * p24, 10.0], &[p24, 2.0]);
        assert_eq!(t.total(), p24 + 2.0);
        let c = apply_delta(&mut t, 1, -1.0, false).unwrap();
        assert_eq!((c.amount, c.applied), (1.0, -1.0));
        assert_eq!(c.total_after - c.total_before, -2.0);
        assert_eq!(t.total(), p24);
        // Same for the large row: 2^24 - 1 is exact, the total still moves by -2.
        let mut t = table(&[2.0 * p24, 10.0], &[p24, 2.0]);
        let c = apply_delta(&mut t, 0, -1.0, false).unwrap();
        assert_eq!((c.applied, c.total_after - c.total_before), (-1.0, -2.0));
    }

    #[test]
    fn clamp_and_depletion_flag() {
        let mut t = table(&[100.0], &[40.0]);
        let c = apply_delta(&mut t, 0, 500.0, true).unwrap();
        assert_eq!(
            (c.amount, c.applied, c.ratio, t.total()),
            (100.0, 60.0, 1.0, 100.0)
        );
        assert_eq!(t.row(0).unwrap().accumulator, 60.0);
        let c = apply_delta(&mut t, 0, -1000.0, true).unwrap();
        assert_eq!((c.amount, c.applied, c.depleted), (0.0, -100.0, true));
        assert_eq!(t.row(0).unwrap().flags & FLAG_DEPLETED, FLAG_DEPLETED);
        assert_eq!(t.row(0).unwrap().accumulator, -40.0);
        let c = apply_delta(&mut t, 0, 1.0, false).unwrap();
        assert!(!c.depleted);
        assert_eq!(t.row(0).unwrap().flags & FLAG_DEPLETED, 0);
    }

    #[test]
    fn total_never_negative() {
        let mut t = table(&[100.0], &[40.0]);
        t.set_total(10.0);
        let c = apply_delta(&mut t, 0, -30.0, false).unwrap();
        assert_eq!((c.amount, c.total_after), (10.0, 0.0));
    }

    #[test]
    fn errors_leave_state_unchanged() {
        let mut t = table(&[100.0, 0.0], &[40.0, 0.0]);
        let before = t.clone();
        assert!(matches!(
            apply_delta(&mut t, 2, 1.0, false),
            Err(ControlError::RowOutOfRange {
                row: 2,
                row_count: 2
            })
        ));
        assert!(matches!(
            apply_delta(&mut t, 1, 1.0, false),
            Err(ControlError::BadMaximum { row: 1, .. })
        ));
        assert!(apply_delta(&mut t, 0, f32::NAN, false).is_err());
        assert!(apply_delta(&mut t, 0, f32::INFINITY, false).is_err());
        t.set_total(f32::INFINITY);
        assert!(matches!(
            apply_delta(&mut t, 0, 5.0, false),
            Err(ControlError::NotFinite { .. })
        ));
        t.set_total(before.total());
        assert_eq!(t, before);
    }
}
