//! The embedded default end to end: `iron3d demo build` writes a game directory whose
//! missions inspect, graph with no failure and load into the kernel.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{iron3d, last_state_hash};
use std::process::ExitCode;

/// Runs `iron3d demo build` into `<tempdir>/game` with `extra` arguments; the tempdir
/// lives as long as the returned guard.
fn build_demo(extra: &[&str]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    let mut args = vec!["demo", "build", "--out", game.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, out) = iron3d(&args);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    (dir, game)
}

#[test]
fn demo_content_is_complete_and_playable() {
    let (_dir, out_dir) = build_demo(&["--seed", "3"]);
    let manifest = iron3d_demo::Manifest::read(&out_dir).unwrap();
    assert!(manifest.missions.len() >= 2, "{:?}", manifest.missions);
    for m in &manifest.missions {
        let (code, out) = iron3d(&["graph", out_dir.to_str().unwrap(), "--mission", m, "--json"]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["failures"], 0, "mission {m}: {v}");
        assert!(v["objects"].as_u64().unwrap() > 0);
        let (code, out) = iron3d(&[
            "run",
            "--headless",
            "--ticks",
            "20",
            "--game-dir",
            out_dir.to_str().unwrap(),
            "--mission",
            m,
        ]);
        assert_eq!(code, ExitCode::SUCCESS, "{out}");
        assert!(!out.contains("host: terrain could not load"), "{out}");
        last_state_hash(&out);
    }
}

fn corpus(dir: &std::path::Path) -> (ExitCode, serde_json::Value) {
    let (code, out) = iron3d(&["corpus", dir.to_str().unwrap(), "--json", "--roundtrip"]);
    (
        code,
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}")),
    )
}

/// Every family in `expect` has exactly that many items, all parsed and rewritten
/// byte-identically, no other family appears and no file is left unclassified.
fn assert_families(v: &serde_json::Value, expect: &[(&str, u64)]) {
    let got: Vec<&String> = v["families"].as_object().unwrap().keys().collect();
    let want: Vec<&str> = expect.iter().map(|e| e.0).collect();
    assert_eq!(got, want, "{v:#}");
    assert_eq!(v["unclassified"], serde_json::json!([]), "{v:#}");
    for &(family, n) in expect {
        let f = &v["families"][family];
        assert_eq!(
            (
                f["items"].as_u64(),
                f["ok"].as_u64(),
                f["roundtrip_ok"].as_u64()
            ),
            (Some(n), Some(n), Some(n)),
            "{family}: {f}"
        );
    }
}

#[test]
fn corpus_harness_on_the_demo_profile_reports_exact_counts() {
    let (_dir, game) = build_demo(&[]);
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::SUCCESS, "{v:#}");
    assert_families(
        &v,
        &[
            ("bas", 1),
            ("builddat", 1),
            ("cfg_blocks", 6),
            ("comp_ini", 1),
            ("fxid", 3),
            ("ini", 3),
            ("land_map", 2),
            ("land_msh", 2),
            ("mat0", 12),
            ("msh", 7),
            ("nres", 8),
            ("objects_rlb_entry", 10),
            ("palette", 3),
            ("rsli", 4),
            ("swav", 4),
            ("texm", 31),
            ("tma", 2),
            ("unit_dat", 5),
            ("wear", 11),
        ],
    );
    for m in ["MISSIONS/DEMO1/data.tma", "MISSIONS/DEMO2/data.tma"] {
        assert_eq!(v["missions"][m]["failures"], 0, "{m}");
    }
    assert_eq!(
        v["families"]["texm"]["variants"],
        serde_json::json!({
            "Argb4444": 4, "Argb4444+page": 1, "Argb8888": 4, "Indexed8": 2,
            "La88": 3, "Rgb556": 2, "Rgb565": 12, "Rgb888x": 3
        })
    );
    assert_eq!(
        v["families"]["rsli"]["variants"],
        serde_json::json!({
            "method:Deflate": 3, "method:Lzhuf": 2, "method:Lzss": 2, "method:Raw": 2,
            "method:Transform": 1, "method:TransformLzss": 1
        })
    );
    assert_eq!(v["missions"]["MISSIONS/DEMO1/data.tma"]["objects"], 180);
    assert_eq!(v["missions"]["MISSIONS/DEMO2/data.tma"]["objects"], 120);
    // Deterministic report.
    assert_eq!(corpus(&game).1, v);
}

#[test]
fn corpus_harness_on_the_stress_profile_reports_exact_counts() {
    let (_dir, game) = build_demo(&["--profile", "stress"]);
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::SUCCESS, "{v:#}");
    assert_families(
        &v,
        &[
            ("bas", 1),
            ("builddat", 1),
            ("cfg_blocks", 3),
            ("comp_ini", 1),
            ("fxid", 3),
            ("ini", 3),
            ("land_map", 1),
            ("land_msh", 1),
            ("mat0", 12),
            ("msh", 7),
            ("nres", 8),
            ("objects_rlb_entry", 10),
            ("palette", 3),
            ("rsli", 4),
            ("swav", 4),
            ("texm", 30),
            ("tma", 1),
            ("unit_dat", 5),
            ("wear", 9),
        ],
    );
    let m = &v["missions"]["MISSIONS/STRESS/data.tma"];
    assert_eq!(m["failures"], 0, "{m}");
    assert_eq!(m["objects"], 10_000, "{m}");
    assert_eq!(v["missions"].as_object().unwrap().len(), 1);
}

/// Every mission's failure chains, in report order.
fn mission_failures(v: &serde_json::Value) -> Vec<String> {
    v["missions"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|m| {
            m["failures_detail"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn corpus_harness_negative_controls_report_exactly_the_broken_chain() {
    let (_dir, game) = build_demo(&[]);

    // 1. Delete one referenced texture from Textures.lib.
    let tex = game.join("Textures.lib");
    let bytes = std::fs::read(&tex).unwrap();
    let mut doc = iron3d_nres::NresDocument::from_bytes(&bytes)
        .unwrap()
        .into_owned();
    // STEEL0 is phase 0 of STEEL, which WEAR tables of several models reference.
    let removed = "STEEL0".to_owned();
    let idx = doc.find(removed.as_bytes()).unwrap();
    doc.remove_entry(idx).unwrap();
    std::fs::write(&tex, doc.to_bytes()).unwrap();
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::FAILURE);
    let details = mission_failures(&v);
    assert!(!details.is_empty());
    assert!(
        details.iter().all(
            |d| d.contains(&format!("entry: {removed}")) && d.contains("archive: Textures.lib")
        ),
        "{details:#?}"
    );
    std::fs::write(&tex, &bytes).unwrap();

    // 2. Corrupt one MSH inside models.rlb (flip the node-stream stride).
    let models = game.join("models.rlb");
    let mbytes = std::fs::read(&models).unwrap();
    let n = iron3d_nres::Nres::parse(&mbytes).unwrap();
    let e = n.entries().find(|e| e.name().ends_with(b".msh")).unwrap();
    let msh_name = String::from_utf8_lossy(e.name()).into_owned();
    let mut corrupt = e.data().to_vec();
    let inner = iron3d_nres::Nres::parse(&corrupt).unwrap();
    let first = inner.entries().next().unwrap();
    let dir_off = inner.directory_offset() as usize;
    let at = dir_off + first.index() * 64 + 0x10; // attr3 = stride of the first stream
    let _ = first;
    corrupt[at] ^= 0x01;
    let mut doc = iron3d_nres::NresDocument::from_bytes(&mbytes)
        .unwrap()
        .into_owned();
    let idx = doc.find(msh_name.as_bytes()).unwrap();
    doc.replace_payload(idx, &corrupt).unwrap();
    std::fs::write(&models, doc.to_bytes()).unwrap();
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::FAILURE);
    let errors = v["families"]["msh"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with(&format!("models.rlb:{msh_name}")),
        "{errors:?}"
    );
    std::fs::write(&models, &mbytes).unwrap();

    // 3. Break one inheritance link in objects.rlb (a parent reference to a missing key).
    let objects = game.join("objects.rlb");
    let obytes = std::fs::read(&objects).unwrap();
    let mut doc = iron3d_nres::NresDocument::from_bytes(&obytes)
        .unwrap()
        .into_owned();
    let victim = (0..doc.len())
        .find(|&i| {
            let refs = iron3d_unitdat::ObjectRefList::parse(doc.payload(i).unwrap()).unwrap();
            refs.refs.iter().any(|r| r.is_parent())
        })
        .unwrap();
    let victim_name = String::from_utf8_lossy(doc.records()[victim].name()).into_owned();
    let mut list = iron3d_unitdat::ObjectRefList::new();
    list.push_parent(b"no_such_parent").unwrap();
    doc.replace_payload(victim, &list.to_bytes()).unwrap();
    std::fs::write(&objects, doc.to_bytes()).unwrap();
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::FAILURE);
    let details = mission_failures(&v);
    assert!(!details.is_empty());
    assert!(
        details
            .iter()
            .all(|d| d.contains(&victim_name) && d.contains("no_such_parent")),
        "{details:#?}"
    );
}
