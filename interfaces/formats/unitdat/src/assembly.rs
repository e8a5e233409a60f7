//! Unit assembly: the component tree of a unit DAT, each component's registry role, its
//! mount and the global MSH node numbering (FORMATS §4.4 "Runtime use", §13.14 "Device
//! table merge"; tome VI "От Unit DAT к Control descriptor", EXTO/INTO branches).
//!
//! A pure function of the DAT and of what the caller tells about each component's
//! prototype ([`ComponentModel`]): no I/O.
//!
//! # Project decisions (the sources leave these open)
//!
//! * **PD-UNIT-TREE**: the tree of immediate-child counts is not on disk as far as the
//!   sources know (§4.4, §16). Record 0 is the root component; every later record is an
//!   immediate child of record 0 (a two-level tree, record order kept).
//! * **PD-UNIT-ROLE**: the registry type is not in the record either. Record 0 is the
//!   root. A child whose prototype resolves to a model is **EXTO**, mounted at node
//!   `parent_or_link` of the root's model (`-1` = the root's node 0); a child whose
//!   prototype resolves without geometry is **INTO** (no own model, `parent_or_link` is
//!   its local device index, no nodes).
//! * **PD-UNIT-BAD-MOUNT**: an EXTO mount outside the root model's node range (or a root
//!   without a model) leaves the component unmounted: it is drawn at the object's
//!   transform and a diagnostic is reported. It still numbers its nodes (AniMesh numbers
//!   nodes whatever the mount, §13.14).
//! * **PD-UNIT-UNRESOLVED**: a component whose prototype does not resolve (or whose model
//!   cannot be read) takes no role, no nodes and is not drawn; a diagnostic is reported
//!   (the mission graph also reports the resolution failure chain, which fails a strict
//!   load).
//! * **PD-UNIT-KIND0**: a child of `kind == 0` is skipped with its (empty, under
//!   PD-UNIT-TREE) subtree, as the ArealMap/AniMesh tree builder does; a root of kind 0
//!   would skip the whole unit and is an error ([`UnitDatError::UnitRootSkipped`]).
//! * A DAT without records has nothing to assemble ([`UnitDatError::EmptyUnit`]; the file
//!   itself is valid).
//!
//! Global node numbering (§13.14, AniMesh `+0xA460`): the root model adds all its `N`
//! nodes, an EXTO child adds `N − 1` (its local nodes `1..N−1`), INTO adds none; a
//! component that adds no node has no first global node. This is the rule of
//! `iron3d_control_resources::GlobalNodeCounter`; the mission crate's tests check the two
//! agree.

use crate::dat::UnitDat;
use crate::error::UnitDatError;
use std::fmt;

/// The record of the root component (PD-UNIT-TREE).
pub const ROOT_RECORD: usize = 0;

/// `parent_or_link` of an EXTO child that means "the root's node 0" (PD-UNIT-ROLE).
pub const MOUNT_AT_ROOT_NODE: i32 = -1;

/// What the caller's prototype resolution says about one component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ComponentModel {
    /// The prototype resolves to a model with `node_count` nodes; `model` names it
    /// (`archive:entry`, used in messages).
    Mesh {
        /// `archive:entry`.
        model: String,
        /// Nodes of the model.
        node_count: u32,
    },
    /// The prototype resolves without geometry.
    NonGeometric,
    /// The prototype does not resolve, or its model cannot be read.
    Unresolved {
        /// Why.
        cause: String,
    },
}

/// A component's registry role under PD-UNIT-ROLE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentRole {
    /// Record 0: the unit's root model (or, without geometry, a root without nodes).
    Root,
    /// A mounted child model. `mount` is the local node of the root's model it is drawn
    /// at; `None` under PD-UNIT-BAD-MOUNT (drawn at the object's transform).
    Exto {
        /// Local node of the parent's model, when valid.
        mount: Option<u32>,
    },
    /// No own model: overrides devices of the parent; `local_index` is `parent_or_link`.
    Into {
        /// The record's `parent_or_link` (local device index).
        local_index: i32,
    },
    /// A `kind == 0` child, skipped (PD-UNIT-KIND0).
    Skipped,
    /// The prototype did not resolve (PD-UNIT-UNRESOLVED).
    Unresolved,
}

/// One component of an assembled unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssemblyComponent {
    /// Record index in the DAT.
    pub record: usize,
    /// The component prototype key.
    pub key: Vec<u8>,
    /// The parent component's record (PD-UNIT-TREE: `Some(0)` for every child, `None`
    /// for the root).
    pub parent: Option<usize>,
    /// The record's raw `parent_or_link`.
    pub parent_or_link: i32,
    /// The role.
    pub role: ComponentRole,
    /// The component model's node count (0 without a model).
    pub node_count: u32,
    /// The component's first global MSH node; `None` when it adds none.
    pub first_global_node: Option<u32>,
}

impl AssemblyComponent {
    /// The local mount node in the parent's model, for a validly mounted EXTO child.
    pub fn mount(&self) -> Option<u32> {
        match self.role {
            ComponentRole::Exto { mount } => mount,
            _ => None,
        }
    }

    /// Whether the component has a model that is drawn (root or EXTO with a model).
    pub fn draws(&self) -> bool {
        matches!(self.role, ComponentRole::Root | ComponentRole::Exto { .. }) && self.node_count > 0
    }
}

/// The named rule behind an [`AssemblyDiagnostic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AssemblyRule {
    /// PD-UNIT-BAD-MOUNT: the mount node is outside the parent model (or it has none).
    BadMount,
    /// PD-UNIT-UNRESOLVED: the component's prototype does not resolve.
    Unresolved,
    /// PD-UNIT-KIND0: a `kind == 0` child was skipped.
    SkippedKind0,
}

impl AssemblyRule {
    /// The rule's name as the docs spell it.
    pub const fn name(self) -> &'static str {
        match self {
            AssemblyRule::BadMount => "PD-UNIT-BAD-MOUNT",
            AssemblyRule::Unresolved => "PD-UNIT-UNRESOLVED",
            AssemblyRule::SkippedKind0 => "PD-UNIT-KIND0",
        }
    }
}

/// A fallback taken while assembling; `Display` names the rule, the unit, the component
/// (record index and key), the file involved and the cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssemblyDiagnostic {
    /// The rule applied.
    pub rule: AssemblyRule,
    /// The unit (DAT path as the caller named it).
    pub unit: Vec<u8>,
    /// The component's record index.
    pub record: usize,
    /// The component's prototype key.
    pub key: Vec<u8>,
    /// The file involved (`archive:entry` of the parent model), when there is one.
    pub file: Option<String>,
    /// What happened and what was done.
    pub cause: String,
}

impl fmt::Display for AssemblyDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] unit {} component #{} \"{}\"",
            self.rule.name(),
            self.unit.escape_ascii(),
            self.record,
            self.key.escape_ascii()
        )?;
        if let Some(file) = &self.file {
            write!(f, " file {file}")?;
        }
        write!(f, ": {}", self.cause)
    }
}

/// An assembled unit: components in record order, the global node total, the fallbacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitAssembly {
    /// The unit (DAT path as the caller named it).
    pub unit: Vec<u8>,
    /// One entry per record, record order.
    pub components: Vec<AssemblyComponent>,
    /// Global MSH nodes assigned in all.
    pub global_node_count: u32,
    /// Fallbacks taken, record order.
    pub diagnostics: Vec<AssemblyDiagnostic>,
}

impl UnitAssembly {
    /// The component of record `record`.
    pub fn component(&self, record: usize) -> Option<&AssemblyComponent> {
        self.components.get(record)
    }

    /// The root component.
    pub fn root(&self) -> Option<&AssemblyComponent> {
        self.components.get(ROOT_RECORD)
    }

    /// The EXTO mount in the global MSH node space (descriptor `C4`) of record `record`:
    /// the parent's first global node plus the local mount node; `None` when unmounted.
    pub fn global_mount(&self, record: usize) -> Option<u32> {
        let c = self.components.get(record)?;
        let mount = c.mount()?;
        let parent = self.components.get(c.parent?)?;
        parent.first_global_node?.checked_add(mount)
    }

    /// Local node `local` of record `record`'s model in the global MSH node space (the
    /// §13.14 CTLD key remap): a root node keeps its number (plus the root's first global
    /// node); an EXTO child's node 0 is its mount (`C4`, `None` when unmounted) and node
    /// `k ≥ 1` is `first_global_node + k − 1` (the general form is inferred from the
    /// example "a component starting at global node 22 maps key 1 to 22"). `None` for a
    /// node outside the model or a component without nodes.
    pub fn global_node(&self, record: usize, local: u32) -> Option<u32> {
        let c = self.components.get(record)?;
        if local >= c.node_count {
            return None;
        }
        match c.role {
            ComponentRole::Root => c.first_global_node?.checked_add(local),
            ComponentRole::Exto { .. } if local == 0 => self.global_mount(record),
            ComponentRole::Exto { .. } => c.first_global_node?.checked_add(local - 1),
            _ => None,
        }
    }
}

/// Assembles `dat` (named `unit` in messages): PD-UNIT-TREE, PD-UNIT-ROLE, mounts and the
/// global node numbering. `model(record, key)` answers for each record's prototype; it
/// is called once per record of non-zero kind, in record order.
///
/// Errors: no records ([`UnitDatError::EmptyUnit`]), a skipped root
/// ([`UnitDatError::UnitRootSkipped`]), a node total past `u32`
/// ([`UnitDatError::NodeNumberingOverflow`]). Everything else is a diagnostic.
pub fn assemble(
    unit: &[u8],
    dat: &UnitDat,
    mut model: impl FnMut(usize, &[u8]) -> ComponentModel,
) -> Result<UnitAssembly, UnitDatError> {
    let Some(root) = dat.records.first() else {
        return Err(UnitDatError::EmptyUnit {
            unit: unit.to_vec(),
        });
    };
    if root.kind == 0 {
        return Err(UnitDatError::UnitRootSkipped {
            unit: unit.to_vec(),
            key: root.component_key().to_vec(),
        });
    }
    let mut out = UnitAssembly {
        unit: unit.to_vec(),
        components: Vec::with_capacity(dat.records.len()),
        global_node_count: 0,
        diagnostics: Vec::new(),
    };
    let diag = |out: &mut UnitAssembly, rule, record, key: &[u8], file, cause| {
        out.diagnostics.push(AssemblyDiagnostic {
            rule,
            unit: unit.to_vec(),
            record,
            key: key.to_vec(),
            file,
            cause,
        });
    };
    // The root's model: (name, node count) when it has one.
    let mut root_model: Option<(String, u32)> = None;
    for (record, r) in dat.records.iter().enumerate() {
        let key = r.component_key();
        let parent = (record != ROOT_RECORD).then_some(ROOT_RECORD);
        if r.kind == 0 {
            diag(
                &mut out,
                AssemblyRule::SkippedKind0,
                record,
                key,
                None,
                "kind 0: skipped with its children, no nodes, not drawn".into(),
            );
            out.components.push(AssemblyComponent {
                record,
                key: key.to_vec(),
                parent,
                parent_or_link: r.parent_or_link,
                role: ComponentRole::Skipped,
                node_count: 0,
                first_global_node: None,
            });
            continue;
        }
        let answer = model(record, key);
        let (role, node_count, added) = match (&answer, record == ROOT_RECORD) {
            (ComponentModel::Unresolved { cause }, _) => {
                diag(
                    &mut out,
                    AssemblyRule::Unresolved,
                    record,
                    key,
                    None,
                    format!("prototype does not resolve ({cause}): no nodes, not drawn"),
                );
                (ComponentRole::Unresolved, 0, 0)
            }
            (ComponentModel::Mesh { model, node_count }, true) => {
                root_model = Some((model.clone(), *node_count));
                (ComponentRole::Root, *node_count, *node_count)
            }
            (ComponentModel::NonGeometric, true) => (ComponentRole::Root, 0, 0),
            (ComponentModel::NonGeometric, false) => (
                ComponentRole::Into {
                    local_index: r.parent_or_link,
                },
                0,
                0,
            ),
            (ComponentModel::Mesh { node_count, .. }, false) => {
                let wanted = if r.parent_or_link == MOUNT_AT_ROOT_NODE {
                    Some(0u32)
                } else {
                    u32::try_from(r.parent_or_link).ok()
                };
                let mount = match &root_model {
                    Some((_, n)) => wanted.filter(|m| m < n),
                    None => None,
                };
                if mount.is_none() {
                    let (file, cause) = match &root_model {
                        Some((name, n)) => (
                            Some(name.clone()),
                            format!(
                                "mount node {} (parent_or_link) outside the root model's {n} \
                                 nodes: drawn at the object transform",
                                r.parent_or_link
                            ),
                        ),
                        None => (
                            None,
                            format!(
                                "mount node {} (parent_or_link) but the root component has \
                                 no model: drawn at the object transform",
                                r.parent_or_link
                            ),
                        ),
                    };
                    diag(&mut out, AssemblyRule::BadMount, record, key, file, cause);
                }
                (
                    ComponentRole::Exto { mount },
                    *node_count,
                    node_count.saturating_sub(1),
                )
            }
        };
        let first_global_node = if added == 0 {
            None
        } else {
            let first = out.global_node_count;
            out.global_node_count =
                first
                    .checked_add(added)
                    .ok_or_else(|| UnitDatError::NodeNumberingOverflow {
                        unit: unit.to_vec(),
                        record,
                        key: key.to_vec(),
                    })?;
            Some(first)
        };
        out.components.push(AssemblyComponent {
            record,
            key: key.to_vec(),
            parent,
            parent_or_link: r.parent_or_link,
            role,
            node_count,
            first_global_node,
        });
    }
    Ok(out)
}
