//! The writer for new documents: a builder that emits canonical lines
//! (`<key> <library> <factory>` plus an optional ` // comment`, LF endings) and refuses any
//! value that would not parse back to itself.

use std::collections::BTreeMap;

use crate::error::{RegistryError, TokenRole};
use crate::key::SlotKey;
use crate::parse::{is_space, is_token_byte, parse_line};
use crate::registry::{Dialect, Entry, Line, LineEnding, LineKind, Registry};

/// Builds a new registry document line by line. Every line it accepts is canonical and
/// parses back (in the builder's dialect) to exactly the value given, so
/// `Registry::parse(&b.build().to_bytes(), origin, dialect)` equals the built registry.
#[derive(Debug, Clone)]
pub struct RegistryBuilder {
    origin: String,
    dialect: Dialect,
    lines: Vec<Line>,
    seen: BTreeMap<SlotKey, usize>,
}

impl RegistryBuilder {
    /// An empty document; `origin` names it in errors and in the built [`Registry`].
    #[must_use]
    pub fn new(origin: &str, dialect: Dialect) -> Self {
        RegistryBuilder {
            origin: origin.to_owned(),
            dialect,
            lines: Vec::new(),
            seen: BTreeMap::new(),
        }
    }

    fn unwritable(&self, column: usize, role: TokenRole, reason: &str) -> RegistryError {
        RegistryError::Unwritable {
            origin: self.origin.clone(),
            line: self.lines.len() + 1,
            column,
            role,
            reason: reason.to_owned(),
        }
    }

    fn check_token(
        &self,
        token: &str,
        column: usize,
        role: TokenRole,
    ) -> Result<(), RegistryError> {
        if token.is_empty() {
            return Err(self.unwritable(column, role, "it is empty"));
        }
        if !token.bytes().all(is_token_byte) {
            return Err(self.unwritable(
                column,
                role,
                "tokens must be printable ASCII without spaces",
            ));
        }
        if token.contains("//") {
            return Err(self.unwritable(column, role, "`//` would start a comment"));
        }
        Ok(())
    }

    fn check_comment(&self, text: &[u8], column: usize) -> Result<(), RegistryError> {
        let reason = if text.contains(&b'\n') {
            "a comment cannot hold a line feed"
        } else if text.last() == Some(&b'\r') {
            "a comment cannot end in a carriage return"
        } else if text.first().copied().is_some_and(is_space)
            || text.last().copied().is_some_and(is_space)
        {
            "a comment cannot begin or end with a space or tab (they are trimmed when parsed)"
        } else {
            return Ok(());
        };
        Err(self.unwritable(column, TokenRole::Comment, reason))
    }

    /// Parses the canonical line just written and appends it, or fails if it would not read
    /// back as `expected` (the checks above make that unreachable; this keeps it certain).
    fn push(&mut self, raw: Vec<u8>, expected: &LineKind) -> Result<(), RegistryError> {
        let number = self.lines.len() + 1;
        let parsed = parse_line(&raw, number, self.dialect, &self.origin)?;
        if parsed.diagnostic.is_some() || &parsed.kind != expected {
            return Err(self.unwritable(
                1,
                TokenRole::Key,
                "the line would not parse back to the same value",
            ));
        }
        self.lines.push(Line {
            number,
            raw,
            ending: LineEnding::Lf,
            kind: parsed.kind,
        });
        Ok(())
    }

    /// Appends `<key> <library> <factory>` (plus ` // <comment>`).
    ///
    /// # Errors
    /// [`RegistryError::DuplicateKey`] for a key already written;
    /// [`RegistryError::Unwritable`] for a slot name in [`Dialect::CompIni`], an empty token,
    /// a token with bytes outside printable ASCII or holding `//`, or a comment holding a line
    /// feed, ending in a carriage return or beginning/ending with a space or tab;
    /// [`RegistryError::LineTooLong`] when the line would exceed [`crate::MAX_LINE_LEN`].
    pub fn entry(
        &mut self,
        key: SlotKey,
        library: &str,
        factory: &str,
        comment: Option<&[u8]>,
    ) -> Result<&mut Self, RegistryError> {
        let line = self.lines.len() + 1;
        if self.dialect == Dialect::CompIni && matches!(key, SlotKey::Slot(_)) {
            return Err(self.unwritable(1, TokenRole::Key, "named slots are not keys in Comp.ini"));
        }
        if let Some(&first_line) = self.seen.get(&key) {
            return Err(RegistryError::DuplicateKey {
                origin: self.origin.clone(),
                line,
                column: 1,
                key: key.to_string(),
                first_line,
            });
        }
        let key_text = key.to_string();
        let lib_column = key_text.len() + 2;
        self.check_token(library, lib_column, TokenRole::Library)?;
        let fac_column = lib_column + library.len() + 1;
        self.check_token(factory, fac_column, TokenRole::Factory)?;
        let mut raw = format!("{key_text} {library} {factory}").into_bytes();
        if let Some(text) = comment {
            self.check_comment(text, raw.len() + 5)?;
            raw.extend_from_slice(b" //");
            if !text.is_empty() {
                raw.push(b' ');
                raw.extend_from_slice(text);
            }
        }
        let expected = LineKind::Entry(Entry {
            line,
            key,
            library: library.to_owned(),
            factory: factory.to_owned(),
            comment: comment.map(<[u8]>::to_vec),
        });
        self.push(raw, &expected)?;
        self.seen.insert(key, line);
        Ok(self)
    }

    /// Appends a comment line `// <text>` (just `//` for empty text).
    ///
    /// # Errors
    /// [`RegistryError::Unwritable`] when `text` holds a line feed, ends in a carriage return
    /// or begins/ends with a space or tab; [`RegistryError::LineTooLong`] when too long.
    pub fn comment(&mut self, text: &[u8]) -> Result<&mut Self, RegistryError> {
        self.check_comment(text, 4)?;
        let mut raw = b"//".to_vec();
        if !text.is_empty() {
            raw.push(b' ');
            raw.extend_from_slice(text);
        }
        self.push(raw, &LineKind::Comment(text.to_vec()))?;
        Ok(self)
    }

    /// Appends an empty line.
    pub fn blank(&mut self) -> &mut Self {
        self.lines.push(Line {
            number: self.lines.len() + 1,
            raw: Vec::new(),
            ending: LineEnding::Lf,
            kind: LineKind::Blank,
        });
        self
    }

    /// The finished document (no diagnostics: the builder writes only known keys).
    #[must_use]
    pub fn build(self) -> Registry {
        Registry {
            origin: self.origin,
            dialect: self.dialect,
            lines: self.lines,
            diagnostics: Vec::new(),
        }
    }
}

impl Registry {
    /// A new canonical document holding `entries` in order, one line each, LF endings.
    /// Each entry's `line` field is ignored and renumbered 1, 2, …; everything else is kept,
    /// and parsing [`Registry::to_bytes`] gives the same entries back.
    ///
    /// # Errors
    /// As [`RegistryBuilder::entry`].
    pub fn from_entries(
        origin: &str,
        dialect: Dialect,
        entries: impl IntoIterator<Item = Entry>,
    ) -> Result<Registry, RegistryError> {
        let mut builder = RegistryBuilder::new(origin, dialect);
        for e in entries {
            builder.entry(e.key, &e.library, &e.factory, e.comment.as_deref())?;
        }
        Ok(builder.build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cid, SlotName};

    #[test]
    fn builder_writes_canonical_lines_that_parse_back() {
        let mut b = RegistryBuilder::new("new.ini", Dialect::PluginsIni);
        b.comment(b"generated")
            .unwrap()
            .entry(
                SlotName::Terrain.into(),
                "plugins/libiron3d_terrain.so",
                "create",
                None,
            )
            .unwrap()
            .blank()
            .entry(
                Cid::Camera.into(),
                "terrain.dll",
                "LoadCamera",
                Some(b"\xea\xe0\xec"),
            )
            .unwrap()
            .entry(SlotName::Net.into(), "net.dll", "create", Some(b""))
            .unwrap()
            .comment(b"")
            .unwrap();
        let reg = b.build();
        assert_eq!(
            reg.to_bytes(),
            b"// generated\n\
terrain plugins/libiron3d_terrain.so create\n\
\n\
2 terrain.dll LoadCamera // \xea\xe0\xec\n\
net net.dll create //\n\
//\n"
        );
        let again = Registry::parse(&reg.to_bytes(), "new.ini", Dialect::PluginsIni).unwrap();
        assert_eq!(again, reg);
        assert_eq!(
            again.get(SlotName::Net).unwrap().comment.as_deref(),
            Some(&b""[..])
        );
    }

    #[test]
    fn from_entries_renumbers_and_roundtrips_comp_ini_free_comments() {
        let src = Registry::parse(
            b"\r\n7 misload.dll LoadResearch free text here\r\n0 t.dll L\r\n",
            "Comp.ini",
            Dialect::CompIni,
        )
        .unwrap();
        let reg =
            Registry::from_entries("out.ini", Dialect::CompIni, src.entries().cloned()).unwrap();
        assert_eq!(
            reg.to_bytes(),
            b"7 misload.dll LoadResearch // free text here\n0 t.dll L\n"
        );
        let lines: Vec<_> = reg.entries().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2]);
        let again = Registry::parse(&reg.to_bytes(), "out.ini", Dialect::CompIni).unwrap();
        assert_eq!(again, reg);
        for (a, b) in src.entries().zip(again.entries()) {
            assert_eq!(
                (a.key, &a.library, &a.factory, &a.comment),
                (b.key, &b.library, &b.factory, &b.comment)
            );
        }
    }

    #[test]
    fn builder_refuses_values_that_would_not_read_back() {
        let mut b = RegistryBuilder::new("new.ini", Dialect::PluginsIni);
        b.entry(Cid::Shader.into(), "t.dll", "CreateShader", None)
            .unwrap();
        /// (library, factory, comment, refused field, its column)
        type Case = (
            &'static str,
            &'static str,
            Option<&'static [u8]>,
            TokenRole,
            usize,
        );
        let cases: [Case; 8] = [
            ("", "f", None, TokenRole::Library, 3),
            ("a b", "f", None, TokenRole::Library, 3),
            ("a", "f//g", None, TokenRole::Factory, 5),
            ("a", "\u{e9}", None, TokenRole::Factory, 5),
            ("a", "f", Some(b" x"), TokenRole::Comment, 10),
            ("a", "f", Some(b"x\t"), TokenRole::Comment, 10),
            ("a", "f", Some(b"x\ny"), TokenRole::Comment, 10),
            ("a", "f", Some(b"x\r"), TokenRole::Comment, 10),
        ];
        for (lib, fac, comment, role, column) in cases {
            let e = b.entry(Cid::Camera.into(), lib, fac, comment).unwrap_err();
            assert!(
                matches!(e, RegistryError::Unwritable { role: r, .. } if r == role),
                "{e}"
            );
            assert_eq!((e.line(), e.column()), (2, column), "{e}");
        }
        let e = b.entry(Cid::Shader.into(), "a", "f", None).unwrap_err();
        assert!(
            matches!(
                e,
                RegistryError::DuplicateKey {
                    line: 2,
                    first_line: 1,
                    ..
                }
            ),
            "{e}"
        );
        let long = "x".repeat(crate::MAX_LINE_LEN);
        let e = b.entry(Cid::Camera.into(), &long, "f", None).unwrap_err();
        assert!(
            matches!(e, RegistryError::LineTooLong { line: 2, .. }),
            "{e}"
        );
        assert!(b.comment(b"x\n").is_err());
        let mut c = RegistryBuilder::new("Comp.ini", Dialect::CompIni);
        let e = c.entry(SlotName::Ai.into(), "a", "f", None).unwrap_err();
        assert!(
            matches!(
                e,
                RegistryError::Unwritable {
                    role: TokenRole::Key,
                    ..
                }
            ),
            "{e}"
        );
        // Nothing refused was written.
        assert_eq!(b.build().lines().len(), 1);
    }
}
