//! [`LandMsh`]: the strict/compatible reader over the NRes lossless document, and the
//! writer (`to_bytes`) that re-encodes only the streams that changed.

use crate::error::LandMshError;
use crate::model::*;
use iron3d_nres::{ENTRY_SIZE, HEADER_SIZE, NewEntry, Nres, NresDocument, NresWriter};

/// A named leniency of the compatible reader; each turns one strict failure into a
/// [`Diagnostic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Quirk {
    /// The nine streams are present exactly once but not in the order
    /// `1,2,3,4,5,18,14,11,21`. Tolerates [`LandMshError::StreamOrder`].
    StreamOrder,
    /// A face names itself as a neighbour. Tolerates [`LandMshError::SelfNeighbour`].
    SelfNeighbour,
}

impl Quirk {
    /// A stable `snake_case` name.
    pub const fn name(self) -> &'static str {
        match self {
            Quirk::StreamOrder => "stream_order",
            Quirk::SelfNeighbour => "self_neighbour",
        }
    }
}

/// How to read: strict (default) or compatible (every [`Quirk`], plus the NRes crate's
/// compatible options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ReadOptions {
    /// Options handed to the NRes reader.
    pub nres: iron3d_nres::ReadOptions,
    /// Accept another stream order ([`Quirk::StreamOrder`]).
    pub stream_order: bool,
    /// Accept self-neighbours ([`Quirk::SelfNeighbour`]).
    pub self_neighbour: bool,
}

impl ReadOptions {
    /// Every check is fatal.
    pub fn strict() -> Self {
        Self::default()
    }

    /// Every quirk of this crate and of the NRes reader.
    pub fn compatible() -> Self {
        Self {
            nres: iron3d_nres::ReadOptions::compatible(),
            stream_order: true,
            self_neighbour: true,
        }
    }
}

/// One strict failure that a quirk tolerated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The quirk applied.
    pub quirk: Quirk,
    /// The strict error it tolerated.
    pub tolerated: LandMshError,
}

/// A parsed `Land.msh`: typed [`Streams`] plus the lossless NRes document they came
/// from. Edit `streams` freely; [`LandMsh::to_bytes`] re-validates and re-encodes.
#[derive(Clone, Debug)]
pub struct LandMsh<'a> {
    doc: NresDocument<'a>,
    /// Entry index of each stream, in [`STREAM_ORDER`] order.
    entries: [usize; 9],
    options: ReadOptions,
    diagnostics: Vec<Diagnostic>,
    /// The typed streams.
    pub streams: Streams,
}

fn dir_offset(doc_total: u64, count: usize, index: usize, field: u64) -> u64 {
    doc_total - (count as u64) * ENTRY_SIZE as u64 + (index as u64) * ENTRY_SIZE as u64 + field
}

impl<'a> LandMsh<'a> {
    /// Strict parse.
    pub fn parse(data: &'a [u8]) -> Result<Self, LandMshError> {
        Self::parse_with(data, ReadOptions::strict())
    }

    /// Parse with `options`; tolerated failures are listed in [`LandMsh::diagnostics`].
    pub fn parse_with(data: &'a [u8], options: ReadOptions) -> Result<Self, LandMshError> {
        let nres = Nres::parse_with(data, options.nres)?;
        let total = data.len() as u64;
        let n = nres.len();
        // Every type exactly once, nothing else.
        let mut entries = [usize::MAX; 9];
        for e in nres.entries() {
            let t = e.type_id();
            let Some(slot) = STREAM_ORDER.iter().position(|&x| x == t) else {
                return Err(LandMshError::UnexpectedStream {
                    index: e.index(),
                    offset: dir_offset(total, n, e.index(), 0),
                    type_id: t,
                });
            };
            if entries[slot] != usize::MAX {
                return Err(LandMshError::DuplicateStream {
                    type_id: t,
                    first: entries[slot],
                    second: e.index(),
                });
            }
            entries[slot] = e.index();
        }
        if let Some(slot) = entries.iter().position(|&i| i == usize::MAX) {
            return Err(LandMshError::MissingStream {
                type_id: STREAM_ORDER[slot],
            });
        }
        let mut diagnostics = Vec::new();
        // Order (all nine present, so n == 9 and each position has some type).
        if let Some(i) = (0..9).find(|&i| entries[i] != i) {
            let found = nres.entry(i).map_or(0, |e| e.type_id());
            let err = LandMshError::StreamOrder {
                index: i,
                offset: dir_offset(total, n, i, 0),
                expected: STREAM_ORDER[i],
                found,
            };
            if !options.stream_order {
                return Err(err);
            }
            diagnostics.push(Diagnostic {
                quirk: Quirk::StreamOrder,
                tolerated: err,
            });
        }
        // Framing: stride, count × stride == size, before anything is allocated.
        let mut streams = Streams::default();
        let mut faces_offset = 0;
        for (slot, &type_id) in STREAM_ORDER.iter().enumerate() {
            let index = entries[slot];
            let Some(e) = nres.entry(index) else {
                return Err(LandMshError::MissingStream { type_id });
            };
            let stride = stride_of(type_id).unwrap_or(0);
            let offset = u64::from(e.data_offset());
            let size = u64::from(e.size());
            let count = e.attr1();
            let header = if type_id == TYPE_SLOTS {
                if size < SLOT_HEADER_SIZE as u64 {
                    return Err(LandMshError::Truncated {
                        type_id,
                        index,
                        offset,
                        expected: SLOT_HEADER_SIZE as u64,
                        found: size,
                    });
                }
                let rest = size - SLOT_HEADER_SIZE as u64;
                if rest % SLOT_SIZE as u64 != 0 {
                    return Err(LandMshError::SlotRemainder {
                        index,
                        offset,
                        found: rest,
                    });
                }
                SLOT_HEADER_SIZE as u64
            } else {
                if e.attr3() != stride {
                    return Err(LandMshError::Stride {
                        type_id,
                        index,
                        offset: dir_offset(total, n, index, 0x10),
                        expected: stride,
                        found: e.attr3(),
                    });
                }
                0
            };
            let expected = u64::from(count)
                .checked_mul(u64::from(stride))
                .and_then(|b| b.checked_add(header))
                .filter(|&b| usize::try_from(b).is_ok())
                .ok_or(LandMshError::CountOverflow {
                    type_id,
                    index,
                    count,
                    stride,
                })?;
            if expected != size {
                return Err(LandMshError::SizeMismatch {
                    type_id,
                    index,
                    offset,
                    count,
                    stride,
                    expected,
                    found: size,
                });
            }
            if type_id == TYPE_FACES {
                faces_offset = offset;
            }
            streams.decode_stream(type_id, e.data());
        }
        // Cross-references.
        streams.validate_faces(faces_offset, true)?;
        if let Some((face, edge)) = streams.first_self_neighbour() {
            let err = LandMshError::SelfNeighbour {
                face,
                edge,
                offset: faces_offset + (face * FACE_SIZE + 0x0E + 2 * edge) as u64,
            };
            if !options.self_neighbour {
                return Err(err);
            }
            diagnostics.push(Diagnostic {
                quirk: Quirk::SelfNeighbour,
                tolerated: err,
            });
        }
        Ok(Self {
            doc: NresDocument::from_nres(&nres),
            entries,
            options,
            diagnostics,
            streams,
        })
    }

    /// Builds a new, strictly valid `Land.msh` from typed streams (canonical NRes layout,
    /// the nine entries in [`STREAM_ORDER`], named [`stream_name`], `attr1` = count,
    /// `attr2` = 0, `attr3` = stride; type 2: `attr3` = 68).
    pub fn from_streams(streams: Streams) -> Result<LandMsh<'static>, LandMshError> {
        check_counts(&streams, true)?;
        let faces_offset = HEADER_SIZE as u64; // placeholder for errors before layout
        streams.validate_faces(faces_offset, false)?;
        let mut w = NresWriter::new();
        for t in STREAM_ORDER {
            let count = streams.count(t) as u32; // checked by check_counts
            let entry = NewEntry::new(stream_name(t).as_bytes(), t, streams.encode_stream(t))?
                .with_attrs(count, 0, stride_of(t).unwrap_or(0));
            w.push(entry);
        }
        let bytes = w.finish()?;
        let doc = NresDocument::from_bytes(&bytes)?.into_owned();
        Ok(LandMsh {
            doc,
            entries: [0, 1, 2, 3, 4, 5, 6, 7, 8],
            options: ReadOptions::strict(),
            diagnostics: Vec::new(),
            streams,
        })
    }

    /// The quirks a compatible parse applied (empty for a strict parse).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The NRes entry index of stream `type_id`, if it is a `Land.msh` stream.
    pub fn entry_index(&self, type_id: u32) -> Option<usize> {
        STREAM_ORDER
            .iter()
            .position(|&t| t == type_id)
            .map(|s| self.entries[s])
    }

    /// The underlying lossless NRes document (as parsed or last written).
    pub fn document(&self) -> &NresDocument<'a> {
        &self.doc
    }

    /// Serialises: re-validates the (possibly edited) streams, replaces only the payloads
    /// whose encoding changed and only the `attr1` values whose count changed (`attr2`,
    /// `attr3`, names, gaps and padding stay as they were). An unedited parse returns the
    /// input byte for byte.
    pub fn to_bytes(&self) -> Result<Vec<u8>, LandMshError> {
        check_counts(&self.streams, false)?;
        let faces_index = self.entries[8];
        let faces_offset = self
            .doc
            .record(faces_index)
            .map_or(0, |r| u64::from(r.data_offset()));
        self.streams
            .validate_faces(faces_offset, self.options.self_neighbour)?;
        let mut doc = self.doc.clone();
        for (slot, &t) in STREAM_ORDER.iter().enumerate() {
            let index = self.entries[slot];
            let payload = self.streams.encode_stream(t);
            if doc.payload(index) != Some(payload.as_slice()) {
                doc.replace_payload(index, &payload)?;
            }
            let count = self.streams.count(t) as u32;
            if let Some(r) = doc.record(index).copied() {
                if r.attr1() != count {
                    doc.set_attrs(index, count, r.attr2(), r.attr3())?;
                }
            }
        }
        Ok(doc.to_bytes())
    }
}

/// The entry name our writer gives stream `type_id` (`"Land.<type>"`; the original names
/// are not documented).
pub fn stream_name(type_id: u32) -> String {
    format!("Land.{type_id}")
}

/// Count limits: every count fits `attr1` (`u32`); when `authoring`, faces must also stay
/// addressable by a `u16` neighbour that is not `0xFFFF`, positions by a `u16` index.
fn check_counts(s: &Streams, authoring: bool) -> Result<(), LandMshError> {
    for t in STREAM_ORDER {
        let max = match t {
            TYPE_FACES if authoring => u64::from(NO_NEIGHBOUR),
            TYPE_POSITIONS if authoring => 1 << 16,
            _ => u64::from(u32::MAX),
        };
        let found = s.count(t) as u64;
        if found > max {
            return Err(LandMshError::TooMany {
                type_id: t,
                max,
                found,
            });
        }
    }
    Ok(())
}
