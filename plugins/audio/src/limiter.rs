//! **PD-AUDIO-LIMITER** (issue 38: a mix that never clips): the master limiter, a kira
//! effect on the main track, after every bus and source and before the master volume.
//! Per frame the gain drops at once to what keeps the louder channel at [`CEILING`]
//! (no attack time, so no sample passes the ceiling) and otherwise recovers towards 1
//! with the time constant [`RELEASE_SECONDS`]. A mix below the ceiling passes
//! unchanged once the gain has recovered. A non-finite sample is output as silence and
//! leaves the gain as it was. Kira's own compressor has an attack time, so a burst's
//! first samples would pass it; no kira effect guarantees a ceiling.

use kira::Frame;
use kira::effect::{Effect, EffectBuilder};
use kira::info::Info;

/// The largest absolute sample the limiter lets through (about −0.18 dBFS).
pub const CEILING: f32 = 0.98;

/// How fast the gain recovers towards 1 after a peak (seconds to close 63 % of the gap).
pub const RELEASE_SECONDS: f64 = 0.25;

/// Builds the limiter for a kira track (`MainTrackBuilder::with_effect`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LimiterBuilder;

impl EffectBuilder for LimiterBuilder {
    type Handle = ();

    fn build(self) -> (Box<dyn Effect>, ()) {
        (Box::new(Limiter::default()), ())
    }
}

/// The limiter's state: the gain it applies now.
#[derive(Debug, Clone, Copy)]
pub struct Limiter {
    gain: f32,
}

impl Default for Limiter {
    fn default() -> Self {
        Limiter { gain: 1.0 }
    }
}

impl Limiter {
    /// The gain applied to the last frame.
    pub fn gain(&self) -> f32 {
        self.gain
    }

    /// Limits `frames` in place, `dt` seconds apart.
    pub fn limit(&mut self, frames: &mut [Frame], dt: f64) {
        let recover = if dt > 0.0 && dt.is_finite() {
            (1.0 - (-dt / RELEASE_SECONDS).exp()) as f32
        } else {
            0.0
        };
        for f in frames {
            if !(f.left.is_finite() && f.right.is_finite()) {
                *f = Frame::ZERO;
                continue;
            }
            self.gain += (1.0 - self.gain) * recover;
            let peak = f.left.abs().max(f.right.abs());
            if peak * self.gain > CEILING {
                self.gain = CEILING / peak;
            }
            f.left = (f.left * self.gain).clamp(-CEILING, CEILING);
            f.right = (f.right * self.gain).clamp(-CEILING, CEILING);
        }
    }
}

impl Effect for Limiter {
    fn process(&mut self, input: &mut [Frame], dt: f64, _info: &Info) {
        self.limit(input, dt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 1.0 / 48_000.0;

    fn frames(level: f32, n: usize) -> Vec<Frame> {
        vec![
            Frame {
                left: level,
                right: -level * 0.5,
            };
            n
        ]
    }

    #[test]
    fn a_quiet_mix_passes_unchanged() {
        let mut l = Limiter::default();
        let mut f = frames(0.5, 4_800);
        l.limit(&mut f, DT);
        assert!(f.iter().all(|x| x.left == 0.5 && x.right == -0.25));
        assert_eq!(l.gain(), 1.0);
    }

    #[test]
    fn a_burst_never_passes_the_ceiling_and_the_gain_recovers() {
        let mut l = Limiter::default();
        // 64 explosions at full scale summed: 64.
        let mut f = frames(64.0, 4_800);
        l.limit(&mut f, DT);
        let loudest = f
            .iter()
            .map(|x| x.left.abs().max(x.right.abs()))
            .fold(0.0, f32::max);
        assert!(loudest <= CEILING, "{loudest}");
        // The first frame already: no attack time.
        assert!((f[0].left - CEILING).abs() < 1e-6, "{}", f[0].left);
        // After the burst, one second of a quiet mix: the gain is back near 1.
        let mut quiet = frames(0.1, 48_000);
        l.limit(&mut quiet, DT);
        assert!(l.gain() > 0.97, "gain {}", l.gain());
        assert!((quiet.last().unwrap().left - 0.1).abs() < 0.003);
        // Halfway through the release time it is still recovering.
        let mut l2 = Limiter::default();
        l2.limit(&mut frames(64.0, 10), DT);
        l2.limit(&mut frames(0.01, 6_000), DT);
        assert!(l2.gain() < 0.5, "gain {}", l2.gain());
    }

    #[test]
    fn non_finite_samples_are_silence_and_leave_the_gain() {
        let mut l = Limiter::default();
        let mut f = vec![
            Frame {
                left: f32::NAN,
                right: 0.0,
            },
            Frame {
                left: f32::INFINITY,
                right: 1.0,
            },
            Frame {
                left: 0.5,
                right: 0.5,
            },
        ];
        l.limit(&mut f, DT);
        assert_eq!((f[0].left, f[0].right), (0.0, 0.0));
        assert_eq!((f[1].left, f[1].right), (0.0, 0.0));
        assert_eq!((f[2].left, f[2].right), (0.5, 0.5));
        assert_eq!(l.gain(), 1.0);
    }
}
