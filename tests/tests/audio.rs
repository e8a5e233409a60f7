//! The audio plugin (`plugins/audio`, interface 2.6) end to end through the launcher on
//! the demo's BATTLE: the `--audio-trace` contract (the theme on mission open, shots and
//! kills from the AI as sound events at their places, engine loops, the listener), the
//! same run writing the same trace, the simulation identical with a mixer, without a
//! device and without an audio plugin, the one line that says there is no sound, and a
//! hot swap of the audio plugin that keeps its loops.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::render::demo;
use iron3d_e2e::{last_state_hash, run_ok};
use serde_json::Value;
use std::path::Path;

const TICKS: &str = "900";

fn battle(extra: &[&str]) -> String {
    let game = demo().to_str().unwrap().to_owned();
    let mut args = vec![
        "run",
        "--headless",
        "--game-dir",
        game.as_str(),
        "--mission",
        iron3d_demo::BATTLE,
        "--seed",
        "3",
        "--ticks",
        TICKS,
    ];
    args.extend_from_slice(extra);
    run_ok(&args)
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn sample(r: &Value) -> String {
    format!(
        "{}/{}",
        r["sample"]["library"].as_str().unwrap_or(""),
        r["sample"]["name"].as_str().unwrap_or("")
    )
}

fn of_kind<'a>(rs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    rs.iter().filter(|r| r["kind"] == kind).collect()
}

#[test]
fn the_battle_sounds_as_its_trace_says_and_the_same_run_writes_the_same_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("audio.jsonl");
    let out = battle(&["--audio-trace", trace.to_str().unwrap()]);
    assert!(
        out.contains(&format!("audio_trace={}", trace.display())),
        "{out}"
    );
    let rs = records(&trace);
    // The theme on mission open, on the music bus, 2D.
    let theme = of_kind(&rs, "music_theme");
    assert_eq!(theme.len(), 1, "{theme:?}");
    assert_eq!(sample(theme[0]), "SOUNDS.LIB/THEME.WAV");
    assert_eq!(theme[0]["tick"], 1);
    // Variations from the first positive tick on, every 10..19 s (30 s here); the
    // battle's sky is a bright day until the storm at 100 s: the DAY pool, from the
    // first draw on (PD-AUDIO-SKY-START).
    let variations = of_kind(&rs, "music_variation");
    assert!((2..=4).contains(&variations.len()), "{variations:?}");
    assert_eq!(variations[0]["tick"], 1);
    for v in &variations {
        assert!(sample(v).starts_with("SOUNDS.LIB/DAY"), "{v}");
    }
    // Shots: the AI's sound events, each at a place, owned by the shooter.
    let shots: Vec<&Value> = of_kind(&rs, "play")
        .into_iter()
        .filter(|r| sample(r) == "SOUNDS.LIB/FIRE.WAV")
        .collect();
    assert!(shots.len() > 10, "a battle has shots: {}", shots.len());
    for s in &shots {
        assert!(
            s["position"].is_array() && s["owner"]["object"].is_u64(),
            "{s}"
        );
        assert_eq!(s["bus"], "effects");
    }
    // Ticks never go back.
    let ticks: Vec<u64> = rs.iter().map(|r| r["tick"].as_u64().unwrap()).collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]));

    let again = dir.path().join("again.jsonl");
    let out2 = battle(&["--audio-trace", again.to_str().unwrap()]);
    assert_eq!(last_state_hash(&out), last_state_hash(&out2));
    assert_eq!(
        std::fs::read(&trace).unwrap(),
        std::fs::read(&again).unwrap(),
        "same seed, same sound events"
    );
}

#[test]
fn the_simulation_is_the_same_with_a_mixer_without_a_device_and_without_audio() {
    let mock = battle(&["--audio", "mock"]);
    let none = battle(&["--audio", "none"]);
    assert_eq!(last_state_hash(&mock), last_state_hash(&none));
    // No device: said once, and the game plays on.
    let said: Vec<&str> = none
        .lines()
        .filter(|l| l.starts_with("audio: no sound device"))
        .collect();
    assert_eq!(said.len(), 1, "{none}");
    assert!(said[0].ends_with("; playing silently"), "{}", said[0]);
    assert!(
        !mock.contains("audio: no sound device"),
        "the mixer without a device is not 'no device'"
    );
    // And with the null audio plugin in the slot.
    let dir = tempfile::tempdir().unwrap();
    let registry = dir.path().join("plugins.ini");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/plugins.ini"),
    )
    .unwrap()
    .replace(
        "iron3d_audio         kira",
        "iron3d_null          null-audio",
    );
    assert!(text.contains("null-audio"));
    std::fs::write(&registry, text).unwrap();
    let null = battle(&["--registry", registry.to_str().unwrap()]);
    assert_eq!(last_state_hash(&mock), last_state_hash(&null));
}

#[test]
fn a_hot_swap_of_the_audio_plugin_keeps_the_music_going() {
    let dir = tempfile::tempdir().unwrap();
    // A copy of the library: a different file, as a rebuilt plugin would be.
    let lib = iron3d_e2e::plugins::library("iron3d_audio");
    let copy = dir.path().join(lib.file_name().unwrap());
    std::fs::copy(&lib, &copy).unwrap();
    let trace = dir.path().join("swap.jsonl");
    let spec = format!("300:audio:{}", copy.display());
    let out = battle(&[
        "--swap",
        spec.as_str(),
        "--audio-trace",
        trace.to_str().unwrap(),
    ]);
    assert!(out.contains("host: swapped audio after tick 300"), "{out}");
    let rs = records(&trace);
    // The theme was not started again: the new instance took the old one's loop over at
    // the swap, at the position the old one had reached (10 s of game time in).
    let theme = of_kind(&rs, "music_theme");
    assert_eq!(theme.len(), 2, "{theme:?}");
    assert!(theme[0]["detail"].is_null() && theme[0]["tick"] == 1);
    assert_eq!(theme[1]["tick"], 300);
    let detail = theme[1]["detail"].as_str().unwrap();
    let at: f64 = detail
        .strip_prefix("restored at ")
        .and_then(|d| d.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("{detail}"))
        .parse()
        .unwrap();
    assert!(at > 0.0, "resumed mid-theme, not from its start: {detail}");
    // Sounds go on after the swap.
    assert!(
        rs.iter()
            .any(|r| r["tick"].as_u64().unwrap() > 310 && r["kind"] == "play"),
        "the new instance plays"
    );
    // And the simulation is the one without a swap.
    assert_eq!(last_state_hash(&out), last_state_hash(&battle(&[])));
}

#[test]
fn play_asks_for_the_sound_device_and_says_once_when_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("play.jsonl");
    let out = iron3d_e2e::render::play(&[
        "--frames",
        "20",
        "--audio",
        "auto",
        "--audio-trace",
        trace.to_str().unwrap(),
    ]);
    let said = out
        .lines()
        .filter(|l| l.starts_with("audio: no sound device"))
        .count();
    // This machine may or may not have a sound card; ALSA lists none as "no soundcards".
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    if cards.trim().is_empty() || cards.contains("no soundcards") {
        assert_eq!(said, 1, "{out}");
    } else {
        assert!(said <= 1, "{out}");
    }
    // Either way the sound events are traced, with the listener of the drawn frames.
    let rs = records(&trace);
    assert!(!rs.is_empty());
    assert!(
        rs.iter().any(|r| r["listener_position"].is_array()
            || r["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("listener"))),
        "the camera of the drawn frames is the listener"
    );
}
