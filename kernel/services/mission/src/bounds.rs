//! Model bounds per prototype: what a control plugin builds its collision proxies from
//! (`Host::object_bounds`).
//!
//! For each prototype of the mission, the bounds are the union over its models (the
//! graph's [`crate::ModelUse`]s of the first object using it) of every node's LOD-0,
//! group-0 slot box (`Slot68` AABB, node space) transformed by the node's rest matrix
//! (the hierarchy sampled at time 0, FORMATS §7). **PD-BOUNDS-REST** (project
//! decision): the rest pose at time 0 and LOD 0 / group 0 stand for the model; the
//! sources give the collision shape records no layout (§16.31).
//!
//! A unit DAT component mounted on its root model ([`crate::ModelMount`], PD-UNIT-ROLE)
//! contributes its boxes at the mount: `mount node rest matrix × node rest matrix`, so a
//! tank's box includes its turret where it is drawn. A mount whose parent model cannot
//! be read is reported and the component falls back to the object transform.

use crate::LoadedMission;
use crate::graph::ModelMount;
use crate::source::GameData;
use glam::{Mat4, Vec3};
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

/// The rest-pose (time 0) model-space matrix of every node of `msh`.
pub fn rest_matrices(msh: &Msh<'_>) -> Result<Vec<Mat4>, String> {
    let poses = sample_all(msh, 0.0, SampleOptions::default()).map_err(|e| e.to_string())?;
    world_matrices(msh, &poses).map_err(|e| e.to_string())
}

/// The bounds of one MSH: LOD-0 group-0 slot boxes under the rest pose; `None` when no
/// node has such a slot or no box is finite.
pub fn msh_bounds(msh: &Msh<'_>) -> Result<Option<Aabb>, String> {
    msh_bounds_at(msh, Mat4::IDENTITY)
}

/// [`msh_bounds`] with every node placed under `placement` first (a mount matrix in the
/// object's space): each slot box corner goes through `placement × node rest matrix`.
pub fn msh_bounds_at(msh: &Msh<'_>, placement: Mat4) -> Result<Option<Aabb>, String> {
    let world = rest_matrices(msh)?;
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
            let p = (placement * m).transform_point3(c).to_array();
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
    let mut b = BoundsCache {
        data,
        per_model: BTreeMap::new(),
        rest: BTreeMap::new(),
        diagnostics: Vec::new(),
    };
    let mut first_object: BTreeMap<Vec<u8>, usize> = BTreeMap::new();
    let mut out: BTreeMap<Vec<u8>, Aabb> = BTreeMap::new();
    for m in &mission.graph.models {
        // Every object of one prototype has the same models: take the first object's.
        let first = *first_object.entry(m.prototype.clone()).or_insert(m.object);
        if first != m.object {
            continue;
        }
        let placement = m.mount.as_ref().and_then(|mount| b.mount_matrix(mount));
        if let Some(bx) = b.bounds(
            &m.archive,
            &m.name,
            m.mount.as_ref().filter(|_| placement.is_some()),
            placement,
        ) {
            out.entry(m.prototype.clone())
                .and_modify(|o| *o = o.union(bx))
                .or_insert(bx);
        }
    }
    (out, b.diagnostics)
}

/// Upper-cased `(archive, entry)`.
type ModelKey = (Vec<u8>, Vec<u8>);

/// A model and, when mounted, its parent model and mount node.
type PlacedKey = (ModelKey, Option<(ModelKey, u32)>);

fn model_key(archive: &[u8], name: &[u8]) -> ModelKey {
    (archive.to_ascii_uppercase(), name.to_ascii_uppercase())
}

fn label(archive: &[u8], name: &[u8]) -> String {
    format!("{}:{}", archive.escape_ascii(), name.escape_ascii())
}

/// Memoised model reads for [`model_bounds`]; every failure is reported once.
struct BoundsCache<'a, 'd> {
    data: &'a GameData<'d>,
    /// Per (model, mount): its bounds (`None`: none, or unreadable and reported).
    per_model: BTreeMap<PlacedKey, Option<Aabb>>,
    /// Per parent model: its rest matrices (`None`: unreadable and reported).
    rest: BTreeMap<ModelKey, Option<Vec<Mat4>>>,
    diagnostics: Vec<BoundsDiagnostic>,
}

impl BoundsCache<'_, '_> {
    /// The rest matrix of the mount node, `None` (reported) when the parent model cannot
    /// be read or the node is outside it.
    fn mount_matrix(&mut self, mount: &ModelMount) -> Option<Mat4> {
        let key = model_key(&mount.archive, &mount.name);
        if !self.rest.contains_key(&key) {
            let rest = self
                .data
                .entry_as(&mount.archive, &mount.name, Family::mesh())
                .map_err(|e| e.to_string())
                .and_then(|bytes| rest_matrices(&Msh::parse(&bytes).map_err(|e| e.to_string())?));
            let rest = match rest {
                Ok(r) => Some(r),
                Err(cause) => {
                    self.diagnostics.push(BoundsDiagnostic {
                        model: label(&mount.archive, &mount.name),
                        cause: format!("mount parent unreadable ({cause}); its components use the object transform"),
                    });
                    None
                }
            };
            self.rest.insert(key.clone(), rest);
        }
        let rest = self.rest.get(&key)?.as_ref()?;
        let m = rest.get(mount.node as usize).copied();
        if m.is_none() {
            self.diagnostics.push(BoundsDiagnostic {
                model: label(&mount.archive, &mount.name),
                cause: format!(
                    "mount node {} outside its {} nodes; the component uses the object transform",
                    mount.node,
                    rest.len()
                ),
            });
        }
        m
    }

    /// The bounds of `archive:name` placed under `placement` (identity when `None`).
    fn bounds(
        &mut self,
        archive: &[u8],
        name: &[u8],
        mount: Option<&ModelMount>,
        placement: Option<Mat4>,
    ) -> Option<Aabb> {
        let key = (
            model_key(archive, name),
            mount.map(|m| (model_key(&m.archive, &m.name), m.node)),
        );
        if let Some(b) = self.per_model.get(&key) {
            return *b;
        }
        let result = self
            .data
            .entry_as(archive, name, Family::mesh())
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                let msh = Msh::parse(&bytes).map_err(|e| e.to_string())?;
                msh_bounds_at(&msh, placement.unwrap_or(Mat4::IDENTITY))
            });
        let b = match result {
            Ok(b) => b,
            Err(cause) => {
                // Reported once per model, whatever its mounts.
                let what = label(archive, name);
                if !self
                    .diagnostics
                    .iter()
                    .any(|d| d.model == what && d.cause == cause)
                {
                    self.diagnostics
                        .push(BoundsDiagnostic { model: what, cause });
                }
                None
            }
        };
        self.per_model.insert(key, b);
        b
    }
}
