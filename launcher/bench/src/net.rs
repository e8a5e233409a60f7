//! `iron3d-bench` netcode figures (issue 40): the lockstep protocol of `iron3d-net-rules`
//! (host relay, renet's reliable channel, framing, scheduler, per-turn hashes) over the
//! in-memory network, on a simulated clock. In the first three figures what runs per
//! turn besides the netcode is a hash over the turn's records (the netcode's own costs);
//! `net.match` runs kernels:
//!
//! * `net.bytes` — bytes each peer sends per second (datagrams with their headers) in
//!   a 2-peer match whose players give 5 orders a second (a key press and release
//!   each), 60 simulated seconds;
//! * `net.latency` — milliseconds from a player's order to the turn that runs it on
//!   the host, on a link of 1 ms (the loopback's order) and of 50 ms ± 25 ms with 2 %
//!   loss;
//! * `net.cpu` — the netcode's processor time per turn: per peer in a 2-peer match, and
//!   for all 8 peers of an 8-peer match (one process runs them all);
//! * `net.match` — 8 peers × 2,000 objects over the in-memory network: each peer a
//!   kernel with the built-in scenario's objects moved by a trivial system (no AI or
//!   control plugins), running every turn's ticks on the merged orders and hashing its
//!   state after it; milliseconds per turn for all 8 and the state hash's share;
//! * `net.plugin` — the net plugin itself (`plugins/net`, as a library) over the
//!   loopback interface, a host and a joining player in real time: its processor time
//!   per turn in the exchange, and the real time from an order to the host's turn;
//! * `net.serve` — the memory (resident set) of `iron3d serve` processes, 16 matches
//!   on this machine waiting for their players (needs `iron3d` beside this driver).

use iron3d_net_rules::identity::PeerIdentity;
use iron3d_net_rules::lockstep::Config;
use iron3d_net_rules::memory::{Conditions, MemoryNet};
use iron3d_net_rules::session::{Client, Host, Setup};
use iron3d_net_rules::wire::WireEvent;
use std::io::Write;
use std::time::{Duration, Instant};

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// The last tick of `turn`.
fn last_tick(turn: &iron3d_net_rules::lockstep::Turn) -> u64 {
    turn.first_tick + turn.ticks.len().saturating_sub(1) as u64
}

/// Simulated milliseconds per step of the loop.
const STEP_MS: u64 = 5;

struct Peer {
    host: Option<Box<Host>>,
    client: Option<Box<Client>>,
    /// Turns run.
    turns: u32,
    /// The state after the last turn.
    state: [u8; 32],
    /// The peer's world, when the match simulates one.
    kernel: Option<iron3d_kernel::Kernel>,
}

/// What a match measured.
struct Measured {
    bytes_per_peer_s: f64,
    mean_latency_ms: f64,
    cpu_us_per_turn: f64,
    turns: u32,
    /// Time in the kernels' ticks and in their state hashes.
    sim: Duration,
    hash: Duration,
}

/// Runs a match of `players` for `seconds` simulated seconds: every peer orders
/// `orders_per_s` times a second; returns the figures (or why the match stalled).
fn run_match(
    players: u8,
    conditions: Conditions,
    seconds: u64,
    orders_per_s: u64,
    objects: Option<u32>,
) -> anyhow::Result<Measured> {
    let n = usize::from(players);
    let config = Config::default();
    let turn_ms = u64::from(config.turn_ticks) * 1000 / 30;
    let mut net = MemoryNet::new(n, conditions, 7);
    let mut peers: Vec<Peer> = (0..n)
        .map(|k| Peer {
            host: (k == 0).then(|| {
                Box::new(Host::new(
                    PeerIdentity::default(),
                    "host",
                    Setup {
                        players,
                        clans: vec![],
                        seed: 1,
                        mission: "BATTLE".into(),
                        config,
                    },
                ))
            }),
            client: (k > 0).then(|| {
                Box::new(Client::new(
                    PeerIdentity::default(),
                    &format!("p{k}"),
                    0xBE0C_0000 + k as u64,
                ))
            }),
            turns: 0,
            state: [0; 32],
            kernel: None,
        })
        .collect();
    if let Some(objects) = objects {
        for p in &mut peers {
            let config = iron3d_kernel::KernelConfig {
                publish_snapshots: false,
                ..iron3d_kernel::KernelConfig::default()
            };
            let mut k = crate::kernel::world(objects, config)?;
            k.add_system(Box::new(crate::kernel::Integrate))?;
            p.kernel = Some(k);
        }
    }
    let mut sim = Duration::ZERO;
    let mut hash = Duration::ZERO;
    // Orders waiting for their turn: (player-local order number, simulated ms given).
    let mut given: Vec<Vec<(u32, u64)>> = vec![Vec::new(); n];
    let mut latencies: Vec<u64> = Vec::new();
    let mut next_order = vec![0u32; n];
    let order_every_ms = 1000 / orders_per_s.max(1);
    let mut cpu = Duration::ZERO;
    let total_steps = seconds * 1000 / STEP_MS;
    let mut started_ms = None;
    for step in 0..total_steps {
        let t_ms = step * STEP_MS;
        net.advance(STEP_MS);
        let dt = Duration::from_millis(STEP_MS);
        for (k, p) in peers.iter_mut().enumerate() {
            let inbox = net.receive(k);
            let t0 = now();
            for (from, bytes) in inbox {
                if let Some(h) = p.host.as_mut() {
                    h.process_datagram(from as u64, &bytes);
                } else if let Some(c) = p.client.as_mut() {
                    c.process_datagram(&bytes);
                }
            }
            if let Some(h) = p.host.as_mut() {
                h.update(dt);
            } else if let Some(c) = p.client.as_mut() {
                c.update(dt);
            }
            cpu += t0.elapsed();
            let started = p.host.as_ref().is_some_and(|h| h.lockstep().is_some())
                || p.client.as_ref().is_some_and(|c| c.lockstep().is_some());
            if started && started_ms.is_none() {
                started_ms = Some(t_ms);
            }
            // A turn is due every turn length of simulated time.
            let due = started_ms.map_or(0, |s| (t_ms - s) / turn_ms + 1);
            while started && u64::from(p.turns) < due {
                // This turn's orders: the ones given since the last turn.
                let mut gathered = Vec::new();
                while started_ms
                    .is_some_and(|s| s + u64::from(next_order[k]) * order_every_ms <= t_ms)
                {
                    let id = next_order[k];
                    next_order[k] += 1;
                    gathered.push((
                        0,
                        WireEvent::Command {
                            code: 1,
                            arg: id as i32,
                        },
                    ));
                    given[k].push((id, t_ms));
                }
                let t0 = now();
                let turn = if let Some(h) = p.host.as_mut() {
                    h.advance(&gathered)
                } else {
                    p.client.as_mut().and_then(|c| c.advance(&gathered))
                };
                cpu += t0.elapsed();
                let Some(turn) = turn else {
                    // Not ready: the orders go back to wait for the next try.
                    next_order[k] -= gathered.len() as u32;
                    let keep = given[k].len() - gathered.len();
                    given[k].truncate(keep);
                    break;
                };
                let mut h = blake3::Hasher::new();
                h.update(&p.state);
                for (tick, records) in turn.ticks.iter().enumerate() {
                    h.update(&(turn.first_tick + tick as u64).to_le_bytes());
                    for (player, e) in records {
                        h.update(&[*player]);
                        if let WireEvent::Command { arg, .. } = e {
                            h.update(&arg.to_le_bytes());
                            // Peer 0 notes when each order of every player ran.
                            if k == 0 {
                                let owner = usize::from(*player);
                                if let Some(pos) =
                                    given[owner].iter().position(|g| g.0 == *arg as u32)
                                {
                                    let (_, at) = given[owner].remove(pos);
                                    latencies.push(t_ms - at);
                                }
                            }
                        }
                    }
                }
                p.state = *h.finalize().as_bytes();
                if let Some(k) = p.kernel.as_mut() {
                    let t0 = now();
                    for records in &turn.ticks {
                        let events: Vec<iron3d_kernel::InputEvent> = records
                            .iter()
                            .filter_map(|(_, e)| match *e {
                                WireEvent::Command { code, arg } => {
                                    Some(iron3d_kernel::InputEvent::Command { code, arg })
                                }
                                _ => None,
                            })
                            .collect();
                        k.step(&events)?;
                    }
                    let t1 = now();
                    p.state = k.state_hash().0;
                    sim += t1 - t0;
                    hash += t1.elapsed();
                }
                let t0 = now();
                if let Some(host) = p.host.as_mut() {
                    host.hash(turn.turn, last_tick(&turn), p.state);
                } else if let Some(c) = p.client.as_mut() {
                    c.hash(turn.turn, last_tick(&turn), p.state);
                }
                cpu += t0.elapsed();
                p.turns += 1;
            }
            let t0 = now();
            if let Some(h) = p.host.as_mut() {
                for (c, d) in h.datagrams_to_send() {
                    net.send(0, c as usize, &d);
                }
            } else if let Some(c) = p.client.as_mut() {
                for d in c.datagrams_to_send() {
                    net.send(k, 0, &d);
                }
            }
            cpu += t0.elapsed();
        }
    }
    let turns = peers.iter().map(|p| p.turns).min().unwrap_or(0);
    anyhow::ensure!(turns > 0, "the match never started");
    // Peers that ran as many turns as the host hold its state.
    anyhow::ensure!(
        peers
            .iter()
            .filter(|p| p.turns == peers[0].turns)
            .all(|p| p.state == peers[0].state),
        "the peers disagree after the same turns"
    );
    let mean = if latencies.is_empty() {
        0.0
    } else {
        latencies.iter().sum::<u64>() as f64 / latencies.len() as f64
    };
    Ok(Measured {
        bytes_per_peer_s: net.counters().bytes as f64 / n as f64 / seconds as f64,
        mean_latency_ms: mean,
        cpu_us_per_turn: cpu.as_secs_f64() * 1e6 / f64::from(turns.max(1)),
        turns,
        sim,
        hash,
    })
}

/// Prints the netcode figures.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let loopback = Conditions {
        latency_ms: 1,
        jitter_ms: 0,
        loss: 0.0,
        duplicate: 0.0,
    };
    let wan = Conditions {
        latency_ms: 50,
        jitter_ms: 25,
        loss: 0.02,
        duplicate: 0.0,
    };
    let two = run_match(2, loopback, 60, 5, None)?;
    writeln!(
        out,
        "bench net.bytes peers=2 orders_per_s=5 bytes_per_peer_s={:.0} turns={}",
        two.bytes_per_peer_s, two.turns
    )?;
    writeln!(
        out,
        "bench net.latency link=1ms order_to_turn_ms={:.1} turn_ms={} delay_turns={}",
        two.mean_latency_ms,
        Config::default().turn_ticks * 1000 / 30,
        Config::default().delay_turns
    )?;
    let far = run_match(2, wan, 60, 5, None)?;
    writeln!(
        out,
        "bench net.latency link=50ms+-25ms loss=2% order_to_turn_ms={:.1}",
        far.mean_latency_ms
    )?;
    writeln!(
        out,
        "bench net.cpu peers=2 netcode_us_per_turn_per_peer={:.1}",
        two.cpu_us_per_turn / 2.0
    )?;
    let eight = run_match(8, loopback, 20, 5, None)?;
    writeln!(
        out,
        "bench net.cpu peers=8 netcode_us_per_turn_all_peers={:.1} bytes_per_peer_s={:.0}",
        eight.cpu_us_per_turn, eight.bytes_per_peer_s
    )?;
    let full = run_match(8, loopback, 10, 5, Some(2000))?;
    let per_turn = |d: Duration| d.as_secs_f64() * 1e3 / f64::from(full.turns.max(1));
    let total = per_turn(full.sim + full.hash) + full.cpu_us_per_turn / 1e3;
    writeln!(
        out,
        "bench net.match peers=8 objects_per_peer=2000 turns={} ms_per_turn_all_peers={total:.2} sim_ms={:.2} hash_ms={:.2} netcode_ms={:.3} hash_share={:.3}",
        full.turns,
        per_turn(full.sim),
        per_turn(full.hash),
        full.cpu_us_per_turn / 1e3,
        per_turn(full.hash) / total.max(1e-9)
    )?;
    crate::net_plugin::run(out)?;
    Ok(())
}
