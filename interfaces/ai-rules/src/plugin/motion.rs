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
        let Some(a) = self.saved.agents.get_mut(id) else {
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

    /// Asks the control service for motion `r` of the agent at roster position `pos`
    /// (nothing when it was the last request sent).
    pub(super) fn request(
        &mut self,
        host: &mut Host<'_>,
        pos: usize,
        handle: ObjectRef,
        r: MotionRequest,
    ) -> Result<(), PluginError> {
        let Some(shadow) = self.saved.agents.shadow_mut(pos) else {
            return Ok(());
        };
        if shadow.sent == Some(r) {
            return Ok(());
        }
        match host.control().set_motion(handle, r) {
            Ok(()) => {}
            // No control plugin, or one that does not move this object: nothing to ask.
            Err(e)
                if matches!(
                    e.kind,
                    ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED | ErrorKind::INVALID
                ) => {}
            Err(e) => return Err(e),
        }
        shadow.sent = Some(r);
        Ok(())
    }

    pub(super) fn think(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let mut rng = PluginRng::from_bytes(&self.saved.rng).unwrap_or_else(|| PluginRng::new(0));
        let rules = self.rules();
        for pos in 0..self.saved.agents.len() {
            let Some((handle, at)) = self.body_of(pos).map(|b| (b.handle, ground(b.position)))
            else {
                continue;
            };
            let Some((a, _)) = self.saved.agents.at_mut(pos) else {
                continue;
            };
            let id = a.id;
            if a.role == Role::Inert || a.activity == Activity::Dead || a.manual {
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
            let Some((a, _)) = self.saved.agents.at_mut(pos) else {
                continue;
            };
            a.retry(now);
            a.stuck_check(at, now);
            let a = &self.saved.agents.agents()[pos];
            let p = self.perceive(a, at);
            // An attack or harvest order whose object is dead, gone or empty is done.
            let done = match a.order {
                Some(Order::Attack(_)) => p.ordered.is_none(),
                Some(Order::Harvest(_)) => p.ordered.is_none_or(|m| m.ore < MIN_ORE),
                _ => false,
            };
            if done {
                if let Some((a, _)) = self.saved.agents.at_mut(pos) {
                    tracing::debug!(target: "Behavior.log", object = id, order = ?a.order, "order done");
                    a.order = None;
                }
            }
            let a = &self.saved.agents.agents()[pos];
            let d = behavior::decide_with(a, &p, Weapon::of(a.role).as_ref(), &rules);
            self.set_activity(host, id, handle, d)?;
        }
        self.saved.rng = rng.to_bytes().to_vec();
        Ok(())
    }

    pub(super) fn report(&mut self, id: u32, state: ErrorState, why: &str, now: u32) {
        if let Some(a) = self.saved.agents.get_mut(id) {
            if a.enter_error(state, now) {
                tracing::warn!(target: "Behavior.log", object = id, state = state.number(), name = state.name(), why, "error state");
            }
        }
    }

    pub(super) fn steer(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let params = self.path_params();
        let wparams = self.wizard_params();
        let mut near = std::mem::take(&mut self.scratch.near);
        let mut neighbours = std::mem::take(&mut self.scratch.neighbours);
        let mut settled = std::mem::take(&mut self.scratch.settled);
        let result = (0..self.saved.agents.len()).try_for_each(|pos| {
            self.steer_one(
                host,
                now,
                pos,
                &params,
                &wparams,
                &mut near,
                &mut neighbours,
                &mut settled,
            )
        });
        self.scratch.near = near;
        self.scratch.neighbours = neighbours;
        self.scratch.settled = settled;
        result
    }

    /// One agent's movement this tick (see [`Self::steer`]).
    #[allow(clippy::too_many_arguments)]
    fn steer_one(
        &mut self,
        host: &mut Host<'_>,
        now: u32,
        pos: usize,
        params: &PathParams,
        wparams: &WizardParams,
        near: &mut Vec<u32>,
        neighbours: &mut Vec<Neighbour>,
        settled: &mut Vec<Settled>,
    ) -> Result<(), PluginError> {
        let Some(a) = self.saved.agents.agents().get(pos) else {
            return Ok(());
        };
        if !a.role.mobile() || a.activity == Activity::Dead || a.manual {
            return Ok(());
        }
        let (id, bi) = (a.id, self.scratch.agent_body[pos]);
        let Some(b) = self.scratch.bodies.get(bi as usize).copied() else {
            return Ok(());
        };
        let at = ground(b.position);
        // What docking needs (the proxies) before the agent is borrowed.
        let dock_target = matches!(a.activity, Activity::Harvest | Activity::Deliver)
            .then_some(a.target)
            .flatten();
        let docked = dock_target.is_some_and(|t| self.docked(host, id, t));
        let rules = self.rules();
        let Some(a) = self.saved.agents.agents().get(pos) else {
            return Ok(());
        };
        let waiting = a.error.is_some() && a.path.goal.is_some() && a.path.points.is_empty();
        // The objects around a unit on its way, for PD-AI-CROWD-ARRIVE and Wizard: their
        // proxies, and those settled at a goal.
        neighbours.clear();
        settled.clear();
        let mut radius = 1.0;
        if a.path.goal.is_some() && !waiting && !docked {
            radius = self.proxy(host, bi as usize).map_or(1.0, |p| p.0);
            near.clear();
            self.around(at, WIZARD_RANGE, near);
            for &i in near.iter() {
                let o = self.scratch.bodies[i as usize];
                if o.id == id {
                    continue;
                }
                let Some((r, building)) = self.proxy(host, i as usize) else {
                    continue;
                };
                let position = ground(o.position);
                neighbours.push(Neighbour {
                    id: o.id,
                    position,
                    velocity: ground(o.velocity),
                    radius: r,
                    building,
                });
                let arrived = self
                    .agent_at(i as usize)
                    .filter(|n| n.activity != Activity::Dead)
                    .and_then(|n| n.path.arrived);
                if let Some(goal) = arrived {
                    settled.push(Settled {
                        id: o.id,
                        position,
                        radius: r,
                        goal,
                    });
                }
            }
        }
        let Some((a, _)) = self.saved.agents.at_mut(pos) else {
            return Ok(());
        };
        let steer = if waiting {
            // In an error state: wait for a new goal or the retry (think).
            Steer::Idle
        } else if docked {
            // At the mine or storage: the goal is its centre, inside its proxy; docking
            // is arrival.
            a.path.set_goal(None);
            Steer::Idle
        } else if a.path.arrive_under(at, ground(b.velocity), radius) {
            tracing::debug!(target: "Behavior.log", object = id,
                "arrived: the goal is under the unit, which no longer closes in (PD-AI-ARRIVE-UNDER)");
            Steer::Arrived
        } else if let Some(by) = a.path.crowd_arrive(at, radius, settled) {
            tracing::debug!(target: "Behavior.log", object = id, by,
                "arrived: touching a unit settled at the goal (PD-AI-CROWD-ARRIVE)");
            Steer::Arrived
        } else {
            let mut planner = HostPlanner {
                host,
                routes: &mut self.scratch.routes,
            };
            let was = a.path.escape;
            let steer = a.path.steer(at, &mut planner, params);
            if let Some(e) = a.path.escape.filter(|_| was.is_none()) {
                tracing::debug!(target: "Behavior.log", object = id, x = e.x, y = e.y,
                    "on non-walkable ground: heading for the nearest walkable point (PD-AI-ESCAPE)");
            }
            steer
        };
        let speed = rules.cruise_speed(a.role);
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
                let v = a.wizard.steer(
                    &Mover {
                        at,
                        radius,
                        point,
                        speed,
                    },
                    neighbours,
                    wparams,
                );
                MotionRequest::velocity(Vec3f::from(v.extend(0.0)))
            }
        };
        self.request(host, pos, b.handle, request)
    }
}
