//! The player's front door: the main menu, the mission list, the load and save screens
//! and the campaign's progress, drawn as the HUD's list screens
//! ([`iron3d_hud::Screen::List`]) over the scene of a held mission.
//!
//! * **Main menu**: Continue (the newest ready save, else the campaign's next mission),
//!   New campaign, Single mission, Load game, Settings, Quit. A line that cannot be
//!   chosen is grey and says why.
//! * **Single mission**: every mission of the game directory (a folder under
//!   `MISSIONS/` holding `data.tma`, at most [`MAX_LISTED_MISSIONS`], in name order),
//!   each with its place in the campaign; it starts on its briefing.
//! * **Load game**: every slot of `saveslots.cfg` with what its file says (ready,
//!   missing, damaged, stale: PD-SAVE-SLOTS); only a ready slot loads.
//! * **Mods**: every mod of the mods folder with its state — on (and its place in the
//!   load order), off, or refused with the reason — and Enter turns it on or off in the
//!   player's mod list (`mods.toml`, as `iron3d mods enable/disable` do); the change
//!   applies to the next mission started (a running mission keeps its mods, and a save
//!   loads only with the mod set it was made with, PD-SAVE-COMPAT).
//! * **Controls**: every action of the bindings in effect (`config/bindings.ini` with
//!   the user's file over it, as `iron3d bindings list` shows them) with its inputs.
//! * **Game directory**: a folder browser (`..`, the subfolders, those holding
//!   `MISSIONS/` marked) whose first line checks the folder shown — `iron3d corpus` on
//!   a worker thread ([`crate::dir_check`]), its progress on the line — and then offers
//!   it when it has a mission, with the problems the readers found; the window keeps
//!   the choice in the settings (`[game] directory`) and opens the menu over it.
//! * **Save game** (from the pause menu): the manual slots `slot1` … `slot{MANUAL_SLOTS}`,
//!   empty or with what they hold; a save goes into `slotN.sav` and the slot list.
//! * **The campaign** (`iron3d-save`'s PD-CAMPAIGN rules): a new campaign starts its
//!   first mission with fresh progress; a mission won while played as the campaign's is
//!   recorded complete (the progress file written atomically) and the outcome screen's
//!   Enter goes on to the next one. **PD-CAMPAIGN-LOADED**: a loaded save plays as the
//!   campaign's when its mission is in the campaign.
//!
//! The menu is pure state over the game and save folders: it chooses, the window
//! carries out (a new session, a load, a save).

pub mod dir_check;
mod pages;

use iron3d_hud::ListView;
use iron3d_save::{Campaign, Progress};
use std::path::{Path, PathBuf};

/// The most missions the single-mission list shows.
pub const MAX_LISTED_MISSIONS: usize = 256;
/// Manual save slots offered by the save screen.
pub const MANUAL_SLOTS: usize = 6;
/// The most subfolders the game-directory page lists.
pub const MAX_LISTED_FOLDERS: usize = 512;

/// A page of the menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The main menu.
    Main,
    /// The single-mission list.
    Missions,
    /// The load screen.
    Load,
    /// The save screen.
    Save,
    /// The controls: every action with the inputs bound to it (read only).
    Controls,
    /// The installed mods: on, off or refused (and why); Enter turns one on or off.
    Mods,
    /// The game-directory picker: a folder browser and the check of the folder shown.
    GameDir,
    /// Multiplayer: host a match of a mission of this game, or join one at an address.
    Multiplayer,
}

/// What a line does when chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Choice {
    /// Load this save.
    LoadFile(PathBuf),
    /// Start this mission (as the campaign's, or alone).
    Start { mission: String, campaign: bool },
    /// A fresh campaign from its first mission.
    NewCampaign,
    /// Open a page.
    Open(Page),
    /// The settings screen.
    Settings,
    /// Save into this slot.
    SaveSlot(String),
    /// Turn this mod on or off in the player's list.
    ToggleMod(String),
    /// Show this folder on the game-directory page.
    Browse(PathBuf),
    /// Check the folder shown.
    CheckDir,
    /// Play this (checked) game directory.
    UseDir(PathBuf),
    /// Play the embedded demo again.
    UseDemo,
    /// Multiplayer: the mission to host (Left/Right: another).
    NetMission,
    /// Multiplayer: the players of a hosted match (Left/Right: fewer, more).
    NetPlayers,
    /// Multiplayer: host the match.
    Host,
    /// Multiplayer: the address to join (typed), Enter joins.
    Join,
    /// The page before (the main menu, or the game).
    Back,
    /// Leave the game.
    Quit,
    /// Nothing (a grey line).
    Nothing,
}

/// What the window does after a choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontAction {
    /// Nothing more: the page changed or stayed.
    Stay,
    /// Start `mission` on its briefing; `campaign`: played as the campaign's.
    Start {
        /// The mission.
        mission: String,
        /// Played as the campaign's mission.
        campaign: bool,
    },
    /// Load this save file.
    Load(PathBuf),
    /// Save the game into this slot (`slotN`, file `slotN.sav`).
    Save(String),
    /// Open the settings screen.
    Settings,
    /// Back to the game (the menu was opened from the pause menu).
    Resume,
    /// Play this game directory from now on (checked: it has a mission); `None`: the
    /// embedded demo.
    UseGameDir(Option<PathBuf>),
    /// Host a match of `mission` for `players` players in all (the host included) on
    /// [`NET_PORT`] of every interface.
    Host {
        /// The mission.
        mission: String,
        /// Players in all.
        players: u8,
    },
    /// Join the match at `address` (`HOST:PORT`, or `HOST` for [`NET_PORT`]).
    Join {
        /// Where.
        address: String,
    },
    /// Leave the game.
    Quit,
}

/// The most players the Multiplayer page hosts for.
pub const MAX_NET_PLAYERS: u8 = 8;

/// The port the Multiplayer page hosts on (`iron3d host`'s default).
pub const NET_PORT: u16 = 27_100;

/// The most characters of the Multiplayer page's address.
pub const NET_ADDRESS_CHARS: usize = 64;

/// The menu: its page, its lines and what they do.
pub struct FrontMenu {
    game_dir: PathBuf,
    save_dir: Option<PathBuf>,
    campaign: Campaign,
    /// Why the campaign could not be read (shown on the main menu).
    campaign_error: Option<String>,
    page: Page,
    /// The page the menu was opened at (Back from another page returns to it).
    root: Page,
    /// The menu was opened from the pause menu: Back returns to the game's menu.
    from_game: bool,
    view: ListView,
    choices: Vec<Choice>,
    /// The mods folder, the player's mod list and the engine as mods see it (`None`: no
    /// mods page).
    mods: Option<(PathBuf, PathBuf, iron3d_mods::Environment)>,
    /// The bindings in effect and the files they came from, or why they could not be
    /// read (the Controls page).
    controls: Result<(iron3d_config::bindings::Bindings, Option<PathBuf>), String>,
    /// The folder the game-directory page shows.
    browse: PathBuf,
    /// The check of `browse`, once asked for.
    check: Option<crate::dir_check::DirCheck>,
    /// The subfolders of the folder they were listed for (listed once per folder shown,
    /// not at each progress step of a check).
    folders: (PathBuf, Vec<(String, PathBuf, bool)>),
    /// Multiplayer: the mission to host (an index into the game's missions).
    net_mission: usize,
    /// Multiplayer: the players of a hosted match, the host included.
    net_players: u8,
    /// Multiplayer: the address to join.
    net_address: String,
    /// Multiplayer: what the last join or host did (shown under the page).
    net_status: Option<String>,
}

/// The mission `play` starts behind the menu of `game_dir`: the campaign's first, else
/// the first of [`missions_of`] (`None`: the directory has no mission).
pub fn first_mission(game_dir: &Path) -> Option<String> {
    Campaign::read(game_dir)
        .ok()
        .and_then(|c| c.missions().first().cloned())
        .or_else(|| missions_of(game_dir).into_iter().next())
}

/// The missions of `game_dir`: folders under `MISSIONS/` (any case) holding a
/// `data.tma` (any case), as `iron3d play --mission` names them, in name order, at most
/// [`MAX_LISTED_MISSIONS`]; two levels deep (`Campaign.00/Mission.01`).
pub fn missions_of(game_dir: &Path) -> Vec<String> {
    let entries = |dir: &Path| -> Vec<(String, PathBuf)> {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut v: Vec<(String, PathBuf)> = rd
            .filter_map(Result::ok)
            .take(4096)
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        v.sort();
        v
    };
    let has_tma = |dir: &Path| {
        entries(dir)
            .iter()
            .any(|(n, p)| n.eq_ignore_ascii_case("data.tma") && p.is_file())
    };
    let Some((_, root)) = entries(game_dir)
        .into_iter()
        .find(|(n, p)| n.eq_ignore_ascii_case("MISSIONS") && p.is_dir())
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (name, path) in entries(&root) {
        if !path.is_dir() {
            continue;
        }
        if has_tma(&path) {
            found.push(name);
            continue;
        }
        for (inner, p) in entries(&path) {
            if p.is_dir() && has_tma(&p) {
                found.push(format!("{name}/{inner}"));
            }
        }
    }
    found.truncate(MAX_LISTED_MISSIONS);
    found
}

/// Minutes and seconds of a game time in milliseconds (`12:05`).
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

impl FrontMenu {
    /// The menu of the game directory `game_dir` with saves in `save_dir` (`None`: no
    /// saves and no campaign progress). A campaign file that cannot be read is said on
    /// the main menu; the single missions still play.
    pub fn new(game_dir: &Path, save_dir: Option<PathBuf>) -> Self {
        let (campaign, campaign_error) = match Campaign::read(game_dir) {
            Ok(c) => (c, None),
            Err(e) => {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "campaign not read");
                (Campaign::default(), Some(e.to_string()))
            }
        };
        Self {
            game_dir: game_dir.to_path_buf(),
            save_dir,
            campaign,
            campaign_error,
            page: Page::Main,
            root: Page::Main,
            from_game: false,
            view: ListView::default(),
            choices: Vec::new(),
            mods: None,
            controls: Err("no bindings given".to_owned()),
            browse: game_dir.parent().unwrap_or(game_dir).to_path_buf(),
            check: None,
            folders: (PathBuf::new(), Vec::new()),
            net_mission: 0,
            net_players: 2,
            net_address: format!("127.0.0.1:{NET_PORT}"),
            net_status: None,
        }
    }

    /// The mods page lists the mods of `folder` and turns them on and off in the list
    /// file `list` (the player's `mods.toml`), resolving them for the engine `env`.
    pub fn with_mods(
        mut self,
        folder: PathBuf,
        list: PathBuf,
        env: iron3d_mods::Environment,
    ) -> Self {
        self.mods = Some((folder, list, env));
        self
    }

    /// The Controls page lists `bindings` (the shipped ones with the user's file, named
    /// by `user`, laid over them), or says why they could not be read.
    pub fn with_controls(
        mut self,
        bindings: Result<(iron3d_config::bindings::Bindings, Option<PathBuf>), String>,
    ) -> Self {
        self.controls = bindings;
        self
    }

    /// The campaign of the game directory.
    pub fn campaign(&self) -> &Campaign {
        &self.campaign
    }

    /// The player's progress (fresh when there is no save folder, no file yet, or a file
    /// that cannot be read — said in the log; the next write keeps it as `.bak`).
    pub fn progress(&self) -> Progress {
        match &self.save_dir {
            Some(dir) => Progress::read(dir, &self.campaign).unwrap_or_else(|e| {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "campaign progress not read: starting afresh");
                Progress::new(&self.campaign)
            }),
            None => Progress::new(&self.campaign),
        }
    }

    /// Records `mission` complete in the campaign's progress (written atomically); a
    /// mission outside the campaign changes nothing. Returns the campaign's next mission
    /// (`None`: the campaign is won, or `mission` is not in it).
    pub fn complete(&self, mission: &str) -> Option<String> {
        self.campaign.position(mission)?;
        let mut p = self.progress();
        if !p.is_complete(mission) {
            p.complete(mission);
            if let Some(dir) = &self.save_dir {
                match p.write(dir) {
                    Ok(()) => {
                        tracing::info!(target: "Iron3D", mission, "campaign: mission complete")
                    }
                    Err(e) => {
                        tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "campaign progress not saved")
                    }
                }
            }
        }
        p.next(&self.campaign).map(str::to_owned)
    }

    /// Whether `mission` is played as the campaign's when loaded from a save
    /// (PD-CAMPAIGN-LOADED).
    pub fn in_campaign(&self, mission: &str) -> bool {
        self.campaign.position(mission).is_some()
    }

    /// Starting `mission` as the campaign's: a mission that cannot be decided counts
    /// complete at once (PD-CAMPAIGN-UNDECIDED).
    pub fn started(&self, mission: &str) {
        if !Campaign::decidable(&self.game_dir, mission) {
            self.complete(mission);
        }
    }

    /// Whether the menu was opened from the pause menu (Back returns there).
    pub fn from_game(&self) -> bool {
        self.from_game
    }

    /// The page up.
    pub fn page(&self) -> Page {
        self.page
    }

    /// Where the menu is: its page and, on the game-directory page, the folder shown (a
    /// change of either is a new page whose highlight starts afresh).
    pub fn location(&self) -> (Page, Option<&Path>) {
        (
            self.page,
            (self.page == Page::GameDir).then_some(self.browse.as_path()),
        )
    }

    /// [`FrontMenu::location`], owned (to compare before and after a key).
    pub fn location_owned(&self) -> (Page, Option<PathBuf>) {
        let (page, dir) = self.location();
        (page, dir.map(Path::to_path_buf))
    }

    /// The lines of the page up.
    pub fn view(&self) -> &ListView {
        &self.view
    }

    /// The first line that can be chosen (where the highlight starts).
    pub fn first_enabled(&self) -> usize {
        self.view.lines.iter().position(|l| l.enabled).unwrap_or(0)
    }

    /// Opens `page` (built afresh from the folders) as the menu's first page;
    /// `from_game`: opened from the pause menu, so Back returns there.
    pub fn open(&mut self, page: Page, from_game: bool) {
        self.root = page;
        self.show(page, from_game);
    }

    /// Shows `page` within the menu (Back returns to the first page).
    fn show(&mut self, page: Page, from_game: bool) {
        self.page = page;
        self.from_game = from_game;
        if page == Page::GameDir && self.folders.0 != self.browse {
            self.folders = (self.browse.clone(), Self::folders_of(&self.browse));
        }
        let (view, choices) = match page {
            Page::Main => self.main_page(),
            Page::Missions => self.missions_page(),
            Page::Load => self.slots_page(false),
            Page::Save => self.slots_page(true),
            Page::Controls => self.controls_page(),
            Page::Mods => self.mods_page(),
            Page::GameDir => self.game_dir_page(),
            Page::Multiplayer => self.multiplayer_page(),
        };
        self.view = view;
        self.choices = choices;
    }

    /// Chooses line `item`.
    pub fn choose(&mut self, item: usize) -> FrontAction {
        let enabled = self.view.lines.get(item).is_some_and(|l| l.enabled);
        let choice = match self.choices.get(item) {
            Some(c) if enabled => c.clone(),
            _ => return FrontAction::Stay,
        };
        match choice {
            Choice::LoadFile(path) => FrontAction::Load(path),
            Choice::Start { mission, campaign } => FrontAction::Start { mission, campaign },
            Choice::NewCampaign => {
                let fresh = Progress::new(&self.campaign);
                if let Some(dir) = &self.save_dir {
                    if let Err(e) = fresh.write(dir) {
                        tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "campaign progress not saved");
                    }
                }
                match self.campaign.missions().first() {
                    Some(m) => FrontAction::Start {
                        mission: m.clone(),
                        campaign: true,
                    },
                    None => FrontAction::Stay,
                }
            }
            Choice::Open(page) => {
                self.show(page, self.from_game);
                FrontAction::Stay
            }
            Choice::Settings => FrontAction::Settings,
            Choice::SaveSlot(slot) => FrontAction::Save(slot),
            Choice::ToggleMod(id) => {
                self.toggle_mod(&id);
                self.show(Page::Mods, self.from_game);
                FrontAction::Stay
            }
            Choice::Browse(dir) => {
                self.browse = dir;
                self.check = None;
                self.show(Page::GameDir, self.from_game);
                FrontAction::Stay
            }
            Choice::CheckDir => {
                self.check = Some(crate::dir_check::DirCheck::start(&self.browse));
                self.show(Page::GameDir, self.from_game);
                FrontAction::Stay
            }
            Choice::UseDir(dir) => FrontAction::UseGameDir(Some(dir)),
            Choice::UseDemo => FrontAction::UseGameDir(None),
            Choice::NetMission | Choice::NetPlayers => FrontAction::Stay,
            Choice::Host => match missions_of(&self.game_dir).get(self.net_mission) {
                Some(m) => FrontAction::Host {
                    mission: m.clone(),
                    players: self.net_players,
                },
                None => FrontAction::Stay,
            },
            Choice::Join => FrontAction::Join {
                address: self.net_address.trim().to_owned(),
            },
            Choice::Back => self.back(),
            Choice::Quit => FrontAction::Quit,
            Choice::Nothing => FrontAction::Stay,
        }
    }

    /// Left (`step` −1) or Right (+1) on line `item`: on the Mods page a mod that is on
    /// loads one place earlier (lower priority) or later (higher) in the player's list
    /// (saved at once, as `iron3d mods order` does) and the page is built again; a
    /// dependency still loads before what needs it. Returns whether the list changed.
    pub fn shift(&mut self, item: usize, step: i32) -> bool {
        match self.choices.get(item) {
            Some(Choice::NetMission) => {
                let n = missions_of(&self.game_dir).len().max(1);
                self.net_mission = if step < 0 {
                    (self.net_mission + n - 1) % n
                } else {
                    (self.net_mission + 1) % n
                };
                self.show(Page::Multiplayer, self.from_game);
                return true;
            }
            Some(Choice::NetPlayers) => {
                self.net_players = if step < 0 {
                    self.net_players.saturating_sub(1).max(2)
                } else {
                    (self.net_players + 1).min(MAX_NET_PLAYERS)
                };
                self.show(Page::Multiplayer, self.from_game);
                return true;
            }
            _ => {}
        }
        let (Some(Choice::ToggleMod(id)), Some((_, list_path, _))) =
            (self.choices.get(item), self.mods.as_ref())
        else {
            return false;
        };
        let result = iron3d_mods::ModList::load(list_path).and_then(|mut list| {
            let Some(at) = list.enabled().iter().position(|e| e == id) else {
                return Ok(false);
            };
            let to = if step < 0 {
                at.saturating_sub(1)
            } else {
                (at + 1).min(list.enabled().len() - 1)
            };
            if to == at {
                return Ok(false);
            }
            list.move_to(id, to)?;
            list.save(list_path).map(|()| true)
        });
        let moved = match result {
            Ok(moved) => moved,
            Err(e) => {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "mod list not changed");
                false
            }
        };
        if moved {
            tracing::info!(target: "Iron3D", mod_id = %id, step, "mod order changed: applies to the next mission started");
            self.show(Page::Mods, self.from_game);
        }
        moved
    }

    /// Takes the game-directory check's news; `true` when the page up was built again
    /// (the window shows it again).
    pub fn poll(&mut self) -> bool {
        let changed = self
            .check
            .as_mut()
            .is_some_and(crate::dir_check::DirCheck::poll);
        if changed && self.page == Page::GameDir {
            self.show(Page::GameDir, self.from_game);
            return true;
        }
        false
    }

    /// Escape: the page before — the page the menu was opened at goes back to the game
    /// when opened from the pause menu (the main menu at the start stays); another page
    /// goes back to that page.
    pub fn back(&mut self) -> FrontAction {
        if self.page != self.root {
            self.show(self.root, self.from_game);
            return FrontAction::Stay;
        }
        if self.from_game {
            FrontAction::Resume
        } else {
            FrontAction::Stay
        }
    }

    /// Typed text on line `item`: the Multiplayer page's address takes it (printable
    /// characters, at most [`NET_ADDRESS_CHARS`]). Returns whether the line took it.
    pub fn type_text(&mut self, item: usize, text: &str) -> bool {
        if self.choices.get(item) != Some(&Choice::Join) {
            return false;
        }
        for c in text.chars().filter(|c| c.is_ascii_graphic()) {
            if self.net_address.chars().count() < NET_ADDRESS_CHARS {
                self.net_address.push(c);
            }
        }
        self.show(Page::Multiplayer, self.from_game);
        true
    }

    /// Backspace on line `item`: the address loses its last character. Returns whether
    /// the line took it.
    pub fn erase(&mut self, item: usize) -> bool {
        if self.choices.get(item) != Some(&Choice::Join) {
            return false;
        }
        self.net_address.pop();
        self.show(Page::Multiplayer, self.from_game);
        true
    }

    /// What the Multiplayer page says under its lines (a join under way, or why the
    /// last one failed); `None` clears it.
    pub fn set_net_status(&mut self, status: Option<String>) {
        self.net_status = status;
        if self.page == Page::Multiplayer {
            self.show(Page::Multiplayer, self.from_game);
        }
    }
}

#[cfg(test)]
mod tests;
