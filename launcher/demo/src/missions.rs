//! Missions `MISSIONS/<name>/`: `data.tma` (clans with relations, paths, placed
//! objects), `mission.cfg`, `briefing.cfg`, `messages.cfg`, `Land.msh` (hills, a valley
//! and flats under water level) and `Land.map` (square areas, non-walkable under water,
//! linked along shared edges, with a cell grid).

use crate::prototypes::BUILDINGS;
use crate::{DemoError, Out, fmt_err};
use iron3d_landmap::{AreaSpec, Bounds, MapBuilder};
use iron3d_tma::{Clan, ClanBody, LpString, Path as TmaPath, PlacedObject, StandardMode, Tma};
use rand_chacha::ChaCha8Rng;
use rand_core::RngCore;

/// Height of the water surface; terrain below is flattened just under it.
const WATER_LEVEL: f32 = 0.0;
/// Terrain cells per areal-map square side.
const AREA_CELLS: u16 = 8;
/// Unit DAT paths placed by missions, as the original writes them.
const UNIT_REFS: [&str; 5] = [
    "UNITS\\Tank.dat",
    "UNITS\\Truck.dat",
    "UNITS\\Hangar.dat",
    "UNITS\\Mine.dat",
    "UNITS\\Tower.dat",
];
/// Clan names (CP1251 in the file).
const CLANS: [&str; 3] = ["Игрок", "Враг", "Нейтралы"];

/// The terrain height function of one mission.
struct Terrain {
    phase: [f32; 2],
    extent: f32,
}

impl Terrain {
    fn height(&self, x: f32, y: f32) -> f32 {
        let hills = 14.0 * (x * 0.021 + self.phase[0]).sin() * (y * 0.017 + self.phase[1]).cos();
        let d = (x - y) / std::f32::consts::SQRT_2;
        let valley = 18.0 * (-(d / (0.08 * self.extent)).powi(2)).exp();
        let h = 6.0 + hills - valley;
        if h < WATER_LEVEL {
            WATER_LEVEL - 2.0
        } else {
            h
        }
    }
}

fn lp(s: &str) -> Result<LpString, DemoError> {
    LpString::from_text(s).map_err(fmt_err("TMA string"))
}

fn unit(rng: &mut ChaCha8Rng) -> f32 {
    (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32
}

fn crlf(lines: &[String]) -> Vec<u8> {
    lines
        .iter()
        .flat_map(|l| format!("{l}\r\n").into_bytes())
        .collect()
}

/// Writes mission `name` on a `cells`×`cells` terrain with `objects` placed objects;
/// returns the name.
pub(crate) fn write(
    o: &mut Out,
    rng: &mut ChaCha8Rng,
    name: &str,
    cells: u16,
    cell_size: f32,
    objects: usize,
) -> Result<String, DemoError> {
    let extent = f32::from(cells) * cell_size;
    let t = Terrain {
        phase: [unit(rng) * 6.0, unit(rng) * 6.0],
        extent,
    };
    let dir = format!("MISSIONS/{name}");

    // Land.msh.
    let streams = iron3d_landmsh::from_grid(cells, cells, cell_size, |x, y| t.height(x, y))
        .map_err(fmt_err("Land.msh"))?;
    let msh = iron3d_landmsh::LandMsh::from_streams(streams)
        .map_err(fmt_err("Land.msh"))?
        .to_bytes()
        .map_err(fmt_err("Land.msh"))?;
    o.put(&format!("{dir}/Land.msh"), &msh)?;

    // Land.map.
    let squares = cells / AREA_CELLS;
    let side = f32::from(AREA_CELLS) * cell_size;
    let mut b = MapBuilder::new();
    let mut walkable = Vec::new();
    for j in 0..squares {
        for i in 0..squares {
            let (x0, y0) = (f32::from(i) * side, f32::from(j) * side);
            let h = t.height(x0 + side / 2.0, y0 + side / 2.0);
            let ok = h >= WATER_LEVEL;
            let z = h.max(WATER_LEVEL);
            b.add_area(&AreaSpec {
                polygon: vec![
                    [x0, y0, z],
                    [x0 + side, y0, z],
                    [x0 + side, y0 + side, z],
                    [x0, y0 + side, z],
                ],
                walkable: ok,
                class_id: u32::from(!ok),
            })
            .map_err(fmt_err("Land.map area"))?;
            if ok {
                walkable.push((x0, y0));
            }
        }
    }
    b.link_shared_edges();
    let grid = u32::from(squares) * 2;
    let map = b
        .build(
            grid,
            grid,
            Bounds {
                min: [0.0, 0.0],
                max: [extent, extent],
            },
        )
        .map_err(fmt_err("Land.map"))?;
    o.put(
        &format!("{dir}/Land.map"),
        &map.to_file_bytes(b"Land.map")
            .map_err(fmt_err("Land.map"))?,
    )?;
    if walkable.is_empty() {
        walkable.push((0.0, 0.0));
    }

    // data.tma.
    let mut tma = Tma::new()
        .with_land_path(lp(&format!("MISSIONS\\{name}\\Land"))?)
        .with_description(lp(&format!("Demo mission {name}"))?);
    for (c, clan) in CLANS.iter().enumerate() {
        let mut cl = Clan::new(
            lp(clan)?,
            ClanBody::standard(StandardMode::One, lp("")?, lp("")?),
        )
        .with_anchor(unit(rng) * extent, unit(rng) * extent);
        for (d, other) in CLANS.iter().enumerate() {
            if c != d {
                let rel = if c == 2 || d == 2 { 0 } else { -1 };
                cl = cl.with_relation(lp(other)?, rel);
            }
        }
        tma.clans.push(cl);
    }
    for p in 0..3 {
        let pts: Vec<[f32; 3]> = (0..4)
            .map(|_| {
                let (x, y) = (unit(rng) * extent, unit(rng) * extent);
                [x, y, t.height(x, y)]
            })
            .collect();
        tma.paths.push(TmaPath::new(p + 1, pts));
    }
    for n in 0..objects {
        let (x0, y0) = walkable[rng.next_u32() as usize % walkable.len()];
        let (x, y) = (x0 + unit(rng) * side, y0 + unit(rng) * side);
        let roll = rng.next_u32() % 100;
        let res = if n + 1 == objects {
            "sun"
        } else if roll < 60 {
            UNIT_REFS[(roll % 2) as usize]
        } else if roll < 85 {
            BUILDINGS[(roll % 3) as usize]
        } else {
            UNIT_REFS[2 + (roll % 3) as usize]
        };
        let clan = rng.next_u32() % 3;
        let z = if res == "sun" { 500.0 } else { t.height(x, y) };
        let mut obj = PlacedObject::new(lp(res)?, [x, y, z])
            .with_orientation([0.0, 0.0, unit(rng) * std::f32::consts::TAU])
            .with_property(lp("Life state")?, [0, 100, 0, 0])
            .with_property(lp("ClanID")?, [0, clan + 1, 0, 0]);
        if res.contains("Mine") || res == "mine" {
            obj = obj.with_property(lp("CurrentOre")?, [0, 500 + rng.next_u32() % 1000, 0, 0]);
        }
        tma.objects.push(obj);
    }
    o.put(
        &format!("{dir}/data.tma"),
        &tma.to_bytes().map_err(fmt_err("data.tma"))?,
    )?;

    // Configuration blocks (ASCII).
    let mut cfg = vec![format!("// mission {name}")];
    for (c, clan) in ["Player", "Enemy", "Neutral"].iter().enumerate() {
        cfg.extend([
            format!("object {clan}"),
            format!("  ClanID {}", c + 1),
            format!("  Ore {}", 1000 * (c + 1)),
            "end".to_owned(),
        ]);
    }
    o.put(&format!("{dir}/mission.cfg"), &crlf(&cfg))?;
    let brief = vec![
        "object Briefing".to_owned(),
        format!("  Title \"{name}\""),
        "  Text \"Destroy the enemy base.\"".to_owned(),
        "end".to_owned(),
    ];
    o.put(&format!("{dir}/briefing.cfg"), &crlf(&brief))?;
    let msgs = vec![
        "object Msg1".to_owned(),
        "  Text \"Enemy spotted\"".to_owned(),
        "end".to_owned(),
        "object Msg2".to_owned(),
        "  Text \"Base under attack\"".to_owned(),
        "end".to_owned(),
    ];
    o.put(&format!("{dir}/messages.cfg"), &crlf(&msgs))?;
    Ok(name.to_owned())
}
