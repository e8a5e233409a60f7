//! Callbacks are derived from the implementation (interface 2.9) with real libraries:
//! the host calls every callback of a plugin built against 2.9, and one the instance
//! declines — a default body, or an override answering `PluginError::declined()` — is
//! called once and never again on that instance; a new instance starts afresh.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::plugins::{host, kernel, library};
use iron3d_kernel::{Kernel, ObjectHandle};
use iron3d_plugin_host::PluginHost;

const PROBE: &str = "ai iron3d_test_counter callback-probe\n";

/// `[calculate_object, on_message, update, 0]` as the probe wrote them on `h`.
fn calls(k: &Kernel, h: ObjectHandle) -> [u32; 4] {
    k.world()
        .get(h)
        .unwrap()
        .props
        .first(b"Calls")
        .expect("the probe wrote its calls")
        .raw_value
}

fn run(host: &mut PluginHost, objects: u32, ticks: u64) -> (Kernel, Vec<ObjectHandle>) {
    let (mut k, handles) = kernel(host, PROBE, objects, 3);
    for _ in 0..ticks {
        k.step(&[]).unwrap();
    }
    (k, handles)
}

#[test]
fn a_declined_callback_is_called_once_and_a_taken_one_every_tick() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 3);
    let (k, handles) = run(&mut host, 5, 20);
    // 20 ticks of 5 objects and one message a tick: calculate_object would have been
    // called 100 times and on_message 19 times; both were declined on their first call.
    // `update` writes before its own tick's count is final, so it reads 20 at tick 20.
    for &h in &handles {
        assert_eq!(calls(&k, h), [1, 1, 20, 0]);
    }
    assert_eq!(
        host.faults(iron3d_abi::SlotKind::Ai),
        0,
        "a decline is no fault"
    );
}

#[test]
fn a_swapped_in_instance_starts_with_every_callback_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 3);
    let (mut k, handles) = run(&mut host, 3, 5);
    assert_eq!(calls(&k, handles[0]), [1, 1, 5, 0]);
    let counter = library("iron3d_test_counter");
    host.request_swap(
        iron3d_abi::SlotKind::Ai,
        counter.to_str().unwrap(),
        Some("callback-probe"),
    )
    .unwrap();
    for _ in 0..5 {
        k.step(&[]).unwrap();
    }
    // The new instance counted from zero (its calls are not state): one call of each
    // declined callback, then the updates of the five ticks after the swap (the old
    // instance would read [1, 1, 10, 0]; a slot that kept the old instance's declines
    // would never have called the new one's calculate_object: [0, 0, 5, 0]).
    assert_eq!(host.swaps(iron3d_abi::SlotKind::Ai), 1);
    assert_eq!(calls(&k, handles[0]), [1, 1, 5, 0]);
}
