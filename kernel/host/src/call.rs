//! The host context of one plugin call: [`HostCall`] implements [`HostApi`] over the
//! kernel's phase-checked [`SystemCtx`], routes service calls to the slot that provides
//! them (refusing re-entry), and validates every value a plugin writes. A call made
//! outside a kernel phase (instance start-up, swap preparation, finish) is *detached*:
//! it gets the mission's files, parameters and seeds, and no world.

use crate::convert::game_message;
use crate::slot::{Instance, SlotCell, SlotRole};
use abi_stable::std_types::{RErr, ROk, ROption, RResult, RSlice, RStr, RVec};
use iron3d_abi::{
    AreaLink, AxisValue, Body, BodyWrite, ClockInfo, ErrorKind, ExtensionId, ExtensionVisit_TO,
    GroundSample, HostApi, InputCommand, InputView, Message, MessageTarget, MissionOutcome,
    ModelBounds, MotionRequest, NewObject, ObjectInfo, ObjectRef, Passage, PhysicalState,
    PluginError, Portal, Property, Quatf, RayHit, SlotKind, Vec3f,
};
use iron3d_kernel::{
    DeleteMode, GameObject, KernelError, Locality, ObjectDesc, ObjectHandle, OriginalObjectId,
    Phase, PropertyBag, SystemCtx, Target, Transform,
};
use iron3d_vfs::{GamePath, Vfs};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

mod route;

/// The game data a mission's plugins may read: the VFS and the mission directory.
#[derive(Debug)]
pub struct MissionFiles {
    /// The game directory and its overlays.
    pub vfs: Vfs,
    /// The mission directory (game-root-relative).
    pub mission_dir: GamePath,
}

/// What every call of a host shares: the mission identity, the game files and the
/// slots (for service routing).
pub struct HostShared {
    /// Mission or scenario name.
    pub mission: String,
    /// Master seed.
    pub seed: u64,
    /// Ticks per second.
    pub tick_hz: u32,
    /// Load number in this process.
    pub load_number: u32,
    /// The mission's files (`None` for the built-in scenario).
    pub files: Option<Arc<MissionFiles>>,
    /// Mission parameters (`Host::mission_parameter`).
    pub parameters: BTreeMap<String, String>,
    /// The active instance of every slot, for service calls.
    pub cells: Mutex<BTreeMap<SlotKind, SlotCell>>,
    /// Providers whose service method panicked during another slot's call, with the
    /// panic message: their slot rolls back at its next calculation boundary.
    pub provider_faults: Mutex<BTreeMap<SlotKind, (Phase, String)>>,
    /// Model bounds by prototype (ASCII upper case), set once the mission is loaded
    /// (`Host::object_bounds`).
    pub model_bounds: std::sync::RwLock<BTreeMap<Vec<u8>, ModelBounds>>,
    /// The mission's outcome, once a plugin reported it (the first report stands).
    pub outcome: Mutex<Option<ReportedOutcome>>,
    /// The running service plugins by name (`Host::call_service`).
    pub services: Mutex<BTreeMap<String, SlotCell>>,
    /// Services stopped after a panic, with the reason later calls are told.
    pub stopped_services: Mutex<BTreeMap<String, String>>,
    /// The audio slot's presentation state (2.6).
    pub audio: Mutex<AudioState>,
    /// (2.11) The effect primitives the effects slot answered for the frame being
    /// drawn, until the render slot takes them.
    pub effects: Mutex<Option<iron3d_abi::EffectFrame>>,
}

/// What the host keeps for the audio slot (2.6): the mix it hands the plugin every
/// frame, and what the plugin reported last.
#[derive(Debug, Default)]
pub struct AudioState {
    /// The player's mix.
    pub mix: iron3d_abi::AudioMix,
    /// Whether the plugin is asked for its event trace.
    pub trace: bool,
    /// Trace lines reported and not taken yet.
    pub lines: Vec<String>,
    /// The last report's output and reason.
    pub status: Option<AudioStatus>,
}

/// The audio plugin's last report, as the launcher shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AudioStatus {
    /// Device, mock or none.
    pub output: iron3d_abi::AudioOutput,
    /// Why there is no device (empty otherwise).
    pub reason: String,
    /// Sources playing.
    pub active_sources: u32,
}

/// A mission outcome as reported by a plugin; displayed as the launcher's outcome line,
/// `outcome=<name> tick=<T> slot=<slot>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportedOutcome {
    /// The outcome.
    pub outcome: MissionOutcome,
    /// The slot whose plugin reported it.
    pub slot: SlotKind,
    /// The tick it was reported in.
    pub tick: u64,
}

/// Who a plugin call is made for: the plugin filling a registry slot, or a service
/// plugin (2.5), which fills no slot. Messages and logs name it as `ai`, `render`, … or
/// `service <name>`; its seeds are scoped to it ([`HostShared::rng_seed`],
/// [`HostShared::service_seed`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The plugin of this slot.
    Slot(SlotKind),
    /// The service plugin of this name.
    Service(String),
}

impl Caller {
    /// The slot whose rules the caller's calls follow (the presentation slots' write
    /// refusal, the net slot's mirror writes): a slot's own. A service follows the AI
    /// slot's — a simulation slot's: it may change the world, never a mirror — as it has
    /// since services came (2.5). (Its calls are all detached today — start-up and
    /// finish — so it only ever meets the detached refusal first.)
    pub fn rules(&self) -> SlotKind {
        match self {
            Self::Slot(slot) => *slot,
            Self::Service(_) => SlotKind::Ai,
        }
    }
}

impl std::fmt::Display for Caller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Slot(slot) => write!(f, "{slot}"),
            Self::Service(name) => write!(f, "service {name}"),
        }
    }
}

impl HostShared {
    /// The cell of `slot`'s active instance (the host's own calls outside a phase).
    pub(crate) fn cell_of(&self, slot: SlotKind) -> Option<SlotCell> {
        self.cell(slot)
    }

    fn cell(&self, slot: SlotKind) -> Option<SlotCell> {
        self.cells
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&slot)
            .cloned()
    }

    /// A seed for `stream` of `slot` (BLAKE3 of the mission seed, slot and stream).
    pub fn rng_seed(&self, slot: SlotKind, stream: &str) -> u64 {
        self.scoped_seed(slot.as_str(), stream)
    }

    /// A seed for `stream` of the service plugin `service` (its scope is
    /// `service:<name>`, so it never equals a slot's).
    pub fn service_seed(&self, service: &str, stream: &str) -> u64 {
        self.scoped_seed(&format!("service:{service}"), stream)
    }

    fn scoped_seed(&self, scope: &str, stream: &str) -> u64 {
        let mut h = blake3::Hasher::new();
        h.update(&self.seed.to_le_bytes());
        h.update(scope.as_bytes());
        h.update(&[0]);
        h.update(stream.as_bytes());
        let mut b = [0u8; 8];
        b.copy_from_slice(&h.finalize().as_bytes()[..8]);
        u64::from_le_bytes(b)
    }

    /// The bounds of the models of `prototype` (ASCII case ignored).
    pub fn bounds_of(&self, prototype: &[u8]) -> Option<ModelBounds> {
        self.model_bounds
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&prototype.to_ascii_uppercase())
            .copied()
    }

    /// The mission parameter `key`, as the plugin interface returns it.
    pub fn mission_parameter(&self, key: &str) -> ROption<abi_stable::std_types::RString> {
        self.parameters.get(key).map(|v| v.as_str().into()).into()
    }

    /// Reads `name` in the mission directory, else from the game root.
    pub fn read_mission_file(&self, name: &str) -> Result<Vec<u8>, PluginError> {
        let not_found =
            |why: String| PluginError::new(ErrorKind::NOT_FOUND, format!("{name}: {why}"));
        let Some(files) = &self.files else {
            return Err(not_found(format!(
                "mission '{}' has no game data",
                self.mission
            )));
        };
        let path = GamePath::parse(name)
            .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("{name}: {e}")))?;
        let resolved = files
            .vfs
            .resolve_in_mission(&files.mission_dir, &path)
            .map_err(|e| not_found(e.to_string()))?;
        // A regular file of bounded size only (PD-VFS-REGULAR-FILES): a FIFO in the
        // mission folder never blocks the simulation.
        iron3d_vfs::files::read_regular(&resolved.path, iron3d_vfs::files::MAX_LOOSE_FILE)
            .map_err(|e| PluginError::failed(e.to_string()))
    }
}

/// The input snapshot of a tick in FFI form (rebuilt once per tick per slot).
#[derive(Default)]
pub struct InputCache {
    tick: Option<u64>,
    pressed: Vec<u32>,
    released: Vec<u32>,
    held: Vec<u32>,
    axes: Vec<AxisValue>,
    manual: Vec<InputCommand>,
    commands: Vec<InputCommand>,
}

impl InputCache {
    /// Refreshes the cache for the tick of `ctx`.
    pub fn refresh(&mut self, ctx: &SystemCtx<'_>) {
        let tick = ctx.time().tick;
        if self.tick == Some(tick) {
            return;
        }
        self.tick = Some(tick);
        let input = ctx.input();
        self.pressed = input.pressed.iter().copied().collect();
        self.released = input.released.iter().copied().collect();
        self.held = input.held.iter().copied().collect();
        self.axes = input
            .axes
            .iter()
            .map(|(&axis, &value)| AxisValue { axis, value })
            .collect();
        self.manual = input
            .manual
            .iter()
            .map(|&(kind, arg)| InputCommand {
                code: kind as u32,
                arg,
            })
            .collect();
        self.commands = input
            .commands
            .iter()
            .map(|&(code, arg)| InputCommand { code, arg })
            .collect();
    }

    fn view(&self) -> InputView<'_> {
        InputView {
            pressed: RSlice::from_slice(&self.pressed),
            released: RSlice::from_slice(&self.released),
            held: RSlice::from_slice(&self.held),
            axes: RSlice::from_slice(&self.axes),
            manual: RSlice::from_slice(&self.manual),
            commands: RSlice::from_slice(&self.commands),
        }
    }
}

fn kernel_err(e: KernelError) -> PluginError {
    let kind = match e {
        KernelError::Forbidden { .. } => ErrorKind::FORBIDDEN,
        KernelError::StaleHandle { .. } => ErrorKind::NO_SUCH_OBJECT,
        KernelError::InvalidView(_) => ErrorKind::INVALID,
        _ => ErrorKind::FAILED,
    };
    PluginError::new(kind, e.to_string())
}

fn finite(v: Vec3f) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

fn finite_q(q: Quatf) -> bool {
    q.x.is_finite() && q.y.is_finite() && q.z.is_finite() && q.w.is_finite()
}

fn handle(o: ObjectRef) -> ObjectHandle {
    ObjectHandle {
        slot: o.slot,
        generation: o.generation,
    }
}

fn object_ref(h: ObjectHandle) -> ObjectRef {
    ObjectRef {
        slot: h.slot,
        generation: h.generation,
    }
}

/// The phases in which plugins may call simulation services.
fn simulation_phase(phase: Phase) -> bool {
    phase.is_boundary() || matches!(phase, Phase::CalculateWorld | Phase::UpdateSystems)
}

impl std::fmt::Display for ReportedOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "outcome={} tick={} slot={}",
            self.outcome.name(),
            self.tick,
            self.slot
        )
    }
}

/// What a call made inside a kernel phase works on: the kernel context, the calling
/// system and the tick's input.
pub struct Attached<'c, 'k> {
    /// The kernel context of the call.
    pub ctx: &'c mut SystemCtx<'k>,
    /// The calling system's name (`plugin:<slot>`).
    pub system: &'c str,
    /// The tick's input.
    pub input: &'c InputCache,
}

/// The refusal of `what` in a detached call: [`ErrorKind::FORBIDDEN`].
fn detached_refusal(what: &str) -> PluginError {
    PluginError::new(
        ErrorKind::FORBIDDEN,
        format!("{what}: no world access outside the simulation phases (e.g. in mission_start)"),
    )
}

/// The context of one call (see the module docs). A slot's plugin runs with its own cell
/// locked by the caller, so a service call into it is re-entry.
/// A detached call (no [`Attached`] kernel side) reports tick 0, phase `u32::MAX`, no
/// input and no objects, and refuses every world operation and service with
/// [`ErrorKind::FORBIDDEN`].
pub struct HostCall<'c, 'k> {
    /// The kernel side of a call made inside a phase; `None` for a detached call.
    pub kernel: Option<Attached<'c, 'k>>,
    /// The host's shared state.
    pub shared: &'c HostShared,
    /// Who is calling: a slot's plugin, or a service plugin (whose seeds are the
    /// service's, and whose permissions are the AI slot's: [`Caller::rules`]).
    pub caller: &'c Caller,
    /// The registered objects in queue order, built on the first `object_at` of the call
    /// and dropped by any change of the world (create, delete, kill).
    pub order: std::cell::RefCell<Option<Vec<ObjectHandle>>>,
}

impl<'c, 'k> HostCall<'c, 'k> {
    /// A detached call for `caller`: the mission's files, parameters and the caller's
    /// seeds, never the world.
    pub fn detached(shared: &'c HostShared, caller: &'c Caller) -> Self {
        Self {
            kernel: None,
            shared,
            caller,
            order: std::cell::RefCell::default(),
        }
    }

    /// The kernel side of the call; a detached call refuses `what`.
    fn attached(&self, what: &str) -> Result<&Attached<'c, 'k>, PluginError> {
        self.kernel.as_ref().ok_or_else(|| detached_refusal(what))
    }

    /// The kernel side of the call, mutable; a detached call refuses `what`.
    fn attached_mut(&mut self, what: &str) -> Result<&mut Attached<'c, 'k>, PluginError> {
        self.kernel.as_mut().ok_or_else(|| detached_refusal(what))
    }

    /// The live object `o`, read by `what`.
    fn get(&self, what: &str, o: ObjectRef) -> Result<&GameObject, PluginError> {
        self.attached(what)?.ctx.object(handle(o)).map_err(|e| {
            PluginError::new(
                ErrorKind::NO_SUCH_OBJECT,
                format!("object handle {}:{}: {e}", o.slot, o.generation),
            )
        })
    }

    /// A writable object of this slot: exists, and is local unless the slot owns mirrors.
    fn writable(&mut self, what: &str, o: ObjectRef) -> Result<&mut GameObject, PluginError> {
        let caller = self.caller;
        let obj = self
            .attached_mut(what)?
            .ctx
            .object_mut(handle(o))
            .map_err(kernel_err)?;
        if matches!(obj.locality, Locality::Mirror { .. }) && caller.rules() != SlotKind::Net {
            return Err(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "object {} is a mirror: only the net slot may write it, not {caller}",
                    obj.id
                ),
            ));
        }
        Ok(obj)
    }

    fn id_of(&self, o: ObjectRef) -> String {
        self.kernel
            .as_ref()
            .and_then(|k| k.ctx.object(handle(o)).ok())
            .map_or_else(
                || format!("handle {}:{}", o.slot, o.generation),
                |x| x.id.to_string(),
            )
    }

    /// Refuses `what` in a detached call, and from the presentation slots
    /// ([`SlotRole::writes_world`]): audio (2.6) and render (2.8) read the world and never
    /// change it, so a sound card, a renderer or a switch between renderers cannot change
    /// the simulation (their state is not in the state hash). A service follows the AI
    /// slot's rules ([`Caller::rules`]).
    fn may_write(&self, what: &str) -> Result<(), PluginError> {
        self.attached(what)?;
        let rules = self.caller.rules();
        if !SlotRole::of(rules).writes_world() {
            return Err(PluginError::new(
                ErrorKind::FORBIDDEN,
                format!("{what}: the {rules} slot reads the world and never changes it"),
            ));
        }
        Ok(())
    }

    /// The original id of a live handle, for the control service (which works on ids).
    fn live_id(&self, what: &str, o: ObjectRef) -> Result<u32, PluginError> {
        self.get(what, o).map(|x| x.id.0)
    }
}

impl HostApi for HostCall<'_, '_> {
    fn clock(&self) -> ClockInfo {
        let Some(k) = &self.kernel else {
            return ClockInfo {
                tick: 0,
                step_ns: 1_000_000_000 / u64::from(self.shared.tick_hz.max(1)),
                game_time_ns: 0,
                paused: false,
                phase: u32::MAX,
            };
        };
        let t = k.ctx.time();
        ClockInfo {
            tick: t.tick,
            step_ns: t.step_ns,
            game_time_ns: t.sim_ns(),
            paused: t.paused,
            phase: k.ctx.phase().stamp(),
        }
    }

    fn input(&self) -> InputView<'_> {
        match &self.kernel {
            Some(k) => k.input.view(),
            None => InputView {
                pressed: RSlice::from_slice(&[]),
                released: RSlice::from_slice(&[]),
                held: RSlice::from_slice(&[]),
                axes: RSlice::from_slice(&[]),
                manual: RSlice::from_slice(&[]),
                commands: RSlice::from_slice(&[]),
            },
        }
    }

    fn object_count(&self) -> u32 {
        self.kernel.as_ref().map_or(0, |k| {
            u32::try_from(k.ctx.world().registered_count()).unwrap_or(u32::MAX)
        })
    }

    fn object_at(&self, index: u32) -> ROption<ObjectRef> {
        let Some(k) = &self.kernel else {
            return ROption::RNone;
        };
        let mut order = self.order.borrow_mut();
        let order =
            order.get_or_insert_with(|| k.ctx.world().iter_registered().map(|(h, _)| h).collect());
        order.get(index as usize).copied().map(object_ref).into()
    }

    fn find(&self, id: u32) -> ROption<ObjectRef> {
        self.kernel
            .as_ref()
            .and_then(|k| k.ctx.world().handle_of(OriginalObjectId(id)))
            .map(object_ref)
            .into()
    }

    fn object(&self, object: ObjectRef) -> RResult<ObjectInfo, PluginError> {
        let layout = match self.attached("object") {
            Ok(k) => k.ctx.world().id_layout(),
            Err(e) => return RErr(e),
        };
        self.get("object", object)
            .map(|o| ObjectInfo {
                handle: object,
                id: o.id.raw(),
                owner: o.id.owner_player(layout),
                class: o.id.class(layout),
                index: o.id.index(layout),
                kind: o.kind,
                mirror: matches!(o.locality, Locality::Mirror { .. }),
                owner_player: match o.locality {
                    Locality::Mirror { owner_player } => owner_player,
                    Locality::Local => 0,
                },
                active: o.active,
                registered: o.is_registered(),
                position: o.transform.position.into(),
                orientation: o.transform.orientation.into(),
                scale: o.transform.scale.into(),
                velocity: o.velocity.into(),
                behaviour_state: o.behaviour_state,
            })
            .into()
    }

    fn set_transform(
        &mut self,
        object: ObjectRef,
        position: Vec3f,
        orientation: Quatf,
        scale: Vec3f,
    ) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_transform") {
            return RErr(e);
        }
        if !finite(position) || !finite_q(orientation) || !finite(scale) {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "set_transform of object {}: NaN or infinite value refused",
                    self.id_of(object)
                ),
            ));
        }
        self.writable("set_transform", object)
            .map(|o| {
                o.transform = Transform {
                    position: position.into(),
                    orientation: orientation.into(),
                    scale: scale.into(),
                };
            })
            .into()
    }

    fn set_velocity(&mut self, object: ObjectRef, velocity: Vec3f) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_velocity") {
            return RErr(e);
        }
        if !finite(velocity) {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "set_velocity of object {}: NaN or infinite value refused",
                    self.id_of(object)
                ),
            ));
        }
        self.writable("set_velocity", object)
            .map(|o| o.velocity = velocity.into())
            .into()
    }

    fn set_behaviour_state(&mut self, object: ObjectRef, state: u32) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_behaviour_state") {
            return RErr(e);
        }
        self.writable("set_behaviour_state", object)
            .map(|o| o.behaviour_state = state)
            .into()
    }

    fn set_active(&mut self, object: ObjectRef, active: bool) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_active") {
            return RErr(e);
        }
        self.writable("set_active", object)
            .map(|o| o.active = active)
            .into()
    }

    fn property(
        &self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
    ) -> RResult<ROption<[u32; 4]>, PluginError> {
        self.get("property", object)
            .map(|o| o.props.first(name.as_slice()).map(|p| p.raw_value).into())
            .into()
    }

    fn set_property(
        &mut self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
        value: &[u32; 4],
    ) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_property") {
            return RErr(e);
        }
        let value = *value;
        self.writable("set_property", object)
            .map(|o| match o.props.first_mut(name.as_slice()) {
                Some(p) => p.raw_value = value,
                None => o.props.push(name.to_vec(), value),
            })
            .into()
    }

    fn append_property(
        &mut self,
        object: ObjectRef,
        name: RSlice<'_, u8>,
        value: &[u32; 4],
    ) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("append_property") {
            return RErr(e);
        }
        let value = *value;
        self.writable("append_property", object)
            .map(|o| o.props.push(name.to_vec(), value))
            .into()
    }

    fn properties(&self, object: ObjectRef) -> RResult<RVec<Property>, PluginError> {
        self.get("properties", object)
            .map(|o| {
                o.props
                    .iter()
                    .map(|p| Property {
                        name: p.name.clone().into(),
                        value: p.raw_value,
                    })
                    .collect()
            })
            .into()
    }

    fn prototype(&self, object: ObjectRef) -> RResult<RVec<u8>, PluginError> {
        self.get("prototype", object)
            .map(|o| RVec::from(o.prototype.to_vec()))
            .into()
    }

    fn create(&mut self, object: &NewObject) -> RResult<ObjectRef, PluginError> {
        if let Err(e) = self.may_write("create") {
            return RErr(e);
        }
        self.order.replace(None);
        if !finite(object.position)
            || !finite_q(object.orientation)
            || !finite(object.scale)
            || !finite(object.velocity)
        {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                "create: NaN or infinite value refused",
            ));
        }
        let ctx = match self.attached_mut("create") {
            Ok(k) => &mut *k.ctx,
            Err(e) => return RErr(e),
        };
        // PD-ID-CREATE: without an id, the object gets the highest id in use + 1.
        let id = match object.id {
            ROption::RSome(id) => OriginalObjectId(id),
            ROption::RNone => {
                let next = ctx
                    .world()
                    .max_id()
                    .map_or(Some(1), |m| m.raw().checked_add(1));
                match next {
                    Some(n) => OriginalObjectId(n),
                    None => {
                        return RErr(PluginError::new(
                            ErrorKind::INVALID,
                            "create: no free object id above the highest in use",
                        ));
                    }
                }
            }
        };
        let mut props = PropertyBag::new();
        for p in object.properties.iter() {
            props.push(p.name.to_vec(), p.value);
        }
        let desc = ObjectDesc {
            id: Some(id),
            kind: object.kind,
            transform: Transform {
                position: object.position.into(),
                orientation: object.orientation.into(),
                scale: object.scale.into(),
            },
            velocity: object.velocity.into(),
            props,
            prototype: object.prototype.to_vec(),
        };
        let created = ctx.create(desc).map_err(kernel_err);
        let h = match created {
            Ok(h) => h,
            Err(e) => return RErr(e),
        };
        if let Err(e) = ctx.add_to_game(h) {
            let _ = ctx.delete(h, DeleteMode::Forced);
            return RErr(kernel_err(e));
        }
        ROk(object_ref(h))
    }

    fn delete(&mut self, object: ObjectRef) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("delete") {
            return RErr(e);
        }
        self.order.replace(None);
        if let Err(e) = self.get("delete", object) {
            return RErr(e);
        }
        self.attached_mut("delete")
            .and_then(|k| {
                k.ctx
                    .delete(handle(object), DeleteMode::Normal)
                    .map_err(kernel_err)
            })
            .map(|_| ())
            .into()
    }

    fn kill(&mut self, object: ObjectRef) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("kill") {
            return RErr(e);
        }
        self.order.replace(None);
        if let Err(e) = self.get("kill", object) {
            return RErr(e);
        }
        self.attached_mut("kill")
            .and_then(|k| k.ctx.kill(handle(object)).map_err(kernel_err))
            .map(|_| ())
            .into()
    }

    fn read_bodies(&self, out: &mut RVec<Body>) {
        out.clear();
        let Some(k) = &self.kernel else {
            return;
        };
        // A pending delete is gone for the plugins: it must not be touched again.
        for (h, o) in k
            .ctx
            .world()
            .iter_registered()
            .filter(|(_, o)| !o.is_pending_delete())
        {
            out.push(Body {
                handle: object_ref(h),
                id: o.id.raw(),
                mirror: matches!(o.locality, Locality::Mirror { .. }),
                active: o.active,
                position: o.transform.position.into(),
                orientation: o.transform.orientation.into(),
                velocity: o.velocity.into(),
                behaviour_state: o.behaviour_state,
            });
        }
    }

    fn write_bodies(&mut self, bodies: RSlice<'_, BodyWrite>) -> RResult<u32, PluginError> {
        if let Err(e) = self.may_write("write_bodies") {
            return RErr(e);
        }
        // Validate everything first: on any error nothing is written.
        for b in bodies.iter() {
            let o = match self.get("write_bodies", b.handle) {
                Ok(o) => o,
                Err(e) => return RErr(e),
            };
            if !finite(b.position) || !finite_q(b.orientation) || !finite(b.velocity) {
                return RErr(PluginError::new(
                    ErrorKind::INVALID,
                    format!(
                        "write_bodies: object {}: NaN or infinite value refused; nothing written",
                        o.id
                    ),
                ));
            }
            if matches!(o.locality, Locality::Mirror { .. }) && self.caller.rules() != SlotKind::Net
            {
                return RErr(PluginError::new(
                    ErrorKind::INVALID,
                    format!(
                        "write_bodies: object {} is a mirror: only the net slot may write it; nothing written",
                        o.id
                    ),
                ));
            }
        }
        let ctx = match self.attached_mut("write_bodies") {
            Ok(k) => &mut *k.ctx,
            Err(e) => return RErr(e),
        };
        // The phase check, before the first write.
        if let Some(first) = bodies.first() {
            if let Err(e) = ctx.object_mut(handle(first.handle)) {
                return RErr(kernel_err(e));
            }
        }
        let mut n = 0u32;
        for b in bodies.iter() {
            match ctx.object_mut(handle(b.handle)) {
                Ok(o) => {
                    o.transform.position = b.position.into();
                    o.transform.orientation = b.orientation.into();
                    o.velocity = b.velocity.into();
                    n += 1;
                }
                Err(e) => return RErr(kernel_err(e)),
            }
        }
        ROk(n)
    }

    fn send(&mut self, target: MessageTarget, message: &Message) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("send") {
            return RErr(e);
        }
        let k = match self.attached_mut("send") {
            Ok(k) => k,
            Err(e) => return RErr(e),
        };
        let (kernel_target, to_system) = match target.kind {
            0 => match k.ctx.world().handle_of(OriginalObjectId(target.object)) {
                Some(h) => (Target::Object(h), None),
                None => {
                    return RErr(PluginError::new(
                        ErrorKind::NO_SUCH_OBJECT,
                        format!("send: no object with id {}", target.object),
                    ));
                }
            },
            1 => (Target::Systems, Some(format!("plugin:{}", target.slot))),
            2 => (Target::Systems, None),
            k => {
                return RErr(PluginError::new(
                    ErrorKind::INVALID,
                    format!("send: unknown target kind {k}"),
                ));
            }
        };
        let m = match game_message(message, Some(k.system), to_system) {
            Ok(m) => m,
            Err(e) => return RErr(e),
        };
        k.ctx.send(kernel_target, m).map_err(kernel_err).into()
    }

    fn rng_seed(&self, stream: RStr<'_>) -> u64 {
        match self.caller {
            Caller::Slot(slot) => self.shared.rng_seed(*slot, stream.as_str()),
            Caller::Service(service) => self.shared.service_seed(service, stream.as_str()),
        }
    }

    fn read_mission_file(&self, name: RStr<'_>) -> RResult<RVec<u8>, PluginError> {
        self.shared
            .read_mission_file(name.as_str())
            .map(RVec::from)
            .into()
    }

    fn mission_parameter(&self, key: RStr<'_>) -> ROption<abi_stable::std_types::RString> {
        self.shared.mission_parameter(key.as_str())
    }

    fn terrain_height(&mut self, x: f32, y: f32) -> RResult<f32, PluginError> {
        self.terrain("terrain height", |t| t.height_at(x, y))
    }

    fn terrain_normal(&mut self, x: f32, y: f32) -> RResult<Vec3f, PluginError> {
        self.terrain("terrain normal", |t| t.normal_at(x, y))
    }

    fn terrain_segment(&mut self, a: Vec3f, b: Vec3f) -> RResult<ROption<Vec3f>, PluginError> {
        self.terrain("terrain segment", |t| t.intersect_segment(a, b))
    }

    fn terrain_area(&mut self, x: f32, y: f32) -> RResult<ROption<u32>, PluginError> {
        self.terrain("terrain area", |t| t.area_at(x, y))
    }

    fn terrain_route(&mut self, from: Vec3f, to: Vec3f) -> RResult<RVec<u32>, PluginError> {
        self.terrain("terrain route", |t| t.route(from, to))
    }

    fn terrain_corridor(&mut self, from: Vec3f, to: Vec3f) -> RResult<RVec<Portal>, PluginError> {
        self.terrain("terrain corridor", |t| t.corridor(from, to))
    }

    fn object_bounds(&self, object: ObjectRef) -> RResult<ROption<ModelBounds>, PluginError> {
        self.get("object bounds", object)
            .map(|o| self.shared.bounds_of(&o.prototype).into())
            .into()
    }

    fn terrain_probe(
        &mut self,
        points: RSlice<'_, Vec3f>,
    ) -> RResult<RVec<GroundSample>, PluginError> {
        self.terrain("terrain probe", |t| t.probe(points))
    }

    fn terrain_passage(
        &mut self,
        from: Vec3f,
        to: Vec3f,
        avoid: RSlice<'_, AreaLink>,
    ) -> RResult<Passage, PluginError> {
        self.terrain("terrain passage", |t| t.passage(from, to, avoid))
    }

    fn control_set_motion(
        &mut self,
        object: ObjectRef,
        request: &MotionRequest,
    ) -> RResult<(), PluginError> {
        // Detached, the refusal names `control set_motion` as the other control calls
        // name theirs (not the write rule's `control_set_motion`).
        if let Err(e) = self.attached("control set_motion") {
            return RErr(e);
        }
        if let Err(e) = self.may_write("control_set_motion") {
            return RErr(e);
        }
        if !finite(request.target) || !request.speed.is_finite() || !request.turn.is_finite() {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "control set_motion: object {}: non-finite request {request:?}",
                    self.id_of(object)
                ),
            ));
        }
        let id = match self.live_id("control set_motion", object) {
            Ok(id) => id,
            Err(e) => return RErr(e),
        };
        self.control("control set_motion", |mut c| c.set_motion(id, request))
    }

    fn control_state(&mut self, object: ObjectRef) -> RResult<ROption<PhysicalState>, PluginError> {
        let id = match self.live_id("control state", object) {
            Ok(id) => id,
            Err(e) => return RErr(e),
        };
        self.control("control state", |mut c| c.state(id))
    }

    fn control_query_sphere(
        &mut self,
        centre: Vec3f,
        radius: f32,
    ) -> RResult<RVec<u32>, PluginError> {
        self.control("control query_sphere", |mut c| {
            c.query_sphere(centre, radius)
        })
    }

    fn control_query_box(&mut self, min: Vec3f, max: Vec3f) -> RResult<RVec<u32>, PluginError> {
        self.control("control query_box", |mut c| c.query_box(min, max))
    }

    fn control_ray(
        &mut self,
        a: Vec3f,
        b: Vec3f,
        ignore: ROption<u32>,
    ) -> RResult<ROption<RayHit>, PluginError> {
        self.control("control ray", |mut c| c.ray(a, b, ignore))
    }

    fn mission_outcome(&mut self, outcome: MissionOutcome) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("mission_outcome") {
            return RErr(e);
        }
        let (phase, tick) = match self.attached("mission_outcome") {
            Ok(k) => (k.ctx.phase(), k.ctx.time().tick),
            Err(e) => return RErr(e),
        };
        if !simulation_phase(phase) {
            return RErr(PluginError::new(
                ErrorKind::FORBIDDEN,
                format!("mission_outcome: only in simulation phases, not in {phase}"),
            ));
        }
        if !matches!(outcome, MissionOutcome::COMPLETE | MissionOutcome::FAILED) {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                format!("mission_outcome: unknown {}", outcome.name()),
            ));
        }
        let mut o = self
            .shared
            .outcome
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*o {
            Some(first) => tracing::warn!(
                slot = %self.caller, outcome = %outcome.name(), first = %first.outcome.name(),
                "mission outcome reported again: the first report stands"
            ),
            None => {
                tracing::info!(slot = %self.caller, outcome = %outcome.name(), tick, "mission decided");
                *o = Some(ReportedOutcome {
                    outcome,
                    // A service (never here today: its calls are detached) would report
                    // under the slot whose rules it follows.
                    slot: self.caller.rules(),
                    tick,
                });
            }
        }
        ROk(())
    }

    fn set_player_view(
        &mut self,
        view: &iron3d_abi::PlayerView,
        selected: RSlice<'_, u32>,
    ) -> RResult<(), PluginError> {
        if let Err(e) = self.may_write("set_player_view") {
            return RErr(e);
        }
        if selected.len() > iron3d_abi::MAX_SELECTED {
            return RErr(PluginError::new(
                ErrorKind::INVALID,
                format!(
                    "set_player_view: {} selected units (at most {})",
                    selected.len(),
                    iron3d_abi::MAX_SELECTED
                ),
            ));
        }
        let v = iron3d_kernel::PlayerView {
            eye: [view.eye.x, view.eye.y, view.eye.z],
            yaw: view.yaw,
            pitch: view.pitch,
            fov: view.fov,
            mode: view.mode.0,
            subject: view.subject,
            flags: view.flags,
            selected: selected.to_vec(),
            tick: 0,
        };
        self.attached_mut("set_player_view")
            .and_then(|k| k.ctx.set_player_view(v).map_err(kernel_err))
            .into()
    }

    fn call_service(
        &mut self,
        service: RStr<'_>,
        method: RStr<'_>,
        request: RSlice<'_, u8>,
    ) -> RResult<RVec<u8>, PluginError> {
        // Detached, the call is refused before any routing, naming the service.
        if let Err(e) = self.attached(&format!("call_service {service}")) {
            return RErr(e);
        }
        if let Err(e) = self.may_write("call_service") {
            return RErr(e);
        }
        self.named_service(service.as_str(), method.as_str(), request)
            .into()
    }

    fn use_extension(
        &mut self,
        id: ExtensionId,
        what: RStr<'_>,
        mut visit: ExtensionVisit_TO<'_, abi_stable::RMut<'_, ()>>,
    ) -> RResult<(), PluginError> {
        let what = what.as_str();
        match id {
            ExtensionId::TERRAIN => self.terrain(what, |t| visit.terrain(t)),
            // The control service moves units: the slots that may not change the world
            // (a detached call, the presentation slots) may not use it.
            ExtensionId::CONTROL => match self.may_write(what) {
                Ok(()) => self.control(what, |c| visit.control(c)),
                Err(e) => RErr(e),
            },
            other => RErr(PluginError::new(
                ErrorKind::UNSUPPORTED,
                format!("{what}: no typed service has id {}", other.0),
            )),
        }
    }

    fn interface_minor(&self) -> u32 {
        iron3d_abi::ABI_MINOR
    }
}

#[cfg(test)]
mod tests;
