//! A whole FXID effect: strict reader, lossless writer, authoring builder and the
//! resource listing used when command objects are created.
//!
//! ```text
//! FXID payload:
//!   FxHeader60                    offset 0 .. 0x3C
//!   command × command_count       from 0x3C, sizes fixed by opcode, no padding
//!   (end of payload)              must be reached exactly after the last command
//! ```
//!
//! Read order of the checks: header size → count plausibility (`count * 4` bytes left,
//! before any allocation) → per command: word present, opcode known, size fits →
//! exact end.

use crate::command::{COMMAND_WORD_LEN, Command, Opcode};
use crate::error::FxidError;
use crate::header::{FxHeader, HEADER_LEN};
use crate::name::ResourceRef;

/// An FXID effect: the header fields and the commands in disk order.
///
/// `command_count` is not stored: the writer emits `commands.len()`, and the reader only
/// accepts payloads whose count matches the stream, so [`Fxid::to_bytes`] reproduces
/// every accepted input byte for byte.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fxid {
    /// Header fields after `command_count`, raw.
    pub header: FxHeader,
    /// Commands in disk (and creation) order.
    pub commands: Vec<Command>,
}

impl Fxid {
    /// Parses an FXID payload strictly (see the module docs for the checks).
    pub fn parse(data: &[u8]) -> Result<Fxid, FxidError> {
        let raw: &[u8; HEADER_LEN] = data
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or(FxidError::TruncatedHeader {
                expected: HEADER_LEN,
                found: data.len(),
            })?;
        let (count, header) = FxHeader::from_raw(raw);
        let stream_len = data.len() - HEADER_LEN;
        let min_bytes = u64::from(count) * COMMAND_WORD_LEN as u64;
        if min_bytes > stream_len as u64 {
            return Err(FxidError::ImplausibleCount {
                declared: count,
                min_bytes,
                found: stream_len,
            });
        }
        // `count <= stream_len / 4`, so the reservation is bounded by the input size.
        let mut commands = Vec::with_capacity(count as usize);
        let mut offset = HEADER_LEN;
        for index in 0..count {
            let rest = &data[offset..];
            let word = match rest.get(..COMMAND_WORD_LEN) {
                Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
                _ => {
                    return Err(FxidError::TruncatedCommandWord {
                        index,
                        offset,
                        found: rest.len(),
                    });
                }
            };
            let byte = (word & 0xFF) as u8;
            let opcode = Opcode::from_u8(byte).ok_or(FxidError::UnknownOpcode {
                index,
                opcode: byte,
                word,
                offset,
            })?;
            let body =
                rest.get(COMMAND_WORD_LEN..opcode.size())
                    .ok_or(FxidError::CommandOverrun {
                        index,
                        opcode: byte,
                        offset,
                        expected: opcode.size(),
                        found: rest.len(),
                    })?;
            commands.push(Command::from_parts(word, body.to_vec())?);
            offset += opcode.size();
        }
        if offset != data.len() {
            return Err(FxidError::TrailingBytes {
                count,
                offset,
                trailing: data.len() - offset,
            });
        }
        Ok(Fxid { header, commands })
    }

    /// Starts authoring a new effect (see [`FxidBuilder`] for the defaults).
    pub fn builder() -> FxidBuilder {
        FxidBuilder::new()
    }

    /// The number of commands, as written to `command_count`.
    pub fn command_count(&self) -> Result<u32, FxidError> {
        u32::try_from(self.commands.len()).map_err(|_| FxidError::TooManyCommands {
            count: self.commands.len(),
        })
    }

    /// Total size of the payload [`Fxid::to_bytes`] writes.
    pub fn encoded_len(&self) -> usize {
        HEADER_LEN + self.commands.iter().map(Command::size).sum::<usize>()
    }

    /// Byte offset of each command in the written payload, in disk order.
    pub fn command_offsets(&self) -> impl Iterator<Item = usize> + '_ {
        self.commands.iter().scan(HEADER_LEN, |at, c| {
            let here = *at;
            *at += c.size();
            Some(here)
        })
    }

    /// Writes the payload: the header with `command_count = commands.len()`, then every
    /// command. Byte-identical to the input for every payload [`Fxid::parse`] accepted.
    pub fn to_bytes(&self) -> Result<Vec<u8>, FxidError> {
        let count = self.command_count()?;
        let mut out = Vec::with_capacity(self.encoded_len());
        out.extend_from_slice(&self.header.to_raw(count));
        for command in &self.commands {
            command.write_to(&mut out);
        }
        Ok(out)
    }

    /// Commands with a resource reference, in disk order, as
    /// `(command index, opcode, reference)`.
    pub fn resources(&self) -> impl Iterator<Item = (u32, Opcode, ResourceRef)> + '_ {
        (0u32..)
            .zip(&self.commands)
            .filter_map(|(i, c)| c.resource().map(|r| (i, c.opcode(), r)))
    }

    /// Checks every resource reference in disk order with `exists(archive, name)`
    /// (values before the NUL, untrimmed) and reports the first missing one with the
    /// effect name, command number, archive and resource (FORMATS §10.3). Disabled
    /// commands are checked too (project decision: they are still created).
    pub fn resolve_resources(
        &self,
        effect: &str,
        mut exists: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<(), FxidError> {
        for (index, opcode, r) in self.resources() {
            if !exists(r.archive.value(), r.name.value()) {
                return Err(FxidError::UnresolvedResource {
                    effect: effect.to_owned(),
                    index,
                    opcode: opcode.as_u8(),
                    archive: String::from_utf8_lossy(r.archive.value()).into_owned(),
                    name: String::from_utf8_lossy(r.name.value()).into_owned(),
                });
            }
        }
        Ok(())
    }
}

/// Authoring of new effects. Defaults (project decision 6, new content): every field
/// zero except `scale = [1, 1, 1]` (an inferred field; a zero scale would hide the
/// effect). Commands are taken as built by [`Command::new`] /
/// [`Command::with_resource`]: enabled, data bits zero, bodies zero except the
/// resource reference (`name + NUL + zero fill`).
#[derive(Clone, Debug)]
pub struct FxidBuilder {
    effect: Fxid,
}

impl Default for FxidBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl FxidBuilder {
    /// A builder with the defaults above and no commands.
    pub fn new() -> Self {
        let mut header = FxHeader::default();
        header.set_scale([1.0; 3]);
        Self {
            effect: Fxid {
                header,
                commands: Vec::new(),
            },
        }
    }

    /// Sets `time_mode` (raw; observed values in
    /// [`OBSERVED_TIME_MODES`](crate::OBSERVED_TIME_MODES)).
    pub fn time_mode(mut self, mode: u32) -> Self {
        self.effect.header.time_mode = mode;
        self
    }

    /// Sets `duration_seconds`.
    pub fn duration_seconds(mut self, seconds: f32) -> Self {
        self.effect.header.set_duration_seconds(seconds);
        self
    }

    /// Sets `phase_jitter`.
    pub fn phase_jitter(mut self, value: f32) -> Self {
        self.effect.header.set_phase_jitter(value);
        self
    }

    /// Sets the raw `flags`.
    pub fn flags(mut self, flags: u32) -> Self {
        self.effect.header.flags = flags;
        self
    }

    /// Sets the raw `settings_id`.
    pub fn settings_id(mut self, id: u32) -> Self {
        self.effect.header.settings_id = id;
        self
    }

    /// Sets `random_shift`.
    pub fn random_shift(mut self, v: [f32; 3]) -> Self {
        self.effect.header.set_random_shift(v);
        self
    }

    /// Sets `pivot`.
    pub fn pivot(mut self, v: [f32; 3]) -> Self {
        self.effect.header.set_pivot(v);
        self
    }

    /// Sets `scale`.
    pub fn scale(mut self, v: [f32; 3]) -> Self {
        self.effect.header.set_scale(v);
        self
    }

    /// Appends a command (disk order is creation order).
    pub fn command(mut self, command: Command) -> Self {
        self.effect.commands.push(command);
        self
    }

    /// Appends an enabled command of `opcode` with an authored resource reference.
    pub fn resource_command(
        self,
        opcode: Opcode,
        archive: &[u8],
        name: &[u8],
    ) -> Result<Self, FxidError> {
        Ok(self.command(Command::with_resource(opcode, archive, name)?))
    }

    /// The finished effect.
    pub fn build(self) -> Fxid {
        self.effect
    }
}
