//! FXID effects of Iron3D (Parkan: Iron Strategy): strict reader, lossless writer,
//! authoring builder, and pure time/lifecycle helpers. A pure library over `&[u8]`: no
//! file I/O, no kernel, no other project crate.
//!
//! # Layout (FORMATS §10, tome V "FXID"; all integers little-endian, packed)
//!
//! ```text
//! +0x00 FxHeader60     command_count time_mode duration phase_jitter flags settings_id
//!                      random_shift[3] pivot[3] scale[3]         (see [`header`])
//! +0x3C command × N    u32 word (opcode = bits 0..7, enabled = bit 8, data = 9..31)
//!                      + body of fixed size per opcode           (see [`command`])
//! end                  exactly after command N-1
//!
//! opcode   1    2    3    4    5   6    7    8    9    10
//! size   224  148  200  204  112   4  208  248  208   208   (word included)
//! ref      -    y    y    y    y   -    y    y    y     y   (archive[32] name[32] at +0x04)
//! ```
//!
//! # Example
//!
//! ```
//! use iron3d_fxid::{Command, Fxid, Opcode};
//!
//! let fx = Fxid::builder()
//!     .duration_seconds(2.5)
//!     .resource_command(Opcode::Op2, b"sounds.lib", b"thunder.wav")?
//!     .resource_command(Opcode::Op3, b"effects.lib", b"bolt")?
//!     .command(Command::new(Opcode::Op1))
//!     .build();
//! let bytes = fx.to_bytes()?;
//! let back = Fxid::parse(&bytes)?;
//! assert_eq!(back, fx);
//! assert_eq!(back.to_bytes()?, bytes);
//! assert!(back.commands[0].resource().is_some_and(|r| r.matches(b"SOUNDS.LIB", b"thunder.wav")));
//! # Ok::<(), iron3d_fxid::FxidError>(())
//! ```
//!
//! # Decisions where the sources leave a choice
//!
//! * **Typed layer** (project decision 7): the header views and the resource reference
//!   are typed; bodies stay raw. The known lightning values (opcode 3 descriptor
//!   `[40, 40, 600]`, opcode 2 `min_distance = 100`, `max_distance = 1500`,
//!   `frequency_ratio = 1`) come without offsets, so no typed body field exists; authors
//!   write them with [`Command::set_f32_at`] at offsets of their choosing.
//! * **Exact end** (from fparkan source): the payload must end right after the last
//!   command; trailing bytes are an error. `command_count = 0` with a 60-byte payload is
//!   valid.
//! * **Count plausibility**: `command_count * 4` must fit after the header before any
//!   allocation (4 = smallest command, opcode 6).
//! * **Names**: no NUL required in a stored field; authored names hold at most 31 bytes
//!   and are NUL-terminated; comparisons fold ASCII case only and never trim (FParkan
//!   trims; a lookup layer may, the reader does not).
//! * **Authoring defaults**: zero everywhere except `scale = [1, 1, 1]`; new commands are
//!   enabled with zero data bits.
//! * Time and lifecycle rules beyond `tn`: see [`time`].

pub mod command;
pub mod effect;
mod error;
pub mod fuzz_check;
pub mod header;
mod name;
pub mod time;

#[cfg(test)]
mod tests;

pub use command::{COMMAND_WORD_LEN, Command, ENABLED_BIT, Opcode};
pub use effect::{Fxid, FxidBuilder};
pub use error::{FxidError, NameProblem};
pub use header::{FxHeader, HEADER_LEN, OBSERVED_TIME_MODES};
pub use name::{MAX_NAME_LEN, NAME_FIELD_LEN, Name32, RESOURCE_REF_LEN, RefField, ResourceRef};
pub use time::{Coefficient, Lifetime, TimeScale, creation_order, normalized_age, triangular};

/// The NRes `type_id` of FXID entries: `"FXID"` read as a little-endian `u32`.
pub const FXID_TYPE_ID: u32 = 0x4449_5846;
