//! Fuzz target: the body of a sound event (interface 2.6, `MessageCode::SOUND`) as a
//! plugin could send it; the checks are `iron3d_abi::fuzz_check::sound_event`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_abi::fuzz_check::sound_event(data);
});
