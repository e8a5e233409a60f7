//! Payload codecs, one module per storage building block, plus [`decode`]/[`encode`]
//! dispatching on a [`Method`].
//!
//! ```text
//! method  packed bytes on disk                    decode path
//! 0x000   data                                    copy
//! 0x020   T(data)                                 T
//! 0x040   lzss(data)                              lzss
//! 0x060   T(lzss(data))                           T, then lzss
//! 0x080   lzhuf(data)                             lzhuf
//! 0x0A0   T(lzhuf(data))                          T, then lzhuf
//! 0x100   deflate(data)                           inflate
//! T = the §3.4 transform keyed by the entry's sort field (see `Entry::transform_key`)
//! ```
//!
//! Every decoder first checks the declared size against the most its packed input can
//! produce (`max_unpacked`) and fails before allocating when it is impossible:
//! stored methods 1:1, LZSS 9x + 18, LZHUF 48x + 60, Deflate 1032x + 258.

pub(crate) mod bits;
pub mod deflate;
pub(crate) mod huffman;
pub mod lzhuf;
pub mod lzss;
pub(crate) mod matcher;
pub mod transform;

use crate::error::RsliError;
use crate::method::Method;

/// Fails with [`RsliError::ImplausibleSize`] when `unpacked` exceeds `limit`.
pub(crate) fn check_plausible(
    codec: &'static str,
    packed: usize,
    unpacked: usize,
    limit: u64,
) -> Result<(), RsliError> {
    let unpacked = unpacked as u64;
    if unpacked > limit {
        return Err(RsliError::ImplausibleSize {
            codec,
            unpacked,
            packed,
            limit,
        });
    }
    Ok(())
}

/// The most bytes `packed_len` bytes stored with `method` can decode to.
pub fn max_unpacked(method: Method, packed_len: usize) -> u64 {
    match method {
        Method::Raw | Method::Transform => packed_len as u64,
        Method::Lzss | Method::TransformLzss => lzss::max_unpacked(packed_len),
        Method::Lzhuf | Method::TransformLzhuf => lzhuf::max_unpacked(packed_len),
        Method::Deflate => deflate::max_unpacked(packed_len),
    }
}

/// Decodes `packed` stored with `method` to exactly `unpacked_size` bytes; `key` is the
/// transform key (ignored by untransformed methods). Stored methods require
/// `packed.len() == unpacked_size`. Never panics.
pub fn decode(
    method: Method,
    packed: &[u8],
    unpacked_size: usize,
    key: u16,
) -> Result<Vec<u8>, RsliError> {
    match method {
        Method::Raw | Method::Transform => {
            if packed.len() != unpacked_size {
                return Err(RsliError::SizeMismatch {
                    codec: method.name(),
                    produced: packed.len(),
                    expected: unpacked_size,
                });
            }
            if method == Method::Raw {
                Ok(packed.to_vec())
            } else {
                Ok(transform::transformed(packed, key))
            }
        }
        Method::Lzss => lzss::decode(packed, unpacked_size),
        Method::TransformLzss => {
            check_plausible(
                "lzss",
                packed.len(),
                unpacked_size,
                lzss::max_unpacked(packed.len()),
            )?;
            lzss::decode(&transform::transformed(packed, key), unpacked_size)
        }
        Method::Lzhuf => lzhuf::decode(packed, unpacked_size),
        Method::TransformLzhuf => {
            check_plausible(
                "lzhuf",
                packed.len(),
                unpacked_size,
                lzhuf::max_unpacked(packed.len()),
            )?;
            lzhuf::decode(&transform::transformed(packed, key), unpacked_size)
        }
        Method::Deflate => deflate::decode(packed, unpacked_size),
    }
}

/// Encodes `data` with `method` (transform keyed by `key`); [`decode`] with the same
/// method and key returns `data`. Deterministic.
pub fn encode(method: Method, data: &[u8], key: u16) -> Result<Vec<u8>, RsliError> {
    Ok(match method {
        Method::Raw => data.to_vec(),
        Method::Transform => transform::transformed(data, key),
        Method::Lzss => lzss::encode(data),
        Method::TransformLzss => transform::transformed(&lzss::encode(data), key),
        Method::Lzhuf => lzhuf::encode(data),
        Method::TransformLzhuf => transform::transformed(&lzhuf::encode(data), key),
        Method::Deflate => deflate::encode(data)?,
    })
}
