//! Hostile replay logs through the binary (issue 35): a real recording, then every way
//! of making it claim what it does not prove — cut off, checkpoints deleted, the end
//! altered or zeroed, hundreds of thousands of bogus records, unknown keys, records
//! after the end — is refused with a non-zero exit and a message that says what is
//! wrong, within the harness's time and memory limits, leaving nothing in the temp
//! folder. The unmodified log replays with exit 0. (Rules PD-REPLAY-*, `kernel/services/replay/src/lib.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "common/hostile.rs"]
mod hostile;

use hostile::{Ended, Probe};
use std::ffi::OsString;
use std::path::PathBuf;

/// Ticks of the recording and its checkpoint interval: checkpoints at 10, 20, …, 90.
const TICKS: u64 = 90;
const EVERY: u64 = 10;

/// A short real recording in a probe's scratch folder.
struct Recorded {
    probe: Probe,
    dir: PathBuf,
    lines: Vec<String>,
}

fn record() -> Recorded {
    let probe = Probe::new();
    let dir = probe.scratch("work");
    let log = dir.join("run.jsonl");
    let ticks = TICKS.to_string();
    let every = EVERY.to_string();
    let args: Vec<OsString> = [
        "run",
        "--headless",
        "--ticks",
        &ticks,
        "--seed",
        "3",
        "--checkpoint-every",
        &every,
        "--record",
    ]
    .iter()
    .map(OsString::from)
    .chain([log.clone().into_os_string()])
    .collect();
    probe.run(&dir, &args).ok();
    probe.assert_no_temp_leftovers();
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(lines[0].contains("\"kind\":\"header\""), "{lines:?}");
    assert!(
        lines.last().unwrap().starts_with("{\"kind\":\"end\""),
        "{lines:?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("\"kind\":\"checkpoint\""))
            .count() as u64,
        TICKS / EVERY
    );
    Recorded { probe, dir, lines }
}

impl Recorded {
    /// Replays `lines` (written to `name`) with `extra` arguments.
    fn replay(&self, name: &str, lines: &[String], extra: &[&str]) -> Ended {
        let path = self.dir.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let mut args: Vec<OsString> = vec!["run".into(), "--headless".into(), "--replay".into()];
        args.push(path.into_os_string());
        args.extend(extra.iter().map(OsString::from));
        let ended = self.probe.run(&self.dir, &args);
        self.probe.assert_no_temp_leftovers();
        ended
    }

    /// Replays `lines` expecting a refusal (exit 1, nothing on stdout) naming `needle`.
    fn refused(&self, name: &str, lines: &[String], needle: &str) {
        let e = self.replay(name, lines, &[]);
        e.refused_with(needle);
        assert_eq!(e.code, Some(1), "{}", e.text());
        assert!(
            e.stderr.contains(name),
            "the message names the file:\n{}",
            e.text()
        );
    }

    /// The index of the checkpoint line of `tick`.
    fn checkpoint_line(&self, tick: u64) -> usize {
        self.lines
            .iter()
            .position(|l| l.starts_with(&format!("{{\"kind\":\"checkpoint\",\"tick\":{tick},")))
            .unwrap()
    }

    /// The lines with the end record replaced by `edit` of its JSON.
    fn with_end(&self, edit: impl FnOnce(&mut serde_json::Value)) -> Vec<String> {
        let mut lines = self.lines.clone();
        let last = lines.last_mut().unwrap();
        let mut end: serde_json::Value = serde_json::from_str(last).unwrap();
        edit(&mut end);
        *last = end.to_string();
        lines
    }
}

fn bogus_checkpoints(from: u64) -> Vec<String> {
    let h = "0".repeat(64);
    (0..200_000u64)
        .map(|k| {
            format!(
                "{{\"kind\":\"checkpoint\",\"tick\":{},\"hash\":\"{h}\"}}",
                from + k * EVERY
            )
        })
        .collect()
}

#[test]
fn the_recording_replays_and_a_cut_log_is_incomplete() {
    let r = record();
    let e = r.replay("same.jsonl", &r.lines, &[]);
    e.ok();
    assert!(
        e.stdout
            .contains("replay: 9 checkpoints match; the end matches (tick 90)"),
        "{}",
        e.text()
    );
    // Fewer ticks: a partial replay, said so; more: refused.
    let e = r.replay("same.jsonl", &r.lines, &["--ticks", "45"]);
    e.ok();
    assert!(
        e.stdout.contains(
            "replay: partial, 45 of 90 ticks; 4 checkpoints match (the end is not compared)"
        ),
        "{}",
        e.text()
    );
    let e = r.replay("same.jsonl", &r.lines, &["--ticks", "91"]);
    e.refused_with("--ticks 91 is beyond the replay log's end (tick 90)");
    // Cut at a line boundary: just before the end, and half-way.
    let incomplete = "is incomplete: no 'end' record (the recording was cut off)";
    r.refused("cut-end.jsonl", &r.lines[..r.lines.len() - 1], incomplete);
    r.refused("cut-half.jsonl", &r.lines[..r.lines.len() / 2], incomplete);
    r.refused("header-only.jsonl", &r.lines[..1], incomplete);
}

#[test]
fn deleted_checkpoints_are_named() {
    let r = record();
    let none: Vec<String> = r
        .lines
        .iter()
        .filter(|l| !l.contains("\"kind\":\"checkpoint\""))
        .cloned()
        .collect();
    r.refused(
        "no-checkpoints.jsonl",
        &none,
        "the checkpoint at tick 10 is missing",
    );
    let mut one = r.lines.clone();
    one.remove(r.checkpoint_line(50));
    r.refused(
        "one-missing.jsonl",
        &one,
        "the checkpoint at tick 50 is missing (this one is at tick 60)",
    );
    let mut last = r.lines.clone();
    last.remove(r.checkpoint_line(90));
    r.refused(
        "last-missing.jsonl",
        &last,
        "the checkpoint at tick 90 is missing (checkpoint_every 10, the run ended at tick 90)",
    );
    let every0: Vec<String> = r
        .lines
        .iter()
        .map(|l| l.replace("\"checkpoint_every\":10", "\"checkpoint_every\":0"))
        .collect();
    r.refused(
        "every-0.jsonl",
        &every0,
        "checkpoint_every is 0; it must be at least 1",
    );
}

#[test]
fn the_end_record_is_checked_and_compared() {
    let r = record();
    r.refused(
        "end-0.jsonl",
        &r.with_end(|e| e["ticks"] = 0.into()),
        "end.ticks is 0: the log records no run",
    );
    r.refused(
        "end-85.jsonl",
        &r.with_end(|e| e["ticks"] = 85.into()),
        "end.ticks is 85, but the log has a checkpoint at tick 90",
    );
    r.refused(
        "end-100.jsonl",
        &r.with_end(|e| e["ticks"] = 100.into()),
        "the checkpoint at tick 100 is missing",
    );
    // Altered so that every record still agrees: the replay's end differs (exit 3).
    for (name, lines) in [
        (
            "end-hash.jsonl",
            r.with_end(|e| e["hash"] = "1".repeat(64).into()),
        ),
        ("end-95.jsonl", r.with_end(|e| e["ticks"] = 95.into())),
    ] {
        let e = r.replay(name, &lines, &[]);
        assert_eq!(
            e.code,
            Some(i32::from(iron3d_launcher::EXIT_REPLAY_DIVERGED)),
            "{}",
            e.text()
        );
        let tick = if name == "end-95.jsonl" { 95 } else { 90 };
        assert!(
            e.stdout.contains(&format!(
                "replay: DIVERGED first at tick {tick} (the end record: expected"
            )) && e
                .stderr
                .contains(&format!("replay diverged first at tick {tick}")),
            "{}",
            e.text()
        );
    }
}

#[test]
fn bogus_records_unknown_keys_and_odd_files_are_refused() {
    let r = record();
    // 200,000 bogus checkpoints after the end: refused at the first.
    let mut after = r.lines.clone();
    after.extend(bogus_checkpoints(TICKS + EVERY));
    r.refused(
        "bogus-after.jsonl",
        &after,
        &format!("line {}: record after 'end'", r.lines.len() + 1),
    );
    // … and before it: every line is read, the end names the first past it.
    let mut before = r.lines.clone();
    let end = before.pop().unwrap();
    before.extend(bogus_checkpoints(TICKS + EVERY));
    before.push(end);
    r.refused(
        "bogus-before.jsonl",
        &before,
        "end.ticks is 90, but the log has a checkpoint at tick 100",
    );
    // Anything after the end.
    let mut input_after = r.lines.clone();
    input_after.push(
        "{\"kind\":\"input\",\"tick\":91,\"events\":[{\"type\":\"command\",\"code\":1,\"arg\":3}]}"
            .into(),
    );
    r.refused("input-after.jsonl", &input_after, "record after 'end'");
    // Unknown keys, named.
    let mut header = r.lines.clone();
    header[0] = header[0].replacen(
        "{\"kind\":\"header\",",
        "{\"kind\":\"header\",\"foo\":1,",
        1,
    );
    r.refused(
        "header-key.jsonl",
        &header,
        "line 1: header: unknown key 'foo'",
    );
    let mut params = r.lines.clone();
    params[0] = params[0].replacen("\"params\":{", "\"params\":{\"speed\":2,", 1);
    r.refused(
        "params-key.jsonl",
        &params,
        "line 1: header: params has unknown key 'speed'",
    );
    let mut checkpoint = r.lines.clone();
    let at = r.checkpoint_line(20);
    checkpoint[at] = checkpoint[at].replacen('{', "{\"note\":\"x\",", 1);
    r.refused(
        "checkpoint-key.jsonl",
        &checkpoint,
        &format!("line {}: checkpoint: unknown key 'note'", at + 1),
    );
    // Not a regular file: refused by name before it is opened.
    let dir = r.dir.join("a-directory.jsonl");
    std::fs::create_dir(&dir).unwrap();
    let e = r.probe.run(
        &r.dir,
        ["run", "--headless", "--replay", dir.to_str().unwrap()],
    );
    e.refused_with("a-directory.jsonl: not a regular file (a directory)");
    let fifo = r.dir.join("fifo.jsonl");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let e = r.probe.run(
        &r.dir,
        ["run", "--headless", "--replay", fifo.to_str().unwrap()],
    );
    e.refused_with("fifo.jsonl: not a regular file (a FIFO)");
    r.probe.assert_no_temp_leftovers();
}
