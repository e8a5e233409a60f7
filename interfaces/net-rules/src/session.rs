//! The match protocol of the host and of a client over [`renet`]'s reliable ordered
//! channel, free of I/O: a transport (UDP, the in-memory network) hands packets in and
//! takes packets out; the caller's loop feeds the turns it runs and the hashes it takes.
//!
//! * **Admission**: a client's first message is [`Hello`]; the host answers
//!   [`Refused`] with every difference ([`admit`]) and drops it, or keeps it as the next
//!   free player.
//! * **The lobby** (**PD-NET-RESERVE**): a client that does not know the match yet says
//!   hello with `reserve` set; the host answers [`Reserved`] (its player number, every
//!   player's clan, the seed, the mission, the turn length and delay) and keeps that
//!   seat for the connection's key (PD-NET-FRAME) for [`RESERVE_TIMEOUT`]. The client
//!   opens the mission, then connects again with the same key to play and gets that
//!   seat. A reserved seat counts as taken; one not claimed in time is freed. The
//!   lobby's hello is not admission-checked (the data fingerprint is of the mission the
//!   client has not opened yet); the hello to play is, and its refusal frees the seat. When the match's players are all there, the host sends everyone the
//!   same [`Welcome`] (seats ascending, seed, mission, turn length and delay) and the
//!   match starts at turn 0 (PD-NET-LOBBY: the match starts full; joining later is a
//!   rejoin from a save, not yet built).
//! * **Relay** (PD-NET-STAR): the host relays each player's orders, hashes and chat to
//!   the others, after checking that the sender speaks for itself (a message in
//!   another player's name is dropped and counted) and that the scheduler takes it.
//! * **Rejoin** (**PD-NET-REJOIN**): in a running match a hello (or a lobby's) may take
//!   the seat of a player who left. Once the host's next turn is past the last turn of
//!   every player who left (one who left a moment ago may still have orders for the
//!   coming turns: the host runs those first), the match waits (the host runs no turn)
//!   while the host's engine saves a snapshot at the host's next turn; the host sends the
//!   rejoining player [`Rejoin`] (the match, its next turn `n`, the turn `n + delay`
//!   its orders count from), the snapshot in [`SnapshotChunk`]s and every order held
//!   for turns from `n`, tells everyone else [`Rejoined`], and goes on. The rejoining
//!   player restores the snapshot and runs from turn `n`; no peer ran turn `n + delay`
//!   (it needs the host's orders), so all agree on it.
//! * **The end** (**PD-NET-END**): the host ends the match by leaving: its `Left` names
//!   the first turn it sent no orders for (its next turn + the delay: a client may
//!   already run every turn before it), and every peer — the host too — runs the turns
//!   before it and no more, so all stop at the same tick with the same state.
//! * **Bad packets**: a datagram that does not open ([`crate::frame`]) never reaches
//!   renet; a message that does not decode, or that the scheduler refuses, is dropped;
//!   both are counted per peer ([`Counters`]) and never stop the match.
//! * **Transport ids are not player numbers** (FORMATS §13.15): the transport names a
//!   peer by any number it likes (an address index); the host gives player numbers in
//!   the order hellos arrive (connections are read in the order their first datagram
//!   came, so the numbering does not depend on the transport ids).

use crate::identity::{PeerIdentity, admit};
use crate::lockstep::{Config, Desync, Lockstep, Turn};
use crate::wire::{
    self, Chat, Hello, Left, Message, Orders, Refused, Rejoin, Rejoined, Reserved, Seat,
    SnapshotChunk, StateReport, TurnHash, Welcome, WireEvent,
};
use renet::{ClientId, ConnectionConfig, DefaultChannel, RenetClient, RenetServer, ServerEvent};
use std::collections::BTreeMap;
use std::time::Duration;

/// PD-NET-RESERVE: how long a seat reserved in the lobby waits for its player to connect
/// to play (the time to open the mission).
pub const RESERVE_TIMEOUT: Duration = Duration::from_secs(60);

/// The channel every message rides.
const CHANNEL: DefaultChannel = DefaultChannel::ReliableOrdered;

/// What the match set-up says (the host's choice).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Players in the match, the host included (`2..=MAX_PLAYERS`).
    pub players: u8,
    /// The clan each player commands, by player number (missing: clan = player + 1).
    pub clans: Vec<u32>,
    /// The match seed.
    pub seed: u64,
    /// The mission.
    pub mission: String,
    /// Turn length and delay.
    pub config: Config,
}

/// Datagrams and messages dropped, per peer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Datagrams that did not open (length, magic, version, key, checksum).
    pub datagrams: u64,
    /// Messages that did not decode (unknown kinds included).
    pub malformed: u64,
    /// Messages in another player's name, or out of place (orders before the match).
    pub refused: u64,
    /// Orders or hashes the scheduler refused.
    pub rejected: u64,
}

/// What happened in a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The host admitted a client as `player`.
    Admitted {
        /// Its player number.
        player: u8,
        /// Its name.
        name: String,
    },
    /// The host reserved a seat for a client in the lobby (PD-NET-RESERVE).
    SeatReserved {
        /// The player number kept for it.
        player: u8,
        /// Its name.
        name: String,
    },
    /// The host answered this client's lobby hello: the seat and the match.
    Reserved(Reserved),
    /// The host refused a client (both sides see the same list).
    Refused {
        /// What differs.
        differences: Vec<String>,
    },
    /// The match started.
    Started(Welcome),
    /// The first desync of the match.
    Desync(Desync),
    /// A chat line for this peer.
    Chat(Chat),
    /// A player left (the host saw the transport go, or said so).
    Left(Left),
    /// Another player's state summary (for a desync report).
    StateReport(StateReport),
    /// (Host) A player rejoins: the match waits for a snapshot
    /// ([`Host::snapshot_wanted`], [`Host::snapshot`]).
    SnapshotWanted {
        /// The player.
        player: u8,
        /// Its name.
        name: String,
    },
    /// (Client) Rejoining: the snapshot to restore — the state after `tick`.
    Snapshot {
        /// The tick.
        tick: u64,
        /// The snapshot's bytes.
        bytes: Vec<u8>,
    },
    /// A player who left is back from `turn` on.
    Rejoined(Rejoined),
    /// A message was dropped (what and why).
    Dropped(String),
}

fn send(out: &mut dyn FnMut(Vec<u8>), m: &Message) {
    // Our own messages pass the checks they are built to pass; one that does not is a
    // bug caught by the tests, and is not sent.
    if let Ok(bytes) = wire::encode(m) {
        out(bytes);
    }
}

/// The host: player 0, and the relay.
pub struct Host {
    server: RenetServer,
    identity: PeerIdentity,
    setup: Setup,
    name: String,
    /// Admitted clients by transport id (transport ids are not player numbers).
    joined: BTreeMap<ClientId, (u8, String)>,
    lockstep: Option<Lockstep>,
    /// The last turn each player's orders were relayed for.
    relayed: BTreeMap<u8, u32>,
    /// Each connection's key (PD-NET-FRAME), learnt from its first datagram.
    keys: BTreeMap<ClientId, u64>,
    /// The connections in the order their first datagram came: their messages are
    /// read in this order, so two hellos read in one update are numbered by arrival,
    /// never by transport id nor by a hash map's order.
    order: Vec<ClientId>,
    counters: BTreeMap<ClientId, Counters>,
    events: Vec<Event>,
    /// Seats reserved in the lobby, by connection key: `(player, name, since)`.
    reservations: BTreeMap<u64, (u8, String, Duration)>,
    /// The host's clock (the sum of `update`'s `dt`).
    now: Duration,
    /// The turn the match ends at, once ended (PD-NET-END).
    ended: Option<u32>,
    /// A player rejoining, waiting for the snapshot (PD-NET-REJOIN).
    pending: Option<(ClientId, u8, String)>,
    /// The snapshot tick the engine was last asked for (PD-NET-REJOIN).
    announced: Option<u64>,
}

impl Host {
    /// A host running `identity`, naming itself `name`, for the match `setup`.
    pub fn new(identity: PeerIdentity, name: &str, setup: Setup) -> Self {
        Self {
            server: RenetServer::new(ConnectionConfig::default()),
            identity,
            setup,
            name: name.to_owned(),
            joined: BTreeMap::new(),
            lockstep: None,
            relayed: BTreeMap::new(),
            keys: BTreeMap::new(),
            order: Vec::new(),
            counters: BTreeMap::new(),
            events: Vec::new(),
            reservations: BTreeMap::new(),
            now: Duration::ZERO,
            ended: None,
            pending: None,
            announced: None,
        }
    }

    /// The transport lost a peer (timed out, closed): see [`Host::update`]'s `Left`.
    pub fn disconnect(&mut self, client: ClientId) {
        self.keys.remove(&client);
        self.order.retain(|&c| c != client);
        self.server.remove_connection(client);
    }

    /// A datagram from the transport's peer `client`: a new peer's first datagram that
    /// opens makes its connection (its key is the connection's from then on).
    pub fn process_datagram(&mut self, client: ClientId, datagram: &[u8]) {
        let key = match self.keys.get(&client) {
            Some(&k) => Ok(k),
            None => crate::frame::key_of(datagram),
        };
        let payload = key.and_then(|k| crate::frame::open(k, datagram).map(|p| (k, p)));
        match payload {
            // A keep-alive says the peer is there; it never makes a connection.
            Ok((_, [])) => {}
            Ok((k, p)) => {
                if self.keys.insert(client, k).is_none() {
                    self.server.add_connection(client);
                    self.order.retain(|&c| c != client);
                    self.order.push(client);
                }
                let _ = self.server.process_packet_from(p, client);
            }
            Err(e) => {
                self.counters.entry(client).or_default().datagrams += 1;
                self.events
                    .push(Event::Dropped(format!("client {client}: {e}")));
            }
        }
    }

    /// A keep-alive for every connection (PD-NET-KEEPALIVE).
    pub fn keepalives(&self) -> Vec<(ClientId, Vec<u8>)> {
        self.keys
            .iter()
            .map(|(&c, &k)| (c, crate::frame::keepalive(k)))
            .collect()
    }

    /// Datagrams to send, per peer.
    pub fn datagrams_to_send(&mut self) -> Vec<(ClientId, Vec<u8>)> {
        let mut out = Vec::new();
        let mut clients = self.server.clients_id();
        clients.sort_unstable();
        for c in clients {
            let Some(&key) = self.keys.get(&c) else {
                continue;
            };
            if let Ok(packets) = self.server.get_packets_to_send(c) {
                out.extend(
                    packets
                        .into_iter()
                        .map(|p| (c, crate::frame::seal(key, &p))),
                );
            }
        }
        out
    }

    /// The drops counted for `client`.
    pub fn counters(&self, client: ClientId) -> Counters {
        self.counters.get(&client).copied().unwrap_or_default()
    }

    /// The scheduler, once the match started.
    pub fn lockstep(&self) -> Option<&Lockstep> {
        self.lockstep.as_ref()
    }

    /// Advances the connections by `dt`, reads every message (admission, relay) and
    /// returns what happened.
    pub fn update(&mut self, dt: Duration) -> Vec<Event> {
        self.server.update(dt);
        self.now += dt;
        let now = self.now;
        let expired: Vec<u64> = self
            .reservations
            .iter()
            .filter(|(_, r)| now.saturating_sub(r.2) > RESERVE_TIMEOUT)
            .map(|(&k, _)| k)
            .collect();
        for k in expired {
            if let Some((player, name, _)) = self.reservations.remove(&k) {
                self.events.push(Event::Dropped(format!(
                    "the seat of player {player} ({name}) was not claimed within {} s: freed",
                    RESERVE_TIMEOUT.as_secs()
                )));
            }
        }
        while let Some(e) = self.server.get_event() {
            if let ServerEvent::ClientDisconnected { client_id, reason } = e {
                self.on_gone(client_id, &reason.to_string());
            }
        }
        let live = self.server.clients_id();
        let order: Vec<ClientId> = self
            .order
            .iter()
            .copied()
            .filter(|c| live.contains(c))
            .collect();
        for c in order {
            while let Some(bytes) = self.server.receive_message(c, CHANNEL) {
                self.on_message(c, &bytes);
            }
        }
        self.announce_rejoin();
        std::mem::take(&mut self.events)
    }

    fn count(&mut self, c: ClientId, f: impl FnOnce(&mut Counters), why: String) {
        f(self.counters.entry(c).or_default());
        self.events.push(Event::Dropped(why));
    }

    /// Sends `m` to connection `c`.
    fn send_to(&mut self, c: ClientId, m: &Message) {
        send(&mut |b| self.server.send_message(c, CHANNEL, b), m);
    }

    fn broadcast_except(&mut self, except: Option<ClientId>, m: &Message) {
        let targets: Vec<ClientId> = self
            .joined
            .keys()
            .copied()
            .filter(|&c| Some(c) != except)
            .collect();
        let mut bytes = None;
        send(&mut |b| bytes = Some(b), m);
        if let Some(b) = bytes {
            for c in targets {
                self.server.send_message(c, CHANNEL, b.clone());
            }
        }
    }

    fn on_message(&mut self, c: ClientId, bytes: &[u8]) {
        let m = match wire::decode(bytes) {
            Ok(m) => m,
            Err(e) => {
                return self.count(c, |k| k.malformed += 1, format!("client {c}: {e}"));
            }
        };
        let player = self.joined.get(&c).map(|j| j.0);
        match (m, player) {
            (Message::Hello(h), None) => self.on_hello(c, &h),
            (Message::Orders(o), Some(p)) if o.player == p => self.relay_orders(c, &o),
            (Message::TurnHash(h), Some(p)) if h.player == p => self.relay_hash(c, &h),
            (Message::Chat(chat), Some(p)) if chat.from == p => self.relay_chat(c, chat),
            (Message::StateReport(r), Some(p)) if r.player == p => {
                self.broadcast_except(Some(c), &Message::StateReport(r.clone()));
                self.events.push(Event::StateReport(r));
            }
            (m, _) => self.count(
                c,
                |k| k.refused += 1,
                format!("client {c}: a {} message out of place", m.kind()),
            ),
        }
    }

    fn on_hello(&mut self, c: ClientId, h: &Hello) {
        // The lobby's hello is not checked: the client has not opened the mission its
        // data fingerprint is of. Its hello to play is, and a refusal frees the seat.
        let checked = if h.reserve {
            Ok(())
        } else {
            admit(&self.identity, h)
        };
        match checked {
            Err(differences) => {
                if let Some(k) = self.keys.get(&c) {
                    self.reservations.remove(k);
                }
                let m = Message::Refused(Refused {
                    differences: differences.clone(),
                });
                self.send_to(c, &m);
                self.events.push(Event::Refused { differences });
            }
            Ok(()) => {
                let key = self.keys.get(&c).copied();
                let reserved = key.and_then(|k| self.reservations.get(&k)).map(|r| r.0);
                let taken: Vec<u8> = self
                    .joined
                    .values()
                    .map(|j| j.0)
                    .chain(self.reservations.values().map(|r| r.0))
                    .chain(self.pending.as_ref().map(|p| p.1))
                    .collect();
                // In a running match only the seat of a player who left is free.
                let free = match &self.lockstep {
                    None => (1..self.setup.players).find(|p| !taken.contains(p)),
                    Some(ls) => ls
                        .gone()
                        .into_iter()
                        .find(|p| *p != 0 && !taken.contains(p)),
                };
                let Some(player) = reserved.or(free) else {
                    return self.refuse(c, "the match is full: every seat is taken");
                };
                if let Some(k) = key {
                    if h.reserve {
                        self.reservations
                            .insert(k, (player, h.name.clone(), self.now));
                        let r = Message::Reserved(self.reservation(player));
                        self.send_to(c, &r);
                        self.events.push(Event::SeatReserved {
                            player,
                            name: h.name.clone(),
                        });
                        return;
                    }
                    self.reservations.remove(&k);
                }
                if self.lockstep.is_some() {
                    // PD-NET-REJOIN: the match waits for the snapshot.
                    if self.pending.is_some() {
                        return self.refuse(c, "another player is rejoining: try again");
                    }
                    if self.ended.is_some() {
                        return self.refuse(c, "the match is ending");
                    }
                    self.pending = Some((c, player, h.name.clone()));
                    self.announce_rejoin();
                    return;
                }
                self.joined.insert(c, (player, h.name.clone()));
                self.events.push(Event::Admitted {
                    player,
                    name: h.name.clone(),
                });
                if self.joined.len() + 1 == usize::from(self.setup.players) {
                    self.start();
                }
            }
        }
    }

    /// Refuses `c` with one reason (both sides see it); its reservation is freed.
    fn refuse(&mut self, c: ClientId, why: &str) {
        if let Some(k) = self.keys.get(&c) {
            self.reservations.remove(k);
        }
        let differences = vec![why.to_owned()];
        self.send_to(
            c,
            &Message::Refused(Refused {
                differences: differences.clone(),
            }),
        );
        self.count(c, |k| k.refused += 1, format!("client {c}: {why}"));
        self.events.push(Event::Refused { differences });
    }

    /// A client's transport went: before the match it frees its seat; in the match its
    /// player leaves from the turn after the last one its orders were relayed for (every
    /// peer holds those: they run with them, and no later turn waits for them), and
    /// everyone is told.
    fn on_gone(&mut self, c: ClientId, reason: &str) {
        self.keys.remove(&c);
        self.order.retain(|&k| k != c);
        if self.pending.as_ref().is_some_and(|p| p.0 == c) {
            self.pending = None;
            self.announced = None;
        }
        let Some((player, _)) = self.joined.remove(&c) else {
            return;
        };
        let Some(ls) = self.lockstep.as_mut() else {
            return;
        };
        let turn = self
            .relayed
            .get(&player)
            .map_or(ls.config().delay_turns, |t| t + 1);
        ls.player_left(player, turn);
        let left = Left {
            player,
            turn,
            reason: reason.chars().take(wire::MAX_TEXT_BYTES / 4).collect(),
        };
        self.broadcast_except(None, &Message::Left(left.clone()));
        self.events.push(Event::Left(left));
    }

    /// The clan player `p` commands.
    fn clan(&self, p: u8) -> u32 {
        self.setup
            .clans
            .get(usize::from(p))
            .copied()
            .unwrap_or(u32::from(p) + 1)
    }

    /// What a lobby client is told.
    fn reservation(&self, player: u8) -> Reserved {
        Reserved {
            player,
            clans: (0..self.setup.players).map(|p| self.clan(p)).collect(),
            seed: self.setup.seed,
            mission: self.setup.mission.clone(),
            turn_ticks: self.setup.config.turn_ticks,
            delay_turns: self.setup.config.delay_turns,
        }
    }

    fn seats(&self) -> Vec<Seat> {
        let clan = |p: u8| self.clan(p);
        let mut seats = vec![Seat {
            player: 0,
            name: self.name.clone(),
            clan: clan(0),
        }];
        seats.extend(self.joined.values().map(|(p, n)| Seat {
            player: *p,
            name: n.clone(),
            clan: clan(*p),
        }));
        seats.sort_by_key(|s| s.player);
        seats
    }

    fn start(&mut self) {
        let seats = self.seats();
        let players: Vec<u8> = seats.iter().map(|s| s.player).collect();
        let base = Welcome {
            player: 0,
            seats,
            seed: self.setup.seed,
            mission: self.setup.mission.clone(),
            turn_ticks: self.setup.config.turn_ticks,
            delay_turns: self.setup.config.delay_turns,
        };
        let clients: Vec<(ClientId, u8)> = self.joined.iter().map(|(&c, j)| (c, j.0)).collect();
        for (c, player) in clients {
            let w = Welcome {
                player,
                ..base.clone()
            };
            self.send_to(c, &Message::Welcome(w));
        }
        self.lockstep = Some(Lockstep::new(self.setup.config, 0, &players));
        self.events.push(Event::Started(base));
    }

    fn relay_orders(&mut self, c: ClientId, o: &Orders) {
        let Some(ls) = self.lockstep.as_mut() else {
            return self.count(
                c,
                |k| k.refused += 1,
                format!("client {c}: orders before the match"),
            );
        };
        if let Err(e) = ls.receive(o) {
            return self.count(c, |k| k.rejected += 1, format!("client {c}: {e}"));
        }
        let last = self.relayed.entry(o.player).or_insert(o.turn);
        *last = (*last).max(o.turn);
        self.broadcast_except(Some(c), &Message::Orders(o.clone()));
    }

    fn relay_hash(&mut self, c: ClientId, h: &TurnHash) {
        let Some(ls) = self.lockstep.as_mut() else {
            return self.count(
                c,
                |k| k.refused += 1,
                format!("client {c}: a hash before the match"),
            );
        };
        match ls.receive_hash(h) {
            Ok(Some(d)) => self.events.push(Event::Desync(d)),
            Ok(None) => {}
            Err(e) => return self.count(c, |k| k.rejected += 1, format!("client {c}: {e}")),
        }
        self.broadcast_except(Some(c), &Message::TurnHash(h.clone()));
    }

    fn relay_chat(&mut self, c: ClientId, chat: Chat) {
        match chat.to {
            Some(0) => self.events.push(Event::Chat(chat)),
            Some(to) => {
                let target = self.joined.iter().find(|(_, j)| j.0 == to).map(|(&c, _)| c);
                if let Some(t) = target {
                    self.send_to(t, &Message::Chat(chat));
                }
            }
            None => {
                self.events.push(Event::Chat(chat.clone()));
                self.broadcast_except(Some(c), &Message::Chat(chat));
            }
        }
    }

    /// Ends the match (PD-NET-END): every client is told that the turns from the first
    /// one the host sent no orders for (its next turn + the delay) do not run; returns
    /// that turn (`None`: the match has not started). The host still runs the turns
    /// before it ([`Host::finished`]). Ending twice keeps the first end.
    pub fn end(&mut self, reason: &str) -> Option<u32> {
        if let Some(t) = self.ended {
            return Some(t);
        }
        let ls = self.lockstep.as_ref()?;
        let turn = ls.next_turn() + ls.config().delay_turns;
        self.ended = Some(turn);
        let left = Left {
            player: 0,
            turn,
            reason: reason.chars().take(wire::MAX_TEXT_BYTES / 4).collect(),
        };
        self.broadcast_except(None, &Message::Left(left));
        Some(turn)
    }

    /// The turn the match ends at, once [`Host::end`] was called.
    pub fn ended(&self) -> Option<u32> {
        self.ended
    }

    /// The player rejoining and the tick whose snapshot the host's engine must hand
    /// [`Host::snapshot`] (the state after it: every turn before the host's next one
    /// run). While one is wanted the host runs no turn (PD-NET-REJOIN). A rejoin is
    /// wanted only once the host's next turn is past the last turn of every player who
    /// left ([`Lockstep::settled_from`]): until then the host plays on, so the
    /// rejoining peer — which knows only who is gone, not their last turns — runs the
    /// same turns as every other peer.
    pub fn snapshot_wanted(&self) -> Option<(u8, u64)> {
        let (_, player, _) = self.pending.as_ref()?;
        let ls = self.lockstep.as_ref()?;
        if ls.next_turn() < ls.settled_from() {
            return None;
        }
        Some((
            *player,
            u64::from(ls.next_turn()) * u64::from(ls.config().turn_ticks),
        ))
    }

    /// Tells the engine, once, the snapshot a pending rejoin now waits for.
    fn announce_rejoin(&mut self) {
        let Some((player, tick)) = self.snapshot_wanted() else {
            return;
        };
        if self.announced == Some(tick) {
            return;
        }
        self.announced = Some(tick);
        let name = self
            .pending
            .as_ref()
            .map(|p| p.2.clone())
            .unwrap_or_default();
        self.events.push(Event::SnapshotWanted { player, name });
    }

    /// Hands the rejoining player the snapshot of the state after `tick` (see the
    /// module docs); the match goes on. `Err`: no player is rejoining, the tick is not
    /// the one wanted, or the snapshot is larger than [`wire::MAX_SNAPSHOT_BYTES`] (the
    /// rejoin is then given up and the seat stays free).
    pub fn snapshot(&mut self, tick: u64, bytes: &[u8]) -> Result<(), String> {
        let Some((player, wanted)) = self.snapshot_wanted() else {
            return Err("no player is rejoining".into());
        };
        if tick != wanted {
            return Err(format!(
                "a snapshot after tick {tick}: tick {wanted} is wanted"
            ));
        }
        let Some((c, _, name)) = self.pending.take() else {
            return Err("no player is rejoining".into());
        };
        self.announced = None;
        let Ok(len) = u32::try_from(bytes.len()).map(|n| n.min(wire::MAX_SNAPSHOT_BYTES + 1))
        else {
            return Err("the snapshot is too large".into());
        };
        if len > wire::MAX_SNAPSHOT_BYTES {
            return Err(format!(
                "a snapshot of {} bytes: the limit is {}",
                bytes.len(),
                wire::MAX_SNAPSHOT_BYTES
            ));
        }
        // Every player of the match has a seat (those gone too, named as they left).
        let here = self.seats();
        let all = self
            .lockstep
            .as_ref()
            .map(Lockstep::players)
            .unwrap_or_default();
        let seats: Vec<Seat> = all
            .iter()
            .map(|&p| match here.iter().find(|s| s.player == p) {
                Some(s) => s.clone(),
                None => Seat {
                    player: p,
                    name: if p == player {
                        name.clone()
                    } else {
                        String::new()
                    },
                    clan: self.clan(p),
                },
            })
            .collect();
        let Some(ls) = self.lockstep.as_mut() else {
            return Err("the match has not started".into());
        };
        let gone: Vec<u8> = ls.gone().into_iter().filter(|&p| p != player).collect();
        let next = ls.next_turn();
        let from = next + ls.config().delay_turns;
        let chunk = wire::MAX_REPORT_BYTES;
        let rejoin = Rejoin {
            player,
            seats,
            seed: self.setup.seed,
            mission: self.setup.mission.clone(),
            turn_ticks: ls.config().turn_ticks,
            delay_turns: ls.config().delay_turns,
            next_turn: next,
            from_turn: from,
            gone,
            chunks: len.div_ceil(chunk as u32).max(1),
            bytes: len,
        };
        let held = ls.held_orders(next);
        ls.player_rejoined(player, from);
        self.send_to(c, &Message::Rejoin(rejoin));
        for (index, piece) in (0u32..).zip(bytes.chunks(chunk)) {
            self.send_to(
                c,
                &Message::SnapshotChunk(SnapshotChunk {
                    index,
                    bytes: piece.to_vec(),
                }),
            );
        }
        if bytes.is_empty() {
            self.send_to(
                c,
                &Message::SnapshotChunk(SnapshotChunk {
                    index: 0,
                    bytes: Vec::new(),
                }),
            );
        }
        for o in held {
            self.send_to(c, &Message::Orders(o));
        }
        self.relayed.insert(player, from.saturating_sub(1));
        let back = Rejoined { player, turn: from };
        self.broadcast_except(None, &Message::Rejoined(back.clone()));
        self.joined.insert(c, (player, name.clone()));
        self.events.push(Event::Admitted { player, name });
        self.events.push(Event::Rejoined(back));
        Ok(())
    }

    /// Whether the match is over for the host: it ended it and ran every turn before
    /// the end.
    pub fn finished(&self) -> bool {
        match (self.ended, self.lockstep.as_ref()) {
            (Some(end), Some(ls)) => ls.next_turn() >= end,
            _ => false,
        }
    }

    /// Players connected now (the host not counted).
    pub fn connected(&self) -> usize {
        self.joined.len()
    }

    /// Runs the host's scheduler one turn on when it may (see [`Lockstep::advance`]):
    /// the turn to simulate; the host's own orders go to every client. Nothing once the
    /// match ended.
    pub fn advance(&mut self, gathered: &[(u8, WireEvent)]) -> Option<Turn> {
        if self.finished() || self.snapshot_wanted().is_some() {
            return None;
        }
        let (turn, mine) = self.lockstep.as_mut()?.advance(gathered)?;
        self.broadcast_except(None, &Message::Orders(mine));
        self.announce_rejoin();
        Some(turn)
    }

    /// The host's hash after a turn: to every client, and compared here.
    pub fn hash(&mut self, turn: u32, tick: u64, hash: [u8; 32]) {
        let Some(ls) = self.lockstep.as_mut() else {
            return;
        };
        let (h, desync) = ls.local_hash(turn, tick, hash);
        self.events.extend(desync.map(Event::Desync));
        self.broadcast_except(None, &Message::TurnHash(h));
    }

    /// Sends the host's state summary after `tick` to every client (a desync report's);
    /// one larger than [`wire::MAX_REPORT_BYTES`] is the error, nothing sent.
    pub fn report(&mut self, tick: u64, bytes: Vec<u8>) -> Result<(), wire::WireError> {
        let m = Message::StateReport(StateReport {
            player: 0,
            tick,
            bytes,
        });
        m.check()?;
        self.broadcast_except(None, &m);
        Ok(())
    }

    /// Says `text` to player `to` (`None`: everyone); a text the wire refuses (longer
    /// than [`wire::MAX_CHAT_BYTES`], a player out of range) is the error, nothing sent.
    pub fn chat(&mut self, to: Option<u8>, text: &str) -> Result<(), wire::WireError> {
        let chat = Chat {
            from: 0,
            to,
            text: text.to_owned(),
        };
        Message::Chat(chat.clone()).check()?;
        match to {
            None => self.broadcast_except(None, &Message::Chat(chat)),
            Some(p) => {
                let target = self.joined.iter().find(|(_, j)| j.0 == p).map(|(&c, _)| c);
                if let Some(t) = target {
                    self.send_to(t, &Message::Chat(chat));
                }
            }
        }
        Ok(())
    }
}

/// A client: a player who joined a host.
pub struct Client {
    client: RenetClient,
    /// The connection's key (PD-NET-FRAME).
    key: u64,
    lockstep: Option<Lockstep>,
    welcome: Option<Welcome>,
    reserved: Option<Reserved>,
    refused: Option<Vec<String>>,
    counters: Counters,
    events: Vec<Event>,
    /// The turn the match ends at, once the host said so (PD-NET-END).
    ended: Option<u32>,
    /// Rejoining: the snapshot so far (PD-NET-REJOIN), until it is whole.
    snapshot: Option<(Rejoin, Vec<u8>)>,
}

impl Client {
    /// A client running `identity` that asks to join as `name` on a connection keyed
    /// `key` (the caller draws it at random: PD-NET-FRAME).
    pub fn new(identity: PeerIdentity, name: &str, key: u64) -> Self {
        Self::with_hello(
            Hello {
                guid: crate::APPLICATION_GUID,
                protocol: crate::PROTOCOL_VERSION,
                identity,
                name: name.to_owned(),
                reserve: false,
            },
            key,
        )
    }

    /// A client in the lobby (PD-NET-RESERVE): it asks the host to keep a seat for
    /// `key` and learns the match ([`Client::reserved`]); it then disconnects, opens
    /// the mission and joins with [`Client::new`] and the same key.
    pub fn reserve(identity: PeerIdentity, name: &str, key: u64) -> Self {
        Self::with_hello(
            Hello {
                guid: crate::APPLICATION_GUID,
                protocol: crate::PROTOCOL_VERSION,
                identity,
                name: name.to_owned(),
                reserve: true,
            },
            key,
        )
    }

    /// A client whose hello says exactly `hello` (another application's GUID or
    /// protocol version included: tools and tests of admission).
    pub fn with_hello(hello: Hello, key: u64) -> Self {
        let mut client = RenetClient::new(ConnectionConfig::default());
        // The transport is the framing: the connection is up from the first datagram.
        client.set_connected();
        send(
            &mut |b| client.send_message(CHANNEL, b),
            &Message::Hello(hello),
        );
        Self {
            client,
            key,
            lockstep: None,
            welcome: None,
            reserved: None,
            refused: None,
            counters: Counters::default(),
            events: Vec::new(),
            ended: None,
            snapshot: None,
        }
    }

    /// A datagram from the host (one that does not open is counted and dropped).
    pub fn process_datagram(&mut self, datagram: &[u8]) {
        match crate::frame::open(self.key, datagram) {
            // A keep-alive: the host is there.
            Ok([]) => {}
            Ok(p) => self.client.process_packet(p),
            Err(e) => self.drop_message(|k| k.datagrams += 1, format!("host: {e}")),
        }
    }

    /// A keep-alive for the host (PD-NET-KEEPALIVE).
    pub fn keepalive(&self) -> Vec<u8> {
        crate::frame::keepalive(self.key)
    }

    /// Datagrams to send to the host.
    pub fn datagrams_to_send(&mut self) -> Vec<Vec<u8>> {
        self.client
            .get_packets_to_send()
            .into_iter()
            .map(|p| crate::frame::seal(self.key, &p))
            .collect()
    }

    /// Whether the connection is still up (renet gave up on it: no).
    pub fn is_connected(&self) -> bool {
        self.client.is_connected()
    }

    /// The match, once welcomed.
    pub fn welcome(&self) -> Option<&Welcome> {
        self.welcome.as_ref()
    }

    /// The seat the host reserved, once a lobby hello was answered.
    pub fn reserved(&self) -> Option<&Reserved> {
        self.reserved.as_ref()
    }

    /// Closes the connection (the host sees it go at once).
    pub fn disconnect(&mut self) {
        self.client.disconnect();
    }

    /// Why the host refused, once it did.
    pub fn refused(&self) -> Option<&[String]> {
        self.refused.as_deref()
    }

    /// The scheduler, once the match started.
    pub fn lockstep(&self) -> Option<&Lockstep> {
        self.lockstep.as_ref()
    }

    /// The drops counted.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Advances the connection by `dt`, reads every message and returns what happened.
    pub fn update(&mut self, dt: Duration) -> Vec<Event> {
        self.client.update(dt);
        while let Some(bytes) = self.client.receive_message(CHANNEL) {
            self.on_message(&bytes);
        }
        std::mem::take(&mut self.events)
    }

    fn drop_message(&mut self, f: impl FnOnce(&mut Counters), why: String) {
        f(&mut self.counters);
        self.events.push(Event::Dropped(why));
    }

    fn on_message(&mut self, bytes: &[u8]) {
        let m = match wire::decode(bytes) {
            Ok(m) => m,
            Err(e) => return self.drop_message(|k| k.malformed += 1, format!("host: {e}")),
        };
        match m {
            Message::Welcome(w) if self.welcome.is_none() => {
                let players: Vec<u8> = w.seats.iter().map(|s| s.player).collect();
                let config = Config {
                    turn_ticks: w.turn_ticks,
                    delay_turns: w.delay_turns,
                };
                self.lockstep = Some(Lockstep::new(config, w.player, &players));
                self.welcome = Some(w.clone());
                self.events.push(Event::Started(w));
            }
            Message::Rejoin(r) if self.welcome.is_none() => {
                let players: Vec<u8> = r.seats.iter().map(|s| s.player).collect();
                let config = Config {
                    turn_ticks: r.turn_ticks,
                    delay_turns: r.delay_turns,
                };
                let mut ls =
                    Lockstep::rejoining(config, r.player, &players, r.next_turn, r.from_turn);
                for &p in &r.gone {
                    ls.player_left(p, 0);
                }
                self.lockstep = Some(ls);
                let w = Welcome {
                    player: r.player,
                    seats: r.seats.clone(),
                    seed: r.seed,
                    mission: r.mission.clone(),
                    turn_ticks: r.turn_ticks,
                    delay_turns: r.delay_turns,
                };
                self.welcome = Some(w.clone());
                self.snapshot = Some((r, Vec::new()));
                self.events.push(Event::Started(w));
            }
            Message::SnapshotChunk(c) => self.on_chunk(c),
            Message::Rejoined(r) => {
                if let Some(ls) = self.lockstep.as_mut() {
                    ls.player_rejoined(r.player, r.turn);
                }
                self.events.push(Event::Rejoined(r));
            }
            Message::Reserved(r) if self.welcome.is_none() && self.reserved.is_none() => {
                self.reserved = Some(r.clone());
                self.events.push(Event::Reserved(r));
            }
            Message::Refused(r) if self.welcome.is_none() => {
                self.refused = Some(r.differences.clone());
                self.events.push(Event::Refused {
                    differences: r.differences,
                });
            }
            Message::Orders(o) => match self.lockstep.as_mut().map(|ls| ls.receive(&o)) {
                Some(Ok(())) => {}
                Some(Err(e)) => self.drop_message(|k| k.rejected += 1, format!("host: {e}")),
                None => {
                    self.drop_message(|k| k.refused += 1, "host: orders before the match".into())
                }
            },
            Message::TurnHash(h) => match self.lockstep.as_mut().map(|ls| ls.receive_hash(&h)) {
                Some(Ok(Some(d))) => self.events.push(Event::Desync(d)),
                Some(Ok(None)) => {}
                Some(Err(e)) => self.drop_message(|k| k.rejected += 1, format!("host: {e}")),
                None => {
                    self.drop_message(|k| k.refused += 1, "host: a hash before the match".into())
                }
            },
            Message::Chat(c) => self.events.push(Event::Chat(c)),
            Message::StateReport(r) => self.events.push(Event::StateReport(r)),
            Message::Left(l) => {
                if l.player == 0 {
                    self.ended = Some(self.ended.map_or(l.turn, |t| t.min(l.turn)));
                } else if let Some(ls) = self.lockstep.as_mut() {
                    ls.player_left(l.player, l.turn);
                }
                self.events.push(Event::Left(l));
            }
            m => self.drop_message(
                |k| k.refused += 1,
                format!("host: a {} message out of place", m.kind()),
            ),
        }
    }

    /// The turn the match ends at, once the host said so (PD-NET-END).
    pub fn ended(&self) -> Option<u32> {
        self.ended
    }

    /// Whether the match is over for this client: the host ended it and every turn
    /// before the end ran.
    pub fn finished(&self) -> bool {
        match (self.ended, self.lockstep.as_ref()) {
            (Some(end), Some(ls)) => ls.next_turn() >= end,
            (Some(_), None) => true,
            _ => false,
        }
    }

    fn on_chunk(&mut self, c: SnapshotChunk) {
        let Some((rejoin, bytes)) = self.snapshot.as_mut() else {
            return self.drop_message(
                |k| k.refused += 1,
                "host: a snapshot chunk out of place".into(),
            );
        };
        let expected = bytes.len().div_ceil(wire::MAX_REPORT_BYTES) as u32;
        let room = (rejoin.bytes as usize).saturating_sub(bytes.len());
        if c.index != expected || c.bytes.len() > room {
            self.snapshot = None;
            self.lockstep = None;
            return self.drop_message(
                |k| k.rejected += 1,
                format!(
                    "host: snapshot chunk {} of {} bytes does not follow (chunk {expected}, {room} bytes left): the rejoin is given up",
                    c.index,
                    c.bytes.len()
                ),
            );
        }
        bytes.extend_from_slice(&c.bytes);
        if bytes.len() == rejoin.bytes as usize {
            let tick = u64::from(rejoin.next_turn) * u64::from(rejoin.turn_ticks);
            let bytes = std::mem::take(bytes);
            self.events.push(Event::Snapshot { tick, bytes });
            self.snapshot = None;
        }
    }

    /// Whether a rejoin's snapshot is still coming (the scheduler runs no turn until it
    /// is whole).
    pub fn awaiting_snapshot(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Runs the scheduler one turn on when it may: the turn to simulate; this player's
    /// orders go to the host. Nothing from the turn the host ended the match at, nor
    /// while a rejoin's snapshot is coming.
    pub fn advance(&mut self, gathered: &[(u8, WireEvent)]) -> Option<Turn> {
        if self.finished() || self.snapshot.is_some() {
            return None;
        }
        let (turn, mine) = self.lockstep.as_mut()?.advance(gathered)?;
        send(
            &mut |b| self.client.send_message(CHANNEL, b),
            &Message::Orders(mine),
        );
        Some(turn)
    }

    /// This player's hash after a turn: to the host, and compared here.
    pub fn hash(&mut self, turn: u32, tick: u64, hash: [u8; 32]) {
        let Some(ls) = self.lockstep.as_mut() else {
            return;
        };
        let (h, desync) = ls.local_hash(turn, tick, hash);
        self.events.extend(desync.map(Event::Desync));
        send(
            &mut |b| self.client.send_message(CHANNEL, b),
            &Message::TurnHash(h),
        );
    }

    /// Sends this player's state summary after `tick` to everyone, through the host,
    /// once the match started (before: nothing, `Ok(false)`); one larger than
    /// [`wire::MAX_REPORT_BYTES`] is the error.
    pub fn report(&mut self, tick: u64, bytes: Vec<u8>) -> Result<bool, wire::WireError> {
        let Some(player) = self.lockstep.as_ref().map(Lockstep::local) else {
            return Ok(false);
        };
        let m = Message::StateReport(StateReport {
            player,
            tick,
            bytes,
        });
        m.check()?;
        send(&mut |b| self.client.send_message(CHANNEL, b), &m);
        Ok(true)
    }

    /// Says `text` to player `to` (`None`: everyone), through the host, once the match
    /// started (before: nothing, `Ok(false)`); a text the wire refuses is the error.
    pub fn chat(&mut self, to: Option<u8>, text: &str) -> Result<bool, wire::WireError> {
        let Some(from) = self.lockstep.as_ref().map(Lockstep::local) else {
            return Ok(false);
        };
        let m = Message::Chat(Chat {
            from,
            to,
            text: text.to_owned(),
        });
        m.check()?;
        send(&mut |b| self.client.send_message(CHANNEL, b), &m);
        Ok(true)
    }
}
