//! Set-up shared by the mission integration tests: the generated demo in a temporary
//! directory, its files in a strict cache, DEMO1 loaded or its graph walked.

#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use iron3d_mission::{GameFiles, GraphReport, LoadedMission, MissionError, load_mission};
use iron3d_vfs::{ArchiveCache, ReadMode};
use std::path::Path;

/// The demo (seed 3) generated into a fresh temporary directory.
pub fn demo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 3, iron3d_demo::Profile::Demo).unwrap();
    dir
}

/// The game at `root`, strict, in its own cache scope.
pub fn game_files(root: &Path) -> GameFiles {
    GameFiles::new(root, ArchiveCache::new(ReadMode::Strict, 64 << 20))
}

/// DEMO1 of the game at `root` loaded into a fresh kernel.
pub fn load(root: &Path) -> Result<LoadedMission, MissionError> {
    let files = game_files(root);
    let data = files.data();
    let mut kernel =
        Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    load_mission(&mut kernel, &data, "DEMO1", None)
}

/// The graph of DEMO1 even when the load would fail (for failure chains).
pub fn graph(root: &Path) -> GraphReport {
    let files = game_files(root);
    let data = files.data();
    let m = iron3d_mission::MissionRef::locate(&files.vfs, "DEMO1").unwrap();
    let tma = iron3d_tma::Tma::parse(&files.vfs.read(&m.tma).unwrap()).unwrap();
    iron3d_mission::mission_graph(&data, "DEMO1", &tma)
}
