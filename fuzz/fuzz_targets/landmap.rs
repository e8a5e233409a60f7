//! Fuzz target: the `Land.map` reader must return `Ok` or a located error for any bytes,
//! never panic; whatever it accepts (as a whole NRes file or as a bare payload) must
//! re-serialise byte-identically, re-encode and re-parse to the same model, and keep every
//! link and cell reference in range (see `iron3d_landmap::fuzz_check`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_landmap::fuzz_check::check(data);
});
