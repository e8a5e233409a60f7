//! No leftovers in the temp folder (issue 35, deliverable 5), through the real `iron3d`
//! process with a private `TMPDIR`:
//!
//! * a run, a replay refused for a plugin difference, and a run killed in the middle
//!   leave nothing: shadow copies of plugin libraries are removed as soon as they are
//!   mapped (PD-HOST-SHADOW-UNLINK);
//! * shadow folders of processes that no longer run are swept by the next run, folders of
//!   live processes are kept (PD-HOST-SHADOW-SWEEP).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "common/hostile.rs"]
mod hostile;

use hostile::{Probe, entries};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The pid of a process that has ended and been reaped.
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true").spawn().unwrap();
    let pid = c.id();
    c.wait().unwrap();
    pid
}

#[test]
fn runs_and_refused_replays_leave_nothing_in_the_temp_folder() {
    let probe = Probe::new();
    let scratch = probe.scratch("logs");
    let log = scratch.join("run.jsonl");
    let log_arg = log.to_str().unwrap();
    let run = probe.run(
        &checkout(),
        [
            "run",
            "--headless",
            "--ticks",
            "30",
            "--seed",
            "5",
            "--record",
            log_arg,
        ],
    );
    run.ok();
    probe.assert_no_temp_leftovers();

    // The same log with the AI slot's plugin recorded under another version: refused
    // after the plugins were loaded.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut header: serde_json::Value = serde_json::from_str(&lines[0]).unwrap();
    let plugins = header["params"]["plugins"].as_array_mut().unwrap();
    let ai = plugins
        .iter_mut()
        .find(|p| p.as_str().unwrap().starts_with("ai="))
        .expect("the AI slot is recorded");
    *ai = serde_json::Value::String("ai=some-other-ai 9.9.9 wander".into());
    lines[0] = header.to_string();
    let altered = scratch.join("altered.jsonl");
    std::fs::write(&altered, lines.join("\n") + "\n").unwrap();
    let refused = probe.run(
        &checkout(),
        ["run", "--headless", "--replay", altered.to_str().unwrap()],
    );
    refused.refused_with("replay refused: this run differs from the recording");
    refused.refused_with("plugin set: slot ai recorded 'some-other-ai 9.9.9 wander'");
    probe.assert_no_temp_leftovers();
}

#[test]
fn a_run_killed_midway_leaves_nothing_and_stale_shadow_folders_are_swept() {
    let probe = Probe::new();
    // A long run, killed once its plugins are loaded (it has printed the slot report).
    let mut child = probe
        .command(
            &checkout(),
            ["run", "--headless", "--ticks", "100000000", "--realtime"],
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let started = hostile::now();
    let mut line = String::new();
    loop {
        line.clear();
        let n = std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        assert!(n > 0, "the run ended before its plugins were reported");
        if line.starts_with("plugin slot=") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no slot report"
        );
    }
    child.kill().unwrap();
    child.wait().unwrap();
    probe.assert_no_temp_leftovers();

    // Shadow folders a killed process left in the middle of a load: the dead one's go
    // at the next start, a live process's (this test's) and unrelated names stay.
    let tmp = probe.tmp();
    let dead = dead_pid();
    let own = std::process::id();
    for name in [
        format!("iron3d-shadow-{dead}-0"),
        format!("iron3d-shadow-{own}-3"),
        "iron3d-shadow-notes".to_owned(),
    ] {
        std::fs::create_dir(tmp.join(&name)).unwrap();
        std::fs::write(tmp.join(&name).join("libx-1-0.so"), vec![0u8; 4096]).unwrap();
    }
    probe
        .run(&checkout(), ["run", "--headless", "--ticks", "5"])
        .ok();
    assert_eq!(
        entries(&tmp),
        vec![
            format!("iron3d-shadow-{own}-3"),
            "iron3d-shadow-notes".to_owned()
        ]
    );
}
