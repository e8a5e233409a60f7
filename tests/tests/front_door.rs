//! The front door for strangers: the README's play build produces every library the
//! shipped registries name, play runs every registry slot with its named library (no
//! fallback) and the demo's units move, and a slot that cannot load its library is never
//! silent (banner lines, `--strict-plugins`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use iron3d_e2e::render::demo;
use iron3d_launcher::play::Renderer;
use iron3d_registry::{Dialect, Registry};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The cargo library names (cdylib) that building `package_dir`'s package produces: its
/// own when it is a cdylib, and those of the plugin crates it depends on by path (cargo
/// builds a dependency's cdylib beside its rlib).
fn cdylibs_of(package_dir: &Path) -> BTreeSet<String> {
    let manifest: toml::Table = std::fs::read_to_string(package_dir.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let mut libs = BTreeSet::new();
    let deps = manifest
        .get("dependencies")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    for (_, spec) in deps {
        let Some(path) = spec.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        let dep: toml::Table = std::fs::read_to_string(package_dir.join(path).join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let lib = dep.get("lib").and_then(|l| l.as_table());
        let is_cdylib = lib
            .and_then(|l| l.get("crate-type"))
            .and_then(|t| t.as_array())
            .is_some_and(|t| t.iter().any(|c| c.as_str() == Some("cdylib")));
        if !is_cdylib {
            continue;
        }
        let name = lib
            .and_then(|l| l.get("name"))
            .and_then(|n| n.as_str())
            .map(str::to_owned)
            .unwrap_or_else(|| dep["package"]["name"].as_str().unwrap().replace('-', "_"));
        libs.insert(name);
    }
    libs
}

/// The packages the README's play command builds (`cargo build … -p NAME` lines of
/// `tools/play.sh`).
fn play_build_packages() -> Vec<String> {
    let script = std::fs::read_to_string(root().join("tools/play.sh")).unwrap();
    let mut packages = Vec::new();
    for line in script.lines().map(str::trim) {
        if line.starts_with('#') || !line.starts_with("cargo build") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        for w in words.windows(2) {
            if w[0] == "-p" || w[0] == "--package" {
                packages.push(w[1].to_owned());
            }
        }
    }
    packages
}

/// Every library a player meets: the shipped registries' libraries and the renderers the
/// keys and settings switch to, as `(where named, library stem)`.
fn libraries_players_need() -> Vec<(String, String)> {
    let mut need = Vec::new();
    for file in ["config/plugins.ini", "config/scenario.ini"] {
        let bytes = std::fs::read(root().join(file)).unwrap();
        let registry = Registry::parse(&bytes, file, Dialect::PluginsIni).unwrap();
        for e in registry.entries() {
            need.push((format!("{file} line {}", e.line), e.library_stem()));
        }
    }
    for r in [Renderer::Vulkan, Renderer::Soft, Renderer::Capture] {
        need.push((format!("renderer {}", r.as_str()), r.plugin().0.to_owned()));
    }
    need
}

/// The libraries of `need` that `built` does not produce (a registry stem `x` is found
/// as `x` or `iron3d_x`, as the host's search does).
fn missing(need: &[(String, String)], built: &BTreeSet<String>) -> Vec<String> {
    need.iter()
        .filter(|(_, stem)| !built.contains(stem) && !built.contains(&format!("iron3d_{stem}")))
        .map(|(at, stem)| format!("{stem} ({at})"))
        .collect()
}

#[test]
fn the_readme_play_build_produces_every_library_a_player_meets() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("./tools/play.sh"),
        "the README's play command is tools/play.sh"
    );
    let packages = play_build_packages();
    assert_eq!(
        packages,
        ["iron3d-launcher"],
        "play.sh builds the launcher package (whose dependencies bring the plugins)"
    );
    let built = cdylibs_of(&root().join("launcher"));
    let need = libraries_players_need();
    assert!(
        need.len() >= 19,
        "both registries and three renderers: {need:?}"
    );
    let gaps = missing(&need, &built);
    assert!(
        gaps.is_empty(),
        "the README's play build (cargo build -p iron3d-launcher) does not produce: {gaps:?}; add the plugin crate to launcher/Cargo.toml's [dependencies]"
    );
    // The check can fail: without the AI and input crates (the old play build) it names
    // exactly the two libraries a newcomer's battle lacked.
    let mut old = built.clone();
    old.remove("iron3d_ai");
    old.remove("iron3d_player_input");
    let gaps = missing(&need, &old);
    assert_eq!(gaps.len(), 2, "{gaps:?}");
    assert!(
        gaps[0].starts_with("iron3d_ai (config/plugins.ini line"),
        "{gaps:?}"
    );
    assert!(
        gaps[1].starts_with("iron3d_player_input (config/plugins.ini line"),
        "{gaps:?}"
    );
}

/// Sampled positions of the trace's object lines, by object id.
fn positions(trace: &Path) -> std::collections::BTreeMap<u64, Vec<[f64; 3]>> {
    let text = std::fs::read_to_string(trace).unwrap();
    let mut by_id: std::collections::BTreeMap<u64, Vec<[f64; 3]>> = Default::default();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] == "object" {
            let p = &v["pos"];
            let pos = [0, 1, 2].map(|k| p[k].as_f64().unwrap());
            by_id
                .entry(v["id"].as_u64().unwrap())
                .or_default()
                .push(pos);
        }
    }
    by_id
}

#[test]
fn play_runs_every_shipped_registry_slot_with_its_library_and_the_units_move() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("play.jsonl");
    let registry = root().join("config/plugins.ini");
    let game = demo().to_str().unwrap().to_owned();
    let mut out = Vec::new();
    let code = iron3d_launcher::main_with_args(
        [
            "iron3d",
            "play",
            "--game-dir",
            &game,
            "--mission",
            "BATTLE",
            "--offscreen",
            "--no-briefing",
            "--renderer",
            "soft",
            "--frames",
            "150",
            "--strict-plugins",
            "--registry",
            registry.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--trace-every",
            "30",
        ],
        &mut out,
    );
    let out = String::from_utf8_lossy(&out);
    assert_eq!(
        code,
        ExitCode::SUCCESS,
        "--strict-plugins refuses any fallback: {out}"
    );
    let by_id = positions(&trace);
    let moved = by_id
        .values()
        .filter(|p| {
            let (a, b) = (p[0], p[p.len() - 1]);
            (a[0] - b[0]).hypot(a[1] - b[1]) > 1.0
        })
        .count();
    // With the null plugin in the AI slot 2 of the 23 objects drift more than 1 unit in
    // 150 ticks; with the AI 11 do.
    assert!(
        moved >= 6,
        "the AI drives the demo's units within 150 ticks: {moved} of {} objects moved more than 1 unit",
        by_id.len()
    );
}

/// A session on the demo's battle with `registry_text` as its registry.
fn open(registry_text: &str, strict: bool) -> Result<iron3d_session::Session, String> {
    let registry = Registry::parse(
        registry_text.as_bytes(),
        "test-registry.ini",
        Dialect::PluginsIni,
    )
    .unwrap();
    let mut spec = iron3d_launcher::plugins::session_spec(&[], registry, 1, 30, false);
    spec.strict_plugins = strict;
    let mission = iron3d_session::MissionSpec::Game {
        game_dir: demo().to_owned(),
        mission: "BATTLE".into(),
        mode: iron3d_vfs::ReadMode::Strict,
        relax_mesh_tag: false,
        parameters: Default::default(),
        overlays: Vec::new(),
    };
    iron3d_session::Session::open(
        &spec,
        mission,
        Box::new(iron3d_kernel::ManualTimeSource::new()),
    )
    .map_err(|e| e.to_string())
}

#[test]
fn a_missing_library_is_a_banner_naming_slot_library_and_search_paths_or_a_strict_refusal() {
    let text =
        "terrain iron3d_terrain terrain\nai no_such_ai_lib ai\ncontrol iron3d_control control\n";
    let session = open(text, false).expect("without --strict-plugins the mission runs");
    let fallbacks = session.host.fallbacks().to_vec();
    assert_eq!(fallbacks.len(), 1, "{fallbacks:?}");
    assert_eq!(fallbacks[0].slot, iron3d_abi::SlotKind::Ai);
    assert_eq!(fallbacks[0].library, "no_such_ai_lib");
    assert!(fallbacks[0].fallback.contains("null-ai"), "{fallbacks:?}");
    let lines = iron3d_launcher::plugins::fallback_warnings(&session.host);
    let banner = lines.join("\n");
    assert!(
        banner.contains("slot ai") && banner.contains("'no_such_ai_lib'"),
        "{banner}"
    );
    let first_dir = session.host.fallbacks()[0].search_dirs[0]
        .display()
        .to_string();
    assert!(
        banner.contains(&first_dir),
        "the banner names the search paths: {banner}"
    );
    assert!(banner.contains("--strict-plugins"), "{banner}");
    let _ = session.shutdown();

    let refused = open(text, true).err().expect("--strict-plugins refuses");
    assert!(
        refused.contains("--strict-plugins")
            && refused.contains("slot ai")
            && refused.contains("no_such_ai_lib")
            && refused.contains("not found; searched:"),
        "{refused}"
    );
}

#[test]
fn an_empty_registry_is_reported_and_refused_when_strict() {
    let session = open("// nothing\n", false).expect("runs on null plugins");
    assert!(session.host.registry_was_empty());
    let banner = iron3d_launcher::plugins::fallback_warnings(&session.host).join("\n");
    assert!(banner.contains("registry names no plugin"), "{banner}");
    let _ = session.shutdown();
    let refused = open("// nothing\n", true).err().expect("strict refuses");
    assert!(
        refused.contains("the registry names no plugin"),
        "{refused}"
    );
}

#[test]
fn the_shipped_registry_loads_with_no_fallback() {
    let text = std::fs::read_to_string(root().join("config/plugins.ini")).unwrap();
    let session = open(&text, true).expect("every shipped library is built with the tests");
    assert!(session.host.fallbacks().is_empty());
    assert!(iron3d_launcher::plugins::fallback_warnings(&session.host).is_empty());
    let _ = session.shutdown();
}

#[test]
fn mods_renderers_are_switchable_and_a_disabled_ones_name_gets_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let mods = dir.path().join("mods");
    let (code, out) = iron3d_e2e::iron3d(&[
        "mods",
        "new",
        "dots",
        "--plugin",
        "render",
        "--mods-dir",
        mods.to_str().unwrap(),
    ]);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    assert!(out.contains("--renderer dots"), "{out}");
    // Enabled: Tab (and the settings) go through the three built-in renderers and then
    // the mod's, and back.
    let active = iron3d_launcher::mods::ActiveMods::load(
        &mods,
        &["dots".to_owned()],
        &iron3d_launcher::mods::environment(),
    );
    let all = iron3d_launcher::play::switchable_renderers(&active);
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(all[3].plugin().1, Some("dots"), "{all:?}");
    use iron3d_launcher::play::next_renderer;
    assert_eq!(next_renderer(&all, Renderer::Capture), Some(all[3]));
    assert_eq!(next_renderer(&all, all[3]), Some(Renderer::Soft));
    assert_eq!(next_renderer(&all, Renderer::Soft), Some(Renderer::Vulkan));
    // Not enabled: the name is traced to its mod.
    let hint = iron3d_launcher::play::disabled_mod_renderer_hint(&mods, "dots").unwrap();
    assert!(
        hint.contains("mod 'dots'") && hint.contains("--mods dots"),
        "{hint}"
    );
    assert!(iron3d_launcher::play::disabled_mod_renderer_hint(&mods, "nothing").is_none());
}
