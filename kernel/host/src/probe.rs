//! The load probe: a library's header and self-description are first read in a child
//! process, so a library that crashes while being described (a `describe` that recurses
//! until the stack overflows, a truncated or corrupt image that faults in the dynamic
//! loader) is refused with a message naming the file instead of ending the engine.
//!
//! A stack overflow cannot be caught inside a Rust process — not on another thread, not
//! with a bigger stack: the runtime aborts the whole process. Only another process can
//! survive it, so the probe re-runs the engine's own executable with
//! [`PROBE_ENV`] naming the library; that process does nothing but load the library,
//! describe it, print one line and exit. The host then loads the library itself only
//! when the probe said it is well-formed (the probe's verdict is cached per file
//! contents, so a library is probed once per process).
//!
//! **PD-HOST-LOAD-PROBE** — probing is opt-in per process: an executable that calls
//! [`init`] first thing in `main` serves probe requests and has the host probe every
//! library it loads; a process that never called it (library users, test harnesses)
//! loads in-process as before. The `iron3d` launcher calls it. A probe gets
//! [`PROBE_TIMEOUT`] to answer; one that hangs is killed and the library refused.

use crate::error::HostError;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that turns an executable that called [`init`] into a probe
/// for the library file it names.
pub const PROBE_ENV: &str = "IRON3D_PLUGIN_PROBE";

/// How long a probe may take before it is killed and the library refused.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Exit status of a probe that described the library (its stdout: `ok <name>`).
const EXIT_OK: i32 = 0;
/// Exit status of a probe whose load was refused with an ordinary error (its stdout:
/// `refused <message>`); the host then loads in-process to get the same error typed.
const EXIT_REFUSED: i32 = 3;

/// The executable that serves probes for this process, when [`init`] was called.
static PROBER: OnceLock<PathBuf> = OnceLock::new();

/// Verdicts by file contents (BLAKE3), so each library is probed once per process.
static VERDICTS: Mutex<Vec<([u8; 32], Verdict)>> = Mutex::new(Vec::new());

#[derive(Clone, Debug)]
enum Verdict {
    /// The probe loaded and described it (or refused it with an ordinary error, which
    /// the in-process load reports typed).
    Loadable,
    /// The probe died or hung: the reason.
    Crashed(String),
}

/// Call first thing in `main`: when [`PROBE_ENV`] is set, this process is a probe — it
/// loads that library, describes it, prints one line and exits (never returns);
/// otherwise it records the running executable as this process's prober, so every
/// library the host loads from now on is probed first. Returns normally in that case.
pub fn init() {
    if let Some(target) = std::env::var_os(PROBE_ENV) {
        std::process::exit(serve(Path::new(&target)));
    }
    if let Ok(exe) = std::env::current_exe() {
        let _ = PROBER.set(exe);
    }
}

/// Whether this process probes libraries before loading them ([`init`] was called).
pub fn enabled() -> bool {
    PROBER.get().is_some()
}

/// The probe's own work: load `library` the way the host does and print the verdict.
fn serve(library: &Path) -> i32 {
    match crate::library::describe_in_process(library, library) {
        Ok((_, description)) => {
            println!("ok {}", description.name);
            EXIT_OK
        }
        Err(e) => {
            println!("refused {e}");
            EXIT_REFUSED
        }
    }
}

/// Probes `shadow` (the copy the host is about to map; `source` names it in errors)
/// when this process probes; `Ok` when it may be loaded in-process.
///
/// # Errors
/// [`HostError::ProbeCrashed`] when the probe process died, hung or could not be run.
pub fn check(source: &Path, shadow: &Path, content_hash: &[u8; 32]) -> Result<(), HostError> {
    let Some(exe) = PROBER.get() else {
        return Ok(());
    };
    let cached = VERDICTS.lock().ok().and_then(|v| {
        v.iter()
            .find(|(h, _)| h == content_hash)
            .map(|(_, v)| v.clone())
    });
    let verdict = match cached {
        Some(v) => v,
        None => {
            let v = run_probe(exe, shadow);
            if let Ok(mut all) = VERDICTS.lock() {
                all.push((*content_hash, v.clone()));
            }
            v
        }
    };
    match verdict {
        Verdict::Loadable => Ok(()),
        Verdict::Crashed(how) => Err(HostError::ProbeCrashed {
            path: source.to_owned(),
            how,
        }),
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "the probe's time-out is wall-clock; it never feeds the simulation"
)]
fn now() -> Instant {
    Instant::now()
}

/// Runs one probe process and reads its verdict.
fn run_probe(exe: &Path, library: &Path) -> Verdict {
    // The probe's stderr goes to a file beside the shadow copy (a pipe nobody reads
    // until the end could fill and stall a chatty library); its stdout is not needed:
    // the verdict is the exit status.
    let err_path = library.with_extension("probe-stderr");
    let err_file = match std::fs::File::create(&err_path) {
        Ok(f) => f,
        Err(e) => {
            return Verdict::Crashed(format!(
                "the load probe's log {} could not be created: {e}",
                err_path.display()
            ));
        }
    };
    let child = Command::new(exe)
        .env(PROBE_ENV, library)
        // The probe must not log into the player's terminal or write traces.
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err_file)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return Verdict::Crashed(format!(
                "the load probe ({}) could not be started: {e}",
                exe.display()
            ));
        }
    };
    let started = now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= PROBE_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = std::fs::remove_file(&err_path);
                return Verdict::Crashed(format!(
                    "describing it did not finish within {} s (killed)",
                    PROBE_TIMEOUT.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                let _ = std::fs::remove_file(&err_path);
                return Verdict::Crashed(format!("waiting for the load probe: {e}"));
            }
        }
    };
    let stderr = tail_of(&err_path);
    let _ = std::fs::remove_file(&err_path);
    match status.code() {
        Some(EXIT_OK) | Some(EXIT_REFUSED) => Verdict::Loadable,
        code => Verdict::Crashed(describe_death(code, signal_of(&status), &stderr)),
    }
}

/// The last 4 KiB of the probe's log (lossy UTF-8), empty when it cannot be read.
fn tail_of(path: &Path) -> String {
    use std::io::{Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(4096)));
    let mut bytes = Vec::new();
    let _ = f.take(4096).read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// A one-line account of how a probe died: the signal or exit code and the last line
/// of what it printed (Rust's "has overflowed its stack" line names the cause).
fn describe_death(code: Option<i32>, signal: Option<i32>, stderr: &str) -> String {
    let how = match (signal, code) {
        (Some(6), _) => "aborted (SIGABRT)".to_owned(),
        (Some(11), _) => "crashed (SIGSEGV)".to_owned(),
        (Some(7), _) => "crashed (SIGBUS)".to_owned(),
        (Some(4), _) => "crashed (SIGILL)".to_owned(),
        (Some(s), _) => format!("killed by signal {s}"),
        (None, Some(c)) => format!("exited with status {c}"),
        (None, None) => "ended without a status".to_owned(),
    };
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(|l| {
            let l: String = l.chars().take(200).collect();
            format!(": {l}")
        })
        .unwrap_or_default();
    let hint = if stderr.contains("overflowed its stack") {
        " — a describe function that calls itself? (`export_plugin!` must name the plugin's own describe and create functions)"
    } else {
        ""
    };
    format!("loading and describing it {how}{last}{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_overflow_is_named_with_the_hint() {
        let text = describe_death(
            None,
            Some(6),
            "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n",
        );
        assert!(text.contains("aborted (SIGABRT)"), "{text}");
        assert!(
            text.contains("fatal runtime error: stack overflow"),
            "{text}"
        );
        assert!(
            text.contains("describe function that calls itself"),
            "{text}"
        );
        let text = describe_death(Some(101), None, "");
        assert_eq!(text, "loading and describing it exited with status 101");
    }

    #[test]
    fn without_init_nothing_is_probed() {
        assert!(!enabled());
        let hash = [7u8; 32];
        assert!(check(Path::new("/x/lib.so"), Path::new("/nowhere"), &hash).is_ok());
    }
}
