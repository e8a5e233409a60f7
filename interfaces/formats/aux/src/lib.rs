//! Iron3D auxiliary formats (spec §11): strict readers and lossless writers over `&[u8]`
//! for CTPT, NDPR, EXPL, reference arrays, SUND, CTLD, BASE, SWAV, `.scr` framing and
//! `varset.var`. No file I/O; every reader bounds its counts before allocating.
//!
//! Field status in doc comments follows spec §11: `layout-confirmed` (offset, size and
//! meaning proven), `consumer-inferred` (meaning from call sites) or `opaque` (kept raw).
//! TRF (§11.8) is an NRes archive and is left to the NRes crate.

mod adpcm;
pub mod check;
pub mod ctld;
pub mod ctpt;
mod cursor;
mod error;
pub mod opaque;
pub mod scr;
pub mod swav;
pub mod varset;

pub use adpcm::{ADAPTATION_TABLE, STANDARD_COEFFICIENTS, encode_ms_adpcm};
pub use ctld::{ControlRow, Ctld, TypedRecord};
pub use ctpt::{Ctpt, CtptPoint};
pub use error::{AuxError, Format, Record};
pub use opaque::{Base, Expl, Ndpr, RefArray, Sund};
pub use scr::{DispatchSelector, Event, Instruction, Script};
pub use swav::{AdpcmFormat, Chunk, DecodedSample, SoundLoad, Wave, WaveFormat};
pub use varset::{DeclKind, Declaration, VarValue, Varset};
