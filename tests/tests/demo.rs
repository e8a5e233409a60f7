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
        // The project's text files are parsed, never rewritten.
        let rewritten = if ["objectives", "orders"].contains(&family) {
            0
        } else {
            n
        };
        assert_eq!(
            (
                f["items"].as_u64(),
                f["ok"].as_u64(),
                f["roundtrip_ok"].as_u64()
            ),
            (Some(n), Some(n), Some(rewritten)),
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
            ("cfg_blocks", 9),
            ("comp_ini", 1),
            ("ctld", 1),
            ("ctpt", 2),
            ("fxid", 7),
            ("ini", 4), // with the campaign, MISSIONS/dispatcher.ini
            ("land_map", 3),
            ("land_msh", 3),
            ("mat0", 14),
            ("msh", 7),
            ("nres", 9),
            ("objectives", 1),
            ("objects_rlb_entry", 10),
            ("orders", 1),
            ("palette", 3),
            ("rsli", 5),
            ("scr", 2),
            ("swav", 15),
            ("texm", 35),
            ("tma", 3),
            ("unit_dat", 8),
            ("varset", 2),
            ("wear", 13),
        ],
    );
    for m in [
        "MISSIONS/BATTLE/data.tma",
        "MISSIONS/DEMO1/data.tma",
        "MISSIONS/DEMO2/data.tma",
    ] {
        assert_eq!(v["missions"][m]["failures"], 0, "{m}");
    }
    assert_eq!(
        v["families"]["texm"]["variants"],
        serde_json::json!({
            "Argb4444": 4, "Argb4444+page": 1, "Argb8888": 5, "Indexed8": 2,
            "La88": 3, "Rgb556": 2, "Rgb565": 14, "Rgb888x": 4
        })
    );
    assert_eq!(
        v["families"]["rsli"]["variants"],
        serde_json::json!({
            "method:Deflate": 11, "method:Lzhuf": 3, "method:Lzss": 3, "method:Raw": 7,
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
            ("ctld", 1),
            ("ctpt", 2),
            ("fxid", 7),
            ("ini", 3),
            ("land_map", 1),
            ("land_msh", 1),
            ("mat0", 14),
            ("msh", 7),
            ("nres", 9),
            ("objects_rlb_entry", 10),
            ("palette", 3),
            ("rsli", 5),
            ("swav", 15),
            ("texm", 33),
            ("tma", 1),
            ("unit_dat", 8),
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

/// The `type_id` FORMATS §1.7 gives an entry of a top-level archive of the demo, written
/// out here independently of the generator's table: `MESH` models, `WEAR` tables, `MAT0`
/// materials, `Texm` textures and lightmaps, `BASE` for `.bas`, `CTLD` for `.ctl` and
/// `CTPT` for `.cpt` (PD-TAG-AUX), 0 for
/// prototypes and palettes (PD-TAG-UNTYPED).
fn expected_tag(archive: &str, entry: &str) -> u32 {
    let entry = entry.to_ascii_lowercase();
    match archive.to_ascii_lowercase().as_str() {
        "models.rlb" | "buildings.rlb" if entry.ends_with(".msh") => 0x4853_454D,
        "models.rlb" | "buildings.rlb" if entry.ends_with(".wea") => 0x5241_4557,
        "system.rlb" if entry.ends_with(".bas") => 0x4553_4142,
        "models.rlb" if entry.ends_with(".ctl") => 0x444C_5443,
        "models.rlb" if entry.ends_with(".cpt") => 0x5450_5443,
        "material.lib" => 0x3054_414D,
        "textures.lib" | "lightmap.lib" => 0x6D78_6554,
        "objects.rlb" | "palettes.lib" => 0,
        other => panic!("unexpected archive {other} (entry {entry}): extend this table"),
    }
}

#[test]
fn every_nres_entry_of_the_demo_carries_its_familys_tag() {
    for profile in ["demo", "stress"] {
        let (_dir, game) = build_demo(&["--profile", profile]);
        let mut checked = 0;
        for entry in std::fs::read_dir(&game).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if !bytes.starts_with(b"NRes") {
                continue;
            }
            let nres = iron3d_nres::Nres::parse(&bytes).unwrap();
            for e in nres.entries() {
                let ename = String::from_utf8_lossy(e.name());
                assert_eq!(
                    e.type_id(),
                    expected_tag(&name, &ename),
                    "{profile}: {name}:{ename} has {:#x}",
                    e.type_id()
                );
                checked += 1;
            }
        }
        assert!(checked >= 60, "{profile}: only {checked} entries checked");
        let (code, v) = corpus(&game);
        assert_eq!(code, ExitCode::SUCCESS, "{v:#}");
        assert_eq!(v["tag_mismatches"], serde_json::json!([]), "{profile}");
        let tags = &v["nres_tags"];
        for t in ["MESH", "WEAR", "MAT0", "Texm", "BASE"] {
            assert!(tags[t].as_u64().unwrap() > 0, "{profile}: {tags}");
        }
    }
}

/// `graph --json` of `mission` with extra arguments.
fn graph(game: &std::path::Path, mission: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "graph",
        game.to_str().unwrap(),
        "--mission",
        mission,
        "--json",
    ];
    args.extend_from_slice(extra);
    let (code, out) = iron3d(&args);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn the_demo_graphs_equally_with_the_strict_and_the_compatible_profile() {
    let (_dir, game) = build_demo(&[]);
    for m in ["DEMO1", "DEMO2"] {
        let strict = graph(&game, m, &[]);
        let compat = graph(&game, m, &["--compatible"]);
        assert_eq!(strict["failures"], 0, "{strict:#}");
        assert_eq!(strict, compat, "{m}: the profiles differ");
        assert_eq!(strict["diagnostics"], serde_json::json!([]));
        assert!(strict["material_slots"].as_u64().unwrap() > 0);
    }
}

#[test]
fn untagged_entries_fail_strictly_are_diagnosed_compatibly_and_mesh_relaxes() {
    let (_dir, game) = build_demo(&[]);
    // Reset the tags of buildings.rlb to 0, as generator version 5 wrote them.
    let path = game.join("buildings.rlb");
    let bytes = std::fs::read(&path).unwrap();
    let mut doc = iron3d_nres::NresDocument::from_bytes(&bytes).unwrap();
    for i in 0..doc.len() {
        doc.set_type_id(i, 0).unwrap();
    }
    std::fs::write(&path, doc.to_bytes()).unwrap();

    let tagged = graph(&game, "DEMO1", &["--compatible"]);
    assert_eq!(tagged["failures"], 0, "{tagged:#}");
    let diagnostics = tagged["diagnostics"].as_array().unwrap();
    assert!(
        diagnostics.iter().any(|d| d.as_str().unwrap().contains(
            "quirk wrong_type_tag applied: [type_id] entry #3 \"tower.wea\": expected WEAR (0x52414557), found 0x0"
        )),
        "{diagnostics:#?}"
    );

    let strict = graph(&game, "DEMO1", &[]);
    assert!(strict["failures"].as_u64().unwrap() > 0);
    let causes: Vec<&str> = strict["failures_detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert!(
        causes.iter().any(|c| c
            .ends_with("[type_id] entry #3 \"tower.wea\": expected WEAR (0x52414557), found 0x0")),
        "{causes:#?}"
    );
    assert!(
        causes
            .iter()
            .any(|c| c.contains("expected MESH (0x4853454D), found 0x0")),
        "{causes:#?}"
    );
    // Relaxing PD-TAG-MESH removes exactly the model failures; WEAR stays checked.
    let relaxed = graph(&game, "DEMO1", &["--relax-mesh-tag"]);
    let relaxed_causes: Vec<&str> = relaxed["failures_detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["cause"].as_str().unwrap())
        .collect();
    assert!(relaxed_causes.iter().all(|c| !c.contains("expected MESH")));
    assert!(relaxed_causes.iter().any(|c| c.contains("expected WEAR")));
    assert!(relaxed["failures"].as_u64() < strict["failures"].as_u64());

    // The corpus reports the disagreement of extension and tag.
    let (code, v) = corpus(&game);
    assert_eq!(code, ExitCode::FAILURE);
    let mismatches = v["tag_mismatches"].as_array().unwrap();
    assert!(
        mismatches
            .iter()
            .any(|m| m["entry"] == "buildings.rlb:tower.wea"
                && m["family"] == "WEAR"
                && m["found"] == "0x0"),
        "{mismatches:#?}"
    );
}

/// File-system work of one mission load: (archive mappings, path canonicalisations,
/// replacement stats, VFS file checks), with the object count.
fn load_costs(profile: iron3d_demo::Profile, mission: &str) -> ([u64; 4], usize) {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 7, profile).unwrap();
    let vfs = iron3d_vfs::Vfs::new(dir.path());
    let cache = iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 256 << 20);
    let data = iron3d_mission::GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let mut kernel = iron3d_kernel::Kernel::new(
        iron3d_kernel::KernelConfig::default(),
        Box::new(iron3d_kernel::ManualTimeSource::new()),
    )
    .unwrap();
    let loaded = iron3d_mission::load_mission(&mut kernel, &data, mission, None).unwrap();
    let c = cache.stats();
    let v = vfs.stats();
    (
        [c.maps, c.canonicalisations, c.stamp_checks, v.file_checks],
        loaded.objects.len(),
    )
}

#[test]
fn a_mission_load_touches_each_archive_a_few_times_whatever_the_object_count() {
    let (small, n_small) = load_costs(iron3d_demo::Profile::Demo, "DEMO1");
    let (large, n_large) = load_costs(iron3d_demo::Profile::Stress, "STRESS");
    assert_eq!((n_small, n_large), (180, 10_000));
    // The archives a mission load reads: objects.rlb, models.rlb, buildings.rlb,
    // system.rlb, Material.lib, Textures.lib.
    let archives = 6;
    for (what, costs) in [("DEMO1", small), ("STRESS", large)] {
        let [maps, canon, stamps, file_checks] = costs;
        assert!(maps <= archives, "{what}: {maps} mappings");
        assert!(canon <= archives, "{what}: {canon} canonicalisations");
        assert!(stamps <= archives, "{what}: {stamps} replacement checks");
        // Distinct files resolved: the archives, the mission's files, the unit DATs.
        assert!(file_checks <= 20, "{what}: {file_checks} file checks");
    }
    assert_eq!(
        small[..3],
        large[..3],
        "archive work does not grow with the object count"
    );
}
