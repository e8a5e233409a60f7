//! Special files in a game directory (issue 35, PD-VFS-REGULAR-FILES), through the real
//! `iron3d` process: a mission file, a configuration file or an archive that is a FIFO,
//! a link to `/dev/zero` or a folder is refused by name within the time limit — never a
//! blocked read, an endless stream or a mapped device — and the run leaves nothing in
//! its temp folder.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

#[path = "common/hostile.rs"]
mod hostile;

use hostile::Probe;
use std::path::{Path, PathBuf};

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn fifos_devices_and_folders_in_a_game_directory_are_refused_by_name() {
    let probe = Probe::new();
    let game = probe.scratch("game");
    probe
        .run(
            &checkout(),
            ["demo", "build", "--out", game.to_str().unwrap()],
        )
        .ok();
    // Files a mission load reads: its TMA, terrain, a unit file, a configuration list and
    // archives (mapped).
    let cases: [(&str, &str); 7] = [
        ("MISSIONS/DEMO1/data.tma", "fifo"),
        ("MISSIONS/DEMO1/Land.msh", "zero"),
        ("MISSIONS/DEMO1/Land.map", "folder"),
        ("UNITS/Tank.dat", "fifo"),
        ("BuildDat.lst", "zero"),
        ("objects.rlb", "fifo"),
        ("Textures.lib", "zero"),
    ];
    for (file, kind) in cases {
        let path = game.join(file);
        let saved = game.join("saved");
        std::fs::rename(&path, &saved).unwrap();
        match kind {
            "fifo" => mkfifo(&path),
            "zero" => std::os::unix::fs::symlink("/dev/zero", &path).unwrap(),
            _ => std::fs::create_dir(&path).unwrap(),
        }
        let run = probe.run(
            &checkout(),
            [
                "run",
                "--headless",
                "--game-dir",
                game.to_str().unwrap(),
                "--mission",
                "DEMO1",
                "--ticks",
                "3",
            ],
        );
        let what = match kind {
            "fifo" => "a FIFO, not a regular file",
            "zero" => "a character device, not a regular file",
            _ => "",
        };
        // A folder where a file is expected is not found as a file; every other kind is
        // refused by name. Either way the process ends cleanly and in time (the harness).
        if kind == "folder" {
            assert_ne!(run.code, Some(0), "{file} as a folder:\n{}", run.text());
        } else {
            run.refused_with(what);
            let shown = Path::new(file).file_name().unwrap().to_str().unwrap();
            run.refused_with(shown);
        }
        probe.assert_no_temp_leftovers();
        if kind == "folder" {
            std::fs::remove_dir(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
        std::fs::rename(&saved, &path).unwrap();
    }
    // Everything restored: the mission runs.
    probe
        .run(
            &checkout(),
            [
                "run",
                "--headless",
                "--game-dir",
                game.to_str().unwrap(),
                "--mission",
                "DEMO1",
                "--ticks",
                "3",
            ],
        )
        .ok();
}
