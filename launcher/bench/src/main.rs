//! The `iron3d-bench` binary: parses the benchmark options (the same as `iron3d bench`'s)
//! and prints one `bench name=value ...` line per figure on standard output.

use clap::Parser;
use std::process::ExitCode;

/// Measure the engine: kernel, plugins, archives, assets, terrain, demo, render, control, AI, input, mods.
#[derive(Debug, Parser)]
#[command(name = "iron3d-bench", version)]
struct Cli {
    /// Log filter for messages on standard error (e.g. warn, info, debug, iron3d_kernel=trace).
    #[arg(long, default_value = "warn")]
    log_level: String,
    /// The figures to measure.
    #[command(flatten)]
    bench: iron3d_launcher::BenchArgs,
}

fn main() -> ExitCode {
    // First, as in `iron3d`: with IRON3D_PLUGIN_PROBE set this process only probes one
    // plugin library and exits; otherwise the host probes every library it loads in a
    // child process (this executable) first.
    iron3d_plugin_host::probe::init();
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_new(&cli.log_level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
    let stdout = std::io::stdout();
    match iron3d_bench::run(&cli.bench, &mut stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iron3d-bench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
