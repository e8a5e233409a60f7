//! Lightning (FORMATS §13.9): the delay before a strike, the strike inside
//! `LightningBounds`, the 6000 ms wait before the next attempt, and the bolt and sound
//! the strike gives the renderer and the audio.

use crate::round_half_even;
use glam::{Vec2, Vec3};

/// Intensity above this counts as this in the delay formula.
pub const MAX_INTENSITY: f32 = 0.95;
/// The delay's scale in milliseconds.
pub const PERIOD_MS: f64 = 60_000.0;
/// The largest 15-bit draw.
pub const U_MAX: u16 = 0x7FFF;
/// The wait after a strike before the next attempt (ms).
pub const RETRY_MS: u32 = 6_000;
/// The bolt's native descriptor (body opcode 3): width, depth, height.
pub const BOLT: Vec3 = Vec3::new(40.0, 40.0, 600.0);
/// The bolt's centre above the sampled height (its ends are at `z` and `z + 600`).
pub const BOLT_LIFT: f32 = 300.0;
/// The strike sound's `min_distance` (opcode 2).
pub const SOUND_MIN_DISTANCE: f32 = 100.0;
/// The strike sound's `max_distance` (opcode 2).
pub const SOUND_MAX_DISTANCE: f32 = 1500.0;
/// The strike sound's frequency ratio (opcode 2).
pub const SOUND_FREQUENCY_RATIO: f32 = 1.0;

/// `round_half_even((1 − min(I, 0.95)) · 60000 · U)` with `U = draw / 32767`
/// (PD-FX-LIGHTNING-U; the draw's bits above the 15th are ignored; intensity below 0
/// or non-finite counts as 0).
pub fn delay_ms(intensity: f32, draw: u16) -> u32 {
    let i = if intensity.is_finite() {
        intensity.max(0.0)
    } else {
        0.0
    };
    let u = f64::from(draw & U_MAX) / f64::from(U_MAX);
    let d = (1.0 - f64::from(i.min(MAX_INTENSITY))) * PERIOD_MS * u;
    round_half_even(d) as u32
}

/// Where strikes fall: X and Y inside the rectangle, Z copied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Lower corner (world X, Y).
    pub min: Vec2,
    /// Upper corner (world X, Y).
    pub max: Vec2,
    /// The strike height.
    pub z: f32,
}

impl Bounds {
    /// The strike point for two uniform draws in `[0, 1]`.
    pub fn sample(&self, u: [f32; 2]) -> Vec3 {
        let t = Vec2::new(u[0].clamp(0.0, 1.0), u[1].clamp(0.0, 1.0));
        (self.min + (self.max - self.min) * t).extend(self.z)
    }
}

/// A strike: what the renderer draws (the bolt and a point light) and the audio plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strike {
    /// The sampled point (the bolt's lower end, the light and the sound).
    pub at: Vec3,
}

impl Strike {
    /// The bolt's centre: [`BOLT_LIFT`] above the sampled point.
    pub fn bolt_centre(&self) -> Vec3 {
        self.at + Vec3::Z * BOLT_LIFT
    }

    /// The bolt's ends with zero local offset: `z` and `z + 600`.
    pub fn bolt_ends(&self) -> (Vec3, Vec3) {
        (self.at, self.at + Vec3::Z * BOLT.z)
    }
}

/// The lightning timer of one sky object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Timer {
    /// No delay drawn yet: the next [`Timer::advance`] draws one.
    #[default]
    Idle,
    /// A strike after this many more milliseconds.
    Waiting(u32),
    /// The wait after a strike: this many more milliseconds, then a new delay.
    Retry(u32),
}

/// The draws one timer step may use, from the caller's seeded stream.
pub trait Draws {
    /// A 15-bit draw for the delay.
    fn delay_draw(&mut self) -> u16;
    /// Two uniform draws in `[0, 1]` for the strike point.
    fn point_draws(&mut self) -> [f32; 2];
}

impl Timer {
    /// Advances the timer by `dt_ms` while lightning is active at `intensity`; returns
    /// the strike when the delay expires within this step. A delay is drawn when the
    /// timer is idle and when the retry wait ends; a zero delay strikes at once. At most
    /// one strike per call (a step longer than the delay and the wait together carries
    /// the rest into the next call, never a burst).
    pub fn advance(
        &mut self,
        dt_ms: u32,
        intensity: f32,
        bounds: &Bounds,
        draws: &mut dyn Draws,
    ) -> Option<Strike> {
        let mut left = dt_ms;
        loop {
            match *self {
                Timer::Idle => {
                    *self = Timer::Waiting(delay_ms(intensity, draws.delay_draw()));
                }
                Timer::Waiting(ms) if ms <= left => {
                    *self = Timer::Retry(RETRY_MS);
                    return Some(Strike {
                        at: bounds.sample(draws.point_draws()),
                    });
                }
                Timer::Waiting(ms) => {
                    *self = Timer::Waiting(ms - left);
                    return None;
                }
                Timer::Retry(ms) if ms <= left => {
                    left -= ms;
                    *self = Timer::Idle;
                }
                Timer::Retry(ms) => {
                    *self = Timer::Retry(ms - left);
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_formula_with_the_spec_constants() {
        // U = 1 at zero intensity: the whole minute.
        assert_eq!(delay_ms(0.0, U_MAX), 60_000);
        assert_eq!(delay_ms(0.0, 0), 0);
        // Intensity counts at most 0.95: the shortest full-draw delay is 5 % of a minute.
        assert_eq!(delay_ms(0.95, U_MAX), 3_000);
        assert_eq!(delay_ms(1.0, U_MAX), 3_000);
        assert_eq!(delay_ms(5.0, U_MAX), 3_000);
        // Half intensity, a mid draw: 0.5 · 60000 · 16384/32767.
        let want = (0.5f64 * 60_000.0 * 16_384.0 / 32_767.0).round_ties_even() as u32;
        assert_eq!(delay_ms(0.5, 16_384), want);
        assert_eq!(want, 15_000);
        // Only 15 bits count.
        assert_eq!(delay_ms(0.0, 0x8000 | 100), delay_ms(0.0, 100));
        // Bad intensity counts as none.
        assert_eq!(delay_ms(f32::NAN, U_MAX), 60_000);
        assert_eq!(delay_ms(-1.0, U_MAX), 60_000);
    }

    #[test]
    fn a_tie_in_the_delay_rounds_to_even() {
        // The delay is the formula's f64 value rounded half to even, for every 97th
        // draw (an exact tie needs 30000 · d / 32767 = k + 0.5, which no 15-bit d
        // gives; the ties themselves are checked in `round_half_even`'s test).
        for d in (0..=U_MAX).step_by(97) {
            let v = 0.5f64 * 60_000.0 * f64::from(d) / f64::from(U_MAX);
            assert_eq!(delay_ms(0.5, d), v.round_ties_even() as u32, "draw {d}");
        }
    }

    struct Fixed {
        delays: Vec<u16>,
        points: Vec<[f32; 2]>,
    }
    impl Draws for Fixed {
        fn delay_draw(&mut self) -> u16 {
            self.delays.remove(0)
        }
        fn point_draws(&mut self) -> [f32; 2] {
            self.points.remove(0)
        }
    }

    const BOUNDS: Bounds = Bounds {
        min: Vec2::new(100.0, 200.0),
        max: Vec2::new(300.0, 600.0),
        z: 50.0,
    };

    #[test]
    fn a_strike_when_the_delay_expires_then_6000_ms_before_the_next_attempt() {
        // Intensity 0.5, draw 16384: 15000 ms.
        let mut draws = Fixed {
            delays: vec![16_384, U_MAX, U_MAX],
            points: vec![[0.5, 0.25], [0.0, 1.0], [1.0, 0.0]],
        };
        let mut t = Timer::default();
        let mut at = 0u32;
        let mut strikes = Vec::new();
        // 100 ms frames for 90 s.
        while at < 90_000 {
            at += 100;
            if let Some(s) = t.advance(100, 0.5, &BOUNDS, &mut draws) {
                strikes.push((at, s));
            }
        }
        // The first at 15000 ms (within the frame ending there), at the sampled point.
        assert_eq!(strikes[0].0, 15_000);
        assert_eq!(strikes[0].1.at, Vec3::new(200.0, 300.0, 50.0));
        // Then the 6000 ms wait, then the new delay 0.5 · 60000 = 30000 ms: 51000.
        assert_eq!(strikes[1].0, 15_000 + RETRY_MS + 30_000);
        assert_eq!(strikes[1].1.at, Vec3::new(100.0, 600.0, 50.0));
        assert_eq!(strikes[2].0, 51_000 + RETRY_MS + 30_000);
        assert_eq!(strikes[2].1.at, Vec3::new(300.0, 200.0, 50.0));
        assert_eq!(strikes.len(), 3);
    }

    #[test]
    fn a_long_step_never_gives_a_burst() {
        let mut draws = Fixed {
            delays: vec![0, 0, 0],
            points: vec![[0.0, 0.0]; 3],
        };
        let mut t = Timer::default();
        // A zero delay strikes at once; a 20 s step gives one strike, and the next call
        // goes on from the wait that followed it.
        assert!(t.advance(20_000, 0.0, &BOUNDS, &mut draws).is_some());
        assert_eq!(t, Timer::Retry(RETRY_MS));
        assert!(t.advance(5_999, 0.0, &BOUNDS, &mut draws).is_none());
        assert!(t.advance(1, 0.0, &BOUNDS, &mut draws).is_some());
    }

    #[test]
    fn the_bolt_stands_on_the_strike_point() {
        let s = Strike {
            at: Vec3::new(10.0, 20.0, 50.0),
        };
        assert_eq!(s.bolt_centre(), Vec3::new(10.0, 20.0, 350.0));
        assert_eq!(
            s.bolt_ends(),
            (Vec3::new(10.0, 20.0, 50.0), Vec3::new(10.0, 20.0, 650.0))
        );
        assert_eq!(BOLT, Vec3::new(40.0, 40.0, 600.0));
        assert_eq!(
            (
                SOUND_MIN_DISTANCE,
                SOUND_MAX_DISTANCE,
                SOUND_FREQUENCY_RATIO
            ),
            (100.0, 1500.0, 1.0)
        );
    }
}
