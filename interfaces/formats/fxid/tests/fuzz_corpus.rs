//! Runs the checks of the `fxid` fuzz target over seeds built in code by the builder,
//! and replays every file of `fuzz/corpus/fxid/` (minimised crash reproducers, if any)
//! so each saved input stays a regression test.

use iron3d_fxid::fuzz_check;
use iron3d_fxid::{Command, Fxid, Name32, Opcode, ResourceRef};
use std::path::Path;

/// Seeds: empty effect, smoke, fire, lightning (sound + visual + light), every opcode
/// with data bits and disabled commands, and resource references with tails.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let smoke = Fxid::builder()
        .time_mode(1)
        .duration_seconds(4.0)
        .resource_command(Opcode::Op3, b"effects.lib", b"smoke")
        .expect("seed")
        .build();
    let fire = Fxid::builder()
        .time_mode(2)
        .duration_seconds(1.0)
        .resource_command(Opcode::Op7, b"effects.lib", b"fire")
        .expect("seed")
        .command(Command::new(Opcode::Op1))
        .build();
    let lightning = Fxid::builder()
        .duration_seconds(0.5)
        .resource_command(Opcode::Op2, b"sounds.lib", b"thunder.wav")
        .expect("seed")
        .resource_command(Opcode::Op3, b"effects.lib", b"bolt")
        .expect("seed")
        .command(Command::new(Opcode::Op1))
        .build();
    let mut all = Fxid::builder().flags(0x8000_0003).settings_id(9);
    for (i, op) in Opcode::ALL.into_iter().enumerate() {
        let mut c = Command::new(op);
        c.set_data_bits(i as u32 + 1);
        c.set_enabled(i % 2 == 0);
        all = all.command(c);
    }
    let mut tails = lightning.clone();
    let mut raw = [0xEEu8; 32];
    raw[..6].copy_from_slice(b"fx.lib");
    raw[6] = 0;
    let r = ResourceRef {
        archive: Name32::from_raw(raw),
        name: Name32::from_raw([b'Z'; 32]),
    };
    tails.commands[1]
        .set_resource(&r)
        .expect("opcode 3 has a ref");
    let b = |fx: &Fxid| fx.to_bytes().expect("seed bytes");
    vec![
        ("empty", b(&Fxid::builder().build())),
        ("smoke", b(&smoke)),
        ("fire", b(&fire)),
        ("lightning", b(&lightning)),
        ("every opcode", b(&all.build())),
        ("tails", b(&tails)),
    ]
}

/// Every prefix and a spread of single-byte corruptions of `data`.
fn mutate(data: &[u8]) {
    for len in 0..data.len() {
        fuzz_check::check(&data[..len]);
    }
    for pos in (0..data.len()).step_by(3) {
        let mut bad = data.to_vec();
        bad[pos] ^= 0x41;
        fuzz_check::check(&bad);
    }
    let mut longer = data.to_vec();
    longer.push(0);
    assert!(!fuzz_check::check(&longer), "a trailing byte is refused");
}

#[test]
fn built_seeds_pass_the_fuzz_checks() {
    for (name, data) in seeds() {
        assert!(fuzz_check::check(&data), "{name} is accepted");
        mutate(&data);
    }
}

#[test]
fn saved_fxid_corpus_replays_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../fuzz/corpus/fxid");
    let Ok(read) = std::fs::read_dir(&dir) else {
        eprintln!("no {} yet: nothing to replay", dir.display());
        return;
    };
    let mut files: Vec<_> = read.map(|e| e.expect("dir entry").path()).collect();
    files.sort();
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        fuzz_check::check(&data);
    }
}
