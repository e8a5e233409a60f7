//! Tests of the sky block (PD-SKY-BLOCK), the schedule and the atmosphere's step
//! (PD-SKY-STEP, PD-SKY-RAIN-LOOP, PD-SKY-LIGHTNING).

use super::*;

const STORM: &str = "object ambient_music_loop\r\n  THEME THEME.WAV\r\nend\r\n\
object sky\r\n\
  LIBRARY sounds.lib\r\n\
  RAIN_SOUND RAIN.WAV\r\n\
  LIGHTNING_SOUND other.lib/THUNDER.WAV\r\n\
  LIGHTNING_BOUNDS 0 0 100 200 40\r\n\
  KEY2 60 1 0 0.5 0.4 0.4 0.5\r\n\
  KEY1 0 0 0 0 1.2 1.2 1.1\r\n\
  KEY3 120 0 0 0 1.2 1.2 1.1\r\n\
  FOG_COLOUR 1 2 3\r\n\
end\r\n";

fn storm() -> SkyConfig {
    SkyConfig::from_mission_cfg(STORM.as_bytes())
        .unwrap()
        .expect("a sky block")
}

fn param_error(text: &str) -> (usize, String, String) {
    match SkyConfig::from_mission_cfg(text.as_bytes()) {
        Err(SkyError::Param { line, param, why }) => (line, param, why),
        other => panic!("expected a parameter error, got {other:?}"),
    }
}

#[test]
fn reads_the_block_keys_in_order_of_n() {
    let c = storm();
    assert_eq!(c.library, "sounds.lib");
    assert_eq!(c.rain_sound.as_deref(), Some("RAIN.WAV"));
    assert_eq!(c.lightning_sound.as_deref(), Some("other.lib/THUNDER.WAV"));
    assert_eq!(c.lightning_effect, (String::new(), "LIGHTNING".to_owned()));
    let b = c.bounds.unwrap();
    assert_eq!(
        (b.min, b.max, b.z),
        (Vec2::ZERO, Vec2::new(100.0, 200.0), 40.0)
    );
    let times: Vec<u64> = c.keys.iter().map(|k| k.at_ms).collect();
    assert_eq!(times, [0, 60_000, 120_000]);
    assert_eq!(c.keys[1].weather.rain, 1.0);
    // No sky block, no sky.
    assert_eq!(
        SkyConfig::from_mission_cfg(b"object x\r\nend\r\n").unwrap(),
        None
    );
}

#[test]
fn the_schedule_is_linear_between_keys_and_holds_outside() {
    let c = storm();
    assert_eq!(c.weather_at(0), c.keys[0].weather);
    let mid = c.weather_at(30_000);
    assert!((mid.rain - 0.5).abs() < 1e-6);
    assert!((mid.lightning - 0.25).abs() < 1e-6);
    assert!((mid.rgb - Vec3::new(0.8, 0.8, 0.8)).length() < 1e-5);
    assert_eq!(c.weather_at(60_000), c.keys[1].weather);
    assert_eq!(c.weather_at(10_000_000), c.keys[2].weather);
    let mut late = c.clone();
    late.keys[0].at_ms = 5_000;
    assert_eq!(late.weather_at(0), late.keys[0].weather);
}

#[test]
fn bad_lines_name_their_line_and_parameter() {
    let base = "object sky\r\n  KEY1 0 0 0 0 1 1 1\r\n";
    let (line, param, why) = param_error(&format!("{base}  KEY2 10 2 0 0 1 1 1\r\nend\r\n"));
    assert_eq!((line, param.as_str()), (3, "KEY2"));
    assert!(why.contains("rain intensity 2"), "{why}");
    let (line, _, why) = param_error(&format!("{base}  KEY2 10 0 0 0 1 1\r\nend\r\n"));
    assert_eq!(line, 3);
    assert!(why.contains("7 numbers expected, found 6"), "{why}");
    let (_, _, why) = param_error(&format!("{base}  KEY2 10 0 0 0 1 1 x\r\nend\r\n"));
    assert!(why.contains("number 7"), "{why}");
    let (_, _, why) = param_error(&format!("{base}  KEY2 10 0 0 0 1 1 1 9\r\nend\r\n"));
    assert!(why.contains("found more"), "{why}");
    let (_, _, why) = param_error(&format!("{base}  KEY2 10 0 0 0 1 1 99\r\nend\r\n"));
    assert!(why.contains("sky channel 99"), "{why}");
    let (line, param, why) = param_error(&format!("{base}  KEY2 0 0 0 0 1 1 1\r\nend\r\n"));
    assert_eq!((line, param.as_str()), (3, "KEY2"));
    assert!(why.contains("not after the previous key"), "{why}");
    let (line, param, _) = param_error("object sky\r\n  RAIN_SOUND R.WAV\r\nend\r\n");
    assert_eq!((line, param.as_str()), (1, "KEYn"));
    let (_, param, why) = param_error(&format!("{base}  LIGHTNING_BOUNDS 5 0 5 10 1\r\nend\r\n"));
    assert_eq!(param, "LIGHTNING_BOUNDS");
    assert!(why.contains("is empty"), "{why}");
    let (_, param, _) = param_error(&format!("{base}  LIGHTNING_EFFECT fx.rlb/\r\nend\r\n"));
    assert_eq!(param, "LIGHTNING_EFFECT");
    let many: String = (0..=MAX_SKY_KEYS)
        .map(|i| format!("  KEY{i} {i} 0 0 0 1 1 1\r\n"))
        .collect();
    let (_, _, why) = param_error(&format!("object sky\r\n{many}end\r\n"));
    assert!(why.contains("more than 64 keys"), "{why}");
    assert!(matches!(
        SkyConfig::from_mission_cfg(b"object sky\r\n"),
        Err(SkyError::File(_))
    ));
}

fn run(a: &mut Atmosphere, from_ms: u64, to_ms: u64, step: u64) -> Vec<(u64, Output)> {
    let mut out = Vec::new();
    let mut t = from_ms;
    while t <= to_ms {
        out.extend(a.step(t).into_iter().map(|o| (t, o)));
        t += step;
    }
    out
}

#[test]
fn weather_goes_out_quantised_and_only_when_it_changes() {
    let mut a = Atmosphere::new(storm(), None, 7);
    let out = run(&mut a, 0, 180_000, 33);
    let weathers: Vec<&WeatherEvent> = out
        .iter()
        .filter_map(|(_, o)| match o {
            Output::Weather(w) => Some(w),
            _ => None,
        })
        .collect();
    assert!(
        matches!(out[0], (0, Output::Weather(_))),
        "the first step tells"
    );
    // At most one event per 1/64 step of each value along each ramp, plus the first;
    // at least one per step of the fastest (rain: 64 up, 64 down).
    let c = storm();
    let steps: f32 = c
        .keys
        .windows(2)
        .map(|k| {
            let (a, b) = (k[0].weather, k[1].weather);
            [
                a.rain - b.rain,
                a.snow - b.snow,
                a.lightning - b.lightning,
                a.rgb.x - b.rgb.x,
                a.rgb.y - b.rgb.y,
                a.rgb.z - b.rgb.z,
            ]
            .iter()
            .map(|d| (d.abs() / QUANTUM).ceil() + 1.0)
            .sum::<f32>()
        })
        .sum();
    assert!(
        weathers.len() as f32 <= steps + 1.0,
        "{} weather events, bound {steps}",
        weathers.len()
    );
    assert!(weathers.len() >= 128, "{} weather events", weathers.len());
    for w in &weathers {
        assert_eq!(w.rain, (w.rain * 64.0).round() / 64.0);
    }
    for pair in weathers.windows(2) {
        assert_ne!(pair[0], pair[1], "a repeat was sent");
    }
    // Nothing changes after the last key.
    assert!(a.step(200_000).is_empty());
}

#[test]
fn the_rain_loop_starts_follows_and_stops() {
    let mut a = Atmosphere::new(storm(), None, 7);
    let out = run(&mut a, 0, 180_000, 100);
    let loops: Vec<&SoundEvent> = out
        .iter()
        .filter_map(|(_, o)| match o {
            Output::Sound(s) if s.loop_id == RAIN_LOOP_ID => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(loops.first().unwrap().kind, SoundKind::START_LOOP);
    assert_eq!(loops.last().unwrap().kind, SoundKind::STOP_LOOP);
    assert_eq!(
        loops
            .iter()
            .filter(|s| s.kind == SoundKind::START_LOOP)
            .count(),
        1
    );
    assert!(
        loops[1..loops.len() - 1]
            .iter()
            .all(|s| s.kind == SoundKind::LOOP_VOLUME)
    );
    let peak = loops.iter().map(|s| s.volume).fold(0.0, f32::max);
    assert_eq!(peak, 1.0);
    let s = loops[0];
    assert_eq!(
        (s.library.as_str(), s.name.as_str()),
        ("sounds.lib", "RAIN.WAV")
    );
    assert_eq!((s.bus, s.position), (SoundBus::AMBIENT, None));
    // A sky without a rain sound sends no loop.
    let mut quiet = storm();
    quiet.rain_sound = None;
    let mut b = Atmosphere::new(quiet, None, 7);
    assert!(
        run(&mut b, 0, 180_000, 100)
            .iter()
            .all(|(_, o)| !matches!(o, Output::Sound(s) if s.loop_id == RAIN_LOOP_ID))
    );
}

fn strikes(out: &[(u64, Output)]) -> Vec<(u64, Vec3)> {
    out.iter()
        .filter_map(|(t, o)| match o {
            Output::Effect(e) => Some((*t, Vec3::from(e.position))),
            _ => None,
        })
        .collect()
}

#[test]
fn strikes_fall_in_the_bounds_with_thunder_and_the_retry_wait() {
    let mut c = storm();
    c.keys = vec![SkyKey {
        at_ms: 0,
        weather: Weather {
            lightning: 1.0,
            ..Weather::default()
        },
    }];
    let mut a = Atmosphere::new(c.clone(), None, 11);
    let out = run(&mut a, 0, 600_000, 50);
    let s = strikes(&out);
    // Each strike waits 6 s, then at most 3 s (intensity counted as 0.95).
    assert!(s.len() >= 600 / 9 - 1, "{} strikes", s.len());
    assert!(s.len() <= 600 / 6 + 1, "{} strikes", s.len());
    for pair in s.windows(2) {
        let gap = pair[1].0 - pair[0].0;
        assert!((6_000..=9_050).contains(&gap), "gap {gap} ms");
    }
    for (_, p) in &s {
        assert!((0.0..=100.0).contains(&p.x) && (0.0..=200.0).contains(&p.y));
        assert_eq!(p.z, 40.0);
    }
    let thunder: Vec<&SoundEvent> = out
        .iter()
        .filter_map(|(_, o)| match o {
            Output::Sound(e) if e.kind == SoundKind::ONE_SHOT => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(thunder.len(), s.len());
    let t = thunder[0];
    assert_eq!(
        (t.library.as_str(), t.name.as_str()),
        ("other.lib", "THUNDER.WAV")
    );
    assert_eq!(
        (t.min_distance, t.max_distance, t.rate),
        (100.0, 1500.0, 1.0)
    );
    assert_eq!(t.position.map(Vec3::from), Some(s[0].1));
    // The same seed strikes the same; another seed elsewhere.
    let again = strikes(&run(
        &mut Atmosphere::new(c.clone(), None, 11),
        0,
        600_000,
        50,
    ));
    assert_eq!(again, s);
    let other = strikes(&run(
        &mut Atmosphere::new(c.clone(), None, 12),
        0,
        600_000,
        50,
    ));
    assert_ne!(other, s);
    // No bounds anywhere: no strikes. Default bounds: used when the block has none.
    c.bounds = None;
    assert!(
        strikes(&run(
            &mut Atmosphere::new(c.clone(), None, 11),
            0,
            60_000,
            50
        ))
        .is_empty()
    );
    let fallback = Bounds {
        min: Vec2::new(-10.0, -10.0),
        max: Vec2::new(-5.0, -5.0),
        z: 3.0,
    };
    let d = strikes(&run(
        &mut Atmosphere::new(c, Some(fallback), 11),
        0,
        60_000,
        50,
    ));
    assert!(!d.is_empty() && d.iter().all(|(_, p)| p.x <= -5.0 && p.z == 3.0));
}

#[test]
fn no_lightning_means_an_idle_timer_and_no_strikes() {
    let mut c = storm();
    for k in &mut c.keys {
        k.weather.lightning = 0.0;
    }
    let mut a = Atmosphere::new(c, None, 3);
    assert!(strikes(&run(&mut a, 0, 600_000, 100)).is_empty());
}

#[test]
fn a_restored_atmosphere_continues_exactly() {
    let mut a = Atmosphere::new(storm(), None, 5);
    let _ = run(&mut a, 0, 70_000, 40);
    let blob = a.save();
    assert_eq!(blob.len(), STATE_LEN);
    let mut b = Atmosphere::new(storm(), None, 999);
    b.restore(&blob).unwrap();
    assert_eq!(b, a);
    assert_eq!(
        run(&mut a, 70_040, 200_000, 40),
        run(&mut b, 70_040, 200_000, 40)
    );
    // Refusals change nothing.
    let fresh = Atmosphere::new(storm(), None, 1);
    let mut c = fresh.clone();
    assert!(c.restore(&blob[..STATE_LEN - 1]).is_err());
    let mut bad = blob.clone();
    bad[0] = 9;
    assert!(c.restore(&bad).unwrap_err().contains("timer tag 9"));
    let mut bad = blob.clone();
    bad[7..11].copy_from_slice(&3.0f32.to_le_bytes());
    assert!(c.restore(&bad).is_err());
    assert_eq!(c, fresh);
}
