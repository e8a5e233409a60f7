//! NRes archives of Iron3D (Parkan: Iron Strategy): a strict and a compatible reader with
//! zero-copy entry views, case-insensitive lookup, a lossless editor and a canonical
//! writer. A pure library over `&[u8]`: no file I/O, no kernel.
//!
//! # Layout (FORMATS §2, tome III "NRes"; all integers little-endian)
//!
//! ```text
//! 0x00 ┌──────────────────────────────┐
//!      │ Header (16)                  │ "NRes" | u32 version=0x100 | i32 entry_count | u32 total_size
//! 0x10 ├──────────────────────────────┤
//!      │ data region                  │ payloads at data_offset (8-aligned), each followed by
//!      │   payload | 0-pad to 8 | ... │ zero padding; gaps and unindexed bytes may occur and
//!      │   [unindexed bytes]          │ are preserved by the editor
//!  dir ├──────────────────────────────┤ dir = total_size - 64 * entry_count  (>= 16)
//!      │ Directory: entry_count × 64  │ original order
//! end  └──────────────────────────────┘ = total_size = file length
//!
//! Directory entry (64):
//!  +0x00 u32 type_id   +0x04 u32 attr1   +0x08 u32 attr2   +0x0C u32 size
//!  +0x10 u32 attr3     +0x14 char name[36] (NUL required, tail preserved)
//!  +0x38 u32 data_offset                  +0x3C u32 sort_index
//! ```
//!
//! `sort_index` of slot `k` is the original index of the entry whose name has rank `k`
//! when names are ordered by their upper-case ASCII fold (unsigned bytes, shorter prefix
//! first, stable for equal names).
//!
//! # Reading
//!
//! [`Nres::parse`] runs the whole strict list ([`Check::READ_CHECKS`]) before any
//! [`EntryView`] is handed out. [`Nres::parse_with`] takes [`ReadOptions`] whose named
//! [`Quirk`]s turn specific failures into [`Diagnostic`]s, never silently.
//!
//! ```
//! use iron3d_nres::{NewEntry, Nres, NresDocument, NresWriter};
//!
//! let mut w = NresWriter::new();
//! w.push(NewEntry::new(b"Texture.TEX", 0x6D78_6554, &b"pixels"[..])?);
//! w.push(NewEntry::new(b"model.msh", 0, &b"mesh"[..])?.with_attrs(1, 2, 3));
//! let bytes = w.finish()?;
//!
//! let archive = Nres::parse(&bytes)?;
//! let entry = archive.find(b"MODEL.MSH").expect("present");
//! assert_eq!((entry.index(), entry.data(), entry.attr3()), (1, &b"mesh"[..], 3));
//!
//! let mut doc = NresDocument::from_bytes(&bytes)?;
//! assert_eq!(doc.to_bytes(), bytes);
//! doc.replace_payload(0, b"new pixels")?;
//! assert_eq!(Nres::parse(&doc.to_bytes())?.entry(0).unwrap().data(), b"new pixels");
//! # Ok::<(), iron3d_nres::NresError>(())
//! ```
//!
//! # Type tags
//!
//! [`tag`] holds the `type_id` of every resource family (FORMATS §1.7) for writers
//! ([`NewEntry::tagged`] infers it from the name or the payload) and readers
//! ([`ReadOptions::check_tag`], the named check [`Check::TypeId`]).
//!
//! # Writing
//!
//! [`NresDocument`] edits losslessly (its docs list what each edit changes);
//! [`NresWriter`] and [`Nres::repack`] produce the canonical form.
//!
//! # Decisions where the sources leave a choice
//!
//! * **Fold direction**: ordering folds to upper case (FORMATS §1.5, from fparkan source).
//!   Tome III only says "ASCII-case-insensitive" (and "normalise `A..Z` to `a..z`" for
//!   equality, where the direction does not matter); it matters for `[ \ ] ^ _` and the
//!   backquote. A table sorted with a lower-case fold fails [`Check::SortOrder`].
//! * **Out-of-range `sort_index`** stays fatal in compatible mode: tome III lists
//!   `sort_index < entry_count` unconditionally and only the permutation as "strict
//!   mode"; FORMATS §2.6 relaxes both. We follow the tome.
//! * **Alignment**: tome III names alignment among the strict checks, FORMATS §2.6 does
//!   not; [`Check::DataAlignment`] is strict and [`Quirk::UnalignedDataOffsets`] relaxes it.
//! * **Empty names and payload overlap** (FORMATS §2.6, from fparkan source; not in the
//!   tome's list) are fatal in both modes, as FORMATS says compatible mode relaxes only
//!   the sort table. Empty payloads never overlap anything, even strictly inside another.
//! * **`data_offset + size`** is computed in `u64`, so the add cannot overflow; a value
//!   past `u32` simply fails [`Check::DataRange`].

mod edit;
mod error;
pub mod fuzz_check;
mod lookup;
mod name;
mod options;
pub mod raw;
mod read;
pub mod tag;
mod validate;
mod view;
mod write;

#[cfg(test)]
mod tests;

pub use edit::NresDocument;
pub use error::{Check, EntryRef, NameProblem, NresError};
pub use lookup::LookupMode;
pub use name::{MAX_NAME_LEN, NameField, cmp_names, field_value, fold, names_equal};
pub use options::{Diagnostic, Quirk, ReadOptions};
pub use raw::{DirEntry, ENTRY_SIZE, HEADER_SIZE, Header, MAGIC, NAME_FIELD_SIZE, VERSION};
pub use read::{Entries, Gap, GapKind, Nres};
pub use tag::{Evidence, FAMILIES, Family, TagCheck, TypeTag};
pub use validate::ALIGNMENT;
pub use view::EntryView;
pub use write::{NewEntry, NresWriter};
