//! Architecture rules checked on the real workspace: the dependency rule (interfaces
//! depend on interfaces only; plugins and mods never depend on the kernel, the launcher
//! or another crate outside `interfaces/` — a library they share, such as
//! `iron3d-ai-rules`, lives in `interfaces/`; the kernel never names a plugin), the
//! layers between crates, ARCHITECTURE.md's crate graph generated from `cargo metadata`,
//! and the tidy rule that every Rust file opens with a `//!` line.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn area(root: &Path, manifest_or_dir: &str) -> String {
    let p = Path::new(manifest_or_dir);
    let rel = p.strip_prefix(root).unwrap_or(p);
    rel.components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `cargo metadata --no-deps` of the workspace.
fn metadata(root: &Path) -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// One workspace crate: its name, folder (relative), whether it is a plugin (a
/// `cdylib`), and its normal and build dependencies on workspace crates (sorted).
struct Crate {
    name: String,
    dir: String,
    plugin: bool,
    deps: Vec<String>,
}

fn crates(root: &Path) -> Vec<Crate> {
    let meta = metadata(root);
    let mut out: Vec<Crate> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let manifest = Path::new(p["manifest_path"].as_str().unwrap());
            let dir = manifest
                .parent()
                .unwrap()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mut deps: Vec<String> = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["path"].is_string() && d["kind"].as_str() != Some("dev"))
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .collect();
            deps.sort();
            deps.dedup();
            let plugin = p["targets"].as_array().unwrap().iter().any(|t| {
                t["crate_types"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c == "cdylib")
            });
            Crate {
                name: p["name"].as_str().unwrap().to_owned(),
                dir: if dir.is_empty() { ".".into() } else { dir },
                plugin,
                deps,
            }
        })
        .collect();
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

/// The layering between crates: the kernel core depends on none of ours; a crate under
/// `plugins/` or `mods/` depends only on `interfaces/` crates (a library plugins share,
/// such as the AI rules, lives there); no plugin links another plugin.
#[test]
fn crates_keep_their_layers() {
    let root = workspace_root();
    let all = crates(&root);
    let by_name = |n: &str| all.iter().find(|c| c.name == n).unwrap();
    let mut violations = Vec::new();
    let core = by_name("iron3d-kernel");
    if !core.deps.is_empty() {
        violations.push(format!("the kernel core depends on {:?}", core.deps));
    }
    for c in &all {
        let top = c.dir.split('/').next().unwrap_or_default();
        for d in c.deps.iter().map(|d| by_name(d)) {
            let dtop = d.dir.split('/').next().unwrap_or_default();
            if matches!(top, "plugins" | "mods") && dtop != "interfaces" {
                violations.push(format!(
                    "{} ({}) depends on {} ({}): plugins and mods depend on interfaces/ only (a shared library such as the AI rules lives there)",
                    c.name, c.dir, d.name, d.dir
                ));
            }
            if c.plugin && d.plugin {
                violations.push(format!(
                    "plugin {} links plugin {}: share a library crate instead",
                    c.name, d.name
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
}

/// The crate graph as ARCHITECTURE.md shows it: one line per crate (by folder), its
/// workspace dependencies (normal and build).
fn crate_graph(all: &[Crate]) -> String {
    let dir_of = |n: &str| {
        all.iter()
            .find(|c| c.name == n)
            .map_or_else(|| n.to_owned(), |c| c.dir.clone())
    };
    let mut text = String::new();
    for c in all {
        let kind = if c.plugin { " (plugin)" } else { "" };
        let mut deps: Vec<String> = c.deps.iter().map(|d| dir_of(d)).collect();
        deps.sort();
        let deps = if deps.is_empty() {
            "nothing of ours".to_owned()
        } else {
            deps.join(", ")
        };
        text.push_str(&format!("{}{kind} -> {deps}\n", c.dir));
    }
    text
}

/// ARCHITECTURE.md's crate graph is generated from `cargo metadata`: a stale one fails
/// with the text to put between its markers.
#[test]
fn the_architecture_crate_graph_is_current() {
    let root = workspace_root();
    let graph = crate_graph(&crates(&root));
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let begin = "<!-- crate-graph: generated by tests/tests/architecture.rs -->\n```text\n";
    let end = "```\n<!-- crate-graph end -->";
    let shown = doc
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(g, _)| g);
    assert_eq!(
        shown,
        Some(graph.as_str()),
        "ARCHITECTURE.md's crate graph is stale; between its markers put:\n{graph}"
    );
}

#[test]
fn dependency_rule_holds_in_cargo_metadata() {
    let root = workspace_root();
    let meta = metadata(&root);
    let packages = meta["packages"].as_array().unwrap();
    assert!(packages.len() >= 3, "workspace members found");
    // Plugin crates: those that build a cdylib (each exports a root module).
    let plugin_crates: Vec<&str> = packages
        .iter()
        .filter(|p| {
            p["targets"].as_array().unwrap().iter().any(|t| {
                t["crate_types"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c == "cdylib")
            })
        })
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        plugin_crates.contains(&"iron3d-ai") && !plugin_crates.contains(&"iron3d-ai-rules"),
        "the AI's plugin shell is a cdylib, its rules library is not: {plugin_crates:?}"
    );
    let mut violations = Vec::new();
    for pkg in packages {
        let name = pkg["name"].as_str().unwrap();
        let from = area(&root, pkg["manifest_path"].as_str().unwrap());
        for dep in pkg["dependencies"].as_array().unwrap() {
            let Some(path) = dep["path"].as_str() else {
                continue;
            };
            if dep["kind"].as_str() == Some("dev") {
                continue;
            }
            let to = area(&root, path);
            let dep_name = dep["name"].as_str().unwrap();
            let allowed: &[&str] = match from.as_str() {
                "interfaces" => &["interfaces"],
                "plugins" | "mods" => &["interfaces"],
                "kernel" => &["kernel", "interfaces"],
                "launcher" => &["launcher", "kernel", "interfaces", "plugins"],
                _ => continue,
            };
            if !allowed.contains(&to.as_str()) {
                violations.push(format!("{name} ({from}/) depends on {dep_name} ({to}/)"));
            } else if matches!(from.as_str(), "plugins" | "mods")
                && plugin_crates.contains(&dep_name)
            {
                // Its rlib holds a second root module under the same loader symbol.
                violations.push(format!(
                    "{name} ({from}/) depends on the plugin crate {dep_name} (a cdylib with \
                     a root module): link its library crate instead"
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "dependency rule broken:\n{}",
        violations.join("\n")
    );
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_rust_file_states_its_role_in_a_module_doc_line() {
    let root = workspace_root();
    let mut files = Vec::new();
    for top in [
        "kernel",
        "launcher",
        "interfaces",
        "plugins",
        "tests",
        "mods",
    ] {
        let d = root.join(top);
        if d.is_dir() {
            rust_files(&d, &mut files);
        }
    }
    assert!(files.len() > 10, "found {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|f| !std::fs::read_to_string(f).unwrap().starts_with("//!"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a leading //! line:\n{}",
        missing.join("\n")
    );
}

#[test]
fn top_level_layout_of_the_design_card_exists() {
    let root = workspace_root();
    for entry in [
        "Cargo.toml",
        "kernel",
        "plugins",
        "interfaces",
        "launcher",
        "config",
        "mods",
        "tests",
        "README.md",
        "ARCHITECTURE.md",
    ] {
        assert!(root.join(entry).exists(), "missing top-level {entry}");
    }
}

/// Files under `launcher/` allowed to implement `System`: the benchmark driver's
/// (`launcher/bench`, not part of the `iron3d` binary) synthetic workloads (they measure
/// the scheduler and the plugin boundary, they are no gameplay). The launcher itself has
/// none.
const BENCHMARK_WORKLOADS: [&str; 2] = [
    "launcher/bench/src/kernel.rs",
    "launcher/bench/src/plugins.rs",
];

#[test]
fn the_launcher_implements_no_simulation_system() {
    let root = workspace_root();
    let mut files = Vec::new();
    rust_files(&root.join("launcher"), &mut files);
    assert!(!files.is_empty());
    for w in BENCHMARK_WORKLOADS {
        assert!(
            files.contains(&root.join(w)),
            "the exempted {w} is gone: update BENCHMARK_WORKLOADS"
        );
    }
    let mut offenders = Vec::new();
    for f in files {
        if BENCHMARK_WORKLOADS.iter().any(|w| f == root.join(w)) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("impl") && (l.contains(" System for ") || l.contains("::System for "))
            {
                offenders.push(format!("{}:{}: {l}", f.display(), i + 1));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "simulation belongs in plugins, not in the launcher (CLI, window, presentation):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scenario_set_up_and_its_gameplay_plugin_agree() {
    assert_eq!(
        iron3d_launcher::scenario::CMD_SPAWN,
        iron3d_scenario::CMD_SPAWN
    );
    assert_eq!(
        iron3d_launcher::scenario::INITIAL_LIFE,
        iron3d_scenario::INITIAL_LIFE
    );
    assert_eq!(iron3d_launcher::scenario::SPEED, iron3d_scenario::SPEED);
    assert_eq!(
        iron3d_launcher::scenario::CMD_WIND,
        iron3d_ai_wanderer::CMD_WIND
    );
}
