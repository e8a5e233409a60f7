//! A private X server for window tests (`Xvfb -displayfd`, killed on drop) and
//! `xdotool` on it, and the demo game directory they play, shared by the tests that drive the real `iron3d play` window with
//! synthetic input. Needs the Debian packages xvfb and xdotool (`tools/setup.sh`).

#![allow(dead_code, reason = "each test uses its part")]
#![allow(
    clippy::disallowed_methods,
    reason = "waits for a real-time window in wall-clock time; nothing here feeds a simulation"
)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One private X server at a time in a test process: two started together can end up
/// behind one socket (Xvfb here keeps no lock files, and a server takes over a display
/// socket it believes stale), and a window then opens on the wrong server or on none.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A private X server on a free display, killed on drop; the tests of one process that
/// use one run one after the other ([`ONE_AT_A_TIME`]).
pub struct Xvfb {
    child: Child,
    /// The display (`:N`).
    pub display: String,
    /// The server's standard output, kept open: a server writing to a closed pipe
    /// would die of SIGPIPE.
    _stdout: BufReader<std::process::ChildStdout>,
    /// Held until the server is gone (dropped after `child` is killed).
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Xvfb {
    /// Starts one (800 × 600, no TCP) once no other test of this process holds one;
    /// `None` when it cannot.
    pub fn start() -> Option<Self> {
        let turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "800x600x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take()?);
        stdout.read_line(&mut line).ok()?;
        let n: u32 = line.trim().parse().ok()?;
        let x = Self {
            child,
            display: format!(":{n}"),
            _stdout: stdout,
            _turn: turn,
        };
        // The server answers a client before a test relies on it.
        let answers = poll(10, || {
            Command::new("xdotool")
                .arg("getdisplaygeometry")
                .env("DISPLAY", &x.display)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|_| ())
        });
        answers.map(|()| x)
    }

    /// Runs `xdotool ARGS` on this display; panics when it fails.
    pub fn xdo(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("xdotool (Debian package xdotool, installed by tools/setup.sh)");
        assert!(
            out.status.success(),
            "xdotool {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Drags a box with the left button over most of window `w` (640 × 480): from
    /// (10, 40) past the middle to (630, 470) — what selects the player's vehicles in
    /// view.
    pub fn box_select(&self, w: &str) {
        self.xdo(&["mousemove", "--window", w, "10", "40"]);
        sleep(0.3);
        self.xdo(&["mousedown", "1"]);
        sleep(0.2);
        for (px, py) in [("200", "200"), ("420", "360"), ("630", "470")] {
            self.xdo(&["mousemove", "--window", w, px, py]);
            sleep(0.1);
        }
        self.xdo(&["mouseup", "1"]);
    }

    /// The first window named `Iron3D-rs`, once it is there (`None` after `seconds`);
    /// panics with the log when `play` exits first.
    pub fn iron3d_window(
        &self,
        play: &mut Child,
        log: &std::path::Path,
        seconds: u64,
    ) -> Option<String> {
        poll(seconds, || {
            if let Some(status) = play.try_wait().unwrap_or(None) {
                let mut out = String::new();
                if let Some(mut o) = play.stdout.take() {
                    let _ = std::io::Read::read_to_string(&mut o, &mut out);
                }
                panic!(
                    "iron3d exited early ({status}): stdout:\n{out}\nlog:\n{}",
                    std::fs::read_to_string(log).unwrap_or_default()
                );
            }
            let out = Command::new("xdotool")
                .args(["search", "--name", "Iron3D-rs"])
                .env("DISPLAY", &self.display)
                .output()
                .ok()?;
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(str::to_owned)
        })
    }
}

impl Drop for Xvfb {
    /// SIGTERM first, so the server removes its display socket and lock (a killed one
    /// leaves them for the next), SIGKILL after 5 s.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let gone = poll(5, || self.child.try_wait().ok().flatten().map(|_| ()));
        if gone.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Writes the demo game directory into `dir/game` with `iron3d demo build` and
/// returns it.
pub fn demo_game(dir: &std::path::Path) -> std::path::PathBuf {
    let game = dir.join("game");
    let built = Command::new(env!("CARGO_BIN_EXE_iron3d"))
        .args(["demo", "build", "--out"])
        .arg(&game)
        .output()
        .expect("iron3d runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    game
}

/// Whether `tool` is on the path.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Whether a window test can run: Xvfb and xdotool are there. Without them it says so
/// and the test passes, except in CI, which must have them.
pub fn can_run() -> bool {
    if have("Xvfb") && have("xdotool") {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have Xvfb and xdotool (tools/setup.sh installs them)"
    );
    eprintln!("skipped: Xvfb or xdotool missing (tools/setup.sh installs them)");
    false
}

/// Sleeps `seconds` of wall-clock time.
pub fn sleep(seconds: f32) {
    std::thread::sleep(Duration::from_secs_f32(seconds));
}

/// Asks `ready` every 0.2 s until it answers, for at most `seconds`.
pub fn poll<T>(seconds: u64, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(v) = ready() {
            return Some(v);
        }
        if started.elapsed() > Duration::from_secs(seconds) {
            return None;
        }
        sleep(0.2);
    }
}
