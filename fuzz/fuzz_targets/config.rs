//! Fuzz target: the configuration parsers (INI family, `object`…`end` blocks,
//! `BuildDat.lst`, `bindings.ini`, `settings.toml`) never panic and are lossless on whatever they
//! accept (bindings: a set laid over itself is accepted and unchanged).
#![no_main]

use iron3d_config::settings::Settings;
use iron3d_config::{Bindings, BlockFile, BuildDat, IniDocument};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(d) = IniDocument::parse(data, "fuzz.ini") {
        assert_eq!(d.to_bytes(), data);
    }
    if let Ok(b) = BlockFile::parse(data, "fuzz.cfg") {
        assert_eq!(b.to_bytes(), data);
    }
    if let Ok(b) = BuildDat::parse(data, "fuzz.lst") {
        assert_eq!(b.to_bytes(), data);
    }
    if let Ok(b) = Bindings::parse(data, "fuzz.ini") {
        let mut again = b.clone();
        again.overlay(b.clone()).expect("a set laid over itself");
        assert_eq!(again.iter().count(), b.iter().count());
    }
    if let Ok(s) = Settings::parse(data, "fuzz.toml") {
        let again = Settings::parse(s.to_toml().as_bytes(), "again").expect("written settings parse");
        assert_eq!(again, s);
    }
});
