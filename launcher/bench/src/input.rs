//! `iron3d-bench` input figures: input-to-photon latency in presented frames — a key
//! event from the window (`Key:Left`, `camera.left`) goes through the input plugin into
//! the next tick's snapshot, the seat turns the camera, and the frame whose snapshot
//! carries the turned view is the one drawn — at 30, 60 and 144 presented frames per
//! second (30 ticks per second), measured with the real plugins on the demo's BATTLE
//! mission; and the per-frame cost of polling the input plugin.

use anyhow::Context;
use iron3d_kernel::ManualTimeSource;
use iron3d_launcher::live_input::LiveInput;
use iron3d_launcher::plugins;
use iron3d_registry::{Dialect, Registry};
use iron3d_session::Session;
use std::io::Write;
use std::time::Instant;
use winit::keyboard::KeyCode;

const REGISTRY: &str = "terrain iron3d_terrain terrain\nai iron3d_ai ai\n\
control iron3d_control control\ninput iron3d_player_input player\n";
/// Presses measured per frame rate (at different phases of the tick).
const PRESSES: u64 = 12;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall time; it never feeds the simulation"
)]
fn now() -> Instant {
    Instant::now()
}

/// Frames from the press to the first presented frame showing its effect, for each
/// press; and the mean wall time of one input poll.
fn measure(game: &std::path::Path, fps: u64) -> anyhow::Result<(Vec<u64>, f64)> {
    let registry = Registry::parse(REGISTRY.as_bytes(), "bench-input.ini", Dialect::PluginsIni)?;
    let spec = plugins::session_spec(&[], registry, 3, 30, true);
    let clock = ManualTimeSource::new();
    let mut s = Session::open(&spec, crate::ai::battle(game), Box::new(clock.clone()))
        .context("bench input: session")?;
    let mut input = LiveInput::default();
    let mut frame = 0u64;
    let (mut poll_ns, mut polls) = (0u128, 0u64);
    let mut present = |s: &mut Session, input: &mut LiveInput| -> anyhow::Result<Option<f32>> {
        frame += 1;
        clock.set_ns((frame * 1_000_000_000).div_ceil(fps));
        let t = now();
        input.poll(&s.host);
        poll_ns += t.elapsed().as_nanos();
        polls += 1;
        s.kernel.frame(input, None)?;
        Ok(s.kernel
            .snapshot()
            .and_then(|v| v.view.as_ref().map(|v| v.yaw)))
    };
    // Warm up until the seat has published a view (the first tick may be frames away).
    let mut warm = 0;
    while present(&mut s, &mut input)?.is_none() || warm < 10 {
        warm += 1;
        anyhow::ensure!(warm < 1000, "bench input: the seat published no view");
    }
    let mut latencies = Vec::new();
    for k in 0..PRESSES {
        // Presses at every phase of the tick: wait k frames first.
        for _ in 0..(k % 5) {
            present(&mut s, &mut input)?;
        }
        let before = present(&mut s, &mut input)?;
        input.key(KeyCode::ArrowLeft, true);
        let mut frames = 0;
        loop {
            let yaw = present(&mut s, &mut input)?;
            if yaw != before {
                break;
            }
            frames += 1;
            anyhow::ensure!(frames < 100, "bench input: the camera never turned");
        }
        latencies.push(frames);
        input.key(KeyCode::ArrowLeft, false);
        for _ in 0..3 {
            present(&mut s, &mut input)?;
        }
    }
    s.shutdown();
    Ok((latencies, poll_ns as f64 / polls.max(1) as f64 / 1e3))
}

/// Prints one `bench input_latency` line per frame rate.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    iron3d_demo::build(tmp.path(), 1, iron3d_demo::Profile::Demo)?;
    for fps in [30, 60, 144] {
        let (l, poll_us) = measure(tmp.path(), fps)?;
        let max = l.iter().max().copied().unwrap_or(0);
        let mean = l.iter().sum::<u64>() as f64 / l.len().max(1) as f64;
        writeln!(
            out,
            "bench input_latency fps={fps} tick_hz=30 presses={} frames_mean={mean:.2} frames_max={max} (0: the frame presented right after the event shows it) poll_us_per_frame={poll_us:.1}",
            l.len()
        )?;
    }
    Ok(())
}
