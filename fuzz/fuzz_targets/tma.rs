//! Fuzz target: the TMA readers (strict and compatible) must return `Ok` or a located
//! error for any bytes, never panic; the compatible reader may only add named
//! diagnostics to what strict accepts; whatever either accepts must re-serialise byte for
//! byte (`to_bytes() == input`) and survive the typed views.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_tma::fuzz_check::check(data);
});
