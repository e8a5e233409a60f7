//! `iron3d mission inspect` and `iron3d graph`: a mission's contents and its dependency
//! graph as text or JSON.

use anyhow::Context;
use iron3d_mission::{GameData, GraphReport, MissionRef, archive_health, mission_graph};
use iron3d_tma::Tma;
use iron3d_vfs::{ArchiveCache, ReadMode, Vfs};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Blob budget of the CLI's archive cache.
const CACHE_BUDGET: u64 = 256 << 20;

fn read_tma(vfs: &Vfs, mission: &str) -> anyhow::Result<(MissionRef, Tma)> {
    let mref = MissionRef::locate(vfs, mission).map_err(|e| anyhow::anyhow!("{e}"))?;
    let bytes = vfs.read(&mref.tma)?;
    let tma = Tma::parse(&bytes).with_context(|| format!("{}", mref.tma))?;
    Ok((mref, tma))
}

/// `mission inspect GAME_DIR MISSION [--json]`.
pub fn inspect(
    game_dir: &Path,
    mission: &str,
    json_out: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let vfs = Vfs::new(game_dir);
    let (mref, tma) = read_tma(&vfs, mission)?;
    let s = tma.summary();
    let v = json!({
        "mission": mref.name,
        "tma": mref.tma.original(),
        "paths": s.paths.iter().map(|p| json!({"id": p.id, "points": p.points})).collect::<Vec<_>>(),
        "clans": s.clans.iter().map(|c| json!({
            "name": c.name, "raw_id": c.raw_id, "mode": c.mode,
            "relations": c.relations.iter().map(|r| json!({"name": r.name, "value": r.value})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "objects": s.objects.iter().map(|o| json!({
            "index": o.index, "resource": o.resource, "instance_name": o.instance_name,
            "position": o.position, "orientation": o.orientation, "scale": o.scale,
            "properties": o.properties.iter().map(|p| json!({"name": p.name, "raw": p.raw})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "land_path": s.land_path,
        "mission_flag": s.mission_flag,
        "extras": s.extras.iter().map(|e| json!({"position": e.position, "raw": e.raw})).collect::<Vec<_>>(),
    });
    if json_out {
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "mission {} ({})", mref.name, mref.tma)?;
        writeln!(out, "land_path: {}", s.land_path)?;
        writeln!(
            out,
            "paths: {}  clans: {}  objects: {}  extras: {}",
            s.paths.len(),
            s.clans.len(),
            s.objects.len(),
            s.extras.len()
        )?;
        for o in &s.objects {
            writeln!(
                out,
                "{:>5} {:<32} {:<20} pos=({:.2},{:.2},{:.2}) props={}",
                o.index,
                o.resource,
                o.instance_name,
                o.position[0],
                o.position[1],
                o.position[2],
                o.properties.len()
            )?;
        }
    }
    Ok(())
}

fn report_json(r: &GraphReport) -> Value {
    let c = r.counts;
    json!({
        "objects": c.objects, "unit_refs": c.unit_refs, "components": c.components,
        "prototype_requests": c.prototype_requests, "msh": c.msh, "wear": c.wear,
        "material_slots": c.material_slots, "texture_requests": c.texture_requests,
        "lightmaps": c.lightmaps, "control_tables": c.control_tables,
                "control_points": c.control_points, "provider_tables": c.provider_tables,
                "failures": c.failures,
        "failures_detail": r.failures.iter().map(|f| json!({
            "stage": f.stage.map(|s| format!("{s:?}")), "mission": f.mission, "object": f.object,
            "resource_name": f.resource, "component": f.component, "prototype": f.prototype,
            "archive": f.archive, "entry": f.entry, "cause": f.cause, "offset": f.offset,
        })).collect::<Vec<_>>(),
        "diagnostics": r.diagnostics,
    })
}

/// How `graph` reads the archives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Compatible archive reads: named quirks (wrong `type_id` tags among them) become
    /// diagnostics instead of failures.
    pub compatible: bool,
    /// Rule PD-TAG-MESH relaxed.
    pub relax_mesh_tag: bool,
}

impl Profile {
    /// The session mission `name` of `game_dir` read with this profile, with
    /// `parameters` for its plugins.
    pub fn mission(
        self,
        game_dir: &Path,
        name: &str,
        parameters: &std::collections::BTreeMap<String, String>,
    ) -> iron3d_session::MissionSpec {
        iron3d_session::MissionSpec::Game {
            game_dir: game_dir.to_owned(),
            mission: name.to_owned(),
            mode: if self.compatible {
                ReadMode::Compatible
            } else {
                ReadMode::Strict
            },
            relax_mesh_tag: self.relax_mesh_tag,
            parameters: parameters.clone(),
            overlays: Vec::new(),
        }
    }

    /// The archive cache of this profile.
    pub fn cache(self) -> ArchiveCache {
        let mode = if self.compatible {
            ReadMode::Compatible
        } else {
            ReadMode::Strict
        };
        let cache = ArchiveCache::new(mode, CACHE_BUDGET);
        if self.relax_mesh_tag {
            cache.relax_mesh_tag()
        } else {
            cache
        }
    }
}

/// `graph GAME_DIR [--mission M] [--compatible] [--relax-mesh-tag] [--json]`: mission
/// reachability, or global archive health.
pub fn graph(
    game_dir: &Path,
    mission: Option<&str>,
    profile: Profile,
    json_out: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let vfs = Vfs::new(game_dir);
    let cache = profile.cache();
    let data = GameData {
        vfs: &vfs,
        cache: &cache,
    };
    let report = match mission {
        Some(m) => {
            let (_, tma) = read_tma(&vfs, m)?;
            mission_graph(&data, m, &tma)
        }
        None => archive_health(&data).map_err(|e| anyhow::anyhow!("{e}"))?,
    };
    if json_out {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report_json(&report))?
        )?;
        return Ok(());
    }
    let c = report.counts;
    writeln!(
        out,
        "objects={} unit_refs={} components={} prototype_requests={} msh={} wear={} material_slots={} texture_requests={} lightmaps={} failures={}",
        c.objects,
        c.unit_refs,
        c.components,
        c.prototype_requests,
        c.msh,
        c.wear,
        c.material_slots,
        c.texture_requests,
        c.lightmaps,
        c.failures
    )?;
    for f in &report.failures {
        writeln!(out, "{f}")?;
    }
    for d in &report.diagnostics {
        writeln!(out, "diagnostic: {d}")?;
    }
    Ok(())
}
