//! Hash-chain match finder shared by the LZSS and LZHUF encoders.
//!
//! The encoders see a *virtual stream*: 4096 bytes of the decoder's initial `0x20` ring
//! fill followed by the data. Virtual index `v` of data byte `k` is `4096 + k`; at that
//! moment the decoder's ring holds exactly `V[v-4096 .. v]`, so any source `s` with
//! `v - 4096 <= s < v` is a valid reference (copies may overlap the bytes they produce).
//!
//! ```text
//! V: [ 0x20 x 4096 (initial ring fill) ][ data ... ]
//!      ^min_source                       ^4096 = first data byte
//! ```
//!
//! `min_source` keeps the encoders away from the ring slots that classic decoders leave
//! uninitialised (the last `F` slots before the start position); our decoders fill the
//! whole ring with `0x20`, but streams we write never depend on that.

/// Ring window size shared by both LZ codecs.
pub(crate) const WINDOW: usize = 4096;

const HASH_BITS: u32 = 14;
const NIL: u32 = u32::MAX;
/// Longest hash chain walked per position; bounds encoder time on repetitive input.
const MAX_CHAIN: usize = 256;

/// Greedy longest-match search over the virtual stream.
pub(crate) struct Matcher {
    v: Vec<u8>,
    head: Vec<u32>,
    prev: Vec<u32>,
    max_len: usize,
    min_source: usize,
    /// Next virtual index not yet inserted into the chains.
    inserted: usize,
}

impl Matcher {
    /// A matcher over `data`, with matches of at most `max_len` bytes and sources at
    /// virtual index `>= min_source`.
    pub(crate) fn new(data: &[u8], max_len: usize, min_source: usize) -> Self {
        let mut v = Vec::with_capacity(WINDOW + data.len());
        v.resize(WINDOW, 0x20);
        v.extend_from_slice(data);
        let mut m = Matcher {
            head: vec![NIL; 1 << HASH_BITS],
            prev: vec![NIL; v.len()],
            v,
            max_len,
            min_source,
            inserted: min_source,
        };
        m.insert_up_to(WINDOW);
        m
    }

    /// Length of the virtual stream (`4096 + data.len()`).
    pub(crate) fn len(&self) -> usize {
        self.v.len()
    }

    /// The byte at virtual index `v`.
    pub(crate) fn byte(&self, v: usize) -> u8 {
        self.v[v]
    }

    fn hash(&self, v: usize) -> Option<usize> {
        let b = self.v.get(v..v + 3)?;
        let x = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
        Some((x.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize)
    }

    /// Inserts every virtual position below `end` into the hash chains.
    pub(crate) fn insert_up_to(&mut self, end: usize) {
        while self.inserted < end {
            let v = self.inserted;
            if let Some(h) = self.hash(v) {
                self.prev[v] = self.head[h];
                // Virtual streams are < 4 GiB: the encoders' callers pass u32-sized payloads.
                self.head[h] = u32::try_from(v).unwrap_or(NIL);
            }
            self.inserted += 1;
        }
    }

    /// The longest match for virtual position `v` (`v >= 4096`): `(source, length)`,
    /// preferring the nearest source on ties; length 0 when nothing of 3+ bytes matches.
    /// Positions below `v` must already be inserted.
    pub(crate) fn find(&self, v: usize) -> (usize, usize) {
        let limit = self.max_len.min(self.v.len() - v);
        let mut best = (0, 0);
        if limit < 3 {
            return best;
        }
        let Some(h) = self.hash(v) else { return best };
        let lowest = v.saturating_sub(WINDOW).max(self.min_source);
        let mut cand = self.head[h];
        let mut walked = 0;
        while cand != NIL && walked < MAX_CHAIN {
            let s = cand as usize;
            if s < lowest {
                break;
            }
            if s < v {
                let len = self.v[s..]
                    .iter()
                    .zip(&self.v[v..v + limit])
                    .take_while(|(a, b)| a == b)
                    .count();
                if len > best.1 {
                    best = (s, len);
                    if len == limit {
                        break;
                    }
                }
            }
            cand = self.prev[s];
            walked += 1;
        }
        if best.1 < 3 { (0, 0) } else { best }
    }
}
