//! Replays `fuzz/corpus/ai_text/` (when present) and built-in seeds through the same
//! checks as the `ai_text` fuzz target: the AI's text files and state blobs never panic
//! and stay within their limits.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_ai_rules::plugin::Saved;
use iron3d_config::objectives::{MAX_OBJECTIVES, Objectives};
use iron3d_config::orders::{MAX_ORDERS, parse};

fn check(data: &[u8]) {
    if let Ok(o) = Objectives::parse(data, "c/Objectives.txt") {
        assert!(o.goals.len() <= MAX_OBJECTIVES);
    }
    if let Ok(o) = parse(data, "c/Orders.txt") {
        assert!(o.len() <= MAX_ORDERS);
    }
    let _ = postcard::from_bytes::<Saved>(data);
}

#[test]
fn seeds_and_saved_inputs_never_panic() {
    let saved = postcard::to_allocvec(&Saved::default()).unwrap();
    let seeds: [&[u8]; 8] = [
        b"clan 0\r\nwin destroy 1\r\nlose time 600\r\n",
        b"clan 0\nwin hold 1e38 1e38 1e38 1e38\nlose gathered 4294967295 3.4e38\n",
        b"clan 99999999999999999999\n",
        b"move 3 120 40\r\nmove 18446744073709551615 1 1\n",
        b"move 1 inf 2\n\xff\xfe\x00",
        b"",
        &saved,
        &[0xFF; 64],
    ];
    for s in seeds {
        check(s);
    }
    // A saved state's counts are bounded by the bytes present (no allocation from a
    // count alone): a huge length prefix fails cleanly.
    let mut huge = vec![0xFF, 0xFF, 0xFF, 0xFF, 0x0F];
    huge.extend_from_slice(&saved);
    assert!(postcard::from_bytes::<Saved>(&huge).is_err());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/ai_text");
    if let Ok(rd) = std::fs::read_dir(&dir) {
        for e in rd.flatten() {
            check(&std::fs::read(e.path()).unwrap());
        }
    }
}
