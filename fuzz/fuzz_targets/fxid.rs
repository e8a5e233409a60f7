//! Fuzz target: the strict FXID reader must return `Ok` or a located error for any
//! bytes, never panic; whatever it accepts must re-serialise byte for byte, with every
//! command word, body and resource reference where the layout puts it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_fxid::fuzz_check::check(data);
});
