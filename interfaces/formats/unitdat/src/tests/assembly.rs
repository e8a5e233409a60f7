//! Unit assembly: PD-UNIT-TREE (every later record a child of record 0), PD-UNIT-ROLE
//! (model → EXTO at `parent_or_link`, `-1` → node 0; no model → INTO), the §13.14 global
//! node numbering (root N, EXTO N − 1, INTO 0; the "starts at 22, key 1 → 22" example),
//! and the bad-data rules: a mount outside the root model, a root without a model, an
//! unresolved prototype, kind-0 records, an empty DAT, numbering overflow.

use crate::{
    AssemblyRule, Check, ComponentModel, ComponentRole, UnitAssembly, UnitDat, UnitDatError,
    UnitRecord, assemble,
};

const UNIT: &[u8] = b"UNITS/BUILDS/MINE/test.dat";

fn dat(records: &[(&str, i32)]) -> UnitDat {
    let mut d = UnitDat::new();
    for &(key, link) in records {
        d.records
            .push(UnitRecord::new(key.as_bytes(), link, b"part").expect("valid record"));
    }
    d
}

/// A prototype table: `mesh:N` keys resolve to a model of N nodes, `light` keys resolve
/// without geometry, anything else does not resolve.
fn answer(_record: usize, key: &[u8]) -> ComponentModel {
    let key = String::from_utf8_lossy(key);
    if let Some(n) = key.strip_prefix("mesh") {
        let node_count = n.trim_start_matches(|c: char| !c.is_ascii_digit());
        let node_count = node_count
            .split('_')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        return ComponentModel::Mesh {
            model: format!("models.rlb:{key}.msh"),
            node_count,
        };
    }
    if key.starts_with("light") {
        return ComponentModel::NonGeometric;
    }
    ComponentModel::Unresolved {
        cause: format!("no objects.rlb entry \"{key}\""),
    }
}

fn run(records: &[(&str, i32)]) -> UnitAssembly {
    assemble(UNIT, &dat(records), answer).expect("assembles")
}

#[test]
fn every_later_record_is_a_child_of_the_root_and_roles_follow_the_prototypes() {
    let a = run(&[("mesh3", 0), ("mesh4", 2), ("light", 1), ("mesh2_b", -1)]);
    assert_eq!(a.unit, UNIT);
    let parents: Vec<_> = a.components.iter().map(|c| c.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(0), Some(0)], "PD-UNIT-TREE");
    let roles: Vec<_> = a.components.iter().map(|c| c.role).collect();
    assert_eq!(
        roles,
        [
            ComponentRole::Root,
            ComponentRole::Exto { mount: Some(2) },
            ComponentRole::Into { local_index: 1 },
            ComponentRole::Exto { mount: Some(0) },
        ],
        "PD-UNIT-ROLE: model → EXTO at parent_or_link (-1 → node 0), none → INTO"
    );
    assert_eq!(a.components[1].key, b"mesh4");
    assert!(a.components[0].draws() && a.components[1].draws());
    assert!(!a.components[2].draws(), "INTO has no own model");
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
}

#[test]
fn global_nodes_number_root_n_exto_n_minus_1_into_none() {
    // Root of 3 nodes: globals 0..3; INTO: none; EXTO of 4: its nodes 1..3 → 3..6; a
    // one-node EXTO adds none; EXTO of 2: its node 1 → 6.
    let a = run(&[
        ("mesh3", 0),
        ("light", 0),
        ("mesh4", 1),
        ("mesh1", 0),
        ("mesh2", 2),
    ]);
    let firsts: Vec<_> = a.components.iter().map(|c| c.first_global_node).collect();
    assert_eq!(firsts, [Some(0), None, Some(3), None, Some(6)]);
    assert_eq!(a.global_node_count, 3 + 3 + 1);
    assert_eq!(a.global_node(0, 2), Some(2), "root nodes keep their number");
    assert_eq!(a.global_node(2, 0), Some(1), "EXTO node 0 is its mount C4");
    assert_eq!(a.global_mount(2), Some(1));
    assert_eq!(a.global_node(2, 1), Some(3));
    assert_eq!(a.global_node(2, 3), Some(5));
    assert_eq!(a.global_node(2, 4), None, "outside the model");
    assert_eq!(a.global_node(1, 0), None, "INTO has no nodes");
    assert_eq!(
        a.global_node(3, 0),
        Some(0),
        "one-node EXTO: only its mount"
    );
}

#[test]
fn the_spec_example_a_component_starting_at_global_node_22_maps_key_1_to_22() {
    // §13.14 / min_l_n1.dat shape: a 22-node root, four INTO overrides, one EXTO.
    let a = run(&[
        ("mesh22", -1),
        ("light_a", 0),
        ("light_b", 1),
        ("light_c", 2),
        ("light_d", 3),
        ("mesh5", 21),
    ]);
    assert_eq!(a.components[5].first_global_node, Some(22));
    assert_eq!(a.global_node(5, 1), Some(22), "key 1 → 22");
    assert_eq!(a.global_node(5, 0), Some(21), "key 0 → the mount C4");
    assert_eq!(a.global_node_count, 26);
    let intos = a
        .components
        .iter()
        .filter(|c| matches!(c.role, ComponentRole::Into { .. }))
        .count();
    assert_eq!(intos, 4);
}

#[test]
fn a_mount_outside_the_root_model_falls_back_to_the_object_transform_with_a_diagnostic() {
    for link in [3, 99, -2, i32::MIN] {
        let a = run(&[("mesh3", 0), ("mesh4_turret", link)]);
        let c = &a.components[1];
        assert_eq!(c.role, ComponentRole::Exto { mount: None }, "link {link}");
        assert_eq!(c.mount(), None);
        assert_eq!(a.global_mount(1), None);
        assert_eq!(
            c.first_global_node,
            Some(3),
            "nodes are numbered whatever the mount"
        );
        assert_eq!(a.diagnostics.len(), 1);
        let d = &a.diagnostics[0];
        assert_eq!((d.rule, d.record), (AssemblyRule::BadMount, 1));
        let text = d.to_string();
        for part in [
            "PD-UNIT-BAD-MOUNT",
            "UNITS/BUILDS/MINE/test.dat",
            "#1",
            "\"mesh4_turret\"",
            "models.rlb:mesh3.msh",
            &format!("mount node {link}"),
            "3 nodes",
            "object transform",
        ] {
            assert!(text.contains(part), "{part:?} in {text}");
        }
    }
}

#[test]
fn a_root_without_a_model_leaves_its_exto_children_unmounted() {
    let a = run(&[("light_root", 0), ("mesh2", 0)]);
    assert_eq!(a.components[0].role, ComponentRole::Root);
    assert_eq!(a.components[0].first_global_node, None);
    assert_eq!(a.components[1].role, ComponentRole::Exto { mount: None });
    assert_eq!(a.diagnostics[0].rule, AssemblyRule::BadMount);
    assert!(
        a.diagnostics[0].to_string().contains("no model"),
        "{}",
        a.diagnostics[0]
    );
    assert_eq!(a.diagnostics[0].file, None);
}

#[test]
fn an_unresolved_prototype_takes_no_nodes_and_is_reported() {
    let a = run(&[("mesh3", 0), ("missing_gun", 1), ("mesh2", 1)]);
    assert_eq!(a.components[1].role, ComponentRole::Unresolved);
    assert!(!a.components[1].draws());
    assert_eq!(a.components[1].first_global_node, None);
    assert_eq!(
        a.components[2].first_global_node,
        Some(3),
        "numbering continues"
    );
    let d = &a.diagnostics[0];
    assert_eq!((d.rule, d.record), (AssemblyRule::Unresolved, 1));
    let text = d.to_string();
    assert!(text.contains("PD-UNIT-UNRESOLVED") && text.contains("\"missing_gun\""));
    assert!(text.contains("no objects.rlb entry"), "{text}");
    // An unresolved root: no nodes, its children cannot mount.
    let a = run(&[("missing_hull", 0), ("mesh2", 0)]);
    assert_eq!(a.components[0].role, ComponentRole::Unresolved);
    let rules: Vec<_> = a.diagnostics.iter().map(|d| d.rule).collect();
    assert_eq!(rules, [AssemblyRule::Unresolved, AssemblyRule::BadMount]);
}

#[test]
fn kind_zero_children_are_skipped_and_a_kind_zero_root_is_an_error() {
    let mut d = dat(&[("mesh3", 0), ("mesh4", 1), ("mesh2", 2)]);
    d.records[1].kind = 0;
    let mut asked = Vec::new();
    let a = assemble(UNIT, &d, |i, k| {
        asked.push(i);
        answer(i, k)
    })
    .unwrap();
    assert_eq!(
        asked,
        [0, 2],
        "a skipped record's prototype is not resolved"
    );
    assert_eq!(a.components[1].role, ComponentRole::Skipped);
    assert_eq!(a.components[2].first_global_node, Some(3));
    assert_eq!(a.diagnostics[0].rule, AssemblyRule::SkippedKind0);
    d.records[0].kind = 0;
    let e = assemble(UNIT, &d, answer).unwrap_err();
    assert!(matches!(e, UnitDatError::UnitRootSkipped { .. }), "{e}");
    assert_eq!(
        (e.check(), e.record(), e.offset()),
        (Check::UnitRoot, Some(0), Some(0x48))
    );
    assert!(e.to_string().contains("test.dat") && e.to_string().contains("\"mesh3\""));
}

#[test]
fn a_dat_without_records_is_an_error_naming_the_unit() {
    let e = assemble(UNIT, &UnitDat::new(), answer).unwrap_err();
    assert!(matches!(e, UnitDatError::EmptyUnit { .. }));
    assert_eq!(e.check(), Check::UnitRecords);
    assert_eq!(
        e.to_string(),
        "[unit_records] unit UNITS/BUILDS/MINE/test.dat: expected at least one record to \
         assemble, found none"
    );
}

#[test]
fn a_node_total_past_u32_is_an_error_not_a_wrap() {
    let d = dat(&[("big", 0), ("big2", 0)]);
    let e = assemble(UNIT, &d, |_, _| ComponentModel::Mesh {
        model: "m".into(),
        node_count: u32::MAX,
    })
    .unwrap_err();
    assert!(
        matches!(e, UnitDatError::NodeNumberingOverflow { record: 1, .. }),
        "{e}"
    );
    assert_eq!(e.check(), Check::NodeNumbering);
}
