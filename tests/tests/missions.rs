//! Missions end to end on a generated game directory: `mission inspect`, `graph`, the
//! staged transactional load (a failing mission leaves the previous one live) and
//! `iron3d run --game-dir --mission`.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::{gamedir, iron3d, last_state_hash};
use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use iron3d_mission::{GameData, Stage, load_mission};
use iron3d_vfs::{ArchiveCache, ReadMode, Vfs};
use std::process::ExitCode;

fn game() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    gamedir::write(dir.path());
    dir
}

#[test]
fn inspect_prints_paths_clans_objects_and_properties_as_json() {
    let g = game();
    for name in ["M1", "MISSIONS/M1/data.tma", r"missions\m1\DATA.TMA"] {
        let (code, out) = iron3d(&[
            "mission",
            "inspect",
            g.path().to_str().unwrap(),
            name,
            "--json",
        ]);
        assert_eq!(code, ExitCode::SUCCESS, "{name}: {out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["paths"][0]["id"], 7);
        assert_eq!(
            v["paths"][0]["points"][1],
            serde_json::json!([10.0, 5.0, 0.0])
        );
        assert_eq!(v["clans"][0]["name"], "Игрок", "CP1251 decoded");
        assert_eq!(
            v["clans"][0]["relations"][0],
            serde_json::json!({"name": "Враг", "value": -1})
        );
        assert_eq!(v["objects"].as_array().unwrap().len(), 4);
        assert_eq!(v["objects"][2]["resource"], "tower");
        assert_eq!(
            v["objects"][2]["position"],
            serde_json::json!([5.0, 5.0, 0.0])
        );
        let props = v["objects"][0]["properties"].as_array().unwrap();
        assert_eq!(props.len(), 3, "duplicates kept");
        assert_eq!(
            props[2],
            serde_json::json!({"name": "Life state", "raw": [0, 9, 0, 0]})
        );
        assert_eq!(v["land_path"], "MISSIONS\\M1\\Land");
        assert!(v["extras"].as_array().unwrap().is_empty());
    }
    let (code, _) = iron3d(&["mission", "inspect", g.path().to_str().unwrap(), "NOPE"]);
    assert_eq!(code, ExitCode::FAILURE);
}

#[test]
fn graph_counts_and_failure_chains() {
    let g = game();
    let (code, out) = iron3d(&[
        "graph",
        g.path().to_str().unwrap(),
        "--mission",
        "M1",
        "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let get = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(get("objects"), 4);
    assert_eq!(get("unit_refs"), 2);
    assert_eq!(get("components"), 4);
    assert_eq!(get("prototype_requests"), 6);
    assert_eq!(get("msh"), 5, "sun is non-geometric, not broken");
    assert_eq!(get("wear"), 5);
    // 2 tank objects × (chassis: STEEL + GLASS, tower: CONCRETE) + 1 tower object.
    assert_eq!(get("material_slots"), 7);
    // STEEL has 2 textured phases, GLASS none (untextured), CONCRETE 1.
    assert_eq!(get("texture_requests"), 7);
    // chassis.wea 1 + tower.wea 2 (one missing: slot -1, not a failure), per use.
    assert_eq!(get("lightmaps"), 8);
    assert_eq!(get("failures"), 0);

    let (_, out) = iron3d(&[
        "graph",
        g.path().to_str().unwrap(),
        "--mission",
        "M2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failures"], 1);
    let f = &v["failures_detail"][0];
    assert_eq!(f["object"], 1);
    assert_eq!(f["resource_name"], "ghost");
    assert!(f["cause"].as_str().unwrap().contains("ghost.msh"), "{f}");

    let (_, out) = iron3d(&[
        "graph",
        g.path().to_str().unwrap(),
        "--mission",
        "M3",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failures"], 1, "{v}");
    let f = &v["failures_detail"][0];
    assert_eq!(
        (f["archive"].as_str(), f["entry"].as_str()),
        (Some("Textures.lib"), Some("NOSUCHTEX")),
        "{f}"
    );
    assert!(f["prototype"].as_str().unwrap().contains("pale.wea"), "{f}");

    // Archive health without a mission: broken prototypes are reported on their own.
    let (_, out) = iron3d(&["graph", g.path().to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["prototype_requests"], 6);
    assert_eq!(v["failures"], 2);
    let entries: Vec<&str> = v["failures_detail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["entry"].as_str().unwrap())
        .collect();
    assert_eq!(entries, vec!["ghost", "NOSUCHTEX"]);
}

#[test]
fn a_mission_with_one_missing_texture_fails_before_registration_with_the_full_chain() {
    let g = game();
    let vfs = Vfs::new(g.path());
    let cache = ArchiveCache::new(ReadMode::Strict, 1 << 24);
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let mut k = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    let m1 = load_mission(&mut k, &data, "M1", None).unwrap();
    let before = k.state_hash();
    let err = load_mission(&mut k, &data, "M3", Some(&m1)).unwrap_err();
    assert_eq!(err.stage, Some(Stage::ResourcePreparation));
    assert_eq!(err.mission, "M3");
    assert_eq!(err.object, Some(1));
    assert_eq!(err.resource.as_deref(), Some("pale"));
    assert_eq!(err.archive.as_deref(), Some("Textures.lib"));
    assert_eq!(err.entry.as_deref(), Some("NOSUCHTEX"));
    let text = err.to_string();
    for part in [
        "mission: M3",
        "object: 1",
        "resource_name: pale",
        "pale.msh",
        "pale.wea",
        "archive: Textures.lib",
        "entry: NOSUCHTEX",
        "texture missing (material PAINT)",
    ] {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
    assert_eq!(
        k.world().registered_count(),
        4,
        "M1 is still the live mission"
    );
    assert!(
        m1.objects
            .iter()
            .all(|&h| k.world().get(h).unwrap().is_registered())
    );
    assert_eq!(k.state_hash(), before);
}

#[test]
fn a_failing_mission_leaves_the_previous_one_live() {
    let g = game();
    let vfs = Vfs::new(g.path());
    let cache = ArchiveCache::new(ReadMode::Strict, 1 << 24);
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let mut k = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    let m1 = load_mission(&mut k, &data, "M1", None).unwrap();
    assert_eq!(m1.objects.len(), 4);
    assert_eq!(k.world().registered_count(), 4);
    k.step(&[]).unwrap();
    let hash = k.state_hash();
    let obj = k.world().get(m1.objects[1]).unwrap();
    assert_eq!(obj.transform.position, glam::Vec3::new(10.0, 0.0, 0.0));
    assert_eq!(obj.props.first(b"Life state").unwrap().raw_value[1], 5);

    let err = load_mission(&mut k, &data, "M2", Some(&m1)).unwrap_err();
    assert_eq!(err.stage, Some(Stage::PrototypeResolution));
    assert_eq!(err.object, Some(1));
    assert_eq!(err.resource.as_deref(), Some("ghost"));
    assert!(err.prototype.as_deref().unwrap().contains("ghost"));
    let text = err.to_string();
    assert!(
        text.contains("mission: M2") && text.contains("cause:") && text.contains("ghost.msh"),
        "{text}"
    );
    // Nothing of M2 was published; M1 is still the live mission, untouched.
    assert_eq!(k.world().registered_count(), 4);
    assert!(
        m1.objects
            .iter()
            .all(|&h| k.world().get(h).unwrap().is_registered())
    );
    assert_eq!(k.state_hash(), hash);

    // A mission that loads replaces the previous one at registration.
    let again = load_mission(&mut k, &data, "M1", Some(&m1)).unwrap();
    assert_eq!(k.world().registered_count(), 4);
    assert!(m1.objects.iter().all(|&h| !k.world().contains(h)));
    assert!(again.objects.iter().all(|&h| k.world().contains(h)));
}

#[test]
fn missing_foundation_files_fail_in_their_stage() {
    let g = game();
    std::fs::remove_file(g.path().join("MISSIONS/M1/Land.map")).unwrap();
    let vfs = Vfs::new(g.path());
    let cache = ArchiveCache::new(ReadMode::Strict, 1 << 24);
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let mut k = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    let err = load_mission(&mut k, &data, "M1", None).unwrap_err();
    assert_eq!(err.stage, Some(iron3d_mission::Stage::WorldFoundation));
    assert!(err.to_string().contains("Land.map"), "{err}");
    assert_eq!(k.world().registered_count(), 0);
}

#[test]
fn run_loads_a_real_mission_into_the_kernel() {
    let g = game();
    let (code, out) = iron3d(&[
        "run",
        "--headless",
        "--ticks",
        "30",
        "--game-dir",
        g.path().to_str().unwrap(),
        "--mission",
        "M1",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(
        out.contains("mission=M1 objects=4 unit_refs=2 components=4 msh=5 wear=5"),
        "{out}"
    );
    last_state_hash(&out);
    let (code, _) = iron3d(&[
        "run",
        "--headless",
        "--ticks",
        "30",
        "--game-dir",
        g.path().to_str().unwrap(),
        "--mission",
        "M2",
    ]);
    assert_eq!(code, ExitCode::FAILURE);
}

#[test]
fn the_terrain_plugin_loads_the_missions_land_files() {
    let g = game();
    let (code, out) = iron3d(&[
        "run",
        "--headless",
        "--ticks",
        "5",
        "--game-dir",
        g.path().to_str().unwrap(),
        "--mission",
        "M1",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(out.contains("plugin slot=terrain iron3d-terrain "), "{out}");
    assert!(!out.contains("host: terrain could not load"), "{out}");
    // The built-in scenario has no mission directory: the plugin loads and says "no map" when asked.
    let (code, out) = iron3d(&["run", "--headless", "--ticks", "5"]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(out.contains("plugin slot=terrain iron3d-terrain "), "{out}");
}

#[test]
fn generated_land_files_answer_terrain_queries() {
    let (msh, map) = gamedir::terrain();
    let world = iron3d_terrain::World::from_bytes(&msh, &map).unwrap();
    let h = world.surface.height_at(10.0, 20.0).unwrap();
    assert!((h - 1.0).abs() < 1e-4, "z = 0.1·x at x = 10: {h}");
    let a = world.areals.area_at(8.0, 8.0).unwrap();
    let b = world.areals.area_at(56.0, 56.0).unwrap();
    let route = world.areals.route(a, b).unwrap();
    assert_eq!(route.first(), Some(&a));
    assert_eq!(route.last(), Some(&b));
    assert_eq!(
        route.len(),
        7,
        "Manhattan path across a 4×4 grid of squares: {route:?}"
    );
    assert_eq!(world.areals.corridor(&route).len(), 6);
    assert_eq!(world.areals.area_at(100.0, 100.0), None);
}

#[test]
fn terrain_query_and_render_debug_views() {
    let g = game();
    let gd = g.path().to_str().unwrap();
    let (code, out) = iron3d(&[
        "terrain", "query", gd, "M1", "--at", "10,20", "--at", "500,500", "--from", "8,8", "--to",
        "56,56", "--json",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!((v["points"][0]["height"].as_f64().unwrap() - 1.0).abs() < 1e-4);
    assert!(
        v["points"][1]["height"].is_null() && v["points"][1]["area"].is_null(),
        "explicit miss"
    );
    assert_eq!(v["route"]["areas"].as_array().unwrap().len(), 7);
    assert_eq!(v["route"]["corridor"].as_array().unwrap().len(), 6);
    let png_path = g.path().join("map.png");
    let (code, out) = iron3d(&[
        "terrain",
        "render",
        gd,
        "M1",
        "-o",
        png_path.to_str().unwrap(),
        "--size",
        "128",
        "--from",
        "8,8",
        "--to",
        "56,56",
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (128, 128));
    let px = &buf[..info.buffer_size()];
    let count = |rgb: [u8; 3]| px.chunks(4).filter(|p| p[..3] == rgb).count();
    assert!(count([220, 30, 30]) > 50, "route drawn");
    assert!(count([20, 60, 160]) > 100, "areal borders drawn");
    let (code, _) = iron3d(&[
        "terrain",
        "render",
        gd,
        "M1",
        "-o",
        png_path.to_str().unwrap(),
        "--from",
        "8,8",
        "--to",
        "900,900",
    ]);
    assert_eq!(
        code,
        ExitCode::FAILURE,
        "a route goal in no area is an explicit error"
    );
}
