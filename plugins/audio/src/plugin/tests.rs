//! The plugin's factories, its audio service, save/restore and `mission.cfg` music.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::*;
use abi_stable::std_types::ROption;
use iron3d_abi::audio::{AudioMix, AudioOutput};

#[test]
fn three_factories_in_the_audio_slot() {
    let d = describe();
    let names: Vec<&str> = d.factories.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, vec!["kira", "kira-mock", "silent"]);
    for f in d.factories.iter() {
        assert_eq!(f.slot, SlotKind::Audio);
    }
    assert!(create("nope").is_err());
}

#[test]
fn the_plugin_is_an_audio_provider() {
    let frame = AudioFrame {
        frame: 1,
        tick: 1,
        listener: ROption::RNone,
        mix: AudioMix::default(),
        outcome: ROption::RNone,
        trace: true,
    };
    let mut mock = create(FACTORY_MOCK).unwrap();
    let report = mock.audio().unwrap().frame(&frame).unwrap();
    assert_eq!(report.output, AudioOutput::MOCK);
    let mut silent = create(FACTORY_SILENT).unwrap();
    let report = silent.audio().unwrap().frame(&frame).unwrap();
    assert_eq!(report.output, AudioOutput::NO_DEVICE);
    assert!(!report.reason.is_empty());
    // State goes through the Plugin methods.
    let blob = mock.save_state().unwrap();
    silent.restore_state(&blob).unwrap();
    mock.shutdown();
}

#[test]
fn mission_cfg_music_with_its_own_variation_library() {
    let text = b"object ambient_music_loop\n\
        \tLIBRARY music.lib\n\
        \tTHEME theme.wav\n\
        end\n\
        object ambient_music_variation\n\
        \tLIBRARY vars.lib\n\
        \tDAY_VARIATION2 day2.wav\n\
        \tDAY_VARIATION1 day1.wav\n\
        \tnight_variation1 other.lib/night.wav\n\
        end\n";
    let m = parse_mission_music(text, "sounds.lib").unwrap().unwrap();
    assert_eq!(
        m.config.theme,
        Some(SampleKey::new("music.lib", "THEME.WAV"))
    );
    assert_eq!(
        m.config.day_pool,
        vec![
            SampleKey::new("vars.lib", "DAY1.WAV"),
            SampleKey::new("vars.lib", "DAY2.WAV")
        ]
    );
    assert_eq!(
        m.config.night_pool,
        vec![SampleKey::new("other.lib", "NIGHT.WAV")]
    );
    assert!(m.config.default_pool.is_empty());
    assert_eq!(m.libraries, vec!["music.lib", "vars.lib", "OTHER.LIB"]);
}

#[test]
fn pools_in_the_loop_block_with_a_variation_block_naming_only_the_library() {
    // The demo's layout (PD-AUDIO-MUSIC-BLOCKS).
    let text = b"object ambient_music_loop\r\n  LIBRARY sounds.lib\r\n  THEME THEME.WAV\r\n  \
        DAY_VARIATION1 DAY1.WAV\r\n  NIGHT_VARIATION1 NIGHT1.WAV\r\n  NIGHT_VARIATION2 NIGHT2.WAV\r\nend\r\n\
        object ambient_music_variation\r\n  LIBRARY vars.lib\r\nend\r\n";
    let m = parse_mission_music(text, "sounds.lib").unwrap().unwrap();
    assert_eq!(
        m.config.day_pool,
        vec![SampleKey::new("vars.lib", "DAY1.WAV")]
    );
    assert_eq!(m.config.night_pool.len(), 2);
}

#[test]
fn mission_cfg_defaults_and_failures() {
    // No LIBRARY anywhere: the mission library; variations inherit the loop's.
    let text = b"object ambient_music_loop\n THEME = \"a.wav\"\n DEFAULT_VARIATION1 b.wav\nend\n";
    let m = parse_mission_music(text, "sounds.lib").unwrap().unwrap();
    assert_eq!(m.config.theme, Some(SampleKey::new("sounds.lib", "A.WAV")));
    assert_eq!(
        m.config.default_pool,
        vec![SampleKey::new("sounds.lib", "B.WAV")]
    );
    assert_eq!(m.libraries, vec!["sounds.lib"]);
    // No music blocks: no music.
    let other = b"object briefing\n desc x\nend\n";
    assert_eq!(parse_mission_music(other, "sounds.lib").unwrap(), None);
    // Broken text: an error (the plugin warns and plays no music).
    let broken = b"object ambient_music_loop\n THEME a.wav\n";
    assert!(parse_mission_music(broken, "sounds.lib").is_err());
}
