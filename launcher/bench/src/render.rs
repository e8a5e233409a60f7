//! `iron3d-bench` render figures: presented frames per second of each renderer plugin on
//! the demo mission and on the stress mission, at 640×480 and 1280×720, through the same
//! path as `iron3d play --offscreen` (simulation tick, frame building, plugin draw); and
//! the frame stall of a switch to the Vulkan renderer prepared on the render thread
//! (the whole preparation, device creation included) next to one prepared on a worker
//! thread (`PlaySession::switch_async`; target: at most one tick of stall); and the
//! battle with and without effects, side by side (`render_effects`); and the CPU cost of
//! preparing a frame (snapshot capture + frame building, the kernel's
//! `publish_render_snapshot` phase) on the battle and the 10,000-object stress mission
//! (`render_prepare`; target: at most 4 ms on the stress mission).

use iron3d_demo::Profile;
use iron3d_kernel::{Phase, RenderSnapshot};
use iron3d_launcher::play::{PlayOptions, PlaySession, Renderer, run_offscreen};
use std::io::Write;
use std::time::Instant;

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// The options of one measured run: offscreen, seed 7, 30 fps, the default registry.
fn bench_options(
    game_dir: impl Into<std::path::PathBuf>,
    mission: impl Into<String>,
    renderer: Renderer,
    frames: Option<u64>,
    (width, height): (u32, u32),
    hud: bool,
) -> PlayOptions {
    PlayOptions {
        renderer: Some(renderer),
        frames,
        width,
        height,
        hud,
        ..PlayOptions::new(game_dir, mission)
    }
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
                let opts = bench_options(
                    dir.clone(),
                    mission.clone(),
                    renderer,
                    Some(frames),
                    (w, h),
                    true,
                );
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
        if label == "demo" {
            swap_stall(&dir, &mission, out)?;
            hud_cost(&dir, out)?;
            effects_cost(&dir, out)?;
        }
    }
    prepare_cost(tmp.path(), out)?;
    Ok(())
}

/// Frames measured per figure of the frame-preparation cost (after [`PREPARE_WARMUP`]
/// frames).
pub const PREPARE_FRAMES: usize = 30;
/// Frames presented before the frame-preparation cost is measured.
pub const PREPARE_WARMUP: usize = 5;

/// The median of `v` (sorts it; 0 when empty).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) * 0.5,
    }
}

/// The CPU cost of preparing a frame, median of [`PREPARE_FRAMES`] frames at 640×480
/// with the capture renderer (which rasterises nothing), on the demo battle and the
/// 10,000-object stress mission, through `PlaySession` as `iron3d play --offscreen`
/// runs it (the camera follows the player's view):
///
/// - `prepare_ms`: the kernel's `publish_render_snapshot` phase without the HUD —
///   snapshot capture and frame building (`iron3d_render_frame::FrameBuilder::build`);
/// - `capture_ms`: the snapshot capture alone, timed again on the same world after the
///   frame; `build_ms` is `prepare_ms − capture_ms` (the frame building, and the
///   release of the snapshot the phase replaces);
/// - `with_hud_ms`: the same phase with the HUD (its overlay is built there too);
/// - `render_world_ms`: the `render_world` phase (the capture renderer's draw, its JSON
///   of the world's objects included), `frame_ms` the whole frame (simulation ticks,
///   preparation, draw), both without the HUD.
fn prepare_cost(root: &std::path::Path, out: &mut dyn Write) -> anyhow::Result<()> {
    for (label, profile) in [("battle", Profile::Demo), ("stress", Profile::Stress)] {
        let dir = root.join(format!("prepare-{label}"));
        let manifest = iron3d_demo::build(&dir, 7, profile)?;
        let mission = manifest
            .missions
            .first()
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("{label} content has no mission"))?;
        // Per session (without, with the HUD): the medians of publish, capture, render
        // world and whole frame.
        let mut medians = [[0.0f64; 4]; 2];
        let mut objects = 0usize;
        let mut items = 0usize;
        for (k, hud) in [false, true].into_iter().enumerate() {
            let opts = bench_options(
                dir.clone(),
                mission.clone(),
                Renderer::Capture,
                None,
                (640, 480),
                hud,
            );
            let mut sink = Vec::new();
            let mut s = PlaySession::start(&opts, &mut sink)?;
            let frame_ns = 1_000_000_000 / u64::from(opts.fps);
            let phases = |s: &PlaySession| {
                let p = &s.run.kernel.stats().phases;
                [Phase::PublishSnapshot, Phase::RenderWorld].map(|ph| p[ph.index()].total_ns)
            };
            let mut samples: [Vec<f64>; 4] = Default::default();
            for f in 1..=(PREPARE_WARMUP + PREPARE_FRAMES) as u64 {
                let before = phases(&s);
                let t = now();
                s.frame(f * frame_ns)?;
                let frame_ms = t.elapsed().as_secs_f64() * 1e3;
                let after = phases(&s);
                let t = now();
                let snap = RenderSnapshot::capture(s.run.kernel.world(), f, 0);
                let capture_ms = t.elapsed().as_secs_f64() * 1e3;
                objects = snap.objects.len();
                if f as usize > PREPARE_WARMUP {
                    let ms = |i: usize| after[i].saturating_sub(before[i]) as f64 / 1e6;
                    for (v, x) in samples.iter_mut().zip([ms(0), capture_ms, ms(1), frame_ms]) {
                        v.push(x);
                    }
                }
            }
            items = s.draw_items();
            medians[k] = samples.each_mut().map(|v| median(v));
            s.shutdown();
        }
        let [
            [prepare_ms, capture_ms, render_world_ms, frame_ms],
            [with_hud_ms, ..],
        ] = medians;
        writeln!(
            out,
            "bench render_prepare mission={label} objects={objects} renderer=capture size=640x480 frames={PREPARE_FRAMES} draw_items={items} prepare_ms={prepare_ms:.3} capture_ms={capture_ms:.3} build_ms={:.3} with_hud_ms={with_hud_ms:.3} render_world_ms={render_world_ms:.2} frame_ms={frame_ms:.2} target_prepare_ms=4 met={}",
            (prepare_ms - capture_ms).max(0.0),
            prepare_ms <= 4.0
        )?;
    }
    Ok(())
}

/// Frame stall while the render slot switches to Vulkan: prepared synchronously (the
/// frame that asks waits for the whole preparation) and on a worker thread (frames go on;
/// the slowest frame until the new renderer draws is reported).
fn swap_stall(dir: &std::path::Path, mission: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    let opts = bench_options(
        dir.to_owned(),
        mission.to_owned(),
        Renderer::Soft,
        None,
        (320, 240),
        true,
    );
    let mut sink = Vec::new();
    let mut s = PlaySession::start(&opts, &mut sink)?;
    let frame_ns = 1_000_000_000 / u64::from(opts.fps);
    let tick_ms = 1e3 / 30.0;
    let mut f = 0u64;
    let mut frame = |s: &mut PlaySession| -> anyhow::Result<f64> {
        f += 1;
        let t = now();
        s.frame(f * frame_ns)?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    for _ in 0..5 {
        frame(&mut s)?;
    }
    // Synchronous: the asking frame pays for the preparation.
    let t = now();
    if !s.switch(Renderer::Vulkan, &mut sink)? {
        writeln!(out, "bench render_swap_stall: vulkan not available")?;
        s.shutdown();
        return Ok(());
    }
    let sync_ms = t.elapsed().as_secs_f64() * 1e3 + frame(&mut s)?;
    s.switch(Renderer::Soft, &mut sink)?;
    for _ in 0..3 {
        frame(&mut s)?;
    }
    // On a worker thread: frames go on with the current renderer meanwhile.
    let t = now();
    s.switch_async(Renderer::Vulkan)?;
    let mut worst = t.elapsed().as_secs_f64() * 1e3;
    let mut frames_meanwhile = 0u32;
    loop {
        worst = worst.max(frame(&mut s)?);
        frames_meanwhile += 1;
        if s.poll_switch(&mut sink)?.is_some() || frames_meanwhile > 100_000 {
            break;
        }
    }
    let switched = worst.max(frame(&mut s)?);
    let prep_ms = t.elapsed().as_secs_f64() * 1e3;
    writeln!(
        out,
        "bench render_swap_stall renderer=vulkan sync_stall_ms={sync_ms:.1} async_worst_frame_ms={switched:.1} async_preparation_ms={prep_ms:.1} frames_during_preparation={frames_meanwhile} tick_ms={tick_ms:.1} async_stall_ticks={:.2}",
        switched / tick_ms
    )?;
    s.shutdown();
    Ok(())
}

/// Frames of the battle the effects figure plays (20 s of game time at 30 fps: the
/// shots start at tick 130, the first kills follow).
pub const EFFECTS_FRAMES: u64 = 600;

/// The effects' cost in whole frames: the battle played offscreen for
/// [`EFFECTS_FRAMES`] frames with the registry's effects plugin and with the null one,
/// side by side — the software renderer at 640×480 and the Vulkan renderer at 1280×720
/// (targets: 60 fps or more with effects) — and the primitives of the last frame.
fn effects_cost(dir: &std::path::Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let config = iron3d_launcher::plugins::locate_registry(None)?;
    let text = std::fs::read_to_string(&config)?;
    let null: String = text
        .lines()
        .map(|l| {
            if l.starts_with("effects ") {
                "effects iron3d_null null-effects"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let null_file = dir.join("bench-null-effects.ini");
    std::fs::write(&null_file, null)?;
    for (renderer, (w, h)) in [
        (Renderer::Soft, (640u32, 480u32)),
        (Renderer::Vulkan, (1280, 720)),
    ] {
        let mut fps = [0.0f64; 2];
        let mut fell_back = false;
        for (k, registry) in [Some(config.clone()), Some(null_file.clone())]
            .into_iter()
            .enumerate()
        {
            let opts = PlayOptions {
                registry,
                ..bench_options(
                    dir.to_owned(),
                    iron3d_demo::BATTLE.to_owned(),
                    renderer,
                    Some(EFFECTS_FRAMES),
                    (w, h),
                    true,
                )
            };
            let mut sink = Vec::new();
            let o = run_offscreen(&opts, &mut sink)?;
            fell_back |= !String::from_utf8_lossy(&sink)
                .contains(&format!("renderer={} ", renderer.as_str()));
            fps[k] = o.fps;
        }
        if fell_back {
            writeln!(
                out,
                "bench render_effects renderer={} size={w}x{h}: not available (fell back)",
                renderer.as_str()
            )?;
            continue;
        }
        writeln!(
            out,
            "bench render_effects mission=BATTLE renderer={} size={w}x{h} frames={EFFECTS_FRAMES} fps_with_effects={:.1} fps_without={:.1} ratio={:.3} target_fps=60 met={}",
            renderer.as_str(),
            fps[0],
            fps[1],
            fps[0] / fps[1].max(1e-9),
            fps[0] >= 60.0
        )?;
    }
    Ok(())
}

/// The HUD's cost per frame: building the overlay of the battle's play screen and
/// compositing it on a 1280×720 image (what the software renderer adds), then whole
/// software-rendered frames at 640×480 with and without the HUD, side by side.
fn hud_cost(dir: &std::path::Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let vfs = iron3d_vfs::Vfs::new(dir);
    let view = iron3d_hud::view::HudView::load(
        &vfs,
        iron3d_demo::BATTLE,
        &Default::default(),
        iron3d_hud::Screen::Playing,
    )?;
    let state = iron3d_hud::HudState {
        fps: 60.0,
        tick: 1234,
        game_seconds: 2.0,
        resources: vec![(b"Units".to_vec(), 9), (b"Ore".to_vec(), 1200)],
        selection: vec![b"Selected: 2".to_vec(), b"Unit 4100".to_vec()],
        ..iron3d_hud::HudState::default()
    };
    const N: u32 = 200;
    let (w, h) = (1280u32, 720u32);
    let t = now();
    let mut overlay = view.hud.overlay(&state, w, h);
    for _ in 1..N {
        overlay = view.hud.overlay(&state, w, h);
    }
    let build_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(N);
    let mut image = vec![0u8; (w * h * 4) as usize];
    let t = now();
    for _ in 0..N {
        iron3d_abi::overlay::composite(&overlay, w, h, &mut image);
    }
    let composite_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(N);
    let mut ms = [0.0f64; 2];
    for (k, hud) in [false, true].into_iter().enumerate() {
        let opts = bench_options(
            dir.to_owned(),
            iron3d_demo::BATTLE.to_owned(),
            Renderer::Soft,
            Some(60),
            (640, 480),
            hud,
        );
        let o = run_offscreen(&opts, &mut Vec::new())?;
        ms[k] = 1e3 / o.fps.max(1e-9);
    }
    writeln!(
        out,
        "bench hud quads={} build_us={build_us:.1} composite_1280x720_us={composite_us:.1} soft_640x480_ms_per_frame_without={:.2} with={:.2} ratio={:.3}",
        overlay.quads.len(),
        ms[0],
        ms[1],
        ms[1] / ms[0].max(1e-9)
    )?;
    Ok(())
}
