//! Replays the registry fuzz corpus (fuzz/corpus/registry/) through the same checks as the
//! fuzz target, so every saved input stays a regression test.

use iron3d_registry::{Dialect, Registry};
use std::path::Path;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
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
fn registry_corpus_parses_or_fails_cleanly_and_roundtrips() {
    let files = corpus("registry");
    assert!(!files.is_empty(), "the registry corpus has seeds");
    let (mut accepted, mut rejected) = (0, 0);
    for (name, data) in files {
        for dialect in [Dialect::PluginsIni, Dialect::CompIni] {
            match Registry::parse(&data, &name, dialect) {
                Ok(reg) => {
                    assert_eq!(reg.to_bytes(), data, "{name} ({dialect:?})");
                    let again = Registry::parse(&reg.to_bytes(), &name, dialect)
                        .expect("re-serialised registry parses");
                    assert_eq!(again, reg, "{name} ({dialect:?})");
                    accepted += 1;
                }
                Err(e) => {
                    assert_eq!(e.origin(), name);
                    assert!(e.line() >= 1 && e.column() >= 1, "{e}");
                    rejected += 1;
                }
            }
        }
    }
    assert!(
        accepted >= 1,
        "at least the original Comp.ini seed is accepted"
    );
    assert!(rejected >= 1, "the broken seeds are rejected");
}
