//! Headless runs: the kernel on the built-in scenario, a simulated presentation clock,
//! optional recording or replay verification, per-phase stats and the final state hash.

use crate::scenario::{self, ScenarioParams, ScriptedInput, Serials};
use anyhow::{Context, bail};
use iron3d_kernel::replay::{
    Divergence, REPLAY_FORMAT, REPLAY_VERSION, RecordingInput, ReplayHeader, ReplayInput, ReplayLog,
};
use iron3d_kernel::{
    InputSource, Kernel, KernelConfig, ManualTimeSource, StateHash, clock::NANOS_PER_SEC,
};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// Options of `iron3d run --headless`.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadlessOptions {
    /// Ticks to simulate (`None` with `--replay`: the log's length).
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

fn params_to_json(p: ScenarioParams) -> BTreeMap<String, serde_json::Value> {
    BTreeMap::from([
        ("objects".to_owned(), serde_json::json!(p.objects)),
        ("collisions".to_owned(), serde_json::json!(p.collisions)),
    ])
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
    let (seed, tick_hz, params) = match &replay {
        Some(log) => {
            if log.header.scenario != scenario::SCENARIO_NAME {
                bail!(
                    "replay log is for scenario '{}', this build knows '{}'",
                    log.header.scenario,
                    scenario::SCENARIO_NAME
                );
            }
            (
                log.header.seed,
                log.header.tick_hz,
                params_from_json(&log.header.params)?,
            )
        }
        None => (
            opts.seed,
            opts.tick_hz,
            ScenarioParams {
                objects: opts.objects,
                collisions: true,
            },
        ),
    };
    let ticks = match (opts.ticks, &replay) {
        (Some(t), _) => t,
        (None, Some(log)) => log
            .end
            .map(|e| e.0)
            .or_else(|| log.checkpoints.keys().next_back().copied())
            .context("replay log has no end record and no checkpoint: pass --ticks")?,
        (None, None) => bail!("--ticks is required"),
    };

    let clock = ManualTimeSource::new();
    let config = KernelConfig {
        seed,
        tick_hz,
        publish_snapshots: true,
        ..KernelConfig::default()
    };
    let mut kernel = Kernel::new(config, Box::new(clock.clone()))?;
    let serials = Serials::default();
    scenario::install(&mut kernel, params, &serials)?;
    scenario::populate(&mut kernel, params, &serials)?;
    tracing::info!(
        seed,
        tick_hz,
        objects = params.objects,
        ticks,
        fps = opts.fps,
        "headless run"
    );

    let mut recording = opts.record.as_ref().map(|_| {
        ReplayLog::new(ReplayHeader {
            format: REPLAY_FORMAT.into(),
            version: REPLAY_VERSION,
            seed,
            tick_hz,
            scenario: scenario::SCENARIO_NAME.into(),
            params: params_to_json(params),
            checkpoint_every: opts.checkpoint_every.max(1),
        })
    });
    let mut scripted = ScriptedInput::new(seed);
    let mut outcome = HeadlessOutcome {
        hash: kernel.state_hash(),
        ticks: 0,
        divergence: None,
        checkpoints_compared: 0,
    };

    let mut frame = 0u64;
    while kernel.tick() < ticks {
        frame += 1;
        clock.set_ns(u64::try_from(
            u128::from(frame) * u128::from(NANOS_PER_SEC) / u128::from(opts.fps),
        )?);
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
        kernel.frame_observed(source, Some(budget), &mut |k| {
            let tick = k.tick();
            let wanted = match replay_ref {
                Some(log) => log.checkpoints.contains_key(&tick),
                None => tick % every == 0,
            };
            if wanted {
                checkpoints.push((tick, k.state_hash()));
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
    }
    outcome.hash = kernel.state_hash();
    outcome.ticks = kernel.tick();
    if let (Some(log), Some(path)) = (recording.as_mut(), &opts.record) {
        log.end = Some((outcome.ticks, outcome.hash));
        log.write(path)?;
    }

    let stats = kernel.stats().clone();
    writeln!(
        out,
        "scenario={} seed={seed} objects_start={} objects_end={} ticks={} frames={frame} fps={} tick_hz={tick_hz}",
        scenario::SCENARIO_NAME,
        params.objects,
        kernel.world().registered_count(),
        outcome.ticks,
        opts.fps
    )?;
    write!(out, "{}", stats.table())?;
    if replay.is_some() {
        match outcome.divergence {
            None => writeln!(
                out,
                "replay: {} checkpoints match",
                outcome.checkpoints_compared
            )?,
            Some(d) => writeln!(
                out,
                "replay: DIVERGED first at tick {} (expected {}, got {}); {} checkpoints compared",
                d.tick, d.expected, d.actual, outcome.checkpoints_compared
            )?,
        }
    }
    kernel.shutdown();
    writeln!(out, "state_hash={}", outcome.hash)?;
    Ok(outcome)
}
