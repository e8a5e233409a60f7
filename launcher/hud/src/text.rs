//! CP1251 text and the quad painter.

use crate::font::Font;
use iron3d_abi::OverlayQuad;

/// `text` in CP1251 (characters CP1251 lacks become `?`).
pub fn cp1251(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c as u8);
            continue;
        }
        let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(c.encode_utf8(&mut buf));
        match (unmappable, bytes.as_ref()) {
            (false, [b]) => out.push(*b),
            _ => out.push(b'?'),
        }
    }
    out
}

/// Splits CP1251 `text` into lines of at most `columns` characters: at spaces where it
/// can, inside a word longer than a line where it must. Line breaks (`\n`) in the
/// text are kept; `\r` is dropped. Nothing is lost but the spaces a break replaces.
pub fn wrap(text: &[u8], columns: usize) -> Vec<Vec<u8>> {
    let columns = columns.max(1);
    let mut out = Vec::new();
    for para in text.split(|&b| b == b'\n') {
        let para: Vec<u8> = para.iter().copied().filter(|&b| b != b'\r').collect();
        let mut line: Vec<u8> = Vec::new();
        for word in para.split(|&b| b == b' ') {
            let mut word = word;
            let sep = usize::from(!line.is_empty());
            if line.len() + sep + word.len() <= columns {
                if sep == 1 {
                    line.push(b' ');
                }
                line.extend_from_slice(word);
                continue;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
            }
            while word.len() > columns {
                out.push(word[..columns].to_vec());
                word = &word[columns..];
            }
            line.extend_from_slice(word);
        }
        out.push(line);
    }
    out
}

/// Collects the quads of one overlay: solid rectangles and text in a font at an integer
/// scale, in draw order.
pub struct Painter<'f> {
    font: &'f Font,
    font_texture: u32,
    scale: u32,
    quads: Vec<OverlayQuad>,
}

impl<'f> Painter<'f> {
    /// A painter writing text with `font`, which the overlay holds as texture
    /// `font_texture`, magnified `scale` times (at least 1).
    pub fn new(font: &'f Font, font_texture: u32, scale: u32) -> Self {
        Self {
            font,
            font_texture,
            scale: scale.max(1),
            quads: Vec::new(),
        }
    }

    /// The size of one character cell on screen.
    pub fn cell(&self) -> (f32, f32) {
        let (w, h) = self.font.cell();
        ((w * self.scale) as f32, (h * self.scale) as f32)
    }

    /// A solid rectangle `x, y, w, h`.
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: [u8; 4]) {
        self.quads
            .push(OverlayQuad::solid([x, y, x + w, y + h], color));
    }

    /// A `color` panel behind a block of `columns × rows` character cells whose first
    /// cell's top-left corner is `(x, y)`, with `pad` pixels round it.
    pub fn panel(&mut self, x: f32, y: f32, columns: usize, rows: usize, pad: f32, color: [u8; 4]) {
        let (cw, ch) = self.cell();
        self.rect(
            x - pad,
            y - pad,
            columns as f32 * cw + 2.0 * pad,
            rows as f32 * ch + 2.0 * pad,
            color,
        );
    }

    /// CP1251 `text` with its top-left corner at `(x, y)`, one line (control codes
    /// below 0x20 draw nothing). Returns the width drawn.
    pub fn text(&mut self, x: f32, y: f32, text: &[u8], color: [u8; 4]) -> f32 {
        let (cw, ch) = self.cell();
        for (k, &b) in text.iter().enumerate() {
            if b <= b' ' {
                continue;
            }
            let x0 = x + k as f32 * cw;
            self.quads.push(OverlayQuad {
                rect: [x0, y, x0 + cw, y + ch],
                uv: self.font.uv(b),
                texture: self.font_texture,
                color,
            });
        }
        text.len() as f32 * cw
    }

    /// `text` centred horizontally on `cx`.
    pub fn text_centred(&mut self, cx: f32, y: f32, text: &[u8], color: [u8; 4]) {
        let w = text.len() as f32 * self.cell().0;
        self.text((cx - w * 0.5).floor(), y, text, color);
    }

    /// The quads so far.
    pub fn finish(self) -> Vec<OverlayQuad> {
        self.quads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp1251_encodes_cyrillic_and_replaces_what_it_lacks() {
        assert_eq!(cp1251("Ab"), b"Ab");
        assert_eq!(cp1251("Игрок"), vec![0xC8, 0xE3, 0xF0, 0xEE, 0xEA]);
        assert_eq!(cp1251("ёЁ"), vec![0xB8, 0xA8]);
        assert_eq!(cp1251("a日b"), b"a?b", "no CP1251 code: '?'");
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_splits_long_words_losing_nothing_else() {
        let lines = wrap(b"Destroy the enemy base now", 10);
        assert_eq!(
            lines,
            vec![
                b"Destroy".to_vec(),
                b"the enemy".to_vec(),
                b"base now".to_vec()
            ]
        );
        let lines = wrap(b"abcdefghijklmnop xy", 6);
        assert_eq!(
            lines,
            vec![
                b"abcdef".to_vec(),
                b"ghijkl".to_vec(),
                b"mnop".to_vec(),
                b"xy".to_vec()
            ]
        );
        assert_eq!(wrap(b"a\r\nb", 10), vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(wrap(b"", 10), vec![Vec::<u8>::new()]);
        for (text, cols) in [(&b"one two  three"[..], 3), (b"x", 0)] {
            let joined: Vec<u8> = wrap(text, cols).concat();
            let want: Vec<u8> = text.iter().copied().filter(|&b| b != b' ').collect();
            let got: Vec<u8> = joined.into_iter().filter(|&b| b != b' ').collect();
            assert_eq!(got, want);
            assert!(wrap(text, cols).iter().all(|l| l.len() <= cols.max(1)));
        }
    }

    #[test]
    fn text_is_one_glyph_quad_per_visible_character() {
        let f = Font::builtin();
        let mut p = Painter::new(&f, 0, 2);
        assert_eq!(p.cell(), (12.0, 24.0));
        let w = p.text(10.0, 20.0, b"A b", [255; 4]);
        assert_eq!(w, 36.0);
        let q = p.finish();
        assert_eq!(q.len(), 2, "the space draws nothing");
        assert_eq!(q[0].rect, [10.0, 20.0, 22.0, 44.0]);
        assert_eq!(q[1].rect, [34.0, 20.0, 46.0, 44.0]);
        assert_eq!(q[1].uv, f.uv(b'b'));
    }
}
