//! `mission.cfg` / `briefing.cfg` / `messages.cfg`: `object <name>` … `end` blocks whose
//! parameter lines are kept raw (the separator inside a block is undocumented).

use crate::error::ConfigError;
use crate::lines::{RawLine, split, split_comment, tokens};

/// One parameter line of a block: first token, rest of the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// 1-based line.
    pub line: usize,
    /// The first token.
    pub name: Vec<u8>,
    /// Everything after the first token, trimmed (raw bytes, comment excluded).
    pub value: Vec<u8>,
}

/// One `object <name>` … `end` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// 1-based line of `object`.
    pub line: usize,
    /// The object name (rest of the `object` line, trimmed).
    pub name: Vec<u8>,
    /// Parameter lines in order (duplicates kept).
    pub params: Vec<Param>,
}

impl Block {
    /// The first parameter called `name` (exact, case-sensitive).
    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name.as_bytes())
    }
}

/// A lossless block-structured configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockFile {
    lines: Vec<RawLine>,
    blocks: Vec<Block>,
    outside: Vec<usize>,
}

fn is_word(content: &[u8], word: &[u8]) -> bool {
    let t = tokens(split_comment(content).0);
    t.first()
        .is_some_and(|r| content[r.clone()].eq_ignore_ascii_case(word))
}

impl BlockFile {
    /// Parses blocks. `object` inside a block, `end` outside one and a block left open at
    /// the end of the file are errors with line and column; other lines outside blocks
    /// (besides blanks and comments) are kept and listed by [`BlockFile::outside_lines`].
    pub fn parse(input: &[u8], origin: &str) -> Result<Self, ConfigError> {
        let lines = split(input);
        let mut blocks = Vec::new();
        let mut outside = Vec::new();
        let mut open: Option<Block> = None;
        for l in &lines {
            let body = split_comment(&l.content).0;
            let toks = tokens(body);
            let col = toks.first().map_or(1, |r| r.start + 1);
            if is_word(&l.content, b"object") {
                if let Some(b) = &open {
                    return Err(ConfigError::at(
                        origin,
                        l.number,
                        col,
                        format!(
                            "'object' inside the block opened at line {} (missing 'end')",
                            b.line
                        ),
                    ));
                }
                let name = toks
                    .get(1)
                    .map_or_else(Vec::new, |r| body[r.start..].trim_ascii().to_vec());
                if name.is_empty() {
                    return Err(ConfigError::at(
                        origin,
                        l.number,
                        col,
                        "'object' without a name".into(),
                    ));
                }
                open = Some(Block {
                    line: l.number,
                    name,
                    params: Vec::new(),
                });
            } else if is_word(&l.content, b"end") {
                match open.take() {
                    Some(b) => blocks.push(b),
                    None => {
                        return Err(ConfigError::at(
                            origin,
                            l.number,
                            col,
                            "'end' without an open 'object' block".into(),
                        ));
                    }
                }
            } else if let Some(b) = open.as_mut() {
                if let Some(first) = toks.first() {
                    b.params.push(Param {
                        line: l.number,
                        name: body[first.clone()].to_vec(),
                        value: body[first.end..].trim_ascii().to_vec(),
                    });
                }
            } else if !toks.is_empty() {
                outside.push(l.number);
            }
        }
        if let Some(b) = open {
            return Err(ConfigError::at(
                origin,
                b.line,
                1,
                "block not closed with 'end' before the end of the file".into(),
            ));
        }
        Ok(Self {
            lines,
            blocks,
            outside,
        })
    }

    /// Blocks in file order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The first block named `name` (exact).
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name.as_bytes())
    }

    /// Lines with content outside any block (kept, not interpreted).
    pub fn outside_lines(&self) -> &[usize] {
        &self.outside
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

    const MISSION: &[u8] = b"// music\r\nobject ambient_music_loop\r\n    library sounds.lib\r\n    THEME  theme1 // main\r\n    DAY_VARIATION1 day1\r\n    DAY_VARIATION1 again\r\nend\r\n\r\nobject ambient_music_variation\r\n  type 3\r\nend";

    #[test]
    fn blocks_keep_order_duplicates_and_bytes() {
        let f = BlockFile::parse(MISSION, "mission.cfg").unwrap();
        assert_eq!(f.to_bytes(), MISSION);
        assert_eq!(f.blocks().len(), 2);
        let b = f.block("ambient_music_loop").unwrap();
        assert_eq!(b.param("THEME").unwrap().value, b"theme1");
        assert_eq!(
            b.params
                .iter()
                .filter(|p| p.name == b"DAY_VARIATION1")
                .count(),
            2
        );
        assert_eq!(b.param("DAY_VARIATION1").unwrap().value, b"day1");
        assert_eq!(
            f.block("ambient_music_variation")
                .unwrap()
                .param("type")
                .unwrap()
                .value,
            b"3"
        );
    }

    #[test]
    fn structure_errors_name_line_and_column() {
        let e = BlockFile::parse(b"object a\n  x 1\nobject b\nend\n", "m.cfg").unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 1));
        let e = BlockFile::parse(b"\n  end\n", "m.cfg").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 3));
        let e = BlockFile::parse(b"object a\n x 1\n", "m.cfg").unwrap_err();
        assert!(e.to_string().contains("not closed"), "{e}");
        let e = BlockFile::parse(b"object\nend\n", "m.cfg").unwrap_err();
        assert!(e.to_string().contains("without a name"), "{e}");
    }
}
