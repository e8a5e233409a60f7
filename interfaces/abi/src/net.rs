//! (2.14) The net slot: multiplayer by input lockstep.
//!
//! **What travels is input** (PD-NET-LOCKSTEP): every peer simulates the whole world;
//! what a player does is their seat's [`InputRecord`]s — the records a replay holds —
//! scheduled for a tick a few turns ahead and run by every peer at that tick. The net
//! plugin carries those records between peers and says which ticks may run; it never
//! touches the world, and its own state (connections, the local player's number) is
//! not simulation: it is outside the state hash and every world change from it is
//! refused ([`crate::ErrorKind::FORBIDDEN`]), like the presentation slots'.
//!
//! **How the engine drives it**, outside the simulation phases:
//! 1. once, after the mission is loaded: [`NetProvider::start`] with the peer's role
//!    ([`NetStart`]: host, dedicated server, joining player, or the lobby that only
//!    reserves a seat);
//! 2. once per presented frame: [`NetProvider::exchange`] with the local seat's records
//!    polled since the last call (player 0's codes: the plugin moves them into its
//!    player's band, PD-INPUT-SEAT-BANDS) and the state hashes the last reports asked
//!    for; the [`NetReport`] answers the ticks whose input is final, in order, each
//!    with every player's records merged — the engine runs exactly those, never a tick
//!    without its input — and what happened (players joining and leaving, chat,
//!    desyncs).
//!
//! A peer without a net plugin (the null plugin) plays alone, as always.
#![allow(non_local_definitions)]

use crate::input::InputRecord;
use crate::types::PluginError;
use abi_stable::StableAbi;
use abi_stable::sabi_trait;
use abi_stable::std_types::{ROption, RResult, RString, RVec};

/// What this peer is in the match (an open number: compare with the constants).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NetRole(pub u32);

impl NetRole {
    /// A player who hosts: player 0, listening on [`NetStart::address`].
    pub const HOST: Self = Self(1);
    /// A dedicated server: player 0 with a spectator's seat (PD-NET-SERVE), listening
    /// on [`NetStart::address`]; it plays no units and gives no orders.
    pub const SERVE: Self = Self(2);
    /// A player joining the host at [`NetStart::address`] with [`NetStart::key`] (the
    /// key its lobby reserved the seat with, or a fresh one).
    pub const JOIN: Self = Self(3);
    /// The lobby: reserve a seat at the host at [`NetStart::address`] for
    /// [`NetStart::key`] and learn the match ([`NetReport::reservation`]); the mission
    /// the engine opened for it is a placeholder and runs no tick.
    pub const RESERVE: Self = Self(4);
}

/// One plugin a peer runs (compared before a player is admitted).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct NetPluginId {
    /// The registry slot (`ai`, `control`, …).
    pub slot: RString,
    /// The plugin's name.
    pub name: RString,
    /// Its version.
    pub version: RString,
}

/// What must match for a player to be admitted (the engine fills it).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq, Eq)]
pub struct NetIdentity {
    /// The engine build.
    pub engine: RString,
    /// The game data's fingerprint (hex BLAKE3, as saves record it).
    pub data: RString,
    /// The enabled mod set's fingerprint.
    pub mods: RString,
    /// The plugins of the simulation slots, ascending slots.
    pub plugins: RVec<NetPluginId>,
}

/// How this peer starts ([`NetProvider::start`]).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetStart {
    /// What this peer is.
    pub role: NetRole,
    /// Host and server: the address to listen on (`127.0.0.1:27100`); join and lobby:
    /// the host's address.
    pub address: RString,
    /// The player's (or the server's) name.
    pub name: RString,
    /// Join and lobby: the connection's key (the same in the lobby and in the match:
    /// it claims the reserved seat). Host and server: unused.
    pub key: u64,
    /// Host and server: the players of the match, player 0 (the host or the server)
    /// included.
    pub players: u32,
    /// Host and server: the clan slot each player commands, by player number (the
    /// mission parameter `seats`; `u32::MAX` a spectator's seat).
    pub clans: RVec<u32>,
    /// Host and server: the match seed (the seed this session runs).
    pub seed: u64,
    /// Host and server: the mission's name.
    pub mission: RString,
    /// Host and server: ticks per turn (0: the plugin's default).
    pub turn_ticks: u32,
    /// Host and server: turns between an order and the turn it runs in (0 with
    /// `turn_ticks` 0: the plugin's default).
    pub delay_turns: u32,
    /// What this peer runs.
    pub identity: NetIdentity,
}

/// The state hash after a tick the plugin asked for ([`NetTick::hash`]).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetHash {
    /// The tick (the kernel's tick number after it ran).
    pub tick: u64,
    /// The state hash (BLAKE3).
    pub hash: [u8; 32],
}

/// What the engine hands the plugin once per presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetFrame {
    /// The engine's platform clock in nanoseconds (monotonic; the transport's timers).
    pub now_ns: u64,
    /// The last tick the engine ran (the plugin runs the next turn when the engine is
    /// within a turn of the ticks handed: turns follow the engine's clock).
    pub tick: u64,
    /// Host and server: end the match (PD-NET-END) — every peer runs the ticks up to
    /// the first turn the host sent no orders for, and no more; the report's state is
    /// [`NetState::ENDED`] once they are handed and the clients were told.
    pub end: bool,
    /// The local seat's records polled since the last exchange, in order (player 0's
    /// codes; empty for a server).
    pub local: RVec<InputRecord>,
    /// The state hashes after the ticks reports asked for, ascending.
    pub hashes: RVec<NetHash>,
    /// A chat line to say (`GMSG_TEXT_FOR_PLAYER`; empty: none).
    pub say: RString,
    /// Whom to say it to: a player number, or `-1` for everyone.
    pub say_to: i32,
    /// A summary of this peer's state after tick `report_tick`, for every other peer's
    /// desync report (the engine's own format; at most 60 KiB; empty: none).
    pub report: RVec<u8>,
    /// The tick `report` summarises.
    pub report_tick: u64,
    /// Host and server: the snapshot [`NetEventKind::SNAPSHOT_WANTED`] asked for — the
    /// engine's save of its state after `snapshot_tick` (empty: none).
    pub snapshot: RVec<u8>,
    /// The tick `snapshot` is the state after.
    pub snapshot_tick: u64,
}

/// A rejoining peer's snapshot ([`NetReport::snapshot`]): the engine restores it (the
/// state after `tick`) before the ticks that follow, which the plugin hands only once
/// [`NetFrame::tick`] says the engine is there.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct NetSnapshot {
    /// The tick it is the state after.
    pub tick: u64,
    /// The engine's save.
    pub bytes: RVec<u8>,
}

/// Another peer's state summary ([`NetFrame::report`]) as it arrived.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct NetStateReport {
    /// Whose.
    pub player: u32,
    /// The tick it summarises.
    pub tick: u64,
    /// The summary.
    pub bytes: RVec<u8>,
}

/// One tick whose input is final.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetTick {
    /// The kernel tick it is (`kernel.tick() + 1` when it runs: ticks come in order,
    /// with no gap).
    pub tick: u64,
    /// Every player's records of the tick, players ascending, each in its band.
    pub records: RVec<InputRecord>,
    /// Hand back the state hash after this tick in a later [`NetFrame::hashes`].
    pub hash: bool,
}

/// The state of the match, as [`NetReport::state`] says (an open number).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NetState(pub u32);

impl NetState {
    /// Not started: waiting for the connection or for the match's players.
    pub const WAITING: Self = Self(0);
    /// The match runs.
    pub const PLAYING: Self = Self(1);
    /// The match is over (the host ended it, or the connection is gone): no tick
    /// beyond the ones reported will come.
    pub const ENDED: Self = Self(2);
    /// The lobby's answer is in ([`NetReport::reservation`]).
    pub const RESERVED: Self = Self(3);
    /// The host refused this peer ([`NetEventKind::REFUSED`] says why).
    pub const REFUSED: Self = Self(4);
}

/// What a [`NetEvent`] says (an open number).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NetEventKind(pub u32);

impl NetEventKind {
    /// Player `player` joined (or its seat was reserved): `text` is its name.
    pub const JOINED: Self = Self(1);
    /// The match started: every seat is taken.
    pub const STARTED: Self = Self(2);
    /// Player `player` left from tick `tick`: `text` says why.
    pub const LEFT: Self = Self(3);
    /// A chat line from `player`: `text`.
    pub const CHAT: Self = Self(4);
    /// The first desync of the match: the state after tick `tick` differs between
    /// players (`text` names them and both hashes).
    pub const DESYNC: Self = Self(5);
    /// Refused by the host: `text` lists every difference, one per line.
    pub const REFUSED: Self = Self(6);
    /// A packet or message was dropped: `text` says what and why.
    pub const DROPPED: Self = Self(7);
    /// The match ended: `text` says why.
    pub const ENDED: Self = Self(8);
    /// Host and server: listening; `text` is the address bound (a port 0 asked for
    /// shows the port the system gave). Reported with the first exchange.
    pub const LISTENING: Self = Self(9);
    /// Host and server: player `player` rejoins (PD-NET-REJOIN): the match waits —
    /// no tick is handed — until the engine, having run every tick handed, hands the
    /// snapshot of its state after tick `tick` ([`NetFrame::snapshot`]).
    pub const SNAPSHOT_WANTED: Self = Self(10);
    /// Player `player`, who left, plays again from tick `tick`.
    pub const REJOINED: Self = Self(11);
}

/// Something that happened in the match.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetEvent {
    /// What.
    pub kind: NetEventKind,
    /// The player it is about.
    pub player: u32,
    /// The tick it is about (0: none).
    pub tick: u64,
    /// Words.
    pub text: RString,
}

/// The match as the lobby learnt it (the engine opens this mission to play it).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetReservation {
    /// This peer's player number (its seat: the mission parameter `local-seat`).
    pub player: u32,
    /// The clan slot of every player's seat (the mission parameter `seats`).
    pub clans: RVec<u32>,
    /// The match seed.
    pub seed: u64,
    /// The mission's name.
    pub mission: RString,
}

/// What the plugin answers an exchange.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct NetReport {
    /// The match's state.
    pub state: NetState,
    /// This peer's player number (0 for the host and the server; a joining player's
    /// once it is known).
    pub player: u32,
    /// The ticks whose input is now final, ascending, following those reported before.
    pub ticks: RVec<NetTick>,
    /// What happened since the last exchange.
    pub events: RVec<NetEvent>,
    /// The players whose orders the next tick waits for (empty: none, or not started).
    pub waiting_for: RVec<u32>,
    /// The lobby's answer ([`NetState::RESERVED`]).
    pub reservation: ROption<NetReservation>,
    /// Other peers' state summaries that arrived (desync reports).
    pub reports: RVec<NetStateReport>,
    /// Rejoining: the snapshot to restore, once whole.
    pub snapshot: ROption<NetSnapshot>,
}

/// The net service (see the module docs), implemented by net plugins.
pub trait NetProvider {
    /// Starts this peer's part in a match (once per mission, before the first
    /// exchange): binds or connects. An address that does not parse or cannot be bound
    /// is [`crate::ErrorKind::INVALID`] naming it.
    fn start(&mut self, start: &NetStart) -> Result<(), PluginError>;

    /// Once per presented frame (see the module docs).
    fn exchange(&mut self, frame: &NetFrame) -> Result<NetReport, PluginError>;
}

/// The FFI form of [`NetProvider`].
#[sabi_trait]
pub trait NetService {
    /// [`NetProvider::start`].
    fn start(&mut self, start: &NetStart) -> RResult<(), PluginError>;
    /// [`NetProvider::exchange`].
    #[sabi(last_prefix_field)]
    fn exchange(&mut self, frame: &NetFrame) -> RResult<NetReport, PluginError>;
}
