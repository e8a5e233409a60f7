//! Fuzz target: a save file (our own format, `iron3d-save`) as a player could hand it
//! over; the checks are `iron3d_save::fuzz_check::save_file`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_save::fuzz_check::save_file(data);
});
