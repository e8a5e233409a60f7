//! WEAR tables (FORMATS §8.1, tome V "WEAR"): strict line-based reader that keeps the
//! original bytes (lossless), and the authoring writer for new tables.
//!
//! ```text
//! WEAR := count_line(wearCount > 0)
//!         row{wearCount}
//!         ( blank* EOF
//!         | blank  marker  count_line(lightmapCount)  row{lightmapCount}  blank* EOF )
//!
//! count_line := sp* digit+ sp* EOL
//! row        := sp* legacyId sp+ name (sp+ tail)? sp* EOL     tokens: 1+ bytes, no sp
//! marker     := sp* "LIGHTMAPS" sp* EOL
//! blank      := sp* EOL
//! sp         := ' ' | '\t'          EOL := LF | CRLF | (end of text after the last line)
//! ```
//!
//! Bytes are windows-1251 text; NUL and a CR outside CRLF are errors. The row selected by
//! a material handle is the row *position*; `legacyId` is kept but never used for lookup.

use crate::error::{MaterialError, WearItem, WearSection};
use crate::text::{Lines, decode_cp1251, first_non_blank_column, is_blank, is_space};
use std::ops::Range;

/// The NRes `type_id` of WEAR entries (`"WEAR"` little-endian, confirmed).
pub const WEAR_TYPE: u32 = 0x5241_4557;

/// The marker line that opens the optional lightmap block.
pub const LIGHTMAPS_MARKER: &[u8] = b"LIGHTMAPS";

/// One `<legacyId> <name>` row, material or lightmap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WearRow {
    line: usize,
    legacy_id: Vec<u8>,
    name: Vec<u8>,
    tail: Vec<u8>,
}

impl WearRow {
    /// 1-based line of the row in the text it was read from (0 for nothing read).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The `legacyId` token as raw bytes (kept; never used to select a material).
    pub fn legacy_id(&self) -> &[u8] {
        &self.legacy_id
    }

    /// `legacyId` as a decimal number, when it is one (optional sign, ASCII digits).
    pub fn legacy_id_number(&self) -> Option<i64> {
        std::str::from_utf8(&self.legacy_id).ok()?.parse().ok()
    }

    /// The material (or lightmap) name token as raw CP1251 bytes.
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// The name as text (windows-1251 view).
    pub fn name_text(&self) -> String {
        decode_cp1251(&self.name)
    }

    /// Further tokens after the name, from the first one to the last non-blank byte
    /// (empty in canonical files; kept raw, not interpreted).
    pub fn tail(&self) -> &[u8] {
        &self.tail
    }
}

/// One row for [`Wear::author`]: two tokens without space, tab, CR, LF or NUL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowSpec<'a> {
    /// The `legacyId` token.
    pub legacy_id: &'a [u8],
    /// The material or lightmap name.
    pub name: &'a [u8],
}

impl<'a> RowSpec<'a> {
    /// A row from its two tokens.
    pub const fn new(legacy_id: &'a [u8], name: &'a [u8]) -> Self {
        Self { legacy_id, name }
    }
}

/// A parsed WEAR table: the rows plus the exact input bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wear {
    bytes: Vec<u8>,
    materials: Vec<WearRow>,
    lightmaps: Option<Vec<WearRow>>,
}

impl Wear {
    /// Strictly parses a WEAR text (see the module grammar).
    pub fn parse(input: &[u8]) -> Result<Wear, MaterialError> {
        let mut lines = Lines::new(input);
        let materials = read_section(&mut lines, WearSection::Materials)?;

        // Either only blank lines remain, or: blank, LIGHTMAPS, count, rows, blanks.
        let mut probe = lines.clone();
        let mut only_blank = true;
        while let Some(line) = probe.next_line()? {
            if !is_blank(line.content) {
                only_blank = false;
                break;
            }
        }
        let lightmaps = if only_blank {
            None
        } else {
            expect_separator_and_marker(&mut lines)?;
            let rows = read_section(&mut lines, WearSection::Lightmaps)?;
            while let Some(line) = lines.next_line()? {
                if !is_blank(line.content) {
                    return Err(MaterialError::WearTrailingText {
                        line: line.number,
                        column: first_non_blank_column(line.content),
                        after: WearSection::Lightmaps,
                        found: decode_cp1251(line.content),
                    });
                }
            }
            Some(rows)
        };
        Ok(Wear {
            bytes: input.to_vec(),
            materials,
            lightmaps,
        })
    }

    /// Writes a new table in the canonical layout: CRLF endings, one space between the
    /// tokens, no trailing blank line; the lightmap block (empty line, `LIGHTMAPS`,
    /// count, rows) only when `lightmaps` is `Some`. The result parses back to the same
    /// rows.
    pub fn author(
        materials: &[RowSpec<'_>],
        lightmaps: Option<&[RowSpec<'_>]>,
    ) -> Result<Wear, MaterialError> {
        if materials.is_empty() {
            return Err(MaterialError::WearAuthorEmpty);
        }
        let mut out = Vec::new();
        write_section(&mut out, WearSection::Materials, materials)?;
        if let Some(rows) = lightmaps {
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(LIGHTMAPS_MARKER);
            out.extend_from_slice(b"\r\n");
            write_section(&mut out, WearSection::Lightmaps, rows)?;
        }
        Wear::parse(&out)
    }

    /// The material rows in file order; row `i` is the material of handle row `i`.
    pub fn materials(&self) -> &[WearRow] {
        &self.materials
    }

    /// Material row `row` (the row of a [`crate::MaterialHandle`]).
    pub fn material(&self, row: u16) -> Option<&WearRow> {
        self.materials.get(usize::from(row))
    }

    /// The lightmap rows (empty when the table has no `LIGHTMAPS` block).
    pub fn lightmaps(&self) -> &[WearRow] {
        self.lightmaps.as_deref().unwrap_or_default()
    }

    /// Whether the table has a `LIGHTMAPS` block (possibly with count 0).
    pub fn has_lightmap_block(&self) -> bool {
        self.lightmaps.is_some()
    }

    /// The exact bytes that were parsed (or authored).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The table as bytes: identical to the parsed input (CR, spacing, trailing blanks).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}

/// Reads `<count>` and `count` rows of one section.
fn read_section(
    lines: &mut Lines<'_>,
    section: WearSection,
) -> Result<Vec<WearRow>, MaterialError> {
    let expected_count = match section {
        WearSection::Materials => WearItem::WearCount,
        WearSection::Lightmaps => WearItem::LightmapCount,
    };
    let Some(line) = lines.next_line()? else {
        return Err(MaterialError::WearMissingLine {
            line: lines.next_number(),
            column: 1,
            expected: expected_count,
        });
    };
    let (count, digits_at) =
        parse_count(line.content).map_err(|column| MaterialError::WearBadCount {
            line: line.number,
            column,
            expected: expected_count,
            found: decode_cp1251(line.content),
        })?;
    if count == 0 && section == WearSection::Materials {
        return Err(MaterialError::WearZeroCount {
            line: line.number,
            column: digits_at,
        });
    }
    // Plausibility before allocation: never reserve more rows than lines remain.
    let mut rows = Vec::with_capacity(count.min(lines.remaining()));
    for index in 0..count {
        let Some(line) = lines.next_line()? else {
            return Err(MaterialError::WearMissingLine {
                line: lines.next_number(),
                column: 1,
                expected: WearItem::Row(section),
            });
        };
        let bad = |column| MaterialError::WearBadRow {
            line: line.number,
            column,
            section,
            index,
            found: decode_cp1251(line.content),
        };
        let (id, name, tail) = split_row(line.content).map_err(bad)?;
        let get = |r: Range<usize>| line.content.get(r).unwrap_or_default().to_vec();
        rows.push(WearRow {
            line: line.number,
            legacy_id: get(id),
            name: get(name),
            tail: get(tail),
        });
    }
    Ok(rows)
}

/// The mandatory empty line and the `LIGHTMAPS` line.
fn expect_separator_and_marker(lines: &mut Lines<'_>) -> Result<(), MaterialError> {
    // The caller saw a non-blank line ahead, so both lines exist unless the text ends.
    let Some(separator) = lines.next_line()? else {
        return Err(MaterialError::WearMissingLine {
            line: lines.next_number(),
            column: 1,
            expected: WearItem::Row(WearSection::Materials),
        });
    };
    if !is_blank(separator.content) {
        return Err(MaterialError::WearMissingSeparator {
            line: separator.number,
            column: first_non_blank_column(separator.content),
            found: decode_cp1251(separator.content),
        });
    }
    let marker = lines.next_line()?;
    let ok = marker.is_some_and(|m| trim(m.content) == LIGHTMAPS_MARKER);
    if !ok {
        let (line, content) =
            marker.map_or((lines.next_number(), &[][..]), |m| (m.number, m.content));
        return Err(MaterialError::WearMissingMarker {
            line,
            column: first_non_blank_column(content),
            found: decode_cp1251(content),
        });
    }
    Ok(())
}

/// `content` without leading and trailing spaces/tabs.
fn trim(content: &[u8]) -> &[u8] {
    let start = content
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(content.len());
    let end = content
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |e| e + 1);
    content.get(start..end).unwrap_or_default()
}

/// A count line: `sp* digit+ sp*`. Returns the value and the 1-based column of the
/// digits, or the 1-based column of the first offending byte (also on overflow).
fn parse_count(content: &[u8]) -> Result<(usize, usize), usize> {
    let start = content
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(content.len());
    let mut value: usize = 0;
    let mut end = start;
    for &b in content.get(start..).unwrap_or_default() {
        if !b.is_ascii_digit() {
            break;
        }
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(usize::from(b - b'0')))
            .ok_or(start + 1)?;
        end += 1;
    }
    if end == start {
        return Err(start + 1);
    }
    if let Some(bad) = content
        .get(end..)
        .unwrap_or_default()
        .iter()
        .position(|&b| !is_space(b))
    {
        return Err(end + bad + 1);
    }
    Ok((value, start + 1))
}

/// Byte ranges of a row's legacyId, name and tail.
type RowRanges = (Range<usize>, Range<usize>, Range<usize>);

/// Splits a row into (legacyId, name, tail) ranges; on failure, the 1-based column where
/// a token was expected.
fn split_row(content: &[u8]) -> Result<RowRanges, usize> {
    let token = |from: usize| -> Option<Range<usize>> {
        let rest = content.get(from..)?;
        let start = from + rest.iter().position(|&b| !is_space(b))?;
        let len = content
            .get(start..)?
            .iter()
            .position(|&b| is_space(b))
            .unwrap_or(content.len() - start);
        Some(start..start + len)
    };
    let id = token(0).ok_or(1usize)?;
    let name = token(id.end).ok_or(id.end + 1)?;
    let tail = match token(name.end) {
        Some(first) => {
            let end = content
                .iter()
                .rposition(|&b| !is_space(b))
                .map_or(first.end, |e| e + 1);
            first.start..end
        }
        None => name.end..name.end,
    };
    Ok((id, name, tail))
}

/// Appends `<count>\r\n` and the rows of one authored section.
fn write_section(
    out: &mut Vec<u8>,
    section: WearSection,
    rows: &[RowSpec<'_>],
) -> Result<(), MaterialError> {
    out.extend_from_slice(rows.len().to_string().as_bytes());
    out.extend_from_slice(b"\r\n");
    for (index, row) in rows.iter().enumerate() {
        for (field, token) in [("legacy_id", row.legacy_id), ("name", row.name)] {
            let bad = token.is_empty()
                || token
                    .iter()
                    .any(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0));
            if bad {
                return Err(MaterialError::WearAuthorToken {
                    section,
                    index,
                    field,
                    found: decode_cp1251(token),
                });
            }
        }
        out.extend_from_slice(row.legacy_id);
        out.push(b' ');
        out.extend_from_slice(row.name);
        out.extend_from_slice(b"\r\n");
    }
    Ok(())
}
