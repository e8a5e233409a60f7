//! Fuzz target: the strict Texm reader must return `Ok` or a located error for any bytes,
//! never panic; whatever it accepts must re-serialise byte-identically, hand out
//! contiguous in-bounds level views, decode every level to the right size, survive every
//! mip-skip, and rewrite through `TexmWriter::like` into a payload that decodes the same.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_texm::fuzz_check::check(data);
});
