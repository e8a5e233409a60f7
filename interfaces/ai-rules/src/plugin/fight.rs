//! Combat: turrets, shots through the control service's segment query, damage and
//! death through the queue.

use super::*;

impl AiPlugin {
    pub(super) fn fight(&mut self, host: &mut Host<'_>, dt: f32) -> Result<(), PluginError> {
        for pos in 0..self.saved.agents.len() {
            let Some(me) = self.body_of(pos).copied() else {
                continue;
            };
            let a = &self.saved.agents.agents()[pos];
            if a.activity == Activity::Dead {
                continue;
            }
            let Some(w) = Weapon::of(a.role) else {
                continue;
            };
            let id = a.id;
            let reload = (a.reload - dt).max(0.0);
            let target = (a.activity == Activity::Attack)
                .then_some(a.target)
                .flatten()
                .and_then(|t| self.rank(t))
                .filter(|&i| {
                    self.agent_at(i)
                        .is_some_and(|o| o.activity != Activity::Dead)
                })
                .map(|i| self.scratch.bodies[i]);
            let up = Vec3::Z * MUZZLE_HEIGHT;
            let from = Vec3::from(me.position) + up;
            // A possessed unit aims where the player aims (a fire request this tick);
            // Behavior's units at their target.
            let aim = if a.manual {
                a.fire_at
            } else {
                target.map(|t| Vec3::from(t.position) + up)
            };
            let mut turret = a.turret;
            let mut fire = None;
            if let Some(p) = aim {
                let d = p.truncate() - from.truncate();
                let bearing = d.y.atan2(d.x);
                let (yaw, on) = combat::aim(turret, bearing, w.turret_rate, dt);
                turret = yaw;
                if on && reload <= 0.0 && (a.manual || d.length() <= w.range) {
                    // The player's shot reaches at most the weapon's range; Behavior
                    // fires only at a target within it.
                    let to = if a.manual {
                        from + (p - from).clamp_length_max(w.range)
                    } else {
                        p
                    };
                    fire = Some((to, target.map_or(0, |t| t.id)));
                }
            }
            if let Some((a, _)) = self.saved.agents.at_mut(pos) {
                a.turret = turret;
                a.reload = if fire.is_some() { w.reload } else { reload };
                a.fire_at = None;
            }
            let Some((to, aimed)) = fire else { continue };
            self.sound(host, combat::sound(combat::SHOT_SOUND, id, from))?;
            let hit = match host.control().ray(from.into(), to.into(), Some(id)) {
                Ok(h) => h,
                Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => None,
                Err(e) => return Err(e),
            };
            // PD-AI-EFFECTS: the tracer runs to where the shot ends.
            let end = hit.map_or(to, |h| Vec3::from(h.point));
            self.effect(
                host,
                combat::effect(combat::SHOT_EFFECT, id, from).towards(end.into()),
            )?;
            let Some(hit) = hit else { continue };
            self.effect(host, combat::effect(combat::HIT_EFFECT, hit.id, end))?;
            tracing::trace!(target: "ai.log", shooter = id, target = aimed, hit = hit.id, "shot");
            self.damage(host, hit.id, w.damage)?;
        }
        Ok(())
    }

    /// Sends `event` to the effects slot (PD-AI-EFFECTS): fire and forget.
    fn effect(
        &self,
        host: &mut Host<'_>,
        event: iron3d_abi::EffectEvent,
    ) -> Result<(), PluginError> {
        let message = event.to_message()?;
        host.send(iron3d_abi::MessageTarget::slot(SlotKind::Effects), &message)
    }

    /// Sends `event` to the audio slot (PD-AI-SOUNDS): fire and forget.
    fn sound(&self, host: &mut Host<'_>, event: iron3d_abi::SoundEvent) -> Result<(), PluginError> {
        let message = event.to_message()?;
        host.send(iron3d_abi::MessageTarget::slot(SlotKind::Audio), &message)
    }

    pub(super) fn damage(
        &mut self,
        host: &mut Host<'_>,
        id: u32,
        damage: u32,
    ) -> Result<(), PluginError> {
        let Some(handle) = self.body(id).map(|b| b.handle) else {
            return Ok(());
        };
        let Some(raw) = host.property(handle, LIFE_STATE.as_bytes())? else {
            return Ok(());
        };
        if LIFE_STATE.value(raw) == 0 {
            return Ok(());
        }
        let left = combat::damaged(LIFE_STATE.value(raw), damage);
        host.set_property(
            handle,
            LIFE_STATE.as_bytes(),
            LIFE_STATE.with_value(raw, left),
        )?;
        let dead = left == 0;
        if let Some(a) = self.saved.agents.get_mut(id) {
            a.life = left;
            if dead {
                a.activity = Activity::Dead;
                a.target = None;
                a.path.set_goal(None);
            }
        }
        if dead {
            tracing::info!(target: "Behavior.log", object = id, "destroyed");
            let at = Vec3::from(host.object(handle)?.position);
            self.sound(host, combat::sound(combat::DEATH_SOUND, id, at))?;
            self.effect(host, combat::effect(combat::EXPLODE_EFFECT, id, at))?;
            self.effect(host, combat::effect(combat::WRECK_EFFECT, id, at))?;
            host.set_behaviour_state(handle, Activity::Dead.number())?;
            host.kill(handle)?;
        }
        Ok(())
    }
}
