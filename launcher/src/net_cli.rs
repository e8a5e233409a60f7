//! `iron3d serve`, `iron3d host` and `iron3d join`: a match over the net plugin
//! (interface 2.14). The shell only opens the session and the peer's view of it; one
//! frame of the match is [`iron3d_session::net_match::NetMatch::frame`], shared by the
//! headless peer ([`drive`]) and the player's window ([`crate::play::PlaySession`] with
//! [`crate::play::PlayOptions::net`]).
//!
//! * **serve** (PD-NET-SERVE): a dedicated server — player 0 with a spectator's seat
//!   (`seats=-,…`), one process per match, headless; it ends the match after `--ticks`,
//!   when the mission is decided or when every player left (PD-NET-SERVE-IDLE), and
//!   exits, printing status lines a supervisor reads.
//! * **host**: a player who hosts, in a window (`--bot`: headless, the bot's seat).
//! * **join ADDR**: the lobby first (a session with the net slot alone reserves a seat
//!   and learns the mission, seed and seats: PD-NET-RESERVE), then the mission is opened
//!   and joined with the same key — in a window, or headless with `--bot`.
//!
//! The bot (**PD-NET-BOT**) is what "orders from bots" means here: every
//! [`BOT_PERIOD`] frames it boxes the whole view with `select` and sends the selection
//! with `order.move` to a point drawn from its seeded stream — real seat records, so
//! they travel, are banded and run like a player's.

use crate::headless::{self, HeadlessOptions};
use crate::{demo_cache_root, demo_cli, mods, plugins};
use anyhow::{Context, bail};
use clap::Args;
use iron3d_abi::abi_stable::std_types::{RString, RVec};
use iron3d_abi::{InputRecord, NetEventKind, NetIdentity, NetRole, NetStart, NetState};
use iron3d_input::{POINTER_X, POINTER_Y, VIEW_ASPECT, action_code};
use iron3d_session::Run;
use iron3d_session::net::{NetDriver, Outgoing};
use iron3d_session::net_match::{MatchInput, NetMatch};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The port a host or server listens on by default.
pub const DEFAULT_PORT: u16 = 27_100;

/// Frames between two of the bot's orders (3 s at 30 frames a second).
pub const BOT_PERIOD: u64 = 90;

/// The exit code of a match in which a desync was detected.
pub const EXIT_DESYNC: u8 = 4;

/// Where the game is, for every net command.
#[derive(Debug, Args, Clone)]
pub struct MatchData {
    /// Game directory (default: the embedded demo, generated or reused).
    #[arg(long)]
    pub game_dir: Option<PathBuf>,
    /// Plugin registry (default: config/plugins.ini).
    #[arg(long, value_name = "FILE")]
    pub registry: Option<PathBuf>,
    /// Extra directory searched first for plugin libraries (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// Write a JSON Lines trace of this peer's run into FILE.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The player's name.
    #[arg(long, default_value = "player")]
    pub name: String,
    /// Where a desync report is written (`desync-tick<T>-player<P>.txt`).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub desync_dir: PathBuf,
    /// Mods for this peer (every peer must enable the same set).
    #[command(flatten)]
    pub mods: mods::ModArgs,
}

/// How a player's peer shows the match (`iron3d host`, `iron3d join` without `--bot`,
/// or with `--bot --offscreen`).
#[derive(Debug, Args, Clone, Default)]
pub struct MatchView {
    /// Render without a window (automation): frames are still paced in real time, and
    /// the run ends when the match is over or after `--frames`.
    #[arg(long)]
    pub offscreen: bool,
    /// Frames to present at most.
    #[arg(long)]
    pub frames: Option<u64>,
    /// The renderer (`vulkan`, `soft`, `capture`, …; default as `iron3d play`).
    #[arg(long, value_name = "RENDERER", value_parser = crate::play::parse_renderer)]
    pub renderer: Option<crate::play::Renderer>,
    /// Width of the window or target (default: the settings', 640 offscreen).
    #[arg(long)]
    pub width: Option<u32>,
    /// Height of the window or target (default: the settings', 480 offscreen).
    #[arg(long)]
    pub height: Option<u32>,
}

/// `iron3d serve` / `iron3d host` options.
#[derive(Debug, Args, Clone)]
pub struct HostArgs {
    /// The mission (default: the demo's first).
    #[arg(long)]
    pub mission: Option<String>,
    /// Players who join (serve), or players in all, the host included (host).
    #[arg(long)]
    pub players: u8,
    /// The port to listen on.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// The address to listen on (the loopback interface by default; `0.0.0.0` for
    /// every interface).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// End the match after this many ticks (default: when the mission is decided).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// The match seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The clan slot of each joining player, comma-separated (default: 0, 1, 2, …).
    #[arg(long, value_delimiter = ',')]
    pub clans: Vec<u32>,
    /// The host's seat is driven by the bot, headless (with `--offscreen`: drawn
    /// offscreen). Host only.
    #[arg(long)]
    pub bot: bool,
    /// How the host sees the match (host only).
    #[command(flatten)]
    pub view: MatchView,
    /// The data and the peer.
    #[command(flatten)]
    pub data: MatchData,
}

/// `iron3d join` options.
#[derive(Debug, Args, Clone)]
pub struct JoinArgs {
    /// The host's address, `HOST:PORT` (port 27100 when left out).
    pub address: String,
    /// The seat is driven by the bot, headless (with `--offscreen`: drawn offscreen).
    #[arg(long)]
    pub bot: bool,
    /// The bot's seed (default: drawn from the connection key).
    #[arg(long)]
    pub bot_seed: Option<u64>,
    /// Testing: after tick TICK move one object of this peer's world (the first in the
    /// queue, half a unit along X), so the peers' states differ and every one of them
    /// reports the desync.
    #[arg(long, value_name = "TICK")]
    pub inject_desync: Option<u64>,
    /// How the player sees the match.
    #[command(flatten)]
    pub view: MatchView,
    /// The data and the peer.
    #[command(flatten)]
    pub data: MatchData,
}

/// What a headless run does as a peer of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct NetPlan {
    /// The start handed to the net plugin (its identity is filled in once the mission
    /// is open).
    pub start: NetStart,
    /// The local seat's bot, by seed (`None`: no local records: the server).
    pub bot: Option<u64>,
    /// Host and server: end the match after this tick.
    pub end_after: Option<u64>,
    /// The status lines' prefix (`serve`, `host`, `join`).
    pub label: &'static str,
    /// Where desync reports go.
    pub desync_dir: PathBuf,
    /// Testing: perturb this peer's world after this tick (`join --inject-desync`).
    pub inject_desync: Option<u64>,
}

/// The bot of PD-NET-BOT: seat records from its own xorshift stream.
pub struct Bot {
    state: u64,
    frame: u64,
    target: (f32, f32),
}

impl Bot {
    /// A bot drawing from `seed` (0 is replaced: xorshift needs a bit set).
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed.max(1),
            frame: 0,
            target: (0.5, 0.5),
        }
    }

    fn draw(&mut self) -> f32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        0.2 + (self.state % 600) as f32 / 1000.0
    }

    /// The records of the next frame.
    pub fn records(&mut self) -> Vec<InputRecord> {
        self.frame += 1;
        let code = |name: &str| action_code(name).unwrap_or(0);
        let pointer = |x: f32, y: f32| {
            [
                InputRecord::axis(POINTER_X, x),
                InputRecord::axis(POINTER_Y, y),
            ]
        };
        match self.frame % BOT_PERIOD {
            1 if self.frame == 1 => vec![InputRecord::axis(VIEW_ASPECT, 4.0 / 3.0)],
            10 => {
                let mut r = pointer(0.02, 0.02).to_vec();
                r.push(InputRecord::key(code("select"), true));
                r
            }
            11 => pointer(0.98, 0.98).to_vec(),
            12 => vec![InputRecord::key(code("select"), false)],
            13 => {
                self.target = (self.draw(), self.draw());
                let mut r = pointer(self.target.0, self.target.1).to_vec();
                r.push(InputRecord::key(code("order.move"), true));
                r
            }
            14 => vec![InputRecord::key(code("order.move"), false)],
            _ => Vec::new(),
        }
    }
}

/// The game directory and mission of a net command (the demo's when none is named).
fn game(
    data: &MatchData,
    mission: Option<String>,
    out: &mut dyn Write,
) -> anyhow::Result<(PathBuf, String)> {
    match (&data.game_dir, mission) {
        (Some(dir), Some(m)) => Ok((dir.clone(), m)),
        (Some(_), None) => bail!("--game-dir needs --mission on the host"),
        (None, m) => {
            let (dir, first) =
                demo_cli::cached(&demo_cache_root(), 1, iron3d_demo::Profile::Demo, out)?;
            Ok((dir, m.unwrap_or(first)))
        }
    }
}

fn seats_param(clans: &[u32]) -> String {
    clans
        .iter()
        .map(|&c| {
            if c == iron3d_gameplay::params::SPECTATOR_SLOT {
                "-".to_owned()
            } else {
                c.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

fn options(
    data: &MatchData,
    game_dir: PathBuf,
    mission: String,
    seed: u64,
    params: Vec<(String, String)>,
    net: NetPlan,
) -> HeadlessOptions {
    HeadlessOptions {
        ticks: Some(u64::MAX),
        seed,
        fps: 30,
        tick_hz: 30,
        objects: 0,
        record: None,
        replay: None,
        checkpoint_every: 1,
        trace: data.trace.clone(),
        trace_every: 1,
        registry: data.registry.clone(),
        plugin_dirs: data.plugin_dirs.clone(),
        strict_plugins: true,
        swaps: Vec::new(),
        watch: false,
        console: false,
        realtime: true,
        game_dir: Some(game_dir),
        mission: Some(mission),
        data_profile: iron3d_tools::mission::Profile::default(),
        params: params.into_iter().collect(),
        mods: data.mods.clone(),
        audio: crate::audio::AudioArgs::default(),
        save: None,
        save_at: Vec::new(),
        load: None,
        net: Some(net),
    }
}

/// A player's peer in a window (or offscreen): `iron3d play`'s session with the match's
/// ticks ([`crate::play::PlayOptions::net`]). Returns the exit code.
#[allow(
    clippy::too_many_arguments,
    reason = "the match's parts as the host and join commands have them"
)]
fn play(
    data: &MatchData,
    view: &MatchView,
    game_dir: PathBuf,
    mission: String,
    seed: u64,
    params: Vec<(String, String)>,
    plan: NetPlan,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    let (settings, _) = if view.offscreen {
        Default::default()
    } else {
        crate::play::player_settings(iron3d_config::settings::user_file().as_deref())
    };
    let mut params_map = std::collections::BTreeMap::new();
    params_map.extend(params);
    let opts = crate::play::PlayOptions {
        renderer: view.renderer,
        offscreen: view.offscreen,
        frames: view.frames.or(view.offscreen.then_some(u64::MAX)),
        width: view.width.unwrap_or(if view.offscreen {
            640
        } else {
            settings.video.width
        }),
        height: view.height.unwrap_or(if view.offscreen {
            480
        } else {
            settings.video.height
        }),
        seed,
        registry: data.registry.clone(),
        plugin_dirs: data.plugin_dirs.clone(),
        strict_plugins: true,
        params: params_map,
        settings,
        trace: data.trace.clone(),
        // Every peer enables the mods named, and only those (the handshake compares).
        mods: std::sync::Arc::new(mods::for_run(&data.mods, true, &[])),
        mod_args: data.mods.clone(),
        audio: crate::audio::AudioArgs::default().mode(view.offscreen),
        announce_audio: !view.offscreen,
        net: Some(plan),
        ..crate::play::PlayOptions::new(game_dir, mission)
    };
    let outcome = if view.offscreen {
        crate::play::run_offscreen(&opts, out)?
    } else {
        match crate::window::run(&opts, out) {
            crate::window::WindowOutcome::Ran(r) => r?,
            crate::window::WindowOutcome::NoDisplay(reason) => bail!(
                "no display ({reason}): a match is played in a window; pass --offscreen (or --bot for a headless bot)"
            ),
        }
    };
    Ok(outcome.exit)
}

fn empty_start(role: NetRole, address: String, name: &str) -> NetStart {
    NetStart {
        role,
        address: RString::from(address),
        name: RString::from(name),
        key: 0,
        players: 0,
        clans: RVec::new(),
        seed: 0,
        mission: RString::new(),
        turn_ticks: 0,
        delay_turns: 0,
        identity: NetIdentity::default(),
    }
}

/// `iron3d serve` (`serve: true`) or `iron3d host`.
pub fn host_command(a: HostArgs, serve: bool, out: &mut dyn Write) -> anyhow::Result<u8> {
    if serve && (a.bot || a.view.offscreen || a.view.frames.is_some()) {
        bail!(
            "`iron3d serve` is headless and has no seat: --bot, --offscreen and --frames are for `host` and `join`"
        );
    }
    let (game_dir, mission) = game(&a.data, a.mission.clone(), out)?;
    let (mut plan, params) = host_plan(&HostMatch {
        serve,
        bind: a.bind.clone(),
        port: a.port,
        players: a.players,
        clans: a.clans.clone(),
        seed: a.seed,
        mission: mission.clone(),
        name: a.data.name.clone(),
        desync_dir: a.data.desync_dir.clone(),
    })?;
    plan.end_after = a.ticks;
    if !serve && a.bot {
        plan.bot = Some(a.seed ^ 0xB07);
    }
    if !serve && (!a.bot || a.view.offscreen) {
        return play(
            &a.data, &a.view, game_dir, mission, a.seed, params, plan, out,
        );
    }
    let opts = options(&a.data, game_dir, mission, a.seed, params, plan);
    let outcome = headless::run(&opts, out)?;
    Ok(outcome.exit)
}

/// What a host (or a dedicated server) starts: the `iron3d host` / `serve` options and
/// the main menu's Multiplayer page ask for these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostMatch {
    /// A dedicated server (PD-NET-SERVE) rather than a player who hosts.
    pub serve: bool,
    /// The address to listen on.
    pub bind: String,
    /// The port to listen on.
    pub port: u16,
    /// Players who join (serve), or players in all, the host included (host).
    pub players: u8,
    /// The clan slot of each player (default: 0, 1, 2, …).
    pub clans: Vec<u32>,
    /// The match seed.
    pub seed: u64,
    /// The mission.
    pub mission: String,
    /// The host's name.
    pub name: String,
    /// Where desync reports go.
    pub desync_dir: PathBuf,
}

/// The host's plan (no bot, no end) and the mission parameters of its seats.
///
/// # Errors
/// A player count out of range (1–15 joining a server, 2–16 in all with a host).
pub fn host_plan(h: &HostMatch) -> anyhow::Result<(NetPlan, Vec<(String, String)>)> {
    let joining = usize::from(h.players);
    let (min, max) = if h.serve { (1, 15) } else { (2, 16) };
    if !(min..=max).contains(&joining) {
        bail!("--players {}: {min} to {max}", h.players);
    }
    // PD-NET-SERVE: the server's seat is a spectator's; the players' clans follow.
    let mut clans: Vec<u32> = if h.serve {
        vec![iron3d_gameplay::params::SPECTATOR_SLOT]
    } else {
        Vec::new()
    };
    for k in 0..joining {
        clans.push(h.clans.get(k).copied().unwrap_or(k as u32));
    }
    let players = u32::try_from(clans.len())?;
    let mut start = empty_start(
        if h.serve {
            NetRole::SERVE
        } else {
            NetRole::HOST
        },
        // An IPv6 address goes in brackets before its port.
        if h.bind.contains(':') {
            format!("[{}]:{}", h.bind, h.port)
        } else {
            format!("{}:{}", h.bind, h.port)
        },
        &h.name,
    );
    start.players = players;
    start.clans = RVec::from(clans.clone());
    start.seed = h.seed;
    start.mission = RString::from(h.mission.clone());
    let params = vec![
        ("seats".to_owned(), seats_param(&clans)),
        ("local-seat".to_owned(), "0".to_owned()),
    ];
    let plan = NetPlan {
        start,
        bot: None,
        end_after: None,
        label: if h.serve { "serve" } else { "host" },
        inject_desync: None,
        desync_dir: h.desync_dir.clone(),
    };
    Ok((plan, params))
}

/// `HOST:PORT` for an address given with or without its port ([`DEFAULT_PORT`]).
pub fn with_port(address: &str) -> String {
    // An IPv6 address has colons of its own: only `[…]:PORT` names a port.
    let has_port = if address.starts_with('[') {
        address.contains("]:")
    } else {
        address.matches(':').count() == 1
    };
    if has_port {
        address.to_owned()
    } else if address.contains(':') && !address.starts_with('[') {
        format!("[{address}]:{DEFAULT_PORT}")
    } else {
        format!("{address}:{DEFAULT_PORT}")
    }
}

/// A joining player's plan (no bot) for the seat `reservation` holds at `address`
/// under `key`, and the mission parameters of its seats.
pub fn join_plan(
    address: &str,
    key: u64,
    reservation: &iron3d_abi::NetReservation,
    name: &str,
    desync_dir: &Path,
) -> (NetPlan, Vec<(String, String)>) {
    let clans = reservation.clans.to_vec();
    let params = vec![
        ("seats".to_owned(), seats_param(&clans)),
        ("local-seat".to_owned(), reservation.player.to_string()),
    ];
    let mut start = empty_start(NetRole::JOIN, address.to_owned(), name);
    start.key = key;
    let plan = NetPlan {
        start,
        bot: None,
        end_after: None,
        label: "join",
        inject_desync: None,
        desync_dir: desync_dir.to_owned(),
    };
    (plan, params)
}

/// `iron3d join ADDR`.
pub fn join_command(a: JoinArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let address = with_port(&a.address);
    let key = fresh_key();
    let reservation = reserve_seat(
        &Lobby {
            registry: a.data.registry.clone(),
            plugin_dirs: a.data.plugin_dirs.clone(),
            name: a.data.name.clone(),
        },
        &address,
        key,
        out,
    )?;
    let (game_dir, _) = game(&a.data, Some(reservation.mission.to_string()), out)?;
    let (mut plan, params) = join_plan(
        &address,
        key,
        &reservation,
        &a.data.name,
        &a.data.desync_dir,
    );
    plan.bot = a.bot.then(|| a.bot_seed.unwrap_or(key));
    plan.inject_desync = a.inject_desync;
    if !a.bot || a.view.offscreen {
        return play(
            &a.data,
            &a.view,
            game_dir,
            reservation.mission.to_string(),
            reservation.seed,
            params,
            plan,
            out,
        );
    }
    let opts = options(
        &a.data,
        game_dir,
        reservation.mission.to_string(),
        reservation.seed,
        params,
        plan,
    );
    let outcome = headless::run(&opts, out)?;
    Ok(outcome.exit)
}

/// A connection key (PD-NET-FRAME: drawn at random; the lobby and the match share it).
pub fn fresh_key() -> u64 {
    #[allow(
        clippy::disallowed_methods,
        reason = "a random key, not simulation time"
    )]
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut h = blake3::Hasher::new();
    h.update(&t.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    let b = h.finalize();
    let mut k = [0u8; 8];
    k.copy_from_slice(&b.as_bytes()[..8]);
    u64::from_le_bytes(k)
}

/// What the lobby needs: the plugins (the registry's net slot alone is loaded) and the
/// player's name.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    /// Plugin registry (default: config/plugins.ini).
    pub registry: Option<PathBuf>,
    /// Extra directories searched first for plugin libraries.
    pub plugin_dirs: Vec<PathBuf>,
    /// The player's name.
    pub name: String,
}

/// The lobby (PD-NET-RESERVE): a session with the net slot alone reserves a seat at
/// `address` for `key` and learns the match.
///
/// # Errors
/// No net plugin, the host refused this player, the match ended, or the host did not
/// answer (the net plugin's connect timeout).
pub fn reserve_seat(
    data: &Lobby,
    address: &str,
    key: u64,
    out: &mut dyn Write,
) -> anyhow::Result<iron3d_abi::NetReservation> {
    let registry_path = plugins::locate_registry(data.registry.as_deref())?;
    let full = plugins::load_registry(&registry_path)?;
    let net = full
        .entries()
        .find(|e| e.key.to_string() == "net")
        .with_context(|| format!("{} names no net plugin", registry_path.display()))?;
    let text = format!("net {} {}\n", net.library, net.factory);
    let registry = iron3d_registry::Registry::parse(
        text.as_bytes(),
        &format!("{} (the net slot alone)", registry_path.display()),
        iron3d_registry::Dialect::PluginsIni,
    )?;
    let no_mods = mods::ActiveMods::none();
    let setup = plugins::RunPlugins {
        registry: &registry_path,
        plugin_dirs: &data.plugin_dirs,
        mods: &no_mods,
        audio: crate::audio::AudioMode::None,
        strict: true,
    };
    let session = setup.open(
        registry,
        0,
        30,
        iron3d_session::MissionSpec::Synthetic {
            name: "lobby".to_owned(),
            parameters: Default::default(),
        },
        Box::new(iron3d_kernel::SystemTimeSource::new()),
    )?;
    let mut start = empty_start(NetRole::RESERVE, address.to_owned(), &data.name);
    start.key = key;
    let mut driver = NetDriver::start(&session.host, &start)?;
    writeln!(out, "join: asking {address} for a seat")?;
    #[allow(
        clippy::disallowed_methods,
        reason = "the lobby's transport timers, no simulation"
    )]
    let began = Instant::now();
    loop {
        let now = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let events = driver.exchange(&session.host, now, 0, Outgoing::default())?;
        for e in &events {
            if e.kind == NetEventKind::REFUSED {
                bail!(
                    "{address} refused this player:\n  {}",
                    e.text.replace('\n', "\n  ")
                );
            }
            if e.kind == NetEventKind::ENDED {
                bail!("{}", e.text);
            }
        }
        if let Some(r) = driver.reservation() {
            let r = r.clone();
            writeln!(
                out,
                "join: seat {} reserved: mission={} seed={} seats={}",
                r.player,
                r.mission,
                r.seed,
                seats_param(&r.clans)
            )?;
            session.shutdown();
            return Ok(r);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The frame loop of a headless peer: 30 frames a second of [`NetMatch::frame`], the
/// bot's records as the local seat's, every line printed with the peer's label, until
/// the match is over. Returns the exit code.
pub fn drive(
    run: &mut Run,
    plan: &NetPlan,
    save: &iron3d_session::save::SaveIdentity,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    let label = plan.label;
    let mut game = NetMatch::start(run, plan.start.clone(), save, &plan.desync_dir)?;
    if let Some(t) = plan.inject_desync {
        game = game.inject_desync_after(t);
    }
    let mut bot = plan.bot.map(Bot::new);
    let frame = Duration::from_nanos(1_000_000_000 / 30);
    #[allow(
        clippy::disallowed_methods,
        reason = "real-time pacing of a match's frames"
    )]
    let began = Instant::now();
    let mut frames: u64 = 0;
    loop {
        frames += 1;
        if let Some(wait) =
            (frame * u32::try_from(frames).unwrap_or(u32::MAX)).checked_sub(began.elapsed())
        {
            std::thread::sleep(wait);
        }
        let now = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let local = match (&mut bot, game.state() == Some(NetState::PLAYING)) {
            (Some(b), true) => b.records(),
            _ => Vec::new(),
        };
        let input = MatchInput {
            local,
            end: plan.end_after.is_some_and(|t| run.kernel.tick() >= t),
            say: None,
        };
        let done = game
            .frame(run, now, input, save)
            .with_context(|| format!("{label}: the match"))?;
        for line in &done.lines {
            writeln!(out, "{label}: {line}")?;
        }
        out.flush()?;
        if done.over {
            break;
        }
    }
    let desync = game.desynced();
    writeln!(
        out,
        "{label}: match over tick={} state_hash={} desync={}",
        run.kernel.tick(),
        run.kernel.state_hash().to_hex(),
        if desync { "yes" } else { "no" }
    )?;
    Ok(if desync { EXIT_DESYNC } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bot_boxes_the_view_and_orders_a_move_every_period() {
        let mut b = Bot::new(7);
        let all: Vec<Vec<InputRecord>> = (0..2 * BOT_PERIOD).map(|_| b.records()).collect();
        let select = action_code("select").unwrap();
        let order = action_code("order.move").unwrap();
        let downs = |code: u32| {
            all.iter()
                .flatten()
                .filter(|r| r.code == code && r.kind == iron3d_abi::InputRecordKind::KEY_DOWN)
                .count()
        };
        assert_eq!((downs(select), downs(order)), (2, 2));
        assert_eq!(all[0], vec![InputRecord::axis(VIEW_ASPECT, 4.0 / 3.0)]);
        let mut again = Bot::new(7);
        let same: Vec<Vec<InputRecord>> = (0..2 * BOT_PERIOD).map(|_| again.records()).collect();
        assert_eq!(all, same, "the same seed, the same records");
    }

    #[test]
    fn an_address_without_its_port_gets_the_default_one() {
        assert_eq!(with_port("10.0.0.7"), "10.0.0.7:27100");
        assert_eq!(with_port("10.0.0.7:5"), "10.0.0.7:5");
        assert_eq!(with_port("host.example"), "host.example:27100");
        assert_eq!(with_port("::1"), "[::1]:27100");
        assert_eq!(with_port("[::1]"), "[::1]:27100");
        assert_eq!(with_port("[::1]:5"), "[::1]:5");
    }

    #[test]
    fn a_host_plans_its_seats_and_a_server_adds_its_spectators() {
        let mut h = HostMatch {
            serve: false,
            bind: "0.0.0.0".into(),
            port: 5,
            players: 3,
            clans: vec![2],
            seed: 9,
            mission: "BATTLE".into(),
            name: "h".into(),
            desync_dir: PathBuf::from("."),
        };
        let (plan, params) = host_plan(&h).unwrap();
        assert_eq!(plan.start.role, NetRole::HOST);
        assert_eq!(plan.start.address.as_str(), "0.0.0.0:5");
        assert_eq!(plan.start.players, 3);
        assert_eq!(params[0], ("seats".to_owned(), "2,1,2".to_owned()));
        h.serve = true;
        h.bind = "::".into();
        let (plan, params) = host_plan(&h).unwrap();
        assert_eq!((plan.label, plan.start.players), ("serve", 4));
        assert_eq!(plan.start.address.as_str(), "[::]:5");
        assert_eq!(params[0].1, "-,2,1,2");
        h.players = 16;
        assert!(host_plan(&h).is_err(), "15 join a server at most");
    }

    #[test]
    fn a_spectators_seat_is_a_dash() {
        assert_eq!(seats_param(&[u32::MAX, 0, 1]), "-,0,1");
    }
}
