//! `iron3d-bench` control figures: milliseconds per tick of the real control plugin
//! (through the plugin host) with 1,000 / 10,000 / 100,000 vehicles on the demo
//! mission's terrain — terrain following, the walkable check, collisions and contact
//! resolution — driven by the wanderer AI through the control service, on one core;
//! then how the cost grows (target: 10,000 units in at most 4 ms per tick, growth
//! close to linear).

use anyhow::Context;
use iron3d_kernel::{ManualTimeSource, Phase};
use iron3d_launcher::plugins;
use iron3d_registry::{Dialect, Registry};
use iron3d_session::{MissionSpec, Session};
use std::io::Write;
use std::time::{Duration, Instant};

/// The registry of the figures: the real terrain, wanderer and control plugins.
const REGISTRY: &str = "terrain iron3d_terrain terrain\nai iron3d_ai_wanderer wanderer\n\
control iron3d_control control\neffects iron3d_null null-effects\naudio iron3d_null null-audio\n\
render iron3d_null null-render\nnet iron3d_null null-net\ninput iron3d_null null-input\n";

/// Unit counts measured.
pub const COUNTS: [u32; 3] = [1_000, 10_000, 100_000];
/// Ticks measured per count (after [`WARMUP`]).
pub const TICKS: u32 = 30;
/// Ticks run before measuring: the wanderer's first requests and the crowd closing up
/// until the contact count is steady (at 10,000 units the cost per tick climbs for
/// about 30 ticks, from about 3.5 to 5.6 ms before PD-CTRL-WALKABLE's single probe;
/// measuring earlier would report the empty-crowd cost).
pub const WARMUP: u32 = 40;
/// Grid spacing of the units (radius 0.5: a crowd with contacts).
pub const SPACING: f32 = 1.6;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall time; it never feeds the simulation"
)]
fn now() -> Instant {
    Instant::now()
}

/// One figure: milliseconds per tick in total and in the update phase (the control
/// plugin's step): the mean, and the fastest and median tick (on a shared machine the
/// mean carries other tenants' time; the minimum is the code's own cost).
struct Figure {
    tick_ms: f64,
    update_ms: f64,
    update_min_ms: f64,
    update_median_ms: f64,
}

fn measure(game: &std::path::Path, units: u32) -> anyhow::Result<Figure> {
    let registry = Registry::parse(
        REGISTRY.as_bytes(),
        "bench-control.ini",
        Dialect::PluginsIni,
    )?;
    let spec = plugins::session_spec(&[], registry, 7, 30, false);
    let mut s = Session::open(
        &spec,
        MissionSpec::Game {
            game_dir: game.to_path_buf(),
            mission: "DEMO1".into(),
            mode: iron3d_vfs::ReadMode::Strict,
            relax_mesh_tag: false,
            parameters: Default::default(),
            overlays: Vec::new(),
        },
        Box::new(ManualTimeSource::new()),
    )
    .context("bench control: session")?;
    // A square crowd in the middle of the 512 × 512 map (owner 3: clear of the
    // mission's ids, owners 3.. for the crowd).
    let side = (units as f32).sqrt().ceil() as u32;
    let origin = 256.0 - side as f32 * SPACING * 0.5;
    for i in 0..units {
        let id = crate::plugins::crowd_id(i)?;
        let (x, y) = (
            origin + (i % side) as f32 * SPACING,
            origin + (i / side) as f32 * SPACING,
        );
        crate::plugins::place(&mut s.kernel, id, x, y)?;
    }
    for _ in 0..WARMUP {
        s.kernel.step(&[])?;
    }
    let update_ns = |s: &Session| s.kernel.stats().phases[Phase::UpdateSystems.index()].total_ns;
    let before = update_ns(&s);
    let mut per_tick: Vec<u64> = Vec::with_capacity(TICKS as usize);
    let t = now();
    for _ in 0..TICKS {
        let b = update_ns(&s);
        s.kernel.step(&[])?;
        per_tick.push(update_ns(&s) - b);
    }
    let d: Duration = t.elapsed();
    let update = update_ns(&s) - before;
    per_tick.sort_unstable();
    let faults = s.kernel.stats().system_faults;
    anyhow::ensure!(faults == 0, "bench control: {faults} system faults");
    s.shutdown();
    Ok(Figure {
        tick_ms: d.as_secs_f64() * 1e3 / f64::from(TICKS),
        update_ms: update as f64 / 1e6 / f64::from(TICKS),
        update_min_ms: per_tick[0] as f64 / 1e6,
        update_median_ms: per_tick[per_tick.len() / 2] as f64 / 1e6,
    })
}

/// Units of the crowd-jam figure.
pub const JAM_UNITS: u32 = 1_000;
/// Ticks of the jam: it closes up for [`JAM_SETTLE`] ticks, then is measured.
pub const JAM_TICKS: u32 = 600;
/// Ticks the jam closes up before it is measured.
pub const JAM_SETTLE: u32 = 300;

/// The registry of the crowd-jam figure: the real terrain and control plugins, and the
/// test plugin's `jam` factory in the AI slot (it drives every object to one point).
const JAM_REGISTRY: &str = "terrain iron3d_terrain terrain\nai iron3d_test_counter jam\n\
control iron3d_control control\neffects iron3d_null null-effects\naudio iron3d_null null-audio\n\
render iron3d_null null-render\nnet iron3d_null null-net\ninput iron3d_null null-input\n";

/// The crowd-jam figure: [`JAM_UNITS`] vehicles (radius 0.5, a 32-wide grid 1.6 apart
/// round the middle of the demo map) all driven to the middle at 5 units/s (the test
/// plugin's `jam` factory) through the real control plugin and the plugin host, on the
/// demo mission's terrain: milliseconds per tick of the update phase once jammed
/// (median and mean over the last `JAM_TICKS − JAM_SETTLE` ticks), and the worst
/// overlap of any two of them over those ticks (every pair checked by brute force from
/// the kernel's positions each measured tick).
fn jam(game: &std::path::Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let registry = Registry::parse(
        JAM_REGISTRY.as_bytes(),
        "bench-control-jam.ini",
        Dialect::PluginsIni,
    )?;
    let spec = plugins::session_spec(&[], registry, 7, 30, false);
    let mut s = Session::open(
        &spec,
        MissionSpec::Game {
            game_dir: game.to_path_buf(),
            mission: "DEMO1".into(),
            mode: iron3d_vfs::ReadMode::Strict,
            relax_mesh_tag: false,
            parameters: Default::default(),
            overlays: Vec::new(),
        },
        Box::new(ManualTimeSource::new()),
    )
    .context("bench control jam: session")?;
    let side = 32;
    let origin = 256.0 - side as f32 * SPACING * 0.5;
    let mut ids = Vec::new();
    for i in 0..JAM_UNITS {
        let id = crate::plugins::crowd_id(i)?;
        let (x, y) = (
            origin + (i % side) as f32 * SPACING,
            origin + (i / side) as f32 * SPACING,
        );
        crate::plugins::place(&mut s.kernel, id, x, y)?;
        ids.push(id);
    }
    let update_ns = |s: &Session| s.kernel.stats().phases[Phase::UpdateSystems.index()].total_ns;
    let mut per_tick = Vec::new();
    let mut worst = 0.0f32;
    let mut xy = Vec::with_capacity(ids.len());
    for t in 0..JAM_TICKS {
        let b = update_ns(&s);
        s.kernel.step(&[])?;
        if t < JAM_SETTLE {
            continue;
        }
        per_tick.push((update_ns(&s) - b) as f64 / 1e6);
        xy.clear();
        let w = s.kernel.world();
        for &id in &ids {
            if let Some(o) = w.handle_of(id).and_then(|h| w.get(h).ok()) {
                xy.push(o.transform.position.truncate());
            }
        }
        for i in 0..xy.len() {
            for j in i + 1..xy.len() {
                worst = worst.max(1.0 - xy[i].distance(xy[j]));
            }
        }
    }
    let faults = s.kernel.stats().system_faults;
    anyhow::ensure!(faults == 0, "bench control jam: {faults} system faults");
    s.shutdown();
    let mean = per_tick.iter().sum::<f64>() / per_tick.len() as f64;
    per_tick.sort_by(f64::total_cmp);
    let measured = JAM_TICKS - JAM_SETTLE;
    writeln!(
        out,
        "bench control_jam units={JAM_UNITS} ticks={measured} (after {JAM_SETTLE}) update_median_ms={:.3} update_mean_ms={:.3} worst_overlap={:.4} target_overlap=0.05 met={}",
        per_tick[per_tick.len() / 2],
        mean,
        worst,
        worst <= 0.05
    )?;
    Ok(())
}

/// Prints one `bench control` line per count and the growth ratios, then the
/// crowd-jam figure.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    iron3d_demo::build(tmp.path(), 7, iron3d_demo::Profile::Demo)?;
    let mut figures = Vec::new();
    for units in COUNTS {
        let f = measure(tmp.path(), units)?;
        writeln!(
            out,
            "bench control units={units} ticks={TICKS} ms_per_tick={:.2} control_update_ms_per_tick={:.2} update_median_ms={:.2} update_min_ms={:.2} us_per_unit_tick={:.2}",
            f.tick_ms,
            f.update_ms,
            f.update_median_ms,
            f.update_min_ms,
            f.update_ms * 1e3 / f64::from(units)
        )?;
        figures.push(f);
    }
    writeln!(
        out,
        "bench control_growth update_10k_over_1k={:.2} update_100k_over_10k={:.2} (linear = 10.00; medians) target_10k_update_ms=4 measured_10k_update_median_ms={:.2} measured_10k_update_min_ms={:.2} met={}",
        figures[1].update_median_ms / figures[0].update_median_ms,
        figures[2].update_median_ms / figures[1].update_median_ms,
        figures[1].update_median_ms,
        figures[1].update_min_ms,
        figures[1].update_median_ms <= 4.0
    )?;
    jam(tmp.path(), out)
}
