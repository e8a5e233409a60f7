//! `LpString` (FORMATS §1.4): the raw byte vector of a length-prefixed string, with a
//! CP1251 (windows-1251) text view and an encoder for authored text.

use crate::error::{Location, Site, TmaError};
use std::fmt;

/// The upper half of windows-1251 (`0x80..=0xFF`) as Unicode scalar values.
///
/// `0x98` is unassigned in the Microsoft table; like the WHATWG encoding standard (and
/// `encoding_rs`) we map it to `U+0098` so that decoding is total and reversible.
const CP1251_HIGH: [u16; 128] = [
    0x0402, 0x0403, 0x201A, 0x0453, 0x201E, 0x2026, 0x2020, 0x2021, //
    0x20AC, 0x2030, 0x0409, 0x2039, 0x040A, 0x040C, 0x040B, 0x040F, //
    0x0452, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, //
    0x0098, 0x2122, 0x0459, 0x203A, 0x045A, 0x045C, 0x045B, 0x045F, //
    0x00A0, 0x040E, 0x045E, 0x0408, 0x00A4, 0x0490, 0x00A6, 0x00A7, //
    0x0401, 0x00A9, 0x0404, 0x00AB, 0x00AC, 0x00AD, 0x00AE, 0x0407, //
    0x00B0, 0x00B1, 0x0406, 0x0456, 0x0491, 0x00B5, 0x00B6, 0x00B7, //
    0x0451, 0x2116, 0x0454, 0x00BB, 0x0458, 0x0405, 0x0455, 0x0457, //
    0x0410, 0x0411, 0x0412, 0x0413, 0x0414, 0x0415, 0x0416, 0x0417, //
    0x0418, 0x0419, 0x041A, 0x041B, 0x041C, 0x041D, 0x041E, 0x041F, //
    0x0420, 0x0421, 0x0422, 0x0423, 0x0424, 0x0425, 0x0426, 0x0427, //
    0x0428, 0x0429, 0x042A, 0x042B, 0x042C, 0x042D, 0x042E, 0x042F, //
    0x0430, 0x0431, 0x0432, 0x0433, 0x0434, 0x0435, 0x0436, 0x0437, //
    0x0438, 0x0439, 0x043A, 0x043B, 0x043C, 0x043D, 0x043E, 0x043F, //
    0x0440, 0x0441, 0x0442, 0x0443, 0x0444, 0x0445, 0x0446, 0x0447, //
    0x0448, 0x0449, 0x044A, 0x044B, 0x044C, 0x044D, 0x044E, 0x044F, //
];

/// Decodes one windows-1251 byte. Every byte has a character, so this never fails.
pub fn cp1251_char(byte: u8) -> char {
    match byte.checked_sub(0x80) {
        None => char::from(byte),
        Some(i) => CP1251_HIGH
            .get(usize::from(i))
            .and_then(|&u| char::from_u32(u32::from(u)))
            .unwrap_or(char::REPLACEMENT_CHARACTER),
    }
}

/// Decodes windows-1251 bytes to a `String` (total: every byte maps to one character).
pub fn decode_cp1251(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| cp1251_char(b)).collect()
}

/// Encodes one character to windows-1251, or `None` when the code page lacks it.
pub fn cp1251_byte(c: char) -> Option<u8> {
    if c.is_ascii() {
        return u8::try_from(u32::from(c)).ok();
    }
    let u = u16::try_from(u32::from(c)).ok()?;
    let i = CP1251_HIGH.iter().position(|&v| v == u)?;
    u8::try_from(i + 0x80).ok()
}

/// Encodes text to windows-1251. Fails with [`TmaError::NotCp1251`] naming the first
/// character the code page lacks and its byte position in `text`.
pub fn encode_cp1251(text: &str) -> Result<Vec<u8>, TmaError> {
    text.char_indices()
        .map(|(at, character)| {
            cp1251_byte(character).ok_or(TmaError::NotCp1251 {
                site: Site {
                    location: Location::Text,
                    field: "text",
                    offset: at as u64,
                },
                character,
            })
        })
        .collect()
}

/// A length-prefixed string: `u32 byte_length, u8 bytes[byte_length]`.
///
/// The canonical value is the raw byte vector, re-emitted unchanged; a trailing NUL is
/// content, not framing. [`LpString::text`] is a CP1251 view for humans.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LpString {
    bytes: Vec<u8>,
}

impl LpString {
    /// The empty string (`byte_length == 0`).
    pub const fn empty() -> Self {
        Self { bytes: Vec::new() }
    }

    /// Wraps raw bytes as they are (any bytes, NULs included).
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
        }
    }

    /// Encodes `text` to CP1251. Fails with [`TmaError::NotCp1251`] naming the first
    /// character the code page lacks and its byte position in `text`.
    pub fn from_text(text: &str) -> Result<Self, TmaError> {
        encode_cp1251(text).map(Self::from_bytes)
    }

    /// The raw bytes (the canonical value).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Consumes the string, returning its raw bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Number of bytes (the `byte_length` written before them).
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether the string has no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The CP1251 text view of every byte (NULs included, decoded as `U+0000`).
    pub fn text(&self) -> String {
        decode_cp1251(&self.bytes)
    }

    /// Exact, case-sensitive byte equality with `name` (the MisLoad property rule).
    pub fn is(&self, name: &[u8]) -> bool {
        self.bytes == name
    }
}

impl From<Vec<u8>> for LpString {
    fn from(bytes: Vec<u8>) -> Self {
        Self::from_bytes(bytes)
    }
}

impl From<&[u8]> for LpString {
    fn from(bytes: &[u8]) -> Self {
        Self::from_bytes(bytes)
    }
}

impl<const N: usize> From<&[u8; N]> for LpString {
    fn from(bytes: &[u8; N]) -> Self {
        Self::from_bytes(&bytes[..])
    }
}

impl TryFrom<&str> for LpString {
    type Error = TmaError;

    /// Same as [`LpString::from_text`].
    fn try_from(text: &str) -> Result<Self, Self::Error> {
        Self::from_text(text)
    }
}

impl fmt::Debug for LpString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

impl fmt::Display for LpString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_round_trips_through_the_text_view() {
        let all: Vec<u8> = (0..=255).collect();
        let text = decode_cp1251(&all);
        assert_eq!(text.chars().count(), 256);
        assert_eq!(encode_cp1251(&text).ok(), Some(all));
    }

    #[test]
    fn cyrillic_and_punctuation_map_to_their_code_points() {
        let s = LpString::from_text("Клан №1 — «Ёж»").expect("encodable");
        assert_eq!(
            s.as_bytes(),
            b"\xCA\xEB\xE0\xED \xB91 \x97 \xAB\xA8\xE6\xBB".as_slice()
        );
        assert_eq!(s.text(), "Клан №1 — «Ёж»");
        assert_eq!(cp1251_char(0x98), '\u{98}');
        assert_eq!(cp1251_char(0x88), '€');
    }

    #[test]
    fn characters_outside_the_code_page_are_refused_with_their_position() {
        let err = LpString::from_text("ab日").expect_err("not CP1251");
        assert!(matches!(
            err,
            TmaError::NotCp1251 {
                character: '日',
                ..
            }
        ));
        assert_eq!((err.offset(), err.location()), (2, Location::Text));
        assert_eq!(
            err.to_string(),
            "[cp1251_text] text `text` at offset 0x2: expected a CP1251 character, found '日'"
        );
        let err = LpString::try_from("ä").expect_err("not CP1251");
        assert_eq!(err.offset(), 0);
    }

    #[test]
    fn a_trailing_nul_is_content() {
        let s = LpString::from(b"abc\0");
        assert_eq!(s.len(), 4);
        assert_eq!(s.text(), "abc\0");
        assert!(s.is(b"abc\0") && !s.is(b"abc"));
    }
}
