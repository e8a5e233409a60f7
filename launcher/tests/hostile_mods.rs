//! Hostile mod packages and mod folders through the binary (issue 35): `iron3d mods
//! install / check / list / explain` on a 1 GiB GNU long name or PAX header in a small
//! gzip package, more entries than the limit, a FIFO `mod.toml`, overlay files that are
//! a link to `/dev/zero`, a FIFO or a link to `/etc`, escape codes in names, names that
//! differ only in case, a 100 MB (sparse) manifest, a 500-mod dependency cycle and an
//! unfinished install of a dead process. Each command returns within the harness's
//! limits (15 s, 512 MiB, no signal) with a clear message; the good mod beside the bad
//! one keeps loading; nothing is left in the temp folder or as `.install-*` in the mods
//! folder (PD-MODS-ARCHIVE-HEADERS, PD-MODS-REGULAR-FILES, PD-MODS-STALE-INSTALL).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

#[path = "common/hostile.rs"]
mod hostile;

use flate2::Compression;
use flate2::write::GzEncoder;
use hostile::{Ended, Probe};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A mods folder with one good mod (`good`, a data overlay) and a list enabling `good`
/// and `also`.
struct Setup {
    probe: Probe,
    cwd: PathBuf,
    mods: PathBuf,
    list: PathBuf,
    game: PathBuf,
}

const GOOD: &str = "id = \"good\"\nversion = \"1.0.0\"\nname = \"Good\"\nengine = \"*\"\nsimulation = true\n[[overlay]]\npath = \"data\"\n";

impl Setup {
    fn new(also: &[&str]) -> Setup {
        let probe = Probe::new();
        let cwd = probe.scratch("work");
        let mods = cwd.join("mods");
        std::fs::create_dir_all(mods.join("good/data")).unwrap();
        std::fs::write(mods.join("good/mod.toml"), GOOD).unwrap();
        std::fs::write(mods.join("good/data/Iron_3D.ini"), "[CS]\n").unwrap();
        let list = cwd.join("mods.toml");
        let mut enabled = vec!["\"good\"".to_owned()];
        enabled.extend(also.iter().map(|a| format!("\"{a}\"")));
        std::fs::write(&list, format!("enabled = [{}]\n", enabled.join(", "))).unwrap();
        let game = cwd.join("game");
        std::fs::create_dir_all(&game).unwrap();
        Setup {
            probe,
            cwd,
            mods,
            list,
            game,
        }
    }

    fn mods_cmd(&self, args: &[&str]) -> Ended {
        let mut all: Vec<String> = vec![
            "mods".into(),
            "--mods-dir".into(),
            self.mods.display().to_string(),
            "--list".into(),
            self.list.display().to_string(),
        ];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        self.probe.run(&self.cwd, &all)
    }

    /// A mod folder `id` with a data overlay and a file in it.
    fn add_mod(&self, id: &str) -> PathBuf {
        let dir = self.mods.join(id);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("mod.toml"), GOOD.replace("good", id)).unwrap();
        std::fs::write(dir.join("data/a.txt"), "a").unwrap();
        dir
    }

    /// `check`, `list` and `explain`: each returns, names the broken mod with `needle`,
    /// the good mod still loads, nothing is left behind.
    fn folder_commands(&self, needle: &str) {
        let check = self.mods_cmd(&["check"]);
        check.refused_with(needle);
        assert!(
            check.stdout.contains("mod good 1.0.0 loaded"),
            "{}",
            check.text()
        );
        let list = self.mods_cmd(&["list"]);
        list.ok();
        assert!(list.stdout.contains(needle), "{}", list.text());
        assert!(
            list.stdout.contains("good 1.0.0 [loads #1]"),
            "{}",
            list.text()
        );
        let game = self.game.display().to_string();
        let explain = self.mods_cmd(&["explain", "Iron_3D.ini", "--game-dir", &game]);
        explain.ok();
        assert!(explain.stdout.contains(needle), "{}", explain.text());
        assert!(
            explain
                .stdout
                .contains("Iron_3D.ini comes from mod \"good\""),
            "{}",
            explain.text()
        );
        for e in [&check, &list, &explain] {
            no_raw_escape(e);
        }
        self.no_leftovers();
    }

    fn no_leftovers(&self) {
        self.probe.assert_no_temp_leftovers();
        let installs: Vec<String> = hostile::entries(&self.mods)
            .into_iter()
            .filter(|n| n.starts_with(".install-"))
            .collect();
        assert!(installs.is_empty(), "left in the mods folder: {installs:?}");
    }

    /// `install ARCHIVE`: refused with `needle`, within bounds, with a short message;
    /// the good mod still loads afterwards.
    fn install_refused(&self, archive: &Path, needle: &str) -> Ended {
        let e = self.mods_cmd(&["install", &archive.display().to_string()]);
        e.refused_with(needle);
        assert!(
            e.stderr.len() < 4096,
            "a bounded message: {} bytes",
            e.stderr.len()
        );
        no_raw_escape(&e);
        self.no_leftovers();
        let list = self.mods_cmd(&["list"]);
        assert!(
            list.stdout.contains("good 1.0.0 [loads #1]"),
            "{}",
            list.text()
        );
        e
    }
}

fn no_raw_escape(e: &Ended) {
    assert!(
        !e.stdout.contains('\u{1b}') && !e.stderr.contains('\u{1b}'),
        "a raw escape code was printed:\n{}",
        e.text()
    );
}

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

// ---------------------------------------------------------------------------------------
// A tiny tar writer: headers by hand, so they may claim anything.

/// A GNU tar header for `name` of type `kind` claiming `size` bytes.
fn header(name: &[u8], kind: u8, size: u64) -> [u8; 512] {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..107].copy_from_slice(b"0000644");
    h[108..115].copy_from_slice(b"0000000");
    h[116..123].copy_from_slice(b"0000000");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[136..147].copy_from_slice(b"00000000000");
    h[156] = kind;
    h[257..265].copy_from_slice(b"ustar  \0");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    h
}

/// Writes `archive`: `write` gets a gzip stream to put tar bytes into.
fn package(archive: &Path, write: impl FnOnce(&mut dyn Write)) {
    let f = std::fs::File::create(archive).unwrap();
    let mut gz = GzEncoder::new(std::io::BufWriter::new(f), Compression::fast());
    write(&mut gz);
    gz.finish().unwrap().flush().unwrap();
}

/// A header followed by `n` bytes of `fill`, padded to 512.
fn huge_entry(w: &mut dyn Write, name: &[u8], kind: u8, n: u64, fill: u8) {
    w.write_all(&header(name, kind, n)).unwrap();
    let chunk = vec![fill; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len() as u64) as usize;
        w.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
    let pad = (512 - n % 512) % 512;
    w.write_all(&vec![0; pad as usize]).unwrap();
}

fn small_entry(w: &mut dyn Write, name: &[u8], data: &[u8]) {
    w.write_all(&header(name, b'0', data.len() as u64)).unwrap();
    w.write_all(data).unwrap();
    let pad = (512 - data.len() % 512) % 512;
    w.write_all(&vec![0; pad]).unwrap();
}

// ---------------------------------------------------------------------------------------
// Packages

/// The package is small, yet holds the whole 1 GiB (deflate packs at most ~1,032:1).
fn assert_small_but_whole(archive: &Path) {
    let size = std::fs::metadata(archive).unwrap().len();
    assert!(
        (1_000_000..8 << 20).contains(&size),
        "a small package holding 1 GiB: {size} bytes"
    );
}

#[test]
fn a_1_gib_gnu_long_name_is_refused_by_its_claim() {
    let s = Setup::new(&[]);
    let archive = s.probe.scratch("in").join("long-name.tar.gz");
    package(&archive, |w| {
        huge_entry(w, b"././@LongLink", b'L', 1 << 30, b'a');
        small_entry(w, b"m/mod.toml", b"");
        w.write_all(&[0; 1024]).unwrap();
    });
    assert_small_but_whole(&archive);
    s.install_refused(
        &archive,
        "is a GNU long name of 1073741824 bytes, more than the 4096 accepted",
    );
}

#[test]
fn a_1_gib_pax_header_is_refused_by_its_claim() {
    let s = Setup::new(&[]);
    let archive = s.probe.scratch("in").join("pax.tar.gz");
    package(&archive, |w| {
        huge_entry(w, b"m/PaxHeader", b'x', 1 << 30, b'9');
        small_entry(w, b"m/mod.toml", b"");
        w.write_all(&[0; 1024]).unwrap();
    });
    assert_small_but_whole(&archive);
    s.install_refused(
        &archive,
        "is a PAX extended header of 1073741824 bytes, more than the 65536 accepted",
    );
}

#[test]
fn more_entries_than_the_limit_are_refused() {
    let s = Setup::new(&[]);
    let archive = s.probe.scratch("in").join("many.tar.gz");
    package(&archive, |w| {
        for i in 0..20_001 {
            small_entry(w, format!("m/{i}").as_bytes(), b"");
        }
        w.write_all(&[0; 1024]).unwrap();
    });
    s.install_refused(
        &archive,
        "entry m/20000: more than the limit of 20000 entries",
    );
}

#[test]
fn escape_codes_in_an_entry_name_are_refused_and_shown_escaped() {
    let s = Setup::new(&[]);
    let archive = s.probe.scratch("in").join("escape.tar.gz");
    package(&archive, |w| {
        small_entry(w, b"m/data/\x1b[2J\x1b[31mred.txt", b"r");
        w.write_all(&[0; 1024]).unwrap();
    });
    s.install_refused(
        &archive,
        "entry m/data/\\u{1b}[2J\\u{1b}[31mred.txt: its path contains a control character",
    );
}

#[test]
fn names_differing_only_in_case_are_refused_naming_both() {
    let s = Setup::new(&[]);
    let archive = s.probe.scratch("in").join("case.tar.gz");
    package(&archive, |w| {
        small_entry(w, b"m/data/Behavior.ini", b"a");
        small_entry(w, b"m/data/behavior.ini", b"b");
        w.write_all(&[0; 1024]).unwrap();
    });
    s.install_refused(
        &archive,
        "entry m/data/behavior.ini: differs only in letter case from \"m/data/Behavior.ini\"",
    );
}

#[test]
fn a_good_package_installs_and_leaves_nothing_behind() {
    let s = Setup::new(&[]);
    let src = s.probe.scratch("src").join("extra");
    std::fs::create_dir_all(src.join("data")).unwrap();
    std::fs::write(src.join("mod.toml"), GOOD.replace("good", "extra")).unwrap();
    std::fs::write(src.join("data/x.txt"), "x").unwrap();
    let archive = s.probe.scratch("in").join("extra.tar.gz");
    iron3d_mods::pack(&src, &archive).unwrap();
    let e = s.mods_cmd(&["install", &archive.display().to_string()]);
    e.ok();
    assert!(e.stdout.contains("installed extra 1.0.0"), "{}", e.text());
    assert_eq!(hostile::entries(&s.mods), ["extra", "good"]);
    s.no_leftovers();
}

#[test]
fn an_install_stopped_by_a_signal_removes_its_temporary_folder() {
    let s = Setup::new(&[]);
    // A package that takes a while to unpack: 250 MiB of zeros (sparse on disk, ~250 KiB
    // packed).
    let src = s.probe.scratch("src").join("big");
    std::fs::create_dir_all(src.join("data")).unwrap();
    std::fs::write(src.join("mod.toml"), GOOD.replace("good", "big")).unwrap();
    std::fs::File::create(src.join("data/big.bin"))
        .unwrap()
        .set_len(250 << 20)
        .unwrap();
    let archive = s.probe.scratch("in").join("big.tar.gz");
    iron3d_mods::pack(&src, &archive).unwrap();
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT")] {
        let mut cmd = s.probe.command(
            &s.cwd,
            [
                "mods",
                "--mods-dir",
                s.mods.to_str().unwrap(),
                "--list",
                s.list.to_str().unwrap(),
                "install",
                archive.to_str().unwrap(),
            ],
        );
        let child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Signal it once its temporary folder exists (the unpacking pass).
        let started = hostile::now();
        loop {
            let names = hostile::entries(&s.mods);
            if names.iter().any(|n| n.starts_with(".install-")) {
                break;
            }
            assert!(
                !names.iter().any(|n| n == "big"),
                "{name}: the install finished before it could be interrupted"
            );
            assert!(
                started.elapsed() < hostile::LIMIT,
                "{name}: no temporary folder"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {:?}\n{stderr}",
            out.status
        );
        assert!(
            stderr.contains("install interrupted by a signal; nothing was installed"),
            "{name}: {stderr}"
        );
        assert_eq!(hostile::entries(&s.mods), ["good"], "{name}: nothing left");
    }
    s.probe.assert_no_temp_leftovers();
}

// ---------------------------------------------------------------------------------------
// Mod folders

#[test]
fn a_fifo_mod_toml_is_a_broken_mod() {
    let s = Setup::new(&["fifo"]);
    std::fs::create_dir_all(s.mods.join("fifo")).unwrap();
    mkfifo(&s.mods.join("fifo/mod.toml"));
    s.folder_commands("mod.toml: is a FIFO (named pipe), not a regular file");
}

#[test]
fn an_overlay_file_linked_to_dev_zero_is_a_broken_mod() {
    let s = Setup::new(&["zero"]);
    let dir = s.add_mod("zero");
    std::os::unix::fs::symlink("/dev/zero", dir.join("data/Behavior.ini")).unwrap();
    s.folder_commands("Behavior.ini: leads outside the mod folder through a link (to /dev/zero)");
}

#[test]
fn an_overlay_fifo_is_a_broken_mod() {
    let s = Setup::new(&["pipe"]);
    let dir = s.add_mod("pipe");
    mkfifo(&dir.join("data/Behavior.ini"));
    s.folder_commands("Behavior.ini: is a FIFO (named pipe), not a regular file");
}

#[test]
fn an_overlay_linked_to_etc_is_a_broken_mod_never_walked() {
    let s = Setup::new(&["etc"]);
    let dir = s.add_mod("etc");
    std::fs::remove_dir_all(dir.join("data")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.join("data")).unwrap();
    s.folder_commands("data: leads outside the mod folder through a link (to /etc)");
}

#[test]
fn a_100_mb_sparse_manifest_is_reported_with_its_real_size() {
    let s = Setup::new(&["huge"]);
    std::fs::create_dir_all(s.mods.join("huge")).unwrap();
    std::fs::File::create(s.mods.join("huge/mod.toml"))
        .unwrap()
        .set_len(100_000_000)
        .unwrap();
    s.folder_commands("mod.toml: is 100000000 bytes, more than the 1048576 bytes accepted");
}

#[test]
fn escape_codes_in_folder_names_and_manifests_are_shown_escaped() {
    let s = Setup::new(&[]);
    std::fs::create_dir_all(s.mods.join("\u{1b}[2Jevil")).unwrap();
    let dir = s.add_mod("named");
    std::fs::write(
        dir.join("mod.toml"),
        GOOD.replace("good", "named")
            .replace("name = \"Good\"", "name = \"\\u001b[31mRed\"")
            .replace("simulation = true\n", ""),
    )
    .unwrap();
    let list = s.mods_cmd(&["list"]);
    list.ok();
    no_raw_escape(&list);
    assert!(
        list.stdout.contains("mod in mods/\\u{1b}[2Jevil is broken"),
        "{}",
        list.text()
    );
    assert!(
        list.stdout
            .contains("named 1.0.0 [disabled] \\u{1b}[31mRed"),
        "{}",
        list.text()
    );
}

#[test]
fn a_500_mod_cycle_is_named_in_a_few_lines() {
    let n = 500;
    let id = |i: usize| format!("c{i:03}");
    let ids: Vec<String> = (0..n).map(id).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let s = Setup::new(&refs);
    for i in 0..n {
        let dir = s.mods.join(id(i));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("mod.toml"),
            format!(
                "id = \"{}\"\nversion = \"1.0.0\"\nname = \"C\"\nengine = \"*\"\n[dependencies]\n{} = \"*\"\n",
                id(i),
                id((i + 1) % n)
            ),
        )
        .unwrap();
    }
    let check = s.mods_cmd(&["check"]);
    check.refused_with("… and 495 more depend on each other in a cycle (c000 -> c001 -> c002 -> c003 -> c004 -> … -> c000; 500 steps)");
    assert!(
        check.stdout.len() + check.stderr.len() < 8 << 10,
        "bounded output: {} + {} bytes",
        check.stdout.len(),
        check.stderr.len()
    );
    assert!(
        check.stdout.contains("mod good 1.0.0 loaded"),
        "{}",
        check.text()
    );
    let list = s.mods_cmd(&["list"]);
    list.ok();
    assert!(
        list.stdout.len() < 200 * n,
        "about one short line per installed mod: {} bytes",
        list.stdout.len()
    );
    assert!(
        list.stdout
            .contains("refused: part of the dependency cycle of 500 mods shown at \"c000\""),
        "{}",
        list.text()
    );
}

#[test]
fn unfinished_installs_of_dead_processes_are_swept() {
    let s = Setup::new(&[]);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = s.mods.join(format!(".install-{dead:x}-0-0badc0de"));
    std::fs::create_dir_all(stale.join("m/data")).unwrap();
    std::fs::write(stale.join("m/data/big.bin"), vec![0u8; 1 << 20]).unwrap();
    // One of a live process (this test's) is kept.
    let live = s
        .mods
        .join(format!(".install-{:x}-0-0badc0de", std::process::id()));
    std::fs::create_dir_all(live.join("m")).unwrap();
    let list = s.mods_cmd(&["list"]);
    list.ok();
    let pid_reused = Path::new(&format!("/proc/{dead}")).exists();
    assert_eq!(
        stale.exists(),
        pid_reused,
        "the dead process's folder is removed"
    );
    assert!(live.exists(), "a live process's folder is kept");
    assert!(
        list.stdout.contains("good 1.0.0 [loads #1]"),
        "{}",
        list.text()
    );
}
