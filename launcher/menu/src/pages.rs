//! The front menu's pages: what each page lists and what each line does.

use crate::{
    Choice, FrontMenu, MANUAL_SLOTS, MAX_LISTED_FOLDERS, NET_PORT, Page, clock, missions_of,
};
use iron3d_hud::{ListLine, ListView};
use iron3d_save::{SlotList, SlotStatus};
use std::path::{Path, PathBuf};

impl FrontMenu {
    pub(crate) fn line(label: &str, detail: String, enabled: bool) -> ListLine {
        ListLine {
            label: label.to_owned(),
            detail,
            enabled,
        }
    }

    /// The slots of the save folder with what their files say.
    pub(crate) fn slots(&self) -> Vec<(iron3d_save::SlotMeta, SlotStatus)> {
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
    pub(crate) fn newest_ready(
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

    pub(crate) fn main_page(&self) -> (ListView, Vec<Choice>) {
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

    pub(crate) fn multiplayer_page(&self) -> (ListView, Vec<Choice>) {
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

    pub(crate) fn missions_page(&self) -> (ListView, Vec<Choice>) {
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
    pub(crate) fn mods_state(
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

    pub(crate) fn mods_summary(&self) -> String {
        match self.mods_state() {
            None => "no mods folder".to_owned(),
            Some((active, _, _)) => format!(
                "{} installed, {} on",
                active.discovery.mods.len(),
                active.order.len()
            ),
        }
    }

    pub(crate) fn mods_page(&self) -> (ListView, Vec<Choice>) {
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
    pub(crate) fn toggle_mod(&self, id: &str) {
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
    pub(crate) fn folders_of(dir: &Path) -> Vec<(String, PathBuf, bool)> {
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

    pub(crate) fn game_dir_page(&self) -> (ListView, Vec<Choice>) {
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

    pub(crate) fn controls_page(&self) -> (ListView, Vec<Choice>) {
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

    pub(crate) fn slots_page(&self, saving: bool) -> (ListView, Vec<Choice>) {
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

    pub(crate) fn assemble(
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
