//! Named deterministic RNG streams (world, AI, FX, atmosphere, cosmetic) with seed and call counter.
//!
//! Every stream is a ChaCha8 generator keyed by the master seed and selected by its own
//! stream number, so drawing from one stream never shifts another. The cosmetic stream
//! is excluded from the simulation state hash (tome VII).

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

/// The named streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum StreamName {
    /// World / gameplay.
    World,
    /// AI and scripts.
    Ai,
    /// FX instances.
    Fx,
    /// Atmosphere (weather, lightning).
    Atmosphere,
    /// Cosmetic only; never part of the simulation hash.
    Cosmetic,
}

impl StreamName {
    /// All streams in stable order.
    pub const ALL: [StreamName; 5] = [
        StreamName::World,
        StreamName::Ai,
        StreamName::Fx,
        StreamName::Atmosphere,
        StreamName::Cosmetic,
    ];

    /// Stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            StreamName::World => "world",
            StreamName::Ai => "ai",
            StreamName::Fx => "fx",
            StreamName::Atmosphere => "atmosphere",
            StreamName::Cosmetic => "cosmetic",
        }
    }

    /// True for streams that feed the simulation (all but cosmetic).
    pub fn is_simulation(self) -> bool {
        self != StreamName::Cosmetic
    }
}

/// One stream: generator, seed and number of draws.
#[derive(Clone, Debug)]
pub struct RngStream {
    name: StreamName,
    seed: u64,
    calls: u64,
    rng: ChaCha8Rng,
}

/// Serializable position of a stream (for save games, hot swap and the state hash).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamState {
    /// Which stream.
    pub name: StreamName,
    /// Master seed.
    pub seed: u64,
    /// Draw calls made.
    pub calls: u64,
    /// ChaCha word position.
    pub word_pos: u128,
}

impl RngStream {
    fn new(name: StreamName, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(name as u64);
        Self {
            name,
            seed,
            calls: 0,
            rng,
        }
    }

    /// A uniformly distributed `u32`.
    pub fn next_u32(&mut self) -> u32 {
        self.calls += 1;
        self.rng.next_u32()
    }

    /// A uniformly distributed `u64`.
    pub fn next_u64(&mut self) -> u64 {
        self.calls += 1;
        self.rng.next_u64()
    }

    /// A float in `[0, 1)` with 24 bits of precision.
    pub fn next_unit_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    /// An integer in `[0, n)` (`n > 0`), by unbiased rejection.
    pub fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            self.calls += 1;
            return 0;
        }
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let v = self.rng.next_u32();
            if v < zone {
                self.calls += 1;
                return v % n;
            }
        }
    }

    /// The stream's current position.
    pub fn state(&self) -> StreamState {
        StreamState {
            name: self.name,
            seed: self.seed,
            calls: self.calls,
            word_pos: self.rng.get_word_pos(),
        }
    }
}

/// The kernel's set of named streams.
#[derive(Clone, Debug)]
pub struct RngStreams {
    streams: Vec<RngStream>,
}

impl RngStreams {
    /// Every stream seeded from `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            streams: StreamName::ALL
                .iter()
                .map(|&n| RngStream::new(n, seed))
                .collect(),
        }
    }

    /// The stream `name`.
    pub fn stream(&mut self, name: StreamName) -> &mut RngStream {
        &mut self.streams[name as usize]
    }

    /// Positions of every stream in stable order.
    pub fn states(&self) -> Vec<StreamState> {
        self.streams.iter().map(RngStream::state).collect()
    }

    /// Restores positions saved by [`RngStreams::states`].
    pub fn restore(&mut self, states: &[StreamState]) {
        for st in states {
            let s = &mut self.streams[st.name as usize];
            *s = RngStream::new(st.name, st.seed);
            s.rng.set_word_pos(st.word_pos);
            s.calls = st.calls;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_reproducible() {
        let mut a = RngStreams::new(42);
        let mut b = RngStreams::new(42);
        let _ = a.stream(StreamName::Cosmetic).next_u64();
        let _ = a.stream(StreamName::Cosmetic).next_u64();
        assert_eq!(
            a.stream(StreamName::World).next_u64(),
            b.stream(StreamName::World).next_u64()
        );
        assert_ne!(
            RngStreams::new(42).stream(StreamName::World).next_u64(),
            RngStreams::new(42).stream(StreamName::Ai).next_u64()
        );
        assert_eq!(a.stream(StreamName::Cosmetic).state().calls, 2);
    }

    #[test]
    fn restore_continues_the_sequence() {
        let mut a = RngStreams::new(7);
        for _ in 0..13 {
            a.stream(StreamName::Fx).next_u32();
        }
        let saved = a.states();
        let mut b = RngStreams::new(999);
        b.restore(&saved);
        assert_eq!(
            a.stream(StreamName::Fx).next_u32(),
            b.stream(StreamName::Fx).next_u32()
        );
        assert_eq!(b.stream(StreamName::Fx).state().calls, 14);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = RngStreams::new(1);
        for n in [1u32, 2, 3, 7, 1000] {
            for _ in 0..100 {
                assert!(r.stream(StreamName::Ai).below(n) < n);
            }
        }
        let f = r.stream(StreamName::Ai).next_unit_f32();
        assert!((0.0..1.0).contains(&f));
    }
}
