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

use iron3d_hud::{ListLine, ListView};
use iron3d_save::{Campaign, Progress, SlotList, SlotStatus};
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

    fn line(label: &str, detail: String, enabled: bool) -> ListLine {
        ListLine {
            label: label.to_owned(),
            detail,
            enabled,
        }
    }

    /// The slots of the save folder with what their files say.
    fn slots(&self) -> Vec<(iron3d_save::SlotMeta, SlotStatus)> {
        let Some(dir) = &self.save_dir else {
            return Vec::new();
        };
        match SlotList::read(dir) {
            Ok(list) => list.check(dir),
            Err(e) => {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "save slot list not read");
                Vec::new()
            }
        }
    }

    /// The ready slot of `slots` whose file was written last.
    fn newest_ready(
        &self,
        slots: Vec<(iron3d_save::SlotMeta, SlotStatus)>,
    ) -> Option<(iron3d_save::SlotMeta, PathBuf)> {
        let dir = self.save_dir.as_ref()?;
        slots
            .into_iter()
            .filter(|(_, s)| matches!(s, SlotStatus::Ready(_)))
            .filter_map(|(m, _)| {
                let path = dir.join(&m.file);
                let when = std::fs::metadata(&path).and_then(|x| x.modified()).ok()?;
                Some((when, m, path))
            })
            .max_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.slot.cmp(&a.1.slot)))
            .map(|(_, m, p)| (m, p))
    }

    fn main_page(&self) -> (ListView, Vec<Choice>) {
        let progress = self.progress();
        let next = progress.next(&self.campaign).map(str::to_owned);
        // Each slot's file is read and checked once.
        let slots = self.slots();
        let slot_count = slots.len();
        let (cont_detail, cont) = match (self.newest_ready(slots), &next) {
            (Some((m, path)), _) => (
                format!("{} {} ({})", m.mission, clock(m.game_time_ms), m.slot),
                Some(Choice::LoadFile(path)),
            ),
            (None, Some(n)) if self.campaign.position(n).is_some_and(|k| k > 0) => (
                format!("campaign: {n}"),
                Some(Choice::Start {
                    mission: n.clone(),
                    campaign: true,
                }),
            ),
            _ => ("nothing saved yet".to_owned(), None),
        };
        let campaign_detail = match (&self.campaign_error, self.campaign.missions().len()) {
            (Some(_), _) => "campaign file unreadable".to_owned(),
            (None, 0) => "this game has no campaign".to_owned(),
            (None, n) => format!("{n} missions"),
        };
        let missions = missions_of(&self.game_dir).len();
        let lines = vec![
            (
                Self::line("Continue", cont_detail, cont.is_some()),
                cont.unwrap_or(Choice::Nothing),
            ),
            (
                Self::line("New campaign", campaign_detail, !self.campaign.is_empty()),
                Choice::NewCampaign,
            ),
            (
                Self::line(
                    "Single mission",
                    format!("{missions} missions"),
                    missions > 0,
                ),
                Choice::Open(Page::Missions),
            ),
            (
                Self::line(
                    "Load game",
                    format!("{slot_count} slots"),
                    self.save_dir.is_some(),
                ),
                Choice::Open(Page::Load),
            ),
            (
                Self::line("Settings", String::new(), true),
                Choice::Settings,
            ),
            (
                Self::line("Mods", self.mods_summary(), self.mods.is_some()),
                Choice::Open(Page::Mods),
            ),
            (
                Self::line("Controls", "keys, mouse, gamepad".to_owned(), true),
                Choice::Open(Page::Controls),
            ),
            (
                Self::line("Game directory", self.game_dir.display().to_string(), true),
                Choice::Open(Page::GameDir),
            ),
            (
                Self::line("Multiplayer", "host or join a match".to_owned(), true),
                Choice::Open(Page::Multiplayer),
            ),
            (Self::line("Quit", String::new(), true), Choice::Quit),
        ];
        let keys = if self.from_game {
            "Up/Down choose, Enter select, Esc back to the game"
        } else {
            "Up/Down choose, Enter select"
        };
        let hint = match &self.campaign_error {
            Some(e) => format!("{e}. {keys}"),
            None => keys.to_owned(),
        };
        Self::assemble("IRON3D-RS", lines, hint)
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

    fn multiplayer_page(&self) -> (ListView, Vec<Choice>) {
        let missions = missions_of(&self.game_dir);
        let mission = missions.get(self.net_mission).cloned();
        let lines = vec![
            (
                Self::line(
                    "Mission",
                    mission
                        .clone()
                        .unwrap_or_else(|| "this game has no mission".to_owned()),
                    mission.is_some(),
                ),
                Choice::NetMission,
            ),
            (
                Self::line("Players", self.net_players.to_string(), true),
                Choice::NetPlayers,
            ),
            (
                Self::line(
                    "Host the match",
                    format!("port {NET_PORT}, every interface"),
                    mission.is_some(),
                ),
                Choice::Host,
            ),
            (
                Self::line(
                    "Join",
                    self.net_address.clone(),
                    !self.net_address.trim().is_empty(),
                ),
                Choice::Join,
            ),
            (Self::line("Back", String::new(), true), Choice::Back),
        ];
        let keys = "Left/Right change the mission and the players; type the address to join \
                    on Join (Backspace erases). Every player needs the same game, mods and \
                    plugins.";
        let hint = match &self.net_status {
            Some(s) => format!("{s}. {keys}"),
            None => keys.to_owned(),
        };
        Self::assemble("MULTIPLAYER", lines, hint)
    }

    fn missions_page(&self) -> (ListView, Vec<Choice>) {
        let progress = self.progress();
        let open = progress.unlocked(&self.campaign);
        let mut lines: Vec<(ListLine, Choice)> = missions_of(&self.game_dir)
            .into_iter()
            .map(|m| {
                let detail = match self.campaign.position(&m) {
                    Some(k) if progress.is_complete(&m) => format!("campaign {}: complete", k + 1),
                    Some(k) if open.get(k).copied().unwrap_or(false) => {
                        format!("campaign {}: open", k + 1)
                    }
                    Some(k) => format!("campaign {}: locked", k + 1),
                    None => String::new(),
                };
                (
                    Self::line(&m, detail, true),
                    Choice::Start {
                        mission: m,
                        campaign: false,
                    },
                )
            })
            .collect();
        lines.push((Self::line("Back", String::new(), true), Choice::Back));
        Self::assemble(
            "SINGLE MISSION",
            lines,
            "Enter: the mission's briefing. A single mission does not count for the campaign."
                .to_owned(),
        )
    }

    /// The mods of the folder and the player's list (an unreadable list is said and
    /// counts as empty).
    fn mods_state(
        &self,
    ) -> Option<(
        iron3d_mods::ActiveMods,
        iron3d_mods::ModList,
        Option<String>,
    )> {
        let (folder, list_path, env) = self.mods.as_ref()?;
        let (list, error) = match iron3d_mods::ModList::load(list_path) {
            Ok(l) => (l, None),
            Err(e) => (iron3d_mods::ModList::new(), Some(format!("{e}"))),
        };
        let active = iron3d_mods::ActiveMods::load(folder, list.enabled(), env);
        Some((active, list, error))
    }

    fn mods_summary(&self) -> String {
        match self.mods_state() {
            None => "no mods folder".to_owned(),
            Some((active, _, _)) => format!(
                "{} installed, {} on",
                active.discovery.mods.len(),
                active.order.len()
            ),
        }
    }

    fn mods_page(&self) -> (ListView, Vec<Choice>) {
        let mut lines: Vec<(ListLine, Choice)> = Vec::new();
        let mut notes: Vec<String> = Vec::new();
        if let Some((active, list, error)) = self.mods_state() {
            notes.extend(error);
            for m in &active.discovery.mods {
                let id = m.manifest.id.as_str();
                let on = list.enabled().iter().any(|e| e == id);
                let place = active
                    .order
                    .iter()
                    .position(|&k| active.discovery.mods[k].manifest.id == id);
                let refused = active.refused.iter().find(|r| r.id == id);
                let detail = match (on, place, refused) {
                    (_, Some(k), _) => format!("on, loads {}", k + 1),
                    (true, None, Some(r)) => {
                        notes.push(r.to_string());
                        "on, refused".to_owned()
                    }
                    (true, None, None) => "on".to_owned(),
                    (false, ..) => "off".to_owned(),
                };
                lines.push((
                    Self::line(id, detail, true),
                    Choice::ToggleMod(id.to_owned()),
                ));
            }
            for b in &active.discovery.broken {
                lines.push((
                    Self::line(&b.id, "broken".to_owned(), false),
                    Choice::Nothing,
                ));
                notes.push(b.to_string());
            }
        }
        lines.push((Self::line("Back", String::new(), true), Choice::Back));
        let hint = if notes.is_empty() {
            "Enter turns a mod on or off, Left/Right loads it earlier or later; it applies to the next mission you start".to_owned()
        } else {
            notes.join(" ")
        };
        Self::assemble("MODS", lines, hint)
    }

    /// Turns mod `id` on or off in the player's list (saved at once; a failure is said in
    /// the log and changes nothing).
    fn toggle_mod(&self, id: &str) {
        let Some((_, list_path, _)) = &self.mods else {
            return;
        };
        let result = iron3d_mods::ModList::load(list_path).and_then(|mut list| {
            let on = if list.enabled().iter().any(|e| e == id) {
                list.disable(id);
                false
            } else {
                list.enable(id)?;
                true
            };
            list.save(list_path).map(|()| on)
        });
        match result {
            Ok(on) => {
                tracing::info!(target: "Iron3D", mod_id = id, on, "mod list changed: applies to the next mission started")
            }
            Err(e) => {
                tracing::warn!(target: "Iron3D", error = %iron3d_abi::error_chain(&e), "mod list not changed")
            }
        }
    }

    /// The subfolders of `dir` in name order, hidden ones (`.wine`: a game installed
    /// under Wine) after the others, at most [`MAX_LISTED_FOLDERS`], each with whether it
    /// holds a `MISSIONS` folder (any case).
    fn folders_of(dir: &Path) -> Vec<(String, PathBuf, bool)> {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, PathBuf, bool)> = rd
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .map(|(name, path)| {
                let game = std::fs::read_dir(&path).is_ok_and(|mut rd| {
                    rd.any(|e| {
                        e.is_ok_and(|e| {
                            e.file_name().eq_ignore_ascii_case("missions") && e.path().is_dir()
                        })
                    })
                });
                (name, path, game)
            })
            .collect();
        out.sort_by(|a, b| {
            (a.0.starts_with('.'), a.0.to_lowercase(), &a.0).cmp(&(
                b.0.starts_with('.'),
                b.0.to_lowercase(),
                &b.0,
            ))
        });
        out.truncate(MAX_LISTED_FOLDERS);
        out
    }

    fn game_dir_page(&self) -> (ListView, Vec<Choice>) {
        use crate::dir_check::CheckState;
        let here = self.browse.display().to_string();
        let mut hint = format!(
            "Now: {}. Enter opens a folder; the first line checks the folder shown (every file through its reader) and then plays it",
            self.game_dir.display()
        );
        let first = match self.check.as_ref().map(crate::dir_check::DirCheck::state) {
            None => (
                Self::line("Check this folder", here, true),
                Choice::CheckDir,
            ),
            Some(CheckState::Running { done, total }) => {
                hint = format!("Checking {here}: every file through its reader");
                let detail = if *total == 0 {
                    "listing the files".to_owned()
                } else {
                    format!("{done}/{total} files")
                };
                (Self::line("Checking", detail, false), Choice::Nothing)
            }
            Some(CheckState::Done(Ok(s))) => {
                let found = if s.problems.is_empty() {
                    "clean".to_owned()
                } else {
                    let more = s.problems.len() - 1;
                    hint = if more > 0 {
                        format!("{} ({more} more problems)", s.problems[0])
                    } else {
                        s.problems[0].clone()
                    };
                    format!("{} problems", s.problems.len())
                };
                if s.playable() {
                    (
                        Self::line(
                            "Play this folder",
                            format!("{} missions, {} files, {found}", s.missions, s.files),
                            true,
                        ),
                        Choice::UseDir(self.browse.clone()),
                    )
                } else {
                    hint = format!("{here}: no folder under MISSIONS/ holds a data.tma");
                    (
                        Self::line("Not a game directory", format!("{} files", s.files), false),
                        Choice::Nothing,
                    )
                }
            }
            Some(CheckState::Done(Err(e))) => {
                hint.clone_from(e);
                (Self::line("Cannot check", here, false), Choice::Nothing)
            }
        };
        let mut lines = vec![
            first,
            (
                Self::line(
                    "The embedded demo",
                    "built by our own writers".to_owned(),
                    true,
                ),
                Choice::UseDemo,
            ),
        ];
        if let Some(parent) = self.browse.parent() {
            lines.push((
                Self::line("..", parent.display().to_string(), true),
                Choice::Browse(parent.to_path_buf()),
            ));
        }
        for (name, path, game) in &self.folders.1 {
            let detail = if *path == self.game_dir {
                "playing now"
            } else if *game {
                "has MISSIONS/"
            } else {
                ""
            };
            lines.push((
                Self::line(name, detail.to_owned(), true),
                Choice::Browse(path.clone()),
            ));
        }
        lines.push((Self::line("Back", String::new(), true), Choice::Back));
        Self::assemble("GAME DIRECTORY", lines, hint)
    }

    fn controls_page(&self) -> (ListView, Vec<Choice>) {
        let mut lines: Vec<(ListLine, Choice)> = Vec::new();
        let hint = match &self.controls {
            Ok((b, user)) => {
                for a in iron3d_config::bindings::ACTIONS {
                    let inputs = b.get(a.name).map_or_else(String::new, |bd| {
                        bd.inputs
                            .iter()
                            .map(|(i, _)| i.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    });
                    let detail = if inputs.is_empty() {
                        "-".to_owned()
                    } else {
                        inputs
                    };
                    lines.push((Self::line(a.name, detail, true), Choice::Nothing));
                }
                match user {
                    Some(u) => format!(
                        "The shipped bindings with yours ({}) over them; `iron3d bindings list` shows where each was written",
                        u.display()
                    ),
                    None => "The shipped bindings (config/bindings.ini); put yours in ~/.config/iron3d/bindings.ini".to_owned(),
                }
            }
            Err(e) => {
                lines.push((
                    Self::line("bindings not read", String::new(), false),
                    Choice::Nothing,
                ));
                e.clone()
            }
        };
        lines.push((Self::line("Back", String::new(), true), Choice::Back));
        Self::assemble("CONTROLS", lines, hint)
    }

    fn slots_page(&self, saving: bool) -> (ListView, Vec<Choice>) {
        let dir = self.save_dir.clone().unwrap_or_default();
        let slots = self.slots();
        let describe = |m: &iron3d_save::SlotMeta, s: &SlotStatus| match s {
            SlotStatus::Ready(_) => {
                format!("{} {} tick {}", m.mission, clock(m.game_time_ms), m.tick)
            }
            other => format!("{} ({})", m.mission, other.word()),
        };
        let mut lines: Vec<(ListLine, Choice)> = Vec::new();
        if saving {
            for k in 1..=MANUAL_SLOTS {
                let slot = format!("slot{k}");
                let detail = slots
                    .iter()
                    .find(|(m, _)| m.slot == slot)
                    .map_or_else(|| "empty".to_owned(), |(m, s)| describe(m, s));
                lines.push((Self::line(&slot, detail, true), Choice::SaveSlot(slot)));
            }
        } else {
            for (m, s) in &slots {
                let ready = matches!(s, SlotStatus::Ready(_));
                lines.push((
                    Self::line(&m.slot, describe(m, s), ready),
                    if ready {
                        Choice::LoadFile(dir.join(&m.file))
                    } else {
                        Choice::Nothing
                    },
                ));
            }
        }
        lines.push((Self::line("Back", String::new(), true), Choice::Back));
        let (title, hint) = if saving {
            (
                "SAVE GAME",
                "Enter: save into the slot (a slot in use is replaced; its last save is kept as .bak)",
            )
        } else if slots.is_empty() {
            (
                "LOAD GAME",
                "No saves yet: F5 saves while playing, the pause menu has Save game",
            )
        } else {
            (
                "LOAD GAME",
                "Enter: load. A missing, damaged or stale slot (the list and its file disagree) cannot load",
            )
        };
        Self::assemble(title, lines, hint.to_owned())
    }

    fn assemble(
        title: &str,
        lines: Vec<(ListLine, Choice)>,
        hint: String,
    ) -> (ListView, Vec<Choice>) {
        let (lines, choices) = lines.into_iter().unzip();
        (
            ListView {
                title: title.to_owned(),
                lines,
                hint,
            },
            choices,
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

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
}
