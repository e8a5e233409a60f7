//! LZSS (RsLi methods 0x040/0x060, FORMATS.md §3.5.1): a 4096-byte ring pre-filled with
//! `0x20`, writing from `0xFEE`, 8 flags per control byte (LSB first, 1 = literal).
//!
//! ```text
//! control byte: bit0 .. bit7, one per item, 1 = literal byte, 0 = reference:
//!   b0 b1 -> position = b0 | (b1 & 0xF0) << 4   (ring index, 12 bits)
//!            length   = (b1 & 0x0F) + 3         (3..=18)
//! ```
//!
//! Decoding stops as soon as the declared size is produced, even inside a reference;
//! packed bytes left over after that are not read.

use super::matcher::{Matcher, WINDOW};
use crate::error::RsliError;

const CODEC: &str = "lzss";
/// Ring write position at the start of a stream.
pub const START_POSITION: usize = 0xFEE;
/// Longest reference.
pub const MAX_MATCH: usize = 18;
/// Largest output the decoder can produce per packed byte, rounded up: a reference gives
/// 18 bytes for 17 bits (8.47 bytes per byte).
pub const MAX_RATIO: u64 = 9;

/// The most bytes `packed_len` packed bytes can decode to: `packed_len * 9 + 18`.
pub fn max_unpacked(packed_len: usize) -> u64 {
    (packed_len as u64)
        .saturating_mul(MAX_RATIO)
        .saturating_add(MAX_MATCH as u64)
}

/// Decodes an LZSS stream to exactly `unpacked_size` bytes.
///
/// Errors: [`RsliError::ImplausibleSize`] (before allocating) when `unpacked_size`
/// exceeds [`max_unpacked`], [`RsliError::InputTruncated`] when the stream ends early.
/// Never panics; allocates at most `unpacked_size` bytes of output.
pub fn decode(input: &[u8], unpacked_size: usize) -> Result<Vec<u8>, RsliError> {
    super::check_plausible(CODEC, input.len(), unpacked_size, max_unpacked(input.len()))?;
    let mut out = Vec::with_capacity(unpacked_size);
    let mut ring = [0x20u8; WINDOW];
    let mut r = START_POSITION;
    let mut pos = 0usize;
    let mut flags = 0u32; // bit 8 set while control bits remain
    let truncated = |pos, produced| RsliError::InputTruncated {
        codec: CODEC,
        offset: pos,
        produced,
        expected: unpacked_size,
    };
    while out.len() < unpacked_size {
        flags >>= 1;
        if flags & 0x100 == 0 {
            let &c = input.get(pos).ok_or_else(|| truncated(pos, out.len()))?;
            pos += 1;
            flags = u32::from(c) | 0xFF00;
        }
        if flags & 1 != 0 {
            let &b = input.get(pos).ok_or_else(|| truncated(pos, out.len()))?;
            pos += 1;
            out.push(b);
            ring[r] = b;
            r = (r + 1) & (WINDOW - 1);
        } else {
            let (Some(&b0), Some(&b1)) = (input.get(pos), input.get(pos + 1)) else {
                return Err(truncated(pos, out.len()));
            };
            pos += 2;
            let src = usize::from(b0) | (usize::from(b1 & 0xF0) << 4);
            let len = usize::from(b1 & 0x0F) + 3;
            for i in 0..len {
                if out.len() == unpacked_size {
                    break;
                }
                let b = ring[(src + i) & (WINDOW - 1)];
                out.push(b);
                ring[r] = b;
                r = (r + 1) & (WINDOW - 1);
            }
        }
    }
    Ok(out)
}

/// Encodes `data` as an LZSS stream that [`decode`] (and a classic Okumura decoder)
/// turns back into `data`. Deterministic: the same input always gives the same bytes.
/// Greedy longest match, references never point at ring slots `0xFEE..=0xFFF` before
/// they are written.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut m = Matcher::new(data, MAX_MATCH, MAX_MATCH);
    let mut out = Vec::with_capacity(data.len() + data.len() / 8 + 1);
    let mut control_at = 0usize;
    let mut items = 8u32;
    let mut v = WINDOW;
    while v < m.len() {
        if items == 8 {
            control_at = out.len();
            out.push(0);
            items = 0;
        }
        m.insert_up_to(v);
        let (src, len) = m.find(v);
        if len >= 3 {
            let p = (src + START_POSITION) & (WINDOW - 1);
            // p < 4096 and 3 <= len <= 18: both fit their bit fields.
            out.push((p & 0xFF) as u8);
            out.push((((p >> 4) & 0xF0) | (len - 3)) as u8);
            v += len;
        } else {
            out[control_at] |= 1 << items;
            out.push(m.byte(v));
            v += 1;
        }
        items += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_reference_into_the_initial_space_fill() {
        // Control 0x00: first item is a reference; position 0x000, length 3.
        assert_eq!(decode(&[0x00, 0x00, 0x00], 3).unwrap(), b"   ");
        // Position 0x123 length 18, still untouched fill.
        assert_eq!(decode(&[0x00, 0x23, 0x1F], 18).unwrap(), [0x20; 18]);
    }

    #[test]
    fn vector_start_position_is_0xfee_and_overlapping_copy() {
        // Literal 'A' lands at 0xFEE; a reference to 0xFEE of length 3 repeats it while
        // it is being written. Any other start position would copy spaces.
        let stream = [0x01, b'A', 0xEE, 0xF0];
        assert_eq!(decode(&stream, 4).unwrap(), b"AAAA");
    }

    #[test]
    fn vector_window_wrap_around() {
        // 20 literals fill 0xFEE..=0xFFF (A..R) and wrap to 0x000 (S), 0x001 (T);
        // a reference at 0xFFE of length 4 reads across the wrap: Q R S T.
        let mut stream = vec![0xFF];
        stream.extend_from_slice(b"ABCDEFGH");
        stream.push(0xFF);
        stream.extend_from_slice(b"IJKLMNOP");
        stream.push(0x0F);
        stream.extend_from_slice(b"QRST");
        stream.extend_from_slice(&[0xFE, 0xF1]);
        assert_eq!(decode(&stream, 24).unwrap(), b"ABCDEFGHIJKLMNOPQRSTQRST");
    }

    #[test]
    fn classic_vectors_from_an_independent_implementation() {
        // Produced by a separate C implementation of classic Okumura LZSS (N = 4096,
        // F = 18, r = 0xFEE), written for this check.
        let v1 = [
            0x7F, 0x41, 0x42, 0x52, 0x41, 0x43, 0x41, 0x44, 0xEE, 0xF1, 0x04, 0xED, 0xFF, 0xFF,
            0xF3, 0x21,
        ];
        assert_eq!(
            decode(&v1, 36).unwrap(),
            b"ABRACADABRA ABRACADABRA ABRACADABRA!"
        );
        // Starts with a reference into the initial 0x20 fill.
        let v2 = [
            0xFE, 0xED, 0xF3, 0x73, 0x70, 0x61, 0x63, 0x65, 0x73, 0x20, 0xFF, 0x66, 0x69, 0x72,
            0x73, 0x74, 0x2C, 0x20, 0x74, 0xF7, 0x68, 0x65, 0x6E, 0xF3, 0xF5, 0x61, 0x67, 0x61,
            0x69, 0x01, 0x6E, 0xDC, 0xF3,
        ];
        assert_eq!(
            decode(&v2, 43).unwrap(),
            b"      spaces first, then spaces again      "
        );
    }

    #[test]
    fn stops_inside_a_reference_at_the_declared_size() {
        assert_eq!(decode(&[0x00, 0x00, 0x0F], 5).unwrap(), b"     ");
        // Unused control bits and trailing bytes are not read.
        assert_eq!(decode(&[0x01, b'x', 0xAA, 0xBB], 1).unwrap(), b"x");
        assert_eq!(decode(&[], 0).unwrap(), b"");
    }

    #[test]
    fn truncated_inputs_are_errors() {
        for (input, size) in [(&[][..], 1), (&[0x01][..], 1), (&[0x00, 0x00][..], 3)] {
            assert!(matches!(
                decode(input, size),
                Err(RsliError::InputTruncated { codec: "lzss", .. })
            ));
        }
    }

    #[test]
    fn implausible_size_is_rejected_before_allocation() {
        let err = decode(&[0u8; 4], usize::MAX).unwrap_err();
        assert!(
            matches!(err, RsliError::ImplausibleSize { limit: 54, .. }),
            "{err}"
        );
        // The bound is reachable: 17 bytes of maximal references decode to 144 <= 171.
        let mut stream = vec![0x00];
        stream.extend_from_slice(&[0x00, 0x0F].repeat(8));
        assert_eq!(decode(&stream, 144).unwrap(), [0x20; 144]);
    }

    #[test]
    fn encoder_output_decodes_back_and_uses_references() {
        let data = b"the quick brown fox jumps over the lazy dog; the quick brown fox".repeat(40);
        let packed = encode(&data);
        assert!(packed.len() < data.len() / 4, "{}", packed.len());
        assert_eq!(decode(&packed, data.len()).unwrap(), data);
        // Spaces are found in the initial fill.
        let spaces = [0x20u8; 100];
        let packed = encode(&spaces);
        assert!(packed.len() < 20);
        assert_eq!(decode(&packed, 100).unwrap(), spaces);
        assert_eq!(encode(&[]), Vec::<u8>::new());
    }

    #[test]
    fn encoder_references_reach_4096_bytes_back() {
        let mut data: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let head = data[..64].to_vec();
        data.extend_from_slice(&head);
        let packed = encode(&data);
        assert_eq!(decode(&packed, data.len()).unwrap(), data);
    }
}
