//! `iron3d archive …`: list, extract, check, roundtrip and pack NRes / RsLi archives.

use anyhow::{Context, bail};
use iron3d_nres::{NewEntry, Nres, NresDocument, NresWriter};
use iron3d_rsli::{EntrySpec, Method, Rsli, RsliBuilder};
use iron3d_vfs::ArchiveKind;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Strict or compatible reading for `list`, `extract` and `check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only fully valid archives.
    Strict,
    /// Named quirks of the original tolerated (and reported on stderr).
    Compat,
}

/// Archive names as text: printable ASCII kept, `\` doubled, every other byte `\xHH`.
pub fn escape_name(name: &[u8]) -> String {
    let mut s = String::with_capacity(name.len());
    for &b in name {
        match b {
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7E => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02X}")),
        }
    }
    s
}

fn read(path: &Path) -> anyhow::Result<(Vec<u8>, ArchiveKind)> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let kind = ArchiveKind::sniff(&data).with_context(|| {
        format!(
            "{}: neither NRes nor RsLi (first bytes {:02X?})",
            path.display(),
            &data[..data.len().min(4)]
        )
    })?;
    Ok((data, kind))
}

fn nres<'a>(data: &'a [u8], mode: Mode, path: &Path) -> anyhow::Result<Nres<'a>> {
    let options = match mode {
        Mode::Strict => iron3d_nres::ReadOptions::strict(),
        Mode::Compat => iron3d_nres::ReadOptions::compatible(),
    };
    let n = Nres::parse_with(data, options).with_context(|| format!("{}", path.display()))?;
    for d in n.diagnostics() {
        eprintln!("{}: compatible read: {d:?}", path.display());
    }
    Ok(n)
}

fn rsli<'a>(data: &'a [u8], mode: Mode, path: &Path) -> anyhow::Result<Rsli<'a>> {
    let options = match mode {
        Mode::Strict => iron3d_rsli::ReadOptions::default(),
        Mode::Compat => iron3d_rsli::ReadOptions::compatible(),
    };
    Rsli::parse_with(data, options).with_context(|| format!("{}", path.display()))
}

/// `list FILE [--json]`.
pub fn list(path: &Path, json_out: bool, mode: Mode, out: &mut dyn Write) -> anyhow::Result<()> {
    let (data, kind) = read(path)?;
    let (format, entries): (&str, Vec<Value>) = match kind {
        ArchiveKind::Nres => {
            let n = nres(&data, mode, path)?;
            let entries = n
                .entries()
                .map(|e| {
                    json!({
                        "index": e.index(), "name": escape_name(e.name()), "type_id": e.type_id(),
                        "attr1": e.attr1(), "attr2": e.attr2(), "attr3": e.attr3(), "size": e.size(),
                        "data_offset": e.data_offset(), "sort_index": e.sort_index(),
                    })
                })
                .collect();
            ("nres", entries)
        }
        ArchiveKind::Rsli => {
            let r = rsli(&data, mode, path)?;
            let entries = r
                .entries()
                .iter()
                .map(|e| {
                    json!({
                        "index": e.index(), "name": escape_name(e.name()), "flags": e.flags(),
                        "method": e.method().bits(), "unpacked_size": e.unpacked_size(),
                        "packed_size": e.packed_size(), "data_offset": e.data_offset_raw(),
                    })
                })
                .collect();
            ("rsli", entries)
        }
    };
    if json_out {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "format": format, "entries": entries }))?
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: {format}, {} entries",
        path.display(),
        entries.len()
    )?;
    for e in &entries {
        let fields: Vec<String> = e
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(k, _)| *k != "name" && *k != "index")
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect()
            })
            .unwrap_or_default();
        writeln!(
            out,
            "{:>5} {:<36} {}",
            e["index"],
            e["name"].as_str().unwrap_or_default(),
            fields.join(" ")
        )?;
    }
    Ok(())
}

/// `extract FILE NAME [-o OUT]`: the decoded payload (case-insensitive name).
pub fn extract(
    path: &Path,
    name: &str,
    output: Option<&Path>,
    mode: Mode,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (data, kind) = read(path)?;
    let bytes = match kind {
        ArchiveKind::Nres => {
            let n = nres(&data, mode, path)?;
            let e = n.find(name.as_bytes()).with_context(|| {
                format!("entry missing: '{name}' in archive {}", path.display())
            })?;
            e.data().to_vec()
        }
        ArchiveKind::Rsli => {
            let r = rsli(&data, mode, path)?;
            let e = r.find(name).with_context(|| {
                format!("entry missing: '{name}' in archive {}", path.display())
            })?;
            r.decode(e).with_context(|| format!("{}", path.display()))?
        }
    };
    match output {
        Some(p) => std::fs::write(p, &bytes).with_context(|| format!("writing {}", p.display()))?,
        None => out.write_all(&bytes)?,
    }
    Ok(())
}

fn progress(len: usize, what: &str) -> indicatif::ProgressBar {
    if len < 2000 {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len as u64);
    pb.set_message(what.to_owned());
    pb
}

/// `check FILE [--strict|--compat]`: validates the archive and decodes every entry.
/// Ok(false) with the reason on stderr when invalid.
pub fn check(path: &Path, mode: Mode, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let (data, kind) = read(path)?;
    let result: anyhow::Result<usize> = match kind {
        ArchiveKind::Nres => nres(&data, mode, path).map(|n| n.len()),
        ArchiveKind::Rsli => rsli(&data, mode, path).and_then(|r| {
            let pb = progress(r.len(), "decoding");
            for e in r.entries() {
                r.decode(e).with_context(|| format!("{}", path.display()))?;
                pb.inc(1);
            }
            pb.finish_and_clear();
            Ok(r.len())
        }),
    };
    match result {
        Ok(n) => {
            writeln!(
                out,
                "{}: valid ({n} entries, {})",
                path.display(),
                if mode == Mode::Strict {
                    "strict"
                } else {
                    "compatible"
                }
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("iron3d: invalid archive: {e:#}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `roundtrip FILE`: lossless rewrite; success only when byte-identical.
pub fn roundtrip(path: &Path, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let (data, kind) = read(path)?;
    let rewritten = match kind {
        ArchiveKind::Nres => {
            NresDocument::from_bytes_with(&data, iron3d_nres::ReadOptions::compatible())
                .with_context(|| format!("{}", path.display()))?
                .to_bytes()
        }
        ArchiveKind::Rsli => rsli(&data, Mode::Compat, path)?.to_bytes(),
    };
    if rewritten == data {
        writeln!(
            out,
            "{}: roundtrip byte-identical ({} bytes)",
            path.display(),
            data.len()
        )?;
        Ok(ExitCode::SUCCESS)
    } else {
        let at = rewritten
            .iter()
            .zip(&data)
            .position(|(a, b)| a != b)
            .unwrap_or(rewritten.len().min(data.len()));
        eprintln!(
            "iron3d: {}: roundtrip differs at byte offset {at} (input {} bytes, output {} bytes)",
            path.display(),
            data.len(),
            rewritten.len()
        );
        Ok(ExitCode::FAILURE)
    }
}

fn method_by_name(name: &str) -> anyhow::Result<Method> {
    Method::ALL
        .into_iter()
        .find(|m| m.name() == name)
        .with_context(|| {
            format!(
                "unknown method '{name}' (one of: {})",
                Method::ALL.map(|m| m.name()).join(", ")
            )
        })
}

fn u32_field(e: &Value, key: &str, at: usize) -> anyhow::Result<u32> {
    match e.get(key) {
        None => Ok(0),
        Some(v) => v
            .as_u64()
            .and_then(|v| u32::try_from(v).ok())
            .with_context(|| {
                format!("manifest entry {at}: '{key}' must be an unsigned 32-bit number")
            }),
    }
}

/// The `type_id` of manifest entry `at`: a number, a four-character tag (`"WEAR"`), or,
/// when omitted, the tag of the entry's family (FORMATS §1.7, [`iron3d_nres::Family::infer`]:
/// `.msh` → `MESH`, `.wea` → `WEAR`, `.bas` → `BASE`, …, a payload starting with `Texm`
/// → `Texm`; 0 when no family fits).
fn type_id_field(e: &Value, at: usize, name: &str, data: &[u8]) -> anyhow::Result<u32> {
    match e.get("type_id") {
        None => Ok(iron3d_nres::Family::infer_tag(name.as_bytes(), data).value()),
        Some(Value::String(t)) => iron3d_nres::TypeTag::parse(t)
            .map(iron3d_nres::TypeTag::value)
            .with_context(|| {
                format!(
                    "manifest entry {at} ({name}): 'type_id' \"{t}\" is neither a four-character tag \
                     starting with a letter (\"WEAR\") nor a number"
                )
            }),
        Some(_) => u32_field(e, "type_id", at),
    }
}

/// `pack --manifest M.json -o OUT [--dir DIR]`: builds an NRes or RsLi archive.
///
/// Manifest: `{"format": "nres"|"rsli", "seed": n (RsLi, optional), "entries": [{"name":
/// "…", "file": "relative/path", "type_id": n | "WEAR" (optional: see below), "attr1": n,
/// "attr2": n, "attr3": n (NRes), "method": "raw"|"lzss"|… (RsLi)}]}`; files are
/// relative to `--dir` (default: the manifest's directory). Entries are written in
/// manifest order. An NRes entry without `type_id` gets its family's tag (FORMATS §1.7):
/// by extension (`.msh` MESH, `.wea` WEAR, `.bas` BASE, `.cpt` CTPT, `.ndp` NDPR, `.ctl`
/// CTLD, `.wav` SWAV) or payload magic (`Texm`); MAT0 and FXID entries have neither, so
/// give them `"type_id": "MAT0"` / `"FXID"`.
pub fn pack(
    manifest: &Path,
    output: &Path,
    dir: Option<&Path>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("reading manifest {}", manifest.display()))?;
    let m: Value =
        serde_json::from_str(&text).with_context(|| format!("manifest {}", manifest.display()))?;
    let base: PathBuf = match dir {
        Some(d) => d.to_owned(),
        None => manifest.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    let entries = m["entries"].as_array().with_context(|| {
        format!(
            "manifest {}: 'entries' must be an array",
            manifest.display()
        )
    })?;
    let load = |e: &Value, at: usize| -> anyhow::Result<(String, Vec<u8>)> {
        let name = e["name"]
            .as_str()
            .with_context(|| format!("manifest entry {at}: 'name' missing"))?
            .to_owned();
        let file = e["file"]
            .as_str()
            .with_context(|| format!("manifest entry {at} ({name}): 'file' missing"))?;
        let data = std::fs::read(base.join(file))
            .with_context(|| format!("manifest entry {at} ({name}): reading {file}"))?;
        Ok((name, data))
    };
    let pb = progress(entries.len(), "packing");
    let bytes = match m["format"].as_str() {
        Some("nres") => {
            let mut w = NresWriter::new();
            for (i, e) in entries.iter().enumerate() {
                let (name, data) = load(e, i)?;
                let type_id = type_id_field(e, i, &name, &data)?;
                let entry = NewEntry::new(name.as_bytes(), type_id, data)
                    .with_context(|| format!("manifest entry {i} ({name})"))?
                    .with_attrs(
                        u32_field(e, "attr1", i)?,
                        u32_field(e, "attr2", i)?,
                        u32_field(e, "attr3", i)?,
                    );
                w.push(entry);
                pb.inc(1);
            }
            w.finish()?
        }
        Some("rsli") => {
            let mut b = RsliBuilder::new();
            if let Some(seed) = m.get("seed") {
                b.seed(
                    seed.as_u64()
                        .and_then(|v| u32::try_from(v).ok())
                        .context("manifest: 'seed' must be a u32")?,
                );
            }
            for (i, e) in entries.iter().enumerate() {
                let (name, data) = load(e, i)?;
                let method = method_by_name(e["method"].as_str().unwrap_or("raw"))
                    .with_context(|| format!("manifest entry {i} ({name})"))?;
                b.push(EntrySpec::new(name.as_bytes(), method, data));
                pb.inc(1);
            }
            b.build()?
        }
        other => bail!(
            "manifest {}: 'format' must be \"nres\" or \"rsli\", found {other:?}",
            manifest.display()
        ),
    };
    pb.finish_and_clear();
    std::fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    writeln!(
        out,
        "{}: {} entries, {} bytes",
        output.display(),
        entries.len(),
        bytes.len()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_escape_non_ascii_and_backslashes() {
        assert_eq!(escape_name(b"TEX\\A.txt"), "TEX\\\\A.txt");
        assert_eq!(escape_name(&[0x41, 0xC0, 0x00, 0x7F]), "A\\xC0\\x00\\x7F");
    }
}
