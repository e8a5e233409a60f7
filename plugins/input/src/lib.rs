//! The `input` slot's plugin (factory `player`): the player's devices and the player's
//! seat (tome VI "Ввод, камера и управление"; FORMATS §13.15).
//!
//! **Devices → snapshot** (the input service, outside the simulation, once per
//! presented frame): the window's keyboard and mouse events and the gamepads (gilrs;
//! plugged in or out at any time — a pad pulled out mid-tilt leaves no axis deflected;
//! a machine without udev or without a gamepad plays with keyboard and mouse) go
//! through the player's bindings ([`iron3d_input::Mapper`]: `config/bindings.ini`,
//! compiled in as [`DEFAULT_BINDINGS`], with the user's
//! `$XDG_CONFIG_HOME/iron3d/bindings.ini` laid over it) into the input log's records:
//! action edges, axis values, the pointer and the view's aspect. The mapper's mode
//! (overview or possessed) follows the seat.
//!
//! **The seat** (the simulation, once per tick in `update`, from the snapshot only — so
//! a recorded input log replays identically at any frame rate): the camera
//! ([`camera`]), selection by click (a ray through the pointer against the control
//! service's proxies) or box (units projected into the window rectangle), orders sent
//! to the AI's Behavior as its plugin messages, and possession — the first selected
//! unit is driven by the player through the control service while Behavior leaves it
//! alone (`unit.fire` fires its weapon where the view's centre points), and
//! `unit.possess` again hands it back. Once per tick the seat publishes the player's
//! view and selection ([`iron3d_abi::Host::set_player_view`]): the engine draws and
//! listens from it.
//!
//! **Orders** (**PD-SEAT-ORDERS**), each to every selected unit (a unit that cannot
//! obey refuses it on the AI's `Behavior.log`):
//! * `order.move`: the ground point under the pointer;
//! * `order.attack`: the object under the pointer when there is one that is not the
//!   player's (attack it), else the ground point (a move: fighters answer any enemy on
//!   the way);
//! * `order.patrol`: patrol the ring about the ground point under the pointer;
//! * `order.harvest`: the object under the pointer (a mine) — nothing without one;
//! * `order.stop`: the orders are dropped.
//!
//! **Seats** (**PD-SEAT-SEATS**): a match of several players has one seat per player
//! (mission parameter `seats`: the clan slot of each player, in player order), every
//! one simulated here — on every peer — from its own band of the tick's input
//! (**PD-INPUT-SEAT-BANDS**, `iron3d_input::SEAT_BAND`: player `p`'s codes are player
//! 0's plus `p × SEAT_BAND`). The seat this peer shows (`local-seat`, default 0)
//! publishes the view and drives the devices' mode; which one it is changes nothing in
//! the simulation. Without `seats` there is one seat, player 0's.
//!
//! **PD-SEAT-CLAN** — the player's units are those whose `BehaviorClan` property (the
//! AI publishes the clan's SuperAI slot + 1) equals the mission parameter
//! `player-clan` + 1 (default: slot 0, the mission's first clan). Without that property
//! (no AI plugin) every vehicle is the player's. The order codes, the property and the
//! parameter are the gameplay contract's (`iron3d-gameplay`: `orders`, `property`,
//! `clan`, `params`).
//!
//! (The HUD is drawn by the engine: `iron3d-hud`.)

pub mod camera;
pub mod devices;
pub mod seat;

use camera::{Mode, pointer_ray, project};
use glam::{Vec2, Vec3};
use iron3d_abi::abi_stable::std_types::RVec;
use iron3d_abi::{
    Body, DeviceInput, DeviceInputKind, ErrorKind, FactoryDescription, Host, InputProvider,
    InputRecord, Message, MessageCode, MessageTarget, MissionInfo, ObjectRef, PlayerView, Plugin,
    PluginDescription, PluginError, SlotKind, StateBlob, VIEW_INFRARED, Vec3f, ViewMode,
    physical_flags,
};
use iron3d_config::bindings::Bindings;
use iron3d_gameplay::clan::behavior_clan;
use iron3d_gameplay::orders::{
    ORDER_ATTACK, ORDER_CANCEL, ORDER_FIRE, ORDER_HARVEST, ORDER_MOVE, ORDER_PATROL, ORDER_POSSESS,
    ORDER_RELEASE,
};
use iron3d_gameplay::params::{
    DEFAULT_PLAYER_CLAN, LOCAL_SEAT, PLAYER_CLAN, SEATS, parse_player_clan, parse_seats,
};
use iron3d_gameplay::property::BEHAVIOR_CLAN;
use iron3d_input::{MENU, Mapper, OVERVIEW, POSSESSED, Tuning, VIEW_ASPECT, split_seat};
use seat::{Actions, Intent, Order, Seat};

/// State blob format name.
pub const STATE_FORMAT: &str = "iron3d-player-input";
/// State blob version of a game of one seat (the seat as it is).
pub const STATE_VERSION: u32 = 1;
/// State blob version of a game of several seats (`(player, seat)` ascending).
pub const STATE_VERSION_SEATS: u32 = 2;
/// The shipped bindings (`config/bindings.ini`), compiled in.
pub const DEFAULT_BINDINGS: &[u8] = include_bytes!("../../../config/bindings.ini");
/// How far a pick or an order looks along the pointer's ray (world units).
pub const PICK_RANGE: f32 = 2000.0;

fn describe() -> PluginDescription {
    PluginDescription::current(
        "iron3d-player-input",
        env!("CARGO_PKG_VERSION"),
        vec![FactoryDescription::of("player", SlotKind::Input)],
    )
}

fn create(factory: &str) -> Result<Box<dyn Plugin>, PluginError> {
    if factory != "player" {
        return Err(PluginError::no_factory("iron3d-player-input", factory));
    }
    Ok(Box::new(InputPlugin::new(load_bindings())))
}

iron3d_abi::export_plugin!(describe = super::describe, create = super::create);

/// The bindings in effect: the shipped ones with the user's file laid over them. A
/// user file that does not parse or conflicts is reported on the `Input` channel (file,
/// line, column) and left out: the game plays with the shipped bindings.
pub fn load_bindings() -> Bindings {
    let mut b = match Bindings::parse(DEFAULT_BINDINGS, "config/bindings.ini (built in)") {
        Ok(b) => b,
        Err(e) => {
            // The shipped file is tested to parse; this is a broken build.
            tracing::error!(target: "Input", error = %e, "the built-in bindings do not parse: no bindings");
            return Bindings::default();
        }
    };
    if let Some(path) = iron3d_config::bindings::user_file().filter(|p| p.is_file()) {
        let over = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                Bindings::parse(&bytes, &path.display().to_string()).map_err(|e| e.to_string())
            });
        let mut merged = b.clone();
        match over.and_then(|o| merged.overlay(o).map_err(|e| e.to_string())) {
            Ok(()) => b = merged,
            Err(e) => tracing::warn!(target: "Input", file = %path.display(), error = %e,
                "the user's bindings are left out: the shipped bindings apply"),
        }
    }
    b
}

/// One seat of the match: whose it is, its state, the clan it commands.
#[derive(Clone, Debug, PartialEq)]
struct SeatSlot {
    /// The player (its input band).
    player: u8,
    seat: Seat,
    /// The property value of the player's units (PD-SEAT-CLAN).
    clan_value: u32,
}

impl SeatSlot {
    fn new(player: u8, clan_slot: u32) -> Self {
        Self {
            player,
            seat: Seat::default(),
            clan_value: behavior_clan(Some(clan_slot)),
        }
    }
}

/// The `player` instance.
pub struct InputPlugin {
    /// Ascending players; never empty.
    seats: Vec<SeatSlot>,
    /// The seat this peer shows (an index into `seats`).
    local: usize,
    mapper: Mapper,
    pads: Option<devices::Pads>,
    pads_tried: bool,
    aspect: Option<f32>,
    /// A menu of the shell is up (2.13, `DeviceInputKind::MENU`): only `menu.*` maps.
    menu: bool,
    bodies: RVec<Body>,
}

impl InputPlugin {
    /// An instance with `bindings`, the overview at rest, nothing selected.
    pub fn new(bindings: Bindings) -> Self {
        Self {
            seats: vec![SeatSlot::new(0, DEFAULT_PLAYER_CLAN)],
            local: 0,
            mapper: Mapper::new(bindings, Tuning::default()),
            pads: None,
            pads_tried: false,
            aspect: None,
            menu: false,
            bodies: RVec::new(),
        }
    }

    /// The seat this peer shows (for tests and tools).
    pub fn seat(&self) -> &Seat {
        &self.seats[self.local].seat
    }

    /// The seat of `player`, when the match has one.
    pub fn seat_of(&self, player: u8) -> Option<&Seat> {
        self.seats
            .iter()
            .find(|s| s.player == player)
            .map(|s| &s.seat)
    }

    /// Whether `id` is one of seat `k`'s player's vehicles.
    fn own(
        &self,
        host: &mut Host<'_>,
        k: usize,
        id: u32,
    ) -> Result<Option<ObjectRef>, PluginError> {
        let Some(h) = host.find(id) else {
            return Ok(None);
        };
        let mobile = match host.control().state(h) {
            Ok(Some(s)) => s.flags & physical_flags::MOBILE != 0,
            Ok(None) => false,
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => false,
            Err(e) => return Err(e),
        };
        if !mobile {
            return Ok(None);
        }
        let clan = host.property(h, BEHAVIOR_CLAN.as_bytes())?;
        Ok(clan
            .is_none_or(|v| BEHAVIOR_CLAN.value(v) == self.seats[k].clan_value)
            .then_some(h))
    }

    /// Position and heading of seat `k`'s subject, `None` when it is gone.
    fn subject_pose(
        &self,
        host: &mut Host<'_>,
        k: usize,
    ) -> Result<Option<(Vec3, f32)>, PluginError> {
        let Some(h) = self.seats[k].seat.subject.and_then(|id| host.find(id)) else {
            return Ok(None);
        };
        match host.control().state(h) {
            Ok(Some(s)) => Ok(Some((Vec3::from(s.position), s.heading))),
            Ok(None) => Ok(None),
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => {
                let info = host.object(h)?;
                Ok(Some((Vec3::from(info.position), 0.0)))
            }
            Err(e) => Err(e),
        }
    }

    /// Seat `k`'s view as it is now: eye, yaw, pitch.
    fn view(&self, k: usize, pose: Option<(Vec3, f32)>) -> (Vec3, f32, f32) {
        self.seats[k].seat.rig.view(pose)
    }

    /// Places seat `k`'s overview above its player's units (their mean position), once
    /// (at the first tick; with no unit of the player's it stays where it is).
    fn place(&mut self, host: &mut Host<'_>, k: usize) -> Result<(), PluginError> {
        host.read_bodies(&mut self.bodies);
        let (mut sum, mut n) = (Vec3::ZERO, 0u32);
        let bodies = std::mem::take(&mut self.bodies);
        for b in bodies.iter().filter(|b| !b.mirror) {
            if self.own(host, k, b.id)?.is_some() {
                sum += Vec3::from(b.position);
                n += 1;
            }
        }
        self.bodies = bodies;
        let seat = &mut self.seats[k].seat;
        if n > 0 {
            seat.rig.focus = sum / n as f32;
        }
        seat.placed = true;
        Ok(())
    }

    fn send(host: &mut Host<'_>, id: u32, code: u32, point: Vec3) -> Result<(), PluginError> {
        Self::send_about(host, id, code, point, 0)
    }

    /// Sends order `code` (one of [`iron3d_gameplay::orders`]) to unit `id` with `point`
    /// and the object `about` (`object_b`).
    fn send_about(
        host: &mut Host<'_>,
        id: u32,
        code: u32,
        point: Vec3,
        about: u32,
    ) -> Result<(), PluginError> {
        let mut m = Message::new(MessageCode(code));
        m.point = point.into();
        m.object_b = about;
        host.send(MessageTarget::object(id), &m)
    }

    /// The first object the segment `a..b` hits (skipping `ignore`); none without a
    /// control plugin.
    fn hit(
        host: &mut Host<'_>,
        a: Vec3,
        b: Vec3,
        ignore: Option<u32>,
    ) -> Result<Option<iron3d_abi::RayHit>, PluginError> {
        match host.control().ray(a.into(), b.into(), ignore) {
            Ok(h) => Ok(h),
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::UNSUPPORTED) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Where the segment `eye..end` (direction `dir`) meets the ground: the terrain
    /// service's surface, or the plane z = 0 without terrain.
    fn ground_hit(
        host: &mut Host<'_>,
        eye: Vec3,
        end: Vec3,
        dir: Vec3,
    ) -> Result<Option<Vec3>, PluginError> {
        match host.terrain().segment(eye.into(), end.into()) {
            Ok(p) => Ok(p.map(Vec3::from)),
            Err(e) if matches!(e.kind, ErrorKind::NO_PROVIDER | ErrorKind::NOT_FOUND) => {
                Ok((dir.z < -1e-4).then(|| eye + dir * (-eye.z / dir.z)))
            }
            Err(e) => Err(e),
        }
    }

    fn carry_out(
        &mut self,
        host: &mut Host<'_>,
        k: usize,
        intent: Intent,
        aspect: f32,
    ) -> Result<(), PluginError> {
        let pose = self.subject_pose(host, k)?;
        let (eye, yaw, pitch) = self.view(k, pose);
        let ray = |at: Vec2| pointer_ray(yaw, pitch, aspect, at.x, at.y);
        match intent {
            Intent::Pick { at, add } => {
                let hit = Self::hit(host, eye, eye + ray(at) * PICK_RANGE, None)?;
                let mut picked = Vec::new();
                if let Some(h) = hit {
                    if self.own(host, k, h.id)?.is_some() {
                        picked.push(h.id);
                    }
                }
                if !picked.is_empty() || !add {
                    self.seats[k].seat.select(picked, add);
                }
                tracing::debug!(target: "Input", selection = ?self.seats[k].seat.selection, "pick");
            }
            Intent::Box { lo, hi, add } => {
                host.read_bodies(&mut self.bodies);
                let inside: Vec<u32> = self
                    .bodies
                    .iter()
                    .filter(|b| !b.mirror)
                    .filter(|b| {
                        project(eye, yaw, pitch, aspect, Vec3::from(b.position))
                            .is_some_and(|p| p.cmpge(lo).all() && p.cmple(hi).all())
                    })
                    .map(|b| b.id)
                    .collect();
                let mut picked = Vec::new();
                for id in inside {
                    if self.own(host, k, id)?.is_some() {
                        picked.push(id);
                    }
                }
                self.seats[k].seat.select(picked, add);
                tracing::debug!(target: "Input", selection = ?self.seats[k].seat.selection, "box");
            }
            Intent::Order { kind, at } => {
                let dir = ray(at);
                let end = eye + dir * PICK_RANGE;
                // The object under the pointer (attack and harvest aim at objects).
                let object = match kind {
                    Order::Attack | Order::Harvest => Self::hit(host, eye, end, None)?
                        .map(|h| h.id)
                        .filter(|&id| !self.seats[k].seat.selection.contains(&id)),
                    Order::Move | Order::Patrol => None,
                };
                let object = match (kind, object) {
                    // The player's own units are no attack targets (PD-SEAT-ORDERS).
                    (Order::Attack, Some(id)) if self.own(host, k, id)?.is_some() => None,
                    (_, o) => o,
                };
                let ground = if object.is_none() {
                    Self::ground_hit(host, eye, end, dir)?
                } else {
                    None
                };
                let (code, point, about) = match (kind, object, ground) {
                    (Order::Attack, Some(id), _) => (ORDER_ATTACK, Vec3::ZERO, id),
                    (Order::Harvest, Some(id), _) => (ORDER_HARVEST, Vec3::ZERO, id),
                    (Order::Move | Order::Attack, None, Some(p)) => (ORDER_MOVE, p, 0),
                    (Order::Patrol, None, Some(p)) => (ORDER_PATROL, p, 0),
                    _ => {
                        tracing::debug!(target: "Input", order = ?kind, "nothing under the pointer: no order");
                        return Ok(());
                    }
                };
                for id in self.seats[k].seat.selection.clone() {
                    Self::send_about(host, id, code, point, about)?;
                }
                tracing::debug!(target: "Input", order = ?kind, point = ?point, object = about,
                    units = self.seats[k].seat.selection.len(), "order");
            }
            Intent::Fire => {
                let Some(id) = self.seats[k].seat.subject else {
                    return Ok(());
                };
                // Where the view's centre points: the first object or the ground, else
                // far along the view.
                let dir = camera::forward(yaw, pitch);
                let end = eye + dir * PICK_RANGE;
                let point = match Self::hit(host, eye, end, Some(id))? {
                    Some(h) => Vec3::from(h.point),
                    None => Self::ground_hit(host, eye, end, dir)?.unwrap_or(end),
                };
                Self::send(host, id, ORDER_FIRE, point)?;
            }
            Intent::Stop => {
                for id in self.seats[k].seat.selection.clone() {
                    Self::send(host, id, ORDER_CANCEL, Vec3::ZERO)?;
                }
            }
            Intent::Possess(id) => {
                if let Some(h) = self.own(host, k, id)? {
                    Self::send(host, id, ORDER_POSSESS, Vec3::ZERO)?;
                    host.control().stop(h)?;
                    self.seats[k].seat.possessed(id);
                    tracing::debug!(target: "Input", object = id, "possessed");
                }
            }
            Intent::Release => self.release(host, k, pose)?,
            Intent::Drive { speed, turn } => {
                if let Some(h) = self.seats[k].seat.subject.and_then(|id| host.find(id)) {
                    host.control().drive(h, speed, turn)?;
                }
            }
        }
        Ok(())
    }

    /// One tick of seat `k`: placed at the first tick, its subject and selection kept
    /// to units that are still there, its actions carried out, its overview resting on
    /// the ground.
    fn update_seat(&mut self, host: &mut Host<'_>, k: usize, dt: f32) -> Result<(), PluginError> {
        let a = actions(host, self.seats[k].player);
        if !self.seats[k].seat.placed {
            self.place(host, k)?;
        }
        // The subject may be gone (deleted, killed): possession and following end.
        if self.seats[k].seat.subject.is_some() && self.subject_pose(host, k)?.is_none() {
            if self.seats[k].seat.rig.mode == Mode::Possessed {
                self.release(host, k, None)?;
            } else {
                let seat = &mut self.seats[k].seat;
                seat.subject = None;
                seat.rig.mode = Mode::Overview;
            }
        }
        let seat = &mut self.seats[k].seat;
        let before = seat.selection.len();
        seat.selection.retain(|&id| host.find(id).is_some());
        if seat.selection.len() != before {
            tracing::debug!(target: "Input", player = self.seats[k].player,
                selection = ?self.seats[k].seat.selection, "selected units gone");
        }
        let aspect = a.aspect();
        for intent in self.seats[k].seat.step(&a, dt) {
            self.carry_out(host, k, intent, aspect)?;
        }
        // The overview rests on the ground under its focus.
        let seat = &mut self.seats[k].seat;
        if seat.rig.mode == Mode::Overview {
            if let Ok(h) = host.terrain().height(seat.rig.focus.x, seat.rig.focus.y) {
                seat.rig.focus.z = h;
            }
        }
        Ok(())
    }

    /// Seat `k` leaves its possessed unit: stopped, handed back to Behavior.
    fn release(
        &mut self,
        host: &mut Host<'_>,
        k: usize,
        pose: Option<(Vec3, f32)>,
    ) -> Result<(), PluginError> {
        if let Some(id) = self.seats[k].seat.subject {
            if let Some(h) = host.find(id) {
                host.control().stop(h)?;
                Self::send(host, id, ORDER_RELEASE, Vec3::ZERO)?;
            }
            tracing::debug!(target: "Input", object = id, "left");
        }
        self.seats[k].seat.released(pose.map(|p| p.0));
        Ok(())
    }
}

/// The tick's snapshot as `player`'s seat reads it: its band, as player 0's codes
/// (PD-INPUT-SEAT-BANDS).
fn actions(host: &Host<'_>, player: u8) -> Actions {
    let v = host.input();
    let mine = |code: &u32| {
        let (p, c) = split_seat(*code);
        (p == u32::from(player)).then_some(c)
    };
    Actions {
        pressed: v.pressed.iter().filter_map(mine).collect(),
        released: v.released.iter().filter_map(mine).collect(),
        held: v.held.iter().filter_map(mine).collect(),
        axes: v
            .axes
            .iter()
            .filter_map(|a| mine(&a.axis).map(|c| (c, a.value)))
            .collect(),
    }
}

impl Plugin for InputPlugin {
    fn mission_start(
        &mut self,
        host: &mut Host<'_>,
        _mission: &MissionInfo,
    ) -> Result<(), PluginError> {
        let invalid = |key: &str, v: &str, why: &str| {
            PluginError::new(
                ErrorKind::INVALID,
                format!("mission parameter {key}={v:?}: {why}"),
            )
        };
        let slots = match host.mission_parameter(SEATS) {
            Some(v) => parse_seats(&v).ok_or_else(|| {
                invalid(
                    SEATS,
                    &v,
                    "not 1 to 16 clan slot numbers (or - for a spectator) separated by commas",
                )
            })?,
            None => match host.mission_parameter(PLAYER_CLAN) {
                Some(v) => vec![
                    parse_player_clan(&v)
                        .ok_or_else(|| invalid(PLAYER_CLAN, &v, "not a clan slot number"))?,
                ],
                None => vec![DEFAULT_PLAYER_CLAN],
            },
        };
        let local = match host.mission_parameter(LOCAL_SEAT) {
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&p| p < slots.len())
                .ok_or_else(|| invalid(LOCAL_SEAT, &v, "not the player number of a seat"))?,
            None => 0,
        };
        // A seat restored before the mission started keeps its state.
        let mut seats: Vec<SeatSlot> = Vec::with_capacity(slots.len());
        for (p, &slot) in slots.iter().enumerate() {
            let player = p as u8;
            let mut s = SeatSlot::new(player, slot);
            if let Some(old) = self.seats.iter().find(|o| o.player == player) {
                s.seat = old.seat.clone();
            }
            seats.push(s);
        }
        self.seats = seats;
        self.local = local;
        Ok(())
    }

    fn update(&mut self, host: &mut Host<'_>) -> Result<(), PluginError> {
        let dt = host.clock().step_seconds();
        // Every seat, in player order, from its own band of the tick's input.
        for k in 0..self.seats.len() {
            self.update_seat(host, k, dt)?;
        }
        let k = self.local;
        let pose = self.subject_pose(host, k)?;
        let (eye, yaw, pitch) = self.view(k, pose);
        let seat = &self.seats[k].seat;
        let view = PlayerView {
            eye: Vec3f::from(eye),
            yaw,
            pitch,
            fov: camera::FOV,
            mode: match seat.rig.mode {
                Mode::Overview => ViewMode::OVERVIEW,
                Mode::Follow => ViewMode::FOLLOW,
                Mode::Free => ViewMode::FREE,
                Mode::Possessed => ViewMode::POSSESSED,
            },
            subject: seat.subject.unwrap_or(0),
            flags: if seat.infrared { VIEW_INFRARED } else { 0 },
        };
        match host.set_player_view(&view, &seat.selection) {
            Ok(()) => Ok(()),
            // An engine before 2.3 draws its own camera.
            Err(e) if e.kind == ErrorKind::UNSUPPORTED => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn save_state(&self) -> Result<StateBlob, PluginError> {
        let encode = |r: Result<Vec<u8>, postcard::Error>| {
            r.map_err(|e| {
                PluginError::new(
                    ErrorKind::BAD_STATE,
                    format!("seat state does not encode: {e}"),
                )
            })
        };
        // One seat, player 0's: the blob of a game of one seat, as it always was.
        if let [only] = self.seats.as_slice() {
            if only.player == 0 {
                let bytes = encode(postcard::to_allocvec(&only.seat))?;
                return Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION, bytes));
            }
        }
        let all: Vec<(u8, &Seat)> = self.seats.iter().map(|s| (s.player, &s.seat)).collect();
        let bytes = encode(postcard::to_allocvec(&all))?;
        Ok(StateBlob::new(STATE_FORMAT, STATE_VERSION_SEATS, bytes))
    }

    fn restore_state(&mut self, blob: &StateBlob) -> Result<(), PluginError> {
        let bad = |why: String| PluginError::new(ErrorKind::BAD_STATE, why);
        let restored: Vec<(u8, Seat)> = if blob.version == STATE_VERSION_SEATS {
            let b = blob.expect(STATE_FORMAT, STATE_VERSION_SEATS)?;
            let all: Vec<(u8, Seat)> = postcard::from_bytes(b)
                .map_err(|e| bad(format!("seat state does not decode: {e}")))?;
            let ascending = all.windows(2).all(|w| w[0].0 < w[1].0);
            if all.is_empty() || all.len() > iron3d_gameplay::params::MAX_SEATS || !ascending {
                return Err(bad(format!(
                    "seat state: {} seats, players ascending expected",
                    all.len()
                )));
            }
            all
        } else {
            let b = blob.expect(STATE_FORMAT, STATE_VERSION)?;
            let seat: Seat = postcard::from_bytes(b)
                .map_err(|e| bad(format!("seat state does not decode: {e}")))?;
            vec![(0, seat)]
        };
        for (player, seat) in &restored {
            let finite = seat.rig.focus.is_finite()
                && seat.rig.yaw.is_finite()
                && seat.rig.pitch.is_finite()
                && seat.rig.distance.is_finite()
                && seat.rig.aim.is_finite();
            if !finite || !seat.selection.is_sorted() {
                return Err(bad(format!(
                    "seat state of player {player}: non-finite camera or unsorted selection"
                )));
            }
        }
        // The seats the blob holds, with the clans the mission gave (a seat the
        // mission does not have yet keeps the default clan until it starts).
        let seats = restored
            .into_iter()
            .map(|(player, seat)| {
                let clan_value = self
                    .seats
                    .iter()
                    .find(|s| s.player == player)
                    .map_or(behavior_clan(Some(u32::from(player))), |s| s.clan_value);
                SeatSlot {
                    player,
                    seat,
                    clan_value,
                }
            })
            .collect::<Vec<_>>();
        let local_player = self.seats.get(self.local).map_or(0, |s| s.player);
        self.local = seats
            .iter()
            .position(|s| s.player == local_player)
            .unwrap_or(0);
        self.seats = seats;
        Ok(())
    }

    fn input(&mut self) -> Option<&mut dyn InputProvider> {
        Some(self)
    }
}

impl InputProvider for InputPlugin {
    fn poll(&mut self, window: &[DeviceInput]) -> Result<Vec<InputRecord>, PluginError> {
        if !self.pads_tried {
            self.pads_tried = true;
            self.pads = devices::Pads::open();
        }
        let mut out = Vec::new();
        let mut events = Vec::with_capacity(window.len());
        for d in window {
            if d.kind == DeviceInputKind::INVERT_Y {
                self.mapper.set_invert_y(d.x != 0.0);
            } else if d.kind == DeviceInputKind::MENU {
                self.menu = d.x != 0.0;
            } else if d.kind == DeviceInputKind::VIEWPORT {
                if d.x.is_finite() && d.y.is_finite() && d.x >= 1.0 && d.y >= 1.0 {
                    let a = d.x / d.y;
                    if self.aspect != Some(a) {
                        self.aspect = Some(a);
                        out.push(InputRecord::axis(VIEW_ASPECT, a));
                    }
                }
            } else if let Some(e) = devices::device_event(d) {
                events.push(e);
            }
        }
        if let Some(p) = &mut self.pads {
            p.poll(&mut events);
        }
        // PD-INPUT-MENU-MODE: while a menu is up the pad drives it, not the game.
        let mode = if self.menu {
            MENU
        } else if self.seat().rig.mode == Mode::Possessed {
            POSSESSED
        } else {
            OVERVIEW
        };
        let mut acts = self.mapper.set_mode(mode);
        acts.extend(self.mapper.tick(&events));
        devices::records(&acts, &mut out);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_bindings_parse() {
        Bindings::parse(DEFAULT_BINDINGS, "config/bindings.ini").unwrap();
    }

    #[test]
    fn polling_maps_window_events_through_the_bindings_and_follows_the_seat_mode() {
        use iron3d_abi::abi_stable::std_types::RString;
        let mut p = InputPlugin::new(Bindings::parse(DEFAULT_BINDINGS, "x").unwrap());
        p.pads_tried = true; // no gamepad layer in this test
        let key = |name: &str, down: bool| DeviceInput {
            kind: if down {
                DeviceInputKind::BUTTON_DOWN
            } else {
                DeviceInputKind::BUTTON_UP
            },
            source: iron3d_abi::SOURCE_KEYBOARD,
            input: RString::from(name),
            x: 0.0,
            y: 0.0,
        };
        let code = |n| iron3d_input::action_code(n).unwrap();
        let viewport = DeviceInput {
            kind: DeviceInputKind::VIEWPORT,
            source: 0,
            input: RString::new(),
            x: 800.0,
            y: 400.0,
        };
        assert_eq!(
            p.poll(&[viewport.clone(), key("Key:W", true)]).unwrap(),
            [
                InputRecord::axis(VIEW_ASPECT, 2.0),
                InputRecord::key(code("camera.pan_forward"), true)
            ]
        );
        // The same viewport again says nothing.
        assert_eq!(p.poll(&[viewport]).unwrap(), []);
        // Possessed: W held now drives the unit instead of panning.
        p.seats[0].seat.possessed(5);
        assert_eq!(
            p.poll(&[]).unwrap(),
            [
                InputRecord::key(code("camera.pan_forward"), false),
                InputRecord::key(code("unit.forward"), true)
            ]
        );
    }

    #[test]
    fn the_invert_y_setting_inverts_pad_and_mouse_y_from_then_on() {
        use iron3d_abi::abi_stable::std_types::RString;
        let mut p = InputPlugin::new(Bindings::parse(DEFAULT_BINDINGS, "x").unwrap());
        p.pads_tried = true;
        let ev = |kind, source, input: &str, x| DeviceInput {
            kind,
            source,
            input: RString::from(input),
            x,
            y: 0.0,
        };
        let stick = |x| {
            ev(
                DeviceInputKind::AXIS,
                iron3d_abi::SOURCE_PAD0,
                "PadAxis:RightStickY",
                x,
            )
        };
        let look_y = iron3d_input::action_code("camera.look_y").unwrap();
        let value =
            |records: Vec<InputRecord>| records.iter().find(|r| r.code == look_y).map(|r| r.value);
        let plain = value(p.poll(&[stick(0.6)]).unwrap()).unwrap();
        assert!(plain > 0.0);
        let invert = ev(DeviceInputKind::INVERT_Y, 0, "", 1.0);
        let inverted = value(p.poll(&[invert, stick(0.6)]).unwrap()).unwrap();
        assert_eq!(inverted, -plain);
        let straight = ev(DeviceInputKind::INVERT_Y, 0, "", 0.0);
        assert_eq!(value(p.poll(&[straight, stick(0.6)]).unwrap()), Some(plain));
    }

    /// 2.13: told that a menu is up, the plugin maps the pad's D-pad and South to the
    /// `menu.*` actions instead of the camera and the selection; the button that chose
    /// in the menu does nothing in the game when the menu goes (PD-INPUT-MENU-MODE).
    #[test]
    fn a_menu_takes_the_pad_and_the_game_gets_none_of_it() {
        use iron3d_abi::abi_stable::std_types::RString;
        let mut p = InputPlugin::new(Bindings::parse(DEFAULT_BINDINGS, "x").unwrap());
        p.pads_tried = true;
        let ev = |kind, input: &str, x| DeviceInput {
            kind,
            source: iron3d_abi::SOURCE_PAD0,
            input: RString::from(input),
            x,
            y: 0.0,
        };
        let menu = |on: bool| ev(DeviceInputKind::MENU, "", f32::from(u8::from(on)));
        let pad = |name: &str, down: bool| {
            let kind = if down {
                DeviceInputKind::BUTTON_DOWN
            } else {
                DeviceInputKind::BUTTON_UP
            };
            ev(kind, name, 0.0)
        };
        let code = |a: &str| iron3d_input::action_code(a).unwrap();
        assert_eq!(
            p.poll(&[pad("Pad:DPadDown", true)]).unwrap(),
            [InputRecord::key(code("camera.down"), true)]
        );
        assert_eq!(
            p.poll(&[
                menu(true),
                pad("Pad:DPadDown", false),
                pad("Pad:DPadDown", true)
            ])
            .unwrap(),
            [
                InputRecord::key(code("camera.down"), false),
                InputRecord::key(code("menu.down"), true)
            ]
        );
        assert_eq!(
            p.poll(&[
                menu(true),
                pad("Pad:DPadDown", false),
                pad("Pad:South", true)
            ])
            .unwrap(),
            [
                InputRecord::key(code("menu.down"), false),
                InputRecord::key(code("menu.accept"), true)
            ]
        );
        // South chose; the menu goes while it is held: no release, no select.
        assert_eq!(
            p.poll(&[menu(false), pad("Pad:South", false)]).unwrap(),
            [InputRecord::key(code("menu.accept"), false)]
        );
        assert_eq!(
            p.poll(&[menu(false), pad("Pad:South", true)]).unwrap(),
            [InputRecord::key(code("select"), true)]
        );
    }

    #[test]
    fn a_saved_seat_restores_and_a_bad_one_is_refused() {
        let mut p = InputPlugin::new(Bindings::default());
        p.seats[0].seat.select(vec![3, 8], false);
        p.seats[0].seat.rig.yaw = 1.25;
        let blob = p.save_state().unwrap();
        let mut q = InputPlugin::new(Bindings::default());
        q.restore_state(&blob).unwrap();
        assert_eq!(q.seat(), p.seat());
        p.seats[0].seat.rig.pitch = f32::NAN;
        let bad = p.save_state().unwrap();
        assert_eq!(
            q.restore_state(&bad).unwrap_err().kind,
            ErrorKind::BAD_STATE
        );
        let junk = StateBlob::new(STATE_FORMAT, STATE_VERSION, vec![0xFF; 3]);
        assert!(q.restore_state(&junk).is_err());
    }

    /// PD-SEAT-SEATS: a game of several seats saves every seat (v2) and restores them
    /// all, keeping the seat this peer shows; one seat of player 0 stays a v1 blob.
    #[test]
    fn every_seat_of_a_match_is_saved_and_restored() {
        let mut p = InputPlugin::new(Bindings::default());
        assert_eq!(p.save_state().unwrap().version, STATE_VERSION);
        p.seats = vec![
            SeatSlot::new(0, 0),
            SeatSlot::new(1, 1),
            SeatSlot::new(2, 2),
        ];
        p.local = 1;
        p.seats[2].seat.select(vec![40], false);
        p.seats[1].seat.rig.yaw = 0.5;
        let blob = p.save_state().unwrap();
        assert_eq!(blob.version, STATE_VERSION_SEATS);
        let mut q = InputPlugin::new(Bindings::default());
        q.seats = vec![
            SeatSlot::new(0, 0),
            SeatSlot::new(1, 1),
            SeatSlot::new(2, 2),
        ];
        q.local = 1;
        q.restore_state(&blob).unwrap();
        assert_eq!(q.seats, p.seats);
        assert_eq!(q.seat().rig.yaw, 0.5, "the seat shown is still player 1's");
        assert_eq!(q.seat_of(2).unwrap().selection, [40]);
        // Players out of order are refused and change nothing.
        let unordered: Vec<(u8, Seat)> = vec![(1, Seat::default()), (0, Seat::default())];
        let junk = StateBlob::new(
            STATE_FORMAT,
            STATE_VERSION_SEATS,
            postcard::to_allocvec(&unordered).unwrap(),
        );
        let before = q.seats.clone();
        assert!(
            q.restore_state(&junk)
                .unwrap_err()
                .message
                .contains("ascending")
        );
        assert_eq!(q.seats, before);
    }

    proptest::proptest! {
        /// A saved seat is outside input (a save game, another build's blob): any bytes
        /// restore or are refused, never panic, and a refused one changes nothing.
        #[test]
        fn any_state_bytes_restore_or_are_refused(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256),
            seats in proptest::prelude::any::<bool>(),
        ) {
            let mut p = InputPlugin::new(Bindings::default());
            let before = p.seats.clone();
            let version = if seats { STATE_VERSION_SEATS } else { STATE_VERSION };
            let blob = StateBlob::new(STATE_FORMAT, version, bytes);
            if p.restore_state(&blob).is_err() {
                proptest::prop_assert_eq!(p.seats, before);
            }
        }
    }
}
