//! Naming a mission: a directory under `MISSIONS/` or a path to a `data.tma` relative to
//! the game directory.

use crate::error::{MissionError, Stage};
use iron3d_vfs::{GamePath, Vfs};

/// A located mission.
#[derive(Clone, Debug)]
pub struct MissionRef {
    /// As named by the user.
    pub name: String,
    /// The mission directory (game-root-relative).
    pub dir: GamePath,
    /// Its `data.tma` (game-root-relative).
    pub tma: GamePath,
}

impl MissionRef {
    /// `MISSIONS/<name>/data.tma`, or `name` itself when it ends in `.tma`; the file must exist.
    pub fn locate(vfs: &Vfs, name: &str) -> Result<Self, MissionError> {
        let err = |cause: String| MissionError::new(Stage::Context, name, cause);
        let (dir, tma) = if name.to_ascii_lowercase().ends_with(".tma") {
            let tma = GamePath::parse(name).map_err(|e| err(e.to_string()))?;
            let parent = &tma.components()[..tma.components().len() - 1];
            let dir = if parent.is_empty() {
                GamePath::parse(".")
            } else {
                GamePath::parse(&parent.join("/"))
            };
            (dir.ok(), tma)
        } else {
            let dir =
                GamePath::parse(&format!("MISSIONS/{name}")).map_err(|e| err(e.to_string()))?;
            let tma = dir.join(&GamePath::parse("data.tma").map_err(|e| err(e.to_string()))?);
            (Some(dir), tma)
        };
        vfs.resolve(&tma).map_err(|e| err(e.to_string()))?;
        let dir =
            dir.ok_or_else(|| err("a data.tma in the game root has no mission directory".into()))?;
        Ok(Self {
            name: name.to_owned(),
            dir,
            tma,
        })
    }
}
