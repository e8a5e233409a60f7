//! Fuzz target: mod packages (`.tar.gz`). On any bytes the install check
//! (`iron3d_mods::check_package`, the read-only first pass of `iron3d mods install`)
//! returns `Ok` or an error and never panics; an accepted package stays within the
//! limits and has a valid id; an error's message is bounded and holds no control
//! character (names from the archive are escaped and cut).
#![no_main]

use iron3d_mods::{InstallLimits, check_id, check_package};
use libfuzzer_sys::fuzz_target;

/// Small limits, so that inputs near them are cheap (the replay test uses the same).
const LIMITS: InstallLimits = InstallLimits {
    max_entry: 1 << 20,
    max_total: 4 << 20,
    max_entries: 256,
};

fuzz_target!(|data: &[u8]| {
    match check_package(data, LIMITS) {
        Ok(c) => {
            assert!(check_id(&c.id).is_ok(), "accepted id is valid");
            assert!(c.files <= LIMITS.max_entries);
            assert!(c.bytes <= LIMITS.max_total);
        }
        Err(e) => {
            let text = e.to_string();
            assert!(text.len() < 8192, "bounded message: {} bytes", text.len());
            assert!(!text.chars().any(char::is_control), "escaped: {text:?}");
        }
    }
});
