//! Time and lifecycle helpers (FORMATS §10.4, §10.5) as pure functions.
//!
//! Specified: the normalised age `tn = (now - start) / (end - start)`, the end time from
//! the header's `duration_seconds`, creation of command objects in disk order. Not
//! specified: the internal time scale, the formula of each `time_mode`, the flag bits,
//! the RNG. Every rule here beyond `tn` is a **project decision**, named below and kept
//! out of the confirmed layer:
//!
//! * [`TimeScale`]: the caller picks the ticks per second; [`TimeScale::MILLISECONDS`] is
//!   our default. Conversion rounds to nearest, ties to even; negative, NaN or infinite
//!   durations are refused (`None`), too large ones saturate at `u64::MAX`.
//! * [`Lifetime::is_over`]: an instance ends when `now >= end` (end time exclusive).
//! * [`normalized_age`] is unclamped and `None` for an empty or inverted span.
//! * [`Coefficient`]: the coefficient sources §10.4 names, with our formulas; which
//!   `time_mode` value selects which source is open, so no mapping is offered.
//! * [`triangular`]: `1 - |2x - 1|` (0 → 0, 0.5 → 1, 1 → 0).

use crate::command::Command;
use crate::effect::Fxid;

/// How many internal ticks one second has (the "internal time scale" of §10.2, open).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeScale {
    /// Ticks per second; 0 makes every conversion `None`.
    pub ticks_per_second: u32,
}

impl TimeScale {
    /// Project default: milliseconds.
    pub const MILLISECONDS: TimeScale = TimeScale {
        ticks_per_second: 1000,
    };

    /// `seconds` in ticks, rounded to nearest with ties to even; `None` when `seconds` is
    /// negative, NaN or infinite or the scale is zero; saturates at `u64::MAX`.
    pub fn ticks(self, seconds: f32) -> Option<u64> {
        if !seconds.is_finite() || seconds < 0.0 || self.ticks_per_second == 0 {
            return None;
        }
        let t = (f64::from(seconds) * f64::from(self.ticks_per_second)).round_ties_even();
        // `as` saturates for values above `u64::MAX`.
        Some(t as u64)
    }
}

/// The live span of one effect instance, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lifetime {
    /// Tick the instance was created.
    pub start: u64,
    /// First tick at which the instance is over.
    pub end: u64,
}

impl Lifetime {
    /// The lifetime of an instance created at `start`: `end = start + duration` in the
    /// given scale (saturating); `None` when the duration is not convertible.
    pub fn new(start: u64, duration_seconds: f32, scale: TimeScale) -> Option<Lifetime> {
        let d = scale.ticks(duration_seconds)?;
        Some(Lifetime {
            start,
            end: start.saturating_add(d),
        })
    }

    /// The lifetime from an effect's header duration.
    pub fn of(effect: &Fxid, start: u64, scale: TimeScale) -> Option<Lifetime> {
        Self::new(start, effect.header.duration_seconds(), scale)
    }

    /// Whether the instance has reached its end (`now >= end`).
    pub fn is_over(&self, now: u64) -> bool {
        now >= self.end
    }

    /// `tn` at `now` (see [`normalized_age`]).
    pub fn age(&self, now: u64) -> Option<f64> {
        normalized_age(now as f64, self.start as f64, self.end as f64)
    }
}

/// `tn = (now - start) / (end - start)` (FORMATS §10.4, confirmed), unclamped; `None`
/// when `end <= start` or any input is not finite.
pub fn normalized_age(now: f64, start: f64, end: f64) -> Option<f64> {
    if !(now.is_finite() && start.is_finite() && end.is_finite()) || end <= start {
        return None;
    }
    Some((now - start) / (end - start))
}

/// Triangular remap `1 - |2x - 1|` (project decision; §10.4 names the remap only).
pub fn triangular(x: f64) -> f64 {
    1.0 - (2.0 * x - 1.0).abs()
}

/// The coefficient sources §10.4 lists, with our formulas (project decision).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Coefficient {
    /// A fixed value.
    Constant(f64),
    /// `tn` clamped to `0..=1`.
    ForwardAge,
    /// `1 - tn` clamped to `0..=1`.
    ReverseAge,
    /// Fractional part of `tn` (`tn - floor(tn)`), for looping effects.
    CyclicPhase,
}

impl Coefficient {
    /// The coefficient at normalised age `tn` (NaN `tn` gives 0 for the age sources).
    pub fn eval(self, tn: f64) -> f64 {
        let tn = if tn.is_nan() { 0.0 } else { tn };
        match self {
            Coefficient::Constant(c) => c,
            Coefficient::ForwardAge => tn.clamp(0.0, 1.0),
            Coefficient::ReverseAge => 1.0 - tn.clamp(0.0, 1.0),
            Coefficient::CyclicPhase if tn.is_finite() => tn - tn.floor(),
            Coefficient::CyclicPhase => 0.0,
        }
    }
}

/// Commands in creation order (disk order, FORMATS §10.5) with their indices. Disabled
/// commands are included (project decision: the enabled bit gates update and emit, not
/// creation); filter on [`Command::enabled`] to skip them.
pub fn creation_order(effect: &Fxid) -> impl Iterator<Item = (u32, &Command)> + '_ {
    (0u32..).zip(&effect.commands)
}
