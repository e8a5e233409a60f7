//! Materials of Iron3D (Parkan: Iron Strategy): WEAR tables and MAT0 payloads (strict,
//! lossless), material handles, the fallback order, and runtime phase selection. A pure
//! library over `&[u8]`: no file I/O, no kernel, no other project crate.
//!
//! ```text
//! Batch20.material_index -> WEAR row (by position) -> MAT0 name (fallback order)
//!   -> active phase (select_phase) -> texture name (+ lightmap slot) -> Texm
//! ```
//!
//! * [`Wear`] — the text table (FORMATS §8.1): [`Wear::parse`] (errors name line and
//!   column), [`Wear::materials`], [`Wear::lightmaps`], [`Wear::to_bytes`] (the input,
//!   byte for byte), [`Wear::author`] (canonical CRLF layout for new tables).
//! * [`Mat0`] — the binary payload (FORMATS §8.2): [`Mat0::parse`]`(payload, attr2)`,
//!   [`Mat0::phases`] with [`Phase::texture_name`], [`Mat0::blocks`], and
//!   [`Mat0::to_bytes`]`(version)` (byte-identical for every accepted input).
//! * [`MaterialHandle`], [`resolve_material`] (named → `DEFAULT` → archive entry 0,
//!   reporting the [`FallbackRule`]), [`resolve_lightmap`] (missing → slot −1).
//! * [`select_phase`] — **project decisions** PD-MAT-1..3 (mode mapping, key meaning,
//!   boundaries), documented in [`phase`] and kept apart from the confirmed layer.
//! * [`Surface`] — **project decision** PD-MAT-4: which phase parameter bytes select the
//!   render state (opaque / alpha-tested / blended / additive, alpha ref, two-sided),
//!   documented in [`surface`].
//!
//! ```
//! use iron3d_material::*;
//!
//! let wear = Wear::author(&[RowSpec::new(b"0", b"HULL"), RowSpec::new(b"7", b"GLASS")], None)?;
//! assert_eq!(wear.to_bytes(), b"2\r\n0 HULL\r\n7 GLASS\r\n");
//! assert_eq!(Wear::parse(&wear.to_bytes())?.material(1).map(WearRow::name), Some(&b"GLASS"[..]));
//!
//! let phases = vec![Phase::new([0; 18], b"hull_a")?, Phase::new([9; 18], b"hull_b")?];
//! let block = AnimBlock::new(AnimBlock::header_from(0, 0), vec![AnimKey::new(0, 100, 0), AnimKey::new(1, 100, 0)])?;
//! let mat = Mat0::new(6, Mat0Metadata::DEFAULT, phases, vec![block])?;
//! let bytes = mat.to_bytes(6)?;
//! let back = Mat0::parse(&bytes, 6)?;
//! assert_eq!(back.phases()[1].texture_name(), b"hull_b");
//! assert_eq!(back.to_bytes(6)?, bytes);
//!
//! let sel = select_phase(&back, 0, MaterialClock::at(150), &ModeMapping::PROJECT_DEFAULT)?;
//! assert_eq!((sel.phase_a, sel.phase_b, sel.t()), (1, 0, 0.5));
//! # Ok::<(), MaterialError>(())
//! ```
//!
//! # Decisions where the sources leave a choice
//!
//! * **WEAR white space** is space and tab only; a CR is accepted only in CRLF; NUL is
//!   an error. (FParkan removes every CR and splits on Unicode white space after CP1251
//!   decoding, which also treats byte `0xA0` as a separator.)
//! * **WEAR counts** are `sp* digits sp*` (no sign); `lightmapCount` may be 0.
//!   `LIGHTMAPS` is matched case-sensitively with spaces/tabs around it allowed; a
//!   "blank" line is empty or only spaces/tabs.
//! * **Row tokens**: `legacyId` is any token (numeric view: [`WearRow::legacy_id_number`]);
//!   tokens after the name are accepted, as FParkan takes "the first two tokens", and
//!   kept raw in [`WearRow::tail`].
//! * **MAT0 versions above 6** use the v4+ prefix (the grammar's `version >= 4`); any
//!   layout change would surface as a strict framing error.
//! * **MAT0 writing to another version** fails if it would drop a non-default metadata
//!   field ([`MaterialError::Mat0VersionDropsField`]); upgrading writes the defaults.
//! * **Authored 16-byte texture names** are written without NUL (readers accept them).
//! * **A WEAR row index outside the table** is an error in [`resolve_wear_row`], not a
//!   reason to fall back.
//! * **Owned values** (not borrowed views): tables are small and the same types serve
//!   authoring and caching.

mod error;
pub mod fuzz_check;
mod mat0;
pub mod phase;
mod resolve;
pub mod surface;
mod text;
mod wear;

#[cfg(test)]
mod tests;

pub use error::{MaterialError, WearItem, WearSection};
pub use mat0::{
    AnimBlock, AnimKey, KEY_SIZE, MAT0_TYPE, MAX_ANIMATION_BLOCKS, Mat0, Mat0Metadata,
    PHASE_PARAMETERS, PHASE_SIZE, Phase, TEXTURE_NAME_SIZE, prefix_len,
};
pub use phase::{AnimFamily, MaterialClock, ModeMapping, PhaseSelection, select_phase};
pub use resolve::{
    DEFAULT_MATERIAL, FallbackRule, LightmapSlot, MaterialHandle, MaterialLookup, Resolved,
    resolve_lightmap, resolve_material, resolve_material_with, resolve_wear_row,
};
pub use surface::{Surface, SurfaceMode};
pub use text::{decode_cp1251, encode_cp1251};
pub use wear::{LIGHTMAPS_MARKER, RowSpec, WEAR_TYPE, Wear, WearRow};
