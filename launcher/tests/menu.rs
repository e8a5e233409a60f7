//! The main menu of the real `iron3d play` window under Xvfb, driven by synthetic X
//! input (`xdotool`) as a newcomer would: `play --game-dir` with no mission opens the
//! menu; Enter on "New campaign" starts the campaign's first mission on its briefing,
//! Enter starts it, F5 saves, F10 quits. A second `play` opens the menu again with
//! "Continue" highlighted; Enter loads that save. The load must give the saved tick and
//! state hash (the session checks the restored world's hash against the save's), and the
//! campaign's progress file must hold the first mission (PD-CAMPAIGN-UNDECIDED: it has no
//! objectives). Everything is read back from the launcher's output and the save folder,
//! never from the window.
//!
//! Needs `Xvfb` and `xdotool` (Debian packages xvfb and xdotool, installed by
//! `tools/setup.sh`); without them the test says so and passes only outside CI.

#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

#[path = "common/xvfb.rs"]
mod xvfb;

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use xvfb::{Xvfb, can_run, demo_game, poll, sleep};

/// `iron3d play --game-dir GAME` in the X server, saves under `data` (XDG_DATA_HOME),
/// no settings or bindings of this machine's; stdout piped, stderr into `log`.
fn play(x: &Xvfb, game: &Path, data: &Path, log: &Path) -> Child {
    play_in(x, Some(game), data, log)
}

/// [`play`], with `--game-dir` only when `game` is given.
fn play_in(x: &Xvfb, game: Option<&Path>, data: &Path, log: &Path) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iron3d"));
    c.args(["--log-level", "info", "play"]);
    if let Some(g) = game {
        c.arg("--game-dir").arg(g);
    }
    c.args(["--renderer", "soft", "--width", "640", "--height", "480"])
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_CONFIG_HOME", data.join("config"))
        .env("XDG_DATA_HOME", data)
        .env("XDG_CACHE_HOME", data.join("cache"))
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// Presses `keys` in the window one after the other, `pause` seconds apart.
fn keys(x: &Xvfb, w: &str, keys: &[&str], pause: f32) {
    for k in keys {
        x.xdo(&["key", "--window", w, k]);
        sleep(pause);
    }
}

/// F10, then the process's stdout once it exited (successfully).
fn quit(x: &Xvfb, w: &str, mut p: Child, log: &Path) -> String {
    x.xdo(&["key", "--window", w, "F10"]);
    if poll(60, || p.try_wait().unwrap().map(|_| ())).is_none() {
        let _ = p.kill();
        panic!(
            "iron3d did not quit: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    }
    let status = p.wait().unwrap();
    let mut out = String::new();
    p.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let err = std::fs::read_to_string(log).unwrap_or_default();
    assert!(status.success(), "{out}\n{err}");
    out
}

/// The `key=value` word of the first line of `text` starting with `start`.
fn field(text: &str, start: &str, key: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with(start))?;
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .map(str::to_owned)
}

#[test]
fn a_new_campaign_saved_quit_and_continued_from_the_menu_arrives_in_the_same_state() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let game = demo_game(tmp.path());
    let data = tmp.path().join("data");

    // First run: the menu (Continue is grey: nothing saved), New campaign, the
    // briefing, play, save, quit.
    let log = tmp.path().join("first.log");
    let mut first = play(&x, &game, &data, &log);
    let w = x.iron3d_window(&mut first, &log, 90).expect("a window");
    x.xdo(&["windowfocus", "--sync", &w]);
    sleep(1.0);
    keys(&x, &w, &["Return"], 3.0); // New campaign: DEMO1's briefing
    keys(&x, &w, &["Return"], 3.0); // start it
    keys(&x, &w, &["F5"], 1.0); // quick save
    let out = quit(&x, &w, first, &log);
    let saved_tick = field(&out, "saved ", "tick").unwrap_or_else(|| panic!("a save: {out}"));
    let saved_hash = field(&out, "saved ", "state_hash").unwrap();
    assert_ne!(saved_tick, "0", "the mission ran before the save: {out}");
    let progress = std::fs::read_to_string(data.join("iron3d/SAVE/dispatcher.ini")).unwrap();
    assert!(progress.contains("DEMO1=1"), "{progress}");

    // Second run: the menu with Continue highlighted (the newest ready save); Enter
    // loads it.
    let log = tmp.path().join("second.log");
    let mut second = play(&x, &game, &data, &log);
    let w = x.iron3d_window(&mut second, &log, 90).expect("a window");
    x.xdo(&["windowfocus", "--sync", &w]);
    sleep(1.0);
    keys(&x, &w, &["Return"], 3.0);
    let out = quit(&x, &w, second, &log);
    assert_eq!(
        field(&out, "loaded ", "tick").as_deref(),
        Some(saved_tick.as_str()),
        "{out}"
    );
    assert_eq!(
        field(&out, "loaded ", "state_hash").as_deref(),
        Some(saved_hash.as_str()),
        "{out}"
    );
    assert_eq!(
        field(&out, "loaded ", "mission").as_deref(),
        Some("DEMO1"),
        "{out}"
    );
}

/// The game-directory picker in the real window: Game directory → the sibling game →
/// check it → play it. The menu opens over that game's first mission, the choice is
/// kept in the settings, and the next `play` without `--game-dir` opens over it.
#[test]
fn a_game_directory_chosen_in_the_menu_is_played_and_kept_for_the_next_start() {
    if !can_run() {
        return;
    }
    let x = Xvfb::start().expect("Xvfb starts on a free display");
    let tmp = tempfile::tempdir().unwrap();
    let games = tmp.path().join("games");
    let game = demo_game(&games);
    // A second game beside it whose campaign starts with BATTLE (the demo's: DEMO1).
    let other = games.join("other");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(&game)
        .arg(&other)
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::write(
        other.join("MISSIONS/dispatcher.ini"),
        "[CAMPAIGN]\nMISSION1=BATTLE\n",
    )
    .unwrap();
    let data = tmp.path().join("data");

    let log = tmp.path().join("pick.log");
    let mut first = play(&x, &game, &data, &log);
    let w = x.iron3d_window(&mut first, &log, 90).expect("a window");
    x.xdo(&["windowfocus", "--sync", &w]);
    sleep(1.0);
    // Main menu: New campaign is highlighted; Game directory is six lines down.
    keys(&x, &w, &["Down"; 6], 0.3);
    keys(&x, &w, &["Return"], 1.0);
    // The page lists: Check, the demo, .., game, other, Back; from "Check" to "other".
    keys(&x, &w, &["Down"; 4], 0.3);
    keys(&x, &w, &["Return"], 1.0); // into other/
    keys(&x, &w, &["Return"], 4.0); // check it
    keys(&x, &w, &["Return"], 4.0); // play it
    let title = x.xdo(&["getwindowname", &w]);
    assert!(
        title.contains("BATTLE"),
        "the other game's first mission: {title}"
    );
    let out = quit(&x, &w, first, &log);
    let err = std::fs::read_to_string(&log).unwrap();
    assert!(err.contains("game directory chosen"), "{out}\n{err}");
    let settings = std::fs::read_to_string(data.join("config/iron3d/settings.toml")).unwrap();
    let kept = std::fs::canonicalize(&other).unwrap();
    assert!(
        settings.contains(&format!("directory = \"{}\"", kept.display())),
        "{settings}"
    );

    // The next start without --game-dir opens the menu over the chosen game.
    let log = tmp.path().join("again.log");
    let mut again = play_in(&x, None, &data, &log);
    let w = x.iron3d_window(&mut again, &log, 90).expect("a window");
    x.xdo(&["windowfocus", "--sync", &w]);
    sleep(2.0);
    let title = x.xdo(&["getwindowname", &w]);
    assert!(title.contains("BATTLE"), "{title}");
    quit(&x, &w, again, &log);
}
