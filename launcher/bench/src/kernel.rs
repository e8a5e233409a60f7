//! `iron3d-bench`: kernel throughput numbers (ticks/s with trivial behaviour, bus messages/s,
//! state-hash cost). Release builds give the meaningful figures.

use iron3d_kernel::{
    Bus, CalcSlot, Envelope, GameMessage, Kernel, KernelConfig, ManualTimeSource, ObjectHandle,
    OriginalObjectId, Phase, SenderId, System, SystemCtx, SystemResult, Target,
};
use iron3d_launcher::scenario::{self, ScenarioParams, Serials};
use std::io::Write;
use std::time::{Duration, Instant};

/// Options of `iron3d-bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    /// Objects in the world.
    pub objects: u32,
    /// Measured ticks.
    pub ticks: u32,
}

/// Trivial behaviour: integrate position by velocity.
pub(crate) struct Integrate;

impl System for Integrate {
    fn name(&self) -> &str {
        "integrate"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let dt = ctx.time().step_seconds();
        let o = ctx.object_mut(h)?;
        o.transform.position += o.velocity * dt;
        Ok(())
    }
}

/// Sends one message to every object per tick and counts deliveries.
struct Chatter {
    received: u64,
}

impl System for Chatter {
    fn name(&self) -> &str {
        "chatter"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Ai)
    }
    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        let targets: Vec<(ObjectHandle, OriginalObjectId)> = ctx
            .world()
            .iter_registered()
            .map(|(h, o)| (h, o.id))
            .collect();
        for (h, id) in targets {
            ctx.send(
                Target::Object(h),
                GameMessage::TakeObject {
                    object: id,
                    player: 0,
                },
            )?;
        }
        Ok(())
    }
    fn on_message(
        &mut self,
        _ctx: &mut SystemCtx<'_>,
        _o: Option<ObjectHandle>,
        _e: &Envelope,
    ) -> SystemResult {
        self.received += 1;
        Ok(())
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "benchmarks measure wall-clock time"
)]
fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let r = f();
    (r, start.elapsed())
}

/// A kernel with the built-in scenario's `objects`.
pub(crate) fn world(objects: u32, config: KernelConfig) -> anyhow::Result<Kernel> {
    let mut k = Kernel::new(config, Box::new(ManualTimeSource::new()))?;
    let serials = Serials::default();
    scenario::populate(
        &mut k,
        ScenarioParams {
            objects,
            collisions: false,
        },
        &serials,
    )?;
    Ok(k)
}

/// Runs the benchmarks and prints one `bench name=value ...` line per figure.
pub fn run(opts: BenchOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let config = KernelConfig {
        publish_snapshots: false,
        ..KernelConfig::default()
    };
    let ticks = opts.ticks.max(1);

    // 1. Ticks per second, trivial behaviour.
    let mut k = world(opts.objects, config)?;
    k.add_system(Box::new(Integrate))?;
    for _ in 0..10 {
        k.step(&[])?;
    }
    let (r, d) = timed(|| (0..ticks).try_for_each(|_| k.step(&[])));
    r?;
    let tps = f64::from(ticks) / d.as_secs_f64();
    writeln!(
        out,
        "bench kernel_ticks objects={} ticks={ticks} ticks_per_second={tps:.1} us_per_tick={:.1} ns_per_object_tick={:.1}",
        opts.objects,
        d.as_secs_f64() * 1e6 / f64::from(ticks),
        d.as_secs_f64() * 1e9 / (f64::from(ticks) * f64::from(opts.objects))
    )?;

    // 2. State hash cost on the same world.
    let reps = 50u32;
    let (_, d) = timed(|| {
        for _ in 0..reps {
            std::hint::black_box(k.state_hash());
        }
    });
    writeln!(
        out,
        "bench state_hash objects={} us_per_hash={:.1}",
        opts.objects,
        d.as_secs_f64() * 1e6 / f64::from(reps)
    )?;
    drop(k);

    // 3. Bus through the kernel: send, sort and dispatch one message per object per tick.
    let mut k = world(opts.objects, config)?;
    k.add_system(Box::new(Chatter { received: 0 }))?;
    let bus_ticks = (ticks / 4).max(1);
    let (r, d) = timed(|| (0..bus_ticks).try_for_each(|_| k.step(&[])));
    r?;
    let delivered = k.stats().messages_delivered;
    writeln!(
        out,
        "bench bus_dispatch messages={delivered} messages_per_second={:.0}",
        delivered as f64 / d.as_secs_f64()
    )?;
    drop(k);

    // 4. Raw bus: send + drain + sort, no dispatch.
    let mut bus = Bus::new();
    let n = 1_000_000u32;
    let (count, d) = timed(|| {
        for i in 0..n {
            bus.send(
                Phase::CalculateWorld,
                SenderId::Object(OriginalObjectId(i % 997)),
                Target::Systems,
                GameMessage::KillPlayer { player: i },
            );
        }
        bus.drain_sorted().len()
    });
    writeln!(
        out,
        "bench bus_raw messages={count} messages_per_second={:.0}",
        count as f64 / d.as_secs_f64()
    )?;
    Ok(())
}
