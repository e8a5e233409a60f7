//! The `iron3d play` window (winit 0.30): the mission on the real clock, a free camera on
//! keyboard and mouse, pause, live renderer switching, and FPS/tick statistics in the
//! title. Pixel renderers that draw offscreen (software) are presented with softbuffer;
//! the Vulkan renderer presents to the window itself through the native handles in the
//! frame's target. With no display the caller falls back to an offscreen run.
//!
//! **With the player's seat** (the registry's input plugin publishes the player's view):
//! every key, button, wheel step and pointer move goes to the input plugin, through the
//! bindings (`iron3d bindings list`), into the game — the camera, selection, orders and
//! possession are the game's. The shell keeps F1 software, F2 Vulkan, F4 capture and Tab
//! (cycle renderers), F10 quits; `game.pause` / `game.menu` (Pause, F3, Escape) pause
//! and resume; `game.quick_save` / `game.quick_load` (F5, F9) save into and load from the
//! quick slot (`PlaySession::quick_save`, `quick_load`). A lost focus releases every
//! held key.
//!
//! **Without one** (a null input plugin) the free camera: W/S forward/back, A/D strafe,
//! R/F up/down, arrows turn (left/right wrap, up/down clamp), mouse drag with the left
//! button turns, C centres the view, P or Space pauses, F1 software, F2 Vulkan, F3
//! capture, Tab cycles renderers, Escape quits.

use crate::play::{ChatKey, MenuAction, MenuKey, PlayOptions, PlayOutcome, PlaySession, Renderer};
use abi_stable::std_types::ROption;
use iron3d_abi::NativeWindow;
use iron3d_hud::Screen;
use iron3d_plugin_host::Capture;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle};
use std::collections::BTreeSet;
use std::io::Write;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

/// Camera speed in world units per second.
pub const MOVE_SPEED: f32 = 40.0;
/// Turn speed of the arrow keys in radians per second.
pub const TURN_SPEED: f32 = 1.6;
/// Mouse turn in radians per pixel.
pub const MOUSE_TURN: f32 = 0.005;

#[allow(
    clippy::disallowed_methods,
    reason = "the window runs on the real clock"
)]
fn now() -> Instant {
    Instant::now()
}

/// The native handles of `window` for a Vulkan backend, when the platform is supported.
pub fn native_window(window: &Window) -> Option<NativeWindow> {
    let w = window.window_handle().ok()?.as_raw();
    let d = window.display_handle().ok()?.as_raw();
    match (w, d) {
        (RawWindowHandle::Xlib(w), RawDisplayHandle::Xlib(d)) => Some(NativeWindow {
            kind: 0,
            display: d.display.map_or(0, |p| p.as_ptr() as u64),
            window: u64::from(w.window as u32),
            screen: d.screen,
        }),
        (RawWindowHandle::Xcb(w), RawDisplayHandle::Xcb(d)) => Some(NativeWindow {
            kind: 1,
            display: d.connection.map_or(0, |p| p.as_ptr() as u64),
            window: u64::from(w.window.get()),
            screen: d.screen,
        }),
        _ => None,
    }
}

struct Presenter {
    window: Arc<Window>,
    surface: Option<softbuffer::Surface<Arc<Window>, Arc<Window>>>,
}

struct App<'o> {
    session: PlaySession,
    opts: PlayOptions,
    out: &'o mut dyn Write,
    presenter: Option<Presenter>,
    held: BTreeSet<KeyCode>,
    dragging: bool,
    last_cursor: Option<(f64, f64)>,
    started: Instant,
    last_tick: Instant,
    game_ns: u64,
    fps_window: (Instant, u64),
    fps: f64,
    error: Option<anyhow::Error>,
    done: bool,
    /// A join from the menu: the address, the connection key, and the lobby reserving
    /// the seat on its own thread.
    joining: Option<Joining>,
    /// A host leaving its match: the match ends for every peer first, and the window
    /// closes once it is over or at this time.
    leaving: Option<Instant>,
    /// The options from before the first match the menu started: what a single-player
    /// start, restart, load or game directory after a match starts from (a match's own
    /// options carry its seats and its net plan).
    solo: Option<PlayOptions>,
    /// `--switch-renderer` requests still to apply, in frame order.
    switches: Vec<(u64, Renderer)>,
    /// What Tab cycles through ([`crate::play::switchable_renderers`]).
    renderers: Vec<Renderer>,
}

impl App<'_> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error.get_or_insert(e);
        event_loop.exit();
    }

    fn switch(&mut self, r: Renderer) {
        match self.session.switch(r, self.out) {
            Ok(true) => tracing::info!(renderer = r.as_str(), "renderer switched"),
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "renderer switch failed"),
        }
    }

    /// An interactive switch: prepared on a worker thread, the window keeps drawing.
    fn switch_async(&mut self, r: Renderer) {
        if let Err(e) = self.session.switch_async(r) {
            tracing::warn!(error = %e, "renderer switch failed");
        }
    }

    /// Carries out a menu action: a restart replaces the session with a fresh one of
    /// the same mission, a start with one of the chosen mission, a load with one of the
    /// save's mission from the save; quit closes the window.
    fn act(&mut self, event_loop: &ActiveEventLoop, action: MenuAction) {
        match action {
            MenuAction::None => {}
            MenuAction::Setting(item) => self.apply_setting(item),
            MenuAction::Quit => self.quit(event_loop),
            MenuAction::Host { mission, players } => self.host(event_loop, mission, players),
            MenuAction::Join { address } => self.join(address),
            MenuAction::Restart => {
                let mut opts = self.base();
                // The mission from its beginning, even after a load.
                opts.load = None;
                opts.briefing = true;
                opts.menu = false;
                opts.campaign = self.session.in_campaign();
                self.replace(event_loop, opts, "mission restarted");
            }
            MenuAction::Start { mission, campaign } => {
                let mut opts = self.base();
                opts.mission = mission;
                opts.load = None;
                opts.briefing = true;
                opts.menu = false;
                opts.campaign = campaign;
                self.replace(event_loop, opts, "mission started");
            }
            MenuAction::UseGameDir(chosen) => {
                let found = match &chosen {
                    Some(dir) => crate::front_menu::first_mission(dir)
                        .map(|m| {
                            (
                                std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()),
                                m,
                            )
                        })
                        .ok_or_else(|| anyhow::anyhow!("{}: no mission", dir.display())),
                    None => crate::demo_cli::cached(
                        &crate::demo_cache_root(),
                        self.opts.seed,
                        iron3d_demo::Profile::Demo,
                        self.out,
                    ),
                };
                let (dir, first) = match found {
                    Ok(f) => f,
                    Err(e) => {
                        tracing::warn!(target: "Iron3D", error = %format!("{e:#}"), "game directory not chosen");
                        return;
                    }
                };
                // The menu opens over its first mission; once that session runs, the
                // choice is kept for the next start.
                let mut opts = self.base();
                opts.settings = self.session.settings.clone();
                opts.game_dir = dir.clone();
                opts.mission = first;
                opts.load = None;
                opts.briefing = false;
                opts.menu = true;
                opts.campaign = false;
                self.replace(event_loop, opts, "game directory chosen");
                if self.opts.game_dir == dir {
                    self.session
                        .remember_game_dir(chosen.is_some().then_some(dir.as_path()));
                }
            }
            MenuAction::Load(path) => {
                let header = match crate::saves::read_for_load(&path) {
                    Ok(save) => save.header,
                    Err(e) => {
                        // A refused save changes nothing: the menu stays up.
                        tracing::warn!(target: "Iron3D", error = %format!("{e:#}"), "load refused");
                        return;
                    }
                };
                let mut opts = self.base();
                opts.campaign = self.session.campaign_has(&header.mission);
                opts.mission = header.mission;
                opts.seed = header.seed;
                opts.load = Some(path);
                opts.briefing = false;
                opts.menu = false;
                self.replace(event_loop, opts, "game loaded");
            }
        }
    }

    /// Replaces the session with one started from `opts` (which the window keeps for
    /// the next restart). A session that fails to start leaves the old one running when
    /// it is a load (the save is refused, the menu stays up) or another game directory;
    /// otherwise the window says why and closes.
    fn replace(&mut self, event_loop: &ActiveEventLoop, mut opts: PlayOptions, what: &str) {
        // The mods are chosen again: the menu's Mods page may have changed the list.
        opts.mods = std::sync::Arc::new(crate::mods::for_run(&opts.mod_args, false, &[]));
        match PlaySession::start(&opts, self.out) {
            Ok(fresh) => {
                let old = std::mem::replace(&mut self.session, fresh);
                // A match left for another session still says how it ended.
                if let Some(line) = old.match_line() {
                    let _ = writeln!(self.out, "{line}");
                }
                old.shutdown();
                if let Some(p) = &self.presenter {
                    let size = p.window.inner_size();
                    self.session.input.viewport(size.width, size.height);
                }
                self.held.clear();
                self.fps_window = (now(), 0);
                tracing::info!(target: "Iron3D", mission = %opts.mission, campaign = opts.campaign, "{what}");
                // Out of the match: the solo options are the current ones again.
                if opts.net.is_none() {
                    self.solo = None;
                }
                self.opts = opts;
            }
            // A match that does not start (the port is taken) leaves the menu up.
            Err(e) if opts.net.is_some() => {
                tracing::warn!(target: "Iron3D", error = %format!("{e:#}"), "match refused");
                self.session
                    .set_net_status(Some(format!("the match did not start: {e:#}")));
            }
            Err(e) if opts.load.is_some() => {
                tracing::warn!(target: "Iron3D", error = %format!("{e:#}"), "load refused");
            }
            // Another game directory that does not start leaves this one playing.
            Err(e) if opts.game_dir != self.opts.game_dir => {
                tracing::warn!(target: "Iron3D", error = %format!("{e:#}"), dir = %opts.game_dir.display(), "game directory refused");
            }
            Err(e) => self.fail(event_loop, e.context(format!("{what}: {}", opts.mission))),
        }
    }

    /// Applies a changed setting that belongs to the window: its size, fullscreen, the
    /// renderer (switched live). Volumes wait for an audio plugin; the mouse settings
    /// are the session's.
    fn apply_setting(&mut self, item: iron3d_config::settings::Item) {
        use iron3d_config::settings::Item;
        let v = self.session.settings.video.clone();
        match item {
            Item::Resolution => {
                if let Some(p) = &self.presenter {
                    let _ = p
                        .window
                        .request_inner_size(PhysicalSize::new(v.width, v.height));
                }
            }
            Item::Fullscreen => {
                if let Some(p) = &self.presenter {
                    p.window.set_fullscreen(
                        v.fullscreen
                            .then_some(winit::window::Fullscreen::Borderless(None)),
                    );
                }
            }
            Item::Renderer => match crate::play::parse_renderer(&v.renderer) {
                Ok(r) => self.switch_async(r),
                Err(e) => tracing::warn!(error = %e, "renderer setting not applied"),
            },
            Item::Volume(_) | Item::Sensitivity | Item::InvertY => {}
        }
    }

    /// A key while a HUD screen other than the game is up: the menus take Enter, the
    /// arrows and (on the outcome screen) Escape; `true` when the key was theirs.
    fn menu_key(&mut self, event_loop: &ActiveEventLoop, code: KeyCode) -> bool {
        let screen = self.session.screen();
        if screen == Screen::Playing {
            return false;
        }
        let key = match code {
            KeyCode::Enter | KeyCode::NumpadEnter => MenuKey::Accept,
            KeyCode::ArrowUp => MenuKey::Up,
            KeyCode::ArrowDown => MenuKey::Down,
            KeyCode::ArrowLeft
                if matches!(screen, Screen::Settings { .. } | Screen::List { .. }) =>
            {
                MenuKey::Left
            }
            KeyCode::ArrowRight
                if matches!(screen, Screen::Settings { .. } | Screen::List { .. }) =>
            {
                MenuKey::Right
            }
            KeyCode::Escape
                if matches!(
                    screen,
                    Screen::Outcome { .. } | Screen::Settings { .. } | Screen::List { .. }
                ) =>
            {
                MenuKey::Back
            }
            _ => return false,
        };
        let action = self.session.menu(key);
        self.act(event_loop, action);
        true
    }

    fn on_key(&mut self, event_loop: &ActiveEventLoop, code: KeyCode, pressed: bool) {
        if pressed && !self.held.contains(&code) && self.menu_key(event_loop, code) {
            return;
        }
        // F10 quits whatever is up (a menu over a mission that has not ticked yet has
        // no seat).
        if pressed && code == KeyCode::F10 {
            self.quit(event_loop);
            return;
        }
        self.session.input.key(code, pressed);
        if self.session.seat_active() {
            if pressed && self.held.insert(code) {
                match code {
                    KeyCode::F1 => self.switch_async(Renderer::Soft),
                    KeyCode::F2 => self.switch_async(Renderer::Vulkan),
                    KeyCode::F4 => self.switch_async(Renderer::Capture),
                    KeyCode::Tab => self.cycle_renderer(),
                    _ => {}
                }
            } else if !pressed {
                self.held.remove(&code);
            }
            return;
        }
        if pressed {
            let first = self.held.insert(code);
            if !first {
                return;
            }
            match code {
                KeyCode::Escape => self.quit(event_loop),
                KeyCode::KeyP | KeyCode::Space => self.session.toggle_pause(),
                KeyCode::KeyC => self.with_camera(|c| c.centre()),
                KeyCode::F1 => self.switch_async(Renderer::Soft),
                KeyCode::F2 => self.switch_async(Renderer::Vulkan),
                KeyCode::F3 => self.switch_async(Renderer::Capture),
                KeyCode::Tab => self.cycle_renderer(),
                _ => {}
            }
        } else {
            self.held.remove(&code);
        }
    }

    /// Hosts a match of `mission` for `players` in all from the main menu: a new session
    /// in the match, on [`iron3d_menu::NET_PORT`] of every interface.
    fn host(&mut self, event_loop: &ActiveEventLoop, mission: String, players: u8) {
        let plan = crate::net_cli::host_plan(&crate::net_cli::HostMatch {
            serve: false,
            bind: "0.0.0.0".to_owned(),
            port: iron3d_menu::NET_PORT,
            players,
            clans: Vec::new(),
            seed: self.opts.seed,
            mission: mission.clone(),
            name: "player".to_owned(),
            desync_dir: PathBuf::from("."),
        });
        match plan {
            Ok((plan, params)) => {
                let mut opts = self.base();
                opts.mission = mission;
                opts.params = params.into_iter().collect();
                self.start_match(event_loop, opts, plan, "hosting a match");
            }
            Err(e) => self.session.set_net_status(Some(format!("{e:#}"))),
        }
    }

    /// Joins the match at `address` from the main menu: the lobby reserves a seat on its
    /// own thread (the window goes on); [`App::joined`] starts the match.
    fn join(&mut self, address: String) {
        if self.joining.is_some() {
            return;
        }
        let address = crate::net_cli::with_port(&address);
        let key = crate::net_cli::fresh_key();
        let lobby = crate::net_cli::Lobby {
            registry: self.opts.registry.clone(),
            plugin_dirs: self.opts.plugin_dirs.clone(),
            name: "player".to_owned(),
        };
        let at = address.clone();
        let job = std::thread::spawn(move || {
            crate::net_cli::reserve_seat(&lobby, &at, key, &mut std::io::sink())
        });
        self.session
            .set_net_status(Some(format!("asking {address} for a seat")));
        self.joining = Some(Joining { address, key, job });
    }

    /// A join from the menu whose lobby finished: the match starts, or the page says why
    /// not.
    fn joined(&mut self, event_loop: &ActiveEventLoop) {
        if !self.joining.as_ref().is_some_and(|j| j.job.is_finished()) {
            return;
        }
        let Some(j) = self.joining.take() else {
            return;
        };
        let reservation = match j.job.join() {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                return self
                    .session
                    .set_net_status(Some(format!("join failed: {e:#}")));
            }
            Err(_) => {
                return self
                    .session
                    .set_net_status(Some("join failed: the lobby's thread panicked".into()));
            }
        };
        let (plan, params) = crate::net_cli::join_plan(
            &j.address,
            j.key,
            &reservation,
            "player",
            std::path::Path::new("."),
        );
        let mut opts = self.base();
        opts.mission = reservation.mission.to_string();
        opts.seed = reservation.seed;
        opts.params = params.into_iter().collect();
        self.start_match(event_loop, opts, plan, "joined a match");
    }

    /// The options a new session starts from: those from before the first match, when
    /// the window has played one since, else the current ones.
    fn base(&self) -> PlayOptions {
        self.solo.clone().unwrap_or_else(|| self.opts.clone())
    }

    /// A new session in a match: no briefing, menu, save, recording or campaign.
    fn start_match(
        &mut self,
        event_loop: &ActiveEventLoop,
        mut opts: PlayOptions,
        plan: crate::net_cli::NetPlan,
        what: &str,
    ) {
        opts.net = Some(plan);
        opts.briefing = false;
        opts.menu = false;
        opts.load = None;
        opts.record = None;
        opts.campaign = false;
        if self.opts.net.is_none() {
            self.solo = Some(self.opts.clone());
        }
        self.replace(event_loop, opts, what);
    }

    /// The player leaves (close, F10, Quit). A host of a match that is not over ends it
    /// for every peer first (PD-NET-END) and closes once it is over, or after
    /// [`HOST_LEAVE_WAIT`].
    fn quit(&mut self, event_loop: &ActiveEventLoop) {
        if self.leaving.is_none() && self.session.hosting_match() && !self.session.match_over() {
            self.session.end_match();
            self.leaving = Some(now() + HOST_LEAVE_WAIT);
            return;
        }
        self.done = true;
        event_loop.exit();
    }

    /// Text typed while a list is up goes to the highlighted line when it takes text
    /// (the Multiplayer page's address); `true` when it did.
    fn menu_text(&mut self, event: &winit::event::KeyEvent) -> bool {
        if event.state != ElementState::Pressed
            || !matches!(self.session.screen(), Screen::List { .. })
        {
            return false;
        }
        match (event.physical_key, &event.text) {
            (PhysicalKey::Code(KeyCode::Backspace), _) => self.session.menu_text(None),
            (PhysicalKey::Code(KeyCode::Enter | KeyCode::NumpadEnter | KeyCode::Escape), _) => {
                false
            }
            (_, Some(t)) => self.session.menu_text(Some(t.as_str())),
            _ => false,
        }
    }

    /// PD-NET-CHAT-KEY: in a match, while the game is up, `Y` opens the chat line and
    /// the keys go to it until Enter or Escape; `true` when the key was the chat's.
    fn chat_key(&mut self, event: &winit::event::KeyEvent) -> bool {
        if !self.session.in_match() || self.session.screen() != Screen::Playing {
            return false;
        }
        let PhysicalKey::Code(code) = event.physical_key else {
            return false;
        };
        let typing = self.session.chat_typing();
        if event.state != ElementState::Pressed {
            // Releases while the line is open are its own.
            return typing;
        }
        let key = match code {
            KeyCode::KeyY if !typing => ChatKey::Open,
            KeyCode::Enter | KeyCode::NumpadEnter => ChatKey::Send,
            KeyCode::Escape => ChatKey::Cancel,
            KeyCode::Backspace => ChatKey::Erase,
            _ => match &event.text {
                Some(t) => return self.session.chat_key(ChatKey::Text(t.as_str())) || typing,
                None => return typing,
            },
        };
        self.session.chat_key(key)
    }

    /// Tab: the next of every switchable renderer, the enabled mods' included.
    fn cycle_renderer(&mut self) {
        if let Some(next) = crate::play::next_renderer(&self.renderers, self.session.renderer) {
            self.switch_async(next);
        }
    }

    fn with_camera(&self, f: impl FnOnce(&mut iron3d_render_frame::CameraState)) {
        let mut v = self
            .session
            .view
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut v.camera);
    }

    /// Applies held keys for `dt` seconds.
    fn move_camera(&self, dt: f32) {
        let key = |k| self.held.contains(&k);
        let axis = |plus, minus| f32::from(u8::from(key(plus))) - f32::from(u8::from(key(minus)));
        let forward = axis(KeyCode::KeyW, KeyCode::KeyS);
        let right = axis(KeyCode::KeyD, KeyCode::KeyA);
        let up = axis(KeyCode::KeyR, KeyCode::KeyF);
        let yaw = axis(KeyCode::ArrowLeft, KeyCode::ArrowRight);
        let pitch = axis(KeyCode::ArrowUp, KeyCode::ArrowDown);
        self.with_camera(|c| {
            c.translate(
                forward * MOVE_SPEED * dt,
                right * MOVE_SPEED * dt,
                up * MOVE_SPEED * dt,
            );
            c.turn(yaw * TURN_SPEED * dt, pitch * TURN_SPEED * dt);
            c.advance(dt);
        });
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(p) = &self.presenter else {
            return;
        };
        let window = p.window.clone();
        let t = now();
        let dt = t.duration_since(self.last_tick).as_secs_f32().min(0.25);
        self.last_tick = t;
        if !self.session.seat_active() {
            self.move_camera(dt);
        }
        let size = window.inner_size();
        let (w, h) = (size.width.max(1), size.height.max(1));
        let vulkan = self.session.renderer == Renderer::Vulkan;
        {
            let mut v = self
                .session
                .view
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            v.target.width = w;
            v.target.height = h;
            v.target.window = match (vulkan, native_window(&window)) {
                (true, Some(n)) => ROption::RSome(n),
                _ => ROption::RNone,
            };
        }
        // A match's frames follow the wall clock: it paces the transport and the turns.
        self.game_ns = if self.session.in_match() {
            u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX)
        } else {
            self.game_ns + (dt as f64 * 1e9) as u64
        };
        // The last frame: the frame budget is spent, or the mission was decided (one
        // more frame presents it, then the window closes and the outcome is printed).
        // With a HUD and no frame budget the outcome screen stays up for the player.
        let last = self
            .opts
            .frames
            .is_some_and(|n| self.session.frames() + 1 >= n)
            || (if self.session.in_match() {
                self.session.match_over()
            } else {
                self.session.decided().is_some()
            } && (self.session.hud.is_none() || self.opts.frames.is_some()));
        // Pixel renderers drawing offscreen are read back every frame and presented here.
        let present_pixels = !vulkan && self.session.renderer != Renderer::Capture;
        if present_pixels || (last && self.opts.screenshot.is_some()) {
            self.session
                .run
                .host
                .request_capture(self.session.capture_kind());
        }
        if let Err(e) = self.session.frame(self.game_ns) {
            return self.fail(event_loop, e);
        }
        if let Err(e) = self.session.write_notes(self.out) {
            return self.fail(event_loop, e.into());
        }
        self.joined(event_loop);
        if self
            .leaving
            .is_some_and(|at| self.session.match_over() || now() >= at)
        {
            self.done = true;
            event_loop.exit();
            return;
        }
        match self.session.poll_switch(self.out) {
            Ok(Some(true)) => {
                tracing::info!(
                    renderer = self.session.renderer.as_str(),
                    "renderer switched"
                )
            }
            Ok(_) => {}
            Err(e) => return self.fail(event_loop, e),
        }
        while self
            .switches
            .first()
            .is_some_and(|s| s.0 <= self.session.frames())
        {
            let (_, r) = self.switches.remove(0);
            self.switch(r);
        }
        if last {
            if let Some(path) = self.opts.screenshot.clone() {
                // Keep the capture for the file; present it too.
                let saved = self
                    .session
                    .take_capture()
                    .and_then(|c| crate::play::save_capture(&c, &path, self.out).map(|()| c));
                match saved {
                    Ok(Capture::Image(img)) => self.present(&img),
                    Ok(Capture::Commands(_)) => {}
                    Err(e) => return self.fail(event_loop, e),
                }
            }
            self.done = true;
            event_loop.exit();
        } else if present_pixels {
            if let Some(Ok(Capture::Image(img))) = self.session.run.host.take_capture() {
                self.present(&img);
            }
        }
        // Statistics in the title, twice a second.
        let (since, frames) = self.fps_window;
        let span = t.duration_since(since);
        if span >= Duration::from_millis(500) {
            // A session replaced since (restart, start, load) counts from 0 again.
            self.fps = self.session.frames().saturating_sub(frames) as f64 / span.as_secs_f64();
            self.fps_window = (t, self.session.frames());
            window.set_title(&format!(
                "Iron3D-rs — {} — {} — {:.1} fps — tick {}{} — {} items",
                self.opts.mission,
                self.session.renderer.as_str(),
                self.fps,
                self.session.run.kernel.tick(),
                self.seat_status(),
                self.session.draw_items()
            ));
        }
        // The gamepad's menu keys (PD-INPUT-MENU-MODE), after the frame is presented:
        // what they asked of the window. A start, a load, a restart or quit ends this
        // session, so what follows it was asked of the old one.
        for action in self.session.take_menu_actions() {
            let ends = !matches!(action, MenuAction::Setting(_));
            self.act(event_loop, action);
            if ends {
                break;
            }
        }
    }

    /// The title's game status: the seat's view mode and selection, and the pause.
    fn seat_status(&self) -> String {
        let mut s = String::new();
        if let Some(v) = self
            .session
            .run
            .kernel
            .snapshot()
            .and_then(|s| s.view.clone())
        {
            let mode = match iron3d_abi::ViewMode(v.mode) {
                iron3d_abi::ViewMode::OVERVIEW => "overview",
                iron3d_abi::ViewMode::FOLLOW => "follow",
                iron3d_abi::ViewMode::FREE => "free",
                iron3d_abi::ViewMode::POSSESSED => "possessed",
                _ => "view",
            };
            s.push_str(&format!(" — {mode}, {} selected", v.selected.len()));
        }
        if self.session.paused {
            s.push_str(" (paused)");
        }
        s
    }

    fn present(&mut self, img: &iron3d_abi::ImageRgba8) {
        let Some(p) = self.presenter.as_mut() else {
            return;
        };
        let (Some(w), Some(h)) = (NonZeroU32::new(img.width), NonZeroU32::new(img.height)) else {
            return;
        };
        if p.surface.is_none() {
            let surface = softbuffer::Context::new(p.window.clone())
                .and_then(|ctx| softbuffer::Surface::new(&ctx, p.window.clone()));
            match surface {
                Ok(s) => p.surface = Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "no software presentation surface");
                    return;
                }
            }
        }
        let Some(surface) = p.surface.as_mut() else {
            return;
        };
        if let Err(e) = surface.resize(w, h) {
            tracing::warn!(error = %e, "presentation surface resize failed");
            return;
        }
        match surface.buffer_mut() {
            Ok(mut buf) => {
                for (dst, px) in buf.iter_mut().zip(img.pixels.chunks_exact(4)) {
                    *dst = (u32::from(px[0]) << 16) | (u32::from(px[1]) << 8) | u32::from(px[2]);
                }
                if let Err(e) = buf.present() {
                    tracing::warn!(error = %e, "present failed");
                }
            }
            Err(e) => tracing::warn!(error = %e, "presentation buffer unavailable"),
        }
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.presenter.is_some() {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title(format!("Iron3D-rs — {}", self.opts.mission))
            .with_inner_size(PhysicalSize::new(self.opts.width, self.opts.height))
            .with_fullscreen(
                self.opts
                    .settings
                    .video
                    .fullscreen
                    .then_some(winit::window::Fullscreen::Borderless(None)),
            );
        match event_loop.create_window(attrs) {
            Ok(w) => {
                let window = Arc::new(w);
                let size = window.inner_size();
                self.session.input.viewport(size.width, size.height);
                window.request_redraw();
                self.presenter = Some(Presenter {
                    window,
                    surface: None,
                });
            }
            Err(e) => self.fail(event_loop, anyhow::anyhow!("cannot open a window: {e}")),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.quit(event_loop),
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::KeyboardInput { event, .. } => {
                if self.chat_key(&event) || self.menu_text(&event) {
                    return;
                }
                if let PhysicalKey::Code(code) = event.physical_key {
                    self.on_key(event_loop, code, event.state == ElementState::Pressed);
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let down = state == ElementState::Pressed;
                if let (true, MouseButton::Left, Screen::Paused { .. }, Some((x, y)), Some(p)) = (
                    down,
                    button,
                    self.session.screen(),
                    self.last_cursor,
                    &self.presenter,
                ) {
                    let size = p.window.inner_size();
                    let action = self.session.menu(MenuKey::Click {
                        x: x as f32,
                        y: y as f32,
                        width: size.width,
                        height: size.height,
                    });
                    return self.act(event_loop, action);
                }
                self.session.input.mouse(button, down);
                if button == MouseButton::Left {
                    self.dragging = down;
                }
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y.round() as i32,
                    MouseScrollDelta::PixelDelta(p) => (p.y / 40.0).round() as i32,
                };
                if steps != 0 {
                    self.session.input.wheel(steps);
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                let delta = self
                    .last_cursor
                    .map(|(x, y)| ((position.x - x) as f32, (position.y - y) as f32));
                if let Some(p) = &self.presenter {
                    let size = p.window.inner_size();
                    self.session.input.pointer(
                        position.x as f32,
                        position.y as f32,
                        size.width,
                        size.height,
                        delta,
                    );
                }
                if let (Some((dx, dy)), true) = (delta, self.dragging) {
                    if !self.session.seat_active() {
                        self.with_camera(|c| c.turn(-dx * MOUSE_TURN, -dy * MOUSE_TURN));
                    }
                }
                self.last_cursor = Some((position.x, position.y));
            }
            WindowEvent::Resized(size) => self.session.input.viewport(size.width, size.height),
            WindowEvent::Focused(false) => self.session.input.focus_lost(),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(p) = &self.presenter {
            p.window.request_redraw();
        }
    }
}

/// A join from the main menu under way.
struct Joining {
    /// `HOST:PORT`.
    address: String,
    /// The connection key the lobby and the match share.
    key: u64,
    /// The lobby, reserving the seat.
    job: std::thread::JoinHandle<anyhow::Result<iron3d_abi::NetReservation>>,
}

/// How long a host leaving its match waits for the match to end on every peer.
pub const HOST_LEAVE_WAIT: Duration = Duration::from_secs(3);

/// Why the window could not run.
pub enum WindowOutcome {
    /// The window ran and closed.
    Ran(anyhow::Result<PlayOutcome>),
    /// No display (or no event loop): the caller should run offscreen.
    NoDisplay(String),
}

/// Runs the mission in a window until it closes (or `opts.frames` frames were presented).
pub fn run(opts: &PlayOptions, out: &mut dyn Write) -> WindowOutcome {
    use winit::platform::x11::EventLoopBuilderExtX11;
    let event_loop = match EventLoop::builder().with_any_thread(true).build() {
        Ok(l) => l,
        Err(e) => return WindowOutcome::NoDisplay(e.to_string()),
    };
    event_loop.set_control_flow(ControlFlow::Poll);
    let session = match PlaySession::start(opts, out) {
        Ok(s) => s,
        Err(e) => return WindowOutcome::Ran(Err(e)),
    };
    let t = now();
    let mut app = App {
        session,
        opts: opts.clone(),
        out,
        presenter: None,
        held: BTreeSet::new(),
        dragging: false,
        last_cursor: None,
        started: t,
        last_tick: t,
        game_ns: 0,
        fps_window: (t, 0),
        fps: 0.0,
        error: None,
        done: false,
        joining: None,
        solo: None,
        leaving: None,
        switches: {
            let mut s = opts.switches.clone();
            s.sort_by_key(|s| s.0);
            s
        },
        renderers: crate::play::switchable_renderers(&opts.mods),
    };
    if let Err(e) = event_loop.run_app(&mut app) {
        return WindowOutcome::Ran(Err(anyhow::anyhow!("window event loop: {e}")));
    }
    if let Some(e) = app.error.take() {
        return WindowOutcome::Ran(Err(e));
    }
    let elapsed = app.started.elapsed();
    let _ = app.done;
    let outcome = app.session.finish(elapsed, app.out);
    // The window outlives every renderer instance that presents to it: the session (and
    // its renderer's swapchain) shuts down first, then the presenter and the window go.
    let App {
        session, presenter, ..
    } = app;
    session.shutdown();
    drop(presenter);
    WindowOutcome::Ran(outcome)
}
