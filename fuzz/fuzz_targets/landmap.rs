//! Placeholder fuzz target `landmap` (replaced by the format crate's author).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = data;
});
