//! `iron3d inspect material|texture|wear ARCHIVE NAME [--json]` and
//! `iron3d texture export ARCHIVE NAME -o out.png [--mip N]`.

use anyhow::Context;
use iron3d_fxid::Fxid;
use iron3d_material::{Mat0, Wear};
use iron3d_texm::Texm;
use iron3d_vfs::{ArchiveCache, ReadMode};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The decoded bytes of `name` in `archive` and its NRes attributes (zeros for RsLi).
pub fn entry(archive: &Path, name: &str) -> anyhow::Result<(Vec<u8>, [u32; 4])> {
    let cache = ArchiveCache::new(ReadMode::Compatible, 64 << 20);
    let handle = cache.open(archive)?;
    let index = handle
        .find(name.as_bytes())
        .with_context(|| format!("entry missing: '{name}' in archive {}", archive.display()))?;
    let attrs = handle.attrs(index).unwrap_or_default();
    let bytes = cache.read(archive, name.as_bytes())?;
    Ok((bytes.to_vec(), attrs))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn text(b: &[u8]) -> String {
    iron3d_material::decode_cp1251(b)
}

fn print(value: &Value, json_out: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    if json_out {
        writeln!(out, "{}", serde_json::to_string_pretty(value)?)?;
    } else if let Some(o) = value.as_object() {
        for (k, v) in o {
            writeln!(out, "{k}: {v}")?;
        }
    }
    Ok(())
}

/// `inspect texture`: header, levels and page rectangles.
pub fn texture(
    archive: &Path,
    name: &str,
    json_out: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name)?;
    let t = Texm::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let v = json!({
        "width": t.width(), "height": t.height(), "mip_count": t.mip_count(),
        "format": t.format().raw(),
        "levels": t.levels().map(|l| json!({"width": l.width(), "height": l.height(), "bytes": l.bytes().len()})).collect::<Vec<_>>(),
        "page_rects": t.page_rects().iter().map(|r| json!({"x": r.x, "y": r.y, "w": r.width, "h": r.height})).collect::<Vec<_>>(),
        "palette": t.palette().is_some(),
    });
    print(&v, json_out, out)
}

/// `inspect material`: MAT0 version (NRes attr2), metadata, phases and animation blocks.
pub fn material(
    archive: &Path,
    name: &str,
    json_out: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, attrs) = entry(archive, name)?;
    let m = Mat0::parse(&bytes, attrs[2])
        .with_context(|| format!("{}:{name} (version {})", archive.display(), attrs[2]))?;
    let md = m.metadata();
    let v = json!({
        "version": m.version(),
        "metadata": {"a": md.a, "b": md.b, "c_raw": md.c_raw, "d_raw": md.d_raw},
        "phases": m.phases().iter().map(|p| json!({"texture": text(p.texture_name()), "parameters": hex(p.parameters())})).collect::<Vec<_>>(),
        "animation_blocks": m.blocks().iter().map(|b| json!({
            "mode": b.mode(), "interpolation_mask": b.interpolation_mask(),
            "keys": b.keys().iter().map(|k| [k.k0, k.k1, k.k2]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    print(&v, json_out, out)
}

/// `inspect wear`: material rows and lightmaps (legacy ids kept).
pub fn wear(archive: &Path, name: &str, json_out: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name)?;
    let w = Wear::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let rows = |rows: &[iron3d_material::WearRow]| -> Vec<Value> {
        rows.iter()
            .map(|r| json!({"legacy_id": text(r.legacy_id()), "name": text(r.name())}))
            .collect()
    };
    let v = json!({ "materials": rows(w.materials()), "lightmaps": rows(w.lightmaps()) });
    print(&v, json_out, out)
}

/// `inspect fx`: header values and the command list with resource references.
pub fn fx(archive: &Path, name: &str, json_out: bool, out: &mut dyn Write) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name)?;
    let f = Fxid::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let v = json!({
        "time_mode": f.header.time_mode,
        "flags": f.header.flags,
        "duration_seconds": f.header.duration_seconds(),
        "commands": f.commands.iter().enumerate().map(|(i, c)| json!({
            "index": i,
            "opcode": c.opcode().as_u8(),
            "enabled": c.enabled(),
            "size": c.size(),
            "resource": c.resource().map(|r| json!({"archive": text(r.archive.value()), "name": text(r.name.value())})),
        })).collect::<Vec<_>>(),
    });
    print(&v, json_out, out)
}

/// `texture export`: one mip level as an RGBA8 PNG.
pub fn export_texture(
    archive: &Path,
    name: &str,
    mip: u32,
    output: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name)?;
    let t = Texm::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let img = t
        .decode_level(mip)
        .with_context(|| format!("{}:{name} mip {mip}", archive.display()))?;
    let file =
        std::fs::File::create(output).with_context(|| format!("creating {}", output.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), img.width(), img.height());
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(img.pixels())?;
    writeln!(
        out,
        "{}: {}x{} RGBA8 (mip {mip})",
        output.display(),
        img.width(),
        img.height()
    )?;
    Ok(())
}
