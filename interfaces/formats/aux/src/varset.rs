//! `varset.var` script variable declarations (spec §11.11): byte-safe, line-based text;
//! `VAR(type, name, default)`, `STRING(...)`, `FUNCTION(...)`, `//` comments. The raw
//! bytes are kept and re-emitted unchanged; declarations form the index space.

use crate::error::{AuxError, Format, Record};

/// Declaration form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    /// `VAR(type, name, default)`.
    Var,
    /// `STRING(...)`.
    String,
    /// `FUNCTION(...)`.
    Function,
}

/// A typed `VAR` default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VarValue {
    /// `float` (decimal).
    Float(f32),
    /// `DWORD` (decimal or `0x` hex).
    Dword(u32),
}

/// One recognised declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    /// Form (layout-confirmed).
    pub kind: DeclKind,
    /// Zero-based line number in the file.
    pub line: usize,
    /// Raw arguments, trimmed of ASCII white space (layout-confirmed).
    pub args: Vec<Vec<u8>>,
    /// Typed default for `VAR` (consumer-inferred token rules, from fparkan source).
    pub value: Option<VarValue>,
}

impl Declaration {
    /// The declared name (second argument of `VAR`, first otherwise).
    pub fn name(&self) -> &[u8] {
        let i = usize::from(self.kind == DeclKind::Var);
        self.args.get(i).map_or(&[], Vec::as_slice)
    }
}

/// A parsed `varset.var`.
#[derive(Debug, Clone, PartialEq)]
pub struct Varset {
    raw: Vec<u8>,
    declarations: Vec<Declaration>,
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest
        } else {
            break;
        }
    }
    s
}

/// Position of `needle` outside double quotes.
fn find_unquoted(s: &[u8], pred: impl Fn(&[u8]) -> bool) -> Option<usize> {
    let mut quoted = false;
    for i in 0..s.len() {
        if s[i] == b'"' {
            quoted = !quoted;
        } else if !quoted && pred(&s[i..]) {
            return Some(i);
        }
    }
    None
}

fn parse_value(ty: &[u8], v: &[u8]) -> Option<VarValue> {
    let text = std::str::from_utf8(v).ok()?;
    match ty {
        b"DWORD" => {
            let n = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                Some(h) => u32::from_str_radix(h, 16).ok()?,
                None => text.parse::<u32>().ok()?,
            };
            Some(VarValue::Dword(n))
        }
        b"float" => text
            .parse::<f32>()
            .ok()
            .filter(|f| f.is_finite())
            .map(VarValue::Float),
        _ => None,
    }
}

impl Varset {
    /// Strictly parses: every non-blank, non-comment line is one declaration with a
    /// closing `)`, an optional `;`, and for `VAR` a known type and a valid default.
    pub fn parse(bytes: &[u8]) -> Result<Varset, AuxError> {
        let mut declarations = Vec::new();
        let mut start = 0;
        for (line, raw_line) in bytes.split(|&b| b == b'\n').enumerate() {
            let at = start;
            start += raw_line.len() + 1;
            let bad = |expected, found: &[u8]| AuxError::Invalid {
                format: Format::Varset,
                record: Record(Some(line)),
                field: "declaration",
                offset: at,
                expected,
                found: String::from_utf8_lossy(found).into_owned(),
            };
            let code = match find_unquoted(raw_line, |s| s.starts_with(b"//")) {
                Some(i) => &raw_line[..i],
                None => raw_line,
            };
            let code = trim(code);
            if code.is_empty() {
                continue;
            }
            let (kind, body) = if let Some(b) = code.strip_prefix(b"VAR(") {
                (DeclKind::Var, b)
            } else if let Some(b) = code.strip_prefix(b"STRING(") {
                (DeclKind::String, b)
            } else if let Some(b) = code.strip_prefix(b"FUNCTION(") {
                (DeclKind::Function, b)
            } else {
                return Err(bad("VAR(, STRING( or FUNCTION(", code));
            };
            let Some(close) = find_unquoted(body, |s| s[0] == b')') else {
                return Err(bad("closing `)`", code));
            };
            let after = trim(&body[close + 1..]);
            if !(after.is_empty() || after == b";") {
                return Err(bad("nothing but `;` after `)`", code));
            }
            let inner = &body[..close];
            let mut args = Vec::new();
            let mut rest = inner;
            while let Some(i) = find_unquoted(rest, |s| s[0] == b',') {
                args.push(trim(&rest[..i]).to_vec());
                rest = &rest[i + 1..];
            }
            args.push(trim(rest).to_vec());
            let value = if kind == DeclKind::Var {
                if args.len() != 3 {
                    return Err(bad("VAR(type, name, default)", code));
                }
                let Some(v) = parse_value(&args[0], &args[2]) else {
                    return Err(bad("float or DWORD with a valid default", code));
                };
                Some(v)
            } else {
                None
            };
            declarations.push(Declaration {
                kind,
                line,
                args,
                value,
            });
        }
        Ok(Varset {
            raw: bytes.to_vec(),
            declarations,
        })
    }

    /// Authors a file of `VAR` lines (CRLF), one per `(name, value)`.
    pub fn author(vars: &[(&str, VarValue)]) -> Result<Varset, AuxError> {
        let mut text = String::new();
        for (name, v) in vars {
            let ok =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !ok {
                return Err(AuxError::Authoring {
                    format: Format::Varset,
                    field: "name",
                    reason: "ASCII letters, digits, `_`",
                });
            }
            match v {
                VarValue::Dword(n) => text.push_str(&format!("VAR(DWORD, {name}, {n:#X})\r\n")),
                VarValue::Float(f) if f.is_finite() => {
                    text.push_str(&format!("VAR(float, {name}, {f:?})\r\n"))
                }
                VarValue::Float(_) => {
                    return Err(AuxError::Authoring {
                        format: Format::Varset,
                        field: "value",
                        reason: "float must be finite",
                    });
                }
            }
        }
        Varset::parse(text.as_bytes())
    }

    /// Declarations in encounter order (the reference index space).
    pub fn declarations(&self) -> &[Declaration] {
        &self.declarations
    }

    /// Index of the first declaration named `name` (exact, case-sensitive).
    pub fn index_of(&self, name: &[u8]) -> Option<usize> {
        self.declarations.iter().position(|d| d.name() == name)
    }

    /// Serialises byte-identically to the parsed input.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.raw.clone()
    }
}
