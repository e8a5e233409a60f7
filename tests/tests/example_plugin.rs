//! The example third-party plugin (`plugins/examples/spawner`, depending on `iron3d-abi`
//! and `iron3d-gameplay` only) on a real mission: it spawns objects standing on the terrain (a service of the
//! terrain slot called from the AI slot), ages them through their property bag, and tells
//! the control slot with a plugin-defined message; a second copy is hot-swapped in
//! mid-mission with its state; a panicking service method and a panicking destructor
//! leave the mission running with the fault reported.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_abi::SlotKind;
use iron3d_e2e::plugins::library_dir;
use iron3d_example_spawner::{KIND, SPAWN_EVERY};
use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use iron3d_mission::{GameData, MissionRef, load_mission};
use iron3d_plugin_host::{
    HostConfig, HostEvent, MissionFiles, MissionSetup, PluginHost, SearchPaths,
};
use iron3d_registry::{Dialect, Registry};
use iron3d_vfs::{ArchiveCache, ReadMode, Vfs};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const SPAWNER: &str = "terrain iron3d_terrain terrain\n\
                       ai iron3d_example_spawner spawner\n\
                       control iron3d_example_spawner listener\n";

fn mission(game: &Path, registry: &str, shadow: &Path) -> (Kernel, PluginHost) {
    let vfs = Vfs::new(game);
    let mref = MissionRef::locate(&vfs, "DEMO1").unwrap();
    let files = Arc::new(MissionFiles {
        vfs: Vfs::new(game),
        mission_dir: mref.dir.clone(),
    });
    let mut host = PluginHost::new(HostConfig {
        search_paths: SearchPaths::new(vec![library_dir(), library_dir().join("..")]),
        shadow_dir: shadow.to_owned(),
        mission: MissionSetup {
            name: "DEMO1".into(),
            seed: 5,
            tick_hz: 30,
            files: Some(files),
            parameters: Default::default(),
        },
        debounce: Duration::from_millis(50),
    });
    let reg = Registry::parse(registry.as_bytes(), "example.ini", Dialect::PluginsIni).unwrap();
    let mut k = Kernel::new(
        KernelConfig {
            seed: 5,
            ..KernelConfig::default()
        },
        Box::new(ManualTimeSource::new()),
    )
    .unwrap();
    for s in host.systems_from_registry(&reg) {
        k.add_system(s).unwrap();
    }
    let cache = ArchiveCache::new(ReadMode::Strict, 64 << 20);
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    load_mission(&mut k, &data, "DEMO1", None).unwrap();
    (k, host)
}

fn steps(k: &mut Kernel, n: u64) {
    for _ in 0..n {
        k.step(&[]).unwrap();
    }
}

/// `(id, position, Life state, Heard)` of every spawned object, in id order.
fn spawned(k: &Kernel) -> Vec<(u32, glam::Vec3, u32, Option<u32>)> {
    let mut v: Vec<_> = k
        .world()
        .iter_registered()
        .filter(|(_, o)| o.kind == KIND)
        .map(|(_, o)| {
            (
                o.id.raw(),
                o.transform.position,
                o.props.first(b"Life state").map_or(0, |p| p.raw_value[1]),
                o.props.first(b"Heard").map(|p| p.raw_value[1]),
            )
        })
        .collect();
    v.sort_by_key(|s| s.0);
    v
}

fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 5, iron3d_demo::Profile::Demo).unwrap();
    dir
}

#[test]
fn spawns_on_the_terrain_ages_through_properties_and_messages_the_control_slot() {
    let game = demo();
    let shadow = tempfile::tempdir().unwrap();
    let (mut k, host) = mission(game.path(), SPAWNER, shadow.path());
    assert!(
        host.report()
            .iter()
            .any(|r| r.slot == SlotKind::Ai && r.instance.contains("example-spawner")),
        "{:?}",
        host.report()
    );
    let before = k.world().registered_count();
    steps(&mut k, 100);
    let live = spawned(&k);
    let spawns = 100 / SPAWN_EVERY;
    assert!(
        (3..=6).contains(&live.len()),
        "spawns every {SPAWN_EVERY} ticks live {} ticks: {live:?}",
        iron3d_example_spawner::LIFE
    );
    assert_eq!(k.world().registered_count(), before + live.len());
    // Standing on the terrain: the height came from the terrain plugin's service.
    let dir = game.path().join("MISSIONS/DEMO1");
    let terrain = iron3d_terrain::World::load(dir.to_str().unwrap())
        .unwrap()
        .unwrap();
    for (id, p, life, heard) in &live {
        let ground = terrain.surface.height_at(p.x, p.y).unwrap();
        assert!(
            (p.z - ground).abs() < 1e-4,
            "object {id} at {p} vs ground {ground}"
        );
        assert!(*life >= 1, "aged but alive: {life}");
        assert!(heard.is_some(), "the listener heard about object {id}");
    }
    // The listener counted every spawn: the newest object was the `spawns`-th message.
    assert_eq!(live.last().unwrap().3, Some(spawns as u32));
    // Aging: the oldest live object is older than the newest.
    assert!(live.first().unwrap().2 < live.last().unwrap().2);
    // Lifecycle: the listener heard of every object joining (the mission's 180 first)
    // and of the spawned ones that aged out.
    let noticed: Vec<[u32; 4]> = k
        .world()
        .iter_registered()
        .filter(|(_, o)| o.kind == KIND)
        .map(|(_, o)| {
            o.props
                .first(b"Noticed")
                .unwrap_or_else(|| panic!("object {} not noticed: {:?}", o.id, o.props))
                .raw_value
        })
        .collect();
    let newest = noticed.iter().max_by_key(|n| n[1]).unwrap();
    assert_eq!(newest[1] as usize, before + spawns as usize, "{noticed:?}");
    assert!(newest[2] >= 1, "spawned objects left the game: {noticed:?}");
}

#[test]
fn a_second_copy_swapped_in_mid_mission_keeps_the_state() {
    let game = demo();
    let shadow = tempfile::tempdir().unwrap();
    let (mut plain, _h1) = mission(game.path(), SPAWNER, shadow.path());
    steps(&mut plain, 100);

    let (mut k, host) = mission(game.path(), SPAWNER, shadow.path());
    steps(&mut k, 50);
    // A distinct build: the same library with trailing bytes (another hash, same code).
    let mut bytes = std::fs::read(library_dir().join("libiron3d_example_spawner.so"))
        .or_else(|_| std::fs::read(library_dir().join("../libiron3d_example_spawner.so")))
        .unwrap();
    bytes.extend_from_slice(b"second copy");
    let copy = shadow.path().join("libexample_copy.so");
    std::fs::write(&copy, bytes).unwrap();
    host.request_swap(SlotKind::Ai, copy.to_str().unwrap(), None)
        .unwrap();
    steps(&mut k, 50);
    let events: Vec<HostEvent> = host.events().try_iter().collect();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, HostEvent::Swapped { slot: SlotKind::Ai, to, .. } if to.contains("libexample_copy"))),
        "{events:#?}"
    );
    assert_eq!(
        spawned(&k),
        spawned(&plain),
        "the copy went on from the handed-over state"
    );
    assert_eq!(k.state_hash(), plain.state_hash());
}

#[test]
fn a_panicking_service_method_and_destructor_leave_the_mission_running() {
    let game = demo();
    let shadow = tempfile::tempdir().unwrap();
    let registry = "terrain iron3d_example_spawner fragile-terrain\n\
                    ai iron3d_example_spawner spawner\n\
                    control iron3d_example_spawner listener\n";
    let (mut k, host) = mission(game.path(), registry, shadow.path());
    steps(&mut k, 200);
    let events: Vec<HostEvent> = host.events().try_iter().collect();
    let fault = events
        .iter()
        .find_map(|e| match e {
            HostEvent::Fault {
                slot: SlotKind::Terrain,
                reason,
                fallback,
                state,
                ..
            } => Some((reason.clone(), fallback.clone(), state.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no terrain fault reported: {events:#?}"));
    assert!(fault.0.contains("the ground gave way"), "{fault:?}");
    assert!(fault.0.contains("called from ai"), "{fault:?}");
    assert!(fault.1.contains("null-terrain"), "{fault:?}");
    assert!(
        fault.2.contains("state"),
        "the event names the state resumed from: {fault:?}"
    );
    // The fragile instance was shut down and dropped: its destructor panicked, caught
    // inside the plugin and reported; the spawner kept spawning on the flat fallback.
    assert!(
        events.iter().any(|e| matches!(e, HostEvent::ShutdownFailed { slot: SlotKind::Terrain, reason, .. } if reason.contains("panic in drop") && reason.contains("panics when dropped"))),
        "{events:#?}"
    );
    assert!(host.faults(SlotKind::Terrain) >= 1);
    assert_eq!(host.faults(SlotKind::Ai), 0, "the caller is not at fault");
    assert!(!spawned(&k).is_empty());
    assert!(
        host.report()
            .iter()
            .any(|r| r.slot == SlotKind::Terrain && r.instance.contains("null-terrain"))
    );
    steps(&mut k, 20);
}

#[test]
fn objects_created_by_a_plugin_after_the_load_are_drawn_with_their_prototype() {
    let game = demo();
    let g = game.path().to_str().unwrap();
    let registry = game.path().join("spawner.ini");
    std::fs::write(&registry, SPAWNER).unwrap();
    let shot = game.path().join("frame.json");
    let (code, out) = iron3d_e2e::iron3d(&[
        "play",
        "--game-dir",
        g,
        "--mission",
        "DEMO1",
        "--offscreen",
        "--renderer",
        "capture",
        "--frames",
        "40",
        "--width",
        "64",
        "--height",
        "48",
        "--registry",
        registry.to_str().unwrap(),
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{out}");
    let frame: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shot).unwrap()).unwrap();
    // Spawned objects have ids above the mission's (PD-ID-CREATE: highest id + 1).
    let ids = |key: &str| -> Vec<(u64, String)> {
        frame[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["id"].as_u64().unwrap(),
                    o["reason"].as_str().unwrap_or("visible").to_owned(),
                )
            })
            .collect()
    };
    let all: Vec<(u64, String)> = ids("visible").into_iter().chain(ids("skipped")).collect();
    // DEMO1 places 180 objects, numbered by the loader's id rule.
    let mission_max = u64::from(iron3d_mission::object_id(179).unwrap().raw());
    let spawned: Vec<&(u64, String)> = all.iter().filter(|(id, _)| *id > mission_max).collect();
    assert!(
        !spawned.is_empty(),
        "spawned objects are in the frame: {all:?}"
    );
    assert!(
        spawned.iter().all(|(_, reason)| reason != "no_model"),
        "every spawned object has its prototype's models: {spawned:?}"
    );
}

#[test]
fn a_panicking_service_getter_is_a_fault_of_the_provider() {
    let game = demo();
    let shadow = tempfile::tempdir().unwrap();
    let registry = "terrain iron3d_example_spawner broken-getter\n\
                    ai iron3d_example_spawner spawner\n";
    let (mut k, host) = mission(game.path(), registry, shadow.path());
    steps(&mut k, 30);
    let events: Vec<HostEvent> = host.events().try_iter().collect();
    assert!(
        events.iter().any(|e| matches!(e, HostEvent::Fault { slot: SlotKind::Terrain, reason, .. } if reason.contains("panic in terrain") && reason.contains("no terrain service today"))),
        "{events:#?}"
    );
    assert_eq!(host.faults(SlotKind::Ai), 0, "the caller is not at fault");
    assert!(!spawned(&k).is_empty(), "the mission went on");
}
