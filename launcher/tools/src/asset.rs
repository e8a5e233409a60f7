//! `iron3d inspect material|texture|wear ARCHIVE NAME [--json]` and
//! `iron3d texture export ARCHIVE NAME -o out.png [--mip N]`.

use anyhow::Context;
use iron3d_fxid::Fxid;
use iron3d_material::{Mat0, Wear};
use iron3d_msh::{Msh, SampleOptions, sample_all, world_matrices};
use iron3d_texm::Texm;
use iron3d_vfs::{ArchiveCache, ReadMode};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The decoded bytes of `name` in `archive` and its NRes attributes (zeros for RsLi).
/// Read with the compatible profile: an entry whose `type_id` is not `family`'s tag is
/// shown anyway, with a `[type_id]` warning on standard error.
pub fn entry(
    archive: &Path,
    name: &str,
    family: &iron3d_nres::Family,
) -> anyhow::Result<(Vec<u8>, [u32; 4])> {
    let cache = ArchiveCache::new(ReadMode::Compatible, 64 << 20);
    let handle = cache.open(archive)?;
    let index = handle
        .find(name.as_bytes())
        .with_context(|| format!("entry missing: '{name}' in archive {}", archive.display()))?;
    let attrs = handle.attrs(index).unwrap_or_default();
    let bytes = cache.read_as(archive, name.as_bytes(), family)?;
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
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::texm())?;
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
    let (bytes, attrs) = entry(archive, name, iron3d_nres::Family::mat0())?;
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
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::wear())?;
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
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::fxid())?;
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

/// `inspect model`: streams in physical order, nodes with parents and slots, counts.
pub fn model(
    archive: &Path,
    name: &str,
    json_out: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::mesh())?;
    let m = Msh::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let names: Vec<Option<String>> = m.node_names().map(|x| x.map(text)).collect();
    let v = json!({
        "type_order": m.type_order(),
        "node_count": m.node_count(),
        "vertex_count": m.vertex_count(),
        "index_count": m.indices().len(),
        "batch_count": m.batches().len(),
        "slot_count": m.slots().len(),
        "key_count": m.keys().len(),
        "frame_count": m.frame_count(),
        "nodes": m.nodes().enumerate().map(|(i, n)| json!({
            "index": i,
            "name": names.get(i).cloned().flatten(),
            "parent": n.parent(),
            "lod0_slots": (0..5).map(|g| n.slot(0, g)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    print(&v, json_out, out)
}

/// `model export`: LOD 0 of every node in the pose at time 0 as Wavefront OBJ
/// (`v`, `vt` when UVs exist, `vn` when normals exist, one `o` per node with geometry).
pub fn export_model(
    archive: &Path,
    name: &str,
    output: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::mesh())?;
    let m = Msh::parse(&bytes).with_context(|| format!("{}:{name}", archive.display()))?;
    let world = sample_all(&m, 0.0, SampleOptions::default())
        .and_then(|poses| world_matrices(&m, &poses))
        .with_context(|| format!("{}:{name}: static pose", archive.display()))?;
    let positions: Vec<[f32; 3]> = m.positions().map(|p| p.0).collect();
    let normals: Vec<[f32; 3]> = m.normals().map(|n| n.decode_xyz()).collect();
    let uvs: Vec<[f32; 2]> = m.uvs().map(|u| u.decode()).collect();
    let mut obj = String::new();
    obj.push_str(&format!(
        "# {name} from {} (LOD 0, pose at t=0) written by iron3d\n",
        archive.display()
    ));
    let (mut next, mut faces) = (1usize, 0usize);
    for (n, node) in m.nodes().enumerate() {
        let mut tris: Vec<usize> = Vec::new();
        for g in 0..5 {
            let Some(slot) = node.slot(0, g).and_then(|s| m.slot(usize::from(s))) else {
                continue;
            };
            for b in usize::from(slot.batch_start)
                ..usize::from(slot.batch_start) + usize::from(slot.batch_count)
            {
                let (Some(batch), Some(idx)) = (m.batch(b), m.batch_indices(b)) else {
                    continue;
                };
                let base = usize::try_from(batch.base_vertex).unwrap_or(usize::MAX);
                tris.extend(idx.map(|i| base.saturating_add(usize::from(i))));
            }
        }
        if tris.is_empty() {
            continue;
        }
        obj.push_str(&format!("o node{n}\n"));
        let mat = world.get(n).copied().unwrap_or(glam::Mat4::IDENTITY);
        let mut local: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
        let mut face = Vec::with_capacity(3);
        for &vi in &tris {
            let Some(p) = positions.get(vi) else {
                anyhow::bail!("{}:{name}: vertex {vi} out of range", archive.display())
            };
            let id = *local.entry(vi).or_insert_with(|| {
                let w = mat.transform_point3(glam::Vec3::from(*p));
                obj.push_str(&format!("v {} {} {}\n", w.x, w.y, w.z));
                if let Some(t) = uvs.get(vi) {
                    obj.push_str(&format!("vt {} {}\n", t[0], 1.0 - t[1]));
                }
                if let Some(nrm) = normals.get(vi) {
                    let w = mat
                        .transform_vector3(glam::Vec3::from(*nrm))
                        .normalize_or_zero();
                    obj.push_str(&format!("vn {} {} {}\n", w.x, w.y, w.z));
                }
                next += 1;
                next - 1
            });
            face.push(id);
            if face.len() == 3 {
                let fmt = |i: usize| match (uvs.is_empty(), normals.is_empty()) {
                    (false, false) => format!("{i}/{i}/{i}"),
                    (false, true) => format!("{i}/{i}"),
                    (true, false) => format!("{i}//{i}"),
                    (true, true) => i.to_string(),
                };
                obj.push_str(&format!(
                    "f {} {} {}\n",
                    fmt(face[0]),
                    fmt(face[1]),
                    fmt(face[2])
                ));
                faces += 1;
                face.clear();
            }
        }
    }
    std::fs::write(output, obj).with_context(|| format!("writing {}", output.display()))?;
    writeln!(
        out,
        "{}: {} vertices, {faces} triangles",
        output.display(),
        next - 1
    )?;
    Ok(())
}

/// `texture export`: one mip level as an RGBA8 PNG.
pub fn export_texture(
    archive: &Path,
    name: &str,
    mip: u32,
    output: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let (bytes, _) = entry(archive, name, iron3d_nres::Family::texm())?;
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
