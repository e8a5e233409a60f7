//! Runs the checks of the `msh` fuzz target over seed models built in code by the
//! builder (and byte-level mutations of them), and replays every file of
//! `fuzz/corpus/msh/` (minimised crash reproducers, if any) so each saved input stays a
//! regression test. No binary seeds are committed.

use iron3d_msh::fuzz_check;
use iron3d_msh::{
    AnimKey24, Batch20, EXTENDED_ORDER, FrameMap, Msh, MshBuilder, Node38, RawStream, Slot68,
};
use iron3d_nres::NresDocument;
use std::path::Path;

fn key(time: f32, x: f32, qz: i16) -> AnimKey24 {
    AnimKey24 {
        position: [x, 0.0, 0.0],
        time,
        rotation: [0, 0, qz, 32767],
    }
}

fn slot(batch_count: u16) -> Slot68 {
    Slot68 {
        tri_start: 0,
        tri_count: 0,
        batch_start: 0,
        batch_count,
        aabb_min: [-1.0; 3],
        aabb_max: [1.0; 3],
        sphere_center: [0.0; 3],
        sphere_radius: 2.0,
        opaque: [0; 5],
    }
}

/// Animated two-node model with LODs, names and opaque streams.
fn animated() -> MshBuilder {
    let mut b = MshBuilder::new();
    let mut root = Node38::new(2);
    root.anim_map_start = 0;
    root.slot_index[0] = 0;
    root.slot_index[5] = 1;
    let mut child = Node38::new(3);
    child.parent = 0;
    child.slot_index[1] = 1;
    b.nodes = vec![root, child];
    b.names = Some(vec![Some(b"body".to_vec()), None]);
    b.slots = vec![slot(1), slot(0)];
    b.positions = vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    b.indices = vec![0, 1, 2];
    b.batches = vec![Batch20 {
        batch_flags: 0,
        material_index: 0,
        opaque4: 0,
        opaque6: 0,
        index_count: 3,
        index_start: 0,
        opaque14: 0,
        base_vertex: 0,
    }];
    b.keys = Some(vec![
        key(0.0, 0.0, 0),
        key(2.0, 2.0, 23170),
        key(0.0, 5.0, 0),
        key(0.0, 1.0, -100),
    ]);
    b.frame_map = Some(FrameMap {
        frame_count: 3,
        words: vec![0, 0, 2],
    });
    b.raw = vec![
        RawStream::new(9, vec![1, 2, 3]),
        RawStream::new(15, vec![0; 16]),
        RawStream::new(17, vec![]),
    ];
    b
}

fn seeds() -> Vec<Vec<u8>> {
    let mut minimal = MshBuilder::new();
    minimal.nodes.push(Node38::new(0));
    let mut extended = animated();
    extended.order = EXTENDED_ORDER.to_vec();
    extended.raw.push(RawStream::new(18, vec![7; 4]));
    extended.raw.push(RawStream::new(20, vec![1; 3]));
    let base = animated().build().expect("seed");
    let mtcheck = {
        let msh = Msh::parse(&base).expect("seed");
        let mut doc = NresDocument::from_bytes(&base).expect("seed");
        let i = msh.stream(1).expect("seed").index;
        doc.replace_payload(i, &[0; 48]).expect("seed");
        doc.set_attrs(i, 2, 0, 24).expect("seed");
        doc.remove_entry(msh.stream(10).expect("seed").index)
            .expect("seed");
        doc.to_bytes()
    };
    vec![
        minimal.build().expect("seed"),
        base,
        extended.build().expect("seed"),
        mtcheck,
    ]
}

/// With `IRON3D_MSH_SEED_DIR` set, also writes the seeds there (a scratch corpus for
/// `cargo fuzz run msh <dir>`; never committed).
#[test]
fn seeds_pass_the_fuzz_checks() {
    let out = std::env::var_os("IRON3D_MSH_SEED_DIR");
    for (i, seed) in seeds().into_iter().enumerate() {
        assert!(fuzz_check::check(&seed), "every seed is a valid model");
        if let Some(dir) = &out {
            std::fs::write(Path::new(dir).join(format!("seed{i}.msh")), &seed).expect("seed");
        }
    }
}

#[test]
fn mutated_seeds_never_panic() {
    let mut accepted = 0;
    for seed in seeds() {
        for cut in (0..seed.len()).step_by(7) {
            fuzz_check::check(&seed[..cut]);
        }
        for i in 16..seed.len() {
            for flip in [0x01u8, 0x80, 0xFF] {
                let mut m = seed.clone();
                m[i] ^= flip;
                accepted += usize::from(fuzz_check::check(&m));
            }
        }
    }
    assert!(accepted > 0, "some mutations (opaque bytes) stay valid");
}

#[test]
fn replay_saved_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/msh");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no {} (nothing to replay)", dir.display());
        return;
    };
    for e in entries.flatten() {
        if let Ok(bytes) = std::fs::read(e.path()) {
            fuzz_check::check(&bytes);
        }
    }
}
