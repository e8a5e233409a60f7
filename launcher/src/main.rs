//! The `iron3d` binary: parses the command line and hands over to the launcher library.

use std::process::ExitCode;

fn main() -> ExitCode {
    // First: with IRON3D_PLUGIN_PROBE set this process only probes one plugin library
    // and exits; otherwise every library the host loads is probed in a child process
    // first, so a library that crashes while it is described cannot end the engine.
    iron3d_plugin_host::probe::init();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    iron3d_launcher::main_with_args(std::env::args_os(), &mut out)
}
