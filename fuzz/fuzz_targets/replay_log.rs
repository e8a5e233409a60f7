//! Fuzz target: the replay-log parser must return `Ok` or a located error, never panic,
//! and whatever it accepts must re-serialise to a log that parses to the same value.
#![no_main]

use iron3d_replay::ReplayLog;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(log) = ReplayLog::parse(text, "fuzz") {
        let again = ReplayLog::parse(&log.to_text(), "fuzz-again").expect("re-serialised log parses");
        assert_eq!(again, log);
    }
});
