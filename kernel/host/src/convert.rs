//! Conversions between kernel messages and their FFI-safe form.

use iron3d_abi::{MAX_MESSAGE_PAYLOAD, Message, MessageCode, PluginError, Vec3f};
use iron3d_kernel::{GameMessage, OriginalObjectId, PluginMessage};

fn view(code: MessageCode) -> Message {
    Message::new(code)
}

/// The FFI form of a kernel message delivered with `sequence`.
pub fn message_view(m: &GameMessage, sequence: u64) -> Message {
    let mut v = match m {
        GameMessage::CreateRemotePlayer { player, data } => Message {
            player: *player,
            payload: data.clone().into(),
            ..view(MessageCode::CREATE_REMOTE_PLAYER)
        },
        GameMessage::AppendResource { name, data } => {
            let mut bytes = name.clone();
            bytes.push(0);
            bytes.extend_from_slice(data);
            Message {
                value: name.len() as u64,
                payload: bytes.into(),
                ..view(MessageCode::APPEND_RESOURCE)
            }
        }
        GameMessage::ChangeObjectOwner { object, new_owner } => Message {
            object_a: object.raw(),
            player: *new_owner,
            ..view(MessageCode::CHANGE_OBJECT_OWNER)
        },
        GameMessage::SetPlayerData { player, data } => Message {
            player: *player,
            payload: data.clone().into(),
            ..view(MessageCode::SET_PLAYER_DATA)
        },
        GameMessage::MissionDataPath { path } => Message {
            payload: path.clone().into(),
            ..view(MessageCode::MISSION_DATA_PATH)
        },
        GameMessage::TakeObject { object, player } => Message {
            object_a: object.raw(),
            player: *player,
            ..view(MessageCode::TAKE_OBJECT)
        },
        GameMessage::TextForPlayer { player, text } => Message {
            player: *player,
            payload: text.clone().into(),
            ..view(MessageCode::TEXT_FOR_PLAYER)
        },
        GameMessage::SyncState { object, data } => Message {
            object_a: object.raw(),
            payload: data.clone().into(),
            ..view(MessageCode::SYNC_STATE)
        },
        GameMessage::CreateMirror {
            object,
            owner,
            data,
        } => Message {
            object_a: object.raw(),
            player: *owner,
            payload: data.clone().into(),
            ..view(MessageCode::CREATE_MIRROR)
        },
        GameMessage::PauseRemotePlayer { player, paused } => Message {
            player: *player,
            value: u64::from(*paused),
            ..view(MessageCode::PAUSE_REMOTE_PLAYER)
        },
        GameMessage::ConfirmPlayerData { player } => Message {
            player: *player,
            ..view(MessageCode::CONFIRM_PLAYER_DATA)
        },
        GameMessage::KillPlayer { player } => Message {
            player: *player,
            ..view(MessageCode::KILL_PLAYER)
        },
        GameMessage::SetTime { game_time_ns } => Message {
            value: *game_time_ns,
            ..view(MessageCode::SET_TIME)
        },
        GameMessage::SetPlayerNumber { player } => Message {
            player: *player,
            ..view(MessageCode::SET_PLAYER_NUMBER)
        },
        GameMessage::EndMessageSeq { sequence } => Message {
            value: *sequence,
            ..view(MessageCode::END_MESSAGE_SEQ)
        },
        GameMessage::RemoveResource { name } => Message {
            payload: name.clone().into(),
            ..view(MessageCode::REMOVE_RESOURCE)
        },
        GameMessage::CollisionDetected { a, b, point } => Message {
            object_a: a.raw(),
            object_b: b.raw(),
            point: Vec3f {
                x: point[0],
                y: point[1],
                z: point[2],
            },
            ..view(MessageCode::COLLISION_DETECTED)
        },
        GameMessage::Plugin(p) => Message {
            object_a: p.object_a,
            object_b: p.object_b,
            player: p.player,
            value: p.value,
            point: Vec3f {
                x: p.point[0],
                y: p.point[1],
                z: p.point[2],
            },
            payload: p.payload.clone().into(),
            from_slot: p
                .from_system
                .as_deref()
                .and_then(|n| n.strip_prefix("plugin:"))
                .and_then(iron3d_abi::SlotKind::from_name)
                .into(),
            ..view(MessageCode(p.code))
        },
    };
    v.sequence = sequence;
    v
}

/// The kernel message a plugin sends (inverse of [`message_view`]): original codes map
/// to their typed messages, plugin codes travel as [`GameMessage::Plugin`] (addressed to
/// `to_system` when set); other codes and payloads over [`MAX_MESSAGE_PAYLOAD`] bytes
/// are refused with [`iron3d_abi::ErrorKind::INVALID`].
pub fn game_message(
    v: &Message,
    from_system: Option<&str>,
    to_system: Option<String>,
) -> Result<GameMessage, PluginError> {
    if v.payload.len() > MAX_MESSAGE_PAYLOAD {
        return Err(PluginError::new(
            iron3d_abi::ErrorKind::INVALID,
            format!(
                "message {:#x}: payload of {} bytes, at most {MAX_MESSAGE_PAYLOAD} allowed",
                v.code.0,
                v.payload.len()
            ),
        ));
    }
    let data = v.payload.to_vec();
    let id = |raw| OriginalObjectId(raw);
    // Sound events (2.6, PD-MSG-SOUND) travel as the kernel's plugin messages, checked
    // here so the audio plugin only ever gets well-formed ones.
    if v.code == MessageCode::SOUND {
        iron3d_abi::SoundEvent::from_message(v)?;
    }
    // Effect events (2.11, PD-MSG-EFFECT) too, for the effects plugin.
    if v.code == MessageCode::EFFECT {
        iron3d_abi::EffectEvent::from_message(v)?;
    }
    // Weather events (2.12, PD-MSG-WEATHER), for the effects and audio plugins.
    if v.code == MessageCode::WEATHER {
        iron3d_abi::WeatherEvent::from_message(v)?;
    }
    // Contact ends (2.10, PD-MSG-CONTACT-END) travel the same way: two object ids.
    if v.code == MessageCode::CONTACT_ENDED && (v.object_a >= v.object_b || !v.payload.is_empty()) {
        return Err(PluginError::new(
            iron3d_abi::ErrorKind::INVALID,
            format!(
                "message {:#x} (contact ended): object_a {} must be below object_b {} and the payload empty",
                v.code.0, v.object_a, v.object_b
            ),
        ));
    }
    if v.code.is_plugin_defined()
        || v.code == MessageCode::SOUND
        || v.code == MessageCode::EFFECT
        || v.code == MessageCode::WEATHER
        || v.code == MessageCode::CONTACT_ENDED
    {
        return Ok(GameMessage::Plugin(PluginMessage {
            code: v.code.0,
            to_system,
            from_system: from_system.map(str::to_owned),
            object_a: v.object_a,
            object_b: v.object_b,
            player: v.player,
            value: v.value,
            point: [v.point.x, v.point.y, v.point.z],
            payload: data,
        }));
    }
    if !v.point.x.is_finite() || !v.point.y.is_finite() || !v.point.z.is_finite() {
        return Err(PluginError::new(
            iron3d_abi::ErrorKind::INVALID,
            format!("message {:#x}: the point is not finite", v.code.0),
        ));
    }
    Ok(match v.code {
        MessageCode::CREATE_REMOTE_PLAYER => GameMessage::CreateRemotePlayer {
            player: v.player,
            data,
        },
        MessageCode::APPEND_RESOURCE => {
            let split = usize::try_from(v.value)
                .unwrap_or(usize::MAX)
                .min(data.len());
            let name = data[..split].to_vec();
            let rest = data.get(split + 1..).unwrap_or_default().to_vec();
            GameMessage::AppendResource { name, data: rest }
        }
        MessageCode::CHANGE_OBJECT_OWNER => GameMessage::ChangeObjectOwner {
            object: id(v.object_a),
            new_owner: v.player,
        },
        MessageCode::SET_PLAYER_DATA => GameMessage::SetPlayerData {
            player: v.player,
            data,
        },
        MessageCode::MISSION_DATA_PATH => GameMessage::MissionDataPath { path: data },
        MessageCode::TAKE_OBJECT => GameMessage::TakeObject {
            object: id(v.object_a),
            player: v.player,
        },
        MessageCode::TEXT_FOR_PLAYER => GameMessage::TextForPlayer {
            player: v.player,
            text: data,
        },
        MessageCode::SYNC_STATE => GameMessage::SyncState {
            object: id(v.object_a),
            data,
        },
        MessageCode::CREATE_MIRROR => GameMessage::CreateMirror {
            object: id(v.object_a),
            owner: v.player,
            data,
        },
        MessageCode::PAUSE_REMOTE_PLAYER => GameMessage::PauseRemotePlayer {
            player: v.player,
            paused: v.value != 0,
        },
        MessageCode::CONFIRM_PLAYER_DATA => GameMessage::ConfirmPlayerData { player: v.player },
        MessageCode::KILL_PLAYER => GameMessage::KillPlayer { player: v.player },
        MessageCode::SET_TIME => GameMessage::SetTime {
            game_time_ns: v.value,
        },
        MessageCode::SET_PLAYER_NUMBER => GameMessage::SetPlayerNumber { player: v.player },
        MessageCode::END_MESSAGE_SEQ => GameMessage::EndMessageSeq { sequence: v.value },
        MessageCode::REMOVE_RESOURCE => GameMessage::RemoveResource { name: data },
        MessageCode::COLLISION_DETECTED => GameMessage::CollisionDetected {
            a: id(v.object_a),
            b: id(v.object_b),
            point: [v.point.x, v.point.y, v.point.z],
        },
        other => {
            return Err(PluginError::new(
                iron3d_abi::ErrorKind::INVALID,
                format!(
                    "message code {:#x} is reserved: use an original code (1..=17) or a plugin code ({:#x}..={:#x})",
                    other.0,
                    MessageCode::PLUGIN_FIRST,
                    MessageCode::PLUGIN_LAST
                ),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_roundtrips_through_its_view() {
        let o = OriginalObjectId(0x0001_2345);
        let all = vec![
            GameMessage::CreateRemotePlayer {
                player: 2,
                data: vec![1, 2],
            },
            GameMessage::AppendResource {
                name: b"TEX.LIB".to_vec(),
                data: vec![0, 9, 0],
            },
            GameMessage::AppendResource {
                name: Vec::new(),
                data: Vec::new(),
            },
            GameMessage::ChangeObjectOwner {
                object: o,
                new_owner: 3,
            },
            GameMessage::SetPlayerData {
                player: 1,
                data: vec![7],
            },
            GameMessage::MissionDataPath {
                path: b"MISSIONS\\M1".to_vec(),
            },
            GameMessage::TakeObject {
                object: o,
                player: 4,
            },
            GameMessage::TextForPlayer {
                player: 0,
                text: vec![0xC0, 0xE1],
            },
            GameMessage::SyncState {
                object: o,
                data: vec![5; 9],
            },
            GameMessage::CreateMirror {
                object: o,
                owner: 2,
                data: vec![],
            },
            GameMessage::PauseRemotePlayer {
                player: 1,
                paused: true,
            },
            GameMessage::ConfirmPlayerData { player: 1 },
            GameMessage::KillPlayer { player: 3 },
            GameMessage::SetTime {
                game_time_ns: 123_456_789,
            },
            GameMessage::SetPlayerNumber { player: 6 },
            GameMessage::EndMessageSeq { sequence: 42 },
            GameMessage::RemoveResource {
                name: b"x".to_vec(),
            },
            GameMessage::CollisionDetected {
                a: o,
                b: OriginalObjectId(9),
                point: [1.0, -2.0, 0.5],
            },
        ];
        for m in all {
            let v = message_view(&m, 17);
            assert_eq!(v.sequence, 17);
            assert_eq!(game_message(&v, None, None).unwrap(), m);
        }
    }

    #[test]
    fn plugin_codes_travel_reserved_codes_and_oversized_payloads_are_refused() {
        let code = MessageCode::plugin(3).unwrap();
        let m = Message::new(code)
            .with_value(9)
            .with_payload(b"hi".to_vec());
        let g = game_message(&m, Some("plugin:ai"), Some("plugin:control".into())).unwrap();
        let GameMessage::Plugin(p) = &g else {
            panic!("{g:?}")
        };
        assert_eq!(
            (p.code, p.value, p.payload.as_slice()),
            (code.0, 9, &b"hi"[..])
        );
        assert_eq!(p.to_system.as_deref(), Some("plugin:control"));
        let back = message_view(&g, 4);
        assert_eq!(back.code, code);
        assert_eq!(back.from_slot.into_option(), Some(iron3d_abi::SlotKind::Ai));
        let e = game_message(&Message::new(MessageCode(500)), None, None).unwrap_err();
        assert_eq!(e.kind, iron3d_abi::ErrorKind::INVALID);
        assert!(e.message.contains("reserved"), "{e}");
        let big = Message::new(code).with_payload(vec![0; MAX_MESSAGE_PAYLOAD + 1]);
        assert!(game_message(&big, None, None).is_err());
    }
}
