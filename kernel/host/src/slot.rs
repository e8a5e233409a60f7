//! A registry slot as a kernel system: forwards the scheduler's calls to the active plugin
//! instance, applies its commands, rolls back on faults and activates prepared hot swaps
//! at the calculation boundary.

use crate::convert::{game_message, message_view, object_state, write_back};
use crate::library::LoadedLibrary;
use crate::log_sink::HostLogSink;
use abi_stable::std_types::{RResult, RSlice, RVec};
use crossbeam_channel::Sender;
use iron3d_abi::{
    Command, HostContext, InputCommand, MissionContext, ObjectState, PluginError, SlotKind,
    StateBlob, SubsystemBox, TickInfo, callbacks,
};
use iron3d_kernel::{
    CalcSlot, DeleteMode, Envelope, ObjectHandle, OriginalObjectId, Phase, RenderSnapshot, System,
    SystemCtx, SystemError, SystemResult, Target,
};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One live plugin instance and where it came from.
pub struct Instance {
    /// The instance.
    pub object: SubsystemBox,
    /// Its library (kept alive; libraries are never unloaded).
    pub library: Arc<LoadedLibrary>,
    /// Factory that created it.
    pub factory: String,
    /// The callbacks the factory declared (`iron3d_abi::callbacks` bits).
    pub callbacks: u32,
}

impl Instance {
    /// Creates an instance of `factory` from `library` and initialises it for `mission`.
    pub fn create(
        library: Arc<LoadedLibrary>,
        factory: &str,
        mission: &MissionContext,
    ) -> Result<Self, crate::HostError> {
        let host = HostContext {
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
        let mut object = match (library.root.create())(factory.into(), host) {
            RResult::ROk(o) => o,
            RResult::RErr(e) => return Err(err("create", e)),
        };
        if let RResult::RErr(e) = object.init(mission) {
            return Err(err("init", e));
        }
        let callbacks = library
            .description
            .factories
            .iter()
            .find(|f| f.name.as_str() == factory)
            .map_or(callbacks::ALL, |f| f.callbacks);
        Ok(Self {
            object,
            library,
            factory: factory.to_owned(),
            callbacks,
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

/// What to read back from a render backend after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureKind {
    /// The frame's pixels (`RenderBackend::capture`).
    Image,
    /// The frame's command list as JSON (`RenderBackend::capture_commands`).
    Commands,
}

/// A capture read back from a render backend.
#[derive(Clone, Debug, PartialEq)]
pub enum Capture {
    /// RGBA8 pixels.
    Image(iron3d_abi::ImageRgba8),
    /// JSON command list.
    Commands(String),
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
    name: String,
    active: Option<Instance>,
    previous: Option<Instance>,
    fallback: FallbackFactory,
    events: Sender<HostEvent>,
    out: RVec<Command>,
    tick_cache: (u64, Vec<InputCommand>, Vec<u32>),
    objects: Vec<ObjectState>,
}

impl PluginSlot {
    /// A slot running `active` (or vacant), with `fallback` for faults.
    pub fn new(
        shared: Arc<SlotShared>,
        active: Option<Instance>,
        fallback: FallbackFactory,
        events: Sender<HostEvent>,
    ) -> Self {
        let slot = shared.slot;
        let me = Self {
            shared,
            name: format!("plugin:{slot}"),
            active,
            previous: None,
            fallback,
            events,
            out: RVec::new(),
            tick_cache: (u64::MAX, Vec::new(), Vec::new()),
            objects: Vec::new(),
        };
        me.publish_active();
        me
    }

    /// True when the active instance declared callback `bit`.
    fn wants(&self, bit: u32) -> bool {
        self.active.as_ref().is_some_and(|a| a.callbacks & bit != 0)
    }

    fn publish_active(&self) {
        *lock(&self.shared.active_label) = self
            .active
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        *lock(&self.shared.active_source) = self.active.as_ref().map(|i| {
            (
                i.library.source.clone(),
                i.library.content_hash,
                i.factory.clone(),
            )
        });
    }

    fn refresh_tick_cache(&mut self, ctx: &SystemCtx<'_>) {
        let tick = ctx.time().tick;
        if self.tick_cache.0 != tick {
            self.tick_cache.0 = tick;
            self.tick_cache.1 = ctx
                .input()
                .commands
                .iter()
                .map(|&(code, arg)| InputCommand { code, arg })
                .collect();
            self.tick_cache.2 = ctx.input().held.iter().copied().collect();
        }
    }

    /// Rolls back after `reason`: previous instance (state handed over when the failed
    /// instance can still save), else a null instance, else vacant.
    fn fault(&mut self, phase: Phase, reason: &PluginError) -> SystemError {
        let failed = self.active.take();
        let failed_label = failed
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        let blob = failed
            .as_ref()
            .and_then(|f| f.object.save_state().into_result().ok());
        let mut replacement = self
            .previous
            .take()
            .or_else(|| (self.fallback)(self.shared.slot));
        if let (Some(r), Some(b)) = (replacement.as_mut(), blob.as_ref()) {
            if let RResult::RErr(e) = r.object.restore_state(b) {
                tracing::warn!(slot = %self.shared.slot, error = %e, "fallback instance kept its own state");
            }
        }
        self.active = replacement;
        let fallback = self
            .active
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        *lock(&self.shared.faults) += 1;
        tracing::error!(slot = %self.shared.slot, instance = %failed_label, %phase, error = %reason, now = %fallback, "plugin fault: rolled back");
        let _ = self.events.send(HostEvent::Fault {
            slot: self.shared.slot,
            instance: failed_label.clone(),
            phase,
            reason: reason.to_string(),
            fallback,
        });
        self.publish_active();
        // The failed instance is dropped here; its library stays mapped.
        drop(failed);
        SystemError(format!("{failed_label}: {reason}"))
    }

    fn apply_commands(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        for cmd in std::mem::take(&mut self.out).into_iter() {
            let handle = |ctx: &SystemCtx<'_>, id: u32| ctx.world().handle_of(OriginalObjectId(id));
            match cmd {
                Command::DeleteObject { id } => {
                    if let Some(h) = handle(ctx, id) {
                        ctx.delete(h, DeleteMode::Normal)?;
                    }
                }
                Command::KillObject { id } => {
                    if let Some(h) = handle(ctx, id) {
                        ctx.kill(h)?;
                    }
                }
                Command::SendToObject { id, message } => {
                    if let Some(h) = handle(ctx, id) {
                        ctx.send(Target::Object(h), game_message(&message))?;
                    }
                }
                Command::Broadcast { message } => {
                    ctx.send(Target::Systems, game_message(&message))?
                }
            }
        }
        Ok(())
    }

    fn activate_pending(&mut self, ctx: &SystemCtx<'_>) {
        self.activate_pending_at(ctx.time().tick);
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
        let blob: StateBlob = match self.active.as_ref().map(|a| a.object.save_state()) {
            Some(RResult::ROk(b)) => b,
            Some(RResult::RErr(e)) => {
                return refuse(
                    &self.events,
                    format!("the old instance could not save its state: {e}"),
                );
            }
            None => StateBlob::default(),
        };
        let mut new = prepared.instance;
        if self.active.is_some() {
            if let RResult::RErr(e) = new.object.restore_state(&blob) {
                new.object.shutdown();
                return refuse(
                    &self.events,
                    format!("the new instance refused the state: {e}"),
                );
            }
        }
        let from = self
            .active
            .as_ref()
            .map_or_else(|| "vacant".into(), Instance::label);
        if let Some(mut evicted) = std::mem::replace(&mut self.previous, self.active.take()) {
            evicted.object.shutdown();
        }
        self.active = Some(new);
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

fn tick_info<'a>(
    tick: u64,
    step_ns: u64,
    cache: &'a (u64, Vec<InputCommand>, Vec<u32>),
) -> TickInfo<'a> {
    TickInfo {
        tick,
        step_ns,
        commands: RSlice::from_slice(&cache.1),
        held_keys: RSlice::from_slice(&cache.2),
    }
}

impl System for PluginSlot {
    fn name(&self) -> &str {
        &self.name
    }

    fn calc_slot(&self) -> Option<CalcSlot> {
        match self.shared.slot {
            SlotKind::Ai => Some(CalcSlot::Ai),
            SlotKind::Control => Some(CalcSlot::Control),
            _ => None,
        }
    }

    fn on_boundary(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        self.activate_pending(ctx);
        Ok(())
    }

    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, object: ObjectHandle) -> SystemResult {
        if !self.wants(callbacks::CALCULATE_OBJECT) {
            return Ok(());
        }
        self.refresh_tick_cache(ctx);
        let mut state = object_state(ctx.object(object)?);
        let time = ctx.time();
        let tick = tick_info(time.tick, time.step_ns, &self.tick_cache);
        let r = match self.active.as_mut() {
            Some(a) => a.object.calculate_object(&tick, &mut state, &mut self.out),
            None => return Ok(()),
        };
        match r {
            RResult::ROk(()) => {
                write_back(&state, ctx.object_mut(object)?);
                self.apply_commands(ctx)
            }
            RResult::RErr(e) => {
                self.out.clear();
                Err(self.fault(Phase::CalculateWorld, &e))
            }
        }
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
        self.refresh_tick_cache(ctx);
        let view = message_view(&envelope.message, envelope.sequence);
        let time = ctx.time();
        let tick = tick_info(time.tick, time.step_ns, &self.tick_cache);
        let (r, state) = match (self.active.as_mut(), object) {
            (Some(a), Some(h)) => {
                let mut state = object_state(ctx.object(h)?);
                let r = a
                    .object
                    .on_object_message(&tick, &mut state, &view, &mut self.out);
                (r, Some((h, state)))
            }
            (Some(a), None) => (a.object.on_message(&tick, &view, &mut self.out), None),
            (None, _) => return Ok(()),
        };
        match r {
            RResult::ROk(()) => {
                if let Some((h, s)) = state {
                    write_back(&s, ctx.object_mut(h)?);
                }
                self.apply_commands(ctx)
            }
            RResult::RErr(e) => {
                self.out.clear();
                Err(self.fault(Phase::ApplyDeferred, &e))
            }
        }
    }

    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        if !self.wants(callbacks::UPDATE | callbacks::UPDATE_OBJECTS) {
            return Ok(());
        }
        self.refresh_tick_cache(ctx);
        self.objects.clear();
        if self.wants(callbacks::UPDATE_OBJECTS) {
            self.objects
                .extend(ctx.world().iter_registered().map(|(_, o)| object_state(o)));
        }
        let time = ctx.time();
        let tick = tick_info(time.tick, time.step_ns, &self.tick_cache);
        let r = match self.active.as_mut() {
            Some(a) => a
                .object
                .update(&tick, RSlice::from_slice(&self.objects), &mut self.out),
            None => return Ok(()),
        };
        match r {
            RResult::ROk(()) => self.apply_commands(ctx),
            RResult::RErr(e) => {
                self.out.clear();
                Err(self.fault(Phase::UpdateSystems, &e))
            }
        }
    }

    fn render(&mut self, snapshot: &RenderSnapshot) -> SystemResult {
        // A renderer is not part of the simulation: a swap of the render slot also takes
        // effect at the frame's render phase, so a new renderer draws the very next frame
        // even when that frame runs no tick.
        if self.shared.slot == SlotKind::Render {
            self.activate_pending_at(snapshot.tick);
        }
        if !self.wants(callbacks::RENDER) {
            return Ok(());
        }
        let request = lock(&self.shared.capture_request).take();
        let Some(a) = self.active.as_mut() else {
            if request.is_some() {
                *lock(&self.shared.capture_result) =
                    Some(Err("the render slot is vacant".to_owned()));
            }
            return Ok(());
        };
        let r = match a.object.render() {
            abi_stable::std_types::ROption::RSome(mut backend) => {
                let prepared = snapshot
                    .prepared
                    .as_ref()
                    .and_then(|p| p.get::<iron3d_abi::RenderFrame>());
                let drawn = match prepared {
                    Some(frame) => match backend.draw(frame) {
                        // An older backend without `draw`: fall back to the object list.
                        RResult::RErr(e) if e.kind == iron3d_abi::ErrorKind::Unsupported => None,
                        other => Some(other.map(|_| ())),
                    },
                    None => None,
                };
                let r = drawn.unwrap_or_else(|| {
                    let objects: Vec<ObjectState> = snapshot
                        .objects
                        .iter()
                        .map(|o| ObjectState {
                            id: o.id.raw(),
                            kind: o.kind,
                            is_mirror: false,
                            active: true,
                            position: o.transform.position.into(),
                            orientation: o.transform.orientation.into(),
                            scale: o.transform.scale.into(),
                            velocity: Default::default(),
                            behaviour_state: 0,
                        })
                        .collect();
                    let frame = iron3d_abi::FrameView {
                        frame: snapshot.frame,
                        tick: snapshot.tick,
                        objects: RSlice::from_slice(&objects),
                    };
                    backend.render_frame(&frame).map(|_| ())
                });
                if let (Some(kind), RResult::ROk(())) = (request, &r) {
                    let result = match kind {
                        CaptureKind::Image => backend.capture().into_result().map(Capture::Image),
                        CaptureKind::Commands => backend
                            .capture_commands()
                            .into_result()
                            .map(|s| Capture::Commands(s.into_string())),
                    };
                    *lock(&self.shared.capture_result) = Some(result.map_err(|e| e.to_string()));
                }
                r
            }
            abi_stable::std_types::ROption::RNone => RResult::ROk(()),
        };
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => {
                if request.is_some() {
                    *lock(&self.shared.capture_result) = Some(Err(e.to_string()));
                }
                Err(self.fault(Phase::RenderWorld, &e))
            }
        }
    }

    fn end_frame(&mut self, frame: u64) -> SystemResult {
        if !self.wants(callbacks::END_FRAME) {
            return Ok(());
        }
        let r = match self.active.as_mut() {
            Some(a) => a.object.end_frame(frame),
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
        let r = match self.active.as_mut() {
            Some(a) => a.object.maintenance(),
            None => return Ok(()),
        };
        match r {
            RResult::ROk(()) => Ok(()),
            RResult::RErr(e) => Err(self.fault(Phase::Maintenance, &e)),
        }
    }

    fn state_digest(&self) -> Option<[u8; 32]> {
        // Presentation is not simulation: whichever renderer is active (and its own state)
        // never enters the state hash, so switching renderers cannot change it.
        if self.shared.slot == SlotKind::Render {
            return None;
        }
        let a = self.active.as_ref()?;
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

    fn shutdown(&mut self) {
        if let Some(mut a) = self.active.take() {
            a.object.shutdown();
        }
        if let Some(mut p) = self.previous.take() {
            p.object.shutdown();
        }
        if let Some(p) = lock(&self.shared.pending).take() {
            let mut i = p.instance;
            i.object.shutdown();
        }
        self.publish_active();
    }
}
