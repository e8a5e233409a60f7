//! The invariants the `wear` and `mat0` fuzz targets assert, shared with the corpus-replay
//! tests: they panic on a violation (that is what the fuzzer detects).

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

fn pairs(rows: &[WearRow]) -> Vec<(&[u8], &[u8])> {
    rows.iter().map(|r| (r.legacy_id(), r.name())).collect()
}

/// Same checks as `fuzz/fuzz_targets/wear.rs`; returns whether the reader accepted.
/// The `wear` target's invariants; returns whether the input was accepted.
pub fn wear(data: &[u8]) -> bool {
    match Wear::parse(data) {
        Ok(w) => {
            assert_eq!(w.to_bytes(), data, "lossless");
            assert!(!w.materials().is_empty());
            let specs: Vec<RowSpec<'_>> = w
                .materials()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let lms: Vec<RowSpec<'_>> = w
                .lightmaps()
                .iter()
                .map(|r| RowSpec::new(r.legacy_id(), r.name()))
                .collect();
            let authored = Wear::author(&specs, w.has_lightmap_block().then_some(&lms[..]))
                .expect("parsed rows are authorable");
            let back = Wear::parse(&authored.to_bytes()).expect("canonical table parses");
            assert_eq!(pairs(back.materials()), pairs(w.materials()));
            assert_eq!(pairs(back.lightmaps()), pairs(w.lightmaps()));
            assert_eq!(back.has_lightmap_block(), w.has_lightmap_block());
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("WEAR "), "{e}");
            false
        }
    }
}

/// Same checks as `fuzz/fuzz_targets/mat0.rs`; returns whether the reader accepted.
/// The `mat0` target's invariants (first byte = version); returns whether the payload was accepted.
pub fn mat0(data: &[u8]) -> bool {
    let Some((&v, payload)) = data.split_first() else {
        return false;
    };
    let version = u32::from(v % 8);
    match Mat0::parse(payload, version) {
        Ok(m) => {
            assert_eq!(
                m.to_bytes(version).expect("own version"),
                payload,
                "lossless"
            );
            let up = m.to_bytes(6).expect("upgrade never drops a field");
            let back = Mat0::parse(&up, 6).expect("upgraded payload parses");
            assert_eq!(
                (back.metadata(), back.phases(), back.blocks()),
                (m.metadata(), m.phases(), m.blocks())
            );
            for block in 0..m.blocks().len() {
                for time_ms in [0, 1, 999, 65_535, u64::MAX] {
                    let clock = MaterialClock {
                        time_ms,
                        random_offset_ms: time_ms.rotate_left(7),
                    };
                    if let Ok(s) = select_phase(&m, block, clock, &ModeMapping::PROJECT_DEFAULT) {
                        let n = m.phases().len();
                        assert!(usize::from(s.phase_a) < n && usize::from(s.phase_b) < n);
                        assert!(s.span_ms == 0 || s.elapsed_ms < s.span_ms);
                        assert!((0.0..1.0).contains(&s.t()));
                    }
                }
            }
            true
        }
        Err(e) => {
            assert!(e.to_string().starts_with("MAT0 +0x"), "{e}");
            false
        }
    }
}
