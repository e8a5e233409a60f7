//! Fuzz target: the registry parser must return `Ok` or a located error for any bytes in
//! both dialects, never panic, and whatever it accepts must re-serialise byte-identically
//! and parse again to the same document.
#![no_main]

use iron3d_registry::{Dialect, Registry};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for dialect in [Dialect::PluginsIni, Dialect::CompIni] {
        match Registry::parse(data, "fuzz", dialect) {
            Ok(reg) => {
                let bytes = reg.to_bytes();
                assert_eq!(bytes, data, "to_bytes is byte-identical");
                let again = Registry::parse(&bytes, "fuzz", dialect).expect("re-serialised registry parses");
                assert_eq!(again, reg);
            }
            Err(e) => assert!(e.line() >= 1 && e.column() >= 1, "{e}"),
        }
    }
});
