//! (2.6) The audio slot: sound events, the listener and the mix.
//!
//! **Sound events** are messages ([`MessageCode::SOUND`], an engine code, rule
//! PD-MSG-SOUND) that any simulation plugin sends to the audio slot
//! (`MessageTarget::slot(SlotKind::Audio)`): fire and forget, so what the audio plugin
//! does with them — or whether there is a sound card at all — can never change the
//! simulation. [`SoundEvent`] builds and reads their body. The audio plugin also hears
//! the world's own messages (collisions) and reads the world; it never writes it: the
//! host refuses every world change, message, outcome and service call from the audio
//! slot ([`crate::ErrorKind::FORBIDDEN`]) and leaves its state out of the state hash.
//!
//! **The frame**: once per presented frame, in the render phase and before the render
//! slot draws, the host hands the audio plugin's [`AudioProvider`] an [`AudioFrame`]:
//! the listener taken from the camera of the frame being drawn (the same frame the
//! renderer draws; tome VI: the listener is set before world traversal), the mix the
//! player chose (bus volumes, mute, pause), and the mission's outcome once decided. The
//! plugin answers an [`AudioReport`]: its output (device, mock or no device, said once
//! by the host), its active sources, and — when the frame asks for it — its event trace
//! since the last frame as JSON lines (`iron3d … --audio-trace FILE`).
#![allow(non_local_definitions)]

use crate::host::MissionOutcome;
use crate::math::Vec3f;
use crate::message::{Message, MessageCode};
use crate::types::{ErrorKind, PluginError};
use abi_stable::StableAbi;
use abi_stable::sabi_trait;
use abi_stable::std_types::{ROption, RResult, RString, RVec};

impl MessageCode {
    /// (2.6) A sound event for the audio slot (rule **PD-MSG-SOUND**: engine code
    /// `0x100`, outside the original 1..=17 and the plugin range; the body is a
    /// [`SoundEvent`]).
    pub const SOUND: Self = Self(0x100);
}

/// What a [`SoundEvent`] asks for: an open number (compare with the constants; an audio
/// plugin ignores kinds it does not know).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SoundKind(pub u32);

impl SoundKind {
    /// Plays the sample once on a new source (FX opcode 2, lightning `OneShot`).
    pub const ONE_SHOT: Self = Self(0);
    /// Starts a looping source named by the event's `loop_id` (`StartLoop`); a loop
    /// already running under that id is restarted with the new sample.
    pub const START_LOOP: Self = Self(1);
    /// Sets the volume of loop `loop_id` (`SetLoopVolume`, e.g. rain intensity).
    pub const LOOP_VOLUME: Self = Self(2);
    /// Stops loop `loop_id` (`StopLoop`).
    pub const STOP_LOOP: Self = Self(3);
    /// A voice line (mission voice events) on the voice bus.
    pub const VOICE: Self = Self(4);
}

/// A mixer bus: an open number (compare with the constants; unknown values play on
/// the effects bus).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SoundBus(pub u32);

impl SoundBus {
    /// Weapons, explosions, engines, collisions.
    pub const EFFECTS: Self = Self(0);
    /// Weather and other ambience.
    pub const AMBIENT: Self = Self(1);
    /// Voice lines.
    pub const VOICE: Self = Self(2);
    /// Music.
    pub const MUSIC: Self = Self(3);
}

/// One sound event (the body of a [`MessageCode::SOUND`] message).
#[derive(Clone, Debug, PartialEq)]
pub struct SoundEvent {
    /// What to do.
    pub kind: SoundKind,
    /// The archive (`sounds.lib`); empty: the mission's sound library (FORMATS §13.8:
    /// a bare name means the mission library).
    pub library: String,
    /// The entry (`FIRE.WAV`).
    pub name: String,
    /// The object the sound belongs to (original id; 0: none). A source of an object
    /// follows it while it lives.
    pub owner: u32,
    /// Where it sounds (world); `None`: a 2D sound (interface, voice, music).
    pub position: Option<Vec3f>,
    /// Linear volume, 0..=1.
    pub volume: f32,
    /// Full volume up to this distance (FX opcode 2 `min_distance`).
    pub min_distance: f32,
    /// Silent beyond this distance (FX opcode 2 `max_distance`).
    pub max_distance: f32,
    /// Playback rate (FX opcode 2 `frequency_ratio`), 1 = as recorded.
    pub rate: f32,
    /// The bus.
    pub bus: SoundBus,
    /// The loop a loop event is about (the sender's own numbering).
    pub loop_id: u32,
}

impl Default for SoundEvent {
    fn default() -> Self {
        Self {
            kind: SoundKind::ONE_SHOT,
            library: String::new(),
            name: String::new(),
            owner: 0,
            position: None,
            volume: 1.0,
            min_distance: 10.0,
            max_distance: 500.0,
            rate: 1.0,
            bus: SoundBus::EFFECTS,
            loop_id: 0,
        }
    }
}

/// The fixed part of a sound event's payload (see [`SoundEvent::to_message`]).
const SOUND_HEADER: usize = 4 * 8;
/// The longest library or entry name a sound event carries (FX opcode 2 stores 32
/// bytes each; we allow more, never unbounded).
pub const MAX_SOUND_NAME: usize = 255;

impl SoundEvent {
    /// A one-shot of `library`/`name` at `position` owned by `owner` (0: none).
    pub fn one_shot(library: &str, name: &str, owner: u32, position: Option<Vec3f>) -> Self {
        Self {
            library: library.into(),
            name: name.into(),
            owner,
            position,
            ..Self::default()
        }
    }

    /// The message carrying this event. Layout: `object_a` = owner, `point` = position,
    /// `value` = kind | bus << 32; payload (little-endian) = flags u32 (bit 0: has a
    /// position), volume, min distance, max distance, rate (f32), loop id u32, library
    /// length u32, name length u32, then the library and name bytes.
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] for a name over [`MAX_SOUND_NAME`] bytes or a non-finite
    /// number.
    pub fn to_message(&self) -> Result<Message, PluginError> {
        self.check()?;
        let mut p = Vec::with_capacity(SOUND_HEADER + self.library.len() + self.name.len());
        p.extend_from_slice(&u32::from(self.position.is_some()).to_le_bytes());
        for f in [self.volume, self.min_distance, self.max_distance, self.rate] {
            p.extend_from_slice(&f.to_le_bytes());
        }
        for w in [
            self.loop_id,
            self.library.len() as u32,
            self.name.len() as u32,
        ] {
            p.extend_from_slice(&w.to_le_bytes());
        }
        p.extend_from_slice(self.library.as_bytes());
        p.extend_from_slice(self.name.as_bytes());
        let mut m = Message::new(MessageCode::SOUND)
            .with_value(u64::from(self.kind.0) | (u64::from(self.bus.0) << 32))
            .with_payload(p);
        m.object_a = self.owner;
        m.point = self.position.unwrap_or_default();
        Ok(m)
    }

    /// Reads the event a [`MessageCode::SOUND`] message carries.
    ///
    /// # Errors
    /// [`ErrorKind::INVALID`] naming what is wrong: another code, a short payload,
    /// lengths that do not match it, names that are not UTF-8 or too long, non-finite
    /// numbers.
    pub fn from_message(m: &Message) -> Result<Self, PluginError> {
        let bad = |why: String| PluginError::new(ErrorKind::INVALID, format!("sound event: {why}"));
        if m.code != MessageCode::SOUND {
            return Err(bad(format!("message code {} is not SOUND", m.code.0)));
        }
        let p = m.payload.as_slice();
        if p.len() < SOUND_HEADER {
            return Err(bad(format!(
                "{} payload bytes, the header needs {SOUND_HEADER}",
                p.len()
            )));
        }
        let word = |i: usize| u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
        let float = |i: usize| f32::from_bits(word(i));
        let (lib_len, name_len) = (word(24) as usize, word(28) as usize);
        if lib_len > MAX_SOUND_NAME || name_len > MAX_SOUND_NAME {
            return Err(bad(format!(
                "names of {lib_len} and {name_len} bytes (at most {MAX_SOUND_NAME})"
            )));
        }
        if p.len() != SOUND_HEADER + lib_len + name_len {
            return Err(bad(format!(
                "{} payload bytes, the lengths say {}",
                p.len(),
                SOUND_HEADER + lib_len + name_len
            )));
        }
        let text = |a: usize, n: usize, what: &str| {
            std::str::from_utf8(&p[a..a + n])
                .map(str::to_owned)
                .map_err(|e| bad(format!("{what} is not UTF-8: {e}")))
        };
        let e = Self {
            kind: SoundKind(m.value as u32),
            bus: SoundBus((m.value >> 32) as u32),
            library: text(SOUND_HEADER, lib_len, "the library")?,
            name: text(SOUND_HEADER + lib_len, name_len, "the entry name")?,
            owner: m.object_a,
            position: (word(0) & 1 == 1).then_some(m.point),
            volume: float(4),
            min_distance: float(8),
            max_distance: float(12),
            rate: float(16),
            loop_id: word(20),
        };
        e.check()?;
        Ok(e)
    }

    fn check(&self) -> Result<(), PluginError> {
        let bad = |why: String| PluginError::new(ErrorKind::INVALID, format!("sound event: {why}"));
        if self.library.len() > MAX_SOUND_NAME || self.name.len() > MAX_SOUND_NAME {
            return Err(bad(format!(
                "names of {} and {} bytes (at most {MAX_SOUND_NAME})",
                self.library.len(),
                self.name.len()
            )));
        }
        let p = self.position.unwrap_or_default();
        let numbers = [
            self.volume,
            self.min_distance,
            self.max_distance,
            self.rate,
            p.x,
            p.y,
            p.z,
        ];
        if !numbers.iter().all(|v| v.is_finite()) {
            return Err(bad("a number is NaN or infinite".into()));
        }
        Ok(())
    }
}

/// Where the player hears from: the camera of the presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Default)]
pub struct Listener {
    /// The ear (world, Z up).
    pub position: Vec3f,
    /// Unit vector the camera looks along.
    pub front: Vec3f,
    /// Unit vector up on the screen.
    pub up: Vec3f,
}

impl Listener {
    /// The listener of a camera at `position` with `yaw` (radians, 0 along +X,
    /// counter-clockwise) and `pitch` (radians, positive up) — the angles of
    /// [`crate::Camera`] and [`crate::PlayerView`].
    pub fn from_angles(position: Vec3f, yaw: f32, pitch: f32) -> Self {
        let (sy, cy) = yaw.sin_cos();
        let (sp, cp) = pitch.sin_cos();
        Self {
            position,
            front: Vec3f {
                x: cp * cy,
                y: cp * sy,
                z: sp,
            },
            up: Vec3f {
                x: -sp * cy,
                y: -sp * sy,
                z: cp,
            },
        }
    }
}

/// The player's mix: linear bus volumes (0..=1), mute and pause.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct AudioMix {
    /// Everything.
    pub master: f32,
    /// [`SoundBus::EFFECTS`].
    pub effects: f32,
    /// [`SoundBus::AMBIENT`].
    pub ambient: f32,
    /// [`SoundBus::VOICE`].
    pub voice: f32,
    /// [`SoundBus::MUSIC`].
    pub music: f32,
    /// Output silenced; playback goes on (positions and times keep running).
    pub muted: bool,
    /// Playback held (the game is paused); resumed where it stopped.
    pub paused: bool,
}

impl Default for AudioMix {
    fn default() -> Self {
        Self {
            master: 1.0,
            effects: 1.0,
            ambient: 1.0,
            voice: 1.0,
            music: 1.0,
            muted: false,
            paused: false,
        }
    }
}

/// What the host hands the audio plugin once per presented frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct AudioFrame {
    /// The presented frame's number.
    pub frame: u64,
    /// The last completed tick.
    pub tick: u64,
    /// The listener: the camera of the frame being drawn, else the player's view
    /// (`RNone`: no camera yet).
    pub listener: ROption<Listener>,
    /// The player's mix.
    pub mix: AudioMix,
    /// The mission's outcome once decided (voice lines).
    pub outcome: ROption<MissionOutcome>,
    /// Whether to return the event trace in the report.
    pub trace: bool,
}

/// Which output an audio plugin plays through: an open number.
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AudioOutput(pub u32);

impl AudioOutput {
    /// A sound device.
    pub const DEVICE: Self = Self(0);
    /// A software mixer without a device (tests, benchmarks).
    pub const MOCK: Self = Self(1);
    /// No device: every sound command answers "no device" and nothing is heard.
    pub const NO_DEVICE: Self = Self(2);
}

/// The audio plugin's answer to an [`AudioFrame`].
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct AudioReport {
    /// Its output.
    pub output: AudioOutput,
    /// Why it has no device (empty otherwise).
    pub reason: RString,
    /// Sources playing now.
    pub active_sources: u32,
    /// The trace records since the last frame, one JSON object each, when asked.
    pub trace: RVec<RString>,
}

/// The audio service, implemented by audio plugins (see the module docs).
pub trait AudioProvider {
    /// One presented frame (see [`AudioFrame`]).
    fn frame(&mut self, frame: &AudioFrame) -> Result<AudioReport, PluginError>;
}

/// The FFI form of [`AudioProvider`].
#[sabi_trait]
pub trait AudioService {
    /// [`AudioProvider::frame`].
    #[sabi(last_prefix_field)]
    fn frame(&mut self, frame: &AudioFrame) -> RResult<AudioReport, PluginError>;
}

#[cfg(test)]
mod tests;
