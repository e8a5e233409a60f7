//! The crate's one error type. Every variant keeps its cause as an
//! [`std::error::Error::source`] so a caller can print the whole chain.

use crate::mixer::SourceId;
use crate::sample::Chain;
use iron3d_aux::AuxError;

/// Why a sound resource gave no playable sample (FORMATS §11.9). Cached per
/// [`SampleKey`](crate::SampleKey): the same key fails the same way until the cache is
/// dropped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadFailure {
    /// `entry_missing`: the library has no such entry.
    #[error("entry_missing")]
    EntryMissing,
    /// `entry_empty`: the entry exists with size 0 (Part 2 `ALIEN_ME.WAV`); the bytes
    /// never reached the RIFF parser.
    #[error("entry_empty")]
    EntryEmpty,
    /// `wave_invalid`: RIFF/WAVE framing or decoding failed (the parser's error is the
    /// source).
    #[error("wave_invalid")]
    WaveInvalid(#[source] AuxError),
    /// `wave_invalid`: the wave decodes, but not to something we play (zero sample
    /// rate, more than two channels).
    #[error("wave_invalid: {0}")]
    Unplayable(&'static str),
    /// The decoded sample would exceed the cache's frame limit; refused before any
    /// allocation of that size.
    #[error("sample_too_large: {frames} frames exceed the limit of {limit}")]
    TooLarge {
        /// Frames the wave would decode to (an upper bound taken from its header).
        frames: u64,
        /// The cache's limit.
        limit: u64,
    },
}

impl LoadFailure {
    /// The spec's outcome name (`entry_missing`, `entry_empty`, `wave_invalid`), or
    /// `sample_too_large` for the size cap.
    pub fn kind(&self) -> &'static str {
        match self {
            LoadFailure::EntryMissing => "entry_missing",
            LoadFailure::EntryEmpty => "entry_empty",
            LoadFailure::WaveInvalid(_) | LoadFailure::Unplayable(_) => "wave_invalid",
            LoadFailure::TooLarge { .. } => "sample_too_large",
        }
    }
}

/// Everything that can go wrong in the audio core. Never a panic: bad data, a missing
/// device and unknown ids all end here.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// There is no output device (or it was never opened): the explicit no-device
    /// result every mixer command gives in that state (tome VI).
    #[error("no audio device: 3D Sound was not initialized")]
    NoDevice,
    /// A sound resource gave no sample; `chain` says who asked for what.
    #[error("sound load failed: {chain}: {failure}")]
    Load {
        /// mission → owner → library → entry.
        chain: Box<Chain>,
        /// The cached outcome.
        #[source]
        failure: Box<LoadFailure>,
    },
    /// The caller's archive reader failed (not cached: the next request reads again).
    #[error("sound read failed: {chain}")]
    Read {
        /// mission → owner → library → entry.
        chain: Box<Chain>,
        /// The reader's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A source id that is not (or no longer) playing.
    #[error("unknown sound source {0}")]
    UnknownSource(SourceId),
    /// A parameter out of its documented range (non-finite position, `min_distance`
    /// not below `max_distance`, non-positive playback rate, ...).
    #[error("invalid sound parameter: {0}")]
    InvalidParameter(&'static str),
    /// kira's fixed capacity (sounds per bus, spatial tracks, listeners) is exhausted.
    #[error("audio capacity reached: {0}")]
    Capacity(&'static str),
    /// An operation that needs the hand-driven (mock) backend was called on another.
    #[error("operation needs the mock backend: {0}")]
    NotMock(&'static str),
    /// Writing the trace failed.
    #[error("audio trace write failed")]
    TraceIo(#[source] std::io::Error),
    /// Serialising a trace record failed.
    #[error("audio trace encoding failed")]
    TraceJson(#[source] serde_json::Error),
}
