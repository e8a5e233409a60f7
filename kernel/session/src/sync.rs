//! The engine's state summaries for desync reports (PD-NET-SYNC-REPORT; the format and
//! the comparison are `iron3d_net_rules::sync`).

use iron3d_kernel::Kernel;
pub use iron3d_net_rules::sync::{ObjectSync, SyncError, SyncReport};

/// Turn-end summaries a peer keeps.
pub const KEPT_TICKS: usize = 32;

/// The summary of `kernel`'s state now (between ticks).
pub fn summary(kernel: &Kernel) -> SyncReport {
    let world = kernel.world();
    let mut objects = Vec::new();
    let mut cut = false;
    for index in 0..world.queue_len() {
        let Some(h) = world.queue_live_at(index) else {
            continue;
        };
        let Ok(o) = world.get(h) else {
            continue;
        };
        if objects.len() == iron3d_net_rules::sync::MAX_OBJECTS {
            cut = true;
            break;
        }
        let mut props = blake3::Hasher::new();
        for p in o.props.iter() {
            props.update(&(p.name.len() as u64).to_le_bytes());
            props.update(&p.name);
            for w in p.raw_value {
                props.update(&w.to_le_bytes());
            }
        }
        let mut digest = [0u8; 8];
        digest.copy_from_slice(&props.finalize().as_bytes()[..8]);
        let t = &o.transform;
        objects.push(ObjectSync {
            id: o.id.raw(),
            position: t.position.to_array(),
            orientation: t.orientation.to_array(),
            velocity: o.velocity.to_array(),
            behaviour_state: o.behaviour_state,
            active: o.active,
            props: digest,
        });
    }
    SyncReport {
        tick: kernel.tick(),
        systems: kernel.system_digests(),
        objects,
        cut,
    }
}
