//! The behaviour golden of issue 36 (one run path): what `iron3d run --headless` and
//! `iron3d play --offscreen` produce on the demo (seed 1) — the trace's bytes, the state
//! hash, the outcome and summary lines, recorded replay logs and their verification —
//! compared with `tests/goldens/behaviour.txt`, which was written by the code *before* the
//! run path was redesigned. A redesign that keeps behaviour keeps every line.
//!
//! The cases: BATTLE for seeds 1–5 to its outcome; DEMO1 and DEMO2 and the built-in
//! scenario (200 objects) for 2,000 ticks; DEMO1 recorded and replayed; BATTLE played
//! offscreen with the command-list renderer to its outcome, traced and recorded.
//!
//! When a change is *meant* to change behaviour (a generator bump, a gameplay fix), the
//! failure message prints the whole new text: review it, then replace the file with it
//! and say why in the commit.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::fmt::Write as _;
use std::path::Path;

/// The golden file.
fn golden_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("goldens/behaviour.txt")
}

/// BLAKE3 of a file's bytes, hex.
fn file_hash(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    blake3::hash(&bytes).to_hex().to_string()
}

/// The lines of a run's output that are behaviour: the outcome, the summary (wall-clock
/// figures cut), host events, replay verdicts and the final state hash. Lines naming
/// files or machine paths (registry, plugin paths, trace and record files), swap
/// reports (their latency is wall-clock time) and the per-phase timing table are not.
fn behaviour_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| !l.starts_with("host: swapped "))
        .filter(|l| {
            [
                "outcome=",
                "scenario=",
                "host: ",
                "replay: ",
                "renderer=",
                "mission=",
                "state_hash=",
            ]
            .iter()
            .any(|p| l.starts_with(p))
                || l.starts_with("frames=")
        })
        .map(|l| match l.find(" fps=") {
            // `play`'s summary ends with its wall-clock frame rate.
            Some(i) if l.starts_with("renderer=") => l[..i].to_owned(),
            _ => l.to_owned(),
        })
        .collect()
}

/// Runs `iron3d ARGS` (exit 0), and appends the case's section to `text`: its behaviour
/// lines, then each named file's hash.
fn case(text: &mut String, name: &str, args: &[&str], files: &[(&str, &Path)]) -> String {
    let out = iron3d_e2e::run_ok(args);
    writeln!(text, "[{name}]").unwrap();
    for l in behaviour_lines(&out) {
        writeln!(text, "{l}").unwrap();
    }
    for (label, path) in files {
        writeln!(text, "{label}.blake3={}", file_hash(path)).unwrap();
    }
    out
}

#[test]
fn run_and_play_behave_as_before_the_redesign() {
    let demo = iron3d_e2e::render::demo().to_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let file = |n: &str| dir.path().join(n);
    let mut text = String::new();

    for seed in 1..=5u32 {
        let trace = file(&format!("battle{seed}.jsonl"));
        let seed_s = seed.to_string();
        case(
            &mut text,
            &format!("run BATTLE seed {seed}"),
            &[
                "run",
                "--headless",
                "--game-dir",
                &demo,
                "--mission",
                "BATTLE",
                "--ticks",
                "20000",
                "--seed",
                &seed_s,
                "--trace",
                trace.to_str().unwrap(),
            ],
            &[("trace", &trace)],
        );
    }
    for mission in ["DEMO1", "DEMO2"] {
        let trace = file(&format!("{mission}.jsonl"));
        case(
            &mut text,
            &format!("run {mission}"),
            &[
                "run",
                "--headless",
                "--game-dir",
                &demo,
                "--mission",
                mission,
                "--ticks",
                "2000",
                "--seed",
                "1",
                "--trace",
                trace.to_str().unwrap(),
            ],
            &[("trace", &trace)],
        );
    }
    let trace = file("scenario.jsonl");
    case(
        &mut text,
        "run built-in scenario",
        &[
            "run",
            "--headless",
            "--ticks",
            "2000",
            "--seed",
            "1",
            "--objects",
            "200",
            "--trace",
            trace.to_str().unwrap(),
        ],
        &[("trace", &trace)],
    );
    let log = file("demo1.replay");
    case(
        &mut text,
        "record DEMO1",
        &[
            "run",
            "--headless",
            "--game-dir",
            &demo,
            "--mission",
            "DEMO1",
            "--ticks",
            "2000",
            "--seed",
            "3",
            "--record",
            log.to_str().unwrap(),
            "--checkpoint-every",
            "100",
        ],
        &[("replay", &log)],
    );
    case(
        &mut text,
        "replay DEMO1",
        &[
            "run",
            "--headless",
            "--game-dir",
            &demo,
            "--replay",
            log.to_str().unwrap(),
        ],
        &[],
    );
    let trace = file("play.jsonl");
    let log = file("play.replay");
    case(
        &mut text,
        "play BATTLE seed 1",
        &[
            "play",
            "--game-dir",
            &demo,
            "--mission",
            "BATTLE",
            "--seed",
            "1",
            "--offscreen",
            "--renderer",
            "capture",
            "--width",
            "64",
            "--height",
            "48",
            "--frames",
            "20000",
            "--trace",
            trace.to_str().unwrap(),
            "--trace-every",
            "10",
            "--record",
            log.to_str().unwrap(),
        ],
        &[("trace", &trace), ("replay", &log)],
    );
    case(
        &mut text,
        "replay of play BATTLE seed 1",
        &[
            "run",
            "--headless",
            "--game-dir",
            &demo,
            "--replay",
            log.to_str().unwrap(),
        ],
        &[],
    );

    let golden = std::fs::read_to_string(golden_path()).unwrap_or_default();
    if golden != text {
        let first = golden
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(golden.lines().count().min(text.lines().count()));
        panic!(
            "behaviour differs from {} first at line {} (golden {:?}, now {:?}).\n\
             The whole text now (replace the file with it only when the change is meant):\n{text}",
            golden_path().display(),
            first + 1,
            golden.lines().nth(first),
            text.lines().nth(first),
        );
    }
}
