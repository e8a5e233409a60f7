//! Canonical state hash: sorted ids, transforms, key properties, the queue's traversal
//! order, pending messages, clocks, RNG states and system digests.
//!
//! The hash never sees pointers, allocation order or wall-clock time. Objects are visited
//! in ascending [`OriginalObjectId`] order, then the queue order is folded in as the list
//! of ids in traversal order (two worlds with the same objects in another order differ);
//! pending messages in delivery order `(phase, sender, sequence)`. Floats are hashed by
//! their bit patterns, and every variable-length field is length-prefixed.

use crate::bus::{Envelope, Target};
use crate::identity::{Locality, OriginalObjectId};
use crate::input::InputSnapshot;
use crate::rng::StreamState;
use crate::world::{GameObject, World};
use std::fmt;

/// A 256-bit BLAKE3 digest of the canonical simulation state.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StateHash(pub [u8; 32]);

impl StateHash {
    /// Lower-case hex, 64 digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Self> {
        if s.len() != 64 || !s.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Self(out))
    }
}

impl fmt::Display for StateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for StateHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateHash({})", self.to_hex())
    }
}

/// Clock values that belong to the simulation state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockState {
    /// Completed ticks.
    pub tick: u64,
    /// Fixed step in nanoseconds.
    pub step_ns: u64,
    /// Game clock paused.
    pub paused: bool,
    /// Game clock scale.
    pub scale: (u32, u32),
}

/// Incremental builder of a [`StateHash`].
///
/// Fields are encoded into a buffer that is fed to BLAKE3 in large chunks (many tiny
/// `update` calls cost ten times more than the hashing itself).
pub struct StateHasher {
    h: Buffered,
    scratch: Vec<(OriginalObjectId, usize)>,
}

struct Buffered {
    hasher: blake3::Hasher,
    buf: Vec<u8>,
}

impl Buffered {
    const CHUNK: usize = 64 * 1024;

    fn update(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= Self::CHUNK {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
    }

    fn finalize(&self) -> blake3::Hash {
        let mut h = self.hasher.clone();
        h.update(&self.buf);
        h.finalize()
    }
}

impl Default for StateHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl StateHasher {
    /// A hasher primed with the format tag.
    pub fn new() -> Self {
        let mut h = Buffered {
            hasher: blake3::Hasher::new(),
            buf: Vec::with_capacity(Buffered::CHUNK + 256),
        };
        h.update(b"iron3d-state-v1\0");
        Self {
            h,
            scratch: Vec::new(),
        }
    }

    fn u32(&mut self, v: u32) {
        self.h.update(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.h.update(&v.to_le_bytes());
    }

    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.u32(x.to_bits());
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.h.update(b);
    }

    /// Folds in the clocks.
    pub fn clocks(&mut self, c: ClockState) {
        self.h.update(b"clk");
        self.u64(c.tick);
        self.u64(c.step_ns);
        self.u32(u32::from(c.paused));
        self.u32(c.scale.0);
        self.u32(c.scale.1);
    }

    /// Folds in simulation RNG stream positions (the cosmetic stream is skipped).
    pub fn rng(&mut self, states: &[StreamState]) {
        self.h.update(b"rng");
        for s in states.iter().filter(|s| s.name.is_simulation()) {
            self.u32(s.name as u32);
            self.u64(s.seed);
            self.u64(s.calls);
            self.h.update(&s.word_pos.to_le_bytes());
        }
    }

    /// Folds in the persistent input state (held keys and analog axes; edges are per tick).
    pub fn input(&mut self, input: &InputSnapshot) {
        self.h.update(b"inp");
        self.u64(input.held.len() as u64);
        for &k in &input.held {
            self.u32(k);
        }
        self.u64(input.axes.len() as u64);
        for (&axis, &v) in &input.axes {
            self.u32(axis);
            self.u32(v.to_bits());
        }
    }

    /// Folds in every registered object, sorted by original id.
    pub fn world(&mut self, world: &World) {
        self.h.update(b"obj");
        let objects: Vec<&GameObject> = world.iter_registered().map(|(_, o)| o).collect();
        self.scratch.clear();
        self.scratch
            .extend(objects.iter().enumerate().map(|(i, o)| (o.id, i)));
        self.scratch.sort_unstable();
        self.u64(objects.len() as u64);
        let order = std::mem::take(&mut self.scratch);
        for &(_, i) in &order {
            self.object(objects[i]);
        }
        self.scratch = order;
    }

    fn object(&mut self, o: &GameObject) {
        self.u32(o.id.raw());
        match o.locality {
            Locality::Local => self.u32(0),
            Locality::Mirror { owner_player } => {
                self.u32(1);
                self.u32(owner_player);
            }
        }
        self.u32(o.kind);
        self.bytes(&o.prototype);
        self.u32(u32::from(o.active) | (u32::from(o.is_pending_delete()) << 1));
        self.f32s(&o.transform.position.to_array());
        self.f32s(&o.transform.orientation.to_array());
        self.f32s(&o.transform.scale.to_array());
        self.f32s(&o.velocity.to_array());
        self.u32(o.behaviour_state);
        self.u64(o.props.len() as u64);
        for p in o.props.iter() {
            self.bytes(&p.name);
            for w in p.raw_value {
                self.u32(w);
            }
        }
    }

    /// Folds in the queue's traversal order: the original ids of the registered objects
    /// in the order `calculate_world_queue` visits them.
    pub fn queue(&mut self, world: &World) {
        self.h.update(b"que");
        self.u64(world.registered_count() as u64);
        for (_, o) in world.iter_registered() {
            self.u32(o.id.raw());
        }
        // Changes not yet reported to the systems are state too.
        self.u64(world.pending_changes().len() as u64);
        for c in world.pending_changes() {
            match *c {
                crate::world::WorldChange::Added(_, id) => {
                    self.u32(1);
                    self.u32(id.raw());
                }
                crate::world::WorldChange::Removed(id) => {
                    self.u32(2);
                    self.u32(id.raw());
                }
            }
        }
    }

    /// Folds in the messages waiting for the next boundary, in delivery order. An
    /// object target is hashed by the object's original id (`u32::MAX` once it is gone);
    /// the message by its canonical JSON form.
    pub fn messages(&mut self, pending: &[Envelope], world: &World) {
        self.h.update(b"msg");
        self.u64(pending.len() as u64);
        for e in pending {
            self.u32(e.phase.stamp());
            let sender = serde_json::to_vec(&e.sender).unwrap_or_default();
            self.bytes(&sender);
            self.u64(e.sequence);
            match e.target {
                Target::Systems => self.u32(0),
                Target::Object(h) => {
                    self.u32(1);
                    self.u32(world.get(h).map_or(u32::MAX, |o| o.id.raw()));
                }
            }
            let body = serde_json::to_vec(&e.message).unwrap_or_default();
            self.bytes(&body);
        }
    }

    /// Folds in the bus's per-sender sequence counters (they number future messages and
    /// so decide their delivery order), in sender order.
    pub fn sequences<'a>(
        &mut self,
        counters: impl Iterator<Item = (&'a crate::bus::SenderId, &'a u64)>,
    ) {
        self.h.update(b"seq");
        let list: Vec<(Vec<u8>, u64)> = counters
            .map(|(s, &n)| (serde_json::to_vec(s).unwrap_or_default(), n))
            .collect();
        self.u64(list.len() as u64);
        for (sender, n) in list {
            self.bytes(&sender);
            self.u64(n);
        }
    }

    /// Folds in one system's state digest under its name.
    pub fn system_digest(&mut self, name: &str, digest: &[u8; 32]) {
        self.h.update(b"sys");
        self.bytes(name.as_bytes());
        self.h.update(digest);
    }

    /// The final hash.
    pub fn finish(&self) -> StateHash {
        StateHash(*self.h.finalize().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::ObjectDesc;

    fn world_with(ids: &[u32]) -> World {
        let mut w = World::default();
        for &id in ids {
            let h = w
                .create(ObjectDesc {
                    id: Some(OriginalObjectId(id)),
                    ..Default::default()
                })
                .unwrap();
            w.add_to_game(h).unwrap();
        }
        w
    }

    fn hash(w: &World) -> StateHash {
        let mut h = StateHasher::new();
        h.world(w);
        h.finish()
    }

    #[test]
    fn hash_ignores_registration_order_and_slots() {
        assert_eq!(hash(&world_with(&[1, 2, 3])), hash(&world_with(&[3, 1, 2])));
        let mut w = world_with(&[9, 1, 2, 3]);
        let nine = w.handle_of(OriginalObjectId(9)).unwrap();
        w.delete(nine, crate::world::DeleteMode::Normal);
        assert_eq!(hash(&w), hash(&world_with(&[1, 2, 3])));
    }

    #[test]
    fn hash_sees_transforms_and_properties() {
        let base = hash(&world_with(&[1, 2]));
        let mut w = world_with(&[1, 2]);
        let h = w.handle_of(OriginalObjectId(2)).unwrap();
        w.get_mut(h).unwrap().transform.position.x = 1e-6;
        assert_ne!(hash(&w), base);
        let mut w = world_with(&[1, 2]);
        let h = w.handle_of(OriginalObjectId(2)).unwrap();
        w.get_mut(h).unwrap().props.push("Life state", [0; 4]);
        assert_ne!(hash(&w), base);
    }

    #[test]
    fn hex_roundtrip() {
        let h = hash(&world_with(&[5]));
        assert_eq!(StateHash::from_hex(&h.to_hex()), Some(h));
        assert_eq!(h.to_hex().len(), 64);
        assert!(StateHash::from_hex("zz").is_none());
    }
}
