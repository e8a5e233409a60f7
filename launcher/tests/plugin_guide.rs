//! The plugin SDK as a stranger meets it, through the real `iron3d` process:
//!
//! * `plugins/AUTHORS.md` is followed step by step: every code block is a file of the
//!   walk or a command of it (no other kind is allowed), the crate is assembled in a
//!   temporary folder **outside** this workspace beside a link named `iron3d-rs` to the
//!   checkout (the layout the guide describes), its commands run in order, and what they
//!   print is checked. The one substitution: the guide's `../iron3d-rs/target/release/
//!   iron3d` is this build's `iron3d`.
//! * A misdeclared export (a `describe` that recurses until the stack overflows) is
//!   refused by name and the mission goes on, by registry and by `--swap`
//!   (PD-HOST-LOAD-PROBE); `--strict-plugins` refuses to start.
//! * `iron3d mods new --plugin` makes crates that build outside the repository, and
//!   `mods check` finds their libraries (also through `CARGO_TARGET_DIR`) or names every
//!   path it searched.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn iron3d() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iron3d"));
    c.current_dir(checkout());
    c
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A built test library of this workspace (`target/<profile>/deps` or its parent).
fn built_library(name: &str) -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_iron3d"));
    let dir = exe.parent().unwrap();
    let file = format!("lib{name}.so");
    [dir.join("deps").join(&file), dir.join(&file)]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{file} not built next to {}", exe.display()))
}

/// A cargo command for crates outside the workspace: offline (the registry cache the
/// workspace build filled), with no target-directory override from the environment.
fn cargo(dir: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(dir)
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS");
    c
}

/// One fenced block of the guide: its info string and its text.
struct Block {
    info: String,
    text: String,
    line: usize,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in markdown.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("```") {
            match open.take() {
                Some(b) => out.push(b),
                None => {
                    open = Some(Block {
                        info: rest.trim().to_owned(),
                        text: String::new(),
                        line: n + 1,
                    })
                }
            }
        } else if let Some(b) = open.as_mut() {
            b.text.push_str(line);
            b.text.push('\n');
        }
    }
    assert!(open.is_none(), "an unclosed code block in the guide");
    out
}

/// The guide as one bash script: `sh` blocks as they are, `LANG file=PATH` blocks written
/// to PATH (the first block of a path creates it, later ones append), each block
/// announced with a marker line so the output can be split per block.
fn walk_script(guide: &str, engine: &Path) -> (String, Vec<String>) {
    let mut script = String::from("set -euo pipefail\nexec 2>&1\n");
    let mut written: Vec<String> = Vec::new();
    let mut names = Vec::new();
    for (k, b) in blocks(guide).iter().enumerate() {
        let mut words = b.info.split_whitespace();
        let lang = words.next().unwrap_or("");
        let file = words.find_map(|w| w.strip_prefix("file="));
        script.push_str(&format!("echo '=== block {k}'\n"));
        match (lang, file) {
            ("sh", None) => {
                let engine = engine.display().to_string();
                script.push_str(
                    &b.text
                        .replace("../iron3d-rs/target/release/iron3d", &engine),
                );
                names.push(format!("sh at line {}", b.line));
            }
            ("rust" | "toml", Some(path)) => {
                let op = if written.iter().any(|w| w == path) {
                    ">>"
                } else {
                    written.push(path.to_owned());
                    ">"
                };
                script.push_str(&format!(
                    "cat {op} '{path}' <<'GUIDE_EOF'\n{}GUIDE_EOF\n",
                    b.text
                ));
                names.push(format!("{path} at line {}", b.line));
            }
            // A picture of folders, not code.
            ("text", None) => names.push(format!("text at line {}", b.line)),
            _ => panic!(
                "plugins/AUTHORS.md line {}: a code block the guide's test cannot check (```{}); use `sh`, or `rust file=PATH` / `toml file=PATH`",
                b.line, b.info
            ),
        }
    }
    (script, names)
}

#[test]
fn the_plugin_guide_walk_builds_outside_the_workspace_loads_by_registry_and_by_swap() {
    let guide = std::fs::read_to_string(checkout().join("plugins/AUTHORS.md")).unwrap();
    let (script, names) = walk_script(&guide, Path::new(env!("CARGO_BIN_EXE_iron3d")));
    assert!(
        names.iter().filter(|n| n.starts_with("src/lib.rs")).count() >= 2
            && names.iter().any(|n| n.starts_with("Cargo.toml")),
        "the walk writes the crate: {names:?}"
    );
    let work = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(checkout(), work.path().join("iron3d-rs")).unwrap();
    std::fs::write(work.path().join("walk.sh"), &script).unwrap();
    let cache = work.path().join("cache");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").unwrap()).join(".cargo"));
    let out = Command::new("bash")
        .arg("walk.sh")
        .current_dir(work.path())
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_HOME", &cargo_home)
        .env("XDG_CACHE_HOME", &cache)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let all = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "the guide's walk failed:\n{}",
        text(&out)
    );
    // The output of each block, by its marker.
    let part = |k: usize| -> &str {
        let start = all
            .find(&format!("=== block {k}\n"))
            .unwrap_or_else(|| panic!("block {k} ran: {all}"));
        let rest = &all[start..];
        let end = rest[1..].find("=== block ").map_or(rest.len(), |e| e + 1);
        &rest[..end]
    };
    let sh: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(_, n)| n.starts_with("sh"))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(sh.len(), 5, "make, build, registry, run, swap: {names:?}");
    let run = part(sh[3]);
    assert!(
        run.contains("plugin slot=ai my-plugin 0.1.0 my-ai ("),
        "the registry puts the guide's plugin in the AI slot:\n{run}"
    );
    assert_eq!(
        run.matches("my-plugin: still here").count(),
        3,
        "ticks 100, 200, 300:\n{run}"
    );
    assert!(run.contains("state_hash="), "{run}");
    let swap = part(sh[4]);
    assert!(
        swap.contains("host: swapped ai after tick 150")
            && swap.contains("-> my-plugin 0.1.0 my-ai ("),
        "the swap by path:\n{swap}"
    );
    assert!(
        swap.matches("my-plugin: still here").count() >= 1,
        "the swapped-in plugin runs:\n{swap}"
    );
    assert!(
        !all.contains("runs its fallback"),
        "no slot of the walk runs a fallback:\n{all}"
    );
}

#[test]
fn every_code_block_of_the_guide_is_part_of_the_walk() {
    let guide = std::fs::read_to_string(checkout().join("plugins/AUTHORS.md")).unwrap();
    let (_, names) = walk_script(&guide, Path::new("iron3d"));
    assert!(names.len() >= 9, "{names:?}");
    // And the test's block reader sees a block that is not checkable.
    let bad = "# x\n```rust\nfn main() {}\n```\n";
    let r = std::panic::catch_unwind(|| walk_script(bad, Path::new("iron3d")));
    assert!(r.is_err(), "a bare ```rust block is refused");
}

#[test]
fn a_describe_that_recurses_is_refused_by_name_and_the_mission_goes_on() {
    let bad = built_library("iron3d_test_bad_describe");
    let dir = tempfile::tempdir().unwrap();
    let registry = dir.path().join("bad.ini");
    std::fs::write(
        &registry,
        format!(
            "terrain iron3d_terrain terrain\nai {} ai\ncontrol iron3d_control control\n",
            bad.display()
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    // By registry: the slot runs its null plugin, an error line says why, the run ends.
    let out = iron3d()
        .env("XDG_CACHE_HOME", &cache)
        .args(["run", "--headless", "--demo", "--ticks", "40", "--registry"])
        .arg(&registry)
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.contains("ERROR") && l.contains("slot=ai"))
        .unwrap_or_else(|| panic!("an error line for the AI slot: {all}"));
    assert!(
        line.contains("libiron3d_test_bad_describe.so")
            && line.contains("refused")
            && line.contains("stack overflow"),
        "{line}"
    );
    assert!(all.contains("plugin slot=ai iron3d-null"), "{all}");
    assert!(all.contains("state_hash="), "the mission went on: {all}");
    // By --swap: refused, the old instance keeps running.
    let out = iron3d()
        .env("XDG_CACHE_HOME", &cache)
        .args(["run", "--headless", "--demo", "--ticks", "40", "--swap"])
        .arg(format!("10:ai:{}", bad.display()))
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("libiron3d_test_bad_describe.so") && all.contains("stack overflow"),
        "{all}"
    );
    assert!(!all.contains("host: swapped ai"), "{all}");
    assert!(all.contains("state_hash="), "{all}");
    // --strict-plugins: refused before anything starts.
    let out = iron3d()
        .env("XDG_CACHE_HOME", &cache)
        .args([
            "run",
            "--headless",
            "--demo",
            "--ticks",
            "40",
            "--strict-plugins",
            "--registry",
        ])
        .arg(&registry)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("--strict-plugins: refusing to run; slot ai could not load"),
        "{all}"
    );
    assert!(!all.contains("state_hash="), "{all}");
}

#[test]
fn mods_new_plugin_crates_build_outside_the_repository_and_check_finds_them() {
    let dir = tempfile::tempdir().unwrap();
    let mods = dir.path().join("mods");
    let list = dir.path().join("list.toml");
    // A target folder shared by this test's two crates, kept between runs.
    let target = checkout().join("target").join("sdk-check");
    for (id, slot) in [("my-ai", "ai"), ("map-view", "render")] {
        let out = iron3d()
            .args(["mods", "new", id, "--plugin", slot, "--mods-dir"])
            .arg(&mods)
            .output()
            .unwrap();
        let all = text(&out);
        assert!(out.status.success(), "{all}");
        assert!(
            all.contains(&format!(
                "enable it: iron3d mods enable {id} --mods-dir {}",
                mods.display()
            )),
            "the hint carries --mods-dir: {all}"
        );
        let out = iron3d()
            .args(["mods", "enable", id, "--mods-dir"])
            .arg(&mods)
            .arg("--list")
            .arg(&list)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    // Not built yet: check fails naming every path it searched.
    let out = iron3d()
        .env_remove("CARGO_TARGET_DIR")
        .args(["mods", "check", "--mods-dir"])
        .arg(&mods)
        .arg("--list")
        .arg(&list)
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let expected = mods.join("my-ai/target/release/libiron3d_mod_my_ai.so");
    assert!(
        all.contains("plugin library of slot ai (ai) not found")
            && all.contains(&expected.display().to_string()),
        "{all}"
    );
    // Built outside the workspace with CARGO_TARGET_DIR: check finds them through it.
    for id in ["my-ai", "map-view"] {
        let out = cargo(&mods.join(id))
            .env("CARGO_TARGET_DIR", &target)
            .args(["build", "--release"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{id} builds outside: {}", text(&out));
    }
    let out = iron3d()
        .env("CARGO_TARGET_DIR", &target)
        .args(["mods", "check", "--mods-dir"])
        .arg(&mods)
        .arg("--list")
        .arg(&list)
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(all.contains("ok: load order my-ai, map-view"), "{all}");
    // The render template draws and captures: a screenshot through the mod's renderer.
    let shot = dir.path().join("map.png");
    let out = iron3d()
        .env("CARGO_TARGET_DIR", &target)
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .args([
            "play",
            "--offscreen",
            "--no-briefing",
            "--frames",
            "5",
            "--mods",
            "map-view",
            "--renderer",
            "map-view",
            "--mods-dir",
        ])
        .arg(&mods)
        .arg("--screenshot")
        .arg(&shot)
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let file = std::fs::File::open(&shot).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut pixels).unwrap();
    // Every object of the battle is a dot, coloured by its clan: ClanID 0 blue, 1 red
    // (bright in view, half as bright culled).
    let count = |rgb: [u8; 3]| {
        let half = rgb.map(|c| c / 2);
        pixels
            .chunks_exact(4)
            .filter(|p| p[..3] == rgb || p[..3] == half)
            .count()
    };
    let (blue, red) = (count([80, 160, 255]), count([255, 90, 70]));
    assert!(
        blue >= 9 && red >= 9,
        "both clans' objects are on the map: {blue} blue and {red} red pixels"
    );
}
