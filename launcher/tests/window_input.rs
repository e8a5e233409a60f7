//! The real `iron3d play` window under Xvfb driven by synthetic X input (`xdotool`, as
//! a player's mouse and keyboard would): a box drag selects the player's vehicles, a
//! right click orders them to the ground under the pointer and a truck is seen in the
//! trace to drive there and arrive; Enter possesses the first selected unit, W drives it
//! and Enter hands it back; the pause key pauses and resumes. Everything is read back
//! from `--trace` (JSON Lines) and the launcher's log, never from the window.
//!
//! The window runs in real time, so the script waits in wall-clock seconds; the checks
//! only ask for what must happen whatever the machine's speed (an order given, a unit
//! arriving, a possessed unit moving while possessed).
//!
//! `IRON3D_KEEP_TRACE=1` keeps the trace and the log in `/tmp/window_input_*` for a
//! look after a failure.
//!
//! Needs `Xvfb` and `xdotool` (Debian packages xvfb and xdotool, installed by
//! `tools/setup.sh`); without them the test says so and passes only outside CI.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "waits for a real-time window in wall-clock time; nothing here feeds a simulation"
)]

#[path = "common/xvfb.rs"]
mod xvfb;

use serde_json::Value;
use std::process::{Command, Stdio};
use xvfb::{Xvfb, can_run, demo_game, poll, sleep};

/// The trace's lines of `kind`.
fn of<'a>(lines: &'a [Value], kind: &str) -> impl Iterator<Item = &'a Value> {
    lines.iter().filter(move |l| l["type"] == kind)
}

fn pos(lines: &[Value], id: u64, tick: u64) -> Option<[f64; 2]> {
    of(lines, "object")
        .find(|l| l["id"] == id && l["tick"] == tick)
        .map(|l| [l["pos"][0].as_f64().unwrap(), l["pos"][1].as_f64().unwrap()])
}

#[test]
fn a_player_selects_orders_possesses_and_pauses_with_synthetic_x_input() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let game = demo_game(tmp.path());
    let exe = env!("CARGO_BIN_EXE_iron3d");
    let trace = tmp.path().join("trace.jsonl");
    let log = tmp.path().join("stderr.log");
    let mut play = Command::new(exe)
        .args(["--log-level", "info", "play", "--game-dir"])
        .arg(&game)
        .args([
            "--mission",
            "BATTLE",
            "--no-briefing",
            "--renderer",
            "soft",
            "--width",
            "640",
            "--height",
            "480",
            "--trace",
        ])
        .arg(&trace)
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        // No user settings or bindings of this machine's.
        .env("XDG_CONFIG_HOME", tmp.path().join("config"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();

    // The window appears.
    let window = x.iron3d_window(&mut play, &log, 90);
    let Some(window) = window else {
        let _ = play.kill();
        panic!("no window");
    };
    let w = window.as_str();
    // No window manager: give the window the keyboard focus ourselves.
    x.xdo(&["windowfocus", "--sync", w]);
    // Soon: the battle's tanks drive toward each other from the first tick, and a
    // fighter under a move order still turns on an enemy in its sight (PD-AI-DECIDE);
    // ordered early, the tanks are far enough ahead of the enemy to arrive.
    sleep(0.5);

    // Drag a box over the view: the player's vehicles in it are selected.
    x.box_select(w);
    sleep(0.5);
    // A right click on open ground a little above the middle (clear of the base's
    // buildings): the move order.
    x.xdo(&["mousemove", "--window", w, "320", "190"]);
    sleep(0.2);
    x.xdo(&["click", "3"]);
    // The nearest tank needs about 7 s to get there.
    sleep(12.0);
    // Possess the first selected unit, drive it with W, hand it back.
    x.xdo(&["key", "Return"]);
    sleep(0.5);
    x.xdo(&["keydown", "w"]);
    sleep(2.0);
    x.xdo(&["keyup", "w"]);
    sleep(0.3);
    x.xdo(&["key", "Return"]);
    sleep(0.5);
    // Pause and resume (game.pause: the Pause key or F3).
    x.xdo(&["key", "F3"]);
    sleep(1.0);
    x.xdo(&["key", "F3"]);
    sleep(0.5);
    // Leave the game (F10).
    x.xdo(&["key", "F10"]);
    if poll(60, || play.try_wait().unwrap().map(|_| ())).is_none() {
        let _ = play.kill();
        panic!(
            "iron3d did not quit: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    let status = play.wait().unwrap();
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{stderr}");

    let lines: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let states: Vec<&Value> = of(&lines, "state").collect();
    if std::env::var_os("IRON3D_KEEP_TRACE").is_some() {
        std::fs::copy(&trace, "/tmp/window_input_trace.jsonl").unwrap();
        std::fs::write("/tmp/window_input_stderr.log", &stderr).unwrap();
    }
    // The move order: a unit arrives — leaves Move (1) on its own for Patrol (2,
    // fighters) or Harvest / Deliver (3, 4, transports). The battle's standing orders
    // lead to the enemy base, far beyond what a unit drives in this test's seconds, so
    // an arrival is the order given with the mouse.
    let arrived = states
        .iter()
        .any(|s| s["from"] == 1 && (s["to"] == 2 || s["to"] == 3 || s["to"] == 4));
    assert!(
        arrived,
        "an ordered unit drove to the point and arrived: {states:?}"
    );
    // Possession: a unit went Idle (0) as the player took it, and moved while it was.
    let possessed = states
        .iter()
        .filter(|s| s["to"] == 0 && s["tick"].as_u64() > Some(30))
        .find_map(|s| {
            let id = s["id"].as_u64()?;
            let from = s["tick"].as_u64()?;
            let until = states
                .iter()
                .filter(|e| e["id"] == id && e["from"] == 0)
                .filter_map(|e| e["tick"].as_u64())
                .find(|&t| t > from)?;
            let (a, b) = (pos(&lines, id, from)?, pos(&lines, id, until)?);
            Some((id, ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()))
        });
    let (id, moved) = possessed.expect("a unit was possessed and handed back");
    assert!(
        moved > 4.0,
        "the possessed unit {id} drove {moved} units with W"
    );
    // Pause and resume went through the game's pause command.
    let pause = stderr.find("paused=true").expect("the game paused");
    assert!(
        stderr[pause..].contains("paused=false"),
        "and resumed: {stderr}"
    );
}
