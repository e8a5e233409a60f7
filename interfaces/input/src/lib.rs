//! Device-independent input (tome VI "Ввод, камера и управление"; FORMATS §13.15): the
//! engine's own device events, and the [`Mapper`] that turns them, through the
//! bindings (`config/bindings.ini`, [`iron3d_config::bindings`]), into per-tick
//! **action events** — the only input the simulation should read, so a recording of
//! them replays the same whatever the devices, the bindings or the frame rate.
//!
//! * [`DeviceEvent`] is engine-owned: the window converts its keyboard and mouse events,
//!   the gamepad layer (gilrs) its gamepad events, and tests write virtual devices
//!   directly.
//! * The three semantics of the tome: an **edge** ([`ActionEvent::Press`] /
//!   [`ActionEvent::Release`]) is emitted once, when a button action becomes held (any
//!   of its inputs on any device) or stops being held — a tap inside one tick gives
//!   both; **held** state is the caller's (the kernel's snapshot keeps it between
//!   ticks); an **analog** action ([`ActionEvent::Axis`]) is emitted when its value
//!   changes.
//! * Axis values: a gamepad axis is an absolute position, cleaned (not finite → 0,
//!   clamped to `[-1, 1]`) and passed through the dead zone ([`Tuning::dead_zone`]:
//!   below it 0, above it rescaled so the edge of the zone is 0 and full tilt is 1); a
//!   mouse axis is relative — this tick's motion × [`Tuning::mouse_scale`], clamped,
//!   back to 0 the next tick without motion. Several inputs on one axis action: the
//!   largest magnitude wins (ties: the first in the binding).
//! * **Hot-unplug** ([`DeviceEvent::Disconnected`]): every button of that device is
//!   released (with the edges) and its axes return to neutral at once — a gamepad
//!   pulled out mid-tilt never leaves an axis deflected.
//! * **Modes** ([`Mapper::set_mode`]): only the actions of the current mode
//!   ([`OVERVIEW`], [`POSSESSED`] or [`MENU`]) are driven; switching between the two
//!   game modes releases the others and presses what the held inputs drive in the new
//!   mode. **PD-INPUT-MENU-MODE**: a switch into or out of [`MENU`] releases every
//!   action and presses none; an input held through it drives nothing until it is
//!   pressed again (the button that opened a menu does not also go back in it, the one
//!   that chose "Resume" does not also select a unit).
//! * Output order: button edges in event order, then the changed axis actions in
//!   [`iron3d_config::bindings::ACTIONS`] order, then the pointer's position when it
//!   moved ([`DeviceEvent::Pointer`] → [`ActionEvent::Pointer`]; the seat picks units
//!   and ground points under it).
//! * In the tick's snapshot an action is a key code or axis number,
//!   [`ACTION_CODE_BASE`] + its place in `ACTIONS` ([`action_code`]); the pointer is
//!   the axes [`POINTER_X`] and [`POINTER_Y`].

use iron3d_config::bindings::{ACTIONS, ActionKind, Bindings, Device};
pub use iron3d_config::bindings::{Input, MENU, OVERVIEW, POSSESSED};
use std::collections::{BTreeMap, BTreeSet};

/// Where a device event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The keyboard.
    Keyboard,
    /// The mouse.
    Mouse,
    /// Gamepad number `n` (as the gamepad layer numbers them while connected).
    Pad(u32),
}

/// One event of a device, in the engine's own terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeviceEvent {
    /// A key or button went down or up (a wheel step is a down and an up of
    /// `Mouse:WheelUp` / `Mouse:WheelDown`).
    Button {
        /// The device.
        source: Source,
        /// The button (a [`Device::Key`], [`Device::Mouse`] or [`Device::Pad`] input).
        input: Input,
        /// Down (true) or up.
        down: bool,
    },
    /// An absolute axis position (a [`Device::PadAxis`] input), nominally in `[-1, 1]`.
    Axis {
        /// The device.
        source: Source,
        /// The axis.
        input: Input,
        /// Its position.
        value: f32,
    },
    /// Relative pointer motion in pixels (a [`Device::MouseAxis`] input).
    Motion {
        /// `MouseAxis:X` or `MouseAxis:Y`.
        input: Input,
        /// Pixels moved.
        delta: f32,
    },
    /// The pointer is at `(x, y)` in the window, `0..=1` from the top-left corner
    /// (clamped; a non-finite position is ignored).
    Pointer {
        /// Across.
        x: f32,
        /// Down.
        y: f32,
    },
    /// A device appeared.
    Connected(Source),
    /// A device went away: its buttons are released and its axes return to neutral.
    Disconnected(Source),
}

/// What the simulation reads: an action's edge or its new analog value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ActionEvent {
    /// A button action became held.
    Press(&'static str),
    /// A button action stopped being held.
    Release(&'static str),
    /// An axis action has a new value in `[-1, 1]`.
    Axis(&'static str, f32),
    /// The pointer moved to `(x, y)` (`0..=1` from the window's top-left corner).
    Pointer(f32, f32),
}

/// The snapshot code of `ACTIONS[i]` is `ACTION_CODE_BASE + i` (key codes for button
/// actions, axis numbers for axis actions). **PD-INPUT-CODES**: actions are only ever
/// appended to [`ACTIONS`], so a code never changes meaning and recorded input stays
/// valid.
pub const ACTION_CODE_BASE: u32 = 0x0001_0000;
/// The snapshot axis holding the pointer's X (`0..=1`, left to right).
pub const POINTER_X: u32 = 0x0001_FF00;
/// The snapshot axis holding the pointer's Y (`0..=1`, top to bottom).
pub const POINTER_Y: u32 = 0x0001_FF01;
/// The snapshot axis holding the view's aspect (width / height; picking needs it).
pub const VIEW_ASPECT: u32 = 0x0001_FF02;

/// **PD-INPUT-SEAT-BANDS**: in a tick's snapshot, player `p`'s records are player 0's
/// codes plus `p × SEAT_BAND` — key codes and axis numbers alike — so every seat of a
/// match reads its own records from the one snapshot (and a replay holds them all).
/// Player 0's are the codes as they are: a game of one seat is unchanged.
pub const SEAT_BAND: u32 = 0x0010_0000;

/// The most seats the bands hold (`MAX_SEATS × SEAT_BAND` stays far below `u32::MAX`).
pub const MAX_SEATS: u32 = 16;

/// Player `player`'s code for player 0's `code`: `None` when the player is not below
/// [`MAX_SEATS`] or the code is not below [`SEAT_BAND`] (it has no band of its own).
pub fn seat_code(player: u32, code: u32) -> Option<u32> {
    (player < MAX_SEATS && code < SEAT_BAND).then(|| player * SEAT_BAND + code)
}

/// The player a snapshot code belongs to and player 0's code for it.
pub fn split_seat(code: u32) -> (u32, u32) {
    (code / SEAT_BAND, code % SEAT_BAND)
}

/// The snapshot code of action `name`.
pub fn action_code(name: &str) -> Option<u32> {
    ACTIONS
        .iter()
        .position(|a| a.name == name)
        .map(|i| ACTION_CODE_BASE + i as u32)
}

/// The action a snapshot code stands for.
pub fn action_of_code(code: u32) -> Option<&'static iron3d_config::bindings::Action> {
    ACTIONS.get(code.checked_sub(ACTION_CODE_BASE)? as usize)
}

/// How raw values are shaped (player settings).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tuning {
    /// Gamepad axis dead zone, `[0, 1)`.
    pub dead_zone: f32,
    /// Axis value per pixel of mouse motion.
    pub mouse_scale: f32,
    /// Invert `MouseAxis:Y` and the gamepad `*Y` axes.
    pub invert_y: bool,
}

impl Default for Tuning {
    /// Dead zone 0.15, 0.01 per pixel (100 pixels: full deflection), Y not inverted.
    fn default() -> Self {
        Self {
            dead_zone: 0.15,
            mouse_scale: 0.01,
            invert_y: false,
        }
    }
}

/// `value` through the dead zone `dz`: 0 inside, rescaled outside (sign kept); not
/// finite → 0; clamped to `[-1, 1]`.
pub fn dead_zoned(value: f32, dz: f32) -> f32 {
    if !value.is_finite() {
        return 0.0;
    }
    let v = value.clamp(-1.0, 1.0);
    let dz = if dz.is_finite() {
        dz.clamp(0.0, 0.99)
    } else {
        0.0
    };
    if v.abs() <= dz {
        0.0
    } else {
        v.signum() * (v.abs() - dz) / (1.0 - dz)
    }
}

/// Device events → action events through bindings, tick by tick (see the crate docs).
#[derive(Clone, Debug)]
pub struct Mapper {
    bindings: Bindings,
    tuning: Tuning,
    mode: u8,
    /// Buttons held, by device.
    held: BTreeSet<(Source, Input)>,
    /// Absolute axes, by device (raw, cleaned).
    axes: BTreeMap<(Source, Input), f32>,
    /// This tick's pointer motion.
    motion: BTreeMap<Input, f32>,
    /// Button actions held now.
    active: BTreeSet<&'static str>,
    /// Axis values emitted last (absent: 0).
    emitted: BTreeMap<&'static str, f32>,
    /// The pointer position this tick, and the one emitted last.
    pointer: Option<(f32, f32)>,
    pointer_emitted: Option<(f32, f32)>,
}

impl Mapper {
    /// A mapper in the [`OVERVIEW`] mode with nothing held.
    pub fn new(bindings: Bindings, tuning: Tuning) -> Self {
        Self {
            bindings,
            tuning,
            mode: OVERVIEW,
            held: BTreeSet::new(),
            axes: BTreeMap::new(),
            motion: BTreeMap::new(),
            active: BTreeSet::new(),
            emitted: BTreeMap::new(),
            pointer: None,
            pointer_emitted: None,
        }
    }

    /// Inverts the vertical axes (`MouseAxis:Y`, the gamepads' `…Y`) from the next
    /// tick on, or stops inverting them (the player's setting).
    pub fn set_invert_y(&mut self, on: bool) {
        self.tuning.invert_y = on;
    }

    /// The current mode.
    pub fn mode(&self) -> u8 {
        self.mode
    }

    /// The button actions held now.
    pub fn active(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.active.iter().copied()
    }

    /// The button action `input` drives in the current mode.
    fn button_action(&self, input: Input) -> Option<&'static str> {
        self.bindings
            .action_of(input, self.mode)
            .filter(|a| a.kind == ActionKind::Button)
            .map(|a| a.name)
    }

    /// Whether some held input drives `action` in the current mode.
    fn still_held(&self, action: &'static str) -> bool {
        self.held
            .iter()
            .any(|&(_, i)| self.button_action(i) == Some(action))
    }

    fn release(&mut self, source: Source, input: Input, out: &mut Vec<ActionEvent>) {
        if !self.held.remove(&(source, input)) {
            return;
        }
        if let Some(a) = self.button_action(input) {
            if self.active.contains(a) && !self.still_held(a) {
                self.active.remove(a);
                out.push(ActionEvent::Release(a));
            }
        }
    }

    /// Switches to `mode` ([`OVERVIEW`], [`POSSESSED`] or [`MENU`]): releases the
    /// actions the new mode does not have, presses what the held inputs drive there
    /// (none into or out of [`MENU`]: the held buttons are spent, PD-INPUT-MENU-MODE),
    /// and returns the axis actions of the old mode to 0.
    pub fn set_mode(&mut self, mode: u8) -> Vec<ActionEvent> {
        let mut out = Vec::new();
        if mode == self.mode {
            return out;
        }
        if (mode | self.mode) & MENU != 0 {
            // A held button's later release finds nothing held: no edge.
            self.held.clear();
        }
        self.mode = mode;
        let keep: BTreeSet<&'static str> = self
            .held
            .iter()
            .filter_map(|&(_, i)| self.button_action(i))
            .collect();
        let before = std::mem::take(&mut self.active);
        for &a in before.difference(&keep) {
            out.push(ActionEvent::Release(a));
        }
        // Actions held before and after stay held without new edges.
        for &a in keep.difference(&before) {
            out.push(ActionEvent::Press(a));
        }
        self.active = keep;
        out.extend(self.axis_changes());
        out
    }

    /// This tick's action events from this tick's device events, in order.
    pub fn tick(&mut self, events: &[DeviceEvent]) -> Vec<ActionEvent> {
        let mut out = Vec::new();
        for e in events {
            match *e {
                DeviceEvent::Button {
                    source,
                    input,
                    down: true,
                } => {
                    if !self.held.insert((source, input)) {
                        continue;
                    }
                    if let Some(a) = self.button_action(input) {
                        if self.active.insert(a) {
                            out.push(ActionEvent::Press(a));
                        }
                    }
                }
                DeviceEvent::Button {
                    source,
                    input,
                    down: false,
                } => self.release(source, input, &mut out),
                DeviceEvent::Axis {
                    source,
                    input,
                    value,
                } => {
                    let v = if value.is_finite() {
                        value.clamp(-1.0, 1.0)
                    } else {
                        0.0
                    };
                    self.axes.insert((source, input), v);
                }
                DeviceEvent::Motion { input, delta } => {
                    if delta.is_finite() {
                        *self.motion.entry(input).or_default() += delta;
                    }
                }
                DeviceEvent::Pointer { x, y } => {
                    if x.is_finite() && y.is_finite() {
                        self.pointer = Some((x.clamp(0.0, 1.0), y.clamp(0.0, 1.0)));
                    }
                }
                DeviceEvent::Connected(_) => {}
                DeviceEvent::Disconnected(source) => {
                    let buttons: Vec<Input> = self
                        .held
                        .iter()
                        .filter(|(s, _)| *s == source)
                        .map(|&(_, i)| i)
                        .collect();
                    for i in buttons {
                        self.release(source, i, &mut out);
                    }
                    self.axes.retain(|(s, _), _| *s != source);
                }
            }
        }
        out.extend(self.axis_changes());
        self.motion.clear();
        if self.pointer != self.pointer_emitted {
            if let Some((x, y)) = self.pointer {
                out.push(ActionEvent::Pointer(x, y));
            }
            self.pointer_emitted = self.pointer;
        }
        out
    }

    /// The value of axis action `name` from the current device state.
    fn axis_value(&self, name: &str) -> f32 {
        let Some(b) = self.bindings.get(name) else {
            return 0.0;
        };
        let mut best = 0.0f32;
        for (input, _) in &b.inputs {
            let invert = self.tuning.invert_y && input.name.ends_with('Y');
            let v = match input.device {
                Device::PadAxis => self
                    .axes
                    .iter()
                    .filter(|((_, i), _)| i == input)
                    .map(|(_, &v)| dead_zoned(v, self.tuning.dead_zone))
                    .fold(0.0f32, |m, v| if v.abs() > m.abs() { v } else { m }),
                Device::MouseAxis => {
                    let raw =
                        self.motion.get(input).copied().unwrap_or(0.0) * self.tuning.mouse_scale;
                    if raw.is_finite() {
                        raw.clamp(-1.0, 1.0)
                    } else {
                        0.0
                    }
                }
                _ => 0.0,
            };
            let v = if invert { -v } else { v };
            if v.abs() > best.abs() {
                best = v;
            }
        }
        best
    }

    /// Axis actions whose value changed (those outside the mode go to 0).
    fn axis_changes(&mut self) -> Vec<ActionEvent> {
        let mut out = Vec::new();
        for a in ACTIONS.iter().filter(|a| a.kind == ActionKind::Axis) {
            let v = if a.modes & self.mode != 0 {
                self.axis_value(a.name)
            } else {
                0.0
            };
            let before = self.emitted.get(a.name).copied().unwrap_or(0.0);
            if v != before {
                out.push(ActionEvent::Axis(a.name, v));
                if v == 0.0 {
                    self.emitted.remove(a.name);
                } else {
                    self.emitted.insert(a.name, v);
                }
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FILE: &str = "camera.left = Key:Left, Pad:DPadLeft\n\
        camera.pan_forward = Key:W\n\
        unit.forward = Key:W\n\
        unit.fire = Pad:South\n\
        select = Mouse:Left\n\
        camera.zoom_in = Mouse:WheelUp\n\
        camera.pan_x = PadAxis:LeftStickX\n\
        camera.look_y = MouseAxis:Y, PadAxis:RightStickY\n\
        unit.steer = PadAxis:LeftStickX\n";

    fn mapper() -> Mapper {
        Mapper::new(
            Bindings::parse(FILE.as_bytes(), "t.ini").unwrap(),
            Tuning::default(),
        )
    }

    fn i(s: &str) -> Input {
        Input::parse(s).unwrap()
    }

    fn button(source: Source, input: &str, down: bool) -> DeviceEvent {
        DeviceEvent::Button {
            source,
            input: i(input),
            down,
        }
    }

    fn axis(pad: u32, input: &str, value: f32) -> DeviceEvent {
        DeviceEvent::Axis {
            source: Source::Pad(pad),
            input: i(input),
            value,
        }
    }

    use ActionEvent::{Axis, Press, Release};

    #[test]
    fn an_edge_is_emitted_once_and_held_state_is_not_repeated() {
        let mut m = mapper();
        assert_eq!(
            m.tick(&[button(Source::Keyboard, "Key:Left", true)]),
            [Press("camera.left")]
        );
        assert_eq!(m.tick(&[]), []);
        // A second input of the same action adds nothing, and releasing one keeps it.
        assert_eq!(m.tick(&[button(Source::Pad(0), "Pad:DPadLeft", true)]), []);
        assert_eq!(m.tick(&[button(Source::Keyboard, "Key:Left", false)]), []);
        assert_eq!(
            m.tick(&[button(Source::Pad(0), "Pad:DPadLeft", false)]),
            [Release("camera.left")]
        );
        // A repeated down (key repeat) is not a new edge; an up without a down is nothing.
        m.tick(&[button(Source::Keyboard, "Key:Left", true)]);
        assert_eq!(m.tick(&[button(Source::Keyboard, "Key:Left", true)]), []);
        assert_eq!(m.tick(&[button(Source::Keyboard, "Key:W", false)]), []);
        // A tap inside one tick (a wheel step) gives both edges.
        assert_eq!(
            m.tick(&[
                button(Source::Mouse, "Mouse:WheelUp", true),
                button(Source::Mouse, "Mouse:WheelUp", false)
            ]),
            [Press("camera.zoom_in"), Release("camera.zoom_in")]
        );
        // Unbound inputs drive nothing.
        assert_eq!(m.tick(&[button(Source::Keyboard, "Key:Z", true)]), []);
    }

    #[test]
    fn a_gamepad_pulled_out_mid_tilt_leaves_nothing_deflected_or_held() {
        let mut m = mapper();
        let out = m.tick(&[
            DeviceEvent::Connected(Source::Pad(1)),
            axis(1, "PadAxis:LeftStickX", 0.8),
        ]);
        let v = (0.8 - 0.15) / 0.85;
        assert_eq!(out, [Axis("camera.pan_x", v)]);
        assert_eq!(
            m.tick(&[button(Source::Pad(1), "Pad:DPadLeft", true)]),
            [Press("camera.left")]
        );
        // Unplugged: the button is released and the axis returns to neutral at once.
        assert_eq!(
            m.tick(&[DeviceEvent::Disconnected(Source::Pad(1))]),
            [Release("camera.left"), Axis("camera.pan_x", 0.0)]
        );
        assert_eq!(m.tick(&[]), []);
        // Another pad's tilt is its own.
        m.tick(&[axis(2, "PadAxis:LeftStickX", -1.0)]);
        assert_eq!(m.tick(&[DeviceEvent::Disconnected(Source::Pad(1))]), []);
        assert_eq!(
            m.tick(&[axis(2, "PadAxis:LeftStickX", f32::NAN)]),
            [Axis("camera.pan_x", 0.0)]
        );
    }

    #[test]
    fn dead_zones_and_mouse_motion() {
        assert_eq!(dead_zoned(0.1, 0.15), 0.0);
        assert_eq!(dead_zoned(0.15, 0.15), 0.0);
        assert_eq!(dead_zoned(1.0, 0.15), 1.0);
        assert_eq!(dead_zoned(-3.0, 0.15), -1.0);
        assert!((dead_zoned(-0.5, 0.15) + 0.35 / 0.85).abs() < 1e-6);
        assert_eq!(dead_zoned(f32::INFINITY, 0.15), 0.0);
        assert_eq!(dead_zoned(0.5, f32::NAN), 0.5);
        let mut m = mapper();
        // Inside the dead zone: nothing to report.
        assert_eq!(m.tick(&[axis(0, "PadAxis:RightStickY", 0.1)]), []);
        // Mouse motion is relative: this tick's pixels × the scale (1/64 here, exact in
        // f32), then back to 0; the largest magnitude of the action's inputs wins.
        m.tuning.mouse_scale = 1.0 / 64.0;
        let motion = DeviceEvent::Motion {
            input: i("MouseAxis:Y"),
            delta: 24.0,
        };
        assert_eq!(m.tick(&[motion, motion]), [Axis("camera.look_y", 0.75)]);
        assert_eq!(m.tick(&[]), [Axis("camera.look_y", 0.0)]);
        m.tuning.invert_y = true;
        assert_eq!(m.tick(&[motion]), [Axis("camera.look_y", -0.375)]);
        // Far more motion than full deflection: clamped.
        let fling = DeviceEvent::Motion {
            input: i("MouseAxis:Y"),
            delta: -1.0e9,
        };
        assert_eq!(m.tick(&[fling]), [Axis("camera.look_y", 1.0)]);
    }

    #[test]
    fn a_mode_switch_releases_the_old_actions_and_presses_the_new() {
        let mut m = mapper();
        m.tick(&[
            button(Source::Keyboard, "Key:W", true),
            button(Source::Keyboard, "Key:Left", true),
            axis(0, "PadAxis:LeftStickX", 1.0),
        ]);
        assert_eq!(
            m.set_mode(POSSESSED),
            [
                Release("camera.pan_forward"),
                Press("unit.forward"),
                Axis("camera.pan_x", 0.0),
                Axis("unit.steer", 1.0)
            ]
        );
        // camera.left works in both modes: held through the switch, no edges.
        assert_eq!(
            m.active().collect::<Vec<_>>(),
            ["camera.left", "unit.forward"]
        );
        assert_eq!(
            m.tick(&[button(Source::Pad(0), "Pad:South", true)]),
            [Press("unit.fire")]
        );
        assert_eq!(m.set_mode(POSSESSED), []);
        assert_eq!(
            m.set_mode(OVERVIEW),
            [
                Release("unit.fire"),
                Release("unit.forward"),
                Press("camera.pan_forward"),
                Axis("camera.pan_x", 1.0),
                Axis("unit.steer", 0.0)
            ]
        );
    }

    /// PD-INPUT-MENU-MODE: into and out of the menus every action is released and none
    /// pressed; a button held through the switch drives nothing, even when released.
    #[test]
    fn a_switch_into_or_out_of_the_menus_spends_the_held_buttons() {
        let b = Bindings::parse(
            b"camera.up = Pad:DPadUp\nselect = Pad:South\ngame.menu = Pad:Start\n\
              menu.up = Pad:DPadUp\nmenu.accept = Pad:South\nmenu.back = Pad:East\n\
              camera.pan_x = PadAxis:LeftStickX\n",
            "menu.ini",
        )
        .unwrap();
        let mut m = Mapper::new(b, Tuning::default());
        let pad = Source::Pad(0);
        m.tick(&[axis(0, "PadAxis:LeftStickX", 1.0)]);
        assert_eq!(
            m.tick(&[button(pad, "Pad:Start", true)]),
            [Press("game.menu")]
        );
        // Start opened the menu and is still down: it does not also close it.
        assert_eq!(
            m.set_mode(MENU),
            [Release("game.menu"), Axis("camera.pan_x", 0.0)]
        );
        assert_eq!(m.tick(&[button(pad, "Pad:Start", false)]), []);
        assert_eq!(
            m.tick(&[
                button(pad, "Pad:DPadUp", true),
                button(pad, "Pad:DPadUp", false)
            ]),
            [Press("menu.up"), Release("menu.up")]
        );
        assert_eq!(
            m.tick(&[button(pad, "Pad:South", true)]),
            [Press("menu.accept")]
        );
        // South chose "Resume" and is still down: it selects nothing in the game.
        assert_eq!(
            m.set_mode(OVERVIEW),
            [Release("menu.accept"), Axis("camera.pan_x", 1.0)]
        );
        assert_eq!(m.tick(&[button(pad, "Pad:South", false)]), []);
        assert_eq!(m.tick(&[button(pad, "Pad:South", true)]), [Press("select")]);
    }

    #[test]
    fn seat_bands_keep_player_zero_and_separate_the_others() {
        let select = action_code("select").unwrap();
        assert_eq!(seat_code(0, select), Some(select));
        let mine = seat_code(3, select).unwrap();
        assert_eq!(split_seat(mine), (3, select));
        assert_eq!(split_seat(POINTER_X), (0, POINTER_X));
        assert_eq!(
            split_seat(seat_code(15, VIEW_ASPECT).unwrap()),
            (15, VIEW_ASPECT)
        );
        assert_eq!(seat_code(16, select), None);
        assert_eq!(seat_code(1, SEAT_BAND), None);
        for a in 0..ACTIONS.len() as u32 {
            assert!(ACTION_CODE_BASE + a < SEAT_BAND, "every action fits a band");
        }
    }

    #[test]
    fn action_codes_are_stable_and_round_trip() {
        // PD-INPUT-CODES: appending keeps these; a reorder would break recorded input.
        assert_eq!(action_code("camera.left"), Some(ACTION_CODE_BASE));
        assert_eq!(action_code("select"), Some(ACTION_CODE_BASE + 17));
        assert_eq!(action_code("unit.possess"), Some(ACTION_CODE_BASE + 24));
        assert_eq!(action_code("game.menu"), Some(ACTION_CODE_BASE + 35));
        assert_eq!(action_code("no.such"), None);
        for a in ACTIONS {
            let c = action_code(a.name).unwrap();
            assert_eq!(action_of_code(c).map(|x| x.name), Some(a.name));
            assert!(c < POINTER_X);
        }
        assert!(action_of_code(ACTION_CODE_BASE - 1).is_none());
        assert!(action_of_code(POINTER_X).is_none());
    }

    #[test]
    fn the_pointer_is_emitted_once_per_move_clamped_and_non_finite_ignored() {
        let mut m = mapper();
        assert_eq!(
            m.tick(&[
                DeviceEvent::Pointer { x: 0.2, y: 0.3 },
                DeviceEvent::Pointer { x: 1.5, y: -1.0 }
            ]),
            [ActionEvent::Pointer(1.0, 0.0)]
        );
        assert_eq!(m.tick(&[]), []);
        assert_eq!(
            m.tick(&[DeviceEvent::Pointer {
                x: f32::NAN,
                y: 0.5
            }]),
            []
        );
        assert_eq!(
            m.tick(&[DeviceEvent::Pointer { x: 0.5, y: 0.5 }]),
            [ActionEvent::Pointer(0.5, 0.5)]
        );
    }

    fn any_event() -> impl Strategy<Value = DeviceEvent> {
        let sources = prop_oneof![
            Just(Source::Keyboard),
            Just(Source::Mouse),
            (0u32..3).prop_map(Source::Pad)
        ];
        let buttons = prop_oneof![
            Just("Key:Left"),
            Just("Key:W"),
            Just("Pad:DPadLeft"),
            Just("Pad:South"),
            Just("Mouse:Left"),
            Just("Key:Z")
        ];
        let axes = prop_oneof![Just("PadAxis:LeftStickX"), Just("PadAxis:RightStickY")];
        prop_oneof![
            (sources.clone(), buttons, any::<bool>()).prop_map(|(s, b, d)| button(s, b, d)),
            (0u32..3, axes, -2.0f32..2.0).prop_map(|(p, a, v)| axis(p, a, v)),
            (-200.0f32..200.0).prop_map(|d| DeviceEvent::Motion {
                input: i("MouseAxis:Y"),
                delta: d
            }),
            sources.clone().prop_map(DeviceEvent::Disconnected),
            sources.prop_map(DeviceEvent::Connected),
            (-1.0f32..2.0, -1.0f32..2.0).prop_map(|(x, y)| DeviceEvent::Pointer { x, y }),
        ]
    }

    /// Applies `out` to the model of held actions and axis values, checking that every
    /// edge changes it and every axis event is a finite change in range.
    fn follow(
        out: Vec<ActionEvent>,
        held: &mut BTreeSet<&'static str>,
        axes: &mut BTreeMap<&'static str, f32>,
    ) -> Result<(), TestCaseError> {
        for e in out {
            match e {
                Press(a) => prop_assert!(held.insert(a), "press of held {}", a),
                Release(a) => prop_assert!(held.remove(a), "release of {} not held", a),
                Axis(a, v) => {
                    prop_assert!(v.is_finite() && (-1.0..=1.0).contains(&v));
                    prop_assert_ne!(
                        axes.get(a).copied().unwrap_or(0.0),
                        v,
                        "unchanged {} emitted",
                        a
                    );
                    axes.insert(a, v);
                }
                ActionEvent::Pointer(x, y) => {
                    prop_assert!((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y));
                }
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn edges_pair_up_and_unplugging_everything_leaves_nothing(
            ticks in prop::collection::vec(prop::collection::vec(any_event(), 0..8), 1..20),
            switches in prop::collection::vec(any::<bool>(), 20),
        ) {
            let mut m = mapper();
            let mut held: BTreeSet<&'static str> = BTreeSet::new();
            let mut axes: BTreeMap<&'static str, f32> = BTreeMap::new();
            for (k, events) in ticks.iter().enumerate() {
                follow(m.tick(events), &mut held, &mut axes)?;
                if switches[k % switches.len()] {
                    let mode = if m.mode() == OVERVIEW { POSSESSED } else { OVERVIEW };
                    follow(m.set_mode(mode), &mut held, &mut axes)?;
                }
                prop_assert_eq!(m.active().collect::<BTreeSet<_>>(), held.clone());
            }
            // Every device unplugged: nothing held, every axis back to 0.
            let all: Vec<DeviceEvent> = [Source::Keyboard, Source::Mouse, Source::Pad(0), Source::Pad(1), Source::Pad(2)]
                .into_iter().map(DeviceEvent::Disconnected).collect();
            follow(m.tick(&all), &mut held, &mut axes)?;
            prop_assert!(held.is_empty(), "{:?}", held);
            prop_assert!(axes.values().all(|&v| v == 0.0), "{:?}", axes);
        }
    }
}
