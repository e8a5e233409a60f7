//! Several seats in one game (PD-SEAT-SEATS, PD-INPUT-SEAT-BANDS; the ground multiplayer
//! stands on, issue 40): the real terrain, AI, control and input plugins on the demo's
//! BATTLE with `seats=0,1`. Player 1's records are player 0's codes plus
//! `SEAT_BAND`: with them player 1 selects and orders clan 1's tank, while player 0's
//! band moves nothing of player 1's. The seat a peer shows (`local-seat`) is
//! presentation only: the same input gives the same state hash at every tick whether
//! the session shows seat 0 or seat 1.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use glam::{Vec3, Vec4};
use iron3d_input::{POINTER_X, POINTER_Y, SEAT_BAND, VIEW_ASPECT, action_code};
use iron3d_kernel::{InputEvent, InputSource, ManualTimeSource, PlayerView, StateHash};
use iron3d_render_frame::CameraState;
use iron3d_session::Session;
use std::collections::BTreeMap;
use std::path::Path;

const W: u32 = 640;
const H: u32 = 480;

fn session(shadow: &Path, clock: &ManualTimeSource, local_seat: u8) -> Session {
    let parameters = BTreeMap::from([
        ("seats".to_owned(), "0,1".to_owned()),
        ("local-seat".to_owned(), local_seat.to_string()),
    ]);
    iron3d_e2e::battle::session(shadow, clock, 5, true, parameters)
}

/// Per-tick input: given now, or replayed from a log.
#[derive(Default)]
struct Script {
    now: Vec<InputEvent>,
    log: BTreeMap<u64, Vec<InputEvent>>,
    replay: bool,
}

impl InputSource for Script {
    fn events_for_tick(&mut self, tick: u64) -> Vec<InputEvent> {
        if self.replay {
            return self.log.get(&tick).cloned().unwrap_or_default();
        }
        let e = std::mem::take(&mut self.now);
        if !e.is_empty() {
            self.log.insert(tick, e.clone());
        }
        e
    }
}

/// One tick per frame at 30 fps.
struct Driver {
    s: Session,
    clock: ManualTimeSource,
    frame: u64,
    script: Script,
    hashes: Vec<StateHash>,
}

impl Driver {
    fn new(shadow: &Path, local_seat: u8) -> Self {
        let clock = ManualTimeSource::new();
        let s = session(shadow, &clock, local_seat);
        Self {
            s,
            clock,
            frame: 0,
            script: Script::default(),
            hashes: Vec::new(),
        }
    }

    fn ticks(&mut self, ticks: u64) {
        let target = self.s.kernel.tick() + ticks;
        while self.s.kernel.tick() < target {
            self.frame += 1;
            self.clock.set_ns((self.frame * 1_000_000_000).div_ceil(30));
            self.s.kernel.frame(&mut self.script, None).unwrap();
            self.hashes.push(self.s.kernel.state_hash());
        }
    }

    fn tick_with(&mut self, events: Vec<InputEvent>) {
        self.script.now = events;
        self.ticks(1);
    }

    fn view(&self) -> PlayerView {
        self.s
            .kernel
            .snapshot()
            .and_then(|s| s.view.clone())
            .unwrap()
    }

    fn position(&self, id: u32) -> Option<Vec3> {
        self.s
            .kernel
            .world()
            .iter_registered()
            .find(|(_, o)| o.id.raw() == id)
            .map(|(_, o)| o.transform.position)
    }

    /// Vehicles of clan slot `slot` (the AI publishes the slot + 1).
    fn clan_units(&self, slot: u32) -> Vec<u32> {
        self.s
            .kernel
            .world()
            .iter_registered()
            .filter(|(_, o)| {
                o.props
                    .first(b"BehaviorClan")
                    .is_some_and(|p| p.raw_value[1] == slot + 1)
            })
            .map(|(_, o)| o.id.raw())
            .collect()
    }
}

/// `e` in player `player`'s band.
fn band(player: u32, e: InputEvent) -> InputEvent {
    match e {
        InputEvent::Key { code, down } => InputEvent::Key {
            code: code + player * SEAT_BAND,
            down,
        },
        InputEvent::Axis { axis, value } => InputEvent::Axis {
            axis: axis + player * SEAT_BAND,
            value,
        },
        other => other,
    }
}

fn key(action: &str, down: bool) -> InputEvent {
    InputEvent::Key {
        code: action_code(action).unwrap(),
        down,
    }
}

fn pointer(p: (f32, f32)) -> [InputEvent; 2] {
    [
        InputEvent::Axis {
            axis: POINTER_X,
            value: p.0,
        },
        InputEvent::Axis {
            axis: POINTER_Y,
            value: p.1,
        },
    ]
}

/// Where `point` is drawn by the render camera of `view` (`0..=1`), `None` off screen.
fn on_screen(view: &PlayerView, point: Vec3) -> Option<(f32, f32)> {
    let mut c = CameraState::looking_at(Vec3::from_array(view.eye), Vec3::ZERO);
    c.yaw = view.yaw;
    c.pitch = view.pitch;
    c.fov = view.fov;
    let clip = c.projection_matrix(W, H) * c.view_matrix() * Vec4::from((point, 1.0));
    if clip.w <= 0.0 {
        return None;
    }
    let (x, y) = (clip.x / clip.w, clip.y / clip.w);
    ((-0.95..=0.95).contains(&x) && (-0.95..=0.95).contains(&y))
        .then_some(((x + 1.0) * 0.5, (1.0 - y) * 0.5))
}

/// Player `player` clicks where `id` is drawn in the view shown now (that must be the
/// player's own seat's).
fn click(d: &mut Driver, player: u32, id: u32) -> bool {
    let v = d.view();
    let Some(p) = d
        .position(id)
        .and_then(|at| on_screen(&v, at + Vec3::Z * 0.5))
    else {
        return false;
    };
    let mut down: Vec<InputEvent> = pointer(p).into_iter().map(|e| band(player, e)).collect();
    down.push(band(player, key("select", true)));
    d.tick_with(down);
    d.tick_with(vec![band(player, key("select", false))]);
    true
}

#[test]
fn each_seat_reads_its_own_band_and_the_seat_shown_changes_nothing() {
    let shadow = tempfile::tempdir().unwrap();
    // Shows seat 1: its view and selection are published.
    let mut d = Driver::new(shadow.path(), 1);
    let aspect = |p| {
        band(
            p,
            InputEvent::Axis {
                axis: VIEW_ASPECT,
                value: W as f32 / H as f32,
            },
        )
    };
    d.tick_with(vec![aspect(0), aspect(1)]);
    d.ticks(3);
    let theirs = d.clan_units(1);
    assert!(!theirs.is_empty(), "the battle's second clan has vehicles");
    // Clan 1's objects drawn on seat 1's screen, nearest the middle first (away from
    // the edges, where the pointer scrolls the overview).
    let v = d.view();
    let mut seen: Vec<(f32, u32)> = theirs
        .iter()
        .filter_map(|&id| {
            let p = on_screen(&v, d.position(id)? + Vec3::Z * 0.5)?;
            Some(((p.0 - 0.5).powi(2) + (p.1 - 0.5).powi(2), id))
        })
        .collect();
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Player 0's band clicking on them selects nothing for seat 1.
    for &(_, id) in seen.iter().take(3) {
        assert!(click(&mut d, 0, id));
        assert!(
            d.view().selected.is_empty(),
            "player 0's band is not seat 1's"
        );
    }
    // Player 1 selects the first of them that is a vehicle (towers are not selected).
    let target = seen
        .iter()
        .map(|&(_, id)| id)
        .find(|&id| click(&mut d, 1, id) && d.view().selected == [id])
        .expect("seat 1 selects one of its clan's vehicles");
    let start = d.position(target).unwrap();
    let v = d.view();
    let ahead = [(30.0, 0.0), (-30.0, 0.0), (0.0, 30.0), (0.0, -30.0)]
        .into_iter()
        .filter_map(|(x, y)| on_screen(&v, start + Vec3::new(x, y, 0.0)))
        .min_by(|a, b| {
            let d = |p: &(f32, f32)| (p.0 - 0.5).powi(2) + (p.1 - 0.5).powi(2);
            d(a).total_cmp(&d(b))
        })
        .unwrap();
    let mut order: Vec<InputEvent> = pointer(ahead).into_iter().map(|e| band(1, e)).collect();
    order.push(band(1, key("order.move", true)));
    d.tick_with(order);
    d.tick_with(vec![band(1, key("order.move", false))]);
    d.ticks(150);
    let moved = d.position(target).unwrap().distance(start);
    assert!(
        moved > 5.0,
        "player 1's order moved its vehicle {moved} units"
    );

    // The same input, showing seat 0: every tick's state hash is the same.
    let log = std::mem::take(&mut d.script.log);
    let ran = d.hashes.clone();
    d.s.shutdown();
    let shadow = tempfile::tempdir().unwrap();
    let mut other = Driver::new(shadow.path(), 0);
    other.script.log = log;
    other.script.replay = true;
    other.ticks(ran.len() as u64);
    assert_eq!(other.hashes, ran, "the seat shown is presentation only");
    assert!(other.view().selected.is_empty(), "seat 0 selected nothing");
    other.s.shutdown();
}
