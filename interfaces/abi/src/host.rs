//! The per-call host context: what a plugin may read and do during one callback.
//!
//! [`HostApi`] is implemented by the engine and handed to every callback as a borrowed
//! trait object that lives only for that call (a plugin cannot keep it: the borrow ends
//! with the call). Plugin authors use it through [`crate::Host`], which adds typed,
//! ergonomic wrappers; the raw trait is the FFI contract.
//!
//! Rules the host enforces (an error, never a panic):
//! * handles are generation-checked: a handle whose object is gone is
//!   [`ErrorKind::NO_SUCH_OBJECT`](crate::ErrorKind::NO_SUCH_OBJECT);
//! * writes are validated: NaN or infinite numbers are refused naming the object, a
//!   write to a mirror is refused unless the slot owns mirrors (the net slot);
//! * operations are phase-checked ([`ErrorKind::FORBIDDEN`](crate::ErrorKind::FORBIDDEN)):
//!   world changes and simulation services only in simulation phases;
//! * creations and deletions during queue traversal or message dispatch are deferred to
//!   the next boundary, like the original's `DeleteGameObject`;
//! * a service call that would re-enter a plugin that is running is refused
//!   ([`ErrorKind::REENTRY`](crate::ErrorKind::REENTRY)); an absent service is
//!   [`ErrorKind::NO_PROVIDER`](crate::ErrorKind::NO_PROVIDER).
#![allow(non_local_definitions)]

use crate::control::{GroundSample, ModelBounds, MotionRequest, PhysicalState, RayHit};
use crate::math::{Quatf, Vec3f};
use crate::message::{Message, MessageTarget};
use crate::types::{AreaLink, Passage, PluginError, Portal};
use abi_stable::StableAbi;
use abi_stable::sabi_trait;
use abi_stable::std_types::{ROption, RResult, RSlice, RStr, RVec};

/// A generation-checked object handle: stays valid while its object lives, then every
/// use of it is an error (never another object that reused the slot).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectRef {
    /// Slot in the kernel's table.
    pub slot: u32,
    /// Generation of the slot when the handle was issued.
    pub generation: u32,
}

/// Everything about one object except its property bag.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct ObjectInfo {
    /// Its handle.
    pub handle: ObjectRef,
    /// Original object id (raw).
    pub id: u32,
    /// Owner (player) view of the id.
    pub owner: u32,
    /// Class view of the id.
    pub class: u32,
    /// Index view of the id.
    pub index: u32,
    /// Prototype / type number (opaque to the engine).
    pub kind: u32,
    /// A mirror of an object owned by another player.
    pub mirror: bool,
    /// The player owning a mirror (0 for local objects).
    pub owner_player: u32,
    /// Takes part in calculation.
    pub active: bool,
    /// Registered in the game (false while created but not yet added).
    pub registered: bool,
    /// Position.
    pub position: Vec3f,
    /// Orientation.
    pub orientation: Quatf,
    /// Scale.
    pub scale: Vec3f,
    /// Linear velocity, world units per second.
    pub velocity: Vec3f,
    /// AI / behaviour state id.
    pub behaviour_state: u32,
}

/// One entry of an object's property bag (names are raw bytes, duplicates allowed; a
/// read by name takes the first exact match).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Name bytes as stored (no trailing NUL).
    pub name: RVec<u8>,
    /// The four raw words.
    pub value: [u32; 4],
}

/// What to create.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NewObject {
    /// Original id; `RNone` lets the engine pick the next free one.
    pub id: ROption<u32>,
    /// Prototype / type number.
    pub kind: u32,
    /// Position.
    pub position: Vec3f,
    /// Orientation.
    pub orientation: Quatf,
    /// Scale.
    pub scale: Vec3f,
    /// Velocity.
    pub velocity: Vec3f,
    /// Initial property bag, in order.
    pub properties: RVec<Property>,
    /// The prototype it is made from — a resource name as in a mission's TMA (a
    /// prototype key of `objects.rlb` or a unit DAT path); empty for none. Renderers draw
    /// the object with that prototype's models when the mission uses it.
    pub prototype: RVec<u8>,
}

impl Default for NewObject {
    fn default() -> Self {
        Self {
            id: ROption::RNone,
            kind: 0,
            position: Vec3f::default(),
            orientation: Quatf::default(),
            scale: Vec3f {
                x: 1.0,
                y: 1.0,
                z: 1.0,
            },
            velocity: Vec3f::default(),
            properties: RVec::new(),
            prototype: RVec::new(),
        }
    }
}

/// One object's motion state for batch reads.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Handle.
    pub handle: ObjectRef,
    /// Original id.
    pub id: u32,
    /// A mirror (not writable unless the slot owns mirrors).
    pub mirror: bool,
    /// Takes part in calculation.
    pub active: bool,
    /// Position.
    pub position: Vec3f,
    /// Orientation.
    pub orientation: Quatf,
    /// Velocity.
    pub velocity: Vec3f,
    /// Behaviour state.
    pub behaviour_state: u32,
}

/// A batch write of one object's motion (every field is written).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct BodyWrite {
    /// Handle.
    pub handle: ObjectRef,
    /// New position.
    pub position: Vec3f,
    /// New orientation.
    pub orientation: Quatf,
    /// New velocity.
    pub velocity: Vec3f,
}

/// The clocks as one call sees them.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockInfo {
    /// The tick being computed (or the last completed one outside simulation phases).
    pub tick: u64,
    /// Fixed step in nanoseconds (the only dt simulation may use).
    pub step_ns: u64,
    /// Game time in nanoseconds (`tick × step`).
    pub game_time_ns: u64,
    /// The game clock is paused.
    pub paused: bool,
    /// The phase of this call, as the kernel stamps it (`Phase::stamp`): 0 platform
    /// events, 1 input snapshot, 2 clock advance, 3 world traversal, 4 a calculation
    /// boundary (swaps, deferred operations, message delivery, object reports),
    /// 5 update, 6 snapshot publication, 7 rendering, 9 end of frame, 10 maintenance.
    pub phase: u32,
}

impl ClockInfo {
    /// The step in seconds.
    pub fn step_seconds(&self) -> f32 {
        self.step_ns as f32 / 1e9
    }
}

/// A game command from input (`code`, `arg`).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputCommand {
    /// Command code.
    pub code: u32,
    /// Argument.
    pub arg: i32,
}

/// An analog axis value.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct AxisValue {
    /// Axis number.
    pub axis: u32,
    /// Value.
    pub value: f32,
}

/// The whole input snapshot of the tick.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug)]
pub struct InputView<'a> {
    /// Keys pressed during this tick (edge), ascending.
    pub pressed: RSlice<'a, u32>,
    /// Keys released during this tick (edge), ascending.
    pub released: RSlice<'a, u32>,
    /// Keys held at the end of the tick, ascending.
    pub held: RSlice<'a, u32>,
    /// Analog axes, ascending by axis.
    pub axes: RSlice<'a, AxisValue>,
    /// Manual `MCMD_*` commands (kind number, argument), in arrival order.
    pub manual: RSlice<'a, InputCommand>,
    /// Game commands, in arrival order.
    pub commands: RSlice<'a, InputCommand>,
}

/// The engine side of a callback (see the module docs for the rules). Methods after the
/// `last_prefix_field` are minor additions; an older engine answers them with
/// [`ErrorKind::UNSUPPORTED`](crate::ErrorKind::UNSUPPORTED).
#[sabi_trait]
pub trait HostApi {
    /// The clocks.
    fn clock(&self) -> ClockInfo;

    /// The input snapshot of the tick.
    fn input(&self) -> InputView<'_>;

    /// Registered objects in queue (traversal) order.
    fn object_count(&self) -> u32;

    /// The `index`-th registered object in queue order.
    fn object_at(&self, index: u32) -> ROption<ObjectRef>;

    /// The object with original id `id`.
    fn find(&self, id: u32) -> ROption<ObjectRef>;

    /// Everything about an object but its properties.
    fn object(&self, object: ObjectRef) -> RResult<ObjectInfo, PluginError>;

    /// Moves an object (validated).
    fn set_transform(
        &mut self,
        object: ObjectRef,
        position: Vec3f,
        orientation: Quatf,
        scale: Vec3f,
    ) -> RResult<(), PluginError>;

    /// Sets an object's velocity (validated).
    fn set_velocity(&mut self, object: ObjectRef, velocity: Vec3f) -> RResult<(), PluginError>;

    /// Sets an object's behaviour state.
    fn set_behaviour_state(&mut self, object: ObjectRef, state: u32) -> RResult<(), PluginError>;

    /// Switches an object's calculation on or off.
    fn set_active(&mut self, object: ObjectRef, active: bool) -> RResult<(), PluginError>;

    /// The value of the first property named exactly `name`.
    fn property(
        &self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
    ) -> RResult<ROption<[u32; 4]>, PluginError>;

    /// Sets the first property named `name`, or appends it when there is none.
    fn set_property(
        &mut self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
        value: &[u32; 4],
    ) -> RResult<(), PluginError>;

    /// Appends a property (duplicates are allowed, as in the original bag).
    fn append_property(
        &mut self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
        value: &[u32; 4],
    ) -> RResult<(), PluginError>;

    /// The whole property bag, in order.
    fn properties(&self, object: ObjectRef) -> RResult<RVec<Property>, PluginError>;

    /// The prototype an object was made from (its resource name; empty for none).
    fn prototype(&self, object: ObjectRef) -> RResult<RVec<u8>, PluginError>;

    /// Creates an object and adds it to the game (the kernel's two steps; during
    /// traversal or dispatch it joins the queue at the next boundary).
    fn create(&mut self, object: &NewObject) -> RResult<ObjectRef, PluginError>;

    /// `DeleteGameObject` (deferred during traversal and dispatch).
    fn delete(&mut self, object: ObjectRef) -> RResult<(), PluginError>;

    /// `KillGameObject` (always through the queue).
    fn kill(&mut self, object: ObjectRef) -> RResult<(), PluginError>;

    /// Every registered object's motion, in queue order, into `out` (cleared first);
    /// objects whose deletion is pending are left out.
    fn read_bodies(&self, out: &mut RVec<Body>);

    /// Writes many objects' motion in one call. Everything is validated first; on any
    /// error nothing is written. Returns the number written.
    fn write_bodies(&mut self, bodies: RSlice<'_, BodyWrite>) -> RResult<u32, PluginError>;

    /// Sends a message (delivered at the next phase boundary). Original codes must
    /// carry their fields; plugin codes any; other codes are refused.
    fn send(&mut self, target: MessageTarget, message: &Message) -> RResult<(), PluginError>;

    /// A seed for the plugin's own RNG stream `stream`, derived from the mission seed,
    /// the slot and the stream name (the stream itself belongs to the plugin and is
    /// saved with its state).
    fn rng_seed(&self, stream: RStr<'_>) -> u64;

    /// Reads a game file of the mission: `name` is looked up in the mission directory
    /// first, then from the game root, through the engine's VFS (case-insensitive,
    /// overlays applied). [`ErrorKind::NOT_FOUND`](crate::ErrorKind::NOT_FOUND) when absent.
    fn read_mission_file(&self, name: RStr<'_>) -> RResult<RVec<u8>, PluginError>;

    /// A parameter of the mission set by whoever started it (the built-in scenario's
    /// arena size, a mod's options), `RNone` when not set.
    fn mission_parameter(&self, key: RStr<'_>) -> ROption<abi_stable::std_types::RString>;

    /// Terrain service: height at `(x, y)`.
    fn terrain_height(&mut self, x: f32, y: f32) -> RResult<f32, PluginError>;

    /// Terrain service: unit normal at `(x, y)`.
    fn terrain_normal(&mut self, x: f32, y: f32) -> RResult<Vec3f, PluginError>;

    /// Terrain service: first hit of the segment `a → b`.
    fn terrain_segment(&mut self, a: Vec3f, b: Vec3f) -> RResult<ROption<Vec3f>, PluginError>;

    /// Terrain service: the areal at `(x, y)`.
    fn terrain_area(&mut self, x: f32, y: f32) -> RResult<ROption<u32>, PluginError>;

    /// Terrain service: area ids from `from` to `to`.
    fn terrain_route(&mut self, from: Vec3f, to: Vec3f) -> RResult<RVec<u32>, PluginError>;

    /// Terrain service: the portals of the route from `from` to `to`.
    #[sabi(last_prefix_field)]
    fn terrain_corridor(&mut self, from: Vec3f, to: Vec3f) -> RResult<RVec<Portal>, PluginError>;

    /// (2.1) The bounds of an object's models in object space (`RNone`: it has no model
    /// the mission loaded, e.g. a plugin-made object without a prototype).
    fn object_bounds(&self, object: ObjectRef) -> RResult<ROption<ModelBounds>, PluginError> {
        let _ = object;
        older_engine("object_bounds", 1)
    }

    /// (2.1) Terrain service: one [`GroundSample`] per point (x, y; z ignored), in order.
    fn terrain_probe(
        &mut self,
        points: RSlice<'_, Vec3f>,
    ) -> RResult<RVec<GroundSample>, PluginError> {
        let _ = points;
        older_engine("terrain_probe", 1)
    }

    /// (2.1) Control service: sets the desired motion of `object`.
    fn control_set_motion(
        &mut self,
        object: ObjectRef,
        request: &MotionRequest,
    ) -> RResult<(), PluginError> {
        let _ = (object, request);
        older_engine("control_set_motion", 1)
    }

    /// (2.1) Control service: the physical state of `object` (`RNone`: the control
    /// plugin does not simulate it).
    fn control_state(&mut self, object: ObjectRef) -> RResult<ROption<PhysicalState>, PluginError> {
        let _ = object;
        older_engine("control_state", 1)
    }

    /// (2.1) Control service: ids of the objects whose collision proxy overlaps the
    /// sphere, ascending.
    fn control_query_sphere(
        &mut self,
        centre: Vec3f,
        radius: f32,
    ) -> RResult<RVec<u32>, PluginError> {
        let _ = (centre, radius);
        older_engine("control_query_sphere", 1)
    }

    /// (2.1) Control service: ids of the objects whose collision proxy overlaps the
    /// axis-aligned box, ascending.
    fn control_query_box(&mut self, min: Vec3f, max: Vec3f) -> RResult<RVec<u32>, PluginError> {
        let _ = (min, max);
        older_engine("control_query_box", 1)
    }

    /// (2.1) Control service: the first object the segment `a → b` hits, skipping
    /// `ignore` (the shooter).
    fn control_ray(
        &mut self,
        a: Vec3f,
        b: Vec3f,
        ignore: ROption<u32>,
    ) -> RResult<ROption<RayHit>, PluginError> {
        let _ = (a, b, ignore);
        older_engine("control_ray", 1)
    }

    /// (2.1) Reports the mission's outcome (simulation phases only). The first report
    /// of a mission decides it; the engine ends the run after that tick and prints the
    /// outcome. A later report is ignored (a warning on the host's log); an unknown
    /// value is [`ErrorKind::INVALID`](crate::ErrorKind::INVALID).
    fn mission_outcome(&mut self, outcome: MissionOutcome) -> RResult<(), PluginError> {
        let _ = outcome;
        older_engine("mission_outcome", 1)
    }

    /// (2.2) Terrain service: the route from `from` to `to` and its corridor in one
    /// answer, never through a link of `avoid` (either direction). Errors by kind as
    /// for the route; a goal reachable only through avoided links is
    /// [`ErrorKind::UNREACHABLE`](crate::ErrorKind::UNREACHABLE).
    fn terrain_passage(
        &mut self,
        from: Vec3f,
        to: Vec3f,
        avoid: RSlice<'_, AreaLink>,
    ) -> RResult<Passage, PluginError> {
        let _ = (from, to, avoid);
        older_engine("terrain_passage", 2)
    }

    /// (2.3) Publishes where the player looks and which units are selected (ids,
    /// ascending, at most [`crate::input::MAX_SELECTED`]); simulation phases only. The
    /// engine keeps the last view for the presentation camera, the audio listener and
    /// the selection markers. A non-finite view is
    /// [`ErrorKind::INVALID`](crate::ErrorKind::INVALID) and changes nothing.
    fn set_player_view(
        &mut self,
        view: &crate::input::PlayerView,
        selected: RSlice<'_, u32>,
    ) -> RResult<(), PluginError> {
        let _ = (view, selected);
        older_engine("set_player_view", 3)
    }

    /// (2.5) Calls method `method` of the service plugin named `service` with `request`
    /// and returns its answer (simulation phases only; the rules of [`crate::service`]).
    fn call_service(
        &mut self,
        service: RStr<'_>,
        method: RStr<'_>,
        request: RSlice<'_, u8>,
    ) -> RResult<RVec<u8>, PluginError> {
        let _ = (service, method, request);
        older_engine("call_service", 5)
    }

    /// (2.9) Uses the typed service `id` (see [`crate::extension`]): in a simulation
    /// phase, the host finds the provider active now and calls `visit`'s method for
    /// that service once with the provider's FFI object. `what` names the call in
    /// errors. Errors: [`ErrorKind::FORBIDDEN`](crate::ErrorKind::FORBIDDEN) outside
    /// the simulation phases (and the control service from a slot that may not change
    /// the world), [`ErrorKind::NO_PROVIDER`](crate::ErrorKind::NO_PROVIDER),
    /// [`ErrorKind::REENTRY`](crate::ErrorKind::REENTRY),
    /// [`ErrorKind::UNSUPPORTED`](crate::ErrorKind::UNSUPPORTED) for an unknown id, and
    /// whatever the visit returns.
    fn use_extension(
        &mut self,
        id: crate::extension::ExtensionId,
        what: RStr<'_>,
        visit: crate::extension::ExtensionVisit_TO<'_, abi_stable::RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        let _ = (id, what, visit);
        older_engine("use_extension", 9)
    }

    /// (2.9) The interface minor version the engine implements ([`crate::ABI_MINOR`] of
    /// its build); an engine before 2.9 answers 8 (this default).
    fn interface_minor(&self) -> u32 {
        8
    }
}

/// A mission's outcome as a plugin reports it to the engine (an open number: compare
/// with the constants). The values are the payload of the original's host callback
/// `(0, 0, payload)` (FORMATS §13.11).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MissionOutcome(pub u32);

impl MissionOutcome {
    /// Mission failed (`VOICE_MISSION_FAIL`).
    pub const FAILED: Self = Self(0);
    /// Mission complete (`VOICE_MISSION_COMPLETE`).
    pub const COMPLETE: Self = Self(1);

    /// `"failed"`, `"complete"`, or `"outcome N"` for other values.
    pub fn name(self) -> String {
        match self {
            Self::FAILED => "failed".into(),
            Self::COMPLETE => "complete".into(),
            Self(n) => format!("outcome {n}"),
        }
    }
}

/// The answer of a host method an older engine does not have.
fn older_engine<T>(what: &str, minor: u32) -> RResult<T, PluginError> {
    RResult::RErr(PluginError::new(
        crate::ErrorKind::UNSUPPORTED,
        format!("{what}: this engine predates interface 2.{minor}"),
    ))
}

/// The host context as callbacks receive it.
pub type HostRef<'a> = HostApi_TO<'a, abi_stable::RMut<'a, ()>>;
