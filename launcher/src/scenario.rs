//! The built-in "wanderers" scenario: a scripted world that exercises the kernel until the
//! real mission loader arrives (arena control, collisions on the bus, life state in the
//! property bag, deletion in the object's own event callback, spawning from input; the
//! headings come from the registry's AI plugin).

use glam::{Quat, Vec3};
use iron3d_kernel::{
    CalcSlot, DeleteMode, Envelope, GameMessage, IdLayout, InputEvent, InputSource, Kernel,
    KernelError, ObjectDesc, ObjectHandle, OriginalObjectId, PropertyBag, StreamName, System,
    SystemCtx, SystemError, SystemResult, Target, Transform,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// Scenario name written into replay headers.
pub const SCENARIO_NAME: &str = "wanderers";
/// Input command code: spawn `arg` new objects.
pub const CMD_SPAWN: u32 = 1;
/// Input command code: set the wind (read by the AI plugin; `arg / 2` units per second along +X).
pub const CMD_WIND: u32 = 2;
/// Hit points written into each object's `Life state` property (`raw_value[1]`).
pub const INITIAL_LIFE: u32 = 10;
/// Collision radius of every object.
pub const RADIUS: f32 = 0.5;
/// Cruise speed in units per second.
pub const SPEED: f32 = 3.0;

/// Parameters of the scenario (recorded in replay headers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScenarioParams {
    /// Objects placed at start.
    pub objects: u32,
    /// Whether objects collide (the trivial benchmark turns it off).
    pub collisions: bool,
}

/// Half the side of the square arena for `objects` objects (density 1 per 256 square units).
pub fn arena_half_extent(objects: u32) -> f32 {
    (objects.max(1) as f32).sqrt() * 8.0
}

/// Original id of the `serial`-th object: owners 0–3 round-robin, then class 1.., index.
pub fn id_for(serial: u32) -> Option<OriginalObjectId> {
    let layout = IdLayout::PROJECT_DEFAULT;
    let owner = serial % 4;
    let rest = serial / 4;
    let index_span = 1u32 << layout.index_bits;
    OriginalObjectId::compose(layout, owner, 1 + rest / index_span, rest % index_span)
}

fn object_desc(id: OriginalObjectId, position: Vec3, heading: f32) -> ObjectDesc {
    let mut props = PropertyBag::new();
    props.push("Invulnerability", [0; 4]);
    props.push("Life state", [0, INITIAL_LIFE, 0, 0]);
    props.push(
        "ClanID",
        [0, id.owner_player(IdLayout::PROJECT_DEFAULT), 0, 0],
    );
    props.push("NOT USED", [0; 4]);
    ObjectDesc {
        id: Some(id),
        kind: 1,
        transform: Transform {
            position,
            orientation: Quat::from_rotation_z(heading),
            scale: Vec3::ONE,
        },
        velocity: Quat::from_rotation_z(heading) * Vec3::X * SPEED,
        props,
    }
}

/// Shared counter of issued object serials (so spawns never reuse an id).
#[derive(Clone, Debug, Default)]
pub struct Serials(Arc<AtomicU32>);

impl Serials {
    fn next(&self) -> u32 {
        self.0.fetch_add(1, Ordering::SeqCst)
    }
}

/// Places `params.objects` objects on a jittered grid using the world RNG stream.
pub fn populate(
    kernel: &mut Kernel,
    params: ScenarioParams,
    serials: &Serials,
) -> Result<(), KernelError> {
    let half = arena_half_extent(params.objects);
    let per_row = (params.objects as f32).sqrt().ceil().max(1.0) as u32;
    let spacing = 2.0 * half / per_row as f32;
    for i in 0..params.objects {
        let rng = kernel.rng_mut().stream(StreamName::World);
        let jitter =
            Vec3::new(rng.next_unit_f32() - 0.5, rng.next_unit_f32() - 0.5, 0.0) * spacing * 0.5;
        let heading = rng.next_unit_f32() * std::f32::consts::TAU;
        let cell = Vec3::new((i % per_row) as f32 + 0.5, (i / per_row) as f32 + 0.5, 0.0) * spacing;
        let position = cell - Vec3::new(half, half, 0.0) + jitter;
        let id = id_for(serials.next())
            .ok_or_else(|| KernelError::Config("scenario ran out of object ids".into()))?;
        let world = kernel.world_mut()?;
        let h = world.create(object_desc(id, position, heading))?;
        world.add_to_game(h)?;
    }
    Ok(())
}

/// Adds the scenario's own systems to `kernel` in their fixed order. The AI comes from
/// the registry's `ai` plugin (the sample `iron3d_ai_wanderer` reads [`CMD_WIND`]).
pub fn install(
    kernel: &mut Kernel,
    params: ScenarioParams,
    serials: &Serials,
) -> Result<(), KernelError> {
    let half = arena_half_extent(params.objects);
    kernel.add_system(Box::new(LifeBehavior))?;
    kernel.add_system(Box::new(ArenaControl { half }))?;
    if params.collisions {
        kernel.add_system(Box::new(Collisions::default()))?;
    }
    kernel.add_system(Box::new(Spawner {
        half,
        serials: serials.clone(),
    }))?;
    Ok(())
}

/// Behaviour: collisions cost life; at zero the object deletes itself in its own event callback.
#[derive(Debug)]
pub struct LifeBehavior;

impl System for LifeBehavior {
    fn name(&self) -> &str {
        "life-behavior"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Behavior)
    }
    fn on_message(
        &mut self,
        ctx: &mut SystemCtx<'_>,
        obj: Option<ObjectHandle>,
        env: &Envelope,
    ) -> SystemResult {
        let (Some(h), GameMessage::CollisionDetected { .. }) = (obj, &env.message) else {
            return Ok(());
        };
        let o = ctx.object_mut(h)?;
        let Some(life) = o.props.first_mut(b"Life state") else {
            return Ok(());
        };
        life.raw_value[1] = life.raw_value[1].saturating_sub(1);
        if life.raw_value[1] == 0 {
            ctx.delete(h, DeleteMode::Normal)?;
        }
        Ok(())
    }
}

/// Control: integrates velocity plus wind over the fixed step and reflects at the arena walls.
#[derive(Debug)]
pub struct ArenaControl {
    half: f32,
}

impl System for ArenaControl {
    fn name(&self) -> &str {
        "arena-control"
    }
    fn calc_slot(&self) -> Option<CalcSlot> {
        Some(CalcSlot::Control)
    }
    fn calculate_object(&mut self, ctx: &mut SystemCtx<'_>, h: ObjectHandle) -> SystemResult {
        let dt = ctx.time().step_seconds();
        let half = self.half;
        let o = ctx.object_mut(h)?;
        let mut p = o.transform.position + o.velocity * dt;
        for axis in 0..2 {
            if p[axis].abs() > half {
                p[axis] = p[axis].clamp(-half, half);
                o.velocity[axis] = -o.velocity[axis];
            }
        }
        o.transform.position = p;
        Ok(())
    }
}

/// Collision detection on a uniform grid; each touching pair gets `GMSG_COLLISION_DETECTED`
/// sent to both objects (ordered pair: lower id first).
#[derive(Debug, Default)]
pub struct Collisions {
    cells: Vec<((i32, i32), OriginalObjectId, ObjectHandle, Vec3)>,
    pairs: Vec<(
        ObjectHandle,
        ObjectHandle,
        OriginalObjectId,
        OriginalObjectId,
        Vec3,
    )>,
}

impl System for Collisions {
    fn name(&self) -> &str {
        "collisions"
    }
    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        let cell_size = 2.0 * RADIUS;
        let cell_of = |p: Vec3| {
            (
                (p.x / cell_size).floor() as i32,
                (p.y / cell_size).floor() as i32,
            )
        };
        self.cells.clear();
        self.cells.extend(
            ctx.world()
                .iter_registered()
                .filter(|(_, o)| !o.is_pending_delete())
                .map(|(h, o)| (cell_of(o.transform.position), o.id, h, o.transform.position)),
        );
        self.cells.sort_unstable_by_key(|c| (c.0, c.1));
        self.pairs.clear();
        for &(cell, id, h, p) in &self.cells {
            for dx in -1..=1 {
                for dy in -1..=1 {
                    let key = (cell.0 + dx, cell.1 + dy);
                    let start = self.cells.partition_point(|c| c.0 < key);
                    for &(c2, id2, h2, p2) in &self.cells[start..] {
                        if c2 != key {
                            break;
                        }
                        if id < id2 && p.distance_squared(p2) < (2.0 * RADIUS) * (2.0 * RADIUS) {
                            self.pairs.push((h, h2, id, id2, (p + p2) * 0.5));
                        }
                    }
                }
            }
        }
        self.pairs.sort_unstable_by_key(|p| (p.2, p.3));
        for &(h, h2, a, b, point) in &self.pairs {
            let message = GameMessage::CollisionDetected {
                a,
                b,
                point: point.to_array(),
            };
            ctx.send(Target::Object(h), message.clone())?;
            ctx.send(Target::Object(h2), message)?;
        }
        Ok(())
    }
}

/// Spawns objects when input asks for it (`CMD_SPAWN`), at random places from the world stream.
#[derive(Debug)]
pub struct Spawner {
    half: f32,
    serials: Serials,
}

impl System for Spawner {
    fn name(&self) -> &str {
        "spawner"
    }
    fn update(&mut self, ctx: &mut SystemCtx<'_>) -> SystemResult {
        let requests: Vec<i32> = ctx
            .input()
            .commands
            .iter()
            .filter(|c| c.0 == CMD_SPAWN)
            .map(|c| c.1)
            .collect();
        for count in requests {
            for _ in 0..count.clamp(0, 64) {
                let rng = ctx.rng(StreamName::World)?;
                let pos = Vec3::new(
                    rng.next_unit_f32() * 2.0 - 1.0,
                    rng.next_unit_f32() * 2.0 - 1.0,
                    0.0,
                ) * self.half;
                let heading = rng.next_unit_f32() * std::f32::consts::TAU;
                let Some(id) = id_for(self.serials.next()) else {
                    return Err(SystemError("object ids exhausted".into()));
                };
                let h = ctx.create(object_desc(id, pos, heading))?;
                ctx.add_to_game(h)?;
            }
        }
        Ok(())
    }
}

/// Scripted player input derived from the seed: occasional spawn and wind commands and a key.
#[derive(Debug)]
pub struct ScriptedInput {
    rng: ChaCha8Rng,
}

impl ScriptedInput {
    /// The script for `seed` (its own generator, independent of the kernel streams).
    pub fn new(seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(0x1719_0207);
        Self { rng }
    }
}

impl InputSource for ScriptedInput {
    fn events_for_tick(&mut self, _tick: u64) -> Vec<InputEvent> {
        let roll = self.rng.next_u32() % 100;
        match roll {
            0..=2 => vec![InputEvent::Command {
                code: CMD_SPAWN,
                arg: 1 + (self.rng.next_u32() % 3) as i32,
            }],
            3 => vec![InputEvent::Command {
                code: CMD_WIND,
                arg: (self.rng.next_u32() % 7) as i32 - 3,
            }],
            4 => vec![InputEvent::Key {
                code: 32,
                down: self.rng.next_u32() % 2 == 0,
            }],
            _ => Vec::new(),
        }
    }
}
