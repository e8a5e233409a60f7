//! The `ai` plugin (AI slot, the registry's default): the rules of this crate wired to
//! the engine through the plugin interface. Once per tick, in `update` (the AI slot
//! runs before Control, so requests take effect in the same tick):
//!
//! 1. the first tick runs SuperAI start-up ([`crate::superai`]): `CreateSuperAI` for
//!    every clan record, the first `Init` of each loaded package, results on `ai.log`;
//! 2. every object's body is read in one batch; units due on their think clock
//!    ([`crate::schedule::FirstStep`] on the shared stream, then every
//!    [`crate::behavior::THINK_PERIOD_MS`]) **think** ([`crate::behavior::decide`]);
//! 3. every mobile unit with a goal **moves**: the global path and corridor from the
//!    terrain service ([`crate::path`], cached per areal pair), then Wizard
//!    ([`crate::wizard`]) among the objects around it, then a velocity request to the
//!    control service. An error state is reported once on `Behavior.log` and the unit
//!    stops — it is never moved by the AI itself;
//! 4. armed units **fight** ([`crate::combat`]);
//! 5. transports load and unload; every 500 ms of game time the **economy** steps
//!    ([`crate::economy`]): mines produce, each clan's distributor runs, plants build,
//!    `CurrentOre` is mirrored into the objects' properties, and the objectives are
//!    checked ([`crate::objectives`]); a decided mission goes through the outcome
//!    latch to the host.
//!
//! **Clans** (**PD-AI-CLAN**): an object loaded from the mission belongs to the SuperAI
//! slot `raw_after_resource` of its TMA record (matched by the loader's id rule and its
//! prototype); an object created later belongs to the slot in `raw_value[1]` of its
//! `ClanID` property; otherwise it has no clan. Clan `a` is hostile to clan `b` when
//! `a`'s relation table gives `b`'s name a negative value.
//!
//! **Orders** (plugin messages to a unit): [`ORDER_MOVE`] (`point` = destination) and
//! [`ORDER_CANCEL`]. A player's seat or a mod sends them.
//!
//! Everything the plugin decides is in its state blob (postcard, [`STATE_FORMAT`]
//! v[`STATE_VERSION`]), so a hot swap keeps every unit's behaviour; what comes from the
//! data (scripts, configuration, objectives, classes) is read again at mission start.

use crate::behavior::{self, Activity, Agent, Decision, Perception, Role, Seen};
use crate::combat::{self, LIFE_STATE, MUZZLE_HEIGHT, Weapon};
use crate::config::{BEHAVIOR_INI, BehaviorConfig};
use crate::distributor::{Distributor, Totals, joins};
use crate::economy::{self, Plant, Production, StagedLedger};
use crate::objectives::{OBJECTIVES_FILE, Objectives, Progress, Scoreboard, Side};
use crate::path::{ErrorState, PathParams, Plan, Planner, Steer};
use crate::profile::{CURRENT_ORE, Profile, ore_start, profile_for};
use crate::schedule::{DEFAULT_PERIOD_MS, FirstStepPoll, SharedRng, StepClock, is_due};
use crate::superai::{InitRun, OutcomeLatch, ScriptPackage, SuperAi, SuperAiTable};
use crate::wizard::{Mover, Neighbour, WizardParams};
use glam::{Vec2, Vec3};
use iron3d_abi::abi_stable::std_types::RVec;
use iron3d_abi::rng::PluginRng;
use iron3d_abi::{
    Body, ErrorKind, FactoryDescription, Host, Message, MessageCode, MissionInfo, MotionRequest,
    NewObject, ObjectRef, Plugin, PluginDescription, PluginError, Property, SlotKind, StateBlob,
    Vec3f, callbacks, physical_flags,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-ai";
/// State blob version.
pub const STATE_VERSION: u32 = 1;
/// Plugin message: move to `point` (to the unit).
pub const ORDER_MOVE: MessageCode = MessageCode(0x1000_A100);
/// Plugin message: drop the order (to the unit).
pub const ORDER_CANCEL: MessageCode = MessageCode(0x1000_A101);
/// The shared RNG stream (Behavior's first steps).
pub const SHARED_STREAM: &str = "shared";
/// The property a created object's clan is read from.
pub const CLAN_ID: &[u8] = b"ClanID";
/// Property where a unit's target is published (`raw_value[1]`, 0: none; the trace's
/// `target`).
pub const BEHAVIOR_TARGET: &[u8] = b"BehaviorTarget";
/// Property where a unit's path revision is published (the trace's `path`).
pub const BEHAVIOR_PATH: &[u8] = b"BehaviorPath";
/// Cell size of the neighbour grid.
const CELL: f32 = 16.0;
/// Radius Wizard looks around a unit.
const WIZARD_RANGE: f32 = 8.0;
/// Entries of the route cache before it is emptied.
const ROUTE_CACHE_MAX: usize = 4096;
/// Life of a unit a plant builds.
pub const BUILT_LIFE: u32 = 100;

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-ai",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::new(
            "ai",
            SlotKind::Ai,
            callbacks::UPDATE | callbacks::OBJECTS | callbacks::MESSAGES,
        )],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != "ai" {
        return Err(PluginError::new(
            ErrorKind::UNSUPPORTED,
            format!("iron3d-ai has no factory '{factory}'"),
        ));
    }
    Ok(Box::new(AiPlugin::default()))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// Cruise speed of a role (units per second; **PD-AI-SPEED**, ours).
pub fn cruise_speed(role: Role) -> f32 {
    match role {
        Role::Fighter => 6.0,
        Role::Transport | Role::Builder => 5.0,
        Role::Animal => 3.0,
        _ => 0.0,
    }
}

/// One clan's saved state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClanState {
    /// The SuperAI variables (by varset declaration index; raw words).
    pub variables: Vec<Option<[u32; 2]>>,
    /// The one-shot `Init` mark.
    pub init_done: bool,
    /// The distributor (only for loaded slots).
    pub distributor: Distributor,
    /// The last step's five totals.
    pub totals: Totals,
    /// Ore unloaded into the clan's storages so far.
    pub gathered: f32,
}

/// Everything saved.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// Agents by id.
    pub agents: BTreeMap<u32, Agent>,
    /// Plants by id.
    pub plants: BTreeMap<u32, Plant>,
    /// Per clan record.
    pub clans: Vec<ClanState>,
    /// The economy clock (`None` before the first tick).
    pub clock: Option<StepClock>,
    /// Queue time of the first tick.
    pub started_ms: Option<u32>,
    /// The shared RNG.
    pub rng: Vec<u8>,
    /// The outcome latch.
    pub outcome: OutcomeLatch,
    /// Objective timers.
    pub progress: Progress,
    /// Whether the mission's own objects were all seen (later objects are creations).
    pub loaded_seen: bool,
    /// Orders for objects created but not added yet, by handle `(slot, generation)`.
    pub pending_orders: BTreeMap<(u32, u32), Vec2>,
}

/// A clan record as the plugin uses it.
#[derive(Clone, Debug, Default)]
struct ClanInfo {
    name: Vec<u8>,
    /// Slots this clan is hostile to.
    hostile: Vec<u32>,
}

/// What the plugin knows of the mission data (read at mission start, never saved).
#[derive(Default)]
struct Data {
    config: Option<BehaviorConfig>,
    table: SuperAiTable,
    clans: Vec<ClanInfo>,
    /// `(upper-case resource name, slot)` per TMA record.
    records: Vec<(Vec<u8>, u32)>,
    objectives: Option<Objectives>,
    /// Standing orders by placed-object index.
    orders: BTreeMap<usize, Vec2>,
    /// Unit DATs per category mask.
    build: BTreeMap<u32, Vec<String>>,
}

/// Per-tick scratch, rebuilt every tick.
#[derive(Default)]
struct Scratch {
    bodies: RVec<Body>,
    /// `(id, body index)` ascending by id.
    index: Vec<(u32, usize)>,
    /// Grid cell → body indices.
    grid: BTreeMap<(i32, i32), Vec<usize>>,
    /// Radius and static flag per id (from the control service; cached).
    proxies: BTreeMap<u32, Option<(f32, bool)>>,
    /// The motion request sent last per id.
    sent: BTreeMap<u32, MotionRequest>,
    /// Route cache: `(from areal, to areal)` → plan.
    routes: BTreeMap<(u32, u32), Plan>,
    /// Prototype (upper case) → class word (0: none).
    classes: BTreeMap<Vec<u8>, u32>,
    /// `(target, path revision)` published last per id.
    published: BTreeMap<u32, (u32, u32)>,
    /// Per body index: its agent's clan and whether it can be targeted (an agent with
    /// life, not dead).
    targets: Vec<(Option<u32>, bool)>,
}

/// The `ai` instance.
#[derive(Default)]
pub struct AiPlugin {
    saved: Saved,
    data: Data,
    scratch: Scratch,
    auto_demo: bool,
}

struct Rng<'a>(&'a mut PluginRng);

impl SharedRng for Rng<'_> {
    fn draw(&mut self) -> u32 {
        self.0.next_u32()
    }
}

fn ground(v: Vec3f) -> Vec2 {
    Vec2::new(v.x, v.y)
}

fn cell_of(p: Vec2) -> (i32, i32) {
    ((p.x / CELL).floor() as i32, (p.y / CELL).floor() as i32)
}

fn is_dat(prototype: &[u8]) -> bool {
    prototype.len() > 4 && prototype[prototype.len() - 4..].eq_ignore_ascii_case(b".dat")
}

/// The terrain service as Behavior plans with it, cached per areal pair.
struct HostPlanner<'s, 'h, 'a> {
    host: &'h mut Host<'a>,
    routes: &'s mut BTreeMap<(u32, u32), Plan>,
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
    fn path_params(&self) -> PathParams {
        let c = self.data.config.unwrap_or_default();
        PathParams {
            corridor_radius: c.corridor_radius.value,
            near_door_coeff: c.near_door_coeff.value,
            step_dist: c.step_dist.value,
        }
    }

    fn wizard_params(&self) -> WizardParams {
        let c = self.data.config.unwrap_or_default();
        WizardParams {
            building_nearest_dist: c.building_nearest_dist.value,
            near_build_speed_percent: c.near_build_speed_percent.value,
        }
    }

    /// Loads the clans' packages, the records, the objectives and `BuildDat.lst`.
    fn load_data(&mut self, host: &Host<'_>) -> Result<(), PluginError> {
        let read = |name: &str| match host.read_mission_file(name) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind == ErrorKind::NOT_FOUND => Ok(None),
            Err(e) => Err(e),
        };
        let ini = read(BEHAVIOR_INI)?;
        self.data.config = Some(
            BehaviorConfig::read(ini.as_deref())
                .map_err(|e| PluginError::new(ErrorKind::INVALID, error_chain(&e)))?,
        );
        let Some(tma_bytes) = read("data.tma")? else {
            tracing::info!(target: "ai.log", "no data.tma: no clans, no SuperAI");
            return Ok(());
        };
        let tma = iron3d_tma::Tma::parse(&tma_bytes)
            .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("data.tma: {e}")))?;
        let mut table = SuperAiTable::default();
        let mut clans = Vec::new();
        for (n, clan) in tma.clans.iter().enumerate() {
            let package = load_package(n, clan, &read)?;
            if n >= crate::superai::SUPER_AI_SLOTS {
                tracing::warn!(target: "ai.log", clan = n,
                    "clan record beyond the 64 SuperAI slots: no slot reaches it");
            }
            let ai = SuperAi::create(n, clan.name.as_bytes(), clan.anchor_f32(), package);
            for b in ai.base.iter().filter(|b| b.warns()) {
                tracing::warn!(target: "ai.log", clan = n, anchor = b.anchor,
                    "clan anchor above 10,000: AI creation goes on");
            }
            table.clans.push(ai);
            clans.push(ClanInfo {
                name: clan.name.as_bytes().to_vec(),
                hostile: Vec::new(),
            });
        }
        for (n, clan) in tma.clans.iter().enumerate() {
            for r in &clan.relations {
                if r.value < 0 {
                    if let Some(m) = clans
                        .iter()
                        .position(|c| c.name == r.other_clan_name.as_bytes())
                    {
                        clans[n].hostile.push(m as u32);
                    }
                }
            }
            clans[n].hostile.sort_unstable();
            clans[n].hostile.dedup();
        }
        self.data.records = tma
            .objects
            .iter()
            .map(|o| {
                (
                    o.resource_name.as_bytes().to_ascii_uppercase(),
                    o.raw_after_resource,
                )
            })
            .collect();
        self.data.table = table;
        self.data.clans = clans;
        if let Some(bytes) = read(OBJECTIVES_FILE)? {
            let o = Objectives::parse(&bytes, OBJECTIVES_FILE)
                .map_err(|e| PluginError::new(ErrorKind::INVALID, error_chain(&e)))?;
            tracing::info!(target: "ai.log", clan = o.clan, objectives = o.goals.len(), "objectives loaded");
            self.data.objectives = Some(o);
        }
        if let Some(bytes) = read(iron3d_config::orders::ORDERS_FILE)? {
            self.data.orders =
                iron3d_config::orders::parse(&bytes, iron3d_config::orders::ORDERS_FILE)
                    .map_err(|e| PluginError::new(ErrorKind::INVALID, error_chain(&e)))?
                    .into_iter()
                    .map(|(k, [x, y])| (k, Vec2::new(x, y)))
                    .collect();
        }
        if let Some(bytes) = read("BuildDat.lst")? {
            let b = iron3d_config::BuildDat::parse(&bytes, "BuildDat.lst")
                .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("{e}")))?;
            for c in b.categories() {
                self.data.build.insert(c.mask, c.units.clone());
            }
        }
        Ok(())
    }

    /// The class word of objects made from `prototype` (0: not a unit DAT), cached.
    fn class_of(&mut self, host: &Host<'_>, prototype: &[u8]) -> u32 {
        let key = prototype.to_ascii_uppercase();
        if let Some(c) = self.scratch.classes.get(&key) {
            return *c;
        }
        let class = if is_dat(prototype) {
            let path = String::from_utf8_lossy(prototype).replace('\\', "/");
            match host
                .read_mission_file(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| iron3d_unitdat::UnitDat::parse(&b).map_err(|e| e.to_string()))
            {
                Ok(dat) => dat.header.class_word(),
                Err(e) => {
                    tracing::warn!(target: "ai.log", prototype = path.as_str(), error = e.as_str(),
                        "unit DAT unreadable: objects made from it have no behaviour");
                    0
                }
            }
        } else {
            0
        };
        self.scratch.classes.insert(key, class);
        class
    }

    /// Makes the agent of a new object.
    fn adopt(&mut self, host: &mut Host<'_>, object: ObjectRef) -> Result<(), PluginError> {
        let info = host.object(object)?;
        if info.mirror || self.saved.agents.contains_key(&info.id) {
            return Ok(());
        }
        let prototype = host.prototype(object)?;
        let class = self.class_of(host, &prototype);
        let upper = prototype.to_ascii_uppercase();
        // PD-AI-CLAN.
        let record = ((info.class.wrapping_sub(1)) as usize)
            .checked_mul(4096)
            .and_then(|b| b.checked_add(info.index as usize));
        let record = record
            .filter(|_| !self.saved.loaded_seen && info.owner == 0)
            .filter(|&r| {
                self.data
                    .records
                    .get(r)
                    .is_some_and(|(name, _)| *name == upper)
            });
        let from_record = record.map(|r| self.data.records[r].1);
        let clan = match from_record {
            Some(s) => Some(s),
            None => host.property(object, CLAN_ID)?.map(|v| v[1]),
        };
        let mut agent = Agent::new(info.id, clan, class, ground(info.position));
        if agent.role.mobile() {
            agent.order = record.and_then(|r| self.data.orders.get(&r).copied());
        }
        if let Some(o) = self
            .saved
            .pending_orders
            .remove(&(object.slot, object.generation))
        {
            agent.order = Some(o);
        }
        let life = host.property(object, LIFE_STATE)?.map(|v| v[1]);
        agent.life = life.unwrap_or(0);
        agent.max_life = life.unwrap_or(0);
        if class != 0 {
            let ore = ore_start(class, host.property(object, CURRENT_ORE)?);
            agent.ore = ore.current as f32;
            agent.max_ore = ore.maximum as f32;
        }
        // Distributor membership (FORMATS §13.12).
        if let Some(slot) = clan {
            let table = &self.data.table;
            if joins(slot, |n| table.get(n).is_some(), class) {
                if let Some(c) = self.saved.clans.get_mut(slot as usize) {
                    c.distributor.add(info.id, false);
                }
            }
        }
        if profile_for(class) == Some(Profile::Plant) {
            self.saved.plants.entry(info.id).or_default();
        }
        self.saved.agents.insert(info.id, agent);
        Ok(())
    }

    fn body(&self, id: u32) -> Option<&Body> {
        let i = self.scratch.index.binary_search_by_key(&id, |e| e.0).ok()?;
        self.scratch.bodies.get(self.scratch.index[i].1)
    }

    fn hostile(&self, a: Option<u32>, b: Option<u32>) -> bool {
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
    fn around(&self, at: Vec2, r: f32) -> Vec<usize> {
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

    fn proxy(&mut self, host: &mut Host<'_>, id: u32, handle: ObjectRef) -> Option<(f32, bool)> {
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

    fn read_world(&mut self, host: &mut Host<'_>) {
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
    fn nearest_enemy(&self, clan: Option<u32>, at: Vec2, r: f32) -> Option<Seen> {
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

    fn perceive(&self, a: &Agent, at: Vec2) -> Perception {
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

    fn set_activity(
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

    fn request(
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

    fn think(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
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

    fn report(&mut self, id: u32, state: ErrorState, why: &str, now: u32) {
        if let Some(a) = self.saved.agents.get_mut(&id) {
            if a.enter_error(state, now) {
                tracing::warn!(target: "Behavior.log", object = id, state = state.number(), name = state.name(), why, "error state");
            }
        }
    }

    fn steer(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
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

    fn fight(&mut self, host: &mut Host<'_>, dt: f32) -> Result<(), PluginError> {
        let ids: Vec<u32> = self
            .saved
            .agents
            .values()
            .filter(|a| Weapon::of(a.role).is_some() && a.activity != Activity::Dead)
            .map(|a| a.id)
            .collect();
        for id in ids {
            let (Some(me), Some(a)) = (self.body(id).copied(), self.saved.agents.get(&id)) else {
                continue;
            };
            let Some(w) = Weapon::of(a.role) else {
                continue;
            };
            let reload = (a.reload - dt).max(0.0);
            let target = (a.activity == Activity::Attack)
                .then_some(a.target)
                .flatten()
                .and_then(|t| self.body(t).copied())
                .filter(|t| {
                    self.saved
                        .agents
                        .get(&t.id)
                        .is_some_and(|o| o.activity != Activity::Dead)
                });
            let mut turret = a.turret;
            let mut fire = None;
            if let Some(t) = target {
                let d = ground(t.position) - ground(me.position);
                let bearing = d.y.atan2(d.x);
                let (yaw, on) = combat::aim(turret, bearing, w.turret_rate, dt);
                turret = yaw;
                if on && reload <= 0.0 && d.length() <= w.range {
                    fire = Some(t);
                }
            }
            if let Some(a) = self.saved.agents.get_mut(&id) {
                a.turret = turret;
                a.reload = if fire.is_some() { w.reload } else { reload };
            }
            let Some(t) = fire else { continue };
            let up = Vec3::Z * MUZZLE_HEIGHT;
            let from = Vec3::from(me.position) + up;
            let to = Vec3::from(t.position) + up;
            let hit = match host.control().ray(from.into(), to.into(), Some(id)) {
                Ok(h) => h,
                Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => {
                    continue;
                }
                Err(e) => return Err(e),
            };
            let Some(hit) = hit else { continue };
            tracing::trace!(target: "ai.log", shooter = id, target = t.id, hit = hit.id, "shot");
            self.damage(host, hit.id, w.damage)?;
        }
        Ok(())
    }

    fn damage(&mut self, host: &mut Host<'_>, id: u32, damage: u32) -> Result<(), PluginError> {
        let Some(handle) = self.body(id).map(|b| b.handle) else {
            return Ok(());
        };
        let Some(mut life) = host.property(handle, LIFE_STATE)? else {
            return Ok(());
        };
        if life[1] == 0 {
            return Ok(());
        }
        life[1] = combat::damaged(life[1], damage);
        host.set_property(handle, LIFE_STATE, life)?;
        let dead = life[1] == 0;
        if let Some(a) = self.saved.agents.get_mut(&id) {
            a.life = life[1];
            if dead {
                a.activity = Activity::Dead;
                a.target = None;
                a.path.set_goal(None);
            }
        }
        if dead {
            tracing::info!(target: "Behavior.log", object = id, "destroyed");
            host.set_behaviour_state(handle, Activity::Dead.number())?;
            host.kill(handle)?;
        }
        Ok(())
    }

    /// Whether `id` is within docking reach of `target` (proxy radii plus
    /// [`economy::DOCK_DISTANCE`]).
    fn docked(&mut self, host: &mut Host<'_>, id: u32, target: u32) -> bool {
        let (Some(a), Some(b)) = (self.body(id).copied(), self.body(target).copied()) else {
            return false;
        };
        let ra = self.proxy(host, id, a.handle).map_or(1.0, |p| p.0);
        let rb = self.proxy(host, target, b.handle).map_or(1.0, |p| p.0);
        ground(a.position).distance(ground(b.position)) <= ra + rb + economy::DOCK_DISTANCE
    }

    fn dock(&mut self, host: &mut Host<'_>, dt: f32) {
        let ids: Vec<u32> = self
            .saved
            .agents
            .values()
            .filter(|a| matches!(a.activity, Activity::Harvest | Activity::Deliver))
            .map(|a| a.id)
            .collect();
        for id in ids {
            let Some(t) = self.saved.agents.get(&id).and_then(|a| a.target) else {
                continue;
            };
            if !self.docked(host, id, t) {
                continue;
            }
            let (Some(a), Some(o)) = (self.saved.agents.get(&id), self.saved.agents.get(&t)) else {
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
            if let Some(a) = self.saved.agents.get_mut(&id) {
                a.ore = (a.ore + sign * moved).max(0.0);
                if full_or_empty {
                    a.next_think = 0;
                    if !harvest {
                        a.activity = Activity::Deliver;
                    }
                }
            }
            if let Some(o) = self.saved.agents.get_mut(&t) {
                o.ore = (o.ore - sign * moved).max(0.0);
            }
            if !harvest {
                if let Some(c) = clan.and_then(|c| self.saved.clans.get_mut(c as usize)) {
                    c.gathered += moved;
                }
            }
        }
    }

    fn economy(&mut self, host: &mut Host<'_>, now: u32) -> Result<(), PluginError> {
        let Some(clock) = self.saved.clock.as_mut() else {
            return Ok(());
        };
        let Some(dt) = clock.poll(now) else {
            return Ok(());
        };
        // Mines produce.
        for a in self.saved.agents.values_mut() {
            if profile_for(a.class_word) == Some(Profile::Mine) && a.activity != Activity::Dead {
                a.ore = (a.ore + economy::MINE_RATE * dt).min(a.max_ore);
            }
        }
        // Plants start work.
        let mobile: BTreeMap<u32, usize> = self
            .saved
            .agents
            .values()
            .filter(|a| a.role.mobile() && a.activity != Activity::Dead)
            .fold(BTreeMap::new(), |mut m, a| {
                if let Some(c) = a.clan {
                    *m.entry(c).or_default() += 1;
                }
                m
            });
        for (id, plant) in self.saved.plants.iter_mut() {
            let Some(a) = self.saved.agents.get(id) else {
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
            .values()
            .filter(|a| a.max_ore > 0.0 && a.activity != Activity::Dead)
            .map(|a| (a.id, a.ore as u32))
            .collect();
        for (id, ore) in holders {
            if let Some(h) = self.body(id).map(|b| b.handle) {
                let old = host.property(h, CURRENT_ORE)?;
                if old.map(|v| v[1]) != Some(ore) {
                    let mut v = old.unwrap_or([0; 4]);
                    v[1] = ore;
                    host.set_property(h, CURRENT_ORE, v)?;
                }
            }
        }
        self.objectives(host, now, dt)
    }

    /// `(ClanBaseX, ClanBaseY)` of the first clan `clan` is hostile to.
    fn enemy_base(&self, clan: u32) -> Option<Vec2> {
        let other = *self.data.clans.get(clan as usize)?.hostile.first()?;
        let ai = self.data.table.clans.get(other as usize)?;
        Some(Vec2::new(
            ai.base[0].variable as f32,
            ai.base[1].variable as f32,
        ))
    }

    fn spawn(&mut self, host: &mut Host<'_>, plant: u32) -> Result<(), PluginError> {
        let (Some(b), Some(a)) = (self.body(plant).copied(), self.saved.agents.get(&plant)) else {
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
        let radius = self
            .scratch
            .proxies
            .get(&plant)
            .copied()
            .flatten()
            .map_or(2.0, |p| p.0);
        let pos =
            Vec3::from(b.position) + glam::Quat::from(b.orientation) * Vec3::X * (radius + 3.0);
        let mut properties = RVec::new();
        properties.push(Property {
            name: LIFE_STATE.to_vec().into(),
            value: [0, BUILT_LIFE, 0, 0],
        });
        if let Some(c) = clan {
            properties.push(Property {
                name: CLAN_ID.to_vec().into(),
                value: [0, c, 0, 0],
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

    fn objectives(&mut self, host: &mut Host<'_>, now: u32, dt: f32) -> Result<(), PluginError> {
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
        self.saved.progress = progress;
        let Some(side) = decided else { return Ok(()) };
        let payload = u32::from(side == Side::Win);
        let r = self.saved.outcome.callback(0, 0, payload);
        tracing::info!(target: "ai.log", outcome = ?side, result = ?r, "mission decided");
        match r {
            crate::superai::CallbackResult::Set(out) => host.mission_outcome(match out {
                crate::superai::Outcome::Complete => iron3d_abi::MissionOutcome::COMPLETE,
                crate::superai::Outcome::Failed => iron3d_abi::MissionOutcome::FAILED,
            }),
            _ => Ok(()),
        }
    }

    fn start(&mut self, now: u32) {
        self.saved.started_ms = Some(now);
        self.saved.clock = Some(StepClock::new(now, DEFAULT_PERIOD_MS));
        self.saved.outcome.auto_demo = self.auto_demo;
        for ai in self.data.table.clans.iter_mut() {
            let run = ai.run_init();
            match &run {
                InitRun::Unsupported(why) => {
                    tracing::warn!(target: "ai.log", clan = ai.clan, why = why.as_str(), "Init not executed (PD-AI-INIT)");
                }
                r => {
                    tracing::info!(target: "ai.log", clan = ai.clan, loaded = ai.package.is_some(), init = ?r, "SuperAI created")
                }
            }
        }
        self.save_clans();
    }

    fn save_clans(&mut self) {
        let n = self.data.table.clans.len();
        self.saved.clans.resize_with(n, ClanState::default);
        for (ai, c) in self
            .data
            .table
            .clans
            .iter()
            .zip(self.saved.clans.iter_mut())
        {
            c.init_done = ai.init_done;
            c.variables = ai.variables.iter().map(|v| v.map(var_words)).collect();
        }
    }
}

fn var_words(v: iron3d_aux::VarValue) -> [u32; 2] {
    match v {
        iron3d_aux::VarValue::Dword(d) => [0, d],
        iron3d_aux::VarValue::Float(f) => [1, f.to_bits()],
    }
}

fn word_var(w: [u32; 2]) -> iron3d_aux::VarValue {
    if w[0] == 1 {
        iron3d_aux::VarValue::Float(f32::from_bits(w[1]))
    } else {
        iron3d_aux::VarValue::Dword(w[1])
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
            .values()
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
        for i in self.plugin.around(Vec2::new(x, y), r) {
            let b = &self.plugin.scratch.bodies[i];
            if let Some(a) = self.plugin.saved.agents.get(&b.id) {
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

/// The error and its sources, joined (for logs and plugin errors, which carry text).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Reads a mission file: `Ok(None)` when absent.
type ReadFile<'r> = dyn Fn(&str) -> Result<Option<Vec<u8>>, PluginError> + 'r;

/// A clan's package: `<base>.scr` (`.scr` appended when the base has no extension)
/// and `<base>.var`, else the shared `MISSIONS\SCRIPTS\varset.var`. `None` when the
/// base is empty or the `.scr` is absent; a broken file is an error.
fn load_package(
    n: usize,
    clan: &iron3d_tma::Clan,
    read: &ReadFile<'_>,
) -> Result<Option<ScriptPackage>, PluginError> {
    let base = match &clan.body {
        iron3d_tma::ClanBody::Standard {
            resource_path_1, ..
        } => resource_path_1.as_bytes(),
        iron3d_tma::ClanBody::Spatial { first_resource, .. } => first_resource.as_bytes(),
    };
    let base = String::from_utf8_lossy(base).replace('\\', "/");
    if base.is_empty() {
        return Ok(None);
    }
    let has_ext = base.rsplit('/').next().is_some_and(|f| f.contains('.'));
    let (stem, scr) = if has_ext {
        (
            base.rsplit_once('.')
                .map_or(base.clone(), |(s, _)| s.to_owned()),
            base.clone(),
        )
    } else {
        (base.clone(), format!("{base}.scr"))
    };
    let name = String::from_utf8_lossy(clan.name.as_bytes()).into_owned();
    let broken = |file: &str, source: iron3d_aux::AuxError| {
        PluginError::new(
            ErrorKind::INVALID,
            error_chain(&crate::AiError::Package {
                clan: n,
                name: name.clone(),
                file: file.to_owned(),
                source: Box::new(source),
            }),
        )
    };
    let Some(bytes) = read(&scr)? else {
        tracing::info!(target: "ai.log", clan = n, file = scr.as_str(), "no script package: the clan has no SuperAI slot");
        return Ok(None);
    };
    let script = iron3d_aux::Script::parse(&bytes).map_err(|e| broken(&scr, e))?;
    let var = format!("{stem}.var");
    let shared = "MISSIONS/SCRIPTS/varset.var";
    let (source, bytes) = match read(&var)? {
        Some(b) => (var, b),
        None => match read(shared)? {
            Some(b) => (shared.to_owned(), b),
            None => {
                tracing::warn!(target: "ai.log", clan = n, "neither {var} nor {shared}: the package does not load");
                return Ok(None);
            }
        },
    };
    let varset = iron3d_aux::Varset::parse(&bytes).map_err(|e| broken(&source, e))?;
    Ok(Some(ScriptPackage {
        script,
        varset,
        varset_source: source,
    }))
}

impl Plugin for AiPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.auto_demo = host
            .mission_parameter("auto-demo")
            .is_some_and(|v| v == "1");
        self.saved.rng = PluginRng::new(host.rng_seed(SHARED_STREAM))
            .to_bytes()
            .to_vec();
        if mission.has_game_data {
            self.load_data(host)?;
        }
        let n = self.data.table.clans.len();
        self.saved.clans.resize_with(n, ClanState::default);
        Ok(())
    }

    fn object_added(&mut self, host: &mut Host<'_>, object: ObjectRef) -> Result<(), PluginError> {
        self.adopt(host, object)
    }

    fn object_removed(&mut self, _host: &mut Host<'_>, id: u32) -> Result<(), PluginError> {
        self.saved.agents.remove(&id);
        self.saved.plants.remove(&id);
        for c in &mut self.saved.clans {
            c.distributor.remove(id);
        }
        self.scratch.proxies.remove(&id);
        self.scratch.sent.remove(&id);
        self.scratch.published.remove(&id);
        Ok(())
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        if message.code != ORDER_MOVE && message.code != ORDER_CANCEL {
            return Ok(());
        }
        let Some(o) = object else { return Ok(()) };
        let id = host.object(o)?.id;
        self.order(id, message);
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let clock = host.clock();
        let now = (clock.game_time_ns / 1_000_000) as u32;
        let dt = clock.step_seconds();
        self.saved.loaded_seen = true;
        if self.saved.started_ms.is_none() {
            self.start(now);
        }
        self.read_world(host);
        self.think(host, now)?;
        self.steer(host, now)?;
        self.fight(host, dt)?;
        self.dock(host, dt);
        self.economy(host, now)?;
        self.publish(host)
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let bytes = postcard::to_allocvec(&self.saved).map_err(|e| {
            PluginError::new(
                ErrorKind::BAD_STATE,
                format!("AI state does not encode: {e}"),
            )
        })?;
        Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, bytes))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let b = blob.expect(STATE_FORMAT, STATE_VERSION)?;
        let saved: Saved = postcard::from_bytes(b).map_err(|e| {
            PluginError::new(ErrorKind::BAD_STATE, error_chain(&crate::AiError::State(e)))
        })?;
        if PluginRng::from_bytes(&saved.rng).is_none() {
            return Err(PluginError::new(
                ErrorKind::BAD_STATE,
                "AI state: bad RNG bytes",
            ));
        }
        // The SuperAI variables and marks go back into the table read from the data.
        for (ai, c) in self.data.table.clans.iter_mut().zip(&saved.clans) {
            ai.init_done = c.init_done;
            if ai.variables.len() == c.variables.len() {
                ai.variables = c.variables.iter().map(|v| v.map(word_var)).collect();
            }
        }
        self.saved = saved;
        self.scratch.sent.clear();
        Ok(())
    }
}

impl AiPlugin {
    /// Publishes what changed of each unit's target and path revision into its
    /// properties (the trace reports them).
    fn publish(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let changed: Vec<(u32, (u32, u32))> = self
            .saved
            .agents
            .values()
            .filter(|a| a.role != Role::Inert && a.activity != Activity::Dead)
            .map(|a| (a.id, (a.target.unwrap_or(0), a.path.revision)))
            .filter(|(id, v)| self.scratch.published.get(id) != Some(v))
            .collect();
        for (id, v) in changed {
            let Some(h) = self.body(id).map(|b| b.handle) else {
                continue;
            };
            host.set_property(h, BEHAVIOR_TARGET, [0, v.0, 0, 0])?;
            host.set_property(h, BEHAVIOR_PATH, [0, v.1, 0, 0])?;
            self.scratch.published.insert(id, v);
        }
        Ok(())
    }

    /// An order to unit `id` (ignored for objects that do not drive).
    fn order(&mut self, id: u32, message: &Message) {
        let Some(a) = self.saved.agents.get_mut(&id) else {
            return;
        };
        if !a.role.mobile() || a.activity == Activity::Dead {
            return;
        }
        a.order = (message.code == ORDER_MOVE).then(|| Vec2::new(message.point.x, message.point.y));
        a.next_think = 0;
    }
}
