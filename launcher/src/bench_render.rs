//! `iron3d bench` render figures: presented frames per second of each renderer plugin on
//! the demo mission and on the stress mission, at 640×480 and 1280×720, through the same
//! path as `iron3d play --offscreen` (simulation tick, frame building, plugin draw).

use crate::play::{PlayOptions, Renderer, run_offscreen};
use iron3d_demo::Profile;
use std::io::Write;
use std::time::Instant;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// Runs the render benchmarks and prints `bench render …` lines.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    for (label, profile, frames) in [
        ("demo", Profile::Demo, 60u64),
        ("stress", Profile::Stress, 60),
    ] {
        let dir = tmp.path().join(label);
        let manifest = iron3d_demo::build(&dir, 7, profile)?;
        let mission = manifest
            .missions
            .first()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("{label} content has no mission"))?;
        for (w, h) in [(640u32, 480u32), (1280, 720)] {
            for renderer in [Renderer::Soft, Renderer::Capture, Renderer::Vulkan] {
                let opts = PlayOptions {
                    game_dir: dir.clone(),
                    mission: mission.clone(),
                    renderer,
                    offscreen: true,
                    frames: Some(frames),
                    screenshot: None,
                    width: w,
                    height: h,
                    camera: None,
                    seed: 7,
                    fps: 30,
                    registry: None,
                    plugin_dirs: Vec::new(),
                    switches: Vec::new(),
                    data_profile: crate::mission_cli::Profile::default(),
                };
                let mut sink = Vec::new();
                let t = now();
                let result = run_offscreen(&opts, &mut sink);
                let secs = t.elapsed().as_secs_f64();
                let text = String::from_utf8_lossy(&sink);
                match result {
                    Ok(o) if text.contains(&format!("renderer={} ", renderer.as_str())) => {
                        writeln!(
                            out,
                            "bench render mission={label} renderer={} size={w}x{h} frames={frames} draw_items={} fps={:.1} ms_per_frame={:.2} total_ms={:.0}",
                            renderer.as_str(),
                            o.draw_items,
                            o.fps,
                            1e3 / o.fps.max(1e-9),
                            secs * 1e3
                        )?
                    }
                    Ok(_) => writeln!(
                        out,
                        "bench render mission={label} renderer={} size={w}x{h}: not available (fell back)",
                        renderer.as_str()
                    )?,
                    Err(e) => writeln!(
                        out,
                        "bench render mission={label} renderer={} size={w}x{h}: failed: {e:#}",
                        renderer.as_str()
                    )?,
                }
            }
        }
    }
    Ok(())
}
