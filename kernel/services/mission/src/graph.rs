//! The mission dependency graph: object → (direct key | unit DAT → components) →
//! `objects.rlb` prototype with inheritance → model, with reachability counts and, for
//! every failure, the full parent chain; then model → `<stem>.wea` (WEAR rows) → MAT0 in
//! `Material.lib` (fallback: name → `DEFAULT` → entry 0) → phase texture names →
//! `Textures.lib`, and WEAR lightmaps → `LightMap.lib` (a missing lightmap is slot -1,
//! not a failure). The graph stops at the entries that exist: models and textures are
//! checked for presence, WEAR and MAT0 are parsed.
//!
//! A unit DAT is also *assembled* ([`iron3d_unitdat::assemble`]: PD-UNIT-TREE,
//! PD-UNIT-ROLE, PD-UNIT-BAD-MOUNT, …): each component model's [`ModelUse`] carries its
//! record and, for a mounted EXTO child, the root model and node it is drawn at
//! ([`ModelMount`]); the assemblies (with the global MSH node numbering) are in
//! [`GraphReport::assemblies`]. Mount checks need the root model's node count, so the
//! models of unit DAT components are read and parsed once each. Assembly fallbacks are
//! diagnostics, never failures.
//!
//! Each prototype's Control files (`*.ctl`, `*.cpt`, `*.ndp`) are found among its
//! effective references, read, checked and kept ([`GraphReport::control`]); a file that
//! does not parse fails with its chain, a missing one is a diagnostic (the rules are in
//! [`crate::control_data`]).

use crate::control_data::{
    CONTROL_DATA_EXTRA_RULE, CONTROL_DATA_MISSING_RULE, CONTROL_ROW_NODE_RULE, ControlData,
    ControlKind, ControlRef, control_refs, parse_into, rows_outside,
};
use crate::error::{MissionError, Stage};
use crate::source::{GameData, OBJECTS_RLB};
use iron3d_material::{FallbackRule, Mat0, Wear};
use iron3d_msh::Msh;
use iron3d_nres::Family;
use iron3d_tma::Tma;
use iron3d_unitdat::{
    ComponentModel, Geometry, Presence, ResourceProbe, UnitAssembly, UnitDat, assemble,
    ends_with_ignore_case, resolve,
};
use iron3d_vfs::GamePath;
use std::collections::BTreeMap;

/// The material archive (game root).
pub const MATERIAL_LIB: &str = "Material.lib";
/// The texture archive (game root).
pub const TEXTURES_LIB: &str = "Textures.lib";
/// The lightmap archive (game root).
pub const LIGHTMAP_LIB: &str = "LightMap.lib";

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
    /// Material slots (WEAR rows of the models reached).
    pub material_slots: usize,
    /// Texture requests (textured MAT0 phases).
    pub texture_requests: usize,
    /// Lightmaps requested by WEAR tables (missing ones become slot -1, not failures).
    pub lightmaps: usize,
    /// Control descriptions (`*.ctl`) read, once per prototype request.
    pub control_tables: usize,
    /// Control point lists (`*.cpt`) read, once per prototype request.
    pub control_points: usize,
    /// Provider row tables (`*.ndp`) read, once per prototype request.
    pub provider_tables: usize,
    /// Failed chains.
    pub failures: usize,
}

/// Where a unit component's model is mounted: node `node` (local, rest/animated pose) of
/// the model `archive:name` of its parent component (PD-UNIT-ROLE: the root's model).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModelMount {
    /// The parent model's archive.
    pub archive: Vec<u8>,
    /// The parent model's entry name.
    pub name: Vec<u8>,
    /// The mount node, a valid index into the parent model's nodes.
    pub node: u32,
}

/// A model the mission needs, with the object it serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelUse {
    /// Object index in `data.tma`.
    pub object: usize,
    /// The object's resource name (its prototype key or unit DAT path) as in the TMA.
    pub prototype: Vec<u8>,
    /// Archive (game-root-relative).
    pub archive: Vec<u8>,
    /// Entry name.
    pub name: Vec<u8>,
    /// The unit DAT record this model is the component of; `None` for a prototype placed
    /// directly.
    pub component: Option<usize>,
    /// Where the model is drawn relative to the object: `None` = at the object's
    /// transform (a direct prototype, the unit's root, or a PD-UNIT-BAD-MOUNT fallback).
    pub mount: Option<ModelMount>,
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
    /// What a compatible cache tolerated (wrong `type_id` tags), one line per entry,
    /// then the unit assembly fallbacks (one line per unit DAT and rule applied).
    pub diagnostics: Vec<String>,
    /// The assembled unit DATs, keyed by the TMA resource name upper-cased (ASCII).
    pub assemblies: BTreeMap<Vec<u8>, UnitAssembly>,
    /// What players call each unit DAT reached: its root record's description as
    /// written (CP1251, up to 32 bytes), keyed like [`GraphReport::assemblies`]; a DAT
    /// whose root description is empty is left out.
    pub names: BTreeMap<Vec<u8>, Vec<u8>>,
    /// The Control data of every prototype reached that has any, keyed by the
    /// prototype key upper-cased (ASCII).
    pub control: BTreeMap<Vec<u8>, ControlData>,
}

impl GraphReport {
    /// The assembly of the unit DAT `resource` (ASCII case ignored).
    pub fn assembly(&self, resource: &[u8]) -> Option<&UnitAssembly> {
        self.assemblies.get(&resource.to_ascii_uppercase())
    }

    /// What players call the unit DAT `resource` (ASCII case ignored): its root record's
    /// description, when it has one.
    pub fn name(&self, resource: &[u8]) -> Option<&[u8]> {
        self.names
            .get(&resource.to_ascii_uppercase())
            .map(Vec::as_slice)
    }

    /// The Control data of prototype `key` (ASCII case ignored), if it has any.
    pub fn control_data(&self, key: &[u8]) -> Option<&ControlData> {
        self.control.get(&key.to_ascii_uppercase())
    }
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

/// What one WEAR table leads to (memoised per model archive and table).
#[derive(Clone, Debug, Default)]
struct MaterialOutcome {
    slots: usize,
    textures: usize,
    lightmaps: usize,
    /// (archive, entry, cause) of each missing or broken link.
    problems: Vec<(String, String, String)>,
}

/// What one prototype key leads to (memoised per key as spelled: 10,000 objects sharing
/// 30 prototypes resolve 30 chains).
#[derive(Clone, Debug)]
enum ProtoOutcome {
    /// A model, its tag problem, and its WEAR table when present.
    Mesh {
        archive: Vec<u8>,
        name: Vec<u8>,
        tag_problem: Option<String>,
        wear: Option<(Vec<u8>, MaterialOutcome)>,
        control: ControlRefs,
    },
    /// No geometry (sun, system objects).
    NonGeometric { control: ControlRefs },
    /// Resolution failed: cause, parent chain, byte offset.
    Failed {
        cause: String,
        chain: String,
        offset: Option<u64>,
    },
}

/// `(archive, entry)` of a model.
type ModelName = (Vec<u8>, Vec<u8>);

/// A prototype's Control references: the first of each kind, and the ignored extras.
#[derive(Clone, Debug, Default)]
struct ControlRefs {
    used: Vec<ControlRef>,
    extra: Vec<ControlRef>,
}

/// What one prototype's Control files lead to (memoised per key).
#[derive(Clone, Debug, Default)]
struct ControlOutcome {
    /// How many files of each kind were read (0 or 1 each).
    read: [usize; 3],
    /// `(reference, cause, offset)` of each file that could not be read or parsed.
    problems: Vec<(ControlRef, String, Option<u64>)>,
}

/// A unit DAT, or why it could not be read (cause, byte offset).
type DatOutcome = Result<UnitDat, (String, Option<u64>)>;

/// **PD-UNIT-NO-ASSEMBLY**: the rule applied when a unit DAT cannot be assembled at all
/// (no records, a skipped root, a node-numbering overflow): every component that has a
/// model is drawn at the object's transform, and the error is a diagnostic.
pub const NO_ASSEMBLY_RULE: &str = "PD-UNIT-NO-ASSEMBLY";

struct Walker<'a, 'd> {
    data: &'a GameData<'d>,
    mission: &'a str,
    report: GraphReport,
    materials: BTreeMap<(Vec<u8>, Vec<u8>), MaterialOutcome>,
    protos: BTreeMap<Vec<u8>, ProtoOutcome>,
    dats: BTreeMap<Vec<u8>, DatOutcome>,
    /// Per unit DAT (upper-cased): the mount of each record's model.
    mounts: BTreeMap<Vec<u8>, Vec<Option<ModelMount>>>,
    /// Node count per model (upper-cased archive, entry), or why it is unknown.
    node_counts: BTreeMap<(Vec<u8>, Vec<u8>), Result<u32, String>>,
    /// Assembly and Control data diagnostics, in the order they were found.
    assembly_diagnostics: Vec<String>,
    /// Control outcome per prototype key as spelled.
    controls: BTreeMap<Vec<u8>, ControlOutcome>,
}

impl<'a, 'd> Walker<'a, 'd> {
    fn new(data: &'a GameData<'d>, mission: &'a str) -> Self {
        Self {
            data,
            mission,
            report: GraphReport::default(),
            materials: BTreeMap::new(),
            protos: BTreeMap::new(),
            dats: BTreeMap::new(),
            mounts: BTreeMap::new(),
            node_counts: BTreeMap::new(),
            assembly_diagnostics: Vec::new(),
            controls: BTreeMap::new(),
        }
    }

    fn finish(mut self) -> GraphReport {
        self.report.diagnostics = self
            .data
            .cache
            .tag_diagnostics()
            .iter()
            .map(ToString::to_string)
            .collect();
        self.report
            .diagnostics
            .extend(std::mem::take(&mut self.assembly_diagnostics));
        self.report
    }

    /// The node count of model `archive:name` (read and parsed once).
    fn node_count(&mut self, archive: &[u8], name: &[u8]) -> Result<u32, String> {
        let key = (archive.to_ascii_uppercase(), name.to_ascii_uppercase());
        if let Some(n) = self.node_counts.get(&key) {
            return n.clone();
        }
        let n = self
            .data
            .entry_as(archive, name, Family::mesh())
            .map_err(|e| e.to_string())
            .and_then(|bytes| {
                let msh = Msh::parse(&bytes).map_err(|e| e.to_string())?;
                u32::try_from(msh.node_count()).map_err(|_| "too many nodes".to_owned())
            })
            .map_err(|e| format!("model {}:{}: {e}", text(archive), text(name)));
        self.node_counts.insert(key, n.clone());
        n
    }

    /// What the assembly needs to know about one component prototype.
    fn component_model(&mut self, key: &[u8]) -> (ComponentModel, Option<ModelName>) {
        match self.proto_outcome(key) {
            ProtoOutcome::Mesh { archive, name, .. } => match self.node_count(&archive, &name) {
                Ok(node_count) => (
                    ComponentModel::Mesh {
                        model: format!("{}:{}", text(&archive), text(&name)),
                        node_count,
                    },
                    Some((archive, name)),
                ),
                Err(cause) => (ComponentModel::Unresolved { cause }, None),
            },
            ProtoOutcome::NonGeometric { .. } => (ComponentModel::NonGeometric, None),
            ProtoOutcome::Failed { cause, .. } => (ComponentModel::Unresolved { cause }, None),
        }
    }

    /// Assembles the unit DAT `resource` (memoised per `dat_key`): the mount of each
    /// record's model; the assembly and its diagnostics go to the report.
    fn unit_mounts(
        &mut self,
        dat_key: &[u8],
        resource: &[u8],
        dat: &UnitDat,
    ) -> Vec<Option<ModelMount>> {
        if let Some(m) = self.mounts.get(dat_key) {
            return m.clone();
        }
        if let Some(root) = dat.records.first() {
            let name = root.description.value().trim_ascii();
            if !name.is_empty() {
                self.report.names.insert(dat_key.to_vec(), name.to_vec());
            }
        }
        let mut models: Vec<Option<ModelName>> = vec![None; dat.records.len()];
        let assembly = assemble(resource, dat, |record, key| {
            let (answer, model) = self.component_model(key);
            if let Some(slot) = models.get_mut(record) {
                *slot = model;
            }
            answer
        });
        let mounts = match assembly {
            Ok(a) => {
                let root = models.first().cloned().flatten();
                let mounts = a
                    .components
                    .iter()
                    .map(|c| {
                        let node = c.mount()?;
                        let (archive, name) = root.clone()?;
                        Some(ModelMount {
                            archive,
                            name,
                            node,
                        })
                    })
                    .collect();
                self.assembly_diagnostics
                    .extend(a.diagnostics.iter().map(ToString::to_string));
                self.report.assemblies.insert(dat_key.to_vec(), a);
                mounts
            }
            Err(e) => {
                self.assembly_diagnostics.push(format!(
                    "[{NO_ASSEMBLY_RULE}] {e}; components drawn at the object transform"
                ));
                vec![None; dat.records.len()]
            }
        };
        self.mounts.insert(dat_key.to_vec(), mounts.clone());
        mounts
    }

    fn proto_outcome(&mut self, key: &[u8]) -> ProtoOutcome {
        if let Some(o) = self.protos.get(key) {
            return o.clone();
        }
        let outcome = match resolve(self.data, self.data, key) {
            Ok(r) => {
                let (used, extra) = control_refs(&r.expansion);
                let control = ControlRefs { used, extra };
                match r.geometry {
                    Geometry::Mesh(m) => {
                        let tag_problem =
                            match self.data.probe_as(&m.archive, &m.name, Family::mesh()) {
                                Ok(_) => None,
                                Err(e) => Some(e.to_string()),
                            };
                        let mut wea = stem(&m.name).to_vec();
                        wea.extend_from_slice(b".wea");
                        let wear =
                            matches!(self.data.probe(&m.archive, &wea), Ok(Presence::Present))
                                .then(|| {
                                    let outcome = self.material_outcome(&m.archive, &wea);
                                    (wea, outcome)
                                });
                        ProtoOutcome::Mesh {
                            archive: m.archive,
                            name: m.name,
                            tag_problem,
                            wear,
                            control,
                        }
                    }
                    Geometry::NonGeometric { .. } => ProtoOutcome::NonGeometric { control },
                }
            }
            Err(e) => ProtoOutcome::Failed {
                cause: e.to_string(),
                chain: e.chain().map_or_else(|| text(key), |c| c.to_string()),
                offset: e.offset(),
            },
        };
        self.protos.insert(key.to_vec(), outcome.clone());
        outcome
    }

    fn fail(&mut self, mut e: MissionError) {
        e.stage = e.stage.or(Some(Stage::PrototypeResolution));
        self.report.counts.failures += 1;
        self.report.failures.push(e);
    }

    fn request(
        &mut self,
        object: Option<usize>,
        resource: &[u8],
        component: Option<(usize, &[u8])>,
        key: &[u8],
        mount: Option<ModelMount>,
    ) {
        let (record, component) = match component {
            Some((r, k)) => (Some(r), Some(k)),
            None => (None, None),
        };
        self.report.counts.prototype_requests += 1;
        let outcome = self.proto_outcome(key);
        let control = match &outcome {
            ProtoOutcome::Mesh {
                archive,
                name,
                control,
                ..
            } => Some((control, Some((archive.clone(), name.clone())))),
            ProtoOutcome::NonGeometric { control } => Some((control, None)),
            ProtoOutcome::Failed { .. } => None,
        };
        if let Some((refs, model)) = control {
            let c = self.control_outcome(key, refs, model);
            self.report.counts.control_tables += c.read[ControlKind::Table.index()];
            self.report.counts.control_points += c.read[ControlKind::Points.index()];
            self.report.counts.provider_tables += c.read[ControlKind::Providers.index()];
            for (r, cause, offset) in c.problems {
                let mut err = MissionError::new(Stage::ResourcePreparation, self.mission, cause);
                err.object = object;
                err.resource = Some(text(resource));
                err.component = component.map(text);
                err.prototype = Some(format!(
                    "{} -> {} {}:{}",
                    text(key),
                    r.kind.label(),
                    text(&r.archive),
                    text(&r.name)
                ));
                err.archive = Some(text(&r.archive));
                err.entry = Some(text(&r.name));
                err.offset = offset;
                self.fail(err);
            }
        }
        match outcome {
            ProtoOutcome::Mesh {
                archive,
                name,
                tag_problem,
                wear,
                ..
            } => {
                self.report.counts.msh += 1;
                let model_chain =
                    format!("{} -> model {}:{}", text(key), text(&archive), text(&name));
                if let Some(cause) = tag_problem {
                    let mut err =
                        MissionError::new(Stage::ResourcePreparation, self.mission, cause);
                    err.object = object;
                    err.resource = Some(text(resource));
                    err.component = component.map(text);
                    err.prototype = Some(model_chain.clone());
                    err.archive = Some(text(&archive));
                    err.entry = Some(text(&name));
                    self.fail(err);
                }
                if let Some((wea, outcome)) = wear {
                    self.report.counts.wear += 1;
                    self.report.counts.material_slots += outcome.slots;
                    self.report.counts.texture_requests += outcome.textures;
                    self.report.counts.lightmaps += outcome.lightmaps;
                    for (problem_archive, entry, cause) in outcome.problems {
                        let mut err =
                            MissionError::new(Stage::ResourcePreparation, self.mission, cause);
                        err.object = object;
                        err.resource = Some(text(resource));
                        err.component = component.map(text);
                        err.prototype = Some(format!("{model_chain} -> {}", text(&wea)));
                        err.archive = Some(problem_archive);
                        err.entry = Some(entry);
                        self.fail(err);
                    }
                }
                if let Some(object) = object {
                    self.report.models.push(ModelUse {
                        object,
                        prototype: resource.to_vec(),
                        archive,
                        name,
                        component: record,
                        mount,
                    });
                }
            }
            ProtoOutcome::NonGeometric { .. } => {}
            ProtoOutcome::Failed {
                cause,
                chain,
                offset,
            } => {
                let mut err = MissionError::new(Stage::PrototypeResolution, self.mission, cause);
                err.object = object;
                err.resource = Some(text(resource));
                err.component = component.map(text);
                err.prototype = Some(chain);
                err.archive = Some(OBJECTS_RLB.into());
                err.entry = Some(text(key));
                err.offset = offset;
                self.fail(err);
            }
        }
    }

    /// Reads and checks the Control files of prototype `key` (memoised per key): the
    /// parsed data goes to the report, the diagnostics are recorded once.
    fn control_outcome(
        &mut self,
        key: &[u8],
        refs: &ControlRefs,
        model: Option<ModelName>,
    ) -> ControlOutcome {
        if let Some(o) = self.controls.get(key) {
            return o.clone();
        }
        let mut out = ControlOutcome::default();
        let mut data = ControlData::default();
        let name =
            |r: &ControlRef| format!("{} {}:{}", r.kind.label(), text(&r.archive), text(&r.name));
        for r in &refs.extra {
            self.assembly_diagnostics.push(format!(
                "[{CONTROL_DATA_EXTRA_RULE}] prototype {}: a second {} reference ({}) is ignored",
                text(key),
                r.kind.suffix().escape_ascii(),
                name(r)
            ));
        }
        for r in &refs.used {
            match self.data.probe(&r.archive, &r.name) {
                Ok(Presence::Present) => {}
                Ok(missing) => {
                    self.assembly_diagnostics.push(format!(
                        "[{CONTROL_DATA_MISSING_RULE}] prototype {}: {} is missing ({}); the prototype has no {}",
                        text(key),
                        name(r),
                        match missing {
                            Presence::ArchiveMissing => "no such archive",
                            _ => "no such entry",
                        },
                        r.kind.label()
                    ));
                    continue;
                }
                Err(e) => {
                    out.problems.push((r.clone(), e.to_string(), None));
                    continue;
                }
            }
            let family = Family::by_extension(&r.name).unwrap_or(Family::mesh());
            let bytes = match self.data.entry_as(&r.archive, &r.name, family) {
                Ok(b) => b,
                Err(e) => {
                    out.problems.push((r.clone(), e.to_string(), None));
                    continue;
                }
            };
            match parse_into(&mut data, r, &bytes) {
                Ok(()) => out.read[r.kind.index()] += 1,
                Err(e) => out.problems.push((r.clone(), e.to_string(), e.offset())),
            }
        }
        if let (Some(t), Some((archive, model_name))) = (&data.table, &model) {
            if let Ok(nodes) = self.node_count(archive, model_name) {
                for (row, node) in rows_outside(&t.data, nodes) {
                    self.assembly_diagnostics.push(format!(
                        "[{CONTROL_ROW_NODE_RULE}] prototype {}: {} row {row} names node {node}, but model {}:{} has {nodes} nodes; the row is skipped",
                        text(key),
                        format_args!("control table {}:{}", text(&t.archive), text(&t.name)),
                        text(archive),
                        text(model_name)
                    ));
                }
            }
        }
        if !data.is_empty() {
            self.report.control.insert(key.to_ascii_uppercase(), data);
        }
        self.controls.insert(key.to_vec(), out.clone());
        out
    }

    /// Follows one WEAR table: rows → MAT0 → textures, and its lightmaps.
    fn material_outcome(&mut self, archive: &[u8], wea: &[u8]) -> MaterialOutcome {
        let key = (archive.to_ascii_uppercase(), wea.to_ascii_uppercase());
        if let Some(o) = self.materials.get(&key) {
            return o.clone();
        }
        let mut out = MaterialOutcome::default();
        let problem = |out: &mut MaterialOutcome, a: &str, e: &[u8], cause: String| {
            out.problems.push((a.to_owned(), text(e), cause))
        };
        let wear = match self
            .data
            .entry_as(archive, wea, Family::wear())
            .map_err(|e| e.to_string())
            .and_then(|b| Wear::parse(&b).map_err(|e| e.to_string()))
        {
            Ok(w) => w,
            Err(cause) => {
                problem(&mut out, &text(archive), wea, cause);
                self.materials.insert(key, out.clone());
                return out;
            }
        };
        for row in wear.materials() {
            out.slots += 1;
            let found = match self
                .data
                .resolve_material(MATERIAL_LIB.as_bytes(), row.name())
            {
                Ok(Some(found)) => found,
                Ok(None) => {
                    problem(
                        &mut out,
                        MATERIAL_LIB,
                        row.name(),
                        "no MAT0 of that name, no DEFAULT and an empty material archive".into(),
                    );
                    continue;
                }
                Err(e) => {
                    problem(&mut out, MATERIAL_LIB, row.name(), e.to_string());
                    continue;
                }
            };
            if found.rule != FallbackRule::Named {
                tracing::debug!(material = %text(row.name()), rule = ?found.rule, "material fallback");
            }
            let name = found.entry.name;
            let version = found.entry.attrs[2];
            let mat = self
                .data
                .entry_as(MATERIAL_LIB.as_bytes(), &name, Family::mat0())
                .map_err(|e| e.to_string())
                .and_then(|b| Mat0::parse(&b, version).map_err(|e| e.to_string()));
            let mat = match mat {
                Ok(m) => m,
                Err(cause) => {
                    problem(&mut out, MATERIAL_LIB, &name, cause);
                    continue;
                }
            };
            for phase in mat.phases().iter().filter(|p| !p.is_untextured()) {
                out.textures += 1;
                let tex = phase.texture_lookup_key();
                match self
                    .data
                    .probe_as(TEXTURES_LIB.as_bytes(), tex, Family::texm())
                {
                    Ok(Presence::Present) => {}
                    Ok(Presence::ArchiveMissing) => problem(
                        &mut out,
                        TEXTURES_LIB,
                        tex,
                        format!(
                            "texture archive {TEXTURES_LIB} missing (material {})",
                            text(&name)
                        ),
                    ),
                    Ok(Presence::EntryMissing) => problem(
                        &mut out,
                        TEXTURES_LIB,
                        tex,
                        format!("texture missing (material {})", text(&name)),
                    ),
                    Err(e) => problem(&mut out, TEXTURES_LIB, tex, e.to_string()),
                }
            }
        }
        out.lightmaps += wear.lightmaps().len();
        self.materials.insert(key, out.clone());
        out
    }

    fn object(&mut self, index: usize, resource: &[u8]) {
        self.report.counts.objects += 1;
        if !ends_with_ignore_case(resource, b".dat") {
            self.request(Some(index), resource, None, resource, None);
            return;
        }
        self.report.counts.unit_refs += 1;
        let dat_key = resource.to_ascii_uppercase();
        let outcome = match self.dats.get(&dat_key) {
            Some(o) => o.clone(),
            None => {
                let o = self.dat_outcome(resource);
                self.dats.insert(dat_key.clone(), o.clone());
                o
            }
        };
        match outcome {
            Ok(dat) => {
                let mounts = self.unit_mounts(&dat_key, resource, &dat);
                for (record, key) in dat.component_keys().enumerate() {
                    self.report.counts.components += 1;
                    let mount = mounts.get(record).cloned().flatten();
                    self.request(Some(index), resource, Some((record, key)), key, mount);
                }
            }
            Err((cause, offset)) => {
                let mut err = MissionError::new(Stage::PrototypeResolution, self.mission, cause);
                err.object = Some(index);
                err.resource = Some(text(resource));
                err.offset = offset;
                self.fail(err);
            }
        }
    }

    /// Reads and parses one unit DAT (memoised by the caller per path, ASCII case
    /// ignored).
    fn dat_outcome(&self, resource: &[u8]) -> DatOutcome {
        let bytes = GamePath::parse(&String::from_utf8_lossy(resource))
            .map_err(|e| e.to_string())
            .and_then(|p| self.data.vfs.read(&p).map_err(|e| e.to_string()))
            .map_err(|cause| (cause, None))?;
        UnitDat::parse(&bytes).map_err(|e| (e.to_string(), e.offset()))
    }
}

/// The graph of one mission's objects.
///
/// Runs inside one archive-cache scope: each archive is resolved, checked and mapped
/// once, each prototype key and unit DAT resolved once, whatever the object count.
pub fn mission_graph(data: &GameData<'_>, mission: &str, tma: &Tma) -> GraphReport {
    let _scope = data.cache.scope();
    let mut w = Walker::new(data, mission);
    for (i, o) in tma.objects.iter().enumerate() {
        w.object(i, o.resource_name.as_bytes());
    }
    w.finish()
}

/// Global archive health: every `objects.rlb` entry resolved on its own (broken entries
/// no mission reaches are reported here, separately from mission failures).
pub fn archive_health(data: &GameData<'_>) -> Result<GraphReport, MissionError> {
    let _scope = data.cache.scope();
    let path = GamePath::parse(OBJECTS_RLB)
        .map_err(|e| MissionError::new(Stage::WorldFoundation, "<archives>", e.to_string()))?;
    // Every key the mounts provide: the game's, then those overlays add.
    let keys = data
        .vfs
        .entry_names(&path, data.cache)
        .map_err(|e| MissionError::new(Stage::WorldFoundation, "<archives>", e.to_string()))?;
    let mut w = Walker::new(data, "<archives>");
    for key in keys {
        w.request(None, &key, None, &key, None);
    }
    Ok(w.finish())
}
