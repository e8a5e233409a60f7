//! `iron3d-bench` AI figures: the cost per tick of the real AI plugin (through the plugin
//! host) with 200 / 2,000 / 10,000 tanks of two hostile clans on the demo mission's
//! terrain — thinking, paths through the terrain service (cached per areal pair),
//! Wizard, combat and the economy clock — side by side with the same world whose AI slot
//! holds the null plugin, in one run. Two figures of the AI's cost per tick:
//!
//! * `ai_own_ms_per_tick`: the median time the AI slot itself spends per tick (the
//!   kernel's per-system busy time of `plugin:ai`: thinking, paths, Wizard, combat, the
//!   economy and every service call it makes, the provider's work included);
//! * `ai_ms_per_tick`: the difference of the two worlds' update-phase medians — the
//!   AI's own time plus what moving units cost the other systems (Control's contacts
//!   and the messages they send).
//!
//! Target: 2,000 active units under 2 ms per tick, by both figures. Also reported: plans
//! made per unit (the sum of the units' path revisions, `BehaviorPath`) over the
//! measured ticks.

use anyhow::Context;
use iron3d_gameplay::property::{BEHAVIOR_PATH, CLAN_ID, LIFE_STATE};
use iron3d_kernel::{ManualTimeSource, ObjectDesc, Phase, PropertyBag};
use iron3d_launcher::plugins;
use iron3d_registry::{Dialect, Registry};
use iron3d_session::{MissionSpec, Session};
use std::io::Write;

/// Unit counts measured.
pub const COUNTS: [u32; 3] = [200, 2_000, 10_000];
/// Ticks measured per count (after [`WARMUP`]).
pub const TICKS: u32 = 90;
/// Ticks run first (every unit's first thinking step is due within 256 ms).
pub const WARMUP: u32 = 10;
/// Grid spacing of the units.
pub const SPACING: f32 = 3.0;
/// The target: milliseconds of AI per tick with 2,000 units.
pub const TARGET_2K_MS: f64 = 2.0;

fn registry(ai: &str) -> String {
    format!(
        "terrain iron3d_terrain terrain\n{ai}\ncontrol iron3d_control control\n\
         effects iron3d_null null-effects\naudio iron3d_null null-audio\n\
         render iron3d_null null-render\nnet iron3d_null null-net\ninput iron3d_null null-input\n"
    )
}

/// What one world measured.
struct Measured {
    /// Median update-phase time per tick (ms).
    update_ms: f64,
    /// Median time of the AI slot per tick (ms).
    own_ms: f64,
    /// Plans made per unit.
    plans: f64,
}

/// The per-system name of the AI slot.
const AI_SYSTEM: &str = "plugin:ai";

/// The demo's BATTLE mission in `game`, strict, without parameters.
pub fn battle(game: &std::path::Path) -> MissionSpec {
    MissionSpec::Game {
        game_dir: game.to_path_buf(),
        mission: iron3d_demo::BATTLE.into(),
        mode: iron3d_vfs::ReadMode::Strict,
        relax_mesh_tag: false,
        parameters: Default::default(),
        overlays: Vec::new(),
    }
}

fn measure(game: &std::path::Path, units: u32, ai: &str) -> anyhow::Result<Measured> {
    let text = registry(ai);
    let reg = Registry::parse(text.as_bytes(), "bench-ai.ini", Dialect::PluginsIni)?;
    let spec = plugins::session_spec(&[], reg, 7, 30, false);
    let mut s = Session::open(&spec, battle(game), Box::new(ManualTimeSource::new()))
        .context("bench ai: session")?;
    // Two armies facing each other across the middle of the 256 × 256 map: clan 0 on
    // the west half, clan 1 on the east (owner 3.. ids, clear of the mission's).
    let per_side = units.div_ceil(2);
    let rows = (per_side as f32).sqrt().ceil() as u32;
    for i in 0..units {
        let clan = i % 2;
        let k = i / 2;
        let (col, row) = (k / rows, k % rows);
        let x = if clan == 0 {
            128.0 - 6.0 - col as f32 * SPACING
        } else {
            128.0 + 6.0 + col as f32 * SPACING
        };
        let y = 128.0 + (row as f32 - rows as f32 * 0.5) * SPACING;
        let id = crate::plugins::crowd_id(i)?;
        let mut props = PropertyBag::new();
        props.push(LIFE_STATE.name(), LIFE_STATE.raw(100));
        props.push(CLAN_ID.name(), CLAN_ID.raw(clan));
        let w = s.kernel.world_mut()?;
        let h = w.create(ObjectDesc {
            id: Some(id),
            transform: iron3d_kernel::Transform {
                position: glam::Vec3::new(x, y, 0.0),
                ..iron3d_kernel::Transform::default()
            },
            props,
            prototype: b"UNITS\\Tank.dat".to_vec(),
            ..ObjectDesc::default()
        })?;
        w.add_to_game(h)?;
    }
    for _ in 0..WARMUP {
        s.kernel.step(&[])?;
    }
    let plans = |s: &Session| -> u64 {
        s.kernel
            .world()
            .iter_registered()
            .filter_map(|(_, o)| o.props.first(BEHAVIOR_PATH.as_bytes()))
            .map(|p| u64::from(BEHAVIOR_PATH.value(p.raw_value)))
            .sum()
    };
    let plans_before = plans(&s);
    let update_ns = |s: &Session| s.kernel.stats().phases[Phase::UpdateSystems.index()].total_ns;
    let own_ns = |s: &Session| s.kernel.system_busy_ns(AI_SYSTEM).unwrap_or(0);
    let mut per_tick: Vec<u64> = Vec::with_capacity(TICKS as usize);
    let mut own: Vec<u64> = Vec::with_capacity(TICKS as usize);
    for _ in 0..TICKS {
        let (b, o) = (update_ns(&s), own_ns(&s));
        s.kernel.step(&[])?;
        per_tick.push(update_ns(&s) - b);
        own.push(own_ns(&s) - o);
    }
    let made = plans(&s).saturating_sub(plans_before);
    per_tick.sort_unstable();
    own.sort_unstable();
    let faults = s.kernel.stats().system_faults;
    anyhow::ensure!(faults == 0, "bench ai: {faults} system faults");
    s.shutdown();
    Ok(Measured {
        update_ms: per_tick[per_tick.len() / 2] as f64 / 1e6,
        own_ms: own[own.len() / 2] as f64 / 1e6,
        plans: made as f64 / f64::from(units),
    })
}

/// Prints one `bench ai` line per count and the verdict against the 2,000-unit target.
pub fn run(out: &mut dyn Write) -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    iron3d_demo::build(tmp.path(), 7, iron3d_demo::Profile::Demo)?;
    let mut at_2k = None;
    for units in COUNTS {
        let with = measure(tmp.path(), units, "ai iron3d_ai ai")?;
        let without = measure(tmp.path(), units, "ai iron3d_null null-ai")?;
        let ai_ms = (with.update_ms - without.update_ms).max(0.0);
        writeln!(
            out,
            "bench ai units={units} ticks={TICKS} update_median_ms_with_ai={:.2} update_median_ms_null_ai={:.2} ai_ms_per_tick={ai_ms:.2} ai_own_ms_per_tick={:.2} us_per_unit_tick={:.2} plans_per_unit={:.2} ratio_with_over_null={:.2}",
            with.update_ms,
            without.update_ms,
            with.own_ms,
            with.own_ms * 1e3 / f64::from(units),
            with.plans,
            with.update_ms / without.update_ms.max(1e-9)
        )?;
        if units == 2_000 {
            at_2k = Some((ai_ms, with.own_ms));
        }
    }
    if let Some((ms, own)) = at_2k {
        writeln!(
            out,
            "bench ai_target units=2000 target_ms={TARGET_2K_MS:.2} measured_ms={ms:.2} own_ms={own:.2} met={}",
            ms <= TARGET_2K_MS && own <= TARGET_2K_MS
        )?;
    }
    Ok(())
}
