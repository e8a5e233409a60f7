//! Unit assembly in the mission graph, on the generated demo and on damaged copies of it:
//! the Tank's turret is an EXTO component mounted on `tank.msh` node 1 (PD-UNIT-ROLE),
//! its lights INTO; the global node numbering agrees with the Control model's
//! `GlobalNodeCounter`; a bad mount, an unresolved component and an empty DAT each give
//! their diagnostic (or failure chain) naming the unit, the component and the file; and
//! the collision bounds place the turret where it is drawn.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::result_large_err,
    reason = "the crate's MissionError is its actionable chain, returned as is"
)]

mod common;

use common::{demo, game_files, graph, load};
use iron3d_control_resources::{ComponentKind, GlobalNodeCounter};
use iron3d_mission::{ModelMount, model_bounds};
use iron3d_unitdat::{ComponentRole, UnitDat, UnitRecord};
use std::path::Path;

const TANK: &[u8] = b"UNITS\\Tank.dat";

fn rewrite_tank(root: &Path, edit: impl FnOnce(&mut UnitDat)) {
    let path = root.join("UNITS/Tank.dat");
    let mut dat = UnitDat::parse(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut dat);
    std::fs::write(&path, dat.to_bytes()).unwrap();
}

#[test]
fn the_demo_tank_mounts_its_turret_on_tank_msh_node_1_and_its_lights_are_into() {
    let dir = demo();
    let loaded = load(dir.path()).unwrap();
    let g = &loaded.graph;
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
    let a = g.assembly(TANK).expect("Tank.dat assembled");
    let roles: Vec<_> = a.components.iter().map(|c| c.role).collect();
    assert_eq!(
        roles,
        [
            ComponentRole::Root,
            ComponentRole::Exto { mount: Some(1) },
            ComponentRole::Into { local_index: 0 }
        ]
    );
    // tank.msh: hull + mount node (2 nodes, globals 0..2); turret.msh: 2 nodes, adds 1.
    let firsts: Vec<_> = a.components.iter().map(|c| c.first_global_node).collect();
    assert_eq!(firsts, [Some(0), Some(2), None]);
    assert_eq!(a.global_mount(1), Some(1));
    let uses: Vec<_> = g
        .models
        .iter()
        .filter(|m| m.prototype.eq_ignore_ascii_case(TANK))
        .take(2)
        .collect();
    assert_eq!(uses[0].name, b"tank.msh");
    assert_eq!((uses[0].component, &uses[0].mount), (Some(0), &None));
    assert_eq!(uses[1].name, b"turret.msh");
    assert_eq!(uses[1].component, Some(1));
    assert_eq!(
        uses[1].mount,
        Some(ModelMount {
            archive: b"models.rlb".to_vec(),
            name: b"tank.msh".to_vec(),
            node: 1,
        })
    );
    // Every unit of the demo assembles without fallbacks; the class words are set.
    for (unit, word) in [
        ("UNITS/Tank.dat", 0x0100_8000u32),
        ("UNITS/Truck.dat", 0x0100_2000),
        ("UNITS/Hangar.dat", 0x8000_0040),
        ("UNITS/Mine.dat", 0x8000_0004),
        ("UNITS/Tower.dat", 0x8010_0000),
    ] {
        let dat = UnitDat::parse(&std::fs::read(dir.path().join(unit)).unwrap()).unwrap();
        assert_eq!(dat.header.class_word(), word, "{unit}");
        let a = g.assembly(unit.replace('/', "\\").as_bytes()).expect(unit);
        assert!(a.diagnostics.is_empty(), "{unit}: {:?}", a.diagnostics);
    }
    let tower = g.assembly(b"UNITS\\Tower.dat").unwrap();
    assert_eq!(tower.components[1].mount(), Some(1), "the tower gun on top");
}

#[test]
fn the_numbering_agrees_with_the_control_models_global_node_counter() {
    let dir = demo();
    let g = load(dir.path()).unwrap().graph;
    assert!(g.assemblies.len() >= 5);
    for a in g.assemblies.values() {
        let mut counter = GlobalNodeCounter::new();
        for c in &a.components {
            let kind = match c.role {
                ComponentRole::Root => ComponentKind::Root,
                ComponentRole::Exto { .. } => ComponentKind::Exto,
                _ => ComponentKind::Into,
            };
            let first = counter.add(kind, c.node_count).unwrap();
            assert_eq!(
                c.first_global_node.map_or(-1, |n| n as i32),
                first,
                "{} #{}",
                a.unit.escape_ascii(),
                c.record
            );
        }
        assert_eq!(counter.count(), a.global_node_count);
    }
}

#[test]
fn a_mount_outside_the_root_model_is_drawn_at_the_object_with_a_diagnostic() {
    let dir = demo();
    rewrite_tank(dir.path(), |d| d.records[1].parent_or_link = 7);
    let loaded = load(dir.path()).expect("a bad mount is a fallback, not a failure");
    let g = &loaded.graph;
    let line = g
        .diagnostics
        .iter()
        .find(|d| d.contains("PD-UNIT-BAD-MOUNT"))
        .unwrap_or_else(|| panic!("{:?}", g.diagnostics));
    for part in [
        "UNITS\\\\Tank.dat",
        "#1 \"turret_proto\"",
        "models.rlb:tank.msh",
        "mount node 7",
        "2 nodes",
    ] {
        assert!(line.contains(part), "{part:?} in {line}");
    }
    assert_eq!(
        g.diagnostics.len(),
        1,
        "reported once per unit DAT, not per object"
    );
    let turret = g
        .models
        .iter()
        .find(|m| m.prototype.eq_ignore_ascii_case(TANK) && m.component == Some(1))
        .unwrap();
    assert_eq!(
        turret.mount, None,
        "PD-UNIT-BAD-MOUNT: the object transform"
    );
}

#[test]
fn an_unresolved_component_fails_the_load_with_its_chain_and_is_reported() {
    let dir = demo();
    rewrite_tank(dir.path(), |d| {
        d.records[1] = UnitRecord::new(b"no_such_gun", 1, b"Lost gun").unwrap();
    });
    let e = load(dir.path()).unwrap_err();
    assert_eq!(e.resource.as_deref(), Some("UNITS\\\\Tank.dat"));
    assert_eq!(e.component.as_deref(), Some("no_such_gun"));
    assert_eq!(e.entry.as_deref(), Some("no_such_gun"));
    let g = graph(dir.path());
    let line = g
        .diagnostics
        .iter()
        .find(|d| d.contains("PD-UNIT-UNRESOLVED"))
        .unwrap_or_else(|| panic!("{:?}", g.diagnostics));
    assert!(
        line.contains("#1 \"no_such_gun\"") && line.contains("Tank.dat"),
        "{line}"
    );
    let a = g.assembly(TANK).unwrap();
    assert_eq!(a.components[1].role, ComponentRole::Unresolved);
}

#[test]
fn a_dat_without_records_loads_with_nothing_to_draw_and_a_diagnostic() {
    let dir = demo();
    rewrite_tank(dir.path(), |d| d.records.clear());
    let loaded = load(dir.path()).expect("an empty DAT is a valid file");
    let g = &loaded.graph;
    let line = g
        .diagnostics
        .iter()
        .find(|d| d.contains("PD-UNIT-NO-ASSEMBLY"))
        .unwrap_or_else(|| panic!("{:?}", g.diagnostics));
    assert!(
        line.contains("[unit_records]") && line.contains("Tank.dat"),
        "{line}"
    );
    assert!(g.assembly(TANK).is_none());
    assert!(
        !g.models
            .iter()
            .any(|m| m.prototype.eq_ignore_ascii_case(TANK)),
        "no component, no model"
    );
}

#[test]
fn the_tank_collision_box_includes_the_turret_at_its_mount() {
    let dir = demo();
    let loaded = load(dir.path()).unwrap();
    let files = game_files(dir.path());
    let data = files.data();
    let (bounds, diagnostics) = model_bounds(&data, &loaded);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let b = bounds[TANK];
    // Hull ±3 × ±2 × ±1; the mount at (-0.5, 0, 1); the turret (half height 0.6) sits on
    // it (top at z 2.2) and its barrel reaches x = -0.5 + 2 + 2 = 3.5 at rest (t = 0).
    let close = |a: f32, b: f32| (a - b).abs() < 1e-3;
    assert!(close(b.max[2], 2.2), "{b:?}");
    assert!(close(b.max[0], 3.5), "{b:?}");
    assert!(close(b.min[2], -1.0) && close(b.min[0], -3.0), "{b:?}");
    // The same turret unmounted (bad mount) sits at the object origin: top at z 1.2.
    rewrite_tank(dir.path(), |d| d.records[1].parent_or_link = 9);
    let loaded = load(dir.path()).unwrap();
    let files = game_files(dir.path());
    let data = files.data();
    let (bounds, _) = model_bounds(&data, &loaded);
    assert!(close(bounds[TANK].max[2], 1.2), "{:?}", bounds[TANK]);
}

/// What players call a unit: its DAT's root description, as written; none when blank.
#[test]
fn a_unit_is_named_by_its_root_records_description() {
    let dir = demo();
    let g = graph(dir.path());
    assert_eq!(g.name(TANK), Some(&b"Tank chassis"[..]));
    assert_eq!(
        g.name(b"units\\truck.DAT"),
        Some(&b"Ore truck"[..]),
        "case ignored"
    );
    assert_eq!(
        g.name(b"hangar"),
        None,
        "a prototype placed directly has no DAT"
    );
    rewrite_tank(dir.path(), |dat| {
        dat.records[0].description = iron3d_unitdat::Name32::new(b"  ").unwrap();
    });
    assert_eq!(graph(dir.path()).name(TANK), None, "a blank description");
}
