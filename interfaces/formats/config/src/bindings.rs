//! Input bindings: which keys, mouse buttons and gamepad controls drive which engine
//! action. A project format (the original sets its controls in its own menus):
//! `config/bindings.ini` ships the defaults, a user's
//! `$XDG_CONFIG_HOME/iron3d/bindings.ini` overrides them action by action
//! ([`Bindings::overlay`]).
//!
//! ```text
//! ; comments start with ';', '#' or '//'; blank lines are skipped
//! camera.left   = Key:Left, Key:A, Pad:DPadLeft
//! camera.pan_x  = PadAxis:LeftStickX
//! order.patrol  =            ; nothing: the action is unbound
//! ```
//!
//! * One binding per line: an action name ([`ACTIONS`], case-sensitive), `=`, then
//!   inputs separated by commas (possibly none).
//! * An input is `DEVICE:NAME`, both case-insensitive: `Key:` ([`KEYS`]), `Mouse:`
//!   ([`MOUSE_BUTTONS`]), `Pad:` ([`PAD_BUTTONS`]) — buttons, for button actions; and
//!   `PadAxis:` ([`PAD_AXES`]), `MouseAxis:` ([`MOUSE_AXES`]) — axes, for axis actions.
//! * Errors name the file, line and column: an unknown action or input, an input of
//!   the wrong kind for its action, an action bound twice in one file, and an input
//!   bound to two actions of the same mode (wherever the first binding came from).
//! * **Modes** ([`Action::modes`]): the player either commands from the overview
//!   ([`OVERVIEW`]: camera, selection and orders) or drives a possessed unit
//!   ([`POSSESSED`]: `unit.*`); `game.*` and the original's camera commands work in
//!   both. One input may drive one action per mode: `Key:W` can pan the overview
//!   camera and drive the possessed unit forward. The third mode, [`MENU`], is the
//!   shell's menus (`menu.*` and `game.*`, **PD-INPUT-MENU-MODE**): while a menu is up
//!   the D-pad moves its highlight instead of the camera, and the pause keys still
//!   close the pause menu.
//! * An overlay replaces whole actions: what a user's file names is bound exactly as
//!   it says; every other action keeps its default.

use crate::ConfigError;
use std::collections::BTreeMap;
use std::fmt;

/// Whether an action is pressed and released, or moves along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ActionKind {
    /// Pressed / held / released (keys and buttons).
    Button,
    /// A value in `[-1, 1]` (sticks, triggers, mouse motion).
    Axis,
}

impl ActionKind {
    /// `button` or `axis`.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Button => "button",
            ActionKind::Axis => "axis",
        }
    }
}

/// Mode bit: commanding from the overview (camera, selection, orders).
pub const OVERVIEW: u8 = 1;
/// Mode bit: driving a possessed unit.
pub const POSSESSED: u8 = 2;
/// Both game modes (the overview and a possessed unit; not the menus).
pub const BOTH: u8 = OVERVIEW | POSSESSED;
/// Mode bit: a menu of the shell is up (the main menu, the pause menu, the settings,
/// the briefing and outcome screens); the `menu.*` actions and the `game.*` ones (the
/// pause and the pause menu open and close from inside it) work in it.
pub const MENU: u8 = 4;
/// Every mode: the game's actions (`game.*`).
pub const ALL: u8 = OVERVIEW | POSSESSED | MENU;

/// An engine action a binding can drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    /// Its name in the file.
    pub name: &'static str,
    /// Button or axis.
    pub kind: ActionKind,
    /// The modes it works in ([`OVERVIEW`], [`POSSESSED`], [`MENU`]).
    pub modes: u8,
    /// What it does.
    pub doc: &'static str,
}

/// The modes an action of this name works in (by its group: `unit.*` possessed,
/// `menu.*` the menus, `game.*` all three, the original's camera commands both game
/// modes, the rest the overview).
const fn modes_of(name: &'static str) -> u8 {
    let b = name.as_bytes();
    if b.len() > 5 && b[0] == b'u' && b[1] == b'n' && b[2] == b'i' && b[3] == b't' && b[4] == b'.' {
        POSSESSED
    } else if b.len() > 5
        && b[0] == b'm'
        && b[1] == b'e'
        && b[2] == b'n'
        && b[3] == b'u'
        && b[4] == b'.'
    {
        MENU
    } else if b.len() > 5
        && b[0] == b'g'
        && b[1] == b'a'
        && b[2] == b'm'
        && b[3] == b'e'
        && b[4] == b'.'
    {
        ALL
    } else {
        OVERVIEW
    }
}

const fn button(name: &'static str, doc: &'static str) -> Action {
    Action {
        name,
        kind: ActionKind::Button,
        modes: modes_of(name),
        doc,
    }
}

/// A button action of both modes (the original's camera commands, possession).
const fn command(name: &'static str, doc: &'static str) -> Action {
    Action {
        name,
        kind: ActionKind::Button,
        modes: BOTH,
        doc,
    }
}

const fn axis(name: &'static str, doc: &'static str) -> Action {
    Action {
        name,
        kind: ActionKind::Axis,
        modes: modes_of(name),
        doc,
    }
}

/// Every action, in the order `iron3d bindings list` shows them.
pub const ACTIONS: &[Action] = &[
    command("camera.left", "turn the camera left (CMD_CAMERA_LEFT)"),
    command("camera.right", "turn the camera right (CMD_CAMERA_RIGHT)"),
    command("camera.up", "tilt the camera up (CMD_CAMERA_UP)"),
    command("camera.down", "tilt the camera down (CMD_CAMERA_DOWN)"),
    command("camera.center", "centre the camera (CMD_CAMERA_CENTER)"),
    command("camera.infrared", "infrared view (CMD_CAMERA_INFRARED)"),
    button("camera.mode", "next camera mode: free, overview, follow"),
    button("camera.zoom_in", "zoom in"),
    button("camera.zoom_out", "zoom out"),
    button("camera.pan_forward", "pan forward"),
    button("camera.pan_back", "pan back"),
    button("camera.pan_left", "pan left"),
    button("camera.pan_right", "pan right"),
    axis("camera.pan_x", "pan sideways"),
    axis("camera.pan_y", "pan forward and back"),
    axis("camera.look_x", "turn the camera"),
    axis("camera.look_y", "tilt the camera"),
    button("select", "select the unit under the pointer, or a box"),
    button("select.add", "add to the selection"),
    button(
        "order.move",
        "order the selection to the point under the pointer",
    ),
    button("order.attack", "order the selection to attack"),
    button("order.patrol", "order the selection to patrol"),
    button("order.harvest", "order the selection to harvest"),
    button("order.stop", "order the selection to stop"),
    command("unit.possess", "possess the selected unit, or leave it"),
    button("unit.forward", "possessed unit: drive forward"),
    button("unit.back", "possessed unit: drive back"),
    button("unit.turn_left", "possessed unit: turn left"),
    button("unit.turn_right", "possessed unit: turn right"),
    button("unit.fire", "possessed unit: fire"),
    axis("unit.throttle", "possessed unit: throttle"),
    axis("unit.steer", "possessed unit: steering"),
    axis("unit.aim_x", "possessed unit: turret yaw"),
    axis("unit.aim_y", "possessed unit: gun pitch"),
    button("game.pause", "pause and resume"),
    button("game.menu", "the pause menu"),
    // Appended (action codes are positions: earlier ones keep theirs).
    button("camera.drag", "hold: the mouse turns and tilts the camera"),
    axis("camera.drag_x", "turn the camera while camera.drag is held"),
    axis("camera.drag_y", "tilt the camera while camera.drag is held"),
    button("game.quick_save", "save the game into the quick slot"),
    button("game.quick_load", "load the quick slot's save"),
    button("menu.up", "menus: the line above"),
    button("menu.down", "menus: the line below"),
    button(
        "menu.left",
        "menus: step the setting down, or load the mod earlier",
    ),
    button(
        "menu.right",
        "menus: step the setting up, or load the mod later",
    ),
    button("menu.accept", "menus: choose the highlighted line"),
    button("menu.back", "menus: the page before, or back to the game"),
];

/// The file name of the bindings (`config/bindings.ini`, the user's overlay).
pub const BINDINGS_FILE: &str = "bindings.ini";

/// The user's bindings file: `$XDG_CONFIG_HOME/iron3d/bindings.ini`, else
/// `$HOME/.config/iron3d/bindings.ini` (`None` when neither variable is set).
pub fn user_file() -> Option<std::path::PathBuf> {
    user_dir().map(|d| d.join(BINDINGS_FILE))
}

/// The user's configuration directory of the engine: `$XDG_CONFIG_HOME/iron3d`, else
/// `~/.config/iron3d` (`None` when neither variable is set).
pub fn user_dir() -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("iron3d"))
}

/// The action called `name`.
pub fn action(name: &str) -> Option<&'static Action> {
    ACTIONS.iter().find(|a| a.name == name)
}

/// Keyboard key names (`Key:`).
pub const KEYS: &[&str] = &[
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "I",
    "J",
    "K",
    "L",
    "M",
    "N",
    "O",
    "P",
    "Q",
    "R",
    "S",
    "T",
    "U",
    "V",
    "W",
    "X",
    "Y",
    "Z",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "Left",
    "Right",
    "Up",
    "Down",
    "Space",
    "Enter",
    "Escape",
    "Tab",
    "Backspace",
    "Insert",
    "Delete",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "LeftShift",
    "RightShift",
    "LeftCtrl",
    "RightCtrl",
    "LeftAlt",
    "RightAlt",
    "Minus",
    "Equals",
    "Comma",
    "Period",
    "Slash",
    "Backslash",
    "Semicolon",
    "Quote",
    "Backquote",
    "LeftBracket",
    "RightBracket",
    "Pause",
    "CapsLock",
];
/// Mouse button names (`Mouse:`).
pub const MOUSE_BUTTONS: &[&str] = &[
    "Left",
    "Right",
    "Middle",
    "Back",
    "Forward",
    "WheelUp",
    "WheelDown",
];
/// Gamepad button names (`Pad:`; the positions of gilrs' `Button`).
pub const PAD_BUTTONS: &[&str] = &[
    "South",
    "East",
    "North",
    "West",
    "LeftTrigger",
    "LeftTrigger2",
    "RightTrigger",
    "RightTrigger2",
    "Select",
    "Start",
    "Mode",
    "LeftThumb",
    "RightThumb",
    "DPadUp",
    "DPadDown",
    "DPadLeft",
    "DPadRight",
];
/// Gamepad axis names (`PadAxis:`; gilrs' `Axis`).
pub const PAD_AXES: &[&str] = &[
    "LeftStickX",
    "LeftStickY",
    "LeftZ",
    "RightStickX",
    "RightStickY",
    "RightZ",
];
/// Mouse axis names (`MouseAxis:`: pointer motion).
pub const MOUSE_AXES: &[&str] = &["X", "Y"];

/// Which device an input is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Device {
    /// A keyboard key.
    Key,
    /// A mouse button (or a wheel step).
    Mouse,
    /// A gamepad button.
    Pad,
    /// A gamepad axis.
    PadAxis,
    /// Mouse motion.
    MouseAxis,
}

impl Device {
    /// The prefix in the file.
    pub fn prefix(self) -> &'static str {
        match self {
            Device::Key => "Key",
            Device::Mouse => "Mouse",
            Device::Pad => "Pad",
            Device::PadAxis => "PadAxis",
            Device::MouseAxis => "MouseAxis",
        }
    }

    /// The names this device knows.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Device::Key => KEYS,
            Device::Mouse => MOUSE_BUTTONS,
            Device::Pad => PAD_BUTTONS,
            Device::PadAxis => PAD_AXES,
            Device::MouseAxis => MOUSE_AXES,
        }
    }

    /// Button or axis.
    pub fn kind(self) -> ActionKind {
        match self {
            Device::Key | Device::Mouse | Device::Pad => ActionKind::Button,
            Device::PadAxis | Device::MouseAxis => ActionKind::Axis,
        }
    }

    const ALL: [Device; 5] = [
        Device::Key,
        Device::Mouse,
        Device::Pad,
        Device::PadAxis,
        Device::MouseAxis,
    ];
}

/// One input: a device and one of its names (in the canonical spelling).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Input {
    /// The device.
    pub device: Device,
    /// The canonical name ([`Device::names`]).
    pub name: &'static str,
}

impl Input {
    /// Reads `DEVICE:NAME` (both case-insensitive); `None` when either is unknown.
    pub fn parse(text: &str) -> Option<Input> {
        let (prefix, name) = text.split_once(':')?;
        let device = Device::ALL
            .into_iter()
            .find(|d| d.prefix().eq_ignore_ascii_case(prefix.trim()))?;
        let name = device
            .names()
            .iter()
            .find(|n| n.eq_ignore_ascii_case(name.trim()))?;
        Some(Input { device, name })
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.device.prefix(), self.name)
    }
}

/// Where a binding was written: file and 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file.
    pub origin: String,
    /// Line.
    pub line: usize,
    /// Column (bytes).
    pub column: usize,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.origin, self.line, self.column)
    }
}

/// One action's binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The action.
    pub action: &'static Action,
    /// Its inputs in file order, each with where it was written.
    pub inputs: Vec<(Input, Place)>,
    /// Where the line was written.
    pub place: Place,
    /// Which file of the stack it came from: 0 the parsed file, 1 its first overlay, …
    pub layer: u32,
}

/// A set of bindings: at most one per action, each input on at most one action.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    /// By action name.
    by_action: BTreeMap<&'static str, Binding>,
}

/// Characters of a token echoed in a message (the rest is cut and marked `…`).
const SHOWN_CHARS: usize = 64;

/// `token` as a message shows it: quoted and escaped like `{:?}`, cut to its first
/// [`SHOWN_CHARS`] characters (a token may be as long as the file).
fn shown(token: &str) -> String {
    match token.char_indices().nth(SHOWN_CHARS) {
        None => format!("{token:?}"),
        Some((cut, _)) => format!("\"{}…\"", token[..cut].escape_debug()),
    }
}

/// The 1-based column of `part` (a sub-slice of `line`) in `line`.
fn column(line: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(line.as_ptr() as usize) + 1
}

impl Bindings {
    /// Parses one bindings file (see the module docs); `origin` names it in errors.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Bindings, ConfigError> {
        let mut out = Bindings::default();
        for (k, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line_no = k + 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let line = std::str::from_utf8(raw).map_err(|e| {
                ConfigError::at(
                    origin,
                    line_no,
                    e.valid_up_to() + 1,
                    "not UTF-8 text".to_owned(),
                )
            })?;
            let cut = [";", "#", "//"]
                .iter()
                .filter_map(|c| line.find(c))
                .min()
                .unwrap_or(line.len());
            let text = &line[..cut];
            if text.trim().is_empty() {
                continue;
            }
            let at = |part: &str| Place {
                origin: origin.to_owned(),
                line: line_no,
                column: column(line, part),
            };
            let err = |part: &str, what: String| {
                let p = at(part);
                ConfigError::at(origin, p.line, p.column, what)
            };
            let Some((name, rest)) = text.split_once('=') else {
                let t = text.trim_start();
                return Err(err(t, "expected ACTION = INPUT, INPUT, ...".to_owned()));
            };
            let name = name.trim();
            let Some(action) = action(name) else {
                return Err(err(
                    if name.is_empty() { text } else { name },
                    format!(
                        "unknown action {} (`iron3d bindings list` shows them)",
                        shown(name)
                    ),
                ));
            };
            if let Some(first) = out.by_action.get(action.name) {
                return Err(err(
                    name,
                    format!(
                        "action {} is bound again (first at line {})",
                        action.name, first.place.line
                    ),
                ));
            }
            let mut inputs = Vec::new();
            for token in rest.split(',') {
                let t = token.trim();
                if t.is_empty() {
                    if rest.trim().is_empty() {
                        break;
                    }
                    return Err(err(token, "an empty input between commas".to_owned()));
                }
                let Some(input) = Input::parse(t) else {
                    return Err(err(
                        t,
                        format!(
                            "unknown input {}: use Key:, Mouse:, Pad:, PadAxis: or MouseAxis: with a known name",
                            shown(t)
                        ),
                    ));
                };
                if input.device.kind() != action.kind {
                    return Err(err(
                        t,
                        format!(
                            "{input} is a {} input; action {} takes {} inputs",
                            input.device.kind().name(),
                            action.name,
                            action.kind.name()
                        ),
                    ));
                }
                inputs.push((input, at(t)));
            }
            out.by_action.insert(
                action.name,
                Binding {
                    action,
                    inputs,
                    place: at(name),
                    layer: 0,
                },
            );
        }
        out.check_inputs()?;
        Ok(out)
    }

    /// Each input on at most one action per mode: the later binding (by layer, line,
    /// column) is the error.
    fn check_inputs(&self) -> Result<(), ConfigError> {
        let mut all: Vec<(&Input, u32, &Place, &'static Action)> = self
            .by_action
            .values()
            .flat_map(|b| b.inputs.iter().map(move |(i, p)| (i, b.layer, p, b.action)))
            .collect();
        all.sort_by(|a, b| (a.0, a.1, a.2.line, a.2.column).cmp(&(b.0, b.1, b.2.line, b.2.column)));
        for (k, &(i, _, again, b)) in all.iter().enumerate() {
            let earlier = all[..k]
                .iter()
                .rev()
                .take_while(|e| e.0 == i)
                .find(|e| e.3.modes & b.modes != 0);
            if let Some(&(_, _, first, a)) = earlier {
                return Err(ConfigError::at(
                    &again.origin,
                    again.line,
                    again.column,
                    format!(
                        "{i} is already bound to {} at {first}; it cannot drive {} too (both work {})",
                        a.name,
                        b.name,
                        if a.modes & b.modes & OVERVIEW != 0 {
                            "in the overview"
                        } else if a.modes & b.modes & POSSESSED != 0 {
                            "in a possessed unit"
                        } else {
                            "in the menus"
                        }
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Lays `over` (a user's file) on these bindings: each action it names is bound
    /// exactly as it says, the others keep theirs; an input left on two actions is an
    /// error naming both places.
    pub fn overlay(&mut self, over: Bindings) -> Result<(), ConfigError> {
        let mut merged = self.clone();
        let layer = self
            .by_action
            .values()
            .map(|b| b.layer + 1)
            .max()
            .unwrap_or(0);
        merged
            .by_action
            .extend(over.by_action.into_iter().map(|(k, mut b)| {
                b.layer += layer;
                (k, b)
            }));
        merged.check_inputs()?;
        *self = merged;
        Ok(())
    }

    /// The binding of action `name`.
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.by_action.get(name)
    }

    /// The action `input` drives in mode `mode` ([`OVERVIEW`], [`POSSESSED`] or [`MENU`]).
    pub fn action_of(&self, input: Input, mode: u8) -> Option<&'static Action> {
        self.by_action
            .values()
            .filter(|b| b.action.modes & mode != 0)
            .find(|b| b.inputs.iter().any(|(i, _)| *i == input))
            .map(|b| b.action)
    }

    /// The actions with no input (absent, or bound to nothing), in [`ACTIONS`] order.
    pub fn unbound(&self) -> Vec<&'static Action> {
        ACTIONS
            .iter()
            .filter(|a| self.get(a.name).is_none_or(|b| b.inputs.is_empty()))
            .collect()
    }

    /// Every binding, in [`ACTIONS`] order.
    pub fn iter(&self) -> impl Iterator<Item = &Binding> {
        ACTIONS.iter().filter_map(|a| self.get(a.name))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Bindings, ConfigError> {
        Bindings::parse(text.as_bytes(), "b.ini")
    }

    #[test]
    fn lines_bind_actions_to_inputs_case_insensitively() {
        let b = parse(
            "; defaults\r\ncamera.left = Key:Left, key:a , PAD:dpadleft // and the pad\r\n\r\n\
             camera.pan_x = PadAxis:LeftStickX\r\norder.patrol =\r\n",
        )
        .unwrap();
        let left = b.get("camera.left").unwrap();
        let names: Vec<String> = left.inputs.iter().map(|(i, _)| i.to_string()).collect();
        assert_eq!(names, ["Key:Left", "Key:A", "Pad:DPadLeft"]);
        assert_eq!((left.place.line, left.place.column), (2, 1));
        assert_eq!(left.inputs[1].1.column, 25);
        let a = Input::parse("Key:A").unwrap();
        assert_eq!(b.action_of(a, OVERVIEW).unwrap().name, "camera.left");
        assert_eq!(b.action_of(a, POSSESSED).unwrap().name, "camera.left");
        assert!(b.get("order.patrol").unwrap().inputs.is_empty());
        assert!(b.unbound().iter().any(|a| a.name == "order.patrol"));
        assert!(b.unbound().iter().any(|a| a.name == "game.pause"));
        assert!(!b.unbound().iter().any(|a| a.name == "camera.left"));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let cases = [
            ("camera.lefty = Key:A\n", 1, 1, "unknown action"),
            ("camera.left = Key:A, Key:Nope\n", 1, 22, "unknown input"),
            ("camera.left = Key:A,, Key:B\n", 1, 21, "empty input"),
            ("camera.left = PadAxis:LeftZ\n", 1, 15, "axis input"),
            ("camera.pan_x = Key:A\n", 1, 16, "button input"),
            (
                "camera.left = Key:A\ncamera.left = Key:B\n",
                2,
                1,
                "bound again (first at line 1)",
            ),
            (
                "camera.left = Key:A\n  camera.right = Key:a\n",
                2,
                18,
                "already bound to camera.left at b.ini:1:15",
            ),
            (
                "unit.fire = Key:G\ngame.menu = Key:G\n",
                2,
                13,
                "both work in a possessed unit",
            ),
            ("just words\n", 1, 1, "expected ACTION"),
            ("  = Key:A\n", 1, 1, "unknown action"),
        ];
        for (text, line, column, what) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!((e.line(), e.column()), (line, column), "{text:?}: {e}");
            assert!(e.message().contains(what), "{text:?}: {e}");
            assert_eq!(e.origin(), "b.ini");
        }
        let e = Bindings::parse(b"camera.left = Key:\xff\n", "b.ini").unwrap_err();
        assert_eq!((e.line(), e.column()), (1, 19));
    }

    #[test]
    fn oversized_tokens_are_cut_and_escaped_in_messages() {
        let long = format!("Key:\u{1b}[2J{}", "A".repeat(1 << 20));
        let e = parse(&format!("camera.left = {long}\n")).unwrap_err();
        assert_eq!((e.line(), e.column()), (1, 15), "{e}");
        assert!(
            e.message().starts_with(&format!(
                "unknown input \"Key:\\u{{1b}}[2J{}…\": ",
                "A".repeat(56)
            )),
            "{e}"
        );
        assert!(e.to_string().len() < 250, "{} bytes", e.to_string().len());
        let e = parse(&format!("{} = Key:A\n", "x".repeat(100_000))).unwrap_err();
        assert!(
            e.message()
                .starts_with(&format!("unknown action \"{}…\" (", "x".repeat(64))),
            "{e}"
        );
        // A short token is shown whole, as before.
        let e = parse("camera.left = Key:Nope\n").unwrap_err();
        assert!(e.message().starts_with("unknown input \"Key:Nope\""), "{e}");
    }

    #[test]
    fn an_overlay_replaces_whole_actions_and_checks_conflicts() {
        let mut b =
            parse("camera.left = Key:Left, Key:A\ncamera.right = Key:Right, Key:D\n").unwrap();
        let user = Bindings::parse(b"camera.left = Key:Q\n", "user.ini").unwrap();
        b.overlay(user).unwrap();
        let left: Vec<String> = b
            .get("camera.left")
            .unwrap()
            .inputs
            .iter()
            .map(|(i, _)| i.to_string())
            .collect();
        assert_eq!(left, ["Key:Q"]);
        assert_eq!(b.get("camera.left").unwrap().place.origin, "user.ini");
        // Key:A is free now; Key:D is still camera.right's.
        assert!(b.action_of(Input::parse("Key:A").unwrap(), BOTH).is_none());
        // The overlay's side is the error whatever the files are called.
        let clash = Bindings::parse(b"camera.left = Key:D\n", "a.ini").unwrap();
        let before = b.clone();
        let e = b.overlay(clash).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.ini:1:15: Key:D is already bound to camera.right at b.ini:2:27; it cannot drive camera.left too (both work in the overview)"
        );
        assert_eq!(b, before, "a refused overlay changes nothing");
    }

    #[test]
    fn one_input_drives_one_action_per_mode() {
        // W pans the overview camera and drives the possessed unit.
        let b = parse("camera.pan_forward = Key:W\nunit.forward = Key:W\n").unwrap();
        let w = Input::parse("Key:W").unwrap();
        assert_eq!(b.action_of(w, OVERVIEW).unwrap().name, "camera.pan_forward");
        assert_eq!(b.action_of(w, POSSESSED).unwrap().name, "unit.forward");
        assert_eq!(action("game.pause").unwrap().modes, ALL);
        assert_eq!(action("camera.left").unwrap().modes, BOTH);
        assert_eq!(action("order.move").unwrap().modes, OVERVIEW);
        assert_eq!(action("unit.aim_x").unwrap().modes, POSSESSED);
        assert_eq!(action("menu.accept").unwrap().modes, MENU);
    }

    /// PD-INPUT-MENU-MODE: the D-pad moves the camera in the game and the highlight in
    /// the menus; two menu actions on one input clash, named "in the menus".
    #[test]
    fn the_menus_are_a_mode_of_their_own() {
        let b = parse("camera.up = Pad:DPadUp\nmenu.up = Pad:DPadUp\n").unwrap();
        let up = Input::parse("Pad:DPadUp").unwrap();
        assert_eq!(b.action_of(up, OVERVIEW).unwrap().name, "camera.up");
        assert_eq!(b.action_of(up, POSSESSED).unwrap().name, "camera.up");
        assert_eq!(b.action_of(up, MENU).unwrap().name, "menu.up");
        let e = parse("menu.up = Pad:South\nmenu.accept = Pad:South\n").unwrap_err();
        assert!(e.to_string().ends_with("(both work in the menus)"), "{e}");
        for a in ACTIONS.iter().filter(|a| a.name.starts_with("menu.")) {
            assert_eq!((a.modes, a.kind), (MENU, ActionKind::Button), "{}", a.name);
        }
        // The pause keys work in the menus too: Escape closes the pause menu it opened.
        let esc = Input::parse("Key:Escape").unwrap();
        let b = parse("game.menu = Key:Escape\n").unwrap();
        assert_eq!(b.action_of(esc, MENU).unwrap().name, "game.menu");
        let e = parse("game.menu = Pad:Start\nmenu.back = Pad:Start\n").unwrap_err();
        assert!(e.to_string().ends_with("(both work in the menus)"), "{e}");
    }

    #[test]
    fn every_name_reads_back_as_itself() {
        for d in Device::ALL {
            for n in d.names() {
                let i = Input::parse(&format!("{}:{n}", d.prefix())).unwrap();
                assert_eq!((i.device, i.name), (d, *n));
            }
        }
        let mut names: Vec<&str> = ACTIONS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ACTIONS.len(), "action names are unique");
    }
}
