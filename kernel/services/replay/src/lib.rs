//! Input/time replay logs: record a run, play it back, compare state hashes per checkpoint
//! and report the first divergent tick.
//!
//! Format: JSON Lines, one record per line. The first line is the header (format name,
//! version, seed, tick rate, scenario and its parameters, checkpoint interval); then
//! `input` records (events of one tick), `checkpoint` records (state hash after a tick)
//! and one final `end` record (ticks run, state hash at the end). Ticks are strictly
//! increasing within each record kind.
//!
//! A log proves what it claims ([`ReplayLog::parse`], [`ReplayLog::read`]):
//! **PD-REPLAY-COMPLETE** (the `end` record is there, last, with at least one tick),
//! **PD-REPLAY-CHECKPOINTS** (a checkpoint after every tick that is a multiple of
//! `checkpoint_every` — at most [`MAX_CHECKPOINT_EVERY`] — up to the end, and none
//! other), **PD-REPLAY-KEYS** (unknown keys
//! are named, never ignored), **PD-REPLAY-FILE** (a regular file of at most
//! [`MAX_LOG_BYTES`]) and **PD-REPLAY-END** (a replay's final tick and state hash are
//! compared with `end`, [`ReplayLog::check_end`]). The recorders write exactly that: a
//! checkpoint after each tick `t` with `t % checkpoint_every == 0`, `end` when the run
//! stops (at its last tick, or at the tick of the frame that decided the mission).
//!
//! **PD-REPLAY-FROM-SAVE**: a recording made from a loaded save says so in its header
//! ([`ReplayStart`]: the saved tick, its state hash and the BLAKE3 of the save file). Its
//! inputs and checkpoints are of the ticks after the start (the checkpoints at the
//! multiples of the interval above the start tick), its end is after the start, and it
//! plays back only from that very save (the player hands it over; a file of other bytes
//! is refused). A reader that predates the rule refuses such a log by its unknown key.

use iron3d_kernel::{InputEvent, InputSource, StateHash};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Why a replay log cannot be read, parsed or written.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The log breaks its format or one of the PD-REPLAY rules.
    #[error("replay log {path}{}: {reason}", at_line(*.line))]
    Invalid {
        /// File path (or `<memory>`).
        path: String,
        /// 1-based line number, 0 when not line-specific.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A log without its `end` record: the recording was cut off (PD-REPLAY-COMPLETE).
    #[error("replay log {path} is incomplete: no 'end' record (the recording was cut off)")]
    Incomplete {
        /// File path (or `<memory>`).
        path: String,
    },
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// `, line N` of a line-specific message (nothing for line 0).
fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(", line {line}")
    }
}

/// Result alias of this crate.
pub type ReplayResult<T> = Result<T, ReplayError>;

/// Format name written in every header.
pub const REPLAY_FORMAT: &str = "iron3d-replay";
/// Current format version (2: the state hash covers the queue order and pending
/// messages, and a header may name a mission with its data fingerprint).
pub const REPLAY_VERSION: u32 = 2;
/// Longest line accepted when reading a log (bounds memory on bad input).
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// Longest checkpoint interval (PD-REPLAY-CHECKPOINTS): 3600 ticks, two minutes at 30
/// ticks/s. A replay runs the ticks its log claims, and every `checkpoint_every` of them
/// needs a checkpoint line, so a log's work stays proportional to its size — a log of a
/// few lines cannot ask for a run of years. The recorders refuse a longer interval.
pub const MAX_CHECKPOINT_EVERY: u64 = 3600;
/// Largest log file read (PD-REPLAY-FILE): 128 MiB, about ten hours at 30 ticks/s with
/// a checkpoint every tick (about 110 bytes a tick).
pub const MAX_LOG_BYTES: u64 = 128 << 20;

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
    /// The save the recording went on from (absent: the mission's beginning;
    /// PD-REPLAY-FROM-SAVE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<ReplayStart>,
}

/// Where a recording made from a loaded save starts (PD-REPLAY-FROM-SAVE).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayStart {
    /// The saved tick: the recording holds the ticks after it.
    pub tick: u64,
    /// The state hash at that tick (hex, as the save's header has it).
    pub state_hash: String,
    /// BLAKE3 (hex) of the save file's bytes: the one save the log plays back from.
    pub save_blake3: String,
}

impl ReplayHeader {
    /// This header going on from `start` (PD-REPLAY-FROM-SAVE; `None`: from the
    /// mission's beginning).
    pub fn with_start(self, start: Option<ReplayStart>) -> Self {
        Self { start, ..self }
    }
}

impl ReplayStart {
    /// The tick the recording starts after (0 for a log without a start).
    pub fn tick_of(header: &ReplayHeader) -> u64 {
        header.start.as_ref().map_or(0, |s| s.tick)
    }
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

/// The first checkpoint (or the `end` record) whose hash differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Tick after which the hashes differ.
    pub tick: u64,
    /// Hash in the log.
    pub expected: StateHash,
    /// Hash of this run.
    pub actual: StateHash,
    /// The `end` record's hash differs (PD-REPLAY-END), not a checkpoint's.
    pub at_end: bool,
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
            at_end: false,
        })
    }

    /// PD-REPLAY-END: compares a run that ended after `ticks` with hash `actual` with the
    /// `end` record. A different hash, or a run that reached another tick, diverges;
    /// `None` when they match or the log has no `end` (a recording in progress).
    pub fn check_end(&self, ticks: u64, actual: StateHash) -> Option<Divergence> {
        let (end_ticks, expected) = self.end?;
        (end_ticks != ticks || expected != actual).then_some(Divergence {
            tick: end_ticks,
            expected,
            actual,
            at_end: true,
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

    /// Parses a log strictly (the rules below are PD-REPLAY-*; `origin` names the source
    /// in errors):
    ///
    /// * the header first, with a known format and version, `tick_hz` ≥ 1 and
    ///   `checkpoint_every` ≥ 1; each record only with its known keys
    ///   (**PD-REPLAY-KEYS**: an unknown key is named, never ignored);
    /// * input ticks ≥ 1 and strictly increasing, each record with at least one event;
    /// * **PD-REPLAY-CHECKPOINTS**: the checkpoints are exactly the multiples of
    ///   `checkpoint_every` in `1..=end.ticks`, in order (a missing one is named by its
    ///   tick);
    /// * **PD-REPLAY-COMPLETE**: exactly one `end` record, last, with `ticks` ≥ 1 and no
    ///   input or checkpoint after that tick; a log without one was cut off and is
    ///   refused ([`ReplayError::Incomplete`]).
    pub fn parse(text: &str, origin: &str) -> ReplayResult<Self> {
        let err = |line: usize, reason: String| ReplayError::Invalid {
            path: origin.to_owned(),
            line,
            reason,
        };
        let mut log: Option<ReplayLog> = None;
        // Tick of the last input and checkpoint record (0: none yet).
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
            if log.as_ref().is_some_and(|l| l.end.is_some()) {
                return Err(err(n, "record after 'end'".into()));
            }
            let value: serde_json::Value = serde_json::from_str(raw)
                .map_err(|e| err(n, format!("bad record: {}", clip_message(&e.to_string()))))?;
            check_keys(&value).map_err(|reason| err(n, reason))?;
            let rec: Record = serde_json::from_str(raw)
                .map_err(|e| err(n, format!("bad record: {}", clip_message(&e.to_string()))))?;
            match (rec, log.as_mut()) {
                (Record::Header(h), None) => {
                    if h.format != REPLAY_FORMAT {
                        return Err(err(
                            n,
                            format!("format is {}, expected '{REPLAY_FORMAT}'", shown(&h.format)),
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
                    if h.tick_hz == 0 {
                        return Err(err(n, "header: tick_hz is 0; it must be at least 1".into()));
                    }
                    if h.checkpoint_every == 0 {
                        return Err(err(
                            n,
                            "header: checkpoint_every is 0; it must be at least 1".into(),
                        ));
                    }
                    if h.checkpoint_every > MAX_CHECKPOINT_EVERY {
                        return Err(err(
                            n,
                            format!(
                                "header: checkpoint_every is {}, more than {MAX_CHECKPOINT_EVERY}: a log claims no more ticks than its checkpoints vouch for",
                                h.checkpoint_every
                            ),
                        ));
                    }
                    if let Some(st) = &h.start {
                        if StateHash::from_hex(&st.state_hash).is_none() {
                            return Err(err(
                                n,
                                format!(
                                    "header: start.state_hash {} is not a state hash",
                                    shown(&st.state_hash)
                                ),
                            ));
                        }
                        if st.save_blake3.len() != 64
                            || !st.save_blake3.bytes().all(|b| b.is_ascii_hexdigit())
                        {
                            return Err(err(
                                n,
                                format!(
                                    "header: start.save_blake3 {} is not a BLAKE3 hex digest",
                                    shown(&st.save_blake3)
                                ),
                            ));
                        }
                        // PD-REPLAY-FROM-SAVE: records of the ticks after the start only.
                        last_input = st.tick;
                        last_checkpoint = st.tick - st.tick % h.checkpoint_every;
                    }
                    log = Some(ReplayLog::new(h));
                }
                (Record::Header(_), Some(_)) => return Err(err(n, "second header".into())),
                (_, None) => return Err(err(n, "the first record must be the header".into())),
                (Record::Input { tick, events }, Some(l)) => {
                    if tick == 0 || tick <= last_input {
                        return Err(err(
                            n,
                            format!("input tick {tick} is not after tick {last_input}"),
                        ));
                    }
                    if events.is_empty() {
                        return Err(err(n, format!("input at tick {tick} has no events")));
                    }
                    if let Some(k) = events.iter().position(
                        |e| matches!(e, InputEvent::Axis { value, .. } if !value.is_finite()),
                    ) {
                        return Err(err(
                            n,
                            format!("input at tick {tick}: events[{k}] has a value out of range"),
                        ));
                    }
                    last_input = tick;
                    l.inputs.insert(tick, events);
                }
                (Record::Checkpoint { tick, hash }, Some(l)) => {
                    let every = l.header.checkpoint_every;
                    let expected = u128::from(last_checkpoint) + u128::from(every);
                    if tick <= last_checkpoint {
                        return Err(err(
                            n,
                            format!("checkpoint tick {tick} is not after tick {last_checkpoint}"),
                        ));
                    }
                    if tick % every != 0 {
                        return Err(err(
                            n,
                            format!(
                                "checkpoint tick {tick} is not a multiple of checkpoint_every {every}"
                            ),
                        ));
                    }
                    if u128::from(tick) != expected {
                        return Err(err(
                            n,
                            format!(
                                "the checkpoint at tick {expected} is missing (this one is at tick {tick})"
                            ),
                        ));
                    }
                    last_checkpoint = tick;
                    let h = StateHash::from_hex(&hash)
                        .ok_or_else(|| err(n, format!("bad hash {}", shown(&hash))))?;
                    l.checkpoints.insert(tick, h);
                }
                (Record::End { ticks, hash }, Some(l)) => {
                    let h = StateHash::from_hex(&hash)
                        .ok_or_else(|| err(n, format!("bad hash {}", shown(&hash))))?;
                    if ticks == 0 {
                        return Err(err(n, "end.ticks is 0: the log records no run".into()));
                    }
                    let start = ReplayStart::tick_of(&l.header);
                    if ticks <= start {
                        return Err(err(
                            n,
                            format!(
                                "end.ticks is {ticks}: the log starts after tick {start} and records no tick"
                            ),
                        ));
                    }
                    if let Some(t) = l.inputs.range(ticks + 1..).next().map(|(t, _)| *t) {
                        return Err(err(
                            n,
                            format!("end.ticks is {ticks}, but the log has input at tick {t}"),
                        ));
                    }
                    if let Some(t) = l.checkpoints.range(ticks + 1..).next().map(|(t, _)| *t) {
                        return Err(err(
                            n,
                            format!(
                                "end.ticks is {ticks}, but the log has a checkpoint at tick {t}"
                            ),
                        ));
                    }
                    let every = l.header.checkpoint_every;
                    let next = u128::from(last_checkpoint) + u128::from(every);
                    if next <= u128::from(ticks) {
                        return Err(err(
                            n,
                            format!(
                                "the checkpoint at tick {next} is missing (checkpoint_every {every}, the run ended at tick {ticks})"
                            ),
                        ));
                    }
                    l.end = Some((ticks, h));
                }
            }
        }
        match log {
            None => Err(err(0, "empty log: no header".into())),
            Some(l) if l.end.is_none() => Err(ReplayError::Incomplete {
                path: origin.to_owned(),
            }),
            Some(l) => Ok(l),
        }
    }

    /// Reads and parses a log file: a regular file of at most [`MAX_LOG_BYTES`]
    /// (**PD-REPLAY-FILE**; a FIFO, a device or a directory is refused before it is
    /// opened, and no more than the limit is ever read).
    pub fn read(path: &Path) -> ReplayResult<Self> {
        let label = path.display().to_string();
        let refuse = |reason: String| ReplayError::Invalid {
            path: label.clone(),
            line: 0,
            reason,
        };
        let io = |source| ReplayError::Io {
            path: label.clone(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(refuse(format!("not a regular file ({})", file_kind(&meta))));
        }
        let too_big = |len: u64| refuse(format!("the file is {len} bytes, limit {MAX_LOG_BYTES}"));
        if meta.len() > MAX_LOG_BYTES {
            return Err(too_big(meta.len()));
        }
        let file = std::fs::File::open(path).map_err(io)?;
        // The file opened may not be the one looked at: check again what was opened.
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(refuse(format!("not a regular file ({})", file_kind(&meta))));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MAX_LOG_BYTES + 1),
            &mut bytes,
        )
        .map_err(io)?;
        if bytes.len() as u64 > MAX_LOG_BYTES {
            return Err(too_big(bytes.len() as u64));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            ReplayError::Invalid {
                path: label.clone(),
                line,
                reason: "not UTF-8 text".into(),
            }
        })?;
        Self::parse(&text, &label)
    }

    /// Writes the log file.
    pub fn write(&self, path: &Path) -> ReplayResult<()> {
        std::fs::write(path, self.to_text()).map_err(|source| ReplayError::Io {
            path: path.display().to_string(),
            source,
        })
    }
}

/// Keys of each record kind (PD-REPLAY-KEYS).
const HEADER_KEYS: &[&str] = &[
    "kind",
    "format",
    "version",
    "seed",
    "tick_hz",
    "scenario",
    "params",
    "checkpoint_every",
    "mission",
    "start",
];
const MISSION_KEYS: &[&str] = &["name", "data"];
const START_KEYS: &[&str] = &["tick", "state_hash", "save_blake3"];
const INPUT_KEYS: &[&str] = &["kind", "tick", "events"];
const CHECKPOINT_KEYS: &[&str] = &["kind", "tick", "hash"];
const END_KEYS: &[&str] = &["kind", "ticks", "hash"];

/// Characters of a token echoed in an error (the rest is cut and marked `…`).
const SHOWN_CHARS: usize = 64;
/// Characters of a parser message echoed in an error.
const MESSAGE_CHARS: usize = 240;

/// `s` as an error shows it: quoted, escaped, its first [`SHOWN_CHARS`] characters.
fn shown(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(SHOWN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if s.chars().nth(SHOWN_CHARS).is_some() {
        out.push('…');
    }
    format!("'{out}'")
}

/// A parser's message cut to [`MESSAGE_CHARS`] characters (it may quote the input).
fn clip_message(m: &str) -> String {
    let mut out: String = m
        .chars()
        .take(MESSAGE_CHARS)
        .flat_map(char::escape_default)
        .collect();
    if m.chars().nth(MESSAGE_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// The first key of `obj` not in `known`, as an error of `what`.
fn unknown_key(
    obj: &serde_json::Map<String, serde_json::Value>,
    known: &[&str],
    what: &str,
) -> Result<(), String> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("{what}: unknown key {}", shown(k))),
        None => Ok(()),
    }
}

/// PD-REPLAY-KEYS: the record is an object of a known kind with only the keys of that
/// kind (the header's `mission` and each input event likewise). Types are checked by
/// the typed parse that follows.
fn check_keys(v: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let Some(obj) = v.as_object() else {
        return Err("bad record: not a JSON object".into());
    };
    let kind = match obj.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => return Err("bad record: 'kind' is not a string".into()),
        None => return Err("bad record: no 'kind'".into()),
    };
    let known = match kind {
        "header" => HEADER_KEYS,
        "input" => INPUT_KEYS,
        "checkpoint" => CHECKPOINT_KEYS,
        "end" => END_KEYS,
        other => {
            return Err(format!(
                "unknown record kind {} (expected header, input, checkpoint or end)",
                shown(other)
            ));
        }
    };
    unknown_key(obj, known, kind)?;
    if let Some(Value::Object(m)) = obj.get("mission") {
        unknown_key(m, MISSION_KEYS, "header mission")?;
    }
    if let Some(Value::Object(m)) = obj.get("start") {
        unknown_key(m, START_KEYS, "header start")?;
    }
    if let Some(Value::Array(events)) = obj.get("events") {
        for (k, e) in events.iter().enumerate() {
            let Some(e) = e.as_object() else { continue };
            let known: &[&str] = match e.get("type").and_then(Value::as_str) {
                Some("key") => &["type", "code", "down"],
                Some("axis") => &["type", "axis", "value"],
                Some("manual") => &["type", "kind", "value"],
                Some("command") => &["type", "code", "arg"],
                _ => continue,
            };
            unknown_key(e, known, &format!("input events[{k}]"))?;
        }
    }
    Ok(())
}

/// What a file that is not a regular file is, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a plain file"
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
mod tests;
