//! An in-memory network for tests and benchmarks: datagrams between numbered endpoints
//! with latency, jitter (so reordering), loss and duplication, all drawn from one seeded
//! ChaCha8 stream on a simulated clock — the same seed gives the same deliveries, and a
//! test runs in no real time. No socket is opened.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::BTreeMap;

/// How the links behave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditions {
    /// Least one-way latency (milliseconds).
    pub latency_ms: u32,
    /// Extra latency drawn uniformly in `0..=jitter_ms` per datagram: datagrams sent
    /// close together arrive out of order.
    pub jitter_ms: u32,
    /// Share of datagrams lost, `0.0..=1.0`.
    pub loss: f64,
    /// Share of datagrams delivered twice (the copy with its own latency).
    pub duplicate: f64,
}

impl Conditions {
    /// A perfect link: no latency, no loss.
    pub const PERFECT: Self = Self {
        latency_ms: 0,
        jitter_ms: 0,
        loss: 0.0,
        duplicate: 0.0,
    };
}

/// What happened to the datagrams so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Datagrams sent.
    pub sent: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Datagrams lost.
    pub lost: u64,
    /// Extra copies delivered.
    pub duplicated: u64,
    /// Datagrams delivered (copies included).
    pub delivered: u64,
}

/// The network: endpoints `0..n`, a clock in milliseconds.
pub struct MemoryNet {
    rng: ChaCha8Rng,
    conditions: Conditions,
    now_ms: u64,
    /// In flight: `(arrival ms, sequence) → (from, to, bytes)`; the sequence keeps
    /// equal arrival times in send order.
    flight: BTreeMap<(u64, u64), (usize, usize, Vec<u8>)>,
    seq: u64,
    /// Delivered, waiting for their endpoint: per endpoint, `(from, bytes)`.
    inbox: Vec<Vec<(usize, Vec<u8>)>>,
    counters: Counters,
}

impl MemoryNet {
    /// `endpoints` endpoints under `conditions`, drawing from `seed`.
    pub fn new(endpoints: usize, conditions: Conditions, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            conditions,
            now_ms: 0,
            flight: BTreeMap::new(),
            seq: 0,
            inbox: vec![Vec::new(); endpoints],
            counters: Counters::default(),
        }
    }

    /// The simulated time (milliseconds).
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Changes the conditions from now on (a link that degrades or recovers).
    pub fn set_conditions(&mut self, conditions: Conditions) {
        self.conditions = conditions;
    }

    fn chance(&mut self, p: f64) -> bool {
        let unit = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        p > 0.0 && unit < p
    }

    fn delay(&mut self) -> u64 {
        let jitter = u64::from(self.conditions.jitter_ms);
        let extra = if jitter == 0 {
            0
        } else {
            self.rng.next_u64() % (jitter + 1)
        };
        u64::from(self.conditions.latency_ms) + extra
    }

    /// Sends a datagram from endpoint `from` to `to` (an unknown endpoint swallows it).
    pub fn send(&mut self, from: usize, to: usize, bytes: &[u8]) {
        self.counters.sent += 1;
        self.counters.bytes += bytes.len() as u64;
        if self.chance(self.conditions.loss) {
            self.counters.lost += 1;
            return;
        }
        let copies = if self.chance(self.conditions.duplicate) {
            self.counters.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let at = self.now_ms + self.delay();
            self.seq += 1;
            self.flight
                .insert((at, self.seq), (from, to, bytes.to_vec()));
        }
    }

    /// Moves the clock `ms` on, delivering every datagram due by then.
    pub fn advance(&mut self, ms: u64) {
        self.now_ms += ms;
        let later = self.flight.split_off(&(self.now_ms + 1, 0));
        let due = std::mem::replace(&mut self.flight, later);
        for (_, (from, to, bytes)) in due {
            if let Some(inbox) = self.inbox.get_mut(to) {
                self.counters.delivered += 1;
                inbox.push((from, bytes));
            }
        }
    }

    /// The datagrams delivered to `endpoint` since the last call, in arrival order.
    pub fn receive(&mut self, endpoint: usize) -> Vec<(usize, Vec<u8>)> {
        self.inbox
            .get_mut(endpoint)
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_jitter_loss_and_duplication_follow_the_seed() {
        let run = |seed| {
            let mut n = MemoryNet::new(
                2,
                Conditions {
                    latency_ms: 20,
                    jitter_ms: 30,
                    loss: 0.2,
                    duplicate: 0.1,
                },
                seed,
            );
            for k in 0..200u8 {
                n.send(0, 1, &[k]);
                n.advance(1);
            }
            n.advance(100);
            (n.receive(1), n.counters())
        };
        let (a, c) = run(7);
        assert_eq!(run(7).0, a, "same seed, same deliveries");
        assert_ne!(run(8).0, a);
        assert_eq!(c.sent, 200);
        assert!(c.lost > 10 && c.duplicated > 5, "{c:?}");
        assert_eq!(c.delivered, c.sent - c.lost + c.duplicated);
        let order: Vec<u8> = a.iter().map(|x| x.1[0]).collect();
        assert!(order.windows(2).any(|w| w[0] > w[1]), "jitter reorders");
        let mut perfect = MemoryNet::new(2, Conditions::PERFECT, 1);
        perfect.send(1, 0, b"x");
        assert!(perfect.receive(0).is_empty(), "not before the clock moves");
        perfect.advance(0);
        assert_eq!(perfect.receive(0), [(1, b"x".to_vec())]);
    }
}
