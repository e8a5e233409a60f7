//! The broad phase: candidate pairs of proxies through a uniform grid over the
//! horizontal plane.
//!
//! **The pair set** is defined without the grid: `(i, j)`, `i < j`, is a candidate
//! when the two units are not both static and their horizontal boxes meet within
//! [`CONTACT_MARGIN`] (so a resting contact stays a candidate). The grid only finds
//! them fast, so its cell size changes the speed, never the result (tested against a
//! brute-force search):
//!
//! * every box, grown by the margin on each side, is entered in each cell it touches
//!   (two boxes that meet within the margin then always share a cell);
//! * **PD-CTRL-GRID** — the cell side is twice the mean box extent (each extent capped
//!   at [`MAX_CELL`], the mean summed in `f64` in index order), clamped to
//!   [`MIN_CELL`]..[`MAX_CELL`]: about one crowd unit per cell whatever the model
//!   sizes;
//! * [`CellIndex`] lists, for each cell, the unit indices in it in ascending order. It
//!   is **dense** (one counting sort over the occupied rectangle of cells, O(n)) when
//!   that rectangle is small against the number of entries, and **sparse** (entries
//!   sorted by cell key) otherwise, e.g. for a few units scattered over a large map.
//!   Both answer every lookup identically (tested);
//! * [`pairs`] walks the units in ascending index order and, for each unit `i`,
//!   gathers the partners `j > i` from its cells, emitting a pair only from the first
//!   cell both boxes share; sorting each unit's few partners gives the pairs in
//!   ascending `(i, j)` order without sorting the whole list;
//! * **PD-CTRL-OVERSIZED** — a box spanning more than [`MAX_BOX_CELLS`] cells (a huge
//!   or wildly scaled proxy, far-away coordinates) is not entered in the grid: it is
//!   paired by a direct test with every other unit. This keeps the grid's memory and
//!   time bounded whatever the data says.

use crate::world::CONTACT_MARGIN;
use glam::Vec2;

/// Largest number of cells one box is entered in; larger boxes are oversized units.
pub const MAX_BOX_CELLS: i64 = 1024;
/// Smallest cell side (world units).
pub const MIN_CELL: f32 = 1.0;
/// Largest cell side (world units).
pub const MAX_CELL: f32 = 32.0;

/// The cell rectangle of a box: `(x0, y0, x1, y1)`, inclusive.
pub type CellBox = (i32, i32, i32, i32);

/// Number of cells of a cell rectangle.
pub fn cells_of(b: CellBox) -> i64 {
    (i64::from(b.2) - i64::from(b.0) + 1) * (i64::from(b.3) - i64::from(b.1) + 1)
}

fn cell_key(x: i32, y: i32) -> u64 {
    (u64::from(x as u32) << 32) | u64::from(y as u32)
}

/// The cell side for a set of boxes (**PD-CTRL-GRID**, see the module docs).
pub fn cell_size(boxes: &[BoxEntry]) -> f32 {
    if boxes.is_empty() {
        return MIN_CELL;
    }
    let sum: f64 = boxes
        .iter()
        .map(|b| {
            let e = (b.hi - b.lo).max_element() + 2.0 * CONTACT_MARGIN;
            f64::from(if e.is_finite() {
                e.min(MAX_CELL)
            } else {
                MAX_CELL
            })
        })
        .sum();
    ((2.0 * sum / boxes.len() as f64) as f32).clamp(MIN_CELL, MAX_CELL)
}

/// For each cell, the indices of the units whose box touches it, ascending.
#[derive(Clone, Debug, Default)]
pub struct CellIndex {
    /// Cell side of the last build.
    size: f32,
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
    /// Rebuilds the index over `boxes` (index = position): chooses the cell side,
    /// fills every box's [`BoxEntry::cells`] and enters the boxes.
    pub fn build(&mut self, boxes: &mut [BoxEntry]) {
        self.build_sized(boxes, cell_size(boxes), None);
    }

    /// [`CellIndex::build`] with a given cell side, and the layout forced when
    /// `dense` is `Some` (the tests compare sides and layouts through it).
    fn build_sized(&mut self, boxes: &mut [BoxEntry], size: f32, dense: Option<bool>) {
        self.size = size;
        for b in boxes.iter_mut() {
            b.cells = self.cell_box(b.lo - CONTACT_MARGIN, b.hi + CONTACT_MARGIN);
        }
        self.build_cells(boxes, dense);
    }

    /// The cell of a coordinate (clamped so far-away values stay finite).
    pub fn cell_of(&self, v: f32) -> i32 {
        // floor() without a libm call: truncate, then step down for negative
        // fractions (NaN lands in cell 0, as `NaN as i32` does).
        let q = (v / self.size).clamp(-1.0e9, 1.0e9);
        let t = q as i32;
        t - i32::from((t as f32) > q)
    }

    /// The cell rectangle of the horizontal box `lo..hi`.
    pub fn cell_box(&self, lo: Vec2, hi: Vec2) -> CellBox {
        (
            self.cell_of(lo.x),
            self.cell_of(lo.y),
            self.cell_of(hi.x),
            self.cell_of(hi.y),
        )
    }

    /// The cell side of the last build.
    pub fn size(&self) -> f32 {
        self.size
    }

    fn build_cells(&mut self, boxes: &[BoxEntry], dense: Option<bool>) {
        self.items.clear();
        self.keys.clear();
        self.starts.clear();
        self.oversized.clear();
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        let mut entries: i64 = 0;
        for (i, b) in boxes.iter().enumerate() {
            let b = b.cells;
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
        self.dense = dense.unwrap_or(w * h <= 4 * entries + 4096);
        (self.x0, self.y0, self.w, self.h) = (x0, y0, w, h);
        let fits = |b: &&BoxEntry| cells_of(b.cells) <= MAX_BOX_CELLS;
        if self.dense {
            let cells = (w * h) as usize;
            self.starts.resize(cells + 1, 0);
            for b in boxes.iter().filter(fits).map(|b| b.cells) {
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
                let b = b.cells;
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
                let b = b.cells;
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
        let (x0, y0, x1, y1) = self.cell_box(lo, hi);
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
    /// Its cell rectangle, grown by the margin ([`CellIndex::build`] fills it).
    pub cells: CellBox,
    /// A static obstacle (two obstacles are never a pair).
    pub fixed: bool,
}

/// Whether two boxes meet within the margin (no short-circuit: no branches to
/// mispredict in the pair loop).
fn meet(a: &BoxEntry, b: &BoxEntry) -> bool {
    let m = CONTACT_MARGIN;
    !((a.hi.x + m < b.lo.x) | (b.hi.x + m < a.lo.x) | (a.hi.y + m < b.lo.y) | (b.hi.y + m < a.lo.y))
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
                    // Branch-free append: write every partner, keep the ones that pass.
                    let mut len = mine.len();
                    mine.resize(len + cell.len() - from, 0);
                    for &j in &cell[from..] {
                        let b = &boxes[j as usize];
                        let bj = b.cells;
                        // Emit once: from the first cell both boxes share.
                        let first = (cx == bi.0.max(bj.0)) & (cy == bi.1.max(bj.1));
                        let keep = first & !(a.fixed & b.fixed) & meet(a, b);
                        mine[len] = j;
                        len += usize::from(keep);
                    }
                    mine.truncate(len);
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
            cells: (0, 0, 0, 0),
            fixed,
        }
    }

    /// The reference: every pair tested directly (not both fixed, boxes meet within
    /// the margin).
    fn brute(boxes: &[BoxEntry]) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (&boxes[i], &boxes[j]);
                if !(a.fixed && b.fixed) && meet(a, b) {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }

    fn index_of(boxes: &mut [BoxEntry]) -> CellIndex {
        let mut index = CellIndex::default();
        index.build(boxes);
        index
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
            let mut boxes = scatter(n, extent, n as u32);
            let index = index_of(&mut boxes);
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
        let index = index_of(&mut boxes);
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
        let mut boxes = scatter(300, 60.0, 4);
        let dense = index_of(&mut boxes);
        assert!(dense.is_dense());
        let mut sparse = CellIndex::default();
        sparse.build_sized(&mut boxes, dense.size(), Some(false));
        assert!(!sparse.is_dense());
        for cx in -40..80 {
            for cy in -10..80 {
                assert_eq!(dense.cell(cx, cy), sparse.cell(cx, cy), "cell ({cx}, {cy})");
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// Boxes touching exactly at, or within the margin of, cell borders are pairs for
    /// every cell side, and the pair set never depends on the side.
    #[test]
    fn the_pair_set_does_not_depend_on_the_cell_side() {
        let gap = CONTACT_MARGIN * 0.5;
        let mut boxes: Vec<BoxEntry> = Vec::new();
        // A row of unit boxes with gaps under the margin, straddling many borders.
        for k in 0..40 {
            let x = k as f32 * (1.0 + gap) - 7.0;
            boxes.push(BoxEntry {
                lo: Vec2::new(x, 3.0),
                hi: Vec2::new(x + 1.0, 4.0),
                cells: (0, 0, 0, 0),
                fixed: k % 7 == 3,
            });
        }
        let want: Vec<(u32, u32)> = (0..39u32)
            .filter(|&k| !(k % 7 == 3 && (k + 1) % 7 == 3))
            .map(|k| (k, k + 1))
            .collect();
        for size in [MIN_CELL, 1.0 + gap, 2.0, 4.0, MAX_CELL] {
            let mut index = CellIndex::default();
            index.build_sized(&mut boxes, size, None);
            let mut got = Vec::new();
            pairs(&index, &boxes, &mut got);
            assert_eq!(got, want, "cell side {size}");
        }
    }

    #[test]
    fn cells_are_floors_of_the_coordinate_over_the_side() {
        let index = CellIndex {
            size: 2.0,
            ..CellIndex::default()
        };
        for v in [
            -5.0f32, -4.0, -3.9, -0.5, -0.0, 0.0, 0.5, 1.99, 2.0, 7.3, 1.0e12, -1.0e12,
        ] {
            let want = (v / 2.0).floor().clamp(-1.0e9, 1.0e9) as i32;
            assert_eq!(index.cell_of(v), want, "{v}");
        }
        assert_eq!(index.cell_of(f32::NAN), 0);
        assert_eq!(index.cell_of(f32::INFINITY), 1_000_000_000);
    }

    #[test]
    fn the_cell_side_follows_the_box_sizes_within_its_bounds() {
        let b = |e: f32| BoxEntry {
            lo: Vec2::ZERO,
            hi: Vec2::splat(e),
            cells: (0, 0, 0, 0),
            fixed: false,
        };
        assert_eq!(cell_size(&[]), MIN_CELL);
        assert_eq!(cell_size(&[b(0.1)]), MIN_CELL);
        let s = cell_size(&[b(1.0), b(1.0)]);
        assert!((s - 2.0 * (1.0 + 2.0 * CONTACT_MARGIN)).abs() < 1e-6, "{s}");
        assert_eq!(cell_size(&[b(1.0e9), b(f32::INFINITY)]), MAX_CELL);
    }
}
