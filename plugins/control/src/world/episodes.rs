//! Step 8 of [`World::step`], contact episodes (PD-CTRL-CONTACT): begins and ends
//! decided at the final positions, with the begin/end gap hysteresis the parent
//! module's docs describe.

use super::{Begin, CONTACT_BEGIN_GAP, CONTACT_END_GAP, End, SETTLED_OVERLAP, StepReport, World};
use glam::{Vec2, Vec3};
use iron3d_abi::physical_flags;

impl World {
    /// Decides the contact episodes at the final places `xy`: the listed pairs are
    /// walked in ascending order beside the old contact set (pairs, and so their id
    /// keys, ascend because indices follow ids: one merge walk); fills the begins,
    /// ends, residual overlaps and deepest overlap of `report`, the units'
    /// [`physical_flags::IN_CONTACT`] bits, the new contact set and the ids pressed by
    /// another vehicle for the next step's PD-CTRL-TRACTION.
    pub(super) fn episodes(&mut self, xy: &[Vec2], report: &mut StepReport) {
        let old = std::mem::take(&mut self.contacts);
        let mut now = std::mem::take(&mut self.spare_contacts);
        now.clear();
        let mut pressed_ids = self.pressed_ids.take().unwrap_or_default();
        pressed_ids.clear();
        let mut cursor = 0;
        for p in &self.solver {
            let (i, j) = (p.i as usize, p.j as usize);
            let key = (self.hot[i].id, self.hot[j].id);
            while cursor < old.len() && old[cursor] < key {
                let (a, b) = old[cursor];
                report.ends.push(End { a, b });
                cursor += 1;
            }
            let was = cursor < old.len() && old[cursor] == key;
            if was {
                cursor += 1;
            }
            let Some((depth, _)) = self.depth_at(xy, p.i, p.j) else {
                if was {
                    report.ends.push(End { a: key.0, b: key.1 });
                }
                continue;
            };
            if depth > SETTLED_OVERLAP {
                report.residual += 1;
            }
            report.max_depth = report.max_depth.max(depth);
            let touching = if was {
                depth >= -CONTACT_END_GAP
            } else {
                depth >= -CONTACT_BEGIN_GAP
            };
            if touching {
                if !was {
                    let point = self
                        .contact_at(xy, p.i, p.j)
                        .map_or(Vec3::ZERO, |c| c.point);
                    report.begins.push(Begin {
                        a: key.0,
                        b: key.1,
                        point,
                    });
                }
                self.units[i].flags |= physical_flags::IN_CONTACT;
                self.units[j].flags |= physical_flags::IN_CONTACT;
                if self.hot[i].mobile & self.hot[j].mobile {
                    pressed_ids.extend([key.0, key.1]);
                }
                now.push(key);
            } else if was {
                report.ends.push(End { a: key.0, b: key.1 });
            }
        }
        for &(a, b) in &old[cursor..] {
            report.ends.push(End { a, b });
        }
        pressed_ids.sort_unstable();
        pressed_ids.dedup();
        self.pressed_ids = Some(pressed_ids);
        self.contacts = now;
        self.spare_contacts = old;
    }
}
