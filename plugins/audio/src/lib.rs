//! Iron3D audio core: the building blocks of the `audio` slot's plugin.
//!
//! * [`sample`]: sound resources by `(library, name)` (FORMATS §11.9): one load per key
//!   through a caller-supplied reader, the four loader outcomes (`entry_missing`,
//!   `entry_empty`, `wave_invalid`, `decoded_sample`) cached, one decoded sample shared
//!   by every source, a hard cap on decoded size, and a full diagnostic chain
//!   (mission → owner → library → entry) on every failure.
//! * [`music`]: ambient music (FORMATS §13.10): the theme on mission open, the
//!   variation timer, the DEFAULT/DAY/NIGHT pools and the 16-bit index generator.
//! * [`mixer`]: a [kira](https://docs.rs/kira/0.12) mixer with buses (master, effects,
//!   ambient, voice, music), 3D sources on spatial tracks and one listener, pause/mute
//!   that keep positions, and an explicit no-device state: every command then answers
//!   [`AudioError::NoDevice`] and the simulation goes on (tome VI).
//! * [`limiter`]: the master limiter on the mixer's main track (PD-AUDIO-LIMITER): no
//!   output sample beyond [`limiter::CEILING`], however many sources play at once.
//! * [`trace`]: sound events as JSON lines, so deterministic tests compare event lists
//!   rather than device waveforms (tome VI, "Проверки звука").
//! * [`bench`](mod@bench): mixing and decoding costs for `iron3d bench`.
//! * [`engine`]: the slot's logic without the host — sound events (FORMATS §13.8),
//!   collisions, destructions, engine loops, the music timer, the frame (listener, mix,
//!   outcome voice), the trace buffer and the hot-swap state — with the named rules
//!   PD-AUDIO-COLLISION, PD-AUDIO-ENGINES, PD-AUDIO-THEME, PD-AUDIO-MISSION-LIBRARY and
//!   PD-AUDIO-NODEVICE-TRACE.
//! * [`plugin`]: the `audio` slot's plugin on interface 2.6 (`Plugin` +
//!   `AudioProvider`, factories `kira`, `kira-mock`, `silent`), exported with
//!   `iron3d_abi::export_plugin!`. It reads the world and mission files through the
//!   host and never writes anything.
//!
//! The modules up to [`bench`](mod@bench) do not touch the ABI; [`engine`] uses its plain data
//! types, and only [`plugin`] sees the `Host`.

pub mod bench;
pub mod engine;
pub mod error;
pub mod limiter;
pub mod mixer;
pub mod music;
pub mod plugin;
pub mod sample;
pub mod trace;

pub use engine::{AudioEngine, LoopInfo, LoopSlot};
pub use error::{AudioError, LoadFailure};
pub use mixer::{
    Bus, Mixer, OpenReport, OutputChoice, OutputKind, SourceId, SourceParams, SourceStatus,
};
pub use music::{AmbientMusic, MusicConfig, MusicEvent, MusicPool, MusicRand, VariationGenerator};
pub use plugin::{AudioPlugin, MissionMusic, parse_mission_music};
pub use sample::{CacheStats, Chain, Sample, SampleCache, SampleKey, SourceOwner};
pub use trace::{AudioTraceRecord, TraceKind, TraceWriter};
