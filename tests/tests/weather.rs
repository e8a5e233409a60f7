//! The sky end to end (issue 38, FORMATS §13.8–13.10): the terrain plugin owns the
//! demo battle's sky (PD-SKY-BLOCK) and tells the weather (PD-MSG-WEATHER), the rain
//! loop, lightning strikes and their thunder through the bus, as the trace shows; the
//! effects plugin draws the rain around the camera.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::messages;
use serde_json::Value;
use std::path::Path;

/// Ticks per second of the demo missions.
const HZ: u64 = 30;

fn tick(v: &Value) -> u64 {
    v["tick"].as_u64().unwrap()
}

fn length(rgb: &Value) -> f64 {
    rgb.as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap().powi(2))
        .sum::<f64>()
        .sqrt()
}

#[test]
fn the_battle_storm_comes_from_the_terrain_as_weather_rain_and_lightning() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("storm.jsonl");
    let game = iron3d_e2e::render::demo().to_str().unwrap().to_owned();
    iron3d_e2e::run_ok(&[
        "run",
        "--headless",
        "--game-dir",
        &game,
        "--mission",
        iron3d_demo::BATTLE,
        "--ticks",
        "20000",
        "--seed",
        "1",
        "--trace",
        trace.to_str().unwrap(),
        "--trace-every",
        "100000",
    ]);
    // The weather: a clear day at once, the storm (rain 0.8, lightning 0.6, a dark sky)
    // from 130 s to 250 s, clear again at 290 s; quantised steps, never one per tick.
    let weather = messages(&trace, "WEATHER");
    let w = |v: &Value| v["fields"]["weather"].clone();
    assert!(tick(&weather[0]) <= 1, "told at once: {}", weather[0]);
    assert_eq!(w(&weather[0])["rain"], 0.0);
    assert!(length(&w(&weather[0])["sky_rgb"]) > 1.1, "a day sky");
    let storm: Vec<&Value> = weather
        .iter()
        // Told in 1/64 steps (PD-SKY-STEP): 0.8 is 51/64, 0.6 is 38/64.
        .filter(|v| w(v)["rain"] == 51.0 / 64.0 && w(v)["lightning"] == 38.0 / 64.0)
        .collect();
    assert!(!storm.is_empty(), "the storm is told");
    assert!(
        length(&w(storm[0])["sky_rgb"]) <= 1.1,
        "a night sky in the storm"
    );
    assert!(
        (129 * HZ..=131 * HZ).contains(&tick(storm[0])),
        "{}",
        storm[0]
    );
    let last = weather.last().unwrap();
    assert_eq!(w(last)["rain"], 0.0);
    assert!((289 * HZ..=291 * HZ).contains(&tick(last)), "{last}");
    assert!(weather.len() < 400, "{} weather messages", weather.len());
    for v in &weather {
        assert_eq!(
            v["fields"]["from"], "plugin:terrain",
            "the sky's owner: {v}"
        );
    }
    // The rain loop starts once as the rain begins, follows it, stops once at the end.
    let sounds = messages(&trace, "SOUND");
    let rain: Vec<&Value> = sounds
        .iter()
        .filter(|v| v["fields"]["sound"]["name"] == "RAIN.WAV")
        .collect();
    let kinds: Vec<u64> = rain
        .iter()
        .map(|v| v["fields"]["sound"]["kind"].as_u64().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&1), "StartLoop first: {kinds:?}");
    assert_eq!(kinds.last(), Some(&3), "StopLoop last: {kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == 1).count(), 1, "{kinds:?}");
    assert!(
        kinds[1..kinds.len() - 1].iter().all(|k| *k == 2),
        "{kinds:?}"
    );
    assert!(
        (100 * HZ..=102 * HZ).contains(&tick(rain[0])),
        "{}",
        rain[0]
    );
    // Lightning: strikes only while lightning is on, at least the 6 s retry apart,
    // each with its thunder at the same tick and place (min 100, max 1500, rate 1).
    let effects = messages(&trace, "EFFECT");
    let strikes: Vec<&Value> = effects
        .iter()
        .filter(|v| v["fields"]["effect"]["name"] == "LIGHTNING")
        .collect();
    assert!(strikes.len() >= 4, "{} strikes in the storm", strikes.len());
    for s in &strikes {
        assert!((100 * HZ..290 * HZ).contains(&tick(s)), "{s}");
    }
    for pair in strikes.windows(2) {
        assert!(
            tick(pair[1]) - tick(pair[0]) >= 6 * HZ,
            "{} then {}",
            pair[0],
            pair[1]
        );
    }
    let thunder: Vec<&Value> = sounds
        .iter()
        .filter(|v| v["fields"]["sound"]["name"] == "THUNDER.WAV")
        .collect();
    assert_eq!(thunder.len(), strikes.len());
    for (s, t) in strikes.iter().zip(&thunder) {
        assert_eq!(tick(s), tick(t));
        let snd = &t["fields"]["sound"];
        assert_eq!(snd["kind"], 0);
        assert_eq!(snd["position"], s["fields"]["effect"]["position"]);
        assert_eq!(
            (&snd["min_distance"], &snd["max_distance"], &snd["rate"]),
            (&Value::from(100.0), &Value::from(1500.0), &Value::from(1.0))
        );
    }
}

/// Copies the tree `from` into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn rain_falls_in_front_of_the_camera_when_the_sky_says_so() {
    // The battle with a sky that rains from the start (a copy of the demo).
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    copy_tree(iron3d_e2e::render::demo(), &game);
    let cfg = game
        .join("MISSIONS")
        .join(iron3d_demo::BATTLE)
        .join("mission.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let start = text.find("object sky").unwrap();
    let wet = format!(
        "{}object sky\r\n  RAIN_SOUND RAIN.WAV\r\n  KEY1 0 1 0 0 0.5 0.5 0.5\r\nend\r\n",
        &text[..start]
    );
    std::fs::write(&cfg, wet).unwrap();
    let shot = dir.path().join("rain.json");
    iron3d_e2e::run_ok(&[
        "play",
        "--game-dir",
        game.to_str().unwrap(),
        "--mission",
        iron3d_demo::BATTLE,
        "--seed",
        "1",
        "--offscreen",
        "--no-briefing",
        "--renderer",
        "capture",
        "--frames",
        "40",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let capture: Value = serde_json::from_str(&std::fs::read_to_string(&shot).unwrap()).unwrap();
    let groups = capture["effects"]["groups"].as_array().unwrap();
    let rain: Vec<&Value> = groups
        .iter()
        // `iron3d_effects_rules::weather::RAIN_INSTANCE`, as a capture reader sees it.
        .filter(|g| g["instance"] == 0xFFFF_FF00u64)
        .collect();
    assert_eq!(rain.len(), 1, "{groups:?}");
    assert_eq!(rain[0]["kind"], "streak");
    // Full intensity in a view no wider than the reference volume: up to 1000 drops;
    // fresh drops and those that just wrapped have no tail this frame.
    let count = rain[0]["count"].as_u64().unwrap();
    assert!((300..=1000).contains(&count), "{count} rain streaks");
}
