//! Ambient music (FORMATS §13.10): `THEME` of `ambient_music_loop` when the mission
//! opens, then variations of `ambient_music_variation` on a timer.
//!
//! * Timer: [`AmbientMusic::tick`] adds `dt` seconds and fires when `elapsed > delay`
//!   (strictly). The first delay is 0, so the first positive tick plays the first
//!   variation; each later delay is `10 + rand() % 10` seconds. `elapsed` restarts at 0
//!   when the timer fires (**PD-AUDIO-MUSIC-TIMER**: the spec names no carry-over).
//! * Pools: `DEFAULT` only when both `DAY` and `NIGHT` are empty; otherwise `DAY` when the
//!   length of the first active sky object's base RGB is `> 1.1`, else `NIGHT`. A chosen
//!   empty pool plays nothing, sets the index to `-1` and the timer keeps running.
//!   The RGB is the one of the last weather event heard (PD-MSG-WEATHER, sent by the
//!   sky's owner); with none heard the length counts as 0, i.e. NIGHT
//!   (**PD-AUDIO-MUSIC-NOSKY**).
//! * Index: [`VariationGenerator`]'s 16-bit recurrence; a draw equal to the previous
//!   index is redrawn when the pool has more than one entry. The previous index survives
//!   day/night switches; pausing keeps the timer and the index.
//! * `rand()`: the original called the CRT `rand`; the seeds of `a`/`b` and the `rand`
//!   implementation are open (FORMATS §16 item 28). **PD-AUDIO-MUSIC-RAND**: `rand()` is
//!   a [`MusicRand`] the engine supplies on every tick — a seeded named RNG stream — so
//!   replays repeat; the `a`/`b` seeds are supplied by the caller
//!   (**PD-AUDIO-MUSIC-SEED**).

#[cfg(test)]
mod tests;

use glam::Vec3;
use serde::{Deserialize, Serialize};

use crate::sample::SampleKey;

/// Redraws allowed before giving up on a different index (**PD-AUDIO-MUSIC-REDRAW**): a
/// degenerate state (e.g. `a = b = 0`, a fixed point) would redraw forever in the
/// original; after this many equal draws the next index (`(previous + 1) % len`) is
/// taken instead.
pub const MAX_REDRAWS: u32 = 1024;

/// The length of the sky's base RGB above which the DAY pool plays.
pub const DAY_THRESHOLD: f32 = 1.1;

/// The two 16-bit states of the variation index generator (FORMATS §13.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariationGenerator {
    /// State `a`.
    pub a: u16,
    /// State `b`.
    pub b: u16,
}

impl VariationGenerator {
    /// A generator in state `(a, b)`.
    pub fn new(a: u16, b: u16) -> VariationGenerator {
        VariationGenerator { a, b }
    }

    /// One step: `a = ((a << 1) ^ b) & 0xFFFF; b = (b >> 1) ^ a`; returns the new `b`.
    pub fn step(&mut self) -> u16 {
        let a = ((u32::from(self.a) << 1) ^ u32::from(self.b)) & 0xFFFF;
        self.a = a as u16;
        self.b = (self.b >> 1) ^ self.a;
        self.b
    }

    /// An index into a pool of `len` entries: `b % len` after one step, redrawn while it
    /// equals `previous` and `len > 1` (at most [`MAX_REDRAWS`] redraws). `None` for an
    /// empty pool (no step is taken).
    pub fn draw(&mut self, len: usize, previous: Option<usize>) -> Option<usize> {
        if len == 0 {
            return None;
        }
        let mut index = usize::from(self.step()) % len;
        if len > 1 {
            let mut redraws = 0;
            while Some(index) == previous {
                if redraws == MAX_REDRAWS {
                    return Some((index + 1) % len);
                }
                redraws += 1;
                index = usize::from(self.step()) % len;
            }
        }
        Some(index)
    }
}

/// The engine's `rand()` for the variation delays (**PD-AUDIO-MUSIC-RAND**): any
/// deterministic `u32` source, e.g. a named kernel RNG stream. Closures `FnMut() -> u32`
/// implement it.
pub trait MusicRand {
    /// The next value; only `% 10` of it is used.
    fn next_u32(&mut self) -> u32;
}

impl<F: FnMut() -> u32> MusicRand for F {
    fn next_u32(&mut self) -> u32 {
        self()
    }
}

/// The variation pools, as `mission.cfg` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MusicPool {
    /// `DEFAULT_VARIATION1..n`.
    Default,
    /// `DAY_VARIATION1..n`.
    Day,
    /// `NIGHT_VARIATION1..n`.
    Night,
}

/// The ambient music of a mission: the theme of `ambient_music_loop` and the pools of
/// `ambient_music_variation` (keys already carry the right `LIBRARY`: the variation's
/// own, or the loop's when it has none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MusicConfig {
    /// `THEME`, started when the mission opens.
    pub theme: Option<SampleKey>,
    /// `DEFAULT_VARIATION1..n` in order.
    pub default_pool: Vec<SampleKey>,
    /// `DAY_VARIATION1..n` in order.
    pub day_pool: Vec<SampleKey>,
    /// `NIGHT_VARIATION1..n` in order.
    pub night_pool: Vec<SampleKey>,
}

impl MusicConfig {
    /// The pool for a sky whose base RGB is `sky_rgb` (`None`: no active sky object,
    /// length 0): DEFAULT only when DAY and NIGHT are both empty, else DAY when
    /// `|rgb| > 1.1`, else NIGHT.
    pub fn pool_for(&self, sky_rgb: Option<Vec3>) -> MusicPool {
        if self.day_pool.is_empty() && self.night_pool.is_empty() {
            MusicPool::Default
        } else if sky_rgb.map_or(0.0, Vec3::length) > DAY_THRESHOLD {
            MusicPool::Day
        } else {
            MusicPool::Night
        }
    }

    /// The entries of `pool`.
    pub fn pool(&self, pool: MusicPool) -> &[SampleKey] {
        match pool {
            MusicPool::Default => &self.default_pool,
            MusicPool::Day => &self.day_pool,
            MusicPool::Night => &self.night_pool,
        }
    }
}

/// What the music asks the mixer to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MusicEvent {
    /// Start the looping theme (mission open).
    Theme(SampleKey),
    /// Play variation `index` of `pool`.
    Variation {
        /// The sample to play.
        key: SampleKey,
        /// The pool it came from.
        pool: MusicPool,
        /// Its index in the pool.
        index: usize,
    },
    /// The timer fired but the chosen pool is empty: nothing plays, the index is `-1`.
    Silent {
        /// The empty pool.
        pool: MusicPool,
    },
}

/// The ambient music state machine: timer, delay, last index, generator and pause flag.
/// Plain data (serde) so a hot swap can hand it over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AmbientMusic {
    config: MusicConfig,
    generator: VariationGenerator,
    elapsed: f64,
    delay: f64,
    last_index: i32,
    paused: bool,
}

impl AmbientMusic {
    /// A stopped timer at 0 with delay 0 (the first positive tick fires), index `-1`.
    pub fn new(config: MusicConfig, generator: VariationGenerator) -> AmbientMusic {
        AmbientMusic {
            config,
            generator,
            elapsed: 0.0,
            delay: 0.0,
            last_index: -1,
            paused: false,
        }
    }

    /// The event of mission open: the theme, if the mission declares one.
    pub fn open(&self) -> Option<MusicEvent> {
        self.config.theme.clone().map(MusicEvent::Theme)
    }

    /// Advances the timer by `dt` seconds (non-finite or negative `dt` counts as 0;
    /// nothing moves while paused) and fires when `elapsed > delay`: resets `elapsed`,
    /// picks the pool from `sky_rgb` and draws an index, then sets the next delay to
    /// `10 + rand() % 10` seconds.
    pub fn tick(
        &mut self,
        dt: f64,
        sky_rgb: Option<Vec3>,
        rand: &mut dyn MusicRand,
    ) -> Option<MusicEvent> {
        if self.paused {
            return None;
        }
        if dt.is_finite() && dt > 0.0 {
            self.elapsed += dt;
        }
        if self.elapsed <= self.delay {
            return None;
        }
        self.elapsed = 0.0;
        let pool = self.config.pool_for(sky_rgb);
        let entries = self.config.pool(pool);
        let previous = usize::try_from(self.last_index).ok();
        let event = match self.generator.draw(entries.len(), previous) {
            Some(index) => {
                self.last_index = i32::try_from(index).unwrap_or(i32::MAX);
                entries.get(index).map(|key| MusicEvent::Variation {
                    key: key.clone(),
                    pool,
                    index,
                })
            }
            None => {
                self.last_index = -1;
                Some(MusicEvent::Silent { pool })
            }
        };
        self.delay = f64::from(10 + rand.next_u32() % 10);
        event
    }

    /// Pauses or resumes the timer; the timer and the index are kept either way.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Whether the timer is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The last drawn index, `-1` before the first draw and after an empty pool.
    pub fn last_index(&self) -> i32 {
        self.last_index
    }

    /// Seconds accumulated since the timer last fired.
    pub fn elapsed(&self) -> f64 {
        self.elapsed
    }

    /// The current delay in seconds.
    pub fn delay(&self) -> f64 {
        self.delay
    }

    /// The generator's current state.
    pub fn generator(&self) -> VariationGenerator {
        self.generator
    }

    /// The configuration.
    pub fn config(&self) -> &MusicConfig {
        &self.config
    }
}
