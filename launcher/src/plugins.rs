//! How the launcher finds the registry and the plugin libraries, and builds the plugin host.

use anyhow::Context;
use iron3d_abi::SlotKind;
use iron3d_plugin_host::SearchPaths;
use iron3d_plugin_host::{MissionFiles, MissionSetup};
use iron3d_registry::{Dialect, Registry};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The directory of the running executable.
fn exe_dir() -> Option<PathBuf> {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
}

/// Plugin search paths: `extra` first (mods, `--plugin-dir`), then the launcher's own
/// directory and its `deps/` (where cargo puts the first-party plugins).
pub fn search_paths(extra: &[PathBuf]) -> SearchPaths {
    let mut dirs = extra.to_vec();
    if let Some(d) = exe_dir() {
        dirs.push(d.join("deps"));
        dirs.push(d);
    }
    SearchPaths::new(dirs)
}

/// Registry of missions (`config/plugins.ini`).
pub const MISSION_REGISTRY: &str = "plugins.ini";
/// Registry of the built-in scenario (`config/scenario.ini`: its gameplay plugin in the
/// control slot).
pub const SCENARIO_REGISTRY: &str = "scenario.ini";

/// The mission registry: see [`locate_registry_named`].
pub fn locate_registry(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    locate_registry_named(explicit, MISSION_REGISTRY)
}

/// The registry to use: `explicit`, else the first `config/<name>` found in the
/// current directory or one of its ancestors, then beside the executable or one of its
/// ancestors (a fresh clone's `target/<profile>/iron3d` finds the repository's file).
pub fn locate_registry_named(explicit: Option<&Path>, name: &str) -> anyhow::Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_owned());
    }
    let starts: Vec<PathBuf> = [std::env::current_dir().ok(), exe_dir()]
        .into_iter()
        .flatten()
        .collect();
    let mut tried = Vec::new();
    for start in &starts {
        for dir in start.ancestors() {
            let candidate = dir.join("config").join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
            tried.push(candidate);
        }
    }
    anyhow::bail!(
        "no plugin registry found (looked for config/{name} in {} and their parents); pass --registry FILE",
        starts
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    )
}

/// A configuration file: `explicit`, else the first `config/<name>` found as for the
/// registry ([`locate_registry_named`]).
pub fn locate_config(explicit: Option<&Path>, name: &str) -> anyhow::Result<PathBuf> {
    locate_registry_named(explicit, name)
        .with_context(|| format!("config/{name} not found: pass its path"))
}

/// Reads and parses a registry: an original `Comp.ini` (by file name) in its dialect,
/// anything else as `plugins.ini`. Diagnostics (unknown keys) are logged as warnings.
pub fn load_registry(path: &Path) -> anyhow::Result<Registry> {
    let bytes =
        std::fs::read(path).with_context(|| format!("reading registry {}", path.display()))?;
    let is_comp_ini = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("comp.ini"));
    let dialect = if is_comp_ini {
        Dialect::CompIni
    } else {
        Dialect::PluginsIni
    };
    let registry = Registry::parse(&bytes, &path.display().to_string(), dialect)?;
    for d in registry.diagnostics() {
        tracing::warn!("{d}");
    }
    Ok(registry)
}

/// The prefix of shadow folders in the temp folder: `iron3d-shadow-<pid>-<n>`.
pub const SHADOW_PREFIX: &str = "iron3d-shadow-";

/// A fresh directory name for one host's shadow copies of plugin libraries (unique per
/// process and per host, so concurrent runs never remove each other's files). The first
/// call in a process sweeps the shadow folders of dead processes (PD-HOST-SHADOW-SWEEP).
pub fn shadow_dir() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    let temp = std::env::temp_dir();
    SWEEP.call_once(|| {
        let removed = sweep_stale_shadow_dirs(&temp);
        if removed > 0 {
            tracing::info!(removed, temp = %temp.display(), "removed shadow folders of processes that no longer run");
        }
    });
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    temp.join(format!("{SHADOW_PREFIX}{}-{n}", std::process::id()))
}

/// PD-HOST-SHADOW-SWEEP: removes every `iron3d-shadow-<pid>-<n>` folder in `temp` whose
/// process no longer runs (no `/proc/<pid>`); returns how many were removed. Folders of
/// live processes, this one's, and names of any other shape are never touched. Shadow
/// copies are removed once mapped (PD-HOST-SHADOW-UNLINK), so only a process killed in
/// the middle of a load leaves one.
pub fn sweep_stale_shadow_dirs(temp: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return 0;
    };
    let own = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(SHADOW_PREFIX))
            .and_then(|rest| rest.split_once('-'))
            .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if pid == own || !is_dir || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        if std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The mission setup of `name` with `seed` and `tick_hz`; with a game directory, the
/// mission's files are located through the VFS (plugins read them through the host).
pub fn mission_setup(
    name: &str,
    seed: u64,
    tick_hz: u32,
    game_dir: Option<&std::path::Path>,
) -> anyhow::Result<MissionSetup> {
    let files = match game_dir {
        Some(dir) => {
            let vfs = iron3d_vfs::Vfs::new(dir);
            let mref = iron3d_mission::MissionRef::locate(&vfs, name)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            Some(std::sync::Arc::new(MissionFiles {
                vfs,
                mission_dir: mref.dir,
            }))
        }
        None => None,
    };
    Ok(MissionSetup {
        name: name.to_owned(),
        seed,
        tick_hz,
        files,
        parameters: Default::default(),
    })
}

/// The session spec of a run: the default search paths plus `extra`, a fresh shadow
/// directory, the watcher's 300 ms debounce.
pub fn session_spec(
    extra: &[PathBuf],
    registry: Registry,
    seed: u64,
    tick_hz: u32,
    publish_snapshots: bool,
) -> iron3d_session::SessionSpec {
    iron3d_session::SessionSpec {
        seed,
        tick_hz,
        publish_snapshots,
        registry,
        search_paths: search_paths(extra),
        shadow_dir: shadow_dir(),
        debounce: Duration::from_millis(300),
        services: Vec::new(),
        strict_plugins: false,
    }
}

/// How a run's plugin set is put together: `run` and `play` share it.
pub struct RunPlugins<'a> {
    /// The registry file.
    pub registry: &'a Path,
    /// Extra plugin directories searched first (`--plugin-dir`).
    pub plugin_dirs: &'a [PathBuf],
    /// The enabled mods: their plugins over the registry's, their services.
    pub mods: &'a crate::mods::ActiveMods,
    /// The audio slot's output (PD-AUDIO-AUTOMATION).
    pub audio: crate::audio::AudioMode,
    /// `--strict-plugins`.
    pub strict: bool,
}

impl RunPlugins<'_> {
    /// The registry with the mods' plugins over it and the audio output applied.
    ///
    /// # Errors
    /// The registry cannot be read, or a mod's plugin does not fit it.
    pub fn registry(&self) -> anyhow::Result<Registry> {
        crate::audio::apply_registry(
            self.mods.apply_registry(load_registry(self.registry)?)?,
            self.audio,
        )
    }

    /// Opens the session: `registry` ([`RunPlugins::registry`]) with the mods'
    /// services, `mission` on `platform` time; snapshots are published.
    ///
    /// # Errors
    /// [`iron3d_session::Session::open`] refused.
    pub fn open(
        &self,
        registry: Registry,
        seed: u64,
        tick_hz: u32,
        mission: iron3d_session::MissionSpec,
        platform: Box<dyn iron3d_kernel::TimeSource>,
    ) -> anyhow::Result<iron3d_session::Session> {
        let mut spec = session_spec(self.plugin_dirs, registry, seed, tick_hz, true);
        spec.services = self
            .mods
            .services()
            .into_iter()
            .map(|s| iron3d_plugin_host::ServiceSpec {
                name: s.name,
                library: s.library,
                factory: s.factory,
                origin: s.origin,
            })
            .collect();
        spec.strict_plugins = self.strict;
        Ok(iron3d_session::Session::open(&spec, mission, platform)?)
    }
}

/// What the player must see when the registry's plugin set did not load as named: one
/// line per slot running a fallback (slot, library, what runs instead, why, the search
/// paths) and a line for an empty registry. Empty when every named slot runs its
/// library. Play shows these in the HUD's warning banner; the host has already logged
/// each as an error line.
pub fn fallback_warnings(host: &iron3d_plugin_host::PluginHost) -> Vec<String> {
    let mut lines = Vec::new();
    if host.registry_was_empty() {
        lines.push(
            "PLUGINS: the registry names no plugin; every slot runs its null plugin".to_owned(),
        );
    }
    for f in host.fallbacks() {
        let fallback = f.fallback.split(" (").next().unwrap_or(&f.fallback);
        lines.push(format!(
            "PLUGIN MISSING: slot {} runs {} instead of '{}' ({})",
            f.slot, fallback, f.library, f.factory
        ));
        let reason: String = f.reason.chars().take(240).collect();
        if f.reason.contains("not found") {
            let dirs: Vec<String> = f
                .search_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            lines.push(format!("  not found; searched: {}", dirs.join(", ")));
        } else {
            lines.push(format!("  {reason}"));
        }
    }
    if !lines.is_empty() {
        lines.push(
            "  build the plugins (./tools/play.sh does), pass --plugin-dir DIR, or --strict-plugins to refuse".to_owned(),
        );
    }
    lines
}

/// Parses `TICK:SLOT:PATH` (`--swap`).
pub fn parse_swap(s: &str) -> Result<(u64, SlotKind, String), String> {
    let mut parts = s.splitn(3, ':');
    let (Some(tick), Some(slot), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("'{s}' is not TICK:SLOT:LIBRARY_PATH"));
    };
    let tick = tick
        .parse::<u64>()
        .map_err(|e| format!("tick '{tick}': {e}"))?;
    let slot = SlotKind::from_name(slot).ok_or_else(|| {
        format!(
            "unknown slot '{slot}' (one of: {})",
            SlotKind::ALL.map(SlotKind::as_str).join(", ")
        )
    })?;
    if path.is_empty() {
        return Err("empty library path".into());
    }
    Ok((tick, slot, path.to_owned()))
}

/// Parses a `--param KEY=VALUE` argument: the key is letters, digits, `-`, `_` and `.`
/// (not empty); the value is the rest (may be empty).
pub fn parse_param(s: &str) -> Result<(String, String), String> {
    let Some((key, value)) = s.split_once('=') else {
        return Err(format!("'{s}' is not KEY=VALUE"));
    };
    if key.is_empty()
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "parameter name '{key}': use letters, digits, '-', '_' and '.'"
        ));
    }
    Ok((key.to_owned(), value.to_owned()))
}

/// `--param` arguments as a map; a name given twice is an error.
pub fn param_map(
    params: &[(String, String)],
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let mut m = std::collections::BTreeMap::new();
    for (k, v) in params {
        if m.insert(k.clone(), v.clone()).is_some() {
            anyhow::bail!("--param {k} given twice");
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pid of a process that has ended and been reaped.
    fn dead_pid() -> u32 {
        let mut c = std::process::Command::new("true").spawn().unwrap();
        let pid = c.id();
        c.wait().unwrap();
        pid
    }

    #[test]
    fn stale_shadow_folders_of_dead_processes_are_swept_and_nothing_else() {
        let temp = tempfile::tempdir().unwrap();
        let make = |name: &str| {
            let d = temp.path().join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("libx-1-0.so"), b"copy").unwrap();
        };
        let dead = dead_pid();
        let own = std::process::id();
        make(&format!("iron3d-shadow-{dead}-0"));
        make(&format!("iron3d-shadow-{dead}-7"));
        make(&format!("iron3d-shadow-{own}-0"));
        make("iron3d-shadow-1-0"); // init: always alive
        make(&format!("iron3d-shadow-{dead}-x")); // not our shape
        make(&format!("iron3d-shadowy-{dead}-0"));
        std::fs::write(
            temp.path().join(format!("iron3d-shadow-{dead}-1")),
            b"a file",
        )
        .unwrap();
        assert_eq!(sweep_stale_shadow_dirs(temp.path()), 2);
        let mut left: Vec<String> = std::fs::read_dir(temp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = vec![
            format!("iron3d-shadow-{own}-0"),
            "iron3d-shadow-1-0".to_owned(),
            format!("iron3d-shadow-{dead}-x"),
            format!("iron3d-shadowy-{dead}-0"),
            format!("iron3d-shadow-{dead}-1"),
        ];
        want.sort();
        assert_eq!(left, want);
        assert_eq!(sweep_stale_shadow_dirs(&temp.path().join("absent")), 0);
    }

    #[test]
    fn mission_parameters_parse_and_errors_say_why() {
        assert_eq!(
            parse_param("auto-demo=1"),
            Ok(("auto-demo".into(), "1".into()))
        );
        assert_eq!(parse_param("a.b_c=x=y"), Ok(("a.b_c".into(), "x=y".into())));
        assert_eq!(parse_param("empty="), Ok(("empty".into(), String::new())));
        assert!(parse_param("novalue").unwrap_err().contains("KEY=VALUE"));
        assert!(parse_param("=1").unwrap_err().contains("parameter name"));
        assert!(parse_param("a b=1").unwrap_err().contains("parameter name"));
        let twice = [
            ("k".to_owned(), "1".to_owned()),
            ("k".to_owned(), "2".to_owned()),
        ];
        assert!(param_map(&twice).unwrap_err().to_string().contains("twice"));
        assert_eq!(param_map(&twice[..1]).unwrap()["k"], "1");
    }

    #[test]
    fn swap_specs_parse_and_errors_say_why() {
        assert_eq!(
            parse_swap("300:ai:/tmp/x:y.so"),
            Ok((300, SlotKind::Ai, "/tmp/x:y.so".into()))
        );
        assert!(parse_swap("x:ai:p").unwrap_err().contains("tick"));
        assert!(
            parse_swap("3:brain:p")
                .unwrap_err()
                .contains("unknown slot 'brain'")
        );
        assert!(parse_swap("3:ai").is_err());
        assert!(parse_swap("3:ai:").is_err());
    }
}
