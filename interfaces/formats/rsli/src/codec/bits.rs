//! MSB-first bit reader and writer for the LZHUF stream.

use crate::error::RsliError;

/// Reads bits most significant first; reading past the end is an error, never zeros.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    bit_pos: usize,
    expected: usize,
    produced: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at the first bit of `data`; `expected` is the declared output size, kept
    /// for error messages.
    pub(crate) fn new(data: &'a [u8], expected: usize) -> Self {
        BitReader {
            data,
            bit_pos: 0,
            expected,
            produced: 0,
        }
    }

    /// Records how much output exists, for the truncation error.
    pub(crate) fn set_produced(&mut self, produced: usize) {
        self.produced = produced;
    }

    /// The next bit.
    pub(crate) fn bit(&mut self) -> Result<u32, RsliError> {
        let byte = self.bit_pos / 8;
        let &b = self.data.get(byte).ok_or(RsliError::InputTruncated {
            codec: "lzhuf",
            offset: byte,
            produced: self.produced,
            expected: self.expected,
        })?;
        let bit = (b >> (7 - self.bit_pos % 8)) & 1;
        self.bit_pos += 1;
        Ok(u32::from(bit))
    }

    /// The next `n` bits (`n <= 16`) as an integer, first bit most significant.
    pub(crate) fn bits(&mut self, n: u32) -> Result<u32, RsliError> {
        let mut v = 0;
        for _ in 0..n {
            v = (v << 1) | self.bit()?;
        }
        Ok(v)
    }
}

/// Writes bits most significant first; the last byte is padded with zero bits.
#[derive(Default)]
pub(crate) struct BitWriter {
    out: Vec<u8>,
    used: u32,
}

impl BitWriter {
    /// Appends one bit (only bit 0 of `b` counts).
    pub(crate) fn bit(&mut self, b: u8) {
        if self.used % 8 == 0 {
            self.out.push(0);
        }
        if b & 1 != 0 {
            if let Some(last) = self.out.last_mut() {
                *last |= 0x80 >> (self.used % 8);
            }
        }
        self.used = (self.used + 1) % 8;
    }

    /// Appends the low `n` bits of `v`, most significant first.
    pub(crate) fn bits(&mut self, n: u32, v: u32) {
        for i in (0..n).rev() {
            self.bit(((v >> i) & 1) as u8);
        }
    }

    /// The bytes written, the last one zero-padded.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.out
    }
}
