//! Tests of the replay log: its file format, its strict reader and its checks.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use super::*;

fn header() -> ReplayHeader {
    ReplayHeader {
        format: REPLAY_FORMAT.into(),
        version: REPLAY_VERSION,
        seed: 7,
        tick_hz: 30,
        scenario: "test".into(),
        params: BTreeMap::from([("objects".to_owned(), serde_json::json!(10))]),
        checkpoint_every: 1,
        mission: None,
        start: None,
    }
}

/// PD-REPLAY-FROM-SAVE: a log going on from tick 7 with a checkpoint every 5 ticks
/// has its records after tick 7 (checkpoints at 10, 15) and reads back; records at
/// or before the start, a missing first checkpoint, an end at the start and a bad
/// start are refused by line.
#[test]
fn a_log_from_a_save_holds_the_ticks_after_its_start() {
    let mut h = header();
    h.checkpoint_every = 5;
    h.start = Some(ReplayStart {
        tick: 7,
        state_hash: StateHash([3; 32]).to_hex(),
        save_blake3: "ab".repeat(32),
    });
    let mut log = ReplayLog::new(h);
    log.record_inputs(
        8,
        &[InputEvent::Key {
            code: 1,
            down: true,
        }],
    );
    log.record_checkpoint(10, StateHash([10; 32]));
    log.record_checkpoint(15, StateHash([15; 32]));
    log.end = Some((17, StateHash([0xee; 32])));
    let text = log.to_text();
    let back = ReplayLog::parse(&text, "x.jsonl").unwrap();
    assert_eq!(back, log);
    assert_eq!(ReplayStart::tick_of(&back.header), 7);
    let input7 = r#"{"kind":"input","tick":7,"events":[{"type":"key","code":1,"down":true}]}"#;
    assert!(refusal(&edit(&text, 1, Some(input7))).contains("input tick 7 is not after tick 7"));
    assert!(refusal(&edit(&text, 2, None)).contains("checkpoint at tick 10 is missing"));
    let cp5 = format!(
        r#"{{"kind":"checkpoint","tick":5,"hash":"{}"}}"#,
        StateHash([5; 32]).to_hex()
    );
    assert!(refusal(&edit(&text, 2, Some(&cp5))).contains("not after tick 5"));
    let mut at_start = log.clone();
    at_start.checkpoints.clear();
    at_start.inputs.clear();
    at_start.end = Some((7, StateHash([0xee; 32])));
    assert!(refusal(&at_start.to_text()).contains("records no tick"));
    for (field, bad) in [("state_hash", "\"zz\""), ("save_blake3", "\"12\"")] {
        let mut v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        v["start"][field] = serde_json::from_str(bad).unwrap();
        let e = refusal(&edit(&text, 0, Some(&v.to_string())));
        assert!(
            e.contains(&format!("start.{field}")) && e.contains("line 1"),
            "{e}"
        );
    }
    let mut v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["start"]["extra"] = serde_json::json!(1);
    assert!(refusal(&edit(&text, 0, Some(&v.to_string()))).contains("extra"));
}

/// A finished recording of `ticks` ticks with a checkpoint every `every` ticks and
/// an input at tick 2 — what the recorders write.
fn recorded(every: u64, ticks: u64) -> ReplayLog {
    let mut h = header();
    h.checkpoint_every = every;
    let mut log = ReplayLog::new(h);
    log.record_inputs(
        2,
        &[InputEvent::Key {
            code: 1,
            down: true,
        }],
    );
    for t in (every..=ticks).step_by(every as usize) {
        log.record_checkpoint(t, StateHash([t as u8; 32]));
    }
    log.end = Some((ticks, StateHash([0xee; 32])));
    log
}

/// The error of parsing `text`, as shown.
fn refusal(text: &str) -> String {
    ReplayLog::parse(text, "x.jsonl").unwrap_err().to_string()
}

/// `text` with line `index` (0-based) replaced by `with` (removed when `None`).
fn edit(text: &str, index: usize, with: Option<&str>) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    match with {
        Some(w) => lines[index] = w,
        None => {
            lines.remove(index);
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn a_mission_header_roundtrips_and_names_its_differences() {
    let mission = ReplayMission {
        name: "DEMO1".into(),
        data: BTreeMap::from([
            ("game:objects.rlb".to_owned(), "aa".repeat(32)),
            ("game:MISSIONS/DEMO1/data.tma".to_owned(), "bb".repeat(32)),
        ]),
    };
    let mut log = recorded(1, 2);
    log.header.mission = Some(mission.clone());
    assert_eq!(ReplayLog::parse(&log.to_text(), "mem").unwrap(), log);
    assert!(mission.differences(&mission).is_empty());
    let mut here = mission.clone();
    here.name = "DEMO2".into();
    here.data
        .insert("game:MISSIONS/DEMO1/data.tma".into(), "cc".repeat(32));
    here.data.remove("game:objects.rlb");
    here.data.insert("game:extra.lib".into(), "dd".repeat(32));
    assert_eq!(
        mission.differences(&here),
        [
            "mission: recorded 'DEMO1', here 'DEMO2'",
            "game data game:MISSIONS/DEMO1/data.tma: recorded bbbbbbbbbbbbbbbb…, here cccccccccccccccc…",
            "game data game:objects.rlb: read by the recording, not here",
            "game data game:extra.lib: read here, not by the recording",
        ]
    );
}

#[test]
fn text_roundtrip() {
    let mut log = ReplayLog::new(header());
    log.record_inputs(3, &[InputEvent::Command { code: 1, arg: -2 }]);
    log.record_checkpoint(1, StateHash([1; 32]));
    log.record_checkpoint(2, StateHash([2; 32]));
    log.record_checkpoint(3, StateHash([3; 32]));
    log.end = Some((3, StateHash([3; 32])));
    let text = log.to_text();
    assert_eq!(ReplayLog::parse(&text, "mem").unwrap(), log);
    // Fewer checkpoints than ticks, and none at all when the interval is longer
    // than the run (the end record still proves the run).
    for (every, ticks) in [(10, 35), (10, 40), (50, 7)] {
        let log = recorded(every, ticks);
        assert_eq!(ReplayLog::parse(&log.to_text(), "mem").unwrap(), log);
    }
}

#[test]
fn strict_errors_name_the_line() {
    let good = ReplayLog::new(header()).to_text();
    let e = ReplayLog::parse("{\"kind\":\"input\",\"tick\":1,\"events\":[]}\n", "x").unwrap_err();
    assert!(
        e.to_string().contains("line 1") && e.to_string().contains("header"),
        "{e}"
    );
    let ev = r#"[{"type":"key","code":1,"down":true}]"#;
    let bad_order = format!(
        "{good}{{\"kind\":\"input\",\"tick\":5,\"events\":{ev}}}\n{{\"kind\":\"input\",\"tick\":5,\"events\":{ev}}}\n"
    );
    let e = ReplayLog::parse(&bad_order, "x").unwrap_err();
    assert!(e.to_string().contains("line 3"), "{e}");
    let bad_hash = format!("{good}{{\"kind\":\"checkpoint\",\"tick\":1,\"hash\":\"abc\"}}\n");
    assert!(
        ReplayLog::parse(&bad_hash, "x")
            .unwrap_err()
            .to_string()
            .contains("bad hash")
    );
    let bad_version = good.replace("\"version\":2", "\"version\":9");
    assert!(
        ReplayLog::parse(&bad_version, "x")
            .unwrap_err()
            .to_string()
            .contains("version 9")
    );
    assert_eq!(
        refusal(""),
        "replay log x.jsonl: empty log: no header",
        "no line 0 in messages"
    );
    assert!(ReplayLog::parse("not json\n", "x").is_err());
    assert!(
        refusal(&format!(
            "{good}{{\"kind\":\"input\",\"tick\":1,\"events\":[]}}\n"
        ))
        .contains("no events")
    );
}

#[test]
fn a_log_cut_anywhere_before_its_end_is_incomplete() {
    let text = recorded(1, 5).to_text();
    let lines: Vec<&str> = text.lines().collect();
    for keep in 1..lines.len() {
        let cut = lines[..keep].join("\n") + "\n";
        assert_eq!(
            refusal(&cut),
            "replay log x.jsonl is incomplete: no 'end' record (the recording was cut off)",
            "cut after {keep} lines"
        );
    }
    // Cut inside a line: that line is a bad record.
    let mid = &text[..text.len() - 20];
    assert!(refusal(mid).contains("bad record"), "{}", refusal(mid));
}

#[test]
fn checkpoints_are_exactly_the_multiples_of_the_interval_up_to_the_end() {
    let log = recorded(2, 10);
    let text = log.to_text();
    let kinds: Vec<&str> = text.lines().collect();
    let checkpoint_lines: Vec<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("\"checkpoint\""))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(checkpoint_lines.len(), 5);
    // Every checkpoint deleted: the first one is named.
    let mut none = text.clone();
    for &i in checkpoint_lines.iter().rev() {
        none = edit(&none, i, None);
    }
    let e = refusal(&none);
    assert!(e.contains("the checkpoint at tick 2 is missing"), "{e}");
    // One deleted, in the middle and at the end.
    let e = refusal(&edit(&text, checkpoint_lines[2], None));
    assert!(
        e.contains("the checkpoint at tick 6 is missing (this one is at tick 8)"),
        "{e}"
    );
    let e = refusal(&edit(&text, checkpoint_lines[4], None));
    assert!(
        e.contains(
            "the checkpoint at tick 10 is missing (checkpoint_every 2, the run ended at tick 10)"
        ),
        "{e}"
    );
    // Not a multiple, tick 0, repeated.
    let h = "0".repeat(64);
    let at = |t: u64| format!("{{\"kind\":\"checkpoint\",\"tick\":{t},\"hash\":\"{h}\"}}");
    let e = refusal(&edit(&text, checkpoint_lines[0], Some(&at(3))));
    assert!(
        e.contains("checkpoint tick 3 is not a multiple of checkpoint_every 2"),
        "{e}"
    );
    let e = refusal(&edit(&text, checkpoint_lines[0], Some(&at(0))));
    assert!(e.contains("checkpoint tick 0 is not after tick 0"), "{e}");
    let e = refusal(&edit(&text, checkpoint_lines[1], Some(&at(2))));
    assert!(
        e.contains("line 4") && e.contains("checkpoint tick 2 is not after tick 2"),
        "{e}"
    );
    // An interval of 0 checks nothing: refused.
    let e = refusal(&text.replace("\"checkpoint_every\":2", "\"checkpoint_every\":0"));
    assert!(
        e.contains("line 1") && e.contains("checkpoint_every is 0"),
        "{e}"
    );
    let e = refusal(&text.replace("\"tick_hz\":30", "\"tick_hz\":0"));
    assert!(e.contains("tick_hz is 0"), "{e}");
    // A few lines may not claim a run of years: the interval is capped.
    let e = refusal(&text.replace("\"checkpoint_every\":2", "\"checkpoint_every\":3601"));
    assert!(
        e.contains("checkpoint_every is 3601, more than 3600"),
        "{e}"
    );
}

#[test]
fn the_end_record_closes_the_log() {
    let text = recorded(2, 10).to_text();
    let last = text.lines().count() - 1;
    let end = |ticks: u64| {
        format!(
            "{{\"kind\":\"end\",\"ticks\":{ticks},\"hash\":\"{}\"}}",
            "ee".repeat(32)
        )
    };
    let e = refusal(&edit(&text, last, Some(&end(0))));
    assert!(e.contains("end.ticks is 0: the log records no run"), "{e}");
    // Fewer ticks than the records claim.
    let e = refusal(&edit(&text, last, Some(&end(7))));
    assert!(
        e.contains("end.ticks is 7, but the log has a checkpoint at tick 8"),
        "{e}"
    );
    let e = refusal(&edit(&text, last, Some(&end(1))));
    assert!(
        e.contains("end.ticks is 1, but the log has input at tick 2"),
        "{e}"
    );
    // More ticks than the checkpoints cover.
    let e = refusal(&edit(&text, last, Some(&end(12))));
    assert!(e.contains("the checkpoint at tick 12 is missing"), "{e}");
    // One more tick that is no checkpoint tick: the log is well-formed (the replay
    // compares the end's hash).
    assert!(ReplayLog::parse(&edit(&text, last, Some(&end(11))), "x").is_ok());
    // Anything after the end, even blank-separated, and a second end.
    let after = format!("{text}\n{}\n", end(10));
    let e = refusal(&after);
    assert!(e.contains("record after 'end'"), "{e}");
    let e = refusal(&format!("{text}{{\"kind\":\"checkpoint\",\"tick\":12}}\n"));
    assert!(e.contains("record after 'end'"), "{e}");
}

#[test]
fn unknown_keys_and_kinds_are_named() {
    let text = recorded(1, 3).to_text();
    let lines: Vec<&str> = text.lines().collect();
    let with_key = |line: &str, key: &str| line.replacen('{', &format!("{{\"{key}\":1,"), 1);
    let e = refusal(&edit(&text, 0, Some(&with_key(lines[0], "foo"))));
    assert!(e.contains("line 1: header: unknown key 'foo'"), "{e}");
    let input = lines.iter().position(|l| l.contains("\"input\"")).unwrap();
    let e = refusal(&edit(&text, input, Some(&with_key(lines[input], "when"))));
    assert!(e.contains("input: unknown key 'when'"), "{e}");
    let e = refusal(&edit(
        &text,
        input,
        Some(&lines[input].replace("\"down\":true", "\"down\":true,\"held\":false")),
    ));
    assert!(e.contains("input events[0]: unknown key 'held'"), "{e}");
    let e = refusal(&edit(&text, 1, Some(&with_key(lines[1], "note"))));
    assert!(e.contains("checkpoint: unknown key 'note'"), "{e}");
    let last = lines.len() - 1;
    let e = refusal(&edit(&text, last, Some(&with_key(lines[last], "at"))));
    assert!(e.contains("end: unknown key 'at'"), "{e}");
    let mut log = recorded(1, 3);
    log.header.mission = Some(ReplayMission {
        name: "M".into(),
        data: BTreeMap::new(),
    });
    let e = refusal(
        &log.to_text()
            .replace("\"name\":\"M\"", "\"name\":\"M\",\"where\":1"),
    );
    assert!(e.contains("header mission: unknown key 'where'"), "{e}");
    let e = refusal(&edit(&text, 1, Some("{\"kind\":\"pause\",\"tick\":1}")));
    assert!(e.contains("unknown record kind 'pause'"), "{e}");
    // An oversized key is cut and escaped in the message.
    let long = format!("\\n{}", "k".repeat(100_000));
    let e = refusal(&edit(&text, 0, Some(&with_key(lines[0], &long))));
    assert!(
        e.contains(&format!("unknown key '\\n{}…'", "k".repeat(63))),
        "{e}"
    );
    assert!(e.len() < 300, "{} bytes", e.len());
    let e = refusal(&text.replace("\"iron3d-replay\"", &format!("\"{}\"", "f".repeat(5000))));
    assert!(e.len() < 300 && e.contains("format is 'fff"), "{e}");
}

#[test]
fn a_huge_bogus_log_is_refused_at_its_first_wrong_line() {
    let text = recorded(1, 3).to_text();
    let h = "0".repeat(64);
    let bogus: String = (4..200_004)
        .map(|t| format!("{{\"kind\":\"checkpoint\",\"tick\":{t},\"hash\":\"{h}\"}}\n"))
        .collect();
    // After the end: refused at the first line after it.
    let e = refusal(&format!("{text}{bogus}"));
    assert!(e.contains("line 7: record after 'end'"), "{e}");
    // Before the end: every line parses, the end names the first one after it.
    let lines: Vec<&str> = text.lines().collect();
    let (body, end) = lines.split_at(lines.len() - 1);
    let e = refusal(&format!("{}\n{bogus}{}\n", body.join("\n"), end[0]));
    assert!(
        e.contains("end.ticks is 3, but the log has a checkpoint at tick 4"),
        "{e}"
    );
}

#[test]
fn read_takes_regular_files_of_bounded_size_only() {
    let dir = std::env::temp_dir().join(format!("iron3d-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.jsonl");
    let log = recorded(1, 3);
    log.write(&good).unwrap();
    assert_eq!(ReplayLog::read(&good).unwrap(), log);
    let e = ReplayLog::read(&dir).unwrap_err().to_string();
    assert!(
        e.contains(&dir.display().to_string()) && e.contains("not a regular file (a directory)"),
        "{e}"
    );
    let e = ReplayLog::read(Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("/dev/zero: not a regular file (a character device)"),
        "{e}"
    );
    let big = dir.join("big.jsonl");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_LOG_BYTES + 1)
        .unwrap();
    let e = ReplayLog::read(&big).unwrap_err().to_string();
    assert!(
        e.contains("big.jsonl: the file is 134217729 bytes, limit 134217728"),
        "{e}"
    );
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, b"{\"kind\":\"header\"}\n\xff\n").unwrap();
    let e = ReplayLog::read(&bad).unwrap_err().to_string();
    assert!(e.contains("line 2: not UTF-8 text"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest::proptest! {
    /// Arbitrary text never panics the parser; accepted text re-serialises losslessly.
    #[test]
    fn parse_never_panics(text in "(\\PC|\n){0,400}") {
        if let Ok(log) = ReplayLog::parse(&text, "prop") {
            proptest::prop_assert_eq!(ReplayLog::parse(&log.to_text(), "again").unwrap(), log);
        }
    }

    /// Line-structured near-misses of valid logs never panic either; what they
    /// accept re-serialises losslessly.
    #[test]
    fn parse_mutated_logs_never_panics(cut in 0usize..400, byte in proptest::num::u8::ANY) {
        let mut bytes = recorded(1, 3).to_text().into_bytes();
        let at = cut % bytes.len();
        bytes[at] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            if let Ok(log) = ReplayLog::parse(&text, "mut") {
                proptest::prop_assert_eq!(ReplayLog::parse(&log.to_text(), "again").unwrap(), log);
            }
        }
    }
}

#[test]
fn check_reports_only_differing_checkpoints() {
    let mut log = ReplayLog::new(header());
    log.record_checkpoint(2, StateHash([2; 32]));
    assert_eq!(log.check(2, StateHash([2; 32])), None);
    assert_eq!(log.check(5, StateHash([9; 32])), None);
    let d = log.check(2, StateHash([9; 32])).unwrap();
    assert_eq!((d.tick, d.at_end), (2, false));
}

#[test]
fn check_end_compares_the_final_tick_and_hash() {
    let mut log = ReplayLog::new(header());
    assert_eq!(log.check_end(3, StateHash([3; 32])), None, "no end yet");
    log.end = Some((3, StateHash([3; 32])));
    assert_eq!(log.check_end(3, StateHash([3; 32])), None);
    let d = log.check_end(3, StateHash([4; 32])).unwrap();
    assert_eq!(
        (d.tick, d.at_end, d.expected),
        (3, true, StateHash([3; 32]))
    );
    assert!(
        log.check_end(2, StateHash([3; 32])).is_some(),
        "another tick"
    );
}
