//! Plugin host acceptance: live swap without restart, determinism across a swap, rollback
//! on every kind of bad swap, fault isolation and the log bridge, with real dynamically
//! loaded libraries (the test-counter builds A, B and wrong-ABI).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "the watcher test waits on the wall clock for file events"
)]

use iron3d_abi::SlotKind;
use iron3d_e2e::plugins::{host, kernel, library};
use iron3d_kernel::{Kernel, ObjectHandle, StateHash};
use iron3d_plugin_host::{HostError, HostEvent, PluginHost};

const COUNTER: &str = "ai iron3d_test_counter counter\n";

fn behaviour(k: &Kernel, h: ObjectHandle) -> u32 {
    k.world().get(h).unwrap().behaviour_state
}

fn steps(k: &mut Kernel, n: u64) {
    for _ in 0..n {
        k.step(&[]).unwrap();
    }
}

fn events(h: &PluginHost) -> Vec<HostEvent> {
    h.events().try_iter().collect()
}

#[test]
fn swap_a_to_b_at_tick_300_without_restart() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (mut k, handles) = kernel(&mut host, COUNTER, 5, 1);
    steps(&mut k, 300);
    assert_eq!(behaviour(&k, handles[0]), 300, "build A counts 1 per tick");
    let b = library("iron3d_test_counter_v2");
    host.request_swap(SlotKind::Ai, b.to_str().unwrap(), None)
        .unwrap();
    assert_eq!(behaviour(&k, handles[0]), 300, "prepared, not yet active");
    steps(&mut k, 1);
    assert_eq!(k.tick(), 301);
    assert_eq!(
        behaviour(&k, handles[0]),
        302,
        "B's behaviour from tick 301, starting from A's state"
    );
    steps(&mut k, 299);
    assert_eq!(behaviour(&k, handles[4]), 300 + 2 * 300);
    let same: Vec<ObjectHandle> = k.world().iter_registered().map(|(h, _)| h).collect();
    assert_eq!(same, handles, "the mission continued with the same objects");
    assert_eq!(host.swaps(SlotKind::Ai), 1);
    let swapped = events(&host).into_iter().find_map(|e| match e {
        HostEvent::Swapped {
            slot,
            after_tick,
            to,
            ..
        } => Some((slot, after_tick, to)),
        _ => None,
    });
    let (slot, after, to) = swapped.expect("a Swapped event");
    assert_eq!((slot, after), (SlotKind::Ai, 300));
    assert!(to.contains("step2"), "{to}");
}

fn hash_sequence(swap_at: Option<u64>) -> Vec<StateHash> {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 9);
    let (mut k, _) = kernel(&mut host, COUNTER, 8, 9);
    let mut hashes = Vec::new();
    for t in 1..=600 {
        if Some(t - 1) == swap_at {
            // An identical build under another file name: a fresh image, same code.
            let copy = dir.path().join("libcounter_identical.so");
            std::fs::copy(library("iron3d_test_counter"), &copy).unwrap();
            host.request_swap(SlotKind::Ai, copy.to_str().unwrap(), None)
                .unwrap();
        }
        k.step(&[]).unwrap();
        hashes.push(k.state_hash());
    }
    if swap_at.is_some() {
        assert_eq!(host.swaps(SlotKind::Ai), 1);
    }
    hashes
}

#[test]
fn swapping_in_an_identical_build_keeps_the_hash_sequence() {
    let straight = hash_sequence(None);
    let swapped = hash_sequence(Some(300));
    assert_eq!(straight.len(), 600);
    let first_diff = straight.iter().zip(&swapped).position(|(a, b)| a != b);
    assert_eq!(
        first_diff,
        None,
        "hash sequences differ first at tick {:?}",
        first_diff.map(|i| i + 1)
    );
}

#[test]
fn plugin_state_is_part_of_the_state_hash() {
    let dir = tempfile::tempdir().unwrap();
    let mut h1 = host(dir.path(), 1);
    let (mut a, _) = kernel(&mut h1, COUNTER, 2, 1);
    let mut h2 = host(dir.path(), 1);
    let (mut b, _) = kernel(&mut h2, "ai iron3d_null null-ai\n", 2, 1);
    steps(&mut a, 1);
    steps(&mut b, 1);
    assert_ne!(a.state_hash(), b.state_hash());
}

#[test]
fn bad_swaps_roll_back_and_the_old_instance_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (mut k, handles) = kernel(&mut host, COUNTER, 3, 1);
    steps(&mut k, 10);
    let counter = library("iron3d_test_counter");
    let counter = counter.to_str().unwrap();

    // 1. restore_state fails: prepared, refused at the boundary.
    host.request_swap(SlotKind::Ai, counter, Some("counter-bad-restore"))
        .unwrap();
    steps(&mut k, 1);
    let refused = events(&host);
    assert!(
        refused.iter().any(|e| matches!(e, HostEvent::SwapRefused { reason, .. } if reason.contains("refused the state") && reason.contains("never accepts"))),
        "{refused:#?}"
    );

    // 1b. a restore that panics (caught inside the plugin): refused, old keeps running.
    host.request_swap(SlotKind::Ai, counter, Some("counter-panic-restore"))
        .unwrap();
    steps(&mut k, 1);
    let refused = events(&host);
    assert!(
        refused.iter().any(|e| matches!(e, HostEvent::SwapRefused { reason, .. } if reason.contains("panic in restore_state") && reason.contains("cannot take over"))),
        "{refused:#?}"
    );

    // 2. wrong interface version.
    let wrong = library("iron3d_test_counter_wrong_abi");
    let e = host
        .request_swap(SlotKind::Ai, wrong.to_str().unwrap(), None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            HostError::AbiVersion {
                found_major: 99,
                expected_major: iron3d_abi::ABI_MAJOR,
                ..
            }
        ),
        "{e}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("test-counter")
            && msg.contains("interface 99.")
            && msg.contains(&format!(
                "provides {}.{}",
                iron3d_abi::ABI_MAJOR,
                iron3d_abi::ABI_MINOR
            )),
        "{msg}"
    );

    // 3. missing file.
    let e = host
        .request_swap(SlotKind::Ai, "/nonexistent/libgone.so", None)
        .unwrap_err();
    assert!(e.to_string().contains("libgone"), "{e}");

    // 4. panic in mission_start (caught inside the plugin, reported as an error).
    let e = host
        .request_swap(SlotKind::Ai, counter, Some("counter-panic-init"))
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("mission_start failed") && msg.contains("refuses to start"),
        "{msg}"
    );

    // Nothing was lost: build A still counts from where it was.
    steps(&mut k, 5);
    assert_eq!(behaviour(&k, handles[2]), 17);
    assert_eq!(host.swaps(SlotKind::Ai), 0);
    assert_eq!(host.faults(SlotKind::Ai), 0);
    assert!(host.report().iter().any(|r| r.slot == SlotKind::Ai
        && r.instance.contains("test-counter")
        && r.instance.contains(" counter (")));
}

#[test]
fn a_panicking_tick_rolls_back_to_the_previous_instance_and_the_mission_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (mut k, handles) = kernel(&mut host, COUNTER, 3, 1);
    steps(&mut k, 20);
    let counter = library("iron3d_test_counter");
    host.request_swap(
        SlotKind::Ai,
        counter.to_str().unwrap(),
        Some("counter-panic-tick"),
    )
    .unwrap();
    steps(&mut k, 1); // swap active, then its first calculate_object panics
    assert_eq!(host.faults(SlotKind::Ai), 1);
    assert_eq!(k.system_faults("plugin:ai"), Some(1));
    let ev = events(&host);
    assert!(
        ev.iter().any(|e| matches!(e, HostEvent::Fault { reason, fallback, .. } if reason.contains("panic in calculate_object") && fallback.contains(" counter ("))),
        "{ev:#?}"
    );
    steps(&mut k, 9);
    // The previous instance took over the panicking one's state (count 20 at the swap) and
    // already calculated the rest of tick 21: 20 + 1 + 9.
    assert_eq!(behaviour(&k, handles[1]), 30);
}

#[test]
fn a_panicking_first_instance_falls_back_to_the_null_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (mut k, handles) = kernel(
        &mut host,
        "ai iron3d_test_counter counter-panic-tick\n",
        2,
        1,
    );
    steps(&mut k, 3);
    assert_eq!(host.faults(SlotKind::Ai), 1);
    let ai = host
        .report()
        .into_iter()
        .find(|r| r.slot == SlotKind::Ai)
        .unwrap();
    assert!(ai.instance.contains("iron3d-null"), "{ai:?}");
    assert_eq!(k.tick(), 3);
    assert!(k.world().contains(handles[0]));
}

#[test]
fn slots_missing_from_the_registry_get_null_plugins_and_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (_k, _) = kernel(&mut host, "ai iron3d_no_such_plugin wanderer\n", 0, 1);
    let report = host.report();
    assert_eq!(report.len(), 8);
    assert!(
        report.iter().all(|r| r.instance.contains("iron3d-null")),
        "{report:#?}"
    );
    let ev = events(&host);
    assert!(ev.iter().any(|e| matches!(e, HostEvent::LoadFailed { slot: SlotKind::Ai, reason, .. } if reason.contains("iron3d_no_such_plugin"))));
}

#[test]
fn a_rebuilt_library_is_picked_up_by_the_watcher_and_swapped_live() {
    let dir = tempfile::tempdir().unwrap();
    let watched = dir.path().join("libwatched_counter.so");
    std::fs::copy(library("iron3d_test_counter"), &watched).unwrap();
    let mut host = host(&dir.path().join("shadow"), 1);
    let registry = format!("ai {} counter\n", watched.display());
    let (mut k, handles) = kernel(&mut host, &registry, 2, 1);
    host.watch().unwrap();
    steps(&mut k, 10);
    // Replace the file the way cargo does: write elsewhere, then rename over it.
    let tmp = dir.path().join("incoming.tmp");
    std::fs::copy(library("iron3d_test_counter_v2"), &tmp).unwrap();
    std::fs::rename(&tmp, &watched).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let requested = loop {
        let r = host.poll_watcher();
        if !r.is_empty() {
            break r;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no file event within 10 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert_eq!(requested, vec![(SlotKind::Ai, Ok(()))]);
    steps(&mut k, 1);
    assert_eq!(behaviour(&k, handles[0]), 12, "B (+2) took over at 10");
    assert!(host.poll_watcher().is_empty(), "one change, one swap");
}

#[test]
fn a_service_call_into_the_running_plugin_is_refused_as_re_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 1);
    let (mut k, handles) = kernel(
        &mut host,
        "terrain iron3d_test_counter terrain-reentry\nai iron3d_test_counter counter-terrain\n",
        3,
        1,
    );
    steps(&mut k, 2);
    // The terrain plugin asked its own service while running: refused, not a deadlock.
    let reentry = k
        .world()
        .get(handles[0])
        .unwrap()
        .props
        .first(b"Reentry")
        .unwrap()
        .raw_value;
    assert_eq!(reentry[0], iron3d_abi::ErrorKind::REENTRY.0);
    // The same through the typed extension (2.9).
    assert_eq!(reentry[1], iron3d_abi::ErrorKind::REENTRY.0);
    // The AI slot calling the same service is served (height 0 of the flat terrain).
    assert_eq!(behaviour(&k, handles[1]), 0.0f32.to_bits());
    assert_eq!(host.faults(SlotKind::Terrain), 0);
}
