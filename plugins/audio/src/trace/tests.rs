//! Audio trace records as exact JSON lines, every kind's name, write errors reported.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;

#[test]
fn records_are_json_lines_without_empty_fields() {
    let mut w = TraceWriter::new(Vec::new());
    let key = SampleKey::new("sounds.lib", "thunder.wav");
    w.write(
        &AudioTraceRecord::new(7, TraceKind::Play)
            .sample(&key)
            .owner(&SourceOwner::Effect("LIGHTNING".into()))
            .source(SourceId(3))
            .position(Vec3::new(1.0, 2.0, 3.5))
            .bus(Bus::Ambient)
            .volume(0.5),
    )
    .unwrap();
    w.write(&AudioTraceRecord::new(8, TraceKind::Listener).listener(Vec3::ZERO, Quat::IDENTITY))
        .unwrap();
    w.write(&AudioTraceRecord::new(9, TraceKind::NoDevice))
        .unwrap();
    assert_eq!(w.written(), 3);
    let text = String::from_utf8(w.into_inner()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"tick":7,"kind":"play","sample":{"library":"SOUNDS.LIB","name":"THUNDER.WAV"},"owner":{"effect":"LIGHTNING"},"source":3,"position":[1.0,2.0,3.5],"bus":"ambient","volume":0.5}"#,
            r#"{"tick":8,"kind":"listener","listener_position":[0.0,0.0,0.0],"listener_orientation":[0.0,0.0,0.0,1.0]}"#,
            r#"{"tick":9,"kind":"no_device"}"#,
        ]
    );
    for line in lines {
        let back: AudioTraceRecord = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), line);
    }
}

#[test]
fn every_kind_has_its_snake_case_name() {
    let kinds = [
        (TraceKind::Play, "play"),
        (TraceKind::Stop, "stop"),
        (TraceKind::LoopStart, "loop_start"),
        (TraceKind::LoopVolume, "loop_volume"),
        (TraceKind::LoopStop, "loop_stop"),
        (TraceKind::MusicTheme, "music_theme"),
        (TraceKind::MusicVariation, "music_variation"),
        (TraceKind::Voice, "voice"),
        (TraceKind::Listener, "listener"),
        (TraceKind::Pause, "pause"),
        (TraceKind::Resume, "resume"),
        (TraceKind::Mute, "mute"),
        (TraceKind::NoDevice, "no_device"),
        (TraceKind::LoadFailed, "load_failed"),
    ];
    for (k, name) in kinds {
        assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{name}\""));
    }
}

#[test]
fn write_errors_are_reported() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = TraceWriter::new(Broken);
    let e = w
        .write(&AudioTraceRecord::new(0, TraceKind::Pause))
        .unwrap_err();
    assert!(matches!(e, AudioError::TraceIo(_)));
    assert_eq!(w.written(), 0);
}
