//! Raw Deflate (RsLi method 0x100, FORMATS.md §3.5.3): RFC 1951 without a zlib wrapper,
//! through `flate2`. The stream must end (final block) after exactly the declared size.

use crate::error::RsliError;
use flate2::{Compression, Decompress, FlushDecompress, Status};
use std::io::Read;

const CODEC: &str = "deflate";
/// Largest Deflate expansion: a 258-byte match costs at least 2 bits, 1032 bytes per
/// packed byte.
pub const MAX_RATIO: u64 = 1032;
/// Output is grown in steps of at most this many bytes, so memory follows what the
/// stream really produces rather than what the header claims.
const GROW_STEP: usize = 1 << 20;

/// The most bytes `packed_len` packed bytes can inflate to: `packed_len * 1032 + 258`.
pub fn max_unpacked(packed_len: usize) -> u64 {
    (packed_len as u64)
        .saturating_mul(MAX_RATIO)
        .saturating_add(258)
}

/// Inflates a raw Deflate stream that must produce exactly `unpacked_size` bytes.
///
/// Errors: [`RsliError::ImplausibleSize`] before allocating, [`RsliError::DeflateCorrupt`]
/// for an invalid stream, [`RsliError::DeflateOverrun`] when it would produce more,
/// [`RsliError::InputTruncated`] when the input ends before the final block, and
/// [`RsliError::SizeMismatch`] when it ends short. Bytes after the final block are not
/// read. Never panics; output memory grows only as output is produced.
pub fn decode(input: &[u8], unpacked_size: usize) -> Result<Vec<u8>, RsliError> {
    super::check_plausible(CODEC, input.len(), unpacked_size, max_unpacked(input.len()))?;
    let mut inflater = Decompress::new(false);
    // One spare byte lets an overrun show up as output instead of a stalled stream.
    let cap = unpacked_size.saturating_add(1);
    let mut out: Vec<u8> = Vec::with_capacity(cap.min(GROW_STEP));
    loop {
        if out.len() == out.capacity() {
            out.reserve_exact((cap - out.len()).clamp(1, GROW_STEP));
        }
        let consumed = usize::try_from(inflater.total_in()).unwrap_or(usize::MAX);
        let rest = input.get(consumed..).unwrap_or_default();
        let produced_before = out.len();
        let status = inflater
            .decompress_vec(rest, &mut out, FlushDecompress::None)
            .map_err(|e| RsliError::DeflateCorrupt {
                offset: inflater.total_in(),
                message: e.to_string(),
            })?;
        if out.len() > unpacked_size {
            return Err(RsliError::DeflateOverrun {
                expected: unpacked_size,
            });
        }
        if status == Status::StreamEnd {
            break;
        }
        let now_consumed = usize::try_from(inflater.total_in()).unwrap_or(usize::MAX);
        if now_consumed == consumed && out.len() == produced_before {
            if now_consumed >= input.len() {
                return Err(RsliError::InputTruncated {
                    codec: CODEC,
                    offset: now_consumed,
                    produced: out.len(),
                    expected: unpacked_size,
                });
            }
            return Err(RsliError::DeflateCorrupt {
                offset: inflater.total_in(),
                message: "the inflater made no progress".into(),
            });
        }
    }
    if out.len() != unpacked_size {
        return Err(RsliError::SizeMismatch {
            codec: CODEC,
            produced: out.len(),
            expected: unpacked_size,
        });
    }
    Ok(out)
}

/// Compresses `data` into a raw Deflate stream (best compression). Deterministic for a
/// given `flate2` backend; [`decode`] turns it back into `data`.
pub fn encode(data: &[u8]) -> Result<Vec<u8>, RsliError> {
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    flate2::read::DeflateEncoder::new(data, Compression::best())
        .read_to_end(&mut out)
        .map_err(|e| RsliError::DeflateEncode {
            message: e.to_string(),
        })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_stored_block() {
        // BFINAL=1 BTYPE=00, LEN=5, NLEN=!5, "hello".
        let stream = [0x01, 0x05, 0x00, 0xFA, 0xFF, b'h', b'e', b'l', b'l', b'o'];
        assert_eq!(decode(&stream, 5).unwrap(), b"hello");
    }

    #[test]
    fn vector_fixed_huffman_with_a_back_reference() {
        // Fixed-Huffman block for "abcabcabcabc" as reference zlib writes it
        // (`compressobj(9, DEFLATED, -15, 9, Z_FIXED)`): literals a b c, then a
        // length-9 distance-3 match (overlapping copy), end of block.
        let stream = [0x4B, 0x4C, 0x4A, 0x4E, 0x84, 0x21, 0x00];
        assert_eq!(decode(&stream, 12).unwrap(), b"abcabcabcabc");
        // The empty fixed block.
        assert_eq!(decode(&[0x03, 0x00], 0).unwrap(), b"");
    }

    #[test]
    fn size_must_match_exactly() {
        let stream = [0x01, 0x05, 0x00, 0xFA, 0xFF, b'h', b'e', b'l', b'l', b'o'];
        assert_eq!(
            decode(&stream, 4),
            Err(RsliError::DeflateOverrun { expected: 4 })
        );
        assert!(matches!(
            decode(&stream, 6),
            Err(RsliError::SizeMismatch { produced: 5, .. })
        ));
        assert!(matches!(
            decode(&stream[..7], 5),
            Err(RsliError::InputTruncated { .. })
        ));
        assert!(matches!(
            decode(&[0xFF, 0xFF, 0xFF], 3),
            Err(RsliError::DeflateCorrupt { .. })
        ));
        assert!(matches!(
            decode(&[0x03, 0x00], 1_000_000),
            Err(RsliError::ImplausibleSize { .. })
        ));
        // Trailing bytes after the final block are not read.
        let mut padded = stream.to_vec();
        padded.push(0xEE);
        assert_eq!(decode(&padded, 5).unwrap(), b"hello");
    }

    #[test]
    fn encoder_output_decodes_back() {
        let data = b"deflate me, deflate me, deflate me".repeat(100);
        let packed = encode(&data).unwrap();
        assert!(packed.len() < 100);
        assert_eq!(decode(&packed, data.len()).unwrap(), data);
        assert_eq!(decode(&encode(&[]).unwrap(), 0).unwrap(), b"");
    }
}
