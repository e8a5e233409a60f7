//! The invariants the `tma` fuzz target asserts, shared with the corpus-replay
//! tests: call [`check`] on any input; it panics on a violation (that is what the fuzzer
//! detects) and returns whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

fn tolerable(check: Check) -> bool {
    Quirk::ALL.iter().any(|q| q.tolerates().contains(&check))
}
/// Same checks as `fuzz/fuzz_targets/tma.rs`; returns whether the compatible reader accepted.
pub fn check(data: &[u8]) -> bool {
    let strict = Tma::parse_with(data, ReadOptions::strict());
    let compat = Tma::parse_with(data, ReadOptions::compatible());
    match (&strict, &compat) {
        (Ok(s), Ok(c)) => {
            assert!(s.diagnostics.is_empty() && c.diagnostics.is_empty());
            assert_eq!(s.tma, c.tma);
        }
        (Err(e), Ok(c)) => {
            let first = c.diagnostics.first().expect("compatible accepted silently");
            assert_eq!(
                &first.tolerated, e,
                "strict fails where the first quirk applied"
            );
            for d in &c.diagnostics {
                assert!(d.quirk.tolerates().contains(&d.tolerated.check()), "{d}");
            }
        }
        (Ok(_), Err(e)) => panic!("strict accepted what compatible refused: {e}"),
        (Err(s), Err(c)) => {
            assert!(
                s == c || (tolerable(s.check()) && s.offset() <= c.offset()),
                "{s} / {c}"
            );
            assert!(!tolerable(c.check()), "{c}");
        }
    }
    for result in [&strict, &compat] {
        match result {
            Ok(p) => {
                let out = p
                    .tma
                    .to_bytes()
                    .expect("a parsed mission fits its u32 fields");
                assert_eq!(out, data, "lossless");
                let summary = p.tma.summary();
                assert_eq!(summary.objects.len(), p.tma.objects.len());
                for o in &p.tma.objects {
                    let _ = o.placement_matrix();
                }
            }
            Err(e) => {
                assert!(Check::READ_CHECKS.contains(&e.check()), "{e}");
                assert!(e.offset() <= data.len() as u64, "{e}");
                assert!(
                    e.to_string().starts_with(&format!("[{}]", e.check())),
                    "{e}"
                );
            }
        }
    }
    compat.is_ok()
}
