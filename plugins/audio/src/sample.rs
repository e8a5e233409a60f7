//! Sound resources (FORMATS §11.9, tome VI "Sound resources и SWAV").
//!
//! A resource is identified by `(library, name)`, compared case-insensitively (both are
//! kept in ASCII upper case, as the archives' names are). [`SampleCache`] reads each key
//! once through a reader the caller supplies, classifies the bytes into the four loader
//! outcomes, and caches the outcome: a decoded [`Sample`] is shared (`Arc`) by every
//! source that plays it, and a failure fails the same way again without another read.
//! Every failure names its full chain, mission → owner → library → entry.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use iron3d_aux::swav::{WAVE_FORMAT_MS_ADPCM, WAVE_FORMAT_PCM};
use iron3d_aux::{DecodedSample, Wave};
use kira::Frame;
use kira::sound::static_sound::{StaticSoundData, StaticSoundSettings};
use serde::{Deserialize, Serialize};

use crate::error::{AudioError, LoadFailure};

/// The default cap on one decoded sample: ten minutes at the corpus rate of 22 050 Hz.
/// The original's longest SWAV entries are seconds long; anything above this is refused
/// as [`LoadFailure::TooLarge`] before decoding.
pub const DEFAULT_MAX_FRAMES: u64 = 22_050 * 600;

/// A sound resource's identity: `(library, name)`, both ASCII upper case, so keys that
/// differ only in ASCII case are the same key. Ordered (library first) for
/// deterministic iteration.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SampleKey {
    library: String,
    name: String,
}

impl SampleKey {
    /// The key of entry `name` in archive `library`; both are upper-cased (ASCII only;
    /// other bytes are kept as they are).
    pub fn new(library: &str, name: &str) -> SampleKey {
        SampleKey {
            library: library.to_ascii_uppercase(),
            name: name.to_ascii_uppercase(),
        }
    }

    /// Resolves a sound reference as the weather and FX data write it (FORMATS §13.8):
    /// `archive/name` names the archive (the last `/` or `\` splits); a bare name means
    /// the archive field is empty and `mission_library` is used.
    pub fn resolve(reference: &str, mission_library: &str) -> SampleKey {
        match reference.rfind(['/', '\\']) {
            Some(at) if at > 0 => SampleKey::new(&reference[..at], &reference[at + 1..]),
            Some(_) => SampleKey::new(mission_library, &reference[1..]),
            None => SampleKey::new(mission_library, reference),
        }
    }

    /// The archive, upper case.
    pub fn library(&self) -> &str {
        &self.library
    }

    /// The entry name, upper case.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for SampleKey {
    /// `LIBRARY/NAME`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.library, self.name)
    }
}

/// Who asked for a sound: an object (its original id), an effect (its name) or a named
/// service (`ambient_music`, `weather`, `mission`). Part of every diagnostic chain and
/// trace record.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceOwner {
    /// A World3D object by original id.
    Object(u32),
    /// An effect by name.
    Effect(String),
    /// A named engine service.
    Named(String),
}

impl fmt::Display for SourceOwner {
    /// `object 17`, `effect FX_NAME` or the service name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceOwner::Object(id) => write!(f, "object {id}"),
            SourceOwner::Effect(name) => write!(f, "effect {name}"),
            SourceOwner::Named(name) => f.write_str(name),
        }
    }
}

/// The full diagnostic chain of a sound request (tome VI: "missing sound resource
/// содержит полную диагностическую цепочку"), rendered on one line as
/// `mission M > OWNER > library L > entry E`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chain {
    /// The mission that was open.
    pub mission: String,
    /// Who asked.
    pub owner: SourceOwner,
    /// The archive (upper case).
    pub library: String,
    /// The entry (upper case).
    pub entry: String,
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mission {} > {} > library {} > entry {}",
            self.mission, self.owner, self.library, self.entry
        )
    }
}

/// A decoded, playable sample: stereo `f32` frames (mono is duplicated to both sides)
/// at the wave's own rate (kira resamples to the output rate). Immutable; cloning the
/// sound data for a new source shares the frames.
pub struct Sample {
    key: SampleKey,
    source_channels: u16,
    data: StaticSoundData,
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sample")
            .field("key", &self.key)
            .field("sample_rate", &self.data.sample_rate)
            .field("source_channels", &self.source_channels)
            .field("frames", &self.data.frames.len())
            .finish()
    }
}

impl Sample {
    /// Converts decoded 16-bit samples (`s / 32768`) into stereo frames. Refuses a zero
    /// sample rate, a channel count other than 1 or 2, a sample count that is not whole
    /// frames, and more than `max_frames` frames.
    pub fn from_decoded(
        key: SampleKey,
        decoded: &DecodedSample,
        max_frames: u64,
    ) -> Result<Sample, LoadFailure> {
        if decoded.sample_rate == 0 {
            return Err(LoadFailure::Unplayable("sample rate 0"));
        }
        let ch = usize::from(decoded.channels);
        if !(1..=2).contains(&ch) {
            return Err(LoadFailure::Unplayable("only mono and stereo waves play"));
        }
        if decoded.samples.len() % ch != 0 {
            return Err(LoadFailure::Unplayable("sample count is not whole frames"));
        }
        let frames = (decoded.samples.len() / ch) as u64;
        if frames > max_frames {
            return Err(LoadFailure::TooLarge {
                frames,
                limit: max_frames,
            });
        }
        let norm = |s: i16| f32::from(s) / 32768.0;
        let frames: Arc<[Frame]> = if ch == 1 {
            decoded
                .samples
                .iter()
                .map(|&s| Frame::from_mono(norm(s)))
                .collect()
        } else {
            decoded
                .samples
                .chunks_exact(2)
                .map(|p| Frame::new(norm(p[0]), norm(p[1])))
                .collect()
        };
        Ok(Sample {
            key,
            source_channels: decoded.channels,
            data: StaticSoundData {
                sample_rate: decoded.sample_rate,
                frames,
                settings: StaticSoundSettings::default(),
                slice: None,
            },
        })
    }

    /// The resource this sample came from.
    pub fn key(&self) -> &SampleKey {
        &self.key
    }

    /// The wave's sample rate in Hz (22 050 for the whole original corpus).
    pub fn sample_rate(&self) -> u32 {
        self.data.sample_rate
    }

    /// Channels in the wave (1 or 2); the frames are always stereo.
    pub fn source_channels(&self) -> u16 {
        self.source_channels
    }

    /// Number of frames.
    pub fn frame_count(&self) -> usize {
        self.data.frames.len()
    }

    /// Length in seconds at the wave's rate.
    pub fn duration_seconds(&self) -> f64 {
        self.data.frames.len() as f64 / f64::from(self.data.sample_rate)
    }

    /// The stereo frames.
    pub fn frames(&self) -> &[Frame] {
        &self.data.frames
    }

    /// kira sound data sharing this sample's frames (a cheap clone).
    pub(crate) fn sound_data(&self) -> StaticSoundData {
        self.data.clone()
    }
}

/// How often the cache read, decoded and answered from memory (for tests and stats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheStats {
    /// Calls of a reader (one per key, plus retries after reader errors).
    pub reads: u64,
    /// Samples decoded successfully (at most one per key).
    pub decodes: u64,
    /// Requests answered from the cache (a cached failure counts too).
    pub hits: u64,
    /// Keys whose load failed (counted once per key).
    pub failures: u64,
}

#[derive(Debug, Clone)]
enum Cached {
    Decoded(Arc<Sample>),
    Failed(LoadFailure),
}

/// The per-mission sample cache: one read and one decode per [`SampleKey`], outcomes
/// kept until the cache is dropped or [`SampleCache::clear`]ed.
#[derive(Debug)]
pub struct SampleCache {
    mission: String,
    max_frames: u64,
    entries: BTreeMap<SampleKey, Cached>,
    stats: CacheStats,
}

impl SampleCache {
    /// An empty cache for `mission` (named in every diagnostic chain) with the
    /// [`DEFAULT_MAX_FRAMES`] cap.
    pub fn new(mission: &str) -> SampleCache {
        SampleCache::with_limit(mission, DEFAULT_MAX_FRAMES)
    }

    /// An empty cache refusing samples above `max_frames` frames.
    pub fn with_limit(mission: &str, max_frames: u64) -> SampleCache {
        SampleCache {
            mission: mission.to_owned(),
            max_frames,
            entries: BTreeMap::new(),
            stats: CacheStats::default(),
        }
    }

    /// The mission named in chains.
    pub fn mission(&self) -> &str {
        &self.mission
    }

    /// Read/decode/hit counters.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// Keys with a cached outcome (decoded or failed).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no outcome is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every outcome (the next request reads again); keeps the counters.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The chain of a request for `key` by `owner`.
    pub fn chain(&self, key: &SampleKey, owner: &SourceOwner) -> Chain {
        Chain {
            mission: self.mission.clone(),
            owner: owner.clone(),
            library: key.library.clone(),
            entry: key.name.clone(),
        }
    }

    /// The cached outcome of `key` without reading: `None` when never loaded.
    pub fn peek(&self, key: &SampleKey) -> Option<Result<Arc<Sample>, LoadFailure>> {
        self.entries.get(key).map(|c| match c {
            Cached::Decoded(s) => Ok(Arc::clone(s)),
            Cached::Failed(f) => Err(f.clone()),
        })
    }

    /// The sample of `key` for `owner`. On the first request `read` is called with the
    /// key and answers the archive lookup (`Ok(None)`: no such entry; `Ok(Some(bytes))`:
    /// the entry's bytes, possibly empty); the outcome is cached and `read` is not
    /// called again for this key. A reader error is returned as [`AudioError::Read`]
    /// and not cached. Failures are [`AudioError::Load`] with the requester's chain;
    /// the first failure of a key is also logged once (`tracing::warn`).
    pub fn get<E>(
        &mut self,
        key: &SampleKey,
        owner: &SourceOwner,
        read: impl FnOnce(&SampleKey) -> Result<Option<Vec<u8>>, E>,
    ) -> Result<Arc<Sample>, AudioError>
    where
        E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    {
        if let Some(cached) = self.entries.get(key) {
            self.stats.hits += 1;
            return match cached {
                Cached::Decoded(s) => Ok(Arc::clone(s)),
                Cached::Failed(failure) => Err(AudioError::Load {
                    chain: Box::new(self.chain(key, owner)),
                    failure: Box::new(failure.clone()),
                }),
            };
        }
        self.stats.reads += 1;
        let bytes = read(key).map_err(|e| AudioError::Read {
            chain: Box::new(self.chain(key, owner)),
            source: e.into(),
        })?;
        match load(key, bytes.as_deref(), self.max_frames) {
            Ok(sample) => {
                self.stats.decodes += 1;
                let sample = Arc::new(sample);
                self.entries
                    .insert(key.clone(), Cached::Decoded(Arc::clone(&sample)));
                Ok(sample)
            }
            Err(failure) => {
                self.stats.failures += 1;
                let chain = self.chain(key, owner);
                tracing::warn!(%chain, kind = failure.kind(), "sound resource unavailable: {failure}");
                self.entries
                    .insert(key.clone(), Cached::Failed(failure.clone()));
                Err(AudioError::Load {
                    chain: Box::new(chain),
                    failure: Box::new(failure),
                })
            }
        }
    }
}

/// Classifies an archive lookup like [`iron3d_aux::SoundLoad::from_entry`] (missing,
/// empty — never parsed —, invalid, decoded), with the frame cap checked on the wave's
/// header before decoding allocates.
pub fn load(key: &SampleKey, entry: Option<&[u8]>, max_frames: u64) -> Result<Sample, LoadFailure> {
    let bytes = match entry {
        None => return Err(LoadFailure::EntryMissing),
        Some([]) => return Err(LoadFailure::EntryEmpty),
        Some(bytes) => bytes,
    };
    let wave = Wave::parse(bytes).map_err(LoadFailure::WaveInvalid)?;
    let frames = estimated_frames(&wave);
    if frames > max_frames {
        return Err(LoadFailure::TooLarge {
            frames,
            limit: max_frames,
        });
    }
    let decoded = wave.decode().map_err(LoadFailure::WaveInvalid)?;
    Sample::from_decoded(key.clone(), &decoded, max_frames)
}

/// An upper bound of the frames [`Wave::decode`] produces (and allocates) for `wave`,
/// from its `fmt ` fields and data size; 0 where decoding is bound to fail anyway.
pub fn estimated_frames(wave: &Wave) -> u64 {
    let f = wave.format();
    let ch = u64::from(f.channels.max(1));
    let len = wave.data().len() as u64;
    match f.format_tag {
        WAVE_FORMAT_PCM => len / (ch * u64::from((f.bits_per_sample / 8).max(1))),
        WAVE_FORMAT_MS_ADPCM => {
            let ba = u64::from(f.block_align);
            let Some(adpcm) = &f.adpcm else { return 0 };
            if ba <= 7 * ch {
                return 0;
            }
            let per_block = u64::from(adpcm.samples_per_block).min(2 + (ba - 7 * ch) * 2 / ch);
            len.div_ceil(ba) * per_block
        }
        _ => 0,
    }
}
