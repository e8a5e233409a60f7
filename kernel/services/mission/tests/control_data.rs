//! The Control files of unit components in the mission graph, on the generated demo and
//! on damaged copies of it: the demo's `tank.ctl` / `tank.cpt` / `turret.cpt` are
//! found, parsed and kept; a file that does not parse fails the load with a chain
//! naming the unit, the component and the file (and the byte offset); a missing file,
//! a second reference of one kind and a pose row naming a node the model lacks are the
//! diagnostics of PD-CTRL-DATA-MISSING, PD-CTRL-DATA-EXTRA and PD-CTRL-ROW-NODE.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::result_large_err,
    reason = "the crate's MissionError is its actionable chain, returned as is"
)]

mod common;

use common::{demo, game_files, graph, load};
use iron3d_aux::{ControlRow, Ctld};
use iron3d_mission::{GraphReport, Stage};
use iron3d_nres::{NewEntry, NresDocument, TypeTag};
use iron3d_unitdat::ObjectRefList;
use std::path::Path;

/// Edits the NRes archive `name` at the game root.
fn edit_archive(root: &Path, name: &str, edit: impl FnOnce(&mut NresDocument<'_>)) {
    let path = root.join(name);
    let bytes = std::fs::read(&path).unwrap();
    let mut doc = NresDocument::from_bytes(&bytes).unwrap();
    edit(&mut doc);
    let out = doc.to_bytes();
    std::fs::write(&path, out).unwrap();
}

fn replace_entry(root: &Path, archive: &str, entry: &str, payload: &[u8]) {
    edit_archive(root, archive, |d| {
        let i = d.find(entry.as_bytes()).unwrap();
        d.replace_payload(i, payload).unwrap();
    });
}

/// Rewrites the `objects.rlb` prototype `key`'s reference list.
fn edit_prototype(root: &Path, key: &str, edit: impl FnOnce(&mut ObjectRefList)) {
    edit_archive(root, "objects.rlb", |d| {
        let i = d.find(key.as_bytes()).unwrap();
        let mut refs = ObjectRefList::parse(d.payload(i).unwrap()).unwrap();
        edit(&mut refs);
        d.replace_payload(i, &refs.to_bytes()).unwrap();
    });
}

fn diagnostic<'a>(g: &'a GraphReport, rule: &str) -> &'a str {
    g.diagnostics
        .iter()
        .find(|d| d.contains(rule))
        .unwrap_or_else(|| panic!("no {rule} in {:?}", g.diagnostics))
}

#[test]
fn the_demo_vehicles_control_files_are_found_parsed_and_kept() {
    let dir = demo();
    let loaded = load(dir.path()).expect("the demo loads");
    let g = &loaded.graph;
    assert!(g.failures.is_empty(), "{:?}", g.failures);
    assert!(
        !g.diagnostics.iter().any(|d| d.contains("PD-CTRL-")),
        "{:?}",
        g.diagnostics
    );
    let tank = g
        .control_data(b"TANK_PROTO")
        .expect("tank_proto has Control data");
    let table = tank.table.as_ref().unwrap();
    assert_eq!(
        (table.archive.as_slice(), table.name.as_slice()),
        (b"models.rlb".as_slice(), b"tank.ctl".as_slice())
    );
    assert_eq!(table.data.rows().len(), 3);
    assert_eq!(table.data.rows()[1].node_id, 1, "the turret mount");
    assert_eq!(table.data.tail().len(), 21 * 4, "21 group references");
    let names: Vec<&[u8]> = tank
        .points
        .as_ref()
        .unwrap()
        .data
        .points
        .iter()
        .map(|p| p.name())
        .collect();
    assert_eq!(
        names,
        [
            b"Root".as_slice(),
            b"CameraCenter".as_slice(),
            b"TurretCenter".as_slice()
        ]
    );
    assert!(tank.providers.is_none(), "the demo writes no NDP");
    let turret = g.control_data(b"turret_proto").unwrap();
    assert!(turret.table.is_none());
    assert_eq!(turret.points.as_ref().unwrap().data.points.len(), 2);
    // Every reaching request counts (tank units: one table and one point list each,
    // plus the turret's point list).
    assert!(g.counts.control_tables > 0, "{:?}", g.counts);
    assert!(g.counts.control_points > g.counts.control_tables);
    assert_eq!(g.counts.provider_tables, 0);
    // Lossless: the kept table writes back the file.
    let files = game_files(dir.path());
    let raw = files.data().entry(b"models.rlb", b"tank.ctl").unwrap();
    assert_eq!(table.data.to_bytes(), raw.to_vec());
}

#[test]
fn a_truncated_control_table_fails_the_load_with_unit_component_file_and_offset() {
    let dir = demo();
    let bytes = game_files(dir.path())
        .data()
        .entry(b"models.rlb", b"tank.ctl")
        .unwrap()
        .to_vec();
    // Cut the last pose row in half: the rows no longer fit.
    let rows_end = 128 + 3 * 36;
    replace_entry(
        dir.path(),
        "models.rlb",
        "tank.ctl",
        &bytes[..rows_end - 18],
    );
    let e = load(dir.path()).unwrap_err();
    assert_eq!(e.stage, Some(Stage::ResourcePreparation));
    assert_eq!(e.resource.as_deref(), Some("UNITS\\\\Tank.dat"));
    assert_eq!(e.component.as_deref(), Some("tank_proto"));
    assert_eq!(e.archive.as_deref(), Some("models.rlb"));
    assert_eq!(e.entry.as_deref(), Some("tank.ctl"));
    assert!(
        e.prototype
            .as_deref()
            .unwrap()
            .contains("tank_proto -> control table models.rlb:tank.ctl"),
        "{e:?}"
    );
    assert!(e.cause.contains("CTLD"), "{e}");
    assert_eq!(
        e.offset,
        Some(128),
        "the row table, checked whole before any row"
    );
    assert!(e.object.is_some());
    let text = e.to_string();
    assert!(
        text.contains("Tank.dat") && text.contains("tank.ctl"),
        "{text}"
    );
}

#[test]
fn control_points_with_a_non_finite_float_fail_with_the_turret_chain() {
    let dir = demo();
    let mut bytes = game_files(dir.path())
        .data()
        .entry(b"models.rlb", b"turret.cpt")
        .unwrap()
        .to_vec();
    // Point 1, vec_a.x (+0x0C of the second Point36 after the count).
    let at = 4 + 36 + 0x0C;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    replace_entry(dir.path(), "models.rlb", "turret.cpt", &bytes);
    let g = graph(dir.path());
    let e = g
        .failures
        .iter()
        .find(|e| e.entry.as_deref() == Some("turret.cpt"))
        .unwrap_or_else(|| panic!("{:?}", g.failures));
    assert_eq!(e.component.as_deref(), Some("turret_proto"));
    assert!(e.cause.contains("CTPT"), "{e}");
    assert!(e.offset.is_some());
    // Every object built with the turret is named: the tanks and the towers.
    let units: std::collections::BTreeSet<_> = g
        .failures
        .iter()
        .filter(|e| e.entry.as_deref() == Some("turret.cpt"))
        .filter_map(|e| e.resource.clone())
        .collect();
    assert!(
        units.contains("UNITS\\\\Tank.dat") && units.contains("UNITS\\\\Tower.dat"),
        "{units:?}"
    );
    assert!(g.control_data(b"turret_proto").is_none(), "nothing kept");
    assert!(load(dir.path()).is_err());
}

#[test]
fn an_empty_provider_table_fails_and_a_non_empty_one_is_kept_raw() {
    let dir = demo();
    edit_prototype(dir.path(), "tank_proto", |r| {
        r.push(b"models.rlb", b"tank.ndp").unwrap();
    });
    edit_archive(dir.path(), "models.rlb", |d| {
        d.add_entry(NewEntry::new(b"tank.ndp", TypeTag::NDPR.value(), Vec::new()).unwrap())
            .unwrap();
    });
    let e = load(dir.path()).unwrap_err();
    assert_eq!(e.entry.as_deref(), Some("tank.ndp"));
    assert_eq!(e.component.as_deref(), Some("tank_proto"));
    assert!(
        e.prototype.as_deref().unwrap().contains("provider rows"),
        "{e:?}"
    );
    let raw = [7u8, 0, 0, 0, 1, 2, 3, 4];
    replace_entry(dir.path(), "models.rlb", "tank.ndp", &raw);
    let loaded = load(dir.path()).expect("a non-empty NDP loads");
    let ndp = loaded
        .graph
        .control_data(b"tank_proto")
        .and_then(|c| c.providers.as_ref())
        .unwrap();
    assert_eq!(ndp.data.raw(), raw);
    assert!(loaded.graph.counts.provider_tables > 0);
}

#[test]
fn missing_extra_and_out_of_model_rows_are_diagnostics_and_the_mission_loads() {
    let dir = demo();
    // tank.cpt gone from the archive; a second .ctl reference; a row for node 9.
    edit_archive(dir.path(), "models.rlb", |d| {
        let i = d.find(b"tank.cpt").unwrap();
        d.remove_entry(i).unwrap();
    });
    edit_prototype(dir.path(), "tank_proto", |r| {
        r.push(b"models.rlb", b"other.ctl").unwrap();
    });
    let rows = vec![
        ControlRow::new(0, 0.0, 0.0, 0.0, 0),
        ControlRow::new(9, 0.0, 1.0, 0.5, 0),
    ];
    let table = Ctld::new(rows, 0, 0, vec![0xFF; 84]).unwrap();
    replace_entry(dir.path(), "models.rlb", "tank.ctl", &table.to_bytes());
    let loaded = load(dir.path()).expect("diagnostics never fail the load");
    let g = &loaded.graph;
    let missing = diagnostic(g, "PD-CTRL-DATA-MISSING");
    assert!(
        missing.contains("tank_proto") && missing.contains("models.rlb:tank.cpt"),
        "{missing}"
    );
    let extra = diagnostic(g, "PD-CTRL-DATA-EXTRA");
    assert!(extra.contains("other.ctl"), "{extra}");
    let row = diagnostic(g, "PD-CTRL-ROW-NODE");
    assert!(
        row.contains("row 1 names node 9") && row.contains("tank.msh"),
        "{row}"
    );
    // Reported once per prototype, however many tanks the mission holds.
    assert_eq!(
        g.diagnostics
            .iter()
            .filter(|d| d.contains("PD-CTRL-ROW-NODE"))
            .count(),
        1
    );
    let tank = g.control_data(b"tank_proto").unwrap();
    assert!(tank.points.is_none());
    assert_eq!(tank.table.as_ref().unwrap().data.rows().len(), 2, "kept");
}
