//! Messages between objects and plugins: an open code number (the original `GMSG_*` /
//! `SYSMSG_*` as constants, a documented range for plugin-defined codes) with a flat,
//! length-checked body.
//!
//! **PD-MSG-CODES** (project decision): the spec names the original messages but not
//! their numbers; ours are 1..=17 in the order of tome VI, and `GMSG_COLLISION_DETECTED`
//! is 17. Codes `0x1000_0000..=0x7FFF_FFFF` belong to plugins ([`MessageCode::plugin`]);
//! everything else is reserved for the engine and refused when a plugin sends it.

use crate::math::Vec3f;
use crate::types::SlotKind;
use abi_stable::StableAbi;
use abi_stable::std_types::{ROption, RVec};

/// A message code: an open number (compare with the constants; unknown codes are
/// delivered as they are).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MessageCode(pub u32);

impl MessageCode {
    /// `GMSG_CREATE_REMOTE_PLAYER` (`player`, `payload` = player data).
    pub const CREATE_REMOTE_PLAYER: Self = Self(1);
    /// `GMSG_APPEND_RESOURCE` (`payload` = name, NUL, data; `value` = name length).
    pub const APPEND_RESOURCE: Self = Self(2);
    /// `GMSG_CHANGE_OBJECT_OWNER` (`object_a`, `player` = new owner).
    pub const CHANGE_OBJECT_OWNER: Self = Self(3);
    /// `GMSG_SET_PLAYER_DATA` (`player`, `payload`).
    pub const SET_PLAYER_DATA: Self = Self(4);
    /// `GMSG_MISSION_DATA_PATH` (`payload` = path).
    pub const MISSION_DATA_PATH: Self = Self(5);
    /// `GMSG_TAKE_OBJECT` (`object_a`, `player`).
    pub const TAKE_OBJECT: Self = Self(6);
    /// `GMSG_TEXT_FOR_PLAYER` (`player`, `payload` = text).
    pub const TEXT_FOR_PLAYER: Self = Self(7);
    /// `GMSG_SYNC_STATE` (`object_a`, `payload`).
    pub const SYNC_STATE: Self = Self(8);
    /// `GMSG_CREATE_MIRROR` (`object_a`, `player`, `value` = kind).
    pub const CREATE_MIRROR: Self = Self(9);
    /// `GMSG_PAUSE_REMOTE_PLAYER` (`player`, `value` = 1 paused).
    pub const PAUSE_REMOTE_PLAYER: Self = Self(10);
    /// `GMSG_CONFIRM_PLAYER_DATA` (`player`).
    pub const CONFIRM_PLAYER_DATA: Self = Self(11);
    /// `GMSG_KILL_PLAYER` (`player`).
    pub const KILL_PLAYER: Self = Self(12);
    /// `SYSMSG_SET_TIME` (`value` = game time in nanoseconds).
    pub const SET_TIME: Self = Self(13);
    /// `SYSMSG_SET_PLAYER_NUMBER` (`player`).
    pub const SET_PLAYER_NUMBER: Self = Self(14);
    /// `GMSG_END_MESSAGE_SEQ` (`value` = sequence).
    pub const END_MESSAGE_SEQ: Self = Self(15);
    /// `GMSG_REMOVE_RESOURCE` (`payload` = name).
    pub const REMOVE_RESOURCE: Self = Self(16);
    /// `GMSG_COLLISION_DETECTED` (`object_a` < `object_b`, `point` = contact).
    pub const COLLISION_DETECTED: Self = Self(17);
    /// (2.10) The end of a contact episode a `GMSG_COLLISION_DETECTED` began (rule
    /// **PD-MSG-CONTACT-END**: engine code `0x101`, outside the original 1..=17 and the
    /// plugin range; `object_a` < `object_b`, no payload). The original has no such
    /// message; a plugin that does not know the code ignores it.
    pub const CONTACT_ENDED: Self = Self(0x101);

    /// First plugin-defined code.
    pub const PLUGIN_FIRST: u32 = 0x1000_0000;
    /// Last plugin-defined code.
    pub const PLUGIN_LAST: u32 = 0x7FFF_FFFF;

    /// Plugin-defined code number `n` (`PLUGIN_FIRST + n`), or `None` past the range.
    /// Pick numbers from a hash of your plugin's name to stay clear of other plugins.
    pub const fn plugin(n: u32) -> Option<Self> {
        match Self::PLUGIN_FIRST.checked_add(n) {
            Some(c) if c <= Self::PLUGIN_LAST => Some(Self(c)),
            _ => None,
        }
    }

    /// Whether the code is in the plugin range.
    pub const fn is_plugin_defined(self) -> bool {
        self.0 >= Self::PLUGIN_FIRST && self.0 <= Self::PLUGIN_LAST
    }

    /// Whether the code is one of the original messages (1..=17).
    pub const fn is_original(self) -> bool {
        self.0 >= 1 && self.0 <= 17
    }

    /// The original symbolic name, or `None` for other codes.
    pub fn original_name(self) -> Option<&'static str> {
        const NAMES: [&str; 17] = [
            "GMSG_CREATE_REMOTE_PLAYER",
            "GMSG_APPEND_RESOURCE",
            "GMSG_CHANGE_OBJECT_OWNER",
            "GMSG_SET_PLAYER_DATA",
            "GMSG_MISSION_DATA_PATH",
            "GMSG_TAKE_OBJECT",
            "GMSG_TEXT_FOR_PLAYER",
            "GMSG_SYNC_STATE",
            "GMSG_CREATE_MIRROR",
            "GMSG_PAUSE_REMOTE_PLAYER",
            "GMSG_CONFIRM_PLAYER_DATA",
            "GMSG_KILL_PLAYER",
            "SYSMSG_SET_TIME",
            "SYSMSG_SET_PLAYER_NUMBER",
            "GMSG_END_MESSAGE_SEQ",
            "GMSG_REMOVE_RESOURCE",
            "GMSG_COLLISION_DETECTED",
        ];
        self.is_original().then(|| NAMES[(self.0 - 1) as usize])
    }
}

/// The most payload bytes one message may carry (longer sends are refused).
pub const MAX_MESSAGE_PAYLOAD: usize = 64 * 1024;

/// A message body. The code says which fields carry meaning (see [`MessageCode`]).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Message {
    /// Which message.
    pub code: MessageCode,
    /// The sender's sequence number (set by the host on delivery; ignored on send).
    pub sequence: u64,
    /// The sending slot when a plugin sent it (set by the host on delivery).
    pub from_slot: ROption<SlotKind>,
    /// First object (original id), e.g. the object a message is about.
    pub object_a: u32,
    /// Second object (original id).
    pub object_b: u32,
    /// Player number or owner.
    pub player: u32,
    /// Numeric value (time, sequence, flag, plugin-defined).
    pub value: u64,
    /// A point (collision contact, plugin-defined).
    pub point: Vec3f,
    /// Raw payload, at most [`MAX_MESSAGE_PAYLOAD`] bytes.
    pub payload: RVec<u8>,
}

impl Message {
    /// A message with only `code` set.
    pub fn new(code: MessageCode) -> Self {
        Self {
            code,
            sequence: 0,
            from_slot: ROption::RNone,
            object_a: 0,
            object_b: 0,
            player: 0,
            value: 0,
            point: Vec3f::default(),
            payload: RVec::new(),
        }
    }

    /// The same message with `payload`.
    #[must_use]
    pub fn with_payload(mut self, payload: impl Into<Vec<u8>>) -> Self {
        self.payload = RVec::from(payload.into());
        self
    }

    /// The same message with `value`.
    #[must_use]
    pub fn with_value(mut self, value: u64) -> Self {
        self.value = value;
        self
    }

    /// The same message about objects `a` and `b` (original ids).
    #[must_use]
    pub fn with_objects(mut self, a: u32, b: u32) -> Self {
        self.object_a = a;
        self.object_b = b;
        self
    }
}

/// Where a message goes: one object's handlers, one slot, or every slot.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageTarget {
    /// 0 object, 1 slot, 2 broadcast (open: later versions may add kinds).
    pub kind: u32,
    /// The object (original id) for kind 0.
    pub object: u32,
    /// The slot for kind 1.
    pub slot: SlotKind,
}

impl MessageTarget {
    /// To the object with original id `id` (delivered to every slot's `on_message` with
    /// the object set).
    pub const fn object(id: u32) -> Self {
        Self {
            kind: 0,
            object: id,
            slot: SlotKind::Terrain,
        }
    }

    /// To the plugin in `slot` only.
    pub const fn slot(slot: SlotKind) -> Self {
        Self {
            kind: 1,
            object: 0,
            slot,
        }
    }

    /// To every slot.
    pub const fn broadcast() -> Self {
        Self {
            kind: 2,
            object: 0,
            slot: SlotKind::Terrain,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_open_numbers_with_original_names_and_a_plugin_range() {
        assert_eq!(
            MessageCode::KILL_PLAYER.original_name(),
            Some("GMSG_KILL_PLAYER")
        );
        assert_eq!(
            MessageCode::COLLISION_DETECTED.original_name(),
            Some("GMSG_COLLISION_DETECTED")
        );
        assert_eq!(MessageCode(99).original_name(), None);
        let mine = MessageCode::plugin(7).unwrap();
        assert!(mine.is_plugin_defined() && !mine.is_original());
        assert_eq!(mine.0, 0x1000_0007);
        assert_eq!(
            MessageCode::plugin(MessageCode::PLUGIN_LAST - MessageCode::PLUGIN_FIRST + 1),
            None
        );
        assert!(!MessageCode(5).is_plugin_defined());
    }
}
