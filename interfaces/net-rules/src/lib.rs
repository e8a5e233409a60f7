//! The multiplayer netcode as a library (issue 40), free of I/O and of the kernel, so
//! every rule is tested on its own and the same code runs over UDP, over the loopback
//! interface and over the in-memory network of the tests.
//!
//! # The model: input lockstep
//! Every peer simulates the whole world; what travels is what the players do. **PD-NET-
//! LOCKSTEP**: a player's orders are the input records of their seat (the same records
//! a replay log holds: keys and buttons as bindings actions, axes, manual `MCMD_*`
//! commands, game commands), so a match is exactly a replay with several seats, and
//! what makes replays exact makes the peers agree. The shape follows OpenRA and 0 A.D.
//! (orders batched per turn, a hash per turn) — their ideas, none of their code.
//!
//! * **Turns** ([`lockstep`]): the simulation's ticks are grouped into turns of
//!   [`DEFAULT_TURN_TICKS`] ticks (**PD-NET-TURN**). What the local player does during
//!   turn `n` is sent at its end and scheduled for turn `n + delay`
//!   ([`DEFAULT_DELAY_TURNS`], **PD-NET-DELAY**), so it arrives before it is needed
//!   on a link of up to `delay × turn` latency. A peer runs a turn only once every
//!   player in the match sent theirs (an empty turn is still sent): it **waits, never
//!   guesses**. The first `delay` turns are empty for everyone.
//! * **Hashes** (**PD-NET-HASH**): after running a turn each peer sends the state hash
//!   at its last tick; a peer that receives another's hash for a turn it ran compares
//!   them, and the first difference is a [`lockstep::Desync`] naming the turn, the tick
//!   and the two players.
//! * **Relay** (**PD-NET-STAR**): the host (a player who hosts, or the dedicated
//!   server) relays every player's orders and hashes to the others; clients talk only
//!   to it. Every message rides one reliable ordered channel ([`renet`], which is
//!   I/O-free: our transports feed it packets — see [`memory`]).
//!
//! # The wire ([`wire`])
//! One [`wire::Message`] per channel message, encoded with `postcard`; **length checked
//! before anything is read** ([`wire::MAX_MESSAGE_BYTES`]), every count bounded by the
//! bytes that carry it and by its own limit, trailing bytes refused, unknown kinds an
//! error the receiver counts and drops ([`wire::WireError`]).
//!
//! # Admission ([`identity`])
//! A player is admitted only when the application GUID ([`APPLICATION_GUID`], the
//! original's), the protocol version, the engine build, the data fingerprint, the
//! mod-set fingerprint and the plugin set all match the host's; a refusal lists every
//! difference, in the same words on both sides.
//!
//! # The original's messages and rules
//! `SPEC-13-15.md` beside this crate maps every message and network rule of FORMATS
//! §13.15 (tome VI) onto this lockstep — the message kind, rule or project decision
//! that covers it, or why it does not exist here — with the test that checks it
//! (`tests/spec_13_15.rs` holds those that span modules).

pub mod frame;
pub mod identity;
pub mod lockstep;
pub mod memory;
pub mod session;
pub mod sync;
pub mod wire;

/// The application GUID of the original's DirectPlay session (FORMATS §13.15):
/// `{3C1D1F01-A870-11D1-8400-000021B14415}`, in its textual byte order.
pub const APPLICATION_GUID: [u8; 16] = [
    0x3C, 0x1D, 0x1F, 0x01, 0xA8, 0x70, 0x11, 0xD1, 0x84, 0x00, 0x00, 0x00, 0x21, 0xB1, 0x44, 0x15,
];

/// The protocol version: a peer of another version is refused by name.
pub const PROTOCOL_VERSION: u32 = 1;

/// PD-NET-TURN: ticks per turn (at the kernel's 30 Hz, 100 ms: 0 A.D. uses 200 ms turns
/// online, OpenRA about 120 ms; a shorter turn is a shorter delay for the player).
pub const DEFAULT_TURN_TICKS: u32 = 3;

/// PD-NET-DELAY: turns between a local order and the turn it runs in (200 ms at the
/// default turn: a link of up to ~200 ms round trip never makes a peer wait).
pub const DEFAULT_DELAY_TURNS: u32 = 2;

/// The most players in one match (the original's clans number far more; 16 seats).
pub const MAX_PLAYERS: usize = 16;

/// Formats a GUID as the original writes it: `{3C1D1F01-A870-11D1-8400-000021B14415}`.
pub fn guid_text(g: &[u8; 16]) -> String {
    let h =
        |r: std::ops::Range<usize>| -> String { g[r].iter().map(|b| format!("{b:02X}")).collect() };
    format!(
        "{{{}-{}-{}-{}-{}}}",
        h(0..4),
        h(4..6),
        h(6..8),
        h(8..10),
        h(10..16)
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_guid_is_the_originals() {
        assert_eq!(
            super::guid_text(&super::APPLICATION_GUID),
            "{3C1D1F01-A870-11D1-8400-000021B14415}"
        );
    }
}
