//! The ordered property bag attached to every object (TMA `Property` records).

use serde::{Deserialize, Serialize};

/// One property: a raw name (CP1251 bytes as stored) and four raw 32-bit words.
///
/// Values are typed only per proven name (FORMATS.md §5.5); the kernel keeps the raw words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Property {
    /// Name bytes exactly as read (no case folding, no trimming).
    pub name: Vec<u8>,
    /// The 16 raw value bytes as four little-endian words.
    pub raw_value: [u32; 4],
}

/// Ordered list of properties; duplicates are kept and the order never changes.
///
/// Lookup follows MisLoad: the **first** property whose name matches exactly and
/// case-sensitively.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyBag {
    items: Vec<Property>,
}

impl PropertyBag {
    /// An empty bag.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a property at the end, keeping any earlier one of the same name.
    pub fn push(&mut self, name: impl Into<Vec<u8>>, raw_value: [u32; 4]) {
        self.items.push(Property {
            name: name.into(),
            raw_value,
        });
    }

    /// The first property named exactly `name` (case-sensitive), if any.
    pub fn first(&self, name: &[u8]) -> Option<&Property> {
        self.items.iter().find(|p| p.name == name)
    }

    /// Mutable access to the first property named exactly `name`.
    pub fn first_mut(&mut self, name: &[u8]) -> Option<&mut Property> {
        self.items.iter_mut().find(|p| p.name == name)
    }

    /// Every property in stored order, duplicates included.
    pub fn iter(&self) -> impl Iterator<Item = &Property> {
        self.items.iter()
    }

    /// Number of properties, duplicates included.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the bag holds no property.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_order_are_kept_and_lookup_takes_the_first_exact_match() {
        let mut bag = PropertyBag::new();
        bag.push("Life state", [0, 1, 0, 0]);
        bag.push("NOT USED", [0; 4]);
        bag.push("Life state", [0, 2, 0, 0]);
        bag.push("life state", [0, 3, 0, 0]);
        let names: Vec<&[u8]> = bag.iter().map(|p| p.name.as_slice()).collect();
        assert_eq!(
            names,
            vec![
                &b"Life state"[..],
                b"NOT USED",
                b"Life state",
                b"life state"
            ]
        );
        assert_eq!(bag.first(b"Life state").unwrap().raw_value[1], 1);
        assert_eq!(bag.first(b"life state").unwrap().raw_value[1], 3);
        assert!(bag.first(b"LIFE STATE").is_none());
        bag.first_mut(b"Life state").unwrap().raw_value[1] = 7;
        assert_eq!(bag.iter().nth(2).unwrap().raw_value[1], 2);
        assert_eq!(bag.len(), 4);
    }
}
