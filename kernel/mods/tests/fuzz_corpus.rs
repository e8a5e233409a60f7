//! Replays the `mod_manifest` fuzz corpus (fuzz/corpus/mod_manifest/) through the same
//! checks as the fuzz target, so every saved input stays a regression test.

use iron3d_mods::{Manifest, ModList};
use std::path::Path;

#[test]
fn mod_manifest_corpus_parses_or_fails_located() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/mod_manifest");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the mod_manifest corpus has seeds");
    let (mut manifests, mut lists) = (0, 0);
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        match Manifest::parse(text, &path) {
            Ok(_) => manifests += 1,
            Err(e) => {
                let (file, line, column) = e.location().expect("located error");
                assert_eq!(file, path);
                assert!(line >= 1 && column >= 1, "{e}");
            }
        }
        match ModList::parse(text, &path) {
            Ok(list) => {
                let again = ModList::parse(&list.to_toml(), &path).expect("written list parses");
                assert_eq!(again, list);
                lists += 1;
            }
            Err(e) => {
                let (_, line, column) = e.location().expect("located error");
                assert!(line >= 1 && column >= 1, "{e}");
            }
        }
    }
    assert!(manifests >= 2, "the valid manifest seeds are accepted");
    assert!(lists >= 1, "the mod list seed is accepted");
}
