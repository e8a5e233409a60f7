//! Fuzz target: the NRes readers (strict and compatible) must return `Ok` or a located
//! error for any bytes, never panic; whatever they accept must re-serialise losslessly
//! (`to_bytes() == input`), hand out only in-bounds payload slices, find every entry by
//! name, repack into a strictly valid archive, and stay valid after an edit.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_nres::fuzz_check::check(data);
});
