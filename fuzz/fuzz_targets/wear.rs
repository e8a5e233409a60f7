//! Fuzz target: the strict WEAR reader returns `Ok` or a located error for any bytes,
//! never panics; whatever it accepts re-serialises byte for byte, and its rows re-author
//! into a canonical table that parses back to the same rows.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_material::fuzz_check::wear(data);
});
