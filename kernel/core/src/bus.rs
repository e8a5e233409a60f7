//! Message bus: typed game messages on crossbeam-channel, delivered at phase boundaries
//! in a stable order `(phase, sender, sequence)`.
//!
//! Sending never delivers immediately: envelopes wait in the channel until the kernel
//! drains it at the next phase boundary, sorts the batch and dispatches it. Each
//! sender numbers its own messages, so the order does not depend on thread timing.

use crate::identity::{ObjectHandle, OriginalObjectId};
use crate::phase::Phase;
use crossbeam_channel::{Receiver, Sender};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The game messages of the original engine (`GMSG_*`, `SYSMSG_*`) plus collision.
///
/// Wire layouts of the originals are unknown (FORMATS.md §13.15); fields here are the
/// logical content, and payloads whose meaning is unproven stay raw bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GameMessage {
    /// `GMSG_CREATE_REMOTE_PLAYER`.
    CreateRemotePlayer {
        /// Player number.
        player: u32,
        /// Raw payload.
        data: Vec<u8>,
    },
    /// `GMSG_APPEND_RESOURCE`.
    AppendResource {
        /// Resource name.
        name: Vec<u8>,
        /// Raw payload.
        data: Vec<u8>,
    },
    /// `GMSG_CHANGE_OBJECT_OWNER`.
    ChangeObjectOwner {
        /// Object.
        object: OriginalObjectId,
        /// New owner player.
        new_owner: u32,
    },
    /// `GMSG_SET_PLAYER_DATA`.
    SetPlayerData {
        /// Player number.
        player: u32,
        /// Raw payload.
        data: Vec<u8>,
    },
    /// `GMSG_MISSION_DATA_PATH`.
    MissionDataPath {
        /// Path bytes as sent.
        path: Vec<u8>,
    },
    /// `GMSG_TAKE_OBJECT`.
    TakeObject {
        /// Object.
        object: OriginalObjectId,
        /// Taking player.
        player: u32,
    },
    /// `GMSG_TEXT_FOR_PLAYER`.
    TextForPlayer {
        /// Player number.
        player: u32,
        /// CP1251 text bytes.
        text: Vec<u8>,
    },
    /// `GMSG_SYNC_STATE`.
    SyncState {
        /// Object.
        object: OriginalObjectId,
        /// Raw state payload.
        data: Vec<u8>,
    },
    /// `GMSG_CREATE_MIRROR`.
    CreateMirror {
        /// Id of the remote object.
        object: OriginalObjectId,
        /// Owner player.
        owner: u32,
        /// Raw payload.
        data: Vec<u8>,
    },
    /// `GMSG_PAUSE_REMOTE_PLAYER`.
    PauseRemotePlayer {
        /// Player number.
        player: u32,
        /// Pause (true) or resume.
        paused: bool,
    },
    /// `GMSG_CONFIRM_PLAYER_DATA`.
    ConfirmPlayerData {
        /// Player number.
        player: u32,
    },
    /// `GMSG_KILL_PLAYER`.
    KillPlayer {
        /// Player number.
        player: u32,
    },
    /// `SYSMSG_SET_TIME`.
    SetTime {
        /// Game time in nanoseconds.
        game_time_ns: u64,
    },
    /// `SYSMSG_SET_PLAYER_NUMBER`.
    SetPlayerNumber {
        /// Player number.
        player: u32,
    },
    /// `GMSG_END_MESSAGE_SEQ`.
    EndMessageSeq {
        /// Sequence being closed.
        sequence: u64,
    },
    /// `GMSG_REMOVE_RESOURCE`.
    RemoveResource {
        /// Resource name.
        name: Vec<u8>,
    },
    /// `GMSG_COLLISION_DETECTED` (through the queue, not necessarily the network).
    CollisionDetected {
        /// First object (lower id).
        a: OriginalObjectId,
        /// Second object.
        b: OriginalObjectId,
        /// Contact point.
        point: [f32; 3],
    },
    /// A message of a plugin-defined code: the kernel carries it without interpreting it
    /// (the plugin host validates codes and payload sizes before sending).
    Plugin(PluginMessage),
}

/// The body of a plugin-defined message (flat; the code says what the fields mean).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PluginMessage {
    /// The plugin-defined code.
    pub code: u32,
    /// Only the system with this name receives a broadcast (`None`: every system).
    pub to_system: Option<String>,
    /// The sending system's name, when a system sent it.
    pub from_system: Option<String>,
    /// First object (raw original id).
    pub object_a: u32,
    /// Second object (raw original id).
    pub object_b: u32,
    /// Player number.
    pub player: u32,
    /// Numeric value.
    pub value: u64,
    /// A point.
    pub point: [f32; 3],
    /// Raw payload.
    pub payload: Vec<u8>,
}

impl GameMessage {
    /// The original symbolic name (`GMSG_…` / `SYSMSG_…`).
    pub fn name(&self) -> &'static str {
        match self {
            GameMessage::CreateRemotePlayer { .. } => "GMSG_CREATE_REMOTE_PLAYER",
            GameMessage::AppendResource { .. } => "GMSG_APPEND_RESOURCE",
            GameMessage::ChangeObjectOwner { .. } => "GMSG_CHANGE_OBJECT_OWNER",
            GameMessage::SetPlayerData { .. } => "GMSG_SET_PLAYER_DATA",
            GameMessage::MissionDataPath { .. } => "GMSG_MISSION_DATA_PATH",
            GameMessage::TakeObject { .. } => "GMSG_TAKE_OBJECT",
            GameMessage::TextForPlayer { .. } => "GMSG_TEXT_FOR_PLAYER",
            GameMessage::SyncState { .. } => "GMSG_SYNC_STATE",
            GameMessage::CreateMirror { .. } => "GMSG_CREATE_MIRROR",
            GameMessage::PauseRemotePlayer { .. } => "GMSG_PAUSE_REMOTE_PLAYER",
            GameMessage::ConfirmPlayerData { .. } => "GMSG_CONFIRM_PLAYER_DATA",
            GameMessage::KillPlayer { .. } => "GMSG_KILL_PLAYER",
            GameMessage::SetTime { .. } => "SYSMSG_SET_TIME",
            GameMessage::SetPlayerNumber { .. } => "SYSMSG_SET_PLAYER_NUMBER",
            GameMessage::EndMessageSeq { .. } => "GMSG_END_MESSAGE_SEQ",
            GameMessage::RemoveResource { .. } => "GMSG_REMOVE_RESOURCE",
            GameMessage::CollisionDetected { .. } => "GMSG_COLLISION_DETECTED",
            GameMessage::Plugin(_) => "PLUGIN_MESSAGE",
        }
    }
}

/// Who sent a message; part of the delivery order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SenderId {
    /// The kernel itself.
    Kernel,
    /// A system (future plugin) by its calculation order index.
    System(u16),
    /// A game object, by original id (stable across runs, unlike slots).
    Object(OriginalObjectId),
    /// An external producer (network receive, console) by channel number.
    External(u32),
}

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Target {
    /// One object's event handlers.
    Object(ObjectHandle),
    /// Every system's broadcast handler.
    Systems,
}

/// A message with its delivery key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// Phase in which it was sent.
    pub phase: Phase,
    /// Who sent it.
    pub sender: SenderId,
    /// The sender's own sequence number.
    pub sequence: u64,
    /// Destination.
    pub target: Target,
    /// The message.
    pub message: GameMessage,
}

impl Envelope {
    /// The stable delivery key `(phase stamp, sender, sequence)` ([`Phase::stamp`]: the
    /// calculation boundaries rank alike).
    pub fn order_key(&self) -> (u32, SenderId, u64) {
        (self.phase.stamp(), self.sender, self.sequence)
    }
}

/// A cloneable send handle for producers outside the kernel thread (network, console).
///
/// The phase stamped on its messages is the one given at send time; deliveries still
/// happen only at kernel phase boundaries.
#[derive(Clone, Debug)]
pub struct ExternalSender {
    tx: Sender<Envelope>,
    id: SenderId,
    next_seq: Arc<AtomicU64>,
}

impl ExternalSender {
    /// Sends `message` to `target`; `Err` only if the kernel's bus is gone.
    pub fn send(
        &self,
        phase: Phase,
        target: Target,
        message: GameMessage,
    ) -> Result<(), GameMessage> {
        let sequence = self.next_seq.fetch_add(1, Ordering::SeqCst);
        self.tx
            .send(Envelope {
                phase,
                sender: self.id,
                sequence,
                target,
                message,
            })
            .map_err(|e| e.into_inner().message)
    }
}

/// The kernel's message bus.
#[derive(Debug)]
pub struct Bus {
    tx: Sender<Envelope>,
    rx: Receiver<Envelope>,
    sequences: BTreeMap<SenderId, u64>,
    sent: u64,
    delivered: u64,
}

impl Default for Bus {
    fn default() -> Self {
        Self::new()
    }
}

impl Bus {
    /// An empty, unbounded bus.
    pub fn new() -> Self {
        let (tx, rx) = crossbeam_channel::unbounded();
        Self {
            tx,
            rx,
            sequences: BTreeMap::new(),
            sent: 0,
            delivered: 0,
        }
    }

    /// Posts a message from `sender` stamped with `phase`; it is delivered at the next boundary.
    pub fn send(&mut self, phase: Phase, sender: SenderId, target: Target, message: GameMessage) {
        let seq = self.sequences.entry(sender).or_insert(0);
        let sequence = *seq;
        *seq += 1;
        self.sent += 1;
        // The bus owns both ends, so the channel cannot be disconnected here.
        let _ = self.tx.send(Envelope {
            phase,
            sender,
            sequence,
            target,
            message,
        });
    }

    /// A handle for an external producer numbered `channel`.
    pub fn external_sender(&self, channel: u32) -> ExternalSender {
        ExternalSender {
            tx: self.tx.clone(),
            id: SenderId::External(channel),
            next_seq: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Takes every waiting envelope, sorted by `(phase, sender, sequence)`.
    /// Messages sent while the batch is being handled wait for the next boundary.
    pub fn drain_sorted(&mut self) -> Vec<Envelope> {
        let mut batch: Vec<Envelope> = self.rx.try_iter().collect();
        batch.sort_by_key(Envelope::order_key);
        self.delivered += batch.len() as u64;
        batch
    }

    /// Envelopes waiting for the next boundary.
    pub fn pending(&self) -> usize {
        self.rx.len()
    }

    /// Copies of the envelopes waiting for the next boundary, in delivery order (for the
    /// state hash). They stay queued: delivery sorts every batch, so taking them out and
    /// putting them back cannot change what is delivered or in which order.
    pub fn pending_sorted(&self) -> Vec<Envelope> {
        let waiting: Vec<Envelope> = self.rx.try_iter().collect();
        for e in &waiting {
            // The bus owns both ends, so the channel cannot be disconnected here.
            let _ = self.tx.send(e.clone());
        }
        let mut sorted = waiting;
        sorted.sort_by_key(Envelope::order_key);
        sorted
    }

    /// Total messages posted through [`Bus::send`].
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Total messages handed out by [`Bus::drain_sorted`].
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Per-sender sequence counters, in sender order (part of the state hash).
    pub fn sequences(&self) -> impl Iterator<Item = (&SenderId, &u64)> {
        self.sequences.iter()
    }

    /// What a save keeps of the bus: the pending messages in delivery order, the
    /// per-sender sequence counters and the sent and delivered counts.
    pub(crate) fn saved(&self) -> (Vec<Envelope>, Vec<(SenderId, u64)>, u64, u64) {
        (
            self.pending_sorted(),
            self.sequences.iter().map(|(&k, &v)| (k, v)).collect(),
            self.sent,
            self.delivered,
        )
    }

    /// A bus holding what [`Bus::saved`] returned.
    pub(crate) fn restored(
        pending: Vec<Envelope>,
        sequences: Vec<(SenderId, u64)>,
        sent: u64,
        delivered: u64,
    ) -> Self {
        let bus = Self::new();
        for e in pending {
            // The bus owns both ends, so the channel cannot be disconnected here.
            let _ = bus.tx.send(e);
        }
        Self {
            sequences: sequences.into_iter().collect(),
            sent,
            delivered,
            ..bus
        }
    }

    /// Drops every waiting envelope (shutdown); returns how many were dropped.
    pub fn discard_pending(&mut self) -> usize {
        self.rx.try_iter().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(p: u32) -> GameMessage {
        GameMessage::KillPlayer { player: p }
    }

    #[test]
    fn drain_orders_by_phase_then_sender_then_sequence() {
        let mut bus = Bus::new();
        let obj = |n| SenderId::Object(OriginalObjectId(n));
        bus.send(Phase::UpdateSystems, obj(1), Target::Systems, msg(1));
        bus.send(Phase::CalculateWorld, obj(9), Target::Systems, msg(2));
        bus.send(Phase::CalculateWorld, obj(2), Target::Systems, msg(3));
        bus.send(Phase::CalculateWorld, obj(2), Target::Systems, msg(4));
        bus.send(
            Phase::CalculateWorld,
            SenderId::Kernel,
            Target::Systems,
            msg(5),
        );
        let order: Vec<GameMessage> = bus.drain_sorted().into_iter().map(|e| e.message).collect();
        assert_eq!(order, vec![msg(5), msg(3), msg(4), msg(2), msg(1)]);
        assert_eq!(bus.pending(), 0);
    }

    #[test]
    fn external_senders_from_threads_are_ordered_deterministically() {
        let run = || {
            let mut bus = Bus::new();
            let handles: Vec<_> = (0..4)
                .map(|ch| {
                    let s = bus.external_sender(ch);
                    std::thread::spawn(move || {
                        for i in 0..50 {
                            s.send(Phase::CollectEvents, Target::Systems, msg(ch * 1000 + i))
                                .unwrap();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            bus.drain_sorted()
        };
        let a = run();
        let b = run();
        assert_eq!(a, b);
        assert_eq!(a.len(), 200);
        assert_eq!(a[0].message, msg(0));
        assert_eq!(a[199].message, msg(3049));
    }

    #[test]
    fn names_match_the_original_symbols() {
        assert_eq!(msg(0).name(), "GMSG_KILL_PLAYER");
        assert_eq!(
            GameMessage::SetTime { game_time_ns: 0 }.name(),
            "SYSMSG_SET_TIME"
        );
        let c = GameMessage::CollisionDetected {
            a: OriginalObjectId(1),
            b: OriginalObjectId(2),
            point: [0.0; 3],
        };
        assert_eq!(c.name(), "GMSG_COLLISION_DETECTED");
    }
}
