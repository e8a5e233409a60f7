//! Text primitives for WEAR: the windows-1251 view (FORMATS §1.4, §1.6) and a lazy line
//! cursor that remembers line numbers and rejects NUL and lone CR bytes.

use crate::error::MaterialError;

/// The upper half of windows-1251 (`0x80..=0xFF`) as Unicode scalar values.
///
/// `0x98` is unassigned in the Microsoft table; like the WHATWG encoding standard it maps
/// to `U+0098`, so decoding is total and reversible.
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

/// Decodes windows-1251 bytes to a `String` (total: every byte maps to one character).
pub fn decode_cp1251(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b.checked_sub(0x80) {
            None => char::from(b),
            Some(i) => CP1251_HIGH
                .get(usize::from(i))
                .and_then(|&u| char::from_u32(u32::from(u)))
                .unwrap_or(char::REPLACEMENT_CHARACTER),
        })
        .collect()
}

/// Encodes text to windows-1251; fails with [`MaterialError::NotCp1251`] naming the first
/// character the code page lacks.
pub fn encode_cp1251(text: &str) -> Result<Vec<u8>, MaterialError> {
    text.char_indices()
        .map(|(at, character)| {
            if character.is_ascii() {
                return Ok(character as u8);
            }
            u16::try_from(u32::from(character))
                .ok()
                .and_then(|u| CP1251_HIGH.iter().position(|&v| v == u))
                .and_then(|i| u8::try_from(i + 0x80).ok())
                .ok_or(MaterialError::NotCp1251 { character, at })
        })
        .collect()
}

/// Space or tab: the only white space of the WEAR grammar (project decision).
pub(crate) const fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A line holding only spaces and tabs (or nothing).
pub(crate) fn is_blank(content: &[u8]) -> bool {
    content.iter().all(|&b| is_space(b))
}

/// 1-based column of the first non-blank byte (1 for a blank line).
pub(crate) fn first_non_blank_column(content: &[u8]) -> usize {
    content.iter().position(|&b| !is_space(b)).unwrap_or(0) + 1
}

/// One physical line without its ending (`LF` or `CRLF`; the last line may have none).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The bytes between the line start and its ending.
    pub content: &'a [u8],
}

/// A lazy, bounded line cursor over the whole input.
#[derive(Clone, Debug)]
pub(crate) struct Lines<'a> {
    input: &'a [u8],
    pos: usize,
    number: usize,
}

impl<'a> Lines<'a> {
    /// A cursor at the first line.
    pub fn new(input: &'a [u8]) -> Self {
        Self {
            input,
            pos: 0,
            number: 1,
        }
    }

    /// The number the next line will have (for "found end of text" errors).
    pub fn next_number(&self) -> usize {
        self.number
    }

    /// Lines that remain (an upper bound for pre-allocation).
    pub fn remaining(&self) -> usize {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return 0;
        }
        let newlines = rest.iter().filter(|&&b| b == b'\n').count();
        if rest.last() == Some(&b'\n') {
            newlines
        } else {
            newlines + 1
        }
    }

    /// The next line, `Ok(None)` at the end; a NUL byte or a CR not followed by LF fails.
    pub fn next_line(&mut self) -> Result<Option<Line<'a>>, MaterialError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(None);
        }
        let (raw, consumed) = match rest.iter().position(|&b| b == b'\n') {
            Some(nl) => (rest.get(..nl).unwrap_or_default(), nl + 1),
            None => (rest, rest.len()),
        };
        let ends_with_lf = consumed > raw.len();
        let content = match raw.split_last() {
            Some((b'\r', head)) if ends_with_lf => head,
            _ => raw,
        };
        let number = self.number;
        for (i, &b) in content.iter().enumerate() {
            if b == 0 {
                return Err(MaterialError::WearNul {
                    line: number,
                    column: i + 1,
                });
            }
            if b == b'\r' {
                return Err(MaterialError::WearStrayCr {
                    line: number,
                    column: i + 1,
                });
            }
        }
        self.pos += consumed;
        self.number += 1;
        Ok(Some(Line { number, content }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp1251_round_trips_every_byte() {
        let all: Vec<u8> = (0..=255).collect();
        let text = decode_cp1251(&all);
        assert_eq!(encode_cp1251(&text).expect("total"), all);
        assert_eq!(decode_cp1251("Ёж".as_bytes()).chars().count(), 4);
        assert_eq!(encode_cp1251("Ёж").expect("cp1251"), vec![0xA8, 0xE6]);
        assert!(matches!(
            encode_cp1251("a€ж漢"),
            Err(MaterialError::NotCp1251 {
                character: '漢',
                at: 6
            })
        ));
    }

    #[test]
    fn lines_strip_lf_and_crlf_and_count_remaining() {
        let mut l = Lines::new(b"a\r\nb\n\nc");
        assert_eq!(l.remaining(), 4);
        let got: Vec<_> = std::iter::from_fn(|| l.next_line().expect("ok"))
            .map(|x| (x.number, x.content.to_vec()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, b"a".to_vec()),
                (2, b"b".to_vec()),
                (3, vec![]),
                (4, b"c".to_vec())
            ]
        );
        assert_eq!(Lines::new(b"x\n").remaining(), 1);
        assert_eq!(Lines::new(b"").remaining(), 0);
    }

    #[test]
    fn lines_reject_lone_cr_and_nul() {
        let mut l = Lines::new(b"ok\nA\rB\n");
        assert!(l.next_line().expect("first").is_some());
        assert_eq!(
            l.next_line().unwrap_err(),
            MaterialError::WearStrayCr { line: 2, column: 2 }
        );
        assert_eq!(
            Lines::new(b"x\r").next_line().unwrap_err(),
            MaterialError::WearStrayCr { line: 1, column: 2 }
        );
        assert_eq!(
            Lines::new(b"ab\0").next_line().unwrap_err(),
            MaterialError::WearNul { line: 1, column: 3 }
        );
    }
}
