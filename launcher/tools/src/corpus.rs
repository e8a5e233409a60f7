//! `iron3d corpus GAME_DIR [--json] [--roundtrip]`: runs every parser on every file of a
//! game directory (ours or an original one) by family, checks lossless rewrites, and
//! reports the reachability totals of every mission. Same directory → identical report.

use iron3d_mission::{GameData, mission_graph};
use iron3d_nres::{Nres, NresDocument};
use iron3d_rsli::Rsli;
use iron3d_vfs::{ArchiveCache, ArchiveKind, ReadMode, Vfs};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Results of one family of files or entries.
#[derive(Clone, Debug, Default)]
struct Family {
    items: u64,
    ok: u64,
    roundtrip_ok: u64,
    errors: Vec<String>,
    /// Variant label (pixel format, storage method, ...) → count, sorted.
    variants: BTreeMap<String, u64>,
}

#[derive(Default)]
struct Report {
    families: BTreeMap<&'static str, Family>,
    unclassified: Vec<String>,
    /// NRes entries by `type_id` label (`MESH`, `WEAR`, …, or `0x…`).
    tags: BTreeMap<String, u64>,
    /// Entries whose name or payload says one family and whose `type_id` another.
    tag_mismatches: Vec<TagMismatch>,
}

/// An NRes entry whose extension (or payload magic) names a family whose tag it lacks.
struct TagMismatch {
    at: String,
    family: &'static iron3d_nres::Family,
    found: iron3d_nres::TypeTag,
}

impl TagMismatch {
    /// Mismatches of families strict readers check make the corpus unclean.
    fn is_error(&self) -> bool {
        self.family.check != iron3d_nres::TagCheck::Unchecked
    }

    fn to_json(&self) -> Value {
        json!({
            "entry": self.at,
            "family": self.family.name,
            "expected": self.family.tag.to_string(),
            "found": self.found.to_string(),
            "checked": self.is_error(),
        })
    }
}

/// The label of a `type_id` in the report: the four characters, or the hex value.
fn tag_label(tag: iron3d_nres::TypeTag) -> String {
    match tag.fourcc() {
        Some(b) => b.escape_ascii().to_string(),
        None => format!("{:#x}", tag.value()),
    }
}

impl Report {
    /// Counts one NRes entry's tag and checks it against its name and payload.
    fn tag(&mut self, at: &str, name: &[u8], type_id: u32, data: &[u8]) {
        let found = iron3d_nres::TypeTag(type_id);
        *self.tags.entry(tag_label(found)).or_default() += 1;
        if let Some(family) = iron3d_nres::Family::infer(name, data) {
            if family.tag != found {
                self.tag_mismatches.push(TagMismatch {
                    at: at.to_owned(),
                    family,
                    found,
                });
            }
        }
    }

    /// Counts one item of `family` as variant `label`.
    fn variant(&mut self, family: &'static str, label: String) {
        *self
            .families
            .entry(family)
            .or_default()
            .variants
            .entry(label)
            .or_default() += 1;
    }

    /// Records one parse: `Ok(Some(rewritten))` also checks the lossless rewrite.
    fn record(
        &mut self,
        family: &'static str,
        at: &str,
        original: &[u8],
        result: Result<Option<Vec<u8>>, String>,
        roundtrip: bool,
    ) {
        let f = self.families.entry(family).or_default();
        f.items += 1;
        match result {
            Ok(rewritten) => {
                f.ok += 1;
                match rewritten {
                    Some(bytes) if roundtrip => {
                        if bytes == original {
                            f.roundtrip_ok += 1;
                        } else {
                            let off = bytes
                                .iter()
                                .zip(original)
                                .position(|(a, b)| a != b)
                                .unwrap_or(bytes.len().min(original.len()));
                            f.errors
                                .push(format!("{at}: rewrite differs at byte offset {off}"));
                        }
                    }
                    _ => {}
                }
            }
            Err(e) => f.errors.push(format!("{at}: {e}")),
        }
    }
}

/// The most files a corpus check lists (the original's Part 2 has 1,302; a directory of
/// more is not a game directory, and the check says so rather than walk a whole disk).
pub const MAX_CORPUS_FILES: usize = 100_000;

/// Every regular file under `root` (file symlinks included, directory symlinks not
/// followed, so a link cycle cannot loop), sorted; plus the directories that could not be
/// listed. Stops (`Err` with what was listed) once more than `max` files are listed or
/// `keep_going` says no (asked every 256 entries).
#[allow(
    clippy::type_complexity,
    reason = "the listing and the unreadable folders"
)]
fn files_within(
    root: &Path,
    max: usize,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>), (Vec<PathBuf>, Vec<PathBuf>)> {
    let mut out = Vec::new();
    let mut unreadable = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0u64;
    while let Some(dir) = stack.pop() {
        if out.len() > max || (seen % 256 == 0 && !keep_going()) {
            return Err((out, unreadable));
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            unreadable.push(dir);
            continue;
        };
        for e in rd {
            seen += 1;
            let Ok(e) = e else {
                unreadable.push(dir.clone());
                continue;
            };
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(_) if p.is_file() => out.push(p),
                Ok(_) => {}
                Err(_) => unreadable.push(p),
            }
        }
    }
    if out.len() > max {
        return Err((out, unreadable));
    }
    out.sort();
    unreadable.sort();
    unreadable.dedup();
    Ok((out, unreadable))
}

fn ext(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// A strict parse as the report records it: the parsed value's bytes written back (for
/// the round-trip check) or the error's message.
fn rewritten<T, E: std::fmt::Display>(
    parsed: Result<T, E>,
    to_bytes: impl FnOnce(&T) -> Vec<u8>,
) -> Result<Option<Vec<u8>>, String> {
    parsed
        .map(|v| Some(to_bytes(&v)))
        .map_err(|e| e.to_string())
}

/// Parses one archive entry by content and name; `typed` is the entry's
/// `(type_id, attr2)` (zeros for RsLi entries, which carry neither).
fn entry(
    report: &mut Report,
    archive_name: &str,
    at: &str,
    name: &str,
    typed: (u32, u32),
    data: &[u8],
    rt: bool,
) {
    let (type_id, attr2) = typed;
    let e = ext(name);
    if data.starts_with(b"Texm") {
        let parsed = iron3d_texm::Texm::parse(data);
        if let Ok(t) = &parsed {
            let format = t
                .header()
                .pixel_format()
                .map_or_else(|| "unknown".to_owned(), |f| format!("{f:?}"));
            let page = if t.page().is_some() { "+page" } else { "" };
            report.variant("texm", format!("{format}{page}"));
        }
        report.record(
            "texm",
            at,
            data,
            rewritten(parsed, iron3d_texm::Texm::to_bytes),
            rt,
        );
    } else if data.starts_with(b"RIFF") {
        report.record(
            "swav",
            at,
            data,
            rewritten(iron3d_aux::Wave::parse(data), iron3d_aux::Wave::to_bytes),
            rt,
        );
    } else if e == "msh" {
        report.record(
            "msh",
            at,
            data,
            rewritten(iron3d_msh::Msh::parse(data), iron3d_msh::Msh::to_bytes),
            rt,
        );
    } else if e == "bas" {
        report.record(
            "bas",
            at,
            data,
            rewritten(iron3d_aux::Base::parse(data), iron3d_aux::Base::to_bytes),
            rt,
        );
    } else if e == "ctl" {
        report.record(
            "ctld",
            at,
            data,
            rewritten(iron3d_aux::Ctld::parse(data), iron3d_aux::Ctld::to_bytes),
            rt,
        );
    } else if e == "cpt" {
        report.record(
            "ctpt",
            at,
            data,
            rewritten(iron3d_aux::Ctpt::parse(data), iron3d_aux::Ctpt::to_bytes),
            rt,
        );
    } else if e == "ndp" {
        report.record(
            "ndpr",
            at,
            data,
            rewritten(iron3d_aux::Ndpr::parse(data), iron3d_aux::Ndpr::to_bytes),
            rt,
        );
    } else if e == "wea" || type_id == iron3d_material::WEAR_TYPE {
        report.record(
            "wear",
            at,
            data,
            rewritten(
                iron3d_material::Wear::parse(data),
                iron3d_material::Wear::to_bytes,
            ),
            rt,
        );
    } else if type_id == iron3d_material::MAT0_TYPE {
        let r = iron3d_material::Mat0::parse(data, attr2)
            .map_err(|e| e.to_string())
            .and_then(|m| m.to_bytes(attr2).map(Some).map_err(|e| e.to_string()));
        report.record("mat0", at, data, r, rt);
    } else if type_id == iron3d_fxid::FXID_TYPE_ID
        || archive_name.eq_ignore_ascii_case("effects.rlb")
    {
        let r = iron3d_fxid::Fxid::parse(data)
            .map_err(|e| e.to_string())
            .and_then(|f| f.to_bytes().map(Some).map_err(|e| e.to_string()));
        report.record("fxid", at, data, r, rt);
    } else if archive_name.eq_ignore_ascii_case("Palettes.lib") {
        // A palette is 256 entries × 4 bytes, the same block format-0 Texm embeds.
        let r = if data.len() == 1024 {
            Ok(Some(data.to_vec()))
        } else {
            Err(format!("palette is {} bytes, expected 1024", data.len()))
        };
        report.record("palette", at, data, r, rt);
    } else if archive_name.eq_ignore_ascii_case("objects.rlb") {
        let r = iron3d_unitdat::ObjectRefList::parse(data)
            .map(|l| Some(l.to_bytes()))
            .map_err(|e| e.to_string());
        report.record("objects_rlb_entry", at, data, r, rt);
    } else {
        report.unclassified.push(at.to_owned());
    }
}

fn file(report: &mut Report, root: &Path, path: &Path, rt: bool) {
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let Ok(data) = std::fs::read(path) else {
        report
            .families
            .entry("unreadable")
            .or_default()
            .errors
            .push(rel);
        return;
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    let e = ext(&name);
    if lower == "land.msh" {
        let r = iron3d_landmsh::LandMsh::parse(&data)
            .map_err(|e| e.to_string())
            .and_then(|l| l.to_bytes().map(Some).map_err(|e| e.to_string()));
        return report.record("land_msh", &rel, &data, r, rt);
    }
    if lower == "land.map" {
        let r = iron3d_landmap::LandMapFile::parse(&data)
            .map(|l| Some(l.to_bytes()))
            .map_err(|e| e.to_string());
        return report.record("land_map", &rel, &data, r, rt);
    }
    match (e.as_str(), ArchiveKind::sniff(&data)) {
        (_, Some(ArchiveKind::Nres)) => nres_file(report, &rel, &name, &data, rt),
        (_, Some(ArchiveKind::Rsli)) => rsli_file(report, &rel, &name, &data, rt),
        ("tma", _) => {
            let r = iron3d_tma::Tma::parse(&data)
                .map_err(|e| e.to_string())
                .and_then(|t| t.to_bytes().map(Some).map_err(|e| e.to_string()));
            report.record("tma", &rel, &data, r, rt);
        }
        ("dat", _) => report.record(
            "unit_dat",
            &rel,
            &data,
            rewritten(
                iron3d_unitdat::UnitDat::parse(&data),
                iron3d_unitdat::UnitDat::to_bytes,
            ),
            rt,
        ),
        ("lst", _) if lower == "builddat.lst" => report.record(
            "builddat",
            &rel,
            &data,
            iron3d_config::BuildDat::parse(&data, &rel)
                .map(|b| Some(b.to_bytes()))
                .map_err(|e| e.to_string()),
            rt,
        ),
        ("ini", _) if lower == "comp.ini" => {
            let r =
                iron3d_registry::Registry::parse(&data, &rel, iron3d_registry::Dialect::CompIni)
                    .map(|g| Some(g.to_bytes()))
                    .map_err(|e| e.to_string());
            report.record("comp_ini", &rel, &data, r, rt);
        }
        ("cfg", _) if ["mission.cfg", "briefing.cfg", "messages.cfg"].contains(&lower.as_str()) => {
            report.record(
                "cfg_blocks",
                &rel,
                &data,
                iron3d_config::BlockFile::parse(&data, &rel)
                    .map(|b| Some(b.to_bytes()))
                    .map_err(|e| e.to_string()),
                rt,
            )
        }
        ("ini" | "cfg", _) => report.record(
            "ini",
            &rel,
            &data,
            iron3d_config::IniDocument::parse(&data, &rel)
                .map(|d| Some(d.to_bytes()))
                .map_err(|e| e.to_string()),
            rt,
        ),
        // Compiled scripts and their variable declarations (FORMATS §11.10, §11.11).
        ("scr", _) => report.record(
            "scr",
            &rel,
            &data,
            rewritten(
                iron3d_aux::Script::parse(&data),
                iron3d_aux::Script::to_bytes,
            ),
            rt,
        ),
        ("var", _) => report.record(
            "varset",
            &rel,
            &data,
            rewritten(
                iron3d_aux::Varset::parse(&data),
                iron3d_aux::Varset::to_bytes,
            ),
            rt,
        ),
        // The project's mission text files (`plugins/ai`): parsed, never rewritten.
        ("txt", _) if lower == "objectives.txt" => report.record(
            "objectives",
            &rel,
            &data,
            iron3d_config::objectives::Objectives::parse(&data, &rel)
                .map(|_| None)
                .map_err(|e| e.to_string()),
            rt,
        ),
        ("txt", _) if lower == "orders.txt" => report.record(
            "orders",
            &rel,
            &data,
            iron3d_config::orders::parse(&data, &rel)
                .map(|_| None)
                .map_err(|e| e.to_string()),
            rt,
        ),
        // Loose WEAR tables, e.g. a mission's `Land1.wea` / `Land2.wea` (FORMATS §6).
        ("wea", _) => report.record(
            "wear",
            &rel,
            &data,
            rewritten(
                iron3d_material::Wear::parse(&data),
                iron3d_material::Wear::to_bytes,
            ),
            rt,
        ),
        _ => report.unclassified.push(rel),
    }
}

/// An NRes archive: the archive itself (rewritten byte for byte), each entry's tag and
/// each entry through its own reader.
fn nres_file(report: &mut Report, rel: &str, name: &str, data: &[u8], rt: bool) {
    let doc = NresDocument::from_bytes(data)
        .map(|d| Some(d.to_bytes()))
        .map_err(|e| e.to_string());
    report.record("nres", rel, data, doc, rt);
    if let Ok(n) = Nres::parse(data) {
        for en in n.entries() {
            let ename = String::from_utf8_lossy(en.name()).into_owned();
            report.tag(
                &format!("{rel}:{ename}"),
                en.name(),
                en.type_id(),
                en.data(),
            );
            entry(
                report,
                name,
                &format!("{rel}:{ename}"),
                &ename,
                (en.type_id(), en.attr2()),
                en.data(),
                rt,
            );
        }
    }
}

/// An RsLi library: the library (rewritten), each entry decoded and read.
fn rsli_file(report: &mut Report, rel: &str, name: &str, data: &[u8], rt: bool) {
    let parsed = Rsli::parse(data);
    report.record(
        "rsli",
        rel,
        data,
        parsed
            .as_ref()
            .map(|r| Some(r.to_bytes()))
            .map_err(|e| e.to_string()),
        rt,
    );
    if let Ok(r) = parsed {
        for en in r.entries() {
            let ename = String::from_utf8_lossy(en.name()).into_owned();
            let at = format!("{rel}:{ename}");
            report.variant("rsli", format!("method:{:?}", en.method()));
            match r.decode(en) {
                Ok(bytes) => entry(report, name, &at, &ename, (0, 0), &bytes, rt),
                Err(err) => report
                    .families
                    .entry("rsli_entry")
                    .or_default()
                    .errors
                    .push(format!("{at}: {err}")),
            }
        }
    }
}

/// Builds the report as JSON (stable key order), with a progress bar on the terminal
/// for a directory of more than 200 files.
pub fn report(game_dir: &Path, roundtrip: bool) -> anyhow::Result<Value> {
    let mut bar: Option<indicatif::ProgressBar> = None;
    let v = report_with(game_dir, roundtrip, &mut |done, total| {
        let pb = bar.get_or_insert_with(|| {
            if total > 200 {
                indicatif::ProgressBar::new(total)
            } else {
                indicatif::ProgressBar::hidden()
            }
        });
        pb.set_position(done);
        true
    });
    if let Some(pb) = bar {
        pb.finish_and_clear();
    }
    v
}

/// [`report`] telling `progress` how far it came: `(0, 0)` while the files are listed,
/// then `(files read, files in all)` before the first file and after each one (the
/// missions' graphs follow the last). The check stops with an error saying it was
/// cancelled as soon as `progress` returns `false`, and refuses a directory of more
/// than [`MAX_CORPUS_FILES`] files.
pub fn report_with(
    game_dir: &Path,
    roundtrip: bool,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> anyhow::Result<Value> {
    if !game_dir.is_dir() {
        anyhow::bail!("{}: not a directory", game_dir.display());
    }
    let mut r = Report::default();
    let stop = || anyhow::anyhow!("{}: the corpus check was cancelled", game_dir.display());
    let (all, unlisted) = match files_within(game_dir, MAX_CORPUS_FILES, &mut || progress(0, 0)) {
        Ok(f) => f,
        Err((listed, _)) if listed.len() > MAX_CORPUS_FILES => anyhow::bail!(
            "{}: more than {MAX_CORPUS_FILES} files: not a game directory (the original has about 1,300)",
            game_dir.display()
        ),
        Err(_) => return Err(stop()),
    };
    for d in unlisted {
        let rel = d.strip_prefix(game_dir).unwrap_or(&d).display().to_string();
        r.families
            .entry("unreadable")
            .or_default()
            .errors
            .push(format!("{rel}: cannot be listed"));
    }
    let total = all.len() as u64;
    if !progress(0, total) {
        return Err(stop());
    }
    for (k, p) in all.iter().enumerate() {
        if p.file_name()
            .is_none_or(|n| n != iron3d_demo::MANIFEST_NAME)
        {
            file(&mut r, game_dir, p, roundtrip);
        }
        if !progress(k as u64 + 1, total) {
            return Err(stop());
        }
    }
    let vfs = Vfs::new(game_dir);
    let cache = ArchiveCache::new(ReadMode::Strict, 256 << 20);
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let _scope = cache.scope();
    let mut missions = BTreeMap::new();
    for p in all.iter().filter(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("data.tma"))
    }) {
        let rel = p.strip_prefix(game_dir).unwrap_or(p).display().to_string();
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(tma) = iron3d_tma::Tma::parse(&bytes) else {
            continue;
        };
        let g = mission_graph(&data, &rel, &tma);
        let c = g.counts;
        missions.insert(
            rel,
            json!({
                "objects": c.objects, "unit_refs": c.unit_refs, "components": c.components,
                "prototype_requests": c.prototype_requests, "msh": c.msh, "wear": c.wear,
                "material_slots": c.material_slots, "texture_requests": c.texture_requests,
                "lightmaps": c.lightmaps, "control_tables": c.control_tables,
                "control_points": c.control_points, "provider_tables": c.provider_tables,
                "failures": c.failures,
                "failures_detail": g.failures.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
            }),
        );
    }
    let families: BTreeMap<&str, Value> = r
        .families
        .iter()
        .map(|(k, f)| (*k, json!({"items": f.items, "ok": f.ok, "roundtrip_ok": f.roundtrip_ok, "errors": f.errors, "variants": f.variants})))
        .collect();
    Ok(json!({
        "files": all.len(),
        "families": families,
        "unclassified": r.unclassified,
        "nres_tags": r.tags,
        "tag_mismatches": r.tag_mismatches.iter().map(TagMismatch::to_json).collect::<Vec<_>>(),
        "missions": missions,
        "roundtrip_checked": roundtrip,
    }))
}

/// Whether a [`report`] is clean: no family error, no mission failure, no mismatch of a
/// checked tag (what `iron3d corpus` exits 0 on).
pub fn is_clean(v: &Value) -> bool {
    v["families"].as_object().is_some_and(|f| {
        f.values()
            .all(|x| x["errors"].as_array().is_some_and(Vec::is_empty))
    }) && v["missions"]
        .as_object()
        .is_some_and(|m| m.values().all(|x| x["failures"] == 0))
        && v["tag_mismatches"]
            .as_array()
            .is_some_and(|t| t.iter().all(|x| x["checked"] == false))
}

/// Every problem of a [`report`] as a line, in the report's order: the families'
/// errors, the missions' failures, the checked tag mismatches (empty when clean).
pub fn problems(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for x in v["families"]
        .as_object()
        .into_iter()
        .flat_map(|f| f.values())
    {
        out.extend(
            x["errors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(str::to_owned)),
        );
    }
    for (k, x) in v["missions"].as_object().into_iter().flatten() {
        let details: Vec<String> = x["failures_detail"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str().map(str::to_owned))
            .collect();
        if details.is_empty() && x["failures"] != 0 {
            out.push(format!("mission {k}: {} failures", x["failures"]));
        }
        out.extend(details);
    }
    for t in v["tag_mismatches"].as_array().into_iter().flatten() {
        if t["checked"] == true {
            out.push(format!(
                "{}: {} family expects tag {}, found {}",
                t["entry"].as_str().unwrap_or_default(),
                t["family"].as_str().unwrap_or_default(),
                t["expected"].as_str().unwrap_or_default(),
                t["found"].as_str().unwrap_or_default()
            ));
        }
    }
    out
}

/// `corpus GAME_DIR [--json] [--roundtrip]`.
pub fn run(
    game_dir: &Path,
    json_out: bool,
    roundtrip: bool,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    let v = report(game_dir, roundtrip)?;
    let clean = is_clean(&v);
    if json_out {
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "{}: {} files", game_dir.display(), v["files"])?;
        if let Some(f) = v["families"].as_object() {
            for (k, x) in f {
                writeln!(
                    out,
                    "{k:<18} items={} ok={} roundtrip_ok={} errors={}",
                    x["items"],
                    x["ok"],
                    x["roundtrip_ok"],
                    x["errors"].as_array().map_or(0, Vec::len)
                )?;
                if let Some(vs) = x["variants"].as_object().filter(|v| !v.is_empty()) {
                    let list: Vec<String> = vs.iter().map(|(k, n)| format!("{k}={n}")).collect();
                    writeln!(out, "  variants: {}", list.join(" "))?;
                }
                for e in x["errors"].as_array().into_iter().flatten() {
                    writeln!(out, "  error: {}", e.as_str().unwrap_or_default())?;
                }
            }
        }
        if let Some(m) = v["missions"].as_object() {
            for (k, x) in m {
                writeln!(
                    out,
                    "mission {k}: objects={} msh={} textures={} failures={}",
                    x["objects"], x["msh"], x["texture_requests"], x["failures"]
                )?;
                for e in x["failures_detail"].as_array().into_iter().flatten() {
                    writeln!(out, "{}", e.as_str().unwrap_or_default())?;
                }
            }
        }
        if let Some(tags) = v["nres_tags"].as_object() {
            let list: Vec<String> = tags.iter().map(|(k, n)| format!("{k}={n}")).collect();
            writeln!(out, "nres tags: {}", list.join(" "))?;
        }
        for t in v["tag_mismatches"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "tag mismatch{}: {}: {} family expects {}, found {}",
                if t["checked"] == true {
                    ""
                } else {
                    " (unchecked family)"
                },
                t["entry"].as_str().unwrap_or_default(),
                t["family"].as_str().unwrap_or_default(),
                t["expected"].as_str().unwrap_or_default(),
                t["found"].as_str().unwrap_or_default()
            )?;
        }
        writeln!(
            out,
            "unclassified: {}",
            v["unclassified"].as_array().map_or(0, Vec::len)
        )?;
    }
    Ok(clean)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

    #[test]
    fn the_walk_lists_files_sorted_and_does_not_follow_directory_links() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        std::fs::write(d.path().join("sub/b.ini"), b"").unwrap();
        std::fs::write(d.path().join("a.ini"), b"").unwrap();
        std::os::unix::fs::symlink(d.path(), d.path().join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a.ini"), d.path().join("c.ini")).unwrap();
        let (files, unreadable) = super::files_within(d.path(), 10, &mut || true).unwrap();
        let rel: Vec<_> = files
            .iter()
            .map(|p| {
                p.strip_prefix(d.path())
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(rel, ["a.ini", "c.ini", "sub/b.ini"]);
        assert!(unreadable.is_empty());
    }

    /// The progress callback sees every file counted and may stop the check; a broken
    /// file is a problem named with its place, a clean directory has none.
    #[test]
    fn progress_counts_every_file_stops_on_request_and_problems_name_the_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.ini"), b"[X]\nk=1\n").unwrap();
        std::fs::write(d.path().join("b.ini"), b"[Y]\n").unwrap();
        let mut seen = Vec::new();
        let v = super::report_with(d.path(), false, &mut |done, total| {
            seen.push((done, total));
            true
        })
        .unwrap();
        assert_eq!(
            seen,
            [(0, 0), (0, 2), (1, 2), (2, 2)],
            "listing, then each file"
        );
        assert!(super::is_clean(&v), "{v}");
        assert!(super::problems(&v).is_empty());
        let stopped = super::report_with(d.path(), false, &mut |done, _| done < 1).unwrap_err();
        assert!(stopped.to_string().contains("cancelled"), "{stopped}");
        // The listing stops past its limit, or when asked to.
        assert!(super::files_within(d.path(), 1, &mut || true).is_err());
        assert!(super::files_within(d.path(), 2, &mut || true).is_ok());
        assert!(super::files_within(d.path(), 2, &mut || false).is_err());
        // A truncated NRes archive is a problem naming it.
        std::fs::write(d.path().join("broken.lib"), b"NRes\x00\x01").unwrap();
        let v = super::report_with(d.path(), false, &mut |_, _| true).unwrap();
        assert!(!super::is_clean(&v));
        let p = super::problems(&v);
        assert!(p.iter().any(|l| l.contains("broken.lib")), "{p:?}");
    }
}
