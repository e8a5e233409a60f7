//! Replays the fuzz corpus of the replay log parser (fuzz/corpus/replay_log/) through the
//! same checks as the fuzz targets, so every saved input stays a regression test.

use iron3d_replay::ReplayLog;
use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("corpus file"),
            )
        })
        .collect()
}

#[test]
fn replay_log_corpus_parses_or_fails_cleanly_and_roundtrips() {
    let files = corpus("replay_log");
    assert!(!files.is_empty(), "the replay_log corpus has seeds");
    let mut accepted = 0;
    for (name, data) in files {
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        if let Ok(log) = ReplayLog::parse(text, &name) {
            let again = ReplayLog::parse(&log.to_text(), &name).expect("re-serialised log parses");
            assert_eq!(again, log, "{name}");
            accepted += 1;
        }
    }
    assert!(accepted >= 1, "at least the recorded seed is accepted");
}
