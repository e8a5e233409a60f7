//! Placeholder fuzz target `landmsh` (replaced by the format crate's author).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = data;
});
