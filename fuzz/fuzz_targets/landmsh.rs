//! Fuzz target: the `Land.msh` readers (strict and compatible) must return `Ok` or a
//! located error for any bytes, never panic; whatever they accept must have in-range
//! face references, re-serialise byte-identically, survive an edit and rebuild into a
//! strictly valid file (see `iron3d_landmsh::fuzz_check`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_landmsh::fuzz_check::check(data);
});
