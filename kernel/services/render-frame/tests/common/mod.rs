//! Set-up shared by the render-frame tests that run on the embedded demo.
#![allow(clippy::unwrap_used, dead_code)]

use iron3d_kernel::{Kernel, KernelConfig, ManualTimeSource};
use iron3d_mission::GameFiles;
use iron3d_vfs::{ArchiveCache, ReadMode};

/// The demo (seed 7) written to a temporary directory, opened strictly; the directory
/// lives as long as the returned guard.
pub fn demo() -> (tempfile::TempDir, GameFiles) {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 7, iron3d_demo::Profile::Demo).unwrap();
    let files = GameFiles::new(dir.path(), ArchiveCache::new(ReadMode::Strict, 64 << 20));
    (dir, files)
}

/// A kernel on manual time with the default configuration.
pub fn kernel() -> Kernel {
    Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap()
}
