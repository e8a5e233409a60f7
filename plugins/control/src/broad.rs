//! The broad phase: candidate pairs of proxies through a uniform grid over the
//! horizontal plane.
//!
//! **The pair set** is defined without the grid: `(i, j)`, `i < j`, is a candidate
//! when the two units are not both static and their horizontal boxes meet within
//! [`PAIR_MARGIN`] (so a resting contact stays a candidate); a box with a NaN
//! coordinate is in no pair. The grid only finds them fast, so its cell size changes
//! the speed, never the result (tested against a brute-force search):
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
//! * [`pairs_with`] walks the occupied cells, pairing the entries of each cell and
//!   emitting a pair only from the first cell both boxes share; a counting sort on the
//!   first index and a sort of each unit's few partners give the pairs in ascending
//!   `(i, j)` order in O(units + entries + pairs);
//! * **PD-CTRL-OVERSIZED** — a box spanning more than [`MAX_BOX_CELLS`] cells (a huge
//!   or wildly scaled proxy, far-away coordinates) is not entered in the grid: it is
//!   paired by a direct test with every other unit. This keeps the grid's memory and
//!   time bounded whatever the data says;
//! * **PD-CTRL-PAIR-REUSE** — [`PairCache`] keeps the grid and the pairs of boxes
//!   grown by [`SKIN`] from step to step while they cover the exact pairs.

use crate::world::PAIR_MARGIN;
use glam::Vec2;
use std::cmp::Ordering;

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
            let e = (b.hi - b.lo).max_element() + 2.0 * PAIR_MARGIN;
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
            b.cells = self.cell_box(b.lo - PAIR_MARGIN, b.hi + PAIR_MARGIN);
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

/// Whether two boxes meet within the margin; a box with a NaN coordinate meets
/// nothing (no short-circuit: no branches to mispredict in the pair loop).
pub(crate) fn meet(a: &BoxEntry, b: &BoxEntry) -> bool {
    let m = PAIR_MARGIN;
    (a.hi.x + m >= b.lo.x)
        & (b.hi.x + m >= a.lo.x)
        & (a.hi.y + m >= b.lo.y)
        & (b.hi.y + m >= a.lo.y)
}

/// Reusable buffers of [`pairs_with`] (no allocation per step once warm).
#[derive(Clone, Debug, Default)]
pub struct PairScratch {
    /// Pairs as the cell walk finds them.
    raw: Vec<(u32, u32)>,
    /// Per first index: where its partners start in `seconds` (plus the end).
    starts: Vec<u32>,
    /// The partners grouped by first index.
    seconds: Vec<u32>,
}

/// Fills `out` with the candidate pairs `(i, j)`, `i < j`, ascending, each once
/// ([`pairs_with`] with fresh buffers; the tests' entry point).
#[cfg(test)]
fn pairs(index: &CellIndex, boxes: &[BoxEntry], out: &mut Vec<(u32, u32)>) {
    pairs_with(index, boxes, &mut PairScratch::default(), out);
}

/// Fills `out` with the candidate pairs `(i, j)`, `i < j`, ascending, each once.
///
/// Walks the occupied cells: within a cell (indices ascending) every later entry is a
/// partner, kept only in the first cell both boxes share, when not both are static
/// and the boxes meet; oversized units are tested against every unit. The pairs are
/// then put in `(i, j)` order by a counting sort on `i` and a sort of each unit's few
/// partners: O(units + cell entries + pairs), whatever the order the cells gave.
pub fn pairs_with(
    index: &CellIndex,
    boxes: &[BoxEntry],
    scratch: &mut PairScratch,
    out: &mut Vec<(u32, u32)>,
) {
    out.clear();
    let raw = &mut scratch.raw;
    raw.clear();
    let mut visit = |cx: i32, cy: i32, cell: &[u32]| {
        for (p, &i) in cell.iter().enumerate() {
            let a = &boxes[i as usize];
            let ac = a.cells;
            for &j in &cell[p + 1..] {
                let b = &boxes[j as usize];
                let bc = b.cells;
                // Emit once: from the first cell both boxes share.
                let first = (cx == ac.0.max(bc.0)) & (cy == ac.1.max(bc.1));
                if first & !(a.fixed & b.fixed) & meet(a, b) {
                    raw.push((i, j));
                }
            }
        }
    };
    if index.dense {
        for dy in 0..index.h {
            let row = (dy * index.w) as usize;
            for dx in 0..index.w {
                let c = row + dx as usize;
                let (s, e) = (index.starts[c] as usize, index.starts[c + 1] as usize);
                if e - s >= 2 {
                    let (cx, cy) = (
                        (i64::from(index.x0) + dx) as i32,
                        (i64::from(index.y0) + dy) as i32,
                    );
                    visit(cx, cy, &index.items[s..e]);
                }
            }
        }
    } else {
        let mut s = 0;
        while s < index.keys.len() {
            let key = index.keys[s];
            let e = s + index.keys[s..].partition_point(|&k| k == key);
            if e - s >= 2 {
                visit(
                    (key >> 32) as u32 as i32,
                    key as u32 as i32,
                    &index.items[s..e],
                );
            }
            s = e;
        }
    }
    let oversized = index.oversized();
    for (k, &i) in oversized.iter().enumerate() {
        let a = &boxes[i as usize];
        for (j, b) in boxes.iter().enumerate() {
            let j = j as u32;
            // A pair of two oversized units comes from the lower one's loop.
            if j == i || (oversized[..k].binary_search(&j).is_ok()) {
                continue;
            }
            if !(a.fixed && b.fixed) && meet(a, b) {
                raw.push((i.min(j), i.max(j)));
            }
        }
    }
    // Counting sort on the first index, then each unit's partners in order.
    let starts = &mut scratch.starts;
    starts.clear();
    starts.resize(boxes.len() + 1, 0);
    for &(i, _) in raw.iter() {
        starts[i as usize + 1] += 1;
    }
    for k in 0..boxes.len() {
        starts[k + 1] += starts[k];
    }
    let seconds = &mut scratch.seconds;
    seconds.clear();
    seconds.resize(raw.len(), 0);
    // `starts[i]` is the fill cursor of unit `i`; filled, it is the end of `i`'s
    // partners (the start of `i + 1`'s).
    for &(i, j) in raw.iter() {
        let c = &mut starts[i as usize];
        seconds[*c as usize] = j;
        *c += 1;
    }
    let mut begin = 0u32;
    for (i, &end) in starts.iter().take(boxes.len()).enumerate() {
        let mine = &mut seconds[begin as usize..end as usize];
        if mine.len() > 1 {
            mine.sort_unstable();
        }
        out.extend(mine.iter().map(|&j| (i as u32, j)));
        begin = end;
    }
}

/// How far each side of a box is grown for [`PairCache`] (world units): a unit may
/// move about this far (a vehicle at 3 units/s: five ticks at 30 Hz) before the grid
/// and the pairs are rebuilt.
pub const SKIN: f32 = 0.5;

/// **PD-CTRL-PAIR-REUSE** — the candidate pairs of the boxes grown by [`SKIN`], kept
/// from one step to the next while they still cover the exact pairs.
///
/// [`PairCache::pairs`] gives exactly the pair set of the module docs, in the same
/// order, whatever the cache holds. It reuses the grid and the grown pairs while the
/// units are the same ones at the same indices, equally static: the grown pairs whose
/// two units still lie inside their grown boxes are filtered with the exact test (two
/// boxes that meet within the margin have grown boxes that do too); a unit that left
/// its grown box (a **stray**) is paired by a grid lookup around its box (every other
/// unit lies inside its grown box, which the grid holds) and directly with the other
/// strays. More than [`max_strays`], or any change of the units, rebuilds the
/// grid over freshly grown boxes. Reuse changes the speed only (tested step by step
/// against a rebuild every step).
#[derive(Clone, Debug, Default)]
pub struct PairCache {
    /// The grown boxes of the last build (index = unit index).
    grown: Vec<BoxEntry>,
    /// The unit ids of the last build.
    ids: Vec<u32>,
    /// The pairs of the grown boxes, ascending.
    grown_pairs: Vec<(u32, u32)>,
    scratch: PairScratch,
    /// This step's strays, ascending.
    strays: Vec<u32>,
    /// Per unit: whether it is a stray this step (cleared through `strays`).
    stray: Vec<bool>,
    /// The strays' pairs before the merge.
    extra: Vec<(u32, u32)>,
    /// The strays by the left side of their boxes (the sweep of stray pairs).
    by_x: Vec<(f32, u32)>,
    merged: Vec<(u32, u32)>,
    /// Whether the last call rebuilt.
    rebuilt: bool,
}

/// Most strays [`PairCache`] pairs one by one: `units / 16 + 16`; more rebuild.
pub fn max_strays(units: usize) -> usize {
    units / 16 + 16
}

impl PairCache {
    /// Fills `out` with the exact candidate pairs of `boxes` (ascending, each once);
    /// `ids` yields unit `i`'s id at position `i`. Afterwards `index` is the grid of
    /// the grown boxes, which holds every unit but the [`PairCache::strays`].
    /// `reuse = false` rebuilds always.
    pub fn pairs(
        &mut self,
        index: &mut CellIndex,
        boxes: &[BoxEntry],
        ids: impl ExactSizeIterator<Item = u32> + Clone,
        reuse: bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        for &i in &self.strays {
            self.stray[i as usize] = false;
        }
        self.strays.clear();
        self.rebuilt = !(reuse && self.same_units(boxes, ids.clone()) && self.find_strays(boxes));
        if self.rebuilt {
            self.strays.clear();
            self.grown.clear();
            self.grown.extend(boxes.iter().map(|b| BoxEntry {
                lo: b.lo - SKIN,
                hi: b.hi + SKIN,
                cells: (0, 0, 0, 0),
                fixed: b.fixed,
            }));
            self.ids.clear();
            self.ids.extend(ids);
            self.stray.clear();
            self.stray.resize(boxes.len(), false);
            index.build(&mut self.grown);
            pairs_with(index, &self.grown, &mut self.scratch, &mut self.grown_pairs);
        }
        out.clear();
        let stray = &self.stray;
        out.extend(self.grown_pairs.iter().filter(|&&(i, j)| {
            let (i, j) = (i as usize, j as usize);
            !(stray[i] | stray[j]) & meet(&boxes[i], &boxes[j])
        }));
        if !self.strays.is_empty() {
            self.pair_strays(index, boxes);
            self.merged.clear();
            merge_ascending(out, &self.extra, &mut self.merged);
            std::mem::swap(out, &mut self.merged);
        }
    }

    /// Whether the last [`PairCache::pairs`] rebuilt the grid.
    pub fn rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// The units the grid does not hold where they are (ascending): region queries
    /// look at them directly.
    pub fn strays(&self) -> &[u32] {
        &self.strays
    }

    /// Whether `boxes` are the units of the last build, in the same order, equally
    /// static.
    fn same_units(&self, boxes: &[BoxEntry], ids: impl ExactSizeIterator<Item = u32>) -> bool {
        if boxes.len() != self.grown.len() || ids.len() != self.ids.len() {
            return false;
        }
        let mut ok = true;
        for ((b, g), (id, old)) in boxes.iter().zip(&self.grown).zip(ids.zip(&self.ids)) {
            ok &= (id == *old) & (b.fixed == g.fixed);
        }
        ok
    }

    /// Marks the units outside their grown boxes (a NaN coordinate is outside);
    /// `false` when there are too many of them.
    fn find_strays(&mut self, boxes: &[BoxEntry]) -> bool {
        for (i, (b, g)) in boxes.iter().zip(&self.grown).enumerate() {
            let inside =
                (b.lo.x >= g.lo.x) & (b.lo.y >= g.lo.y) & (b.hi.x <= g.hi.x) & (b.hi.y <= g.hi.y);
            if !inside {
                self.stray[i] = true;
                self.strays.push(i as u32);
            }
        }
        self.strays.len() <= max_strays(boxes.len())
    }

    /// Fills `extra` with every pair that has a stray, ascending.
    fn pair_strays(&mut self, index: &CellIndex, boxes: &[BoxEntry]) {
        self.extra.clear();
        for &s in &self.strays {
            let a = &boxes[s as usize];
            let keep = |o: u32| {
                let b = &boxes[o as usize];
                !(a.fixed & b.fixed) & meet(a, b)
            };
            let (x0, y0, x1, y1) = index.cell_box(a.lo - PAIR_MARGIN, a.hi + PAIR_MARGIN);
            if cells_of((x0, y0, x1, y1)) > MAX_BOX_CELLS {
                // A huge stray: test every unit.
                for o in 0..boxes.len() as u32 {
                    if o != s && !self.stray[o as usize] && keep(o) {
                        self.extra.push((s.min(o), s.max(o)));
                    }
                }
            } else {
                for cy in y0..=y1 {
                    for cx in x0..=x1 {
                        for &o in index.cell(cx, cy) {
                            if !self.stray[o as usize] && keep(o) {
                                self.extra.push((s.min(o), s.max(o)));
                            }
                        }
                    }
                }
                for &o in index.oversized() {
                    if !self.stray[o as usize] && keep(o) {
                        self.extra.push((s.min(o), s.max(o)));
                    }
                }
            }
        }
        // Two strays: a sweep along X over the strays sorted by their boxes' left
        // sides (a NaN side sorts last and meets nothing).
        let by_x = &mut self.by_x;
        by_x.clear();
        by_x.extend(self.strays.iter().map(|&s| (boxes[s as usize].lo.x, s)));
        by_x.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (k, &(_, s)) in by_x.iter().enumerate() {
            let a = &boxes[s as usize];
            for &(lo_x, o) in &by_x[k + 1..] {
                // Past the reach of `a` (or `a` is NaN): so is every later stray.
                let reach = a.hi.x + PAIR_MARGIN;
                if !matches!(
                    lo_x.partial_cmp(&reach),
                    Some(Ordering::Less | Ordering::Equal)
                ) {
                    break;
                }
                let b = &boxes[o as usize];
                if !(a.fixed & b.fixed) & meet(a, b) {
                    self.extra.push((s.min(o), s.max(o)));
                }
            }
        }
        self.extra.sort_unstable();
        self.extra.dedup();
    }
}

/// Merges two ascending pair lists without duplicates into `out`.
fn merge_ascending(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            if a[i] == b[j] {
                i += 1;
            }
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
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

    /// PD-CTRL-PAIR-REUSE at the pair level: through small moves, jumps (strays), an
    /// oversized box that moves, a NaN box and a changed id, the cache gives exactly
    /// the brute-force pairs every step, and reuses the grid on most steps.
    #[test]
    fn the_pair_cache_gives_the_brute_force_pairs_through_moves_strays_and_rebuilds() {
        let mut boxes = scatter(300, 40.0, 11);
        boxes[5] = entry(Vec2::new(-5.0e4, 3.0), Vec2::new(5.0e4, 4.0), false);
        let mut ids: Vec<u32> = (0..300).collect();
        let (mut cache, mut index) = (PairCache::default(), CellIndex::default());
        let mut s = 5u32;
        let mut next = || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let (mut rebuilt, mut strays) = (0, 0);
        for step in 0..80 {
            for (k, b) in boxes.iter_mut().enumerate() {
                if b.fixed {
                    continue;
                }
                let jump = if k % 37 == step % 37 { 8.0 } else { 0.15 };
                let d = Vec2::new(next(), next()) * jump;
                b.lo += d;
                b.hi += d;
            }
            if step == 50 {
                boxes[9].lo = Vec2::NAN;
            }
            if step == 60 {
                ids[200] = 1000;
            }
            let mut got = Vec::new();
            cache.pairs(&mut index, &boxes, ids.iter().copied(), true, &mut got);
            assert_eq!(got, brute(&boxes), "step {step}");
            rebuilt += usize::from(cache.rebuilt());
            strays += cache.strays().len();
        }
        assert!((2..40).contains(&rebuilt), "{rebuilt} rebuilds in 80 steps");
        assert!(strays > 40, "{strays} strays");
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
        let gap = PAIR_MARGIN * 0.5;
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
        assert_eq!(cell_size(&[b(0.0)]), (4.0 * PAIR_MARGIN).max(MIN_CELL));
        let s = cell_size(&[b(1.0), b(1.0)]);
        assert!((s - 2.0 * (1.0 + 2.0 * PAIR_MARGIN)).abs() < 1e-6, "{s}");
        assert_eq!(cell_size(&[b(1.0e9), b(f32::INFINITY)]), MAX_CELL);
    }
}
