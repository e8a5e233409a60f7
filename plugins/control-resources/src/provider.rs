//! Provider rows (FORMATS §13.14 "Provider rows (from NDP)", §11.2; Control
//! `+0xB240`, `+0xA100`, `+0xDC40`).
//!
//! The NDP record layout is not documented (FORMATS §11.2: "keep records raw"), so the
//! caller decodes each row into an [`NdpRow`] (maximum volume, stage count, parent row,
//! flags). The parent is a **global** provider-row index (−1 = none) that the caller
//! resolves (tome 06: parents come from the model-node hierarchy, not from the
//! sidecar's local numbering).

use crate::error::{ControlError, Result};
use crate::x87::finite;

/// Runtime row stride of the native table (11 words).
pub const ROW_STRIDE: usize = 0x2C;
/// Offset of the selector-1 field (the ratio) in a native row; starts at 1.0.
pub const ROW_SELECTOR_1_OFFSET: usize = 0x14;
/// Depletion flag: set when the amount reaches 0, cleared on refill.
pub const FLAG_DEPLETED: u32 = 0x10;
/// Stage flag: take the parent's ratio.
pub const FLAG_PARENT_RATIO: u32 = 0x4;
/// Stage flag: take the parent's stage.
pub const FLAG_PARENT_STAGE: u32 = 0x8;

/// One NDP row as the caller decoded it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NdpRow {
    /// NDP `max_volume` (the row's capacity).
    pub max_volume: f32,
    /// Number of stages (model variants) of the row's node.
    pub stage_count: u32,
    /// Global provider-row index of the parent, −1 for none.
    pub parent: i32,
    /// Control flags of the row (bits 0x4, 0x8, 0x10, 0x40, 0x80, 0x100 are used here).
    pub flags: u32,
}

/// Where a component's NDP table comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderSource {
    /// The root model: contributes every row.
    Root,
    /// An INTO component: contributes none.
    Into,
    /// An EXTO component; `mounted` is false when its mount node did not resolve.
    Exto {
        /// Whether the mount resolved.
        mounted: bool,
    },
}

/// What one component added to the provider table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contribution {
    /// Rows `first..first + count` were appended (`count` may be 0).
    Rows {
        /// Index of the first appended row.
        first: usize,
        /// Rows appended.
        count: usize,
    },
    /// Nothing appended because the source contributes nothing (INTO).
    NoneFromInto,
    /// Nothing appended because the EXTO mount did not resolve.
    UnresolvedMount,
    /// A mounted EXTO with an empty table: the provider lookup became unavailable.
    LookupUnavailable,
}

/// One runtime provider row.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRow {
    /// Capacity (NDP `max_volume`; not multiplied).
    pub maximum: f32,
    /// Current amount.
    pub amount: f32,
    /// Last-processed amount (set to `amount` by a successful stage update).
    pub processed_amount: f32,
    /// Bits of the initial amount (`max_volume × multiplier`).
    pub initial_amount_bits: u32,
    /// Selector-1 value (+0x14): the ratio `amount / maximum`; starts at 1.0.
    pub ratio: f32,
    /// Control (internal) stage; `stage_count` is the depletion sentinel.
    pub stage: u32,
    /// Stage published to the model, `min(stage, stage_count − 1)`.
    pub visible_stage: u32,
    /// Number of stages.
    pub stage_count: u32,
    /// Global parent row, −1 for none.
    pub parent: i32,
    /// Control flags.
    pub flags: u32,
    /// Accumulator of applied amount changes.
    pub accumulator: f32,
    /// Component that contributed the row.
    pub component_id: i32,
    /// Row index in that component's NDP table.
    pub local_row: usize,
}

/// The per-object provider table: rows in load order (not padded to the MSH node
/// count), the object's total, and whether the lookup is available.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderTable {
    rows: Vec<ProviderRow>,
    total: f32,
    lookup_available: bool,
}

impl Default for ProviderTable {
    fn default() -> Self {
        Self::new()
    }
}

impl ProviderTable {
    /// An empty table with total 0 and the lookup available.
    pub fn new() -> Self {
        Self {
            rows: Vec::new(),
            total: 0.0,
            lookup_available: true,
        }
    }

    /// Adds one component's rows: root → all; INTO → none; mounted EXTO → all but the
    /// first (a one-row sidecar adds nothing); unresolved EXTO → none; mounted EXTO
    /// with an empty table → the lookup becomes unavailable. Each row starts with
    /// amount = processed = `f32(max_volume × multiplier)`, ratio 1.0, stage 0,
    /// accumulator 0; the total grows by each amount in row order
    /// (**PD-CTRL-TOTAL-INIT**). Fails (table unchanged) on a non-finite or negative
    /// `max_volume`, a non-finite multiplier or amount.
    pub fn push_component(
        &mut self,
        source: ProviderSource,
        component_id: i32,
        rows: &[NdpRow],
        multiplier: f32,
    ) -> Result<Contribution> {
        let skip = match source {
            ProviderSource::Root => 0,
            ProviderSource::Into => return Ok(Contribution::NoneFromInto),
            ProviderSource::Exto { mounted: false } => return Ok(Contribution::UnresolvedMount),
            ProviderSource::Exto { mounted: true } => {
                if rows.is_empty() {
                    self.lookup_available = false;
                    return Ok(Contribution::LookupUnavailable);
                }
                1
            }
        };
        finite(multiplier, "provider multiplier")?;
        let mut new = Vec::with_capacity(rows.len().saturating_sub(skip));
        let mut total = self.total;
        for (local_row, r) in rows.iter().enumerate().skip(skip) {
            let max = finite(r.max_volume, "NDP max_volume")?;
            if max < 0.0 {
                return Err(ControlError::BadMaximum {
                    row: self.rows.len() + new.len(),
                    maximum: max,
                });
            }
            let amount = finite(max * multiplier, "initial amount")?;
            total = finite(total + amount, "initial total")?;
            new.push(ProviderRow {
                maximum: max,
                amount,
                processed_amount: amount,
                initial_amount_bits: amount.to_bits(),
                ratio: 1.0,
                stage: 0,
                visible_stage: 0,
                stage_count: r.stage_count,
                parent: r.parent,
                flags: r.flags,
                accumulator: 0.0,
                component_id,
                local_row,
            });
        }
        let first = self.rows.len();
        let count = new.len();
        self.rows.extend(new);
        self.total = total;
        Ok(Contribution::Rows { first, count })
    }

    /// The rows in order.
    pub fn rows(&self) -> &[ProviderRow] {
        &self.rows
    }

    /// One row, or [`ControlError::RowOutOfRange`].
    pub fn row(&self, row: usize) -> Result<&ProviderRow> {
        self.rows.get(row).ok_or(ControlError::RowOutOfRange {
            row,
            row_count: self.rows.len(),
        })
    }

    pub(crate) fn row_mut(&mut self, row: usize) -> Result<&mut ProviderRow> {
        let row_count = self.rows.len();
        self.rows
            .get_mut(row)
            .ok_or(ControlError::RowOutOfRange { row, row_count })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The object's total.
    pub fn total(&self) -> f32 {
        self.total
    }

    /// Replaces the object's total (for callers that restore a saved state).
    pub fn set_total(&mut self, total: f32) {
        self.total = total;
    }

    /// Whether the provider lookup is available.
    pub fn lookup_available(&self) -> bool {
        self.lookup_available
    }

    /// Control `+0xDC40`, selector 1: the current type-1 value (ratio) of row `key`.
    /// Fails when the lookup is unavailable or the key selects no row.
    pub fn provider_value(&self, key: u32) -> Result<f32> {
        if !self.lookup_available {
            return Err(ControlError::ProviderLookupUnavailable);
        }
        usize::try_from(key)
            .ok()
            .and_then(|k| self.rows.get(k))
            .map(|r| r.ratio)
            .ok_or(ControlError::ProviderKeyOutOfRange {
                key,
                row_count: self.rows.len(),
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rows(n: usize, max: f32) -> Vec<NdpRow> {
        (0..n)
            .map(|_| NdpRow {
                max_volume: max,
                stage_count: 2,
                parent: -1,
                flags: 0,
            })
            .collect()
    }

    /// §13.14: 22 root rows + a 4-row EXTO sidecar → 25 rows after skipping; INTO adds
    /// none; not padded.
    #[test]
    fn min_l_n1_rows() {
        let mut t = ProviderTable::new();
        assert_eq!(
            t.push_component(ProviderSource::Root, 1, &rows(22, 1.0), 1.0)
                .unwrap(),
            Contribution::Rows {
                first: 0,
                count: 22
            }
        );
        assert_eq!(
            t.push_component(ProviderSource::Into, 2, &rows(3, 1.0), 1.0)
                .unwrap(),
            Contribution::NoneFromInto
        );
        let exto = t
            .push_component(
                ProviderSource::Exto { mounted: true },
                9,
                &rows(4, 6000.0),
                1.0,
            )
            .unwrap();
        assert_eq!(
            exto,
            Contribution::Rows {
                first: 22,
                count: 3
            }
        );
        assert_eq!(t.len(), 25);
        let r22 = t.row(22).unwrap();
        assert_eq!(
            (r22.local_row, r22.amount, r22.component_id),
            (1, 6000.0, 9)
        );
        assert_eq!(t.row(0).unwrap().amount, 1.0);
        assert_eq!(t.total(), 22.0 + 18000.0);
    }

    #[test]
    fn initial_row_state() {
        let mut t = ProviderTable::new();
        t.push_component(ProviderSource::Root, 1, &rows(1, 40.0), 0.5)
            .unwrap();
        let r = t.row(0).unwrap();
        assert_eq!(
            (r.maximum, r.amount, r.processed_amount, r.ratio),
            (40.0, 20.0, 20.0, 1.0)
        );
        assert_eq!(r.initial_amount_bits, 20.0f32.to_bits());
        assert_eq!((r.stage, r.accumulator), (0, 0.0));
        assert_eq!(t.provider_value(0).unwrap(), 1.0);
        assert!(matches!(
            t.provider_value(1),
            Err(ControlError::ProviderKeyOutOfRange {
                key: 1,
                row_count: 1
            })
        ));
    }

    #[test]
    fn exto_edge_cases() {
        let mut t = ProviderTable::new();
        t.push_component(ProviderSource::Root, 1, &rows(2, 1.0), 1.0)
            .unwrap();
        // A single-row sidecar contributes nothing.
        assert_eq!(
            t.push_component(
                ProviderSource::Exto { mounted: true },
                3,
                &rows(1, 1.0),
                1.0
            )
            .unwrap(),
            Contribution::Rows { first: 2, count: 0 }
        );
        // An unresolved mount contributes no rows.
        assert_eq!(
            t.push_component(
                ProviderSource::Exto { mounted: false },
                4,
                &rows(5, 1.0),
                1.0
            )
            .unwrap(),
            Contribution::UnresolvedMount
        );
        assert_eq!(t.len(), 2);
        assert!(t.lookup_available());
        // An empty EXTO table makes the lookup unavailable.
        assert_eq!(
            t.push_component(ProviderSource::Exto { mounted: true }, 5, &[], 1.0)
                .unwrap(),
            Contribution::LookupUnavailable
        );
        assert!(!t.lookup_available());
        assert_eq!(
            t.provider_value(0),
            Err(ControlError::ProviderLookupUnavailable)
        );
    }

    #[test]
    fn bad_rows_leave_table_unchanged() {
        let mut t = ProviderTable::new();
        t.push_component(ProviderSource::Root, 1, &rows(2, 1.0), 1.0)
            .unwrap();
        let before = t.clone();
        let mut bad = rows(3, 1.0);
        bad[2].max_volume = f32::NAN;
        assert!(
            t.push_component(ProviderSource::Root, 1, &bad, 1.0)
                .is_err()
        );
        bad[2].max_volume = -1.0;
        assert!(matches!(
            t.push_component(ProviderSource::Root, 1, &bad, 1.0),
            Err(ControlError::BadMaximum { row: 4, .. })
        ));
        assert!(
            t.push_component(ProviderSource::Root, 1, &rows(1, f32::MAX), 2.0)
                .is_err()
        );
        assert_eq!(t, before);
    }
}
