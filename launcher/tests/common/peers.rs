//! What the tests of matches between real `iron3d` processes share: a peer's standard
//! output line by line, waiting for a line, and the `match over` line's fields.

#![allow(dead_code, reason = "each test uses its part")]
#![allow(
    clippy::disallowed_methods,
    reason = "deadlines on child processes, not simulation time"
)]

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A whole match must end well within this.
pub const LIMIT: Duration = Duration::from_secs(300);

/// A peer's standard output, line by line, as it comes.
pub fn lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().expect("the peer's stdout is piped");
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Reads `rx` into `seen` until a line contains `what`, and answers it (panics past
/// [`LIMIT`]).
pub fn wait_for(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, what: &str) -> String {
    let began = Instant::now();
    while began.elapsed() < LIMIT {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            seen.push(line.clone());
            if line.contains(what) {
                return line;
            }
        }
    }
    panic!("no line with {what:?}: {seen:#?}");
}

/// The `LABEL: match over tick=T state_hash=H desync=D` line's `(T, H, D)`.
pub fn match_over(out: &[String]) -> (u64, String, String) {
    let line = out
        .iter()
        .find(|l| l.contains(": match over "))
        .unwrap_or_else(|| panic!("no end line: {out:#?}"));
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .unwrap_or_else(|| panic!("no {k} in {line}"))
            .to_owned()
    };
    (
        field("tick=").parse().expect("a tick number"),
        field("state_hash="),
        field("desync="),
    )
}
