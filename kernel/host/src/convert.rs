//! Conversions between kernel values and their FFI-safe views.

use iron3d_abi::{MessageCode, MessageView, ObjectState, Quatf, Vec3f};
use iron3d_kernel::{GameMessage, GameObject, Locality, OriginalObjectId};

/// The FFI view of an object.
pub fn object_state(o: &GameObject) -> ObjectState {
    ObjectState {
        id: o.id.raw(),
        kind: o.kind,
        is_mirror: matches!(o.locality, Locality::Mirror { .. }),
        active: o.active,
        position: o.transform.position.into(),
        orientation: Quatf::from(o.transform.orientation),
        scale: o.transform.scale.into(),
        velocity: o.velocity.into(),
        behaviour_state: o.behaviour_state,
    }
}

/// Writes the simulation fields of `s` back into `o` (id, kind and locality never change).
pub fn write_back(s: &ObjectState, o: &mut GameObject) {
    o.active = s.active;
    o.transform.position = s.position.into();
    o.transform.orientation = s.orientation.into();
    o.transform.scale = s.scale.into();
    o.velocity = s.velocity.into();
    o.behaviour_state = s.behaviour_state;
}

fn view(code: MessageCode) -> MessageView {
    MessageView::new(code)
}

/// The flat view of a kernel message.
pub fn message_view(m: &GameMessage, sequence: u64) -> MessageView {
    let mut v = match m {
        GameMessage::CreateRemotePlayer { player, data } => MessageView {
            player: *player,
            data: data.clone().into(),
            ..view(MessageCode::CreateRemotePlayer)
        },
        GameMessage::AppendResource { name, data } => {
            let mut bytes = name.clone();
            bytes.push(0);
            bytes.extend_from_slice(data);
            MessageView {
                value: name.len() as u64,
                data: bytes.into(),
                ..view(MessageCode::AppendResource)
            }
        }
        GameMessage::ChangeObjectOwner { object, new_owner } => MessageView {
            object_a: object.raw(),
            player: *new_owner,
            ..view(MessageCode::ChangeObjectOwner)
        },
        GameMessage::SetPlayerData { player, data } => MessageView {
            player: *player,
            data: data.clone().into(),
            ..view(MessageCode::SetPlayerData)
        },
        GameMessage::MissionDataPath { path } => MessageView {
            data: path.clone().into(),
            ..view(MessageCode::MissionDataPath)
        },
        GameMessage::TakeObject { object, player } => MessageView {
            object_a: object.raw(),
            player: *player,
            ..view(MessageCode::TakeObject)
        },
        GameMessage::TextForPlayer { player, text } => MessageView {
            player: *player,
            data: text.clone().into(),
            ..view(MessageCode::TextForPlayer)
        },
        GameMessage::SyncState { object, data } => MessageView {
            object_a: object.raw(),
            data: data.clone().into(),
            ..view(MessageCode::SyncState)
        },
        GameMessage::CreateMirror {
            object,
            owner,
            data,
        } => MessageView {
            object_a: object.raw(),
            player: *owner,
            data: data.clone().into(),
            ..view(MessageCode::CreateMirror)
        },
        GameMessage::PauseRemotePlayer { player, paused } => MessageView {
            player: *player,
            value: u64::from(*paused),
            ..view(MessageCode::PauseRemotePlayer)
        },
        GameMessage::ConfirmPlayerData { player } => MessageView {
            player: *player,
            ..view(MessageCode::ConfirmPlayerData)
        },
        GameMessage::KillPlayer { player } => MessageView {
            player: *player,
            ..view(MessageCode::KillPlayer)
        },
        GameMessage::SetTime { game_time_ns } => MessageView {
            value: *game_time_ns,
            ..view(MessageCode::SetTime)
        },
        GameMessage::SetPlayerNumber { player } => MessageView {
            player: *player,
            ..view(MessageCode::SetPlayerNumber)
        },
        GameMessage::EndMessageSeq { sequence } => MessageView {
            value: *sequence,
            ..view(MessageCode::EndMessageSeq)
        },
        GameMessage::RemoveResource { name } => MessageView {
            data: name.clone().into(),
            ..view(MessageCode::RemoveResource)
        },
        GameMessage::CollisionDetected { a, b, point } => MessageView {
            object_a: a.raw(),
            object_b: b.raw(),
            point: Vec3f {
                x: point[0],
                y: point[1],
                z: point[2],
            },
            ..view(MessageCode::CollisionDetected)
        },
    };
    v.sequence = sequence;
    v
}

/// The kernel message a plugin's view describes (inverse of [`message_view`]).
pub fn game_message(v: &MessageView) -> GameMessage {
    let data = v.data.to_vec();
    let id = |raw| OriginalObjectId(raw);
    match v.code {
        MessageCode::CreateRemotePlayer => GameMessage::CreateRemotePlayer {
            player: v.player,
            data,
        },
        MessageCode::AppendResource => {
            let split = usize::try_from(v.value)
                .unwrap_or(usize::MAX)
                .min(data.len());
            let name = data[..split].to_vec();
            let rest = data.get(split + 1..).unwrap_or_default().to_vec();
            GameMessage::AppendResource { name, data: rest }
        }
        MessageCode::ChangeObjectOwner => GameMessage::ChangeObjectOwner {
            object: id(v.object_a),
            new_owner: v.player,
        },
        MessageCode::SetPlayerData => GameMessage::SetPlayerData {
            player: v.player,
            data,
        },
        MessageCode::MissionDataPath => GameMessage::MissionDataPath { path: data },
        MessageCode::TakeObject => GameMessage::TakeObject {
            object: id(v.object_a),
            player: v.player,
        },
        MessageCode::TextForPlayer => GameMessage::TextForPlayer {
            player: v.player,
            text: data,
        },
        MessageCode::SyncState => GameMessage::SyncState {
            object: id(v.object_a),
            data,
        },
        MessageCode::CreateMirror => GameMessage::CreateMirror {
            object: id(v.object_a),
            owner: v.player,
            data,
        },
        MessageCode::PauseRemotePlayer => GameMessage::PauseRemotePlayer {
            player: v.player,
            paused: v.value != 0,
        },
        MessageCode::ConfirmPlayerData => GameMessage::ConfirmPlayerData { player: v.player },
        MessageCode::KillPlayer => GameMessage::KillPlayer { player: v.player },
        MessageCode::SetTime => GameMessage::SetTime {
            game_time_ns: v.value,
        },
        MessageCode::SetPlayerNumber => GameMessage::SetPlayerNumber { player: v.player },
        MessageCode::EndMessageSeq => GameMessage::EndMessageSeq { sequence: v.value },
        MessageCode::RemoveResource => GameMessage::RemoveResource { name: data },
        MessageCode::CollisionDetected => GameMessage::CollisionDetected {
            a: id(v.object_a),
            b: id(v.object_b),
            point: [v.point.x, v.point.y, v.point.z],
        },
    }
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
            assert_eq!(game_message(&v), m);
        }
    }
}
