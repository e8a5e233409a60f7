//! The sample cache: case-insensitive keys, the four loader outcomes with their chain,
//! one decode shared by many sources, the size cap.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use iron3d_aux::{SoundLoad, encode_ms_adpcm};
use std::cell::Cell;
use std::convert::Infallible;

fn pcm_mono(n: usize) -> Vec<u8> {
    let s: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(97)).collect();
    Wave::pcm16(&s, 1, 22_050).unwrap().to_bytes()
}

fn key(name: &str) -> SampleKey {
    SampleKey::new("sounds.lib", name)
}

fn owner() -> SourceOwner {
    SourceOwner::Object(17)
}

#[test]
fn keys_ignore_ascii_case_and_resolve_bare_names() {
    assert_eq!(
        SampleKey::new("sounds.lib", "alien_me.wav"),
        SampleKey::new("SOUNDS.LIB", "ALIEN_ME.WAV")
    );
    assert_eq!(key("a.wav").to_string(), "SOUNDS.LIB/A.WAV");
    assert_eq!(
        SampleKey::resolve("atm_rain1.wav", "mission.lib"),
        SampleKey::new("MISSION.LIB", "ATM_RAIN1.WAV")
    );
    assert_eq!(
        SampleKey::resolve("sounds.lib/thunder.wav", "mission.lib"),
        SampleKey::new("SOUNDS.LIB", "THUNDER.WAV")
    );
    assert_eq!(
        SampleKey::resolve("/x.wav", "m.lib"),
        SampleKey::new("M.LIB", "X.WAV")
    );
}

#[test]
fn four_outcomes_match_the_aux_loader() {
    let good = pcm_mono(10);
    let cases: [(Option<&[u8]>, &str); 4] = [
        (None, "entry_missing"),
        (Some(&[]), "entry_empty"),
        (Some(b"RIFF garbage"), "wave_invalid"),
        (Some(&good), "decoded_sample"),
    ];
    for (entry, kind) in cases {
        assert_eq!(SoundLoad::from_entry(entry).kind(), kind);
        let ours = match load(&key("x.wav"), entry, DEFAULT_MAX_FRAMES) {
            Ok(_) => "decoded_sample",
            Err(f) => f.kind(),
        };
        assert_eq!(ours, kind);
    }
}

#[test]
fn one_read_one_decode_and_a_shared_sample() {
    let mut cache = SampleCache::new("BATTLE");
    let reads = Cell::new(0);
    let bytes = pcm_mono(64);
    let reader = |_: &SampleKey| -> Result<_, Infallible> {
        reads.set(reads.get() + 1);
        Ok(Some(bytes.clone()))
    };
    let a = cache.get(&key("boom.wav"), &owner(), reader).unwrap();
    let b = cache
        .get(&key("BOOM.WAV"), &SourceOwner::Effect("FX".into()), reader)
        .unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(reads.get(), 1);
    assert_eq!(
        cache.stats(),
        CacheStats {
            reads: 1,
            decodes: 1,
            hits: 1,
            failures: 0
        }
    );
    assert_eq!(a.frame_count(), 64);
    assert_eq!(a.sample_rate(), 22_050);
    assert_eq!(a.source_channels(), 1);
    assert!((a.duration_seconds() - 64.0 / 22_050.0).abs() < 1e-12);
    assert_eq!(cache.len(), 1);
    assert!(cache.peek(&key("boom.wav")).unwrap().is_ok());
}

#[test]
fn failures_are_cached_and_carry_the_requesters_chain() {
    let mut cache = SampleCache::new("BATTLE");
    let reads = Cell::new(0);
    let reader = |_: &SampleKey| -> Result<_, Infallible> {
        reads.set(reads.get() + 1);
        Ok(Some(Vec::new()))
    };
    let e1 = cache
        .get(&key("alien_me.wav"), &owner(), reader)
        .unwrap_err();
    let e2 = cache
        .get(
            &key("alien_me.wav"),
            &SourceOwner::Effect("FX_BLAST".into()),
            reader,
        )
        .unwrap_err();
    assert_eq!(reads.get(), 1);
    let line = e1.to_string();
    assert_eq!(
        line,
        "sound load failed: mission BATTLE > object 17 > library SOUNDS.LIB > entry ALIEN_ME.WAV: entry_empty"
    );
    assert!(!line.contains('\n'));
    match e2 {
        AudioError::Load { chain, failure } => {
            assert_eq!(chain.owner, SourceOwner::Effect("FX_BLAST".into()));
            assert_eq!(*failure, LoadFailure::EntryEmpty);
        }
        other => panic!("unexpected {other:?}"),
    }
    let s = cache.stats();
    assert_eq!((s.reads, s.decodes, s.hits, s.failures), (1, 0, 1, 1));

    let missing = cache
        .get(&key("nope.wav"), &owner(), |_| Ok::<_, Infallible>(None))
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .ends_with("entry NOPE.WAV: entry_missing")
    );
    let invalid = cache
        .get(&key("bad.wav"), &owner(), |_| {
            Ok::<_, Infallible>(Some(b"RIFF\x04\0\0\0WAVE".to_vec()))
        })
        .unwrap_err();
    match &invalid {
        AudioError::Load { failure, .. } => assert_eq!(failure.kind(), "wave_invalid"),
        other => panic!("unexpected {other:?}"),
    }
    // The parser's error stays reachable as the source of the source.
    let src = std::error::Error::source(&invalid).unwrap();
    assert!(std::error::Error::source(src).is_some());
}

#[test]
fn reader_errors_keep_their_source_and_are_not_cached() {
    let mut cache = SampleCache::new("M");
    let err = cache
        .get(&key("a.wav"), &owner(), |_| {
            Err(std::io::Error::other("disk on fire"))
        })
        .unwrap_err();
    assert!(matches!(err, AudioError::Read { .. }));
    assert_eq!(
        std::error::Error::source(&err).unwrap().to_string(),
        "disk on fire"
    );
    assert!(cache.is_empty());
    let bytes = pcm_mono(4);
    cache
        .get(&key("a.wav"), &owner(), |_| {
            Ok::<_, Infallible>(Some(bytes))
        })
        .unwrap();
    assert_eq!(cache.stats().reads, 2);
}

#[test]
fn the_frame_cap_refuses_before_decoding() {
    let mut cache = SampleCache::with_limit("M", 100);
    let err = cache
        .get(&key("long.wav"), &owner(), |_| {
            Ok::<_, Infallible>(Some(pcm_mono(101)))
        })
        .unwrap_err();
    match err {
        AudioError::Load { failure, .. } => assert_eq!(
            *failure,
            LoadFailure::TooLarge {
                frames: 101,
                limit: 100
            }
        ),
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        cache
            .get(&key("ok.wav"), &owner(), |_| Ok::<_, Infallible>(Some(
                pcm_mono(100)
            )))
            .is_ok()
    );
}

#[test]
fn adpcm_estimate_bounds_the_decode() {
    let s: Vec<i16> = (0..5000).map(|i| ((i * 37) % 2000 - 1000) as i16).collect();
    for (ch, ba) in [(1u16, 256u16), (2, 512), (1, 36)] {
        let wave = encode_ms_adpcm(&s, ch, 22_050, ba).unwrap();
        let decoded = Wave::parse(&wave.to_bytes()).unwrap().decode().unwrap();
        let est = estimated_frames(&wave);
        assert!(est >= (decoded.samples.len() / usize::from(ch)) as u64);
        // The bound is tight to within one block.
        assert!(est <= (s.len() / usize::from(ch)) as u64 + u64::from(ba) * 2);
        let sample = load(&key("a.wav"), Some(&wave.to_bytes()), DEFAULT_MAX_FRAMES).unwrap();
        assert_eq!(sample.frame_count(), s.len() / usize::from(ch));
    }
}

#[test]
fn frames_are_stereo_and_normalised() {
    let stereo = Wave::pcm16(&[16384, -32768, 0, 32767], 2, 11_025)
        .unwrap()
        .to_bytes();
    let s = load(&key("s.wav"), Some(&stereo), DEFAULT_MAX_FRAMES).unwrap();
    assert_eq!(s.frame_count(), 2);
    assert_eq!(s.source_channels(), 2);
    assert_eq!(s.frames()[0], Frame::new(0.5, -1.0));
    assert_eq!(s.frames()[1], Frame::new(0.0, 32767.0 / 32768.0));
    let mono = Wave::pcm16(&[-16384], 1, 22_050).unwrap().to_bytes();
    let m = load(&key("m.wav"), Some(&mono), DEFAULT_MAX_FRAMES).unwrap();
    assert_eq!(m.frames()[0], Frame::new(-0.5, -0.5));
}

#[test]
fn unplayable_waves_are_wave_invalid() {
    let three = Wave::pcm16(&[0; 6], 3, 22_050).unwrap().to_bytes();
    let f = load(&key("t.wav"), Some(&three), DEFAULT_MAX_FRAMES).unwrap_err();
    assert_eq!(
        f,
        LoadFailure::Unplayable("only mono and stereo waves play")
    );
    assert_eq!(f.kind(), "wave_invalid");
    let zero_rate = Wave::pcm16(&[0; 2], 1, 0).unwrap().to_bytes();
    let f = load(&key("z.wav"), Some(&zero_rate), DEFAULT_MAX_FRAMES).unwrap_err();
    assert_eq!(f.kind(), "wave_invalid");
}
