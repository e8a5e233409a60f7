//! The tick's neighbour grid: ground points bucketed into square cells (one flat array
//! per tick, cells in row order), answering the two questions the AI asks every tick —
//! *what is within `r` of here* (Wizard, objectives) and *which acceptable point is
//! nearest* (radar) — with answers that do not depend on the cell size or on the order
//! the points were given in:
//!
//! * [`Grid::around`] answers every point with `distance(at, p) <= r` (ascending point
//!   index; the caller orders them by whatever key it needs);
//! * [`Grid::nearest`] answers the accepted point with the least squared distance within
//!   `r` (`distance² <= r²`), ties to the lower key. It visits cells in rings around
//!   `at` and stops once no farther ring can hold a closer point, so a dense crowd
//!   costs a few cells rather than the whole radius.
//!
//! Points that are not finite are never answered. The cell count is bounded by
//! [`Grid::MIN_CELLS`] or four per point, whichever is more: when the points spread
//! wider, cells grow (doubling) until they fit, so a far outlier costs speed, never
//! memory.

use glam::Vec2;

/// A point's cell coordinates (any finite input; saturating).
fn cell_of(p: Vec2, cell: f32) -> (i64, i64) {
    ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64)
}

/// Points bucketed by cell (rebuilt each tick with [`Grid::build`]; allocations kept).
#[derive(Clone, Debug, Default)]
pub struct Grid {
    cell: f32,
    /// Cell coordinates of the first cell.
    origin: (i64, i64),
    /// Cells per row and rows.
    dims: (i64, i64),
    /// `starts[c]..starts[c + 1]` are cell `c`'s entries.
    starts: Vec<u32>,
    /// `(point, index)` grouped by cell, ascending index within a cell.
    entries: Vec<(Vec2, u32)>,
    /// Scratch: each point's cell (or `u32::MAX` when not finite).
    cells: Vec<u32>,
}

impl Grid {
    /// Fewest cells a grid may use (see the module docs).
    pub const MIN_CELLS: usize = 4096;

    /// Buckets `points` (indices are positions in the slice) into cells of side `cell`
    /// (or larger, see the module docs). `cell` must be positive and finite; any other
    /// value is taken as 1.
    pub fn build(&mut self, cell: f32, points: &[Vec2]) {
        let mut cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            1.0
        };
        let finite = || points.iter().filter(|p| p.is_finite());
        let (lo, hi) = finite().fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let cap = points.len().saturating_mul(4).max(Self::MIN_CELLS) as i64;
        // The first cell and the dimensions at `cell`, when they fit: at most `cap`
        // cells, and cell coordinates well inside `i64` arithmetic.
        let layout = |cell: f32| -> Option<((i64, i64), (i64, i64))> {
            if lo.x > hi.x {
                return Some(((0, 0), (0, 0)));
            }
            let limit = (1u32 << 30) as f32;
            if [lo.x, lo.y, hi.x, hi.y]
                .iter()
                .any(|v| (v / cell).abs() >= limit)
            {
                return None;
            }
            let (a, b) = (cell_of(lo, cell), cell_of(hi, cell));
            let dims = (b.0 - a.0 + 1, b.1 - a.1 + 1);
            (dims.0 * dims.1 <= cap).then_some((a, dims))
        };
        // Doubling reaches f32::MAX / 2 within ~130 steps, where everything fits.
        let (origin, dims) = loop {
            if let Some(l) = layout(cell) {
                break l;
            }
            if cell >= f32::MAX / 2.0 {
                break ((0, 0), (1, 1));
            }
            cell *= 2.0;
        };
        self.cell = cell;
        self.origin = origin;
        self.dims = dims;
        let count = (self.dims.0 * self.dims.1) as usize;
        self.starts.clear();
        self.starts.resize(count + 1, 0);
        self.cells.clear();
        for p in points {
            let c = if p.is_finite() {
                let (x, y) = cell_of(*p, cell);
                let (x, y) = (x - self.origin.0, y - self.origin.1);
                // Division and floor are monotonic: every finite point is inside.
                let x = x.clamp(0, (self.dims.0 - 1).max(0));
                let y = y.clamp(0, (self.dims.1 - 1).max(0));
                (y * self.dims.0 + x) as u32
            } else {
                u32::MAX
            };
            self.cells.push(c);
            if c != u32::MAX {
                self.starts[c as usize + 1] += 1;
            }
        }
        for i in 1..self.starts.len() {
            self.starts[i] += self.starts[i - 1];
        }
        let total = self.starts.last().copied().unwrap_or(0) as usize;
        self.entries.clear();
        self.entries.resize(total, (Vec2::ZERO, 0));
        // Counting sort: a cursor per cell (the starts shifted by one afterwards).
        let mut cursor = self.starts.clone();
        for (i, (&c, p)) in self.cells.iter().zip(points).enumerate() {
            if c == u32::MAX {
                continue;
            }
            let slot = &mut cursor[c as usize];
            self.entries[*slot as usize] = (*p, i as u32);
            *slot += 1;
        }
    }

    /// The cell side in use (at least the one asked for).
    pub fn cell(&self) -> f32 {
        self.cell
    }

    /// The entries of the cell at grid coordinates `(x, y)` (absolute), if inside.
    fn bucket(&self, x: i64, y: i64) -> &[(Vec2, u32)] {
        let (gx, gy) = (x - self.origin.0, y - self.origin.1);
        if gx < 0 || gy < 0 || gx >= self.dims.0 || gy >= self.dims.1 {
            return &[];
        }
        let c = (gy * self.dims.0 + gx) as usize;
        &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
    }

    /// The absolute cell range `[lo, hi]` a disc of radius `r` at `at` touches, clipped
    /// to the grid (`None`: it touches no cell of the grid, or the query is not finite).
    fn range(&self, at: Vec2, r: f32) -> Option<((i64, i64), (i64, i64))> {
        if !at.is_finite() || !r.is_finite() || r < 0.0 || self.entries.is_empty() {
            return None;
        }
        let lo = cell_of(at - Vec2::splat(r), self.cell);
        let hi = cell_of(at + Vec2::splat(r), self.cell);
        let lo = (lo.0.max(self.origin.0), lo.1.max(self.origin.1));
        let hi = (
            hi.0.min(self.origin.0 + self.dims.0 - 1),
            hi.1.min(self.origin.1 + self.dims.1 - 1),
        );
        (lo.0 <= hi.0 && lo.1 <= hi.1).then_some((lo, hi))
    }

    /// Appends to `out` the index of every point with `distance(at, p) <= r`, ascending.
    pub fn around(&self, at: Vec2, r: f32, out: &mut Vec<u32>) {
        let Some((lo, hi)) = self.range(at, r) else {
            return;
        };
        let from = out.len();
        for y in lo.1..=hi.1 {
            for x in lo.0..=hi.0 {
                out.extend(
                    self.bucket(x, y)
                        .iter()
                        .filter(|(p, _)| p.distance(at) <= r)
                        .map(|e| e.1),
                );
            }
        }
        out[from..].sort_unstable();
    }

    /// The accepted point nearest to `at` within `r` (`distance² <= r²`), ties to the
    /// lower `key`; `None` when there is none.
    pub fn nearest(
        &self,
        at: Vec2,
        r: f32,
        mut accept: impl FnMut(u32) -> bool,
        key: impl Fn(u32) -> u32,
    ) -> Option<u32> {
        let (lo, hi) = self.range(at, r)?;
        let c = cell_of(at, self.cell);
        // The farthest ring (Chebyshev distance from `at`'s cell) the range reaches.
        let reach = [lo.0 - c.0, hi.0 - c.0, lo.1 - c.1, hi.1 - c.1]
            .iter()
            .map(|d| d.abs())
            .max()
            .unwrap_or(0);
        // A query far outside the grid: rings would mostly miss it, scan the range.
        let span = (hi.0 - lo.0 + 1).max(hi.1 - lo.1 + 1);
        let rings = reach <= 2 * span;
        let mut best: Option<(f32, u32, u32)> = None;
        let mut visit = |x: i64, y: i64, best: &mut Option<(f32, u32, u32)>| {
            if x < lo.0 || x > hi.0 || y < lo.1 || y > hi.1 {
                return;
            }
            for &(p, i) in self.bucket(x, y) {
                let d = p.distance_squared(at);
                if d > r * r || !accept(i) {
                    continue;
                }
                let k = key(i);
                if best.is_none_or(|(bd, bk, _)| d < bd || (d == bd && k < bk)) {
                    *best = Some((d, k, i));
                }
            }
        };
        if !rings {
            for y in lo.1..=hi.1 {
                for x in lo.0..=hi.0 {
                    visit(x, y, &mut best);
                }
            }
            return best.map(|b| b.2);
        }
        for k in 0..=reach {
            if k == 0 {
                visit(c.0, c.1, &mut best);
            } else {
                for x in c.0 - k..=c.0 + k {
                    visit(x, c.1 - k, &mut best);
                    visit(x, c.1 + k, &mut best);
                }
                for y in c.1 - k + 1..c.1 + k {
                    visit(c.0 - k, y, &mut best);
                    visit(c.0 + k, y, &mut best);
                }
            }
            // Every point of ring k + 1 or farther is at least k cells away.
            let gap = k as f32 * self.cell;
            if best.is_some_and(|(d, _, _)| d < gap * gap) {
                break;
            }
        }
        best.map(|b| b.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute_around(points: &[Vec2], at: Vec2, r: f32) -> Vec<u32> {
        (0..points.len() as u32)
            .filter(|&i| points[i as usize].is_finite() && points[i as usize].distance(at) <= r)
            .collect()
    }

    fn brute_nearest(points: &[Vec2], at: Vec2, r: f32, ok: impl Fn(u32) -> bool) -> Option<u32> {
        let mut best: Option<(f32, u32)> = None;
        for i in 0..points.len() as u32 {
            let p = points[i as usize];
            let d = p.distance_squared(at);
            if !p.is_finite() || d > r * r || !ok(i) {
                continue;
            }
            // Key: the index reversed, so ties do not simply follow the input order.
            let k = u32::MAX - i;
            if best.is_none_or(|(bd, bk)| d < bd || (d == bd && k < u32::MAX - bk)) {
                best = Some((d, i));
            }
        }
        best.map(|b| b.1)
    }

    #[test]
    fn a_crowd_answers_like_the_brute_force() {
        let points: Vec<Vec2> = (0..400)
            .map(|i| Vec2::new((i % 20) as f32 * 3.0, (i / 20) as f32 * 3.0))
            .collect();
        let mut g = Grid::default();
        g.build(16.0, &points);
        let at = Vec2::new(29.0, 31.5);
        let mut out = Vec::new();
        g.around(at, 8.0, &mut out);
        assert_eq!(out, brute_around(&points, at, 8.0));
        assert!(!out.is_empty());
        let ok = |i: u32| i % 7 == 3;
        assert_eq!(
            g.nearest(at, 45.0, ok, |i| u32::MAX - i),
            brute_nearest(&points, at, 45.0, ok)
        );
        // Nothing accepted: none.
        assert_eq!(g.nearest(at, 45.0, |_| false, |i| i), None);
    }

    #[test]
    fn equal_distances_go_to_the_lower_key() {
        // Four points at distance 5 around the origin, in four different cells.
        let points = vec![
            Vec2::new(5.0, 0.0),
            Vec2::new(-5.0, 0.0),
            Vec2::new(0.0, 5.0),
            Vec2::new(0.0, -5.0),
        ];
        let mut g = Grid::default();
        g.build(4.0, &points);
        assert_eq!(g.nearest(Vec2::ZERO, 10.0, |_| true, |i| 10 - i), Some(3));
        assert_eq!(g.nearest(Vec2::ZERO, 10.0, |_| true, |i| i), Some(0));
        // Exactly at the radius counts; beyond it does not.
        assert_eq!(g.nearest(Vec2::ZERO, 5.0, |_| true, |i| i), Some(0));
        assert_eq!(g.nearest(Vec2::ZERO, 4.99, |_| true, |i| i), None);
    }

    #[test]
    fn outliers_and_bad_points_cost_cells_not_memory() {
        let mut points: Vec<Vec2> = (0..10).map(|i| Vec2::new(i as f32, 0.0)).collect();
        points.push(Vec2::new(1.0e30, -1.0e30));
        points.push(Vec2::new(f32::NAN, 0.0));
        points.push(Vec2::new(f32::INFINITY, 3.0));
        let mut g = Grid::default();
        g.build(1.0, &points);
        assert!(g.starts.len() <= Grid::MIN_CELLS + 1);
        assert!(g.cell() > 1.0);
        let mut out = Vec::new();
        g.around(Vec2::new(1.0e30, -1.0e30), 1.0, &mut out);
        assert_eq!(out, vec![10]);
        out.clear();
        g.around(Vec2::new(4.0, 0.0), 1.0, &mut out);
        assert_eq!(out, vec![3, 4, 5]);
        // Non-finite queries answer nothing and never loop over a huge range.
        out.clear();
        g.around(Vec2::ZERO, f32::INFINITY, &mut out);
        g.around(Vec2::new(f32::NAN, 0.0), 5.0, &mut out);
        assert!(out.is_empty());
        assert_eq!(g.nearest(Vec2::ZERO, f32::NAN, |_| true, |i| i), None);
        // A query far from everything scans the range it reaches.
        let far = Vec2::new(-1.0e6, 0.0);
        assert_eq!(g.nearest(far, 2.0e6, |_| true, |i| i), Some(0));
    }

    #[test]
    fn an_empty_grid_answers_nothing() {
        let mut g = Grid::default();
        g.build(16.0, &[]);
        let mut out = Vec::new();
        g.around(Vec2::ZERO, 100.0, &mut out);
        assert!(out.is_empty());
        assert_eq!(g.nearest(Vec2::ZERO, 100.0, |_| true, |i| i), None);
        // Rebuilt with points, the same grid answers them.
        g.build(16.0, &[Vec2::new(3.0, 4.0)]);
        assert_eq!(g.nearest(Vec2::ZERO, 100.0, |_| true, |i| i), Some(0));
    }

    proptest! {
        #[test]
        fn any_points_answer_like_the_brute_force(
            raw in prop::collection::vec((-300.0f32..300.0, -300.0f32..300.0), 0..200),
            at in (-320.0f32..320.0, -320.0f32..320.0),
            r in 0.0f32..120.0,
            cell in 0.5f32..40.0,
            modulus in 1u32..5,
        ) {
            // Snap to a coarse lattice so equal distances (ties) really happen.
            let points: Vec<Vec2> = raw.iter().map(|&(x, y)| Vec2::new(x.round(), y.round())).collect();
            let at = Vec2::new(at.0.round(), at.1.round());
            let mut g = Grid::default();
            g.build(cell, &points);
            let mut out = Vec::new();
            g.around(at, r, &mut out);
            prop_assert_eq!(out, brute_around(&points, at, r));
            let ok = |i: u32| i % modulus == 0;
            prop_assert_eq!(g.nearest(at, r, ok, |i| u32::MAX - i), brute_nearest(&points, at, r, ok));
        }
    }
}
