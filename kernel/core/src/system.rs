//! The in-process subsystem contract the scheduler calls, and the per-call context it hands out.
//!
//! The plugin host (a later layer) adapts abi_stable plugins to [`System`]; the kernel
//! never names a concrete system. A system keeps no reference to kernel state between
//! calls: everything it may touch comes through [`SystemCtx`], which checks every
//! operation against the current [`Phase`].

use crate::bus::{Bus, Envelope, GameMessage, SenderId, Target};
use crate::error::{KernelError, KernelResult};
use crate::identity::ObjectHandle;
use crate::input::InputSnapshot;
use crate::phase::{Operation, Phase};
use crate::rng::{RngStream, RngStreams, StreamName};
use crate::snapshot::RenderSnapshot;
use crate::world::{DeleteMode, DeleteOutcome, GameObject, ObjectDesc, World};
use std::fmt;

/// Calculation slots, traversed per object in this fixed order (AI → Behavior → Wizard → Control).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CalcSlot {
    /// Decision making.
    Ai,
    /// Unit state machines.
    Behavior,
    /// Wizard (scripted actions).
    Wizard,
    /// Control / physics commands.
    Control,
}

/// A failure reported by a system; the kernel logs it, counts it and keeps running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemError(pub String);

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<KernelError> for SystemError {
    fn from(e: KernelError) -> Self {
        SystemError(e.to_string())
    }
}

/// Result of a system callback.
pub type SystemResult = Result<(), SystemError>;

/// A subsystem driven by the scheduler. Every callback has a no-op default.
pub trait System: Send {
    /// Stable name (logs, stats, state-hash ordering).
    fn name(&self) -> &str;

    /// The calculation slot this system fills during queue traversal, if any.
    fn calc_slot(&self) -> Option<CalcSlot> {
        None
    }

    /// Called once when the system is added; an error keeps it out of the kernel.
    fn init(&mut self, _ctx: &mut SystemCtx<'_>) -> SystemResult {
        Ok(())
    }

    /// Per object during `calculate_world_queue`, in queue order.
    fn calculate_object(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        _object: ObjectHandle,
    ) -> SystemResult {
        Ok(())
    }

    /// A message delivered at a phase boundary; `object` is set for object-targeted messages.
    fn on_message(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        _object: Option<ObjectHandle>,
        _envelope: &Envelope,
    ) -> SystemResult {
        Ok(())
    }

    /// At the calculation boundary before each tick (registry mutation allowed): the place
    /// where a plugin slot activates a prepared hot swap.
    fn on_boundary(&mut self, _ctx: &mut SystemCtx<'_>) -> SystemResult {
        Ok(())
    }

    /// Once per tick in `update_navigation_physics_animation_fx`.
    fn update(&mut self, _ctx: &mut SystemCtx<'_>) -> SystemResult {
        Ok(())
    }

    /// Objects that joined or left the game since the last report, in order, at the
    /// calculation boundary and at the boundaries after traversal and update (world
    /// changes allowed; changes made here are reported at the next boundary).
    fn on_objects_changed(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        _changes: &[crate::world::WorldChange],
    ) -> SystemResult {
        Ok(())
    }

    /// Once per presented frame in `render_world`, with the immutable snapshot.
    fn render(&mut self, _snapshot: &RenderSnapshot) -> SystemResult {
        Ok(())
    }

    /// `on_end_render` after the frame's draw commands no longer use temporary data.
    fn end_frame(&mut self, _frame: u64) -> SystemResult {
        Ok(())
    }

    /// Cache maintenance on real time; must not change gameplay state.
    fn maintenance(&mut self) -> SystemResult {
        Ok(())
    }

    /// Digest of the system's simulation state, folded into the canonical state hash.
    fn state_digest(&self) -> Option<[u8; 32]> {
        None
    }

    /// The system's state for a save game (the versioned blob a plugin hands over in a
    /// hot swap), `None` when it keeps none worth saving; `Some(Err)` when it cannot
    /// save now (the save then fails, naming the system).
    fn save_state(&self) -> Option<Result<SavedState, String>> {
        None
    }

    /// Restores what [`System::save_state`] returned (between ticks, after the mission
    /// is set up); a refusal must leave the system as it was.
    fn restore_state(&mut self, _state: &SavedState) -> Result<(), String> {
        Err(format!("system '{}' keeps no saved state", self.name()))
    }

    /// Called once at shutdown, in reverse order of addition.
    fn shutdown(&mut self) {}
}

/// One system's state in a save: the same versioned blob a plugin hands over in a hot
/// swap (format name, version, bytes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SavedState {
    /// The blob's format name (a plugin's own, e.g. `iron3d-control`).
    pub format: String,
    /// The format's version.
    pub version: u32,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// Requests a system can make that the kernel applies at the next calculation boundary.
pub enum KernelCommand {
    /// Pause the game clock.
    Pause,
    /// Resume the game clock.
    Resume,
    /// Scale game time by `num / den`.
    SetScale(u32, u32),
    /// Add a system to the registry.
    AddSystem(Box<dyn System>),
}

impl fmt::Debug for KernelCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelCommand::Pause => f.write_str("Pause"),
            KernelCommand::Resume => f.write_str("Resume"),
            KernelCommand::SetScale(n, d) => write!(f, "SetScale({n}/{d})"),
            KernelCommand::AddSystem(s) => write!(f, "AddSystem({})", s.name()),
        }
    }
}

/// Read-only view of the simulation time for one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimTime {
    /// Current tick number (the tick being computed).
    pub tick: u64,
    /// Fixed step length in nanoseconds.
    pub step_ns: u64,
    /// The game clock is paused (no ticks run while it is; calls outside ticks see it).
    pub paused: bool,
}

impl SimTime {
    /// Step length in seconds (the only dt game logic may use).
    pub fn step_seconds(&self) -> f32 {
        self.step_ns as f32 / crate::clock::NANOS_PER_SEC as f32
    }

    /// Simulation time in nanoseconds (`tick × step`).
    pub fn sim_ns(&self) -> u64 {
        self.tick.saturating_mul(self.step_ns)
    }
}

/// Everything a system may touch during one call, checked against the phase.
pub struct SystemCtx<'a> {
    pub(crate) phase: Phase,
    pub(crate) world: &'a mut World,
    pub(crate) bus: &'a mut Bus,
    pub(crate) rng: &'a mut RngStreams,
    pub(crate) input: &'a InputSnapshot,
    pub(crate) time: SimTime,
    pub(crate) sender: SenderId,
    pub(crate) commands: &'a mut Vec<KernelCommand>,
    pub(crate) view: &'a mut Option<crate::view::PlayerView>,
}

impl<'a> SystemCtx<'a> {
    fn check(&self, op: Operation) -> KernelResult<()> {
        if self.phase.allows(op) {
            Ok(())
        } else {
            Err(KernelError::Forbidden {
                op,
                phase: self.phase,
            })
        }
    }

    /// The phase this call runs in.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Simulation time of this tick.
    pub fn time(&self) -> SimTime {
        self.time
    }

    /// This tick's input snapshot.
    pub fn input(&self) -> &InputSnapshot {
        self.input
    }

    /// Publishes the player's view (world-mutation phases; see [`crate::view`]). An
    /// invalid view is refused and the last one stays.
    pub fn set_player_view(&mut self, mut view: crate::view::PlayerView) -> KernelResult<()> {
        self.check(Operation::WorldMutation)?;
        if !view.is_valid() {
            return Err(KernelError::InvalidView(format!(
                "non-finite numbers or an unsorted selection: {view:?}"
            )));
        }
        view.tick = self.time.tick;
        *self.view = Some(view);
        Ok(())
    }

    /// The last published player view.
    pub fn player_view(&self) -> Option<&crate::view::PlayerView> {
        self.view.as_ref()
    }

    /// Read access to the world.
    pub fn world(&self) -> &World {
        self.world
    }

    /// An object, or [`KernelError::StaleHandle`].
    pub fn object(&self, handle: ObjectHandle) -> KernelResult<&GameObject> {
        self.world.get(handle)
    }

    /// Mutable object access (simulation phases only).
    pub fn object_mut(&mut self, handle: ObjectHandle) -> KernelResult<&mut GameObject> {
        self.check(Operation::WorldMutation)?;
        self.world.get_mut(handle)
    }

    /// `CreateObject` (simulation phases only).
    pub fn create(&mut self, desc: ObjectDesc) -> KernelResult<ObjectHandle> {
        self.check(Operation::WorldMutation)?;
        self.world.create(desc)
    }

    /// `AddObjectToGame`; during traversal the object joins at the next boundary.
    pub fn add_to_game(&mut self, handle: ObjectHandle) -> KernelResult<()> {
        self.check(Operation::WorldMutation)?;
        self.world.add_to_game(handle)
    }

    /// `DeleteGameObject`; deferred while a traversal or dispatch runs.
    pub fn delete(
        &mut self,
        handle: ObjectHandle,
        mode: DeleteMode,
    ) -> KernelResult<DeleteOutcome> {
        self.check(Operation::WorldMutation)?;
        Ok(self.world.delete(handle, mode))
    }

    /// `KillGameObject`: always through the queue.
    pub fn kill(&mut self, handle: ObjectHandle) -> KernelResult<DeleteOutcome> {
        self.check(Operation::WorldMutation)?;
        Ok(self.world.kill(handle))
    }

    /// A named RNG stream; simulation streams only in simulation phases.
    pub fn rng(&mut self, name: StreamName) -> KernelResult<&mut RngStream> {
        if name.is_simulation() {
            self.check(Operation::SimulationRandom)?;
        }
        Ok(self.rng.stream(name))
    }

    /// Posts a message; it is delivered at the next phase boundary, never immediately.
    pub fn send(&mut self, target: Target, message: GameMessage) -> KernelResult<()> {
        self.check(Operation::SendMessage)?;
        self.bus.send(self.phase, self.sender, target, message);
        Ok(())
    }

    /// Adds a system to the registry at the end of this phase. Refused (an error, not a
    /// crash) in phases that forbid registry mutation, such as queue traversal.
    pub fn add_system(&mut self, system: Box<dyn System>) -> KernelResult<()> {
        self.check(Operation::RegistryMutation)?;
        self.commands.push(KernelCommand::AddSystem(system));
        Ok(())
    }

    /// Queues a clock command applied at the next calculation boundary.
    pub fn request(&mut self, command: KernelCommand) -> KernelResult<()> {
        if matches!(command, KernelCommand::AddSystem(_)) {
            self.check(Operation::RegistryMutation)?;
        }
        self.commands.push(command);
        Ok(())
    }
}
