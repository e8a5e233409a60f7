//! Helpers for the end-to-end tests: run the launcher in-process and read its output.

use std::process::ExitCode;

/// Runs `iron3d` with `args` in-process; returns the exit code and standard output.
pub fn iron3d(args: &[&str]) -> (ExitCode, String) {
    let mut out = Vec::new();
    let argv = std::iter::once("iron3d").chain(args.iter().copied());
    let code = iron3d_launcher::main_with_args(argv, &mut out);
    (code, String::from_utf8_lossy(&out).into_owned())
}

/// The hex digits of the mandatory last line `state_hash=<64 hex>`; panics when it is missing.
pub fn last_state_hash(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap_or_default();
    let hex = last
        .strip_prefix("state_hash=")
        .unwrap_or_else(|| panic!("last line is not state_hash=: {last:?}"));
    assert_eq!(hex.len(), 64, "{last}");
    assert!(
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{last}"
    );
    hex.to_owned()
}

/// Plugin-host fixtures: locating the built plugin libraries and building a host + kernel.
pub mod plugins {
    use iron3d_abi::MissionContext;
    use iron3d_kernel::{
        Kernel, KernelConfig, ManualTimeSource, ObjectDesc, ObjectHandle, OriginalObjectId,
    };
    use iron3d_plugin_host::{HostConfig, PluginHost, SearchPaths};
    use iron3d_registry::{Dialect, Registry};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// The directory holding this build's plugin libraries (`target/<profile>/deps`).
    pub fn library_dir() -> PathBuf {
        let exe = std::env::current_exe().expect("test executable path");
        let deps = exe.parent().expect("deps directory").to_path_buf();
        if deps.ends_with("deps") {
            deps
        } else {
            deps.join("deps")
        }
    }

    /// Path of the built library `name` (e.g. `iron3d_test_counter`); panics with advice when absent.
    pub fn library(name: &str) -> PathBuf {
        let file = format!(
            "{}{name}.{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_EXTENSION
        );
        for dir in [library_dir(), library_dir().join("..")] {
            let p = dir.join(&file);
            if p.is_file() {
                return p;
            }
        }
        panic!(
            "{file} not found next to the tests; run `cargo build --workspace` (tools/test.sh does)"
        );
    }

    /// A host searching the build directories, shadow copies under `shadow`.
    pub fn host(shadow: &Path, seed: u64) -> PluginHost {
        PluginHost::new(HostConfig {
            search_paths: SearchPaths::new(vec![library_dir(), library_dir().join("..")]),
            shadow_dir: shadow.to_path_buf(),
            mission: MissionContext {
                mission: "test".into(),
                seed,
                tick_hz: 30,
            },
            debounce: Duration::from_millis(50),
        })
    }

    /// A kernel (manual clock, `seed`) with the host's slot systems from `registry` and
    /// `objects` objects; returns the kernel and the object handles in queue order.
    pub fn kernel(
        host: &mut PluginHost,
        registry: &str,
        objects: u32,
        seed: u64,
    ) -> (Kernel, Vec<ObjectHandle>) {
        let reg = Registry::parse(registry.as_bytes(), "test-plugins.ini", Dialect::PluginsIni)
            .expect("registry parses");
        let mut k = Kernel::new(
            KernelConfig {
                seed,
                ..KernelConfig::default()
            },
            Box::new(ManualTimeSource::new()),
        )
        .expect("kernel");
        for s in host.systems_from_registry(&reg) {
            k.add_system(s).expect("slot system added");
        }
        let mut handles = Vec::new();
        for i in 0..objects {
            let w = k.world_mut().expect("world");
            let h = w
                .create(ObjectDesc {
                    id: Some(OriginalObjectId(100 + i)),
                    velocity: glam::Vec3::new(1.0, 0.5, 0.0),
                    ..ObjectDesc::default()
                })
                .expect("create");
            w.add_to_game(h).expect("register");
            handles.push(h);
        }
        (k, handles)
    }
}
