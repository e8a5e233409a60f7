//! Live input of `iron3d play`: the window's keyboard and mouse events in the engine's
//! terms ([`iron3d_abi::DeviceInput`]), handed once per presented frame to the input
//! slot's plugin ([`PluginHost::poll_input`]), whose answer becomes the next tick's
//! input snapshot. Events that arrive while no tick runs (a paused game, a frame
//! without a due tick) wait for the next tick, so no edge is lost or repeated.

use iron3d_abi::abi_stable::std_types::RString;
use iron3d_abi::{DeviceInput, DeviceInputKind, SOURCE_KEYBOARD, SOURCE_MOUSE};
use iron3d_kernel::{InputEvent, InputSource};
use iron3d_plugin_host::PluginHost;
use winit::event::MouseButton;
use winit::keyboard::KeyCode;

/// Waiting events beyond this are compacted (only the last value of each axis kept:
/// the snapshot keeps the last value anyway, so nothing changes).
pub const COMPACT_AT: usize = 1024;

/// The `Key:` input name of a winit key (the names of `config/bindings.ini`).
pub fn key_input(code: KeyCode) -> Option<&'static str> {
    use KeyCode as K;
    Some(match code {
        K::KeyA => "Key:A",
        K::KeyB => "Key:B",
        K::KeyC => "Key:C",
        K::KeyD => "Key:D",
        K::KeyE => "Key:E",
        K::KeyF => "Key:F",
        K::KeyG => "Key:G",
        K::KeyH => "Key:H",
        K::KeyI => "Key:I",
        K::KeyJ => "Key:J",
        K::KeyK => "Key:K",
        K::KeyL => "Key:L",
        K::KeyM => "Key:M",
        K::KeyN => "Key:N",
        K::KeyO => "Key:O",
        K::KeyP => "Key:P",
        K::KeyQ => "Key:Q",
        K::KeyR => "Key:R",
        K::KeyS => "Key:S",
        K::KeyT => "Key:T",
        K::KeyU => "Key:U",
        K::KeyV => "Key:V",
        K::KeyW => "Key:W",
        K::KeyX => "Key:X",
        K::KeyY => "Key:Y",
        K::KeyZ => "Key:Z",
        K::Digit0 => "Key:0",
        K::Digit1 => "Key:1",
        K::Digit2 => "Key:2",
        K::Digit3 => "Key:3",
        K::Digit4 => "Key:4",
        K::Digit5 => "Key:5",
        K::Digit6 => "Key:6",
        K::Digit7 => "Key:7",
        K::Digit8 => "Key:8",
        K::Digit9 => "Key:9",
        K::F1 => "Key:F1",
        K::F2 => "Key:F2",
        K::F3 => "Key:F3",
        K::F4 => "Key:F4",
        K::F5 => "Key:F5",
        K::F6 => "Key:F6",
        K::F7 => "Key:F7",
        K::F8 => "Key:F8",
        K::F9 => "Key:F9",
        K::F10 => "Key:F10",
        K::F11 => "Key:F11",
        K::F12 => "Key:F12",
        K::ArrowLeft => "Key:Left",
        K::ArrowRight => "Key:Right",
        K::ArrowUp => "Key:Up",
        K::ArrowDown => "Key:Down",
        K::Space => "Key:Space",
        K::Enter | K::NumpadEnter => "Key:Enter",
        K::Escape => "Key:Escape",
        K::Tab => "Key:Tab",
        K::Backspace => "Key:Backspace",
        K::Insert => "Key:Insert",
        K::Delete => "Key:Delete",
        K::Home => "Key:Home",
        K::End => "Key:End",
        K::PageUp => "Key:PageUp",
        K::PageDown => "Key:PageDown",
        K::ShiftLeft => "Key:LeftShift",
        K::ShiftRight => "Key:RightShift",
        K::ControlLeft => "Key:LeftCtrl",
        K::ControlRight => "Key:RightCtrl",
        K::AltLeft => "Key:LeftAlt",
        K::AltRight => "Key:RightAlt",
        K::Minus | K::NumpadSubtract => "Key:Minus",
        K::Equal | K::NumpadAdd => "Key:Equals",
        K::Comma => "Key:Comma",
        K::Period => "Key:Period",
        K::Slash => "Key:Slash",
        K::Backslash => "Key:Backslash",
        K::Semicolon => "Key:Semicolon",
        K::Quote => "Key:Quote",
        K::Backquote => "Key:Backquote",
        K::BracketLeft => "Key:LeftBracket",
        K::BracketRight => "Key:RightBracket",
        K::Pause => "Key:Pause",
        K::CapsLock => "Key:CapsLock",
        _ => return None,
    })
}

/// The `Mouse:` input name of a winit mouse button.
pub fn mouse_input(b: MouseButton) -> Option<&'static str> {
    Some(match b {
        MouseButton::Left => "Mouse:Left",
        MouseButton::Right => "Mouse:Right",
        MouseButton::Middle => "Mouse:Middle",
        MouseButton::Back => "Mouse:Back",
        MouseButton::Forward => "Mouse:Forward",
        MouseButton::Other(_) => return None,
    })
}

fn device(kind: DeviceInputKind, source: u32, input: &str, x: f32, y: f32) -> DeviceInput {
    DeviceInput {
        kind,
        source,
        input: RString::from(input),
        x,
        y,
    }
}

/// The window's events waiting for the input plugin, and its answers waiting for a tick.
#[derive(Default)]
pub struct LiveInput {
    pending: Vec<DeviceInput>,
    ready: Vec<InputEvent>,
    held_keys: Vec<&'static str>,
    held_buttons: Vec<&'static str>,
    /// The game commands (pause, menu) the last poll answered, pressed this frame.
    pub pressed: Vec<u32>,
    /// Input plugin failures so far (each logged).
    pub failures: u64,
    /// Mouse motion scale and direction (the player's settings).
    pub mouse: MouseTuning,
    /// The "invert Y" the input plugin was last told (`None`: not yet).
    told_invert_y: Option<bool>,
    /// A menu of the shell is up: the input plugin is told with every poll (2.13,
    /// `DeviceInputKind::MENU`; a plugin swapped in meanwhile learns it at once).
    menu: bool,
    /// The `menu.*` actions the plugin answered pressed since the shell last took them.
    menu_presses: Vec<&'static str>,
}

/// How mouse motion is passed on (the settings' `mouse_sensitivity`) and whether the
/// input plugin inverts the vertical axes (`invert_y`, sent as
/// `DeviceInputKind::INVERT_Y`: the plugin inverts mouse and gamepad alike).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MouseTuning {
    /// Motion is multiplied by this.
    pub sensitivity: f32,
    /// The vertical axes change sign (mouse and gamepads, in the input plugin).
    pub invert_y: bool,
}

impl Default for MouseTuning {
    fn default() -> Self {
        Self {
            sensitivity: 1.0,
            invert_y: false,
        }
    }
}

impl From<&iron3d_config::settings::Input> for MouseTuning {
    fn from(i: &iron3d_config::settings::Input) -> Self {
        Self {
            sensitivity: i.mouse_sensitivity,
            invert_y: i.invert_y,
        }
    }
}

impl LiveInput {
    /// Live input passing mouse motion on with `mouse`.
    pub fn with_mouse(mouse: MouseTuning) -> Self {
        Self {
            mouse,
            ..Self::default()
        }
    }

    /// A key went down or up (repeats of a held key are not events).
    pub fn key(&mut self, code: KeyCode, down: bool) {
        if let Some(name) = key_input(code) {
            if toggle(&mut self.held_keys, name, down) {
                self.button(SOURCE_KEYBOARD, name, down);
            }
        }
    }

    /// A menu of the shell is up (`true`) or the game is: from the next poll the input
    /// plugin maps only the bindings' `menu.*` and `game.*` actions (PD-INPUT-MENU-MODE).
    pub fn set_menu(&mut self, on: bool) {
        self.menu = on;
    }

    /// The `menu.*` actions pressed (in order) since the last call: the shell's, never
    /// the simulation's (they are kept out of the tick's input).
    pub fn take_menu_presses(&mut self) -> Vec<&'static str> {
        std::mem::take(&mut self.menu_presses)
    }

    /// Button `name` (`Pad:South`, …) of gamepad `pad` went down or up, as the input
    /// plugin's own gamepad layer reports a real one: a virtual pad for tests and
    /// automation (the plugin maps it through the same bindings).
    pub fn pad_button(&mut self, pad: u32, name: &str, down: bool) {
        self.button(iron3d_abi::SOURCE_PAD0.saturating_add(pad), name, down);
    }

    /// A mouse button went down or up.
    pub fn mouse(&mut self, b: MouseButton, down: bool) {
        if let Some(name) = mouse_input(b) {
            if toggle(&mut self.held_buttons, name, down) {
                self.button(SOURCE_MOUSE, name, down);
            }
        }
    }

    fn button(&mut self, source: u32, name: &str, down: bool) {
        let kind = if down {
            DeviceInputKind::BUTTON_DOWN
        } else {
            DeviceInputKind::BUTTON_UP
        };
        self.pending.push(device(kind, source, name, 0.0, 0.0));
    }

    /// Wheel steps (positive: up), each a press and a release of `Mouse:WheelUp` /
    /// `Mouse:WheelDown`.
    pub fn wheel(&mut self, steps: i32) {
        let name = if steps > 0 {
            "Mouse:WheelUp"
        } else {
            "Mouse:WheelDown"
        };
        for _ in 0..steps.unsigned_abs().min(8) {
            self.button(SOURCE_MOUSE, name, true);
            self.button(SOURCE_MOUSE, name, false);
        }
    }

    /// The pointer moved to `(x, y)` pixels in a `width × height` window, by `(dx, dy)`.
    pub fn pointer(&mut self, x: f32, y: f32, width: u32, height: u32, delta: Option<(f32, f32)>) {
        let (w, h) = (width.max(1) as f32, height.max(1) as f32);
        self.pending.push(device(
            DeviceInputKind::POINTER,
            SOURCE_MOUSE,
            "",
            x / w,
            y / h,
        ));
        if let Some((dx, dy)) = delta {
            let m = self.mouse;
            let (dx, dy) = (dx * m.sensitivity, dy * m.sensitivity);
            for (axis, d) in [("MouseAxis:X", dx), ("MouseAxis:Y", dy)] {
                if d != 0.0 {
                    self.pending
                        .push(device(DeviceInputKind::MOTION, SOURCE_MOUSE, axis, d, 0.0));
                }
            }
        }
    }

    /// The drawable area is `width × height` pixels.
    pub fn viewport(&mut self, width: u32, height: u32) {
        self.pending.push(device(
            DeviceInputKind::VIEWPORT,
            SOURCE_KEYBOARD,
            "",
            width as f32,
            height as f32,
        ));
    }

    /// The window lost the focus: every held key and button is released (a key let go
    /// elsewhere never stays held in the game).
    pub fn focus_lost(&mut self) {
        for k in std::mem::take(&mut self.held_keys) {
            self.button(SOURCE_KEYBOARD, k, false);
        }
        for b in std::mem::take(&mut self.held_buttons) {
            self.button(SOURCE_MOUSE, b, false);
        }
    }

    /// Hands the waiting window events to the input plugin; its answer waits for the
    /// next tick. A failing plugin is logged and its events are lost (the host rolls a
    /// panicking one back); the game goes on.
    pub fn poll(&mut self, host: &PluginHost) {
        let window = self.take_window();
        self.pressed.clear();
        match host.poll_input(&window) {
            Ok(events) => {
                for e in events {
                    if let InputEvent::Key { code, down } = e {
                        // The menus' actions are the shell's: not the tick's input.
                        if let Some(a) = iron3d_input::action_of_code(code)
                            .filter(|a| a.modes == iron3d_input::MENU)
                        {
                            if down {
                                self.menu_presses.push(a.name);
                            }
                            continue;
                        }
                        if down {
                            self.pressed.push(code);
                        }
                    }
                    self.ready.push(e);
                }
            }
            Err(e) => {
                self.failures += 1;
                tracing::warn!(target: "Input", error = %e, "the input plugin failed: this frame's input is lost");
            }
        }
        if self.ready.len() > COMPACT_AT {
            compact(&mut self.ready);
        }
    }
}

impl LiveInput {
    /// The window events for the input plugin, oldest first: whether a menu is up
    /// first, then the "invert Y" setting when the plugin has not been told its current
    /// value yet.
    fn take_window(&mut self) -> Vec<DeviceInput> {
        let mut window = Vec::with_capacity(self.pending.len() + 2);
        window.push(device(
            DeviceInputKind::MENU,
            SOURCE_KEYBOARD,
            "",
            f32::from(u8::from(self.menu)),
            0.0,
        ));
        if self.told_invert_y != Some(self.mouse.invert_y) {
            self.told_invert_y = Some(self.mouse.invert_y);
            window.push(device(
                DeviceInputKind::INVERT_Y,
                SOURCE_KEYBOARD,
                "",
                f32::from(u8::from(self.mouse.invert_y)),
                0.0,
            ));
        }
        window.append(&mut self.pending);
        window
    }
}

/// Records `name` as held (`down`) or not; `false` when that is no change (a repeat).
fn toggle(held: &mut Vec<&'static str>, name: &'static str, down: bool) -> bool {
    if down == held.contains(&name) {
        return false;
    }
    if down {
        held.push(name);
    } else {
        held.retain(|k| *k != name);
    }
    true
}

/// Keeps every key, manual and command event and only the last value of each axis.
fn compact(events: &mut Vec<InputEvent>) {
    let mut last = std::collections::BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        if let InputEvent::Axis { axis, .. } = e {
            last.insert(*axis, i);
        }
    }
    let mut i = 0;
    events.retain(|e| {
        let keep = match e {
            InputEvent::Axis { axis, .. } => last.get(axis) == Some(&i),
            _ => true,
        };
        i += 1;
        keep
    });
}

impl LiveInput {
    /// The input plugin's answers waiting for the next tick, taken (a match hands them
    /// to the net plugin instead of the kernel).
    pub fn take_ready(&mut self) -> Vec<InputEvent> {
        std::mem::take(&mut self.ready)
    }
}

impl InputSource for LiveInput {
    fn events_for_tick(&mut self, _tick: u64) -> Vec<InputEvent> {
        self.take_ready()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_config::bindings::Input;

    #[test]
    fn every_mapped_key_is_a_known_input() {
        use KeyCode as K;
        for k in [
            K::KeyA,
            K::Digit0,
            K::F12,
            K::ArrowLeft,
            K::Enter,
            K::ShiftLeft,
            K::Equal,
            K::BracketRight,
            K::Pause,
            K::CapsLock,
        ] {
            let name = key_input(k).unwrap();
            assert!(Input::parse(name).is_some(), "{name}");
        }
        for b in [MouseButton::Left, MouseButton::Forward] {
            assert!(Input::parse(mouse_input(b).unwrap()).is_some());
        }
    }

    #[test]
    fn key_repeats_are_not_events_and_focus_loss_releases_everything() {
        let mut l = LiveInput::default();
        l.key(KeyCode::KeyW, true);
        l.key(KeyCode::KeyW, true);
        l.mouse(MouseButton::Left, true);
        assert_eq!(l.pending.len(), 2);
        l.focus_lost();
        let ups: Vec<&str> = l.pending[2..].iter().map(|d| d.input.as_str()).collect();
        assert_eq!(ups, ["Key:W", "Mouse:Left"]);
        assert!(
            l.pending[2..]
                .iter()
                .all(|d| d.kind == DeviceInputKind::BUTTON_UP)
        );
        l.focus_lost();
        assert_eq!(l.pending.len(), 4);
    }

    #[test]
    fn mouse_motion_follows_the_sensitivity_and_the_plugin_is_told_invert_y() {
        let motion = |l: &LiveInput| -> Vec<(String, f32)> {
            l.pending
                .iter()
                .filter(|d| d.kind == DeviceInputKind::MOTION)
                .map(|d| (d.input.to_string(), d.x))
                .collect()
        };
        let mut l = LiveInput::default();
        l.pointer(10.0, 10.0, 100, 100, Some((4.0, -2.0)));
        assert_eq!(
            motion(&l),
            [("MouseAxis:X".into(), 4.0), ("MouseAxis:Y".into(), -2.0)]
        );
        let mut l = LiveInput::with_mouse(MouseTuning {
            sensitivity: 2.5,
            invert_y: true,
        });
        l.pointer(10.0, 10.0, 100, 100, Some((4.0, -2.0)));
        // Scaled here; inverted by the input plugin, for mouse and pads alike.
        assert_eq!(
            motion(&l),
            [("MouseAxis:X".into(), 10.0), ("MouseAxis:Y".into(), -5.0)]
        );
        // The pointer's place is not scaled (picking stays under the cursor).
        assert_eq!(l.pending[0].x, 0.1);
        // The plugin is told the setting before the first events, then on each change.
        let kinds = |w: &[DeviceInput]| w.iter().map(|d| (d.kind, d.x)).collect::<Vec<_>>();
        let w = l.take_window();
        assert_eq!(kinds(&w)[1], (DeviceInputKind::INVERT_Y, 1.0));
        assert_eq!(
            w.len(),
            5,
            "the menu, the setting, the pointer, two motions"
        );
        let menu_only = [(DeviceInputKind::MENU, 0.0)];
        assert_eq!(kinds(&l.take_window()), menu_only, "told once");
        l.mouse.invert_y = false;
        assert_eq!(
            kinds(&l.take_window()),
            [
                (DeviceInputKind::MENU, 0.0),
                (DeviceInputKind::INVERT_Y, 0.0)
            ]
        );
        // Whether a menu is up goes with every poll (a plugin swapped in learns it).
        l.set_menu(true);
        assert_eq!(kinds(&l.take_window()), [(DeviceInputKind::MENU, 1.0)]);
        assert_eq!(kinds(&l.take_window()), [(DeviceInputKind::MENU, 1.0)]);
    }

    #[test]
    fn compaction_keeps_edges_and_the_last_axis_values() {
        let mut v = vec![
            InputEvent::Axis {
                axis: 1,
                value: 0.1,
            },
            InputEvent::Key {
                code: 5,
                down: true,
            },
            InputEvent::Axis {
                axis: 1,
                value: 0.2,
            },
            InputEvent::Axis {
                axis: 2,
                value: 0.3,
            },
            InputEvent::Key {
                code: 5,
                down: false,
            },
        ];
        compact(&mut v);
        assert_eq!(
            v,
            [
                InputEvent::Key {
                    code: 5,
                    down: true
                },
                InputEvent::Axis {
                    axis: 1,
                    value: 0.2
                },
                InputEvent::Axis {
                    axis: 2,
                    value: 0.3
                },
                InputEvent::Key {
                    code: 5,
                    down: false
                },
            ]
        );
    }
}
