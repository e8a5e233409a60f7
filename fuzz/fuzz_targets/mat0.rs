//! Fuzz target: the strict MAT0 reader (version = first byte mod 8, payload = the rest)
//! returns `Ok` or an offset-carrying error, never panics; whatever it accepts re-encodes
//! byte for byte for its version, upgrades to v6 without loss, and phase selection on
//! every block at a few instants never panics and stays within the phase table.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_material::fuzz_check::mat0(data);
});
