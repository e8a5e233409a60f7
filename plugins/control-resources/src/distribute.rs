//! Distribution of one change over several rows (FORMATS §13.14 "Distribution of a
//! change over rows").
//!
//! From the spec: proportional to free space (adding) or to current amounts
//! (subtracting), or sequential, with sequential subtraction starting from the
//! **last** row; each row's accumulator receives the applied change, not the requested
//! one. From tome 06: the effective change is `f32(f32(total + request) − total)`
//! ("first adds the total and the change, then subtracts the previous total"), so
//! with rows `[2^24, 2]` a request of −1 becomes −2.
//!
//! Where the spec is silent, these are **project decisions**:
//!
//! * **PD-CTRL-DIST-SHARE**: a proportional share is `f32(f32(effective × weight_i) /
//!   Σweight)`, the sum taken in `f32` in the order the rows are given; weight =
//!   free space `maximum − amount` for a positive change, `amount` for a negative one.
//! * **PD-CTRL-DIST-NO-REMAINDER**: rounding remainders are not redistributed (the
//!   tome notes the original lets such drift stand), and a share beyond a row's room is
//!   clamped by the direct path and dropped, not passed to other rows.
//! * **PD-CTRL-DIST-SEQ-ADD**: sequential addition fills rows first to last, each up
//!   to its free space.
//! * **PD-CTRL-DIST-ROWS**: the caller names the rows; a duplicate row is an error.
//!
//! Every share goes through [`apply_delta`] with accumulation on, so flags, ratio and
//! total follow the direct path. The whole distribution is transactional.

use crate::amount::{AmountChange, apply_delta};
use crate::error::{ControlError, Result};
use crate::provider::ProviderTable;
use crate::x87::finite;

/// How a change is spread over rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistributionMode {
    /// By free space (adding) or by current amount (subtracting).
    Proportional,
    /// One row after the other: adding first → last, subtracting last → first.
    Sequential,
}

/// The outcome of one distribution (already written).
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// The requested change.
    pub requested: f32,
    /// The effective change after the total's rounding.
    pub effective: f32,
    /// One entry per row changed, in application order.
    pub changes: Vec<AmountChange>,
}

impl Distribution {
    /// Σ of the applied changes (f32, in application order).
    pub fn applied(&self) -> f32 {
        self.changes.iter().map(|c| c.applied).sum()
    }
}

/// Distributes `request` over `rows` of `table` by `mode`. On error (a row out of
/// range or repeated, a bad maximum, a non-finite value) nothing is written.
pub fn distribute(
    table: &mut ProviderTable,
    rows: &[usize],
    request: f32,
    mode: DistributionMode,
) -> Result<Distribution> {
    let mut seen = Vec::with_capacity(rows.len());
    for &r in rows {
        table.row(r)?;
        if seen.contains(&r) {
            return Err(ControlError::DuplicateRow { row: r });
        }
        seen.push(r);
    }
    finite(request, "distribution request")?;
    let total = finite(table.total(), "total")?;
    let effective = finite(
        finite(total + request, "total + request")? - total,
        "effective change",
    )?;
    let mut work = table.clone();
    let mut changes = Vec::new();
    if effective != 0.0 {
        match mode {
            DistributionMode::Proportional => {
                let mut weights = Vec::with_capacity(rows.len());
                let mut sum = 0.0f32;
                for &r in rows {
                    let row = work.row(r)?;
                    let w = if effective > 0.0 {
                        row.maximum - row.amount
                    } else {
                        row.amount
                    };
                    let w = finite(w, "distribution weight")?;
                    let w = if w > 0.0 { w } else { 0.0 };
                    sum = finite(sum + w, "distribution weight sum")?;
                    weights.push(w);
                }
                if sum > 0.0 {
                    for (&r, &w) in rows.iter().zip(&weights) {
                        if w == 0.0 {
                            continue;
                        }
                        let share = finite(finite(effective * w, "share product")? / sum, "share")?;
                        changes.push(apply_delta(&mut work, r, share, true)?);
                    }
                }
            }
            DistributionMode::Sequential => {
                let mut remaining = effective;
                let order: Vec<usize> = if effective > 0.0 {
                    rows.to_vec()
                } else {
                    rows.iter().rev().copied().collect()
                };
                for r in order {
                    if remaining == 0.0 || remaining.is_sign_positive() != (effective > 0.0) {
                        break;
                    }
                    let row = work.row(r)?;
                    let take = if effective > 0.0 {
                        let room = row.maximum - row.amount;
                        if room <= 0.0 {
                            continue;
                        }
                        remaining.min(room)
                    } else {
                        if row.amount <= 0.0 {
                            continue;
                        }
                        remaining.max(-row.amount)
                    };
                    let c = apply_delta(&mut work, r, take, true)?;
                    remaining = finite(remaining - c.applied, "remaining change")?;
                    changes.push(c);
                }
            }
        }
    }
    *table = work;
    Ok(Distribution {
        requested: request,
        effective,
        changes,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::amount::tests::table;

    fn amounts(t: &ProviderTable) -> Vec<f32> {
        t.rows().iter().map(|r| r.amount).collect()
    }

    /// §13.14: maxima [30,60,50], amounts [10,20,0], +22 proportional → [14,28,10].
    #[test]
    fn proportional_plus_22() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 0.0]);
        let d = distribute(&mut t, &[0, 1, 2], 22.0, DistributionMode::Proportional).unwrap();
        assert_eq!(amounts(&t), vec![14.0, 28.0, 10.0]);
        assert_eq!(d.effective, 22.0);
        assert_eq!(
            t.rows().iter().map(|r| r.accumulator).collect::<Vec<_>>(),
            vec![4.0, 8.0, 10.0]
        );
        assert_eq!(t.total(), 52.0);
    }

    /// §13.14 / tome 06: rows [2^24, 2], request −1 → effective −2; sequential
    /// subtraction starts from the last row.
    #[test]
    fn effective_change_minus_two_from_last_row() {
        let p24 = 16_777_216.0f32;
        let mut t = table(&[2.0 * p24, 10.0], &[p24, 2.0]);
        let d = distribute(&mut t, &[0, 1], -1.0, DistributionMode::Sequential).unwrap();
        assert_eq!(d.effective, -2.0);
        assert_eq!(amounts(&t), vec![p24, 0.0]);
        assert_eq!(d.changes.len(), 1);
        assert_eq!(t.rows()[1].accumulator, -2.0);
        assert_eq!(t.total(), p24);
    }

    #[test]
    fn sequential_subtraction_spills_backwards() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 5.0]);
        let d = distribute(&mut t, &[0, 1, 2], -15.0, DistributionMode::Sequential).unwrap();
        assert_eq!(amounts(&t), vec![10.0, 10.0, 0.0]);
        assert_eq!(
            d.changes.iter().map(|c| c.row).collect::<Vec<_>>(),
            vec![2, 1]
        );
        assert_eq!(d.applied(), -15.0);
    }

    /// PD-CTRL-DIST-SEQ-ADD: sequential addition fills first → last.
    #[test]
    fn sequential_addition_fills_forward() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 0.0]);
        distribute(&mut t, &[0, 1, 2], 30.0, DistributionMode::Sequential).unwrap();
        assert_eq!(amounts(&t), vec![30.0, 30.0, 0.0]);
    }

    #[test]
    fn proportional_subtraction_splits_by_amount() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 0.0]);
        let d = distribute(&mut t, &[0, 1, 2], -6.0, DistributionMode::Proportional).unwrap();
        assert_eq!(amounts(&t), vec![8.0, 16.0, 0.0]);
        assert_eq!(d.changes.len(), 2);
    }

    /// PD-CTRL-DIST-NO-REMAINDER: excess over the free space is dropped, and rounding
    /// remainders stay (here 1/3 shares).
    #[test]
    fn excess_and_remainders_are_not_redistributed() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 0.0]);
        let d = distribute(&mut t, &[0, 1, 2], 1000.0, DistributionMode::Proportional).unwrap();
        assert_eq!(amounts(&t), vec![30.0, 60.0, 50.0]);
        assert_eq!(d.applied(), 110.0);
        let mut t = table(&[3.0, 3.0, 3.0], &[0.0, 0.0, 0.0]);
        let d = distribute(&mut t, &[0, 1, 2], 1.0, DistributionMode::Proportional).unwrap();
        let share = 1.0f32 * 3.0 / 9.0;
        assert_eq!(amounts(&t), vec![share; 3]);
        assert_eq!(d.applied(), share + share + share);
    }

    #[test]
    fn errors_are_transactional() {
        let mut t = table(&[30.0, 60.0, 50.0], &[10.0, 20.0, 5.0]);
        let before = t.clone();
        assert!(matches!(
            distribute(&mut t, &[0, 0], 1.0, DistributionMode::Proportional),
            Err(ControlError::DuplicateRow { row: 0 })
        ));
        assert!(distribute(&mut t, &[0, 9], 1.0, DistributionMode::Proportional).is_err());
        assert!(distribute(&mut t, &[0, 1], f32::NAN, DistributionMode::Sequential).is_err());
        // Row 2 gets an unusable maximum: rows 0 and 1 are done on the working copy,
        // then row 2 fails, and nothing is published.
        t.row_mut(2).unwrap().maximum = 0.0;
        let broken = t.clone();
        let e = distribute(&mut t, &[0, 1, 2], -3.0, DistributionMode::Proportional).unwrap_err();
        assert!(matches!(e, ControlError::BadMaximum { row: 2, .. }));
        assert_eq!(t, broken);
        t = before.clone();
        // An empty row set succeeds without changes.
        let d = distribute(&mut t, &[], 5.0, DistributionMode::Proportional).unwrap();
        assert!(d.changes.is_empty());
        assert_eq!(t.rows(), before.rows());
    }
}
