//! The built-in "wanderers" scenario's set-up: the starting world (objects on a jittered
//! grid, with the scenario's property bag), the mission parameters its gameplay plugin
//! reads, and the scripted player input. The gameplay itself — arena control, collisions
//! on the bus, life state, deletion in the object's own event callback, spawning from
//! input — is the `iron3d_scenario` plugin in the control slot of `config/scenario.ini`;
//! the headings come from the AI slot's plugin.

use glam::{Quat, Vec3};
use iron3d_gameplay::property::{CLAN_ID, INVULNERABILITY, LIFE_STATE, NOT_USED};
use iron3d_kernel::{
    IdLayout, InputEvent, InputSource, Kernel, KernelError, ObjectDesc, OriginalObjectId,
    PropertyBag, StreamName, Transform,
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
    props.push(INVULNERABILITY.as_bytes(), INVULNERABILITY.raw(0));
    props.push(LIFE_STATE.as_bytes(), LIFE_STATE.raw(INITIAL_LIFE));
    props.push(
        CLAN_ID.as_bytes(),
        CLAN_ID.raw(id.owner_player(IdLayout::PROJECT_DEFAULT)),
    );
    props.push(NOT_USED.as_bytes(), NOT_USED.raw(0));
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
        prototype: Vec::new(),
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

/// The mission parameters of the scenario's gameplay plugin: the arena's half extent and
/// whether objects collide.
pub fn parameters(params: ScenarioParams) -> std::collections::BTreeMap<String, String> {
    std::collections::BTreeMap::from([
        (
            "arena_half_extent".to_owned(),
            arena_half_extent(params.objects).to_string(),
        ),
        ("collisions".to_owned(), params.collisions.to_string()),
    ])
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

/// The keys of the scenario's own parameters in a replay header's `params`
/// (PD-REPLAY-KEYS).
pub const PARAM_KEYS: &[&str] = &["objects", "collisions"];

/// The scenario's parameters as a replay header records them.
pub fn params_to_json(p: ScenarioParams) -> std::collections::BTreeMap<String, serde_json::Value> {
    std::collections::BTreeMap::from([
        ("objects".to_owned(), serde_json::json!(p.objects)),
        ("collisions".to_owned(), serde_json::json!(p.collisions)),
    ])
}

/// The scenario's parameters a replay header recorded.
///
/// # Errors
/// A key is missing or of the wrong type.
pub fn params_from_json(
    m: &std::collections::BTreeMap<String, serde_json::Value>,
) -> anyhow::Result<ScenarioParams> {
    use anyhow::Context;
    let objects = m
        .get("objects")
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .context("replay header: params.objects missing or not a u32")?;
    let collisions = m
        .get("collisions")
        .and_then(serde_json::Value::as_bool)
        .context("replay header: params.collisions missing or not a boolean")?;
    Ok(ScenarioParams {
        objects,
        collisions,
    })
}
