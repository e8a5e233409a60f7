//! Step 6 of [`World::step`], the walkable check (PD-CTRL-WALKABLE): the batch ground
//! probe and the put-back rounds, as the parent module's docs describe.

use super::solver::Solve;
use super::{Ground, QUIET_PUSH, StepReport, WALKABLE_ROUNDS, World};
use glam::{Vec2, Vec3};
use iron3d_abi::{GroundSample, physical_flags};

impl World {
    /// Probes the ground under the mobile units `todo` (indices into `self.mobile`) at
    /// their places in `xy`, keeping each sample and where it was taken; `false` when
    /// there is no terrain.
    pub(super) fn probe(
        &mut self,
        ground: &mut dyn Ground,
        xy: &[Vec2],
        todo: &[u32],
    ) -> Result<bool, String> {
        let mut points = std::mem::take(&mut self.scratch_points);
        points.clear();
        points.extend(
            todo.iter()
                .map(|&k| xy[self.mobile[k as usize] as usize].extend(0.0)),
        );
        let answer = ground.probe(&points);
        self.scratch_points = points;
        let Some(samples) = answer? else {
            return Ok(false);
        };
        if samples.len() != todo.len() {
            return Err(format!(
                "terrain probe answered {} samples for {} points",
                samples.len(),
                todo.len()
            ));
        }
        for (&k, g) in todo.iter().zip(samples) {
            let k = k as usize;
            self.probed[k] = xy[self.mobile[k] as usize];
            self.samples[k] = g;
        }
        Ok(true)
    }

    /// Fills `todo` with the mobile units (indices into `self.mobile`) that stand
    /// elsewhere in `xy` than where their ground sample was taken.
    pub(super) fn moved_since_probe(&self, xy: &[Vec2], todo: &mut Vec<u32>) {
        todo.clear();
        todo.extend(
            (0..self.mobile.len() as u32)
                .filter(|&k| xy[self.mobile[k as usize] as usize] != self.probed[k as usize]),
        );
    }

    /// The walkable check at the resolved positions `s.xy`: one batch probe; a refused
    /// step is put back and pinned, the resolution runs again (on `s`: its pass budget
    /// and push bookkeeping go on), and only the units that moved since their probe
    /// are probed again. `drove`: per mobile unit, whether its own motion moved it.
    /// Leaves every mobile unit's sample in `self.samples`; `false` when there is no
    /// terrain.
    pub(super) fn walkable_check(
        &mut self,
        ground: &mut dyn Ground,
        s: &mut Solve<'_>,
        drove: &[bool],
        report: &mut StepReport,
    ) -> Result<bool, String> {
        let m = self.mobile.len();
        self.probed.clear();
        self.probed.resize(m, Vec2::NAN);
        self.samples.clear();
        self.samples.resize(
            m,
            GroundSample {
                on_surface: false,
                height: 0.0,
                normal: Vec3::Z.into(),
                area: 0,
                walkable: false,
            },
        );
        let mut todo = std::mem::take(&mut self.todo);
        todo.clear();
        todo.extend(0..m as u32);
        let mut terrain = true;
        let mut round = 0;
        while !todo.is_empty() {
            if !self.probe(ground, s.xy, &todo)? {
                terrain = false;
                break;
            }
            let mut refused = false;
            let mut quiet_back = false;
            for &k in &todo {
                let k = k as usize;
                let i = self.mobile[k] as usize;
                let u = &mut self.units[i];
                let g = &self.samples[k];
                let on_walkable = u.flags & physical_flags::ON_NON_WALKABLE == 0;
                if s.xy[i] != s.old_xy[i] && (!g.on_surface || (!g.walkable && on_walkable)) {
                    let quiet = s.xy[i].distance_squared(s.old_xy[i]) <= QUIET_PUSH * QUIET_PUSH;
                    quiet_back |= quiet;
                    s.xy[i] = s.old_xy[i];
                    s.pinned[i] = true;
                    if !quiet {
                        *s.pushes += 1;
                        s.pushed_at[i] = *s.pushes;
                        refused = true;
                    }
                    report.put_back += 1;
                    if drove[k] {
                        u.speed = 0.0;
                        if u.flags & physical_flags::LEFT_WALKABLE == 0 {
                            report.left_walkable.push(u.id);
                        }
                        u.flags |= physical_flags::LEFT_WALKABLE;
                    }
                }
            }
            if !refused {
                // Every unit stands where its sample was taken, but those put back
                // quietly: they are probed where they stand and the check ends.
                if quiet_back {
                    self.moved_since_probe(s.xy, &mut todo);
                    if !todo.is_empty() && !self.probe(ground, s.xy, &todo)? {
                        terrain = false;
                    }
                }
                break;
            }
            round += 1;
            if round <= WALKABLE_ROUNDS {
                self.resolve(s, report);
            }
            self.moved_since_probe(s.xy, &mut todo);
            if round > WALKABLE_ROUNDS {
                // No resolution ran: only the units just put back moved, to where they
                // stood, which stands; their samples are taken and the check ends.
                if !todo.is_empty() && !self.probe(ground, s.xy, &todo)? {
                    terrain = false;
                }
                break;
            }
        }
        self.todo = todo;
        Ok(terrain)
    }
}
