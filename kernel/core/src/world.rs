//! The World3D object queue: slots, two-step creation, stable traversal order and deferred deletion.
//!
//! Objects live in a slot table addressed by generation-checked [`ObjectHandle`]s.
//! Creating an object and adding it to the game are two steps: a constructed object
//! is invisible to traversal until it is registered. The queue keeps registration
//! order. While a traversal is running (`in_calculation` depth > 0) deletions and
//! registrations are deferred and applied by [`World::apply_deferred`].

use crate::error::{KernelError, KernelResult};
use crate::identity::{IdLayout, Locality, ObjectHandle, OriginalObjectId};
use crate::props::PropertyBag;
use glam::{Quat, Vec3};
use std::collections::BTreeMap;

/// Position, orientation and scale of an object in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// World position.
    pub position: Vec3,
    /// Orientation (not renormalised by the kernel).
    pub orientation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            position: Vec3::ZERO,
            orientation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }
}

/// What a loader or spawner fills in before an object exists.
#[derive(Clone, Debug, Default)]
pub struct ObjectDesc {
    /// The original game's id (unique among registered objects).
    pub id: Option<OriginalObjectId>,
    /// Prototype / type number (opaque to the kernel).
    pub kind: u32,
    /// Initial transform.
    pub transform: Transform,
    /// Initial velocity.
    pub velocity: Vec3,
    /// Ordered property bag.
    pub props: PropertyBag,
    /// The prototype the object was made from: the TMA resource name (a prototype key
    /// or a unit DAT path) as raw bytes, opaque to the kernel; empty for none. Render
    /// data and other per-prototype resources are found by it.
    pub prototype: Vec<u8>,
}

/// Lifecycle state of an object in its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ObjectStatus {
    /// Constructed (`CreateObject`), not yet visible to traversal.
    Constructed,
    /// `AddObjectToGame` was called during a traversal; it joins the queue at the next boundary.
    RegistrationQueued,
    /// In the queue; `seq` is its registration sequence number.
    Registered {
        /// Registration sequence (stable insertion order).
        seq: u64,
    },
    /// Deletion requested during a traversal; released at the next boundary.
    PendingDelete {
        /// Registration sequence it had.
        seq: u64,
    },
}

/// A runtime object of the World3D queue.
#[derive(Clone, Debug)]
pub struct GameObject {
    /// The original game's logical id.
    pub id: OriginalObjectId,
    /// Local or mirror.
    pub locality: Locality,
    /// Prototype / type number (opaque to the kernel).
    pub kind: u32,
    /// World transform.
    pub transform: Transform,
    /// Linear velocity in world units per second.
    pub velocity: Vec3,
    /// AI / behaviour state id (part of the state hash).
    pub behaviour_state: u32,
    /// Whether the object takes part in calculation.
    pub active: bool,
    /// Ordered property bag.
    pub props: PropertyBag,
    /// The prototype it was made from (see [`ObjectDesc::prototype`]); shared, never
    /// changed after creation.
    pub prototype: std::sync::Arc<[u8]>,
    status: ObjectStatus,
}

impl GameObject {
    /// Current lifecycle state.
    pub fn status(&self) -> ObjectStatus {
        self.status
    }

    /// True once the object is in the queue (including a pending delete).
    pub fn is_registered(&self) -> bool {
        matches!(
            self.status,
            ObjectStatus::Registered { .. } | ObjectStatus::PendingDelete { .. }
        )
    }

    /// True when its deletion is requested and not yet applied.
    pub fn is_pending_delete(&self) -> bool {
        matches!(self.status, ObjectStatus::PendingDelete { .. })
    }
}

/// How a delete request is carried out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteMode {
    /// `DeleteGameObject` default: deferred while a traversal runs.
    Normal,
    /// Forced: detach and release at once even during traversal (the traversal skips it).
    Forced,
}

/// What a delete request did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// The object was detached and released now.
    Released,
    /// The deletion is queued for the next boundary.
    Deferred,
    /// A deletion was already pending; nothing changed.
    AlreadyPending,
    /// The handle no longer names a live object; nothing changed.
    AlreadyGone,
}

/// Counts of what [`World::apply_deferred`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeferredReport {
    /// Objects released.
    pub deleted: usize,
    /// Objects that joined the queue.
    pub registered: usize,
}

#[derive(Debug)]
struct Slot {
    generation: u32,
    object: Option<GameObject>,
}

/// The object queue and slot table.
#[derive(Debug)]
pub struct World {
    slots: Vec<Slot>,
    free: Vec<u32>,
    queue: Vec<ObjectHandle>,
    queue_has_dead: bool,
    next_seq: u64,
    in_calculation: u32,
    deferred_delete: Vec<ObjectHandle>,
    deferred_register: Vec<ObjectHandle>,
    ids: BTreeMap<OriginalObjectId, ObjectHandle>,
    next_auto_index: u32,
    layout: IdLayout,
    retired_slots: u32,
    changes: Vec<WorldChange>,
}

/// An object joining or leaving the game, reported to systems at the next boundary
/// ([`crate::System::on_objects_changed`]) in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WorldChange {
    /// Registered in the queue (mission load, creation, a deferred registration).
    Added(ObjectHandle, OriginalObjectId),
    /// Removed from the game (deleted, killed); its handle is already stale.
    Removed(OriginalObjectId),
}

impl Default for World {
    fn default() -> Self {
        Self::new(IdLayout::PROJECT_DEFAULT)
    }
}

impl World {
    /// An empty world whose id views use `layout`.
    pub fn new(layout: IdLayout) -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            queue: Vec::new(),
            queue_has_dead: false,
            next_seq: 0,
            in_calculation: 0,
            deferred_delete: Vec::new(),
            deferred_register: Vec::new(),
            ids: BTreeMap::new(),
            next_auto_index: 0,
            layout,
            retired_slots: 0,
            changes: Vec::new(),
        }
    }

    /// Takes the objects added and removed since the last call, in order.
    pub fn take_changes(&mut self) -> Vec<WorldChange> {
        std::mem::take(&mut self.changes)
    }

    /// The changes not yet taken (part of the state hash).
    pub fn pending_changes(&self) -> &[WorldChange] {
        &self.changes
    }

    /// The id layout used for owner/class/index views.
    pub fn id_layout(&self) -> IdLayout {
        self.layout
    }

    /// `CreateObject`: constructs a local object, invisible to traversal until [`World::add_to_game`].
    pub fn create(&mut self, desc: ObjectDesc) -> KernelResult<ObjectHandle> {
        self.create_with(desc, Locality::Local)
    }

    /// `CreateMirrorObject`: constructs a mirror of a remote player's object.
    pub fn create_mirror(
        &mut self,
        desc: ObjectDesc,
        owner_player: u32,
    ) -> KernelResult<ObjectHandle> {
        self.create_with(desc, Locality::Mirror { owner_player })
    }

    fn create_with(&mut self, desc: ObjectDesc, locality: Locality) -> KernelResult<ObjectHandle> {
        let id = match desc.id {
            Some(id) => id,
            None => self.auto_id(),
        };
        let object = GameObject {
            id,
            locality,
            kind: desc.kind,
            transform: desc.transform,
            velocity: desc.velocity,
            behaviour_state: 0,
            active: true,
            props: desc.props,
            prototype: desc.prototype.into(),
            status: ObjectStatus::Constructed,
        };
        if let Some(slot) = self.free.pop() {
            let s = &mut self.slots[slot as usize];
            s.object = Some(object);
            return Ok(ObjectHandle {
                slot,
                generation: s.generation,
            });
        }
        let slot = u32::try_from(self.slots.len()).map_err(|_| KernelError::SlotsExhausted)?;
        if slot == u32::MAX {
            return Err(KernelError::SlotsExhausted);
        }
        self.slots.push(Slot {
            generation: 0,
            object: Some(object),
        });
        Ok(ObjectHandle {
            slot,
            generation: 0,
        })
    }

    /// A fresh id in the local player's (owner 0) class-0 range, skipping ids in use.
    fn auto_id(&mut self) -> OriginalObjectId {
        loop {
            let raw = self.next_auto_index;
            self.next_auto_index = self.next_auto_index.wrapping_add(1);
            let id = OriginalObjectId(raw);
            if !self.ids.contains_key(&id) {
                return id;
            }
        }
    }

    /// `AddObjectToGame`: registers a constructed object. During a traversal it joins the
    /// queue at the next boundary; otherwise at once. Its original id is reserved now.
    pub fn add_to_game(&mut self, handle: ObjectHandle) -> KernelResult<()> {
        let in_calc = self.in_calculation > 0;
        let obj = self.object_ref(handle)?;
        if obj.status != ObjectStatus::Constructed {
            return Err(KernelError::AlreadyRegistered { handle });
        }
        let id = obj.id;
        if let Some(&existing) = self.ids.get(&id) {
            return Err(KernelError::DuplicateOriginalId { id, existing });
        }
        self.ids.insert(id, handle);
        if in_calc {
            self.object_mut_unchecked(handle).status = ObjectStatus::RegistrationQueued;
            self.deferred_register.push(handle);
        } else {
            self.register_now(handle);
        }
        Ok(())
    }

    fn register_now(&mut self, handle: ObjectHandle) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let obj = self.object_mut_unchecked(handle);
        obj.status = ObjectStatus::Registered { seq };
        let id = obj.id;
        self.queue.push(handle);
        self.changes.push(WorldChange::Added(handle, id));
    }

    /// `DeleteGameObject`. Deleting twice, deleting a stale handle and deleting a
    /// never-registered object are all harmless; see [`DeleteOutcome`].
    pub fn delete(&mut self, handle: ObjectHandle, mode: DeleteMode) -> DeleteOutcome {
        let in_calc = self.in_calculation > 0;
        let Ok(obj) = self.object_ref(handle) else {
            return DeleteOutcome::AlreadyGone;
        };
        match obj.status {
            ObjectStatus::Constructed => {
                self.release(handle);
                DeleteOutcome::Released
            }
            ObjectStatus::RegistrationQueued => {
                self.deferred_register.retain(|h| *h != handle);
                self.release(handle);
                DeleteOutcome::Released
            }
            ObjectStatus::Registered { seq } => {
                if in_calc && mode == DeleteMode::Normal {
                    self.object_mut_unchecked(handle).status = ObjectStatus::PendingDelete { seq };
                    self.deferred_delete.push(handle);
                    DeleteOutcome::Deferred
                } else {
                    self.release(handle);
                    DeleteOutcome::Released
                }
            }
            ObjectStatus::PendingDelete { .. } => {
                if mode == DeleteMode::Forced {
                    self.release(handle);
                    DeleteOutcome::Released
                } else {
                    DeleteOutcome::AlreadyPending
                }
            }
        }
    }

    /// `KillGameObject`: always goes through the queue, never frees directly. A
    /// registered object is released at the next [`World::apply_deferred`].
    pub fn kill(&mut self, handle: ObjectHandle) -> DeleteOutcome {
        let Ok(obj) = self.object_ref(handle) else {
            return DeleteOutcome::AlreadyGone;
        };
        match obj.status {
            ObjectStatus::Registered { seq } => {
                self.object_mut_unchecked(handle).status = ObjectStatus::PendingDelete { seq };
                self.deferred_delete.push(handle);
                DeleteOutcome::Deferred
            }
            ObjectStatus::PendingDelete { .. } => DeleteOutcome::AlreadyPending,
            ObjectStatus::Constructed | ObjectStatus::RegistrationQueued => {
                self.delete(handle, DeleteMode::Normal)
            }
        }
    }

    fn release(&mut self, handle: ObjectHandle) {
        let slot = &mut self.slots[handle.slot as usize];
        if let Some(obj) = slot.object.take() {
            if self.ids.get(&obj.id) == Some(&handle) {
                self.ids.remove(&obj.id);
            }
            if obj.is_registered() {
                self.queue_has_dead = true;
                self.changes.push(WorldChange::Removed(obj.id));
            }
        }
        if slot.generation == u32::MAX - 1 {
            // Never wrap: a wrapped generation could re-validate an ancient handle.
            slot.generation = u32::MAX;
            self.retired_slots += 1;
        } else {
            slot.generation += 1;
            self.free.push(handle.slot);
        }
    }

    /// Applies deferred deletions (in request order) and then deferred registrations
    /// (in request order). Must run outside a traversal.
    pub fn apply_deferred(&mut self) -> KernelResult<DeferredReport> {
        if self.in_calculation > 0 {
            return Err(KernelError::NestedTraversal {
                depth: self.in_calculation,
            });
        }
        let mut report = DeferredReport::default();
        for handle in std::mem::take(&mut self.deferred_delete) {
            if self.object_ref(handle).is_ok_and(|o| o.is_pending_delete()) {
                self.release(handle);
                report.deleted += 1;
            }
        }
        self.compact_queue();
        for handle in std::mem::take(&mut self.deferred_register) {
            if self
                .object_ref(handle)
                .is_ok_and(|o| o.status == ObjectStatus::RegistrationQueued)
            {
                self.register_now(handle);
                report.registered += 1;
            }
        }
        Ok(report)
    }

    fn compact_queue(&mut self) {
        if self.queue_has_dead {
            let slots = &self.slots;
            self.queue.retain(|h| {
                slots[h.slot as usize].generation == h.generation
                    && slots[h.slot as usize].object.is_some()
            });
            self.queue_has_dead = false;
        }
    }

    /// Enters a traversal (`in_calculation` depth + 1). Nested traversals are refused.
    pub fn begin_calculation(&mut self) -> KernelResult<()> {
        if self.in_calculation > 0 {
            return Err(KernelError::NestedTraversal {
                depth: self.in_calculation,
            });
        }
        self.in_calculation += 1;
        Ok(())
    }

    /// Enters an event dispatch nested in or outside a traversal; deletions are deferred while it runs.
    pub fn begin_dispatch(&mut self) {
        self.in_calculation += 1;
    }

    /// Leaves a traversal or dispatch (`in_calculation` depth − 1).
    pub fn end_calculation(&mut self) {
        self.in_calculation = self.in_calculation.saturating_sub(1);
    }

    /// Current `in_calculation` depth (0 outside any traversal).
    pub fn calculation_depth(&self) -> u32 {
        self.in_calculation
    }

    /// Number of queue entries a traversal starting now visits (dead entries included).
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// The handle at queue position `index` if it still names a live, registered,
    /// not-pending-delete object.
    pub fn queue_live_at(&self, index: usize) -> Option<ObjectHandle> {
        let h = *self.queue.get(index)?;
        let obj = self.object_ref(h).ok()?;
        matches!(obj.status, ObjectStatus::Registered { .. }).then_some(h)
    }

    /// Registered objects (pending deletes included) in stable queue order.
    pub fn iter_registered(&self) -> impl Iterator<Item = (ObjectHandle, &GameObject)> {
        self.queue.iter().filter_map(|&h| {
            let slot = &self.slots[h.slot as usize];
            if slot.generation != h.generation {
                return None;
            }
            slot.object
                .as_ref()
                .filter(|o| o.is_registered())
                .map(|o| (h, o))
        })
    }

    /// Number of registered objects (pending deletes included).
    pub fn registered_count(&self) -> usize {
        self.ids.len() - self.deferred_register.len()
    }

    /// Number of deletions waiting for the next boundary.
    pub fn pending_delete_count(&self) -> usize {
        self.deferred_delete.len()
    }

    /// Slots in the table (live, free and retired).
    pub(crate) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Slots retired because their generation reached the maximum.
    pub fn retired_slots(&self) -> u32 {
        self.retired_slots
    }

    /// The highest original id in use (created objects included).
    pub fn max_id(&self) -> Option<OriginalObjectId> {
        self.ids.keys().next_back().copied()
    }

    /// The registered (or queued) object that holds `id`.
    pub fn handle_of(&self, id: OriginalObjectId) -> Option<ObjectHandle> {
        self.ids.get(&id).copied()
    }

    /// True when `handle` names a live object (any status).
    pub fn contains(&self, handle: ObjectHandle) -> bool {
        self.object_ref(handle).is_ok()
    }

    /// The object named by `handle`, or [`KernelError::StaleHandle`].
    pub fn get(&self, handle: ObjectHandle) -> KernelResult<&GameObject> {
        self.object_ref(handle)
    }

    /// Mutable access to the object named by `handle`, or [`KernelError::StaleHandle`].
    pub fn get_mut(&mut self, handle: ObjectHandle) -> KernelResult<&mut GameObject> {
        self.slots
            .get_mut(handle.slot as usize)
            .filter(|s| s.generation == handle.generation)
            .and_then(|s| s.object.as_mut())
            .ok_or(KernelError::StaleHandle { handle })
    }

    fn object_ref(&self, handle: ObjectHandle) -> KernelResult<&GameObject> {
        self.slots
            .get(handle.slot as usize)
            .filter(|s| s.generation == handle.generation)
            .and_then(|s| s.object.as_ref())
            .ok_or(KernelError::StaleHandle { handle })
    }

    fn object_mut_unchecked(&mut self, handle: ObjectHandle) -> &mut GameObject {
        // Callers checked the handle just before; a miss would be a kernel bug.
        self.slots[handle.slot as usize]
            .object
            .as_mut()
            .expect("handle checked by caller")
    }

    /// Releases every object (shutdown): pending operations are dropped, the queue emptied.
    /// Returns how many objects were released.
    pub fn clear(&mut self) -> usize {
        let mut n = 0;
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            if slot.object.is_some() {
                let h = ObjectHandle {
                    slot: i as u32,
                    generation: slot.generation,
                };
                self.release(h);
                n += 1;
            }
        }
        self.deferred_delete.clear();
        self.deferred_register.clear();
        self.queue.clear();
        self.queue_has_dead = false;
        self.in_calculation = 0;
        n
    }
}

#[path = "world_save.rs"]
pub(crate) mod save;

#[cfg(test)]
#[path = "world_tests.rs"]
mod tests;
