//! The demo battle as a match (issue 40's first acceptance): 2, 3 and 4 peers in one
//! process, each a session of the demo's BATTLE with the real terrain, AI, control and
//! input plugins, wired by `iron3d-net-rules`' host and clients over the in-memory
//! network with latency, jitter (reordering), loss and duplication; every player's
//! seat driven by the bot of PD-NET-BOT (select the view, order a move), its records
//! banded as the net plugin bands them. Every peer has the same state hash at every
//! turn for 3,000 ticks, and none reports a desync.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_kernel::{ManualTimeSource, StateHash};
use iron3d_launcher::net_cli::Bot;
use iron3d_net_rules::identity::PeerIdentity;
use iron3d_net_rules::lockstep::{Config, Turn};
use iron3d_net_rules::memory::{Conditions, MemoryNet};
use iron3d_net_rules::session::{Client, Event, Host, Setup};
use iron3d_net_rules::wire::WireEvent;
use iron3d_session::Session;
use iron3d_session::net::input_event;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Ticks per match: 3,000 (1,000 turns of 3).
const TICKS: u64 = 3_000;

/// Simulated milliseconds per step of the loop.
const STEP_MS: u64 = 10;

fn session(shadow: &Path, players: u8, local: u8) -> Session {
    let seats: Vec<String> = (0..players).map(|p| (p % 2).to_string()).collect();
    let parameters = BTreeMap::from([
        ("seats".to_owned(), seats.join(",")),
        ("local-seat".to_owned(), local.to_string()),
    ]);
    iron3d_e2e::battle::session(shadow, &ManualTimeSource::new(), 9, false, parameters)
}

enum Side {
    Host(Box<Host>),
    Client(Box<Client>),
}

struct Peer {
    side: Side,
    session: Session,
    bot: Bot,
    /// The bot's records since the last turn, with their tick within a turn.
    gathered: Vec<(u8, WireEvent)>,
    /// The state hash after each turn run.
    hashes: Vec<StateHash>,
    /// Frames of the bot since the last turn.
    frames: u8,
    desyncs: usize,
}

impl Peer {
    fn run(&mut self, turn: &Turn) {
        for records in &turn.ticks {
            let events: Vec<_> = records
                .iter()
                .filter_map(|(p, e)| iron3d_net::banded(*p, e))
                .filter_map(|r| input_event(&r))
                .collect();
            self.session.kernel.step(&events).unwrap();
        }
        let h = self.session.kernel.state_hash();
        let tick = turn.first_tick + turn.ticks.len() as u64 - 1;
        match &mut self.side {
            Side::Host(x) => x.hash(turn.turn, tick, h.0),
            Side::Client(x) => x.hash(turn.turn, tick, h.0),
        }
        self.hashes.push(h);
    }
}

fn play(players: u8, seed: u64) -> Vec<Vec<StateHash>> {
    let shadow = tempfile::tempdir().unwrap();
    let conditions = Conditions {
        latency_ms: 30,
        jitter_ms: 40,
        loss: 0.05,
        duplicate: 0.05,
    };
    let mut net = MemoryNet::new(usize::from(players), conditions, seed);
    let mut peers: Vec<Peer> = (0..players)
        .map(|k| Peer {
            side: if k == 0 {
                Side::Host(Box::new(Host::new(
                    PeerIdentity::default(),
                    "host",
                    Setup {
                        players,
                        clans: (0..u32::from(players)).map(|p| p % 2).collect(),
                        seed: 9,
                        mission: iron3d_demo::BATTLE.to_owned(),
                        config: Config::default(),
                    },
                )))
            } else {
                Side::Client(Box::new(Client::new(
                    PeerIdentity::default(),
                    &format!("bot{k}"),
                    0xB07_0000 + u64::from(k),
                )))
            },
            session: session(&shadow.path().join(format!("p{k}")), players, k),
            bot: Bot::new(seed ^ (u64::from(k) + 1)),
            gathered: Vec::new(),
            hashes: Vec::new(),
            frames: 0,
            desyncs: 0,
        })
        .collect();
    let turns = (TICKS / 3) as usize;
    let mut step: u64 = 0;
    while peers.iter().any(|p| p.hashes.len() < turns) {
        step += 1;
        assert!(step < 200_000, "the match stalled");
        net.advance(STEP_MS);
        let dt = Duration::from_millis(STEP_MS);
        for (k, p) in peers.iter_mut().enumerate() {
            for (from, bytes) in net.receive(k) {
                match &mut p.side {
                    Side::Host(h) => h.process_datagram(from as u64, &bytes),
                    Side::Client(c) => c.process_datagram(&bytes),
                }
            }
            let events = match &mut p.side {
                Side::Host(h) => h.update(dt),
                Side::Client(c) => c.update(dt),
            };
            p.desyncs += events
                .iter()
                .filter(|e| matches!(e, Event::Desync(_)))
                .count();
            let started = match &p.side {
                Side::Host(h) => h.lockstep().is_some(),
                Side::Client(c) => c.lockstep().is_some(),
            };
            // The bot plays a frame every 30 ms of simulated time; a turn is due every
            // 100 ms.
            if started && step % 3 == 0 {
                let at = p.frames.min(2);
                for r in p.bot.records() {
                    if let Some(e) = iron3d_net::wire_event(&r) {
                        p.gathered.push((at, e));
                    }
                }
                p.frames = p.frames.saturating_add(1);
            }
            if started && step % 10 == 0 && p.hashes.len() < turns {
                let gathered = std::mem::take(&mut p.gathered);
                let turn = match &mut p.side {
                    Side::Host(h) => h.advance(&gathered),
                    Side::Client(c) => c.advance(&gathered),
                };
                match turn {
                    Some(turn) => {
                        p.frames = 0;
                        p.run(&turn);
                    }
                    None => p.gathered = gathered,
                }
            }
            match &mut p.side {
                Side::Host(h) => {
                    for (c, d) in h.datagrams_to_send() {
                        net.send(0, c as usize, &d);
                    }
                }
                Side::Client(c) => {
                    for d in c.datagrams_to_send() {
                        net.send(k, 0, &d);
                    }
                }
            }
        }
    }
    for (k, p) in peers.iter().enumerate() {
        assert_eq!(p.desyncs, 0, "peer {k} saw a desync");
    }
    let hashes: Vec<Vec<StateHash>> = peers.into_iter().map(|p| p.hashes).collect();
    hashes
}

#[test]
fn two_three_and_four_peers_agree_at_every_turn_of_the_battle() {
    for players in [2u8, 3, 4] {
        let hashes = play(players, 40 + u64::from(players));
        for (k, h) in hashes.iter().enumerate() {
            assert_eq!(h.len(), hashes[0].len(), "peer {k} of {players}");
            for (t, (a, b)) in h.iter().zip(&hashes[0]).enumerate() {
                assert_eq!(a, b, "{players} peers: peer {k} differs after turn {t}");
            }
        }
        // The world moved: the battle is not standing still.
        assert_ne!(hashes[0][10], hashes[0][999], "{players} peers");
    }
}
