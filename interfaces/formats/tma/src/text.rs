//! `LpString` (FORMATS §1.4): the raw byte vector of a length-prefixed string, with a
//! CP1251 (windows-1251) text view and an encoder for authored text.

use crate::error::{Location, Site, TmaError};
use std::fmt;

/// windows-1251 as the WHATWG encoding standard defines it (via `encoding_rs`): every byte
/// decodes to one character (`0x98`, unassigned by Microsoft, is `U+0098`), so decoding
/// is total and reversible.
const CP1251: &encoding_rs::Encoding = encoding_rs::WINDOWS_1251;

/// Decodes one windows-1251 byte. Every byte has a character, so this never fails.
pub fn cp1251_char(byte: u8) -> char {
    decode_cp1251(&[byte])
        .chars()
        .next()
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Decodes windows-1251 bytes to a `String` (total: every byte maps to one character).
pub fn decode_cp1251(bytes: &[u8]) -> String {
    CP1251.decode_without_bom_handling(bytes).0.into_owned()
}

/// Encodes one character to windows-1251, or `None` when the code page lacks it.
pub fn cp1251_byte(c: char) -> Option<u8> {
    let mut buf = [0u8; 4];
    let (out, _, had_errors) = CP1251.encode(c.encode_utf8(&mut buf));
    match (had_errors, out.as_ref()) {
        (false, [b]) => Some(*b),
        _ => None,
    }
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
