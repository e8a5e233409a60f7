//! Fuzz target: the AI plugin's inputs from outside — `Objectives.txt`, `Orders.txt` and
//! a saved AI state blob — never panic, and what parses stays within its limits.
#![no_main]

use iron3d_config::objectives::{MAX_OBJECTIVES, Objectives};
use iron3d_config::orders::{MAX_ORDERS, parse};
use iron3d_ai_rules::plugin::Saved;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(o) = Objectives::parse(data, "fuzz/Objectives.txt") {
        assert!(o.goals.len() <= MAX_OBJECTIVES);
    }
    if let Ok(o) = parse(data, "fuzz/Orders.txt") {
        assert!(o.len() <= MAX_ORDERS);
    }
    let _ = postcard::from_bytes::<Saved>(data);
});
