//! Material handles and the resolution order (FORMATS §8.1, tome V "WEAR"): the MAT0
//! named by the WEAR row, then `DEFAULT`, then entry 0 of the material archive; and the
//! separate lightmap rule (missing → slot −1, never a diffuse texture).
//!
//! These are pure functions over a lookup the caller provides ([`MaterialLookup`] or two
//! closures): no archive, cache or I/O here.

use crate::error::MaterialError;
use crate::wear::Wear;
use std::fmt;

/// The name tried second: `DEFAULT`.
pub const DEFAULT_MATERIAL: &[u8] = b"DEFAULT";

/// A material handle: `(table_index << 16) | wear_row` (confirmed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MaterialHandle(u32);

impl MaterialHandle {
    /// The handle of row `row` of WEAR table `table`.
    pub const fn new(table: u16, row: u16) -> Self {
        Self(((table as u32) << 16) | row as u32)
    }

    /// A handle from its raw 32-bit value.
    pub const fn from_raw(raw: u32) -> Self {
        Self(raw)
    }

    /// The raw 32-bit value.
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// The WEAR table index (high 16 bits). Terrain uses 0 = `Land1.wea`, 1 = `Land2.wea`.
    pub const fn table(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// The WEAR row (low 16 bits): the material is chosen by this row position.
    pub const fn row(self) -> u16 {
        (self.0 & 0xFFFF) as u16
    }
}

impl fmt::Display for MaterialHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.table(), self.row())
    }
}

/// Which rule of the fallback order produced the material (for diagnostics).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FallbackRule {
    /// 1. The MAT0 named by the WEAR row was found.
    Named,
    /// 2. The row's name was missing; `DEFAULT` was found.
    Default,
    /// 3. Neither was found; entry 0 of the material archive was used (FParkan reading:
    ///    the first entry of `Material.lib`, not WEAR row 0).
    FirstEntry,
}

/// A resolved material and the rule that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved<E> {
    /// What the lookup returned.
    pub entry: E,
    /// Which rule applied.
    pub rule: FallbackRule,
}

/// The material archive as the fallback order sees it.
///
/// `find` does the archive's own name matching (NRes: ASCII case-insensitive) and should
/// return only MAT0 entries; `first_entry` is the archive's entry 0.
pub trait MaterialLookup {
    /// What a lookup yields (an index, a parsed [`crate::Mat0`], …).
    type Entry;
    /// The MAT0 entry of this name, if any.
    fn find(&self, name: &[u8]) -> Option<Self::Entry>;
    /// Entry 0 of the material archive, if the archive is not empty.
    fn first_entry(&self) -> Option<Self::Entry>;
}

/// Resolves the material named `name` (a WEAR row's name) in the strict order
/// named → `DEFAULT` → entry 0. `None` only when the archive has none of them.
pub fn resolve_material<L: MaterialLookup + ?Sized>(
    name: &[u8],
    archive: &L,
) -> Option<Resolved<L::Entry>> {
    resolve_material_with(name, |n| archive.find(n), || archive.first_entry())
}

/// [`resolve_material`] with closures: `find(name)` and `first_entry()`.
pub fn resolve_material_with<E>(
    name: &[u8],
    mut find: impl FnMut(&[u8]) -> Option<E>,
    first_entry: impl FnOnce() -> Option<E>,
) -> Option<Resolved<E>> {
    if let Some(entry) = find(name) {
        return Some(Resolved {
            entry,
            rule: FallbackRule::Named,
        });
    }
    if let Some(entry) = find(DEFAULT_MATERIAL) {
        return Some(Resolved {
            entry,
            rule: FallbackRule::Default,
        });
    }
    first_entry().map(|entry| Resolved {
        entry,
        rule: FallbackRule::FirstEntry,
    })
}

/// Resolves WEAR row `row` of `wear`: [`MaterialError::NoSuchRow`] when the table has no
/// such row (project decision: a bad row is an error, not a reason to fall back — the
/// fallback order starts from a name), otherwise `Ok` of [`resolve_material`].
pub fn resolve_wear_row<L: MaterialLookup + ?Sized>(
    wear: &Wear,
    row: u16,
    archive: &L,
) -> Result<Option<Resolved<L::Entry>>, MaterialError> {
    let r = wear.material(row).ok_or(MaterialError::NoSuchRow {
        row,
        rows: wear.materials().len(),
    })?;
    Ok(resolve_material(r.name(), archive))
}

/// A lightmap slot: a non-negative slot, or −1 for "no lightmap".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LightmapSlot(i32);

impl LightmapSlot {
    /// No lightmap: slot −1. A diffuse texture is never substituted.
    pub const NONE: LightmapSlot = LightmapSlot(-1);

    /// A present lightmap in slot `slot`.
    pub const fn some(slot: u16) -> Self {
        Self(slot as i32)
    }

    /// The slot as the runtime stores it (−1 when absent).
    pub const fn index(self) -> i32 {
        self.0
    }

    /// Whether a lightmap is present.
    pub const fn is_some(self) -> bool {
        self.0 >= 0
    }
}

/// Resolves a lightmap name through the lightmap cache (`find`, e.g. over
/// `LightMap.lib`). No name, an empty name or a failed lookup gives
/// [`LightmapSlot::NONE`]; no other source is consulted.
pub fn resolve_lightmap(
    name: Option<&[u8]>,
    find: impl FnOnce(&[u8]) -> Option<u16>,
) -> LightmapSlot {
    match name {
        Some(n) if !n.is_empty() => find(n).map_or(LightmapSlot::NONE, LightmapSlot::some),
        _ => LightmapSlot::NONE,
    }
}
