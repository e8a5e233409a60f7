//! `iron3d run --headless`: a driver of the one run path ([`iron3d_session::Run`]) — the
//! built-in scenario or a game mission, a simulated presentation clock (or the real one),
//! scripted input or a replayed log, the console, and the summary: the per-phase table,
//! then `state_hash=<hex>` as the last line.

use crate::plugins;
use crate::scenario::{self, ScenarioParams, ScriptedInput, Serials};
use anyhow::bail;
use iron3d_abi::SlotKind;
use iron3d_kernel::{
    Kernel, ManualTimeSource, StateHash, SystemTimeSource, TimeSource, clock::NANOS_PER_SEC,
};
use iron3d_replay::{Divergence, ReplayLog, ReplayMission};
use iron3d_session::replay::{self as compat, Recorded};
use iron3d_session::run::{RecordEnd, RecordTarget, ScheduledSwap, TraceTarget, replay_line};
use iron3d_session::save::SaveIdentity;
use iron3d_session::{MissionSpec, Run, RunOptions, Session};
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
    pub data_profile: iron3d_tools::mission::Profile,
    /// Mission parameters for the plugins (`--param`).
    pub params: BTreeMap<String, String>,
    /// `--mods` (automation: none unless named; a replay enables the recorded ones).
    pub mods: crate::mods::ModArgs,
    /// `--audio` (automation: PD-AUDIO-AUTOMATION) and `--audio-trace`.
    pub audio: crate::audio::AudioArgs,
    /// Save after the last tick into this file (`--save`).
    pub save: Option<PathBuf>,
    /// Save after these ticks (`--save-at TICK:FILE`, repeatable).
    pub save_at: Vec<(u64, PathBuf)>,
    /// Start from this save (`--load`): its mission, seed and tick rate; `--ticks` more.
    pub load: Option<PathBuf>,
    /// A peer of a match (`iron3d serve`, `host --bot`, `join --bot`): the frame loop
    /// is the match's (`crate::net_cli::drive`).
    pub net: Option<crate::net_cli::NetPlan>,
}

/// What a save of this run needs besides the session: its identity and, for the
/// built-in scenario, the parameters a load rebuilds it with.
struct SaveCtx {
    identity: SaveIdentity,
    scenario: Option<serde_json::Value>,
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
    /// The process's exit code for a match (0, or `net_cli::EXIT_DESYNC`); 0 otherwise.
    pub exit: u8,
}

/// The mission parameters of the run: `--param`, or a replay's recorded ones;
/// `--param` on a replay must repeat the recorded ones.
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
    match replay.filter(|l| l.header.mission.is_some()) {
        Some(log) => Ok(compat::mission_parameters(log, &opts.params)?),
        None => Ok(opts.params.clone()),
    }
}

/// Refuses a replay whose world is not the one asked for; answers the mission of the
/// run (named on the command line, or by the log).
fn world_of(opts: &HeadlessOptions, replay: Option<&ReplayLog>) -> anyhow::Result<Option<String>> {
    let Some(log) = replay else {
        return Ok(opts.mission.clone());
    };
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
    Ok(opts
        .mission
        .clone()
        .or_else(|| log.header.mission.as_ref().map(|m| m.name.clone())))
}

/// The ticks to run: `--ticks`, or a replay's recorded ticks (PD-REPLAY-END: fewer is a
/// partial replay, more is refused).
fn ticks_of(opts: &HeadlessOptions, replay: Option<&ReplayLog>) -> anyhow::Result<u64> {
    Ok(match (opts.ticks, replay) {
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
    })
}

/// Writes the registry, the plugin of each slot and the original component lines.
fn write_plugins(
    session: &Session,
    registry: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    writeln!(out, "registry={}", registry.display())?;
    for r in session.host.report() {
        writeln!(out, "plugin slot={} {}", r.slot, r.instance)?;
    }
    for c in session.host.components() {
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
    Ok(())
}

/// What the command line and the replay log settle before anything opens.
struct Plan {
    /// The log being replayed.
    replay: Option<ReplayLog>,
    /// The save a `--load` run starts from.
    load: Option<iron3d_save::SaveFile>,
    /// Where a recording of a `--load` run starts (PD-REPLAY-FROM-SAVE).
    start: Option<iron3d_replay::ReplayStart>,
    /// The game mission (`None`: the built-in scenario).
    mission: Option<String>,
    seed: u64,
    tick_hz: u32,
    /// The built-in scenario's parameters.
    params: ScenarioParams,
    /// The mission's parameters for the plugins.
    mission_params: BTreeMap<String, String>,
    /// Ticks to run.
    ticks: u64,
}

impl Plan {
    fn of(opts: &HeadlessOptions) -> anyhow::Result<Self> {
        if opts.fps == 0 {
            bail!("--fps must be positive");
        }
        let replay = match &opts.replay {
            Some(path) => {
                let log = ReplayLog::read(path)?;
                compat::check_keys(&log, path, scenario::PARAM_KEYS)?;
                Some(log)
            }
            None => None,
        };
        if let Some(path) = &opts.load {
            return Self::loading(opts, path, replay);
        }
        if let Some(st) = replay.as_ref().and_then(|l| l.header.start.as_ref()) {
            bail!(
                "the replay log goes on from a save (tick {}, save BLAKE3 {}…): pass that save with --load FILE",
                st.tick,
                st.save_blake3.get(..16).unwrap_or(&st.save_blake3)
            );
        }
        let mission = world_of(opts, replay.as_ref())?;
        let (seed, tick_hz, params) = match &replay {
            Some(log) if log.header.mission.is_some() => (
                log.header.seed,
                log.header.tick_hz,
                ScenarioParams {
                    objects: 0,
                    collisions: false,
                },
            ),
            Some(log) => (
                log.header.seed,
                log.header.tick_hz,
                scenario::params_from_json(&log.header.params)?,
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
        Ok(Self {
            mission_params: mission_parameters(opts, replay.as_ref())?,
            ticks: ticks_of(opts, replay.as_ref())?,
            replay,
            load: None,
            start: None,
            mission,
            seed,
            tick_hz,
            params,
        })
    }

    /// A `--load` run: the save's mission, seed and tick rate; `--ticks` more ticks. It
    /// may be recorded, the log going on from the save (PD-REPLAY-FROM-SAVE), or replay
    /// such a log, which must start from this very save (by its bytes) and runs the
    /// recorded ticks.
    fn loading(
        opts: &HeadlessOptions,
        path: &std::path::Path,
        replay: Option<ReplayLog>,
    ) -> anyhow::Result<Self> {
        let save = crate::saves::read_for_load(path)?;
        let start = crate::saves::replay_start(path, &save)?;
        if let Some(log) = &replay {
            match &log.header.start {
                None => bail!(
                    "the replay log starts at its mission's beginning: replay it without --load"
                ),
                Some(st) if *st != start => bail!(
                    "the replay log goes on from another save (tick {}, BLAKE3 {}…) than {} (tick {}, BLAKE3 {}…)",
                    st.tick,
                    st.save_blake3.get(..16).unwrap_or(&st.save_blake3),
                    path.display(),
                    start.tick,
                    &start.save_blake3[..16]
                ),
                Some(_) => {}
            }
            if (log.header.seed, log.header.tick_hz) != (save.header.seed, save.header.tick_hz) {
                bail!("the replay log's seed and tick rate are not the save's");
            }
        }
        let h = &save.header;
        let scenario = h.extra.get(crate::saves::SCENARIO_KEY);
        let (mission, params) = match (scenario, &opts.game_dir) {
            (Some(p), _) => {
                let map: BTreeMap<String, serde_json::Value> = serde_json::from_value(p.clone())?;
                (None, scenario::params_from_json(&map)?)
            }
            (None, Some(_)) => (
                Some(h.mission.clone()),
                ScenarioParams {
                    objects: 0,
                    collisions: false,
                },
            ),
            (None, None) => bail!(
                "the save is of mission '{}': --load needs --game-dir (a save records the data's fingerprint, not its place)",
                h.mission
            ),
        };
        if let (Some(m), Some(asked)) = (&mission, &opts.mission) {
            if !m.eq_ignore_ascii_case(asked) {
                bail!("--load: the save is of mission '{m}', this run asks for '{asked}'");
            }
        }
        let ticks = match (&replay, opts.ticks) {
            // A replay runs the recorded ticks (fewer: a partial replay).
            (Some(_), _) => ticks_of(opts, replay.as_ref())?,
            (None, Some(more)) => h.tick.saturating_add(more),
            (None, None) => bail!(
                "--load needs --ticks: how many ticks to run after the saved tick {}",
                h.tick
            ),
        };
        Ok(Self {
            mission,
            seed: h.seed,
            tick_hz: h.tick_hz,
            params,
            mission_params: match &replay {
                Some(log) => mission_parameters(opts, Some(log))?,
                None => opts.params.clone(),
            },
            ticks,
            replay,
            load: Some(save),
            start: Some(start),
        })
    }
}

/// The session of a run, opened, with what the run learned opening it.
struct Opened {
    session: Session,
    mods: crate::mods::ActiveMods,
    /// The world's name and starting object count, for the summary line.
    world: (String, usize),
    /// The mission's identity (name and data fingerprint) for replay headers.
    identity: Option<ReplayMission>,
}

/// Opens the session (registry → mods → audio → plugins → mission) and writes what
/// runs: the registry, each slot's plugin, the component lines, the mission's counts.
fn open(
    opts: &HeadlessOptions,
    plan: &Plan,
    platform: Box<dyn TimeSource>,
    out: &mut dyn Write,
) -> anyhow::Result<Opened> {
    let registry_path = match plan.mission {
        Some(_) => plugins::locate_registry(opts.registry.as_deref())?,
        None => {
            plugins::locate_registry_named(opts.registry.as_deref(), plugins::SCENARIO_REGISTRY)?
        }
    };
    let recorded_mods = plan
        .replay
        .as_ref()
        .map(|l| compat::recorded_mod_ids(&l.header.params))
        .unwrap_or_default();
    let mods = crate::mods::for_run(&opts.mods, true, &recorded_mods);
    mods.report(out)?;
    let setup = plugins::RunPlugins {
        registry: &registry_path,
        plugin_dirs: &opts.plugin_dirs,
        mods: &mods,
        audio: opts.audio.mode(true),
        strict: opts.strict_plugins,
    };
    // Plugins that read mission data (terrain) get the mission's files through the host.
    let mission_spec = match (&opts.game_dir, &plan.mission) {
        (Some(dir), Some(name)) => opts
            .data_profile
            .mission(dir, name, &plan.mission_params)
            .with_overlays(crate::mods::overlays(&mods)),
        (None, None) => MissionSpec::Synthetic {
            name: scenario::SCENARIO_NAME.to_owned(),
            parameters: scenario::parameters(plan.params),
        },
        _ => bail!("--game-dir and --mission go together"),
    };
    let mut session = setup.open(
        setup.registry()?,
        plan.seed,
        plan.tick_hz,
        mission_spec,
        platform,
    )?;
    write_plugins(&session, &registry_path, out)?;
    let mut world = (
        scenario::SCENARIO_NAME.to_owned(),
        plan.params.objects as usize,
    );
    let mut identity = None;
    match &session.game {
        Some(game) => {
            let name = plan.mission.clone().unwrap_or_default();
            let loaded = &game.loaded;
            identity = Some(ReplayMission {
                name: name.clone(),
                data: iron3d_mission::data_fingerprint(&game.vfs)?,
            });
            let c = loaded.graph.counts;
            world = (format!("mission:{name}"), loaded.objects.len());
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
        None => scenario::populate(&mut session.kernel, plan.params, &Serials::default())?,
    }
    Ok(Opened {
        session,
        mods,
        world,
        identity,
    })
}

/// The run's options: trace, the recording (its header) or the replayed log, the
/// scheduled swaps, the watcher and the audio output. A replayed log must fit this run.
fn run_options(
    opts: &HeadlessOptions,
    plan: &mut Plan,
    opened: &Opened,
) -> anyhow::Result<RunOptions> {
    let plugin_set = compat::plugin_set(&opened.session.host);
    let mods = &opened.mods.fingerprint;
    if let Some(log) = &plan.replay {
        compat::check_compatible(log, opened.identity.as_ref(), &plugin_set, mods)?;
    }
    let recorded = Recorded {
        plugin_set: &plugin_set,
        mods,
        seed: plan.seed,
        tick_hz: plan.tick_hz,
        checkpoint_every: opts.checkpoint_every,
    };
    let record = opts.record.as_ref().map(|path| RecordTarget {
        path: path.clone(),
        // PD-REPLAY-FROM-SAVE: a loaded run's log goes on from its save.
        header: match &opened.identity {
            Some(mission) => recorded.mission_header(mission.clone(), &plan.mission_params),
            None => recorded.scenario_header(
                scenario::SCENARIO_NAME,
                scenario::params_to_json(plan.params),
            ),
        }
        .with_start(plan.start.clone()),
    });
    Ok(RunOptions {
        trace: opts.trace.as_ref().map(|path| TraceTarget {
            path: path.clone(),
            every: opts.trace_every,
        }),
        record,
        replay: plan.replay.take(),
        swaps: opts
            .swaps
            .iter()
            .map(|(after_tick, slot, library)| ScheduledSwap {
                after_tick: *after_tick,
                slot: *slot,
                library: library.clone(),
            })
            .collect(),
        watch: opts.watch,
        audio_trace: opts.audio.audio_trace.clone(),
        announce_audio: opts.audio.announces(true),
    })
}

/// The frame loop: frames at `--fps` on the manual clock (or paced on the real one),
/// scripted input, the console, until the ticks ran, `quit`, or the mission is decided
/// (a replay runs the recorded ticks: PD-REPLAY-END).
fn drive(
    opts: &HeadlessOptions,
    run: &mut Run,
    ctx: &SaveCtx,
    ticks: u64,
    clock: Option<&ManualTimeSource>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let console = opts.console.then(spawn_console);
    let mut scripted = ScriptedInput::new(run.kernel.config().seed);
    // A loaded run goes on with the script where the saved run was (one draw set per
    // tick, as the kernel asks once per tick).
    for t in 1..=run.kernel.tick() {
        iron3d_kernel::InputSource::events_for_tick(&mut scripted, t);
    }
    let mut saves: Vec<(u64, PathBuf)> = opts.save_at.clone();
    saves.sort_by_key(|s| s.0);
    let start = run.kernel.tick();
    saves.retain(|s| s.0 >= start);
    #[allow(
        clippy::disallowed_methods,
        reason = "real-time pacing of presented frames only"
    )]
    let started = std::time::Instant::now();
    // A mission loaded decided does not go on (as the saved run did not).
    let mut quit = run.decided().is_some() && !run.is_replay();
    while run.kernel.tick() < ticks && !quit {
        let frame_ns = u64::try_from(
            u128::from(run.frames() + 1) * u128::from(NANOS_PER_SEC) / u128::from(opts.fps),
        )?;
        match clock {
            Some(clock) => clock.set_ns(frame_ns),
            None => {
                let due = Duration::from_nanos(frame_ns);
                if let Some(wait) = due.checked_sub(started.elapsed()) {
                    std::thread::sleep(wait);
                }
            }
        }
        // Saves due now; a frame then stops at the next save's tick (the ticks are the
        // same ticks, only the frame they run in differs: presentation, not simulation).
        let now = run.kernel.tick();
        while saves.first().is_some_and(|s| s.0 <= now) {
            let (_, path) = saves.remove(0);
            save_to(run, ctx, &path, out)?;
        }
        let stop = saves.first().map_or(ticks, |s| s.0.min(ticks));
        let budget = stop - now;
        let frame = run.frame(&mut scripted, Some(budget))?;
        if let Some(rx) = &console {
            let Session { host, kernel, .. } = &mut **run;
            while let Ok(line) = rx.try_recv() {
                quit |= console_command(&line, host, kernel);
            }
        }
        for line in frame.notes {
            writeln!(out, "{line}")?;
        }
        quit |= run.decided().is_some() && !run.is_replay();
    }
    // The saves of the tick the run stopped at (its last, or the one it was decided
    // at), `--save` last; saves asked for later ticks never ran and are said so.
    let now = run.kernel.tick();
    let last = opts.save.iter().map(|p| (now, p.clone()));
    for (at, path) in saves.into_iter().chain(last) {
        if at <= now {
            save_to(run, ctx, &path, out)?;
        } else {
            writeln!(
                out,
                "not saved: {} (tick {at} not reached; the run stopped at tick {now})",
                path.display()
            )?;
        }
    }
    Ok(())
}

/// Saves the run as it stands (between ticks) into `path`, atomically (PD-SAVE-ATOMIC).
fn save_to(
    run: &Run,
    ctx: &SaveCtx,
    path: &std::path::Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut save = run.save_file(&ctx.identity)?;
    if let Some(p) = &ctx.scenario {
        save.header
            .extra
            .insert(crate::saves::SCENARIO_KEY.to_owned(), p.clone());
    }
    iron3d_save::write_atomic(path, &save)?;
    writeln!(out, "{}", crate::saves::saved_line(&save.header, path))?;
    Ok(())
}

/// Runs the scenario headless and writes the per-phase table, then `state_hash=<hex>` as the last line.
pub fn run(opts: &HeadlessOptions, out: &mut dyn Write) -> anyhow::Result<HeadlessOutcome> {
    let mut plan = Plan::of(opts)?;
    let manual = ManualTimeSource::new();
    let realtime = opts.realtime || opts.watch || opts.console;
    let platform: Box<dyn TimeSource> = if realtime {
        Box::new(SystemTimeSource::new())
    } else {
        Box::new(manual.clone())
    };
    let opened = open(opts, &plan, platform, out)?;
    tracing::info!(
        seed = plan.seed,
        tick_hz = plan.tick_hz,
        objects = plan.params.objects,
        ticks = plan.ticks,
        fps = opts.fps,
        "headless run"
    );
    let scenario_json = serde_json::json!(scenario::params_to_json(plan.params));
    let ctx = SaveCtx {
        identity: iron3d_session::save::SaveIdentity::of(
            opened.identity.as_ref(),
            &scenario_json,
            &opened.mods.fingerprint,
        ),
        scenario: opened.identity.is_none().then_some(scenario_json),
    };
    let mut opened = opened;
    if let Some(save) = &plan.load {
        opened.session.restore_save(save, &ctx.identity)?;
        writeln!(
            out,
            "loaded tick={} state_hash={} mission={}",
            save.header.tick, save.header.state_hash, save.header.mission
        )?;
    }
    let options = run_options(opts, &mut plan, &opened)?;
    let (world, start_objects) = opened.world;
    let mut run = Run::start(opened.session, options)?;
    let exit = match &opts.net {
        Some(net) => crate::net_cli::drive(&mut run, net, &ctx.identity, out)?,
        None => {
            drive(
                opts,
                &mut run,
                &ctx,
                plan.ticks,
                (!realtime).then_some(&manual),
                out,
            )?;
            0
        }
    };
    let end = run.finish()?;
    run.report(&end, out)?;
    if let Some(RecordEnd::NoTick(path)) = &end.record {
        bail!(
            "nothing recorded into {}: the run ended before its first tick",
            path.display()
        );
    }
    if let Some(d) = &end.decided {
        writeln!(out, "{d}")?;
    }
    writeln!(
        out,
        "scenario={world} seed={} objects_start={start_objects} objects_end={} ticks={} frames={} fps={} tick_hz={}",
        plan.seed,
        run.kernel.world().registered_count(),
        end.ticks,
        end.frames,
        opts.fps,
        plan.tick_hz
    )?;
    write!(out, "{}", run.kernel.stats().table())?;
    if let Some(v) = &end.replay {
        writeln!(out, "{}", replay_line(v))?;
    }
    // Ordered shutdown: the kernel (and every plugin instance), then the shadow copies
    // (the images stay mapped; their files are no longer needed on disk).
    run.shutdown();
    writeln!(out, "state_hash={}", end.hash)?;
    Ok(HeadlessOutcome {
        hash: end.hash,
        ticks: end.ticks,
        checkpoints_compared: end.replay.as_ref().map_or(0, |v| v.compared),
        exit,
        divergence: end.replay.and_then(|v| v.divergence),
    })
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
