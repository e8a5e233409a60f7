//! Fuzz target: the strict MSH reader returns `Ok` or a located error for any bytes and
//! never panics; whatever it accepts re-serialises byte-identically, rebuilds through
//! the builder into a valid model, and samples every node at a few times (both blends,
//! both frame rules, world matrices) without panicking.
#![no_main]

use iron3d_msh::{
    Blend, FrameRule, Msh, MshBuilder, NodeLayout, SampleOptions, sample_all, sample_node,
    world_matrices,
};
use libfuzzer_sys::fuzz_target;

const TIMES: [f32; 7] = [-1.0, 0.0, 0.5, 1.0, 2.999_999_8, 1.0e6, f32::NAN];

fuzz_target!(|data: &[u8]| {
    let Ok(msh) = Msh::parse(data) else {
        return;
    };
    assert_eq!(msh.to_bytes(), data, "unedited model is lossless");
    if msh.node_layout() == NodeLayout::Opaque24 {
        return;
    }
    let rebuilt = MshBuilder::from_msh(&msh)
        .expect("typed model")
        .build()
        .expect("a parsed model rebuilds into a valid one");
    assert!(Msh::parse(&rebuilt).is_ok());
    for blend in [Blend::Nlerp, Blend::Slerp] {
        for frame_rule in [FrameRule::Floor, FrameRule::RoundHalfEven] {
            let opts = SampleOptions { blend, frame_rule };
            for t in TIMES {
                for n in 0..msh.node_count() {
                    sample_node(&msh, n, t, opts).expect("node in range");
                }
                let poses = sample_all(&msh, t, opts).expect("typed nodes");
                world_matrices(&msh, &poses).expect("validated hierarchy");
            }
        }
    }
});
