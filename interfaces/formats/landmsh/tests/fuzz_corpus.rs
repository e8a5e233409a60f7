//! Runs the checks of the `landmsh` fuzz target over seed files built in code with the
//! builder, and replays every file of `fuzz/corpus/landmsh/` if present.

use iron3d_landmsh::{LandMsh, from_grid, fuzz_check};
use std::path::Path;

fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let build = |w, h, f: fn(f32, f32) -> f32| {
        let s = from_grid(w, h, 8.0, f).expect("grid");
        LandMsh::from_streams(s)
            .expect("build")
            .to_bytes()
            .expect("bytes")
    };
    let flat = build(1, 1, |_, _| 0.0);
    let hills = build(6, 5, |x, y| (x * 0.1).sin() * 20.0 + (y * 0.07).cos() * 9.0);
    let mut self_neighbour = flat.clone();
    // Face 0's neighbour[0] (+0x0E) in the type-21 payload → 0 (itself).
    let m = LandMsh::parse(&flat).expect("flat");
    let off = m.document().record(8).expect("faces").data_offset() as usize + 0x0E;
    self_neighbour[off..off + 2].copy_from_slice(&0u16.to_le_bytes());
    vec![
        ("flat", flat.clone()),
        ("hills", hills.clone()),
        ("self neighbour", self_neighbour),
        ("truncated", hills[..hills.len() - 1].to_vec()),
        ("empty", Vec::new()),
    ]
}

#[test]
fn seeds_pass_the_fuzz_checks() {
    let accepted: Vec<bool> = seeds().iter().map(|(_, d)| fuzz_check::check(d)).collect();
    assert_eq!(accepted, [true, true, true, false, false]);
}

#[test]
fn replay_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/landmsh");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries.flatten() {
        if let Ok(data) = std::fs::read(e.path()) {
            fuzz_check::check(&data);
        }
    }
}
