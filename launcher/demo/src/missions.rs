//! Missions `MISSIONS/<name>/`: `data.tma` (clans with relations, paths, placed
//! objects), `mission.cfg`, `briefing.cfg`, `messages.cfg`, `Land.msh` (hills, a valley
//! and flats under water level, with terrain material tags), `Land1.wea` / `Land2.wea`
//! (the terrain WEAR tables) and `Land.map` (square areas, non-walkable under water,
//! linked along shared edges, with a cell grid); plus the mission's terrain lightmap
//! `LM_LAND_<name>` for `LightMap.lib`.
//!
//! # Terrain materials (FORMATS §6.2)
//!
//! `TerrainFace28.material_tag`: low byte = row of `Land2.wea`, high byte = row of
//! `Land1.wea` or `0xFF` = none. The demo writes:
//!
//! * `Land2.wea` = [`LAND2_ROWS`] by height band of the face's mean height: row 0
//!   `WATER` below the water level, row 1 `GRASS` up to [`ROCK_LEVEL`], row 2 `ROCK`
//!   above;
//! * `Land1.wea` = [`LAND1_ROWS`] (row 0 `ROAD`) plus a `LIGHTMAPS` section with one row,
//!   `LM_LAND_<name>`; the high byte is `0` on a two-cell-wide road across the map (the
//!   cell rows `cells/3` and `cells/3 + 1`, dry faces only) and `0xFF` elsewhere.
//!
//! **Project rule for the renderer** (the sources do not say how the layers blend): the
//! stage-0 texture of a face is the material of its `Land1.wea` row when the high byte is
//! not `0xFF`, else the material of its `Land2.wea` row; the terrain lightmap is the
//! first row of the `LIGHTMAPS` section of `Land1.wea`, sampled with the terrain's UV
//! stream (`0..1` over the whole map, `u` along +X, `v` along +Y, texel row 0 at `v = 0`).
//! The lightmap is [`LIGHTMAP_SIZE`]² greyscale RGB (Texm `Rgb888x`) with a full mip
//! chain: Lambert shading of the height function's normal under the fixed sun [`SUN`]
//! with ambient [`AMBIENT`].

use crate::prototypes::BUILDINGS;
use crate::{DemoError, Out, fmt_err};
use iron3d_gameplay::clan::{RELATION_HOSTILE, RELATION_NEUTRAL};
use iron3d_gameplay::property::{CLAN_ID, CURRENT_ORE, LIFE_STATE};
use iron3d_landmap::{AreaSpec, Bounds, MapBuilder};
use iron3d_material::{RowSpec, Wear};
use iron3d_texm::{PixelFormat, RgbaImage};
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

/// `Land2.wea` rows (terrain base layer), by height band.
pub(crate) const LAND2_ROWS: [&str; 3] = ["WATER", "GRASS", "ROCK"];
/// `Land1.wea` rows (terrain overlay): the road.
pub(crate) const LAND1_ROWS: [&str; 1] = ["ROAD"];
/// Mean face height above which `Land2.wea` row 2 (`ROCK`) is used.
pub(crate) const ROCK_LEVEL: f32 = 13.0;
/// `material_tag` high byte meaning "no `Land1.wea` row".
pub(crate) const NO_LAND1: u16 = 0xFF;
/// Side of the terrain lightmap in texels.
pub(crate) const LIGHTMAP_SIZE: u32 = 64;
/// Unit vector towards the sun of the baked terrain lightmap (world space, Z up).
pub(crate) const SUN: [f32; 3] = [0.64, 0.48, 0.6];
/// Ambient term of the baked terrain lightmap (`light = AMBIENT + (1 − AMBIENT)·max(0, n·SUN)`).
pub(crate) const AMBIENT: f32 = 0.35;

/// The terrain height function of one mission.
struct Terrain {
    phase: [f32; 2],
    extent: f32,
    /// Depth of the diagonal valley (0: none, the battle map's open ground).
    valley_depth: f32,
    /// Amplitude of the hills.
    hills: f32,
    /// Mean height of the ground.
    base: f32,
}

impl Terrain {
    fn height(&self, x: f32, y: f32) -> f32 {
        let hills =
            self.hills * (x * 0.021 + self.phase[0]).sin() * (y * 0.017 + self.phase[1]).cos();
        let d = (x - y) / std::f32::consts::SQRT_2;
        let valley = self.valley_depth * (-(d / (0.08 * self.extent)).powi(2)).exp();
        let h = self.base + hills - valley;
        if h < WATER_LEVEL {
            WATER_LEVEL - 2.0
        } else {
            h
        }
    }

    /// Unit normal of the height function at `(x, y)` (central differences over `e`).
    fn normal(&self, x: f32, y: f32, e: f32) -> [f32; 3] {
        let dx = (self.height(x + e, y) - self.height(x - e, y)) / (2.0 * e);
        let dy = (self.height(x, y + e) - self.height(x, y - e)) / (2.0 * e);
        let len = (dx * dx + dy * dy + 1.0).sqrt();
        [-dx / len, -dy / len, 1.0 / len]
    }

    /// The baked terrain lightmap over `extent`² (see the module doc).
    fn lightmap(&self) -> Result<RgbaImage, DemoError> {
        let n = LIGHTMAP_SIZE;
        let texel = self.extent / n as f32;
        let sun_len = SUN.iter().map(|c| c * c).sum::<f32>().sqrt();
        let mut px = Vec::with_capacity((n * n * 4) as usize);
        for row in 0..n {
            for col in 0..n {
                let (x, y) = ((col as f32 + 0.5) * texel, (row as f32 + 0.5) * texel);
                let nrm = self.normal(x, y, texel * 0.5);
                let lambert = nrm.iter().zip(SUN).map(|(a, b)| a * b).sum::<f32>() / sun_len;
                let light = AMBIENT + (1.0 - AMBIENT) * lambert.max(0.0);
                let v = (light * 255.0).round().clamp(0.0, 255.0) as u8;
                px.extend_from_slice(&[v, v, v, 255]);
            }
        }
        RgbaImage::new(n, n, px).map_err(fmt_err("terrain lightmap"))
    }
}

/// Sets every face's `material_tag` (see the module doc); faces are `2·(j·cells + i)`
/// and `+1` for cell `(i, j)`.
fn tag_faces(streams: &mut iron3d_landmsh::Streams, cells: u16) {
    let cells = usize::from(cells);
    let road = cells / 3..cells / 3 + 2;
    let positions = &streams.positions;
    for (f, face) in streams.faces.iter_mut().enumerate() {
        let mean = face
            .vertices
            .iter()
            .map(|&v| positions[usize::from(v)][2])
            .sum::<f32>()
            / 3.0;
        let land2: u16 = if mean < WATER_LEVEL {
            0
        } else if mean <= ROCK_LEVEL {
            1
        } else {
            2
        };
        let row = f / 2 / cells;
        let land1 = if land2 != 0 && road.contains(&row) {
            0
        } else {
            NO_LAND1
        };
        face.material_tag = (land1 << 8) | land2;
    }
}

fn wear(what: &str, rows: &[&str], lightmaps: &[&str]) -> Result<Vec<u8>, DemoError> {
    let rows: Vec<RowSpec<'_>> = rows
        .iter()
        .map(|n| RowSpec::new(b"1", n.as_bytes()))
        .collect();
    let lms: Vec<RowSpec<'_>> = lightmaps
        .iter()
        .map(|n| RowSpec::new(b"0", n.as_bytes()))
        .collect();
    Ok(
        Wear::author(&rows, (!lms.is_empty()).then_some(lms.as_slice()))
            .map_err(fmt_err(what))?
            .to_bytes(),
    )
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

/// What [`write_land`] made: the height function, the walkable squares' corners, the
/// square side and the terrain lightmap entry.
struct Land {
    t: Terrain,
    walkable: Vec<(f32, f32)>,
    side: f32,
    lightmap: crate::materials::LightMap,
}

/// Writes the terrain of mission `name`: `Land.msh`, its WEAR tables, `Land.map` (square
/// areals of [`AREA_CELLS`] cells, not walkable under water) and the lightmap.
fn write_land(
    o: &mut Out,
    rng: &mut ChaCha8Rng,
    name: &str,
    cells: u16,
    cell_size: f32,
    (valley_depth, hills, base): (f32, f32, f32),
) -> Result<Land, DemoError> {
    let extent = f32::from(cells) * cell_size;
    let t = Terrain {
        phase: [unit(rng) * 6.0, unit(rng) * 6.0],
        extent,
        valley_depth,
        hills,
        base,
    };
    let dir = format!("MISSIONS/{name}");
    // Land.msh, its WEAR tables and its lightmap.
    let mut streams = iron3d_landmsh::from_grid(cells, cells, cell_size, |x, y| t.height(x, y))
        .map_err(fmt_err("Land.msh"))?;
    tag_faces(&mut streams, cells);
    let msh = iron3d_landmsh::LandMsh::from_streams(streams)
        .map_err(fmt_err("Land.msh"))?
        .to_bytes()
        .map_err(fmt_err("Land.msh"))?;
    o.put(&format!("{dir}/Land.msh"), &msh)?;
    let lightmap_name = format!("LM_LAND_{name}");
    o.put(
        &format!("{dir}/Land1.wea"),
        &wear("Land1.wea", &LAND1_ROWS, &[&lightmap_name])?,
    )?;
    o.put(
        &format!("{dir}/Land2.wea"),
        &wear("Land2.wea", &LAND2_ROWS, &[])?,
    )?;
    let lightmap =
        crate::materials::texm_of(&lightmap_name, PixelFormat::Rgb888x, t.lightmap()?, None)?;

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
            // Corners at the surface height of the corner itself: neighbours share the
            // very same vertices, so `link_shared_edges` links them.
            let v = |x: f32, y: f32| [x, y, t.height(x, y).max(WATER_LEVEL)];
            b.add_area(&AreaSpec {
                polygon: vec![
                    v(x0, y0),
                    v(x0 + side, y0),
                    v(x0 + side, y0 + side),
                    v(x0, y0 + side),
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
    let linked = b.link_shared_edges();
    debug_assert!(linked > 0 || squares < 2, "neighbouring squares are linked");
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

    Ok(Land {
        t,
        walkable,
        side,
        lightmap: (lightmap_name, lightmap),
    })
}

/// Writes mission `name` on a `cells`×`cells` terrain with `objects` placed objects;
/// returns the name and the terrain lightmap entry for `LightMap.lib`.
pub(crate) fn write(
    o: &mut Out,
    rng: &mut ChaCha8Rng,
    name: &str,
    cells: u16,
    cell_size: f32,
    objects: usize,
) -> Result<(String, crate::materials::LightMap), DemoError> {
    let Land {
        t,
        walkable,
        side,
        lightmap,
    } = write_land(o, rng, name, cells, cell_size, (18.0, 14.0, 6.0))?;
    let extent = t.extent;
    let dir = format!("MISSIONS/{name}");

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
                let rel = if c == 2 || d == 2 {
                    RELATION_NEUTRAL
                } else {
                    RELATION_HOSTILE
                };
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
            .with_property(lp(LIFE_STATE.name())?, LIFE_STATE.raw(100))
            .with_property(lp(CLAN_ID.name())?, CLAN_ID.raw(clan + 1));
        if res.contains("Mine") || res == "mine" {
            let ore = 500 + rng.next_u32() % 1000;
            obj = obj.with_property(lp(CURRENT_ORE.name())?, CURRENT_ORE.raw(ore));
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
    cfg.extend(crate::sounds::music_blocks());
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
    Ok((name.to_owned(), lightmap))
}

/// The battle mission's clans (CP1251 in the file): the player and the enemy.
const BATTLE_CLANS: [&str; 2] = ["Игрок", "Враг"];

/// One base building: `(unit DAT, offset from the base corner)`.
const BASE: [(&str, [f32; 2]); 6] = [
    ("UNITS\\Storage.dat", [0.0, 0.0]),
    ("UNITS\\Generator.dat", [0.0, 24.0]),
    ("UNITS\\Plant.dat", [24.0, 0.0]),
    ("UNITS\\Mine.dat", [40.0, 40.0]),
    ("UNITS\\Tower.dat", [36.0, 12.0]),
    ("UNITS\\Tower.dat", [12.0, 36.0]),
];

/// A clan's script package, `(.scr, .var)` bytes: `Init` with its one `Handler(19)`
/// record over a varset declaring `ClanBaseX`, `ClanBaseY` and `ClanID` (FORMATS §11.10,
/// §11.11, §13.11) — what the battle's clans load, and what tests give theirs.
pub fn clan_package() -> Result<(Vec<u8>, Vec<u8>), DemoError> {
    use iron3d_aux::{Event, Instruction, Script, VarValue, Varset};
    let script = Script {
        opcode_handler_count: 73,
        events: vec![Event {
            name: b"Init".to_vec(),
            event_word: 0,
            instructions: vec![Instruction {
                words: [19, 0, 0, 0, 0],
                references: vec![0, 1, 2],
                w6: 0,
            }],
        }],
        trailing: Vec::new(),
    };
    let vars = Varset::author(&[
        ("ClanBaseX", VarValue::Dword(0)),
        ("ClanBaseY", VarValue::Dword(0)),
        ("ClanID", VarValue::Dword(0)),
    ])
    .map_err(fmt_err("varset"))?;
    Ok((script.to_bytes(), vars.to_bytes()))
}

/// Writes the battle mission `name` (the auto-demo: [`crate::build`] lists it first):
/// hills (1 to 21 units high) without the valley or water, two hostile clans with a base each in opposite
/// corners — storage, generator, plant, mine (300 ore) and two towers — two trucks and
/// 3 to 5 tanks each (the count and every position jittered from the seed), the clans'
/// script packages, and `Objectives.txt`: the player (clan 0) wins by destroying clan 1
/// or by being first to unload 1,200 ore, and loses when it has nothing left, when clan
/// 1 unloads 1,200 ore first, or after ten minutes.
pub(crate) fn write_battle(
    o: &mut Out,
    rng: &mut ChaCha8Rng,
    name: &str,
) -> Result<(String, crate::materials::LightMap), DemoError> {
    let cells = 32u16;
    let Land { t, lightmap, .. } = write_land(o, rng, name, cells, 8.0, (0.0, 10.0, 11.0))?;
    let extent = t.extent;
    let dir = format!("MISSIONS/{name}");
    let corners = [[36.0, 36.0], [extent - 84.0, extent - 84.0]];
    let mut tma = Tma::new()
        .with_land_path(lp(&format!("MISSIONS\\{name}\\Land"))?)
        .with_description(lp(&format!("Demo battle {name}"))?);
    let (scr, var) = clan_package()?;
    for (c, clan) in BATTLE_CLANS.iter().enumerate() {
        let base = format!("{dir}/clan{c}");
        o.put(&format!("{base}.scr"), &scr)?;
        o.put(&format!("{base}.var"), &var)?;
        let [x, y] = corners[c];
        tma.clans.push(
            Clan::new(
                lp(clan)?,
                ClanBody::standard(StandardMode::One, lp(&base.replace('/', "\\"))?, lp("")?),
            )
            .with_anchor(x, y)
            .with_relation(lp(BATTLE_CLANS[1 - c])?, RELATION_HOSTILE),
        );
    }
    // Buildings are sturdier than vehicles (300 life against 100).
    let place = |tma: &mut Tma,
                 res: &str,
                 x: f32,
                 y: f32,
                 heading: f32,
                 slot: u32,
                 extra: Option<u32>|
     -> Result<(), DemoError> {
        let life = if res.contains("Tank") || res.contains("Truck") {
            100
        } else {
            300
        };
        let mut obj = PlacedObject::new(lp(res)?, [x, y, t.height(x, y)])
            .with_orientation([0.0, 0.0, heading])
            .with_super_ai_slot(slot)
            .with_property(lp(LIFE_STATE.name())?, LIFE_STATE.raw(life))
            .with_property(lp(CLAN_ID.name())?, CLAN_ID.raw(slot));
        if let Some(ore) = extra {
            obj = obj.with_property(lp(CURRENT_ORE.name())?, CURRENT_ORE.raw(ore));
        }
        tma.objects.push(obj);
        Ok(())
    };
    for (c, corner) in corners.iter().enumerate() {
        // Clan 1's base is clan 0's turned half a circle about the map centre.
        let at = |dx: f32, dy: f32| {
            let (x, y) = if c == 0 {
                (corner[0] + dx, corner[1] + dy)
            } else {
                (corner[0] + 48.0 - dx, corner[1] + 48.0 - dy)
            };
            (x, y)
        };
        let slot = c as u32;
        let face = if c == 0 { 0.785 } else { 3.927 };
        for (res, [dx, dy]) in BASE {
            let (x, y) = at(dx, dy);
            let ore = res.contains("Mine").then_some(300);
            place(&mut tma, res, x, y, face, slot, ore)?;
        }
        for k in 0..2 {
            let (x, y) = at(
                16.0 + 6.0 * k as f32 + unit(rng) * 2.0,
                16.0 + unit(rng) * 2.0,
            );
            place(&mut tma, "UNITS\\Truck.dat", x, y, face, slot, None)?;
        }
        let tanks = 3 + rng.next_u32() % 3;
        for k in 0..tanks {
            let d = 52.0 + 5.0 * k as f32 + unit(rng) * 3.0;
            let (x, y) = at(d, d - 6.0 + unit(rng) * 6.0);
            place(&mut tma, "UNITS\\Tank.dat", x, y, face, slot, None)?;
        }
    }
    o.put(
        &format!("{dir}/data.tma"),
        &tma.to_bytes().map_err(fmt_err("data.tma"))?,
    )?;
    o.put(
        &format!("{dir}/Objectives.txt"),
        &crlf(&[
            "// Iron3D-rs mission objectives (plugins/ai objectives.rs)".to_owned(),
            "clan 0".to_owned(),
            "win destroy 1".to_owned(),
            "win gather 1200".to_owned(),
            "lose destroyed".to_owned(),
            "lose gathered 1 1200".to_owned(),
            "lose time 600".to_owned(),
        ]),
    )?;
    // The tanks of both clans march on the enemy base.
    let mut orders = vec!["// Iron3D-rs standing orders (plugins/ai orders.rs)".to_owned()];
    for (i, obj) in tma.objects.iter().enumerate() {
        if obj.resource_name.as_bytes().ends_with(b"Tank.dat") {
            let enemy = corners[1 - obj.raw_after_resource as usize];
            orders.push(format!("move {i} {} {}", enemy[0] + 24.0, enemy[1] + 24.0));
        }
    }
    o.put(&format!("{dir}/Orders.txt"), &crlf(&orders))?;
    let mut cfg = crate::sounds::music_blocks();
    cfg.extend(crate::sounds::sky_block());
    o.put(&format!("{dir}/mission.cfg"), &crlf(&cfg))?;
    // What the HUD shows (PD-HUD-TEXT): the briefing and timed messages, in CP1251.
    let cp1251 = |lines: &[&str]| -> Vec<u8> {
        lines
            .iter()
            .flat_map(|l| {
                let mut b = iron3d_hud::text::cp1251(l);
                b.extend_from_slice(b"\r\n");
                b
            })
            .collect()
    };
    o.put(
        &format!("{dir}/briefing.cfg"),
        &cp1251(&[
            "object Briefing",
            "  Title \"Битва за рудник\"",
            "  Text \"Commander, the enemy holds the far corner of the valley.\"",
            "  Text \"Destroy every enemy unit, or be the first to unload 1200 ore.\"",
            "  Text \"Враг не должен добыть руду первым. Удачи!\"",
            "end",
        ]),
    )?;
    o.put(
        &format!("{dir}/messages.cfg"),
        &cp1251(&[
            "object Start",
            "  Time 1",
            "  Text \"Tanks are rolling out.\"",
            "end",
            "object Contact",
            "  Time 40",
            "  Text \"Enemy units sighted near the centre.\"",
            "end",
            "object Reminder",
            "  Time 300",
            "  Text \"Five minutes left. Время уходит!\"",
            "end",
            // Shown when the AI announces an objective (PD-AI-OBJECTIVE-MESSAGES): one
            // block per line of Objectives.txt, in order, without a Time.
            "object Objective1",
            "  Text \"Objective complete: the enemy clan is destroyed.\"",
            "end",
            "object Objective2",
            "  Text \"Objective complete: 1200 ore unloaded.\"",
            "end",
            "object Objective3",
            "  Text \"Every one of our units is lost.\"",
            "end",
            "object Objective4",
            "  Text \"The enemy unloaded 1200 ore first.\"",
            "end",
            "object Objective5",
            "  Text \"Time is up.\"",
            "end",
        ]),
    )?;
    Ok((name.to_owned(), lightmap))
}
