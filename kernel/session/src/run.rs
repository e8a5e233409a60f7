//! One run path: what `iron3d run --headless` and `iron3d play` both do with an open
//! [`Session`], written once. The drivers own only what is theirs — the presentation
//! clock and its pacing, where input comes from (scripted, the window, a console), the
//! HUD and the window — and call [`Run::frame`] once per presented frame.
//!
//! A [`Run`] owns, around the session's kernel and host:
//! * the after-tick observer: the `--trace` writer, state-hash checkpoints, scheduled
//!   swaps (prepared after their tick, active at the next boundary) and what the plugins
//!   told the player (the kernel's journal, when it keeps one);
//! * recording (`--record`: the input the tick read and a checkpoint every
//!   `checkpoint_every` ticks, the end written by [`Run::finish`]) or replay
//!   verification (`--replay`: the log's input instead of the driver's, each recorded
//!   checkpoint compared, the end compared when the recorded ticks ran);
//! * the plugin-library watcher (`--watch`), the audio event trace and the
//!   no-sound-device line;
//! * the host's events, reported in one format by [`host_event_line`];
//! * the end: [`Run::finish`] closes the trace, the audio trace and the recording and
//!   answers a [`RunEnd`]; [`Run::report`] writes its lines.
//!
//! The rule **PD-REPLAY-END-UNPAUSED** lives here: a recording's end holds the state as
//! the last tick left it, not a pause the shell put on the clock after it.

use crate::audio::AudioOutputWatch;
use crate::{Session, SessionError};
use iron3d_abi::SlotKind;
use iron3d_kernel::{
    GameMessage, InputSource, JournalEntry, Kernel, ShutdownReport, StateHash, Target,
};
use iron3d_plugin_host::{HostEvent, PluginHost, ReportedOutcome};
use iron3d_replay::{Divergence, RecordingInput, ReplayHeader, ReplayInput, ReplayLog};
use std::io::Write;
use std::path::PathBuf;

/// Where the `--trace` JSON Lines go ([`iron3d_trace`]).
#[derive(Clone, Debug)]
pub struct TraceTarget {
    /// The file (created, or replaced).
    pub path: PathBuf,
    /// Objects are sampled every this many ticks.
    pub every: u64,
}

/// A recording: its file and header (the header's `checkpoint_every` is the period).
#[derive(Clone, Debug)]
pub struct RecordTarget {
    /// The log file, written by [`Run::finish`].
    pub path: PathBuf,
    /// The header ([`crate::replay::Recorded`] builds it).
    pub header: ReplayHeader,
}

/// A hot swap scheduled after a tick (`--swap TICK:SLOT:LIBRARY`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduledSwap {
    /// Prepared after this tick, active at the next boundary.
    pub after_tick: u64,
    /// The slot.
    pub slot: SlotKind,
    /// The library (a registry name or a path).
    pub library: String,
}

/// What a run does beside simulating (all off by default).
#[derive(Debug, Default)]
pub struct RunOptions {
    /// Write the trace.
    pub trace: Option<TraceTarget>,
    /// Record a replay log (not with `replay`).
    pub record: Option<RecordTarget>,
    /// Verify against this log: its input replaces the driver's.
    pub replay: Option<ReplayLog>,
    /// Hot swaps after given ticks.
    pub swaps: Vec<ScheduledSwap>,
    /// Watch the plugin libraries and prepare a swap for each rebuilt one.
    pub watch: bool,
    /// Write the audio plugin's event trace here.
    pub audio_trace: Option<PathBuf>,
    /// Say once when there is no sound device.
    pub announce_audio: bool,
}

/// A text a plugin told the player during a frame's ticks (`GMSG_TEXT_FOR_PLAYER`,
/// seen in the kernel's journal).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Told {
    /// The tick it was delivered at.
    pub tick: u64,
    /// The player it is for.
    pub player: u32,
    /// The text (the game's code page).
    pub text: Vec<u8>,
}

/// What one frame produced for its driver.
#[derive(Debug, Default)]
pub struct FrameOutput {
    /// Ticks the frame ran.
    pub ticks: u64,
    /// Texts told to the player.
    pub told: Vec<Told>,
    /// Lines for the player (the no-sound-device line).
    pub notes: Vec<String>,
    /// The host's events of this frame (also kept for [`Run::report`]).
    pub events: Vec<HostEvent>,
}

/// How a replay verification ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayVerdict {
    /// Checkpoints compared.
    pub compared: u64,
    /// The first divergence.
    pub divergence: Option<Divergence>,
    /// Ticks this run ran.
    pub ticks: u64,
    /// Fewer ticks ran than the log records: the end was not compared.
    pub partial: bool,
    /// The log's last tick.
    pub recorded_end: u64,
}

/// What became of a recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordEnd {
    /// The log was written.
    Written(PathBuf),
    /// No tick ran, so no log was written (PD-REPLAY-COMPLETE: a log records a run).
    NoTick(PathBuf),
}

/// The end of a run.
#[derive(Clone, Debug)]
pub struct RunEnd {
    /// The state hash as the kernel stands now.
    pub hash: StateHash,
    /// Completed ticks.
    pub ticks: u64,
    /// Presented frames.
    pub frames: u64,
    /// The trace file, closed.
    pub trace: Option<PathBuf>,
    /// The audio trace file, flushed.
    pub audio_trace: Option<PathBuf>,
    /// The recording.
    pub record: Option<RecordEnd>,
    /// The replay verification.
    pub replay: Option<ReplayVerdict>,
    /// The mission's outcome, when a plugin reported one.
    pub decided: Option<ReportedOutcome>,
}

struct Tracer {
    writer: iron3d_trace::TraceWriter<std::io::BufWriter<std::fs::File>>,
    path: PathBuf,
}

struct Recording {
    log: ReplayLog,
    path: PathBuf,
}

struct Verifier {
    log: ReplayLog,
    compared: u64,
    divergence: Option<Divergence>,
}

/// A session being run (see the module docs). It dereferences to its [`Session`].
pub struct Run {
    session: Session,
    tracer: Option<Tracer>,
    recording: Option<Recording>,
    replay: Option<Verifier>,
    swaps: Vec<ScheduledSwap>,
    watch: bool,
    events: crossbeam_channel::Receiver<HostEvent>,
    host_events: Vec<HostEvent>,
    audio: AudioOutputWatch,
    frames: u64,
}

impl std::ops::Deref for Run {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl std::ops::DerefMut for Run {
    fn deref_mut(&mut self) -> &mut Session {
        &mut self.session
    }
}

impl Run {
    /// Starts running `session`: the trace file is created and the loaded world (tick
    /// 0) sampled into it, the audio trace created, the watcher started.
    ///
    /// # Errors
    /// A file cannot be created, the watcher cannot start, or both `record` and
    /// `replay` are asked for.
    pub fn start(mut session: Session, opts: RunOptions) -> Result<Self, SessionError> {
        if opts.record.is_some() && opts.replay.is_some() {
            return Err(SessionError::RecordWhileReplaying);
        }
        if opts.watch {
            session.host.watch()?;
            tracing::info!("watching plugin libraries for changes");
        }
        let tracer = match opts.trace {
            Some(t) => Some(open_trace(&t, &mut session.kernel)?),
            None => None,
        };
        let audio = AudioOutputWatch::new(
            &session.host,
            opts.audio_trace.as_deref(),
            opts.announce_audio,
        )?;
        let mut swaps = opts.swaps;
        swaps.sort_by_key(|s| s.after_tick);
        Ok(Self {
            events: session.host.events(),
            session,
            tracer,
            recording: opts.record.map(|r| Recording {
                log: ReplayLog::new(r.header),
                path: r.path,
            }),
            replay: opts.replay.map(|log| Verifier {
                log,
                compared: 0,
                divergence: None,
            }),
            swaps,
            watch: opts.watch,
            host_events: Vec::new(),
            audio,
            frames: 0,
        })
    }

    /// Presents one frame: the kernel runs the ticks due (at most `tick_budget`) on the
    /// input of `input` — or of the replayed log, which then replaces it — with the
    /// after-tick observer, then the watcher, the host's events and the audio output
    /// are looked at.
    ///
    /// # Errors
    /// The kernel's frame failed, or writing the trace or the audio trace failed.
    pub fn frame(
        &mut self,
        input: &mut dyn InputSource,
        tick_budget: Option<u64>,
    ) -> Result<FrameOutput, SessionError> {
        let Session { kernel, host, .. } = &mut self.session;
        let every = self
            .recording
            .as_ref()
            .map(|r| r.log.header.checkpoint_every.max(1));
        let mut replay_src;
        let mut record_src;
        let source: &mut dyn InputSource = match (&self.replay, self.recording.as_mut()) {
            (Some(v), _) => {
                replay_src = ReplayInput::new(&v.log);
                &mut replay_src
            }
            (None, Some(r)) => {
                record_src = RecordingInput::new(input, &mut r.log);
                &mut record_src
            }
            (None, None) => input,
        };
        let replay_log = self.replay.as_ref().map(|v| &v.log);
        let tracer = &mut self.tracer;
        let swaps = &mut self.swaps;
        let host_ref: &PluginHost = host;
        let mut trace_error = None;
        let mut checkpoints: Vec<(u64, StateHash)> = Vec::new();
        let mut output = FrameOutput::default();
        let before = kernel.tick();
        kernel.frame_observed(source, tick_budget, &mut |k| {
            let tick = k.tick();
            if let Some(t) = tracer.as_mut()
                && trace_error.is_none()
                && let Err(e) = t.writer.after_tick(k)
            {
                trace_error = Some(e);
            }
            let wanted = match (replay_log, every) {
                (Some(log), _) => log.checkpoints.contains_key(&tick),
                (None, Some(every)) => tick % every == 0,
                (None, None) => false,
            };
            if wanted {
                checkpoints.push((tick, k.state_hash()));
            }
            // Scheduled swaps are prepared after their tick and activate at the next
            // boundary.
            while swaps.first().is_some_and(|s| s.after_tick <= tick) {
                let s = swaps.remove(0);
                if let Err(e) = host_ref.request_swap(s.slot, &s.library, None) {
                    tracing::error!(tick = s.after_tick, slot = %s.slot, error = %e, "scheduled swap refused");
                }
            }
            output.told.extend(told(k));
        })?;
        output.ticks = kernel.tick() - before;
        for (tick, hash) in checkpoints {
            if let Some(v) = self.replay.as_mut() {
                v.compared += 1;
                if v.divergence.is_none() {
                    v.divergence = v.log.check(tick, hash);
                }
            }
            if let Some(r) = self.recording.as_mut() {
                r.log.record_checkpoint(tick, hash);
            }
        }
        if let Some(e) = trace_error {
            let path = self
                .tracer
                .as_ref()
                .map(|t| t.path.clone())
                .unwrap_or_default();
            return Err(SessionError::Trace { path, source: e });
        }
        if self.watch {
            for (slot, r) in self.session.host.poll_watcher() {
                match r {
                    Ok(()) => tracing::info!(%slot, "rebuilt library prepared for a hot swap"),
                    Err(e) => tracing::error!(%slot, error = %e, "rebuilt library refused"),
                }
            }
        }
        output.events = self.events.try_iter().collect();
        self.host_events.extend(output.events.iter().cloned());
        output
            .notes
            .extend(self.audio.after_frame(&self.session.host)?);
        self.frames += 1;
        Ok(output)
    }

    /// Frames presented so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Whether the run verifies a replay log (its input is the log's).
    pub fn is_replay(&self) -> bool {
        self.replay.is_some()
    }

    /// The tick a replay ends at (the log's end), when replaying.
    pub fn replay_end(&self) -> Option<u64> {
        self.replay.as_ref().map(|v| v.log.end.map_or(0, |e| e.0))
    }

    /// The mission's outcome once a plugin reported it.
    pub fn decided(&self) -> Option<ReportedOutcome> {
        self.session.host.mission_outcome()
    }

    /// Ends the run: the trace closed, the audio trace flushed, the recording written
    /// (its end per PD-REPLAY-END-UNPAUSED; no log when no tick ran), the replay's end
    /// compared when the recorded ticks ran (PD-REPLAY-END). The kernel stays as it is
    /// for the driver's summary; [`Run::shutdown`] follows.
    ///
    /// # Errors
    /// Closing the trace, the audio trace or writing the log failed.
    pub fn finish(&mut self) -> Result<RunEnd, SessionError> {
        self.host_events.extend(self.events.try_iter());
        let audio_trace = self.audio.finish()?;
        let kernel = &mut self.session.kernel;
        let trace = match self.tracer.take() {
            Some(t) => {
                t.writer
                    .finish(kernel)
                    .map_err(|source| SessionError::Trace {
                        path: t.path.clone(),
                        source,
                    })?;
                Some(t.path)
            }
            None => None,
        };
        let ticks = kernel.tick();
        let hash = kernel.state_hash();
        let record = match self.recording.take() {
            // No tick after the recording's start (PD-REPLAY-FROM-SAVE): nothing to log.
            Some(r) if ticks <= iron3d_replay::ReplayStart::tick_of(&r.log.header) => {
                Some(RecordEnd::NoTick(r.path))
            }
            Some(mut r) => {
                r.log.end = Some((ticks, unpaused_hash(kernel)));
                r.log.write(&r.path)?;
                Some(RecordEnd::Written(r.path))
            }
            None => None,
        };
        let replay = self.replay.as_mut().map(|v| {
            let recorded_end = v.log.end.map_or(0, |e| e.0);
            let partial = ticks < recorded_end;
            if !partial && v.divergence.is_none() {
                v.divergence = v.log.check_end(ticks, hash);
            }
            ReplayVerdict {
                compared: v.compared,
                divergence: v.divergence,
                ticks,
                partial,
                recorded_end,
            }
        });
        Ok(RunEnd {
            hash,
            ticks,
            frames: self.frames,
            trace,
            audio_trace,
            record,
            replay,
            decided: self.decided(),
        })
    }

    /// Writes what every run reports at its end, in this order: the files written
    /// (`audio_trace=`, `trace=`, `record=`), each host event ([`host_event_line`]) and
    /// `host: loaded_images=N`.
    ///
    /// # Errors
    /// Writing failed.
    pub fn report(&self, end: &RunEnd, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(p) = &end.audio_trace {
            writeln!(out, "audio_trace={}", p.display())?;
        }
        if let Some(p) = &end.trace {
            writeln!(out, "trace={}", p.display())?;
        }
        match &end.record {
            Some(RecordEnd::Written(p)) => writeln!(out, "record={}", p.display())?,
            Some(RecordEnd::NoTick(p)) => {
                writeln!(out, "record: no tick ran; {} not written", p.display())?;
            }
            None => {}
        }
        for line in self.host_events.iter().filter_map(host_event_line) {
            writeln!(out, "{line}")?;
        }
        writeln!(
            out,
            "host: loaded_images={}",
            self.session.host.loaded_images()
        )
    }

    /// The host events seen so far.
    pub fn host_events(&self) -> &[HostEvent] {
        &self.host_events
    }

    /// Shuts the session down in order ([`Session::shutdown`]).
    pub fn shutdown(self) -> ShutdownReport {
        self.session.shutdown()
    }
}

/// The replay verdict's line: `replay: N checkpoints match; the end matches (tick T)`,
/// a partial replay, or where it diverged first.
pub fn replay_line(v: &ReplayVerdict) -> String {
    match &v.divergence {
        None if v.partial => format!(
            "replay: partial, {} of {} ticks; {} checkpoints match (the end is not compared)",
            v.ticks, v.recorded_end, v.compared
        ),
        None => format!(
            "replay: {} checkpoints match; the end matches (tick {})",
            v.compared, v.recorded_end
        ),
        Some(d) if d.at_end => format!(
            "replay: DIVERGED first at tick {} (the end record: expected {}, got {}); {} checkpoints compared",
            d.tick, d.expected, d.actual, v.compared
        ),
        Some(d) => format!(
            "replay: DIVERGED first at tick {} (expected {}, got {}); {} checkpoints compared",
            d.tick, d.expected, d.actual, v.compared
        ),
    }
}

/// One host event as every run reports it (`None`: a plugin loaded, which the start-up
/// lines already say).
pub fn host_event_line(e: &HostEvent) -> Option<String> {
    Some(match e {
        HostEvent::Swapped {
            slot,
            from,
            to,
            after_tick,
            latency,
        } => format!(
            "host: swapped {slot} after tick {after_tick} in {} us: {from} -> {to}",
            latency.as_micros()
        ),
        HostEvent::SwapRefused {
            slot,
            target,
            reason,
        } => format!("host: swap of {slot} to {target} refused: {reason}"),
        HostEvent::Fault {
            slot,
            instance,
            phase,
            reason,
            fallback,
            state,
        } => format!(
            "host: fault in {slot} ({instance}) during {phase}: {reason}; now {fallback}, resumed from {state}"
        ),
        HostEvent::LoadFailed {
            slot,
            reason,
            fallback,
        } => format!("host: {slot} could not load: {reason}; running {fallback}"),
        HostEvent::ShutdownFailed {
            slot,
            instance,
            reason,
        } => format!("host: retiring {slot} ({instance}) failed: {reason}"),
        HostEvent::ServiceLoaded { service, instance } => {
            format!("host: service {service} loaded: {instance}")
        }
        HostEvent::ServiceLoadFailed { service, reason } => format!(
            "host: service {service} could not load: {reason}; the mission goes on without it"
        ),
        HostEvent::ServiceShutdownFailed {
            service,
            instance,
            reason,
        } => format!("host: retiring service {service} ({instance}) failed: {reason}"),
        HostEvent::Loaded { .. } => return None,
    })
}

/// The trace file created, its header written and the loaded world (tick 0) sampled.
fn open_trace(t: &TraceTarget, kernel: &mut Kernel) -> Result<Tracer, SessionError> {
    let file = std::fs::File::create(&t.path).map_err(|source| SessionError::File {
        what: "trace",
        path: t.path.clone(),
        source,
    })?;
    let wrap = |source| SessionError::Trace {
        path: t.path.clone(),
        source,
    };
    let mut writer =
        iron3d_trace::TraceWriter::new(std::io::BufWriter::new(file), t.every).map_err(wrap)?;
    writer.start(kernel).map_err(wrap)?;
    Ok(Tracer {
        writer,
        path: t.path.clone(),
    })
}

/// The texts the tick told the player (from the journal, when the kernel keeps one).
fn told(k: &Kernel) -> Vec<Told> {
    k.journal()
        .iter()
        .filter_map(|e| match e {
            JournalEntry::Delivered {
                target: Target::Systems,
                message: GameMessage::TextForPlayer { player, text },
                ..
            } => Some(Told {
                tick: k.tick(),
                player: *player,
                text: text.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// PD-REPLAY-END-UNPAUSED: the state hash as the last tick left it. The shell's pause
/// (an outcome screen, a pause menu) stands between ticks and is no input, so no replay
/// sees it.
fn unpaused_hash(kernel: &mut Kernel) -> StateHash {
    let paused = kernel.game_clock().is_paused();
    kernel.resume();
    let hash = kernel.state_hash();
    if paused {
        kernel.pause();
    }
    hash
}
