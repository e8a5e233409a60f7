//! The whole-engine benchmark driver behind `iron3d-bench` (and `iron3d bench`, which runs
//! it): one `bench name=value ...` line per figure. Release builds give the meaningful
//! figures (`cargo run --release -p iron3d-bench -- [options]`).

pub mod ai;
pub mod archives;
pub mod assets;
pub mod control;
pub mod demo;
pub mod effects;
pub mod input;
pub mod kernel;
pub mod mods;
pub mod net;
pub mod net_plugin;
pub mod plugins;
pub mod render;
pub mod saves;
pub mod terrain;

use iron3d_launcher::BenchArgs;
use std::io::Write;

/// Runs every figure group `args` does not skip, in the order `iron3d bench` always
/// printed them: kernel, plugins, archives, assets, terrain, render, control, AI,
/// effects, input, demo, mods, saves, net.
pub fn run(args: &BenchArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    kernel::run(
        kernel::BenchOptions {
            objects: args.objects,
            ticks: args.ticks,
        },
        out,
    )?;
    if !args.no_plugins {
        plugins::run(args.objects, out)?;
    }
    if !args.no_archives {
        archives::run(out)?;
    }
    if !args.no_assets {
        assets::run(out)?;
    }
    if !args.no_terrain {
        terrain::run(out)?;
    }
    if !args.no_render {
        render::run(out)?;
    }
    if !args.no_control {
        control::run(out)?;
    }
    if !args.no_ai {
        ai::run(out)?;
    }
    if !args.no_effects {
        effects::run(out)?;
    }
    if !args.no_input {
        input::run(out)?;
    }
    if !args.no_demo {
        demo::run(out)?;
    }
    if !args.no_mods {
        mods::run(out)?;
    }
    if !args.no_saves {
        saves::run(out)?;
    }
    if !args.no_net {
        net::run(out)?;
    }
    Ok(())
}
