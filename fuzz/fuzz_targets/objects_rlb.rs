//! Fuzz target: an `objects.rlb` entry payload must parse iff its length is a multiple of
//! 64 and re-serialise byte for byte; and prototype resolution over a registry built from
//! the input (every key maps to a slice of it, so parents, cycles and diamonds abound)
//! must end in a result or a located error within the limits, never panic or run away.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_unitdat::fuzz_check::objects_rlb(data);
});
