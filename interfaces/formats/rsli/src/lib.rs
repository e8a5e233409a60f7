//! RsLi library archives (`*.rlb`, `*.lib` with magic `NL\0\x01`): a strict, lossless
//! reader, every storage method's decoder and encoder, and a writer. Pure library over
//! `&[u8]`: no file I/O, no kernel, no other project crate. Spec: FORMATS.md §3 and
//! tome III (RsLi part).
//!
//! ```text
//! offset 0        [Header 32]                  header::Header
//! offset 32       [Entry table N*32]           table::EntryRecord, one transform stream
//!                                              keyed by header xor_seed (low 16 bits)
//! offset 32+32N   [payloads, gaps]             Entry::packed_data, method = flags & 0x1E0
//! len-6 (opt.)    ["AO" u32 overlay]           header::Trailer, offsets += overlay
//! ```
//!
//! ```
//! use iron3d_rsli::{Method, Rsli, RsliBuilder};
//! let mut b = RsliBuilder::new();
//! b.add("FONT.TEX", Method::Lzss, b"glyphs glyphs glyphs".to_vec());
//! let bytes = b.build()?;
//! let archive = Rsli::parse(&bytes)?;
//! let entry = archive.find("font.tex").expect("present");
//! assert_eq!(entry.decode()?, b"glyphs glyphs glyphs");
//! assert_eq!(archive.to_bytes(), bytes);
//! # Ok::<(), iron3d_rsli::RsliError>(())
//! ```

pub mod archive;
pub mod check;
pub mod codec;
pub mod error;
pub mod header;
pub mod method;
pub mod options;
pub mod sort;
pub mod table;
pub mod writer;

#[cfg(test)]
mod tests;

pub use archive::{Entry, Rsli};
pub use error::RsliError;
pub use header::{Header, Trailer};
pub use method::Method;
pub use options::{Quirk, ReadOptions};
pub use sort::SortSource;
pub use table::EntryRecord;
pub use writer::{EntrySpec, RsliBuilder};
