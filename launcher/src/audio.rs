//! The launcher's side of the audio slot (interface 2.6): which output the audio plugin
//! opens (`--audio`), the player's mix from the settings and the pause state, the audio
//! event trace's file (`--audio-trace FILE`; the session's run writes it, with the one
//! line that says there is no sound).
//!
//! **PD-AUDIO-AUTOMATION**: a windowed `iron3d play` lets the registry's audio plugin
//! open the sound device (`--audio auto`). Automation (`iron3d run`, `play --offscreen`
//! or `--frames`) never opens one: with `--audio-trace` it mixes on the software mixer
//! without a device (`--audio mock`, so the trace has real sources, loops and
//! positions), otherwise it plays nothing at all (`--audio none`: mixing minutes of
//! sound nobody hears costs more than the simulation). The simulation is the same in
//! every mode. The choice is the factory of the `iron3d_audio` library in the audio slot
//! (`kira`, `kira-mock`, `silent`); another audio plugin in the registry is left as it
//! is. The "no sound device" line is for players: it is printed for `auto` and for an
//! explicit `--audio none`, never for automation's own choice.

use anyhow::Context;
use clap::{Args, ValueEnum};
use iron3d_registry::{Entry, Registry, SlotKey, SlotName};
use std::path::PathBuf;

/// The audio plugin library whose factory `--audio` picks.
pub const AUDIO_LIBRARY: &str = "iron3d_audio";

/// Which output the audio plugin opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AudioMode {
    /// The sound device, else silence with one message (factory `kira`).
    Auto,
    /// The software mixer without a device (factory `kira-mock`).
    Mock,
    /// No output at all: every sound command answers "no device" (factory `silent`).
    None,
}

impl AudioMode {
    /// The `iron3d_audio` factory of this mode.
    pub fn factory(self) -> &'static str {
        match self {
            Self::Auto => "kira",
            Self::Mock => "kira-mock",
            Self::None => "silent",
        }
    }
}

/// Audio options shared by `run` and `play`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct AudioArgs {
    /// Sound output: auto (the device, else silence), mock (a mixer without a device) or
    /// none. Default: auto for a windowed `play`; for automation mock with --audio-trace,
    /// else none (PD-AUDIO-AUTOMATION).
    #[arg(long, value_enum, value_name = "MODE")]
    pub audio: Option<AudioMode>,
    /// Write every sound event (sample, owner, position, bus, volume, tick, listener) as
    /// JSON Lines into FILE.
    #[arg(long, value_name = "FILE")]
    pub audio_trace: Option<PathBuf>,
}

impl AudioArgs {
    /// The mode of a run: the one asked for, else PD-AUDIO-AUTOMATION's.
    pub fn mode(&self, automation: bool) -> AudioMode {
        self.audio
            .unwrap_or(match (automation, self.audio_trace.is_some()) {
                (false, _) => AudioMode::Auto,
                (true, true) => AudioMode::Mock,
                (true, false) => AudioMode::None,
            })
    }

    /// Whether a run says so when it has no sound: the player's runs (`auto`) and an
    /// explicit `--audio none`, not automation's own choice.
    pub fn announces(&self, automation: bool) -> bool {
        self.audio.is_some() || !automation
    }
}

/// `registry` with the audio slot's `iron3d_audio` factory set to `mode`'s (another
/// audio plugin, or none, is left as it is).
///
/// # Errors
/// Only if the changed registry cannot be rebuilt (it was valid before).
pub fn apply_registry(registry: Registry, mode: AudioMode) -> anyhow::Result<Registry> {
    let key = SlotKey::Slot(SlotName::Audio);
    let is_ours =
        |e: &Entry| e.key == key && iron3d_registry::library_stem(&e.library) == AUDIO_LIBRARY;
    if !registry
        .entries()
        .any(|e| is_ours(e) && e.factory != mode.factory())
    {
        return Ok(registry);
    }
    let entries: Vec<Entry> = registry
        .entries()
        .cloned()
        .map(|mut e| {
            if is_ours(&e) {
                e.factory = mode.factory().to_owned();
            }
            e
        })
        .collect();
    Registry::from_entries(registry.origin(), registry.dialect(), entries)
        .context("the registry with the audio output")
}

/// The mix the audio plugin gets: the settings' bus volumes, held while the game is
/// paused.
pub fn mix(settings: &iron3d_config::settings::Audio, paused: bool) -> iron3d_abi::AudioMix {
    iron3d_abi::AudioMix {
        master: settings.master,
        effects: settings.effects,
        ambient: settings.ambient,
        voice: settings.voice,
        music: settings.music,
        muted: false,
        paused,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;
    use iron3d_registry::Dialect;

    fn registry(audio: &str) -> Registry {
        Registry::parse(
            format!("ai iron3d_ai ai\naudio {audio}\n").as_bytes(),
            "t.ini",
            Dialect::PluginsIni,
        )
        .unwrap()
    }

    fn audio_factory(r: &Registry) -> String {
        r.entries()
            .find(|e| e.key == SlotKey::Slot(SlotName::Audio))
            .unwrap()
            .factory
            .clone()
    }

    #[test]
    fn the_mode_picks_the_factory_of_our_audio_plugin_only() {
        let r = apply_registry(registry("iron3d_audio kira"), AudioMode::Mock).unwrap();
        assert_eq!(audio_factory(&r), "kira-mock");
        let r = apply_registry(r, AudioMode::None).unwrap();
        assert_eq!(audio_factory(&r), "silent");
        let other = apply_registry(registry("iron3d_null null-audio"), AudioMode::Mock).unwrap();
        assert_eq!(
            audio_factory(&other),
            "null-audio",
            "another plugin is left"
        );
    }

    #[test]
    fn automation_mixes_without_a_device_only_to_trace() {
        let a = AudioArgs::default();
        assert_eq!(a.mode(true), AudioMode::None);
        assert_eq!(a.mode(false), AudioMode::Auto);
        assert!(!a.announces(true) && a.announces(false));
        let traced = AudioArgs {
            audio_trace: Some(PathBuf::from("a.jsonl")),
            ..AudioArgs::default()
        };
        assert_eq!(traced.mode(true), AudioMode::Mock);
        let none = AudioArgs {
            audio: Some(AudioMode::None),
            ..AudioArgs::default()
        };
        assert_eq!(none.mode(false), AudioMode::None);
        assert!(none.announces(true));
        let m = mix(&iron3d_config::settings::Audio::default(), true);
        assert!(m.paused && !m.muted);
        assert_eq!(m.music, iron3d_config::settings::Audio::default().music);
    }
}
