//! Plugin-level tests: loading from a mission directory, "no map" behaviour, the
//! service through the ABI trait object, and the state blob.

use super::*;
use abi_stable::std_types::RString;
use iron3d_abi::Plugin;
use iron3d_landmap::{AreaSpec, Bounds, MapBuilder};
use iron3d_landmsh::{LandMsh, from_grid};
use std::sync::atomic::{AtomicU32, Ordering};

static DIR_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh temporary mission directory with a 10 × 10 plane `z = 0.5·x + 2` and a
/// 2 × 2 map of 20-unit squares (area 3 blocked).
fn mission_dir(lower_case: bool) -> std::path::PathBuf {
    let n = DIR_COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("iron3d-terrain-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let streams = from_grid(10, 10, 4.0, |x, _| 0.5 * x + 2.0).unwrap();
    let msh = LandMsh::from_streams(streams).unwrap().to_bytes().unwrap();
    let mut b = MapBuilder::new();
    for (i, j) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let (x, y) = (i as f32 * 20.0, j as f32 * 20.0);
        b.add_area(&AreaSpec {
            polygon: vec![
                [x, y, 0.0],
                [x + 20.0, y, 0.0],
                [x + 20.0, y + 20.0, 0.0],
                [x, y + 20.0, 0.0],
            ],
            walkable: !(i == 1 && j == 1),
            class_id: 0,
        })
        .unwrap();
    }
    b.link_shared_edges();
    let map = b
        .build(
            8,
            8,
            Bounds {
                min: [0.0, 0.0],
                max: [40.0, 40.0],
            },
        )
        .unwrap()
        .to_file_bytes(b"Land.map")
        .unwrap();
    let (m, a) = if lower_case {
        ("land.msh", "land.map")
    } else {
        ("Land.msh", "Land.map")
    };
    std::fs::write(dir.join(m), msh).unwrap();
    std::fs::write(dir.join(a), map).unwrap();
    dir
}

fn v(x: f32, y: f32, z: f32) -> Vec3f {
    Vec3f { x, y, z }
}

#[test]
fn loads_and_answers_through_the_service() {
    for lower in [false, true] {
        let dir = mission_dir(lower);
        let mut t = TerrainPlugin::new_local();
        t.start_from_dir(dir.to_str().unwrap()).unwrap();
        let s = t.terrain().unwrap();
        assert!((s.height_at(10.0, 3.0).unwrap() - 7.0).abs() < 1e-4);
        let n: Vec3 = s.normal_at(10.0, 3.0).unwrap().into();
        assert!((n.length() - 1.0).abs() < 1e-5);
        assert!(s.height_at(-5.0, 3.0).is_err());
        let hit = s
            .intersect_segment(v(10.0, 10.0, 20.0), v(10.0, 10.0, -20.0))
            .unwrap();
        let hit: Vec3 = hit.unwrap().into();
        assert!((hit.z - 7.0).abs() < 1e-4);
        assert_eq!(s.area_at(25.0, 5.0).unwrap(), Some(1));
        assert_eq!(s.area_at(45.0, 5.0).unwrap(), None);
        assert_eq!(
            s.route(v(5.0, 5.0, 0.0), v(5.0, 35.0, 0.0))
                .unwrap()
                .as_slice(),
            &[0, 2]
        );
        let portals = s.corridor(v(5.0, 5.0, 0.0), v(5.0, 35.0, 0.0)).unwrap();
        assert_eq!(portals.len(), 1, "one shared edge between the two areas");
        let (pa, pb): (Vec3, Vec3) = (portals[0].a.into(), portals[0].b.into());
        assert!((pa.y - pb.y).abs() < 1e-6, "a horizontal portal: {pa} {pb}");
        assert!(s.corridor(v(5.0, 5.0, 0.0), v(35.0, 35.0, 0.0)).is_err());
        let e = s.route(v(5.0, 5.0, 0.0), v(35.0, 35.0, 0.0)).unwrap_err();
        assert!(e.message.as_str().contains("not walkable"), "{e}");
        assert_eq!(e.kind, ErrorKind::UNREACHABLE);
        let e = s.route(v(5.0, 5.0, 0.0), v(55.0, 35.0, 0.0)).unwrap_err();
        assert!(e.message.as_str().contains("in no area"), "{e}");
        assert_eq!(e.kind, ErrorKind::NO_AREA);
        let e = s.corridor(v(55.0, 5.0, 0.0), v(5.0, 5.0, 0.0)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NO_AREA, "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_passage_is_the_route_and_its_corridor_and_honours_links_to_avoid() {
    let dir = mission_dir(false);
    let mut t = TerrainPlugin::new_local();
    t.start_from_dir(dir.to_str().unwrap()).unwrap();
    let s = t.terrain().unwrap();
    // Area 1 (bottom right) to area 2 (top left) goes through area 0 (area 3 blocked).
    let (from, to) = (v(25.0, 5.0, 0.0), v(5.0, 35.0, 0.0));
    let p = s.passage(from, to, &[]).unwrap();
    assert_eq!(p.route.as_slice(), &[1, 0, 2]);
    assert_eq!(p.route.as_slice(), s.route(from, to).unwrap().as_slice());
    assert_eq!(
        p.portals.as_slice(),
        s.corridor(from, to).unwrap().as_slice()
    );
    // Avoiding a link of that route leaves no other way: unreachable, by kind.
    for link in [AreaLink::new(0, 1), AreaLink::new(2, 0)] {
        let e = s.passage(from, to, &[link]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::UNREACHABLE, "{e}");
        assert!(e.message.as_str().starts_with("passage:"), "{e}");
    }
    // A link elsewhere changes nothing.
    let q = s.passage(from, to, &[AreaLink::new(1, 3)]).unwrap();
    assert_eq!(q, p);
    // Ends outside the map: no area.
    let e = s.passage(v(55.0, 5.0, 0.0), to, &[]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NO_AREA, "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_files_every_query_says_no_map() {
    let empty = std::env::temp_dir().join(format!("iron3d-terrain-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    for dir in ["", empty.to_str().unwrap()] {
        let mut t = TerrainPlugin::new_local();
        t.start_from_dir(dir).unwrap();
        let s = t.terrain().unwrap();
        let errs = [
            s.height_at(0.0, 0.0).unwrap_err(),
            s.normal_at(0.0, 0.0).unwrap_err(),
            s.intersect_segment(v(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0))
                .unwrap_err(),
            s.area_at(0.0, 0.0).unwrap_err(),
            s.route(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)).unwrap_err(),
        ];
        for e in errs {
            assert!(e.message.as_str().contains("no map"), "{e}");
        }
        // Behavior tells "no system map" (error state 1) from the other route errors.
        for e in [
            s.route(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)).unwrap_err(),
            s.corridor(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0)).unwrap_err(),
            s.passage(v(0.0, 0.0, 0.0), v(1.0, 1.0, 0.0), &[])
                .unwrap_err(),
        ] {
            assert_eq!(e.kind, ErrorKind::NOT_FOUND, "{e}");
        }
    }
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn corrupt_file_fails_init() {
    let dir = mission_dir(false);
    std::fs::write(dir.join("Land.map"), b"not an nres").unwrap();
    let mut t = TerrainPlugin::new_local();
    assert!(t.start_from_dir(dir.to_str().unwrap()).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn state_is_the_data_identity_and_round_trips() {
    let dir = mission_dir(false);
    let d = dir.to_str().unwrap();
    let mut a = TerrainPlugin::new_local();
    a.start_from_dir(d).unwrap();
    let blob = a.save_state().unwrap();
    assert_eq!(
        (blob.format.as_str(), blob.version, blob.bytes.len()),
        (STATE_FORMAT, 2, 34)
    );
    let msh = std::fs::read(dir.join("Land.msh")).unwrap();
    let map = std::fs::read(dir.join("Land.map")).unwrap();
    let id = DataIdentity::of(&msh, &map);
    assert_eq!(a.world().unwrap().identity, id);
    // Hot swap: a new instance rebuilds from the files and accepts the state.
    let mut b = TerrainPlugin::new_local();
    b.start_from_dir(d).unwrap();
    b.restore_state(&blob).unwrap();
    assert_eq!(b.save_state().unwrap(), blob);
    // Other data, another format or a bad length are refused.
    let mut none = TerrainPlugin::new_local();
    none.start_from_dir("").unwrap();
    assert_eq!(
        none.restore_state(&blob).unwrap_err().kind,
        ErrorKind::BAD_STATE
    );
    let mut wrong = blob.clone();
    wrong.format = RString::from("other");
    assert_eq!(
        b.restore_state(&wrong).unwrap_err().kind,
        ErrorKind::BAD_STATE
    );
    let mut short = blob.clone();
    short.bytes.pop();
    assert_eq!(
        b.restore_state(&short).unwrap_err().kind,
        ErrorKind::BAD_STATE
    );
    none.restore_state(&none.save_state().unwrap()).unwrap();
    // A v1 blob (an older terrain plugin's: the identity alone) is taken.
    let mut v1 = blob.clone();
    v1.version = 1;
    v1.bytes.pop();
    b.restore_state(&v1).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

const SKY: &[u8] = b"object sky\r\n  RAIN_SOUND RAIN.WAV\r\n  KEY1 0 0 0 1 1 1 1\r\n  KEY2 10 1 0 1 0.5 0.5 0.5\r\nend\r\n";

#[test]
fn the_sky_strikes_in_the_terrain_and_its_state_round_trips() {
    let dir = mission_dir(false);
    let d = dir.to_str().unwrap();
    let sky = iron3d_effects_rules::sky::SkyConfig::from_mission_cfg(SKY)
        .unwrap()
        .unwrap();
    let mut a = TerrainPlugin::new_local();
    a.start_from_dir(d).unwrap();
    a.start_sky(Some(sky.clone()), 42);
    // No bounds in the block: the terrain's extent (10 × 10 cells of 4 units,
    // z = 0.5·x + 2) at its highest point.
    let b = a.atmosphere().unwrap().bounds().unwrap();
    assert_eq!(
        (b.min, b.max, b.z),
        (glam::Vec2::ZERO, glam::Vec2::splat(40.0), 22.0)
    );
    let mut stepped = a.atmosphere().unwrap().clone();
    let _ = stepped.step(0);
    let _ = stepped.step(4_000);
    a.atmosphere = Some(stepped);
    let blob = a.save_state().unwrap();
    assert_eq!(blob.bytes.len(), 34 + iron3d_effects_rules::sky::STATE_LEN);
    let mut c = TerrainPlugin::new_local();
    c.start_from_dir(d).unwrap();
    c.start_sky(Some(sky), 7);
    c.restore_state(&blob).unwrap();
    assert_eq!(c.atmosphere(), a.atmosphere());
    // A sky's state into an instance without one, and the other way, are refused.
    let mut bare = TerrainPlugin::new_local();
    bare.start_from_dir(d).unwrap();
    let e = bare.restore_state(&blob).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BAD_STATE);
    assert!(e.message.contains("has a sky"), "{}", e.message);
    let e = c.restore_state(&bare.save_state().unwrap()).unwrap_err();
    assert!(e.message.contains("has no sky"), "{}", e.message);
    assert_eq!(c.atmosphere(), a.atmosphere(), "a refusal changes nothing");
    let mut broken = blob.clone();
    broken.bytes[34] = 9;
    assert_eq!(
        c.restore_state(&broken).unwrap_err().kind,
        ErrorKind::BAD_STATE
    );
    assert_eq!(c.atmosphere(), a.atmosphere());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fnv1a_matches_reference_vectors() {
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
}

#[test]
fn describes_one_terrain_factory() {
    let d = describe();
    assert_eq!(d.factories.len(), 1);
    assert_eq!(d.factories[0].name.as_str(), FACTORY);
    assert_eq!(d.factories[0].slot, SlotKind::Terrain);
    // 2.9: callbacks are derived from what the plugin overrides; `of` fills in every bit.
    assert_eq!(d.factories[0].callbacks, iron3d_abi::callbacks::ALL);
}
