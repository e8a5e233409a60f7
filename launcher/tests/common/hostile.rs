//! The harness of the hostile-input tests (issue 35): runs this build's `iron3d` as a
//! child process the way an outside probe does, and checks the process-level promises —
//! no signal, every command back within [`LIMIT`], peak memory under [`MEMORY_LIMIT`],
//! nothing left in the temp folder the child was given.
//!
//! Each [`Probe`] owns a fresh folder used as the child's `TMPDIR` (and `HOME`), so what
//! the child leaves in its temp folder is visible and nothing of the machine is touched.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test harness; not every test file uses every helper"
)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest any one command may take before it counts as a hang.
pub const LIMIT: Duration = Duration::from_secs(15);
/// Highest peak resident memory accepted for one command (bytes).
pub const MEMORY_LIMIT: u64 = 512 << 20;

/// How one child process ended.
#[derive(Debug)]
pub struct Ended {
    /// Exit status when it exited.
    pub code: Option<i32>,
    /// Standard output, lossy UTF-8.
    pub stdout: String,
    /// Standard error, lossy UTF-8.
    pub stderr: String,
    /// Peak resident memory in bytes (`ru_maxrss` of this child).
    pub peak_bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

impl Ended {
    /// Standard output and error together, for assertion messages and searches.
    pub fn text(&self) -> String {
        format!(
            "exit {:?}, {} ms, peak {} MiB\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.elapsed.as_millis(),
            self.peak_bytes >> 20,
            self.stdout,
            self.stderr
        )
    }

    /// Asserts a clean refusal: a non-zero exit (not a signal), and `needle` in the output.
    pub fn refused_with(&self, needle: &str) {
        assert!(
            self.code.is_some_and(|c| c != 0),
            "expected a refusal:\n{}",
            self.text()
        );
        assert!(
            self.stdout.contains(needle) || self.stderr.contains(needle),
            "expected {needle:?} in the output:\n{}",
            self.text()
        );
    }

    /// Asserts exit 0.
    pub fn ok(&self) {
        assert_eq!(self.code, Some(0), "expected success:\n{}", self.text());
    }
}

/// One probe: a private temp folder and the `iron3d` binary of this build.
pub struct Probe {
    dir: tempfile::TempDir,
}

impl Default for Probe {
    fn default() -> Self {
        Self::new()
    }
}

impl Probe {
    /// A probe with a fresh private temp folder.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        std::fs::create_dir(dir.path().join("home")).unwrap();
        Probe { dir }
    }

    /// The child's `TMPDIR`.
    pub fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    /// A scratch folder for the test's own files (not the child's temp folder).
    pub fn scratch(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// The `iron3d` command in `cwd` with this probe's environment.
    pub fn command<I, S>(&self, cwd: &Path, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut c = Command::new(env!("CARGO_BIN_EXE_iron3d"));
        c.current_dir(cwd)
            .args(args)
            .env("TMPDIR", self.tmp())
            .env("HOME", self.dir.path().join("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null());
        c
    }

    /// Runs `iron3d ARGS` in `cwd`; fails the test on a signal, a hang (killed after
    /// [`LIMIT`]) or a peak memory over [`MEMORY_LIMIT`].
    pub fn run<I, S>(&self, cwd: &Path, args: I) -> Ended
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let cmd = self.command(cwd, args);
        run_bounded(cmd)
    }

    /// Entries left in the child's temp folder.
    pub fn temp_leftovers(&self) -> Vec<String> {
        entries(&self.tmp())
    }

    /// Asserts the child's temp folder is empty.
    pub fn assert_no_temp_leftovers(&self) {
        let left = self.temp_leftovers();
        assert!(left.is_empty(), "left in the temp folder: {left:?}");
    }
}

/// The names in `dir`, sorted (empty when it does not exist).
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The wall clock (a test's own timing, never simulation).
#[allow(
    clippy::disallowed_methods,
    reason = "measures the child process from outside"
)]
pub fn now() -> Instant {
    Instant::now()
}

/// Runs `cmd` with piped output, polling `wait4` so that the child's own peak memory and
/// exit signal are known; kills it after [`LIMIT`].
pub fn run_bounded(mut cmd: Command) -> Ended {
    let started = now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn iron3d");
    let pid = child.id() as libc::pid_t;
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut v);
        v
    });
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut hung = false;
    loop {
        // SAFETY: `pid` is our own child, not yet reaped; the out-pointers are valid.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if started.elapsed() > LIMIT {
            hung = true;
            // SAFETY: signalling our own unreaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            // SAFETY: as above, blocking this time.
            unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The child is reaped by hand; std must not wait for it again.
    std::mem::forget(child);
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap()).into_owned();
    let ended = Ended {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout,
        stderr,
        peak_bytes: (usage.ru_maxrss.max(0) as u64) * 1024,
        elapsed: started.elapsed(),
    };
    assert!(!hung, "hang: killed after {LIMIT:?}\n{}", ended.text());
    assert!(
        !libc::WIFSIGNALED(status),
        "ended by signal {}\n{}",
        libc::WTERMSIG(status),
        ended.text()
    );
    assert!(
        ended.peak_bytes < MEMORY_LIMIT,
        "peak memory {} MiB over {} MiB\n{}",
        ended.peak_bytes >> 20,
        MEMORY_LIMIT >> 20,
        ended.text()
    );
    ended
}
