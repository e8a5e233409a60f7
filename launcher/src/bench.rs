//! `iron3d bench`: runs the benchmark driver `iron3d-bench` (the `launcher/bench` crate)
//! found beside this executable with the same options, so no benchmark code ships in the
//! `iron3d` binary.

use crate::BenchArgs;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

/// The driver's file name (`iron3d-bench`, plus `.exe` on Windows).
fn driver_name() -> String {
    format!("iron3d-bench{}", std::env::consts::EXE_SUFFIX)
}

/// Where the driver should be: beside the running executable.
fn driver_path() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("iron3d bench: this executable's path")?;
    let dir = exe
        .parent()
        .context("iron3d bench: this executable has no directory")?;
    Ok(dir.join(driver_name()))
}

/// The driver's command line for `args` and the log filter `log_level`.
fn driver_args(args: &BenchArgs, log_level: &str) -> Vec<String> {
    // Every field by name: a new option fails to compile here until it is forwarded.
    let BenchArgs {
        objects,
        ticks,
        no_plugins,
        no_archives,
        no_assets,
        no_terrain,
        no_demo,
        no_render,
        no_control,
        no_ai,
        no_effects,
        no_input,
        no_mods,
        no_saves,
        no_net,
    } = *args;
    let mut v = vec![
        format!("--log-level={log_level}"),
        format!("--objects={objects}"),
        format!("--ticks={ticks}"),
    ];
    for (skip, flag) in [
        (no_plugins, "--no-plugins"),
        (no_archives, "--no-archives"),
        (no_assets, "--no-assets"),
        (no_terrain, "--no-terrain"),
        (no_demo, "--no-demo"),
        (no_render, "--no-render"),
        (no_control, "--no-control"),
        (no_ai, "--no-ai"),
        (no_effects, "--no-effects"),
        (no_input, "--no-input"),
        (no_mods, "--no-mods"),
        (no_saves, "--no-saves"),
        (no_net, "--no-net"),
    ] {
        if skip {
            v.push(flag.to_owned());
        }
    }
    v
}

/// Runs `iron3d-bench` with `args`, copies its standard output to `out` (its standard
/// error is this process's) and returns its exit code (1 when it ended without one).
/// Without the driver beside this executable: an error saying how to build or run it.
pub fn run(args: &BenchArgs, log_level: &str, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let driver = driver_path()?;
    anyhow::ensure!(
        driver.is_file(),
        "the benchmark driver {} is not beside this executable ({} is missing); build it with \
         `cargo build --release -p iron3d-bench` (into the same target directory as iron3d), \
         or run it directly: `cargo run --release -p iron3d-bench -- [options]`",
        driver_name(),
        driver.display()
    );
    let mut child = Command::new(&driver)
        .args(driver_args(args, log_level))
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("iron3d bench: starting {}", driver.display()))?;
    if let Some(mut stdout) = child.stdout.take() {
        std::io::copy(&mut stdout, out).context("iron3d bench: copying the figures")?;
    }
    let status = child
        .wait()
        .context("iron3d bench: waiting for the driver")?;
    Ok(ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(1),
    ))
}
