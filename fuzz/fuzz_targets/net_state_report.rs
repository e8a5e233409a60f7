//! Fuzz target: a peer's state summary for a desync report (issue 40, PD-NET-SYNC-REPORT);
//! the checks are `iron3d_net_rules::sync::fuzz_check` (decode never panics, what decodes
//! encodes to its bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_net_rules::sync::fuzz_check(data);
});
