//! Matches of 2, 3 and 4 peers (a host and clients) over the in-memory network with
//! latency, jitter (reordering), loss and duplication: every peer runs the same turns
//! with the same records and reaches the same state hash at every turn. The world here
//! is a hash chain over the records each tick runs (the engine's kernel is wired to the
//! scheduler by the net plugin, next): what this checks is the netcode — admission,
//! relay, scheduling, waiting, hashes, desync reports, a player leaving — not a
//! simulation.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_net_rules::identity::{PeerIdentity, PluginId};
use iron3d_net_rules::lockstep::{Config, Desync, Turn};
use iron3d_net_rules::memory::{Conditions, MemoryNet};
use iron3d_net_rules::session::{Client, Event, Host, Setup};
use iron3d_net_rules::wire::{self, Hello, Message, Orders, WireEvent};
use std::time::Duration;

fn identity() -> PeerIdentity {
    PeerIdentity {
        engine: "iron3d 0.1.0".into(),
        data: "d1".into(),
        mods: "m1".into(),
        plugins: vec![PluginId {
            slot: "control".into(),
            name: "iron3d-control".into(),
            version: "0.1.0".into(),
        }],
    }
}

/// A world whose state is a hash chain over every record it ran, tick by tick.
struct World {
    state: [u8; 32],
    tick: u64,
}

impl World {
    fn run(&mut self, turn: &Turn) {
        for (k, records) in turn.ticks.iter().enumerate() {
            let mut h = blake3::Hasher::new();
            h.update(&self.state);
            h.update(&(turn.first_tick + k as u64).to_le_bytes());
            for (p, e) in records {
                h.update(&[*p]);
                h.update(
                    &wire::encode(&Message::Orders(Orders {
                        turn: 0,
                        player: 0,
                        events: vec![(0, *e)],
                    }))
                    .unwrap(),
                );
            }
            self.state = *h.finalize().as_bytes();
            self.tick = turn.first_tick + k as u64;
        }
    }
}

/// A bot's orders for a turn: a few records drawn from its own stream.
fn bot(seed: &mut u64, ticks: u8) -> Vec<(u8, WireEvent)> {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let n = next() % 3;
    let mut v: Vec<(u8, WireEvent)> = (0..n)
        .map(|_| {
            let r = next();
            let tick = (r % u64::from(ticks)) as u8;
            let e = if r % 2 == 0 {
                WireEvent::Key {
                    code: 65_536 + (r >> 8) as u32 % 40,
                    down: r & 4 != 0,
                }
            } else {
                WireEvent::Axis {
                    axis: 65_536 + (r >> 8) as u32 % 40,
                    value: ((r >> 16) % 200) as f32 / 100.0 - 1.0,
                }
            };
            (tick, e)
        })
        .collect();
    v.sort_by_key(|e| e.0);
    v
}

/// One peer of the test: the host (endpoint 0) or a client.
enum Peer {
    Host(Box<Host>),
    Client(Box<Client>),
}

struct Match {
    net: MemoryNet,
    peers: Vec<Peer>,
    worlds: Vec<World>,
    seeds: Vec<u64>,
    /// Per peer, the hash after each turn run.
    hashes: Vec<Vec<[u8; 32]>>,
    events: Vec<Vec<Event>>,
    /// Perturb peer `.0`'s world after tick `.1`.
    inject: Option<(usize, u64)>,
    /// Peers whose process stopped.
    gone: Vec<bool>,
    /// The turn each peer's `hashes` begin at (a rejoining peer's: its snapshot's).
    first_turn: Vec<usize>,
}

const STEP_MS: u64 = 10;

impl Match {
    fn new(players: u8, conditions: Conditions, seed: u64) -> Self {
        Self::with_spare(players, 0, conditions, seed)
    }

    /// A match of `players` with `spare` more endpoints for peers that come later.
    fn with_spare(players: u8, spare: usize, conditions: Conditions, seed: u64) -> Self {
        let n = usize::from(players);
        let host = Host::new(
            identity(),
            "host",
            Setup {
                players,
                clans: vec![],
                seed: 42,
                mission: "BATTLE".into(),
                config: Config::default(),
            },
        );
        let mut peers = Vec::new();
        peers.push(Peer::Host(Box::new(host)));
        for c in 1..n {
            let client = Client::new(identity(), &format!("bot{c}"), 0x5EED_0000 + c as u64);
            peers.push(Peer::Client(Box::new(client)));
        }
        Self {
            net: MemoryNet::new(n + spare, conditions, seed),
            peers,
            worlds: (0..n)
                .map(|_| World {
                    state: [0; 32],
                    tick: 0,
                })
                .collect(),
            seeds: (0..n as u64)
                .map(|k| 0x9E37_79B9_7F4A_7C15 ^ (k + 1))
                .collect(),
            hashes: vec![Vec::new(); n],
            events: vec![Vec::new(); n],
            inject: None,
            gone: vec![false; n],
            first_turn: vec![0; n],
        }
    }

    /// A client that comes later, on the next spare endpoint.
    fn add(&mut self, client: Client) -> usize {
        self.peers.push(Peer::Client(Box::new(client)));
        self.worlds.push(World {
            state: [0; 32],
            tick: 0,
        });
        self.seeds.push(0x1234_5678 ^ self.peers.len() as u64);
        self.hashes.push(Vec::new());
        self.events.push(Vec::new());
        self.gone.push(false);
        self.first_turn.push(0);
        self.peers.len() - 1
    }

    /// The turns peer `k` ran.
    fn turns(&self, k: usize) -> usize {
        self.first_turn[k] + self.hashes[k].len()
    }

    /// One step of `STEP_MS`: deliveries, protocol, at most one turn per peer per
    /// 100 ms of its own pace (turns it is late on are caught up two a step).
    fn step(&mut self, turn_due: bool) {
        self.net.advance(STEP_MS);
        let dt = Duration::from_millis(STEP_MS);
        for (k, peer) in self.peers.iter_mut().enumerate() {
            if self.gone[k] {
                self.net.receive(k);
                continue;
            }
            for (from, bytes) in self.net.receive(k) {
                match peer {
                    Peer::Host(h) => h.process_datagram(from as u64, &bytes),
                    Peer::Client(c) => c.process_datagram(&bytes),
                }
            }
            let ev = match peer {
                Peer::Host(h) => h.update(dt),
                Peer::Client(c) => c.update(dt),
            };
            for e in &ev {
                // A rejoining client restores the snapshot: the host's world after tick.
                if let Event::Snapshot { tick, bytes } = e {
                    self.worlds[k].state.copy_from_slice(&bytes[..32]);
                    self.worlds[k].tick = tick - 1;
                    self.first_turn[k] = (*tick / 3) as usize;
                }
            }
            self.events[k].extend(ev);
            // The host's engine hands the snapshot the rejoin waits for.
            if let Peer::Host(h) = peer {
                if let Some((_, tick)) = h.snapshot_wanted() {
                    assert_eq!(tick, self.hashes[0].len() as u64 * 3, "at a turn's end");
                    let mut bytes = self.worlds[0].state.to_vec();
                    bytes.extend_from_slice(b"and more bytes of the snapshot");
                    h.snapshot(tick, &bytes).unwrap();
                }
            }
            let done = self.first_turn[k] + self.hashes[k].len();
            let lead = self.first_turn[0] + self.hashes[0].len();
            let target = self.hashes[k].len() + usize::from(turn_due || done < lead);
            for _ in 0..2 {
                if self.hashes[k].len() >= target {
                    break;
                }
                let gathered = bot(&mut self.seeds[k], 3);
                let turn = match peer {
                    Peer::Host(h) => h.advance(&gathered),
                    Peer::Client(c) => c.advance(&gathered),
                };
                let Some(turn) = turn else {
                    // Not ready: the bot's orders wait (drawn again next time: the
                    // stream is the peer's own, so every run is the same).
                    break;
                };
                self.worlds[k].run(&turn);
                if let Some((who, tick)) = self.inject {
                    if who == k && turn.first_tick <= tick && tick <= self.worlds[k].tick {
                        self.worlds[k].state[0] ^= 1;
                    }
                }
                let w = &self.worlds[k];
                match peer {
                    Peer::Host(h) => h.hash(turn.turn, w.tick, w.state),
                    Peer::Client(c) => c.hash(turn.turn, w.tick, w.state),
                }
                self.hashes[k].push(w.state);
            }
            match peer {
                Peer::Host(h) => {
                    for (c, p) in h.datagrams_to_send() {
                        self.net.send(0, c as usize, &p);
                    }
                }
                Peer::Client(c) => {
                    for p in c.datagrams_to_send() {
                        self.net.send(k, 0, &p);
                    }
                }
            }
        }
    }

    /// Runs until every peer still playing ran `turns` turns (bounded).
    fn run(&mut self, turns: usize) {
        for step in 0..(turns as u64 * 40) {
            let due = step % 10 == 0;
            self.step(due);
            if (0..self.peers.len()).all(|k| self.gone[k] || self.turns(k) >= turns) {
                return;
            }
        }
        let done: Vec<usize> = (0..self.peers.len()).map(|k| self.turns(k)).collect();
        panic!("the match stalled: turns run per peer {done:?}");
    }

    /// The player number of endpoint `k` (the host is 0; clients by the order their
    /// hellos arrived: transport ids are not player numbers).
    fn player_of(&self, k: usize) -> u8 {
        match &self.peers[k] {
            Peer::Host(_) => 0,
            Peer::Client(c) => c.welcome().unwrap().player,
        }
    }

    fn desyncs(&self, k: usize) -> Vec<Desync> {
        self.events[k]
            .iter()
            .filter_map(|e| match e {
                Event::Desync(d) => Some(d.clone()),
                _ => None,
            })
            .collect()
    }
}

fn bad_link() -> Conditions {
    Conditions {
        latency_ms: 30,
        jitter_ms: 40,
        loss: 0.05,
        duplicate: 0.05,
    }
}

/// 2, 3 and 4 peers, 3,000 ticks (1,000 turns) over a lossy, jittery, duplicating
/// link: the same hash at every turn on every peer, and no desync reported.
#[test]
fn peers_agree_at_every_turn_over_a_bad_link() {
    for players in [2u8, 3, 4] {
        let mut m = Match::new(players, bad_link(), u64::from(players));
        m.run(1000);
        for k in 1..m.peers.len() {
            assert_eq!(
                m.hashes[k][..1000],
                m.hashes[0][..1000],
                "{players} players: peer {k} differs"
            );
        }
        for k in 0..m.peers.len() {
            assert!(
                m.desyncs(k).is_empty(),
                "{players} players: {:?}",
                m.desyncs(k)
            );
            assert!(
                !m.events[k].iter().any(|e| matches!(e, Event::Dropped(_))),
                "{players} players, peer {k}: {:?}",
                m.events[k]
            );
        }
        let c = m.net.counters();
        assert!(c.lost > 0 && c.duplicated > 0, "the link was bad: {c:?}");
    }
}

/// A peer whose world differs from tick 600 on: every peer reports the desync at the
/// turn holding that tick, naming the peer that differs.
#[test]
fn an_injected_desync_is_reported_on_every_peer() {
    let mut m = Match::new(3, bad_link(), 9);
    m.inject = Some((2, 600));
    m.run(260);
    let bad = m.player_of(2);
    for k in 0..3 {
        let d = m.desyncs(k);
        assert_eq!(d.len(), 1, "peer {k}: {d:?}");
        assert_eq!((d[0].turn, d[0].tick), (200, 602), "peer {k}");
        assert!(d[0].a.0 == bad || d[0].b.0 == bad, "peer {k}: {:?}", d[0]);
    }
}

/// Admission: a peer with other data, mods or plugins is refused with every
/// difference, on both sides, and the match does not start without it.
#[test]
fn a_peer_that_differs_is_refused_with_the_differences() {
    let mut host = Host::new(
        identity(),
        "host",
        Setup {
            players: 2,
            clans: vec![],
            seed: 1,
            mission: "BATTLE".into(),
            config: Config::default(),
        },
    );
    let mut other = identity();
    other.data = "d2".into();
    other.plugins[0].version = "0.2.0".into();
    let mut net = MemoryNet::new(3, Conditions::PERFECT, 1);
    let mut bad = Client::new(other, "stranger", 11);
    let mut alien = Client::with_hello(
        Hello {
            guid: [0; 16],
            protocol: 1,
            identity: identity(),
            name: "alien".into(),
            reserve: false,
        },
        12,
    );
    let mut host_events = Vec::new();
    for _ in 0..20 {
        net.advance(STEP_MS);
        for (from, b) in net.receive(0) {
            host.process_datagram(from as u64, &b);
        }
        for (_, b) in net.receive(1) {
            bad.process_datagram(&b);
        }
        for (_, b) in net.receive(2) {
            alien.process_datagram(&b);
        }
        host_events.extend(host.update(Duration::from_millis(STEP_MS)));
        bad.update(Duration::from_millis(STEP_MS));
        alien.update(Duration::from_millis(STEP_MS));
        for (c, p) in host.datagrams_to_send() {
            net.send(0, c as usize, &p);
        }
        for p in bad.datagrams_to_send() {
            net.send(1, 0, &p);
        }
        for p in alien.datagrams_to_send() {
            net.send(2, 0, &p);
        }
    }
    let expected = [
        "game data fingerprint: host d1, joining d2",
        "plugin in slot control: host iron3d-control 0.1.0, joining iron3d-control 0.2.0",
    ];
    assert_eq!(bad.refused().unwrap(), expected);
    assert!(alien.refused().unwrap()[0].starts_with("application: host {3C1D1F01"));
    assert!(host_events.contains(&Event::Refused {
        differences: expected.iter().map(|s| s.to_string()).collect()
    }));
    assert!(
        host.lockstep().is_none(),
        "not started without its second player"
    );
    assert!(bad.welcome().is_none());
}

/// A client that stops mid-match: the host names the turn it leaves from, everyone
/// still playing goes on past it and agrees.
#[test]
fn a_player_who_drops_out_is_not_waited_for() {
    let mut m = Match::new(3, bad_link(), 5);
    m.run(100);
    let dropped = m.player_of(2);
    m.gone[2] = true;
    if let Peer::Host(h) = &mut m.peers[0] {
        h.disconnect(2);
    }
    let before = m.hashes[0].len();
    m.run(before + 200);
    assert_eq!(m.hashes[1][..before + 200], m.hashes[0][..before + 200]);
    let left: Vec<_> = m.events[1]
        .iter()
        .filter_map(|e| match e {
            Event::Left(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0].player, dropped);
    assert!(left[0].turn as usize <= before + 3, "{left:?}");
}

/// Garbage datagrams (on a player's connection and from a stranger) and garbage
/// messages inside well-framed packets are counted and dropped; the match goes on.
#[test]
fn malformed_datagrams_and_messages_are_counted_and_dropped() {
    let mut m = Match::new(2, Conditions::PERFECT, 3);
    m.run(10);
    // A raw connection saying nonsense in valid, framed renet packets.
    let mut raw = renet::RenetClient::new(renet::ConnectionConfig::default());
    raw.set_connected();
    raw.send_message(
        renet::DefaultChannel::ReliableOrdered,
        vec![0xFFu8, 0xFF, 0x7F],
    );
    raw.send_message(renet::DefaultChannel::ReliableOrdered, vec![3u8, 1]);
    let Peer::Host(h) = &mut m.peers[0] else {
        unreachable!()
    };
    for p in raw.get_packets_to_send() {
        h.process_datagram(77, &iron3d_net_rules::frame::seal(77, &p));
    }
    // Garbage on the player's own connection: never reaches renet.
    h.process_datagram(1, &[0xAB; 40]);
    h.process_datagram(1, b"I3DN");
    m.run(40);
    let Peer::Host(h) = &m.peers[0] else {
        unreachable!()
    };
    assert_eq!(h.counters(77).malformed, 2);
    assert_eq!(h.counters(1).datagrams, 2);
    assert_eq!(m.hashes[1][..40], m.hashes[0][..40]);
}

/// Chat (`GMSG_TEXT_FOR_PLAYER`): to everyone or to one player, relayed by the host; a
/// line the wire refuses is an error to the sender and nothing is sent.
#[test]
fn chat_reaches_everyone_or_one_player() {
    let mut m = Match::new(3, bad_link(), 11);
    m.run(5);
    let to = m.player_of(2);
    let Peer::Host(h) = &mut m.peers[0] else {
        unreachable!()
    };
    h.chat(None, "gl hf").unwrap();
    assert!(h.chat(None, &"x".repeat(600)).is_err());
    let Peer::Client(c) = &mut m.peers[1] else {
        unreachable!()
    };
    assert_eq!(c.chat(Some(to), "flank left"), Ok(true));
    let from = m.player_of(1);
    m.run(30);
    let chats = |k: usize| -> Vec<(u8, Option<u8>, String)> {
        m.events[k]
            .iter()
            .filter_map(|e| match e {
                Event::Chat(c) => Some((c.from, c.to, c.text.clone())),
                _ => None,
            })
            .collect()
    };
    assert_eq!(chats(1), [(0, None, "gl hf".to_owned())]);
    assert_eq!(
        chats(2),
        [
            (0, None, "gl hf".to_owned()),
            (from, Some(to), "flank left".to_owned())
        ]
    );
    assert!(chats(0).is_empty(), "no chat was for the host");
}

/// One step of a host and its clients on `net` (endpoint 0 the host, client `k` at
/// endpoint `k + 1`; a `None` client is not running).
fn pump(
    net: &mut MemoryNet,
    host: &mut Host,
    clients: &mut [Option<Client>],
    host_events: &mut Vec<Event>,
) {
    net.advance(STEP_MS);
    for (from, b) in net.receive(0) {
        host.process_datagram(from as u64, &b);
    }
    for (k, c) in clients.iter_mut().enumerate() {
        for (_, b) in net.receive(k + 1) {
            if let Some(c) = c {
                c.process_datagram(&b);
            }
        }
    }
    host_events.extend(host.update(Duration::from_millis(STEP_MS)));
    for c in clients.iter_mut().flatten() {
        c.update(Duration::from_millis(STEP_MS));
    }
    for (c, p) in host.datagrams_to_send() {
        net.send(0, c as usize, &p);
    }
    for (k, c) in clients.iter_mut().enumerate() {
        if let Some(c) = c {
            for p in c.datagrams_to_send() {
                net.send(k + 1, 0, &p);
            }
        }
    }
}

/// PD-NET-RESERVE: a lobby hello reserves a seat and tells the match; the seat is the
/// player's when it connects again with the same key (from another endpoint), it
/// counts as taken meanwhile, and the match starts only once it is claimed.
#[test]
fn a_lobby_reserves_a_seat_for_the_key_that_claims_it() {
    let mut host = Host::new(
        identity(),
        "server",
        Setup {
            players: 3,
            clans: vec![u32::MAX, 0, 1],
            seed: 77,
            mission: "BATTLE".into(),
            config: Config::default(),
        },
    );
    let mut net = MemoryNet::new(5, Conditions::PERFECT, 1);
    let mut events = Vec::new();
    // Endpoint 1: Anna's lobby (key 21); endpoint 2: Bo plays at once (key 22).
    let mut clients = vec![
        Some(Client::reserve(identity(), "Anna", 21)),
        Some(Client::new(identity(), "Bo", 22)),
        None,
        None,
    ];
    for _ in 0..20 {
        pump(&mut net, &mut host, &mut clients, &mut events);
    }
    let r = clients[0].as_ref().unwrap().reserved().unwrap().clone();
    assert!([1, 2].contains(&r.player));
    let anna = r.player;
    assert_eq!((r.clans.clone(), r.seed), (vec![u32::MAX, 0, 1], 77));
    assert_eq!(r.mission, "BATTLE");
    assert!(events.contains(&Event::SeatReserved {
        player: anna,
        name: "Anna".into()
    }));
    assert!(events.contains(&Event::Admitted {
        player: 3 - anna,
        name: "Bo".into()
    }));
    assert!(host.lockstep().is_none(), "Anna's seat is not claimed yet");
    // A third player finds the match full: Anna's seat is taken while she loads.
    clients[2] = Some(Client::new(identity(), "Cy", 23));
    // Anna's lobby goes; she comes back from another endpoint with her key.
    clients[0].as_mut().unwrap().disconnect();
    for _ in 0..5 {
        pump(&mut net, &mut host, &mut clients, &mut events);
    }
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Dropped(w) if w.ends_with("the match is full: every seat is taken"))),
        "{events:?}"
    );
    assert_eq!(
        clients[2].as_ref().unwrap().refused().unwrap(),
        ["the match is full: every seat is taken"],
        "the client is told why"
    );
    clients[0] = None;
    clients[3] = Some(Client::new(identity(), "Anna", 21));
    for _ in 0..20 {
        pump(&mut net, &mut host, &mut clients, &mut events);
    }
    let w = clients[3].as_ref().unwrap().welcome().unwrap().clone();
    assert_eq!(w.player, anna, "her reserved seat");
    assert_eq!(
        clients[1].as_ref().unwrap().welcome().unwrap().player,
        3 - anna
    );
    assert!(clients[2].as_ref().unwrap().welcome().is_none());
    assert!(host.lockstep().is_some(), "the match started full");
}

/// PD-NET-RESERVE: a seat not claimed within the timeout is freed for someone else.
#[test]
fn an_unclaimed_reservation_expires() {
    let mut host = Host::new(
        identity(),
        "host",
        Setup {
            players: 2,
            clans: vec![],
            seed: 1,
            mission: "BATTLE".into(),
            config: Config::default(),
        },
    );
    let mut net = MemoryNet::new(3, Conditions::PERFECT, 1);
    let mut events = Vec::new();
    let mut clients = vec![Some(Client::reserve(identity(), "Anna", 31)), None];
    for _ in 0..10 {
        pump(&mut net, &mut host, &mut clients, &mut events);
    }
    assert_eq!(clients[0].as_ref().unwrap().reserved().unwrap().player, 1);
    clients[0].as_mut().unwrap().disconnect();
    pump(&mut net, &mut host, &mut clients, &mut events);
    clients[0] = None;
    events.extend(host.update(iron3d_net_rules::session::RESERVE_TIMEOUT));
    events.extend(host.update(Duration::from_millis(STEP_MS)));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Dropped(w) if w.contains("was not claimed"))),
        "{events:?}"
    );
    clients[1] = Some(Client::new(identity(), "Bo", 32));
    for _ in 0..20 {
        pump(&mut net, &mut host, &mut clients, &mut events);
    }
    assert_eq!(clients[1].as_ref().unwrap().welcome().unwrap().player, 1);
}

/// PD-NET-END: the host ends the match at its next turn; every client runs exactly the
/// turns before it (over the bad link), then no more, and all agree.
#[test]
fn the_host_ends_the_match_at_one_turn_for_everyone() {
    let mut m = Match::new(3, bad_link(), 9);
    m.run(50);
    let end = match &mut m.peers[0] {
        Peer::Host(h) => h.end("the match is over").unwrap(),
        Peer::Client(_) => unreachable!(),
    };
    assert_eq!(
        end as usize,
        m.hashes[0].len() + 2,
        "the first turn without the host's orders"
    );
    for _ in 0..400 {
        m.step(true);
    }
    for k in 0..3 {
        assert_eq!(
            m.hashes[k].len(),
            end as usize,
            "peer {k} ran up to the end"
        );
        assert_eq!(m.hashes[k], m.hashes[0], "peer {k}");
        match &m.peers[k] {
            Peer::Client(c) => {
                assert_eq!(c.ended(), Some(end));
                assert!(c.finished());
            }
            Peer::Host(h) => assert!(h.finished()),
        }
    }
}

/// PD-NET-REJOIN: a player who dropped out comes back (another endpoint, another key,
/// no lobby): the match waits for the host's snapshot, the rejoining peer restores it
/// and runs from the host's next turn, and from there every peer has the same hash at
/// every turn, over the bad link.
#[test]
fn a_player_who_left_rejoins_from_a_snapshot() {
    let mut m = Match::with_spare(3, 2, bad_link(), 21);
    m.run(100);
    let dropped = m.player_of(2);
    m.gone[2] = true;
    if let Peer::Host(h) = &mut m.peers[0] {
        h.disconnect(2);
    }
    let before = m.turns(0);
    m.run(before + 60);
    // The lobby first (another endpoint would do as well: the key claims the seat).
    let lobby = m.add(Client::reserve(identity(), "back", 0xBAC4));
    for _ in 0..30 {
        m.step(false);
    }
    let Peer::Client(l) = &mut m.peers[lobby] else {
        unreachable!()
    };
    assert_eq!(
        l.reserved().map(|r| r.player),
        Some(dropped),
        "{:?}",
        m.events[lobby]
    );
    l.disconnect();
    m.step(false);
    m.gone[lobby] = true;
    let back = m.add(Client::new(identity(), "back", 0xBAC4));
    m.run(before + 300);
    let Peer::Client(c) = &m.peers[back] else {
        unreachable!()
    };
    assert_eq!(c.welcome().unwrap().player, dropped, "the seat it had");
    let from = m.first_turn[back];
    assert!(from >= before + 60, "restored at the host's turn {from}");
    for t in from..before + 300 {
        let here = m.hashes[back][t - from];
        assert_eq!(here, m.hashes[0][t], "turn {t}: the rejoined peer");
        assert_eq!(m.hashes[1][t], m.hashes[0][t], "turn {t}: the other");
    }
    for k in [0, 1, back] {
        assert!(m.desyncs(k).is_empty(), "peer {k}: {:?}", m.desyncs(k));
    }
    // Everyone else was told.
    assert!(
        m.events[1]
            .iter()
            .any(|e| matches!(e, Event::Rejoined(r) if r.player == dropped))
    );
}

/// PD-NET-REJOIN right after a drop (FORMATS §13.15 "an ownership change updates
/// routing atomically"): the player leaves from a turn some peers have not run yet and
/// is back at once, before the host ran that turn. Every peer still runs the player's
/// last orders in the turns before the one they left from, none in the turns between,
/// and their new orders from the turn the host names: the same hash at every turn.
#[test]
fn a_player_who_rejoins_at_once_agrees_with_everyone() {
    for seed in 0..6 {
        let mut m = Match::with_spare(3, 1, bad_link(), 100 + seed);
        m.run(60);
        m.gone[2] = true;
        if let Peer::Host(h) = &mut m.peers[0] {
            h.disconnect(2);
        }
        let back = m.add(Client::new(identity(), "back", 0xBAC5 + seed));
        let before = m.turns(0);
        m.run(before + 80);
        let from = m.first_turn[back];
        for t in from..before + 80 {
            assert!(
                m.hashes[back][t - from] == m.hashes[0][t],
                "seed {seed}, turn {t}: the rejoined peer differs"
            );
        }
        let first = (0..before + 80).find(|&t| m.hashes[1][t] != m.hashes[0][t]);
        assert_eq!(
            first, None,
            "seed {seed}: the other player differs from turn"
        );
        for k in [0, 1, back] {
            assert!(
                m.desyncs(k).is_empty(),
                "seed {seed}, peer {k}: {:?}",
                m.desyncs(k)
            );
        }
    }
}
