//! Fuzz target: the strict MSH reader returns `Ok` or a located error for any bytes and
//! never panics; whatever it accepts re-serialises byte-identically, rebuilds through
//! the builder into a valid model, and samples every node at a few times (both blends,
//! both frame rules, world matrices) without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_msh::fuzz_check::check(data);
});
