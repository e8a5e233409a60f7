//! Which mods a run enables (`--mods` or the user's list), where they are installed and
//! the engine they are checked against; the resolved set itself is
//! [`iron3d_mods::ActiveMods`]. The `iron3d mods`
//! commands live in [`crate::mods_cli`]; this module is what `run` and `play` share.
//!
//! **PD-MODS-AUTOMATION**: `--mods` wins; otherwise a run in a window reads the user's
//! list (`$XDG_CONFIG_HOME/iron3d/mods.toml`), while automation (`run --headless`,
//! `play --offscreen`) runs without mods unless `--mods` names them, so scripted runs
//! never depend on a person's configuration. A replay without `--mods` enables the mods
//! its header recorded.

use clap::Args;
pub use iron3d_mods::{
    ActiveMods, ModPlugin, built_in_mod, mod_build_candidates, refusal_lines, target_name,
};
use iron3d_mods::{Environment, ModList};
use iron3d_session::DataOverlay;
use std::path::{Path, PathBuf};

/// The user's mod list file name (in the user's configuration directory).
pub const MOD_LIST_FILE: &str = "mods.toml";

/// Environment variable naming the folder of installed mods.
pub const MODS_DIR_ENV: &str = "IRON3D_MODS_DIR";

/// The engine as mods see it: this build's version, the plugin-interface version and
/// the platform key.
pub fn environment() -> Environment {
    let engine = semver::Version::parse(env!("CARGO_PKG_VERSION"))
        .unwrap_or_else(|_| semver::Version::new(0, 0, 0));
    Environment::current(engine, iron3d_abi::ABI_MAJOR, iron3d_abi::ABI_MINOR)
}

/// The data overlays of `mods` as the session mounts them (mount names: the mod ids).
pub fn overlays(mods: &ActiveMods) -> Vec<DataOverlay> {
    mods.overlays()
        .into_iter()
        .map(|(name, root)| DataOverlay { name, root })
        .collect()
}

/// Mod options shared by `run` and `play`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct ModArgs {
    /// Mods to enable for this run, comma-separated, in your preferred order (dependencies
    /// still load first). Default: the list in $XDG_CONFIG_HOME/iron3d/mods.toml for a
    /// windowed run, none for automation; `--mods ""` runs without mods.
    #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
    pub mods: Option<Vec<String>>,
    /// Folder of installed mods (default: $IRON3D_MODS_DIR, else the `mods/` folder found
    /// beside `config/` from the current directory or the executable).
    #[arg(long, value_name = "DIR")]
    pub mods_dir: Option<PathBuf>,
}

impl ModArgs {
    /// The ids named by `--mods` (empty names dropped), `None` when it was not given.
    pub fn requested(&self) -> Option<Vec<String>> {
        self.mods.as_ref().map(|v| {
            v.iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
    }
}

/// The user's mod list path: `$XDG_CONFIG_HOME/iron3d/mods.toml` (`None` without a
/// configuration directory).
pub fn user_list_path() -> Option<PathBuf> {
    iron3d_config::bindings::user_dir().map(|d| d.join(MOD_LIST_FILE))
}

/// The folder of installed mods: `explicit`, else `$IRON3D_MODS_DIR`, else the first
/// `mods/` beside a `config/` folder found from the current directory or the executable
/// (a fresh clone finds the repository's `mods/`), else `./mods`.
pub fn locate_mods_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_owned();
    }
    if let Some(p) = std::env::var_os(MODS_DIR_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(p);
    }
    match crate::plugins::locate_registry(None) {
        Ok(registry) => registry
            .parent()
            .and_then(Path::parent)
            .map_or_else(|| PathBuf::from("mods"), |root| root.join("mods")),
        Err(_) => PathBuf::from("mods"),
    }
}

/// The mods of a run: `--mods` when given, else (outside automation) the user's list;
/// see PD-MODS-AUTOMATION. `fallback` is used when `--mods` is absent and the run is
/// automation (a replay's recorded ids, or none).
/// A user list that does not parse is reported as a warning and the run has no mods.
pub fn for_run(args: &ModArgs, automation: bool, fallback: &[String]) -> ActiveMods {
    let requested = match args.requested() {
        Some(r) => r,
        None if automation => fallback.to_vec(),
        // A list that does not parse never stops the game: it is reported and the
        // run goes on without mods (`iron3d mods check` shows the same error).
        None => match user_list_path().map(|p| ModList::load(&p)) {
            Some(Ok(list)) => list.enabled().to_vec(),
            Some(Err(e)) => {
                tracing::warn!(target: "Iron3D", error = %anyhow::Error::new(e),
                    "your mod list is not read: playing without mods");
                Vec::new()
            }
            None => Vec::new(),
        },
    };
    if requested.is_empty() {
        return ActiveMods::none();
    }
    let root = locate_mods_dir(args.mods_dir.as_deref());
    ActiveMods::load(&root, &requested, &environment())
}
