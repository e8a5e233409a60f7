//! A registry slot as a kernel system: forwards the scheduler's calls to the active plugin
//! instance with a per-call host context, rolls back on faults and activates prepared
//! hot swaps at the calculation boundary.
//!
//! The active instance lives in a [`SlotCell`] shared with the other slots of the host,
//! so their plugins can call its services (routed by [`crate::call::HostCall`]); the
//! slot holds the cell's lock while its own plugin runs, which is how a service call
//! back into a running plugin is detected and refused.
//!
//! What differs between slots is the slot's `SlotRole` (`slot/role.rs`), chosen once
//! from its kind: simulation (calculation slot, state hash), render (`slot/render.rs`:
//! swap activation at the render phase, drawing, captures) or audio (`slot/audio.rs`:
//! the audio frame).

mod audio;
mod effects;
mod render;
mod role;

pub use render::{Capture, CaptureKind, render_world};
pub(crate) use role::SlotRole;

use crate::call::{Attached, Caller, HostCall, HostShared, InputCache};
use crate::convert::message_view;
use crate::library::LoadedLibrary;
use crate::log_sink::HostLogSink;
use abi_stable::RMut;
use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{ROption, RResult};
use crossbeam_channel::Sender;
use iron3d_abi::ffi::PluginInstanceBox;
use iron3d_abi::{
    HostApi_TO, HostContext, HostRef, MissionInfo, ObjectRef, PluginError, SlotKind, StateBlob,
    callbacks,
};
use iron3d_kernel::{
    CalcSlot, Envelope, GameMessage, ObjectHandle, Phase, RenderSnapshot, SavedState, System,
    SystemCtx, SystemError, SystemResult, Target, WorldChange,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One live plugin instance and where it came from.
pub struct Instance {
    /// The instance.
    pub object: PluginInstanceBox,
    /// Its library (kept alive; libraries are never unloaded).
    pub library: Arc<LoadedLibrary>,
    /// Factory that created it.
    pub factory: String,
    /// The callbacks the host still calls (`iron3d_abi::callbacks` bits): every one for a
    /// plugin built against 2.9 or later, less those it declined
    /// ([`iron3d_abi::ErrorKind::DECLINED`]); the declared ones for an older plugin.
    pub callbacks: u32,
    /// What the instance is for: the registry slot it fills, or the service plugin it is
    /// (its seeds, logs and reports are then the service's; it fills no slot).
    pub caller: Caller,
}

/// The active instance of a slot, shared for service routing.
pub type SlotCell = Arc<Mutex<Option<Instance>>>;

impl Instance {
    /// Creates an instance of `factory` from `library` for `slot` and starts it on the
    /// mission of `host` (`mission_start` with a detached context: files and seeds, no
    /// world). Runs off the simulation boundary (start-up, swap preparation).
    pub fn create(
        library: Arc<LoadedLibrary>,
        factory: &str,
        slot: SlotKind,
        host: &HostShared,
    ) -> Result<Self, crate::HostError> {
        Self::start(library, factory, Caller::Slot(slot), host)
    }

    /// Creates the service plugin `service` from `factory` of `library` and starts it on
    /// the mission of `host` (as [`Instance::create`]; its seeds are the service's).
    pub fn create_service(
        library: Arc<LoadedLibrary>,
        factory: &str,
        service: &str,
        host: &HostShared,
    ) -> Result<Self, crate::HostError> {
        Self::start(library, factory, Caller::Service(service.to_owned()), host)
    }

    fn start(
        library: Arc<LoadedLibrary>,
        factory: &str,
        caller: Caller,
        host: &HostShared,
    ) -> Result<Self, crate::HostError> {
        let context = HostContext {
            plugin: library.name().into(),
            log: HostLogSink::boxed(library.name()),
            log_mode: iron3d_abi::LogMode::ImageGlobal,
        };
        let err = |stage: &'static str, e: PluginError| crate::HostError::Instance {
            plugin: library.name().to_owned(),
            path: library.source.clone(),
            factory: factory.to_owned(),
            stage,
            reason: e.to_string(),
        };
        let mut object = match (library.root.create())(factory.into(), context) {
            RResult::ROk(o) => o,
            RResult::RErr(e) => return Err(err("create", e)),
        };
        let info = MissionInfo {
            mission: host.mission.as_str().into(),
            seed: host.seed,
            tick_hz: host.tick_hz,
            load_number: host.load_number,
            has_game_data: host.files.is_some(),
        };
        let mut call = HostCall::detached(host, &caller);
        let ctx: HostRef<'_> = HostApi_TO::from_ptr(RMut::new(&mut call), TD_Opaque);
        if let RResult::RErr(e) = object.mission_start(ctx, &info) {
            let _ = object.shutdown();
            return Err(err("mission_start", e));
        }
        let declared = library
            .description
            .factories
            .iter()
            .find(|f| f.name.as_str() == factory)
            .map_or(callbacks::ALL, |f| f.callbacks);
        let callbacks = callbacks::initial(library.description.abi_minor, declared);
        Ok(Self {
            object,
            library,
            factory: factory.to_owned(),
            callbacks,
            caller,
        })
    }

    /// `name version factory (path)` for logs and reports.
    pub fn label(&self) -> String {
        format!(
            "{} {} {} ({})",
            self.library.name(),
            self.library.version(),
            self.factory,
            self.library.source.display()
        )
    }

    /// `mission_end` then `shutdown` (which drops the plugin's state inside the plugin's
    /// guard), as its [`Instance::caller`]; each failure — a panic in the plugin's
    /// destructor included — is logged and returned for a [`HostEvent::ShutdownFailed`]
    /// (a slot's instance) or [`HostEvent::ServiceShutdownFailed`] (a service).
    pub fn finish(&mut self, host: &HostShared) -> Vec<String> {
        let mut failures = Vec::new();
        let mut call = HostCall::detached(host, &self.caller);
        let ctx: HostRef<'_> = HostApi_TO::from_ptr(RMut::new(&mut call), TD_Opaque);
        let owner = &self.caller;
        if let RResult::RErr(e) = self.object.mission_end(ctx) {
            tracing::warn!(%owner, instance = %self.label(), error = %e, "mission_end failed");
            failures.push(e.to_string());
        }
        if let RResult::RErr(e) = self.object.shutdown() {
            tracing::warn!(%owner, instance = %self.label(), error = %e, "shutdown failed");
            failures.push(e.to_string());
        }
        failures
    }

    /// [`Instance::finish`], with each failure sent as a [`HostEvent::ShutdownFailed`]
    /// naming the slot, or for a service a [`HostEvent::ServiceShutdownFailed`] naming
    /// the service.
    pub fn finish_reporting(&mut self, host: &HostShared, events: &Sender<HostEvent>) {
        let instance = self.label();
        for reason in self.finish(host) {
            let event = match &self.caller {
                Caller::Slot(slot) => HostEvent::ShutdownFailed {
                    slot: *slot,
                    instance: instance.clone(),
                    reason,
                },
                Caller::Service(service) => HostEvent::ServiceShutdownFailed {
                    service: service.clone(),
                    instance: instance.clone(),
                    reason,
                },
            };
            let _ = events.send(event);
        }
    }
}

/// What happened in the host, in order (also logged).
#[derive(Clone, Debug, PartialEq)]
pub enum HostEvent {
    /// A slot got its instance at start-up.
    Loaded {
        /// Slot.
        slot: SlotKind,
        /// `name version factory (path)`.
        instance: String,
    },
    /// A slot could not load its registry plugin and runs its fallback.
    LoadFailed {
        /// Slot.
        slot: SlotKind,
        /// Why.
        reason: String,
        /// What runs instead.
        fallback: String,
    },
    /// A hot swap became active.
    Swapped {
        /// Slot.
        slot: SlotKind,
        /// The old instance.
        from: String,
        /// The new instance.
        to: String,
        /// Tick after which the new instance runs.
        after_tick: u64,
        /// From the trigger (file event or request) to activation.
        latency: Duration,
    },
    /// A hot swap was refused; the old instance keeps running.
    SwapRefused {
        /// Slot.
        slot: SlotKind,
        /// The library or request.
        target: String,
        /// Why.
        reason: String,
    },
    /// A retired instance (replaced, rolled back or shut down) failed in `mission_end`,
    /// `shutdown` or its destructor (a panic caught inside the plugin); nothing else
    /// changes.
    ShutdownFailed {
        /// Slot.
        slot: SlotKind,
        /// The instance.
        instance: String,
        /// The plugin's message.
        reason: String,
    },
    /// The active instance failed; the slot rolled back.
    Fault {
        /// Slot.
        slot: SlotKind,
        /// The failed instance.
        instance: String,
        /// The phase of the failure.
        phase: Phase,
        /// The plugin's message.
        reason: String,
        /// What runs now.
        fallback: String,
        /// Which state the slot resumed from (never silently a half-updated one).
        state: String,
    },
    /// A service plugin was loaded at start-up.
    ServiceLoaded {
        /// The service name.
        service: String,
        /// `name version factory (path)`.
        instance: String,
    },
    /// A service plugin could not be loaded; the mission goes on without it.
    ServiceLoadFailed {
        /// The service name.
        service: String,
        /// Why.
        reason: String,
    },
    /// A service plugin failed in `mission_end`, `shutdown` or its destructor.
    ServiceShutdownFailed {
        /// The service name.
        service: String,
        /// The instance.
        instance: String,
        /// The plugin's message.
        reason: String,
    },
}

/// A prepared (created and initialised, not yet active) instance.
pub struct PreparedSwap {
    /// The new instance.
    pub instance: Instance,
    /// When the swap was triggered.
    pub triggered_at: Instant,
}

/// State shared between a slot (owned by the kernel) and the host controller.
pub struct SlotShared {
    /// The slot.
    pub slot: SlotKind,
    /// A swap waiting for the next boundary.
    pub pending: Mutex<Option<PreparedSwap>>,
    /// `name version factory (path)` of the active instance, or `vacant`.
    pub active_label: Mutex<String>,
    /// The active library's source path (watched for changes).
    pub active_source: Mutex<Option<(PathBuf, [u8; 32], String)>>,
    /// Faults seen.
    pub faults: Mutex<u64>,
    /// Swaps completed.
    pub swaps: Mutex<u64>,
    /// A capture to take right after the next drawn frame (render slot).
    pub capture_request: Mutex<Option<CaptureKind>>,
    /// The result of the last capture request.
    pub capture_result: Mutex<Option<Result<Capture, String>>>,
}

impl SlotShared {
    /// Empty shared state for `slot`.
    pub fn new(slot: SlotKind) -> Arc<Self> {
        Arc::new(Self {
            slot,
            pending: Mutex::new(None),
            active_label: Mutex::new("vacant".into()),
            active_source: Mutex::new(None),
            faults: Mutex::new(0),
            swaps: Mutex::new(0),
            capture_request: Mutex::new(None),
            capture_result: Mutex::new(None),
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Creates a null fallback instance for a slot.
pub type FallbackFactory = Arc<dyn Fn(SlotKind) -> Option<Instance> + Send + Sync>;

/// The kernel-side adapter of one registry slot.
pub struct PluginSlot {
    shared: Arc<SlotShared>,
    /// What the slot does beyond the generic forwarding (from its kind).
    role: SlotRole,
    /// The slot as the caller of its plugin's host calls.
    caller: Caller,
    host: Arc<HostShared>,
    name: String,
    cell: SlotCell,
    previous: Option<Instance>,
    fallback: FallbackFactory,
    events: Sender<HostEvent>,
    input: InputCache,
    /// The callback bits of the active instance (kept with the cell, so the per-object
    /// check takes no lock).
    active_callbacks: u32,
}

fn object_ref(h: ObjectHandle) -> ObjectRef {
    ObjectRef {
        slot: h.slot,
        generation: h.generation,
    }
}

impl PluginSlot {
    /// A slot running `active` (or vacant) in `cell`, with `fallback` for faults.
    pub fn new(
        shared: Arc<SlotShared>,
        host: Arc<HostShared>,
        cell: SlotCell,
        active: Option<Instance>,
        fallback: FallbackFactory,
        events: Sender<HostEvent>,
    ) -> Self {
        let slot = shared.slot;
        *lock(&cell) = active;
        let me = Self {
            shared,
            role: SlotRole::of(slot),
            caller: Caller::Slot(slot),
            host,
            name: format!("plugin:{slot}"),
            cell,
            previous: None,
            fallback,
            events,
            input: InputCache::default(),
            active_callbacks: 0,
        };
        let mut me = me;
        me.publish_active();
        me
    }

    /// True when the active instance takes callback `bit`.
    fn wants(&self, bit: u32) -> bool {
        self.active_callbacks & bit != 0
    }

    /// The answer of callback `bit` of `instance`: a decline retires the callback for
    /// that instance (never a fault), anything else is passed on.
    fn settle(
        active: &mut u32,
        instance: &mut Instance,
        bit: u32,
        r: RResult<(), PluginError>,
    ) -> RResult<(), PluginError> {
        match r {
            RResult::RErr(e) if e.kind == iron3d_abi::ErrorKind::DECLINED => {
                instance.callbacks &= !bit;
                *active &= !bit;
                tracing::debug!(instance = %instance.label(), bit, "callback declined: no longer called");
                RResult::ROk(())
            }
            r => r,
        }
    }

    /// Publishes the active instance (label, source, callbacks); call after every change
    /// of the cell.
    fn publish_active(&mut self) {
        let cell = lock(&self.cell);
        self.active_callbacks = cell.as_ref().map_or(0, |a| a.callbacks);
        *lock(&self.shared.active_label) = cell
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        *lock(&self.shared.active_source) = cell.as_ref().map(|i| {
            (
                i.library.source.clone(),
                i.library.content_hash,
                i.factory.clone(),
            )
        });
    }

    /// Runs `f` on the active instance with a host context over `ctx`; an error rolls
    /// the slot back (see [`PluginSlot::fault`]).
    fn run(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        phase: Phase,
        bit: u32,
        f: impl FnOnce(&mut Instance, HostRef<'_>) -> RResult<(), PluginError>,
    ) -> SystemResult {
        self.input.refresh(ctx);
        let cell = self.cell.clone();
        let mut guard = lock(&cell);
        let Some(instance) = guard.as_mut() else {
            return Ok(());
        };
        let r = {
            let mut call = HostCall {
                kernel: Some(Attached {
                    ctx,
                    system: &self.name,
                    input: &self.input,
                }),
                shared: &self.host,
                caller: &self.caller,
                order: Default::default(),
            };
            let host: HostRef<'_> = HostApi_TO::from_ptr(RMut::new(&mut call), TD_Opaque);
            let r = f(instance, host);
            Self::settle(&mut self.active_callbacks, instance, bit, r)
        };
        drop(guard);
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => Err(self.fault(phase, &e)),
        }
    }

    /// Rolls back after `reason`: previous instance (with the failed instance's state
    /// when it can still save it), else a null instance, else vacant. The event says
    /// which state the slot resumed from.
    fn fault(&mut self, phase: Phase, reason: &PluginError) -> SystemError {
        let slot = self.shared.slot;
        let failed = lock(&self.cell).take();
        let failed_label = failed
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        let blob = failed
            .as_ref()
            .and_then(|f| f.object.save_state().into_result().ok());
        let mut replacement = self.previous.take().or_else(|| (self.fallback)(slot));
        let state = match (replacement.as_mut(), blob.as_ref()) {
            (Some(r), Some(b)) => match r.object.restore_state(b) {
                RResult::ROk(()) => format!(
                    "the failed instance's state ({} v{}, {} bytes) saved after the fault",
                    b.format,
                    b.version,
                    b.bytes.len()
                ),
                RResult::RErr(e) => {
                    tracing::warn!(%slot, error = %e, "fallback instance kept its own state");
                    format!("the replacement's own state (it refused the failed instance's: {e})")
                }
            },
            (Some(_), None) => {
                "the replacement's own state (the failed instance could not save)".to_owned()
            }
            (None, _) => "nothing: the slot is vacant".to_owned(),
        };
        *lock(&self.cell) = replacement;
        let fallback = lock(&self.cell)
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        *lock(&self.shared.faults) += 1;
        tracing::error!(%slot, instance = %failed_label, %phase, error = %reason, now = %fallback, %state, "plugin fault: rolled back");
        let _ = self.events.send(HostEvent::Fault {
            slot,
            instance: failed_label.clone(),
            phase,
            reason: reason.to_string(),
            fallback,
            state,
        });
        self.publish_active();
        if let Some(mut f) = failed {
            f.finish_reporting(&self.host, &self.events);
        }
        SystemError(format!("{failed_label}: {reason}"))
    }

    /// Activates a prepared swap (state handed over); `tick` is the last completed tick.
    fn activate_pending_at(&mut self, tick: u64) {
        let Some(prepared) = lock(&self.shared.pending).take() else {
            return;
        };
        let slot = self.shared.slot;
        let to = prepared.instance.label();
        let refuse = |events: &Sender<HostEvent>, reason: String| {
            tracing::warn!(%slot, target = %to, %reason, "hot swap refused; the old instance keeps running");
            let _ = events.send(HostEvent::SwapRefused {
                slot,
                target: to.clone(),
                reason,
            });
        };
        let mut cell = lock(&self.cell);
        let blob: StateBlob = match cell.as_ref().map(|a| a.object.save_state()) {
            Some(RResult::ROk(b)) => b,
            Some(RResult::RErr(e)) => {
                drop(cell);
                let mut new = prepared.instance;
                new.finish_reporting(&self.host, &self.events);
                return refuse(
                    &self.events,
                    format!("the old instance could not save its state: {e}"),
                );
            }
            None => StateBlob::default(),
        };
        let mut new = prepared.instance;
        if cell.is_some() {
            if let RResult::RErr(e) = new.object.restore_state(&blob) {
                drop(cell);
                new.finish_reporting(&self.host, &self.events);
                return refuse(
                    &self.events,
                    format!("the new instance refused the state: {e}"),
                );
            }
        }
        let old = cell.replace(new);
        drop(cell);
        let from = old
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        if let Some(mut evicted) = std::mem::replace(&mut self.previous, old) {
            evicted.finish_reporting(&self.host, &self.events);
        }
        *lock(&self.shared.swaps) += 1;
        let latency = prepared.triggered_at.elapsed();
        tracing::info!(%slot, %from, %to, after_tick = tick, latency_us = latency.as_micros() as u64, "hot swap active");
        let _ = self.events.send(HostEvent::Swapped {
            slot,
            from,
            to,
            after_tick: tick,
            latency,
        });
        self.publish_active();
    }
}

impl System for PluginSlot {
    fn name(&self) -> &str {
        &self.name
    }

    fn calc_slot(&self) -> Option<CalcSlot> {
        self.role.calc_slot()
    }

    fn on_boundary(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        let faulted = self
            .host
            .provider_faults
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.shared.slot);
        let fault = faulted.map(|(phase, reason)| {
            let e = PluginError::new(iron3d_abi::ErrorKind::PANICKED, reason);
            self.fault(phase, &e)
        });
        self.activate_pending_at(ctx.time().tick);
        fault.map_or(Ok(()), Err)
    }

    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, object: ObjectHandle) -> SystemResult {
        if !self.wants(callbacks::CALCULATE_OBJECT) {
            return Ok(());
        }
        let o = object_ref(object);
        self.run(
            ctx,
            Phase::CalculateWorld,
            callbacks::CALCULATE_OBJECT,
            |i, host| i.object.calculate_object(host, o),
        )
    }

    fn on_message(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        object: Option<ObjectHandle>,
        envelope: &Envelope,
    ) -> SystemResult {
        if !self.wants(callbacks::MESSAGES) {
            return Ok(());
        }
        if let GameMessage::Plugin(p) = &envelope.message {
            if p.to_system.as_deref().is_some_and(|n| n != self.name) {
                return Ok(());
            }
        }
        let message = message_view(&envelope.message, envelope.sequence);
        let target = match envelope.target {
            Target::Object(_) => object.map(object_ref),
            Target::Systems => None,
        };
        self.run(
            ctx,
            Phase::DeliverMessages,
            callbacks::MESSAGES,
            |i, host| i.object.on_message(host, ROption::from(target), &message),
        )
    }

    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        if !self.wants(callbacks::UPDATE) {
            return Ok(());
        }
        self.run(ctx, Phase::UpdateSystems, callbacks::UPDATE, |i, host| {
            i.object.update(host)
        })
    }

    fn on_objects_changed(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        changes: &[WorldChange],
    ) -> SystemResult {
        for &change in changes {
            // Checked per change: a fault or a decline on the way may have changed what
            // the instance takes.
            if !self.wants(callbacks::OBJECTS | callbacks::OBJECT_REMOVED) {
                return Ok(());
            }
            match change {
                WorldChange::Added(h, _) if self.wants(callbacks::OBJECTS) => {
                    let o = object_ref(h);
                    self.run(ctx, Phase::ReportChanges, callbacks::OBJECTS, |i, host| {
                        i.object.object_added(host, o)
                    })?;
                }
                WorldChange::Removed(id) if self.wants(callbacks::OBJECT_REMOVED) => {
                    let id = id.raw();
                    self.run(
                        ctx,
                        Phase::ReportChanges,
                        callbacks::OBJECT_REMOVED,
                        |i, host| i.object.object_removed(host, id),
                    )?;
                }
                WorldChange::Added(..) | WorldChange::Removed(_) => {}
            }
        }
        Ok(())
    }

    fn render(&mut self, snapshot: &RenderSnapshot) -> SystemResult {
        match self.role {
            SlotRole::Audio => self.audio_frame(snapshot),
            SlotRole::Effects => self.effects_frame(snapshot),
            SlotRole::Render => {
                // A renderer is not part of the simulation: a swap of the render slot also
                // takes effect at the frame's render phase, so a new renderer draws the very
                // next frame even when that frame runs no tick.
                self.activate_pending_at(snapshot.tick);
                self.draw(snapshot)
            }
            // Kept from before the roles: a simulation slot's plugin that takes
            // `callbacks::RENDER` is asked for a render backend too, and drawn when it
            // offers one (no swap activates here; captures are the render slot's).
            SlotRole::Simulation(_) => self.draw(snapshot),
            SlotRole::Net => Ok(()),
        }
    }

    fn end_frame(&mut self, frame: u64) -> SystemResult {
        if !self.wants(callbacks::END_FRAME) {
            return Ok(());
        }
        let r = match lock(&self.cell).as_mut() {
            Some(a) => {
                let r = a.object.end_frame(frame);
                Self::settle(&mut self.active_callbacks, a, callbacks::END_FRAME, r)
            }
            None => return Ok(()),
        };
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => Err(self.fault(Phase::EndFrame, &e)),
        }
    }

    fn maintenance(&mut self) -> SystemResult {
        if !self.wants(callbacks::MAINTENANCE) {
            return Ok(());
        }
        let r = match lock(&self.cell).as_mut() {
            Some(a) => {
                let r = a.object.maintenance();
                Self::settle(&mut self.active_callbacks, a, callbacks::MAINTENANCE, r)
            }
            None => return Ok(()),
        };
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => Err(self.fault(Phase::Maintenance, &e)),
        }
    }

    fn state_digest(&self) -> Option<[u8; 32]> {
        // Presentation is not simulation (see `SlotRole::hashed`).
        if !self.role.hashed() {
            return None;
        }
        let cell = lock(&self.cell);
        let a = cell.as_ref()?;
        let mut h = blake3::Hasher::new();
        match a.object.save_state() {
            RResult::ROk(b) => {
                h.update(b.format.as_bytes());
                h.update(&b.version.to_le_bytes());
                h.update(&(b.bytes.len() as u64).to_le_bytes());
                h.update(&b.bytes);
            }
            RResult::RErr(e) => {
                h.update(b"save_state failed:");
                h.update(e.message.as_bytes());
            }
        }
        Some(*h.finalize().as_bytes())
    }

    /// The running instance's state blob (every slot, presentation ones included: a
    /// loaded game goes on with the effects and music it had); `None` for a vacant slot.
    fn save_state(&self) -> Option<Result<SavedState, String>> {
        let cell = lock(&self.cell);
        let a = cell.as_ref()?;
        Some(match a.object.save_state() {
            RResult::ROk(b) => Ok(SavedState {
                format: b.format.to_string(),
                version: b.version,
                bytes: b.bytes.to_vec(),
            }),
            RResult::RErr(e) => Err(format!("{}: {e}", a.label())),
        })
    }

    /// Hands `state` to the running instance's `restore_state`, as a hot swap does.
    fn restore_state(&mut self, state: &SavedState) -> Result<(), String> {
        let mut cell = lock(&self.cell);
        let Some(a) = cell.as_mut() else {
            return Err(format!("slot {} is vacant", self.shared.slot));
        };
        let blob = StateBlob {
            format: state.format.as_str().into(),
            version: state.version,
            bytes: state.bytes.clone().into(),
        };
        match a.object.restore_state(&blob) {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => Err(format!("{}: {e}", a.label())),
        }
    }

    fn shutdown(&mut self) {
        if let Some(mut a) = lock(&self.cell).take() {
            a.finish_reporting(&self.host, &self.events);
        }
        if let Some(mut p) = self.previous.take() {
            p.finish_reporting(&self.host, &self.events);
        }
        if let Some(p) = lock(&self.shared.pending).take() {
            let mut i = p.instance;
            i.finish_reporting(&self.host, &self.events);
        }
        self.publish_active();
    }
}
