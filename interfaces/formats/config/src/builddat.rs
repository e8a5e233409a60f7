//! `BuildDat.lst`: building categories and their 32-bit zone masks (FORMATS.md §6.6).
//!
//! ```text
//! // comment lines and blank lines are skipped
//! <CategoryName> <count>          exactly two tokens; the name must be one of the 12 known
//! "<unit DAT path>"               exactly `count` lines, quoted, [A-Za-z0-9_./\-]+
//! ```
//! Unknown or duplicate names and broken structure are errors; a unit listed in no
//! category has mask 0, which is reported as a diagnosable state, never silently used.

use crate::error::ConfigError;
use crate::lines::{RawLine, split, tokens};

/// The twelve categories and their masks (confirmed).
pub const CATEGORIES: [(&str, u32); 12] = [
    ("Bunker_Small", 0x8001_0000),
    ("Bunker_Medium", 0x8002_0000),
    ("Bunker_Large", 0x8004_0000),
    ("Generator", 0x8000_0002),
    ("Mine", 0x8000_0004),
    ("Storage", 0x8000_0008),
    ("Plant", 0x8000_0010),
    ("Hangar", 0x8000_0040),
    ("MainTeleport", 0x8000_0200),
    ("Institute", 0x8000_0400),
    ("Tower_Medium", 0x8010_0000),
    ("Tower_Large", 0x8020_0000),
];

/// The mask of category `name` (exact name).
pub fn mask_of(name: &str) -> Option<u32> {
    CATEGORIES.iter().find(|(n, _)| *n == name).map(|&(_, m)| m)
}

/// One category section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    /// Category name.
    pub name: String,
    /// Its mask.
    pub mask: u32,
    /// Unit DAT paths as written (without quotes).
    pub units: Vec<String>,
    /// 1-based line of the header.
    pub line: usize,
}

/// A parsed, lossless `BuildDat.lst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildDat {
    lines: Vec<RawLine>,
    categories: Vec<Category>,
}

/// Mask lookup result: a zero mask is a state to report, not a value to use silently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitMask {
    /// OR of the masks of every category listing the unit.
    Mask(u32),
    /// The unit is in no category.
    Zero,
}

fn valid_path(p: &[u8]) -> bool {
    !p.is_empty()
        && p.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_./\\-".contains(&b))
}

impl BuildDat {
    /// Parses strictly; every error names the line and column.
    pub fn parse(input: &[u8], origin: &str) -> Result<Self, ConfigError> {
        let lines = split(input);
        let mut categories: Vec<Category> = Vec::new();
        let mut expecting: usize = 0;
        for l in &lines {
            let c = &l.content;
            let t = c.trim_ascii();
            if t.is_empty() || t.starts_with(b"//") {
                continue;
            }
            let col = c.len() - c.trim_ascii_start().len() + 1;
            if expecting > 0 {
                if t.len() < 2
                    || t[0] != b'"'
                    || t[t.len() - 1] != b'"'
                    || !valid_path(&t[1..t.len() - 1])
                {
                    return Err(ConfigError::at(
                        origin,
                        l.number,
                        col,
                        "expected a double-quoted unit DAT path of [A-Za-z0-9_./\\-]".into(),
                    ));
                }
                let path = String::from_utf8_lossy(&t[1..t.len() - 1]).into_owned();
                if let Some(cat) = categories.last_mut() {
                    cat.units.push(path);
                }
                expecting -= 1;
                continue;
            }
            let toks = tokens(c);
            if toks.len() != 2 {
                return Err(ConfigError::at(
                    origin,
                    l.number,
                    col,
                    format!("expected '<Category> <count>', found {} tokens", toks.len()),
                ));
            }
            let name = String::from_utf8_lossy(&c[toks[0].clone()]).into_owned();
            let Some(mask) = mask_of(&name) else {
                return Err(ConfigError::at(
                    origin,
                    l.number,
                    toks[0].start + 1,
                    format!("unknown category '{name}'"),
                ));
            };
            if let Some(prev) = categories.iter().find(|k| k.name == name) {
                return Err(ConfigError::at(
                    origin,
                    l.number,
                    toks[0].start + 1,
                    format!("duplicate category '{name}' (first at line {})", prev.line),
                ));
            }
            let count: usize = std::str::from_utf8(&c[toks[1].clone()])
                .ok()
                .and_then(|s| s.parse().ok())
                .filter(|&n: &usize| n <= lines.len())
                .ok_or_else(|| {
                    ConfigError::at(
                        origin,
                        l.number,
                        toks[1].start + 1,
                        "count is not a number of lines that fits the file".into(),
                    )
                })?;
            categories.push(Category {
                name,
                mask,
                units: Vec::with_capacity(count),
                line: l.number,
            });
            expecting = count;
        }
        if expecting > 0 {
            let last = categories.last().map_or(0, |c| c.line);
            return Err(ConfigError::at(
                origin,
                last,
                1,
                format!("{expecting} unit line(s) missing at the end of the file"),
            ));
        }
        Ok(Self { lines, categories })
    }

    /// Categories in file order.
    pub fn categories(&self) -> &[Category] {
        &self.categories
    }

    /// The zone mask of a unit DAT path (ASCII-case-insensitive, `\` = `/`).
    pub fn mask_for_unit(&self, path: &str) -> UnitMask {
        let norm = |s: &str| s.replace('\\', "/").to_ascii_lowercase();
        let want = norm(path);
        let m = self
            .categories
            .iter()
            .filter(|c| c.units.iter().any(|u| norm(u) == want))
            .fold(0, |m, c| m | c.mask);
        if m == 0 {
            UnitMask::Zero
        } else {
            UnitMask::Mask(m)
        }
    }

    /// Canonical text for `categories` (CRLF, quoted paths).
    pub fn write(categories: &[(String, Vec<String>)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, units) in categories {
            out.extend_from_slice(format!("{name} {}\r\n", units.len()).as_bytes());
            for u in units {
                out.extend_from_slice(format!("\"{u}\"\r\n").as_bytes());
            }
        }
        out
    }

    /// The file as bytes (identical to the input).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.lines
            .iter()
            .flat_map(|l| [l.content.as_slice(), l.ending.as_slice()].concat())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_files_parse_back_and_masks_combine() {
        let cats = vec![
            ("Mine".to_owned(), vec![r"UNITS\BUILDS\mine.dat".to_owned()]),
            (
                "Storage".to_owned(),
                vec![
                    r"UNITS\BUILDS\mine.dat".to_owned(),
                    "UNITS/BUILDS/store.dat".to_owned(),
                ],
            ),
            ("Hangar".to_owned(), vec![]),
        ];
        let bytes = BuildDat::write(&cats);
        let b = BuildDat::parse(&bytes, "BuildDat.lst").unwrap();
        assert_eq!(b.to_bytes(), bytes);
        assert_eq!(b.categories().len(), 3);
        assert_eq!(
            b.mask_for_unit("units/builds/MINE.DAT"),
            UnitMask::Mask(0x8000_0004 | 0x8000_0008)
        );
        assert_eq!(b.mask_for_unit("units/builds/none.dat"), UnitMask::Zero);
    }

    #[test]
    fn every_structural_problem_is_an_error_with_its_position() {
        let cases: [(&[u8], usize, usize, &str); 6] = [
            (b"Minee 1\n\"a.dat\"\n", 1, 1, "unknown category"),
            (b"Mine 1\n\"a.dat\"\nMine 0\n", 3, 1, "duplicate"),
            (b"Mine 2\n\"a.dat\"\n", 1, 1, "missing"),
            (b"Mine 1\na.dat\n", 2, 1, "double-quoted"),
            (b"Mine 1 x\n", 1, 1, "3 tokens"),
            (b"Mine lots\n", 1, 6, "count"),
        ];
        for (input, line, col, what) in cases {
            let e = BuildDat::parse(input, "b.lst").unwrap_err();
            assert_eq!((e.line(), e.column()), (line, col), "{e}");
            assert!(e.message().contains(what), "{e}");
        }
        assert!(
            BuildDat::parse(b"// only a comment\r\n\r\n", "b.lst")
                .unwrap()
                .categories()
                .is_empty()
        );
    }
}
