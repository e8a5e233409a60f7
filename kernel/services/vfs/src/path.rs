//! Legacy game paths: `\` or `/` separated, relative to the game root or a mission
//! context, compared ASCII-case-insensitively, original spelling kept for logs.

use std::fmt;

/// A validated game-relative path.
///
/// Components are split on `/` and `\`; empty and `.` components are dropped; `..` may
/// not climb above the root. Equality, ordering and lookup use the ASCII-lower-case
/// key ([`GamePath::key`]); [`GamePath::original`] is the text as written.
#[derive(Clone, Debug)]
pub struct GamePath {
    original: String,
    components: Vec<String>,
}

/// Why a path was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Empty after normalisation.
    #[error("empty path '{0}'")]
    Empty(String),
    /// `..` would leave the game root.
    #[error("path '{0}' climbs above the game root")]
    EscapesRoot(String),
    /// A drive letter or an absolute path where a game-relative one is required.
    #[error("path '{0}' is absolute; game paths are relative to the game root")]
    Absolute(String),
    /// A NUL byte inside the path.
    #[error("path '{0}' contains a NUL byte")]
    Nul(String),
}

impl GamePath {
    /// Parses a legacy path. A leading separator is accepted and means the game root.
    pub fn parse(text: &str) -> Result<Self, PathError> {
        if text.contains('\0') {
            return Err(PathError::Nul(text.escape_debug().to_string()));
        }
        let bytes = text.as_bytes();
        if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
            return Err(PathError::Absolute(text.to_owned()));
        }
        let mut components: Vec<String> = Vec::new();
        for part in text.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => {
                    if components.pop().is_none() {
                        return Err(PathError::EscapesRoot(text.to_owned()));
                    }
                }
                p => components.push(p.to_owned()),
            }
        }
        if components.is_empty() {
            return Err(PathError::Empty(text.to_owned()));
        }
        Ok(Self {
            original: text.to_owned(),
            components,
        })
    }

    /// The path as written.
    pub fn original(&self) -> &str {
        &self.original
    }

    /// The components with their original case.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// The lookup key: components lower-cased (ASCII only) and joined with `/`.
    pub fn key(&self) -> String {
        self.components
            .iter()
            .map(|c| c.to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// `self` followed by `rel` (for mission-context paths).
    pub fn join(&self, rel: &GamePath) -> GamePath {
        let mut components = self.components.clone();
        components.extend(rel.components.iter().cloned());
        GamePath {
            original: format!("{}/{}", self.original, rel.original),
            components,
        }
    }

    /// The last component (file name) as written.
    pub fn file_name(&self) -> &str {
        self.components.last().map_or("", String::as_str)
    }
}

impl PartialEq for GamePath {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for GamePath {}

impl fmt::Display for GamePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.original)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_separators_and_case_fold_to_one_key() {
        let a = GamePath::parse(r"MISSIONS\Campaign.00\Mission.01\data.tma").unwrap();
        let b = GamePath::parse("missions/campaign.00/MISSION.01/Data.TMA").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.key(), "missions/campaign.00/mission.01/data.tma");
        assert_eq!(a.original(), r"MISSIONS\Campaign.00\Mission.01\data.tma");
        assert_eq!(a.file_name(), "data.tma");
    }

    #[test]
    fn dots_and_empty_components_normalise_and_escapes_are_refused() {
        assert_eq!(GamePath::parse(r".\a\\b\..\c").unwrap().key(), "a/c");
        assert_eq!(
            GamePath::parse(r"\objects.rlb").unwrap().key(),
            "objects.rlb"
        );
        assert!(matches!(
            GamePath::parse(r"..\x"),
            Err(PathError::EscapesRoot(_))
        ));
        assert!(matches!(
            GamePath::parse(r"C:\game\x"),
            Err(PathError::Absolute(_))
        ));
        assert!(matches!(GamePath::parse(r"\.\"), Err(PathError::Empty(_))));
        assert!(matches!(GamePath::parse("a\0b"), Err(PathError::Nul(_))));
    }

    #[test]
    fn join_builds_mission_relative_paths() {
        let m = GamePath::parse(r"MISSIONS\M1").unwrap();
        let f = GamePath::parse("Land.msh").unwrap();
        assert_eq!(m.join(&f).key(), "missions/m1/land.msh");
    }
}
