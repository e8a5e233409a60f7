//! The device table merge (FORMATS §13.14 "Device table merge"; tome 06, Control
//! `+0x8B10`, AniMesh `+0x3760`), the INTO local index rule and the global MSH node
//! numbering.

use std::ops::Range;

use crate::device::{Device, DeviceRecord};
use crate::error::{ControlError, LoadContext, Result};

/// Registry type of a unit component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComponentKind {
    /// The root model.
    Root,
    /// INTO: overrides one existing slot (C8) or, with C8 = −1, appends.
    Into,
    /// EXTO: a mounted child model; always appends (C8 forced to −1).
    Exto,
    /// Any other non-EXTO registry type (handled like INTO: the C8 path).
    Other,
}

/// One component as AniMesh hands it to Control.
#[derive(Debug, Clone, PartialEq)]
pub struct ComponentDescriptor {
    /// Registry type.
    pub kind: ComponentKind,
    /// AniMesh component ID (device field +0x08 of the devices it creates).
    pub component_id: i32,
    /// Descriptor +0xC4: the EXTO mount node (global MSH node), −1 when unresolved.
    pub c4: i32,
    /// Descriptor +0xC8: the target slot; −1 appends. Ignored for EXTO.
    pub c8: i32,
    /// The component's first global MSH node (see [`GlobalNodeCounter`]); −1 if none.
    pub first_global_node: i32,
    /// The component's typed records, in file order.
    pub records: Vec<DeviceRecord>,
}

impl ComponentDescriptor {
    /// A root (or other append-path) component: C4 = C8 = −1.
    pub fn root(component_id: i32, records: Vec<DeviceRecord>) -> Self {
        Self {
            kind: ComponentKind::Root,
            component_id,
            c4: -1,
            c8: -1,
            first_global_node: -1,
            records,
        }
    }

    /// An INTO component targeting slot `c8` (−1 appends).
    pub fn into_slot(component_id: i32, c8: i32, records: Vec<DeviceRecord>) -> Self {
        Self {
            kind: ComponentKind::Into,
            component_id,
            c4: -1,
            c8,
            first_global_node: -1,
            records,
        }
    }

    /// An EXTO component mounted at `c4` (−1 = unresolved) whose nodes start at
    /// `first_global_node`.
    pub fn exto(
        component_id: i32,
        c4: i32,
        first_global_node: i32,
        records: Vec<DeviceRecord>,
    ) -> Self {
        Self {
            kind: ComponentKind::Exto,
            component_id,
            c4,
            c8: -1,
            first_global_node,
            records,
        }
    }
}

/// What to do with an EXTO component whose mount did not resolve (C4 = −1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnresolvedExtoPolicy {
    /// **PD-CTRL-EXTO-UNRESOLVED** (project default): the component contributes no
    /// devices and a [`MergeDiagnostic::UnresolvedExtoMount`] is reported, matching
    /// the provider rule "an unresolved mount contributes no rows".
    #[default]
    Skip,
    /// The literal native reading: append all records; key 0 becomes C4 (−1 as
    /// `0xFFFFFFFF`) and non-zero keys stay unshifted. The diagnostic is still
    /// reported.
    NativeKeys,
}

/// Merge options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MergeOptions {
    /// Unresolved EXTO handling.
    pub unresolved_exto: UnresolvedExtoPolicy,
}

/// A non-fatal finding of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeDiagnostic {
    /// An EXTO component had C4 = −1.
    UnresolvedExtoMount {
        /// Its component ID.
        component_id: i32,
        /// Its record count.
        records: usize,
        /// Whether it was skipped (contributing nothing).
        skipped: bool,
    },
    /// An INTO override had more than one typed record; only the first was applied
    /// (native: no loop on that path).
    IgnoredExtraRecords {
        /// The slot overridden.
        slot: usize,
        /// How many records were not applied.
        ignored: usize,
    },
}

/// The result of one successful merge.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MergeReport {
    /// Indices of the devices appended (empty for an override or a skip).
    pub appended: Range<usize>,
    /// The slot overridden, if the INTO path ran.
    pub overridden: Option<usize>,
    /// Non-fatal findings.
    pub diagnostics: Vec<MergeDiagnostic>,
}

/// The per-object device table, in slot order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeviceTable {
    devices: Vec<Device>,
}

/// EXTO key remap into the global MSH node space: key 0 → `c4`; a non-zero key →
/// `first_global_node + key − 1` when `c4 != −1` (the general form is **inferred**
/// from the example "first node 22 maps key 1 to 22"), unchanged otherwise. Fails when
/// the component has no global node or the result overflows.
pub fn remap_exto_key(key: u32, c4: i32, first_global_node: i32) -> Result<u32> {
    if key == 0 {
        return Ok(c4 as u32);
    }
    if c4 == -1 {
        return Ok(key);
    }
    if first_global_node < 0 {
        return Err(ControlError::ExtoKeyWithoutGlobalNodes { key });
    }
    let v = i64::from(first_global_node) + i64::from(key) - 1;
    i32::try_from(v)
        .map(|v| v as u32)
        .map_err(|_| ControlError::KeyRemapOverflow {
            key,
            first_global_node,
        })
}

impl DeviceTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The devices in slot order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// Mutable access to the devices (slot order and count stay fixed).
    pub fn devices_mut(&mut self) -> &mut [Device] {
        &mut self.devices
    }

    /// Number of devices.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Whether the table has no device.
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// Control `+0x2ECC0`: index of the first device whose component ID (+0x08) equals
    /// `id`, or −1.
    pub fn index_of_first_component(&self, id: i32) -> i32 {
        self.devices
            .iter()
            .position(|d| d.component_id() == id)
            .and_then(|i| i32::try_from(i).ok())
            .unwrap_or(-1)
    }

    /// The INTO/non-EXTO local index rule of AniMesh `+0x3760`: when `parent_id != −1`
    /// and IID `0x202` is available, `local + index_of_first_component(parent_id)`,
    /// where the −1 of a failed lookup is added **without a check** (so a missing
    /// parent gives `local − 1`); otherwise `local`. The sum wraps like the native
    /// 32-bit add.
    pub fn resolve_local_index(
        &self,
        local: i32,
        parent_id: i32,
        iid_0x202_available: bool,
    ) -> i32 {
        if parent_id != -1 && iid_0x202_available {
            local.wrapping_add(self.index_of_first_component(parent_id))
        } else {
            local
        }
    }

    /// Merges one component. Append path (C8 = −1, or any EXTO): one device per
    /// record, in order; EXTO keys go through [`remap_exto_key`], other keys are kept.
    /// INTO path (C8 ≠ −1, non-EXTO): only the first record overrides slot C8 via
    /// [`Device::apply_override`]. Errors carry `ctx` and leave the table unchanged.
    pub fn merge(
        &mut self,
        desc: &ComponentDescriptor,
        ctx: &LoadContext,
        options: MergeOptions,
    ) -> Result<MergeReport> {
        self.merge_inner(desc, options)
            .map_err(|e| e.in_context(ctx))
    }

    fn merge_inner(
        &mut self,
        desc: &ComponentDescriptor,
        options: MergeOptions,
    ) -> Result<MergeReport> {
        let mut report = MergeReport {
            appended: self.devices.len()..self.devices.len(),
            ..MergeReport::default()
        };
        let is_exto = desc.kind == ComponentKind::Exto;
        let c8 = if is_exto { -1 } else { desc.c8 };
        if c8 != -1 {
            let slot = usize::try_from(c8)
                .ok()
                .filter(|&s| s < self.devices.len())
                .ok_or(ControlError::IntoSlotOutOfRange {
                    slot: c8,
                    device_count: self.devices.len(),
                })?;
            let first = desc
                .records
                .first()
                .ok_or(ControlError::IntoWithoutRecords { slot: c8 })?;
            if let Some(d) = self.devices.get_mut(slot) {
                d.apply_override(first);
            }
            report.overridden = Some(slot);
            if desc.records.len() > 1 {
                report
                    .diagnostics
                    .push(MergeDiagnostic::IgnoredExtraRecords {
                        slot,
                        ignored: desc.records.len() - 1,
                    });
            }
            return Ok(report);
        }
        if is_exto && desc.c4 == -1 {
            let skipped = options.unresolved_exto == UnresolvedExtoPolicy::Skip;
            report
                .diagnostics
                .push(MergeDiagnostic::UnresolvedExtoMount {
                    component_id: desc.component_id,
                    records: desc.records.len(),
                    skipped,
                });
            if skipped {
                return Ok(report);
            }
        }
        // Build everything first so that an error leaves the table unchanged.
        let mut new = Vec::with_capacity(desc.records.len());
        for r in &desc.records {
            let key = if is_exto {
                remap_exto_key(r.key(), desc.c4, desc.first_global_node)?
            } else {
                r.key()
            };
            new.push(Device::create_with_key(r, desc.component_id, key));
        }
        let start = self.devices.len();
        self.devices.extend(new);
        report.appended = start..self.devices.len();
        Ok(report)
    }

    /// A table holding `devices` in the given slot order (for restoring a saved state
    /// or building synthetic tables).
    pub fn from_devices(devices: Vec<Device>) -> Self {
        Self { devices }
    }
}

/// Global MSH node numbering (AniMesh `+0xA460`/`+0x5780`): a root (or other non-INTO,
/// non-EXTO) model adds all N nodes, an EXTO child adds N − 1 (its local nodes
/// 1..N−1), an INTO component adds none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GlobalNodeCounter {
    next: u32,
}

impl GlobalNodeCounter {
    /// A counter at global node 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// Global nodes assigned so far.
    pub fn count(&self) -> u32 {
        self.next
    }

    /// Adds a component's `node_count` nodes and returns its first global node, or −1
    /// when it adds none (INTO, an empty model, a one-node EXTO). `Other` is counted
    /// like a root model (**inferred**).
    pub fn add(&mut self, kind: ComponentKind, node_count: u32) -> Result<i32> {
        let added = match kind {
            ComponentKind::Root | ComponentKind::Other => node_count,
            ComponentKind::Exto => node_count.saturating_sub(1),
            ComponentKind::Into => 0,
        };
        if added == 0 {
            return Ok(-1);
        }
        let first = i32::try_from(self.next).map_err(|_| ControlError::NodeCountOverflow)?;
        self.next = self
            .next
            .checked_add(added)
            .filter(|&n| i32::try_from(n).is_ok())
            .ok_or(ControlError::NodeCountOverflow)?;
        Ok(first)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::device::{FactoryTag, KEEP_FACTORY_FIELD_50};
    use std::error::Error;

    fn rec(tag: u32, key: u32) -> DeviceRecord {
        DeviceRecord::synthetic(FactoryTag(tag), key, 1.0, KEEP_FACTORY_FIELD_50)
    }

    fn ctx() -> LoadContext {
        LoadContext::new()
            .unit("min_l_n1.dat")
            .component("c3")
            .file("fr_l_mine.ctl")
    }

    /// §13.14 example shape of `min_l_n1.dat`: 10 devices, 4 INTO overrides at slots
    /// 0..3, one EXTO record with key 22 → 11 devices.
    #[test]
    fn min_l_n1_shape() {
        let mut nodes = GlobalNodeCounter::new();
        let mut table = DeviceTable::new();
        let root_first = nodes.add(ComponentKind::Root, 22).unwrap();
        assert_eq!(root_first, 0);
        let root = ComponentDescriptor::root(1, (0..10).map(|k| rec(26, k)).collect());
        let r = table.merge(&root, &ctx(), MergeOptions::default()).unwrap();
        assert_eq!((r.appended, table.len()), (0..10, 10));
        for slot in 0..4 {
            assert_eq!(nodes.add(ComponentKind::Into, 5).unwrap(), -1);
            let into = ComponentDescriptor::into_slot(2 + slot, slot, vec![rec(19, 100)]);
            let r = table.merge(&into, &ctx(), MergeOptions::default()).unwrap();
            assert_eq!(r.overridden, Some(slot as usize));
        }
        assert_eq!(table.len(), 10);
        let first = nodes.add(ComponentKind::Exto, 5).unwrap();
        assert_eq!((first, nodes.count()), (22, 26));
        let exto = ComponentDescriptor::exto(9, 21, first, vec![rec(5, 1)]);
        let r = table.merge(&exto, &ctx(), MergeOptions::default()).unwrap();
        assert_eq!(r.appended, 10..11);
        assert_eq!(table.len(), 11);
        assert_eq!(table.devices()[10].key(), 22);
        // Overridden slots keep key and component id, change the current tag.
        let d0 = &table.devices()[0];
        assert_eq!(
            (
                d0.key(),
                d0.component_id(),
                d0.current_tag(),
                d0.factory_tag()
            ),
            (0, 1, FactoryTag(19), FactoryTag(26))
        );
        assert_eq!(table.devices()[4].current_tag(), FactoryTag(26));
    }

    #[test]
    fn exto_key_remap() {
        assert_eq!(remap_exto_key(0, 21, 22).unwrap(), 21);
        assert_eq!(remap_exto_key(1, 21, 22).unwrap(), 22);
        assert_eq!(remap_exto_key(3, 21, 22).unwrap(), 24);
        assert_eq!(remap_exto_key(3, -1, 22).unwrap(), 3);
        assert_eq!(remap_exto_key(0, -1, 22).unwrap(), 0xFFFF_FFFF);
        assert!(matches!(
            remap_exto_key(2, 21, -1),
            Err(ControlError::ExtoKeyWithoutGlobalNodes { key: 2 })
        ));
        assert!(matches!(
            remap_exto_key(u32::MAX, 21, 5),
            Err(ControlError::KeyRemapOverflow { .. })
        ));
    }

    #[test]
    fn root_keeps_keys_and_into_minus_one_appends() {
        let mut t = DeviceTable::new();
        t.merge(
            &ComponentDescriptor::root(1, vec![rec(2, 7), rec(3, 0)]),
            &ctx(),
            MergeOptions::default(),
        )
        .unwrap();
        assert_eq!(
            t.devices().iter().map(Device::key).collect::<Vec<_>>(),
            vec![7, 0]
        );
        let r = t
            .merge(
                &ComponentDescriptor::into_slot(2, -1, vec![rec(4, 1), rec(5, 2)]),
                &ctx(),
                MergeOptions::default(),
            )
            .unwrap();
        assert_eq!((r.appended, r.overridden), (2..4, None));
        assert_eq!(t.devices()[3].component_id(), 2);
    }

    #[test]
    fn into_override_applies_only_the_first_record() {
        let mut t = DeviceTable::new();
        t.merge(
            &ComponentDescriptor::root(1, vec![rec(2, 7)]),
            &ctx(),
            MergeOptions::default(),
        )
        .unwrap();
        t.devices_mut()[0].set_multiplier(2.5);
        let over = DeviceRecord::synthetic(FactoryTag(19), 99, 3.0, 0x44);
        let r = t
            .merge(
                &ComponentDescriptor::into_slot(5, 0, vec![over, rec(2, 1)]),
                &ctx(),
                MergeOptions::default(),
            )
            .unwrap();
        assert_eq!(
            r.diagnostics,
            vec![MergeDiagnostic::IgnoredExtraRecords {
                slot: 0,
                ignored: 1
            }]
        );
        let d = &t.devices()[0];
        assert_eq!(
            (
                t.len(),
                d.key(),
                d.multiplier(),
                d.coefficient(),
                d.field_50()
            ),
            (1, 7, 2.5, 3.0, Some(0x44))
        );
    }

    #[test]
    fn into_errors_name_unit_component_file_and_leave_table_unchanged() {
        let mut t = DeviceTable::new();
        t.merge(
            &ComponentDescriptor::root(1, vec![rec(2, 7)]),
            &ctx(),
            MergeOptions::default(),
        )
        .unwrap();
        let before = t.clone();
        let e = t
            .merge(
                &ComponentDescriptor::into_slot(5, 3, vec![rec(2, 1)]),
                &ctx(),
                MergeOptions::default(),
            )
            .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("min_l_n1.dat") && msg.contains("c3") && msg.contains("fr_l_mine.ctl"),
            "{msg}"
        );
        // The chain keeps the cause (as the boxed source) and its message.
        let src = e.source().unwrap();
        assert!(src.to_string().contains("C8 = 3"), "{src}");
        assert_eq!(
            src.downcast_ref::<Box<ControlError>>().map(|b| &**b),
            Some(e.root_cause())
        );
        assert_eq!(
            e.root_cause(),
            &ControlError::IntoSlotOutOfRange {
                slot: 3,
                device_count: 1
            }
        );
        assert_eq!(
            e.context().and_then(|c| c.file.as_deref()),
            Some("fr_l_mine.ctl")
        );
        let e = t
            .merge(
                &ComponentDescriptor::into_slot(5, 0, vec![]),
                &ctx(),
                MergeOptions::default(),
            )
            .unwrap_err();
        assert!(
            matches!(e, ControlError::InContext { source, .. } if *source == ControlError::IntoWithoutRecords { slot: 0 })
        );
        let e = t.merge(
            &ComponentDescriptor::into_slot(5, -7, vec![rec(2, 1)]),
            &ctx(),
            MergeOptions::default(),
        );
        assert!(e.is_err());
        // A failing EXTO remap appends nothing.
        let e = t.merge(
            &ComponentDescriptor::exto(6, 4, -1, vec![rec(2, 0), rec(2, 3)]),
            &ctx(),
            MergeOptions::default(),
        );
        assert!(e.is_err());
        assert_eq!(t, before);
    }

    #[test]
    fn unresolved_exto_mount() {
        let mut t = DeviceTable::new();
        let exto = ComponentDescriptor::exto(6, -1, 22, vec![rec(2, 0), rec(2, 3)]);
        let r = t.merge(&exto, &ctx(), MergeOptions::default()).unwrap();
        assert_eq!(
            r.diagnostics,
            vec![MergeDiagnostic::UnresolvedExtoMount {
                component_id: 6,
                records: 2,
                skipped: true
            }]
        );
        assert!(t.is_empty());
        let opts = MergeOptions {
            unresolved_exto: UnresolvedExtoPolicy::NativeKeys,
        };
        let r = t.merge(&exto, &ctx(), opts).unwrap();
        assert_eq!(r.appended, 0..2);
        assert_eq!(
            t.devices().iter().map(Device::key).collect::<Vec<_>>(),
            vec![0xFFFF_FFFF, 3]
        );
    }

    /// The INTO local index rule, including the unchecked −1 ("one less than local").
    #[test]
    fn into_local_index_rule() {
        let mut t = DeviceTable::new();
        t.merge(
            &ComponentDescriptor::root(10, vec![rec(2, 0), rec(2, 1)]),
            &ctx(),
            MergeOptions::default(),
        )
        .unwrap();
        t.merge(
            &ComponentDescriptor::root(11, vec![rec(2, 0), rec(2, 1)]),
            &ctx(),
            MergeOptions::default(),
        )
        .unwrap();
        assert_eq!(t.resolve_local_index(1, 11, true), 3);
        assert_eq!(t.resolve_local_index(1, 10, true), 1);
        // No device with that parent ID: the -1 is added unchecked.
        assert_eq!(t.resolve_local_index(3, 42, true), 2);
        // Local 0 then becomes C8 = -1, which takes the append path.
        assert_eq!(t.resolve_local_index(0, 42, true), -1);
        assert_eq!(t.resolve_local_index(3, -1, true), 3);
        assert_eq!(t.resolve_local_index(3, 11, false), 3);
        assert_eq!(t.resolve_local_index(i32::MIN, 42, true), i32::MAX);
    }

    #[test]
    fn global_node_numbering() {
        let mut n = GlobalNodeCounter::new();
        assert_eq!(n.add(ComponentKind::Root, 22).unwrap(), 0);
        assert_eq!(n.add(ComponentKind::Into, 9).unwrap(), -1);
        assert_eq!(n.add(ComponentKind::Exto, 1).unwrap(), -1);
        assert_eq!(n.add(ComponentKind::Exto, 5).unwrap(), 22);
        assert_eq!(n.add(ComponentKind::Exto, 0).unwrap(), -1);
        assert_eq!(n.count(), 26);
        assert!(n.add(ComponentKind::Root, u32::MAX).is_err());
        assert_eq!(n.count(), 26);
    }
}
