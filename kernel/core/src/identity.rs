//! Object identity: internal generation-checked handles and the original game's object ids.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Internal handle of an object slot in the World3D queue.
///
/// A handle is only valid while its `generation` matches the slot's current
/// generation. Freeing an object bumps the slot's generation, so a handle kept past
/// the object's lifetime is detected as stale; a slot whose generation would wrap is
/// retired instead of being reused, so a handle is never silently re-bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectHandle {
    /// Index of the slot in the kernel's slot table.
    pub slot: u32,
    /// Generation of the slot when this handle was issued.
    pub generation: u32,
}

impl fmt::Display for ObjectHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}g{}", self.slot, self.generation)
    }
}

/// The original engine's logical object id (scripts, mirrors, network, save games).
///
/// The raw 32-bit value is kept exactly. The spec (FORMATS.md §13.5, §16 item 11)
/// knows that it encodes the owner player, a class and an index but not the exact
/// bit split, so the views go through an explicit [`IdLayout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OriginalObjectId(pub u32);

impl OriginalObjectId {
    /// Builds an id from its parts under `layout`; `None` when a part does not fit its field.
    pub fn compose(layout: IdLayout, owner: u32, class: u32, index: u32) -> Option<Self> {
        let fits = |v: u32, bits: u8| bits >= 32 || v < (1u32 << bits);
        if !fits(owner, layout.owner_bits)
            || !fits(class, layout.class_bits)
            || !fits(index, layout.index_bits)
        {
            return None;
        }
        let raw = (owner << (layout.index_bits + layout.class_bits))
            | (class << layout.index_bits)
            | index;
        Some(Self(raw))
    }

    /// The raw value, exactly as the original stores it.
    pub fn raw(self) -> u32 {
        self.0
    }

    /// Owner player number under `layout`.
    pub fn owner_player(self, layout: IdLayout) -> u32 {
        field(
            self.0,
            layout.index_bits + layout.class_bits,
            layout.owner_bits,
        )
    }

    /// Class number under `layout`.
    pub fn class(self, layout: IdLayout) -> u32 {
        field(self.0, layout.index_bits, layout.class_bits)
    }

    /// Index within owner and class under `layout`.
    pub fn index(self, layout: IdLayout) -> u32 {
        field(self.0, 0, layout.index_bits)
    }
}

fn field(raw: u32, shift: u8, bits: u8) -> u32 {
    if bits == 0 {
        return 0;
    }
    let shifted = raw.checked_shr(u32::from(shift)).unwrap_or(0);
    if bits >= 32 {
        shifted
    } else {
        shifted & ((1u32 << bits) - 1)
    }
}

impl fmt::Display for OriginalObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08X}", self.0)
    }
}

/// Bit split of [`OriginalObjectId`] into owner player, class and index (most to least significant).
///
/// **Project decision, not proven original behaviour**: the spec leaves the layout
/// open (FORMATS.md §16 item 11). [`IdLayout::PROJECT_DEFAULT`] follows tome II's
/// sketch (`owner_player` in the high half, class and index in the low half) as
/// 16 / 4 / 12 bits. The raw value is always kept, so a corrected layout changes only
/// the views.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdLayout {
    /// Bits of the owner player field (most significant).
    pub owner_bits: u8,
    /// Bits of the class field.
    pub class_bits: u8,
    /// Bits of the index field (least significant).
    pub index_bits: u8,
}

impl IdLayout {
    /// The project's named default layout: owner 16 bits, class 4 bits, index 12 bits.
    pub const PROJECT_DEFAULT: IdLayout = IdLayout {
        owner_bits: 16,
        class_bits: 4,
        index_bits: 12,
    };

    /// True when the three fields cover at most 32 bits.
    pub fn is_valid(self) -> bool {
        u32::from(self.owner_bits) + u32::from(self.class_bits) + u32::from(self.index_bits) <= 32
    }
}

impl Default for IdLayout {
    fn default() -> Self {
        Self::PROJECT_DEFAULT
    }
}

/// Whether an object is simulated here or mirrors an object owned by another participant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Locality {
    /// Authoritative local object (`CreateObject` / `AddObjectToGame`).
    Local,
    /// Mirror of a remote participant's object (`CreateMirrorObject` / `AddMirrorObjectToGame`);
    /// the authoritative changes come from the remote owner.
    Mirror {
        /// Player number of the remote owner.
        owner_player: u32,
    },
}

impl Locality {
    /// True for [`Locality::Local`].
    pub fn is_local(self) -> bool {
        matches!(self, Locality::Local)
    }

    /// True for [`Locality::Mirror`].
    pub fn is_mirror(self) -> bool {
        matches!(self, Locality::Mirror { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_and_views_roundtrip_under_default_layout() {
        let l = IdLayout::PROJECT_DEFAULT;
        let id = OriginalObjectId::compose(l, 3, 9, 1234).unwrap();
        assert_eq!(id.owner_player(l), 3);
        assert_eq!(id.class(l), 9);
        assert_eq!(id.index(l), 1234);
        assert_eq!(id.raw(), (3 << 16) | (9 << 12) | 1234);
    }

    #[test]
    fn compose_rejects_parts_that_do_not_fit() {
        let l = IdLayout::PROJECT_DEFAULT;
        assert!(OriginalObjectId::compose(l, 0, 16, 0).is_none());
        assert!(OriginalObjectId::compose(l, 0, 0, 4096).is_none());
        assert!(OriginalObjectId::compose(l, 65536, 0, 0).is_none());
    }

    #[test]
    fn raw_value_is_kept_whatever_the_layout() {
        let id = OriginalObjectId(0xDEAD_BEEF);
        let other = IdLayout {
            owner_bits: 8,
            class_bits: 8,
            index_bits: 16,
        };
        assert_eq!(id.raw(), 0xDEAD_BEEF);
        assert_eq!(id.owner_player(other), 0xDE);
        assert_eq!(id.class(other), 0xAD);
        assert_eq!(id.index(other), 0xBEEF);
        assert!(other.is_valid());
        assert!(
            !IdLayout {
                owner_bits: 20,
                class_bits: 8,
                index_bits: 16
            }
            .is_valid()
        );
    }

    #[test]
    fn locality_views() {
        assert!(Locality::Local.is_local());
        assert!(Locality::Mirror { owner_player: 2 }.is_mirror());
    }
}
