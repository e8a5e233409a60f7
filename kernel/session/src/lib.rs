//! The session layer: what `iron3d run` and `iron3d play` share instead of each building
//! their own — a kernel, the plugin host with the registry's plugin set, and one mission
//! (the built-in scenario or a game mission loaded through the staged loader), opened
//! and shut down in a fixed order.
//!
//! * [`Session::open`]: kernel (seed, tick rate) → host for the mission ([`MissionSetup`]:
//!   identity, the mission's files through the VFS, parameters) → one system per
//!   registry slot (plugins start on the mission) → the mission's objects
//!   ([`iron3d_mission::load_mission`], transactional) for a game mission. The plugins
//!   start on an empty world and learn of every object — the mission's and those
//!   spawned later — one way: the objects-added report at the first boundary. (Loading
//!   the objects first would change what the plugins' `mission_start` sees and the order
//!   of their start-up work, which recorded replays and the state hash depend on; the
//!   behaviour golden `tests/tests/behaviour_golden.rs` pins the present order.)
//! * [`Session::shutdown`]: the kernel shuts down first (pending deletions applied,
//!   undelivered messages dropped, objects detached, every plugin instance gets
//!   `mission_end` and `shutdown` in reverse order), then the host's shadow copies go.
//!   A window that presents a session's renderer must outlive it: shut the session down
//!   before the window.
//! * [`run::Run`]: the one run path `iron3d run` and `iron3d play` drive — trace,
//!   record/replay, scheduled swaps, the watcher, the audio output and the host-event
//!   report around a session's frames; [`replay`] holds the replay header and the
//!   record/replay compatibility checks.
//! * A second mission in the same process is a new session: fresh plugin instances
//!   (a higher [`iron3d_abi::MissionInfo::load_number`]), fresh services, nothing of the
//!   first mission's objects; renderers get a new resources id with the new assets.

use iron3d_kernel::{Kernel, KernelConfig, KernelError, ShutdownReport, TimeSource};
use iron3d_mission::{GameData, LoadedMission, MissionError, MissionRef};
use iron3d_plugin_host::{
    HostConfig, MissionFiles, MissionSetup, PluginHost, SearchPaths, SlotFallback,
};
use iron3d_registry::Registry;
use iron3d_vfs::{ArchiveCache, ReadMode, Vfs, VfsError};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub mod audio;
pub mod net;
pub mod net_match;
pub mod replay;
pub mod run;
pub mod save;
pub mod sync;

pub use run::{Run, RunEnd, RunOptions};

/// Everything that can stop a session from opening.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The kernel refused its configuration or a system.
    #[error("kernel: {0}")]
    Kernel(#[from] KernelError),
    /// The mission could not be located.
    #[error("mission '{mission}': {source}")]
    Locate {
        /// The mission as named.
        mission: String,
        /// Why.
        #[source]
        source: Box<MissionError>,
    },
    /// The staged mission load failed (nothing of it was registered).
    #[error(transparent)]
    Load(Box<MissionError>),
    /// A game file could not be read.
    #[error(transparent)]
    Vfs(#[from] VfsError),
    /// A file of the run (trace, audio trace) could not be created or written.
    #[error("{what} {}: {source}", path.display())]
    File {
        /// What the file is.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing the `--trace` output failed.
    #[error("trace {}", path.display())]
    Trace {
        /// The trace file.
        path: PathBuf,
        /// Why.
        #[source]
        source: iron3d_trace::TraceError,
    },
    /// The plugin host refused (e.g. the library watcher could not start).
    #[error("plugin host: {0}")]
    Host(#[from] iron3d_plugin_host::HostError),
    /// A replay log cannot be replayed by this run.
    #[error(transparent)]
    Replay(#[from] replay::ReplayRefusal),
    /// The replay log could not be written.
    #[error(transparent)]
    ReplayLog(#[from] iron3d_replay::ReplayError),
    /// A save file could not be read, written or fit to this session.
    #[error(transparent)]
    Save(#[from] iron3d_save::SaveError),
    /// A save was refused by this session (no state written, or a state that does not
    /// restore to the hash it was saved at).
    #[error("save refused: {0}")]
    SaveRefused(String),
    /// The match's net plugin failed or is missing.
    #[error("net: {what}")]
    Net {
        /// What was asked of it.
        what: &'static str,
        /// Its error.
        #[source]
        source: iron3d_abi::PluginError,
    },
    /// This joining peer was refused by the host (the refusal names the difference).
    #[error("refused by the host:\n  {}", .0.replace('\n', "\n  "))]
    NetRefused(String),
    /// `--inject-desync` found no object to move.
    #[error("--inject-desync: the world has no object to move")]
    NothingToPerturb,
    /// A run cannot record while it replays.
    #[error("a run records or replays, not both")]
    RecordWhileReplaying,
    /// `strict_plugins`: a slot the registry names could not load its plugin, or the
    /// registry names none; nothing was started.
    #[error("{}", strict_message(.fallbacks, *.empty_registry))]
    StrictPlugins {
        /// The slots that would have run a fallback.
        fallbacks: Vec<SlotFallback>,
        /// The registry named no plugin at all.
        empty_registry: bool,
    },
}

/// The text of [`SessionError::StrictPlugins`]: each slot and its reason, `; `-separated.
fn strict_message(fallbacks: &[SlotFallback], empty_registry: bool) -> String {
    let mut text = String::from("--strict-plugins: refusing to run");
    if empty_registry {
        text.push_str("; the registry names no plugin");
    }
    for f in fallbacks {
        text.push_str(&format!(
            "; slot {} could not load '{}' (factory {}): {}",
            f.slot, f.library, f.factory, f.reason
        ));
    }
    text
}

/// How the session's plugins are found and run.
#[derive(Clone, Debug)]
pub struct SessionSpec {
    /// Master seed.
    pub seed: u64,
    /// Simulation ticks per second.
    pub tick_hz: u32,
    /// Whether the kernel publishes render snapshots (play: yes; headless: as needed).
    pub publish_snapshots: bool,
    /// The plugin set.
    pub registry: Registry,
    /// Where registry library names are looked up.
    pub search_paths: SearchPaths,
    /// Where shadow copies of the libraries go (removed at shutdown).
    pub shadow_dir: PathBuf,
    /// Quiet time of the library watcher.
    pub debounce: Duration,
    /// Service plugins to load beside the slots (mods' `service = "…"` plugins).
    pub services: Vec<iron3d_plugin_host::ServiceSpec>,
    /// Refuse to open when a slot the registry names would run a fallback, or when the
    /// registry names no plugin (`--strict-plugins`); otherwise such slots run their
    /// null plugin and [`PluginHost::fallbacks`] says which and why.
    pub strict_plugins: bool,
}

/// Which mission a session runs.
#[derive(Clone, Debug, PartialEq)]
pub enum MissionSpec {
    /// A world the caller builds itself after [`Session::open`] (the built-in scenario),
    /// with parameters for its plugins.
    Synthetic {
        /// Name (replay headers, plugins' `MissionInfo`).
        name: String,
        /// Parameters for the plugins (`Host::mission_parameter`).
        parameters: BTreeMap<String, String>,
    },
    /// A mission of a game directory, loaded through the staged loader.
    Game {
        /// The game directory.
        game_dir: PathBuf,
        /// A directory under `MISSIONS/` or a `data.tma` path.
        mission: String,
        /// Strict or compatible archive reads.
        mode: ReadMode,
        /// Rule PD-TAG-MESH relaxed.
        relax_mesh_tag: bool,
        /// Parameters for the plugins (`Host::mission_parameter`), e.g. the AI's
        /// `auto-demo`.
        parameters: BTreeMap<String, String>,
        /// Data overlays mounted over the game directory in this order (the last wins):
        /// the enabled mods' data folders. Plugins and loaders see the same layers.
        overlays: Vec<DataOverlay>,
    },
}

/// A data folder mounted over the game directory (see [`iron3d_vfs::Vfs::mount`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataOverlay {
    /// The mount's name in provenance and fingerprints (the mod id).
    pub name: String,
    /// The folder.
    pub root: PathBuf,
}

/// The layered view of `game_dir` with `overlays` mounted over it in order.
pub fn game_vfs(game_dir: &std::path::Path, overlays: &[DataOverlay]) -> Vfs {
    let mut vfs = Vfs::new(game_dir);
    for o in overlays {
        vfs.mount(&o.name, &o.root);
    }
    vfs
}

impl MissionSpec {
    /// This mission with `overlays` mounted over its game directory (a synthetic
    /// mission has no game directory: unchanged).
    #[must_use]
    pub fn with_overlays(mut self, layers: Vec<DataOverlay>) -> Self {
        if let MissionSpec::Game { overlays, .. } = &mut self {
            *overlays = layers;
        }
        self
    }

    /// The mission's name.
    pub fn name(&self) -> &str {
        match self {
            MissionSpec::Synthetic { name, .. } => name,
            MissionSpec::Game { mission, .. } => mission,
        }
    }
}

/// A game mission's data as loaded.
pub struct GameMission {
    /// The game directory (the kernel's view for the loader and the render assets).
    pub vfs: Vfs,
    /// The archive cache the mission was loaded with.
    pub cache: ArchiveCache,
    /// The registered mission.
    pub loaded: LoadedMission,
}

impl GameMission {
    /// The loader's view of the game data.
    pub fn data(&self) -> GameData<'_> {
        GameData {
            vfs: &self.vfs,
            cache: &self.cache,
        }
    }
}

/// A running session (see the crate docs).
pub struct Session {
    /// The kernel.
    pub kernel: Kernel,
    /// The plugin host (swaps, captures, events, reports).
    pub host: PluginHost,
    /// The game mission, when the session runs one.
    pub game: Option<GameMission>,
    mission: MissionSpec,
}

/// Blob budget of a session's archive cache.
const CACHE_BUDGET: u64 = 256 << 20;

impl Session {
    /// Opens a session on `mission` with the plugin set of `spec`, on `platform` time.
    pub fn open(
        spec: &SessionSpec,
        mission: MissionSpec,
        platform: Box<dyn TimeSource>,
    ) -> Result<Self, SessionError> {
        let config = KernelConfig {
            seed: spec.seed,
            tick_hz: spec.tick_hz,
            publish_snapshots: spec.publish_snapshots,
            ..KernelConfig::default()
        };
        let mut kernel = Kernel::new(config, platform)?;
        let (files, parameters) = match &mission {
            MissionSpec::Synthetic { parameters, .. } => (None, parameters.clone()),
            MissionSpec::Game {
                game_dir,
                mission,
                parameters,
                overlays,
                ..
            } => {
                let vfs = game_vfs(game_dir, overlays);
                let mref = MissionRef::locate(&vfs, mission).map_err(|e| SessionError::Locate {
                    mission: mission.clone(),
                    source: Box::new(e),
                })?;
                let files = MissionFiles {
                    vfs,
                    mission_dir: mref.dir,
                };
                (Some(Arc::new(files)), parameters.clone())
            }
        };
        let mut host = PluginHost::new(HostConfig {
            search_paths: spec.search_paths.clone(),
            shadow_dir: spec.shadow_dir.clone(),
            mission: MissionSetup {
                name: mission.name().to_owned(),
                seed: spec.seed,
                tick_hz: spec.tick_hz,
                files,
                parameters,
            },
            debounce: spec.debounce,
        });
        let systems = host.systems_from_registry(&spec.registry);
        if spec.strict_plugins && (!host.fallbacks().is_empty() || host.registry_was_empty()) {
            let error = SessionError::StrictPlugins {
                fallbacks: host.fallbacks().to_vec(),
                empty_registry: host.registry_was_empty(),
            };
            drop(systems);
            let _ = std::fs::remove_dir_all(host.shadow_dir());
            return Err(error);
        }
        for system in systems {
            kernel.add_system(system)?;
        }
        if !spec.services.is_empty() {
            kernel.add_system(Box::new(host.start_services(&spec.services)))?;
        }
        let game = match &mission {
            MissionSpec::Synthetic { .. } => None,
            MissionSpec::Game {
                game_dir,
                mission,
                mode,
                relax_mesh_tag,
                overlays,
                ..
            } => {
                // The loader's own view of the same layers as the plugins' (built above):
                // a view records what it resolves, and the replay identity
                // (`iron3d_mission::data_fingerprint`) is what the mission load read —
                // not what plugins read later — so recorded logs stay replayable.
                let vfs = game_vfs(game_dir, overlays);
                let cache = ArchiveCache::new(*mode, CACHE_BUDGET);
                let cache = if *relax_mesh_tag {
                    cache.relax_mesh_tag()
                } else {
                    cache
                };
                let data = GameData {
                    vfs: &vfs,
                    cache: &cache,
                };
                let loaded = iron3d_mission::load_mission(&mut kernel, &data, mission, None)
                    .map_err(|e| SessionError::Load(Box::new(e)))?;
                let (bounds, diagnostics) = iron3d_mission::model_bounds(&data, &loaded);
                for d in &diagnostics {
                    tracing::warn!(target: "Control", model = d.model.as_str(), cause = d.cause.as_str(), "no model bounds: the default collision proxy applies");
                }
                host.set_model_bounds(
                    bounds
                        .into_iter()
                        .map(|(k, b)| {
                            let v = |a: [f32; 3]| iron3d_abi::Vec3f {
                                x: a[0],
                                y: a[1],
                                z: a[2],
                            };
                            (
                                k,
                                iron3d_abi::ModelBounds {
                                    min: v(b.min),
                                    max: v(b.max),
                                },
                            )
                        })
                        .collect(),
                );
                Some(GameMission { vfs, cache, loaded })
            }
        };
        tracing::info!(mission = mission.name(), "session open");
        Ok(Self {
            kernel,
            host,
            game,
            mission,
        })
    }

    /// The mission this session runs.
    pub fn mission(&self) -> &MissionSpec {
        &self.mission
    }

    /// Shuts down in order (see the crate docs) and returns the kernel's report.
    pub fn shutdown(mut self) -> ShutdownReport {
        let report = self.kernel.shutdown();
        let _ = std::fs::remove_dir_all(self.host.shadow_dir());
        tracing::info!(mission = self.mission.name(), "session closed");
        report
    }
}
