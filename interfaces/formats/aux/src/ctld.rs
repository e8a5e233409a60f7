//! CTLD / `*.ctl` control description (spec §11.6): five header counts, the opaque
//! prefix and S/M sections, the `ControlRow36` pose-binding table, and the raw tail.
//!
//! ```text
//! +0x00 u32 S, M, T, C3, C4                 header counts (layout-confirmed)
//! +0x14 u8 prefix[0x6C]                     opaque up to +0x80
//! +0x80 u8 sections[S*(156+16*M) + 4*S*S]   opaque (sized by the native formula)
//! row_start: ControlRow36 rows[T]           (layout-confirmed)
//! tail: typed device records, 21 effect-group refs, group tables (kept raw: where each
//!       record's tag is stored is not documented, so the tail cannot be split safely)
//! ```

use crate::cursor::Cursor;
use crate::error::{AuxError, Format, Record};

/// Size of the fixed prefix before the S/M sections.
pub const CTLD_PREFIX_LEN: usize = 0x80;
/// Size of one `ControlRow36`.
pub const CONTROL_ROW_LEN: usize = 36;
/// Size of the fixed part of a typed device record (`fixed[0xB0]`).
pub const TYPED_RECORD_FIXED_LEN: usize = 0xB0;

/// Byte length of the S/M sections: `S*(156 + 16*M) + 4*S*S` (confirmed native formula),
/// or `None` on overflow.
pub fn sections_len(s: u32, m: u32) -> Option<u64> {
    let (s, m) = (u64::from(s), u64::from(m));
    s.checked_mul(m.checked_mul(16)?.checked_add(156)?)?
        .checked_add(s.checked_mul(s)?.checked_mul(4)?)
}

/// Row flag: single wrap of the blend instead of clamping (layout-confirmed).
pub const ROW_FLAG_WRAP: u32 = 0x1;
/// Row flag: invert the blend (layout-confirmed).
pub const ROW_FLAG_INVERT: u32 = 0x2;
/// Row flag: skipped in static preview; endpoints may be sentinel -1 (layout-confirmed).
pub const ROW_FLAG_SKIP: u32 = 0x4;

/// One `ControlRow36` pose-binding row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlRow {
    /// `+0x00` MSH node id (layout-confirmed).
    pub node_id: i32,
    /// `+0x04` animation frame at blend 0 (layout-confirmed).
    pub endpoint_a: f32,
    /// `+0x08` animation frame at blend 1 (layout-confirmed).
    pub endpoint_b: f32,
    /// `+0x0C` initial blend (layout-confirmed).
    pub blend: f32,
    /// `+0x10` 16 bytes (opaque).
    pub opaque: [u8; 16],
    /// `+0x20` flags; bits 0x1, 0x2, 0x4 known (layout-confirmed).
    pub flags: u32,
}

impl ControlRow {
    /// Authors a row with zero opaque bytes.
    pub fn new(node_id: i32, endpoint_a: f32, endpoint_b: f32, blend: f32, flags: u32) -> Self {
        ControlRow {
            node_id,
            endpoint_a,
            endpoint_b,
            blend,
            opaque: [0; 16],
            flags,
        }
    }

    /// Initial frame per Control RVA 0x9950 / AniMesh 0x8BF2; `None` for rows with
    /// `flags & 4` (skipped in preview).
    pub fn initial_frame(&self) -> Option<f32> {
        if self.flags & ROW_FLAG_SKIP != 0 {
            return None;
        }
        let mut b = self.blend;
        if self.flags & ROW_FLAG_WRAP != 0 {
            if b > 1.0 {
                b -= 1.0;
            } else if b < 0.0 {
                b += 1.0;
            }
        } else {
            b = b.clamp(0.0, 1.0);
        }
        if self.flags & ROW_FLAG_INVERT != 0 {
            b = 1.0 - b;
        }
        Some((1.0 - b) * self.endpoint_a + b * self.endpoint_b)
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.node_id.to_le_bytes());
        out.extend_from_slice(&self.endpoint_a.to_bits().to_le_bytes());
        out.extend_from_slice(&self.endpoint_b.to_bits().to_le_bytes());
        out.extend_from_slice(&self.blend.to_bits().to_le_bytes());
        out.extend_from_slice(&self.opaque);
        out.extend_from_slice(&self.flags.to_le_bytes());
    }
}

/// A parsed CTLD payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctld {
    counts: [u32; 5],
    prefix: [u8; CTLD_PREFIX_LEN - 20],
    sections: Vec<u8>,
    rows: Vec<ControlRow>,
    tail: Vec<u8>,
}

impl Ctld {
    /// Strictly parses a CTLD payload: header, overflow-checked section sizes, `T` rows
    /// in bounds; the tail after the rows is kept raw.
    pub fn parse(bytes: &[u8]) -> Result<Ctld, AuxError> {
        let mut c = Cursor::new(bytes, Format::Ctld);
        c.need(CTLD_PREFIX_LEN as u64, "prefix")?;
        let mut counts = [0u32; 5];
        for (i, n) in counts.iter_mut().enumerate() {
            *n = c.u32(["S", "M", "T", "C3", "C4"][i])?;
        }
        let prefix = c.array("prefix")?;
        let sec = sections_len(counts[0], counts[1]).ok_or(AuxError::Overflow {
            format: Format::Ctld,
            record: Record(None),
            field: "sections",
            offset: 0,
        })?;
        c.need(sec, "sections")?;
        let sections = c.take(sec as usize, "sections")?.to_vec();
        c.check_array(u64::from(counts[2]), CONTROL_ROW_LEN as u64, "rows")?;
        let mut rows = Vec::with_capacity(counts[2] as usize);
        for i in 0..counts[2] as usize {
            c.set_record(Some(i));
            rows.push(ControlRow {
                node_id: c.i32("row.node_id")?,
                endpoint_a: c.f32("row.endpoint_a")?,
                endpoint_b: c.f32("row.endpoint_b")?,
                blend: c.f32("row.blend")?,
                opaque: c.array("row.opaque")?,
                flags: c.u32("row.flags")?,
            });
        }
        let tail = c.rest().to_vec();
        Ok(Ctld {
            counts,
            prefix,
            sections,
            rows,
            tail,
        })
    }

    /// Authors a CTLD with `S = M = 0`, zero prefix, the given rows, `C3`/`C4` and raw
    /// tail (typed records, group refs, group tables built by the caller).
    pub fn new(rows: Vec<ControlRow>, c3: u32, c4: u32, tail: Vec<u8>) -> Result<Ctld, AuxError> {
        Self::with_sections(
            0,
            0,
            [0; CTLD_PREFIX_LEN - 20],
            Vec::new(),
            rows,
            c3,
            c4,
            tail,
        )
    }

    /// Authors a CTLD with explicit S, M, prefix bytes `+0x14..+0x80` and section bytes;
    /// the section length must match the formula.
    #[allow(clippy::too_many_arguments)]
    pub fn with_sections(
        s: u32,
        m: u32,
        prefix: [u8; CTLD_PREFIX_LEN - 20],
        sections: Vec<u8>,
        rows: Vec<ControlRow>,
        c3: u32,
        c4: u32,
        tail: Vec<u8>,
    ) -> Result<Ctld, AuxError> {
        if sections_len(s, m) != Some(sections.len() as u64) {
            return Err(AuxError::Authoring {
                format: Format::Ctld,
                field: "sections",
                reason: "length must equal S*(156+16*M)+4*S*S",
            });
        }
        let t = u32::try_from(rows.len()).map_err(|_| AuxError::Authoring {
            format: Format::Ctld,
            field: "rows",
            reason: "more than u32::MAX rows",
        })?;
        Ok(Ctld {
            counts: [s, m, t, c3, c4],
            prefix,
            sections,
            rows,
            tail,
        })
    }

    /// The five header counts `[S, M, T, C3, C4]` (layout-confirmed framing; C3/C4
    /// meaning opaque, C4 = group-table count is consumer-inferred).
    pub fn counts(&self) -> [u32; 5] {
        self.counts
    }

    /// Bytes `+0x14..+0x80` (opaque).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// The S/M sections (opaque).
    pub fn sections(&self) -> &[u8] {
        &self.sections
    }

    /// Offset of the first row: `128 + S*(156+16*M) + 4*S*S`.
    pub fn row_start(&self) -> usize {
        CTLD_PREFIX_LEN + self.sections.len()
    }

    /// The pose-binding rows in file order.
    pub fn rows(&self) -> &[ControlRow] {
        &self.rows
    }

    /// Mutable rows (editing keeps the count; use [`Ctld::new`] to change it).
    pub fn rows_mut(&mut self) -> &mut [ControlRow] {
        &mut self.rows
    }

    /// Everything after the rows: typed records, group refs, group tables (opaque).
    pub fn tail(&self) -> &[u8] {
        &self.tail
    }

    /// Serialises byte-identically to the parsed input.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            self.row_start() + self.rows.len() * CONTROL_ROW_LEN + self.tail.len(),
        );
        for n in self.counts {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(&self.sections);
        for r in &self.rows {
            r.write(&mut out);
        }
        out.extend_from_slice(&self.tail);
        out
    }
}

/// A typed device record as consumed by the common reader (Control `+0x21D50`) for
/// tags 2, 3, 4, 5, 8, 10, 21, 27. Where the tag itself is stored is not documented, so
/// this codec works on a slice the caller positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedRecord {
    /// `fixed[0xB0]` (layout-confirmed size; `+0x04` NDP row key and `+0x2C` coefficient
    /// are consumer-inferred; `+0xAC` holds `value_count` and is rewritten on output).
    pub fixed: [u8; TYPED_RECORD_FIXED_LEN],
    /// `u32 values[value_count]` (layout-confirmed framing, meaning opaque).
    pub values: Vec<u32>,
    /// Text without its NUL; empty means `text_len = 0` and no NUL (layout-confirmed).
    pub text: Vec<u8>,
}

impl TypedRecord {
    /// Parses one record from the start of `bytes`; returns it and its length.
    pub fn parse(bytes: &[u8]) -> Result<(TypedRecord, usize), AuxError> {
        let mut c = Cursor::new(bytes, Format::Ctld);
        let fixed: [u8; TYPED_RECORD_FIXED_LEN] = c.array("record.fixed")?;
        let count = u32::from_le_bytes([fixed[0xAC], fixed[0xAD], fixed[0xAE], fixed[0xAF]]);
        c.check_array(u64::from(count), 4, "record.values")?;
        let values = (0..count)
            .map(|_| c.u32("record.values"))
            .collect::<Result<Vec<_>, _>>()?;
        let len_at = c.pos();
        let text_len = c.u32("record.text_len")?;
        let text = if text_len == 0 {
            Vec::new()
        } else {
            let t = c.take(text_len as usize, "record.text")?.to_vec();
            let nul = c.u8("record.text_nul")?;
            if nul != 0 {
                return Err(c.invalid(
                    "record.text_nul",
                    len_at + 4 + t.len(),
                    "NUL after text",
                    nul.to_string(),
                ));
            }
            t
        };
        Ok((
            TypedRecord {
                fixed,
                values,
                text,
            },
            c.pos(),
        ))
    }

    /// Serialises the record (`value_count` and `text_len` recomputed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.fixed.to_vec();
        out[0xAC..0xB0].copy_from_slice(&(self.values.len() as u32).to_le_bytes());
        for v in &self.values {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(self.text.len() as u32).to_le_bytes());
        if !self.text.is_empty() {
            out.extend_from_slice(&self.text);
            out.push(0);
        }
        out
    }
}
