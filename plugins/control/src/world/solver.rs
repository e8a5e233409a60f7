//! Step 5 of [`World::step`], the resolution (PD-CTRL-SOLVER, PD-CTRL-QUIET-PUSH,
//! PD-CTRL-DEPENETRATION): Gauss–Seidel passes over the pairs, then re-pairing of the
//! units the pushes moved, as the parent module's docs describe.

use super::{
    CONTACT_END_GAP, MAX_REPAIR_ROUNDS, MAX_SOLVER_PASSES, PAIR_MARGIN, QUIET_PUSH,
    SOLVER_TOLERANCE, StepReport, World,
};
use crate::broad;
use crate::shape::Shape;
use glam::Vec2;

/// One pair as the solver keeps it.
#[derive(Clone, Copy, Debug)]
pub(super) struct SolverPair {
    pub(super) i: u32,
    pub(super) j: u32,
    /// The push count when the pair was last looked at ([`NEVER`]: not yet).
    pub(super) seen: u32,
    /// The overlap the pair may keep this step (PD-CTRL-DEPENETRATION); NaN until its
    /// first overlap asks for it.
    pub(super) slack: f32,
}

/// [`SolverPair::seen`] of a pair not looked at yet.
pub(super) const NEVER: u32 = u32::MAX;

/// What one resolution works on: this step's places and push bookkeeping.
pub(super) struct Solve<'a> {
    /// Current places (candidates moved by the pushes so far).
    pub(super) xy: &'a mut [Vec2],
    /// Places at the start of the step.
    pub(super) old_xy: &'a [Vec2],
    /// Per unit: the push count just after its last push.
    pub(super) pushed_at: &'a mut [u32],
    /// Per unit: pinned this step (cannot give way).
    pub(super) pinned: &'a mut [bool],
    /// Pushes so far this step.
    pub(super) pushes: &'a mut u32,
    /// How much of a pair's old overlap this step may take out.
    pub(super) depenetration: f32,
    /// Passes left to this step ([`MAX_STEP_PASSES`] at its start).
    pub(super) budget: u32,
    /// Pairs the passes looked at so far (added to [`StepReport::looks`]).
    pub(super) looks: u32,
}

impl World {
    /// Resolves one pair at the current positions: an overlap beyond the pair's slack
    /// pushes the pair apart along the normal (half each for two free vehicles, all of
    /// it by the free one against a pinned one or an obstacle; a vehicle pushed by an
    /// obstacle is pinned) and stamps the pushed units with the new push count (not
    /// for a push within [`QUIET_PUSH`], PD-CTRL-QUIET-PUSH).
    /// Returns how far it pushed, `None` when the height ranges do not meet.
    fn resolve_pair(&self, s: &mut Solve<'_>, p: &mut SolverPair) -> Option<f32> {
        // Two circles apart push nothing, whatever their heights: the cheap test first.
        let (i, j) = (p.i as usize, p.j as usize);
        if let (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) =
            (self.hot[i].proxy.shape, self.hot[j].proxy.shape)
        {
            let r = ra + rb;
            if s.xy[i].distance_squared(s.xy[j]) >= r * r {
                return Some(0.0);
            }
        }
        let (depth, normal) = self.depth_at(s.xy, p.i, p.j)?;
        if depth <= 0.0 {
            return Some(0.0);
        }
        if p.slack.is_nan() {
            // PD-CTRL-DEPENETRATION: the overlap at the start of the step, less what
            // this step may take out of it.
            p.slack = match self.depth_at(s.old_xy, p.i, p.j) {
                Some((d, _)) => (d - s.depenetration).max(0.0),
                None => 0.0,
            };
        }
        let excess = depth - p.slack;
        if excess <= 0.0 {
            return Some(0.0);
        }
        let push = normal * excess;
        // PD-CTRL-QUIET-PUSH: a push within QUIET_PUSH moves the units but does not
        // mark them moved, so it wakes none of their other pairs.
        let stamp = if excess > QUIET_PUSH {
            *s.pushes += 1;
            Some(*s.pushes)
        } else {
            None
        };
        let mut mark = |k: usize| {
            if let Some(t) = stamp {
                s.pushed_at[k] = t;
            }
        };
        match (self.hot[i].mobile, self.hot[j].mobile) {
            (true, true) => {
                let (wi, wj) = match (s.pinned[i], s.pinned[j]) {
                    (true, false) => (0.0, 1.0),
                    (false, true) => (1.0, 0.0),
                    _ => (0.5, 0.5),
                };
                s.xy[i] -= push * wi;
                s.xy[j] += push * wj;
                mark(i);
                mark(j);
            }
            (true, false) => {
                s.xy[i] -= push;
                mark(i);
                s.pinned[i] = true;
            }
            (false, true) => {
                s.xy[j] += push;
                mark(j);
                s.pinned[j] = true;
            }
            (false, false) => {}
        }
        Some(excess)
    }

    /// Gauss–Seidel passes over `pairs` until one pushes nothing beyond the tolerance;
    /// returns the passes run.
    fn passes(&self, s: &mut Solve<'_>, pairs: &mut [SolverPair]) -> u32 {
        // The step's pass budget; one pass always runs (a new pair is looked at once).
        let allowed = s.budget.clamp(1, MAX_SOLVER_PASSES);
        let mut run = 0;
        for _ in 0..allowed {
            run += 1;
            let mut worst = 0.0f32;
            for p in pairs.iter_mut() {
                if p.seen != NEVER
                    && s.pushed_at[p.i as usize] <= p.seen
                    && s.pushed_at[p.j as usize] <= p.seen
                {
                    continue;
                }
                p.seen = *s.pushes;
                s.looks += 1;
                if let Some(pushed) = self.resolve_pair(s, p) {
                    worst = worst.max(pushed);
                }
            }
            if worst <= SOLVER_TOLERANCE {
                break;
            }
        }
        s.budget = s.budget.saturating_sub(run);
        run
    }

    /// One resolution (step 5): passes, then re-pairing of the units the pushes moved
    /// more than half the pair margin and passes over the new pairs, at most
    /// [`MAX_REPAIR_ROUNDS`] times.
    pub(super) fn resolve(&mut self, s: &mut Solve<'_>, report: &mut StepReport) {
        let mut pairs = std::mem::take(&mut self.solver);
        report.passes += self.passes(s, &mut pairs);
        for _ in 0..MAX_REPAIR_ROUNDS {
            let added = self.repair(s.xy, &mut pairs);
            if added == 0 {
                break;
            }
            report.repaired += added;
            report.passes += self.passes(s, &mut pairs);
        }
        self.solver = pairs;
        report.looks += s.looks;
        s.looks = 0;
    }

    /// Pairs again every unit that moved more than half the pair margin from where it
    /// was last paired: at its place now, against the grid's units where they were
    /// paired and directly against the units the grid may not hold there (the pair
    /// cache's strays, oversized units, units paired again this step). Adds the pairs
    /// not yet in `pairs` (kept ascending) and returns how many.
    fn repair(&mut self, xy: &[Vec2], pairs: &mut Vec<SolverPair>) -> usize {
        // A pair never listed was more than the margin apart where its units were
        // paired; neither moved more than `half` since, so its gap still exceeds the
        // end gap (no contact is missed, none is ended while still touching).
        let half = (PAIR_MARGIN - CONTACT_END_GAP) * 0.5;
        let first_moved = self.moved.len();
        for (i, (p, h)) in xy.iter().zip(&self.hot).enumerate() {
            if h.mobile && p.distance_squared(self.anchor[i]) > half * half {
                self.moved.push(i as u32);
            }
        }
        if self.moved.len() == first_moved {
            return 0;
        }
        let movers = first_moved..self.moved.len();
        for k in movers.clone() {
            let m = self.moved[k] as usize;
            let (lo, hi) = self.placed_hot(m, xy[m]).aabb();
            self.boxes[m].lo = lo;
            self.boxes[m].hi = hi;
            self.anchor[m] = xy[m];
        }
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.clear();
        let mut add = |a: u32, b: u32, boxes: &[broad::BoxEntry]| {
            let (x, y) = (&boxes[a as usize], &boxes[b as usize]);
            if a != b && !(x.fixed & y.fixed) && broad::meet(x, y) {
                fresh.push(SolverPair {
                    i: a.min(b),
                    j: a.max(b),
                    seen: NEVER,
                    slack: f32::NAN,
                });
            }
        };
        // The loose units: the pair cache's strays and every unit paired again this
        // step, by the cells of their boxes (the grid holds them elsewhere, or not at
        // all); a loose box over `MAX_BOX_CELLS` cells is tested directly.
        let key = |x: i32, y: i32| (u64::from(x as u32) << 32) | u64::from(y as u32);
        let mut loose = std::mem::take(&mut self.loose);
        loose.clear();
        let mut big = std::mem::take(&mut self.loose_big);
        big.clear();
        for &s in self.pair_cache.strays().iter().chain(&self.moved) {
            if s as usize >= self.units.len() {
                continue;
            }
            let b = self.boxes[s as usize];
            let c = self.index.cell_box(b.lo - PAIR_MARGIN, b.hi + PAIR_MARGIN);
            if broad::cells_of(c) > broad::MAX_BOX_CELLS {
                big.push(s);
                continue;
            }
            for cy in c.1..=c.3 {
                for cx in c.0..=c.2 {
                    loose.push((key(cx, cy), s));
                }
            }
        }
        loose.sort_unstable();
        loose.dedup();
        for k in movers {
            let m = self.moved[k];
            let b = self.boxes[m as usize];
            let (x0, y0, x1, y1) = self.index.cell_box(b.lo - PAIR_MARGIN, b.hi + PAIR_MARGIN);
            if broad::cells_of((x0, y0, x1, y1)) > broad::MAX_BOX_CELLS {
                for o in 0..self.units.len() as u32 {
                    add(m, o, &self.boxes);
                }
                continue;
            }
            for cy in y0..=y1 {
                for cx in x0..=x1 {
                    for &o in self.index.cell(cx, cy) {
                        if (o as usize) < self.units.len() {
                            add(m, o, &self.boxes);
                        }
                    }
                    let k = key(cx, cy);
                    let from = loose.partition_point(|e| e.0 < k);
                    for &(_, o) in loose[from..].iter().take_while(|e| e.0 == k) {
                        add(m, o, &self.boxes);
                    }
                }
            }
            for &o in self.index.oversized().iter().chain(&big) {
                if (o as usize) < self.units.len() {
                    add(m, o, &self.boxes);
                }
            }
        }
        self.loose = loose;
        self.loose_big = big;
        fresh.sort_unstable_by_key(|p| (p.i, p.j));
        fresh.dedup_by_key(|p| (p.i, p.j));
        fresh.retain(|p| {
            pairs
                .binary_search_by_key(&(p.i, p.j), |q| (q.i, q.j))
                .is_err()
        });
        let added = fresh.len();
        if added > 0 {
            let mut merged = std::mem::take(&mut self.merged);
            merged.clear();
            let (mut a, mut b) = (0, 0);
            while a < pairs.len() && b < fresh.len() {
                if (pairs[a].i, pairs[a].j) < (fresh[b].i, fresh[b].j) {
                    merged.push(pairs[a]);
                    a += 1;
                } else {
                    merged.push(fresh[b]);
                    b += 1;
                }
            }
            merged.extend_from_slice(&pairs[a..]);
            merged.extend_from_slice(&fresh[b..]);
            std::mem::swap(pairs, &mut merged);
            self.merged = merged;
        }
        self.fresh = fresh;
        added
    }
}
