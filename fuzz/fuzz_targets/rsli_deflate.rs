//! Fuzz target: the RsLi deflate decoder on arbitrary input with an arbitrary declared size
//! gives an error or exactly that size, never a panic; the encoder's output of the same
//! bytes decodes back to them (`iron3d_rsli::check::deflate`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = iron3d_rsli::check::deflate(data) {
        panic!("{e}");
    }
});
