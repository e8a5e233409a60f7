//! Fuzz target: `mod.toml` manifests and the `mods.toml` mod list. On any UTF-8 text both
//! parsers return `Ok` or an error located at a 1-based line and column, never panic;
//! whatever mod list is accepted is written back and parses to the same list.
#![no_main]

use iron3d_mods::{Manifest, ModList};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Manifest::parse(text, Path::new("fuzz/mod.toml")) {
        Ok(m) => {
            assert!(iron3d_mods::check_id(&m.id).is_ok(), "accepted id is valid");
            assert!(m.plugins.is_empty() || m.interface.is_some(), "plugins need an interface");
        }
        Err(e) => {
            let (_, line, column) = e.location().expect("parse errors are located");
            assert!(line >= 1 && column >= 1, "{e}");
        }
    }
    match ModList::parse(text, Path::new("fuzz/mods.toml")) {
        Ok(list) => {
            let again = ModList::parse(&list.to_toml(), Path::new("again")).expect("written list parses");
            assert_eq!(again, list);
        }
        Err(e) => {
            let (_, line, column) = e.location().expect("parse errors are located");
            assert!(line >= 1 && column >= 1, "{e}");
        }
    }
});
