//! Text primitives for WEAR: the windows-1251 view (FORMATS §1.4, §1.6) and a lazy line
//! cursor that remembers line numbers and rejects NUL and lone CR bytes.

use crate::error::MaterialError;

/// Decodes windows-1251 bytes to a `String` (WHATWG table via `encoding_rs`; total:
/// every byte maps to one character, `0x98` to `U+0098`).
pub fn decode_cp1251(bytes: &[u8]) -> String {
    encoding_rs::WINDOWS_1251
        .decode_without_bom_handling(bytes)
        .0
        .into_owned()
}

/// Encodes text to windows-1251; fails with [`MaterialError::NotCp1251`] naming the first
/// character the code page lacks.
pub fn encode_cp1251(text: &str) -> Result<Vec<u8>, MaterialError> {
    text.char_indices()
        .map(|(at, character)| {
            if character.is_ascii() {
                return Ok(character as u8);
            }
            let mut buf = [0u8; 4];
            let (out, _, had_errors) =
                encoding_rs::WINDOWS_1251.encode(character.encode_utf8(&mut buf));
            match (had_errors, out.as_ref()) {
                (false, [b]) => Ok(*b),
                _ => Err(MaterialError::NotCp1251 { character, at }),
            }
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
