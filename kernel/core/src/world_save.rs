//! The world as a save holds it: every slot (generations included, so handles held in
//! messages and plugins stay valid), the free list, the queue, the deferred lists, the
//! id map, the counters and the changes not yet reported — and its checked way back.

use super::{GameObject, ObjectStatus, Slot, Transform, World, WorldChange};
use crate::error::{KernelError, KernelResult};
use crate::identity::{IdLayout, Locality, ObjectHandle, OriginalObjectId};
use crate::props::PropertyBag;
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One object, its floats as they are (postcard keeps their bits).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct ObjectState {
    id: OriginalObjectId,
    locality: Locality,
    kind: u32,
    position: [f32; 3],
    orientation: [f32; 4],
    scale: [f32; 3],
    velocity: [f32; 3],
    behaviour_state: u32,
    active: bool,
    props: PropertyBag,
    prototype: Vec<u8>,
    status: ObjectStatus,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SlotState {
    generation: u32,
    object: Option<ObjectState>,
}

/// The whole world between ticks.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct WorldState {
    slots: Vec<SlotState>,
    free: Vec<u32>,
    queue: Vec<ObjectHandle>,
    queue_has_dead: bool,
    next_seq: u64,
    deferred_delete: Vec<ObjectHandle>,
    deferred_register: Vec<ObjectHandle>,
    ids: Vec<(OriginalObjectId, ObjectHandle)>,
    next_auto_index: u32,
    layout: IdLayout,
    retired_slots: u32,
    changes: Vec<WorldChange>,
}

fn bad(what: String) -> KernelError {
    KernelError::BadState(format!("world: {what}"))
}

impl World {
    /// The world's state (between ticks: no traversal running).
    pub(crate) fn to_state(&self) -> KernelResult<WorldState> {
        if self.in_calculation > 0 {
            return Err(KernelError::NestedTraversal {
                depth: self.in_calculation,
            });
        }
        let object = |o: &GameObject| ObjectState {
            id: o.id,
            locality: o.locality,
            kind: o.kind,
            position: o.transform.position.to_array(),
            orientation: o.transform.orientation.to_array(),
            scale: o.transform.scale.to_array(),
            velocity: o.velocity.to_array(),
            behaviour_state: o.behaviour_state,
            active: o.active,
            props: o.props.clone(),
            prototype: o.prototype.to_vec(),
            status: o.status,
        };
        Ok(WorldState {
            slots: self
                .slots
                .iter()
                .map(|s| SlotState {
                    generation: s.generation,
                    object: s.object.as_ref().map(object),
                })
                .collect(),
            free: self.free.clone(),
            queue: self.queue.clone(),
            queue_has_dead: self.queue_has_dead,
            next_seq: self.next_seq,
            deferred_delete: self.deferred_delete.clone(),
            deferred_register: self.deferred_register.clone(),
            ids: self.ids.iter().map(|(&k, &v)| (k, v)).collect(),
            next_auto_index: self.next_auto_index,
            layout: self.layout,
            retired_slots: self.retired_slots,
            changes: self.changes.clone(),
        })
    }

    /// A world from `state`, checked so that every handle it holds means what it meant
    /// when saved: free slots are empty, the id map points at live objects of those
    /// ids, the queue and the deferred lists name slots that exist, sequence numbers lie
    /// below the next one, and the id layout is `layout` (the kernel's).
    pub(crate) fn from_state(state: WorldState, layout: IdLayout) -> KernelResult<World> {
        if state.layout != layout {
            return Err(bad(format!(
                "id layout {:?}, the kernel uses {:?}",
                state.layout, layout
            )));
        }
        let n = state.slots.len();
        if n >= u32::MAX as usize {
            return Err(bad(format!("{n} slots")));
        }
        let mut slots = Vec::with_capacity(n);
        for (i, s) in state.slots.into_iter().enumerate() {
            let object = match s.object {
                None => None,
                Some(o) => {
                    let seq = match o.status {
                        ObjectStatus::Registered { seq } | ObjectStatus::PendingDelete { seq } => {
                            Some(seq)
                        }
                        _ => None,
                    };
                    if seq.is_some_and(|q| q >= state.next_seq) {
                        return Err(bad(format!(
                            "slot {i}: object {} registered as {seq:?}, the next sequence is {}",
                            o.id.0, state.next_seq
                        )));
                    }
                    Some(GameObject {
                        id: o.id,
                        locality: o.locality,
                        kind: o.kind,
                        transform: Transform {
                            position: Vec3::from_array(o.position),
                            orientation: Quat::from_array(o.orientation),
                            scale: Vec3::from_array(o.scale),
                        },
                        velocity: Vec3::from_array(o.velocity),
                        behaviour_state: o.behaviour_state,
                        active: o.active,
                        props: o.props,
                        prototype: o.prototype.into(),
                        status: o.status,
                    })
                }
            };
            slots.push(Slot {
                generation: s.generation,
                object,
            });
        }
        let live = |h: &ObjectHandle, what: &str| -> KernelResult<&GameObject> {
            slots
                .get(h.slot as usize)
                .filter(|s| s.generation == h.generation)
                .and_then(|s| s.object.as_ref())
                .ok_or_else(|| bad(format!("{what} names {h}, which holds no object")))
        };
        let exists = |h: &ObjectHandle, what: &str| -> KernelResult<()> {
            match slots.get(h.slot as usize) {
                Some(s) if h.generation <= s.generation => Ok(()),
                _ => Err(bad(format!("{what} names {h}, beyond the slot table"))),
            }
        };
        let mut free_seen = BTreeSet::new();
        for &f in &state.free {
            let ok = slots
                .get(f as usize)
                .is_some_and(|s| s.object.is_none() && s.generation != u32::MAX);
            if !ok || !free_seen.insert(f) {
                return Err(bad(format!(
                    "free slot {f} is taken, retired, repeated or absent"
                )));
            }
        }
        let mut ids = BTreeMap::new();
        for (id, h) in &state.ids {
            let o = live(h, "the id map")?;
            if o.id != *id {
                return Err(bad(format!(
                    "the id map gives {} to {h}, which holds {}",
                    id.0, o.id.0
                )));
            }
            if ids.insert(*id, *h).is_some() {
                return Err(bad(format!("id {} is mapped twice", id.0)));
            }
        }
        for h in &state.queue {
            exists(h, "the queue")?;
        }
        for h in &state.deferred_delete {
            exists(h, "the deferred deletions")?;
        }
        for h in &state.deferred_register {
            live(h, "the deferred registrations")?;
        }
        for c in &state.changes {
            if let WorldChange::Added(h, _) = c {
                exists(h, "a pending change")?;
            }
        }
        Ok(World {
            slots,
            free: state.free,
            queue: state.queue,
            queue_has_dead: state.queue_has_dead,
            next_seq: state.next_seq,
            in_calculation: 0,
            deferred_delete: state.deferred_delete,
            deferred_register: state.deferred_register,
            ids,
            next_auto_index: state.next_auto_index,
            layout: state.layout,
            retired_slots: state.retired_slots,
            changes: state.changes,
        })
    }
}
