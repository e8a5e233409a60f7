//! The benchmark helpers run and refuse oversized input.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;

#[test]
fn mixing_bench_runs() {
    let r = bench_mix(16, 4).unwrap();
    assert_eq!((r.sources, r.voices, r.blocks), (16, 16, 4));
    // Past the voice limit the mixer keeps its voices (PD-AUDIO-VOICES).
    let many = bench_mix(200, 1).unwrap();
    assert_eq!((many.sources, many.voices), (200, crate::mixer::MAX_VOICES));
    assert!(r.realtime_factor() > 0.0);
    assert!(r.per_block() <= r.total);
}

#[test]
fn decode_bench_runs() {
    let r = bench_decode(1, 2).unwrap();
    assert_eq!((r.frames, r.repeats), (22_050, 2));
    assert!(r.adpcm_frames_per_second() > 0.0 && r.pcm_frames_per_second() > 0.0);
}

#[test]
fn decode_bench_refuses_huge_inputs() {
    assert!(matches!(
        bench_decode(601, 1),
        Err(AudioError::InvalidParameter(_))
    ));
}
