//! The screens of a mission and the overlay of one frame.
//!
//! * **Briefing** (before the first tick): the briefing's heading and paragraphs, the
//!   objectives, and how to start.
//! * **Playing**: the selection markers (corner brackets around each selected unit as
//!   the frame's camera sees it), a top bar (mission, the player's resources, FPS and
//!   tick), the objectives panel, the messages whose time has come, and the selection.
//! * **Paused**: the play screen dimmed under the pause menu ([`MENU`]).
//! * **Settings**: the play screen dimmed under the settings list (the lines the
//!   launcher gives in [`HudState::settings`], then "Back").
//! * **Outcome**: mission complete or failed, and what the keys do next.
//! * **List**: a titled list of entries over the dimmed scene — the main menu, the
//!   mission list, the save and load slots — whose lines the launcher gives in
//!   [`HudState::list`] (a disabled line is drawn grey and says why in its detail; a
//!   list longer than the screen scrolls with the highlight, PD-HUD-LIST-SCROLL).
//!
//! The layout is a pure function of the [`HudState`], the mission's text and the
//! target size: the same state gives the same quads.

use crate::font::Font;
use crate::mission::MissionText;
use crate::text::{Painter, cp1251, wrap};
use abi_stable::std_types::{RArc, RVec};
use iron3d_abi::Overlay;
use iron3d_config::objectives::Side;

/// An entry of the pause menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuItem {
    /// Back to the game.
    Resume,
    /// The save screen (the manual slots).
    SaveGame,
    /// The load screen (every slot of the list).
    LoadGame,
    /// The settings screen.
    Settings,
    /// The mission again from its start.
    Restart,
    /// The main menu (the game stays held behind it).
    MainMenu,
    /// Leave the game.
    Quit,
}

/// The pause menu, top to bottom.
pub const MENU: [(MenuItem, &str); 7] = [
    (MenuItem::Resume, "Resume"),
    (MenuItem::SaveGame, "Save game"),
    (MenuItem::LoadGame, "Load game"),
    (MenuItem::Settings, "Settings"),
    (MenuItem::Restart, "Restart mission"),
    (MenuItem::MainMenu, "Main menu"),
    (MenuItem::Quit, "Quit"),
];

/// The pause menu's line of `item`.
pub fn menu_index(item: MenuItem) -> usize {
    MENU.iter().position(|(i, _)| *i == item).unwrap_or(0)
}

/// Which screen is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The briefing, before the mission starts.
    Briefing,
    /// The game.
    Playing,
    /// The pause menu with entry `item` of [`MENU`] highlighted.
    Paused {
        /// Highlighted entry.
        item: usize,
    },
    /// The settings list with line `item` highlighted (the last line is "Back").
    Settings {
        /// Highlighted line.
        item: usize,
    },
    /// The mission is decided.
    Outcome {
        /// Complete (`true`) or failed.
        complete: bool,
        /// Enter goes on to the campaign's next mission (instead of playing again).
        next: bool,
    },
    /// The list of [`HudState::list`] with line `item` highlighted.
    List {
        /// Highlighted line.
        item: usize,
    },
}

/// One line of a [`ListView`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListLine {
    /// What the line is (left).
    pub label: String,
    /// What it says about it (right): a mission's state, a slot's tick and status.
    pub detail: String,
    /// Whether it can be chosen (a disabled line is grey).
    pub enabled: bool,
}

/// A list screen: title, lines, and the keys' hint under them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListView {
    /// The heading (drawn large).
    pub title: String,
    /// The lines, top to bottom.
    pub lines: Vec<ListLine>,
    /// A note under the list (what the keys do, or why nothing can be chosen).
    pub hint: String,
}

/// What a [`Marker`] marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerKind {
    /// A selected unit (green brackets).
    Selected,
    /// The followed or possessed unit (yellow brackets).
    Subject,
}

/// A marker around a unit on screen (the frame's selection markers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marker {
    /// The unit's centre in target pixels.
    pub centre: [f32; 2],
    /// Half the side of the bracketed square in pixels.
    pub half: f32,
    /// What it marks.
    pub kind: MarkerKind,
}

/// What the HUD shows this frame (the launcher fills it from the session).
#[derive(Clone, Debug, PartialEq)]
pub struct HudState {
    /// The screen.
    pub screen: Screen,
    /// Presented frames per second.
    pub fps: f32,
    /// Last simulation tick.
    pub tick: u64,
    /// Game time in seconds (messages are timed on it).
    pub game_seconds: f32,
    /// The player's resources: name and amount (CP1251 names).
    pub resources: Vec<(Vec<u8>, i64)>,
    /// Lines describing the selection (CP1251), empty when nothing is selected.
    pub selection: Vec<Vec<u8>>,
    /// Markers around units on screen, drawn under the panels.
    pub markers: Vec<Marker>,
    /// The settings screen's lines: label and value.
    pub settings: Vec<(String, String)>,
    /// Messages triggered during play (PD-HUD-TRIGGERED): game second it came at, and
    /// the text it named (a `messages.cfg` block name or the text itself, CP1251); at
    /// most [`MAX_TRIGGERED`], oldest dropped first.
    pub triggered: Vec<(f32, Vec<u8>)>,
    /// Warnings shown on every screen in a red banner under the top bar, one line each
    /// (wrapped to the width): a registry slot running a fallback plugin, an empty
    /// registry. Empty: no banner.
    pub warnings: Vec<Vec<u8>>,
    /// The match's status lines, centred in a panel over the game (a multiplayer
    /// match: "Waiting for players", the chat line being typed). Empty: no panel.
    pub status: Vec<Vec<u8>>,
    /// The list [`Screen::List`] shows.
    pub list: ListView,
}

/// Most triggered messages a HUD state keeps.
pub const MAX_TRIGGERED: usize = 32;

impl HudState {
    /// Adds a message triggered at game second `at` (PD-HUD-TRIGGERED), dropping the
    /// oldest past [`MAX_TRIGGERED`].
    pub fn trigger(&mut self, at: f32, text: Vec<u8>) {
        if self.triggered.len() == MAX_TRIGGERED {
            self.triggered.remove(0);
        }
        self.triggered.push((at, text));
    }
}

impl Default for HudState {
    fn default() -> Self {
        Self {
            screen: Screen::Playing,
            fps: 0.0,
            tick: 0,
            game_seconds: 0.0,
            resources: Vec::new(),
            selection: Vec::new(),
            markers: Vec::new(),
            settings: Vec::new(),
            triggered: Vec::new(),
            warnings: Vec::new(),
            status: Vec::new(),
            list: ListView::default(),
        }
    }
}

const WHITE: [u8; 4] = [255, 255, 255, 255];
const GREY: [u8; 4] = [190, 190, 190, 255];
const YELLOW: [u8; 4] = [255, 220, 90, 255];
const GREEN: [u8; 4] = [110, 230, 110, 255];
const RED: [u8; 4] = [240, 90, 80, 255];
const PANEL: [u8; 4] = [0, 0, 0, 150];
const DIM: [u8; 4] = [0, 0, 0, 190];
const HIGHLIGHT: [u8; 4] = [70, 110, 170, 230];
/// The list screens' backdrop: the scene shows through, darker than the pause menu's.
const LIST_BACKDROP: [u8; 4] = [8, 12, 20, 215];
const BANNER: [u8; 4] = [150, 20, 20, 230];

/// The HUD of one mission: its font, its text and the overlay texture identity.
#[derive(Clone, Debug)]
pub struct Hud {
    font: Font,
    text: MissionText,
    textures: RArc<RVec<iron3d_abi::TextureLevel>>,
    textures_id: u64,
}

/// The overlay texture of the font.
const FONT_TEXTURE: u32 = 0;

impl Hud {
    /// The HUD of a mission with `text`, drawn in `font`.
    pub fn new(font: Font, text: MissionText) -> Self {
        // The textures' identity is their content (FNV-1a of the atlas).
        let a = font.atlas();
        let mut id: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in a
            .width
            .to_le_bytes()
            .iter()
            .chain(&a.height.to_le_bytes())
            .chain(a.rgba.iter())
        {
            id = (id ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        let textures = RArc::new(RVec::from(vec![a.clone()]));
        Self {
            font,
            text,
            textures,
            textures_id: id,
        }
    }

    /// The mission's text.
    pub fn text(&self) -> &MissionText {
        &self.text
    }

    /// The integer magnification for a target `height` pixels high.
    pub fn scale(height: u32) -> u32 {
        (height / 360).max(1)
    }

    fn menu_rows(&self, width: u32, height: u32) -> (f32, f32, f32, f32) {
        let s = Self::scale(height) as f32;
        let (_, ch) = self.font.cell();
        let row = (ch as f32 * s * 1.75).floor();
        let top = (height as f32 * 0.3).floor();
        let w = width as f32 * 0.5;
        ((width as f32 - w) * 0.5, top, w, row)
    }

    /// The settings list's rows for a `width × height` target: left, top, width, row
    /// height.
    fn settings_rows(&self, width: u32, height: u32) -> (f32, f32, f32, f32) {
        let s = Self::scale(height) as f32;
        let (_, ch) = self.font.cell();
        let row = (ch as f32 * s * 1.5).floor();
        let top = (height as f32 * 0.15).floor();
        let w = width as f32 * 0.7;
        ((width as f32 - w) * 0.5, top, w, row)
    }

    /// The row of `rows` laid out as `(left, top, width, row)` under pixel `(x, y)`.
    fn row_at(layout: (f32, f32, f32, f32), rows: usize, x: f32, y: f32) -> Option<usize> {
        let (left, top, w, row) = layout;
        if x < left || x >= left + w || y < top || row <= 0.0 {
            return None;
        }
        let k = ((y - top) / row) as usize;
        (k < rows).then_some(k)
    }

    /// The pause-menu entry under the pixel `(x, y)` of a `width × height` target.
    pub fn menu_item_at(&self, width: u32, height: u32, x: f32, y: f32) -> Option<usize> {
        Self::row_at(self.menu_rows(width, height), MENU.len(), x, y)
    }

    /// The settings line under the pixel `(x, y)` of a `width × height` target, for a
    /// list of `lines` settings (the line after them is "Back").
    pub fn settings_item_at(
        &self,
        width: u32,
        height: u32,
        lines: usize,
        x: f32,
        y: f32,
    ) -> Option<usize> {
        Self::row_at(self.settings_rows(width, height), lines + 1, x, y)
    }

    /// The list screen's rows for a `width × height` target: left, top, width, row
    /// height.
    fn list_rows(&self, width: u32, height: u32) -> (f32, f32, f32, f32) {
        let s = Self::scale(height) as f32;
        let (_, ch) = self.font.cell();
        let row = (ch as f32 * s * 1.75).floor();
        let top = (height as f32 * 0.3).floor();
        let w = width as f32 * 0.7;
        ((width as f32 - w) * 0.5, top, w, row)
    }

    /// The lines a list of `lines` lines shows on a `width × height` target with line
    /// `item` highlighted: the first one shown and how many (**PD-HUD-LIST-SCROLL**: a
    /// list longer than the room under its title scrolls so the highlighted line stays
    /// in the middle of what is shown, as far as the ends allow; the room keeps three
    /// rows for the hint).
    pub fn list_window(
        &self,
        width: u32,
        height: u32,
        lines: usize,
        item: usize,
    ) -> (usize, usize) {
        let (_, top, _, row) = self.list_rows(width, height);
        let room = if row > 0.0 {
            ((height as f32 - top - 3.0 * row) / row).floor().max(1.0) as usize
        } else {
            1
        };
        if lines <= room {
            return (0, lines);
        }
        let first = item.saturating_sub(room / 2).min(lines - room);
        (first, room)
    }

    /// The list line under the pixel `(x, y)` of a `width × height` target, for a list
    /// of `lines` lines with line `item` highlighted (which decides the scroll).
    pub fn list_item_at(
        &self,
        width: u32,
        height: u32,
        lines: usize,
        item: usize,
        x: f32,
        y: f32,
    ) -> Option<usize> {
        let (first, shown) = self.list_window(width, height, lines, item);
        Self::row_at(self.list_rows(width, height), shown, x, y).map(|k| first + k)
    }

    /// The overlay of one frame for a `width × height` target.
    pub fn overlay(&self, state: &HudState, width: u32, height: u32) -> Overlay {
        let s = Self::scale(height);
        let mut p = Painter::new(&self.font, FONT_TEXTURE, s);
        let (cw, ch) = p.cell();
        let (w, h) = (width as f32, height as f32);
        let pad = 2.0 * s as f32;
        let columns = ((w - 4.0 * cw) / cw).max(8.0) as usize;
        match state.screen {
            Screen::Briefing => {
                p.rect(0.0, 0.0, w, h, DIM);
                let mut big = Painter::new(&self.font, FONT_TEXTURE, s * 2);
                let mut y = (h * 0.12).floor();
                big.text_centred(w * 0.5, y, &self.text.title, YELLOW);
                y += big.cell().1 + ch;
                for para in &self.text.briefing {
                    for line in wrap(para, columns) {
                        p.text(2.0 * cw, y, &line, WHITE);
                        y += ch + pad;
                    }
                }
                y += ch;
                y = self.objectives(&mut p, 2.0 * cw, y, columns);
                y += ch;
                p.text(
                    2.0 * cw,
                    y.min(h - 2.0 * ch),
                    b"Press Enter to start",
                    GREEN,
                );
                Self::warnings(&mut p, &state.warnings, w, columns);
                let mut quads = p.finish();
                quads.extend(big.finish());
                return self.finish(quads);
            }
            Screen::Playing | Screen::Paused { .. } | Screen::Settings { .. } => {
                self.play_screen(&mut p, state, w, h);
                Self::status(&mut p, &state.status, w, h, columns);
            }
            Screen::Outcome { .. } => {}
            Screen::List { item } => {
                p.rect(0.0, 0.0, w, h, LIST_BACKDROP);
                let mut big = Painter::new(&self.font, FONT_TEXTURE, s * 2);
                let (left, top, mw, row) = self.list_rows(width, height);
                let title = cp1251(&state.list.title);
                big.text_centred(w * 0.5, (top - 3.0 * row).max(ch), &title, YELLOW);
                let lines = &state.list.lines;
                let (first, shown) = self.list_window(width, height, lines.len(), item);
                if first > 0 {
                    p.text_centred(w * 0.5, top - ch, b"(more above)", GREY);
                }
                for (r, line) in lines.iter().skip(first).take(shown).enumerate() {
                    let k = first + r;
                    let y = top + r as f32 * row;
                    if k == item {
                        p.rect(left, y, mw, row, HIGHLIGHT);
                    }
                    let ty = y + (row - ch) * 0.5;
                    let (label, detail) = if line.enabled {
                        (WHITE, GREEN)
                    } else {
                        (GREY, GREY)
                    };
                    p.text(left + cw, ty, &cp1251(&line.label), label);
                    let d = cp1251(&line.detail);
                    p.text(left + mw - cw * (d.len() as f32 + 1.0), ty, &d, detail);
                }
                let mut y = top + shown as f32 * row;
                if first + shown < lines.len() {
                    p.text_centred(w * 0.5, y, b"(more below)", GREY);
                }
                y += ch * 1.5;
                for (k, l) in wrap(&cp1251(&state.list.hint), columns).iter().enumerate() {
                    p.text_centred(w * 0.5, (y + k as f32 * ch).min(h - 2.0 * ch), l, GREY);
                }
                Self::warnings(&mut p, &state.warnings, w, columns);
                let mut quads = p.finish();
                quads.extend(big.finish());
                return self.finish(quads);
            }
        }
        match state.screen {
            Screen::Paused { item } => {
                p.rect(0.0, 0.0, w, h, DIM);
                let (left, top, mw, row) = self.menu_rows(width, height);
                p.text_centred(w * 0.5, top - 2.0 * row, b"PAUSED", YELLOW);
                for (k, (_, label)) in MENU.iter().enumerate() {
                    let y = top + k as f32 * row;
                    if k == item {
                        p.rect(left, y, mw, row, HIGHLIGHT);
                    }
                    p.text_centred(w * 0.5, y + (row - ch) * 0.5, label.as_bytes(), WHITE);
                }
            }
            Screen::Settings { item } => {
                p.rect(0.0, 0.0, w, h, DIM);
                let (left, top, mw, row) = self.settings_rows(width, height);
                p.text_centred(w * 0.5, top - 2.0 * ch, b"SETTINGS", YELLOW);
                let back = (String::from("Back"), String::new());
                for (k, (label, value)) in state.settings.iter().chain([&back]).enumerate() {
                    let y = top + k as f32 * row;
                    if k == item {
                        p.rect(left, y, mw, row, HIGHLIGHT);
                    }
                    let ty = y + (row - ch) * 0.5;
                    p.text(left + cw, ty, &cp1251(label), WHITE);
                    let v = cp1251(value);
                    p.text(left + mw - cw * (v.len() as f32 + 1.0), ty, &v, GREEN);
                }
                let y = top + (state.settings.len() + 1) as f32 * row + ch;
                p.text_centred(
                    w * 0.5,
                    y.min(h - 2.0 * ch),
                    b"Up/Down choose, Left/Right change, Esc back",
                    GREY,
                );
            }
            Screen::Outcome { complete, next } => {
                p.rect(0.0, 0.0, w, h, DIM);
                let mut big = Painter::new(&self.font, FONT_TEXTURE, s * 2);
                let (word, color) = if complete {
                    (&b"MISSION COMPLETE"[..], GREEN)
                } else {
                    (&b"MISSION FAILED"[..], RED)
                };
                big.text_centred(w * 0.5, (h * 0.35).floor(), word, color);
                Self::status(&mut p, &state.status, w, h, columns);
                p.text_centred(
                    w * 0.5,
                    (h * 0.35).floor() + big.cell().1 + 2.0 * ch,
                    if next {
                        &b"Enter: next mission    Esc: quit"[..]
                    } else {
                        &b"Enter: play again    Esc: quit"[..]
                    },
                    WHITE,
                );
                Self::warnings(&mut p, &state.warnings, w, columns);
                let mut quads = p.finish();
                quads.extend(big.finish());
                return self.finish(quads);
            }
            _ => {}
        }
        Self::warnings(&mut p, &state.warnings, w, columns);
        let quads = p.finish();
        self.finish(quads)
    }

    /// The warnings banner: a red panel under the top bar, every line wrapped to
    /// `columns`, drawn over whatever the screen shows.
    fn warnings(p: &mut Painter<'_>, warnings: &[Vec<u8>], w: f32, columns: usize) {
        if warnings.is_empty() {
            return;
        }
        let (cw, ch) = p.cell();
        let pad = (ch / 6.0).floor().max(1.0);
        let lines: Vec<Vec<u8>> = warnings
            .iter()
            .flat_map(|l| wrap(l, columns.saturating_sub(2).max(8)))
            .collect();
        let top = ch + 3.0 * pad;
        let height = lines.len() as f32 * ch + 2.0 * pad;
        p.rect(0.0, top, w, height, BANNER);
        for (k, line) in lines.iter().enumerate() {
            p.text(cw, top + pad + k as f32 * ch, line, WHITE);
        }
    }

    /// The match's status panel: every line wrapped to `columns`, centred a fifth of
    /// the way down.
    fn status(p: &mut Painter<'_>, status: &[Vec<u8>], w: f32, h: f32, columns: usize) {
        if status.is_empty() {
            return;
        }
        let (cw, ch) = p.cell();
        let pad = (ch / 6.0).floor().max(1.0);
        let lines: Vec<Vec<u8>> = status
            .iter()
            .flat_map(|l| wrap(l, columns.saturating_sub(4).max(8)))
            .collect();
        let widest = lines.iter().map(Vec::len).max().unwrap_or(0) as f32 * cw;
        let top = (h * 0.2).floor();
        p.rect(
            ((w - widest) * 0.5 - cw).max(0.0),
            top - pad,
            (widest + 2.0 * cw).min(w),
            lines.len() as f32 * ch + 2.0 * pad,
            PANEL,
        );
        for (k, line) in lines.iter().enumerate() {
            p.text_centred(w * 0.5, top + k as f32 * ch, line, WHITE);
        }
    }

    fn finish(&self, quads: Vec<iron3d_abi::OverlayQuad>) -> Overlay {
        Overlay {
            textures_id: self.textures_id,
            textures: self.textures.clone(),
            quads: quads.into(),
        }
    }

    /// The objectives list from `(x, y)`; returns the y below it.
    fn objectives(&self, p: &mut Painter<'_>, x: f32, mut y: f32, columns: usize) -> f32 {
        let (_, ch) = p.cell();
        if self.text.objectives.is_empty() {
            return y;
        }
        p.text(x, y, b"Objectives", YELLOW);
        y += ch;
        for (side, line) in &self.text.objectives {
            let (mark, color) = match side {
                Side::Win => (b'+', WHITE),
                Side::Lose => (b'-', GREY),
            };
            let mut text = vec![mark, b' '];
            text.extend_from_slice(line);
            for l in wrap(&text, columns) {
                p.text(x, y, &l, color);
                y += ch;
            }
        }
        y
    }

    /// Corner brackets around each marker that is on the target (bars `thick` wide).
    fn markers(p: &mut Painter<'_>, markers: &[Marker], w: f32, h: f32, thick: f32) {
        for m in markers {
            let [x, y] = m.centre;
            let half = m.half.max(2.0 * thick);
            if !(x.is_finite() && y.is_finite() && half.is_finite())
                || x + half < 0.0
                || y + half < 0.0
                || x - half > w
                || y - half > h
            {
                continue;
            }
            let color = match m.kind {
                MarkerKind::Selected => GREEN,
                MarkerKind::Subject => YELLOW,
            };
            let len = (half * 0.5).max(thick);
            let (x0, y0, x1, y1) = (x - half, y - half, x + half, y + half);
            for (cx, cy, dx, dy) in [
                (x0, y0, 1.0, 1.0),
                (x1, y0, -1.0, 1.0),
                (x0, y1, 1.0, -1.0),
                (x1, y1, -1.0, -1.0),
            ] {
                // A horizontal and a vertical bar from the corner inwards.
                let hx = if dx > 0.0 { cx } else { cx - len };
                let vy = if dy > 0.0 { cy } else { cy - len };
                let ty = if dy > 0.0 { cy } else { cy - thick };
                let tx = if dx > 0.0 { cx } else { cx - thick };
                p.rect(hx, ty, len, thick, color);
                p.rect(tx, vy, thick, len, color);
            }
        }
    }

    fn play_screen(&self, p: &mut Painter<'_>, state: &HudState, w: f32, h: f32) {
        let (cw, ch) = p.cell();
        let pad = (ch / 6.0).floor().max(1.0);
        Self::markers(p, &state.markers, w, h, pad.max(1.0));
        // Top bar: mission left, resources and statistics right.
        p.rect(0.0, 0.0, w, ch + 2.0 * pad, PANEL);
        p.text(pad, pad, &self.text.title, WHITE);
        let mut right = Vec::new();
        for (name, amount) in &state.resources {
            right.extend_from_slice(name);
            right.extend_from_slice(format!(" {amount}   ").as_bytes());
        }
        right.extend_from_slice(format!("FPS {:.0}  T {}", state.fps, state.tick).as_bytes());
        let rw = right.len() as f32 * cw;
        p.text((w - rw - pad).max(pad), pad, &right, GREY);
        // Objectives under it, left.
        let columns = ((w * 0.45) / cw).max(8.0) as usize;
        let mut y = ch + 4.0 * pad;
        if !self.text.objectives.is_empty() {
            let rows: usize = self
                .text
                .objectives
                .iter()
                .map(|(_, l)| wrap(l, columns.saturating_sub(2)).len())
                .sum::<usize>()
                + 1;
            p.panel(pad, y, columns, rows, pad, PANEL);
            y = self.objectives(p, pad, y, columns);
        }
        let _ = y;
        // Messages whose time has come, bottom centre, newest lowest.
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let now = state.game_seconds;
        let triggered = state
            .triggered
            .iter()
            .filter(|(at, _)| now >= *at && now < *at + crate::mission::MESSAGE_SECONDS)
            .map(|(_, named)| self.text.triggered(named));
        let timed = self.text.messages_at(now).map(|m| m.text.clone());
        for paragraphs in timed.chain(triggered) {
            for para in &paragraphs {
                lines.extend(wrap(para, ((w * 0.8) / cw) as usize));
            }
        }
        let keep = lines.len().saturating_sub(6);
        let mut y = h - (lines.len() - keep) as f32 * ch - 3.0 * ch;
        for line in &lines[keep..] {
            p.text_centred(w * 0.5, y, line, YELLOW);
            y += ch;
        }
        // Selection, bottom left.
        if !state.selection.is_empty() {
            let n = state.selection.len().min(4);
            let top = h - n as f32 * ch - 2.0 * pad;
            let widest = state.selection[..n].iter().map(Vec::len).max().unwrap_or(0);
            p.panel(pad, top, widest, n, pad, PANEL);
            for (k, line) in state.selection[..n].iter().enumerate() {
                p.text(pad, top + k as f32 * ch, line, WHITE);
            }
        }
    }
}

/// `text` in CP1251 (for HUD lines built from Rust strings).
pub fn line(text: &str) -> Vec<u8> {
    cp1251(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_abi::overlay::composite;

    fn hud() -> Hud {
        let text = MissionText::load(
            "BATTLE",
            Some(b"object Briefing\n Title \"\xc1\xe8\xf2\xe2\xe0\"\n Text \"Destroy the enemy base.\"\nend\n"),
            Some(b"object M\n Time 5\n Text \"Enemy spotted\"\nend\nobject Objective1\n Text \"The enemy base is gone.\"\nend\n"),
            Some(b"clan 0\nwin destroy 1\nlose time 600\n"),
        )
        .unwrap();
        Hud::new(Font::builtin(), text)
    }

    /// Whether the glyph quads of `text` (spaces left out) lie in a row somewhere in the
    /// overlay.
    fn has(o: &Overlay, text: &[u8]) -> bool {
        let f = Font::builtin();
        let uvs: Vec<[f32; 4]> = text
            .iter()
            .filter(|&&b| b > b' ')
            .map(|&b| f.uv(b))
            .collect();
        o.quads.windows(uvs.len()).any(|w| {
            w.iter()
                .zip(&uvs)
                .all(|(q, uv)| q.uv == *uv && q.texture == 0)
        })
    }

    fn drawn(o: &Overlay, w: u32, h: u32) -> Vec<u8> {
        let mut img = vec![0u8; (w * h * 4) as usize];
        assert_eq!(composite(o, w, h, &mut img), 0);
        img
    }

    #[test]
    fn every_screen_draws_and_the_same_state_gives_the_same_quads() {
        let hud = hud();
        let mut state = HudState {
            resources: vec![(b"Ore".to_vec(), 1200)],
            selection: vec![line("Tank 4096")],
            fps: 60.0,
            tick: 42,
            game_seconds: 6.0,
            ..HudState::default()
        };
        for screen in [
            Screen::Briefing,
            Screen::Playing,
            Screen::Paused { item: 1 },
            Screen::Outcome {
                complete: true,
                next: false,
            },
            Screen::Outcome {
                complete: true,
                next: true,
            },
            Screen::Outcome {
                complete: false,
                next: false,
            },
        ] {
            state.screen = screen;
            let a = hud.overlay(&state, 640, 480);
            assert!(a.quads.len() > 5, "{screen:?} draws");
            assert_eq!(
                a,
                hud.overlay(&state, 640, 480),
                "{screen:?} is a pure function"
            );
            assert!(drawn(&a, 640, 480).iter().any(|&b| b != 0));
        }
    }

    #[test]
    fn the_warnings_banner_shows_on_every_screen() {
        let hud = hud();
        let f = Font::builtin();
        let line = b"PLUGIN MISSING: slot ai runs iron3d-null";
        let uvs: Vec<[f32; 4]> = line
            .iter()
            .filter(|&&b| b > b' ')
            .map(|&b| f.uv(b))
            .collect();
        let has = |o: &Overlay| {
            o.quads.windows(uvs.len()).any(|w| {
                w.iter()
                    .zip(&uvs)
                    .all(|(q, uv)| q.uv == *uv && q.texture == 0)
            })
        };
        for screen in [
            Screen::Briefing,
            Screen::Playing,
            Screen::Paused { item: 0 },
            Screen::Settings { item: 0 },
            Screen::Outcome {
                complete: false,
                next: false,
            },
        ] {
            let mut state = HudState {
                screen,
                ..HudState::default()
            };
            assert!(
                !has(&hud.overlay(&state, 640, 480)),
                "{screen:?}: no banner"
            );
            state.warnings = vec![line.to_vec(), b"  not found; searched: /x".to_vec()];
            let o = hud.overlay(&state, 640, 480);
            assert!(has(&o), "{screen:?} shows the banner");
            assert!(
                o.quads.iter().any(|q| q.color == BANNER),
                "{screen:?}: on its red panel"
            );
        }
    }

    #[test]
    fn the_screens_show_their_text() {
        let hud = hud();
        let mut state = HudState {
            screen: Screen::Briefing,
            ..HudState::default()
        };
        let o = hud.overlay(&state, 640, 480);
        assert!(has(&o, b"\xc1\xe8\xf2\xe2\xe0"), "the CP1251 heading");
        assert!(has(&o, b"Destroy the enemy base."));
        assert!(has(&o, b"Destroy every unit of clan 1"));
        state.screen = Screen::Playing;
        state.resources = vec![(b"Ore".to_vec(), 1200)];
        state.game_seconds = 4.0;
        let o = hud.overlay(&state, 640, 480);
        assert!(has(&o, b"Ore 1200"));
        assert!(!has(&o, b"Enemy spotted"), "not yet");
        state.game_seconds = 5.5;
        assert!(has(&hud.overlay(&state, 640, 480), b"Enemy spotted"));
        // Triggered messages (PD-HUD-TRIGGERED): a block by name, else the text itself,
        // for MESSAGE_SECONDS from when they came.
        assert!(!has(
            &hud.overlay(&state, 640, 480),
            b"The enemy base is gone."
        ));
        state.trigger(5.0, b"Objective1".to_vec());
        state.trigger(5.5, b"Reinforcements landed".to_vec());
        let o = hud.overlay(&state, 640, 480);
        assert!(has(&o, b"The enemy base is gone.") && has(&o, b"Reinforcements landed"));
        assert!(!has(&o, b"Objective1"), "the block's text, not its name");
        state.game_seconds = 15.2;
        let o = hud.overlay(&state, 640, 480);
        assert!(!has(&o, b"The enemy base is gone.") && has(&o, b"Reinforcements landed"));
        for k in 0..40 {
            state.trigger(k as f32, vec![b'x']);
        }
        assert_eq!(state.triggered.len(), MAX_TRIGGERED);
        assert_eq!(state.triggered[0].0, 8.0, "the oldest went first");
        state.triggered.clear();
        state.game_seconds = 5.5;
        state.screen = Screen::Outcome {
            complete: false,
            next: false,
        };
        assert!(has(&hud.overlay(&state, 640, 480), b"MISSION FAILED"));
        state.screen = Screen::Paused { item: 0 };
        let o = hud.overlay(&state, 640, 480);
        assert!(has(&o, b"Restart mission") && has(&o, b"Settings") && has(&o, b"Quit"));
        assert!(has(&o, b"Save game") && has(&o, b"Load game") && has(&o, b"Main menu"));
        state.screen = Screen::Settings { item: 1 };
        state.settings = vec![
            ("Resolution".into(), "1280 x 720".into()),
            ("Invert Y".into(), "off".into()),
        ];
        let o = hud.overlay(&state, 640, 480);
        assert!(has(&o, b"SETTINGS") && has(&o, b"1280 x 720") && has(&o, b"Invert Y"));
        assert!(has(&o, b"Back"));
    }

    #[test]
    fn settings_hits_follow_the_drawn_rows() {
        let hud = hud();
        let (w, h) = (800, 600);
        let (left, top, mw, row) = hud.settings_rows(w, h);
        for k in 0..=10 {
            let y = top + (k as f32 + 0.5) * row;
            assert_eq!(hud.settings_item_at(w, h, 10, left + mw * 0.5, y), Some(k));
        }
        assert_eq!(
            hud.settings_item_at(w, h, 10, left + 1.0, top + 11.0 * row + 1.0),
            None
        );
        assert_eq!(hud.settings_item_at(w, h, 10, left - 1.0, top + 1.0), None);
    }

    #[test]
    fn the_list_screen_draws_its_title_lines_and_hint_and_hits_follow_its_rows() {
        let hud = hud();
        let state = HudState {
            screen: Screen::List { item: 1 },
            list: ListView {
                title: "IRON3D-RS".into(),
                lines: vec![
                    ListLine {
                        label: "Continue".into(),
                        detail: "nothing saved yet".into(),
                        enabled: false,
                    },
                    ListLine {
                        label: "New campaign".into(),
                        detail: "3 missions".into(),
                        enabled: true,
                    },
                ],
                hint: "Up/Down choose".into(),
            },
            ..HudState::default()
        };
        let o = hud.overlay(&state, 640, 480);
        assert_eq!(
            o.quads,
            hud.overlay(&state, 640, 480).quads,
            "same state, same quads"
        );
        for text in [
            &b"IRON3D"[..],
            b"Continue",
            b"nothing",
            b"campaign",
            b"missions",
            b"Up/Down",
        ] {
            assert!(has(&o, text), "{}", String::from_utf8_lossy(text));
        }
        assert!(drawn(&o, 640, 480).iter().any(|&b| b != 0));
        let (w, h) = (640, 480);
        let (left, top, mw, row) = hud.list_rows(w, h);
        for k in 0..2 {
            let y = top + (k as f32 + 0.5) * row;
            assert_eq!(hud.list_item_at(w, h, 2, 1, left + mw * 0.5, y), Some(k));
        }
        assert_eq!(
            hud.list_item_at(w, h, 2, 1, left + 1.0, top + 2.0 * row + 1.0),
            None
        );
        assert_eq!(hud.list_item_at(w, h, 2, 1, left - 1.0, top + 1.0), None);
        // PD-HUD-LIST-SCROLL: 40 lines (the original's Part 2 has 31 missions) do not fit
        // 480 pixels; the highlighted line is always shown, mid-list as far as the ends
        // allow, and a click hits the line drawn there.
        let (first, shown) = hud.list_window(w, h, 40, 0);
        assert_eq!(first, 0);
        assert!((5..40).contains(&shown), "{shown}");
        for item in 0..40 {
            let (first, shown) = hud.list_window(w, h, 40, item);
            assert!(
                (first..first + shown).contains(&item),
                "{item}: {first}+{shown}"
            );
            assert!(first + shown <= 40);
            let r = item - first;
            let y = top + (r as f32 + 0.5) * row;
            assert_eq!(
                hud.list_item_at(w, h, 40, item, left + mw * 0.5, y),
                Some(item)
            );
        }
        let long = HudState {
            screen: Screen::List { item: 39 },
            list: ListView {
                title: "SINGLE MISSION".into(),
                lines: (0..40)
                    .map(|k| ListLine {
                        label: format!("Mission.{k:02}"),
                        detail: String::new(),
                        enabled: true,
                    })
                    .collect(),
                hint: "Enter".into(),
            },
            ..HudState::default()
        };
        let o = hud.overlay(&long, w, h);
        assert!(has(&o, b"Mission.39") && has(&o, b"(more above)"));
        assert!(!has(&o, b"Mission.00") && !has(&o, b"(more below)"));
    }

    #[test]
    fn markers_bracket_units_on_the_target_and_skip_the_rest() {
        let hud = hud();
        let solid = |o: &Overlay, color: [u8; 4]| -> Vec<[f32; 4]> {
            o.quads
                .iter()
                .filter(|q| q.texture == iron3d_abi::NO_TEXTURE && q.color == color)
                .map(|q| q.rect)
                .collect()
        };
        let mut state = HudState::default();
        let bare = solid(&hud.overlay(&state, 640, 480), GREEN).len();
        state.markers = vec![
            Marker {
                centre: [320.0, 240.0],
                half: 20.0,
                kind: MarkerKind::Selected,
            },
            // Off the target, and not finite: nothing.
            Marker {
                centre: [-100.0, 240.0],
                half: 20.0,
                kind: MarkerKind::Selected,
            },
            Marker {
                centre: [f32::NAN, 240.0],
                half: 20.0,
                kind: MarkerKind::Selected,
            },
            Marker {
                centre: [100.0, 100.0],
                half: 10.0,
                kind: MarkerKind::Subject,
            },
        ];
        let o = hud.overlay(&state, 640, 480);
        let green = solid(&o, GREEN);
        assert_eq!(green.len() - bare, 8, "four corners of two bars each");
        // Every bar of the on-screen marker lies on its square's outline.
        for r in &green[..8] {
            let (x0, y0, x1, y1) = (r[0], r[1], r[2], r[3]);
            assert!(
                x0 >= 300.0 && x1 <= 340.0 && y0 >= 220.0 && y1 <= 260.0,
                "{r:?}"
            );
            let on_edge = x0 == 300.0 || x1 == 340.0 || y0 == 220.0 || y1 == 260.0;
            assert!(on_edge, "{r:?}");
        }
        assert_eq!(solid(&o, YELLOW).len(), 8);
        // Markers are drawn first: under the panels.
        assert_eq!(o.quads[0].color, GREEN);
    }

    #[test]
    fn menu_hits_follow_the_drawn_rows() {
        let hud = hud();
        let (w, h) = (640, 480);
        let (left, top, mw, row) = hud.menu_rows(w, h);
        for k in 0..MENU.len() {
            let y = top + (k as f32 + 0.5) * row;
            assert_eq!(hud.menu_item_at(w, h, left + mw * 0.5, y), Some(k));
        }
        assert_eq!(hud.menu_item_at(w, h, left - 1.0, top + 1.0), None);
        assert_eq!(hud.menu_item_at(w, h, left + 1.0, top - 1.0), None);
        assert_eq!(
            hud.menu_item_at(w, h, left + 1.0, top + MENU.len() as f32 * row + 1.0),
            None
        );
    }

    #[test]
    fn tiny_and_huge_targets_lay_out_without_panics() {
        let hud = hud();
        for (w, h) in [(1, 1), (16, 9), (160, 120), (3840, 2160)] {
            for screen in [
                Screen::Briefing,
                Screen::Playing,
                Screen::Paused { item: 2 },
                Screen::Settings { item: 3 },
            ] {
                let state = HudState {
                    screen,
                    ..HudState::default()
                };
                let o = hud.overlay(&state, w, h);
                assert!(o.quads.iter().all(|q| q.rect.iter().all(|v| v.is_finite())));
            }
        }
    }
}
