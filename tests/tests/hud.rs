//! The HUD end to end through `iron3d play --offscreen` on the demo's BATTLE mission:
//! the briefing holds the clock and matches its software-renderer golden, the play
//! screen shows the player's resources, and a mission that is lost or won puts its
//! outcome screen up (the capture renderer lists the overlay's quads, so the text on
//! screen is checked glyph by glyph).
//!
//! Regenerate the golden after an intended change with `IRON3D_UPDATE_GOLDENS=1`.
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use iron3d_e2e::iron3d;
use iron3d_e2e::render::{decode, goldens};
use std::path::Path;
use std::process::ExitCode;

/// A fresh demo (seed 1) whose BATTLE objectives are replaced by `objectives`.
fn battle(objectives: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    iron3d_demo::build(dir.path(), 1, iron3d_demo::Profile::Demo).unwrap();
    if let Some(o) = objectives {
        std::fs::write(dir.path().join("MISSIONS/BATTLE/Objectives.txt"), o).unwrap();
    }
    dir
}

fn play(game: &Path, extra: &[&str]) -> String {
    let g = game.to_str().unwrap();
    let mut args = vec![
        "play",
        "--game-dir",
        g,
        "--mission",
        "BATTLE",
        "--offscreen",
        "--camera",
        "120,90,70,0.8,-0.5",
    ];
    args.extend_from_slice(extra);
    let (code, out) = iron3d(&args);
    assert_eq!(code, ExitCode::SUCCESS, "{out}");
    out
}

/// The overlay quads of a capture JSON: `(texture, uv)` of each, in order.
fn overlay_glyphs(json: &str) -> Vec<(Option<u64>, [f32; 4])> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["overlay"]["quads"]
        .as_array()
        .expect("the capture lists the overlay")
        .iter()
        .map(|q| {
            let uv: Vec<f32> = q["uv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            (q["texture"].as_u64(), [uv[0], uv[1], uv[2], uv[3]])
        })
        .collect()
}

/// Whether `text` (CP1251) is drawn as consecutive glyph quads of the HUD font.
fn shows(glyphs: &[(Option<u64>, [f32; 4])], text: &str) -> bool {
    let font = iron3d_hud::Font::builtin();
    let want: Vec<[f32; 4]> = iron3d_hud::text::cp1251(text)
        .into_iter()
        .filter(|&b| b > b' ')
        .map(|b| font.uv(b))
        .collect();
    glyphs.windows(want.len()).any(|w| {
        w.iter()
            .zip(&want)
            .all(|((t, uv), u)| *t == Some(0) && uv == u)
    })
}

fn capture(game: &Path, frames: &str, extra: &[&str]) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("frame.json");
    let mut args = vec![
        "--renderer",
        "capture",
        "--frames",
        frames,
        "--width",
        "640",
        "--height",
        "480",
        "--screenshot",
        shot.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = play(game, &args);
    (out, std::fs::read_to_string(shot).unwrap())
}

#[test]
fn the_briefing_holds_the_clock_shows_its_cp1251_text_and_matches_its_golden() {
    let game = battle(None);
    let (out, json) = capture(game.path(), "3", &["--briefing"]);
    assert!(out.contains(" ticks=0 "), "the clock stands: {out}");
    let g = overlay_glyphs(&json);
    assert!(shows(&g, "Битва за рудник"), "the CP1251 heading");
    assert!(shows(
        &g,
        "Commander, the enemy holds the far corner of the valley."
    ));
    assert!(shows(&g, "Destroy every unit of clan 1"), "the objectives");
    assert!(shows(&g, "Press Enter to start"));

    // The software renderer's picture of it, pixel for pixel.
    let tmp = tempfile::tempdir().unwrap();
    let shot = tmp.path().join("briefing.png");
    play(
        game.path(),
        &[
            "--briefing",
            "--renderer",
            "soft",
            "--frames",
            "2",
            "--width",
            "320",
            "--height",
            "240",
            "--screenshot",
            shot.to_str().unwrap(),
        ],
    );
    let golden = goldens().join("hud_briefing.png");
    if std::env::var_os("IRON3D_UPDATE_GOLDENS").is_some() {
        std::fs::copy(&shot, &golden).unwrap();
    }
    let (w, h, got) = decode(&shot);
    let (gw, gh, want) = decode(&golden);
    assert_eq!((w, h), (gw, gh));
    let differ = got
        .chunks(4)
        .zip(want.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differ,
        0,
        "{differ} pixels differ from {}",
        golden.display()
    );
}

#[test]
fn the_play_screen_shows_objectives_resources_messages_and_selection_figures() {
    let game = battle(None);
    // 60 frames at 30 fps: two seconds of game time, so the message timed at 1 s shows.
    let (out, json) = capture(game.path(), "60", &[]);
    assert!(!out.contains(" ticks=0 "), "the game runs: {out}");
    let g = overlay_glyphs(&json);
    assert!(
        shows(&g, "BATTLE") || shows(&g, "Битва за рудник"),
        "the mission"
    );
    assert!(shows(&g, "Objectives"));
    assert!(
        shows(&g, "Tanks are rolling out."),
        "the message timed at 1 s"
    );
    assert!(shows(&g, "Units"), "the player's units");
    assert!(shows(&g, "Ore"), "the player's ore");
    assert!(shows(&g, "FPS 30"), "the frame rate of the simulated clock");
}

#[test]
fn a_mission_is_lost_and_won_through_its_objectives_and_the_outcome_screen_appears() {
    for (objectives, outcome, words) in [
        ("clan 0\nlose time 2\n", "outcome=failed", "MISSION FAILED"),
        (
            "clan 0\nwin survive 2\n",
            "outcome=complete",
            "MISSION COMPLETE",
        ),
    ] {
        let game = battle(Some(objectives));
        let (out, json) = capture(game.path(), "300", &[]);
        assert!(out.contains(outcome), "{objectives:?}: {out}");
        let g = overlay_glyphs(&json);
        assert!(shows(&g, words), "{objectives:?}: the outcome screen");
        assert!(shows(&g, "Enter: play again"), "what the keys do next");
    }
}

#[test]
fn without_a_font_file_the_builtin_font_draws_and_no_hud_draws_nothing() {
    let game = battle(None);
    std::fs::remove_file(game.path().join(iron3d_hud::font::FONT_ARCHIVE)).unwrap();
    let (_, json) = capture(game.path(), "3", &["--briefing"]);
    assert!(shows(&overlay_glyphs(&json), "Press Enter to start"));
    let (_, json) = capture(game.path(), "3", &["--no-hud"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v.get("overlay").is_none(), "--no-hud: the bare frame");
}

#[test]
fn a_broken_font_file_is_an_error_naming_it() {
    let game = battle(None);
    std::fs::write(
        game.path().join(iron3d_hud::font::FONT_ARCHIVE),
        b"not an archive",
    )
    .unwrap();
    let g = game.path().to_str().unwrap();
    let (code, out) = iron3d(&[
        "play",
        "--game-dir",
        g,
        "--mission",
        "BATTLE",
        "--offscreen",
        "--frames",
        "1",
        "--renderer",
        "capture",
    ]);
    assert_ne!(code, ExitCode::SUCCESS, "{out}");
    let e = iron3d_hud::view::load_font(&iron3d_vfs::Vfs::new(game.path())).unwrap_err();
    let chain = iron3d_abi::error_chain(&e);
    assert!(
        chain.contains("HudFont.lib") && chain.contains("offset"),
        "{chain}"
    );
}

#[test]
fn the_menus_start_pause_resume_restart_change_settings_and_quit_as_their_keys_say() {
    use iron3d_config::settings::{ITEMS, Item, Settings};
    use iron3d_hud::{MenuItem, Screen, menu_index};
    use iron3d_launcher::play::{MenuAction, MenuKey, PlayOptions, PlaySession, Renderer};
    let game = battle(Some("clan 0\nlose time 1\n"));
    let settings_dir = tempfile::tempdir().unwrap();
    let settings_file = settings_dir.path().join("iron3d").join("settings.toml");
    let opts = PlayOptions {
        renderer: Some(Renderer::Capture),
        seed: 1,
        briefing: true,
        settings_file: Some(settings_file.clone()),
        ..PlayOptions::new(game.path(), "BATTLE")
    };
    let mut s = PlaySession::start(&opts, &mut Vec::new()).unwrap();
    let ns = 1_000_000_000 / 30;
    let mut f = 0;
    let mut frames = |s: &mut PlaySession, n: u64| {
        for _ in 0..n {
            f += 1;
            s.frame(f * ns).unwrap();
        }
    };
    // The briefing holds the clock until Enter.
    assert_eq!(s.screen(), Screen::Briefing);
    frames(&mut s, 5);
    assert_eq!(s.run.kernel.tick(), 0);
    assert_eq!(
        s.menu(MenuKey::Up),
        MenuAction::None,
        "no menu on the briefing"
    );
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::None);
    assert_eq!(s.screen(), Screen::Playing);
    frames(&mut s, 5);
    let ticks = s.run.kernel.tick();
    assert!(ticks > 0);
    // Pause: the menu is up and the clock stands; the arrows wrap round the entries.
    s.toggle_pause();
    assert_eq!(s.screen(), Screen::Paused { item: 0 });
    frames(&mut s, 5);
    assert_eq!(s.run.kernel.tick(), ticks, "paused");
    s.menu(MenuKey::Up);
    assert_eq!(
        s.screen(),
        Screen::Paused {
            item: menu_index(MenuItem::Quit)
        }
    );
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::Quit);
    for _ in 0..=menu_index(MenuItem::Restart) {
        s.menu(MenuKey::Down);
    }
    assert_eq!(
        s.screen(),
        Screen::Paused {
            item: menu_index(MenuItem::Restart)
        }
    );
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::Restart);
    // Settings: the lines with their values; a change is applied, shown and saved to
    // the user's file at once; Escape goes back to the pause menu.
    s.menu(MenuKey::Up);
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::None);
    assert_eq!(s.screen(), Screen::Settings { item: 0 });
    let hud = s.hud.clone().unwrap();
    let lines = hud.state.lock().unwrap().settings.clone();
    assert_eq!(lines.len(), ITEMS.len());
    assert_eq!(lines[0], ("Resolution".to_owned(), "1280 x 720".to_owned()));
    assert!(!settings_file.exists(), "nothing saved before a change");
    // Down to "Mouse sensitivity", two steps right; "Invert Y" toggled with Enter.
    let at = |item: Item| ITEMS.iter().position(|&i| i == item).unwrap();
    for _ in 0..at(Item::Sensitivity) {
        s.menu(MenuKey::Down);
    }
    assert_eq!(
        s.menu(MenuKey::Right),
        MenuAction::Setting(Item::Sensitivity)
    );
    s.menu(MenuKey::Right);
    s.menu(MenuKey::Down);
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::Setting(Item::InvertY));
    assert_eq!(s.settings.input.mouse_sensitivity, 1.2);
    assert!(s.settings.input.invert_y);
    assert_eq!(
        s.input.mouse,
        iron3d_launcher::live_input::MouseTuning {
            sensitivity: 1.2,
            invert_y: true
        }
    );
    let saved = Settings::load(&settings_file).unwrap();
    assert_eq!(saved, s.settings, "saved as changed");
    let lines = hud.state.lock().unwrap().settings.clone();
    assert_eq!(lines[at(Item::InvertY)].1, "on");
    // A click on the music line steps it up; the last line ("Back") returns.
    let (w, h) = (640, 480);
    let row = |k: usize| {
        (0..h)
            .map(|y| y as f32)
            .find(|&y| hud.hud.settings_item_at(w, h, ITEMS.len(), 320.0, y) == Some(k))
            .unwrap()
    };
    let music = at(Item::Volume(4));
    let click = |k: usize| MenuKey::Click {
        x: 320.0,
        y: row(k),
        width: w,
        height: h,
    };
    assert_eq!(s.menu(click(music)), MenuAction::Setting(Item::Volume(4)));
    assert_eq!(s.settings.audio.music, 0.9);
    assert_eq!(s.menu(click(ITEMS.len())), MenuAction::None);
    assert_eq!(
        s.screen(),
        Screen::Paused {
            item: menu_index(MenuItem::Settings)
        }
    );
    s.menu(MenuKey::Accept);
    assert_eq!(s.menu(MenuKey::Back), MenuAction::None);
    assert_eq!(
        s.screen(),
        Screen::Paused {
            item: menu_index(MenuItem::Settings)
        }
    );
    assert_eq!(Settings::load(&settings_file).unwrap().audio.music, 0.9);
    s.menu(MenuKey::Up);
    // A click on the first entry resumes.
    let hud = s.hud.clone().unwrap();
    let (w, h) = (640, 480);
    let y = (0..h)
        .map(|y| y as f32)
        .find(|&y| hud.hud.menu_item_at(w, h, 320.0, y) == Some(0))
        .unwrap();
    let click = MenuKey::Click {
        x: 320.0,
        y,
        width: w,
        height: h,
    };
    assert_eq!(s.menu(click), MenuAction::None);
    assert_eq!(s.screen(), Screen::Playing);
    // The mission is lost at 1 s: the outcome screen stops the clock; Enter plays again,
    // Escape quits.
    frames(&mut s, 40);
    assert_eq!(
        s.screen(),
        Screen::Outcome {
            complete: false,
            next: false
        }
    );
    let at = s.run.kernel.tick();
    frames(&mut s, 5);
    assert_eq!(s.run.kernel.tick(), at, "the decided mission stands");
    s.toggle_pause();
    assert_eq!(
        s.screen(),
        Screen::Outcome {
            complete: false,
            next: false
        },
        "no pause menu now"
    );
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::Restart);
    assert_eq!(s.menu(MenuKey::Back), MenuAction::Quit);
    s.shutdown();
}

/// The main menu and the campaign through the play session (the window's keys as menu
/// keys): a window without a mission opens on the main menu over the held mission;
/// "New campaign" starts the campaign's first mission; a win of it as the campaign's is
/// recorded in the player's progress (PD-CAMPAIGN-PROGRESS) and the outcome screen's
/// Enter goes on to the next mission; the pause menu's Save game writes a manual slot
/// that the Load game screen then offers.
#[test]
fn the_main_menu_starts_a_campaign_whose_won_mission_leads_to_the_next() {
    use iron3d_hud::{MenuItem, Screen, menu_index};
    use iron3d_launcher::play::{MenuAction, MenuKey, PlayOptions, PlaySession, Renderer};
    // The battle is won after a second; the campaign is BATTLE, then DEMO1.
    let game = battle(Some("clan 0\nwin survive 1\n"));
    std::fs::write(
        game.path().join("MISSIONS/dispatcher.ini"),
        "[CAMPAIGN]\nMISSION1=BATTLE\nMISSION2=DEMO1\n[COMPLETE]\n",
    )
    .unwrap();
    let saves = tempfile::tempdir().unwrap();
    let base = PlayOptions {
        renderer: Some(Renderer::Capture),
        seed: 1,
        save_dir: Some(saves.path().to_owned()),
        ..PlayOptions::new(game.path(), "BATTLE")
    };
    let ns = 1_000_000_000 / 30;
    let frames = |s: &mut PlaySession, from: u64, n: u64| {
        for f in from..from + n {
            s.frame(f * ns).unwrap();
        }
    };
    // The main menu holds the clock; Continue is grey, New campaign is highlighted.
    let mut menu = PlaySession::start(
        &PlayOptions {
            menu: true,
            ..base.clone()
        },
        &mut Vec::new(),
    )
    .unwrap();
    frames(&mut menu, 1, 5);
    assert_eq!(menu.run.kernel.tick(), 0, "the menu holds the clock");
    assert_eq!(menu.screen(), Screen::List { item: 1 });
    let list = menu.hud.clone().unwrap().state.lock().unwrap().list.clone();
    assert_eq!(list.lines[0].label, "Continue");
    assert!(!list.lines[0].enabled);
    assert_eq!(
        menu.menu(MenuKey::Accept),
        MenuAction::Start {
            mission: "BATTLE".into(),
            campaign: true
        }
    );
    menu.shutdown();
    // What the window does with it: the mission as the campaign's, on its briefing.
    let mut s = PlaySession::start(
        &PlayOptions {
            campaign: true,
            briefing: true,
            ..base.clone()
        },
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(s.screen(), Screen::Briefing);
    s.menu(MenuKey::Accept);
    frames(&mut s, 1, 10);
    // Save game from the pause menu into the first manual slot.
    s.toggle_pause();
    for _ in 0..menu_index(MenuItem::SaveGame) {
        s.menu(MenuKey::Down);
    }
    assert_eq!(s.menu(MenuKey::Accept), MenuAction::None);
    assert_eq!(s.screen(), Screen::List { item: 0 });
    assert_eq!(
        s.menu(MenuKey::Accept),
        MenuAction::None,
        "saved into slot1"
    );
    let slot = saves.path().join("slot1.sav");
    assert!(slot.is_file());
    // Back to the game, and on to the win.
    assert_eq!(s.menu(MenuKey::Back), MenuAction::None);
    assert_eq!(s.screen(), Screen::Paused { item: 0 });
    s.menu(MenuKey::Accept);
    frames(&mut s, 11, 60);
    assert_eq!(
        s.screen(),
        Screen::Outcome {
            complete: true,
            next: true
        }
    );
    let progress = std::fs::read_to_string(saves.path().join("dispatcher.ini")).unwrap();
    assert!(progress.contains("BATTLE=1"), "{progress}");
    assert_eq!(
        s.menu(MenuKey::Accept),
        MenuAction::Start {
            mission: "DEMO1".into(),
            campaign: true
        }
    );
    // The outcome screen stands: no pause menu over it.
    s.toggle_pause();
    assert!(
        matches!(s.screen(), Screen::Outcome { .. }),
        "no pause menu now"
    );
    s.shutdown();
    let mut again =
        PlaySession::start(&PlayOptions { menu: true, ..base }, &mut Vec::new()).unwrap();
    // Continue is now the slot's save; the progress says BATTLE is complete.
    assert_eq!(again.screen(), Screen::List { item: 0 });
    assert_eq!(again.menu(MenuKey::Accept), MenuAction::Load(slot));
    again.shutdown();
}

/// PD-INPUT-MENU-MODE through the play session and the real input plugin: with a menu
/// up the gamepad's D-pad moves the highlight and South chooses (the main menu's New
/// campaign asks the window to start the campaign); in the game Start opens the pause
/// menu, the D-pad moves in it and East goes back to the game, and Start closes the
/// pause menu it opened; none of the menu's own presses reach the tick's input.
#[test]
fn the_gamepad_drives_the_menus_and_none_of_it_reaches_the_game() {
    use iron3d_hud::Screen;
    use iron3d_launcher::play::{MenuAction, PlayOptions, PlaySession, Renderer};
    let game = battle(None);
    std::fs::write(
        game.path().join("MISSIONS/dispatcher.ini"),
        "[CAMPAIGN]\nMISSION1=BATTLE\n",
    )
    .unwrap();
    let saves = tempfile::tempdir().unwrap();
    let base = PlayOptions {
        renderer: Some(Renderer::Capture),
        seed: 1,
        save_dir: Some(saves.path().to_owned()),
        ..PlayOptions::new(game.path(), "BATTLE")
    };
    // One frame, then a press and a release of a pad button, a frame each.
    fn step(s: &mut PlaySession, frame: &mut u64) {
        *frame += 1;
        s.frame(*frame * (1_000_000_000 / 30)).unwrap();
    }
    fn press(s: &mut PlaySession, frame: &mut u64, button: &str) {
        s.input.pad_button(0, button, true);
        step(s, frame);
        s.input.pad_button(0, button, false);
        step(s, frame);
    }
    let mut frame = 0u64;
    let mut menu = PlaySession::start(
        &PlayOptions {
            menu: true,
            ..base.clone()
        },
        &mut Vec::new(),
    )
    .unwrap();
    step(&mut menu, &mut frame);
    assert_eq!(menu.screen(), Screen::List { item: 1 }, "New campaign");
    press(&mut menu, &mut frame, "Pad:DPadDown");
    assert_eq!(menu.screen(), Screen::List { item: 2 }, "Single mission");
    press(&mut menu, &mut frame, "Pad:DPadUp");
    assert_eq!(menu.screen(), Screen::List { item: 1 });
    assert!(menu.take_menu_actions().is_empty());
    press(&mut menu, &mut frame, "Pad:South");
    assert_eq!(
        menu.take_menu_actions(),
        [MenuAction::Start {
            mission: "BATTLE".into(),
            campaign: true
        }]
    );
    assert_eq!(menu.run.kernel.tick(), 0, "the menu held the clock");
    menu.shutdown();

    // In the game: Start opens the pause menu, Down moves, East resumes.
    let mut s = PlaySession::start(&base, &mut Vec::new()).unwrap();
    press(&mut s, &mut frame, "Pad:Start");
    assert_eq!(s.screen(), Screen::Paused { item: 0 });
    let held = s.run.kernel.tick();
    press(&mut s, &mut frame, "Pad:DPadDown");
    assert_eq!(s.screen(), Screen::Paused { item: 1 });
    press(&mut s, &mut frame, "Pad:East");
    assert_eq!(s.screen(), Screen::Playing, "Back: the game again");
    // Start (game.menu) opens the pause menu and, in it, closes it again.
    press(&mut s, &mut frame, "Pad:Start");
    assert_eq!(s.screen(), Screen::Paused { item: 0 });
    press(&mut s, &mut frame, "Pad:Start");
    assert_eq!(s.screen(), Screen::Playing, "Start again: the game");
    press(&mut s, &mut frame, "Pad:DPadDown");
    assert_eq!(s.screen(), Screen::Playing);
    assert!(s.run.kernel.tick() > held, "the clock runs again");
    let codes: Vec<u32> = ["menu.up", "menu.down", "menu.accept", "menu.back"]
        .iter()
        .filter_map(|a| iron3d_input::action_code(a))
        .collect();
    assert!(
        s.input.pressed.iter().all(|c| !codes.contains(c)),
        "the menus' actions are the shell's"
    );
    s.shutdown();
}

/// The main menu's game-directory picker through the play session: the page browses
/// from beside the game played, the check runs while frames go on (its result shows in
/// the drawn list) and a folder with a mission is offered to the window.
#[test]
fn the_game_directory_picker_checks_a_folder_while_the_menu_runs() {
    use iron3d_hud::Screen;
    use iron3d_launcher::play::{MenuAction, MenuKey, PlayOptions, PlaySession, Renderer};
    // The game in a folder of its own: the picker lists the game's parent, which must
    // not be the shared temporary folder (its listing is capped, and other tests' and
    // tools' folders would crowd the game out of it).
    let parent = tempfile::tempdir().unwrap();
    let game = parent.path().join("battle");
    iron3d_demo::build(&game, 1, iron3d_demo::Profile::Demo).unwrap();
    let mut s = PlaySession::start(
        &PlayOptions {
            renderer: Some(Renderer::Capture),
            seed: 1,
            menu: true,
            ..PlayOptions::new(&game, "BATTLE")
        },
        &mut Vec::new(),
    )
    .unwrap();
    let list = |s: &PlaySession| s.hud.clone().unwrap().state.lock().unwrap().list.clone();
    let line = |s: &PlaySession, label: &str| {
        list(s)
            .lines
            .iter()
            .position(|l| l.label == label)
            .unwrap_or_else(|| panic!("no line {label}: {:?}", list(s).lines))
    };
    // Highlight a line by name (Up/Down) and choose it.
    let choose = |s: &mut PlaySession, label: &str| {
        let k = line(s, label);
        while !matches!(s.screen(), Screen::List { item } if item == k) {
            s.menu(MenuKey::Down);
        }
        s.menu(MenuKey::Accept)
    };
    assert_eq!(choose(&mut s, "Game directory"), MenuAction::None);
    assert_eq!(list(&s).title, "GAME DIRECTORY");
    // The battle's own folder, shown from beside it.
    assert_eq!(choose(&mut s, "battle"), MenuAction::None);
    assert_eq!(choose(&mut s, "Check this folder"), MenuAction::None);
    let mut frame = 0u64;
    while list(&s).lines[0].label == "Checking" {
        frame += 1;
        assert!(frame < 3000, "the check did not finish");
        s.frame(frame * (1_000_000_000 / 30)).unwrap();
    }
    let first = list(&s).lines[0].clone();
    assert_eq!(first.label, "Play this folder", "{first:?}");
    assert!(
        first.detail.contains("clean"),
        "our writers' game is clean: {first:?}"
    );
    assert_eq!(
        choose(&mut s, "Play this folder"),
        MenuAction::UseGameDir(Some(game.clone()))
    );
    assert_eq!(s.run.kernel.tick(), 0, "the menu held the clock");
    s.shutdown();
}
