//! The INI family (`Iron_3D.ini`, `Behavior.ini`, `ArealMap.ini`, `dispatcher.ini`,
//! `saveslots.cfg`): sections, `key=value` pairs (spaces allowed around `=`, several pairs
//! per line), `//` comments, quoted strings, CRLF; lossless, with provenance.

use crate::error::ConfigError;
use crate::lines::{RawLine, split, split_comment, tokens};
use std::ops::Range;
use std::str::FromStr;

/// Longest line accepted (bounds work on bad input).
pub const MAX_LINE: usize = 64 * 1024;

/// One `key=value` pair of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// Key bytes as written.
    pub key: Vec<u8>,
    /// Value bytes as written (quotes included).
    pub raw: Vec<u8>,
    /// Byte range of the value inside the line content.
    pub value_range: Range<usize>,
}

impl Pair {
    /// The value without surrounding double quotes.
    pub fn unquoted(&self) -> &[u8] {
        let v = self.raw.as_slice();
        if v.len() >= 2 && v[0] == b'"' && v[v.len() - 1] == b'"' {
            &v[1..v.len() - 1]
        } else {
            v
        }
    }
}

/// What a line holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Empty or white space only.
    Blank,
    /// Only a `//` comment.
    Comment,
    /// `[NAME]`.
    Section(Vec<u8>),
    /// One or more pairs (and maybe a trailing comment).
    Pairs(Vec<Pair>),
    /// Not understood; kept verbatim and reported as a diagnostic.
    Unparsed,
}

/// A parsed line, with the raw bytes kept for a lossless rewrite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IniLine {
    /// The raw line.
    pub raw: RawLine,
    /// Its interpretation.
    pub kind: LineKind,
    /// Index of the section line this line belongs to (`None` before the first section).
    pub section: Option<usize>,
}

/// A note about something kept but not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: usize,
    /// What.
    pub message: String,
}

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// Written in the file at this 1-based line.
    File {
        /// Line.
        line: usize,
    },
    /// Absent from the file: the caller's default.
    Default,
    /// Present but not parseable as the wanted type: the default is used.
    Invalid {
        /// Line.
        line: usize,
        /// The raw value.
        raw: Vec<u8>,
    },
}

/// A value with its provenance.
#[derive(Clone, Debug, PartialEq)]
pub struct Effective<T> {
    /// The value in force.
    pub value: T,
    /// Where it came from.
    pub provenance: Provenance,
}

/// A lossless INI document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IniDocument {
    origin: String,
    lines: Vec<IniLine>,
    diagnostics: Vec<Diagnostic>,
}

fn parse_pairs(content: &[u8]) -> Option<Vec<Pair>> {
    let toks = tokens(content);
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &content[toks[i].clone()];
        let eq = t.iter().position(|&b| b == b'=');
        match eq {
            // key=value or key=
            Some(p) if p > 0 => {
                let key = t[..p].to_vec();
                if p + 1 < t.len() {
                    let start = toks[i].start + p + 1;
                    pairs.push(Pair {
                        key,
                        raw: t[p + 1..].to_vec(),
                        value_range: start..toks[i].end,
                    });
                    i += 1;
                } else {
                    let v = toks.get(i + 1)?.clone();
                    pairs.push(Pair {
                        key,
                        raw: content[v.clone()].to_vec(),
                        value_range: v,
                    });
                    i += 2;
                }
            }
            // key = value  or  key =value
            None => {
                let next = toks.get(i + 1)?.clone();
                let n = &content[next.clone()];
                if n == b"=" {
                    let v = toks.get(i + 2)?.clone();
                    pairs.push(Pair {
                        key: t.to_vec(),
                        raw: content[v.clone()].to_vec(),
                        value_range: v,
                    });
                    i += 3;
                } else if n.first() == Some(&b'=') && n.len() > 1 {
                    let v = next.start + 1..next.end;
                    pairs.push(Pair {
                        key: t.to_vec(),
                        raw: content[v.clone()].to_vec(),
                        value_range: v,
                    });
                    i += 2;
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

impl IniDocument {
    /// Parses `input`; `origin` names the file in errors. Lines that are neither blank,
    /// comments, sections nor pairs are kept and reported as diagnostics; a broken section
    /// header or an over-long line is an error with its line and column.
    pub fn parse(input: &[u8], origin: &str) -> Result<Self, ConfigError> {
        let mut lines = Vec::new();
        let mut diagnostics = Vec::new();
        let mut section = None;
        for raw in split(input) {
            if raw.content.len() > MAX_LINE {
                return Err(ConfigError::at(
                    origin,
                    raw.number,
                    1,
                    format!("line is {} bytes, limit {MAX_LINE}", raw.content.len()),
                ));
            }
            let (body, comment) = split_comment(&raw.content);
            let trimmed = body.trim_ascii();
            let kind = if trimmed.is_empty() {
                if comment.is_empty() {
                    LineKind::Blank
                } else {
                    LineKind::Comment
                }
            } else if trimmed[0] == b'[' {
                if trimmed.len() < 3 || trimmed[trimmed.len() - 1] != b']' {
                    let col = raw.content.len() - raw.content.trim_ascii_start().len() + 1;
                    return Err(ConfigError::at(
                        origin,
                        raw.number,
                        col,
                        "section header without a closing ']'".into(),
                    ));
                }
                LineKind::Section(trimmed[1..trimmed.len() - 1].to_vec())
            } else {
                match parse_pairs(body) {
                    Some(p) => LineKind::Pairs(p),
                    None => {
                        diagnostics.push(Diagnostic {
                            line: raw.number,
                            message: "not a key=value line; kept verbatim".into(),
                        });
                        LineKind::Unparsed
                    }
                }
            };
            if matches!(kind, LineKind::Section(_)) {
                section = Some(lines.len());
            }
            let sec = if matches!(kind, LineKind::Section(_)) {
                None
            } else {
                section
            };
            lines.push(IniLine {
                raw,
                kind,
                section: sec,
            });
        }
        let mut doc = Self {
            origin: origin.to_owned(),
            lines,
            diagnostics,
        };
        doc.note_duplicates();
        Ok(doc)
    }

    fn note_duplicates(&mut self) {
        let mut seen: std::collections::BTreeMap<(Option<Vec<u8>>, Vec<u8>), usize> =
            std::collections::BTreeMap::new();
        let mut notes = Vec::new();
        for l in &self.lines {
            if let LineKind::Pairs(ps) = &l.kind {
                for p in ps {
                    let key = (
                        self.section_name(l.section).map(<[u8]>::to_vec),
                        p.key.clone(),
                    );
                    if let Some(first) = seen.get(&key) {
                        notes.push(Diagnostic {
                            line: l.raw.number,
                            message: format!(
                                "duplicate key '{}' (first at line {first}; the first wins)",
                                String::from_utf8_lossy(&p.key)
                            ),
                        });
                    } else {
                        seen.insert(key, l.raw.number);
                    }
                }
            }
        }
        self.diagnostics.extend(notes);
    }

    fn section_name(&self, section: Option<usize>) -> Option<&[u8]> {
        section.and_then(|i| match &self.lines[i].kind {
            LineKind::Section(n) => Some(n.as_slice()),
            _ => None,
        })
    }

    /// The file name used in errors.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Every line in order.
    pub fn lines(&self) -> &[IniLine] {
        &self.lines
    }

    /// Unparsed lines and duplicate keys.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Section names in file order.
    pub fn sections(&self) -> Vec<&[u8]> {
        self.lines
            .iter()
            .filter_map(|l| {
                if let LineKind::Section(n) = &l.kind {
                    Some(n.as_slice())
                } else {
                    None
                }
            })
            .collect()
    }

    /// Every pair with its section and line, in file order.
    pub fn pairs(&self) -> impl Iterator<Item = (Option<&[u8]>, usize, &Pair)> {
        self.lines.iter().flat_map(move |l| {
            let sec = self.section_name(l.section);
            let ps: &[Pair] = if let LineKind::Pairs(p) = &l.kind {
                p
            } else {
                &[]
            };
            ps.iter().map(move |p| (sec, l.raw.number, p))
        })
    }

    /// The first pair `key` in `section` (`None` = before any section); exact,
    /// case-sensitive names (the spec does not prove case-insensitivity for configs).
    pub fn get(&self, section: Option<&str>, key: &str) -> Option<(usize, &Pair)> {
        self.pairs()
            .find(|(s, _, p)| {
                s.map(|s| s == section.unwrap_or_default().as_bytes())
                    .unwrap_or(section.is_none())
                    && p.key == key.as_bytes()
            })
            .map(|(_, line, p)| (line, p))
    }

    /// The first pair `key` in any section (files such as `Behavior.ini` whose readers
    /// ignore sections), with its line.
    pub fn get_any(&self, key: &str) -> Option<(usize, &Pair)> {
        self.pairs()
            .find(|(_, _, p)| p.key == key.as_bytes())
            .map(|(_, line, p)| (line, p))
    }

    /// True when `key` is written in `section`.
    pub fn is_present(&self, section: Option<&str>, key: &str) -> bool {
        self.get(section, key).is_some()
    }

    /// The value in force for `key`: the file's value when present and parseable,
    /// else `default`, with the provenance saying which.
    pub fn effective<T: FromStr>(
        &self,
        section: Option<&str>,
        key: &str,
        default: T,
    ) -> Effective<T> {
        match self.get(section, key) {
            None => Effective {
                value: default,
                provenance: Provenance::Default,
            },
            Some((line, p)) => match std::str::from_utf8(p.unquoted())
                .ok()
                .and_then(|s| s.parse::<T>().ok())
            {
                Some(value) => Effective {
                    value,
                    provenance: Provenance::File { line },
                },
                None => Effective {
                    value: default,
                    provenance: Provenance::Invalid {
                        line,
                        raw: p.raw.clone(),
                    },
                },
            },
        }
    }

    /// Replaces the value of an existing `key` (every other byte unchanged), or appends
    /// `key=value` at the end of `section` (creating the section at the end when needed),
    /// using the document's first line ending.
    pub fn set(&mut self, section: Option<&str>, key: &str, value: &[u8]) {
        let target = self.lines.iter().position(|l| {
            let in_section = self.section_name(l.section).map(|s| s == section.unwrap_or_default().as_bytes()).unwrap_or(section.is_none());
            in_section && matches!(&l.kind, LineKind::Pairs(ps) if ps.iter().any(|p| p.key == key.as_bytes()))
        });
        if let Some(i) = target {
            let line = &mut self.lines[i];
            if let LineKind::Pairs(ps) = &mut line.kind {
                if let Some(pi) = ps.iter().position(|p| p.key == key.as_bytes()) {
                    let r = ps[pi].value_range.clone();
                    let delta = value.len() as isize - r.len() as isize;
                    line.raw.content.splice(r.clone(), value.iter().copied());
                    ps[pi].raw = value.to_vec();
                    ps[pi].value_range = r.start..r.start + value.len();
                    for p in ps.iter_mut().skip(pi + 1) {
                        p.value_range = (p.value_range.start as isize + delta) as usize
                            ..(p.value_range.end as isize + delta) as usize;
                    }
                }
            }
            return;
        }
        let ending = self
            .lines
            .first()
            .map(|l| l.raw.ending.clone())
            .filter(|e| !e.is_empty())
            .unwrap_or_else(|| b"\r\n".to_vec());
        if let Some(last) = self.lines.last_mut() {
            if last.raw.ending.is_empty() {
                last.raw.ending = ending.clone();
            }
        }
        let mut text = Vec::new();
        let section_exists = section.is_none()
            || self
                .sections()
                .iter()
                .any(|s| *s == section.unwrap_or_default().as_bytes());
        if !section_exists {
            text.extend_from_slice(format!("[{}]", section.unwrap_or_default()).as_bytes());
            text.extend_from_slice(&ending);
        }
        text.extend_from_slice(key.as_bytes());
        text.push(b'=');
        text.extend_from_slice(value);
        text.extend_from_slice(&ending);
        // Insert after the last line of the section (or at the end).
        let mut bytes = Vec::new();
        let insert_after = section.filter(|_| section_exists).and_then(|s| {
            let idx = self
                .lines
                .iter()
                .position(|l| matches!(&l.kind, LineKind::Section(n) if n == s.as_bytes()))?;
            Some(
                self.lines
                    .iter()
                    .rposition(|l| l.section == Some(idx))
                    .unwrap_or(idx),
            )
        });
        for (i, l) in self.lines.iter().enumerate() {
            bytes.extend_from_slice(&l.raw.content);
            bytes.extend_from_slice(&l.raw.ending);
            if Some(i) == insert_after {
                bytes.extend_from_slice(&text);
            }
        }
        if insert_after.is_none() {
            bytes.extend_from_slice(&text);
        }
        if let Ok(doc) = Self::parse(&bytes, &self.origin) {
            *self = doc;
        }
    }

    /// The document as bytes: identical to the input when nothing was edited.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for l in &self.lines {
            out.extend_from_slice(&l.raw.content);
            out.extend_from_slice(&l.raw.ending);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEHAVIOR: &[u8] = b"// Behavior settings\r\nLogFile=Behavior.log SaveLog=0\r\nMaxErrorLevel = 1\r\nDefErrorLevel= 2 // default\r\nUseWizard =1\r\n";

    #[test]
    fn behavior_ini_pairs_spaces_comments_and_crlf() {
        let d = IniDocument::parse(BEHAVIOR, "Behavior.ini").unwrap();
        assert_eq!(d.to_bytes(), BEHAVIOR);
        assert_eq!(d.get(None, "LogFile").unwrap().1.raw, b"Behavior.log");
        assert_eq!(d.get(None, "SaveLog").unwrap().1.raw, b"0");
        assert_eq!(
            d.effective(None, "MaxErrorLevel", 0u32),
            Effective {
                value: 1,
                provenance: Provenance::File { line: 3 }
            }
        );
        assert_eq!(d.effective(None, "DefErrorLevel", 0u32).value, 2);
        assert_eq!(d.effective(None, "UseWizard", 0u32).value, 1);
        // Looked up by the code, absent from the demo file: absent, never invented.
        let pf = d.effective(None, "PathFind_CorridorRadius", 0.0f32);
        assert_eq!(pf.provenance, Provenance::Default);
        assert!(!d.is_present(None, "PathFind_CorridorRadius"));
        assert!(d.diagnostics().is_empty());
    }

    #[test]
    fn sections_unknown_lines_duplicates_and_quotes() {
        let text = b"[CS]\nDISPLAY_WIDTH=640\nFORCE_CD_SOUND=\"C:\\Game Dir\\\"\nWEIRD LINE\n[TEMP]\nX=1\nX=2\n[LEVEL_RATIO]\nEASY=0.5";
        let d = IniDocument::parse(text, "Iron_3D.ini").unwrap();
        assert_eq!(d.to_bytes(), text);
        assert_eq!(d.sections(), vec![&b"CS"[..], b"TEMP", b"LEVEL_RATIO"]);
        assert_eq!(d.effective(Some("CS"), "DISPLAY_WIDTH", 0u32).value, 640);
        assert_eq!(
            d.get(Some("CS"), "FORCE_CD_SOUND").unwrap().1.unquoted(),
            b"C:\\Game Dir\\"
        );
        assert_eq!(d.effective(Some("TEMP"), "X", 0u32).value, 1, "first wins");
        assert_eq!(d.effective(Some("LEVEL_RATIO"), "EASY", 0.0f64).value, 0.5);
        assert!(
            d.get(None, "DISPLAY_WIDTH").is_none(),
            "sections are distinct"
        );
        // In any section: the first in file order, with its line.
        assert_eq!(d.get_any("DISPLAY_WIDTH").unwrap().0, 2);
        assert_eq!(d.get_any("X").unwrap().1.raw, b"1");
        assert!(d.get_any("NOPE").is_none());
        assert_eq!(d.diagnostics().len(), 2, "{:?}", d.diagnostics());
        let bad = d.effective(Some("CS"), "FORCE_CD_SOUND", 7u32);
        assert!(matches!(
            bad.provenance,
            Provenance::Invalid { line: 3, .. }
        ));
    }

    #[test]
    fn broken_section_headers_are_errors_with_line_and_column() {
        let e = IniDocument::parse(b"A=1\n  [CS\n", "x.ini").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 3));
        assert!(e.to_string().contains("x.ini:2:3"), "{e}");
    }

    #[test]
    fn set_edits_in_place_or_appends() {
        let mut d = IniDocument::parse(BEHAVIOR, "Behavior.ini").unwrap();
        d.set(None, "SaveLog", b"1");
        assert_eq!(
            d.to_bytes(),
            BEHAVIOR.to_vec().replacen_bytes(b"SaveLog=0", b"SaveLog=1")
        );
        d.set(Some("NEW"), "K", b"v");
        assert!(d.to_bytes().ends_with(b"[NEW]\r\nK=v\r\n"));
        assert_eq!(d.effective(Some("NEW"), "K", String::new()).value, "v");
    }

    trait ReplaceBytes {
        fn replacen_bytes(self, from: &[u8], to: &[u8]) -> Vec<u8>;
    }
    impl ReplaceBytes for Vec<u8> {
        fn replacen_bytes(self, from: &[u8], to: &[u8]) -> Vec<u8> {
            let pos = self.windows(from.len()).position(|w| w == from).unwrap();
            [&self[..pos], to, &self[pos + from.len()..]].concat()
        }
    }
}
