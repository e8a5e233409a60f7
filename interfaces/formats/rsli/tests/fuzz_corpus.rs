//! Seeds for the RsLi fuzz targets, generated in code with the writer and encoders and
//! run through the targets' own checks (`iron3d_rsli::check`); also replays every file in
//! `fuzz/corpus/<target>/` when that folder exists. Set `RSLI_FUZZ_SEED_DIR=<dir>` to
//! also write the seeds to `<dir>/<target>/` for a local `cargo fuzz run <target> <dir>/<target>`.

use iron3d_rsli::table::{EntryRecord, encode_table};
use iron3d_rsli::{EntrySpec, Method, Rsli, RsliBuilder, check, codec};
use std::path::Path;

type Check = fn(&[u8]) -> Result<(), String>;

const TARGETS: [(&str, Check); 4] = [
    ("rsli", check::archive),
    ("rsli_lzss", check::lzss),
    ("rsli_lzhuf", check::lzhuf),
    ("rsli_deflate", check::deflate),
];

fn payloads() -> Vec<Vec<u8>> {
    vec![
        Vec::new(),
        b"x".to_vec(),
        b"    leading spaces reference the initial ring fill".to_vec(),
        b"abcabcabcabcabcabcabcabcabcabc".repeat(20),
        (0..=255u8).collect(),
        (0..5000u32).map(|i| (i * 31 % 251) as u8).collect(),
    ]
}

/// Re-encodes the table of a built archive after `f` edits its records.
fn patch(bytes: &[u8], f: impl FnOnce(&mut Vec<EntryRecord>)) -> Vec<u8> {
    let a = Rsli::parse(bytes).expect("seed archive parses");
    let mut records: Vec<EntryRecord> = a.entries().iter().map(|e| *e.record()).collect();
    f(&mut records);
    let mut out = bytes.to_vec();
    let table = encode_table(&records, a.header().table_key());
    out[32..32 + table.len()].copy_from_slice(&table);
    out
}

fn archive_seeds() -> Vec<Vec<u8>> {
    let mut seeds = vec![RsliBuilder::new().build().expect("empty archive")];
    for m in Method::ALL {
        for (presorted, overlay) in [(true, None), (false, None), (true, Some(8))] {
            let mut b = RsliBuilder::new();
            b.presorted(presorted).overlay(overlay).seed(0x1234);
            for (i, p) in payloads().into_iter().take(4).enumerate() {
                b.push(EntrySpec {
                    service: [i as u8; 4],
                    ..EntrySpec::new(format!("ENTRY{i}.DAT"), m, p)
                });
            }
            seeds.push(b.build().expect("seed builds"));
        }
    }
    let mut b = RsliBuilder::new();
    for (i, m) in Method::ALL.into_iter().enumerate() {
        b.add(format!("MIXED_{i}.BIN"), m, payloads()[i % 6].clone());
    }
    b.add("TWELVE.BYTES", Method::Raw, b"no NUL in the name".to_vec());
    seeds.push(b.build().expect("mixed builds"));
    // The sprites.lib quirk shape: the last Deflate entry ends one byte past EOF.
    let mut b = RsliBuilder::new();
    b.add("INTERF7.TEX", Method::Deflate, payloads()[3].clone());
    b.add("INTERF8.TEX", Method::Deflate, payloads()[5].clone());
    let built = b.build().expect("quirk seed builds");
    seeds.push(patch(&built, |r| {
        let e = r[1];
        r[1] = EntryRecord::from_fields(
            *e.name_field(),
            e.service(),
            e.flags(),
            e.sort_field(),
            e.unpacked_size(),
            e.data_offset_raw(),
            e.packed_size() + 1,
        );
    }));
    seeds
}

fn codec_seeds(encode: &dyn Fn(&[u8]) -> Vec<u8>) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for p in payloads() {
        let packed = encode(&p);
        if let Ok(size) = u16::try_from(p.len()) {
            let mut s = vec![0u8];
            s.extend_from_slice(&size.to_le_bytes());
            s.extend_from_slice(&packed);
            seeds.push(s);
        }
        let mut s = vec![1u8];
        s.extend_from_slice(&(p.len() as u32).to_le_bytes());
        s.extend_from_slice(&packed);
        seeds.push(s);
    }
    seeds
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "rsli" => archive_seeds(),
        "rsli_lzss" => codec_seeds(&codec::lzss::encode),
        "rsli_lzhuf" => codec_seeds(&codec::lzhuf::encode),
        "rsli_deflate" => codec_seeds(&|d| codec::deflate::encode(d).expect("deflate encodes")),
        other => panic!("unknown target {other}"),
    }
}

fn corpus_files(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(target);
    let Ok(read) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read(&p).expect("corpus file reads"),
            )
        })
        .collect()
}

#[test]
fn generated_seeds_pass_every_target_check_and_archives_are_accepted() {
    for (target, check) in TARGETS {
        let seeds = seeds(target);
        assert!(!seeds.is_empty());
        for (i, s) in seeds.iter().enumerate() {
            assert_eq!(check(s), Ok(()), "{target} seed {i}");
        }
        if let Ok(dir) = std::env::var("RSLI_FUZZ_SEED_DIR") {
            let dir = Path::new(&dir).join(target);
            std::fs::create_dir_all(&dir).expect("seed dir");
            for (i, s) in seeds.iter().enumerate() {
                std::fs::write(dir.join(format!("seed-{i:03}")), s).expect("seed written");
            }
        }
    }
    // Every archive seed except the quirk one parses strictly; that one parses compatibly.
    let archives = archive_seeds();
    let (quirk, clean) = archives.split_last().expect("seeds");
    for a in clean {
        let r = Rsli::parse(a).expect("strict");
        for e in r.entries() {
            assert_eq!(e.decode().expect("decodes").len() as u32, e.unpacked_size());
        }
    }
    assert!(Rsli::parse(quirk).is_err());
    let r = Rsli::parse_with(quirk, iron3d_rsli::ReadOptions::compatible()).expect("compatible");
    assert_eq!(
        r.entries()[1].decode().expect("quirk entry decodes"),
        payloads()[5]
    );
}

#[test]
fn saved_fuzz_corpora_replay_cleanly() {
    let mut replayed = 0;
    for (target, check) in TARGETS {
        for (name, data) in corpus_files(target) {
            assert_eq!(check(&data), Ok(()), "{name}");
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} saved fuzz inputs (fuzz/corpus/rsli*)");
}

#[test]
fn edge_inputs_and_fuzz_regressions() {
    // Edge inputs, plus any minimised input a fuzzing run found (none so far).
    let cases: [(Check, &[u8]); 4] = [
        // Declared sizes far beyond what the input can produce: rejected before allocating.
        (check::lzss, &[0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
        (check::lzhuf, &[0x01, 0xFF, 0xFF, 0xFF, 0xFF]),
        (check::deflate, &[0x01, 0xFF, 0xFF, 0xFF, 0x7F, 0x03, 0x00]),
        // A header only, claiming entries it does not have.
        (check::archive, b"NL\x00\x01\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\xBA\xAB\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
    ];
    for (i, (check, input)) in cases.into_iter().enumerate() {
        assert_eq!(check(input), Ok(()), "case {i}");
    }
}
