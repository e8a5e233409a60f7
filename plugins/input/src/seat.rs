//! The player's seat, simulated once per tick from the tick's input snapshot only: the
//! camera ([`crate::camera`]), the selection, orders and possession. The seat decides
//! *what* the player asked for ([`Intent`]); the plugin carries it out through the
//! engine's services (picking through the control service's segment query, ground
//! points through the terrain service, orders as messages to the AI's Behavior,
//! driving through the control service).

use crate::camera::{Controls, EDGE, Mode, Rig};
use glam::Vec2;
use iron3d_input::{POINTER_X, POINTER_Y, VIEW_ASPECT, action_code};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Forward speed of a possessed unit at full throttle (world units per second).
pub const DRIVE_SPEED: f32 = 10.0;
/// Reverse speed at full throttle back.
pub const REVERSE_SPEED: f32 = 4.0;
/// Turn rate at full steering (radians per second).
pub const DRIVE_TURN: f32 = 1.5;
/// A select press and release closer than this (fraction of the window) is a click;
/// farther apart, a box.
pub const CLICK: f32 = 0.01;

/// The tick's actions, read from the snapshot (action codes of [`iron3d_input`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Actions {
    /// Pressed this tick.
    pub pressed: BTreeSet<u32>,
    /// Released this tick.
    pub released: BTreeSet<u32>,
    /// Held at the end of the tick.
    pub held: BTreeSet<u32>,
    /// Axis values.
    pub axes: BTreeMap<u32, f32>,
}

impl Actions {
    fn code(name: &str) -> u32 {
        action_code(name).unwrap_or(u32::MAX)
    }
    /// Whether action `name` was pressed this tick.
    pub fn pressed(&self, name: &str) -> bool {
        self.pressed.contains(&Self::code(name))
    }
    /// Whether action `name` was released this tick.
    pub fn released(&self, name: &str) -> bool {
        self.released.contains(&Self::code(name))
    }
    /// 1 when action `name` is held, else 0.
    pub fn held(&self, name: &str) -> f32 {
        f32::from(u8::from(self.held.contains(&Self::code(name))))
    }
    /// Axis action `name` (finite, `-1..=1`; 0 when absent).
    pub fn axis(&self, name: &str) -> f32 {
        self.axes
            .get(&Self::code(name))
            .copied()
            .filter(|v| v.is_finite())
            .map_or(0.0, |v| v.clamp(-1.0, 1.0))
    }
    /// The pointer (`0..=1` from the window's top-left) once the window reported it.
    pub fn pointer(&self) -> Option<Vec2> {
        let x = self.axes.get(&POINTER_X)?;
        let y = self.axes.get(&POINTER_Y)?;
        (x.is_finite() && y.is_finite()).then(|| Vec2::new(x.clamp(0.0, 1.0), y.clamp(0.0, 1.0)))
    }
    /// The view's aspect (width / height), 4:3 until the window reported it.
    pub fn aspect(&self) -> f32 {
        self.axes
            .get(&VIEW_ASPECT)
            .copied()
            .filter(|a| a.is_finite() && *a > 0.01 && *a < 100.0)
            .unwrap_or(4.0 / 3.0)
    }
}

/// An order kind the seat gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `order.move`.
    Move,
    /// `order.attack`.
    Attack,
    /// `order.patrol`.
    Patrol,
    /// `order.harvest`.
    Harvest,
}

/// What the player asked for this tick (carried out by the plugin, in this order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Intent {
    /// Select the own unit under the pointer (`add`: to the selection; a miss clears
    /// it unless adding).
    Pick {
        /// Pointer.
        at: Vec2,
        /// Add to the selection.
        add: bool,
    },
    /// Select the own units inside the window rectangle `lo..hi`.
    Box {
        /// Corner.
        lo: Vec2,
        /// Corner.
        hi: Vec2,
        /// Add to the selection.
        add: bool,
    },
    /// Order the selection to the point under the pointer.
    Order {
        /// The kind.
        kind: Order,
        /// Pointer.
        at: Vec2,
    },
    /// Cancel the selection's orders.
    Stop,
    /// Possess this unit.
    Possess(u32),
    /// Leave the possessed unit.
    Release,
    /// Fire the possessed unit's weapon where the view's centre points (every tick
    /// `unit.fire` is held; the weapon's reload paces the shots).
    Fire,
    /// Drive the possessed unit.
    Drive {
        /// Speed (world units per second, negative: reverse).
        speed: f32,
        /// Turn rate (radians per second, positive: left).
        turn: f32,
    },
}

/// The seat's state (saved with the plugin).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// The camera.
    pub rig: Rig,
    /// Selected unit ids, ascending.
    pub selection: Vec<u32>,
    /// The followed or possessed unit.
    pub subject: Option<u32>,
    /// The infrared view is on.
    pub infrared: bool,
    /// Where a select press started (a click or a box on release).
    pub anchor: Option<Vec2>,
    /// The overview was placed over the player's units.
    pub placed: bool,
    /// The last drive request sent for the possessed unit.
    pub drive: Option<(f32, f32)>,
}

impl Seat {
    /// One tick of `dt` seconds: moves the camera and answers the player's intents.
    pub fn step(&mut self, a: &Actions, dt: f32) -> Vec<Intent> {
        let mut out = Vec::new();
        let possessed = self.rig.mode == Mode::Possessed;
        let mut c = Controls {
            turn: a.held("camera.left") - a.held("camera.right"),
            tilt: a.held("camera.up") - a.held("camera.down"),
            centre: a.pressed("camera.center"),
            zoom: i32::from(a.pressed("camera.zoom_in")) - i32::from(a.pressed("camera.zoom_out")),
            ..Controls::default()
        };
        if possessed {
            // Mouse right / stick right aims right (clockwise); mouse down aims down.
            c.turn -= a.axis("unit.aim_x");
            c.tilt -= a.axis("unit.aim_y");
        } else {
            c.turn -= a.axis("camera.look_x");
            c.tilt -= a.axis("camera.look_y");
            // The mouse turns the view only while camera.drag is held.
            if a.held("camera.drag") > 0.0 {
                c.turn -= a.axis("camera.drag_x");
                c.tilt -= a.axis("camera.drag_y");
            }
            c.pan_forward =
                a.held("camera.pan_forward") - a.held("camera.pan_back") + a.axis("camera.pan_y");
            c.pan_right =
                a.held("camera.pan_right") - a.held("camera.pan_left") + a.axis("camera.pan_x");
            // Edge scrolling (not while a box is being dragged).
            if self.rig.mode == Mode::Overview && self.anchor.is_none() {
                if let Some(p) = a.pointer() {
                    c.pan_right +=
                        f32::from(u8::from(p.x >= 1.0 - EDGE)) - f32::from(u8::from(p.x <= EDGE));
                    c.pan_forward +=
                        f32::from(u8::from(p.y <= EDGE)) - f32::from(u8::from(p.y >= 1.0 - EDGE));
                }
            }
        }
        self.rig.advance(&c, dt);
        if a.pressed("camera.infrared") {
            self.infrared = !self.infrared;
        }
        if a.pressed("camera.mode") && !possessed {
            self.next_mode();
        }
        if !possessed {
            let add = a.held("select.add") > 0.0;
            if a.pressed("select") {
                self.anchor = a.pointer();
            }
            if a.released("select") {
                if let (Some(from), Some(to)) = (self.anchor.take(), a.pointer()) {
                    if (to - from).abs().max_element() < CLICK {
                        out.push(Intent::Pick { at: to, add });
                    } else {
                        out.push(Intent::Box {
                            lo: from.min(to),
                            hi: from.max(to),
                            add,
                        });
                    }
                }
            }
            for (name, kind) in [
                ("order.move", Order::Move),
                ("order.attack", Order::Attack),
                ("order.patrol", Order::Patrol),
                ("order.harvest", Order::Harvest),
            ] {
                if a.pressed(name) {
                    if let Some(at) = a.pointer() {
                        out.push(Intent::Order { kind, at });
                    }
                }
            }
            if a.pressed("order.stop") {
                out.push(Intent::Stop);
            }
        }
        if a.pressed("unit.possess") {
            if possessed {
                out.push(Intent::Release);
            } else if let Some(&id) = self.selection.first() {
                out.push(Intent::Possess(id));
            }
        } else if possessed {
            let throttle = (a.held("unit.forward") - a.held("unit.back") + a.axis("unit.throttle"))
                .clamp(-1.0, 1.0);
            let steer =
                (a.held("unit.turn_left") - a.held("unit.turn_right") - a.axis("unit.steer"))
                    .clamp(-1.0, 1.0);
            let speed = if throttle >= 0.0 {
                throttle * DRIVE_SPEED
            } else {
                throttle * REVERSE_SPEED
            };
            let d = (speed, steer * DRIVE_TURN);
            if self.drive != Some(d) {
                self.drive = Some(d);
                out.push(Intent::Drive {
                    speed: d.0,
                    turn: d.1,
                });
            }
            if a.held("unit.fire") > 0.0 {
                out.push(Intent::Fire);
            }
        }
        out
    }

    /// `camera.mode`: overview → follow (the first selected unit) → free → overview.
    fn next_mode(&mut self) {
        self.rig.centring = false;
        match self.rig.mode {
            Mode::Overview => match self.selection.first() {
                Some(&id) => {
                    self.rig.mode = Mode::Follow;
                    self.subject = Some(id);
                }
                None => self.enter_free(),
            },
            Mode::Follow => self.enter_free(),
            Mode::Free | Mode::Possessed => {
                // Back above the point the free eye looked at.
                let (eye, yaw, pitch) = self.rig.view(None);
                self.rig.mode = Mode::Overview;
                self.subject = None;
                self.rig.yaw = yaw;
                self.rig.pitch = pitch.clamp(
                    crate::camera::OVERVIEW_PITCH.0,
                    crate::camera::OVERVIEW_PITCH.1,
                );
                self.rig.focus =
                    eye + crate::camera::forward(self.rig.yaw, self.rig.pitch) * self.rig.distance;
            }
        }
    }

    fn enter_free(&mut self) {
        let (eye, _, _) = self.rig.view(None);
        self.rig.mode = Mode::Free;
        self.subject = None;
        self.rig.focus = eye;
    }

    /// Possession began (the plugin told the AI and the control service).
    pub fn possessed(&mut self, id: u32) {
        self.rig.mode = Mode::Possessed;
        self.rig.aim = Vec2::ZERO;
        self.rig.centring = false;
        self.subject = Some(id);
        // The plugin stopped the unit as it took it over.
        self.drive = Some((0.0, 0.0));
        self.anchor = None;
    }

    /// Possession ended: back to the overview over `at` (the unit's last place).
    pub fn released(&mut self, at: Option<glam::Vec3>) {
        self.rig.mode = Mode::Overview;
        self.rig.pitch = crate::camera::OVERVIEW_REST;
        self.subject = None;
        self.drive = None;
        if let Some(p) = at {
            self.rig.focus = p;
        }
    }

    /// Sets the selection (ascending, no repeats).
    pub fn select(&mut self, mut ids: Vec<u32>, add: bool) {
        if add {
            ids.extend_from_slice(&self.selection);
        }
        ids.sort_unstable();
        ids.dedup();
        self.selection = ids;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(n: &str) -> u32 {
        action_code(n).unwrap()
    }

    fn at(x: f32, y: f32) -> Actions {
        let mut a = Actions::default();
        a.axes.insert(POINTER_X, x);
        a.axes.insert(POINTER_Y, y);
        a
    }

    #[test]
    fn a_click_picks_and_a_drag_boxes() {
        let mut s = Seat::default();
        let mut a = at(0.5, 0.5);
        a.pressed.insert(code("select"));
        assert_eq!(s.step(&a, 0.033), []);
        let mut a = at(0.502, 0.5);
        a.released.insert(code("select"));
        assert_eq!(
            s.step(&a, 0.033),
            [Intent::Pick {
                at: Vec2::new(0.502, 0.5),
                add: false
            }]
        );
        let mut a = at(0.2, 0.3);
        a.pressed.insert(code("select"));
        s.step(&a, 0.033);
        let mut a = at(0.6, 0.1);
        a.released.insert(code("select"));
        a.held.insert(code("select.add"));
        assert_eq!(
            s.step(&a, 0.033),
            [Intent::Box {
                lo: Vec2::new(0.2, 0.1),
                hi: Vec2::new(0.6, 0.3),
                add: true
            }]
        );
    }

    #[test]
    fn possession_drives_with_edges_and_held_keys_and_leaves_on_the_same_action() {
        let mut s = Seat::default();
        let mut a = Actions::default();
        a.pressed.insert(code("unit.possess"));
        // Nothing selected: nothing to possess.
        assert_eq!(s.step(&a, 0.033), []);
        s.select(vec![9, 4], false);
        assert_eq!(s.selection, [4, 9]);
        assert_eq!(s.step(&a, 0.033), [Intent::Possess(4)]);
        s.possessed(4);
        let mut a = Actions::default();
        a.held.insert(code("unit.forward"));
        a.held.insert(code("unit.turn_left"));
        assert_eq!(
            s.step(&a, 0.033),
            [Intent::Drive {
                speed: DRIVE_SPEED,
                turn: DRIVE_TURN
            }]
        );
        // Held with no change: no repeated request (held is not an edge).
        assert_eq!(s.step(&a, 0.033), []);
        let mut a = Actions::default();
        a.axes.insert(code("unit.throttle"), -0.5);
        assert_eq!(
            s.step(&a, 0.033),
            [Intent::Drive {
                speed: -0.5 * REVERSE_SPEED,
                turn: 0.0
            }]
        );
        // Fire while held, every tick (the weapon's reload paces the shots).
        let mut a = Actions::default();
        a.axes.insert(code("unit.throttle"), -0.5);
        a.held.insert(code("unit.fire"));
        assert_eq!(s.step(&a, 0.033), [Intent::Fire]);
        assert_eq!(s.step(&a, 0.033), [Intent::Fire]);
        a.held.clear();
        assert_eq!(s.step(&a, 0.033), []);
        let mut a = Actions::default();
        a.pressed.insert(code("unit.possess"));
        assert_eq!(s.step(&a, 0.033), [Intent::Release]);
        s.released(None);
        // Out of the unit the fire action does nothing.
        let mut a = Actions::default();
        a.held.insert(code("unit.fire"));
        assert_eq!(s.step(&a, 0.033), []);
        assert_eq!(s.rig.mode, Mode::Overview);
    }

    #[test]
    fn orders_need_the_pointer_and_the_overview() {
        let mut s = Seat::default();
        let mut a = Actions::default();
        a.pressed.insert(code("order.move"));
        assert_eq!(s.step(&a, 0.033), []);
        let mut a = at(0.4, 0.6);
        a.pressed.insert(code("order.move"));
        a.pressed.insert(code("order.stop"));
        assert_eq!(
            s.step(&a, 0.033),
            [
                Intent::Order {
                    kind: Order::Move,
                    at: Vec2::new(0.4, 0.6)
                },
                Intent::Stop
            ]
        );
        s.possessed(3);
        assert_eq!(s.step(&a, 0.033), []);
    }

    #[test]
    fn camera_mode_cycles_overview_follow_free_overview() {
        let mut s = Seat::default();
        s.select(vec![7], false);
        let mut a = Actions::default();
        a.pressed.insert(code("camera.mode"));
        s.step(&a, 0.0);
        assert_eq!((s.rig.mode, s.subject), (Mode::Follow, Some(7)));
        s.step(&a, 0.0);
        assert_eq!((s.rig.mode, s.subject), (Mode::Free, None));
        s.step(&a, 0.0);
        assert_eq!(s.rig.mode, Mode::Overview);
    }

    #[test]
    fn the_mouse_turns_the_overview_only_while_the_drag_button_is_held() {
        let mut s = Seat::default();
        let yaw = s.rig.yaw;
        let mut a = at(0.5, 0.5);
        a.axes.insert(code("camera.drag_x"), 0.8);
        s.step(&a, 0.1);
        assert_eq!(s.rig.yaw, yaw, "a pointer move alone leaves the view");
        a.held.insert(code("camera.drag"));
        s.step(&a, 0.1);
        assert!(s.rig.yaw != yaw, "dragging turns it");
    }

    #[test]
    fn the_pointer_at_the_edge_scrolls_the_overview() {
        let mut s = Seat::default();
        let before = s.rig.focus;
        s.step(&at(1.0, 0.5), 1.0);
        // Facing +X (yaw 0): the right edge pans towards −Y.
        assert!(s.rig.focus.y < before.y - 1.0, "{:?}", s.rig.focus);
        let f = s.rig.focus;
        s.step(&at(0.5, 0.5), 1.0);
        assert_eq!(s.rig.focus, f);
    }
}
