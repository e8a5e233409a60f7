//! The FXID runtime: effect instances, their commands' emitters and the primitives
//! they emit at a given game time.
//!
//! **Update and emit are split** (FORMATS §10.5). [`Runtime::start`] creates an
//! instance (header copied, end time computed, command objects made in disk order),
//! [`Runtime::retire`] ends the instances whose lifetime is over, and
//! [`Runtime::emit`] answers the primitives of every live instance at a game time —
//! a pure function of the instances and the time (**PD-FX-EMIT-PURE**): a particle's
//! place is computed from its birth, its seeded draws and its age, never integrated
//! frame by frame, so the same replay draws the same particles at any frame rate, and
//! an instance list handed over by a hot swap or a load draws on exactly as before.
//!
//! Project decisions where FORMATS §10 leaves the runtime open:
//! * **PD-FX-OPCODES**: opcode 1 is a point light; opcode 3 the visual: a billboard, or
//!   a beam when its length is positive (the lightning descriptor `[40, 40, 600]`:
//!   width, height, length; the beam starts at the instance's place and runs its
//!   length along the direction to the target, up without one — so the lightning
//!   bolt spans `z .. z + 600` around its centre at `z + 300`, §13.9); opcode 7
//!   particles; opcode 8 a streak (a tracer: a segment of its length travelling from
//!   the instance's place to its target over the lifetime). Opcode 2 (sound) is not
//!   run by this plugin (presentation cannot send messages; the sender sounds its own
//!   events); opcodes 4, 5, 6, 9 and 10 are not run. A disabled command (bit 8
//!   clear) is created but never updated nor emitted.
//! * **PD-FX-BODY**: the field meanings of the bodies are open (§10.3). An effect whose
//!   header `settings_id` is [`PROJECT_LAYOUT`] carries the project's emitter block
//!   ([`crate::emitter`]) right after the resource reference (opcode 1:
//!   at the body's start); any other effect (an original one) runs its commands with
//!   [`Emitter::fallback`] values per role, its bodies kept unread.
//! * **PD-FX-TIME-MODE**: the header's time mode picks the intensity that multiplies
//!   every primitive's opacity: 0 constant 1, 1 forward age, 2 reverse age (fade out),
//!   4 and 5 cyclic phase; any other mode constant 1 (their formulas are open).
//! * **PD-FX-MIN-LIFE**: an instance lives at least one tick (a zero duration shows
//!   once).
//! * **PD-FX-RNG**: instance `n`'s seed is `mix(base ^ n)` (base: the plugin's
//!   `effects` stream seed); particle `i` of burst `b` of command `c` draws from
//!   `mix(seed ^ c·2⁴⁰ ^ b·2²⁰ ^ i)` (SplitMix64's finaliser): the draws depend on
//!   nothing but the event order.
//! * **PD-FX-SPRITE-TEXTURE**: the resource reference of an opcode 3 or 7 command
//!   names its sprite's texture ([`sprite_texture`]: `archive/entry` as written, the
//!   name [`iron3d_abi::EffectFrame::textures`] lists); the billboards and particles it
//!   emits carry it, its beams, lights and streaks do not (they keep the soft shapes).
//!   A renderer that has no such texture draws the soft sprite.
//! * **PD-FX-BUDGET**: at most [`MAX_PARTICLES_PER_COMMAND`] particles per command (the
//!   newest bursts kept) and [`MAX_PRIMITIVES`] per frame (later instances' dropped,
//!   counted in [`Emitted::dropped`]).

use crate::emitter::{EmitterBlock, PROJECT_LAYOUT, block_base};
use glam::Vec3;
use iron3d_abi::{
    EffectBlend, EffectFrame, EffectPrimitive, NO_EFFECT_TEXTURE, PrimitiveKind, Vec3f,
};
use iron3d_fxid::time::Coefficient;
use iron3d_fxid::{Command, Fxid, Opcode};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Particles one command may show at once (PD-FX-BUDGET).
pub const MAX_PARTICLES_PER_COMMAND: usize = 4096;
/// Primitives one frame may carry (PD-FX-BUDGET).
pub const MAX_PRIMITIVES: usize = 100_000;
/// Live instances at most; a start beyond it is refused (and counted).
pub const MAX_INSTANCES: usize = 4096;

/// What a command does (PD-FX-OPCODES).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Opcode 1.
    Light,
    /// Opcode 3 with no length.
    Billboard,
    /// Opcode 3 with a length.
    Beam,
    /// Opcode 7.
    Particles,
    /// Opcode 8.
    Streak,
}

/// How a particle's opacity changes over its own life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fade {
    /// Only the instance's intensity.
    None,
    /// Linearly to nothing at the end of its life.
    Out,
    /// Up and down again (`1 − |2x − 1|`).
    Triangle,
}

/// One command's emitter: what the project layout's block says (or the fallback).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Emitter {
    /// Disk index of the command.
    pub command: u32,
    /// What it does.
    pub role: Role,
    /// Width (light: reach).
    pub width: f32,
    /// Height (billboards).
    pub height: f32,
    /// Length (beams, streaks).
    pub length: f32,
    /// Colour and opacity.
    pub colour: [f32; 4],
    /// Particles per burst.
    pub count: u32,
    /// Bursts per second (0: one burst at the start).
    pub rate: f32,
    /// Initial particle speed.
    pub speed: f32,
    /// Half-angle of the cone around up the particles leave in (radians).
    pub spread: f32,
    /// Vertical acceleration (negative falls).
    pub gravity: f32,
    /// Particle life in seconds (0: the instance's).
    pub life: f32,
    /// Size growth per second of particle age (size × (1 + grow·age)).
    pub grow: f32,
    /// Blend.
    pub blend: EffectBlend,
    /// Particle fade.
    pub fade: Fade,
}

/// A finite value clamped to `lo..=hi` (NaN and infinities: `lo`).
fn sane(v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() { v.clamp(lo, hi) } else { lo }
}

impl Emitter {
    /// The emitter of `command` (disk index `index`) of `effect`, `None` for a disabled
    /// command or one this runtime does not run (PD-FX-OPCODES).
    pub fn of(effect: &Fxid, index: u32, command: &Command) -> Option<Emitter> {
        if !command.enabled() || block_base(command.opcode()).is_none() {
            return None;
        }
        if effect.header.settings_id == PROJECT_LAYOUT {
            Emitter::read(index, command)
        } else {
            Some(Emitter::fallback(index, command.opcode()))
        }
    }

    /// The emitter the project's block of `command` describes (PD-FX-BODY,
    /// [`EmitterBlock`]).
    pub fn read(index: u32, command: &Command) -> Option<Emitter> {
        let b = EmitterBlock::read(command)?;
        let role = match command.opcode() {
            Opcode::Op1 => Role::Light,
            Opcode::Op3 if b.length > 0.0 => Role::Beam,
            Opcode::Op3 => Role::Billboard,
            Opcode::Op7 => Role::Particles,
            Opcode::Op8 => Role::Streak,
            _ => return None,
        };
        Some(Emitter {
            command: index,
            role,
            width: b.width,
            height: if b.height > 0.0 { b.height } else { b.width },
            length: b.length,
            colour: b.colour,
            count: b.count,
            rate: b.rate,
            speed: b.speed,
            spread: b.spread,
            gravity: b.gravity,
            life: b.life,
            grow: b.grow,
            blend: if b.blend == 1 {
                EffectBlend::ALPHA
            } else {
                EffectBlend::ADDITIVE
            },
            fade: match b.fade {
                1 => Fade::Out,
                2 => Fade::Triangle,
                _ => Fade::None,
            },
        })
    }

    /// What a command of an effect not in the project layout shows (PD-FX-BODY): a
    /// warm light of reach 8, a 4-wide additive billboard, a puff of 16 grey particles,
    /// a 6-long tracer streak.
    pub fn fallback(index: u32, opcode: Opcode) -> Emitter {
        let mut e = Emitter {
            command: index,
            role: Role::Billboard,
            width: 4.0,
            height: 4.0,
            length: 0.0,
            colour: [1.0, 0.8, 0.5, 0.8],
            count: 1,
            rate: 0.0,
            speed: 0.0,
            spread: 0.0,
            gravity: 0.0,
            life: 0.0,
            grow: 0.0,
            blend: EffectBlend::ADDITIVE,
            fade: Fade::None,
        };
        match opcode {
            Opcode::Op1 => {
                e.role = Role::Light;
                e.width = 8.0;
            }
            Opcode::Op7 => {
                e.role = Role::Particles;
                e.width = 1.5;
                e.height = 1.5;
                e.colour = [0.6, 0.6, 0.6, 0.6];
                e.count = 16;
                e.speed = 2.0;
                e.spread = 0.8;
                e.blend = EffectBlend::ALPHA;
                e.fade = Fade::Out;
            }
            Opcode::Op8 => {
                e.role = Role::Streak;
                e.width = 0.3;
                e.length = 6.0;
            }
            _ => {}
        }
        e
    }
}

/// The sprite texture of `command` (PD-FX-SPRITE-TEXTURE): `archive/entry` of its
/// resource reference for opcodes 3 and 7 (each name up to its NUL, bytes outside
/// ASCII replaced), `None` for the other opcodes and an empty name.
pub fn sprite_texture(command: &Command) -> Option<String> {
    if !matches!(command.opcode(), Opcode::Op3 | Opcode::Op7) {
        return None;
    }
    let r = command.resource()?;
    let (archive, entry) = (r.archive.value(), r.name.value());
    if archive.is_empty() || entry.is_empty() {
        return None;
    }
    Some(format!(
        "{}/{}",
        String::from_utf8_lossy(archive),
        String::from_utf8_lossy(entry)
    ))
}

/// The texture `emitter` (made from `command`) draws its sprites with
/// (PD-FX-SPRITE-TEXTURE): [`sprite_texture`] for billboards and particles, `None` for
/// the other roles.
pub fn emitter_texture(emitter: &Emitter, command: &Command) -> Option<String> {
    matches!(emitter.role, Role::Billboard | Role::Particles)
        .then(|| sprite_texture(command))
        .flatten()
}

/// Every sprite texture name the commands of `effect` draw with, in creation order
/// (a name may repeat): what a renderer needs loaded for it.
pub fn effect_textures(effect: &Fxid) -> impl Iterator<Item = String> + '_ {
    iron3d_fxid::time::creation_order(effect)
        .filter_map(|(i, c)| emitter_texture(&Emitter::of(effect, i, c)?, c))
}

/// One running effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// The plugin's number for it (ascending in start order).
    pub serial: u32,
    /// Archive and entry it was started from.
    pub archive: String,
    /// See `archive`.
    pub entry: String,
    /// The object it belongs to (0: none).
    pub owner: u32,
    /// Where it started.
    pub position: [f32; 3],
    /// Where it points.
    pub target: Option<[f32; 3]>,
    /// The event's scale.
    pub scale: f32,
    /// Game time it started (ms).
    pub start_ms: u64,
    /// Game time it ends (ms, exclusive).
    pub end_ms: u64,
    /// Its random seed (PD-FX-RNG).
    pub seed: u64,
}

/// A live instance with its effect.
struct Live {
    instance: Instance,
    effect: Arc<Fxid>,
    emitters: Vec<Emitter>,
    /// Per emitter, its sprite texture (PD-FX-SPRITE-TEXTURE) for billboards and
    /// particles.
    textures: Vec<Option<String>>,
}

/// SplitMix64's finaliser: a well-mixed 64-bit hash of `x`.
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The next value of the SplitMix64 stream whose state is `state` (the state advances
/// by the golden gamma; the value is [`mix`] of the state before the step).
pub fn next_in_stream(state: &mut u64) -> u64 {
    let v = mix(*state);
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    v
}

/// Three uniform draws in `[0, 1)` from one hash.
fn draws(h: u64) -> [f32; 3] {
    let unit = |bits: u64| (bits & 0x1F_FFFF) as f32 / (1u32 << 21) as f32;
    [unit(h), unit(h >> 21), unit(h >> 42)]
}

/// What one emission produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Emitted {
    /// The frame's primitives (instance order, then command, then emission order).
    pub frame: EffectFrame,
    /// Primitives left out by PD-FX-BUDGET.
    pub dropped: usize,
}

/// The instances of a mission.
#[derive(Default)]
pub struct Runtime {
    live: Vec<Live>,
    next_serial: u32,
    base_seed: u64,
    /// Starts refused because [`MAX_INSTANCES`] were live.
    pub refused: u64,
}

fn v3(v: [f32; 3]) -> Vec3 {
    Vec3::from_array(v)
}

fn f3(v: Vec3) -> Vec3f {
    Vec3f {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

impl Runtime {
    /// An empty runtime whose instance seeds derive from `base_seed`.
    pub fn new(base_seed: u64) -> Runtime {
        Runtime {
            base_seed,
            ..Runtime::default()
        }
    }

    /// Live instances, ascending by serial.
    pub fn instances(&self) -> impl Iterator<Item = &Instance> {
        self.live.iter().map(|l| &l.instance)
    }

    /// The next serial and the base seed (what a saved state needs besides the
    /// instances).
    pub fn counters(&self) -> (u32, u64) {
        (self.next_serial, self.base_seed)
    }

    /// Starts `effect` at game time `now_ms` (`step_ms`: one tick, PD-FX-MIN-LIFE);
    /// returns the new instance's serial, `None` when [`MAX_INSTANCES`] are live.
    #[allow(clippy::too_many_arguments, reason = "one event's fields")]
    pub fn start(
        &mut self,
        effect: Arc<Fxid>,
        archive: &str,
        entry: &str,
        owner: u32,
        position: [f32; 3],
        target: Option<[f32; 3]>,
        scale: f32,
        now_ms: u64,
        step_ms: u64,
    ) -> Option<u32> {
        if self.live.len() >= MAX_INSTANCES {
            self.refused += 1;
            return None;
        }
        let serial = self.next_serial;
        self.next_serial = self.next_serial.wrapping_add(1);
        let duration = iron3d_fxid::time::TimeScale::MILLISECONDS
            .ticks(effect.header.duration_seconds())
            .unwrap_or(0);
        let end_ms = now_ms
            .saturating_add(duration)
            .max(now_ms.saturating_add(step_ms.max(1)));
        let instance = Instance {
            serial,
            archive: archive.to_owned(),
            entry: entry.to_owned(),
            owner,
            position,
            target,
            scale,
            start_ms: now_ms,
            end_ms,
            seed: mix(self.base_seed ^ u64::from(serial)),
        };
        self.adopt(instance, effect);
        Some(serial)
    }

    /// Takes over an instance as it was (a restored state): its commands' emitters are
    /// made again from `effect`.
    pub fn adopt(&mut self, instance: Instance, effect: Arc<Fxid>) {
        let (emitters, textures) = iron3d_fxid::time::creation_order(&effect)
            .filter_map(|(i, c)| {
                let e = Emitter::of(&effect, i, c)?;
                let texture = emitter_texture(&e, c);
                Some((e, texture))
            })
            .unzip();
        let at = self
            .live
            .partition_point(|l| l.instance.serial < instance.serial);
        self.live.insert(
            at,
            Live {
                instance,
                effect,
                emitters,
                textures,
            },
        );
    }

    /// Sets the counters a saved state had.
    pub fn set_counters(&mut self, next_serial: u32, base_seed: u64) {
        self.next_serial = next_serial;
        self.base_seed = base_seed;
    }

    /// Ends every instance whose lifetime is over at `now_ms`; returns how many.
    pub fn retire(&mut self, now_ms: u64) -> usize {
        let before = self.live.len();
        self.live.retain(|l| now_ms < l.instance.end_ms);
        before - self.live.len()
    }

    /// The primitives of every live instance at game time `now_ms` (PD-FX-EMIT-PURE).
    pub fn emit(&self, now_ms: u64) -> Emitted {
        let mut out = Emitted::default();
        out.frame.instances = u32::try_from(self.live.len()).unwrap_or(u32::MAX);
        let prims = &mut out.frame.primitives;
        let names = &mut out.frame.textures;
        for l in &self.live {
            let i = &l.instance;
            if now_ms < i.start_ms || now_ms >= i.end_ms {
                continue;
            }
            let before = prims.len();
            let t = (now_ms - i.start_ms) as f32 / 1000.0;
            let life = (i.end_ms - i.start_ms) as f32 / 1000.0;
            let tn = f64::from(t / life);
            let intensity = coefficient(l.effect.header.time_mode).eval(tn) as f32;
            let h = &l.effect.header;
            let scale = i.scale * sane(h.scale()[0], 0.0, 1_000.0);
            let pivot = v3(h.pivot()).map(|c| if c.is_finite() { c } else { 0.0 });
            let origin = v3(i.position) + pivot * scale;
            let target = i.target.map(v3);
            for (e, name) in l.emitters.iter().zip(&l.textures) {
                // The frame's texture list: each name once, in order of first use.
                let texture = name.as_deref().map_or(NO_EFFECT_TEXTURE, |n| {
                    match names.iter().position(|t| t.as_str() == n) {
                        Some(k) => k as u32,
                        None => {
                            names.push(n.into());
                            (names.len() - 1) as u32
                        }
                    }
                });
                let base = EffectPrimitive {
                    instance: i.serial,
                    command: e.command,
                    kind: PrimitiveKind::BILLBOARD,
                    blend: e.blend,
                    position: f3(origin),
                    end: f3(origin),
                    size: e.width * scale,
                    height: e.height * scale,
                    rotation: 0.0,
                    colour: [
                        e.colour[0],
                        e.colour[1],
                        e.colour[2],
                        e.colour[3] * intensity,
                    ],
                    texture,
                };
                let axis = target
                    .map(|t| (t - origin).normalize_or(Vec3::Z))
                    .unwrap_or(Vec3::Z);
                match e.role {
                    Role::Light => prims.push(EffectPrimitive {
                        kind: PrimitiveKind::POINT_LIGHT,
                        height: base.size,
                        ..base
                    }),
                    Role::Billboard => prims.push(base),
                    Role::Beam => prims.push(EffectPrimitive {
                        kind: PrimitiveKind::BEAM,
                        end: f3(origin + axis * e.length * scale),
                        height: base.size,
                        ..base
                    }),
                    Role::Streak => {
                        let goal = target.unwrap_or(origin + axis * e.length * scale);
                        let x = (t / life).clamp(0.0, 1.0);
                        let head = origin.lerp(goal, x);
                        let span = (head - origin).length().min(e.length * scale);
                        let tail = head - axis * span;
                        prims.push(EffectPrimitive {
                            kind: PrimitiveKind::STREAK,
                            position: f3(tail),
                            end: f3(head),
                            height: base.size,
                            ..base
                        });
                    }
                    Role::Particles => particles(prims, &base, e, i.seed, origin, t, life),
                }
            }
            if prims.len() > MAX_PRIMITIVES {
                out.dropped += prims.len() - before;
                prims.truncate(before);
            }
        }
        drop_unused_textures(&mut out.frame);
        out
    }
}

/// Leaves out of `frame.textures` the names no primitive uses (an emitter that showed
/// nothing, primitives dropped by PD-FX-BUDGET), renumbering the primitives' indices;
/// the order of the names kept is unchanged.
fn drop_unused_textures(frame: &mut EffectFrame) {
    let mut used = vec![false; frame.textures.len()];
    for p in frame.primitives.iter() {
        if let Some(u) = used.get_mut(p.texture as usize) {
            *u = true;
        }
    }
    if used.iter().all(|&u| u) {
        return;
    }
    let mut new_index = vec![NO_EFFECT_TEXTURE; used.len()];
    let mut kept = abi_stable::std_types::RVec::new();
    for (k, name) in frame.textures.iter().enumerate() {
        if used[k] {
            new_index[k] = kept.len() as u32;
            kept.push(name.clone());
        }
    }
    for p in frame.primitives.iter_mut() {
        if let Some(&n) = new_index.get(p.texture as usize) {
            p.texture = n;
        }
    }
    frame.textures = kept;
}

/// The intensity source of a time mode (PD-FX-TIME-MODE).
pub fn coefficient(time_mode: u32) -> Coefficient {
    match time_mode {
        1 => Coefficient::ForwardAge,
        2 => Coefficient::ReverseAge,
        4 | 5 => Coefficient::CyclicPhase,
        _ => Coefficient::Constant(1.0),
    }
}

/// The particles of emitter `e` of an instance seeded `seed` at `origin`, `t` seconds
/// into a life of `life` seconds: bursts of `count` at the start (rate 0) or every
/// `1/rate` seconds, each particle leaving in a seeded direction of the cone around up
/// at a seeded share (½..1) of the speed, falling with `gravity`, growing and fading
/// over its own life.
fn particles(
    prims: &mut abi_stable::std_types::RVec<EffectPrimitive>,
    base: &EffectPrimitive,
    e: &Emitter,
    seed: u64,
    origin: Vec3,
    t: f32,
    life: f32,
) {
    let p_life = if e.life > 0.0 { e.life } else { life };
    let (first, last) = if e.rate > 0.0 {
        let last = (t * e.rate).floor() as u64;
        let first = ((t - p_life) * e.rate).max(0.0).ceil() as u64;
        (first, last)
    } else {
        (0, 0)
    };
    // PD-FX-BUDGET: the newest bursts first within the cap, listed oldest first.
    let per = u64::from(e.count);
    let cap = (MAX_PARTICLES_PER_COMMAND as u64 / per.max(1)).max(1);
    let first = first.max(last.saturating_sub(cap - 1));
    let c = u64::from(e.command) << 40;
    for b in first..=last {
        let birth = if e.rate > 0.0 { b as f32 / e.rate } else { 0.0 };
        let age = t - birth;
        if !(0.0..p_life).contains(&age) {
            continue;
        }
        let x = age / p_life;
        let fade = match e.fade {
            Fade::None => 1.0,
            Fade::Out => 1.0 - x,
            Fade::Triangle => 1.0 - (2.0 * x - 1.0).abs(),
        };
        for k in 0..per {
            let [u, v, w] = draws(mix(seed ^ c ^ (b << 20) ^ k));
            let azimuth = u * std::f32::consts::TAU;
            let polar = v * e.spread;
            let dir = Vec3::new(
                polar.sin() * azimuth.cos(),
                polar.sin() * azimuth.sin(),
                polar.cos(),
            );
            let speed = e.speed * (0.5 + 0.5 * w);
            let p = origin + dir * speed * age + Vec3::Z * (0.5 * e.gravity * age * age);
            let grow = (1.0 + e.grow * age).max(0.01);
            prims.push(EffectPrimitive {
                kind: PrimitiveKind::PARTICLE,
                position: f3(p),
                end: f3(p),
                size: base.size * grow,
                height: base.size * grow,
                rotation: azimuth,
                colour: [
                    base.colour[0],
                    base.colour[1],
                    base.colour[2],
                    base.colour[3] * fade,
                ],
                ..*base
            });
        }
    }
}
