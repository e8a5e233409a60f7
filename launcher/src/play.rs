//! `iron3d play`: a mission rendered through the `render` slot's plugin. The frame is
//! built on the kernel side ([`iron3d_render_frame`]) and drawn by the selected renderer
//! (`soft`, `capture`, `vulkan`), which is installed with the hot-swap mechanism and can be
//! switched while the mission runs. `--offscreen --frames N --screenshot FILE` is the
//! automation path: a PNG (pixel renderers) or the frame's JSON command list (capture).

use crate::front_menu::{FrontAction, FrontMenu, Page};
use crate::plugins;
use anyhow::{Context, bail};
use glam::Vec3;
use iron3d_abi::{RenderTarget, SlotKind};
use iron3d_hud::{MENU, MenuItem, Screen, menu_index};
use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource, StateHash};
use iron3d_plugin_host::{Capture, CaptureKind, HostEvent, PluginHost};
use iron3d_render_frame::{
    CameraState, DEFAULT_LIGHTING, FrameBuilder, FrameParams, LastFrame, MissionFramePreparer,
    SceneAssets, SharedView,
};
use iron3d_session::replay::Recorded;
use iron3d_session::run::{RecordTarget, TraceTarget};
use iron3d_session::{Run, RunOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use crate::renderer::{
    Renderer, disabled_mod_renderer_hint, mod_renderer, next_renderer, parse_renderer,
    parse_switch, switchable_renderers,
};

/// Parses `X,Y,Z,YAW,PITCH` (radians) into a camera.
pub fn parse_camera(s: &str) -> Result<CameraState, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|p| {
            p.trim()
                .parse::<f32>()
                .map_err(|e| format!("bad number '{p}': {e}"))
        })
        .collect::<Result<_, _>>()?;
    let [x, y, z, yaw, pitch] = v[..] else {
        return Err(format!("expected X,Y,Z,YAW,PITCH, got {} numbers", v.len()));
    };
    let mut c = CameraState {
        position: Vec3::new(x, y, z),
        ..CameraState::default()
    };
    c.turn(yaw, pitch);
    Ok(c)
}

/// Options of `iron3d play`.
#[derive(Clone, Debug)]
pub struct PlayOptions {
    /// Game directory and mission (both set) — the caller resolves `--demo` into these.
    pub game_dir: PathBuf,
    /// Mission name.
    pub mission: String,
    /// Renderer at start; `None`: the registry's render slot when it names a renderer
    /// (not the null one), else Vulkan.
    pub renderer: Option<Renderer>,
    /// Render without a window.
    pub offscreen: bool,
    /// Frames to present (`None`: until the window closes; offscreen needs a number).
    pub frames: Option<u64>,
    /// Screenshot (PNG) or, for the capture renderer, JSON written after the last frame.
    pub screenshot: Option<PathBuf>,
    /// Target size.
    pub width: u32,
    /// Target size.
    pub height: u32,
    /// Camera at start (default: an overview of the mission's objects).
    pub camera: Option<CameraState>,
    /// Master seed.
    pub seed: u64,
    /// Simulated presentation rate (frames per second of game time).
    pub fps: u32,
    /// Registry file.
    pub registry: Option<PathBuf>,
    /// Extra plugin directories.
    pub plugin_dirs: Vec<PathBuf>,
    /// Refuse to start when a registry slot would run a fallback (`--strict-plugins`).
    pub strict_plugins: bool,
    /// Renderer switches after presented frames.
    pub switches: Vec<(u64, Renderer)>,
    /// Scheduled hot swaps: after tick `.0`, swap slot `.1` to library `.2`.
    pub swaps: Vec<(u64, iron3d_abi::SlotKind, String)>,
    /// How the mission's archives are read (strict by default).
    pub data_profile: iron3d_tools::mission::Profile,
    /// Mission parameters for the plugins (`--param`).
    pub params: std::collections::BTreeMap<String, String>,
    /// Draw the HUD over the frames (`--no-hud` turns it off).
    pub hud: bool,
    /// Open on the briefing screen: the mission starts when the player leaves it.
    pub briefing: bool,
    /// The player's settings (the settings screen shows and changes them).
    pub settings: iron3d_config::settings::Settings,
    /// Where the settings screen saves them (`None`: changes last for this run only).
    pub settings_file: Option<PathBuf>,
    /// Write the JSON Lines trace of `iron3d-trace` into this file (a restarted mission
    /// starts it afresh).
    pub trace: Option<PathBuf>,
    /// Sample the objects into the trace every this many ticks.
    pub trace_every: u64,
    /// The enabled mods: their data overlays, plugins and renderers.
    pub mods: std::sync::Arc<crate::mods::ActiveMods>,
    /// The sound output (PD-AUDIO-AUTOMATION).
    pub audio: crate::audio::AudioMode,
    /// Whether a missing sound device is said (`AudioArgs::announces`).
    pub announce_audio: bool,
    /// Where to write the audio event trace.
    pub audio_trace: Option<PathBuf>,
    /// Record the played mission into this replay log (`iron3d run --replay` plays it
    /// back; a restarted mission starts it afresh).
    pub record: Option<PathBuf>,
    /// A state-hash checkpoint in the recording every this many ticks.
    pub checkpoint_every: u64,
    /// Start from this save (`--load`: the save's mission, seed and tick).
    pub load: Option<PathBuf>,
    /// Where the quick save (`game.quick_save`, F5) and its slot list go (`None`: no
    /// quick saves, as in automation).
    pub save_dir: Option<PathBuf>,
    /// Open on the main menu ([`crate::front_menu`]) over the held mission.
    pub menu: bool,
    /// The mission is played as the campaign's (a win is recorded in its progress).
    pub campaign: bool,
    /// How the mods were chosen (`--mods`, `--mods-dir`): the window chooses them again
    /// for each mission it starts, after the menu's Mods page changed the player's list.
    pub mod_args: crate::mods::ModArgs,
    /// Play this mission as a peer of a multiplayer match (`iron3d host`, `iron3d
    /// join`): the ticks are the match's, the pause menu does not stop it, and saves are
    /// off (PD-NET-NO-SAVES). Offscreen, frames are paced in real time.
    pub net: Option<crate::net_cli::NetPlan>,
}

impl PlayOptions {
    /// Options for `mission` of `game_dir` as automation uses them: offscreen, 640 × 480,
    /// the registry's renderer, seed 7 at 30 frames per second, the HUD on without the
    /// briefing, default settings that are not saved. Set the fields that differ.
    pub fn new(game_dir: impl Into<PathBuf>, mission: impl Into<String>) -> Self {
        Self {
            game_dir: game_dir.into(),
            mission: mission.into(),
            renderer: None,
            offscreen: true,
            frames: None,
            screenshot: None,
            width: 640,
            height: 480,
            camera: None,
            seed: 7,
            fps: 30,
            registry: None,
            plugin_dirs: Vec::new(),
            strict_plugins: false,
            switches: Vec::new(),
            swaps: Vec::new(),
            data_profile: iron3d_tools::mission::Profile::default(),
            params: Default::default(),
            hud: true,
            briefing: false,
            settings: Default::default(),
            settings_file: None,
            trace: None,
            trace_every: 1,
            mods: std::sync::Arc::new(crate::mods::ActiveMods::none()),
            audio: crate::audio::AudioMode::None,
            announce_audio: false,
            audio_trace: None,
            record: None,
            checkpoint_every: 30,
            load: None,
            save_dir: None,
            menu: false,
            campaign: false,
            mod_args: crate::mods::ModArgs::default(),
            net: None,
        }
    }
}

/// The quick slot's name in the slot list, and its file.
pub const QUICK_SLOT: &str = "quick";
/// The quick slot's save file in the save folder.
pub const QUICK_FILE: &str = "quick.sav";

/// The player's settings from `path` and whether they came from the file: the defaults
/// when there is no file, or — reported, rule PD-SETTINGS-BROKEN — when it does not
/// parse or is no regular file of bounded size (PD-CONFIG-FILE).
pub fn player_settings(path: Option<&Path>) -> (iron3d_config::settings::Settings, bool) {
    let Some(path) = path.filter(|p| p.exists()) else {
        return Default::default();
    };
    match iron3d_config::settings::Settings::load(path) {
        Ok(s) => (s, true),
        Err(e) => {
            tracing::warn!(target: "Iron3D", error = %anyhow::Error::new(e),
                "settings left out: the defaults apply");
            Default::default()
        }
    }
}

/// What a play run ended with.
#[derive(Clone, Debug)]
pub struct PlayOutcome {
    /// Final state hash.
    pub hash: StateHash,
    /// Frames presented.
    pub frames: u64,
    /// Ticks simulated.
    pub ticks: u64,
    /// The renderer active at the end.
    pub renderer: String,
    /// Draw items of the last frame.
    pub draw_items: usize,
    /// Presented frames per second of wall time over the frame loop (simulation, frame
    /// building and drawing; mission load excluded).
    pub fps: f64,
    /// The process's exit code: 0, or `net_cli::EXIT_DESYNC` after a match that
    /// desynced.
    pub exit: u8,
}

/// An overview camera: south-west of and above the object nearest to the centroid of all
/// objects, looking at it (so a default view shows both models and terrain).
pub fn overview_camera(
    kernel: &Kernel,
    has_model: impl Fn(&iron3d_kernel::GameObject) -> bool,
) -> CameraState {
    let positions: Vec<Vec3> = kernel
        .world()
        .iter_registered()
        .filter(|(_, o)| has_model(o))
        .map(|(_, o)| o.transform.position)
        .collect();
    if positions.is_empty() {
        return CameraState::default();
    }
    let centroid = positions.iter().copied().sum::<Vec3>() / positions.len() as f32;
    let target = positions
        .iter()
        .copied()
        .min_by(|a, b| {
            a.distance_squared(centroid)
                .total_cmp(&b.distance_squared(centroid))
        })
        .unwrap_or(centroid);
    CameraState::looking_at(target + Vec3::new(-32.0, -32.0, 22.0), target)
}

/// Asks the host to switch the render slot to `r`; `false` (with the reason logged and
/// printed) when the plugin is unavailable.
fn switch_renderer(host: &PluginHost, r: Renderer, out: &mut dyn Write) -> anyhow::Result<bool> {
    let (lib, factory) = r.plugin();
    match host.request_swap(SlotKind::Render, lib, factory) {
        Ok(()) => Ok(true),
        Err(e) => {
            writeln!(out, "renderer {}: not available ({e})", r.as_str())?;
            Ok(false)
        }
    }
}

/// Writes `capture` to `path` (PNG for an image, the JSON text for a command list) and
/// says so on `out`.
pub fn save_capture(capture: &Capture, path: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    match capture {
        Capture::Image(img) => {
            write_png(path, img)?;
            writeln!(
                out,
                "screenshot={} {}x{}",
                path.display(),
                img.width,
                img.height
            )?;
        }
        Capture::Commands(json) => {
            std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
            writeln!(out, "screenshot={} (capture JSON)", path.display())?;
        }
    }
    Ok(())
}

/// Writes `img` as an RGBA8 PNG.
pub fn write_png(path: &Path, img: &iron3d_abi::ImageRgba8) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    w.write_image_data(&img.pixels)?;
    w.finish()?;
    Ok(())
}

/// A key of the HUD's menus (the window maps its keys and clicks to these).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MenuKey {
    /// The entry above.
    Up,
    /// The entry below.
    Down,
    /// Enter: the highlighted entry, or leave the briefing.
    Accept,
    /// Escape on the outcome and settings screens.
    Back,
    /// Left arrow: the highlighted setting steps down.
    Left,
    /// Right arrow: the highlighted setting steps up.
    Right,
    /// A left click at target pixel `(x, y)` of a `width × height` window.
    Click {
        /// Pixel.
        x: f32,
        /// Pixel.
        y: f32,
        /// Window size.
        width: u32,
        /// Window size.
        height: u32,
    },
}

impl MenuKey {
    /// The line `item` of a menu of `lines` lines moves to with this key: Up and Down
    /// step and wrap round; any other key leaves it.
    pub fn moved(&self, item: usize, lines: usize) -> usize {
        let lines = lines.max(1);
        match self {
            MenuKey::Up => (item + lines - 1) % lines,
            MenuKey::Down => (item + 1) % lines,
            _ => item,
        }
    }

    /// The key a `menu.*` action of the bindings stands for (PD-INPUT-MENU-MODE: the
    /// gamepad drives the menus as the keyboard's arrows, Enter and Escape do).
    pub fn of_action(name: &str) -> Option<MenuKey> {
        Some(match name {
            "menu.up" => MenuKey::Up,
            "menu.down" => MenuKey::Down,
            "menu.left" => MenuKey::Left,
            "menu.right" => MenuKey::Right,
            "menu.accept" => MenuKey::Accept,
            "menu.back" => MenuKey::Back,
            _ => return None,
        })
    }
}

/// The most characters of a chat line.
pub const CHAT_CHARS: usize = 120;

/// What a key does to the chat line ([`PlaySession::chat_key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatKey<'a> {
    /// The chat key: open the line.
    Open,
    /// Typed text.
    Text(&'a str),
    /// Backspace.
    Erase,
    /// Enter: say it.
    Send,
    /// Escape: drop it.
    Cancel,
}

/// `1, 2, 3`.
fn join_numbers(n: &[u32]) -> String {
    n.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// What the launcher does after a menu key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MenuAction {
    /// Nothing more (the menu moved, or the game went on).
    None,
    /// Start the mission again from its beginning.
    Restart,
    /// Start `mission` on its briefing (a new session).
    Start {
        /// The mission.
        mission: String,
        /// Played as the campaign's mission.
        campaign: bool,
    },
    /// Start from this save (a new session: the save's mission and seed).
    Load(PathBuf),
    /// Play this game directory from now on (`None`: the embedded demo): the window
    /// keeps it in the settings and opens the main menu over it (a new session).
    UseGameDir(Option<PathBuf>),
    /// Host a match of `mission` for `players` players in all (the main menu's
    /// Multiplayer page): a new session in a match.
    Host {
        /// The mission.
        mission: String,
        /// Players in all, the host included.
        players: u8,
    },
    /// Join the match at `address` (the Multiplayer page): the window reserves a seat,
    /// then starts a new session in the match.
    Join {
        /// `HOST:PORT` or `HOST`.
        address: String,
    },
    /// Leave the game.
    Quit,
    /// A setting changed (already saved and in [`PlaySession::settings`]); the window
    /// applies what is its own (size, fullscreen, renderer).
    Setting(iron3d_config::settings::Item),
}

/// A mission running with a renderer: the kernel on a manual clock, the plugin host, the
/// shared camera/target, and the last built frame. The offscreen loop and the window
/// loop both drive it.
pub struct PlaySession {
    /// The run of the session (kernel, plugin host, mission; trace, recording, host
    /// events, audio output); shut down with [`PlaySession::shutdown`] before the
    /// window that presents it goes.
    pub run: Run,
    clock: ManualTimeSource,
    /// Camera, target and lighting read by the frame builder.
    pub view: SharedView,
    last_frame: LastFrame,
    /// The active renderer.
    pub renderer: Renderer,
    /// The window's input on its way to the input plugin and the next tick.
    pub input: crate::live_input::LiveInput,
    /// The game clock stands: the briefing, the pause menu or the outcome screen is up
    /// (`game.pause`, `game.menu`, or the window's key).
    pub paused: bool,
    /// The HUD (`None` with `--no-hud`).
    pub hud: Option<iron3d_hud::view::HudView>,
    /// The player's settings as the settings screen left them.
    pub settings: iron3d_config::settings::Settings,
    /// Where changed settings are saved.
    settings_file: Option<PathBuf>,
    /// Game-clock time of the last presented frame (the HUD's frames per second).
    last_frame_ns: Option<u64>,
    /// Presented frames per second, smoothed over the last frames.
    frame_rate: f32,
    /// A renderer being prepared on a worker thread (interactive switches).
    pending: Option<(
        Renderer,
        std::thread::JoinHandle<Result<(), iron3d_plugin_host::HostError>>,
    )>,
    /// The enabled mods (their renderers join the switchable ones).
    mods: std::sync::Arc<crate::mods::ActiveMods>,
    /// Lines for the player not written yet ([`PlaySession::write_notes`]).
    notes: Vec<String>,
    /// What this game's saves say about its data and mods.
    identity: iron3d_session::save::SaveIdentity,
    /// Where quick saves go.
    save_dir: Option<PathBuf>,
    /// A recording is running (a load would break it: refused).
    recording: bool,
    /// Game time of the next autosave (`None`: not armed yet).
    next_autosave_ns: Option<u64>,
    /// Autosaves written so far (the slot rotates with it).
    autosaves: u64,
    /// The main menu, the mission list and the slot screens (`None` without a HUD).
    front: Option<FrontMenu>,
    /// The mission is played as the campaign's.
    campaign: bool,
    /// The mission's name (what the campaign records).
    mission: String,
    /// The campaign's next mission once this one was won as the campaign's (`Some(None)`:
    /// the campaign is won).
    next_mission: Option<Option<String>>,
    /// The screen the settings screen's Back returns to.
    settings_back: Screen,
    /// What the gamepad's menu keys asked of the window this frame
    /// ([`PlaySession::take_menu_actions`]).
    menu_actions: Vec<MenuAction>,
    /// The match this session is a peer of (`None`: a game of one).
    net: Option<NetSeat>,
}

/// A session's part in a multiplayer match.
struct NetSeat {
    game: iron3d_session::net_match::NetMatch,
    /// The seat's bot (`--bot`): its records replace the window's.
    bot: Option<crate::net_cli::Bot>,
    /// Host: end the match after this tick.
    end_after: Option<u64>,
    /// Host: the player asked to end the match (leaving it from the menu).
    end: bool,
    /// The status lines' prefix (`host`, `join`).
    label: &'static str,
    /// A chat line to send with the next exchange.
    say: Option<String>,
    /// The chat line being typed (`None`: not typing).
    typing: Option<String>,
}

impl PlaySession {
    /// Loads the mission, installs the frame builder and asks for the renderer (see
    /// [`PlayOptions::renderer`])
    /// (falling back to the software renderer with a message when it is unavailable).
    pub fn start(opts: &PlayOptions, out: &mut dyn Write) -> anyhow::Result<Self> {
        if opts.fps == 0 || opts.width == 0 || opts.height == 0 {
            bail!("--fps, --width and --height must be positive");
        }
        let clock = ManualTimeSource::new();
        let registry_path = plugins::locate_registry(opts.registry.as_deref())?;
        opts.mods.report(out)?;
        let setup = plugins::RunPlugins {
            registry: &registry_path,
            plugin_dirs: &opts.plugin_dirs,
            mods: &opts.mods,
            audio: opts.audio,
            strict: opts.strict_plugins,
        };
        let registry = setup.registry()?;
        let wanted = opts
            .renderer
            .map(|r| mod_renderer(&opts.mods, r))
            .or_else(|| Renderer::from_registry(&registry))
            .unwrap_or(Renderer::Vulkan);
        let mut run = setup.open(
            registry,
            opts.seed,
            KernelConfig::default().tick_hz,
            opts.data_profile
                .mission(&opts.game_dir, &opts.mission, &opts.params)
                .with_overlays(crate::mods::overlays(&opts.mods)),
            Box::new(clock.clone()),
        )?;
        let game = run
            .game
            .as_ref()
            .context("a play session runs a game mission")?;
        // The files the mission load read, before the renderer's assets are read: what
        // a headless replay of the recording reads too.
        let data = iron3d_mission::data_fingerprint(&game.vfs)?;
        let identity = iron3d_session::save::SaveIdentity::of(
            Some(&iron3d_replay::ReplayMission {
                name: opts.mission.clone(),
                data: data.clone(),
            }),
            &serde_json::Value::Null,
            &opts.mods.fingerprint,
        );
        let recorded_data = opts.record.as_ref().map(|_| data);
        let mut start = None;
        if let Some(path) = &opts.load {
            let save = crate::saves::read_for_load(path)?;
            // A recording goes on from the save (PD-REPLAY-FROM-SAVE).
            if opts.record.is_some() {
                start = Some(crate::saves::replay_start(path, &save)?);
            }
            run.restore_save(&save, &identity)
                .with_context(|| format!("--load {}", path.display()))?;
            writeln!(
                out,
                "loaded tick={} state_hash={} mission={}",
                save.header.tick, save.header.state_hash, save.header.mission
            )?;
        }
        let (view, last_frame, hud) = install_presentation(opts, &mut run, out)?;
        let options = run_options(opts, &run, recorded_data, start);
        let run = Run::start(run, options)?;
        tracing::debug!("play session ready");
        let mut session = Self {
            run,
            clock,
            view,
            last_frame,
            renderer: wanted,
            input: crate::live_input::LiveInput::with_mouse((&opts.settings.input).into()),
            paused: false,
            hud,
            settings: opts.settings.clone(),
            settings_file: opts.settings_file.clone(),
            mods: opts.mods.clone(),
            last_frame_ns: None,
            frame_rate: 0.0,
            pending: None,
            notes: Vec::new(),
            identity,
            save_dir: opts.save_dir.clone(),
            recording: opts.record.is_some(),
            next_autosave_ns: None,
            autosaves: 0,
            front: None,
            campaign: opts.campaign,
            mission: opts.mission.clone(),
            next_mission: None,
            settings_back: Screen::Paused {
                item: menu_index(MenuItem::Settings),
            },
            menu_actions: Vec::new(),
            net: None,
        };
        if let Some(plan) = &opts.net {
            let mut game = iron3d_session::net_match::NetMatch::start(
                &session.run,
                plan.start.clone(),
                &session.identity,
                &plan.desync_dir,
            )?;
            if let Some(t) = plan.inject_desync {
                game = game.inject_desync_after(t);
            }
            session.net = Some(NetSeat {
                game,
                bot: plan.bot.map(crate::net_cli::Bot::new),
                end_after: plan.end_after,
                end: false,
                label: plan.label,
                say: None,
                typing: None,
            });
        }
        if session.hud.is_some() {
            let controls = crate::bindings_cli::load(None, None)
                .map(|(b, _, user)| (b, user))
                .map_err(|e| format!("{e:#}"));
            let mut front =
                FrontMenu::new(&opts.game_dir, opts.save_dir.clone()).with_controls(controls);
            if let Some(list) = crate::mods::user_list_path() {
                let folder = crate::mods::locate_mods_dir(opts.mod_args.mods_dir.as_deref());
                front = front.with_mods(folder, list, crate::mods::environment());
            }
            if opts.campaign {
                front.started(&opts.mission);
            }
            session.front = Some(front);
            if opts.menu {
                session.open_front(Page::Main, false);
            }
        }
        // The briefing and the main menu hold the clock until the player leaves them.
        if matches!(session.screen(), Screen::Briefing | Screen::List { .. }) {
            session.paused = true;
            session.run.kernel.pause();
        }
        if !session.switch(wanted, out)? {
            if wanted == Renderer::Soft {
                bail!("the software renderer plugin is not available");
            }
            writeln!(out, "falling back to the software renderer")?;
            if !session.switch(Renderer::Soft, out)? {
                bail!("the software renderer plugin is not available");
            }
        }
        Ok(session)
    }

    /// Starts preparing renderer `r` on a worker thread (loading, device creation) while
    /// frames go on with the current renderer; [`PlaySession::poll_switch`] picks up the
    /// result, and the new renderer draws from the frame after it is ready. A switch
    /// still being prepared is superseded.
    pub fn switch_async(&mut self, r: Renderer) -> anyhow::Result<()> {
        let r = mod_renderer(&self.mods, r);
        let (lib, factory) = r.plugin();
        let job = self
            .run
            .host
            .request_swap_async(SlotKind::Render, lib, factory)?;
        self.pending = Some((r, job));
        Ok(())
    }

    /// Finishes a prepared asynchronous switch: `Some(true)` when renderer `r` was
    /// prepared (it draws the next frame), `Some(false)` with the reason printed when it
    /// was refused, `None` while nothing finished.
    pub fn poll_switch(&mut self, out: &mut dyn Write) -> anyhow::Result<Option<bool>> {
        if !self.pending.as_ref().is_some_and(|(_, j)| j.is_finished()) {
            return Ok(None);
        }
        let Some((r, job)) = self.pending.take() else {
            return Ok(None);
        };
        match job.join() {
            Ok(Ok(())) => {
                self.renderer = r;
                writeln!(out, "renderer {}: switched", r.as_str())?;
                Ok(Some(true))
            }
            Ok(Err(e)) => {
                writeln!(out, "renderer {}: not available ({e})", r.as_str())?;
                Ok(Some(false))
            }
            Err(_) => {
                writeln!(
                    out,
                    "renderer {}: its preparation thread panicked",
                    r.as_str()
                )?;
                Ok(Some(false))
            }
        }
    }

    /// Asks for renderer `r` (active from the next calculation boundary); `false` with a
    /// printed reason when its plugin is unavailable (the current one keeps running).
    pub fn switch(&mut self, r: Renderer, out: &mut dyn Write) -> anyhow::Result<bool> {
        let r = mod_renderer(&self.mods, r);
        let ok = switch_renderer(&self.run.host, r, out)?;
        if ok {
            self.renderer = r;
            writeln!(out, "renderer {}: switched", r.as_str())?;
        } else if let Renderer::Plugin { library, factory } = r {
            let root = if self.mods.root.as_os_str().is_empty() {
                crate::mods::locate_mods_dir(None)
            } else {
                self.mods.root.clone()
            };
            if let Some(hint) = disabled_mod_renderer_hint(&root, factory.unwrap_or(library))
                .or_else(|| disabled_mod_renderer_hint(&root, library))
            {
                writeln!(out, "{hint}")?;
            }
        }
        Ok(ok)
    }

    /// The capture kind of the active renderer.
    pub fn capture_kind(&self) -> CaptureKind {
        if self.renderer == Renderer::Capture {
            CaptureKind::Commands
        } else {
            CaptureKind::Image
        }
    }

    /// Presents one frame at game-clock time `now_ns` (platform time of the manual clock).
    pub fn frame(&mut self, now_ns: u64) -> anyhow::Result<()> {
        self.clock.set_ns(now_ns);
        if let Some(last) = self.last_frame_ns.replace(now_ns) {
            let dt = now_ns.saturating_sub(last) as f32 / 1e9;
            if dt > 0.0 {
                let rate = 1.0 / dt;
                self.frame_rate = if self.frame_rate > 0.0 {
                    self.frame_rate + (rate - self.frame_rate) * 0.1
                } else {
                    rate
                };
            }
        }
        // A decided mission puts its outcome screen up and stops the clock; a win of the
        // campaign's mission is recorded in its progress.
        if let (Some(d), Some(h)) = (self.decided(), self.hud.clone()) {
            if !matches!(h.screen(), Screen::Outcome { .. }) {
                let complete = d.outcome == iron3d_abi::MissionOutcome::COMPLETE;
                if complete && self.campaign && self.next_mission.is_none() {
                    if let Some(f) = &self.front {
                        self.next_mission = Some(f.complete(&self.mission));
                    }
                }
                h.set_screen(Screen::Outcome {
                    complete,
                    next: complete && matches!(self.next_mission, Some(Some(_))),
                });
                self.set_clock(false);
            }
        }
        if let Some(h) = &self.hud {
            h.update(&self.run.kernel, self.frame_rate);
        }
        // PD-INPUT-MENU-MODE: while a menu is up the input plugin maps the gamepad to
        // the menus' actions, which drive the menu here as the keyboard's keys do in the
        // window (what they ask of the window waits in `menu_actions`).
        self.input.set_menu(self.screen() != Screen::Playing);
        // The game-directory check runs on its own thread: its progress shows here.
        if let (Some(h), Some(f)) = (&self.hud, &mut self.front) {
            if matches!(h.screen(), Screen::List { .. }) && f.poll() {
                h.set_list(f.view().clone());
            }
        }
        self.input.poll(&self.run.host);
        for name in self.input.take_menu_presses() {
            if let Some(key) = MenuKey::of_action(name) {
                let action = self.menu(key);
                if action != MenuAction::None {
                    self.menu_actions.push(action);
                }
            }
        }
        // The mix follows the settings; the pause menu holds the sound, the outcome
        // screen (its voice line) does not.
        let hold = self.paused && !matches!(self.screen(), Screen::Outcome { .. });
        self.run
            .host
            .set_audio_mix(crate::audio::mix(&self.settings.audio, hold));
        let frame = if self.net.is_some() {
            self.match_frame(now_ns)?
        } else {
            self.run.frame(&mut self.input, None)?
        };
        if let Some(h) = &self.hud {
            let hz = self.run.kernel.config().tick_hz.max(1) as f32;
            for t in frame.told {
                h.trigger(t.tick as f32 / hz, t.player, t.text);
            }
        }
        self.notes.extend(frame.notes);
        // Pausing is the shell's: while the game clock stands no tick could read it.
        let pause = ["game.pause", "game.menu"]
            .iter()
            .filter_map(|a| iron3d_input::action_code(a))
            .any(|c| self.input.pressed.contains(&c));
        if pause {
            self.toggle_pause();
        }
        self.autosave();
        // Quick save and load are the shell's too, between ticks, while playing.
        let pressed =
            |a: &str| iron3d_input::action_code(a).is_some_and(|c| self.input.pressed.contains(&c));
        let (save, load) = (pressed("game.quick_save"), pressed("game.quick_load"));
        if self.screen() == Screen::Playing {
            if save {
                let line = match self.quick_save() {
                    Ok((path, header)) => crate::saves::saved_line(&header, &path),
                    Err(e) => format!("quick save failed: {e:#}"),
                };
                tracing::info!(target: "Iron3D", "{line}");
                self.notes.push(line);
            }
            if load {
                let line = match self.quick_load() {
                    Ok(tick) => format!("loaded the quick save (tick {tick})"),
                    Err(e) => format!("quick load refused: {e:#}"),
                };
                tracing::info!(target: "Iron3D", "{line}");
                self.notes.push(line);
            }
        }
        if frame.events.iter().any(|e| {
            matches!(
                e,
                HostEvent::Fault {
                    slot: SlotKind::Render,
                    ..
                } | HostEvent::SwapRefused {
                    slot: SlotKind::Render,
                    ..
                }
            )
        }) {
            self.after_render_failure()?;
        }
        Ok(())
    }

    /// The renderer the render slot runs now (`None`: vacant or the null renderer, which
    /// draws nothing).
    pub fn drawing_renderer(&self) -> Option<Renderer> {
        let (path, factory) = self.run.host.active_plugin(SlotKind::Render)?;
        let stem = iron3d_registry::library_stem(&path.to_string_lossy());
        if stem == iron3d_plugin_host::NULL_LIBRARY {
            return None;
        }
        // The chosen renderer when it is the one drawing (a mod's keeps its name).
        let (lib, fac) = self.renderer.plugin();
        if iron3d_registry::library_stem(lib) == stem && fac.is_none_or(|f| f == factory) {
            return Some(self.renderer);
        }
        Renderer::from_name(&format!("{stem}:{factory}"))
    }

    /// PD-PLAY-RENDER-FALLBACK: after a fault, or a switch refused when it was to take
    /// over, the render slot runs the renderer it had before or the null renderer (a
    /// starting renderer failed). The null renderer draws nothing, so the software
    /// renderer takes over, as the player would choose; the summary and captures then
    /// name the renderer drawing.
    fn after_render_failure(&mut self) -> anyhow::Result<()> {
        let failed = self.renderer;
        match self.drawing_renderer() {
            Some(now) => {
                if now != failed {
                    self.notes.push(format!(
                        "renderer {}: failed; {} draws again",
                        failed.as_str(),
                        now.as_str()
                    ));
                }
                self.renderer = now;
            }
            None if failed != Renderer::Soft => {
                let mut why = Vec::new();
                if switch_renderer(&self.run.host, Renderer::Soft, &mut why)? {
                    self.renderer = Renderer::Soft;
                    self.notes.push(format!(
                        "renderer {}: failed; falling back to the software renderer",
                        failed.as_str()
                    ));
                } else {
                    self.notes.push(format!(
                        "renderer {}: failed, and the software renderer is not available: nothing is drawn ({})",
                        failed.as_str(),
                        String::from_utf8_lossy(&why).trim()
                    ));
                }
            }
            None => self.notes.push(
                "renderer soft: failed; nothing is drawn (the null renderer runs)".to_owned(),
            ),
        }
        Ok(())
    }

    /// Writes the lines for the player that frames produced (e.g. that there is no sound
    /// device) to `out`, once each.
    ///
    /// # Errors
    /// Writing failed.
    pub fn write_notes(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        for line in self.notes.drain(..) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    /// The HUD's screen (`Playing` without a HUD).
    pub fn screen(&self) -> Screen {
        self.hud.as_ref().map_or(Screen::Playing, |h| h.screen())
    }

    fn set_clock(&mut self, run: bool) {
        if run != self.paused {
            return;
        }
        self.paused = !run;
        // PD-NET-PAUSE: a match's clock is every peer's; the pause menu stands over a
        // match that goes on.
        if self.net.is_some() {
            return;
        }
        if run {
            self.run.kernel.resume();
        } else {
            self.run.kernel.pause();
        }
        tracing::info!(paused = self.paused, "pause");
    }

    /// Saves the game as it stands into the quick slot (`QUICK_FILE` in the save folder,
    /// written atomically, the previous one kept as its backup) and records it in the
    /// folder's slot list; returns the file.
    pub fn quick_save(&mut self) -> anyhow::Result<(PathBuf, iron3d_save::SaveHeader)> {
        self.refuse_in_match()?;
        let dir = self
            .save_dir
            .clone()
            .context("no save folder (set XDG_DATA_HOME or HOME)")?;
        let header = self
            .run
            .save_to_slot(&dir, QUICK_SLOT, QUICK_FILE, &self.identity)?;
        Ok((dir.join(QUICK_FILE), header))
    }

    /// Loads the quick slot's save into this session, between ticks. It must be of this
    /// mission, data, mods and plugins; a refusal changes nothing (the state before the
    /// load is put back when a restore fails half-way). Refused while recording.
    pub fn quick_load(&mut self) -> anyhow::Result<u64> {
        self.refuse_in_match()?;
        if self.recording {
            bail!("a recording is running: a load would break it");
        }
        let dir = self.save_dir.clone().context("no save folder")?;
        let save = iron3d_save::read(&dir.join(QUICK_FILE))?;
        self.run.load_in_place(&save, &self.identity)?;
        self.held_clock_after_load();
        Ok(save.header.tick)
    }

    /// After a load the shell's pause is the save's (a save is made while playing), and
    /// the autosave timer starts again from the loaded time.
    fn held_clock_after_load(&mut self) {
        self.paused = self.run.kernel.game_clock().is_paused();
        self.next_autosave_ns = None;
    }

    /// **PD-SAVE-AUTOSAVE**: with a save folder and `[saves] autosave_minutes` above 0,
    /// the game saves itself every that many minutes of game time (so never while
    /// paused) into `auto1.sav` … `autoN.sav` in turn (`autosave_slots`), each recorded
    /// in the slot list as `auto1` … `autoN`. The first comes one interval after the
    /// start or the last load. A failed autosave is said and the game goes on.
    fn autosave(&mut self) {
        let s = self.settings.saves;
        let Some(dir) = self.save_dir.clone() else {
            return;
        };
        if s.autosave_minutes == 0 || self.recording || self.net.is_some() {
            return;
        }
        let period = u64::from(s.autosave_minutes) * 60 * 1_000_000_000;
        let now = self.run.kernel.game_clock().now_ns();
        let due = *self.next_autosave_ns.get_or_insert(now + period);
        if now < due {
            return;
        }
        self.next_autosave_ns = Some(now + period);
        let k = self.autosaves % u64::from(s.autosave_slots.max(1)) + 1;
        self.autosaves += 1;
        let (slot, file) = (format!("auto{k}"), format!("auto{k}.sav"));
        let line = match self.run.save_to_slot(&dir, &slot, &file, &self.identity) {
            Ok(h) => format!("autosaved tick={} slot={slot}", h.tick),
            Err(e) => format!("autosave failed: {e:#}"),
        };
        tracing::info!(target: "Iron3D", "{line}");
        self.notes.push(line);
    }

    /// The pause key (`game.pause`, `game.menu`): pauses with the menu up, resumes from
    /// it, starts the mission from the briefing; nothing once the mission is decided.
    pub fn toggle_pause(&mut self) {
        let Some(h) = &self.hud else {
            let run = self.paused;
            return self.set_clock(run);
        };
        match h.screen() {
            Screen::Playing => {
                h.set_screen(Screen::Paused { item: 0 });
                self.set_clock(false);
            }
            Screen::Paused { .. } | Screen::Settings { .. } | Screen::Briefing => {
                h.set_screen(Screen::Playing);
                self.set_clock(true);
            }
            // The pause key on a list opened from the game goes back to the game; the
            // main menu at the start has no game to go back to.
            Screen::List { .. } => {
                if self.front.as_ref().is_some_and(FrontMenu::from_game) {
                    h.set_screen(Screen::Playing);
                    self.set_clock(true);
                }
            }
            Screen::Outcome { .. } => {}
        }
    }

    /// Puts `page` of the front menu up (built afresh), its first line that can be
    /// chosen highlighted; `from_game`: Back returns to the pause menu.
    fn open_front(&mut self, page: Page, from_game: bool) {
        let (Some(h), Some(f)) = (&self.hud, &mut self.front) else {
            return;
        };
        f.open(page, from_game);
        h.set_list(f.view().clone());
        h.set_screen(Screen::List {
            item: f.first_enabled(),
        });
    }

    /// A key on a list screen (line `item` highlighted).
    fn list_key(&mut self, h: &iron3d_hud::view::HudView, item: usize, key: MenuKey) -> MenuAction {
        let Some(f) = self.front.as_mut() else {
            return MenuAction::None;
        };
        let lines = f.view().lines.len().max(1);
        let before = f.location_owned();
        let action = match key {
            MenuKey::Up | MenuKey::Down => {
                h.set_screen(Screen::List {
                    item: key.moved(item, lines),
                });
                return MenuAction::None;
            }
            MenuKey::Click {
                x,
                y,
                width,
                height,
            } => {
                let Some(k) = h.hud.list_item_at(width, height, lines, item, x, y) else {
                    return MenuAction::None;
                };
                h.set_screen(Screen::List { item: k });
                f.choose(k)
            }
            MenuKey::Accept => f.choose(item),
            MenuKey::Back => f.back(),
            MenuKey::Left | MenuKey::Right => {
                let step = if key == MenuKey::Left { -1 } else { 1 };
                f.shift(item, step);
                FrontAction::Stay
            }
        };
        match action {
            FrontAction::Stay => {
                if let Some(f) = self.front.as_ref() {
                    // A new page (or another folder of the game-directory page) shows
                    // from its first line; a page built again (a mod turned on or
                    // moved, a check begun) keeps the highlight.
                    h.set_list(f.view().clone());
                    let here = f.location_owned();
                    let item = if here != before {
                        f.first_enabled()
                    } else {
                        item.min(f.view().lines.len().saturating_sub(1))
                    };
                    h.set_screen(Screen::List { item });
                }
                MenuAction::None
            }
            FrontAction::Start { mission, campaign } => MenuAction::Start { mission, campaign },
            FrontAction::Load(path) => MenuAction::Load(path),
            FrontAction::UseGameDir(dir) => MenuAction::UseGameDir(dir),
            FrontAction::Host { mission, players } => MenuAction::Host { mission, players },
            FrontAction::Join { address } => MenuAction::Join { address },
            FrontAction::Quit => MenuAction::Quit,
            FrontAction::Resume => {
                h.set_screen(Screen::Paused { item: 0 });
                MenuAction::None
            }
            FrontAction::Settings => {
                h.set_settings(&self.settings);
                self.settings_back = Screen::List { item };
                h.set_screen(Screen::Settings { item: 0 });
                MenuAction::None
            }
            FrontAction::Save(slot) => {
                let line = match self.save_slot(&slot) {
                    Ok(header) => format!(
                        "saved tick={} state_hash={} slot={slot}",
                        header.tick, header.state_hash
                    ),
                    Err(e) => format!("save failed: {e:#}"),
                };
                tracing::info!(target: "Iron3D", "{line}");
                self.notes.push(line);
                self.open_front(Page::Save, true);
                if let Some(h) = &self.hud {
                    h.set_screen(Screen::List { item });
                }
                MenuAction::None
            }
        }
    }

    /// Saves the game into manual slot `slot` (`slot.sav` in the save folder, recorded
    /// in the slot list).
    pub fn save_slot(&mut self, slot: &str) -> anyhow::Result<iron3d_save::SaveHeader> {
        self.refuse_in_match()?;
        let dir = self
            .save_dir
            .clone()
            .context("no save folder (set XDG_DATA_HOME or HOME)")?;
        Ok(self
            .run
            .save_to_slot(&dir, slot, &format!("{slot}.sav"), &self.identity)?)
    }

    /// Whether the session plays its mission as the campaign's.
    pub fn in_campaign(&self) -> bool {
        self.campaign
    }

    /// Whether a loaded save of `mission` plays as the campaign's (PD-CAMPAIGN-LOADED).
    pub fn campaign_has(&self, mission: &str) -> bool {
        self.front.as_ref().is_some_and(|f| f.in_campaign(mission))
    }

    /// A menu key while the briefing, the pause menu or the outcome screen is up: what
    /// the launcher must do next. `Playing` ignores it.
    pub fn menu(&mut self, key: MenuKey) -> MenuAction {
        let Some(h) = self.hud.clone() else {
            return MenuAction::None;
        };
        match (h.screen(), key) {
            (Screen::Briefing, MenuKey::Accept) => {
                self.toggle_pause();
                MenuAction::None
            }
            (Screen::Paused { item }, MenuKey::Up | MenuKey::Down) => {
                h.set_screen(Screen::Paused {
                    item: key.moved(item, MENU.len()),
                });
                MenuAction::None
            }
            // The gamepad's Back (the keyboard's Escape is the game's `game.menu`).
            (Screen::Paused { .. }, MenuKey::Back) => {
                self.toggle_pause();
                MenuAction::None
            }
            (Screen::Paused { item }, MenuKey::Accept) => match MENU[item % MENU.len()].0 {
                MenuItem::Resume => {
                    self.toggle_pause();
                    MenuAction::None
                }
                MenuItem::SaveGame | MenuItem::LoadGame | MenuItem::Restart
                    if self.net.is_some() =>
                {
                    self.notes.push(
                        "not in a multiplayer match: its state is every player's (PD-NET-NO-SAVES)"
                            .to_owned(),
                    );
                    MenuAction::None
                }
                MenuItem::SaveGame => {
                    self.open_front(Page::Save, true);
                    MenuAction::None
                }
                MenuItem::LoadGame => {
                    self.open_front(Page::Load, true);
                    MenuAction::None
                }
                MenuItem::MainMenu => {
                    self.open_front(Page::Main, true);
                    MenuAction::None
                }
                MenuItem::Settings => {
                    h.set_settings(&self.settings);
                    self.settings_back = Screen::Paused { item };
                    h.set_screen(Screen::Settings { item: 0 });
                    MenuAction::None
                }
                MenuItem::Restart => MenuAction::Restart,
                MenuItem::Quit => MenuAction::Quit,
            },
            (
                Screen::Paused { .. },
                MenuKey::Click {
                    x,
                    y,
                    width,
                    height,
                },
            ) => match h.hud.menu_item_at(width, height, x, y) {
                Some(item) => {
                    h.set_screen(Screen::Paused { item });
                    self.menu(MenuKey::Accept)
                }
                None => MenuAction::None,
            },
            (Screen::Settings { item }, key) => self.settings_key(&h, item, key),
            (Screen::List { item }, key) => self.list_key(&h, item, key),
            // The campaign goes on after a win of its mission (`next` is set only when
            // there is a next one).
            (
                Screen::Outcome {
                    complete: true,
                    next: true,
                },
                MenuKey::Accept,
            ) => match self.next_mission.clone().flatten() {
                Some(mission) => MenuAction::Start {
                    mission,
                    campaign: true,
                },
                None => MenuAction::Restart,
            },
            // A match is played once: its outcome screen only leaves.
            (Screen::Outcome { .. }, MenuKey::Accept) if self.net.is_some() => MenuAction::Quit,
            (Screen::Outcome { .. }, MenuKey::Accept) => MenuAction::Restart,
            (Screen::Outcome { .. }, MenuKey::Back) => MenuAction::Quit,
            _ => MenuAction::None,
        }
    }

    /// Keeps `dir` as the player's game directory in the settings (`[game] directory`;
    /// `None`: the embedded demo), saved at once; a path that is not UTF-8 or a failed
    /// save is said in the log and the choice lasts for this window only.
    pub fn remember_game_dir(&mut self, dir: Option<&Path>) {
        let text = match dir {
            None => String::new(),
            Some(d) => match d.to_str().filter(|_| d.is_absolute()) {
                Some(t) => t.to_owned(),
                None => {
                    tracing::warn!(target: "Iron3D", dir = %d.display(), "the game directory is not kept in the settings: not an absolute UTF-8 path");
                    return;
                }
            },
        };
        self.settings.game.directory = text;
        if let Some(path) = &self.settings_file {
            if let Err(e) = self.settings.save(path) {
                tracing::warn!(target: "Iron3D", error = %anyhow::Error::new(e), "settings not saved");
            }
        }
    }

    /// What the gamepad's menu keys asked of the window since the last call (a start, a
    /// load, a restart, quit, a changed setting), in order.
    pub fn take_menu_actions(&mut self) -> Vec<MenuAction> {
        std::mem::take(&mut self.menu_actions)
    }

    /// A key on the settings screen (line `item` highlighted; the last line is Back).
    fn settings_key(
        &mut self,
        h: &iron3d_hud::view::HudView,
        item: usize,
        key: MenuKey,
    ) -> MenuAction {
        use iron3d_config::settings::ITEMS;
        let lines = ITEMS.len() + 1;
        let step = match key {
            MenuKey::Up | MenuKey::Down => {
                h.set_screen(Screen::Settings {
                    item: key.moved(item, lines),
                });
                return MenuAction::None;
            }
            MenuKey::Click {
                x,
                y,
                width,
                height,
            } => {
                let Some(k) = h.hud.settings_item_at(width, height, ITEMS.len(), x, y) else {
                    return MenuAction::None;
                };
                h.set_screen(Screen::Settings { item: k });
                return self.settings_key(h, k, MenuKey::Accept);
            }
            MenuKey::Left => -1,
            MenuKey::Right | MenuKey::Accept => 1,
            MenuKey::Back => 0,
        };
        let Some(&changed) = ITEMS.get(item).filter(|_| step != 0) else {
            // Back (the last line, or Escape): where the settings were opened from.
            h.set_screen(self.settings_back);
            return MenuAction::None;
        };
        let extra: Vec<String> = self.mods.renderers().into_iter().map(|r| r.0).collect();
        changed.adjust_with(&mut self.settings, step, &extra);
        self.input.mouse = (&self.settings.input).into();
        h.set_settings(&self.settings);
        if let Some(path) = &self.settings_file {
            if let Err(e) = self.settings.save(path) {
                tracing::warn!(target: "Iron3D", error = %anyhow::Error::new(e), "settings not saved");
            }
        }
        tracing::info!(target: "Iron3D", setting = changed.label(), value = %changed.value(&self.settings), "setting changed");
        MenuAction::Setting(changed)
    }

    /// Typed text while a list is up: the highlighted line takes it when it is the
    /// Multiplayer page's address (Backspace: `None`). Returns whether it did.
    pub fn menu_text(&mut self, text: Option<&str>) -> bool {
        let (Some(h), Some(f)) = (&self.hud, &mut self.front) else {
            return false;
        };
        let Screen::List { item } = h.screen() else {
            return false;
        };
        let took = match text {
            Some(t) => f.type_text(item, t),
            None => f.erase(item),
        };
        if took {
            h.set_list(f.view().clone());
        }
        took
    }

    /// What the Multiplayer page says under its lines (a join under way, or why one
    /// failed); `None` clears it.
    pub fn set_net_status(&mut self, status: Option<String>) {
        if let (Some(h), Some(f)) = (&self.hud, &mut self.front) {
            f.set_net_status(status);
            h.set_list(f.view().clone());
        }
    }

    /// PD-NET-NO-SAVES: saves and loads are refused while a match runs.
    fn refuse_in_match(&self) -> anyhow::Result<()> {
        if self.net.is_some() {
            bail!("not in a multiplayer match: its state is every player's (PD-NET-NO-SAVES)");
        }
        Ok(())
    }

    /// One frame of the match: the window's (or the bot's) seat records and the chat
    /// line out, the match's ticks in ([`iron3d_session::net_match::NetMatch::frame`]);
    /// what happened goes to the notes, chat to the HUD, the match's state to the HUD's
    /// status panel.
    fn match_frame(&mut self, now_ns: u64) -> anyhow::Result<iron3d_session::run::FrameOutput> {
        let Some(seat) = self.net.as_mut() else {
            return Ok(self.run.frame(&mut self.input, None)?);
        };
        let playing = seat.game.state() == Some(iron3d_abi::NetState::PLAYING);
        // The window's records for the ticks go to the match instead of the kernel.
        let window: Vec<iron3d_abi::InputRecord> = self
            .input
            .take_ready()
            .iter()
            .map(iron3d_session::net::input_record)
            .collect();
        let local = match &mut seat.bot {
            Some(bot) if playing => bot.records(),
            Some(_) => Vec::new(),
            None => window,
        };
        let end = seat.end || seat.end_after.is_some_and(|t| self.run.kernel.tick() >= t);
        let input = iron3d_session::net_match::MatchInput {
            local,
            end,
            say: seat.say.take().map(|line| (None, line)),
        };
        let label = seat.label;
        let done = seat
            .game
            .frame(&mut self.run, now_ns, input, &self.identity)
            .with_context(|| format!("{label}: the match"))?;
        for line in &done.lines {
            tracing::info!(target: "NetWatch", "{line}");
            self.notes.push(format!("{label}: {line}"));
        }
        if let Some(h) = &self.hud {
            let hz = self.run.kernel.config().tick_hz.max(1) as f32;
            let at = self.run.kernel.tick() as f32 / hz;
            for (player, text) in &done.chat {
                h.chat(at, *player, text);
            }
            h.set_status(self.match_status());
        }
        Ok(done.output)
    }

    /// The match's status panel: what the match waits for, whether it is over, and the
    /// chat line being typed (empty outside a match, or while it plays undisturbed).
    pub fn match_status(&self) -> Vec<Vec<u8>> {
        let Some(seat) = &self.net else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let waiting = seat.game.waiting_for();
        match seat.game.state() {
            None | Some(iron3d_abi::NetState::WAITING) => lines.push(if waiting.is_empty() {
                "Connecting to the match...".to_owned()
            } else {
                format!("Waiting for players: {}", join_numbers(waiting))
            }),
            Some(iron3d_abi::NetState::PLAYING) if !waiting.is_empty() => {
                lines.push(format!("Waiting for players: {}", join_numbers(waiting)));
            }
            Some(iron3d_abi::NetState::ENDED) if seat.game.is_over() => {
                lines.push(if seat.game.desynced() {
                    "The match is over (it desynced: see the desync report)".to_owned()
                } else {
                    "The match is over".to_owned()
                });
            }
            _ => {}
        }
        if let Some(t) = &seat.typing {
            lines.push(format!("Say: {t}_"));
        }
        lines
            .into_iter()
            .map(|l| iron3d_hud::text::cp1251(&l))
            .collect()
    }

    /// Whether this session is a peer of a match.
    pub fn in_match(&self) -> bool {
        self.net.is_some()
    }

    /// Whether this session hosts its match (a player who hosts, `iron3d host`).
    pub fn hosting_match(&self) -> bool {
        self.net
            .as_ref()
            .is_some_and(|s| s.game.role() == iron3d_abi::NetRole::HOST)
    }

    /// Whether the match is over (every tick it had has run).
    pub fn match_over(&self) -> bool {
        self.net.as_ref().is_some_and(|s| s.game.is_over())
    }

    /// Host: ends the match for every peer (PD-NET-END) — the window's close on a host.
    pub fn end_match(&mut self) {
        if let Some(seat) = &mut self.net {
            seat.end = true;
        }
    }

    /// The match's last line: `<label>: match over tick=… state_hash=… desync=…`
    /// (`None` outside a match).
    pub fn match_line(&self) -> Option<String> {
        let seat = self.net.as_ref()?;
        Some(format!(
            "{}: match over tick={} state_hash={} desync={}",
            seat.label,
            self.run.kernel.tick(),
            self.run.kernel.state_hash().to_hex(),
            if seat.game.desynced() { "yes" } else { "no" }
        ))
    }

    /// Whether the player is typing a chat line.
    pub fn chat_typing(&self) -> bool {
        self.net.as_ref().is_some_and(|s| s.typing.is_some())
    }

    /// PD-NET-CHAT-KEY: in a match, the chat key (`Y`) opens the chat line; while it is
    /// open the typed text goes to it (at most [`CHAT_CHARS`] characters), Enter says it
    /// to everyone, Escape drops it, Backspace takes the last character back. Returns
    /// whether the key was the chat's.
    pub fn chat_key(&mut self, key: ChatKey<'_>) -> bool {
        let Some(seat) = self.net.as_mut() else {
            return false;
        };
        match (&mut seat.typing, key) {
            (None, ChatKey::Open) => {
                seat.typing = Some(String::new());
                self.input.focus_lost();
            }
            (None, _) => return false,
            (Some(_), ChatKey::Open) => return false,
            (Some(t), ChatKey::Text(text)) => {
                for c in text.chars().filter(|c| !c.is_control()) {
                    if t.chars().count() < CHAT_CHARS {
                        t.push(c);
                    }
                }
            }
            (Some(t), ChatKey::Erase) => {
                t.pop();
            }
            (Some(_), ChatKey::Send) => {
                let line = seat.typing.take().unwrap_or_default();
                if !line.trim().is_empty() {
                    seat.say = Some(line);
                }
            }
            (Some(_), ChatKey::Cancel) => seat.typing = None,
        }
        if let Some(h) = &self.hud {
            h.set_status(self.match_status());
        }
        true
    }

    /// Whether the seat (the input plugin) publishes the player's view: the camera, the
    /// keys and the mouse are the game's then, not the free camera's.
    pub fn seat_active(&self) -> bool {
        self.run.kernel.snapshot().is_some_and(|s| s.view.is_some())
    }

    /// The mission's outcome once a plugin reported it.
    pub fn decided(&self) -> Option<iron3d_plugin_host::ReportedOutcome> {
        self.run.host.mission_outcome()
    }

    /// Draw items of the last built frame.
    pub fn draw_items(&self) -> usize {
        self.last_frame
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map_or(0, |f| f.items.len())
    }

    /// The render slot's instance label.
    pub fn renderer_label(&self) -> String {
        self.run
            .host
            .report()
            .into_iter()
            .find(|r| r.slot == SlotKind::Render)
            .map(|r| r.instance)
            .unwrap_or_default()
    }

    /// Writes the capture served after the last frame to `path` (PNG, or JSON for the
    /// capture renderer).
    pub fn write_capture(&self, path: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
        self.take_capture()
            .and_then(|c| save_capture(&c, path, out))
    }

    /// The capture served after the last frame, or why there is none.
    pub fn take_capture(&self) -> anyhow::Result<Capture> {
        let label = self.renderer_label();
        match self.run.host.take_capture() {
            Some(Ok(c)) => Ok(c),
            Some(Err(e)) => bail!("capture from {label} failed: {e}"),
            None => bail!("the render slot ({label}) drew no frame to capture"),
        }
    }

    /// Shuts the session down in order (kernel and every plugin instance, then the shadow
    /// copies); call before the window goes.
    pub fn shutdown(self) {
        self.run.shutdown();
    }

    /// Frames presented.
    pub fn frames(&self) -> u64 {
        self.run.frames()
    }

    /// Ends the run ([`Run::finish`]) and prints its report, the summary line, the
    /// outcome and `state_hash=` last.
    pub fn finish(
        &mut self,
        elapsed: Duration,
        out: &mut dyn Write,
    ) -> anyhow::Result<PlayOutcome> {
        let end = self.run.finish()?;
        self.run.report(&end, out)?;
        let draw_items = self.draw_items();
        let fps = end.frames as f64 / elapsed.as_secs_f64().max(1e-9);
        let drawing = self.drawing_renderer();
        writeln!(
            out,
            "renderer={} frames={} ticks={} draw_items={draw_items} fps={fps:.1}",
            drawing.map_or("null", |r| r.as_str()),
            end.frames,
            end.ticks
        )?;
        if let Some(d) = &end.decided {
            writeln!(out, "{d}")?;
        }
        writeln!(out, "state_hash={}", end.hash)?;
        if let Some(line) = self.match_line() {
            writeln!(out, "{line}")?;
        }
        Ok(PlayOutcome {
            hash: end.hash,
            frames: end.frames,
            ticks: end.ticks,
            renderer: self.renderer_label(),
            draw_items,
            fps,
            exit: match &self.net {
                Some(seat) if seat.game.desynced() => crate::net_cli::EXIT_DESYNC,
                _ => 0,
            },
        })
    }
}

/// Loads the mission's assets, prints its counts, and installs what presents it: the
/// frame builder with the shared view (camera, target, lighting), the HUD's overlay
/// and the journal the HUD reads (PD-HUD-TRIGGERED).
fn install_presentation(
    opts: &PlayOptions,
    run: &mut iron3d_session::Session,
    out: &mut dyn Write,
) -> anyhow::Result<(SharedView, LastFrame, Option<iron3d_hud::view::HudView>)> {
    let game = run
        .game
        .as_ref()
        .context("a play session runs a game mission")?;
    let loaded = &game.loaded;
    let assets = SceneAssets::load(&game.data(), loaded)?;
    for m in &assets.missing_textures {
        tracing::warn!(texture = %m, "texture missing: drawn untextured");
    }
    writeln!(
        out,
        "mission={} objects={} models={} meshes={} textures={} terrain={}",
        opts.mission,
        loaded.objects.len(),
        assets.models.len(),
        assets.resources.meshes.len(),
        assets.resources.textures.len(),
        assets.terrain.is_some()
    )?;
    let camera = opts.camera.unwrap_or_else(|| {
        overview_camera(&run.kernel, |o| !assets.models_of(&o.prototype).is_empty())
    });
    let view: SharedView = Arc::new(Mutex::new(FrameParams {
        camera,
        target: RenderTarget {
            width: opts.width,
            height: opts.height,
            window: abi_stable::std_types::ROption::RNone,
            clear: [96, 128, 160, 255],
        },
        lighting: DEFAULT_LIGHTING,
    }));
    let hud = if opts.hud {
        let screen = if opts.briefing {
            iron3d_hud::Screen::Briefing
        } else {
            iron3d_hud::Screen::Playing
        };
        Some(
            iron3d_hud::view::HudView::load(&game.vfs, &opts.mission, &opts.params, screen)?
                .with_names(game.loaded.graph.names.clone()),
        )
    } else {
        None
    };
    // `--camera` pins the camera; otherwise the seat's view drives it.
    let mut preparer = MissionFramePreparer::new(FrameBuilder::new(assets), view.clone())
        .with_player_view(opts.camera.is_none());
    if let Some(h) = &hud {
        preparer = preparer.with_overlay(Box::new(h.overlay_source()));
        h.set_warnings(
            plugins::fallback_warnings(&run.host)
                .iter()
                .map(|l| iron3d_hud::text::cp1251(l))
                .collect(),
        );
    }
    let last_frame = preparer.last_handle();
    run.kernel.set_frame_preparer(Some(Box::new(preparer)));
    run.kernel.set_journal(true);
    Ok((view, last_frame, hud))
}

/// The run's options: the trace, the recording (its header names the mission by the
/// data its load read, `recorded_data`) and the audio output.
fn run_options(
    opts: &PlayOptions,
    run: &iron3d_session::Session,
    recorded_data: Option<std::collections::BTreeMap<String, String>>,
    start: Option<iron3d_replay::ReplayStart>,
) -> RunOptions {
    let plugin_set = iron3d_session::replay::plugin_set(&run.host);
    let record = match (&opts.record, recorded_data) {
        (Some(path), Some(data)) => Some(RecordTarget {
            path: path.clone(),
            header: Recorded {
                plugin_set: &plugin_set,
                mods: &opts.mods.fingerprint,
                seed: opts.seed,
                tick_hz: run.kernel.config().tick_hz,
                checkpoint_every: opts.checkpoint_every,
            }
            .mission_header(
                iron3d_replay::ReplayMission {
                    name: opts.mission.clone(),
                    data,
                },
                &opts.params,
            )
            .with_start(start),
        }),
        _ => None,
    };
    RunOptions {
        trace: opts.trace.as_ref().map(|path| TraceTarget {
            path: path.clone(),
            every: opts.trace_every,
        }),
        record,
        audio_trace: opts.audio_trace.clone(),
        announce_audio: opts.announce_audio,
        swaps: opts
            .swaps
            .iter()
            .map(
                |(after_tick, slot, library)| iron3d_session::run::ScheduledSwap {
                    after_tick: *after_tick,
                    slot: *slot,
                    library: library.clone(),
                },
            )
            .collect(),
        ..RunOptions::default()
    }
}

/// Runs `iron3d play` offscreen: loads the mission, installs the renderer, presents
/// `frames` frames on a simulated clock (`1/fps` apart), writes the screenshot, prints a
/// summary and `state_hash=<hex>` last.
pub fn run_offscreen(opts: &PlayOptions, out: &mut dyn Write) -> anyhow::Result<PlayOutcome> {
    let frames = opts.frames.context("--offscreen needs --frames N")?;
    let mut session = PlaySession::start(opts, out)?;
    let mut switches = opts.switches.clone();
    switches.sort_by_key(|s| s.0);
    let frame_ns = 1_000_000_000 / u64::from(opts.fps);
    #[allow(clippy::disallowed_methods, reason = "frame-time measurement only")]
    let started = std::time::Instant::now();
    for f in 1..=frames {
        // A decided mission ends the run: one more frame presents (and captures) it. A
        // match ends when it is over, and its frames are paced in real time.
        let closing = f == frames
            || if session.in_match() {
                session.match_over()
            } else {
                session.decided().is_some()
            };
        if closing && opts.screenshot.is_some() {
            session.run.host.request_capture(session.capture_kind());
        }
        let now = if session.in_match() {
            let due = Duration::from_nanos(f * frame_ns);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
            u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
        } else {
            f * frame_ns
        };
        session.frame(now)?;
        session.write_notes(out)?;
        while switches.first().is_some_and(|s| s.0 <= f) {
            let (_, r) = switches.remove(0);
            session.switch(r, out)?;
        }
        if closing {
            break;
        }
    }
    let elapsed = started.elapsed();
    if let Some(path) = &opts.screenshot {
        session.write_capture(path, out)?;
    }
    let outcome = session.finish(elapsed, out)?;
    session.shutdown();
    Ok(outcome)
}
