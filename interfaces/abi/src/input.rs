//! (2.3) The input service and the player's view.
//!
//! **Devices to snapshot.** Once per presented frame, outside the simulation, the engine
//! hands the input plugin (the `input` slot) the window's keyboard and mouse events as
//! [`DeviceInput`]s; the plugin adds its own devices (gamepads), applies the player's
//! bindings and answers [`InputRecord`]s — the entries of the input log the kernel
//! builds the next tick's snapshot from (edges, held state, axes, manual `MCMD_*`
//! commands, game commands). The simulation reads only that snapshot
//! ([`crate::Host::input`]), and a recording of the records replays identically at any
//! frame rate, with any devices and any bindings.
//!
//! **The player's view.** A plugin that simulates the player's seat publishes, once per
//! tick, where the player looks ([`PlayerView`]) and which units are selected
//! ([`crate::HostApi::set_player_view`]); the engine derives the presentation camera,
//! the audio listener and the selection markers from the last published view.

use abi_stable::StableAbi;
use abi_stable::std_types::RString;

use crate::math::Vec3f;

/// What a [`DeviceInput`] says (an open number: compare with the constants).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceInputKind(pub u32);

impl DeviceInputKind {
    /// A key or button went down (`input` names it).
    pub const BUTTON_DOWN: Self = Self(1);
    /// A key or button went up (`input` names it).
    pub const BUTTON_UP: Self = Self(2);
    /// An absolute axis position `x`, nominally in `[-1, 1]` (`input` names the axis).
    pub const AXIS: Self = Self(3);
    /// Relative pointer motion of `x` pixels along `input` (`MouseAxis:X` / `MouseAxis:Y`).
    pub const MOTION: Self = Self(4);
    /// The pointer is at `(x, y)` in the window, `0..=1` from the top-left corner.
    pub const POINTER: Self = Self(5);
    /// The device `source` appeared.
    pub const CONNECTED: Self = Self(6);
    /// The device `source` went away: its buttons are released, its axes neutral.
    pub const DISCONNECTED: Self = Self(7);
    /// The window's drawable area is now `x × y` pixels (picking needs its aspect).
    pub const VIEWPORT: Self = Self(8);
    /// (2.7) The player's "invert Y" setting: from now on the vertical axes (mouse
    /// motion `MouseAxis:Y` and the gamepads' `…Y` axes) are inverted when `x` is not 0.
    /// The window sends it before its first events and whenever the setting changes; an
    /// input plugin that does not know it ignores it.
    pub const INVERT_Y: Self = Self(9);
    /// (2.13) A menu of the shell is up (`x` not 0: the main menu, the pause menu, the
    /// settings, a briefing or an outcome screen) or the game is (`x` = 0). The window
    /// sends it before its first events and whenever it changes. An input plugin that
    /// knows it maps only the bindings' `menu.*` and `game.*` actions while a menu is up
    /// (the pause keys close the pause menu) and spends
    /// the buttons held across the change (PD-INPUT-MENU-MODE), so the gamepad drives
    /// the menus and nothing pressed there reaches the game; one that does not ignores
    /// it.
    pub const MENU: Self = Self(10);
}

/// The keyboard as a [`DeviceInput::source`].
pub const SOURCE_KEYBOARD: u32 = 0;
/// The mouse as a [`DeviceInput::source`].
pub const SOURCE_MOUSE: u32 = 1;
/// Gamepad `n` is source `SOURCE_PAD0 + n`.
pub const SOURCE_PAD0: u32 = 2;

/// One event of a device in the engine's terms.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct DeviceInput {
    /// What happened.
    pub kind: DeviceInputKind,
    /// The device: [`SOURCE_KEYBOARD`], [`SOURCE_MOUSE`] or [`SOURCE_PAD0`]` + n`.
    pub source: u32,
    /// The input as `DEVICE:NAME` (`Key:A`, `Mouse:Left`, `MouseAxis:X`, …, the names
    /// of `config/bindings.ini`); empty for pointer, connect and disconnect events.
    pub input: RString,
    /// The axis value, the motion in pixels, or the pointer's X.
    pub x: f32,
    /// The pointer's Y (other kinds: 0).
    pub y: f32,
}

/// What an [`InputRecord`] is (an open number: compare with the constants).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputRecordKind(pub u32);

impl InputRecordKind {
    /// Key or button `code` went down (an edge; held until its `KEY_UP`).
    pub const KEY_DOWN: Self = Self(1);
    /// Key or button `code` went up.
    pub const KEY_UP: Self = Self(2);
    /// Axis `code` is now `value`.
    pub const AXIS: Self = Self(3);
    /// Manual command: `code` 0 `MCMD_STATE`, 1 `MCMD_ANGLE_X`, 2 `MCMD_ANGLE_Y`; `arg`.
    pub const MANUAL: Self = Self(4);
    /// Game command `code` with `arg`.
    pub const COMMAND: Self = Self(5);
}

/// One entry of the input log (what the kernel's per-tick snapshot is built from).
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct InputRecord {
    /// What it is.
    pub kind: InputRecordKind,
    /// Key, axis, manual kind or command code.
    pub code: u32,
    /// The axis value (other kinds: 0).
    pub value: f32,
    /// The manual or command argument (other kinds: 0).
    pub arg: i32,
}

impl InputRecord {
    /// `code` went down (`true`) or up.
    pub fn key(code: u32, down: bool) -> Self {
        Self {
            kind: if down {
                InputRecordKind::KEY_DOWN
            } else {
                InputRecordKind::KEY_UP
            },
            code,
            value: 0.0,
            arg: 0,
        }
    }

    /// Axis `code` is `value`.
    pub fn axis(code: u32, value: f32) -> Self {
        Self {
            kind: InputRecordKind::AXIS,
            code,
            value,
            arg: 0,
        }
    }

    /// Game command `code` with `arg`.
    pub fn command(code: u32, arg: i32) -> Self {
        Self {
            kind: InputRecordKind::COMMAND,
            code,
            value: 0.0,
            arg,
        }
    }
}

/// How the player's view is placed (an open number: compare with the constants).
#[repr(transparent)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ViewMode(pub u32);

impl ViewMode {
    /// A free camera.
    pub const FREE: Self = Self(0);
    /// The RTS overview (pan, zoom, rotate above the ground).
    pub const OVERVIEW: Self = Self(1);
    /// Following unit `subject`.
    pub const FOLLOW: Self = Self(2);
    /// Driving unit `subject` from its seat.
    pub const POSSESSED: Self = Self(3);
}

/// [`PlayerView::flags`]: the infrared view is on (`CMD_CAMERA_INFRARED`).
pub const VIEW_INFRARED: u32 = 1;
/// [`PlayerView::flags`]: the game is paused by the player (the simulation still ticks
/// the seat; the plugins decide what a pause stops).
pub const VIEW_PAUSED: u32 = 2;

/// Most units one [`crate::HostApi::set_player_view`] call may name as selected.
pub const MAX_SELECTED: usize = 4096;

/// Where the player looks, as the seat plugin publishes it once per tick.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq)]
pub struct PlayerView {
    /// The eye (world, Z up).
    pub eye: Vec3f,
    /// Horizontal angle (radians, 0 along +X, counter-clockwise), in `[0, 2π)`.
    pub yaw: f32,
    /// Vertical angle (radians, positive up).
    pub pitch: f32,
    /// Horizontal field of view (radians); 0: the engine's default.
    pub fov: f32,
    /// How the view is placed.
    pub mode: ViewMode,
    /// The followed or possessed unit's id (0: none).
    pub subject: u32,
    /// [`VIEW_INFRARED`], [`VIEW_PAUSED`].
    pub flags: u32,
}
