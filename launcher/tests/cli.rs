//! The real `iron3d` process: exit codes, stdout/stderr separation and argument errors.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::process::Command;

fn iron3d() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iron3d"))
}

#[test]
fn headless_run_prints_stats_and_ends_with_the_state_hash() {
    let out = iron3d()
        .args(["run", "--headless", "--ticks", "60", "--log-level", "info"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap();
    assert!(
        last.starts_with("state_hash=") && last.len() == "state_hash=".len() + 64,
        "{last}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("headless run"),
        "tracing logs go to stderr: {stderr}"
    );
    assert!(!stdout.contains("headless run"), "and not to stdout");
}

#[test]
fn bad_arguments_exit_with_a_usage_error() {
    let out = iron3d()
        .args(["run", "--headless", "--ticks", "ten"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--ticks"));
    let out = iron3d().args(["run", "--ticks", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--headless"));
}

#[test]
fn missing_replay_file_names_the_path() {
    let out = iron3d()
        .args(["run", "--headless", "--replay", "/nonexistent/log.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/log.jsonl"), "{err}");
}

/// `iron3d bench` runs the `iron3d-bench` driver beside the executable with the same
/// options (the figures themselves: `launcher/bench/tests/cli.rs`) and returns its exit
/// code; without one it says how to build or run it.
#[cfg(unix)]
#[test]
fn bench_runs_the_driver_beside_the_executable() {
    use std::os::unix::fs::PermissionsExt;
    let built = std::path::Path::new(env!("CARGO_BIN_EXE_iron3d"));
    let dir = tempfile::Builder::new()
        .prefix("iron3d-bench-forward-")
        .tempdir_in(built.parent().unwrap())
        .unwrap();
    let exe = dir.path().join("iron3d");
    if std::fs::hard_link(built, &exe).is_err() {
        std::fs::copy(built, &exe).unwrap();
    }
    let out = Command::new(&exe)
        .args(["bench", "--objects", "5", "--no-ai"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("iron3d-bench is not beside this executable")
            && err.contains("`cargo run --release -p iron3d-bench -- [options]`"),
        "{err}"
    );
    assert!(out.stdout.is_empty());

    // A stand-in driver that prints its arguments and exits 7.
    let driver = dir.path().join("iron3d-bench");
    std::fs::write(&driver, "#!/bin/sh\necho \"driver $*\"\nexit 7\n").unwrap();
    std::fs::set_permissions(&driver, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(&exe)
        .args([
            "--log-level",
            "info",
            "bench",
            "--objects",
            "5",
            "--no-ai",
            "--no-render",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "driver --log-level=info --objects=5 --ticks=300 --no-render --no-ai\n"
    );
}

#[test]
fn a_bad_registry_line_is_an_error_naming_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("iron3d-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let reg = dir.join("plugins.ini");
    std::fs::write(&reg, "ai iron3d_ai_wanderer wanderer\nrender iron3d_null\n").unwrap();
    let out = iron3d()
        .args(["run", "--headless", "--ticks", "5", "--registry"])
        .arg(&reg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{}:2:19: missing factory", reg.display())),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "nothing runs after a registry error");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_default_run_loads_every_slot_dynamically_from_the_registry() {
    let out = iron3d()
        .args(["run", "--headless", "--ticks", "3"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    for slot in [
        "terrain", "ai", "control", "effects", "audio", "render", "net", "input",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("plugin slot={slot} ")))
            .unwrap_or_else(|| panic!("no line for slot {slot}:\n{stdout}"));
        assert!(
            line.contains(".so)"),
            "loaded from a shared library: {line}"
        );
    }
    assert!(stdout.contains("plugin slot=ai ai-wanderer"), "{stdout}");
}

#[test]
fn archive_check_names_the_check_the_entry_and_the_offset() {
    let dir = std::env::temp_dir().join(format!("iron3d-cli-archive-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.bin"), b"alpha").unwrap();
    std::fs::write(dir.join("b.bin"), b"beta").unwrap();
    std::fs::write(
        dir.join("m.json"),
        r#"{"format":"nres","entries":[{"name":"a.bin","file":"a.bin"},{"name":"b.bin","file":"b.bin"}]}"#,
    )
    .unwrap();
    let lib = dir.join("t.lib");
    let packed = iron3d()
        .args(["archive", "pack", "--manifest"])
        .arg(dir.join("m.json"))
        .arg("-o")
        .arg(&lib)
        .output()
        .unwrap();
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    let mut bytes = std::fs::read(&lib).unwrap();
    let n = bytes.len();
    bytes[n - 4] = 9;
    std::fs::write(&lib, &bytes).unwrap();
    let out = iron3d()
        .args(["archive", "check"])
        .arg(&lib)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[sort_index_range]") && err.contains("entry #1") && err.contains("offset 0x"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn console_swap_and_quit_in_an_interactive_run() {
    use std::io::Write as _;
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_iron3d"));
    let lib = exe
        .parent()
        .unwrap()
        .join("deps")
        .join("libiron3d_ai_wanderer.so");
    let lib = if lib.is_file() {
        lib
    } else {
        exe.parent().unwrap().join("libiron3d_ai_wanderer.so")
    };
    let mut child = iron3d()
        .args([
            "run",
            "--headless",
            "--ticks",
            "100000",
            "--console",
            "--fps",
            "120",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "swap ai {}", lib.display()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(600));
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("host: swapped ai after tick"), "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("state_hash="));
}

#[test]
fn run_demo_generates_the_content_once_and_plays_its_first_mission() {
    let cache = std::env::temp_dir().join(format!("iron3d-demo-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let run = || {
        iron3d()
            .env("XDG_CACHE_HOME", &cache)
            .args(["run", "--headless", "--demo", "--ticks", "10"])
            .output()
            .unwrap()
    };
    let first = run();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let out = String::from_utf8(first.stdout).unwrap();
    assert!(out.contains("demo: ") && out.contains("mission="), "{out}");
    assert!(out.lines().last().unwrap().starts_with("state_hash="));
    let second = run();
    assert!(second.status.success());
    let out2 = String::from_utf8(second.stdout).unwrap();
    assert!(
        !out2.contains("demo: "),
        "the cached content is reused:\n{out2}"
    );
    assert_eq!(
        out.lines().last(),
        out2.lines().last(),
        "same content, same run, same hash"
    );
    let _ = std::fs::remove_dir_all(&cache);
}
