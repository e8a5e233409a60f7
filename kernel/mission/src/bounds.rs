//! Model bounds per prototype: what a control plugin builds its collision proxies from
//! (`Host::object_bounds`).
//!
//! For each prototype of the mission, the bounds are the union over its models (the
//! graph's [`crate::ModelUse`]s of the first object using it) of every node's LOD-0,
//! group-0 slot box (`Slot68` AABB, node space) transformed by the node's rest matrix
//! (the hierarchy sampled at time 0, FORMATS §7). **PD-BOUNDS-REST** (project
//! decision): the rest pose at time 0 and LOD 0 / group 0 stand for the model; the
//! sources give the collision shape records no layout (§16.31).

use crate::LoadedMission;
use crate::source::GameData;
use glam::Vec3;
use iron3d_msh::{Msh, SampleOptions, sample_all, world_matrices};
use iron3d_nres::Family;
use std::collections::BTreeMap;

/// An axis-aligned box in object space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: [f32; 3],
    /// Maximum corner.
    pub max: [f32; 3],
}

impl Aabb {
    fn union(self, o: Aabb) -> Aabb {
        Aabb {
            min: std::array::from_fn(|i| self.min[i].min(o.min[i])),
            max: std::array::from_fn(|i| self.max[i].max(o.max[i])),
        }
    }
}

/// A model whose bounds could not be computed (it is left out of its prototype's union).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundsDiagnostic {
    /// `archive:entry`.
    pub model: String,
    /// Why.
    pub cause: String,
}

/// The bounds of one MSH: LOD-0 group-0 slot boxes under the rest pose; `None` when no
/// node has such a slot or no box is finite.
pub fn msh_bounds(msh: &Msh<'_>) -> Result<Option<Aabb>, String> {
    let poses = sample_all(msh, 0.0, SampleOptions::default()).map_err(|e| e.to_string())?;
    let world = world_matrices(msh, &poses).map_err(|e| e.to_string())?;
    let mut out: Option<Aabb> = None;
    for (node, m) in msh.nodes().zip(world) {
        let Some(slot) = msh.slot(usize::from(node.slot_index[0])) else {
            continue;
        };
        let (lo, hi) = (Vec3::from(slot.aabb_min), Vec3::from(slot.aabb_max));
        if !lo.is_finite() || !hi.is_finite() || lo.cmpgt(hi).any() {
            continue;
        }
        for corner in 0..8 {
            let c = Vec3::new(
                if corner & 1 == 0 { lo.x } else { hi.x },
                if corner & 2 == 0 { lo.y } else { hi.y },
                if corner & 4 == 0 { lo.z } else { hi.z },
            );
            let p = m.transform_point3(c).to_array();
            let b = Aabb { min: p, max: p };
            out = Some(out.map_or(b, |o| o.union(b)));
        }
    }
    Ok(out)
}

/// The bounds of every prototype of `mission` that has at least one model with a slot
/// box, keyed by the prototype name as the TMA writes it; models that cannot be read
/// are reported, not fatal (their prototype falls back to its other models, or to the
/// consumer's default proxy).
pub fn model_bounds(
    data: &GameData<'_>,
    mission: &LoadedMission,
) -> (BTreeMap<Vec<u8>, Aabb>, Vec<BoundsDiagnostic>) {
    let _scope = data.cache.scope();
    let mut per_model: BTreeMap<(Vec<u8>, Vec<u8>), Option<Aabb>> = BTreeMap::new();
    let mut first_object: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    let mut out: BTreeMap<Vec<u8>, Aabb> = BTreeMap::new();
    let mut diagnostics = Vec::new();
    for m in &mission.graph.models {
        let key = (m.archive.to_ascii_uppercase(), m.name.to_ascii_uppercase());
        let b = *per_model.entry(key).or_insert_with(|| {
            let what = format!("{}:{}", m.archive.escape_ascii(), m.name.escape_ascii());
            let result = data
                .entry_as(&m.archive, &m.name, Family::mesh())
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    let msh = Msh::parse(&bytes).map_err(|e| e.to_string())?;
                    msh_bounds(&msh)
                });
            match result {
                Ok(b) => b,
                Err(cause) => {
                    diagnostics.push(BoundsDiagnostic { model: what, cause });
                    None
                }
            }
        });
        // Every object of one prototype has the same models: take the first object's.
        let first = *first_object.entry(m.prototype.clone()).or_insert(m.object);
        if let (true, Some(b)) = (first == m.object, b) {
            out.entry(m.prototype.clone())
                .and_modify(|o| *o = o.union(b))
                .or_insert(b);
        }
    }
    (out, diagnostics)
}
