//! The kira mixer on the hand-driven backend: no-device answers, one-shots and loops,
//! pause and mute keeping positions, bus volumes, 3D attenuation and panning.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use crate::sample::{DEFAULT_MAX_FRAMES, SampleKey, load};
use iron3d_aux::Wave;

/// A constant-level mono sample of `frames` frames at 22 050 Hz.
fn sample(frames: usize) -> Arc<Sample> {
    let bytes = Wave::pcm16(&vec![16_384; frames], 1, 22_050)
        .unwrap()
        .to_bytes();
    Arc::new(
        load(
            &SampleKey::new("T", "DC.WAV"),
            Some(&bytes),
            DEFAULT_MAX_FRAMES,
        )
        .unwrap(),
    )
}

fn mock() -> Mixer {
    let (m, report) = Mixer::open(OutputChoice::Mock);
    assert_eq!(
        report,
        OpenReport {
            kind: OutputKind::Mock,
            reason: None
        }
    );
    m
}

fn energy(samples: &[f32]) -> f32 {
    samples.iter().map(|s| s.abs()).sum()
}

/// 10 ms of output frames at the mock rate.
const MS10: usize = 480;

#[test]
fn no_device_answers_every_command_explicitly() {
    let (mut m, report) = Mixer::open(OutputChoice::None);
    assert_eq!(report.kind, OutputKind::NoDevice);
    assert_eq!(m.output(), OutputKind::NoDevice);
    let s = sample(10);
    let nd = |r: Result<(), AudioError>| matches!(r, Err(AudioError::NoDevice));
    assert!(matches!(
        m.play(&s, SourceParams::default()),
        Err(AudioError::NoDevice)
    ));
    assert!(nd(m.set_bus_volume(Bus::Music, 0.25)));
    assert_eq!(m.bus_volume(Bus::Music), 0.25);
    assert!(nd(m.set_listener(Vec3::ONE, Quat::IDENTITY)));
    assert_eq!(m.listener().0, Vec3::ONE);
    assert!(nd(m.set_source_volume(SourceId(1), 0.5)));
    assert!(nd(m.set_source_position(SourceId(1), Vec3::ZERO)));
    assert!(nd(m.stop(SourceId(1))));
    assert!(nd(m.pause_all()));
    assert!(nd(m.resume_all()));
    assert!(nd(m.mute()));
    assert!(nd(m.unmute()));
    assert!(nd(m.update()));
    assert!(matches!(m.process_mock(128), Err(AudioError::NoDevice)));
    assert!(matches!(m.render_mock(128), Err(AudioError::NoDevice)));
    assert!(matches!(
        m.source_status(SourceId(1)),
        Err(AudioError::NoDevice)
    ));
    assert_eq!(m.active_sources(), 0);
    assert_eq!(
        AudioError::NoDevice.to_string(),
        "no audio device: 3D Sound was not initialized"
    );
}

#[test]
fn auto_falls_back_with_a_reason() {
    let (m, report) = Mixer::open(OutputChoice::Auto);
    assert_eq!(m.output(), report.kind);
    match report.kind {
        OutputKind::Device => assert!(report.reason.is_none()),
        OutputKind::NoDevice => assert!(report.reason.is_some()),
        OutputKind::Mock => panic!("auto never picks the mock"),
    }
}

#[test]
fn one_shots_play_and_are_forgotten() {
    let mut m = mock();
    let s = sample(2_205); // 0.1 s
    let a = m.play(&s, SourceParams::default()).unwrap();
    let b = m.play(&s, SourceParams::default()).unwrap();
    assert_eq!((a, b), (SourceId(1), SourceId(2)));
    assert_eq!(m.active_sources(), 2);
    let out = m.render_mock(MS10).unwrap();
    assert_eq!(out.len(), 4 * BLOCK_FRAMES * 2);
    assert!(energy(&out) > 0.0);
    let st = m.source_status(a).unwrap();
    assert!(!st.spatial && !st.looped && !st.stopped);
    assert!(st.position_seconds > 0.0);
    m.process_mock(20 * MS10).unwrap();
    assert_eq!(m.active_sources(), 0);
    assert!(matches!(
        m.source_status(a),
        Err(AudioError::UnknownSource(SourceId(1)))
    ));
    assert!(matches!(m.stop(a), Err(AudioError::UnknownSource(_))));
    assert_eq!(energy(&m.render_mock(MS10).unwrap()), 0.0);
    // Ids are never reused.
    assert_eq!(m.play(&s, SourceParams::default()).unwrap(), SourceId(3));
}

#[test]
fn loops_survive_pause_and_resume_with_their_position() {
    let mut m = mock();
    let s = sample(2_205); // 0.1 s
    let params = SourceParams {
        looped: true,
        bus: Bus::Ambient,
        ..SourceParams::default()
    };
    let id = m.play(&s, params).unwrap();
    m.process_mock(25 * MS10).unwrap(); // 0.25 s: two and a half loops
    let st = m.source_status(id).unwrap();
    assert!(st.looped && !st.stopped);
    assert!(st.position_seconds < 0.1, "{}", st.position_seconds);

    m.pause_all().unwrap();
    assert!(m.is_paused());
    m.process_mock(MS10).unwrap(); // the fade
    let frozen = m.source_status(id).unwrap().position_seconds;
    let out = m.render_mock(30 * MS10).unwrap();
    assert_eq!(energy(&out), 0.0);
    assert_eq!(m.source_status(id).unwrap().position_seconds, frozen);
    assert_eq!(m.active_sources(), 1);

    m.resume_all().unwrap();
    assert!(!m.is_paused());
    let out = m.render_mock(3 * MS10).unwrap();
    assert!(energy(&out) > 0.0);
    let after = m.source_status(id).unwrap().position_seconds;
    assert_ne!(after, frozen);
    // Resumed from where it was: 12 blocks (32 ms) on, modulo the loop, not from the
    // start.
    let expect = (frozen + (12 * BLOCK_FRAMES) as f64 / 48_000.0) % 0.1;
    assert!((after - expect).abs() < 0.01, "{after} vs {expect}");
    m.process_mock(50 * MS10).unwrap();
    assert_eq!(m.active_sources(), 1);
    assert!(!m.source_status(id).unwrap().stopped);

    m.stop(id).unwrap();
    m.process_mock(2 * MS10).unwrap();
    assert_eq!(m.active_sources(), 0);
}

#[test]
fn mute_silences_but_keeps_time() {
    let mut m = mock();
    let s = sample(22_050); // 1 s
    let id = m.play(&s, SourceParams::default()).unwrap();
    m.process_mock(MS10).unwrap();
    m.mute().unwrap();
    assert!(m.is_muted());
    m.process_mock(MS10).unwrap();
    let before = m.source_status(id).unwrap().position_seconds;
    assert_eq!(energy(&m.render_mock(10 * MS10).unwrap()), 0.0);
    let after = m.source_status(id).unwrap().position_seconds;
    assert!(after > before + 0.09, "{before} -> {after}");
    // The master volume set while muted applies on unmute.
    m.set_bus_volume(Bus::Master, 0.5).unwrap();
    assert_eq!(energy(&m.render_mock(MS10).unwrap()), 0.0);
    m.unmute().unwrap();
    m.process_mock(MS10).unwrap();
    let out = m.render_mock(MS10).unwrap();
    // 0.5 (signal) * 0.5 (master) on both sides.
    assert!(
        out.iter().all(|v| (v - 0.25).abs() < 1e-3),
        "{:?}",
        &out[..4]
    );
}

#[test]
fn bus_volumes_scale_only_their_bus() {
    let mut m = mock();
    let s = sample(22_050);
    m.play(
        &s,
        SourceParams {
            bus: Bus::Music,
            ..SourceParams::default()
        },
    )
    .unwrap();
    m.set_bus_volume(Bus::Music, 0.0).unwrap();
    m.process_mock(MS10).unwrap();
    assert_eq!(energy(&m.render_mock(MS10).unwrap()), 0.0);
    m.play(&s, SourceParams::default()).unwrap(); // effects bus
    m.process_mock(MS10).unwrap();
    let out = m.render_mock(MS10).unwrap();
    assert!(out.iter().all(|v| (v - 0.5).abs() < 1e-3));
    m.set_bus_volume(Bus::Effects, 0.5).unwrap();
    m.process_mock(MS10).unwrap();
    let out = m.render_mock(MS10).unwrap();
    assert!(out.iter().all(|v| (v - 0.25).abs() < 1e-3));
}

#[test]
fn spatial_sources_attenuate_with_distance() {
    let mut m = mock();
    let s = sample(22_050);
    m.set_listener(Vec3::ZERO, Quat::IDENTITY).unwrap();
    let params = |x: f32| SourceParams {
        position: Some(Vec3::new(x, 0.0, 0.0)),
        min_distance: 100.0,
        max_distance: 1500.0,
        looped: true,
        ..SourceParams::default()
    };
    let far = m.play(&s, params(2000.0)).unwrap();
    assert!(m.source_status(far).unwrap().spatial);
    m.process_mock(MS10).unwrap();
    assert_eq!(energy(&m.render_mock(MS10).unwrap()), 0.0);

    // Inside min_distance, to the listener's right: full volume, louder on the right.
    m.set_source_position(far, Vec3::new(50.0, 0.0, 0.0))
        .unwrap();
    m.process_mock(MS10).unwrap();
    let near = m.render_mock(MS10).unwrap();
    let (l, r): (f32, f32) = near
        .chunks_exact(2)
        .fold((0.0, 0.0), |(l, r), f| (l + f[0].abs(), r + f[1].abs()));
    assert!(r > l && l > 0.0, "left {l} right {r}");

    // Half way between min and max: quieter than near, not silent.
    m.set_source_position(far, Vec3::new(800.0, 0.0, 0.0))
        .unwrap();
    m.process_mock(MS10).unwrap();
    let mid = energy(&m.render_mock(MS10).unwrap());
    assert!(mid > 0.0 && mid < energy(&near));

    // Moving the listener next to it brings it back to full volume.
    m.set_listener(Vec3::new(790.0, 0.0, 0.0), Quat::IDENTITY)
        .unwrap();
    m.process_mock(MS10).unwrap();
    assert!((energy(&m.render_mock(MS10).unwrap()) - energy(&near)).abs() < 1.0);
}

#[test]
fn bad_parameters_are_refused() {
    let mut m = mock();
    let s = sample(100);
    let bad = [
        SourceParams {
            position: Some(Vec3::new(f32::NAN, 0.0, 0.0)),
            ..SourceParams::default()
        },
        SourceParams {
            position: Some(Vec3::ZERO),
            min_distance: 10.0,
            max_distance: 10.0,
            ..SourceParams::default()
        },
        SourceParams {
            playback_rate: 0.0,
            ..SourceParams::default()
        },
        SourceParams {
            volume: f32::INFINITY,
            ..SourceParams::default()
        },
    ];
    for p in bad {
        assert!(matches!(
            m.play(&s, p),
            Err(AudioError::InvalidParameter(_))
        ));
    }
    let flat = m.play(&s, SourceParams::default()).unwrap();
    assert!(matches!(
        m.set_source_position(flat, Vec3::ONE),
        Err(AudioError::InvalidParameter(_))
    ));
    assert!(matches!(
        m.set_listener(Vec3::splat(f32::INFINITY), Quat::IDENTITY),
        Err(AudioError::InvalidParameter(_))
    ));
    assert!(matches!(
        m.set_source_volume(SourceId(99), 1.0),
        Err(AudioError::UnknownSource(SourceId(99)))
    ));
    m.set_source_volume(flat, f32::NAN).unwrap();
}

#[test]
fn playback_rate_changes_speed() {
    let mut m = mock();
    let s = sample(22_050);
    let id = m
        .play(
            &s,
            SourceParams {
                playback_rate: 2.0,
                ..SourceParams::default()
            },
        )
        .unwrap();
    m.process_mock(10 * MS10).unwrap();
    let pos = m.source_status(id).unwrap().position_seconds;
    assert!((pos - 0.2).abs() < 0.01, "{pos}");
}

#[test]
fn decibels_and_orientation() {
    assert_eq!(amplitude_to_decibels(1.0), Decibels::IDENTITY);
    assert_eq!(amplitude_to_decibels(2.0), Decibels::IDENTITY);
    assert!((amplitude_to_decibels(0.5).0 + 6.0206).abs() < 1e-3);
    assert_eq!(amplitude_to_decibels(0.0), Decibels::SILENCE);
    assert_eq!(amplitude_to_decibels(f32::NAN), Decibels::SILENCE);
    assert_eq!(amplitude_to_decibels(1e-9), Decibels::SILENCE);

    let q = listener_orientation(Vec3::NEG_Z, Vec3::Y);
    assert!(q.abs_diff_eq(Quat::IDENTITY, 1e-6));
    let q = listener_orientation(Vec3::X, Vec3::Z);
    assert!((q * Vec3::NEG_Z).abs_diff_eq(Vec3::X, 1e-6));
    assert!((q * Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
    assert_eq!(listener_orientation(Vec3::ZERO, Vec3::Z), Quat::IDENTITY);
    assert_eq!(listener_orientation(Vec3::Z, Vec3::Z), Quat::IDENTITY);
}

/// PD-AUDIO-LIMITER through the whole mixer: a burst of 64 full-volume one-shots (of
/// which the voice limit plays 32: a raw sum of 32 times the sample's level) renders
/// with no sample beyond the ceiling; one source alone is not touched.
#[test]
fn a_64_explosion_burst_never_clips() {
    use crate::limiter::CEILING;
    let mut m = mock();
    let s = sample(22_050); // 1 s at half scale
    let one = {
        let mut m1 = mock();
        m1.play(&s, SourceParams::default()).unwrap();
        m1.render_mock(MS10).unwrap()
    };
    let level = one.iter().map(|x| x.abs()).fold(0.0, f32::max);
    assert!(level > 0.3 && level < CEILING, "one source's level {level}");
    // 64 asked for; PD-AUDIO-VOICES plays the first MAX_VOICES (equals do not stop
    // each other) and refuses the rest.
    let played = (0..64)
        .filter(|_| m.play(&s, SourceParams::default()).is_ok())
        .count();
    assert_eq!(played, MAX_VOICES);
    let out = m.render_mock(20 * MS10).unwrap();
    let loudest = out.iter().map(|x| x.abs()).fold(0.0, f32::max);
    assert!(loudest <= CEILING, "loudest sample {loudest}");
    assert!(loudest > 0.9, "the burst is loud: {loudest}");
    assert!(out.iter().all(|x| x.is_finite()));
}

/// A one-shot on the effects bus at `x` along +X (distances 1..100).
fn at(x: f32) -> SourceParams {
    SourceParams {
        position: Some(Vec3::new(x, 0.0, 0.0)),
        ..SourceParams::default()
    }
}

/// PD-AUDIO-VOICES: with every voice taken, nearer one-shots take the place of the
/// farthest (the oldest of equals first), a quieter one is refused, and the count of
/// playing sources never exceeds the limit.
#[test]
fn the_voice_limit_keeps_the_most_audible_one_shots() {
    let mut m = mock();
    let s = sample(22_050);
    let far: Vec<SourceId> = (0..MAX_VOICES)
        .map(|_| m.play(&s, at(80.0)).unwrap())
        .collect();
    assert_eq!(m.voices(), MAX_VOICES);
    assert!(m.take_stolen().is_empty());
    let near: Vec<SourceId> = (0..10).map(|_| m.play(&s, at(5.0)).unwrap()).collect();
    assert_eq!(m.voices(), MAX_VOICES);
    assert_eq!(
        m.take_stolen(),
        far[..10].to_vec(),
        "the oldest far ones went"
    );
    for id in &near {
        assert!(!m.source_status(*id).unwrap().stopped);
    }
    assert!(m.source_status(far[0]).unwrap().stopped);
    // Quieter than everything playing: refused, nothing stopped.
    let e = m.play(&s, at(95.0)).unwrap_err();
    assert!(matches!(e, AudioError::Capacity(_)), "{e}");
    assert!(m.take_stolen().is_empty());
    // 200 requests at once never hold more than the limit.
    for k in 0..200 {
        let _ = m.play(&s, at(1.0 + (k % 50) as f32));
        assert!(m.voices() <= MAX_VOICES);
    }
    let out = m.render_mock(10 * MS10).unwrap();
    assert!(out.iter().all(|x| x.is_finite()));
}

/// A voice line and music always find a voice (they stop a one-shot or a loop); a
/// one-shot never stops a loop.
#[test]
fn voices_and_music_take_a_voice_and_one_shots_never_stop_loops() {
    let mut m = mock();
    let s = sample(22_050);
    let looped = SourceParams {
        looped: true,
        ..SourceParams::default()
    };
    let loops: Vec<SourceId> = (0..MAX_VOICES)
        .map(|_| m.play(&s, looped).unwrap())
        .collect();
    // A full-volume one-shot beside the listener: refused, the loops play on.
    assert!(m.play(&s, at(0.0)).is_err());
    let voice = SourceParams {
        bus: Bus::Voice,
        volume: 0.1,
        ..SourceParams::default()
    };
    let v = m.play(&s, voice).unwrap();
    assert_eq!(m.take_stolen(), vec![loops[0]]);
    let music = SourceParams {
        bus: Bus::Music,
        ..SourceParams::default()
    };
    m.play(&s, music).unwrap();
    assert_eq!(m.take_stolen(), vec![loops[1]]);
    assert!(!m.source_status(v).unwrap().stopped);
    assert_eq!(m.voices(), MAX_VOICES);
}

#[test]
fn priorities_order_classes_first_then_audibility() {
    let l = Vec3::ZERO;
    let one_shot = Priority::of(&at(10.0), l);
    let farther = Priority::of(&at(60.0), l);
    assert!(farther < one_shot);
    assert_eq!(
        Priority::of(&at(0.5), l).audibility,
        1.0,
        "within min_distance"
    );
    assert!(
        Priority::of(&at(100.0), l).audibility <= 1e-3 + f32::EPSILON,
        "-60 dB at max"
    );
    let quiet_voice = Priority::of(
        &SourceParams {
            bus: Bus::Voice,
            volume: 0.01,
            ..SourceParams::default()
        },
        l,
    );
    assert!(quiet_voice > one_shot);
    let nan = Priority::of(
        &SourceParams {
            volume: f32::NAN,
            ..SourceParams::default()
        },
        l,
    );
    assert_eq!(nan.audibility, 0.0);
}
