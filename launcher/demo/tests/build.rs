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
    } else if lower.ends_with(".ctl") {
        let t = iron3d_aux::Ctld::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(t.to_bytes(), data, "{ctx}: lossless");
    } else if lower.ends_with(".cpt") {
        let p = iron3d_aux::Ctpt::parse(data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(p.to_bytes(), data, "{ctx}: lossless");
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

/// `Behavior.ini` holds the original demo's keys with its values (FORMATS §12.3) and the
/// project keys at the values in force without them — no key the engine does not know.
fn check_behavior_ini(d: &iron3d_config::IniDocument) {
    use iron3d_config::keys::behavior_key;
    let pairs: Vec<(String, String)> = d
        .pairs()
        .map(|(_, _, p)| {
            let text = |b: &[u8]| String::from_utf8(b.to_vec()).expect("ASCII");
            (text(&p.key), text(p.unquoted()))
        })
        .collect();
    for (key, value) in &pairs {
        let k = behavior_key(key).unwrap_or_else(|| panic!("Behavior.ini: unknown key {key}"));
        assert_eq!(*value, k.demo.unwrap_or(k.default), "Behavior.ini: {key}");
    }
    let spec = "LogFile=Behavior.log SaveLog=0 MaxErrorLevel=1 DefErrorLevel=2 LookBugMode=0 \
        ShowVectors=0 NoZBuffer=0 LockBehaviour=0 UseDebugKey=1 GiveDefaultOrder=0 \
        DefaultOrderPhase=10 DeterminMode=0 ImmortalHero=0 UseWizard=1";
    let written: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    for kv in spec.split_whitespace() {
        assert!(written.iter().any(|w| w == kv), "Behavior.ini lacks {kv}");
    }
    for kv in ["AttackRange=45", "RetreatLife=25", "OreCapacity=2000"] {
        assert!(written.iter().any(|w| w == kv), "Behavior.ini lacks {kv}");
    }
    assert_eq!(written.len(), 17, "{written:?}");
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
                if lower == "behavior.ini" {
                    check_behavior_ini(&d);
                }
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
            "objectives.txt" => {
                let o =
                    iron3d_config::objectives::Objectives::parse(&bytes, rel).expect("objectives");
                assert!(!o.goals.is_empty(), "{rel}");
            }
            "dispatcher.ini" => {
                let c = iron3d_save::Campaign::parse(&bytes, rel).expect("campaign");
                assert_eq!(c.missions(), ["DEMO1", "DEMO2", "BATTLE"], "{rel}");
            }
            "orders.txt" => {
                iron3d_config::orders::parse(&bytes, rel).expect("orders");
            }
            _ if lower.ends_with(".scr") => {
                let s = iron3d_aux::Script::parse(&bytes).expect("scr");
                assert_eq!(s.to_bytes(), bytes, "{rel}");
                assert!(s.event(b"Init").is_some(), "{rel}");
            }
            _ if lower.ends_with(".var") => {
                let v = iron3d_aux::Varset::parse(&bytes).expect("var");
                assert!(v.index_of(b"ClanBaseX").is_some(), "{rel}");
            }
            "land.msh" => {
                iron3d_landmsh::LandMsh::parse(&bytes).expect("Land.msh");
            }
            "land.map" => {
                iron3d_landmap::LandMapFile::parse(&bytes).expect("Land.map");
            }
            "land1.wea" | "land2.wea" => {
                let w = iron3d_material::Wear::parse(&bytes).expect("terrain WEAR");
                assert_eq!(w.to_bytes(), bytes, "{rel}");
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
        version: GENERATOR_VERSION,
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

/// The NRes entry `name` of `archive` under `root`.
fn entry(root: &Path, archive: &str, name: &str) -> Vec<u8> {
    let bytes = read(root, archive);
    let a = iron3d_nres::Nres::parse(&bytes).expect(archive);
    a.entries()
        .find(|e| e.name() == name.as_bytes())
        .unwrap_or_else(|| panic!("{archive}:{name} missing"))
        .data()
        .to_vec()
}

/// Level 0 of the Texm entry `name` of `archive`.
fn texture(root: &Path, archive: &str, name: &str) -> iron3d_texm::RgbaImage {
    let data = entry(root, archive, name);
    let t = iron3d_texm::Texm::parse(&data).expect(name);
    assert_eq!(
        t.mip_count(),
        t.width().max(t.height()).ilog2() + 1,
        "{name}: full mip chain"
    );
    t.decode_level(0).expect(name)
}

/// The surfaces (PD-MAT-4) of every phase of material `name`.
fn surfaces(root: &Path, name: &str) -> Vec<iron3d_material::Surface> {
    let m = iron3d_material::Mat0::parse(&entry(root, "Material.lib", name), 6).expect(name);
    m.phases()
        .iter()
        .map(iron3d_material::Surface::of)
        .collect()
}

#[test]
fn glass_is_blended_and_grate_is_alpha_tested_with_real_alpha() {
    use iron3d_material::{Surface, SurfaceMode};
    let d = tempfile::tempdir().expect("tempdir");
    build(d.path(), 5, Profile::Demo).expect("build");
    let root = d.path();
    let glass = Surface {
        mode: SurfaceMode::AlphaBlended,
        alpha_ref: 0,
        two_sided: true,
    };
    let grate = Surface {
        mode: SurfaceMode::AlphaTested,
        alpha_ref: 128,
        two_sided: true,
    };
    assert_eq!(surfaces(root, "GLASS"), [glass]);
    assert_eq!(surfaces(root, "GRATE"), [grate]);
    for opaque in [
        "DEFAULT", "STEEL", "CAMO", "CONCRETE", "LAVA", "WATER", "HUD",
    ] {
        let s = surfaces(root, opaque);
        assert!(!s.is_empty());
        assert!(s.iter().all(|s| *s == Surface::OPAQUE), "{opaque}: {s:?}");
    }
    // The original phase bytes stay: parameters[0] = 0x80 + phase.
    let steel = iron3d_material::Mat0::parse(&entry(root, "Material.lib", "STEEL"), 6).unwrap();
    assert_eq!(steel.phases()[1].parameters()[0], 0x81);

    // GLASS0: partial alpha 90..=160 with variation.
    let alphas: BTreeSet<u8> = texture(root, "Textures.lib", "GLASS0")
        .pixels()
        .chunks(4)
        .map(|p| p[3])
        .collect();
    assert!(alphas.iter().all(|a| (90..=160).contains(a)), "{alphas:?}");
    assert!(alphas.len() >= 16, "{alphas:?}");

    // GRATE0: only holes (0) and bars (255), a fair share of each.
    let img = texture(root, "Textures.lib", "GRATE0");
    let px = img.pixels();
    let holes = px.chunks(4).filter(|p| p[3] == 0).count();
    let bars = px.chunks(4).filter(|p| p[3] == 255).count();
    assert_eq!(holes + bars, px.len() / 4);
    assert!(
        holes * 3 > px.len() / 4 && bars * 5 > px.len() / 4,
        "{holes} {bars}"
    );

    // The tower (placed by DEMO1) draws a part with the GRATE row; the truck keeps GLASS.
    for (model, row, material) in [("tower", 2, "GRATE"), ("truck", 1, "GLASS")] {
        let wea = entry(
            root,
            if model == "tower" {
                "buildings.rlb"
            } else {
                "models.rlb"
            },
            &format!("{model}.wea"),
        );
        let w = iron3d_material::Wear::parse(&wea).expect("wear");
        assert_eq!(w.material(row).map(|r| r.name()), Some(material.as_bytes()));
        let mshb = entry(
            root,
            if model == "tower" {
                "buildings.rlb"
            } else {
                "models.rlb"
            },
            &format!("{model}.msh"),
        );
        let msh = iron3d_msh::Msh::parse(&mshb).expect("msh");
        assert!(
            msh.batches()
                .any(|b| b.material_index == row && b.index_count > 0),
            "{model}"
        );
    }
    let tma = iron3d_tma::Tma::parse(&read(root, "MISSIONS/DEMO1/data.tma")).expect("tma");
    assert!(tma.objects.iter().any(|o| {
        let r = o.resource_name.text();
        r.contains("Tower") || r.contains("Hangar") || r.contains("Mine") || r == "tower"
    }));
}

#[test]
fn terrain_faces_name_rows_of_both_terrain_tables_and_a_baked_lightmap() {
    let d = tempfile::tempdir().expect("tempdir");
    let m = build(d.path(), 5, Profile::Demo).expect("build");
    let root = d.path();
    let material_lib = read(root, "Material.lib");
    let materials = iron3d_nres::Nres::parse(&material_lib).expect("Material.lib");
    let has_material = |n: &[u8]| materials.entries().any(|e| e.name() == n);
    let mut land2_used = BTreeSet::new();
    for mission in &m.missions {
        let dir = format!("MISSIONS/{mission}");
        let land1 = iron3d_material::Wear::parse(&read(root, &format!("{dir}/Land1.wea")))
            .expect("Land1.wea");
        let land2 = iron3d_material::Wear::parse(&read(root, &format!("{dir}/Land2.wea")))
            .expect("Land2.wea");
        for row in land1.materials().iter().chain(land2.materials()) {
            assert!(has_material(row.name()), "{}", row.name_text());
        }
        assert_eq!(land1.lightmaps().len(), 1);
        let lm_name = land1.lightmaps()[0].name_text();
        assert_eq!(lm_name, format!("LM_LAND_{mission}"));
        let lm = texture(root, "LightMap.lib", &lm_name);
        assert_eq!((lm.width(), lm.height()), (64, 64));
        let px = lm.pixels();
        assert!(
            px.chunks(4).all(|p| p[0] == p[1] && p[1] == p[2]),
            "greyscale"
        );
        let (lo, hi) = px
            .chunks(4)
            .fold((255, 0), |(lo, hi), p| (p[0].min(lo), p[0].max(hi)));
        assert!(
            lo >= 80 && hi - lo >= 40,
            "ambient floor and visible relief: {lo}..{hi}"
        );

        let land_bytes = read(root, &format!("{dir}/Land.msh"));
        let land = iron3d_landmsh::LandMsh::parse(&land_bytes).expect("Land.msh");
        let s = &land.streams;
        let mut overlay = 0;
        for f in &s.faces {
            let (hi, lo) = (f.material_tag >> 8, f.material_tag & 0xFF);
            assert!(usize::from(lo) < land2.materials().len(), "{lo}");
            if hi != 0xFF {
                assert!(usize::from(hi) < land1.materials().len(), "{hi}");
                assert_ne!(lo, 0, "no road under water");
                overlay += 1;
            }
            land2_used.insert(lo);
            let mean = f
                .vertices
                .iter()
                .map(|&v| s.positions[v as usize][2])
                .sum::<f32>()
                / 3.0;
            assert_eq!(
                lo == 0,
                mean < 0.0,
                "water row exactly below the water level"
            );
        }
        assert!(overlay > 0 && overlay * 4 < s.faces.len(), "{overlay}");
    }
    assert_eq!(land2_used.len(), 3, "{land2_used:?}");
}

#[test]
fn the_hud_font_and_the_battle_text_are_written_for_the_hud() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), 7, Profile::Demo).unwrap();
    let data = entry(
        dir.path(),
        iron3d_hud::font::FONT_ARCHIVE,
        iron3d_hud::font::FONT_ENTRY,
    );
    let font = iron3d_hud::Font::from_texm(&data, "HudFont.lib:HUDFONT").unwrap();
    assert_eq!(
        font,
        iron3d_hud::Font::builtin(),
        "PD-HUD-FONT: the built-in glyphs"
    );
    let m = "MISSIONS/BATTLE";
    let text = iron3d_hud::MissionText::load(
        "BATTLE",
        Some(&read(dir.path(), &format!("{m}/briefing.cfg"))),
        Some(&read(dir.path(), &format!("{m}/messages.cfg"))),
        Some(&read(dir.path(), &format!("{m}/Objectives.txt"))),
    )
    .unwrap();
    assert_eq!(text.title, iron3d_hud::text::cp1251("Битва за рудник"));
    assert_eq!(text.briefing.len(), 3);
    // Three timed messages, then one triggered message per objective, named as the AI
    // announces them (PD-AI-OBJECTIVE-MESSAGES).
    let timed = text.messages.iter().filter(|m| m.at.is_some()).count();
    assert_eq!(timed, 3);
    assert_eq!(text.objectives.len(), 5);
    for n in 1..=text.objectives.len() {
        let name = format!("Objective{n}");
        let m = text
            .messages
            .iter()
            .find(|m| m.name == name.as_bytes())
            .unwrap_or_else(|| panic!("no {name} block"));
        assert!(m.at.is_none() && !m.text.is_empty(), "{name}");
    }
}

/// The decoded frames of every `.WAV` entry of the RsLi archive `rel`, by name.
fn waves(root: &Path, rel: &str) -> std::collections::BTreeMap<String, usize> {
    let bytes = read(root, rel);
    let a = iron3d_rsli::Rsli::parse(&bytes).expect(rel);
    a.entries()
        .iter()
        .map(|e| {
            let name = String::from_utf8_lossy(e.name()).into_owned();
            let data = e.decode().expect("decode");
            let w = iron3d_aux::Wave::parse(&data).unwrap_or_else(|x| panic!("{name}: {x}"));
            let d = w.decode().unwrap_or_else(|x| panic!("{name}: {x}"));
            assert_eq!(d.sample_rate, 22_050, "{name}: FORMATS §11.9");
            (name, d.samples.len() / usize::from(d.channels))
        })
        .collect()
}

#[test]
fn every_mission_names_its_music_and_the_sounds_and_voices_decode() {
    let dir = tempfile::tempdir().unwrap();
    let m = build(dir.path(), 7, Profile::Demo).unwrap();
    let sounds = waves(dir.path(), "sounds.lib");
    for name in [
        "FIRE.WAV",
        "EXPLODE.WAV",
        "COLLIDE.WAV",
        "ENGINE.WAV",
        "RAIN.WAV",
    ] {
        assert!(sounds.contains_key(name), "{name}: {sounds:?}");
    }
    assert_eq!(sounds["THEME.WAV"], 8 * 22_050, "an 8 s theme");
    let voices = waves(dir.path(), "voices.lib");
    assert_eq!(
        voices.keys().collect::<Vec<_>>(),
        ["COMPLETE.WAV", "FAILED.WAV"]
    );
    for mission in &m.missions {
        let rel = format!("MISSIONS/{mission}/mission.cfg");
        let cfg = iron3d_config::BlockFile::parse(&read(dir.path(), &rel), &rel).unwrap();
        let music = cfg.block("ambient_music_loop").expect("ambient_music_loop");
        assert_eq!(music.param("LIBRARY").unwrap().value, b"sounds.lib");
        let named: Vec<String> = music
            .params
            .iter()
            .filter(|p| p.name != b"LIBRARY")
            .map(|p| String::from_utf8_lossy(&p.value).into_owned())
            .collect();
        assert_eq!(
            named.len(),
            6,
            "theme, 3 day and 2 night variations: {named:?}"
        );
        for n in &named {
            assert!(sounds.contains_key(n), "{rel}: {n} is not in sounds.lib");
        }
        assert!(cfg.block("ambient_music_variation").is_some(), "{rel}");
        // The battle has a sky (PD-SKY-BLOCK) whose sounds are in sounds.lib; the
        // scattered missions have none.
        let sky = iron3d_effects_rules::sky::SkyConfig::from_mission_cfg(&read(dir.path(), &rel))
            .unwrap();
        if mission == "BATTLE" {
            let sky = sky.expect("the battle's sky");
            assert_eq!(sky.library, "sounds.lib");
            for n in [&sky.rain_sound, &sky.lightning_sound] {
                assert!(sounds.contains_key(n.as_deref().unwrap()), "{n:?}");
            }
            let storm = sky.weather_at(180_000);
            assert!(storm.rain > 0.5 && storm.lightning > 0.5, "{storm:?}");
            assert!(sky.weather_at(0).rgb.length() > 1.1, "a day sky first");
            assert!(storm.rgb.length() <= 1.1, "a dark storm sky");
        } else {
            assert!(sky.is_none(), "{rel}");
        }
    }
}

/// The models: `(archive, stem, union of the LOD-0 slot boxes at the rest pose)`. These
/// are the boxes of generator 16, from which the simulation builds its collision
/// proxies (`iron3d-mission` `bounds.rs`): richer models must keep them exactly.
const MODEL_BOUNDS: [(&str, &str, [f32; 3], [f32; 3]); 7] = [
    ("models.rlb", "chassis", [-3.0, -2.0, -2.8], [3.0, 2.0, 1.0]),
    ("models.rlb", "tank", [-3.0, -2.0, -1.0], [3.0, 2.0, 1.0]),
    ("models.rlb", "turret", [-1.5, -1.5, 0.0], [4.0, 1.5, 1.2]),
    ("models.rlb", "truck", [-3.5, -1.5, -1.0], [3.5, 1.5, 2.2]),
    (
        "buildings.rlb",
        "hangar",
        [-10.0, -8.0, -4.0],
        [10.0, 8.0, 7.0],
    ),
    (
        "buildings.rlb",
        "tower",
        [-2.0, -3.0, -6.0],
        [3.1, 3.0, 6.0],
    ),
    ("buildings.rlb", "mine", [-6.0, -6.0, -2.0], [6.0, 6.0, 7.0]),
];

#[test]
fn models_keep_their_bounds_and_fill_each_node_box_with_many_parts() {
    let d = tempfile::tempdir().expect("tempdir");
    build(d.path(), 2, Profile::Demo).expect("build");
    for (archive, stem, lo, hi) in MODEL_BOUNDS {
        let bytes = entry(d.path(), archive, &format!("{stem}.msh"));
        let msh = iron3d_msh::Msh::parse(&bytes).expect(stem);
        let positions: Vec<[f32; 3]> = msh.positions().map(|p| p.0).collect();
        assert_eq!(
            msh.normals().count(),
            positions.len(),
            "{stem}: flat normals"
        );
        assert_eq!(msh.uvs().count(), positions.len(), "{stem}: UVs");
        let poses = iron3d_msh::sample_all(&msh, 0.0, iron3d_msh::SampleOptions::default())
            .expect("rest pose");
        let world = iron3d_msh::world_matrices(&msh, &poses).expect("hierarchy");
        let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
        let mut triangles = 0;
        for (n, node) in msh.nodes().enumerate() {
            let Some(slot) = msh.slot(usize::from(node.slot_index[0])) else {
                continue;
            };
            let o = iron3d_msh::world_origin(&world[n]);
            let origin = [o.x, o.y, o.z];
            for i in 0..3 {
                min[i] = min[i].min(origin[i] + slot.aabb_min[i]);
                max[i] = max[i].max(origin[i] + slot.aabb_max[i]);
            }
            // LOD 0 and LOD 1: one batch each, same material, LOD 1 no larger.
            let lod1 = msh
                .slot(usize::from(node.slot_index[5]))
                .expect("LOD 1 slot");
            assert_eq!(
                (slot.batch_count, lod1.batch_count),
                (1, 1),
                "{stem} node {n}"
            );
            let b0 = msh.batch(usize::from(slot.batch_start)).expect("batch");
            let b1 = msh.batch(usize::from(lod1.batch_start)).expect("batch");
            assert_eq!(b0.material_index, b1.material_index, "{stem} node {n}");
            assert!(b1.index_count <= b0.index_count && b1.index_count > 0);
            assert_eq!(
                (slot.aabb_min, slot.aabb_max),
                (lod1.aabb_min, lod1.aabb_max)
            );
            // Its geometry stays inside its slot box and spans most of it.
            let (mut gmin, mut gmax) = ([f32::MAX; 3], [f32::MIN; 3]);
            for i in msh
                .batch_indices(usize::from(slot.batch_start))
                .expect("indices")
            {
                let p = positions[b0.base_vertex as usize + usize::from(i)];
                for k in 0..3 {
                    assert!(
                        p[k] >= slot.aabb_min[k] - 1e-3 && p[k] <= slot.aabb_max[k] + 1e-3,
                        "{stem} node {n}: {p:?} outside its slot box"
                    );
                    gmin[k] = gmin[k].min(p[k]);
                    gmax[k] = gmax[k].max(p[k]);
                }
            }
            for k in 0..3 {
                let (span, room) = (gmax[k] - gmin[k], slot.aabb_max[k] - slot.aabb_min[k]);
                assert!(
                    span >= 0.75 * room,
                    "{stem} node {n} axis {k}: {span} of {room}"
                );
            }
            triangles += usize::from(b0.index_count) / 3;
        }
        let close = |a: [f32; 3], b: [f32; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-4);
        assert!(close(min, lo) && close(max, hi), "{stem}: {min:?}..{max:?}");
        assert!(triangles >= 150, "{stem}: {triangles} triangles");
    }
}

#[test]
fn model_textures_are_opaque_pictures_and_lightmaps_are_smooth_shading() {
    let d = tempfile::tempdir().expect("tempdir");
    build(d.path(), 4, Profile::Demo).expect("build");
    // The 64-texel pictures of the drawn phases (`DEFTEX` is a 16-texel plain plate).
    for name in [
        "DEFTEX", "STEEL0", "CAMO0", "CONC0", "LAVA0", "LAVA1", "LAVA2", "LAVA3", "WATER0",
        "WATER1", "GRASS0", "ROCK0", "ROAD0",
    ] {
        let img = texture(d.path(), "Textures.lib", name);
        let px = img.pixels();
        assert!(px.chunks(4).all(|p| p[3] == 255), "{name}: opaque");
        let colours: BTreeSet<&[u8]> = px.chunks(4).collect();
        let least = if img.width() >= 64 { 8 } else { 4 };
        assert!(colours.len() >= least, "{name}: {} colours", colours.len());
    }
    let lm = texture(d.path(), "LightMap.lib", "LM_HANGAR");
    let px = lm.pixels();
    let w = lm.width() as usize;
    // Greyscale (within Rgb565 rounding), bright in the middle of a quarter, darker at
    // its border, and no texel far from its right-hand neighbour (no noise).
    assert!(
        px.chunks(4)
            .all(|p| p[0].abs_diff(p[1]) <= 8 && p[1].abs_diff(p[2]) <= 8)
    );
    let at = |x: usize, y: usize| px[(y * w + x) * 4];
    let q = w / 2;
    assert!(at(q / 2, q / 4) > 220 && at(q - 1, q - 1) < 170);
    for y in 0..w {
        for x in 0..q - 1 {
            assert!(at(x, y).abs_diff(at(x + 1, y)) <= 40, "({x}, {y})");
        }
    }
}
