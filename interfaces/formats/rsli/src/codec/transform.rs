//! The RsLi byte-stream transform (FORMATS.md §3.4): one XOR keystream used both for the
//! entry table (keyed by the header seed) and for payload methods 0x020/0x060/0x0A0
//! (keyed by the entry's sort field).
//!
//! ```text
//! state: lo = key & 0xFF, hi = key >> 8
//! per byte:  lo  = hi ^ ((lo << 1) & 0xFF)
//!            out = in ^ lo
//!            hi  = lo ^ (hi >> 1)
//! ```
//!
//! The keystream does not depend on the data, so the transform is its own inverse.

/// The running two-byte state of the transform. It never restarts by itself: feeding a
/// table through one `Keystream` in pieces equals feeding it in one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keystream {
    lo: u8,
    hi: u8,
}

impl Keystream {
    /// A keystream seeded from a 16-bit key (`lo = key & 0xFF`, `hi = key >> 8`).
    pub const fn new(key: u16) -> Self {
        let [lo, hi] = key.to_le_bytes();
        Keystream { lo, hi }
    }

    /// XORs `data` in place with the next `data.len()` keystream bytes.
    pub fn apply(&mut self, data: &mut [u8]) {
        for b in data {
            *b ^= self.next_byte();
        }
    }

    /// The next keystream byte.
    pub fn next_byte(&mut self) -> u8 {
        self.lo = self.hi ^ (self.lo << 1);
        let k = self.lo;
        self.hi = self.lo ^ (self.hi >> 1);
        k
    }
}

/// Transforms `data` in place with a fresh keystream for `key` (encode = decode).
pub fn apply(data: &mut [u8], key: u16) {
    Keystream::new(key).apply(data);
}

/// A transformed copy of `data` (encode = decode); the output has `data.len()` bytes.
pub fn transformed(data: &[u8], key: u16) -> Vec<u8> {
    let mut out = data.to_vec();
    apply(&mut out, key);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector_seed_0x1234() {
        // FORMATS.md §3.4 test vector.
        assert_eq!(transformed(&[0, 1, 2, 3], 0x1234), [0x7A, 0x86, 0xB2, 0x8C]);
    }

    #[test]
    fn known_vector_keystream_by_hand() {
        // Worked by hand from the recurrence: key 0x0001 -> lo=1, hi=0.
        // 1: lo = 0 ^ 2 = 0x02, hi = 0x02 ^ 0 = 0x02
        // 2: lo = 0x02 ^ 0x04 = 0x06, hi = 0x06 ^ 0x01 = 0x07
        // 3: lo = 0x07 ^ 0x0C = 0x0B, hi = 0x0B ^ 0x03 = 0x08
        // 4: lo = 0x08 ^ 0x16 = 0x1E, hi = 0x1E ^ 0x04 = 0x1A
        assert_eq!(transformed(&[0; 4], 0x0001), [0x02, 0x06, 0x0B, 0x1E]);
        // Key 0 is the identity (the state stays zero).
        assert_eq!(transformed(&[9, 8, 7], 0), [9, 8, 7]);
    }

    #[test]
    fn state_runs_across_calls_and_the_transform_is_an_involution() {
        let data: Vec<u8> = (0..=255).collect();
        let whole = transformed(&data, 0xBEEF);
        let mut ks = Keystream::new(0xBEEF);
        let mut parts = data.clone();
        let (a, b) = parts.split_at_mut(32);
        ks.apply(a);
        ks.apply(b);
        assert_eq!(parts, whole);
        // Restarting at 32 bytes gives a different stream.
        let mut restarted = data.clone();
        apply(&mut restarted[..32], 0xBEEF);
        apply(&mut restarted[32..], 0xBEEF);
        assert_ne!(restarted, whole);
        assert_eq!(transformed(&whole, 0xBEEF), data);
    }
}
