//! The `iron3d` binary: parses the command line and hands over to the launcher library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    iron3d_launcher::main_with_args(std::env::args_os(), &mut out)
}
