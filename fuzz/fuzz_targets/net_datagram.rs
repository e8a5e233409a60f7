//! Fuzz target: one datagram as the network could deliver it (issue 40, PD-NET-FRAME);
//! the checks are `iron3d_net_rules::frame::fuzz_check`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_net_rules::frame::fuzz_check(data);
});
