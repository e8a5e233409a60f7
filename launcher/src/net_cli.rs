//! `iron3d serve`, `iron3d host` and `iron3d join`: a match over the net plugin
//! (interface 2.14), headless. The shell only opens the session, hands the local
//! seat's records to [`iron3d_session::net::NetDriver`] and prints what happens; the
//! protocol is the net plugin's and the simulation the other plugins'.
//!
//! * **serve** (PD-NET-SERVE): a dedicated server — player 0 with a spectator's seat
//!   (`seats=-,…`), one process per match; it ends the match after `--ticks` (or when
//!   the mission is decided) and exits, printing status lines a supervisor reads.
//! * **host --bot**: a player who hosts, its seat driven by the bot.
//! * **join ADDR --bot**: the lobby first (a session with the net slot alone reserves a
//!   seat and learns the mission, seed and seats: PD-NET-RESERVE), then the mission is
//!   opened and joined with the same key.
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
use iron3d_abi::{
    InputRecord, NetEventKind, NetIdentity, NetPluginId, NetRole, NetStart, NetState,
};
use iron3d_input::{POINTER_X, POINTER_Y, VIEW_ASPECT, action_code};
use iron3d_session::Run;
use iron3d_session::net::{NetDriver, Outgoing};
use std::io::Write;
use std::path::PathBuf;
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
    /// The host's seat is driven by the bot (host only; a window is not built yet).
    #[arg(long)]
    pub bot: bool,
    /// The data and the peer.
    #[command(flatten)]
    pub data: MatchData,
}

/// `iron3d join` options.
#[derive(Debug, Args, Clone)]
pub struct JoinArgs {
    /// The host's address, `HOST:PORT` (port 27100 when left out).
    pub address: String,
    /// The seat is driven by the bot (a window is not built yet).
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
    if !serve && !a.bot {
        bail!(
            "`iron3d host` plays in a window, which is not built yet: pass --bot for a headless host whose seat the bot drives"
        );
    }
    let joining = usize::from(a.players);
    let (min, max) = if serve { (1, 15) } else { (2, 16) };
    if !(min..=max).contains(&joining) {
        bail!("--players {}: {min} to {max}", a.players);
    }
    let (game_dir, mission) = game(&a.data, a.mission.clone(), out)?;
    // PD-NET-SERVE: the server's seat is a spectator's; the players' clans follow.
    let mut clans: Vec<u32> = if serve {
        vec![iron3d_gameplay::params::SPECTATOR_SLOT]
    } else {
        Vec::new()
    };
    for k in 0..joining {
        clans.push(a.clans.get(k).copied().unwrap_or(k as u32));
    }
    let players = u32::try_from(clans.len())?;
    let mut start = empty_start(
        if serve { NetRole::SERVE } else { NetRole::HOST },
        // An IPv6 address goes in brackets before its port.
        if a.bind.contains(':') {
            format!("[{}]:{}", a.bind, a.port)
        } else {
            format!("{}:{}", a.bind, a.port)
        },
        &a.data.name,
    );
    start.players = players;
    start.clans = RVec::from(clans.clone());
    start.seed = a.seed;
    start.mission = RString::from(mission.clone());
    let params = vec![
        ("seats".to_owned(), seats_param(&clans)),
        ("local-seat".to_owned(), "0".to_owned()),
    ];
    let plan = NetPlan {
        start,
        bot: (!serve).then_some(a.seed ^ 0xB07),
        end_after: a.ticks,
        label: if serve { "serve" } else { "host" },
        inject_desync: None,
        desync_dir: a.data.desync_dir.clone(),
    };
    let opts = options(&a.data, game_dir, mission, a.seed, params, plan);
    let outcome = headless::run(&opts, out)?;
    Ok(outcome.exit)
}

/// `iron3d join ADDR --bot`.
pub fn join_command(a: JoinArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    if !a.bot {
        bail!(
            "`iron3d join` plays in a window, which is not built yet: pass --bot for a headless player the bot drives"
        );
    }
    let address = if a.address.contains(':') {
        a.address.clone()
    } else {
        format!("{}:{DEFAULT_PORT}", a.address)
    };
    let key = fresh_key();
    let reservation = lobby(&a.data, &address, key, out)?;
    let (game_dir, _) = game(&a.data, Some(reservation.mission.to_string()), out)?;
    let clans = reservation.clans.to_vec();
    let params = vec![
        ("seats".to_owned(), seats_param(&clans)),
        ("local-seat".to_owned(), reservation.player.to_string()),
    ];
    let mut start = empty_start(NetRole::JOIN, address, &a.data.name);
    start.key = key;
    let plan = NetPlan {
        start,
        bot: Some(a.bot_seed.unwrap_or(key)),
        end_after: None,
        label: "join",
        inject_desync: a.inject_desync,
        desync_dir: a.data.desync_dir.clone(),
    };
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
fn fresh_key() -> u64 {
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

/// The lobby (PD-NET-RESERVE): a session with the net slot alone reserves a seat at
/// `address` for `key` and learns the match.
fn lobby(
    data: &MatchData,
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

/// The identity the net plugin sends: this build, the mission's data and mods
/// fingerprints (as saves record them), the simulation slots' plugins.
fn identity(run: &Run, save: &iron3d_session::save::SaveIdentity) -> NetIdentity {
    let mut entries = iron3d_session::replay::plugin_set(&run.host);
    entries.sort();
    let plugins = entries
        .into_iter()
        .filter_map(|entry| {
            let (slot, rest) = entry.split_once('=')?;
            let mut parts = rest.split_whitespace();
            Some(NetPluginId {
                slot: slot.into(),
                name: parts.next()?.into(),
                version: parts.next()?.into(),
            })
        })
        .collect();
    NetIdentity {
        engine: RString::from(save.engine.clone()),
        data: RString::from(save.data.clone()),
        mods: RString::from(save.mods.clone()),
        plugins,
    }
}

/// The frame loop of a peer: exchange, run the ticks handed, hand back the hashes,
/// print what happened, until the match ends. Returns the exit code.
pub fn drive(
    run: &mut Run,
    plan: &NetPlan,
    save: &iron3d_session::save::SaveIdentity,
    out: &mut dyn Write,
) -> anyhow::Result<u8> {
    let label = plan.label;
    let mut start = plan.start.clone();
    start.identity = identity(run, save);
    let mut driver = NetDriver::start(&run.host, &start)?.with_reports(&plan.desync_dir);
    let mut bot = plan.bot.map(Bot::new);
    let frame = Duration::from_nanos(1_000_000_000 / 30);
    #[allow(
        clippy::disallowed_methods,
        reason = "real-time pacing of a match's frames"
    )]
    let began = Instant::now();
    let mut frames: u64 = 0;
    let mut desync = false;
    let mut end = false;
    let mut injected = false;
    // PD-NET-REJOIN: the tick whose snapshot a rejoining player waits for.
    let mut wanted: Option<u64> = None;
    loop {
        frames += 1;
        if let Some(wait) =
            (frame * u32::try_from(frames).unwrap_or(u32::MAX)).checked_sub(began.elapsed())
        {
            std::thread::sleep(wait);
        }
        let now = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let playing = driver.state() == Some(NetState::PLAYING);
        let local = match (&mut bot, playing) {
            (Some(b), true) => b.records(),
            _ => Vec::new(),
        };
        let tick = run.kernel.tick();
        end |= plan.end_after.is_some_and(|t| tick >= t) || run.decided().is_some();
        let snapshot = match wanted {
            Some(t) if driver.pending() == 0 && tick == t => {
                wanted = None;
                let bytes = run.save_file(save)?.to_bytes()?;
                writeln!(
                    out,
                    "{label}: snapshot after tick {t} for the rejoin: {} bytes",
                    bytes.len()
                )?;
                Some((t, bytes))
            }
            _ => None,
        };
        let events = driver
            .exchange(
                &run.host,
                now,
                tick,
                Outgoing {
                    local,
                    end,
                    say: None,
                    snapshot,
                },
            )
            .with_context(|| format!("{label}: the match"))?;
        if let Some(s) = driver.take_snapshot() {
            let file = iron3d_save::SaveFile::parse(&s.bytes)
                .with_context(|| format!("{label}: the host's snapshot after tick {}", s.tick))?;
            run.restore_save(&file, save)
                .with_context(|| format!("{label}: restoring the host's snapshot"))?;
            writeln!(
                out,
                "{label}: rejoined: restored the host's snapshot after tick {} ({} bytes, state_hash={})",
                s.tick,
                s.bytes.len(),
                run.kernel.state_hash().to_hex()
            )?;
        }
        for e in &events {
            let line = match e.kind {
                NetEventKind::LISTENING => format!(
                    "{label}: listening on {} mission={} players={}",
                    e.text, start.mission, start.players
                ),
                NetEventKind::JOINED => format!("{label}: player {} joined: {}", e.player, e.text),
                NetEventKind::STARTED => format!(
                    "{label}: match started, player {}: seats {}",
                    e.player, e.text
                ),
                NetEventKind::LEFT => format!(
                    "{label}: player {} left from tick {}: {}",
                    e.player, e.tick, e.text
                ),
                NetEventKind::CHAT => format!("{label}: player {} says: {}", e.player, e.text),
                NetEventKind::DESYNC => {
                    desync = true;
                    format!("{label}: DESYNC at tick {}: {}", e.tick, e.text)
                }
                // A host refusing a stranger goes on; a player refused stops here.
                NetEventKind::REFUSED if start.role == NetRole::JOIN => {
                    bail!(
                        "{label}: refused by the host:\n  {}",
                        e.text.replace('\n', "\n  ")
                    )
                }
                NetEventKind::REFUSED => {
                    format!("{label}: refused a player: {}", e.text.replace('\n', "; "))
                }
                NetEventKind::ENDED => format!("{label}: {}", e.text),
                NetEventKind::SNAPSHOT_WANTED => {
                    wanted = Some(e.tick);
                    format!("{label}: player {} {}", e.player, e.text)
                }
                NetEventKind::REJOINED => {
                    format!("{label}: player {} rejoined from tick {}", e.player, e.tick)
                }
                _ => {
                    tracing::debug!(target: "NetWatch", kind = e.kind.0, text = %e.text, "net event");
                    continue;
                }
            };
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        for note in driver.take_notes() {
            writeln!(out, "{label}: {note}")?;
        }
        let hash_at = driver.hash_tick();
        let budget = driver.budget();
        let budget = match plan.inject_desync {
            // Stop at the tick to perturb, so the change lands right after it.
            Some(t) if !injected && tick < t => budget.min(t - tick),
            _ => budget,
        };
        run.frame(&mut driver, Some(budget))?;
        if let Some(t) = plan
            .inject_desync
            .filter(|&t| !injected && run.kernel.tick() >= t)
        {
            injected = true;
            let what = inject_desync(&mut run.kernel)?;
            writeln!(out, "{label}: injected a desync after tick {t}: {what}")?;
        }
        driver.after_frame(&run.kernel, hash_at);
        if driver.state() == Some(NetState::ENDED) && driver.pending() == 0 {
            break;
        }
    }
    writeln!(
        out,
        "{label}: match over tick={} state_hash={} desync={}",
        run.kernel.tick(),
        run.kernel.state_hash().to_hex(),
        if desync { "yes" } else { "no" }
    )?;
    Ok(if desync { EXIT_DESYNC } else { 0 })
}

/// Moves the first object of the queue half a unit along X (`--inject-desync`).
fn inject_desync(kernel: &mut iron3d_kernel::Kernel) -> anyhow::Result<String> {
    let world = kernel.world_mut()?;
    let handle = world
        .queue_live_at(0)
        .context("--inject-desync: the world has no object to move")?;
    let object = world.get_mut(handle)?;
    object.transform.position.x += 0.5;
    Ok(format!("object {} moved 0.5 along X", object.id.raw()))
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
    fn a_spectators_seat_is_a_dash() {
        assert_eq!(seats_param(&[u32::MAX, 0, 1]), "-,0,1");
    }
}
