//! The invariants the `sound_event`, `effect_event` and `weather_event` fuzz targets
//! assert, shared with
//! the tests that replay generated inputs: call [`sound_event`] or [`effect_event`] on
//! any input; it panics on a violation (that is what the fuzzer detects) and returns
//! whether the event was accepted.

#![allow(
    clippy::missing_panics_doc,
    clippy::expect_used,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::{EffectEvent, ErrorKind, Message, MessageCode, SoundEvent, Vec3f};

/// The fuzz input of a sound-event message: `object_a` u32, `value` u64, `point` as
/// three `f32` (little-endian), then the payload.
pub fn sound_event_input(m: &Message) -> Vec<u8> {
    let mut b = Vec::with_capacity(24 + m.payload.len());
    b.extend_from_slice(&m.object_a.to_le_bytes());
    b.extend_from_slice(&m.value.to_le_bytes());
    for v in [m.point.x, m.point.y, m.point.z] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&m.payload);
    b
}

/// Same checks as `fuzz/fuzz_targets/sound_event.rs`: `SoundEvent::from_message` on the
/// message of `data` ([`sound_event_input`]'s layout) accepts, and what it accepts
/// writes a message that reads back as the same event, or refuses with
/// `ErrorKind::INVALID`; never panics. Inputs under 24 bytes are not messages.
pub fn sound_event(data: &[u8]) -> bool {
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
            let again =
                SoundEvent::from_message(&e.to_message().expect("an accepted event writes"))
                    .expect("a written event reads");
            assert_eq!(again, e);
            true
        }
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::INVALID, "{}", e.message);
            false
        }
    }
}

/// The fuzz input of an effect-event message: `object_a` u32, `point` as three `f32`
/// (little-endian), then the payload.
pub fn effect_event_input(m: &Message) -> Vec<u8> {
    let mut b = Vec::with_capacity(16 + m.payload.len());
    b.extend_from_slice(&m.object_a.to_le_bytes());
    for v in [m.point.x, m.point.y, m.point.z] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&m.payload);
    b
}

/// Same checks as `fuzz/fuzz_targets/effect_event.rs`: `EffectEvent::from_message` on
/// the message of `data` ([`effect_event_input`]'s layout) accepts, and what it accepts
/// writes a message that reads back as the same event, or refuses with
/// `ErrorKind::INVALID`; never panics. Inputs under 16 bytes are not messages.
pub fn effect_event(data: &[u8]) -> bool {
    if data.len() < 16 {
        return false;
    }
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let mut m = Message::new(MessageCode::EFFECT).with_payload(data[16..].to_vec());
    m.object_a = word(0);
    m.point = Vec3f {
        x: f32::from_bits(word(4)),
        y: f32::from_bits(word(8)),
        z: f32::from_bits(word(12)),
    };
    match EffectEvent::from_message(&m) {
        Ok(e) => {
            let again =
                EffectEvent::from_message(&e.to_message().expect("an accepted event writes"))
                    .expect("a written event reads");
            assert_eq!(again, e);
            true
        }
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::INVALID, "{}", e.message);
            false
        }
    }
}

/// Same checks as `fuzz/fuzz_targets/weather_event.rs`: `WeatherEvent::from_message` on a
/// `WEATHER` message whose payload is `data` accepts, and what it accepts writes a
/// message that reads back as the same event (bytes past the 28 it reads ignored), or
/// refuses with `ErrorKind::INVALID`; never panics.
pub fn weather_event(data: &[u8]) -> bool {
    let m = Message::new(MessageCode::WEATHER).with_payload(data.to_vec());
    match crate::WeatherEvent::from_message(&m) {
        Ok(w) => {
            let again = crate::WeatherEvent::from_message(
                &w.to_message().expect("an accepted event writes"),
            )
            .expect("a written event reads");
            assert_eq!(again, w);
            true
        }
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::INVALID, "{}", e.message);
            false
        }
    }
}
