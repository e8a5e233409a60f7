//! Tests of the front menu: campaigns, slots, mods, the game-directory page and the
//! Multiplayer page.

#![allow(clippy::unwrap_used, reason = "test code")]
use super::*;
use iron3d_save::SlotList;

/// A game directory with three missions (one with objectives, one nested) and the
/// campaign DEMO1 → BATTLE.
fn game() -> tempfile::TempDir {
    let g = tempfile::tempdir().unwrap();
    for m in ["DEMO1", "BATTLE", "Campaign.00/Mission.01"] {
        std::fs::create_dir_all(g.path().join("MISSIONS").join(m)).unwrap();
        std::fs::write(g.path().join("MISSIONS").join(m).join("data.tma"), b"x").unwrap();
    }
    std::fs::create_dir_all(g.path().join("MISSIONS/NOTAMISSION")).unwrap();
    std::fs::write(
        g.path().join("MISSIONS/BATTLE/Objectives.txt"),
        b"win destroy 1\n",
    )
    .unwrap();
    std::fs::write(
        g.path().join("MISSIONS/dispatcher.ini"),
        b"[CAMPAIGN]\nMISSION1=DEMO1\nMISSION2=BATTLE\n[COMPLETE]\n",
    )
    .unwrap();
    g
}

/// This build as mods see it.
fn env() -> iron3d_mods::Environment {
    iron3d_mods::Environment::current(
        semver::Version::parse(env!("CARGO_PKG_VERSION")).unwrap(),
        iron3d_abi::ABI_MAJOR,
        iron3d_abi::ABI_MINOR,
    )
}

/// The shipped bindings (`config/bindings.ini`).
fn shipped() -> Result<(iron3d_config::bindings::Bindings, Option<PathBuf>), String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/bindings.ini");
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    iron3d_config::bindings::Bindings::parse(&bytes, "config/bindings.ini")
        .map(|b| (b, None))
        .map_err(|e| e.to_string())
}

fn labels(m: &FrontMenu) -> Vec<(String, String, bool)> {
    m.view()
        .lines
        .iter()
        .map(|l| (l.label.clone(), l.detail.clone(), l.enabled))
        .collect()
}

#[test]
fn the_missions_are_the_folders_with_a_mission_file() {
    let g = game();
    assert_eq!(
        missions_of(g.path()),
        ["BATTLE", "Campaign.00/Mission.01", "DEMO1"]
    );
    assert!(missions_of(Path::new("/nonexistent/game")).is_empty());
}

#[test]
fn a_new_campaign_runs_through_its_missions_and_continue_follows_it() {
    let g = game();
    let saves = tempfile::tempdir().unwrap();
    let mut m = FrontMenu::new(g.path(), Some(saves.path().to_path_buf()));
    m.open(Page::Main, false);
    let l = labels(&m);
    assert_eq!(l[0], ("Continue".into(), "nothing saved yet".into(), false));
    assert_eq!(l[1], ("New campaign".into(), "2 missions".into(), true));
    assert_eq!(m.first_enabled(), 1);
    assert_eq!(
        m.choose(1),
        FrontAction::Start {
            mission: "DEMO1".into(),
            campaign: true
        }
    );
    // DEMO1 has no objectives: it counts complete once started (PD-CAMPAIGN-UNDECIDED).
    m.started("DEMO1");
    m.open(Page::Main, false);
    assert_eq!(labels(&m)[0].1, "campaign: BATTLE");
    assert_eq!(
        m.choose(0),
        FrontAction::Start {
            mission: "BATTLE".into(),
            campaign: true
        }
    );
    m.started("BATTLE");
    assert!(
        !m.progress().is_complete("BATTLE"),
        "a battle completes by winning it"
    );
    assert_eq!(m.complete("BATTLE"), None, "the campaign is won");
    assert_eq!(m.complete("NOT_IN_IT"), None);
    m.open(Page::Main, false);
    assert_eq!(m.choose(2), FrontAction::Stay);
    assert_eq!(m.page(), Page::Missions);
    let l = labels(&m);
    assert_eq!(l[0], ("BATTLE".into(), "campaign 2: complete".into(), true));
    assert_eq!(l[1].1, "");
    assert_eq!(l[3], ("Back".into(), String::new(), true));
    assert_eq!(
        m.choose(1),
        FrontAction::Start {
            mission: "Campaign.00/Mission.01".into(),
            campaign: false
        }
    );
    assert_eq!(m.choose(3), FrontAction::Stay);
    assert_eq!(m.page(), Page::Main, "Back: the page the menu opened at");
    assert_eq!(
        m.back(),
        FrontAction::Stay,
        "the main menu at the start stays"
    );
}

#[test]
fn the_slot_screens_show_what_each_file_says_and_only_a_ready_slot_loads() {
    let g = game();
    let saves = tempfile::tempdir().unwrap();
    let dir = saves.path();
    // A ready slot needs a real save: write one with the container's writer.
    let header = iron3d_save::SaveHeader {
        engine: "iron3d".into(),
        mission: "DEMO1".into(),
        tick: 42,
        game_time_ms: 65_000,
        time_scale: 1.0,
        ..iron3d_save::SaveHeader::default()
    };
    iron3d_save::write_atomic(
        &dir.join("slot2.sav"),
        &iron3d_save::SaveFile::new(header.clone()),
    )
    .unwrap();
    let mut list = SlotList::new();
    list.record("slot2", "slot2.sav", &header);
    list.record("quick", "quick.sav", &header);
    list.write(dir).unwrap();
    let mut m = FrontMenu::new(g.path(), Some(dir.to_path_buf()));
    m.open(Page::Load, false);
    let l = labels(&m);
    assert_eq!(l[0], ("slot2".into(), "DEMO1 1:05 tick 42".into(), true));
    assert_eq!(l[1], ("quick".into(), "DEMO1 (missing)".into(), false));
    assert_eq!(
        m.choose(1),
        FrontAction::Stay,
        "a missing slot does not load"
    );
    assert_eq!(m.choose(0), FrontAction::Load(dir.join("slot2.sav")));
    m.open(Page::Save, true);
    let l = labels(&m);
    assert_eq!(l.len(), MANUAL_SLOTS + 1);
    assert_eq!(l[0].1, "empty");
    assert_eq!(l[1].1, "DEMO1 1:05 tick 42");
    assert_eq!(m.choose(2), FrontAction::Save("slot3".into()));
    assert_eq!(m.back(), FrontAction::Resume, "opened from the game");
    // The main menu's Continue is the newest ready save.
    m.open(Page::Main, false);
    assert_eq!(
        labels(&m)[0],
        ("Continue".into(), "DEMO1 1:05 (slot2)".into(), true)
    );
    assert_eq!(m.choose(0), FrontAction::Load(dir.join("slot2.sav")));
}

#[test]
fn a_game_without_a_campaign_or_with_a_broken_one_still_plays_single_missions() {
    let g = game();
    std::fs::write(
        g.path().join("MISSIONS/dispatcher.ini"),
        b"[CAMPAIGN]\nMISSION2=X\n",
    )
    .unwrap();
    let mut m = FrontMenu::new(g.path(), None).with_controls(shipped());
    m.open(Page::Main, false);
    let l = labels(&m);
    assert_eq!(
        l[1],
        (
            "New campaign".into(),
            "campaign file unreadable".into(),
            false
        )
    );
    assert!(m.view().hint.contains("line 2"), "{}", m.view().hint);
    assert!(l[2].2, "single missions");
    assert!(!l[3].2, "no save folder: nothing to load");
    assert_eq!(l[5], ("Mods".into(), "no mods folder".into(), false));
    assert_eq!(l[7].0, "Game directory");
    assert_eq!(l[8].0, "Multiplayer");
    assert_eq!(m.choose(9), FrontAction::Quit);
    // Controls: every action with its inputs (the shipped bindings), then Back.
    assert_eq!(m.choose(6), FrontAction::Stay);
    assert_eq!(m.page(), Page::Controls);
    let l = labels(&m);
    assert_eq!(l.len(), iron3d_config::bindings::ACTIONS.len() + 1, "{l:?}");
    let quick = l.iter().find(|x| x.0 == "game.quick_save").unwrap();
    assert!(quick.1.contains("Key:F5"), "{quick:?}");
    assert_eq!(m.choose(l.len() - 1), FrontAction::Stay);
    assert_eq!(m.page(), Page::Main);
}

/// The Mods page: each mod with its state; Enter turns it on and off in the list
/// file (the next session's mods); a mod that cannot load says why.
#[test]
fn the_mods_page_turns_mods_on_and_off_in_the_players_list() {
    let g = game();
    let mods = tempfile::tempdir().unwrap();
    let manifest = |id: &str, extra: &str| {
        std::fs::create_dir_all(mods.path().join(id).join("data")).unwrap();
        std::fs::write(
            mods.path().join(id).join("mod.toml"),
            format!(
                "id = \"{id}\"\nversion = \"1.0.0\"\nname = \"{id}\"\nauthors = [\"t\"]\ndescription = \"d\"\nlicense = \"MIT\"\nengine = \">=0.1, <0.2\"\n\n[[overlay]]\npath = \"data\"\n{extra}\n"
            ),
        )
        .unwrap();
    };
    manifest("alpha", "");
    manifest("beta", "[dependencies]\nmissing-one = \"1\"");
    let list = mods.path().join("mods.toml");
    let mut m =
        FrontMenu::new(g.path(), None).with_mods(mods.path().to_owned(), list.clone(), env());
    m.open(Page::Main, false);
    assert_eq!(
        labels(&m)[5],
        ("Mods".into(), "2 installed, 0 on".into(), true)
    );
    assert_eq!(m.choose(5), FrontAction::Stay);
    assert_eq!(m.page(), Page::Mods);
    assert_eq!(labels(&m)[0], ("alpha".into(), "off".into(), true));
    // On: saved in the list, first in the load order.
    assert_eq!(m.choose(0), FrontAction::Stay);
    assert_eq!(labels(&m)[0], ("alpha".into(), "on, loads 1".into(), true));
    let saved = iron3d_mods::ModList::load(&list).unwrap();
    assert_eq!(saved.enabled(), ["alpha"]);
    // A mod whose dependency is missing is refused, and the hint says why.
    m.choose(1);
    let l = labels(&m);
    assert_eq!(l[1], ("beta".into(), "on, refused".into(), true), "{l:?}");
    assert!(m.view().hint.contains("missing-one"), "{}", m.view().hint);
    // Off again.
    m.choose(0);
    assert_eq!(labels(&m)[0].1, "off");
    assert_eq!(
        iron3d_mods::ModList::load(&list).unwrap().enabled(),
        ["beta"]
    );
}

/// Left and Right move a mod that is on earlier or later in the player's list (the
/// load order follows); at either end, off, or on another line they change nothing.
#[test]
fn left_and_right_move_a_mod_in_the_load_order() {
    let g = game();
    let mods = tempfile::tempdir().unwrap();
    for id in ["alpha", "beta", "gamma"] {
        std::fs::create_dir_all(mods.path().join(id).join("data")).unwrap();
        std::fs::write(
            mods.path().join(id).join("mod.toml"),
            format!(
                "id = \"{id}\"\nversion = \"1.0.0\"\nname = \"{id}\"\nauthors = [\"t\"]\ndescription = \"d\"\nlicense = \"MIT\"\nengine = \">=0.1, <0.2\"\n\n[[overlay]]\npath = \"data\"\n"
            ),
        )
        .unwrap();
    }
    let list = mods.path().join("mods.toml");
    let mut m =
        FrontMenu::new(g.path(), None).with_mods(mods.path().to_owned(), list.clone(), env());
    m.open(Page::Mods, false);
    m.choose(0);
    m.choose(1);
    let enabled = || {
        iron3d_mods::ModList::load(&list)
            .unwrap()
            .enabled()
            .to_vec()
    };
    assert_eq!(enabled(), ["alpha", "beta"]);
    assert_eq!(labels(&m)[0].1, "on, loads 1");
    assert!(m.shift(0, 1), "alpha later");
    assert_eq!(enabled(), ["beta", "alpha"]);
    assert_eq!(labels(&m)[0].1, "on, loads 2");
    assert_eq!(labels(&m)[1].1, "on, loads 1");
    assert!(!m.shift(0, 1), "already last");
    assert!(m.shift(0, -1), "alpha earlier again");
    assert_eq!(enabled(), ["alpha", "beta"]);
    assert!(!m.shift(0, -1), "already first");
    assert!(!m.shift(2, 1), "gamma is off");
    assert!(!m.shift(3, 1), "Back is no mod");
    assert_eq!(enabled(), ["alpha", "beta"]);
    assert!(m.view().hint.contains("Left/Right"), "{}", m.view().hint);
}

/// Polls the menu until the game-directory check is done (bounded).
fn finish_check(m: &mut FrontMenu) {
    for _ in 0..2000 {
        m.poll();
        if !labels(m)[0].0.starts_with("Checking") {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the check did not finish: {:?}", labels(m));
}

/// The picker browses folders from beside the game being played, checks the folder
/// shown in the background (its progress on the first line) and offers it only when
/// it has a mission; the embedded demo is always a line.
#[test]
fn the_game_directory_page_browses_checks_and_offers_a_folder_with_missions() {
    let root = tempfile::tempdir().unwrap();
    let playing = root.path().join("playing");
    let other = root.path().join("other");
    let empty = root.path().join("empty");
    for (dir, game) in [(&playing, true), (&other, true), (&empty, false)] {
        std::fs::create_dir_all(dir).unwrap();
        if game {
            let m = dir.join("MISSIONS/ONE");
            std::fs::create_dir_all(&m).unwrap();
            std::fs::write(m.join("data.tma"), b"x").unwrap();
        }
    }
    std::fs::create_dir_all(root.path().join(".hidden")).unwrap();
    let mut m = FrontMenu::new(&playing, None);
    m.open(Page::Main, false);
    let k = labels(&m)
        .iter()
        .position(|l| l.0 == "Game directory")
        .unwrap();
    assert_eq!(labels(&m)[k].1, playing.display().to_string());
    m.choose(k);
    assert_eq!(m.page(), Page::GameDir);
    let l = labels(&m);
    let names: Vec<&str> = l.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "Check this folder",
            "The embedded demo",
            "..",
            "empty",
            "other",
            "playing",
            ".hidden",
            "Back"
        ],
        "beside the game played, hidden folders last"
    );
    assert_eq!(l[0].1, root.path().display().to_string());
    assert_eq!(l[4].1, "has MISSIONS/");
    assert_eq!(l[5].1, "playing now");
    assert_eq!(m.choose(1), FrontAction::UseGameDir(None), "the demo");
    // A folder without missions is checked and refused.
    m.choose(3);
    assert_eq!(
        labels(&m)[0],
        (
            "Check this folder".into(),
            empty.display().to_string(),
            true
        )
    );
    m.choose(0);
    finish_check(&mut m);
    assert_eq!(
        labels(&m)[0],
        ("Not a game directory".into(), "0 files".into(), false)
    );
    assert!(
        m.view().hint.contains("no folder under MISSIONS/"),
        "{}",
        m.view().hint
    );
    assert_eq!(m.choose(0), FrontAction::Stay);
    // Up and into the other game: checked, its problems counted, offered.
    m.choose(2);
    let at = labels(&m).iter().position(|l| l.0 == "other").unwrap();
    m.choose(at);
    m.choose(0);
    finish_check(&mut m);
    let first = labels(&m)[0].clone();
    assert_eq!(first.0, "Play this folder");
    assert!(
        first.1.starts_with("1 missions, 1 files, 1 problems"),
        "{first:?}"
    );
    assert!(m.view().hint.contains("data.tma"), "{}", m.view().hint);
    assert_eq!(m.choose(0), FrontAction::UseGameDir(Some(other.clone())));
    // Browsing elsewhere forgets the check.
    m.choose(2);
    assert_eq!(labels(&m)[0].0, "Check this folder");
    assert_eq!(m.back(), FrontAction::Stay);
    assert_eq!(m.page(), Page::Main);
}

/// The Multiplayer page: Left/Right pick the mission and the players (2 to
/// `MAX_NET_PLAYERS`), the address is typed on Join, and the two actions carry them.
#[test]
fn the_multiplayer_page_hosts_a_mission_or_joins_a_typed_address() {
    let g = game();
    let mut m = FrontMenu::new(g.path(), None);
    m.open(Page::Main, false);
    assert_eq!(m.choose(8), FrontAction::Stay);
    assert_eq!(m.page(), Page::Multiplayer);
    let l = labels(&m);
    assert_eq!(l[0], ("Mission".into(), "BATTLE".into(), true));
    assert_eq!(l[1], ("Players".into(), "2".into(), true));
    assert_eq!(l[3], ("Join".into(), "127.0.0.1:27100".into(), true));
    assert!(m.shift(0, 1));
    assert_eq!(labels(&m)[0].1, "Campaign.00/Mission.01");
    assert!(m.shift(1, -1), "no fewer than two");
    assert_eq!(labels(&m)[1].1, "2");
    for _ in 0..10 {
        m.shift(1, 1);
    }
    assert_eq!(labels(&m)[1].1, MAX_NET_PLAYERS.to_string());
    assert_eq!(
        m.choose(2),
        FrontAction::Host {
            mission: "Campaign.00/Mission.01".into(),
            players: MAX_NET_PLAYERS
        }
    );
    assert!(!m.type_text(2, "x"), "only the address takes text");
    for _ in 0.."127.0.0.1:27100".len() {
        assert!(m.erase(3));
    }
    assert!(!labels(&m)[3].2, "nothing to join");
    assert_eq!(m.choose(3), FrontAction::Stay);
    assert!(m.type_text(3, "10.0.0.7 \u{7f}:27101"));
    assert_eq!(
        m.choose(3),
        FrontAction::Join {
            address: "10.0.0.7:27101".into()
        },
        "spaces and control characters are not typed"
    );
    m.set_net_status(Some("join failed: no answer".into()));
    assert!(m.view().hint.starts_with("join failed: no answer. "));
    assert_eq!(m.choose(4), FrontAction::Stay);
    assert_eq!(m.page(), Page::Main);
}
