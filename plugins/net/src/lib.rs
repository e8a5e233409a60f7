//! The net slot's plugin (interface 2.14, [`iron3d_abi::net`]): multiplayer by input
//! lockstep over UDP, speaking `iron3d-net-rules`' protocol.
//!
//! * **Roles**: a player who hosts and a dedicated server listen and run the host's
//!   side (admission, relay, the match's end); a joining player and the lobby connect
//!   to the host. The lobby only reserves a seat and learns the match
//!   (PD-NET-RESERVE); the engine then opens that mission and joins with the same key.
//! * **Pacing**: a turn is run — its ticks handed to the engine — only when the engine
//!   has run all but less than a turn of the ticks handed before, so turns follow the
//!   engine's clock, and what the local player does between two turns goes out with
//!   the second (PD-NET-DELAY turns ahead). A turn waits for every player's orders.
//! * **Bands** (PD-INPUT-SEAT-BANDS): the records on the wire are each player's own
//!   (player 0's codes); every peer moves player `p`'s key and axis codes into band
//!   `p` when it hands the tick to the engine — a code outside band 0 is dropped the
//!   same way on every peer, so nobody acts in another's seat. Manual and game
//!   commands pass unchanged.
//! * **Silence**: a host that never answers in [`CONNECT_TIMEOUT_NS`] fails the join; in
//!   a match, a peer silent for [`SILENCE_TIMEOUT_NS`] is gone (the host drops a
//!   player — everyone is told the turn they leave from —, a client ends its match).
//! * **Hot swap** (**PD-NET-SWAP**): a match in progress is this instance's connection;
//!   its state blob says so and another instance refuses it, so a swap during a match
//!   is refused and the match goes on. Before and after a match a swap is free.
//! * **Logs** (FORMATS §13.15, tome VI: `resnet.log` and `NetWatch.log` are two
//!   channels): everything this plugin logs goes to one of two `tracing` targets.
//!   `resnet` is the transport and the exchange of resources — the socket bound,
//!   datagrams and messages dropped, peers gone silent, a rejoin's snapshot asked for,
//!   handed and received, state reports sent and received. `NetWatch` is players and
//!   what they command — joined, refused, the seats and their clans at the start, left
//!   (their clan stays with the AI, PD-NET-LEFT), rejoined, desyncs, chat, the end.
//!   The engine's log shows them as the plugin's records with that target.

pub mod udp;

use iron3d_abi::abi_stable::std_types::{ROption, RString, RVec};
use iron3d_abi::{
    ErrorKind, FactoryDescription, InputRecord, InputRecordKind, NetEvent, NetEventKind, NetFrame,
    NetIdentity, NetProvider, NetReport, NetReservation, NetRole, NetStart, NetState, NetTick,
    Plugin, PluginDescription, PluginError, SlotKind, StateBlob,
};
use iron3d_input::seat_code;
use iron3d_net_rules::identity::{PeerIdentity, PluginId};
use iron3d_net_rules::lockstep::{Config, Turn};
use iron3d_net_rules::session::{Client, Event, Host, Setup};
use iron3d_net_rules::wire::{MAX_EVENTS_PER_TURN, WireEvent};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;
use udp::{Peers, Udp};

/// A join fails when the host has not answered within this time (10 s).
pub const CONNECT_TIMEOUT_NS: u64 = 10_000_000_000;
/// In a match, a peer silent this long is gone (10 s).
pub const SILENCE_TIMEOUT_NS: u64 = 10_000_000_000;
/// After ending a match the host keeps delivering the end this long, or until every
/// client left (2 s).
pub const END_GRACE_NS: u64 = 2_000_000_000;
/// PD-NET-KEEPALIVE: every peer sends a keep-alive this often (1 s), so silence means
/// gone in the lobby and the waiting room too.
pub const KEEPALIVE_NS: u64 = 1_000_000_000;

/// The log target of the transport and of resource exchange (the spec's `resnet.log`).
const RESNET: &str = "resnet";
/// The log target of players and what they command (the spec's `NetWatch.log`).
const NET_WATCH: &str = "NetWatch";

/// Logs an event of the engine's on its channel: datagrams and messages dropped and a
/// rejoin's snapshot on `resnet`, the rest — players — on `NetWatch`.
fn log_event(e: &NetEvent) {
    let (player, tick, text) = (e.player, e.tick, e.text.as_str());
    let what = match e.kind {
        NetEventKind::JOINED => "joined",
        NetEventKind::STARTED => "started",
        NetEventKind::LEFT => "left",
        NetEventKind::CHAT => "chat",
        NetEventKind::DESYNC => "desync",
        NetEventKind::REFUSED => "refused",
        NetEventKind::DROPPED => "dropped",
        NetEventKind::ENDED => "ended",
        NetEventKind::LISTENING => "listening",
        NetEventKind::SNAPSHOT_WANTED => "snapshot wanted",
        NetEventKind::REJOINED => "rejoined",
        _ => "event",
    };
    match e.kind {
        NetEventKind::DROPPED => {
            iron3d_abi::tracing::debug!(target: RESNET, "{what}: {text}");
        }
        NetEventKind::LISTENING | NetEventKind::SNAPSHOT_WANTED => {
            iron3d_abi::tracing::info!(target: RESNET, player, tick, "{what}: {text}");
        }
        NetEventKind::DESYNC | NetEventKind::REFUSED => {
            iron3d_abi::tracing::warn!(target: NET_WATCH, player, tick, "{what}: {text}");
        }
        NetEventKind::CHAT => {
            iron3d_abi::tracing::debug!(target: NET_WATCH, player, "{what}: {text}");
        }
        _ => {
            iron3d_abi::tracing::info!(target: NET_WATCH, player, tick, "{what}: {text}");
        }
    }
}

/// The state blob's format (PD-NET-SWAP).
const FORMAT: &str = "iron3d-net";
/// Version 1: no bytes, not in a match; version 2: in a match (refused by another
/// instance).
const IDLE: u32 = 1;
const IN_MATCH: u32 = 2;

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-net",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("net", SlotKind::Net)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    match factory {
        "net" => Ok(Box::new(NetPlugin::default())),
        other => Err(PluginError::new(
            ErrorKind::NOT_FOUND,
            format!("no factory {other:?}"),
        )),
    }
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The net plugin: nothing until [`NetProvider::start`], then one peer of a match.
#[derive(Default)]
pub struct NetPlugin {
    peer: Option<Box<Peer>>,
}

/// The protocol side of a peer.
enum Side {
    Host {
        host: Box<Host>,
        peers: Peers,
        /// When the match was ended (ns).
        ended_ns: Option<u64>,
        /// A server gives no orders.
        serve: bool,
    },
    Client {
        client: Box<Client>,
        at: SocketAddr,
        heard_ns: Option<u64>,
        /// Why the connection is over, once it is.
        lost: Option<String>,
    },
}

/// One peer of a match.
struct Peer {
    side: Side,
    udp: Udp,
    started_ns: Option<u64>,
    last_ns: Option<u64>,
    /// The local records since the last turn, with their tick within a turn.
    gathered: Vec<(u8, WireEvent)>,
    /// Frames since the last turn (a frame's records go to that tick of the turn).
    frames: u8,
    /// Kernel ticks handed to the engine so far.
    handed: u64,
    /// Turns whose hash is awaited, by the kernel tick after which it is taken:
    /// `(turn, lockstep tick)`.
    awaited: BTreeMap<u64, (u32, u64)>,
    turn_ticks: u32,
    events: Vec<NetEvent>,
    reports: Vec<iron3d_abi::NetStateReport>,
    /// Rejoining: the snapshot for the engine, and the tick it restores to (no tick is
    /// handed until the engine is there).
    snapshot: Option<iron3d_abi::NetSnapshot>,
    restore_at: Option<u64>,
    reservation: Option<NetReservation>,
    refused: bool,
    ended_told: bool,
    /// When the last keep-alives went.
    keepalive_ns: Option<u64>,
}

fn event(kind: NetEventKind, player: u32, tick: u64, text: String) -> NetEvent {
    NetEvent {
        kind,
        player,
        tick,
        text: RString::from(text),
    }
}

fn identity_of(i: &NetIdentity) -> PeerIdentity {
    PeerIdentity {
        engine: i.engine.to_string(),
        data: i.data.to_string(),
        mods: i.mods.to_string(),
        plugins: i
            .plugins
            .iter()
            .map(|p| PluginId {
                slot: p.slot.to_string(),
                name: p.name.to_string(),
                version: p.version.to_string(),
            })
            .collect(),
    }
}

fn hex(h: &[u8; 32]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

/// A local record on the wire (`None`: a kind the wire does not carry, or a value it
/// refuses).
pub fn wire_event(r: &InputRecord) -> Option<WireEvent> {
    match r.kind {
        InputRecordKind::KEY_DOWN | InputRecordKind::KEY_UP => Some(WireEvent::Key {
            code: r.code,
            down: r.kind == InputRecordKind::KEY_DOWN,
        }),
        InputRecordKind::AXIS if r.value.is_finite() => Some(WireEvent::Axis {
            axis: r.code,
            value: r.value,
        }),
        InputRecordKind::MANUAL if r.code <= 2 => Some(WireEvent::Manual {
            kind: r.code as u8,
            value: r.arg,
        }),
        InputRecordKind::COMMAND => Some(WireEvent::Command {
            code: r.code,
            arg: r.arg,
        }),
        _ => None,
    }
}

/// Player `player`'s record as the engine runs it: key and axis codes in the player's
/// band (`None`: a code outside band 0, dropped on every peer alike).
pub fn banded(player: u8, e: &WireEvent) -> Option<InputRecord> {
    let p = u32::from(player);
    Some(match *e {
        WireEvent::Key { code, down } => InputRecord::key(seat_code(p, code)?, down),
        WireEvent::Axis { axis, value } => InputRecord::axis(seat_code(p, axis)?, value),
        WireEvent::Manual { kind, value } => InputRecord {
            kind: InputRecordKind::MANUAL,
            code: u32::from(kind),
            value: 0.0,
            arg: value,
        },
        WireEvent::Command { code, arg } => InputRecord::command(code, arg),
    })
}

impl Peer {
    fn player(&self) -> u32 {
        match &self.side {
            Side::Host { .. } => 0,
            Side::Client { client, .. } => client
                .welcome()
                .map(|w| u32::from(w.player))
                .or_else(|| self.reservation.as_ref().map(|r| r.player))
                .unwrap_or(0),
        }
    }

    fn playing(&self) -> bool {
        match &self.side {
            Side::Host { host, .. } => host.lockstep().is_some(),
            Side::Client { client, .. } => client.lockstep().is_some(),
        }
    }

    fn state(&self, now_ns: u64) -> NetState {
        match &self.side {
            Side::Host {
                host,
                ended_ns,
                peers: _,
                serve: _,
            } => {
                let delivered = host.connected() == 0
                    || ended_ns.is_some_and(|t| now_ns.saturating_sub(t) > END_GRACE_NS);
                if host.finished() && delivered {
                    NetState::ENDED
                } else if host.lockstep().is_some() {
                    NetState::PLAYING
                } else {
                    NetState::WAITING
                }
            }
            Side::Client { client, lost, .. } => {
                if self.refused {
                    NetState::REFUSED
                } else if self.reservation.is_some() {
                    NetState::RESERVED
                } else if lost.is_some() || client.finished() {
                    NetState::ENDED
                } else if client.lockstep().is_some() {
                    NetState::PLAYING
                } else {
                    NetState::WAITING
                }
            }
        }
    }

    /// Reads the socket and hands each datagram to the protocol.
    fn receive(&mut self, now_ns: u64) {
        let datagrams = self.udp.receive();
        match &mut self.side {
            Side::Host { host, peers, .. } => {
                for (from, bytes) in datagrams {
                    if let Some(id) = peers.admit(from, now_ns) {
                        host.process_datagram(id, &bytes);
                    }
                }
            }
            Side::Client {
                client,
                at,
                heard_ns,
                ..
            } => {
                for (from, bytes) in datagrams {
                    if from == *at {
                        *heard_ns = Some(now_ns);
                        client.process_datagram(&bytes);
                    }
                }
            }
        }
    }

    /// Drops the peers gone silent (host) or ends a connection gone silent (client).
    fn watch_silence(&mut self, now_ns: u64) {
        let started = self.started_ns.unwrap_or(now_ns);
        match &mut self.side {
            Side::Host { host, peers, .. } => {
                for id in peers.silent(now_ns, SILENCE_TIMEOUT_NS) {
                    if let Some(addr) = peers.addr(id) {
                        iron3d_abi::tracing::info!(
                            target: RESNET,
                            peer = id,
                            %addr,
                            "silent for {} s: disconnected",
                            SILENCE_TIMEOUT_NS / 1_000_000_000
                        );
                    }
                    host.disconnect(id);
                    peers.forget(id);
                }
            }
            Side::Client {
                at,
                heard_ns,
                lost,
                client,
            } => {
                if lost.is_some() {
                    return;
                }
                let why = match *heard_ns {
                    None if now_ns.saturating_sub(started) > CONNECT_TIMEOUT_NS => Some(format!(
                        "no answer from the host at {at} in {} s",
                        CONNECT_TIMEOUT_NS / 1_000_000_000
                    )),
                    Some(t)
                        if !client.finished() && now_ns.saturating_sub(t) > SILENCE_TIMEOUT_NS =>
                    {
                        Some(format!(
                            "the host at {at} was silent for {} s",
                            SILENCE_TIMEOUT_NS / 1_000_000_000
                        ))
                    }
                    _ => None,
                };
                if let Some(why) = why {
                    iron3d_abi::tracing::warn!(target: RESNET, %at, "{why}");
                    self.events
                        .push(event(NetEventKind::ENDED, 0, 0, why.clone()));
                    *lost = Some(why);
                }
            }
        }
    }

    /// The protocol's events as the engine's.
    fn take_events(&mut self, dt: Duration) {
        let events = match &mut self.side {
            Side::Host { host, .. } => host.update(dt),
            Side::Client { client, .. } => client.update(dt),
        };
        let tt = u64::from(self.turn_ticks.max(1));
        for e in events {
            let ev = match e {
                Event::Admitted { player, name } => {
                    event(NetEventKind::JOINED, u32::from(player), 0, name)
                }
                Event::SeatReserved { player, name } => event(
                    NetEventKind::JOINED,
                    u32::from(player),
                    0,
                    format!("{name} (seat reserved while the mission opens)"),
                ),
                Event::Reserved(r) => {
                    self.reservation = Some(NetReservation {
                        player: u32::from(r.player),
                        clans: RVec::from(r.clans.clone()),
                        seed: r.seed,
                        mission: RString::from(r.mission.clone()),
                    });
                    event(
                        NetEventKind::JOINED,
                        u32::from(r.player),
                        0,
                        format!("seat {} reserved in {}", r.player, r.mission),
                    )
                }
                Event::Refused { differences } => {
                    if matches!(self.side, Side::Client { .. }) {
                        self.refused = true;
                    }
                    event(NetEventKind::REFUSED, 0, 0, differences.join("\n"))
                }
                Event::Started(w) => {
                    let clans: Vec<String> = w
                        .seats
                        .iter()
                        .map(|s| format!("player {} commands clan {}", s.player, s.clan))
                        .collect();
                    iron3d_abi::tracing::info!(
                        target: NET_WATCH,
                        player = w.player,
                        mission = %w.mission,
                        "seats: {}",
                        clans.join(", ")
                    );
                    self.turn_ticks = w.turn_ticks;
                    let names: Vec<String> = w
                        .seats
                        .iter()
                        .map(|s| format!("{} {}", s.player, s.name))
                        .collect();
                    event(
                        NetEventKind::STARTED,
                        u32::from(w.player),
                        0,
                        names.join(", "),
                    )
                }
                Event::Desync(d) => event(
                    NetEventKind::DESYNC,
                    u32::from(d.b.0),
                    d.tick + 1,
                    format!(
                        "players {} and {} differ after tick {} (turn {}): {} and {}",
                        d.a.0,
                        d.b.0,
                        d.tick + 1,
                        d.turn,
                        hex(&d.a.1),
                        hex(&d.b.1)
                    ),
                ),
                Event::Chat(c) => event(NetEventKind::CHAT, u32::from(c.from), 0, c.text),
                Event::Left(l) => event(
                    if l.player == 0 {
                        NetEventKind::ENDED
                    } else {
                        NetEventKind::LEFT
                    },
                    u32::from(l.player),
                    u64::from(l.turn) * tt + 1,
                    l.reason,
                ),
                Event::SnapshotWanted { player, name } => {
                    // Still wanted (the host asks again, with the tick, if a player who
                    // left since makes it wait for more turns first).
                    let wanted = match &self.side {
                        Side::Host { host, .. } => host.snapshot_wanted(),
                        Side::Client { .. } => None,
                    };
                    let Some((_, tick)) = wanted else {
                        continue;
                    };
                    event(
                        NetEventKind::SNAPSHOT_WANTED,
                        u32::from(player),
                        tick,
                        format!(
                            "{name} rejoins: the match waits for the snapshot after tick {tick}"
                        ),
                    )
                }
                Event::Snapshot { tick, bytes } => {
                    iron3d_abi::tracing::info!(
                        target: RESNET,
                        tick,
                        bytes = bytes.len(),
                        "rejoin: the snapshot arrived"
                    );
                    self.handed = tick;
                    self.restore_at = Some(tick);
                    self.snapshot = Some(iron3d_abi::NetSnapshot {
                        tick,
                        bytes: RVec::from(bytes),
                    });
                    continue;
                }
                Event::Rejoined(r) => event(
                    NetEventKind::REJOINED,
                    u32::from(r.player),
                    u64::from(r.turn) * tt + 1,
                    format!("player {} is back", r.player),
                ),
                Event::StateReport(r) => {
                    iron3d_abi::tracing::debug!(
                        target: RESNET,
                        player = r.player,
                        tick = r.tick,
                        bytes = r.bytes.len(),
                        "state report received"
                    );
                    self.reports.push(iron3d_abi::NetStateReport {
                        player: u32::from(r.player),
                        tick: r.tick,
                        bytes: RVec::from(r.bytes),
                    });
                    continue;
                }
                Event::Dropped(why) => event(NetEventKind::DROPPED, 0, 0, why),
            };
            self.events.push(ev);
        }
    }

    /// Runs the next turn when the engine is within a turn of the ticks handed and
    /// every player's orders are in: its ticks, banded, for the engine.
    fn advance(&mut self, engine_tick: u64, ticks: &mut Vec<NetTick>) {
        let tt = u64::from(self.turn_ticks.max(1));
        // Rejoining: nothing until the engine restored the snapshot.
        if let Some(at) = self.restore_at {
            if engine_tick < at || self.snapshot.is_some() {
                return;
            }
            self.restore_at = None;
        }
        while self.handed < engine_tick + tt {
            let gathered = std::mem::take(&mut self.gathered);
            let turn = match &mut self.side {
                Side::Host { host, .. } => host.advance(&gathered),
                Side::Client { client, lost, .. } if lost.is_none() => client.advance(&gathered),
                Side::Client { .. } => None,
            };
            let Some(turn) = turn else {
                self.gathered = gathered;
                return;
            };
            self.frames = 0;
            self.hand(&turn, ticks);
        }
    }

    fn hand(&mut self, turn: &Turn, ticks: &mut Vec<NetTick>) {
        let n = turn.ticks.len() as u64;
        for (k, records) in turn.ticks.iter().enumerate() {
            let tick = turn.first_tick + k as u64 + 1;
            let last = k as u64 + 1 == n;
            if last {
                self.awaited
                    .insert(tick, (turn.turn, turn.first_tick + k as u64));
            }
            ticks.push(NetTick {
                tick,
                records: records.iter().filter_map(|(p, e)| banded(*p, e)).collect(),
                hash: last,
            });
        }
        self.handed = turn.first_tick + n;
    }

    fn send(&mut self) {
        let keepalive = self.last_ns.is_some_and(|now| {
            self.keepalive_ns
                .is_none_or(|k| now.saturating_sub(k) >= KEEPALIVE_NS)
        });
        if keepalive {
            self.keepalive_ns = self.last_ns;
            match &self.side {
                Side::Host { host, peers, .. } => {
                    for (id, bytes) in host.keepalives() {
                        if let Some(addr) = peers.addr(id) {
                            self.udp.send(addr, &bytes);
                        }
                    }
                }
                Side::Client { client, at, .. } => {
                    let bytes = client.keepalive();
                    self.udp.send(*at, &bytes);
                }
            }
        }
        match &mut self.side {
            Side::Host { host, peers, .. } => {
                for (id, bytes) in host.datagrams_to_send() {
                    if let Some(addr) = peers.addr(id) {
                        self.udp.send(addr, &bytes);
                    }
                }
            }
            Side::Client { client, at, .. } => {
                for bytes in client.datagrams_to_send() {
                    self.udp.send(*at, &bytes);
                }
            }
        }
    }

    fn exchange(&mut self, frame: &NetFrame) -> NetReport {
        let now = frame.now_ns;
        self.started_ns.get_or_insert(now);
        let dt = Duration::from_nanos(now.saturating_sub(self.last_ns.unwrap_or(now)));
        self.last_ns = Some(now);
        self.receive(now);
        self.watch_silence(now);
        self.take_events(dt);
        // The hashes asked for.
        for h in frame.hashes.iter() {
            if let Some((turn, tick)) = self.awaited.remove(&h.tick) {
                match &mut self.side {
                    Side::Host { host, .. } => host.hash(turn, tick, h.hash),
                    Side::Client { client, .. } => client.hash(turn, tick, h.hash),
                }
            }
        }
        // Chat.
        if !frame.say.is_empty() {
            let to = u8::try_from(frame.say_to).ok();
            let said = match &mut self.side {
                Side::Host { host, .. } => host.chat(to, &frame.say).map(|()| true),
                Side::Client { client, .. } => client.chat(to, &frame.say),
            };
            match said {
                Ok(true) => {}
                Ok(false) => self.events.push(event(
                    NetEventKind::DROPPED,
                    0,
                    0,
                    "chat: the match has not started".into(),
                )),
                Err(e) => {
                    self.events
                        .push(event(NetEventKind::DROPPED, 0, 0, format!("chat: {e}")))
                }
            }
        }
        // A state summary for the others' desync reports.
        if !frame.report.is_empty() {
            iron3d_abi::tracing::debug!(
                target: RESNET,
                tick = frame.report_tick,
                bytes = frame.report.len(),
                "state report sent"
            );
            let bytes = frame.report.to_vec();
            let sent = match &mut self.side {
                Side::Host { host, .. } => host.report(frame.report_tick, bytes).map(|()| true),
                Side::Client { client, .. } => client.report(frame.report_tick, bytes),
            };
            if let Err(e) = sent {
                self.events.push(event(
                    NetEventKind::DROPPED,
                    0,
                    0,
                    format!("state report: {e}"),
                ));
            }
        }
        // The snapshot a rejoin waits for (the host's side only).
        if !frame.snapshot.is_empty() {
            if let Side::Host { host, .. } = &mut self.side {
                iron3d_abi::tracing::info!(
                    target: RESNET,
                    tick = frame.snapshot_tick,
                    bytes = frame.snapshot.len(),
                    "rejoin: the engine's snapshot goes out"
                );
                if let Err(why) = host.snapshot(frame.snapshot_tick, &frame.snapshot) {
                    self.events.push(event(
                        NetEventKind::DROPPED,
                        0,
                        frame.snapshot_tick,
                        format!("snapshot: {why}"),
                    ));
                }
            }
        }
        // The end (PD-NET-END), asked for by the engine (the host's side only).
        if frame.end {
            if let Side::Host { host, ended_ns, .. } = &mut self.side {
                if host.end("the host ended the match").is_some() && ended_ns.is_none() {
                    *ended_ns = Some(now);
                }
            }
        }
        // The local seat's records go to this frame's tick of the coming turn.
        let gives_orders = match &self.side {
            Side::Host { serve, .. } => !serve,
            Side::Client { .. } => true,
        };
        if gives_orders && self.playing() {
            let at = self
                .frames
                .min(u8::try_from(self.turn_ticks.max(1) - 1).unwrap_or(u8::MAX));
            for r in frame.local.iter() {
                if self.gathered.len() >= MAX_EVENTS_PER_TURN {
                    break;
                }
                if let Some(e) = wire_event(r) {
                    self.gathered.push((at, e));
                }
            }
            self.frames = self.frames.saturating_add(1);
        }
        let mut ticks = Vec::new();
        self.advance(frame.tick, &mut ticks);
        self.send();
        let state = self.state(now);
        if state == NetState::ENDED && !self.ended_told {
            self.ended_told = true;
            self.events.push(event(
                NetEventKind::ENDED,
                self.player(),
                self.handed,
                format!("the match ended after tick {}", self.handed),
            ));
        }
        for e in &self.events {
            log_event(e);
        }
        let waiting_for = match &self.side {
            Side::Host { host, .. } => host.lockstep().map(|l| l.waiting_for()),
            Side::Client { client, .. } => client.lockstep().map(|l| l.waiting_for()),
        }
        .unwrap_or_default();
        NetReport {
            state,
            player: self.player(),
            ticks: RVec::from(ticks),
            events: RVec::from(std::mem::take(&mut self.events)),
            waiting_for: waiting_for.into_iter().map(u32::from).collect(),
            reservation: match &self.reservation {
                Some(r) => ROption::RSome(r.clone()),
                None => ROption::RNone,
            },
            reports: RVec::from(std::mem::take(&mut self.reports)),
            snapshot: match self.snapshot.take() {
                Some(s) => ROption::RSome(s),
                None => ROption::RNone,
            },
        }
    }
}

fn invalid(what: String) -> PluginError {
    PluginError::new(ErrorKind::INVALID, what)
}

fn start_peer(s: &NetStart) -> Result<Peer, PluginError> {
    let identity = identity_of(&s.identity);
    identity
        .check()
        .map_err(|why| invalid(format!("identity: {why}")))?;
    let name = s.name.to_string();
    let (side, udp, turn_ticks) = match s.role {
        NetRole::HOST | NetRole::SERVE => {
            let players = u8::try_from(s.players)
                .ok()
                .filter(|p| (2..=iron3d_net_rules::MAX_PLAYERS as u8).contains(p))
                .ok_or_else(|| {
                    invalid(format!(
                        "players {}: a match has 2 to {}",
                        s.players,
                        iron3d_net_rules::MAX_PLAYERS
                    ))
                })?;
            let config = if s.turn_ticks == 0 {
                Config::default()
            } else {
                Config {
                    turn_ticks: s.turn_ticks,
                    delay_turns: s.delay_turns,
                }
            };
            if !(1..=60).contains(&config.turn_ticks) || config.delay_turns > 30 {
                return Err(invalid(format!(
                    "turn of {} ticks with a delay of {} turns: 1..=60 ticks, 0..=30 turns",
                    config.turn_ticks, config.delay_turns
                )));
            }
            let udp = Udp::bind(&s.address)?;
            let host = Host::new(
                identity,
                &name,
                Setup {
                    players,
                    clans: s.clans.to_vec(),
                    seed: s.seed,
                    mission: s.mission.to_string(),
                    config,
                },
            );
            let side = Side::Host {
                host: Box::new(host),
                peers: Peers::default(),
                ended_ns: None,
                serve: s.role == NetRole::SERVE,
            };
            (side, udp, config.turn_ticks)
        }
        NetRole::JOIN | NetRole::RESERVE => {
            let at = udp::resolve(&s.address)?;
            let udp = Udp::towards(at)?;
            let client = if s.role == NetRole::RESERVE {
                Client::reserve(identity, &name, s.key)
            } else {
                Client::new(identity, &name, s.key)
            };
            let side = Side::Client {
                client: Box::new(client),
                at,
                heard_ns: None,
                lost: None,
            };
            (side, udp, iron3d_net_rules::DEFAULT_TURN_TICKS)
        }
        other => return Err(invalid(format!("unknown role {}", other.0))),
    };
    let mut events = Vec::new();
    if let Some(local) = udp.local_addr() {
        iron3d_abi::tracing::info!(target: RESNET, role = s.role.0, %local, "net: started");
        if matches!(side, Side::Host { .. }) {
            events.push(event(NetEventKind::LISTENING, 0, 0, local.to_string()));
        }
    }
    Ok(Peer {
        side,
        udp,
        started_ns: None,
        last_ns: None,
        gathered: Vec::new(),
        frames: 0,
        handed: 0,
        awaited: BTreeMap::new(),
        turn_ticks,
        events,
        reports: Vec::new(),
        snapshot: None,
        restore_at: None,
        reservation: None,
        refused: false,
        ended_told: false,
        keepalive_ns: None,
    })
}

impl NetProvider for NetPlugin {
    fn start(&mut self, start: &NetStart) -> Result<(), PluginError> {
        if self.peer.is_some() {
            return Err(PluginError::new(
                ErrorKind::FORBIDDEN,
                "this net plugin instance already started its match",
            ));
        }
        self.peer = Some(Box::new(start_peer(start)?));
        Ok(())
    }

    fn exchange(&mut self, frame: &NetFrame) -> Result<NetReport, PluginError> {
        match self.peer.as_mut() {
            Some(p) => Ok(p.exchange(frame)),
            None => Err(PluginError::new(
                ErrorKind::FORBIDDEN,
                "exchange before start: the engine starts the net plugin first",
            )),
        }
    }
}

impl Plugin for NetPlugin {
    fn save_state(&self) -> Result<StateBlob, PluginError> {
        Ok(match &self.peer {
            Some(p) if p.playing() => StateBlob::empty(FORMAT, IN_MATCH),
            _ => StateBlob::empty(FORMAT, IDLE),
        })
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        if blob.format.as_str() == FORMAT && blob.version == IN_MATCH {
            return Err(PluginError::new(
                ErrorKind::BAD_STATE,
                "a match in progress cannot be handed to another net plugin instance: its \
                 connection is the running instance's (PD-NET-SWAP)",
            ));
        }
        Ok(())
    }

    fn shutdown(&mut self) {
        // Say goodbye: the host sees a client go at once instead of after the silence
        // timeout.
        if let Some(p) = self.peer.as_mut() {
            if let Side::Client { client, .. } = &mut p.side {
                client.disconnect();
            }
            p.send();
        }
    }

    fn net(&mut self) -> Option<&mut dyn NetProvider> {
        Some(self)
    }
}

#[cfg(test)]
mod tests;
