//! `iron3d bench` audio figures (issue 19): the cost of mixing one 128-frame block
//! (2.7 ms of sound at 48 kHz) with 32, 128 and 512 simultaneous looping 3D sources on
//! kira's renderer, driven by hand on the mixer without a device, with the ratio to the
//! 32-source block of the same run; and the decode throughput of MS-ADPCM next to plain
//! PCM (parse + decode of a 60 s mono 22 050 Hz wave, and the audio plugin's whole loader
//! path to stereo `f32`).

use std::io::Write;

/// Runs the audio benchmarks and prints `bench audio_…` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let mut base = None;
    for sources in [32usize, 128, 512] {
        let m = iron3d_audio::bench::bench_mix(sources, 200)?;
        let per_block = m.per_block().as_secs_f64() * 1e6;
        let b = *base.get_or_insert(per_block);
        writeln!(
            out,
            "bench audio_mix sources={sources} block_us={per_block:.1} realtime_factor={:.1} ratio_to_32={:.2}",
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
