//! Stage propagation through the row tree (FORMATS §13.14 "Propagation", Control
//! `0x11220` then `0x11130`).
//!
//! The requested row is updated first; then its children are searched among rows with
//! a **higher index** (ascending), and each child is processed with its whole subtree
//! before the next sibling. For each child of a parent `p`:
//!
//! 1. `degraded = p`'s stage grew in this pass, or `p` has the depletion flag 0x10;
//!    if degraded, the child's whole amount is removed through the normal delta path
//!    ([`apply_delta`] with accumulation on, **PD-CTRL-PROP-ACCUMULATE**);
//! 2. flags, unless the child has the protective mask 0x140: parent flags `& 0xC0`
//!    set the child's 0x80; otherwise (the normal branch) degradation sets 0x100 and
//!    the child's 0x80 is cleared. The mask blocks only these flag changes;
//! 3. the child's stage is recomputed ([`update_stage`]), even when `p` did not
//!    degrade; then the child's own children follow.
//!
//! The branch structure of step 2 (the 0xC0 test taken on every visit, 0x100 only on
//! degradation) is our reading of the spec sentence (**PD-CTRL-PROP-FLAGS**). The
//! whole update runs on a copy and is published only on success.

use crate::amount::{AmountChange, apply_delta};
use crate::error::Result;
use crate::provider::{FLAG_DEPLETED, ProviderTable};
use crate::stage::{StageUpdate, update_stage};

/// Child flag set by parent flags 0xC0 (and cleared by the normal branch).
pub const FLAG_INHERITED: u32 = 0x80;
/// Child flag set by the normal branch on degradation.
pub const FLAG_DEGRADED: u32 = 0x100;
/// Parent flags that set the child's [`FLAG_INHERITED`].
pub const PARENT_INHERIT_MASK: u32 = 0xC0;
/// Protective mask: a child with any of these bits keeps its flags.
pub const PROTECTIVE_MASK: u32 = 0x140;

/// The outcome of one propagation (already published).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Propagation {
    /// Rows in the order they were updated (the requested row first).
    pub order: Vec<usize>,
    /// The stage update of each row, in `order`.
    pub stages: Vec<StageUpdate>,
    /// The full reductions of degraded children, in order.
    pub reductions: Vec<AmountChange>,
}

/// Updates `row` and its subtree as described in the module docs. On any error (a row
/// or parent missing, a bad stage count or maximum) the table is unchanged.
pub fn propagate(table: &mut ProviderTable, row: usize) -> Result<Propagation> {
    let mut work = table.clone();
    let mut out = Propagation::default();
    let first = update_stage(&mut work, row)?;
    out.order.push(row);
    out.stages.push(first);
    // Children lists, ascending, only among higher indices.
    let n = work.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, r) in work.rows().iter().enumerate() {
        if let Ok(p) = usize::try_from(r.parent) {
            if p < j {
                if let Some(list) = children.get_mut(p) {
                    list.push(j);
                }
            }
        }
    }
    // Explicit stack (no recursion): (parent, its stage update, next child position).
    let mut stack: Vec<(usize, StageUpdate, usize)> = vec![(row, first, 0)];
    while let Some(top) = stack.last_mut() {
        let (p, p_update, pos) = *top;
        let Some(&child) = children.get(p).and_then(|c| c.get(pos)) else {
            stack.pop();
            continue;
        };
        top.2 += 1;
        let parent_flags = work.row(p)?.flags;
        let degraded = p_update.grew() || parent_flags & FLAG_DEPLETED != 0;
        if degraded {
            let amount = work.row(child)?.amount;
            out.reductions
                .push(apply_delta(&mut work, child, -amount, true)?);
        }
        let c = work.row_mut(child)?;
        if c.flags & PROTECTIVE_MASK == 0 {
            if parent_flags & PARENT_INHERIT_MASK != 0 {
                c.flags |= FLAG_INHERITED;
            } else {
                if degraded {
                    c.flags |= FLAG_DEGRADED;
                }
                c.flags &= !FLAG_INHERITED;
            }
        }
        let u = update_stage(&mut work, child)?;
        out.order.push(child);
        out.stages.push(u);
        stack.push((child, u, 0));
    }
    *table = work;
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::amount::tests::table;
    use crate::error::ControlError;

    fn tree(parents: &[i32]) -> ProviderTable {
        let n = parents.len();
        let mut t = table(&vec![100.0; n], &vec![100.0; n]);
        for (i, &p) in parents.iter().enumerate() {
            t.row_mut(i).unwrap().parent = p;
        }
        t
    }

    /// §13.14: parents [-1,0,0,1,3] → order (from row 0) 0, 1, 3, 4, 2.
    #[test]
    fn order_1_3_4_2() {
        let mut t = tree(&[-1, 0, 0, 1, 3]);
        let p = propagate(&mut t, 0).unwrap();
        assert_eq!(p.order, vec![0, 1, 3, 4, 2]);
        assert!(p.reductions.is_empty());
        let p = propagate(&mut t, 1).unwrap();
        assert_eq!(p.order, vec![1, 3, 4]);
    }

    #[test]
    fn children_only_among_higher_indices() {
        // Row 0 names row 2 as parent: it is not visited as row 2's child.
        let mut t = tree(&[2, -1, -1, 2]);
        assert_eq!(propagate(&mut t, 2).unwrap().order, vec![2, 3]);
    }

    /// Degradation removes the children's amounts fully, recursively, and sets 0x100.
    #[test]
    fn degraded_parent_reduces_subtree() {
        let mut t = tree(&[-1, 0, 1, 0]);
        apply_delta(&mut t, 0, -60.0, false).unwrap();
        let p = propagate(&mut t, 0).unwrap();
        assert_eq!(p.stages[0].new_stage, 1);
        assert_eq!(p.order, vec![0, 1, 2, 3]);
        assert_eq!(
            p.reductions.iter().map(|c| c.row).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        for i in 1..4 {
            let r = t.row(i).unwrap();
            assert_eq!((r.amount, r.stage, r.visible_stage), (0.0, 3, 2));
            assert_eq!(
                r.flags & (FLAG_DEPLETED | FLAG_DEGRADED),
                FLAG_DEPLETED | FLAG_DEGRADED
            );
            assert_eq!(r.accumulator, -100.0);
        }
        assert_eq!(t.total(), 40.0);
    }

    /// A depleted parent degrades its children even when its stage did not grow.
    #[test]
    fn depleted_parent_without_stage_growth() {
        let mut t = tree(&[-1, 0]);
        apply_delta(&mut t, 0, -100.0, false).unwrap();
        update_stage(&mut t, 0).unwrap();
        let p = propagate(&mut t, 0).unwrap();
        assert!(!p.stages[0].grew());
        assert_eq!(p.reductions.len(), 1);
        assert_eq!(t.row(1).unwrap().amount, 0.0);
    }

    /// Child stages are recomputed even when the parent did not degrade; the normal
    /// branch clears the child's 0x80 without setting 0x100.
    #[test]
    fn recompute_without_degradation() {
        let mut t = tree(&[-1, 0]);
        {
            let r = t.row_mut(1).unwrap();
            r.amount = 50.0;
            r.ratio = 0.5;
            r.flags = FLAG_INHERITED;
        }
        let p = propagate(&mut t, 0).unwrap();
        assert!(p.reductions.is_empty());
        let r = t.row(1).unwrap();
        assert_eq!((r.stage, r.processed_amount, r.flags), (1, 50.0, 0));
    }

    #[test]
    fn parent_0xc0_sets_child_0x80() {
        let mut t = tree(&[-1, 0]);
        t.row_mut(0).unwrap().flags = 0x40;
        propagate(&mut t, 0).unwrap();
        assert_eq!(t.row(1).unwrap().flags, FLAG_INHERITED);
    }

    /// Mask 0x140 blocks only the flag changes: the reduction and recursion happen.
    #[test]
    fn protective_mask_blocks_only_flags() {
        let mut t = tree(&[-1, 0, 1]);
        t.row_mut(1).unwrap().flags = 0x40 | FLAG_INHERITED;
        apply_delta(&mut t, 0, -60.0, false).unwrap();
        let p = propagate(&mut t, 0).unwrap();
        assert_eq!(p.order, vec![0, 1, 2]);
        let r1 = t.row(1).unwrap();
        // 0x10 comes from the delta path, not from the blocked flag logic.
        assert_eq!(
            (r1.amount, r1.flags),
            (0.0, 0x40 | FLAG_INHERITED | FLAG_DEPLETED)
        );
        // Row 2 is unprotected; its parent (row 1) has 0x40 → child gets 0x80.
        let r2 = t.row(2).unwrap();
        assert_eq!(r2.amount, 0.0);
        assert_eq!(r2.flags & FLAG_INHERITED, FLAG_INHERITED);
    }

    #[test]
    fn failure_is_transactional() {
        let mut t = tree(&[-1, 0, 1]);
        apply_delta(&mut t, 0, -60.0, false).unwrap();
        t.row_mut(2).unwrap().stage_count = 0;
        let before = t.clone();
        assert!(matches!(
            propagate(&mut t, 0),
            Err(ControlError::BadStageCount { row: 2, .. })
        ));
        assert_eq!(t, before);
        assert!(propagate(&mut t, 9).is_err());
    }
}
