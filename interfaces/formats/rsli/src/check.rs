//! Invariant checks shared by the fuzz targets (`fuzz/fuzz_targets/rsli*.rs`) and the
//! corpus replay test: each returns `Err(description)` when this crate breaks one of its
//! own guarantees on the given input. Rejecting malformed input is not a violation.

use crate::codec;
use crate::{ReadOptions, Rsli};

/// `rsli` target: strict and compatible parses either fail or give an archive whose
/// `to_bytes()` is the input, whose entries decode to exactly `unpacked_size` bytes or
/// fail, and whose upper-case names are all found by lookup. Strict success implies
/// compatible success with the same entries.
pub fn archive(data: &[u8]) -> Result<(), String> {
    let strict = Rsli::parse(data);
    let compatible = Rsli::parse_with(data, ReadOptions::compatible());
    if let (Ok(s), Err(e)) = (&strict, &compatible) {
        return Err(format!(
            "strict parse accepted ({} entries) but compatible rejected: {e}",
            s.len()
        ));
    }
    if let (Ok(s), Ok(c)) = (&strict, &compatible) {
        if s.entries() != c.entries() {
            return Err("strict and compatible parses disagree on the entries".into());
        }
    }
    for a in [strict, compatible].into_iter().flatten() {
        if a.to_bytes() != data {
            return Err("to_bytes() differs from the parsed input".into());
        }
        for e in a.entries() {
            if let Ok(v) = e.decode() {
                if v.len() as u64 != u64::from(e.unpacked_size()) {
                    return Err(format!(
                        "entry {} decoded to {} bytes, declared {}",
                        e.index(),
                        v.len(),
                        e.unpacked_size()
                    ));
                }
            }
            let name = e.name();
            if name == name.to_ascii_uppercase().as_slice() {
                match a.find_bytes(name) {
                    Some(f) if f.name() == name && f.index() <= e.index() => {}
                    other => {
                        return Err(format!(
                            "lookup of entry {} {:?} returned {:?}",
                            e.index(),
                            e.display_name(),
                            other.map(|f| f.index())
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Splits a fuzz input into a declared size and a packed stream: first byte even ->
/// the next 2 bytes are a u16 size, odd -> the next 4 bytes are a u32 size.
pub fn split_size(data: &[u8]) -> (usize, &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return (0, data);
    };
    let width = if mode & 1 == 0 { 2 } else { 4 };
    let (size_bytes, stream) = rest.split_at(width.min(rest.len()));
    let mut b = [0u8; 4];
    b[..size_bytes.len()].copy_from_slice(size_bytes);
    (u32::from_le_bytes(b) as usize, stream)
}

type Decoder = fn(&[u8], usize) -> Result<Vec<u8>, crate::RsliError>;

fn codec_check(
    name: &str,
    data: &[u8],
    decode: Decoder,
    encode: &dyn Fn(&[u8]) -> Vec<u8>,
) -> Result<(), String> {
    let (size, stream) = split_size(data);
    if let Ok(v) = decode(stream, size) {
        if v.len() != size {
            return Err(format!(
                "{name}: decoded {} bytes, declared {size}",
                v.len()
            ));
        }
    }
    let packed = encode(stream);
    match decode(&packed, stream.len()) {
        Ok(v) if v == stream => Ok(()),
        Ok(_) => Err(format!("{name}: encode/decode roundtrip changed the data")),
        Err(e) => Err(format!("{name}: encoder output does not decode: {e}")),
    }
}

/// `rsli_lzss` target: LZSS decoding of arbitrary input with an arbitrary declared size
/// gives an error or exactly that size; encoding the stream decodes back to it.
pub fn lzss(data: &[u8]) -> Result<(), String> {
    codec_check("lzss", data, codec::lzss::decode, &codec::lzss::encode)
}

/// `rsli_lzhuf` target: as [`lzss`], for LZHUF.
pub fn lzhuf(data: &[u8]) -> Result<(), String> {
    codec_check("lzhuf", data, codec::lzhuf::decode, &codec::lzhuf::encode)
}

/// `rsli_deflate` target: as [`lzss`], for raw Deflate.
pub fn deflate(data: &[u8]) -> Result<(), String> {
    let encode = |d: &[u8]| codec::deflate::encode(d).unwrap_or_default();
    codec_check("deflate", data, codec::deflate::decode, &encode)
}
