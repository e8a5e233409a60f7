//! The mods of a run, resolved and checked ([`ActiveMods`]): their order, the plugins
//! they provide (hash checked), the data overlays they mount, the service plugins they
//! add, the renderers they offer and the fingerprint that goes into replay headers.
//! Which mods a run asks for (`--mods`, the user's list, PD-MODS-AUTOMATION) is the
//! launcher's; the `iron3d mods` commands use this module too.

use crate::{
    Discovery, Environment, FingerprintEntry, ModDir, ModError, ModSetFingerprint, PluginBinary,
    PluginTarget, Refusal, RefusalReason, Slot, VerifiedPlugin,
};
use iron3d_registry::{Entry, Registry, SlotKey, SlotName};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A plugin of an enabled mod, ready for the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModPlugin {
    /// The mod.
    pub mod_id: String,
    /// The mod's folder.
    pub mod_root: PathBuf,
    /// The plugin as declared and checked.
    pub plugin: VerifiedPlugin,
}

impl ModPlugin {
    /// The registry's library token: the shipped file's path; for a source build the
    /// library in the mod's own `target/release` or `target/debug` (a crate with its own
    /// workspace, as `iron3d mods new` makes), else its cargo library name, found through
    /// the plugin search paths (a crate of the engine's workspace).
    pub fn library(&self) -> String {
        match &self.plugin.binary {
            PluginBinary::Shipped { library_path, .. } => library_path.display().to_string(),
            PluginBinary::Source { library } => built_in_mod(&self.mod_root, library)
                .map_or_else(|| library.clone(), |p| p.display().to_string()),
        }
    }

    /// How listings describe the code: `sha256 ok` or `built from source, not verified`.
    pub fn trust(&self) -> &'static str {
        match &self.plugin.binary {
            PluginBinary::Shipped { .. } => "native code, sha256 checked",
            PluginBinary::Source { .. } => "native code, built from source, not verified",
        }
    }
}

/// A service plugin a mod provides, as the plugin host loads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModService {
    /// The service's name.
    pub name: String,
    /// The library (a path, or a name the plugin search paths resolve).
    pub library: String,
    /// The factory.
    pub factory: String,
    /// Where it comes from (`mod ID`), for reports.
    pub origin: String,
}

/// The enabled mods of a run, resolved and checked.
#[derive(Debug)]
pub struct ActiveMods {
    /// The folder the mods were found in.
    pub root: PathBuf,
    /// Every mod found there (and the broken ones).
    pub discovery: Discovery,
    /// Load order: indices into `discovery.mods`, the last wins.
    pub order: Vec<usize>,
    /// Mods refused, each with its reason and fix.
    pub refused: Vec<Refusal>,
    /// Warnings of the resolution (contradicting hints).
    pub warnings: Vec<String>,
    /// The plugins of the loaded mods, in load order.
    pub plugins: Vec<ModPlugin>,
    /// The fingerprint of the loaded set.
    pub fingerprint: ModSetFingerprint,
}

/// Mods refused in one pass of [`ActiveMods::load`] at most this many times (each pass
/// refuses at least one mod, so the loop always ends; the cap bounds a hostile folder).
const MAX_PASSES: usize = 64;

impl ActiveMods {
    /// No mods.
    pub fn none() -> Self {
        Self {
            root: PathBuf::new(),
            discovery: Discovery::default(),
            order: Vec::new(),
            refused: Vec::new(),
            warnings: Vec::new(),
            plugins: Vec::new(),
            fingerprint: ModSetFingerprint::default(),
        }
    }

    /// Discovers the mods of `root` and resolves `requested` (the user's order). A mod
    /// whose plugin fails its hash check, or whose files cannot be hashed for the
    /// fingerprint (a file changed after discovery checked it: PD-MODS-REGULAR-FILES), is
    /// refused and the set resolved again without it (so what depended on it is refused
    /// too); a broken mod never stops the others.
    ///
    pub fn load(root: &Path, requested: &[String], env: &Environment) -> Self {
        let discovery = crate::discover(root);
        let mut wanted: Vec<String> = requested.to_vec();
        let mut refused_by_check: Vec<Refusal> = Vec::new();
        // Each mod is checked once: its verified plugins and its fingerprint entry.
        let mut checked: BTreeMap<usize, Result<(Vec<VerifiedPlugin>, FingerprintEntry), Refusal>> =
            BTreeMap::new();
        let mut pass = 0;
        let resolution = loop {
            pass += 1;
            let mut resolution = discovery.resolve(&wanted, env);
            let mut failed = Vec::new();
            for &i in &resolution.order {
                let r = checked
                    .entry(i)
                    .or_insert_with(|| check_mod(&discovery.mods[i], &env.platform));
                if let Err(refusal) = r {
                    failed.push(refusal.clone());
                }
            }
            if failed.is_empty() {
                break resolution;
            }
            for r in &failed {
                wanted.retain(|id| *id != r.id);
            }
            refused_by_check.extend(failed);
            if pass >= MAX_PASSES {
                // Never reached in practice (each pass refuses every failing mod it
                // meets); the failing mods are still left out.
                resolution
                    .order
                    .retain(|i| checked.get(i).is_some_and(Result::is_ok));
                break resolution;
            }
        };
        let mut plugins = Vec::new();
        let mut entries = Vec::new();
        for &i in &resolution.order {
            if let Some(Ok((list, entry))) = checked.get(&i) {
                let m = &discovery.mods[i];
                plugins.extend(list.iter().cloned().map(|plugin| ModPlugin {
                    mod_id: m.manifest.id.clone(),
                    mod_root: m.root.clone(),
                    plugin,
                }));
                entries.push(entry.clone());
            }
        }
        // A mod refused by its check was left out of the resolution; what needs it is
        // refused because of that refusal, not told to enable it.
        let mut refused = refused_by_check;
        let checked_ids: Vec<String> = refused.iter().map(|r| r.id.clone()).collect();
        refused.extend(resolution.refused.into_iter().map(|mut r| {
            if let crate::RefusalReason::MissingDependency { dependency, .. } = &r.reason {
                if checked_ids.contains(dependency) {
                    r.reason = crate::RefusalReason::DependencyRefused {
                        dependency: dependency.clone(),
                    };
                }
            }
            r
        }));
        Self {
            root: root.to_owned(),
            discovery,
            order: resolution.order,
            refused,
            warnings: resolution.warnings,
            plugins,
            fingerprint: ModSetFingerprint { mods: entries },
        }
    }

    /// The loaded mods in load order.
    pub fn loaded(&self) -> impl Iterator<Item = &ModDir> {
        self.order.iter().map(|&i| &self.discovery.mods[i])
    }

    /// The data overlays of the loaded mods, in load order: `(mod id, folder)`, the mount
    /// names being the mod ids.
    pub fn overlays(&self) -> Vec<(String, PathBuf)> {
        self.loaded()
            .flat_map(|m| {
                m.manifest
                    .overlays
                    .iter()
                    .map(|o| (m.manifest.id.clone(), o.resolve(&m.root)))
            })
            .collect()
    }

    /// `registry` with the slots the loaded mods fill replaced by their plugins (the last
    /// mod in load order wins). Render plugins are not put in the registry: they are
    /// offered as renderers ([`ActiveMods::renderer`]).
    ///
    /// # Errors
    /// A plugin path the registry cannot hold (e.g. a space in the mods folder's path).
    pub fn apply_registry(&self, registry: Registry) -> Result<Registry, ModError> {
        let overrides: Vec<(SlotName, &ModPlugin)> = self
            .plugins
            .iter()
            .filter_map(|p| match &p.plugin.decl.target {
                PluginTarget::Slot(Slot::Render) => None,
                PluginTarget::Slot(s) => Some((*s, p)),
                PluginTarget::Service(_) => None,
            })
            .collect();
        if overrides.is_empty() {
            return Ok(registry);
        }
        let mut entries: Vec<Entry> = registry.entries().cloned().collect();
        for (slot, p) in &overrides {
            let entry = Entry {
                line: 0,
                key: SlotKey::Slot(*slot),
                library: p.library(),
                factory: p.plugin.decl.factory.clone(),
                comment: Some(format!("mod {}", p.mod_id).into_bytes()),
            };
            match entries.iter_mut().find(|e| e.key == entry.key) {
                Some(e) => *e = entry,
                None => entries.push(entry),
            }
            tracing::info!(target: "Iron3D", slot = %slot, mod_id = p.mod_id.as_str(), "slot filled by a mod");
        }
        Registry::from_entries(registry.origin(), registry.dialect(), entries)
            .map_err(ModError::Registry)
    }

    /// The service plugins of the loaded mods, in load order (for a name provided twice
    /// the later mod wins, as for slots).
    pub fn services(&self) -> Vec<ModService> {
        self.plugins
            .iter()
            .filter_map(|p| match &p.plugin.decl.target {
                PluginTarget::Service(name) => Some(ModService {
                    name: name.clone(),
                    library: p.library(),
                    factory: p.plugin.decl.factory.clone(),
                    origin: format!("mod {}", p.mod_id),
                }),
                PluginTarget::Slot(_) => None,
            })
            .collect()
    }

    /// The renderers the loaded mods provide: `(name, library, factory)`; the name is the
    /// factory, which `--renderer` and the settings use.
    pub fn renderers(&self) -> Vec<(String, String, String)> {
        self.plugins
            .iter()
            .filter(|p| matches!(p.plugin.decl.target, PluginTarget::Slot(Slot::Render)))
            .map(|p| {
                (
                    p.plugin.decl.factory.clone(),
                    p.library(),
                    p.plugin.decl.factory.clone(),
                )
            })
            .collect()
    }

    /// The mod renderer called `name` (its factory or its mod's id): `(library, factory)`.
    pub fn renderer(&self, name: &str) -> Option<(String, String)> {
        self.plugins
            .iter()
            .filter(|p| matches!(p.plugin.decl.target, PluginTarget::Slot(Slot::Render)))
            .find(|p| p.plugin.decl.factory == name || p.mod_id == name)
            .map(|p| (p.library(), p.plugin.decl.factory.clone()))
    }

    /// Writes what was loaded and refused (one line each) to `out`, and logs refusals and
    /// warnings as warnings on the `Iron3D` channel.
    pub fn report(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for m in self.loaded() {
            writeln!(
                out,
                "mod {} {} loaded{}",
                m.manifest.id,
                m.manifest.version,
                if m.manifest.simulation {
                    " (changes the simulation)"
                } else {
                    ""
                }
            )?;
        }
        for p in &self.plugins {
            writeln!(
                out,
                "mod {} plugin {} {} ({})",
                p.mod_id,
                target_name(&p.plugin.decl.target),
                p.plugin.decl.factory,
                p.trust()
            )?;
        }
        for r in refusal_lines(&self.refused) {
            writeln!(out, "mod refused: {r}")?;
            tracing::warn!(target: "Iron3D", "{r}");
        }
        for w in &self.warnings {
            writeln!(out, "mod warning: {w}")?;
            tracing::warn!(target: "Iron3D", "{w}");
        }
        Ok(())
    }

    /// The ids of the loaded mods in load order.
    pub fn ids(&self) -> Vec<String> {
        self.loaded().map(|m| m.manifest.id.clone()).collect()
    }
}

/// Verifies `m`'s plugins and computes its fingerprint entry (the content hash of a
/// simulation mod); a failure refuses the mod.
fn check_mod(
    m: &ModDir,
    platform: &str,
) -> Result<(Vec<VerifiedPlugin>, FingerprintEntry), Refusal> {
    let plugins = crate::verify_plugins(m, platform)?;
    let content = if m.manifest.simulation {
        crate::content_hash(m, platform).map_err(|e| crate::broken_files(m, &e))?
    } else {
        String::new()
    };
    Ok((
        plugins,
        FingerprintEntry {
            id: m.manifest.id.clone(),
            version: m.manifest.version.to_string(),
            simulation: m.manifest.simulation,
            content,
        },
    ))
}

/// The refusals as sentences to print, each dependency cycle once: every member of a
/// cycle is refused with the same (bounded) sentence, so a cycle of 500 mods is one line,
/// not 500.
pub fn refusal_lines(refused: &[Refusal]) -> Vec<String> {
    let mut cycles: Vec<&[String]> = Vec::new();
    let mut out = Vec::new();
    for r in refused {
        if let RefusalReason::Cycle { members, .. } = &r.reason {
            if cycles.contains(&members.as_slice()) {
                continue;
            }
            cycles.push(members);
        }
        out.push(r.to_string());
    }
    out
}

/// A source plugin's library built in the mod's own `target/release` or `target/debug`
/// (PD-MOD-SOURCE-PLUGIN), or in `$CARGO_TARGET_DIR/release` / `debug` when that is set
/// (a relative one is taken from the mod's folder, as cargo does when the mod is built
/// there), if there is one.
pub fn built_in_mod(mod_root: &Path, library: &str) -> Option<PathBuf> {
    mod_build_candidates(mod_root, library)
        .into_iter()
        .find(|p| p.is_file())
}

/// Every path [`built_in_mod`] looks at, in order (for "not found; searched: …").
pub fn mod_build_candidates(mod_root: &Path, library: &str) -> Vec<PathBuf> {
    let file = format!(
        "{}{library}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let mut targets = vec![mod_root.join("target")];
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        let dir = if dir.is_absolute() {
            dir
        } else {
            mod_root.join(dir)
        };
        if !targets.contains(&dir) {
            targets.push(dir);
        }
    }
    targets
        .iter()
        .flat_map(|t| ["release", "debug"].map(|p| t.join(p).join(&file)))
        .collect()
}

/// `slot ai` / `service name`.
pub fn target_name(t: &PluginTarget) -> String {
    match t {
        PluginTarget::Slot(s) => format!("slot {}", s.as_str()),
        PluginTarget::Service(n) => format!("service {n}"),
    }
}
