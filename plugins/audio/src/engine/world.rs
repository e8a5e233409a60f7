//! What the world makes heard, once per event or tick: collisions (PD-AUDIO-COLLISION),
//! removed objects, and the per-tick work — the ambient music and its theme
//! (PD-AUDIO-THEME), loops that follow their units, and the engine loops of the nearest
//! moving units (PD-AUDIO-ENGINES).

use super::*;

impl AudioEngine {
    /// A collision of objects `a` and `b` at `point` (PD-AUDIO-COLLISION); whether it
    /// sounded.
    pub fn collision(&mut self, tick: u64, a: u32, b: u32, point: Vec3) -> bool {
        self.tick = tick;
        let pair = (a.min(b), a.max(b));
        if self.collisions_tick.0 != tick {
            self.collisions_tick = (tick, 0);
        }
        let recent = self
            .collision_pairs
            .get(&pair)
            .is_some_and(|&last| tick >= last && tick - last < COLLISION_PAIR_TICKS);
        if recent || self.collisions_tick.1 >= COLLISIONS_PER_TICK {
            self.suppressed_collisions += 1;
            return false;
        }
        self.collision_pairs.insert(pair, tick);
        self.collisions_tick.1 += 1;
        let (min_distance, max_distance) = COLLISION_DISTANCES;
        self.play(
            tick,
            Play {
                key: SampleKey::new(SOUNDS_LIBRARY, COLLIDE_SAMPLE),
                owner: object_owner(pair.0, "collision"),
                params: SourceParams {
                    bus: Bus::Effects,
                    position: Some(point),
                    volume: 1.0,
                    min_distance,
                    max_distance,
                    playback_rate: 1.0,
                    looped: false,
                },
                kind: TraceKind::Play,
                start: 0.0,
                detail: Some(format!("collision {} {}", pair.0, pair.1)),
            },
        );
        true
    }

    /// Object `id` left the game: its loops stop and sources stop following it; its
    /// one-shots play out where they are. No sound of its own (**PD-AUDIO-REMOVED**: a
    /// removal is not always a death — the plugin that kills sends the explosion as a
    /// sound event, PD-AI-SOUNDS).
    pub fn removed(&mut self, tick: u64, id: u32) {
        self.tick = tick;
        self.positions.remove(&id);
        let owned: Vec<LoopSlot> = self
            .loops
            .iter()
            .filter(|(s, l)| l.owner == id && **s != LoopSlot::Theme)
            .map(|(s, _)| *s)
            .collect();
        for slot in owned {
            self.stop_loop(tick, slot, Some("owner removed"));
        }
        self.followers.retain(|_, owner| *owner != id);
    }

    /// One simulation tick: remembers the objects' positions (`bodies`: id, position,
    /// velocity), starts the theme on the first tick (PD-AUDIO-THEME), runs the music
    /// timer by `dt` seconds unless `paused` (the pool from the sky's RGB last heard;
    /// none heard: the NIGHT pool, PD-AUDIO-MUSIC-NOSKY), moves the sources of objects with them and updates the
    /// engine loops (PD-AUDIO-ENGINES).
    pub fn tick(&mut self, tick: u64, dt: f32, paused: bool, bodies: &[(u32, Vec3, Vec3)]) {
        self.tick = tick;
        self.positions.clear();
        self.positions.extend(
            bodies
                .iter()
                .filter(|(_, p, _)| p.is_finite())
                .map(|&(id, p, _)| (id, p)),
        );
        self.collision_pairs
            .retain(|_, &mut last| last <= tick && tick - last < COLLISION_PAIR_TICKS);
        if !self.theme_started {
            self.theme_started = true;
            self.start_theme(tick);
        }
        self.music_tick(tick, dt, paused);
        self.follow();
        self.engines(tick, bodies);
    }

    fn start_theme(&mut self, tick: u64) {
        let Some(MusicEvent::Theme(key)) = self.music.as_ref().and_then(AmbientMusic::open) else {
            return;
        };
        let info = LoopInfo {
            key,
            owner: 0,
            bus: Bus::Music,
            volume: 1.0,
            position: None,
            min_distance: 1.0,
            max_distance: 100.0,
            rate: 1.0,
            source: None,
        };
        self.start_loop(tick, LoopSlot::Theme, info, TraceKind::MusicTheme);
    }

    fn music_tick(&mut self, tick: u64, dt: f32, paused: bool) {
        let mix_paused = self.mix.is_some_and(|m| m.paused);
        let Some(music) = &mut self.music else {
            return;
        };
        music.set_paused(paused || mix_paused);
        let rng = &mut self.music_rng;
        let mut rand = || rng.next_u32();
        let event = music.tick(f64::from(dt), self.sky_rgb, &mut rand);
        let owner = SourceOwner::Named("ambient_music".into());
        match event {
            Some(MusicEvent::Variation { key, pool, index }) => {
                self.play(
                    tick,
                    Play {
                        key,
                        owner,
                        params: SourceParams {
                            bus: Bus::Music,
                            ..SourceParams::default()
                        },
                        kind: TraceKind::MusicVariation,
                        start: 0.0,
                        detail: Some(format!("{pool:?} variation {index}").to_lowercase()),
                    },
                );
            }
            Some(MusicEvent::Silent { pool }) => {
                let rec = self
                    .record(tick, TraceKind::MusicVariation)
                    .owner(&owner)
                    .bus(Bus::Music)
                    .detail(format!("{pool:?} pool is empty: index -1").to_lowercase());
                self.push(rec);
            }
            Some(MusicEvent::Theme(_)) | None => {}
        }
    }

    fn follow(&mut self) {
        for l in self.loops.values_mut() {
            if l.owner == 0 || l.position.is_none() {
                continue;
            }
            if let Some(&p) = self.positions.get(&l.owner) {
                l.position = Some(p);
                if let Some(id) = l.source {
                    let _ = self.mixer.set_source_position(id, p);
                }
            }
        }
        let mut gone = Vec::new();
        for (&id, owner) in &self.followers {
            match self.positions.get(owner) {
                Some(&p) => {
                    if let Err(AudioError::UnknownSource(_) | AudioError::NoDevice) =
                        self.mixer.set_source_position(id, p)
                    {
                        gone.push(id);
                    }
                }
                None => {
                    if self.mixer.source_status(id).is_err() {
                        gone.push(id);
                    }
                }
            }
        }
        for id in gone {
            self.followers.remove(&id);
        }
    }

    /// The units that should have an engine loop now (PD-AUDIO-ENGINES): id, position
    /// and speed, nearest first.
    pub fn engine_candidates(&self, bodies: &[(u32, Vec3, Vec3)]) -> Vec<(u32, Vec3, f32)> {
        let Some((ear, _)) = self.listener else {
            return Vec::new();
        };
        let mut c: Vec<(f32, u32, Vec3, f32)> = bodies
            .iter()
            .filter_map(|&(id, p, v)| {
                let speed = v.length();
                let d = p.distance(ear);
                (p.is_finite()
                    && speed.is_finite()
                    && speed > ENGINE_MIN_SPEED
                    && d <= ENGINE_RANGE)
                    .then_some((d, id, p, speed))
            })
            .collect();
        c.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        c.truncate(ENGINE_LOOPS);
        c.into_iter().map(|(_, id, p, s)| (id, p, s)).collect()
    }

    fn engines(&mut self, tick: u64, bodies: &[(u32, Vec3, Vec3)]) {
        let wanted = self.engine_candidates(bodies);
        let running: Vec<u32> = self
            .loops
            .keys()
            .filter_map(|s| match s {
                LoopSlot::Engine(id) => Some(*id),
                _ => None,
            })
            .collect();
        for id in running {
            if !wanted.iter().any(|w| w.0 == id) {
                self.stop_loop(tick, LoopSlot::Engine(id), Some("engine"));
            }
        }
        for (id, position, speed) in wanted {
            let rate = engine_rate(speed);
            let slot = LoopSlot::Engine(id);
            if let Some(l) = self.loops.get_mut(&slot) {
                if (l.rate - rate).abs() > 0.01 {
                    l.rate = rate;
                    if let Some(s) = l.source {
                        let _ = self.mixer.set_source_playback_rate(s, f64::from(rate));
                    }
                }
                continue;
            }
            let info = LoopInfo {
                key: SampleKey::new(SOUNDS_LIBRARY, ENGINE_SAMPLE),
                owner: id,
                bus: Bus::Effects,
                volume: 1.0,
                position: Some(position),
                min_distance: ENGINE_MIN_DISTANCE,
                max_distance: ENGINE_RANGE,
                rate,
                source: None,
            };
            self.start_loop_at(
                tick,
                slot,
                info,
                TraceKind::LoopStart,
                0.0,
                Some("engine".into()),
            );
        }
    }

    // ---- frame -------------------------------------------------------------------
}
