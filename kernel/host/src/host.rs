//! The plugin host controller: builds slot systems from the registry, prepares hot swaps
//! (from requests, the console or the file watcher) and reports what happened.

use crate::call::{HostShared, MissionFiles, ReportedOutcome};
use crate::error::HostError;
use crate::library::{self, LoadedLibrary, SearchPaths};
use crate::slot::{FallbackFactory, HostEvent, Instance, PluginSlot, PreparedSwap, SlotShared};
use crate::watch::LibraryWatcher;
use crossbeam_channel::{Receiver, Sender};
use iron3d_abi::SlotKind;
use iron3d_kernel::System;
use iron3d_registry::{Entry, Registry, SlotKey};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Name of the library that provides the null fallbacks.
pub const NULL_LIBRARY: &str = "iron3d_null";

/// The mission a host's plugins serve.
#[derive(Clone, Debug)]
pub struct MissionSetup {
    /// Mission or scenario name.
    pub name: String,
    /// Master seed.
    pub seed: u64,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// Its game files (`None` for the built-in scenario): plugins read them through the
    /// host (`Host::read_mission_file`), never by path.
    pub files: Option<Arc<MissionFiles>>,
    /// Mission parameters for the plugins (`Host::mission_parameter`).
    pub parameters: BTreeMap<String, String>,
}

/// Mission loads in this process (each host counts as one).
static LOADS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Host settings.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// Where registry library names are looked up, in order.
    pub search_paths: SearchPaths,
    /// Where unique shadow copies of libraries are written before loading.
    pub shadow_dir: PathBuf,
    /// The mission every instance starts on.
    pub mission: MissionSetup,
    /// Quiet time after the last file event before a changed library is reloaded.
    pub debounce: Duration,
}

/// A registry line that names an original component (numeric CID), kept for the mission loader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComponentFactory {
    /// CID 0–7.
    pub cid: u8,
    /// Original meaning (e.g. `LoadLandscape`).
    pub meaning: String,
    /// Library as written.
    pub library: String,
    /// Factory as written.
    pub factory: String,
    /// Resolved file, or why it is not available.
    pub resolved: Result<PathBuf, String>,
}

/// A slot the registry names whose plugin could not be loaded at start-up: what runs
/// instead and why. The launcher shows these (a HUD banner in play, an error line on
/// stderr) and `--strict-plugins` refuses to run with any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotFallback {
    /// The slot.
    pub slot: SlotKind,
    /// The library the registry names, as written.
    pub library: String,
    /// The factory the registry names.
    pub factory: String,
    /// Why it could not be loaded (for a missing file: every path tried).
    pub reason: String,
    /// What runs instead (`name version factory (path)` of the null plugin, or `vacant`).
    pub fallback: String,
    /// The directories searched for registry names, in order.
    pub search_dirs: Vec<PathBuf>,
}

/// One line of the start-up report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotReport {
    /// Slot.
    pub slot: SlotKind,
    /// `name version factory (path)` or `vacant`.
    pub instance: String,
}

/// The plugin host.
pub struct PluginHost {
    config: HostConfig,
    shared: Arc<HostShared>,
    slots: BTreeMap<SlotKind, Arc<SlotShared>>,
    libraries: Arc<Mutex<Vec<Arc<LoadedLibrary>>>>,
    null_library: Option<Arc<LoadedLibrary>>,
    components: Vec<ComponentFactory>,
    events_tx: Sender<HostEvent>,
    events_rx: Receiver<HostEvent>,
    watcher: Option<LibraryWatcher>,
    fallbacks: Vec<SlotFallback>,
    empty_registry: bool,
}

#[allow(
    clippy::disallowed_methods,
    reason = "swap latency is measured on the wall clock; it never feeds the simulation"
)]
fn now() -> Instant {
    Instant::now()
}

impl PluginHost {
    /// A host with no slots yet. Loads the null-plugin library when it can be found (it
    /// provides the fallback of every slot); without it, a faulting slot becomes vacant.
    pub fn new(config: HostConfig) -> Self {
        let (events_tx, events_rx) = crossbeam_channel::unbounded();
        let shared = Arc::new(HostShared {
            mission: config.mission.name.clone(),
            seed: config.mission.seed,
            tick_hz: config.mission.tick_hz,
            load_number: LOADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            files: config.mission.files.clone(),
            parameters: config.mission.parameters.clone(),
            cells: Mutex::new(BTreeMap::new()),
            provider_faults: Mutex::new(BTreeMap::new()),
            model_bounds: std::sync::RwLock::new(BTreeMap::new()),
            outcome: Mutex::new(None),
            services: Mutex::new(BTreeMap::new()),
            stopped_services: Mutex::new(BTreeMap::new()),
            audio: Mutex::new(crate::call::AudioState::default()),
            effects: Mutex::new(None),
        });
        let mut host = Self {
            config,
            shared,
            slots: BTreeMap::new(),
            libraries: Arc::new(Mutex::new(Vec::new())),
            null_library: None,
            components: Vec::new(),
            events_tx,
            events_rx,
            watcher: None,
            fallbacks: Vec::new(),
            empty_registry: false,
        };
        match host
            .config
            .search_paths
            .resolve(NULL_LIBRARY)
            .and_then(|p| host.load_library(&p))
        {
            Ok(lib) => host.null_library = Some(lib),
            Err(e) => {
                tracing::warn!(error = %e, "null plugins unavailable: a faulting slot will become vacant")
            }
        }
        host
    }

    /// Sets the model bounds of the mission's prototypes (keys in any ASCII case), which
    /// plugins read through `Host::object_bounds`. Call after the mission load.
    pub fn set_model_bounds(&self, bounds: BTreeMap<Vec<u8>, iron3d_abi::ModelBounds>) {
        let upper = bounds
            .into_iter()
            .map(|(k, v)| (k.to_ascii_uppercase(), v))
            .collect();
        *self
            .shared
            .model_bounds
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = upper;
    }

    /// Where this host writes its shadow copies.
    pub fn shadow_dir(&self) -> &Path {
        &self.config.shadow_dir
    }

    /// The mission the instances serve.
    pub fn mission(&self) -> &MissionSetup {
        &self.config.mission
    }

    /// Loads `path`, reusing an image already loaded from the same file with the same
    /// contents (a changed file always gets a new image from a new shadow copy).
    fn load_library(&self, path: &Path) -> Result<Arc<LoadedLibrary>, HostError> {
        load_library(&self.libraries, &self.config.shadow_dir, path)
    }

    /// [`PluginHost::load_library`] for the service loader.
    pub(crate) fn load_plugin_library(&self, path: &Path) -> Result<Arc<LoadedLibrary>, HostError> {
        self.load_library(path)
    }

    /// Where library names are resolved.
    pub(crate) fn search_paths(&self) -> &SearchPaths {
        &self.config.search_paths
    }

    /// What every call of this host shares.
    pub(crate) fn shared(&self) -> &Arc<HostShared> {
        &self.shared
    }

    /// Where host events are sent.
    pub(crate) fn events_sender(&self) -> &Sender<HostEvent> {
        &self.events_tx
    }

    /// Sets the mix the audio slot's plugin gets from the next frame on (2.6).
    pub fn set_audio_mix(&self, mix: iron3d_abi::AudioMix) {
        self.audio_state().mix = mix;
    }

    /// The mix the audio slot's plugin gets.
    pub fn audio_mix(&self) -> iron3d_abi::AudioMix {
        self.audio_state().mix
    }

    /// Asks the audio slot's plugin for its event trace from the next frame on.
    pub fn set_audio_trace(&self, on: bool) {
        self.audio_state().trace = on;
    }

    /// The audio trace lines reported since the last call, in order.
    pub fn take_audio_trace(&self) -> Vec<String> {
        std::mem::take(&mut self.audio_state().lines)
    }

    /// What the audio slot's plugin reported last (`None`: no report yet, e.g. a null
    /// audio plugin).
    pub fn audio_status(&self) -> Option<crate::call::AudioStatus> {
        self.audio_state().status.clone()
    }

    fn audio_state(&self) -> std::sync::MutexGuard<'_, crate::call::AudioState> {
        self.shared
            .audio
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets the mission's outcome as a loaded save had it (a save made after the
    /// decision keeps it decided; `None`: undecided).
    pub fn restore_outcome(&self, outcome: Option<ReportedOutcome>) {
        *self
            .shared
            .outcome
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = outcome;
    }

    /// The mission's outcome once a plugin reported it ([`iron3d_abi::Host::mission_outcome`]).
    pub fn mission_outcome(&self) -> Option<ReportedOutcome> {
        *self
            .shared
            .outcome
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Polls the input slot's plugin once per presented frame, outside the simulation:
    /// the window's device events in, the next tick's input events out (see
    /// [`iron3d_abi::input`]). A vacant slot or a plugin without the input service
    /// answers nothing. A failure is the plugin's: it is returned (the caller logs it
    /// and plays on), and a panic rolls the slot back at its next boundary.
    pub fn poll_input(
        &self,
        window: &[iron3d_abi::DeviceInput],
    ) -> Result<Vec<iron3d_kernel::InputEvent>, iron3d_abi::PluginError> {
        use abi_stable::std_types::{ROption, RResult, RSlice};
        let Some(cell) = self.shared.cell_of(SlotKind::Input) else {
            return Ok(Vec::new());
        };
        let mut guard = cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(instance) = guard.as_mut() else {
            return Ok(Vec::new());
        };
        let r = match instance.object.input() {
            RResult::RErr(e) => Err(e),
            RResult::ROk(ROption::RNone) => Ok(Vec::new()),
            RResult::ROk(ROption::RSome(mut service)) => service
                .poll(RSlice::from_slice(window))
                .into_result()
                .map(|records| crate::input::input_events(&records)),
        };
        drop(guard);
        if let Err(e) = &r {
            if e.kind == iron3d_abi::ErrorKind::PANICKED {
                self.shared
                    .provider_faults
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .entry(SlotKind::Input)
                    .or_insert((
                        iron3d_kernel::Phase::CollectEvents,
                        format!("input poll: {e}"),
                    ));
            }
        }
        r
    }

    /// (2.14) Starts the net slot's plugin for this peer's part in a match (see
    /// [`iron3d_abi::net`]). A vacant slot or a plugin without the net service is
    /// [`iron3d_abi::ErrorKind::NO_PROVIDER`] (a match needs a net plugin).
    pub fn net_start(&self, start: &iron3d_abi::NetStart) -> Result<(), iron3d_abi::PluginError> {
        self.with_net("net start", |n| n.start(start).into_result())
    }

    /// (2.14) Once per presented frame, outside the phases: hands the net plugin the
    /// local seat's records and the hashes it asked for, and returns its report (the
    /// ticks whose input is final). Errors as [`PluginHost::net_start`]; a panic rolls
    /// the slot back at its next boundary.
    pub fn net_exchange(
        &self,
        frame: &iron3d_abi::NetFrame,
    ) -> Result<iron3d_abi::NetReport, iron3d_abi::PluginError> {
        self.with_net("net exchange", |n| n.exchange(frame).into_result())
    }

    fn with_net<T>(
        &self,
        what: &str,
        call: impl FnOnce(
            &mut iron3d_abi::ffi::NetService_TO<'_, abi_stable::RMut<'_, ()>>,
        ) -> Result<T, iron3d_abi::PluginError>,
    ) -> Result<T, iron3d_abi::PluginError> {
        use abi_stable::std_types::{ROption, RResult};
        use iron3d_abi::{ErrorKind, PluginError};
        let none = || {
            PluginError::new(
                ErrorKind::NO_PROVIDER,
                "the net slot has no net plugin (config/plugins.ini: `net iron3d_net net`)",
            )
        };
        let Some(cell) = self.shared.cell_of(SlotKind::Net) else {
            return Err(none());
        };
        let mut guard = cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(instance) = guard.as_mut() else {
            return Err(none());
        };
        let r = match instance.object.net() {
            RResult::RErr(e) => Err(e),
            RResult::ROk(ROption::RNone) => Err(none()),
            RResult::ROk(ROption::RSome(mut service)) => call(&mut service),
        };
        drop(guard);
        if let Err(e) = &r {
            if e.kind == ErrorKind::PANICKED {
                self.shared
                    .provider_faults
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .entry(SlotKind::Net)
                    .or_insert((iron3d_kernel::Phase::CollectEvents, format!("{what}: {e}")));
            }
        }
        r
    }

    /// Library images mapped so far (they are never unloaded).
    pub fn loaded_images(&self) -> usize {
        self.libraries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    fn fallback_factory(&self) -> FallbackFactory {
        let null = self.null_library.clone();
        let shared = self.shared.clone();
        Arc::new(move |slot: SlotKind| {
            let lib = null.clone()?;
            let factory = lib.factory_for(slot, None).ok()?;
            match Instance::create(lib, &factory, slot, &shared) {
                Ok(i) => Some(i),
                Err(e) => {
                    tracing::error!(%slot, error = %e, "null fallback failed");
                    None
                }
            }
        })
    }

    /// Creates one kernel system per slot of the registry (every slot: those the registry
    /// does not name get their null plugin). A slot whose plugin cannot be loaded runs its
    /// null fallback and the reason is reported. Numeric CIDs are kept as component
    /// factories for the mission loader.
    pub fn systems_from_registry(&mut self, registry: &Registry) -> Vec<Box<dyn System>> {
        let mut by_slot: BTreeMap<SlotKind, &Entry> = BTreeMap::new();
        self.components.clear();
        self.fallbacks.clear();
        self.empty_registry = registry.entries().next().is_none();
        if self.empty_registry {
            tracing::error!(
                "the plugin registry names no plugin: every slot runs its null plugin (nothing moves, nothing is drawn by a plugin)"
            );
        }
        for e in registry.entries() {
            match &e.key {
                SlotKey::Slot(name) => {
                    if let Some(kind) = SlotKind::from_name(name.as_str()) {
                        by_slot.insert(kind, e);
                    }
                }
                SlotKey::Cid(cid) => self.components.push(ComponentFactory {
                    cid: cid.number(),
                    meaning: cid.meaning().to_owned(),
                    library: e.library.clone(),
                    factory: e.factory.clone(),
                    resolved: self
                        .config
                        .search_paths
                        .resolve(&e.library)
                        .map_err(|err| err.to_string()),
                }),
            }
        }
        let mut systems: Vec<Box<dyn System>> = Vec::new();
        for slot in SlotKind::ALL {
            let shared = SlotShared::new(slot);
            let instance = match by_slot.get(&slot) {
                Some(entry) => self.instance_for(slot, &entry.library, Some(&entry.factory)),
                None => Err(HostError::Registry(format!(
                    "the registry names no plugin for slot {slot}"
                ))),
            };
            let active = match instance {
                Ok(i) => {
                    let _ = self.events_tx.send(HostEvent::Loaded {
                        slot,
                        instance: i.label(),
                    });
                    Some(i)
                }
                Err(e) => {
                    let fb = (self.fallback_factory())(slot);
                    let fallback = fb
                        .as_ref()
                        .map_or_else(|| "vacant".to_owned(), Instance::label);
                    if let Some(entry) = by_slot.get(&slot) {
                        tracing::error!(
                            %slot,
                            library = entry.library.as_str(),
                            error = %e,
                            %fallback,
                            "the registry's plugin for this slot could not be loaded: the slot runs its fallback"
                        );
                        self.fallbacks.push(SlotFallback {
                            slot,
                            library: entry.library.clone(),
                            factory: entry.factory.clone(),
                            reason: e.to_string(),
                            fallback: fallback.clone(),
                            search_dirs: self.config.search_paths.dirs().to_vec(),
                        });
                    } else {
                        tracing::info!(%slot, %fallback, "slot not named in the registry");
                    }
                    let _ = self.events_tx.send(HostEvent::LoadFailed {
                        slot,
                        reason: e.to_string(),
                        fallback,
                    });
                    fb
                }
            };
            let cell: crate::slot::SlotCell = Arc::new(Mutex::new(None));
            self.shared
                .cells
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(slot, cell.clone());
            systems.push(Box::new(PluginSlot::new(
                shared.clone(),
                self.shared.clone(),
                cell,
                active,
                self.fallback_factory(),
                self.events_tx.clone(),
            )));
            self.slots.insert(slot, shared);
        }
        systems
    }

    fn instance_for(
        &self,
        slot: SlotKind,
        library: &str,
        factory: Option<&str>,
    ) -> Result<Instance, HostError> {
        let path = self.config.search_paths.resolve(library)?;
        let lib = self.load_library(&path)?;
        let factory = lib.factory_for(slot, factory)?;
        Instance::create(lib, &factory, slot, &self.shared)
    }

    /// The slots the registry names whose plugin could not be loaded at start-up (by the
    /// last [`Self::systems_from_registry`]), in slot order; empty when every named slot
    /// runs its named plugin.
    pub fn fallbacks(&self) -> &[SlotFallback] {
        &self.fallbacks
    }

    /// Whether the last registry given to [`Self::systems_from_registry`] named nothing.
    pub fn registry_was_empty(&self) -> bool {
        self.empty_registry
    }

    /// Original-component registry lines (numeric CIDs) seen in the registry.
    pub fn components(&self) -> &[ComponentFactory] {
        &self.components
    }

    /// The library file (as named when it was loaded) and factory of `slot`'s active
    /// instance; `None` when the slot is vacant or unknown. After a fault this is the
    /// instance the slot rolled back to.
    pub fn active_plugin(&self, slot: SlotKind) -> Option<(PathBuf, String)> {
        let s = self.slots.get(&slot)?;
        s.active_source
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|(path, _, factory)| (path.clone(), factory.clone()))
    }

    /// Every slot with its active instance, in slot order.
    pub fn report(&self) -> Vec<SlotReport> {
        self.slots
            .iter()
            .map(|(&slot, s)| SlotReport {
                slot,
                instance: s
                    .active_label
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone(),
            })
            .collect()
    }

    /// Prepares a swap of `slot` to the library at `path` (a registry name or a file): loads
    /// a unique copy, checks it, creates and initialises the new instance. It becomes active
    /// at the next calculation boundary (state handed over there). On any error nothing
    /// changes and the error says why. `factory` defaults to the active factory's name when
    /// the new library has it, else its first factory for the slot.
    pub fn request_swap(
        &self,
        slot: SlotKind,
        path: &str,
        factory: Option<&str>,
    ) -> Result<(), HostError> {
        self.request_swap_at(slot, path, factory, now())
    }

    fn request_swap_at(
        &self,
        slot: SlotKind,
        path: &str,
        factory: Option<&str>,
        triggered_at: Instant,
    ) -> Result<(), HostError> {
        self.preparer(slot)?.prepare(path, factory, triggered_at)
    }

    /// Like [`PluginHost::request_swap`], but the preparation (copy, load, checks,
    /// create, `mission_start` — for Vulkan, device creation) runs on a worker thread, so
    /// the simulation and the frames go on meanwhile; only the state handoff happens at
    /// the boundary after it finished. The handle's result is the preparation's (a
    /// refusal is also reported as a [`HostEvent::SwapRefused`]). Interactive switches
    /// use this; scheduled swaps of a replayable run use [`PluginHost::request_swap`],
    /// whose activation tick does not depend on thread timing.
    pub fn request_swap_async(
        &self,
        slot: SlotKind,
        path: &str,
        factory: Option<&str>,
    ) -> Result<std::thread::JoinHandle<Result<(), HostError>>, HostError> {
        let preparer = self.preparer(slot)?;
        let (path, factory) = (path.to_owned(), factory.map(str::to_owned));
        let triggered_at = now();
        std::thread::Builder::new()
            .name(format!("iron3d-swap-{slot}"))
            .spawn(move || preparer.prepare(&path, factory.as_deref(), triggered_at))
            .map_err(|e| HostError::Io {
                path: PathBuf::from(format!("<swap thread for {slot}>")),
                source: e,
            })
    }

    fn preparer(&self, slot: SlotKind) -> Result<Preparer, HostError> {
        let slot_shared = self
            .slots
            .get(&slot)
            .ok_or_else(|| HostError::NoSuchSlot(slot.to_string()))?
            .clone();
        Ok(Preparer {
            slot,
            slot_shared,
            search_paths: self.config.search_paths.clone(),
            shadow_dir: self.config.shadow_dir.clone(),
            libraries: self.libraries.clone(),
            shared: self.shared.clone(),
            events_tx: self.events_tx.clone(),
        })
    }

    /// The stream of host events (loads, swaps, refusals, faults) in order.
    pub fn events(&self) -> Receiver<HostEvent> {
        self.events_rx.clone()
    }

    /// Faults seen by `slot`.
    pub fn faults(&self, slot: SlotKind) -> u64 {
        self.slots.get(&slot).map_or(0, |s| {
            *s.faults
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
    }

    /// Completed swaps of `slot`.
    pub fn swaps(&self, slot: SlotKind) -> u64 {
        self.slots.get(&slot).map_or(0, |s| {
            *s.swaps
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
    }

    /// Asks the render slot for a capture right after its next drawn frame (replacing an
    /// earlier request that was not served yet, and clearing the previous result).
    pub fn request_capture(&self, kind: crate::slot::CaptureKind) {
        if let Some(s) = self.slots.get(&SlotKind::Render) {
            *s.capture_result
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
            *s.capture_request
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(kind);
        }
    }

    /// The result of the last capture request, once a frame served it (taken).
    pub fn take_capture(&self) -> Option<Result<crate::slot::Capture, String>> {
        self.slots.get(&SlotKind::Render).and_then(|s| {
            s.capture_result
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        })
    }

    /// Starts watching the directories of every slot's active library; changes are picked
    /// up by [`PluginHost::poll_watcher`].
    pub fn watch(&mut self) -> Result<(), HostError> {
        let mut watcher = LibraryWatcher::new(self.config.debounce)?;
        for s in self.slots.values() {
            if let Some((path, _, _)) = s
                .active_source
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
            {
                watcher.watch_file(&path)?;
            }
        }
        self.watcher = Some(watcher);
        Ok(())
    }

    /// Watches one more library file (e.g. a library a slot will be swapped to).
    pub fn watch_file(&mut self, path: &Path) -> Result<(), HostError> {
        match self.watcher.as_mut() {
            Some(w) => w.watch_file(path),
            None => Err(HostError::Watch("watching is not started".into())),
        }
    }

    /// Handles settled file events: a watched library whose contents changed is prepared
    /// as a hot swap for every slot running it. Returns the swaps requested (and refusals).
    pub fn poll_watcher(&mut self) -> Vec<(SlotKind, Result<(), String>)> {
        let Some(w) = self.watcher.as_mut() else {
            return Vec::new();
        };
        let settled = w.settled(now());
        let mut out = Vec::new();
        for (path, first_event) in settled {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let hash = *blake3::hash(&bytes).as_bytes();
            for (&slot, s) in &self.slots {
                let active = s
                    .active_source
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                if let Some((src, old_hash, _)) = active {
                    if same_file(&src, &path) && old_hash != hash {
                        let r = self.request_swap_at(
                            slot,
                            &path.display().to_string(),
                            None,
                            first_event,
                        );
                        out.push((slot, r.map_err(|e| e.to_string())));
                    }
                }
            }
        }
        out
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Loads `path` into `libraries` (see [`PluginHost::load_library`]).
fn load_library(
    libraries: &Mutex<Vec<Arc<LoadedLibrary>>>,
    shadow_dir: &Path,
    path: &Path,
) -> Result<Arc<LoadedLibrary>, HostError> {
    let bytes = library::read(path)?;
    let hash = *blake3::hash(&bytes).as_bytes();
    let source = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    let mut libraries = libraries
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(lib) = libraries
        .iter()
        .find(|l| l.content_hash == hash && l.source == source)
    {
        return Ok(lib.clone());
    }
    let lib = Arc::new(library::load_bytes(&source, &bytes, shadow_dir)?);
    libraries.push(lib.clone());
    drop(libraries);
    tracing::debug!(plugin = lib.name(), version = lib.version(), path = %path.display(), shadow = %lib.shadow.display(), "library loaded");
    Ok(lib)
}

/// Everything a swap preparation needs, detached from the host so it can run on any
/// thread.
struct Preparer {
    slot: SlotKind,
    slot_shared: Arc<SlotShared>,
    search_paths: SearchPaths,
    shadow_dir: PathBuf,
    libraries: Arc<Mutex<Vec<Arc<LoadedLibrary>>>>,
    shared: Arc<HostShared>,
    events_tx: Sender<HostEvent>,
}

impl Preparer {
    /// Loads, checks, creates and starts the new instance and leaves it pending for the
    /// next boundary; on any error nothing changes and a refusal is reported.
    fn prepare(
        &self,
        path: &str,
        factory: Option<&str>,
        triggered_at: Instant,
    ) -> Result<(), HostError> {
        let slot = self.slot;
        let shared = &self.slot_shared;
        let result = (|| {
            let file = self.search_paths.resolve(path)?;
            let lib = load_library(&self.libraries, &self.shadow_dir, &file)?;
            let current = shared
                .active_source
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .as_ref()
                .map(|(_, _, f)| f.clone());
            let factory = match factory {
                Some(f) => lib.factory_for(slot, Some(f))?,
                None => current
                    .as_deref()
                    .and_then(|c| lib.factory_for(slot, Some(c)).ok())
                    .map_or_else(|| lib.factory_for(slot, None), Ok)?,
            };
            Instance::create(lib, &factory, slot, &self.shared)
        })();
        match result {
            Ok(instance) => {
                tracing::info!(%slot, to = %instance.label(), "hot swap prepared; active at the next calculation boundary");
                let old = shared
                    .pending
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .replace(PreparedSwap {
                        instance,
                        triggered_at,
                    });
                if let Some(mut superseded) = old {
                    superseded
                        .instance
                        .finish_reporting(&self.shared, &self.events_tx);
                }
                Ok(())
            }
            Err(e) => {
                tracing::warn!(%slot, target = path, error = %e, "hot swap refused; the old instance keeps running");
                let _ = self.events_tx.send(HostEvent::SwapRefused {
                    slot,
                    target: path.to_owned(),
                    reason: e.to_string(),
                });
                Err(e)
            }
        }
    }
}
