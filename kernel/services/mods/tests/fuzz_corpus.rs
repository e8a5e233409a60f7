//! Replays the `mod_manifest` and `mod_package` fuzz corpora (fuzz/corpus/…) through the
//! same checks as the fuzz targets, so every saved input stays a regression test. The
//! `mod_package` seeds are generated here (a normal package by `iron3d_mods::pack`, the
//! attack shapes by a tiny tar writer); `IRON3D_WRITE_FUZZ_SEEDS=1` writes them to
//! fuzz/corpus/mod_package/.

use flate2::Compression;
use flate2::GzBuilder;
use iron3d_mods::{InstallLimits, Manifest, ModList, check_id, check_package};
use std::io::Write;
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../fuzz/corpus")
        .join(name)
}

fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    files
}

#[test]
fn mod_manifest_corpus_parses_or_fails_located() {
    let files = sorted_files(&corpus("mod_manifest"));
    assert!(!files.is_empty(), "the mod_manifest corpus has seeds");
    let (mut manifests, mut lists) = (0, 0);
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        match Manifest::parse(text, &path) {
            Ok(_) => manifests += 1,
            Err(e) => {
                let (file, line, column) = e.location().expect("located error");
                assert_eq!(file, path);
                assert!(line >= 1 && column >= 1, "{e}");
            }
        }
        match ModList::parse(text, &path) {
            Ok(list) => {
                let again = ModList::parse(&list.to_toml(), &path).expect("written list parses");
                assert_eq!(again, list);
                lists += 1;
            }
            Err(e) => {
                let (_, line, column) = e.location().expect("located error");
                assert!(line >= 1 && column >= 1, "{e}");
            }
        }
    }
    assert!(manifests >= 2, "the valid manifest seeds are accepted");
    assert!(lists >= 1, "the mod list seed is accepted");
}

// ---------------------------------------------------------------------------------------
// mod_package

/// The fuzz target's limits (fuzz/fuzz_targets/mod_package.rs).
const LIMITS: InstallLimits = InstallLimits {
    max_entry: 1 << 20,
    max_total: 4 << 20,
    max_entries: 256,
};

/// The fuzz target's checks; `Ok` when the package was accepted.
fn check(data: &[u8]) -> Result<(), String> {
    match check_package(data, LIMITS) {
        Ok(c) => {
            assert!(check_id(&c.id).is_ok(), "accepted id is valid");
            assert!(c.files <= LIMITS.max_entries);
            assert!(c.bytes <= LIMITS.max_total);
            Ok(())
        }
        Err(e) => {
            let text = e.to_string();
            assert!(text.len() < 8192, "bounded message: {} bytes", text.len());
            assert!(!text.chars().any(char::is_control), "escaped: {text:?}");
            Err(text)
        }
    }
}

/// One raw tar header (GNU format) for `name`, `kind`, claiming `size` bytes.
fn header(name: &[u8], kind: tar::EntryType, size: u64) -> [u8; 512] {
    let mut h = tar::Header::new_gnu();
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_mtime(0);
    h.set_entry_type(kind);
    h.set_cksum();
    *h.as_bytes()
}

/// Appends a header and `data` (possibly shorter than the claim), padded to 512.
fn entry(out: &mut Vec<u8>, name: &[u8], kind: tar::EntryType, size: u64, data: &[u8]) {
    out.extend_from_slice(&header(name, kind, size));
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
}

fn gzip(tar_bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), Compression::best());
    gz.write_all(tar_bytes).expect("gzip");
    gz.finish().expect("gzip")
}

/// The seeds: a normal package and the attack shapes of issue 35, each small.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("seed");
    std::fs::create_dir_all(src.join("data")).expect("mkdir");
    std::fs::write(
        src.join("mod.toml"),
        "id = \"seed\"\nversion = \"1.0.0\"\nname = \"Seed\"\nengine = \"*\"\n[[overlay]]\npath = \"data\"\n",
    )
    .expect("write");
    std::fs::write(src.join("data/Behavior.ini"), "[Tank]\nSpeed=2\n").expect("write");
    std::fs::write(
        src.join(format!("data/{}.txt", "long-name-".repeat(12))),
        "x",
    )
    .expect("write");
    let out = tmp.path().join("seed.tar.gz");
    iron3d_mods::pack(&src, &out).expect("pack");
    let normal = std::fs::read(&out).expect("read");

    // A GNU long name whose header claims 1 GiB (the stream holds 512 bytes of it).
    let mut long = Vec::new();
    entry(
        &mut long,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        1 << 30,
        &[b'a'; 512],
    );
    // A PAX header claiming 1 GiB.
    let mut pax = Vec::new();
    entry(
        &mut pax,
        b"seed/PaxHeader",
        tar::EntryType::XHeader,
        1 << 30,
        b"30 path=seed/aaaaaaaaaaaaaaaa\n",
    );
    // More entries than the limit (300 empty files).
    let mut many = Vec::new();
    for i in 0..300 {
        entry(
            &mut many,
            format!("seed/{i}").as_bytes(),
            tar::EntryType::Regular,
            0,
            b"",
        );
    }
    many.extend_from_slice(&[0; 1024]);
    // Two names differing only in case, and an escape code in a name.
    let mut case = Vec::new();
    entry(
        &mut case,
        b"seed/Behavior.ini",
        tar::EntryType::Regular,
        1,
        b"a",
    );
    entry(
        &mut case,
        b"seed/behavior.ini",
        tar::EntryType::Regular,
        1,
        b"b",
    );
    case.extend_from_slice(&[0; 1024]);
    let mut escape = Vec::new();
    entry(
        &mut escape,
        b"seed/\x1b[2J\x1b[31mred.txt",
        tar::EntryType::Regular,
        1,
        b"r",
    );
    escape.extend_from_slice(&[0; 1024]);
    vec![
        ("normal.tar.gz", normal),
        ("gnu_long_name_1gib.tar.gz", gzip(&long)),
        ("pax_header_1gib.tar.gz", gzip(&pax)),
        ("many_entries.tar.gz", gzip(&many)),
        ("case_duplicate.tar.gz", gzip(&case)),
        ("escape_codes.tar.gz", gzip(&escape)),
    ]
}

#[test]
fn mod_package_seeds_and_corpus_are_checked_within_bounds() {
    let seeds = seeds();
    if std::env::var_os("IRON3D_WRITE_FUZZ_SEEDS").is_some() {
        let dir = corpus("mod_package");
        std::fs::create_dir_all(&dir).expect("mkdir");
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes).expect("write seed");
        }
    }
    // The committed seeds are exactly what this writer makes (no opaque binaries).
    for (name, bytes) in &seeds {
        let committed = std::fs::read(corpus("mod_package").join(name)).unwrap_or_default();
        assert!(
            committed == *bytes,
            "fuzz/corpus/mod_package/{name} differs from its generator: IRON3D_WRITE_FUZZ_SEEDS=1 cargo test -p iron3d-mods --test fuzz_corpus"
        );
    }
    let mut outcomes = Vec::new();
    for (name, bytes) in &seeds {
        assert!(bytes.len() < 16 << 10, "{name}: a small seed");
        outcomes.push((*name, check(bytes)));
    }
    let expect = |name: &str, needle: &str| {
        let (_, r) = outcomes.iter().find(|(n, _)| *n == name).expect("seed");
        let text = r.as_ref().expect_err(name);
        assert!(text.contains(needle), "{name}: {text}");
    };
    assert!(outcomes[0].1.is_ok(), "{:?}", outcomes[0]);
    expect(
        "gnu_long_name_1gib.tar.gz",
        "GNU long name of 1073741824 bytes",
    );
    expect(
        "pax_header_1gib.tar.gz",
        "PAX extended header of 1073741824 bytes",
    );
    expect("many_entries.tar.gz", "more than the limit of 256 entries");
    expect("case_duplicate.tar.gz", "differs only in letter case");
    expect("escape_codes.tar.gz", "\\u{1b}[2J");

    // Every saved input, seeds included.
    let files = sorted_files(&corpus("mod_package"));
    assert!(
        files.len() >= seeds.len(),
        "the mod_package corpus has seeds"
    );
    let mut accepted = 0;
    for path in files {
        let data = std::fs::read(&path).expect("corpus file");
        if check(&data).is_ok() {
            accepted += 1;
        }
    }
    assert!(accepted >= 1, "the normal seed is accepted");
}
