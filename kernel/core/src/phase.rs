//! Scheduler phases of one frame and the operations each phase forbids.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The phases of one frame, in execution order (ARCHITECTURE-BRIEF §5, tome VII).
///
/// `SwapBoundary` … `UpdateSystems` run once per fixed simulation tick (zero or more
/// times per frame); the others run once per presented frame. Four of them are the
/// calculation boundaries between the simulation steps — [`Phase::SwapBoundary`],
/// [`Phase::ApplyDeferred`], [`Phase::DeliverMessages`] and [`Phase::ReportChanges`]:
/// each has its own name (stats, logs, fault reports) and they share one
/// [`Phase::stamp`], so the bus's delivery order and the state hash treat a message sent
/// at any boundary alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// Launcher: window and gamepad events become raw input events.
    CollectEvents,
    /// Kernel, before each tick: prepared hot swaps and deferred system registrations
    /// take effect (`System::on_boundary`), kernel commands are applied. Systems added
    /// outside a frame are initialised at this boundary too.
    SwapBoundary,
    /// Kernel: edge / held / analog state and manual commands for this tick.
    InputSnapshot,
    /// Kernel: the game clock advances by one fixed step.
    AdvanceClock,
    /// Kernel traverses the World3D queue; AI → Behavior → Wizard → Control per object.
    CalculateWorld,
    /// Kernel, after the traversal: deferred deletes and registrations, then the bus
    /// batch, then kernel commands.
    ApplyDeferred,
    /// Kernel: a bus batch is delivered in stable order (`System::on_message`), at the
    /// boundaries after the input snapshot and after the update, and within
    /// [`Phase::ApplyDeferred`].
    DeliverMessages,
    /// Kernel: the objects that joined or left the game are reported to every system
    /// (`System::on_objects_changed`).
    ReportChanges,
    /// Navigation, physics, animation and FX updates.
    UpdateSystems,
    /// Kernel: publish the immutable render snapshot.
    PublishSnapshot,
    /// Render plugin draws the snapshot (listener updated first).
    RenderWorld,
    /// `on_end_render` callbacks.
    EndFrame,
    /// Cache maintenance on real time; never touches gameplay.
    Maintenance,
}

impl Phase {
    /// Every phase in execution order.
    pub const ALL: [Phase; 13] = [
        Phase::CollectEvents,
        Phase::SwapBoundary,
        Phase::InputSnapshot,
        Phase::AdvanceClock,
        Phase::CalculateWorld,
        Phase::ApplyDeferred,
        Phase::DeliverMessages,
        Phase::ReportChanges,
        Phase::UpdateSystems,
        Phase::PublishSnapshot,
        Phase::RenderWorld,
        Phase::EndFrame,
        Phase::Maintenance,
    ];

    /// Stable snake-case name (used in stats output and logs).
    pub fn name(self) -> &'static str {
        match self {
            Phase::CollectEvents => "collect_platform_events",
            Phase::SwapBoundary => "calculation_boundary",
            Phase::InputSnapshot => "build_input_snapshot",
            Phase::AdvanceClock => "advance_game_clock",
            Phase::CalculateWorld => "calculate_world_queue",
            Phase::ApplyDeferred => "apply_deferred_operations",
            Phase::DeliverMessages => "deliver_messages",
            Phase::ReportChanges => "report_world_changes",
            Phase::UpdateSystems => "update_navigation_physics_animation_fx",
            Phase::PublishSnapshot => "publish_render_snapshot",
            Phase::RenderWorld => "render_world",
            Phase::EndFrame => "end_frame_callbacks",
            Phase::Maintenance => "maintenance_and_eviction",
        }
    }

    /// Position in [`Phase::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The phase's number where it is observable: the bus's delivery key, the state
    /// hash of waiting messages and plugins' `ClockInfo::phase`. The four calculation
    /// boundaries share 4; the numbers of the other phases are those of the schedule
    /// before the boundaries were told apart (9 and 10 for the frame's end and
    /// maintenance), so hashes, message order and the plugin-visible numbers stay.
    pub fn stamp(self) -> u32 {
        match self {
            Phase::CollectEvents => 0,
            Phase::InputSnapshot => 1,
            Phase::AdvanceClock => 2,
            Phase::CalculateWorld => 3,
            Phase::SwapBoundary
            | Phase::ApplyDeferred
            | Phase::DeliverMessages
            | Phase::ReportChanges => 4,
            Phase::UpdateSystems => 5,
            Phase::PublishSnapshot => 6,
            Phase::RenderWorld => 7,
            Phase::EndFrame => 9,
            Phase::Maintenance => 10,
        }
    }

    /// Whether this is one of the calculation boundaries between simulation steps.
    pub fn is_boundary(self) -> bool {
        self.stamp() == Phase::ApplyDeferred.stamp()
    }

    /// Whether `op` may run in this phase. Forbidden operations return
    /// [`crate::KernelError::Forbidden`] instead of corrupting state.
    pub fn allows(self, op: Operation) -> bool {
        use Operation::*;
        use Phase::*;
        match op {
            // The registry (systems/plugins) changes only at calculation boundaries.
            RegistryMutation => self.is_boundary() || self == Maintenance,
            // Gameplay state changes only in the simulation phases.
            WorldMutation => {
                self.is_boundary()
                    || matches!(
                        self,
                        InputSnapshot | AdvanceClock | CalculateWorld | UpdateSystems
                    )
            }
            // Simulation RNG streams feed the state hash: simulation phases only.
            SimulationRandom => {
                self.is_boundary() || matches!(self, CalculateWorld | UpdateSystems)
            }
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
    fn stamps_keep_the_numbers_of_the_schedule_before_the_boundaries_were_named() {
        let stamps: Vec<u32> = Phase::ALL.iter().map(|p| p.stamp()).collect();
        assert_eq!(stamps, [0, 4, 1, 2, 3, 4, 4, 4, 5, 6, 7, 9, 10]);
        let names: std::collections::BTreeSet<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(
            names.len(),
            Phase::ALL.len(),
            "every phase has its own name"
        );
    }

    #[test]
    fn registry_mutation_is_forbidden_during_traversal_and_render() {
        assert!(!Phase::CalculateWorld.allows(Operation::RegistryMutation));
        assert!(!Phase::RenderWorld.allows(Operation::RegistryMutation));
        assert!(Phase::ApplyDeferred.allows(Operation::RegistryMutation));
        for p in [
            Phase::SwapBoundary,
            Phase::DeliverMessages,
            Phase::ReportChanges,
        ] {
            assert!(
                p.is_boundary() && p.allows(Operation::RegistryMutation),
                "{p}"
            );
        }
        assert!(!Phase::RenderWorld.allows(Operation::WorldMutation));
        assert!(!Phase::Maintenance.allows(Operation::WorldMutation));
        assert!(!Phase::Maintenance.allows(Operation::SimulationRandom));
    }
}
