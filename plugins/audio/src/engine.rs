//! The audio slot's logic, independent of the host so that it can be tested on its own:
//! sound events, collisions, destructions, engine loops, ambient music, the frame (the
//! listener, the mix, the outcome voice) and the hot-swap state.
//!
//! [`AudioEngine`] owns the [`Mixer`], the [`SampleCache`], the sound archives of the
//! mission (RsLi or NRes, told apart by their magic), the music, the active loops and a
//! buffer of trace records that [`AudioEngine::frame`] drains. It never fails: a missing
//! device, a missing archive or a bad sample end in a trace record (and one warning per
//! sample key on the `Sound` tracing target), never in an error of the plugin.
//!
//! Named rules:
//!
//! * **PD-AUDIO-COLLISION**: a collision plays `sounds.lib`/`COLLIDE.WAV` at the contact
//!   point, at most once per object pair every [`COLLISION_PAIR_TICKS`] ticks and at
//!   most [`COLLISIONS_PER_TICK`] times per tick; collisions over either limit are
//!   dropped silently (counted in [`AudioEngine::suppressed_collisions`], no trace).
//! * **PD-AUDIO-ENGINES**: the [`ENGINE_LOOPS`] nearest units moving faster than
//!   [`ENGINE_MIN_SPEED`] within [`ENGINE_RANGE`] of the last listener (ties by id)
//!   each have an `sounds.lib`/`ENGINE.WAV` loop on the effects bus, at rate
//!   `0.8 + speed / 20` clamped to `0.8..=1.6`, following the unit; loops start and stop
//!   (one trace record each) as the set changes once per tick. No listener yet: no
//!   engine loops.
//! * **PD-AUDIO-THEME**: the theme of `ambient_music_loop` starts on the first
//!   [`AudioEngine::tick`] (the mission's clock starting is "mission open"); a restored
//!   engine does not start it again (it restores the saved theme loop instead).
//! * **PD-AUDIO-MISSION-LIBRARY**: a sound event with an empty library plays from the
//!   mission library, `sounds.lib` unless [`AudioEngine::set_mission_library`] says
//!   otherwise (`mission.cfg`'s `LIBRARY` names the *music* archive, §13.10).
//! * **PD-AUDIO-NODEVICE-TRACE**: without a device every record is written with kind
//!   `no_device`, its own kind and the reason in `detail`; samples are not loaded.

mod state;
#[cfg(test)]
mod tests;
mod world;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

use abi_stable::std_types::{ROption, RString, RVec};
use glam::{Quat, Vec3};
use iron3d_abi::audio::{
    AudioFrame, AudioMix, AudioOutput, AudioReport, Listener, SoundBus, SoundEvent, SoundKind,
};
use iron3d_abi::host::MissionOutcome;
use iron3d_abi::rng::PluginRng;
use iron3d_abi::{ErrorKind, PluginError, StateBlob};
use serde::{Deserialize, Serialize};

use crate::error::AudioError;
use crate::mixer::{
    Bus, MOCK_SAMPLE_RATE, Mixer, OpenReport, OutputChoice, OutputKind, SourceId, SourceParams,
    listener_orientation,
};
use crate::music::{AmbientMusic, MusicConfig, MusicEvent, VariationGenerator};
use crate::sample::{Sample, SampleCache, SampleKey, SourceOwner};
use crate::trace::{AudioTraceRecord, TraceKind};

/// The default mission sound library (PD-AUDIO-MISSION-LIBRARY).
pub const SOUNDS_LIBRARY: &str = "sounds.lib";
/// The archive of the mission voice lines.
pub const VOICES_LIBRARY: &str = "voices.lib";
/// The collision sample in [`SOUNDS_LIBRARY`] (PD-AUDIO-COLLISION).
pub const COLLIDE_SAMPLE: &str = "COLLIDE.WAV";
/// The engine loop sample in [`SOUNDS_LIBRARY`] (PD-AUDIO-ENGINES).
pub const ENGINE_SAMPLE: &str = "ENGINE.WAV";
/// The voice of [`MissionOutcome::COMPLETE`] in [`VOICES_LIBRARY`].
pub const COMPLETE_VOICE: &str = "COMPLETE.WAV";
/// The voice of [`MissionOutcome::FAILED`] in [`VOICES_LIBRARY`].
pub const FAILED_VOICE: &str = "FAILED.WAV";

/// PD-AUDIO-COLLISION: ticks before the same pair sounds again.
pub const COLLISION_PAIR_TICKS: u64 = 15;
/// PD-AUDIO-COLLISION: collision sounds per tick at most.
pub const COLLISIONS_PER_TICK: u32 = 8;
/// `min_distance` / `max_distance` of collision sounds.
pub const COLLISION_DISTANCES: (f32, f32) = (10.0, 500.0);

/// PD-AUDIO-ENGINES: engine loops at most.
pub const ENGINE_LOOPS: usize = 8;
/// PD-AUDIO-ENGINES: units farther from the listener have no engine loop.
pub const ENGINE_RANGE: f32 = 400.0;
/// PD-AUDIO-ENGINES: units at or below this speed (units/s) have no engine loop.
pub const ENGINE_MIN_SPEED: f32 = 0.5;
/// PD-AUDIO-ENGINES: `min_distance` of an engine loop (its `max_distance` is
/// [`ENGINE_RANGE`]).
pub const ENGINE_MIN_DISTANCE: f32 = 10.0;

/// The most output frames the mock backend renders in one [`AudioEngine::frame`] (one
/// second: a longer gap between frames is not made up).
pub const MOCK_FRAMES_PER_FRAME_MAX: u64 = MOCK_SAMPLE_RATE as u64;
/// Trace records kept between two frames at most; later ones are dropped and counted
/// ([`AudioEngine::dropped_trace_records`]).
pub const MAX_PENDING_TRACE: usize = 65_536;

/// The state blob's format name.
pub const STATE_FORMAT: &str = "iron3d-audio";
/// The state blob's version.
pub const STATE_VERSION: u32 = 1;
/// Loops a state blob may hold at most.
pub const MAX_SAVED_LOOPS: usize = 4096;
/// Entries of one music pool a state blob may hold at most.
pub const MAX_SAVED_POOL: usize = 1024;

/// The engine loop rate of a unit moving at `speed` (PD-AUDIO-ENGINES).
pub fn engine_rate(speed: f32) -> f32 {
    (0.8 + speed / 20.0).clamp(0.8, 1.6)
}

/// The mixer bus of an event's [`SoundBus`] (unknown values: effects).
pub fn bus_of(bus: SoundBus) -> Bus {
    match bus {
        SoundBus::AMBIENT => Bus::Ambient,
        SoundBus::VOICE => Bus::Voice,
        SoundBus::MUSIC => Bus::Music,
        _ => Bus::Effects,
    }
}

/// Which loop: loops are keyed by this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopSlot {
    /// A sound event's loop (`StartLoop`/`SetLoopVolume`/`StopLoop`).
    Event {
        /// The event's owner (0: none).
        owner: u32,
        /// The sender's loop number.
        loop_id: u32,
    },
    /// The engine loop of a unit (PD-AUDIO-ENGINES).
    Engine(u32),
    /// The ambient theme.
    Theme,
}

/// One active loop.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopInfo {
    /// Its sample.
    pub key: SampleKey,
    /// The object it belongs to and follows (0: none).
    pub owner: u32,
    /// Its bus.
    pub bus: Bus,
    /// Linear volume.
    pub volume: f32,
    /// Its world position (`None`: 2D).
    pub position: Option<Vec3>,
    /// Full volume up to this distance.
    pub min_distance: f32,
    /// Silent from this distance.
    pub max_distance: f32,
    /// Playback rate.
    pub rate: f32,
    /// The mixer's source (`None`: no device, or the sample did not load).
    pub source: Option<SourceId>,
}

impl LoopInfo {
    fn params(&self) -> SourceParams {
        SourceParams {
            bus: self.bus,
            position: self.position,
            volume: self.volume,
            min_distance: self.min_distance,
            max_distance: self.max_distance,
            playback_rate: f64::from(self.rate),
            looped: true,
        }
    }
}

/// A sound archive of the mission, read once.
enum Library {
    /// Not readable (missing file, read error): every entry is missing.
    Missing(String),
    /// Neither RsLi nor NRes, or not parseable.
    Invalid(String),
    /// An RsLi archive and its entry indices by upper-case name (lowest index wins).
    Rsli {
        bytes: Vec<u8>,
        names: BTreeMap<String, usize>,
    },
    /// An NRes archive and its payload ranges by upper-case name.
    Nres {
        bytes: Vec<u8>,
        names: BTreeMap<String, Range<usize>>,
    },
}

impl Library {
    fn parse(bytes: Vec<u8>) -> Library {
        if bytes.starts_with(&iron3d_nres::MAGIC) {
            let names = match iron3d_nres::Nres::parse(&bytes) {
                Ok(a) => {
                    let mut names = BTreeMap::new();
                    for e in a.entries() {
                        let name = String::from_utf8_lossy(e.name()).to_ascii_uppercase();
                        names.entry(name).or_insert_with(|| e.data_range());
                    }
                    names
                }
                Err(e) => return Library::Invalid(format!("NRes archive: {e}")),
            };
            Library::Nres { bytes, names }
        } else if bytes.starts_with(b"NL") {
            let names = match iron3d_rsli::Rsli::parse(&bytes) {
                Ok(a) => {
                    let mut names = BTreeMap::new();
                    for e in a.entries() {
                        let name = String::from_utf8_lossy(e.name()).to_ascii_uppercase();
                        names.entry(name).or_insert(e.index());
                    }
                    names
                }
                Err(e) => return Library::Invalid(format!("RsLi archive: {e}")),
            };
            Library::Rsli { bytes, names }
        } else {
            Library::Invalid("neither an RsLi (NL) nor an NRes archive".into())
        }
    }

    /// The entry's bytes: `Ok(None)` when absent.
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Library::Missing(_) => Ok(None),
            Library::Invalid(why) => Err(why.clone()),
            Library::Nres { bytes, names } => Ok(names
                .get(name)
                .map(|r| bytes.get(r.clone()).unwrap_or(&[]).to_vec())),
            Library::Rsli { bytes, names } => {
                let Some(&index) = names.get(name) else {
                    return Ok(None);
                };
                let archive = iron3d_rsli::Rsli::parse(bytes).map_err(|e| e.to_string())?;
                let entry = archive
                    .entry(index)
                    .ok_or_else(|| format!("RsLi entry {index} vanished"))?;
                entry
                    .decode()
                    .map(Some)
                    .map_err(|e| format!("RsLi entry {name}: {e}"))
            }
        }
    }
}

fn read_entry(
    libraries: &BTreeMap<String, Library>,
    key: &SampleKey,
) -> Result<Option<Vec<u8>>, String> {
    match libraries.get(key.library()) {
        Some(l) => l.read(key.name()),
        None => Ok(None),
    }
}

/// One playback request (internal).
struct Play {
    key: SampleKey,
    owner: SourceOwner,
    params: SourceParams,
    kind: TraceKind,
    start: f64,
    detail: Option<String>,
}

fn kind_name(kind: TraceKind) -> &'static str {
    match kind {
        TraceKind::Play => "play",
        TraceKind::Stop => "stop",
        TraceKind::LoopStart => "loop_start",
        TraceKind::LoopVolume => "loop_volume",
        TraceKind::LoopStop => "loop_stop",
        TraceKind::MusicTheme => "music_theme",
        TraceKind::MusicVariation => "music_variation",
        TraceKind::Voice => "voice",
        TraceKind::Listener => "listener",
        TraceKind::Pause => "pause",
        TraceKind::Resume => "resume",
        TraceKind::Mute => "mute",
        TraceKind::NoDevice => "no_device",
        TraceKind::LoadFailed => "load_failed",
        TraceKind::Stolen => "stolen",
    }
}

fn object_owner(id: u32, otherwise: &str) -> SourceOwner {
    if id == 0 {
        SourceOwner::Named(otherwise.into())
    } else {
        SourceOwner::Object(id)
    }
}

fn bad_state(why: impl Into<String>) -> PluginError {
    PluginError::new(ErrorKind::BAD_STATE, why)
}

/// The audio slot's logic (see the module docs).
pub struct AudioEngine {
    mixer: Mixer,
    open: OpenReport,
    choice: OutputChoice,
    cache: SampleCache,
    libraries: BTreeMap<String, Library>,
    mission_library: String,
    music: Option<AmbientMusic>,
    music_rng: PluginRng,
    /// The sky's base RGB last heard (a weather event; `None`: no sky, NIGHT).
    sky_rgb: Option<Vec3>,
    theme_started: bool,
    loops: BTreeMap<LoopSlot, LoopInfo>,
    followers: BTreeMap<SourceId, u32>,
    positions: BTreeMap<u32, Vec3>,
    listener: Option<(Vec3, Quat)>,
    mix: Option<AudioMix>,
    outcome_voice_played: bool,
    trace: Vec<AudioTraceRecord>,
    trace_dropped: u64,
    logged_failures: BTreeSet<SampleKey>,
    collision_pairs: BTreeMap<(u32, u32), u64>,
    collisions_tick: (u64, u32),
    suppressed_collisions: u64,
    tick: u64,
    /// Simulation ticks per second (PD-AUDIO-MOCK-CLOCK).
    tick_hz: u32,
    /// The tick of the last frame.
    last_frame_tick: Option<u64>,
}

impl std::fmt::Debug for AudioEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioEngine")
            .field("mixer", &self.mixer)
            .field("libraries", &self.libraries.keys().collect::<Vec<_>>())
            .field("loops", &self.loops)
            .field("tick", &self.tick)
            .finish_non_exhaustive()
    }
}

impl AudioEngine {
    /// An engine on the chosen output for `mission` (named in diagnostic chains), with
    /// no archives, no music and the default mission library.
    pub fn new(choice: OutputChoice, mission: &str) -> AudioEngine {
        let (mixer, open) = Mixer::open(choice);
        AudioEngine {
            mixer,
            open,
            choice,
            cache: SampleCache::new(mission),
            libraries: BTreeMap::new(),
            mission_library: SOUNDS_LIBRARY.into(),
            music: None,
            music_rng: PluginRng::new(0),
            sky_rgb: None,
            theme_started: false,
            loops: BTreeMap::new(),
            followers: BTreeMap::new(),
            positions: BTreeMap::new(),
            listener: None,
            mix: None,
            outcome_voice_played: false,
            trace: Vec::new(),
            trace_dropped: 0,
            logged_failures: BTreeSet::new(),
            collision_pairs: BTreeMap::new(),
            collisions_tick: (0, 0),
            suppressed_collisions: 0,
            tick: 0,
            tick_hz: 30,
            last_frame_tick: None,
        }
    }

    /// Sets the simulation rate the mixer without a device keeps time by
    /// (PD-AUDIO-MOCK-CLOCK; the mission's, 30 unless told).
    pub fn set_tick_rate(&mut self, tick_hz: u32) {
        self.tick_hz = tick_hz.max(1);
    }

    /// What opening the output did.
    pub fn open_report(&self) -> &OpenReport {
        &self.open
    }

    /// The output in use.
    pub fn output(&self) -> OutputKind {
        self.mixer.output()
    }

    /// The mixer (tests and benchmarks step the mock backend through it).
    pub fn mixer(&self) -> &Mixer {
        &self.mixer
    }

    /// The mixer, mutable.
    pub fn mixer_mut(&mut self) -> &mut Mixer {
        &mut self.mixer
    }

    /// The sample cache (its counters show decodes and hits).
    pub fn cache(&self) -> &SampleCache {
        &self.cache
    }

    /// Names the mission in diagnostic chains; forgets the cached samples.
    pub fn set_mission(&mut self, mission: &str) {
        self.cache = SampleCache::new(mission);
        self.logged_failures.clear();
    }

    /// The library a bare sound name plays from (PD-AUDIO-MISSION-LIBRARY).
    pub fn mission_library(&self) -> &str {
        &self.mission_library
    }

    /// Sets the mission library.
    pub fn set_mission_library(&mut self, library: &str) {
        self.mission_library = library.into();
    }

    /// Whether archive `name` (any case) was loaded (or found missing) already.
    pub fn has_library(&self, name: &str) -> bool {
        self.libraries.contains_key(&name.to_ascii_uppercase())
    }

    /// The archive an event plays from (its own, else the mission library).
    pub fn library_of(&self, event: &SoundEvent) -> String {
        if event.library.is_empty() {
            self.mission_library.clone()
        } else {
            event.library.clone()
        }
    }

    /// Takes archive `name`'s bytes (`Err(why)`: not available, every entry is then
    /// `entry_missing`); RsLi (`NL`) and NRes (`NRes`) are told apart by their magic.
    /// An archive that does not parse is logged once (target `Sound`); every request
    /// of it is then a read failure (traced `load_failed` with the parser's message,
    /// not cached by the [`SampleCache`]). A second load of the same name replaces the
    /// first; the cached samples stay.
    pub fn load_library(&mut self, name: &str, bytes: Result<Vec<u8>, String>) {
        let library = match bytes {
            Ok(b) => Library::parse(b),
            Err(why) => {
                tracing::debug!(target: "Sound", library = name, "sound archive not available: {why}");
                Library::Missing(why)
            }
        };
        if let Library::Invalid(why) = &library {
            tracing::warn!(target: "Sound", library = name, "sound archive unreadable: {why}");
        }
        self.libraries.insert(name.to_ascii_uppercase(), library);
    }

    /// The sky's base RGB from a weather event (FORMATS §13.10: its length above 1.1
    /// picks the DAY pool); `None`: no sky (NIGHT, PD-AUDIO-MUSIC-NOSKY).
    pub fn set_sky(&mut self, rgb: Option<Vec3>) {
        self.sky_rgb = rgb;
    }

    /// The sky's base RGB last heard.
    pub fn sky(&self) -> Option<Vec3> {
        self.sky_rgb
    }

    /// Sets the ambient music (FORMATS §13.10) with its index generator and the seed of
    /// its `rand()` stream (PD-AUDIO-MUSIC-RAND); replaces any previous music.
    pub fn set_music(&mut self, config: MusicConfig, generator: VariationGenerator, seed: u64) {
        self.music = Some(AmbientMusic::new(config, generator));
        self.music_rng = PluginRng::new(seed);
    }

    /// The ambient music state, if the mission has music.
    pub fn music(&self) -> Option<&AmbientMusic> {
        self.music.as_ref()
    }

    /// The active loops.
    pub fn loops(&self) -> &BTreeMap<LoopSlot, LoopInfo> {
        &self.loops
    }

    /// The last listener applied (position, kira orientation).
    pub fn listener(&self) -> Option<(Vec3, Quat)> {
        self.listener
    }

    /// Collisions dropped by PD-AUDIO-COLLISION so far.
    pub fn suppressed_collisions(&self) -> u64 {
        self.suppressed_collisions
    }

    /// Trace records dropped because more than [`MAX_PENDING_TRACE`] piled up between
    /// two frames.
    pub fn dropped_trace_records(&self) -> u64 {
        self.trace_dropped
    }

    /// Whether the outcome voice was played.
    pub fn outcome_voice_played(&self) -> bool {
        self.outcome_voice_played
    }

    /// The trace records since the last drain (frame or call of this).
    pub fn take_trace(&mut self) -> Vec<AudioTraceRecord> {
        std::mem::take(&mut self.trace)
    }

    /// Why there is no device (`None` with a device or the mock).
    pub fn no_device_reason(&self) -> Option<String> {
        if self.mixer.output() != OutputKind::NoDevice {
            return None;
        }
        Some(match (&self.open.reason, self.choice) {
            (Some(r), _) => format!("no sound device ({r}): the game plays silently"),
            (None, OutputChoice::None) => {
                "no sound device: the silent output was chosen, the game plays silently".into()
            }
            (None, _) => "no sound device: the game plays silently".into(),
        })
    }

    // ---- trace -------------------------------------------------------------------

    fn record(&self, tick: u64, kind: TraceKind) -> AudioTraceRecord {
        let r = AudioTraceRecord::new(tick, kind);
        match self.listener {
            Some((p, q)) => r.listener(p, q),
            None => r,
        }
    }

    fn push(&mut self, mut record: AudioTraceRecord) {
        if self.mixer.output() == OutputKind::NoDevice && record.kind != TraceKind::NoDevice {
            let reason = self.no_device_reason().unwrap_or_default();
            let detail = match record.detail.take() {
                Some(d) => format!("{}: {d}: {reason}", kind_name(record.kind)),
                None => format!("{}: {reason}", kind_name(record.kind)),
            };
            record.kind = TraceKind::NoDevice;
            record.detail = Some(detail);
        }
        if self.trace.len() >= MAX_PENDING_TRACE {
            self.trace_dropped += 1;
            return;
        }
        self.trace.push(record);
    }

    // ---- playback ----------------------------------------------------------------

    fn sample(&mut self, key: &SampleKey, owner: &SourceOwner) -> Result<Arc<Sample>, String> {
        let libraries = &self.libraries;
        match self.cache.get(key, owner, |k| read_entry(libraries, k)) {
            Ok(s) => Ok(s),
            Err(e) => {
                let mut detail = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(s) = source {
                    detail.push_str(&format!(": {s}"));
                    source = s.source();
                }
                if let Some(Library::Missing(why)) = self.libraries.get(key.library()) {
                    detail.push_str(&format!(" (library {}: {why})", key.library()));
                } else if !self.libraries.contains_key(key.library()) {
                    detail.push_str(&format!(" (library {} was not loaded)", key.library()));
                }
                if self.logged_failures.insert(key.clone()) {
                    tracing::warn!(target: "Sound", sample = %key, "{detail}");
                }
                Err(detail)
            }
        }
    }

    /// Plays a request; one trace record whatever happens.
    fn play(&mut self, tick: u64, p: Play) -> Option<SourceId> {
        let mut rec = self
            .record(tick, p.kind)
            .sample(&p.key)
            .owner(&p.owner)
            .bus(p.params.bus)
            .volume(p.params.volume);
        if let Some(pos) = p.params.position {
            rec = rec.position(pos);
        }
        if let Some(d) = p.detail {
            rec = rec.detail(d);
        }
        if self.mixer.output() == OutputKind::NoDevice {
            self.push(rec);
            return None;
        }
        let sample = match self.sample(&p.key, &p.owner) {
            Ok(s) => s,
            Err(detail) => {
                rec.kind = TraceKind::LoadFailed;
                rec.detail = Some(detail);
                self.push(rec);
                return None;
            }
        };
        match self.mixer.play_at(&sample, p.params, p.start) {
            Ok(id) => {
                for stolen in self.mixer.take_stolen() {
                    let r = self
                        .record(tick, TraceKind::Stolen)
                        .source(stolen)
                        .detail(format!("voice limit: made room for source {}", id.0));
                    self.push(r);
                }
                self.push(rec.source(id));
                Some(id)
            }
            Err(e) => {
                tracing::debug!(target: "Sound", sample = %p.key, "sound not played: {e}");
                let detail = match rec.detail.take() {
                    Some(d) => format!("{d}; not played: {e}"),
                    None => format!("not played: {e}"),
                };
                self.push(rec.detail(detail));
                None
            }
        }
    }

    fn start_loop(&mut self, tick: u64, slot: LoopSlot, info: LoopInfo, kind: TraceKind) {
        self.start_loop_at(tick, slot, info, kind, 0.0, None);
    }

    fn start_loop_at(
        &mut self,
        tick: u64,
        slot: LoopSlot,
        mut info: LoopInfo,
        kind: TraceKind,
        start: f64,
        detail: Option<String>,
    ) {
        let owner = match slot {
            LoopSlot::Theme => SourceOwner::Named("ambient_music".into()),
            _ => object_owner(info.owner, "sound_event"),
        };
        let restarted = self.stop_loop_source(slot);
        let detail = match (detail, restarted) {
            (Some(d), _) => Some(d),
            (None, true) => Some("restarted with a new sample".into()),
            (None, false) => None,
        };
        info.source = self.play(
            tick,
            Play {
                key: info.key.clone(),
                owner,
                params: info.params(),
                kind,
                start,
                detail,
            },
        );
        self.loops.insert(slot, info);
    }

    /// Removes a loop and stops its source; whether there was one.
    fn stop_loop_source(&mut self, slot: LoopSlot) -> bool {
        match self.loops.remove(&slot) {
            Some(l) => {
                if let Some(id) = l.source {
                    let _ = self.mixer.stop(id);
                }
                true
            }
            None => false,
        }
    }

    fn stop_loop(&mut self, tick: u64, slot: LoopSlot, detail: Option<&str>) {
        let Some(l) = self.loops.get(&slot).cloned() else {
            return;
        };
        self.stop_loop_source(slot);
        let mut rec = self
            .record(tick, TraceKind::LoopStop)
            .sample(&l.key)
            .owner(&object_owner(l.owner, "sound_event"))
            .bus(l.bus)
            .volume(l.volume);
        if let Some(p) = l.position {
            rec = rec.position(p);
        }
        if let Some(id) = l.source {
            rec = rec.source(id);
        }
        if let Some(d) = detail {
            rec = rec.detail(d);
        }
        self.push(rec);
    }

    /// A sound event (FORMATS §13.8): `ONE_SHOT` plays on a new source (3D when the
    /// event or its owner has a position: `owner_position`, else the owner's position
    /// of the last tick), `START_LOOP` starts loop `(owner, loop_id)` (restarting one
    /// already running under that id with the new sample), `LOOP_VOLUME` sets its
    /// volume, `STOP_LOOP` stops it, `VOICE` plays 2D on the voice bus. An empty library
    /// means the mission library. One trace record per event; unknown kinds are ignored.
    pub fn sound(&mut self, tick: u64, event: &SoundEvent, owner_position: Option<Vec3>) {
        self.tick = tick;
        let key = SampleKey::new(&self.library_of(event), &event.name);
        let owner = object_owner(event.owner, "sound_event");
        let position = event
            .position
            .map(Vec3::from)
            .or(owner_position)
            .or_else(|| {
                (event.owner != 0)
                    .then(|| self.positions.get(&event.owner).copied())
                    .flatten()
            });
        let params = SourceParams {
            bus: bus_of(event.bus),
            position,
            volume: event.volume,
            min_distance: event.min_distance,
            max_distance: event.max_distance,
            playback_rate: f64::from(event.rate),
            looped: false,
        };
        let slot = LoopSlot::Event {
            owner: event.owner,
            loop_id: event.loop_id,
        };
        match event.kind {
            SoundKind::ONE_SHOT => {
                let id = self.play(
                    tick,
                    Play {
                        key,
                        owner,
                        params,
                        kind: TraceKind::Play,
                        start: 0.0,
                        detail: None,
                    },
                );
                if let (Some(id), true, Some(_)) = (id, event.owner != 0, position) {
                    self.followers.insert(id, event.owner);
                }
            }
            SoundKind::VOICE => {
                let params = SourceParams {
                    bus: Bus::Voice,
                    position: None,
                    ..params
                };
                self.play(
                    tick,
                    Play {
                        key,
                        owner,
                        params,
                        kind: TraceKind::Voice,
                        start: 0.0,
                        detail: None,
                    },
                );
            }
            SoundKind::START_LOOP => {
                let info = LoopInfo {
                    key,
                    owner: event.owner,
                    bus: params.bus,
                    volume: event.volume,
                    position,
                    min_distance: event.min_distance,
                    max_distance: event.max_distance,
                    rate: event.rate,
                    source: None,
                };
                self.start_loop(tick, slot, info, TraceKind::LoopStart);
            }
            SoundKind::LOOP_VOLUME => self.loop_volume(tick, slot, key, owner, event.volume),
            SoundKind::STOP_LOOP => {
                if self.loops.contains_key(&slot) {
                    self.stop_loop(tick, slot, None);
                } else {
                    let rec = self
                        .record(tick, TraceKind::LoopStop)
                        .sample(&key)
                        .owner(&owner)
                        .detail(format!("no loop {} is running", event.loop_id));
                    self.push(rec);
                }
            }
            other => {
                tracing::debug!(target: "Sound", kind = other.0, "unknown sound event kind ignored");
            }
        }
    }

    fn loop_volume(
        &mut self,
        tick: u64,
        slot: LoopSlot,
        key: SampleKey,
        owner: SourceOwner,
        volume: f32,
    ) {
        let Some(l) = self.loops.get_mut(&slot) else {
            let rec = self
                .record(tick, TraceKind::LoopVolume)
                .sample(&key)
                .owner(&owner)
                .volume(volume)
                .detail("no such loop is running");
            self.push(rec);
            return;
        };
        l.volume = volume;
        let l = l.clone();
        let mut rec = self
            .record(tick, TraceKind::LoopVolume)
            .sample(&l.key)
            .owner(&owner)
            .bus(l.bus)
            .volume(volume);
        if let Some(p) = l.position {
            rec = rec.position(p);
        }
        if let Some(id) = l.source {
            rec = rec.source(id);
            if let Err(e) = self.mixer.set_source_volume(id, volume) {
                rec = rec.detail(e.to_string());
            }
        }
        self.push(rec);
    }

    /// One presented frame: applies the listener (a `listener` record only when it
    /// changed), the mix (bus volumes; mute/unmute and pause/resume keep positions,
    /// times and the cache), plays the outcome voice once, renders on the mock backend
    /// the game time since the last frame (ticks × step, **PD-AUDIO-MOCK-CLOCK**: the
    /// mixer without a device keeps game time, so a trace's positions do not depend on
    /// the frame rate), and reports the output, the active sources and — when `frame.trace` —
    /// the records since the last frame as JSON lines (drained either way).
    pub fn frame(&mut self, frame: &AudioFrame) -> AudioReport {
        let tick = frame.tick;
        if let ROption::RSome(l) = frame.listener {
            self.set_listener(tick, &l);
        }
        self.apply_mix(tick, frame.mix);
        if let ROption::RSome(outcome) = frame.outcome {
            self.outcome_voice(tick, outcome);
        }
        match self.mixer.output() {
            OutputKind::Mock => {
                let ticks = self
                    .last_frame_tick
                    .map_or(0, |last| tick.saturating_sub(last));
                let frames = (ticks.saturating_mul(u64::from(MOCK_SAMPLE_RATE))
                    / u64::from(self.tick_hz.max(1)))
                .min(MOCK_FRAMES_PER_FRAME_MAX);
                if frames > 0 {
                    let _ = self.mixer.process_mock(frames as usize);
                }
            }
            OutputKind::Device => {
                let _ = self.mixer.update();
            }
            OutputKind::NoDevice => {}
        }
        self.last_frame_tick = Some(tick);
        let records = self.take_trace();
        let trace: RVec<RString> = if frame.trace {
            records
                .iter()
                .filter_map(|r| serde_json::to_string(r).ok())
                .map(RString::from)
                .collect()
        } else {
            RVec::new()
        };
        AudioReport {
            output: match self.mixer.output() {
                OutputKind::Device => AudioOutput::DEVICE,
                OutputKind::Mock => AudioOutput::MOCK,
                OutputKind::NoDevice => AudioOutput::NO_DEVICE,
            },
            reason: self.no_device_reason().unwrap_or_default().into(),
            active_sources: u32::try_from(self.mixer.active_sources()).unwrap_or(u32::MAX),
            trace,
        }
    }

    fn set_listener(&mut self, tick: u64, l: &Listener) {
        let position = Vec3::from(l.position);
        let orientation = listener_orientation(Vec3::from(l.front), Vec3::from(l.up));
        if !position.is_finite() || !orientation.is_finite() {
            tracing::debug!(target: "Sound", "non-finite listener ignored");
            return;
        }
        if self.listener == Some((position, orientation)) {
            return;
        }
        let _ = self.mixer.set_listener(position, orientation);
        self.listener = Some((position, orientation));
        let rec = self.record(tick, TraceKind::Listener);
        self.push(rec);
    }

    fn apply_mix(&mut self, tick: u64, mix: AudioMix) {
        let previous = self.mix;
        let buses = [
            (Bus::Master, mix.master, previous.map(|m| m.master)),
            (Bus::Effects, mix.effects, previous.map(|m| m.effects)),
            (Bus::Ambient, mix.ambient, previous.map(|m| m.ambient)),
            (Bus::Voice, mix.voice, previous.map(|m| m.voice)),
            (Bus::Music, mix.music, previous.map(|m| m.music)),
        ];
        for (bus, now, before) in buses {
            if before.is_none_or(|b| b.to_bits() != now.to_bits()) {
                let _ = self.mixer.set_bus_volume(bus, now);
            }
        }
        let was_muted = previous.is_some_and(|m| m.muted);
        if mix.muted != was_muted {
            let (r, volume) = if mix.muted {
                (self.mixer.mute(), 0.0)
            } else {
                (self.mixer.unmute(), 1.0)
            };
            let _ = r;
            let rec = self.record(tick, TraceKind::Mute).volume(volume);
            self.push(rec);
        }
        let was_paused = previous.is_some_and(|m| m.paused);
        if mix.paused != was_paused {
            let kind = if mix.paused {
                let _ = self.mixer.pause_all();
                TraceKind::Pause
            } else {
                let _ = self.mixer.resume_all();
                TraceKind::Resume
            };
            if let Some(m) = &mut self.music {
                m.set_paused(mix.paused);
            }
            let rec = self.record(tick, kind);
            self.push(rec);
        }
        self.mix = Some(mix);
    }

    fn outcome_voice(&mut self, tick: u64, outcome: MissionOutcome) {
        if self.outcome_voice_played {
            return;
        }
        self.outcome_voice_played = true;
        let name = match outcome {
            MissionOutcome::COMPLETE => COMPLETE_VOICE,
            MissionOutcome::FAILED => FAILED_VOICE,
            _ => return,
        };
        self.play(
            tick,
            Play {
                key: SampleKey::new(VOICES_LIBRARY, name),
                owner: SourceOwner::Named("mission".into()),
                params: SourceParams {
                    bus: Bus::Voice,
                    ..SourceParams::default()
                },
                kind: TraceKind::Voice,
                start: 0.0,
                detail: Some(format!("mission {}", outcome.name())),
            },
        );
    }

    /// Stops every source (mission end).
    pub fn stop_all(&mut self) {
        let slots: Vec<LoopSlot> = self.loops.keys().copied().collect();
        for slot in slots {
            self.stop_loop_source(slot);
        }
        for id in std::mem::take(&mut self.followers).into_keys() {
            let _ = self.mixer.stop(id);
        }
    }
}
