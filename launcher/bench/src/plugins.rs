//! `iron3d-bench` plugin figures: a tick of N objects through a plugin (interface 2: one
//! `calculate_object` call per object, each reading the clock and writing the behaviour
//! state through the host context) next to the same work as an in-process Rust system,
//! hot-swap latency (file event → new instance active) and resident-memory growth over
//! 100 swaps.

use iron3d_abi::SlotKind;
use iron3d_kernel::{
    CalcSlot, Kernel, KernelConfig, ManualTimeSource, ObjectDesc, ObjectHandle, OriginalObjectId,
    System, SystemCtx, SystemResult,
};
use iron3d_launcher::plugins;
use iron3d_plugin_host::{HostEvent, MissionSetup, PluginHost};
use iron3d_registry::{Dialect, Registry};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn now() -> Instant {
    Instant::now()
}

/// Resident set size of this process in bytes (Linux `/proc/self/statm`), if readable.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The same work as the test counter's `calculate_object`, as an in-process system.
struct DirectCounter {
    count: u64,
    last_tick: u64,
}

impl System for DirectCounter {
    fn name(&self) -> &str {
        "direct-counter"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Ai)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, object: ObjectHandle) -> SystemResult {
        let tick = ctx.time().tick;
        if tick != self.last_tick {
            self.last_tick = tick;
            self.count += 1;
        }
        ctx.object_mut(object)?.behaviour_state = self.count as u32;
        Ok(())
    }
}

fn mission() -> MissionSetup {
    MissionSetup {
        name: "bench".into(),
        seed: 1,
        tick_hz: 30,
        files: None,
        parameters: Default::default(),
    }
}

fn resolve(name: &str) -> anyhow::Result<PathBuf> {
    Ok(plugins::search_paths(&[]).resolve(name)?)
}

/// Runs the plugin benchmarks and prints `bench plugin_…` lines.
pub fn run(objects: u32, out: &mut dyn Write) -> anyhow::Result<()> {
    let counter_a = resolve("iron3d_test_counter")?;
    let counter_b = resolve("iron3d_test_counter_v2")?;
    let scratch = std::env::temp_dir().join(format!("iron3d-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let result = run_in(objects, &counter_a, &counter_b, &scratch, out);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn run_in(
    objects: u32,
    counter_a: &Path,
    counter_b: &Path,
    scratch: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // 1. A tick of `objects` objects through the plugin and the host context, next to the
    //    same work as an in-process system.
    let mut host = plugins_host(scratch.join("shadow-kernel"), Duration::from_millis(20));
    let mut kernel = kernel_with(
        &mut host,
        &format!("ai {} counter\n", counter_a.display()),
        objects,
    )?;
    let ticks = 100u32;
    let start = now();
    for _ in 0..ticks {
        kernel.step(&[])?;
    }
    let plugin = start.elapsed();
    drop(kernel);
    let mut direct = Kernel::new(
        KernelConfig {
            publish_snapshots: false,
            ..KernelConfig::default()
        },
        Box::new(ManualTimeSource::new()),
    )?;
    direct.add_system(Box::new(DirectCounter {
        count: 0,
        last_tick: 0,
    }))?;
    populate(&mut direct, objects)?;
    let start = now();
    for _ in 0..ticks {
        direct.step(&[])?;
    }
    let rust = start.elapsed();
    let per = |d: Duration| d.as_nanos() as f64 / (f64::from(ticks) * f64::from(objects.max(1)));
    writeln!(
        out,
        "bench plugin_tick objects={objects} ticks={ticks} plugin_ns_per_object={:.1} direct_ns_per_object={:.1} ratio={:.2} plugin_ticks_per_second={:.1}",
        per(plugin),
        per(rust),
        per(plugin) / per(rust).max(0.001),
        f64::from(ticks) / plugin.as_secs_f64()
    )?;

    // 1b. Host-context object access: a plugin reading every object once per tick
    //     (`object_at` + `object`), next to the kernel tick without it and the direct
    //     Rust read of the same fields.
    let tick_with = |registry: String| -> anyhow::Result<Duration> {
        let mut host = plugins_host(scratch.join("shadow-access"), Duration::from_millis(20));
        let mut kernel = kernel_with(&mut host, &registry, objects)?;
        kernel.step(&[])?;
        let start = now();
        for _ in 0..ticks {
            kernel.step(&[])?;
        }
        Ok(start.elapsed())
    };
    let with_access = tick_with(format!("ai {} counter-access\n", counter_a.display()))?;
    let baseline = tick_with("ai iron3d_null null-ai\n".to_owned())?;
    let access_ns = with_access.saturating_sub(baseline).as_nanos() as f64
        / (f64::from(ticks) * f64::from(objects.max(1)));
    let mut direct_kernel = Kernel::new(
        KernelConfig {
            publish_snapshots: false,
            ..KernelConfig::default()
        },
        Box::new(ManualTimeSource::new()),
    )?;
    populate(&mut direct_kernel, objects)?;
    let world = direct_kernel.world();
    let start = now();
    let mut active = 0u64;
    for _ in 0..ticks {
        let handles: Vec<_> = world.iter_registered().map(|(h, _)| h).collect();
        for h in handles {
            active += u64::from(world.get(h).map(|o| o.active).unwrap_or(false));
        }
    }
    std::hint::black_box(active);
    let direct_access_ns =
        start.elapsed().as_nanos() as f64 / (f64::from(ticks) * f64::from(objects.max(1)));
    writeln!(
        out,
        "bench plugin_host_access objects={objects} ticks={ticks} host_object_read_ns={access_ns:.1} direct_rust_ns={direct_access_ns:.1} ratio={:.1}",
        access_ns / direct_access_ns.max(0.001)
    )?;

    // 2. Service calls: the same tick with every object also asking the terrain plugin
    //    for the height under it (AI slot → host → terrain slot), next to the direct Rust
    //    call of the terrain core.
    let game = scratch.join("demo");
    let manifest = iron3d_demo::build(&game, 7, iron3d_demo::Profile::Demo)?;
    let name = manifest
        .missions
        .first()
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("demo has no mission"))?;
    let setup = plugins::mission_setup(&name, 1, 30, Some(&game))?;
    let mut per_object = Vec::new();
    for factory in ["counter", "counter-terrain"] {
        let mut host = PluginHost::new(iron3d_plugin_host::HostConfig {
            search_paths: plugins::search_paths(&[]),
            shadow_dir: scratch.join(format!("shadow-{factory}")),
            mission: setup.clone(),
            debounce: Duration::from_millis(20),
        });
        let mut kernel = kernel_with(
            &mut host,
            &format!(
                "terrain iron3d_terrain terrain\nai {} {factory}\n",
                counter_a.display()
            ),
            0,
        )?;
        spread(&mut kernel, objects)?;
        let start = now();
        for _ in 0..ticks {
            kernel.step(&[])?;
        }
        per_object.push(per(start.elapsed()));
    }
    let dir = game.join("MISSIONS").join(&name);
    let world = iron3d_terrain::World::load(&dir.display().to_string())
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| anyhow::anyhow!("demo mission has no terrain"))?;
    let calls = u64::from(ticks) * u64::from(objects.max(1));
    let start = now();
    let mut sink = 0.0f32;
    for i in 0..calls {
        let (x, y) = spread_point(i % u64::from(objects.max(1)));
        sink += world.surface.height_at(x, y).unwrap_or(-1.0);
    }
    std::hint::black_box(sink);
    let direct_ns = start.elapsed().as_nanos() as f64 / calls as f64;
    let service_ns = per_object[1] - per_object[0];
    writeln!(
        out,
        "bench plugin_service objects={objects} ticks={ticks} terrain_height_via_host_ns={service_ns:.1} direct_rust_ns={direct_ns:.1} ratio={:.1} tick_ns_per_object_without={:.1} with={:.1}",
        service_ns / direct_ns.max(0.001),
        per_object[0],
        per_object[1]
    )?;

    // 3. Swap latency: replace a watched library file, poll, activate at the next boundary.
    let watched = scratch.join("libbench_counter.so");
    std::fs::copy(counter_a, &watched)?;
    let debounce = Duration::from_millis(20);
    let mut host = plugins_host(scratch.join("shadow-watch"), debounce);
    let mut kernel = kernel_with(
        &mut host,
        &format!("ai {} counter\n", watched.display()),
        100,
    )?;
    host.watch()?;
    let events = host.events();
    let mut latencies = Vec::new();
    for i in 0..10 {
        let next = if i % 2 == 0 { counter_b } else { counter_a };
        let tmp = scratch.join("incoming.tmp");
        std::fs::copy(next, &tmp)?;
        std::fs::rename(&tmp, &watched)?;
        let deadline = now() + Duration::from_secs(10);
        loop {
            let requested = host.poll_watcher();
            if !requested.is_empty() {
                break;
            }
            anyhow::ensure!(now() < deadline, "no file event within 10 s");
            std::thread::sleep(Duration::from_millis(1));
        }
        kernel.step(&[])?;
        for e in events.try_iter() {
            if let HostEvent::Swapped { latency, .. } = e {
                latencies.push(latency);
            }
        }
    }
    anyhow::ensure!(
        latencies.len() == 10,
        "expected 10 swaps, saw {}",
        latencies.len()
    );
    let mean = latencies.iter().sum::<Duration>() / latencies.len() as u32;
    let min = latencies.iter().min().copied().unwrap_or_default();
    let max = latencies.iter().max().copied().unwrap_or_default();
    writeln!(
        out,
        "bench plugin_swap_latency swaps=10 debounce_ms={} mean_ms={:.2} min_ms={:.2} max_ms={:.2} mean_minus_debounce_ms={:.2}",
        debounce.as_millis(),
        mean.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        mean.saturating_sub(debounce).as_secs_f64() * 1e3
    )?;
    drop(kernel);

    // 4. Memory over 100 swaps: alternating two known builds (images are reused), then 100
    //    distinct builds (every swap maps a new image; abi_stable never unloads).
    let mut host = plugins_host(scratch.join("shadow-rss"), debounce);
    let mut kernel = kernel_with(
        &mut host,
        &format!("ai {} counter\n", counter_a.display()),
        100,
    )?;
    let before = rss_bytes().unwrap_or(0);
    for i in 0..100 {
        let next = if i % 2 == 0 { counter_b } else { counter_a };
        host.request_swap(SlotKind::Ai, &next.display().to_string(), None)?;
        kernel.step(&[])?;
    }
    let after_alternating = rss_bytes().unwrap_or(0);
    let images_alternating = host.loaded_images();
    let base = std::fs::read(counter_a)?;
    for i in 0..100u32 {
        // Trailing bytes change the file's hash but not its code: a "new build" each time.
        let mut bytes = base.clone();
        bytes.extend_from_slice(&i.to_le_bytes());
        let p = scratch.join(format!("libdistinct_{i}.so"));
        std::fs::write(&p, bytes)?;
        host.request_swap(SlotKind::Ai, &p.display().to_string(), None)?;
        kernel.step(&[])?;
    }
    let after_distinct = rss_bytes().unwrap_or(0);
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    writeln!(
        out,
        "bench plugin_rss alternating_swaps=100 images={images_alternating} rss_growth_mb={:.2} distinct_swaps=100 images={} rss_growth_mb={:.2} per_new_image_mb={:.3}",
        mb(after_alternating.saturating_sub(before)),
        host.loaded_images(),
        mb(after_distinct.saturating_sub(after_alternating)),
        mb(after_distinct.saturating_sub(after_alternating)) / 100.0
    )?;
    Ok(())
}

fn plugins_host(shadow: PathBuf, debounce: Duration) -> PluginHost {
    PluginHost::new(iron3d_plugin_host::HostConfig {
        search_paths: plugins::search_paths(&[]),
        shadow_dir: shadow,
        mission: mission(),
        debounce,
    })
}

fn kernel_with(host: &mut PluginHost, registry: &str, objects: u32) -> anyhow::Result<Kernel> {
    let reg = Registry::parse(registry.as_bytes(), "bench.ini", Dialect::PluginsIni)?;
    let mut k = Kernel::new(
        KernelConfig {
            publish_snapshots: false,
            ..KernelConfig::default()
        },
        Box::new(ManualTimeSource::new()),
    )?;
    for s in host.systems_from_registry(&reg) {
        k.add_system(s)?;
    }
    populate(&mut k, objects)?;
    Ok(k)
}

/// The `i`-th point of a grid over the demo map (object positions of the service bench).
fn spread_point(i: u64) -> (f32, f32) {
    (
        (i % 100) as f32 * 4.0 + 2.0,
        ((i / 100) % 100) as f32 * 4.0 + 2.0,
    )
}

/// `objects` objects at [`spread_point`] positions.
fn spread(k: &mut Kernel, objects: u32) -> anyhow::Result<()> {
    for i in 0..objects {
        let (x, y) = spread_point(u64::from(i));
        place(k, OriginalObjectId(i), x, y)?;
    }
    Ok(())
}

/// The id of the `i`-th object of a benchmark crowd: owners 3.. (clear of a mission's
/// owner-0 ids), 15 classes of `2^index_bits` ids per owner (class 0 unused).
pub(crate) fn crowd_id(i: u32) -> anyhow::Result<OriginalObjectId> {
    let layout = iron3d_kernel::IdLayout::PROJECT_DEFAULT;
    let span = 1u32 << layout.index_bits;
    let per_owner = 15 * span;
    OriginalObjectId::compose(
        layout,
        3 + i / per_owner,
        1 + (i % per_owner) / span,
        i % span,
    )
    .ok_or_else(|| anyhow::anyhow!("benchmark crowd: no id for object {i}"))
}

/// Creates object `id` at `(x, y, 0)` with default properties and adds it to the game
/// (the benchmarks' way to fill a world).
pub(crate) fn place(k: &mut Kernel, id: OriginalObjectId, x: f32, y: f32) -> anyhow::Result<()> {
    let w = k.world_mut()?;
    let h = w.create(ObjectDesc {
        id: Some(id),
        transform: iron3d_kernel::Transform {
            position: glam::Vec3::new(x, y, 0.0),
            ..iron3d_kernel::Transform::default()
        },
        ..ObjectDesc::default()
    })?;
    w.add_to_game(h)?;
    Ok(())
}

fn populate(k: &mut Kernel, objects: u32) -> anyhow::Result<()> {
    for i in 0..objects {
        let w = k.world_mut()?;
        let h = w.create(ObjectDesc {
            id: Some(OriginalObjectId(i)),
            ..ObjectDesc::default()
        })?;
        w.add_to_game(h)?;
    }
    Ok(())
}
