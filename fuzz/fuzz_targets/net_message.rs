//! Fuzz target: one lockstep message as a peer could send it (issue 40); the checks are
//! `iron3d_net_rules::wire::fuzz_check` (decode never panics, what decodes round-trips).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_net_rules::wire::fuzz_check(data);
});
