//! Fuzz target: the body of a weather event (interface 2.12, `MessageCode::WEATHER`) as a
//! plugin could send it; the checks are `iron3d_abi::fuzz_check::weather_event`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_abi::fuzz_check::weather_event(data);
});
