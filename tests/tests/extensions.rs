//! Typed services as extensions (interface 2.9) with real libraries: a plugin reaches
//! the terrain service through `Host::terrain().call`, which the host routes by
//! `ExtensionId` to the provider active now, with the same answers as the typed
//! methods, re-entry refused, a panicking provider rolled back (the caller gets
//! `PANICKED` and goes on), and the control extension refused to presentation slots
//! (the audio and render writers' tries, `tests/tests/audio_slot.rs`).

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_abi::{ErrorKind, SlotKind};
use iron3d_e2e::plugins::{host, kernel};
use iron3d_kernel::{Kernel, ObjectHandle};
use iron3d_test_counter::body::PANIC_TICK;

fn ground(k: &Kernel, h: ObjectHandle, tick: u64) -> [u32; 4] {
    k.world()
        .get(h)
        .unwrap()
        .props
        .first(format!("Ground{tick}").as_bytes())
        .unwrap_or_else(|| panic!("no Ground{tick}"))
        .raw_value
}

#[test]
fn the_terrain_extension_answers_as_the_typed_service_and_a_panic_is_the_providers() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = host(dir.path(), 5);
    let (mut k, handles) = kernel(
        &mut host,
        "terrain iron3d_test_counter terrain-reentry\nai iron3d_test_counter terrain-user\n",
        2,
        5,
    );
    for _ in 0..PANIC_TICK + 2 {
        k.step(&[]).unwrap();
    }
    let flat = 0.0f32.to_bits();
    for tick in 1..PANIC_TICK {
        assert_eq!(
            ground(&k, handles[0], tick),
            [flat, flat, 0, 0],
            "tick {tick}"
        );
    }
    // The provider panicked inside the extension call: the caller got PANICKED (and
    // wrote it), the terrain slot rolled back at the next boundary, the AI runs on.
    assert_eq!(
        ground(&k, handles[0], PANIC_TICK),
        [flat, ErrorKind::PANICKED.0, 0, 0]
    );
    assert_eq!(host.faults(SlotKind::Terrain), 1);
    assert_eq!(host.faults(SlotKind::Ai), 0);
    let after = ground(&k, handles[0], PANIC_TICK + 1);
    assert_eq!(
        after[0], after[1],
        "typed and extension agree after the rollback: {after:?}"
    );
}
