//! The `sound_event` and `effect_event` fuzz targets' checks on seeds written by
//! `SoundEvent::to_message` / `EffectEvent::to_message` and on every truncation and
//! single-byte corruption of them: `from_message` accepts or refuses with `INVALID`,
//! never panics, and what it accepts round-trips.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use iron3d_abi::fuzz_check::{effect_event, effect_event_input, sound_event, sound_event_input};
use iron3d_abi::{EffectEvent, SoundBus, SoundEvent, SoundKind, Vec3f};

fn seeds() -> Vec<Vec<u8>> {
    let events = [
        SoundEvent::one_shot(
            "sounds.lib",
            "FIRE.WAV",
            17,
            Some(Vec3f {
                x: 1.0,
                y: 2.0,
                z: 3.0,
            }),
        ),
        SoundEvent::one_shot("", "EXPLODE.WAV", 0, None),
        SoundEvent {
            kind: SoundKind::START_LOOP,
            bus: SoundBus::AMBIENT,
            loop_id: 9,
            ..SoundEvent::one_shot("weather.lib", "RAIN.WAV", 0, None)
        },
        SoundEvent {
            kind: SoundKind::VOICE,
            bus: SoundBus::VOICE,
            ..SoundEvent::one_shot("voices.lib", "Победа.wav", 0, None)
        },
    ];
    events
        .iter()
        .map(|e| sound_event_input(&e.to_message().unwrap()))
        .collect()
}

#[test]
fn seeds_their_truncations_and_corruptions_never_panic() {
    let mut accepted = 0;
    for seed in seeds() {
        assert!(sound_event(&seed), "a written event is accepted");
        for len in 0..seed.len() {
            accepted += usize::from(sound_event(&seed[..len]));
        }
        for i in 0..seed.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut d = seed.clone();
                d[i] ^= flip;
                accepted += usize::from(sound_event(&d));
            }
        }
    }
    // Corrupting the kind, bus, owner or a float keeps many inputs valid.
    assert!(accepted > 0);
}

#[test]
fn effect_event_seeds_their_truncations_and_corruptions_never_panic() {
    let at = Vec3f {
        x: 1.0,
        y: 2.0,
        z: 3.0,
    };
    let seeds: Vec<Vec<u8>> = [
        EffectEvent::at("effects.rlb", "SHOT", 17, at).towards(Vec3f {
            x: 9.0,
            y: 2.0,
            z: 3.0,
        }),
        EffectEvent::at("", "EXPLODE", 0, at),
        EffectEvent::at("эффекты.rlb", "Взрыв", 5, at),
    ]
    .iter()
    .map(|e| effect_event_input(&e.to_message().unwrap()))
    .collect();
    let mut accepted = 0;
    for seed in seeds {
        assert!(effect_event(&seed), "a written event is accepted");
        for len in 0..seed.len() {
            accepted += usize::from(effect_event(&seed[..len]));
        }
        for i in 0..seed.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut d = seed.clone();
                d[i] ^= flip;
                accepted += usize::from(effect_event(&d));
            }
        }
    }
    // Corrupting the owner, a coordinate or the scale's low bits keeps inputs valid.
    assert!(accepted > 0);
}

#[test]
fn weather_event_seeds_their_truncations_and_corruptions_never_panic() {
    use iron3d_abi::WeatherEvent;
    use iron3d_abi::fuzz_check::weather_event;
    let seeds: Vec<Vec<u8>> = [
        WeatherEvent::default(),
        WeatherEvent {
            rain: 0.75,
            snow: 0.25,
            lightning: 1.0,
            sky_rgb: Vec3f {
                x: 0.4,
                y: 0.5,
                z: 2.0,
            },
        },
    ]
    .iter()
    .map(|w| w.to_message().unwrap().payload.to_vec())
    .collect();
    let (mut accepted, mut refused) = (0, 0);
    for seed in seeds {
        assert!(weather_event(&seed), "a written event is accepted");
        for len in 0..seed.len() {
            assert!(!weather_event(&seed[..len]), "a short payload is refused");
        }
        let mut longer = seed.clone();
        longer.extend_from_slice(&[7; 9]);
        assert!(
            weather_event(&longer),
            "appended bytes are a newer sender's"
        );
        for i in 0..seed.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut d = seed.clone();
                d[i] ^= flip;
                if weather_event(&d) {
                    accepted += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    // Low mantissa bits keep values valid; sign and exponent flips make them invalid.
    assert!(
        accepted > 0 && refused > 0,
        "{accepted} accepted, {refused} refused"
    );
}
