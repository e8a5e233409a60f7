//! Audio benchmarks (`cargo bench -p iron3d-audio`; issue 19): the cost of mixing one
//! 128-frame block (2.7 ms of sound at 48 kHz) with 32, 128 and 512 looping 3D sources
//! asked for (at most 64 play: PD-AUDIO-VOICES) on kira's renderer, driven by hand on the mixer without a device, with the
//! ratio to the 32-source block of the same run; and the decode throughput of MS-ADPCM
//! next to plain PCM (parse + decode of a 60 s mono 22 050 Hz wave, and the audio
//! plugin's whole loader path to stereo `f32`).
//!
//! A plain `harness = false` bench: run it in release (`cargo bench` does) and read the
//! ratios. It is not part of `iron3d bench` because linking a plugin's code into the
//! launcher next to another plugin's would export two root modules from one binary.

use std::io::Write;

#[allow(clippy::print_stdout, reason = "a benchmark prints its figures")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut stdout = std::io::stdout().lock();
    let out: &mut dyn Write = &mut stdout;
    let mut base = None;
    for sources in [32usize, 128, 512] {
        let m = iron3d_audio::bench::bench_mix(sources, 200)?;
        let per_block = m.per_block().as_secs_f64() * 1e6;
        let b = *base.get_or_insert(per_block);
        writeln!(
            out,
            "bench audio_mix sources={sources} voices={} block_us={per_block:.1} realtime_factor={:.1} ratio_to_32={:.2}",
            m.voices,
            m.realtime_factor(),
            per_block / b
        )?;
    }
    let d = iron3d_audio::bench::bench_decode(60, 5)?;
    let adpcm = d.adpcm_frames_per_second();
    let pcm = d.pcm_frames_per_second();
    writeln!(
        out,
        "bench audio_decode seconds=60 adpcm_mframes_per_s={:.1} pcm_mframes_per_s={:.1} pcm_over_adpcm={:.1} loader_ms={:.1}",
        adpcm / 1e6,
        pcm / 1e6,
        pcm / adpcm.max(f64::MIN_POSITIVE),
        d.adpcm_to_sample.as_secs_f64() * 1e3 / d.repeats.max(1) as f64
    )?;
    Ok(())
}
