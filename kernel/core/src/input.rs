//! Input events and the per-tick input snapshot (edge, held and analog state, manual commands).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Manual command kinds of the original (`MCMD_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ManualCommandKind {
    /// `MCMD_STATE`.
    State,
    /// `MCMD_ANGLE_X`.
    AngleX,
    /// `MCMD_ANGLE_Y`.
    AngleY,
}

/// One raw input event, as recorded in replay logs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputEvent {
    /// A key or button changed state.
    Key {
        /// Key / button code.
        code: u32,
        /// Pressed (true) or released.
        down: bool,
    },
    /// An analog axis moved.
    Axis {
        /// Axis number.
        axis: u32,
        /// New value, usually in `[-1, 1]`.
        value: f32,
    },
    /// A manual command (`MCMD_STATE`, `MCMD_ANGLE_X`, `MCMD_ANGLE_Y`).
    Manual {
        /// Command kind.
        kind: ManualCommandKind,
        /// Argument.
        value: i32,
    },
    /// A game command from the shell or a script (meaning set by the systems that read it).
    Command {
        /// Command code.
        code: u32,
        /// Argument.
        arg: i32,
    },
}

/// Input state for one simulation tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputSnapshot {
    /// Keys pressed during this tick (edge).
    pub pressed: BTreeSet<u32>,
    /// Keys released during this tick (edge).
    pub released: BTreeSet<u32>,
    /// Keys held at the end of this tick.
    pub held: BTreeSet<u32>,
    /// Current analog values by axis.
    pub axes: BTreeMap<u32, f32>,
    /// Manual commands of this tick, in arrival order.
    pub manual: Vec<(ManualCommandKind, i32)>,
    /// Game commands of this tick, in arrival order.
    pub commands: Vec<(u32, i32)>,
}

impl InputSnapshot {
    /// Builds the next snapshot from the previous one (held keys and axes persist) and this tick's events.
    pub fn next(previous: &InputSnapshot, events: &[InputEvent]) -> InputSnapshot {
        let mut s = InputSnapshot {
            held: previous.held.clone(),
            axes: previous.axes.clone(),
            ..InputSnapshot::default()
        };
        for e in events {
            match *e {
                InputEvent::Key { code, down: true } => {
                    s.pressed.insert(code);
                    s.held.insert(code);
                }
                InputEvent::Key { code, down: false } => {
                    s.released.insert(code);
                    s.held.remove(&code);
                }
                InputEvent::Axis { axis, value } => {
                    s.axes.insert(axis, value);
                }
                InputEvent::Manual { kind, value } => s.manual.push((kind, value)),
                InputEvent::Command { code, arg } => s.commands.push((code, arg)),
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_per_tick_and_held_state_persists() {
        let t1 = InputSnapshot::next(
            &InputSnapshot::default(),
            &[
                InputEvent::Key {
                    code: 5,
                    down: true,
                },
                InputEvent::Axis {
                    axis: 0,
                    value: 0.5,
                },
            ],
        );
        assert!(t1.pressed.contains(&5) && t1.held.contains(&5));
        let t2 = InputSnapshot::next(&t1, &[]);
        assert!(t2.pressed.is_empty() && t2.held.contains(&5));
        assert_eq!(t2.axes.get(&0), Some(&0.5));
        let t3 = InputSnapshot::next(
            &t2,
            &[InputEvent::Key {
                code: 5,
                down: false,
            }],
        );
        assert!(t3.released.contains(&5) && !t3.held.contains(&5));
    }
}
