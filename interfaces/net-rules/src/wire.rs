//! The messages peers exchange and their strict codec.
//!
//! A message is a `postcard` encoding of [`Message`]: its kind first (a varint), then
//! its fields. [`decode`] checks the length before it reads anything, refuses an unknown
//! kind by number ([`WireError::UnknownKind`]: the receiver counts and drops it),
//! refuses trailing bytes, and checks every field against its limit after reading —
//! strings, lists, player numbers, non-finite axis values — so nothing a packet says can
//! make a peer allocate more than the packet's own size or hold a value the rest of the
//! engine does not expect. [`encode`] refuses what [`decode`] would.

use crate::MAX_PLAYERS;
use crate::identity::PeerIdentity;
use serde::{Deserialize, Serialize};

/// The largest message (bytes).
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// The longest name, engine string, fingerprint, mission name or difference (bytes).
pub const MAX_TEXT_BYTES: usize = 256;
/// The longest chat line (bytes).
pub const MAX_CHAT_BYTES: usize = 512;
/// The most plugins an identity lists.
pub const MAX_PLUGINS: usize = 32;
/// The most input records one player's orders for one turn hold.
pub const MAX_EVENTS_PER_TURN: usize = 4096;
/// The most differences a refusal lists.
pub const MAX_DIFFERENCES: usize = 64;
/// The number of message kinds this protocol version knows.
pub const KINDS: u32 = 12;
/// The largest snapshot a rejoining player is sent (bytes).
pub const MAX_SNAPSHOT_BYTES: u32 = 64 << 20;
/// The largest state report (bytes; a message must stay under [`MAX_MESSAGE_BYTES`]).
pub const MAX_REPORT_BYTES: usize = 60 * 1024;

/// One input record of a player's seat (the kernel's `InputEvent`, on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum WireEvent {
    /// A key or button action went down or up.
    Key {
        /// Key code (a bindings action code).
        code: u32,
        /// Pressed.
        down: bool,
    },
    /// An axis has a new value (finite).
    Axis {
        /// Axis number.
        axis: u32,
        /// Value.
        value: f32,
    },
    /// A manual command (`MCMD_STATE` 0, `MCMD_ANGLE_X` 1, `MCMD_ANGLE_Y` 2).
    Manual {
        /// Kind.
        kind: u8,
        /// Argument.
        value: i32,
    },
    /// A game command.
    Command {
        /// Code.
        code: u32,
        /// Argument.
        arg: i32,
    },
}

/// A client asks to join.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The application GUID ([`crate::APPLICATION_GUID`]).
    pub guid: [u8; 16],
    /// The protocol version ([`crate::PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The build, data, mods and plugins the client runs.
    pub identity: PeerIdentity,
    /// The player's name.
    pub name: String,
    /// `true`: only reserve a seat (the lobby, PD-NET-RESERVE) — the host answers
    /// [`Reserved`] and keeps the seat for this connection's key while the client opens
    /// the mission; `false`: play (the seat reserved for this key, else the next free).
    pub reserve: bool,
}

/// The host refuses a client: every difference, in words ([`PeerIdentity::differences`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    /// What differs.
    pub differences: Vec<String>,
}

/// One seat of the match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// Player number (`0..MAX_PLAYERS`).
    pub player: u8,
    /// Name.
    pub name: String,
    /// The clan the player commands.
    pub clan: u32,
}

/// The host admits a client and sets the match up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welcome {
    /// The client's player number.
    pub player: u8,
    /// Every seat of the match, ascending players.
    pub seats: Vec<Seat>,
    /// The match seed.
    pub seed: u64,
    /// The mission.
    pub mission: String,
    /// Ticks per turn (PD-NET-TURN).
    pub turn_ticks: u32,
    /// Turns between an order and its turn (PD-NET-DELAY).
    pub delay_turns: u32,
}

/// The host reserved a seat (PD-NET-RESERVE): what the client needs to open the mission
/// before it connects again, with the same key, to play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reserved {
    /// The client's player number.
    pub player: u8,
    /// The clan slot each player commands, by player number (`players` of them; the
    /// mission parameter `seats` of every peer).
    pub clans: Vec<u32>,
    /// The match seed.
    pub seed: u64,
    /// The mission.
    pub mission: String,
    /// Ticks per turn (PD-NET-TURN).
    pub turn_ticks: u32,
    /// Turns between an order and its turn (PD-NET-DELAY).
    pub delay_turns: u32,
}

/// A player's summary of its state after a tick, sent when a desync is seen so every
/// peer can name what differs (the engine's format: the wire only carries the bytes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateReport {
    /// Whose.
    pub player: u8,
    /// The tick it summarises.
    pub tick: u64,
    /// The summary (at most [`MAX_REPORT_BYTES`]).
    pub bytes: Vec<u8>,
}

/// Host → a player who rejoins a running match (PD-NET-REJOIN): the match, where it
/// stands, and the snapshot that follows in [`SnapshotChunk`]s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejoin {
    /// The player's number (the seat it had).
    pub player: u8,
    /// Every seat of the match, ascending players.
    pub seats: Vec<Seat>,
    /// The match seed.
    pub seed: u64,
    /// The mission.
    pub mission: String,
    /// Ticks per turn.
    pub turn_ticks: u32,
    /// Turns between an order and its turn.
    pub delay_turns: u32,
    /// The host's next turn: the snapshot is the state after tick
    /// `next_turn × turn_ticks`.
    pub next_turn: u32,
    /// The first turn the player's orders count for.
    pub from_turn: u32,
    /// The other players who left and are not back (not waited for).
    pub gone: Vec<u8>,
    /// The snapshot's chunks.
    pub chunks: u32,
    /// The snapshot's bytes (at most [`MAX_SNAPSHOT_BYTES`]).
    pub bytes: u32,
}

/// One piece of a rejoin's snapshot, in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotChunk {
    /// Its place (0-based).
    pub index: u32,
    /// Its bytes (at most [`MAX_REPORT_BYTES`]).
    pub bytes: Vec<u8>,
}

/// Host → everyone else: a player who left plays again from `turn` on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejoined {
    /// Who.
    pub player: u8,
    /// The first turn their orders count for.
    pub turn: u32,
}

/// One player's orders for one turn: the records of each of its ticks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Orders {
    /// The turn they run in.
    pub turn: u32,
    /// Whose.
    pub player: u8,
    /// `(tick within the turn, record)`, ticks ascending, records in order.
    pub events: Vec<(u8, WireEvent)>,
}

/// A player's state hash after running a turn (PD-NET-HASH).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnHash {
    /// The turn run.
    pub turn: u32,
    /// Whose.
    pub player: u8,
    /// The tick the hash was taken after (the turn's last).
    pub tick: u64,
    /// The state hash (BLAKE3).
    pub hash: [u8; 32],
}

/// A text for one player or everyone (`GMSG_TEXT_FOR_PLAYER`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chat {
    /// Who says it.
    pub from: u8,
    /// To whom (`None`: everyone).
    pub to: Option<u8>,
    /// The text.
    pub text: String,
}

/// The host says a player left: turns from `turn` on do not wait for them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    /// Who.
    pub player: u8,
    /// The first turn without them.
    pub turn: u32,
    /// Why (disconnected, timed out, quit).
    pub reason: String,
}

/// Every message of the protocol (its kind is its place here: append only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// Client → host: asks to join.
    Hello(Hello),
    /// Host → client: not admitted.
    Refused(Refused),
    /// Host → client: admitted, and the match.
    Welcome(Welcome),
    /// A player's orders for a turn (relayed by the host).
    Orders(Orders),
    /// A player's hash after a turn (relayed by the host).
    TurnHash(TurnHash),
    /// A chat line (relayed by the host).
    Chat(Chat),
    /// Host → everyone: a player left.
    Left(Left),
    /// Host → client: a seat is reserved (the lobby's answer).
    Reserved(Reserved),
    /// A player's state summary for a desync report (relayed by the host).
    StateReport(StateReport),
    /// Host → a rejoining player: the match and the snapshot to come.
    Rejoin(Rejoin),
    /// Host → a rejoining player: a piece of the snapshot.
    SnapshotChunk(SnapshotChunk),
    /// Host → everyone else: a player is back.
    Rejoined(Rejoined),
}

/// Why bytes are not a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Longer than [`MAX_MESSAGE_BYTES`].
    #[error("message of {len} bytes: the limit is {MAX_MESSAGE_BYTES}")]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// No bytes.
    #[error("empty message")]
    Empty,
    /// A kind this protocol version does not know (counted and dropped).
    #[error("unknown message kind {kind}")]
    UnknownKind {
        /// The kind.
        kind: u32,
    },
    /// The fields do not decode.
    #[error("{kind} message: {why}")]
    Malformed {
        /// The kind's name.
        kind: &'static str,
        /// What the decoder said.
        why: String,
    },
    /// Bytes after the message.
    #[error("{kind} message: {extra} bytes after its end")]
    Trailing {
        /// The kind's name.
        kind: &'static str,
        /// How many.
        extra: usize,
    },
    /// A field out of its limit.
    #[error("{kind} message: {field}: {why}")]
    Field {
        /// The kind's name.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// What is wrong.
        why: String,
    },
}

impl Message {
    /// The kind's name (for errors and logs).
    pub fn kind(&self) -> &'static str {
        KIND_NAMES[self.kind_number() as usize]
    }

    fn kind_number(&self) -> u32 {
        match self {
            Message::Hello(_) => 0,
            Message::Refused(_) => 1,
            Message::Welcome(_) => 2,
            Message::Orders(_) => 3,
            Message::TurnHash(_) => 4,
            Message::Chat(_) => 5,
            Message::Left(_) => 6,
            Message::Reserved(_) => 7,
            Message::StateReport(_) => 8,
            Message::Rejoin(_) => 9,
            Message::SnapshotChunk(_) => 10,
            Message::Rejoined(_) => 11,
        }
    }

    /// Every field within its limit.
    pub fn check(&self) -> Result<(), WireError> {
        let kind = self.kind();
        let field = |field: &'static str, why: String| WireError::Field { kind, field, why };
        let text = |name: &'static str, s: &str, max: usize| {
            if s.len() > max {
                Err(field(
                    name,
                    format!("{} bytes, the limit is {max}", s.len()),
                ))
            } else {
                Ok(())
            }
        };
        let player = |name: &'static str, p: u8| {
            if usize::from(p) >= MAX_PLAYERS {
                Err(field(
                    name,
                    format!("player {p}: players are 0..{MAX_PLAYERS}"),
                ))
            } else {
                Ok(())
            }
        };
        match self {
            Message::Hello(h) => {
                text("name", &h.name, MAX_TEXT_BYTES)?;
                h.identity.check().map_err(|why| field("identity", why))?;
            }
            Message::Refused(r) => {
                if r.differences.len() > MAX_DIFFERENCES {
                    return Err(field(
                        "differences",
                        format!(
                            "{} listed, the limit is {MAX_DIFFERENCES}",
                            r.differences.len()
                        ),
                    ));
                }
                for d in &r.differences {
                    text("differences", d, MAX_TEXT_BYTES)?;
                }
            }
            Message::Welcome(w) => {
                player("player", w.player)?;
                text("mission", &w.mission, MAX_TEXT_BYTES)?;
                seats(&w.seats, w.player).map_err(|(f, why)| field(f, why))?;
                turns(w.turn_ticks, w.delay_turns).map_err(|(f, why)| field(f, why))?;
            }
            Message::Reserved(r) => {
                player("player", r.player)?;
                text("mission", &r.mission, MAX_TEXT_BYTES)?;
                if r.clans.is_empty() || r.clans.len() > MAX_PLAYERS {
                    return Err(field(
                        "clans",
                        format!("{} players: 1..={MAX_PLAYERS}", r.clans.len()),
                    ));
                }
                if usize::from(r.player) >= r.clans.len() {
                    return Err(field(
                        "player",
                        format!("player {} of {}", r.player, r.clans.len()),
                    ));
                }
                turns(r.turn_ticks, r.delay_turns).map_err(|(f, why)| field(f, why))?;
            }
            Message::Orders(o) => {
                player("player", o.player)?;
                if o.events.len() > MAX_EVENTS_PER_TURN {
                    return Err(field(
                        "events",
                        format!(
                            "{} records, the limit is {MAX_EVENTS_PER_TURN}",
                            o.events.len()
                        ),
                    ));
                }
                for pair in o.events.windows(2) {
                    if pair[0].0 > pair[1].0 {
                        return Err(field("events", "ticks not ascending".into()));
                    }
                }
                for (_, e) in &o.events {
                    match e {
                        WireEvent::Axis { value, .. } if !value.is_finite() => {
                            return Err(field("events", format!("axis value {value}")));
                        }
                        WireEvent::Manual { kind, .. } if *kind > 2 => {
                            return Err(field("events", format!("manual command kind {kind}")));
                        }
                        _ => {}
                    }
                }
            }
            Message::TurnHash(h) => player("player", h.player)?,
            Message::Chat(c) => {
                player("from", c.from)?;
                if let Some(to) = c.to {
                    player("to", to)?;
                }
                text("text", &c.text, MAX_CHAT_BYTES)?;
            }
            Message::Left(l) => {
                player("player", l.player)?;
                text("reason", &l.reason, MAX_TEXT_BYTES)?;
            }
            Message::Rejoin(r) => {
                player("player", r.player)?;
                text("mission", &r.mission, MAX_TEXT_BYTES)?;
                seats(&r.seats, r.player).map_err(|(f, why)| field(f, why))?;
                turns(r.turn_ticks, r.delay_turns).map_err(|(f, why)| field(f, why))?;
                if r.gone.len() > MAX_PLAYERS {
                    return Err(field("gone", format!("{} players", r.gone.len())));
                }
                for &g in &r.gone {
                    player("gone", g)?;
                }
                if r.from_turn < r.next_turn {
                    return Err(field(
                        "from_turn",
                        format!("{} before the next turn {}", r.from_turn, r.next_turn),
                    ));
                }
                if r.bytes > MAX_SNAPSHOT_BYTES {
                    return Err(field(
                        "bytes",
                        format!("{} bytes, the limit is {MAX_SNAPSHOT_BYTES}", r.bytes),
                    ));
                }
                let chunks = r.bytes.div_ceil(MAX_REPORT_BYTES as u32).max(1);
                if r.chunks != chunks {
                    return Err(field(
                        "chunks",
                        format!("{} for {} bytes: {chunks} expected", r.chunks, r.bytes),
                    ));
                }
            }
            Message::SnapshotChunk(c) => {
                if c.bytes.len() > MAX_REPORT_BYTES {
                    return Err(field(
                        "bytes",
                        format!("{} bytes, the limit is {MAX_REPORT_BYTES}", c.bytes.len()),
                    ));
                }
            }
            Message::Rejoined(r) => player("player", r.player)?,
            Message::StateReport(r) => {
                player("player", r.player)?;
                if r.bytes.len() > MAX_REPORT_BYTES {
                    return Err(field(
                        "bytes",
                        format!("{} bytes, the limit is {MAX_REPORT_BYTES}", r.bytes.len()),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Seats of a match: 1 to [`MAX_PLAYERS`], players ascending and in range, names
/// within their limit, `player` among them.
fn seats(seats: &[Seat], player: u8) -> Result<(), (&'static str, String)> {
    if seats.is_empty() || seats.len() > MAX_PLAYERS {
        return Err(("seats", format!("{} seats: 1..={MAX_PLAYERS}", seats.len())));
    }
    for pair in seats.windows(2) {
        if pair[0].player >= pair[1].player {
            return Err(("seats", "players not ascending".into()));
        }
    }
    for s in seats {
        if usize::from(s.player) >= MAX_PLAYERS {
            return Err((
                "seats",
                format!("player {}: players are 0..{MAX_PLAYERS}", s.player),
            ));
        }
        if s.name.len() > MAX_TEXT_BYTES {
            return Err((
                "seats",
                format!("{} bytes, the limit is {MAX_TEXT_BYTES}", s.name.len()),
            ));
        }
    }
    if !seats.iter().any(|s| s.player == player) {
        return Err(("player", format!("player {player} has no seat")));
    }
    Ok(())
}

/// The turn length and delay within their limits (`1..=60` ticks, `0..=30` turns).
fn turns(turn_ticks: u32, delay_turns: u32) -> Result<(), (&'static str, String)> {
    if !(1..=60).contains(&turn_ticks) {
        return Err(("turn_ticks", format!("{turn_ticks}: 1..=60")));
    }
    if delay_turns > 30 {
        return Err(("delay_turns", format!("{delay_turns}: 0..=30")));
    }
    Ok(())
}

const KIND_NAMES: [&str; KINDS as usize] = [
    "hello",
    "refused",
    "welcome",
    "orders",
    "turn-hash",
    "chat",
    "left",
    "reserved",
    "state-report",
    "rejoin",
    "snapshot-chunk",
    "rejoined",
];

/// Encodes `m` (checked first: what [`decode`] refuses is never sent).
pub fn encode(m: &Message) -> Result<Vec<u8>, WireError> {
    m.check()?;
    let bytes = postcard::to_allocvec(m).map_err(|e| WireError::Malformed {
        kind: m.kind(),
        why: e.to_string(),
    })?;
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(WireError::TooLong { len: bytes.len() });
    }
    Ok(bytes)
}

/// Decodes one message (see the module docs for what is checked, and in which order).
pub fn decode(bytes: &[u8]) -> Result<Message, WireError> {
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(WireError::TooLong { len: bytes.len() });
    }
    let Some(&first) = bytes.first() else {
        return Err(WireError::Empty);
    };
    // The kind is a varint; every known kind fits its first byte.
    if first >= 0x80 || u32::from(first) >= KINDS {
        let mut kind: u64 = 0;
        for (k, b) in bytes.iter().take(5).enumerate() {
            kind |= u64::from(b & 0x7F) << (7 * k);
            if b & 0x80 == 0 {
                break;
            }
        }
        return Err(WireError::UnknownKind {
            kind: u32::try_from(kind).unwrap_or(u32::MAX),
        });
    }
    let kind = KIND_NAMES[usize::from(first)];
    let (m, rest): (Message, &[u8]) =
        postcard::take_from_bytes(bytes).map_err(|e| WireError::Malformed {
            kind,
            why: e.to_string(),
        })?;
    if !rest.is_empty() {
        return Err(WireError::Trailing {
            kind,
            extra: rest.len(),
        });
    }
    m.check()?;
    Ok(m)
}

/// What a fuzzer checks on any bytes: decoding never panics, and a message that decodes
/// encodes (it passed the same checks) and decodes again equal.
pub fn fuzz_check(bytes: &[u8]) {
    if let Ok(m) = decode(bytes) {
        let again = encode(&m).expect("a decoded message encodes");
        assert_eq!(decode(&again).expect("and decodes"), m);
    }
}

#[cfg(test)]
mod tests;
