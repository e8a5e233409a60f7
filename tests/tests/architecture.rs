//! Architecture rules checked on the real workspace: the dependency rule (plugins and
//! interfaces never depend on the kernel, the launcher or a plugin; the kernel never
//! names a plugin) and the tidy rule that every Rust file opens with a `//!` line.

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

#[test]
fn dependency_rule_holds_in_cargo_metadata() {
    let root = workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    assert!(packages.len() >= 3, "workspace members found");
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
            let allowed: &[&str] = match from.as_str() {
                "plugins" | "interfaces" => &["interfaces"],
                "kernel" => &["kernel", "interfaces"],
                "launcher" => &["launcher", "kernel", "interfaces", "plugins"],
                _ => continue,
            };
            if !allowed.contains(&to.as_str()) {
                violations.push(format!(
                    "{name} ({from}/) depends on {} ({to}/)",
                    dep["name"]
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
