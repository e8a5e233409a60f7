//! The sky object (FORMATS §13.8–13.10): its schedule, read from the mission's
//! `mission.cfg`, and the atmosphere owner's step, which turns the schedule and the
//! game time into the weather, the rain loop and lightning strikes.
//!
//! **Project decisions**:
//! * **PD-SKY-BLOCK**: the original's `sky.ske` (schedule) and `sky.wea` (materials) have
//!   no documented layout (FORMATS §12.6), so they are left unread (and untouched). A
//!   mission's sky is the `mission.cfg` block `object sky` (the block grammar of §12.5):
//!   * `KEYn <seconds> <rain> <snow> <lightning> <r> <g> <b>` — at game time `seconds`
//!     the intensities (each `0..=1`) and the sky's base RGB (each `>= 0`). Keys are
//!     taken in the order of `n`, their times strictly increasing, at most
//!     [`MAX_SKY_KEYS`]. Between two keys every value is linear in game time; before
//!     the first and after the last it holds.
//!   * `LIBRARY <archive>` — where bare sound names are looked up (absent: the
//!     mission's sound library); `RAIN_SOUND <name>` — the rain loop;
//!     `LIGHTNING_SOUND <name>` — the thunder one-shot (`archive/name` names its
//!     archive, §13.8).
//!   * `LIGHTNING_EFFECT <archive/entry>` (absent: the effects plugin's default archive,
//!     entry `LIGHTNING`); `LIGHTNING_BOUNDS <x0> <y0> <x1> <y1> <z>` (absent: the
//!     owner's default, the terrain's extent at its highest point).
//!   * A bad line is an error naming its line and parameter; unknown parameters are
//!     kept in the file and ignored here.
//! * **PD-SKY-STEP**: what the owner sends is the schedule's value quantised to
//!   1/64 ([`QUANTUM`]); a [`iron3d_abi::WeatherEvent`] goes out on the first step and
//!   whenever the quantised weather changes, so a slow ramp sends a bounded number of
//!   messages (at most one per 1/64 step of each value), not one per tick.
//! * **PD-SKY-RAIN-LOOP**: the rain loop is a 2D loop on the ambient bus (the observer is
//!   always inside the precipitation volume, so a source at the listener is a 2D one):
//!   `StartLoop` when the quantised rain becomes positive (at that volume),
//!   `SetLoopVolume` when it changes, `StopLoop` when it reaches 0.
//! * **PD-SKY-LIGHTNING**: the lightning timer (§13.9) runs while the quantised
//!   lightning intensity is positive and returns to idle when it is 0. Its draws come
//!   from one SplitMix64 stream seeded by the owner (the kernel's atmosphere stream),
//!   part of the state. A strike sends the lightning effect at the sampled point and the
//!   thunder one-shot there (`min_distance` 100, `max_distance` 1500, rate 1, ambient
//!   bus).

use crate::lightning::{self, Bounds, Draws, Timer};
use glam::{Vec2, Vec3};
use iron3d_abi::{EffectEvent, SoundBus, SoundEvent, SoundKind, Vec3f, WeatherEvent};
use iron3d_config::BlockFile;

/// The `mission.cfg` block of the sky object.
pub const SKY_BLOCK: &str = "sky";
/// The most schedule keys a sky takes.
pub const MAX_SKY_KEYS: usize = 64;
/// The step of every value the owner sends (PD-SKY-STEP).
pub const QUANTUM: f32 = 1.0 / 64.0;
/// The largest sky RGB channel a key may give.
pub const MAX_SKY_CHANNEL: f32 = 16.0;
/// The loop id of the rain loop in the owner's sound events.
pub const RAIN_LOOP_ID: u32 = 1;
/// The FXID entry of a strike when `LIGHTNING_EFFECT` is absent.
pub const DEFAULT_LIGHTNING_EFFECT: &str = "LIGHTNING";
/// The state blob's length ([`Atmosphere::save`]).
pub const STATE_LEN: usize = 1 + 4 + 1 + 1 + 4 * 6 + 8 + 8;

/// Why a sky block could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SkyError {
    /// `mission.cfg` is not a block file.
    #[error("mission.cfg: {0}")]
    File(String),
    /// A parameter of the sky block is wrong.
    #[error("mission.cfg line {line}: sky parameter {param}: {why}")]
    Param {
        /// 1-based line.
        line: usize,
        /// The parameter's name.
        param: String,
        /// What is wrong.
        why: String,
    },
}

/// The weather at one moment: intensities in `0..=1` and the sky's base RGB.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Weather {
    /// Rain intensity.
    pub rain: f32,
    /// Snow intensity.
    pub snow: f32,
    /// Lightning intensity.
    pub lightning: f32,
    /// The sky's base RGB.
    pub rgb: Vec3,
}

impl Weather {
    fn lerp(&self, other: &Self, t: f32) -> Self {
        let l = |a: f32, b: f32| a + (b - a) * t;
        Self {
            rain: l(self.rain, other.rain),
            snow: l(self.snow, other.snow),
            lightning: l(self.lightning, other.lightning),
            rgb: self.rgb.lerp(other.rgb, t),
        }
    }

    /// Every value rounded to the nearest multiple of [`QUANTUM`] (PD-SKY-STEP).
    pub fn quantised(&self) -> Self {
        let q = |v: f32| (v / QUANTUM).round() * QUANTUM;
        Self {
            rain: q(self.rain),
            snow: q(self.snow),
            lightning: q(self.lightning),
            rgb: Vec3::new(q(self.rgb.x), q(self.rgb.y), q(self.rgb.z)),
        }
    }

    /// The event that tells it.
    pub fn event(&self) -> WeatherEvent {
        WeatherEvent {
            rain: self.rain,
            snow: self.snow,
            lightning: self.lightning,
            sky_rgb: Vec3f::from(self.rgb),
        }
    }
}

/// One schedule key: from `at_ms` on, `weather`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkyKey {
    /// Game time of the key in milliseconds.
    pub at_ms: u64,
    /// The weather at that time.
    pub weather: Weather,
}

/// A sky object as `mission.cfg` declares it (PD-SKY-BLOCK).
#[derive(Clone, Debug, PartialEq)]
pub struct SkyConfig {
    /// The schedule, times strictly increasing, at least one key.
    pub keys: Vec<SkyKey>,
    /// The archive of bare sound names (empty: the mission's sound library).
    pub library: String,
    /// The rain loop's sample (`None`: a silent rain).
    pub rain_sound: Option<String>,
    /// The thunder's sample (`None`: silent strikes).
    pub lightning_sound: Option<String>,
    /// The strike's effect: archive (empty: the effects plugin's default) and entry.
    pub lightning_effect: (String, String),
    /// Where strikes fall (`None`: the owner's default).
    pub bounds: Option<Bounds>,
}

fn numbers<const N: usize>(raw: &str) -> Result<[f32; N], String> {
    let mut out = [0.0; N];
    let mut it = raw
        .split(|c: char| c.is_ascii_whitespace() || c == ',' || c == '=')
        .filter(|s| !s.is_empty());
    for (i, slot) in out.iter_mut().enumerate() {
        let word = it
            .next()
            .ok_or_else(|| format!("{N} numbers expected, found {i}"))?;
        *slot = word
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("number {} ({word:?}) is not a finite number", i + 1))?;
    }
    if let Some(extra) = it.next() {
        return Err(format!("{N} numbers expected, found more ({extra:?})"));
    }
    Ok(out)
}

fn text_value(raw: &[u8]) -> String {
    let t = String::from_utf8_lossy(raw);
    let t = t.trim();
    let t = t.strip_prefix(['=', ':']).unwrap_or(t).trim();
    t.trim_matches('"').trim().to_owned()
}

impl SkyConfig {
    /// Reads the sky object of a `mission.cfg` (`Ok(None)`: it declares none).
    ///
    /// # Errors
    /// [`SkyError`] naming the line and parameter: a key that is not seven finite
    /// numbers, an intensity outside `0..=1`, a channel outside `0..=16`, times that do
    /// not increase, more than [`MAX_SKY_KEYS`] keys, a block with no key, bounds that
    /// are not five numbers with `x0 < x1` and `y0 < y1`.
    pub fn from_mission_cfg(text: &[u8]) -> Result<Option<Self>, SkyError> {
        let file =
            BlockFile::parse(text, "mission.cfg").map_err(|e| SkyError::File(e.to_string()))?;
        let Some(block) = file
            .blocks()
            .iter()
            .find(|b| text_value(&b.name).eq_ignore_ascii_case(SKY_BLOCK))
        else {
            return Ok(None);
        };
        let mut config = SkyConfig {
            keys: Vec::new(),
            library: String::new(),
            rain_sound: None,
            lightning_sound: None,
            lightning_effect: (String::new(), DEFAULT_LIGHTNING_EFFECT.to_owned()),
            bounds: None,
        };
        let mut keys: Vec<(u32, usize, SkyKey)> = Vec::new();
        for p in &block.params {
            let name = String::from_utf8_lossy(&p.name).to_ascii_uppercase();
            let value = text_value(&p.value);
            let err = |why: String| SkyError::Param {
                line: p.line,
                param: name.clone(),
                why,
            };
            match name.as_str() {
                "LIBRARY" => config.library = value,
                "RAIN_SOUND" => config.rain_sound = Some(value).filter(|v| !v.is_empty()),
                "LIGHTNING_SOUND" => {
                    config.lightning_sound = Some(value).filter(|v| !v.is_empty());
                }
                "LIGHTNING_EFFECT" => {
                    config.lightning_effect = match value.rsplit_once('/') {
                        Some((a, e)) if !e.is_empty() => (a.to_owned(), e.to_owned()),
                        None if !value.is_empty() => (String::new(), value),
                        _ => return Err(err(format!("{value:?} names no entry"))),
                    };
                }
                "LIGHTNING_BOUNDS" => {
                    let [x0, y0, x1, y1, z] = numbers::<5>(&value).map_err(err)?;
                    if x0 >= x1 || y0 >= y1 {
                        return Err(err(format!(
                            "the rectangle ({x0}, {y0})..({x1}, {y1}) is empty"
                        )));
                    }
                    config.bounds = Some(Bounds {
                        min: Vec2::new(x0, y0),
                        max: Vec2::new(x1, y1),
                        z,
                    });
                }
                _ => {
                    let Some(n) = name.strip_prefix("KEY").and_then(|n| n.parse::<u32>().ok())
                    else {
                        continue;
                    };
                    if keys.len() == MAX_SKY_KEYS {
                        return Err(err(format!("more than {MAX_SKY_KEYS} keys")));
                    }
                    let [s, rain, snow, lightning, r, g, b] = numbers::<7>(&value).map_err(err)?;
                    if !(0.0..=1e9).contains(&s) {
                        return Err(err(format!("time {s} s is negative or too far")));
                    }
                    for (what, v) in [("rain", rain), ("snow", snow), ("lightning", lightning)] {
                        if !(0.0..=1.0).contains(&v) {
                            return Err(err(format!("{what} intensity {v} is not in 0..=1")));
                        }
                    }
                    for v in [r, g, b] {
                        if !(0.0..=MAX_SKY_CHANNEL).contains(&v) {
                            return Err(err(format!(
                                "sky channel {v} is not in 0..={MAX_SKY_CHANNEL}"
                            )));
                        }
                    }
                    let key = SkyKey {
                        at_ms: (f64::from(s) * 1000.0).round() as u64,
                        weather: Weather {
                            rain,
                            snow,
                            lightning,
                            rgb: Vec3::new(r, g, b),
                        },
                    };
                    keys.push((n, p.line, key));
                }
            }
        }
        keys.sort_by_key(|(n, _, _)| *n);
        for pair in keys.windows(2) {
            let ((_, _, a), (n, line, b)) = (&pair[0], &pair[1]);
            if b.at_ms <= a.at_ms {
                return Err(SkyError::Param {
                    line: *line,
                    param: format!("KEY{n}"),
                    why: format!(
                        "time {} ms is not after the previous key's {} ms",
                        b.at_ms, a.at_ms
                    ),
                });
            }
        }
        if keys.is_empty() {
            return Err(SkyError::Param {
                line: block.line,
                param: "KEYn".into(),
                why: "the sky block has no schedule key".into(),
            });
        }
        config.keys = keys.into_iter().map(|(_, _, k)| k).collect();
        Ok(Some(config))
    }

    /// The schedule's weather at game time `time_ms` (linear between keys, held outside).
    pub fn weather_at(&self, time_ms: u64) -> Weather {
        let keys = &self.keys;
        let Some(first) = keys.first() else {
            return Weather::default();
        };
        let after = keys.partition_point(|k| k.at_ms <= time_ms);
        if after == 0 {
            return first.weather;
        }
        let a = &keys[after - 1];
        match keys.get(after) {
            None => a.weather,
            Some(b) => {
                let t = (time_ms - a.at_ms) as f64 / (b.at_ms - a.at_ms) as f64;
                a.weather.lerp(&b.weather, t as f32)
            }
        }
    }

    fn sound(&self, kind: SoundKind, name: &str, volume: f32) -> SoundEvent {
        let (library, name) = match name.rsplit_once('/') {
            Some((a, n)) => (a.to_owned(), n.to_owned()),
            None => (self.library.clone(), name.to_owned()),
        };
        SoundEvent {
            kind,
            library,
            name,
            volume,
            bus: SoundBus::AMBIENT,
            loop_id: RAIN_LOOP_ID,
            ..SoundEvent::default()
        }
    }
}

/// What one step of the atmosphere asks its owner to send, in this order.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Broadcast the weather.
    Weather(WeatherEvent),
    /// Send to the audio slot.
    Sound(SoundEvent),
    /// Send to the effects slot.
    Effect(EffectEvent),
}

/// SplitMix64: the lightning timer's draws.
struct SplitMix<'a>(&'a mut u64);

impl SplitMix<'_> {
    fn next(&mut self) -> u64 {
        crate::runtime::next_in_stream(self.0)
    }
}

impl Draws for SplitMix<'_> {
    fn delay_draw(&mut self) -> u16 {
        (self.next() >> 49) as u16
    }
    fn point_draws(&mut self) -> [f32; 2] {
        let u = |v: u64| (v >> 40) as f32 / (1u64 << 24) as f32;
        [u(self.next()), u(self.next())]
    }
}

/// The sky object's owner-side state: the schedule, the lightning timer and what was
/// last sent. Deterministic: the same config, seed and game times give the same outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Atmosphere {
    config: SkyConfig,
    bounds: Option<Bounds>,
    timer: Timer,
    rng: u64,
    sent: Option<Weather>,
    last_ms: Option<u64>,
}

impl Atmosphere {
    /// The atmosphere of `config`; strikes fall in its bounds, else in
    /// `default_bounds` (`None`: no strikes); `seed` starts the draws.
    pub fn new(config: SkyConfig, default_bounds: Option<Bounds>, seed: u64) -> Self {
        let bounds = config.bounds.or(default_bounds);
        Self {
            config,
            bounds,
            timer: Timer::Idle,
            rng: seed,
            sent: None,
            last_ms: None,
        }
    }

    /// The config.
    pub fn config(&self) -> &SkyConfig {
        &self.config
    }

    /// Where strikes fall (`None`: nowhere, no strikes).
    pub fn bounds(&self) -> Option<Bounds> {
        self.bounds
    }

    /// The weather last sent (`None`: nothing yet).
    pub fn sent(&self) -> Option<Weather> {
        self.sent
    }

    /// One step at game time `time_ms` (the time since the previous step drives the
    /// lightning timer; the first step and a time that went back drive nothing). Returns
    /// what to send, in order: the weather, the rain loop's event, a strike's effect and
    /// thunder.
    pub fn step(&mut self, time_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let dt = self.last_ms.map_or(0, |last| {
            time_ms.saturating_sub(last).min(u64::from(u32::MAX)) as u32
        });
        self.last_ms = Some(time_ms);
        let now = self.config.weather_at(time_ms).quantised();
        let before = self.sent;
        if before != Some(now) {
            out.push(Output::Weather(now.event()));
            self.sent = Some(now);
        }
        if let Some(name) = self.config.rain_sound.clone() {
            let was = before.map_or(0.0, |w| w.rain);
            let kind = match (was > 0.0, now.rain > 0.0) {
                (false, true) => Some(SoundKind::START_LOOP),
                (true, false) => Some(SoundKind::STOP_LOOP),
                (true, true) if was != now.rain => Some(SoundKind::LOOP_VOLUME),
                _ => None,
            };
            if let Some(kind) = kind {
                out.push(Output::Sound(self.config.sound(kind, &name, now.rain)));
            }
        }
        match self.bounds {
            Some(bounds) if now.lightning > 0.0 => {
                let strike =
                    self.timer
                        .advance(dt, now.lightning, &bounds, &mut SplitMix(&mut self.rng));
                if let Some(s) = strike {
                    let (archive, entry) = &self.config.lightning_effect;
                    out.push(Output::Effect(EffectEvent::at(
                        archive,
                        entry,
                        0,
                        Vec3f::from(s.at),
                    )));
                    if let Some(name) = &self.config.lightning_sound {
                        let mut e = self.config.sound(SoundKind::ONE_SHOT, name, 1.0);
                        e.position = Some(Vec3f::from(s.at));
                        e.min_distance = lightning::SOUND_MIN_DISTANCE;
                        e.max_distance = lightning::SOUND_MAX_DISTANCE;
                        e.rate = lightning::SOUND_FREQUENCY_RATIO;
                        e.loop_id = 0;
                        out.push(Output::Sound(e));
                    }
                }
            }
            _ => self.timer = Timer::Idle,
        }
        out
    }

    /// The state: [`STATE_LEN`] little-endian bytes — timer tag (0 idle, 1 waiting,
    /// 2 retry) and its milliseconds, whether a weather was sent and the rain loop is
    /// on (it is on when the sent rain is positive: kept for readers), the sent
    /// weather's six values, the RNG state, the last step's time (`u64::MAX`: none).
    pub fn save(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(STATE_LEN);
        let (tag, ms) = match self.timer {
            Timer::Idle => (0u8, 0u32),
            Timer::Waiting(ms) => (1, ms),
            Timer::Retry(ms) => (2, ms),
        };
        b.push(tag);
        b.extend_from_slice(&ms.to_le_bytes());
        let sent = self.sent.unwrap_or_default();
        b.push(u8::from(self.sent.is_some()));
        b.push(u8::from(sent.rain > 0.0));
        for v in [
            sent.rain,
            sent.snow,
            sent.lightning,
            sent.rgb.x,
            sent.rgb.y,
            sent.rgb.z,
        ] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&self.rng.to_le_bytes());
        b.extend_from_slice(&self.last_ms.unwrap_or(u64::MAX).to_le_bytes());
        b
    }

    /// Restores a state [`Atmosphere::save`] wrote; changes nothing on an error.
    ///
    /// # Errors
    /// A length other than [`STATE_LEN`], an unknown timer tag, a flag other than 0/1 or
    /// a sent value that is not a valid weather.
    pub fn restore(&mut self, b: &[u8]) -> Result<(), String> {
        if b.len() != STATE_LEN {
            return Err(format!(
                "atmosphere state of {} bytes, expected {STATE_LEN}",
                b.len()
            ));
        }
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let long = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(a)
        };
        let timer = match b[0] {
            0 => Timer::Idle,
            1 => Timer::Waiting(word(1)),
            2 => Timer::Retry(word(1)),
            t => return Err(format!("atmosphere state: timer tag {t}")),
        };
        if b[5] > 1 || b[6] > 1 {
            return Err(format!("atmosphere state: flags {} and {}", b[5], b[6]));
        }
        let f = |i: usize| f32::from_bits(word(7 + 4 * i));
        let w = Weather {
            rain: f(0),
            snow: f(1),
            lightning: f(2),
            rgb: Vec3::new(f(3), f(4), f(5)),
        };
        w.event()
            .to_message()
            .map_err(|e| format!("atmosphere state: {}", e.message))?;
        let last = long(39);
        self.timer = timer;
        self.sent = (b[5] == 1).then_some(w);
        self.rng = long(31);
        self.last_ms = (last != u64::MAX).then_some(last);
        Ok(())
    }
}

#[cfg(test)]
#[path = "sky_tests.rs"]
mod tests;
