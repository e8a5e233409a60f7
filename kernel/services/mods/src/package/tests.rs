//! Tests of the parent module.

#![allow(clippy::unwrap_used, reason = "tests")]

use super::pack::file_header;
use super::*;
use flate2::Compression;
use flate2::write::GzEncoder;

fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
    for (rel, bytes) in files {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
}

const MANIFEST: &[u8] = b"id = \"tanks\"\nversion = \"1.2.0\"\nname = \"Tanks\"\nengine = \"*\"\n[[overlay]]\npath = \"data\"\n";

/// A mod folder `<tmp>/src/tanks` with a few files, plus noise pack must skip.
fn sample(tmp: &Path) -> PathBuf {
    let dir = tmp.join("src/tanks");
    write_tree(
        &dir,
        &[
            ("mod.toml", MANIFEST),
            ("data/units/tank.txt", b"speed=2"),
            ("data/a.txt", b"a"),
            ("README.md", b"# Tanks"),
            (".git/config", b"noise"),
            (".hidden", b"noise"),
            ("target/debug/x", b"noise"),
            (
                "plugin/target/CACHEDIR.TAG",
                b"Signature: 8a477f597d28d172789f06886806bc55",
            ),
            ("plugin/target/debug/big", b"noise"),
            ("HASHES.sha256", b"stale"),
        ],
    );
    dir
}

fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn go(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                go(base, &p, out);
            } else {
                out.push(
                    p.strip_prefix(base)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    if dir.exists() {
        go(dir, dir, &mut out);
    }
    out.sort();
    out
}

fn names(dir: &Path) -> Vec<String> {
    if !dir.exists() {
        return Vec::new();
    }
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn pack_then_install_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sample(tmp.path());
    let out = tmp.path().join("dist/tanks-1.2.0.tar.gz");
    let report = pack(&src, &out).unwrap();
    assert_eq!(report.id, "tanks");
    assert_eq!(report.version, Version::new(1, 2, 0));
    assert_eq!(report.files, 4);
    assert_eq!(report.bytes, MANIFEST.len() as u64 + 7 + 1 + 7);
    assert_eq!(report.sha256, crate::verify::sha256_file(&out).unwrap());

    // Layout: mod.toml first, sorted files, HASHES last; deterministic headers.
    let mut ar = tar::Archive::new(GzDecoder::new(fs::File::open(&out).unwrap()));
    let mut entries = Vec::new();
    for e in ar.entries().unwrap() {
        let e = e.unwrap();
        let h = e.header();
        assert_eq!(h.mtime().unwrap(), 0);
        assert_eq!((h.uid().unwrap(), h.gid().unwrap()), (0, 0));
        assert_eq!(h.mode().unwrap(), 0o644);
        entries.push(e.path().unwrap().to_string_lossy().into_owned());
    }
    assert_eq!(
        entries,
        [
            "tanks/mod.toml",
            "tanks/README.md",
            "tanks/data/a.txt",
            "tanks/data/units/tank.txt",
            "tanks/HASHES.sha256",
        ]
    );

    let mods = tmp.path().join("game/mods");
    let installed = install(&out, &mods, InstallLimits::default()).unwrap();
    assert_eq!(installed.id, "tanks");
    assert_eq!(installed.version, Version::new(1, 2, 0));
    assert_eq!(installed.path, mods.join("tanks"));
    assert_eq!(names(&mods), ["tanks"], "no temporary folder left");
    assert_eq!(
        listing(&installed.path),
        [
            "HASHES.sha256",
            "README.md",
            "data/a.txt",
            "data/units/tank.txt",
            "mod.toml"
        ]
    );
    assert_eq!(
        fs::read(installed.path.join("data/units/tank.txt")).unwrap(),
        b"speed=2"
    );
    let hashes = fs::read_to_string(installed.path.join(HASHES_FILE)).unwrap();
    assert_eq!(hashes.lines().count(), 4);
    assert!(hashes.contains("  data/units/tank.txt\n"), "{hashes}");
    let d = crate::discover(&mods);
    assert_eq!(d.mods.len(), 1);
    assert!(d.broken.is_empty());

    // Installing again is refused, and says what to do.
    let e = install(&out, &mods, InstallLimits::default()).unwrap_err();
    assert!(matches!(e, ModError::AlreadyInstalled { .. }), "{e}");
    assert!(e.to_string().contains("remove that folder first"), "{e}");
    assert_eq!(names(&mods), ["tanks"]);
}

#[test]
fn pack_is_deterministic_and_skips_its_own_output() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sample(tmp.path());
    let a = tmp.path().join("a.tar.gz");
    pack(&src, &a).unwrap();
    // Written inside the mod folder, twice: the second run must not pack the first.
    let inside = src.join("tanks.tar.gz");
    let r1 = pack(&src, &inside).unwrap();
    let r2 = pack(&src, &inside).unwrap();
    assert_eq!(r1, r2);
    assert_eq!(fs::read(&a).unwrap(), fs::read(&inside).unwrap());
}

#[cfg(unix)]
#[test]
fn pack_keeps_executable_bits_and_refuses_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let src = sample(tmp.path());
    write_tree(&src, &[("bin/tool.sh", b"#!/bin/sh\n")]);
    fs::set_permissions(src.join("bin/tool.sh"), fs::Permissions::from_mode(0o700)).unwrap();
    let out = tmp.path().join("t.tar.gz");
    pack(&src, &out).unwrap();
    let mods = tmp.path().join("mods");
    let installed = install(&out, &mods, InstallLimits::default()).unwrap();
    let mode = fs::metadata(installed.path.join("bin/tool.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    let mode = fs::metadata(installed.path.join("mod.toml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);

    std::os::unix::fs::symlink("/etc/passwd", src.join("data/link")).unwrap();
    let e = pack(&src, &tmp.path().join("u.tar.gz")).unwrap_err();
    assert!(matches!(e, ModError::Unpackable { .. }), "{e}");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert!(!tmp.path().join("u.tar.gz").exists());
}

#[test]
fn pack_refuses_a_broken_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    write_tree(tmp.path(), &[("m/mod.toml", b"id = 1")]);
    let e = pack(&tmp.path().join("m"), &tmp.path().join("o.tar.gz")).unwrap_err();
    assert!(matches!(e, ModError::Parse { .. }), "{e}");
}

// --- hand-built archives -----------------------------------------------------------

enum E {
    File(String, Vec<u8>),
    /// Name written raw into the header (the tar crate refuses `..` otherwise).
    RawFile(&'static [u8], Vec<u8>),
    Dir(&'static str),
    Symlink(&'static str, &'static str),
    HardLink(&'static str, &'static str),
    Char(&'static str),
    /// A regular file of `n` zero bytes.
    Zeros(&'static str, u64),
}

fn file(name: &str, bytes: &[u8]) -> E {
    E::File(name.to_owned(), bytes.to_vec())
}

fn sha(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `HASHES.sha256` text for `(path, bytes)` pairs.
fn hashes_for(files: &[(&str, &[u8])]) -> Vec<u8> {
    let sorted: BTreeMap<&str, &[u8]> = files.iter().copied().collect();
    sorted
        .iter()
        .map(|(p, b)| format!("{}  {p}\n", sha(b)))
        .collect::<String>()
        .into_bytes()
}

fn raw_header(name: &[u8], size: u64, kind: tar::EntryType) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_size(size);
    h.set_mode(0o644);
    h.set_entry_type(kind);
    h.set_cksum();
    h
}

fn build(path: &Path, entries: &[E]) {
    let f = fs::File::create(path).unwrap();
    let mut tar = tar::Builder::new(GzEncoder::new(f, Compression::fast()));
    for e in entries {
        match e {
            E::File(name, bytes) => {
                let mut h = file_header(bytes.len() as u64, false);
                tar.append_data(&mut h, name, bytes.as_slice()).unwrap();
            }
            E::RawFile(name, bytes) => {
                let h = raw_header(name, bytes.len() as u64, tar::EntryType::Regular);
                tar.append(&h, bytes.as_slice()).unwrap();
            }
            E::Dir(name) => {
                let h = raw_header(name.as_bytes(), 0, tar::EntryType::Directory);
                tar.append(&h, io::empty()).unwrap();
            }
            E::Symlink(name, target) | E::HardLink(name, target) => {
                let kind = if matches!(e, E::Symlink(..)) {
                    tar::EntryType::Symlink
                } else {
                    tar::EntryType::Link
                };
                let mut h = raw_header(name.as_bytes(), 0, kind);
                h.set_link_name(target).unwrap();
                h.set_cksum();
                tar.append(&h, io::empty()).unwrap();
            }
            E::Char(name) => {
                let h = raw_header(name.as_bytes(), 0, tar::EntryType::Char);
                tar.append(&h, io::empty()).unwrap();
            }
            E::Zeros(name, n) => {
                let h = raw_header(name.as_bytes(), *n, tar::EntryType::Regular);
                tar.append(&h, io::repeat(0).take(*n)).unwrap();
            }
        }
    }
    tar.into_inner().unwrap().finish().unwrap();
}

const OK_MANIFEST: &[u8] = b"id = \"m\"\nversion = \"1.0.0\"\nname = \"M\"\nengine = \"*\"\n";

/// A valid archive for mod `m`: mod.toml, `extra` files, HASHES.sha256 last.
fn good(extra: &[(&str, &[u8])]) -> Vec<E> {
    let mut files: Vec<(&str, &[u8])> = vec![("mod.toml", OK_MANIFEST)];
    files.extend_from_slice(extra);
    let mut v: Vec<E> = files
        .iter()
        .map(|(p, b)| file(&format!("m/{p}"), b))
        .collect();
    v.push(E::File("m/HASHES.sha256".to_owned(), hashes_for(&files)));
    v
}

/// Installs `entries` with `limits`; asserts failure left nothing in the mods folder.
fn refused(entries: &[E], limits: InstallLimits) -> ModError {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("in.tar.gz");
    build(&archive, entries);
    let mods = tmp.path().join("mods");
    fs::create_dir_all(&mods).unwrap();
    let e = install(&archive, &mods, limits).unwrap_err();
    assert_eq!(
        names(&mods),
        Vec::<String>::new(),
        "nothing left after: {e}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("archive {}: ", archive.display())),
        "{text}"
    );
    e
}

#[test]
fn hand_built_good_archive_installs() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("in.tar.gz");
    let mut entries = good(&[("data/x.txt", b"x")]);
    entries.insert(1, E::Dir("m/"));
    entries.insert(2, E::Dir("m/empty/"));
    build(&archive, &entries);
    let installed = install(&archive, &tmp.path().join("mods"), InstallLimits::default()).unwrap();
    assert!(installed.path.join("empty").is_dir());
    assert_eq!(fs::read(installed.path.join("data/x.txt")).unwrap(), b"x");
}

#[test]
fn tampered_file_is_refused_naming_the_entry() {
    let mut entries = good(&[("data/x.txt", b"x")]);
    entries[1] = file("m/data/x.txt", b"y");
    let e = refused(&entries, InstallLimits::default());
    match &e {
        ModError::HashMismatch {
            entry,
            expected,
            found,
            ..
        } => {
            assert_eq!(entry, "m/data/x.txt");
            assert_eq!(expected, &sha(b"x"));
            assert_eq!(found, &sha(b"y"));
        }
        other => panic!("{other}"),
    }
    assert!(
        e.to_string()
            .contains("the archive is damaged or was altered"),
        "{e}"
    );
}

#[test]
fn unlisted_missing_and_malformed_hashes_are_refused() {
    let mut entries = good(&[]);
    entries.insert(1, file("m/extra.txt", b"sneaky"));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::BadHashes { entry, .. } if entry == "m/extra.txt"),
        "{e}"
    );

    let mut entries = good(&[("gone.txt", b"g")]);
    entries.remove(1);
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::ArchiveMissing { entry, .. } if entry == "m/gone.txt"),
        "{e}"
    );

    let mut entries = good(&[]);
    entries.pop();
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::ArchiveMissing { entry, .. } if entry == "m/HASHES.sha256"),
        "{e}"
    );

    let e = refused(
        &[
            file("m/mod.toml", OK_MANIFEST),
            file("m/HASHES.sha256", b"nonsense\n"),
        ],
        InstallLimits::default(),
    );
    assert!(e.to_string().contains("line 1: expected"), "{e}");
}

#[test]
fn path_traversal_and_absolute_entries_are_refused() {
    let mut entries = good(&[]);
    entries.insert(1, E::RawFile(b"m/../evil.txt", b"evil".to_vec()));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { entry, why, .. } if entry == "m/../evil.txt" && why.contains("\"..\"")),
        "{e}"
    );
    let mut entries = good(&[]);
    entries.insert(0, E::RawFile(b"/tmp/evil.txt", b"evil".to_vec()));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { why, .. } if why.contains("absolute")),
        "{e}"
    );
}

#[test]
fn links_and_devices_are_refused() {
    for (bad, word) in [
        (E::Symlink("m/link", "/etc/passwd"), "symbolic link"),
        (E::HardLink("m/hard", "m/mod.toml"), "hard link"),
        (E::Char("m/tty"), "device"),
    ] {
        let mut entries = good(&[]);
        entries.insert(1, bad);
        let e = refused(&entries, InstallLimits::default());
        assert!(
            matches!(&e, ModError::UnsafeEntry { why, .. } if why.contains(word)),
            "{e}"
        );
    }
}

#[test]
fn entries_outside_the_single_folder_are_refused() {
    let mut entries = good(&[]);
    entries.insert(1, file("other/x.txt", b"x"));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { entry, .. } if entry == "other/x.txt"),
        "{e}"
    );

    let mut entries = good(&[]);
    entries.insert(0, file("loose.txt", b"x"));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { why, .. } if why.contains("outside the mod's folder")),
        "{e}"
    );

    let mut entries = good(&[("a", b"file")]);
    entries.insert(2, file("m/a/b", b"under a file"));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { why, .. } if why.contains("which is a file")),
        "{e}"
    );

    let mut entries = good(&[]);
    entries.insert(1, file("m/mod.toml", OK_MANIFEST));
    let e = refused(&entries, InstallLimits::default());
    assert!(
        matches!(&e, ModError::UnsafeEntry { why, .. } if why == "appears twice"),
        "{e}"
    );
}

#[test]
fn oversized_entry_stops_at_the_limit() {
    // 64 MiB of zeros compress to ~64 KiB: reading stops just past the 1 MiB limit.
    let limits = InstallLimits {
        max_entry: 1 << 20,
        ..InstallLimits::default()
    };
    let mut entries = good(&[]);
    entries.insert(1, E::Zeros("m/bomb.bin", 64 << 20));
    let e = refused(&entries, limits);
    assert!(
        matches!(&e, ModError::EntryTooLarge { entry, limit, .. } if entry == "m/bomb.bin" && *limit == 1 << 20),
        "{e}"
    );
}

#[test]
fn header_claims_are_not_trusted() {
    // The header claims 1 TiB, the stream holds 4 MiB and ends: the install stops at
    // the 1 MiB limit (reading the claim would first hit the truncated stream).
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("claim.tar.gz");
    let f = fs::File::create(&archive).unwrap();
    let mut gz = GzEncoder::new(f, Compression::fast());
    gz.write_all(raw_header(b"m/big.bin", 1 << 40, tar::EntryType::Regular).as_bytes())
        .unwrap();
    io::copy(&mut io::repeat(0).take(4 << 20), &mut gz).unwrap();
    gz.finish().unwrap();
    let limits = InstallLimits {
        max_entry: 1 << 20,
        ..InstallLimits::default()
    };
    let mods = tmp.path().join("mods");
    let e = install(&archive, &mods, limits).unwrap_err();
    assert!(
        matches!(&e, ModError::EntryTooLarge { entry, limit, .. } if entry == "m/big.bin" && *limit == 1 << 20),
        "{e}"
    );
    assert!(!mods.exists());
}

#[test]
fn total_size_limit() {
    let limits = InstallLimits {
        max_entry: 1000,
        max_total: 1500,
        max_entries: 100,
    };
    let entries = good(&[("a.bin", &[1u8; 800]), ("b.bin", &[2u8; 800])]);
    let e = refused(&entries, limits);
    assert!(
        matches!(&e, ModError::ArchiveTooLarge { entry, .. } if entry == "m/b.bin"),
        "{e}"
    );
}

#[test]
fn too_many_entries() {
    let limits = InstallLimits {
        max_entries: 3,
        ..InstallLimits::default()
    };
    let entries = good(&[("1", b"1"), ("2", b"2")]);
    let e = refused(&entries, limits);
    assert!(
        matches!(&e, ModError::TooManyEntries { entry, limit: 3, .. } if entry == "m/HASHES.sha256"),
        "{e}"
    );
}

#[test]
fn truncated_gzip_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = sample(tmp.path());
    let out = tmp.path().join("t.tar.gz");
    pack(&src, &out).unwrap();
    let bytes = fs::read(&out).unwrap();
    let mods = tmp.path().join("mods");
    for cut in [bytes.len() / 2, bytes.len() - 4, 10] {
        let truncated = tmp.path().join(format!("cut{cut}.tar.gz"));
        fs::write(&truncated, &bytes[..cut]).unwrap();
        let e = install(&truncated, &mods, InstallLimits::default()).unwrap_err();
        assert!(
            matches!(e, ModError::ArchiveRead { .. }),
            "cut at {cut}: {e}"
        );
        assert!(!mods.exists(), "nothing created for a refused archive");
    }
    let not_gzip = tmp.path().join("plain.tar.gz");
    fs::write(&not_gzip, b"this is not gzip").unwrap();
    let e = install(&not_gzip, &mods, InstallLimits::default()).unwrap_err();
    assert!(matches!(e, ModError::ArchiveRead { .. }), "{e}");
}

#[test]
fn broken_manifest_and_id_mismatch() {
    let bad_manifest: &[u8] = b"id = \"m\"\nversion = \"x\"\nname = \"M\"\nengine = \"*\"\n";
    let files: [(&str, &[u8]); 1] = [("mod.toml", bad_manifest)];
    let h = hashes_for(&files);
    let e = refused(
        &[
            file("m/mod.toml", bad_manifest),
            E::File("m/HASHES.sha256".to_owned(), h.clone()),
        ],
        InstallLimits::default(),
    );
    assert!(
        matches!(&e, ModError::ArchiveManifest { entry, .. } if entry == "m/mod.toml"),
        "{e}"
    );
    let source = std::error::Error::source(&e).unwrap().to_string();
    assert!(source.ends_with("m/mod.toml:2:11: version: \"x\" is not a semver version (unexpected character 'x' while parsing major version number); write e.g. \"1.2.0\""), "{source}");

    let other: &[u8] = b"id = \"n\"\nversion = \"1.0.0\"\nname = \"N\"\nengine = \"*\"\n";
    let files: [(&str, &[u8]); 1] = [("mod.toml", other)];
    let h = hashes_for(&files);
    let e = refused(
        &[
            file("m/mod.toml", other),
            E::File("m/HASHES.sha256".to_owned(), h.clone()),
        ],
        InstallLimits::default(),
    );
    assert!(
        matches!(&e, ModError::ArchiveIdMismatch { id, folder, .. } if id == "n" && folder == "m"),
        "{e}"
    );
}

#[test]
fn hashes_parser() {
    let a = Path::new("a.tar.gz");
    let ok = format!(
        "{}  data/x.txt\n\n{}  mod.toml\n",
        "a".repeat(64),
        "b".repeat(64)
    );
    let m = parse_hashes(ok.as_bytes(), a, "m/HASHES.sha256").unwrap();
    assert_eq!(m.len(), 2);
    for bad in [
        format!("{} data/x.txt", "a".repeat(64)),
        format!("{}  ../x", "a".repeat(64)),
        format!("{}  x\n{}  x", "a".repeat(64), "a".repeat(64)),
        "zz  x".to_owned(),
    ] {
        assert!(parse_hashes(bad.as_bytes(), a, "h").is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------------------
// Hostile archives (issue 35): extension headers, case, names, trailing data.

/// A raw tar stream: one 512-byte header of `kind` for `name` claiming `size` bytes,
/// followed by `data` (which may be shorter than the claim) padded to 512.
fn raw_entry(out: &mut Vec<u8>, name: &[u8], kind: tar::EntryType, size: u64, data: &[u8]) {
    let h = raw_header(name, size, kind);
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
}

/// A PAX record `"<len> key=value\n"`.
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = 1 + key.len() + 1 + value.len() + 1;
    let mut len = body + 1;
    while format!("{len}").len() + body != len {
        len += 1;
    }
    let mut v = format!("{len} {key}=").into_bytes();
    v.extend_from_slice(value);
    v.push(b'\n');
    v
}

/// The tar stream of `good(extra)` (a valid mod `m`) with `before` spliced in front of
/// the entry at `at`, gzip'd.
fn gz(tar_bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(tar_bytes).unwrap();
    gz.finish().unwrap()
}

/// Tar bytes of `entries` (no end marker when `end` is false).
fn tar_bytes(entries: &[E]) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("a.tar.gz");
    build(&p, entries);
    let mut v = Vec::new();
    GzDecoder::new(fs::File::open(&p).unwrap())
        .read_to_end(&mut v)
        .unwrap();
    v
}

fn check_err(data: &[u8]) -> ModError {
    check_package(data, InstallLimits::default()).unwrap_err()
}

#[test]
fn a_huge_gnu_long_name_is_refused_before_it_is_read() {
    // The header claims 1 GiB; the stream holds 4 KiB of it. The claim alone refuses it.
    let mut t = Vec::new();
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        1 << 30,
        &[b'a'; 4096],
    );
    let e = check_err(&gz(&t));
    let text = e.to_string();
    assert!(
        matches!(&e, ModError::UnsafeEntry { .. })
            && text.contains("is a GNU long name of 1073741824 bytes, more than the 4096 accepted"),
        "{text}"
    );
    // A long link name, likewise.
    let mut t = Vec::new();
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongLink,
        5000,
        &[],
    );
    assert!(
        check_err(&gz(&t))
            .to_string()
            .contains("GNU long link name of 5000 bytes")
    );
}

#[test]
fn a_huge_pax_header_is_refused_before_it_is_read() {
    for kind in [tar::EntryType::XHeader, tar::EntryType::XGlobalHeader] {
        let mut t = Vec::new();
        raw_entry(&mut t, b"m/PaxHeader", kind, 1 << 30, &[b'9'; 512]);
        let text = check_err(&gz(&t)).to_string();
        assert!(
            text.contains("of 1073741824 bytes, more than the 65536 accepted"),
            "{text}"
        );
    }
}

#[test]
fn long_names_and_pax_paths_within_bounds_are_honoured() {
    // The tar writer itself uses a GNU long name for a path over 100 bytes.
    let long = format!("data/{}/x.txt", "d".repeat(150));
    let entries = good(&[(long.as_str(), b"deep")]);
    let bytes = gz(&tar_bytes(&entries));
    let c = check_package(&bytes, InstallLimits::default()).unwrap();
    assert_eq!((c.id.as_str(), c.files), ("m", 3));

    // A PAX `path` names the next member; `size` must agree with its header.
    let stream = tar_bytes(&good(&[("data/p.txt", b"pax")]));
    let mut rebuilt = Vec::new();
    // Replace the header name of data/p.txt with a placeholder named through PAX.
    let mut ar = tar::Archive::new(stream.as_slice());
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path_bytes().into_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        if name == b"m/data/p.txt" {
            let mut rec = pax_record("path", b"m/data/p.txt");
            rec.extend(pax_record("mtime", b"0"));
            rec.extend(pax_record("size", b"3"));
            raw_entry(
                &mut rebuilt,
                b"m/PaxHeader",
                tar::EntryType::XHeader,
                rec.len() as u64,
                &rec,
            );
            raw_entry(
                &mut rebuilt,
                b"m/placeholder",
                tar::EntryType::Regular,
                3,
                &data,
            );
        } else {
            raw_entry(
                &mut rebuilt,
                &name,
                tar::EntryType::Regular,
                data.len() as u64,
                &data,
            );
        }
    }
    rebuilt.extend_from_slice(&[0; 1024]);
    let c = check_package(&gz(&rebuilt), InstallLimits::default()).unwrap();
    assert_eq!(c.files, 3);

    // A PAX size that disagrees with the header is refused.
    let mut bad = Vec::new();
    let rec = pax_record("size", b"7");
    raw_entry(
        &mut bad,
        b"m/PaxHeader",
        tar::EntryType::XHeader,
        rec.len() as u64,
        &rec,
    );
    raw_entry(&mut bad, b"m/x.txt", tar::EntryType::Regular, 3, b"abc");
    let text = check_err(&gz(&bad)).to_string();
    assert!(
        text.contains("its PAX size (7) differs from its header's (3)"),
        "{text}"
    );

    // Malformed records, sparse files, two headers for one entry, a header for nothing.
    for (recs, why) in [
        (b"99 path=x\n".to_vec(), "claims 99 bytes"),
        (b"x path=x\n".to_vec(), "not a number"),
        (b"xxxxxxxxxxxxxxxxxxxxxxxxx=1\n".to_vec(), "has no length"),
        (b"8 pathx\n".to_vec(), "no '='"),
        (pax_record("GNU.sparse.major", b"1"), "sparse"),
    ] {
        let mut t = Vec::new();
        raw_entry(
            &mut t,
            b"m/PaxHeader",
            tar::EntryType::XHeader,
            recs.len() as u64,
            &recs,
        );
        raw_entry(&mut t, b"m/x.txt", tar::EntryType::Regular, 0, b"");
        let text = check_err(&gz(&t)).to_string();
        assert!(text.contains(why), "{why}: {text}");
    }
    let mut t = Vec::new();
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        4,
        b"m/a\0",
    );
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        4,
        b"m/b\0",
    );
    assert!(
        check_err(&gz(&t))
            .to_string()
            .contains("a second long name")
    );
    let mut t = Vec::new();
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        4,
        b"m/a\0",
    );
    assert!(
        check_err(&gz(&t))
            .to_string()
            .contains("describes no entry")
    );
}

#[test]
fn long_names_add_up_to_a_bound() {
    // 4,100 folders each named by a 4 KiB long name: over the 16 MiB of extension data
    // one archive may hold, though each name is within its own bound.
    let mut t = Vec::new();
    for i in 0..4100 {
        let name = format!("m/{i:05}{}\0", "n".repeat(4088));
        assert_eq!(name.len(), 4096);
        raw_entry(
            &mut t,
            b"././@LongLink",
            tar::EntryType::GNULongName,
            4096,
            name.as_bytes(),
        );
        raw_entry(&mut t, b"m/x", tar::EntryType::Directory, 0, b"");
    }
    let text = check_err(&gz(&t)).to_string();
    assert!(
        text.contains("long names and PAX headers add up to more than the 16777216 bytes accepted"),
        "{text}"
    );
    assert!(text.len() < 1000, "{text}");
}

#[test]
fn case_duplicates_are_refused_naming_both() {
    let e = refused(
        &good(&[("data/Behavior.ini", b"a"), ("data/behavior.ini", b"b")]),
        InstallLimits::default(),
    );
    let text = e.to_string();
    assert!(
        text.contains(
            "entry m/data/behavior.ini: differs only in letter case from \"m/data/Behavior.ini\""
        ),
        "{text}"
    );
    // Through a folder too.
    let e = refused(
        &good(&[("Data/a.txt", b"a"), ("data/b.txt", b"b")]),
        InstallLimits::default(),
    );
    assert!(
        e.to_string()
            .contains("differs only in letter case from \"m/Data\""),
        "{e}"
    );
    // mod.toml and MOD.TOML.
    let e = refused(&good(&[("MOD.TOML", b"x")]), InstallLimits::default());
    assert!(e.to_string().contains("\"m/mod.toml\""), "{e}");
}

#[test]
fn control_characters_in_names_are_refused_and_escaped() {
    let e = refused(
        &good(&[("data/\u{1b}[31mred\u{1b}[0m.txt", b"x")]),
        InstallLimits::default(),
    );
    let text = e.to_string();
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(
        text.contains(
            "entry m/data/\\u{1b}[31mred\\u{1b}[0m.txt: its path contains a control character"
        ),
        "{text}"
    );
    // A very long name is cut in the message.
    let mut t = Vec::new();
    let long = format!("m/{}\u{7}", "z".repeat(3000));
    raw_entry(
        &mut t,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        long.len() as u64,
        long.as_bytes(),
    );
    raw_entry(&mut t, b"m/short", tar::EntryType::Regular, 0, b"");
    let text = check_err(&gz(&t)).to_string();
    assert!(
        text.contains(&format!("entry m/{}…: ", "z".repeat(198))),
        "{text}"
    );
    assert!(text.len() < 600, "{}", text.len());
}

#[test]
fn data_after_the_end_marker_is_bounded() {
    let mut t = tar_bytes(&good(&[]));
    t.extend(std::iter::repeat_n(0u8, 2 << 20));
    let text = check_err(&gz(&t)).to_string();
    assert!(text.contains("follow the archive's end marker"), "{text}");
    // The padding tools write is fine.
    let mut t = tar_bytes(&good(&[]));
    t.extend(std::iter::repeat_n(0u8, 10240));
    check_package(&gz(&t), InstallLimits::default()).unwrap();
}

#[test]
fn check_package_reads_memory_and_writes_nothing() {
    let bytes = gz(&tar_bytes(&good(&[("data/x.txt", b"x")])));
    let c = check_package(&bytes, InstallLimits::default()).unwrap();
    assert_eq!(
        c,
        CheckedPackage {
            id: "m".to_owned(),
            version: Version::new(1, 0, 0),
            files: 3,
            bytes: c.bytes,
        }
    );
    let e = check_package(b"not gzip", InstallLimits::default()).unwrap_err();
    assert!(
        e.to_string().starts_with("archive (archive in memory): "),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn install_sweeps_stale_install_folders_and_refuses_a_fifo_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let mods = tmp.path().join("mods");
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = mods.join(format!(".install-{dead:x}-3-0badc0de"));
    fs::create_dir_all(stale.join("m/data")).unwrap();
    fs::write(stale.join("m/data/big.bin"), [0u8; 4096]).unwrap();
    let archive = tmp.path().join("in.tar.gz");
    build(&archive, &good(&[]));
    install(&archive, &mods, InstallLimits::default()).unwrap();
    if !stale.exists() || std::path::Path::new(&format!("/proc/{dead}")).exists() {
        // Removed, or the pid was reused at once (then it must be kept).
        assert_eq!(
            stale.exists(),
            std::path::Path::new(&format!("/proc/{dead}")).exists()
        );
    }
    assert_eq!(
        names(&mods)
            .iter()
            .filter(|n| n.starts_with(".install-"))
            .count(),
        usize::from(stale.exists())
    );

    let fifo = tmp.path().join("pipe.tar.gz");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let e = install(&fifo, &tmp.path().join("mods2"), InstallLimits::default()).unwrap_err();
    assert!(matches!(e, ModError::NotRegular { .. }), "{e}");
}
