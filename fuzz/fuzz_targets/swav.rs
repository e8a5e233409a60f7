//! Fuzz target: the strict RIFF/WAVE reader must never panic; whatever it accepts
//! re-serialises byte-identically and decodes (PCM / MS-ADPCM) without panicking, and
//! `SoundLoad::from_entry` agrees with parse + decode.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = iron3d_aux::check::swav(data) {
        panic!("{e}");
    }
});
