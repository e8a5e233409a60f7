//! A multiplayer match with a player in a real window (Xvfb, synthetic X input from
//! `xdotool`): `iron3d serve` on the loopback interface, a headless `join --bot`, and
//! `iron3d join ADDR` in a window. The window's player box-selects their vehicles and
//! possesses one with Enter — records that travel to every peer: the server's own
//! `--trace` shows the unit handed to the player — and says `hello` in the chat (`Y`,
//! the text, Enter): the server prints it. Every peer ends at the same tick with the
//! same state hash.
//!
//! Needs `Xvfb` and `xdotool` (Debian packages xvfb and xdotool, installed by
//! `tools/setup.sh`); without them the test says so and passes only outside CI.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]
#![allow(
    clippy::disallowed_methods,
    reason = "waits for real-time processes in wall-clock time; nothing here feeds a simulation"
)]

#[path = "common/peers.rs"]
mod peers;
#[path = "common/xvfb.rs"]
mod xvfb;

use peers::{LIMIT, lines, match_over, wait_for};
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use xvfb::{Xvfb, can_run, demo_game, sleep};

/// Waits for `child` to exit (killed past [`LIMIT`]); its whole output.
fn finish(mut child: Child, rx: &mpsc::Receiver<String>, mut seen: Vec<String>) -> Vec<String> {
    let began = Instant::now();
    loop {
        seen.extend(rx.try_iter());
        if let Some(s) = child.try_wait().unwrap() {
            std::thread::sleep(Duration::from_millis(100));
            seen.extend(rx.try_iter());
            assert!(s.success(), "{s}: {seen:#?}");
            return seen;
        }
        if began.elapsed() > LIMIT {
            let _ = child.kill();
            panic!("a peer ran past {LIMIT:?}: {seen:#?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A headless peer (`serve`, `join --bot`): `iron3d ARGS --game-dir GAME`, its
/// standard output as it comes.
fn headless(args: &[&str], game: &Path) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_iron3d"))
        .args(args)
        .arg("--game-dir")
        .arg(game)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let rx = lines(&mut child);
    (child, rx)
}

/// A windowed peer on `x` (640 × 480, the software renderer): `iron3d --log-level info
/// ARGS --game-dir GAME`, its settings and saves under `dir`, its log in `log`.
fn windowed(
    x: &Xvfb,
    args: &[&str],
    game: &Path,
    dir: &Path,
    log: &Path,
) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_iron3d"))
        .args(["--log-level", "info"])
        .args(args)
        .args(["--renderer", "soft", "--width", "640", "--height", "480"])
        .arg("--game-dir")
        .arg(game)
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let rx = lines(&mut child);
    (child, rx)
}

/// The address a host prints once it listens (`LABEL: listening on ADDR …`).
fn listening(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, label: &str) -> String {
    let what = format!("{label}: listening on ");
    let line = wait_for(rx, seen, &what);
    line.strip_prefix(&what)
        .and_then(|r| r.split_whitespace().next())
        .unwrap()
        .to_owned()
}

/// The first `Iron3D-rs` window of `child` (its log said why when there is none),
/// focused.
fn focused(x: &Xvfb, child: &mut Child, log: &Path) -> String {
    let Some(w) = x.iron3d_window(child, log, 90) else {
        let _ = child.kill();
        panic!("no window");
    };
    x.xdo(&["windowfocus", "--sync", &w]);
    w
}

#[test]
fn a_player_in_a_window_orders_chats_and_ends_with_the_same_hash() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let game = demo_game(tmp.path());
    let trace = tmp.path().join("server.jsonl");
    let trace_arg = trace.to_str().unwrap();
    let (server, srx) = headless(
        &[
            "serve",
            "--port",
            "0",
            "--mission",
            "BATTLE",
            "--players",
            "2",
            "--ticks",
            "900",
            "--trace",
            trace_arg,
        ],
        &game,
    );
    let mut sseen = Vec::new();
    let at = listening(&srx, &mut sseen, "serve");

    // The window joins first: it gets seat 1 (clan 0, the player's side of BATTLE).
    let log = tmp.path().join("window.log");
    let (mut window, wrx) = windowed(
        &x,
        &["join", &at, "--name", "win", "--frames", "100000"],
        &game,
        tmp.path(),
        &log,
    );
    let mut wseen = Vec::new();
    wait_for(&wrx, &mut wseen, "join: seat 1 reserved");
    let (bot, brx) = headless(&["join", &at, "--bot", "--name", "bot"], &game);
    let w = focused(&x, &mut window, &log);
    let w = w.as_str();
    wait_for(&wrx, &mut wseen, "join: match started");
    sleep(1.0);
    // Box-select the player's vehicles, then Enter: the first selected is possessed.
    x.box_select(w);
    sleep(1.0);
    x.xdo(&["key", "Return"]);
    sleep(1.5);
    x.xdo(&["key", "Return"]);
    sleep(0.5);
    // The chat: Y opens the line, the text, Enter says it.
    x.xdo(&["key", "y"]);
    sleep(0.3);
    x.xdo(&["type", "--delay", "60", "hello"]);
    sleep(0.3);
    x.xdo(&["key", "Return"]);

    let said = wait_for(&srx, &mut sseen, "says: hello");
    assert!(said.starts_with("serve: player 1 says"), "{said}");
    let server = finish(server, &srx, sseen);
    let bot = finish(bot, &brx, Vec::new());
    let window_out = finish(window, &wrx, wseen);
    let ends = [
        match_over(&server),
        match_over(&bot),
        match_over(&window_out),
    ];
    assert_eq!(ends[0], ends[1], "server and bot");
    assert_eq!(ends[0], ends[2], "server and window");

    // The window's records reached the server: a unit of the window's player went to
    // Idle (0) as it was possessed (the AI never idles a unit after the start).
    let states: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "state")
        .collect();
    assert!(
        states
            .iter()
            .any(|s| s["to"] == 0 && s["tick"].as_u64() > Some(30)),
        "a possession in the server's trace: {states:?}\nwindow log:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// A player who hosts in a window (`iron3d host`) and leaves with F10: the match ends
/// for every peer first (PD-NET-END), so the bot that joined ends at the same tick with
/// the same hash instead of waiting out the silence timeout.
#[test]
fn a_host_in_a_window_ends_the_match_when_leaving() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let game = demo_game(tmp.path());
    let log = tmp.path().join("host.log");
    let (mut host, hrx) = windowed(
        &x,
        &[
            "host",
            "--players",
            "2",
            "--port",
            "0",
            "--mission",
            "BATTLE",
        ],
        &game,
        tmp.path(),
        &log,
    );
    let mut hseen = Vec::new();
    let at = listening(&hrx, &mut hseen, "host");
    let (bot, brx) = headless(&["join", &at, "--bot", "--name", "bot"], &game);
    focused(&x, &mut host, &log);
    wait_for(&hrx, &mut hseen, "host: match started");
    sleep(2.0);
    x.xdo(&["key", "F10"]);
    let began = Instant::now();
    let bot = finish(bot, &brx, Vec::new());
    assert!(
        began.elapsed() < Duration::from_secs(8),
        "the bot ended with the host, not after the silence timeout"
    );
    let host = finish(host, &hrx, hseen);
    assert_eq!(match_over(&host), match_over(&bot), "host and bot");
    assert!(
        bot.iter().any(|l| l.contains("the host ended the match")),
        "{bot:#?}"
    );
}

/// The main menu's Multiplayer page: the player types the server's address on Join and
/// presses Enter; the window reserves a seat (the lobby on its own thread), starts the
/// match, and ends it with the server's tick and hash; from the pause menu over the
/// ended match the main menu then starts a single mission that is no match.
#[test]
fn a_player_joins_from_the_main_menu() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let game = demo_game(tmp.path());
    let (server, srx) = headless(
        &[
            "serve",
            "--port",
            "0",
            "--mission",
            "BATTLE",
            "--players",
            "1",
            "--ticks",
            "240",
        ],
        &game,
    );
    let mut sseen = Vec::new();
    let at = listening(&srx, &mut sseen, "serve");
    let log = tmp.path().join("menu.log");
    let (mut window, wrx) = windowed(&x, &["play"], &game, tmp.path(), &log);
    let mut wseen = Vec::new();
    let w = focused(&x, &mut window, &log);
    let w = w.as_str();
    sleep(1.0);
    let key = |k: &str, times: usize| {
        for _ in 0..times {
            x.xdo(&["key", "--window", w, k]);
            sleep(0.2);
        }
    };
    // Main menu: New campaign is highlighted; Multiplayer is seven lines down.
    key("Down", 7);
    key("Return", 1);
    // Multiplayer: Mission, Players, Host, Join — the address is typed on Join.
    key("Down", 3);
    key("BackSpace", "127.0.0.1:27100".len());
    x.xdo(&["type", "--window", w, "--delay", "60", &at]);
    sleep(0.3);
    key("Return", 1);
    wait_for(&wrx, &mut wseen, "join: match started");
    let server = finish(server, &srx, sseen);
    // The window stays up on "The match is over" until the player leaves it: Escape
    // (the pause menu over the match), Main menu, Single mission, the first mission.
    wait_for(&wrx, &mut wseen, "the host ended the match");
    sleep(1.0);
    key("Escape", 1);
    sleep(0.5);
    key("Down", 5);
    key("Return", 1);
    sleep(0.5);
    key("Down", 1);
    key("Return", 1);
    sleep(0.5);
    key("Return", 1);
    // The match says how it ended as the single mission replaces it.
    wait_for(&wrx, &mut wseen, "join: match over");
    sleep(2.0);
    x.xdo(&["key", "--window", w, "F10"]);
    let window_out = finish(window, &wrx, wseen);
    // The single mission is not a match: no second end line (a session that kept the
    // match's options would have joined again and ended with one).
    assert_eq!(
        window_out
            .iter()
            .filter(|l| l.contains(": match over "))
            .count(),
        1,
        "{window_out:#?}"
    );
    assert_eq!(
        match_over(&server),
        match_over(&window_out),
        "server and window"
    );
}
