//! The resource distributor of one clan (FORMATS §13.12, tome 06-extended "Регулярная
//! передача ресурсов").
//!
//! **From the spec:**
//! * Membership: a placed object joins the list of SuperAI slot `raw_after_resource`
//!   only when that slot exists and its unit DAT class word has the high bit set
//!   ([`joins`]); slots are never renumbered.
//! * Shares: one member holds the whole weight; two hold half each; a third gets about
//!   one third and the rest is split over the existing **mutable** rows; a **pinned**
//!   row keeps its weight; re-adding an object neither duplicates its row nor touches
//!   it.
//! * One step: pass 1 walks the list and gathers supplies and demands; pass 2 walks it
//!   again, **re-resolves each object**, re-reads the getters and applies the
//!   allocation, so values may change between the passes (objects 41, 42 are visited
//!   41, 42, 41, 42: a producer reporting 4 then 1 leaves a receiver at 6 with 7).
//!   Some object states skip a row before any query. Each step yields five totals.
//!
//! **Project decisions** (the spec gives no formulas for these):
//! * **PD-ECON-SHARES**: the total weight is 1. A new row gets `1 / (n + 1)` (`f32`
//!   division), the pinned rows keep theirs, and the mutable rows are scaled by one
//!   factor so the sum stays 1 — split equally when their sum is zero (the zero-sum
//!   case); with no mutable row the new row takes the remainder. When the pinned rows
//!   leave less than `1 / (n + 1)`, the new row gets what is left and the mutable rows
//!   get zero. Removing a row rescales the mutable rows the same way.
//! * **PD-ECON-STEP**: pass 1 fixes each consumer's cap: its share of the pass-1
//!   supply (plus the carried ore buffer) among the rows that asked in pass 1. Pass 2
//!   keeps a pool: a row's re-read output is added when the row is visited, and a
//!   consumer then gets `min(re-read demand, cap, pool)`. Producers give all their
//!   output; ore left in the pool is the clan's **ore buffer**, carried to the next
//!   step; energy is not stored.
//! * **PD-ECON-TOTALS**: available energy and ore = the pass-2 outputs; ore buffer =
//!   the pool left after the step; energy and ore consumption = what was granted.
//! * **PD-ECON-VALUES**: a getter answering NaN, an infinity or a negative amount fails
//!   the step with [`AiError`]; the [`Ledger`] is expected to stage its writes and
//!   drop them on error (a step is all or nothing).

use crate::error::AiError;
use crate::profile::is_resource_class;
use crate::superai::SUPER_AI_SLOTS;

/// Whether a placed object joins a distributor: the slot exists (its package loaded)
/// and the class word's high bit is set.
pub fn joins(slot: u32, slot_exists: impl Fn(usize) -> bool, class_word: u32) -> bool {
    (slot as usize) < SUPER_AI_SLOTS && slot_exists(slot as usize) && is_resource_class(class_word)
}

/// One member row.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// The member's object key (its original id).
    pub key: u32,
    /// Its weight (PD-ECON-SHARES).
    pub share: f32,
    /// A pinned row keeps its weight when rows are added or removed.
    pub pinned: bool,
}

/// What one pass-1 or pass-2 read of a row answers for this step (amounts, not rates).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Flows {
    /// Energy produced during the step.
    pub energy_out: f32,
    /// Ore offered during the step.
    pub ore_out: f32,
    /// Energy the row asks for.
    pub energy_demand: f32,
    /// Ore the row asks for.
    pub ore_demand: f32,
}

/// What pass 2 gives a row.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Grant {
    /// Energy received.
    pub energy: f32,
    /// Ore received.
    pub ore: f32,
    /// Ore taken from the row (its whole re-read offer).
    pub ore_given: f32,
}

/// The five totals of one clan step.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Totals {
    /// Energy produced (pass 2).
    pub available_energy: f32,
    /// Ore offered (pass 2).
    pub available_ore: f32,
    /// Ore left in the pool, carried to the next step.
    pub ore_buffer: f32,
    /// Energy granted.
    pub energy_consumption: f32,
    /// Ore granted.
    pub ore_consumption: f32,
}

/// The objects behind the rows, as the distributor sees them.
pub trait Ledger {
    /// Resolves the row's object again; `false` when it is gone or in a state that
    /// skips the row (before any query).
    fn resolve(&mut self, key: u32) -> bool;
    /// Reads the row's getters for a step of `dt` seconds.
    fn read(&mut self, key: u32, dt: f32) -> Result<Flows, AiError>;
    /// Applies a grant (pass 2).
    fn apply(&mut self, key: u32, grant: Grant) -> Result<(), AiError>;
}

/// One clan's distributor.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Distributor {
    /// Member rows in registration order.
    pub rows: Vec<Row>,
    /// Ore carried between steps (PD-ECON-STEP).
    pub ore_buffer: f32,
}

fn checked(key: u32, f: Flows) -> Result<Flows, AiError> {
    for (what, value) in [
        ("energy output", f.energy_out),
        ("ore output", f.ore_out),
        ("energy demand", f.energy_demand),
        ("ore demand", f.ore_demand),
    ] {
        if !value.is_finite() {
            return Err(AiError::NotFinite { key, what, value });
        }
        if value < 0.0 {
            return Err(AiError::Negative { key, what, value });
        }
    }
    Ok(f)
}

impl Distributor {
    /// Adds `key` (PD-ECON-SHARES); `false` when it is a member already (nothing
    /// changes).
    pub fn add(&mut self, key: u32, pinned: bool) -> bool {
        if self.rows.iter().any(|r| r.key == key) {
            return false;
        }
        let n = self.rows.len();
        let pinned_sum: f32 = self.rows.iter().filter(|r| r.pinned).map(|r| r.share).sum();
        let mut share = 1.0f32 / (n as f32 + 1.0);
        let free = (1.0 - pinned_sum).max(0.0);
        if share > free {
            share = free;
        }
        self.rows.push(Row { key, share, pinned });
        self.rescale_mutable(n, free - share);
        true
    }

    /// Pins or unpins `key`'s row; `false` when it is not a member.
    pub fn set_pinned(&mut self, key: u32, pinned: bool) -> bool {
        match self.rows.iter_mut().find(|r| r.key == key) {
            Some(r) => {
                r.pinned = pinned;
                true
            }
            None => false,
        }
    }

    /// Removes `key`'s row (if any) and rescales the mutable rows.
    pub fn remove(&mut self, key: u32) -> bool {
        let Some(i) = self.rows.iter().position(|r| r.key == key) else {
            return false;
        };
        self.rows.remove(i);
        let pinned_sum: f32 = self.rows.iter().filter(|r| r.pinned).map(|r| r.share).sum();
        let n = self.rows.len();
        self.rescale_mutable(n, (1.0 - pinned_sum).max(0.0));
        true
    }

    /// Gives the mutable rows among the first `n` a total of `target`; with none, the
    /// remainder goes to the row after them (the new one), if any.
    fn rescale_mutable(&mut self, n: usize, target: f32) {
        let mutable: Vec<usize> = (0..n).filter(|&i| !self.rows[i].pinned).collect();
        if mutable.is_empty() {
            if let Some(new) = self.rows.get_mut(n) {
                new.share += target;
            }
            return;
        }
        let sum: f32 = mutable.iter().map(|&i| self.rows[i].share).sum();
        if sum > 0.0 {
            let factor = target / sum;
            for &i in &mutable {
                self.rows[i].share *= factor;
            }
        } else {
            let each = target / mutable.len() as f32;
            for &i in &mutable {
                self.rows[i].share = each;
            }
        }
    }

    /// One step of `dt` seconds (see the module docs). A zero step does nothing.
    pub fn step(&mut self, dt: f32, ledger: &mut dyn Ledger) -> Result<Totals, AiError> {
        let mut totals = Totals {
            ore_buffer: self.ore_buffer,
            ..Totals::default()
        };
        if dt == 0.0 {
            return Ok(totals);
        }
        // Pass 1: supplies and demands.
        let mut first: Vec<Option<Flows>> = Vec::with_capacity(self.rows.len());
        let (mut supply_e, mut supply_o) = (0.0f32, self.ore_buffer);
        let (mut askers_e, mut askers_o) = (0.0f32, 0.0f32);
        for r in &self.rows {
            if !ledger.resolve(r.key) {
                first.push(None);
                continue;
            }
            let f = checked(r.key, ledger.read(r.key, dt)?)?;
            supply_e += f.energy_out;
            supply_o += f.ore_out;
            if f.energy_demand > 0.0 {
                askers_e += r.share;
            }
            if f.ore_demand > 0.0 {
                askers_o += r.share;
            }
            first.push(Some(f));
        }
        // A row that did not ask in pass 1, or holds no weight, gets no share.
        let cap = |share: f32, asked: bool, supply: f32, askers: f32| {
            if !asked || askers <= 0.0 || share <= 0.0 {
                0.0
            } else {
                supply * (share / askers)
            }
        };
        // Pass 2: re-resolve, re-read, apply.
        let (mut pool_e, mut pool_o) = (0.0f32, self.ore_buffer);
        for (r, f1) in self.rows.iter().zip(&first) {
            if !ledger.resolve(r.key) {
                continue;
            }
            let f = checked(r.key, ledger.read(r.key, dt)?)?;
            pool_e += f.energy_out;
            pool_o += f.ore_out;
            totals.available_energy += f.energy_out;
            totals.available_ore += f.ore_out;
            let (cap_e, cap_o) = match f1 {
                Some(f1) => (
                    cap(r.share, f1.energy_demand > 0.0, supply_e, askers_e),
                    cap(r.share, f1.ore_demand > 0.0, supply_o, askers_o),
                ),
                None => (0.0, 0.0),
            };
            let energy = f.energy_demand.min(cap_e).min(pool_e).max(0.0);
            let ore = f.ore_demand.min(cap_o).min(pool_o).max(0.0);
            pool_e -= energy;
            pool_o -= ore;
            totals.energy_consumption += energy;
            totals.ore_consumption += ore;
            ledger.apply(
                r.key,
                Grant {
                    energy,
                    ore,
                    ore_given: f.ore_out,
                },
            )?;
        }
        self.ore_buffer = pool_o;
        totals.ore_buffer = pool_o;
        Ok(totals)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn membership_needs_the_slot_and_the_high_bit() {
        let loaded = |n: usize| n == 1;
        assert!(joins(1, loaded, 0x8000_0010));
        assert!(!joins(0, loaded, 0x8000_0010), "slot 0 has no package");
        assert!(!joins(1, loaded, 0x0100_8000), "no high bit");
        assert!(!joins(64, |_| true, 0x8000_0010));
    }

    #[test]
    fn two_then_three_members() {
        let mut d = Distributor::default();
        assert!(d.add(4, false));
        assert_eq!(d.rows[0].share, 1.0);
        assert!(d.add(6, false));
        assert_eq!((d.rows[0].share, d.rows[1].share), (0.5, 0.5));
        assert!(d.add(8, false));
        let s: Vec<f32> = d.rows.iter().map(|r| r.share).collect();
        assert_eq!(s[2], 1.0 / 3.0);
        assert!((s[0] - 1.0 / 3.0).abs() < 1e-6 && s[0] == s[1]);
        assert!((s.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // Re-adding changes nothing.
        let before = d.clone();
        assert!(!d.add(6, true));
        assert_eq!(d, before);
    }

    #[test]
    fn a_pinned_row_keeps_its_weight() {
        let mut d = Distributor::default();
        d.add(1, false);
        d.add(2, false);
        assert_eq!((d.rows[0].share, d.rows[1].share), (0.5, 0.5));
        assert!(d.set_pinned(1, true));
        d.add(3, false);
        assert_eq!(d.rows[0].share, 0.5);
        assert_eq!(d.rows[2].share, 1.0 / 3.0);
        assert!((d.rows[1].share - (0.5 - 1.0 / 3.0)).abs() < 1e-6);
        // Zero-sum mutable rows are split equally; a full pin leaves the newcomer 0.
        let mut z = Distributor {
            rows: vec![
                Row {
                    key: 1,
                    share: 0.0,
                    pinned: false,
                },
                Row {
                    key: 2,
                    share: 0.0,
                    pinned: false,
                },
            ],
            ..Distributor::default()
        };
        z.add(3, false);
        assert_eq!(z.rows[0].share, z.rows[1].share);
        assert!((z.rows.iter().map(|r| r.share).sum::<f32>() - 1.0).abs() < 1e-6);
        let mut full = Distributor {
            rows: vec![Row {
                key: 1,
                share: 1.0,
                pinned: true,
            }],
            ..Distributor::default()
        };
        full.add(2, false);
        assert_eq!(full.rows[1].share, 0.0);
        // Removing rescales the mutable rows back to the whole weight.
        d.remove(3);
        assert_eq!(d.rows[0].share, 0.5);
        assert!((d.rows[1].share - 0.5).abs() < 1e-6);
    }

    /// A ledger whose answers are scripted per visit.
    #[derive(Default)]
    struct Script {
        answers: BTreeMap<u32, Vec<Flows>>,
        amounts: BTreeMap<u32, f32>,
        visits: Vec<u32>,
        gone: Vec<u32>,
    }

    impl Ledger for Script {
        fn resolve(&mut self, key: u32) -> bool {
            !self.gone.contains(&key)
        }
        fn read(&mut self, key: u32, _dt: f32) -> Result<Flows, AiError> {
            self.visits.push(key);
            let list = self.answers.get_mut(&key).unwrap();
            Ok(if list.len() > 1 {
                list.remove(0)
            } else {
                list[0]
            })
        }
        fn apply(&mut self, key: u32, g: Grant) -> Result<(), AiError> {
            *self.amounts.entry(key).or_default() += g.energy + g.ore;
            Ok(())
        }
    }

    #[test]
    fn the_41_42_example() {
        let mut d = Distributor::default();
        d.add(41, false);
        d.add(42, false);
        let mut l = Script::default();
        let producer = |e| Flows {
            energy_out: e,
            ..Flows::default()
        };
        l.answers.insert(41, vec![producer(4.0), producer(1.0)]);
        l.answers.insert(
            42,
            vec![Flows {
                energy_demand: 100.0,
                ..Flows::default()
            }],
        );
        l.amounts.insert(42, 6.0);
        let t = d.step(1.0, &mut l).unwrap();
        assert_eq!(l.visits, [41, 42, 41, 42]);
        assert_eq!(l.amounts[&42], 7.0);
        assert_eq!(t.available_energy, 1.0);
        assert_eq!(t.energy_consumption, 1.0);
    }

    #[test]
    fn shares_cap_consumers_and_ore_is_buffered() {
        let mut d = Distributor::default();
        for k in [1, 2, 3] {
            d.add(k, false);
        }
        let mut l = Script::default();
        l.answers.insert(
            1,
            vec![Flows {
                ore_out: 9.0,
                ..Flows::default()
            }],
        );
        l.answers.insert(
            2,
            vec![Flows {
                ore_demand: 100.0,
                ..Flows::default()
            }],
        );
        l.answers.insert(
            3,
            vec![Flows {
                ore_demand: 2.0,
                ..Flows::default()
            }],
        );
        let t = d.step(0.5, &mut l).unwrap();
        // Two askers with equal weights: caps 4.5 each; row 3 wants only 2.
        assert_eq!(l.amounts[&2], 4.5);
        assert_eq!(l.amounts[&3], 2.0);
        assert_eq!(t.available_ore, 9.0);
        assert_eq!(t.ore_consumption, 6.5);
        assert_eq!(t.ore_buffer, 2.5);
        assert_eq!(d.ore_buffer, 2.5);
        // A zero step does nothing.
        let visits = l.visits.len();
        assert_eq!(d.step(0.0, &mut l).unwrap().ore_buffer, 2.5);
        assert_eq!(l.visits.len(), visits);
    }

    #[test]
    fn skipped_rows_and_bad_values() {
        let mut d = Distributor::default();
        d.add(1, false);
        d.add(2, false);
        let mut l = Script::default();
        l.answers.insert(
            1,
            vec![Flows {
                energy_out: f32::NAN,
                ..Flows::default()
            }],
        );
        l.answers.insert(2, vec![Flows::default()]);
        l.gone.push(2);
        let e = d.step(1.0, &mut l).unwrap_err();
        assert!(matches!(e, AiError::NotFinite { key: 1, .. }), "{e}");
        assert_eq!(l.visits, [1], "a skipped row is never read");
        l.answers.insert(
            1,
            vec![Flows {
                ore_demand: -1.0,
                ..Flows::default()
            }],
        );
        assert!(matches!(
            d.step(1.0, &mut l),
            Err(AiError::Negative { key: 1, .. })
        ));
    }
}
