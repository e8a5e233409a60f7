//! A prototype's Control data: the control description (`*.ctl`, CTLD, FORMATS §11.6),
//! the control points (`*.cpt`, CTPT, §11.1) and the provider rows (`*.ndp`, NDPR,
//! §11.2) that its effective `objects.rlb` references name. The mission graph finds,
//! reads and checks them once per prototype and keeps them parsed in
//! [`crate::GraphReport::control`] for the subsystems that consume them.
//!
//! What is checked is what the spec proves: CTLD framing (header counts, the section
//! formula, the pose-binding rows in bounds; the tail after the rows is kept raw), CPT
//! (count, exact length, finite floats) and NDPR (a non-empty payload; its field layout
//! is not documented, so the rows stay raw). Where the typed device records sit inside
//! the CTLD tail and how an NDP row is laid out are *not* in the spec, so the Control
//! resource model (`iron3d-control-resources`) cannot be fed from these files yet; they
//! are still found, checked and kept, so a broken file is reported at load.
//!
//! * A file that is present but does not parse fails the load with the full chain
//!   (object, unit, component, prototype, archive, entry, cause, offset).
//! * **PD-CTRL-DATA-MISSING** — a reference whose archive or entry does not exist is a
//!   diagnostic, not a failure: the component simply has no such data (the spec does
//!   not say the original rejects it, and nothing reads it yet).
//! * **PD-CTRL-DATA-EXTRA** — only the first reference of each kind counts (as for the
//!   model, FORMATS §4.3 step 4); later ones of the same kind are reported and ignored.
//! * **PD-CTRL-ROW-NODE** — a CTLD pose row (without the skip flag 0x4) whose node is
//!   not a node of the prototype's model is reported; the row is kept as read (the file
//!   round-trips) and consumers skip it.

use iron3d_aux::ctld::ROW_FLAG_SKIP;
use iron3d_aux::{AuxError, Ctld, Ctpt, Ndpr};
use iron3d_unitdat::{Expansion, ends_with_ignore_case};

/// Rule name of a missing Control file (see the module docs).
pub const CONTROL_DATA_MISSING_RULE: &str = "PD-CTRL-DATA-MISSING";
/// Rule name of a second reference of one kind (see the module docs).
pub const CONTROL_DATA_EXTRA_RULE: &str = "PD-CTRL-DATA-EXTRA";
/// Rule name of a pose row naming a node the model lacks (see the module docs).
pub const CONTROL_ROW_NODE_RULE: &str = "PD-CTRL-ROW-NODE";

/// The three kinds of Control file a prototype may reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ControlKind {
    /// `*.ctl`: the control description (CTLD).
    Table,
    /// `*.cpt`: the control points (CTPT).
    Points,
    /// `*.ndp`: the provider rows (NDPR).
    Providers,
}

impl ControlKind {
    /// Every kind, in the order they are reported.
    pub const ALL: [ControlKind; 3] = [Self::Table, Self::Points, Self::Providers];

    /// The kind's position in [`ControlKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The entry-name suffix of the kind (ASCII case ignored).
    pub fn suffix(self) -> &'static [u8] {
        match self {
            Self::Table => b".ctl",
            Self::Points => b".cpt",
            Self::Providers => b".ndp",
        }
    }

    /// How the kind is named in chains and diagnostics.
    pub fn label(self) -> &'static str {
        match self {
            Self::Table => "control table",
            Self::Points => "control points",
            Self::Providers => "provider rows",
        }
    }
}

/// Where a Control file is referenced: `archive:name` from the effective prototype.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlRef {
    /// The kind the name's suffix gives.
    pub kind: ControlKind,
    /// Archive (game-root-relative) as referenced.
    pub archive: Vec<u8>,
    /// Entry name as referenced.
    pub name: Vec<u8>,
}

/// The Control references of an expanded prototype: the first of each kind, in
/// [`ControlKind::ALL`] order, and the ignored later ones (PD-CTRL-DATA-EXTRA).
pub fn control_refs(expansion: &Expansion) -> (Vec<ControlRef>, Vec<ControlRef>) {
    let (mut first, mut extra) = (Vec::new(), Vec::new());
    for kind in ControlKind::ALL {
        for (n, r) in expansion
            .refs
            .iter()
            .filter(|r| ends_with_ignore_case(r.object_ref.resource(), kind.suffix()))
            .enumerate()
        {
            let c = ControlRef {
                kind,
                archive: r.object_ref.archive().to_vec(),
                name: r.object_ref.resource().to_vec(),
            };
            if n == 0 { &mut first } else { &mut extra }.push(c);
        }
    }
    (first, extra)
}

/// One parsed Control file with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlFile<T> {
    /// Archive it was read from.
    pub archive: Vec<u8>,
    /// Its entry name.
    pub name: Vec<u8>,
    /// The parsed payload (lossless: `to_bytes` gives the file back).
    pub data: T,
}

/// The Control data of one prototype (every part optional).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ControlData {
    /// The control description (pose rows, raw sections and tail).
    pub table: Option<ControlFile<Ctld>>,
    /// The control points.
    pub points: Option<ControlFile<Ctpt>>,
    /// The provider rows (raw: the layout is not documented).
    pub providers: Option<ControlFile<Ndpr>>,
}

impl ControlData {
    /// Whether the prototype has no Control file at all.
    pub fn is_empty(&self) -> bool {
        self.table.is_none() && self.points.is_none() && self.providers.is_none()
    }
}

/// Parses one Control file of `kind` into `data` (replacing that part).
pub fn parse_into(data: &mut ControlData, r: &ControlRef, bytes: &[u8]) -> Result<(), AuxError> {
    let (archive, name) = (r.archive.clone(), r.name.clone());
    match r.kind {
        ControlKind::Table => {
            data.table = Some(ControlFile {
                archive,
                name,
                data: Ctld::parse(bytes)?,
            });
        }
        ControlKind::Points => {
            data.points = Some(ControlFile {
                archive,
                name,
                data: Ctpt::parse(bytes)?,
            });
        }
        ControlKind::Providers => {
            data.providers = Some(ControlFile {
                archive,
                name,
                data: Ndpr::parse(bytes)?,
            });
        }
    }
    Ok(())
}

/// The CTLD pose rows (index, node) that name a node outside `0..node_count`, skipping
/// rows with the skip flag (PD-CTRL-ROW-NODE).
pub fn rows_outside(table: &Ctld, node_count: u32) -> Vec<(usize, i32)> {
    table
        .rows()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.flags & ROW_FLAG_SKIP == 0)
        .filter(|(_, r)| u32::try_from(r.node_id).map_or(true, |n| n >= node_count))
        .map(|(i, r)| (i, r.node_id))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use iron3d_aux::ControlRow;

    #[test]
    fn rows_outside_skips_flagged_rows_and_names_negative_and_large_nodes() {
        let rows = vec![
            ControlRow::new(0, 0.0, 1.0, 0.5, 0),
            ControlRow::new(3, 0.0, 1.0, 0.5, 0),
            ControlRow::new(-1, -1.0, -1.0, 0.0, ROW_FLAG_SKIP),
            ControlRow::new(-2, 0.0, 1.0, 0.5, 1),
            ControlRow::new(2, 0.0, 1.0, 0.5, 2),
        ];
        let t = Ctld::new(rows, 0, 0, Vec::new()).unwrap();
        assert_eq!(rows_outside(&t, 3), vec![(1, 3), (3, -2)]);
        assert!(rows_outside(&t, 4).iter().all(|&(i, _)| i == 3));
    }
}
