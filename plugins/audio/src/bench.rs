//! Cost measurements for `iron3d bench` (wall-clock, so outside the simulation): mixing
//! blocks with many 3D sources on the mock backend, and decoding MS-ADPCM next to plain
//! 16-bit PCM. The inputs are synthetic and fixed, so runs are comparable.

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::Vec3;
use iron3d_aux::{Wave, encode_ms_adpcm};

use crate::error::AudioError;
use crate::error::LoadFailure;
use crate::mixer::{BLOCK_FRAMES, Bus, Mixer, OutputChoice, SourceParams};
use crate::sample::{DEFAULT_MAX_FRAMES, Sample, SampleCache, SampleKey, SourceOwner, load};

/// The corpus sample rate.
const RATE: u32 = 22_050;

/// A fixed test signal: `frames` mono samples of a 440 Hz-ish sawtooth mix.
pub fn test_signal(frames: usize) -> Vec<i16> {
    (0..frames)
        .map(|i| {
            let saw = ((i * 440 * 2 / RATE as usize) % 2) as i32 * 2 - 1;
            let ramp = ((i * 65_536 / 50) % 65_536) as i32 - 32_768;
            ((ramp / 4) + saw * 4_000).clamp(-32_768, 32_767) as i16
        })
        .collect()
}

fn bench_key() -> SampleKey {
    SampleKey::new("BENCH", "SIGNAL.WAV")
}

fn bench_error(failure: LoadFailure) -> AudioError {
    AudioError::Load {
        chain: Box::new(
            SampleCache::new("bench").chain(&bench_key(), &SourceOwner::Named("bench".into())),
        ),
        failure: Box::new(failure),
    }
}

/// The result of [`bench_mix`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixBench {
    /// Sources asked for.
    pub sources: usize,
    /// Sources that hold a voice (at most [`crate::mixer::MAX_VOICES`], PD-AUDIO-VOICES).
    pub voices: usize,
    /// Blocks rendered (each [`BLOCK_FRAMES`] frames at the mock's 48 kHz).
    pub blocks: usize,
    /// Total wall time of the rendering.
    pub total: Duration,
}

impl MixBench {
    /// Mean wall time of one block.
    pub fn per_block(&self) -> Duration {
        self.total / u32::try_from(self.blocks.max(1)).unwrap_or(u32::MAX)
    }

    /// Real-time factor: audio time rendered / wall time (above 1 keeps up).
    pub fn realtime_factor(&self) -> f64 {
        let audio = (self.blocks * BLOCK_FRAMES) as f64 / f64::from(crate::mixer::MOCK_SAMPLE_RATE);
        audio / self.total.as_secs_f64().max(f64::MIN_POSITIVE)
    }
}

/// Mixes `blocks` blocks with `sources` looping 3D sources asked for — at most
/// [`crate::mixer::MAX_VOICES`] of them play (PD-AUDIO-VOICES) — (one shared one-second
/// sample, spread on a circle around the listener over the effects, ambient, voice and
/// music buses) on the mock backend. One warm-up block is not timed.
#[allow(
    clippy::disallowed_methods,
    reason = "benchmark: measures wall-clock time"
)]
pub fn bench_mix(sources: usize, blocks: usize) -> Result<MixBench, AudioError> {
    let bytes = Wave::pcm16(&test_signal(RATE as usize), 1, RATE)
        .map_err(|e| bench_error(LoadFailure::WaveInvalid(e)))?
        .to_bytes();
    let sample =
        Arc::new(load(&bench_key(), Some(&bytes), DEFAULT_MAX_FRAMES).map_err(bench_error)?);
    let (mut mixer, _) = Mixer::open(OutputChoice::Mock);
    let buses = [Bus::Effects, Bus::Ambient, Bus::Voice, Bus::Music];
    for i in 0..sources {
        let angle = i as f32 * 0.61;
        let params = SourceParams {
            bus: buses[i % buses.len()],
            position: Some(Vec3::new(angle.cos(), angle.sin(), 0.0) * (10.0 + (i % 50) as f32)),
            volume: 0.5,
            min_distance: 5.0,
            max_distance: 500.0,
            playback_rate: 1.0,
            looped: true,
        };
        // PD-AUDIO-VOICES: beyond the voice limit the least audible are refused (or stop
        // a weaker one); only another error ends the bench.
        match mixer.play(&sample, params) {
            Ok(_) | Err(AudioError::Capacity(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let voices = mixer.voices();
    mixer.process_mock(BLOCK_FRAMES)?;
    let start = Instant::now();
    mixer.process_mock(blocks * BLOCK_FRAMES)?;
    Ok(MixBench {
        sources,
        voices,
        blocks,
        total: start.elapsed(),
    })
}

/// The result of [`bench_decode`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeBench {
    /// Frames per decode.
    pub frames: usize,
    /// Decodes per format.
    pub repeats: usize,
    /// Wall time of parsing + decoding the MS-ADPCM wave `repeats` times.
    pub adpcm: Duration,
    /// Wall time of parsing + decoding the PCM wave `repeats` times.
    pub pcm: Duration,
    /// Wall time of the full loader path (parse, cap, decode, stereo `f32`) on the
    /// ADPCM wave `repeats` times.
    pub adpcm_to_sample: Duration,
}

impl DecodeBench {
    /// ADPCM decode throughput in frames per second.
    pub fn adpcm_frames_per_second(&self) -> f64 {
        (self.frames * self.repeats) as f64 / self.adpcm.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// PCM decode throughput in frames per second.
    pub fn pcm_frames_per_second(&self) -> f64 {
        (self.frames * self.repeats) as f64 / self.pcm.as_secs_f64().max(f64::MIN_POSITIVE)
    }
}

/// Decodes `seconds` of a mono 22 050 Hz signal `repeats` times as MS-ADPCM (block
/// align 512, as the corpus) and as 16-bit PCM.
#[allow(
    clippy::disallowed_methods,
    reason = "benchmark: measures wall-clock time"
)]
pub fn bench_decode(seconds: u32, repeats: usize) -> Result<DecodeBench, AudioError> {
    if u64::from(seconds) * u64::from(RATE) > DEFAULT_MAX_FRAMES {
        return Err(AudioError::InvalidParameter(
            "bench_decode: at most 600 seconds",
        ));
    }
    let frames = (RATE * seconds) as usize;
    let signal = test_signal(frames);
    let invalid = |e| bench_error(LoadFailure::WaveInvalid(e));
    let adpcm = encode_ms_adpcm(&signal, 1, RATE, 512)
        .map_err(invalid)?
        .to_bytes();
    let pcm = Wave::pcm16(&signal, 1, RATE).map_err(invalid)?.to_bytes();
    let time = |bytes: &[u8]| -> Result<Duration, AudioError> {
        let start = Instant::now();
        for _ in 0..repeats {
            let d = Wave::parse(bytes)
                .and_then(|w| w.decode())
                .map_err(invalid)?;
            std::hint::black_box(d);
        }
        Ok(start.elapsed())
    };
    let adpcm_time = time(&adpcm)?;
    let pcm_time = time(&pcm)?;
    let key = bench_key();
    let start = Instant::now();
    for _ in 0..repeats {
        let s: Result<Sample, _> = load(&key, Some(&adpcm), DEFAULT_MAX_FRAMES);
        std::hint::black_box(s.ok());
    }
    Ok(DecodeBench {
        frames,
        repeats,
        adpcm: adpcm_time,
        pcm: pcm_time,
        adpcm_to_sample: start.elapsed(),
    })
}
