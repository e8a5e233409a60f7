//! `iron3d mods …`: list, check, enable, disable, order, explain, conflicts, new, pack,
//! install. Every command names the mods folder and the user's list it worked on.
//!
//! What the commands print passes through [`Escaping`]: a control character that a mod
//! folder, a manifest's text or an archive put in a name (a terminal escape code) is
//! shown as `\u{1b}`, never sent to the terminal (`list --json` is escaped by JSON
//! itself). Errors are escaped where they are made (`iron3d_mods::ModError`).

use crate::mods::{
    ActiveMods, ModArgs, environment, locate_mods_dir, refusal_lines, target_name, user_list_path,
};
use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use iron3d_mods::{InstallLimits, ModDir, ModList, PluginBinary};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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
    /// The `--mods-dir` / `--list` options as given, for the hints a command prints (a
    /// hint without them would look in another folder and fail).
    fn options(&self) -> String {
        let mut o = String::new();
        if let Some(d) = &self.mods_dir {
            o.push_str(&format!(
                " --mods-dir {}",
                shell_word(&d.display().to_string())
            ));
        }
        if let Some(l) = &self.list {
            o.push_str(&format!(" --list {}", shell_word(&l.display().to_string())));
        }
        o
    }

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
    if let ModsCommand::List { json: true } = cmd {
        return list(at, true, out);
    }
    let mut escaping = Escaping { inner: out };
    run_escaped(cmd, at, &mut escaping)
}

/// Writes through to `inner` with every control character except newline and tab (and
/// every bidirectional-text control) shown as `\u{…}` ([`iron3d_mods::escaped`]).
pub struct Escaping<'a> {
    /// Where the text goes.
    pub inner: &'a mut dyn Write,
}

impl Write for Escaping<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => {
                for piece in text.split_inclusive(['\n', '\t']) {
                    let (body, end) = match piece.strip_suffix(['\n', '\t']) {
                        Some(body) => (body, &piece[body.len()..]),
                        None => (piece, ""),
                    };
                    self.inner
                        .write_all(iron3d_mods::escaped(body).as_bytes())?;
                    self.inner.write_all(end.as_bytes())?;
                }
            }
            // Not UTF-8 (or a character cut between two writes): only the ASCII
            // control bytes are escaped.
            Err(_) => {
                for &b in buf {
                    if (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f {
                        write!(self.inner, "\\u{{{b:x}}}")?;
                    } else {
                        self.inner.write_all(&[b])?;
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn run_escaped(cmd: ModsCommand, at: &ModsWhere, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    match cmd {
        ModsCommand::List { json } => list(at, json, out),
        ModsCommand::Check => check(at, out),
        ModsCommand::Enable { id } => enable(at, &id, out),
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
            let active = ActiveMods::load(&at.root(), list.enabled(), &environment());
            writeln!(out, "your order: {}", list.enabled().join(", "))?;
            writeln!(out, "load order (the last wins):")?;
            for (n, m) in active.loaded().enumerate() {
                writeln!(out, "  {}. {} {}", n + 1, m.manifest.id, m.manifest.version)?;
            }
            for r in refusal_lines(&active.refused) {
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
            let options = at.options();
            writeln!(out, "enable it: iron3d mods enable {id}{options}")?;
            // `play --mods` reads the mods folder from --mods-dir too (not --list).
            let play_dir = at
                .mods_dir
                .as_ref()
                .map(|d| format!(" --mods-dir {}", shell_word(&d.display().to_string())))
                .unwrap_or_default();
            writeln!(
                out,
                "or try it once: iron3d play --mods {id}{play_dir}{}",
                if plugin.as_deref() == Some("render") {
                    format!(" --renderer {id}")
                } else {
                    String::new()
                }
            )?;
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
            let done = with_interrupts(|cancel| {
                iron3d_mods::install_cancellable(&file, &root, InstallLimits::default(), cancel)
            })?;
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

/// `iron3d mods enable ID`: an installed mod goes last in the user's list.
fn enable(at: &ModsWhere, id: &str, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let root = at.root();
    let discovery = iron3d_mods::discover(&root);
    if discovery.get(id).is_none() {
        bail!(
            "no mod \"{id}\" in {}: install it first (`iron3d mods install FILE`) or check the id with `iron3d mods list`",
            root.display()
        );
    }
    let (path, mut list) = at.list()?;
    if list.enable(id)? {
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
    let active = ActiveMods::load(&at.root(), &requested, &environment());
    for r in refusal_lines(&active.refused) {
        writeln!(out, "refused: {r}")?;
    }
    let vfs = iron3d_session::game_vfs(&game_dir, &crate::mods::overlays(&active));
    Ok((
        vfs,
        iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 64 << 20),
    ))
}

/// What a mod brings, as the text listing says it: data, each plugin with its kind of
/// code, and whether it changes the simulation.
fn what_it_brings(m: &iron3d_mods::ModDir) -> Vec<String> {
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
    what
}

fn list(at: &ModsWhere, json: bool, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let root = at.root();
    let (list_path, list) = at.list()?;
    let active = ActiveMods::load(&root, list.enabled(), &environment());
    let position = |id: &str| active.ids().iter().position(|x| x == id).map(|p| p + 1);
    let refusal = |id: &str| {
        active
            .refused
            .iter()
            .filter(|r| r.id == id)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    // In the text listing a dependency cycle is named in full once, at its first member
    // (the listing is sorted by id, so that one comes first); the others point to it.
    let short_refusal = |id: &str| {
        active
            .refused
            .iter()
            .filter(|r| r.id == id)
            .map(|r| match &r.reason {
                iron3d_mods::RefusalReason::Cycle { members, .. }
                    if members.first().is_some_and(|first| first != id) =>
                {
                    format!(
                        "part of the dependency cycle of {} mods shown at \"{}\"",
                        members.len(),
                        members[0]
                    )
                }
                _ => r.to_string(),
            })
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
        writeln!(
            out,
            "  {id} {} [{state}] {}: {}",
            m.manifest.version,
            m.manifest.name,
            what_it_brings(m).join(", ")
        )?;
        for r in short_refusal(id) {
            writeln!(out, "    refused: {r}")?;
        }
    }
    for b in &active.discovery.broken {
        writeln!(out, "  broken: {b}")?;
    }
    let not_installed: Vec<iron3d_mods::Refusal> = active
        .refused
        .iter()
        .filter(|r| active.discovery.get(&r.id).is_none())
        .cloned()
        .collect();
    for r in refusal_lines(&not_installed) {
        writeln!(out, "  refused: {r}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn check(at: &ModsWhere, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let root = at.root();
    let (list_path, list) = at.list()?;
    let active = ActiveMods::load(&root, list.enabled(), &environment());
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
    // `Behavior.ini` keys nothing reads: warnings, they refuse nothing.
    for m in active.loaded() {
        for w in iron3d_mods::config_key_warnings(m) {
            writeln!(out, "warning: {w}")?;
        }
    }
    let missing = missing_libraries(&active);
    for m in &missing {
        writeln!(out, "error: {m}")?;
    }
    if !missing.is_empty() {
        writeln!(
            out,
            "{} plugin librar{} missing: a run would put the slot's null plugin there",
            missing.len(),
            if missing.len() == 1 { "y" } else { "ies" }
        )?;
        return Ok(ExitCode::FAILURE);
    }
    if active.refused.is_empty() {
        writeln!(out, "ok: load order {}", active.ids().join(", "))?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{} mod(s) refused", active.refused.len())?;
        Ok(ExitCode::FAILURE)
    }
}

/// `word` quoted for a POSIX shell when it holds anything but plain path characters.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ',' | ':' | '+' | '=')
        })
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The built library of a source plugin: in the mod's own `target/` (or
/// `$CARGO_TARGET_DIR`) or on the engine's plugin search paths (a crate of this
/// workspace).
pub fn source_library(mod_root: &Path, library: &str) -> Option<PathBuf> {
    source_library_searched(mod_root, library).ok()
}

/// [`source_library`], or every path it tried, in order.
pub fn source_library_searched(mod_root: &Path, library: &str) -> Result<PathBuf, Vec<String>> {
    if let Some(p) = crate::mods::built_in_mod(mod_root, library) {
        return Ok(p);
    }
    let mut searched: Vec<String> = crate::mods::mod_build_candidates(mod_root, library)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let paths = crate::plugins::search_paths(&[]);
    match paths.resolve(library) {
        Ok(p) => Ok(p),
        Err(_) => {
            for dir in paths.dirs() {
                for c in iron3d_plugin_host::SearchPaths::candidates(library) {
                    searched.push(dir.join(c).display().to_string());
                }
            }
            Err(searched)
        }
    }
}

/// The loaded mods' plugins whose library cannot be found: one line each naming the mod,
/// the library and every path searched (a run would put the slot's null plugin there).
fn missing_libraries(active: &ActiveMods) -> Vec<String> {
    let mut missing = Vec::new();
    for p in &active.plugins {
        let found = match &p.plugin.binary {
            PluginBinary::Shipped { library_path, .. } => {
                if library_path.is_file() {
                    Ok(())
                } else {
                    Err(vec![library_path.display().to_string()])
                }
            }
            PluginBinary::Source { library } => {
                source_library_searched(&p.mod_root, library).map(|_| ())
            }
        };
        if let Err(searched) = found {
            missing.push(format!(
                "mod \"{}\": plugin library of {} ({}) not found; build it (cargo build --release in the mod's folder; with CARGO_TARGET_DIR set, that folder is searched too) — searched: {}",
                p.mod_id,
                target_name(&p.plugin.decl.target),
                p.plugin.decl.factory,
                searched.join(", ")
            ));
        }
    }
    missing
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
        let factory = template_factory(id, slot);
        manifest.push_str(&format!(
            "\n# The plugin: built from source in this folder (`build`), packed with its\n\
             # SHA-256 by `iron3d mods pack`.\n\
             [[plugin]]\n\
             slot = \"{}\"\n\
             factory = \"{factory}\"\n\
             build = \"{lib}\"\n",
            slot.as_str()
        ));
        std::fs::create_dir_all(dir.join("src"))?;
        std::fs::write(dir.join("Cargo.toml"), template_cargo(id, &lib)?)?;
        std::fs::write(dir.join("src").join("lib.rs"), template_lib(id, slot))?;
    }
    std::fs::write(dir.join("mod.toml"), &manifest)?;
    // What we wrote must be a valid mod.
    ModDir::open(&dir).context("the new mod's manifest")?;
    Ok(dir)
}

/// The template crate's `Cargo.toml`: a path dependency on this checkout's `iron3d-abi`
/// (a folder that builds on its own), its own workspace, its own `target/`.
fn template_cargo(id: &str, lib: &str) -> anyhow::Result<String> {
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
    let abi = abi.canonicalize().unwrap_or(abi);
    Ok(include_str!("templates/plugin_cargo.toml.in")
        .replace("@ID@", id)
        .replace("@LIB@", lib)
        .replace("@ABI@", &abi.display().to_string().replace('\\', "/")))
}

/// The template crate's `src/lib.rs` for `slot`: a counting plugin, or for the render
/// slot a renderer that draws a top-down map of the objects in view and captures it.
/// The factory is named after the slot, a renderer's after the mod (its renderer name).
fn template_lib(id: &str, slot: iron3d_mods::Slot) -> String {
    let kind = match slot {
        iron3d_mods::Slot::Terrain => "Terrain",
        iron3d_mods::Slot::Ai => "Ai",
        iron3d_mods::Slot::Control => "Control",
        iron3d_mods::Slot::Effects => "Effects",
        iron3d_mods::Slot::Audio => "Audio",
        iron3d_mods::Slot::Render => "Render",
        iron3d_mods::Slot::Net => "Net",
        iron3d_mods::Slot::Input => "Input",
    };
    let template = if slot == iron3d_mods::Slot::Render {
        include_str!("templates/render_lib.rs.in")
    } else {
        include_str!("templates/plugin_lib.rs.in")
    };
    template
        .replace("@ID@", id)
        .replace("@FACTORY@", &template_factory(id, slot))
        .replace("@SLOT_NAME@", slot.as_str())
        .replace("@SLOT@", kind)
}

/// The template's factory name: the slot's name, a renderer's the mod's id.
fn template_factory(id: &str, slot: iron3d_mods::Slot) -> String {
    if slot == iron3d_mods::Slot::Render {
        id.to_owned()
    } else {
        slot.as_str().to_owned()
    }
}

/// Runs `f` with SIGINT, SIGTERM and SIGHUP setting its cancel flag instead of ending the
/// process, so an install stops and removes its temporary folder (a second Ctrl-C ends
/// the process at once); the default actions are back when `f` returns.
fn with_interrupts<T>(f: impl FnOnce(&AtomicBool) -> T) -> T {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let cancel = Arc::new(AtomicBool::new(false));
    let mut ids = Vec::new();
    // A second Ctrl-C while the first is being handled: exit 130 at once.
    if let Ok(id) = signal_hook::flag::register_conditional_shutdown(SIGINT, 130, cancel.clone()) {
        ids.push(id);
    }
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        match signal_hook::flag::register(signal, cancel.clone()) {
            Ok(id) => ids.push(id),
            Err(e) => {
                tracing::warn!(signal, error = %e, "signal handler not installed: that signal ends the install without cleaning up (swept at the next start)")
            }
        }
    }
    let result = f(&cancel);
    for id in ids {
        signal_hook::low_level::unregister(id);
    }
    result
}
