//! The player's settings: `$XDG_CONFIG_HOME/iron3d/settings.toml` (else
//! `~/.config/iron3d/settings.toml`), written by the settings screen and read at start.
//!
//! ```toml
//! [video]
//! width = 1280          # 320..=7680
//! height = 720          # 240..=4320
//! fullscreen = false
//! renderer = "vulkan"   # vulkan | soft | capture | LIBRARY[:FACTORY]
//!
//! [audio]               # bus volumes, 0.0..=1.0
//! master = 1.0
//! effects = 1.0
//! ambient = 1.0
//! voice = 1.0
//! music = 0.8
//!
//! [input]
//! mouse_sensitivity = 1.0   # 0.1..=5.0, scales mouse motion (mouse look, aiming)
//! invert_y = false          # mouse motion up looks down
//!
//! [saves]
//! autosave_minutes = 5      # 0..=120 minutes of game time between autosaves; 0: none
//! autosave_slots = 3        # 1..=9 slots the autosaves rotate through
//!
//! [game]
//! directory = ""            # the game directory the main menu's picker chose
//!                           # (an absolute path); "": the embedded demo
//! ```
//!
//! **Strict**: an unknown table or key, a value of the wrong type or out of its range is
//! an error naming the file, line and column. Every key may be left out (its default
//! applies). **PD-SETTINGS-BROKEN**: a file that does not parse is reported and the
//! defaults apply; it is never overwritten — saving first moves it aside to
//! `settings.toml.broken`, so nothing the player wrote is lost. **PD-CONFIG-FILE**: only
//! a regular file of at most 1 MiB is read ([`crate::file`]); anything else is refused
//! by name — a broken file like any other.

use crate::error::ConfigError;
use crate::file::{FileError, MAX_FILE_BYTES, read_regular};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file name in the user's configuration directory.
pub const SETTINGS_FILE: &str = "settings.toml";

/// Everything the settings screen changes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Window and renderer.
    pub video: Video,
    /// Bus volumes.
    pub audio: Audio,
    /// Mouse.
    pub input: Input,
    /// Autosaves.
    pub saves: Saves,
    /// The game directory.
    pub game: Game,
}

/// The game `play` opens its main menu over when no `--game-dir` is given.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Game {
    /// The game directory chosen in the main menu (an absolute path; empty: the
    /// embedded demo).
    pub directory: String,
}

/// Autosave settings (`play`: the game saves itself every so many minutes of game time,
/// rotating through a few slots of the save folder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Saves {
    /// Minutes of game time between autosaves, `0..=120` (`0`: no autosave).
    pub autosave_minutes: u32,
    /// Slots the autosaves rotate through, `1..=9`.
    pub autosave_slots: u32,
}

impl Default for Saves {
    fn default() -> Self {
        Self {
            autosave_minutes: 5,
            autosave_slots: 3,
        }
    }
}

/// Autosave interval range (minutes; 0 turns autosaves off).
pub const AUTOSAVE_MINUTES: (u32, u32) = (0, 120);
/// Autosave slot count range.
pub const AUTOSAVE_SLOTS: (u32, u32) = (1, 9);

/// Window and renderer settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Video {
    /// Window width in pixels.
    pub width: u32,
    /// Window height in pixels.
    pub height: u32,
    /// Borderless fullscreen on the current monitor.
    pub fullscreen: bool,
    /// The renderer at start (`vulkan`, `soft`, `capture` or `LIBRARY[:FACTORY]`).
    pub renderer: String,
}

impl Default for Video {
    fn default() -> Self {
        Self {
            width: 1280,
            height: 720,
            fullscreen: false,
            renderer: "vulkan".to_owned(),
        }
    }
}

/// Bus volumes, each `0.0..=1.0`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Audio {
    /// Everything.
    pub master: f32,
    /// Weapons, engines, explosions.
    pub effects: f32,
    /// Weather and surroundings.
    pub ambient: f32,
    /// Mission voice lines.
    pub voice: f32,
    /// Ambient music.
    pub music: f32,
}

impl Default for Audio {
    fn default() -> Self {
        Self {
            master: 1.0,
            effects: 1.0,
            ambient: 1.0,
            voice: 1.0,
            music: 0.8,
        }
    }
}

/// Mouse settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Input {
    /// Scale of mouse motion, `0.1..=5.0`.
    pub mouse_sensitivity: f32,
    /// Mouse motion up looks down.
    pub invert_y: bool,
}

impl Default for Input {
    fn default() -> Self {
        Self {
            mouse_sensitivity: 1.0,
            invert_y: false,
        }
    }
}

/// Window sizes the settings screen steps through.
pub const RESOLUTIONS: [(u32, u32); 7] = [
    (640, 480),
    (800, 600),
    (1024, 768),
    (1280, 720),
    (1600, 900),
    (1920, 1080),
    (2560, 1440),
];
/// Renderers the settings screen steps through.
pub const RENDERERS: [&str; 2] = ["vulkan", "soft"];
/// Width range.
pub const WIDTH: (u32, u32) = (320, 7680);
/// Height range.
pub const HEIGHT: (u32, u32) = (240, 4320);
/// Sensitivity range.
pub const SENSITIVITY: (f32, f32) = (0.1, 5.0);

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, before.len() - start + 1)
}

/// The line and column of `key` in `[table]` of `text` (for range errors), found by
/// the TOML parser itself, so every way of writing it counts: a header with a comment
/// after it (`[video]  # comment`), quoted or dotted keys, an inline table. The start
/// of the file when it is not there (only for text that did not parse).
fn key_position(text: &str, table: &str, key: &str) -> (usize, usize) {
    let Ok(root) = toml::de::DeTable::parse(text) else {
        return (1, 1);
    };
    let found = root
        .get_ref()
        .iter()
        .find(|(k, _)| k.get_ref() == table)
        .and_then(|(_, v)| v.get_ref().as_table())
        .and_then(|t| t.iter().find(|(k, _)| k.get_ref() == key))
        .map(|(k, _)| k.span().start);
    found.map_or((1, 1), |at| line_column(text, at))
}

/// Characters of a name or value echoed in a message (the rest is cut and marked `…`).
const SHOWN_CHARS: usize = 64;

/// A TOML parser message with every `` `quoted` `` part cut to [`SHOWN_CHARS`]
/// characters and escaped (an unknown key may be as long as the file).
fn clip_quoted(message: &str) -> String {
    let mut out = String::new();
    for (k, part) in message.split('`').enumerate() {
        if k > 0 {
            out.push('`');
        }
        if k % 2 == 1 {
            out.extend(part.chars().take(SHOWN_CHARS).flat_map(char::escape_debug));
            if part.chars().nth(SHOWN_CHARS).is_some() {
                out.push('…');
            }
        } else {
            out.push_str(part);
        }
    }
    out
}

impl Settings {
    /// Parses and checks a settings file (`origin` names it in errors).
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, ConfigError> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let (line, column) = line_column(
                &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
                e.valid_up_to(),
            );
            ConfigError::at(origin, line, column, "not UTF-8 text".to_owned())
        })?;
        let s: Settings = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |r| line_column(text, r.start));
            ConfigError::at(origin, line, column, clip_quoted(e.message()))
        })?;
        s.check().map_err(|(table, key, why)| {
            let (line, column) = key_position(text, table, key);
            ConfigError::at(origin, line, column, format!("[{table}] {key}: {why}"))
        })?;
        Ok(s)
    }

    /// Range checks: `(table, key, why)` of the first value out of range.
    fn check(&self) -> Result<(), (&'static str, &'static str, String)> {
        let v = &self.video;
        if !(WIDTH.0..=WIDTH.1).contains(&v.width) {
            return Err((
                "video",
                "width",
                format!("{} is not in {}..={}", v.width, WIDTH.0, WIDTH.1),
            ));
        }
        if !(HEIGHT.0..=HEIGHT.1).contains(&v.height) {
            return Err((
                "video",
                "height",
                format!("{} is not in {}..={}", v.height, HEIGHT.0, HEIGHT.1),
            ));
        }
        if v.renderer.trim().is_empty() {
            return Err(("video", "renderer", "empty".to_owned()));
        }
        let a = &self.audio;
        for (key, value) in [
            ("master", a.master),
            ("effects", a.effects),
            ("ambient", a.ambient),
            ("voice", a.voice),
            ("music", a.music),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(("audio", key, format!("{value} is not in 0.0..=1.0")));
            }
        }
        let m = self.input.mouse_sensitivity;
        if !(SENSITIVITY.0..=SENSITIVITY.1).contains(&m) {
            return Err((
                "input",
                "mouse_sensitivity",
                format!("{m} is not in {}..={}", SENSITIVITY.0, SENSITIVITY.1),
            ));
        }
        let g = &self.game.directory;
        if !g.is_empty() && !Path::new(g).is_absolute() {
            return Err((
                "game",
                "directory",
                format!("{g:?} is not an absolute path"),
            ));
        }
        let s = &self.saves;
        for (key, value, (lo, hi)) in [
            ("autosave_minutes", s.autosave_minutes, AUTOSAVE_MINUTES),
            ("autosave_slots", s.autosave_slots, AUTOSAVE_SLOTS),
        ] {
            if !(lo..=hi).contains(&value) {
                return Err(("saves", key, format!("{value} is not in {lo}..={hi}")));
            }
        }
        Ok(())
    }

    /// The file's text (every key written, so the player sees what can be changed).
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# Iron3D-rs settings (the settings screen writes this file; see the README)\n\n{body}"
        )
    }

    /// Reads `path`: the defaults when it does not exist; an error naming the file
    /// when it is not a regular file of at most [`MAX_FILE_BYTES`] (PD-CONFIG-FILE: a
    /// FIFO is refused before it is opened), cannot be read or does not parse.
    pub fn load(path: &Path) -> Result<Self, SettingsError> {
        match read_regular(path, MAX_FILE_BYTES) {
            Ok(bytes) => Ok(Self::parse(&bytes, &path.display().to_string())?),
            Err(e) if e.is_not_found() => Ok(Self::default()),
            Err(e) => Err(SettingsError::File(e)),
        }
    }

    /// Writes the settings to `path` atomically (a temporary file renamed over it),
    /// creating the directory. A file there that does not parse — or anything there that
    /// is no regular file or is over [`MAX_FILE_BYTES`] — is first moved aside to
    /// `<path>.broken` (PD-SETTINGS-BROKEN); nothing there is read unbounded or waited on.
    pub fn save(&self, path: &Path) -> Result<(), SettingsError> {
        let io = |source| SettingsError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let broken = match read_regular(path, MAX_FILE_BYTES) {
            Ok(old) => Self::parse(&old, "").is_err(),
            Err(FileError::NotRegular { .. } | FileError::TooLarge { .. }) => true,
            Err(FileError::Io { .. }) => false,
        };
        if broken {
            let mut aside = path.as_os_str().to_owned();
            aside.push(".broken");
            std::fs::rename(path, &aside).map_err(io)?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, self.to_toml()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// The user's settings file (`None` without `XDG_CONFIG_HOME` and `HOME`).
pub fn user_file() -> Option<PathBuf> {
    crate::bindings::user_dir().map(|d| d.join(SETTINGS_FILE))
}

/// Why the settings could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file does not parse.
    #[error(transparent)]
    Parse(#[from] ConfigError),
    /// The file is not a regular file of at most [`MAX_FILE_BYTES`] (PD-CONFIG-FILE).
    /// (Shown whole, with no separate cause, so a log line tells all.)
    #[error("settings file {0}")]
    File(FileError),
    /// The file could not be read or written.
    #[error("settings file {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// One line of the settings screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// Window size (steps through [`RESOLUTIONS`]).
    Resolution,
    /// Fullscreen on / off.
    Fullscreen,
    /// Renderer (steps through [`RENDERERS`]).
    Renderer,
    /// A bus volume (0: master, 1: effects, 2: ambient, 3: voice, 4: music).
    Volume(u8),
    /// Mouse sensitivity.
    Sensitivity,
    /// Invert Y on / off.
    InvertY,
}

/// The settings screen's lines, top to bottom.
pub const ITEMS: [Item; 10] = [
    Item::Resolution,
    Item::Fullscreen,
    Item::Renderer,
    Item::Volume(0),
    Item::Volume(1),
    Item::Volume(2),
    Item::Volume(3),
    Item::Volume(4),
    Item::Sensitivity,
    Item::InvertY,
];

fn on_off(v: bool) -> String {
    if v { "on" } else { "off" }.to_owned()
}

impl Item {
    /// What the line is called.
    pub fn label(self) -> &'static str {
        match self {
            Item::Resolution => "Resolution",
            Item::Fullscreen => "Fullscreen",
            Item::Renderer => "Renderer",
            Item::Volume(0) => "Master volume",
            Item::Volume(1) => "Effects volume",
            Item::Volume(2) => "Ambient volume",
            Item::Volume(3) => "Voice volume",
            Item::Volume(_) => "Music volume",
            Item::Sensitivity => "Mouse sensitivity",
            Item::InvertY => "Invert Y",
        }
    }

    fn volume_of(s: &Settings, bus: u8) -> f32 {
        let a = &s.audio;
        match bus {
            0 => a.master,
            1 => a.effects,
            2 => a.ambient,
            3 => a.voice,
            _ => a.music,
        }
    }

    fn volume(s: &mut Settings, bus: u8) -> &mut f32 {
        match bus {
            0 => &mut s.audio.master,
            1 => &mut s.audio.effects,
            2 => &mut s.audio.ambient,
            3 => &mut s.audio.voice,
            _ => &mut s.audio.music,
        }
    }

    /// The line's value as shown.
    pub fn value(self, s: &Settings) -> String {
        match self {
            Item::Resolution => format!("{} x {}", s.video.width, s.video.height),
            Item::Fullscreen => on_off(s.video.fullscreen),
            Item::Renderer => s.video.renderer.clone(),
            Item::Volume(bus) => format!("{:.0}%", Self::volume_of(s, bus) * 100.0),
            Item::Sensitivity => format!("{:.1}", s.input.mouse_sensitivity),
            Item::InvertY => on_off(s.input.invert_y),
        }
    }

    /// Steps the value by `step` (left: −1, right / Enter: +1), staying in range: the
    /// next resolution or renderer (wrapping), a tenth of a volume or sensitivity
    /// (clamped), a switch toggled.
    pub fn adjust(self, s: &mut Settings, step: i32) {
        self.adjust_with(s, step, &[]);
    }

    /// [`Item::adjust`] where the renderer also steps through `extra_renderers` after
    /// [`RENDERERS`] (the renderers of enabled mods).
    pub fn adjust_with(self, s: &mut Settings, step: i32, extra_renderers: &[String]) {
        let cycle = |at: Option<usize>, len: usize| -> usize {
            let len = len as i64;
            let from = at.map_or(if step > 0 { -1 } else { 0 }, |i| i as i64);
            (from + i64::from(step.signum())).rem_euclid(len) as usize
        };
        match self {
            Item::Resolution => {
                let at = RESOLUTIONS
                    .iter()
                    .position(|&r| r == (s.video.width, s.video.height));
                (s.video.width, s.video.height) = RESOLUTIONS[cycle(at, RESOLUTIONS.len())];
            }
            Item::Fullscreen => s.video.fullscreen = !s.video.fullscreen,
            Item::Renderer => {
                let all: Vec<&str> = RENDERERS
                    .iter()
                    .copied()
                    .chain(extra_renderers.iter().map(String::as_str))
                    .collect();
                let at = all.iter().position(|&r| r == s.video.renderer);
                s.video.renderer = all[cycle(at, all.len())].to_owned();
            }
            Item::Volume(bus) => {
                let v = Self::volume(s, bus);
                // Whole tenths, so repeated steps do not drift.
                *v = ((*v * 10.0).round() + step.signum() as f32).clamp(0.0, 10.0) / 10.0;
            }
            Item::Sensitivity => {
                let m = &mut s.input.mouse_sensitivity;
                *m = (((*m * 10.0).round() + step.signum() as f32) / 10.0)
                    .clamp(SENSITIVITY.0, SENSITIVITY.1);
            }
            Item::InvertY => s.input.invert_y = !s.input.invert_y,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests fail loudly")]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn the_documented_example_parses_and_an_empty_file_is_the_defaults() {
        let doc = include_str!("settings.rs")
            .lines()
            .skip_while(|l| !l.starts_with("//! ```toml"))
            .skip(1)
            .take_while(|l| !l.starts_with("//! ```"))
            .map(|l| l.trim_start_matches("//!").trim_start_matches(' '))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            Settings::parse(doc.as_bytes(), "doc").unwrap(),
            Settings::default()
        );
        assert_eq!(Settings::parse(b"", "empty").unwrap(), Settings::default());
        let s = Settings::parse(b"[input]\ninvert_y = true\n", "f").unwrap();
        assert!(s.input.invert_y && s.video == Video::default());
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let e = Settings::parse(b"[video]\nwidth = 800\nheigth = 600\n", "s.toml").unwrap_err();
        assert_eq!((e.origin(), e.line(), e.column()), ("s.toml", 3, 1), "{e}");
        assert!(e.message().contains("heigth"), "{e}");
        let e = Settings::parse(b"[video]\nwidth = \"wide\"\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 9), "{e}");
        let e = Settings::parse(b"[sound]\n", "s.toml").unwrap_err();
        assert_eq!(e.line(), 1, "{e}");
        let e = Settings::parse(b"[audio]\nmaster = 0.5\n  music = 1.5\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 3), "{e}");
        assert!(
            e.message().contains("music") && e.message().contains("1.5"),
            "{e}"
        );
        let e = Settings::parse(b"[video]\nwidth = 100000\n", "s.toml").unwrap_err();
        assert_eq!(e.line(), 2, "{e}");
        let e = Settings::parse(b"[input]\nmouse_sensitivity = nan\n", "s.toml").unwrap_err();
        assert_eq!(e.line(), 2, "{e}");
        let e = Settings::parse(b"[video]\nrenderer = \"\xff\"\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 13), "{e}");
    }

    #[test]
    fn range_errors_point_at_the_key_however_the_table_is_written() {
        // The documented example's style: a comment after the table header.
        let e = Settings::parse(
            b"[video] # window\nwidth = 1280\nheight = 100 # too small\n",
            "s.toml",
        )
        .unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 1), "{e}");
        let e = Settings::parse(b"# top\n[ audio ]   # buses\n\n  master = 2.0\n", "s.toml")
            .unwrap_err();
        assert_eq!((e.line(), e.column()), (4, 3), "{e}");
        // Quoted, dotted and inline keys.
        let e = Settings::parse(b"[input]\n\"mouse_sensitivity\" = 9.0\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 1), "{e}");
        let e = Settings::parse(b"\n\nvideo.width = 1\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 7), "{e}");
        let e = Settings::parse(b"audio = { music = 3.0 }\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (1, 11), "{e}");
        // The autosave table.
        let e = Settings::parse(
            b"[saves]\nautosave_minutes = 5\nautosave_slots = 0\n",
            "s.toml",
        )
        .unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 1), "{e}");
        assert!(e.message().contains("0 is not in 1..=9"), "{e}");
        let s = Settings::parse(b"[saves]\nautosave_minutes = 0\n", "s.toml").unwrap();
        assert_eq!(
            s.saves,
            Saves {
                autosave_minutes: 0,
                autosave_slots: 3
            }
        );
        // The game directory: absolute, or empty for the demo.
        let e = Settings::parse(b"[game]\ndirectory = \"parkan\"\n", "s.toml").unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 1), "{e}");
        assert!(e.message().contains("not an absolute path"), "{e}");
        let s = Settings::parse(b"[game]\ndirectory = \"/games/parkan\"\n", "s.toml").unwrap();
        assert_eq!(s.game.directory, "/games/parkan");
        assert_eq!(Settings::default().game.directory, "");
    }

    #[test]
    fn an_oversized_key_is_cut_in_the_message() {
        let key = format!("w\t{}", "x".repeat(200_000));
        let text = format!("[video]\n\"{key}\" = 1\n");
        let e = Settings::parse(text.as_bytes(), "s.toml").unwrap_err();
        assert_eq!(e.line(), 2, "{e}");
        assert!(
            e.message().contains(&format!("`w\\t{}…`", "x".repeat(62))),
            "{e}"
        );
        assert!(e.to_string().len() < 400, "{} bytes", e.to_string().len());
    }

    #[test]
    fn only_a_regular_file_of_bounded_size_is_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let name = |e: &SettingsError| anyhow_like(e);
        let path = dir.path().join(SETTINGS_FILE);
        std::fs::create_dir(&path).unwrap();
        let e = Settings::load(&path).unwrap_err();
        assert!(
            name(&e).contains(&format!(
                "{}: not a regular file (a directory)",
                path.display()
            )),
            "{}",
            name(&e)
        );
        std::fs::remove_dir(&path).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
        let e = Settings::load(&path).unwrap_err();
        assert!(
            name(&e).contains("not a regular file (a character device)"),
            "{}",
            name(&e)
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::File::create(&path)
            .unwrap()
            .set_len(100 << 20)
            .unwrap();
        let e = Settings::load(&path).unwrap_err();
        assert!(
            name(&e).contains("104857600 bytes or more, limit 1048576"),
            "{}",
            name(&e)
        );
        // Saving over such a file moves it aside first, as for a broken one.
        Settings::default().save(&path).unwrap();
        assert_eq!(Settings::load(&path).unwrap(), Settings::default());
        std::fs::remove_file(&path).unwrap();
        std::fs::remove_file(dir.path().join("settings.toml.broken")).unwrap();
        if std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = Settings::load(&path).unwrap_err();
            assert!(
                name(&e).contains("not a regular file (a FIFO)"),
                "{}",
                name(&e)
            );
            Settings::default().save(&path).unwrap();
            assert!(
                std::fs::metadata(dir.path().join("settings.toml.broken"))
                    .unwrap()
                    .file_type()
                    .is_fifo()
            );
        }
    }

    /// The error with its causes, as `{:#}` of anyhow shows it.
    fn anyhow_like(e: &dyn std::error::Error) -> String {
        let mut s = e.to_string();
        let mut cause = e.source();
        while let Some(c) = cause {
            s.push_str(": ");
            s.push_str(&c.to_string());
            cause = c.source();
        }
        s
    }

    #[test]
    fn saved_settings_read_back_and_a_broken_file_is_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("iron3d").join(SETTINGS_FILE);
        assert_eq!(Settings::load(&path).unwrap(), Settings::default());
        let mut s = Settings::default();
        s.video.renderer = "soft".into();
        s.audio.music = 0.3;
        s.input.mouse_sensitivity = 2.5;
        s.save(&path).unwrap();
        assert_eq!(Settings::load(&path).unwrap(), s);
        std::fs::write(&path, b"[video\nbroken").unwrap();
        assert!(matches!(
            Settings::load(&path),
            Err(SettingsError::Parse(_))
        ));
        s.save(&path).unwrap();
        assert_eq!(Settings::load(&path).unwrap(), s);
        let aside = dir.path().join("iron3d").join("settings.toml.broken");
        assert_eq!(std::fs::read(aside).unwrap(), b"[video\nbroken");
    }

    #[test]
    fn items_step_within_their_ranges() {
        let mut s = Settings::default();
        Item::Resolution.adjust(&mut s, 1);
        assert_eq!((s.video.width, s.video.height), (1600, 900));
        Item::Resolution.adjust(&mut s, -1);
        Item::Resolution.adjust(&mut s, -1);
        assert_eq!((s.video.width, s.video.height), (1024, 768));
        // A size off the list steps onto it.
        s.video.width = 1111;
        Item::Resolution.adjust(&mut s, 1);
        assert_eq!((s.video.width, s.video.height), RESOLUTIONS[0]);
        Item::Renderer.adjust(&mut s, 1);
        assert_eq!(s.video.renderer, "soft");
        Item::Renderer.adjust(&mut s, 1);
        assert_eq!(s.video.renderer, "vulkan");
        for _ in 0..15 {
            Item::Volume(4).adjust(&mut s, 1);
        }
        assert_eq!(s.audio.music, 1.0);
        for _ in 0..3 {
            Item::Volume(4).adjust(&mut s, -1);
        }
        assert_eq!(Item::Volume(4).value(&s), "70%");
        for _ in 0..100 {
            Item::Sensitivity.adjust(&mut s, -1);
        }
        assert_eq!(s.input.mouse_sensitivity, SENSITIVITY.0);
        Item::InvertY.adjust(&mut s, 1);
        assert_eq!(Item::InvertY.value(&s), "on");
        // Whatever the steps, the result is valid.
        assert!(Settings::parse(s.to_toml().as_bytes(), "round trip").is_ok());
    }
}
