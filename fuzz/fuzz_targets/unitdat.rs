//! Fuzz target: the unit DAT readers (strict and compatible) must return `Ok` or a located
//! error for any bytes, never panic; whatever they accept must re-serialise byte for byte
//! (`to_bytes() == input`), and compatible mode may differ from strict only by listing
//! the tolerated record checks as diagnostics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_unitdat::fuzz_check::unitdat(data);
});
