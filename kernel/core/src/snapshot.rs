//! The immutable render snapshot published once per presented frame, and the
//! [`FramePreparer`] hook through which the render-frame builder attaches its prepared
//! frame (camera, draw items) to it without the kernel knowing any format.

use crate::identity::OriginalObjectId;
use crate::world::{Transform, World};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// One visible object as the renderer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotObject {
    /// Original id.
    pub id: OriginalObjectId,
    /// Prototype / type number.
    pub kind: u32,
    /// World transform at the end of the last tick.
    pub transform: Transform,
    /// The prototype it was made from (render data is found by it).
    pub prototype: std::sync::Arc<[u8]>,
    /// The second value of its first `ClanID` property (as the mission file wrote it),
    /// `None` without one: renderers show clans (a map's colours) by it.
    pub clan_id: Option<u32>,
}

/// Data a [`FramePreparer`] attached to a snapshot (immutable, shared). Equality is
/// identity: two snapshots are equal only when they share the same prepared value.
#[derive(Clone)]
pub struct Prepared(pub Arc<dyn Any + Send + Sync>);

impl Prepared {
    /// The prepared value as `T`, when it is one.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }
}

impl PartialEq for Prepared {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Prepared(..)")
    }
}

/// Builds render data from a freshly captured snapshot in `publish_render_snapshot`
/// (after the frame's last tick, before `render_world`). It sees the snapshot only, never
/// the mutable world, so preparing a frame cannot change the simulation.
pub trait FramePreparer: Send {
    /// The data to attach, or `None` to publish the bare snapshot (errors are the
    /// preparer's to log; the frame still renders without prepared data).
    fn prepare(&mut self, snapshot: &RenderSnapshot) -> Option<Arc<dyn Any + Send + Sync>>;
}

/// Immutable frame data: what the simulation looked like after the frame's last tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderSnapshot {
    /// Presented frame number.
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// Game time of that tick in milliseconds (`tick · step`), for animation and materials.
    pub time_ms: u64,
    /// Registered, active objects in queue order.
    pub objects: Vec<SnapshotObject>,
    /// What the installed [`FramePreparer`] built for this frame.
    pub prepared: Option<Prepared>,
    /// The player's view last published by the seat (see [`crate::view`]).
    pub view: Option<crate::view::PlayerView>,
}

impl RenderSnapshot {
    /// Captures the registered, active objects of `world` in queue order.
    pub fn capture(world: &World, frame: u64, tick: u64) -> Self {
        let objects = world
            .iter_registered()
            .filter(|(_, o)| o.active && !o.is_pending_delete())
            .map(|(_, o)| SnapshotObject {
                id: o.id,
                kind: o.kind,
                transform: o.transform,
                prototype: o.prototype.clone(),
                clan_id: o.props.first(b"ClanID").map(|p| p.raw_value[1]),
            })
            .collect();
        Self {
            frame,
            tick,
            time_ms: 0,
            objects,
            view: None,
            prepared: None,
        }
    }
}
