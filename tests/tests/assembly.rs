//! Unit assembly end to end through the `iron3d` command on the generated demo: the
//! strict graph has no assembly diagnostics; a unit DAT whose turret mount is outside the
//! root model still graphs and loads, with one PD-UNIT-BAD-MOUNT diagnostic naming the
//! unit, the component and the model file.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::iron3d;
use iron3d_unitdat::UnitDat;
use std::path::Path;
use std::process::ExitCode;

fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 5, iron3d_demo::Profile::Demo).unwrap();
    dir
}

fn graph_json(game: &Path) -> serde_json::Value {
    let (code, out) = iron3d(&[
        "graph",
        game.to_str().unwrap(),
        "--mission",
        "DEMO1",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn the_demo_units_assemble_without_diagnostics() {
    let dir = demo();
    let g = graph_json(dir.path());
    assert_eq!(g["failures"], 0, "{g:#}");
    assert_eq!(g["diagnostics"], serde_json::json!([]));
}

#[test]
fn a_bad_mount_graphs_and_loads_with_one_named_diagnostic() {
    let dir = demo();
    let path = dir.path().join("UNITS/Tank.dat");
    let mut dat = UnitDat::parse(&std::fs::read(&path).unwrap()).unwrap();
    dat.records[1].parent_or_link = 42;
    std::fs::write(&path, dat.to_bytes()).unwrap();
    let g = graph_json(dir.path());
    assert_eq!(g["failures"], 0, "a bad mount is a fallback: {g:#}");
    let diagnostics: Vec<&str> = g["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    for part in [
        "PD-UNIT-BAD-MOUNT",
        "Tank.dat",
        "#1 \"turret_proto\"",
        "models.rlb:tank.msh",
        "mount node 42",
        "object transform",
    ] {
        assert!(
            diagnostics[0].contains(part),
            "{part:?} in {}",
            diagnostics[0]
        );
    }
    let (code, out) = iron3d(&[
        "run",
        "--headless",
        "--ticks",
        "3",
        "--game-dir",
        dir.path().to_str().unwrap(),
        "--mission",
        "DEMO1",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
}
