//! Storage methods: the seven values of `flags & 0x1E0` (FORMATS.md §3.5).

use std::fmt;

/// Mask of the storage-method bits inside an entry's `flags`.
pub const METHOD_MASK: u16 = 0x1E0;

/// How an entry's payload is stored. Every other `flags & 0x1E0` value is rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// `0x000`: the bytes as they are.
    Raw,
    /// `0x020`: the byte-stream transform (§3.4) keyed by the entry's sort field.
    Transform,
    /// `0x040`: LZSS (§3.5.1).
    Lzss,
    /// `0x060`: transform, then LZSS.
    TransformLzss,
    /// `0x080`: adaptive Huffman + LZSS (LZHUF, §3.5.2). Code-only in the original.
    Lzhuf,
    /// `0x0A0`: transform, then adaptive Huffman + LZSS. Code-only in the original.
    TransformLzhuf,
    /// `0x100`: raw Deflate (RFC 1951, no zlib wrapper, §3.5.3).
    Deflate,
}

impl Method {
    /// All seven methods, in ascending bit order.
    pub const ALL: [Method; 7] = [
        Method::Raw,
        Method::Transform,
        Method::Lzss,
        Method::TransformLzss,
        Method::Lzhuf,
        Method::TransformLzhuf,
        Method::Deflate,
    ];

    /// The method named by `flags & 0x1E0`, or `None` for an unsupported value.
    pub const fn from_flags(flags: u16) -> Option<Method> {
        match flags & METHOD_MASK {
            0x000 => Some(Method::Raw),
            0x020 => Some(Method::Transform),
            0x040 => Some(Method::Lzss),
            0x060 => Some(Method::TransformLzss),
            0x080 => Some(Method::Lzhuf),
            0x0A0 => Some(Method::TransformLzhuf),
            0x100 => Some(Method::Deflate),
            _ => None,
        }
    }

    /// The method's bits (always inside [`METHOD_MASK`]).
    pub const fn bits(self) -> u16 {
        match self {
            Method::Raw => 0x000,
            Method::Transform => 0x020,
            Method::Lzss => 0x040,
            Method::TransformLzss => 0x060,
            Method::Lzhuf => 0x080,
            Method::TransformLzhuf => 0x0A0,
            Method::Deflate => 0x100,
        }
    }

    /// Whether the packed bytes pass through the §3.4 transform (0x020, 0x060, 0x0A0).
    pub const fn is_transformed(self) -> bool {
        matches!(
            self,
            Method::Transform | Method::TransformLzss | Method::TransformLzhuf
        )
    }

    /// Whether the packed bytes map 1:1 onto the unpacked bytes (0x000, 0x020), which
    /// requires `packed_size == unpacked_size`.
    pub const fn is_stored(self) -> bool {
        matches!(self, Method::Raw | Method::Transform)
    }

    /// A short lower-case name (`raw`, `transform`, `lzss`, `transform+lzss`, `lzhuf`,
    /// `transform+lzhuf`, `deflate`), stable for CLI output.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Raw => "raw",
            Method::Transform => "transform",
            Method::Lzss => "lzss",
            Method::TransformLzss => "transform+lzss",
            Method::Lzhuf => "lzhuf",
            Method::TransformLzhuf => "transform+lzhuf",
            Method::Deflate => "deflate",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#05x} {}", self.bits(), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_roundtrips_through_its_bits_and_other_masks_are_rejected() {
        for m in Method::ALL {
            assert_eq!(Method::from_flags(m.bits()), Some(m));
            // Bits outside the mask never change the method.
            assert_eq!(Method::from_flags(m.bits() | 0xFE1F), Some(m));
        }
        let known: Vec<u16> = Method::ALL.iter().map(|m| m.bits()).collect();
        for v in (0..=METHOD_MASK).step_by(0x20) {
            assert_eq!(
                Method::from_flags(v).is_some(),
                known.contains(&v),
                "{v:#x}"
            );
        }
        assert_eq!(Method::from_flags(0x0C0), None);
        assert_eq!(Method::Lzss.to_string(), "0x040 lzss");
    }
}
