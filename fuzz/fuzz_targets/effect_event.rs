//! Fuzz target: the body of an effect event (interface 2.11, `MessageCode::EFFECT`) as a
//! plugin could send it; the checks are `iron3d_abi::fuzz_check::effect_event`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_abi::fuzz_check::effect_event(data);
});
