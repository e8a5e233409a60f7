//! The frame builder on the embedded demo: resources load, frames are deterministic,
//! draw items are in render-phase order with valid ranges, and skip reasons are recorded.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

mod common;

use glam::Vec3;
use iron3d_abi::{NO_TEXTURE, RenderPhase, RenderTarget, SkipReason, TextureKind};
use iron3d_kernel::{Kernel, NoInput, RenderSnapshot};
use iron3d_mission::load_mission;
use iron3d_render_frame::{CameraState, DEFAULT_LIGHTING, FrameBuilder, FrameParams, SceneAssets};

struct Scene {
    _dir: tempfile::TempDir,
    kernel: Kernel,
    builder: FrameBuilder,
}

fn scene(mission: &str) -> Scene {
    let (dir, files) = common::demo();
    let data = files.data();
    let mut kernel = common::kernel();
    let loaded = load_mission(&mut kernel, &data, mission, None).unwrap();
    let assets = SceneAssets::load(&data, &loaded).unwrap();
    Scene {
        _dir: dir,
        kernel,
        builder: FrameBuilder::new(assets),
    }
}

fn params(camera: CameraState) -> FrameParams {
    FrameParams {
        camera,
        target: RenderTarget {
            width: 320,
            height: 240,
            window: abi_stable::std_types::ROption::RNone,
            clear: [20, 30, 40, 255],
        },
        lighting: DEFAULT_LIGHTING,
    }
}

fn snapshot(k: &mut Kernel) -> RenderSnapshot {
    k.frame(&mut NoInput, Some(0)).unwrap();
    (*k.snapshot().unwrap()).clone()
}

fn overview(s: &Scene) -> CameraState {
    // Above the first object, looking down at it from the south-west.
    let first = s
        .kernel
        .world()
        .iter_registered()
        .next()
        .unwrap()
        .1
        .transform
        .position;
    CameraState::looking_at(first + Vec3::new(-40.0, -40.0, 40.0), first)
}

#[test]
fn demo_resources_load_with_terrain_models_textures_and_lightmaps() {
    let s = scene("DEMO1");
    let a = s.builder.assets();
    let terrain = a.terrain.as_ref().expect("DEMO1 has a terrain");
    // PD-RENDER-TERRAIN: Land1 rows (table 0, the road) and Land2 rows (table 1: water,
    // grass, rock) both draw; the terrain lightmap is a LightMap.lib texture.
    let tables: std::collections::BTreeSet<u32> = terrain
        .groups
        .iter()
        .filter_map(|g| g.row.as_ref().map(|r| r.handle >> 16))
        .collect();
    assert_eq!(tables, [0, 1].into_iter().collect());
    assert!(terrain.groups.len() >= 4, "road + water, grass, rock");
    assert_eq!(
        a.resources.textures[terrain.lightmap as usize].kind,
        TextureKind::Lightmap
    );
    let names: Vec<_> = a.models.iter().map(|m| m.name.as_str()).collect();
    assert!(a.models.len() >= 6, "{names:?}");
    assert!(!a.prototype_models.is_empty());
    let r = &a.resources;
    assert!(r.textures.iter().any(|t| t.kind == TextureKind::Lightmap));
    assert!(r.textures.iter().any(|t| t.kind == TextureKind::Diffuse));
    for t in r.textures.iter() {
        let base = &t.levels[0];
        assert_eq!(
            base.rgba.len(),
            (base.width * base.height * 4) as usize,
            "{}",
            t.name
        );
    }
    assert!(a.missing_textures.is_empty(), "{:?}", a.missing_textures);
}

#[test]
fn frames_are_deterministic_sorted_and_in_range() {
    let mut s = scene("DEMO1");
    let snap = snapshot(&mut s.kernel);
    let p = params(overview(&s));
    let a = s.builder.build(&snap, &p);
    let b = s.builder.build(&snap, &p);
    assert_eq!(a.items, b.items, "same snapshot, same camera → same items");
    assert_eq!(a.visible, b.visible);
    assert!(!a.visible.is_empty(), "objects in view");
    assert!(
        a.items
            .iter()
            .any(|i| i.phase == RenderPhase::OpaqueTerrain)
    );
    assert!(a.items.iter().any(|i| i.phase == RenderPhase::OpaqueModels));
    let keys: Vec<_> = a
        .items
        .iter()
        .map(|i| (i.phase, i.sort_key, i.insertion))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "items are in (phase, key, insertion) order");
    for i in a.items.iter() {
        let mesh = &a.resources.meshes[i.mesh as usize];
        assert!(i.index_start as usize + i.index_count as usize <= mesh.indices.len());
        assert_eq!(i.index_count % 3, 0);
        for k in 0..i.index_count as usize {
            let v = i.base_vertex as usize + mesh.indices[i.index_start as usize + k] as usize;
            assert!(v < mesh.positions.len());
        }
        for st in i.state.stages {
            assert!(st.texture == NO_TEXTURE || (st.texture as usize) < a.resources.textures.len());
        }
        if i.phase == RenderPhase::MaterialPasses {
            // PD-RENDER-TERRAIN-BLEND: the mask in stage 0, a diffuse in stage 1, blended
            // over the terrain without writing depth.
            assert_eq!(i.object, 0, "only the terrain has blend passes");
            assert_eq!(i.state.blend, iron3d_abi::BlendMode::AlphaBlend);
            assert!(i.state.depth.test && !i.state.depth.write);
            let mask = &a.resources.textures[i.state.stages[0].texture as usize];
            assert!(mask.name.starts_with("terrain blend mask"), "{}", mask.name);
            let diffuse = &a.resources.textures[i.state.stages[1].texture as usize];
            assert_eq!(diffuse.kind, TextureKind::Diffuse);
        } else if i.state.stages[1].texture != NO_TEXTURE {
            let lm = &a.resources.textures[i.state.stages[1].texture as usize];
            assert_eq!(
                lm.kind,
                TextureKind::Lightmap,
                "stage 1 is a lightmap, never a diffuse"
            );
        }
    }
    // Transparent items run back to front.
    let depth: Vec<u64> = a
        .items
        .iter()
        .filter(|i| i.phase == RenderPhase::Transparent)
        .map(|i| i.sort_key)
        .collect();
    assert!(depth.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn looking_away_culls_and_records_the_reason() {
    let mut s = scene("DEMO1");
    let snap = snapshot(&mut s.kernel);
    let mut cam = overview(&s);
    cam.turn(0.0, 10.0); // straight up: nothing on the ground is in view
    cam.position.z += 200.0;
    let f = s.builder.build(&snap, &params(cam));
    assert!(f.visible.is_empty());
    assert_eq!(f.skipped.len(), snap.objects.len());
    assert!(f.skipped.iter().any(|o| o.reason == SkipReason::Culled));
    assert!(
        f.items.iter().all(|i| i.object == 0),
        "only terrain items remain"
    );
    // Far away, LOD 2 has no slot in the demo models: a different reason.
    let mut far = overview(&s);
    far.position.z += 450.0;
    far.far = 5_000.0;
    let f = s.builder.build(&snap, &params(far));
    assert!(f.skipped.iter().any(|o| o.reason == SkipReason::NoSlot));
}

#[test]
fn animated_models_move_between_ticks() {
    let mut s = scene("DEMO1");
    let p = params(overview(&s));
    let snap0 = snapshot(&mut s.kernel);
    let f0 = s.builder.build(&snap0, &p);
    let mut later = snap0.clone();
    later.time_ms += 250;
    let f1 = s.builder.build(&later, &p);
    let moved = f0
        .items
        .iter()
        .zip(f1.items.iter())
        .any(|(a, b)| a.object != 0 && a.world != b.world);
    assert!(moved, "some node matrix changes with animation time");
}

#[test]
fn every_mission_load_gets_its_own_resources_id() {
    let (_dir, files) = common::demo();
    let data = files.data();
    let mut kernel = common::kernel();
    let first = load_mission(&mut kernel, &data, "DEMO1", None).unwrap();
    let a = SceneAssets::load(&data, &first).unwrap();
    let second = load_mission(&mut kernel, &data, "DEMO2", Some(&first)).unwrap();
    let b = SceneAssets::load(&data, &second).unwrap();
    let again = SceneAssets::load(&data, &second).unwrap();
    assert_ne!(
        a.resources.id, b.resources.id,
        "a second mission never reuses the cache id"
    );
    assert_ne!(
        b.resources.id, again.resources.id,
        "nor does a reload of the same mission"
    );
    assert_ne!(a.resources.id, 0);
}

#[test]
fn the_preparer_draws_from_the_published_player_view_unless_the_camera_is_pinned() {
    use iron3d_kernel::FramePreparer;
    use iron3d_render_frame::MissionFramePreparer;
    use std::sync::{Arc, Mutex};
    let mut s = scene("DEMO1");
    let start = overview(&s);
    let mut snap = snapshot(&mut s.kernel);
    snap.view = Some(iron3d_kernel::PlayerView {
        eye: [5.0, 6.0, 70.0],
        yaw: 7.0, // wraps
        pitch: -0.7,
        fov: 0.9,
        ..Default::default()
    });
    for follow in [true, false] {
        let view = Arc::new(Mutex::new(params(start)));
        let builder = FrameBuilder::new(s.builder.assets().clone());
        let mut p = MissionFramePreparer::new(builder, view.clone()).with_player_view(follow);
        let frame = p.prepare(&snap).unwrap();
        let frame = frame.downcast_ref::<iron3d_abi::RenderFrame>().unwrap();
        let shared = view.lock().unwrap().camera;
        if follow {
            // The frame and the shared view (the listener) use the player's view.
            assert_eq!(shared.position, Vec3::new(5.0, 6.0, 70.0));
            assert!((shared.yaw - (7.0 - std::f32::consts::TAU)).abs() < 1e-5);
            assert_eq!((shared.pitch, shared.fov), (-0.7, 0.9));
        } else {
            assert_eq!(shared, start);
        }
        assert_eq!(frame.camera.position, shared.position.into());
        assert_eq!(frame.camera.yaw, shared.yaw);
    }
}

/// PD-RENDER-CLAN-MATERIAL: the battle's tanks of clan 0 and clan 1 draw their `CAMO`
/// batches with their clan's variant (`CAMO_C0`, `CAMO_C1`), the rest of their batches
/// alike; a tank without a clan draws the plain `CAMO`.
#[test]
fn each_clan_draws_its_own_camouflage() {
    let mut s = scene("BATTLE");
    let mut snap = snapshot(&mut s.kernel);
    // Three tanks side by side in front of the camera: clans 0, 1 and none.
    let tank = snap
        .objects
        .iter()
        .find(|o| &*o.prototype == b"UNITS\\Tank.dat")
        .unwrap()
        .clone();
    let mut tanks = Vec::new();
    for (k, clan) in [Some(0), Some(1), None].into_iter().enumerate() {
        let mut t = tank.clone();
        t.id = iron3d_kernel::OriginalObjectId(tank.id.raw() + 100 + k as u32);
        t.transform.position = Vec3::new(10.0 * k as f32, 0.0, 0.0);
        t.clan_id = clan;
        tanks.push(t);
    }
    snap.objects = tanks.clone();
    let camera = CameraState::looking_at(Vec3::new(10.0, -40.0, 20.0), Vec3::new(10.0, 0.0, 0.0));
    let frame = s.builder.build(&snap, &params(camera));
    let textures = &s.builder.assets().resources.textures;
    let stage0 = |id: u32| -> Vec<String> {
        let mut names: Vec<String> = frame
            .items
            .iter()
            .filter(|i| i.object == id)
            .map(|i| i.state.stages[0].texture)
            .filter(|&t| t != NO_TEXTURE)
            .map(|t| textures[t as usize].name.to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let (c0, c1, none) = (
        stage0(tanks[0].id.raw()),
        stage0(tanks[1].id.raw()),
        stage0(tanks[2].id.raw()),
    );
    assert!(c0.iter().any(|n| n == "CAMOC0"), "{c0:?}");
    assert!(c1.iter().any(|n| n == "CAMOC1"), "{c1:?}");
    assert!(none.iter().any(|n| n == "CAMO0"), "{none:?}");
    let others = |v: &[String]| -> Vec<String> {
        v.iter()
            .filter(|n| !n.starts_with("CAMO"))
            .cloned()
            .collect()
    };
    assert_eq!(others(&c0), others(&none));
    assert_eq!(others(&c1), others(&none));
}

/// PD-RENDER-SKY-WEATHER: the battle's frames follow its sky schedule (clear until
/// 100 s, a storm of base RGB 0.45 0.45 0.55 and rain 0.8 from 130 s to 250 s): at the
/// start the clear dome and the lighting times the clear sky's RGB, in the storm the
/// dark, overcast dome and the lighting times the storm's RGB as its owner quantises it
/// (1/64); the same frame at the same time twice. DEMO1, without a sky, keeps the
/// default lighting and the clear dome.
#[test]
fn the_battle_sky_follows_its_storm() {
    let mut s = scene("BATTLE");
    let snap = snapshot(&mut s.kernel);
    let camera = overview(&s);
    let mut at = |ms: u64| {
        let mut shot = snap.clone();
        shot.time_ms = ms;
        s.builder.build(&shot, &params(camera))
    };
    let (clear, storm, storm_again) = (at(0), at(200_000), at(200_000));
    let sky_name = |f: &iron3d_abi::RenderFrame| {
        let item = f
            .items
            .iter()
            .find(|i| i.phase == RenderPhase::Atmosphere)
            .unwrap();
        f.resources.textures[item.state.stages[0].texture as usize]
            .name
            .to_string()
    };
    assert_eq!(sky_name(&clear), "sky (generated)");
    assert_eq!(
        sky_name(&storm),
        "sky (generated, brightness 4/8, overcast 2/3)"
    );
    let times = |c: [f32; 3], t: [f32; 3]| [c[0] * t[0], c[1] * t[1], c[2] * t[2]];
    let d = DEFAULT_LIGHTING;
    // 0.95 quantised to 1/64 is 61/64; 0.45 is 29/64, 0.55 is 35/64.
    let clear_rgb = [1.0, 1.0, 61.0 / 64.0];
    let storm_rgb = [29.0 / 64.0, 29.0 / 64.0, 35.0 / 64.0];
    assert_eq!(clear.lighting.sun_colour, times(d.sun_colour, clear_rgb));
    assert_eq!(clear.lighting.ambient, times(d.ambient, clear_rgb));
    assert_eq!(storm.lighting.sun_colour, times(d.sun_colour, storm_rgb));
    assert_eq!(storm.lighting.ambient, times(d.ambient, storm_rgb));
    assert_eq!(storm.lighting.sun_direction, d.sun_direction);
    assert_eq!(storm.lighting, storm_again.lighting);
    assert_eq!(sky_name(&storm_again), sky_name(&storm));

    let mut calm = scene("DEMO1");
    let snap = snapshot(&mut calm.kernel);
    let camera = overview(&calm);
    let frame = calm.builder.build(&snap, &params(camera));
    assert_eq!(frame.lighting, DEFAULT_LIGHTING);
    assert_eq!(sky_name(&frame), "sky (generated)");
    assert!(calm.builder.assets().sky_schedule.is_none());
}

/// PD-RENDER-EFFECT-TEXTURES: the sprite textures the demo's effects name
/// (`sprites.lib` smoke and fire) are in the resources under the names the effect
/// frames use, decoded like any texture; without `sprites.lib` the mission loads all
/// the same and the sprites are simply absent (the renderers draw them soft).
#[test]
fn the_effects_sprite_textures_are_loaded_with_the_mission() {
    let (dir, files) = common::demo();
    let mut kernel = common::kernel();
    let loaded = load_mission(&mut kernel, &files.data(), "BATTLE", None).unwrap();
    let assets = SceneAssets::load(&files.data(), &loaded).unwrap();
    let sprites: Vec<(String, u32, u32)> = assets
        .resources
        .textures
        .iter()
        .filter(|t| t.name.starts_with("sprites.lib/"))
        .map(|t| (t.name.to_string(), t.levels[0].width, t.levels[0].height))
        .collect();
    let names: Vec<&str> = sprites.iter().map(|s| s.0.as_str()).collect();
    assert!(names.contains(&"sprites.lib/SMOKE.TEX"), "{names:?}");
    assert!(names.contains(&"sprites.lib/FIRE.TEX"), "{names:?}");
    let smoke = assets
        .resources
        .textures
        .iter()
        .find(|t| t.name.as_str() == "sprites.lib/SMOKE.TEX")
        .unwrap();
    assert_eq!(smoke.kind, TextureKind::Diffuse);
    let base = &smoke.levels[0];
    assert_eq!(base.rgba.len(), (base.width * base.height * 4) as usize);
    // Each name once.
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
    drop(files);

    std::fs::remove_file(dir.path().join("sprites.lib")).unwrap();
    let files = iron3d_mission::GameFiles::new(
        dir.path(),
        iron3d_vfs::ArchiveCache::new(iron3d_vfs::ReadMode::Strict, 64 << 20),
    );
    let mut kernel = common::kernel();
    let loaded = load_mission(&mut kernel, &files.data(), "BATTLE", None).unwrap();
    let assets = SceneAssets::load(&files.data(), &loaded).unwrap();
    assert!(
        !assets
            .resources
            .textures
            .iter()
            .any(|t| t.name.starts_with("sprites.lib/"))
    );
}
