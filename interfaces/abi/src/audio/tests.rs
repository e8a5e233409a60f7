//! Sound events through their message (round trip, every malformed body refused) and
//! the listener of a camera's angles.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use super::*;

fn event() -> SoundEvent {
    SoundEvent {
        kind: SoundKind::START_LOOP,
        library: "sounds.lib".into(),
        name: "ENGINE.WAV".into(),
        owner: 42,
        position: Some(Vec3f {
            x: 1.5,
            y: -2.0,
            z: 3.25,
        }),
        volume: 0.5,
        min_distance: 100.0,
        max_distance: 1500.0,
        rate: 1.25,
        bus: SoundBus::AMBIENT,
        loop_id: 7,
    }
}

#[test]
fn a_sound_event_round_trips_through_its_message() {
    let e = event();
    let m = e.to_message().unwrap();
    assert_eq!(m.code, MessageCode::SOUND);
    assert_eq!(m.object_a, 42);
    assert_eq!(SoundEvent::from_message(&m).unwrap(), e);
    let flat = SoundEvent {
        position: None,
        ..event()
    };
    let back = SoundEvent::from_message(&flat.to_message().unwrap()).unwrap();
    assert_eq!(back.position, None);
    assert_eq!(back, flat);
}

#[test]
fn bad_sound_events_are_refused_with_what_is_wrong() {
    let m = event().to_message().unwrap();
    let mut short = m.clone();
    short.payload.truncate(10);
    assert!(
        SoundEvent::from_message(&short)
            .unwrap_err()
            .message
            .contains("10 payload bytes, the header needs 32")
    );
    let mut long = m.clone();
    long.payload.push(0);
    assert!(
        SoundEvent::from_message(&long)
            .unwrap_err()
            .message
            .contains("the lengths say")
    );
    let mut huge = m.clone();
    huge.payload[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        SoundEvent::from_message(&huge)
            .unwrap_err()
            .message
            .contains("at most 255")
    );
    let mut nan = m.clone();
    nan.payload[4..8].copy_from_slice(&f32::NAN.to_le_bytes());
    assert_eq!(
        SoundEvent::from_message(&nan).unwrap_err().kind,
        ErrorKind::INVALID
    );
    let mut other = m;
    other.code = MessageCode::COLLISION_DETECTED;
    assert!(SoundEvent::from_message(&other).is_err());
    let too_long = SoundEvent {
        name: "x".repeat(256),
        ..event()
    };
    assert!(too_long.to_message().is_err());
}

#[test]
fn the_listener_of_a_camera_looks_along_its_angles() {
    let l = Listener::from_angles(Vec3f::default(), 0.0, 0.0);
    assert_eq!((l.front.x, l.front.y, l.front.z), (1.0, 0.0, 0.0));
    assert_eq!((l.up.x, l.up.y, l.up.z), (0.0, 0.0, 1.0));
    let l = Listener::from_angles(Vec3f::default(), std::f32::consts::FRAC_PI_2, 0.5);
    let dot = l.front.x * l.up.x + l.front.y * l.up.y + l.front.z * l.up.z;
    assert!(dot.abs() < 1e-6, "front ⟂ up");
    assert!(l.front.y > 0.8 && l.front.z > 0.4 && l.up.y < 0.0);
}
