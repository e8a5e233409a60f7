//! `iron3d terrain render|query`: debug views of a mission's terrain (Land.msh surface and
//! Land.map areal graph) through the terrain plugin's core (`iron3d_terrain::World`).

use anyhow::{Context, bail};
use glam::Vec3;
use iron3d_mission::MissionRef;
use iron3d_terrain::World;
use iron3d_vfs::Vfs;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A mission's terrain plus the XY/Z bounds of its surface.
struct Loaded {
    world: World,
    min: Vec3,
    max: Vec3,
}

fn mission_dir(game_dir: &Path, mission: &str) -> anyhow::Result<PathBuf> {
    let vfs = Vfs::new(game_dir);
    let mref = MissionRef::locate(&vfs, mission).map_err(|e| anyhow::anyhow!("{e}"))?;
    let tma = vfs.resolve(&mref.tma)?.path;
    tma.parent()
        .map(Path::to_path_buf)
        .context("mission directory")
}

fn load(game_dir: &Path, mission: &str) -> anyhow::Result<Loaded> {
    let dir = mission_dir(game_dir, mission)?;
    let world = World::load(&dir.display().to_string())
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?
        .with_context(|| format!("{}: no Land.msh / Land.map", dir.display()))?;
    let msh =
        std::fs::read(dir.join("Land.msh")).or_else(|_| std::fs::read(dir.join("land.msh")))?;
    let land = iron3d_landmsh::LandMsh::parse(&msh)?;
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for p in &land.streams.positions {
        let v = Vec3::from(*p);
        if v.is_finite() {
            min = min.min(v);
            max = max.max(v);
        }
    }
    if !min.is_finite() {
        bail!("{}: the surface has no finite vertex", dir.display());
    }
    Ok(Loaded { world, min, max })
}

/// Parses `X,Y`.
pub fn parse_point(s: &str) -> Result<[f32; 2], String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("'{s}' is not X,Y"))?;
    let f = |v: &str| v.trim().parse::<f32>().map_err(|e| format!("'{v}': {e}"));
    Ok([f(x)?, f(y)?])
}

/// `terrain query`: height, normal and area at points, and a route between two points.
pub fn query(
    game_dir: &Path,
    mission: &str,
    at: &[[f32; 2]],
    route: Option<([f32; 2], [f32; 2])>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let l = load(game_dir, mission)?;
    let points: Vec<serde_json::Value> = at
        .iter()
        .map(|&[x, y]| {
            json!({
                "x": x, "y": y,
                "height": l.world.surface.height_at(x, y),
                "normal": l.world.surface.normal_at(x, y).map(|n| n.to_array()),
                "area": l.world.areals.area_at(x, y),
            })
        })
        .collect();
    let route_json = route.map(|(a, b)| {
        match l.world.route_points(Vec3::new(a[0], a[1], 0.0), Vec3::new(b[0], b[1], 0.0)) {
            Ok(r) => json!({
                "areas": r,
                "corridor": l.world.areals.corridor(&r).iter().map(|(p, q)| [p.to_array(), q.to_array()]).collect::<Vec<_>>(),
            }),
            Err(e) => json!({ "error": e.message.as_str(), "kind": e.kind.name() }),
        }
    });
    let v = json!({
        "bounds": { "min": l.min.to_array(), "max": l.max.to_array() },
        "areas": l.world.areals.len(),
        "points": points,
        "route": route_json,
    });
    writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    Ok(())
}

/// `terrain render`: a height-shaded top view with areal borders (dark) and, when asked,
/// the route between two points (red, through the area centroids).
pub fn render(
    game_dir: &Path,
    mission: &str,
    size: u32,
    route: Option<([f32; 2], [f32; 2])>,
    output: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if !(16..=4096).contains(&size) {
        bail!("--size must be in 16..=4096");
    }
    let l = load(game_dir, mission)?;
    let (w, h) = (size, size);
    let span = (l.max - l.min).max(Vec3::splat(1e-6));
    let to_world = |px: u32, py: u32| {
        (
            l.min.x + (px as f32 + 0.5) / w as f32 * span.x,
            l.max.y - (py as f32 + 0.5) / h as f32 * span.y,
        )
    };
    let mut areas = vec![None; (w * h) as usize];
    let mut img = vec![0u8; (w * h * 4) as usize];
    for py in 0..h {
        for px in 0..w {
            let (x, y) = to_world(px, py);
            let i = (py * w + px) as usize;
            areas[i] = l.world.areals.area_at(x, y);
            let shade = match l.world.surface.height_at(x, y) {
                Some(z) => (40.0 + 200.0 * (z - l.min.z) / span.z.max(1e-6)) as u8,
                None => 0,
            };
            img[i * 4..i * 4 + 4].copy_from_slice(&[shade, shade, shade, 255]);
        }
    }
    for py in 0..h {
        for px in 0..w {
            let i = (py * w + px) as usize;
            let border = (px + 1 < w && areas[i] != areas[i + 1])
                || (py + 1 < h && areas[i] != areas[i + w as usize]);
            if border {
                img[i * 4..i * 4 + 4].copy_from_slice(&[20, 60, 160, 255]);
            }
        }
    }
    let mut routed = 0;
    if let Some((a, b)) = route {
        let r = l
            .world
            .route_points(Vec3::new(a[0], a[1], 0.0), Vec3::new(b[0], b[1], 0.0))
            .map_err(|e| anyhow::anyhow!("route: {e}"))?;
        routed = r.len();
        let to_px = |v: Vec3| {
            (
                (((v.x - l.min.x) / span.x) * w as f32) as i64,
                (((l.max.y - v.y) / span.y) * h as f32) as i64,
            )
        };
        let mut pts: Vec<(i64, i64)> = vec![to_px(Vec3::new(a[0], a[1], 0.0))];
        pts.extend(
            r.iter()
                .filter_map(|&id| l.world.areals.centroid(id))
                .map(to_px),
        );
        pts.push(to_px(Vec3::new(b[0], b[1], 0.0)));
        for seg in pts.windows(2) {
            let ((x0, y0), (x1, y1)) = (seg[0], seg[1]);
            let n = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
            for k in 0..=n {
                let x = x0 + (x1 - x0) * k / n;
                let y = y0 + (y1 - y0) * k / n;
                if (0..w as i64).contains(&x) && (0..h as i64).contains(&y) {
                    let i = (y as usize * w as usize + x as usize) * 4;
                    img[i..i + 4].copy_from_slice(&[220, 30, 30, 255]);
                }
            }
        }
    }
    let file =
        std::fs::File::create(output).with_context(|| format!("creating {}", output.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(&img)?;
    writeln!(
        out,
        "{}: {w}x{h} top view, {} areas, route of {routed} areas",
        output.display(),
        l.world.areals.len()
    )?;
    Ok(())
}
