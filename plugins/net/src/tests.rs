//! The plugin over the loopback interface (127.0.0.1 only), in one process: a server or
//! a hosting player and joining players, each driven by a stand-in engine that runs
//! exactly the ticks handed to it and hashes what it ran.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use iron3d_abi::abi_stable::std_types::RString;
use iron3d_abi::{NetHash, NetPluginId};

fn identity() -> NetIdentity {
    NetIdentity {
        engine: "iron3d test".into(),
        data: "d".into(),
        mods: "m".into(),
        plugins: RVec::from(vec![NetPluginId {
            slot: "ai".into(),
            name: "iron3d-ai".into(),
            version: "1".into(),
        }]),
    }
}

fn hosting(role: NetRole, players: u32) -> NetStart {
    NetStart {
        role,
        address: "127.0.0.1:0".into(),
        name: "host".into(),
        key: 0,
        players,
        clans: RVec::from(vec![u32::MAX, 0, 1]),
        seed: 99,
        mission: "BATTLE".into(),
        turn_ticks: 0,
        delay_turns: 0,
        identity: identity(),
    }
}

fn joining(role: NetRole, at: &str, key: u64) -> NetStart {
    NetStart {
        role,
        address: RString::from(at),
        name: format!("p{key}").as_str().into(),
        key,
        players: 0,
        clans: RVec::new(),
        seed: 0,
        mission: RString::new(),
        turn_ticks: 0,
        delay_turns: 0,
        identity: identity(),
    }
}

/// A stand-in engine: runs the ticks handed, a hash chain over their records.
struct Engine {
    net: NetPlugin,
    tick: u64,
    state: [u8; 32],
    hashes: Vec<NetHash>,
    /// The records of every tick run.
    ran: Vec<Vec<InputRecord>>,
    /// `(tick, hash)` after each turn.
    turn_hashes: Vec<(u64, [u8; 32])>,
    events: Vec<NetEvent>,
    state_now: NetState,
    reservation: Option<NetReservation>,
    /// What the local player does, by frame.
    script: Box<dyn FnMut(u64) -> Vec<InputRecord>>,
    frame: u64,
    end: bool,
    /// The snapshot asked for (host) and not yet handed.
    wanted: Option<u64>,
}

impl Engine {
    fn new(start: &NetStart) -> Self {
        let mut net = NetPlugin::default();
        net.start(start).unwrap();
        Self {
            net,
            tick: 0,
            state: [0; 32],
            hashes: Vec::new(),
            ran: Vec::new(),
            turn_hashes: Vec::new(),
            events: Vec::new(),
            state_now: NetState::WAITING,
            reservation: None,
            script: Box::new(|_| Vec::new()),
            frame: 0,
            end: false,
            wanted: None,
        }
    }

    /// One frame at `now_ns`.
    fn frame(&mut self, now_ns: u64) {
        self.frame += 1;
        let snapshot = match self.wanted {
            Some(t) if t == self.tick => {
                self.wanted = None;
                let mut b = self.state.to_vec();
                b.extend_from_slice(&self.tick.to_le_bytes());
                b
            }
            _ => Vec::new(),
        };
        let report = self
            .net
            .exchange(&NetFrame {
                now_ns,
                tick: self.tick,
                end: self.end,
                local: RVec::from((self.script)(self.frame)),
                hashes: RVec::from(std::mem::take(&mut self.hashes)),
                say: RString::new(),
                say_to: -1,
                report: RVec::new(),
                report_tick: 0,
                snapshot_tick: if snapshot.is_empty() { 0 } else { self.tick },
                snapshot: RVec::from(snapshot),
            })
            .unwrap();
        self.state_now = report.state;
        for e in report.events.iter() {
            if e.kind == NetEventKind::SNAPSHOT_WANTED {
                self.wanted = Some(e.tick);
            }
        }
        if let ROption::RSome(s) = &report.snapshot {
            self.state.copy_from_slice(&s.bytes[..32]);
            self.tick = s.tick;
        }
        self.events.extend(report.events.iter().cloned());
        if let ROption::RSome(r) = &report.reservation {
            self.reservation = Some(r.clone());
        }
        for t in report.ticks.iter() {
            assert_eq!(t.tick, self.tick + 1, "ticks in order, no gap");
            let mut h = blake3::Hasher::new();
            h.update(&self.state);
            for r in t.records.iter() {
                h.update(&r.kind.0.to_le_bytes());
                h.update(&r.code.to_le_bytes());
                h.update(&r.value.to_le_bytes());
                h.update(&r.arg.to_le_bytes());
            }
            self.state = *h.finalize().as_bytes();
            self.tick = t.tick;
            self.ran.push(t.records.to_vec());
            if t.hash {
                self.hashes.push(NetHash {
                    tick: t.tick,
                    hash: self.state,
                });
                self.turn_hashes.push((t.tick, self.state));
            }
        }
    }

    fn listening(&self) -> String {
        self.events
            .iter()
            .find(|e| e.kind == NetEventKind::LISTENING)
            .map(|e| e.text.to_string())
            .unwrap()
    }

    fn kinds(&self, kind: NetEventKind) -> Vec<&NetEvent> {
        self.events.iter().filter(|e| e.kind == kind).collect()
    }
}

/// Frames of all engines, 5 ms of real time apart (the sockets are real).
fn frames(
    engines: &mut [&mut Engine],
    clock: &mut u64,
    n: usize,
    until: impl Fn(&[&mut Engine]) -> bool,
) {
    for _ in 0..n {
        *clock += 33_333_333;
        for e in engines.iter_mut() {
            e.frame(*clock);
        }
        if until(engines) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("not reached in {n} frames");
}

fn key(code: u32, down: bool) -> InputRecord {
    InputRecord::key(code, down)
}

/// A dedicated server and two players who reserve their seats in the lobby, then
/// join with the same keys: the match starts, every peer runs the same ticks with the
/// same records (each player's in its band, the server's seat silent), the hashes
/// agree, and the server's end stops everyone at the same tick.
#[test]
fn a_served_match_over_loopback_runs_the_same_ticks_everywhere() {
    let mut clock = 0u64;
    let mut server = Engine::new(&hosting(NetRole::SERVE, 3));
    server.frame(clock);
    let at = server.listening();
    assert!(at.starts_with("127.0.0.1:"), "{at}");
    // The lobby.
    let mut lobby_a = Engine::new(&joining(NetRole::RESERVE, &at, 0xA));
    let mut lobby_b = Engine::new(&joining(NetRole::RESERVE, &at, 0xB));
    frames(
        &mut [&mut server, &mut lobby_a, &mut lobby_b],
        &mut clock,
        500,
        |e| e[1].reservation.is_some() && e[2].reservation.is_some(),
    );
    let (ra, rb) = (
        lobby_a.reservation.clone().unwrap(),
        lobby_b.reservation.clone().unwrap(),
    );
    assert_eq!(lobby_a.state_now, NetState::RESERVED);
    assert_eq!(
        (ra.seed, ra.mission.as_str(), ra.clans.to_vec()),
        (99, "BATTLE", vec![u32::MAX, 0, 1])
    );
    let mut seats = [ra.player, rb.player];
    seats.sort_unstable();
    assert_eq!(seats, [1, 2]);
    lobby_a.net.shutdown();
    lobby_b.net.shutdown();
    // The match: both claim their seats with their keys.
    let mut a = Engine::new(&joining(NetRole::JOIN, &at, 0xA));
    let mut b = Engine::new(&joining(NetRole::JOIN, &at, 0xB));
    a.script = Box::new(|f| {
        if f % 7 == 0 {
            vec![key(0x1_0005, f % 14 == 0)]
        } else {
            vec![]
        }
    });
    b.script = Box::new(|f| {
        if f % 5 == 0 {
            vec![InputRecord::axis(0x1_0020, 0.5)]
        } else {
            vec![]
        }
    });
    frames(&mut [&mut server, &mut a, &mut b], &mut clock, 2000, |e| {
        e.iter().all(|x| x.tick >= 300)
    });
    assert_eq!(a.net.peer.as_ref().unwrap().player(), ra.player);
    assert_eq!(server.state_now, NetState::PLAYING);
    // The end.
    server.end = true;
    frames(&mut [&mut server, &mut a, &mut b], &mut clock, 2000, |e| {
        e.iter().all(|x| x.state_now == NetState::ENDED)
    });
    let end = server.tick;
    assert_eq!(
        (a.tick, b.tick),
        (end, end),
        "everyone stops at the same tick"
    );
    assert_eq!(end % 3, 0, "at a turn's end");
    assert_eq!(a.turn_hashes, server.turn_hashes);
    assert_eq!(b.turn_hashes, server.turn_hashes);
    assert_eq!(a.ran, server.ran);
    // Bands: player p's codes are p × SEAT_BAND above player 0's; the server gave none.
    let band = |p: u32| p * iron3d_input::SEAT_BAND;
    let all: Vec<&InputRecord> = server.ran.iter().flatten().collect();
    assert!(all.iter().any(|r| r.code == band(ra.player) + 0x1_0005));
    assert!(all.iter().any(|r| r.code == band(rb.player) + 0x1_0020));
    assert!(
        all.iter().all(|r| r.code >= iron3d_input::SEAT_BAND),
        "no record of seat 0"
    );
    assert!(server.kinds(NetEventKind::DESYNC).is_empty());
    assert_eq!(a.kinds(NetEventKind::STARTED).len(), 1);
}

/// A hosting player's own records run in band 0; a client that never hears from
/// its host gives up with the reason.
#[test]
fn a_hosting_player_plays_seat_zero_and_a_silent_host_fails_the_join() {
    let mut clock = 0u64;
    let mut host = Engine::new(&hosting(NetRole::HOST, 2));
    host.frame(clock);
    let at = host.listening();
    host.script = Box::new(|f| {
        if f % 4 == 0 {
            vec![key(0x1_0001, true)]
        } else {
            vec![]
        }
    });
    let mut c = Engine::new(&joining(NetRole::JOIN, &at, 7));
    frames(&mut [&mut host, &mut c], &mut clock, 2000, |e| {
        e.iter().all(|x| x.tick >= 60)
    });
    assert!(host.ran.iter().flatten().any(|r| r.code == 0x1_0001));
    let common = host.turn_hashes.len().min(c.turn_hashes.len());
    assert_eq!(host.turn_hashes[..common], c.turn_hashes[..common]);

    // Nobody listens on this port (the host's socket is bound, and we never read it
    // for the stray client: any answer would come from it alone).
    let silent = udp::Udp::bind("127.0.0.1:0").unwrap();
    let nobody = silent.local_addr().unwrap().to_string();
    let mut lost = Engine::new(&joining(NetRole::JOIN, &nobody, 8));
    lost.frame(0);
    lost.frame(CONNECT_TIMEOUT_NS + 1);
    assert_eq!(lost.state_now, NetState::ENDED);
    assert!(
        lost.kinds(NetEventKind::ENDED)[0]
            .text
            .contains("no answer from the host"),
        "{:?}",
        lost.events
    );
}

/// PD-NET-SWAP: in a match the state says so and another instance refuses it (the
/// swap is refused, the match goes on); before a match any instance takes it.
#[test]
fn a_match_in_progress_is_not_handed_over() {
    let idle = NetPlugin::default();
    let blob = idle.save_state().unwrap();
    assert!(NetPlugin::default().restore_state(&blob).is_ok());
    let live = StateBlob::empty(FORMAT, IN_MATCH);
    let e = NetPlugin::default().restore_state(&live).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BAD_STATE);
    assert!(e.message.contains("PD-NET-SWAP"));
}

/// Bad starts are named errors, and nothing runs before a start.
#[test]
fn bad_starts_are_named() {
    let mut p = NetPlugin::default();
    let e = p
        .exchange(&NetFrame {
            now_ns: 0,
            tick: 0,
            end: false,
            local: RVec::new(),
            hashes: RVec::new(),
            say: RString::new(),
            say_to: -1,
            report: RVec::new(),
            report_tick: 0,
            snapshot: RVec::new(),
            snapshot_tick: 0,
        })
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::FORBIDDEN);
    let mut s = hosting(NetRole::HOST, 1);
    assert!(p.start(&s).unwrap_err().message.contains("players 1"));
    s.players = 2;
    s.address = "nowhere".into();
    assert!(p.start(&s).unwrap_err().message.contains("\"nowhere\""));
    let mut j = joining(NetRole::JOIN, "127.0.0.1:9", 1);
    j.role = NetRole(99);
    assert!(p.start(&j).unwrap_err().message.contains("unknown role 99"));
    assert!(
        banded(
            1,
            &WireEvent::Key {
                code: iron3d_input::SEAT_BAND,
                down: true
            }
        )
        .is_none()
    );
}

/// PD-NET-REJOIN through the plugin: a player whose process died (no goodbye) is dropped
/// after the silence timeout; a new process reserves the seat in the lobby, joins with
/// the key, restores the host's snapshot and plays on: every peer ends at the same tick
/// with the same hashes for every turn after the rejoin.
#[test]
fn a_dead_player_is_dropped_and_a_new_process_rejoins_its_seat() {
    let mut clock = 0u64;
    let mut server = Engine::new(&hosting(NetRole::SERVE, 3));
    server.frame(clock);
    let at = server.listening();
    let mut a = Engine::new(&joining(NetRole::JOIN, &at, 0xA));
    let mut b = Engine::new(&joining(NetRole::JOIN, &at, 0xB));
    frames(&mut [&mut server, &mut a, &mut b], &mut clock, 2000, |e| {
        e.iter().all(|x| x.tick >= 90)
    });
    let gone = b.net.peer.as_ref().unwrap().player();
    drop(b); // the process died: no goodbye
    frames(&mut [&mut server, &mut a], &mut clock, 2000, |e| {
        e[0].kinds(NetEventKind::LEFT).len() == 1
    });
    assert_eq!(server.kinds(NetEventKind::LEFT)[0].player, gone);
    // The lobby, then the match with the same key.
    let mut lobby = Engine::new(&joining(NetRole::RESERVE, &at, 0xC));
    frames(
        &mut [&mut server, &mut a, &mut lobby],
        &mut clock,
        500,
        |e| e[2].reservation.is_some(),
    );
    assert_eq!(lobby.reservation.as_ref().unwrap().player, gone);
    lobby.net.shutdown();
    drop(lobby);
    let mut c = Engine::new(&joining(NetRole::JOIN, &at, 0xC));
    frames(&mut [&mut server, &mut a, &mut c], &mut clock, 3000, |e| {
        e[2].tick >= e[0].tick.min(400) && e[2].tick >= 300
    });
    assert_eq!(server.kinds(NetEventKind::SNAPSHOT_WANTED).len(), 1);
    server.end = true;
    frames(&mut [&mut server, &mut a, &mut c], &mut clock, 3000, |e| {
        e.iter().all(|x| x.state_now == NetState::ENDED)
    });
    assert_eq!((a.tick, c.tick), (server.tick, server.tick));
    let first = c.turn_hashes[0].0;
    let tail = |e: &Engine| -> Vec<(u64, [u8; 32])> {
        e.turn_hashes
            .iter()
            .filter(|h| h.0 >= first)
            .copied()
            .collect()
    };
    assert_eq!(tail(&c), tail(&server));
    assert_eq!(tail(&a), tail(&server));
    assert!(server.kinds(NetEventKind::DESYNC).is_empty());
    assert_eq!(a.kinds(NetEventKind::REJOINED)[0].player, gone);
}

/// FORMATS §13.15 "session and player calls before enable/setup return errors" and "no
/// queue with an active network and player ID 0": a second start is refused (the first
/// match goes on), and a joining peer that has no player number yet — it reports 0,
/// the host's, until the welcome — gathers no orders and hands the engine no tick,
/// whatever its seat does.
#[test]
fn a_second_start_is_refused_and_no_orders_go_out_before_a_player_number() {
    let mut host = Engine::new(&hosting(NetRole::HOST, 2));
    let e = host.net.start(&hosting(NetRole::HOST, 2)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::FORBIDDEN);
    assert!(e.message.contains("already started"), "{}", e.message);
    host.frame(0);
    assert!(host.listening().starts_with("127.0.0.1:"));

    let silent = udp::Udp::bind("127.0.0.1:0").unwrap();
    let nobody = silent.local_addr().unwrap().to_string();
    let mut early = Engine::new(&joining(NetRole::JOIN, &nobody, 3));
    early.script = Box::new(|_| vec![key(0x1_0001, true), InputRecord::command(4, 1)]);
    for f in 0..30 {
        early.frame(f * 33_333_333);
    }
    assert_eq!(early.state_now, NetState::WAITING);
    assert!(early.ran.is_empty(), "no tick without a match");
    let peer = early.net.peer.as_ref().unwrap();
    assert!(!peer.playing());
    assert!(
        peer.gathered.is_empty(),
        "no orders gathered without a number"
    );
    assert_eq!(peer.handed, 0);
}

/// What a test subscriber saw: `(target, message)` per event.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>;

/// A `tracing` subscriber that keeps every event's target and message.
struct Channels(Seen);

struct MessageOf(String);

impl iron3d_abi::tracing::field::Visit for MessageOf {
    fn record_debug(
        &mut self,
        field: &iron3d_abi::tracing::field::Field,
        value: &dyn std::fmt::Debug,
    ) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl iron3d_abi::tracing::Subscriber for Channels {
    fn enabled(&self, _: &iron3d_abi::tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(
        &self,
        _: &iron3d_abi::tracing::span::Attributes<'_>,
    ) -> iron3d_abi::tracing::span::Id {
        iron3d_abi::tracing::span::Id::from_u64(1)
    }

    fn record(&self, _: &iron3d_abi::tracing::span::Id, _: &iron3d_abi::tracing::span::Record<'_>) {
    }

    fn record_follows_from(
        &self,
        _: &iron3d_abi::tracing::span::Id,
        _: &iron3d_abi::tracing::span::Id,
    ) {
    }

    fn event(&self, e: &iron3d_abi::tracing::Event<'_>) {
        let mut m = MessageOf(String::new());
        e.record(&mut m);
        self.0
            .lock()
            .unwrap()
            .push((e.metadata().target().to_owned(), m.0));
    }

    fn enter(&self, _: &iron3d_abi::tracing::span::Id) {}

    fn exit(&self, _: &iron3d_abi::tracing::span::Id) {}
}

/// FORMATS §13.15 "log channels `resnet.log`, `NetWatch.log`": everything the plugin
/// logs is on one of the two targets — the socket, a dropped datagram and silence on
/// `resnet`; joins, the seats with their clans and the start on `NetWatch`.
#[test]
fn the_plugin_logs_on_the_two_channels_of_the_spec() {
    let seen = Seen::default();
    let sub = Channels(seen.clone());
    iron3d_abi::tracing::subscriber::with_default(sub, || {
        let mut clock = 0u64;
        let mut host = Engine::new(&hosting(NetRole::HOST, 2));
        host.frame(clock);
        let at = host.listening();
        let mut junk = udp::Udp::bind("127.0.0.1:0").unwrap();
        junk.send(udp::resolve(&at).unwrap(), b"not a datagram of ours at all");
        let mut c = Engine::new(&joining(NetRole::JOIN, &at, 5));
        frames(&mut [&mut host, &mut c], &mut clock, 2000, |e| {
            e.iter().all(|x| x.tick >= 9)
        });
        // The client stops (its last datagrams still arrive): the host drops it after
        // the silence.
        host.frame(clock + 1);
        host.frame(clock + 2 + SILENCE_TIMEOUT_NS);
        host.frame(clock + 3 + SILENCE_TIMEOUT_NS);
    });
    let seen = seen.lock().unwrap().clone();
    let on = |target: &str, part: &str| seen.iter().any(|(t, m)| t == target && m.contains(part));
    for (t, m) in &seen {
        assert!(t == "resnet" || t == "NetWatch", "{t}: {m}");
    }
    assert!(on("resnet", "net: started"), "{seen:?}");
    assert!(on("resnet", "listening: 127.0.0.1:"), "{seen:?}");
    assert!(on("resnet", "dropped: client"), "{seen:?}");
    assert!(on("resnet", "disconnected"), "{seen:?}");
    assert!(on("NetWatch", "player 1 commands clan"), "{seen:?}");
    assert!(on("NetWatch", "joined: p5"), "{seen:?}");
    assert!(on("NetWatch", "started: 0 host, 1 p5"), "{seen:?}");
    assert!(on("NetWatch", "left: "), "the player left: {seen:?}");
}
