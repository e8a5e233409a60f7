//! Fuzz target: a campaign or progress file (`dispatcher.ini`, `iron3d-save`'s
//! PD-CAMPAIGN rules); the checks are `iron3d_save::fuzz_check::campaign_file`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    iron3d_save::fuzz_check::campaign_file(data);
});
