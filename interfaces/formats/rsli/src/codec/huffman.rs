//! The adaptive Huffman tree of LZHUF (Yoshizaki/Okumura), with the RsLi parameters of
//! FORMATS.md §3.5.2: 314 symbols (256 literals + 58 lengths), 627 nodes, root 626,
//! rebuilt when the root frequency reaches `0x8000`.
//!
//! ```text
//! node k < T: freq[k], children son[k] and son[k] + 1 (an internal node) or
//!             son[k] >= T (a leaf for symbol son[k] - T)
//! prnt[k]     parent of node k; prnt[T + c] is the node holding symbol c
//! freq[]      non-decreasing by node index (the sibling property), freq[T] = sentinel
//! ```
//!
//! Encoder and decoder update the tree identically after every symbol.

use super::bits::{BitReader, BitWriter};
use crate::error::RsliError;

/// Number of symbols: 256 literals + lengths 3..=60.
pub(crate) const N_CHAR: usize = 256 - 2 + 60;
const T: usize = N_CHAR * 2 - 1;
const R: usize = T - 1;
const MAX_FREQ: u32 = 0x8000;

/// The adaptive code tree.
pub(crate) struct Tree {
    freq: Box<[u32; T + 1]>,
    prnt: Box<[usize; T + N_CHAR]>,
    son: Box<[usize; T]>,
}

impl Tree {
    /// The initial tree: every symbol with frequency 1, paired bottom-up.
    pub(crate) fn new() -> Self {
        let mut t = Tree {
            freq: Box::new([0; T + 1]),
            prnt: Box::new([0; T + N_CHAR]),
            son: Box::new([0; T]),
        };
        for i in 0..N_CHAR {
            t.freq[i] = 1;
            t.son[i] = i + T;
            t.prnt[i + T] = i;
        }
        let mut i = 0;
        for j in N_CHAR..=R {
            t.freq[j] = t.freq[i] + t.freq[i + 1];
            t.son[j] = i;
            t.prnt[i] = j;
            t.prnt[i + 1] = j;
            i += 2;
        }
        t.freq[T] = 0xFFFF;
        t.prnt[R] = 0;
        t
    }

    /// Rebuilds the tree with every leaf frequency halved (rounding up).
    fn reconst(&mut self) {
        let mut j = 0;
        for i in 0..T {
            if self.son[i] >= T {
                self.freq[j] = self.freq[i].div_ceil(2);
                self.son[j] = self.son[i];
                j += 1;
            }
        }
        let mut i = 0;
        for j in N_CHAR..T {
            let f = self.freq[i] + self.freq[i + 1];
            // Insertion point: after the last node with freq <= f (stable for ties).
            let mut k = j;
            while k > 0 && f < self.freq[k - 1] {
                k -= 1;
            }
            self.freq.copy_within(k..j, k + 1);
            self.freq[k] = f;
            self.son.copy_within(k..j, k + 1);
            self.son[k] = i;
            i += 2;
        }
        for i in 0..T {
            let k = self.son[i];
            if k >= T {
                self.prnt[k] = i;
            } else {
                self.prnt[k] = i;
                self.prnt[k + 1] = i;
            }
        }
    }

    /// Counts one more occurrence of symbol `c` and restores the sibling property.
    fn update(&mut self, c: usize) {
        if self.freq[R] == MAX_FREQ {
            self.reconst();
        }
        let mut c = self.prnt[c + T];
        loop {
            self.freq[c] += 1;
            let k = self.freq[c];
            if k > self.freq[c + 1] {
                // Move past every node with a smaller frequency (the sentinel stops it).
                let mut l = c + 1;
                while k > self.freq[l + 1] {
                    l += 1;
                }
                self.freq[c] = self.freq[l];
                self.freq[l] = k;

                let i = self.son[c];
                self.prnt[i] = l;
                if i < T {
                    self.prnt[i + 1] = l;
                }
                let j = self.son[l];
                self.son[l] = i;
                self.prnt[j] = c;
                if j < T {
                    self.prnt[j + 1] = c;
                }
                self.son[c] = j;
                c = l;
            }
            c = self.prnt[c];
            if c == 0 {
                break;
            }
        }
    }

    /// Reads one symbol (walking from the root, one bit per level) and updates the tree.
    pub(crate) fn decode(&mut self, bits: &mut BitReader<'_>) -> Result<usize, RsliError> {
        let mut c = self.son[R];
        while c < T {
            c += bits.bit()? as usize;
            c = self.son[c];
        }
        let symbol = c - T;
        self.update(symbol);
        Ok(symbol)
    }

    /// Writes the code of `symbol` (root first) and updates the tree.
    pub(crate) fn encode(&mut self, symbol: usize, out: &mut BitWriter) {
        // Leaf-to-root path; the tree depth is below T, so a fixed stack suffices.
        let mut path = [0u8; T];
        let mut depth = 0;
        let mut k = self.prnt[symbol + T];
        loop {
            path[depth] = (k & 1) as u8;
            depth += 1;
            k = self.prnt[k];
            if k == R {
                break;
            }
        }
        for &b in path[..depth].iter().rev() {
            out.bit(b);
        }
        self.update(symbol);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_sibling_property(t: &Tree) {
        for k in 0..T - 1 {
            assert!(t.freq[k] <= t.freq[k + 1], "freq order at {k}");
        }
        for k in 0..T {
            let s = t.son[k];
            if s >= T {
                assert_eq!(t.prnt[s], k);
            } else {
                assert_eq!(t.prnt[s], k);
                assert_eq!(t.prnt[s + 1], k);
                assert_eq!(t.freq[k], t.freq[s] + t.freq[s + 1], "sum at {k}");
            }
        }
    }

    #[test]
    fn updates_and_rebuilds_keep_the_sibling_property() {
        let mut t = Tree::new();
        check_sibling_property(&t);
        // Enough updates to cross MAX_FREQ (starting root frequency 314) several times.
        for n in 0..(3 * MAX_FREQ as usize) {
            t.update((n * n + n / 7) % 37 + if n % 5 == 0 { 250 } else { 0 });
            if n % 4099 == 0 {
                check_sibling_property(&t);
            }
            assert!(t.freq[R] <= MAX_FREQ);
        }
        check_sibling_property(&t);
    }
}
