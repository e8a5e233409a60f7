//! The plugin registry of Iron3D-rs: parses and writes `config/plugins.ini` and the original
//! game's `Comp.ini`, which share one grammar.
//!
//! One entry per line: `<key> <library> <factory> [comment]`, tokens separated by spaces or
//! tabs, `//` starts a comment (anywhere on the line), blank lines allowed, LF or CRLF line
//! ends. The text is bytes (original files are CP1251): tokens must be printable ASCII,
//! comments are kept as raw bytes.
//!
//! * **Strict**: every hard error is a [`RegistryError`] naming the origin, the 1-based
//!   line and the 1-based byte column. Parsing never panics and allocates only in
//!   proportion to the input's length.
//! * **Unknown keys are reported, not ignored**: they become [`Diagnostic`]s and
//!   [`UnknownEntry`] lines, never slot entries.
//! * **Lossless**: [`Registry::to_bytes`] reproduces the parsed input byte for byte.
//! * **Typed**: [`Registry::entries`] and [`Registry::get`] give [`Entry`] values keyed by
//!   [`SlotKey`] ([`Cid`] or [`SlotName`]); [`RegistryBuilder`] writes new canonical
//!   documents that parse back to the same entries.
//!
//! ```
//! use iron3d_registry::{Cid, Dialect, Registry, SlotName};
//!
//! let text = b"terrain plugins/libiron3d_terrain.so create // the landscape\r\n3 animesh.dll LoadAgent";
//! let reg = Registry::parse(text, "plugins.ini", Dialect::PluginsIni)?;
//! assert_eq!(reg.get(SlotName::Terrain).unwrap().library_stem(), "iron3d_terrain");
//! assert_eq!(reg.get(Cid::Agent).unwrap().factory, Cid::Agent.meaning());
//! assert_eq!(reg.to_bytes(), text);
//! # Ok::<(), iron3d_registry::RegistryError>(())
//! ```

mod error;
mod key;
mod library;
mod parse;
mod registry;
mod writer;

pub use error::{Diagnostic, RegistryError, TokenRole};
pub use key::{Cid, SlotKey, SlotName, UnknownSlotName, is_service_name};
pub use library::library_stem;
pub use parse::MAX_LINE_LEN;
pub use registry::{Dialect, Entry, Line, LineEnding, LineKind, Registry, UnknownEntry};
pub use writer::RegistryBuilder;
