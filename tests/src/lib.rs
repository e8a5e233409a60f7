//! Helpers for the end-to-end tests: run the launcher in-process and read its output.

use std::process::ExitCode;

/// Runs `iron3d` with `args` in-process; returns the exit code and standard output.
pub fn iron3d(args: &[&str]) -> (ExitCode, String) {
    let mut out = Vec::new();
    let argv = std::iter::once("iron3d").chain(args.iter().copied());
    let code = iron3d_launcher::main_with_args(argv, &mut out);
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// The hex digits of the mandatory last line `state_hash=<64 hex>`; panics when it is missing.
pub fn last_state_hash(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap_or_default();
    let hex = last
        .strip_prefix("state_hash=")
        .unwrap_or_else(|| panic!("last line is not state_hash=: {last:?}"));
    assert_eq!(hex.len(), 64, "{last}");
    assert!(
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{last}"
    );
    hex.to_owned()
}
