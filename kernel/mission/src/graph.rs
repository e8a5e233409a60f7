//! The mission dependency graph: object → (direct key | unit DAT → components) →
//! `objects.rlb` prototype with inheritance → model, with reachability counts and, for
//! every failure, the full parent chain. Material slots, textures and lightmaps are
//! counted once the asset formats exist; until then the graph stops at the model and
//! its WEAR entry.

use crate::error::{MissionError, Stage};
use crate::source::{GameData, OBJECTS_RLB};
use iron3d_tma::Tma;
use iron3d_unitdat::{Geometry, Presence, ResourceProbe, UnitDat, ends_with_ignore_case, resolve};
use iron3d_vfs::GamePath;

/// Reachability counts (stable keys of `iron3d graph --json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphCounts {
    /// Placed objects.
    pub objects: usize,
    /// Objects that name a unit DAT.
    pub unit_refs: usize,
    /// Unit DAT components.
    pub components: usize,
    /// Prototype resolutions requested.
    pub prototype_requests: usize,
    /// Models reached.
    pub msh: usize,
    /// WEAR tables reached (`<model stem>.wea` beside the model).
    pub wear: usize,
    /// Material slots (0 until WEAR parsing exists).
    pub material_slots: usize,
    /// Texture requests (0 until MAT0 parsing exists).
    pub texture_requests: usize,
    /// Lightmaps (0 until WEAR parsing exists).
    pub lightmaps: usize,
    /// Failed chains.
    pub failures: usize,
}

/// A model the mission needs, with the object it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelUse {
    /// Object index in `data.tma`.
    pub object: usize,
    /// Archive (game-root-relative).
    pub archive: Vec<u8>,
    /// Entry name.
    pub name: Vec<u8>,
}

/// Counts, failures with their chains, and the models to prepare.
#[derive(Clone, Debug, Default)]
pub struct GraphReport {
    /// The counts.
    pub counts: GraphCounts,
    /// One chain per failure, in object order.
    pub failures: Vec<MissionError>,
    /// Models reached, in object order.
    pub models: Vec<ModelUse>,
}

fn text(b: &[u8]) -> String {
    b.escape_ascii().to_string()
}

fn stem(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&b| b == b'.') {
        Some(dot) => &name[..dot],
        None => name,
    }
}

struct Walker<'a, 'd> {
    data: &'a GameData<'d>,
    mission: &'a str,
    report: GraphReport,
}

impl Walker<'_, '_> {
    fn fail(&mut self, mut e: MissionError) {
        e.stage = e.stage.or(Some(Stage::PrototypeResolution));
        self.report.counts.failures += 1;
        self.report.failures.push(e);
    }

    fn request(
        &mut self,
        object: Option<usize>,
        resource: &[u8],
        component: Option<&[u8]>,
        key: &[u8],
    ) {
        self.report.counts.prototype_requests += 1;
        match resolve(self.data, self.data, key) {
            Ok(r) => match r.geometry {
                Geometry::Mesh(m) => {
                    self.report.counts.msh += 1;
                    let mut wea = stem(&m.name).to_vec();
                    wea.extend_from_slice(b".wea");
                    if matches!(self.data.probe(&m.archive, &wea), Ok(Presence::Present)) {
                        self.report.counts.wear += 1;
                    }
                    if let Some(object) = object {
                        self.report.models.push(ModelUse {
                            object,
                            archive: m.archive,
                            name: m.name,
                        });
                    }
                }
                Geometry::NonGeometric { .. } => {}
            },
            Err(e) => {
                let mut err =
                    MissionError::new(Stage::PrototypeResolution, self.mission, e.to_string());
                err.object = object;
                err.resource = Some(text(resource));
                err.component = component.map(text);
                err.prototype = Some(e.chain().map_or_else(|| text(key), |c| c.to_string()));
                err.archive = Some(OBJECTS_RLB.into());
                err.entry = Some(text(key));
                err.offset = e.offset();
                self.fail(err);
            }
        }
    }

    fn object(&mut self, index: usize, resource: &[u8]) {
        self.report.counts.objects += 1;
        if !ends_with_ignore_case(resource, b".dat") {
            self.request(Some(index), resource, None, resource);
            return;
        }
        self.report.counts.unit_refs += 1;
        let mut err = MissionError::new(Stage::PrototypeResolution, self.mission, String::new());
        err.object = Some(index);
        err.resource = Some(text(resource));
        let dat = GamePath::parse(&String::from_utf8_lossy(resource))
            .map_err(|e| e.to_string())
            .and_then(|p| self.data.vfs.read(&p).map_err(|e| e.to_string()));
        let bytes = match dat {
            Ok(b) => b,
            Err(cause) => {
                err.cause = cause;
                return self.fail(err);
            }
        };
        let dat = match UnitDat::parse(&bytes) {
            Ok(d) => d,
            Err(e) => {
                err.cause = e.to_string();
                err.offset = e.offset();
                return self.fail(err);
            }
        };
        for key in dat.component_keys() {
            self.report.counts.components += 1;
            self.request(Some(index), resource, Some(key), key);
        }
    }
}

/// The graph of one mission's objects.
pub fn mission_graph(data: &GameData<'_>, mission: &str, tma: &Tma) -> GraphReport {
    let mut w = Walker {
        data,
        mission,
        report: GraphReport::default(),
    };
    for (i, o) in tma.objects.iter().enumerate() {
        w.object(i, o.resource_name.as_bytes());
    }
    w.report
}

/// Global archive health: every `objects.rlb` entry resolved on its own (broken entries
/// no mission reaches are reported here, separately from mission failures).
pub fn archive_health(data: &GameData<'_>) -> Result<GraphReport, MissionError> {
    let path = data
        .archive_path(OBJECTS_RLB.as_bytes())
        .map_err(|e| MissionError::new(Stage::WorldFoundation, "<archives>", e.to_string()))?;
    let handle = data
        .cache
        .open(&path)
        .map_err(|e| MissionError::new(Stage::WorldFoundation, "<archives>", e.to_string()))?;
    let keys: Vec<Vec<u8>> = handle.names().map(<[u8]>::to_vec).collect();
    data.cache.close(&path);
    let mut w = Walker {
        data,
        mission: "<archives>",
        report: GraphReport::default(),
    };
    for key in keys {
        w.request(None, &key, None, &key);
    }
    Ok(w.report)
}
