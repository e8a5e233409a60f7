//! Splitting text into lines that remember their exact line ending (lossless).

/// One physical line: its content (without the ending) and the ending bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLine {
    /// 1-based line number.
    pub number: usize,
    /// Byte offset of the line in the input.
    pub offset: usize,
    /// Content without the line ending.
    pub content: Vec<u8>,
    /// `\r\n`, `\n` or empty (last line without a newline).
    pub ending: Vec<u8>,
}

/// Splits `input` into lines; concatenating `content + ending` of every line gives `input` back.
pub fn split(input: &[u8]) -> Vec<RawLine> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = 1;
    while start < input.len() {
        let end = input[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|p| start + p);
        let (content_end, next, ending): (usize, usize, &[u8]) = match end {
            Some(nl) if nl > start && input[nl - 1] == b'\r' => (nl - 1, nl + 1, b"\r\n"),
            Some(nl) => (nl, nl + 1, b"\n"),
            None => (input.len(), input.len(), b""),
        };
        out.push(RawLine {
            number,
            offset: start,
            content: input[start..content_end].to_vec(),
            ending: ending.to_vec(),
        });
        start = next;
        number += 1;
    }
    out
}

/// The content before a `//` comment (outside double quotes), and the comment (from `//`).
pub fn split_comment(content: &[u8]) -> (&[u8], &[u8]) {
    let mut in_quotes = false;
    let mut i = 0;
    while i < content.len() {
        match content[i] {
            b'"' => in_quotes = !in_quotes,
            b'/' if !in_quotes && content.get(i + 1) == Some(&b'/') => {
                return (&content[..i], &content[i..]);
            }
            _ => {}
        }
        i += 1;
    }
    (content, &[])
}

/// Whitespace-separated tokens (space or tab) with byte ranges; a double-quoted run is one token.
pub fn tokens(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        while i < text.len() && (text[i] == b' ' || text[i] == b'\t') {
            i += 1;
        }
        if i >= text.len() {
            break;
        }
        let start = i;
        let mut in_quotes = false;
        while i < text.len() && (in_quotes || (text[i] != b' ' && text[i] != b'\t')) {
            if text[i] == b'"' {
                in_quotes = !in_quotes;
            }
            i += 1;
        }
        out.push(start..i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_endings() {
        let input = b"a\r\nb\n\nc";
        let lines = split(input);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0].ending, b"\r\n");
        assert_eq!(lines[2].content, b"");
        assert_eq!(lines[3].ending, b"");
        let back: Vec<u8> = lines
            .iter()
            .flat_map(|l| [l.content.clone(), l.ending.clone()].concat())
            .collect();
        assert_eq!(back, input);
        assert!(split(b"").is_empty());
    }

    #[test]
    fn comments_and_quoted_tokens() {
        assert_eq!(split_comment(b"a=1 // x"), (&b"a=1 "[..], &b"// x"[..]));
        assert_eq!(split_comment(b"p=\"a//b\" // c").0, b"p=\"a//b\" ");
        let t = b"  a \"b c\"\td";
        let toks: Vec<&[u8]> = tokens(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(toks, vec![&b"a"[..], b"\"b c\"", b"d"]);
    }
}
