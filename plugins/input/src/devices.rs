//! The device side (outside the simulation): the window's events as the engine hands
//! them over, gamepads through gilrs, and the conversion of the mapper's action events
//! into the input log's records.

use iron3d_abi::{
    DeviceInput, DeviceInputKind, InputRecord, SOURCE_KEYBOARD, SOURCE_MOUSE, SOURCE_PAD0,
};
use iron3d_input::{ActionEvent, DeviceEvent, Input, POINTER_X, POINTER_Y, Source, action_code};

/// The engine's source number as a [`Source`].
pub fn source_of(n: u32) -> Option<Source> {
    match n {
        SOURCE_KEYBOARD => Some(Source::Keyboard),
        SOURCE_MOUSE => Some(Source::Mouse),
        n => Some(Source::Pad(n.checked_sub(SOURCE_PAD0)?)),
    }
}

/// The device event of one window event; `None` for what the seat does not use (an
/// unknown input name, a viewport change, an unknown kind).
pub fn device_event(d: &DeviceInput) -> Option<DeviceEvent> {
    let source = source_of(d.source);
    let input = || Input::parse(d.input.as_str());
    Some(match d.kind {
        DeviceInputKind::BUTTON_DOWN | DeviceInputKind::BUTTON_UP => DeviceEvent::Button {
            source: source?,
            input: input()?,
            down: d.kind == DeviceInputKind::BUTTON_DOWN,
        },
        DeviceInputKind::AXIS => DeviceEvent::Axis {
            source: source?,
            input: input()?,
            value: d.x,
        },
        DeviceInputKind::MOTION => DeviceEvent::Motion {
            input: input()?,
            delta: d.x,
        },
        DeviceInputKind::POINTER => DeviceEvent::Pointer { x: d.x, y: d.y },
        DeviceInputKind::CONNECTED => DeviceEvent::Connected(source?),
        DeviceInputKind::DISCONNECTED => DeviceEvent::Disconnected(source?),
        _ => return None,
    })
}

/// The input log's records of the mapper's action events, in order.
pub fn records(events: &[ActionEvent], out: &mut Vec<InputRecord>) {
    for e in events {
        match *e {
            ActionEvent::Press(a) | ActionEvent::Release(a) => {
                if let Some(c) = action_code(a) {
                    out.push(InputRecord::key(c, matches!(e, ActionEvent::Press(_))));
                }
            }
            ActionEvent::Axis(a, v) => {
                if let Some(c) = action_code(a) {
                    out.push(InputRecord::axis(c, v));
                }
            }
            ActionEvent::Pointer(x, y) => {
                out.push(InputRecord::axis(POINTER_X, x));
                out.push(InputRecord::axis(POINTER_Y, y));
            }
        }
    }
}

/// gilrs' button as a `Pad:` input name.
fn pad_button(b: gilrs::Button) -> Option<&'static str> {
    use gilrs::Button as B;
    Some(match b {
        B::South => "South",
        B::East => "East",
        B::North => "North",
        B::West => "West",
        B::LeftTrigger => "LeftTrigger",
        B::LeftTrigger2 => "LeftTrigger2",
        B::RightTrigger => "RightTrigger",
        B::RightTrigger2 => "RightTrigger2",
        B::Select => "Select",
        B::Start => "Start",
        B::Mode => "Mode",
        B::LeftThumb => "LeftThumb",
        B::RightThumb => "RightThumb",
        B::DPadUp => "DPadUp",
        B::DPadDown => "DPadDown",
        B::DPadLeft => "DPadLeft",
        B::DPadRight => "DPadRight",
        _ => return None,
    })
}

/// gilrs' axis as a `PadAxis:` input name.
fn pad_axis(a: gilrs::Axis) -> Option<&'static str> {
    use gilrs::Axis as A;
    Some(match a {
        A::LeftStickX => "LeftStickX",
        A::LeftStickY => "LeftStickY",
        A::LeftZ => "LeftZ",
        A::RightStickX => "RightStickX",
        A::RightStickY => "RightStickY",
        A::RightZ => "RightZ",
        _ => return None,
    })
}

fn parsed(prefix: &str, name: &str) -> Option<Input> {
    Input::parse(&format!("{prefix}:{name}"))
}

/// The gamepads (gilrs), numbered in connection order: a pad gets the lowest number
/// not in use, and keeps it until it disconnects.
pub struct Pads {
    gilrs: gilrs::Gilrs,
    /// Connected pads and their numbers.
    numbers: Vec<(gilrs::GamepadId, u32)>,
}

impl Pads {
    /// Opens the gamepad layer; `None` (with a message on the `Input` channel) when the
    /// platform has none — the game plays on with keyboard and mouse.
    pub fn open() -> Option<Self> {
        match gilrs::Gilrs::new() {
            Ok(gilrs) => {
                let mut p = Self {
                    gilrs,
                    numbers: Vec::new(),
                };
                let ids: Vec<gilrs::GamepadId> = p.gilrs.gamepads().map(|(id, _)| id).collect();
                for id in ids {
                    p.number(id);
                }
                tracing::info!(target: "Input", pads = p.numbers.len(), "gamepad layer ready");
                Some(p)
            }
            Err(e) => {
                tracing::warn!(target: "Input", error = %e, "no gamepad layer: keyboard and mouse only");
                None
            }
        }
    }

    fn number(&mut self, id: gilrs::GamepadId) -> u32 {
        if let Some(&(_, n)) = self.numbers.iter().find(|e| e.0 == id) {
            return n;
        }
        let n = (0..)
            .find(|n| !self.numbers.iter().any(|e| e.1 == *n))
            .unwrap_or(0);
        self.numbers.push((id, n));
        n
    }

    /// The gamepads' events since the last call, in arrival order.
    pub fn poll(&mut self, out: &mut Vec<DeviceEvent>) {
        use gilrs::EventType as E;
        while let Some(ev) = self.gilrs.next_event() {
            let pad = Source::Pad(self.number(ev.id));
            match ev.event {
                E::Connected => out.push(DeviceEvent::Connected(pad)),
                E::Disconnected => {
                    out.push(DeviceEvent::Disconnected(pad));
                    self.numbers.retain(|e| e.0 != ev.id);
                }
                E::ButtonPressed(b, _) | E::ButtonReleased(b, _) => {
                    if let Some(input) = pad_button(b).and_then(|n| parsed("Pad", n)) {
                        out.push(DeviceEvent::Button {
                            source: pad,
                            input,
                            down: matches!(ev.event, E::ButtonPressed(..)),
                        });
                    }
                }
                E::AxisChanged(a, v, _) => {
                    if let Some(input) = pad_axis(a).and_then(|n| parsed("PadAxis", n)) {
                        out.push(DeviceEvent::Axis {
                            source: pad,
                            input,
                            value: v,
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_abi::abi_stable::std_types::RString;

    fn dev(kind: DeviceInputKind, source: u32, input: &str, x: f32) -> DeviceInput {
        DeviceInput {
            kind,
            source,
            input: RString::from(input),
            x,
            y: 0.0,
        }
    }

    #[test]
    fn window_events_become_device_events_and_unknown_ones_are_dropped() {
        assert_eq!(
            device_event(&dev(DeviceInputKind::BUTTON_DOWN, 0, "Key:W", 0.0)),
            Some(DeviceEvent::Button {
                source: Source::Keyboard,
                input: Input::parse("Key:W").unwrap(),
                down: true
            })
        );
        assert_eq!(
            device_event(&dev(
                DeviceInputKind::DISCONNECTED,
                SOURCE_PAD0 + 2,
                "",
                0.0
            )),
            Some(DeviceEvent::Disconnected(Source::Pad(2)))
        );
        assert_eq!(
            device_event(&dev(DeviceInputKind::BUTTON_DOWN, 0, "Key:Nope", 0.0)),
            None
        );
        assert_eq!(
            device_event(&dev(DeviceInputKind(99), 0, "Key:W", 0.0)),
            None
        );
        assert_eq!(
            device_event(&dev(DeviceInputKind::VIEWPORT, 0, "", 640.0)),
            None
        );
    }

    #[test]
    fn every_gilrs_name_is_a_known_input() {
        use gilrs::{Axis, Button};
        for b in [
            Button::South,
            Button::East,
            Button::North,
            Button::West,
            Button::LeftTrigger,
            Button::LeftTrigger2,
            Button::RightTrigger,
            Button::RightTrigger2,
            Button::Select,
            Button::Start,
            Button::Mode,
            Button::LeftThumb,
            Button::RightThumb,
            Button::DPadUp,
            Button::DPadDown,
            Button::DPadLeft,
            Button::DPadRight,
        ] {
            assert!(
                pad_button(b).and_then(|n| parsed("Pad", n)).is_some(),
                "{b:?}"
            );
        }
        for a in [
            Axis::LeftStickX,
            Axis::LeftStickY,
            Axis::LeftZ,
            Axis::RightStickX,
            Axis::RightStickY,
            Axis::RightZ,
        ] {
            assert!(
                pad_axis(a).and_then(|n| parsed("PadAxis", n)).is_some(),
                "{a:?}"
            );
        }
    }

    #[test]
    fn action_events_become_records_with_the_stable_codes() {
        let mut out = Vec::new();
        records(
            &[
                ActionEvent::Press("select"),
                ActionEvent::Axis("unit.steer", 0.5),
                ActionEvent::Pointer(0.25, 0.75),
            ],
            &mut out,
        );
        assert_eq!(
            out,
            [
                InputRecord::key(action_code("select").unwrap(), true),
                InputRecord::axis(action_code("unit.steer").unwrap(), 0.5),
                InputRecord::axis(POINTER_X, 0.25),
                InputRecord::axis(POINTER_Y, 0.75),
            ]
        );
    }
}
