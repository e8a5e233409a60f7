//! CTPT / `*.cpt` control points (spec §11.1): a count, `Point36` records and parallel
//! 32-byte raw names; exact end, all six floats finite.
//!
//! ```text
//! u32 count; Point36 points[count]; char names[count][32]; <end>
//! ```

use crate::cursor::Cursor;
use crate::error::{AuxError, Format};

/// Size of one `Point36`.
pub const POINT_LEN: usize = 36;
/// Size of one name field.
pub const NAME_LEN: usize = 32;

/// One control point with its parallel name field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CtptPoint {
    /// `+0x00` flags: 0, `0x80000000` or a rare value (opaque; `flags_raw`).
    pub flags: u32,
    /// `+0x04` passed to the model-node selection callback (consumer-inferred: node selector).
    pub word_a: i32,
    /// `+0x08` role unknown (opaque).
    pub word_b: i32,
    /// `+0x0C` three floats, coordinate frame unknown (layout-confirmed size; meaning opaque).
    pub vec_a: [f32; 3],
    /// `+0x18` three floats (layout-confirmed size; meaning opaque).
    pub vec_b: [f32; 3],
    /// Raw 32-byte name field, tail after NUL kept (layout-confirmed).
    pub name_raw: [u8; NAME_LEN],
}

impl CtptPoint {
    /// Authors a point; the name (at most 31 bytes, no NUL) is written `name + NUL + zeros`.
    pub fn new(
        name: &[u8],
        flags: u32,
        word_a: i32,
        word_b: i32,
        vec_a: [f32; 3],
        vec_b: [f32; 3],
    ) -> Result<Self, AuxError> {
        if name.len() >= NAME_LEN || name.contains(&0) {
            return Err(AuxError::Authoring {
                format: Format::Ctpt,
                field: "name",
                reason: "at most 31 bytes without NUL",
            });
        }
        if vec_a.iter().chain(&vec_b).any(|v| !v.is_finite()) {
            return Err(AuxError::Authoring {
                format: Format::Ctpt,
                field: "vec",
                reason: "floats must be finite",
            });
        }
        let mut name_raw = [0u8; NAME_LEN];
        name_raw[..name.len()].copy_from_slice(name);
        Ok(CtptPoint {
            flags,
            word_a,
            word_b,
            vec_a,
            vec_b,
            name_raw,
        })
    }

    /// The name: bytes up to the first NUL (whole field if none).
    pub fn name(&self) -> &[u8] {
        let end = self
            .name_raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NAME_LEN);
        &self.name_raw[..end]
    }
}

/// A parsed CTPT resource.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctpt {
    /// Points in file order.
    pub points: Vec<CtptPoint>,
}

impl Ctpt {
    /// Strictly parses: count fits, exact length, all floats finite.
    pub fn parse(bytes: &[u8]) -> Result<Ctpt, AuxError> {
        let mut c = Cursor::new(bytes, Format::Ctpt);
        let count = c.u32("count")?;
        c.check_array(u64::from(count), (POINT_LEN + NAME_LEN) as u64, "points")?;
        let mut points = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            c.set_record(Some(i));
            let flags = c.u32("flags")?;
            let word_a = c.i32("word_a")?;
            let word_b = c.i32("word_b")?;
            let mut v = [0f32; 6];
            for x in &mut v {
                let at = c.pos();
                *x = c.f32("vec")?;
                if !x.is_finite() {
                    return Err(c.invalid(
                        "vec",
                        at,
                        "finite float",
                        format!("{:#010X}", x.to_bits()),
                    ));
                }
            }
            points.push(CtptPoint {
                flags,
                word_a,
                word_b,
                vec_a: [v[0], v[1], v[2]],
                vec_b: [v[3], v[4], v[5]],
                name_raw: [0; NAME_LEN],
            });
        }
        for (i, p) in points.iter_mut().enumerate() {
            c.set_record(Some(i));
            p.name_raw = c.array("name")?;
        }
        c.finish()?;
        Ok(Ctpt { points })
    }

    /// Serialises byte-identically to the parsed input.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + self.points.len() * (POINT_LEN + NAME_LEN));
        out.extend_from_slice(&(self.points.len() as u32).to_le_bytes());
        for p in &self.points {
            out.extend_from_slice(&p.flags.to_le_bytes());
            out.extend_from_slice(&p.word_a.to_le_bytes());
            out.extend_from_slice(&p.word_b.to_le_bytes());
            for x in p.vec_a.iter().chain(&p.vec_b) {
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        }
        for p in &self.points {
            out.extend_from_slice(&p.name_raw);
        }
        out
    }
}
