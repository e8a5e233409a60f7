//! Fuzz target: the strict CTLD reader must return `Ok` or a located error for any
//! bytes, never panic; whatever it accepts re-serialises byte-identically.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = iron3d_aux::check::ctld(data) {
        panic!("{e}");
    }
});
