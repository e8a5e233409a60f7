//! The AI instance ([`AiPlugin`], what the `ai` plugin's factory creates; AI slot, the
//! registry's default): the rules of this crate wired to the engine through the plugin
//! interface. Once per tick, in `update` (the AI slot runs before Control, so requests
//! take effect in the same tick):
//!
//! 1. the first tick runs SuperAI start-up ([`crate::superai`]): `CreateSuperAI` for
//!    every clan record, the first `Init` of each loaded package, results on `ai.log`;
//! 2. every object's body is read in one batch; units due on their think clock
//!    ([`crate::schedule::FirstStep`] on the shared stream, then every
//!    [`crate::behavior::THINK_PERIOD_MS`]) **think** ([`crate::behavior::decide`]);
//! 3. every mobile unit with a goal **moves**: the global path and corridor from the
//!    terrain service ([`crate::path`], cached per areal pair), then Wizard
//!    ([`crate::wizard`]) among the objects around it, then a velocity request to the
//!    control service; a unit touching one settled at its goal settles too
//!    (PD-AI-CROWD-ARRIVE in [`crate::path`]). An error state is reported once on `Behavior.log` and the unit
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
//! `a`'s relation table gives `b`'s name a negative value ([`hostile`], the shared rule
//! of [`iron3d_gameplay::clan`]).
//!
//! **Orders** (plugin messages to a unit; a player's seat or a mod sends them; the
//! codes, their fields and who obeys each are [`iron3d_gameplay::orders`]; the rules are
//! PD-AI-ORDERS in [`crate::behavior`]). An order a unit cannot obey (a truck told to
//! attack, a tank told to harvest, a harvest at something that is not a mine, an attack
//! on itself) is refused with a line on `Behavior.log` and changes nothing. Each unit's
//! clan is published in its `BehaviorClan` property
//! ([`iron3d_gameplay::property::BEHAVIOR_CLAN`], [`iron3d_gameplay::clan`]) so a seat
//! knows the player's own units; its target and path revision in `BehaviorTarget` and
//! `BehaviorPath`.
//!
//! **Doctrine** (**PD-AI-DOCTRINE**, [`crate::doctrine`]): how far fighters look for an
//! enemy, when they flee and how fast they drive; the mission's `Behavior.ini` may set
//! the standard sight and flee threshold (**PD-AI-CONFIG-KEYS**, [`AiPlugin::rules`]).
//! [`AiPlugin::default`] (what the `ai` factory of the `ai` plugin creates) follows the
//! standard doctrine; an alternative AI links this crate as a library and exports
//! [`AiPlugin::with_doctrine`] under a plugin name of its own. This crate exports no root module: the `ai` plugin (`plugins/ai`,
//! library `iron3d_ai`) and each alternative (`mods/rush-ai`) is a plugin shell around
//! [`AiPlugin`] with the one root module of its library.
//!
//! The work is split by responsibility: `data` (the mission's data and each new
//! object's agent), `world` (the tick's bodies, grid, perception and the planner),
//! `motion` (thinking, paths, Wizard, motion requests), `fight` (combat) and
//! `supply` (docking, the economy step, new units, objectives); this file holds the
//! state and the plugin interface.
//!
//! Everything the plugin decides is in its state blob (postcard, [`STATE_FORMAT`]
//! v[`STATE_VERSION`]), so a hot swap keeps every unit's behaviour; what comes from the
//! data (scripts, configuration, objectives, classes) is read again at mission start.

use crate::behavior::{self, Activity, Agent, Decision, MIN_ORE, Order, Perception, Role, Seen};
use crate::combat::{self, MUZZLE_HEIGHT, Weapon};
use crate::config::{BEHAVIOR_INI, BehaviorConfig};
use crate::distributor::{Distributor, Totals, joins};
use crate::doctrine::Doctrine;
use crate::economy::{self, Plant, Production, StagedLedger};
use crate::grid::Grid;
use crate::objectives::{OBJECTIVES_FILE, Objectives, Progress, Scoreboard, Side};
use crate::path::{ErrorState, PathParams, Plan, Planner, Settled, Steer};
use crate::profile::{Profile, ore_start, profile_for};
use crate::roster::Roster;
use crate::schedule::{DEFAULT_PERIOD_MS, FirstStepPoll, SharedRng, StepClock, is_due};
use crate::superai::{InitRun, OutcomeLatch, ScriptPackage, SuperAi, SuperAiTable};
use crate::wizard::{Mover, Neighbour, WizardParams};
use glam::{Vec2, Vec3};
use iron3d_abi::abi_stable::std_types::RVec;
use iron3d_abi::rng::PluginRng;
use iron3d_abi::{
    Body, ErrorKind, Host, Message, MessageCode, MissionInfo, MotionRequest, NewObject, ObjectRef,
    Plugin, PluginError, Property, SlotKind, StateBlob, Vec3f, error_chain, physical_flags,
};
use iron3d_gameplay::clan::{behavior_clan, hostile};
use iron3d_gameplay::orders::{
    ORDER_ATTACK, ORDER_FIRE, ORDER_HARVEST, ORDER_MOVE, ORDER_PATROL, ORDER_POSSESS,
    ORDER_RELEASE, is_order,
};
use iron3d_gameplay::params;
use iron3d_gameplay::property::{
    BEHAVIOR_CLAN, BEHAVIOR_PATH, BEHAVIOR_TARGET, CLAN_ID, CURRENT_ORE, LIFE_STATE,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod data;
mod fight;
mod motion;
mod supply;
mod world;

use world::HostPlanner;

/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-ai";
/// State blob version (7: `PathState::arrived`, PD-AI-CROWD-ARRIVE; 6:
/// `PathState::escape`, PD-AI-ESCAPE; postcard is not self-describing, so an older
/// blob is refused rather than misread).
pub const STATE_VERSION: u32 = 7;
/// The shared RNG stream (Behavior's first steps).
pub const SHARED_STREAM: &str = "shared";
/// Cell size of the neighbour grid.
const CELL: f32 = 16.0;
/// Radius Wizard looks around a unit.
const WIZARD_RANGE: f32 = 8.0;
/// Entries of the route cache before it is emptied.
const ROUTE_CACHE_MAX: usize = 4096;
/// Life of a unit a plant builds.
pub const BUILT_LIFE: u32 = 100;

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
    /// Agents in id order.
    pub agents: Roster,
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

/// No entry (in the per-tick index arrays).
const NONE: u32 = u32::MAX;

/// A proxy as the control service describes it: radius and whether it is static.
type Proxy = Option<(f32, bool)>;

/// Per-tick scratch, rebuilt every tick (allocations kept), and caches.
#[derive(Default)]
struct Scratch {
    /// This tick's bodies, ascending by id (a body's index is its rank).
    bodies: RVec<Body>,
    /// Ground position per body.
    points: Vec<Vec2>,
    /// The neighbour grid over `points`.
    grid: Grid,
    /// Per body: the roster position of its agent ([`NONE`]: none).
    body_agent: Vec<u32>,
    /// Per roster position: the agent's body ([`NONE`]: not in this tick's batch).
    agent_body: Vec<u32>,
    /// Per body: its agent's clan and whether it can be targeted (an agent with life,
    /// not dead).
    targets: Vec<(Option<u32>, bool)>,
    /// The targetable bodies of each clan, with a grid of their own (radar asks only
    /// the clans it is hostile to); `clan_slot` finds a clan's entry.
    clan_grids: Vec<ClanGrid>,
    clan_slot: BTreeMap<u32, usize>,
    /// Per body: its proxy as known this tick (`None`: not asked yet this tick).
    proxy_at: Vec<Option<Proxy>>,
    /// Proxies the control service described, by id (they do not change).
    proxies: BTreeMap<u32, (f32, bool)>,
    /// Route cache: `(from areal, to areal)` → plan.
    routes: BTreeMap<(u32, u32), Plan>,
    /// Prototype (upper case) → class word (0: none).
    classes: BTreeMap<Vec<u8>, u32>,
    /// Buffers for Wizard's neighbourhood.
    near: Vec<u32>,
    neighbours: Vec<Neighbour>,
    /// The settled neighbours among them (PD-AI-CROWD-ARRIVE).
    settled: Vec<Settled>,
}

/// One clan's targetable bodies this tick.
#[derive(Default)]
struct ClanGrid {
    /// Body indices, ascending.
    members: Vec<u32>,
    /// Their ground positions.
    points: Vec<Vec2>,
    /// A grid over `points`.
    grid: Grid,
}

/// The `ai` instance.
#[derive(Default)]
pub struct AiPlugin {
    saved: Saved,
    data: Data,
    scratch: Scratch,
    auto_demo: bool,
    /// How fighters pick their fights (not saved: part of the plugin, not its state).
    doctrine: Doctrine,
}

impl AiPlugin {
    /// An instance whose fighters follow `doctrine` (**PD-AI-DOCTRINE**,
    /// [`crate::doctrine`]); `AiPlugin::with_doctrine(Doctrine::default())` is
    /// `AiPlugin::default()`, the standard AI. Everything else — data, state blob,
    /// orders, economy, objectives — is the standard AI's, so an alternative AI is this
    /// instance under a plugin description of its own.
    pub fn with_doctrine(doctrine: Doctrine) -> Self {
        Self {
            doctrine,
            ..Self::default()
        }
    }

    /// The doctrine the instance's fighters follow.
    pub fn doctrine(&self) -> &Doctrine {
        &self.doctrine
    }

    /// The rules in force: the doctrine tuned by the mission's `Behavior.ini`
    /// (PD-AI-CONFIG-KEYS; the doctrine itself before a mission's data is read).
    pub fn rules(&self) -> Doctrine {
        self.data
            .config
            .map_or(self.doctrine, |c| c.tune(self.doctrine))
    }
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

impl Plugin for AiPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        self.auto_demo = host
            .mission_parameter(params::AUTO_DEMO)
            .is_some_and(|v| params::auto_demo(&v));
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
        self.saved.agents.remove(id);
        self.saved.plants.remove(&id);
        for c in &mut self.saved.clans {
            c.distributor.remove(id);
        }
        self.scratch.proxies.remove(&id);
        Ok(())
    }

    fn on_message(
        &mut self,
        host: &mut Host<'_>,
        object: Option<ObjectRef>,
        message: &Message,
    ) -> Result<(), PluginError> {
        if !is_order(message.code.0) {
            return Ok(());
        }
        let Some(o) = object else { return Ok(()) };
        let id = host.object(o)?.id;
        self.order(id, message);
        // A possessed unit is idle for Behavior: its state says so at once (traces).
        if message.code.0 == ORDER_POSSESS
            && self
                .saved
                .agents
                .get(id)
                .is_some_and(|a| a.manual && a.activity == Activity::Idle)
        {
            host.set_behaviour_state(o, Activity::Idle.number())?;
        }
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
            PluginError::from_error(ErrorKind::BAD_STATE, &crate::AiError::State(e))
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
        // The restored roster's shadows are empty: the engine is told everything again.
        self.saved = saved;
        Ok(())
    }
}

impl AiPlugin {
    /// Publishes what changed of each unit's target and path revision into its
    /// properties (the trace reports them).
    fn publish(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        for pos in 0..self.saved.agents.len() {
            let Some(h) = self.body_of(pos).map(|b| b.handle) else {
                continue;
            };
            let Some((a, shadow)) = self.saved.agents.at_mut(pos) else {
                continue;
            };
            if a.role == Role::Inert || a.activity == Activity::Dead {
                continue;
            }
            let v = (a.target.unwrap_or(0), a.path.revision);
            let clan = behavior_clan(a.clan);
            if shadow.published == Some(v) {
                continue;
            }
            if shadow.published.is_none() {
                host.set_property(h, BEHAVIOR_CLAN.as_bytes(), BEHAVIOR_CLAN.raw(clan))?;
            }
            shadow.published = Some(v);
            host.set_property(h, BEHAVIOR_TARGET.as_bytes(), BEHAVIOR_TARGET.raw(v.0))?;
            host.set_property(h, BEHAVIOR_PATH.as_bytes(), BEHAVIOR_PATH.raw(v.1))?;
        }
        Ok(())
    }

    /// An order to unit `id` (ignored for objects that do not drive; refused, with a
    /// line on `Behavior.log`, when the unit cannot obey it).
    fn order(&mut self, id: u32, message: &Message) {
        let Some(a) = self.saved.agents.get(id) else {
            return;
        };
        if !a.role.mobile() || a.activity == Activity::Dead {
            return;
        }
        let armed = Weapon::of(a.role).is_some();
        let (role, clan) = (a.role, a.clan);
        let point = Vec2::new(message.point.x, message.point.y);
        let object = message.object_b;
        let refuse = |why: &str| {
            tracing::info!(target: "Behavior.log", object = id, order = message.code.0, why, "order refused");
        };
        let order = match message.code.0 {
            ORDER_MOVE => Some(Order::Move(point)),
            ORDER_ATTACK => {
                if !armed {
                    return refuse("the unit has no weapon");
                }
                if object == id || self.saved.agents.get(object).is_none() {
                    return refuse("no such target");
                }
                Some(Order::Attack(object))
            }
            ORDER_PATROL => {
                if !matches!(role, Role::Fighter | Role::Animal) {
                    return refuse("only fighters and animals patrol");
                }
                Some(Order::Patrol(point))
            }
            ORDER_HARVEST => {
                if role != Role::Transport {
                    return refuse("only transports harvest");
                }
                let mine = self.saved.agents.get(object).filter(|m| {
                    profile_for(m.class_word) == Some(Profile::Mine)
                        && (m.clan.is_none() || m.clan == clan)
                });
                if mine.is_none() {
                    return refuse("not a mine of the unit's clan or an unowned one");
                }
                Some(Order::Harvest(object))
            }
            ORDER_FIRE => {
                if let Some(a) = self.saved.agents.get_mut(id) {
                    if a.manual && armed {
                        a.fire_at = Some(Vec3::from(message.point));
                    }
                }
                return;
            }
            _ => None,
        };
        let Some(a) = self.saved.agents.get_mut(id) else {
            return;
        };
        match message.code.0 {
            ORDER_POSSESS => {
                a.manual = true;
                a.order = None;
                a.target = None;
                a.activity = Activity::Idle;
                a.path.set_goal(None);
                a.wizard.clear();
                a.error = None;
            }
            ORDER_RELEASE => {
                a.manual = false;
                a.fire_at = None;
                a.next_think = 0;
            }
            _ => {
                a.order = order;
                a.next_think = 0;
            }
        }
        // The player's requests went to Control directly: the next one of Behavior is
        // sent whatever it was before.
        if let Some(pos) = self.saved.agents.position(id) {
            if let Some(shadow) = self.saved.agents.shadow_mut(pos) {
                shadow.sent = None;
            }
        }
    }
}
