//! The immutable render snapshot published once per presented frame.

use crate::identity::OriginalObjectId;
use crate::world::{Transform, World};

/// One visible object as the renderer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotObject {
    /// Original id.
    pub id: OriginalObjectId,
    /// Prototype / type number.
    pub kind: u32,
    /// World transform at the end of the last tick.
    pub transform: Transform,
}

/// Immutable frame data: what the simulation looked like after the frame's last tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderSnapshot {
    /// Presented frame number.
    pub frame: u64,
    /// Last completed simulation tick.
    pub tick: u64,
    /// Registered, active objects in queue order.
    pub objects: Vec<SnapshotObject>,
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
            })
            .collect();
        Self {
            frame,
            tick,
            objects,
        }
    }
}
