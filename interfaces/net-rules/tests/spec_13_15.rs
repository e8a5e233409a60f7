//! The network rules of FORMATS §13.15 (tome VI "Проверки сети") as they hold in our
//! input lockstep, checked across the crate's modules — the host, clients, the wire,
//! the framing and the in-memory network together. `SPEC-13-15.md` beside this crate
//! maps every message and rule of the section to its test; these are the ones that need
//! more than one module.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_net_rules::frame;
use iron3d_net_rules::identity::PeerIdentity;
use iron3d_net_rules::lockstep::{Config, Turn};
use iron3d_net_rules::memory::{Conditions, MemoryNet};
use iron3d_net_rules::session::{Client, Event, Host, Setup};
use iron3d_net_rules::wire::{self, Chat, Hello, Message, Orders, TurnHash, WireEvent};
use renet::{ConnectionConfig, DefaultChannel, RenetClient, RenetServer};
use std::collections::BTreeMap;
use std::time::Duration;

const STEP_MS: u64 = 10;

fn identity() -> PeerIdentity {
    PeerIdentity {
        engine: "iron3d 0.1.0".into(),
        data: "d1".into(),
        mods: "m1".into(),
        plugins: vec![],
    }
}

fn setup(players: u8) -> Setup {
    Setup {
        players,
        clans: vec![],
        seed: 7,
        mission: "BATTLE".into(),
        config: Config::default(),
    }
}

/// The code of the marker record peer `k` gives with its `n`-th turn of orders.
fn code(k: usize, n: u32) -> u32 {
    65_536 + 10_000 * k as u32 + n
}

/// The marker record peer `k` gives with its `n`-th turn of orders.
fn marker(k: usize, n: u32) -> WireEvent {
    WireEvent::Key {
        code: code(k, n),
        down: true,
    }
}

/// A host (endpoint 0) and clients (client `k` at endpoint `k + 1`, named by the host
/// with the transport id `ids[k]`), each giving one marker record per turn.
struct Table {
    net: MemoryNet,
    host: Host,
    clients: Vec<Client>,
    ids: Vec<u64>,
    /// Per peer (0 the host, `k + 1` client `k`): the turns run and the events.
    turns: Vec<Vec<Turn>>,
    events: Vec<Vec<Event>>,
    /// Per peer: the orders given so far.
    given: Vec<u32>,
    /// Client 0's datagrams to the host, as sent.
    sent_by_first: Vec<Vec<u8>>,
}

impl Table {
    fn new(players: u8, ids: &[u64], conditions: Conditions, seed: u64) -> Self {
        let n = usize::from(players) - 1;
        assert_eq!(ids.len(), n);
        Self {
            net: MemoryNet::new(n + 1, conditions, seed),
            host: Host::new(identity(), "host", setup(players)),
            clients: (0..n)
                .map(|k| Client::new(identity(), &format!("p{k}"), 0xC0DE_0000 + k as u64))
                .collect(),
            ids: ids.to_vec(),
            turns: vec![Vec::new(); n + 1],
            events: vec![Vec::new(); n + 1],
            given: vec![0; n + 1],
            sent_by_first: Vec::new(),
        }
    }

    fn endpoint_of(&self, id: u64) -> usize {
        1 + self.ids.iter().position(|&i| i == id).unwrap()
    }

    /// One step: deliveries, protocol, at most one turn per peer.
    fn step(&mut self) {
        self.net.advance(STEP_MS);
        let dt = Duration::from_millis(STEP_MS);
        for (from, bytes) in self.net.receive(0) {
            self.host.process_datagram(self.ids[from - 1], &bytes);
        }
        for (k, c) in self.clients.iter_mut().enumerate() {
            for (_, bytes) in self.net.receive(k + 1) {
                c.process_datagram(&bytes);
            }
        }
        self.events[0].extend(self.host.update(dt));
        for (k, c) in self.clients.iter_mut().enumerate() {
            self.events[k + 1].extend(c.update(dt));
        }
        for p in 0..self.turns.len() {
            let gathered = [(0u8, marker(p, self.given[p]))];
            let turn = if p == 0 {
                self.host.advance(&gathered)
            } else {
                self.clients[p - 1].advance(&gathered)
            };
            if let Some(t) = turn {
                self.given[p] += 1;
                self.turns[p].push(t);
            }
        }
        for (id, d) in self.host.datagrams_to_send() {
            let to = self.endpoint_of(id);
            self.net.send(0, to, &d);
        }
        for (k, c) in self.clients.iter_mut().enumerate() {
            for d in c.datagrams_to_send() {
                if k == 0 {
                    self.sent_by_first.push(d.clone());
                }
                self.net.send(k + 1, 0, &d);
            }
        }
    }

    /// Steps until every peer ran `n` turns (bounded).
    fn run(&mut self, n: usize) {
        for _ in 0..n * 100 {
            if self.turns.iter().all(|t| t.len() >= n) {
                return;
            }
            self.step();
        }
        let done: Vec<usize> = self.turns.iter().map(Vec::len).collect();
        panic!("stalled: turns per peer {done:?}");
    }

    /// The player number of peer `p` (0 the host).
    fn player(&self, p: usize) -> u8 {
        if p == 0 {
            0
        } else {
            self.clients[p - 1].welcome().unwrap().player
        }
    }

    /// Every peer ran the same turns, in sequence, and every marker of the first `n`
    /// turns ran exactly once, in the turn `delay` after the one it was given with.
    fn check_once(&self, n: usize) {
        let delay = Config::default().delay_turns;
        for (p, turns) in self.turns.iter().enumerate() {
            assert_eq!(turns[..n], self.turns[0][..n], "peer {p} ran other turns");
            for (k, t) in turns[..n].iter().enumerate() {
                assert_eq!(t.turn as usize, k, "peer {p}: turns in sequence");
            }
        }
        let mut seen: BTreeMap<(u8, u32), Vec<u32>> = BTreeMap::new();
        for t in &self.turns[0][..n] {
            for (player, e) in t.ticks.iter().flatten() {
                let WireEvent::Key { code, .. } = e else {
                    panic!("turn {}: a record nobody gave: {e:?}", t.turn)
                };
                seen.entry((*player, *code)).or_default().push(t.turn);
            }
        }
        for p in 0..self.turns.len() {
            for g in 0..(n as u32).saturating_sub(delay) {
                assert_eq!(
                    seen.get(&(self.player(p), code(p, g))),
                    Some(&vec![g + delay]),
                    "peer {p}'s orders {g}"
                );
            }
        }
        let expected = self.turns.len() * (n - delay as usize);
        assert_eq!(seen.len(), expected, "no record besides the markers");
    }
}

/// FORMATS §13.15 "a duplicate create-mirror never makes a second instance", in
/// lockstep: over a link that delivers every datagram twice and reorders them, every
/// player's orders run exactly once, in the turn they were scheduled for, on every
/// peer.
#[test]
fn a_duplicating_reordering_link_runs_every_order_once() {
    let link = Conditions {
        latency_ms: 20,
        jitter_ms: 60,
        loss: 0.02,
        duplicate: 1.0,
    };
    let mut t = Table::new(3, &[1, 2], link, 5);
    t.run(120);
    t.check_once(120);
    let c = t.net.counters();
    assert_eq!(
        c.duplicated,
        c.sent - c.lost,
        "every datagram came twice: {c:?}"
    );
}

/// The same, with a replay: the first client's datagrams of the match's first second
/// are sent to the host again a second later (an old copy, or a replay on the path).
/// Nothing runs twice, nothing is lost, the match goes on.
#[test]
fn a_replayed_datagram_runs_nothing_twice() {
    let link = Conditions {
        latency_ms: 15,
        jitter_ms: 10,
        loss: 0.0,
        duplicate: 0.0,
    };
    let mut t = Table::new(3, &[1, 2], link, 9);
    t.run(10);
    let old = t.sent_by_first.clone();
    assert!(old.len() > 10);
    t.run(40);
    for d in &old {
        t.net.send(1, 0, d);
    }
    t.run(100);
    t.check_once(100);
    let rejected: u64 = t.ids.iter().map(|&id| t.host.counters(id).rejected).sum();
    assert_eq!(rejected, 0, "renet took the copies for what they are");
}

/// FORMATS §13.15 "transport IDs are not object IDs" (and `SYSMSG_SET_PLAYER_NUMBER`):
/// the host numbers players in the order their hellos arrive, whatever transport ids
/// name them, and a datagram of one connection arriving under another's transport id
/// is refused by the framing, never read as that player's.
#[test]
fn transport_ids_are_not_player_numbers() {
    let mut t = Table::new(3, &[40, 7], Conditions::PERFECT, 1);
    t.run(3);
    assert_eq!(t.clients[0].welcome().unwrap().player, 1, "transport id 40");
    assert_eq!(t.clients[1].welcome().unwrap().player, 2, "transport id 7");
    assert!(t.events[0].contains(&Event::Admitted {
        player: 1,
        name: "p0".into()
    }));
    let theirs = t.sent_by_first.last().unwrap().clone();
    t.host.process_datagram(7, &theirs);
    assert_eq!(t.host.counters(7).datagrams, 1);
    let events = t.host.update(Duration::ZERO);
    assert!(
        events.iter().any(
            |e| matches!(e, Event::Dropped(w) if w == "client 7: datagram for another connection")
        ),
        "{events:?}"
    );
    t.run(30);
    t.check_once(30);
}

/// Sends `m` on a raw renet connection of the host under transport id `id`, key `key`.
fn raw_send(host: &mut Host, raw: &mut RenetClient, id: u64, key: u64, m: &Message) {
    raw.send_message(DefaultChannel::ReliableOrdered, wire::encode(m).unwrap());
    for p in raw.get_packets_to_send() {
        host.process_datagram(id, &frame::seal(key, &p));
    }
}

/// FORMATS §13.15 "an ownership change updates routing atomically" — in lockstep the
/// routing is who speaks for a seat (PD-NET-STAR): orders, hashes and chat in another
/// player's name are dropped and counted, and that player's own orders are the ones
/// held.
#[test]
fn a_message_in_another_players_name_is_dropped() {
    let mut host = Host::new(identity(), "host", setup(3));
    let mut net = MemoryNet::new(2, Conditions::PERFECT, 1);
    let mut client = Client::new(identity(), "real", 0xAA);
    let mut raw = RenetClient::new(ConnectionConfig::default());
    raw.set_connected();
    let hello = Message::Hello(Hello {
        guid: iron3d_net_rules::APPLICATION_GUID,
        protocol: iron3d_net_rules::PROTOCOL_VERSION,
        identity: identity(),
        name: "forger".into(),
        reserve: false,
    });
    raw_send(&mut host, &mut raw, 9, 0xBB, &hello);
    let dt = Duration::from_millis(STEP_MS);
    let mut given = Vec::new();
    for step in 0..40 {
        net.advance(STEP_MS);
        for (_, d) in net.receive(0) {
            host.process_datagram(1, &d);
        }
        for (_, d) in net.receive(1) {
            client.process_datagram(&d);
        }
        host.update(dt);
        client.update(dt);
        if step == 10 {
            let real = client.welcome().unwrap().player;
            assert_eq!(real, 2, "the forger said hello first");
            let forged = [
                Message::Orders(Orders {
                    turn: 2,
                    player: real,
                    events: vec![(0, marker(9, 9))],
                }),
                Message::TurnHash(TurnHash {
                    turn: 0,
                    player: real,
                    tick: 2,
                    hash: [9; 32],
                }),
                Message::Chat(Chat {
                    from: real,
                    to: None,
                    text: "not me".into(),
                }),
            ];
            for m in &forged {
                raw_send(&mut host, &mut raw, 9, 0xBB, m);
            }
        }
        if step >= 12 && given.len() < 2 {
            let g = [(0u8, marker(2, given.len() as u32))];
            if client.advance(&g).is_some() {
                given.push(g[0]);
            }
        }
        for (_, d) in host.datagrams_to_send() {
            net.send(0, 1, &d);
        }
        for d in client.datagrams_to_send() {
            net.send(1, 0, &d);
        }
    }
    let events = host.update(dt);
    assert_eq!(host.counters(9).refused, 3, "{events:?}");
    assert_eq!(host.counters(1).rejected, 0);
    let held = host.lockstep().unwrap().held_orders(0);
    let of_real: Vec<&Orders> = held.iter().filter(|o| o.player == 2).collect();
    assert_eq!(of_real.len(), 2, "{held:?}");
    assert_eq!(of_real[0].turn, 2);
    assert_eq!(
        of_real[0].events,
        [given[0]],
        "the real orders, not the forged"
    );
    assert_eq!(
        host.lockstep().unwrap().desync(),
        None,
        "the forged hash was not taken"
    );
}

/// `GMSG_TEXT_FOR_PLAYER`: a line for one player reaches that player only — not the
/// host, not the other clients — and a line for the host reaches the host only.
#[test]
fn a_text_for_one_player_reaches_only_that_player() {
    let mut t = Table::new(4, &[1, 2, 3], Conditions::PERFECT, 3);
    t.run(3);
    let (p1, p2, p3) = (t.player(1), t.player(2), t.player(3));
    assert_eq!(t.clients[0].chat(Some(p3), "to three"), Ok(true));
    assert_eq!(t.clients[2].chat(Some(0), "to the host"), Ok(true));
    t.host.chat(Some(p2), "to two").unwrap();
    t.run(20);
    let chats = |p: usize| -> Vec<(u8, Option<u8>, String)> {
        t.events[p]
            .iter()
            .filter_map(|e| match e {
                Event::Chat(c) => Some((c.from, c.to, c.text.clone())),
                _ => None,
            })
            .collect()
    };
    assert_eq!(chats(0), [(p3, Some(0), "to the host".to_owned())]);
    assert_eq!(chats(1), []);
    assert_eq!(chats(2), [(0, Some(p2), "to two".to_owned())]);
    assert_eq!(chats(3), [(p1, Some(p3), "to three".to_owned())]);
}

/// FORMATS §13.15 "no queue with an active network and player ID 0" and "session and
/// player calls before enable/setup return errors": before the match a host and a
/// client have no scheduler; every call that needs one refuses (`None`, `Ok(false)`,
/// `Err`) instead of panicking or acting as player 0; orders and hashes that reach a
/// client before it has its player number are dropped and counted.
#[test]
fn calls_before_the_match_are_refused() {
    let mut host = Host::new(identity(), "host", setup(2));
    assert!(host.lockstep().is_none());
    assert_eq!(host.advance(&[(0, marker(0, 0))]), None);
    assert_eq!(host.end("no match yet"), None);
    assert_eq!(host.ended(), None);
    assert_eq!(host.snapshot_wanted(), None);
    assert_eq!(host.snapshot(0, b"x"), Err("no player is rejoining".into()));
    assert!(!host.finished());
    host.hash(0, 2, [1; 32]);
    assert!(host.datagrams_to_send().is_empty(), "nobody to send to");
    assert!(host.update(Duration::ZERO).is_empty());

    let key = 0x5EED;
    let mut client = Client::new(identity(), "early", key);
    assert!(client.lockstep().is_none());
    assert_eq!(client.advance(&[(0, marker(1, 0))]), None);
    assert_eq!(client.chat(None, "hi"), Ok(false));
    assert_eq!(client.report(1, vec![1]), Ok(false));
    client.hash(0, 2, [1; 32]);
    assert!(!client.finished());
    assert_eq!(client.ended(), None);
    // A "host" that sends orders and a hash before any welcome.
    let mut server = RenetServer::new(ConnectionConfig::default());
    server.add_connection(1);
    for m in [
        Message::Orders(Orders {
            turn: 2,
            player: 0,
            events: vec![],
        }),
        Message::TurnHash(TurnHash {
            turn: 0,
            player: 0,
            tick: 2,
            hash: [0; 32],
        }),
    ] {
        server.send_message(
            1,
            DefaultChannel::ReliableOrdered,
            wire::encode(&m).unwrap(),
        );
    }
    for p in server.get_packets_to_send(1).unwrap() {
        client.process_datagram(&frame::seal(key, &p));
    }
    let events = client.update(Duration::ZERO);
    assert_eq!(client.counters().refused, 2, "{events:?}");
    assert!(events.contains(&Event::Dropped("host: orders before the match".into())));
    assert!(client.lockstep().is_none(), "still no scheduler");
}
