//! The economy step (mines, the distributors, plants and new units), docking of
//! transports, and the objectives checked against the world.

use super::*;

impl AiPlugin {
    /// Whether `id` is within docking reach of `target` (proxy radii plus
    /// [`economy::DOCK_DISTANCE`]).
    pub(super) fn docked(&mut self, host: &mut Host<'_>, id: u32, target: u32) -> bool {
        let (Some(ia), Some(ib)) = (self.rank(id), self.rank(target)) else {
            return false;
        };
        let ra = self.proxy(host, ia).map_or(1.0, |p| p.0);
        let rb = self.proxy(host, ib).map_or(1.0, |p| p.0);
        let (a, b) = (&self.scratch.bodies[ia], &self.scratch.bodies[ib]);
        ground(a.position).distance(ground(b.position)) <= ra + rb + economy::DOCK_DISTANCE
    }

    pub(super) fn dock(&mut self, host: &mut Host<'_>, dt: f32) {
        let ids: Vec<u32> = self
            .saved
            .agents
            .agents()
            .iter()
            .filter(|a| matches!(a.activity, Activity::Harvest | Activity::Deliver))
            .map(|a| a.id)
            .collect();
        for id in ids {
            let Some(t) = self.saved.agents.get(id).and_then(|a| a.target) else {
                continue;
            };
            if !self.docked(host, id, t) {
                continue;
            }
            let (Some(a), Some(o)) = (self.saved.agents.get(id), self.saved.agents.get(t)) else {
                continue;
            };
            let (moved, harvest) = if a.activity == Activity::Harvest {
                (
                    economy::transfer(o.ore, a.ore, a.max_ore, economy::LOAD_RATE, dt),
                    true,
                )
            } else {
                (
                    economy::transfer(a.ore, o.ore, o.max_ore, economy::LOAD_RATE, dt),
                    false,
                )
            };
            let clan = a.clan;
            let full_or_empty = if harvest {
                a.ore + moved >= a.max_ore || o.ore - moved <= 0.0
            } else {
                a.ore - moved <= 0.0 || o.ore + moved >= o.max_ore
            };
            let sign = if harvest { 1.0 } else { -1.0 };
            if let Some(a) = self.saved.agents.get_mut(id) {
                a.ore = (a.ore + sign * moved).max(0.0);
                if full_or_empty {
                    a.next_think = 0;
                    if !harvest {
                        a.activity = Activity::Deliver;
                    }
                }
            }
            if let Some(o) = self.saved.agents.get_mut(t) {
                o.ore = (o.ore - sign * moved).max(0.0);
            }
            if !harvest {
                if let Some(c) = clan.and_then(|c| self.saved.clans.get_mut(c as usize)) {
                    c.gathered += moved;
                }
            }
        }
    }

    pub(super) fn economy(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let Some(clock) = self.saved.clock.as_mut() else {
            return Ok(());
        };
        let Some(dt) = clock.poll(now) else {
            return Ok(());
        };
        // Mines produce.
        for a in self.saved.agents.agents_mut() {
            if profile_for(a.class_word) == Some(Profile::Mine) && a.activity != Activity::Dead {
                a.ore = (a.ore + economy::MINE_RATE * dt).min(a.max_ore);
            }
        }
        // Plants start work.
        let mobile: BTreeMap<u32, usize> = self
            .saved
            .agents
            .agents()
            .iter()
            .filter(|a| a.role.mobile() && a.activity != Activity::Dead)
            .fold(BTreeMap::new(), |mut m, a| {
                if let Some(c) = a.clan {
                    *m.entry(c).or_default() += 1;
                }
                m
            });
        for (id, plant) in self.saved.plants.iter_mut() {
            let Some(a) = self.saved.agents.get(*id) else {
                continue;
            };
            if plant.work.is_some() || a.activity == Activity::Dead {
                continue;
            }
            let Some(units) = self.data.build.get(&a.class_word).filter(|u| !u.is_empty()) else {
                continue;
            };
            if a.clan.and_then(|c| mobile.get(&c)).copied().unwrap_or(0) >= economy::CLAN_UNIT_CAP {
                continue;
            }
            plant.work = Some(Production {
                unit: units[plant.finished as usize % units.len()].clone(),
                ore: 0.0,
                energy: 0.0,
            });
        }
        // Each clan's distributor.
        for (slot, c) in self.saved.clans.iter_mut().enumerate() {
            if c.distributor.rows.is_empty() {
                continue;
            }
            let mut ledger = StagedLedger::new(
                &self.saved.agents,
                &self.saved.plants,
                c.distributor.ore_buffer,
            );
            let mut d = c.distributor.clone();
            match d.step(dt, &mut ledger) {
                Ok(t) => {
                    let writes = ledger.into_writes();
                    writes.apply(&mut self.saved.agents, &mut self.saved.plants);
                    c.distributor = d;
                    c.totals = t;
                }
                Err(e) => {
                    tracing::warn!(target: "ai.log", clan = slot, error = error_chain(&e).as_str(),
                        "distributor step failed: nothing applied");
                }
            }
        }
        // Plants finish.
        let done: Vec<u32> = self
            .saved
            .plants
            .iter()
            .filter(|(_, p)| p.work.as_ref().is_some_and(Production::done))
            .map(|(id, _)| *id)
            .collect();
        for id in done {
            self.spawn(host, id)?;
        }
        // Mirror CurrentOre (whole units) into the properties of ore holders.
        let holders: Vec<(u32, u32)> = self
            .saved
            .agents
            .agents()
            .iter()
            .filter(|a| a.max_ore > 0.0 && a.activity != Activity::Dead)
            .map(|a| (a.id, a.ore as u32))
            .collect();
        for (id, ore) in holders {
            if let Some(h) = self.body(id).map(|b| b.handle) {
                let old = host.property(h, CURRENT_ORE.as_bytes())?;
                if old.map(|v| CURRENT_ORE.value(v)) != Some(ore) {
                    let v = CURRENT_ORE.with_value(old.unwrap_or([0; 4]), ore);
                    host.set_property(h, CURRENT_ORE.as_bytes(), v)?;
                }
            }
        }
        self.objectives(host, now, dt)
    }

    /// `(ClanBaseX, ClanBaseY)` of the first clan `clan` is hostile to.
    pub(super) fn enemy_base(&self, clan: u32) -> Option<Vec2> {
        let other = *self.data.clans.get(clan as usize)?.hostile.first()?;
        let ai = self.data.table.clans.get(other as usize)?;
        Some(Vec2::new(
            ai.base[0].variable as f32,
            ai.base[1].variable as f32,
        ))
    }

    pub(super) fn spawn(&mut self, host: &mut Host<'_>, plant: u32) -> Result<(), PluginError> {
        let (Some(b), Some(a)) = (self.body(plant).copied(), self.saved.agents.get(plant)) else {
            return Ok(());
        };
        let Some(work) = self
            .saved
            .plants
            .get_mut(&plant)
            .and_then(|p| p.work.take())
        else {
            return Ok(());
        };
        let clan = a.clan;
        // The plant's proxy as the control service describes it (asked when this
        // instance has not asked yet: after a hot swap or a load the cache is empty, and
        // where a unit appears must not depend on it).
        let radius = match self.rank(plant) {
            Some(i) => self.proxy(host, i).map_or(2.0, |p| p.0),
            None => 2.0,
        };
        let pos =
            Vec3::from(b.position) + glam::Quat::from(b.orientation) * Vec3::X * (radius + 3.0);
        let mut properties = RVec::new();
        properties.push(Property {
            name: LIFE_STATE.as_bytes().to_vec().into(),
            value: LIFE_STATE.raw(BUILT_LIFE),
        });
        if let Some(c) = clan {
            properties.push(Property {
                name: CLAN_ID.as_bytes().to_vec().into(),
                value: CLAN_ID.raw(c),
            });
        }
        let new = NewObject {
            position: pos.into(),
            orientation: b.orientation,
            properties,
            prototype: work.unit.as_bytes().to_vec().into(),
            ..NewObject::default()
        };
        let made = host.create(&new)?;
        // PD-AI-STRATEGY: a new fighter marches on the base of the first clan its own
        // is hostile to.
        if let Some(goal) = clan.and_then(|c| self.enemy_base(c)) {
            if Role::of(self.class_of(host, work.unit.as_bytes())) == Role::Fighter {
                self.saved
                    .pending_orders
                    .insert((made.slot, made.generation), goal);
            }
        }
        if let Some(p) = self.saved.plants.get_mut(&plant) {
            p.finished = p.finished.wrapping_add(1);
        }
        tracing::info!(target: "ai.log", plant, clan = ?clan, unit = work.unit.as_str(), object = ?made, "unit built");
        Ok(())
    }

    pub(super) fn objectives(
        &mut self,
        host: &mut Host<'_>,
        now: u32,
        dt: f32,
    ) -> Result<(), PluginError> {
        let Some(o) = &self.data.objectives else {
            return Ok(());
        };
        if self.saved.outcome.state.is_some() {
            return Ok(());
        }
        let board = Board {
            plugin: self,
            seconds: now.wrapping_sub(self.saved.started_ms.unwrap_or(now)) as f32 / 1000.0,
        };
        let mut progress = self.saved.progress.clone();
        let decided = progress.check(o, &board, dt);
        let announce = progress.newly_met();
        let clan = o.clan;
        self.saved.progress = progress;
        for goal in announce {
            let text = crate::objectives::objective_message(goal);
            tracing::info!(target: "ai.log", goal = goal + 1, "objective met");
            let mut m = Message::new(MessageCode::TEXT_FOR_PLAYER).with_payload(text.into_bytes());
            m.player = clan;
            host.send(iron3d_abi::MessageTarget::broadcast(), &m)?;
        }
        let Some(side) = decided else { return Ok(()) };
        let payload = u32::from(side == Side::Win);
        let r = self.saved.outcome.callback(0, 0, payload);
        if r != crate::superai::CallbackResult::Suppressed || self.saved.outcome.suppressed == 1 {
            tracing::info!(target: "ai.log", outcome = ?side, result = ?r, "mission decided");
        }
        match r {
            crate::superai::CallbackResult::Set(out) => host.mission_outcome(match out {
                crate::superai::Outcome::Complete => iron3d_abi::MissionOutcome::COMPLETE,
                crate::superai::Outcome::Failed => iron3d_abi::MissionOutcome::FAILED,
            }),
            _ => Ok(()),
        }
    }
}

struct Board<'p> {
    plugin: &'p AiPlugin,
    seconds: f32,
}

impl Scoreboard for Board<'_> {
    fn alive(&self, clan: u32) -> usize {
        self.plugin
            .saved
            .agents
            .agents()
            .iter()
            .filter(|a| a.clan == Some(clan) && a.max_life > 0 && a.activity != Activity::Dead)
            .count()
    }
    fn gathered(&self, clan: u32) -> f32 {
        self.plugin
            .saved
            .clans
            .get(clan as usize)
            .map_or(0.0, |c| c.gathered)
    }
    fn holds(&self, clan: u32, x: f32, y: f32, r: f32) -> bool {
        let (mut ours, mut theirs) = (false, false);
        let mut near = Vec::new();
        self.plugin.around(Vec2::new(x, y), r, &mut near);
        for i in near {
            if let Some(a) = self.plugin.agent_at(i as usize) {
                if !a.role.mobile() || a.activity == Activity::Dead {
                    continue;
                }
                ours |= a.clan == Some(clan);
                theirs |= self.plugin.hostile(Some(clan), a.clan);
            }
        }
        ours && !theirs
    }
    fn seconds(&self) -> f32 {
        self.seconds
    }
}
