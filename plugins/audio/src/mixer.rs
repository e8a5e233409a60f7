//! The kira mixer (tome VI "Звуковая подсистема", "3D listener и sources").
//!
//! Track tree: kira's main track carries the master limiter (PD-AUDIO-LIMITER, in
//! [`crate::limiter`]: no output sample beyond its ceiling) and, after it, the master
//! volume (and mute); under it a
//! *root* track is what [`Mixer::pause_all`] pauses (a paused kira track stops
//! advancing its sounds, so play positions and loops are kept) and holds the sources of
//! [`Bus::Master`]; under the root, one sub-track per bus (effects, ambient, voice,
//! music) carries that bus's volume. A 2D source is a kira static sound on its bus
//! track; a 3D source is a kira spatial sub-track of its bus (position, min/max
//! distance, the listener) with the sound on it. Attenuation and panning are kira's
//! (linear-in-decibels fade from `min_distance` to `max_distance`, spatialisation
//! strength 0.75), not a hand-written model.
//!
//! **PD-AUDIO-VOICES**: at most [`MAX_VOICES`] sources play at once (mixing many more
//! 3D sources no longer keeps real time). A source's [`Priority`] is its class — a
//! voice line above music above loops (weather, engines) above one-shots — then its
//! audibility when it starts: its volume times kira's distance attenuation from the
//! listener (−60 dB across `min_distance..max_distance`, linear in decibels). When every
//! voice is taken, a new source stops the least important playing one-shot or loop (the
//! oldest of equals) if it matters more — so a loop goes only for music or a voice line,
//! and music and voices are never stopped for another source — and is refused otherwise
//! ([`AudioError::Capacity`]); the stopped ones are reported by [`Mixer::take_stolen`].
//!
//! Volumes are **linear amplitudes in `0..=1`** (NaN or ≤ 0 is silence, above 1 is
//! clamped), converted to decibels for kira with a floor of −60 dB (kira's silence).
//! Every change fades over [`FADE`] to avoid clicks.
//!
//! Outputs: the real device (kira's cpal backend), a *mock* backend driven by hand
//! ([`Mixer::process_mock`], [`Mixer::render_mock`]) at [`MOCK_SAMPLE_RATE`] for tests
//! and benchmarks, or the explicit *no-device* state, in which every command returns
//! [`AudioError::NoDevice`] and changes nothing audible.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use glam::{Mat3, Quat, Vec3};
use kira::backend::{Backend, Renderer};
use kira::listener::ListenerHandle;
use kira::sound::PlaybackState;
use kira::sound::static_sound::StaticSoundHandle;
use kira::track::{
    MainTrackBuilder, SpatialTrackBuilder, SpatialTrackHandle, TrackBuilder, TrackHandle,
};
use kira::{
    AudioManager, AudioManagerSettings, Decibels, DefaultBackend, Easing, StartTime, Tween,
};
use serde::{Deserialize, Serialize};

use crate::error::AudioError;
use crate::limiter::LimiterBuilder;
use crate::sample::Sample;

/// Sample rate of the mock backend (kira's own mock defaults to 1 Hz).
pub const MOCK_SAMPLE_RATE: u32 = 48_000;

/// Frames kira renders per block (its internal buffer size).
pub const BLOCK_FRAMES: usize = 128;

/// The most sources one bus holds at once (kira's arenas are fixed-size); a further
/// `play` is [`AudioError::Capacity`].
pub const SOURCES_PER_BUS: usize = 1024;

/// The fade applied to every volume, position, pause, resume and stop command.
pub const FADE: Tween = Tween {
    start_time: StartTime::Immediate,
    duration: Duration::from_millis(5),
    easing: Easing::Linear,
};

/// How fast a one-shot stopped for a more important source fades out
/// (PD-AUDIO-VOICES): the same short fade as every change.
pub const STEAL_FADE: Tween = FADE;

/// A mixer bus. Every source plays on exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bus {
    /// Everything; its volume scales all buses.
    Master,
    /// Effects and objects (FX opcode 2, weapons, engines).
    Effects,
    /// Atmosphere loops and one-shots (rain, lightning).
    Ambient,
    /// Mission voice events.
    Voice,
    /// Ambient music (theme and variations).
    Music,
}

impl Bus {
    /// All buses in a fixed order.
    pub const ALL: [Bus; 5] = [
        Bus::Master,
        Bus::Effects,
        Bus::Ambient,
        Bus::Voice,
        Bus::Music,
    ];

    fn index(self) -> usize {
        match self {
            Bus::Master => 0,
            Bus::Effects => 1,
            Bus::Ambient => 2,
            Bus::Voice => 3,
            Bus::Music => 4,
        }
    }
}

/// Which output [`Mixer::open`] should use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputChoice {
    /// The default device; on failure the no-device state (the reason is reported).
    Auto,
    /// The hand-driven mock backend at [`MOCK_SAMPLE_RATE`].
    Mock,
    /// The no-device state, on purpose (headless runs, `DisableDSound`).
    None,
}

/// The output a mixer ended up with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    /// A real device through cpal.
    Device,
    /// The hand-driven mock backend.
    Mock,
    /// No output: every command answers [`AudioError::NoDevice`].
    NoDevice,
}

/// What [`Mixer::open`] did, to be logged once by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenReport {
    /// The output in use.
    pub kind: OutputKind,
    /// Why the device was not used (`None` when it was, or when none was asked for).
    pub reason: Option<String>,
}

/// A playing source, numbered from 1 in play order (never reused by one mixer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SourceId(pub u64);

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// How to play one source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SourceParams {
    /// The bus it plays on.
    pub bus: Bus,
    /// World position of a 3D source; `None` plays in 2D (no attenuation or panning).
    pub position: Option<Vec3>,
    /// Linear volume `0..=1`.
    pub volume: f32,
    /// Distance up to which a 3D source plays at full volume (finite, ≥ 0).
    pub min_distance: f32,
    /// Distance from which a 3D source is silent (finite, > `min_distance`).
    pub max_distance: f32,
    /// Playback speed ratio (the FX `frequency_ratio`; finite, > 0; also shifts pitch).
    pub playback_rate: f64,
    /// Loop the whole sample until stopped.
    pub looped: bool,
}

impl Default for SourceParams {
    /// A one-shot 2D effect at full volume, normal speed, distances 1..100.
    fn default() -> Self {
        SourceParams {
            bus: Bus::Effects,
            position: None,
            volume: 1.0,
            min_distance: 1.0,
            max_distance: 100.0,
            playback_rate: 1.0,
            looped: false,
        }
    }
}

/// Where a source stands.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SourceStatus {
    /// Its bus.
    pub bus: Bus,
    /// Whether it is a 3D source.
    pub spatial: bool,
    /// Whether it loops.
    pub looped: bool,
    /// Play position in seconds of the sample (wraps when looping).
    pub position_seconds: f64,
    /// Whether it is stopping or stopped (it is removed once stopped).
    pub stopped: bool,
}

/// Linear amplitude `0..=1` → kira decibels (floor: kira's silence, −60 dB).
pub fn amplitude_to_decibels(amplitude: f32) -> Decibels {
    if amplitude.is_nan() || amplitude <= 0.0 {
        return Decibels::SILENCE;
    }
    Decibels((20.0 * amplitude.min(1.0).log10()).max(Decibels::SILENCE.0))
}

/// The listener orientation for a camera looking along `front` with `up` up, in kira's
/// convention (listener space: right +X, up +Y, forward −Z; `right = front × up`).
/// Degenerate input (zero or parallel vectors) gives the identity.
pub fn listener_orientation(front: Vec3, up: Vec3) -> Quat {
    let f = front.normalize_or_zero();
    let r = f.cross(up).normalize_or_zero();
    if f == Vec3::ZERO || r == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let u = r.cross(f);
    Quat::from_mat3(&Mat3::from_cols(r, u, -f)).normalize()
}

/// A backend that renders only when asked ([`Mixer::process_mock`]) and lets us read
/// the samples (kira's `MockBackend` renders into a buffer it does not expose).
struct ManualBackend {
    renderer: Option<Renderer>,
    buffer: Vec<f32>,
}

impl Backend for ManualBackend {
    type Settings = u32;
    type Error = Infallible;

    fn setup(sample_rate: u32, internal_buffer_size: usize) -> Result<(Self, u32), Infallible> {
        Ok((
            ManualBackend {
                renderer: None,
                buffer: vec![0.0; internal_buffer_size * 2],
            },
            sample_rate,
        ))
    }

    fn start(&mut self, renderer: Renderer) -> Result<(), Infallible> {
        self.renderer = Some(renderer);
        Ok(())
    }
}

impl ManualBackend {
    /// Renders one block; the stereo samples are in `self.buffer`.
    fn block(&mut self) {
        if let Some(r) = &mut self.renderer {
            r.on_start_processing();
            r.process(&mut self.buffer, 2);
        }
    }
}

enum Manager {
    Device(Box<AudioManager<DefaultBackend>>),
    Manual(Box<AudioManager<ManualBackend>>),
}

macro_rules! with_manager {
    ($m:expr, $v:ident => $e:expr) => {
        match $m {
            Manager::Device($v) => $e,
            Manager::Manual($v) => $e,
        }
    };
}

struct Source {
    bus: Bus,
    looped: bool,
    sound: StaticSoundHandle,
    spatial: Option<SpatialTrackHandle>,
    /// PD-AUDIO-VOICES: what it is worth, from its start.
    priority: Priority,
    /// Stopped (fading out): no longer holds a voice.
    stopping: bool,
}

/// Sources that play at once at most (PD-AUDIO-VOICES): 32, as many hardware voices
/// as the sound cards of the original's day mixed; `cargo bench -p iron3d-audio` mixes
/// them about 5× faster than real time on one core here, 64 only about 1.5×.
pub const MAX_VOICES: usize = 32;

/// How much a source is worth keeping (PD-AUDIO-VOICES): its class first (3 voice,
/// 2 music, 1 a loop, 0 a one-shot), then its audibility at the listener when it
/// started.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Priority {
    /// The class.
    pub class: u8,
    /// Volume times distance attenuation (`0..=1`).
    pub audibility: f32,
}

impl Priority {
    /// The priority of a source of `params` heard from `listener`.
    pub fn of(params: &SourceParams, listener: Vec3) -> Priority {
        let class = match params.bus {
            Bus::Voice => 3,
            Bus::Music => 2,
            _ if params.looped => 1,
            _ => 0,
        };
        let volume = if params.volume.is_nan() {
            0.0
        } else {
            params.volume.clamp(0.0, 1.0)
        };
        let attenuation = match params.position {
            None => 1.0,
            Some(p) => {
                let d = p.distance(listener);
                let span = (params.max_distance - params.min_distance).max(f32::MIN_POSITIVE);
                let x = ((d - params.min_distance) / span).clamp(0.0, 1.0);
                // kira's fade: linear in decibels down to −60 dB at max_distance.
                10f32.powf(-3.0 * x)
            }
        };
        Priority {
            class,
            audibility: volume * attenuation,
        }
    }
}

struct Live {
    // Handles first: they only send commands, the manager owns the renderer.
    sources: BTreeMap<SourceId, Source>,
    listener: ListenerHandle,
    buses: [TrackHandle; 4],
    root: TrackHandle,
    manager: Manager,
}

impl Live {
    fn open(mut manager: Manager) -> Result<Live, AudioError> {
        let cap = || AudioError::Capacity("mixer tracks");
        let mut root = with_manager!(&mut manager, m => m.add_sub_track(
            TrackBuilder::new()
                .sub_track_capacity(4 + SOURCES_PER_BUS)
                .sound_capacity(SOURCES_PER_BUS)
        ))
        .map_err(|_| cap())?;
        let mut bus = || {
            root.add_sub_track(
                TrackBuilder::new()
                    .sub_track_capacity(SOURCES_PER_BUS)
                    .sound_capacity(SOURCES_PER_BUS),
            )
            .map_err(|_| cap())
        };
        let buses = [bus()?, bus()?, bus()?, bus()?];
        let listener = with_manager!(&mut manager, m => m.add_listener(Vec3::ZERO, Quat::IDENTITY))
            .map_err(|_| AudioError::Capacity("listeners"))?;
        Ok(Live {
            sources: BTreeMap::new(),
            listener,
            buses,
            root,
            manager,
        })
    }

    fn track(&mut self, bus: Bus) -> &mut TrackHandle {
        match bus.index().checked_sub(1) {
            Some(i) => &mut self.buses[i],
            None => &mut self.root,
        }
    }

    fn collect_finished(&mut self) {
        self.sources
            .retain(|_, s| s.sound.state() != PlaybackState::Stopped);
    }

    /// Makes room for a source worth `p` when every voice is taken (PD-AUDIO-VOICES):
    /// stops the least important one-shot or loop if it is worth less and returns its
    /// id; `Err` when nothing may go.
    fn make_room(&mut self, p: Priority) -> Result<Option<SourceId>, AudioError> {
        let playing = self.sources.values().filter(|s| !s.stopping).count();
        if playing < MAX_VOICES {
            return Ok(None);
        }
        let victim = self
            .sources
            .iter()
            .filter(|(_, s)| !s.stopping && s.priority.class <= 1)
            .min_by(|(a, x), (b, y)| {
                x.priority
                    .partial_cmp(&y.priority)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.cmp(b))
            })
            .map(|(id, s)| (*id, s.priority));
        match victim {
            Some((id, worth)) if worth < p => {
                if let Some(s) = self.sources.get_mut(&id) {
                    s.sound.stop(STEAL_FADE);
                    s.stopping = true;
                }
                Ok(Some(id))
            }
            _ => Err(AudioError::Capacity("voices (PD-AUDIO-VOICES)")),
        }
    }
}

/// The audio mixer: buses, one listener, sources by [`SourceId`], over a device, the
/// mock backend or nothing.
pub struct Mixer {
    live: Option<Live>,
    kind: OutputKind,
    volumes: [f32; 5],
    muted: bool,
    paused: bool,
    next_id: u64,
    listener: (Vec3, Quat),
    /// One-shots stopped for more important sources, not yet taken.
    stolen: Vec<SourceId>,
}

impl fmt::Debug for Mixer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mixer")
            .field("kind", &self.kind)
            .field("volumes", &self.volumes)
            .field("muted", &self.muted)
            .field("paused", &self.paused)
            .field(
                "sources",
                &self.live.as_ref().map_or(0, |l| l.sources.len()),
            )
            .finish()
    }
}

/// Kira's main track: the master volume after the master limiter (PD-AUDIO-LIMITER).
fn master_track() -> MainTrackBuilder {
    MainTrackBuilder::new().with_effect(LimiterBuilder)
}

impl Mixer {
    /// Opens the chosen output. Never fails: a device that cannot be opened gives the
    /// no-device state, with the reason in the report (log it once).
    pub fn open(choice: OutputChoice) -> (Mixer, OpenReport) {
        let (live, kind, reason) = match choice {
            OutputChoice::None => (None, OutputKind::NoDevice, None),
            OutputChoice::Mock => {
                let settings = AudioManagerSettings::<ManualBackend> {
                    backend_settings: MOCK_SAMPLE_RATE,
                    internal_buffer_size: BLOCK_FRAMES,
                    capacities: Default::default(),
                    main_track_builder: master_track(),
                };
                match AudioManager::new(settings) {
                    Ok(m) => match Live::open(Manager::Manual(Box::new(m))) {
                        Ok(l) => (Some(l), OutputKind::Mock, None),
                        Err(e) => (None, OutputKind::NoDevice, Some(e.to_string())),
                    },
                    Err(never) => match never {},
                }
            }
            OutputChoice::Auto => {
                let settings = AudioManagerSettings::<DefaultBackend> {
                    main_track_builder: master_track(),
                    ..Default::default()
                };
                match AudioManager::<DefaultBackend>::new(settings) {
                    Ok(m) => match Live::open(Manager::Device(Box::new(m))) {
                        Ok(l) => (Some(l), OutputKind::Device, None),
                        Err(e) => (None, OutputKind::NoDevice, Some(e.to_string())),
                    },
                    Err(e) => (None, OutputKind::NoDevice, Some(e.to_string())),
                }
            }
        };
        let mixer = Mixer {
            live,
            kind,
            volumes: [1.0; 5],
            muted: false,
            paused: false,
            next_id: 1,
            listener: (Vec3::ZERO, Quat::IDENTITY),
            stolen: Vec::new(),
        };
        (mixer, OpenReport { kind, reason })
    }

    /// The output in use.
    pub fn output(&self) -> OutputKind {
        self.kind
    }

    fn live(&mut self) -> Result<&mut Live, AudioError> {
        self.live.as_mut().ok_or(AudioError::NoDevice)
    }

    /// Sets a bus volume (linear `0..=1`, see the module doc). The value is kept even
    /// without a device (then [`AudioError::NoDevice`]); the master volume is applied
    /// on unmute while muted.
    pub fn set_bus_volume(&mut self, bus: Bus, volume: f32) -> Result<(), AudioError> {
        let volume = if volume.is_nan() {
            0.0
        } else {
            volume.clamp(0.0, 1.0)
        };
        self.volumes[bus.index()] = volume;
        let muted = self.muted;
        let live = self.live()?;
        let db = amplitude_to_decibels(volume);
        match bus {
            Bus::Master if muted => {}
            Bus::Master => {
                with_manager!(&mut live.manager, m => m.main_track().set_volume(db, FADE))
            }
            other => live.track(other).set_volume(db, FADE),
        }
        Ok(())
    }

    /// A bus's volume as last set (linear).
    pub fn bus_volume(&self, bus: Bus) -> f32 {
        self.volumes[bus.index()]
    }

    /// Places the listener (the camera frame, tome VI: updated before world
    /// traversal). Non-finite input is [`AudioError::InvalidParameter`].
    pub fn set_listener(&mut self, position: Vec3, orientation: Quat) -> Result<(), AudioError> {
        if !position.is_finite() || !orientation.is_finite() {
            return Err(AudioError::InvalidParameter("listener must be finite"));
        }
        let orientation = orientation.normalize();
        self.listener = (position, orientation);
        let live = self.live()?;
        live.listener.set_position(position, FADE);
        live.listener.set_orientation(orientation, FADE);
        Ok(())
    }

    /// The listener as last set.
    pub fn listener(&self) -> (Vec3, Quat) {
        self.listener
    }

    /// Starts `sample` as a new source. Checks the parameters first (see
    /// [`SourceParams`]), then needs an output ([`AudioError::NoDevice`] otherwise).
    /// Sources that have finished are forgotten first.
    pub fn play(
        &mut self,
        sample: &Arc<Sample>,
        params: SourceParams,
    ) -> Result<SourceId, AudioError> {
        self.play_at(sample, params, 0.0)
    }

    /// Like [`Mixer::play`], starting `start_seconds` into the sample (a restored loop
    /// continues where the saved one was). A non-finite or negative start is 0; a start
    /// past the end of a looping sample wraps into it, of a one-shot ends it at once.
    pub fn play_at(
        &mut self,
        sample: &Arc<Sample>,
        params: SourceParams,
        start_seconds: f64,
    ) -> Result<SourceId, AudioError> {
        check_params(&params)?;
        let duration = sample.duration_seconds();
        let start = if !(start_seconds.is_finite() && start_seconds > 0.0) {
            0.0
        } else if params.looped && duration > 0.0 {
            start_seconds % duration
        } else {
            start_seconds.min(duration)
        };
        let id = SourceId(self.next_id);
        let priority = Priority::of(&params, self.listener.0);
        let live = self.live.as_mut().ok_or(AudioError::NoDevice)?;
        live.collect_finished();
        if let Some(stolen) = live.make_room(priority)? {
            self.stolen.push(stolen);
        }
        let mut data = sample
            .sound_data()
            .volume(amplitude_to_decibels(params.volume))
            .playback_rate(params.playback_rate);
        if params.looped {
            data = data.loop_region(..);
        }
        if start > 0.0 {
            data = data.start_position(start);
        }
        let full = || AudioError::Capacity("sources per bus");
        let (sound, spatial) = match params.position {
            None => (live.track(params.bus).play(data).map_err(|_| full())?, None),
            Some(position) => {
                let listener = live.listener.id();
                let mut track = live
                    .track(params.bus)
                    .add_spatial_sub_track(
                        listener,
                        position,
                        SpatialTrackBuilder::new()
                            .distances((params.min_distance, params.max_distance))
                            .sub_track_capacity(1)
                            .sound_capacity(1),
                    )
                    .map_err(|_| full())?;
                (track.play(data).map_err(|_| full())?, Some(track))
            }
        };
        live.sources.insert(
            id,
            Source {
                bus: params.bus,
                looped: params.looped,
                sound,
                spatial,
                priority,
                stopping: false,
            },
        );
        self.next_id += 1;
        Ok(id)
    }

    fn source(&mut self, id: SourceId) -> Result<&mut Source, AudioError> {
        self.live()?
            .sources
            .get_mut(&id)
            .ok_or(AudioError::UnknownSource(id))
    }

    /// Changes a source's volume (linear `0..=1`); `SetLoopVolume` of the weather.
    pub fn set_source_volume(&mut self, id: SourceId, volume: f32) -> Result<(), AudioError> {
        let db = amplitude_to_decibels(volume);
        self.source(id)?.sound.set_volume(db, FADE);
        Ok(())
    }

    /// Changes a source's playback rate (finite, > 0; also shifts pitch), e.g. an
    /// engine loop following its unit's speed.
    pub fn set_source_playback_rate(&mut self, id: SourceId, rate: f64) -> Result<(), AudioError> {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(AudioError::InvalidParameter(
                "playback rate must be finite and positive",
            ));
        }
        self.source(id)?.sound.set_playback_rate(rate, FADE);
        Ok(())
    }

    /// Moves a 3D source; a 2D source or a non-finite position is
    /// [`AudioError::InvalidParameter`].
    pub fn set_source_position(&mut self, id: SourceId, position: Vec3) -> Result<(), AudioError> {
        if !position.is_finite() {
            return Err(AudioError::InvalidParameter("position must be finite"));
        }
        match &mut self.source(id)?.spatial {
            Some(track) => {
                track.set_position(position, FADE);
                Ok(())
            }
            None => Err(AudioError::InvalidParameter("a 2D source has no position")),
        }
    }

    /// Stops a source (after [`FADE`]); it is forgotten once kira reports it stopped.
    pub fn stop(&mut self, id: SourceId) -> Result<(), AudioError> {
        let s = self.source(id)?;
        s.sound.stop(FADE);
        s.stopping = true;
        Ok(())
    }

    /// The one-shots stopped to make room for more important sources since the last
    /// call (PD-AUDIO-VOICES), oldest first.
    pub fn take_stolen(&mut self) -> Vec<SourceId> {
        std::mem::take(&mut self.stolen)
    }

    /// Sources holding a voice (playing, not stopping; 0 without a device).
    pub fn voices(&self) -> usize {
        self.live
            .as_ref()
            .map_or(0, |l| l.sources.values().filter(|s| !s.stopping).count())
    }

    /// The status of a known source.
    pub fn source_status(&self, id: SourceId) -> Result<SourceStatus, AudioError> {
        let live = self.live.as_ref().ok_or(AudioError::NoDevice)?;
        let s = live.sources.get(&id).ok_or(AudioError::UnknownSource(id))?;
        let state = s.sound.state();
        Ok(SourceStatus {
            bus: s.bus,
            spatial: s.spatial.is_some(),
            looped: s.looped,
            position_seconds: s.sound.position(),
            stopped: s.stopping
                || matches!(state, PlaybackState::Stopping | PlaybackState::Stopped),
        })
    }

    /// Sources not yet stopped (0 without a device).
    pub fn active_sources(&self) -> usize {
        self.live.as_ref().map_or(0, |l| {
            l.sources
                .values()
                .filter(|s| s.sound.state() != PlaybackState::Stopped)
                .count()
        })
    }

    /// Forgets sources kira reports stopped (call once per frame; `play` and
    /// `process_mock` do it too).
    pub fn update(&mut self) -> Result<(), AudioError> {
        self.live()?.collect_finished();
        Ok(())
    }

    /// Pauses everything (the window lost focus, the game paused): sources keep their
    /// play positions, loops stay loops, the sample cache is untouched.
    pub fn pause_all(&mut self) -> Result<(), AudioError> {
        self.paused = true;
        self.live()?.root.pause(FADE);
        Ok(())
    }

    /// Resumes after [`Mixer::pause_all`]: every source continues where it was.
    pub fn resume_all(&mut self) -> Result<(), AudioError> {
        self.paused = false;
        self.live()?.root.resume(FADE);
        Ok(())
    }

    /// Whether [`Mixer::pause_all`] is in effect.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Silences the output (`niMuteSound`); sources keep playing and advancing, so
    /// positions and times are kept.
    pub fn mute(&mut self) -> Result<(), AudioError> {
        self.muted = true;
        let live = self.live()?;
        with_manager!(&mut live.manager, m => m.main_track().set_volume(Decibels::SILENCE, FADE));
        Ok(())
    }

    /// Restores the master volume after [`Mixer::mute`].
    pub fn unmute(&mut self) -> Result<(), AudioError> {
        self.muted = false;
        let db = amplitude_to_decibels(self.volumes[Bus::Master.index()]);
        let live = self.live()?;
        with_manager!(&mut live.manager, m => m.main_track().set_volume(db, FADE));
        Ok(())
    }

    /// Whether [`Mixer::mute`] is in effect.
    pub fn is_muted(&self) -> bool {
        self.muted
    }

    fn manual(&mut self) -> Result<&mut Live, AudioError> {
        match self.kind {
            OutputKind::Mock => self.live(),
            OutputKind::NoDevice => Err(AudioError::NoDevice),
            OutputKind::Device => Err(AudioError::NotMock("the device renders on its own")),
        }
    }

    /// Renders `frames` frames (rounded up to whole [`BLOCK_FRAMES`] blocks) on the
    /// mock backend and returns the number of blocks; then forgets stopped sources.
    pub fn process_mock(&mut self, frames: usize) -> Result<usize, AudioError> {
        let live = self.manual()?;
        let blocks = frames.div_ceil(BLOCK_FRAMES);
        if let Manager::Manual(m) = &mut live.manager {
            for _ in 0..blocks {
                m.backend_mut().block();
            }
        }
        live.collect_finished();
        Ok(blocks)
    }

    /// Like [`Mixer::process_mock`], returning the rendered interleaved stereo samples
    /// (`2 * blocks * BLOCK_FRAMES` values, clamped to ±1 by kira).
    pub fn render_mock(&mut self, frames: usize) -> Result<Vec<f32>, AudioError> {
        let live = self.manual()?;
        let blocks = frames.div_ceil(BLOCK_FRAMES);
        let mut out = Vec::with_capacity(blocks * BLOCK_FRAMES * 2);
        if let Manager::Manual(m) = &mut live.manager {
            for _ in 0..blocks {
                let b = m.backend_mut();
                b.block();
                out.extend_from_slice(&b.buffer);
            }
        }
        live.collect_finished();
        Ok(out)
    }
}

fn check_params(p: &SourceParams) -> Result<(), AudioError> {
    if !p.volume.is_finite() {
        return Err(AudioError::InvalidParameter("volume must be finite"));
    }
    if !(p.playback_rate.is_finite() && p.playback_rate > 0.0) {
        return Err(AudioError::InvalidParameter(
            "playback rate must be finite and positive",
        ));
    }
    if let Some(pos) = p.position {
        if !pos.is_finite() {
            return Err(AudioError::InvalidParameter("position must be finite"));
        }
        if !(p.min_distance.is_finite() && p.max_distance.is_finite() && p.min_distance >= 0.0)
            || p.max_distance <= p.min_distance
        {
            return Err(AudioError::InvalidParameter(
                "distances must be finite with 0 <= min_distance < max_distance",
            ));
        }
    }
    Ok(())
}
