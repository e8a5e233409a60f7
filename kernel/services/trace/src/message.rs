//! The content of a `message` line: the message's code and name, its fields decoded for
//! the codes this crate knows, and its payload as capped hex.
//!
//! Codes are those of the plugin interface (`iron3d_abi::MessageCode`, PD-MSG-CODES):
//! the originals 1..=17, `SOUND` (`0x100`, PD-MSG-SOUND), `CONTACT_ENDED` (`0x101`),
//! `EFFECT` (`0x102`, PD-MSG-EFFECT) and the plugin range. The
//! payload is the byte string a plugin would see as the message's `payload`. Decoding
//! reads only the bytes that are there: a payload that does not hold what its code
//! promises is shown as hex with the reason, never a panic.

use iron3d_abi::{EffectEvent, Message, MessageCode, SoundEvent, Vec3f, WeatherEvent};
use iron3d_kernel::{GameMessage, PluginMessage};
use serde_json::{Map, Value, json};

/// How many payload bytes a `message` line shows as hex (`payload_hex`); `payload_len`
/// always gives the full length.
pub const PAYLOAD_HEX_CAP: usize = 64;
/// How many bytes of a text field (a player text, a path, a resource name) a `message`
/// line decodes; longer texts are cut there and the line says `"truncated":true`.
pub const TEXT_CAP: usize = 256;

/// The name the trace gives message `code`: the original `GMSG_…` / `SYSMSG_…` name,
/// `SOUND` for sound events, `CONTACT_ENDED`, `EFFECT` for effect events, `WEATHER`,
/// `PLUGIN_MESSAGE` for a plugin-defined code, `None` for any other code.
pub fn code_name(code: u32) -> Option<&'static str> {
    let c = MessageCode(code);
    if let Some(name) = c.original_name() {
        Some(name)
    } else if c == MessageCode::SOUND {
        Some("SOUND")
    } else if c == MessageCode::CONTACT_ENDED {
        Some("CONTACT_ENDED")
    } else if c == MessageCode::EFFECT {
        Some("EFFECT")
    } else if c == MessageCode::WEATHER {
        Some("WEATHER")
    } else if c.is_plugin_defined() {
        Some("PLUGIN_MESSAGE")
    } else {
        None
    }
}

/// The plugin-interface code of `m`: the original code of a typed message, the carried
/// code of a plugin message.
pub fn code_of(m: &GameMessage) -> u32 {
    let code = match m {
        GameMessage::CreateRemotePlayer { .. } => MessageCode::CREATE_REMOTE_PLAYER,
        GameMessage::AppendResource { .. } => MessageCode::APPEND_RESOURCE,
        GameMessage::ChangeObjectOwner { .. } => MessageCode::CHANGE_OBJECT_OWNER,
        GameMessage::SetPlayerData { .. } => MessageCode::SET_PLAYER_DATA,
        GameMessage::MissionDataPath { .. } => MessageCode::MISSION_DATA_PATH,
        GameMessage::TakeObject { .. } => MessageCode::TAKE_OBJECT,
        GameMessage::TextForPlayer { .. } => MessageCode::TEXT_FOR_PLAYER,
        GameMessage::SyncState { .. } => MessageCode::SYNC_STATE,
        GameMessage::CreateMirror { .. } => MessageCode::CREATE_MIRROR,
        GameMessage::PauseRemotePlayer { .. } => MessageCode::PAUSE_REMOTE_PLAYER,
        GameMessage::ConfirmPlayerData { .. } => MessageCode::CONFIRM_PLAYER_DATA,
        GameMessage::KillPlayer { .. } => MessageCode::KILL_PLAYER,
        GameMessage::SetTime { .. } => MessageCode::SET_TIME,
        GameMessage::SetPlayerNumber { .. } => MessageCode::SET_PLAYER_NUMBER,
        GameMessage::EndMessageSeq { .. } => MessageCode::END_MESSAGE_SEQ,
        GameMessage::RemoveResource { .. } => MessageCode::REMOVE_RESOURCE,
        GameMessage::CollisionDetected { .. } => MessageCode::COLLISION_DETECTED,
        GameMessage::Plugin(p) => MessageCode(p.code),
    };
    code.0
}

/// The `message` line of `m` delivered in `tick` to object `to` (`None`: a broadcast).
pub(crate) fn message_line(tick: u64, to: Option<u32>, m: &GameMessage) -> Value {
    let code = code_of(m);
    let mut cut = false;
    let mut text = |bytes: &[u8]| {
        cut |= bytes.len() > TEXT_CAP;
        cp1251(&bytes[..bytes.len().min(TEXT_CAP)])
    };
    let appended;
    let (fields, payload): (Value, &[u8]) = match m {
        GameMessage::CreateRemotePlayer { player, data } => (json!({"player": player}), data),
        GameMessage::AppendResource { name, data } => {
            let mut bytes = Vec::with_capacity(name.len() + 1 + data.len());
            bytes.extend_from_slice(name);
            bytes.push(0);
            bytes.extend_from_slice(data);
            appended = bytes;
            (
                json!({"name": text(name), "data_len": data.len()}),
                &appended,
            )
        }
        GameMessage::ChangeObjectOwner { object, new_owner } => {
            (json!({"object": object.raw(), "new_owner": new_owner}), &[])
        }
        GameMessage::SetPlayerData { player, data } => (json!({"player": player}), data),
        GameMessage::MissionDataPath { path } => (json!({"path": text(path)}), path),
        GameMessage::TakeObject { object, player } => {
            (json!({"object": object.raw(), "player": player}), &[])
        }
        GameMessage::TextForPlayer { player, text: t } => {
            (json!({"player": player, "text": text(t)}), t)
        }
        GameMessage::SyncState { object, data } => (json!({"object": object.raw()}), data),
        GameMessage::CreateMirror {
            object,
            owner,
            data,
        } => (json!({"object": object.raw(), "owner": owner}), data),
        GameMessage::PauseRemotePlayer { player, paused } => {
            (json!({"player": player, "paused": paused}), &[])
        }
        GameMessage::ConfirmPlayerData { player }
        | GameMessage::KillPlayer { player }
        | GameMessage::SetPlayerNumber { player } => (json!({"player": player}), &[]),
        GameMessage::SetTime { game_time_ns } => (json!({"game_time_ns": game_time_ns}), &[]),
        GameMessage::EndMessageSeq { sequence } => (json!({"sequence": sequence}), &[]),
        GameMessage::RemoveResource { name } => (json!({"name": text(name)}), name),
        GameMessage::CollisionDetected { a, b, point } => (
            json!({"a": a.raw(), "b": b.raw(), "point": point.map(crate::num)}),
            &[],
        ),
        GameMessage::Plugin(p) => (plugin_fields(p), &p.payload),
    };
    let shown = &payload[..payload.len().min(PAYLOAD_HEX_CAP)];
    json!({
        "tick": tick,
        "type": "message",
        "code": code,
        "name": code_name(code),
        "to": to,
        "fields": fields,
        "payload_len": payload.len(),
        "payload_hex": hex(shown),
        "truncated": cut || payload.len() > PAYLOAD_HEX_CAP,
    })
}

/// The flat fields of a plugin message, and for a sound event the event itself
/// (`sound`, or `null` and `sound_error` when the payload is not a well-formed event);
/// for an effect event likewise `effect` (or `null` and `effect_error`), for a weather
/// event `weather` (or `null` and `weather_error`).
fn plugin_fields(p: &PluginMessage) -> Value {
    let mut f = Map::new();
    f.insert("from".into(), json!(p.from_system));
    f.insert("to_system".into(), json!(p.to_system));
    f.insert("object_a".into(), json!(p.object_a));
    f.insert("object_b".into(), json!(p.object_b));
    f.insert("player".into(), json!(p.player));
    f.insert("value".into(), json!(p.value));
    f.insert("point".into(), json!(p.point.map(crate::num)));
    if MessageCode(p.code) == MessageCode::SOUND {
        match sound(p) {
            Ok(s) => {
                f.insert("sound".into(), s);
            }
            Err(why) => {
                f.insert("sound".into(), Value::Null);
                f.insert("sound_error".into(), Value::String(why));
            }
        }
    }
    if MessageCode(p.code) == MessageCode::EFFECT {
        match effect(p) {
            Ok(e) => {
                f.insert("effect".into(), e);
            }
            Err(why) => {
                f.insert("effect".into(), Value::Null);
                f.insert("effect_error".into(), Value::String(why));
            }
        }
    }
    if MessageCode(p.code) == MessageCode::WEATHER {
        match WeatherEvent::from_message(&interface_message(p)) {
            Ok(w) => {
                let c = w.sky_rgb;
                f.insert(
                    "weather".into(),
                    json!({
                        "rain": crate::num(w.rain),
                        "snow": crate::num(w.snow),
                        "lightning": crate::num(w.lightning),
                        "sky_rgb": [crate::num(c.x), crate::num(c.y), crate::num(c.z)],
                    }),
                );
            }
            Err(e) => {
                f.insert("weather".into(), Value::Null);
                f.insert(
                    "weather_error".into(),
                    Value::String(e.message.as_str().to_owned()),
                );
            }
        }
    }
    Value::Object(f)
}

/// The interface message a plugin message stands for.
fn interface_message(p: &PluginMessage) -> Message {
    let [x, y, z] = p.point;
    let mut m = Message::new(MessageCode(p.code))
        .with_value(p.value)
        .with_payload(p.payload.clone());
    m.object_a = p.object_a;
    m.object_b = p.object_b;
    m.player = p.player;
    m.point = Vec3f { x, y, z };
    m
}

/// The effect event an `EFFECT` message carries, read by the interface's own reader.
fn effect(p: &PluginMessage) -> Result<Value, String> {
    let e = EffectEvent::from_message(&interface_message(p))
        .map_err(|e| e.message.as_str().to_owned())?;
    let v = |v: Vec3f| [crate::num(v.x), crate::num(v.y), crate::num(v.z)];
    Ok(json!({
        "library": e.library,
        "name": e.name,
        "owner": e.owner,
        "position": v(e.position),
        "target": e.target.map(v),
        "scale": crate::num(e.scale),
    }))
}

/// The sound event a `SOUND` message carries, read by the interface's own reader.
fn sound(p: &PluginMessage) -> Result<Value, String> {
    let e = SoundEvent::from_message(&interface_message(p))
        .map_err(|e| e.message.as_str().to_owned())?;
    Ok(json!({
        "kind": e.kind.0,
        "bus": e.bus.0,
        "library": e.library,
        "name": e.name,
        "owner": e.owner,
        "position": e.position.map(|v| [crate::num(v.x), crate::num(v.y), crate::num(v.z)]),
        "volume": crate::num(e.volume),
        "min_distance": crate::num(e.min_distance),
        "max_distance": crate::num(e.max_distance),
        "rate": crate::num(e.rate),
        "loop_id": e.loop_id,
    }))
}

/// Windows-1251 text (the game's code page; every byte is one character, so this is
/// total).
pub(crate) fn cp1251(bytes: &[u8]) -> String {
    encoding_rs::WINDOWS_1251
        .decode_without_bom_handling(bytes)
        .0
        .into_owned()
}

/// Lower-case hex, two digits a byte, no separators.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}
