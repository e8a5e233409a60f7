//! Palettes of indexed textures (256 entries of R, G, B, A bytes), the deterministic
//! palette builder used when a caller gives none, nearest-entry search, and the
//! name-suffix palette slots of FORMATS §9.5.
//!
//! # Palette suffix slots
//!
//! ```text
//! suffix  := letter [digit]        letter 'A'..'Z', digit '0'..'9'
//! index   := (letter - 'A') * 11 + (0 if no digit else digit + 1)     0..=285
//! ```
//!
//! 26 × 11 = 286 slots. Lower-case letters are folded to upper case (names are
//! ASCII-case-insensitive, FORMATS §1.5); that fold is our decision.
//!
//! # Building a palette ([`Palette::build`])
//!
//! 1. Count every distinct RGBA colour over all given pixels (ordered map, so the result
//!    never depends on hashing).
//! 2. At most 256 distinct colours: they become the entries in ascending
//!    `(r, g, b, a)` order; unused entries are `[0, 0, 0, 0]`. Encoding is then exact.
//! 3. Otherwise median cut: start with one box of all colours; while there are fewer
//!    than 256 boxes, split the box with the widest channel range (ties: lowest channel
//!    R<G<B<A, then the earliest box) at the pixel-count-weighted median of that channel
//!    (colours sorted by that channel, then by `(r, g, b, a)`); the new box follows the
//!    old one. Each entry is its box's count-weighted mean, rounded half up.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::{SuffixProblem, TexmError};
use crate::header::PALETTE_SIZE;

/// 256 palette entries, each `[r, g, b, a]` as stored (FORMATS §9.3).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Palette {
    entries: [[u8; 4]; 256],
}

impl fmt::Debug for Palette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Palette({:02x?}..)", &self.entries[..4])
    }
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            entries: [[0; 4]; 256],
        }
    }
}

impl Palette {
    /// A palette from its 256 entries.
    pub const fn from_entries(entries: [[u8; 4]; 256]) -> Palette {
        Palette { entries }
    }

    /// Reads exactly 1024 bytes (entry `i` at `4 * i`, bytes R, G, B, A).
    pub fn from_bytes(bytes: &[u8]) -> Result<Palette, TexmError> {
        if bytes.len() != PALETTE_SIZE {
            return Err(TexmError::PaletteLength { found: bytes.len() });
        }
        let mut entries = [[0u8; 4]; 256];
        for (entry, chunk) in entries.iter_mut().zip(bytes.chunks_exact(4)) {
            entry.copy_from_slice(chunk);
        }
        Ok(Palette { entries })
    }

    /// The 1024 stored bytes.
    pub fn to_bytes(&self) -> [u8; PALETTE_SIZE] {
        let mut out = [0u8; PALETTE_SIZE];
        for (chunk, entry) in out.chunks_exact_mut(4).zip(&self.entries) {
            chunk.copy_from_slice(entry);
        }
        out
    }

    /// All entries.
    pub fn entries(&self) -> &[[u8; 4]; 256] {
        &self.entries
    }

    /// Entry `index` as `[r, g, b, a]`.
    pub fn entry(&self, index: u8) -> [u8; 4] {
        self.entries[usize::from(index)]
    }

    /// The index of the entry nearest to `rgba` by squared RGBA distance; ties go to
    /// the lowest index, so an exact colour maps to its first occurrence.
    pub fn nearest(&self, rgba: [u8; 4]) -> u8 {
        let mut best = 0u8;
        let mut best_d = u32::MAX;
        for (i, e) in (0u8..=255).zip(&self.entries) {
            let d: u32 = e
                .iter()
                .zip(rgba)
                .map(|(&x, y)| u32::from(x.abs_diff(y)).pow(2))
                .sum();
            if d < best_d {
                best_d = d;
                best = i;
                if d == 0 {
                    break;
                }
            }
        }
        best
    }

    pub(crate) fn nearest_finder(&self) -> NearestFinder<'_> {
        NearestFinder {
            palette: self,
            last: None,
        }
    }

    /// Builds a palette deterministically from RGBA8 buffers (see the module docs).
    /// Trailing bytes of a buffer that do not form a whole pixel are ignored.
    pub fn build<'a>(images: impl IntoIterator<Item = &'a [u8]>) -> Palette {
        let mut hist: BTreeMap<[u8; 4], u64> = BTreeMap::new();
        for image in images {
            for px in image.chunks_exact(4) {
                *hist.entry([px[0], px[1], px[2], px[3]]).or_insert(0) += 1;
            }
        }
        build_from_histogram(hist)
    }
}

/// Nearest-entry search with a one-pixel memo (images have runs of equal pixels).
pub(crate) struct NearestFinder<'p> {
    palette: &'p Palette,
    last: Option<([u8; 4], u8)>,
}

impl NearestFinder<'_> {
    pub(crate) fn nearest(&mut self, rgba: [u8; 4]) -> u8 {
        match self.last {
            Some((c, i)) if c == rgba => i,
            _ => {
                let i = self.palette.nearest(rgba);
                self.last = Some((rgba, i));
                i
            }
        }
    }
}

/// A median-cut box: a range of the colour list plus its widest channel.
#[derive(Clone, Copy)]
struct CutBox {
    start: usize,
    end: usize,
    range: u8,
    channel: usize,
}

impl CutBox {
    fn new(colours: &[([u8; 4], u64)], start: usize, end: usize) -> CutBox {
        let mut lo = [u8::MAX; 4];
        let mut hi = [0u8; 4];
        for (c, _) in &colours[start..end] {
            for k in 0..4 {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        let mut channel = 0;
        let mut range = 0;
        for k in 0..4 {
            let r = hi[k].saturating_sub(lo[k]);
            if r > range {
                range = r;
                channel = k;
            }
        }
        CutBox {
            start,
            end,
            range,
            channel,
        }
    }
}

fn build_from_histogram(hist: BTreeMap<[u8; 4], u64>) -> Palette {
    let mut entries = [[0u8; 4]; 256];
    if hist.len() <= 256 {
        for (entry, colour) in entries.iter_mut().zip(hist.keys()) {
            *entry = *colour;
        }
        return Palette { entries };
    }
    let mut colours: Vec<([u8; 4], u64)> = hist.into_iter().collect();
    let mut boxes = vec![CutBox::new(&colours, 0, colours.len())];
    while boxes.len() < 256 {
        // Widest box first; ties keep the earliest (max_by_key keeps the last maximum).
        let Some((at, cut)) = boxes
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, b)| b.end - b.start >= 2 && b.range > 0)
            .min_by_key(|(i, b)| (u8::MAX - b.range, *i))
        else {
            break;
        };
        let k = cut.channel;
        let part = &mut colours[cut.start..cut.end];
        part.sort_by_key(|(c, _)| (c[k], *c));
        let total: u64 = part.iter().map(|(_, n)| n).sum();
        let mut acc = 0u64;
        let mut split = 1;
        for (i, (_, n)) in part.iter().enumerate() {
            acc += n;
            if acc * 2 >= total {
                split = i + 1;
                break;
            }
        }
        let split = split.clamp(1, part.len() - 1) + cut.start;
        boxes[at] = CutBox::new(&colours, cut.start, split);
        boxes.insert(at + 1, CutBox::new(&colours, split, cut.end));
    }
    for (entry, b) in entries.iter_mut().zip(&boxes) {
        let part = &colours[b.start..b.end];
        let total: u64 = part.iter().map(|(_, n)| n).sum();
        for k in 0..4 {
            let sum: u64 = part.iter().map(|(c, n)| u64::from(c[k]) * n).sum();
            entry[k] = u8::try_from((sum + total / 2) / total.max(1)).unwrap_or(u8::MAX);
        }
    }
    Palette { entries }
}

/// One of the 286 palette slots named by a texture-name suffix (FORMATS §9.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaletteSlot {
    letter: u8,
    variant: Option<u8>,
}

impl PaletteSlot {
    /// Number of slots: 26 letters × (no digit or one of 10 digits).
    pub const COUNT: u16 = 286;

    /// Parses a suffix: one letter `A..Z` (or `a..z`, folded), then nothing or one digit.
    pub fn parse(suffix: &[u8]) -> Result<PaletteSlot, TexmError> {
        let fail = |problem| TexmError::PaletteSuffix {
            suffix: suffix.iter().take(8).copied().collect(),
            problem,
        };
        let (letter, digit) = match suffix {
            [] => return Err(fail(SuffixProblem::Empty)),
            [l] => (*l, None),
            [l, d] => (*l, Some(*d)),
            _ => return Err(fail(SuffixProblem::TooLong)),
        };
        if !letter.is_ascii_alphabetic() {
            return Err(fail(SuffixProblem::NotALetter));
        }
        let variant = match digit {
            None => None,
            Some(d) if d.is_ascii_digit() => Some(d - b'0'),
            Some(_) => return Err(fail(SuffixProblem::NotADigit)),
        };
        Ok(PaletteSlot {
            letter: letter.to_ascii_uppercase(),
            variant,
        })
    }

    /// The slot with this index (`0..286`).
    pub fn from_index(index: u16) -> Option<PaletteSlot> {
        if index >= Self::COUNT {
            return None;
        }
        let letter = b'A' + u8::try_from(index / 11).ok()?;
        let variant = u8::try_from(index % 11).ok()?.checked_sub(1);
        Some(PaletteSlot { letter, variant })
    }

    /// The slot's index: `(letter - 'A') * 11 + (0 | digit + 1)`.
    pub fn index(self) -> u16 {
        u16::from(self.letter - b'A') * 11 + self.variant.map_or(0, |d| u16::from(d) + 1)
    }

    /// The upper-case letter.
    pub fn letter(self) -> u8 {
        self.letter
    }

    /// The digit `0..=9`, if any.
    pub fn variant(self) -> Option<u8> {
        self.variant
    }

    /// Every slot in index order.
    pub fn all() -> impl Iterator<Item = PaletteSlot> {
        (0..Self::COUNT).filter_map(Self::from_index)
    }
}

impl fmt::Display for PaletteSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", char::from(self.letter))?;
        if let Some(d) = self.variant {
            write!(f, "{d}")?;
        }
        Ok(())
    }
}
