//! LZHUF: adaptive Huffman + LZSS (RsLi methods 0x080/0x0A0, FORMATS.md §3.5.2), with
//! the *classic* Okumura position coding chosen by Project decision 1.
//!
//! ```text
//! ring: 4096 bytes of 0x20, write position starts at N - F = 0xFC4
//! symbol (adaptive Huffman, MSB first):
//!   0..=255    literal byte
//!   256..=313  match of length symbol - 253 (3..=60), followed by a position:
//! position (12 bits, a distance back from the write position):
//!   upper 6 bits: a prefix code of 3..=8 bits (table below), lower 6 bits verbatim
//!   decoder: i = next 8 bits; upper = UPPER[i]; extra = LEN[i] - 2 more bits;
//!            lower = ((i << extra) | extra_bits) & 0x3F
//!   copy source = (write_position - distance - 1) & 0xFFF
//!
//!   i (first byte)   upper 6   code length
//!   0..=31           0         3
//!   32..=79          1..=3     4
//!   80..=143         4..=11    5
//!   144..=191        12..=23   6
//!   192..=239        24..=47   7
//!   240..=255        48..=63   8
//! ```
//!
//! Decoding stops once the declared size is produced (inside a match if need be);
//! reading past the end of the packed bytes is an error, never implicit zeros.

use super::bits::{BitReader, BitWriter};
use super::huffman::Tree;
use super::matcher::{Matcher, WINDOW};
use crate::error::RsliError;

const CODEC: &str = "lzhuf";
/// Longest match (F).
pub const MAX_MATCH: usize = 60;
/// Ring write position at the start of a stream (`N - F`).
pub const START_POSITION: usize = WINDOW - MAX_MATCH;
/// Largest output per packed byte: a 60-byte match costs at least 10 bits (a 1-bit
/// symbol code + a 9-bit position), i.e. 48 bytes per packed byte.
pub const MAX_RATIO: u64 = 48;

/// Code length (3..=8) of the upper-6-bit position code `u`.
const fn code_len(u: usize) -> u32 {
    match u {
        0 => 3,
        1..=3 => 4,
        4..=11 => 5,
        12..=23 => 6,
        24..=47 => 7,
        _ => 8,
    }
}

/// First byte value (`i`) whose top bits are the code of `u`: the code, left-aligned in
/// 8 bits. Groups of equal length are consecutive, so each code covers `2^(8-len)` bytes.
const fn code_start(u: usize) -> usize {
    match u {
        0 => 0x00,
        1..=3 => 0x20 + (u - 1) * 16,
        4..=11 => 0x50 + (u - 4) * 8,
        12..=23 => 0x90 + (u - 12) * 4,
        24..=47 => 0xC0 + (u - 24) * 2,
        _ => 0xF0 + (u - 48),
    }
}

/// Decoder table: first byte -> (upper 6 bits, code length).
const DECODE_TABLE: [(u8, u8); 256] = {
    let mut t = [(0u8, 0u8); 256];
    let mut u = 0;
    while u < 64 {
        let len = code_len(u);
        let start = code_start(u);
        let mut i = 0;
        while i < (1 << (8 - len)) {
            t[start + i] = (u as u8, len as u8);
            i += 1;
        }
        u += 1;
    }
    t
};

/// The most bytes `packed_len` packed bytes can decode to: `packed_len * 48 + 60`.
pub fn max_unpacked(packed_len: usize) -> u64 {
    (packed_len as u64)
        .saturating_mul(MAX_RATIO)
        .saturating_add(MAX_MATCH as u64)
}

fn decode_position(bits: &mut BitReader<'_>) -> Result<usize, RsliError> {
    let i = bits.bits(8)?;
    let (upper, len) = DECODE_TABLE[i as usize];
    let extra = u32::from(len) - 2;
    let lower = ((i << extra) | bits.bits(extra)?) & 0x3F;
    Ok((usize::from(upper) << 6) | lower as usize)
}

fn encode_position(distance: usize, out: &mut BitWriter) {
    let u = distance >> 6;
    let len = code_len(u);
    out.bits(len, (code_start(u) >> (8 - len)) as u32);
    out.bits(6, (distance & 0x3F) as u32);
}

/// Decodes an LZHUF stream to exactly `unpacked_size` bytes.
///
/// Errors: [`RsliError::ImplausibleSize`] (before allocating) when `unpacked_size`
/// exceeds [`max_unpacked`], [`RsliError::InputTruncated`] when the bits run out.
/// Never panics; allocates at most `unpacked_size` bytes of output plus the tree.
pub fn decode(input: &[u8], unpacked_size: usize) -> Result<Vec<u8>, RsliError> {
    super::check_plausible(CODEC, input.len(), unpacked_size, max_unpacked(input.len()))?;
    let mut out = Vec::with_capacity(unpacked_size);
    if unpacked_size == 0 {
        return Ok(out);
    }
    let mut bits = BitReader::new(input, unpacked_size);
    let mut tree = Tree::new();
    let mut ring = [0x20u8; WINDOW];
    let mut r = START_POSITION;
    while out.len() < unpacked_size {
        bits.set_produced(out.len());
        let c = tree.decode(&mut bits)?;
        if c < 256 {
            // c < 256: the cast is exact.
            let b = c as u8;
            out.push(b);
            ring[r] = b;
            r = (r + 1) & (WINDOW - 1);
        } else {
            let distance = decode_position(&mut bits)?;
            let src = r.wrapping_sub(distance + 1) & (WINDOW - 1);
            let len = c - 253;
            for k in 0..len {
                if out.len() == unpacked_size {
                    break;
                }
                let b = ring[(src + k) & (WINDOW - 1)];
                out.push(b);
                ring[r] = b;
                r = (r + 1) & (WINDOW - 1);
            }
        }
    }
    Ok(out)
}

/// Encodes `data` as a classic LZHUF stream (no length header) that [`decode`] turns
/// back into `data`. Deterministic; greedy longest match; the final byte is padded with
/// zero bits; references never point at ring slots `0xFC4..=0xFFF` before they are
/// written (classic decoders leave them uninitialised).
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut m = Matcher::new(data, MAX_MATCH, MAX_MATCH);
    let mut tree = Tree::new();
    let mut out = BitWriter::default();
    let mut v = WINDOW;
    while v < m.len() {
        m.insert_up_to(v);
        let (src, len) = m.find(v);
        if len >= 3 {
            tree.encode(253 + len, &mut out);
            encode_position(v - src - 1, &mut out);
            v += len;
        } else {
            tree.encode(usize::from(m.byte(v)), &mut out);
            v += 1;
        }
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_table_matches_the_spec_ranges() {
        let expect = [
            (0..=31, 0..=0, 3),
            (32..=79, 1..=3, 4),
            (80..=143, 4..=11, 5),
            (144..=191, 12..=23, 6),
            (192..=239, 24..=47, 7),
            (240..=255, 48..=63, 8),
        ];
        for (range, uppers, len) in expect {
            for i in range {
                let (u, l) = DECODE_TABLE[i];
                assert!(uppers.contains(&u), "i={i} u={u}");
                assert_eq!(l, len, "i={i}");
            }
        }
    }

    #[test]
    fn classic_position_coding_roundtrips_every_distance() {
        let mut w = BitWriter::default();
        for d in 0..4096 {
            encode_position(d, &mut w);
        }
        let bytes = w.finish();
        let mut r = BitReader::new(&bytes, 0);
        for d in 0..4096 {
            assert_eq!(decode_position(&mut r).unwrap(), d);
        }
    }

    #[test]
    fn classic_low_bits_differ_from_the_fparkan_variant() {
        // Distance 0x0FF: upper 3 (code 0b0100, 4 bits), lower 0b111111.
        // Bits: 0100 111111 -> first byte 0b0100_1111 = 0x4F, then 2 extra bits 11.
        let mut r = BitReader::new(&[0x4F, 0xC0], 0);
        assert_eq!(decode_position(&mut r).unwrap(), 0x0FF);
        // Classic: ((0x4F << 2) | 0b11) & 0x3F = 0x3F. The FParkan variant would OR
        // (0x4F & 0x3F) = 0x0F with the 2 extra bits = 0x0F, giving 0x0CF instead.
    }

    #[test]
    fn classic_vectors_from_an_independent_implementation() {
        // Produced by a separate C implementation of classic Okumura/Yoshizaki LZHUF
        // (F = 60, the position tables above, no length header), written for this check.
        // The streams use matches (distance < 64 and into the initial space fill) and
        // cross the adaptive tree updates.
        let v1 = [
            0xE6, 0xF3, 0xBB, 0xD8, 0xBC, 0xFC, 0x1D, 0x08, 0xD0, 0x35, 0x08, 0x2F, 0x5A,
        ];
        assert_eq!(
            decode(&v1, 36).unwrap(),
            b"ABRACADABRA ABRACADABRA ABRACADABRA!"
        );
        let v2 = [
            0x8F, 0x00, 0x7F, 0xFF, 0x9E, 0xDF, 0x7F, 0xC7, 0x13, 0x59, 0xF2, 0xFA, 0xFF, 0xAE,
            0x80, 0x6E, 0x2F, 0xEE, 0x7E, 0x98, 0x1F, 0xA9, 0x10, 0x96, 0x17, 0xCE, 0xB5, 0xED,
            0xB6, 0x28, 0x94,
        ];
        assert_eq!(
            decode(&v2, 43).unwrap(),
            b"      spaces first, then spaces again      "
        );
    }

    #[test]
    fn encoder_output_decodes_back() {
        let data = b"LZHUF adaptive huffman, LZHUF adaptive huffman, lzss window ".repeat(50);
        let packed = encode(&data);
        assert!(packed.len() < data.len() / 5, "{}", packed.len());
        assert_eq!(decode(&packed, data.len()).unwrap(), data);
        assert_eq!(decode(&encode(&[]), 0).unwrap(), b"");
    }

    #[test]
    fn long_input_crosses_tree_rebuilds() {
        // > 0x8000 symbols force several rebuilds.
        let data: Vec<u8> = (0..120_000u32)
            .map(|i| ((i * 7919) % 251) as u8 ^ (i >> 9) as u8)
            .collect();
        let packed = encode(&data);
        assert_eq!(decode(&packed, data.len()).unwrap(), data);
    }

    #[test]
    fn truncated_and_implausible_inputs_are_errors() {
        let packed = encode(b"some text to compress, some text to compress");
        assert!(matches!(
            decode(&packed[..packed.len() / 2], 44),
            Err(RsliError::InputTruncated { codec: "lzhuf", .. })
        ));
        assert!(matches!(
            decode(&[], 1),
            Err(RsliError::ImplausibleSize { .. }) | Err(RsliError::InputTruncated { .. })
        ));
        assert!(matches!(
            decode(&[0; 2], 1000),
            Err(RsliError::ImplausibleSize { limit: 156, .. })
        ));
    }
}
