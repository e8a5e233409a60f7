//! Scheduler phases of one frame and the operations each phase forbids.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The phases of one frame, in execution order (ARCHITECTURE-BRIEF §5, tome VII).
///
/// `InputSnapshot` … `UpdateSystems` run once per fixed simulation tick (zero or more
/// times per frame); the others run once per presented frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Launcher: window and gamepad events become raw input events.
    CollectEvents,
    /// Kernel: edge / held / analog state and manual commands for this tick.
    InputSnapshot,
    /// Kernel: the game clock advances by one fixed step.
    AdvanceClock,
    /// Kernel traverses the World3D queue; AI → Behavior → Wizard → Control per object.
    CalculateWorld,
    /// Kernel: deferred deletes and registrations, bus delivery in stable order.
    ApplyDeferred,
    /// Navigation, physics, animation and FX updates.
    UpdateSystems,
    /// Kernel: publish the immutable render snapshot.
    PublishSnapshot,
    /// Render plugin draws the snapshot (listener updated first).
    RenderWorld,
    /// Shell / UI pass.
    RenderUi,
    /// `on_end_render` callbacks.
    EndFrame,
    /// Cache maintenance on real time; never touches gameplay.
    Maintenance,
}

impl Phase {
    /// Every phase in execution order.
    pub const ALL: [Phase; 11] = [
        Phase::CollectEvents,
        Phase::InputSnapshot,
        Phase::AdvanceClock,
        Phase::CalculateWorld,
        Phase::ApplyDeferred,
        Phase::UpdateSystems,
        Phase::PublishSnapshot,
        Phase::RenderWorld,
        Phase::RenderUi,
        Phase::EndFrame,
        Phase::Maintenance,
    ];

    /// Stable snake-case name (used in stats output and logs).
    pub fn name(self) -> &'static str {
        match self {
            Phase::CollectEvents => "collect_platform_events",
            Phase::InputSnapshot => "build_input_snapshot",
            Phase::AdvanceClock => "advance_game_clock",
            Phase::CalculateWorld => "calculate_world_queue",
            Phase::ApplyDeferred => "apply_deferred_operations",
            Phase::UpdateSystems => "update_navigation_physics_animation_fx",
            Phase::PublishSnapshot => "publish_render_snapshot",
            Phase::RenderWorld => "render_world",
            Phase::RenderUi => "render_ui",
            Phase::EndFrame => "end_frame_callbacks",
            Phase::Maintenance => "maintenance_and_eviction",
        }
    }

    /// Position in [`Phase::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Whether `op` may run in this phase. Forbidden operations return
    /// [`crate::KernelError::Forbidden`] instead of corrupting state.
    pub fn allows(self, op: Operation) -> bool {
        use Operation::*;
        use Phase::*;
        match op {
            // The registry (systems/plugins) changes only at calculation boundaries.
            RegistryMutation => matches!(self, ApplyDeferred | Maintenance),
            // Gameplay state changes only in the simulation phases.
            WorldMutation => matches!(
                self,
                InputSnapshot | AdvanceClock | CalculateWorld | ApplyDeferred | UpdateSystems
            ),
            // Simulation RNG streams feed the state hash: simulation phases only.
            SimulationRandom => matches!(self, CalculateWorld | ApplyDeferred | UpdateSystems),
            // Anyone may post to the bus; delivery happens at the next boundary.
            SendMessage => !matches!(self, Maintenance),
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Operations whose legality depends on the current phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Operation {
    /// Adding, removing or replacing a system (plugin) in the registry.
    RegistryMutation,
    /// Creating, registering, deleting or editing objects.
    WorldMutation,
    /// Drawing from a simulation RNG stream (not the cosmetic one).
    SimulationRandom,
    /// Posting a message to the bus.
    SendMessage,
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operation::RegistryMutation => "registry mutation",
            Operation::WorldMutation => "world mutation",
            Operation::SimulationRandom => "simulation random draw",
            Operation::SendMessage => "message send",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_are_in_brief_order_and_indexed() {
        for (i, p) in Phase::ALL.iter().enumerate() {
            assert_eq!(p.index(), i);
        }
        assert!(Phase::CalculateWorld < Phase::ApplyDeferred);
    }

    #[test]
    fn registry_mutation_is_forbidden_during_traversal_and_render() {
        assert!(!Phase::CalculateWorld.allows(Operation::RegistryMutation));
        assert!(!Phase::RenderWorld.allows(Operation::RegistryMutation));
        assert!(Phase::ApplyDeferred.allows(Operation::RegistryMutation));
        assert!(!Phase::RenderWorld.allows(Operation::WorldMutation));
        assert!(!Phase::Maintenance.allows(Operation::WorldMutation));
        assert!(!Phase::Maintenance.allows(Operation::SimulationRandom));
    }
}
