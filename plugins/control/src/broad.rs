//! The broad phase: a uniform grid of [`CELL_SIZE`] cells over the horizontal plane.
//!
//! Every proxy's horizontal box is entered in each cell it touches; a pair of proxies
//! is a candidate when their boxes share a cell, they are not both static and the
//! boxes meet within [`CONTACT_MARGIN`]. The result is a pure function of the boxes
//! (never of memory addresses or hash order):
//!
//! * [`CellIndex`] lists, for each cell, the unit indices in it in ascending order. It
//!   is **dense** (one counting sort over the occupied rectangle of cells, O(n)) when
//!   that rectangle is small against the number of entries, and **sparse** (entries
//!   sorted by cell key) otherwise, e.g. for a few units scattered over a large map.
//!   Both answer every lookup identically (tested).
//! * [`pairs`] walks the units in ascending index order and, for each unit `i`,
//!   gathers the partners `j > i` from its cells, emitting a pair only from the first
//!   cell both boxes share; sorting each unit's few partners gives the pairs in
//!   ascending `(i, j)` order without sorting the whole list.
//! * A box spanning more than [`MAX_BOX_CELLS`] cells (a huge or wildly scaled proxy,
//!   far-away coordinates) is not entered in the grid: it is an **oversized** unit,
//!   paired with every other unit whose box meets it (**PD-CTRL-OVERSIZED**). This keeps
//!   the grid's memory and time bounded whatever the data says.

use crate::world::{CELL_SIZE, CONTACT_MARGIN};
use glam::Vec2;

/// Largest number of cells one box is entered in; larger boxes are oversized units.
pub const MAX_BOX_CELLS: i64 = 1024;

/// The cell rectangle of a box: `(x0, y0, x1, y1)`, inclusive.
pub type CellBox = (i32, i32, i32, i32);

/// The grid cell of a coordinate (clamped so far-away values stay finite).
pub fn cell_of(v: f32) -> i32 {
    (v / CELL_SIZE).floor().clamp(-1.0e9, 1.0e9) as i32
}

/// The cell rectangle of the horizontal box `lo..hi`.
pub fn cell_box(lo: Vec2, hi: Vec2) -> CellBox {
    (cell_of(lo.x), cell_of(lo.y), cell_of(hi.x), cell_of(hi.y))
}

/// Number of cells of a cell rectangle.
pub fn cells_of(b: CellBox) -> i64 {
    (i64::from(b.2) - i64::from(b.0) + 1) * (i64::from(b.3) - i64::from(b.1) + 1)
}

fn cell_key(x: i32, y: i32) -> u64 {
    (u64::from(x as u32) << 32) | u64::from(y as u32)
}

/// For each cell, the indices of the units whose box touches it, ascending.
#[derive(Clone, Debug, Default)]
pub struct CellIndex {
    dense: bool,
    /// Dense: the occupied rectangle's corner and size.
    x0: i32,
    y0: i32,
    w: i64,
    h: i64,
    /// Dense: offsets into `items`, one per cell (row-major) plus the end.
    starts: Vec<u32>,
    /// Sparse: the cell key of each item (ascending, parallel to `items`).
    keys: Vec<u64>,
    /// Unit indices, grouped by cell, ascending within a cell.
    items: Vec<u32>,
    /// Oversized units (ascending): in no cell.
    oversized: Vec<u32>,
}

impl CellIndex {
    /// Rebuilds the index from every unit's cell rectangle (index = position in
    /// `boxes`).
    pub fn build(&mut self, boxes: &[CellBox]) {
        self.items.clear();
        self.keys.clear();
        self.starts.clear();
        self.oversized.clear();
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        let mut entries: i64 = 0;
        for (i, &b) in boxes.iter().enumerate() {
            let cells = cells_of(b);
            if cells > MAX_BOX_CELLS {
                self.oversized.push(i as u32);
                continue;
            }
            entries += cells;
            x0 = x0.min(b.0);
            y0 = y0.min(b.1);
            x1 = x1.max(b.2);
            y1 = y1.max(b.3);
        }
        if entries == 0 {
            self.dense = true;
            (self.x0, self.y0, self.w, self.h) = (0, 0, 0, 0);
            self.starts.push(0);
            return;
        }
        let (w, h) = (
            i64::from(x1) - i64::from(x0) + 1,
            i64::from(y1) - i64::from(y0) + 1,
        );
        // Dense when the rectangle costs at most a few words per entry.
        self.dense = w * h <= 4 * entries + 4096;
        (self.x0, self.y0, self.w, self.h) = (x0, y0, w, h);
        let fits = |b: &CellBox| cells_of(*b) <= MAX_BOX_CELLS;
        if self.dense {
            let cells = (w * h) as usize;
            self.starts.resize(cells + 1, 0);
            for b in boxes.iter().filter(|b| fits(b)) {
                for cy in b.1..=b.3 {
                    for cx in b.0..=b.2 {
                        let c = self.dense_cell(cx, cy);
                        self.starts[c + 1] += 1;
                    }
                }
            }
            for c in 0..cells {
                self.starts[c + 1] += self.starts[c];
            }
            self.items.resize(entries as usize, 0);
            let mut fill: Vec<u32> = self.starts[..cells].to_vec();
            for (i, b) in boxes.iter().enumerate().filter(|(_, b)| fits(b)) {
                for cy in b.1..=b.3 {
                    for cx in b.0..=b.2 {
                        let c = self.dense_cell(cx, cy);
                        self.items[fill[c] as usize] = i as u32;
                        fill[c] += 1;
                    }
                }
            }
        } else {
            let mut sorted: Vec<(u64, u32)> = Vec::with_capacity(entries as usize);
            for (i, b) in boxes.iter().enumerate().filter(|(_, b)| fits(b)) {
                for cx in b.0..=b.2 {
                    for cy in b.1..=b.3 {
                        sorted.push((cell_key(cx, cy), i as u32));
                    }
                }
            }
            sorted.sort_unstable();
            self.keys.extend(sorted.iter().map(|e| e.0));
            self.items.extend(sorted.iter().map(|e| e.1));
        }
    }

    fn dense_cell(&self, cx: i32, cy: i32) -> usize {
        ((i64::from(cy) - i64::from(self.y0)) * self.w + (i64::from(cx) - i64::from(self.x0)))
            as usize
    }

    /// The units of cell `(cx, cy)`, ascending (empty for an unoccupied cell).
    pub fn cell(&self, cx: i32, cy: i32) -> &[u32] {
        if self.dense {
            let (dx, dy) = (
                i64::from(cx) - i64::from(self.x0),
                i64::from(cy) - i64::from(self.y0),
            );
            if dx < 0 || dy < 0 || dx >= self.w || dy >= self.h {
                return &[];
            }
            let c = self.dense_cell(cx, cy);
            &self.items[self.starts[c] as usize..self.starts[c + 1] as usize]
        } else {
            let key = cell_key(cx, cy);
            let s = self.keys.partition_point(|&k| k < key);
            let e = s + self.keys[s..].partition_point(|&k| k == key);
            &self.items[s..e]
        }
    }

    /// Oversized units, ascending.
    pub fn oversized(&self) -> &[u32] {
        &self.oversized
    }

    /// Number of cell entries (every box counted once per cell it touches).
    pub fn entries(&self) -> usize {
        self.items.len()
    }

    /// Whether the dense layout is in use.
    pub fn is_dense(&self) -> bool {
        self.dense
    }

    /// The units whose box may touch the rectangle `lo..hi`: ascending, deduplicated;
    /// every unit when the rectangle covers more cells than the index has entries.
    pub fn candidates_in(&self, lo: Vec2, hi: Vec2, units: usize) -> Vec<usize> {
        let (x0, y0, x1, y1) = cell_box(lo, hi);
        let cells = cells_of((x0, y0, x1, y1));
        let mut out = Vec::new();
        if self.items.is_empty() && self.oversized.is_empty() || cells > self.items.len() as i64 {
            out.extend(0..units);
            return out;
        }
        for cx in x0..=x1 {
            for cy in y0..=y1 {
                out.extend(self.cell(cx, cy).iter().map(|&i| i as usize));
            }
        }
        out.extend(self.oversized.iter().map(|&i| i as usize));
        out.sort_unstable();
        out.dedup();
        out.retain(|&i| i < units);
        out
    }
}

/// What the pair search needs of one unit.
#[derive(Clone, Copy, Debug)]
pub struct BoxEntry {
    /// Horizontal box.
    pub lo: Vec2,
    /// Horizontal box.
    pub hi: Vec2,
    /// Its cell rectangle.
    pub cells: CellBox,
    /// A static obstacle (two obstacles are never a pair).
    pub fixed: bool,
}

fn meet(a: &BoxEntry, b: &BoxEntry) -> bool {
    let m = CONTACT_MARGIN;
    !(a.hi.x + m < b.lo.x || b.hi.x + m < a.lo.x || a.hi.y + m < b.lo.y || b.hi.y + m < a.lo.y)
}

/// Fills `out` with the candidate pairs `(i, j)`, `i < j`, ascending, each once.
pub fn pairs(index: &CellIndex, boxes: &[BoxEntry], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let oversized = index.oversized();
    let mut big = vec![false; if oversized.is_empty() { 0 } else { boxes.len() }];
    for &i in oversized {
        big[i as usize] = true;
    }
    let mut mine: Vec<u32> = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        mine.clear();
        let iu = i as u32;
        if big.get(i).copied().unwrap_or(false) {
            // An oversized unit meets every later unit whose box it touches.
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if !(a.fixed && b.fixed) && meet(a, b) {
                    mine.push(j as u32);
                }
            }
        } else {
            let bi = a.cells;
            for cy in bi.1..=bi.3 {
                for cx in bi.0..=bi.2 {
                    let cell = index.cell(cx, cy);
                    let from = cell.partition_point(|&j| j <= iu);
                    for &j in &cell[from..] {
                        let b = &boxes[j as usize];
                        let bj = b.cells;
                        // Emit once: from the first cell both boxes share.
                        if cx != bi.0.max(bj.0) || cy != bi.1.max(bj.1) {
                            continue;
                        }
                        if (a.fixed && b.fixed) || !meet(a, b) {
                            continue;
                        }
                        mine.push(j);
                    }
                }
            }
            let later = oversized.partition_point(|&j| j <= iu);
            for &j in &oversized[later..] {
                let b = &boxes[j as usize];
                if !(a.fixed && b.fixed) && meet(a, b) {
                    mine.push(j);
                }
            }
            mine.sort_unstable();
        }
        out.extend(mine.iter().map(|&j| (iu, j)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(lo: Vec2, hi: Vec2, fixed: bool) -> BoxEntry {
        BoxEntry {
            lo,
            hi,
            cells: cell_box(lo, hi),
            fixed,
        }
    }

    /// The reference: every pair tested directly (shared cell, not both fixed, boxes
    /// meet within the margin), oversized boxes needing no shared cell.
    fn brute(boxes: &[BoxEntry]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (&boxes[i], &boxes[j]);
                let big = cells_of(a.cells) > MAX_BOX_CELLS || cells_of(b.cells) > MAX_BOX_CELLS;
                let share = a.cells.0.max(b.cells.0) <= a.cells.2.min(b.cells.2)
                    && a.cells.1.max(b.cells.1) <= a.cells.3.min(b.cells.3);
                if (big || share) && !(a.fixed && b.fixed) && meet(a, b) {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }

    /// A deterministic scatter (an LCG, no RNG crate needed).
    fn scatter(n: usize, extent: f32, seed: u32) -> Vec<BoxEntry> {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        (0..n)
            .map(|k| {
                let c = Vec2::new(next() * extent - extent * 0.3, next() * extent);
                let r = Vec2::new(0.2 + next() * 3.0, 0.2 + next() * 2.0);
                entry(c - r, c + r, k % 5 == 0)
            })
            .collect()
    }

    #[test]
    fn dense_and_sparse_indices_give_the_brute_force_pairs_in_order() {
        for (n, extent, dense) in [(400, 40.0, true), (60, 4000.0, false)] {
            let boxes = scatter(n, extent, n as u32);
            let cells: Vec<CellBox> = boxes.iter().map(|b| b.cells).collect();
            let mut index = CellIndex::default();
            index.build(&cells);
            assert_eq!(index.is_dense(), dense, "layout for extent {extent}");
            let mut got = Vec::new();
            pairs(&index, &boxes, &mut got);
            let want = brute(&boxes);
            assert!(!want.is_empty() || !dense, "the dense case must have pairs");
            assert_eq!(got, want, "extent {extent}");
        }
    }

    #[test]
    fn an_oversized_box_is_kept_out_of_the_grid_and_still_paired() {
        let mut boxes = scatter(50, 30.0, 9);
        // 1e7 units wide: millions of cells if it were entered.
        boxes.insert(
            3,
            entry(Vec2::new(-5.0e6, 10.0), Vec2::new(5.0e6, 12.0), false),
        );
        let cells: Vec<CellBox> = boxes.iter().map(|b| b.cells).collect();
        let mut index = CellIndex::default();
        index.build(&cells);
        assert_eq!(index.oversized(), &[3]);
        assert!(index.entries() < 50 * 4, "{} entries", index.entries());
        let mut got = Vec::new();
        pairs(&index, &boxes, &mut got);
        assert_eq!(got, brute(&boxes));
        assert!(got.iter().any(|&(i, j)| i == 3 || j == 3));
        let c = index.candidates_in(Vec2::new(0.0, 11.0), Vec2::new(1.0, 11.5), boxes.len());
        assert!(c.contains(&3));
    }

    #[test]
    fn lookups_agree_between_the_two_layouts() {
        let boxes = scatter(300, 60.0, 4);
        let cells: Vec<CellBox> = boxes.iter().map(|b| b.cells).collect();
        let mut dense = CellIndex::default();
        dense.build(&cells);
        assert!(dense.is_dense());
        // The same entries, forced sparse.
        let mut sparse = dense.clone();
        sparse.dense = false;
        let mut sorted: Vec<(u64, u32)> = Vec::new();
        for (i, b) in cells.iter().enumerate() {
            for cx in b.0..=b.2 {
                for cy in b.1..=b.3 {
                    sorted.push((cell_key(cx, cy), i as u32));
                }
            }
        }
        sorted.sort_unstable();
        sparse.keys = sorted.iter().map(|e| e.0).collect();
        sparse.items = sorted.iter().map(|e| e.1).collect();
        for cx in -12..30 {
            for cy in -3..20 {
                assert_eq!(dense.cell(cx, cy), sparse.cell(cx, cy), "cell ({cx}, {cy})");
            }
        }
    }
}
