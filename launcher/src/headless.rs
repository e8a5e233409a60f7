//! Headless runs: the kernel on the built-in scenario, a simulated presentation clock,
//! optional recording or replay verification, per-phase stats and the final state hash.

use crate::plugins;
use crate::scenario::{self, ScenarioParams, ScriptedInput, Serials};
use anyhow::{Context, bail};
use iron3d_abi::SlotKind;
use iron3d_kernel::replay::{
    Divergence, REPLAY_FORMAT, REPLAY_VERSION, RecordingInput, ReplayHeader, ReplayInput,
    ReplayLog, ReplayMission,
};
use iron3d_kernel::{
    InputSource, Kernel, ManualTimeSource, StateHash, SystemTimeSource, TimeSource,
    clock::NANOS_PER_SEC,
};
use iron3d_plugin_host::HostEvent;
use iron3d_session::{MissionSpec, Session};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `iron3d run --headless`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlessOptions {
    /// Ticks to simulate (`None` with `--replay`: the log's length; fewer is a partial
    /// replay, more is refused).
    pub ticks: Option<u64>,
    /// Master seed (`--replay` takes it from the log).
    pub seed: u64,
    /// Simulated presentation frame rate.
    pub fps: u32,
    /// Simulation tick rate.
    pub tick_hz: u32,
    /// Objects at start.
    pub objects: u32,
    /// Record into this log.
    pub record: Option<PathBuf>,
    /// Verify against this log.
    pub replay: Option<PathBuf>,
    /// Checkpoint interval when recording.
    pub checkpoint_every: u64,
    /// Write the `--trace` JSON Lines here ([`iron3d_trace`]).
    pub trace: Option<PathBuf>,
    /// Object sampling interval of the trace in ticks.
    pub trace_every: u64,
    /// Plugin registry file (default: located by [`plugins::locate_registry`]).
    pub registry: Option<PathBuf>,
    /// Extra plugin directories searched first.
    pub plugin_dirs: Vec<PathBuf>,
    /// Refuse to start when a registry slot would run a fallback (`--strict-plugins`).
    pub strict_plugins: bool,
    /// Scheduled hot swaps: after tick `.0`, swap slot `.1` to library `.2`.
    pub swaps: Vec<(u64, SlotKind, String)>,
    /// Watch the plugin libraries and hot-swap rebuilt ones.
    pub watch: bool,
    /// Read console commands (`swap SLOT PATH`, `pause`, `resume`, `quit`) from standard input.
    pub console: bool,
    /// Pace frames on the real clock instead of simulating them as fast as possible.
    pub realtime: bool,
    /// Game directory of a real mission (with `mission`).
    pub game_dir: Option<PathBuf>,
    /// Mission to load from `game_dir` instead of the built-in scenario.
    pub mission: Option<String>,
    /// How the mission's archives are read (strict by default).
    pub data_profile: crate::mission_cli::Profile,
    /// Mission parameters for the plugins (`--param`).
    pub params: BTreeMap<String, String>,
    /// `--mods` (automation: none unless named; a replay enables the recorded ones).
    pub mods: crate::mods::ModArgs,
    /// `--audio` (automation: PD-AUDIO-AUTOMATION) and `--audio-trace`.
    pub audio: crate::audio::AudioArgs,
}

/// Outcome of a headless run.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlessOutcome {
    /// Final state hash.
    pub hash: StateHash,
    /// Ticks run.
    pub ticks: u64,
    /// First divergence found while replaying.
    pub divergence: Option<Divergence>,
    /// Checkpoints compared while replaying.
    pub checkpoints_compared: u64,
}

/// The `scenario` field of a mission replay header (the mission itself is in `mission`).
pub const MISSION_SCENARIO: &str = "mission";

/// The trace file of `--trace`: created, its header written and the loaded world
/// (tick 0) sampled from `kernel` (`iron3d run` and `iron3d play` alike).
pub fn open_trace(
    path: &std::path::Path,
    every: u64,
    kernel: &mut Kernel,
) -> anyhow::Result<iron3d_trace::TraceWriter<std::io::BufWriter<std::fs::File>>> {
    let label = path.display();
    let file =
        std::fs::File::create(path).with_context(|| format!("creating the trace file {label}"))?;
    let mut t = iron3d_trace::TraceWriter::new(std::io::BufWriter::new(file), every)
        .with_context(|| format!("trace {label}"))?;
    t.start(kernel).with_context(|| format!("trace {label}"))?;
    Ok(t)
}

/// The plugin set of a run as recorded in replay headers: `slot=name version factory`
/// per simulation slot, in slot order (no machine paths). Plugins are part of the
/// simulation; the render and audio slots are presentation (never in the state hash,
/// unable to change the world) and are left out, so a replay may draw or sound
/// differently from its recording.
pub(crate) fn plugin_set(host: &iron3d_plugin_host::PluginHost) -> Vec<String> {
    host.report()
        .iter()
        .filter(|r| {
            !matches!(
                r.slot,
                iron3d_abi::SlotKind::Render | iron3d_abi::SlotKind::Audio
            )
        })
        .map(|r| {
            format!(
                "{}={}",
                r.slot,
                r.instance.split(" (").next().unwrap_or_default()
            )
        })
        .collect()
}

/// The replay header of a game mission: its identity, the plugin set, the mission
/// parameters and (when any) the mod set — what `iron3d run --replay` checks before it
/// replays (shared by `run --record` and `play --record`).
pub(crate) fn mission_replay_header(
    mission: ReplayMission,
    plugin_set: &[String],
    mission_params: &BTreeMap<String, String>,
    mods: &crate::mods::ActiveMods,
    seed: u64,
    tick_hz: u32,
    checkpoint_every: u64,
) -> ReplayHeader {
    let mut params = BTreeMap::from([
        ("plugins".to_owned(), serde_json::json!(plugin_set)),
        (
            MISSION_PARAMETERS.to_owned(),
            serde_json::json!(mission_params),
        ),
    ]);
    if !mods.fingerprint.mods.is_empty() {
        params.insert(
            crate::mods::REPLAY_MODS_KEY.to_owned(),
            serde_json::json!(mods.fingerprint),
        );
    }
    ReplayHeader {
        format: REPLAY_FORMAT.into(),
        version: REPLAY_VERSION,
        seed,
        tick_hz,
        scenario: MISSION_SCENARIO.to_owned(),
        params,
        checkpoint_every: checkpoint_every.max(1),
        mission: Some(mission),
    }
}

/// How the recorded plugin set (`params.plugins`) differs from this run's, one line per
/// slot.
fn plugin_set_differences(
    params: &BTreeMap<String, serde_json::Value>,
    here: &[String],
) -> Vec<String> {
    let Some(recorded) = params.get("plugins").and_then(serde_json::Value::as_array) else {
        return vec!["plugin set: the log records none".to_owned()];
    };
    let split = |s: &str| -> (String, String) {
        match s.split_once('=') {
            Some((slot, p)) => (slot.to_owned(), p.to_owned()),
            None => (String::new(), s.to_owned()),
        }
    };
    let recorded: BTreeMap<String, String> = recorded
        .iter()
        .map(|v| split(v.as_str().unwrap_or_default()))
        .collect();
    let here: BTreeMap<String, String> = here.iter().map(|s| split(s)).collect();
    let mut out = Vec::new();
    for (slot, p) in &recorded {
        match here.get(slot) {
            Some(h) if h == p => {}
            Some(h) => out.push(format!(
                "plugin set: slot {slot} recorded '{p}', here '{h}'"
            )),
            None => out.push(format!("plugin set: slot {slot} recorded '{p}', here none")),
        }
    }
    for (slot, h) in here.iter().filter(|(s, _)| !recorded.contains_key(*s)) {
        out.push(format!("plugin set: slot {slot} not recorded, here '{h}'"));
    }
    out
}

/// How the recorded mod set (`params.mods`) differs from this run's, one line per
/// difference (empty: the same mods, versions and simulation content).
fn mod_set_differences(
    params: &BTreeMap<String, serde_json::Value>,
    mods: &crate::mods::ActiveMods,
) -> Vec<String> {
    let recorded = crate::mods::recorded_fingerprint(params).unwrap_or_default();
    recorded
        .diff(&mods.fingerprint)
        .into_iter()
        .map(|d| format!("mods: {d}"))
        .collect()
}

/// The key of a mission replay's parameters in the header's `params`.
const MISSION_PARAMETERS: &str = "mission_parameters";

/// The mission parameters of the run: `--param`, or a replay's recorded ones (a log
/// without them recorded none); `--param` on a replay must repeat the recorded ones.
fn mission_parameters(
    opts: &HeadlessOptions,
    replay: Option<&ReplayLog>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let mission = opts.mission.is_some() || replay.is_some_and(|l| l.header.mission.is_some());
    if !mission && !opts.params.is_empty() {
        bail!(
            "--param is for game missions (--game-dir with --mission), not the built-in scenario"
        );
    }
    let Some(log) = replay.filter(|l| l.header.mission.is_some()) else {
        return Ok(opts.params.clone());
    };
    let recorded: BTreeMap<String, String> = match log.header.params.get(MISSION_PARAMETERS) {
        None => BTreeMap::new(),
        Some(v) => serde_json::from_value(v.clone())
            .context("replay header: params.mission_parameters is not a map of strings")?,
    };
    if !opts.params.is_empty() && opts.params != recorded {
        bail!(
            "replay refused: --param {:?} differs from the recorded mission parameters {:?}",
            opts.params,
            recorded
        );
    }
    Ok(recorded)
}

/// The keys a replay header's `params` may hold (PD-REPLAY-KEYS): the built-in
/// scenario's, or a mission's; the mod set in both.
const SCENARIO_PARAMS: &[&str] = &["objects", "collisions", "plugins"];
const MISSION_PARAMS: &[&str] = &["plugins", MISSION_PARAMETERS];

/// Refuses a replay header whose `params` hold a key no recorder writes, naming it.
fn known_params(log: &ReplayLog, path: &std::path::Path) -> anyhow::Result<()> {
    let known = if log.header.mission.is_some() {
        MISSION_PARAMS
    } else {
        SCENARIO_PARAMS
    };
    if let Some(k) = log
        .header
        .params
        .keys()
        .find(|k| !known.contains(&k.as_str()) && k.as_str() != crate::mods::REPLAY_MODS_KEY)
    {
        let shown: String = k.chars().take(64).flat_map(char::escape_debug).collect();
        let more = if k.chars().nth(64).is_some() {
            "…"
        } else {
            ""
        };
        bail!(
            "replay log {}, line 1: header: params has unknown key '{shown}{more}'",
            path.display()
        );
    }
    Ok(())
}

fn params_to_json(p: ScenarioParams, plugins: &[String]) -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([
        ("objects".to_owned(), serde_json::json!(p.objects)),
        ("collisions".to_owned(), serde_json::json!(p.collisions)),
        ("plugins".to_owned(), serde_json::json!(plugins)),
    ])
}

/// Reads console lines from standard input on a thread.
fn spawn_console() -> crossbeam_channel::Receiver<String> {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn params_from_json(m: &BTreeMap<String, serde_json::Value>) -> anyhow::Result<ScenarioParams> {
    let objects = m
        .get("objects")
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .context("replay header: params.objects missing or not a u32")?;
    let collisions = m
        .get("collisions")
        .and_then(serde_json::Value::as_bool)
        .context("replay header: params.collisions missing or not a boolean")?;
    Ok(ScenarioParams {
        objects,
        collisions,
    })
}

/// Runs the scenario headless and writes the per-phase table, then `state_hash=<hex>` as the last line.
pub fn run(opts: &HeadlessOptions, out: &mut dyn Write) -> anyhow::Result<HeadlessOutcome> {
    if opts.fps == 0 {
        bail!("--fps must be positive");
    }
    let replay = match &opts.replay {
        Some(path) => Some(ReplayLog::read(path)?),
        None => None,
    };
    // The mission of the run: named on the command line, or by the replay log.
    let recorded_mission = replay
        .as_ref()
        .and_then(|l| l.header.mission.as_ref())
        .map(|m| m.name.clone());
    let mission_name = opts.mission.clone().or(recorded_mission.clone());
    if let Some(log) = &replay {
        match (&log.header.mission, &opts.mission) {
            (None, Some(m)) => bail!(
                "replay log is of the built-in scenario '{}', not of mission '{m}'",
                log.header.scenario
            ),
            (Some(r), Some(m)) if &r.name != m => bail!(
                "replay refused: the log is of mission '{}', this run asks for '{m}'",
                r.name
            ),
            (Some(r), _) if opts.game_dir.is_none() => bail!(
                "replaying mission '{}' needs --game-dir (the log records the data's fingerprint, not its place)",
                r.name
            ),
            (None, None) if log.header.scenario != scenario::SCENARIO_NAME => bail!(
                "replay log is for scenario '{}', this build knows '{}'",
                log.header.scenario,
                scenario::SCENARIO_NAME
            ),
            _ => {}
        }
    }
    let (seed, tick_hz, params) = match &replay {
        Some(log) => (
            log.header.seed,
            log.header.tick_hz,
            if log.header.mission.is_some() {
                ScenarioParams {
                    objects: 0,
                    collisions: false,
                }
            } else {
                params_from_json(&log.header.params)?
            },
        ),
        None => (
            opts.seed,
            opts.tick_hz,
            ScenarioParams {
                objects: opts.objects,
                collisions: true,
            },
        ),
    };
    if let (Some(log), Some(path)) = (&replay, &opts.replay) {
        known_params(log, path)?;
    }
    let mission_params = mission_parameters(opts, replay.as_ref())?;
    // A replay runs the recorded ticks (PD-REPLAY-END), or fewer with --ticks: a partial
    // replay, which compares the checkpoints it reaches and not the end.
    let ticks = match (opts.ticks, &replay) {
        (t, Some(log)) => {
            // A parsed log always has its end (PD-REPLAY-COMPLETE).
            let end = log.end.map_or(0, |e| e.0);
            match t {
                Some(t) if t > end => bail!(
                    "--ticks {t} is beyond the replay log's end (tick {end}): a replay runs at most the recorded ticks"
                ),
                Some(t) => t,
                None => end,
            }
        }
        (Some(0), None) if opts.record.is_some() => {
            bail!("--record with --ticks 0 would record no run")
        }
        (Some(t), None) => t,
        (None, None) => bail!("--ticks is required"),
    };

    let clock = ManualTimeSource::new();
    let realtime = opts.realtime || opts.watch || opts.console;
    let platform: Box<dyn TimeSource> = if realtime {
        Box::new(SystemTimeSource::new())
    } else {
        Box::new(clock.clone())
    };
    let registry_path = match mission_name {
        Some(_) => plugins::locate_registry(opts.registry.as_deref())?,
        None => {
            plugins::locate_registry_named(opts.registry.as_deref(), plugins::SCENARIO_REGISTRY)?
        }
    };
    let recorded_mods = replay
        .as_ref()
        .map(|l| crate::mods::recorded_ids(&l.header.params))
        .unwrap_or_default();
    let mods = crate::mods::ActiveMods::for_run(&opts.mods, true, &recorded_mods)?;
    mods.report(out)?;
    let registry = crate::audio::apply_registry(
        mods.apply_registry(plugins::load_registry(&registry_path)?)?,
        opts.audio.mode(true),
    )?;
    let mut spec = plugins::session_spec(&opts.plugin_dirs, registry, seed, tick_hz, true);
    spec.services = mods.services();
    spec.strict_plugins = opts.strict_plugins;
    // Plugins that read mission data (terrain) get the mission's files through the host.
    let mission_spec = match (&opts.game_dir, &mission_name) {
        (Some(dir), Some(name)) => opts
            .data_profile
            .mission(dir, name, &mission_params)
            .with_overlays(mods.overlays()),
        (None, None) => MissionSpec::Synthetic {
            name: scenario::SCENARIO_NAME.to_owned(),
            parameters: scenario::parameters(params),
        },
        _ => bail!("--game-dir and --mission go together"),
    };
    let mut session = Session::open(&spec, mission_spec, platform)?;
    let kernel = &mut session.kernel;
    let host = &mut session.host;
    writeln!(out, "registry={}", registry_path.display())?;
    for r in host.report() {
        writeln!(out, "plugin slot={} {}", r.slot, r.instance)?;
    }
    for c in host.components() {
        let resolved = match &c.resolved {
            Ok(p) => p.display().to_string(),
            Err(e) => format!("not available: {e}"),
        };
        writeln!(
            out,
            "component cid={} ({}) {} {} -> {resolved}",
            c.cid, c.meaning, c.library, c.factory
        )?;
    }
    if opts.watch {
        host.watch()?;
        tracing::info!("watching plugin libraries for changes");
    }
    let console = opts.console.then(spawn_console);

    // What the summary line names as the run's world and its starting object count.
    let mut world_label = (scenario::SCENARIO_NAME.to_owned(), params.objects as usize);
    let mut identity: Option<ReplayMission> = None;
    match &session.game {
        Some(game) => {
            let name = mission_name.clone().unwrap_or_default();
            let loaded = &game.loaded;
            identity = Some(ReplayMission {
                name: name.clone(),
                data: iron3d_mission::data_fingerprint(&game.vfs)?,
            });
            let c = loaded.graph.counts;
            world_label = (format!("mission:{name}"), loaded.objects.len());
            writeln!(
                out,
                "mission={name} objects={} unit_refs={} components={} msh={} wear={}",
                loaded.objects.len(),
                c.unit_refs,
                c.components,
                c.msh,
                c.wear
            )?;
        }
        None => scenario::populate(kernel, params, &Serials::default())?,
    }
    let plugin_set = plugin_set(host);
    if let Some(log) = &replay {
        let mut differences = Vec::new();
        if let (Some(recorded), Some(here)) = (&log.header.mission, &identity) {
            differences.extend(recorded.differences(here));
        }
        differences.extend(plugin_set_differences(&log.header.params, &plugin_set));
        differences.extend(mod_set_differences(&log.header.params, &mods));
        if !differences.is_empty() {
            bail!(
                "replay refused: this run differs from the recording:\n  {}",
                differences.join("\n  ")
            );
        }
    }
    tracing::info!(
        seed,
        tick_hz,
        objects = params.objects,
        ticks,
        fps = opts.fps,
        "headless run"
    );

    let mut recording = opts.record.as_ref().map(|_| match &identity {
        Some(mission) => ReplayLog::new(mission_replay_header(
            mission.clone(),
            &plugin_set,
            &mission_params,
            &mods,
            seed,
            tick_hz,
            opts.checkpoint_every,
        )),
        None => {
            let mut params = params_to_json(params, &plugin_set);
            if !mods.fingerprint.mods.is_empty() {
                params.insert(
                    crate::mods::REPLAY_MODS_KEY.to_owned(),
                    serde_json::json!(mods.fingerprint),
                );
            }
            ReplayLog::new(ReplayHeader {
                format: REPLAY_FORMAT.into(),
                version: REPLAY_VERSION,
                seed,
                tick_hz,
                scenario: scenario::SCENARIO_NAME.to_owned(),
                params,
                checkpoint_every: opts.checkpoint_every.max(1),
                mission: None,
            })
        }
    });
    let trace_label = opts
        .trace
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let mut tracer = match &opts.trace {
        Some(path) => Some(open_trace(path, opts.trace_every, kernel)?),
        None => None,
    };
    let mut trace_error: Option<iron3d_trace::TraceError> = None;
    let mut scripted = ScriptedInput::new(seed);
    let mut outcome = HeadlessOutcome {
        hash: kernel.state_hash(),
        ticks: 0,
        divergence: None,
        checkpoints_compared: 0,
    };

    let mut frame = 0u64;
    let mut audio = crate::audio::AudioOutputWatch::new(
        host,
        opts.audio.audio_trace.as_deref(),
        opts.audio.announces(true),
    )?;
    let mut pending_swaps = opts.swaps.clone();
    pending_swaps.sort_by_key(|s| s.0);
    let mut host_events: Vec<HostEvent> = Vec::new();
    let events = host.events();
    #[allow(
        clippy::disallowed_methods,
        reason = "real-time pacing of presented frames only"
    )]
    let started = std::time::Instant::now();
    let mut quit = false;
    let mut decided = None;
    while kernel.tick() < ticks && !quit {
        frame += 1;
        let frame_ns =
            u64::try_from(u128::from(frame) * u128::from(NANOS_PER_SEC) / u128::from(opts.fps))?;
        if realtime {
            let due = Duration::from_nanos(frame_ns);
            if let Some(wait) = due.checked_sub(started.elapsed()) {
                std::thread::sleep(wait);
            }
        } else {
            clock.set_ns(frame_ns);
        }
        let budget = ticks - kernel.tick();
        let mut replay_src;
        let mut record_src;
        let source: &mut dyn InputSource = match (&replay, recording.as_mut()) {
            (Some(log), _) => {
                replay_src = ReplayInput::new(log);
                &mut replay_src
            }
            (None, Some(log)) => {
                record_src = RecordingInput::new(&mut scripted, log);
                &mut record_src
            }
            (None, None) => &mut scripted,
        };
        let mut checkpoints: Vec<(u64, StateHash)> = Vec::new();
        let every = opts.checkpoint_every.max(1);
        let replay_ref = replay.as_ref();
        let host_ref = &host;
        let tracer_ref = &mut tracer;
        let trace_error_ref = &mut trace_error;
        kernel.frame_observed(source, Some(budget), &mut |k| {
            let tick = k.tick();
            if let Some(t) = tracer_ref.as_mut()
                && trace_error_ref.is_none()
                && let Err(e) = t.after_tick(k)
            {
                *trace_error_ref = Some(e);
            }
            let wanted = match replay_ref {
                Some(log) => log.checkpoints.contains_key(&tick),
                None => tick % every == 0,
            };
            if wanted {
                checkpoints.push((tick, k.state_hash()));
            }
            // Scheduled swaps are prepared after their tick and activate at the next boundary.
            while pending_swaps.first().is_some_and(|s| s.0 <= tick) {
                let (at, slot, path) = pending_swaps.remove(0);
                if let Err(e) = host_ref.request_swap(slot, &path, None) {
                    tracing::error!(tick = at, %slot, error = %e, "scheduled swap refused");
                }
            }
        })?;
        for (tick, hash) in checkpoints {
            if let Some(log) = &replay {
                outcome.checkpoints_compared += 1;
                if outcome.divergence.is_none() {
                    outcome.divergence = log.check(tick, hash);
                }
            }
            if let Some(log) = recording.as_mut() {
                log.record_checkpoint(tick, hash);
            }
        }
        if opts.watch {
            for (slot, r) in host.poll_watcher() {
                match r {
                    Ok(()) => tracing::info!(%slot, "rebuilt library prepared for a hot swap"),
                    Err(e) => tracing::error!(%slot, error = %e, "rebuilt library refused"),
                }
            }
        }
        if let Some(rx) = &console {
            while let Ok(line) = rx.try_recv() {
                quit |= console_command(&line, host, kernel);
            }
        }
        host_events.extend(events.try_iter());
        if let Some(line) = audio.after_frame(host)? {
            writeln!(out, "{line}")?;
        }
        // A decided mission ends the run after the frame of its tick; a replay runs the
        // recorded ticks, wherever its frames fall (PD-REPLAY-END).
        if decided.is_none() {
            decided = host.mission_outcome();
            quit |= decided.is_some() && replay.is_none();
        }
        if let Some(e) = trace_error.take() {
            return Err(anyhow::Error::new(e).context(format!("trace {trace_label}")));
        }
    }
    host_events.extend(events.try_iter());
    audio.finish()?;
    if let Some(path) = &opts.audio.audio_trace {
        writeln!(out, "audio_trace={}", path.display())?;
    }
    if let Some(t) = tracer.take() {
        t.finish(kernel)
            .with_context(|| format!("trace {trace_label}"))?;
        writeln!(out, "trace={trace_label}")?;
    }
    outcome.hash = kernel.state_hash();
    outcome.ticks = kernel.tick();
    // The end of a replay that ran the recorded ticks proves the run (PD-REPLAY-END).
    let recorded_end = replay.as_ref().and_then(|l| l.end).map_or(0, |e| e.0);
    let partial = replay.is_some() && outcome.ticks < recorded_end;
    if let Some(log) = replay.as_ref().filter(|_| !partial)
        && outcome.divergence.is_none()
    {
        outcome.divergence = log.check_end(outcome.ticks, outcome.hash);
    }
    if let (Some(log), Some(path)) = (recording.as_mut(), &opts.record) {
        if outcome.ticks == 0 {
            bail!(
                "nothing recorded into {}: the run ended before its first tick",
                path.display()
            );
        }
        log.end = Some((outcome.ticks, outcome.hash));
        log.write(path)?;
    }

    let stats = kernel.stats().clone();
    for e in &host_events {
        match e {
            HostEvent::Swapped {
                slot,
                from,
                to,
                after_tick,
                latency,
            } => writeln!(
                out,
                "host: swapped {slot} after tick {after_tick} in {} us: {from} -> {to}",
                latency.as_micros()
            )?,
            HostEvent::SwapRefused {
                slot,
                target,
                reason,
            } => writeln!(out, "host: swap of {slot} to {target} refused: {reason}")?,
            HostEvent::Fault {
                slot,
                instance,
                phase,
                reason,
                fallback,
                state,
            } => writeln!(
                out,
                "host: fault in {slot} ({instance}) during {phase}: {reason}; now {fallback}, resumed from {state}"
            )?,
            HostEvent::LoadFailed {
                slot,
                reason,
                fallback,
            } => writeln!(
                out,
                "host: {slot} could not load: {reason}; running {fallback}"
            )?,
            HostEvent::ShutdownFailed {
                slot,
                instance,
                reason,
            } => writeln!(out, "host: retiring {slot} ({instance}) failed: {reason}")?,
            HostEvent::ServiceLoaded { service, instance } => {
                writeln!(out, "host: service {service} loaded: {instance}")?
            }
            HostEvent::ServiceLoadFailed { service, reason } => writeln!(
                out,
                "host: service {service} could not load: {reason}; the mission goes on without it"
            )?,
            HostEvent::ServiceShutdownFailed {
                service,
                instance,
                reason,
            } => writeln!(
                out,
                "host: retiring service {service} ({instance}) failed: {reason}"
            )?,
            HostEvent::Loaded { .. } => {}
        }
    }
    writeln!(out, "host: loaded_images={}", host.loaded_images())?;
    if let Some(d) = decided {
        writeln!(out, "{d}")?;
    }
    writeln!(
        out,
        "scenario={} seed={seed} objects_start={} objects_end={} ticks={} frames={frame} fps={} tick_hz={tick_hz}",
        world_label.0,
        world_label.1,
        kernel.world().registered_count(),
        outcome.ticks,
        opts.fps
    )?;
    write!(out, "{}", stats.table())?;
    if replay.is_some() {
        match outcome.divergence {
            None if partial => writeln!(
                out,
                "replay: partial, {} of {recorded_end} ticks; {} checkpoints match (the end is not compared)",
                outcome.ticks, outcome.checkpoints_compared
            )?,
            None => writeln!(
                out,
                "replay: {} checkpoints match; the end matches (tick {recorded_end})",
                outcome.checkpoints_compared
            )?,
            Some(d) if d.at_end => writeln!(
                out,
                "replay: DIVERGED first at tick {} (the end record: expected {}, got {}); {} checkpoints compared",
                d.tick, d.expected, d.actual, outcome.checkpoints_compared
            )?,
            Some(d) => writeln!(
                out,
                "replay: DIVERGED first at tick {} (expected {}, got {}); {} checkpoints compared",
                d.tick, d.expected, d.actual, outcome.checkpoints_compared
            )?,
        }
    }
    // Ordered shutdown: the kernel (and every plugin instance), then the shadow copies
    // (the images stay mapped; their files are no longer needed on disk).
    session.shutdown();
    writeln!(out, "state_hash={}", outcome.hash)?;
    Ok(outcome)
}

/// Applies one console line; returns true for `quit`.
fn console_command(line: &str, host: &iron3d_plugin_host::PluginHost, kernel: &mut Kernel) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["swap", slot, path] => match SlotKind::from_name(slot) {
            Some(slot) => match host.request_swap(slot, path, None) {
                Ok(()) => {
                    eprintln!("console: swap of {slot} prepared; active at the next boundary")
                }
                Err(e) => eprintln!("console: swap refused: {e}"),
            },
            None => eprintln!("console: unknown slot '{slot}'"),
        },
        ["pause"] => kernel.pause(),
        ["resume"] => kernel.resume(),
        ["quit"] => return true,
        [] => {}
        _ => eprintln!("console: commands are `swap SLOT PATH`, `pause`, `resume`, `quit`"),
    }
    false
}
