//! Runs the checks of the `landmap` fuzz target over seed maps built in code and replays
//! every file of `fuzz/corpus/landmap/` (if present) so saved inputs stay regressions.

mod common;

use iron3d_landmap::fuzz_check;
use std::path::Path;

fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (w, h, c) in [(1, 1, 1), (2, 2, 2), (3, 2, 4)] {
        let map = common::squares(w, h, c);
        out.push(map.to_file_bytes(b"Land").expect("file"));
        let p = map.encode_payload().expect("payload");
        let mut bare = (map.areas.len() as u32).to_le_bytes().to_vec();
        bare.extend_from_slice(&p);
        out.push(bare);
        out.push(common::wrap(&p, 13, map.areas.len() as u32));
    }
    out
}

#[test]
fn seeds_pass_the_fuzz_checks() {
    let seeds = seeds();
    let accepted = seeds.iter().filter(|s| fuzz_check::check(s)).count();
    assert_eq!(accepted, 3);
    for s in &seeds {
        for cut in [0, 1, s.len() / 2, s.len().saturating_sub(1)] {
            fuzz_check::check(&s[..cut]);
        }
    }
}

#[test]
fn corpus_files_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/landmap");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries.flatten() {
        if let Ok(data) = std::fs::read(e.path()) {
            fuzz_check::check(&data);
        }
    }
}
