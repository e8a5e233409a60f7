//! The areal graph from `Land.map`: area lookup (file grid candidates, then an exact
//! point-in-polygon test), A* routes over linked areas and the portal corridor.
//! Pure, FFI-free.
//!
//! # Readings and decisions (project choices, not confirmed by the sources)
//!
//! * **Grid bounds**: `Land.map` stores no world rectangle for its grid. We read the
//!   `cells_x × cells_y` grid as covering the X/Y bounding box of *all* area vertices,
//!   cell `(x, y)` = `[min + x·w, min + (x+1)·w)` with `w = extent / cells` (the
//!   arithmetic of `iron3d_landmap::build_grid`), points on the far edge in the last cell.
//! * **Walkable** = `logic_flag != 0` (the authoring convention
//!   `iron3d_landmap::AUTHORED_WALKABLE_FLAG`; the original meaning is only inferred).
//! * **Overlaps**: when several candidates contain a point (shared boundaries), a
//!   walkable area wins over a blocked one, then the lowest id (FORMATS §6.5: the choice
//!   uses the flags, not the first id in the cell).
//! * **Point in area**: crossing-number test of the X/Y projection of the vertex ring.
//! * **Graph**: area `a` links to `b` through boundary link `i < vertex_count` whose
//!   target area is `b` (polygon-block links are not edges of the ring and are ignored).
//!   Edge cost = distance between the vertex averages ("centroids") of the two areas;
//!   the A* heuristic is the straight-line centroid distance to the goal (admissible and
//!   consistent by the triangle inequality). Start and goal must be walkable; blocked
//!   areas are never entered.

use glam::Vec3;
use iron3d_landmap::{CellGrid, LandMap};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt;

/// Why a route query failed. Never a silent teleport.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// No `Land.map` is loaded.
    NoMap,
    /// An area id outside the map.
    NoSuchArea {
        /// The id.
        area: u32,
    },
    /// The start or goal area is not walkable.
    NotWalkable {
        /// The blocked area.
        area: u32,
    },
    /// No chain of walkable linked areas joins `from` and `to`.
    Unreachable {
        /// Start area.
        from: u32,
        /// Goal area.
        to: u32,
    },
}

impl fmt::Display for RouteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoMap => write!(f, "no map: no Land.map is loaded"),
            Self::NoSuchArea { area } => write!(f, "area {area} does not exist"),
            Self::NotWalkable { area } => write!(f, "area {area} is not walkable"),
            Self::Unreachable { from, to } => {
                write!(f, "area {to} is unreachable from area {from}")
            }
        }
    }
}

impl std::error::Error for RouteError {}

/// See [`Area::x_reach`]: the crossing abscissa `p.x + t·(q.x − p.x)` of an edge may
/// round a few ulps past the edge's X range, so the range is grown by far more.
fn x_reach(ring: &[Vec3]) -> (f32, f32) {
    if !ring.iter().all(|p| p.x.is_finite() && p.y.is_finite()) {
        return (f32::NEG_INFINITY, f32::INFINITY);
    }
    let (lo, hi) = ring
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
            (l.min(p.x), h.max(p.x))
        });
    let grow = 1e-5 * (lo.abs().max(hi.abs()) + 1.0);
    (lo - grow, hi + grow)
}

/// The crossing-number test of a point against a ring's X/Y projection (the exact
/// rule [`Areals::contains`] answers; its span checks only make it faster).
fn crossing_number_odd(ring: &[Vec3], x: f32, y: f32) -> bool {
    let n = ring.len();
    let mut inside = false;
    for i in 0..n {
        let (p, q) = (ring[i], ring[(i + 1) % n]);
        if (p.y > y) != (q.y > y) {
            let xc = p.x + (y - p.y) / (q.y - p.y) * (q.x - p.x);
            if x < xc {
                inside = !inside;
            }
        }
    }
    inside
}

/// One area as the queries need it.
#[derive(Clone, Debug)]
struct Area {
    ring: Vec<Vec3>,
    /// The ring's lowest and highest Y (NaN vertices left out): a point outside
    /// `[lo, hi)` crosses no edge, so [`Areals::contains`] rejects it exactly.
    y_span: (f32, f32),
    /// The ring's X range grown by a rounding allowance, `(−∞, ∞)` when any vertex is
    /// not finite: a point left of it crosses every edge its Y line meets (an even
    /// number), one right of it none, so [`Areals::contains`] rejects it exactly.
    x_reach: (f32, f32),
    centroid: Vec3,
    walkable: bool,
    /// `(boundary edge index, target area)` for every linked boundary edge.
    links: Vec<(usize, u32)>,
}

/// The areal graph and its lookup grid.
#[derive(Clone, Debug)]
pub struct Areals {
    areas: Vec<Area>,
    grid: CellGrid,
    min: [f32; 2],
    max: [f32; 2],
}

#[derive(Clone, Copy, PartialEq)]
struct Open {
    f: f32,
    area: u32,
}
impl Eq for Open {}
impl Ord for Open {
    fn cmp(&self, o: &Self) -> Ordering {
        // Min-heap on f, then lowest id (deterministic).
        o.f.total_cmp(&self.f).then(o.area.cmp(&self.area))
    }
}
impl PartialOrd for Open {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Areals {
    /// Builds the lookup structures from a parsed map (the file's grid is kept as is).
    pub fn new(map: &LandMap) -> Self {
        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        let areas: Vec<Area> = map
            .areas
            .iter()
            .map(|a| {
                let ring: Vec<Vec3> = a
                    .vertices
                    .iter()
                    .map(|v| Vec3::from_array(v.to_f32()))
                    .collect();
                for p in ring.iter().filter(|p| p.x.is_finite() && p.y.is_finite()) {
                    lo = [lo[0].min(p.x), lo[1].min(p.y)];
                    hi = [hi[0].max(p.x), hi[1].max(p.y)];
                }
                let centroid = if ring.is_empty() {
                    Vec3::ZERO
                } else {
                    ring.iter().copied().sum::<Vec3>() / ring.len() as f32
                };
                let links = a
                    .links
                    .iter()
                    .take(ring.len())
                    .enumerate()
                    .filter_map(|(i, l)| {
                        let (t, _) = l.target()?;
                        Some((i, u32::try_from(t).ok()?))
                    })
                    .filter(|&(_, t)| (t as usize) < map.areas.len())
                    .collect();
                let y_span = ring
                    .iter()
                    .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                        (l.min(p.y), h.max(p.y))
                    });
                let x_reach = x_reach(&ring);
                Area {
                    ring,
                    y_span,
                    x_reach,
                    centroid,
                    walkable: a.prefix.logic_flag() != 0,
                    links,
                }
            })
            .collect();
        Self {
            areas,
            grid: map.grid.clone(),
            min: lo,
            max: hi,
        }
    }

    /// Number of areas.
    pub fn len(&self) -> usize {
        self.areas.len()
    }

    /// Whether the map has no areas.
    pub fn is_empty(&self) -> bool {
        self.areas.is_empty()
    }

    /// Whether area `area` is walkable (`logic_flag != 0`); `false` for a missing id.
    pub fn is_walkable(&self, area: u32) -> bool {
        self.areas.get(area as usize).is_some_and(|a| a.walkable)
    }

    /// Centroid (vertex average) of `area`.
    pub fn centroid(&self, area: u32) -> Option<Vec3> {
        self.areas.get(area as usize).map(|a| a.centroid)
    }

    /// The grid cell index (`y * cells_x + x`) holding `(x, y)`, `None` outside the
    /// grid rectangle (see the module docs for the bounds reading).
    pub fn cell_index(&self, x: f32, y: f32) -> Option<usize> {
        let axis = |v: f32, lo: f32, hi: f32, n: u32| -> Option<u32> {
            if !(v >= lo && v <= hi) || n == 0 {
                return None;
            }
            let w = (hi - lo) / n as f32;
            // `v >= lo`, so the quotient is not negative and the cast's truncation is
            // the floor (no libm call); NaN (a zero-width grid) lands in cell 0.
            let c = (f64::from(v) - f64::from(lo)) / f64::from(w);
            Some(c.clamp(0.0, f64::from(n) - 1.0) as u32)
        };
        let cx = axis(x, self.min[0], self.max[0], self.grid.cells_x())?;
        let cy = axis(y, self.min[1], self.max[1], self.grid.cells_y())?;
        Some(cy as usize * self.grid.cells_x() as usize + cx as usize)
    }

    /// The file's candidate list for the cell under `(x, y)` (empty outside the grid).
    pub fn candidates(&self, x: f32, y: f32) -> &[u16] {
        self.cell_index(x, y)
            .and_then(|i| self.grid.cell_at(i))
            .unwrap_or(&[])
    }

    /// Whether the X/Y projection of `area` contains `(x, y)` (crossing number).
    pub fn contains(&self, area: u32, x: f32, y: f32) -> bool {
        let Some(a) = self.areas.get(area as usize) else {
            return false;
        };
        if !(y >= a.y_span.0 && y < a.y_span.1 && x >= a.x_reach.0 && x <= a.x_reach.1) {
            return false;
        }
        crossing_number_odd(&a.ring, x, y)
    }

    /// Picks among containing areas: walkable first, then lowest id.
    fn better(&self, a: u32, b: Option<u32>) -> bool {
        match b {
            None => true,
            Some(b) => {
                (self.is_walkable(a), std::cmp::Reverse(a))
                    > (self.is_walkable(b), std::cmp::Reverse(b))
            }
        }
    }

    /// The area containing `(x, y)`: grid candidates, then the exact test; `None` on a
    /// miss (no candidate contains the point).
    pub fn area_at(&self, x: f32, y: f32) -> Option<u32> {
        let mut best = None;
        for &id in self.candidates(x, y) {
            let id = u32::from(id);
            if self.contains(id, x, y) && self.better(id, best) {
                best = Some(id);
            }
        }
        best
    }

    /// [`Areals::area_at`] by testing every area (reference for tests and audits).
    pub fn area_at_brute_force(&self, x: f32, y: f32) -> Option<u32> {
        let mut best = None;
        for id in 0..self.areas.len() as u32 {
            if self.contains(id, x, y) && self.better(id, best) {
                best = Some(id);
            }
        }
        best
    }

    /// Walkable neighbours of `area` with edge costs (deduplicated, ascending id).
    pub fn neighbours(&self, area: u32) -> Vec<(u32, f32)> {
        let Some(a) = self.areas.get(area as usize) else {
            return Vec::new();
        };
        let mut out: Vec<(u32, f32)> = a
            .links
            .iter()
            .filter(|&&(_, t)| t != area && self.is_walkable(t))
            .map(|&(_, t)| (t, a.centroid.distance(self.areas[t as usize].centroid)))
            .collect();
        out.sort_by_key(|e| e.0);
        out.dedup_by_key(|e| e.0);
        out
    }

    /// Cost of a route: the sum of centroid distances of consecutive areas.
    pub fn route_cost(&self, route: &[u32]) -> f32 {
        route
            .windows(2)
            .filter_map(|w| Some(self.centroid(w[0])?.distance(self.centroid(w[1])?)))
            .sum()
    }

    /// The cheapest sequence of area ids from `from` to `to` (both included) by A*.
    pub fn route(&self, from: u32, to: u32) -> Result<Vec<u32>, RouteError> {
        self.route_avoiding(from, to, &[])
    }

    /// [`Self::route`] never stepping between two areas joined by a pair of `avoid`
    /// (either order): a goal reachable only that way is [`RouteError::Unreachable`].
    pub fn route_avoiding(
        &self,
        from: u32,
        to: u32,
        avoid: &[(u32, u32)],
    ) -> Result<Vec<u32>, RouteError> {
        let mut avoided: Vec<(u32, u32)> =
            avoid.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        avoided.sort_unstable();
        avoided.dedup();
        let allowed = |a: u32, b: u32| avoided.binary_search(&(a.min(b), a.max(b))).is_err();
        for area in [from, to] {
            if area as usize >= self.areas.len() {
                return Err(RouteError::NoSuchArea { area });
            }
        }
        for area in [from, to] {
            if !self.is_walkable(area) {
                return Err(RouteError::NotWalkable { area });
            }
        }
        let n = self.areas.len();
        let goal = self.areas[to as usize].centroid;
        let h = |a: u32| self.areas[a as usize].centroid.distance(goal);
        let mut g = vec![f32::INFINITY; n];
        let mut prev = vec![u32::MAX; n];
        let mut closed = vec![false; n];
        let mut open = BinaryHeap::new();
        g[from as usize] = 0.0;
        open.push(Open {
            f: h(from),
            area: from,
        });
        while let Some(Open { area, .. }) = open.pop() {
            if closed[area as usize] {
                continue;
            }
            if area == to {
                let mut path = vec![to];
                let mut cur = to;
                while cur != from {
                    cur = prev[cur as usize];
                    path.push(cur);
                }
                path.reverse();
                return Ok(path);
            }
            closed[area as usize] = true;
            for (next, cost) in self.neighbours(area) {
                if !allowed(area, next) {
                    continue;
                }
                let ng = g[area as usize] + cost;
                if ng < g[next as usize] {
                    g[next as usize] = ng;
                    prev[next as usize] = area;
                    open.push(Open {
                        f: ng + h(next),
                        area: next,
                    });
                }
            }
        }
        Err(RouteError::Unreachable { from, to })
    }

    /// The portal edges of a route: for each consecutive pair `(a, b)`, the end points
    /// of the first boundary edge of `a` linked to `b`. Pairs without such a link (not
    /// a route of this map) are skipped.
    pub fn corridor(&self, route: &[u32]) -> Vec<(Vec3, Vec3)> {
        route
            .windows(2)
            .filter_map(|w| {
                let a = self.areas.get(w[0] as usize)?;
                let &(i, _) = a.links.iter().find(|&&(_, t)| t == w[1])?;
                Some((a.ring[i], a.ring[(i + 1) % a.ring.len()]))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_landmap::{AreaSpec, Bounds, MapBuilder};

    /// SplitMix64 stream of floats in `[0, 1)`.
    fn rng(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed;
        move || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// An `n × m` grid of square areas of side `s` (id = `j·n + i`); `blocked` areas get
    /// `walkable = false`; a diamond-shaped extra area sits over the top-right corner to
    /// make overlaps and non-square candidates.
    pub(crate) fn square_map(n: usize, m: usize, s: f32, blocked: &[usize], cells: u32) -> LandMap {
        let mut b = MapBuilder::new();
        for j in 0..m {
            for i in 0..n {
                let (x, y) = (i as f32 * s, j as f32 * s);
                b.add_area(&AreaSpec {
                    polygon: vec![
                        [x, y, 0.0],
                        [x + s, y, 0.0],
                        [x + s, y + s, 0.0],
                        [x, y + s, 0.0],
                    ],
                    walkable: !blocked.contains(&(j * n + i)),
                    class_id: 0,
                })
                .unwrap();
            }
        }
        b.link_shared_edges();
        let (w, h) = (n as f32 * s, m as f32 * s);
        b.build(
            cells,
            cells,
            Bounds {
                min: [0.0, 0.0],
                max: [w, h],
            },
        )
        .unwrap()
    }

    #[test]
    fn area_lookup_agrees_with_brute_force_on_100k_points() {
        let mut b = MapBuilder::new();
        let (n, s) = (12usize, 10.0f32);
        for j in 0..n {
            for i in 0..n {
                let (x, y) = (i as f32 * s, j as f32 * s);
                b.add_area(&AreaSpec {
                    polygon: vec![
                        [x, y, 0.0],
                        [x + s, y, 1.0],
                        [x + s, y + s, 2.0],
                        [x, y + s, 0.0],
                    ],
                    walkable: (i + j) % 5 != 0,
                    class_id: 0,
                })
                .unwrap();
            }
        }
        // Overlapping, non-convex extra areas (an L shape and a triangle).
        b.add_area(&AreaSpec {
            polygon: vec![
                [15.0, 15.0, 0.0],
                [55.0, 15.0, 0.0],
                [55.0, 25.0, 0.0],
                [25.0, 25.0, 0.0],
                [25.0, 65.0, 0.0],
                [15.0, 65.0, 0.0],
            ],
            walkable: true,
            class_id: 1,
        })
        .unwrap();
        b.add_area(&AreaSpec {
            polygon: vec![[70.0, 70.0, 0.0], [118.0, 80.0, 0.0], [90.0, 119.0, 0.0]],
            walkable: false,
            class_id: 2,
        })
        .unwrap();
        b.link_shared_edges();
        let map = b
            .build(
                37,
                29,
                Bounds {
                    min: [0.0, 0.0],
                    max: [120.0, 120.0],
                },
            )
            .unwrap();
        let areals = Areals::new(&map);
        let mut r = rng(0x7E55);
        let mut hits = 0;
        for k in 0..100_000 {
            // Mostly inside, some outside, some exactly on cell/area boundaries.
            let (x, y) = if k % 10 == 0 {
                ((r() * 13.0).floor() * 10.0, r() * 120.0)
            } else {
                (r() * 130.0 - 5.0, r() * 130.0 - 5.0)
            };
            let got = areals.area_at(x, y);
            assert_eq!(got, areals.area_at_brute_force(x, y), "({x}, {y})");
            hits += usize::from(got.is_some());
        }
        assert!(hits > 80_000, "{hits}");
        assert_eq!(areals.area_at(-1.0, 50.0), None);
        assert_eq!(areals.area_at(50.0, 121.0), None);
    }

    #[test]
    fn span_checks_never_change_the_crossing_rule() {
        // Random rings (some with a NaN or infinite vertex) at large coordinates, and
        // points on their vertices, just outside their spans and far away: `contains`
        // must answer what the bare crossing-number rule answers.
        let mut r = rng(0x5EA5);
        let mut inside = 0;
        for k in 0..4_000 {
            let base = Vec3::new(r() * 5000.0 - 2500.0, r() * 5000.0 - 2500.0, 0.0);
            let scale = [0.001, 1.0, 40.0][k % 3];
            let n = 3 + (r() * 6.0) as usize;
            let mut ring: Vec<Vec3> = (0..n)
                .map(|_| base + Vec3::new(r() - 0.5, r() - 0.5, 0.0) * scale)
                .collect();
            if k % 50 == 0 {
                ring[1].x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k / 50 % 3];
            }
            let y_span = ring
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                    (l.min(p.y), h.max(p.y))
                });
            let area = Area {
                x_reach: x_reach(&ring),
                ring: ring.clone(),
                y_span,
                centroid: base,
                walkable: true,
                links: Vec::new(),
            };
            let mut areals = Areals::new(&square_map(1, 1, 1.0, &[], 1));
            areals.areas = vec![area];
            for _ in 0..16 {
                let v = ring[(r() * n as f32) as usize % n];
                let (dx, dy) = ((r() - 0.5) * scale * 3.0, (r() - 0.5) * scale * 3.0);
                let (x, y) = match (r() * 4.0) as u32 {
                    0 => (v.x, v.y),
                    1 => (v.x, base.y + dy),
                    2 => (base.x + dx, v.y),
                    _ => (base.x + dx, base.y + dy),
                };
                let rule = crossing_number_odd(&ring, x, y);
                assert_eq!(
                    areals.contains(0, x, y),
                    rule,
                    "ring {ring:?} point ({x}, {y})"
                );
                inside += usize::from(rule);
            }
        }
        assert!(
            inside > 5_000,
            "the check must see many inside points: {inside}"
        );
    }

    #[test]
    fn grid_returns_the_file_candidates() {
        let map = square_map(7, 5, 8.0, &[], 16);
        let areals = Areals::new(&map);
        let (cx, cy) = (map.grid.cells_x(), map.grid.cells_y());
        let (w, h) = (56.0 / cx as f32, 40.0 / cy as f32);
        for y in 0..cy {
            for x in 0..cx {
                let (px, py) = ((x as f32 + 0.5) * w, (y as f32 + 0.5) * h);
                assert_eq!(areals.candidates(px, py), map.grid.cell(x, y).unwrap());
            }
        }
        assert!(areals.candidates(57.0, 1.0).is_empty());
    }

    #[test]
    fn walkable_wins_overlaps_then_lowest_id() {
        // Areas 0 and 1 share the edge x = 8; area 0 is blocked.
        let map = square_map(2, 1, 8.0, &[0], 4);
        let a = Areals::new(&map);
        assert_eq!(a.area_at(4.0, 4.0), Some(0));
        assert_eq!(a.area_at(12.0, 4.0), Some(1));
        assert!(!a.is_walkable(0) && a.is_walkable(1));
    }

    /// Cheapest cost over all simple paths (exhaustive DFS).
    fn exhaustive(a: &Areals, from: u32, to: u32) -> Option<f32> {
        exhaustive_avoiding(a, from, to, &[])
    }

    /// Cheapest cost over all simple paths that never step along a link of `avoid`.
    fn exhaustive_avoiding(a: &Areals, from: u32, to: u32, avoid: &[(u32, u32)]) -> Option<f32> {
        #[allow(clippy::too_many_arguments)]
        fn dfs(
            a: &Areals,
            cur: u32,
            to: u32,
            avoid: &[(u32, u32)],
            seen: &mut Vec<bool>,
            cost: f32,
            best: &mut Option<f32>,
        ) {
            if cur == to {
                if best.is_none_or(|b| cost < b) {
                    *best = Some(cost);
                }
                return;
            }
            for (n, c) in a.neighbours(cur) {
                let banned = avoid
                    .iter()
                    .any(|&(x, y)| (x == cur && y == n) || (x == n && y == cur));
                if !seen[n as usize] && !banned {
                    seen[n as usize] = true;
                    dfs(a, n, to, avoid, seen, cost + c, best);
                    seen[n as usize] = false;
                }
            }
        }
        let mut seen = vec![false; a.len()];
        seen[from as usize] = true;
        let mut best = None;
        dfs(a, from, to, avoid, &mut seen, 0.0, &mut best);
        best
    }

    #[test]
    fn routes_avoiding_links_are_optimal_and_never_use_them() {
        // 4 × 3 squares (ids row by row): avoid single links, a wall of links, and
        // links given in either order or twice.
        let map = square_map(4, 3, 10.0, &[], 8);
        let a = Areals::new(&map);
        let sets: [&[(u32, u32)]; 4] = [
            &[(1, 2)],
            &[(2, 1), (6, 5), (10, 9)],
            &[(0, 1), (1, 0), (4, 5)],
            &[(0, 1), (0, 4)],
        ];
        for avoid in sets {
            for from in 0..a.len() as u32 {
                for to in 0..a.len() as u32 {
                    match (
                        a.route_avoiding(from, to, avoid),
                        exhaustive_avoiding(&a, from, to, avoid),
                    ) {
                        (Ok(r), Some(best)) => {
                            for w in r.windows(2) {
                                assert!(
                                    !avoid
                                        .iter()
                                        .any(|&(x, y)| (x, y) == (w[0], w[1])
                                            || (y, x) == (w[0], w[1])),
                                    "{from}->{to} uses an avoided link: {r:?}"
                                );
                            }
                            assert!(
                                (a.route_cost(&r) - best).abs() < 1e-3,
                                "{from}->{to} {avoid:?}"
                            );
                        }
                        (Err(RouteError::Unreachable { .. }), None) => {}
                        (got, best) => panic!("{from}->{to} {avoid:?}: {got:?} vs {best:?}"),
                    }
                }
            }
        }
        // The wall of links cuts the map in two; area 0 cut off from everything.
        assert_eq!(
            a.route_avoiding(0, 3, &[(1, 2), (5, 6), (9, 10)]),
            Err(RouteError::Unreachable { from: 0, to: 3 })
        );
        assert_eq!(
            a.route_avoiding(0, 5, &[(0, 1), (0, 4)]),
            Err(RouteError::Unreachable { from: 0, to: 5 })
        );
        // Nothing avoided: the plain route.
        assert_eq!(a.route_avoiding(0, 3, &[]), a.route(0, 3));
    }

    #[test]
    fn routes_are_optimal_against_exhaustive_search() {
        // 4 × 3 squares with irregular heights via a blocked area; costs are centroid
        // distances, so several equal-cost paths exist: compare by cost.
        for blocked in [&[][..], &[5][..], &[1, 5][..], &[4, 5, 6][..]] {
            let map = square_map(4, 3, 10.0, blocked, 8);
            let a = Areals::new(&map);
            for from in 0..a.len() as u32 {
                for to in 0..a.len() as u32 {
                    let got = a.route(from, to);
                    match (got, exhaustive(&a, from, to)) {
                        (Ok(r), Some(best)) => {
                            assert_eq!((r[0], *r.last().unwrap()), (from, to));
                            for w in r.windows(2) {
                                assert!(a.neighbours(w[0]).iter().any(|n| n.0 == w[1]));
                            }
                            assert!((a.route_cost(&r) - best).abs() < 1e-3, "{from}->{to}");
                            assert_eq!(a.corridor(&r).len(), r.len() - 1);
                        }
                        (Err(RouteError::NotWalkable { area }), _) => {
                            assert!(blocked.contains(&(area as usize)));
                        }
                        (Err(RouteError::Unreachable { .. }), None) => {}
                        (got, best) => panic!("{from}->{to}: {got:?} vs {best:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn unreachable_and_not_walkable_are_explicit() {
        // Column 1 of a 3 × 2 grid is blocked: left and right halves are cut apart.
        let map = square_map(3, 2, 10.0, &[1, 4], 4);
        let a = Areals::new(&map);
        assert_eq!(
            a.route(0, 2),
            Err(RouteError::Unreachable { from: 0, to: 2 })
        );
        assert_eq!(a.route(0, 1), Err(RouteError::NotWalkable { area: 1 }));
        assert_eq!(a.route(4, 0), Err(RouteError::NotWalkable { area: 4 }));
        assert_eq!(a.route(0, 99), Err(RouteError::NoSuchArea { area: 99 }));
        assert_eq!(a.route(0, 3), Ok(vec![0, 3]));
        assert_eq!(a.route(2, 2), Ok(vec![2]));
    }

    #[test]
    fn corridor_gives_the_shared_edges() {
        let map = square_map(3, 1, 10.0, &[], 4);
        let a = Areals::new(&map);
        let r = a.route(0, 2).unwrap();
        assert_eq!(r, vec![0, 1, 2]);
        let c = a.corridor(&r);
        let xs: Vec<(f32, f32)> = c.iter().map(|(p, q)| (p.x, q.x)).collect();
        assert_eq!(xs, vec![(10.0, 10.0), (20.0, 20.0)]);
        for (p, q) in c {
            assert_eq!((p.y.min(q.y), p.y.max(q.y)), (0.0, 10.0));
        }
    }
}
