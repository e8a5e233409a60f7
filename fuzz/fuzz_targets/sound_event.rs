//! Fuzz target: the body of a sound event (interface 2.6, `MessageCode::SOUND`) as a
//! plugin could send it. Input layout: `object_a` u32, `value` u64, `point` 3 × f32
//! (little-endian), then the payload. `SoundEvent::from_message` returns `Ok` or an
//! `INVALID` error, never panics; an accepted event writes a message that reads back as
//! the same event.
#![no_main]

use iron3d_abi::{ErrorKind, Message, MessageCode, SoundEvent, Vec3f};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 24 {
        return;
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
            let again = SoundEvent::from_message(&e.to_message().expect("an accepted event writes"))
                .expect("a written event reads");
            assert_eq!(again, e);
        }
        Err(e) => assert_eq!(e.kind, ErrorKind::INVALID, "{}", e.message),
    }
});
