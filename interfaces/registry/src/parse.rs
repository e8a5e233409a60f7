//! The line-level lexer and parser of the Comp.ini grammar: splits raw bytes into lines
//! (keeping their endings) and turns one line into a [`LineKind`], with located errors.

use crate::error::{Diagnostic, RegistryError, TokenRole};
use crate::key::{Cid, SlotKey, SlotName};
use crate::registry::{Dialect, Entry, LineEnding, LineKind, UnknownEntry};

/// The longest accepted line, in bytes, not counting its line ending.
pub const MAX_LINE_LEN: usize = 4096;

/// Separator bytes between tokens: space and tab.
pub(crate) const fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Bytes allowed inside a token: printable ASCII without space.
pub(crate) const fn is_token_byte(b: u8) -> bool {
    b >= 0x21 && b <= 0x7E
}

/// Removes leading and trailing spaces and tabs.
pub(crate) fn trim_space(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !is_space(*first) {
            break;
        }
        s = rest;
    }
    trim_space_end(s)
}

/// Removes trailing spaces and tabs.
fn trim_space_end(mut s: &[u8]) -> &[u8] {
    while let [rest @ .., last] = s {
        if !is_space(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// Splits `input` into `(content, ending)` pairs. A CR directly before an LF belongs to
/// the ending; any other CR stays in the content. Concatenating every content with its
/// ending's bytes gives back `input` exactly.
pub(crate) fn split_lines(input: &[u8]) -> impl Iterator<Item = (&[u8], LineEnding)> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let (line, tail) = rest.split_at(i);
                rest = tail.get(1..).unwrap_or_default();
                Some(match line.strip_suffix(b"\r") {
                    Some(content) => (content, LineEnding::CrLf),
                    None => (line, LineEnding::Lf),
                })
            }
            None => {
                let line = rest;
                rest = &[];
                Some((line, LineEnding::None))
            }
        }
    })
}

/// A left-to-right scanner over one line's content.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        while self.bytes.get(self.pos).copied().is_some_and(is_space) {
            self.pos += 1;
        }
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    fn at_end(&self) -> bool {
        self.rest().is_empty()
    }

    fn at_comment(&self) -> bool {
        self.rest().starts_with(b"//")
    }

    /// Skips separators, then takes the next token (up to a separator, a `//` or the end
    /// of the line). Returns its 0-based start and bytes; `None` at the end or at a comment.
    fn token(&mut self) -> Option<(usize, &'a [u8])> {
        self.skip_space();
        if self.at_end() || self.at_comment() {
            return None;
        }
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if is_space(b) || self.at_comment() {
                break;
            }
            self.pos += 1;
        }
        Some((start, self.bytes.get(start..self.pos).unwrap_or_default()))
    }
}

/// What a key token means.
enum KeyClass {
    Known(SlotKey),
    Unknown,
}

/// Classifies a validated key token; `Err(())` for a number that is not a CID.
fn classify_key(token: &str, dialect: Dialect) -> Result<KeyClass, ()> {
    let digits = token.strip_prefix('-').unwrap_or(token);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if digits.len() != token.len() {
            return Err(());
        }
        let significant = token.trim_start_matches('0');
        let n = match significant.as_bytes() {
            [] => 0,
            [d] => d - b'0',
            _ => return Err(()),
        };
        return Cid::from_number(n)
            .map(|cid| KeyClass::Known(SlotKey::Cid(cid)))
            .ok_or(());
    }
    Ok(match (dialect, token.parse::<SlotName>()) {
        (Dialect::PluginsIni, Ok(slot)) => KeyClass::Known(SlotKey::Slot(slot)),
        _ => KeyClass::Unknown,
    })
}

/// The message of the unknown-key diagnostic.
fn unknown_key_message(key: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::PluginsIni => {
            let mut msg = format!(
                "unknown key `{key}`: neither a CID 0-7 nor a slot name \
                 (terrain, ai, control, effects, audio, render, net, input); \
                 the entry is kept but not used"
            );
            if let Ok(slot) = key.to_ascii_lowercase().parse::<SlotName>() {
                msg.push_str(&format!(
                    " (slot names are lower-case: did you mean `{slot}`?)"
                ));
            }
            msg
        }
        Dialect::CompIni => format!(
            "unknown key `{key}`: Comp.ini keys are CIDs 0-7; the entry is kept but not used"
        ),
    }
}

/// One parsed line plus what the document-level checks need.
#[derive(Debug)]
pub(crate) struct ParsedLine {
    pub(crate) kind: LineKind,
    /// 1-based column of the key, for entry lines (0 otherwise).
    pub(crate) key_column: usize,
    /// The key exactly as written, for entry lines (empty otherwise).
    pub(crate) key_text: String,
    pub(crate) diagnostic: Option<Diagnostic>,
}

/// Parses one line's content (without its ending). `line` is 1-based.
pub(crate) fn parse_line(
    content: &[u8],
    line: usize,
    dialect: Dialect,
    origin: &str,
) -> Result<ParsedLine, RegistryError> {
    if content.len() > MAX_LINE_LEN {
        return Err(RegistryError::LineTooLong {
            origin: origin.to_owned(),
            line,
            column: MAX_LINE_LEN + 1,
            len: content.len(),
            max: MAX_LINE_LEN,
        });
    }
    let mut cur = Cursor {
        bytes: content,
        pos: 0,
    };
    let validate = |start: usize, token: &[u8], role: TokenRole| -> Result<String, RegistryError> {
        match token.iter().position(|&b| !is_token_byte(b)) {
            Some(i) => Err(RegistryError::InvalidByte {
                origin: origin.to_owned(),
                line,
                column: start + 1,
                role,
                byte: token.get(i).copied().unwrap_or_default(),
                byte_column: start + i + 1,
            }),
            // Every byte is printable ASCII, hence valid UTF-8.
            None => Ok(token.iter().map(|&b| char::from(b)).collect()),
        }
    };

    let Some((key_start, key_bytes)) = cur.token() else {
        let kind = if cur.at_comment() {
            LineKind::Comment(trim_space(cur.rest().get(2..).unwrap_or_default()).to_vec())
        } else {
            LineKind::Blank
        };
        return Ok(ParsedLine {
            kind,
            key_column: 0,
            key_text: String::new(),
            diagnostic: None,
        });
    };
    let key = validate(key_start, key_bytes, TokenRole::Key)?;
    let class = classify_key(&key, dialect).map_err(|()| RegistryError::CidOutOfRange {
        origin: origin.to_owned(),
        line,
        column: key_start + 1,
        key: key.clone(),
    })?;

    let key_end = cur.pos;
    let Some((lib_start, lib_bytes)) = cur.token() else {
        return Err(RegistryError::MissingLibrary {
            origin: origin.to_owned(),
            line,
            column: key_end + 1,
            key,
        });
    };
    let library = validate(lib_start, lib_bytes, TokenRole::Library)?;

    let lib_end = cur.pos;
    let Some((fac_start, fac_bytes)) = cur.token() else {
        return Err(RegistryError::MissingFactory {
            origin: origin.to_owned(),
            line,
            column: lib_end + 1,
            library,
        });
    };
    let factory = validate(fac_start, fac_bytes, TokenRole::Factory)?;

    cur.skip_space();
    let comment = if cur.at_end() {
        None
    } else if cur.at_comment() {
        Some(trim_space(cur.rest().get(2..).unwrap_or_default()).to_vec())
    } else {
        match dialect {
            Dialect::PluginsIni => {
                return Err(RegistryError::TrailingText {
                    origin: origin.to_owned(),
                    line,
                    column: cur.pos + 1,
                });
            }
            Dialect::CompIni => Some(trim_space_end(cur.rest()).to_vec()),
        }
    };

    let key_column = key_start + 1;
    let key_text = key;
    Ok(match class {
        KeyClass::Known(key) => ParsedLine {
            kind: LineKind::Entry(Entry {
                line,
                key,
                library,
                factory,
                comment,
            }),
            key_column,
            key_text,
            diagnostic: None,
        },
        KeyClass::Unknown => ParsedLine {
            diagnostic: Some(Diagnostic {
                line,
                column: key_column,
                message: unknown_key_message(&key_text, dialect),
            }),
            kind: LineKind::Unknown(UnknownEntry {
                line,
                key: key_text.clone(),
                library,
                factory,
                comment,
            }),
            key_column,
            key_text,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(&[u8], LineEnding)> {
        split_lines(input).collect()
    }

    #[test]
    fn split_lines_keeps_endings_and_lone_cr() {
        assert!(lines(b"").is_empty());
        assert_eq!(lines(b"\n"), vec![(&b""[..], LineEnding::Lf)]);
        assert_eq!(
            lines(b"a\r\nb\nc"),
            vec![
                (&b"a"[..], LineEnding::CrLf),
                (&b"b"[..], LineEnding::Lf),
                (&b"c"[..], LineEnding::None)
            ]
        );
        assert_eq!(
            lines(b"a\r\r\nb\r"),
            vec![
                (&b"a\r"[..], LineEnding::CrLf),
                (&b"b\r"[..], LineEnding::None)
            ]
        );
    }

    #[test]
    fn trim_space_trims_only_space_and_tab() {
        assert_eq!(trim_space(b" \t x y \t"), b"x y");
        assert_eq!(trim_space(b"  "), b"");
        assert_eq!(trim_space(b"\rx\r"), b"\rx\r");
    }

    #[test]
    fn comment_marker_ends_a_token_anywhere() {
        let p = parse_line(b"0 a b//c", 1, Dialect::PluginsIni, "t").unwrap();
        let LineKind::Entry(e) = p.kind else {
            panic!("entry expected")
        };
        assert_eq!((e.factory.as_str(), e.comment), ("b", Some(b"c".to_vec())));
        let err = parse_line(b"0 a//b c", 1, Dialect::PluginsIni, "t").unwrap_err();
        assert!(
            matches!(err, RegistryError::MissingFactory { column: 4, .. }),
            "{err}"
        );
    }

    #[test]
    fn numeric_keys_are_cids_with_leading_zeros_and_huge_numbers_are_out_of_range() {
        for (key, ok) in [
            ("0", Some(0)),
            ("007", Some(7)),
            ("000", Some(0)),
            ("8", None),
            ("-1", None),
            ("-0", None),
            ("99999999999999999999999999", None),
        ] {
            let got = classify_key(key, Dialect::CompIni);
            match (got, ok) {
                (Ok(KeyClass::Known(SlotKey::Cid(c))), Some(n)) => assert_eq!(c.number(), n),
                (Err(()), None) => {}
                _ => panic!("{key}"),
            }
        }
        assert!(matches!(
            classify_key("-", Dialect::CompIni),
            Ok(KeyClass::Unknown)
        ));
        assert!(matches!(
            classify_key("terrain", Dialect::CompIni),
            Ok(KeyClass::Unknown)
        ));
    }
}
