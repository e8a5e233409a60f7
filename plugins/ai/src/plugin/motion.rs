//! Behavior's thinking step and the movement levels below it: activities, the path
//! through the corridor, Wizard and the motion requests to the control service.

use super::*;

impl AiPlugin {
    pub(super) fn set_activity(
        &mut self,
        host: &mut Host<'_>,
        id: u32,
        handle: ObjectRef,
        d: Decision,
    ) -> Result<(), PluginError> {
        let Some(a) = self.saved.agents.get_mut(&id) else {
            return Ok(());
        };
        let before = a.activity;
        if a.path.goal != d.goal {
            // A new goal: the old path and wizard path are void (ClearWizardPath).
            let far = match (a.path.goal, d.goal) {
                (Some(old), Some(new)) => old.distance(new) > 2.0,
                _ => true,
            };
            if far {
                a.path.set_goal(d.goal);
                a.wizard.clear();
                a.error = None;
            }
        }
        a.activity = d.activity;
        a.target = d.target;
        if before != d.activity {
            tracing::debug!(target: "Behavior.log", object = id, from = before.name(), to = d.activity.name(), "activity");
            host.set_behaviour_state(handle, d.activity.number())?;
        }
        Ok(())
    }

    pub(super) fn request(
        &mut self,
        host: &mut Host<'_>,
        id: u32,
        handle: ObjectRef,
        r: MotionRequest,
    ) -> Result<(), PluginError> {
        if self.scratch.sent.get(&id) == Some(&r) {
            return Ok(());
        }
        match host.control().set_motion(handle, r) {
            Ok(()) => {
                self.scratch.sent.insert(id, r);
                Ok(())
            }
            // No control plugin, or one that does not move this object: nothing to ask.
            Err(e)
                if matches!(
                    e.kind,
                    ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED | ErrorKind::INVALID
                ) =>
            {
                self.scratch.sent.insert(id, r);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    pub(super) fn think(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let ids: Vec<u32> = self.saved.agents.keys().copied().collect();
        let mut rng = PluginRng::from_bytes(&self.saved.rng).unwrap_or_else(|| PluginRng::new(0));
        for id in ids {
            let Some(handle) = self.body(id).map(|b| b.handle) else {
                continue;
            };
            let Some(a) = self.saved.agents.get_mut(&id) else {
                continue;
            };
            if a.role == Role::Inert || a.activity == Activity::Dead {
                continue;
            }
            let due = match a.first.poll(now, &mut Rng(&mut rng)) {
                FirstStepPoll::Due => true,
                FirstStepPoll::Spent => is_due(now, a.next_think),
                _ => false,
            };
            if !due {
                continue;
            }
            a.next_think = now.wrapping_add(behavior::THINK_PERIOD_MS);
            let at = self
                .body(id)
                .map(|b| ground(b.position))
                .unwrap_or_default();
            // Control's error state 5: the step was refused at the walkable border.
            if let Ok(Some(s)) = host.control().state(handle) {
                if s.flags & physical_flags::LEFT_WALKABLE != 0 {
                    self.report(
                        id,
                        ErrorState::LeavingNonWalkable,
                        "Control refused the step at the walkable border",
                        now,
                    );
                }
            }
            if let Some(a) = self.saved.agents.get_mut(&id) {
                a.retry(now);
                a.stuck_check(at, now);
            }
            let Some(a) = self.saved.agents.get(&id) else {
                continue;
            };
            let p = self.perceive(a, at);
            let d = behavior::decide(a, &p, Weapon::of(a.role).as_ref());
            self.set_activity(host, id, handle, d)?;
        }
        self.saved.rng = rng.to_bytes().to_vec();
        Ok(())
    }

    pub(super) fn report(&mut self, id: u32, state: ErrorState, why: &str, now: u32) {
        if let Some(a) = self.saved.agents.get_mut(&id) {
            if a.enter_error(state, now) {
                tracing::warn!(target: "Behavior.log", object = id, state = state.number(), name = state.name(), why, "error state");
            }
        }
    }

    pub(super) fn steer(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let params = self.path_params();
        let wparams = self.wizard_params();
        let ids: Vec<u32> = self
            .saved
            .agents
            .values()
            .filter(|a| a.role.mobile() && a.activity != Activity::Dead)
            .map(|a| a.id)
            .collect();
        for id in ids {
            let Some(b) = self.body(id).copied() else {
                continue;
            };
            let at = ground(b.position);
            // What docking needs (the proxies) before the agent is borrowed.
            let dock_target = self.saved.agents.get(&id).and_then(|a| {
                matches!(a.activity, Activity::Harvest | Activity::Deliver)
                    .then_some(a.target)
                    .flatten()
            });
            let docked = dock_target.is_some_and(|t| self.docked(host, id, t));
            let Some(a) = self.saved.agents.get_mut(&id) else {
                continue;
            };
            let steer = if a.error.is_some() && a.path.goal.is_some() && a.path.points.is_empty() {
                // In an error state: wait for a new goal or the retry (think).
                Steer::Idle
            } else if docked {
                // At the mine or storage: the goal is its centre, inside its proxy;
                // docking is arrival.
                a.path.set_goal(None);
                Steer::Idle
            } else {
                let mut planner = HostPlanner {
                    host,
                    routes: &mut self.scratch.routes,
                };
                a.path.steer(at, &mut planner, &params)
            };
            let speed = cruise_speed(a.role);
            let request = match steer {
                Steer::Idle => MotionRequest::stop(),
                Steer::Arrived => {
                    a.reported = None;
                    if a.activity == Activity::Patrol {
                        a.patrol_leg = a.patrol_leg.wrapping_add(1);
                        a.next_think = 0;
                    }
                    if a.activity == Activity::Move {
                        a.order = None;
                        a.next_think = 0;
                    }
                    a.wizard.clear();
                    MotionRequest::stop()
                }
                Steer::Error(state, why) => {
                    if a.enter_error(state, now) {
                        tracing::warn!(target: "Behavior.log", object = id, state = state.number(),
                            name = state.name(), why = why.as_str(), "error state: the unit stops");
                    }
                    // A patrol point that cannot be reached: the next one.
                    if a.activity == Activity::Patrol {
                        a.patrol_leg = a.patrol_leg.wrapping_add(1);
                        a.next_think = 0;
                    }
                    MotionRequest::stop()
                }
                Steer::Toward(point) => {
                    let radius = self.proxy(host, id, b.handle).map_or(1.0, |p| p.0);
                    let mut near = Vec::new();
                    for i in self.around(at, WIZARD_RANGE) {
                        let o = self.scratch.bodies[i];
                        if o.id == id {
                            continue;
                        }
                        if let Some((r, building)) = self.proxy(host, o.id, o.handle) {
                            near.push(Neighbour {
                                id: o.id,
                                position: ground(o.position),
                                velocity: ground(o.velocity),
                                radius: r,
                                building,
                            });
                        }
                    }
                    let Some(a) = self.saved.agents.get_mut(&id) else {
                        continue;
                    };
                    let v = a.wizard.steer(
                        &Mover {
                            at,
                            radius,
                            point,
                            speed,
                        },
                        &near,
                        &wparams,
                    );
                    MotionRequest::velocity(Vec3f::from(v.extend(0.0)))
                }
            };
            self.request(host, id, b.handle, request)?;
        }
        Ok(())
    }
}
