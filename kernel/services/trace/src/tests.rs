//! The trace of a small scripted world: header, events in order, state changes,
//! sampling, the objects' clan and prototype, messages with their code, decoded fields
//! and capped hex payload, and byte-identical output for identical runs.

use super::*;
use glam::{Quat, Vec3};
use iron3d_abi::{SoundBus, SoundEvent, SoundKind, Vec3f};
use iron3d_kernel::{
    CalcSlot, DeleteMode, KernelConfig, ManualTimeSource, ObjectDesc, ObjectHandle,
    OriginalObjectId, PluginMessage, PropertyBag, System, SystemCtx, SystemResult, Target,
    Transform,
};

/// Moves every object +1 along its heading per second; object 1 collides with 2 in
/// tick 2 and changes state in tick 3; object 3 deletes itself in tick 2.
struct Script;

impl System for Script {
    fn name(&self) -> &str {
        "script"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let tick = ctx.time().tick;
        let dt = ctx.time().step_seconds();
        let o = ctx.object_mut(h)?;
        let id = o.id.0;
        o.velocity = o.transform.orientation * Vec3::X;
        o.transform.position += o.velocity * dt;
        if id == 1 && tick == 3 {
            o.behaviour_state = 7;
        }
        if id == 1 && tick == 2 {
            let other = ctx.world().handle_of(OriginalObjectId(2)).unwrap();
            ctx.send(
                Target::Object(other),
                GameMessage::CollisionDetected {
                    a: OriginalObjectId(1),
                    b: OriginalObjectId(2),
                    point: [0.5, 0.0, 0.0],
                },
            )?;
        }
        if id == 3 && tick == 2 {
            ctx.delete(h, DeleteMode::Normal)?;
        }
        Ok(())
    }
}

/// Sends `messages` to every system from object 1 in tick 1.
struct Sender {
    messages: Vec<GameMessage>,
}

impl System for Sender {
    fn name(&self) -> &str {
        "sender"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        if ctx.time().tick == 1 && ctx.object(h)?.id.0 == 1 {
            for m in std::mem::take(&mut self.messages) {
                ctx.send(Target::Systems, m)?;
            }
        }
        Ok(())
    }
}

/// Objects 3, 1, 2 (created out of id order): 1 of clan 4 made from a CP1251-named
/// prototype, 2 of clan 0 from a unit DAT, 3 with neither.
fn world_with(system: Box<dyn System>) -> Kernel {
    let mut k = Kernel::new(KernelConfig::default(), Box::new(ManualTimeSource::new())).unwrap();
    k.add_system(system).unwrap();
    let w = k.world_mut().unwrap();
    // Created out of id order: the trace is still by id.
    for (id, heading) in [(3, 0.0), (1, 0.0), (2, std::f32::consts::FRAC_PI_2)] {
        let mut props = PropertyBag::new();
        props.push(&b"Life state"[..], [0, 10 * id, 0, 0]);
        let prototype = match id {
            1 => {
                props.push(&b"ClanID"[..], [0, 4, 0, 0]);
                props.push(&b"ClanID"[..], [0, 9, 0, 0]);
                b"\xD2\xE0\xED\xEA".to_vec()
            }
            2 => {
                props.push(&b"ClanID"[..], [0, 0, 0, 0]);
                b"UNITS\\Tank.dat".to_vec()
            }
            _ => Vec::new(),
        };
        let h = w
            .create(ObjectDesc {
                id: Some(OriginalObjectId(id)),
                transform: Transform {
                    position: Vec3::new(id as f32, 0.0, 0.0),
                    orientation: Quat::from_rotation_z(heading),
                    ..Transform::default()
                },
                props,
                prototype,
                ..ObjectDesc::default()
            })
            .unwrap();
        w.add_to_game(h).unwrap();
    }
    k
}

fn world() -> Kernel {
    world_with(Box::new(Script))
}

fn run(mut k: Kernel, every: u64, ticks: u64) -> String {
    let mut t = TraceWriter::new(Vec::new(), every).unwrap();
    t.start(&mut k).unwrap();
    for _ in 0..ticks {
        k.step(&[]).unwrap();
        t.after_tick(&k).unwrap();
    }
    String::from_utf8(t.finish(&k).unwrap()).unwrap()
}

fn trace(every: u64, ticks: u64) -> String {
    run(world(), every, ticks)
}

/// The `message` lines of a run that sends `messages` in tick 1.
fn message_lines(messages: Vec<GameMessage>) -> Vec<Value> {
    let out = run(world_with(Box::new(Sender { messages })), 100, 2);
    lines(&out)
        .into_iter()
        .filter(|l| l["type"] == "message")
        .collect()
}

/// A plugin message of `code` from the `ai` plugin carrying `payload`.
fn plugin(code: u32, payload: Vec<u8>) -> PluginMessage {
    PluginMessage {
        code,
        to_system: None,
        from_system: Some("plugin:ai".into()),
        object_a: 7,
        object_b: 8,
        player: 2,
        value: u64::MAX,
        point: [1.5, -2.0, 0.25],
        payload,
    }
}

/// The kernel form of a sound event message (as the plugin host builds it).
fn sound_message(e: &SoundEvent) -> PluginMessage {
    let m = e.to_message().unwrap();
    PluginMessage {
        code: m.code.0,
        to_system: Some("plugin:audio".into()),
        from_system: Some("plugin:ai".into()),
        object_a: m.object_a,
        object_b: m.object_b,
        player: m.player,
        value: m.value,
        point: [m.point.x, m.point.y, m.point.z],
        payload: m.payload.to_vec(),
    }
}

fn lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn header_sample_events_and_state_changes_in_order() {
    let out = trace(2, 4);
    let l = lines(&out);
    assert_eq!(
        l[0],
        json!({"format": "iron3d-trace", "version": 2, "every": 2})
    );
    let kinds: Vec<(u64, String)> = l[1..]
        .iter()
        .map(|v| {
            (
                v["tick"].as_u64().unwrap(),
                v["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expect: Vec<(u64, &str)> = vec![
        (0, "object"),
        (0, "object"),
        (0, "object"),
        (1, "added"),
        (1, "added"),
        (1, "added"),
        (2, "collision"),
        (2, "removed"),
        (2, "object"),
        (2, "object"),
        (3, "state"),
        (4, "object"),
        (4, "object"),
    ];
    let got: Vec<(u64, &str)> = kinds.iter().map(|(t, k)| (*t, k.as_str())).collect();
    assert_eq!(got, expect, "{out}");
    // Tick 0 objects are by id, with life from `Life state` and the heading as yaw.
    assert_eq!(l[1]["id"], 1);
    assert_eq!(l[1]["life"], 10);
    assert_eq!(l[1]["pos"], json!([1.0, 0.0, 0.0]));
    assert_eq!(l[2]["id"], 2);
    assert!((l[2]["heading"].as_f64().unwrap() - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
    assert_eq!(l[3]["id"], 3);
    // The clan is the first `ClanID`'s value, the prototype its CP1251 text; an object
    // without either has nulls.
    assert_eq!(l[1]["clan"], 4);
    assert_eq!(l[1]["prototype"], "Танк");
    assert_eq!(l[2]["clan"], 0);
    assert_eq!(l[2]["prototype"], "UNITS\\Tank.dat");
    assert_eq!(l[3]["clan"], Value::Null);
    assert_eq!(l[3]["prototype"], Value::Null);
    // The collision names both ids and the point; the deletion is object 3.
    assert_eq!(
        l[7],
        json!({"tick": 2, "type": "collision", "a": 1, "b": 2, "point": [0.5, 0.0, 0.0], "to": 2})
    );
    assert_eq!(l[8], json!({"tick": 2, "type": "removed", "id": 3}));
    assert_eq!(
        l[11],
        json!({"tick": 3, "type": "state", "id": 1, "from": 0, "to": 7})
    );
    // Positions advance with the fixed step (30 Hz: 4 ticks = 4/30 s), written as the
    // shortest f32 decimal.
    let x = l[12]["pos"][0].as_f64().unwrap() as f32;
    let dt = 1.0 / 30.0f32;
    assert_eq!(x, 1.0 + dt + dt + dt + dt, "{}", l[12]);
    assert_eq!(l[12]["vel"], json!([1.0, 0.0, 0.0]));
}

#[test]
fn identical_runs_write_identical_bytes() {
    assert_eq!(trace(1, 6), trace(1, 6));
    assert_ne!(trace(1, 6), trace(3, 6));
}

#[test]
fn a_zero_interval_is_refused() {
    assert!(matches!(
        TraceWriter::new(Vec::new(), 0),
        Err(TraceError::ZeroInterval)
    ));
}

#[test]
fn numbers_are_shortest_and_non_finite_is_null() {
    assert_eq!(num(0.1).to_string(), "0.1");
    assert_eq!(num(f32::NAN), Value::Null);
    assert_eq!(num(f32::INFINITY), Value::Null);
}

#[test]
fn messages_carry_their_code_name_decoded_fields_and_payload() {
    let l = message_lines(vec![
        GameMessage::TextForPlayer {
            player: 1,
            // "Победа" in CP1251.
            text: b"\xCF\xEE\xE1\xE5\xE4\xE0".to_vec(),
        },
        GameMessage::SetTime { game_time_ns: 5 },
        GameMessage::ChangeObjectOwner {
            object: OriginalObjectId(0x1_2345),
            new_owner: 3,
        },
        GameMessage::AppendResource {
            name: b"TEX.LIB".to_vec(),
            data: vec![9, 0],
        },
        GameMessage::Plugin(plugin(0x1000_A100, vec![1, 2, 0xAB])),
        GameMessage::Plugin(plugin(0x200, vec![0xFF])),
    ]);
    assert_eq!(l.len(), 6, "{l:?}");
    assert_eq!(
        l[0],
        json!({"tick": 1, "type": "message", "code": 7, "name": "GMSG_TEXT_FOR_PLAYER",
            "to": null, "fields": {"player": 1, "text": "Победа"},
            "payload_len": 6, "payload_hex": "cfeee1e5e4e0", "truncated": false})
    );
    assert_eq!(
        l[1],
        json!({"tick": 1, "type": "message", "code": 13, "name": "SYSMSG_SET_TIME",
            "to": null, "fields": {"game_time_ns": 5},
            "payload_len": 0, "payload_hex": "", "truncated": false})
    );
    assert_eq!(l[2]["code"], 3);
    assert_eq!(l[2]["name"], "GMSG_CHANGE_OBJECT_OWNER");
    assert_eq!(l[2]["fields"], json!({"object": 0x1_2345, "new_owner": 3}));
    // The payload is what a plugin sees: the name, a NUL, the data.
    assert_eq!(l[3]["code"], 2);
    assert_eq!(l[3]["fields"], json!({"name": "TEX.LIB", "data_len": 2}));
    assert_eq!(l[3]["payload_hex"], "5445582e4c4942000900");
    assert_eq!(l[3]["payload_len"], 10);
    // A plugin's order: its code, who sent it and its flat fields.
    assert_eq!(
        l[4],
        json!({"tick": 1, "type": "message", "code": 0x1000_A100u32, "name": "PLUGIN_MESSAGE",
            "to": null, "fields": {"from": "plugin:ai", "to_system": null, "object_a": 7,
            "object_b": 8, "player": 2, "value": u64::MAX, "point": [1.5, -2.0, 0.25]},
            "payload_len": 3, "payload_hex": "0102ab", "truncated": false})
    );
    // A code outside every known range has no name (never a guess).
    assert_eq!(l[5]["code"], 0x200);
    assert_eq!(l[5]["name"], Value::Null);
    assert_eq!(l[5]["payload_hex"], "ff");
}

#[test]
fn sound_events_are_decoded_and_a_malformed_one_falls_back_to_hex() {
    let rain = SoundEvent {
        kind: SoundKind::START_LOOP,
        library: "SOUNDS.LIB".into(),
        name: "RAIN.WAV".into(),
        owner: 7,
        position: Some(Vec3f {
            x: 1.0,
            y: 2.0,
            z: 3.5,
        }),
        volume: 0.5,
        bus: SoundBus::AMBIENT,
        loop_id: 3,
        ..SoundEvent::default()
    };
    let good = sound_message(&rain);
    let good_len = good.payload.len();
    // Lengths that claim more than the payload holds.
    let mut lying = sound_message(&rain);
    lying.payload[24..28].copy_from_slice(&200u32.to_le_bytes());
    // An entry name that is not UTF-8.
    let mut not_utf8 = sound_message(&rain);
    let last = not_utf8.payload.len() - 1;
    not_utf8.payload[last] = 0xFF;
    let l = message_lines(vec![
        GameMessage::Plugin(good),
        GameMessage::Plugin(plugin(0x100, vec![1, 2, 3])),
        GameMessage::Plugin(lying),
        GameMessage::Plugin(not_utf8),
    ]);
    assert_eq!(l.len(), 4, "{l:?}");
    assert_eq!(l[0]["code"], 0x100);
    assert_eq!(l[0]["name"], "SOUND");
    assert_eq!(l[0]["fields"]["from"], "plugin:ai");
    assert_eq!(l[0]["fields"]["to_system"], "plugin:audio");
    assert_eq!(
        l[0]["fields"]["sound"],
        json!({"kind": 1, "bus": 1, "library": "SOUNDS.LIB", "name": "RAIN.WAV", "owner": 7,
            "position": [1.0, 2.0, 3.5], "volume": 0.5, "min_distance": 10.0,
            "max_distance": 500.0, "rate": 1.0, "loop_id": 3})
    );
    assert_eq!(l[0]["fields"].get("sound_error"), None);
    assert_eq!(l[0]["payload_len"], good_len);
    // Malformed: no event, the reason, and the bytes as hex.
    assert_eq!(l[1]["fields"]["sound"], Value::Null);
    let why = l[1]["fields"]["sound_error"].as_str().unwrap();
    assert!(why.contains("3 payload bytes"), "{why}");
    assert_eq!(l[1]["payload_hex"], "010203");
    for bad in &l[2..] {
        assert_eq!(bad["fields"]["sound"], Value::Null, "{bad}");
        assert!(bad["fields"]["sound_error"].is_string(), "{bad}");
        assert_eq!(bad["payload_len"], good_len);
    }
    assert!(
        l[3]["fields"]["sound_error"]
            .as_str()
            .unwrap()
            .contains("UTF-8"),
        "{}",
        l[3]
    );
}

#[test]
fn long_payloads_are_capped_and_say_so() {
    let bytes: Vec<u8> = (0..100u8).collect();
    let l = message_lines(vec![
        GameMessage::Plugin(plugin(0x1000_0001, bytes.clone())),
        GameMessage::Plugin(plugin(0x1000_0001, bytes[..PAYLOAD_HEX_CAP].to_vec())),
        GameMessage::TextForPlayer {
            player: 0,
            text: vec![b'a'; 300],
        },
        GameMessage::SyncState {
            object: OriginalObjectId(1),
            data: vec![0xEE; PAYLOAD_HEX_CAP + 1],
        },
    ]);
    let hex64: String = bytes[..PAYLOAD_HEX_CAP]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(l[0]["payload_len"], 100);
    assert_eq!(l[0]["payload_hex"], hex64.as_str());
    assert_eq!(l[0]["truncated"], true);
    assert_eq!(l[1]["payload_len"], PAYLOAD_HEX_CAP);
    assert_eq!(l[1]["payload_hex"], hex64.as_str());
    assert_eq!(l[1]["truncated"], false);
    // A long text: cut at TEXT_CAP bytes, the hex at PAYLOAD_HEX_CAP, the full length told.
    assert_eq!(l[2]["fields"]["text"], "a".repeat(TEXT_CAP).as_str());
    assert_eq!(l[2]["payload_len"], 300);
    assert_eq!(l[2]["payload_hex"], "61".repeat(PAYLOAD_HEX_CAP).as_str());
    assert_eq!(l[2]["truncated"], true);
    assert_eq!(l[3]["fields"], json!({"object": 1}));
    assert_eq!(l[3]["payload_len"], PAYLOAD_HEX_CAP + 1);
    assert_eq!(l[3]["payload_hex"], "ee".repeat(PAYLOAD_HEX_CAP).as_str());
    assert_eq!(l[3]["truncated"], true);
}

#[test]
fn every_typed_message_has_its_original_code_and_name() {
    let o = OriginalObjectId(5);
    let all = [
        GameMessage::CreateRemotePlayer {
            player: 1,
            data: vec![],
        },
        GameMessage::AppendResource {
            name: vec![],
            data: vec![],
        },
        GameMessage::ChangeObjectOwner {
            object: o,
            new_owner: 1,
        },
        GameMessage::SetPlayerData {
            player: 1,
            data: vec![],
        },
        GameMessage::MissionDataPath { path: vec![] },
        GameMessage::TakeObject {
            object: o,
            player: 1,
        },
        GameMessage::TextForPlayer {
            player: 1,
            text: vec![],
        },
        GameMessage::SyncState {
            object: o,
            data: vec![],
        },
        GameMessage::CreateMirror {
            object: o,
            owner: 1,
            data: vec![],
        },
        GameMessage::PauseRemotePlayer {
            player: 1,
            paused: true,
        },
        GameMessage::ConfirmPlayerData { player: 1 },
        GameMessage::KillPlayer { player: 1 },
        GameMessage::SetTime { game_time_ns: 1 },
        GameMessage::SetPlayerNumber { player: 1 },
        GameMessage::EndMessageSeq { sequence: 1 },
        GameMessage::RemoveResource { name: vec![] },
        GameMessage::CollisionDetected {
            a: o,
            b: o,
            point: [0.0; 3],
        },
    ];
    let codes: Vec<u32> = all.iter().map(code_of).collect();
    assert_eq!(codes, (1..=17).collect::<Vec<u32>>());
    for m in &all {
        assert_eq!(code_name(code_of(m)), Some(m.name()), "{m:?}");
    }
    assert_eq!(code_name(0x100), Some("SOUND"));
    assert_eq!(code_name(0x101), Some("CONTACT_ENDED"));
    assert_eq!(code_name(0x102), Some("EFFECT"));
    assert_eq!(code_name(0x1000_0000), Some("PLUGIN_MESSAGE"));
    assert_eq!(code_name(0x7FFF_FFFF), Some("PLUGIN_MESSAGE"));
    assert_eq!(code_name(0), None);
    assert_eq!(code_name(0x8000_0000), None);
}

#[test]
fn effect_events_are_decoded_and_a_malformed_one_falls_back_to_hex() {
    let shot = iron3d_abi::EffectEvent::at(
        "",
        "SHOT",
        7,
        Vec3f {
            x: 1.0,
            y: 2.0,
            z: 3.5,
        },
    )
    .towards(Vec3f {
        x: 9.0,
        y: 2.0,
        z: 3.5,
    });
    let m = shot.to_message().unwrap();
    let good = PluginMessage {
        code: m.code.0,
        to_system: Some("plugin:effects".into()),
        from_system: Some("plugin:ai".into()),
        object_a: m.object_a,
        object_b: m.object_b,
        player: m.player,
        value: m.value,
        point: [m.point.x, m.point.y, m.point.z],
        payload: m.payload.to_vec(),
    };
    let l = message_lines(vec![
        GameMessage::Plugin(good),
        GameMessage::Plugin(plugin(0x102, vec![9, 9])),
    ]);
    assert_eq!(l[0]["code"], 0x102);
    assert_eq!(l[0]["name"], "EFFECT");
    assert_eq!(
        l[0]["fields"]["effect"],
        json!({"library": "", "name": "SHOT", "owner": 7, "position": [1.0, 2.0, 3.5],
            "target": [9.0, 2.0, 3.5], "scale": 1.0})
    );
    assert_eq!(l[1]["fields"]["effect"], Value::Null);
    let why = l[1]["fields"]["effect_error"].as_str().unwrap();
    assert!(why.contains("2 payload bytes"), "{why}");
    assert_eq!(l[1]["payload_hex"], "0909");
}

#[test]
fn decoding_any_sound_payload_never_panics() {
    // A fixed pseudo-random sequence: headers whose lengths sometimes fit, names that
    // are sometimes UTF-8, numbers that are sometimes NaN.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut decoded = 0;
    for _ in 0..2000 {
        let len = (next() % 80) as usize;
        let mut payload: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if len >= 32 && next() % 2 == 0 {
            let lib = (next() % (len as u64 - 31)) as u32;
            payload[24..28].copy_from_slice(&lib.to_le_bytes());
            payload[28..32].copy_from_slice(&(len as u32 - 32 - lib).to_le_bytes());
        }
        let line = message::message_line(
            1,
            None,
            &GameMessage::Plugin(plugin(0x100, payload.clone())),
        );
        let f = &line["fields"];
        assert_eq!(f["sound"].is_null(), f["sound_error"].is_string(), "{line}");
        decoded += usize::from(f["sound"].is_object());
        let hex: String = payload[..len.min(PAYLOAD_HEX_CAP)]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(line["payload_hex"], hex.as_str());
        assert_eq!(line["payload_len"], len);
    }
    assert!(decoded > 0, "some payloads are well-formed events");
}

#[test]
fn identical_message_runs_write_identical_bytes() {
    let messages = || {
        vec![
            GameMessage::Plugin(plugin(0x1000_0002, vec![4; 70])),
            GameMessage::TextForPlayer {
                player: 2,
                text: b"go".to_vec(),
            },
        ]
    };
    let a = run(
        world_with(Box::new(Sender {
            messages: messages(),
        })),
        1,
        3,
    );
    let b = run(
        world_with(Box::new(Sender {
            messages: messages(),
        })),
        1,
        3,
    );
    assert_eq!(a, b);
    assert!(a.contains("\"type\":\"message\""), "{a}");
}
