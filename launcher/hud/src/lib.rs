//! The heads-up display of `iron3d play`, built on the kernel side as the frame's
//! screen overlay (interface 2.4, [`iron3d_abi::overlay`]) so every renderer draws the
//! same HUD from the same quads.
//!
//! * [`font`] — the CP1251 bitmap font (**PD-HUD-FONT**): a Texm atlas of 16 × 16
//!   glyph cells, from the game directory or built in.
//! * [`text`] — CP1251 text, word wrapping and the quad painter.
//! * [`mission`] — what a mission says to the player: `briefing.cfg`, `messages.cfg`
//!   (**PD-HUD-TEXT**) and `Objectives.txt`.
//! * [`screen`] — the screens of a mission (briefing, play, pause menu, success,
//!   failure) and the overlay of one frame ([`screen::Hud::overlay`]).
//! * [`view`] — the HUD of a running mission: loaded through the VFS, counted from the
//!   kernel's world, and the frame preparer's overlay source with selection markers.

pub mod font;
pub mod mission;
pub mod screen;
pub mod text;
pub mod view;

pub use font::Font;
pub use mission::MissionText;
pub use screen::{
    Hud, HudState, ListLine, ListView, MENU, Marker, MarkerKind, MenuItem, Screen, menu_index,
};
pub use view::HudView;

/// Errors of the HUD's inputs: the font and the mission's text files.
#[derive(Debug, thiserror::Error)]
pub enum HudError {
    /// A font texture that is not valid Texm.
    #[error("HUD font {origin}: not a readable Texm texture")]
    Texm {
        /// The file (archive and entry).
        origin: String,
        /// The Texm reader's error.
        #[source]
        source: iron3d_texm::TexmError,
    },
    /// A valid texture that is not a font atlas of PD-HUD-FONT.
    #[error("HUD font {origin}: {why}")]
    Font {
        /// The file (archive and entry).
        origin: String,
        /// What is wrong.
        why: String,
    },
    /// A mission text file that does not parse.
    #[error("mission text {origin}: cannot be read")]
    Config {
        /// The file.
        origin: String,
        /// The configuration reader's error (file, line, column).
        #[source]
        source: iron3d_config::ConfigError,
    },
    /// A path of the game directory that is not valid (the mission's name).
    #[error("{origin}: not a valid game path")]
    Path {
        /// What was read.
        origin: String,
        /// The path error.
        #[source]
        source: iron3d_vfs::PathError,
    },
    /// The game directory could not be read.
    #[error("{origin}: cannot be read")]
    Vfs {
        /// What was read.
        origin: String,
        /// The VFS error (archive, entry, chain).
        #[source]
        source: Box<iron3d_vfs::VfsError>,
    },
    /// A file that could not be read.
    #[error("{origin}: cannot be read")]
    Io {
        /// The file.
        origin: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}
