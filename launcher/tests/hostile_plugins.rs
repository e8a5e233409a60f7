//! Plugin libraries a stranger names (issue 35, deliverable 1), through the real `iron3d`
//! process: a real plugin cut at 4 KiB, 64 KiB and half its length, a directory, libm
//! and a text file, named by a registry, are each refused by name ("not an Iron3D
//! plugin") — the slot runs its fallback, or `--strict-plugins` refuses to start — and
//! never end the process with a signal (the harness), leaving nothing in the temp folder.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "common/hostile.rs"]
mod hostile;

use hostile::Probe;
use std::path::{Path, PathBuf};

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A built plugin library of this workspace next to the `iron3d` binary.
fn built_library(name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_iron3d"));
    let dir = exe.parent().unwrap();
    let file = format!("lib{name}.so");
    [dir.join("deps").join(&file), dir.join(&file)]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{file} not built next to {}", exe.display()))
}

#[test]
fn truncated_and_foreign_libraries_named_by_a_registry_are_refused_by_name() {
    let probe = Probe::new();
    let scratch = probe.scratch("libs");
    let whole = std::fs::read(built_library("iron3d_ai_wanderer")).unwrap();
    let mut named: Vec<(String, PathBuf)> = Vec::new();
    for n in [4096, 65536, whole.len() / 2] {
        let p = scratch.join(format!("libcut{n}.so"));
        std::fs::write(&p, &whole[..n]).unwrap();
        named.push((format!("cut at {n}"), p));
    }
    let folder = scratch.join("libfolder.so");
    std::fs::create_dir(&folder).unwrap();
    named.push(("a directory".into(), folder));
    let text = scratch.join("libtext.so");
    std::fs::write(&text, "not a library\n").unwrap();
    named.push(("a text file".into(), text));
    if let Some(libm) = [
        "/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ]
    .into_iter()
    .map(PathBuf::from)
    .find(|p| p.is_file())
    {
        named.push(("libm".into(), libm));
    }
    let registry = scratch.join("plugins.ini");
    for (what, lib) in &named {
        std::fs::write(
            &registry,
            format!(
                "ai {} wander\ncontrol iron3d_control control\n",
                lib.display()
            ),
        )
        .unwrap();
        let reg = registry.to_str().unwrap();
        let run = probe.run(
            &checkout(),
            ["run", "--headless", "--ticks", "3", "--registry", reg],
        );
        run.ok();
        assert!(
            run.stdout.contains("host: ai could not load") && run.stdout.contains("refused"),
            "{what}:\n{}",
            run.text()
        );
        assert!(
            run.stdout.contains("refused: not an Iron3D plugin: "),
            "{what}: says why:\n{}",
            run.text()
        );
        let strict = probe.run(
            &checkout(),
            [
                "run",
                "--headless",
                "--ticks",
                "3",
                "--registry",
                reg,
                "--strict-plugins",
            ],
        );
        strict.refused_with("--strict-plugins");
        probe.assert_no_temp_leftovers();
    }
}
