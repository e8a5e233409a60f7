//! The staged, transactional mission load (tome IV): context → world foundation → TMA →
//! prototype resolution → resource preparation → construction (pending objects) →
//! cross-reference validation → registration → scenario start. A failure before
//! registration releases every pending object (no gameplay event) and leaves the
//! previously loaded mission registered and untouched.

use crate::error::{MissionError, Stage};
use crate::graph::{GraphReport, mission_graph};
use crate::mission::MissionRef;
use crate::source::GameData;
use glam::{EulerRot, Quat, Vec3};
use iron3d_kernel::{
    DeleteMode, IdLayout, Kernel, ObjectDesc, ObjectHandle, OriginalObjectId, PropertyBag,
    Transform,
};
use iron3d_nres::Family;
use iron3d_tma::Tma;
use iron3d_vfs::GamePath;
use std::collections::BTreeSet;

/// A mission registered in the kernel.
#[derive(Clone, Debug)]
pub struct LoadedMission {
    /// As named by the user.
    pub name: String,
    /// Its objects, in `data.tma` order.
    pub objects: Vec<ObjectHandle>,
    /// The dependency graph it was loaded with.
    pub graph: GraphReport,
}

/// The original id of the `index`-th placed object. **Project decision**: the TMA does
/// not carry ids; objects get owner 0, class `1 + index / 4096`, index `index % 4096`
/// under [`IdLayout::PROJECT_DEFAULT`] (room for 61,440 objects).
pub fn object_id(index: usize) -> Option<OriginalObjectId> {
    let layout = IdLayout::PROJECT_DEFAULT;
    let span = 1usize << layout.index_bits;
    OriginalObjectId::compose(
        layout,
        0,
        u32::try_from(1 + index / span).ok()?,
        (index % span) as u32,
    )
}

fn stage_err(stage: Stage, mission: &str, cause: impl Into<String>) -> MissionError {
    MissionError::new(stage, mission, cause)
}

/// Loads mission `name` into `kernel`, replacing `previous` only when everything before
/// registration succeeded. Call between frames.
pub fn load_mission(
    kernel: &mut Kernel,
    data: &GameData<'_>,
    name: &str,
    previous: Option<&LoadedMission>,
) -> Result<LoadedMission, MissionError> {
    // One archive-cache scope for the whole load: each archive resolved, checked for
    // replacement and mapped once.
    let _scope = data.cache.scope();
    // 1. Context.
    let mref = MissionRef::locate(data.vfs, name)?;
    // 2. World foundation: the landscape files must exist (parsed by the terrain plugin),
    //    BuildDat.lst must parse.
    for file in ["Land.msh", "Land.map"] {
        let p = GamePath::parse(file)
            .map_err(|e| stage_err(Stage::WorldFoundation, name, e.to_string()))?;
        data.vfs.resolve_in_mission(&mref.dir, &p).map_err(|e| {
            let mut err = stage_err(Stage::WorldFoundation, name, e.to_string());
            err.resource = Some(file.into());
            err
        })?;
    }
    let build_dat = GamePath::parse("BuildDat.lst")
        .map_err(|e| stage_err(Stage::WorldFoundation, name, e.to_string()))?;
    let bytes = data
        .vfs
        .read(&build_dat)
        .map_err(|e| stage_err(Stage::WorldFoundation, name, e.to_string()))?;
    iron3d_config::BuildDat::parse(&bytes, "BuildDat.lst")
        .map_err(|e| stage_err(Stage::WorldFoundation, name, e.to_string()))?;
    // 3. TMA.
    let bytes = data
        .vfs
        .read(&mref.tma)
        .map_err(|e| stage_err(Stage::Tma, name, e.to_string()))?;
    let tma = Tma::parse(&bytes).map_err(|e| {
        let mut err = stage_err(Stage::Tma, name, e.to_string());
        err.resource = Some(mref.tma.original().to_owned());
        err.offset = Some(e.offset());
        err
    })?;
    // 4. Prototype resolution.
    let graph = mission_graph(data, name, &tma);
    if let Some(first) = graph.failures.first() {
        return Err(first.clone());
    }
    // 5. Resource preparation: every model entry is read once (and kept in the blob
    //    cache), tag checked; an error names the first object that uses it.
    let mut prepared = BTreeSet::new();
    for m in &graph.models {
        if !prepared.insert((m.archive.to_ascii_uppercase(), m.name.to_ascii_uppercase())) {
            continue;
        }
        data.entry_as(&m.archive, &m.name, Family::mesh())
            .map_err(|e| {
                let mut err = stage_err(Stage::ResourcePreparation, name, e.to_string());
                err.object = Some(m.object);
                err.resource = Some(tma.objects[m.object].resource_name.text());
                err.archive = Some(m.archive.escape_ascii().to_string());
                err.entry = Some(m.name.escape_ascii().to_string());
                err
            })?;
    }
    // 6. Construction: pending objects, invisible to traversal.
    let mut pending: Vec<ObjectHandle> = Vec::with_capacity(tma.objects.len());
    let release = |kernel: &mut Kernel, pending: &[ObjectHandle]| {
        if let Ok(w) = kernel.world_mut() {
            for &h in pending {
                w.delete(h, DeleteMode::Forced);
            }
        }
    };
    let world = kernel
        .world_mut()
        .map_err(|e| stage_err(Stage::Construction, name, e.to_string()))?;
    for (i, o) in tma.objects.iter().enumerate() {
        let Some(id) = object_id(i) else {
            let mut err = stage_err(
                Stage::Construction,
                name,
                "more objects than the id layout can number",
            );
            err.object = Some(i);
            for &h in &pending {
                world.delete(h, DeleteMode::Forced);
            }
            return Err(err);
        };
        let [px, py, pz] = o.position.map(|v| v.get());
        let [ox, oy, oz] = o.orientation.map(|v| v.get());
        let [sx, sy, sz] = o.scale.map(|v| v.get());
        let mut props = PropertyBag::new();
        for p in &o.properties {
            props.push(p.name.as_bytes().to_vec(), p.raw_value);
        }
        let desc = ObjectDesc {
            id: Some(id),
            kind: o.raw_kind,
            transform: Transform {
                position: Vec3::new(px, py, pz),
                // Rz(z) · Ry(y) · Rx(x) (FORMATS §5.4).
                orientation: Quat::from_euler(EulerRot::ZYX, oz, oy, ox),
                scale: Vec3::new(sx, sy, sz),
            },
            velocity: Vec3::ZERO,
            props,
            prototype: o.resource_name.as_bytes().to_vec(),
        };
        match world.create(desc) {
            Ok(h) => pending.push(h),
            Err(e) => {
                for &h in &pending {
                    world.delete(h, DeleteMode::Forced);
                }
                let mut err = stage_err(Stage::Construction, name, e.to_string());
                err.object = Some(i);
                return Err(err);
            }
        }
    }
    // 7. Validation: ids unique among the new objects and free once the previous mission
    //    is gone.
    let previous_ids: BTreeSet<OriginalObjectId> = previous
        .map(|p| {
            p.objects
                .iter()
                .filter_map(|&h| kernel.world().get(h).ok().map(|o| o.id))
                .collect()
        })
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    for (i, &h) in pending.iter().enumerate() {
        let id = kernel
            .world()
            .get(h)
            .map(|o| o.id)
            .map_err(|e| stage_err(Stage::Validation, name, e.to_string()))?;
        let taken = kernel.world().handle_of(id).is_some() && !previous_ids.contains(&id);
        if !seen.insert(id) || taken {
            release(kernel, &pending);
            let mut err = stage_err(
                Stage::Validation,
                name,
                format!("object id {id} already in use"),
            );
            err.object = Some(i);
            return Err(err);
        }
    }
    // 8. Registration: the previous mission leaves, the new one enters.
    let world = kernel
        .world_mut()
        .map_err(|e| stage_err(Stage::Registration, name, e.to_string()))?;
    if let Some(p) = previous {
        for &h in &p.objects {
            world.delete(h, DeleteMode::Forced);
        }
    }
    for &h in &pending {
        // Cannot fail: ids were validated and the handles are fresh constructed objects.
        world
            .add_to_game(h)
            .map_err(|e| stage_err(Stage::Registration, name, e.to_string()))?;
    }
    // 9. Scenario start.
    tracing::info!(
        mission = name,
        objects = pending.len(),
        msh = graph.counts.msh,
        "mission loaded"
    );
    Ok(LoadedMission {
        name: name.to_owned(),
        objects: pending,
        graph,
    })
}
