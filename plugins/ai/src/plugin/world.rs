//! The world as the AI sees it in one tick: the batch of bodies, the neighbour grid,
//! per-body clans, proxies from the control service, perception, and the terrain
//! service as Behavior's planner.

use super::*;

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
    fn plan(&mut self, from: Vec2, to: Vec2) -> Plan {
        let area = |host: &mut Host<'_>, p: Vec2| host.terrain().area(p.x, p.y);
        let key = match (area(self.host, from), area(self.host, to)) {
            (Ok(Some(a)), Ok(Some(b))) => Some((a, b)),
            (Err(e), _) | (_, Err(e)) => return Err((error_state(&e), e.message.to_string())),
            _ => None,
        };
        if let Some(hit) = key.and_then(|k| self.routes.get(&k)) {
            return hit.clone();
        }
        let (a, b) = (Vec3f::from(from.extend(0.0)), Vec3f::from(to.extend(0.0)));
        let plan = self
            .host
            .terrain()
            .corridor(a, b)
            .and_then(|c| Ok((self.host.terrain().route(a, b)?, c)))
            .map(|(route, corridor)| {
                let portals = corridor
                    .iter()
                    .map(|p| (ground(p.a), ground(p.b)))
                    .collect();
                (route, portals)
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
}

impl AiPlugin {
    pub(super) fn body(&self, id: u32) -> Option<&Body> {
        let i = self.scratch.index.binary_search_by_key(&id, |e| e.0).ok()?;
        self.scratch.bodies.get(self.scratch.index[i].1)
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

    /// Bodies within `r` of `at` (indices into this tick's batch), ascending by id.
    pub(super) fn around(&self, at: Vec2, r: f32) -> Vec<usize> {
        let (lo, hi) = (cell_of(at - Vec2::splat(r)), cell_of(at + Vec2::splat(r)));
        let mut out = Vec::new();
        for cx in lo.0..=hi.0 {
            for cy in lo.1..=hi.1 {
                if let Some(v) = self.scratch.grid.get(&(cx, cy)) {
                    for &i in v {
                        if ground(self.scratch.bodies[i].position).distance(at) <= r {
                            out.push(i);
                        }
                    }
                }
            }
        }
        out.sort_unstable_by_key(|&i| self.scratch.bodies[i].id);
        out
    }

    pub(super) fn proxy(
        &mut self,
        host: &mut Host<'_>,
        id: u32,
        handle: ObjectRef,
    ) -> Option<(f32, bool)> {
        if let Some(p) = self.scratch.proxies.get(&id) {
            return *p;
        }
        let p = match host.control().state(handle) {
            Ok(Some(s)) => Some((s.radius, s.flags & physical_flags::STATIC != 0)),
            _ => None,
        };
        // Unknown to control yet: ask again next time.
        if p.is_some() {
            self.scratch.proxies.insert(id, p);
        }
        p
    }

    pub(super) fn read_world(&mut self, host: &mut Host<'_>) {
        let mut bodies = std::mem::take(&mut self.scratch.bodies);
        host.read_bodies(&mut bodies);
        self.scratch.index.clear();
        self.scratch
            .index
            .extend(bodies.iter().enumerate().map(|(i, b)| (b.id, i)));
        self.scratch.index.sort_unstable();
        self.scratch.grid.clear();
        for (i, b) in bodies.iter().enumerate() {
            self.scratch
                .grid
                .entry(cell_of(ground(b.position)))
                .or_default()
                .push(i);
        }
        // Agents and the index both ascend by id: one merge.
        self.scratch.targets.clear();
        self.scratch.targets.resize(bodies.len(), (None, false));
        let mut agents = self.saved.agents.values().peekable();
        for &(id, i) in &self.scratch.index {
            while agents.peek().is_some_and(|a| a.id < id) {
                agents.next();
            }
            if let Some(a) = agents.peek().filter(|a| a.id == id) {
                self.scratch.targets[i] = (a.clan, a.max_life > 0 && a.activity != Activity::Dead);
            }
        }
        self.scratch.bodies = bodies;
    }

    /// The nearest targetable enemy of clan `clan` within `r` of `at` (ties: the lower
    /// id), straight from the grid.
    pub(super) fn nearest_enemy(&self, clan: Option<u32>, at: Vec2, r: f32) -> Option<Seen> {
        let (lo, hi) = (cell_of(at - Vec2::splat(r)), cell_of(at + Vec2::splat(r)));
        let mut best: Option<(f32, u32, Vec2)> = None;
        for cx in lo.0..=hi.0 {
            for cy in lo.1..=hi.1 {
                let Some(v) = self.scratch.grid.get(&(cx, cy)) else {
                    continue;
                };
                for &i in v {
                    let (c, ok) = self.scratch.targets[i];
                    if !ok || !self.hostile(clan, c) {
                        continue;
                    }
                    let b = &self.scratch.bodies[i];
                    let p = ground(b.position);
                    let d = p.distance_squared(at);
                    if d > r * r {
                        continue;
                    }
                    if best.is_none_or(|(bd, bid, _)| d < bd || (d == bd && b.id < bid)) {
                        best = Some((d, b.id, p));
                    }
                }
            }
        }
        best.map(|(_, id, at)| Seen {
            id,
            at,
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
            p.enemies.extend(self.nearest_enemy(a.clan, at, w.radar));
        }
        if matches!(a.role, Role::Transport | Role::Builder) {
            for o in self.saved.agents.values() {
                let Some(b) = self.body(o.id) else { continue };
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
