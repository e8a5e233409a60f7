//! The invariants the `msh` fuzz target asserts, shared with the corpus-replay
//! tests: call [`check`] on any input; it panics on a violation (that is what the fuzzer
//! detects) and returns whether the input was accepted.

#![allow(
    clippy::missing_panics_doc,
    reason = "panicking on a broken invariant is the purpose"
)]

use crate::*;

const TIMES: [f32; 7] = [-1.0, 0.0, 0.5, 1.0, 2.999_999_8, 1.0e6, f32::NAN];
/// Same checks as `fuzz/fuzz_targets/msh.rs`; returns whether the reader accepted.
pub fn check(data: &[u8]) -> bool {
    let Ok(msh) = Msh::parse(data) else {
        return false;
    };
    assert_eq!(msh.to_bytes(), data, "unedited model is lossless");
    if msh.node_layout() == NodeLayout::Opaque24 {
        return true;
    }
    let rebuilt = MshBuilder::from_msh(&msh)
        .expect("seed")
        .build()
        .expect("seed");
    assert!(Msh::parse(&rebuilt).is_ok());
    for blend in [Blend::Nlerp, Blend::Slerp] {
        for frame_rule in [FrameRule::Floor, FrameRule::RoundHalfEven] {
            let opts = SampleOptions { blend, frame_rule };
            for t in TIMES {
                for n in 0..msh.node_count() {
                    sample_node(&msh, n, t, opts).expect("seed");
                }
                let poses = sample_all(&msh, t, opts).expect("seed");
                world_matrices(&msh, &poses).expect("seed");
            }
        }
    }
    true
}
