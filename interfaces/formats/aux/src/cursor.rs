//! Bounded little-endian cursor shared by the readers (spec §1.2): every size is checked
//! against the remaining bytes before it is read or allocated.

use crate::error::{AuxError, Format, Record};

/// A read position over a byte slice that reports [`AuxError`]s with context.
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
    record: Option<usize>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], format: Format) -> Self {
        Cursor {
            data,
            pos: 0,
            format,
            record: None,
        }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn set_record(&mut self, record: Option<usize>) {
        self.record = record;
    }

    pub(crate) fn invalid(
        &self,
        field: &'static str,
        offset: usize,
        expected: &'static str,
        found: String,
    ) -> AuxError {
        AuxError::Invalid {
            format: self.format,
            record: Record(self.record),
            field,
            offset,
            expected,
            found,
        }
    }

    /// Checks that `count * size` bytes remain; returns the byte total.
    pub(crate) fn check_array(
        &self,
        count: u64,
        size: u64,
        field: &'static str,
    ) -> Result<usize, AuxError> {
        let total = count.checked_mul(size).ok_or(AuxError::Overflow {
            format: self.format,
            record: Record(self.record),
            field,
            offset: self.pos,
        })?;
        self.need(total, field)?;
        Ok(total as usize)
    }

    /// Checks that `n` bytes remain.
    pub(crate) fn need(&self, n: u64, field: &'static str) -> Result<(), AuxError> {
        let have = self.remaining() as u64;
        if n > have {
            return Err(AuxError::Truncated {
                format: self.format,
                record: Record(self.record),
                field,
                offset: self.pos,
                need: n,
                have,
            });
        }
        Ok(())
    }

    pub(crate) fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], AuxError> {
        self.need(n as u64, field)?;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn array<const N: usize>(
        &mut self,
        field: &'static str,
    ) -> Result<[u8; N], AuxError> {
        let s = self.take(N, field)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8, AuxError> {
        Ok(self.array::<1>(field)?[0])
    }

    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16, AuxError> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn i16(&mut self, field: &'static str) -> Result<i16, AuxError> {
        Ok(i16::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32, AuxError> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn i32(&mut self, field: &'static str) -> Result<i32, AuxError> {
        Ok(i32::from_le_bytes(self.array(field)?))
    }

    pub(crate) fn f32(&mut self, field: &'static str) -> Result<f32, AuxError> {
        Ok(f32::from_bits(self.u32(field)?))
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..];
        self.pos = self.data.len();
        s
    }

    /// Requires the cursor to be at the end of the data.
    pub(crate) fn finish(&self) -> Result<(), AuxError> {
        if self.remaining() != 0 {
            return Err(AuxError::TrailingBytes {
                format: self.format,
                offset: self.pos,
                found: self.remaining(),
            });
        }
        Ok(())
    }
}
