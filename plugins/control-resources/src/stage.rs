//! The stage formula and the one-row stage update (FORMATS §13.14 "Stage formula").
//!
//! ```text
//! stage_internal = count - ceil( f32(count * ratio) )
//! visible_stage  = min(stage_internal, count - 1)
//! ```
//!
//! Stage `count` is the depletion sentinel; the model receives at most `count − 1`.
//! Flag 4 takes the parent's ratio (written into the row's ratio, the provider value;
//! the model's node value is not republished), flag 8 the parent's stage. When both
//! are set, the stage comes from the parent (flag 8 wins; **PD-CTRL-STAGE-FLAGS**).
//! After a successful update the processed amount equals the current amount.

use crate::error::{ControlError, Result};
use crate::provider::{FLAG_PARENT_RATIO, FLAG_PARENT_STAGE, ProviderTable};

/// Largest stage count accepted (every count up to it is exact in `f32`).
pub const MAX_STAGE_COUNT: u32 = 1 << 24;

/// Internal and visible stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// Control stage, `0..=count` (`count` = depleted).
    pub internal: u32,
    /// Stage the model receives, `min(internal, count − 1)`.
    pub visible: u32,
}

/// The stage of `ratio` for `count` stages. Fails on `count == 0`, `count >
/// MAX_STAGE_COUNT`, a non-finite ratio, or a ratio outside `[0, 1]` (stage outside
/// `0..=count`).
pub fn stage_for_ratio(count: u32, ratio: f32) -> Result<Stage> {
    if count == 0 || count > MAX_STAGE_COUNT {
        return Err(ControlError::BadStageCount {
            row: usize::MAX,
            count,
        });
    }
    if !ratio.is_finite() {
        return Err(ControlError::NotFinite {
            operation: "stage ratio",
        });
    }
    let product = count as f32 * ratio;
    let c = f64::from(product.ceil());
    let internal = f64::from(count) - c;
    if !(0.0..=f64::from(count)).contains(&internal) {
        return Err(ControlError::StageOutOfRange {
            stage: internal as i64,
            ratio,
            count,
        });
    }
    let internal = internal as u32;
    Ok(Stage {
        internal,
        visible: internal.min(count - 1),
    })
}

/// The outcome of one row's stage update (already written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageUpdate {
    /// The row.
    pub row: usize,
    /// Stage before.
    pub old_stage: u32,
    /// Stage after.
    pub new_stage: u32,
    /// Stage published to the model.
    pub visible_stage: u32,
}

impl StageUpdate {
    /// Whether the stage grew (the row degraded).
    pub fn grew(&self) -> bool {
        self.new_stage > self.old_stage
    }
}

/// Recomputes the stage of `row`: ratio from the row (or, with flag 4, from the parent,
/// copied into the row), stage from the formula (or, with flag 8, the parent's stage),
/// visible stage `min(stage, count − 1)`, then processed amount := amount. Fails
/// without writing when the row or a needed parent is missing, the count is unusable,
/// or the stage is out of range.
pub fn update_stage(table: &mut ProviderTable, row: usize) -> Result<StageUpdate> {
    let r = table.row(row)?;
    let count = r.stage_count;
    if count == 0 || count > MAX_STAGE_COUNT {
        return Err(ControlError::BadStageCount { row, count });
    }
    let flags = r.flags;
    let parent = if flags & (FLAG_PARENT_RATIO | FLAG_PARENT_STAGE) != 0 {
        let p = usize::try_from(r.parent)
            .ok()
            .and_then(|p| table.rows().get(p))
            .ok_or(ControlError::ParentMissing {
                row,
                parent: r.parent,
            })?;
        Some((p.ratio, p.stage))
    } else {
        None
    };
    let mut ratio = r.ratio;
    if let (Some((pr, _)), true) = (parent, flags & FLAG_PARENT_RATIO != 0) {
        ratio = pr;
    }
    let mut internal = stage_for_ratio(count, ratio)?.internal;
    if let (Some((_, ps)), true) = (parent, flags & FLAG_PARENT_STAGE != 0) {
        internal = ps;
    }
    let visible = internal.min(count - 1);
    let r = table.row_mut(row)?;
    let old_stage = r.stage;
    r.ratio = ratio;
    r.stage = internal;
    r.visible_stage = visible;
    r.processed_amount = r.amount;
    Ok(StageUpdate {
        row,
        old_stage,
        new_stage: internal,
        visible_stage: visible,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::amount::tests::table;

    /// §13.14: count 3, ratios [0.1, 0.4, 0.5, 1, 0] → [2, 1, 1, 0, 3], visible 2 for
    /// the sentinel.
    #[test]
    fn count_3_example() {
        let got: Vec<Stage> = [0.1f32, 0.4, 0.5, 1.0, 0.0]
            .iter()
            .map(|&r| stage_for_ratio(3, r).unwrap())
            .collect();
        assert_eq!(
            got.iter().map(|s| s.internal).collect::<Vec<_>>(),
            vec![2, 1, 1, 0, 3]
        );
        assert_eq!(
            got.iter().map(|s| s.visible).collect::<Vec<_>>(),
            vec![2, 1, 1, 0, 2]
        );
    }

    #[test]
    fn bad_inputs() {
        assert!(stage_for_ratio(0, 0.5).is_err());
        assert!(stage_for_ratio(MAX_STAGE_COUNT + 1, 0.5).is_err());
        assert!(stage_for_ratio(3, f32::NAN).is_err());
        assert!(matches!(
            stage_for_ratio(3, 1.5),
            Err(ControlError::StageOutOfRange { .. })
        ));
        assert!(matches!(
            stage_for_ratio(3, -0.5),
            Err(ControlError::StageOutOfRange { .. })
        ));
        assert_eq!(
            stage_for_ratio(1, 0.0).unwrap(),
            Stage {
                internal: 1,
                visible: 0
            }
        );
    }

    #[test]
    fn update_sets_processed_amount_and_visible_stage() {
        let mut t = table(&[100.0], &[50.0]);
        t.row_mut(0).unwrap().processed_amount = 99.0;
        let u = update_stage(&mut t, 0).unwrap();
        assert_eq!(
            (u.old_stage, u.new_stage, u.visible_stage, u.grew()),
            (0, 1, 1, true)
        );
        assert_eq!(t.row(0).unwrap().processed_amount, 50.0);
        // Unchanged stage still refreshes the processed amount.
        t.row_mut(0).unwrap().processed_amount = 1.0;
        let u = update_stage(&mut t, 0).unwrap();
        assert!(!u.grew());
        assert_eq!(t.row(0).unwrap().processed_amount, 50.0);
    }

    #[test]
    fn parent_ratio_and_stage_flags() {
        let mut t = table(&[100.0, 100.0, 100.0], &[10.0, 100.0, 100.0]);
        update_stage(&mut t, 0).unwrap();
        for (i, f) in [(1, FLAG_PARENT_RATIO), (2, FLAG_PARENT_STAGE)] {
            let r = t.row_mut(i).unwrap();
            r.parent = 0;
            r.flags = f;
            r.stage_count = 5;
        }
        let u1 = update_stage(&mut t, 1).unwrap();
        // Flag 4: the parent's ratio 0.1 with 5 stages → 5 - ceil(0.5) = 4.
        assert_eq!((u1.new_stage, t.row(1).unwrap().ratio), (4, 0.1));
        let u2 = update_stage(&mut t, 2).unwrap();
        // Flag 8: the parent's stage (2 of 3) is taken as is; own ratio kept.
        assert_eq!(
            (u2.new_stage, u2.visible_stage, t.row(2).unwrap().ratio),
            (2, 2, 1.0)
        );
        t.row_mut(2).unwrap().parent = -1;
        let before = t.clone();
        assert!(matches!(
            update_stage(&mut t, 2),
            Err(ControlError::ParentMissing { row: 2, parent: -1 })
        ));
        t.row_mut(2).unwrap().parent = 7;
        assert!(update_stage(&mut t, 2).is_err());
        t.row_mut(2).unwrap().parent = -1;
        assert_eq!(t, before);
        t.row_mut(2).unwrap().stage_count = 0;
        assert!(matches!(
            update_stage(&mut t, 2),
            Err(ControlError::BadStageCount { row: 2, count: 0 })
        ));
    }
}
