//! `iron3d-bench` effects figures (issue 38): the effects runtime (`iron3d-effects-rules`,
//! what the effects plugin runs) on one core —
//! 10,000 live particles updated (instances retired) and emitted per frame at 60 frames
//! per second of game time (target: at most 1 ms per frame, median), and a burst of 64
//! kills (the demo's `EXPLODE` and `WRECK` effects at once): its primitives and the
//! emission time of its heaviest frame.

use iron3d_effects_rules::emitter::{EmitterBlock, PROJECT_LAYOUT};
use iron3d_effects_rules::library::Library;
use iron3d_effects_rules::runtime::Runtime;
use iron3d_fxid::{Command, Fxid, Opcode};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// Live particles of the first figure.
pub const PARTICLES: u32 = 10_000;
/// Particles per instance (one burst each).
const PER_INSTANCE: u32 = 250;
/// Frames measured (60 per second of game time, all within the particles' life).
pub const FRAMES: u64 = 90;
/// Kills of the burst figure.
pub const BURST: u32 = 64;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall time; it never feeds the simulation"
)]
fn now() -> Instant {
    Instant::now()
}

/// A 2-second effect of one burst of [`PER_INSTANCE`] smoke-like particles.
fn puff() -> anyhow::Result<Arc<Fxid>> {
    let mut c = Command::with_resource(Opcode::Op7, b"sprites.lib", b"SMOKE.TEX")?;
    EmitterBlock {
        width: 0.5,
        colour: [0.5, 0.5, 0.5, 0.8],
        count: PER_INSTANCE,
        speed: 3.0,
        spread: 1.0,
        gravity: -9.8,
        life: 2.0,
        grow: 0.5,
        blend: 1,
        fade: 1,
        ..EmitterBlock::default()
    }
    .write(&mut c)?;
    Ok(Arc::new(
        Fxid::builder()
            .duration_seconds(2.0)
            .settings_id(PROJECT_LAYOUT)
            .command(c)
            .build(),
    ))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Prints `bench effects_particles` and `bench effects_burst`.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let fx = puff()?;
    let mut rt = Runtime::new(7);
    for i in 0..PARTICLES / PER_INSTANCE {
        let p = [f32::from(i as u16) * 3.0, 0.0, 0.0];
        rt.start(fx.clone(), "bench", "PUFF", 0, p, None, 1.0, 0, 33);
    }
    let mut per_frame = Vec::new();
    let mut live = 0;
    for f in 0..FRAMES {
        let t_ms = f * 1000 / 60;
        let t = now();
        rt.retire(t_ms);
        let e = rt.emit(t_ms);
        per_frame.push(t.elapsed().as_secs_f64() * 1e3);
        live = live.max(e.frame.primitives.len());
    }
    let max = per_frame.iter().copied().fold(0.0, f64::max);
    let med = median(per_frame);
    writeln!(
        out,
        "bench effects_particles particles={live} frames={FRAMES} update_emit_median_ms={med:.3} update_emit_max_ms={max:.3} target_ms=1 met={}",
        med <= 1.0
    )?;
    // The burst: the demo's own kill effects, 64 at once.
    let tmp = tempfile::tempdir()?;
    iron3d_demo::build(tmp.path(), 1, iron3d_demo::Profile::Demo)?;
    let mut lib = Library::default();
    lib.offer_archive(
        "effects.rlb",
        std::fs::read(tmp.path().join("effects.rlb")).map_err(|e| e.to_string()),
    );
    let explode = lib.effect("effects.rlb", "EXPLODE")?;
    let wreck = lib.effect("effects.rlb", "WRECK")?;
    let mut rt = Runtime::new(9);
    for i in 0..BURST {
        let p = [
            f32::from(i as u16 % 8) * 10.0,
            f32::from(i as u16 / 8) * 10.0,
            0.0,
        ];
        rt.start(
            explode.clone(),
            "effects.rlb",
            "EXPLODE",
            i,
            p,
            None,
            1.0,
            0,
            33,
        );
        rt.start(
            wreck.clone(),
            "effects.rlb",
            "WRECK",
            i,
            p,
            None,
            1.0,
            0,
            33,
        );
    }
    let (mut worst_ms, mut worst_prims) = (0.0f64, 0usize);
    for f in 0..FRAMES {
        let t_ms = f * 1000 / 60;
        let t = now();
        let e = rt.emit(t_ms);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if ms > worst_ms {
            worst_ms = ms;
        }
        worst_prims = worst_prims.max(e.frame.primitives.len());
    }
    writeln!(
        out,
        "bench effects_burst kills={BURST} instances={} most_primitives={worst_prims} worst_emit_ms={worst_ms:.3}",
        2 * BURST
    )?;
    Ok(())
}
