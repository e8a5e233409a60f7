//! The kernel: owns the world, clocks, bus, RNG streams and systems, and runs the phases of each frame.

use crate::bus::{Bus, Envelope, ExternalSender, GameMessage, SenderId, Target};
use crate::clock::{FixedStep, GameClock, MaintenanceClock, NANOS_PER_SEC, TimeSource};
use crate::error::{KernelError, KernelResult};
use crate::hash::{ClockState, StateHash, StateHasher};
use crate::identity::IdLayout;
use crate::input::{InputEvent, InputSnapshot};
use crate::phase::{Operation, Phase};
use crate::rng::RngStreams;
use crate::snapshot::{FramePreparer, Prepared, RenderSnapshot};
use crate::stats::{KernelStats, PhaseTimer};
use crate::system::{
    CalcSlot, KernelCommand, SimTime, System, SystemCtx, SystemError, SystemResult,
};
use crate::world::{World, WorldChange};
use std::sync::Arc;
use tracing::{debug_span, warn};

#[path = "kernel_save.rs"]
pub(crate) mod save;

/// Builds the per-call context from the kernel's fields (`$k` is `self` or a `&mut Kernel`),
/// leaving `$k.systems` free to be borrowed for the call.
macro_rules! system_ctx {
    ($k:expr, $phase:expr, $sender:expr, $time:expr) => {
        SystemCtx {
            phase: $phase,
            world: &mut $k.world,
            bus: &mut $k.bus,
            rng: &mut $k.rng,
            input: &$k.input,
            time: $time,
            sender: $sender,
            commands: &mut $k.commands,
            view: &mut $k.view,
        }
    };
}

/// Kernel settings fixed for a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelConfig {
    /// Master seed of the RNG streams.
    pub seed: u64,
    /// Simulation ticks per second of game time.
    pub tick_hz: u32,
    /// Most simulation steps one frame may run before excess time is dropped.
    pub max_steps_per_frame: u32,
    /// Bit layout used for original-id views.
    pub id_layout: IdLayout,
    /// Real-time period of maintenance passes (the original purges on ~20 s / 60 s thresholds).
    pub maintenance_period_ns: u64,
    /// Build a render snapshot every frame (off for pure simulation runs with no renderer).
    pub publish_snapshots: bool,
}

impl Default for KernelConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            tick_hz: 30,
            max_steps_per_frame: 8,
            id_layout: IdLayout::PROJECT_DEFAULT,
            maintenance_period_ns: 20 * NANOS_PER_SEC,
            publish_snapshots: true,
        }
    }
}

/// Source of input events for each simulation tick (live devices, scripts or a replay log).
pub trait InputSource {
    /// Called once per frame in `collect_platform_events`.
    fn collect(&mut self) {}
    /// Events to apply in tick `tick` (1-based: the tick about to be computed).
    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent>;
}

/// An input source with no events.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInput;

impl InputSource for NoInput {
    fn events_for_tick(&mut self, _tick: u64) -> Vec<InputEvent> {
        Vec::new()
    }
}

/// What one frame did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameReport {
    /// Simulation ticks run in this frame.
    pub ticks: u32,
    /// True when excess game time was dropped.
    pub dropped: bool,
}

struct SystemEntry {
    system: Box<dyn System>,
    faults: u64,
    /// Wall time spent in its per-phase calls (statistics only).
    busy_ns: u64,
}

/// Steps taken by [`Kernel::shutdown`], in order (for diagnostics and tests).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShutdownReport {
    /// Deferred deletions applied before detaching.
    pub drained_deletes: usize,
    /// Bus messages discarded.
    pub discarded_messages: usize,
    /// Objects detached and released.
    pub released_objects: usize,
    /// Systems shut down, in the order they were shut down.
    pub systems_shut_down: Vec<String>,
}

/// The microkernel.
pub struct Kernel {
    config: KernelConfig,
    world: World,
    bus: Bus,
    rng: RngStreams,
    game_clock: GameClock,
    fixed: FixedStep,
    platform: Box<dyn TimeSource>,
    last_platform_ns: u64,
    maintenance: MaintenanceClock,
    systems: Vec<SystemEntry>,
    calc_order: Vec<usize>,
    input: InputSnapshot,
    phase: Option<Phase>,
    commands: Vec<KernelCommand>,
    snapshot: Option<Arc<RenderSnapshot>>,
    preparer: Option<Box<dyn FramePreparer>>,
    stats: KernelStats,
    shut_down: bool,
    journal: Option<Vec<JournalEntry>>,
    view: Option<crate::view::PlayerView>,
}

/// One thing that happened during the last tick, as recorded by the opt-in journal
/// ([`Kernel::set_journal`]) for tracers and tools. Observation only: the journal never
/// changes the simulation and is not part of the state hash.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum JournalEntry {
    /// An object joined or left the game (in the order systems were told).
    World(WorldChange),
    /// A message was delivered (in delivery order).
    Delivered {
        /// Where it went.
        target: Target,
        /// The target object's original id when it was alive at delivery.
        object: Option<crate::OriginalObjectId>,
        /// The message.
        message: GameMessage,
    },
}

impl Kernel {
    /// A kernel with an empty world, driven by `platform` time.
    pub fn new(config: KernelConfig, platform: Box<dyn TimeSource>) -> KernelResult<Self> {
        if !config.id_layout.is_valid() {
            return Err(KernelError::Config(format!(
                "id layout {:?} exceeds 32 bits",
                config.id_layout
            )));
        }
        let fixed = FixedStep::new(config.tick_hz, config.max_steps_per_frame)?;
        let last_platform_ns = platform.now_ns();
        Ok(Self {
            config,
            world: World::new(config.id_layout),
            bus: Bus::new(),
            rng: RngStreams::new(config.seed),
            game_clock: GameClock::default(),
            fixed,
            platform,
            last_platform_ns,
            maintenance: MaintenanceClock::new(config.maintenance_period_ns),
            systems: Vec::new(),
            calc_order: Vec::new(),
            input: InputSnapshot::default(),
            phase: None,
            commands: Vec::new(),
            snapshot: None,
            preparer: None,
            stats: KernelStats::default(),
            shut_down: false,
            view: None,
            journal: None,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &KernelConfig {
        &self.config
    }

    /// Turns the journal on or off. While on, every tick starts an empty journal and
    /// records world changes and delivered messages in the order they happened.
    pub fn set_journal(&mut self, on: bool) {
        self.journal = on.then(Vec::new);
    }

    /// What happened during the last tick (empty when the journal is off).
    pub fn journal(&self) -> &[JournalEntry] {
        self.journal.as_deref().unwrap_or_default()
    }

    /// The input snapshot of the last tick run (held keys and axis values persist
    /// from tick to tick until an event changes them).
    pub fn input(&self) -> &InputSnapshot {
        &self.input
    }

    /// Read access to the world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Mutable world access for loaders and tools; refused while a phase forbids world mutation.
    pub fn world_mut(&mut self) -> KernelResult<&mut World> {
        self.check(Operation::WorldMutation)?;
        Ok(&mut self.world)
    }

    /// The RNG streams (e.g. for scenario set-up between frames).
    pub fn rng_mut(&mut self) -> &mut RngStreams {
        &mut self.rng
    }

    /// The game clock.
    pub fn game_clock(&self) -> &GameClock {
        &self.game_clock
    }

    /// Pauses game time (platform time goes on; no ticks run).
    pub fn pause(&mut self) {
        self.game_clock.pause();
    }

    /// Resumes game time.
    pub fn resume(&mut self) {
        self.game_clock.resume();
    }

    /// Scales game time by `num / den`.
    pub fn set_time_scale(&mut self, num: u32, den: u32) -> KernelResult<()> {
        self.game_clock.set_scale(num, den)
    }

    /// Completed simulation ticks.
    pub fn tick(&self) -> u64 {
        self.fixed.tick()
    }

    /// Platform time now, from the kernel's time source.
    pub fn platform_now_ns(&self) -> u64 {
        self.platform.now_ns()
    }

    /// Counters and timings.
    pub fn stats(&self) -> &KernelStats {
        &self.stats
    }

    /// Installs (or with `None` removes) the hook that attaches prepared render data to
    /// every published snapshot. Returns the previous one.
    pub fn set_frame_preparer(
        &mut self,
        preparer: Option<Box<dyn FramePreparer>>,
    ) -> Option<Box<dyn FramePreparer>> {
        std::mem::replace(&mut self.preparer, preparer)
    }

    /// The snapshot published by the last frame.
    pub fn snapshot(&self) -> Option<Arc<RenderSnapshot>> {
        self.snapshot.clone()
    }

    /// The phase running now (`None` between frames).
    pub fn current_phase(&self) -> Option<Phase> {
        self.phase
    }

    /// A bus handle for an external producer (network, console).
    pub fn external_sender(&self, channel: u32) -> ExternalSender {
        self.bus.external_sender(channel)
    }

    /// Names of the registered systems in order of addition.
    pub fn system_names(&self) -> Vec<String> {
        self.systems
            .iter()
            .map(|e| e.system.name().to_owned())
            .collect()
    }

    /// Wall-clock nanoseconds the system called `name` has spent in its per-phase calls
    /// (`begin_frame`, `update`, `post_update` and the other whole-phase callbacks, not
    /// per-object calculation or message delivery) since it was added. Observational:
    /// for benchmarks and profiling, never for the simulation.
    pub fn system_busy_ns(&self, name: &str) -> Option<u64> {
        self.systems
            .iter()
            .find(|e| e.system.name() == name)
            .map(|e| e.busy_ns)
    }

    /// Faults reported by the system called `name`.
    pub fn system_faults(&self, name: &str) -> Option<u64> {
        self.systems
            .iter()
            .find(|e| e.system.name() == name)
            .map(|e| e.faults)
    }

    fn check(&self, op: Operation) -> KernelResult<()> {
        match self.phase {
            Some(phase) if !phase.allows(op) => Err(KernelError::Forbidden { op, phase }),
            _ => Ok(()),
        }
    }

    fn sim_time(&self) -> SimTime {
        SimTime {
            tick: self.fixed.tick(),
            step_ns: self.fixed.step_ns(),
            paused: self.game_clock.is_paused(),
        }
    }

    /// Adds a system: calls its `init`; on failure the system is not added and the error is returned.
    /// Refused while a phase forbids registry mutation.
    pub fn add_system(&mut self, system: Box<dyn System>) -> KernelResult<()> {
        self.check(Operation::RegistryMutation)?;
        self.insert_system(system)
    }

    fn insert_system(&mut self, mut system: Box<dyn System>) -> KernelResult<()> {
        let index = u16::try_from(self.systems.len())
            .map_err(|_| KernelError::Config("too many systems".into()))?;
        let time = self.sim_time();
        let mut ctx = system_ctx!(
            self,
            self.phase.unwrap_or(Phase::SwapBoundary),
            SenderId::System(index),
            time
        );
        system
            .init(&mut ctx)
            .map_err(|e| KernelError::SystemFault {
                system: system.name().to_owned(),
                phase: ctx.phase,
                reason: e.0,
            })?;
        self.systems.push(SystemEntry {
            system,
            faults: 0,
            busy_ns: 0,
        });
        self.rebuild_calc_order();
        Ok(())
    }

    fn rebuild_calc_order(&mut self) {
        let mut order: Vec<(CalcSlot, usize)> = self
            .systems
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.system.calc_slot().map(|s| (s, i)))
            .collect();
        order.sort();
        self.calc_order = order.into_iter().map(|(_, i)| i).collect();
    }

    fn fault(stats: &mut KernelStats, entry: &mut SystemEntry, phase: Phase, err: &SystemError) {
        entry.faults += 1;
        stats.system_faults += 1;
        warn!(system = entry.system.name(), %phase, error = %err, "system fault");
    }

    /// Runs one presented frame: collects events, advances the clocks, runs the due
    /// simulation ticks (at most `tick_budget` of them when given), publishes the snapshot,
    /// renders, sends end-of-frame callbacks and runs maintenance when due.
    pub fn frame(
        &mut self,
        input: &mut dyn InputSource,
        tick_budget: Option<u64>,
    ) -> KernelResult<FrameReport> {
        self.frame_observed(input, tick_budget, &mut |_| {})
    }

    /// [`Kernel::frame`] with `after_tick` called after every simulation tick (replay
    /// checkpoints, recorders). The observer sees the kernel between phases.
    pub fn frame_observed(
        &mut self,
        input: &mut dyn InputSource,
        tick_budget: Option<u64>,
        after_tick: &mut dyn FnMut(&Kernel),
    ) -> KernelResult<FrameReport> {
        self.run_phase(Phase::CollectEvents, |_| input.collect());

        let now = self.platform.now_ns();
        let platform_delta = now.saturating_sub(self.last_platform_ns);
        self.last_platform_ns = now;
        let game_delta = self.game_clock.advance(platform_delta);
        let due = self.fixed.accumulate(game_delta);
        if due.dropped {
            self.stats.dropped_frames += 1;
        }
        let steps = match tick_budget {
            Some(b) => u64::from(due.steps).min(b) as u32,
            None => due.steps,
        };
        for _ in 0..steps {
            let events = input.events_for_tick(self.fixed.tick() + 1);
            self.step(&events)?;
            after_tick(self);
        }

        let frame = self.stats.frames + 1;
        if self.config.publish_snapshots {
            let tick = self.fixed.tick();
            self.run_phase(Phase::PublishSnapshot, |k| {
                let mut snap = RenderSnapshot::capture(&k.world, frame, tick);
                snap.time_ms = tick.saturating_mul(k.fixed.step_ns()) / 1_000_000;
                snap.view = k.view.clone();
                if let Some(p) = k.preparer.as_mut() {
                    snap.prepared = p.prepare(&snap).map(Prepared);
                }
                k.snapshot = Some(Arc::new(snap));
            });
        }
        let snapshot = self.snapshot.clone();
        self.run_phase(Phase::RenderWorld, |k| {
            if let Some(snap) = snapshot.as_deref() {
                for entry in &mut k.systems {
                    if let Err(e) = entry.system.render(snap) {
                        Self::fault(&mut k.stats, entry, Phase::RenderWorld, &e);
                    }
                }
            }
        });
        self.run_phase(Phase::EndFrame, |k| {
            for entry in &mut k.systems {
                if let Err(e) = entry.system.end_frame(frame) {
                    Self::fault(&mut k.stats, entry, Phase::EndFrame, &e);
                }
            }
        });
        if self.maintenance.due(now) {
            self.run_phase(Phase::Maintenance, |k| {
                k.stats.maintenance_runs += 1;
                for entry in &mut k.systems {
                    if let Err(e) = entry.system.maintenance() {
                        Self::fault(&mut k.stats, entry, Phase::Maintenance, &e);
                    }
                }
                k.apply_commands();
            });
        }
        self.stats.frames = frame;
        Ok(FrameReport {
            ticks: steps,
            dropped: due.dropped,
        })
    }

    /// Runs exactly one simulation tick with `events` as its input, regardless of the clocks.
    /// (`frame` calls this for each due step; tools and tests may call it directly.)
    pub fn step(&mut self, events: &[InputEvent]) -> KernelResult<()> {
        if self.phase.is_some() {
            return Err(KernelError::NestedTraversal {
                depth: self.world.calculation_depth(),
            });
        }
        if let Some(j) = self.journal.as_mut() {
            j.clear();
        }
        // The calculation boundary between ticks: hot swaps and other registry work.
        self.run_phase(Phase::SwapBoundary, |k| {
            k.each_system(Phase::SwapBoundary, |s, ctx| s.on_boundary(ctx));
            k.apply_commands();
        });
        self.report_changes()?;
        self.run_phase(Phase::InputSnapshot, |k| {
            k.input = InputSnapshot::next(&k.input, events);
        });
        self.boundary()?;
        self.run_phase(Phase::AdvanceClock, |k| {
            k.fixed.consume_step();
        });
        self.phase = Some(Phase::CalculateWorld);
        let t = PhaseTimer::start();
        let traversal = self.calculate_world();
        t.stop(&mut self.stats, Phase::CalculateWorld);
        self.phase = None;
        traversal?;
        self.phase = Some(Phase::ApplyDeferred);
        let t = PhaseTimer::start();
        let applied = self.apply_deferred_phase();
        t.stop(&mut self.stats, Phase::ApplyDeferred);
        self.phase = None;
        applied?;
        self.run_phase(Phase::UpdateSystems, |k| {
            k.each_system(Phase::UpdateSystems, |s, ctx| s.update(ctx));
        });
        self.boundary()?;
        self.stats.ticks += 1;
        Ok(())
    }

    /// Calls `f` on every system in order of addition with a context for `phase`; errors
    /// are counted as faults of that system and the loop goes on.
    fn each_system(
        &mut self,
        phase: Phase,
        mut f: impl FnMut(&mut dyn System, &mut SystemCtx<'_>) -> SystemResult,
    ) {
        let time = self.sim_time();
        for (index, entry) in self.systems.iter_mut().enumerate() {
            let mut ctx = system_ctx!(self, phase, SenderId::System(index as u16), time);
            let t = crate::stats::SystemTimer::start();
            let r = f(entry.system.as_mut(), &mut ctx);
            entry.busy_ns = entry.busy_ns.saturating_add(t.elapsed_ns());
            if let Err(e) = r {
                Self::fault(&mut self.stats, entry, phase, &e);
            }
        }
    }

    fn run_phase(&mut self, phase: Phase, f: impl FnOnce(&mut Self)) {
        let span = debug_span!("phase", name = phase.name());
        let _enter = span.enter();
        self.phase = Some(phase);
        let t = PhaseTimer::start();
        f(self);
        t.stop(&mut self.stats, phase);
        self.phase = None;
    }

    fn calculate_world(&mut self) -> KernelResult<()> {
        let span = debug_span!("phase", name = Phase::CalculateWorld.name());
        let _enter = span.enter();
        self.world.begin_calculation()?;
        let time = self.sim_time();
        let len = self.world.queue_len();
        for i in 0..len {
            for &si in &self.calc_order {
                // Re-check before each system: an earlier one may have deleted the object.
                let Some(handle) = self.world.queue_live_at(i) else {
                    break;
                };
                let Ok(obj) = self.world.get(handle) else {
                    break;
                };
                if !obj.active {
                    break;
                }
                let sender = SenderId::Object(obj.id);
                let entry = &mut self.systems[si];
                let mut ctx = system_ctx!(self, Phase::CalculateWorld, sender, time);
                if let Err(e) = entry.system.calculate_object(&mut ctx, handle) {
                    Self::fault(&mut self.stats, entry, Phase::CalculateWorld, &e);
                }
            }
        }
        self.world.end_calculation();
        Ok(())
    }

    fn apply_deferred_phase(&mut self) -> KernelResult<()> {
        let span = debug_span!("phase", name = Phase::ApplyDeferred.name());
        let _enter = span.enter();
        self.apply_world_deferred()?;
        self.deliver()?;
        self.apply_commands();
        Ok(())
    }

    fn apply_world_deferred(&mut self) -> KernelResult<()> {
        let report = self.world.apply_deferred()?;
        self.stats.deferred_deletes += report.deleted as u64;
        self.stats.deferred_registrations += report.registered as u64;
        Ok(())
    }

    /// Delivers the bus batch at a boundary, then applies deletions the handlers
    /// deferred, then reports the objects that joined or left the game.
    fn boundary(&mut self) -> KernelResult<()> {
        self.phase = Some(Phase::DeliverMessages);
        let t = PhaseTimer::start();
        let r = self.deliver().and_then(|()| self.apply_world_deferred());
        t.stop(&mut self.stats, Phase::DeliverMessages);
        self.phase = None;
        r?;
        self.report_changes()
    }

    /// Hands every system the world changes since the last report (once; changes made
    /// by the handlers wait for the next report).
    fn report_changes(&mut self) -> KernelResult<()> {
        let changes = self.world.take_changes();
        if changes.is_empty() {
            return Ok(());
        }
        if let Some(j) = self.journal.as_mut() {
            j.extend(changes.iter().copied().map(JournalEntry::World));
        }
        self.phase = Some(Phase::ReportChanges);
        let t = PhaseTimer::start();
        self.each_system(Phase::ReportChanges, |s, ctx| {
            s.on_objects_changed(ctx, &changes)
        });
        t.stop(&mut self.stats, Phase::ReportChanges);
        self.apply_commands();
        self.phase = None;
        self.apply_world_deferred()
    }

    /// Dispatches the waiting bus batch in its stable order.
    fn deliver(&mut self) -> KernelResult<()> {
        let batch = self.bus.drain_sorted();
        if batch.is_empty() {
            return Ok(());
        }
        self.stats.messages_delivered += batch.len() as u64;
        let time = self.sim_time();
        self.world.begin_dispatch();
        if let Some(j) = self.journal.as_mut() {
            let world = &self.world;
            j.extend(batch.iter().map(|env| JournalEntry::Delivered {
                target: env.target,
                object: match env.target {
                    Target::Object(h) => world.get(h).ok().map(|o| o.id),
                    Target::Systems => None,
                },
                message: env.message.clone(),
            }));
        }
        for env in &batch {
            self.dispatch(env, time);
        }
        self.world.end_calculation();
        self.apply_world_deferred()
    }

    fn dispatch(&mut self, env: &Envelope, time: SimTime) {
        match env.target {
            Target::Object(handle) => {
                if !self.world.contains(handle) {
                    self.stats.messages_undeliverable += 1;
                    return;
                }
                for &si in &self.calc_order {
                    if !self.world.contains(handle) {
                        break;
                    }
                    let entry = &mut self.systems[si];
                    let mut ctx = system_ctx!(
                        self,
                        Phase::DeliverMessages,
                        SenderId::System(si as u16),
                        time
                    );
                    if let Err(e) = entry.system.on_message(&mut ctx, Some(handle), env) {
                        Self::fault(&mut self.stats, entry, Phase::DeliverMessages, &e);
                    }
                }
            }
            Target::Systems => {
                for (si, entry) in self.systems.iter_mut().enumerate() {
                    let mut ctx = system_ctx!(
                        self,
                        Phase::DeliverMessages,
                        SenderId::System(si as u16),
                        time
                    );
                    if let Err(e) = entry.system.on_message(&mut ctx, None, env) {
                        Self::fault(&mut self.stats, entry, Phase::DeliverMessages, &e);
                    }
                }
            }
        }
    }

    fn apply_commands(&mut self) {
        for cmd in std::mem::take(&mut self.commands) {
            match cmd {
                KernelCommand::Pause => self.game_clock.pause(),
                KernelCommand::Resume => self.game_clock.resume(),
                KernelCommand::SetScale(n, d) => {
                    if let Err(e) = self.game_clock.set_scale(n, d) {
                        warn!(error = %e, "time scale request refused");
                    }
                }
                KernelCommand::AddSystem(system) => {
                    let name = system.name().to_owned();
                    if let Err(e) = self.insert_system(system) {
                        warn!(system = %name, error = %e, "deferred system registration failed");
                    }
                }
            }
        }
    }

    /// The canonical state hash: clocks, simulation RNG streams, persistent input state
    /// (held keys, axes), objects sorted by original id, the queue's traversal order, the
    /// messages waiting for the next boundary and the bus's sequence counters, and every
    /// system's state digest.
    pub fn state_hash(&self) -> StateHash {
        let mut h = StateHasher::new();
        h.clocks(ClockState {
            tick: self.fixed.tick(),
            step_ns: self.fixed.step_ns(),
            paused: self.game_clock.is_paused(),
            scale: self.game_clock.scale(),
        });
        h.rng(&self.rng.states());
        h.input(&self.input);
        h.world(&self.world);
        h.queue(&self.world);
        h.messages(&self.bus.pending_sorted(), &self.world);
        h.sequences(self.bus.sequences());
        for (name, d) in &self.system_digests() {
            h.system_digest(name, d);
        }
        h.finish()
    }

    /// The digest of each system's state that enters the state hash, by system name
    /// ascending (systems outside the hash — presentation — are not listed). A desync
    /// report compares them to name the system whose state differs.
    pub fn system_digests(&self) -> Vec<(String, [u8; 32])> {
        let mut digests: Vec<(String, [u8; 32])> = self
            .systems
            .iter()
            .filter_map(|e| {
                e.system
                    .state_digest()
                    .map(|d| (e.system.name().to_owned(), d))
            })
            .collect();
        digests.sort();
        digests
    }

    /// Ordered shutdown; safe from any state (before any system, mid-mission, after a
    /// failed start). Stops calculation, applies pending deletions, discards undelivered
    /// messages, detaches every object, then shuts systems down in reverse order of addition.
    /// A second call does nothing.
    pub fn shutdown(&mut self) -> ShutdownReport {
        let mut report = ShutdownReport::default();
        if self.shut_down {
            return report;
        }
        self.shut_down = true;
        self.phase = None;
        while self.world.calculation_depth() > 0 {
            self.world.end_calculation();
        }
        report.drained_deletes = self.world.pending_delete_count();
        let _ = self.world.apply_deferred();
        report.discarded_messages = self.bus.discard_pending();
        self.commands.clear();
        report.released_objects = self.world.clear();
        while let Some(mut entry) = self.systems.pop() {
            report
                .systems_shut_down
                .push(entry.system.name().to_owned());
            entry.system.shutdown();
        }
        self.calc_order.clear();
        self.snapshot = None;
        report
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.shutdown();
    }
}
