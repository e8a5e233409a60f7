//! Fuzz seeds built in code with the writers, run through the fuzz targets' checks;
//! also replays any files in `fuzz/corpus/ctld/` and `fuzz/corpus/swav/`.

use iron3d_aux::*;
use std::path::Path;

fn ctld_seeds() -> Vec<Vec<u8>> {
    let rows = vec![
        ControlRow::new(1, 0.0, 5.0, 0.5, 1),
        ControlRow::new(2, -1.0, -1.0, 0.0, 4),
    ];
    let rec = TypedRecord {
        fixed: [0; 0xB0],
        values: vec![7, 9],
        text: b"fx".to_vec(),
    }
    .to_bytes();
    let len = ctld::sections_len(2, 1).unwrap_or(0) as usize;
    vec![
        Ctld::new(vec![], 1, 0, vec![0; 264])
            .map(|c| c.to_bytes())
            .unwrap_or_default(),
        Ctld::new(rows.clone(), 1, 0, rec)
            .map(|c| c.to_bytes())
            .unwrap_or_default(),
        Ctld::with_sections(2, 1, [1; 108], vec![2; len], rows, 0, 0, vec![])
            .map(|c| c.to_bytes())
            .unwrap_or_default(),
    ]
}

fn swav_seeds() -> Vec<Vec<u8>> {
    let s: Vec<i16> = (0..200)
        .map(|i| ((i * 377) % 20000 - 10000) as i16)
        .collect();
    let mut v = vec![Vec::new()];
    v.extend(Wave::pcm16(&s, 1, 22050).ok().map(|w| w.to_bytes()));
    v.extend(
        Wave::pcm8(&[0, 128, 255], 1, 22050)
            .ok()
            .map(|w| w.to_bytes()),
    );
    v.extend(encode_ms_adpcm(&s, 1, 22050, 64).ok().map(|w| w.to_bytes()));
    v.extend(encode_ms_adpcm(&s, 2, 22050, 64).ok().map(|w| w.to_bytes()));
    v
}

fn replay(dir: &str, check: fn(&[u8]) -> check::CheckResult) -> usize {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(dir);
    let Ok(entries) = std::fs::read_dir(&path) else {
        eprintln!("no corpus at {}: replay skipped", path.display());
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        if let Ok(bytes) = std::fs::read(e.path()) {
            check(&bytes).unwrap_or_else(|m| panic!("{}: {m}", e.path().display()));
            n += 1;
        }
    }
    n
}

#[test]
fn ctld_seeds_pass_target_checks() {
    let seeds = ctld_seeds();
    for s in &seeds {
        assert_eq!(check::ctld(s), Ok(true));
        for cut in 0..s.len() {
            check::ctld(&s[..cut]).unwrap();
        }
    }
    eprintln!(
        "ctld corpus files replayed: {}",
        replay("ctld", check::ctld)
    );
}

#[test]
fn swav_seeds_pass_target_checks() {
    let seeds = swav_seeds();
    assert_eq!(seeds.len(), 5);
    for s in &seeds {
        assert_eq!(check::swav(s), Ok(!s.is_empty()));
        for cut in 0..s.len() {
            check::swav(&s[..cut]).unwrap();
        }
        let mut flipped = s.clone();
        for i in 0..flipped.len() {
            flipped[i] ^= 0xFF;
            check::swav(&flipped).unwrap();
            flipped[i] ^= 0xFF;
        }
    }
    eprintln!(
        "swav corpus files replayed: {}",
        replay("swav", check::swav)
    );
}
