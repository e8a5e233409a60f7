//! End-to-end tests of the generator: determinism, strict parsing of every file,
//! content counts and the Stress profile.

use iron3d_demo::{GENERATOR_VERSION, MANIFEST_NAME, Manifest, Profile, STRESS_OBJECTS, build};
use std::collections::BTreeSet;
use std::path::Path;

fn read(root: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Parses one payload by its entry name.
fn check_entry(archive: &str, name: &str, data: &[u8]) {
    let lower = name.to_ascii_lowercase();
    let ctx = format!("{archive}:{name}");
    if lower.ends_with(".msh") {
        iron3d_msh::Msh::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if lower.ends_with(".wea") {
        iron3d_material::Wear::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if lower.ends_with(".wav") {
        iron3d_aux::Wave::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if lower.ends_with(".bas") {
        iron3d_aux::Base::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if archive == "effects.rlb" {
        iron3d_fxid::Fxid::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if archive == "objects.rlb" {
        iron3d_unitdat::ObjectRefList::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else if archive == "Palettes.lib" {
        assert_eq!(data.len(), 1024, "{ctx}: a palette is 256 × 4 bytes");
    } else if archive == "Material.lib" {
        iron3d_material::Mat0::parse(data, 6).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    } else {
        iron3d_texm::Texm::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    }
}

/// Parses every file of the manifest with its crate's strict reader; returns the RsLi
/// methods seen.
fn check_all(root: &Path, m: &Manifest) -> BTreeSet<String> {
    let mut methods = BTreeSet::new();
    for (rel, size, hash) in &m.files {
        let bytes = read(root, rel);
        assert_eq!(bytes.len() as u64, *size, "{rel}");
        assert_eq!(blake3::hash(&bytes).to_hex().to_string(), *hash, "{rel}");
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "iron_3d.ini" | "behavior.ini" | "arealmap.ini" | "comp.ini" => {
                let d = iron3d_config::IniDocument::parse(&bytes, rel).expect("ini");
                assert_eq!(d.to_bytes(), bytes);
            }
            "builddat.lst" => {
                let b = iron3d_config::BuildDat::parse(&bytes, rel).expect("BuildDat");
                for c in b.categories() {
                    for u in &c.units {
                        assert!(root.join(u.replace('\\', "/")).is_file(), "{u}");
                    }
                }
            }
            "mission.cfg" | "briefing.cfg" | "messages.cfg" => {
                let b = iron3d_config::BlockFile::parse(&bytes, rel).expect("cfg");
                assert!(!b.blocks().is_empty(), "{rel}");
            }
            "data.tma" => {
                iron3d_tma::Tma::parse(&bytes).expect("tma");
            }
            "land.msh" => {
                iron3d_landmsh::LandMsh::parse(&bytes).expect("Land.msh");
            }
            "land.map" => {
                iron3d_landmap::LandMapFile::parse(&bytes).expect("Land.map");
            }
            _ if lower.ends_with(".dat") => {
                let d = iron3d_unitdat::UnitDat::parse(&bytes).expect("dat");
                assert!(d.component_keys().count() >= 2, "{rel}");
            }
            _ if bytes.starts_with(b"NL\0\x01") => {
                let a = iron3d_rsli::Rsli::parse(&bytes).expect("rsli");
                for e in a.entries() {
                    methods.insert(format!("{:?}", e.method()));
                    let data = e.decode().expect("decode");
                    check_entry(name, &String::from_utf8_lossy(e.name()), &data);
                }
            }
            _ if name == MANIFEST_NAME => {}
            _ => {
                let a = iron3d_nres::Nres::parse(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
                for e in a.entries() {
                    check_entry(name, &String::from_utf8_lossy(e.name()), e.data());
                }
            }
        }
    }
    methods
}

#[test]
fn demo_is_deterministic_parses_and_has_content() {
    let a = tempfile::tempdir().expect("tempdir");
    let b = tempfile::tempdir().expect("tempdir");
    let ma = build(a.path(), 42, Profile::Demo).expect("build a");
    let mb = build(b.path(), 42, Profile::Demo).expect("build b");
    assert_eq!(ma, mb);
    assert_eq!(ma.version, GENERATOR_VERSION);
    for (rel, _, _) in &ma.files {
        assert_eq!(read(a.path(), rel), read(b.path(), rel), "{rel}");
    }
    assert_eq!(read(a.path(), MANIFEST_NAME), read(b.path(), MANIFEST_NAME));
    assert_eq!(Manifest::read(a.path()).expect("manifest"), ma);
    let mut sorted = ma.files.clone();
    sorted.sort();
    assert_eq!(sorted, ma.files);

    let methods = check_all(a.path(), &ma);
    assert!(methods.len() >= 4, "{methods:?}");

    assert!(ma.missions.len() >= 2);
    let mut total = 0;
    for m in &ma.missions {
        let tma = iron3d_tma::Tma::parse(&read(a.path(), &format!("MISSIONS/{m}/data.tma")))
            .expect("tma");
        assert!(tma.clans.len() >= 2);
        total += tma.objects.len();
    }
    assert!(total >= 200, "{total}");

    let c = tempfile::tempdir().expect("tempdir");
    let mc = build(c.path(), 43, Profile::Demo).expect("build c");
    assert_ne!(mc.files, ma.files, "the seed changes the content");
}

#[test]
fn stress_has_ten_thousand_objects() {
    // Costs about a second in debug: one 128×128 terrain and 10 000 objects.
    let d = tempfile::tempdir().expect("tempdir");
    let m = build(d.path(), 1, Profile::Stress).expect("stress");
    assert_eq!(m.missions.len(), 1);
    let tma = iron3d_tma::Tma::parse(&read(
        d.path(),
        &format!("MISSIONS/{}/data.tma", m.missions[0]),
    ))
    .expect("tma");
    assert_eq!(tma.objects.len(), STRESS_OBJECTS);
    iron3d_landmap::LandMapFile::parse(&read(
        d.path(),
        &format!("MISSIONS/{}/Land.map", m.missions[0]),
    ))
    .expect("Land.map");
}

#[test]
fn manifest_text_round_trips() {
    let m = Manifest {
        version: 3,
        missions: vec!["A".into(), "B".into()],
        files: vec![("x/y z.bin".into(), 12, "ab".into())],
    };
    assert_eq!(Manifest::parse(&m.to_text()).expect("parse"), m);
    assert!(Manifest::parse("nonsense").is_err());
}

#[test]
fn the_walking_chassis_swings_its_legs_in_antiphase() {
    let d = tempfile::tempdir().expect("tempdir");
    build(d.path(), 1, Profile::Demo).expect("build");
    let bytes = read(d.path(), "models.rlb");
    let archive = iron3d_nres::Nres::parse(&bytes).expect("models.rlb");
    let entry = archive
        .entries()
        .find(|e| e.name() == b"chassis.msh")
        .expect("chassis.msh");
    let msh = iron3d_msh::Msh::parse(entry.data()).expect("chassis");
    assert_eq!(msh.node_count(), 3);
    let opts = iron3d_msh::SampleOptions::default();
    // Frame 2 of 8 is a quarter of the stride: the legs are at ±0.5 rad about Y.
    let hull = iron3d_msh::sample_node(&msh, 0, 2.0, opts).expect("hull");
    let left = iron3d_msh::sample_node(&msh, 1, 2.0, opts).expect("left leg");
    let right = iron3d_msh::sample_node(&msh, 2, 2.0, opts).expect("right leg");
    assert!(hull.rotation.y.abs() < 1e-3, "{hull:?}");
    let half = (0.25f32).sin(); // sin(0.5 rad / 2)
    assert!((left.rotation.y - half).abs() < 1e-3, "{left:?}");
    assert!((right.rotation.y + half).abs() < 1e-3, "{right:?}");
    // Frame 0: both legs upright.
    let left0 = iron3d_msh::sample_node(&msh, 1, 0.0, opts).expect("left leg");
    assert!(left0.rotation.y.abs() < 1e-3, "{left0:?}");
}
