//! Input/time replay logs: record a run, play it back, compare state hashes per checkpoint
//! and report the first divergent tick.
//!
//! Format: JSON Lines, one record per line. The first line is the header (format name,
//! version, seed, tick rate, scenario and its parameters, checkpoint interval); then
//! `input` records (events of one tick), `checkpoint` records (state hash after a tick)
//! and one final `end` record. Ticks are strictly increasing within each record kind.

use crate::error::{KernelError, KernelResult};
use crate::hash::StateHash;
use crate::input::InputEvent;
use crate::kernel::InputSource;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Format name written in every header.
pub const REPLAY_FORMAT: &str = "iron3d-replay";
/// Current format version (2: the state hash covers the queue order and pending
/// messages, and a header may name a mission with its data fingerprint).
pub const REPLAY_VERSION: u32 = 2;
/// Longest line accepted when reading a log (bounds memory on bad input).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Everything needed to set up the same run again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayHeader {
    /// Always [`REPLAY_FORMAT`].
    pub format: String,
    /// Format version.
    pub version: u32,
    /// Master seed.
    pub seed: u64,
    /// Simulation tick rate.
    pub tick_hz: u32,
    /// Scenario or mission name.
    pub scenario: String,
    /// Scenario parameters (stable key order).
    pub params: BTreeMap<String, serde_json::Value>,
    /// A checkpoint hash is stored every this many ticks.
    pub checkpoint_every: u64,
    /// The mission the run loaded, with the game data it read (absent for the built-in
    /// scenario).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mission: Option<ReplayMission>,
}

/// The identity of a recorded mission: its name and a fingerprint of every game file the
/// load read (path relative to its mount → BLAKE3 hex of the contents).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayMission {
    /// The mission as named on the command line.
    pub name: String,
    /// `mount:relative/path` → BLAKE3 hex, sorted.
    pub data: BTreeMap<String, String>,
}

impl ReplayMission {
    /// What differs between the recorded identity (`self`) and `here`, one line each:
    /// the mission name, files whose contents differ, files missing here, files not in
    /// the recording. Empty when they match.
    pub fn differences(&self, here: &ReplayMission) -> Vec<String> {
        let short = |h: &str| h.chars().take(16).collect::<String>();
        let mut out = Vec::new();
        if self.name != here.name {
            out.push(format!(
                "mission: recorded '{}', here '{}'",
                self.name, here.name
            ));
        }
        for (path, hash) in &self.data {
            match here.data.get(path) {
                Some(h) if h == hash => {}
                Some(h) => out.push(format!(
                    "game data {path}: recorded {}…, here {}…",
                    short(hash),
                    short(h)
                )),
                None => out.push(format!("game data {path}: read by the recording, not here")),
            }
        }
        for path in here.data.keys().filter(|p| !self.data.contains_key(*p)) {
            out.push(format!("game data {path}: read here, not by the recording"));
        }
        out
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Record {
    Header(ReplayHeader),
    Input { tick: u64, events: Vec<InputEvent> },
    Checkpoint { tick: u64, hash: String },
    End { ticks: u64, hash: String },
}

/// A parsed or recorded replay log.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayLog {
    /// Run set-up.
    pub header: ReplayHeader,
    /// Input events by tick (ticks without input are absent).
    pub inputs: BTreeMap<u64, Vec<InputEvent>>,
    /// State hash after each checkpoint tick.
    pub checkpoints: BTreeMap<u64, StateHash>,
    /// Final tick count and hash, once the run finished.
    pub end: Option<(u64, StateHash)>,
}

/// The first checkpoint whose hash differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Tick after which the hashes differ.
    pub tick: u64,
    /// Hash in the log.
    pub expected: StateHash,
    /// Hash of this run.
    pub actual: StateHash,
}

impl ReplayLog {
    /// An empty log for a new recording.
    pub fn new(header: ReplayHeader) -> Self {
        Self {
            header,
            inputs: BTreeMap::new(),
            checkpoints: BTreeMap::new(),
            end: None,
        }
    }

    /// Records the events applied in `tick` (empty lists are not stored).
    pub fn record_inputs(&mut self, tick: u64, events: &[InputEvent]) {
        if !events.is_empty() {
            self.inputs.insert(tick, events.to_vec());
        }
    }

    /// True when `tick` is a checkpoint tick of this log's interval.
    pub fn is_checkpoint_tick(&self, tick: u64) -> bool {
        self.header.checkpoint_every > 0 && tick % self.header.checkpoint_every == 0
    }

    /// Records the hash after `tick`.
    pub fn record_checkpoint(&mut self, tick: u64, hash: StateHash) {
        self.checkpoints.insert(tick, hash);
    }

    /// Compares `actual` with the recorded hash after `tick`; `None` when equal or not a checkpoint.
    pub fn check(&self, tick: u64, actual: StateHash) -> Option<Divergence> {
        let expected = *self.checkpoints.get(&tick)?;
        (expected != actual).then_some(Divergence {
            tick,
            expected,
            actual,
        })
    }

    /// The log as JSON Lines.
    pub fn to_text(&self) -> String {
        let mut lines = Vec::with_capacity(2 + self.inputs.len() + self.checkpoints.len());
        let push = |lines: &mut Vec<String>, r: &Record| {
            // Serialising these plain records cannot fail.
            lines.push(serde_json::to_string(r).unwrap_or_default());
        };
        push(&mut lines, &Record::Header(self.header.clone()));
        // Interleave by tick: inputs of a tick, then its checkpoint.
        let mut ticks: Vec<u64> = self
            .inputs
            .keys()
            .chain(self.checkpoints.keys())
            .copied()
            .collect();
        ticks.sort_unstable();
        ticks.dedup();
        for t in ticks {
            if let Some(ev) = self.inputs.get(&t) {
                push(
                    &mut lines,
                    &Record::Input {
                        tick: t,
                        events: ev.clone(),
                    },
                );
            }
            if let Some(h) = self.checkpoints.get(&t) {
                push(
                    &mut lines,
                    &Record::Checkpoint {
                        tick: t,
                        hash: h.to_hex(),
                    },
                );
            }
        }
        if let Some((ticks, hash)) = self.end {
            push(
                &mut lines,
                &Record::End {
                    ticks,
                    hash: hash.to_hex(),
                },
            );
        }
        let mut s = lines.join("\n");
        s.push('\n');
        s
    }

    /// Parses a log strictly: header first with a known format and version, ticks
    /// strictly increasing per record kind, valid hashes, nothing after `end`.
    /// `origin` names the source in errors.
    pub fn parse(text: &str, origin: &str) -> KernelResult<Self> {
        let err = |line: usize, reason: String| KernelError::Replay {
            path: origin.to_owned(),
            line,
            reason,
        };
        let mut log: Option<ReplayLog> = None;
        let mut last_input = 0u64;
        let mut last_checkpoint = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            if raw.len() > MAX_LINE_BYTES {
                return Err(err(
                    n,
                    format!("line is {} bytes, limit {MAX_LINE_BYTES}", raw.len()),
                ));
            }
            if raw.trim().is_empty() {
                continue;
            }
            let rec: Record =
                serde_json::from_str(raw).map_err(|e| err(n, format!("bad record: {e}")))?;
            match (rec, log.as_mut()) {
                (Record::Header(h), None) => {
                    if h.format != REPLAY_FORMAT {
                        return Err(err(
                            n,
                            format!("format is '{}', expected '{REPLAY_FORMAT}'", h.format),
                        ));
                    }
                    if h.version != REPLAY_VERSION {
                        return Err(err(
                            n,
                            format!(
                                "version {} is not supported (expected {REPLAY_VERSION})",
                                h.version
                            ),
                        ));
                    }
                    log = Some(ReplayLog::new(h));
                }
                (Record::Header(_), Some(_)) => return Err(err(n, "second header".into())),
                (_, None) => return Err(err(n, "the first record must be the header".into())),
                (_, Some(l)) if l.end.is_some() => return Err(err(n, "record after 'end'".into())),
                (Record::Input { tick, events }, Some(l)) => {
                    if tick == 0 || tick <= last_input {
                        return Err(err(
                            n,
                            format!("input tick {tick} is not after tick {last_input}"),
                        ));
                    }
                    last_input = tick;
                    l.inputs.insert(tick, events);
                }
                (Record::Checkpoint { tick, hash }, Some(l)) => {
                    if tick <= last_checkpoint && !(tick == 0 && l.checkpoints.is_empty()) {
                        return Err(err(
                            n,
                            format!("checkpoint tick {tick} is not after tick {last_checkpoint}"),
                        ));
                    }
                    last_checkpoint = tick;
                    let h = StateHash::from_hex(&hash)
                        .ok_or_else(|| err(n, format!("bad hash '{hash}'")))?;
                    l.checkpoints.insert(tick, h);
                }
                (Record::End { ticks, hash }, Some(l)) => {
                    let h = StateHash::from_hex(&hash)
                        .ok_or_else(|| err(n, format!("bad hash '{hash}'")))?;
                    l.end = Some((ticks, h));
                }
            }
        }
        log.ok_or_else(|| err(0, "empty log: no header".into()))
    }

    /// Reads and parses a log file.
    pub fn read(path: &Path) -> KernelResult<Self> {
        let text = std::fs::read_to_string(path).map_err(|source| KernelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Writes the log file.
    pub fn write(&self, path: &Path) -> KernelResult<()> {
        std::fs::write(path, self.to_text()).map_err(|source| KernelError::Io {
            path: path.display().to_string(),
            source,
        })
    }
}

/// Feeds a log's recorded inputs back, tick by tick.
#[derive(Debug)]
pub struct ReplayInput<'a> {
    log: &'a ReplayLog,
}

impl<'a> ReplayInput<'a> {
    /// Plays back `log`.
    pub fn new(log: &'a ReplayLog) -> Self {
        Self { log }
    }
}

impl InputSource for ReplayInput<'_> {
    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent> {
        self.log.inputs.get(&tick).cloned().unwrap_or_default()
    }
}

/// Wraps a live input source and records what it hands out.
pub struct RecordingInput<'a> {
    inner: &'a mut dyn InputSource,
    log: &'a mut ReplayLog,
}

impl<'a> RecordingInput<'a> {
    /// Records `inner`'s events into `log`.
    pub fn new(inner: &'a mut dyn InputSource, log: &'a mut ReplayLog) -> Self {
        Self { inner, log }
    }
}

impl InputSource for RecordingInput<'_> {
    fn collect(&mut self) {
        self.inner.collect();
    }

    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent> {
        let ev = self.inner.events_for_tick(tick);
        self.log.record_inputs(tick, &ev);
        ev
    }
}

#[cfg(test)]
mod tests {
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
        }
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
        let mut h = header();
        h.mission = Some(mission.clone());
        let log = ReplayLog::new(h);
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
        log.record_checkpoint(3, StateHash([3; 32]));
        log.end = Some((3, StateHash([3; 32])));
        let text = log.to_text();
        assert_eq!(ReplayLog::parse(&text, "mem").unwrap(), log);
    }

    #[test]
    fn strict_errors_name_the_line() {
        let good = ReplayLog::new(header()).to_text();
        let e =
            ReplayLog::parse("{\"kind\":\"input\",\"tick\":1,\"events\":[]}\n", "x").unwrap_err();
        assert!(
            e.to_string().contains("line 1") && e.to_string().contains("header"),
            "{e}"
        );
        let bad_order = format!(
            "{good}{{\"kind\":\"input\",\"tick\":5,\"events\":[]}}\n{{\"kind\":\"input\",\"tick\":5,\"events\":[]}}\n"
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
        assert!(ReplayLog::parse("", "x").is_err());
        assert!(ReplayLog::parse("not json\n", "x").is_err());
    }

    proptest::proptest! {
        /// Arbitrary text never panics the parser; accepted text re-serialises losslessly.
        #[test]
        fn parse_never_panics(text in "(\\PC|\n){0,400}") {
            if let Ok(log) = ReplayLog::parse(&text, "prop") {
                proptest::prop_assert_eq!(ReplayLog::parse(&log.to_text(), "again").unwrap(), log);
            }
        }

        /// Line-structured near-misses of valid logs never panic either.
        #[test]
        fn parse_mutated_logs_never_panics(cut in 0usize..400, byte in proptest::num::u8::ANY) {
            let mut log = ReplayLog::new(header());
            log.record_inputs(2, &[InputEvent::Key { code: 1, down: true }]);
            log.record_checkpoint(2, StateHash([7; 32]));
            let mut bytes = log.to_text().into_bytes();
            let at = cut % bytes.len();
            bytes[at] = byte;
            if let Ok(text) = String::from_utf8(bytes) {
                let _ = ReplayLog::parse(&text, "mut");
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
        assert_eq!(d.tick, 2);
    }
}
