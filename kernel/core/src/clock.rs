//! Clocks: platform (monotonic), game (pause/scale), fixed simulation step, local animation/FX time, maintenance.
//!
//! All durations are integer nanoseconds so that the simulation never accumulates
//! floating-point drift. Game logic reads only the game clock and the tick number,
//! never the render delta.

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Nanoseconds per second.
pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A source of monotonic platform time in nanoseconds since an arbitrary origin.
pub trait TimeSource: Send {
    /// Current monotonic time; never decreases.
    fn now_ns(&self) -> u64;
}

/// The operating system's monotonic clock.
#[derive(Debug)]
pub struct SystemTimeSource {
    origin: std::time::Instant,
}

impl SystemTimeSource {
    /// A clock whose origin is now.
    #[allow(
        clippy::disallowed_methods,
        reason = "the platform clock is the one place that reads real time"
    )]
    pub fn new() -> Self {
        Self {
            origin: std::time::Instant::now(),
        }
    }
}

impl Default for SystemTimeSource {
    fn default() -> Self {
        Self::new()
    }
}

impl TimeSource for SystemTimeSource {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// A manually driven clock (headless runs, replays, tests). Clones share the same time.
#[derive(Clone, Debug, Default)]
pub struct ManualTimeSource {
    now: Arc<AtomicU64>,
}

impl ManualTimeSource {
    /// A clock at time zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the time; a value earlier than the current one is ignored (monotonic).
    pub fn set_ns(&self, ns: u64) {
        self.now.fetch_max(ns, Ordering::SeqCst);
    }

    /// Advances the time by `delta_ns`.
    pub fn advance_ns(&self, delta_ns: u64) {
        self.now.fetch_add(delta_ns, Ordering::SeqCst);
    }
}

impl TimeSource for ManualTimeSource {
    fn now_ns(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

/// Game time: follows platform time while running, stops while paused, and is scaled.
///
/// Scaling uses an integer ratio (`scale_num / scale_den`) and carries the remainder,
/// so a long run at scale 1/3 loses no nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameClock {
    now_ns: u64,
    paused: bool,
    scale_num: u32,
    scale_den: u32,
    remainder: u64,
}

impl Default for GameClock {
    fn default() -> Self {
        Self {
            now_ns: 0,
            paused: false,
            scale_num: 1,
            scale_den: 1,
            remainder: 0,
        }
    }
}

impl GameClock {
    /// Game time in nanoseconds.
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Whether a saved clock is one this type can hold (a positive scale denominator, a
    /// remainder below it).
    pub(crate) fn is_valid(&self) -> bool {
        self.scale_den > 0 && self.remainder < u64::from(self.scale_den)
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Stops game time.
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// Resumes game time.
    pub fn resume(&mut self) {
        self.paused = false;
    }

    /// Current scale as `(numerator, denominator)`.
    pub fn scale(&self) -> (u32, u32) {
        (self.scale_num, self.scale_den)
    }

    /// Sets the scale to `num / den`; a zero denominator is refused.
    pub fn set_scale(&mut self, num: u32, den: u32) -> Result<(), crate::KernelError> {
        if den == 0 {
            return Err(crate::KernelError::Config(
                "game clock scale denominator is zero".into(),
            ));
        }
        self.scale_num = num;
        self.scale_den = den;
        self.remainder = 0;
        Ok(())
    }

    /// Advances by `platform_delta_ns` of platform time; returns the game-time delta.
    pub fn advance(&mut self, platform_delta_ns: u64) -> u64 {
        if self.paused {
            return 0;
        }
        let total =
            u128::from(platform_delta_ns) * u128::from(self.scale_num) + u128::from(self.remainder);
        let den = u128::from(self.scale_den);
        let delta = u64::try_from(total / den).unwrap_or(u64::MAX);
        self.remainder = u64::try_from(total % den).unwrap_or(0);
        self.now_ns = self.now_ns.saturating_add(delta);
        delta
    }
}

/// Fixed simulation step with a bounded number of catch-up steps per frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedStep {
    step_ns: u64,
    max_steps_per_frame: u32,
    accumulator_ns: u64,
    tick: u64,
    dropped_frames: u64,
    dropped_ns: u64,
}

/// What one frame's worth of game time yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepsDue {
    /// Simulation steps to run now (≤ the catch-up bound).
    pub steps: u32,
    /// True when game time beyond the bound was discarded for this frame.
    pub dropped: bool,
}

impl FixedStep {
    /// A step of `1 / tick_hz` seconds with at most `max_steps_per_frame` catch-up steps.
    pub fn new(tick_hz: u32, max_steps_per_frame: u32) -> Result<Self, crate::KernelError> {
        if tick_hz == 0 || max_steps_per_frame == 0 {
            return Err(crate::KernelError::Config(format!(
                "tick rate {tick_hz} Hz and catch-up bound {max_steps_per_frame} must both be positive"
            )));
        }
        Ok(Self {
            step_ns: NANOS_PER_SEC / u64::from(tick_hz),
            max_steps_per_frame,
            accumulator_ns: 0,
            tick: 0,
            dropped_frames: 0,
            dropped_ns: 0,
        })
    }

    /// Length of one step in nanoseconds.
    pub fn step_ns(&self) -> u64 {
        self.step_ns
    }

    /// This step with `saved`'s progress (tick, accumulator, drop counters); `None`
    /// when `saved` ran at another step length.
    pub(crate) fn with_progress_of(&self, saved: &FixedStep) -> Option<FixedStep> {
        (saved.step_ns == self.step_ns).then_some(FixedStep {
            accumulator_ns: saved.accumulator_ns,
            tick: saved.tick,
            dropped_frames: saved.dropped_frames,
            dropped_ns: saved.dropped_ns,
            ..*self
        })
    }

    /// Number of completed simulation ticks.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Frames whose excess game time was discarded (the simulation could not keep up).
    pub fn dropped_frames(&self) -> u64 {
        self.dropped_frames
    }

    /// Total game time discarded by the catch-up bound.
    pub fn dropped_ns(&self) -> u64 {
        self.dropped_ns
    }

    /// Adds `game_delta_ns` and says how many steps are due. Never more than the bound:
    /// excess time is dropped and counted, so no step ever sees a huge dt.
    pub fn accumulate(&mut self, game_delta_ns: u64) -> StepsDue {
        self.accumulator_ns = self.accumulator_ns.saturating_add(game_delta_ns);
        let due = self.accumulator_ns / self.step_ns;
        let bound = u64::from(self.max_steps_per_frame);
        if due > bound {
            let kept = bound * self.step_ns;
            let excess = self.accumulator_ns - kept - (self.accumulator_ns % self.step_ns);
            self.dropped_ns = self.dropped_ns.saturating_add(excess);
            self.dropped_frames += 1;
            self.accumulator_ns = kept + self.accumulator_ns % self.step_ns;
            return StepsDue {
                steps: self.max_steps_per_frame,
                dropped: true,
            };
        }
        StepsDue {
            steps: due as u32,
            dropped: false,
        }
    }

    /// Consumes one step from the accumulator and advances the tick counter.
    pub fn consume_step(&mut self) -> u64 {
        self.accumulator_ns = self.accumulator_ns.saturating_sub(self.step_ns);
        self.tick += 1;
        self.tick
    }
}

/// Local time of an animation or FX instance, derived from game ticks.
///
/// `rate_permille` = 1000 plays at game speed; the local time starts at the tick the
/// instance started and does not depend on frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalClock {
    /// Tick at which the instance started.
    pub start_tick: u64,
    /// Playback rate in thousandths of game speed.
    pub rate_permille: u32,
}

impl LocalClock {
    /// Local time in nanoseconds at `tick` for a step of `step_ns`.
    pub fn local_ns(&self, tick: u64, step_ns: u64) -> u64 {
        let elapsed = u128::from(tick.saturating_sub(self.start_tick)) * u128::from(step_ns);
        u64::try_from(elapsed * u128::from(self.rate_permille) / 1000).unwrap_or(u64::MAX)
    }

    /// Local time in seconds (for sampling animation keys).
    pub fn local_seconds(&self, tick: u64, step_ns: u64) -> f64 {
        self.local_ns(tick, step_ns) as f64 / NANOS_PER_SEC as f64
    }
}

/// Real-time clock for cache maintenance (the original's ~20 s and ~60 s thresholds).
/// Never feeds gameplay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaintenanceClock {
    period_ns: u64,
    last_run_ns: Option<u64>,
    runs: u64,
}

impl MaintenanceClock {
    /// Maintenance every `period_ns` of platform time.
    pub fn new(period_ns: u64) -> Self {
        Self {
            period_ns,
            last_run_ns: None,
            runs: 0,
        }
    }

    /// True (and the clock re-armed) when a maintenance pass is due at `platform_now_ns`.
    pub fn due(&mut self, platform_now_ns: u64) -> bool {
        match self.last_run_ns {
            None => {
                self.last_run_ns = Some(platform_now_ns);
                false
            }
            Some(last) if platform_now_ns.saturating_sub(last) >= self.period_ns => {
                self.last_run_ns = Some(platform_now_ns);
                self.runs += 1;
                true
            }
            Some(_) => false,
        }
    }

    /// How many maintenance passes were due so far.
    pub fn runs(&self) -> u64 {
        self.runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_stops_game_time_while_platform_time_goes_on() {
        let platform = ManualTimeSource::new();
        let mut game = GameClock::default();
        let mut last = platform.now_ns();
        let mut step = |game: &mut GameClock, ns: u64| {
            platform.advance_ns(ns);
            let now = platform.now_ns();
            let d = game.advance(now - last);
            last = now;
            d
        };
        assert_eq!(step(&mut game, 1_000), 1_000);
        game.pause();
        assert_eq!(step(&mut game, 5_000), 0);
        assert_eq!(game.now_ns(), 1_000);
        game.resume();
        assert_eq!(step(&mut game, 2_000), 2_000);
        assert_eq!(game.now_ns(), 3_000);
        assert_eq!(platform.now_ns(), 8_000);
    }

    #[test]
    fn scale_carries_the_remainder() {
        let mut game = GameClock::default();
        game.set_scale(1, 3).unwrap();
        let total: u64 = (0..3).map(|_| game.advance(1)).sum();
        assert_eq!(total, 1);
        game.set_scale(2, 1).unwrap();
        assert_eq!(game.advance(10), 20);
        assert!(game.set_scale(1, 0).is_err());
    }

    #[test]
    fn fixed_step_bounds_catch_up_and_counts_dropped_frames() {
        let mut fs = FixedStep::new(30, 4).unwrap();
        let step = fs.step_ns();
        assert_eq!(
            fs.accumulate(step / 2),
            StepsDue {
                steps: 0,
                dropped: false
            }
        );
        assert_eq!(
            fs.accumulate(step / 2 + step),
            StepsDue {
                steps: 1,
                dropped: false
            }
        );
        fs.consume_step();
        // A 10-second stall: never a huge dt, at most 4 steps, the rest dropped and counted.
        let due = fs.accumulate(10 * NANOS_PER_SEC);
        assert_eq!(
            due,
            StepsDue {
                steps: 4,
                dropped: true
            }
        );
        for _ in 0..4 {
            fs.consume_step();
        }
        assert_eq!(fs.dropped_frames(), 1);
        assert!(fs.dropped_ns() > 9 * NANOS_PER_SEC);
        assert_eq!(fs.accumulate(0).steps, 0);
        assert_eq!(fs.tick(), 5);
        assert!(FixedStep::new(0, 1).is_err());
    }

    #[test]
    fn local_clock_follows_ticks_and_rate() {
        let c = LocalClock {
            start_tick: 10,
            rate_permille: 500,
        };
        assert_eq!(c.local_ns(10, 1_000), 0);
        assert_eq!(c.local_ns(14, 1_000), 2_000);
        assert_eq!(c.local_ns(5, 1_000), 0);
    }

    #[test]
    fn maintenance_clock_fires_on_real_time_only() {
        let mut m = MaintenanceClock::new(20 * NANOS_PER_SEC);
        assert!(!m.due(0));
        assert!(!m.due(19 * NANOS_PER_SEC));
        assert!(m.due(20 * NANOS_PER_SEC));
        assert!(!m.due(21 * NANOS_PER_SEC));
        assert_eq!(m.runs(), 1);
    }
}
