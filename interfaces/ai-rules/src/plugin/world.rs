//! The world as the AI sees it in one tick: the batch of bodies, the neighbour grid,
//! per-body clans, proxies from the control service, perception, and the terrain
//! service as Behavior's planner.

use super::*;
use iron3d_abi::{AreaLink, Passage};

/// The terrain service as Behavior plans with it, cached per areal pair.
pub(super) struct HostPlanner<'s, 'h, 'a> {
    pub(super) host: &'h mut Host<'a>,
    pub(super) routes: &'s mut BTreeMap<(u32, u32), Plan>,
}

fn error_state(e: &PluginError) -> ErrorState {
    match e.kind {
        ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED => ErrorState::NoTerrain,
        ErrorKind::NOT_FOUND => ErrorState::NoSystemMap,
        ErrorKind::NO_AREA => ErrorState::NoArealMap,
        _ => ErrorState::NonReachable,
    }
}

impl Planner for HostPlanner<'_, '_, '_> {
    fn area(&mut self, at: Vec2) -> Option<u32> {
        self.host.terrain().area(at.x, at.y).ok().flatten()
    }

    fn plan(&mut self, from: Vec2, to: Vec2, avoid: &[(u32, u32)]) -> Plan {
        let area = |host: &mut Host<'_>, p: Vec2| host.terrain().area(p.x, p.y);
        let key = match (area(self.host, from), area(self.host, to)) {
            (Ok(Some(a)), Ok(Some(b))) => Some((a, b)),
            (Err(e), _) | (_, Err(e)) => return Err((error_state(&e), e.message.to_string())),
            _ => None,
        };
        // Detours are not cached: they depend on what this unit found blocked.
        let key = key.filter(|_| avoid.is_empty());
        if let Some(hit) = key.and_then(|k| self.routes.get(&k)) {
            return hit.clone();
        }
        let (a, b) = (Vec3f::from(from.extend(0.0)), Vec3f::from(to.extend(0.0)));
        let links: Vec<AreaLink> = avoid.iter().map(|&(x, y)| AreaLink::new(x, y)).collect();
        let passage = match self.host.terrain().passage(a, b, &links) {
            // An engine or terrain plugin before interface 2.2: the route and corridor
            // (links to avoid cannot be honoured there).
            Err(e) if e.kind == ErrorKind::UNSUPPORTED => {
                self.host.terrain().corridor(a, b).and_then(|portals| {
                    Ok(Passage {
                        route: self.host.terrain().route(a, b)?.into(),
                        portals: portals.into(),
                    })
                })
            }
            p => p,
        };
        let plan = passage
            .map(|p| {
                let portals = p
                    .portals
                    .iter()
                    .map(|p| (ground(p.a), ground(p.b)))
                    .collect();
                (p.route.into_vec(), portals)
            })
            .map_err(|e| (error_state(&e), e.message.to_string()));
        if let Some(k) = key {
            if self.routes.len() >= ROUTE_CACHE_MAX {
                self.routes.clear();
            }
            self.routes.insert(k, plan.clone());
        }
        plan
    }

    /// The terrain's probe, one batch: walkable where a sample is on the surface
    /// (PD-AI-ESCAPE); a failed probe (no map, a terrain before 2.1) cannot say.
    fn walkable(&mut self, points: &[Vec2]) -> Vec<Option<bool>> {
        let at: Vec<Vec3f> = points.iter().map(|p| Vec3f::from(p.extend(0.0))).collect();
        match self.host.terrain().probe(&at) {
            Ok(s) if s.len() == points.len() => s
                .iter()
                .map(|g| g.on_surface.then_some(g.walkable))
                .collect(),
            _ => vec![None; points.len()],
        }
    }
}

impl AiPlugin {
    /// This tick's body of object `id`.
    pub(super) fn body(&self, id: u32) -> Option<&Body> {
        let i = self.rank(id)?;
        self.scratch.bodies.get(i)
    }

    /// The index of object `id`'s body in this tick's batch.
    pub(super) fn rank(&self, id: u32) -> Option<usize> {
        self.scratch.bodies.binary_search_by_key(&id, |b| b.id).ok()
    }

    /// This tick's body of the agent at roster position `pos`.
    pub(super) fn body_of(&self, pos: usize) -> Option<&Body> {
        let i = *self.scratch.agent_body.get(pos)?;
        self.scratch.bodies.get(i as usize)
    }

    /// The agent whose body is at index `i`.
    pub(super) fn agent_at(&self, i: usize) -> Option<&Agent> {
        let pos = *self.scratch.body_agent.get(i)?;
        self.saved.agents.agents().get(pos as usize)
    }

    pub(super) fn hostile(&self, a: Option<u32>, b: Option<u32>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => self
                .data
                .clans
                .get(a as usize)
                .is_some_and(|c| c.hostile.binary_search(&b).is_ok()),
            _ => false,
        }
    }

    /// Bodies within `r` of `at` (indices into this tick's batch), ascending by id,
    /// appended to `out`.
    pub(super) fn around(&self, at: Vec2, r: f32, out: &mut Vec<u32>) {
        self.scratch.grid.around(at, r, out);
    }

    /// The proxy of the body at index `i` (from the control service, cached: a proxy
    /// does not change; an object control does not know yet is asked again next tick).
    pub(super) fn proxy(&mut self, host: &mut Host<'_>, i: usize) -> Proxy {
        if let Some(p) = self.scratch.proxy_at.get(i).copied().flatten() {
            return p;
        }
        let b = self.scratch.bodies.get(i)?;
        let (id, handle) = (b.id, b.handle);
        let p = match host.control().state(handle) {
            Ok(Some(s)) => Some((s.radius, s.flags & physical_flags::STATIC != 0)),
            _ => None,
        };
        if let Some(v) = p {
            self.scratch.proxies.insert(id, v);
        }
        if let Some(slot) = self.scratch.proxy_at.get_mut(i) {
            *slot = Some(p);
        }
        p
    }

    pub(super) fn read_world(&mut self, host: &mut Host<'_>) {
        let mut bodies = std::mem::take(&mut self.scratch.bodies);
        host.read_bodies(&mut bodies);
        // Id order (the batch usually comes that way: a stable sort only checks).
        bodies.sort_by_key(|b| b.id);
        let s = &mut self.scratch;
        s.points.clear();
        s.points.extend(bodies.iter().map(|b| ground(b.position)));
        s.grid.build(CELL, &s.points);
        // Agents and bodies both ascend by id: one merge links them.
        let n = bodies.len();
        s.body_agent.clear();
        s.body_agent.resize(n, NONE);
        s.agent_body.clear();
        s.agent_body.resize(self.saved.agents.len(), NONE);
        s.targets.clear();
        s.targets.resize(n, (None, false));
        let agents = self.saved.agents.agents();
        let mut pos = 0;
        for (i, b) in bodies.iter().enumerate() {
            while pos < agents.len() && agents[pos].id < b.id {
                pos += 1;
            }
            if let Some(a) = agents.get(pos).filter(|a| a.id == b.id) {
                s.body_agent[i] = pos as u32;
                s.agent_body[pos] = i as u32;
                s.targets[i] = (a.clan, a.max_life > 0 && a.activity != Activity::Dead);
            }
        }
        // Each clan's targets, with a grid of their own.
        s.clan_slot.clear();
        for (i, &(c, ok)) in s.targets.iter().enumerate() {
            let Some(c) = c.filter(|_| ok) else { continue };
            let used = s.clan_slot.len();
            let slot = *s.clan_slot.entry(c).or_insert(used);
            if slot == s.clan_grids.len() {
                s.clan_grids.push(ClanGrid::default());
            }
            let g = &mut s.clan_grids[slot];
            if slot == used {
                g.members.clear();
                g.points.clear();
            }
            g.members.push(i as u32);
            g.points.push(s.points[i]);
        }
        for g in &mut s.clan_grids[..s.clan_slot.len()] {
            g.grid.build(CELL, &g.points);
        }
        // Known proxies: the same merge over the cache.
        s.proxy_at.clear();
        s.proxy_at.resize(n, None);
        let mut known = s.proxies.iter().peekable();
        for (i, b) in bodies.iter().enumerate() {
            while known.peek().is_some_and(|(id, _)| **id < b.id) {
                known.next();
            }
            if let Some((_, p)) = known.peek().filter(|(id, _)| **id == b.id) {
                s.proxy_at[i] = Some(Some(**p));
            }
        }
        s.bodies = bodies;
    }

    /// The nearest targetable enemy of clan `clan` within `r` of `at` (ties: the lower
    /// id), from the grids of the clans it is hostile to.
    pub(super) fn nearest_enemy(&self, clan: Option<u32>, at: Vec2, r: f32) -> Option<Seen> {
        let s = &self.scratch;
        let hostile = &self.data.clans.get(clan? as usize)?.hostile;
        let mut best: Option<(f32, u32, usize)> = None;
        for h in hostile {
            let Some(g) = s.clan_slot.get(h).map(|&k| &s.clan_grids[k]) else {
                continue;
            };
            let id = |k: u32| s.bodies[g.members[k as usize] as usize].id;
            let Some(k) = g.grid.nearest(at, r, |_| true, id) else {
                continue;
            };
            let d = g.points[k as usize].distance_squared(at);
            let i = g.members[k as usize] as usize;
            if best.is_none_or(|(bd, bid, _)| d < bd || (d == bd && id(k) < bid)) {
                best = Some((d, id(k), i));
            }
        }
        let b = &s.bodies[best?.2];
        Some(Seen {
            id: b.id,
            at: ground(b.position),
            ore: 0.0,
            room: 0.0,
        })
    }

    pub(super) fn perceive(&self, a: &Agent, at: Vec2) -> Perception {
        let mut p = Perception {
            at,
            producing: self
                .saved
                .plants
                .get(&a.id)
                .is_some_and(|pl| pl.work.is_some()),
            ..Perception::default()
        };
        if let Some(w) = Weapon::of(a.role) {
            let sight = self.rules().sight(a.role, &w);
            p.enemies.extend(self.nearest_enemy(a.clan, at, sight));
        }
        // The object of the order, while it lives.
        p.ordered = a.order.and_then(|o| o.object()).and_then(|id| {
            let pos = self.saved.agents.position(id)?;
            let o = self.saved.agents.agents().get(pos)?;
            let b = self.body_of(pos)?;
            (o.activity != Activity::Dead).then(|| Seen {
                id,
                at: ground(b.position),
                ore: o.ore,
                room: o.max_ore - o.ore,
            })
        });
        if matches!(a.role, Role::Transport | Role::Builder) {
            for (pos, o) in self.saved.agents.agents().iter().enumerate() {
                let Some(b) = self.body_of(pos) else { continue };
                let seen = Seen {
                    id: o.id,
                    at: ground(b.position),
                    ore: o.ore,
                    room: o.max_ore - o.ore,
                };
                match profile_for(o.class_word) {
                    Some(Profile::Mine) if o.clan == a.clan => p.own_mines.push(seen),
                    Some(Profile::Mine) if o.clan.is_none() => p.free_mines.push(seen),
                    Some(Profile::Storage) if o.clan == a.clan => p.storages.push(seen),
                    _ => {}
                }
            }
        }
        p
    }
}
