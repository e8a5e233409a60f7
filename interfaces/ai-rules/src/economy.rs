//! The economy of a clan on top of the resource distributor ([`crate::distributor`],
//! FORMATS §13.12): mines produce, transports haul, storages hold, generators power and
//! plants build units.
//!
//! **From the spec:** the distributor's membership, shares, two passes and five totals
//! ([`crate::distributor`]); the clock ([`crate::schedule::StepClock`], PD-ECON-PERIOD);
//! ore class defaults and `CurrentOre` ([`crate::profile::ore_start`]); a generator's
//! output is `Transfer_Power_Out` per second (query `0x1005`: 10 gives 5 units in a
//! 500 ms step); a storage's offer rate is `Transfer_Ore_OffBoard` per second (query
//! `0x1002` with one device answering 1).
//!
//! **PD-ECON-MODEL** (the sources give the distributor, not what the buildings do with
//! it; this is ours):
//! * a **mine** (`0x80000004`) produces [`MINE_RATE`] ore per second into its own store
//!   up to its maximum (500); ore leaves it only in transports (it offers nothing to
//!   the distributor);
//! * a **transport** loads at [`LOAD_RATE`] per second while within [`DOCK_DISTANCE`]
//!   of the proxies of its mine, up to its maximum (2000 for `0x01002000`), and unloads
//!   at the same rate into a storage of its clan up to the storage's maximum (4000);
//! * a **storage** offers `min(stored, Transfer_Ore_OffBoard × dt, ORE_RESERVE −
//!   buffer)` ore per step: the clan's ore buffer never grows past [`ORE_RESERVE`], so
//!   ore stays in the storages until a plant asks for it;
//! * a **generator** offers `Transfer_Power_Out × dt` energy per step (not stored);
//! * a **plant** works through the unit DATs of its own `BuildDat.lst` category (the
//!   category whose mask is its class word) in order, one unit at a time: it asks for
//!   [`PLANT_ORE_RATE`] ore and [`PLANT_POWER`] energy per second until
//!   [`UNIT_ORE`] and [`UNIT_ENERGY`] are paid, then the unit is created beside it.
//!   A clan with [`CLAN_UNIT_CAP`] mobile units or more starts no new unit;
//! * a distributor step is all or nothing: the ledger stages every write and applies
//!   them only when the step succeeds (PD-ECON-VALUES).

use crate::distributor::{Flows, Grant, Ledger};
use crate::error::AiError;
use crate::profile::{Profile, ProfileFields, profile_for};
use crate::roster::Roster;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Ore a mine produces per second.
pub const MINE_RATE: f32 = 4.0;
/// Ore a transport loads or unloads per second.
pub const LOAD_RATE: f32 = 25.0;
/// Gap between proxies within which a transport loads or unloads.
pub const DOCK_DISTANCE: f32 = 4.0;
/// Most ore the clan's pool keeps between steps.
pub const ORE_RESERVE: f32 = 20.0;
/// Ore a plant takes per second while building.
pub const PLANT_ORE_RATE: f32 = 10.0;
/// Energy a plant takes per second while building.
pub const PLANT_POWER: f32 = 8.0;
/// Ore one unit costs.
pub const UNIT_ORE: f32 = 60.0;
/// Energy one unit costs.
pub const UNIT_ENERGY: f32 = 40.0;
/// Mobile units a clan may have before its plants stop.
pub const CLAN_UNIT_CAP: usize = 24;

/// A plant's unit in work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Production {
    /// The unit DAT path being built (as `BuildDat.lst` writes it).
    pub unit: String,
    /// Ore paid so far.
    pub ore: f32,
    /// Energy paid so far.
    pub energy: f32,
}

impl Production {
    /// Whether everything is paid.
    pub fn done(&self) -> bool {
        self.ore >= UNIT_ORE && self.energy >= UNIT_ENERGY
    }
}

/// A plant's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plant {
    /// The unit in work.
    pub work: Option<Production>,
    /// Units finished (the next one is `units[finished % len]`).
    pub finished: u32,
}

/// The distributor's view of a clan's members: agents and plants by id, with every
/// write staged until [`StagedLedger::apply`].
pub struct StagedLedger<'a> {
    agents: &'a Roster,
    plants: &'a BTreeMap<u32, Plant>,
    /// The clan's ore buffer at the start of the step.
    buffer: f32,
    /// Staged: ore taken from storages, ore and energy paid to plants.
    taken: BTreeMap<u32, f32>,
    paid: BTreeMap<u32, (f32, f32)>,
}

impl<'a> StagedLedger<'a> {
    /// A ledger over `agents` and `plants` for a clan whose buffer is `buffer`.
    pub fn new(agents: &'a Roster, plants: &'a BTreeMap<u32, Plant>, buffer: f32) -> Self {
        Self {
            agents,
            plants,
            buffer,
            taken: BTreeMap::new(),
            paid: BTreeMap::new(),
        }
    }

    /// The staged writes (apply them only when the step succeeded).
    pub fn into_writes(self) -> Writes {
        Writes {
            taken: self.taken,
            paid: self.paid,
        }
    }
}

/// The writes of a successful distributor step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Writes {
    taken: BTreeMap<u32, f32>,
    paid: BTreeMap<u32, (f32, f32)>,
}

impl Writes {
    /// Applies them: ore leaves the storages, plants are paid.
    pub fn apply(self, agents: &mut Roster, plants: &mut BTreeMap<u32, Plant>) {
        for (id, ore) in self.taken {
            if let Some(a) = agents.get_mut(id) {
                a.ore = (a.ore - ore).max(0.0);
            }
        }
        for (id, (ore, energy)) in self.paid {
            if let Some(w) = plants.get_mut(&id).and_then(|p| p.work.as_mut()) {
                w.ore += ore;
                w.energy += energy;
            }
        }
    }
}

impl Ledger for StagedLedger<'_> {
    fn resolve(&mut self, key: u32) -> bool {
        self.agents
            .get(key)
            .is_some_and(|a| a.activity != crate::behavior::Activity::Dead)
    }

    fn read(&mut self, key: u32, dt: f32) -> Result<Flows, AiError> {
        let Some(a) = self.agents.get(key) else {
            return Ok(Flows::default());
        };
        let profile = profile_for(a.class_word);
        let fields = ProfileFields::of(profile);
        let mut f = Flows::default();
        match profile {
            Some(Profile::Generator) => f.energy_out = fields.query_power_out() * dt,
            Some(Profile::Storage) => {
                let offer = fields.query_ore_offboard(&[1.0]) * dt;
                let taken = self.taken.get(&key).copied().unwrap_or(0.0);
                f.ore_out = (a.ore - taken)
                    .min(offer)
                    .min(ORE_RESERVE - self.buffer)
                    .max(0.0);
            }
            Some(Profile::Plant) => {
                if let Some(w) = self.plants.get(&key).and_then(|p| p.work.as_ref()) {
                    let (o, e) = self.paid.get(&key).copied().unwrap_or((0.0, 0.0));
                    f.ore_demand = (UNIT_ORE - w.ore - o).clamp(0.0, PLANT_ORE_RATE * dt);
                    f.energy_demand = (UNIT_ENERGY - w.energy - e).clamp(0.0, PLANT_POWER * dt);
                }
            }
            _ => {}
        }
        Ok(f)
    }

    fn apply(&mut self, key: u32, grant: Grant) -> Result<(), AiError> {
        if grant.ore_given > 0.0 {
            *self.taken.entry(key).or_default() += grant.ore_given;
        }
        if grant.ore > 0.0 || grant.energy > 0.0 {
            let p = self.paid.entry(key).or_default();
            p.0 += grant.ore;
            p.1 += grant.energy;
        }
        Ok(())
    }
}

/// Moves up to `rate × dt` ore from `from` (holding `from_ore`) into a store holding
/// `to_ore` of at most `to_max`; returns the amount moved.
pub fn transfer(from_ore: f32, to_ore: f32, to_max: f32, rate: f32, dt: f32) -> f32 {
    (rate * dt).min(from_ore).min(to_max - to_ore).max(0.0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::behavior::Agent;
    use crate::distributor::Distributor;
    use glam::Vec2;

    fn agent(id: u32, class: u32, ore: f32) -> Agent {
        let mut a = Agent::new(id, Some(0), class, Vec2::ZERO);
        a.ore = ore;
        a
    }

    #[test]
    fn a_generator_powers_a_plant_that_draws_ore_from_a_storage() {
        let mut agents = Roster::default();
        agents.insert(agent(1, 0x8000_0002, 0.0)); // generator
        agents.insert(agent(2, 0x8000_0008, 100.0)); // storage
        agents.insert(agent(3, 0x8000_0010, 0.0)); // plant
        let mut plants = BTreeMap::new();
        plants.insert(
            3,
            Plant {
                work: Some(Production {
                    unit: "UNITS\\Tank.dat".into(),
                    ore: 0.0,
                    energy: 0.0,
                }),
                finished: 0,
            },
        );
        let mut d = Distributor::default();
        for k in [1, 2, 3] {
            d.add(k, false);
        }
        let mut ledger = StagedLedger::new(&agents, &plants, d.ore_buffer);
        let t = d.step(0.5, &mut ledger).unwrap();
        // Generator: Transfer_Power_Out 10 × 0.5 s = 5 (the AutoDemo figure).
        assert_eq!(t.available_energy, 5.0);
        // Storage: Transfer_Ore_OffBoard 5 × 0.5 = 2.5.
        assert_eq!(t.available_ore, 2.5);
        // The plant asks for 4 energy (8/s) and 5 ore (10/s) and gets what its
        // pass-1 share allows (it is the only asker: all of the supply).
        assert_eq!(t.energy_consumption, 4.0);
        assert_eq!(t.ore_consumption, 2.5);
        ledger.into_writes().apply(&mut agents, &mut plants);
        assert_eq!(agents.get(2).unwrap().ore, 97.5);
        let w = plants[&3].work.as_ref().unwrap();
        assert_eq!((w.ore, w.energy), (2.5, 4.0));
    }

    #[test]
    fn storages_keep_their_ore_when_nobody_asks() {
        let mut agents = Roster::default();
        agents.insert(agent(2, 0x8000_0008, 1000.0));
        let mut plants = BTreeMap::new();
        let mut d = Distributor::default();
        d.add(2, false);
        for _ in 0..100 {
            let mut ledger = StagedLedger::new(&agents, &plants, d.ore_buffer);
            d.step(0.5, &mut ledger).unwrap();
            ledger.into_writes().apply(&mut agents, &mut plants);
        }
        assert_eq!(d.ore_buffer, ORE_RESERVE);
        assert_eq!(agents.get(2).unwrap().ore, 1000.0 - ORE_RESERVE);
    }

    #[test]
    fn a_failed_step_writes_nothing() {
        struct Broken<'a>(StagedLedger<'a>);
        impl Ledger for Broken<'_> {
            fn resolve(&mut self, k: u32) -> bool {
                self.0.resolve(k)
            }
            fn read(&mut self, k: u32, dt: f32) -> Result<Flows, AiError> {
                let mut f = self.0.read(k, dt)?;
                if k == 3 {
                    f.ore_demand = f32::NAN;
                }
                Ok(f)
            }
            fn apply(&mut self, k: u32, g: Grant) -> Result<(), AiError> {
                self.0.apply(k, g)
            }
        }
        let mut agents = Roster::default();
        agents.insert(agent(2, 0x8000_0008, 100.0));
        agents.insert(agent(3, 0x8000_0004, 0.0));
        let plants = BTreeMap::new();
        let mut d = Distributor::default();
        d.add(2, false);
        d.add(3, false);
        let mut ledger = Broken(StagedLedger::new(&agents, &plants, 0.0));
        assert!(d.step(0.5, &mut ledger).is_err());
        // The ledger is dropped uncommitted: the storage keeps its ore.
        assert_eq!(agents.get(2).unwrap().ore, 100.0);
    }

    #[test]
    fn transfers_respect_rate_stock_and_room() {
        assert_eq!(transfer(100.0, 0.0, 2000.0, LOAD_RATE, 0.1), 2.5);
        assert_eq!(transfer(1.0, 0.0, 2000.0, LOAD_RATE, 0.1), 1.0);
        assert_eq!(transfer(100.0, 1999.0, 2000.0, LOAD_RATE, 0.1), 1.0);
        assert_eq!(transfer(100.0, 2000.0, 2000.0, LOAD_RATE, 0.1), 0.0);
    }
}
