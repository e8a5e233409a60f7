//! Per-phase timings and kernel counters (observational only; never part of the state hash).

use crate::phase::Phase;
use std::fmt::Write as _;

/// Accumulated timing of one phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTiming {
    /// Times the phase ran.
    pub calls: u64,
    /// Total wall time in nanoseconds.
    pub total_ns: u64,
    /// Longest single run in nanoseconds.
    pub max_ns: u64,
}

/// Counters and timings of a kernel run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Timing per phase, indexed by [`Phase::index`].
    pub phases: [PhaseTiming; Phase::ALL.len()],
    /// Presented frames.
    pub frames: u64,
    /// Simulation ticks.
    pub ticks: u64,
    /// Frames whose excess game time was dropped by the catch-up bound.
    pub dropped_frames: u64,
    /// Messages delivered by the bus.
    pub messages_delivered: u64,
    /// Object-targeted messages whose target no longer existed.
    pub messages_undeliverable: u64,
    /// Deferred deletions applied.
    pub deferred_deletes: u64,
    /// Deferred registrations applied.
    pub deferred_registrations: u64,
    /// Errors returned by systems.
    pub system_faults: u64,
    /// Maintenance passes run.
    pub maintenance_runs: u64,
}

/// Measures one phase run with the wall clock (statistics only).
pub(crate) struct PhaseTimer {
    start: std::time::Instant,
}

impl PhaseTimer {
    #[allow(
        clippy::disallowed_methods,
        reason = "phase timing is observational and never feeds the simulation"
    )]
    pub(crate) fn start() -> Self {
        Self {
            start: std::time::Instant::now(),
        }
    }

    pub(crate) fn stop(self, stats: &mut KernelStats, phase: Phase) {
        let ns = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let t = &mut stats.phases[phase.index()];
        t.calls += 1;
        t.total_ns = t.total_ns.saturating_add(ns);
        t.max_ns = t.max_ns.max(ns);
    }
}

/// Measures one system call with the wall clock (statistics only).
pub(crate) struct SystemTimer {
    start: std::time::Instant,
}

impl SystemTimer {
    #[allow(
        clippy::disallowed_methods,
        reason = "system timing is observational and never feeds the simulation"
    )]
    pub(crate) fn start() -> Self {
        Self {
            start: std::time::Instant::now(),
        }
    }

    pub(crate) fn elapsed_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

impl KernelStats {
    /// A fixed-width table: one row per phase (calls, total ms, mean µs, max µs), then the counters.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<40} {:>10} {:>12} {:>10} {:>10}",
            "phase", "calls", "total_ms", "mean_us", "max_us"
        );
        for p in Phase::ALL {
            let t = self.phases[p.index()];
            let mean = if t.calls == 0 {
                0.0
            } else {
                t.total_ns as f64 / t.calls as f64 / 1e3
            };
            let _ = writeln!(
                s,
                "{:<40} {:>10} {:>12.3} {:>10.2} {:>10.2}",
                p.name(),
                t.calls,
                t.total_ns as f64 / 1e6,
                mean,
                t.max_ns as f64 / 1e3
            );
        }
        let _ = writeln!(
            s,
            "frames={} ticks={} dropped_frames={} messages={} undeliverable={} deferred_deletes={} deferred_registrations={} system_faults={} maintenance_runs={}",
            self.frames,
            self.ticks,
            self.dropped_frames,
            self.messages_delivered,
            self.messages_undeliverable,
            self.deferred_deletes,
            self.deferred_registrations,
            self.system_faults,
            self.maintenance_runs
        );
        s
    }
}
