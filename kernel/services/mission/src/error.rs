//! The actionable error chain of a mission load (tome VII): mission, object index,
//! resource name, component, prototype, archive, entry, cause and offset.

use std::fmt;

/// The load stages of tome IV, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Mission directory and `data.tma` located.
    Context,
    /// `Land.msh`, `Land.map`, `BuildDat.lst`.
    WorldFoundation,
    /// `data.tma` parsed.
    Tma,
    /// Unit DAT → components → `objects.rlb` with inheritance.
    PrototypeResolution,
    /// Models (and, with the assets issue, materials and textures) prepared.
    ResourcePreparation,
    /// Objects constructed as pending (invisible to traversal).
    Construction,
    /// Cross-references checked.
    Validation,
    /// Objects registered in the queue (the last stage: the plugins already started on
    /// the mission when the session opened).
    Registration,
}

/// A failed load, with everything known about where it failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MissionError {
    /// The stage that failed.
    pub stage: Option<Stage>,
    /// Mission as named by the caller.
    pub mission: String,
    /// Index of the placed object in `data.tma`.
    pub object: Option<usize>,
    /// The object's resource name (prototype key or unit DAT path).
    pub resource: Option<String>,
    /// The unit DAT component (prototype key) being resolved.
    pub component: Option<String>,
    /// The prototype chain (keys from the requested one to the failing one).
    pub prototype: Option<String>,
    /// Archive involved.
    pub archive: Option<String>,
    /// Entry involved.
    pub entry: Option<String>,
    /// What went wrong.
    pub cause: String,
    /// Byte offset inside the file or entry, when known.
    pub offset: Option<u64>,
}

impl MissionError {
    /// An error of `stage` in `mission` with `cause`.
    pub fn new(stage: Stage, mission: &str, cause: impl Into<String>) -> Self {
        Self {
            stage: Some(stage),
            mission: mission.to_owned(),
            cause: cause.into(),
            ..Self::default()
        }
    }
}

impl fmt::Display for MissionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MissionLoadError")?;
        if let Some(s) = self.stage {
            writeln!(f, " stage: {s:?}")?;
        }
        writeln!(f, " mission: {}", self.mission)?;
        let fields = [
            ("object", self.object.map(|o| o.to_string())),
            ("resource_name", self.resource.clone()),
            ("component", self.component.clone()),
            ("prototype", self.prototype.clone()),
            ("archive", self.archive.clone()),
            ("entry", self.entry.clone()),
            ("offset", self.offset.map(|o| format!("0x{o:x}"))),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                writeln!(f, " {k}: {v}")?;
            }
        }
        write!(f, " cause: {}", self.cause)
    }
}

impl std::error::Error for MissionError {}
