//! Sound-event traces (tome VI: "deterministic test сравнивает список sound events, а не
//! waveform устройства"; tome VII stage 7: every sound event has a trace). One
//! [`AudioTraceRecord`] per event, written as one JSON object per line; fields that do
//! not apply to an event are left out. Field order and float formatting are fixed
//! (serde_json), so the same run writes the same bytes.

#[cfg(test)]
mod tests;

use std::io::Write;

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::error::AudioError;
use crate::mixer::{Bus, SourceId};
use crate::sample::{SampleKey, SourceOwner};

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// A one-shot source started (FX sound, weather `OneShot`).
    Play,
    /// A source was stopped.
    Stop,
    /// Weather `StartLoop`.
    LoopStart,
    /// Weather `SetLoopVolume`.
    LoopVolume,
    /// Weather `StopLoop`.
    LoopStop,
    /// The ambient theme started (mission open).
    MusicTheme,
    /// An ambient variation played (or was silent: index −1, no sample).
    MusicVariation,
    /// A mission voice event.
    Voice,
    /// The listener moved.
    Listener,
    /// `pause_all`.
    Pause,
    /// `resume_all`.
    Resume,
    /// `mute` (or `unmute`: volume 1).
    Mute,
    /// A command answered no-device.
    NoDevice,
    /// A sound resource failed to load (the chain in `detail`).
    LoadFailed,
    /// A one-shot was stopped to make room for a more important sound
    /// (PD-AUDIO-VOICES); `source` is the stopped one.
    Stolen,
}

/// One sound event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AudioTraceRecord {
    /// The simulation tick it happened in.
    pub tick: u64,
    /// What happened.
    pub kind: TraceKind,
    /// The sample, `LIBRARY/NAME`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleKey>,
    /// Who asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<SourceOwner>,
    /// The mixer's source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceId>,
    /// The source's world position (3D sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 3]>,
    /// The bus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bus: Option<Bus>,
    /// Linear volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<f32>,
    /// Listener position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listener_position: Option<[f32; 3]>,
    /// Listener orientation quaternion `[x, y, z, w]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listener_orientation: Option<[f32; 4]>,
    /// Free text: a failure chain, a variation index, a no-device reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl AudioTraceRecord {
    /// A record of `kind` at `tick` with every optional field empty.
    pub fn new(tick: u64, kind: TraceKind) -> AudioTraceRecord {
        AudioTraceRecord {
            tick,
            kind,
            sample: None,
            owner: None,
            source: None,
            position: None,
            bus: None,
            volume: None,
            listener_position: None,
            listener_orientation: None,
            detail: None,
        }
    }

    /// Sets the sample.
    pub fn sample(mut self, key: &SampleKey) -> Self {
        self.sample = Some(key.clone());
        self
    }

    /// Sets the owner.
    pub fn owner(mut self, owner: &SourceOwner) -> Self {
        self.owner = Some(owner.clone());
        self
    }

    /// Sets the source id.
    pub fn source(mut self, id: SourceId) -> Self {
        self.source = Some(id);
        self
    }

    /// Sets the world position.
    pub fn position(mut self, p: Vec3) -> Self {
        self.position = Some(p.to_array());
        self
    }

    /// Sets the bus.
    pub fn bus(mut self, bus: Bus) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Sets the volume.
    pub fn volume(mut self, v: f32) -> Self {
        self.volume = Some(v);
        self
    }

    /// Sets the listener frame.
    pub fn listener(mut self, position: Vec3, orientation: Quat) -> Self {
        self.listener_position = Some(position.to_array());
        self.listener_orientation = Some(orientation.to_array());
        self
    }

    /// Sets the detail text.
    pub fn detail(mut self, text: impl Into<String>) -> Self {
        self.detail = Some(text.into());
        self
    }
}

/// Writes records as JSON lines to any writer.
#[derive(Debug)]
pub struct TraceWriter<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> TraceWriter<W> {
    /// A writer over `out`.
    pub fn new(out: W) -> TraceWriter<W> {
        TraceWriter { out, written: 0 }
    }

    /// Writes one record as one line (`\n`-terminated). Non-finite floats are written
    /// as `null` by serde_json.
    pub fn write(&mut self, record: &AudioTraceRecord) -> Result<(), AudioError> {
        let mut line = serde_json::to_vec(record).map_err(AudioError::TraceJson)?;
        line.push(b'\n');
        self.out.write_all(&line).map_err(AudioError::TraceIo)?;
        self.written += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes the writer.
    pub fn flush(&mut self) -> Result<(), AudioError> {
        self.out.flush().map_err(AudioError::TraceIo)
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}
