//! The iron3d launcher as a library: command-line parsing and the commands it runs, so that
//! end-to-end tests can drive exactly what the `iron3d` binary does.

pub mod audio;
pub mod bench;
pub mod bindings_cli;
pub mod demo_cli;
/// The main menu and its pages (the crate `iron3d-menu`).
pub use iron3d_menu as front_menu;
/// The game-directory picker's check (`iron3d_menu::dir_check`).
pub use iron3d_menu::dir_check;
pub mod headless;
pub mod live_input;
pub mod mods;
pub mod mods_cli;
pub mod net_cli;
pub mod play;
pub mod plugins;
pub mod renderer;
pub mod saves;
pub mod scenario;
pub mod window;

use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code when a replay diverges from its log.
pub const EXIT_REPLAY_DIVERGED: u8 = 3;

/// Iron3D-rs: an engine for Parkan: Iron Strategy data.
#[derive(Debug, Parser)]
#[command(name = "iron3d", version, about)]
pub struct Cli {
    /// Log filter for messages on standard error (e.g. warn, info, debug, iron3d_kernel=trace).
    #[arg(long, global = true, default_value = "warn")]
    pub log_level: String,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a mission (--demo, --game-dir/--mission) or the built-in scenario headless: record, replay, trace, hot swap.
    Run(RunArgs),
    /// Play a mission through a renderer plugin (the demo by default).
    Play(PlayArgs),
    /// A dedicated server for one match (headless; prints status lines, exits when the
    /// match ends): `serve --players N [--mission M] [--port P] [--ticks T]`.
    Serve(net_cli::HostArgs),
    /// Host a match as a player (`--bot`: the seat driven by the bot, headless).
    Host(net_cli::HostArgs),
    /// Join the match at ADDR as a player (`--bot`: the seat driven by the bot, headless).
    Join(net_cli::JoinArgs),
    /// Measure the engine: kernel, plugins, archives, assets, terrain, demo, render, control, AI, input, mods.
    Bench(BenchArgs),
    /// Inspect, check, extract, rewrite and build NRes / RsLi archives.
    #[command(subcommand)]
    Archive(ArchiveCommand),
    /// Inspect missions.
    #[command(subcommand)]
    Mission(MissionCommand),
    /// Inspect one asset of an archive.
    Inspect {
        /// material | texture | wear | fx | model
        kind: AssetKind,
        /// The archive.
        archive: PathBuf,
        /// Entry name (case-insensitive).
        name: String,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Texture tools.
    #[command(subcommand)]
    Texture(TextureCommand),
    /// Model tools.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Terrain debug views.
    #[command(subcommand)]
    Terrain(TerrainCommand),
    /// The embedded default game directory.
    #[command(subcommand)]
    Demo(DemoCommand),
    /// Input bindings.
    #[command(subcommand)]
    Bindings(BindingsCommand),
    /// Save games: inspect a save file.
    #[command(subcommand)]
    Save(SaveCommand),
    /// Mods: list, check, enable, disable, order, explain, conflicts, new, pack, install.
    Mods {
        /// What to do.
        #[command(subcommand)]
        command: mods_cli::ModsCommand,
        /// Where.
        #[command(flatten)]
        at: mods_cli::ModsWhere,
    },
    /// Runs every parser on every file of a game directory and reports by family (exit 1 when anything fails).
    Corpus {
        /// The game directory.
        game_dir: PathBuf,
        /// JSON output.
        #[arg(long)]
        json: bool,
        /// Also check that every file and entry rewrites byte-identically.
        #[arg(long)]
        roundtrip: bool,
    },
    /// The dependency graph of a mission (or the health of every prototype with no --mission).
    Graph {
        /// The game directory.
        game_dir: PathBuf,
        /// Mission: a directory under MISSIONS/ or a data.tma path relative to GAME_DIR.
        #[arg(long)]
        mission: Option<String>,
        /// JSON output.
        #[arg(long)]
        json: bool,
        /// How the archives are read.
        #[command(flatten)]
        profile: DataProfileArgs,
    },
}

/// Asset kinds of `iron3d inspect`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AssetKind {
    /// MAT0 material (version from the entry's attr2).
    Material,
    /// Texm texture.
    Texture,
    /// WEAR table.
    Wear,
    /// FXID effect.
    Fx,
    /// MSH model.
    Model,
}

/// `iron3d texture` subcommands.
#[derive(Debug, Subcommand)]
pub enum TextureCommand {
    /// Writes one mip level as an RGBA8 PNG.
    Export {
        /// The archive.
        archive: PathBuf,
        /// Entry name (case-insensitive).
        name: String,
        /// Output PNG.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Mip level (0 = full size).
        #[arg(long, default_value_t = 0)]
        mip: u32,
    },
}

/// Content profiles of `iron3d demo build`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DemoProfile {
    /// A few missions with a few hundred objects.
    Demo,
    /// One mission with 10,000 objects on a large map.
    Stress,
}

impl From<DemoProfile> for iron3d_demo::Profile {
    fn from(p: DemoProfile) -> Self {
        match p {
            DemoProfile::Demo => iron3d_demo::Profile::Demo,
            DemoProfile::Stress => iron3d_demo::Profile::Stress,
        }
    }
}

/// `iron3d demo` subcommands.
#[derive(Debug, Subcommand)]
pub enum DemoCommand {
    /// Writes the synthetic game directory (same seed → byte-identical files).
    Build {
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Content seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Content profile.
        #[arg(long, value_enum, default_value_t = DemoProfile::Demo)]
        profile: DemoProfile,
    },
}

/// Where the play command keeps generated demo content.
pub fn demo_cache_root() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("iron3d");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(h).join(".cache").join("iron3d");
    }
    std::env::temp_dir().join("iron3d-cache")
}

/// `iron3d terrain` subcommands.
#[derive(Debug, Subcommand)]
pub enum TerrainCommand {
    /// Height-shaded top view with areal borders and an optional route, as PNG.
    Render {
        /// The game directory.
        game_dir: PathBuf,
        /// A directory under MISSIONS/ or a data.tma path relative to GAME_DIR.
        mission: String,
        /// Output PNG.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Image width and height in pixels.
        #[arg(long, default_value_t = 512)]
        size: u32,
        /// Route start X,Y.
        #[arg(long, value_parser = iron3d_tools::terrain::parse_point, requires = "to")]
        from: Option<[f32; 2]>,
        /// Route goal X,Y.
        #[arg(long, value_parser = iron3d_tools::terrain::parse_point, requires = "from")]
        to: Option<[f32; 2]>,
    },
    /// Height, normal and area at points, and a route, as JSON.
    Query {
        /// The game directory.
        game_dir: PathBuf,
        /// A directory under MISSIONS/ or a data.tma path relative to GAME_DIR.
        mission: String,
        /// A point X,Y to query (repeatable).
        #[arg(long = "at", value_parser = iron3d_tools::terrain::parse_point)]
        at: Vec<[f32; 2]>,
        /// Route start X,Y.
        #[arg(long, value_parser = iron3d_tools::terrain::parse_point, requires = "to")]
        from: Option<[f32; 2]>,
        /// Route goal X,Y.
        #[arg(long, value_parser = iron3d_tools::terrain::parse_point, requires = "from")]
        to: Option<[f32; 2]>,
        /// JSON output (the only format; accepted for symmetry with the other commands).
        #[arg(long)]
        json: bool,
    },
}

/// `iron3d model` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Writes LOD 0 in the pose at time 0 as Wavefront OBJ.
    Export {
        /// The archive.
        archive: PathBuf,
        /// Entry name (case-insensitive).
        name: String,
        /// Output OBJ.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
}

/// `iron3d mission` subcommands.
#[derive(Debug, Subcommand)]
pub enum MissionCommand {
    /// Paths, clans, objects (with properties), land path and extras of a mission.
    Inspect {
        /// The game directory.
        game_dir: PathBuf,
        /// A directory under MISSIONS/ or a data.tma path relative to GAME_DIR.
        mission: String,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
}

/// `iron3d archive` subcommands.
#[derive(Debug, Subcommand)]
pub enum ArchiveCommand {
    /// List the entries.
    List {
        /// The archive.
        file: PathBuf,
        /// JSON: {"format": "nres"|"rsli", "entries": [...]}.
        #[arg(long)]
        json: bool,
        /// Accept only fully valid archives (default: compatible, quirks reported).
        #[arg(long)]
        strict: bool,
    },
    /// Write one entry's decoded payload (name is case-insensitive).
    Extract {
        /// The archive.
        file: PathBuf,
        /// Entry name.
        name: String,
        /// Output file (default: standard output).
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
    },
    /// Validate (and decode every entry): exit 0 when valid, else 1 with the failed check, entry and offset.
    Check {
        /// The archive.
        file: PathBuf,
        /// Strict validation (the default).
        #[arg(long, conflicts_with = "compat")]
        strict: bool,
        /// Tolerate the named quirks of the original.
        #[arg(long)]
        compat: bool,
    },
    /// Lossless rewrite: exit 0 only when byte-identical.
    Roundtrip {
        /// The archive.
        file: PathBuf,
    },
    /// Build an archive from a folder and a JSON manifest.
    Pack {
        /// The manifest.
        #[arg(long)]
        manifest: PathBuf,
        /// Output archive.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Folder the manifest's files are relative to (default: the manifest's folder).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

/// How game data is read (`run`, `play`, `graph`).
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct DataProfileArgs {
    /// Compatible profile: wrong `type_id` tags (and the other named quirks) are
    /// accepted and listed as diagnostics (default: strict, they are failures).
    #[arg(long)]
    pub compatible: bool,
    /// Relax rule PD-TAG-MESH: model entries need not carry the `MESH` tag (it comes
    /// from the FParkan source and is not confirmed by the original).
    #[arg(long)]
    pub relax_mesh_tag: bool,
}

impl From<DataProfileArgs> for iron3d_tools::mission::Profile {
    fn from(a: DataProfileArgs) -> Self {
        Self {
            compatible: a.compatible,
            relax_mesh_tag: a.relax_mesh_tag,
        }
    }
}

/// `iron3d save` subcommands.
#[derive(Debug, Subcommand)]
pub enum SaveCommand {
    /// Check a save file whole and print its header as JSON, with its sections (exit 1
    /// on a damaged or foreign file, naming what is wrong and where).
    Inspect {
        /// The save file.
        file: PathBuf,
    },
    /// The slot list of a save folder (SAVE/saveslots.cfg) with each slot checked
    /// against its file: ready, missing, damaged or stale.
    Slots {
        /// The save folder (default: $XDG_DATA_HOME/iron3d/SAVE).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `iron3d bindings` subcommands.
#[derive(Debug, Subcommand)]
pub enum BindingsCommand {
    /// The bindings in effect: every action, its inputs and where each was bound (the
    /// defaults of config/bindings.ini with the user's $XDG_CONFIG_HOME/iron3d/bindings.ini
    /// over them), then every input name.
    List {
        /// The defaults file (default: config/bindings.ini, found like the registry).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// The user's file (default: $XDG_CONFIG_HOME/iron3d/bindings.ini when present).
        #[arg(long, value_name = "FILE")]
        user: Option<PathBuf>,
    },
}

/// `iron3d run` options.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Run without a window (required: `iron3d play` opens one).
    #[arg(long)]
    pub headless: bool,
    /// Simulation ticks to run (default with --replay: the log's length).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Master seed of the RNG streams and the input script.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Record input and per-tick state hashes into FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Replay FILE and compare state hashes at its checkpoints.
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
    /// Save the run after its last tick into FILE (written atomically; the previous
    /// FILE is kept as FILE.bak).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Save the run after tick TICK into FILE (repeatable).
    #[arg(long = "save-at", value_name = "TICK:FILE", value_parser = saves::parse_save_at)]
    pub save_at: Vec<(u64, PathBuf)>,
    /// Start from the save FILE (its mission, seed and tick rate; a mission's save needs
    /// --game-dir) and run --ticks more ticks. With --record the log goes on from the
    /// save; with --replay the log must go on from this very save (PD-REPLAY-FROM-SAVE).
    #[arg(long, value_name = "FILE", conflicts_with = "demo")]
    pub load: Option<PathBuf>,
    /// Simulated presentation frames per second (does not change the simulation).
    #[arg(long, default_value_t = 60)]
    pub fps: u32,
    /// Simulation ticks per second.
    #[arg(long, default_value_t = 30)]
    pub tick_hz: u32,
    /// Objects placed by the built-in scenario.
    #[arg(long, default_value_t = 200)]
    pub objects: u32,
    /// When recording, store a state hash every K ticks (1..=3600).
    #[arg(long, default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=iron3d_replay::MAX_CHECKPOINT_EVERY))]
    pub checkpoint_every: u64,
    /// Write a JSON Lines trace (sampled object states and every tick's events) into FILE.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Sample the objects into the trace every K ticks (events are written every tick).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub trace_every: u64,
    /// Plugin registry (default: config/plugins.ini, found from the current directory or the executable).
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Extra directory searched first for plugin libraries (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// Refuse to start when a slot the registry names cannot load its library (instead
    /// of running that slot's null plugin with an error line), or the registry is empty.
    #[arg(long)]
    pub strict_plugins: bool,
    /// Hot-swap SLOT to the library at PATH after tick TICK (repeatable).
    #[arg(long = "swap", value_name = "TICK:SLOT:PATH", value_parser = plugins::parse_swap)]
    pub swaps: Vec<(u64, iron3d_abi::SlotKind, String)>,
    /// Watch the loaded plugin libraries and hot-swap them when rebuilt (implies --realtime).
    #[arg(long)]
    pub watch: bool,
    /// Read console commands from standard input: `swap SLOT PATH`, `pause`, `resume`, `quit` (implies --realtime).
    #[arg(long)]
    pub console: bool,
    /// Pace frames on the real clock.
    #[arg(long)]
    pub realtime: bool,
    /// Game directory to load a real mission from (with --mission, or with --replay of a
    /// mission log, which names the mission).
    #[arg(long)]
    pub game_dir: Option<PathBuf>,
    /// Mission to load: a directory under MISSIONS/ or a data.tma path relative to --game-dir.
    #[arg(long, requires = "game_dir")]
    pub mission: Option<String>,
    /// Play the embedded default: generate (or reuse, when current) the synthetic game
    /// directory in the cache and load its first mission.
    #[arg(long, conflicts_with_all = ["game_dir", "mission"])]
    pub demo: bool,
    /// How the mission's archives are read.
    #[command(flatten)]
    pub data_profile: DataProfileArgs,
    /// A mission parameter for the plugins (repeatable), e.g. `auto-demo=1` (the
    /// original's attract mode: the AI plays on and the outcome is not reported). A
    /// recording keeps them; a replay uses the recorded ones.
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = plugins::parse_param)]
    pub params: Vec<(String, String)>,
    /// Mods for this run (a replay enables the mods it recorded).
    #[command(flatten)]
    pub mods: mods::ModArgs,
    /// Sound output and the audio trace.
    #[command(flatten)]
    pub audio: audio::AudioArgs,
}

/// `iron3d play` options.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// How the mission's archives are read.
    #[command(flatten)]
    pub data_profile: DataProfileArgs,
    /// Game directory (with --mission, or with --load; alone in a window: its main
    /// menu); default: the embedded demo.
    #[arg(long)]
    pub game_dir: Option<PathBuf>,
    /// Mission: a directory under MISSIONS/ or a data.tma path relative to --game-dir.
    /// Without it (and without --load or --frames) a window opens on the main menu:
    /// continue, new campaign, single mission, load game, settings.
    #[arg(long, requires = "game_dir")]
    pub mission: Option<String>,
    /// In a window without --mission, skip the main menu and play the first mission.
    #[arg(long)]
    pub no_menu: bool,
    /// Renderer at start (switchable while running): vulkan, soft, capture, or any render
    /// plugin as `LIBRARY[:FACTORY]` (registry library name or path). Default: the
    /// registry's render slot when it names a renderer, else vulkan; without a Vulkan
    /// device the software renderer takes over, with a message.
    #[arg(long, value_name = "RENDERER", value_parser = play::parse_renderer)]
    pub renderer: Option<play::Renderer>,
    /// Render without a window.
    #[arg(long)]
    pub offscreen: bool,
    /// No HUD over the frames (briefing, objectives, messages, resources, menus).
    #[arg(long)]
    pub no_hud: bool,
    /// Open on the mission's briefing (the default in a window without --frames): the
    /// clock starts when the player presses Enter.
    #[arg(long, conflicts_with = "no_briefing")]
    pub briefing: bool,
    /// Start playing at once, without the briefing screen.
    #[arg(long)]
    pub no_briefing: bool,
    /// Frames to present, then exit.
    #[arg(long)]
    pub frames: Option<u64>,
    /// After the last frame write a PNG (pixel renderers) or the JSON command list (capture).
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Write a JSON Lines trace (sampled object states and every tick's events, as
    /// `iron3d run --trace`) into FILE; a restarted mission starts it afresh.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Sample the objects into the trace every K ticks (events are written every tick).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "trace",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub trace_every: u64,
    /// Record the played mission into a replay log (JSON Lines, the format of `iron3d
    /// run --record`); `iron3d run --headless --game-dir DIR --replay FILE` plays it back
    /// and compares every checkpoint.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Start from the save FILE (its mission and seed; without --game-dir the demo of
    /// the save's seed). With --record the log goes on from the save.
    #[arg(long, value_name = "FILE", conflicts_with = "mission")]
    pub load: Option<PathBuf>,
    /// Where the quick save (F5, `game.quick_save`) and its slot list go (default in a
    /// window: $XDG_DATA_HOME/iron3d/SAVE; offscreen: none unless given).
    #[arg(long, value_name = "DIR")]
    pub save_dir: Option<PathBuf>,
    /// A state-hash checkpoint in the recording every K ticks (1..=3600).
    #[arg(long, value_name = "K", default_value_t = 30, requires = "record",
          value_parser = clap::value_parser!(u64).range(1..=iron3d_replay::MAX_CHECKPOINT_EVERY))]
    pub checkpoint_every: u64,
    /// Target width in pixels (default: the settings' in a window, 640 offscreen).
    #[arg(long)]
    pub width: Option<u32>,
    /// Target height in pixels (default: the settings' in a window, 480 offscreen).
    #[arg(long)]
    pub height: Option<u32>,
    /// Camera at start: X,Y,Z,YAW,PITCH (world units, radians); default: an overview.
    #[arg(long, value_parser = play::parse_camera, allow_hyphen_values = true)]
    pub camera: Option<iron3d_render_frame::CameraState>,
    /// Master seed (also the demo content seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Presented frames per second of game time.
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Switch the renderer after presented frame FRAME (repeatable), e.g. 10:capture.
    #[arg(long = "switch-renderer", value_name = "FRAME:RENDERER", value_parser = play::parse_switch)]
    pub switches: Vec<(u64, play::Renderer)>,
    /// Hot-swap SLOT to the library at PATH after tick TICK (repeatable), as `run --swap`.
    #[arg(long = "swap", value_name = "TICK:SLOT:PATH", value_parser = plugins::parse_swap)]
    pub swaps: Vec<(u64, iron3d_abi::SlotKind, String)>,
    /// Plugin registry file.
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Extra directory searched first for plugin libraries (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// Refuse to start when a slot the registry names cannot load its library (instead
    /// of running that slot's null plugin with an error line), or the registry is empty.
    #[arg(long)]
    pub strict_plugins: bool,
    /// A mission parameter for the plugins (repeatable), e.g. `auto-demo=1` (see `run`).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = plugins::parse_param)]
    pub params: Vec<(String, String)>,
    /// Mods for this run (see `iron3d mods`).
    #[command(flatten)]
    pub mods: mods::ModArgs,
    /// Sound output and the audio trace.
    #[command(flatten)]
    pub audio: audio::AudioArgs,
}

/// `iron3d bench` options: also those of the `iron3d-bench` driver it runs
/// (`launcher/bench`), which parses them with this struct.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Objects in the benchmark world.
    #[arg(long, default_value_t = 10_000)]
    pub objects: u32,
    /// Measured ticks.
    #[arg(long, default_value_t = 300)]
    pub ticks: u32,
    /// Skip the plugin figures (call overhead, swap latency, memory per swap).
    #[arg(long)]
    pub no_plugins: bool,
    /// Skip the archive figures (NRes open + lookups, RsLi decode throughput per method).
    #[arg(long)]
    pub no_archives: bool,
    /// Skip the asset figures (MSH parse + validate, Texm mip-chain decode per format).
    #[arg(long)]
    pub no_assets: bool,
    /// Skip the terrain figures (1M height queries, 10k routes on a 3,025-area map).
    #[arg(long)]
    pub no_terrain: bool,
    /// Skip the embedded-default figures (generate each profile, corpus run, mission loads).
    #[arg(long)]
    pub no_demo: bool,
    /// Skip the render figures (frames per second of each renderer, demo and stress).
    #[arg(long)]
    pub no_render: bool,
    /// Skip the control figures (ms per tick with 1k / 10k / 100k vehicles on terrain).
    #[arg(long)]
    pub no_control: bool,
    /// Skip the AI figures (ms per tick of the AI plugin with 200 / 2k / 10k units).
    #[arg(long)]
    pub no_ai: bool,
    /// Skip the effects figures (10,000 live particles per frame, a burst of 64 kills).
    #[arg(long)]
    pub no_effects: bool,
    /// Skip the input figures (input-to-photon latency in frames at 30 / 60 / 144 fps).
    #[arg(long)]
    pub no_input: bool,
    /// Skip the mod figures (mission load with 0/10/100 overlay mods, `mods check`).
    #[arg(long)]
    pub no_mods: bool,
    /// Skip the save figures (save and load of the demo battle and the 10,000-object
    /// stress mission: bytes, ms).
    #[arg(long)]
    pub no_saves: bool,
    /// Skip the netcode figures (bytes per peer at 5 orders/s, order-to-turn latency,
    /// the netcode's processor time per turn with 2 and 8 peers, in-memory network).
    #[arg(long)]
    pub no_net: bool,
}

fn init_logging(filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // A second initialisation (tests calling main_with_args twice) is harmless.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .try_init();
}

/// Parses `args` (program name first), runs the command and returns the process exit code.
/// Standard output goes to `out`; diagnostics go to standard error.
pub fn main_with_args<I, T>(args: I, out: &mut dyn Write) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    init_logging(&cli.log_level);
    match run(cli.command, &cli.log_level, out) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("iron3d: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Like [`main_with_args`], but a failing command returns its error (with the whole
/// cause chain) instead of printing it; bad arguments are an error too. For tests and
/// embedders that need the message.
pub fn try_main_with_args<I, T>(args: I, out: &mut dyn Write) -> anyhow::Result<ExitCode>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    init_logging(&cli.log_level);
    run(cli.command, &cli.log_level, out)
}

fn run(command: Command, log_level: &str, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    match command {
        Command::Play(a) => play_command(a, out),
        Command::Run(a) => run_command(a, out),
        Command::Serve(a) => Ok(ExitCode::from(net_cli::host_command(a, true, out)?)),
        Command::Host(a) => Ok(ExitCode::from(net_cli::host_command(a, false, out)?)),
        Command::Join(a) => Ok(ExitCode::from(net_cli::join_command(a, out)?)),
        Command::Inspect {
            kind,
            archive,
            name,
            json,
        } => {
            match kind {
                AssetKind::Material => iron3d_tools::asset::material(&archive, &name, json, out)?,
                AssetKind::Texture => iron3d_tools::asset::texture(&archive, &name, json, out)?,
                AssetKind::Wear => iron3d_tools::asset::wear(&archive, &name, json, out)?,
                AssetKind::Fx => iron3d_tools::asset::fx(&archive, &name, json, out)?,
                AssetKind::Model => iron3d_tools::asset::model(&archive, &name, json, out)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Texture(TextureCommand::Export {
            archive,
            name,
            output,
            mip,
        }) => {
            iron3d_tools::asset::export_texture(&archive, &name, mip, &output, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Model(ModelCommand::Export {
            archive,
            name,
            output,
        }) => {
            iron3d_tools::asset::export_model(&archive, &name, &output, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Corpus {
            game_dir,
            json,
            roundtrip,
        } => {
            let clean = iron3d_tools::corpus::run(&game_dir, json, roundtrip, out)?;
            Ok(if clean {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Mods { command, at } => mods_cli::run(command, &at, out),
        Command::Save(SaveCommand::Inspect { file }) => {
            saves::inspect(&file, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Save(SaveCommand::Slots { dir }) => {
            let dir = dir.or_else(saves::user_dir).ok_or_else(|| {
                anyhow::anyhow!("no save folder: pass --dir (or set XDG_DATA_HOME or HOME)")
            })?;
            saves::list_slots(&dir, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bindings(BindingsCommand::List { file, user }) => {
            bindings_cli::list(file.as_deref(), user.as_deref(), out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo(DemoCommand::Build {
            out: dir,
            seed,
            profile,
        }) => {
            demo_cli::build(&dir, seed, profile.into(), out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Terrain(TerrainCommand::Render {
            game_dir,
            mission,
            output,
            size,
            from,
            to,
        }) => {
            iron3d_tools::terrain::render(&game_dir, &mission, size, from.zip(to), &output, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Terrain(TerrainCommand::Query {
            game_dir,
            mission,
            at,
            from,
            to,
            ..
        }) => {
            iron3d_tools::terrain::query(&game_dir, &mission, &at, from.zip(to), out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mission(MissionCommand::Inspect {
            game_dir,
            mission,
            json,
        }) => {
            iron3d_tools::mission::inspect(&game_dir, &mission, json, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Graph {
            game_dir,
            mission,
            json,
            profile,
        } => {
            iron3d_tools::mission::graph(&game_dir, mission.as_deref(), profile.into(), json, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Archive(a) => archive_command(a, out),
        Command::Bench(a) => bench::run(&a, log_level, out),
    }
}

/// `iron3d play`: the options from the command line and the player's settings, then a
/// window — or, without a display or with `--offscreen`, frames rendered offscreen.
fn play_command(mut a: PlayArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    // A save names its mission and seed.
    let loading = match &a.load {
        Some(path) => Some(saves::read_for_load(path)?.header),
        None => None,
    };
    if let Some(h) = &loading {
        a.seed = h.seed;
    }
    // The main menu: a window with no mission, save or frame budget (automation keeps
    // playing the first mission at once).
    let menu = !a.offscreen
        && !a.no_menu
        && !a.no_hud
        && a.mission.is_none()
        && loading.is_none()
        && a.frames.is_none();
    // Automation (offscreen) never reads the player's settings.
    let settings_file = iron3d_config::settings::user_file();
    let (settings, chosen) = if a.offscreen {
        Default::default()
    } else {
        play::player_settings(settings_file.as_deref())
    };
    // The menu opens over the game directory its picker chose last (the settings'
    // `[game] directory`) when the command line names none.
    if menu && a.game_dir.is_none() && !settings.game.directory.is_empty() {
        let d = PathBuf::from(&settings.game.directory);
        if front_menu::first_mission(&d).is_some() {
            a.game_dir = Some(d);
        } else {
            writeln!(
                out,
                "play: the game directory chosen in the menu ({}) has no mission now: the demo plays (choose another under Game directory)",
                d.display()
            )?;
        }
    }
    let (game_dir, mission) = match (a.game_dir, a.mission, &loading) {
        (Some(d), Some(m), _) => (d, m),
        (Some(d), None, Some(h)) => (d, h.mission.clone()),
        (Some(d), None, None) if menu => {
            // The scene behind the menu: the campaign's first mission, else the first
            // mission of the directory.
            let first = front_menu::first_mission(&d)
                .ok_or_else(|| anyhow::anyhow!("{}: no mission under MISSIONS/", d.display()))?;
            (d, first)
        }
        (Some(_), None, None) => {
            anyhow::bail!("--game-dir needs --mission (or --load) outside a window's menu")
        }
        _ => {
            let (dir, first) =
                demo_cli::cached(&demo_cache_root(), a.seed, iron3d_demo::Profile::Demo, out)?;
            (dir, loading.as_ref().map_or(first, |h| h.mission.clone()))
        }
    };
    let window_size = if a.offscreen {
        (640, 480)
    } else {
        (settings.video.width, settings.video.height)
    };
    let renderer = a.renderer.or_else(|| {
        chosen
            .then(|| play::parse_renderer(&settings.video.renderer))
            .and_then(|r| {
                r.map_err(|e| {
                    tracing::warn!(target: "Iron3D", error = %e, "the settings' renderer is left out")
                })
                .ok()
            })
    });
    let mut opts = play::PlayOptions {
        renderer,
        offscreen: a.offscreen,
        frames: a.frames,
        screenshot: a.screenshot,
        width: a.width.unwrap_or(window_size.0),
        height: a.height.unwrap_or(window_size.1),
        camera: a.camera,
        seed: a.seed,
        fps: a.fps,
        registry: a.registry,
        plugin_dirs: a.plugin_dirs,
        strict_plugins: a.strict_plugins,
        switches: a.switches,
        swaps: a.swaps,
        data_profile: a.data_profile.into(),
        params: plugins::param_map(&a.params)?,
        hud: !a.no_hud,
        // Automation (offscreen, or a frame budget) plays at once unless asked; the
        // main menu comes before any briefing.
        briefing: loading.is_none()
            && !menu
            && (a.briefing || (!a.no_briefing && !a.offscreen && a.frames.is_none())),
        menu,
        settings,
        settings_file: (!a.offscreen).then_some(settings_file).flatten(),
        trace: a.trace,
        trace_every: a.trace_every,
        mods: std::sync::Arc::new(mods::for_run(&a.mods, a.offscreen, &[])),
        mod_args: a.mods.clone(),
        audio: a.audio.mode(a.offscreen || a.frames.is_some()),
        announce_audio: a.audio.announces(a.offscreen || a.frames.is_some()),
        audio_trace: a.audio.audio_trace,
        record: a.record,
        checkpoint_every: a.checkpoint_every,
        // A loaded game goes on at once; the briefing is the mission's start.
        load: a.load,
        save_dir: a
            .save_dir
            .or_else(|| (!a.offscreen).then(saves::user_dir).flatten()),
        ..play::PlayOptions::new(game_dir, mission)
    };
    if !opts.offscreen {
        match window::run(&opts, out) {
            window::WindowOutcome::Ran(r) => {
                r?;
                return Ok(ExitCode::SUCCESS);
            }
            window::WindowOutcome::NoDisplay(reason) => {
                let shot = opts
                    .screenshot
                    .get_or_insert_with(|| PathBuf::from("iron3d-screenshot.png"))
                    .clone();
                writeln!(
                    out,
                    "play: no display ({reason}); rendering offscreen and writing {}",
                    shot.display()
                )?;
                opts.offscreen = true;
            }
        }
    }
    opts.frames = opts.frames.or(Some(120));
    play::run_offscreen(&opts, out)?;
    Ok(ExitCode::SUCCESS)
}

/// `iron3d run --headless`: exit 3 when the replay diverged.
fn run_command(mut a: RunArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if a.demo {
        let (dir, mission) =
            demo_cli::cached(&demo_cache_root(), a.seed, iron3d_demo::Profile::Demo, out)?;
        a.game_dir = Some(dir);
        a.mission = Some(mission);
    }
    if !a.headless {
        anyhow::bail!(
            "`iron3d run` is headless: pass --headless (for a window, use `iron3d play`)"
        );
    }
    let opts = headless::HeadlessOptions {
        ticks: a.ticks,
        seed: a.seed,
        fps: a.fps,
        tick_hz: a.tick_hz,
        objects: a.objects,
        record: a.record,
        replay: a.replay,
        checkpoint_every: a.checkpoint_every,
        trace: a.trace,
        trace_every: a.trace_every,
        registry: a.registry,
        plugin_dirs: a.plugin_dirs,
        strict_plugins: a.strict_plugins,
        swaps: a.swaps,
        watch: a.watch,
        console: a.console,
        realtime: a.realtime,
        game_dir: a.game_dir,
        mission: a.mission,
        data_profile: a.data_profile.into(),
        params: plugins::param_map(&a.params)?,
        mods: a.mods,
        audio: a.audio,
        save: a.save,
        save_at: a.save_at,
        load: a.load,
        net: None,
    };
    let outcome = headless::run(&opts, out)?;
    if let Some(d) = outcome.divergence {
        eprintln!("iron3d: replay diverged first at tick {}", d.tick);
        return Ok(ExitCode::from(EXIT_REPLAY_DIVERGED));
    }
    Ok(ExitCode::SUCCESS)
}

/// `iron3d archive …`.
fn archive_command(a: ArchiveCommand, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    use iron3d_tools::archive::Mode;
    match a {
        ArchiveCommand::List { file, json, strict } => {
            iron3d_tools::archive::list(
                &file,
                json,
                if strict { Mode::Strict } else { Mode::Compat },
                out,
            )?;
        }
        ArchiveCommand::Extract { file, name, output } => {
            iron3d_tools::archive::extract(&file, &name, output.as_deref(), Mode::Compat, out)?;
        }
        ArchiveCommand::Check { file, compat, .. } => {
            return iron3d_tools::archive::check(
                &file,
                if compat { Mode::Compat } else { Mode::Strict },
                out,
            );
        }
        ArchiveCommand::Roundtrip { file } => return iron3d_tools::archive::roundtrip(&file, out),
        ArchiveCommand::Pack {
            manifest,
            output,
            dir,
        } => {
            iron3d_tools::archive::pack(&manifest, &output, dir.as_deref(), out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
