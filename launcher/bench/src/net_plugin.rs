//! `iron3d-bench` figures of the net plugin itself (`net.plugin`) and of `iron3d serve`
//! processes (`net.serve`); see `net.rs` for the list.

use iron3d_abi::abi_stable::std_types::{ROption, RString, RVec};
use iron3d_abi::{
    InputRecord, NetFrame, NetHash, NetIdentity, NetProvider, NetReport, NetRole, NetStart,
    NetState,
};
use iron3d_net::NetPlugin;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// The code of the bench's orders (a game command: no plugin reads it).
const ORDER: u32 = 0x7E57;

fn start(role: NetRole, address: &str, key: u64) -> NetStart {
    NetStart {
        role,
        address: RString::from(address),
        name: RString::from("bench"),
        key,
        players: 2,
        clans: RVec::from(vec![0, 1]),
        seed: 1,
        mission: RString::from("BATTLE"),
        turn_ticks: 0,
        delay_turns: 0,
        identity: NetIdentity::default(),
    }
}

/// A stand-in engine: runs the ticks handed at 30 ticks a second of real time.
struct Peer {
    net: NetPlugin,
    pending: Vec<(u64, Vec<InputRecord>, bool)>,
    tick: u64,
    hashes: Vec<NetHash>,
    state: NetState,
    listening: Option<String>,
    turns: u64,
    busy: Duration,
}

impl Peer {
    fn new(s: &NetStart) -> anyhow::Result<Self> {
        let mut net = NetPlugin::default();
        net.start(s)
            .map_err(|e| anyhow::anyhow!("net start: {}", e.message))?;
        Ok(Self {
            net,
            pending: Vec::new(),
            tick: 0,
            hashes: Vec::new(),
            state: NetState::WAITING,
            listening: None,
            turns: 0,
            busy: Duration::ZERO,
        })
    }

    /// One frame: the exchange (timed), then the ticks due by `now_ns`; the ticks run
    /// with their records.
    fn frame(
        &mut self,
        now_ns: u64,
        local: Vec<InputRecord>,
    ) -> anyhow::Result<Vec<(u64, Vec<InputRecord>)>> {
        let t0 = now();
        let report: NetReport = self
            .net
            .exchange(&NetFrame {
                now_ns,
                tick: self.tick,
                end: false,
                local: RVec::from(local),
                hashes: RVec::from(std::mem::take(&mut self.hashes)),
                say: RString::new(),
                say_to: -1,
                report: RVec::new(),
                report_tick: 0,
                snapshot: RVec::new(),
                snapshot_tick: 0,
            })
            .map_err(|e| anyhow::anyhow!("net exchange: {}", e.message))?;
        self.busy += t0.elapsed();
        self.state = report.state;
        for e in report.events.iter() {
            if e.kind == iron3d_abi::NetEventKind::LISTENING {
                self.listening = Some(e.text.to_string());
            }
        }
        if let ROption::RSome(_) = report.snapshot {
            anyhow::bail!("no rejoin in this figure");
        }
        for t in report.ticks.iter() {
            self.pending.push((t.tick, t.records.to_vec(), t.hash));
        }
        let due = now_ns * 30 / 1_000_000_000;
        let mut ran = Vec::new();
        while self.tick < due && !self.pending.is_empty() {
            let (tick, records, hash) = self.pending.remove(0);
            self.tick = tick;
            if hash {
                self.turns += 1;
                let mut h = blake3::Hasher::new();
                h.update(&tick.to_le_bytes());
                self.hashes.push(NetHash {
                    tick,
                    hash: *h.finalize().as_bytes(),
                });
            }
            ran.push((tick, records));
        }
        Ok(ran)
    }
}

/// `net.plugin`: a host and a joining player over the loopback interface, 10 s of real
/// time at 60 frames a second; the joining player orders 5 times a second.
fn plugin(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut host = Peer::new(&start(NetRole::HOST, "127.0.0.1:0", 0))?;
    host.frame(0, Vec::new())?;
    let at = host
        .listening
        .clone()
        .ok_or_else(|| anyhow::anyhow!("the host did not listen"))?;
    let mut guest = Peer::new(&start(NetRole::JOIN, &at, 0xB3AC))?;
    let began = now();
    let frame = Duration::from_micros(16_667);
    let mut frames: u32 = 0;
    let mut given: BTreeMap<i32, Duration> = BTreeMap::new();
    let mut latencies: Vec<f64> = Vec::new();
    let mut next_order: i32 = 0;
    let mut started: Option<Duration> = None;
    while began.elapsed() < Duration::from_secs(12) {
        frames += 1;
        if let Some(wait) = (frame * frames).checked_sub(began.elapsed()) {
            std::thread::sleep(wait);
        }
        let t = began.elapsed();
        let ns = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
        let playing = guest.state == NetState::PLAYING;
        if playing && started.is_none() {
            started = Some(t);
        }
        let mut local = Vec::new();
        if let Some(s) = started {
            if t >= s + Duration::from_millis(200) * u32::try_from(next_order).unwrap_or(0) {
                local.push(InputRecord::command(ORDER, next_order));
                given.insert(next_order, t);
                next_order += 1;
            }
        }
        guest.frame(ns, local)?;
        // The host's turns: when each order runs there.
        for (_, records) in host.frame(ns, Vec::new())? {
            for r in records.iter().filter(|r| r.code == ORDER) {
                if let Some(at) = given.remove(&r.arg) {
                    latencies.push((t - at).as_secs_f64() * 1e3);
                }
            }
        }
    }
    anyhow::ensure!(host.turns > 10 && guest.turns > 10, "the match did not run");
    let mean = latencies.iter().sum::<f64>() / latencies.len().max(1) as f64;
    writeln!(
        out,
        "bench net.plugin link=loopback turns={} orders={} order_to_turn_ms={mean:.1} plugin_us_per_turn_host={:.1} plugin_us_per_turn_join={:.1}",
        host.turns,
        latencies.len(),
        host.busy.as_secs_f64() * 1e6 / host.turns as f64,
        guest.busy.as_secs_f64() * 1e6 / guest.turns as f64,
    )?;
    Ok(())
}

/// The resident set of process `pid`, in KiB (Linux `/proc`).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// `net.serve`: 16 `iron3d serve` processes on free loopback ports, each with the demo
/// mission loaded and waiting for its players; their resident memory.
fn serve(out: &mut dyn Write) -> anyhow::Result<()> {
    const MATCHES: usize = 16;
    let exe = std::env::current_exe()?.with_file_name("iron3d");
    if !exe.is_file() {
        writeln!(
            out,
            "bench net.serve skipped: no iron3d beside this driver ({}; build it with cargo build --release -p iron3d-launcher)",
            exe.display()
        )?;
        return Ok(());
    }
    let game = tempfile::tempdir()?;
    iron3d_demo::build(game.path(), 1, iron3d_demo::Profile::Demo)?;
    let dir = game
        .path()
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("a temporary folder that is not UTF-8"))?;
    let mut children = Vec::new();
    for _ in 0..MATCHES {
        let mut child = Command::new(&exe)
            .args([
                "serve",
                "--players",
                "2",
                "--port",
                "0",
                "--game-dir",
                dir,
                "--mission",
                "BATTLE",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow::anyhow!("no standard output"))?;
        children.push((child, BufReader::new(stdout)));
    }
    let mut rss = Vec::new();
    let mut failed = None;
    for (child, reader) in &mut children {
        let listening = reader
            .lines()
            .map_while(Result::ok)
            .any(|l| l.starts_with("serve: listening on "));
        match (listening, rss_kib(child.id())) {
            (true, Some(kib)) => rss.push(kib),
            _ => failed = Some("a server did not listen"),
        }
    }
    for (child, _) in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
    if let Some(why) = failed {
        anyhow::bail!("net.serve: {why}");
    }
    let mean = rss.iter().sum::<u64>() as f64 / rss.len() as f64 / 1024.0;
    let max = rss.iter().max().copied().unwrap_or(0) as f64 / 1024.0;
    writeln!(
        out,
        "bench net.serve matches={MATCHES} rss_mib_per_match_mean={mean:.1} rss_mib_max={max:.1} rss_mib_all={:.1}",
        rss.iter().sum::<u64>() as f64 / 1024.0
    )?;
    Ok(())
}

/// Prints `net.plugin` and `net.serve`.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    plugin(out)?;
    serve(out)
}
