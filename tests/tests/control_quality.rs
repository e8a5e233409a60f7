//! End-to-end contact quality (issue 37) through the `--trace` output, with the
//! registry's real terrain, AI and control plugins on a generated mission of the
//! held-out kinds: a crowd of 16 trucks packed 3 apart driven to one point on a slope
//! beside a lake, two tanks driven nose to nose, a column of trucks driven into a
//! building. Trucks and tanks are radius 3.5, 3.2 tall (scaled default proxies).
//!
//! Measured from the trace alone, for every pair of vehicles, every tick: overlap
//! (from tick 150 on: the crowd starts packed 3 apart, 4 units deep, and comes apart
//! at `DEPENETRATION_SPEED`), contact episodes against the `collision` and
//! `collision_end` lines (gap ≤ 0.01 opens one, gap > 0.1 closes it: PD-CTRL-CONTACT),
//! per-tick displacement, heading turning over the last 300 ticks, and that nobody
//! stands in the lake at the end; the same run twice gives the same bytes.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::traced;
use iron3d_tma::{Clan, ClanBody, LpString, PlacedObject, StandardMode, Tma};
use iron3d_unitdat::{UnitDat, UnitRecord};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Side of one areal square.
const SQ: f32 = 16.0;
/// Map size in squares.
const W: u16 = 10;
const H: u16 = 6;
/// Radius and height of every vehicle (default proxy 0.5 × 1 scaled by 7 × 7 × 3.2).
const R: f64 = 3.5;
/// The slope: height = GRADE · x for x ≤ 96, flat beyond (grade 0.6: 31° at 0.6).
const GRADE: f32 = 0.6;
/// The lake: squares x = 6..8, y = 2..4 (x 96..128, y 32..64) are not walkable.
fn lake(i: u16, j: u16) -> bool {
    (6..8).contains(&i) && (2..4).contains(&j)
}

fn lp(s: &str) -> LpString {
    LpString::from_text(s).unwrap()
}

fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn dat(class: u32, proto: &str) -> Vec<u8> {
    let mut d = UnitDat::new();
    d.header.set_class_word(class);
    d.records
        .push(UnitRecord::new(proto.as_bytes(), 0, b"quality unit").unwrap());
    d.to_bytes()
}

fn height(x: f32) -> f32 {
    GRADE * x.min(96.0)
}

fn terrain() -> (Vec<u8>, Vec<u8>) {
    let cells = 4;
    let streams = iron3d_landmsh::from_grid(W * cells, H * cells, SQ / f32::from(cells), |x, _| {
        height(x)
    })
    .unwrap();
    let msh = iron3d_landmsh::LandMsh::from_streams(streams)
        .unwrap()
        .to_bytes()
        .unwrap();
    let mut b = iron3d_landmap::MapBuilder::new();
    for j in 0..H {
        for i in 0..W {
            let (x0, y0) = (f32::from(i) * SQ, f32::from(j) * SQ);
            let z = |x: f32| height(x);
            b.add_area(&iron3d_landmap::AreaSpec {
                polygon: vec![
                    [x0, y0, z(x0)],
                    [x0 + SQ, y0, z(x0 + SQ)],
                    [x0 + SQ, y0 + SQ, z(x0 + SQ)],
                    [x0, y0 + SQ, z(x0)],
                ],
                walkable: !lake(i, j),
                class_id: u32::from(lake(i, j)),
            })
            .unwrap();
        }
    }
    b.link_shared_edges();
    let map = b
        .build(
            u32::from(W) * 2,
            u32::from(H) * 2,
            iron3d_landmap::Bounds {
                min: [0.0, 0.0],
                max: [f32::from(W) * SQ, f32::from(H) * SQ],
            },
        )
        .unwrap();
    (msh, map.to_file_bytes(b"Land.map").unwrap())
}

/// The scenario's objects (unit file, place) and its orders; vehicles are records
/// `0..vehicles`.
fn scenario() -> (Vec<(&'static str, [f32; 2])>, String, usize) {
    let mut objects = Vec::new();
    let mut orders = String::new();
    // The crowd: 16 trucks packed 3 apart on the slope, all sent to (90, 40), beside
    // the lake's west shore (x = 96).
    for k in 0..16 {
        let (x, y) = (40.0 + (k % 4) as f32 * 3.0, 30.0 + (k / 4) as f32 * 3.0);
        orders.push_str(&format!("move {} 90 40\n", objects.len()));
        objects.push(("Trn", [x, y]));
    }
    // Two tanks nose to nose along y = 84.
    orders.push_str(&format!("move {} 140 84\n", objects.len()));
    objects.push(("War", [20.0, 84.0]));
    orders.push_str(&format!("move {} 20 84\n", objects.len()));
    objects.push(("War", [140.0, 84.2]));
    // A column of four trucks driven into a building at (150, 16).
    for k in 0..4 {
        orders.push_str(&format!("move {} 150 16\n", objects.len()));
        objects.push(("Trn", [130.0 - 9.0 * k as f32, 16.0]));
    }
    let vehicles = objects.len();
    objects.push(("Store", [150.0, 16.0]));
    (objects, orders, vehicles)
}

fn mission(root: &Path) -> usize {
    iron3d_e2e::gamedir::write(root);
    for (file, class, proto) in [
        ("War", 0x0100_8000, "tank_proto"),
        ("Trn", 0x0100_2000, "tank_proto"),
        ("Store", 0x8000_0008, "tower"),
    ] {
        put(root, &format!("UNITS/{file}.dat"), &dat(class, proto));
    }
    let (scr, var) = iron3d_demo::clan_package().unwrap();
    put(root, "SCRIPTS/C0.scr", &scr);
    put(root, "SCRIPTS/C0.var", &var);
    let dir = "MISSIONS/Q1";
    let (msh, map) = terrain();
    put(root, &format!("{dir}/Land.msh"), &msh);
    put(root, &format!("{dir}/Land.map"), &map);
    let mut t = Tma::new().with_land_path(lp("MISSIONS\\Q1\\Land"));
    t.clans.push(
        Clan::new(
            lp("Игрок"),
            ClanBody::standard(StandardMode::One, lp("SCRIPTS\\C0"), lp("")),
        )
        .with_anchor(8.0, 8.0),
    );
    let (objects, orders, vehicles) = scenario();
    for (unit, [x, y]) in objects {
        let scale = if unit == "Store" {
            [10.0, 10.0, 6.0]
        } else {
            [7.0, 7.0, 3.2]
        };
        t.objects.push(
            PlacedObject::new(lp(&format!("UNITS\\{unit}.dat")), [x, y, height(x)])
                .with_scale(scale)
                .with_super_ai_slot(0)
                .with_property(lp("Life state"), [0, 100, 0, 0])
                .with_property(lp("ClanID"), [0, 0, 0, 0]),
        );
    }
    put(root, &format!("{dir}/data.tma"), &t.to_bytes().unwrap());
    put(
        root,
        &format!("{dir}/Objectives.txt"),
        b"clan 0\nlose time 1000\n",
    );
    put(root, &format!("{dir}/Orders.txt"), orders.as_bytes());
    vehicles
}

fn id(record: usize) -> u64 {
    u64::from(iron3d_mission::object_id(record).unwrap().raw())
}

/// What the audit of a trace measured.
#[derive(Debug, Default)]
struct Audit {
    max_overlap: f64,
    worst: (u64, u64, u64),
    episodes: usize,
    problems: Vec<String>,
    max_speed: f64,
    turning: BTreeMap<u64, f64>,
}

fn audit(lines: &[Value], vehicles: &[u64], ticks: u64) -> Audit {
    let mut at: BTreeMap<u64, BTreeMap<u64, ([f64; 2], f64)>> = BTreeMap::new();
    let mut begins: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    let mut ends: BTreeMap<u64, Vec<(u64, u64)>> = BTreeMap::new();
    for l in lines {
        let tick = l["tick"].as_u64().unwrap_or(0);
        match l["type"].as_str() {
            Some("object") => {
                let id = l["id"].as_u64().unwrap();
                let p = [l["pos"][0].as_f64().unwrap(), l["pos"][1].as_f64().unwrap()];
                at.entry(tick)
                    .or_default()
                    .insert(id, (p, l["heading"].as_f64().unwrap()));
            }
            Some("collision") if l["to"] == l["a"] => {
                let pair = (l["a"].as_u64().unwrap(), l["b"].as_u64().unwrap());
                begins.entry(tick).or_default().push(pair);
            }
            Some("collision_end") => {
                let pair = (l["a"].as_u64().unwrap(), l["b"].as_u64().unwrap());
                let list = ends.entry(tick).or_default();
                if !list.contains(&pair) {
                    list.push(pair);
                }
            }
            _ => {}
        }
    }
    let mut a = Audit::default();
    let mut open: BTreeMap<(u64, u64), bool> = BTreeMap::new();
    for t in 1..=ticks {
        let (now, before) = (&at[&t], &at[&(t - 1)]);
        for (x, &p) in vehicles.iter().enumerate() {
            for &q in &vehicles[x + 1..] {
                let (pa, pb) = (now[&p].0, now[&q].0);
                let gap = ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2)).sqrt() - 2.0 * R;
                let key = (p.min(q), p.max(q));
                if t >= 150 && -gap > a.max_overlap {
                    a.max_overlap = -gap;
                    a.worst = (t, key.0, key.1);
                }
                let was = open.get(&key).copied().unwrap_or(false);
                let begun = begins.get(&t).is_some_and(|b| b.contains(&key));
                let ended = ends.get(&t).is_some_and(|b| b.contains(&key));
                // The engine measures in f32, this audit in f64: within a rounding
                // allowance of the threshold either answer stands (the event decides).
                let threshold = if was { 0.1 } else { 0.01 };
                let is = if (gap - threshold).abs() <= 1e-4 {
                    if was { !ended } else { begun }
                } else {
                    gap <= threshold
                };
                if is && !was {
                    a.episodes += 1;
                }
                if (is && !was) != begun {
                    a.problems.push(format!(
                        "tick {t} {key:?}: gap {gap:.4}, open {was}, begin event {begun}"
                    ));
                }
                if (was && !is) != ended {
                    a.problems.push(format!(
                        "tick {t} {key:?}: gap {gap:.4}, open {was}, end event {ended}"
                    ));
                }
                open.insert(key, is);
            }
            let (p0, p1) = (before[&p].0, now[&p].0);
            if t >= 150 {
                let v = ((p1[0] - p0[0]).powi(2) + (p1[1] - p0[1]).powi(2)).sqrt() * 30.0;
                a.max_speed = a.max_speed.max(v);
            }
            if t + 300 > ticks {
                let mut d = now[&p].1 - before[&p].1;
                while d > std::f64::consts::PI {
                    d -= std::f64::consts::TAU;
                }
                while d < -std::f64::consts::PI {
                    d += std::f64::consts::TAU;
                }
                *a.turning.entry(p).or_default() += d.abs().to_degrees();
            }
        }
    }
    a
}

#[test]
fn crowds_columns_and_head_on_pairs_keep_their_contacts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("game");
    let vehicles = mission(&root);
    let reg = iron3d_e2e::plugins::registry_file(dir.path(), "q.ini", "ai iron3d_ai ai");
    let game = root.to_str().unwrap();
    let ticks = 1200u64;
    let args = [
        "--game-dir",
        game,
        "--mission",
        "Q1",
        "--registry",
        reg.as_str(),
        "--ticks",
        "1200",
        "--trace-every",
        "1",
    ];
    let (_, lines, bytes) = traced(&args, &dir.path().join("a.jsonl"));
    let (_, _, again) = traced(&args, &dir.path().join("b.jsonl"));
    assert!(bytes == again, "same mission, same trace bytes");
    let ids: Vec<u64> = (0..vehicles).map(id).collect();
    let a = audit(&lines, &ids, ticks);
    println!(
        "audit: episodes {} max overlap {:.4} at {:?}, max speed {:.2}, turning {:?}, problems {}",
        a.episodes,
        a.max_overlap,
        a.worst,
        a.max_speed,
        a.turning,
        a.problems.len()
    );
    assert!(
        a.problems.is_empty(),
        "{:#?}",
        &a.problems[..a.problems.len().min(20)]
    );
    assert!(a.episodes >= 20, "the vehicles meet: {a:?}");
    assert!(a.max_overlap <= 0.05, "{a:?}");
    assert!(a.max_speed <= 9.0, "{a:?}");
    let worst = a.turning.values().copied().fold(0.0, f64::max);
    // Measured when written: 770° at worst (the issue measured 1,300–1,500° for three
    // trucks of a jam before PD-CTRL-WISH and PD-CTRL-CONTACT-DAMP).
    assert!(
        worst <= 900.0,
        "turning over the last 10 s: {:?}",
        a.turning
    );
    // Nobody in the lake at the end.
    let last: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "object" && l["tick"] == ticks)
        .collect();
    for l in last {
        let (x, y) = (l["pos"][0].as_f64().unwrap(), l["pos"][1].as_f64().unwrap());
        assert!(
            !((96.0..128.0).contains(&x) && (32.0..64.0).contains(&y)),
            "object {} in the lake at ({x}, {y})",
            l["id"]
        );
    }
}
