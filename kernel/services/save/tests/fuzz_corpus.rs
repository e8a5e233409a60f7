//! Runs the checks of the `save_file` fuzz target over seed saves built in code by the
//! writer (empty, several sections, unknown tags and header fields), their prefixes and
//! single-byte corruptions, and replays every file of `fuzz/corpus/save_file/`
//! (minimised crash reproducers, if any) so each saved input stays a regression test.

use iron3d_save::{PluginRecord, SaveFile, SaveHeader, Section, TAG_PLUGIN, TAG_WORLD, fuzz_check};
use std::path::Path;

fn seeds() -> Vec<Vec<u8>> {
    let mut header = SaveHeader {
        engine: "iron3d".into(),
        mission: "DEMO1".into(),
        time_scale: 1.0,
        ..SaveHeader::default()
    };
    let empty = SaveFile::new(header.clone());
    header.plugins.push(PluginRecord {
        slot: "control".into(),
        library: "iron3d_control".into(),
        factory: "control".into(),
        version: "0.1.0".into(),
        blob_format: 2,
    });
    header
        .extra
        .insert("later".into(), serde_json::json!([1, "two", null]));
    let mut full = SaveFile::new(header);
    full.sections
        .push(Section::new(TAG_WORLD, "", (0..=255).collect()));
    full.sections
        .push(Section::new(TAG_PLUGIN, "control", b"blob".to_vec()));
    full.sections.push(Section::new(*b"ZZZZ", "", vec![]));
    [empty, full]
        .iter()
        .map(|s| s.to_bytes().expect("seed"))
        .collect()
}

#[test]
fn seeds_their_prefixes_and_corruptions_parse_or_fail_cleanly() {
    for seed in seeds() {
        assert!(fuzz_check::save_file(&seed), "a seed parses");
        for len in 0..seed.len() {
            assert!(!fuzz_check::save_file(&seed[..len]), "prefix {len}");
        }
        for i in 0..seed.len() {
            for bit in [0x01, 0x80] {
                let mut b = seed.clone();
                b[i] ^= bit;
                assert!(!fuzz_check::save_file(&b), "byte {i} bit {bit:#x}");
            }
        }
    }
}

#[test]
fn the_corpus_replays() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/save_file");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return; // no reproducers saved yet
    };
    let mut files: Vec<_> = entries.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for f in files {
        fuzz_check::save_file(&std::fs::read(&f).expect("corpus file"));
    }
}

/// `campaign_file`: the demo's campaign, progress with unknown sections, the original's
/// bare `[COMPLETE]`, their prefixes and single-byte corruptions read or fail cleanly,
/// and the saved reproducers of `fuzz/corpus/campaign_file/` replay.
#[test]
fn campaign_seeds_their_prefixes_and_corruptions_read_or_fail_cleanly() {
    let seeds: [&[u8]; 3] = [
        b"[CAMPAIGN]\r\nMISSION1=DEMO1\r\nMISSION2=DEMO2\r\nMISSION3=BATTLE\r\n[COMPLETE]\r\n",
        b"// mine\n[campaign]\nMission1 = \"A\"\n[COMPLETE]\nA=1\nB=0\n[X]\ny=z\n",
        b"[COMPLETE]\n",
    ];
    let mut read = 0;
    for seed in seeds {
        assert!(fuzz_check::campaign_file(seed), "a seed reads");
        for len in 0..seed.len() {
            read += usize::from(fuzz_check::campaign_file(&seed[..len]));
        }
        for i in 0..seed.len() {
            for bit in [0x01, 0x20, 0x80] {
                let mut b = seed.to_vec();
                b[i] ^= bit;
                read += usize::from(fuzz_check::campaign_file(&b));
            }
        }
    }
    assert!(read > 50, "many variants still read ({read})");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/campaign_file");
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut files: Vec<_> = entries.map(|e| e.expect("dir entry").path()).collect();
        files.sort();
        for f in files {
            fuzz_check::campaign_file(&std::fs::read(&f).expect("corpus file"));
        }
    }
}
