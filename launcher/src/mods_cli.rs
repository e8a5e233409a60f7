//! `iron3d mods …`: list, check, enable, disable, order, explain, conflicts, new, pack,
//! install. Every command names the mods folder and the user's list it worked on.

use crate::mods::{ActiveMods, ModArgs, environment, locate_mods_dir, target_name, user_list_path};
use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use iron3d_mods::{InstallLimits, ModDir, ModList, PluginBinary};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where the mods commands look.
#[derive(Clone, Debug, Default, Args)]
pub struct ModsWhere {
    /// Folder of installed mods (default: $IRON3D_MODS_DIR, else `mods/` beside `config/`).
    #[arg(long, value_name = "DIR", global = true)]
    pub mods_dir: Option<PathBuf>,
    /// The mod list to read and edit (default: $XDG_CONFIG_HOME/iron3d/mods.toml).
    #[arg(long, value_name = "FILE", global = true)]
    pub list: Option<PathBuf>,
}

impl ModsWhere {
    fn root(&self) -> PathBuf {
        locate_mods_dir(self.mods_dir.as_deref())
    }

    fn list_path(&self) -> anyhow::Result<PathBuf> {
        match &self.list {
            Some(p) => Ok(p.clone()),
            None => user_list_path().context(
                "no user configuration directory (set XDG_CONFIG_HOME or HOME, or pass --list FILE)",
            ),
        }
    }

    fn list(&self) -> anyhow::Result<(PathBuf, ModList)> {
        let path = self.list_path()?;
        let list = ModList::load(&path)?;
        Ok((path, list))
    }
}

/// `iron3d mods` subcommands.
#[derive(Debug, Subcommand)]
pub enum ModsCommand {
    /// Every installed mod: enabled or not, its load position, what it provides (native
    /// code marked), and why a mod is refused.
    List {
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Resolves the enabled mods and checks their plugins' hashes; exit 1 when a mod is
    /// refused.
    Check,
    /// Adds a mod to the end of your list.
    Enable {
        /// The mod's id.
        id: String,
    },
    /// Removes a mod from your list.
    Disable {
        /// The mod's id.
        id: String,
    },
    /// Shows the resolved load order; with ID and POSITION, moves ID in your list first.
    Order {
        /// The mod to move.
        id: Option<String>,
        /// Its new 1-based position in your list.
        #[arg(requires = "id")]
        position: Option<usize>,
    },
    /// Who provides a file or an archive entry (`PATH` or `ARCHIVE:ENTRY`) and whom it
    /// shadows.
    Explain {
        /// A game path (`Iron_3D.ini`, `MISSIONS/M1/mission.cfg`) or `ARCHIVE:ENTRY`
        /// (`Textures.lib:GRASS.0`).
        target: String,
        /// The game directory (default: the embedded demo).
        #[arg(long)]
        game_dir: Option<PathBuf>,
        /// The mods to lay over it (default: your list).
        #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
        mods: Option<Vec<String>>,
    },
    /// Every file and archive entry provided by more than one layer, with all providers
    /// (the last one wins).
    Conflicts {
        /// The game directory (default: the embedded demo).
        #[arg(long)]
        game_dir: Option<PathBuf>,
        /// The mods to lay over it (default: your list).
        #[arg(long, value_name = "ID,ID,...", value_delimiter = ',')]
        mods: Option<Vec<String>>,
    },
    /// Creates a new mod folder: a manifest, a data folder and, with --plugin, a plugin
    /// crate that builds against iron3d-abi only.
    New {
        /// The new mod's id (`[a-z0-9][a-z0-9-]*`).
        id: String,
        /// Also a plugin for this slot (terrain ai control effects audio render net input).
        #[arg(long, value_name = "SLOT")]
        plugin: Option<String>,
    },
    /// Packs a mod into a distributable `.tar.gz` with its manifest and hashes (a plugin
    /// built from source is replaced by its built library and SHA-256).
    Pack {
        /// The mod's id.
        id: String,
        /// The archive to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Verifies a mod archive and unpacks it into the mods folder (nothing is written when
    /// a check fails).
    Install {
        /// The archive (`iron3d mods pack` output).
        file: PathBuf,
    },
}

/// Runs one `iron3d mods` command.
///
/// # Errors
/// What the command could not do, with its cause chain.
pub fn run(cmd: ModsCommand, at: &ModsWhere, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    match cmd {
        ModsCommand::List { json } => list(at, json, out),
        ModsCommand::Check => check(at, out),
        ModsCommand::Enable { id } => {
            let root = at.root();
            let discovery = iron3d_mods::discover(&root);
            if discovery.get(&id).is_none() {
                bail!(
                    "no mod \"{id}\" in {}: install it first (`iron3d mods install FILE`) or check the id with `iron3d mods list`",
                    root.display()
                );
            }
            let (path, mut list) = at.list()?;
            if list.enable(&id)? {
                list.save(&path)?;
                writeln!(
                    out,
                    "enabled {id} (position {}) in {}",
                    list.enabled().len(),
                    path.display()
                )?;
            } else {
                writeln!(out, "{id} is already enabled in {}", path.display())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Disable { id } => {
            let (path, mut list) = at.list()?;
            if list.disable(&id) {
                list.save(&path)?;
                writeln!(out, "disabled {id} in {}", path.display())?;
            } else {
                writeln!(out, "{id} was not enabled in {}", path.display())?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Order { id, position } => {
            let (path, mut list) = at.list()?;
            if let (Some(id), Some(pos)) = (&id, position) {
                if pos == 0 {
                    bail!("positions start at 1");
                }
                list.move_to(id, pos - 1)?;
                list.save(&path)?;
                writeln!(out, "moved {id} to position {pos} in {}", path.display())?;
            }
            let active = ActiveMods::load(&at.root(), list.enabled())?;
            writeln!(out, "your order: {}", list.enabled().join(", "))?;
            writeln!(out, "load order (the last wins):")?;
            for (n, m) in active.loaded().enumerate() {
                writeln!(out, "  {}. {} {}", n + 1, m.manifest.id, m.manifest.version)?;
            }
            for r in &active.refused {
                writeln!(out, "refused: {r}")?;
            }
            for w in &active.warnings {
                writeln!(out, "warning: {w}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Explain {
            target,
            game_dir,
            mods,
        } => {
            let (vfs, cache) = layered(at, game_dir, mods, out)?;
            let (path, entry) = match target.split_once(':') {
                Some((p, e)) => (p, Some(e)),
                None => (target.as_str(), None),
            };
            let gp = iron3d_vfs::GamePath::parse(path)?;
            let p = vfs.explain(&gp, entry.map(str::as_bytes), &cache)?;
            writeln!(out, "{p}")?;
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Conflicts { game_dir, mods } => {
            let (vfs, cache) = layered(at, game_dir, mods, out)?;
            let conflicts = vfs.conflicts(&cache)?;
            if conflicts.is_empty() {
                writeln!(
                    out,
                    "no conflicts: no file or entry is provided by two layers"
                )?;
            }
            for c in &conflicts {
                writeln!(out, "{c}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::New { id, plugin } => {
            let dir = new_mod(&at.root(), &id, plugin.as_deref())?;
            writeln!(out, "created {}", dir.display())?;
            if plugin.is_some() {
                writeln!(
                    out,
                    "build it: cargo build --release --manifest-path {}/Cargo.toml",
                    dir.display()
                )?;
            }
            writeln!(out, "enable it: iron3d mods enable {id}")?;
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Pack { id, output } => {
            let root = at.root();
            let m = ModDir::open(&root.join(&id))?;
            let report = pack(&m, &output)?;
            writeln!(
                out,
                "packed {} {} into {}: {} files, {} bytes, sha256 {}",
                report.id,
                report.version,
                report.archive.display(),
                report.files,
                report.bytes,
                report.sha256
            )?;
            Ok(ExitCode::SUCCESS)
        }
        ModsCommand::Install { file } => {
            let root = at.root();
            let done = iron3d_mods::install(&file, &root, InstallLimits::default())?;
            writeln!(
                out,
                "installed {} {} into {}; enable it with `iron3d mods enable {}`",
                done.id,
                done.version,
                done.path.display(),
                done.id
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The game directory with the chosen mods laid over it, and a cache to read it.
fn layered(
    at: &ModsWhere,
    game_dir: Option<PathBuf>,
    mods: Option<Vec<String>>,
    out: &mut dyn Write,
) -> anyhow::Result<(iron3d_vfs::Vfs, iron3d_vfs::ArchiveCache)> {
    let game_dir = match game_dir {
        Some(d) => d,
        None => {
            crate::demo_cli::cached(
                &crate::demo_cache_root(),
                1,
                iron3d_demo::Profile::Demo,
                out,
            )?
            .0
        }
    };
    let args = ModArgs {
        mods,
        mods_dir: Some(at.root()),
    };
    let requested = match args.requested() {
        Some(r) => r,
        None => at.list()?.1.enabled().to_vec(),
    };
    let active = ActiveMods::load(&at.root(), &requested)?;
    for r in &active.refused {
        writeln!(out, "refused: {r}")?;
    }
    let vfs = iron3d_session::game_vfs(&game_dir, &active.overlays());
    Ok((
        vfs,
        iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 64 << 20),
    ))
}

fn list(at: &ModsWhere, json: bool, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let root = at.root();
    let (list_path, list) = at.list()?;
    let active = ActiveMods::load(&root, list.enabled())?;
    let position = |id: &str| active.ids().iter().position(|x| x == id).map(|p| p + 1);
    let refusal = |id: &str| {
        active
            .refused
            .iter()
            .filter(|r| r.id == id)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    if json {
        let mods: Vec<serde_json::Value> = active
            .discovery
            .mods
            .iter()
            .map(|m| {
                let id = m.manifest.id.as_str();
                let plugins: Vec<serde_json::Value> = m
                    .manifest
                    .plugins
                    .iter()
                    .map(|p| {
                        let loaded = active.plugins.iter().find(|lp| {
                            lp.mod_id == id && lp.plugin.decl == *p
                        });
                        serde_json::json!({
                            "target": target_name(&p.target),
                            "factory": p.factory,
                            "native": true,
                            "source_build": p.build,
                            "verified": loaded.map(|lp| matches!(lp.plugin.binary, PluginBinary::Shipped { .. })),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "id": id,
                    "version": m.manifest.version.to_string(),
                    "name": m.manifest.name,
                    "enabled": list.contains(id),
                    "position": position(id),
                    "refused": refusal(id),
                    "simulation": m.manifest.simulation,
                    "plugins": plugins,
                    "overlays": m.manifest.overlays.iter().map(|o| o.path.clone()).collect::<Vec<_>>(),
                    "path": m.root.display().to_string(),
                })
            })
            .collect();
        let broken: Vec<String> = active
            .discovery
            .broken
            .iter()
            .map(ToString::to_string)
            .collect();
        serde_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({
                "mods_dir": root.display().to_string(),
                "list": list_path.display().to_string(),
                "engine": environment().engine.to_string(),
                "interface": format!("{}.{}", iron3d_abi::ABI_MAJOR, iron3d_abi::ABI_MINOR),
                "mods": mods,
                "broken": broken,
            }),
        )?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "mods in {} (your list: {})",
        root.display(),
        list_path.display()
    )?;
    if active.discovery.mods.is_empty() {
        writeln!(out, "  none installed")?;
    }
    for m in &active.discovery.mods {
        let id = m.manifest.id.as_str();
        let state = match (position(id), list.contains(id)) {
            (Some(p), _) => format!("loads #{p}"),
            (None, true) => "refused".to_owned(),
            (None, false) => "disabled".to_owned(),
        };
        let mut what = Vec::new();
        if !m.manifest.overlays.is_empty() {
            what.push("data".to_owned());
        }
        for p in &m.manifest.plugins {
            let trust = if p.build.is_some() && !p.libraries.contains_key(&environment().platform) {
                "native code, built from source"
            } else {
                "native code"
            };
            what.push(format!(
                "{} {} ({trust})",
                target_name(&p.target),
                p.factory
            ));
        }
        if m.manifest.simulation {
            what.push("changes the simulation".to_owned());
        }
        writeln!(
            out,
            "  {id} {} [{state}] {}: {}",
            m.manifest.version,
            m.manifest.name,
            what.join(", ")
        )?;
        for r in refusal(id) {
            writeln!(out, "    refused: {r}")?;
        }
    }
    for b in &active.discovery.broken {
        writeln!(out, "  broken: {b}")?;
    }
    for r in active
        .refused
        .iter()
        .filter(|r| active.discovery.get(&r.id).is_none())
    {
        writeln!(out, "  refused: {r}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn check(at: &ModsWhere, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let root = at.root();
    let (list_path, list) = at.list()?;
    let active = ActiveMods::load(&root, list.enabled())?;
    writeln!(
        out,
        "checked {} enabled mod(s) of {} in {} (engine {}, plugin interface {}.{}, {})",
        list.enabled().len(),
        list_path.display(),
        root.display(),
        environment().engine,
        iron3d_abi::ABI_MAJOR,
        iron3d_abi::ABI_MINOR,
        environment().platform
    )?;
    active.report(out)?;
    for b in &active.discovery.broken {
        if !active.refused.iter().any(|r| r.id == b.id) {
            writeln!(out, "not enabled, broken: {b}")?;
        }
    }
    if active.refused.is_empty() {
        writeln!(out, "ok: load order {}", active.ids().join(", "))?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{} mod(s) refused", active.refused.len())?;
        Ok(ExitCode::FAILURE)
    }
}

/// The built library of a source plugin: in the mod's own `target/` (a crate built on
/// its own) or on the engine's plugin search paths (a crate of this workspace).
pub fn source_library(mod_root: &Path, library: &str) -> Option<PathBuf> {
    crate::mods::built_in_mod(mod_root, library)
        .or_else(|| crate::plugins::search_paths(&[]).resolve(library).ok())
}

/// Packs `m`; source plugins are staged as shipped libraries for this platform first.
fn pack(m: &ModDir, output: &Path) -> anyhow::Result<iron3d_mods::PackReport> {
    let platform = environment().platform;
    let sources: Vec<&str> = m
        .manifest
        .plugins
        .iter()
        .filter(|p| !p.libraries.contains_key(&platform))
        .filter_map(|p| p.build.as_deref())
        .collect();
    if sources.is_empty() {
        return Ok(iron3d_mods::pack(&m.root, output)?);
    }
    let stage_parent = tempfile::tempdir().context("staging folder for pack")?;
    let stage = stage_parent.path().join(&m.manifest.id);
    copy_tree(&m.root, &stage, 0)?;
    let manifest_path = stage.join("mod.toml");
    let mut text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    for lib in sources {
        let built = source_library(&m.root, lib).with_context(|| {
            format!(
                "mod \"{}\": plugin library {lib} is not built; build it first (cargo build --release -p <its crate>)",
                m.manifest.id
            )
        })?;
        let file_name = built
            .file_name()
            .context("library path without a file name")?
            .to_string_lossy()
            .into_owned();
        let rel = format!("lib/{platform}/{file_name}");
        let dest = stage.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(&built, &dest)
            .with_context(|| format!("copying {} into the package", built.display()))?;
        let sha = iron3d_mods::sha256_file(&dest)
            .with_context(|| format!("hashing {}", dest.display()))?;
        // The plugin table gains `library.<platform>` right after its `build` line: a
        // dotted key inside the same [[plugin]] table (a shipped library wins over the
        // source build).
        let build_line = format!("build = \"{lib}\"");
        let Some(at) = text.find(&build_line) else {
            bail!(
                "mod \"{}\": cannot place the packed library: write `{build_line}` on a line of its own in mod.toml",
                m.manifest.id
            );
        };
        let insert_at = at + build_line.len();
        text.insert_str(
            insert_at,
            &format!("\nlibrary.{platform} = {{ path = \"{rel}\", sha256 = \"{sha}\" }}"),
        );
    }
    // The result must still be a valid manifest of the same mod.
    iron3d_mods::Manifest::parse(&text, &manifest_path)
        .context("the packed manifest (with the built libraries)")?;
    std::fs::write(&manifest_path, text)?;
    Ok(iron3d_mods::pack(&stage, output)?)
}

/// Copies a mod folder for packing: no `target/`, no dotfiles, no symlinks, at most 32
/// levels deep.
fn copy_tree(from: &Path, to: &Path, depth: usize) -> anyhow::Result<()> {
    if depth > 32 {
        bail!("{}: folders nested deeper than 32 levels", from.display());
    }
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .with_context(|| format!("reading {}", from.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with('.') || (depth == 0 && n == "target") {
            continue;
        }
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_tree(&e.path(), &to.join(&name), depth + 1)?;
        } else if ty.is_file() {
            std::fs::copy(e.path(), to.join(&name))
                .with_context(|| format!("copying {}", e.path().display()))?;
        }
    }
    Ok(())
}

/// Creates `root/<id>` from the templates (refuses an existing folder).
pub fn new_mod(root: &Path, id: &str, plugin: Option<&str>) -> anyhow::Result<PathBuf> {
    iron3d_mods::check_id(id).map_err(|e| anyhow::anyhow!("bad mod id \"{id}\": {e}"))?;
    let slot = match plugin {
        Some(s) => Some(s.parse::<iron3d_mods::Slot>().ok().with_context(|| {
            format!("unknown slot \"{s}\"; expected one of terrain, ai, control, effects, audio, render, net, input")
        })?),
        None => None,
    };
    let dir = root.join(id);
    if dir.exists() {
        bail!(
            "{} already exists; choose another id or remove it",
            dir.display()
        );
    }
    let lib = format!("iron3d_mod_{}", id.replace('-', "_"));
    let engine = environment().engine;
    let mut manifest = format!(
        "# The manifest of mod {id}: see mods/README.md for every field.\n\
         id = \"{id}\"\n\
         version = \"0.1.0\"\n\
         name = \"{id}\"\n\
         authors = []\n\
         description = \"\"\n\
         license = \"MIT OR Apache-2.0\"\n\
         engine = \">={}.{}, <{}.{}\"\n\
         simulation = {}\n\
         {}\
         \n\
         # Files under data/ shadow the game's files of the same path; a folder named like\n\
         # an archive (data/Textures.lib/) holds entries that replace that archive's entries.\n\
         [[overlay]]\n\
         path = \"data\"\n",
        engine.major,
        engine.minor,
        engine.major,
        engine.minor + 1,
        slot.is_some_and(|s| !matches!(
            s,
            iron3d_mods::Slot::Render | iron3d_mods::Slot::Audio | iron3d_mods::Slot::Input
        )),
        if slot.is_some() {
            format!(
                "# The plugin interface major its plugin is built for (iron3d-abi).\ninterface = {}\n",
                iron3d_abi::ABI_MAJOR
            )
        } else {
            String::new()
        }
    );
    std::fs::create_dir_all(dir.join("data"))
        .with_context(|| format!("creating {}", dir.display()))?;
    std::fs::write(
        dir.join("data").join("README.txt"),
        "Put files here with the game's paths (case does not matter).\n",
    )?;
    if let Some(slot) = slot {
        let factory = slot.as_str();
        manifest.push_str(&format!(
            "\n# The plugin: built from source in this folder (`build`), packed with its\n\
             # SHA-256 by `iron3d mods pack`.\n\
             [[plugin]]\n\
             slot = \"{factory}\"\n\
             factory = \"{factory}\"\n\
             build = \"{lib}\"\n"
        ));
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::write(dir.join("Cargo.toml"), template_cargo(id, &lib)?)?;
        std::fs::write(dir.join("src").join("lib.rs"), template_lib(id, factory))?;
    }
    std::fs::write(dir.join("mod.toml"), &manifest)?;
    // What we wrote must be a valid mod.
    ModDir::open(&dir).context("the new mod's manifest")?;
    Ok(dir)
}

fn template_cargo(id: &str, lib: &str) -> anyhow::Result<String> {
    // The template builds against this checkout's iron3d-abi (a path dependency), on its
    // own (an empty [workspace]) into its own target/ folder.
    let abi = std::env::current_dir()?
        .ancestors()
        .map(|d| d.join("interfaces").join("abi"))
        .find(|d| d.join("Cargo.toml").is_file())
        .or_else(|| {
            crate::plugins::locate_registry(None).ok().and_then(|r| {
                r.parent()
                    .and_then(Path::parent)
                    .map(|root| root.join("interfaces").join("abi"))
            })
        })
        .context("iron3d-abi not found (run `iron3d mods new` inside the engine's checkout)")?;
    Ok(format!(
        "[package]\n\
         name = \"iron3d-mod-{id}\"\n\
         version = \"0.1.0\"\n\
         edition = \"2024\"\n\
         publish = false\n\
         \n\
         [lib]\n\
         name = \"{lib}\"\n\
         crate-type = [\"cdylib\"]\n\
         \n\
         [dependencies]\n\
         iron3d-abi = {{ path = \"{}\" }}\n\
         abi_stable = \"0.11\"\n\
         \n\
         # Its own workspace: builds into ./target, where the engine finds it.\n\
         [workspace]\n",
        abi.display()
    ))
}

fn template_lib(id: &str, factory: &str) -> String {
    let slot = match factory {
        "terrain" => "Terrain",
        "ai" => "Ai",
        "control" => "Control",
        "effects" => "Effects",
        "audio" => "Audio",
        "render" => "Render",
        "net" => "Net",
        _ => "Input",
    };
    let render = if factory == "render" {
        "\n    fn renderer(&mut self) -> Option<&mut dyn Renderer> {\n        Some(self)\n    }\n}\n\n\
         impl Renderer for ModPlugin {\n    fn draw(&mut self, frame: &RenderFrame) -> Result<RenderStats, PluginError> {\n        \
         // Draw `frame` here; this template only counts what it was given.\n        \
         Ok(RenderStats {\n            draw_items: u32::try_from(frame.items.len()).unwrap_or(u32::MAX),\n            objects: 0\n        })\n    }\n"
    } else {
        ""
    };
    let callbacks = if factory == "render" {
        "iron3d_abi::callbacks::RENDER"
    } else {
        "iron3d_abi::callbacks::UPDATE"
    };
    let imports = if factory == "render" {
        "use iron3d_abi::{\n    FactoryDescription, Host, Plugin, PluginDescription, PluginError, RenderFrame, RenderStats,\n    Renderer, SlotKind, StateBlob,\n};\n"
    } else {
        "use iron3d_abi::{\n    FactoryDescription, Host, Plugin, PluginDescription, PluginError, SlotKind, StateBlob,\n};\n"
    };
    format!(
        "//! Mod `{id}`: a plugin for the {factory} slot, built against iron3d-abi only.\n\
         //! See mods/README.md (writing a plugin mod) and plugins/AUTHORS.md.\n\
         \n\
         {imports}\
         \n\
         fn describe() -> PluginDescription {{\n    \
         PluginDescription::current(\n        \
         \"{id}\",\n        \
         env!(\"CARGO_PKG_VERSION\"),\n        \
         vec![FactoryDescription::new(\"{factory}\", SlotKind::{slot}, {callbacks})],\n    \
         )\n}}\n\
         \n\
         fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {{\n    \
         match factory {{\n        \
         \"{factory}\" => Ok(Box::new(ModPlugin::default())),\n        \
         other => Err(PluginError::no_factory(\"{id}\", other)),\n    \
         }}\n}}\n\
         \n\
         iron3d_abi::export_plugin!(describe = super::describe, create = super::create);\n\
         \n\
         /// The plugin's state: what it keeps across ticks and hands over on a hot swap.\n\
         #[derive(Default)]\n\
         pub struct ModPlugin {{\n    \
         ticks: u64,\n}}\n\
         \n\
         /// Format name of the saved state.\n\
         const STATE: &str = \"{id}\";\n\
         \n\
         impl Plugin for ModPlugin {{\n    \
         fn update(&mut self, _host: &mut Host<'_>) -> Result<(), PluginError> {{\n        \
         self.ticks += 1;\n        \
         Ok(())\n    \
         }}\n\
         \n    \
         fn save_state(&self) -> Result<StateBlob, PluginError> {{\n        \
         Ok(StateBlob::new(STATE, 1, self.ticks.to_le_bytes().to_vec()))\n    \
         }}\n\
         \n    \
         fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {{\n        \
         // A hot swap hands the old instance's state over: take our own format, start\n        \
         // fresh from any other (e.g. when replacing another plugin in the slot).\n        \
         if let Ok(bytes) = blob.expect(STATE, 1) {{\n            \
         if let Ok(b) = <[u8; 8]>::try_from(bytes) {{\n                \
         self.ticks = u64::from_le_bytes(b);\n            \
         }}\n        \
         }}\n        \
         Ok(())\n    \
         }}{render}\n}}\n"
    )
}
