//! The `sound_event` fuzz target's checks on seeds written by `SoundEvent::to_message`
//! and on every truncation and single-byte corruption of them: `from_message` accepts
//! or refuses with `INVALID`, never panics, and what it accepts round-trips.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use iron3d_abi::{ErrorKind, Message, MessageCode, SoundBus, SoundEvent, SoundKind, Vec3f};

/// The fuzz target's input of `m` (see `fuzz/fuzz_targets/sound_event.rs`).
fn input(m: &Message) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&m.object_a.to_le_bytes());
    b.extend_from_slice(&m.value.to_le_bytes());
    for v in [m.point.x, m.point.y, m.point.z] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&m.payload);
    b
}

/// The fuzz target's body.
fn check(data: &[u8]) -> bool {
    if data.len() < 24 {
        return false;
    }
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let mut m = Message::new(MessageCode::SOUND).with_payload(data[24..].to_vec());
    m.object_a = word(0);
    m.value = u64::from(word(4)) | (u64::from(word(8)) << 32);
    m.point = Vec3f {
        x: f32::from_bits(word(12)),
        y: f32::from_bits(word(16)),
        z: f32::from_bits(word(20)),
    };
    match SoundEvent::from_message(&m) {
        Ok(e) => {
            let again = SoundEvent::from_message(&e.to_message().unwrap()).unwrap();
            assert_eq!(again, e);
            true
        }
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::INVALID, "{}", e.message);
            false
        }
    }
}

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
        .map(|e| input(&e.to_message().unwrap()))
        .collect()
}

#[test]
fn seeds_their_truncations_and_corruptions_never_panic() {
    let mut accepted = 0;
    for seed in seeds() {
        assert!(check(&seed), "a written event is accepted");
        for len in 0..seed.len() {
            accepted += usize::from(check(&seed[..len]));
        }
        for i in 0..seed.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut d = seed.clone();
                d[i] ^= flip;
                accepted += usize::from(check(&d));
            }
        }
    }
    // Corrupting the kind, bus, owner or a float keeps many inputs valid.
    assert!(accepted > 0);
}
