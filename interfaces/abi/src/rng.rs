//! Deterministic random streams that belong to a plugin: seeded from
//! [`crate::Host::rng_seed`] (mission seed, slot and stream name), advanced only by the
//! plugin, and saved with its state so a hot swap or a save game continues the sequence.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// One named stream (ChaCha8). Same seed, same calls → same numbers on every machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginRng {
    seed: u64,
    rng: ChaCha8Rng,
}

/// Bytes of [`PluginRng::to_bytes`].
pub const PLUGIN_RNG_BYTES: usize = 24;

impl PluginRng {
    /// A stream at its start.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    /// A uniform value in `[0, 1)` with 24 bits of precision.
    pub fn next_unit(&mut self) -> f32 {
        (self.rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    /// A value in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u32) -> u32 {
        if n == 0 { 0 } else { self.rng.next_u32() % n }
    }

    /// Seed and position, for a state blob.
    pub fn to_bytes(&self) -> [u8; PLUGIN_RNG_BYTES] {
        let mut b = [0u8; PLUGIN_RNG_BYTES];
        b[..8].copy_from_slice(&self.seed.to_le_bytes());
        b[8..].copy_from_slice(&self.rng.get_word_pos().to_le_bytes());
        b
    }

    /// The stream saved by [`PluginRng::to_bytes`]; `None` unless `bytes` is exactly
    /// [`PLUGIN_RNG_BYTES`] long.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let b: &[u8; PLUGIN_RNG_BYTES] = bytes.try_into().ok()?;
        let seed = u64::from_le_bytes(b[..8].try_into().ok()?);
        let pos = u128::from_le_bytes(b[8..].try_into().ok()?);
        let mut r = Self::new(seed);
        r.rng.set_word_pos(pos);
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_stream_continues_where_it_stopped() {
        let mut a = PluginRng::new(42);
        for _ in 0..5 {
            a.next_u32();
        }
        let mut b = PluginRng::from_bytes(&a.to_bytes()).unwrap();
        assert_eq!(a.next_u32(), b.next_u32());
        assert_eq!(a, b);
        assert!(PluginRng::from_bytes(&[0; 3]).is_none());
        let u = PluginRng::new(1).next_unit();
        assert!((0.0..1.0).contains(&u));
        assert_eq!(PluginRng::new(1).below(0), 0);
    }
}
