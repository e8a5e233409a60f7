//! Tests of the JSON command list on a hand-built frame, and of the plugin wrapper.

use super::*;
use abi_stable::std_types::{RArc, RNone, RSome};
use iron3d_abi::{
    Camera, DepthMode, Lighting, MeshResource, NativeWindow, OverlayQuad, PrimitiveKind,
    RenderResources, RenderTarget, SkipReason, SkippedObject, TextureLevel, TextureResource,
    TextureStage, VisibleObject,
};

fn frame() -> RenderFrame {
    let state = LegacyRenderState {
        stages: [
            TextureStage {
                texture: 0,
                op: TextureOp::Modulate,
                uv_scale: [1.0, 0.1],
            },
            TextureStage::OFF,
        ],
        blend: BlendMode::AlphaBlend,
        depth: DepthMode {
            test: true,
            write: false,
        },
        cull: CullMode::Back,
        alpha_test: true,
        alpha_ref: 128,
        vertex_format: VertexFormat::PositionNormalUv,
    };
    let item = DrawItem {
        object: 7,
        node: 2,
        slot: 3,
        mesh: 0,
        batch_flags: 0x20,
        index_start: 6,
        index_count: 12,
        base_vertex: 4,
        world: Mat4f::default(),
        material: 0x0001_0002,
        phase_a: 1,
        phase_b: 2,
        phase_t: 0.25,
        phase: RenderPhase::Transparent,
        sort_key: u64::MAX - 5,
        insertion: 9,
        state,
    };
    RenderFrame {
        frame: 42,
        tick: 40,
        time_ms: 2000,
        camera: Camera {
            position: Vec3f {
                x: 1.0,
                y: 2.0,
                z: 3.5,
            },
            yaw: 0.1,
            pitch: -0.2,
            fov: 1.2,
            near: 1.0,
            far: 500.0,
            view: Mat4f::default(),
            projection: Mat4f::default(),
        },
        lighting: Lighting {
            sun_direction: Vec3f {
                x: 0.0,
                y: 0.0,
                z: 1.0,
            },
            sun_colour: [0.8, 0.8, 0.7],
            ambient: [0.2, 0.2, 0.25],
        },
        target: RenderTarget {
            width: 640,
            height: 480,
            window: RNone,
            clear: [10, 20, 30, 255],
        },
        resources: RArc::new(RenderResources {
            id: 99,
            meshes: vec![MeshResource {
                name: "objects.rlib:tank.msh".into(),
                positions: vec![[0.0; 3]; 5].into(),
                normals: vec![[0.0; 3]; 5].into(),
                uvs: vec![[0.0; 2]; 5].into(),
                indices: vec![0u16; 18].into(),
            }]
            .into(),
            textures: vec![TextureResource {
                name: "TANK.0".into(),
                kind: TextureKind::Diffuse,
                skipped_levels: 1,
                levels: vec![
                    TextureLevel {
                        width: 4,
                        height: 2,
                        rgba: vec![0; 32].into(),
                    },
                    TextureLevel {
                        width: 2,
                        height: 1,
                        rgba: vec![0; 8].into(),
                    },
                ]
                .into(),
            }]
            .into(),
        }),
        visible: vec![VisibleObject {
            id: 7,
            mesh: 0,
            lod: 1,
            group: 0,
            first_node: 0,
            node_count: 3,
            distance: 12.5,
        }]
        .into(),
        skipped: vec![SkippedObject {
            id: 8,
            reason: SkipReason::Culled,
        }]
        .into(),
        nodes: vec![Mat4f::default(); 3].into(),
        items: vec![item].into(),
    }
}

#[test]
fn json_has_the_expected_fields_and_values() {
    let j = frame_json(&frame());
    assert_eq!(j["frame"], 42);
    assert_eq!(j["tick"], 40);
    assert_eq!(j["time_ms"], 2000);
    assert_eq!(
        j["target"],
        serde_json::json!({"width": 640, "height": 480, "clear": [10, 20, 30, 255], "window": false})
    );
    assert_eq!(j["camera"]["position"], serde_json::json!([1.0, 2.0, 3.5]));
    assert_eq!(
        j["camera"]["yaw"],
        serde_json::json!(0.1),
        "shortest f32 decimal"
    );
    assert_eq!(j["camera"]["far"], 500.0);
    let identity = serde_json::json!([
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
    ]);
    assert_eq!(j["camera"]["view"], identity);
    assert_eq!(
        j["lighting"]["ambient"],
        serde_json::json!([0.2, 0.2, 0.25])
    );
    assert!(
        j["resources"].get("id").is_none(),
        "the upload-cache id is not part of the command list"
    );
    assert_eq!(
        j["resources"]["meshes"],
        serde_json::json!([{"name": "objects.rlib:tank.msh", "vertices": 5, "indices": 18}])
    );
    assert_eq!(
        j["resources"]["textures"],
        serde_json::json!([{"name": "TANK.0", "kind": "diffuse", "skipped_levels": 1, "width": 4, "height": 2, "levels": 2}])
    );
    assert_eq!(
        j["visible"],
        serde_json::json!([{"id": 7, "mesh": 0, "lod": 1, "group": 0, "first_node": 0, "node_count": 3, "distance": 12.5}])
    );
    assert_eq!(
        j["skipped"],
        serde_json::json!([{"id": 8, "reason": "culled"}])
    );
    assert_eq!(j["phases"]["transparent"], 1);
    assert_eq!(j["phases"]["opaque_terrain"], 0);
    assert_eq!(j["phases"].as_object().map(|m| m.len()), Some(7));
    let it = &j["items"][0];
    assert_eq!(it["insertion"], 9);
    assert_eq!(it["phase"], "transparent");
    assert_eq!(it["sort_key"], u64::MAX - 5);
    assert_eq!(it["material"], 0x0001_0002);
    assert_eq!(it["batch_flags"], 0x20);
    assert_eq!(it["phase_t"], 0.25);
    assert_eq!(it["world"], identity);
    let st = &it["state"];
    assert_eq!(
        st["stages"][0],
        serde_json::json!({"texture": 0, "op": "modulate", "uv_scale": [1.0, 0.1]})
    );
    assert_eq!(st["blend"], "alpha_blend");
    assert_eq!(
        st["depth"],
        serde_json::json!({"test": true, "write": false})
    );
    assert_eq!(st["cull"], "back");
    assert_eq!(st["alpha_test"], true);
    assert_eq!(st["alpha_ref"], 128);
    assert_eq!(st["vertex_format"], "position_normal_uv");
    assert_eq!(st["pipeline_key"], frame().items[0].state.pipeline_key());
}

#[test]
fn no_texture_is_null_and_window_is_a_flag() {
    let mut f = frame();
    f.target.window = RSome(NativeWindow {
        kind: 0,
        display: 1,
        window: 2,
        screen: 0,
    });
    f.camera.pitch = f32::NAN;
    let j = frame_json(&f);
    let stage1 = &j["items"][0]["state"]["stages"][1];
    assert!(stage1["texture"].is_null());
    assert_eq!(stage1["op"], "disable");
    assert_eq!(j["target"]["window"], true);
    assert!(j["camera"]["pitch"].is_null(), "NaN is written as null");
}

#[test]
fn same_frame_gives_the_identical_string() {
    let a = frame_json_pretty(&frame());
    let b = frame_json_pretty(&frame());
    assert_eq!(a, b);
    assert!(a.ends_with("}\n"));
    // Sorted keys: "camera" comes before "frame" before "items".
    let (c, f, i) = (
        a.find("\"camera\""),
        a.find("\"frame\""),
        a.find("\"items\""),
    );
    assert!(c < f && f < i, "{c:?} {f:?} {i:?}");
    // And it parses back to the same value.
    let back: Value = serde_json::from_str(&a).expect("valid JSON");
    assert_eq!(back, frame_json(&frame()));
}

#[test]
fn plugin_keeps_the_last_frame_and_draws_no_pixels() {
    let d = describe();
    assert_eq!(d.factories.len(), 1);
    assert_eq!(d.factories[0].name.as_str(), FACTORY);
    assert_eq!(d.factories[0].slot, SlotKind::Render);
    let mut p = iron3d_abi::RendererPlugin::new(CaptureRender::new(), STATE_FORMAT);
    assert!(p.capture_commands().is_err(), "nothing drawn yet");
    let stats = p.draw(&frame()).expect("draw");
    assert_eq!((stats.draw_items, stats.objects), (1, 1));
    let json = p.capture_commands().expect("commands");
    assert_eq!(json.as_str(), frame_json_pretty(&frame()));
    assert_eq!(p.last_commands(), Some(json.as_str()));
    let err = p.capture().expect_err("no pixels");
    assert_eq!(err.message.as_str(), NO_PIXELS);
    let blob = p.save_state().expect("state");
    assert_eq!(
        (blob.format.as_str(), blob.version),
        (STATE_FORMAT, STATE_VERSION)
    );
    assert!(p.restore_state(&blob).is_ok());
    assert!(p.renderer().is_some());
}

// ---------------------------------------------------------------- overlay (2.4)

fn hud() -> Overlay {
    Overlay {
        textures_id: 0x1234_5678_9abc,
        textures: RArc::new(
            vec![
                TextureLevel {
                    width: 8,
                    height: 4,
                    rgba: vec![255; 8 * 4 * 4].into(),
                },
                TextureLevel {
                    width: 2,
                    height: 2,
                    rgba: vec![0; 3].into(),
                },
            ]
            .into(),
        ),
        quads: vec![
            OverlayQuad::solid([4.0, 4.0, 60.5, 20.25], [20, 40, 200, 128]),
            OverlayQuad {
                rect: [64.0, 56.0, 96.0, 88.0],
                uv: [0.0, 0.1, 1.0, 0.75],
                texture: 0,
                color: [255, 255, 255, 255],
            },
            OverlayQuad {
                rect: [f32::NAN, 0.0, 1.0, 1.0],
                uv: [0.0; 4],
                texture: 7,
                color: [1, 2, 3, 4],
            },
        ]
        .into(),
    }
}

#[test]
fn the_overlay_is_listed_after_the_items_with_every_quad_in_order() {
    let j = frame_overlay_json(&frame(), &hud());
    let o = &j["overlay"];
    assert_eq!(o["textures_id"], 0x1234_5678_9abc_u64);
    assert_eq!(
        o["textures"],
        serde_json::json!([
            {"width": 8, "height": 4, "bytes": 128},
            {"width": 2, "height": 2, "bytes": 3}
        ])
    );
    assert_eq!(
        o["quads"],
        serde_json::json!([
            {"rect": [4.0, 4.0, 60.5, 20.25], "uv": [0.0, 0.0, 0.0, 0.0], "texture": null, "color": [20, 40, 200, 128]},
            {"rect": [64.0, 56.0, 96.0, 88.0], "uv": [0.0, 0.1, 1.0, 0.75], "texture": 0, "color": [255, 255, 255, 255]},
            {"rect": [null, 0.0, 1.0, 1.0], "uv": [0.0, 0.0, 0.0, 0.0], "texture": 7, "color": [1, 2, 3, 4]}
        ])
    );
    // Every other key is the frame's JSON, unchanged.
    let mut without = j.clone();
    without.as_object_mut().unwrap().remove("overlay");
    assert_eq!(without, frame_json(&frame()));
    // In the text the overlay comes after the items (sorted keys), and it parses back.
    let text = frame_overlay_json_pretty(&frame(), &hud());
    let (items, overlay) = (text.find("\"items\""), text.find("\"overlay\""));
    assert!(items.is_some() && items < overlay, "{items:?} {overlay:?}");
    assert!(text.ends_with("}\n"));
    assert_eq!(text, frame_overlay_json_pretty(&frame(), &hud()));
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back, j);
}

#[test]
fn plugin_records_the_overlay_only_when_drawn_with_one() {
    let mut p = iron3d_abi::RendererPlugin::new(CaptureRender::new(), STATE_FORMAT);
    let stats = p.draw_with_overlay(&frame(), &hud()).unwrap();
    assert_eq!((stats.draw_items, stats.objects), (1, 1));
    let json = p.capture_commands().unwrap();
    assert_eq!(json, frame_overlay_json_pretty(&frame(), &hud()));
    let parsed: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed["overlay"]["quads"].as_array().map(Vec::len), Some(3));
    // An empty overlay is still listed (it was given), with nothing in it.
    p.draw_with_overlay(&frame(), &Overlay::default()).unwrap();
    let parsed: Value = serde_json::from_str(&p.capture_commands().unwrap()).unwrap();
    assert_eq!(
        parsed["overlay"],
        serde_json::json!({"textures_id": 0, "textures": [], "quads": []})
    );
    // A plain draw afterwards has no overlay key: the pre-2.4 layout, byte for byte.
    p.draw(&frame()).unwrap();
    let json = p.capture_commands().unwrap();
    assert_eq!(json, frame_json_pretty(&frame()));
    assert!(!json.contains("\"overlay\""));
    // Still no pixels, overlay or not.
    assert!(p.capture().is_err());
}

// ---------------------------------------------------------------- effects (2.11)

fn fx(
    instance: u32,
    command: u32,
    kind: PrimitiveKind,
    blend: EffectBlend,
    at: [f32; 3],
) -> EffectPrimitive {
    let position = Vec3f {
        x: at[0],
        y: at[1],
        z: at[2],
    };
    EffectPrimitive {
        instance,
        command,
        kind,
        blend,
        position,
        end: position,
        size: 1.0,
        height: 1.0,
        rotation: 0.0,
        colour: [1.0; 4],
        texture: iron3d_abi::NO_EFFECT_TEXTURE,
    }
}

/// Two instances: instance 3 emits three additive particles with the smoke texture
/// (command 0) and an alpha streak (command 2); instance 8 two alpha billboards (a
/// texture index past the names), then (same command) an additive particle, then an
/// unknown kind.
fn two_instances() -> EffectFrame {
    let (add, alpha) = (EffectBlend::ADDITIVE, EffectBlend::ALPHA);
    let (particle, billboard) = (PrimitiveKind::PARTICLE, PrimitiveKind::BILLBOARD);
    let textured = |mut p: EffectPrimitive, t: u32| {
        p.texture = t;
        p
    };
    EffectFrame {
        frame: 42,
        tick: 40,
        instances: 2,
        primitives: vec![
            textured(fx(3, 0, particle, add, [1.0, 2.0, 3.0]), 0),
            textured(fx(3, 0, particle, add, [-1.5, 4.0, 0.1]), 0),
            textured(fx(3, 0, particle, add, [0.5, f32::NAN, 7.25]), 0),
            fx(3, 2, PrimitiveKind::STREAK, alpha, [10.0, 0.0, 0.0]),
            textured(fx(8, 0, billboard, alpha, [5.0, 5.0, 5.0]), 5),
            textured(fx(8, 0, billboard, alpha, [6.0, 4.0, 5.0]), 5),
            fx(8, 0, particle, add, [0.0, 0.0, 0.0]),
            fx(
                8,
                0,
                PrimitiveKind(77),
                EffectBlend(9),
                [f32::INFINITY, 1.0, 1.0],
            ),
        ]
        .into(),
        textures: vec!["sprites.lib/SMOKE.TEX".into()].into(),
    }
}

#[test]
fn effects_are_grouped_in_list_order_by_instance_command_kind_and_blend() {
    let j = effects_json(&two_instances());
    assert_eq!(
        j,
        serde_json::json!({
            "frame": 42, "tick": 40, "instances": 2, "primitives": 8,
            "groups": [
                {"instance": 3, "command": 0, "kind": "particle", "blend": "additive", "count": 3,
                 "texture": "sprites.lib/SMOKE.TEX",
                 "first": [1.0, 2.0, 3.0], "min": [-1.5, 2.0, 0.1], "max": [1.0, 4.0, 7.25]},
                {"instance": 3, "command": 2, "kind": "streak", "blend": "alpha", "count": 1,
                 "texture": null,
                 "first": [10.0, 0.0, 0.0], "min": [10.0, 0.0, 0.0], "max": [10.0, 0.0, 0.0]},
                {"instance": 8, "command": 0, "kind": "billboard", "blend": "alpha", "count": 2,
                 "texture": null,
                 "first": [5.0, 5.0, 5.0], "min": [5.0, 4.0, 5.0], "max": [6.0, 5.0, 5.0]},
                {"instance": 8, "command": 0, "kind": "particle", "blend": "additive", "count": 1,
                 "texture": null,
                 "first": [0.0, 0.0, 0.0], "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]},
                {"instance": 8, "command": 0, "kind": "unknown", "blend": "unknown", "count": 1,
                 "texture": null,
                 "first": [null, 1.0, 1.0], "min": [null, 1.0, 1.0], "max": [null, 1.0, 1.0]}
            ]
        })
    );
    // No primitives: no groups.
    let empty = effects_json(&EffectFrame::default());
    assert_eq!(empty["groups"], serde_json::json!([]));
    assert_eq!(empty["primitives"], 0);
}

#[test]
fn plugin_records_effects_only_for_the_frame_they_were_handed_over_for() {
    let mut p = iron3d_abi::RendererPlugin::new(CaptureRender::new(), STATE_FORMAT);
    // Without effects: no "effects" key, the pre-2.11 text byte for byte.
    p.draw(&frame()).unwrap();
    let plain = p.capture_commands().unwrap();
    assert_eq!(plain, frame_json_pretty(&frame()));
    assert!(!plain.contains("\"effects\""));

    assert!(Renderer::effects(&mut *p, &two_instances()).is_ok());
    p.draw(&frame()).unwrap();
    let json = p.capture_commands().unwrap();
    let parsed: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(parsed["effects"], effects_json(&two_instances()));
    assert_eq!(
        parsed["effects"]["groups"].as_array().map(Vec::len),
        Some(5)
    );
    // Every other key is the frame's JSON, unchanged; the keys stay sorted.
    let mut without = parsed.clone();
    without.as_object_mut().unwrap().remove("effects");
    assert_eq!(without, frame_json(&frame()));
    let (camera, effects, frame_key) = (
        json.find("\"camera\""),
        json.find("\"effects\""),
        json.find("\"frame\""),
    );
    assert!(
        camera < effects && effects < frame_key,
        "{camera:?} {effects:?} {frame_key:?}"
    );

    // Used once: the next frame has no effects key again.
    p.draw(&frame()).unwrap();
    assert_eq!(p.capture_commands().unwrap(), plain);

    // With an overlay too, both keys.
    Renderer::effects(&mut *p, &two_instances()).unwrap();
    p.draw_with_overlay(&frame(), &hud()).unwrap();
    let parsed: Value = serde_json::from_str(&p.capture_commands().unwrap()).unwrap();
    assert_eq!(parsed["effects"]["primitives"], 8);
    assert_eq!(parsed["overlay"]["quads"].as_array().map(Vec::len), Some(3));
}
