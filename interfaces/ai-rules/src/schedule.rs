//! Time rules of Behavior (FORMATS §13.11, §13.12): the first-step schedule and the
//! resource distributor's scheduler, on the unsigned 32-bit queue time in milliseconds.
//!
//! **From the spec:**
//! * First step: `deadline = queue_time + 3·64 + r`, `r ∈ [0, 63]` ms from the
//!   **shared** RNG (so the clans' start order changes the values). A repeated call
//!   before the deadline keeps the deadline and draws nothing.
//! * Distributor: equality with a **non-zero** deadline does not trigger; a zero
//!   deadline never delays; the elapsed time is `now − last` modulo 2^32, converted to
//!   seconds with the x87 rounding ([`crate::x87::ms_to_seconds`]); a zero time step
//!   does nothing.
//!
//! **Project decisions:**
//! * **PD-AI-SHARED-RNG**: the shared RNG is one [`SharedRng`] stream of the AI plugin,
//!   drawn in clan order; `r = draw % 64`.
//! * **PD-AI-DUE**: "due" is the unsigned comparison `now > deadline` (or a zero
//!   deadline); the spec's equality rule holds, and a queue time that wraps past 2^32
//!   waits for the deadline again, as an unsigned compare does.
//! * **PD-AI-FIRST-STEP-AFTER**: what a call after the deadline does is unknown; here
//!   the first step is then due once and the schedule is spent.
//! * **PD-ECON-PERIOD**: the distributor's next deadline is `now + period`
//!   ([`DEFAULT_PERIOD_MS`] = 500 ms, the AutoDemo step the spec quotes).

use crate::x87::ms_to_seconds;

/// The three 64 ms intervals before Behavior's first step.
pub const FIRST_STEP_DELAY_MS: u32 = 3 * 64;
/// The jitter range of the first step: `r ∈ [0, FIRST_STEP_JITTER_MS)`.
pub const FIRST_STEP_JITTER_MS: u32 = 64;
/// PD-ECON-PERIOD: the distributor's step period.
pub const DEFAULT_PERIOD_MS: u32 = 500;

/// The shared random source of the AI rules.
pub trait SharedRng {
    /// The next draw; the state advances by exactly one draw.
    fn draw(&mut self) -> u32;
}

/// PD-AI-DUE.
pub fn is_due(now: u32, deadline: u32) -> bool {
    deadline == 0 || now > deadline
}

/// Behavior's first-step schedule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FirstStep {
    /// The deadline once scheduled (`None`: not yet).
    pub deadline: Option<u32>,
    /// Whether the first step has run.
    pub spent: bool,
}

/// What [`FirstStep::poll`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstStepPoll {
    /// Scheduled now (one draw), not due yet.
    Scheduled(u32),
    /// Scheduled before and not due: the deadline is kept, nothing drawn.
    Waiting(u32),
    /// Due now: the first step runs (once).
    Due,
    /// The first step has run already.
    Spent,
}

impl FirstStep {
    /// One call at queue time `now`.
    pub fn poll(&mut self, now: u32, rng: &mut dyn SharedRng) -> FirstStepPoll {
        if self.spent {
            return FirstStepPoll::Spent;
        }
        match self.deadline {
            None => {
                let r = rng.draw() % FIRST_STEP_JITTER_MS;
                let d = now.wrapping_add(FIRST_STEP_DELAY_MS).wrapping_add(r);
                self.deadline = Some(d);
                FirstStepPoll::Scheduled(d)
            }
            Some(d) if !is_due(now, d) => FirstStepPoll::Waiting(d),
            Some(_) => {
                self.spent = true;
                FirstStepPoll::Due
            }
        }
    }
}

/// The distributor's scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StepClock {
    /// Queue time of the last step.
    pub last: u32,
    /// The next deadline (0: never delays).
    pub deadline: u32,
    /// Period between steps (PD-ECON-PERIOD).
    pub period: u32,
}

impl StepClock {
    /// A clock whose first step is due at once (zero deadline), counted from `now`.
    pub fn new(now: u32, period: u32) -> Self {
        Self {
            last: now,
            deadline: 0,
            period,
        }
    }

    /// At queue time `now`: the step's length in seconds when a step is due and its
    /// time step is not zero (the clock then advances), else `None`.
    pub fn poll(&mut self, now: u32) -> Option<f32> {
        if !is_due(now, self.deadline) {
            return None;
        }
        let elapsed = now.wrapping_sub(self.last);
        if elapsed == 0 {
            return None;
        }
        self.last = now;
        self.deadline = now.wrapping_add(self.period);
        Some(ms_to_seconds(elapsed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u32, u32);
    impl SharedRng for Counter {
        fn draw(&mut self) -> u32 {
            self.1 += 1;
            self.0
        }
    }

    #[test]
    fn first_step_draws_once_and_keeps_its_deadline() {
        let mut rng = Counter(100, 0);
        let mut f = FirstStep::default();
        // 100 % 64 = 36: 1000 + 192 + 36.
        assert_eq!(f.poll(1000, &mut rng), FirstStepPoll::Scheduled(1228));
        assert_eq!(f.poll(1100, &mut rng), FirstStepPoll::Waiting(1228));
        assert_eq!(f.poll(1228, &mut rng), FirstStepPoll::Waiting(1228));
        assert_eq!(
            rng.1, 1,
            "a repeated call before the deadline draws nothing"
        );
        assert_eq!(f.poll(1229, &mut rng), FirstStepPoll::Due);
        assert_eq!(f.poll(5000, &mut rng), FirstStepPoll::Spent);
        assert_eq!(rng.1, 1);
    }

    #[test]
    fn clan_order_changes_the_draws() {
        // Two clans from one shared stream: swapping the start order swaps the values.
        struct Seq(Vec<u32>);
        impl SharedRng for Seq {
            fn draw(&mut self) -> u32 {
                self.0.remove(0)
            }
        }
        let mut rng = Seq(vec![5, 70]);
        let (mut a, mut b) = (FirstStep::default(), FirstStep::default());
        a.poll(0, &mut rng);
        b.poll(0, &mut rng);
        assert_eq!((a.deadline, b.deadline), (Some(197), Some(198)));
        let mut rng = Seq(vec![5, 70]);
        let (mut a, mut b) = (FirstStep::default(), FirstStep::default());
        b.poll(0, &mut rng);
        a.poll(0, &mut rng);
        assert_eq!((a.deadline, b.deadline), (Some(198), Some(197)));
    }

    #[test]
    fn distributor_clock_rules() {
        // A zero deadline never delays; a zero time step does nothing.
        let mut c = StepClock::new(1000, 500);
        assert_eq!(c.poll(1000), None);
        assert_eq!(c.poll(1500), Some(0.5));
        assert_eq!(c.deadline, 2000);
        // Equality with a non-zero deadline does not trigger.
        assert_eq!(c.poll(2000), None);
        assert_eq!(c.poll(2001), Some(0.501));
        // The elapsed time wraps modulo 2^32.
        let mut w = StepClock {
            last: u32::MAX - 99,
            deadline: 0,
            period: 500,
        };
        assert_eq!(w.poll(400), Some(0.5));
        assert_eq!(w.last, 400);
    }

    #[test]
    fn due_rule() {
        assert!(is_due(0, 0));
        assert!(is_due(5, 0));
        assert!(!is_due(7, 7));
        assert!(is_due(8, 7));
        assert!(!is_due(1, u32::MAX));
    }
}
