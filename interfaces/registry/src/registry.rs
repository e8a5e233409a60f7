//! The parsed registry document: every line kept byte for byte, typed access to entries,
//! the dialects and the document-level checks (duplicate keys, unknown-key diagnostics).

use std::collections::BTreeMap;

use crate::error::{Diagnostic, RegistryError};
use crate::key::SlotKey;
use crate::library::library_stem;
use crate::parse::{parse_line, split_lines};

/// Which file the text is, deciding which keys and trailing text are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Our `config/plugins.ini`: keys are CIDs 0–7 or slot names; after the factory only a
    /// `//` comment may follow.
    PluginsIni,
    /// An original `Comp.ini`: keys are CIDs 0–7; any text after the factory is a free
    /// comment.
    CompIni,
}

/// How a line ended in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    CrLf,
    /// No ending: the last line of a file without a final newline.
    None,
}

impl LineEnding {
    /// The exact bytes of this ending.
    #[must_use]
    pub const fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Lf => b"\n",
            LineEnding::CrLf => b"\r\n",
            LineEnding::None => b"",
        }
    }
}

/// A usable entry: a known key bound to a library and a factory symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line in the document.
    pub line: usize,
    /// The key (a CID, or a slot name in `plugins.ini`).
    pub key: SlotKey,
    /// The library token as written (printable ASCII, non-empty); see [`library_stem`].
    pub library: String,
    /// The factory symbol as written (printable ASCII, non-empty).
    pub factory: String,
    /// The comment after the factory, raw bytes (CP1251 in original files): the text after
    /// `//`, or in `Comp.ini` the free text after the factory; spaces and tabs around it are
    /// trimmed. `None` when the line has no comment.
    pub comment: Option<Vec<u8>>,
}

impl Entry {
    /// The normalised library name, [`library_stem`] of [`Entry::library`].
    #[must_use]
    pub fn library_stem(&self) -> String {
        library_stem(&self.library)
    }
}

/// A well-formed entry whose key is neither a CID nor a known slot name. It stays in the
/// document (and in [`Registry::to_bytes`]) and is reported by a [`Diagnostic`], but is
/// never returned by [`Registry::entries`] or [`Registry::get`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownEntry {
    /// 1-based line in the document.
    pub line: usize,
    /// The key as written (printable ASCII).
    pub key: String,
    /// The library token as written.
    pub library: String,
    /// The factory symbol as written.
    pub factory: String,
    /// The comment, as for [`Entry::comment`].
    pub comment: Option<Vec<u8>>,
}

/// What one line of the document holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineKind {
    /// Only spaces and tabs, or nothing.
    Blank,
    /// Only a `//` comment; holds the text after `//` with surrounding spaces and tabs
    /// trimmed.
    Comment(Vec<u8>),
    /// A usable entry.
    Entry(Entry),
    /// An entry with an unknown key.
    Unknown(UnknownEntry),
}

/// One line of the document: its raw content, its ending and its meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub(crate) number: usize,
    pub(crate) raw: Vec<u8>,
    pub(crate) ending: LineEnding,
    pub(crate) kind: LineKind,
}

impl Line {
    /// 1-based line number.
    #[must_use]
    pub fn number(&self) -> usize {
        self.number
    }

    /// The exact bytes of the line, without its ending.
    #[must_use]
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// How the line ended.
    #[must_use]
    pub fn ending(&self) -> LineEnding {
        self.ending
    }

    /// What the line holds.
    #[must_use]
    pub fn kind(&self) -> &LineKind {
        &self.kind
    }
}

/// A parsed (or built) registry. It keeps every line byte for byte, so
/// `Registry::parse(input, ..)?.to_bytes() == input` for every input that parses. Known
/// keys are unique within a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    pub(crate) origin: String,
    pub(crate) dialect: Dialect,
    pub(crate) lines: Vec<Line>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Identity of a key for the duplicate check.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum KeyId {
    Known(SlotKey),
    Unknown(String),
}

impl Registry {
    /// Parses `input` in `dialect`. `origin` (usually the file name) is quoted in errors.
    /// Fails on the first error in file order; never panics, whatever the bytes.
    ///
    /// # Errors
    /// Any [`RegistryError`] except [`RegistryError::Unwritable`].
    pub fn parse(input: &[u8], origin: &str, dialect: Dialect) -> Result<Self, RegistryError> {
        let mut lines = Vec::new();
        let mut diagnostics = Vec::new();
        let mut seen: BTreeMap<KeyId, usize> = BTreeMap::new();
        for (index, (content, ending)) in split_lines(input).enumerate() {
            let number = index + 1;
            let parsed = parse_line(content, number, dialect, origin)?;
            let id = match &parsed.kind {
                LineKind::Entry(e) => Some(KeyId::Known(e.key)),
                LineKind::Unknown(u) => Some(KeyId::Unknown(u.key.clone())),
                LineKind::Blank | LineKind::Comment(_) => None,
            };
            if let Some(id) = id {
                if let Some(&first_line) = seen.get(&id) {
                    return Err(RegistryError::DuplicateKey {
                        origin: origin.to_owned(),
                        line: number,
                        column: parsed.key_column,
                        key: parsed.key_text,
                        first_line,
                    });
                }
                seen.insert(id, number);
            }
            diagnostics.extend(parsed.diagnostic);
            lines.push(Line {
                number,
                raw: content.to_vec(),
                ending,
                kind: parsed.kind,
            });
        }
        Ok(Registry {
            origin: origin.to_owned(),
            dialect,
            lines,
            diagnostics,
        })
    }

    /// The origin given to [`Registry::parse`] or the builder.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The dialect the document was parsed or built in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Every line, in file order.
    #[must_use]
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// The usable entries (known keys), in file order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.lines.iter().filter_map(|l| match &l.kind {
            LineKind::Entry(e) => Some(e),
            _ => None,
        })
    }

    /// The entries with unknown keys, in file order (each also has a diagnostic).
    pub fn unknown_entries(&self) -> impl Iterator<Item = &UnknownEntry> {
        self.lines.iter().filter_map(|l| match &l.kind {
            LineKind::Unknown(u) => Some(u),
            _ => None,
        })
    }

    /// The entry for `key`, if present (keys are unique, so there is at most one).
    #[must_use]
    pub fn get(&self, key: impl Into<SlotKey>) -> Option<&Entry> {
        let key = key.into();
        self.entries().find(|e| e.key == key)
    }

    /// Soft findings (unknown keys), in file order.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The document's bytes: every line's raw content and original ending, so a parsed
    /// registry reproduces its input exactly.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self
            .lines
            .iter()
            .map(|l| l.raw.len() + l.ending.as_bytes().len())
            .sum();
        let mut out = Vec::with_capacity(len);
        for line in &self.lines {
            out.extend_from_slice(&line.raw);
            out.extend_from_slice(line.ending.as_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cid, SlotName};

    const ORIGINAL_COMP_INI: &[u8] = b"0 terrain.dll LoadLandscape\r\n\
1 terrain.dll LoadBuilding\r\n\
2 terrain.dll LoadCamera\r\n\
3 animesh.dll LoadAgent\r\n\
4 animesh.dll LoadAgent\r\n\
5 terrain.dll CreateAtmosphere\r\n\
6 terrain.dll CreateShader\r\n\
7 misload.dll LoadResearch\r\n";

    const PLUGINS_INI: &[u8] = b"// Iron3D-rs plugin registry (Comp.ini grammar)\n\
\n\
terrain plugins/libiron3d_terrain.so iron3d_terrain_create   // landscape\n\
ai      plugins/libiron3d_ai.so      iron3d_ai_create\n\
control plugins/libiron3d_control.so iron3d_control_create\n\
effects plugins/libiron3d_effects.so iron3d_effects_create\n\
audio   plugins/libiron3d_audio.so   iron3d_audio_create\n\
render  plugins/libiron3d_render.so  iron3d_render_create\n\
net     plugins/libiron3d_null.so    iron3d_null_create\n\
input\tplugins/libiron3d_input.so\tiron3d_input_create\n\
0 terrain.dll LoadLandscape // original CID kept\n";

    fn parse(input: &[u8], dialect: Dialect) -> Result<Registry, RegistryError> {
        Registry::parse(input, "test.ini", dialect)
    }

    fn err(input: &[u8], dialect: Dialect) -> RegistryError {
        parse(input, dialect).expect_err("must fail")
    }

    #[test]
    fn original_comp_ini_parses_with_the_original_meanings() {
        let reg = parse(ORIGINAL_COMP_INI, Dialect::CompIni).unwrap();
        assert!(reg.diagnostics().is_empty());
        let entries: Vec<_> = reg.entries().collect();
        assert_eq!(entries.len(), 8);
        for (i, (entry, cid)) in entries.iter().zip(Cid::ALL).enumerate() {
            assert_eq!(entry.line, i + 1);
            assert_eq!(entry.key, SlotKey::Cid(cid));
            assert_eq!(entry.library, cid.original_library());
            assert_eq!(entry.factory, cid.meaning());
            assert_eq!(entry.comment, None);
        }
        assert_eq!(reg.get(Cid::Research).unwrap().factory, "LoadResearch");
        assert_eq!(reg.get(Cid::Agent).unwrap().library_stem(), "animesh");
        assert_eq!(reg.to_bytes(), ORIGINAL_COMP_INI);
        assert!(reg.lines().iter().all(|l| l.ending() == LineEnding::CrLf));
    }

    #[test]
    fn original_table_also_parses_as_plugins_ini() {
        let reg = parse(ORIGINAL_COMP_INI, Dialect::PluginsIni).unwrap();
        assert_eq!(reg.entries().count(), 8);
    }

    #[test]
    fn full_plugins_ini_with_all_eight_slots_parses() {
        let reg = parse(PLUGINS_INI, Dialect::PluginsIni).unwrap();
        assert!(reg.diagnostics().is_empty(), "{:?}", reg.diagnostics());
        for slot in SlotName::ALL {
            let e = reg.get(slot).unwrap_or_else(|| panic!("{slot} missing"));
            assert_eq!(
                e.factory,
                format!("iron3d_{}_create", slot).replace("net", "null")
            );
        }
        let terrain = reg.get(SlotName::Terrain).unwrap();
        assert_eq!(terrain.line, 3);
        assert_eq!(terrain.comment.as_deref(), Some(&b"landscape"[..]));
        assert_eq!(terrain.library_stem(), "iron3d_terrain");
        assert_eq!(reg.get(SlotName::Input).unwrap().line, 10);
        assert_eq!(
            reg.get(Cid::Landscape).unwrap().comment.as_deref(),
            Some(&b"original CID kept"[..])
        );
        assert_eq!(reg.entries().count(), 9);
        assert!(
            matches!(reg.lines()[0].kind(), LineKind::Comment(c) if c.starts_with(b"Iron3D-rs"))
        );
        assert_eq!(reg.lines()[1].kind(), &LineKind::Blank);
        assert_eq!(reg.to_bytes(), PLUGINS_INI);
    }

    #[test]
    fn comp_ini_keeps_free_trailing_text_and_cp1251_comments() {
        let input = b"0 terrain.dll LoadLandscape \xc7\xe5\xec\xeb\xff  \t\n1 terrain.dll LoadBuilding //\xea\n";
        let reg = parse(input, Dialect::CompIni).unwrap();
        let e: Vec<_> = reg.entries().collect();
        assert_eq!(e[0].comment.as_deref(), Some(&b"\xc7\xe5\xec\xeb\xff"[..]));
        assert_eq!(e[1].comment.as_deref(), Some(&b"\xea"[..]));
        assert_eq!(reg.to_bytes(), input);
    }

    #[test]
    fn missing_library_is_located_after_the_key() {
        let e = err(b"0 a b\n\n  terrain   \n", Dialect::PluginsIni);
        assert!(
            matches!(e, RegistryError::MissingLibrary { ref key, .. } if key == "terrain"),
            "{e}"
        );
        assert_eq!((e.line(), e.column(), e.origin()), (3, 10, "test.ini"));
        let e = err(b"5// x", Dialect::CompIni);
        assert!(matches!(e, RegistryError::MissingLibrary { .. }));
        assert_eq!((e.line(), e.column()), (1, 2));
    }

    #[test]
    fn missing_factory_is_located_after_the_library() {
        let e = err(b"// head\r\n3 animesh.dll\r\n", Dialect::CompIni);
        assert!(
            matches!(e, RegistryError::MissingFactory { ref library, .. } if library == "animesh.dll")
        );
        assert_eq!((e.line(), e.column()), (2, 14));
        assert!(
            e.to_string().starts_with("test.ini:2:14: missing factory"),
            "{e}"
        );
        let e = err(b"3 animesh.dll // LoadAgent", Dialect::PluginsIni);
        assert!(matches!(e, RegistryError::MissingFactory { .. }));
        assert_eq!((e.line(), e.column()), (1, 14));
    }

    #[test]
    fn non_ascii_and_control_bytes_in_tokens_are_located() {
        // CP1251 byte in the library token.
        let e = err(b"0 a b\n1 terr\xe0in.dll LoadBuilding\n", Dialect::CompIni);
        assert_eq!(
            e,
            RegistryError::InvalidByte {
                origin: "test.ini".into(),
                line: 2,
                column: 3,
                role: crate::TokenRole::Library,
                byte: 0xE0,
                byte_column: 7,
            }
        );
        // Control byte in the key.
        let e = err(b"\x01 a b", Dialect::PluginsIni);
        assert!(matches!(
            e,
            RegistryError::InvalidByte {
                role: crate::TokenRole::Key,
                byte: 1,
                ..
            }
        ));
        assert_eq!((e.line(), e.column()), (1, 1));
        // A lone CR at the end of an unterminated line belongs to the factory.
        let e = err(b"0 a b\r", Dialect::CompIni);
        assert!(matches!(
            e,
            RegistryError::InvalidByte {
                role: crate::TokenRole::Factory,
                byte: b'\r',
                byte_column: 6,
                ..
            }
        ));
        assert_eq!((e.line(), e.column()), (1, 5));
    }

    #[test]
    fn cid_out_of_range_is_located_at_the_key() {
        let e = err(b"0 a b\n\t9 terrain.dll LoadX\n", Dialect::CompIni);
        assert!(matches!(e, RegistryError::CidOutOfRange { ref key, .. } if key == "9"));
        assert_eq!((e.line(), e.column()), (2, 2));
        let e = err(b"18446744073709551616000 a b", Dialect::PluginsIni);
        assert!(matches!(e, RegistryError::CidOutOfRange { .. }));
        assert_eq!((e.line(), e.column()), (1, 1));
        let e = err(b" -1 a b", Dialect::PluginsIni);
        assert_eq!((e.line(), e.column()), (1, 2));
    }

    #[test]
    fn trailing_text_is_an_error_only_in_plugins_ini() {
        let input = b"terrain t.dll LoadLandscape  extra words\n";
        let e = err(input, Dialect::PluginsIni);
        assert!(matches!(e, RegistryError::TrailingText { .. }));
        assert_eq!((e.line(), e.column()), (1, 30));
        let reg = parse(b"0 t.dll LoadLandscape  extra words\n", Dialect::CompIni).unwrap();
        assert_eq!(
            reg.get(Cid::Landscape).unwrap().comment.as_deref(),
            Some(&b"extra words"[..])
        );
    }

    #[test]
    fn duplicate_keys_name_both_lines() {
        let e = err(b"terrain a b\n// x\n  terrain c d\n", Dialect::PluginsIni);
        assert_eq!(
            e,
            RegistryError::DuplicateKey {
                origin: "test.ini".into(),
                line: 3,
                column: 3,
                key: "terrain".into(),
                first_line: 1,
            }
        );
        assert!(e.to_string().contains("first defined on line 1"), "{e}");
        // The same CID spelled differently is still the same key.
        let e = err(b"3 a b\n03 c d\n", Dialect::CompIni);
        assert!(
            matches!(e, RegistryError::DuplicateKey { ref key, first_line: 1, .. } if key == "03")
        );
        assert_eq!((e.line(), e.column()), (2, 1));
        // Unknown keys must be unique too.
        let e = err(b"physics a b\nphysics a b\n", Dialect::PluginsIni);
        assert!(matches!(
            e,
            RegistryError::DuplicateKey {
                line: 2,
                first_line: 1,
                ..
            }
        ));
    }

    #[test]
    fn overlong_lines_are_rejected_at_the_limit() {
        let mut input = b"0 a b\n".to_vec();
        input.extend(std::iter::repeat_n(b'/', crate::MAX_LINE_LEN + 1));
        input.extend_from_slice(b"\r\n");
        let e = err(&input, Dialect::PluginsIni);
        assert!(matches!(
            e,
            RegistryError::LineTooLong {
                len: 4097,
                max: 4096,
                ..
            }
        ));
        assert_eq!((e.line(), e.column()), (2, 4097));
        // Exactly at the limit is fine.
        let ok = vec![b' '; crate::MAX_LINE_LEN];
        assert!(parse(&ok, Dialect::PluginsIni).is_ok());
    }

    #[test]
    fn unknown_keys_are_diagnosed_and_kept() {
        let input = b"physics libphys.so create\nTerrain t.dll LoadLandscape // hi\n0 t.dll LoadLandscape\n";
        let reg = parse(input, Dialect::PluginsIni).unwrap();
        let d = reg.diagnostics();
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].line, d[0].column), (1, 1));
        assert!(d[0].message.contains("unknown key `physics`"), "{}", d[0]);
        assert_eq!((d[1].line, d[1].column), (2, 1));
        assert!(d[1].message.contains("did you mean `terrain`"), "{}", d[1]);
        assert_eq!(reg.entries().count(), 1);
        assert!(reg.get(SlotName::Terrain).is_none());
        let unknown: Vec<_> = reg.unknown_entries().collect();
        assert_eq!(unknown[1].key, "Terrain");
        assert_eq!(unknown[1].comment.as_deref(), Some(&b"hi"[..]));
        assert_eq!(reg.to_bytes(), input);
    }

    #[test]
    fn slot_names_are_unknown_keys_in_comp_ini() {
        let reg = parse(b"  terrain t.dll LoadLandscape\n", Dialect::CompIni).unwrap();
        assert_eq!(reg.entries().count(), 0);
        assert_eq!(
            (reg.diagnostics()[0].line, reg.diagnostics()[0].column),
            (1, 3)
        );
        assert!(
            reg.diagnostics()[0]
                .message
                .contains("Comp.ini keys are CIDs")
        );
    }

    #[test]
    fn crlf_mixed_endings_and_missing_final_newline_roundtrip() {
        for input in [
            &b"0 a b\r\n1 c d\r\n"[..],
            b"0 a b\r\n1 c d",
            b"0 a b\n\r\n  \t\n// c\r\n1 c d // e \t",
            b"",
            b"\n",
            b"\r\n",
            b"   ",
            b"// only a comment with \xff bytes and a lone \r inside",
        ] {
            for dialect in [Dialect::PluginsIni, Dialect::CompIni] {
                let reg = parse(input, dialect).unwrap();
                assert_eq!(reg.to_bytes(), input);
                assert_eq!(parse(&reg.to_bytes(), dialect).unwrap(), reg);
            }
        }
        let reg = parse(b"0 a b\r\n1 c d", Dialect::CompIni).unwrap();
        let endings: Vec<_> = reg.lines().iter().map(Line::ending).collect();
        assert_eq!(endings, [LineEnding::CrLf, LineEnding::None]);
    }
}
