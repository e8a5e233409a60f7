//! `AudioEngine` on the mixer without a device: sound events, loops, collisions, engine
//! loops, music, the listener and mix of a frame, the no-device state, save/restore.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::state::{SavedLoop, SavedState};
use super::*;
use crate::mixer::BLOCK_FRAMES;
use iron3d_abi::Vec3f;
use iron3d_aux::{Wave, encode_ms_adpcm};
use iron3d_rsli::{Method, RsliBuilder};

fn tone(ms: u32) -> Vec<i16> {
    let n = 22_050 * ms / 1000;
    (0..n)
        .map(|i| ((i as f32 * 0.05).sin() * 12_000.0) as i16)
        .collect()
}

fn pcm(ms: u32) -> Vec<u8> {
    Wave::pcm16(&tone(ms), 1, 22_050).unwrap().to_bytes()
}

fn adpcm(ms: u32) -> Vec<u8> {
    encode_ms_adpcm(&tone(ms), 1, 22_050, 256)
        .unwrap()
        .to_bytes()
}

/// `sounds.lib` as the demo writes it (RsLi, several methods) plus broken entries.
fn sounds_lib() -> Vec<u8> {
    let mut b = RsliBuilder::new();
    b.add("FIRE.WAV", Method::Lzhuf, pcm(300))
        .add("ENGINE.WAV", Method::Deflate, adpcm(400))
        .add("COLLIDE.WAV", Method::Raw, pcm(50))
        .add("EXPLODE.WAV", Method::Lzss, pcm(200))
        .add("LOOP.WAV", Method::Raw, pcm(2000))
        .add("RAIN.WAV", Method::Deflate, adpcm(1000))
        .add("THEME.WAV", Method::Raw, pcm(1500))
        .add("NIGHT1.WAV", Method::Raw, pcm(100))
        .add("EMPTY.WAV", Method::Raw, Vec::new())
        .add(
            "BAD.WAV",
            Method::Raw,
            b"RIFF\x04\x00\x00\x00JUNKJUNK".to_vec(),
        );
    b.build().unwrap()
}

fn voices_lib() -> Vec<u8> {
    let mut b = RsliBuilder::new();
    b.add("COMPLETE.WAV", Method::Raw, pcm(100))
        .add("FAILED.WAV", Method::Raw, pcm(100));
    b.build().unwrap()
}

fn engine(choice: OutputChoice) -> AudioEngine {
    let mut e = AudioEngine::new(choice, "M1");
    e.load_library("sounds.lib", Ok(sounds_lib()));
    e.load_library("voices.lib", Ok(voices_lib()));
    e
}

fn mock() -> AudioEngine {
    engine(OutputChoice::Mock)
}

fn frame(tick: u64) -> AudioFrame {
    AudioFrame {
        frame: tick,
        tick,
        listener: ROption::RNone,
        mix: AudioMix::default(),
        outcome: ROption::RNone,
        trace: true,
    }
}

fn v(x: f32, y: f32, z: f32) -> Vec3f {
    Vec3f { x, y, z }
}

fn event(kind: SoundKind, name: &str, loop_id: u32) -> SoundEvent {
    SoundEvent {
        kind,
        name: name.into(),
        loop_id,
        ..SoundEvent::default()
    }
}

fn position_of(e: &AudioEngine, slot: LoopSlot) -> f64 {
    let id = e.loops()[&slot].source.unwrap();
    e.mixer().source_status(id).unwrap().position_seconds
}

fn kinds(records: &[AudioTraceRecord]) -> Vec<TraceKind> {
    records.iter().map(|r| r.kind).collect()
}

const BLOCK_SECONDS: f64 = BLOCK_FRAMES as f64 / MOCK_SAMPLE_RATE as f64;

#[test]
fn one_decoded_sample_serves_several_sources() {
    let mut e = mock();
    for i in 0..4 {
        let mut ev = event(SoundKind::ONE_SHOT, "fire.wav", 0);
        ev.position = Some(v(i as f32, 0.0, 0.0));
        e.sound(1, &ev, None);
    }
    let stats = e.cache().stats();
    assert_eq!((stats.reads, stats.decodes, stats.hits), (1, 1, 3));
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::Play; 4]);
    let sources: BTreeSet<_> = t.iter().map(|r| r.source.unwrap()).collect();
    assert_eq!(sources.len(), 4);
    assert_eq!(
        t[0].sample.as_ref().unwrap().to_string(),
        "SOUNDS.LIB/FIRE.WAV"
    );
    assert_eq!(t[2].position, Some([2.0, 0.0, 0.0]));
    let report = e.frame(&frame(1));
    assert_eq!(report.output, AudioOutput::MOCK);
    assert_eq!(report.active_sources, 4);
    assert!(report.reason.is_empty());
}

#[test]
fn loader_outcomes_are_traced_apart_with_the_full_chain() {
    let mut e = mock();
    for name in ["NOPE.WAV", "EMPTY.WAV", "BAD.WAV"] {
        let mut ev = event(SoundKind::ONE_SHOT, name, 0);
        ev.owner = 7;
        e.sound(3, &ev, None);
    }
    // A second request of a failed key answers from the cache, traced again.
    let mut ev = event(SoundKind::ONE_SHOT, "NOPE.WAV", 0);
    ev.owner = 7;
    e.sound(4, &ev, None);
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoadFailed; 4]);
    let detail = |i: usize| t[i].detail.clone().unwrap();
    for (i, (outcome, entry)) in [
        ("entry_missing", "NOPE.WAV"),
        ("entry_empty", "EMPTY.WAV"),
        ("wave_invalid", "BAD.WAV"),
    ]
    .into_iter()
    .enumerate()
    {
        assert!(detail(i).contains(outcome), "{}", detail(i));
        let chain = format!("mission M1 > object 7 > library SOUNDS.LIB > entry {entry}");
        assert!(detail(i).contains(&chain), "{}", detail(i));
        assert_eq!(t[i].owner, Some(SourceOwner::Object(7)));
    }
    assert_eq!(detail(3), detail(0));
    assert_eq!(e.logged_failures.len(), 3, "one log line per key");
    let stats = e.cache().stats();
    assert_eq!((stats.reads, stats.failures, stats.hits), (3, 3, 1));
}

#[test]
fn missing_and_unknown_archives_are_entry_missing() {
    let mut e = mock();
    e.load_library("gone.lib", Err("NOT_FOUND".into()));
    e.load_library("junk.lib", Ok(b"not an archive".to_vec()));
    for lib in ["gone.lib", "never.lib", "junk.lib"] {
        let mut ev = event(SoundKind::ONE_SHOT, "X.WAV", 0);
        ev.library = lib.into();
        e.sound(1, &ev, None);
    }
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoadFailed; 3]);
    assert!(t[0].detail.as_ref().unwrap().contains("entry_missing"));
    assert!(t[0].detail.as_ref().unwrap().contains("NOT_FOUND"));
    assert!(t[1].detail.as_ref().unwrap().contains("was not loaded"));
    assert!(
        t[2].detail
            .as_ref()
            .unwrap()
            .contains("neither an RsLi (NL) nor an NRes")
    );
}

#[test]
fn nres_archives_are_detected_by_magic() {
    let mut w = iron3d_nres::NresWriter::new();
    w.push(iron3d_nres::NewEntry::tagged(b"HIT.WAV", pcm(50)).unwrap());
    let mut e = mock();
    e.load_library("hits.lib", Ok(w.finish().unwrap()));
    let mut ev = event(SoundKind::ONE_SHOT, "hit.wav", 0);
    ev.library = "HITS.LIB".into();
    e.sound(1, &ev, None);
    assert_eq!(kinds(&e.take_trace()), vec![TraceKind::Play]);
    assert_eq!(e.cache().stats().decodes, 1);
}

#[test]
fn loops_survive_pause_resume_and_mute_keeps_position_and_time() {
    let mut e = mock();
    let mut ev = event(SoundKind::START_LOOP, "LOOP.WAV", 5);
    ev.bus = SoundBus::AMBIENT;
    e.sound(1, &ev, None);
    let slot = LoopSlot::Event {
        owner: 0,
        loop_id: 5,
    };
    for t in 0..5 {
        e.frame(&frame(t));
    }
    let p1 = position_of(&e, slot);
    assert!(p1 > 0.05, "{p1}");
    // Pause: after the fade the position holds still.
    let mut paused = frame(6);
    paused.mix.paused = true;
    e.frame(&paused);
    let p2 = position_of(&e, slot);
    for t in 7..12 {
        paused.tick = t;
        e.frame(&paused);
    }
    let p3 = position_of(&e, slot);
    assert!((p3 - p2).abs() < 1e-9, "{p2} {p3}");
    assert!(e.mixer().is_paused());
    // Resume: it goes on from there, still a loop.
    e.frame(&frame(12));
    e.frame(&frame(13));
    let p4 = position_of(&e, slot);
    assert!(p4 > p3, "{p3} {p4}");
    // Mute: playback keeps running (positions and times advance), nothing is reloaded.
    let mut muted = frame(14);
    muted.mix.muted = true;
    for t in 14..20 {
        muted.tick = t;
        e.frame(&muted);
    }
    let p5 = position_of(&e, slot);
    assert!(p5 > p4 + 0.05, "{p4} {p5}");
    assert!(e.mixer().is_muted());
    e.frame(&frame(20));
    assert!(!e.mixer().is_muted());
    assert!(position_of(&e, slot) > p5);
    assert_eq!(e.cache().stats().decodes, 1);
    assert_eq!(e.loops().len(), 1);
    let t = e.take_trace();
    assert!(t.is_empty(), "frames drained the trace");
}

#[test]
fn mix_changes_are_traced_once() {
    let mut e = mock();
    let mut f = frame(1);
    f.mix.paused = true;
    let r = e.frame(&f);
    f.mix.muted = true;
    let r2 = e.frame(&f);
    let r3 = e.frame(&f);
    f.mix = AudioMix {
        music: 0.25,
        ..AudioMix::default()
    };
    let r4 = e.frame(&f);
    let kinds_of = |r: &AudioReport| -> Vec<TraceKind> {
        r.trace
            .iter()
            .map(|l| serde_json::from_str::<AudioTraceRecord>(l).unwrap().kind)
            .collect()
    };
    assert_eq!(kinds_of(&r), vec![TraceKind::Pause]);
    assert_eq!(kinds_of(&r2), vec![TraceKind::Mute]);
    assert!(kinds_of(&r3).is_empty());
    assert_eq!(kinds_of(&r4), vec![TraceKind::Mute, TraceKind::Resume]);
    assert_eq!(e.mixer().bus_volume(Bus::Music), 0.25);
}

#[test]
fn the_trace_carries_the_frames_listener() {
    let mut e = mock();
    let listener = Listener::from_angles(v(10.0, 20.0, 5.0), 0.5, -0.2);
    let mut f = frame(2);
    f.listener = ROption::RSome(listener);
    let report = e.frame(&f);
    let records: Vec<AudioTraceRecord> = report
        .trace
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(kinds(&records), vec![TraceKind::Listener]);
    let q = listener_orientation(Vec3::from(listener.front), Vec3::from(listener.up));
    assert_eq!(records[0].listener_position, Some([10.0, 20.0, 5.0]));
    assert_eq!(records[0].listener_orientation, Some(q.to_array()));
    assert_eq!(e.mixer().listener(), (Vec3::new(10.0, 20.0, 5.0), q));
    // Sound events carry it too; the same listener again writes no record.
    e.sound(3, &event(SoundKind::ONE_SHOT, "FIRE.WAV", 0), None);
    f.tick = 3;
    let report = e.frame(&f);
    assert_eq!(report.trace.len(), 1);
    let r: AudioTraceRecord = serde_json::from_str(&report.trace[0]).unwrap();
    assert_eq!(r.kind, TraceKind::Play);
    assert_eq!(r.listener_position, Some([10.0, 20.0, 5.0]));
    assert_eq!(r.listener_orientation, Some(q.to_array()));
    // Without `trace` the records are drained but not returned.
    e.sound(4, &event(SoundKind::ONE_SHOT, "FIRE.WAV", 0), None);
    f.trace = false;
    assert!(e.frame(&f).trace.is_empty());
    assert!(e.take_trace().is_empty());
}

#[test]
fn start_set_volume_and_stop_loop() {
    let mut e = mock();
    let slot = LoopSlot::Event {
        owner: 9,
        loop_id: 1,
    };
    let mut ev = event(SoundKind::START_LOOP, "atm_rain.wav", 1);
    ev.name = "RAIN.WAV".into();
    ev.owner = 9;
    ev.position = Some(v(1.0, 2.0, 3.0));
    e.sound(1, &ev, None);
    let first = e.loops()[&slot].source.unwrap();
    assert!(e.mixer().source_status(first).unwrap().looped);
    assert!(e.mixer().source_status(first).unwrap().spatial);
    // StartLoop under the same id restarts it with the new sample.
    ev.name = "LOOP.WAV".into();
    e.sound(2, &ev, None);
    let l = e.loops()[&slot].clone();
    assert_eq!(l.key, SampleKey::new("sounds.lib", "LOOP.WAV"));
    let second = l.source.unwrap();
    assert_ne!(first, second);
    assert_eq!(e.loops().len(), 1);
    let mut t = e.take_trace();
    // Two frames, a tick apart: the old source's fade-out is rendered (the mixer without
    // a device keeps game time, PD-AUDIO-MOCK-CLOCK).
    e.frame(&frame(2));
    e.frame(&frame(3));
    assert!(matches!(
        e.mixer().source_status(first),
        Err(AudioError::UnknownSource(_))
    ));
    // SetLoopVolume keeps the loop and its source.
    let mut vol = event(SoundKind::LOOP_VOLUME, "", 1);
    vol.owner = 9;
    vol.volume = 0.3;
    e.sound(3, &vol, None);
    assert_eq!(e.loops()[&slot].volume, 0.3);
    assert_eq!(e.loops()[&slot].source, Some(second));
    // StopLoop.
    let mut stop = event(SoundKind::STOP_LOOP, "", 1);
    stop.owner = 9;
    e.sound(4, &stop, None);
    assert!(e.loops().is_empty());
    e.sound(5, &stop, None);
    e.sound(5, &vol, None);
    t.extend(e.take_trace());
    assert_eq!(
        kinds(&t),
        vec![
            TraceKind::LoopStart,
            TraceKind::LoopStart,
            TraceKind::LoopVolume,
            TraceKind::LoopStop,
            TraceKind::LoopStop,
            TraceKind::LoopVolume,
        ]
    );
    assert_eq!(t[1].detail.as_deref(), Some("restarted with a new sample"));
    assert_eq!(t[2].volume, Some(0.3));
    assert_eq!(t[3].source, Some(second));
    assert!(t[4].detail.is_some() && t[5].detail.is_some());
}

#[test]
fn one_shots_and_loops_follow_their_owner() {
    let mut e = mock();
    let bodies = [(4, Vec3::new(5.0, 0.0, 0.0), Vec3::ZERO)];
    e.tick(1, 1.0 / 60.0, false, &bodies);
    // No position in the event: the owner's (last tick) position makes it 3D.
    let mut ev = event(SoundKind::ONE_SHOT, "LOOP.WAV", 0);
    ev.owner = 4;
    e.sound(1, &ev, None);
    let t = e.take_trace();
    assert_eq!(t[0].position, Some([5.0, 0.0, 0.0]));
    let id = t[0].source.unwrap();
    assert!(e.mixer().source_status(id).unwrap().spatial);
    assert_eq!(e.followers.get(&id), Some(&4));
    let mut lp = event(SoundKind::START_LOOP, "RAIN.WAV", 2);
    lp.owner = 4;
    e.sound(1, &lp, Some(Vec3::new(5.0, 0.0, 0.0)));
    e.tick(
        2,
        1.0 / 60.0,
        false,
        &[(4, Vec3::new(6.0, 1.0, 0.0), Vec3::ZERO)],
    );
    let slot = LoopSlot::Event {
        owner: 4,
        loop_id: 2,
    };
    assert_eq!(e.loops()[&slot].position, Some(Vec3::new(6.0, 1.0, 0.0)));
    // Removed: its loops stop, sources stop following it, no sound of its own
    // (PD-AUDIO-REMOVED).
    e.take_trace();
    e.removed(3, 4);
    assert!(e.loops().is_empty());
    assert!(e.followers.is_empty());
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoopStop]);
}

#[test]
fn engine_loops_follow_the_nearest_eight_moving_units() {
    let mut e = mock();
    let mut f = frame(0);
    f.listener = ROption::RSome(Listener::from_angles(v(0.0, 0.0, 0.0), 0.0, 0.0));
    e.frame(&f);
    let mut bodies: Vec<(u32, Vec3, Vec3)> = (1..=12)
        .map(|i| {
            (
                i,
                Vec3::new(10.0 * i as f32, 0.0, 0.0),
                Vec3::new(4.0 * i as f32, 0.0, 0.0),
            )
        })
        .collect();
    bodies.push((50, Vec3::new(401.0, 0.0, 0.0), Vec3::X * 10.0)); // out of range
    bodies.push((51, Vec3::new(1.0, 0.0, 0.0), Vec3::X * 0.4)); // too slow
    // Listed out of order: selection sorts by distance.
    bodies.reverse();
    e.take_trace();
    e.tick(1, 1.0 / 60.0, false, &bodies);
    let engines: Vec<u32> = e
        .loops()
        .keys()
        .filter_map(|s| match s {
            LoopSlot::Engine(id) => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(engines, (1..=8).collect::<Vec<_>>());
    assert_eq!(e.loops()[&LoopSlot::Engine(1)].rate, engine_rate(4.0));
    assert!((engine_rate(4.0) - 1.0).abs() < 1e-6);
    assert_eq!(engine_rate(0.0), 0.8);
    assert_eq!(engine_rate(100.0), 1.6);
    let l = &e.loops()[&LoopSlot::Engine(1)];
    assert_eq!(l.key, SampleKey::new("sounds.lib", "ENGINE.WAV"));
    assert_eq!(l.bus, Bus::Effects);
    assert!(e.mixer().source_status(l.source.unwrap()).unwrap().looped);
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoopStart; 8]);
    // Unit 1 stops: its loop stops and unit 9 gets one. Nothing else changes.
    bodies.iter_mut().find(|b| b.0 == 1).unwrap().2 = Vec3::ZERO;
    e.tick(2, 1.0 / 60.0, false, &bodies);
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoopStop, TraceKind::LoopStart]);
    assert_eq!(t[0].owner, Some(SourceOwner::Object(1)));
    assert_eq!(t[1].owner, Some(SourceOwner::Object(9)));
    e.tick(3, 1.0 / 60.0, false, &bodies);
    assert!(e.take_trace().is_empty());
    // Beyond 400 units nothing plays.
    let far: Vec<_> = bodies
        .iter()
        .map(|&(id, p, v)| (id, p + Vec3::Y * 1000.0, v))
        .collect();
    e.tick(4, 1.0 / 60.0, false, &far);
    assert!(e.loops().is_empty());
    assert_eq!(kinds(&e.take_trace()), vec![TraceKind::LoopStop; 8]);
}

#[test]
fn collisions_are_rate_limited() {
    let mut e = mock();
    let p = Vec3::new(1.0, 1.0, 0.0);
    assert!(e.collision(10, 3, 4, p));
    assert!(!e.collision(10, 4, 3, p), "same pair, same tick");
    assert!(!e.collision(24, 3, 4, p), "within 15 ticks");
    assert!(e.collision(25, 3, 4, p), "15 ticks later");
    let played = (100..110).filter(|&i| e.collision(30, i, i + 1, p)).count();
    assert_eq!(played, COLLISIONS_PER_TICK as usize);
    assert!(
        e.collision(31, 200, 201, p),
        "the next tick has a new budget"
    );
    assert_eq!(e.suppressed_collisions(), 2 + 2);
    let t = e.take_trace();
    assert_eq!(t.len(), 2 + 8 + 1);
    assert!(t.iter().all(|r| r.kind == TraceKind::Play
        && r.sample == Some(SampleKey::new(SOUNDS_LIBRARY, COLLIDE_SAMPLE))));
    assert_eq!(t[0].position, Some([1.0, 1.0, 0.0]));
    assert_eq!(t[0].owner, Some(SourceOwner::Object(3)));
}

#[test]
fn the_outcome_voice_plays_once() {
    let mut e = mock();
    let mut f = frame(5);
    f.outcome = ROption::RSome(MissionOutcome::COMPLETE);
    let mut voices = Vec::new();
    for _ in 0..3 {
        voices.extend(e.frame(&f).trace);
    }
    f.outcome = ROption::RSome(MissionOutcome::FAILED);
    voices.extend(e.frame(&f).trace);
    assert_eq!(voices.len(), 1);
    let r: AudioTraceRecord = serde_json::from_str(&voices[0]).unwrap();
    assert_eq!(r.kind, TraceKind::Voice);
    assert_eq!(r.sample, Some(SampleKey::new("voices.lib", "COMPLETE.WAV")));
    assert_eq!(r.bus, Some(Bus::Voice));
    assert!(e.outcome_voice_played());

    let mut e = mock();
    f.outcome = ROption::RSome(MissionOutcome::FAILED);
    let r: AudioTraceRecord = serde_json::from_str(&e.frame(&f).trace[0]).unwrap();
    assert_eq!(r.sample, Some(SampleKey::new("voices.lib", "FAILED.WAV")));
}

#[test]
fn voice_events_are_2d_on_the_voice_bus() {
    let mut e = mock();
    let mut ev = event(SoundKind::VOICE, "COMPLETE.WAV", 0);
    ev.library = "voices.lib".into();
    ev.position = Some(v(1.0, 1.0, 1.0));
    e.sound(1, &ev, None);
    let t = e.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::Voice]);
    assert_eq!(t[0].bus, Some(Bus::Voice));
    assert_eq!(t[0].position, None);
    assert!(
        !e.mixer()
            .source_status(t[0].source.unwrap())
            .unwrap()
            .spatial
    );
}

fn music() -> MusicConfig {
    MusicConfig {
        theme: Some(SampleKey::new("sounds.lib", "THEME.WAV")),
        default_pool: Vec::new(),
        day_pool: vec![SampleKey::new("sounds.lib", "DAY1.WAV")],
        night_pool: vec![SampleKey::new("sounds.lib", "NIGHT1.WAV")],
    }
}

#[test]
fn the_theme_starts_on_the_first_tick_and_night_variations_follow() {
    let mut e = mock();
    e.set_music(music(), VariationGenerator::new(0x1234, 0x5678), 99);
    e.tick(1, 1.0 / 30.0, false, &[]);
    let t = e.take_trace();
    assert_eq!(
        kinds(&t),
        vec![TraceKind::MusicTheme, TraceKind::MusicVariation]
    );
    assert_eq!(t[0].sample, Some(SampleKey::new("sounds.lib", "THEME.WAV")));
    assert_eq!(t[0].bus, Some(Bus::Music));
    // PD-AUDIO-MUSIC-NOSKY: no sky object → the NIGHT pool.
    assert_eq!(
        t[1].sample,
        Some(SampleKey::new("sounds.lib", "NIGHT1.WAV"))
    );
    assert!(e.loops().contains_key(&LoopSlot::Theme));
    let delay = e.music().unwrap().delay();
    assert!((10.0..20.0).contains(&delay));
    // Paused: the timer holds.
    e.tick(2, 100.0, true, &[]);
    assert!(e.take_trace().is_empty());
    assert_eq!(e.music().unwrap().elapsed(), 0.0);
}

#[test]
fn a_bright_sky_heard_plays_the_day_pool_and_travels_with_the_state() {
    let mut e = mock();
    e.set_music(music(), VariationGenerator::new(0x1234, 0x5678), 99);
    // Base RGB length 1.2·√3 ≈ 2.08 > 1.1: DAY (FORMATS §13.10).
    e.set_sky(Some(Vec3::new(1.2, 1.2, 1.2)));
    e.tick(1, 1.0 / 30.0, false, &[]);
    let t = e.take_trace();
    assert_eq!(t[1].sample, Some(SampleKey::new("sounds.lib", "DAY1.WAV")));
    // A hot swap keeps the sky heard.
    let blob = e.save().unwrap();
    let mut b = mock();
    b.restore(&blob).unwrap();
    assert_eq!(b.sky(), Some(Vec3::new(1.2, 1.2, 1.2)));
    // A dark sky (length 0.4·√3 ≈ 0.69): NIGHT at the next variation.
    b.set_sky(Some(Vec3::splat(0.4)));
    b.tick(2, 30.0, false, &[]);
    let t = b.take_trace();
    let night = t
        .iter()
        .find(|r| r.kind == TraceKind::MusicVariation)
        .expect("a variation after 30 s");
    assert_eq!(
        night.sample,
        Some(SampleKey::new("sounds.lib", "NIGHT1.WAV"))
    );
    // A state without the trailer: no sky heard; a bad trailer is refused.
    let mut none = mock();
    none.set_sky(None);
    let plain = none.save().unwrap();
    b.restore(&plain).unwrap();
    assert_eq!(b.sky(), None);
    let mut bad = blob.clone();
    bad.bytes.push(0);
    assert!(b.restore(&bad).is_err());
}

#[test]
fn the_mixer_without_a_device_keeps_game_time() {
    let mut e = mock();
    let mut ev = event(SoundKind::START_LOOP, "LOOP.WAV", 1);
    ev.owner = 3;
    e.sound(1, &ev, None);
    let slot = LoopSlot::Event {
        owner: 3,
        loop_id: 1,
    };
    e.frame(&frame(1));
    // 30 ticks at 30 Hz in three frames, or in one: one second of sound either way.
    e.frame(&frame(11));
    e.frame(&frame(21));
    e.frame(&frame(31));
    let at = position_of(&e, slot);
    assert!((at - 1.0).abs() <= 2.0 * BLOCK_SECONDS, "{at}");
    // A frame without a tick (the game stands) renders nothing.
    e.frame(&frame(31));
    assert_eq!(position_of(&e, slot), at);
}

#[test]
fn save_and_restore_keep_loops_going() {
    let mut a = mock();
    a.set_music(music(), VariationGenerator::new(3, 5), 7);
    a.tick(1, 1.0 / 30.0, false, &[]);
    let mut ev = event(SoundKind::START_LOOP, "LOOP.WAV", 4);
    ev.owner = 2;
    ev.position = Some(v(3.0, 4.0, 0.0));
    ev.volume = 0.5;
    a.sound(1, &ev, None);
    // Ten frames of one tick each: a third of a second of game time.
    for tick in 1..=11 {
        let mut f = frame(tick);
        f.outcome = ROption::RSome(MissionOutcome::COMPLETE);
        a.frame(&f);
    }
    let slot = LoopSlot::Event {
        owner: 2,
        loop_id: 4,
    };
    let saved_at = position_of(&a, slot);
    assert!(saved_at > 0.1);
    let blob = a.save().unwrap();
    assert_eq!(blob.format.as_str(), STATE_FORMAT);

    let mut b = mock();
    b.restore(&blob).unwrap();
    assert_eq!(b.music(), a.music());
    assert_eq!(b.music_rng, a.music_rng);
    assert!(b.outcome_voice_played());
    assert!(b.theme_started);
    assert_eq!(
        b.loops().keys().collect::<Vec<_>>(),
        a.loops().keys().collect::<Vec<_>>()
    );
    let l = &b.loops()[&slot];
    assert_eq!(l.volume, 0.5);
    assert_eq!(l.position, Some(Vec3::new(3.0, 4.0, 0.0)));
    let t = b.take_trace();
    assert_eq!(kinds(&t), vec![TraceKind::LoopStart, TraceKind::MusicTheme]);
    assert!(t[0].detail.as_ref().unwrap().starts_with("restored at"));
    // The hot-swap gap: after one rendered block the loop is one block past the saved
    // position, give or take one block.
    b.mixer_mut().process_mock(1).unwrap();
    let resumed = position_of(&b, slot);
    let gap = resumed - saved_at - BLOCK_SECONDS;
    assert!(
        gap.abs() <= BLOCK_SECONDS,
        "saved {saved_at} resumed {resumed}"
    );
    // The theme resumes where it was too; no second theme start, no second voice.
    let theme_gap = position_of(&b, LoopSlot::Theme) - position_of(&a, LoopSlot::Theme);
    assert!(theme_gap.abs() <= 2.0 * BLOCK_SECONDS, "{theme_gap}");
    // Round trip: saving the restored engine gives the same state (positions aside).
    let again: SavedState = postcard::from_bytes(&b.save().unwrap().bytes).unwrap();
    let first: SavedState = postcard::from_bytes(&blob.bytes).unwrap();
    assert_eq!(again.music, first.music);
    assert_eq!(again.music_rng, first.music_rng);
    assert_eq!(again.loops.len(), first.loops.len());
    for (x, y) in again.loops.iter().zip(&first.loops) {
        assert_eq!((x.slot, &x.key, x.volume), (y.slot, &y.key, y.volume));
    }
    b.tick(12, 1.0 / 60.0, false, &[]);
    let mut f = frame(12);
    f.outcome = ROption::RSome(MissionOutcome::COMPLETE);
    assert!(
        b.frame(&f).trace.is_empty(),
        "no second voice, no theme restart"
    );
}

#[test]
fn bad_state_blobs_are_refused() {
    let mut e = mock();
    let good = e.save().unwrap();
    let other = StateBlob::new(STATE_FORMAT, STATE_VERSION + 1, good.bytes.to_vec());
    assert_eq!(e.restore(&other).unwrap_err().kind, ErrorKind::BAD_STATE);
    let cut = StateBlob::new(STATE_FORMAT, STATE_VERSION, good.bytes[..2].to_vec());
    assert_eq!(e.restore(&cut).unwrap_err().kind, ErrorKind::BAD_STATE);
    // A huge count with few bytes: refused without allocating it.
    let mut huge = good.bytes.to_vec();
    let n = huge.len();
    huge[n - 1] = 0xFF;
    huge.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0x0F]);
    let huge = StateBlob::new(STATE_FORMAT, STATE_VERSION, huge);
    assert_eq!(e.restore(&huge).unwrap_err().kind, ErrorKind::BAD_STATE);
    // Too many loops.
    let loop_ = SavedLoop {
        slot: LoopSlot::Engine(1),
        key: SampleKey::new("A", "B"),
        owner: 1,
        bus: Bus::Effects,
        volume: 1.0,
        position: None,
        min_distance: 1.0,
        max_distance: 2.0,
        rate: 1.0,
        playback_seconds: 0.0,
    };
    let state = SavedState {
        tick: 0,
        mission_library: "sounds.lib".into(),
        music: None,
        music_rng: PluginRng::new(1).to_bytes().to_vec(),
        theme_started: false,
        outcome_voice_played: false,
        loops: vec![loop_; MAX_SAVED_LOOPS + 1],
    };
    let blob = StateBlob::new(
        STATE_FORMAT,
        STATE_VERSION,
        postcard::to_allocvec(&state).unwrap(),
    );
    assert_eq!(e.restore(&blob).unwrap_err().kind, ErrorKind::BAD_STATE);
    assert!(e.loops().is_empty());
}

#[test]
fn without_a_device_every_command_is_traced_as_no_device() {
    let mut e = engine(OutputChoice::None);
    assert_eq!(e.output(), OutputKind::NoDevice);
    e.set_music(music(), VariationGenerator::new(1, 2), 3);
    let mut f = frame(0);
    f.listener = ROption::RSome(Listener::from_angles(v(0.0, 0.0, 0.0), 0.0, 0.0));
    f.outcome = ROption::RSome(MissionOutcome::FAILED);
    f.mix.paused = true;
    f.mix.muted = true;
    let first = e.frame(&f);
    for kind in [
        SoundKind::ONE_SHOT,
        SoundKind::START_LOOP,
        SoundKind::LOOP_VOLUME,
        SoundKind::STOP_LOOP,
        SoundKind::VOICE,
    ] {
        e.sound(1, &event(kind, "FIRE.WAV", 1), None);
    }
    e.sound(1, &event(SoundKind::ONE_SHOT, "NOPE.WAV", 1), None);
    e.collision(1, 1, 2, Vec3::ONE);
    e.removed(1, 3);
    e.tick(1, 1.0 / 30.0, false, &[(5, Vec3::X, Vec3::X * 3.0)]);
    e.tick(2, 1.0 / 30.0, false, &[]);
    let mut f2 = f.clone();
    f2.tick = 2;
    let report = e.frame(&f2);
    assert_eq!(report.output, AudioOutput::NO_DEVICE);
    assert!(
        report.reason.contains("no sound device"),
        "{}",
        report.reason
    );
    assert_eq!(report.active_sources, 0);
    let records: Vec<AudioTraceRecord> = first
        .trace
        .iter()
        .chain(report.trace.iter())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // listener, mute, pause, voice | 5 events, NOPE, collision, theme (the variation
    // timer is paused with the mix), engine start, engine stop; a removal sounds nothing.
    assert_eq!(records.len(), 4 + 5 + 1 + 1 + 1 + 2);
    assert!(records.iter().all(|r| r.kind == TraceKind::NoDevice));
    assert!(
        records
            .iter()
            .all(|r| r.detail.as_ref().unwrap().contains("no sound device"))
    );
    assert!(records[0].detail.as_ref().unwrap().starts_with("listener"));
    assert_eq!(
        e.cache().stats().reads,
        0,
        "nothing is loaded without a device"
    );
    // The state still round-trips.
    let blob = e.save().unwrap();
    e.restore(&blob).unwrap();
}
