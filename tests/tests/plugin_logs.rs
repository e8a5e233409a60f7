//! The log bridge: a `tracing` event emitted inside a dynamically loaded plugin reaches the
//! host's subscriber, tagged with the plugin's name. (Its own test binary: tracing's
//! callsite-interest cache is process-wide, and a scoped subscriber racing other test
//! threads would make the check flaky.)

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::plugins::{host, kernel};

const COUNTER: &str = "ai iron3d_test_counter counter\n";

#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn tracing_events_inside_a_loaded_plugin_reach_the_host_subscriber_with_its_name() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let dir = tempfile::tempdir().unwrap();
        let mut host = host(dir.path(), 1);
        let (mut k, _) = kernel(&mut host, COUNTER, 1, 1);
        k.step(&[]).unwrap();
    });
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("counter initialised"))
        .unwrap_or_else(|| panic!("no plugin event in:\n{text}"));
    assert!(line.contains("iron3d::plugin"), "host target: {line}");
    assert!(
        line.contains("plugin=\"test-counter\""),
        "tagged with the plugin name: {line}"
    );
    assert!(line.contains("step=1"), "fields survive the bridge: {line}");
}
