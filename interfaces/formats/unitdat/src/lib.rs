//! Unit DAT files and `objects.rlb` prototype payloads of Iron3D (Parkan: Iron Strategy):
//! strict readers, lossless writers, authoring, and prototype resolution as a pure
//! algorithm. A pure library over `&[u8]`: no file I/O, no kernel, no other project crate
//! (`objects.rlb` payloads arrive as byte slices).
//!
//! # Layouts (FORMATS §4.2, §4.4; tome III; all integers little-endian)
//!
//! ```text
//! unit DAT:   F1 F0 | opaque[6] | record112 × N          size = 8 + 112 * N exactly
//!   record112: archive_name[32] resource_name[32] u32 kind i32 parent_or_link
//!              description[32] tail0[4] tail1[4]
//!
//! objects.rlb entry payload:  ObjectRef64 × N            len % 64 == 0
//!   ObjectRef64: archive_name[32] resource_name[32]
//! ```
//!
//! Every 32-byte string keeps its bytes after the NUL ([`Name32`]); a field without NUL
//! is valid and its value is all 32 bytes. See [`dat`] and [`objref`] for the full
//! layout blocks and field statuses.
//!
//! # Example
//!
//! ```
//! use iron3d_unitdat::{
//!     Geometry, MemoryRegistry, ObjectRefList, UnitDat, UnitRecord, resolve,
//! };
//!
//! let mut dat = UnitDat::new();
//! dat.header.set_class_word(0x8000_0010);
//! dat.records.push(UnitRecord::new(b"e_tur_01", -1, b"turret")?);
//! let bytes = dat.to_bytes();
//! assert_eq!(UnitDat::parse(&bytes)?, dat);
//!
//! let mut reg = MemoryRegistry::new();
//! let mut parent = ObjectRefList::new();
//! parent.push(b"fortif.rlb", b"wall.msh")?.push(b"fortif.rlb", b"wall.wea")?;
//! reg.insert_refs(b"wall_base", &parent);
//! let mut child = ObjectRefList::new();
//! child.push_parent(b"WALL_BASE")?.push(b"fortif.rlb", b"wall_01.bas")?;
//! reg.insert_refs(b"e_tur_01", &child);
//! reg.insert_resource(b"fortif.rlb", b"wall.msh");
//!
//! let r = resolve(&reg, &reg, dat.records[0].component_key())?;
//! assert_eq!(r.expansion.refs.len(), 3);
//! assert!(matches!(&r.geometry, Geometry::Mesh(m) if m.name == b"wall.msh"));
//! assert_eq!(r.bases, vec![2]);
//! # Ok::<(), iron3d_unitdat::UnitDatError>(())
//! ```
//!
//! Unit assembly ([`assembly`]): the component tree, roles (root / EXTO / INTO), mounts
//! and the global MSH node numbering, with the project decisions PD-UNIT-TREE,
//! PD-UNIT-ROLE, PD-UNIT-BAD-MOUNT, PD-UNIT-UNRESOLVED and PD-UNIT-KIND0.
//!
//! # Decisions where the sources leave a choice
//!
//! * **Header**: tome III keeps `+0x02..+0x07` as `header_opaque[6]`; FORMATS §4.4 / newer
//!   tome VI read `+0x04` as the class word. We store the six bytes raw and offer
//!   [`UnitHeader::class_word`] as an *inferred* view.
//! * **Strict record checks**: `kind == 1` and `archive_name == "objects.rlb"` (ASCII case
//!   ignored, value before NUL, no trimming) are strict errors, and diagnostics under
//!   [`ReadMode::Compatible`] (FORMATS §4.4). A file with zero records is valid (the size
//!   formula holds).
//! * **No NUL required** in any 32-byte field (FORMATS §1.3 lists none as required);
//!   new names are authored with NUL (31 bytes max), descriptions may take all 32.
//! * **Legacy "binding" `.dat`** (`u32 0xF0F1`, flags, archive, model; from fparkan
//!   source, no corpus evidence) is not read: such a file fails [`Check::SizeFormula`].
//! * **Resolution**: parents' references are inlined at the parent record's position
//!   (FParkan; tome III only requires order and provenance). The `.bas → <stem>.msh`
//!   lookup runs only when the *effective* prototype has no explicit `.msh` (so a
//!   fortification child with a local `.bas` uses its parent's `.msh`), tries `.bas`
//!   references in order, and when no stem model exists the prototype is non-geometric.
//!   Explicit `.msh` references that all fail are a broken reference
//!   ([`UnitDatError::ModelMissing`]). Keys and values are used as stored: no white-space
//!   trimming (FParkan trims lookup keys). Limits: [`MAX_PROTOTYPE_DEPTH`],
//!   [`MAX_EXPANDED_RECORDS`]. Caching belongs to the caller: [`resolve`] is a pure
//!   function of the source's answers.

pub mod assembly;
pub mod dat;
mod error;
pub mod fuzz_check;
mod memory;
mod name;
pub mod objref;
mod resolve;

#[cfg(test)]
mod tests;

pub use assembly::{
    AssemblyComponent, AssemblyDiagnostic, AssemblyRule, ComponentModel, ComponentRole,
    MOUNT_AT_ROOT_NODE, ROOT_RECORD, UnitAssembly, assemble,
};
pub use dat::{
    DAT_HEADER_SIZE, DAT_RECORD_SIZE, EXPECTED_KIND, OBJECTS_RLB, ParsedUnitDat, ReadMode,
    SIGNATURE, UnitDat, UnitHeader, UnitRecord,
};
pub use error::{Check, Field, KeyChain, NameProblem, Presence, SourceError, UnitDatError};
pub use memory::MemoryRegistry;
pub use name::{
    MAX_NAME_LEN, NAME_FIELD_LEN, Name32, ends_with_ignore_case, fold_key, names_equal,
};
pub use objref::{
    OBJECT_REF_SIZE, ObjectRef, ObjectRefIter, ObjectRefList, iter_object_refs, object_ref_count,
};
pub use resolve::{
    BAS_SUFFIX, EffectiveRef, Expansion, Geometry, MAX_EXPANDED_RECORDS, MAX_PROTOTYPE_DEPTH,
    MSH_SUFFIX, MissingRef, ModelRef, ModelVia, PrototypeSource, PrototypeVisit, RefOrigin,
    Resolution, ResourceProbe, expand, resolve,
};
