//! Fuzz target: an RsLi archive parses (strict and compatible) or fails cleanly; what it
//! accepts rewrites byte for byte, every entry decodes to exactly its size or fails, and
//! lookup finds every upper-case name (`iron3d_rsli::check::archive`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = iron3d_rsli::check::archive(data) {
        panic!("{e}");
    }
});
